//! The element-type table has two copies: pto-ir's (`pto-ir/src/ops/dtypes.rs`, which the
//! verifier reads) and the C++ model's (`tests/cpp/pto_decls.hpp`, its `PTO_TAKES`,
//! `PTO_CVT` and `PTO_MATMUL` lines, which the instructions assert). This test reads the
//! header's lines and fails when a row differs, so an edit to one copy alone is caught.

use std::collections::{BTreeMap, BTreeSet};

use pto_ir::DataType;
use pto_ir::ops::dtypes::{self, CVT, MATMUL, TAKES};
use pto_lower::emit::cpp::cpp_dtype;

/// The header's text.
fn header() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cpp/pto_decls.hpp");
    std::fs::read_to_string(path).expect("tests/cpp/pto_decls.hpp")
}

/// The arguments of each line `NAME(a, b, ..)` at the start of a line, split at top-level
/// commas (a parenthesised list stays one argument).
fn calls<'a>(text: &'a str, name: &str) -> Vec<Vec<&'a str>> {
    let open = format!("{name}(");
    text.lines()
        .filter_map(|l| l.trim().strip_prefix(open.as_str()))
        // The macro's own `#define NAME(..)` line starts with `#define`, not the name.
        .map(|rest| {
            let mut args = Vec::new();
            let (mut depth, mut start) = (0usize, 0usize);
            for (i, c) in rest.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' if depth == 0 => {
                        args.push(rest[start..i].trim());
                        break;
                    }
                    ')' => depth -= 1,
                    ',' if depth == 0 => {
                        args.push(rest[start..i].trim());
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            args
        })
        .collect()
}

/// A list argument: `(int8_t, half)`, or the name of a `#define NAME (..)` list.
fn list(text: &str, arg: &str) -> BTreeSet<String> {
    let body = if arg.starts_with('(') {
        arg.to_string()
    } else {
        let def = format!("#define {arg} ");
        text.lines()
            .find_map(|l| l.strip_prefix(def.as_str()))
            .unwrap_or_else(|| panic!("no `#define {arg}` list"))
            .to_string()
    };
    body.trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .split(',')
        .map(|s| s.trim().to_string())
        .collect()
}

/// A set of pto-ir's table as C++ type names (the 1-byte floats are `uint8_t` there).
fn names(set: dtypes::Dtypes) -> BTreeSet<String> {
    set.iter().map(|d| cpp_dtype(d).to_string()).collect()
}

#[test]
fn every_instruction_row_agrees() {
    let text = header();
    let cpp: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> = calls(&text, "PTO_TAKES")
        .into_iter()
        .map(|a| {
            assert_eq!(a.len(), 3, "PTO_TAKES{a:?}");
            (a[0].to_string(), (list(&text, a[1]), list(&text, a[2])))
        })
        .collect();
    let mut rust = BTreeMap::new();
    for row in TAKES {
        for &inst in row.insts {
            rust.insert(inst.to_string(), (names(row.a2a3), names(row.a5)));
        }
    }
    for (inst, want) in &rust {
        let got = cpp.get(inst);
        assert_eq!(
            got,
            Some(want),
            "{inst}: pto_decls.hpp (A2A3, A5) vs pto-ir"
        );
    }
    let extra: Vec<&String> = cpp.keys().filter(|k| !rust.contains_key(*k)).collect();
    assert!(extra.is_empty(), "rows only in pto_decls.hpp: {extra:?}");
    assert!(rust.len() > 70, "{}", rust.len());
}

#[test]
fn the_conversions_and_matmul_pairs_agree() {
    let text = header();
    let cpp: BTreeSet<(String, String, String, String)> = calls(&text, "PTO_CVT")
        .into_iter()
        .map(|a| {
            assert_eq!(a.len(), 4, "PTO_CVT{a:?}");
            (a[0].into(), a[1].into(), a[2].into(), a[3].into())
        })
        .collect();
    let rust: BTreeSet<(String, String, String, String)> = CVT
        .iter()
        .map(|c| {
            (
                cpp_dtype(c.from).into(),
                cpp_dtype(c.to).into(),
                c.a2a3.to_string(),
                c.a5.to_string(),
            )
        })
        .collect();
    assert_eq!(cpp, rust, "PTO_CVT lines vs pto-ir's CVT");
    let cpp: BTreeSet<(String, String)> = calls(&text, "PTO_MATMUL")
        .into_iter()
        .map(|a| (a[0].into(), a[1].into()))
        .collect();
    let rust: BTreeSet<(String, String)> = MATMUL
        .iter()
        .map(|&(i, a)| (cpp_dtype(i).into(), cpp_dtype(a).into()))
        .collect();
    assert_eq!(cpp, rust, "PTO_MATMUL lines vs pto-ir's MATMUL");
    // The table's own sense: A2A3 converts int32 to fp16 (`vconv_deq`), A5 does not.
    let i32_f16 = CVT
        .iter()
        .find(|c| (c.from, c.to) == (DataType::Int32, DataType::Fp16));
    assert!(i32_f16.is_some_and(|c| c.a2a3 && !c.a5));
}
