//! Malformed inputs give one error at the right `line:col`, and no input makes the parser
//! panic: every prefix of the corpus files and a few thousand random mutations of them are
//! fed through `parse`, and whatever parses must print and re-parse to a fixed point.

use pto_ir::{parse, structurally_equal};

/// The error `parse` reports, as `Display` prints it (`line:col: message`).
fn error_of(text: &str) -> String {
    match parse(text) {
        Ok(m) => panic!("expected a parse error, got a module:\n{m}"),
        Err(e) => e.to_string(),
    }
}

/// A one-function module whose body is `body` (statements at four spaces).
fn func_with(body: &str) -> String {
    format!(
        "program.module @m {{\n  func.func @f(%a_1: fp32) {{\n{body}  }}\n  // func.kind = kernel\n}}\n"
    )
}

#[test]
fn unknown_op() {
    let text = func_with(
        "    statement.op {\n      %b_2 = tile.frobnicate %a_1 : (fp32) -> fp32\n    }\n    statement.return\n",
    );
    assert_eq!(error_of(&text), "4:14: unknown op `tile.frobnicate`\n");
}

#[test]
fn unknown_op_in_seed_spelling() {
    let text =
        func_with("    statement.op {\n      %b_2 = tile.OP_FROB %a_1 : (fp32) -> fp32\n    }\n");
    assert_eq!(error_of(&text), "4:14: unknown op `tile.OP_FROB`\n");
}

#[test]
fn bad_type() {
    let text = "program.module @m {\n  func.func @f(%a_1: fp33) {\n    statement.return\n  }\n}\n";
    assert_eq!(error_of(text), "2:22: unknown type `fp33`\n");
    let text =
        "program.module @m {\n  func.func @f(%a_1: tile<[16, 32], [16, 32], fp99>) {\n  }\n}\n";
    assert_eq!(error_of(text), "2:47: unknown element type `fp99`\n");
    let text = "program.module @m {\n  func.func @f(%a_1: tile<[16, %n_2], fp32>) {\n  }\n}\n";
    assert_eq!(
        error_of(text),
        "2:27: a tile's shape must be static integers\n"
    );
}

#[test]
fn missing_brace() {
    // The `statement.op` block is never closed.
    let text = func_with(
        "    statement.op {\n      %b_2 = scalar.neg %a_1 : (fp32) -> fp32\n    statement.return\n",
    );
    assert_eq!(
        error_of(&text),
        "5:5: expected an op or the `}` closing `statement.op`, found `statement.return`\n"
    );
    // The module is never closed.
    let text = "program.module @m {\n  func.func @f() {\n    statement.return\n  }\n";
    assert_eq!(
        error_of(text),
        "5:1: expected `program.entry`, `attr`, `func.func` or `}`, found end of input\n"
    );
    // The function body's `{` is missing.
    let text = "program.module @m {\n  func.func @f()\n    statement.return\n  }\n}\n";
    assert_eq!(
        error_of(text),
        "3:5: expected `{`, found `statement.return`\n"
    );
}

#[test]
fn unterminated_list() {
    let text = "program.module @m {\n  attr xs = [1, 2\n  func.func @f() {\n    statement.return\n  }\n}\n";
    assert_eq!(
        error_of(text),
        "3:3: expected `,` or `]`, found `func.func`\n"
    );
    let text = func_with(
        "    statement.op {\n      %b_2 = tile.full %a_1 : (fp32) -> tile<[16, 16], fp32> {shape=[16, 16}\n    }\n",
    );
    assert_eq!(error_of(&text), "4:76: expected `,` or `]`, found `}`\n");
}

#[test]
fn unknown_entry() {
    let text = "program.module @m {\n  program.entry @main\n  func.func @f() {\n    statement.return\n  }\n}\n";
    assert_eq!(error_of(text), "2:17: unknown entry function `@main`\n");
}

