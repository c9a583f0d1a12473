//! Control flow as a kernel author writes it, run three ways and compared: the generated host
//! function, the reference interpreter on `NAME::program()`, and the same logic in plain Rust.

use pto::prelude::*;
use pto_lower::interp::{HostValue, run};

/// Loops with `continue` and `break`, a `while`, `if` / `else if` / `else` as a value,
/// shadowing, compound assignment, and a scalar tail expression.
#[pto::kernel(control_flow)]
pub fn scalar_flow(n: i64, scale: f32, flag: bool) -> f32 {
    let mut acc = 0.0f32;
    let mut count = 0;
    for i in 0..n {
        let x = i as f32;
        let x = x * scale;
        if i == 3 {
            continue;
        }
        acc += x;
        count += 1;
        if count > 20 {
            break;
        }
    }
    let mut k = 0;
    while k < n {
        k += 2;
    }
    let sign: f32 = if acc > 10.0 {
        1.0
    } else if acc < 0.0 {
        -1.0
    } else {
        0.0
    };
    let bonus = if flag {
        max(scale, 2.0)
    } else {
        min(scale, -scale)
    };
    acc / 2.0 + sign + bonus + (count % 3) as f32 + k as f32
}

/// The same in plain Rust.
fn scalar_flow_ref(n: i64, scale: f32, flag: bool) -> f32 {
    let mut acc = 0.0f32;
    let mut count = 0i64;
    for i in 0..n {
        let x = i as f32 * scale;
        if i == 3 {
            continue;
        }
        acc += x;
        count += 1;
        if count > 20 {
            break;
        }
    }
    let mut k = 0i64;
    while k < n {
        k += 2;
    }
    let sign = if acc > 10.0 {
        1.0
    } else if acc < 0.0 {
        -1.0
    } else {
        0.0
    };
    let bonus = if flag {
        scale.max(2.0)
    } else {
        scale.min(-scale)
    };
    acc / 2.0 + sign + bonus + (count % 3) as f32 + k as f32
}

/// A loop-carried tile updated in only one branch, and a loop that stops early.
#[pto::kernel]
pub fn tile_flow(x: &Tensor<f32, R, 32>, limit: f32, #[out] out: &mut Tensor<f32, 1, 32>) {
    let mut acc = Tile::<f32, 1, 32>::zeros();
    let mut rows = 0;
    for r in 0..R {
        let row = x.load::<1, 32>([r, 0]);
        if r % 2 == 0 {
            acc = acc + row;
        } else {
            acc = acc.max(row * 2.0);
        }
        rows += 1;
        if rows >= 7 {
            break;
        }
    }
    let scaled = acc * limit;
    out.store([0, 0], scaled);
}

fn tile_flow_ref(x: &[f32], rows: usize, limit: f32) -> Vec<f32> {
    let mut acc = [0.0f32; 32];
    for r in 0..rows.min(7) {
        for c in 0..32 {
            let v = x[r * 32 + c];
            acc[c] = if r % 2 == 0 {
                acc[c] + v
            } else {
                acc[c].max(v * 2.0)
            };
        }
    }
    acc.iter().map(|a| a * limit).collect()
}

#[test]
fn scalar_control_flow_agrees_three_ways() {
    let m = scalar_flow::program();
    let f = m.entry.expect("entry");
    for (n, scale, flag) in [
        (0, 1.0, true),
        (4, 0.5, false),
        (10, -1.5, true),
        (40, 2.0, false),
    ] {
        let want = scalar_flow_ref(n, scale, flag);
        let host = scalar_flow(n, scale, flag).expect("runs");
        let mut args = vec![
            HostValue::i64(n),
            HostValue::f32(scale),
            HostValue::bool(flag),
        ];
        let interp = run(&m, f, &mut args).expect("interprets");
        let interp = interp
            .first()
            .and_then(HostValue::as_f64)
            .expect("one f32 result");
        assert_eq!(host, want, "host, n={n} scale={scale} flag={flag}");
        assert_eq!(
            interp,
            f64::from(want),
            "interpreter, n={n} scale={scale} flag={flag}"
        );
    }
}

