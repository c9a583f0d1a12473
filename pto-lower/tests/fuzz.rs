//! A standing fuzz target for IR text as an attacker writes it: mutated seed modules go
//! through the parser, the printer (printing must be a fixed point for every module the
//! parser accepts), the verifier, the pass pipeline and the emitters. Nothing may panic, and
//! each input must finish in well under a second (the fence step once took 2^depth walks).
//!
//! The case budget is fixed so CI stays fast; `PTO_FUZZ_CASES=100000 cargo test -p pto-lower
//! --test fuzz --release -- --nocapture` runs a longer campaign and prints its figures.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use pto_ir::ProgramModule;
use pto_lower::passes::{PIPELINE, PassManager, pass_by_name};

/// The seed modules: every kernel and round-trip file of the repository.
fn seeds() -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["tests/kernels", "../pto-ir/tests/files/roundtrip"] {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        for f in files {
            if f.extension().is_some_and(|e| e == "pto")
                && let Ok(text) = std::fs::read_to_string(&f)
            {
                out.push(text);
            }
        }
    }
    assert!(out.len() >= 8, "seed files found: {}", out.len());
    out
}

/// One edit of a module's text.
#[derive(Clone, Debug)]
enum Edit {
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    /// Replaces the `n`th `%name` with the `m`th one.
    SwapName(usize, usize),
    /// Replaces the `n`th number with one of [`NUMBERS`].
    Number(usize, usize),
    /// Replaces the `n`th type keyword with one of [`TYPES`].
    Type(usize, usize),
    /// Wraps lines `a..a+len` in `depth` nested loops over existing integers.
    WrapInLoops(usize, usize, usize),
    /// Wraps lines `a..a+len` in `depth` nested `if`s on an existing value.
    WrapInIfs(usize, usize, usize),
    Truncate(usize),
}

const NUMBERS: [&str; 10] = [
    "0",
    "-1",
    "1",
    "3",
    "65",
    "1099511627776",
    "9223372036854775807",
    "18446744073709551615",
    "-9223372036854775808",
    "0.5",
];
const TYPES: [&str; 7] = ["fp32", "fp16", "int64", "int32", "bool", "uint8", "bf16"];

fn edit() -> impl Strategy<Value = Edit> {
    let i = 0..200usize;
    prop_oneof![
        i.clone().prop_map(Edit::DeleteLine),
        i.clone().prop_map(Edit::DuplicateLine),
        (i.clone(), i.clone()).prop_map(|(a, b)| Edit::SwapLines(a, b)),
        (i.clone(), i.clone()).prop_map(|(a, b)| Edit::SwapName(a, b)),
        (i.clone(), 0..NUMBERS.len()).prop_map(|(a, b)| Edit::Number(a, b)),
        (i.clone(), 0..TYPES.len()).prop_map(|(a, b)| Edit::Type(a, b)),
        (i.clone(), 0..12usize, 1..40usize).prop_map(|(a, l, d)| Edit::WrapInLoops(a, l, d)),
        (i.clone(), 0..12usize, 1..40usize).prop_map(|(a, l, d)| Edit::WrapInIfs(a, l, d)),
        (0..20_000usize).prop_map(Edit::Truncate),
    ]
}

