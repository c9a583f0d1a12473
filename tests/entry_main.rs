//! Issue 14: an entry named `main`. C++ reserves `::main` (a host program's `int main()`),
//! so the C++ emitter spells the function `main_` (`pto_lower::emit::cpp::function_name`,
//! the one name mangling every declaration, call, cube / vector part and launcher uses).
//! Each path that makes C++ for such an entry: a `#[pto::program]` (`NAME::CPP`, through
//! `compile_program`), a lone `#[pto::kernel]` (through `compile`, split into cube and
//! vector parts on A2A3) and IR text with `func.func @main`; each compiles and runs in the
//! C++ model for A2A3 and A5 against the interpreter, at aligned and ragged sizes.
#![allow(clippy::unwrap_used)]

mod support;

use pto::prelude::*;
use support::model::harness::cpp_for;

#[pto::program(tile_default(M = 16, N = 16, K = 16))]
mod prog {
    /// `y = x * s` row tile by row tile.
    #[pto::kernel]
    pub fn scale(x: &Tensor<f32, R, C>, s: f32, y: &mut Tensor<f32, R, C>) {
        for r in (0..R).step_by(8) {
            for c in (0..C).step_by(16) {
                y.store([r, c], x.load::<8, 16>([r, c]) * s);
            }
        }
    }

    #[pto::kernel]
    #[entry]
    pub fn main(x: &Tensor<f32, R, C>, y: &mut Tensor<f32, R, C>) {
        scale(x, 2.5, y);
    }
}

mod lone {
    use pto::prelude::*;

    /// `out = relu(a @ b)`: cube and vector work, two parts on A2A3.
    #[pto::kernel]
    pub fn main(
        a: &Tensor<f32, M, 32>,
        b: &Tensor<f32, 32, 16>,
        #[out] out: &mut Tensor<f32, M, 16>,
    ) {
        for i in (0..M).step_by(16) {
            out.store(
                [i, 0],
                matmul(a.load::<16, 32>([i, 0]), b.load::<32, 16>([0, 0])).relu(),
            );
        }
    }
}

/// IR text of an entry `@main`: `y = x + 1` in 8 x 16 tiles.
const TEXT: &str = "program.module @m {
  program.entry @main
  func.func @main(%x_1: tensor<[%R_2, %C_3], fp32> #in, %y_4: tensor<[%R_2, %C_3], fp32> #out) {
    statement.op {
      %z_5 = 0 : int64
      %s_6 = 8 : int64
      %t_7 = 16 : int64
      %k_8 = 1.0 : fp32
    }
    statement.for %i_9 = %z_5 to %R_2 step %s_6 {
      statement.for %j_10 = %z_5 to %C_3 step %t_7 {
        statement.op {
          %a_11 = tile.load %x_1 : (tensor<[%R_2, %C_3], fp32>) -> tile<[?, ?], [8, 16], fp32> {shape=[8, 16], offset=[%i_9, %j_10]}
          %b_12 = tile.add %a_11, %k_8 : (tile<[?, ?], [8, 16], fp32>, fp32) -> tile<[?, ?], [8, 16], fp32>
          tile.store %b_12, %y_4 : (tile<[?, ?], [8, 16], fp32>, tensor<[%R_2, %C_3], fp32>) -> ()  {offset=[%i_9, %j_10]}
        }
        statement.yield
      }
      statement.yield
    }
    statement.return
  }
}
";

/// No path declares or calls a function `main` in the C++.
fn no_bare_main(cpp: &str, what: &str) {
    for bad in [" main(", " main_aic(", " main_aiv("] {
        assert!(!cpp.contains(bad), "{what}: `{bad}` in\n{cpp}");
    }
}

#[test]
fn a_program_entry_named_main() {
    assert!(
        prog::CPP.contains("__global__ AICORE void main_("),
        "{}",
        prog::CPP
    );
    no_bare_main(prog::CPP, "program");
    let m = prog::program();
    // The model compiles what `NAME::CPP` is.
    assert_eq!(cpp_for(&m, "A2A3").unwrap(), prog::CPP);
    let sizes = vec![vec![("R", 16), ("C", 32)], vec![("R", 21), ("C", 37)]];
    let problems = support::model::check("prog", &m, &sizes, true);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_lone_kernel_named_main_split_on_a2a3() {
    let cpp = lone::main::CPP;
    assert!(cpp.contains("AICORE inline void main__aic("), "{cpp}");
    assert!(cpp.contains("main__aiv("), "{cpp}");
    assert!(cpp.contains("__global__ AICORE void main_("), "{cpp}");
    no_bare_main(cpp, "lone kernel");
    let m = lone::main::program();
    assert_eq!(cpp_for(&m, "A2A3").unwrap(), cpp);
    no_bare_main(&cpp_for(&m, "A5").unwrap(), "lone kernel on A5");
    let sizes = vec![vec![("M", 32)], vec![("M", 37)]];
    let problems = support::model::check("lone", &m, &sizes, true);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn ir_text_with_func_main() {
    let m = pto::ir::parse(TEXT).unwrap();
    pto::ir::verify(&m).unwrap();
    for target in ["A2A3", "A5"] {
        let cpp = cpp_for(&m, target).unwrap();
        assert!(cpp.contains("__global__ AICORE void main_("), "{cpp}");
        no_bare_main(&cpp, target);
    }
    let sizes = vec![vec![("R", 16), ("C", 32)], vec![("R", 21), ("C", 37)]];
    let problems = support::model::check("text", &m, &sizes, true);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
