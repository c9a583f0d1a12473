//! Hostile IR text: nesting as deep as the printer prints parses back and one level more is
//! a parse error; printing is a fixed point for every module the parser accepts, verified
//! or not.

use pto_ir::MAX_NESTING;

/// A kernel whose body nests `depth` blocks (the body counts as one).
fn nested_ifs(depth: usize) -> String {
    let mut s = String::from(
        "program.module @deep {\n  program.entry @deep\n  func.func @deep(%c_1: bool) {\n",
    );
    for _ in 1..depth {
        s.push_str("statement.if %c_1 {\n");
    }
    s.push_str("statement.yield\n");
    for _ in 1..depth {
        s.push_str("} else {\nstatement.yield\n}\nstatement.yield\n");
    }
    s.push_str("statement.return\n  }\n  // func.kind = kernel\n}\n");
    s
}

#[test]
fn the_parser_accepts_what_the_printer_prints_and_no_deeper() {
    let text = nested_ifs(MAX_NESTING);
    let m = pto_ir::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let printed = m.to_string();
    assert!(!printed.contains("nesting too deep"));
    let again = pto_ir::parse(&printed).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again.to_string(), printed);

    let e = pto_ir::parse(&nested_ifs(MAX_NESTING + 1)).err();
    let e = e.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        e.contains(&format!("blocks nested deeper than {MAX_NESTING}")),
        "{e}"
    );
    // At the first statement of the block one level too deep: line and column.
    assert!(e.starts_with(&format!("{}:1:", MAX_NESTING + 4)), "{e}");
}

/// Printing, parsing and printing again gives the same text, whether the module verifies.
fn assert_print_fixed_point(text: &str) {
    let Ok(m) = pto_ir::parse(text) else {
        return;
    };
    let once = m.to_string();
    let again = pto_ir::parse(&once)
        .unwrap_or_else(|e| panic!("printed text does not parse: {e}\n{once}"))
        .to_string();
    assert_eq!(again, once, "from:\n{text}");
}

#[test]
fn printing_a_module_that_does_not_verify_is_a_fixed_point() {
    let undefined_yield = "program.module @m {
  program.entry @f
  func.func @f(%c_1: bool) -> (fp32) {
    %r_2 = statement.if %c_1 {
      statement.yield %u_9
    } else {
      statement.op {
        %z_3 = 0.0 : fp32
      }
      statement.yield %z_3
    }
    statement.return %r_2
  }
  // func.kind = kernel
}
";
    assert!(
        pto_ir::verify(&pto_ir::parse(undefined_yield).unwrap_or_else(|e| panic!("{e}"))).is_err()
    );
    assert_print_fixed_point(undefined_yield);
}

/// The builder refuses to open a block past the depth the text holds, so everything it
/// builds prints text that parses back.
#[test]
fn the_builder_refuses_blocks_past_the_bound() {
    use pto_ir::{Constant, FunctionKind, IRBuilder, IRBuilderContext, ProgramModule, Signature};
    let mut b = IRBuilder::new(ProgramModule::new("m"));
    let mut ctx = IRBuilderContext::new();
    let f = b
        .create_function("f", FunctionKind::Kernel, Signature::default(), true)
        .unwrap_or_else(|e| panic!("{e:?}"));
    b.enter_function_body(&mut ctx, f)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let c = b
        .create_const(&mut ctx, Constant::Bool(true), None, "c")
        .unwrap_or_else(|e| panic!("{e:?}"));
    let mut opened = 1;
    let refused = loop {
        match b.create_if_stmt(&mut ctx, c) {
            Ok(s) => {
                b.enter_if_then(&mut ctx, s)
                    .unwrap_or_else(|e| panic!("{e:?}"));
                opened += 1;
            }
            Err(e) => break e,
        }
        assert!(opened <= MAX_NESTING, "opened {opened} blocks");
    };
    assert_eq!(opened, MAX_NESTING);
    assert!(
        refused.message.contains("blocks nested deeper than"),
        "{}",
        refused.message
    );
}
