use pto::prelude::*;
pub mod doubled {
    #[allow(unused_imports)]
    use super::*;
    /// The row count and its half.
    #[allow(clippy::all, clippy::pedantic)]
    pub fn rows(x: &Tensor<f32>) -> ::core::result::Result<(i64, f32), ::pto::Error> {
        use ::pto::{bind_shapes, Element};
        let [r_1] = bind_shapes("x[R, 16]", [x.shape()])?;
        let v_5: f32 = r_1 as f32;
        let v_7: f32 = Element::mul(v_5, 0.5f32);
        ::core::result::Result::Ok((r_1, v_7))
    }
    ///Compile-time artifacts of the `rows` kernel.
    #[allow(dead_code)]
    pub mod rows {
        /// The verified PTO-IR of the kernel (statement form).
        pub const IR: &str = r#"program.module @doubled {
  program.entry @rows
  attr arch = "PTOv2"
  attr tile_default_m = 1
  attr tile_default_n = 16
  attr tile_default_k = 16
  func.func @rows(%x_0: tensor<[%R_1, 16], fp32> #in) -> (int64, fp32) {
    statement.op {
      %5 = scalar.cast %R_1 : (int64) -> fp32 {dtype=fp32}
      %6 = 0.5 : fp32
      %7 = scalar.mul %5, %6 : (fp32, fp32) -> fp32
    }
    statement.return %R_1, %7
  }
  // func.kind = kernel

