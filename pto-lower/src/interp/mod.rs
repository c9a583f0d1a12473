//! A reference interpreter for PTO-IR.
//!
//! [`run`] executes one function of a [`ProgramModule`] directly, op by op, on host values.
//! It is written for clarity, not speed, and shares nothing with the lowering or the
//! emitters, so a kernel can be run both ways and the results compared.
//!
//! # Values
//!
//! * A [`HostTensor`] is a row-major array of `f64`s with a dtype and a shape.
//! * A [`HostTile`] is the same plus a runtime *valid region* (one extent per dimension, a
//!   top-left prefix of the static shape). Elements outside it are unspecified (the
//!   interpreter keeps them at 0); no op reads them.
//! * A [`HostScalar`] is a `bool`, an integer (`i128`, wide enough for every integer dtype
//!   including `uint64`) or an `f64`, with its dtype.
//!
//! Every element is normalised to its dtype after every op: floats round to nearest even
//! (`fp16` / `bf16` / `fp32` exactly, including subnormals and overflow to infinity),
//! integers wrap to the dtype's width (two's complement), `bool` is 0 / 1. Tile and tensor
//! elements of 64-bit integer dtypes are exact only up to 2^53 (they are `f64`s); scalars
//! are exact. `fp8` / `hf8` / `hf4` / `int4` tiles are not supported (an error).
//!
//! # Semantics (PTO-ISA, `shared/spec/pto-isa.md` §6 and `shared/spec/dsl.md` §5)
//!
//! * `tile.load` reads only the in-bounds part of its window; the tile's valid region is that
//!   part. A window that starts past a *static* tensor extent, or a negative offset, is an
//!   error.
//! * Elementwise ops compute over the meet (elementwise minimum) of their operands' valid
//!   regions; a tile-scalar op first converts the scalar to the tile's dtype. Row / column
//!   broadcast (`R x C` with `R x 1` or `1 x C`) follows the operand order.
//! * Reductions reduce over the valid part only (`row_sum` of a tile with 5 valid columns sums
//!   5 columns); the result keeps the source's valid rows (row) or columns (column).
//!   Sums accumulate in the element dtype, each addition rounded: a row sum in 16 interleaved
//!   partial sums (lane `l` takes elements `l, l + 16, ...` of the whole groups of 16), the
//!   lanes combined by halves, then the remaining elements in order; a column sum top to
//!   bottom. (The CPU runtime sums rows the same way, with SIMD.)
//! * `tile.matmul` computes `m x n` with `m` = a's valid rows, `k` = a's valid columns, `n` =
//!   b's valid columns, accumulating sequentially over `k` in `fp32` (for `fp16` / `bf16` /
//!   `fp32` inputs: each step one fused multiply-add, `acc = fma(a, b, acc)`) or `int32` (for
//!   `int8`, wrapping); b must have at least `k` valid rows (`pto_ir::sem::MatmulStep`).
//!   `matmul_acc` starts from the accumulator, `matmul_bias` from the bias row.
//! * `tile.cast` follows `TCVT`: the `round` attribute (`none` / `rint` = nearest even,
//!   `round` = nearest, ties away from zero, `floor`, `ceil`, `trunc`, `odd`) applies to
//!   float -> int (which saturates; NaN -> 0) and to float -> narrower float; int -> int wraps.
//! * `tile.store` writes only the valid region, clipped to the tensor (as the runtime's
//!   `TSTORE` does).
//! * `tile.valid` sets the valid region; an extent larger than the tile is an error.
//! * Scalar ops follow Rust: integer arithmetic wraps, `/` truncates, `%` is the remainder,
//!   `floordiv` / `floormod` round toward negative infinity, shifts by a negative amount or
//!   by the width or more are errors, division by zero is an error, casts are `as`
//!   (float -> int truncates and saturates).
//! * Control flow: `for` (a `parallel` one runs sequentially), `if` with results, `while`,
//!   `break` / `continue` with the loop-carried values, `scope` (transparent), `return`,
//!   `func.call` (tensors are passed by reference, so a callee's stores are visible).
//! * Tensor-level ops: `tensor.view` copies a window out (it must lie inside the tensor),
//!   `tensor.assemble` writes a tensor into a window of another in place, and elementwise
//!   tensor ops make new tensors.
//!
//! Bad input never panics: every failure is an [`InterpError`].

