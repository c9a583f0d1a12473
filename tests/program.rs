//! `#[pto::program]`: several kernels in one module, calls between them, `incore!` regions
//! outlined into functions of their own, tuple returns; run on the CPU against plain Rust.

use pto::prelude::*;

mod support;

#[pto::program(
    arch = "PTOv2",
    tile_default(M = 16, N = 16, K = 16),
    note = "calls",
    level = 2
)]
mod scaled {
    /// out[r, :] = x[r, :] * s, 16 columns at a time (edge tiles included).
    #[pto::kernel]
    pub fn scale(x: &Tensor<f32, R, C>, s: f32, out: &mut Tensor<f32, R, C>) {
        for r in 0..R {
            for c in (0..C).step_by(16) {
                let t = x.load::<1, 16>([r, c]);
                out.store([r, c], t * s);
            }
        }
    }

    /// The number of rows and columns, and their product as a float.
    #[pto::kernel]
    pub fn dims(x: &Tensor<f32, R, C>) -> (i64, f32) {
        (R + C, (R * C) as f32)
    }

    #[pto::kernel]
    #[entry]
    pub fn main(x: &Tensor<f32, R, C>, out: &mut Tensor<f32, R, C>) -> f32 {
        let (n, p) = dims(x);
        let s = n as f32 * 0.5;
        scale(x, s, out);
        p + s
    }
}

fn reference(x: &[f32], r: usize, c: usize) -> (Vec<f32>, f32) {
    let s = (r + c) as f32 * 0.5;
    (x.iter().map(|v| v * s).collect(), (r * c) as f32 + s)
}

#[test]
fn the_entry_runs_the_program_calls_included() {
    for (r, c) in [(1, 1), (1, 16), (3, 17), (5, 40), (16, 33)] {
        let data: Vec<f32> = (0..r * c).map(|i| i as f32 * 0.25 - 3.0).collect();
        let x = pto::Tensor::<f32>::from_vec(data.clone(), [r, c]).unwrap();
        let mut out = pto::Tensor::<f32>::zeros([r, c]);
        let got = scaled::main(&x, &mut out).unwrap();
        let (want, ret) = reference(&data, r, c);
        assert_eq!(out.as_slice(), want.as_slice(), "{r} x {c}");
        assert_eq!(got, ret, "{r} x {c}");
    }
}

#[test]
fn every_kernel_keeps_its_host_function_and_texts() {
    let x = pto::Tensor::<f32>::from_vec(vec![1.0; 6], [2, 3]).unwrap();
    assert_eq!(scaled::dims(&x).unwrap(), (5, 6.0));
    assert!(scaled::scale::IR.contains("program.entry @scale"));
    assert!(scaled::IR.contains("program.entry @main"));
    assert!(scaled::IR.contains("attr tile_default_m = 16"));
    assert!(scaled::IR.contains("attr note = \"calls\""));
    assert!(scaled::IR.contains("func.call @dims"));
    assert!(scaled::CPP.contains("__global__ AICORE void main_("));
    assert!(scaled::CPP.contains("AICORE inline void scale("));
    let m = scaled::program();
    assert_eq!(m.functions.len(), 3);
}

#[pto::program(tile_default(M = 8, N = 16, K = 16))]
mod outlined {
    /// y = relu(x) + 1 row tile by row tile inside an `incore!` region; returns R * C and the
    /// sum of the region's row count, computed inside and used after it.
    #[pto::kernel]
    #[entry]
    pub fn main(x: &Tensor<f32, R, C>, y: &mut Tensor<f32, R, C>, bias: f32) -> i64 {
        let mut rows = 0;
        incore! {
            for r in (0..R).step_by(8) {
                for c in (0..C).step_by(16) {
                    let t = x.load::<8, 16>([r, c]);
                    y.store([r, c], t.relu() + bias);
                }
                rows += 1;
            }
        }
        rows * C
    }
}