  func.func @run(%x_2: tensor<[%R_3, 16], fp32> #in, %y_4: tensor<[%R_3, 16], fp32> #inout) -> (fp32) {
    statement.op {
      %n_8, %h_9 = func.call @rows(%x_2) : (tensor<[%R_3, 16], fp32>) -> (int64, fp32)
    }
    statement.scope incore {
      statement.op {
        %10 = 0 : int64
        %11 = 1 : int64
      }
      statement.for %r_12 = %10 to %n_8 step %11 {
        statement.op {
          %15 = tile.load %x_2 : (tensor<[%R_3, 16], fp32>) -> tile<[?, 16], [1, 16], fp32> {shape=[1, 16], offset=[%r_12, 0]}
          %16 = 2.0 : fp32
          %17 = tile.mul %15, %16 : (tile<[?, 16], [1, 16], fp32>, fp32) -> tile<[?, 16], [1, 16], fp32>
          tile.store %17, %y_4 : (tile<[?, 16], [1, 16], fp32>, tensor<[%R_3, 16], fp32>) -> () {offset=[%r_12, 0]}
        }
        statement.yield
      }
    }
    statement.return %h_9
  }
  // func.kind = kernel
}
"#;
        /// The IR after the lowering pipeline (seed-002 MLIR style).
        pub const LOWERED: &str = r#"// rows lowered for A2A3: canonicalize, canonicalize-views, tile-tensor-ops, legalize, infer-tile-info, insert-events, bufferize, lower-to-isa, fence, split-cores, fuse-chains, share-tiles
module attributes {pto.target = #pto.target<A2A3>} {
  func.func @rows(%x_0: pto.memref<?x16xf32, strided<[16, 1], offset: ?>>) -> (i64, f32) {
    %R_1 = pto.tensor.dim %x_0[0] : pto.memref<?x16xf32, strided<[16, 1], offset: ?>> -> i64
    %5 = pto.scalar.cast %R_1 {dtype = f32} : i64 -> f32
    %6 = pto.constant 0.5 : f32
    %7 = pto.scalar.mul %5, %6 : f32
    func.return %R_1, %7 : i64, f32
  }
}
"#;
        /// The lowered kernel as PTO-ISA C++ source.
        pub const CPP: &str = r#"#include <pto/pto-inst.hpp>
#include "common/pto_instr.hpp"
using namespace pto;

// rows lowered by pto-lower for A2A3.
// The kernel's returned scalars are written to `pto_ret0`, `pto_ret1`, ...: one-element
// global-memory buffers, after the symbolic dimensions.
__global__ AICORE void rows(__gm__ float* x, int64_t r_1 /* symbolic dimension */, __gm__ int64_t* pto_ret0, __gm__ float* pto_ret1) {
  float v5 = static_cast<float>(r_1);
  float v7 = (v5 * 0.5f);
  *pto_ret0 = r_1;
  *pto_ret1 = v7;
  return;
}
"#;
        /// The IR as a value, parsed back from [`IR`].
        pub fn program() -> ::pto::ir::ProgramModule {
            match ::pto::ir::parse(IR) {
                ::core::result::Result::Ok(m) => m,
                ::core::result::Result::Err(e) => {
                    ::core::panicking::panic_fmt(
                        format_args!("`rows::IR` does not parse back: {0}", e),
                    );
                }
            }
        }
    }
    #[allow(clippy::all, clippy::pedantic)]
    pub fn run(
        x: &Tensor<f32>,
        y: &mut Tensor<f32>,
    ) -> ::core::result::Result<f32, ::pto::Error> {
        use ::pto::bind_shapes;
        let [r_3] = bind_shapes("x[R, 16] y[R, 16]", [x.shape(), y.shape()])?;
        let (n_8, h_9): (i64, f32) = self::rows(&*x)?;
        self::run_incore_0(&*x, &mut *y, n_8)?;
        ::core::result::Result::Ok(h_9)
    }
    ///Compile-time artifacts of the `run` kernel.
    #[allow(dead_code)]
    pub mod run {
        /// The verified PTO-IR of the kernel (statement form).
        pub const IR: &str = r#"program.module @doubled {
  program.entry @run
  attr arch = "PTOv2"
  attr tile_default_m = 1
  attr tile_default_n = 16
  attr tile_default_k = 16
  func.func @rows(%x_0: tensor<[%R_1, 16], fp32> #in) -> (int64, fp32) {
    statement.op {
      %5 = scalar.cast %R_1 : (int64) -> fp32 {dtype=fp32}
      %6 = 0.5 : fp32
      %7 = scalar.mul %5, %6 : (fp32, fp32) -> fp32
    }
    statement.return %R_1, %7
  }
  // func.kind = kernel

  func.func @run(%x_2: tensor<[%R_3, 16], fp32> #in, %y_4: tensor<[%R_3, 16], fp32> #inout) -> (fp32) {
    statement.op {
      %n_8, %h_9 = func.call @rows(%x_2) : (tensor<[%R_3, 16], fp32>) -> (int64, fp32)
    }
    statement.scope incore {
      statement.op {
        %10 = 0 : int64
        %11 = 1 : int64
      }
      statement.for %r_12 = %10 to %n_8 step %11 {
        statement.op {
          %15 = tile.load %x_2 : (tensor<[%R_3, 16], fp32>) -> tile<[?, 16], [1, 16], fp32> {shape=[1, 16], offset=[%r_12, 0]}
          %16 = 2.0 : fp32
          %17 = tile.mul %15, %16 : (tile<[?, 16], [1, 16], fp32>, fp32) -> tile<[?, 16], [1, 16], fp32>
          tile.store %17, %y_4 : (tile<[?, 16], [1, 16], fp32>, tensor<[%R_3, 16], fp32>) -> () {offset=[%r_12, 0]}
        }
        statement.yield
      }
    }
    statement.return %h_9
  }
  // func.kind = kernel
}
"#;
        /// The IR after the lowering pipeline (seed-002 MLIR style).
        pub const LOWERED: &str = r#"// run lowered for A2A3: canonicalize, canonicalize-views, tile-tensor-ops, legalize, infer-tile-info, insert-events, bufferize, lower-to-isa, fence, split-cores, fuse-chains, share-tiles
