use pto::prelude::*;

#[pto::kernel]
fn k(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 8, 32>) {
    let t = x.load::<16, 64>([0, 0]);
    let s = t.extract::<8, 32>([12, 0]);
    y.store([0, 0], s);
}

fn main() {}
