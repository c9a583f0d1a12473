//! Blocks and statements: `let`, assignments, `return`, tail values.

use pto_ir::{DataType, InlineVec, Name, TileType, Type};
use quote::ToTokens;
use syn::{
    AngleBracketedGenericArguments, Expr, ExprCall, ExprReturn, GenericArgument, Local, Macro, Pat,
    Stmt,
};

use super::ops::{bin_of, rs};
use super::spans::stmt_attr;
use super::{Lower, Poison, R, Tail, Val};
use crate::ctxt::range_of;
use crate::model::{int_literal, scalar_dtype};

impl<'k> Lower<'k, '_> {
    /// Lowers a block's statements; returns the tail value of a `Tail::Value` block.
    pub(super) fn block(
        &mut self,
        stmts: &'k [Stmt],
        tail: Tail,
        hint: Option<DataType>,
    ) -> Option<Val> {
        let n = stmts.len();
        for (i, s) in stmts.iter().enumerate() {
            let last = i + 1 == n;
            if let Some(attr) = stmt_attr(s)
                && !attr.path().is_ident(crate::incore::MARKER)
            {
                self.errs.push_spanned(
                    attr,
                    "attributes cannot be used on a statement in a kernel: the kernel would keep the statement whatever the attribute says (a `#[cfg(..)]` is not evaluated); remove it, or choose with a `bool` parameter",
                );
                continue;
            }
            match s {
                Stmt::Local(l) => self.let_stmt(l),
                Stmt::Item(item) => {
                    self.errs.push_spanned(
                        item,
                        "items (`fn`, `struct`, `use`, `const`, ...) cannot be declared inside a kernel body; declare them outside the kernel",
                    );
                }
                Stmt::Macro(m) => self.macro_use(&m.mac),
                Stmt::Expr(e, semi) => {
                    if last && semi.is_none() {
                        match tail {
                            Tail::Func => self.func_tail(e),
                            Tail::Value => {
                                return self.stmt_expr(e, true, hint, false).ok().flatten();
                            }
                            Tail::Unit => {
                                if let Ok(Some(_)) = self.stmt_expr(e, false, None, false) {
                                    self.errs.push_spanned(
                                        e,
                                        "this block cannot end in a value; end the expression with `;`",
                                    );
                                }
                            }
                        }
                    } else {
                        let ret_ok = tail == Tail::Func && last;
                        let _ = self.stmt_expr(e, false, None, ret_ok);
                    }
                }
            }
        }
        None
    }

    pub(super) fn macro_use(&mut self, mac: &'k Macro) {
        let r = (range_of(&mac.path).0, mac.bang_token.span);
        if mac.path.is_ident("incore") {
            // A region that parsed was rewritten (`crate::incore`): this one did not.
            let why = match mac.parse_body_with(syn::Block::parse_within) {
                Err(e) => e.to_string(),
                Ok(_) => "expected statements".to_string(),
            };
            self.errs.push_range(
                r,
                format!("the body of `incore! {{ .. }}` must be kernel statements: {why}"),
            );
        } else {
            let name = mac.path.to_token_stream().to_string().replace(' ', "");
            self.errs.push_range(
                r,
                format!(
                    "the macro `{name}!` cannot be used in a kernel body; the kernel language has no macros (compute values and return them, or store them to an `#[out]` tensor)"
                ),
            );
        }
    }

    fn func_tail(&mut self, e: &'k Expr) {
        if let Expr::Return(r) = e {
            self.ret_stmt(r);
            return;
        }
        if self.kernel.ret_tuple.is_some() {
            self.returned = true;
            let _ = self.tuple_return(e, e);
            return;
        }
        match self.kernel.ret {
            Some(Some((d, _))) => {
                if let Ok(Some(v)) = self.stmt_expr(e, true, Some(d), false) {
                    self.returned = true;
                    let _ = self.emit_return(v, d, e, e);
                } else {
                    self.returned = true;
                }
            }
            Some(None) => {
                self.returned = true;
                let _ = self.stmt_expr(e, true, None, false);
            }
            None => {
                if let Ok(Some(v)) = self.stmt_expr(e, false, None, false) {
                    let what = match self.val_tile(&v) {
                        Some(_) => {
                            "; tiles are written to a `&mut Tensor` parameter with `t.store([i, j], tile)`"
                        }
                        None => {
                            "; declare the return type (`-> f32`) to return a scalar, or end the expression with `;`"
                        }
                    };
                    self.errs.push_spanned(
                        e,
                        format!("the kernel returns nothing, but its body ends in a value{what}"),
                    );
                }
            }
        }
    }

    fn emit_return(
        &mut self,
        v: Val,
        d: DataType,
        node: &'k dyn ToTokens,
        value_node: &'k Expr,
    ) -> R<()> {
        let v = self.materialize(v, Some(d))?;
        let ty = self.ty(v);
        match &ty {
            Type::Scalar(got) if *got == d => {}
            Type::Scalar(got) => {
                return self.err(
                    value_node,
                    format!(
                        "mismatched return type: the kernel returns `{}`, but this is `{}`; convert it with `as {}`",
                        rs(d),
                        rs(*got),
                        rs(d)
                    ),
                );
            }
            other => {
                let shown = self.show(other);
                return self.err(
                    node,
                    format!(
                        "a kernel can only return scalars, but this returns {shown}; write tiles to a `&mut Tensor` / `#[out]` parameter with `t.store([i, j], tile)`"
                    ),
                );
            }
        }
        self.at(node);
        let r = self.b.create_return(&mut self.ctx, [v]);
        self.check(r).map(|_| ())
    }

    fn ret_stmt(&mut self, r: &'k ExprReturn) {
        self.returned = true;
        if let (Some(e), Some(_)) = (&r.expr, &self.kernel.ret_tuple) {
            let _ = self.tuple_return(e, r);
            return;
        }
        let Some(e) = &r.expr else {
            if self.kernel.ret_tuple.is_some() {
                self.errs
                    .push_spanned(r, "`return;` needs a value: the kernel returns a tuple");
                return;
            }
            if let Some(Some((d, _))) = self.kernel.ret {
                self.errs.push_spanned(
                    r,
                    format!("`return;` needs a value: the kernel returns `{}`", rs(d)),
                );
            }
            return;
        };
        let v = self.expr_h(e, self.kernel.ret_dtype());
        let Ok(v) = v else { return };
        match self.kernel.ret {
            Some(Some((d, _))) => {
                let _ = self.emit_return(v, d, r, e);
            }
            Some(None) => {}
            None => {
                let msg = if self.val_tile(&v).is_some() || self.is_tensor(&v) {
                    "a kernel can only return scalars; write tiles to a `&mut Tensor` / `#[out]` parameter with `t.store([i, j], tile)`"
                } else {
                    "the kernel has no return type; declare one (`-> f32`) to return a scalar"
                };
                self.errs.push_spanned(r, msg);
            }
        }
    }

    /// An `incore! { .. }` region: `statement.scope incore { .. }`, transparent to SSA (what
    /// it defines or assigns stays visible after it).
    fn lower_incore(&mut self, b: &'k syn::ExprBlock) {
        self.at(b);
        let r = self
            .b
            .create_scope_stmt(&mut self.ctx, pto_ir::ScopeKind::InCore);
        let Ok(ss) = self.check(r) else { return };
        let r = self.b.enter_scope_body(&mut self.ctx, ss);
        if self.check(r).is_err() {
            return;
        }
        self.block(&b.block.stmts, Tail::Unit, None);
        self.pop_scope("`incore!` region");
        let r = self.b.exit_scope_statement(&mut self.ctx, ss);
        let _ = self.check(r);
    }

    /// `let (a, b) = f(..);`: the parts of a tuple a function of the program returns (seed
    /// 004's `TupleGetItem`, one name per part; `_` skips one).
    fn let_tuple(&mut self, l: &'k Local, t: &'k syn::PatTuple) {
        let mut names = Vec::with_capacity(t.elems.len());
        let mut bad = false;
        for p in &t.elems {
            match p {
                Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    names.push(Some((self.ident_name(&pi.ident), pi.mutability.is_some())));
                }
                Pat::Wild(_) => names.push(None),
                other => {
                    self.errs.push_spanned(
                        other,
                        "a tuple `let` binds plain names: `let (a, b) = f(..);`",
                    );
                    bad = true;
                }
            }
        }
        let poison = |this: &mut Self, names: &[Option<(Name, bool)>]| {
            for (n, _) in names.iter().flatten() {
                this.poisoned.insert(n.clone());
            }
        };
        let call = match l.init.as_ref().map(|i| &*i.expr) {
            Some(Expr::Call(c)) if self.program_callee(c).is_some() => c,
            Some(e) => {
                let _ = self.expr(e);
                self.errs.push_spanned(
                    e,
                    "only a call of a function of the program that returns a tuple can be bound with `let (a, b) = ..`; bind one value per `let`",
                );
                poison(self, &names);
                return;
            }
            None => {
                self.errs
                    .push_spanned(l, "a `let` in a kernel needs a value");
                poison(self, &names);
                return;
            }
        };
        let name = self.program_callee(call).unwrap_or_default();
        let span = self.spans.id(call);
        let Ok(vals) = self.func_call(&name, call, span) else {
            poison(self, &names);
            return;
        };
        if bad {
            poison(self, &names);
            return;
        }
        if vals.len() != names.len() {
            let n = vals.len();
            self.errs.push_spanned(
                t,
                format!(
                    "`{name}` returns {n} value{}, but the pattern binds {}",
                    if n == 1 { "" } else { "s" },
                    names.len()
                ),
            );
            poison(self, &names);
            return;
        }
        for (v, n) in vals.into_iter().zip(names) {
            if let Some((n, mutable)) = n {
                self.name_value(v, &n);
                self.at(l);
                self.declare(&n, v, mutable);
            }
        }
    }

    /// Returns the tuple `e` (`(a, b)`, or a call of a function of the program returning
    /// the same tuple) from a kernel declared `-> (A, B, ..)`.
    fn tuple_return(&mut self, e: &'k Expr, node: &'k dyn ToTokens) -> R<()> {
        let want = self
            .kernel
            .ret_tuple
            .as_ref()
            .map(|(ds, _)| ds.clone())
            .unwrap_or_default();
        let spelled = |ds: &[DataType]| {
            let names: Vec<String> = ds.iter().map(|d| rs(*d).to_string()).collect();
            format!("({})", names.join(", "))
        };
        let vals = match e {
            Expr::Tuple(t) if t.elems.len() == want.len() => {
                let mut vals = Vec::with_capacity(want.len());
                for (x, &d) in t.elems.iter().zip(&want) {
                    let v = self.expr_h(x, Some(d))?;
                    let v = self.materialize(v, Some(d))?;
                    match self.ty(v).as_scalar() {
                        Some(got) if got == d => vals.push(v),
                        Some(got) => {
                            return self.err(
                                x,
                                format!(
                                    "mismatched return type: this part of the tuple is `{}`, the kernel returns `{}` here; convert it with `as {}`",
                                    rs(got),
                                    rs(d),
                                    rs(d)
                                ),
                            );
                        }
                        None => {
                            return self.err(
                                x,
                                "a kernel can only return scalars; write tiles to a `&mut Tensor` / `#[out]` parameter",
                            );
                        }
                    }
                }
                vals
            }
            Expr::Call(c) if self.program_callee(c).is_some() => {
                let name = self.program_callee(c).unwrap_or_default();
                let span = self.sid(e);
                let vals = self.func_call(&name, c, span)?;
                let got: Vec<DataType> = vals
                    .iter()
                    .map(|&v| self.ty(v).as_scalar().unwrap_or(DataType::Unknown))
                    .collect();
                if got != want {
                    return self.err(
                        e,
                        format!(
                            "mismatched return type: `{name}` returns {}, the kernel returns {}",
                            spelled(&got),
                            spelled(&want)
                        ),
                    );
                }
                vals
            }
            _ => {
                return self.err(
                    e,
                    format!(
                        "the kernel returns the tuple {}: end it with a tuple of {} scalars, `(a, b)`",
                        spelled(&want),
                        want.len()
                    ),
                );
            }
        };
        self.at(node);
        let r = self.b.create_return(&mut self.ctx, vals);
        self.check(r).map(|_| ())
    }

    /// The name of the program function `c` calls, if it calls one (not a built-in).
    pub(super) fn program_callee(&self, c: &ExprCall) -> Option<String> {
        let Expr::Path(p) = &*c.func else {
            return None;
        };
        let ident = p.path.get_ident()?;
        let name = crate::model::spelling(ident);
        let builtin = [
            "min",
            "max",
            "matmul",
            "matmul_acc",
            "matmul_bias",
            "range",
            "parallel",
        ];
        (self.in_program
            && !builtin.contains(&name.as_str())
            && self.b.module().function_by_name(&name).is_some())
        .then_some(name)
    }

    /// An expression in statement position. Returns its value, `None` for statements.
    fn stmt_expr(
        &mut self,
        e: &'k Expr,
        want: bool,
        hint: Option<DataType>,
        ret_ok: bool,
    ) -> R<Option<Val>> {
        match e {
            Expr::ForLoop(f) => {
                self.lower_for(f);
                Ok(None)
            }
            Expr::Block(b) if crate::incore::is_region(b) => {
                self.lower_incore(b);
                Ok(None)
            }
            Expr::Call(c) if !want && self.program_callee(c).is_some() => {
                let name = self.program_callee(c).unwrap_or_default();
                let span = self.sid(e);
                self.func_call(&name, c, span).map(|_| None)
            }
            Expr::While(w) => {
                self.lower_while(w);
                Ok(None)
            }
            Expr::If(i) => self.lower_if(i, want, hint),
            Expr::Assign(a) => {
                self.assign(&a.left, &a.right, None, e);
                Ok(None)
            }
            Expr::Binary(b) if matches!(bin_of(&b.op), Some((_, true))) => {
                if let Some((k, _)) = bin_of(&b.op) {
                    self.assign(&b.left, &b.right, Some(k), e);
                }
                Ok(None)
            }
            Expr::Break(b) => {
                if b.label.is_some() || b.expr.is_some() {
                    return self.err(
                        e,
                        "`break` takes no label or value in a kernel; write `break;`",
                    );
                }
                self.at(e);
                let r = self.b.create_break(&mut self.ctx);
                self.check(r).map(|_| None)
            }
            Expr::Continue(c) => {
                if c.label.is_some() {
                    return self.err(
                        e,
                        "`continue` takes no label in a kernel; write `continue;`",
                    );
                }
                self.at(e);
                let r = self.b.create_continue(&mut self.ctx);
                self.check(r).map(|_| None)
            }
            Expr::Return(r) => {
                if ret_ok {
                    self.ret_stmt(r);
                    Ok(None)
                } else {
                    if let Some(v) = &r.expr {
                        let _ = self.expr(v);
                    }
                    self.err(
                        &r.return_token,
                        "`return` is only allowed as the last statement of the kernel body\n  = help: assign the result to a `let mut` variable and return it at the end",
                    )
                }
            }
            Expr::MethodCall(m) => self.method(m),
            Expr::Macro(m) => {
                self.macro_use(&m.mac);
                Err(Poison)
            }
            Expr::Paren(p) => self.stmt_expr(&p.expr, want, hint, ret_ok),
            _ => self.expr_h(e, hint).map(Some),
        }
    }

    fn let_stmt(&mut self, l: &'k Local) {
        let (pat, ann) = match &l.pat {
            Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            p => (p, None),
        };
        let (ident, mutable) = match pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                (Some(&pi.ident), pi.mutability.is_some())
            }
            Pat::Wild(_) => (None, false),
            Pat::Tuple(t) => {
                self.let_tuple(l, t);
                return;
            }
            other => {
                self.errs.push_spanned(
                    other,
                    "patterns are not supported in a kernel; bind one value per `let`: `let x = ..;`",
                );
                if let Some(init) = &l.init {
                    let _ = self.expr(&init.expr);
                }
                return;
            }
        };
        let name = ident.map(|i| self.ident_name(i));
        let poison = |this: &mut Self| {
            if let Some(n) = &name {
                this.poisoned.insert(n.clone());
            }
        };
        let Some(init) = &l.init else {
            self.errs.push_spanned(
                l,
                "a `let` in a kernel needs a value: `let x = ..;` (values are SSA, defined once)",
            );
            poison(self);
            return;
        };
        if let Some((else_token, _)) = &init.diverge {
            self.errs
                .push_spanned(else_token, "`let .. else` is not supported in a kernel");
        }
        // The annotation: a scalar type or a tile type.
        let expected: Option<Type> = match ann {
            None => None,
            Some(t) => match self.annotation(t) {
                Ok(t) => Some(t),
                Err(Poison) => {
                    let _ = self.expr(&init.expr);
                    poison(self);
                    return;
                }
            },
        };
        let hint = expected.as_ref().and_then(Type::as_scalar);
        let v = self.expr_h(&init.expr, hint).and_then(|v| {
            self.at(&init.expr);
            self.materialize(v, hint)
        });
        let Ok(v) = v else {
            poison(self);
            return;
        };
        if let Some(want) = &expected {
            let got = self.ty(v);
            if !pto_ir::ops::same_up_to_valid(want, got) {
                let (w, g) = (self.show(want), self.show(got));
                self.errs.push_spanned(
                    &init.expr,
                    format!("mismatched types: expected {w}, found {g}"),
                );
                poison(self);
                return;
            }
        }
        if let Some(n) = &name {
            self.name_value(v, n);
            self.at(l);
            self.declare(n, v, mutable);
        }
    }

    /// A `let` type annotation: a scalar or `Tile<T, R, C>`.
    fn annotation(&mut self, t: &'k syn::Type) -> R<Type> {
        if let Some(d) = scalar_dtype(t) {
            return Ok(Type::Scalar(d));
        }
        if let syn::Type::Path(p) = t
            && let Some(last) = p.path.segments.last()
            && last.ident == "Tile"
            && let syn::PathArguments::AngleBracketed(a) = &last.arguments
        {
            let (dtype, shape) = self.tile_args(a, t, true)?;
            return Ok(Type::Tile(TileType::new(dtype, shape)));
        }
        self.err(
            t,
            "a `let` annotation is a scalar type (`f32`, `i64`, ...) or `Tile<T, R, C>`",
        )
    }

    /// `<T, R, C>` of a tile type; `Tile<bool, R, C>` (a mask) only where `mask_ok` (a
    /// `let` annotation: masks come from comparisons, not constructors).
    pub(super) fn tile_args(
        &mut self,
        a: &'k AngleBracketedGenericArguments,
        node: &'k impl ToTokens,
        mask_ok: bool,
    ) -> R<(DataType, pto_ir::Shape)> {
        let mut it = a.args.iter();
        let dtype = match it.next() {
            Some(GenericArgument::Type(t)) => match scalar_dtype(t) {
                Some(DataType::Bool) if !mask_ok => {
                    return self.err(
                        t,
                        "a mask (`Tile<bool, R, C>`) comes from a comparison (`a.gt(b)`, `a.eq(0.0)`, ...), not a constructor",
                    );
                }
                d => d,
            },
            _ => None,
        };
        let Some(dtype) = dtype else {
            return self.err(
                node,
                "a tile type is `Tile::<T, R, C>` with `T` one of f16, bf16, f32, f64, i8..i64, u8..u64, bool",
            );
        };
        let rest: InlineVec<&GenericArgument, 4> = it.collect();
        let shape = self.sizes(&rest, node)?;
        Ok((dtype, shape))
    }

    /// Static sizes written as generic arguments (`::<16, 128>`).
    pub(super) fn sizes(
        &mut self,
        args: &[&'k GenericArgument],
        node: &'k impl ToTokens,
    ) -> R<pto_ir::Shape> {
        if args.is_empty() || args.len() > 4 {
            return self.err(
                node,
                format!("a tile has 1 to 4 dimensions, found {}", args.len()),
            );
        }
        let mut out = pto_ir::Shape::new();
        for a in args {
            match a {
                GenericArgument::Const(e) if int_literal(e).is_some_and(|v| v > 0) => {
                    out.push(int_literal(e).unwrap_or(1));
                }
                GenericArgument::Const(e) if int_literal(e).is_some() => {
                    return self.err(
                        *a,
                        "a tile size is at least 1: a tile of no rows or columns holds nothing",
                    );
                }
                other => {
                    return self.err(
                        other,
                        "tile sizes are static: write a positive integer literal (symbolic dimensions cannot size a tile)",
                    );
                }
            }
        }
        Ok(out)
    }

    pub(super) fn assign(
        &mut self,
        left: &'k Expr,
        right: &'k Expr,
        op: Option<pto_ir::ops::Spelling<'static>>,
        whole: &'k Expr,
    ) {
        let ident = match left {
            Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                p.path.get_ident()
            }
            Expr::Index(_) => {
                self.errs.push_spanned(
                    left,
                    "indexing is not supported in a kernel; write a tile into a tensor with `t.store([i, j], tile)`",
                );
                None
            }
            other => {
                self.errs.push_spanned(
                    other,
                    "only variables can be assigned in a kernel: `x = ..;`",
                );
                None
            }
        };
        let Some(ident) = ident else {
            let _ = self.expr(right);
            return;
        };
        // `None`: the name is poisoned; else its binding, if any. The variable's own shared
        // name is used from here on, so an assignment copies no string.
        let name = crate::model::spelling(ident);
        let found = (!self.poisoned.contains(name.as_str())).then(|| self.binding(&name));
        let Some(found) = found else {
            let _ = self.expr(right);
            return;
        };
        let Some((name, cur, mutable, is_param)) = found else {
            self.unknown_var(ident);
            let _ = self.expr(right);
            return;
        };
        // `cur`'s type is read where it is needed rather than copied: values keep their types.
        let hint = self.ty(cur).as_scalar();
        let new = match op {
            None => self.expr_h(right, hint),
            Some(k) => {
                let old = self.var(ident);
                let r = self.expr_h(right, hint);
                match (old, r) {
                    (Ok(old), Ok(r)) => {
                        let span = self.sid(whole);
                        self.apply_binary(k, old, r, span, hint)
                    }
                    _ => Err(Poison),
                }
            }
        };
        let Ok(new) = new else { return };
        if !mutable {
            let help = if is_param {
                format!(
                    "`{name}` is a kernel parameter; make a mutable copy first: `let mut {name} = {name};`"
                )
            } else {
                format!("declare it with `let mut {name} = ..;` to allow assignment")
            };
            self.errs.push_spanned(
                left,
                format!("cannot assign twice to immutable variable `{name}`\n  = help: {help}"),
            );
            return;
        }
        self.at(right);
        let Ok(new) = self.materialize(new, hint) else {
            return;
        };
        let (cur_ty, new_ty) = (self.ty(cur), self.ty(new));
        if !pto_ir::ops::same_up_to_valid(cur_ty, new_ty) {
            let (c, n) = (self.show(cur_ty), self.show(new_ty));
            self.errs.push_spanned(
                right,
                format!("mismatched types: `{name}` is {c}, but the assigned value is {n}; a variable keeps one type"),
            );
            return;
        }
        self.name_value(new, &name);
        self.at(left);
        let r = self.b.assign_var_named(&self.ctx, name, new);
        let _ = self.check(r);
    }
}