/// The byte ranges of the words of `text` that `keep` accepts.
fn words(text: &str, keep: impl Fn(&str) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let part = c.is_alphanumeric() || "%_.-".contains(c);
        match (start, part) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                if keep(&text[s..i]) {
                    out.push((s, i));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

fn apply(text: &str, e: &Edit) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let n = lines.len().max(1);
    let names = words(text, |w| w.starts_with('%') && w.len() > 1);
    let replace = |spans: &[(usize, usize)], at: usize, with: &str| -> String {
        match spans.get(at % spans.len().max(1)) {
            Some(&(s, e)) => format!("{}{with}{}", &text[..s], &text[e..]),
            None => text.to_string(),
        }
    };
    let wrap = |lines: &mut Vec<String>,
                a: usize,
                len: usize,
                open: &dyn Fn(usize) -> String,
                close: &str,
                depth: usize| {
        let a = a % lines.len().max(1);
        let b = (a + len).min(lines.len());
        let inner: Vec<String> = lines.drain(a..b).collect();
        let mut block = Vec::new();
        for d in 0..depth {
            block.push(open(d));
        }
        block.push("statement.op {".to_string());
        block.push("}".to_string());
        block.extend(inner);
        for _ in 0..depth {
            block.push(close.to_string());
        }
        lines.splice(a..a, block);
    };
    match *e {
        Edit::DeleteLine(i) => {
            // Earlier edits of the list may have emptied it.
            if !lines.is_empty() {
                lines.remove(i % n.min(lines.len()).max(1));
            }
        }
        Edit::DuplicateLine(i) => {
            if let Some(l) = lines.get(i % n).cloned() {
                lines.insert(i % n, l);
            }
        }
        Edit::SwapLines(a, b) => {
            if !lines.is_empty() {
                lines.swap(a % n, b % n);
            }
        }
        Edit::SwapName(a, b) => {
            let with = names
                .get(b % names.len().max(1))
                .map_or("%x", |&(s, e)| &text[s..e])
                .to_string();
            return replace(&names, a, &with);
        }
        Edit::Number(a, b) => {
            let nums = words(text, |w| w.bytes().all(|c| c.is_ascii_digit()));
            return replace(&nums, a, NUMBERS[b]);
        }
        Edit::Type(a, b) => {
            let tys = words(text, |w| TYPES.contains(&w));
            return replace(&tys, a, TYPES[b]);
        }
        Edit::WrapInLoops(a, len, depth) => {
            // Bounds of the right type are what verifying needs; any int will do to parse.
            let ints = words(text, |w| w.starts_with("%c"));
            let int = |k: usize| ints.get(k).map_or("%c", |&(s, e)| &text[s..e]).to_string();
            let (lb, ub) = (int(0), int(1));
            let open =
                move |d: usize| format!("statement.for %fz{d}_9000{d} = {lb} to {ub} step {ub} {{");
            wrap(&mut lines, a, len, &open, "statement.yield\n}", depth);
        }
        Edit::WrapInIfs(a, len, depth) => {
            let open = |d: usize| {
                let c = format!("%fzc{d}_8000{d}");
                format!("statement.op {{\n{c} = true : bool\n}}\nstatement.if {c} {{")
            };
            wrap(
                &mut lines,
                a,
                len,
                &open,
                "statement.yield\n} else {\nstatement.yield\n}",
                depth,
            );
        }
        Edit::Truncate(at) => {
            let mut at = at.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            return text[..at].to_string();
        }
    }
    lines.join("\n")
}

/// What happened to one input.
#[derive(Default, Debug)]
struct Figures {
    inputs: usize,
    parsed: usize,
    verified: usize,
    lowered: usize,
    slowest: Duration,
}

/// Every stage on one text; panics (the fuzz failure) when printing is not a fixed point.
fn check(text: &str, f: &mut Figures) {
    f.inputs += 1;
    let Ok(m) = pto_ir::parse(text) else {
        return;
    };
    f.parsed += 1;
    let once = m.to_string();
    let again = match pto_ir::parse(&once) {
        Ok(m2) => m2.to_string(),
        Err(e) => panic!("the printed module does not parse: {e}\n{once}\nfrom:\n{text}"),
    };
    assert_eq!(again, once, "printing is not a fixed point; from:\n{text}");
    if pto_ir::verify(&m).is_err() {
        return;
    }
    f.verified += 1;
    let mut after = m.clone();
    let mut pm = PassManager::new();
    for p in PIPELINE {
        if let Some(p) = pass_by_name(p) {
            pm.add(p);
        }
    }
    let _ = pm.run(&mut after);
    let _ = after.to_string();
    if let Some(entry) = m.entry
        && let Ok(c) = pto_lower::compile(&m, entry)
    {
        f.lowered += 1;
        assert!(!c.cpp.is_empty());
    }
}

fn budget() -> u32 {
    std::env::var("PTO_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(192)
}

#[test]
fn mutated_modules_never_panic_hang_or_print_unstably() {
    let seeds = seeds();
    let mut runner = TestRunner::new(Config {
        cases: budget(),
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (0..seeds.len(), prop::collection::vec(edit(), 1..6));
    let figures = std::cell::RefCell::new(Figures::default());
    let result = runner.run(&strategy, |(seed, edits)| {
        let mut text = seeds[seed].clone();
        for e in &edits {
            text = apply(&text, e);
        }
        let start = Instant::now();
        check(&text, &mut figures.borrow_mut());
        let took = start.elapsed();
        let mut f = figures.borrow_mut();
        f.slowest = f.slowest.max(took);
        prop_assert!(took < Duration::from_secs(5), "took {took:?}:\n{text}");
        Ok(())
    });
    eprintln!("IR fuzz: {:?}", figures.borrow());
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// Loops and `if`s nested 1 to 64 deep (and one past the text's bound) around real tile
/// work lower in time linear in the depth.
#[test]
fn deep_nests_lower_quickly() {
    let seed = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/scale_rows.pto"),
    )
    .unwrap_or_default();
    for depth in [1, 8, 16, 32, 64, pto_ir::MAX_NESTING] {
        for e in [
            Edit::WrapInLoops(8, 10, depth),
            Edit::WrapInIfs(8, 10, depth),
        ] {
            let text = apply(&seed, &e);
            let start = Instant::now();
            let mut f = Figures::default();
            check(&text, &mut f);
            let took = start.elapsed();
            assert!(took < Duration::from_secs(5), "{e:?} took {took:?}");
            if depth < pto_ir::MAX_NESTING - 4 {
                assert_eq!(f.lowered, 1, "{e:?}:\n{text}");
            }
        }
    }
}

#[allow(dead_code)]
fn unused(_: ProgramModule) {}
