use pto::prelude::*;

/// out[b, :] = x[b, :] * scale * 3.14.
#[pto::kernel]
pub fn scale_rows(x: &Tensor<f32, B, 128>, scale: f32, out: &mut Tensor<f32, B, 128>) {
    for b in 0..B {
        let row = x.load::<1, 128>([b, 0]);
        let y = row * scale * 3.14;
        out.store([b, 0], y);
    }
}
