use pto::prelude::*;

/// One tile of C = A @ B with f16 inputs.
#[pto::kernel]
pub fn matmul_tile(
    a: &Tensor<f16, 16, 32>,
    b: &Tensor<f16, 32, 16>,
    #[out] c: &mut Tensor<f32, 16, 16>,
) {
    let at = a.load::<16, 32>([0, 0]);
    let bt = b.load::<32, 16>([0, 0]);
    c.store([0, 0], matmul(at, bt));
}
