//! Row and column broadcast: `x - rowmax(x)` (an `R x 1` tile against `R x C`) and
//! `x * v[j]` (a `1 x C` tile against `R x C`).
//!
//! `cargo run --release --example broadcast [--lowered] [--cpp] [ROWS] [COLS<=128]`

// `#[path]` so tests/examples.rs can include this file and reuse its kernel.
#[path = "common/mod.rs"]
mod common;

use pto::prelude::*;

/// centered = x - rowmax(x); scaled = x * v (v broadcast down the rows).
#[pto::kernel]
pub fn broadcast(
    x: &Tensor<f32, R, C>,
    v: &Tensor<f32, 1, C>,
    #[out] centered: &mut Tensor<f32, R, C>,
    #[out] scaled: &mut Tensor<f32, R, C>,
) {
    let vt = v.load::<1, 128>([0, 0]);
    for r in (0..R).step_by(16) {
        let t = x.load::<16, 128>([r, 0]);
        centered.store([r, 0], t - t.row_max());
        scaled.store([r, 0], t * vt);
    }
}

/// Runs the kernel on `rows x cols` random input (`cols <= 128`) and compares with plain Rust.
pub fn check(rows: usize, cols: usize) -> Result<Vec<common::Outcome>, pto::Error> {
    let data = common::random(rows * cols, 11);
    let vv = common::random(cols, 12);
    let x = pto::Tensor::from_vec(data.clone(), [rows, cols])?;
    let v = pto::Tensor::from_vec(vv.clone(), [1, cols])?;
    let mut centered = pto::Tensor::<f32>::zeros([rows, cols]);
    let mut scaled = pto::Tensor::<f32>::zeros([rows, cols]);
    let (r, took) = common::timed(|| broadcast(&x, &v, &mut centered, &mut scaled));
    r?;
    let mut want_c = vec![0.0; rows * cols];
    let mut want_s = vec![0.0; rows * cols];
    for r in 0..rows {
        let row = &data[r * cols..(r + 1) * cols];
        let m = row.iter().copied().fold(f32::MIN, f32::max);
        for c in 0..cols {
            want_c[r * cols + c] = row[c] - m;
            want_s[r * cols + c] = row[c] * vv[c];
        }
    }
    Ok(vec![
        common::Outcome {
            what: format!("x - rowmax(x), {rows} x {cols}"),
            err: common::max_rel_err(centered.as_slice(), &want_c),
            tol: 1e-5,
            took,
        },
        common::Outcome {
            what: format!("x * v, {rows} x {cols}"),
            err: common::max_rel_err(scaled.as_slice(), &want_s),
            tol: 1e-5,
            took,
        },
    ])
}

fn main() -> Result<(), pto::Error> {
    let args = common::args(&[1000, 100]);
    common::show(
        "broadcast",
        broadcast::IR,
        broadcast::LOWERED,
        broadcast::CPP,
        &args,
    );
    common::report(&check(args.sizes[0], args.sizes[1].min(128))?);
    Ok(())
}
