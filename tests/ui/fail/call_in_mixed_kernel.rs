use pto::prelude::*;

// A kernel with cube and vector work that calls another kernel: on A2A3 (the default
// target) the cube and vector units are separate cores and the callee's work is not split
// between them, so the call has no route: refused at the call, naming A2A3 and A5.
#[pto::program]
mod calls {
    #[pto::kernel]
    pub fn scale(x: &Tensor<f32, 16, 32>, out: &mut Tensor<f32, 16, 32>) {
        out.store([0, 0], x.load::<16, 32>([0, 0]) * 2.0);
    }

    #[pto::kernel]
    #[entry]
    pub fn main(a: &Tensor<f32, 16, 32>, b: &Tensor<f32, 32, 32>, c: &mut Tensor<f32, 16, 32>) {
        let h = matmul(a.load::<16, 32>([0, 0]), b.load::<32, 32>([0, 0])).relu();
        c.store([0, 0], h);
        scale(a, c);
    }
}

fn main() {}
