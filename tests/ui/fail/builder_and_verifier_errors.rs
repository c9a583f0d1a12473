use pto::prelude::*;

// A builder error (an unknown method) and a verifier error (a tile larger than the default
// target's unified buffer) in one kernel: both are reported.
#[pto::kernel]
pub fn k(x: &Tensor<f32, 256, 200>, #[out] y: &mut Tensor<f32, 256, 200>) {
    let big = x.load::<256, 200>([0, 0]);
    y.store([0, 0], big * 2.0);
    let t = x.load::<16, 64>([0, 0]);
    y.store([0, 0], t.tanh());
}

fn main() {}
