//! The nesting bound, checked on the raw tokens before anything parses them: `syn` parses
//! nested blocks and expressions recursively, and a few hundred nested `if`s overflow the
//! compiler's stack inside it. The count walks the token trees with an explicit stack, so
//! no input is too deep for the count itself.
//!
//! A level is a bracketed group (`{ }`, `( )`, `[ ]`), a link of an `else if` chain (syn
//! and the IR nest each `else if` inside the previous `else`), or a prefix operator of a
//! run (`!!x`, `- -x`, `&&x` parse one inside the other; the first after a keyword is not
//! counted).

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

/// The deepest nesting a kernel may use; the IR's blocks stay well within
/// [`pto_ir::MAX_NESTING`], so every accepted kernel's `NAME::IR` parses back.
pub(crate) const MAX_KERNEL_NESTING: usize = 128;

/// The kernel with its body emptied: the signature alone, shallow enough to parse, for the
/// stub that goes with a nesting error.
pub(crate) fn signature_only(input: TokenStream) -> TokenStream {
    let mut tokens: Vec<TokenTree> = input.into_iter().collect();
    if let Some(TokenTree::Group(body)) = tokens.last_mut()
        && body.delimiter() == Delimiter::Brace
    {
        let span = body.span();
        *body = proc_macro2::Group::new(Delimiter::Brace, TokenStream::new());
        body.set_span(span);
    }
    tokens.into_iter().collect()
}

/// The first token past [`MAX_KERNEL_NESTING`] levels, as an error at the deepest
/// construct there, or `None` when the input stays within the bound.
pub(crate) fn check(input: &TokenStream) -> Option<syn::Error> {
    let (depth, at) = deepest(input.clone());
    (depth > MAX_KERNEL_NESTING).then(|| {
        syn::Error::new(
            at,
            format!(
                "this is nested {depth} levels deep (blocks, brackets, `else if` links and \
                 prefix operators); a kernel may nest at most {MAX_KERNEL_NESTING} levels: \
                 move the inner part into a helper kernel or flatten the conditions"
            ),
        )
    })
}

/// The deepest level reached and the span of a token there.
fn deepest(input: TokenStream) -> (usize, Span) {
    let mut best = (0, Span::call_site());
    // Per open group: its remaining tokens and its level.
    let mut stack = vec![(input.into_iter().peekable(), 0usize)];
    // The `else if` links and prefix operators run up in the innermost group so far.
    let mut chains: Vec<usize> = vec![0];
    let mut prefix: Vec<usize> = vec![0];
    // Whether the previous token of the innermost group ends an operand (`a - b` is
    // binary, `(- b)` and `= - b` prefix).
    let mut after_operand: Vec<bool> = vec![false];
    while let Some((tokens, level)) = stack.last_mut() {
        let level = *level;
        let Some(tt) = tokens.next() else {
            stack.pop();
            chains.pop();
            prefix.pop();
            after_operand.pop();
            continue;
        };
        let (chain, run, operand) = match (
            chains.last_mut(),
            prefix.last_mut(),
            after_operand.last_mut(),
        ) {
            (Some(c), Some(p), Some(o)) => (c, p, o),
            _ => break,
        };
        let here = level + *chain + *run;
        if here > best.0 {
            best = (here, tt.span());
        }
        match tt {
            TokenTree::Group(g) => {
                let inner = here + 1;
                if inner > best.0 {
                    best = (inner, g.span_open());
                }
                // A brace block not followed by `else` ends an `if` chain.
                let next_is_else =
                    matches!(tokens.peek(), Some(TokenTree::Ident(i)) if i == "else");
                if g.delimiter() == Delimiter::Brace && !next_is_else {
                    *chain = 0;
                }
                *run = 0;
                *operand = true;
                stack.push((g.stream().into_iter().peekable(), inner));
                chains.push(0);
                prefix.push(0);
                after_operand.push(false);
            }
            TokenTree::Ident(i) => {
                let is_else = i == "else";
                if is_else {
                    *chain += 1;
                }
                *run = 0;
                // An identifier ends an operand; a keyword before a prefix operator (`if !c`)
                // makes that operator look binary, which only counts one level fewer.
                *operand = !is_else;
            }
            TokenTree::Punct(p) => {
                let unary = matches!(p.as_char(), '!' | '-' | '*' | '&');
                if unary && !*operand {
                    *run += 1;
                } else {
                    *run = 0;
                }
                // `&&` and `..` are two puncts: the second is in the same position.
                *operand = false;
            }
            TokenTree::Literal(_) => {
                *run = 0;
                *operand = true;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(src: &str) -> usize {
        match src.parse::<TokenStream>() {
            Ok(t) => deepest(t).0,
            Err(_) => usize::MAX,
        }
    }

    #[test]
    fn counts_groups_else_if_links_and_prefix_runs() {
        assert_eq!(depth("a + b"), 0);
        assert_eq!(depth("{ ( x ) }"), 2);
        assert_eq!(depth("if a { } else if b { } else if c { x }"), 3);
        assert_eq!(depth("if a { } if b { } if c { x }"), 1);
        assert_eq!(depth("a - - - b"), 2);
        assert_eq!(depth("x = !!!b;"), 3);
        assert_eq!(depth("a - b - c"), 0);
    }

    #[test]
    fn a_deep_input_is_counted_without_recursion() {
        let deep = format!("{}x{}", "{".repeat(100_000), "}".repeat(100_000));
        assert_eq!(depth(&deep), 100_000);
        let e = check(&deep.parse().unwrap_or_default());
        assert!(e.is_some_and(|e| e.to_string().contains("100000 levels")));
    }
}
