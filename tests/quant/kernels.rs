//! Quantising stores (issue 16: an `f32` / `i32` matmul accumulator stored into an `i8`,
//! `u8` or `f16` tensor), shared by `tests/quant_store.rs` (against plain Rust and the
//! interpreter) and `tests/cpp_model.rs` (their C++ in the pto-isa model against the host
//! functions). The `i8` kernels take 32-column tiles of `b`: pto-isa's `int8` Mat tile is boxed in
//! 16 x 32 fractals, so its columns are a multiple of 32.

use pto::prelude::*;

/// `c = a @ b` of `i8` inputs accumulated in `i32`, stored into an `i8` tensor and a `u8`
/// tensor: each element rounds and saturates (scale 1.0).
#[pto::kernel]
pub fn matmul_i8(
    a: &Tensor<i8, M, K>,
    b: &Tensor<i8, K, N>,
    #[out] c: &mut Tensor<i8, M, N>,
    #[out] u: &mut Tensor<u8, M, N>,
) {
    for i in (0..M).step_by(16) {
        for j in (0..N).step_by(32) {
            let mut acc = matmul(a.load::<16, 32>([i, 0]), b.load::<32, 32>([0, j]));
            for k in (32..K).step_by(32) {
                acc = matmul_acc(acc, a.load::<16, 32>([i, k]), b.load::<32, 32>([k, j]));
            }
            c.store([i, j], acc);
            u.store([i, j], acc);
        }
    }
}

/// `c = a @ b` of `f32` inputs, the `f32` accumulator stored into an `i8` tensor.
#[pto::kernel]
pub fn matmul_f32_to_i8(
    a: &Tensor<f32, M, K>,
    b: &Tensor<f32, K, N>,
    #[out] c: &mut Tensor<i8, M, N>,
) {
    for i in (0..M).step_by(16) {
        for j in (0..N).step_by(16) {
            let mut acc = matmul(a.load::<16, 32>([i, 0]), b.load::<32, 16>([0, j]));
            for k in (32..K).step_by(32) {
                acc = matmul_acc(acc, a.load::<16, 32>([i, k]), b.load::<32, 16>([k, j]));
            }
            c.store([i, j], acc);
        }
    }
}

/// `c = a @ b` of `i8` inputs, the `i32` accumulator stored into an `f16` tensor (saturating
/// at +-65504, rounding to nearest even).
#[pto::kernel]
pub fn matmul_i8_to_f16(
    a: &Tensor<i8, M, K>,
    b: &Tensor<i8, K, N>,
    #[out] c: &mut Tensor<f16, M, N>,
) {
    for i in (0..M).step_by(16) {
        for j in (0..N).step_by(32) {
            let mut acc = matmul(a.load::<16, 32>([i, 0]), b.load::<32, 32>([0, j]));
            for k in (32..K).step_by(32) {
                acc = matmul_acc(acc, a.load::<16, 32>([i, k]), b.load::<32, 32>([k, j]));
            }
            c.store([i, j], acc);
        }
    }
}

/// Split-K into an `i8` tensor: each 32-wide K chunk's `i32` product is quantised and added
/// into `c` with `store_add` (the add wraps in `i8`, as pto-isa's atomic add does).
#[pto::kernel]
pub fn splitk_i8(a: &Tensor<i8, M, K>, b: &Tensor<i8, K, N>, c: &mut Tensor<i8, M, N>) {
    for i in (0..M).step_by(16) {
        for j in (0..N).step_by(32) {
            for k in (0..K).step_by(32) {
                c.store_add(
                    [i, j],
                    matmul(a.load::<16, 32>([i, k]), b.load::<32, 32>([k, j])),
                );
            }
        }
    }
}
