//! A tensor-level function (dsl.md 5.7) in a program: `y = x * a + b` written on whole tensors
//! and views, then `assemble`d into the output. The `tile-tensor-ops` pass tiles the fused
//! chain with the program's `tile_default` (16 x 64) into a loop nest of loads, tile ops and
//! stores, edge tiles included; `LOWERED` shows the loops. The entry is an orchestration-style
//! tile kernel that calls it, then a second tensor-level function that adds a bias to the
//! first 100 columns, row by row, through views.
//!
//! `cargo run --release --example tensor_level [--lowered] [--cpp] [ROWS] [COLS]`

// `#[path]` so tests/examples.rs can include this file and reuse its program.
#[path = "common/mod.rs"]
mod common;

use pto::prelude::*;

/// The program: `run` is the entry; `axpb` and `bias_rows` are tensor-level functions.
#[pto::program(arch = "PTOv2", tile_default(M = 16, N = 64, K = 16))]
pub mod tensor_level {
    /// out = x * a + b over whole tensors of any size.
    #[pto::kernel(data_flow)]
    pub fn axpb(x: &Tensor<f32, R, C>, a: f32, b: &Tensor<f32, R, C>, out: &mut Tensor<f32, R, C>) {
        let y = x * a + b;
        out.assemble(y, [0, 0]);
    }

    /// out[r, 0..100] += bias[0, 0..100] for each row r: a 1 x 100 view at a runtime offset,
    /// tiled 1 x 64 (the second tile an edge tile narrowed to the view); reading and writing
    /// one window is tiled in place.
    #[pto::kernel(control_flow)]
    pub fn bias_rows(bias: &Tensor<f32, 1, 100>, out: &mut Tensor<f32, R, C>) {
        for r in 0..R {
            let row = out.view([1, 100], [r, 0]);
            out.assemble(row + bias, [r, 0]);
        }
    }

    /// The entry: `axpb`, then the bias on the first 100 columns.
    #[pto::kernel]
    #[entry]
    pub fn run(
        a: f32,
        x: &Tensor<f32, R, C>,
        b: &Tensor<f32, R, C>,
        bias: &Tensor<f32, 1, 100>,
        out: &mut Tensor<f32, R, C>,
    ) {
        axpb(x, a, b, out);
        bias_rows(bias, out);
    }
}

/// Runs the program on `rows x cols` random elements (`cols` at least 100) and compares with
/// plain Rust.
pub fn check(rows: usize, cols: usize) -> Result<Vec<common::Outcome>, pto::Error> {
    let n = rows * cols;
    let (xv, bv, biasv) = (
        common::random(n, 3),
        common::random(n, 4),
        common::random(100, 5),
    );
    let x = pto::Tensor::from_vec(xv.clone(), [rows, cols])?;
    let b = pto::Tensor::from_vec(bv.clone(), [rows, cols])?;
    let bias = pto::Tensor::from_vec(biasv.clone(), [1, 100])?;
    let mut out = pto::Tensor::<f32>::zeros([rows, cols]);
    let a = 1.5f32;
    let (r, took) = common::timed(|| tensor_level::run(a, &x, &b, &bias, &mut out));
    r?;
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let y = xv[i] * a + bv[i];
            let c = i % cols;
            if c < 100 { y + biasv[c] } else { y }
        })
        .collect();
    Ok(vec![common::Outcome {
        what: format!("tensor_level, {rows} x {cols}"),
        err: common::max_rel_err(out.as_slice(), &want),
        tol: 1e-6,
        took,
    }])
}

fn main() -> Result<(), pto::Error> {
    let args = common::args(&[37, 200]);
    common::show(
        "tensor_level",
        tensor_level::IR,
        tensor_level::LOWERED,
        tensor_level::CPP,
        &args,
    );
    common::report(&check(args.sizes[0], args.sizes[1].max(100))?);
    Ok(())
}
