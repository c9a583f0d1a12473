//! Element arithmetic of the reference interpreter: the semantics module's conversions
//! (`pto_ir::sem::convert`), with an [`InterpError`] for a dtype it has no arithmetic for.
//!
//! Every element value is carried as an `f64` (tiles and tensors) or an `i128` / `f64` /
//! `bool` (scalars) and normalised to its dtype after every operation, so the interpreter
//! sees exactly the values a machine working in that dtype would hold.

use pto_ir::DataType;
pub use pto_ir::sem::RoundMode;
use pto_ir::sem::convert;

use super::InterpError;

pub use convert::{round_bf16, round_f16, round_f32};

/// Rounds `x` to float dtype `to` in `mode`.
pub fn round_float(x: f64, to: DataType, mode: RoundMode) -> Result<f64, InterpError> {
    convert::round_float(x, to, mode).ok_or_else(|| unsupported(to))
}

/// The error for a dtype the interpreter has no arithmetic for.
pub fn unsupported(d: DataType) -> InterpError {
    InterpError::new(format!(
        "the interpreter does not support element type {d} (supported: bool, int8..int64, uint8..uint64, int4, fp16, bf16, fp32, fp64)"
    ))
}

/// Wraps `v` to the width of integer dtype `d` (two's complement), as Rust's wrapping
/// arithmetic and integer `as` casts do. `bool` becomes `v != 0`.
pub fn wrap_int(v: i128, d: DataType) -> Result<i128, InterpError> {
    convert::wrap_int(v, d).ok_or_else(|| unsupported(d))
}

/// Converts a float to integer dtype `d`: rounds in `mode`, saturates, NaN becomes 0.
pub fn float_to_int(x: f64, d: DataType, mode: RoundMode) -> Result<i128, InterpError> {
    convert::float_to_int(x, d, mode).ok_or_else(|| unsupported(d))
}

/// Converts an element value of dtype `from` to dtype `to`, as `TCVT` does.
pub fn convert_elem(
    x: f64,
    from: DataType,
    to: DataType,
    mode: RoundMode,
) -> Result<f64, InterpError> {
    convert::convert_elem(x, from, to, mode).ok_or_else(|| unsupported(to))
}

/// Normalises a freshly computed element to dtype `d`: floats round to nearest even,
/// integers wrap, bools become 0 / 1.
pub fn normalize(x: f64, d: DataType) -> Result<f64, InterpError> {
    if d.is_float() {
        round_float(x, d, RoundMode::CastRint)
    } else if d == DataType::Bool {
        Ok(if x != 0.0 { 1.0 } else { 0.0 })
    } else if x.is_finite() {
        Ok(wrap_int(x as i128, d)? as f64)
    } else {
        Err(InterpError::new(format!(
            "integer {d} element computed a non-finite value {x}"
        )))
    }
}

/// The inclusive range of an integer dtype.
pub fn int_range(d: DataType) -> Result<(i128, i128), InterpError> {
    convert::int_range(d).ok_or_else(|| unsupported(d))
}
