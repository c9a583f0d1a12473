//! The typing rules of the matmul ops.

use super::*;

/// The accumulator dtype for matmul inputs of `input` (f16/bf16/f32 -> f32, i8 -> i32).
pub fn matmul_acc_dtype(input: DataType) -> Option<DataType> {
    match input {
        DataType::Fp16 | DataType::Bf16 | DataType::Fp32 => Some(DataType::Fp32),
        DataType::Int8 => Some(DataType::Int32),
        _ => None,
    }
}
pub(super) fn matmul(cx: &Cx<'_>) -> R<ResultTypes> {
    let class = cx.op.class();
    let first = usize::from(class == OpClass::MatmulAcc);
    cx.arity(if class == OpClass::Matmul { 2 } else { 3 })?;
    let a = cx.tile(first)?;
    let b = cx.tile(first + 1)?;
    if a.shape.len() != 2 || b.shape.len() != 2 {
        return fail(|| {
            InferError::new(format!(
                "`{}` needs rank-2 tiles, found rank {} and rank {}",
                cx.name(),
                a.shape.len(),
                b.shape.len()
            ))
        });
    }
    let (m, k) = (a.shape[0], a.shape[1]);
    let (k2, n) = (b.shape[0], b.shape[1]);
    if k != k2 {
        return fail(|| {
            InferError::new(format!(
                "matmul inner dimensions differ: M x K = {m} x {k} and K' x N = {k2} x {n}"
            ))
            .note("the left operand's columns must equal the right operand's rows")
        });
    }
    if a.dtype != b.dtype {
        return fail(|| {
            InferError::new(format!(
                "matmul operands have different dtypes: {} and {}",
                a.dtype, b.dtype
            ))
        });
    }
    let Some(acc) = matmul_acc_dtype(a.dtype) else {
        return fail(|| {
            InferError::new(format!("matmul does not take {} inputs", a.dtype))
                .note("inputs may be fp16, bf16 or fp32 (accumulating in fp32) or int8 (accumulating in int32)")
        });
    };
    let result = TileType {
        dtype: acc,
        shape: pair(m, n),
        valid: pair(a.valid[0], b.valid[1]),
        memref: None,
    };
    match class {
        OpClass::MatmulAcc => {
            let c = cx.tile(0)?;
            if c.shape != result.shape || c.dtype != acc {
                return fail(|| {
                    InferError::new(format!(
                        "matmul_acc accumulator is {}, expected {} for {} x {} by {} x {} {} inputs",
                        cx.show(cx.ty(0)),
                        crate::typefmt::short_tile(&TileType::new(acc, vec![m, n])),
                        m,
                        k,
                        k2,
                        n,
                        a.dtype
                    ))
                });
            }
            let valid = pair(
                join(c.valid[0], result.valid[0]),
                join(c.valid[1], result.valid[1]),
            );
            one(Type::Tile(TileType { valid, ..result }))
        }
        OpClass::MatmulBias => {
            let bias = cx.tile(2)?;
            let dtype_ok = bias.dtype == acc || bias.dtype == a.dtype;
            if bias.shape != [1, n] || !dtype_ok {
                return fail(|| {
                    InferError::new(format!(
                        "matmul_bias bias is {}, expected a 1 x {n} tile of {acc}",
                        cx.show(cx.ty(2))
                    ))
                });
            }
            one(Type::Tile(result))
        }
        _ => one(Type::Tile(result)),
    }
}
