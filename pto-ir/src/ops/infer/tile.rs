//! The typing rules of tile compute ops: elementwise, casts, compares, select, reductions,
//! broadcasts, transpose, extract / assemble, fills and valid regions.

use super::*;

/// Elementwise unary tile operations.
pub(super) fn tile_unary(cx: &Cx<'_>) -> R<ResultTypes> {
    let op = cx.op;
    cx.arity(1)?;
    let t = cx.tile(0)?;
    let ok = match op.class() {
        OpClass::TileUnary => t.dtype.is_numeric(),
        OpClass::TileUnaryFloat => t.dtype.is_float(),
        // `!` on a mask, as on a Rust `bool`.
        _ => t.dtype.is_int() || t.dtype == DataType::Bool,
    };
    if !ok {
        let want = match op.class() {
            OpClass::TileUnaryFloat => "a float tile (fp16, bf16, fp32)",
            OpClass::TileNot => "an integer tile",
            _ => "a numeric tile",
        };
        return fail(|| {
            InferError::new(format!(
                "`{}` needs {want}, found {}",
                cx.name(),
                cx.show(cx.ty(0))
            ))
        });
    }
    one(Type::Tile(t.clone()))
}
/// Tile dtype conversion.
pub(super) fn tile_cast(cx: &Cx<'_>) -> R<ResultTypes> {
    let attrs = cx.attrs;
    cx.arity(1)?;
    let t = cx.tile(0)?;
    let to = cx.dtype_attr("dtype")?;
    if !to.is_concrete() || to == DataType::Bool {
        return fail(|| InferError::new(format!("cannot convert a tile to {to}")));
    }
    if t.dtype == DataType::Bool {
        return fail(|| {
            InferError::new("a mask (a tile of bool) is not a number and has no conversion")
                .note("pick values with the mask instead: `m.select(a, b)`")
        });
    }
    if let Some(r) = attrs.get("round") {
        let ok = r
            .as_ident()
            .and_then(crate::sem::RoundMode::from_word)
            .is_some();
        if !ok {
            return fail(|| {
                InferError::new(
                    "`tile.cast` attribute `round` must be one of none, rint, round, floor, ceil, trunc, odd",
                )
            });
        }
    }
    let mut out = t.clone();
    out.dtype = to;
    one(Type::Tile(out))
}
/// A mask from comparing two tiles of one shape and dtype, or a tile and a scalar; it is
/// valid where both operands are.
pub(super) fn tile_compare(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(2)?;
    let mask = |t: &TileType, valid: Extents| {
        one_tile(DataType::Bool, Shape::copied_from(&t.shape), valid)
    };
    let numeric = |t: &TileType, ty: &Type| -> R<()> {
        if t.dtype.is_numeric() {
            Ok(())
        } else {
            fail(|| {
                InferError::new(format!(
                    "`{}` compares numbers, found {}",
                    cx.name(),
                    cx.show(ty)
                ))
            })
        }
    };
    match (cx.ty(0), cx.ty(1)) {
        (Type::Tile(a), Type::Tile(b)) => {
            numeric(a, cx.ty(0))?;
            if a.dtype != b.dtype || a.shape != b.shape {
                return fail(|| {
                    InferError::new(format!(
                        "`{}` compares tiles of one shape and dtype, found {} and {}",
                        cx.name(),
                        cx.show(cx.ty(0)),
                        cx.show(cx.ty(1))
                    ))
                    .note("compare with a scalar, or convert one operand with `.cast::<T>()`")
                });
            }
            let valid = a
                .valid
                .iter()
                .zip(&b.valid)
                .map(|(x, y)| meet(*x, *y))
                .collect();
            mask(a, valid)
        }
        (Type::Tile(a), Type::Scalar(s)) | (Type::Scalar(s), Type::Tile(a)) => {
            let tile = if matches!(cx.ty(0), Type::Tile(_)) {
                cx.ty(0)
            } else {
                cx.ty(1)
            };
            numeric(a, tile)?;
            if !s.is_numeric() {
                return fail(|| {
                    InferError::new(format!(
                        "`{}` cannot compare {} tile with {} scalar",
                        cx.name(),
                        article(a.dtype),
                        article(*s)
                    ))
                });
            }
            mask(a, a.valid.clone())
        }
        (a, b) => fail(|| {
            InferError::new(format!(
                "`{}` needs a tile operand, found {} and {}",
                cx.name(),
                cx.show(a),
                cx.show(b)
            ))
        }),
    }
}
/// `select(mask, a, b)`: a mask and a numeric tile of its shape, and a tile of `a`'s type
/// or a scalar; the result has `a`'s dtype and is valid where the mask and the tiles are.
pub(super) fn select(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(3)?;
    let m = cx.tile(0)?;
    if m.dtype != DataType::Bool {
        return fail(|| {
            InferError::new(format!(
                "`tile.select` needs a mask (a tile of bool) first, found {}",
                cx.show(cx.ty(0))
            ))
            .note("a mask comes from a comparison: `a.gt(b)`, `a.eq(0.0)`, ...")
        });
    }
    let a = cx.tile(1)?;
    if !a.dtype.is_numeric() || a.shape != m.shape {
        return fail(|| {
            InferError::new(format!(
                "`tile.select` picks between numeric tiles of the mask's shape {}, found {}",
                shape_x(&m.shape),
                cx.show(cx.ty(1))
            ))
        });
    }
    let mut valid: Extents = m
        .valid
        .iter()
        .zip(&a.valid)
        .map(|(x, y)| meet(*x, *y))
        .collect();
    match cx.ty(2) {
        Type::Tile(b) if b.dtype == a.dtype && b.shape == a.shape => {
            valid = valid
                .iter()
                .zip(&b.valid)
                .map(|(x, y)| meet(*x, *y))
                .collect();
        }
        Type::Scalar(s) if s.is_numeric() => {}
        other => {
            return fail(|| {
                InferError::new(format!(
                    "`tile.select` alternatives differ: {} and {}",
                    cx.show(cx.ty(1)),
                    cx.show(other)
                ))
                .note(
                    "the second alternative is a tile of the first's shape and dtype, or a scalar",
                )
            });
        }
    }
    one_tile(a.dtype, Shape::copied_from(&a.shape), valid)
}
/// Row and column reductions.
pub(super) fn reduce(cx: &Cx<'_>) -> R<ResultTypes> {
    let op = cx.op;
    cx.arity(1)?;
    let t = cx.tile2(0)?;
    if !t.dtype.is_numeric() {
        return fail(|| InferError::new(format!("`{}` needs a numeric tile", cx.name())));
    }
    let (r, c) = (t.shape[0], t.shape[1]);
    one(Type::Tile(if op.class() == OpClass::RowReduce {
        TileType {
            dtype: t.dtype,
            shape: pair(r, 1),
            valid: pair(t.valid[0], Dim::Const(1)),
            memref: None,
        }
    } else {
        TileType {
            dtype: t.dtype,
            shape: pair(1, c),
            valid: pair(Dim::Const(1), t.valid[1]),
            memref: None,
        }
    }))
}
/// `row_argmax` / `row_argmin`: the `int32` column index of each row's extremum, over the
/// valid region.
pub(super) fn arg_reduce(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(1)?;
    let t = cx.tile2(0)?;
    if !t.dtype.is_numeric() {
        return fail(|| {
            InferError::new(format!(
                "`{}` needs a numeric tile, found {}",
                cx.name(),
                cx.show(cx.ty(0))
            ))
        });
    }
    one_tile(
        DataType::Int32,
        pair(t.shape[0], 1),
        pair(t.valid[0], Dim::Const(1)),
    )
}
/// Row and column broadcasts.
pub(super) fn expand(cx: &Cx<'_>) -> R<ResultTypes> {
    let op = cx.op;
    cx.arity(1)?;
    let t = cx.tile2(0)?;
    let shape = cx.shape_attr("shape")?;
    if shape.len() != 2 {
        return fail(|| InferError::new(format!("`{}` needs a rank-2 `shape`", cx.name())));
    }
    let row = op.class() == OpClass::RowExpand;
    let ok = if row {
        t.shape == [shape[0], 1]
    } else {
        t.shape == [1, shape[1]]
    };
    if !ok {
        return fail(|| {
            InferError::new(format!(
                "`{}` cannot expand a {} tile to {}",
                cx.name(),
                shape_x(&t.shape),
                shape_x(&shape)
            ))
            .note(if row {
                "a row expansion takes an R x 1 tile to R x C"
            } else {
                "a column expansion takes a 1 x C tile to R x C"
            })
        });
    }
    let valid = if row {
        pair(t.valid[0], Dim::Const(shape[1]))
    } else {
        pair(Dim::Const(shape[0]), t.valid[1])
    };
    one_tile(t.dtype, shape, valid)
}
/// Transposition.
pub(super) fn transpose(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(1)?;
    let t = cx.tile2(0)?;
    one_tile(
        t.dtype,
        pair(t.shape[1], t.shape[0]),
        pair(t.valid[1], t.valid[0]),
    )
}
/// A window of a tile.
pub(super) fn extract(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(1)?;
    let src = cx.tile2(0)?;
    let shape = cx.shape_attr("shape")?;
    if shape.len() != 2 {
        return fail(|| InferError::new("`tile.extract` takes a rank-2 window"));
    }
    let off = cx.offset_attr("offset", 2)?;
    let mut valid = Extents::new();
    for d in 0..2 {
        let end = off[d].unwrap_or(0).saturating_add(shape[d]);
        if end > src.shape[d] {
            return fail(|| {
                InferError::new(format!(
                    "extract window {} at offset [{}] is outside the {} source tile",
                    shape_x(&shape),
                    fmt_offsets(&off),
                    shape_x(&src.shape)
                ))
                .note(
                    "the window plus its offset must fit inside the source tile in every dimension",
                )
            });
        }
        valid.push(match (off[d], src.valid[d]) {
            (Some(o), Dim::Const(v)) if v > o => Dim::Const((v - o).min(shape[d])),
            (Some(_), Dim::Const(_)) => {
                return fail(|| {
                    InferError::new(format!(
                        "extract window at offset [{}] starts outside the source's valid region",
                        fmt_offsets(&off)
                    ))
                });
            }
            _ => Dim::Dynamic,
        });
    }
    one_tile(src.dtype, shape, valid)
}
/// A tile written into another at an offset.
pub(super) fn tile_assemble(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(2)?;
    let (src, dst) = (cx.tile(0)?, cx.tile(1)?);
    if src.dtype != dst.dtype || src.shape.len() != dst.shape.len() {
        return fail(|| {
            InferError::new(format!(
                "`tile.assemble` needs tiles of one dtype and rank, found {} and {}",
                cx.show(cx.ty(0)),
                cx.show(cx.ty(1))
            ))
        });
    }
    let off = cx.offset_attr("offset", dst.shape.len())?;
    // The kernel's `a.insert([i, j], b)`: `b`'s whole shape must fit (PTO's static rule).
    for d in 0..dst.shape.len() {
        if off[d].unwrap_or(0).saturating_add(src.shape[d]) > dst.shape[d] {
            return fail(|| {
                InferError::new(format!(
                    "cannot insert a {} tile at offset [{}] into a {} tile",
                    shape_x(&src.shape),
                    fmt_offsets(&off),
                    shape_x(&dst.shape)
                ))
                .note("`a.insert([i, j], b)` needs all of `b` inside `a` at the offset, in every dimension")
            });
        }
    }
    one(Type::Tile(dst.clone()))
}
/// A tile filled with one scalar.
pub(super) fn full(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(1)?;
    let v = cx.scalar(0)?;
    let shape = cx.shape_attr("shape")?;
    let dtype = cx.dtype_attr("dtype")?;
    if !dtype.is_concrete() || !(v.is_numeric() || v == DataType::Bool) {
        return fail(|| {
            InferError::new(format!("`tile.full` cannot fill a {dtype} tile with a {v}"))
        });
    }
    one(Type::Tile(TileType::new(dtype, shape)))
}
/// A tile with a new valid region.
pub(super) fn valid(cx: &Cx<'_>) -> R<ResultTypes> {
    let m = cx.m;
    let operands = cx.operands;
    if operands.is_empty() {
        return fail(|| {
            InferError::new(
                "`tile.valid` takes a tile and one extent per dimension, found no operands",
            )
        });
    }
    let t = cx.tile(0)?;
    if operands.len() != 1 + t.shape.len() {
        return fail(|| {
            InferError::new(format!(
                "`tile.valid` takes one extent per dimension ({}), found {}",
                t.shape.len(),
                operands.len().saturating_sub(1)
            ))
        });
    }
    let mut valid = Extents::new();
    for (d, &v) in operands[1..].iter().enumerate() {
        let data = &m.values[v];
        if !data.ty.is_int_scalar() {
            return fail(|| {
                InferError::new(format!(
                    "valid extents must be integers, found {}",
                    cx.show(&data.ty)
                ))
            });
        }
        match data.constant.map(|c| c.as_i64()) {
            Some(c) if c <= 0 || c as u64 > t.shape[d] => {
                return fail(|| {
                    let wanted: Vec<String> = operands[1..]
                        .iter()
                        .map(|&v| {
                            m.values[v]
                                .constant
                                .map_or_else(|| m.ssa_name(v), |c| c.as_i64().to_string())
                        })
                        .collect();
                    InferError::new(format!(
                        "valid region [{}] does not fit the {} tile",
                        wanted.join(", "),
                        shape_x(&t.shape)
                    ))
                    .note("each valid extent must be at least 1 and at most the tile's extent")
                });
            }
            Some(c) => valid.push(Dim::Const(c as u64)),
            None => valid.push(Dim::Value(v)),
        }
    }
    one_tile(t.dtype, Shape::copied_from(&t.shape), valid)
}
pub(super) fn tile_binary(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(2)?;
    let bitwise = cx.op.class() == OpClass::TileBitwise;
    // Masks combine with `&`, `|` and `^`, tile with tile only.
    let mask_ok = cx.op.accepts(DataType::Bool) && matches!(cx.ty(1), Type::Tile(_));
    let check_dtype = |d: DataType, t: &Type| -> R<()> {
        let ok = if bitwise {
            d.is_int() || (d == DataType::Bool && mask_ok)
        } else {
            d.is_numeric()
        };
        if ok {
            Ok(())
        } else {
            fail(|| {
                InferError::new(format!(
                    "`{}` needs {} operands, found {}",
                    cx.name(),
                    if bitwise { "integer" } else { "numeric" },
                    cx.show(t)
                ))
            })
        }
    };
    match (cx.ty(0), cx.ty(1)) {
        (Type::Tile(a), Type::Tile(b)) => {
            check_dtype(a.dtype, cx.ty(0))?;
            if a.dtype != b.dtype {
                return fail(|| {
                    InferError::new(format!(
                        "elementwise `{}` operands have different dtypes: {} and {}",
                        cx.name(),
                        cx.show(cx.ty(0)),
                        cx.show(cx.ty(1))
                    ))
                    .note("convert one operand with `.cast::<T>()`")
                });
            }
            if a.shape == b.shape {
                let mut valid = Extents::with_capacity(a.valid.len());
                let merge = if accumulates(cx.op) { join } else { meet };
                for (x, y) in a.valid.iter().zip(&b.valid) {
                    valid.push(merge(*x, *y));
                }
                return one_tile(a.dtype, Shape::copied_from(&a.shape), valid);
            }
            if a.shape.len() == 2 && b.shape.len() == 2 && !bitwise {
                let (big, small) = if a.shape[0].saturating_mul(a.shape[1])
                    >= b.shape[0].saturating_mul(b.shape[1])
                {
                    (a, b)
                } else {
                    (b, a)
                };
                let (r, c) = (big.shape[0], big.shape[1]);
                if small.shape == [r, 1] {
                    return one_tile(
                        a.dtype,
                        Shape::copied_from(&big.shape),
                        pair(meet(big.valid[0], small.valid[0]), big.valid[1]),
                    );
                }
                if small.shape == [1, c] {
                    return one_tile(
                        a.dtype,
                        Shape::copied_from(&big.shape),
                        pair(big.valid[0], meet(big.valid[1], small.valid[1])),
                    );
                }
            }
            fail(|| {
                InferError::new(format!(
                "elementwise `{}` operands have different shapes: {} and {}",
                cx.name(),
                shape_x(&a.shape),
                shape_x(&b.shape)
            ))
            .note("expected two tiles of the same shape, or an R x C tile with an R x 1 (row) or 1 x C (column) tile to broadcast")
            })
        }
        (Type::Tile(a), Type::Scalar(s)) | (Type::Scalar(s), Type::Tile(a)) => {
            // The tile operand's own type, for the message (no copy of it is made).
            let tile = if matches!(cx.ty(0), Type::Tile(_)) {
                cx.ty(0)
            } else {
                cx.ty(1)
            };
            check_dtype(a.dtype, tile)?;
            if !(s.is_numeric()) || (bitwise && !s.is_int()) {
                return fail(|| {
                    InferError::new(format!(
                        "`{}` cannot combine {} tile with {} scalar",
                        cx.name(),
                        article(a.dtype),
                        article(*s)
                    ))
                });
            }
            one(Type::Tile(a.clone()))
        }
        (a, b) => fail(|| {
            InferError::new(format!(
                "`{}` needs a tile operand, found {} and {}",
                cx.name(),
                cx.show(a),
                cx.show(b)
            ))
        }),
    }
}
