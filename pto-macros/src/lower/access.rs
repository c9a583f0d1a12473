//! Tensor methods beyond `load` / `store`: the padded load `t.load_or::<R, C>([i, j], v)`.

use pto_ir::{Attr, Attrs, InlineVec, Opcode, SpanId, ValueId};
use syn::{ExprMethodCall, GenericArgument};

use super::{Lower, Poison, R};
use crate::ctxt::items;

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
        let args: InlineVec<&GenericArgument, 4> = items(&tf.args).collect();
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
