use pto::prelude::*;

#[pto::program]
mod calls {
    #[pto::kernel]
    pub fn scale(x: &Tensor<f32, N>, s: f32, out: &mut Tensor<f32, N>) {
        for i in (0..N).step_by(16) {
            out.store([i], x.load::<16>([i]) * s);
        }
    }

    #[pto::kernel]
    pub fn rows(x: &Tensor<f32, 4, 16>) -> i64 {
        4
    }

    #[pto::kernel]
    #[entry]
    pub fn main(x: &Tensor<f32, N>, y: &Tensor<f32, N>, out: &mut Tensor<f32, N>, k: i32) {
        scale(x, 2.0);
        scale(x, k, out);
        scale(x, 2.0, y);
        scale(out, 2.0, out);
        let n = rows(x);
        missing(x);
    }
}

fn main() {
    let x = pto::Tensor::<f32>::zeros([16]);
    let mut out = pto::Tensor::<f32>::zeros([16]);
    let _ = calls::main(&x, &x, &mut out, 1);
}
