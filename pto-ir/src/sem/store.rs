//! What a store may do on the way out: which dtype conversions a `TSTORE` performs and which
//! dtypes an atomic-add store (`store_add`) accumulates in (`shared/spec/pto-isa.md`, TSTORE).
//!
//! pto-isa converts only from an accumulator (an `Acc` tile, a matmul result): an `fp32`
//! accumulator may be written as `fp16` or `bf16` without a quantisation scalar, rounding to
//! nearest even. A vector tile must have the tensor's dtype. The quantising forms (`fp32` /
//! `int32` to `int8`, `int32` to `fp16`) need a scale operand the language has no spelling
//! for, so they are refused like every other pair.

use crate::DataType;

/// Whether a tile of dtype `from` may be stored into a tensor of dtype `to`: the same dtype,
/// or a narrowing of an `fp32` accumulator to `fp16` / `bf16`.
pub fn store_converts(from: DataType, to: DataType) -> bool {
    from == to || (from == DataType::Fp32 && matches!(to, DataType::Fp16 | DataType::Bf16))
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
    if from == DataType::Fp32 {
        "fp32 (any tile) or fp16 / bf16 (a matmul accumulator, rounded to nearest even)".into()
    } else {
        format!("{from} only")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DataType::*;

    #[test]
    fn narrowing_from_fp32_only() {
        assert!(store_converts(Fp32, Fp16));
        assert!(store_converts(Fp32, Bf16));
        assert!(store_converts(Int32, Int32));
        assert!(!store_converts(Int32, Fp16));
        assert!(!store_converts(Fp32, Int8));
        assert!(!store_converts(Fp16, Fp32));
        assert!(store_needs_acc(Fp32, Fp16));
        assert!(!store_needs_acc(Fp16, Fp16));
    }

    #[test]
    fn atomic_dtypes() {
        assert!(atomic_add_dtype(Fp32) && atomic_add_dtype(Int8));
        assert!(!atomic_add_dtype(Fp64) && !atomic_add_dtype(Int64) && !atomic_add_dtype(UInt8));
    }
}
