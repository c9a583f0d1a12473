//! Kernels whose cube and vector work meet in a tensor (`pto-lower/src/lower/split.rs`):
//! on A2A3 the cores are separate, so the tensor is handed off between them.

use pto::prelude::*;

/// `c = a @ b` by 16-row blocks, each block read back from `c` by the vector core:
/// `d = relu(c) * 0.5`. The cube writes `c`, the vector core reads it (cube to vector), and
/// the next block's store must wait for the read of the last (vector to cube).
#[pto::kernel]
pub fn cube_then_vector(
    a: &Tensor<f32, M, 32>,
    b: &Tensor<f32, 32, 32>,
    c: &mut Tensor<f32, M, 32>,
    #[out] d: &mut Tensor<f32, M, 32>,
) {
    for i in (0..M).step_by(16) {
        c.store(
            [i, 0],
            matmul(a.load::<16, 32>([i, 0]), b.load::<32, 32>([0, 0])),
        );
        let x = c.load::<16, 32>([i, 0]);
        d.store([i, 0], x.relu() * 0.5);
    }
}

/// `t = relu(a)` on the vector core, then `out = t @ b` on the cube, which loads `t`
/// (vector to cube), and a scalar the vector core writes, read by the cube's loop bound.
#[pto::kernel]
pub fn vector_then_cube(
    a: &Tensor<f32, M, 32>,
    b: &Tensor<f32, 32, 32>,
    t: &mut Tensor<f32, M, 32>,
    n: &mut Tensor<i64, 1, 8>,
    #[out] out: &mut Tensor<f32, M, 32>,
) {
    for i in (0..M).step_by(16) {
        t.store([i, 0], a.load::<16, 32>([i, 0]).relu());
    }
    n.write([0, 0], M);
    let rows = n.read([0, 0]);
    for i in (0..rows).step_by(16) {
        out.store(
            [i, 0],
            matmul(t.load::<16, 32>([i, 0]), b.load::<32, 32>([0, 0])),
        );
    }
}
