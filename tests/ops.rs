//! Issue 16 part A from a kernel: each op run by the host function and checked against plain
//! Rust, and by the reference interpreter on the kernel's IR (which must agree exactly), at
//! tile-multiple and ragged sizes. The C++ of the same kernels runs in `tests/cpp_model.rs`.
#![allow(clippy::unwrap_used)]

#[path = "ops/kernels.rs"]
mod kernels;

use pto::Tensor;
use pto::ir::DataType;
use pto_lower::interp::{HostTensor, HostValue, run};

/// Deterministic values in `[lo, hi)`.
fn values(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + (hi - lo) * ((s >> 40) as f32 / (1u64 << 24) as f32)
        })
        .collect()
}

/// A tensor argument for the interpreter.
fn arg(d: DataType, data: &[f64], shape: [usize; 2]) -> HostValue {
    HostValue::Tensor(HostTensor::new(d, shape.to_vec(), data.to_vec()).unwrap())
}

/// Runs `m` in the interpreter on `args`; the tensors' data afterwards.
fn interp(m: &pto::ir::ProgramModule, mut args: Vec<HostValue>) -> Vec<Vec<f64>> {
    run(m, m.entry.unwrap(), &mut args).unwrap();
    args.iter()
        .map(|a| a.as_tensor().unwrap().data.clone())
        .collect()
}

fn f64s(t: &[f32]) -> Vec<f64> {
    t.iter().map(|&x| f64::from(x)).collect()
}

/// Bitwise equality, every NaN equal to every NaN.
fn same(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "{what}: element {i} is {g}, expected {w}"
        );
    }
}

const SIZES: [(usize, usize); 4] = [(32, 128), (37, 100), (5, 64), (16, 33)];

#[test]
fn pow_and_fmod_match_rust() {
    for (r, c) in SIZES {
        let x = values(r * c, (r * 7 + c) as u64, -4.0, 4.0);
        let y = values(r * c, (r * 11 + c) as u64, -3.0, 3.0);
        let (xt, yt) = (
            Tensor::from_vec(x.clone(), [r, c]).unwrap(),
            Tensor::from_vec(y.clone(), [r, c]).unwrap(),
        );
        let mut outs: Vec<Tensor<f32>> = (0..3).map(|_| Tensor::zeros([r, c])).collect();
        let [p, q, m] = &mut outs[..] else {
            unreachable!()
        };
        kernels::pow_fmod(&xt, &yt, p, q, m).unwrap();
        let what = format!("{r} x {c}");
        let want_p: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a.abs().powf(*b)).collect();
        let want_q: Vec<f32> = x.iter().map(|a| a.powf(3.0)).collect();
        let want_m: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a % b).collect();
        same(p.as_slice(), &want_p, &format!("pow {what}"));
        same(q.as_slice(), &want_q, &format!("pows {what}"));
        same(m.as_slice(), &want_m, &format!("fmod {what}"));
        let f = DataType::Fp32;
        let zero = vec![0.0; r * c];
        let got = interp(
            &kernels::pow_fmod::program(),
            vec![
                arg(f, &f64s(&x), [r, c]),
                arg(f, &f64s(&y), [r, c]),
                arg(f, &zero, [r, c]),
                arg(f, &zero, [r, c]),
                arg(f, &zero, [r, c]),
            ],
        );
        for (k, t) in [&*p, &*q, &*m].into_iter().enumerate() {
            let by_interp: Vec<f32> = got[k + 2].iter().map(|&v| v as f32).collect();
            same(
                &by_interp,
                t.as_slice(),
                &format!("interpreter output {k} at {what}"),
            );
        }
    }
}

#[test]
fn compare_and_select_match_rust() {
    for (r, c) in SIZES {
        let mut x = values(r * c, (r * 5 + c) as u64, -3.0, 3.0);
        let y = values(r * c, (r * 3 + c) as u64, -3.0, 3.0);
        // Some equal pairs and a NaN, which compares false (and unequal).
        for i in (0..r * c).step_by(7) {
            x[i] = y[i];
        }
        x[1] = f32::NAN;
        let (xt, yt) = (
            Tensor::from_vec(x.clone(), [r, c]).unwrap(),
            Tensor::from_vec(y.clone(), [r, c]).unwrap(),
        );
        let mut outs: Vec<Tensor<f32>> = (0..3).map(|_| Tensor::zeros([r, c])).collect();
        let [l, k, p] = &mut outs[..] else {
            unreachable!()
        };
        kernels::masks(&xt, &yt, l, k, p).unwrap();
        let what = format!("{r} x {c}");
        let want_l: Vec<f32> = x
            .iter()
            .map(|&a| if a > 0.0 { a } else { a * 0.1 })
            .collect();
        let want_k: Vec<f32> = x
            .iter()
            .map(|&a| {
                let sign = if a >= 0.0 { 1.0 } else { -1.0 };
                if !(a < -1.0 || a >= 1.0) { a } else { sign }
            })
            .collect();
        let want_p: Vec<f32> = x
            .iter()
            .zip(&y)
            .map(|(&a, &b)| if a == b || (a > b && a <= 2.0) { a } else { b })
            .collect();
        same(l.as_slice(), &want_l, &format!("leaky relu {what}"));
        same(k.as_slice(), &want_k, &format!("clamp {what}"));
        same(p.as_slice(), &want_p, &format!("picked {what}"));
        let f = DataType::Fp32;
        let zero = vec![0.0; r * c];
        let got = interp(
            &kernels::masks::program(),
            vec![
                arg(f, &f64s(&x), [r, c]),
                arg(f, &f64s(&y), [r, c]),
                arg(f, &zero, [r, c]),
                arg(f, &zero, [r, c]),
                arg(f, &zero, [r, c]),
            ],
        );
        for (k, t) in [&*l, &*k, &*p].into_iter().enumerate() {
            let by_interp: Vec<f32> = got[k + 2].iter().map(|&v| v as f32).collect();
            same(
                &by_interp,
                t.as_slice(),
                &format!("interpreter output {k} at {what}"),
            );
        }
    }
}

#[test]
#[ignore = "prints the kernels' IR and C++ for the guide"]
fn print_ops_text() {
    println!("{}", kernels::masks::IR);
    println!("{}", kernels::masks::CPP);
}
