//! The host emitter's text as tokens.
//!
//! The host emitter's `Writer` writes Rust source text; this turns it into a `TokenStream`
//! directly, token by token. It reads only what the writer writes (ASCII identifiers, numbers,
//! string literals, punctuation, delimiters) and reports anything else as an error. That costs
//! a fraction of `TokenStream::from_str`, which outside a compiler runs proc-macro2's general
//! lexer (comments, raw strings, lifetimes, Unicode...) and inside one runs it as well, to
//! validate, before handing the text to the compiler.
//!
//! Every token has `Span::call_site()`, as with `quote!`. A punctuation is `Joint` when another
//! punctuation character follows it directly (`::`, `->`, `!=`), as the Rust lexer decides.

use std::str::FromStr;

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

/// The punctuation characters the writer uses, as a set of ASCII bits (a lookup per
/// character, where a byte-string `contains` would call `memchr`).
const PUNCT: u128 = {
    let chars = b"~!@#$%^&*-=+|;:,<.>/?";
    let mut set = 0;
    let mut i = 0;
    while i < chars.len() {
        set |= 1 << chars[i];
        i += 1;
    }
    set
};

fn is_punct(b: u8) -> bool {
    b < 128 && (PUNCT >> b) & 1 == 1
}

/// The tokens of `src`, or what could not be read.
pub(super) fn tokens(src: &str) -> Result<TokenStream, String> {
    let bytes = src.as_bytes();
    // The tokens of the enclosing groups, then of the innermost one, in one buffer (a `Vec`
    // per group would grow from empty each time); per open group its delimiter and where its
    // tokens start.
    // About one token per three bytes of the writer's text (`isa::tload(&mut t0, x, &[0, 0])`
    // is 12 tokens in 33 bytes), so the buffer rarely grows.
    let mut out: Vec<TokenTree> = Vec::with_capacity(src.len() / 3);
    let mut open: Vec<(Delimiter, usize)> = Vec::new();
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        let start = at;
        at += 1;
        match b {
            b' ' => {}
            b'(' | b'[' | b'{' => open.push((delimiter(b), out.len())),
            b')' | b']' | b'}' => match open.pop() {
                Some((d, from)) if d == delimiter(b) => {
                    // `from` is at most `out.len()`: inner groups only ever shorten `out` to
                    // their own start, after this one's.
                    let inner = out.drain(from..).collect();
                    out.push(Group::new(d, inner).into());
                }
                _ => return Err(format!("unbalanced `{}` at {start}", b as char)),
            },
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                at = end_of(bytes, at, |c| c.is_ascii_alphanumeric() || c == b'_');
                out.push(Ident::new(word(src, start, at)?, Span::call_site()).into());
            }
            b'0'..=b'9' => {
                // Digits, a fraction, a suffix: `2f32`, `0.5f64`, `16usize`.
                at = end_of(bytes, at, |c| c.is_ascii_digit());
                let digits = at;
                if bytes.get(at) == Some(&b'.') && bytes.get(at + 1).is_some_and(u8::is_ascii_digit)
                {
                    at = end_of(bytes, at + 1, |c| c.is_ascii_digit());
                }
                at = end_of(bytes, at, |c| c.is_ascii_alphanumeric());
                let lit = match integer(word(src, start, digits)?, word(src, digits, at)?) {
                    Some(lit) => lit,
                    None => literal(word(src, start, at)?)?,
                };
                out.push(lit.into());
            }
            b'"' => {
                // To the closing quote; a backslash escapes the next character.
                while let Some(&c) = bytes.get(at) {
                    at += if c == b'\\' { 2 } else { 1 };
                    if c == b'"' {
                        break;
                    }
                }
                out.push(literal(word(src, start, at)?)?.into());
            }
            c if is_punct(c) => {
                let spacing = if bytes.get(at).is_some_and(|&n| is_punct(n)) {
                    Spacing::Joint
                } else {
                    Spacing::Alone
                };
                out.push(Punct::new(c as char, spacing).into());
            }
            _ => return Err(format!("unexpected `{}` at {start}", b as char)),
        }
    }
    if let Some((d, _)) = open.last() {
        return Err(format!("unclosed {d:?}"));
    }
    Ok(out.into_iter().collect())
}

/// The delimiter an opening or closing byte stands for.
fn delimiter(b: u8) -> Delimiter {
    match b {
        b'(' | b')' => Delimiter::Parenthesis,
        b'[' | b']' => Delimiter::Bracket,
        _ => Delimiter::Brace,
    }
}

/// The first position from `at` whose byte is not `keep`.
fn end_of(bytes: &[u8], mut at: usize, keep: impl Fn(u8) -> bool) -> usize {
    while bytes.get(at).is_some_and(|&c| keep(c)) {
        at += 1;
    }
    at
}

fn word(src: &str, start: usize, end: usize) -> Result<&str, String> {
    src.get(start..end)
        .ok_or_else(|| format!("no token at {start}..{end}"))
}

/// The unsuffixed integer literal of `digits` (no leading zero) when there is no `suffix`,
/// made from its value: it reads as the same text, without the full literal parse of
/// `Literal::from_str`. `None` for anything else, which `literal` reads: a fraction or a
/// suffix (`Literal::usize_suffixed` and the like format their text, which costs more than
/// the parse), a value beyond `u64`.
fn integer(digits: &str, suffix: &str) -> Option<Literal> {
    if !suffix.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
        return None;
    }
    digits.parse().ok().map(Literal::u64_unsuffixed)
}

fn literal(s: &str) -> Result<Literal, String> {
    Literal::from_str(s).map_err(|e| format!("`{s}` is not a literal: {e}"))
}

#[cfg(test)]
mod tests {
    use super::tokens;

    /// The tokens, spacing included, are those of proc-macro2's own lexer.
    #[test]
    fn reads_the_writers_text_as_proc_macro2_does() {
        let src = "{ ::pto::isa::f(&mut t0, & *x, &[0usize, 2f32, 0.5f64, 16, 007]) ? ; \
                   let s: ::pto::Tile:: < f32, 1, 8> = \"a\\\"b\\0\"; (a != - -128i8) }; \
                   [255u8, 256u16, 127i8, 18446744073709551615u64, 18446744073709551616, 7i64]; \
                   (\"x\", \"\", \"é\"); let [] = f(\"x[?, 16] y.$[N, 2]\", [x.shape()]) ? ;";
        let ours = tokens(src).unwrap().to_string();
        let theirs = src.parse::<proc_macro2::TokenStream>().unwrap().to_string();
        assert_eq!(ours, theirs);
    }

    #[test]
    fn anything_else_is_an_error() {
        for bad in ["(", ")", "(]", "{ )", "\"open", "\"a\\", "é", "'a"] {
            assert!(tokens(bad).is_err(), "{bad}");
        }
    }
}
