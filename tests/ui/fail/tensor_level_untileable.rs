use pto::prelude::*;

// Tensor-level code the tiling pass refuses, with the reason: a view taken before its tensor
// is written and assembled after the write.
#[pto::program(tile_default(M = 8, N = 32, K = 16))]
mod p {
    #[pto::kernel(data_flow)]
    #[entry]
    pub fn k(a: &Tensor<f32, 16, 64>, y: &mut Tensor<f32, 16, 64>) {
        let before = y.view([8, 64], [0, 0]);
        y.assemble(a.view([8, 64], [0, 0]), [0, 0]);
        y.assemble(before, [8, 0]);
    }
}

fn main() {}
