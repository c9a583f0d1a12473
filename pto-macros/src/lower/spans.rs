//! The span table: which user tokens each `SpanId` points at, and the attributes and
//! value names diagnostics show.

use proc_macro2::Span;
use pto_ir::{Diag, SpanId};
use quote::ToTokens;
use syn::{Expr, Stmt};

use crate::ctxt::{error_range, tokens_range};

/// Where a `SpanId` points: a token range, or a syn node whose first and last tokens are
/// found only if a diagnostic needs them (finding them means printing the node).
#[derive(Clone, Copy)]
pub(super) enum Anchor<'k> {
    Range(Span, Span),
    Node(&'k dyn ToTokens),
}

/// `SpanId` -> the user's tokens (first and last token of the node).
pub(crate) struct SpanTable<'k> {
    spans: Vec<Anchor<'k>>,
    fallback: (Span, Span),
}

impl<'k> SpanTable<'k> {
    pub(crate) fn new(fallback: (Span, Span)) -> Self {
        SpanTable {
            spans: Vec::new(),
            fallback,
        }
    }

    pub(super) fn push(&mut self, a: Anchor<'k>) -> SpanId {
        self.spans.push(a);
        SpanId((self.spans.len() - 1) as u32)
    }

    pub(super) fn id_range(&mut self, (start, end): (Span, Span)) -> SpanId {
        self.push(Anchor::Range(start, end))
    }

    pub(super) fn id(&mut self, node: &'k dyn ToTokens) -> SpanId {
        self.push(Anchor::Node(node))
    }

    /// The tokens of a span id; the function name for `SpanId::NONE`.
    pub(crate) fn get(&self, id: SpanId) -> (Span, Span) {
        match self.spans.get(id.0 as usize) {
            Some(Anchor::Range(start, end)) if id.is_some() => (*start, *end),
            Some(Anchor::Node(node)) if id.is_some() => tokens_range(*node),
            _ => self.fallback,
        }
    }

    /// A diagnostic as a `syn::Error` at its tokens, notes appended, with the IR's value
    /// names in the user's spelling.
    pub(crate) fn error(&self, d: &Diag) -> syn::Error {
        let (start, end) = self.get(d.at);
        let mut msg = user_names(&d.message);
        for n in &d.notes {
            msg.push_str("\n  = note: ");
            msg.push_str(&user_names(n));
        }
        error_range(start, end, msg)
    }
}

/// The first attribute on a statement (`#[cfg(..)] let b = 2;`), if any.
pub(super) fn stmt_attr(s: &Stmt) -> Option<&syn::Attribute> {
    match s {
        Stmt::Local(l) => l.attrs.first(),
        Stmt::Macro(m) => m.attrs.first(),
        Stmt::Item(_) => None,
        Stmt::Expr(e, _) => expr_attrs(e).first(),
    }
}

/// The outer attributes of an expression statement: syn puts those of `#[a] x = y` on its
/// leftmost operand.
fn expr_attrs(e: &Expr) -> &[syn::Attribute] {
    let own = own_attrs(e);
    if !own.is_empty() {
        return own;
    }
    match e {
        Expr::Assign(x) => expr_attrs(&x.left),
        Expr::Binary(x) => expr_attrs(&x.left),
        Expr::MethodCall(x) => expr_attrs(&x.receiver),
        Expr::Call(x) => expr_attrs(&x.func),
        Expr::Cast(x) => expr_attrs(&x.expr),
        Expr::Field(x) => expr_attrs(&x.base),
        Expr::Index(x) => expr_attrs(&x.expr),
        _ => &[],
    }
}

fn own_attrs(e: &Expr) -> &[syn::Attribute] {
    match e {
        Expr::Assign(x) => &x.attrs,
        Expr::Binary(x) => &x.attrs,
        Expr::Block(x) => &x.attrs,
        Expr::Break(x) => &x.attrs,
        Expr::Call(x) => &x.attrs,
        Expr::Continue(x) => &x.attrs,
        Expr::ForLoop(x) => &x.attrs,
        Expr::If(x) => &x.attrs,
        Expr::Loop(x) => &x.attrs,
        Expr::Macro(x) => &x.attrs,
        Expr::MethodCall(x) => &x.attrs,
        Expr::Paren(x) => &x.attrs,
        Expr::Path(x) => &x.attrs,
        Expr::Return(x) => &x.attrs,
        Expr::Unary(x) => &x.attrs,
        Expr::While(x) => &x.attrs,
        _ => &[],
    }
}

/// `text` with each IR value name written as the user wrote it: `%B_1 x 128` is `B x 128`
/// (the user never sees the IR's `%` and numbers). An unnamed `%7` stays as it is.
fn user_names(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        out.push_str(rest.get(..at).unwrap_or_default());
        let after = rest.get(at + 1..).unwrap_or_default();
        let len = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let name = after.get(..len).unwrap_or_default();
        match name.rsplit_once('_') {
            Some((base, n))
                if !base.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) =>
            {
                out.push_str(base);
            }
            _ => {
                out.push('%');
                out.push_str(name);
            }
        }
        rest = after.get(len..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}
