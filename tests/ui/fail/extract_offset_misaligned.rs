// A matmul operand cut out of a bigger tile at an offset off pto-isa's fractal blocks: on
// A2A3 `TEXTRACT` into Right needs fp32 offsets in multiples of 16 (A5 takes 8 columns), and
// a loop variable stepping by 4 is not provably a multiple of 8 for Left. The aligned
// kernel below compiles, its loop variable stepping by 16.
use pto::prelude::*;

#[pto::kernel]
fn misaligned(a: &Tensor<f32, 16, 64>, w: &Tensor<f32, 32, 64>, out: &mut Tensor<f32, 16, 16>) {
    let b = w.load::<32, 64>([0, 0]);
    out.store([0, 0], matmul(a.load::<16, 32>([0, 0]), b.extract::<32, 16>([0, 8])));
    for k in (0..32).step_by(4) {
        let t = a.load::<16, 64>([0, 0]);
        out.store([0, 0], matmul(t.extract::<16, 32>([0, k]), b.extract::<32, 16>([0, 0])));
    }
}

#[pto::kernel]
fn aligned(a: &Tensor<f32, 16, 64>, w: &Tensor<f32, 32, 64>, out: &mut Tensor<f32, 16, 16>) {
    let b = w.load::<32, 64>([0, 0]);
    for k in (0..32).step_by(16) {
        let t = a.load::<16, 64>([0, 0]);
        out.store([0, 0], matmul(t.extract::<16, 32>([0, k]), b.extract::<32, 16>([0, k])));
    }
}

fn main() {}
