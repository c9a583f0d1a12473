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
        node: impl quote::ToTokens,
        message: impl std::fmt::Display,
    ) {
        self.errors.push(syn::Error::new_spanned(node, message));
    }

    pub(crate) fn push(&mut self, e: syn::Error) {
        self.errors.push(e);
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
pub(crate) fn range_of(node: &impl quote::ToTokens) -> (Span, Span) {
    let ts = node.to_token_stream();
    let mut it = ts.into_iter();
    let first = it.next().map_or_else(Span::call_site, |t| t.span());
    let last = it.last().map_or(first, |t| t.span());
    (first, last)
}
