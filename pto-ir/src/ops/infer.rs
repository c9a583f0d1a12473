//! Result-type inference and operand checking, one rule per [`OpClass`].
//!
//! The builder calls [`infer`] to type an op's results; the verifier calls it again and
//! compares. Messages name the op, the shapes and dtypes involved, and what would be
//! accepted, because the macro shows them to kernel authors at their own tokens.

use crate::attr::{Attr, Attrs};
use crate::dtype::DataType;
use crate::entity::ValueId;
use crate::inline::InlineVec;
use crate::module::ProgramModule;
use crate::ops::{OpClass, Opcode};
use crate::typefmt::{shape_x, type_msg};
use crate::types::{Dim, Extents, Shape, TensorType, TileType, Type};

/// Why an op is ill-typed.
#[derive(Clone, Debug, PartialEq)]
pub struct InferError {
    /// The main message.
    pub message: String,
    /// What would be accepted.
    pub notes: Vec<String>,
}

impl InferError {
    /// An error (cold: typing a valid module never builds one, and telling the compiler so
    /// moves the message code off the typing rules' path).
    #[cold]
    fn new(message: impl Into<String>) -> Self {
        InferError {
            message: message.into(),
            notes: Vec::new(),
        }
    }

    fn note(mut self, n: impl Into<String>) -> Self {
        self.notes.push(n.into());
        self
    }
}

type R<T> = Result<T, InferError>;

/// Fails with the error `f` builds. Out of line and cold: every message is formatted in its
/// own function laid out apart from the typing rules, so a rule's path through valid
/// operands is a few compare-and-branch instructions, not interleaved with the argument
/// setup of a `format!` per check (the rules run for every op, twice, in code the parse in
/// front has evicted from the instruction cache).
#[cold]
#[inline(never)]
fn fail<T>(f: impl FnOnce() -> InferError) -> R<T> {
    Err(f())
}

/// The result types of an op: one for nearly every op, so it is kept inline.
pub type ResultTypes = InlineVec<Type, 1>;

/// A two-item list (a rank-2 shape or valid region), pushed rather than collected from an
/// array, which costs several times more.
fn pair<T>(a: T, b: T) -> InlineVec<T, 2> {
    let mut v = InlineVec::new();
    v.push(a);
    v.push(b);
    v
}

/// A single result type (pushed: collecting from a one-item array costs several times
/// more, and nearly every op comes through here). Placement is the lowering's business, so
/// a tile result copied from an operand's type is unplaced here: a result is never placed
/// by typing alone. Out of line: one copy of the list code serves every typing rule.
#[inline(never)]
fn one(mut t: Type) -> R<ResultTypes> {
    if let Type::Tile(tt) = &mut t {
        tt.memref = None;
    }
    let mut types = ResultTypes::new();
    types.push(t);
    Ok(types)
}

/// [`one`] tile of `dtype`, `shape` and `valid` extents.
fn one_tile(dtype: DataType, shape: Shape, valid: Extents) -> R<ResultTypes> {
    one(Type::Tile(TileType {
        dtype,
        shape,
        valid,
        memref: None,
    }))
}

struct Cx<'a> {
    m: &'a ProgramModule,
    op: Opcode,
    operands: &'a [ValueId],
    attrs: &'a Attrs,
}

impl<'a> Cx<'a> {
    fn name(&self) -> String {
        self.op.full_name()
    }

