//! Kernels the expansion once accepted but whose expansion did not compile: each now either
//! works (raw and non-ASCII identifiers; see `tests/unusual.rs`, which builds and runs them)
//! or is a compile error at the user's token.

use crate::{errors, expand};
use proc_macro2::TokenStream;

fn expand_src(src: &str) -> Vec<String> {
    let input: TokenStream = src.parse().expect("test input lexes");
    errors(&expand(TokenStream::new(), input))
}

#[test]
fn raw_and_non_ascii_identifiers_expand_without_errors() {
    let errs = expand_src(
        "pub fn raw(r#loop: i64, r#match: i64, ñ: i64, 変数: i64) -> i64 {
            let mut r#type = r#loop + ñ;
            for r#in in 0..r#match { r#type += r#in * 変数; }
            r#type
        }",
    );
    assert_eq!(errs, Vec::<String>::new());
}

#[test]
fn bool_tensors_and_tiles_are_compile_errors() {
    // A `Tile<bool, ..>` is a mask: it comes from a comparison or a parameter, never a
    // constructor or a cast; a tensor of `bool` does not exist.
    let unsupported = "tensors and tiles of `bool` are not supported";
    for (src, want) in [
        ("pub fn t(x: &Tensor<bool, 16, 32>) { }", unsupported),
        (
            "pub fn t(#[out] y: &mut Tensor<f32, 16, 32>) { let m = Tile::<bool, 16, 32>::zeros(); }",
            "comes from a comparison",
        ),
        (
            "pub fn t(x: &Tensor<f32, 16, 32>) { let m = x.load::<16, 32>([0, 0]).cast::<bool>(); }",
            unsupported,
        ),
    ] {
        let errs = expand_src(src);
        assert!(errs.iter().any(|e| e.contains(want)), "{src}: {errs:?}");
    }
}

#[test]
fn mask_tile_parameters_are_accepted_read_only() {
    let src = "pub fn t(m: &Tile<bool, 16, 32>, x: &Tensor<f32, 16, 32>, #[out] y: &mut Tensor<f32, 16, 32>) { y.store([0, 0], m.select(x.load::<16, 32>([0, 0]), 0.0)); }";
    assert_eq!(expand_src(src), Vec::<String>::new(), "{src}");
    for src in [
        "pub fn t(#[out] m: &mut Tile<bool, 16, 32>) { }",
        "pub fn t(m: &mut Tile<bool, 16, 32>) { }",
    ] {
        let errs = expand_src(src);
        assert!(
            errs.iter()
                .any(|e| e.contains("a mask parameter is read only")),
            "{src}: {errs:?}"
        );
    }
}

#[test]
fn a_kernel_named_like_a_crate_is_a_compile_error() {
    for name in ["pto", "std", "core"] {
        let errs = expand_src(&format!("pub fn {name}(n: i64) -> i64 {{ n }}"));
        assert!(
            errs.iter()
                .any(|e| e.contains(&format!("a kernel cannot be named `{name}`"))),
            "{errs:?}"
        );
    }
}
