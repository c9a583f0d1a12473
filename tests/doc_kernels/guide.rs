//! The kernels of `docs/guide.md` that live nowhere else, copied verbatim (the guide is not
//! compiled; `tests/doc_kernels.rs` checks each copy still appears in it word for word).

use pto::prelude::*;

#[pto::kernel]
pub fn r3(x: &Tensor<f32, B, 4, 32>, #[out] y: &mut Tensor<f32, B, 4, 32>) {
    for b in 0..B {
        let t = x.load::<1, 4, 32>([b, 0, 0]);
        y.store([b, 0, 0], t + 1.0);
    }
}

#[pto::kernel]
pub fn tile_param(t: &Tile<f32, 8, 16>, #[out] y: &mut Tensor<f32, 8, 16>) {
    y.store([0, 0], t.exp());
}

#[pto::kernel]
pub fn edge(x: &Tensor<f32, R, C>, #[out] out: &mut Tensor<f32, R, C>) {
    for r in (0..R).step_by(16) {
        for c in (0..C).step_by(64) {
            let t = x.load::<16, 64>([r, c]);
            out.store([r, c], t * 2.0);
        }
    }
}

#[pto::kernel]
pub fn head(x: &Tensor<f32, 16, 64>, m: i64, #[out] y: &mut Tensor<f32, 16, 64>) {
    let t = x.load::<16, 64>([0, 0]);
    y.store([0, 0], t.valid([m, 64]) * 2.0);
}

#[pto::kernel]
pub fn count_up(n: i64, limit: i64) -> i64 {
    let mut i = 0;
    let mut total = 0;
    while i < n {
        i += 1;
        if i % 2 == 0 {
            continue;
        }
        if total > limit {
            break;
        }
        total += i;
    }
    total
}
