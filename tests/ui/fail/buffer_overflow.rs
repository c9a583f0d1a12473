use pto::prelude::*;

// Each tile fits the 192 KiB unified buffer, but four 64 KiB tiles live at once do not.
#[pto::kernel]
fn too_many_live_tiles(x: &Tensor<f32, 512, 128>, #[out] y: &mut Tensor<f32, 128, 128>) {
    let a = x.load::<128, 128>([0, 0]);
    let b = x.load::<128, 128>([128, 0]);
    let c = x.load::<128, 128>([256, 0]);
    let d = x.load::<128, 128>([384, 0]);
    y.store([0, 0], a + b + c + d);
}

fn main() {}
