//! `DataType`: the element types of seed 000, with their bit sizes and printed names.
//!
//! Sizes: every type has an exact bit width ([`DataType::bits`]). The seed's
//! `GetDataTypeSize` returns bytes; the two 4-bit types (`int4`, `hf4`) are half a byte, so
//! [`DataType::size_bytes`] rounds up to 1 (the smallest addressable unit), while
//! aggregate sizes ([`crate::Type::size_bytes`]) are computed from bits and round up once
//! for the whole aggregate, so a 16 x 32 `int4` tile is 256 bytes, not 512.
//! `BOTTOM` and `UNKNOWN` have no size (0).

use std::fmt;

/// An element data type (seed 000 `DataType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DataType {
    /// Boolean (1 byte in memory).
    Bool,
    /// 4-bit signed integer (half a byte).
    Int4,
    /// 8-bit signed integer.
    Int8,
    /// 16-bit signed integer.
    Int16,
    /// 32-bit signed integer.
    Int32,
    /// 64-bit signed integer.
    Int64,
    /// 8-bit unsigned integer.
    UInt8,
    /// 16-bit unsigned integer.
    UInt16,
    /// 32-bit unsigned integer.
    UInt32,
    /// 64-bit unsigned integer.
    UInt64,
    /// 8-bit float.
    Fp8,
    /// IEEE half precision.
    Fp16,
    /// bfloat16.
    Bf16,
    /// IEEE single precision.
    Fp32,
    /// IEEE double precision.
    Fp64,
    /// 4-bit HiFloat (half a byte).
    Hf4,
    /// 8-bit HiFloat.
    Hf8,
    /// The bottom type: no value (used for ops that produce nothing).
    Bottom,
    /// Not yet known; never valid on a verified value.
    Unknown,
}

impl DataType {
    /// Every data type, in the seed's declaration order.
    pub const ALL: [DataType; 19] = [
        DataType::Bool,
        DataType::Int4,
        DataType::Int8,
        DataType::Int16,
        DataType::Int32,
        DataType::Int64,
        DataType::UInt8,
        DataType::UInt16,
        DataType::UInt32,
        DataType::UInt64,
        DataType::Fp8,
        DataType::Fp16,
        DataType::Bf16,
        DataType::Fp32,
        DataType::Fp64,
        DataType::Hf4,
        DataType::Hf8,
        DataType::Bottom,
        DataType::Unknown,
    ];

    /// Width in bits (`bool` occupies 8); 0 for `BOTTOM` / `UNKNOWN`.
    pub const fn bits(self) -> u32 {
        match self {
            DataType::Int4 | DataType::Hf4 => 4,
            DataType::Bool | DataType::Int8 | DataType::UInt8 | DataType::Fp8 | DataType::Hf8 => 8,
            DataType::Int16 | DataType::UInt16 | DataType::Fp16 | DataType::Bf16 => 16,
            DataType::Int32 | DataType::UInt32 | DataType::Fp32 => 32,
            DataType::Int64 | DataType::UInt64 | DataType::Fp64 => 64,
            DataType::Bottom | DataType::Unknown => 0,
        }
    }

    /// The seed's `GetDataTypeSize`: bytes per element, 4-bit types rounded up to 1.
    pub const fn size_bytes(self) -> u64 {
        (self.bits() as u64).div_ceil(8)
    }

    /// The printed name (`fp32`, `int64`, `bool`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            DataType::Bool => "bool",
            DataType::Int4 => "int4",
            DataType::Int8 => "int8",
            DataType::Int16 => "int16",
            DataType::Int32 => "int32",
            DataType::Int64 => "int64",
            DataType::UInt8 => "uint8",
            DataType::UInt16 => "uint16",
            DataType::UInt32 => "uint32",
            DataType::UInt64 => "uint64",
            DataType::Fp8 => "fp8",
            DataType::Fp16 => "fp16",
            DataType::Bf16 => "bf16",
            DataType::Fp32 => "fp32",
            DataType::Fp64 => "fp64",
            DataType::Hf4 => "hf4",
            DataType::Hf8 => "hf8",
            DataType::Bottom => "bottom",
            DataType::Unknown => "unknown",
        }
    }

    /// Parses a printed name; also accepts the seed's upper-case spelling (`FP32`, `UINT8`).
    pub fn from_name(s: &str) -> Option<DataType> {
        // The names are lower case; the seed writes them upper case.
        DataType::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(s))
    }

    /// Signed or unsigned integer (not `bool`).
    pub const fn is_int(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int()
    }

    /// Signed integer.
    pub const fn is_signed_int(self) -> bool {
        matches!(
            self,
            DataType::Int4 | DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64
        )
    }

    /// Unsigned integer.
    pub const fn is_unsigned_int(self) -> bool {
        matches!(
            self,
            DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64
        )
    }

    /// Floating point (including the 8/4-bit formats).
    pub const fn is_float(self) -> bool {
        matches!(
            self,
            DataType::Fp8
                | DataType::Fp16
                | DataType::Bf16
                | DataType::Fp32
                | DataType::Fp64
                | DataType::Hf4
                | DataType::Hf8
        )
    }

    /// A numeric type (int or float).
    pub const fn is_numeric(self) -> bool {
        self.is_int() || self.is_float()
    }

    /// A concrete type a value may carry (not `BOTTOM` / `UNKNOWN`).
    pub const fn is_concrete(self) -> bool {
        !matches!(self, DataType::Bottom | DataType::Unknown)
    }

    /// The Rust type that spells this dtype in a kernel (`f32`, `pto::f16`, ...), if any.
    pub const fn rust_name(self) -> Option<&'static str> {
        Some(match self {
            DataType::Bool => "bool",
            DataType::Int8 => "i8",
            DataType::Int16 => "i16",
            DataType::Int32 => "i32",
            DataType::Int64 => "i64",
            DataType::UInt8 => "u8",
            DataType::UInt16 => "u16",
            DataType::UInt32 => "u32",
            DataType::UInt64 => "u64",
            DataType::Fp16 => "f16",
            DataType::Bf16 => "bf16",
            DataType::Fp32 => "f32",
            DataType::Fp64 => "f64",
            _ => return None,
        })
    }

    /// The dtype a Rust scalar type name denotes (`f32` -> `fp32`, `f16` -> `fp16`, ...).
    pub fn from_rust_name(s: &str) -> Option<DataType> {
        DataType::ALL.into_iter().find(|d| d.rust_name() == Some(s))
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_sizes() {
        for d in DataType::ALL {
            assert_eq!(DataType::from_name(d.name()), Some(d));
            assert_eq!(DataType::from_name(&d.name().to_uppercase()), Some(d));
        }
        assert_eq!(DataType::Int4.bits(), 4);
        assert_eq!(DataType::Int4.size_bytes(), 1);
        assert_eq!(DataType::Hf4.size_bytes(), 1);
        assert_eq!(DataType::Bf16.size_bytes(), 2);
        assert_eq!(DataType::Fp64.size_bytes(), 8);
        assert_eq!(DataType::Unknown.size_bytes(), 0);
        assert_eq!(DataType::from_rust_name("f16"), Some(DataType::Fp16));
        assert!(DataType::UInt8.is_int() && !DataType::UInt8.is_signed_int());
        assert!(!DataType::Bool.is_numeric());
    }
}
