//! Small helpers for passes that add ops to a module.

use pto_ir::stmt::Operation;
use pto_ir::{Attrs, OpId, Opcode, ProgramModule, SpanId, ValueDef, ValueId, ValueList};

/// A new op defining `result` from `operands`, not yet in any `statement.op`.
pub(crate) fn new_op(
    m: &mut ProgramModule,
    opcode: Opcode,
    operands: &[ValueId],
    result: ValueId,
    attrs: Attrs,
    span: SpanId,
) -> OpId {
    let op = m.ops.push(Operation {
        opcode,
        operands: operands.iter().copied().collect(),
        results: ValueList::from([result]),
        attrs,
        span,
    });
    m.values[result].def = ValueDef::OpResult(op, 0);
    op
}
