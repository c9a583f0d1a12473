use pto::prelude::*;

#[pto::kernel]
fn k(x: &Tensor<f32, 16, 64>, n: i64, #[out] y: &mut Tensor<f32, 16, 64>) {
    let t = x.load::<16, 64>([0, 0]);
    let u = t + x.load::<8, 64>([0, 0]);
    let w = u.exp();
    for i in 0..n {
        let z = t * undefined;
    }
    y.store([0, 0], t.frobnicate());
}

fn main() {
    // The stub keeps the signature, so this call adds no error.
    let x = pto::Tensor::<f32>::zeros([16, 64]);
    let mut y = pto::Tensor::<f32>::zeros([16, 64]);
    let _ = k(&x, 4, &mut y);
}
