//! Control flow: `if`, `for`, `while`.

use pto_ir::{Constant, DataType, InlineVec, Type, ValueId};
use syn::{Expr, ExprForLoop, ExprIf, ExprWhile, Ident, Pat, RangeLimits};

use super::ops::rs;
use super::{Lower, Poison, R, Tail, Val};
use crate::ctxt::range_of;

impl<'k> Lower<'k, '_> {
    /// A `bool` condition; on error a placeholder `true` so the body is still checked.
    pub(super) fn cond(&mut self, e: &'k Expr, what: &str) -> R<ValueId> {
        let v = self.expr(e).and_then(|v| {
            self.at(e);
            self.materialize(v, Some(DataType::Bool))
        });
        let ok = match v {
            Ok(v) => match self.ty(v) {
                Type::Scalar(DataType::Bool) => return Ok(v),
                t => {
                    let shown = self.show(t);
                    let help = match t {
                        Type::Scalar(d) if d.is_numeric() => "; compare explicitly, e.g. `x != 0`",
                        _ => "",
                    };
                    self.errs.push_spanned(
                        e,
                        format!("the `{what}` condition must be a `bool`, found {shown}{help}"),
                    );
                    false
                }
            },
            Err(Poison) => false,
        };
        let _ = ok;
        self.at(e);
        self.const_of(Constant::Bool(true), DataType::Bool)
    }

    pub(super) fn lower_if(
        &mut self,
        e: &'k ExprIf,
        want: bool,
        hint: Option<DataType>,
    ) -> R<Option<Val>> {
        let cond = self.cond(&e.cond, "if")?;
        let if_range = (e.if_token.span, range_of(&*e.cond).1);
        let if_span = self.spans.id_range(if_range);
        self.ctx.set_span(if_span);
        let r = self.b.create_if_stmt(&mut self.ctx, cond);
        let ifs = self.check(r)?;
        let mode = if want { Tail::Value } else { Tail::Unit };
        let mut ok = true;
        let mut has_values = (false, false);
        let mut branch_hint = hint;

        let r = self.b.enter_if_then(&mut self.ctx, ifs);
        self.check(r)?;
        let tv = self.block(&e.then_branch.stmts, mode, hint);
        if want && let Some(v) = tv {
            match self.materialize(v, hint) {
                Ok(v) => {
                    branch_hint = branch_hint.or_else(|| self.ty(v).as_scalar());
                    has_values.0 = true;
                    let r = self.b.set_branch_value(&mut self.ctx, v);
                    ok &= self.check(r).is_ok();
                }
                Err(Poison) => ok = false,
            }
        }
        self.pop_scope("`if` branch");

        let r = self.b.enter_if_else(&mut self.ctx, ifs);
        self.check(r)?;
        let ev = match &e.else_branch {
            None => None,
            Some((_, else_e)) => match &**else_e {
                Expr::Block(b) => self.block(&b.block.stmts, mode, branch_hint),
                Expr::If(nested) => match self.lower_if(nested, want, branch_hint) {
                    Ok(v) => v,
                    Err(Poison) => {
                        ok = false;
                        None
                    }
                },
                other => {
                    ok = false;
                    let _ = self.err::<()>(other, "expected a block or `if` after `else`");
                    None
                }
            },
        };
        if want && let Some(v) = ev {
            match self.materialize(v, branch_hint) {
                Ok(v) => {
                    has_values.1 = true;
                    let r = self.b.set_branch_value(&mut self.ctx, v);
                    ok &= self.check(r).is_ok();
                }
                Err(Poison) => ok = false,
            }
        }
        self.pop_scope("`if` branch");
        self.ctx.set_span(if_span);
        let r = self.b.exit_if_statement(&mut self.ctx, ifs);
        let merged = self.check(r)?;
        if !ok {
            return Err(Poison);
        }
        if !want {
            return Ok(None);
        }
        if e.else_branch.is_none() {
            return self.err_range(
                if_range,
                "an `if` used as a value needs an `else` branch giving a value of the same type",
            );
        }
        match merged {
            Some(v) => Ok(Some(Val::V(v))),
            None if has_values.0 != has_values.1 => Err(Poison),
            None => self.err_range(
                if_range,
                "this `if` is used as a value, but its branches give no value",
            ),
        }
    }

    /// `a..b`, `(a..b).step_by(s)`, `range(a, b, s)`, each maybe in `parallel(..)`: the bound
    /// expressions and whether the loop is parallel.
    fn for_head(&mut self, e: &'k Expr) -> R<(&'k Expr, &'k Expr, Option<&'k Expr>, bool)> {
        if let Expr::Call(c) = e
            && let Expr::Path(p) = &*c.func
            && p.path.is_ident("parallel")
        {
            let args: InlineVec<&Expr, 2> = c.args.iter().collect();
            let [inner] = args.as_slice() else {
                return self.err(
                    &c.func,
                    format!(
                        "`parallel(a..b)` takes 1 argument (the range), found {}",
                        args.len()
                    ),
                );
            };
            let (a, b, s) = self.range_bounds(inner)?;
            return Ok((a, b, s, true));
        }
        self.range_bounds(e).map(|(a, b, s)| (a, b, s, false))
    }

    /// `a..b`, `(a..b).step_by(s)`, `range(a, b, s)`: the bound expressions.
    fn range_bounds(&mut self, e: &'k Expr) -> R<(&'k Expr, &'k Expr, Option<&'k Expr>)> {
        const SUPPORTED: &str = "a `for` loop iterates over `a..b`, `(a..b).step_by(s)` or `range(a, b, s)` (integer bounds)";
        match e {
            Expr::Range(r) => match (&r.start, &r.end, &r.limits) {
                (Some(a), Some(b), RangeLimits::HalfOpen(_)) => Ok((a, b, None)),
                (_, _, RangeLimits::Closed(_)) => self.err(
                    e,
                    "inclusive ranges `a..=b` are not supported; write `a..b + 1`",
                ),
                _ => self.err(e, "a loop range needs both bounds: `a..b`"),
            },
            Expr::Paren(p) => self.range_bounds(&p.expr),
            Expr::MethodCall(m) if m.method == "step_by" => {
                let (a, b, s) = self.range_bounds(&m.receiver)?;
                if s.is_some() {
                    return self.err(&m.method, "`step_by` is given twice");
                }
                if m.args.len() != 1 {
                    return self.err(
                        &m.method,
                        format!("`step_by(s)` takes 1 argument, found {}", m.args.len()),
                    );
                }
                Ok((a, b, m.args.first()))
            }
            Expr::Call(c) => {
                let name = match &*c.func {
                    Expr::Path(p) => p.path.get_ident().map(Ident::to_string),
                    _ => None,
                };
                match name.as_deref() {
                    Some("range") => {
                        let args: InlineVec<&Expr, 4> = c.args.iter().collect();
                        match args.as_slice() {
                            [a, b] => Ok((a, b, None)),
                            [a, b, s] => Ok((a, b, Some(s))),
                            _ => self.err(
                                &c.func,
                                format!(
                                    "`range(a, b, s)` takes 2 or 3 arguments, found {}",
                                    args.len()
                                ),
                            ),
                        }
                    }
                    Some("parallel") => self.err(
                        &c.func,
                        "`parallel(..)` goes around the whole range: `parallel((a..b).step_by(s))`",
                    ),
                    _ => self.err(e, SUPPORTED),
                }
            }
            _ => self.err(e, SUPPORTED),
        }
    }

    /// Loop bounds: integer scalars of one dtype (literals take it; `int64` by default).
    pub(super) fn bounds(
        &mut self,
        exprs: [Option<&'k Expr>; 3],
    ) -> R<(ValueId, ValueId, ValueId)> {
        let mut vals = InlineVec::<_, 3>::new();
        let mut ok = true;
        for e in exprs {
            match e {
                Some(e) => match self.expr(e) {
                    Ok(v) => vals.push(Some((v, e))),
                    Err(Poison) => {
                        ok = false;
                        vals.push(None);
                    }
                },
                None => vals.push(None),
            }
        }
        let mut dtype: Option<DataType> = None;
        for (v, e) in vals.iter().flatten() {
            match v {
                Val::V(id) => {
                    let t = self.ty(*id);
                    if t.is_int_scalar() {
                        match (dtype, t.as_scalar()) {
                            (Some(d), Some(d2)) if d != d2 => {
                                ok = false;
                                self.errs.push_spanned(
                                    *e,
                                    format!("loop bounds have different types: `{}` and `{}`; convert one with `as`", rs(d), rs(d2)),
                                );
                            }
                            (None, d2) => dtype = d2,
                            _ => {}
                        }
                    } else {
                        ok = false;
                        let shown = self.show(t);
                        self.errs.push_spanned(
                            *e,
                            format!("loop bounds must be integer scalars, found {shown}"),
                        );
                    }
                }
                Val::Float(..) => {
                    ok = false;
                    self.errs.push_spanned(
                        *e,
                        "loop bounds must be integer scalars, found a float literal",
                    );
                }
                Val::Int(..) => {}
            }
        }
        if !ok {
            return Err(Poison);
        }
        let d = dtype.unwrap_or(DataType::Int64);
        let mut out = InlineVec::<_, 3>::new();
        for slot in vals {
            match slot {
                Some((v, e)) => {
                    self.at(e);
                    out.push(self.materialize(v, Some(d))?);
                }
                None => out.push(self.const_of(Constant::Int64(1), d)?),
            }
        }
        match out.as_slice() {
            [a, b, c] => Ok((*a, *b, *c)),
            _ => Err(Poison),
        }
    }

    pub(super) fn lower_for(&mut self, f: &'k ExprForLoop) {
        if let Some(l) = &f.label {
            self.errs
                .push_spanned(l, "loop labels are not supported in a kernel");
        }
        let iv_name = match &*f.pat {
            Pat::Ident(pi)
                if pi.by_ref.is_none() && pi.subpat.is_none() && pi.mutability.is_none() =>
            {
                Some(self.ident_name(&pi.ident))
            }
            Pat::Wild(_) => None,
            other => {
                self.errs
                    .push_spanned(other, "the loop variable is a plain name: `for i in a..b`");
                None
            }
        };
        let head = self.for_head(&f.expr);
        let placeholder = |this: &mut Self| -> R<(ValueId, ValueId, ValueId)> {
            let a = this.const_of(Constant::Int64(0), DataType::Int64)?;
            let b = this.const_of(Constant::Int64(1), DataType::Int64)?;
            let c = this.const_of(Constant::Int64(1), DataType::Int64)?;
            Ok((a, b, c))
        };
        let kind = match head {
            Ok((.., true)) => pto_ir::ForKind::Parallel,
            _ => pto_ir::ForKind::Sequential,
        };
        let bounds = match head {
            Ok((a, b, s, _)) => self.bounds([Some(a), Some(b), s]),
            Err(Poison) => Err(Poison),
        };
        let (lb, ub, step) = match bounds {
            Ok(b) => b,
            Err(Poison) => match placeholder(self) {
                Ok(b) => b,
                Err(Poison) => return,
            },
        };
        let dtype = self.ty(lb).as_scalar().unwrap_or(DataType::Int64);
        let iv = self
            .b
            .module_mut()
            .new_value_named(Type::Scalar(dtype), iv_name.clone());
        let range = (f.for_token.span, range_of(&*f.expr).1);
        let span = self.spans.id_range(range);
        self.ctx.set_span(span);
        let r = self
            .b
            .create_for_stmt_kind(&mut self.ctx, iv, lb, ub, step, kind);
        let Ok(fs) = self.check(r) else { return };
        let r = self.b.enter_for_body(&mut self.ctx, fs);
        if self.check(r).is_err() {
            return;
        }
        if let Some(iv_name) = iv_name {
            self.poisoned.remove(&iv_name);
        }
        self.block(&f.body.stmts, Tail::Unit, None);
        self.pop_scope("`for` loop");
        self.ctx.set_span(span);
        let r = self.b.exit_for_statement(&mut self.ctx, fs);
        let _ = self.check(r);
    }

    pub(super) fn lower_while(&mut self, w: &'k ExprWhile) {
        if let Some(l) = &w.label {
            self.errs
                .push_spanned(l, "loop labels are not supported in a kernel");
        }
        let range = (w.while_token.span, range_of(&*w.cond).1);
        let span = self.spans.id_range(range);
        self.ctx.set_span(span);
        let r = self.b.create_while_stmt(&mut self.ctx);
        let Ok(ws) = self.check(r) else { return };
        let r = self.b.enter_while_cond(&mut self.ctx, ws);
        if self.check(r).is_err() {
            return;
        }
        if let Ok(c) = self.cond(&w.cond, "while") {
            self.at(&w.cond);
            let r = self.b.create_condition(&mut self.ctx, c);
            let _ = self.check(r);
        }
        self.pop_scope("`while` condition");
        let r = self.b.enter_while_body(&mut self.ctx, ws);
        if self.check(r).is_err() {
            return;
        }
        self.block(&w.body.stmts, Tail::Unit, None);
        self.pop_scope("`while` loop");
        self.ctx.set_span(span);
        let r = self.b.exit_while_statement(&mut self.ctx, ws);
        let _ = self.check(r);
    }
}
