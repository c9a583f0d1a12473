//! Compare and select: a leaky ReLU (`x > 0 ? x : alpha x`) and a clamp of `x` to
//! `[lo, hi]`, each from a comparison mask and `select` (`TCMPS` / `TSEL` / `TSELS`).
//!
//! `cargo run --release --example clamp_relu [--lowered] [--cpp] [ROWS] [COLS]`

// `#[path]` so tests/examples.rs can include this file and reuse its kernel.
#[path = "common/mod.rs"]
mod common;

use pto::prelude::*;

/// leaky = x > 0 ? x : alpha * x; clamped = min(max(x, lo), hi), written with masks.
#[pto::kernel]
pub fn clamp_relu(
    x: &Tensor<f32, R, C>,
    alpha: f32,
    lo: f32,
    hi: f32,
    #[out] leaky: &mut Tensor<f32, R, C>,
    #[out] clamped: &mut Tensor<f32, R, C>,
) {
    for r in (0..R).step_by(16) {
        for c in (0..C).step_by(64) {
            let t = x.load::<16, 64>([r, c]);
            leaky.store([r, c], t.gt(0.0).select(t, t * alpha));
            let low = t.lt(lo).select(Tile::<f32, 16, 64>::full(lo), t);
            clamped.store(
                [r, c],
                low.gt(hi).select(Tile::<f32, 16, 64>::full(hi), low),
            );
        }
    }
}

/// Runs the kernel on `rows x cols` random input and compares with plain Rust (exactly:
/// both compute one multiplication or none per element).
pub fn check(rows: usize, cols: usize) -> Result<Vec<common::Outcome>, pto::Error> {
    let data = common::random(rows * cols, 21);
    let (alpha, lo, hi) = (0.1, -0.5, 0.5);
    let x = pto::Tensor::from_vec(data.clone(), [rows, cols])?;
    let mut leaky = pto::Tensor::<f32>::zeros([rows, cols]);
    let mut clamped = pto::Tensor::<f32>::zeros([rows, cols]);
    let (r, took) = common::timed(|| clamp_relu(&x, alpha, lo, hi, &mut leaky, &mut clamped));
    r?;
    let want_l: Vec<f32> = data
        .iter()
        .map(|&v| if v > 0.0 { v } else { v * alpha })
        .collect();
    let want_c: Vec<f32> = data.iter().map(|&v| v.clamp(lo, hi)).collect();
    Ok(vec![
        common::Outcome {
            what: format!("leaky relu, {rows} x {cols}"),
            err: common::max_rel_err(leaky.as_slice(), &want_l),
            tol: 0.0,
            took,
        },
        common::Outcome {
            what: format!("clamp to [{lo}, {hi}], {rows} x {cols}"),
            err: common::max_rel_err(clamped.as_slice(), &want_c),
            tol: 0.0,
            took,
        },
    ])
}

fn main() -> Result<(), pto::Error> {
    let args = common::args(&[1000, 100]);
    common::show(
        "clamp_relu",
        clamp_relu::IR,
        clamp_relu::LOWERED,
        clamp_relu::CPP,
        &args,
    );
    common::report(&check(args.sizes[0], args.sizes[1])?);
    Ok(())
}
