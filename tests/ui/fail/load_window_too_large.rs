use pto::prelude::*;

#[pto::kernel]
fn k(x: &Tensor<f32, 16, 128>, #[out] y: &mut Tensor<f32, 16, 128>) {
    let t = x.load::<32, 128>([0, 0]);
    y.store([0, 0], t);
}

fn main() {}
