//! The host emitter's text as tokens.
//!
//! The host emitter's `Writer` writes Rust source text; this turns it into a `TokenStream`
//! directly, token by token. It reads only what the writer writes (ASCII identifiers, numbers,
//! string literals, punctuation, delimiters) and reports anything else as an error. That costs
//! a fraction of `TokenStream::from_str`, which outside a compiler runs proc-macro2's general
//! lexer (comments, raw strings, lifetimes, Unicode...) and inside one runs it as well, to
//! validate, before handing the text to the compiler. Measured on 2026-11-25 with
//! `pto-macros/benches/instructions.sh`: `self.out.parse::<TokenStream>()` in its place gives
//! the same tokens and adds 174,032 instructions to a typical expansion (2,963,225 ->
//! 3,137,257, +5.9%, ratio to the floor 2.19 -> 2.32), over the 5% the project's clarity
//! rule allows, so this lexer stays.
//!
//! Every token has `Span::call_site()`, as with `quote!`. A punctuation is `Joint` when another
//! punctuation character follows it directly (`::`, `->`, `!=`), as the Rust lexer decides.

use std::str::FromStr;

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

/// What a byte starts, or continues, in the writer's text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Not in the writer's text.
    Other,
    Space,
    Open,
    Close,
    /// A letter or `_`: an identifier.
    Letter,
    Digit,
    /// `"`: a string literal.
    Quote,
    /// The punctuation character of that index in `PUNCTS`.
    Punct(u8),
}

/// The punctuation characters.
const PUNCTS: &[u8; 21] = b"~!@#$%^&*-=+|;:,<.>/?";

/// The class of each byte.
const CLASS: [Class; 256] = {
    let mut t = [Class::Other; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = match c {
            b' ' => Class::Space,
            b'(' | b'[' | b'{' => Class::Open,
            b')' | b']' | b'}' => Class::Close,
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => Class::Letter,
            b'0'..=b'9' => Class::Digit,
            b'"' => Class::Quote,
            _ => Class::Other,
        };
        b += 1;
    }
    let mut i = 0;
    while i < PUNCTS.len() {
        t[PUNCTS[i] as usize] = Class::Punct(i as u8);
        i += 1;
    }
    t
};

/// Whether a byte continues an identifier or a number's suffix (`[A-Za-z0-9_]`).
const WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = matches!(CLASS[b], Class::Letter | Class::Digit);
        b += 1;
    }
    t
};

/// The tokens of `src`, or what could not be read.
pub(super) fn tokens(src: &str) -> Result<TokenStream, String> {
    let bytes = src.as_bytes();
    // The tokens of the enclosing groups, then of the innermost one, in one buffer (a `Vec`
    // per group would grow from empty each time); per open group its delimiter and where its
    // tokens start.
    // About one token per three bytes of the writer's text (`tload(&mut t0, x, &[0, 0])` is
    // 10 tokens in 28 bytes), so the buffer rarely grows.
    let mut out: Vec<TokenTree> = Vec::with_capacity(src.len() / 3);
    let mut open: Vec<(Delimiter, usize)> = Vec::with_capacity(16);
    // Per punctuation character (by index in `PUNCTS`) and spacing (alone, joint), its
    // `Punct` once made: a clone is a copy, where `Punct::new` checks the character and asks
    // for the call-site span each time.
    let mut puncts: [[Option<Punct>; 2]; PUNCTS.len()] = Default::default();
    // One empty stream for every empty group (`zeros()`, `shape()`): a clone shares it, where
    // a new stream allocates.
    let mut empty: Option<TokenStream> = None;
    let mut common: [Option<Ident>; COMMON] = Default::default();
    let call_site = Span::call_site();
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        let b = bytes[at];
        at += 1;
        match CLASS[b as usize] {
            Class::Space => {}
            Class::Open => open.push((delimiter(b), out.len())),
            Class::Close => match open.pop() {
                Some((d, from)) if d == delimiter(b) => {
                    // `from` is at most `out.len()`: inner groups only ever shorten `out` to
                    // their own start, after this one's.
                    let inner = if from == out.len() {
                        empty.get_or_insert_with(TokenStream::new).clone()
                    } else {
                        out.drain(from..).collect()
                    };
                    out.push(TokenTree::Group(Group::new(d, inner)));
                }
                _ => return Err(format!("unbalanced `{}` at {start}", b as char)),
            },
            Class::Letter => {
                at = end_of_word(bytes, at);
                let word = word(src, start, at)?;
                let ident = match common_word(word).and_then(|i| common.get_mut(i)) {
                    Some(slot) => slot
                        .get_or_insert_with(|| Ident::new(word, call_site))
                        .clone(),
                    None => Ident::new(word, call_site),
                };
                out.push(TokenTree::Ident(ident));
            }
            Class::Digit => {
                // Digits, a fraction, a suffix: `2f32`, `0.5f64`, `16usize`.
                at = end_of_digits(bytes, at);
                let digits = at;
                if bytes.get(at) == Some(&b'.') && bytes.get(at + 1).is_some_and(u8::is_ascii_digit)
                {
                    at = end_of_digits(bytes, at + 1);
                }
                at = end_of_word(bytes, at);
                let word = word(src, start, at)?;
                let lit = match integer(&word[..digits - start], digits == at) {
                    Some(lit) => lit,
                    None => literal(word)?,
                };
                out.push(TokenTree::Literal(lit));
            }
            Class::Quote => {
                // To the closing quote; a backslash escapes the next character.
                while let Some(&c) = bytes.get(at) {
                    at += if c == b'\\' { 2 } else { 1 };
                    if c == b'"' {
                        break;
                    }
                }
                out.push(literal(word(src, start, at)?)?.into());
            }
            Class::Punct(i) => {
                let joint = bytes
                    .get(at)
                    .is_some_and(|&n| matches!(CLASS[n as usize], Class::Punct(_)));
                let spacing = if joint {
                    Spacing::Joint
                } else {
                    Spacing::Alone
                };
                // `i` is an index in `PUNCTS` (`CLASS`).
                let punct = puncts[usize::from(i)][usize::from(joint)]
                    .get_or_insert_with(|| Punct::new(b as char, spacing))
                    .clone();
                out.push(TokenTree::Punct(punct));
            }
            Class::Other => return Err(format!("unexpected `{}` at {start}", b as char)),
        }
        // The space the writer puts after most tokens, skipped here rather than by a turn of
        // the loop.
        if bytes.get(at) == Some(&b' ') {
            at += 1;
        }
    }
    if let Some((d, _)) = open.last() {
        return Err(format!("unclosed {d:?}"));
    }
    Ok(out.into_iter().collect())
}

