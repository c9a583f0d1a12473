use pto::prelude::*;
/// One tile of C = A @ B with f16 inputs.
#[allow(clippy::all, clippy::pedantic)]
pub fn matmul_tile(
    a: &Tensor<f16>,
    b: &Tensor<f16>,
    c: &mut Tensor<f32>,
) -> ::core::result::Result<(), ::pto::Error> {
    use ::pto::{
        bind_shapes, isa::{tload, tmatmul, tstore},
        Tile,
    };
    let [] = bind_shapes(
        "a[16, 32] b[32, 16] c[16, 16]",
        [a.shape(), b.shape(), c.shape()],
    )?;
    let [t0_at, t2_at_left] = &mut Tile::<::pto::f16, 16, 32>::zeros_n();
    let [t1_bt, t3_bt_right] = &mut Tile::<::pto::f16, 32, 16>::zeros_n();
    let t4 = &mut Tile::<f32, 16, 16>::zeros();
    tload(t2_at_left, a, [0, 0])?;
    tload(t3_bt_right, b, [0, 0])?;
    tmatmul(t4, t2_at_left, t3_bt_right);
    tstore(c, t4, [0, 0])?;
    ::core::result::Result::Ok(())
}
///Compile-time artifacts of the `matmul_tile` kernel.
#[allow(dead_code)]
pub mod matmul_tile {
    /// The verified PTO-IR of the kernel (statement form).
    pub const IR: &str = r#"program.module @matmul_tile {
  program.entry @matmul_tile
  attr arch = "PTOv2"
  func.func @matmul_tile(%a_0: tensor<[16, 32], fp16> #in, %b_1: tensor<[32, 16], fp16> #in, %c_2: tensor<[16, 16], fp32> #out) {
    statement.op {
      %at_3 = tile.load %a_0 : (tensor<[16, 32], fp16>) -> tile<[16, 32], [16, 32], fp16> {shape=[16, 32], offset=[0, 0]}
      %bt_4 = tile.load %b_1 : (tensor<[32, 16], fp16>) -> tile<[32, 16], [32, 16], fp16> {shape=[32, 16], offset=[0, 0]}
      %5 = tile.matmul %at_3, %bt_4 : (tile<[16, 32], [16, 32], fp16>, tile<[32, 16], [32, 16], fp16>) -> tile<[16, 16], [16, 16], fp32>
      tile.store %5, %c_2 : (tile<[16, 16], [16, 16], fp32>, tensor<[16, 16], fp32>) -> () {offset=[0, 0]}
    }
  }
  // func.kind = kernel
}
"#;
    /// The IR after the lowering pipeline (seed-002 MLIR style).
    pub const LOWERED: &str = r#"// matmul_tile lowered for A2A3: canonicalize, canonicalize-views, tile-tensor-ops, legalize, infer-tile-info, insert-events, bufferize, lower-to-isa, fence, split-cores, fuse-chains, share-tiles
