//! One-tile matmuls: every 32 x 32 output tile is one `TMATMUL` of a 32 x 64 by 64 x 32
//! pair, with f32 inputs and with f16 inputs accumulating in f32.
//!
//! `cargo run --release --example matmul [--lowered] [--cpp] [M] [N]`

// `#[path]` so tests/examples.rs can include this file and reuse its kernel.
#[path = "common/mod.rs"]
mod common;

use pto::prelude::*;

/// c = a @ b for f32 `a: M x 64`, `b: 64 x N`.
#[pto::kernel]
pub fn matmul_f32(a: &Tensor<f32, M, 64>, b: &Tensor<f32, 64, N>, c: &mut Tensor<f32, M, N>) {
    for i in (0..M).step_by(32) {
        for j in (0..N).step_by(32) {
            let at = a.load::<32, 64>([i, 0]);
            let bt = b.load::<64, 32>([0, j]);
            c.store([i, j], matmul(at, bt));
        }
    }
}

/// c = a @ b for f16 `a`, `b`, accumulated and stored in f32.
#[pto::kernel]
pub fn matmul_f16(a: &Tensor<f16, M, 64>, b: &Tensor<f16, 64, N>, c: &mut Tensor<f32, M, N>) {
    for i in (0..M).step_by(32) {
        for j in (0..N).step_by(32) {
            let at = a.load::<32, 64>([i, 0]);
            let bt = b.load::<64, 32>([0, j]);
            c.store([i, j], matmul(at, bt));
        }
    }
}

/// The plain-Rust reference: in f32, one fused multiply-add per product in k order (the
/// matmul's semantics).
fn reference(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0f32;
            for p in 0..k {
                s = a[i * k + p].mul_add(b[p * n + j], s);
            }
            c[i * n + j] = s;
        }
    }
    c
}

/// Runs both kernels on `m x 64` by `64 x n` random input and compares with plain Rust.
pub fn check(m: usize, n: usize) -> Result<Vec<common::Outcome>, pto::Error> {
    let (av, bv) = (common::random(m * 64, 13), common::random(64 * n, 14));
    let a = pto::Tensor::from_vec(av.clone(), [m, 64])?;
    let b = pto::Tensor::from_vec(bv.clone(), [64, n])?;
    let mut c = pto::Tensor::<f32>::zeros([m, n]);
    let (r, took) = common::timed(|| matmul_f32(&a, &b, &mut c));
    r?;
    let f32_outcome = common::Outcome {
        what: format!("matmul f32 {m} x 64 x {n}"),
        err: common::max_rel_err(c.as_slice(), &reference(&av, &bv, m, 64, n)),
        tol: 1e-5,
        took,
    };
    // f16 inputs: the reference multiplies the same f16-rounded values in f32.
    let ah: Vec<pto::f16> = av.iter().map(|&v| pto::f16::from_f32(v)).collect();
    let bh: Vec<pto::f16> = bv.iter().map(|&v| pto::f16::from_f32(v)).collect();
    let widen = |v: &[pto::f16]| v.iter().map(|x| x.to_f32()).collect::<Vec<_>>();
    let want = reference(&widen(&ah), &widen(&bh), m, 64, n);
    let a = pto::Tensor::from_vec(ah, [m, 64])?;
    let b = pto::Tensor::from_vec(bh, [64, n])?;
    let mut c = pto::Tensor::<f32>::zeros([m, n]);
    let (r, took) = common::timed(|| matmul_f16(&a, &b, &mut c));
    r?;
    let f16_outcome = common::Outcome {
        what: format!("matmul f16 -> f32 {m} x 64 x {n}"),
        err: common::max_rel_err(c.as_slice(), &want),
        tol: 1e-5,
        took,
    };
    Ok(vec![f32_outcome, f16_outcome])
}

fn main() -> Result<(), pto::Error> {
    let args = common::args(&[200, 100]);
    common::show(
        "matmul_f32",
        matmul_f32::IR,
        matmul_f32::LOWERED,
        matmul_f32::CPP,
        &args,
    );
    common::report(&check(args.sizes[0], args.sizes[1])?);
    Ok(())
}
