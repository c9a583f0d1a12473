//! Expressions: literals, operators, casts, offsets.

use proc_macro2::Span;
use pto_ir::ops::{Operand, Spelling};
use pto_ir::sem::RoundMode;
use pto_ir::{Attr, Attrs, Constant, DataType, Opcode, SpanId, Type};
use quote::ToTokens;
use syn::{Expr, Lit, UnOp};

use super::ops::{
    MASK_NOT_A_NUMBER, TILE_FLOOR_DIV, bin_of, rs, same_meaning, spelled, tile_operators,
};
use super::{Lower, Poison, R, Val};
use crate::ctxt::range_of;
use crate::model::scalar_dtype;

impl<'k> Lower<'k, '_> {
    pub(super) fn expr(&mut self, e: &'k Expr) -> R<Val> {
        self.expr_h(e, None)
    }

    /// An expression that must have a value; `hint` types literals and `if` results.
    pub(super) fn expr_h(&mut self, e: &'k Expr, hint: Option<DataType>) -> R<Val> {
        match e {
            Expr::Lit(l) => self.lit(&l.lit, e),
            Expr::Path(p) => match p.path.get_ident() {
                Some(ident) if p.qself.is_none() => self.var(ident),
                _ => self.err(
                    e,
                    format!(
                        "unknown value `{}`; a kernel refers to its parameters, symbolic dimensions and `let` variables by name",
                        p.path.to_token_stream().to_string().replace(' ', "")
                    ),
                ),
            },
            Expr::Paren(p) => self.expr_h(&p.expr, hint),
            Expr::Group(g) => self.expr_h(&g.expr, hint),
            Expr::Binary(b) => {
                let Some((k, compound)) = bin_of(&b.op) else {
                    return self.err(e, "unsupported operator");
                };
                if compound {
                    return self.err(e, "a compound assignment is a statement, not a value; write it on its own line");
                }
                let l = self.expr_h(&b.left, hint);
                let r = self.expr_h(&b.right, hint);
                let (l, r) = (l?, r?);
                let span = self.sid(e);
                self.apply_binary(k, l, r, span, hint)
            }
            Expr::Unary(u) => self.unary(u, e, hint),
            Expr::Cast(c) => self.cast(&c.expr, &c.ty, e),
            Expr::MethodCall(m) => match self.method(m)? {
                Some(v) => Ok(v),
                None => self.err(e, "`t.store(..)` has no value; it is a statement"),
            },
            Expr::Call(c) => self.call(c, e),
            Expr::If(i) => match self.lower_if(i, true, hint)? {
                Some(v) => Ok(v),
                None => Err(Poison),
            },
            _ => self.unsupported(e),
        }
    }

    fn unsupported<T>(&mut self, e: &'k Expr) -> R<T> {
        let (range, msg): ((Span, Span), String) = match e {
            Expr::Closure(_) => (range_of(e), "closures are not supported in a kernel; write the computation inline".into()),
            Expr::Reference(_) | Expr::RawAddr(_) => (
                range_of(e),
                "references are not supported in a kernel body; use the value directly (`x`, not `&x`)".into(),
            ),
            Expr::Match(m) => (
                (m.match_token.span, range_of(&*m.expr).1),
                "`match` is not supported in a kernel; use `if` / `else if` / `else`".into(),
            ),
            Expr::Loop(l) => (
                range_of(&l.loop_token),
                "`loop` is not supported in a kernel; use `while cond { .. }` or `for i in a..b { .. }`".into(),
            ),
            Expr::Unsafe(u) => (range_of(&u.unsafe_token), "`unsafe` blocks are not allowed in a kernel".into()),
            Expr::Macro(m) => {
                self.macro_use(&m.mac);
                return Err(Poison);
            }
            Expr::Struct(s) => (
                range_of(&s.path),
                "struct literals are not supported in a kernel; create tiles with `Tile::<T, R, C>::zeros()` / `full(v)` or `t.load::<R, C>([i, j])`".into(),
            ),
            Expr::Index(_) => (
                range_of(e),
                "indexing is not supported in a kernel; load a window with `t.load::<R, C>([i, j])` or take a sub-tile with `a.extract::<R, C>([i, j])`".into(),
            ),
            Expr::Tuple(_) => (range_of(e), "tuples are not supported in a kernel; bind one value per `let`".into()),
            Expr::Array(_) => (
                range_of(e),
                "arrays are only written as offsets: `t.load::<R, C>([i, j])`, `t.store([i, j], tile)`".into(),
            ),
            Expr::Range(_) => (range_of(e), "ranges are only written as `for` loop bounds: `for i in a..b`".into()),
            Expr::Field(_) => (range_of(e), "field access is not supported in a kernel".into()),
            Expr::Try(_) => (range_of(e), "the `?` operator is not supported in a kernel".into()),
            Expr::Block(_) => (
                range_of(e),
                "block expressions are not supported in a kernel; use `let` statements (blocks belong to `if`, `for` and `while`)".into(),
            ),
            Expr::Assign(_) => (range_of(e), "an assignment is a statement, not a value".into()),
            Expr::ForLoop(_) | Expr::While(_) => (range_of(e), "a loop is a statement, not a value".into()),
            Expr::Return(r) => (
                range_of(&r.return_token),
                "`return` is only allowed as the last statement of the kernel body".into(),
            ),
            Expr::Break(_) | Expr::Continue(_) => (range_of(e), "`break` / `continue` are statements, not values".into()),
            Expr::Async(_) | Expr::Await(_) => (range_of(e), "`async` / `.await` are not supported in a kernel".into()),
            _ => (
                range_of(e),
                "this Rust syntax is not part of the kernel language; kernels use `let`, assignment, `for`, `while`, `if`, arithmetic, method calls on tiles and tensors, and the built-in functions".into(),
            ),
        };
        self.err_range(range, msg)
    }

    fn lit(&mut self, l: &'k Lit, e: &'k Expr) -> R<Val> {
        let span = self.sid(e);
        match l {
            Lit::Int(i) => {
                let suffix = i.suffix();
                let Ok(v) = i.base10_parse::<i64>() else {
                    return self.err(e, "integer literal out of range for `i64`");
                };
                if suffix.is_empty() {
                    return Ok(Val::Int(v, span));
                }
                match DataType::from_rust_name(suffix) {
                    Some(d) if d.is_numeric() => {
                        self.ctx.set_span(span);
                        let c = if d.is_float() {
                            Constant::Double(v as f64)
                        } else {
                            Constant::Int64(v)
                        };
                        self.const_of(c, d).map(Val::V)
                    }
                    _ => self.err(e, format!("unsupported literal suffix `{suffix}`")),
                }
            }
            Lit::Float(f) => {
                let Ok(v) = f.base10_parse::<f64>() else {
                    return self.err(e, "invalid float literal");
                };
                let suffix = f.suffix();
                if suffix.is_empty() {
                    return Ok(Val::Float(v, span));
                }
                match DataType::from_rust_name(suffix) {
                    Some(d) if d.is_float() => {
                        self.ctx.set_span(span);
                        self.const_of(Constant::Double(v), d).map(Val::V)
                    }
                    _ => self.err(e, format!("unsupported literal suffix `{suffix}`")),
                }
            }
            Lit::Bool(b) => {
                self.ctx.set_span(span);
                self.const_of(Constant::Bool(b.value), DataType::Bool)
                    .map(Val::V)
            }
            _ => self.err(
                e,
                "only integer, float and `bool` literals are supported in a kernel",
            ),
        }
    }

    /// `l op r` for a binary spelling of the op table (`+`, `max`, `floor_div`): the row
    /// for the operands' class (a tile on either side makes it a tile op) and dtype.
    pub(super) fn apply_binary(
        &mut self,
        k: Spelling<'_>,
        l: Val,
        r: Val,
        span: SpanId,
        hint: Option<DataType>,
    ) -> R<Val> {
        if self.is_tensor(&l) || self.is_tensor(&r) {
            return self.tensor_binary(k, l, r, span);
        }
        let tile = self.val_tile(&l).or_else(|| self.val_tile(&r));
        if let (Some(dtype), TILE_FLOOR_DIV) = (tile, k) {
            return self.tile_floor_div(l, r, dtype, span);
        }
        if let Some(dtype) = tile {
            let op = spelled(k, Operand::Tile, Some(dtype));
            if dtype == DataType::Bool && !op.is_some_and(|op| op.accepts(dtype)) {
                let (s, e) = self.spans.get(span);
                return self.err_range((s, e), MASK_NOT_A_NUMBER);
            }
            let Some(op) = op else {
                let (s, e) = self.spans.get(span);
                let instead = spelled(k, Operand::Scalar, None)
                    .and_then(|op| same_meaning(op, Operand::Tile))
                    .map_or(String::new(), |row| format!("; write `{}`", row.surface));
                return self.err_range(
                    (s, e),
                    format!(
                        "`{}` is not an operation on tiles{instead} (tile operators: {})",
                        k.text(),
                        tile_operators()
                    ),
                );
            };
            self.ctx.set_span(span);
            let l = self.materialize(l, Some(dtype))?;
            let r = self.materialize(r, Some(dtype))?;
            return self.build(span, op, [l, r], Attrs::new()).map(Val::V);
        }
        let d = match (self.val_scalar(&l), self.val_scalar(&r)) {
            (Some(d), _) | (None, Some(d)) => d,
            (None, None) if matches!(l, Val::Float(..)) || matches!(r, Val::Float(..)) => {
                hint.filter(|d| d.is_float()).unwrap_or(DataType::Fp64)
            }
            (None, None) => hint.filter(|d| d.is_numeric()).unwrap_or(DataType::Int64),
        };
        let Some(op) = spelled(k, Operand::Scalar, Some(d)) else {
            let (s, e) = self.spans.get(span);
            return self.err_range(
                (s, e),
                format!("`{}` is not an operation on scalars", k.text()),
            );
        };
        self.ctx.set_span(span);
        let lv = self.materialize(l, Some(d))?;
        let rv = self.materialize(r, Some(d))?;
        self.build(span, op, [lv, rv], Attrs::new()).map(Val::V)
    }

    /// `a.floor_div(b)` on tiles, composed from ops every backend has: for floats the
    /// quotient rounded toward negative infinity (`TDIV`, then `TCVT` "round only" with
    /// `CAST_FLOOR`), for integers `(a - a.floor_mod(b)) / b`, an exact division.
    fn tile_floor_div(&mut self, l: Val, r: Val, dtype: DataType, span: SpanId) -> R<Val> {
        self.ctx.set_span(span);
        let l = self.materialize(l, Some(dtype))?;
        let r = self.materialize(r, Some(dtype))?;
        if dtype.is_float() {
            let q = self.build(span, Opcode::TileDiv, [l, r], Attrs::new())?;
            let attrs = Attrs::of([
                ("dtype", Attr::Ident(dtype.name().into())),
                ("round", Attr::Ident(RoundMode::CastFloor.word().into())),
            ]);
            return self.build(span, Opcode::TileCast, [q], attrs).map(Val::V);
        }
        let m = self.build(span, Opcode::TileFloorMod, [l, r], Attrs::new())?;
        let d = self.build(span, Opcode::TileSub, [l, m], Attrs::new())?;
        self.build(span, Opcode::TileDiv, [d, r], Attrs::new())
            .map(Val::V)
    }

    /// `-a` / `!a`: the op table's prefix row for the operand's class and dtype.
    fn unary(&mut self, u: &'k syn::ExprUnary, e: &'k Expr, hint: Option<DataType>) -> R<Val> {
        let spelling = match &u.op {
            UnOp::Neg(_) => Spelling::Prefix("-"),
            UnOp::Not(_) => Spelling::Prefix("!"),
            UnOp::Deref(_) => {
                return self.err(
                    e,
                    "dereferencing (`*x`) is not supported in a kernel; values are used directly",
                );
            }
            _ => return self.err(e, "unsupported unary operator"),
        };
        let neg = matches!(u.op, UnOp::Neg(_));
        let v = if neg {
            self.expr_h(&u.expr, hint)?
        } else {
            self.expr(&u.expr)?
        };
        let span = self.sid(e);
        let id = match v {
            Val::Int(i, _) if neg => return Ok(Val::Int(i.wrapping_neg(), span)),
            Val::Float(f, _) if neg => return Ok(Val::Float(-f, span)),
            v => self.materialize(v, None)?,
        };
        let (on, dtype) = match self.ty(id) {
            Type::Tile(t) => (Operand::Tile, Some(t.dtype)),
            Type::Scalar(d) => (Operand::Scalar, Some(*d)),
            _ => (Operand::Tensor, None),
        };
        match spelled(spelling, on, dtype) {
            Some(Opcode::TensorNeg) => self.tensor_neg(e, id, span),
            Some(op) => self.build(span, op, [id], Attrs::new()).map(Val::V),
            _ => self.err(
                e,
                "`!` applies to `bool` and integer scalars and integer tiles",
            ),
        }
    }

    pub(super) fn cast(&mut self, inner: &'k Expr, ty: &'k syn::Type, e: &'k Expr) -> R<Val> {
        let Some(d) = scalar_dtype(ty) else {
            let _ = self.expr(inner);
            return self.err(
                ty,
                "`as` converts between scalar types (f16, bf16, f32, f64, i8..i64, u8..u64, bool); convert tiles with `.cast::<T>()`",
            );
        };
        let v = self.expr(inner)?;
        let span = self.sid(e);
        match v {
            Val::Int(i, _) if d.is_numeric() => {
                self.ctx.set_span(span);
                let c = if d.is_float() {
                    Constant::Double(i as f64)
                } else {
                    Constant::Int64(i)
                };
                self.const_of(c, d).map(Val::V)
            }
            Val::Float(f, _) if d.is_numeric() => {
                self.ctx.set_span(span);
                let c = if d.is_float() {
                    Constant::Double(f)
                } else {
                    Constant::Int64(f as i64)
                };
                self.const_of(c, d).map(Val::V)
            }
            _ => {
                let id = self.materialize(v, None)?;
                match self.ty(id) {
                    Type::Scalar(s) if *s == d => Ok(Val::V(id)),
                    Type::Scalar(s) => self
                        .build(
                            span,
                            spelled(Spelling::Operator("as"), Operand::Scalar, Some(*s))
                                .unwrap_or(Opcode::ScalarCast),
                            [id],
                            Attrs::of([("dtype", Attr::Ident(d.name().into()))]),
                        )
                        .map(Val::V),
                    Type::Tile(_) => self.err(
                        e,
                        format!("`as` does not convert tiles; write `.cast::<{}>()`", rs(d)),
                    ),
                    t => {
                        let shown = self.show(t);
                        self.err(e, format!("`as` converts scalars, found {shown}"))
                    }
                }
            }
        }
    }

    /// `[i, j]` offsets: integer literals become `Attr::Int`, other values `Attr::Value`.
    pub(super) fn offsets(&mut self, e: &'k Expr) -> R<Vec<Attr>> {
        let Expr::Array(a) = e else {
            let _ = self.expr(e);
            return self.err(
                e,
                "offsets are written as an array, one per dimension: `[i, j]`",
            );
        };
        let mut out = Vec::with_capacity(a.elems.len());
        let mut ok = true;
        for el in a.elems.iter() {
            match self.expr(el) {
                Ok(Val::Int(i, _)) if i >= 0 => out.push(Attr::Int(i)),
                Ok(v) => {
                    self.at(el);
                    match self.materialize(v, Some(DataType::Int64)) {
                        Ok(id) => {
                            if self.ty(id).is_int_scalar() {
                                out.push(Attr::Value(id));
                            } else {
                                let shown = self.show(self.ty(id));
                                self.errs.push_spanned(
                                    el,
                                    format!("offsets must be integer scalars, found {shown}"),
                                );
                                ok = false;
                            }
                        }
                        Err(Poison) => ok = false,
                    }
                }
                Err(Poison) => ok = false,
            }
        }
        if ok { Ok(out) } else { Err(Poison) }
    }
}
