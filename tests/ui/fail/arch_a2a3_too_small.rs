use pto::prelude::*;

// The same kernel as tests/ui/pass/arch_a5.rs on the default target (A2A3, 192 KiB of UB).
#[pto::kernel]
pub fn big_tile(x: &Tensor<f32, 256, 200>, #[out] y: &mut Tensor<f32, 256, 200>) {
    let t = x.load::<256, 200>([0, 0]);
    y.store([0, 0], t * 2.0);
}

fn main() {}
