//! A standing fuzz target for the macro's expansion function: seed kernels mutated at the
//! token level (deleted, duplicated and swapped tokens, other identifiers and literals, raw
//! and non-ASCII names, extra nesting) go through `expand`. Nothing may panic or take more
//! than a few seconds, and whenever the expansion has no error its `NAME::IR` must parse
//! back (so `NAME::program()` cannot fail).
//!
//! The case budget is fixed so CI stays fast; `PTO_FUZZ_CASES=20000 cargo test -p pto-macros
//! --test hostile fuzz -- --nocapture` runs a longer campaign and prints its figures.

use std::time::{Duration, Instant};

use proc_macro2::{TokenStream, TokenTree};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use crate::{errors, expand};

const SEEDS: [&str; 4] = [
    "pub fn typical(x: &Tensor<f32, R, 256>, a: &Tensor<f32, M, K>, b: &Tensor<f32, K, N>,
        has_bias: bool, bias: &Tensor<f32, 1, N>,
        #[out] y: &mut Tensor<f32, R, 256>, #[out] c: &mut Tensor<f32, M, N>) {
        for r in (0..R).step_by(16) {
            let t = x.load::<16, 256>([r, 0]);
            let shifted = t - t.row_max();
            let e = shifted.exp();
            let s = e.row_sum();
            y.store([r, 0], e / s);
        }
        for i in (0..M).step_by(32) {
            for j in (0..N).step_by(32) {
                let mut acc = Tile::<f32, 32, 32>::zeros();
                for k in (0..K).step_by(64) {
                    let at = a.load::<32, 64>([i, k]);
                    let bt = b.load::<64, 32>([k, j]);
                    if k == 0 {
                        if has_bias {
                            acc = matmul_bias(at, bt, bias.load::<1, 32>([0, j]));
                        } else {
                            acc = matmul(at, bt);
                        }
                    } else {
                        acc = matmul_acc(acc, at, bt);
                    }
                }
                c.store([i, j], acc);
            }
        }
    }",
    "pub fn scalar_flow(n: i64, scale: f32, flag: bool) -> f32 {
        let mut acc = 0.0f32;
        let mut count = 0;
        for i in 0..n {
            let x = i as f32 * scale;
            if i == 3 { continue; }
            acc += x;
            count += 1;
            if count > 20 { break; }
        }
        let mut k = 0;
        while k < n { k += 2; }
        let sign: f32 = if acc > 10.0 { 1.0 } else if acc < 0.0 { -1.0 } else { 0.0 };
        acc / 2.0 + sign + (count % 3) as f32 + k as f32
    }",
    "pub fn rows(x: &Tensor<f32, B, 128>, s: f32, #[out] out: &mut Tensor<f32, B, 128>) {
        for b in 0..B {
            let row = x.load::<1, 128>([b, 0]);
            let m = row.row_max();
            out.store([b, 0], (row - m).exp() * s);
        }
    }",
    "pub fn tile_flow(x: &Tensor<f32, R, 32>, limit: f32, #[out] out: &mut Tensor<f32, 1, 32>) {
        let mut acc = Tile::<f32, 1, 32>::zeros();
        let mut i = 0;
        while i < R {
            let t = x.load::<1, 32>([i, 0]);
            if t.row_sum().row_max().row_sum().row_max() > limit { acc = acc + t; } else { acc = acc.max(t); }
            i += 1;
        }
        out.store([0, 0], acc);
    }",
];

/// Words to put in place of others: keywords, raw and non-ASCII identifiers, odd literals,
/// the names of things the language knows.
const WORDS: [&str; 24] = [
    "r#loop",
    "r#match",
    "ñ",
    "変数",
    "pto",
    "bool",
    "u8",
    "i64",
    "f16",
    "Tile",
    "Tensor",
    "-1",
    "0",
    "1099511627776",
    "18446744073709551615",
    "1e309",
    "0.5",
    "\"s\"",
    "for",
    "if",
    "while",
    "loop",
    "match",
    "incore",
];

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    Word(usize, usize),
    /// Replaces a word with another word of the same input.
    Copy(usize, usize),
    /// Wraps the words from `at` to the next `;` in `depth` nested `if`s.
    Nest(usize, usize),
    /// Renames every use of the identifier at `at` to one of [`NAMES`].
    Rename(usize, usize),
}

/// Unusual but legal names, and names the generated code uses for itself.
const NAMES: [&str; 10] = [
    "r#loop", "r#type", "ñ", "変数", "größe", "x_0", "v_1", "__e0", "tload", "program",
];

/// Words a rename leaves alone (the language's own).
const KEEP: [&str; 16] = [
    "fn", "pub", "let", "mut", "for", "in", "if", "else", "while", "Tensor", "Tile", "f32", "i64",
    "bool", "out", "as",
];

fn edit() -> impl Strategy<Value = Edit> {
    let i = 0..400usize;
    prop_oneof![
        i.clone().prop_map(Edit::Delete),
        i.clone().prop_map(Edit::Duplicate),
        (i.clone(), i.clone()).prop_map(|(a, b)| Edit::Swap(a, b)),
        (i.clone(), 0..WORDS.len()).prop_map(|(a, b)| Edit::Word(a, b)),
        (i.clone(), i.clone()).prop_map(|(a, b)| Edit::Copy(a, b)),
        (i.clone(), 1..200usize).prop_map(|(a, d)| Edit::Nest(a, d)),
        (i.clone(), 0..NAMES.len()).prop_map(|(a, b)| Edit::Rename(a, b)),
    ]
}

