use pto::prelude::*;

// 188 KiB of tiles fit A2A3's 192 KiB unified buffer, but a row broadcast (`s - r`,
// TROWEXPANDSUB) writes pto-isa's 8 KiB temporary at the fixed address 184 KiB.
#[pto::kernel]
fn broadcast_over_the_temporary(
    a: &Tensor<f32, 94, 256>,
    b: &Tensor<f32, 94, 256>,
    c: &Tensor<f32, 94, 1>,
    #[out] y: &mut Tensor<f32, 94, 256>,
) {
    let s = a.load::<94, 256>([0, 0]) + b.load::<94, 256>([0, 0]);
    let r = c.load::<94, 1>([0, 0]);
    y.store([0, 0], s - r);
}

fn main() {}
