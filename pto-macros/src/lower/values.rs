//! `Lower`'s diagnostics, values and types.

use proc_macro2::Span;
use pto_ir::{Attrs, Constant, DataType, Diag, Name, Opcode, SpanId, Type, ValueId, ValueList};
use quote::ToTokens;

use super::{Lower, Poison, R, Val};

impl<'k> Lower<'k, '_> {
    // ----- diagnostics -----

    pub(super) fn report(&mut self, d: Diag) {
        let e = self.spans.error(&d);
        self.errs.push(e);
    }

    pub(super) fn check<T>(&mut self, r: Result<T, Diag>) -> R<T> {
        r.map_err(|d| {
            self.report(d);
            Poison
        })
    }

    pub(super) fn err<T>(
        &mut self,
        node: &(impl ToTokens + ?Sized),
        msg: impl std::fmt::Display,
    ) -> R<T> {
        self.errs.push_spanned(node, msg);
        Err(Poison)
    }

    pub(super) fn err_range<T>(&mut self, r: (Span, Span), msg: impl std::fmt::Display) -> R<T> {
        self.errs.push_range(r, msg);
        Err(Poison)
    }

    pub(super) fn sid(&mut self, node: &'k dyn ToTokens) -> SpanId {
        self.spans.id(node)
    }

    pub(super) fn at(&mut self, node: &'k dyn ToTokens) -> SpanId {
        let id = self.spans.id(node);
        self.ctx.set_span(id);
        id
    }

    // ----- values and types -----

    pub(super) fn ty(&self, v: ValueId) -> &Type {
        self.b
            .module()
            .values
            .get(v)
            .map_or(&Type::Unknown, |d| &d.ty)
    }

    pub(super) fn show(&self, t: &Type) -> String {
        pto_ir::typefmt::type_msg(self.b.module(), t)
    }

    pub(super) fn val_scalar(&self, v: &Val) -> Option<DataType> {
        match v {
            Val::V(v) => self.ty(*v).as_scalar(),
            _ => None,
        }
    }

    /// The element type of a tile value (`None` for anything else); the tile's type itself
    /// is not copied, since the ops on tiles only need this.
    pub(super) fn val_tile(&self, v: &Val) -> Option<DataType> {
        match v {
            Val::V(v) => self.ty(*v).as_tile().map(|t| t.dtype),
            _ => None,
        }
    }

    pub(super) fn is_tensor(&self, v: &Val) -> bool {
        matches!(v, Val::V(v) if matches!(self.ty(*v), Type::Tensor(_)))
    }

    pub(super) fn name_value(&mut self, v: ValueId, name: &Name) {
        if let Some(d) = self.b.module_mut().values.get_mut(v)
            && d.name.is_none()
            && d.constant.is_none()
        {
            d.name = Some(Name::clone(name));
        }
    }

    /// A literal as a constant of `hint`'s type when it fits (`int64` / `fp64` otherwise).
    pub(super) fn materialize(&mut self, v: Val, hint: Option<DataType>) -> R<ValueId> {
        let (c, dtype, span) = match v {
            Val::V(v) => return Ok(v),
            Val::Int(i, s) => {
                let d = hint.filter(|d| d.is_numeric()).unwrap_or(DataType::Int64);
                let c = if d.is_float() {
                    Constant::Double(i as f64)
                } else {
                    Constant::Int64(i)
                };
                (c, d, s)
            }
            Val::Float(f, s) => (
                Constant::Double(f),
                hint.filter(|d| d.is_float()).unwrap_or(DataType::Fp64),
                s,
            ),
        };
        self.ctx.set_span(span);
        let r = self.b.create_const(&mut self.ctx, c, Some(dtype), "");
        self.check(r)
    }

    pub(super) fn const_of(&mut self, c: Constant, d: DataType) -> R<ValueId> {
        let r = self.b.create_const(&mut self.ctx, c, Some(d), "");
        self.check(r)
    }

    pub(super) fn build(
        &mut self,
        span: SpanId,
        op: Opcode,
        operands: impl Into<ValueList>,
        attrs: Attrs,
    ) -> R<ValueId> {
        self.build_list(span, op, operands.into(), attrs)
    }

    /// [`Lower::build`] past the conversion of its operands (one copy for every form).
    fn build_list(
        &mut self,
        span: SpanId,
        op: Opcode,
        operands: ValueList,
        attrs: Attrs,
    ) -> R<ValueId> {
        self.ctx.set_span(span);
        let r = self.b.build_op(&mut self.ctx, op, operands, attrs, "");
        match self.check(r)? {
            Some(v) => Ok(v),
            None => {
                self.report(Diag::new(span, format!("`{op}` has no result")));
                Err(Poison)
            }
        }
    }
}
