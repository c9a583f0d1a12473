use pto::prelude::*;

#[pto::program(arch = "PTOv2", tile_default(M = 16, N = 16, K = 16), name = "p", scale = 0.5, on = true, n = -3)]
pub mod p {
    #[pto::kernel]
    pub fn half(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 64>) -> (i64, f32) {
        incore! {
            y.store([0, 0], x.load::<16, 64>([0, 0]) * 0.5);
        }
        (16, 0.5)
    }

    #[pto::kernel(control_flow)]
    #[entry]
    pub fn main(x: &Tensor<f32, 16, 64>, y: &mut Tensor<f32, 16, 64>) -> f32 {
        let (n, s) = half(x, y);
        n as f32 * s
    }
}

/// A single kernel may hold an `incore!` region too: it runs in line.
#[pto::kernel]
pub fn alone(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 64>) {
    incore! {
        y.store([0, 0], x.load::<16, 64>([0, 0]));
    }
}

fn main() {
    let x = pto::Tensor::<f32>::zeros([16, 64]);
    let mut y = pto::Tensor::<f32>::zeros([16, 64]);
    let r: f32 = p::main(&x, &mut y).unwrap();
    assert_eq!(r, 8.0);
    alone(&x, &mut y).unwrap();
    assert!(p::IR.contains("attr n = -3"));
}
