//! Error collection (after serde_derive's `internals/ctxt.rs`): every check pushes into one
//! list, and the list becomes one combined `syn::Error` at the end.

use proc_macro2::{Ident, Span, TokenStream, TokenTree};

/// The errors found so far.
#[derive(Default)]
pub(crate) struct Errors {
    errors: Vec<syn::Error>,
}

impl Errors {
    pub(crate) fn new() -> Self {
        Errors::default()
    }

    /// An error covering the tokens from `start` to `end`.
    pub(crate) fn push_range(
        &mut self,
        (start, end): (Span, Span),
        message: impl std::fmt::Display,
    ) {
        self.errors.push(error_range(start, end, message));
    }

    /// An error at the tokens of `node`.
    pub(crate) fn push_spanned(
        &mut self,
        node: &(impl quote::ToTokens + ?Sized),
        message: impl std::fmt::Display,
    ) {
        self.errors.push(syn::Error::new_spanned(node, message));
    }

    pub(crate) fn push(&mut self, e: syn::Error) {
        self.errors.push(e);
    }

    /// The number of errors so far.
    pub(crate) fn len(&self) -> usize {
        self.errors.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// All errors combined into one, if any.
    pub(crate) fn combined(self) -> Option<syn::Error> {
        let mut it = self.errors.into_iter();
        let mut first = it.next()?;
        for e in it {
            first.combine(e);
        }
        Some(first)
    }
}

/// A `syn::Error` spanning from `start` to `end` (what `new_spanned` does for a node).
pub(crate) fn error_range(start: Span, end: Span, message: impl std::fmt::Display) -> syn::Error {
    let mut ts = TokenStream::new();
    ts.extend([
        TokenTree::Ident(Ident::new("a", start)),
        TokenTree::Ident(Ident::new("b", end)),
    ]);
    syn::Error::new_spanned(ts, message)
}

/// The first and last token spans of a node.
///
/// Common expression shapes (and idents) are read off the syn nodes directly; anything
/// else is printed to tokens, which gives the same spans at a higher cost.
pub(crate) fn range_of<T: quote::ToTokens + 'static>(node: &T) -> (Span, Span) {
    let any: &dyn std::any::Any = node;
    if let Some(e) = any.downcast_ref::<syn::Expr>()
        && let Some(r) = expr_range(e)
    {
        return r;
    }
    if let Some(i) = any.downcast_ref::<Ident>() {
        return (i.span(), i.span());
    }
    tokens_range(node)
}

/// `range_of` for the expression shapes whose first and last tokens are known without
/// printing them; `None` for the others.
fn expr_range(e: &syn::Expr) -> Option<(Span, Span)> {
    use syn::Expr;
    match e {
        Expr::Path(p)
            if p.attrs.is_empty()
                && p.qself.is_none()
                && p.path.leading_colon.is_none()
                && p.path.segments.len() == 1 =>
        {
            let seg = p.path.segments.first()?;
            if !seg.arguments.is_none() {
                return None;
            }
            Some((seg.ident.span(), seg.ident.span()))
        }
        Expr::Lit(l) if l.attrs.is_empty() => Some((l.lit.span(), l.lit.span())),
        Expr::Paren(p) if p.attrs.is_empty() => {
            let s = p.paren_token.span.join();
            Some((s, s))
        }
        Expr::Binary(b) if b.attrs.is_empty() => {
            Some((expr_range(&b.left)?.0, expr_range(&b.right)?.1))
        }
        Expr::MethodCall(m) if m.attrs.is_empty() => {
            Some((expr_range(&m.receiver)?.0, m.paren_token.span.join()))
        }
        Expr::Call(c) if c.attrs.is_empty() => {
            Some((expr_range(&c.func)?.0, c.paren_token.span.join()))
        }
        _ => None,
    }
}

/// The first and last token spans of a node, from its printed tokens.
pub(crate) fn tokens_range(node: &dyn quote::ToTokens) -> (Span, Span) {
    let mut ts = TokenStream::new();
    node.to_tokens(&mut ts);
    let mut it = ts.into_iter();
    let first = it.next().map_or_else(Span::call_site, |t| t.span());
    let last = it.last().map_or(first, |t| t.span());
    (first, last)
}
