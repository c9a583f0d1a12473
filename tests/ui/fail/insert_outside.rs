use pto::prelude::*;

#[pto::kernel]
fn k(x: &Tensor<f32, 16, 16>, y: &mut Tensor<f32, 16, 16>) {
    let big = Tile::<f32, 16, 16>::zeros();
    let small = x.load::<8, 8>([0, 0]);
    y.store([0, 0], big.insert([12, 0], small));
}

fn main() {}
