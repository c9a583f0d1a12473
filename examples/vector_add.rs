//! `c = a + b` over vectors walked in 1024-element tiles, in f32 and i32; the last tile of a
//! length that is not a multiple of 1024 has a valid region of what is left.
//!
//! `cargo run --release --example vector_add [--lowered] [--cpp] [N]`

// `#[path]` so tests/examples.rs can include this file and reuse its kernel.
#[path = "common/mod.rs"]
mod common;

use pto::prelude::*;

/// c = a + b (f32).
#[pto::kernel]
pub fn vector_add(a: &Tensor<f32, N>, b: &Tensor<f32, N>, c: &mut Tensor<f32, N>) {
    for i in (0..N).step_by(1024) {
        let x = a.load::<1024>([i]);
        let y = b.load::<1024>([i]);
        c.store([i], x + y);
    }
}

/// c = a + b (i32).
#[pto::kernel]
pub fn vector_add_i32(a: &Tensor<i32, N>, b: &Tensor<i32, N>, c: &mut Tensor<i32, N>) {
    for i in (0..N).step_by(1024) {
        let x = a.load::<1024>([i]);
        let y = b.load::<1024>([i]);
        c.store([i], x + y);
    }
}

/// Runs both kernels on `n` random elements and compares with plain Rust.
pub fn check(n: usize) -> Result<Vec<common::Outcome>, pto::Error> {
    let (av, bv) = (common::random(n, 1), common::random(n, 2));
    let a = pto::Tensor::from_vec(av.clone(), [n])?;
    let b = pto::Tensor::from_vec(bv.clone(), [n])?;
    let mut c = pto::Tensor::<f32>::zeros([n]);
    let (r, took) = common::timed(|| vector_add(&a, &b, &mut c));
    r?;
    let want: Vec<f32> = av.iter().zip(&bv).map(|(x, y)| x + y).collect();
    let f32_outcome = common::Outcome {
        what: format!("vector_add f32, n = {n}"),
        err: common::max_rel_err(c.as_slice(), &want),
        tol: 1e-5,
        took,
    };

    let (ai, bi) = (common::random_i32(n, 3), common::random_i32(n, 4));
    let a = pto::Tensor::from_vec(ai.clone(), [n])?;
    let b = pto::Tensor::from_vec(bi.clone(), [n])?;
    let mut c = pto::Tensor::<i32>::zeros([n]);
    let (r, took) = common::timed(|| vector_add_i32(&a, &b, &mut c));
    r?;
    let wrong = c
        .as_slice()
        .iter()
        .zip(ai.iter().zip(&bi))
        .filter(|(g, (x, y))| **g != *x + *y)
        .count();
    let i32_outcome = common::Outcome {
        what: format!("vector_add i32, n = {n} (exact: error is the count of wrong elements)"),
        err: wrong as f32,
        tol: 0.0,
        took,
    };
    Ok(vec![f32_outcome, i32_outcome])
}

fn main() -> Result<(), pto::Error> {
    let args = common::args(&[1_000_003]);
    common::show(
        "vector_add",
        vector_add::IR,
        vector_add::LOWERED,
        vector_add::CPP,
        &args,
    );
    common::report(&check(args.sizes[0])?);
    Ok(())
}
