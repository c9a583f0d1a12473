use pto::prelude::*;
/// Sum of the rows of a tensor: a loop-carried tile accumulator.
#[allow(clippy::all, clippy::pedantic)]
pub fn accumulate(
    x: &Tensor<f32>,
    out: &mut Tensor<f32>,
) -> ::core::result::Result<(), ::pto::Error> {
    use ::pto::{
        bind_shapes, isa::{texpands, tload, tadd_inplace, tstore},
        Tile,
    };
    let [b_1] = bind_shapes("x[B, 64] out[1, 64]", [x.shape(), out.shape()])?;
    let mut __pto_meter = ::pto::budget::Meter::start();
    let [t0_acc, t1] = &mut Tile::<f32, 1, 64>::zeros_n();
    t0_acc.set_valid(1, 64)?;
    texpands(t0_acc, 0f32);
    for b_7 in 0..b_1 {
        __pto_meter.tick()?;
        tload(t1, x, [b_7, 0])?;
        tadd_inplace(t0_acc, t1);
    }
    tstore(out, t0_acc, [0, 0])?;
    ::core::result::Result::Ok(())
}
///Compile-time artifacts of the `accumulate` kernel.
#[allow(dead_code)]
pub mod accumulate {
    /// The verified PTO-IR of the kernel (statement form).
    pub const IR: &str = r#"program.module @accumulate {
  program.entry @accumulate
  attr arch = "PTOv2"
  func.func @accumulate(%x_0: tensor<[%B_1, 64], fp32> #in, %out_2: tensor<[1, 64], fp32> #out) {
    statement.op {
      %3 = 0.0 : fp32
      %acc_4 = tile.full %3 : (fp32) -> tile<[1, 64], [1, 64], fp32> {shape=[1, 64], dtype=fp32}
      %5 = 0 : int64
      %6 = 1 : int64
    }
    %acc_12 = statement.for %b_7 = %5 to %B_1 step %6 iter_args(%acc_8 = %acc_4 : tile<[?, 64], [1, 64], fp32>) {
      statement.op {
        %10 = tile.load %x_0 : (tensor<[%B_1, 64], fp32>) -> tile<[?, 64], [1, 64], fp32> {shape=[1, 64], offset=[%b_7, 0]}
        %acc_11 = tile.add %acc_8, %10 : (tile<[?, 64], [1, 64], fp32>, tile<[?, 64], [1, 64], fp32>) -> tile<[?, 64], [1, 64], fp32>
      }
      statement.yield %acc_11
    }
    statement.op {
      tile.store %acc_12, %out_2 : (tile<[?, 64], [1, 64], fp32>, tensor<[1, 64], fp32>) -> () {offset=[0, 0]}
    }
  }
  // func.kind = kernel
}
"#;
    /// The IR after the lowering pipeline (seed-002 MLIR style).
    pub const LOWERED: &str = r#"// accumulate lowered for A2A3: canonicalize, canonicalize-views, tile-tensor-ops, legalize, infer-tile-info, insert-events, bufferize, lower-to-isa, fence, split-cores, fuse-chains, share-tiles