    /// Operand `i`'s type; a missing operand reads as `unknown`, so every rule reports a
    /// wrong operand count as an error instead of indexing out of range.
    fn ty(&self, i: usize) -> &'a Type {
        static MISSING: Type = Type::Unknown;
        self.operands
            .get(i)
            .and_then(|v| self.m.values.get(*v))
            .map_or(&MISSING, |d| &d.ty)
    }

    fn show(&self, t: &Type) -> String {
        type_msg(self.m, t)
    }

    fn arity(&self, n: usize) -> R<()> {
        if self.operands.len() == n {
            Ok(())
        } else {
            fail(|| {
                InferError::new(format!(
                    "`{}` takes {n} operand{}, found {}",
                    self.name(),
                    if n == 1 { "" } else { "s" },
                    self.operands.len()
                ))
            })
        }
    }

    fn scalar(&self, i: usize) -> R<DataType> {
        match self.ty(i) {
            Type::Scalar(d) => Ok(*d),
            t => fail(|| {
                InferError::new(format!(
                    "`{}` operand {} must be a scalar, found {}",
                    self.name(),
                    i + 1,
                    self.show(t)
                ))
            }),
        }
    }

    fn tile(&self, i: usize) -> R<&'a TileType> {
        match self.ty(i) {
            Type::Tile(t) => Ok(t),
            t => fail(|| {
                InferError::new(format!(
                    "`{}` operand {} must be a tile, found {}",
                    self.name(),
                    i + 1,
                    self.show(t)
                ))
            }),
        }
    }

    fn tile2(&self, i: usize) -> R<&'a TileType> {
        let t = self.tile(i)?;
        if t.shape.len() != 2 {
            return fail(|| {
                InferError::new(format!(
                    "`{}` needs a rank-2 tile, found rank {} ({})",
                    self.name(),
                    t.shape.len(),
                    self.show(self.ty(i))
                ))
            });
        }
        Ok(t)
    }

    fn tensor(&self, i: usize) -> R<&'a TensorType> {
        match self.ty(i) {
            Type::Tensor(t) => Ok(t),
            t => fail(|| {
                InferError::new(format!(
                    "`{}` operand {} must be a tensor, found {}",
                    self.name(),
                    i + 1,
                    self.show(t)
                ))
            }),
        }
    }

    fn attr(&self, key: &str) -> R<&'a Attr> {
        match self.attrs.get(key) {
            Some(a) => Ok(a),
            None => fail(|| InferError::new(format!("`{}` needs attribute `{key}`", self.name()))),
        }
    }

    fn dtype_attr(&self, key: &str) -> R<DataType> {
        match self.attr(key)?.as_dtype() {
            Some(d) => Ok(d),
            None => fail(|| {
                InferError::new(format!(
                    "`{}` attribute `{key}` must be a dtype name",
                    self.name()
                ))
            }),
        }
    }

    /// The list attribute `key`.
    fn list_attr(&self, key: &str) -> R<&'a [Attr]> {
        match self.attr(key)?.as_list() {
            Some(list) => Ok(list),
            None => fail(|| {
                InferError::new(format!(
                    "`{}` attribute `{key}` must be a list",
                    self.name()
                ))
            }),
        }
    }

    fn shape_attr(&self, key: &str) -> R<Shape> {
        let list = self.list_attr(key)?;
        let mut out = Shape::with_capacity(list.len());
        for a in list {
            match a.as_int() {
                Some(v) if v > 0 => out.push(v as u64),
                _ => {
                    return fail(|| {
                        InferError::new(format!(
                            "`{}` attribute `{key}` must list positive integers",
                            self.name()
                        ))
                    });
                }
            }
        }
        if out.is_empty() || out.len() > 4 {
            return fail(|| {
                InferError::new(format!(
                    "`{}` shape must have rank 1 to 4, found rank {}",
                    self.name(),
                    out.len()
                ))
            });
        }
        Ok(out)
    }

    /// Offsets: integers or integer scalars; `None` entries are runtime values.
    fn offset_attr(&self, key: &str, rank: usize) -> R<InlineVec<Option<u64>, 4>> {
        let list = self.list_attr(key)?;
        if list.len() != rank {
            return fail(|| {
                InferError::new(format!(
                    "`{}` takes {rank} offset{} (one per dimension), found {}",
                    self.name(),
                    if rank == 1 { "" } else { "s" },
                    list.len()
                ))
            });
        }
        let mut out = InlineVec::with_capacity(rank);
        for a in list {
            out.push(self.offset(a)?);
        }
        Ok(out)
    }

    /// One offset: a static one, or `None` for a runtime value.
    fn offset(&self, a: &Attr) -> R<Option<u64>> {
        match a {
            Attr::Int(v) if *v >= 0 => Ok(Some(*v as u64)),
            Attr::Int(v) => {
                fail(|| InferError::new(format!("`{}` offset {v} is negative", self.name())))
            }
            Attr::Value(v) => match self.m.values.get(*v).map(|d| (&d.ty, d.constant)) {
                Some((_, Some(c))) if c.as_i64() >= 0 && !c.is_float() => {
                    Ok(Some(c.as_i64() as u64))
                }
                Some((_, Some(c))) if !c.is_float() => fail(|| {
                    InferError::new(format!(
                        "`{}` offset {} is negative",
                        self.name(),
                        c.as_i64()
                    ))
                }),
                Some((t, _)) if t.is_int_scalar() => Ok(None),
                Some((t, _)) => fail(|| {
                    InferError::new(format!(
                        "`{}` offsets must be integers, found {}",
                        self.name(),
                        self.show(t)
                    ))
                }),
                None => fail(|| {
                    InferError::new(format!("`{}` offset names an unknown value", self.name()))
                }),
            },
            _ => fail(|| {
                InferError::new(format!(
                    "`{}` offsets must be integers or integer scalars",
                    self.name()
                ))
            }),
        }
    }
}

