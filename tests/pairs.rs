//! Pairs the host code runs as one pass (`pto-lower`'s `lower/pairs.rs`): broadcasts
//! written straight into their stores (`pto::isa::trowexpand_store` ...) and an op only summed
//! by rows (`trowsum_map`), in softmax, layernorm and broadcast kernels at tile-multiple and
//! ragged sizes. The host code must give exactly the interpreter's results (which runs the
//! instructions one by one), `LOWERED` must show the marks, and a store outside its tensor
//! must still be the store's error.
#![allow(clippy::unwrap_used)]

use pto::prelude::*;
use pto_lower::interp::{HostTensor, HostValue, run};

/// Row softmax, 4 x 64 tiles: ends with `TROWEXPANDDIV` in place, then the store.
#[pto::kernel]
pub fn softmax(x: &Tensor<f32, R, C>, #[out] out: &mut Tensor<f32, R, C>) {
    for r in (0..R).step_by(4) {
        let t = x.load::<4, 64>([r, 0]);
        let e = (t - t.row_max()).exp();
        out.store([r, 0], e / e.row_sum());
    }
}

/// Row layernorm, 8 x 32 tiles: ends with `TROWEXPANDMUL` in place.
#[pto::kernel]
pub fn layernorm(x: &Tensor<f32, R, C>, #[out] out: &mut Tensor<f32, R, C>) {
    for r in (0..R).step_by(8) {
        let t = x.load::<8, 32>([r, 0]);
        let d = t - t.row_sum() * 0.03125;
        let var = (d * d).row_sum() * 0.03125;
        out.store([r, 0], d * (var + 0.00001).rsqrt());
    }
}

/// `x - rowmax(x)` into a new tile, and `x * v` in place (a column operand loaded once).
#[pto::kernel]
pub fn centered_scaled(
    x: &Tensor<f32, R, C>,
    v: &Tensor<f32, 1, C>,
    #[out] centered: &mut Tensor<f32, R, C>,
    #[out] scaled: &mut Tensor<f32, R, C>,
) {
    let vt = v.load::<1, 16>([0, 0]);
    for r in (0..R).step_by(16) {
        let t = x.load::<16, 16>([r, 0]);
        centered.store([r, 0], t - t.row_max());
        scaled.store([r, 0], t * vt);
    }
}

/// `x / v` stored `shift` rows down: the last row tiles' stores fall outside `out`.
#[pto::kernel]
pub fn shifted(
    x: &Tensor<f32, R, C>,
    v: &Tensor<f32, 1, C>,
    shift: i64,
    #[out] out: &mut Tensor<f32, R, C>,
) {
    let vt = v.load::<1, 16>([0, 0]);
    for r in (0..R).step_by(4) {
        let t = x.load::<4, 16>([r, 0]);
        out.store([r + shift, 0], t / vt);
    }
}

/// Deterministic values in `[-4, 4)`, with zeros of both signs.
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|k| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            match k % 13 {
                3 => -0.0,
                7 => 0.0,
                _ => 8.0 * ((s >> 40) as f32 / (1u64 << 24) as f32) - 4.0,
            }
        })
        .collect()
}

/// The bits of `v`, every NaN as one value (a NaN result's bits are unspecified; a zero's
/// sign is compared).
fn bits(v: &[f32]) -> Vec<u32> {
    v.iter()
        .map(|x| if x.is_nan() { u32::MAX } else { x.to_bits() })
        .collect()
}

fn host_tensor(d: &[f32], s: &[usize]) -> HostValue {
    let data = d.iter().map(|&x| f64::from(x)).collect();
    HostValue::Tensor(HostTensor::new(pto::ir::DataType::Fp32, s.to_vec(), data).unwrap())
}

/// Runs `m` in the interpreter on `args` (f32 tensors; outputs zero) and returns the
/// tensors after the run.
fn interp(m: &pto::ir::ProgramModule, args: &[(&[f32], &[usize])]) -> Vec<Vec<f32>> {
    let mut vals: Vec<HostValue> = args.iter().map(|(d, s)| host_tensor(d, s)).collect();
    run(m, m.entry.unwrap(), &mut vals).unwrap();
    vals.iter()
        .map(|a| {
            a.as_tensor()
                .unwrap()
                .data
                .iter()
                .map(|&x| x as f32)
                .collect()
        })
        .collect()
}

/// Sizes: tile multiples, ragged rows, ragged columns, both, and fewer rows than a tile.
const SIZES: [(usize, usize); 6] = [(16, 64), (13, 64), (16, 50), (21, 37), (3, 64), (1, 1)];

#[test]
fn lowered_shows_the_marks() {
    assert!(softmax::LOWERED.contains("store: TROWEXPANDDIV"));
    assert!(layernorm::LOWERED.contains("store: TROWEXPANDMUL"));
    // The first pass: the load and its row sum; then `x - mean` kept and `d * d` only summed.
    assert!(layernorm::LOWERED.contains("reduce: TLOAD"));
    assert!(layernorm::LOWERED.contains("rowsum: TROWEXPANDSUB"));
    assert!(layernorm::LOWERED.contains("; TMUL"));
    assert!(softmax::LOWERED.contains("TEXP t0_t = t0_t; TROWSUM"));
    assert!(centered_scaled::LOWERED.contains("store: TROWEXPANDSUB"));
    assert!(centered_scaled::LOWERED.contains("store: TCOLEXPANDMUL"));
    assert!(shifted::LOWERED.contains("store: TCOLEXPANDDIV"));
    // The C++ still prints both instructions.
    assert!(softmax::CPP.contains("TROWEXPANDDIV") && softmax::CPP.contains("TSTORE"));
}

