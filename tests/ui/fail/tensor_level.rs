use pto::prelude::*;

#[pto::kernel]
fn k(a: &Tensor<f32, 16, 64>, b: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 64>) {
    let s = a + b;
    let v = a.view([8, 64], [0, 0]);
}

fn main() {}
