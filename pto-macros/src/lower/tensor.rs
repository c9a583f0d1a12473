//! Tensor-level operations (dsl.md 5.7): `t.view([sizes], [offsets])`, elementwise operators
//! and methods on tensors, `out.assemble(v, [offsets])`. They are allowed only in
//! `control_flow` / `data_flow` functions; the `tile-tensor-ops` pass tiles them with the
//! program's `tile_default` sizes. The ops and their spellings come from the op table.

use pto_ir::ops::{Operand, Spelling};
use pto_ir::{Attr, Attrs, Direction, FunctionKind, Opcode, SpanId, ValueId};
use syn::{Expr, ExprMethodCall};

use super::ops::{methods, spelled};
use super::{Lower, Poison, R, Val};
use crate::model::int_literal;

impl<'k> Lower<'k, '_> {
    /// The kind of the function being lowered.
    fn func_kind(&self) -> FunctionKind {
        let m = self.b.module();
        self.ctx
            .func
            .and_then(|f| m.funcs.get(f))
            .map_or(FunctionKind::Kernel, |f| f.kind)
    }

    /// An error at `node` unless the function may use tensor-level ops (`what` names the use).
    fn tensor_level_allowed(
        &mut self,
        node: &(impl quote::ToTokens + ?Sized),
        what: &str,
    ) -> R<()> {
        match self.func_kind() {
            FunctionKind::ControlFlow | FunctionKind::DataFlow => Ok(()),
            kind => self.err(
                node,
                format!(
                    "tensor-level {what} is only allowed in `#[pto::kernel(control_flow)]` and `#[pto::kernel(data_flow)]` functions, and this one is `{}`; in a tile kernel load tiles with `t.load::<R, C>([i, j])` and compute on them",
                    kind.name()
                ),
            ),
        }
    }

    /// `t.view(..)`, `out.assemble(..)`, `t.exp()`, `t.max(u)`, ...
    pub(super) fn tensor_level_method(
        &mut self,
        m: &'k ExprMethodCall,
        t: ValueId,
        op: Opcode,
        span: SpanId,
    ) -> R<Option<ValueId>> {
        let usage = op.info().surface;
        self.tensor_level_allowed(&m.method, &format!("`{usage}`"))?;
        if let Some(tf) = &m.turbofish {
            return self.err(tf, format!("`{usage}` takes no type arguments"));
        }
        let n = m.args.len();
        let args: Vec<&'k Expr> = m.args.iter().collect();
        match op {
            Opcode::TensorView => {
                self.arity(&m.method, n, 2, &usage)?;
                let (Some(sizes), Some(offsets)) = (args.first(), args.get(1)) else {
                    return Err(Poison);
                };
                let shape = self.view_sizes(sizes);
                let off = self.offsets(offsets);
                let (shape, off) = (shape?, off?);
                let attrs = Attrs::of([("shape", Attr::ints(&shape)), ("offset", Attr::List(off))]);
                self.build(span, op, [t], attrs).map(Some)
            }
            Opcode::TensorAssemble => {
                self.arity(&m.method, n, 2, &usage)?;
                let (Some(&value), Some(offsets)) = (args.first(), args.get(1)) else {
                    return Err(Poison);
                };
                let v = self.expr(value);
                let off = self.offsets(offsets);
                let (v, off) = (v?, off?);
                if let Some((Direction::In, pname)) = self.tensor_param_direction(t) {
                    return self.err(
                        &m.method,
                        format!(
                            "cannot assemble into `{pname}`: it is a read-only `&Tensor` parameter; declare it `&mut Tensor<..>` (or `#[out] {pname}: &mut Tensor<..>`)"
                        ),
                    );
                }
                if !self.is_tensor(&v) {
                    return self.err(
                        value,
                        format!("`{usage}` writes a tensor value (a view or tensor arithmetic), not a tile or a scalar; store a tile with `t.store([i, j], tile)`"),
                    );
                }
                let Val::V(v) = v else { return Err(Poison) };
                let attrs = Attrs::of([("offset", Attr::List(off))]);
                self.build(span, op, [v, t], attrs).map(Some)
            }
            _ if op.class() == pto_ir::OpClass::TensorUnary => {
                self.arity(&m.method, n, 0, &usage)?;
                self.build(span, op, [t], Attrs::new()).map(Some)
            }
            _ => {
                self.arity(&m.method, n, 1, &usage)?;
                let Some(arg) = args.first() else {
                    return Err(Poison);
                };
                let other = self.expr(arg)?;
                let dtype = self.b.module().ty(t).as_tensor().map(|x| x.dtype);
                let other = self.materialize(other, dtype)?;
                self.build(span, op, [t, other], Attrs::new()).map(Some)
            }
        }
    }

    /// The sizes of a view: an array of positive integer literals.
    fn view_sizes(&mut self, e: &'k Expr) -> R<Vec<u64>> {
        let Expr::Array(a) = e else {
            return self.err(
                e,
                "the sizes of a view are an array of integer literals, one per dimension: `[16, 64]`",
            );
        };
        let mut out = Vec::new();
        for el in a.elems.iter() {
            match int_literal(el) {
                Some(v) if v > 0 => out.push(v),
                Some(_) => return self.err(el, "a view size is at least 1"),
                None => {
                    return self.err(
                        el,
                        "view sizes are static: write a positive integer literal",
                    );
                }
            }
        }
        Ok(out)
    }

    /// `a + b` (`-`, `*`, `/`) with a tensor on either side: `tensor.add` ..., the other operand
    /// a tensor of the same shape or a scalar.
    pub(super) fn tensor_binary(
        &mut self,
        k: Spelling<'_>,
        l: Val,
        r: Val,
        span: SpanId,
    ) -> R<Val> {
        let (s, e) = self.spans.get(span);
        let Some(op) = spelled(k, Operand::Tensor, None) else {
            return self.err_range(
                (s, e),
                format!(
                    "`{}` is not a tensor-level operation; tensors support + - * / and the methods {}",
                    k.text(),
                    methods(Operand::Tensor, Some("tensor"))
                ),
            );
        };
        if !matches!(
            self.func_kind(),
            FunctionKind::ControlFlow | FunctionKind::DataFlow
        ) {
            let kind = self.func_kind().name();
            return self.err_range(
                (s, e),
                format!(
                    "tensor-level arithmetic (`{}` on tensors) is only allowed in `#[pto::kernel(control_flow)]` and `#[pto::kernel(data_flow)]` functions, and this one is `{kind}`; load tiles with `t.load::<R, C>([i, j])` and compute on them",
                    k.text()
                ),
            );
        }
        let dtype = [l, r].iter().find_map(|v| match v {
            Val::V(id) => self.b.module().ty(*id).as_tensor().map(|t| t.dtype),
            _ => None,
        });
        self.ctx.set_span(span);
        let l = self.materialize(l, dtype)?;
        let r = self.materialize(r, dtype)?;
        self.build(span, op, [l, r], Attrs::new()).map(Val::V)
    }

    /// `-t` on a tensor.
    pub(super) fn tensor_neg(&mut self, e: &'k Expr, t: ValueId, span: SpanId) -> R<Val> {
        self.tensor_level_allowed(e, "negation")?;
        self.build(span, Opcode::TensorNeg, [t], Attrs::new())
            .map(Val::V)
    }
}