#[test]
fn tile_control_flow_agrees_three_ways() {
    let m = tile_flow::program();
    let f = m.entry.expect("entry");
    for rows in [1, 5, 12] {
        let data: Vec<f32> = (0..rows * 32)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
            .collect();
        let x = pto::Tensor::from_vec(data.clone(), [rows, 32]).expect("shape");
        let mut out = pto::Tensor::<f32>::zeros([1, 32]);
        tile_flow(&x, 0.5, &mut out).expect("runs");
        let want = tile_flow_ref(&data, rows, 0.5);
        assert_eq!(out.as_slice(), &want[..], "host, rows={rows}");

        let hx = HostValue::tensor(
            pto::ir::DataType::Fp32,
            vec![rows, 32],
            data.iter().map(|&v| f64::from(v)).collect(),
        )
        .expect("shape");
        let hout =
            HostValue::tensor(pto::ir::DataType::Fp32, vec![1, 32], vec![0.0; 32]).expect("shape");
        let mut args = vec![hx, HostValue::f32(0.5), hout];
        run(&m, f, &mut args).expect("interprets");
        let got: Vec<f32> = args[2]
            .as_tensor()
            .expect("tensor")
            .data
            .iter()
            .map(|&v| v as f32)
            .collect();
        assert_eq!(got, want, "interpreter, rows={rows}");
    }
}

/// Integer constants at the edges of their types: the minimum of a signed type has no
/// positive literal, and wrapping arithmetic on it stays in range.
#[pto::kernel(control_flow)]
pub fn int_extremes(a: i8, b: i64) -> i64 {
    let lo: i8 = -128;
    let hi: i8 = 127;
    let x = a + lo;
    let y = x - hi;
    let big: i64 = -9223372036854775807;
    (y as i64) + b + big
}

#[test]
fn integer_extremes_agree_with_rust_wrapping() {
    let m = int_extremes::program();
    let f = m.entry.expect("entry");
    for (a, b) in [(0i8, 0i64), (1, -1), (-1, 5), (127, 2)] {
        let y = a.wrapping_add(-128).wrapping_sub(127);
        let want = i64::from(y)
            .wrapping_add(b)
            .wrapping_add(-9223372036854775807);
        assert_eq!(int_extremes(a, b).expect("runs"), want, "host, a={a} b={b}");
        let mut args = vec![
            HostValue::scalar(pto::ir::DataType::Int8, f64::from(a)).expect("an i8"),
            HostValue::i64(b),
        ];
        let got = run(&m, f, &mut args).expect("interprets");
        assert_eq!(
            got.first().and_then(HostValue::as_i64),
            Some(want),
            "interpreter, a={a} b={b}"
        );
    }
}

mod support;

/// Issue 14's audit: this file's kernels as `NAME::CPP` for A2A3 and A5 in the C++ model of
/// pto-isa against their host functions: `tile_flow` with fewer rows than its `break` and
/// with more, the scalar kernels on the model's arguments (5 for integers, 1.5 for floats,
/// the flag false then true).
#[test]
fn every_kernel_here_runs_in_the_cpp_model() {
    use support::model::Model;
    let mut problems = Vec::new();
    problems.extend(
        Model::new(
            "tile_flow",
            &tile_flow::program(),
            vec![vec![("R", 16)], vec![("R", 5)]],
        )
        .against_host(|t| tile_flow(&t.tensor(0), t.scalar(1) as f32, &mut t.out::<f32>(2))),
    );
    problems.extend(
        Model::new("scalar_flow", &scalar_flow::program(), vec![vec![], vec![]]).against(|a| {
            let (n, s) = (a[0].as_i64().unwrap_or(0), a[1].as_f64().unwrap_or(0.0));
            scalar_flow(n, s as f32, a[2].as_bool().unwrap_or(false))
                .map(|x| vec![f64::from(x)])
                .map_err(|e| e.to_string())
        }),
    );
    problems.extend(
        Model::new("int_extremes", &int_extremes::program(), vec![vec![]]).against(|a| {
            let (x, y) = (a[0].as_i64().unwrap_or(0), a[1].as_i64().unwrap_or(0));
            int_extremes(x as i8, y)
                .map(|v| vec![v as f64])
                .map_err(|e| e.to_string())
        }),
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
