//! Messages that named the wrong thing: negative offsets, IR names where the user wrote a
//! symbolic dimension, zero-sized tiles, `#[cfg]` in a kernel, macros in a kernel.

use crate::{errors, expand};
use proc_macro2::TokenStream;

fn expand_src(src: &str) -> Vec<String> {
    let input: TokenStream = src.parse().expect("test input lexes");
    errors(&expand(TokenStream::new(), input))
}

fn one_error(src: &str) -> String {
    let errs = expand_src(src);
    assert_eq!(errs.len(), 1, "{src}: {errs:?}");
    errs.into_iter().next().unwrap_or_default()
}

#[test]
fn a_negative_constant_offset_is_an_error_naming_it() {
    for off in ["-1", "0 - 1"] {
        let e = one_error(&format!(
            "pub fn t(x: &Tensor<f32, 16, 32>, #[out] y: &mut Tensor<f32, 16, 32>) {{
                let a = x.load::<16, 32>([{off}, 0]);
                y.store([0, 0], a);
            }}"
        ));
        assert!(e.contains("offset -1 is negative"), "{e}");
        assert!(!e.contains("18446744073709551615"), "{e}");
    }
}

#[test]
fn messages_name_symbolic_dimensions_as_the_user_wrote_them() {
    let e = one_error(
        "pub fn t(x: &Tensor<f32, B, 128>, #[out] z: &mut Tensor<f32, B, 64>) {
            let a = x.load::<16, 128>([0, 0]);
            z.store([0, 0], a);
        }",
    );
    assert!(e.contains("(B x 64)"), "{e}");
    assert!(!e.contains('%'), "{e}");
}

#[test]
fn a_zero_tile_size_says_so() {
    let e = one_error(
        "pub fn t(x: &Tensor<f32, 16, 64>, #[out] y: &mut Tensor<f32, 16, 64>) {
            let a = x.load::<0, 64>([0, 0]);
            y.store([0, 0], a);
        }",
    );
    assert!(e.contains("a tile size is at least 1"), "{e}");
    assert!(!e.contains("symbolic"), "{e}");
}

#[test]
fn attributes_on_kernel_statements_are_errors() {
    for stmt in [
        "#[cfg(any())] let b = 2;",
        "#[cfg(any())] m = 2;",
        "#[allow(unused)] if n > 0 { m = 1; }",
    ] {
        let e = one_error(&format!(
            "pub fn t(n: i64) -> i64 {{ let mut m = n; {stmt} m }}"
        ));
        assert!(
            e.contains("attributes cannot be used on a statement"),
            "{stmt}: {e}"
        );
    }
}

#[test]
fn the_macro_error_does_not_offer_incore() {
    let e = one_error("pub fn t(n: i64) -> i64 { println!(\"{}\", n); n }");
    assert!(e.contains("the macro `println!` cannot be used"), "{e}");
    assert!(!e.contains("incore"), "{e}");
}
