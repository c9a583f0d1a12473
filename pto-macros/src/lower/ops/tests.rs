//! The op table is the macro's one source of spellings: every row a kernel may write is
//! reachable from the macro (a kernel written with the row's spelling builds the row's op),
//! and every operator and composed method the macro knows has a row or is composed of rows.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use proc_macro2::TokenStream;
use pto_ir::ops::{OPS, OpInfo, Operand, Spelling};
use pto_ir::{DataType, OpClass, Opcode};

use super::{COMPOSED, bin_of, functions, methods, spelled, value_operands};
use crate::ctxt::Errors;

/// The ops a kernel lowers to (before any pass), or its error messages.
fn lower(src: &str) -> Result<Vec<Opcode>, String> {
    lower_with(src, TokenStream::new())
}

/// [`lower`] with the kernel attribute's arguments (`data_flow`, ...).
fn lower_with(src: &str, args: TokenStream) -> Result<Vec<Opcode>, String> {
    let item: syn::ItemFn = syn::parse_str(src).map_err(|e| format!("{e}"))?;
    let mut errs = Errors::new();
    let args = crate::args::parse(args, &mut errs);
    let model = crate::model::build(&item, &mut errs);
    let lowered = crate::lower::lower(&model, &args, &mut errs);
    match (lowered, errs.combined()) {
        (Some(l), None) => Ok(l.module.ops.iter().map(|(_, o)| o.opcode).collect()),
        (_, e) => Err(e
            .map(|e| {
                e.into_iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("; ")
            })
            .unwrap_or_default()),
    }
}

/// The dtype a kernel exercising `op` uses: the first the op accepts.
fn dtype_for(op: Opcode) -> DataType {
    [DataType::Fp32, DataType::Int32, DataType::Bool]
        .into_iter()
        .find(|&d| op.accepts(d))
        .unwrap_or(DataType::Fp32)
}

/// The expressions (or statements, for ops without a result) that write `row` with its
/// spelling, on operands `a`, `b` (tiles or scalars of `t`) and tensors `x`, `y`; one per
/// form (`a.max(b)` and `max(a, b)`). Classes whose arguments are not values each have a
/// form here: a new one must be added, or this panics naming it.
fn written(row: &OpInfo, t: &str, one: &str) -> Vec<String> {
    let tensor_level = matches!(row.class, OpClass::TensorBinary | OpClass::TensorUnary);
    let (a, b) = if tensor_level { ("x", "x") } else { ("a", "b") };
    let name = row.spelling.text();
    let function_args = |class| match class {
        OpClass::MatmulAcc => "matmul(a, b), a, b".to_string(),
        OpClass::MatmulBias => "a, b, x.load::<1, 16>([0, 0])".to_string(),
        _ => format!("{a}, {b}"),
    };
    let method = |class| -> String {
        match (class, value_operands(class)) {
            (OpClass::Select, _) => format!("a.gt(b).{name}(a, b)"),
            (_, Some(1)) => format!("{a}.{name}()"),
            (_, Some(2)) => format!("{a}.{name}({b})"),
            // (Not to fp64: no target computes on fp64 tiles, the verifier refuses it.)
            (OpClass::TileCast, _) => format!("a.{name}::<f16>()"),
            (OpClass::RowExpand, _) => format!("a.row_sum().{name}::<8>()"),
            (OpClass::ColExpand, _) => format!("a.col_sum().{name}::<8>()"),
            (OpClass::Reshape, _) => format!("a.{name}::<8, 32>()"),
            (OpClass::Extract, _) => format!("a.{name}::<2, 8>([0, 0])"),
            (OpClass::TileAssemble, _) => format!("a.{name}([0, 0], a.extract::<2, 8>([0, 0]))"),
            (OpClass::Valid, _) => format!("a.{name}([2, 4])"),
            (OpClass::Load, _) if row.opcode == Opcode::TileLoadOr => {
                format!("x.{name}::<8, 8>([0, 0], {one})")
            }
            (OpClass::Load, _) => format!("x.{name}::<8, 8>([0, 0])"),
            (OpClass::Store, _) => format!("y.{name}([0, 0], a)"),
            (OpClass::ElementRead, _) => format!("x.{name}([0, 0])"),
            (OpClass::ElementWrite, _) => format!("y.{name}([0, 0], {one})"),
            (OpClass::TensorView, _) => format!("x.{name}([4, 4], [0, 0])"),
            (OpClass::TensorAssemble, _) => format!("y.{name}(x, [0, 0])"),
            (class, _) => panic!(
                "{}: no kernel form for a method of class {class:?}",
                row.opcode
            ),
        }
    };
    match row.spelling {
        Spelling::Operator("as") => vec![format!("a as f64")],
        Spelling::Operator(o) => vec![format!("{a} {o} {b}")],
        Spelling::Prefix(o) => vec![format!("{o}{a}")],
        Spelling::Method(_) => vec![method(row.class)],
        Spelling::MethodOrFunction(_) => {
            vec![
                method(row.class),
                format!("{name}({})", function_args(row.class)),
            ]
        }
        Spelling::Function(_) => vec![format!("{name}({})", function_args(row.class))],
        Spelling::Constructor(_) => vec![format!("Tile::<{t}, 8, 8>::{name}({one})")],
        Spelling::Literal | Spelling::Lowering => Vec::new(),
    }
}

