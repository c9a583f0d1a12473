//! Deep nesting: kernels with loops and `if`s nested 64 deep expand and lower in time linear
//! in the depth, and deeper ones than the bound get a compile error instead of a stack
//! overflow in the parser.

use std::time::{Duration, Instant};

use crate::{MAX_KERNEL_NESTING, errors, expand, nest};
use proc_macro2::TokenStream;

fn tokens(src: &str) -> TokenStream {
    src.parse().expect("test input lexes")
}

/// A kernel with `depth` nested levels of loops and `if`s around a tile update carried
/// through all of them, then `depth` nested loops of scalar work.
fn deep_kernel(depth: usize) -> String {
    let wrap = "for i{i} in 0..n { if i{i} % 2 == 0 { {} } else { t = t * 0.5; } }";
    let inner = "t = t + 1.0;";
    let body = nest(depth / 2, wrap, inner);
    // Loops with scalar work only have no barrier in front of their body: the fence step
    // used to walk each of them twice per walk of the loop around it.
    let scalar = nest(depth, "for j{i} in 0..n { {} }", "k = k + j0;");
    format!(
        "pub fn deep(x: &Tensor<f32, 16, 32>, n: i64, #[out] y: &mut Tensor<f32, 16, 32>) {{
            let mut t = x.load::<16, 32>([0, 0]);
            {body}
            let mut k = 0;
            {scalar}
            while k < n {{ k = k + 1; t = t - 1.0; }}
            y.store([0, 0], t);
        }}"
    )
}

/// The stack rustc gives the thread that runs proc macros (8 MiB; a test thread has 2).
const RUSTC_STACK: usize = 8 << 20;

/// Expands on a thread with rustc's stack, failing after `limit`.
fn expand_within(src: String, limit: Duration) -> (TokenStream, Duration) {
    let (done, got) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .stack_size(RUSTC_STACK)
        .spawn(move || {
            let start = Instant::now();
            let out = expand(TokenStream::new(), tokens(&src)).to_string();
            let _ = done.send((out, start.elapsed()));
        });
    assert!(spawned.is_ok(), "a thread to expand on");
    let (out, took) = got
        .recv_timeout(limit)
        .unwrap_or_else(|_| panic!("expansion did not finish within {limit:?}"));
    (tokens(&out), took)
}

#[test]
fn loops_and_ifs_nested_64_deep_expand_and_lower() {
    let (out, took) = expand_within(deep_kernel(64), Duration::from_secs(60));
    assert_eq!(errors(&out), Vec::<String>::new());
    let text = out.to_string();
    assert!(text.contains("TADD"), "the C++ is generated");
    eprintln!("64 levels expand in {took:?}");
}

#[test]
fn nesting_past_the_bound_is_a_compile_error_not_a_stack_overflow() {
    let ifs = nest(400, "if n > {i} { {} }", "m = m + 1;");
    let src = format!("pub fn ifs(n: i64) -> i64 {{ let mut m = n; {ifs} m }}");
    let (out, _) = expand_within(src, Duration::from_secs(60));
    let errs = errors(&out);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].contains(&format!("at most {MAX_KERNEL_NESTING} levels")),
        "{errs:?}"
    );
    // The stub keeps the signature, so callers do not see a second error.
    assert!(out.to_string().contains("fn ifs"));

    let chain: String = (0..400)
        .map(|i| format!("if n == {i} {{ 1 }} else "))
        .collect();
    let src = format!("pub fn chain(n: i64) -> i64 {{ {chain} {{ 0 }} }}");
    let (out, _) = expand_within(src, Duration::from_secs(60));
    assert!(errors(&out).iter().any(|e| e.contains("levels")), "{out}");

    let ok = nest(MAX_KERNEL_NESTING - 4, "if n > {i} { {} }", "m = m + 1;");
    let src = format!("pub fn ok(n: i64) -> i64 {{ let mut m = n; {ok} m }}");
    let (out, _) = expand_within(src, Duration::from_secs(60));
    assert_eq!(errors(&out), Vec::<String>::new());
}
