//! Kernels with tile parameters of several kinds (`tests/tile_params.rs`).

use pto::prelude::*;

/// `y = x + b`, 16 rows at a time: an f32 tile parameter read by a vector op in a loop.
#[pto::kernel]
pub fn add_rows(x: &Tensor<f32, R, 32>, b: &Tile<f32, 16, 32>, #[out] y: &mut Tensor<f32, R, 32>) {
    for r in (0..R).step_by(16) {
        y.store([r, 0], x.load::<16, 32>([r, 0]) + b);
    }
}

/// `c = a @ w`: a tile parameter as the B operand of a matmul (loaded into Mat, moved to
/// Right; on A2A3 the cube core loads it).
#[pto::kernel]
pub fn times_w(a: &Tensor<f32, M, 32>, w: &Tile<f32, 32, 32>, #[out] c: &mut Tensor<f32, M, 32>) {
    for i in (0..M).step_by(16) {
        c.store([i, 0], matmul(a.load::<16, 32>([i, 0]), w));
    }
}

/// `c = relu(a @ w)` and `e = w * 2`: one tile parameter wanted by a matmul (Mat) and by a
/// vector op (Vec), so it is brought in twice; on A2A3 the kernel is split and each core
/// loads its own copy.
#[pto::kernel]
pub fn both_units(
    a: &Tensor<f32, M, 32>,
    w: &Tile<f32, 32, 32>,
    #[out] c: &mut Tensor<f32, M, 32>,
    #[out] e: &mut Tensor<f32, 32, 32>,
) {
    for i in (0..M).step_by(16) {
        c.store([i, 0], matmul(a.load::<16, 32>([i, 0]), w).relu());
    }
    e.store([0, 0], w * 2.0);
}

/// `c = p @ b`: a tile parameter as the A operand (Left) of a matmul, and an f16 one as B.
#[pto::kernel]
pub fn left_f16(
    p: &Tile<f16, 16, 32>,
    b: &Tile<f16, 32, 32>,
    x: &Tensor<f32, N, 32>,
    #[out] c: &mut Tensor<f32, N, 32>,
) {
    for i in (0..N).step_by(16) {
        c.store([i, 0], matmul(p, b) + x.load::<16, 32>([i, 0]));
    }
}

/// `y = (x & k) + k` on int32 tiles: an integer tile parameter used twice in a loop.
#[pto::kernel]
pub fn int_param(x: &Tensor<i32, R, 16>, k: &Tile<i32, 16, 16>, #[out] y: &mut Tensor<i32, R, 16>) {
    for r in (0..R).step_by(16) {
        y.store([r, 0], (x.load::<16, 16>([r, 0]) & k) + k);
    }
}

/// A running sum that starts from the tile parameter: `acc = p`, then `acc += x[block]`
/// and each step stored (the parameter's tile flows into a loop-carried value).
#[pto::kernel]
pub fn running_sum(
    x: &Tensor<f32, R, 16>,
    p: &Tile<f32, 16, 16>,
    #[out] y: &mut Tensor<f32, R, 16>,
) {
    let mut acc = p + 0.0;
    for r in (0..R).step_by(16) {
        acc = acc + x.load::<16, 16>([r, 0]);
        y.store([r, 0], acc);
    }
}

/// `y = p`: a tile parameter stored as it is (int16).
#[pto::kernel]
pub fn store_param(p: &Tile<i16, 16, 16>, #[out] y: &mut Tensor<i16, 16, 16>) {
    y.store([0, 0], p);
}

/// `y = x` where `x > 0` and the 8 x 40 mask `m` are both set, else -1: a mask whose rows
/// are 5 bytes of flags in global memory.
#[pto::kernel]
pub fn mask_40(x: &Tensor<f32, R, 40>, m: &Tile<bool, 8, 40>, #[out] y: &mut Tensor<f32, R, 40>) {
    for r in (0..R).step_by(8) {
        let t = x.load::<8, 40>([r, 0]);
        y.store([r, 0], (t.gt(0.0) & m).select(t, -1.0));
    }
}
