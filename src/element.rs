//! Element types of tensors and tiles.
//!
//! [`Element`] is implemented for `f16`, `bf16`, `f32`, `f64`, `i8`..`i64` and `u8`..`u64`.
//! It gives every element the arithmetic the PTO instructions need with *total* semantics, so
//! no instruction can panic or hit undefined behaviour on any input:
//!
//! * integer `add`/`sub`/`mul`/`neg`/`abs` wrap (two's complement), like the vector unit;
//! * integer `div` by zero gives 0 and `rem` by zero gives the dividend (so `a == (a / b) * b +
//!   rem(a, b)` holds for every `b`); `MIN / -1` wraps to `MIN`;
//! * `rem` is PTO's `TREM`: the remainder takes the sign of the divisor (`a - floor(a / b) * b`);
//! * `f16` / `bf16` compute through `f32` and round the result back (what `half` does).
//!
//! Bitwise and shift instructions need [`Int`]; `exp`, `log`, `sqrt` ... need [`Float`];
//! matrix multiplication widens its inputs through [`Accumulate`]. Conversions between any
//! two element types go through [`Scalar`] (exact for every element value) with a
//! [`RoundMode`]; see [`convert`]. `bool` is not an element: PTO masks are packed `u8` tiles.

use core::any::TypeId;
use core::fmt::Debug;

pub use half::{bf16, f16};

/// How `TCVT` rounds a value that the destination type cannot represent exactly.
///
/// For float to integer conversions the value is rounded to an integer in the given
/// direction and then saturated to the destination range (NaN becomes 0). For float to
/// narrower float conversions the value is rounded to the destination precision in the given
/// direction. A conversion between a float type and itself rounds to an integral value in the
/// same type (`TCVT f32 -> f32`, "round only"). Integer to integer conversions saturate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RoundMode {
    /// Round to nearest, ties to even (`CAST_RINT`).
    #[default]
    CastRint,
    /// Round to nearest, ties away from zero (`CAST_ROUND`).
    CastRound,
    /// Round towards negative infinity (`CAST_FLOOR`).
    CastFloor,
    /// Round towards positive infinity (`CAST_CEIL`).
    CastCeil,
    /// Round towards zero (`CAST_TRUNC`).
    CastTrunc,
    /// No explicit rounding (`CAST_NONE`): exact conversions are unchanged and lossy ones round
    /// like [`RoundMode::CastRint`]; a same-type float conversion is the identity.
    CastNone,
}

/// Any element value, held exactly: floats as `f64`, integers as `i128`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// A floating-point value (every `f16`, `bf16`, `f32` and `f64` is exact in `f64`).
    Float(f64),
    /// An integer value (every `i8`..`i64` and `u8`..`u64` is exact in `i128`).
    Int(i128),
}

/// A tensor or tile element type.
pub trait Element:
    Copy + Default + PartialEq + PartialOrd + Debug + Send + Sync + 'static
{
    /// The PTO-IR dtype name (`fp32`, `int8`, ...).
    const NAME: &'static str;
    /// `true` for the floating-point types.
    const IS_FLOAT: bool;
    /// Zero, the identity of `add` (and the fill of `Tile::zeros`).
    const ZERO: Self;
    /// One, the identity of `mul`.
    const ONE: Self;
    /// The identity of `max`: `-inf` for floats, `MIN` for integers.
    const LOWEST: Self;
    /// The identity of `min`: `+inf` for floats, `MAX` for integers.
    const HIGHEST: Self;

    /// The value as `f64` (rounded to nearest for 64-bit integers beyond 2^53).
    fn to_f64(self) -> f64;
    /// The nearest value of this type (saturating for integers, NaN becomes 0).
    fn from_f64(v: f64) -> Self;
    /// The value, exactly.
    fn to_scalar(self) -> Scalar;
    /// Converts an exact value into this type with the given rounding (see [`RoundMode`]).
    fn from_scalar(v: Scalar, mode: RoundMode) -> Self;

    /// `self + rhs` (wrapping for integers).
    fn add(self, rhs: Self) -> Self;
    /// `self - rhs` (wrapping for integers).
    fn sub(self, rhs: Self) -> Self;
    /// `self * rhs` (wrapping for integers).
    fn mul(self, rhs: Self) -> Self;
    /// `self / rhs`; integer division by zero gives 0.
    fn div(self, rhs: Self) -> Self;
    /// Remainder with the sign of the divisor (`TREM`); integer `rem` by zero gives `self`.
    fn rem(self, rhs: Self) -> Self;
    /// The larger of the two (for floats, a NaN operand is ignored).
    fn max(self, rhs: Self) -> Self;
    /// The smaller of the two (for floats, a NaN operand is ignored).
    fn min(self, rhs: Self) -> Self;
    /// `-self` (wrapping for integers, so unsigned negation is `0 - self`).
    fn neg(self) -> Self;
    /// `|self|` (wrapping for signed `MIN`; the identity for unsigned types).
    fn abs(self) -> Self;
    /// `max(self, 0)`.
    #[inline(always)]
    fn relu(self) -> Self {
        self.max(Self::ZERO)
    }
}

