use pto::prelude::*;

// The pad is part of the tile type in pto-isa: a run-time value is refused.
#[pto::kernel]
fn runtime_pad(x: &Tensor<f32, R, C>, v: f32, y: &mut Tensor<f32, R, C>) {
    y.store([0, 0], x.load_or::<16, 64>([0, 0], v));
}

// An i32 tile pads with 0, i32::MAX or i32::MIN only.
#[pto::kernel]
fn int_pad(x: &Tensor<i32, R, C>, y: &mut Tensor<i32, R, C>) {
    y.store([0, 0], x.load_or::<16, 64>([0, 0], 7));
}

fn main() {}
