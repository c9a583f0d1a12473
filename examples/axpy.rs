//! `out = alpha * x + y` with `alpha` a scalar parameter.
//!
//! `cargo run --release --example axpy [--lowered] [--cpp] [N]`

// `#[path]` so tests/examples.rs can include this file and reuse its kernel.
#[path = "common/mod.rs"]
mod common;

use pto::prelude::*;

/// out = alpha * x + y.
#[pto::kernel]
pub fn axpy(alpha: f32, x: &Tensor<f32, N>, y: &Tensor<f32, N>, #[out] out: &mut Tensor<f32, N>) {
    for i in (0..N).step_by(2048) {
        let xt = x.load::<2048>([i]);
        let yt = y.load::<2048>([i]);
        out.store([i], alpha * xt + yt);
    }
}

/// Runs the kernel on `n` random elements and compares with plain Rust.
pub fn check(n: usize) -> Result<Vec<common::Outcome>, pto::Error> {
    let (xv, yv) = (common::random(n, 5), common::random(n, 6));
    let x = pto::Tensor::from_vec(xv.clone(), [n])?;
    let y = pto::Tensor::from_vec(yv.clone(), [n])?;
    let mut out = pto::Tensor::<f32>::zeros([n]);
    let alpha = 0.75f32;
    let (r, took) = common::timed(|| axpy(alpha, &x, &y, &mut out));
    r?;
    let want: Vec<f32> = xv.iter().zip(&yv).map(|(a, b)| alpha * a + b).collect();
    Ok(vec![common::Outcome {
        what: format!("axpy, n = {n}"),
        err: common::max_rel_err(out.as_slice(), &want),
        tol: 1e-5,
        took,
    }])
}

fn main() -> Result<(), pto::Error> {
    let args = common::args(&[1_000_000]);
    common::show("axpy", axpy::IR, axpy::LOWERED, axpy::CPP, &args);
    common::report(&check(args.sizes[0])?);
    Ok(())
}
