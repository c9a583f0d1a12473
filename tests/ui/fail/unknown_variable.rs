use pto::prelude::*;

#[pto::kernel]
fn k(x: &Tensor<f32, B, 64>, #[out] y: &mut Tensor<f32, B, 64>) {
    let t = x.load::<1, 64>([0, 0]);
    y.store([0, 0], t + offset);
}

fn main() {}
