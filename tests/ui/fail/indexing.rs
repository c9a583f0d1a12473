use pto::prelude::*;

#[pto::kernel]
fn k(x: &Tensor<f32, 16, 64>) -> f32 {
    x[0]
}

fn main() {}
