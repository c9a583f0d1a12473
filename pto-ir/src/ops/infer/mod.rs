//! Result-type inference and operand checking, one rule per [`OpClass`].
//!
//! The builder calls [`infer`] to type an op's results; the verifier calls it again and
//! compares. Messages name the op, the shapes and dtypes involved, and what would be
//! accepted, because the macro shows them to kernel authors at their own tokens.
//!
//! Here: the error type, the dispatch on the op's class and the helpers the rules share; the
//! rules by kind of op in `scalar`, `tile`, `matmul`, `memory`, `tensor` and `call`.

mod call;
mod matmul;
mod memory;
mod scalar;
mod tensor;
mod tile;

use call::*;
pub use matmul::matmul_acc_dtype;
use matmul::*;
use memory::*;
use scalar::*;
use tensor::*;
use tile::*;

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
    /// An error.
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

/// Fails with the error `f` builds (a closure, so a valid operand never formats a message).
fn fail<T>(f: impl FnOnce() -> InferError) -> R<T> {
    Err(f())
}

/// The result types of an op: one for nearly every op, so it is kept inline.
pub type ResultTypes = InlineVec<Type, 1>;

/// A two-item list (a rank-2 shape or valid region).
fn pair<T>(a: T, b: T) -> InlineVec<T, 2> {
    let mut v = InlineVec::new();
    v.push(a);
    v.push(b);
    v
}

/// A single result type. Placement is the lowering's business, so a tile result copied
/// from an operand's type is unplaced here: a result is never placed by typing alone.
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

/// Dispatches to the rule of the op's class.
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

/// `an fp32` / `a uint8`, as the names are read out, for messages.
pub fn article(d: DataType) -> String {
    let an = matches!(d.name().as_bytes().first(), Some(b'i' | b'f' | b'h'));
    format!("{} {d}", if an { "an" } else { "a" })
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
