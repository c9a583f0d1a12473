//! Row and column sums and maxima. Row results are computed tile by tile; column results are
//! accumulated across row tiles in loop-carried `1 x 64` tiles.
//!
//! `cargo run --release --example reductions [--lowered] [--cpp] [ROWS] [COLS<=64]`

// `#[path]` so tests/examples.rs can include this file and reuse its kernel.
#[path = "common/mod.rs"]
mod common;

use pto::prelude::*;

/// Row sums and maxima of `x` (`R x C`, `C <= 64`), and its column sums and maxima.
#[pto::kernel]
pub fn reductions(
    x: &Tensor<f32, R, C>,
    #[out] row_sum: &mut Tensor<f32, R, 1>,
    #[out] row_max: &mut Tensor<f32, R, 1>,
    #[out] col_sum: &mut Tensor<f32, 1, C>,
    #[out] col_max: &mut Tensor<f32, 1, C>,
) {
    let mut sums = Tile::<f32, 1, 64>::zeros();
    let mut maxs = Tile::<f32, 1, 64>::full(-3.0e38);
    for r in (0..R).step_by(32) {
        let t = x.load::<32, 64>([r, 0]);
        row_sum.store([r, 0], t.row_sum());
        row_max.store([r, 0], t.row_max());
        sums = sums + t.col_sum();
        maxs = maxs.max(t.col_max());
    }
    col_sum.store([0, 0], sums);
    col_max.store([0, 0], maxs);
}

/// Runs the kernel on `rows x cols` random input (`cols <= 64`) and compares with plain Rust.
pub fn check(rows: usize, cols: usize) -> Result<Vec<common::Outcome>, pto::Error> {
    let data = common::random(rows * cols, 9);
    let x = pto::Tensor::from_vec(data.clone(), [rows, cols])?;
    let mut rs = pto::Tensor::<f32>::zeros([rows, 1]);
    let mut rm = pto::Tensor::<f32>::zeros([rows, 1]);
    let mut cs = pto::Tensor::<f32>::zeros([1, cols]);
    let mut cm = pto::Tensor::<f32>::zeros([1, cols]);
    let (r, took) = common::timed(|| reductions(&x, &mut rs, &mut rm, &mut cs, &mut cm));
    r?;
    let row = |r: usize| &data[r * cols..(r + 1) * cols];
    let data = &data;
    let col = |c: usize| (0..rows).map(move |r| data[r * cols + c]);
    let want_rs: Vec<f32> = (0..rows).map(|r| row(r).iter().sum()).collect();
    let want_rm: Vec<f32> = (0..rows)
        .map(|r| row(r).iter().copied().fold(f32::MIN, f32::max))
        .collect();
    let want_cs: Vec<f32> = (0..cols).map(|c| col(c).sum()).collect();
    let want_cm: Vec<f32> = (0..cols).map(|c| col(c).fold(f32::MIN, f32::max)).collect();
    let outcome = |what: &str, got: &pto::Tensor<f32>, want: &[f32], tol: f32| common::Outcome {
        what: format!("{what} of {rows} x {cols}"),
        err: common::max_rel_err(got.as_slice(), want),
        tol,
        took,
    };
    // Column sums add `rows` values in tile order, the reference in row order.
    Ok(vec![
        outcome("row sums", &rs, &want_rs, 1e-5),
        outcome("row maxima", &rm, &want_rm, 0.0),
        outcome("column sums", &cs, &want_cs, 1e-4),
        outcome("column maxima", &cm, &want_cm, 0.0),
    ])
}

fn main() -> Result<(), pto::Error> {
    let args = common::args(&[1000, 50]);
    common::show(
        "reductions",
        reductions::IR,
        reductions::LOWERED,
        reductions::CPP,
        &args,
    );
    common::report(&check(args.sizes[0], args.sizes[1].min(64))?);
    Ok(())
}