mod element;
mod exec;
mod num;
mod ops;

use std::fmt;

use pto_ir::{DataType, FuncId, ProgramModule, SpanId};

pub use num::{RoundMode, round_bf16, round_f16, round_f32};

/// Why the interpreter stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterpError {
    /// What went wrong, naming the op, parameter or dimension involved.
    pub message: String,
    /// The op or statement that failed, when known ([`SpanId::NONE`] otherwise).
    pub span: SpanId,
}

impl InterpError {
    /// An error with a message and no location.
    pub fn new(message: impl Into<String>) -> Self {
        InterpError {
            message: message.into(),
            span: SpanId::NONE,
        }
    }

    /// Prefixes the message with `context: ` and sets the span if none is set yet.
    pub(crate) fn context(mut self, context: &str, span: SpanId) -> Self {
        self.message = format!("{context}: {}", self.message);
        if !self.span.is_some() {
            self.span = span;
        }
        self
    }
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for InterpError {}

/// A scalar's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarValue {
    /// A `bool`.
    Bool(bool),
    /// Any integer dtype (normalised to its range).
    Int(i128),
    /// Any float dtype (rounded to its precision).
    Float(f64),
}

/// A scalar with its dtype.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HostScalar {
    /// The element type.
    pub dtype: DataType,
    /// The value, of the kind the dtype calls for.
    pub value: ScalarValue,
}

impl HostScalar {
    /// A scalar of `dtype` from an `f64`: rounded for float dtypes, truncated and saturated
    /// for integers (Rust `as`), `!= 0` for `bool`.
    pub fn from_f64(dtype: DataType, x: f64) -> Result<HostScalar, InterpError> {
        let value = if dtype == DataType::Bool {
            ScalarValue::Bool(x != 0.0)
        } else if dtype.is_float() {
            ScalarValue::Float(num::round_float(x, dtype, RoundMode::CastRint)?)
        } else {
            ScalarValue::Int(num::float_to_int(x, dtype, RoundMode::CastTrunc)?)
        };
        Ok(HostScalar { dtype, value })
    }

    /// A scalar of `dtype` from an integer: wrapped for integer dtypes, rounded for floats.
    pub fn from_i128(dtype: DataType, v: i128) -> Result<HostScalar, InterpError> {
        let value = if dtype == DataType::Bool {
            ScalarValue::Bool(v != 0)
        } else if dtype.is_float() {
            ScalarValue::Float(num::round_float(v as f64, dtype, RoundMode::CastRint)?)
        } else {
            ScalarValue::Int(num::wrap_int(v, dtype)?)
        };
        Ok(HostScalar { dtype, value })
    }

    /// The value as `f64` (`true` is 1).
    pub fn as_f64(&self) -> f64 {
        match self.value {
            ScalarValue::Bool(b) => f64::from(u8::from(b)),
            ScalarValue::Int(v) => v as f64,
            ScalarValue::Float(x) => x,
        }
    }

    /// The value as an integer (floats truncate toward zero, saturating).
    pub fn as_i128(&self) -> i128 {
        match self.value {
            ScalarValue::Bool(b) => i128::from(b),
            ScalarValue::Int(v) => v,
            ScalarValue::Float(x) => x as i128,
        }
    }
}

impl fmt::Display for HostScalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.value {
            ScalarValue::Bool(b) => write!(f, "{b} : {}", self.dtype),
            ScalarValue::Int(v) => write!(f, "{v} : {}", self.dtype),
            ScalarValue::Float(x) => write!(f, "{x} : {}", self.dtype),
        }
    }
}

/// A global-memory tensor: row-major elements stored as `f64`.
#[derive(Clone, Debug, PartialEq)]
pub struct HostTensor {
    /// Element type.
    pub dtype: DataType,
    /// Extents, outermost first.
    pub shape: Vec<usize>,
    /// `shape.iter().product()` elements, row-major.
    pub data: Vec<f64>,
}

