//! The speedup of a `parallel` loop on this machine's cores: the row softmax of
//! `examples/parallel_softmax.rs` over 4096 x 1024 f32 with 8 x 1024 tiles, the same kernel
//! with a `parallel` loop and with a sequential one, side by side in one run.
//!
//! `cargo bench --bench parallel` (the ratio is sequential median / parallel median; rayon
//! uses all cores unless `RAYON_NUM_THREADS` says otherwise).
#![allow(missing_docs, clippy::unwrap_used)]

use divan::{Bencher, black_box};

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
    divan::main();
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

mod softmax_4096x1024 {
    use super::*;

    #[divan::bench]
    fn parallel(b: Bencher) {
        let x = pto::Tensor::from_vec(data(), [ROWS, COLS]).unwrap();
        let mut out = pto::Tensor::<f32>::zeros([ROWS, COLS]);
        b.bench_local(|| softmax_par(black_box(&x), black_box(&mut out)).unwrap());
    }

    #[divan::bench]
    fn sequential(b: Bencher) {
        let x = pto::Tensor::from_vec(data(), [ROWS, COLS]).unwrap();
        let mut out = pto::Tensor::<f32>::zeros([ROWS, COLS]);
        b.bench_local(|| softmax_seq(black_box(&x), black_box(&mut out)).unwrap());
    }
}