/// Floating-point elements: the transcendental unary instructions.
pub trait Float: Element {
    /// `e^self`.
    fn exp(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// `1 / sqrt(self)`.
    fn rsqrt(self) -> Self;
    /// `1 / self`.
    fn recip(self) -> Self;
}

/// Integer elements: the bitwise and shift instructions.
///
/// A shift amount outside `0..BITS` (including negative amounts) shifts every bit out: the
/// result is 0, except for a right shift of a negative signed value, which gives -1.
pub trait Int: Element {
    /// Bitwise and.
    fn and(self, rhs: Self) -> Self;
    /// Bitwise or.
    fn or(self, rhs: Self) -> Self;
    /// Bitwise exclusive or.
    fn xor(self, rhs: Self) -> Self;
    /// Bitwise not.
    fn not(self) -> Self;
    /// `self << amount`.
    fn shl(self, amount: Self) -> Self;
    /// `self >> amount` (arithmetic for signed types).
    fn shr(self, amount: Self) -> Self;
}

/// The accumulator type of matrix multiplication: `f16`, `bf16` and `f32` accumulate in
/// `f32`, `f64` in `f64`, `i8`/`i16`/`i32` in `i32`, `u8`/`u16`/`u32` in `u32`, and the 64-bit
/// integers in themselves.
pub trait Accumulate: Element {
    /// The accumulator element type.
    type Acc: Element;
    /// The value, widened exactly into the accumulator type.
    fn widen(self) -> Self::Acc;
}

/// Converts one element to another type (the per-element rule of `TCVT`; see [`RoundMode`]).
#[inline]
pub fn convert<S: Element, D: Element>(v: S, mode: RoundMode) -> D {
    if S::IS_FLOAT && TypeId::of::<S>() == TypeId::of::<D>() {
        // Same float type: "round only" to an integral value.
        match v.to_scalar() {
            Scalar::Float(x) if mode != RoundMode::CastNone => {
                D::from_scalar(Scalar::Float(round_f64(x, mode)), RoundMode::CastRint)
            }
            s => D::from_scalar(s, RoundMode::CastRint),
        }
    } else {
        D::from_scalar(v.to_scalar(), mode)
    }
}

/// Rounds `x` to an integral value in the direction `mode` says.
#[inline]
fn round_f64(x: f64, mode: RoundMode) -> f64 {
    match mode {
        RoundMode::CastRint | RoundMode::CastNone => x.round_ties_even(),
        RoundMode::CastRound => x.round(),
        RoundMode::CastFloor => x.floor(),
        RoundMode::CastCeil => x.ceil(),
        RoundMode::CastTrunc => x.trunc(),
    }
}

/// Integer from an exact value: round floats per `mode`, then saturate into `[lo, hi]`.
#[inline]
fn int_from_scalar(v: Scalar, mode: RoundMode, lo: i128, hi: i128) -> i128 {
    let i = match v {
        Scalar::Int(i) => i,
        // `as` saturates and maps NaN to 0.
        Scalar::Float(x) => round_f64(x, mode) as i128,
    };
    i.clamp(lo, hi)
}

/// Largest integer magnitude every `f64` holds exactly.
const F64_EXACT_INT: i128 = 1 << 53;

/// Float types narrower than `f64`, for rounding an `f64` in a given direction.
trait NarrowFloat: Copy {
    fn nearest(x: f64) -> Self;
    fn wide(self) -> f64;
    fn next_up(self) -> Self;
    fn next_down(self) -> Self;
}

/// The next representable value above `bits` in a 16-bit IEEE-like format.
fn next_up_16(bits: u16, inf: u16) -> u16 {
    let abs = bits & 0x7fff;
    if abs > inf || bits == inf {
        bits // NaN or +inf
    } else if abs == 0 {
        1 // smallest positive subnormal
    } else if bits & 0x8000 == 0 {
        bits + 1
    } else {
        bits - 1
    }
}

macro_rules! narrow16 {
    ($t:ty, $inf:expr) => {
        impl NarrowFloat for $t {
            #[inline]
            fn nearest(x: f64) -> Self {
                <$t>::from_f64(x)
            }
            #[inline]
            fn wide(self) -> f64 {
                self.to_f64()
            }
            fn next_up(self) -> Self {
                <$t>::from_bits(next_up_16(self.to_bits(), $inf))
            }
            fn next_down(self) -> Self {
                -<$t>::from_bits(next_up_16((-self).to_bits(), $inf))
            }
        }
    };
}
narrow16!(f16, 0x7c00);
narrow16!(bf16, 0x7f80);

impl NarrowFloat for f32 {
    #[inline]
    fn nearest(x: f64) -> Self {
        x as f32
    }
    #[inline]
    fn wide(self) -> f64 {
        f64::from(self)
    }
    fn next_up(self) -> Self {
        f32::next_up(self)
    }
    fn next_down(self) -> Self {
        f32::next_down(self)
    }
}

/// Rounds `x` to the precision of `F` in the direction `mode` says.
#[inline]
fn narrow<F: NarrowFloat>(x: f64, mode: RoundMode) -> F {
    let n = F::nearest(x);
    let nf = n.wide();
    if x.is_nan() || nf == x {
        return n;
    }
    // `x` is inexact: `n` is the nearest (ties even); step to the neighbour when the mode
    // wants the other side. An overflow to infinity steps back to the largest finite value.
    match mode {
        RoundMode::CastRint | RoundMode::CastNone => n,
        RoundMode::CastFloor if nf > x => n.next_down(),
        RoundMode::CastCeil if nf < x => n.next_up(),
        RoundMode::CastTrunc if nf.abs() > x.abs() => {
            if x > 0.0 {
                n.next_down()
            } else {
                n.next_up()
            }
        }
        RoundMode::CastRound => {
            let other = if nf < x { n.next_up() } else { n.next_down() };
            let of = other.wide();
            if (x - nf).abs() == (of - x).abs() && of.abs() > nf.abs() {
                other
            } else {
                n
            }
        }
        RoundMode::CastFloor | RoundMode::CastCeil | RoundMode::CastTrunc => n,
    }
}

/// A narrow float from an exact value.
#[inline]
fn narrow_from_scalar<F: NarrowFloat>(v: Scalar, mode: RoundMode) -> F {
    match v {
        Scalar::Float(x) => narrow(x, mode),
        Scalar::Int(i) if (-F64_EXACT_INT..=F64_EXACT_INT).contains(&i) => narrow(i as f64, mode),
        // Huge 64-bit integers: nearest only (a documented limitation).
        Scalar::Int(i) => F::nearest(i as f64),
    }
}

macro_rules! int_common {
    ($t:ty, $name:literal) => {
        const NAME: &'static str = $name;
        const IS_FLOAT: bool = false;
        const ZERO: Self = 0;
        const ONE: Self = 1;
        const LOWEST: Self = <$t>::MIN;
        const HIGHEST: Self = <$t>::MAX;

        #[inline(always)]
        fn to_f64(self) -> f64 {
            self as f64
        }
        #[inline(always)]
        fn from_f64(v: f64) -> Self {
            // `as` saturates and maps NaN to 0; rounding to nearest-even first.
            v.round_ties_even() as $t
        }
        #[inline(always)]
        fn to_scalar(self) -> Scalar {
            Scalar::Int(i128::from(self))
        }
        #[inline(always)]
        fn from_scalar(v: Scalar, mode: RoundMode) -> Self {
            int_from_scalar(v, mode, i128::from(<$t>::MIN), i128::from(<$t>::MAX)) as $t
        }
        #[inline(always)]
        fn add(self, rhs: Self) -> Self {
            self.wrapping_add(rhs)
        }
        #[inline(always)]
        fn sub(self, rhs: Self) -> Self {
            self.wrapping_sub(rhs)
        }
        #[inline(always)]
        fn mul(self, rhs: Self) -> Self {
            self.wrapping_mul(rhs)
        }
        #[inline(always)]
        fn div(self, rhs: Self) -> Self {
            if rhs == 0 { 0 } else { self.wrapping_div(rhs) }
        }
        #[inline(always)]
        fn max(self, rhs: Self) -> Self {
            Ord::max(self, rhs)
        }
        #[inline(always)]
        fn min(self, rhs: Self) -> Self {
            Ord::min(self, rhs)
        }
        #[inline(always)]
        fn neg(self) -> Self {
            self.wrapping_neg()
        }
    };
}

macro_rules! int_impl {
    ($t:ty, $name:literal, $signed:tt, $acc:ty) => {
        impl Element for $t {
            int_common!($t, $name);
            #[inline(always)]
            fn abs(self) -> Self {
                int_impl!(@abs $signed self)
            }
            #[inline(always)]
            fn rem(self, rhs: Self) -> Self {
                if rhs == 0 {
                    return self;
                }
                int_impl!(@rem $signed self, rhs)
            }
        }
        impl Int for $t {
            #[inline(always)]
            fn and(self, rhs: Self) -> Self {
                self & rhs
            }
            #[inline(always)]
            fn or(self, rhs: Self) -> Self {
                self | rhs
            }
            #[inline(always)]
            fn xor(self, rhs: Self) -> Self {
                self ^ rhs
            }
            #[inline(always)]
            fn not(self) -> Self {
                !self
            }
            #[inline(always)]
            fn shl(self, amount: Self) -> Self {
                let n = i128::from(amount);
                if (0..i128::from(<$t>::BITS)).contains(&n) { self << n } else { 0 }
            }
            #[inline(always)]
            fn shr(self, amount: Self) -> Self {
                let n = i128::from(amount);
                if (0..i128::from(<$t>::BITS)).contains(&n) {
                    self >> n
                } else {
                    // Everything shifted out: the sign fill.
                    self >> (<$t>::BITS - 1) >> 1
                }
            }
        }
        impl Accumulate for $t {
            type Acc = $acc;
            #[inline(always)]
            fn widen(self) -> $acc {
                <$acc>::from(self)
            }
        }
    };
    (@abs signed $x:ident) => { $x.wrapping_abs() };
    (@abs unsigned $x:ident) => { $x };
    (@rem signed $x:ident, $y:ident) => {{
        let r = $x.wrapping_rem($y);
        if r != 0 && ((r < 0) != ($y < 0)) { r.wrapping_add($y) } else { r }
    }};
    (@rem unsigned $x:ident, $y:ident) => { $x % $y };
}

int_impl!(i8, "int8", signed, i32);
int_impl!(i16, "int16", signed, i32);
int_impl!(i32, "int32", signed, i32);
int_impl!(i64, "int64", signed, i64);
int_impl!(u8, "uint8", unsigned, u32);
int_impl!(u16, "uint16", unsigned, u32);
int_impl!(u32, "uint32", unsigned, u32);
int_impl!(u64, "uint64", unsigned, u64);

/// Floor-mod for floats: `fmod` (exact), then moved to the divisor's sign.
macro_rules! float_rem {
    ($a:expr, $b:expr) => {{
        let (a, b) = ($a, $b);
        let r = a % b;
        if r != 0.0 && ((r < 0.0) != (b < 0.0)) { r + b } else { r }
    }};
}

macro_rules! native_float_impl {
    ($t:ty, $name:literal, $from_scalar:expr) => {
        impl Element for $t {
            const NAME: &'static str = $name;
            const IS_FLOAT: bool = true;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;

            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_scalar(self) -> Scalar {
                Scalar::Float(self as f64)
            }
            #[inline(always)]
            fn from_scalar(v: Scalar, mode: RoundMode) -> Self {
                let f: fn(Scalar, RoundMode) -> $t = $from_scalar;
                f(v, mode)
            }
            #[inline(always)]
            fn add(self, rhs: Self) -> Self {
                self + rhs
            }
            #[inline(always)]
            fn sub(self, rhs: Self) -> Self {
                self - rhs
            }
            #[inline(always)]
            fn mul(self, rhs: Self) -> Self {
                self * rhs
            }
            #[inline(always)]
            fn div(self, rhs: Self) -> Self {
                self / rhs
            }
            #[inline(always)]
            fn rem(self, rhs: Self) -> Self {
                float_rem!(self, rhs)
            }
            #[inline(always)]
            fn max(self, rhs: Self) -> Self {
                <$t>::max(self, rhs)
            }
            #[inline(always)]
            fn min(self, rhs: Self) -> Self {
                <$t>::min(self, rhs)
            }
            #[inline(always)]
            fn neg(self) -> Self {
                -self
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
        }
        impl Float for $t {
            #[inline(always)]
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            #[inline(always)]
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn rsqrt(self) -> Self {
                1.0 / <$t>::sqrt(self)
            }
            #[inline(always)]
            fn recip(self) -> Self {
                1.0 / self
            }
        }
    };
}

native_float_impl!(f32, "fp32", narrow_from_scalar::<f32>);
native_float_impl!(f64, "fp64", |v, _mode| match v {
    Scalar::Float(x) => x,
    Scalar::Int(i) => i as f64,
});

impl Accumulate for f32 {
    type Acc = f32;
    #[inline(always)]
    fn widen(self) -> f32 {
        self
    }
}

impl Accumulate for f64 {
    type Acc = f64;
    #[inline(always)]
    fn widen(self) -> f64 {
        self
    }
}

macro_rules! half_impl {
    ($t:ty, $name:literal) => {
        impl Element for $t {
            const NAME: &'static str = $name;
            const IS_FLOAT: bool = true;
            const ZERO: Self = <$t>::ZERO;
            const ONE: Self = <$t>::ONE;
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;

            #[inline(always)]
            fn to_f64(self) -> f64 {
                <$t>::to_f64(self)
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                <$t>::from_f64(v)
            }
            #[inline(always)]
            fn to_scalar(self) -> Scalar {
                Scalar::Float(<$t>::to_f64(self))
            }
            #[inline(always)]
            fn from_scalar(v: Scalar, mode: RoundMode) -> Self {
                narrow_from_scalar::<$t>(v, mode)
            }
            #[inline(always)]
            fn add(self, rhs: Self) -> Self {
                <$t>::from_f32(self.to_f32() + rhs.to_f32())
            }
            #[inline(always)]
            fn sub(self, rhs: Self) -> Self {
                <$t>::from_f32(self.to_f32() - rhs.to_f32())
            }
            #[inline(always)]
            fn mul(self, rhs: Self) -> Self {
                <$t>::from_f32(self.to_f32() * rhs.to_f32())
            }
            #[inline(always)]
            fn div(self, rhs: Self) -> Self {
                <$t>::from_f32(self.to_f32() / rhs.to_f32())
            }
            #[inline(always)]
            fn rem(self, rhs: Self) -> Self {
                <$t>::from_f32(float_rem!(self.to_f32(), rhs.to_f32()))
            }
            #[inline(always)]
            fn max(self, rhs: Self) -> Self {
                <$t>::max(self, rhs)
            }
            #[inline(always)]
            fn min(self, rhs: Self) -> Self {
                <$t>::min(self, rhs)
            }
            #[inline(always)]
            fn neg(self) -> Self {
                -self
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::from_bits(self.to_bits() & 0x7fff)
            }
        }
        impl Float for $t {
            #[inline(always)]
            fn exp(self) -> Self {
                <$t>::from_f32(self.to_f32().exp())
            }
            #[inline(always)]
            fn ln(self) -> Self {
                <$t>::from_f32(self.to_f32().ln())
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::from_f32(self.to_f32().sqrt())
            }
            #[inline(always)]
            fn rsqrt(self) -> Self {
                <$t>::from_f32(1.0 / self.to_f32().sqrt())
            }
            #[inline(always)]
            fn recip(self) -> Self {
                <$t>::from_f32(1.0 / self.to_f32())
            }
        }
        impl Accumulate for $t {
            type Acc = f32;
            #[inline(always)]
            fn widen(self) -> f32 {
                self.to_f32()
            }
        }
    };
}

half_impl!(f16, "fp16");
half_impl!(bf16, "bf16");

#[cfg(test)]
mod tests {
    use super::*;
    use RoundMode::*;

    const MODES: [RoundMode; 6] = [CastRint, CastRound, CastFloor, CastCeil, CastTrunc, CastNone];

    fn to_i32(x: f32, m: RoundMode) -> i32 {
        convert::<f32, i32>(x, m)
    }

    #[test]
    fn float_to_int_every_mode_on_ties_and_negatives() {
        // (input, [rint, round, floor, ceil, trunc, none])
        let cases: [(f32, [i32; 6]); 8] = [
            (2.5, [2, 3, 2, 3, 2, 2]),
            (3.5, [4, 4, 3, 4, 3, 4]),
            (-2.5, [-2, -3, -3, -2, -2, -2]),
            (-3.5, [-4, -4, -4, -3, -3, -4]),
            (0.5, [0, 1, 0, 1, 0, 0]),
            (-0.5, [0, -1, -1, 0, 0, 0]),
            (1.25, [1, 1, 1, 2, 1, 1]),
            (-1.75, [-2, -2, -2, -1, -1, -2]),
        ];
        for (x, want) in cases {
            for (m, w) in MODES.iter().zip(want) {
                assert_eq!(to_i32(x, *m), w, "{x} {m:?}");
            }
        }
    }

    #[test]
    fn float_to_int_saturates_and_nan_is_zero() {
        assert_eq!(convert::<f32, i8>(300.0, CastRint), 127);
        assert_eq!(convert::<f32, i8>(-300.0, CastTrunc), -128);
        assert_eq!(convert::<f32, u8>(-1.5, CastFloor), 0);
        assert_eq!(convert::<f64, i64>(1e30, CastRint), i64::MAX);
        assert_eq!(convert::<f32, i32>(f32::NAN, CastRint), 0);
        assert_eq!(convert::<f32, i32>(f32::NEG_INFINITY, CastRint), i32::MIN);
        assert_eq!(convert::<f16, i16>(f16::from_f32(-2.5), CastRound), -3);
        assert_eq!(convert::<bf16, i32>(bf16::from_f32(7.5), CastRint), 8);
    }

    #[test]
    fn int_to_int_saturates() {
        assert_eq!(convert::<i32, i16>(70000, CastNone), i16::MAX);
        assert_eq!(convert::<i32, u8>(-5, CastNone), 0);
        assert_eq!(convert::<u64, i64>(u64::MAX, CastNone), i64::MAX);
        assert_eq!(convert::<i64, i32>(-7, CastNone), -7);
    }

    #[test]
    fn same_type_float_rounds_to_integral() {
        assert_eq!(convert::<f32, f32>(2.5, CastRint), 2.0);
        assert_eq!(convert::<f32, f32>(2.5, CastRound), 3.0);
        assert_eq!(convert::<f32, f32>(-2.5, CastFloor), -3.0);
        assert_eq!(convert::<f32, f32>(-2.5, CastCeil), -2.0);
        assert_eq!(convert::<f32, f32>(-2.7, CastTrunc), -2.0);
        assert_eq!(convert::<f32, f32>(2.7, CastNone), 2.7);
    }

    #[test]
    fn f32_to_f16_directed_rounding() {
        // 1 + 2^-11 is halfway between f16 1.0 and 1 + 2^-10.
        let tie = 1.0f32 + 2f32.powi(-11);
        let up = 1.0 + 2f64.powi(-10);
        let f = |m| convert::<f32, f16>(tie, m).to_f64();
        assert_eq!(f(CastRint), 1.0);
        assert_eq!(f(CastRound), up);
        assert_eq!(f(CastFloor), 1.0);
        assert_eq!(f(CastCeil), up);
        assert_eq!(f(CastTrunc), 1.0);
        let g = |m| convert::<f32, f16>(-tie, m).to_f64();
        assert_eq!(g(CastRound), -up);
        assert_eq!(g(CastFloor), -up);
        assert_eq!(g(CastCeil), -1.0);
        assert_eq!(g(CastTrunc), -1.0);
        // Overflow: floor stays finite for positive values, rint goes to infinity.
        assert_eq!(convert::<f32, f16>(1e6, CastFloor), f16::MAX);
        assert_eq!(convert::<f32, f16>(1e6, CastRint), f16::INFINITY);
        assert_eq!(convert::<f32, f16>(-1e6, CastTrunc), f16::MIN);
        // Widening is exact.
        assert_eq!(convert::<f16, f32>(f16::from_f32(0.1), CastFloor), f16::from_f32(0.1).to_f32());
        // bf16 directed.
        assert_eq!(convert::<f32, bf16>(1.001, CastCeil).to_f32(), 1.0078125);
        assert_eq!(convert::<f32, bf16>(1.001, CastFloor).to_f32(), 1.0);
    }

    #[test]
    fn int_to_float() {
        assert_eq!(convert::<i32, f32>(16_777_217, CastRint), 16_777_216.0);
        assert_eq!(convert::<i32, f32>(16_777_217, CastCeil), 16_777_218.0);
        assert_eq!(convert::<i8, f16>(-7, CastNone).to_f32(), -7.0);
    }

    #[test]
    fn integer_arithmetic_is_total() {
        assert_eq!(Element::div(7i32, 0), 0);
        assert_eq!(Element::rem(7i32, 0), 7);
        assert_eq!(Element::div(i32::MIN, -1), i32::MIN);
        assert_eq!(Element::rem(i32::MIN, -1), 0);
        assert_eq!(Element::rem(-7i32, 3), 2);
        assert_eq!(Element::rem(7i32, -3), -2);
        assert_eq!(Element::add(i8::MAX, 1), i8::MIN);
        assert_eq!(Element::abs(i8::MIN), i8::MIN);
        assert_eq!(Element::neg(1u8), 255);
        assert_eq!(Int::shl(1i32, 40), 0);
        assert_eq!(Int::shr(-8i32, 1), -4);
        assert_eq!(Int::shr(-8i32, 99), -1);
        assert_eq!(Int::shr(200u8, 3), 25);
        assert_eq!(Int::shl(1u8, 7), 128);
    }

    #[test]
    fn float_rem_takes_divisor_sign() {
        assert_eq!(Element::rem(5.5f32, 2.0), 1.5);
        assert_eq!(Element::rem(-5.5f32, 2.0), 0.5);
        assert_eq!(Element::rem(5.5f32, -2.0), -0.5);
        assert_eq!(Element::rem(f16::from_f32(-1.0), f16::from_f32(4.0)).to_f32(), 3.0);
    }

    #[test]
    fn names_and_identities() {
        assert_eq!(<f32 as Element>::NAME, "fp32");
        assert_eq!(<u16 as Element>::NAME, "uint16");
        assert_eq!(<bf16 as Element>::NAME, "bf16");
        assert_eq!(<i8 as Element>::LOWEST, -128);
        assert!(<f16 as Element>::LOWEST.is_infinite());
        assert_eq!(Element::abs(f16::from_f32(-2.0)).to_f32(), 2.0);
        assert_eq!(Element::relu(-3i32), 0);
        assert_eq!(Element::relu(-3.0f32), 0.0);
        assert_eq!(Accumulate::widen(-5i8), -5i32);
        assert_eq!(Accumulate::widen(f16::from_f32(1.5)), 1.5f32);
    }
}