#[test]
fn stray_token() {
    let text = "program.module @m {\n  func.func @f() {\n    statement.return\n  }\n  ]\n}\n";
    assert_eq!(
        error_of(text),
        "5:3: expected `program.entry`, `attr`, `func.func` or `}`, found `]`\n"
    );
    let text = "program.module @m {\n}\n}\n";
    assert_eq!(
        error_of(text),
        "3:1: unexpected `}` after the module's closing `}`\n"
    );
    let text = "program.module @m {\n  attr x = ~\n}\n";
    assert_eq!(error_of(text), "2:12: unexpected character `~`\n");
    let text = "program.module @m {\n  attr x = é\n}\n";
    assert_eq!(error_of(text), "2:12: unexpected character `é`\n");
    let text = func_with("    tile.add\n");
    assert_eq!(
        error_of(&text),
        "3:5: expected a statement, found `tile.add` (ops go inside `statement.op { .. }`)\n"
    );
}

#[test]
fn other_errors() {
    assert_eq!(
        error_of(""),
        "1:1: expected `program.module`, found end of input\n"
    );
    let text = "program.module @m {\n  func.func @f() {\n    statement.return\n  }\n  // func.kind = gpu\n}\n";
    assert_eq!(
        error_of(text),
        "5:18: unknown function kind `gpu` (expected `control_flow`, `data_flow` or `kernel`)\n"
    );
    let text =
        func_with("    statement.op {\n      %b_2 = scalar.neg %a_1 : (fp64) -> fp32\n    }\n");
    assert_eq!(
        error_of(&text),
        "4:33: operand 1 of `scalar.neg` (`%a_1`) has type fp32, but the type list says fp64\n"
    );
    let text = func_with(
        "    statement.op {\n      %b_2 = scalar.add %a_1, %a_1 : (fp32) -> fp32\n    }\n",
    );
    assert_eq!(
        error_of(&text),
        "4:38: `scalar.add` has 2 operands but 1 operand type\n"
    );
    let text = "program.module @m {\n  attr s = \"abc\n}\n";
    assert_eq!(error_of(text), "2:12: unterminated string\n");
    let text = "program.module @m {\n  attr s = 99999999999999999999\n}\n";
    assert_eq!(
        error_of(text),
        "2:12: integer `99999999999999999999` is out of range\n"
    );
    let text = "program.module @m {\n  func.func @f() {\n  }\n  func.func @f() {\n  }\n}\n";
    assert_eq!(
        error_of(text),
        "4:3: a function named `@f` already exists in the module\n"
    );
    let text = "program.module @m {\n  program.entry @f\n  program.entry @f\n}\n";
    assert_eq!(
        error_of(text),
        "3:3: a module has only one `program.entry`\n"
    );
    let text = func_with("    %r_2 = statement.yield %a_1\n");
    assert_eq!(
        error_of(&text),
        "3:12: `statement.yield` defines no values\n"
    );
    let text = func_with("    statement.frob\n");
    assert_eq!(error_of(&text), "3:5: unknown statement `statement.frob`\n");
    let text = "program.module @m {\n  func.func @f(%a_1: fp32 #sideways) {\n  }\n}\n";
    assert_eq!(
        error_of(text),
        "2:27: unknown parameter direction `#sideways` (expected `#in`, `#out` or `#inout`)\n"
    );
    let deep = format!(
        "program.module @m {{\n  attr x = {}\n}}\n",
        "[".repeat(5000)
    );
    assert_eq!(error_of(&deep), "2:112: nesting too deep\n");
}

// ---- never panic ----------------------------------------------------------------------------

fn corpus() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/files");
    let mut out = Vec::new();
    for sub in [dir.clone(), dir.join("roundtrip")] {
        let mut paths: Vec<_> = std::fs::read_dir(&sub)
            .expect("read dir")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "pto"))
            .collect();
        paths.sort();
        for p in paths {
            out.push(std::fs::read_to_string(p).expect("read"));
        }
    }
    assert!(out.len() >= 4);
    out
}

/// Parses `text`; an error must carry a location, and a module must print to text that
/// parses back to an equal module and prints the same.
fn check_no_panic(text: &str) {
    match parse(text) {
        Err(e) => {
            let s = e.to_string();
            let (loc, _) = s
                .split_once(": ")
                .unwrap_or_else(|| panic!("no location: {s:?}"));
            let ok =
                loc.split(':').count() == 2 && loc.split(':').all(|p| p.parse::<u32>().is_ok());
            assert!(ok, "error without `line:col`: {s:?} for input {text:?}");
        }
        Ok(m) => {
            let printed = m.to_string();
            let m2 = parse(&printed).unwrap_or_else(|e| {
                panic!("printed module does not parse: {e}\n{printed}\nfrom input:\n{text}")
            });
            assert_eq!(
                m2.to_string(),
                printed,
                "print is not a fixed point for input:\n{text}"
            );
            assert!(
                structurally_equal(&m, &m2),
                "parse(print(m)) != m for input:\n{text}"
            );
        }
    }
}

