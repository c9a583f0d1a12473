use pto::prelude::*;

// An assemble that reads its own destination at an overlapping window: tile by tile it would
// read rows it has just written.
#[pto::program(tile_default(M = 8, N = 32, K = 16))]
mod p {
    #[pto::kernel(data_flow)]
    #[entry]
    pub fn shift(y: &mut Tensor<f32, 16, 64>) {
        y.assemble(y.view([12, 64], [4, 0]) * 2.0, [0, 0]);
    }
}

fn main() {}
