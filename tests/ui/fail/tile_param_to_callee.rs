use pto::prelude::*;

// A tile parameter is global memory the kernel loads at entry; passing it on to another
// function of the program has no lowering yet, so the call is refused at its tokens.
#[pto::program]
mod calls {
    #[pto::kernel]
    pub fn add(x: &Tensor<f32, 16, 16>, b: &Tile<f32, 16, 16>, out: &mut Tensor<f32, 16, 16>) {
        out.store([0, 0], x.load::<16, 16>([0, 0]) + b);
    }

    #[pto::kernel]
    #[entry]
    pub fn main(x: &Tensor<f32, 16, 16>, b: &Tile<f32, 16, 16>, out: &mut Tensor<f32, 16, 16>) {
        add(x, b, out);
    }
}

fn main() {}
