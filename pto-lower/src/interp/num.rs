//! Element arithmetic of the reference interpreter: rounding an `f64` to a narrower float
//! format, wrapping integers to a dtype's width, and conversions (Rust `as` for scalars,
//! `TCVT` round modes for tiles).
//!
//! Every element value is carried as an `f64` (tiles and tensors) or an `i128` / `f64` /
//! `bool` (scalars) and normalised to its dtype after every operation, so the interpreter
//! sees exactly the values a machine working in that dtype would hold.

use pto_ir::DataType;

use super::InterpError;

/// A rounding mode of `TCVT` (`tile.cast` attribute `round`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundMode {
    /// Round to nearest, ties to even (`none` and `rint`).
    Rint,
    /// Round to nearest, ties away from zero (`round`).
    Round,
    /// Toward negative infinity (`floor`).
    Floor,
    /// Toward positive infinity (`ceil`).
    Ceil,
    /// Toward zero (`trunc`).
    Trunc,
    /// Round to odd: truncate, and force the last bit to 1 when inexact (`odd`).
    Odd,
}

impl RoundMode {
    /// Parses the attribute word; `none` is the default round-to-nearest-even.
    pub fn from_name(s: &str) -> Option<RoundMode> {
        Some(match s {
            "none" | "rint" => RoundMode::Rint,
            "round" => RoundMode::Round,
            "floor" => RoundMode::Floor,
            "ceil" => RoundMode::Ceil,
            "trunc" => RoundMode::Trunc,
            "odd" => RoundMode::Odd,
            _ => return None,
        })
    }

    /// Rounds `x` to an integer in this mode.
    pub fn to_integer(self, x: f64) -> f64 {
        match self {
            RoundMode::Rint => x.round_ties_even(),
            RoundMode::Round => x.round(),
            RoundMode::Floor => x.floor(),
            RoundMode::Ceil => x.ceil(),
            RoundMode::Trunc => x.trunc(),
            RoundMode::Odd => {
                let t = x.trunc();
                if t == x || t % 2.0 != 0.0 {
                    t
                } else {
                    t + x.signum()
                }
            }
        }
    }
}

/// A binary floating-point format: fraction bits, minimum normal exponent, maximum exponent.
#[derive(Clone, Copy, Debug)]
struct FloatFormat {
    frac: i32,
    emin: i32,
    emax: i32,
}

const F16: FloatFormat = FloatFormat {
    frac: 10,
    emin: -14,
    emax: 15,
};
const BF16: FloatFormat = FloatFormat {
    frac: 7,
    emin: -126,
    emax: 127,
};
const F32: FloatFormat = FloatFormat {
    frac: 23,
    emin: -126,
    emax: 127,
};

/// `2^e` exactly, for `-1022 <= e <= 1023`.
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// Rounds `x` to the nearest value of `fmt` in `mode` (with subnormals; overflow goes to
/// infinity or the largest finite value as the mode dictates).
fn round_to_format(x: f64, fmt: FloatFormat, mode: RoundMode) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let biased = ((x.to_bits() >> 52) & 0x7ff) as i32;
    let e = if biased == 0 { -1023 } else { biased - 1023 };
    // The spacing of representable values around x (subnormals share the emin spacing).
    let quantum = pow2(e.max(fmt.emin) - fmt.frac);
    // x / quantum and the product below are exact: both are scalings by a power of two.
    let r = mode.to_integer(x / quantum) * quantum;
    let max = (2.0 - pow2(-fmt.frac)) * pow2(fmt.emax);
    if r.abs() <= max {
        return r;
    }
    let positive = x > 0.0;
    let to_inf = match mode {
        RoundMode::Rint | RoundMode::Round => true,
        RoundMode::Trunc | RoundMode::Odd => false,
        RoundMode::Floor => !positive,
        RoundMode::Ceil => positive,
    };
    let mag = if to_inf { f64::INFINITY } else { max };
    if positive { mag } else { -mag }
}

/// Rounds `x` to the nearest `f16` value (ties to even), returned as `f64`.
pub fn round_f16(x: f64) -> f64 {
    round_to_format(x, F16, RoundMode::Rint)
}

/// Rounds `x` to the nearest `bf16` value (ties to even), returned as `f64`.
pub fn round_bf16(x: f64) -> f64 {
    round_to_format(x, BF16, RoundMode::Rint)
}

/// Rounds `x` to the nearest `f32` value (ties to even), returned as `f64`.
pub fn round_f32(x: f64) -> f64 {
    f64::from(x as f32)
}

/// Rounds `x` to float dtype `to` in `mode`.
pub fn round_float(x: f64, to: DataType, mode: RoundMode) -> Result<f64, InterpError> {
    match to {
        DataType::Fp64 => Ok(x),
        DataType::Fp32 if mode == RoundMode::Rint => Ok(round_f32(x)),
        DataType::Fp32 => Ok(round_to_format(x, F32, mode)),
        DataType::Fp16 => Ok(round_to_format(x, F16, mode)),
        DataType::Bf16 => Ok(round_to_format(x, BF16, mode)),
        other => Err(unsupported(other)),
    }
}

/// The error for a dtype the interpreter has no arithmetic for.
pub fn unsupported(d: DataType) -> InterpError {
    InterpError::new(format!(
        "the interpreter does not support element type {d} (supported: bool, int8..int64, uint8..uint64, int4, fp16, bf16, fp32, fp64)"
    ))
}

