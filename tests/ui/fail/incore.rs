use pto::prelude::*;

#[pto::kernel]
fn k(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 64>) {
    incore! {
        y.store([0, 0], x.load::<16, 64>([0, 0]));
    }
}

fn main() {}
