use pto::prelude::*;

#[pto::kernel]
fn k(x: &Tensor<f32, 16, 64>) -> Tile<f32, 16, 64> {
    x.load::<16, 64>([0, 0])
}

fn main() {}