impl HostTensor {
    /// A tensor from its parts; the data length must match the shape.
    pub fn new(
        dtype: DataType,
        shape: Vec<usize>,
        data: Vec<f64>,
    ) -> Result<HostTensor, InterpError> {
        let n: usize = shape.iter().product();
        if n != data.len() {
            return Err(InterpError::new(format!(
                "a {} tensor has {n} elements, {} given",
                shape_str(&shape),
                data.len()
            )));
        }
        Ok(HostTensor { dtype, shape, data })
    }

    /// A tensor of zeros.
    pub fn zeros(dtype: DataType, shape: Vec<usize>) -> HostTensor {
        let n = shape.iter().product();
        HostTensor {
            dtype,
            shape,
            data: vec![0.0; n],
        }
    }

    /// The element at a multi-index, if inside.
    pub fn get(&self, index: &[usize]) -> Option<f64> {
        flat_index(&self.shape, index).and_then(|i| self.data.get(i).copied())
    }
}

/// An on-chip tile with its runtime valid region.
#[derive(Clone, Debug, PartialEq)]
pub struct HostTile {
    /// Element type.
    pub dtype: DataType,
    /// Static shape (rank 1 to 4).
    pub shape: Vec<usize>,
    /// Valid extent per dimension (`valid[d] <= shape[d]`), a top-left prefix.
    pub valid: Vec<usize>,
    /// `shape.iter().product()` elements, row-major; outside `valid` they are unspecified.
    pub data: Vec<f64>,
}

impl HostTile {
    /// A fully valid tile from its parts; the data length must match the shape.
    pub fn new(
        dtype: DataType,
        shape: Vec<usize>,
        data: Vec<f64>,
    ) -> Result<HostTile, InterpError> {
        let n: usize = shape.iter().product();
        if n != data.len() {
            return Err(InterpError::new(format!(
                "a {} tile has {n} elements, {} given",
                shape_str(&shape),
                data.len()
            )));
        }
        Ok(HostTile {
            dtype,
            valid: shape.clone(),
            shape,
            data,
        })
    }

    /// A fully valid tile of zeros.
    pub fn zeros(dtype: DataType, shape: Vec<usize>) -> HostTile {
        let n = shape.iter().product();
        HostTile {
            dtype,
            valid: shape.clone(),
            shape,
            data: vec![0.0; n],
        }
    }

    /// The element at a multi-index, if inside the static shape.
    pub fn get(&self, index: &[usize]) -> Option<f64> {
        flat_index(&self.shape, index).and_then(|i| self.data.get(i).copied())
    }

    /// Rows and columns of the valid region viewed as 2-D (leading dimensions folded into
    /// rows, rank 1 as `1 x n`). `None` when the folded region is not a top-left rectangle,
    /// which happens when a leading dimension other than the first is only partly valid.
    pub fn valid_rows_cols(&self) -> Option<(usize, usize)> {
        let Some((&c, lead)) = self.valid.split_last() else {
            return Some((1, 1));
        };
        let lead_shape = &self.shape[..lead.len()];
        // The rows are a prefix of the folded rows only if every dimension after the first
        // leading one is fully valid.
        let inner_full = lead.iter().zip(lead_shape).skip(1).all(|(v, s)| v == s);
        if inner_full || lead.contains(&0) {
            Some((lead.iter().product(), c))
        } else {
            None
        }
    }
}

/// A value passed to or returned from [`run`].
#[derive(Clone, Debug, PartialEq)]
pub enum HostValue {
    /// A scalar.
    Scalar(HostScalar),
    /// A tensor (mutated in place for `#out` / `#inout` parameters).
    Tensor(HostTensor),
    /// A tile.
    Tile(HostTile),
}

impl HostValue {
    /// An `fp32` scalar.
    pub fn f32(x: f32) -> HostValue {
        HostValue::Scalar(HostScalar {
            dtype: DataType::Fp32,
            value: ScalarValue::Float(f64::from(x)),
        })
    }

