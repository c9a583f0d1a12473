use pto::prelude::*;

#[pto::kernel]
fn k(#[out] y: &mut Tensor<f32, 1024, 1024>) {
    let t = Tile::<f32, 1024, 1024>::zeros();
    y.store([0, 0], t);
}

fn main() {}
