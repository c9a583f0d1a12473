use pto::prelude::*;

// A mask parameter is read only: `&mut` and `#[out]` masks are refused at the parameter.
#[pto::kernel]
pub fn mask_inout(x: &Tensor<f32, 16, 16>, m: &mut Tile<bool, 16, 16>, #[out] y: &mut Tensor<f32, 16, 16>) {
    let t = x.load::<16, 16>([0, 0]);
    y.store([0, 0], m.select(t, 0.0));
}

#[pto::kernel]
pub fn mask_out(x: &Tensor<f32, 16, 16>, #[out] m: &mut Tile<bool, 16, 16>) {
    let t = x.load::<16, 16>([0, 0]);
}

fn main() {}
