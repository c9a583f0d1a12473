//! The cost of `#[pto::kernel]` expansion next to the floor every attribute macro pays (a
//! plain `syn` parse of the same tokens and a `quote` of them back), on a typical
//! 20-statement kernel and on generated kernels of 1,000 to 10,000 statements.
//! Run with `cargo bench -p pto-macros`.
//!
//! The macro's modules are compiled into this bench with `#[path]`, since a proc-macro
//! crate cannot export plain functions.
#![allow(dead_code, unused_imports)]

#[path = "../src/args.rs"]
mod args;
#[path = "../src/ctxt.rs"]
mod ctxt;
#[path = "../src/depth.rs"]
mod depth;
#[path = "../src/expand.rs"]
mod expand;
#[path = "../src/fallback.rs"]
mod fallback;
#[path = "../src/incore.rs"]
mod incore;
#[path = "../src/lower/mod.rs"]
mod lower;
#[path = "../src/model.rs"]
mod model;

use proc_macro2::TokenStream;
use quote::quote;

fn main() {
    divan::main();
}

/// A typical kernel: row softmax plus a split-K matmul loop, about 20 statements.
fn typical() -> TokenStream {
    quote! {
        pub fn typical(
            x: &Tensor<f32, R, 256>, a: &Tensor<f32, M, K>, b: &Tensor<f32, K, N>,
            has_bias: bool, bias: &Tensor<f32, 1, N>,
            #[out] y: &mut Tensor<f32, R, 256>, #[out] c: &mut Tensor<f32, M, N>,
        ) {
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
        }
    }
}

/// A kernel of `n` statements: a loop over rows whose body chains `n` elementwise updates.
fn generated(n: usize) -> TokenStream {
    let steps = (0..n).map(|i| {
        if i % 3 == 0 {
            quote! { t = t * s; }
        } else if i % 3 == 1 {
            quote! { t = t + 1.0; }
        } else {
            quote! { t = t.max(u); }
        }
    });
    quote! {
        pub fn generated(x: &Tensor<f32, B, 128>, s: f32, out: &mut Tensor<f32, B, 128>) {
            for b in 0..B {
                let u = x.load::<1, 128>([b, 0]);
                let mut t = u;
                #(#steps)*
                out.store([b, 0], t);
            }
        }
    }
}

/// The floor: parse the item with syn and print it back with quote. Like the macro, it owns
/// (and so drops) its input.
fn floor(item: TokenStream) -> TokenStream {
    match syn::parse2::<syn::ItemFn>(item) {
        Ok(f) => quote!(#f),
        Err(e) => e.to_compile_error(),
    }
}

const SIZES: [usize; 3] = [1_000, 5_000, 10_000];

#[divan::bench]
fn typical_expand(bencher: divan::Bencher) {
    bencher
        .with_inputs(typical)
        .bench_values(|item| expand::kernel(TokenStream::new(), item));
}

#[divan::bench]
fn typical_floor(bencher: divan::Bencher) {
    bencher.with_inputs(typical).bench_values(floor);
}

#[divan::bench(args = SIZES)]
fn generated_expand(bencher: divan::Bencher, n: usize) {
    bencher
        .with_inputs(|| generated(n))
        .bench_values(|item| expand::kernel(TokenStream::new(), item));
}

#[divan::bench(args = SIZES)]
fn generated_floor(bencher: divan::Bencher, n: usize) {
    bencher.with_inputs(|| generated(n)).bench_values(floor);
}

/// Nesting depths for [`nested_expand`]: the fence step once walked a loop body twice per
/// level around it, doubling the cost per level.
const DEPTHS: [usize; 7] = [1, 2, 4, 8, 16, 32, 64];

/// A kernel nested `depth` levels deep twice: loops and `if`s alternating around a tile
/// update, then loops of scalar work (no barrier in front of their bodies). The shape of
/// `tests/hostile/deep.rs`, which checks that it expands without errors at depth 64.
fn nested(depth: usize) -> TokenStream {
    let mut tile = String::from("t = t + 1.0;");
    let mut scalar = String::from("k = k + 1;");
    for i in (0..depth / 2).rev() {
        tile =
            format!("for i{i} in 0..n {{ if i{i} % 2 == 0 {{ {tile} }} else {{ t = t * 0.5; }} }}");
    }
    for i in (0..depth).rev() {
        scalar = format!("for j{i} in 0..n {{ {scalar} }}");
    }
    format!(
        "pub fn nested(x: &Tensor<f32, 16, 32>, n: i64, #[out] y: &mut Tensor<f32, 16, 32>) {{
            let mut t = x.load::<16, 32>([0, 0]);
            {tile}
            let mut k = 0;
            {scalar}
            y.store([0, 0], t);
        }}"
    )
    .parse()
    .unwrap_or_default()
}

/// Expansion (parse, build, verify, lower, emit) of [`nested`] kernels: time grows about
/// linearly with the depth (the kernel's size grows linearly too).
#[divan::bench(args = DEPTHS, sample_count = 20)]
fn nested_expand(bencher: divan::Bencher, depth: usize) {
    let out = expand::kernel(TokenStream::new(), nested(depth)).to_string();
    assert!(!out.contains("compile_error"), "depth {depth}: {out}");
    bencher
        .with_inputs(|| nested(depth))
        .bench_values(|item| expand::kernel(TokenStream::new(), item));
}

#[divan::bench(args = DEPTHS, sample_count = 20)]
fn nested_floor(bencher: divan::Bencher, depth: usize) {
    bencher.with_inputs(|| nested(depth)).bench_values(floor);
}
