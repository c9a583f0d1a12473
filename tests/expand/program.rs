use pto::prelude::*;

#[pto::program(tile_default(M = 1, N = 16, K = 16))]
pub mod doubled {
    /// The row count and its half.
    #[pto::kernel]
    pub fn rows(x: &Tensor<f32, R, 16>) -> (i64, f32) {
        (R, R as f32 * 0.5)
    }

    #[pto::kernel]
    #[entry]
    pub fn run(x: &Tensor<f32, R, 16>, y: &mut Tensor<f32, R, 16>) -> f32 {
        let (n, h) = rows(x);
        incore! {
            for r in 0..n {
                y.store([r, 0], x.load::<1, 16>([r, 0]) * 2.0);
            }
        }
        h
    }
}

fn main() {}
