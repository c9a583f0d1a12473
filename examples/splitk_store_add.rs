//! Split-K matmul whose K chunks accumulate into the output through `store_add`: each chunk
//! is its own `matmul`, and its `f32` accumulator is added into the output window (pto-isa's
//! `TSTORE` with `AtomicType::AtomicAdd`), so no tile is carried across the K loop. A second
//! kernel stores the same product into an `f16` tensor: the `f32` accumulator converts on the
//! way out (`TSTORE` from an Acc tile), rounding to nearest even. M, N and K need not be
//! multiples of the tiles.
//!
//! `cargo run --release --example splitk_store_add [--lowered] [--cpp] [M] [N] [K]`

// `#[path]` so tests/examples.rs can include this file and reuse its kernel.
#[path = "common/mod.rs"]
mod common;

use pto::prelude::*;

/// c += a @ b, one `store_add` per K chunk (c starts as the caller's tensor).
#[pto::kernel]
pub fn splitk_store_add(a: &Tensor<f32, M, K>, b: &Tensor<f32, K, N>, c: &mut Tensor<f32, M, N>) {
    for i in (0..M).step_by(32) {
        for j in (0..N).step_by(32) {
            for k in (0..K).step_by(64) {
                let part = matmul(a.load::<32, 64>([i, k]), b.load::<64, 32>([k, j]));
                c.store_add([i, j], part);
            }
        }
    }
}

/// c = a @ b, accumulated in f32 and stored as f16.
#[pto::kernel]
pub fn matmul_to_f16(
    a: &Tensor<f32, M, K>,
    b: &Tensor<f32, K, N>,
    #[out] c: &mut Tensor<f16, M, N>,
) {
    for i in (0..M).step_by(32) {
        for j in (0..N).step_by(32) {
            let mut acc = matmul(a.load::<32, 64>([i, 0]), b.load::<64, 32>([0, j]));
            for k in (64..K).step_by(64) {
                acc = matmul_acc(acc, a.load::<32, 64>([i, k]), b.load::<64, 32>([k, j]));
            }
            c.store([i, j], acc);
        }
    }
}

/// The plain-Rust product of an `m x k` and a `k x n` matrix, in f32 (a fused multiply-add
/// per product in k order, as a matmul computes).
pub fn reference(av: &[f32], bv: &[f32], m: usize, n: usize, k: usize) -> Vec<f32> {
    let mut want = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0f32;
            for p in 0..k {
                s = av[i * k + p].mul_add(bv[p * n + j], s);
            }
            want[i * n + j] = s;
        }
    }
    want
}

/// Runs both kernels on `m x k` by `k x n` random input and compares with plain Rust: the
/// `store_add` result starts from a non-zero output (it adds into it), the `f16` result is
/// compared with the reference rounded to f16.
pub fn check(m: usize, n: usize, k: usize) -> Result<Vec<common::Outcome>, pto::Error> {
    let (av, bv) = (common::random(m * k, 21), common::random(k * n, 22));
    let a = pto::Tensor::from_vec(av.clone(), [m, k])?;
    let b = pto::Tensor::from_vec(bv.clone(), [k, n])?;
    let product = reference(&av, &bv, m, n, k);
    let start = common::random(m * n, 23);
    let mut c = pto::Tensor::from_vec(start.clone(), [m, n])?;
    let (r, took) = common::timed(|| splitk_store_add(&a, &b, &mut c));
    r?;
    let want: Vec<f32> = product.iter().zip(&start).map(|(p, s)| p + s).collect();
    let mut outcomes = vec![common::Outcome {
        what: format!("splitk_store_add {m} x {k} x {n}"),
        err: common::max_rel_err(c.as_slice(), &want),
        tol: 1e-5,
        took,
    }];
    let mut h = pto::Tensor::<f16>::zeros([m, n]);
    let (r, took) = common::timed(|| matmul_to_f16(&a, &b, &mut h));
    r?;
    let got: Vec<f32> = h.as_slice().iter().map(|x| x.to_f32()).collect();
    let want16: Vec<f32> = product.iter().map(|&p| f16::from_f32(p).to_f32()).collect();
    outcomes.push(common::Outcome {
        what: format!("matmul_to_f16 {m} x {k} x {n}"),
        // One f16 rounding step of the f32 sum (within 1e-5 of the exact product).
        err: common::max_rel_err(&got, &want16),
        tol: 1e-3,
        took,
    });
    Ok(outcomes)
}

fn main() -> Result<(), pto::Error> {
    let args = common::args(&[70, 50, 90]);
    common::show(
        "splitk_store_add",
        splitk_store_add::IR,
        splitk_store_add::LOWERED,
        splitk_store_add::CPP,
        &args,
    );
    common::report(&check(args.sizes[0], args.sizes[1], args.sizes[2])?);
    Ok(())
}