module attributes {pto.target = #pto.target<A2A3>} {
  func.func @run(%x_2: pto.memref<?x16xf32, strided<[16, 1], offset: ?>>, %y_4: pto.memref<?x16xf32, strided<[16, 1], offset: ?>>) -> (f32) {
    %R_3 = pto.tensor.dim %x_2[0] : pto.memref<?x16xf32, strided<[16, 1], offset: ?>> -> i64
    %n_8, %h_9 = func.call @rows(%x_2) : (pto.memref<?x16xf32, strided<[16, 1], offset: ?>>) -> (i64, f32)
    func.call @run_incore_0(%x_2, %y_4, %n_8) : (pto.memref<?x16xf32, strided<[16, 1], offset: ?>>, pto.memref<?x16xf32, strided<[16, 1], offset: ?>>, i64) -> ()
    func.return %h_9 : f32
  }
}
"#;
        /// The lowered kernel as PTO-ISA C++ source.
        pub const CPP: &str = r#"#include <pto/pto-inst.hpp>
#include "common/pto_instr.hpp"
using namespace pto;
#include <limits>
#include <type_traits>
namespace pto_rs {
template <typename T> constexpr bool is_int = std::is_integral<T>::value;
// Floats compute in float (double for double) and round once to T. `%` and `floor_mod` are
// the NPU's TFMOD / TREM sequences (pto_ir::sem's FloatSem), one rounding per statement, so
// no compiler fuses the multiply into the subtraction.
template <typename T> using arith = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
template <typename T> AICORE inline T div(T a, T b) {
    if constexpr (is_int<T>) {
        if (b == 0) return T(0);
        if constexpr (std::is_signed<T>::value) {
            if (b == T(-1)) return T(typename std::make_unsigned<T>::type(0) - typename std::make_unsigned<T>::type(a));
        }
        return a / b;
    } else {
        return a / b;
    }
}
template <typename T> AICORE inline T rem(T a, T b) {
    if constexpr (is_int<T>) {
        if (b == 0) return a;
        if constexpr (std::is_signed<T>::value) {
            if (b == T(-1)) return T(0);
        }
        return a % b;
    } else {
        using F = arith<T>;
        const F x = F(a), y = F(b);
        const F q = F(__builtin_trunc(x / y));
        const F p = q * y;
        return T(x - p);
    }
}
template <typename T> AICORE inline T floor_mod(T a, T b) {
    if constexpr (is_int<T>) {
        T r = rem(a, b);
        if (b != T(0) && r != T(0) && ((r < T(0)) != (b < T(0)))) r = T(r + b);
        return r;
    } else {
        using F = arith<T>;
        const F x = F(a), y = F(b);
        const F q = F(__builtin_floor(x / y));
        const F p = q * y;
        const F r = x - p;
        const F s = r * y;
        return T(s < F(0) ? r + y : r);
    }
}
template <typename T> AICORE inline T floor_div(T a, T b) {
    if constexpr (is_int<T>) {
        T q = div(a, b);
        T r = rem(a, b);
        if (b != 0 && r != 0 && ((r < 0) != (b < 0))) q = T(q - 1);
        return q;
    } else {
        return T(__builtin_floor(a / b));
    }
}
template <typename D, typename S> AICORE inline D cast_trunc(S x) {
    if (x != x) return D(0);
    if (x <= S(std::numeric_limits<D>::lowest())) return std::numeric_limits<D>::lowest();
    if (x >= S(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
    return static_cast<D>(x);
}
// Equal zeros: `a + b` is -0 only when both are, `-(-a - b)` when either is (IEEE addition,
// to nearest): maximumNumber's +0, minimumNumber's -0 (pto_ir::sem's float semantics).
template <typename T> AICORE inline T min(T a, T b) {
    if (a == b && a == T(0)) return T(-(-a - b));
    return (b < a || a != a) ? b : a;
}
template <typename T> AICORE inline T max(T a, T b) {
    if (a == b && a == T(0)) return T(a + b);
    return (b > a || a != a) ? b : a;
}
// A run-time index outside its tensor or tile, where the host function returns Err: the
// kernel stops before the access. pto-isa's failed checks trap(); its CPU simulation has no
// trap(), so there the process aborts.
[[noreturn]] AICORE inline void out_of_bounds() {
#if defined(__CPU_SIM)
    __builtin_trap();
#else
    trap();
#endif
}
}  // namespace pto_rs

// rows lowered by pto-lower for A2A3.
// The kernel's returned scalars are written to `pto_ret0`, `pto_ret1`, ...: one-element
// global-memory buffers, after the symbolic dimensions.
AICORE inline void rows(__gm__ float* x, int64_t r_1 /* symbolic dimension */, int64_t* pto_ret0, float* pto_ret1) {
  float v5 = static_cast<float>(r_1);
  float v7 = (v5 * 0.5f);
  *pto_ret0 = r_1;
  *pto_ret1 = v7;
  return;
}

// run_incore_0 lowered by pto-lower for A2A3.
AICORE inline void run_incore_0(__gm__ float* x, __gm__ float* y, int64_t n, int64_t r_18 /* symbolic dimension */) {
  Tile<TileType::Vec, float, 1, 16, BLayout::RowMajor, DYNAMIC, 16, SLayout::NoneBox, 512, PadValue::Null> t0(1);
  TASSIGN(t0, 0x0); // 64 bytes of Vec
  for (int64_t r_12 = 0LL; r_12 < n; r_12 += 1LL) {
    pipe_barrier(PIPE_ALL);
    {
      if (static_cast<int64_t>(r_12) < 0 || static_cast<int64_t>(r_12) >= static_cast<int64_t>(r_18)) pto_rs::out_of_bounds();
      const int64_t e0 = (static_cast<int64_t>(r_18) - static_cast<int64_t>(r_12) < 1 ? static_cast<int64_t>(r_18) - static_cast<int64_t>(r_12) : 1);
      t0.SetValidRow(e0);
      using GT0 = GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, 16, 1>>;
      GT0 gt0(x + static_cast<int64_t>(r_12) * (1 * 16) + static_cast<int64_t>(0) * (1), {e0, 16});
      TLOAD(t0, gt0);
    }
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMULS(t0, t0, 2.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    {
      if (static_cast<int64_t>(r_12) < 0 || static_cast<int64_t>(r_12) >= static_cast<int64_t>(r_18)) pto_rs::out_of_bounds();
      const int64_t w0 = (static_cast<int64_t>(r_18) - static_cast<int64_t>(r_12) < 1 ? static_cast<int64_t>(r_18) - static_cast<int64_t>(r_12) : 1);
      const int64_t e0 = (static_cast<int64_t>(t0.GetValidRow()) < w0 ? static_cast<int64_t>(t0.GetValidRow()) : w0);
      Tile<TileType::Vec, float, 1, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC, SLayout::NoneBox, 512, PadValue::Null> sv(e0, 16);
      TASSIGN(sv, 0x0);
      using GT1 = GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, 16, 1>>;
      GT1 gt1(y + static_cast<int64_t>(r_12) * (1 * 16) + static_cast<int64_t>(0) * (1), {e0, 16});
      TSTORE(gt1, sv);
    }
  }
}

// run lowered by pto-lower for A2A3.
// The kernel's returned scalars are written to `pto_ret0`, `pto_ret1`, ...: one-element
// global-memory buffers, after the symbolic dimensions.
__global__ AICORE void run(__gm__ float* x, __gm__ float* y, int64_t r_3 /* symbolic dimension */, __gm__ float* pto_ret0) {
  int64_t n_8;
  float h_9;
  pipe_barrier(PIPE_ALL);
  rows(x, r_3, &n_8, &h_9);
  pipe_barrier(PIPE_ALL);
  run_incore_0(x, y, n_8, r_3);
  pipe_barrier(PIPE_ALL);
  *pto_ret0 = h_9;
  return;
}
"#;
        /// The IR as a value, parsed back from [`IR`].
        pub fn program() -> ::pto::ir::ProgramModule {
            match ::pto::ir::parse(IR) {
                ::core::result::Result::Ok(m) => m,
                ::core::result::Result::Err(e) => {
                    ::core::panicking::panic_fmt(
                        format_args!("`run::IR` does not parse back: {0}", e),
                    );
                }
            }
        }
    }
    ///The host function of `run_incore_0`, an `incore!` region outlined into a function of its own.
    #[allow(
        unused_mut,
        unused_variables,
        unused_assignments,
        unused_parens,
        non_snake_case,
        unreachable_code,
        clippy::all
    )]
    pub fn run_incore_0(
        x: &::pto::Tensor<f32>,
        y: &mut ::pto::Tensor<f32>,
        n: i64,
    ) -> ::core::result::Result<(), ::pto::Error> {
        use ::pto::{
            bind_shapes, isa::{tload_map_store_loop, LoopIndex, LoopRange},
            Element, Tile,
        };
        let [r_18] = bind_shapes("x[R, 16] y[R, 16]", [x.shape(), y.shape()])?;
        let mut __pto_meter = ::pto::budget::Meter::start();
        let t0 = &mut Tile::<f32, 1, 16>::zeros();
        {
            let __ub = __pto_meter.loop_end(0, n, 1, (x.is_empty() && y.is_empty()))?;
            tload_map_store_loop(
                t0,
                x,
                &[LoopIndex::Iv, LoopIndex::At(0)],
                y,
                &[LoopIndex::Iv, LoopIndex::At(0)],
                LoopRange {
                    lb: 0,
                    ub: __ub,
                    step: 1,
                },
                move |__e0: f32| -> f32 {
                    let __e0: f32 = Element::mul(__e0, 2f32);
                    __e0
                },
            )?;
        }
        ::core::result::Result::Ok(())
    }
    /// The verified PTO-IR of the whole program (statement form).
    pub const IR: &str = r#"program.module @doubled {
  program.entry @run
  attr arch = "PTOv2"
  attr tile_default_m = 1
  attr tile_default_n = 16
  attr tile_default_k = 16
  func.func @rows(%x_0: tensor<[%R_1, 16], fp32> #in) -> (int64, fp32) {
    statement.op {
      %5 = scalar.cast %R_1 : (int64) -> fp32 {dtype=fp32}
      %6 = 0.5 : fp32
      %7 = scalar.mul %5, %6 : (fp32, fp32) -> fp32
    }
    statement.return %R_1, %7
  }
  // func.kind = kernel

  func.func @run(%x_2: tensor<[%R_3, 16], fp32> #in, %y_4: tensor<[%R_3, 16], fp32> #inout) -> (fp32) {
    statement.op {
      %n_8, %h_9 = func.call @rows(%x_2) : (tensor<[%R_3, 16], fp32>) -> (int64, fp32)
    }
    statement.scope incore {
      statement.op {
        %10 = 0 : int64
        %11 = 1 : int64
      }
      statement.for %r_12 = %10 to %n_8 step %11 {
        statement.op {
          %15 = tile.load %x_2 : (tensor<[%R_3, 16], fp32>) -> tile<[?, 16], [1, 16], fp32> {shape=[1, 16], offset=[%r_12, 0]}
          %16 = 2.0 : fp32
          %17 = tile.mul %15, %16 : (tile<[?, 16], [1, 16], fp32>, fp32) -> tile<[?, 16], [1, 16], fp32>
          tile.store %17, %y_4 : (tile<[?, 16], [1, 16], fp32>, tensor<[%R_3, 16], fp32>) -> () {offset=[%r_12, 0]}
        }
        statement.yield
      }
    }
    statement.return %h_9
  }
  // func.kind = kernel
}
"#;
    /// Every function of the program after the lowering pipeline (seed-002 MLIR style).
    pub const LOWERED: &str = r#"module attributes {pto.target = #pto.target<A2A3>} {
  // rows lowered for A2A3: canonicalize, canonicalize-views, tile-tensor-ops, legalize, infer-tile-info, insert-events, bufferize, lower-to-isa, fence, split-cores, fuse-chains, share-tiles
  func.func @rows(%x_0: pto.memref<?x16xf32, strided<[16, 1], offset: ?>>) -> (i64, f32) {
    %R_1 = pto.tensor.dim %x_0[0] : pto.memref<?x16xf32, strided<[16, 1], offset: ?>> -> i64
    %5 = pto.scalar.cast %R_1 {dtype = f32} : i64 -> f32
    %6 = pto.constant 0.5 : f32
    %7 = pto.scalar.mul %5, %6 : f32
    func.return %R_1, %7 : i64, f32
  }
  // run lowered for A2A3: canonicalize, canonicalize-views, tile-tensor-ops, legalize, infer-tile-info, insert-events, bufferize, lower-to-isa, fence, split-cores, fuse-chains, share-tiles
  func.func @run(%x_2: pto.memref<?x16xf32, strided<[16, 1], offset: ?>>, %y_4: pto.memref<?x16xf32, strided<[16, 1], offset: ?>>) -> (f32) {
    %R_3 = pto.tensor.dim %x_2[0] : pto.memref<?x16xf32, strided<[16, 1], offset: ?>> -> i64
    %n_8, %h_9 = func.call @rows(%x_2) : (pto.memref<?x16xf32, strided<[16, 1], offset: ?>>) -> (i64, f32)
    func.call @run_incore_0(%x_2, %y_4, %n_8) : (pto.memref<?x16xf32, strided<[16, 1], offset: ?>>, pto.memref<?x16xf32, strided<[16, 1], offset: ?>>, i64) -> ()
    func.return %h_9 : f32
  }
  // run_incore_0 lowered for A2A3: canonicalize, canonicalize-views, tile-tensor-ops, legalize, infer-tile-info, insert-events, bufferize, lower-to-isa, fence, split-cores, fuse-chains, share-tiles
  func.func @run_incore_0(%x_19: pto.memref<?x16xf32, strided<[16, 1], offset: ?>>, %y_20: pto.memref<?x16xf32, strided<[16, 1], offset: ?>>, %n_21: i64) {
    %R_18 = pto.tensor.dim %x_19[0] : pto.memref<?x16xf32, strided<[16, 1], offset: ?>> -> i64
    %10 = pto.constant 0 : i64
    %11 = pto.constant 1 : i64
    scf.for %r_12 = %10 to %n_21 step %11 : i64 {
      %15, %e0 = pto.tile.load %x_19[%r_12, 0] {loc = #pto.loc<Vec>, layout = #pto.layout<ND>, valid = [?, 16], addr = 0} : pto.memref<?x16xf32, strided<[16, 1], offset: ?>>, tile<1x16xf32>, !pto.event<producer = #pto.op<TLOAD>, scope = #pto.scope<intra>, pipes = #pto.pipes<MTE2, V>, eid = 0>
      %16 = pto.constant 2.0 : f32
      %17, %e1 = pto.tile.mul %15, %16 wait(%e0) {loc = #pto.loc<Vec>, layout = #pto.layout<ND>, valid = [?, 16], addr = 0} : tile<1x16xf32>, f32 -> tile<1x16xf32>, !pto.event<producer = #pto.op<TVEC>, scope = #pto.scope<intra>, pipes = #pto.pipes<V, MTE3>, eid = 0>
      pto.tile.store %17, %y_20[%r_12, 0] wait(%e1) {from = #pto.loc<Vec>} : pto.memref<?x16xf32, strided<[16, 1], offset: ?>>, tile<1x16xf32>
      scf.yield
    }
  }
  // fused: TLOAD t0 <- %x_19[%r_12, 0]; TMULS t0 = t0, %16; TSTORE %y_20[%r_12, 0] <- t0 over %r_12 = %10 to %n_21 step 1
}
"#;
    /// The program as PTO-ISA C++ source: the entry a `__global__` kernel, the functions it
    /// calls device functions.
    pub const CPP: &str = r#"#include <pto/pto-inst.hpp>
#include "common/pto_instr.hpp"
using namespace pto;
#include <limits>
#include <type_traits>
namespace pto_rs {
template <typename T> constexpr bool is_int = std::is_integral<T>::value;
// Floats compute in float (double for double) and round once to T. `%` and `floor_mod` are
// the NPU's TFMOD / TREM sequences (pto_ir::sem's FloatSem), one rounding per statement, so
// no compiler fuses the multiply into the subtraction.
template <typename T> using arith = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
template <typename T> AICORE inline T div(T a, T b) {
    if constexpr (is_int<T>) {
        if (b == 0) return T(0);
        if constexpr (std::is_signed<T>::value) {
            if (b == T(-1)) return T(typename std::make_unsigned<T>::type(0) - typename std::make_unsigned<T>::type(a));
        }
        return a / b;
    } else {
        return a / b;
    }
}
template <typename T> AICORE inline T rem(T a, T b) {
    if constexpr (is_int<T>) {
        if (b == 0) return a;
        if constexpr (std::is_signed<T>::value) {
            if (b == T(-1)) return T(0);
        }
        return a % b;
    } else {
        using F = arith<T>;
        const F x = F(a), y = F(b);
        const F q = F(__builtin_trunc(x / y));
        const F p = q * y;
        return T(x - p);
    }
}
template <typename T> AICORE inline T floor_mod(T a, T b) {
    if constexpr (is_int<T>) {
        T r = rem(a, b);
        if (b != T(0) && r != T(0) && ((r < T(0)) != (b < T(0)))) r = T(r + b);
        return r;
    } else {
        using F = arith<T>;
        const F x = F(a), y = F(b);
        const F q = F(__builtin_floor(x / y));
        const F p = q * y;
        const F r = x - p;
        const F s = r * y;
        return T(s < F(0) ? r + y : r);
    }
}
template <typename T> AICORE inline T floor_div(T a, T b) {
    if constexpr (is_int<T>) {
        T q = div(a, b);
        T r = rem(a, b);
        if (b != 0 && r != 0 && ((r < 0) != (b < 0))) q = T(q - 1);
        return q;
    } else {
        return T(__builtin_floor(a / b));
    }
}
template <typename D, typename S> AICORE inline D cast_trunc(S x) {
    if (x != x) return D(0);
    if (x <= S(std::numeric_limits<D>::lowest())) return std::numeric_limits<D>::lowest();
    if (x >= S(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
    return static_cast<D>(x);
}
// Equal zeros: `a + b` is -0 only when both are, `-(-a - b)` when either is (IEEE addition,
// to nearest): maximumNumber's +0, minimumNumber's -0 (pto_ir::sem's float semantics).
template <typename T> AICORE inline T min(T a, T b) {
    if (a == b && a == T(0)) return T(-(-a - b));
    return (b < a || a != a) ? b : a;
}
template <typename T> AICORE inline T max(T a, T b) {
    if (a == b && a == T(0)) return T(a + b);
    return (b > a || a != a) ? b : a;
}
// A run-time index outside its tensor or tile, where the host function returns Err: the
// kernel stops before the access. pto-isa's failed checks trap(); its CPU simulation has no
// trap(), so there the process aborts.
[[noreturn]] AICORE inline void out_of_bounds() {
#if defined(__CPU_SIM)
    __builtin_trap();
#else
    trap();
#endif
}
}  // namespace pto_rs

// rows lowered by pto-lower for A2A3.
// The kernel's returned scalars are written to `pto_ret0`, `pto_ret1`, ...: one-element
// global-memory buffers, after the symbolic dimensions.
AICORE inline void rows(__gm__ float* x, int64_t r_1 /* symbolic dimension */, int64_t* pto_ret0, float* pto_ret1) {
  float v5 = static_cast<float>(r_1);
  float v7 = (v5 * 0.5f);
  *pto_ret0 = r_1;
  *pto_ret1 = v7;
  return;
}

// run_incore_0 lowered by pto-lower for A2A3.
AICORE inline void run_incore_0(__gm__ float* x, __gm__ float* y, int64_t n, int64_t r_18 /* symbolic dimension */) {
  Tile<TileType::Vec, float, 1, 16, BLayout::RowMajor, DYNAMIC, 16, SLayout::NoneBox, 512, PadValue::Null> t0(1);
  TASSIGN(t0, 0x0); // 64 bytes of Vec
  for (int64_t r_12 = 0LL; r_12 < n; r_12 += 1LL) {
    pipe_barrier(PIPE_ALL);
    {
      if (static_cast<int64_t>(r_12) < 0 || static_cast<int64_t>(r_12) >= static_cast<int64_t>(r_18)) pto_rs::out_of_bounds();
      const int64_t e0 = (static_cast<int64_t>(r_18) - static_cast<int64_t>(r_12) < 1 ? static_cast<int64_t>(r_18) - static_cast<int64_t>(r_12) : 1);
      t0.SetValidRow(e0);
      using GT0 = GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, 16, 1>>;
      GT0 gt0(x + static_cast<int64_t>(r_12) * (1 * 16) + static_cast<int64_t>(0) * (1), {e0, 16});
      TLOAD(t0, gt0);
    }
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMULS(t0, t0, 2.0f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    {
      if (static_cast<int64_t>(r_12) < 0 || static_cast<int64_t>(r_12) >= static_cast<int64_t>(r_18)) pto_rs::out_of_bounds();
      const int64_t w0 = (static_cast<int64_t>(r_18) - static_cast<int64_t>(r_12) < 1 ? static_cast<int64_t>(r_18) - static_cast<int64_t>(r_12) : 1);
      const int64_t e0 = (static_cast<int64_t>(t0.GetValidRow()) < w0 ? static_cast<int64_t>(t0.GetValidRow()) : w0);
      Tile<TileType::Vec, float, 1, 16, BLayout::RowMajor, DYNAMIC, DYNAMIC, SLayout::NoneBox, 512, PadValue::Null> sv(e0, 16);
      TASSIGN(sv, 0x0);
      using GT1 = GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, 16, 1>>;
      GT1 gt1(y + static_cast<int64_t>(r_12) * (1 * 16) + static_cast<int64_t>(0) * (1), {e0, 16});
      TSTORE(gt1, sv);
    }
  }
}

// run lowered by pto-lower for A2A3.
// The kernel's returned scalars are written to `pto_ret0`, `pto_ret1`, ...: one-element
// global-memory buffers, after the symbolic dimensions.
__global__ AICORE void run(__gm__ float* x, __gm__ float* y, int64_t r_3 /* symbolic dimension */, __gm__ float* pto_ret0) {
  int64_t n_8;
  float h_9;
  pipe_barrier(PIPE_ALL);
  rows(x, r_3, &n_8, &h_9);
  pipe_barrier(PIPE_ALL);
  run_incore_0(x, y, n_8, r_3);
  pipe_barrier(PIPE_ALL);
  *pto_ret0 = h_9;
  return;
}
"#;
    /// The program's IR as a value, parsed back from [`IR`].
    pub fn program() -> ::pto::ir::ProgramModule {
        match ::pto::ir::parse(IR) {
            ::core::result::Result::Ok(m) => m,
            ::core::result::Result::Err(e) => {
                ::core::panicking::panic_fmt(
                    format_args!("`doubled::IR` does not parse back: {0}", e),
                );
            }
        }
    }
}
fn main() {}