/// How many words `common_word` knows.
const COMMON: usize = 8;

/// The index of `word` if it is one of the identifiers the text of every kernel repeats
/// (`tload(&mut t, x, &[i as usize])`, `let mut t = Tile:: < f32, ..> ::zeros();`): one
/// `Ident` of each, made on first use, is cloned after, which skips `Ident::new`'s validation
/// (a clone allocates as `Ident::new` does; a table of every word, found by hashing, costs
/// more than it saves).
fn common_word(word: &str) -> Option<usize> {
    Some(match word {
        "mut" => 0,
        "let" => 1,
        "as" => 2,
        "usize" => 3,
        "Tile" => 4,
        "zeros" => 5,
        "f32" => 6,
        "i64" => 7,
        _ => return None,
    })
}

/// The delimiter an opening or closing byte stands for.
fn delimiter(b: u8) -> Delimiter {
    match b {
        b'(' | b')' => Delimiter::Parenthesis,
        b'[' | b']' => Delimiter::Bracket,
        _ => Delimiter::Brace,
    }
}

/// The first position from `at` whose byte does not continue a word.
fn end_of_word(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && WORD[bytes[at] as usize] {
        at += 1;
    }
    at
}

/// The first position from `at` whose byte is not a digit.
fn end_of_digits(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && bytes[at].is_ascii_digit() {
        at += 1;
    }
    at
}

fn word(src: &str, start: usize, end: usize) -> Result<&str, String> {
    src.get(start..end)
        .ok_or_else(|| format!("no token at {start}..{end}"))
}

/// The unsuffixed integer literal of `digits` (no leading zero) when it is the whole number
/// (`whole`: no fraction, no suffix), made from its value: it reads as the same text, without
/// the full literal parse of `Literal::from_str`. `None` for anything else, which `literal`
/// reads: a fraction or a suffix (`Literal::usize_suffixed` and the like format their text,
/// which costs more than the parse), a value beyond `u64`.
fn integer(digits: &str, whole: bool) -> Option<Literal> {
    if !whole || (digits.len() > 1 && digits.starts_with('0')) {
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
                   (\"x\", \"\", \"é\"); let [] = f(\"x[?, 16] y.$[N, 2]\", [x.shape()]) ? ; \
                   a ~ b @ c # d % e ^ f + g | h / i -> j => k += l <<= m || n && o ! p; \
                   |x| -> f32 { * & - - x } \
                   let mut a = isa::f(&mut b as usize, Tile::zeros(), i64, isa, mut, as, usize);";
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