#[test]
fn an_incore_region_is_outlined_and_called() {
    assert!(outlined::IR.contains("statement.scope incore"));
    assert!(
        outlined::LOWERED.contains("main_incore_0"),
        "{}",
        outlined::LOWERED
    );
    assert!(
        outlined::CPP.contains("AICORE inline void main_incore_0("),
        "{}",
        outlined::CPP
    );
    for (r, c) in [(1, 1), (8, 16), (9, 17), (20, 50)] {
        let data: Vec<f32> = (0..r * c).map(|i| (i as f32 - 7.5) * 0.5).collect();
        let x = pto::Tensor::<f32>::from_vec(data.clone(), [r, c]).unwrap();
        let mut y = pto::Tensor::<f32>::zeros([r, c]);
        let got = outlined::main(&x, &mut y, 1.5).unwrap();
        let want: Vec<f32> = data.iter().map(|v| v.max(0.0) + 1.5).collect();
        assert_eq!(y.as_slice(), want.as_slice(), "{r} x {c}");
        assert_eq!(got, (r.div_ceil(8) * c) as i64, "{r} x {c}");
    }
}

/// A lone kernel may return a tuple of scalars too, by a tail or by `return`.
#[pto::kernel]
pub fn div_mod(a: i64, b: i64) -> (i64, f64) {
    let q = if b == 0 { 0 } else { a / b };
    return (q, (a - q * b) as f64);
}

#[test]
fn a_lone_kernel_returns_a_tuple() {
    for (a, b) in [
        (7i64, 2i64),
        (-7, 2),
        (7, -3),
        (0, 5),
        (5, 0),
        (i64::MAX, 1),
    ] {
        let want = if b == 0 {
            (0, a as f64)
        } else {
            (a / b, (a % b) as f64)
        };
        assert_eq!(div_mod(a, b).unwrap(), want, "{a} / {b}");
    }
    assert!(div_mod::IR.contains("-> (int64, fp64)"));
}

/// The host code and the reference interpreter agree on a program with calls.
#[test]
fn the_interpreter_runs_the_calls_too() {
    use pto_lower::interp::{HostValue, run};
    let (r, c) = (3usize, 17usize);
    let data: Vec<f32> = (0..r * c).map(|i| i as f32 * 0.5).collect();
    let x = pto::Tensor::<f32>::from_vec(data.clone(), [r, c]).unwrap();
    let mut out = pto::Tensor::<f32>::zeros([r, c]);
    let got = scaled::main(&x, &mut out).unwrap();
    let m = scaled::program();
    let wide = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect();
    let mut args = vec![
        HostValue::tensor(pto::ir::DataType::Fp32, vec![r, c], wide(&data)).unwrap(),
        HostValue::tensor(pto::ir::DataType::Fp32, vec![r, c], vec![0.0; r * c]).unwrap(),
    ];
    let ret = run(&m, m.entry.unwrap(), &mut args).unwrap();
    assert_eq!(
        ret.first().and_then(HostValue::as_f64),
        Some(f64::from(got))
    );
    let interp = args[1].as_tensor().unwrap();
    assert_eq!(interp.data, wide(out.as_slice()));
}

/// Issue 14's audit: every kernel of this file as `NAME::CPP` for A2A3 and A5 in the C++
/// model of pto-isa, at tile-multiple and ragged sizes, against the interpreter (which
/// `the_interpreter_runs_the_calls_too` ties to the host functions).
#[test]
fn every_kernel_here_runs_in_the_cpp_model() {
    let sizes = || vec![vec![("R", 32), ("C", 64)], vec![("R", 37), ("C", 50)]];
    let mut problems = Vec::new();
    for (name, m) in [
        ("scaled", scaled::program()),
        ("outlined", outlined::program()),
    ] {
        problems.extend(support::model::check(name, &m, &sizes(), true));
    }
    problems.extend(support::model::check(
        "div_mod",
        &div_mod::program(),
        &vec![vec![]],
        true,
    ));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
