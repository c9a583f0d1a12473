/// An `if` that merges a scalar assigned in one branch.
#[allow(clippy::all, clippy::pedantic)]
pub fn clamp_add(
    a: f32,
    limit: f32,
    flag: bool,
) -> ::core::result::Result<f32, ::pto::Error> {
    use ::pto::Element;
    let v_5: f32;
    if flag {
        let v_4: f32 = Element::add(a, 1f32);
        v_5 = v_4;
    } else {
        v_5 = a;
    }
    let v_6: bool = v_5 > limit;
    let v_7: f32;
    if v_6 {
        v_7 = limit;
    } else {
        v_7 = v_5;
    }
    ::core::result::Result::Ok(v_7)
}
///Compile-time artifacts of the `clamp_add` kernel.
#[allow(dead_code)]
pub mod clamp_add {
    /// The verified PTO-IR of the kernel (statement form).
    pub const IR: &str = r#"program.module @clamp_add {
  program.entry @clamp_add
  attr arch = "PTOv2"
  func.func @clamp_add(%a_0: fp32, %limit_1: fp32, %flag_2: bool) -> (fp32) {
    %v_5 = statement.if %flag_2 {
      statement.op {
        %3 = 1.0 : fp32
        %v_4 = scalar.add %a_0, %3 : (fp32, fp32) -> fp32
      }
      statement.yield %v_4
    } else {
      statement.yield %a_0
    }
    statement.op {
      %6 = scalar.gt %v_5, %limit_1 : (fp32, fp32) -> bool
    }
    %7 = statement.if %6 {
      statement.yield %limit_1
    } else {
      statement.yield %v_5
    }
    statement.return %7
  }
  // func.kind = kernel
}
"#;
    /// The IR after the lowering pipeline (seed-002 MLIR style).
    pub const LOWERED: &str = r#"// clamp_add lowered for A2A3: canonicalize, canonicalize-views, tile-tensor-ops, legalize, infer-tile-info, insert-events, bufferize, lower-to-isa, fence, split-cores, fuse-chains, share-tiles
module attributes {pto.target = #pto.target<A2A3>} {
  func.func @clamp_add(%a_0: f32, %limit_1: f32, %flag_2: i1) -> (f32) {
    %v_5 = scf.if %flag_2 -> (f32) {
      %3 = pto.constant 1.0 : f32
      %v_4 = pto.scalar.add %a_0, %3 : f32
      scf.yield %v_4 : f32
    } else {
      scf.yield %a_0 : f32
    }
    %6 = pto.scalar.gt %v_5, %limit_1 : f32, f32 -> i1
    %7 = scf.if %6 -> (f32) {
      scf.yield %limit_1 : f32
    } else {
      scf.yield %v_5 : f32
    }
    func.return %7 : f32
  }
}
"#;
    /// The lowered kernel as PTO-ISA C++ source.
    pub const CPP: &str = r#"// clamp_add lowered by pto-lower for A2A3.
// The kernel's returned scalars are written to `pto_ret0`, `pto_ret1`, ...: one-element
// global-memory buffers, after the symbolic dimensions.
#include <pto/pto-inst.hpp>
#include "common/pto_instr.hpp"
using namespace pto;

__global__ AICORE void clamp_add(float a, float limit, bool flag, __gm__ float* pto_ret0) {
  float v_5;
  if (flag) {
    float v_4 = (a + 1.0f);
    v_5 = v_4;
  } else {
    v_5 = a;
  }
  bool v6 = (v_5 > limit);
  float v7;
  if (v6) {
    v7 = limit;
  } else {
    v7 = v_5;
  }
  *pto_ret0 = v7;
  return;
}
"#;
    /// The IR as a value, parsed back from [`IR`].
    pub fn program() -> ::pto::ir::ProgramModule {
        match ::pto::ir::parse(IR) {
            ::core::result::Result::Ok(m) => m,
            ::core::result::Result::Err(e) => {
                ::core::panicking::panic_fmt(
                    format_args!("`clamp_add::IR` does not parse back: {0}", e),
                );
            }
        }
    }
}