/// The inclusive range of an integer dtype.
pub fn int_range(d: DataType) -> Result<(i128, i128), InterpError> {
    Ok(match d {
        DataType::Int4 => (-8, 7),
        DataType::Int8 => (i8::MIN.into(), i8::MAX.into()),
        DataType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        DataType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        DataType::Int64 => (i64::MIN.into(), i64::MAX.into()),
        DataType::UInt8 => (0, u8::MAX.into()),
        DataType::UInt16 => (0, u16::MAX.into()),
        DataType::UInt32 => (0, u32::MAX.into()),
        DataType::UInt64 => (0, u64::MAX.into()),
        DataType::Bool => (0, 1),
        other => return Err(unsupported(other)),
    })
}

/// Wraps `v` to the width of integer dtype `d` (two's complement), as Rust's wrapping
/// arithmetic and integer `as` casts do. `bool` becomes `v != 0`.
pub fn wrap_int(v: i128, d: DataType) -> Result<i128, InterpError> {
    if d == DataType::Bool {
        return Ok(i128::from(v != 0));
    }
    let bits = d.bits();
    let (lo, _) = int_range(d)?;
    let shift = 128 - bits;
    Ok(if lo < 0 {
        (v << shift) >> shift
    } else {
        ((v << shift) as u128 >> shift) as i128
    })
}

/// Converts a float to integer dtype `d`: rounds in `mode`, saturates, NaN becomes 0
/// (Rust `as` is `Trunc`; `TCVT` takes its mode from the `round` attribute).
pub fn float_to_int(x: f64, d: DataType, mode: RoundMode) -> Result<i128, InterpError> {
    if x.is_nan() {
        return Ok(0);
    }
    let r = mode.to_integer(x);
    let (lo, hi) = int_range(d)?;
    // Saturate in the float domain first: i128 covers every 64-bit range with room to spare.
    if r <= lo as f64 {
        return Ok(lo);
    }
    if r >= hi as f64 {
        return Ok(hi);
    }
    Ok(r as i128)
}

/// Converts an element value (as stored: an exact integer or a float in an `f64`) of dtype
/// `from` to dtype `to`, as `TCVT` does: float -> int rounds in `mode` and saturates,
/// int -> int wraps, anything -> float rounds in `mode` to the target precision.
pub fn convert_elem(
    x: f64,
    from: DataType,
    to: DataType,
    mode: RoundMode,
) -> Result<f64, InterpError> {
    if to.is_float() {
        return round_float(x, to, mode);
    }
    if to == DataType::Bool {
        return Ok(if x != 0.0 { 1.0 } else { 0.0 });
    }
    if from.is_float() {
        Ok(float_to_int(x, to, mode)? as f64)
    } else {
        Ok(wrap_int(x as i128, to)? as f64)
    }
}

/// Normalises a freshly computed element to dtype `d`: floats round to nearest even,
/// integers wrap, bools become 0 / 1.
pub fn normalize(x: f64, d: DataType) -> Result<f64, InterpError> {
    if d.is_float() {
        round_float(x, d, RoundMode::Rint)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_rounding_is_nearest_even() {
        assert_eq!(round_f16(1.0 / 3.0), 0.333251953125);
        assert_eq!(round_f16(65504.0), 65504.0);
        assert_eq!(round_f16(65519.0), 65504.0);
        assert_eq!(round_f16(65520.0), f64::INFINITY);
        // 2049 is halfway between 2048 and 2050: ties to even gives 2048.
        assert_eq!(round_f16(2049.0), 2048.0);
        assert_eq!(round_f16(2051.0), 2052.0);
        // Smallest subnormal and its half.
        assert_eq!(round_f16(2f64.powi(-24)), 2f64.powi(-24));
        assert_eq!(round_f16(2f64.powi(-25)), 0.0);
        assert_eq!(round_f16(1.5 * 2f64.powi(-25)), 2f64.powi(-24));
        assert!(round_f16(f64::NAN).is_nan());
    }

    #[test]
    fn bf16_and_f32_rounding() {
        assert_eq!(round_bf16(1.0 + 2f64.powi(-8)), 1.0);
        assert_eq!(round_bf16(1.0 + 3.0 * 2f64.powi(-8)), 1.0 + 2f64.powi(-6));
        assert_eq!(round_bf16(1.2345), 1.234375);
        assert_eq!(round_f32(0.1), f64::from(0.1f32));
        assert_eq!(
            round_to_format(0.1, F32, RoundMode::Rint),
            f64::from(0.1f32)
        );
    }

    #[test]
    fn wrapping_and_saturation() {
        assert_eq!(wrap_int(128, DataType::Int8).ok(), Some(-128));
        assert_eq!(wrap_int(-1, DataType::UInt8).ok(), Some(255));
        assert_eq!(wrap_int(1 << 40, DataType::Int32).ok(), Some(0));
        assert_eq!(
            float_to_int(2.5, DataType::Int32, RoundMode::Rint).ok(),
            Some(2)
        );
        assert_eq!(
            float_to_int(2.5, DataType::Int32, RoundMode::Round).ok(),
            Some(3)
        );
        assert_eq!(
            float_to_int(-2.5, DataType::Int32, RoundMode::Floor).ok(),
            Some(-3)
        );
        assert_eq!(
            float_to_int(-2.5, DataType::Int32, RoundMode::Ceil).ok(),
            Some(-2)
        );
        assert_eq!(
            float_to_int(-2.5, DataType::Int32, RoundMode::Trunc).ok(),
            Some(-2)
        );
        assert_eq!(
            float_to_int(2.2, DataType::Int32, RoundMode::Odd).ok(),
            Some(3)
        );
        assert_eq!(
            float_to_int(1e10, DataType::Int16, RoundMode::Rint).ok(),
            Some(32767)
        );
        assert_eq!(
            float_to_int(f64::NAN, DataType::Int16, RoundMode::Rint).ok(),
            Some(0)
        );
    }
}
