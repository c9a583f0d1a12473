/// An `if` that merges a scalar assigned in one branch.
#[allow(clippy::all, clippy::pedantic)]
pub fn clamp_add(
    a: f32,
    limit: f32,
    flag: bool,
) -> ::core::result::Result<f32, ::pto::Error> {
    let v_5: f32;
    if flag {
        let v_4: f32 = ::pto::Element::add(a, 1f32);
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
    pub const IR: &str = "program.module @clamp_add {\n  program.entry @clamp_add\n  attr arch = \"PTOv2\"\n  func.func @clamp_add(%a_0: fp32, %limit_1: fp32, %flag_2: bool) -> (fp32) {\n    %v_5 = statement.if %flag_2 {\n      statement.op {\n        %3 = 1.0 : fp32\n        %v_4 = scalar.add %a_0, %3 : (fp32, fp32) -> fp32\n      }\n      statement.yield %v_4\n    } else {\n      statement.yield %a_0\n    }\n    statement.op {\n      %6 = scalar.gt %v_5, %limit_1 : (fp32, fp32) -> bool\n    }\n    %7 = statement.if %6 {\n      statement.yield %limit_1\n    } else {\n      statement.yield %v_5\n    }\n    statement.return %7\n  }\n  // func.kind = kernel\n}\n";
    /// The IR after the lowering pipeline (seed-002 MLIR style).
    pub const LOWERED: &str = "// clamp_add lowered for A2A3: canonicalize, infer-tile-info, insert-events, bufferize\nmodule attributes {pto.target = #pto.target<A2A3>} {\n  func.func @clamp_add(%a_0: f32, %limit_1: f32, %flag_2: i1) -> (f32) {\n    %v_5 = scf.if %flag_2 -> (f32) {\n      %3 = pto.constant 1.0 : f32\n      %v_4 = pto.scalar.add %a_0, %3 : f32\n      scf.yield %v_4 : f32\n    } else {\n      scf.yield %a_0 : f32\n    }\n    %6 = pto.scalar.gt %v_5, %limit_1 : f32, f32 -> i1\n    %7 = scf.if %6 -> (f32) {\n      scf.yield %limit_1 : f32\n    } else {\n      scf.yield %v_5 : f32\n    }\n    func.return %7 : f32\n  }\n}\n";
    /// The lowered kernel as PTO-ISA C++ source.
    pub const CPP: &str = "// clamp_add lowered by pto-lower for A2A3.\n#include \"common/pto_instr.hpp\"\nusing namespace pto;\n\n__global__ AICORE void clamp_add(float a, float limit, bool flag) {\n  float v_5;\n  if (flag) {\n    float v_4 = (a + 1.0f);\n    v_5 = v_4;\n  } else {\n    v_5 = a;\n  }\n  bool v6 = (v_5 > limit);\n  float v7;\n  if (v6) {\n    v7 = limit;\n  } else {\n    v7 = v_5;\n  }\n  return; // the kernel returns v7 to the host\n}\n";
    /// The IR as a value, parsed back from [`IR`].
    pub fn program() -> ::pto::ir::ProgramModule {
        match ::pto::ir::parse(IR) {
            ::core::result::Result::Ok(m) => m,
            ::core::result::Result::Err(_) => ::pto::ir::ProgramModule::new("invalid"),
        }
    }
}
