//! The meaning of every op on scalars of every dtype: the one definition constant folding,
//! the reference interpreter and the runtime's element arithmetic (`pto::element`) call, and
//! whose functions the generated host code names.
//!
//! * Integers ([`IntSem`]): arithmetic wraps; `/` and `%` truncate toward zero like Rust's
//!   (`x / 0 == 0`, `x % 0 == x`); `floor_div` / `floor_mod` round toward negative
//!   infinity; shifts by an out-of-range amount shift every bit out.
//! * Floats ([`FloatSem`]): IEEE arithmetic in the dtype's precision (`f16` / `bf16` compute in
//!   `f32` and round); `%` and `floor_mod` are the NPU's `a - trunc(a / b) * b` and
//!   `a - floor(a / b) * b` sequences (see [`FloatSem`]); `min` / `max` ignore a NaN operand; `f32` `exp` / `ln`
//!   are branch-free polynomials within 1 ulp of the correctly rounded result ([`exp_f32`]).
//! * Tile matmul ([`MatmulStep`]): inputs widened exactly to the accumulator; each output
//!   element adds its products in `k` order, a float one as a chain of fused multiply-adds
//!   (`acc = fma(a, b, acc)`, one rounding per step), an integer one wrapping.
//! * Conversions ([`convert`]): one [`RoundMode`]; an unnamed cast means Rust's `as`
//!   ([`RoundMode::for_cast`]).
//!
//! The op table names each op's meaning with a [`Sem`] value.

pub mod arg;
pub mod convert;
mod float;
mod int;
mod matmul;
pub mod pad;
mod round;
mod select;
pub mod store;
mod transcendental;

pub use float::FloatSem;
pub use int::IntSem;
pub use matmul::MatmulStep;
pub use round::RoundMode;
pub use select::select;
pub use transcendental::{exp_f32, ln_f32};

use crate::DataType;

/// A binary arithmetic or bitwise operation (scalar ops and the elementwise tile ops).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    FloorDiv,
    FloorMod,
    Min,
    Max,
    Pow,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl Binary {
    /// Whether the operation is defined on floats (the bitwise ones are integer only).
    pub fn on_floats(self) -> bool {
        !matches!(
            self,
            Binary::BitAnd | Binary::BitOr | Binary::BitXor | Binary::Shl | Binary::Shr
        )
    }

    /// The name of the function that implements it in [`IntSem`] / [`FloatSem`] (and of the
    /// runtime helper the C++ calls, `pto_rs_<name>`), when it is not an operator.
    pub fn fn_name(self) -> &'static str {
        match self {
            Binary::Add => "add",
            Binary::Sub => "sub",
            Binary::Mul => "mul",
            Binary::Div => "div",
            Binary::Rem => "rem",
            Binary::FloorDiv => "floor_div",
            Binary::FloorMod => "floor_mod",
            Binary::Min => "min",
            Binary::Max => "max",
            Binary::Pow => "pow",
            Binary::BitAnd => "bitand",
            Binary::BitOr => "bitor",
            Binary::BitXor => "bitxor",
            Binary::Shl => "shl",
            Binary::Shr => "shr",
        }
    }
}

/// The trait of the runtime (`pto::element`) whose function computes an operation per
/// element in the host code: `Element` for every dtype, `Float` / `Int` for one kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum ElementTrait {
    Element,
    Float,
    Int,
}

impl Binary {
    /// The runtime function the host code calls per element (`Element::add`, `Int::and`).
    pub fn runtime_fn(self) -> (ElementTrait, &'static str) {
        match self {
            Binary::BitAnd => (ElementTrait::Int, "and"),
            Binary::BitOr => (ElementTrait::Int, "or"),
            Binary::BitXor => (ElementTrait::Int, "xor"),
            Binary::Shl | Binary::Shr => (ElementTrait::Int, self.fn_name()),
            _ => (ElementTrait::Element, self.fn_name()),
        }
    }
}

/// A unary operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Unary {
    Neg,
    Abs,
    Relu,
    Exp,
    Log,
    Sqrt,
    Rsqrt,
    Recip,
    /// Logical not of a `bool`, bitwise not of an integer.
    Not,
}

impl Unary {
    /// Whether the operation is defined on integers (the transcendental ones are float only).
    pub fn on_ints(self) -> bool {
        matches!(self, Unary::Neg | Unary::Abs | Unary::Relu | Unary::Not)
    }

