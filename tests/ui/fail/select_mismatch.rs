use pto::prelude::*;

// `m.select(a, b)`: a mask, then alternatives of the mask's shape and one dtype.
#[pto::kernel]
pub fn select_shapes(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 64>) {
    let t = x.load::<16, 64>([0, 0]);
    let small = x.load::<16, 32>([0, 0]);
    y.store([0, 0], t.gt(0.0).select(t, small));
}

#[pto::kernel]
pub fn select_mask_shape(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 32>) {
    let t = x.load::<16, 64>([0, 0]);
    let small = x.load::<16, 32>([0, 0]);
    y.store([0, 0], t.gt(0.0).select(small, 0.0));
}

#[pto::kernel]
pub fn select_dtypes(x: &Tensor<f32, 16, 64>, i: &Tensor<i32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 64>) {
    let t = x.load::<16, 64>([0, 0]);
    y.store([0, 0], t.gt(0.0).select(t, i.load::<16, 64>([0, 0])));
}

#[pto::kernel]
pub fn select_not_a_mask(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 64>) {
    let t = x.load::<16, 64>([0, 0]);
    y.store([0, 0], t.select(t, 0.0));
}

#[pto::kernel]
pub fn compare_shapes(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 64>) {
    let t = x.load::<16, 64>([0, 0]);
    let r = t.row_max();
    y.store([0, 0], t.gt(r).select(t, 0.0));
}

fn main() {}
