use pto::prelude::*;

// `row_argmax` / `row_argmin` take a numeric tile and give an `R x 1` tile of `i32` indices.
#[pto::kernel]
pub fn argmax_of_mask(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<i32, 16, 1>) {
    let t = x.load::<16, 64>([0, 0]);
    y.store([0, 0], t.gt(0.0).row_argmax());
}

#[pto::kernel]
pub fn argmax_stored_as_f32(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 1>) {
    let t = x.load::<16, 64>([0, 0]);
    y.store([0, 0], t.row_argmin());
}

#[pto::kernel]
pub fn argmax_as_full_tile(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 64>) {
    let t = x.load::<16, 64>([0, 0]);
    y.store([0, 0], t - t.row_argmax());
}

#[pto::kernel]
pub fn argmax_with_an_argument(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<i32, 16, 1>) {
    let t = x.load::<16, 64>([0, 0]);
    y.store([0, 0], t.row_argmax(1));
}

fn main() {}
