//! The typing rules of the ops that touch memory: tile loads and stores, moves between
//! buffers, tensor element reads and writes.

use super::*;

/// A tile loaded from a tensor window; `load_or` pads the part outside the tensor with its
/// second operand, so its tile is fully valid.
pub(super) fn load(cx: &Cx<'_>) -> R<ResultTypes> {
    let padded = cx.op == Opcode::TileLoadOr;
    cx.arity(if padded { 2 } else { 1 })?;
    let src = cx.tensor(0)?;
    if padded {
        pad_value(cx, src.dtype)?;
        if src.shape.len() > 2 {
            return fail(|| {
                InferError::new(format!(
                    "`load_or` pads rank-1 and rank-2 windows, found a rank-{} tensor",
                    src.shape.len()
                ))
            });
        }
    }
    let shape = cx.shape_attr("shape")?;
    if shape.len() != src.shape.len() {
        return fail(|| {
            InferError::new(format!(
                "a load from a rank-{} tensor needs a rank-{} window, found {}",
                src.shape.len(),
                src.shape.len(),
                shape_x(&shape)
            ))
        });
    }
    let off = cx.offset_attr("offset", src.shape.len())?;
    check_window(cx, "load", &shape, &off, &src.shape)?;
    let mut valid = Extents::with_capacity(shape.len());
    for ((&s, o), d) in shape.iter().zip(&off).zip(&src.shape) {
        valid.push(match (o, d) {
            _ if padded => Dim::Const(s),
            (Some(o), Dim::Const(d)) => Dim::Const((d - o).min(s)),
            _ => Dim::Dynamic,
        });
    }
    one_tile(src.dtype, shape, valid)
}
/// The pad of a `load_or`: a constant (pto-isa's `TFILLPAD` takes it from the tile type's
/// `PadValue`), which is 0, the dtype's largest or smallest value ([`crate::sem::pad`]), or
/// any value for an fp32 tile.
pub(super) fn pad_value(cx: &Cx<'_>, dtype: DataType) -> R<()> {
    let v = cx.operands.get(1).and_then(|&v| cx.m.values.get(v));
    let Some(c) = v.and_then(|d| d.constant) else {
        return fail(|| {
            InferError::new("`load_or` pads with a constant, found a value known only at run time")
                .note("pto-isa's TFILLPAD takes the pad from the tile type (its `PadValue`), so it is fixed when the kernel is compiled")
        });
    };
    if crate::sem::pad::pad_kind(dtype, c.as_f64()).is_none() {
        return fail(|| {
            InferError::new(format!(
                "`load_or` cannot pad {} tile with {}",
                article(dtype),
                c.as_f64()
            ))
            .note("a pad is 0, the dtype's largest or smallest value, or any value for an fp32 tile (pto-isa's PadValue)")
        });
    }
    Ok(())
}
/// A tile stored into a tensor window.
pub(super) fn store(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(2)?;
    let t = cx.tile(0)?;
    let dst = cx.tensor(1)?;
    if t.dtype == DataType::Bool {
        return fail(|| {
            InferError::new(format!(
                "cannot store a mask (a tile of bool) into a {} tensor: a mask is not a number",
                dst.dtype
            ))
            .note("store values picked with the mask instead: `m.select(a, b)`")
        });
    }
    if !crate::sem::store::store_converts(t.dtype, dst.dtype) {
        return fail(|| {
            InferError::new(format!(
                "cannot store {} tile into {} tensor",
                article(t.dtype),
                article(dst.dtype)
            ))
            .note(format!(
                "{} tile stores into {}; convert the tile first with `.cast::<T>()`",
                article(t.dtype),
                crate::sem::store::store_targets(t.dtype)
            ))
        });
    }
    if cx.op == Opcode::TileStoreAdd && !crate::sem::store::atomic_add_dtype(dst.dtype) {
        return fail(|| {
            InferError::new(format!(
                "`store_add` cannot accumulate into {} tensor",
                article(dst.dtype)
            ))
            .note("the atomic-add store accumulates in fp16, bf16, fp32, int8, int16 or int32")
        });
    }
    if t.shape.len() != dst.shape.len() {
        return fail(|| {
            InferError::new(format!(
                "cannot store a rank-{} tile into a rank-{} tensor",
                t.shape.len(),
                dst.shape.len()
            ))
        });
    }
    let off = cx.offset_attr("offset", dst.shape.len())?;
    check_window(cx, "store", &t.shape, &off, &dst.shape)?;
    Ok(ResultTypes::new())
}
/// A tile moved to another memory.
pub(super) fn move_rule(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(1)?;
    let t = cx.tile(0)?;
    let loc = cx.attr("loc")?.as_ident().unwrap_or("");
    if crate::types::MemorySpace::from_name(loc).is_none() {
        return fail(|| InferError::new(format!("`tile.move` to unknown location `{loc}`")));
    }
    one(Type::Tile(t.clone()))
}
/// One element of a tensor read as a scalar, or a scalar written into one: one index per
/// dimension; a constant index must lie inside a static extent.
pub(super) fn element(cx: &Cx<'_>) -> R<ResultTypes> {
    let write = cx.op.class() == OpClass::ElementWrite;
    cx.arity(if write { 2 } else { 1 })?;
    let t = cx.tensor(if write { 1 } else { 0 })?;
    let what = if write { "write" } else { "read" };
    if write {
        let v = cx.scalar(0)?;
        if v != t.dtype {
            return fail(|| {
                InferError::new(format!("cannot write a {v} into a {} tensor", t.dtype))
                    .note("convert the value first with `as`")
            });
        }
    }
    let list = cx.list_attr("offset")?;
    if list.len() != t.shape.len() {
        return fail(|| {
            InferError::new(format!(
                "`t.{what}` of a rank-{} tensor takes {} indices, found {}",
                t.shape.len(),
                t.shape.len(),
                list.len()
            ))
            .note(format!(
                "an element is named by one index per dimension: `t.{what}([i, j]{})`",
                if write { ", s" } else { "" }
            ))
        });
    }
    let off = cx.offset_attr("offset", t.shape.len())?;
    for (d, (o, dim)) in off.iter().zip(&t.shape).enumerate() {
        if let (Some(o), Dim::Const(n)) = (o, dim)
            && o >= n
        {
            return fail(|| {
                InferError::new(format!(
                    "{what} index {o} in dimension {d} is past the tensor's extent {n}"
                ))
            });
        }
    }
    if write {
        Ok(ResultTypes::new())
    } else {
        one(Type::Scalar(t.dtype))
    }
}
pub(super) fn fmt_offsets(off: &[Option<u64>]) -> String {
    off.iter()
        .map(|o| o.map_or_else(|| "?".to_string(), |v| v.to_string()))
        .collect::<Vec<_>>()
        .join(", ")
}
/// A load/store/view window must not be larger than a static tensor dimension; a window that
/// starts inside but reaches past the edge is fine (the valid region shrinks), one that
/// starts at or past a static edge is an error.
pub(super) fn check_window(
    cx: &Cx<'_>,
    what: &str,
    shape: &[u64],
    off: &[Option<u64>],
    dims: &[Dim],
) -> R<()> {
    for d in 0..shape.len() {
        if let Dim::Const(n) = dims[d] {
            if shape[d] > n {
                return fail(|| {
                    InferError::new(format!(
                    "{what} window {} is larger than the tensor ({}) in dimension {d}: {} > {n}",
                    shape_x(shape),
                    dims.iter()
                        .map(|x| crate::typefmt::dim_str(cx.m, x))
                        .collect::<Vec<_>>()
                        .join(" x "),
                    shape[d]
                ))
                .note(format!(
                    "a {what} window must fit the tensor's static extent in every dimension"
                ))
                });
            }
            if let Some(o) = off[d]
                && o >= n
            {
                return fail(|| {
                    InferError::new(format!(
                        "{what} offset {o} in dimension {d} is past the tensor's extent {n}"
                    ))
                });
            }
        }
    }
    Ok(())
}
