use pto::prelude::*;

/// Sum of the rows of a tensor: a loop-carried tile accumulator.
#[pto::kernel]
pub fn accumulate(x: &Tensor<f32, B, 64>, #[out] out: &mut Tensor<f32, 1, 64>) {
    let mut acc = Tile::<f32, 1, 64>::zeros();
    for b in 0..B {
        acc += x.load::<1, 64>([b, 0]);
    }
    out.store([0, 0], acc);
}