    /// The runtime function the host code calls per element (`Element::neg`, `Float::ln`).
    pub fn runtime_fn(self) -> (ElementTrait, &'static str) {
        match self {
            Unary::Neg => (ElementTrait::Element, "neg"),
            Unary::Abs => (ElementTrait::Element, "abs"),
            Unary::Relu => (ElementTrait::Element, "relu"),
            Unary::Exp => (ElementTrait::Float, "exp"),
            Unary::Log => (ElementTrait::Float, "ln"),
            Unary::Sqrt => (ElementTrait::Float, "sqrt"),
            Unary::Rsqrt => (ElementTrait::Float, "rsqrt"),
            Unary::Recip => (ElementTrait::Float, "recip"),
            Unary::Not => (ElementTrait::Int, "not"),
        }
    }
}

/// A comparison, giving `bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Compare {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A logical operation on two `bool`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Logic {
    And,
    Or,
    Xor,
}

/// What an op of the op table means per element (the table's semantics column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sem {
    /// Not an elementwise computation (memory, reductions, structure, constants, calls).
    None,
    /// [`binary`].
    Binary(Binary),
    /// [`unary`].
    Unary(Unary),
    /// [`compare`].
    Compare(Compare),
    /// [`logic`].
    Logic(Logic),
    /// [`cast`].
    Cast,
    /// [`select`]: a mask picks one of two values.
    Select,
}

/// One scalar value, held exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A `bool`.
    Bool(bool),
    /// An integer of any width.
    Int(i128),
    /// A float of any format.
    Float(f64),
}

impl Value {
    /// The value as `f64` (integers rounded to nearest beyond 2^53, `bool` as 0 / 1).
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Bool(b) => f64::from(u8::from(b)),
            Value::Int(i) => i as f64,
            Value::Float(x) => x,
        }
    }
}

/// Applies `op` to two integers of dtype `d` (already in its range), wrapping to it.
fn int_op<T>(op: Binary, a: i128, b: i128) -> Option<i128>
where
    T: IntSem
        + TryFrom<i128>
        + core::ops::BitAnd<Output = T>
        + core::ops::BitOr<Output = T>
        + core::ops::BitXor<Output = T>,
    i128: From<T>,
{
    let (x, y) = (T::try_from(a).ok()?, T::try_from(b).ok()?);
    let r = match op {
        Binary::Add => x.add(y),
        Binary::Sub => x.sub(y),
        Binary::Mul => x.mul(y),
        Binary::Div => x.div(y),
        Binary::Rem => x.rem(y),
        Binary::FloorDiv => x.floor_div(y),
        Binary::FloorMod => x.floor_mod(y),
        Binary::Min => x.min(y),
        Binary::Max => x.max(y),
        Binary::Pow => x.pow(y),
        Binary::BitAnd => x & y,
        Binary::BitOr => x | y,
        Binary::BitXor => x ^ y,
        Binary::Shl => x.shl(y),
        Binary::Shr => x.shr(y),
    };
    Some(i128::from(r))
}

/// `op` on two integers of dtype `d`; `None` when `d` is not an integer dtype.
pub fn int_binary(op: Binary, d: DataType, a: i128, b: i128) -> Option<i128> {
    match d {
        DataType::Int8 => int_op::<i8>(op, a, b),
        DataType::Int16 => int_op::<i16>(op, a, b),
        DataType::Int32 => int_op::<i32>(op, a, b),
        DataType::Int64 => int_op::<i64>(op, a, b),
        DataType::UInt8 => int_op::<u8>(op, a, b),
        DataType::UInt16 => int_op::<u16>(op, a, b),
        DataType::UInt32 => int_op::<u32>(op, a, b),
        DataType::UInt64 => int_op::<u64>(op, a, b),
        DataType::Int4 => {
            // Computed in i8 and wrapped to 4 bits; shifts are out of range from 4 on.
            let out_of_range = matches!(op, Binary::Shl | Binary::Shr) && !(0..4).contains(&b);
            let r = match op {
                Binary::Shl if out_of_range => 0,
                Binary::Shr if out_of_range => {
                    if a < 0 {
                        -1
                    } else {
                        0
                    }
                }
                _ => int_op::<i8>(op, a, b)?,
            };
            convert::wrap_int(r, d)
        }
        _ => None,
    }
}

