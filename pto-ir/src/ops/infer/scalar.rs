//! The typing rules of scalar ops: arithmetic, comparisons, bitwise, logic, casts.

use super::*;

/// Scalar arithmetic, comparisons and bitwise operations.
pub(super) fn scalar_binary(cx: &Cx<'_>) -> R<ResultTypes> {
    let op = cx.op;
    cx.arity(2)?;
    let (a, b) = (cx.scalar(0)?, cx.scalar(1)?);
    let class = op.class();
    let shift = matches!(op, Opcode::ScalarShl | Opcode::ScalarShr);
    if a != b && !shift {
        return fail(|| {
            InferError::new(format!(
            "`{}` operands have different types: {a} and {b}",
            cx.name()
        ))
        .note("both operands of a scalar operation must have the same type; convert one with `as`")
        });
    }
    let ok = match class {
        OpClass::ScalarArith => a.is_numeric(),
        OpClass::ScalarCompare => a.is_numeric() || a == DataType::Bool,
        _ => a.is_int() && b.is_int(),
    };
    if !ok {
        let want = match class {
            OpClass::ScalarBitwise => "integers",
            _ => "numbers",
        };
        // Name the operand that is wrong (a shift's operands may differ in type).
        let found = if class == OpClass::ScalarBitwise && a.is_int() {
            b
        } else {
            a
        };
        return fail(|| InferError::new(format!("`{}` needs {want}, found {found}", cx.name())));
    }
    one(Type::Scalar(if class == OpClass::ScalarCompare {
        DataType::Bool
    } else {
        a
    }))
}
/// Scalar `and` / `or`.
pub(super) fn scalar_logic(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(2)?;
    let (a, b) = (cx.scalar(0)?, cx.scalar(1)?);
    if a != DataType::Bool || b != DataType::Bool {
        return fail(|| {
            InferError::new(format!(
                "`{}` needs two bool operands, found {a} and {b}",
                cx.name()
            ))
        });
    }
    one(Type::Scalar(DataType::Bool))
}
/// Scalar negation and `!`.
pub(super) fn scalar_unary(cx: &Cx<'_>) -> R<ResultTypes> {
    let op = cx.op;
    cx.arity(1)?;
    let a = cx.scalar(0)?;
    let ok = match op.class() {
        OpClass::ScalarUnary => a.is_numeric(),
        OpClass::ScalarNot => a == DataType::Bool,
        _ => a.is_int(),
    };
    if !ok {
        return fail(|| InferError::new(format!("`{}` does not apply to {a}", cx.name())));
    }
    one(Type::Scalar(a))
}
/// Scalar conversions.
pub(super) fn scalar_cast(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(1)?;
    cx.scalar(0)?;
    let to = cx.dtype_attr("dtype")?;
    if !to.is_concrete() {
        return fail(|| InferError::new(format!("cannot cast to {to}")));
    }
    one(Type::Scalar(to))
}
