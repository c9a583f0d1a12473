use pto::prelude::*;

// A vector result fed to a matmul needs a move from a Vec tile to a Left tile, which no
// target has: refused at the matmul, naming the target.
#[pto::kernel]
fn k(a: &Tensor<f32, 32, 32>, b: &Tensor<f32, 32, 32>, #[out] c: &mut Tensor<f32, 32, 32>) {
    let at = a.load::<32, 32>([0, 0]);
    let e = at.exp();
    let bt = b.load::<32, 32>([0, 0]);
    c.store([0, 0], matmul(e, bt));
}

fn main() {}