module attributes {pto.target = #pto.target<A2A3>} {
  func.func @matmul_tile(%a_0: pto.memref<16x32xf16, strided<[32, 1], offset: ?>>, %b_1: pto.memref<32x16xf16, strided<[16, 1], offset: ?>>, %c_2: pto.memref<16x16xf32, strided<[16, 1], offset: ?>>) {
    %at_3, %e0 = pto.tile.load %a_0[0, 0] {loc = #pto.loc<Mat>, layout = #pto.layout<NZ>, valid = [16, 32], addr = 0} : pto.memref<16x32xf16, strided<[32, 1], offset: ?>>, tile<16x32xf16>, !pto.event<producer = #pto.op<TLOAD>, scope = #pto.scope<intra>, pipes = #pto.pipes<MTE2, MTE1>, eid = 0>
    %bt_4, %e1 = pto.tile.load %b_1[0, 0] {loc = #pto.loc<Mat>, layout = #pto.layout<NZ>, valid = [32, 16], addr = 1024} : pto.memref<32x16xf16, strided<[16, 1], offset: ?>>, tile<32x16xf16>, !pto.event<producer = #pto.op<TLOAD>, scope = #pto.scope<intra>, pipes = #pto.pipes<MTE2, MTE1>, eid = 1>
    %at_left_6, %e2 = pto.tile.mov.m2l %at_3 wait(%e0) {loc = #pto.loc<Left>, layout = #pto.layout<ZZ>, valid = [16, 32], addr = 0} : tile<16x32xf16>, !pto.event<producer = #pto.op<TMOV>, scope = #pto.scope<intra>, pipes = #pto.pipes<MTE1, M>, eid = 0>
    %bt_right_7, %e3 = pto.tile.mov.m2r %bt_4 wait(%e1) {loc = #pto.loc<Right>, layout = #pto.layout<ZN>, valid = [32, 16], addr = 0} : tile<32x16xf16>, !pto.event<producer = #pto.op<TMOV>, scope = #pto.scope<intra>, pipes = #pto.pipes<MTE1, M>, eid = 1>
    %5, %e4 = pto.tile.matmul %at_left_6, %bt_right_7 wait(%e2, %e3) {loc = #pto.loc<Acc>, layout = #pto.layout<NZ>, valid = [16, 16], addr = 0} : tile<16x32xf16>, tile<32x16xf16> -> tile<16x16xf32>, !pto.event<producer = #pto.op<TMATMUL>, scope = #pto.scope<intra>, pipes = #pto.pipes<M, FIX>, eid = 0>
    pto.tile.store %5, %c_2[0, 0] wait(%e4) {from = #pto.loc<Acc>} : pto.memref<16x16xf32, strided<[16, 1], offset: ?>>, tile<16x16xf32>
  }
}
// share t1_bt -> t3_bt_right: share; TLOAD; sync; TLOAD; sync; sync; TMOV; sync; sync; TMOV
// share t0_at -> t2_at_left: TLOAD; sync; TLOAD; sync; sync; TMOV
"#;
    /// The lowered kernel as PTO-ISA C++ source.
    pub const CPP: &str = r#"// matmul_tile lowered by pto-lower for A2A3.
#include <pto/pto-inst.hpp>
#include "common/pto_instr.hpp"
using namespace pto;

__global__ AICORE void matmul_tile(__gm__ half* a, __gm__ half* b, __gm__ float* c) {
  Tile<TileType::Mat, half, 16, 32, BLayout::ColMajor, 16, 32, SLayout::RowMajor, 512, PadValue::Null> t0_at;
  TASSIGN(t0_at, 0x0); // 1024 bytes of Mat
  Tile<TileType::Mat, half, 32, 16, BLayout::ColMajor, 32, 16, SLayout::RowMajor, 512, PadValue::Null> t1_bt;
  TASSIGN(t1_bt, 0x400); // 1024 bytes of Mat
  Tile<TileType::Left, half, 16, 32, BLayout::RowMajor, 16, 32, SLayout::RowMajor, 512, PadValue::Null> t2_at_left;
  TASSIGN(t2_at_left, 0x0); // 1024 bytes of Left
  Tile<TileType::Right, half, 32, 16, BLayout::RowMajor, 32, 16, SLayout::ColMajor, 512, PadValue::Null> t3_bt_right;
  TASSIGN(t3_bt_right, 0x0); // 1024 bytes of Right
  Tile<TileType::Acc, float, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor, 1024, PadValue::Null> t4;
  TASSIGN(t4, 0x0); // 1024 bytes of Acc
  {
    using GT0 = GlobalTensor<half, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, 32, 1>>;
    GT0 gt0(a + static_cast<int64_t>(0) * (1 * 32) + static_cast<int64_t>(0) * (1), {16, 32});
    TLOAD(t0_at, gt0);
  }
  set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  {
    using GT1 = GlobalTensor<half, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, 16, 1>>;
    GT1 gt1(b + static_cast<int64_t>(0) * (1 * 16) + static_cast<int64_t>(0) * (1), {32, 16});
    TLOAD(t1_bt, gt1);
  }
  set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);
  wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  TMOV(t2_at_left, t0_at);
  set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID1);
  TMOV(t3_bt_right, t1_bt);
  set_flag(PIPE_MTE1, PIPE_M, EVENT_ID1);
  wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
  wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID1);
  TMATMUL(t4, t2_at_left, t3_bt_right);
  set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
  wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
  {
    Tile<TileType::Acc, float, 16, 16, BLayout::ColMajor, DYNAMIC, DYNAMIC, SLayout::RowMajor, 1024, PadValue::Null> sv(16, 16);
    TASSIGN(sv, 0x0);
    using GT2 = GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, 16, 1>>;
    GT2 gt2(c + static_cast<int64_t>(0) * (1 * 16) + static_cast<int64_t>(0) * (1), {16, 16});
    TSTORE(gt2, sv);
  }
}
"#;
    /// The IR as a value, parsed back from [`IR`].
    pub fn program() -> ::pto::ir::ProgramModule {
        match ::pto::ir::parse(IR) {
            ::core::result::Result::Ok(m) => m,
            ::core::result::Result::Err(e) => {
                ::core::panicking::panic_fmt(
                    format_args!("`matmul_tile::IR` does not parse back: {0}", e),
                );
            }
        }
    }
}
