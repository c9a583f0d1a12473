//! Kernels of issue 16 part A (masks, compare/select, pow, products, arg-reductions,
//! explicit expands), shared by the CPU tests (`tests/ops.rs`) and the C++ model runs
//! (`tests/cpp_model.rs`). Each walks its tensor in tiles, so sizes that are not tile
//! multiples run the ops on ragged valid regions.

use pto::prelude::*;

/// `|x| ^ y`, `x ^ 3` and `x.fmod(y)` (the method spelling of `%`).
#[pto::kernel]
pub fn pow_fmod(
    x: &Tensor<f32, R, C>,
    y: &Tensor<f32, R, C>,
    #[out] p: &mut Tensor<f32, R, C>,
    #[out] q: &mut Tensor<f32, R, C>,
    #[out] m: &mut Tensor<f32, R, C>,
) {
    for r in (0..R).step_by(16) {
        for c in (0..C).step_by(64) {
            let a = x.load::<16, 64>([r, c]);
            let b = y.load::<16, 64>([r, c]);
            p.store([r, c], a.abs().pow(b));
            q.store([r, c], a.pow(3.0));
            m.store([r, c], a.fmod(b));
        }
    }
}
