//! A program (`#[pto::program]`): an orchestration entry that calls a kernel of the program
//! and runs an `incore!` region, which the lowering outlines into a kernel of its own
//! (`run_incore_0`), whose row tiles run in a `parallel` loop (on all cores on the CPU, over
//! blocks in the C++). `out = max(alpha * x + y, lo)`, tile by tile, edge tiles included.
//!
//! `cargo run --release --example program [--lowered] [--cpp] [ROWS]`

// `#[path]` so tests/examples.rs can include this file and reuse its program.
#[path = "common/mod.rs"]
mod common;

use pto::prelude::*;

/// The program: `run` is the entry; `tiles` and `clamp` are kernels it calls.
#[pto::program(
    arch = "PTOv2",
    tile_default(M = 16, N = 64, K = 16),
    purpose = "example"
)]
pub mod axpy_clamp {
    /// How many 16 x 64 tiles cover an `r x c` tensor, and the share of them that are edge
    /// tiles (a tuple of scalars).
    #[pto::kernel]
    pub fn tiles(r: i64, c: i64) -> (i64, f32) {
        let rows = (r + 15) / 16;
        let cols = (c + 63) / 64;
        let full = (r / 16) * (c / 64);
        let all = rows * cols;
        (all, (all - full) as f32 / max(all, 1) as f32)
    }

    /// out = max(out, lo), in place.
    #[pto::kernel]
    pub fn clamp(out: &mut Tensor<f32, R, C>, lo: f32) {
        for r in (0..R).step_by(16) {
            for c in (0..C).step_by(64) {
                let t = out.load::<16, 64>([r, c]);
                out.store([r, c], t.max(Tile::<f32, 16, 64>::full(lo)));
            }
        }
    }

    /// The entry: the tile work of `alpha * x + y` in an `incore!` region (outlined into
    /// `run_incore_0(x, y, out, alpha)`), then a call of `clamp`; returns the tile count.
    #[pto::kernel]
    #[entry]
    pub fn run(
        alpha: f32,
        lo: f32,
        x: &Tensor<f32, R, C>,
        y: &Tensor<f32, R, C>,
        out: &mut Tensor<f32, R, C>,
    ) -> i64 {
        let (n, _edge) = tiles(R, C);
        incore! {
            for r in parallel((0..R).step_by(16)) {
                for c in (0..C).step_by(64) {
                    let xt = x.load::<16, 64>([r, c]);
                    let yt = y.load::<16, 64>([r, c]);
                    out.store([r, c], alpha * xt + yt);
                }
            }
        }
        clamp(out, lo);
        n
    }
}

/// Runs the program on `rows x 200` random elements and compares with plain Rust.
pub fn check(rows: usize) -> Result<Vec<common::Outcome>, pto::Error> {
    let cols = 200;
    let n = rows * cols;
    let (xv, yv) = (common::random(n, 7), common::random(n, 8));
    let x = pto::Tensor::from_vec(xv.clone(), [rows, cols])?;
    let y = pto::Tensor::from_vec(yv.clone(), [rows, cols])?;
    let mut out = pto::Tensor::<f32>::zeros([rows, cols]);
    let (alpha, lo) = (0.75f32, -0.25f32);
    let (r, took) = common::timed(|| axpy_clamp::run(alpha, lo, &x, &y, &mut out));
    let count = r?;
    let want: Vec<f32> = xv
        .iter()
        .zip(&yv)
        .map(|(a, b)| (alpha * a + b).max(lo))
        .collect();
    let want_count = rows.div_ceil(16) * cols.div_ceil(64);
    Ok(vec![
        common::Outcome {
            what: format!("axpy_clamp, {rows} x {cols}"),
            err: common::max_rel_err(out.as_slice(), &want),
            tol: 1e-5,
            took,
        },
        common::Outcome {
            what: format!("axpy_clamp tile count, {rows} x {cols}"),
            err: (count as f32 - want_count as f32).abs(),
            tol: 0.0,
            took,
        },
    ])
}

fn main() -> Result<(), pto::Error> {
    let args = common::args(&[1000]);
    common::show(
        "axpy_clamp",
        axpy_clamp::IR,
        axpy_clamp::LOWERED,
        axpy_clamp::CPP,
        &args,
    );
    common::report(&check(args.sizes[0])?);
    Ok(())
}
