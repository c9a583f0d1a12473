use pto::prelude::*;

// A vector result used as a matmul's accumulator needs a move from a Vec tile to an Acc
// tile, which no target has (only the cube writes an Acc tile): refused at the matmul,
// naming the target. (A vector result fed to a matmul operand is routed through Mat.)
#[pto::kernel]
fn k(a: &Tensor<f32, 32, 32>, b: &Tensor<f32, 32, 32>, #[out] c: &mut Tensor<f32, 32, 32>) {
    let at = a.load::<32, 32>([0, 0]);
    let e = at.exp();
    let bt = b.load::<32, 32>([0, 0]);
    c.store([0, 0], matmul_acc(e, at, bt));
}

fn main() {}
