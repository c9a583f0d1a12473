//! Kernels whose matmul operands come from other tile work: a vector result fed to a
//! matmul (Vec -> Mat -> Left / Right) and a matmul result fed to another matmul
//! (Acc -> Mat -> Left). On A2A3 the first is a vector-to-cube transfer through global
//! memory (`pto-lower/src/lower/split.rs`), the second stays on the cube core.

use pto::prelude::*;

/// `out = softmax(q @ k) @ v` for `S x 32` query rows, with `k` given transposed
/// (`32 x 32`) and `v: 32 x 32`: two matmuls with a row softmax between them.
#[pto::kernel]
pub fn attention(
    q: &Tensor<f32, S, 32>,
    k: &Tensor<f32, 32, 32>,
    v: &Tensor<f32, 32, 32>,
    #[out] out: &mut Tensor<f32, S, 32>,
) {
    for i in (0..S).step_by(16) {
        let s = matmul(q.load::<16, 32>([i, 0]), k.load::<32, 32>([0, 0]));
        let e = (s - s.row_max()).exp();
        let p = e / e.row_sum();
        out.store([i, 0], matmul(p, v.load::<32, 32>([0, 0])));
    }
}

/// `out = relu(a @ b) @ c`: a vector op between two matmuls.
#[pto::kernel]
pub fn relu_chain(
    a: &Tensor<f32, M, 32>,
    b: &Tensor<f32, 32, 32>,
    c: &Tensor<f32, 32, N>,
    #[out] out: &mut Tensor<f32, M, N>,
) {
    for i in (0..M).step_by(16) {
        for j in (0..N).step_by(32) {
            let h = matmul(a.load::<16, 32>([i, 0]), b.load::<32, 32>([0, 0])).relu();
            out.store([i, j], matmul(h, c.load::<32, 32>([0, j])));
        }
    }
}

/// `out = (a @ b) @ c`: a matmul result fed straight to another matmul.
#[pto::kernel]
pub fn matmul_chain(
    a: &Tensor<f32, M, 32>,
    b: &Tensor<f32, 32, 32>,
    c: &Tensor<f32, 32, N>,
    #[out] out: &mut Tensor<f32, M, N>,
) {
    for i in (0..M).step_by(16) {
        for j in (0..N).step_by(32) {
            let h = matmul(a.load::<16, 32>([i, 0]), b.load::<32, 32>([0, 0]));
            out.store([i, j], matmul(h, c.load::<32, 32>([0, j])));
        }
    }
}

/// `out = x @ (w * s)`: a vector result as the right operand.
#[pto::kernel]
pub fn scaled_right(
    x: &Tensor<f32, M, 32>,
    w: &Tensor<f32, 32, 32>,
    s: f32,
    #[out] out: &mut Tensor<f32, M, 32>,
) {
    let ws = w.load::<32, 32>([0, 0]) * s;
    for i in (0..M).step_by(16) {
        out.store([i, 0], matmul(x.load::<16, 32>([i, 0]), ws));
    }
}
