//! Row softmax: row max, subtract, exp, row sum, divide; 16 rows at a time. Rows of up to
//! 256 columns: a shorter row is the tile's valid region, and reductions see only it.
//!
//! `cargo run --release --example row_softmax [--lowered] [--cpp] [ROWS] [COLS<=256]`

// `#[path]` so tests/examples.rs can include this file and reuse its kernel.
#[path = "common/mod.rs"]
mod common;

use pto::prelude::*;

/// out[r, :] = softmax(x[r, :]) for rows of at most 256 columns.
#[pto::kernel]
pub fn row_softmax(x: &Tensor<f32, R, C>, out: &mut Tensor<f32, R, C>) {
    for r in (0..R).step_by(16) {
        let t = x.load::<16, 256>([r, 0]);
        let shifted = t - t.row_max();
        let e = shifted.exp();
        out.store([r, 0], e / e.row_sum());
    }
}

/// The plain-Rust reference.
fn reference(x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; rows * cols];
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let m = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let e: Vec<f32> = row.iter().map(|v| (v - m).exp()).collect();
        let s: f32 = e.iter().sum();
        for c in 0..cols {
            out[r * cols + c] = e[c] / s;
        }
    }
    out
}

/// Runs the kernel on `rows x cols` random input (`cols <= 256`) and compares with plain Rust.
pub fn check(rows: usize, cols: usize) -> Result<Vec<common::Outcome>, pto::Error> {
    let data: Vec<f32> = common::random(rows * cols, 7)
        .into_iter()
        .map(|v| v * 8.0)
        .collect();
    let x = pto::Tensor::from_vec(data.clone(), [rows, cols])?;
    let mut out = pto::Tensor::<f32>::zeros([rows, cols]);
    let (r, took) = common::timed(|| row_softmax(&x, &mut out));
    r?;
    let want = reference(&data, rows, cols);
    Ok(vec![common::Outcome {
        what: format!("row_softmax {rows} x {cols}"),
        err: common::max_rel_err(out.as_slice(), &want),
        tol: 1e-4,
        took,
    }])
}

fn main() -> Result<(), pto::Error> {
    let args = common::args(&[1000, 200]);
    common::show(
        "row_softmax",
        row_softmax::IR,
        row_softmax::LOWERED,
        row_softmax::CPP,
        &args,
    );
    common::report(&check(args.sizes[0], args.sizes[1].min(256))?);
    Ok(())
}
