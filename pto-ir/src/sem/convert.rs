//! Conversions: rounding an `f64` to a narrower float format in any [`RoundMode`], wrapping
//! integers to a dtype's width, float to integer saturation, and `TCVT`'s element rule.
//!
//! Values are carried exactly: integers as `i128`, floats as the `f64` holding them (every
//! `f16`, `bf16` and `f32` value is exact in `f64`).

use super::RoundMode;
use crate::DataType;

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
    let r = mode.to_integral(x / quantum) * quantum;
    let max = (2.0 - pow2(-fmt.frac)) * pow2(fmt.emax);
    if r.abs() <= max {
        return r;
    }
    let positive = x > 0.0;
    let to_inf = match mode {
        RoundMode::CastRint | RoundMode::CastRound | RoundMode::CastNone => true,
        RoundMode::CastTrunc | RoundMode::CastOdd => false,
        RoundMode::CastFloor => !positive,
        RoundMode::CastCeil => positive,
    };
    let mag = if to_inf { f64::INFINITY } else { max };
    if positive { mag } else { -mag }
}

/// Rounds `x` to the nearest `f16` value (ties to even), returned as `f64`.
pub fn round_f16(x: f64) -> f64 {
    round_to_format(x, F16, RoundMode::CastRint)
}

/// Rounds `x` to the nearest `bf16` value (ties to even), returned as `f64`.
pub fn round_bf16(x: f64) -> f64 {
    round_to_format(x, BF16, RoundMode::CastRint)
}

/// Rounds `x` to the nearest `f32` value (ties to even), returned as `f64`.
pub fn round_f32(x: f64) -> f64 {
    f64::from(x as f32)
}

/// Rounds `x` to float dtype `to` in `mode`.
pub fn round_float(x: f64, to: DataType, mode: RoundMode) -> Option<f64> {
    match to {
        DataType::Fp64 => Some(x),
        DataType::Fp32 if mode == RoundMode::CastRint => Some(round_f32(x)),
        DataType::Fp32 => Some(round_to_format(x, F32, mode)),
        DataType::Fp16 => Some(round_to_format(x, F16, mode)),
        DataType::Bf16 => Some(round_to_format(x, BF16, mode)),
        _ => None,
    }
}

/// The inclusive range of an integer dtype.
pub fn int_range(d: DataType) -> Option<(i128, i128)> {
    Some(match d {
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
        _ => return None,
    })
}

/// Wraps `v` to the width of integer dtype `d` (two's complement), as Rust's wrapping
/// arithmetic and integer `as` casts do. `bool` becomes `v != 0`.
pub fn wrap_int(v: i128, d: DataType) -> Option<i128> {
    if d == DataType::Bool {
        return Some(i128::from(v != 0));
    }
    let bits = d.bits();
    let (lo, _) = int_range(d)?;
    let shift = 128 - bits;
    Some(if lo < 0 {
        (v << shift) >> shift
    } else {
        ((v << shift) as u128 >> shift) as i128
    })
}

/// Converts a float to integer dtype `d`: rounds in `mode`, saturates, NaN becomes 0
/// (Rust `as` is `Trunc`; `TCVT` takes its mode from the `round` attribute).
pub fn float_to_int(x: f64, d: DataType, mode: RoundMode) -> Option<i128> {
    if x.is_nan() {
        return Some(0);
    }
    let r = mode.for_int().to_integral(x);
    let (lo, hi) = int_range(d)?;
    // Saturate in the float domain first: i128 covers every 64-bit range with room to spare.
    if r <= lo as f64 {
        return Some(lo);
    }
    if r >= hi as f64 {
        return Some(hi);
    }
    Some(r as i128)
}

/// Converts an element value (as stored: an exact integer or a float in an `f64`) of dtype
/// `from` to dtype `to`, as `TCVT` does: float -> int rounds in `mode` and saturates,
/// int -> int wraps, anything -> float rounds in `mode` to the target precision.
pub fn convert_elem(x: f64, from: DataType, to: DataType, mode: RoundMode) -> Option<f64> {
    if to.is_float() {
        // A float type to itself is "round only": to an integral value, unless no mode.
        let x = if from == to && mode != RoundMode::CastNone {
            mode.to_integral(x)
        } else {
            x
        };
        return round_float(x, to, mode);
    }
    if to == DataType::Bool {
        return Some(if x != 0.0 { 1.0 } else { 0.0 });
    }
    if from.is_float() {
        Some(float_to_int(x, to, mode)? as f64)
    } else {
        Some(wrap_int(x as i128, to)? as f64)
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
            round_to_format(0.1, F32, RoundMode::CastRint),
            f64::from(0.1f32)
        );
    }

    #[test]
    fn wrapping_and_saturation() {
        assert_eq!(wrap_int(128, DataType::Int8), Some(-128));
        assert_eq!(wrap_int(-1, DataType::UInt8), Some(255));
        assert_eq!(wrap_int(1 << 40, DataType::Int32), Some(0));
        assert_eq!(
            float_to_int(2.5, DataType::Int32, RoundMode::CastRint),
            Some(2)
        );
        assert_eq!(
            float_to_int(2.5, DataType::Int32, RoundMode::CastRound),
            Some(3)
        );
        assert_eq!(
            float_to_int(-2.5, DataType::Int32, RoundMode::CastFloor),
            Some(-3)
        );
        assert_eq!(
            float_to_int(-2.5, DataType::Int32, RoundMode::CastCeil),
            Some(-2)
        );
        assert_eq!(
            float_to_int(-2.5, DataType::Int32, RoundMode::CastTrunc),
            Some(-2)
        );
        assert_eq!(
            float_to_int(2.2, DataType::Int32, RoundMode::CastOdd),
            Some(3)
        );
        assert_eq!(
            float_to_int(1e10, DataType::Int16, RoundMode::CastRint),
            Some(32767)
        );
        assert_eq!(
            float_to_int(f64::NAN, DataType::Int16, RoundMode::CastRint),
            Some(0)
        );
    }
}

#[cfg(test)]
mod same_type {
    use super::*;

    #[test]
    fn same_float_type_rounds_only_when_a_mode_is_named() {
        let f = |m| convert_elem(2.5, DataType::Fp32, DataType::Fp32, m);
        assert_eq!(f(RoundMode::CastNone), Some(2.5));
        assert_eq!(f(RoundMode::CastRint), Some(2.0));
        assert_eq!(f(RoundMode::CastRound), Some(3.0));
        assert_eq!(f(RoundMode::CastOdd), Some(3.0));
    }
}
