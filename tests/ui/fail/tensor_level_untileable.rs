use pto::prelude::*;

// Tensor-level code the tiling pass refuses, with the reason: a view read after its tensor
// is written, and an assemble that reads its destination at another window.
#[pto::program(tile_default(M = 8, N = 32, K = 16))]
mod p {
    #[pto::kernel(data_flow)]
    #[entry]
    pub fn k(a: &Tensor<f32, 16, 64>, y: &mut Tensor<f32, 16, 64>) {
        let before = y.view([8, 64], [0, 0]);
        y.assemble(a.view([8, 64], [0, 0]), [0, 0]);
        y.assemble(before, [8, 0]);
    }

    #[pto::kernel(data_flow)]
    pub fn shift(y: &mut Tensor<f32, 16, 64>) {
        y.assemble(y.view([8, 64], [8, 0]) * 2.0, [0, 0]);
    }
}

fn main() {}
