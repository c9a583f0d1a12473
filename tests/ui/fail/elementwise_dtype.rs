use pto::prelude::*;

#[pto::kernel]
fn k(a: &Tensor<f32, 16, 64>, b: &Tensor<f16, 16, 64>, #[out] c: &mut Tensor<f32, 16, 64>) {
    let x = a.load::<16, 64>([0, 0]);
    let y = b.load::<16, 64>([0, 0]);
    c.store([0, 0], x * y);
}

fn main() {}