/// `op` on two floats of dtype `d` (values of `d`, as `f64`), rounded to `d`.
pub fn float_binary(op: Binary, d: DataType, a: f64, b: f64) -> Option<f64> {
    fn apply<
        T: FloatSem
            + core::ops::Add<Output = T>
            + core::ops::Sub<Output = T>
            + core::ops::Mul<Output = T>
            + core::ops::Div<Output = T>,
    >(
        op: Binary,
        x: T,
        y: T,
    ) -> Option<T> {
        Some(match op {
            Binary::Add => x + y,
            Binary::Sub => x - y,
            Binary::Mul => x * y,
            Binary::Div => x / y,
            Binary::Rem => x.rem(y),
            Binary::FloorDiv => x.floor_div(y),
            Binary::FloorMod => x.floor_mod(y),
            Binary::Min => FloatSem::min(x, y),
            Binary::Max => FloatSem::max(x, y),
            Binary::Pow => x.pow(y),
            _ => return None,
        })
    }
    match d {
        DataType::Fp64 => apply(op, a, b),
        // f32 directly; f16 / bf16 through f32 and rounded back, as the runtime computes.
        DataType::Fp32 | DataType::Fp16 | DataType::Bf16 => {
            let r = apply(op, a as f32, b as f32)?;
            convert::round_float(f64::from(r), d, RoundMode::CastRint)
        }
        _ => None,
    }
}

/// `op` on one value of dtype `d`.
pub fn unary(op: Unary, d: DataType, a: Value) -> Option<Value> {
    match a {
        Value::Bool(b) if op == Unary::Not => Some(Value::Bool(!b)),
        Value::Bool(_) => None,
        Value::Int(x) => {
            let r = match op {
                Unary::Neg => int_binary(Binary::Sub, d, 0, x)?,
                Unary::Abs if x < 0 => int_binary(Binary::Sub, d, 0, x)?,
                Unary::Abs => x,
                Unary::Relu => x.max(0),
                Unary::Not => convert::wrap_int(!x, d)?,
                _ => return None,
            };
            Some(Value::Int(r))
        }
        Value::Float(x) => {
            fn apply<T: FloatSem + core::ops::Neg<Output = T>>(op: Unary, x: T) -> Option<T> {
                Some(match op {
                    Unary::Neg => -x,
                    Unary::Abs => x.abs(),
                    Unary::Relu => x.relu(),
                    Unary::Exp => x.exp(),
                    Unary::Log => x.ln(),
                    Unary::Sqrt => x.sqrt(),
                    Unary::Rsqrt => x.rsqrt(),
                    Unary::Recip => x.recip(),
                    Unary::Not => return None,
                })
            }
            let r = match d {
                DataType::Fp64 => apply(op, x)?,
                DataType::Fp32 | DataType::Fp16 | DataType::Bf16 => {
                    let r = apply(op, x as f32)?;
                    convert::round_float(f64::from(r), d, RoundMode::CastRint)?
                }
                _ => return None,
            };
            Some(Value::Float(r))
        }
    }
}

/// `op` on two values of dtype `d`, giving a value of `d`.
pub fn binary(op: Binary, d: DataType, a: Value, b: Value) -> Option<Value> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => int_binary(op, d, x, y).map(Value::Int),
        (Value::Float(x), Value::Float(y)) => float_binary(op, d, x, y).map(Value::Float),
        // Masks: `&`, `|` and `^` on `bool` are the logical ones, as in Rust.
        (Value::Bool(x), Value::Bool(y)) => match op {
            Binary::BitAnd => Some(Value::Bool(x & y)),
            Binary::BitOr => Some(Value::Bool(x | y)),
            Binary::BitXor => Some(Value::Bool(x ^ y)),
            _ => None,
        },
        _ => None,
    }
}

/// A comparison of two values of one dtype (integers exactly, floats by IEEE rules).
pub fn compare(op: Compare, a: Value, b: Value) -> Option<bool> {
    let ord = match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(&y)),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(&y)),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(&y),
        _ => return None,
    };
    use core::cmp::Ordering::*;
    Some(match (op, ord) {
        (Compare::Ne, None) => true,
        (_, None) => false,
        (Compare::Eq, Some(o)) => o == Equal,
        (Compare::Ne, Some(o)) => o != Equal,
        (Compare::Lt, Some(o)) => o == Less,
        (Compare::Le, Some(o)) => o != Greater,
        (Compare::Gt, Some(o)) => o == Greater,
        (Compare::Ge, Some(o)) => o != Less,
    })
}

/// A logical operation on two `bool`s.
pub fn logic(op: Logic, a: bool, b: bool) -> bool {
    match op {
        Logic::And => a && b,
        Logic::Or => a || b,
        Logic::Xor => a ^ b,
    }
}

