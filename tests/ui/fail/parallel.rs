use pto::prelude::*;

#[pto::kernel]
fn k(x: &Tensor<f32, B, 64>, #[out] y: &mut Tensor<f32, B, 64>) {
    for b in parallel(0..B) {
        y.store([b, 0], x.load::<1, 64>([b, 0]));
    }
}

fn main() {}
