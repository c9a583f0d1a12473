//! The README's first kernel: `out[b, :] = x[b, :] * scale * 3.14`, one row at a time.
//!
//! `cargo run --release --example quickstart [--lowered] [--cpp] [ROWS]`

// `#[path]` so tests/examples.rs can include this file and reuse its kernel.
#[path = "common/mod.rs"]
mod common;

use pto::prelude::*;

/// out[b, :] = x[b, :] * scale * 3.14, one row at a time.
#[pto::kernel]
pub fn scale_rows(x: &Tensor<f32, B, 128>, scale: f32, out: &mut Tensor<f32, B, 128>) {
    for b in 0..B {
        let row = x.load::<1, 128>([b, 0]);
        let y = row * scale * 3.14;
        out.store([b, 0], y);
    }
}

/// Runs the kernel on `rows x 128` random input and compares with plain Rust.
pub fn check(rows: usize) -> Result<Vec<common::Outcome>, pto::Error> {
    let data = common::random(rows * 128, 1);
    let x = pto::Tensor::from_vec(data.clone(), [rows, 128])?;
    let mut out = pto::Tensor::<f32>::zeros([rows, 128]);
    let (result, took) = common::timed(|| scale_rows(&x, 2.0, &mut out));
    result?;
    let want: Vec<f32> = data.iter().map(|v| (v * 2.0) * 3.14f64 as f32).collect();
    Ok(vec![common::Outcome {
        what: format!("scale_rows on {rows} x 128"),
        err: common::max_rel_err(out.as_slice(), &want),
        tol: 1e-5,
        took,
    }])
}

fn main() -> Result<(), pto::Error> {
    let args = common::args(&[1000]);
    common::show(
        "scale_rows",
        scale_rows::IR,
        scale_rows::LOWERED,
        scale_rows::CPP,
        &args,
    );
    common::report(&check(args.sizes[0])?);
    Ok(())
}