/// Converts `v` of dtype `from` to dtype `to` in `mode` (see [`RoundMode::for_cast`] for the
/// mode an unnamed cast uses): float to integer rounds and saturates (NaN to 0), integer to
/// integer wraps, anything to float rounds to its precision, anything to `bool` tests `!= 0`.
pub fn cast(v: Value, from: DataType, to: DataType, mode: RoundMode) -> Option<Value> {
    if to == DataType::Bool {
        return Some(Value::Bool(v.as_f64() != 0.0));
    }
    match v {
        Value::Bool(b) if to.is_float() => Some(Value::Float(f64::from(u8::from(b)))),
        Value::Bool(b) => Some(Value::Int(i128::from(b))),
        Value::Int(i) if to.is_float() => {
            // Exact in f64 up to 2^53; beyond, the nearest f64 first (as the runtime does).
            convert::round_float(i as f64, to, mode).map(Value::Float)
        }
        Value::Int(i) => convert::wrap_int(i, to).map(Value::Int),
        Value::Float(x) if to.is_float() => {
            convert::convert_elem(x, from, to, mode).map(Value::Float)
        }
        Value::Float(x) => convert::float_to_int(x, to, mode).map(Value::Int),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatch_by_dtype_matches_the_typed_functions() {
        use DataType::*;
        assert_eq!(int_binary(Binary::FloorDiv, Int32, -7, -2), Some(3));
        assert_eq!(int_binary(Binary::FloorMod, Int32, -7, 2), Some(1));
        assert_eq!(int_binary(Binary::Rem, Int32, -7, 2), Some(-1));
        assert_eq!(int_binary(Binary::Add, Int8, 127, 1), Some(-128));
        assert_eq!(int_binary(Binary::Add, Int4, 7, 1), Some(-8));
        assert_eq!(int_binary(Binary::Shl, Int4, 1, 4), Some(0));
        assert_eq!(int_binary(Binary::Sub, UInt8, 0, 1), Some(255));
        assert_eq!(int_binary(Binary::Add, Fp32, 0, 1), None);
        assert_eq!(float_binary(Binary::Rem, Fp32, -5.5, 2.0), Some(-1.5));
        assert_eq!(
            float_binary(Binary::Add, Fp32, 0.1, 0.2),
            Some(f64::from(0.1f32 + 0.2f32))
        );
        assert_eq!(float_binary(Binary::Shl, Fp32, 1.0, 2.0), None);
        assert_eq!(
            unary(Unary::Abs, Int8, Value::Int(-128)),
            Some(Value::Int(-128))
        );
        assert_eq!(
            unary(Unary::Not, UInt8, Value::Int(0)),
            Some(Value::Int(255))
        );
        assert_eq!(
            unary(Unary::Exp, Fp32, Value::Float(1.0)),
            Some(Value::Float(f64::from(1.0f32.exp())))
        );
    }

    #[test]
    fn casts_mean_rust_as_unless_a_mode_is_named() {
        use DataType::*;
        let m = |from, to| RoundMode::for_cast(from, to, None).unwrap_or(RoundMode::CastNone);
        assert_eq!(
            cast(Value::Float(0.78), Fp32, Int32, m(Fp32, Int32)),
            Some(Value::Int(0))
        );
        assert_eq!(
            cast(Value::Float(-1.5), Fp32, Int32, m(Fp32, Int32)),
            Some(Value::Int(-1))
        );
        assert_eq!(
            cast(Value::Float(1.5), Fp32, Fp32, m(Fp32, Fp32)),
            Some(Value::Float(1.5))
        );
        assert_eq!(
            cast(Value::Float(0.78), Fp32, Int32, RoundMode::CastRint),
            Some(Value::Int(1))
        );
        assert_eq!(
            cast(Value::Float(0.1), Fp64, Fp32, m(Fp64, Fp32)),
            Some(Value::Float(f64::from(0.1f32)))
        );
        assert_eq!(
            cast(Value::Int(300), Int32, UInt8, m(Int32, UInt8)),
            Some(Value::Int(44))
        );
        assert_eq!(
            cast(Value::Float(f64::NAN), Fp32, Int8, RoundMode::CastTrunc),
            Some(Value::Int(0))
        );
    }

    #[test]
    fn comparisons_follow_ieee() {
        assert_eq!(
            compare(Compare::Eq, Value::Float(f64::NAN), Value::Float(f64::NAN)),
            Some(false)
        );
        assert_eq!(
            compare(Compare::Ne, Value::Float(f64::NAN), Value::Float(1.0)),
            Some(true)
        );
        assert_eq!(
            compare(Compare::Le, Value::Int(-1), Value::Int(-1)),
            Some(true)
        );
    }
}