/// The words of a token stream as `to_string` spaces them.
fn words(src: &str) -> Vec<String> {
    let tokens: TokenStream = src.parse().unwrap_or_default();
    tokens.to_string().split(' ').map(str::to_string).collect()
}

fn apply(w: &mut Vec<String>, e: &Edit) {
    let n = w.len().max(1);
    match *e {
        Edit::Delete(a) => {
            if a % n < w.len() {
                w.remove(a % n);
            }
        }
        Edit::Duplicate(a) => {
            if let Some(x) = w.get(a % n).cloned() {
                w.insert(a % n, x);
            }
        }
        Edit::Swap(a, b) => {
            if !w.is_empty() {
                w.swap(a % n, b % n);
            }
        }
        Edit::Word(a, b) => {
            if let Some(x) = w.get_mut(a % n) {
                *x = WORDS[b].to_string();
            }
        }
        Edit::Copy(a, b) => {
            if let Some(x) = w.get(b % n).cloned()
                && let Some(y) = w.get_mut(a % n)
            {
                *y = x;
            }
        }
        Edit::Rename(a, b) => {
            let Some(old) = w.get(a % n).cloned() else {
                return;
            };
            let ident = old.starts_with(|c: char| c.is_alphabetic() || c == '_')
                && old.chars().all(|c| c.is_alphanumeric() || c == '_');
            if ident && !KEEP.contains(&old.as_str()) {
                for x in w.iter_mut().filter(|x| **x == old) {
                    *x = NAMES[b].to_string();
                }
            }
        }
        Edit::Nest(a, depth) => {
            let a = a % n;
            let Some(end) = w.iter().skip(a).position(|x| x == ";").map(|k| a + k + 1) else {
                return;
            };
            let inner: Vec<String> = w.drain(a..end).collect();
            let mut block = Vec::new();
            for _ in 0..depth {
                block.extend(["if", "true", "{"].map(str::to_string));
            }
            block.extend(inner);
            block.extend(std::iter::repeat_n("}".to_string(), depth));
            w.splice(a..a, block);
        }
    }
}

/// The text of the `IR` constant of an expansion, if it has one.
fn ir_text(out: &TokenStream) -> Option<String> {
    let mut stack = vec![out.clone().into_iter()];
    let mut last_ident_ir = false;
    let mut since = 0;
    while let Some(it) = stack.last_mut() {
        let Some(tt) = it.next() else {
            stack.pop();
            continue;
        };
        since += 1;
        match tt {
            TokenTree::Group(g) => stack.push(g.stream().into_iter()),
            TokenTree::Ident(i) if i == "IR" => {
                last_ident_ir = true;
                since = 0;
            }
            TokenTree::Literal(l) if last_ident_ir && since <= 5 => {
                let lit: syn::LitStr = syn::parse2(TokenTree::Literal(l).into()).ok()?;
                return Some(lit.value());
            }
            _ => {}
        }
    }
    None
}

#[derive(Default, Debug)]
struct Figures {
    inputs: usize,
    lexed: usize,
    expanded_clean: usize,
    ir_reparsed: usize,
    slowest: Duration,
}

fn budget() -> u32 {
    std::env::var("PTO_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(96)
}

fn campaign() -> Result<Figures, String> {
    let mut runner = TestRunner::new(Config {
        cases: budget(),
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (0..SEEDS.len(), prop::collection::vec(edit(), 1..3));
    let figures = std::cell::RefCell::new(Figures::default());
    let result = runner.run(&strategy, |(seed, edits)| {
        let mut w = words(SEEDS[seed]);
        for e in &edits {
            apply(&mut w, e);
        }
        let src = w.join(" ");
        figures.borrow_mut().inputs += 1;
        let Ok(input) = src.parse::<TokenStream>() else {
            return Ok(());
        };
        figures.borrow_mut().lexed += 1;
        let start = Instant::now();
        let out = expand(TokenStream::new(), input);
        let took = start.elapsed();
        let mut f = figures.borrow_mut();
        f.slowest = f.slowest.max(took);
        prop_assert!(took < Duration::from_secs(5), "took {took:?}:\n{src}");
        if errors(&out).is_empty() {
            f.expanded_clean += 1;
            let ir = ir_text(&out);
            prop_assert!(ir.is_some(), "no IR in:\n{out}");
            let ir = ir.unwrap_or_default();
            let parsed = pto_ir::parse(&ir);
            prop_assert!(
                parsed.is_ok(),
                "IR does not parse back: {parsed:?}\n{ir}\nfrom:\n{src}"
            );
            f.ir_reparsed += 1;
        }
        Ok(())
    });
    let f = figures.into_inner();
    result.map(|_| f).map_err(|e| e.to_string())
}

#[test]
fn mutated_kernels_never_panic_hang_or_lose_their_ir() {
    // rustc's stack for the thread that runs proc macros.
    let run = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(campaign)
        .map_err(|e| e.to_string());
    let figures = run.and_then(|h| h.join().map_err(|_| "the campaign panicked".to_string()));
    match figures {
        Ok(Ok(f)) => eprintln!("macro fuzz: {f:?}"),
        Ok(Err(e)) | Err(e) => panic!("{e}"),
    }
}
