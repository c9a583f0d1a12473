// An int8 matmul operand of 16 columns: pto-isa keeps it in 16 x 32 fractals, so the verifier
// refuses it at the matmul (its C++ would not compile for the NPU); 32 columns compile.
use pto::prelude::*;

#[pto::kernel]
fn narrow_int8(a: &Tensor<i8, 16, 16>, b: &Tensor<i8, 16, 32>, c: &mut Tensor<i32, 16, 32>) {
    c.store([0, 0], matmul(a.load::<16, 16>([0, 0]), b.load::<16, 32>([0, 0])));
}

#[pto::kernel]
fn wide_int8(a: &Tensor<i8, 16, 32>, b: &Tensor<i8, 32, 32>, c: &mut Tensor<i32, 16, 32>) {
    c.store([0, 0], matmul(a.load::<16, 32>([0, 0]), b.load::<32, 32>([0, 0])));
}

fn main() {}
