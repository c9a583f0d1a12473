use pto::prelude::*;

// Windows outside their tensor, with constant offsets: a view, and where `assemble` writes.
#[pto::kernel(data_flow)]
fn k(a: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 64>) {
    let v = a.view([8, 64], [12, 0]);
    let w = a.view([8, 64], [0, 0]);
    y.assemble(w, [10, 0]);
    y.assemble(a.view([16, 64], [0, 0]).exp(), [0, 1]);
}

fn main() {}
