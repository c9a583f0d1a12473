//! The pad values of a padded load (`load_or`, pto-isa's `TFILLPAD`): the tile type's
//! `PadValue` holds the pad, so it is a constant, and pto-isa spells three for every dtype
//! (`Zero`, `Max`: `+inf` or the largest integer, `Min`: `-inf` or the smallest integer)
//! and any other only as an fp32 bit pattern (`PadValueCustom`).

use super::convert::int_range;
use crate::DataType;

/// The `PadValue` a pad of `v` on a `dtype` tile is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PadKind {
    /// `PadValue::Zero`.
    Zero,
    /// `PadValue::Max`: `+inf`, or the dtype's largest integer.
    Max,
    /// `PadValue::Min`: `-inf`, or the dtype's smallest integer.
    Min,
    /// `PadValueCustom(v)` (fp32 tiles).
    Custom(f32),
}

/// The dtypes `TFILLPAD` pads (pto-isa's `PadValueMap`).
pub fn pads(dtype: DataType) -> bool {
    matches!(
        dtype,
        DataType::Fp32
            | DataType::Fp16
            | DataType::Bf16
            | DataType::Int32
            | DataType::UInt32
            | DataType::Int16
            | DataType::UInt16
            | DataType::Int8
            | DataType::UInt8
    )
}

/// The pad `v` is on a `dtype` tile, or `None` when pto-isa cannot pad with it.
pub fn pad_kind(dtype: DataType, v: f64) -> Option<PadKind> {
    if !pads(dtype) {
        return None;
    }
    if v == 0.0 {
        return Some(PadKind::Zero);
    }
    if dtype.is_float() {
        return Some(match v {
            f64::INFINITY => PadKind::Max,
            f64::NEG_INFINITY => PadKind::Min,
            _ if dtype == DataType::Fp32 && !v.is_nan() => PadKind::Custom(v as f32),
            _ => return None,
        });
    }
    let (lo, hi) = int_range(dtype)?;
    match v {
        _ if v == hi as f64 => Some(PadKind::Max),
        _ if v == lo as f64 => Some(PadKind::Min),
        _ => None,
    }
}

/// The element value a pad kind writes into a `dtype` tile.
pub fn pad_element(dtype: DataType, k: PadKind) -> f64 {
    let range = int_range(dtype);
    match k {
        PadKind::Zero => 0.0,
        PadKind::Custom(v) => f64::from(v),
        PadKind::Max => range.map_or(f64::INFINITY, |r| r.1 as f64),
        PadKind::Min => range.map_or(f64::NEG_INFINITY, |r| r.0 as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DataType::*;

    #[test]
    fn kinds() {
        assert_eq!(pad_kind(Fp32, 0.0), Some(PadKind::Zero));
        assert_eq!(pad_kind(Fp32, -1.5), Some(PadKind::Custom(-1.5)));
        assert_eq!(pad_kind(Fp16, f64::NEG_INFINITY), Some(PadKind::Min));
        assert_eq!(pad_kind(Fp16, 1.0), None);
        assert_eq!(pad_kind(Int32, i32::MAX as f64), Some(PadKind::Max));
        assert_eq!(pad_kind(Int32, 7.0), None);
        assert_eq!(pad_kind(Fp64, 0.0), None);
        assert_eq!(pad_element(Int8, PadKind::Min), -128.0);
    }
}