/// Infers the result types of `op` applied to `operands` with `attrs`, or says why the
/// operands are not acceptable. Constants are typed at creation and are not inferred.
pub fn infer(
    m: &ProgramModule,
    op: Opcode,
    operands: &[ValueId],
    attrs: &Attrs,
) -> Result<ResultTypes, InferError> {
    if let Some(bad) = operands.iter().find(|v| !m.values.contains(**v)) {
        return fail(|| InferError::new(format!("operand {bad:?} is not a value of this module")));
    }
    let cx = Cx {
        m,
        op,
        operands,
        attrs,
    };
    // Every rule builds its results with `one` (which unplaces tiles), an empty list, or
    // `call` (which does the same).
    infer_placed(&cx)
}

/// Dispatches to the rule of the op's class. Each rule is its own function (not inlined
/// here): a kernel uses a handful of classes, and each one's code is then contiguous and
/// small instead of scattered through one 23 KB match whose prologue serves them all.
fn infer_placed(cx: &Cx<'_>) -> Result<ResultTypes, InferError> {
    match cx.op.class() {
        OpClass::Const => fail(|| InferError::new("constants are typed when they are created")),
        OpClass::Call => call(cx),
        OpClass::ScalarArith | OpClass::ScalarCompare | OpClass::ScalarBitwise => scalar_binary(cx),
        OpClass::ScalarLogic => scalar_logic(cx),
        OpClass::ScalarUnary | OpClass::ScalarNot | OpClass::ScalarBitNot => scalar_unary(cx),
        OpClass::ScalarCast => scalar_cast(cx),
        OpClass::TileBinary | OpClass::TileBitwise => tile_binary(cx),
        OpClass::TileUnary | OpClass::TileUnaryFloat | OpClass::TileNot => tile_unary(cx),
        OpClass::TileCast => tile_cast(cx),
        OpClass::TileCompare => tile_compare(cx),
        OpClass::Select => select(cx),
        OpClass::RowReduce | OpClass::ColReduce => reduce(cx),
        OpClass::RowArgReduce => arg_reduce(cx),
        OpClass::RowExpand | OpClass::ColExpand => expand(cx),
        OpClass::Transpose => transpose(cx),
        OpClass::Matmul | OpClass::MatmulAcc | OpClass::MatmulBias => matmul(cx),
        OpClass::Extract => extract(cx),
        OpClass::TileAssemble => tile_assemble(cx),
        OpClass::Full => full(cx),
        OpClass::Valid => valid(cx),
        OpClass::Load => load(cx),
        OpClass::Store => store(cx),
        OpClass::Move => move_rule(cx),
        OpClass::TensorBinary => tensor_binary(cx),
        OpClass::TensorUnary => tensor_unary(cx),
        OpClass::TensorView => tensor_view(cx),
        OpClass::TensorAssemble => tensor_assemble(cx),
        OpClass::ElementRead | OpClass::ElementWrite => element(cx),
        OpClass::Reshape => reshape(cx),
    }
}

