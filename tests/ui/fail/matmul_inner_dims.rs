use pto::prelude::*;

#[pto::kernel]
fn k(a: &Tensor<f16, 16, 32>, b: &Tensor<f16, 64, 16>, #[out] c: &mut Tensor<f32, 16, 16>) {
    let at = a.load::<16, 32>([0, 0]);
    let bt = b.load::<64, 16>([0, 0]);
    c.store([0, 0], matmul(at, bt));
}

fn main() {}
