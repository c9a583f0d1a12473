use pto::prelude::*;
/// out[b, :] = x[b, :] * scale * 3.14.
#[allow(clippy::all, clippy::pedantic)]
pub fn scale_rows(
    x: &Tensor<f32>,
    scale: f32,
    out: &mut Tensor<f32>,
) -> ::core::result::Result<(), ::pto::Error> {
    use ::pto::{
        bind_shapes, isa::{tload_map_store_loop, LoopIndex, LoopRange},
        Element, Tile,
    };
    let [b_1] = bind_shapes("x[B, 128] out[B, 128]", [x.shape(), out.shape()])?;
    let mut __pto_meter = ::pto::budget::Meter::start();
    let t0_row = &mut Tile::<f32, 1, 128>::zeros();
    {
        let __ub = __pto_meter.loop_end(0, b_1, 1, (x.is_empty() && out.is_empty()))?;
        tload_map_store_loop(
            t0_row,
            x,
            &[LoopIndex::Iv, LoopIndex::At(0)],
            out,
            &[LoopIndex::Iv, LoopIndex::At(0)],
            LoopRange {
                lb: 0,
                ub: __ub,
                step: 1,
            },
            move |__e0: f32| -> f32 {
                let __e0: f32 = Element::mul(__e0, scale);
                let __e0: f32 = Element::mul(__e0, 3.14f32);
                __e0
            },
        )?;
    }
    ::core::result::Result::Ok(())
}
///Compile-time artifacts of the `scale_rows` kernel.
#[allow(dead_code)]
pub mod scale_rows {
    /// The verified PTO-IR of the kernel (statement form).
    pub const IR: &str = r#"program.module @scale_rows {
  program.entry @scale_rows
  attr arch = "PTOv2"
  func.func @scale_rows(%x_0: tensor<[%B_1, 128], fp32> #in, %scale_2: fp32, %out_3: tensor<[%B_1, 128], fp32> #inout) {
    statement.op {
      %4 = 0 : int64
      %5 = 1 : int64
    }
    statement.for %b_6 = %4 to %B_1 step %5 {
      statement.op {
        %row_8 = tile.load %x_0 : (tensor<[%B_1, 128], fp32>) -> tile<[?, 128], [1, 128], fp32> {shape=[1, 128], offset=[%b_6, 0]}
        %10 = tile.mul %row_8, %scale_2 : (tile<[?, 128], [1, 128], fp32>, fp32) -> tile<[?, 128], [1, 128], fp32>
        %11 = 3.14 : fp32
        %y_12 = tile.mul %10, %11 : (tile<[?, 128], [1, 128], fp32>, fp32) -> tile<[?, 128], [1, 128], fp32>
        tile.store %y_12, %out_3 : (tile<[?, 128], [1, 128], fp32>, tensor<[%B_1, 128], fp32>) -> () {offset=[%b_6, 0]}
      }
      statement.yield
    }
  }
  // func.kind = kernel
}
"#;
    /// The IR after the lowering pipeline (seed-002 MLIR style).
    pub const LOWERED: &str = r#"// scale_rows lowered for A2A3: canonicalize, canonicalize-views, tile-tensor-ops, legalize, infer-tile-info, insert-events, bufferize, lower-to-isa, fence, split-cores, fuse-chains, share-tiles
