use pto::prelude::*;

// A mask (`Tile<bool, R, C>`, a comparison's result) is not a number.
#[pto::kernel]
pub fn mask_plus(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 64>) {
    let t = x.load::<16, 64>([0, 0]);
    let m = t.gt(0.0);
    y.store([0, 0], m + 1.0);
}

#[pto::kernel]
pub fn mask_exp(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 64>) {
    let t = x.load::<16, 64>([0, 0]);
    y.store([0, 0], t.lt(t).exp());
}

#[pto::kernel]
pub fn mask_stored(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 64>) {
    let t = x.load::<16, 64>([0, 0]);
    y.store([0, 0], t.eq(1.0));
}

#[pto::kernel]
pub fn mask_matmul(x: &Tensor<f16, 16, 16>, #[out] y: &mut Tensor<f32, 16, 16>) {
    let t = x.load::<16, 16>([0, 0]);
    let m: Tile<bool, 16, 16> = t.ge(t);
    y.store([0, 0], matmul(m, t));
}

#[pto::kernel]
pub fn mask_constructed(#[out] y: &mut Tensor<f32, 16, 64>) {
    let m = Tile::<bool, 16, 64>::zeros();
    y.store([0, 0], m.select(Tile::<f32, 16, 64>::zeros(), 1.0));
}

fn main() {}
