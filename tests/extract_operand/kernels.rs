//! Kernels whose matmul operands are windows `extract`ed from a bigger tile (`TEXTRACT`
//! into Left / Right): the source tile loaded, computed by a vector op, a matmul result,
//! or loaded and also used by vector work; and an operand made by a fill (`TEXPANDS`,
//! which fills Vec and Mat tiles only).

use pto::prelude::*;

/// `out = a[:, 32..64] @ b`: the left operand is the right half of a loaded `16 x 64` tile.
#[pto::kernel]
pub fn extract_left(
    a: &Tensor<f32, M, 64>,
    b: &Tensor<f32, 32, N>,
    #[out] out: &mut Tensor<f32, M, N>,
) {
    for i in (0..M).step_by(16) {
        for j in (0..N).step_by(16) {
            let t = a.load::<16, 64>([i, 0]);
            out.store(
                [i, j],
                matmul(t.extract::<16, 32>([0, 32]), b.load::<32, 16>([0, j])),
            );
        }
    }
}

/// `out = a @ w[32..64, :]`: the right operand is the lower half of a loaded `64 x 16` tile.
#[pto::kernel]
pub fn extract_right(
    a: &Tensor<f32, M, 32>,
    w: &Tensor<f32, 64, N>,
    #[out] out: &mut Tensor<f32, M, N>,
) {
    for i in (0..M).step_by(16) {
        for j in (0..N).step_by(16) {
            let b = w.load::<64, 16>([0, j]);
            out.store(
                [i, j],
                matmul(a.load::<16, 32>([i, 0]), b.extract::<32, 16>([32, 0])),
            );
        }
    }
}

/// `out = (a * s)[:, 0..32] @ b`: the source of the extract is a vector result.
#[pto::kernel]
pub fn extract_scaled(
    a: &Tensor<f32, M, 64>,
    b: &Tensor<f32, 32, N>,
    s: f32,
    #[out] out: &mut Tensor<f32, M, N>,
) {
    for i in (0..M).step_by(16) {
        for j in (0..N).step_by(16) {
            let t = a.load::<16, 64>([i, 0]) * s;
            out.store(
                [i, j],
                matmul(t.extract::<16, 32>([0, 0]), b.load::<32, 16>([0, j])),
            );
        }
    }
}

/// `out = (a @ b)[:, 16..48] @ c`: the source of the extract is a matmul result.
#[pto::kernel]
pub fn extract_product(
    a: &Tensor<f32, M, 32>,
    b: &Tensor<f32, 32, 64>,
    c: &Tensor<f32, 32, N>,
    #[out] out: &mut Tensor<f32, M, N>,
) {
    for i in (0..M).step_by(16) {
        for j in (0..N).step_by(16) {
            let h = matmul(a.load::<16, 32>([i, 0]), b.load::<32, 64>([0, 0]));
            out.store(
                [i, j],
                matmul(h.extract::<16, 32>([0, 16]), c.load::<32, 16>([0, j])),
            );
        }
    }
}

/// `out = a[:, 0..32] @ b`, `rows = row sums of a`: one loaded tile feeds an extract into
/// the cube and a vector reduction.
#[pto::kernel]
pub fn extract_and_reduce(
    a: &Tensor<f32, M, 64>,
    b: &Tensor<f32, 32, 16>,
    #[out] out: &mut Tensor<f32, M, 16>,
    #[out] rows: &mut Tensor<f32, M, 1>,
) {
    for i in (0..M).step_by(16) {
        let t = a.load::<16, 64>([i, 0]);
        rows.store([i, 0], t.row_sum());
        out.store(
            [i, 0],
            matmul(t.extract::<16, 32>([0, 0]), b.load::<32, 16>([0, 0])),
        );
    }
}

/// `out[0..16, :] = full(0.5) @ b`: the left operand is a filled tile.
#[pto::kernel]
pub fn filled_left(b: &Tensor<f32, 32, N>, #[out] out: &mut Tensor<f32, 16, N>) {
    for j in (0..N).step_by(16) {
        let a = Tile::<f32, 16, 32>::full(0.5);
        out.store([0, j], matmul(a, b.load::<32, 16>([0, j])));
    }
}
