use pto::prelude::*;

// An f32 accumulator into an i8 tensor is a quantising store, which needs a scale.
#[pto::kernel]
fn to_i8(a: &Tensor<f32, 16, 16>, b: &Tensor<f32, 16, 16>, c: &mut Tensor<i8, 16, 16>) {
    let acc = matmul(a.load::<16, 16>([0, 0]), b.load::<16, 16>([0, 0]));
    c.store([0, 0], acc);
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
