//! Row softmax over all cores: the loop over 8-row tiles is `parallel`, so the host function
//! runs its iterations on rayon's pool (each worker with its own tiles) and the C++ gives each
//! block of the launch its share of the row tiles. Rows of up to 1024 columns: a shorter row
//! is the tile's valid region. `softmax_seq` is the same kernel with a sequential loop.
//!
//! `cargo run --release --example parallel_softmax [--lowered] [--cpp] [ROWS] [COLS<=1024]`

// `#[path]` so tests and benches can include this file and reuse its kernels.
#[path = "common/mod.rs"]
mod common;

use pto::prelude::*;

/// out[r, :] = softmax(x[r, :]), the 8-row tiles in parallel.
#[pto::kernel]
pub fn softmax_par(x: &Tensor<f32, R, C>, #[out] out: &mut Tensor<f32, R, C>) {
    for r in parallel((0..R).step_by(8)) {
        let t = x.load::<8, 1024>([r, 0]);
        let e = (t - t.row_max()).exp();
        out.store([r, 0], e / e.row_sum());
    }
}

/// The same kernel with a sequential loop.
#[pto::kernel]
pub fn softmax_seq(x: &Tensor<f32, R, C>, #[out] out: &mut Tensor<f32, R, C>) {
    for r in (0..R).step_by(8) {
        let t = x.load::<8, 1024>([r, 0]);
        let e = (t - t.row_max()).exp();
        out.store([r, 0], e / e.row_sum());
    }
}

/// The plain-Rust reference.
pub fn reference(x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; rows * cols];
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let m = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let s: f32 = row.iter().map(|v| (v - m).exp()).sum();
        for c in 0..cols {
            out[r * cols + c] = (row[c] - m).exp() / s;
        }
    }
    out
}

/// Runs both kernels on `rows x cols` random input (`cols <= 1024`) and compares each with
/// plain Rust.
pub fn check(rows: usize, cols: usize) -> Result<Vec<common::Outcome>, pto::Error> {
    let data: Vec<f32> = common::random(rows * cols, 11)
        .into_iter()
        .map(|v| v * 8.0)
        .collect();
    let x = pto::Tensor::from_vec(data.clone(), [rows, cols])?;
    let want = reference(&data, rows, cols);
    let mut outcomes = Vec::new();
    type Kernel = fn(&pto::Tensor<f32>, &mut pto::Tensor<f32>) -> Result<(), pto::Error>;
    for (name, kernel) in [
        ("parallel", softmax_par as Kernel),
        ("sequential", softmax_seq as Kernel),
    ] {
        let mut out = pto::Tensor::<f32>::zeros([rows, cols]);
        let (r, took) = common::timed(|| kernel(&x, &mut out));
        r?;
        outcomes.push(common::Outcome {
            what: format!("softmax {rows} x {cols}, {name} loop"),
            err: common::max_rel_err(out.as_slice(), &want),
            tol: 1e-4,
            took,
        });
    }
    Ok(outcomes)
}

fn main() -> Result<(), pto::Error> {
    let args = common::args(&[4096, 1024]);
    common::show(
        "softmax_par",
        softmax_par::IR,
        softmax_par::LOWERED,
        softmax_par::CPP,
        &args,
    );
    common::report(&check(args.sizes[0], args.sizes[1].min(1024))?);
    Ok(())
}
