// Element types no target computes on: fp64 tile arithmetic (no pto-isa instruction takes
// `double`) and integer `floor_mod` (A2A3's TREM goes through fp32 and overwrites its
// divisor tile, A5's truncates), each a compile error at the op on the default target and
// with `arch = "A5"`. Moving fp64 data compiles.
use pto::prelude::*;

#[pto::kernel]
fn fine_f64(x: &Tensor<f64, 16, 16>, #[out] y: &mut Tensor<f64, 16, 16>) {
    let t = x.load::<16, 16>([0, 0]);
    y.store([0, 0], (t + 1.0e-9) * t);
}

#[pto::kernel(arch = "A5")]
fn fine_f64_a5(x: &Tensor<f64, 16, 16>, #[out] y: &mut Tensor<f64, 16, 16>) {
    let t = x.load::<16, 16>([0, 0]);
    y.store([0, 0], t.exp());
}

#[pto::kernel]
fn int_floor_mod(x: &Tensor<i32, 8, 16>, #[out] y: &mut Tensor<i32, 8, 16>) {
    let t = x.load::<8, 16>([0, 0]);
    y.store([0, 0], t.floor_mod(3));
}

#[pto::kernel(arch = "A5")]
fn int_floor_mod_a5(x: &Tensor<i32, 8, 16>, #[out] y: &mut Tensor<i32, 8, 16>) {
    let t = x.load::<8, 16>([0, 0]);
    y.store([0, 0], t.floor_mod(3));
}

#[pto::kernel]
fn copy_f64(x: &Tensor<f64, 16, 16>, #[out] y: &mut Tensor<f64, 16, 16>) {
    y.store([0, 0], x.load::<16, 16>([0, 0]));
}

fn main() {}
