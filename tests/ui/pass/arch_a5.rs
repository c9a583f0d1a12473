use pto::prelude::*;

/// A 200 KiB tile: too big for the A2A3 unified buffer (192 KiB), fine on A5 (256 KiB).
#[pto::kernel(arch = "A5")]
pub fn big_tile(x: &Tensor<f32, 256, 200>, #[out] y: &mut Tensor<f32, 256, 200>) {
    let t = x.load::<256, 200>([0, 0]);
    y.store([0, 0], t * 2.0);
}

fn main() {
    assert!(big_tile::IR.contains("attr arch = \"A5\""));
    let x = pto::Tensor::<f32>::from_vec(vec![1.5; 256 * 200], [256, 200]).unwrap();
    let mut y = pto::Tensor::<f32>::zeros([256, 200]);
    big_tile(&x, &mut y).unwrap();
    assert!(y.as_slice().iter().all(|&v| v == 3.0));
}
