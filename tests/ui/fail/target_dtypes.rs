// Element types the target's instructions do not take (pto-isa's headers; the table in
// `pto-ir/src/ops/dtypes.rs`): fp64 tile arithmetic (no instruction takes `double`),
// integer `floor_mod` (A2A3's TREM goes through fp32 and overwrites its divisor tile, A5's
// truncates), integer `/` on A2A3 (its TDIV takes fp16 and fp32), and a conversion
// A2A3's TCVT lacks (int32 to int8: two steps through fp16), each a compile error at the
// op naming the instruction, the target and what it takes. Moving fp64 data compiles, and
// so does integer `/` on A5.
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

#[pto::kernel]
fn int_div(x: &Tensor<i32, 8, 16>, #[out] y: &mut Tensor<i32, 8, 16>) {
    let t = x.load::<8, 16>([0, 0]);
    y.store([0, 0], t / t);
}

#[pto::kernel(arch = "A5")]
fn int_div_a5(x: &Tensor<i32, 8, 16>, #[out] y: &mut Tensor<i32, 8, 16>) {
    let t = x.load::<8, 16>([0, 0]);
    y.store([0, 0], t / t);
}

#[pto::kernel]
fn narrow(x: &Tensor<i32, 8, 32>, #[out] y: &mut Tensor<i8, 8, 32>) {
    let t = x.load::<8, 32>([0, 0]);
    y.store([0, 0], t.cast::<i8>());
}

fn main() {}
