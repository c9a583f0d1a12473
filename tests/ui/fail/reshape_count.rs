use pto::prelude::*;

#[pto::kernel]
fn k(x: &Tensor<f32, 16, 64>, y: &mut Tensor<f32, 16, 32>) {
    let t = x.load::<16, 64>([0, 0]);
    y.store([0, 0], t.reshape::<16, 32>());
}

// An edge tile (valid region known only at run time) is not reshaped.
#[pto::kernel]
fn edge(x: &Tensor<f32, R, C>, y: &mut Tensor<f32, 32, 32>) {
    y.store([0, 0], x.load::<16, 64>([0, 0]).reshape::<32, 32>());
}

fn main() {}