/// A kernel evaluating `e` on operands of `on` with element dtype `d`.
fn kernel(on: Operand, d: DataType, e: &str, has_result: bool) -> String {
    let t = d.rust_name().unwrap_or("f32");
    let stmt = if has_result {
        format!("let r = {e};")
    } else {
        format!("{e};")
    };
    match on {
        Operand::Scalar => format!("fn k(a: {t}, b: {t}) {{ {stmt} }}"),
        Operand::Tile | Operand::Tensor => format!(
            "fn k(x: &Tensor<{t}, 16, 16>, #[out] y: &mut Tensor<{t}, 16, 16>) {{
                let a = x.load::<16, 16>([0, 0]);
                let b = x.load::<16, 16>([0, 0]);
                {stmt}
            }}"
        ),
    }
}

#[test]
fn every_spelling_of_the_op_table_is_reachable_from_the_macro() {
    let mut reached = 0;
    for row in OPS {
        let Some(on) = row.class.operand() else {
            // Constants are literals; `func.call` is a call of a `#[pto::program]`'s kernel
            // (tests/program.rs).
            continue;
        };
        let d = dtype_for(row.opcode);
        let t = d.rust_name().unwrap_or("f32");
        let one = if d.is_float() { "1.0" } else { "1" };
        for e in written(row, t, one) {
            let src = kernel(on, d, &e, !row.opcode.has_no_result());
            // Tensor-level ops are written in `data_flow` functions (dsl.md 5.7).
            let args = if row.dialect == "tensor" {
                quote::quote!(data_flow)
            } else {
                TokenStream::new()
            };
            match lower_with(&src, args) {
                Ok(ops) => {
                    assert!(
                        ops.contains(&row.opcode),
                        "`{e}` on {d} does not build {} but {ops:?}",
                        row.opcode
                    );
                    reached += 1;
                }
                other => panic!("{}: `{e}` on {d}: {other:?}\n{src}", row.opcode),
            }
        }
    }
    assert!(reached >= 80, "{reached}");
}

#[test]
fn every_operator_and_composed_method_of_the_macro_has_rows() {
    // Every operator syn parses that the macro maps means a row of the table on scalars
    // or on tiles.
    let operators = [
        "+", "-", "*", "/", "%", "&&", "||", "^", "&", "|", "<<", ">>", "==", "<", "<=", "!=",
        ">=", ">", "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "<<=", ">>=",
    ];
    for o in operators {
        let e: syn::ExprBinary = syn::parse_str(&format!("a {o} b")).unwrap();
        let (spelling, _) = bin_of(&e.op).unwrap_or_else(|| panic!("`{o}` is not mapped"));
        assert!(
            [Operand::Scalar, Operand::Tile]
                .into_iter()
                .any(|on| spelled(spelling, on, None).is_some()),
            "`{o}` has no row"
        );
    }
    for o in ["-", "!"] {
        assert!(
            spelled(Spelling::Prefix(o), Operand::Scalar, None).is_some(),
            "{o}"
        );
    }
    // The composed methods are no row's spelling (a row would be shadowed), and compile.
    for c in COMPOSED {
        assert!(
            spelled(c.spelling, c.on, None).is_none(),
            "{:?} is composed but also a row",
            c.spelling
        );
        let e = match c.spelling {
            Spelling::Constructor(n) => format!("Tile::<f32, 8, 8>::{n}()"),
            Spelling::Method("cast_round") => "a.cast_round::<i32>(Round::Nearest)".to_string(),
            Spelling::Method(n) => format!("a.{n}(b)"),
            other => panic!("{other:?}"),
        };
        for d in [DataType::Fp32, DataType::Int32] {
            let ops = lower(&kernel(c.on, d, &e, true));
            // Integer `floor_div` is composed from `floor_mod`, which no target computes
            // on integers (the verifier's rule, reported at the method).
            if e == "a.floor_div(b)" && d == DataType::Int32 {
                assert!(
                    ops.as_ref().is_err_and(
                        |m| m.contains("`a.floor_mod(b)` on int32 tiles is not legal on A2A3")
                    ),
                    "`{e}` on {d}: {ops:?}"
                );
                continue;
            }
            assert!(
                ops.as_ref().is_ok_and(|o| !o.is_empty()),
                "`{e}` on {d}: {ops:?}"
            );
        }
    }
}

#[test]
fn the_messages_list_what_the_table_spells() {
    let tile = methods(Operand::Tile, None);
    for m in [
        "exp()",
        "max(b)",
        "select(a, b)",
        "cast::<T>()",
        "extract::<R, C>([i, j])",
        "floor_div(b)",
    ] {
        assert!(tile.contains(m), "{m}: {tile}");
    }
    assert!(!tile.contains("load"), "{tile}");
    let scalar = methods(Operand::Scalar, None);
    for m in ["abs()", "max(b)", "floor_div(b)", "pow(b)"] {
        assert!(scalar.contains(m), "{m}: {scalar}");
    }
    let tensor = methods(Operand::Tensor, None);
    assert!(
        tensor.contains("load::<R, C>([i, j])") && tensor.contains("view([sizes], [offsets])"),
        "{tensor}"
    );
    // The tensor-level ones: the tensor dialect's methods, not the tile-producing `load`.
    let level = methods(Operand::Tensor, Some("tensor"));
    assert_eq!(
        level,
        "view([sizes], [offsets]), assemble(v, [offsets]), max(b), min(b), exp(), abs(), sqrt(), relu()"
    );
    let f = functions();
    for m in [
        "max(a, b)",
        "matmul_acc(acc, a, b)",
        "Tile::<T, R, C>::full(v)",
        "Tile::<T, R, C>::zeros()",
    ] {
        assert!(f.contains(m), "{m}: {f}");
    }
    assert!(!f.contains("f(..)"), "{f}");
}