#[test]
fn row_kernels_match_the_interpreter() {
    type Kernel = fn(&Tensor<f32>, &mut Tensor<f32>) -> Result<(), pto::Error>;
    let kernels: [(&str, Kernel, pto::ir::ProgramModule); 2] = [
        ("softmax", softmax, softmax::program()),
        ("layernorm", layernorm, layernorm::program()),
    ];
    for (name, kernel, m) in &kernels {
        for (r, c) in SIZES {
            let c = if *name == "layernorm" { c.min(32) } else { c };
            let x = values(r * c, (r * 97 + c) as u64);
            let mut out = Tensor::<f32>::full([r, c], -1.0);
            kernel(&Tensor::from_vec(x.clone(), [r, c]).unwrap(), &mut out).unwrap();
            let want = interp(m, &[(&x, &[r, c]), (&vec![-1.0; r * c], &[r, c])]);
            assert_eq!(bits(out.as_slice()), bits(&want[1]), "{name} {r} x {c}");
        }
    }
}

#[test]
fn column_broadcasts_match_the_interpreter() {
    let m = centered_scaled::program();
    for (r, c) in SIZES {
        let c = c.min(16);
        let (x, v) = (values(r * c, r as u64), values(c, 7));
        let (mut centered, mut scaled) = (Tensor::full([r, c], -1.0), Tensor::full([r, c], -1.0));
        let (xt, vt) = (
            Tensor::from_vec(x.clone(), [r, c]).unwrap(),
            Tensor::from_vec(v.clone(), [1, c]).unwrap(),
        );
        centered_scaled(&xt, &vt, &mut centered, &mut scaled).unwrap();
        let init = vec![-1.0; r * c];
        let want = interp(
            &m,
            &[
                (&x, &[r, c]),
                (&v, &[1, c]),
                (&init, &[r, c]),
                (&init, &[r, c]),
            ],
        );
        assert_eq!(bits(centered.as_slice()), bits(&want[2]), "{r} x {c}");
        assert_eq!(bits(scaled.as_slice()), bits(&want[3]), "{r} x {c}");
    }
}

#[test]
fn a_store_outside_its_tensor_is_the_stores_error() {
    let (r, c) = (10, 16);
    let x = Tensor::from_vec(values(r * c, 3), [r, c]).unwrap();
    let v = Tensor::from_vec(values(c, 4), [1, c]).unwrap();
    // Row tiles at 0, 4 and 8 store at 3, 7 and 11: the last is outside the 10 rows.
    let mut out = Tensor::<f32>::full([r, c], -1.0);
    let err = shifted(&x, &v, 3, &mut out).unwrap_err();
    assert!(matches!(err, pto::Error::OutOfBounds { .. }), "{err:?}");
    // The first two stores happened, clipped at the tensor's end.
    let xs = x.as_slice();
    for i in 0..r {
        for j in 0..c {
            let want = if i >= 3 {
                xs[(i - 3) * c + j] / v.as_slice()[j]
            } else {
                -1.0
            };
            assert_eq!(
                bits(&[out.as_slice()[i * c + j]]),
                bits(&[want]),
                "({i}, {j})"
            );
        }
    }
    // In bounds, the same kernel matches the interpreter.
    let mut out = Tensor::<f32>::full([r, c], -1.0);
    shifted(&x, &v, 0, &mut out).unwrap();
    for (k, (&g, &a)) in out.as_slice().iter().zip(xs).enumerate() {
        assert_eq!(bits(&[g]), bits(&[a / v.as_slice()[k % c]]), "{k}");
    }
}

mod support;

/// Issue 14's audit: this file's kernels as `NAME::CPP` for A2A3 and A5 in the C++ model of
/// pto-isa, at tile-multiple and ragged sizes, against their host functions (`shifted`
/// stores 1 row down: its last window falls partly outside `out`).
#[test]
fn every_kernel_here_runs_in_the_cpp_model() {
    use support::model::Model;
    let narrow = || vec![vec![("R", 32), ("C", 16)], vec![("R", 37), ("C", 10)]];
    let mut problems = Vec::new();
    problems.extend(
        Model::new(
            "softmax",
            &softmax::program(),
            vec![vec![("R", 32), ("C", 64)], vec![("R", 37), ("C", 50)]],
        )
        .against_host(|t| softmax(&t.tensor(0), &mut t.out::<f32>(1))),
    );
    problems.extend(
        Model::new(
            "layernorm",
            &layernorm::program(),
            vec![vec![("R", 32), ("C", 32)], vec![("R", 37), ("C", 20)]],
        )
        .against_host(|t| layernorm(&t.tensor(0), &mut t.out::<f32>(1))),
    );
    problems.extend(
        Model::new("centered_scaled", &centered_scaled::program(), narrow()).against_host(|t| {
            centered_scaled(
                &t.tensor(0),
                &t.tensor(1),
                &mut t.out::<f32>(2),
                &mut t.out::<f32>(3),
            )
        }),
    );
    problems.extend(
        Model::new(
            "shifted",
            &shifted::program(),
            vec![vec![("R", 32), ("C", 16)], vec![("R", 34), ("C", 10)]],
        )
        .arg(2, HostValue::i64(1))
        .against_host(|t| {
            shifted(
                &t.tensor(0),
                &t.tensor(1),
                t.scalar(2) as i64,
                &mut t.out::<f32>(3),
            )
        }),
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
