//! `incore! { .. }` regions: before the body is modelled, each `incore!` statement becomes a
//! block expression marked `#[pto_incore]` holding the parsed statements (their tokens, so
//! their spans, are the user's), which the lowering turns into `statement.scope incore`.
//! A macro's tokens are not a syntax tree syn can borrow from the item; rewriting the item
//! once keeps every statement of the body borrowed from it.

use syn::{Block, Expr, ExprBlock, Stmt};

/// The marker attribute's name.
pub(crate) const MARKER: &str = "pto_incore";

/// Rewrites every `incore! { .. }` statement of `block`, at any depth. A region whose
/// tokens do not parse as statements is left as it is (the lowering reports the error).
pub(crate) fn rewrite(block: &mut Block) {
    stmts(&mut block.stmts);
}

/// Whether `b` is a rewritten `incore!` region.
pub(crate) fn is_region(b: &ExprBlock) -> bool {
    b.attrs.iter().any(|a| a.path().is_ident(MARKER))
}

fn stmts(v: &mut [Stmt]) {
    for s in v {
        match s {
            Stmt::Macro(m) if m.mac.path.is_ident("incore") => {
                let Ok(mut inner) = m.mac.parse_body_with(Block::parse_within) else {
                    continue;
                };
                stmts(&mut inner);
                let brace_token = match &m.mac.delimiter {
                    syn::MacroDelimiter::Brace(b) => *b,
                    syn::MacroDelimiter::Paren(p) => syn::token::Brace(p.span),
                    syn::MacroDelimiter::Bracket(b) => syn::token::Brace(b.span),
                };
                let span = m
                    .mac
                    .path
                    .segments
                    .first()
                    .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span());
                let marker = syn::Ident::new(MARKER, span);
                let region = ExprBlock {
                    // Spanned at `incore`, so the region's tokens start there.
                    attrs: vec![syn::parse_quote_spanned!(span=> #[#marker])],
                    label: None,
                    block: Block {
                        brace_token,
                        stmts: inner,
                    },
                };
                *s = Stmt::Expr(Expr::Block(region), Some(Default::default()));
            }
            Stmt::Expr(e, _) => expr(e),
            Stmt::Local(l) => {
                if let Some(init) = &mut l.init {
                    expr(&mut init.expr);
                }
            }
            _ => {}
        }
    }
}

fn expr(e: &mut Expr) {
    match e {
        Expr::ForLoop(f) => stmts(&mut f.body.stmts),
        Expr::While(w) => stmts(&mut w.body.stmts),
        Expr::If(i) => {
            stmts(&mut i.then_branch.stmts);
            if let Some((_, e)) = &mut i.else_branch {
                expr(e);
            }
        }
        Expr::Block(b) => stmts(&mut b.block.stmts),
        _ => {}
    }
}
