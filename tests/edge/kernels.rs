//! Kernels that carry a tile through a loop over edge tiles (`docs/guide.md` section 5),
//! shared by `tests/edge_tiles.rs` (against plain Rust and the interpreter) and
//! `tests/cpp_model.rs` (their C++ in the pto-isa model against the host functions).

use pto::prelude::*;

/// Column sums of `x` through a carried 16-row tile.
#[pto::kernel]
pub fn carried_sum(x: &Tensor<f32, R, C>, #[out] out: &mut Tensor<f32, 1, C>) {
    let mut acc = Tile::<f32, 16, 64>::zeros();
    for r in (0..R).step_by(16) {
        acc = acc + x.load::<16, 64>([r, 0]);
    }
    out.store([0, 0], acc.col_sum());
}

/// Column maxima of `x` through a carried tile that starts as the first row tile.
#[pto::kernel]
pub fn carried_max(x: &Tensor<f32, R, C>, #[out] out: &mut Tensor<f32, 1, C>) {
    let mut acc = x.load::<16, 64>([0, 0]);
    for r in (16..R).step_by(16) {
        acc = acc.max(x.load::<16, 64>([r, 0]));
    }
    out.store([0, 0], acc.col_max());
}

/// Column minima of `x`, like [`carried_max`].
#[pto::kernel]
pub fn carried_min(x: &Tensor<f32, R, C>, #[out] out: &mut Tensor<f32, 1, C>) {
    let mut acc = x.load::<16, 64>([0, 0]);
    for r in (16..R).step_by(16) {
        acc = acc.min(x.load::<16, 64>([r, 0]));
    }
    out.store([0, 0], acc.col_min());
}

/// `c = a @ b` accumulating 32-wide K chunks into a carried accumulator that starts at zero.
#[pto::kernel]
pub fn carried_matmul(
    a: &Tensor<f32, M, K>,
    b: &Tensor<f32, K, N>,
    #[out] c: &mut Tensor<f32, M, N>,
) {
    for i in (0..M).step_by(32) {
        for j in (0..N).step_by(32) {
            let mut acc = Tile::<f32, 32, 32>::zeros();
            for k in (0..K).step_by(32) {
                acc = matmul_acc(acc, a.load::<32, 32>([i, k]), b.load::<32, 32>([k, j]));
            }
            c.store([i, j], acc);
        }
    }
}

/// An edge tile cast to `i32` (rounded to nearest) and a window of it extracted, reduced
/// along rows at ragged sizes: the cast and the extract keep the source's valid region, so
/// the sums and maxima see only elements inside the tensor.
#[pto::kernel]
pub fn cast_extract(
    x: &Tensor<f32, R, C>,
    #[out] sums: &mut Tensor<i32, R, 1>,
    #[out] maxs: &mut Tensor<f32, R, 1>,
) {
    for r in (0..R).step_by(16) {
        let t = x.load::<16, 64>([r, 0]);
        sums.store([r, 0], (t * 10.0).cast::<i32>().row_sum());
        maxs.store([r, 0], t.extract::<16, 32>([0, 0]).row_max());
    }
}
