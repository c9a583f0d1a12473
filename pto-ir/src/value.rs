//! Values (seed 000): scalars (constant or symbolic), tiles and tensors, all in SSA form.
//!
//! A value is defined exactly once ([`ValueDef`]) and named `%{name}_{number}` or `%{number}`
//! when printed; `number` comes from one counter per module, in creation order, so names are
//! stable across print and parse. A value's [`Type`] carries its shape and, for a tile, its
//! valid region and (once the lowering placed it) its memory, as seed 004's `TileType` does.
//! Tiles are row-major with a start offset of 0: the seed-000 strides and start offset are
//! implied by the shape until an op that makes strided views is added.

use std::fmt;

use crate::dtype::DataType;
use crate::entity::{FuncId, OpId, StmtId, ValueId};
use crate::env::Name;
use crate::types::Type;

/// A compile-time scalar constant, with the seed's type inference: `bool` -> BOOL,
/// `int` -> INT32, `int64_t` -> INT64, `size_t` -> UINT64, `double` -> FP64.
#[derive(Clone, Copy, Debug)]
pub enum Constant {
    /// A boolean.
    Bool(bool),
    /// A C `int`.
    Int(i32),
    /// A C `int64_t`.
    Int64(i64),
    /// A C `size_t`.
    SizeT(u64),
    /// A C `double`.
    Double(f64),
}

impl Constant {
    /// The dtype the seed infers for this constant.
    pub fn inferred_dtype(self) -> DataType {
        match self {
            Constant::Bool(_) => DataType::Bool,
            Constant::Int(_) => DataType::Int32,
            Constant::Int64(_) => DataType::Int64,
            Constant::SizeT(_) => DataType::UInt64,
            Constant::Double(_) => DataType::Fp64,
        }
    }

    /// The seed's `GetInt64Value`: the value as `i64` (floats truncate toward zero,
    /// `true` is 1; a `size_t` above `i64::MAX` saturates).
    pub fn as_i64(self) -> i64 {
        match self {
            Constant::Bool(b) => i64::from(b),
            Constant::Int(v) => i64::from(v),
            Constant::Int64(v) => v,
            Constant::SizeT(v) => i64::try_from(v).unwrap_or(i64::MAX),
            Constant::Double(v) => v as i64,
        }
    }

    /// The value as `f64`.
    pub fn as_f64(self) -> f64 {
        match self {
            Constant::Bool(b) => f64::from(u8::from(b)),
            Constant::Int(v) => f64::from(v),
            Constant::Int64(v) => v as f64,
            Constant::SizeT(v) => v as f64,
            Constant::Double(v) => v,
        }
    }

    /// Whether the constant is a float.
    pub fn is_float(self) -> bool {
        matches!(self, Constant::Double(_))
    }

    fn key(self) -> (u8, u64) {
        match self {
            Constant::Bool(b) => (0, u64::from(b)),
            Constant::Int(v) => (1, v as u64),
            Constant::Int64(v) => (2, v as u64),
            Constant::SizeT(v) => (3, v),
            Constant::Double(v) => (4, v.to_bits()),
        }
    }
}

impl PartialEq for Constant {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl Eq for Constant {}
impl std::hash::Hash for Constant {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

impl fmt::Display for Constant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Constant::Bool(b) => write!(f, "{b}"),
            Constant::Int(v) => write!(f, "{v}"),
            Constant::Int64(v) => write!(f, "{v}"),
            Constant::SizeT(v) => write!(f, "{v}"),
            Constant::Double(v) => {
                // Always print a float with a decimal point or exponent, so it parses back as one.
                if v.is_finite() && v == v.trunc() && v.abs() < 1e16 {
                    write!(f, "{v:.1}")
                } else if v.is_nan() {
                    f.write_str("nan")
                } else if v.is_infinite() {
                    f.write_str(if v > 0.0 { "inf" } else { "-inf" })
                } else {
                    write!(f, "{v:?}")
                }
            }
        }
    }
}

/// Where a value is defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueDef {
    /// Created but not (yet) attached to a definition site.
    Free,
    /// Parameter `index` of a function.
    Param(FuncId, u32),
    /// A symbolic dimension of a function's signature (`%B_1` in `tensor<[%B_1, 128], fp32>`).
    Dim(FuncId),
    /// Result `index` of an operation.
    OpResult(OpId, u32),
    /// The induction variable of a `for`.
    Iv(StmtId),
    /// Iteration argument `index` of a `for` / `while`.
    IterArg(StmtId, u32),
    /// Result `index` of a `for` / `if` / `while`.
    StmtResult(StmtId, u32),
}

/// One SSA value.
#[derive(Clone, Debug)]
pub struct ValueData {
    /// The user's name (`x` for `%x_3`), if any; shared with the variable it came from.
    pub name: Option<Name>,
    /// The module-wide SSA number (`3` for `%x_3`).
    pub number: u32,
    /// The type.
    pub ty: Type,
    /// The constant, for a constant scalar (seed `ScalarValueKind::Constant`).
    pub constant: Option<Constant>,
    /// Where it is defined.
    pub def: ValueDef,
}

/// The kind of a value (seed 000 `ValueKind`, plus the seed-004 types).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// A scalar.
    Scalar,
    /// A tile.
    Tile,
    /// A tensor.
    Tensor,
    /// A tuple, pipe or unknown-typed value.
    Other,
}

impl ValueData {
    /// The seed's `GetSSAName`: `%{name}_{number}` or `%{number}`.
    pub fn ssa_name(&self) -> String {
        let mut s = String::new();
        self.write_ssa_name(&mut s);
        s
    }

    /// Appends [`ValueData::ssa_name`] to `out` without `core::fmt`: the printer spells a
    /// name at every use (4.2% of a typical expansion against `write!`, measured 2026-11-25).
    pub fn write_ssa_name(&self, out: &mut String) {
        out.push('%');
        if let Some(n) = &self.name {
            out.push_str(n);
            out.push('_');
        }
        crate::typefmt::push_u64(out, u64::from(self.number));
    }

    /// The value kind.
    pub fn kind(&self) -> ValueKind {
        match self.ty {
            Type::Scalar(_) => ValueKind::Scalar,
            Type::Tile(_) => ValueKind::Tile,
            Type::Tensor(_) => ValueKind::Tensor,
            _ => ValueKind::Other,
        }
    }

    /// Whether this is a constant scalar.
    pub fn is_constant(&self) -> bool {
        self.constant.is_some()
    }
}

/// The id of a value, for messages that need no module.
impl fmt::Display for ValueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}
