use pto::prelude::*;

#[pto::program]
mod p {
    #[pto::kernel]
    #[entry]
    fn k(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 64>) {
        incore! {
            let t = x.load::<16, 64>([0, 0]);
        }
        y.store([0, 0], t);
    }
}

#[pto::kernel]
fn bad_body(x: &Tensor<f32, 16, 64>) {
    incore! { fn f() {} + }
}

fn main() {}
