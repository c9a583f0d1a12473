use pto::prelude::*;

#[pto::kernel]
fn k(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 64>) {
    let t = x.load::<16, 64>([0, 0]);
    y.store([0, 0], t.valid([32, 64]));
}

fn main() {}