/// Scalar arithmetic, comparisons and bitwise operations.
#[inline(never)]
fn scalar_binary(cx: &Cx<'_>) -> R<ResultTypes> {
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
#[inline(never)]
fn scalar_logic(cx: &Cx<'_>) -> R<ResultTypes> {
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
#[inline(never)]
fn scalar_unary(cx: &Cx<'_>) -> R<ResultTypes> {
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
#[inline(never)]
fn scalar_cast(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(1)?;
    cx.scalar(0)?;
    let to = cx.dtype_attr("dtype")?;
    if !to.is_concrete() {
        return fail(|| InferError::new(format!("cannot cast to {to}")));
    }
    one(Type::Scalar(to))
}

/// Elementwise unary tile operations.
#[inline(never)]
fn tile_unary(cx: &Cx<'_>) -> R<ResultTypes> {
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
#[inline(never)]
fn tile_cast(cx: &Cx<'_>) -> R<ResultTypes> {
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
#[inline(never)]
fn tile_compare(cx: &Cx<'_>) -> R<ResultTypes> {
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
#[inline(never)]
fn select(cx: &Cx<'_>) -> R<ResultTypes> {
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
#[inline(never)]
fn reduce(cx: &Cx<'_>) -> R<ResultTypes> {
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
#[inline(never)]
fn arg_reduce(cx: &Cx<'_>) -> R<ResultTypes> {
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
#[inline(never)]
fn expand(cx: &Cx<'_>) -> R<ResultTypes> {
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
#[inline(never)]
fn transpose(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(1)?;
    let t = cx.tile2(0)?;
    one_tile(
        t.dtype,
        pair(t.shape[1], t.shape[0]),
        pair(t.valid[1], t.valid[0]),
    )
}

/// A window of a tile.
#[inline(never)]
fn extract(cx: &Cx<'_>) -> R<ResultTypes> {
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
#[inline(never)]
fn tile_assemble(cx: &Cx<'_>) -> R<ResultTypes> {
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
#[inline(never)]
fn full(cx: &Cx<'_>) -> R<ResultTypes> {
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
#[inline(never)]
fn valid(cx: &Cx<'_>) -> R<ResultTypes> {
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

/// A tile loaded from a tensor window; `load_or` pads the part outside the tensor with its
/// second operand, so its tile is fully valid.
#[inline(never)]
fn load(cx: &Cx<'_>) -> R<ResultTypes> {
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
fn pad_value(cx: &Cx<'_>, dtype: DataType) -> R<()> {
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
#[inline(never)]
fn store(cx: &Cx<'_>) -> R<ResultTypes> {
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
#[inline(never)]
fn move_rule(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(1)?;
    let t = cx.tile(0)?;
    let loc = cx.attr("loc")?.as_ident().unwrap_or("");
    if crate::types::MemorySpace::from_name(loc).is_none() {
        return fail(|| InferError::new(format!("`tile.move` to unknown location `{loc}`")));
    }
    one(Type::Tile(t.clone()))
}

/// Elementwise binary tensor operations.
#[inline(never)]
fn tensor_binary(cx: &Cx<'_>) -> R<ResultTypes> {
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
#[inline(never)]
fn tensor_unary(cx: &Cx<'_>) -> R<ResultTypes> {
    cx.arity(1)?;
    one(Type::Tensor(cx.tensor(0)?.clone()))
}

/// A view of a tensor window.
#[inline(never)]
fn tensor_view(cx: &Cx<'_>) -> R<ResultTypes> {
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
#[inline(never)]
fn tensor_assemble(cx: &Cx<'_>) -> R<ResultTypes> {
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
#[inline(never)]
fn reshape(cx: &Cx<'_>) -> R<ResultTypes> {
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

/// One element of a tensor read as a scalar, or a scalar written into one: one index per
/// dimension; a constant index must lie inside a static extent.
#[inline(never)]
fn element(cx: &Cx<'_>) -> R<ResultTypes> {
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

/// `an fp32` / `a uint8`, as the names are read out, for messages.
pub fn article(d: DataType) -> String {
    let an = matches!(d.name().as_bytes().first(), Some(b'i' | b'f' | b'h'));
    format!("{} {d}", if an { "an" } else { "a" })
}

fn fmt_offsets(off: &[Option<u64>]) -> String {
    off.iter()
        .map(|o| o.map_or_else(|| "?".to_string(), |v| v.to_string()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A load/store/view window must not be larger than a static tensor dimension; a window that
/// starts inside but reaches past the edge is fine (the valid region shrinks), one that
/// starts at or past a static edge is an error.
fn check_window(
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

/// The meet of two valid extents: equal extents stay, two constants take the smaller, and
/// anything else is known only at run time.
pub fn meet(a: Dim, b: Dim) -> Dim {
    match (a, b) {
        _ if a == b => a,
        (Dim::Const(x), Dim::Const(y)) => Dim::Const(x.min(y)),
        _ => Dim::Dynamic,
    }
}

/// The join of two valid extents: the extent covering both (equal extents stay, two
/// constants take the larger, anything else is known only at run time). An accumulating op's
/// result covers both operands' valid regions (`docs/guide.md` section 5).
pub fn join(a: Dim, b: Dim) -> Dim {
    match (a, b) {
        _ if a == b => a,
        (Dim::Const(x), Dim::Const(y)) => Dim::Const(x.max(y)),
        _ => Dim::Dynamic,
    }
}

/// The accumulating elementwise ops (`+`, `*`, `max`, `min`), whose result covers both
/// operands' valid regions.
pub fn accumulates(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::TileAdd | Opcode::TileMul | Opcode::TileMax | Opcode::TileMin
    )
}

#[inline(never)]
fn tile_binary(cx: &Cx<'_>) -> R<ResultTypes> {
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

/// The accumulator dtype for matmul inputs of `input` (f16/bf16/f32 -> f32, i8 -> i32).
pub fn matmul_acc_dtype(input: DataType) -> Option<DataType> {
    match input {
        DataType::Fp16 | DataType::Bf16 | DataType::Fp32 => Some(DataType::Fp32),
        DataType::Int8 => Some(DataType::Int32),
        _ => None,
    }
}

#[inline(never)]
fn matmul(cx: &Cx<'_>) -> R<ResultTypes> {
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

#[inline(never)]
fn call(cx: &Cx<'_>) -> R<ResultTypes> {
    let callee = match cx.attr("callee")? {
        Attr::Symbol(s) => s,
        _ => {
            return fail(|| {
                InferError::new("`func.call` attribute `callee` must be a symbol `@name`")
            });
        }
    };
    let f = cx.m.function_by_name(callee).ok_or_else(|| {
        let names: Vec<String> =
            cx.m.functions
                .iter()
                .map(|&f| format!("@{}", cx.m.funcs[f].name))
                .collect();
        InferError::new(format!("call to unknown function `@{callee}`")).note(format!(
            "functions in this module: {}",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ))
    })?;
    let func = &cx.m.funcs[f];
    if func.sig.params.len() != cx.operands.len() {
        return fail(|| {
            InferError::new(format!(
                "`@{callee}` takes {} argument{}, found {}",
                func.sig.params.len(),
                if func.sig.params.len() == 1 { "" } else { "s" },
                cx.operands.len()
            ))
        });
    }
    for (i, p) in func.sig.params.iter().enumerate() {
        let want = &cx.m.values[p.value].ty;
        let got = cx.ty(i);
        if !call_compatible(want, got) {
            return fail(|| {
                InferError::new(format!(
                    "argument {} of `@{callee}` is {}, expected {}",
                    i + 1,
                    cx.show(got),
                    cx.show(want)
                ))
            });
        }
    }
    // A tensor the callee writes must be writable here, and passed once: the callee may
    // write it while it reads its other arguments.
    for (i, p) in func.sig.params.iter().enumerate() {
        if p.direction == crate::module::Direction::In || !matches!(cx.ty(i), Type::Tensor(_)) {
            continue;
        }
        let Some(&v) = cx.operands.get(i) else {
            continue;
        };
        let read_only = match cx.m.values[v].def {
            crate::value::ValueDef::Param(g, k) => {
                cx.m.funcs
                    .get(g)
                    .and_then(|g| g.sig.params.get(k as usize))
                    .is_some_and(|q| q.direction == crate::module::Direction::In)
            }
            _ => false,
        };
        let name = cx.m.ssa_name(v);
        if read_only {
            return fail(|| {
                InferError::new(format!(
                    "argument {} of `@{callee}` is written by it ({}), but `{name}` is read only here (`#in`)",
                    i + 1,
                    p.direction.mark()
                ))
                .note("declare the caller's parameter `&mut Tensor<..>` to pass it on")
            });
        }
        if cx.operands.iter().filter(|&&o| o == v).count() > 1 {
            return fail(|| {
                InferError::new(format!(
                    "`{name}` is passed to `@{callee}` more than once, and `@{callee}` writes it (argument {}); a tensor a call writes is passed once",
                    i + 1
                ))
            });
        }
    }
    let mut types = ResultTypes::from(func.sig.returns.as_slice());
    for t in &mut types {
        if let Type::Tile(tt) = t {
            tt.memref = None;
        }
    }
    Ok(types)
}

/// A call argument matches a parameter when kind, dtype and rank agree and static extents
/// are equal (a parameter's symbolic extent accepts any extent).
fn call_compatible(want: &Type, got: &Type) -> bool {
    match (want, got) {
        (Type::Tensor(w), Type::Tensor(g)) => {
            w.dtype == g.dtype
                && w.shape.len() == g.shape.len()
                && w.shape
                    .iter()
                    .zip(&g.shape)
                    .all(|(a, b)| !matches!((a, b), (Dim::Const(x), Dim::Const(y)) if x != y))
        }
        (Type::Tile(w), Type::Tile(g)) => w.dtype == g.dtype && w.shape == g.shape,
        _ => want == got,
    }
}

/// Two types are the same up to tile valid regions (what control-flow merges require).
pub fn same_up_to_valid(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Tile(x), Type::Tile(y)) => x.dtype == y.dtype && x.shape == y.shape,
        _ => a == b,
    }
}

/// The type of a merge of `a` and `b` (equal up to valid regions): valid extents that
/// differ become dynamic.
pub fn merge_types(a: &Type, b: &Type) -> Type {
    match (a, b) {
        (Type::Tile(x), Type::Tile(y)) if x.shape == y.shape => {
            // Pushed, not collected: see `pair`.
            let mut valid = Extents::with_capacity(x.valid.len());
            for (p, q) in x.valid.iter().zip(&y.valid) {
                valid.push(if p == q { *p } else { Dim::Dynamic });
            }
            Type::Tile(TileType {
                dtype: x.dtype,
                shape: Shape::copied_from(&x.shape),
                valid,
                memref: if x.memref == y.memref { x.memref } else { None },
            })
        }
        _ => a.clone(),
    }
}
