//! Round-trip file tests: every `tests/files/roundtrip/*.pto` is written in canonical printed
//! form, so `print(parse(file)) == file` pins the printer; re-parsing the print gives a
//! structurally equal module with the same structural hash. Run with `BLESS=1` to rewrite
//! the files from the printer's output (then review the diff).
//!
//! The corpus covers every row of the op table (typed as `ops::infer` types it, which this
//! test checks op by op), every statement kind, symbolic dimensions, `?` and SSA valid
//! extents. The structural-equality tests at the end mutate parsed modules.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use pto_ir::eq::structural_hash;
use pto_ir::ops::{OPS, infer};
use pto_ir::{
    Attr, DataType, ForKind, OpClass, ProgramModule, StmtKind, Type, parse, structurally_equal,
};

fn corpus() -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/files/roundtrip");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read tests/files/roundtrip")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pto"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .pto files in {}", dir.display());
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("read .pto");
            (p, text)
        })
        .collect()
}

fn parse_ok(text: &str, what: &str) -> ProgramModule {
    match parse(text) {
        Ok(m) => m,
        Err(e) => panic!("{what}: parse failed:\n{e}"),
    }
}

fn parsed_corpus() -> Vec<(String, ProgramModule)> {
    corpus()
        .into_iter()
        .map(|(p, text)| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let m = parse_ok(&text, &name);
            (name, m)
        })
        .collect()
}

