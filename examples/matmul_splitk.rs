//! `C = A @ B` with K split into 64-wide chunks in a `for`: the accumulator is loop-carried,
//! the first chunk uses `matmul_bias` when `has_bias` is set (else `matmul`), later chunks
//! `matmul_acc`. M, N and K need not be multiples of the tiles.
//!
//! `cargo run --release --example matmul_splitk [--lowered] [--cpp] [M] [N] [K]`

// `#[path]` so tests/examples.rs can include this file and reuse its kernel.
#[path = "common/mod.rs"]
mod common;

use pto::prelude::*;

/// c = a @ b (+ bias broadcast down the rows when `has_bias`).
#[pto::kernel]
pub fn matmul_splitk(
    a: &Tensor<f32, M, K>,
    b: &Tensor<f32, K, N>,
    bias: &Tensor<f32, 1, N>,
    has_bias: bool,
    #[out] c: &mut Tensor<f32, M, N>,
) {
    for i in (0..M).step_by(32) {
        for j in (0..N).step_by(32) {
            let mut acc = Tile::<f32, 32, 32>::zeros();
            for k in (0..K).step_by(64) {
                let at = a.load::<32, 64>([i, k]);
                let bt = b.load::<64, 32>([k, j]);
                if k == 0 {
                    if has_bias {
                        acc = matmul_bias(at, bt, bias.load::<1, 32>([0, j]));
                    } else {
                        acc = matmul(at, bt);
                    }
                } else {
                    acc = matmul_acc(acc, at, bt);
                }
            }
            c.store([i, j], acc);
        }
    }
}

/// Runs the kernel with and without bias on `m x k` by `k x n` random input and compares
/// with plain Rust.
pub fn check(m: usize, n: usize, k: usize) -> Result<Vec<common::Outcome>, pto::Error> {
    let (av, bv, biasv) = (
        common::random(m * k, 15),
        common::random(k * n, 16),
        common::random(n, 17),
    );
    let a = pto::Tensor::from_vec(av.clone(), [m, k])?;
    let b = pto::Tensor::from_vec(bv.clone(), [k, n])?;
    let bias = pto::Tensor::from_vec(biasv.clone(), [1, n])?;
    let mut outcomes = Vec::new();
    for has_bias in [false, true] {
        let mut c = pto::Tensor::<f32>::zeros([m, n]);
        let (r, took) = common::timed(|| matmul_splitk(&a, &b, &bias, has_bias, &mut c));
        r?;
        let mut want = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut s = if has_bias { biasv[j] } else { 0.0 };
                for p in 0..k {
                    s += av[i * k + p] * bv[p * n + j];
                }
                want[i * n + j] = s;
            }
        }
        outcomes.push(common::Outcome {
            what: format!("matmul_splitk {m} x {k} x {n}, bias {has_bias}"),
            err: common::max_rel_err(c.as_slice(), &want),
            tol: 1e-5,
            took,
        });
    }
    Ok(outcomes)
}

fn main() -> Result<(), pto::Error> {
    let args = common::args(&[100, 70, 300]);
    common::show(
        "matmul_splitk",
        matmul_splitk::IR,
        matmul_splitk::LOWERED,
        matmul_splitk::CPP,
        &args,
    );
    common::report(&check(args.sizes[0], args.sizes[1], args.sizes[2])?);
    Ok(())
}
