use pto::prelude::*;

// pto-isa has no store from an int32 accumulator into bf16 (A2A3 quantises int32 into
// int8 / uint8 / fp16 only).
#[pto::kernel]
fn to_bf16(a: &Tensor<i8, 16, 32>, b: &Tensor<i8, 32, 32>, c: &mut Tensor<bf16, 16, 32>) {
    let acc = matmul(a.load::<16, 32>([0, 0]), b.load::<32, 32>([0, 0]));
    c.store([0, 0], acc);
}

// A vector tile is not quantised on the way out: only a matmul accumulator is.
#[pto::kernel]
fn vec_to_i8(x: &Tensor<f32, 16, 16>, c: &mut Tensor<i8, 16, 16>) {
    c.store([0, 0], x.load::<16, 16>([0, 0]));
}

// A vector tile never converts on the way out.
#[pto::kernel]
fn vec_to_f16(x: &Tensor<f32, 16, 16>, c: &mut Tensor<f16, 16, 16>) {
    let t = x.load::<16, 16>([0, 0]);
    c.store([0, 0], t * 2.0);
}

// The atomic add has no f64 form.
#[pto::kernel]
fn add_f64(x: &Tensor<f64, 16, 16>, c: &mut Tensor<f64, 16, 16>) {
    c.store_add([0, 0], x.load::<16, 16>([0, 0]));
}

fn main() {}
