use pto::prelude::*;

#[pto::kernel]
fn k(x: &Tensor<f32, 16, 64>) {
    let t = x.load::<16, 64>([0, 0]);
    return t;
}

fn main() {}