module attributes {pto.target = #pto.target<A2A3>} {
  func.func @accumulate(%x_0: pto.memref<?x64xf32, strided<[64, 1], offset: ?>>, %out_2: pto.memref<1x64xf32, strided<[64, 1], offset: ?>>) {
    %B_1 = pto.tensor.dim %x_0[0] : pto.memref<?x64xf32, strided<[64, 1], offset: ?>> -> i64
    %3 = pto.constant 0.0 : f32
    %acc_4 = pto.tile.full %3 {loc = #pto.loc<Vec>, layout = #pto.layout<ND>, valid = [1, 64], addr = 0, dtype = f32} : f32 -> tile<1x64xf32>
    %5 = pto.constant 0 : i64
    %6 = pto.constant 1 : i64
    %acc_12 = scf.for %b_7 = %5 to %B_1 step %6 iter_args(%acc_8 = %acc_4) -> (tile<1x64xf32>) : i64 {
      %10, %e0 = pto.tile.load %x_0[%b_7, 0] {loc = #pto.loc<Vec>, layout = #pto.layout<ND>, valid = [?, 64], addr = 256} : pto.memref<?x64xf32, strided<[64, 1], offset: ?>>, tile<1x64xf32>, !pto.event<producer = #pto.op<TLOAD>, scope = #pto.scope<intra>, pipes = #pto.pipes<MTE2, V>, eid = 0>
      %acc_11 = pto.tile.add %acc_8, %10 wait(%e0) {loc = #pto.loc<Vec>, layout = #pto.layout<ND>, valid = [?, 64], addr = 0} : tile<1x64xf32>
      scf.yield %acc_11 : tile<1x64xf32>
    }
    pto.tile.store %acc_12, %out_2[0, 0] {from = #pto.loc<Vec>} : pto.memref<1x64xf32, strided<[64, 1], offset: ?>>, tile<1x64xf32>
  }
}
"#;
    /// The lowered kernel as PTO-ISA C++ source.
    pub const CPP: &str = r#"// accumulate lowered by pto-lower for A2A3.
#include <pto/pto-inst.hpp>
#include "common/pto_instr.hpp"
using namespace pto;

__global__ AICORE void accumulate(__gm__ float* x, __gm__ float* out, int64_t b_1 /* symbolic dimension */) {
  Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor, DYNAMIC, 64, SLayout::NoneBox, 512, PadValue::Null> t0_acc(1);
  TASSIGN(t0_acc, 0x0); // 256 bytes of Vec
  Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor, DYNAMIC, 64, SLayout::NoneBox, 512, PadValue::Null> t1(1);
  TASSIGN(t1, 0x100); // 256 bytes of Vec
  t0_acc.SetValidRow(1);
  TEXPANDS(t0_acc, 0.0f);
  for (int64_t b_7 = 0LL; b_7 < b_1; b_7 += 1LL) {
    pipe_barrier(PIPE_ALL);
    {
      const int64_t e0 = (static_cast<int64_t>(b_1) - static_cast<int64_t>(b_7) < 1 ? static_cast<int64_t>(b_1) - static_cast<int64_t>(b_7) : 1);
      t1.SetValidRow(e0);
      using GT0 = GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, 64, 1>>;
      GT0 gt0(x + static_cast<int64_t>(b_7) * (1 * 64) + static_cast<int64_t>(0) * (1), {e0, 64});
      TLOAD(t1, gt0);
    }
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    {
      const int64_t r0 = static_cast<int64_t>(t0_acc.GetValidRow()), c0 = 64;
      const int64_t r1 = static_cast<int64_t>(t1.GetValidRow()), c1 = 64;
      Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor, DYNAMIC, DYNAMIC, SLayout::NoneBox, 512, PadValue::Null> in0(r0, c0);
      TASSIGN(in0, 0x0);
      t0_acc.SetValidRow((r0 > r1 ? r0 : r1));
      TPARTADD(t0_acc, in0, t1);
    }
  }
  pipe_barrier(PIPE_ALL);
  {
    const int64_t e0 = (static_cast<int64_t>(t0_acc.GetValidRow()) < 1 ? static_cast<int64_t>(t0_acc.GetValidRow()) : 1);
    Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor, DYNAMIC, DYNAMIC, SLayout::NoneBox, 512, PadValue::Null> sv(e0, 64);
    TASSIGN(sv, 0x0);
    using GT1 = GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, 64, 1>>;
    GT1 gt1(out + static_cast<int64_t>(0) * (1 * 64) + static_cast<int64_t>(0) * (1), {e0, 64});
    TSTORE(gt1, sv);
  }
}
"#;
    /// The IR as a value, parsed back from [`IR`].
    pub fn program() -> ::pto::ir::ProgramModule {
        match ::pto::ir::parse(IR) {
            ::core::result::Result::Ok(m) => m,
            ::core::result::Result::Err(e) => {
                ::core::panicking::panic_fmt(
                    format_args!("`accumulate::IR` does not parse back: {0}", e),
                );
            }
        }
    }
}
