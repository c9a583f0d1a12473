//! The speedup of a `parallel` loop on this machine's cores: the row softmax of
//! `examples/parallel_softmax.rs` (8 x 1024 tiles) over 4096 x 1024 f32 (the performance
//! issue's size: 16 MiB read, 16 MiB written, half of the L3 this machine shares with its
//! neighbours) and over 512 x 1024 (2 MiB each way, well within L3), the same kernel
//! with a `parallel` loop and with a sequential one, side by side in one run.
//!
//! `cargo bench --bench parallel`: the two calls alternate (`paired/mod.rs`), and the figure
//! to read is the median of the pairs' ratios sequential / parallel, the speedup (rayon uses
//! all cores unless `RAYON_NUM_THREADS` says otherwise).
//!
//! A group `.. in blocks by hand` after each times the split a programmer would write with
//! rayon itself: the sequential kernel run on one equal block of rows per thread, cut
//! beforehand, the calling thread taking the first block and rayon's global pool the others,
//! against the same blocks one after the other. Its threads sleep between calls, where the
//! pool of `parallel` loops keeps its own awake for a while (`pto::par`, `PTO_PAR_LINGER_MS`);
//! `PTO_PAR_LINGER_MS=0 cargo bench --bench parallel` shows the loops without it.
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

mod paired;

#[allow(dead_code)]
#[path = "../examples/parallel_softmax.rs"]
mod parallel_softmax;

use parallel_softmax::{reference, softmax_par, softmax_seq};

const COLS: usize = 1024;

fn main() {
    let run = paired::Runner::from_args("sequential", "parallel");
    for rows in [4096, 512] {
        // Both compute the plain-Rust numbers before anything is timed.
        let x = data(rows);
        let want = reference(&x, rows, COLS);
        let t = pto::Tensor::from_vec(x, [rows, COLS]).unwrap();
        for kernel in [softmax_par, softmax_seq] {
            let mut out = pto::Tensor::<f32>::zeros([rows, COLS]);
            kernel(&t, &mut out).unwrap();
            for (g, w) in out.as_slice().iter().zip(&want) {
                assert!((g - w).abs() <= 1e-5 * w.abs().max(1.0), "{g} vs {w}");
            }
        }
        let name = format!("softmax_{rows}x{COLS}");
        // Both write the same output (see `paired/mod.rs`).
        let mut s = (t, pto::Tensor::<f32>::zeros([rows, COLS]));
        run.compare(
            &name,
            &mut s,
            |(x, y)| softmax_seq(black_box(x), black_box(y)).unwrap(),
            |(x, y)| softmax_par(black_box(x), black_box(y)).unwrap(),
        );
        let mut blocks = blocks(&s.0, rayon::current_num_threads());
        run.compare(
            &format!("{name} in blocks by hand"),
            &mut blocks,
            |b| {
                for (x, y) in b.iter_mut() {
                    softmax_seq(black_box(x), black_box(y)).unwrap();
                }
            },
            |b| {
                let one = |(x, y): &mut (pto::Tensor<f32>, pto::Tensor<f32>)| {
                    softmax_seq(black_box(x), black_box(y)).unwrap()
                };
                let (first, rest) = b.split_first_mut().unwrap();
                rayon::in_place_scope(|s| {
                    for block in rest {
                        s.spawn(|_| one(block));
                    }
                    one(first);
                });
            },
        );
    }
}

/// `x`'s rows cut into `n` blocks of (nearly) equal height, each with an output of its size.
fn blocks(x: &pto::Tensor<f32>, n: usize) -> Vec<(pto::Tensor<f32>, pto::Tensor<f32>)> {
    let [rows, cols] = [x.shape()[0], x.shape()[1]];
    let n = n.clamp(1, rows);
    (0..n)
        .map(|b| {
            let part = rows * b / n..rows * (b + 1) / n;
            let len = part.len();
            let data = x.as_slice()[part.start * cols..part.end * cols].to_vec();
            (
                pto::Tensor::from_vec(data, [len, cols]).unwrap(),
                pto::Tensor::zeros([len, cols]),
            )
        })
        .collect()
}

/// Deterministic values in [-4, 4).
fn data(rows: usize) -> Vec<f32> {
    let mut s = 0x2545_f491_4f6c_dd1du64;
    (0..rows * COLS)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 8.0 - 4.0
        })
        .collect()
}
