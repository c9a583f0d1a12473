//! Tensor methods beyond `load` / `store`: the padded load `t.load_or::<R, C>([i, j], v)` and
//! element access `t.read([i, j])` / `t.write([i, j], s)`.

use pto_ir::{Attr, Attrs, InlineVec, Opcode, SpanId, ValueId};
use syn::{ExprMethodCall, GenericArgument};

use super::{Lower, Poison, R};

impl<'k> Lower<'k, '_> {
    /// `t.load_or::<R, C>([i, j], v)`: `tile.load_or` of the window, padded with `v` (of the
    /// tensor's dtype) where the window leaves the tensor.
    pub(super) fn load_or(
        &mut self,
        m: &'k ExprMethodCall,
        t: ValueId,
        span: SpanId,
    ) -> R<Option<ValueId>> {
        const USAGE: &str = "t.load_or::<R, C>([i, j], v)";
        let Some(tf) = &m.turbofish else {
            return self.err(&m.method, format!("write the window size: `{USAGE}`"));
        };
        let args: InlineVec<&GenericArgument, 4> = tf.args.iter().collect();
        let shape = self.sizes(&args, tf);
        self.arity(&m.method, m.args.len(), 2, &USAGE)?;
        let (Some(o), Some(v)) = (m.args.first(), m.args.get(1)) else {
            return Err(Poison);
        };
        let off = self.offsets(o);
        let pad = self.expr(v);
        let (shape, off, pad) = (shape?, off?, pad?);
        let dtype = self.ty(t).as_tensor().map(|tt| tt.dtype);
        self.ctx.set_span(span);
        let pad = self.materialize(pad, dtype)?;
        let attrs = Attrs::of([("shape", Attr::ints(&shape)), ("offset", Attr::List(off))]);
        self.build(span, Opcode::TileLoadOr, [t, pad], attrs)
            .map(Some)
    }
}

impl<'k> Lower<'k, '_> {
    /// `t.read([i, j])`: the element as a scalar of the tensor's dtype (`tile.read`).
    pub(super) fn read(
        &mut self,
        m: &'k ExprMethodCall,
        t: ValueId,
        span: SpanId,
    ) -> R<Option<ValueId>> {
        const USAGE: &str = "t.read([i, j])";
        if let Some(tf) = &m.turbofish {
            return self.err(tf, format!("`{USAGE}` takes no type arguments"));
        }
        self.arity(&m.method, m.args.len(), 1, &USAGE)?;
        let Some(o) = m.args.first() else {
            return Err(Poison);
        };
        let off = self.offsets(o)?;
        let attrs = Attrs::of([("offset", Attr::List(off))]);
        self.build(span, Opcode::TileRead, [t], attrs).map(Some)
    }

    /// `t.write([i, j], s)`: stores scalar `s` (converted like a literal to the tensor's
    /// dtype) into one element (`tile.write`, no result).
    pub(super) fn write(
        &mut self,
        m: &'k ExprMethodCall,
        t: ValueId,
        span: SpanId,
    ) -> R<Option<ValueId>> {
        const USAGE: &str = "t.write([i, j], s)";
        if let Some(tf) = &m.turbofish {
            return self.err(tf, format!("`{USAGE}` takes no type arguments"));
        }
        self.arity(&m.method, m.args.len(), 2, &USAGE)?;
        let (Some(o), Some(v)) = (m.args.first(), m.args.get(1)) else {
            return Err(Poison);
        };
        let off = self.offsets(o);
        let value = self.expr(v);
        let (off, value) = (off?, value?);
        if let Some((pto_ir::Direction::In, pname)) = self.tensor_param_direction(t) {
            return self.err(
                &m.method,
                format!(
                    "cannot write into `{pname}`: it is a read-only `&Tensor` parameter; declare it `&mut Tensor<..>`"
                ),
            );
        }
        let dtype = self.ty(t).as_tensor().map(|tt| tt.dtype);
        self.ctx.set_span(span);
        let value = self.materialize(value, dtype)?;
        self.ctx.set_span(span);
        let r = self.b.build_op(
            &mut self.ctx,
            Opcode::TileWrite,
            [value, t],
            Attrs::of([("offset", Attr::List(off))]),
            "",
        );
        self.check(r).map(|_| None)
    }
}
