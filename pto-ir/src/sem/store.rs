//! What a store may do on the way out: which dtype conversions a `TSTORE` performs, what a
//! quantising store computes, and which dtypes an atomic-add store (`store_add`) accumulates
//! in (`shared/spec/pto-isa.md`, TSTORE).
//!
//! pto-isa converts only from an accumulator (an `Acc` tile, a matmul result):
//!
//! * an `fp32` accumulator may be written as `fp16` or `bf16` without a quantisation scalar,
//!   rounding to nearest even;
//! * the quantising forms, `TSTORE(global, acc, preQuantScalar)`, write an `fp32` accumulator
//!   as `int8` / `uint8` and an `int32` accumulator as `int8` / `uint8` / `fp16` ([`Quant`]).
//!   Each element is converted to `fp32` (an `int32` rounds to nearest even past 2^24),
//!   multiplied by the scale in `fp32`, then, for an 8-bit target, rounded to the nearest
//!   integer (ties to even) and saturated to the target's range, or, for `fp16`, saturated to
//!   +-65504 and rounded to nearest even. A NaN gives 0 in an 8-bit target. A kernel's plain
//!   `store` uses the scale 1.0 (the language has no spelling for another scale yet).
//!
//! This is what pto-isa's CPU simulation computes for the scalar [`quant_scalar`] builds (read
//! from its `TSTORE_IMPL(dst, src, preQuantScalar)` and the store-conversion helper it calls:
//! the low 32 bits are the `fp32` scale, bit 46 selects a signed 8-bit range, an offset in bits
//! 37..45 is 0 here). The simulation leaves a NaN to C++'s float-to-integer cast, which is
//! undefined; 0 is what x86 gives and what this rule fixes.
//! A vector tile must have the tensor's dtype.

use crate::DataType;

/// A quantising store's conversion (pto-isa's `QuantMode_t` of a scalar `preQuantScalar`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quant {
    /// `fp32` / `int32` to `int8` (`QF322B8_PRE` / `REQ8` with the sign bit set): round to
    /// nearest even, saturate to -128..=127.
    ToInt8,
    /// `fp32` / `int32` to `uint8` (the same modes, sign bit clear): saturate to 0..=255.
    ToUInt8,
    /// `int32` to `fp16` (`DEQF16`): saturate to +-65504, round to nearest even.
    ToFp16,
}

/// The quantising conversion of a store from an accumulator of dtype `from` into a tensor of
/// dtype `to`, if that store quantises.
pub fn quant_of(from: DataType, to: DataType) -> Option<Quant> {
    match (from, to) {
        (DataType::Fp32 | DataType::Int32, DataType::Int8) => Some(Quant::ToInt8),
        (DataType::Fp32 | DataType::Int32, DataType::UInt8) => Some(Quant::ToUInt8),
        (DataType::Int32, DataType::Fp16) => Some(Quant::ToFp16),
        _ => None,
    }
}

/// The 64-bit `preQuantScalar` operand of `TSTORE(global, acc, preQuantScalar)` for `scale`:
/// the `fp32` scale's bits, and bit 46 set for a signed 8-bit target (what pto-isa's
/// `SET_QUANT_SCALAR` sets for `int8_t`).
pub fn quant_scalar(q: Quant, scale: f32) -> u64 {
    let sign = if q == Quant::ToInt8 { 1u64 << 46 } else { 0 };
    u64::from(scale.to_bits()) | sign
}

/// One element through a quantising store: `x` is the accumulator element as `fp32` (an
/// `int32` converted with `as f32`), the result an `fp32` value that the target dtype holds
/// after a round-to-nearest-even conversion (exactly, for the 8-bit targets).
pub fn quantize(x: f32, q: Quant, scale: f32) -> f32 {
    let y = x * scale;
    match q {
        Quant::ToInt8 | Quant::ToUInt8 => {
            if y.is_nan() {
                return 0.0;
            }
            let (lo, hi) = if q == Quant::ToInt8 {
                (-128.0, 127.0)
            } else {
                (0.0, 255.0)
            };
            y.round_ties_even().clamp(lo, hi)
        }
        Quant::ToFp16 => y.clamp(-65504.0, 65504.0),
    }
}

/// Whether a tile of dtype `from` may be stored into a tensor of dtype `to`: the same dtype,
/// a narrowing of an `fp32` accumulator to `fp16` / `bf16`, or a quantising store ([`quant_of`]).
pub fn store_converts(from: DataType, to: DataType) -> bool {
    from == to
        || (from == DataType::Fp32 && matches!(to, DataType::Fp16 | DataType::Bf16))
        || quant_of(from, to).is_some()
}

