//! The typing rules of tensor-level ops: elementwise, views, assemble, reshape.

use super::*;

/// Elementwise binary tensor operations.
pub(super) fn tensor_binary(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(2)?;
    match (cx.ty(0), cx.ty(1)) {
        (Type::Tensor(a), Type::Tensor(b)) => {
            if a.dtype != b.dtype || a.shape != b.shape {
                return fail(|| {
                    InferError::new(format!(
                        "elementwise `{}` operands differ: {} and {}",
                        cx.name(),
                        cx.show(cx.ty(0)),
                        cx.show(cx.ty(1))
                    ))
                });
            }
            one(Type::Tensor(a.clone()))
        }
        (Type::Tensor(a), Type::Scalar(_)) | (Type::Scalar(_), Type::Tensor(a)) => {
            one(Type::Tensor(a.clone()))
        }
        (a, b) => fail(|| {
            InferError::new(format!(
                "`{}` needs tensors or a tensor and a scalar, found {} and {}",
                cx.name(),
                cx.show(a),
                cx.show(b)
            ))
        }),
    }
}
/// Elementwise unary tensor operations.
pub(super) fn tensor_unary(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(1)?;
    one(Type::Tensor(cx.tensor(0)?.clone()))
}
/// A view of a tensor window.
pub(super) fn tensor_view(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(1)?;
    let src = cx.tensor(0)?;
    let shape = cx.shape_attr("shape")?;
    if shape.len() != src.shape.len() {
        return fail(|| {
            InferError::new(format!(
                "a view of a rank-{} tensor needs rank-{} sizes",
                src.shape.len(),
                src.shape.len()
            ))
        });
    }
    let off = cx.offset_attr("offset", src.shape.len())?;
    check_window(cx, "view", &shape, &off, &src.shape)?;
    let sizes: Vec<Dim> = shape.iter().map(|&n| Dim::Const(n)).collect();
    check_inside(cx, "view", &sizes, &off, &src.shape)?;
    one(Type::Tensor(TensorType {
        dtype: src.dtype,
        shape: shape.into_iter().map(Dim::Const).collect(),
        format: src.format,
    }))
}
/// A tensor written into another at an offset.
pub(super) fn tensor_assemble(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(2)?;
    let (src, dst) = (cx.tensor(0)?, cx.tensor(1)?);
    if src.dtype != dst.dtype || src.shape.len() != dst.shape.len() {
        return fail(|| {
            InferError::new(format!(
                "`tensor.assemble` needs tensors of one dtype and rank, found {} and {}",
                cx.show(cx.ty(0)),
                cx.show(cx.ty(1))
            ))
        });
    }
    let off = cx.offset_attr("offset", dst.shape.len())?;
    check_inside(cx, "assemble", &src.shape, &off, &dst.shape)?;
    one(Type::Tensor(dst.clone()))
}

/// A tensor-level window (a view, or where `assemble` writes) lies inside its tensor, unlike
/// a tile load's, which may reach past the edge: tensor values have no valid region. Checked
/// where the sizes, the offset and the extent are all static.
fn check_inside(
    cx: &Cx<'_>,
    what: &str,
    sizes: &[Dim],
    off: &[Option<u64>],
    dims: &[Dim],
) -> R<()> {
    for (d, ((s, o), n)) in sizes.iter().zip(off).zip(dims).enumerate() {
        if let (Dim::Const(s), Some(o), Dim::Const(n)) = (s, o, n)
            && o + s > *n
        {
            let show = |v: &[Dim]| {
                v.iter()
                    .map(|x| crate::typefmt::dim_str(cx.m, x))
                    .collect::<Vec<_>>()
                    .join(" x ")
            };
            return fail(|| {
                InferError::new(format!(
                    "{what} window {} at offset [{}] does not fit the {} tensor: in dimension {d}, {o} + {s} > {n}",
                    show(sizes),
                    off.iter()
                        .map(|o| o.map_or_else(|| "?".to_string(), |v| v.to_string()))
                        .collect::<Vec<_>>()
                        .join(", "),
                    show(dims)
                ))
                .note(format!("a tensor-level {what} window lies inside its tensor"))
            });
        }
    }
    Ok(())
}
/// The same elements in another shape: the element counts must match, and the source must be
/// fully valid (a reshape of a partial valid region would not be a region of the result; pad
/// an edge tile with `load_or` first). The result is fully valid.
pub(super) fn reshape(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(1)?;
    let t = cx.tile2(0)?;
    let shape = cx.shape_attr("shape")?;
    if shape.len() != 2 {
        return fail(|| InferError::new("`tile.reshape` takes a rank-2 shape"));
    }
    let (n, n2) = (t.elements(), shape[0] * shape[1]);
    if n != n2 {
        return fail(|| {
            InferError::new(format!(
                "cannot reshape a {} tile ({n} elements) to {} ({n2} elements)",
                shape_x(&t.shape),
                shape_x(&shape)
            ))
            .note("a reshape keeps every element: the two shapes must have the same element count")
        });
    }
    let full = t
        .valid
        .iter()
        .zip(&t.shape)
        .all(|(v, &s)| *v == Dim::Const(s));
    if !full {
        return fail(|| {
            InferError::new(format!(
                "`reshape` needs a fully valid tile, found {}",
                cx.show(cx.ty(0))
            ))
            .note("an edge tile's partial valid region is not a region of the new shape; load it with `load_or` to pad it")
        });
    }
    let valid = shape.iter().map(|&s| Dim::Const(s)).collect();
    one_tile(t.dtype, shape, valid)
}
