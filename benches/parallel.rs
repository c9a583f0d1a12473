//! The speedup of a `parallel` loop on this machine's cores: the row softmax of
//! `examples/parallel_softmax.rs` over 4096 x 1024 f32 with 8 x 1024 tiles, the same kernel
//! with a `parallel` loop and with a sequential one, side by side in one run.
//!
//! `cargo bench --bench parallel`: the two calls alternate (`paired/mod.rs`), and the figure
//! to read is the median of the pairs' ratios sequential / parallel, the speedup (rayon uses
//! all cores unless `RAYON_NUM_THREADS` says otherwise).
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

mod paired;

#[allow(dead_code)]
#[path = "../examples/parallel_softmax.rs"]
mod parallel_softmax;

use parallel_softmax::{reference, softmax_par, softmax_seq};

const ROWS: usize = 4096;
const COLS: usize = 1024;

fn main() {
    // Both compute the plain-Rust numbers before anything is timed.
    let x = data();
    let want = reference(&x, ROWS, COLS);
    let t = pto::Tensor::from_vec(x, [ROWS, COLS]).unwrap();
    for kernel in [softmax_par, softmax_seq] {
        let mut out = pto::Tensor::<f32>::zeros([ROWS, COLS]);
        kernel(&t, &mut out).unwrap();
        for (g, w) in out.as_slice().iter().zip(&want) {
            assert!((g - w).abs() <= 1e-5 * w.abs().max(1.0), "{g} vs {w}");
        }
    }
    let run = paired::Runner::from_args("sequential", "parallel");
    // Both write the same output (see `paired/mod.rs`).
    let mut s = (t, pto::Tensor::<f32>::zeros([ROWS, COLS]));
    run.compare(
        "softmax_4096x1024",
        &mut s,
        |(x, y)| softmax_seq(black_box(x), black_box(y)).unwrap(),
        |(x, y)| softmax_par(black_box(x), black_box(y)).unwrap(),
    );
}

/// Deterministic values in [-4, 4).
fn data() -> Vec<f32> {
    let mut s = 0x2545_f491_4f6c_dd1du64;
    (0..ROWS * COLS)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 8.0 - 4.0
        })
        .collect()
}
