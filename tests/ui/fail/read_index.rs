use pto::prelude::*;

// A tile-sized read: `read` takes one index per dimension and nothing else.
#[pto::kernel]
fn sized(x: &Tensor<f32, 16, 16>, y: &mut Tensor<f32, 16, 16>) {
    let v = x.read([0, 0], 3);
    y.write([0, 0], v);
}

// Three indices for a rank-2 tensor.
#[pto::kernel]
fn rank(x: &Tensor<f32, 16, 16>, y: &mut Tensor<f32, 16, 16>) {
    let v = x.read([0, 1, 2]);
    y.write([0, 0], v);
}

// A constant index past a static extent, and a write into a read-only tensor.
#[pto::kernel]
fn outside(x: &Tensor<f32, 16, 16>) {
    let v = x.read([16, 0]);
    x.write([0, 0], 1.0);
}

fn main() {}