module attributes {pto.target = #pto.target<A2A3>} {
  func.func @scale_rows(%x_0: pto.memref<?x128xf32, strided<[128, 1], offset: ?>>, %scale_2: f32, %out_3: pto.memref<?x128xf32, strided<[128, 1], offset: ?>>) {
    %B_1 = pto.tensor.dim %x_0[0] : pto.memref<?x128xf32, strided<[128, 1], offset: ?>> -> i64
    %4 = pto.constant 0 : i64
    %5 = pto.constant 1 : i64
    scf.for %b_6 = %4 to %B_1 step %5 : i64 {
      %row_8, %e0 = pto.tile.load %x_0[%b_6, 0] {loc = #pto.loc<Vec>, layout = #pto.layout<ND>, valid = [?, 128], addr = 0} : pto.memref<?x128xf32, strided<[128, 1], offset: ?>>, tile<1x128xf32>, !pto.event<producer = #pto.op<TLOAD>, scope = #pto.scope<intra>, pipes = #pto.pipes<MTE2, V>, eid = 0>
      %10 = pto.tile.mul %row_8, %scale_2 wait(%e0) {loc = #pto.loc<Vec>, layout = #pto.layout<ND>, valid = [?, 128], addr = 0} : tile<1x128xf32>, f32 -> tile<1x128xf32>
      %11 = pto.constant 3.14 : f32
      %y_12, %e1 = pto.tile.mul %10, %11 {loc = #pto.loc<Vec>, layout = #pto.layout<ND>, valid = [?, 128], addr = 0} : tile<1x128xf32>, f32 -> tile<1x128xf32>, !pto.event<producer = #pto.op<TVEC>, scope = #pto.scope<intra>, pipes = #pto.pipes<V, MTE3>, eid = 0>
      pto.tile.store %y_12, %out_3[%b_6, 0] wait(%e1) {from = #pto.loc<Vec>} : pto.memref<?x128xf32, strided<[128, 1], offset: ?>>, tile<1x128xf32>
      scf.yield
    }
  }
}
// fused: TLOAD t0_row <- %x_0[%b_6, 0]; TMULS t0_row = t0_row, %scale_2; TMULS t0_row = t0_row, %11; TSTORE %out_3[%b_6, 0] <- t0_row over %b_6 = %4 to %B_1 step 1
"#;
    /// The lowered kernel as PTO-ISA C++ source.
    pub const CPP: &str = r#"// scale_rows lowered by pto-lower for A2A3.
#include <pto/pto-inst.hpp>
#include "common/pto_instr.hpp"
using namespace pto;

__global__ AICORE void scale_rows(__gm__ float* x, float scale, __gm__ float* out, int64_t b_1 /* symbolic dimension */) {
  Tile<TileType::Vec, float, 1, 128, BLayout::RowMajor, DYNAMIC, 128, SLayout::NoneBox, 512, PadValue::Null> t0_row(1);
  TASSIGN(t0_row, 0x0); // 512 bytes of Vec
  for (int64_t b_6 = 0LL; b_6 < b_1; b_6 += 1LL) {
    pipe_barrier(PIPE_ALL);
    {
      const int64_t e0 = (static_cast<int64_t>(b_1) - static_cast<int64_t>(b_6) < 1 ? static_cast<int64_t>(b_1) - static_cast<int64_t>(b_6) : 1);
      t0_row.SetValidRow(e0);
      using GT0 = GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, 128, 1>>;
      GT0 gt0(x + static_cast<int64_t>(b_6) * (1 * 128) + static_cast<int64_t>(0) * (1), {e0, 128});
      TLOAD(t0_row, gt0);
    }
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMULS(t0_row, t0_row, scale);
    TMULS(t0_row, t0_row, 3.14f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    {
      const int64_t w0 = (static_cast<int64_t>(b_1) - static_cast<int64_t>(b_6) < 1 ? static_cast<int64_t>(b_1) - static_cast<int64_t>(b_6) : 1);
      const int64_t e0 = (static_cast<int64_t>(t0_row.GetValidRow()) < w0 ? static_cast<int64_t>(t0_row.GetValidRow()) : w0);
      Tile<TileType::Vec, float, 1, 128, BLayout::RowMajor, DYNAMIC, DYNAMIC, SLayout::NoneBox, 512, PadValue::Null> sv(e0, 128);
      TASSIGN(sv, 0x0);
      using GT1 = GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, 128, 1>>;
      GT1 gt1(out + static_cast<int64_t>(b_6) * (1 * 128) + static_cast<int64_t>(0) * (1), {e0, 128});
      TSTORE(gt1, sv);
    }
  }
}
"#;
    /// The IR as a value, parsed back from [`IR`].
    pub fn program() -> ::pto::ir::ProgramModule {
        match ::pto::ir::parse(IR) {
            ::core::result::Result::Ok(m) => m,
            ::core::result::Result::Err(e) => {
                ::core::panicking::panic_fmt(
                    format_args!("`scale_rows::IR` does not parse back: {0}", e),
                );
            }
        }
    }
}