/// Whether a converting store from `from` to `to` needs the source in an accumulator (`Acc`):
/// every store that changes the dtype.
pub fn store_needs_acc(from: DataType, to: DataType) -> bool {
    from != to
}

/// The dtypes pto-isa's atomic-add store accumulates in (`SetAtomicAdd`): `fp16`, `fp32`,
/// `bf16`, `int8`, `int16`, `int32`.
pub fn atomic_add_dtype(d: DataType) -> bool {
    matches!(
        d,
        DataType::Fp16
            | DataType::Fp32
            | DataType::Bf16
            | DataType::Int8
            | DataType::Int16
            | DataType::Int32
    )
}

/// The stores a tile of dtype `from` may make, for messages (`fp32 into fp32, fp16 or bf16`).
pub fn store_targets(from: DataType) -> String {
    match from {
        DataType::Fp32 => "fp32 (any tile), or from a matmul accumulator fp16 / bf16 (rounded to nearest even) or int8 / uint8 (quantised)".into(),
        DataType::Int32 => "int32 (any tile), or from a matmul accumulator int8 / uint8 / fp16 (quantised)".into(),
        _ => format!("{from} only"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DataType::*;

    #[test]
    fn which_stores_convert() {
        assert!(store_converts(Fp32, Fp16));
        assert!(store_converts(Fp32, Bf16));
        assert!(store_converts(Int32, Int32));
        assert!(store_converts(Int32, Fp16));
        assert!(store_converts(Fp32, Int8));
        assert!(store_converts(Int32, UInt8));
        assert!(!store_converts(Int32, Bf16));
        assert!(!store_converts(Fp32, Int16));
        assert!(!store_converts(Int8, Int32));
        assert!(!store_converts(Fp16, Fp32));
        assert!(store_needs_acc(Fp32, Fp16));
        assert!(!store_needs_acc(Fp16, Fp16));
    }

    #[test]
    fn quantising_rounds_to_even_and_saturates() {
        let q = |x: f32| quantize(x, Quant::ToInt8, 1.0);
        assert_eq!(
            [q(0.5), q(1.5), q(2.5), q(-0.5), q(-2.5), q(126.6)],
            [0.0, 2.0, 2.0, 0.0, -2.0, 127.0]
        );
        assert_eq!(
            [q(300.0), q(-129.0), q(f32::NEG_INFINITY)],
            [127.0, -128.0, -128.0]
        );
        assert_eq!(q(f32::NAN), 0.0);
        let u = |x: f32| quantize(x, Quant::ToUInt8, 1.0);
        assert_eq!(
            [u(-3.0), u(255.4), u(255.5), u(1000.0)],
            [0.0, 255.0, 255.0, 255.0]
        );
        // The scale multiplies in fp32 before the rounding.
        assert_eq!(quantize(5.0, Quant::ToInt8, 0.5), 2.0);
        assert_eq!(quantize(7.0, Quant::ToInt8, 0.5), 4.0);
        // int32 to fp16 saturates instead of overflowing to infinity.
        assert_eq!(quantize(100000.0, Quant::ToFp16, 1.0), 65504.0);
        assert_eq!(quantize(-70000.0, Quant::ToFp16, 1.0), -65504.0);
        assert_eq!(quantize(1234.0, Quant::ToFp16, 1.0), 1234.0);
    }

    #[test]
    fn the_quant_scalar_is_the_scale_and_the_sign() {
        assert_eq!(quant_scalar(Quant::ToInt8, 1.0), 0x3f80_0000 | 1 << 46);
        assert_eq!(quant_scalar(Quant::ToUInt8, 1.0), 0x3f80_0000);
        assert_eq!(quant_scalar(Quant::ToFp16, 0.5), 0x3f00_0000);
        assert_eq!(quant_of(Int32, Int8), Some(Quant::ToInt8));
        assert_eq!(quant_of(Fp32, UInt8), Some(Quant::ToUInt8));
        assert_eq!(quant_of(Int32, Fp16), Some(Quant::ToFp16));
        assert_eq!(quant_of(Fp32, Fp16), None);
    }

    #[test]
    fn atomic_dtypes() {
        assert!(atomic_add_dtype(Fp32) && atomic_add_dtype(Int8));
        assert!(!atomic_add_dtype(Fp64) && !atomic_add_dtype(Int64) && !atomic_add_dtype(UInt8));
    }
}