#[test]
fn every_prefix_of_the_corpus_is_handled() {
    for text in corpus() {
        let mut ends: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        ends.push(text.len());
        for end in ends {
            check_no_panic(&text[..end]);
        }
    }
}

/// A small deterministic PRNG (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const INTERESTING: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"(",
    b")",
    b"<",
    b">",
    b",",
    b":",
    b"=",
    b"->",
    b"%",
    b"@",
    b"#",
    b"?",
    b"\"",
    b"//",
    b"\n",
    b" ",
    b"-",
    b".",
    b"0",
    b"99999999999999999999999",
    b"1e400",
    b"%x_4294967295",
    b"%x",
    b"statement.yield",
    b"statement.op {",
    b"}",
    b"tile<[",
    b"fp32",
    b"iter_args(",
    b"{parallel}",
    b"-> (fp32)",
    b"\xc3\xa9",
    b"\xff",
    b"\\u{110000}",
    b"nan",
];

fn mutate(rng: &mut Rng, text: &[u8]) -> Vec<u8> {
    let mut out = text.to_vec();
    for _ in 0..1 + rng.below(3) {
        let pos = rng.below(out.len() + 1);
        match rng.below(5) {
            0 if !out.is_empty() => {
                let end = (pos + 1 + rng.below(8)).min(out.len());
                out.drain(pos.min(end)..end);
            }
            1 => out.insert(pos, rng.next() as u8),
            2 if pos < out.len() => out[pos] = rng.next() as u8,
            3 => {
                let piece = INTERESTING[rng.below(INTERESTING.len())];
                out.splice(pos..pos, piece.iter().copied());
            }
            _ => {
                // Duplicate a slice (repeats statements, brackets, names).
                let len = rng.below(40).min(out.len().saturating_sub(pos));
                let piece: Vec<u8> = out[pos..pos + len].to_vec();
                out.splice(pos..pos, piece);
            }
        }
    }
    out
}

#[test]
fn random_mutations_never_panic() {
    let seed = std::env::var("PTO_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x9E37_79B9_7F4A_7C15);
    let mut rng = Rng(seed);
    let corpus = corpus();
    let mut parsed = 0;
    let mut total = 0;
    // `PTO_FUZZ_ITERS=100000` runs a longer campaign.
    let iters = std::env::var("PTO_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    for text in &corpus {
        for _ in 0..iters {
            let bytes = mutate(&mut rng, text.as_bytes());
            // The parser takes `&str`; invalid UTF-8 is replaced, like a file reader would.
            let s = String::from_utf8_lossy(&bytes);
            check_no_panic(&s);
            total += 1;
            parsed += usize::from(parse(&s).is_ok());
        }
    }
    assert!(total >= 2000);
    // Some mutations (in comments, strings, names) still parse; most do not.
    assert!(parsed < total);
}

mod prop {
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        #[test]
        fn arbitrary_text_never_panics(s in "\\PC*") {
            super::check_no_panic(&s);
        }

        #[test]
        fn token_soup_never_panics(parts in proptest::collection::vec(proptest::sample::select(vec![
            "program.module", "@m", "{", "}", "func.func", "@f", "(", ")", "%a_1", ":", "fp32",
            "tile", "<", ">", "[", "]", ",", "16", "?", "statement.op", "statement.for", "=",
            "to", "step", "iter_args", "statement.yield", "statement.if", "else", "->",
            "statement.while", "cond", "do", "statement.condition", "#in", "3.5", "true",
            "tile.add", "func.call", "attr", "program.entry", "\n", "// func.kind = kernel\n",
            "statement.return", "statement.scope", "incore", "{parallel}", "tensor",
        ]), 0..60)) {
            super::check_no_panic(&parts.join(" "));
        }
    }
}