#[test]
fn files_are_printed_form_and_round_trip() {
    let bless = std::env::var_os("BLESS").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    for (path, text) in corpus() {
        let name = path.display().to_string();
        let m = parse_ok(&text, &name);
        let printed = m.to_string();
        if bless {
            if printed != text {
                std::fs::write(&path, &printed).expect("bless: write file");
            }
        } else if printed != text {
            failures.push(format!(
                "{name}: printed form differs from the file (run with BLESS=1 to update)\n--- printed ---\n{printed}"
            ));
            continue;
        }
        let m2 = parse_ok(&printed, &format!("{name} (reprinted)"));
        assert_eq!(
            m2.to_string(),
            printed,
            "{name}: print is not a fixed point"
        );
        assert!(structurally_equal(&m, &m2), "{name}: parse(print(m)) != m");
        assert!(
            structurally_equal(&m2, &m),
            "{name}: equality is not symmetric"
        );
        assert_eq!(
            structural_hash(&m),
            structural_hash(&m2),
            "{name}: hashes differ"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_op_is_typed_as_infer_types_it() {
    for (name, m) in parsed_corpus() {
        for (id, op) in m.ops.iter() {
            if op.opcode.class() == OpClass::Const {
                let r = op.results[0];
                let c = m.values[r].constant.expect("constant result");
                assert!(
                    op.attrs.get("value").is_some(),
                    "{name}: {id:?} has no value attr"
                );
                if !matches!(m.values[r].ty, Type::Scalar(_)) {
                    panic!("{name}: constant {c} is not a scalar");
                }
                continue;
            }
            let want: Vec<Type> = op.results.iter().map(|&r| m.values[r].ty.clone()).collect();
            match infer(&m, op.opcode, &op.operands, &op.attrs) {
                Ok(got) => assert_eq!(
                    got, want,
                    "{name}: `{}` ({id:?}) result types differ from infer",
                    op.opcode
                ),
                Err(e) => panic!(
                    "{name}: `{}` ({id:?}) does not type: {}",
                    op.opcode, e.message
                ),
            }
        }
    }
}

#[test]
fn corpus_covers_every_op_and_statement_kind() {
    let mut ops = HashSet::new();
    let mut kinds = HashSet::new();
    let mut parallel = false;
    let mut for_iter_args = false;
    let mut if_results = false;
    let mut nested_for = false;
    let mut break_values = false;
    let mut continue_values = false;
    let mut return_values = false;
    let mut dynamic_valid = false;
    let mut value_valid = false;
    let mut symbolic_dims = false;
    for (_, m) in parsed_corpus() {
        for (_, op) in m.ops.iter() {
            ops.insert(op.opcode);
        }
        for (_, st) in m.stmts.iter() {
            kinds.insert(st.kind.keyword());
            match &st.kind {
                StmtKind::For(f) => {
                    parallel |= f.kind == ForKind::Parallel;
                    for_iter_args |= !f.iter_args.is_empty() && !f.results.is_empty();
                    nested_for |= m.blocks[f.body]
                        .stmts
                        .iter()
                        .any(|&s| matches!(m.stmts[s].kind, StmtKind::For(_)));
                }
                StmtKind::If(i) => if_results |= !i.results.is_empty(),
                StmtKind::Break(v) => break_values |= !v.is_empty(),
                StmtKind::Continue(v) => continue_values |= !v.is_empty(),
                StmtKind::Return(v) => return_values |= !v.is_empty(),
                _ => {}
            }
        }
        for (_, v) in m.values.iter() {
            if let Type::Tile(t) = &v.ty {
                dynamic_valid |= t.valid.contains(&pto_ir::Dim::Dynamic);
                value_valid |= t.valid.iter().any(|d| matches!(d, pto_ir::Dim::Value(_)));
            }
        }
        symbolic_dims |= m.functions.iter().any(|&f| !m.funcs[f].dims.is_empty());
    }
    let missing: Vec<String> = OPS
        .iter()
        .filter(|r| !ops.contains(&r.opcode))
        .map(|r| r.opcode.full_name())
        .collect();
    assert!(
        missing.is_empty(),
        "ops not covered by the corpus: {missing:?}"
    );
    for kw in [
        "statement.op",
        "statement.for",
        "statement.if",
        "statement.while",
        "statement.condition",
        "statement.yield",
        "statement.return",
        "statement.break",
        "statement.continue",
        "statement.scope",
    ] {
        assert!(kinds.contains(kw), "statement kind {kw} not covered");
    }
    assert!(parallel && for_iter_args && if_results && nested_for);
    assert!(break_values && continue_values && return_values);
    assert!(dynamic_valid && value_valid && symbolic_dims);
}

fn control_flow() -> ProgramModule {
    let text = include_str!("files/roundtrip/control_flow.pto");
    parse_ok(text, "control_flow.pto")
}

fn find_op(m: &ProgramModule, name: &str) -> pto_ir::OpId {
    m.ops
        .iter()
        .find(|(_, op)| op.results.iter().any(|&r| m.values[r].ssa_name() == name))
        .map(|(id, _)| id)
        .unwrap_or_else(|| panic!("no op defines {name}"))
}

fn find_value(m: &ProgramModule, name: &str) -> pto_ir::ValueId {
    m.values
        .iter()
        .find(|(_, d)| d.ssa_name() == name)
        .map(|(id, _)| id)
        .unwrap_or_else(|| panic!("no value {name}"))
}

#[test]
fn equality_is_reflexive_on_clones() {
    for (name, m) in parsed_corpus() {
        let c = m.clone();
        assert!(structurally_equal(&m, &c), "{name}");
        assert_eq!(structural_hash(&m), structural_hash(&c), "{name}");
    }
}

#[test]
fn changing_one_use_makes_modules_unequal() {
    let a = control_flow();
    let mut b = a.clone();
    // `%t2_18 = scalar.add %t_14, %zero_8`: use `%zero_8` twice instead (same type).
    let op = find_op(&b, "%t2_18");
    let zero = find_value(&b, "%zero_8");
    b.ops[op].operands[0] = zero;
    assert!(!structurally_equal(&a, &b));
    assert_ne!(structural_hash(&a), structural_hash(&b));
    // Swapping operands is a change too.
    let mut c = a.clone();
    c.ops[op].operands.swap(0, 1);
    assert!(!structurally_equal(&a, &c));
}

#[test]
fn changing_one_attr_makes_modules_unequal() {
    let a = control_flow();
    let mut b = a.clone();
    let op = find_op(&b, "%x_15");
    b.ops[op].attrs.set("shape", Attr::ints(&[16, 16]));
    assert!(!structurally_equal(&a, &b));
    let mut c = a.clone();
    c.attrs.set("arch", Attr::Str("PTOv3".into()));
    assert!(!structurally_equal(&a, &c));
    // A value inside an attribute is a use like any other.
    let mut d = a.clone();
    let c1 = find_value(&d, "%c1_6");
    d.ops[op]
        .attrs
        .set("offset", Attr::List(vec![Attr::Value(c1), Attr::Int(0)]));
    assert!(!structurally_equal(&a, &d));
    // Attribute order in a dictionary does not matter.
    let mut e = a.clone();
    e.ops[op].attrs.0.reverse();
    assert!(structurally_equal(&a, &e));
    assert_eq!(structural_hash(&a), structural_hash(&e));
}

#[test]
fn changing_one_dtype_makes_modules_unequal() {
    let a = control_flow();
    let mut b = a.clone();
    let v = find_value(&b, "%v_38");
    b.values[v].ty = Type::Scalar(DataType::Fp16);
    assert!(!structurally_equal(&a, &b));
    let mut c = a.clone();
    let z = find_value(&c, "%zero_8");
    c.values[z].constant = Some(pto_ir::Constant::Double(1.0));
    assert!(!structurally_equal(&a, &c));
    let mut d = a.clone();
    let f = d.function_by_name("noop").expect("noop");
    d.funcs[f].kind = pto_ir::FunctionKind::Kernel;
    assert!(!structurally_equal(&a, &d));
}

#[test]
fn renaming_and_renumbering_values_keeps_modules_equal() {
    let a = control_flow();
    let mut b = a.clone();
    let n = b.values.len() as u32;
    for (i, id) in b.values.keys().collect::<Vec<_>>().into_iter().enumerate() {
        let d = &mut b.values[id];
        d.number = n * 2 - i as u32;
        d.name = if i % 3 == 0 {
            None
        } else {
            Some(format!("renamed{i}").into())
        };
    }
    b.name = "another_name".into();
    assert!(structurally_equal(&a, &b));
    assert_eq!(structural_hash(&a), structural_hash(&b));
    // Through the text as well: the renamed module prints differently but parses back equal.
    let printed = b.to_string();
    assert_ne!(printed, a.to_string());
    let c = parse_ok(&printed, "renamed");
    assert!(structurally_equal(&a, &c));
    // Renaming in the text: `%x_15` -> `%x_15_renamed_1015`-style names.
    let original = include_str!("files/roundtrip/control_flow.pto");
    let renamed = rename_in_text(original);
    assert_ne!(renamed, original);
    let d = parse_ok(&renamed, "renamed text");
    assert!(structurally_equal(&a, &d));
}

/// Rewrites every `%name_N` to `%vN_name_{N + 1000}` and every `%N` to `%{N + 500}`.
fn rename_in_text(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let rest = &text[i + 1..];
        let len = rest
            .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..len];
        for _ in 0..len {
            chars.next();
        }
        match name.rsplit_once('_') {
            Some((base, num)) if num.parse::<u32>().is_ok() => {
                let n: u32 = num.parse().unwrap_or(0);
                out.push_str(&format!("%v{n}_{base}_{}", n + 1000));
            }
            _ => match name.parse::<u32>() {
                Ok(n) => out.push_str(&format!("%{}", n + 500)),
                Err(_) => out.push_str(&format!("%{name}")),
            },
        }
    }
    out
}

#[test]
fn binding_is_a_bijection() {
    // `%a + %b` and `%a + %a` differ even though every use has the same type.
    let base = "program.module @m {\n  func.func @f(%a_1: fp32, %b_2: fp32) -> (fp32) {\n    statement.op {\n      %c_3 = scalar.add %a_1, OPERAND : (fp32, fp32) -> fp32\n    }\n    statement.return %c_3\n  }\n  // func.kind = kernel\n}\n";
    let ab = parse_ok(&base.replace("OPERAND", "%b_2"), "ab");
    let aa = parse_ok(&base.replace("OPERAND", "%a_1"), "aa");
    let ab2 = parse_ok(
        &base.replace("OPERAND", "%b_2").replace("%a_1", "%x_9"),
        "ab2",
    );
    assert!(!structurally_equal(&ab, &aa));
    assert!(structurally_equal(&ab, &ab2));
    // Returning a different (same-typed) parameter is a different function.
    let ret_a = parse_ok(
        &base
            .replace("OPERAND", "%b_2")
            .replace("statement.return %c_3", "statement.return %a_1"),
        "ret",
    );
    assert!(!structurally_equal(&ab, &ret_a));
}

#[test]
fn constants_compare_by_value_and_type() {
    let base = "program.module @m {\n  func.func @f() {\n    statement.op {\n      %c_1 = LIT\n    }\n    statement.return\n  }\n  // func.kind = kernel\n}\n";
    let m = |lit: &str| parse_ok(&base.replace("LIT", lit), lit);
    assert!(structurally_equal(&m("3 : int64"), &m("3 : int64")));
    assert!(!structurally_equal(&m("3 : int64"), &m("4 : int64")));
    assert!(!structurally_equal(&m("3 : int64"), &m("3 : int32")));
    assert!(!structurally_equal(&m("3.0 : fp64"), &m("3 : fp64")));
    assert!(!structurally_equal(&m("0.0 : fp64"), &m("-0.0 : fp64")));
    // The width variant of an integer constant is not part of its value.
    let a = m("3 : int32");
    let mut b = a.clone();
    for (_, d) in b.values.iter().collect::<Vec<_>>() {
        assert!(d.constant.is_some());
    }
    let id = b.values.keys().next().expect("value");
    b.values[id].constant = Some(pto_ir::Constant::Int(3));
    assert!(structurally_equal(&a, &b));
    assert_eq!(b.to_string(), a.to_string());
}

#[test]
fn accepted_spellings_normalize_to_the_printed_form() {
    let text = "// leading comment\n\nprogram.module @m { // trailing comment\n  func.func @f(%a_1: tile<[16, 32], FP32>, %s_2: fp32 #in, %t_3: tensor<[%M, ?], fp32>) -> fp32 {\n    // a comment between statements\n    statement.op {\n\n      %b_4 = tile.OP_MUL %a_1, %s_2 : (tile<[16, 32], fp32>, %s_2) -> tile<[16, 32], [16, 32], fp32>\n      %c_5 = tensor.OP_SCALAR_ADD %s_2, %s_2 : (fp32, fp32) -> fp32 // why not\n    }\n    statement.return %c_5\n  }\n  // func.kind = data_flow\n}\n";
    let m = parse_ok(text, "extras");
    let expected = "program.module @m {\n  func.func @f(%a_1: tile<[16, 32], [16, 32], fp32> #in, %s_2: fp32, %t_3: tensor<[%M_6, ?], fp32> #in) -> (fp32) {\n    statement.op {\n      %b_4 = tile.mul %a_1, %s_2 : (tile<[16, 32], [16, 32], fp32>, fp32) -> tile<[16, 32], [16, 32], fp32>\n      %c_5 = scalar.add %s_2, %s_2 : (fp32, fp32) -> fp32\n    }\n    statement.return %c_5\n  }\n  // func.kind = data_flow\n}\n";
    assert_eq!(m.to_string(), expected);
    let f = m.functions[0];
    assert_eq!(m.funcs[f].dims.len(), 1, "`%M` is a symbolic dimension");
    assert!(structurally_equal(&m, &parse_ok(expected, "expected")));
}
