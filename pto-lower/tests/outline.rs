//! The `outline-incore` pass on its own: each `tests/files/outline-incore/*.pto` after the
//! pass is pinned in `<name>.expected` (`BLESS=1` rewrites), verifies, and prints back
//! identically after a parse; the outlined module computes what the input computes
//! (interpreter); what cannot be outlined is an error at the scope.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use pto_ir::{FunctionKind, Opcode};
use pto_lower::interp::{HostValue, run};
use pto_lower::passes::{Pass, pass_by_name};

fn outlined(name: &str) -> (pto_ir::ProgramModule, pto_ir::ProgramModule) {
    let path = common::dir().join("tests/files/outline-incore").join(name);
    let before = common::load(&path);
    let mut m = before.clone();
    pass_by_name("outline-incore").unwrap().run(&mut m).unwrap();
    pto_ir::verify(&m).unwrap_or_else(|e| panic!("{name} after outline-incore: {e}\n{m}"));
    let text = m.to_string();
    let reparsed = pto_ir::parse(&text).unwrap();
    assert_eq!(reparsed.to_string(), text, "{name} does not print back");
    assert!(pto_ir::structurally_equal(&m, &reparsed));
    assert!(!text.contains("statement.scope"), "{name}: a scope is left");
    common::check_snapshot(&path.with_extension("expected"), &text);
    (before, m)
}

#[test]
fn a_scope_in_a_loop_becomes_a_call_with_its_live_ins_and_live_outs() {
    let (before, m) = outlined("scope_in_loop.pto");
    let g = m.function_by_name("main_incore_0").expect("outlined");
    let gf = &m.funcs[g];
    assert_eq!(gf.kind, FunctionKind::InCore);
    // x, y (tensors first), then r, s and the carried n.
    assert_eq!(gf.sig.params.len(), 5);
    assert_eq!(gf.sig.returns.len(), 1);
    assert_eq!(gf.dims.len(), 1, "R is bound from the tensors");
    let main = m.function_by_name("main").unwrap();
    assert_eq!(m.funcs[main].kind, FunctionKind::Orchestration);
    assert!(m.ops.iter().any(|(_, o)| o.opcode == Opcode::Call));
    // Same results through the interpreter, before and after.
    for rows in [1usize, 3, 7] {
        let args = |_: ()| {
            vec![
                HostValue::tensor(
                    pto_ir::DataType::Fp32,
                    vec![rows, 16],
                    (0..rows * 16).map(|i| i as f64 * 0.5 - 3.0).collect(),
                )
                .unwrap(),
                HostValue::tensor(pto_ir::DataType::Fp32, vec![rows, 16], vec![0.0; rows * 16])
                    .unwrap(),
                HostValue::f32(1.5),
            ]
        };
        let (mut a, mut b) = (args(()), args(()));
        let ra = run(&before, before.entry.unwrap(), &mut a).unwrap();
        let rb = run(&m, m.entry.unwrap(), &mut b).unwrap();
        assert_eq!(format!("{ra:?}"), format!("{rb:?}"), "{rows} rows");
        assert_eq!(
            format!("{:?}", a[1]),
            format!("{:?}", b[1]),
            "{rows} rows: y"
        );
        assert_eq!(
            rb.first().and_then(HostValue::as_i64),
            Some((0..rows as i64).sum())
        );
    }
}

#[test]
fn nested_scopes_are_outlined_in_turn() {
    let (_, m) = outlined("nested.pto");
    assert!(m.function_by_name("nested_incore_0").is_some());
    assert!(m.function_by_name("nested_incore_0_incore_0").is_some());
    assert_eq!(m.functions.len(), 3);
}

#[test]
fn a_tile_made_inside_and_used_after_is_an_error_at_the_scope() {
    let src = "program.module @k {
  program.entry @k
  func.func @k(%x_0: tensor<[4, 16], fp32> #in, %y_1: tensor<[4, 16], fp32> #inout) {
    statement.scope incore {
      statement.op {
        %t_2 = tile.load %x_0 : (tensor<[4, 16], fp32>) -> tile<[4, 16], [4, 16], fp32> {shape=[4, 16], offset=[0, 0]}
      }
    }
    statement.op {
      tile.store %t_2, %y_1 : (tile<[4, 16], [4, 16], fp32>, tensor<[4, 16], fp32>) -> () {offset=[0, 0]}
    }
  }
  // func.kind = kernel
}
";
    let mut m = pto_ir::parse(src).unwrap();
    let e = pto_lower::passes::outline::OutlineIncore
        .run(&mut m)
        .unwrap_err()
        .to_string();
    assert!(e.contains("used after it"), "{e}");
    assert!(e.contains("scalars only"), "{e}");
}

#[test]
fn a_break_out_of_the_region_is_an_error_at_the_scope() {
    let src = "program.module @k {
  program.entry @k
  func.func @k(%n_0: int64) {
    statement.op {
      %1 = 0 : int64
      %2 = 1 : int64
    }
    statement.for %i_3 = %1 to %n_0 step %2 {
      statement.scope incore {
        statement.break
      }
      statement.yield
    }
  }
  // func.kind = kernel
}
";
    let mut m = pto_ir::parse(src).unwrap();
    let e = pto_lower::passes::outline::OutlineIncore
        .run(&mut m)
        .unwrap_err()
        .to_string();
    assert!(e.contains("leaves a loop outside the region"), "{e}");
}