    /// An `fp64` scalar.
    pub fn f64(x: f64) -> HostValue {
        HostValue::Scalar(HostScalar {
            dtype: DataType::Fp64,
            value: ScalarValue::Float(x),
        })
    }

    /// An `int32` scalar.
    pub fn i32(v: i32) -> HostValue {
        HostValue::Scalar(HostScalar {
            dtype: DataType::Int32,
            value: ScalarValue::Int(v.into()),
        })
    }

    /// An `int64` scalar.
    pub fn i64(v: i64) -> HostValue {
        HostValue::Scalar(HostScalar {
            dtype: DataType::Int64,
            value: ScalarValue::Int(v.into()),
        })
    }

    /// A `bool` scalar.
    pub fn bool(b: bool) -> HostValue {
        HostValue::Scalar(HostScalar {
            dtype: DataType::Bool,
            value: ScalarValue::Bool(b),
        })
    }

    /// A scalar of any dtype from an `f64` (see [`HostScalar::from_f64`]).
    pub fn scalar(dtype: DataType, x: f64) -> Result<HostValue, InterpError> {
        HostScalar::from_f64(dtype, x).map(HostValue::Scalar)
    }

    /// A tensor from its parts (see [`HostTensor::new`]).
    pub fn tensor(
        dtype: DataType,
        shape: Vec<usize>,
        data: Vec<f64>,
    ) -> Result<HostValue, InterpError> {
        HostTensor::new(dtype, shape, data).map(HostValue::Tensor)
    }

    /// The scalar, if this is one.
    pub fn as_scalar(&self) -> Option<&HostScalar> {
        match self {
            HostValue::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The scalar as `f64`, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        self.as_scalar().map(HostScalar::as_f64)
    }

    /// The scalar as `i64`, if this is an integer or `bool` scalar that fits.
    pub fn as_i64(&self) -> Option<i64> {
        match self.as_scalar()?.value {
            ScalarValue::Bool(b) => Some(i64::from(b)),
            ScalarValue::Int(v) => i64::try_from(v).ok(),
            ScalarValue::Float(_) => None,
        }
    }

    /// The scalar as `bool`, if this is a `bool` scalar.
    pub fn as_bool(&self) -> Option<bool> {
        match self.as_scalar()?.value {
            ScalarValue::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The tensor, if this is one.
    pub fn as_tensor(&self) -> Option<&HostTensor> {
        match self {
            HostValue::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// The tile, if this is one.
    pub fn as_tile(&self) -> Option<&HostTile> {
        match self {
            HostValue::Tile(t) => Some(t),
            _ => None,
        }
    }

    /// `scalar`, `tensor` or `tile`, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            HostValue::Scalar(_) => "scalar",
            HostValue::Tensor(_) => "tensor",
            HostValue::Tile(_) => "tile",
        }
    }
}

/// Runs function `func` of `m` on `args` (one per parameter, in order) and returns the
/// scalars it returns.
///
/// Tensor arguments of `#out` / `#inout` parameters are updated in place; `#in` ones are
/// left untouched. A tile argument of an `#out` / `#inout` parameter receives what the
/// function `tile.assemble`s into it (directly, or into the result of such an assemble). Symbolic dimensions are bound from the tensor arguments' shapes; every
/// static extent and every repeated symbolic one is checked first, and a mismatch is an
/// error naming the parameter and the dimension. The module should be verified
/// ([`pto_ir::verify()`]); an unverified one may produce an error, never a panic.
pub fn run(
    m: &ProgramModule,
    func: FuncId,
    args: &mut [HostValue],
) -> Result<Vec<HostValue>, InterpError> {
    exec::run(m, func, args)
}

/// `[2, 3]` as `2 x 3`.
pub(crate) fn shape_str(shape: &[usize]) -> String {
    shape
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(" x ")
}

/// The row-major position of `index` in `shape`.
pub(crate) fn flat_index(shape: &[usize], index: &[usize]) -> Option<usize> {
    if shape.len() != index.len() {
        return None;
    }
    let mut flat = 0usize;
    for (&i, &n) in index.iter().zip(shape) {
        if i >= n {
            return None;
        }
        flat = flat * n + i;
    }
    Some(flat)
}
