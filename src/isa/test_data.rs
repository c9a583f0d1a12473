//! Inputs shared by the unit tests of the one-pass row paths (`row_pass.rs`,
//! `load_reductions.rs`), which check them bit for bit (any NaN as any NaN) against the
//! separate instructions.

use crate::{Tensor, Tile};

/// Values with the cases a fold's order shows: zeros of both signs, NaN, infinities.
pub fn value(k: usize) -> f32 {
    match k % 29 {
        0 => -0.0,
        1 => 0.0,
        2 if k.is_multiple_of(3) => f32::NAN,
        3 => f32::NEG_INFINITY,
        5 if k.is_multiple_of(7) => f32::INFINITY,
        m => (m as f32 - 14.0) * 0.37 + (k % 11) as f32 * 1e-3,
    }
}

/// A tensor of `shape` whose element `k` (row-major) is `f(k)`.
pub fn tensor(shape: &[usize], f: impl Fn(usize) -> f32) -> Tensor<f32> {
    let n = shape.iter().product::<usize>();
    Tensor::from_vec_dyn((0..n).map(f).collect(), shape).unwrap()
}

/// A tile's elements (all of them, valid or not) as bits, every NaN as one value (the
/// semantics leave a NaN result's sign and payload unspecified; zeros keep their sign).
pub fn bits<const R: usize, const C: usize>(t: &Tile<f32, R, C>) -> Vec<u32> {
    let b = |x: &f32| if x.is_nan() { u32::MAX } else { x.to_bits() };
    t.as_rows().iter().flatten().map(b).collect()
}

/// Tensors (shape, offset) against a 4 x 40 tile: whole windows, ragged edges, rank 1,
/// rank 3 (the general path) and offsets outside (errors).
pub const WINDOWS: &[(&[usize], &[usize])] = &[
    (&[8, 40], &[4, 0]),
    (&[10, 53], &[8, 9]),
    (&[10, 45], &[1, 7]),
    (&[6, 37], &[0, 0]),
    (&[50], &[3]),
    (&[2, 3, 40], &[1, 0, 0]),
    (&[2, 3, 40], &[1, 2, 5]),
    (&[8, 40], &[8, 0]),
    (&[8, 40], &[0, 40]),
    (&[8, 40], &[0]),
];
