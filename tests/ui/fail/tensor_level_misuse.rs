use pto::prelude::*;

// Tensor-level forms used wrongly: sizes that are not literals, an assemble into a read-only
// parameter, an assemble of a tile, a method of no tensor-level op.
#[pto::kernel(control_flow)]
fn k(a: &Tensor<f32, 16, 64>, n: i64, #[out] y: &mut Tensor<f32, 16, 64>) {
    let v = a.view([n, 64], [0, 0]);
    a.assemble(a.view([8, 64], [0, 0]), [0, 0]);
    let t = a.load::<8, 64>([0, 0]);
    y.assemble(t, [0, 0]);
    y.assemble(a % 2.0, [0, 0]);
}

fn main() {}
