//! Element types of tensors and tiles.
//!
//! [`Element`] is implemented for `f16`, `bf16`, `f32`, `f64`, `i8`..`i64` and `u8`..`u64`.
//! It gives every element the arithmetic the PTO instructions need with *total* semantics, so
//! no instruction can panic or hit undefined behaviour on any input:
//!
//! * integer `add`/`sub`/`mul`/`neg`/`abs` wrap (two's complement), like the vector unit;
//! * integer `div` by zero gives 0 and `rem` by zero gives the dividend (so `a == (a / b) * b +
//!   rem(a, b)` holds for every `b`); `MIN / -1` wraps to `MIN`;
//! * `rem` is Rust's `%` (`TFMOD`, the sign of the dividend); `floor_mod` is PTO's `TREM`: the
//!   remainder takes the sign of the divisor (`a - floor(a / b) * b`);
//! * `f16` / `bf16` compute through `f32` and round the result back (what `half` does).
//!
//! Each of these is the semantics module's definition (`pto_ir::sem`), which the compiler's
//! constant folding and reference interpreter use too.
//!
//! Bitwise and shift instructions need [`Int`]; `exp`, `log`, `sqrt` ... need [`Float`];
//! matrix multiplication widens its inputs through [`Accumulate`]. Conversions between any
//! two element types go through [`Scalar`] (exact for every element value) with a
//! [`RoundMode`]; see [`convert`]. `bool` is not an element: PTO masks are packed `u8` tiles.

use core::any::TypeId;
use core::fmt::Debug;

pub use half::{bf16, f16};

/// How `TCVT` rounds (the one definition, shared with the compiler: `pto_ir::sem`).
pub use pto_ir::sem::RoundMode;
use pto_ir::sem::{FloatSem, IntSem, MatmulStep};

/// A rounding a kernel names: `a.cast_round::<i32>(Round::Nearest)` converts with it
/// (`TCVT` with the [`RoundMode`] of the same name), where `a.cast::<i32>()` truncates like
/// `as`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Round {
    /// To nearest, ties to even (`CAST_RINT`).
    Nearest,
    /// To nearest, ties away from zero (`CAST_ROUND`).
    Away,
    /// Toward negative infinity (`CAST_FLOOR`).
    Floor,
    /// Toward positive infinity (`CAST_CEIL`).
    Ceil,
    /// Toward zero (`CAST_TRUNC`).
    Trunc,
    /// To odd (`CAST_ODD`).
    Odd,
}

impl From<Round> for RoundMode {
    fn from(r: Round) -> RoundMode {
        match r {
            Round::Nearest => RoundMode::CastRint,
            Round::Away => RoundMode::CastRound,
            Round::Floor => RoundMode::CastFloor,
            Round::Ceil => RoundMode::CastCeil,
            Round::Trunc => RoundMode::CastTrunc,
            Round::Odd => RoundMode::CastOdd,
        }
    }
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
pub trait Element: Copy + Default + PartialEq + PartialOrd + Debug + Send + Sync + 'static {
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
    /// The value as `f32` (exact for `f16`, `bf16` and `f32`; nearest otherwise).
    fn to_f32(self) -> f32;
    /// The value, exactly.
    fn to_scalar(self) -> Scalar;
    /// This type from an `f32`, rounded per `mode` (see [`RoundMode`]; integers saturate and
    /// NaN becomes 0).
    fn from_f32_rounded(x: f32, mode: RoundMode) -> Self;
    /// This type from an `f64`, rounded per `mode` (see [`RoundMode`]; integers saturate and
    /// NaN becomes 0).
    fn from_f64_rounded(x: f64, mode: RoundMode) -> Self;
    /// This type from an integer, rounded per `mode` (integers wrap to the width, like `as`; a
    /// float target rounds in the mode's direction when `|i| <= 2^53`, to nearest beyond).
    fn from_i128_rounded(i: i128, mode: RoundMode) -> Self;

    /// The nearest value of this type (saturating for integers, NaN becomes 0).
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        Self::from_f64_rounded(v, RoundMode::CastRint)
    }
    /// Converts an exact value into this type with the given rounding (see [`RoundMode`]).
    #[inline(always)]
    fn from_scalar(v: Scalar, mode: RoundMode) -> Self {
        match v {
            Scalar::Float(x) => Self::from_f64_rounded(x, mode),
            Scalar::Int(i) => Self::from_i128_rounded(i, mode),
        }
    }

    /// `self + rhs` (wrapping for integers).
    fn add(self, rhs: Self) -> Self;
    /// `self - rhs` (wrapping for integers).
    fn sub(self, rhs: Self) -> Self;
    /// `self * rhs` (wrapping for integers).
    fn mul(self, rhs: Self) -> Self;
    /// `self / rhs`; integer division by zero gives 0.
    fn div(self, rhs: Self) -> Self;
    /// Remainder with the sign of the dividend, Rust's `%` (`TFMOD`); integer `rem` by zero
    /// gives `self`.
    fn rem(self, rhs: Self) -> Self;
    /// Remainder with the sign of the divisor (`TREM`); by zero gives `self` for integers.
    fn floor_mod(self, rhs: Self) -> Self;
    /// `self / rhs` rounded toward negative infinity; integer division by zero gives 0.
    fn floor_div(self, rhs: Self) -> Self;
    /// `self` to the power `rhs` (wrapping for integers; a negative integer exponent gives
    /// `1 / self^-rhs` truncated).
    fn pow(self, rhs: Self) -> Self;
    /// The larger of the two (for floats `maximumNumber`: a NaN operand is ignored, `+0` is
    /// above `-0`; see `pto_ir::sem`'s float semantics).
    fn max(self, rhs: Self) -> Self;
    /// The smaller of the two (for floats `minimumNumber`: a NaN operand is ignored, `-0` is
    /// below `+0`).
    fn min(self, rhs: Self) -> Self;
    /// [`max`](Element::max), except that the sign of a zero result is unspecified (for
    /// floats Rust's `max`, `maxnum`: a SIMD max and a NaN fix-up, where `max` also orders
    /// the zeros): the step of a fold that recomputes a zero result by `max`.
    #[inline(always)]
    fn max_any_zero(self, rhs: Self) -> Self {
        self.max(rhs)
    }
    /// [`min`](Element::min) up to the sign of a zero result (see
    /// [`max_any_zero`](Element::max_any_zero)).
    #[inline(always)]
    fn min_any_zero(self, rhs: Self) -> Self {
        self.min(rhs)
    }
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
    type Acc: Element + MatmulStep;
    /// The value, widened exactly into the accumulator type.
    fn widen(self) -> Self::Acc;
    /// `dst[i] = src[i].widen()` for the common length (the half floats convert with SIMD).
    #[inline(always)]
    fn widen_slice(src: &[Self], dst: &mut [Self::Acc]) {
        for (d, &s) in dst.iter_mut().zip(src) {
            *d = s.widen();
        }
    }
    /// `acc + a * b` for two widened values, the matmul step of the semantics module
    /// ([`MatmulStep`]): one fused multiply-add for floats (`f32::mul_add`, an instruction
    /// where the target has FMA, a correctly rounded library call where it does not), a
    /// wrapping multiply and add for integers.
    #[inline(always)]
    fn mul_add_widened(acc: Self::Acc, a: Self::Acc, b: Self::Acc) -> Self::Acc {
        acc.matmul_step(a, b)
    }
    /// The rows themselves when widening is the identity (`f32`, `f64`), so the matmul reads
    /// them in place instead of copying them into packed panels; `None` otherwise.
    #[inline(always)]
    fn as_acc_rows<const K: usize>(rows: &[[Self; K]]) -> Option<&[[Self::Acc; K]]> {
        let _ = rows;
        None
    }
}

/// Converts one element to another type (the per-element rule of `TCVT`; see [`RoundMode`]).
#[inline(always)]
pub fn convert<S: Element, D: Element>(v: S, mode: RoundMode) -> D {
    // Every branch is decided by the types, so it folds away after monomorphisation.
    let small = size_of::<S>() <= 4;
    if S::IS_FLOAT && TypeId::of::<S>() == TypeId::of::<D>() {
        // Same float type: "round only" to an integral value.
        let x = v.to_f64();
        let x = if mode == RoundMode::CastNone {
            x
        } else {
            round_f64(x, mode)
        };
        D::from_f64_rounded(x, RoundMode::CastRint)
    } else if S::IS_FLOAT && small {
        // f16, bf16, f32: exact in f32.
        D::from_f32_rounded(v.to_f32(), mode)
    } else if small && D::IS_FLOAT {
        // Integers of up to 32 bits: exact in f64.
        D::from_f64_rounded(v.to_f64(), mode)
    } else {
        D::from_scalar(v.to_scalar(), mode)
    }
}

/// Rounds `x` to an integral value in the direction `mode` says.
#[inline(always)]
fn round_f64(x: f64, mode: RoundMode) -> f64 {
    mode.to_integral(x)
}

/// Rounds `x` to an integral value in the direction `mode` says.
#[inline(always)]
fn round_f32(x: f32, mode: RoundMode) -> f32 {
    mode.to_integral_f32(x)
}

/// Largest integer magnitude every `f64` holds exactly.
const F64_EXACT_INT: i128 = 1 << 53;

/// A float format wide enough to hold a narrower one exactly (`f32`, `f64`).
trait Wide: Copy + PartialOrd + core::ops::Sub<Output = Self> {
    const ZERO: Self;
    fn is_nan(self) -> bool;
    fn abs(self) -> Self;
}

macro_rules! wide {
    ($t:ty) => {
        impl Wide for $t {
            const ZERO: Self = 0.0;
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
        }
    };
}
wide!(f32);
wide!(f64);

/// Neighbours in a float format.
trait Steps: Copy {
    fn next_up(self) -> Self;
    fn next_down(self) -> Self;
    /// Whether the last significand bit is 1.
    fn is_odd(self) -> bool;
}

/// A float format narrower than `W`.
trait NarrowFrom<W>: Steps {
    /// Round to nearest, ties to even.
    fn nearest(x: W) -> Self;
    /// Exact widening.
    fn wide(self) -> W;
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
        impl Steps for $t {
            fn next_up(self) -> Self {
                <$t>::from_bits(next_up_16(self.to_bits(), $inf))
            }
            fn next_down(self) -> Self {
                -<$t>::from_bits(next_up_16((-self).to_bits(), $inf))
            }
            fn is_odd(self) -> bool {
                self.to_bits() & 1 == 1
            }
        }
        impl NarrowFrom<f64> for $t {
            #[inline(always)]
            fn nearest(x: f64) -> Self {
                <$t>::from_f64(x)
            }
            #[inline(always)]
            fn wide(self) -> f64 {
                <$t>::to_f64(self)
            }
        }
        impl NarrowFrom<f32> for $t {
            #[inline(always)]
            fn nearest(x: f32) -> Self {
                <$t>::from_f32(x)
            }
            #[inline(always)]
            fn wide(self) -> f32 {
                <$t>::to_f32(self)
            }
        }
    };
}
narrow16!(f16, 0x7c00);
narrow16!(bf16, 0x7f80);

impl Steps for f32 {
    fn next_up(self) -> Self {
        f32::next_up(self)
    }
    fn next_down(self) -> Self {
        f32::next_down(self)
    }
    fn is_odd(self) -> bool {
        self.to_bits() & 1 == 1
    }
}

impl NarrowFrom<f64> for f32 {
    #[inline(always)]
    fn nearest(x: f64) -> Self {
        x as f32
    }
    #[inline(always)]
    fn wide(self) -> f64 {
        f64::from(self)
    }
}

/// Rounds `x` to the precision of `F` in the direction `mode` says.
#[inline(always)]
fn narrow<W: Wide, F: NarrowFrom<W>>(x: W, mode: RoundMode) -> F {
    let n = F::nearest(x);
    if matches!(mode, RoundMode::CastRint | RoundMode::CastNone) {
        return n;
    }
    let nf = n.wide();
    if x.is_nan() || nf == x {
        return n;
    }
    // `x` is inexact: `n` is the nearest (ties even); step to the neighbour when the mode
    // wants the other side. An overflow to infinity steps back to the largest finite value.
    match mode {
        RoundMode::CastFloor if nf > x => n.next_down(),
        RoundMode::CastCeil if nf < x => n.next_up(),
        RoundMode::CastTrunc if nf.abs() > x.abs() => {
            if x > W::ZERO {
                n.next_down()
            } else {
                n.next_up()
            }
        }
        RoundMode::CastOdd => {
            // Toward zero, then the odd one of the two neighbours: the one that is not `n`
            // when `n` is even.
            let t = if nf.abs() > x.abs() {
                if x > W::ZERO {
                    n.next_down()
                } else {
                    n.next_up()
                }
            } else {
                n
            };
            if t.is_odd() {
                t
            } else if x > W::ZERO {
                t.next_up()
            } else {
                t.next_down()
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
        _ => n,
    }
}

/// A narrow float from an integer: directed rounding where the integer is exact in `f64`.
#[inline(always)]
fn narrow_from_int<F: NarrowFrom<f64>>(i: i128, mode: RoundMode) -> F {
    if (-F64_EXACT_INT..=F64_EXACT_INT).contains(&i) {
        narrow(i as f64, mode)
    } else {
        F::nearest(i as f64)
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
        fn to_f32(self) -> f32 {
            self as f32
        }
        #[inline(always)]
        fn to_scalar(self) -> Scalar {
            Scalar::Int(i128::from(self))
        }
        #[inline(always)]
        fn from_f32_rounded(x: f32, mode: RoundMode) -> Self {
            // `as` saturates and maps NaN to 0.
            round_f32(x, mode.for_int()) as $t
        }
        #[inline(always)]
        fn from_f64_rounded(x: f64, mode: RoundMode) -> Self {
            round_f64(x, mode.for_int()) as $t
        }
        #[inline(always)]
        fn from_i128_rounded(i: i128, _mode: RoundMode) -> Self {
            // Integer to integer wraps (two's complement), like `as`.
            i as $t
        }
        #[inline(always)]
        fn add(self, rhs: Self) -> Self {
            IntSem::add(self, rhs)
        }
        #[inline(always)]
        fn sub(self, rhs: Self) -> Self {
            IntSem::sub(self, rhs)
        }
        #[inline(always)]
        fn mul(self, rhs: Self) -> Self {
            IntSem::mul(self, rhs)
        }
        #[inline(always)]
        fn div(self, rhs: Self) -> Self {
            IntSem::div(self, rhs)
        }
        #[inline(always)]
        fn rem(self, rhs: Self) -> Self {
            IntSem::rem(self, rhs)
        }
        #[inline(always)]
        fn floor_mod(self, rhs: Self) -> Self {
            IntSem::floor_mod(self, rhs)
        }
        #[inline(always)]
        fn floor_div(self, rhs: Self) -> Self {
            IntSem::floor_div(self, rhs)
        }
        #[inline(always)]
        fn pow(self, rhs: Self) -> Self {
            IntSem::pow(self, rhs)
        }
        #[inline(always)]
        fn abs(self) -> Self {
            IntSem::abs(self)
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
            IntSem::neg(self)
        }
    };
}

macro_rules! int_impl {
    ($t:ty, $name:literal, $acc:ty) => {
        impl Element for $t {
            int_common!($t, $name);
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
                IntSem::shl(self, amount)
            }
            #[inline(always)]
            fn shr(self, amount: Self) -> Self {
                IntSem::shr(self, amount)
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
}

int_impl!(i8, "int8", i32);
int_impl!(i16, "int16", i32);
int_impl!(i32, "int32", i32);
int_impl!(i64, "int64", i64);
int_impl!(u8, "uint8", u32);
int_impl!(u16, "uint16", u32);
int_impl!(u32, "uint32", u32);
int_impl!(u64, "uint64", u64);

macro_rules! native_float_impl {
    ($t:ty, $name:literal, $from32:expr, $from64:expr, $fromint:expr) => {
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
            fn to_f32(self) -> f32 {
                self as f32
            }
            #[inline(always)]
            fn to_scalar(self) -> Scalar {
                Scalar::Float(self as f64)
            }
            #[inline(always)]
            fn from_f32_rounded(x: f32, mode: RoundMode) -> Self {
                let f: fn(f32, RoundMode) -> $t = $from32;
                f(x, mode)
            }
            #[inline(always)]
            fn from_f64_rounded(x: f64, mode: RoundMode) -> Self {
                let f: fn(f64, RoundMode) -> $t = $from64;
                f(x, mode)
            }
            #[inline(always)]
            fn from_i128_rounded(i: i128, mode: RoundMode) -> Self {
                let f: fn(i128, RoundMode) -> $t = $fromint;
                f(i, mode)
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
                FloatSem::rem(self, rhs)
            }
            #[inline(always)]
            fn floor_mod(self, rhs: Self) -> Self {
                FloatSem::floor_mod(self, rhs)
            }
            #[inline(always)]
            fn floor_div(self, rhs: Self) -> Self {
                FloatSem::floor_div(self, rhs)
            }
            #[inline(always)]
            fn pow(self, rhs: Self) -> Self {
                FloatSem::pow(self, rhs)
            }
            #[inline(always)]
            fn max(self, rhs: Self) -> Self {
                FloatSem::max(self, rhs)
            }
            #[inline(always)]
            fn min(self, rhs: Self) -> Self {
                FloatSem::min(self, rhs)
            }
            #[inline(always)]
            fn relu(self) -> Self {
                FloatSem::relu(self)
            }
            #[inline(always)]
            fn max_any_zero(self, rhs: Self) -> Self {
                <$t>::max(self, rhs)
            }
            #[inline(always)]
            fn min_any_zero(self, rhs: Self) -> Self {
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
                FloatSem::exp(self)
            }
            #[inline(always)]
            fn ln(self) -> Self {
                FloatSem::ln(self)
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                FloatSem::sqrt(self)
            }
            #[inline(always)]
            fn rsqrt(self) -> Self {
                FloatSem::rsqrt(self)
            }
            #[inline(always)]
            fn recip(self) -> Self {
                FloatSem::recip(self)
            }
        }
    };
}

native_float_impl!(
    f32,
    "fp32",
    |x, _| x,
    narrow::<f64, f32>,
    narrow_from_int::<f32>
);
native_float_impl!(f64, "fp64", |x, _| f64::from(x), |x, _| x, |i, _| i as f64);

impl Accumulate for f32 {
    type Acc = f32;
    #[inline(always)]
    fn widen(self) -> f32 {
        self
    }
    #[inline(always)]
    fn as_acc_rows<const K: usize>(rows: &[[f32; K]]) -> Option<&[[f32; K]]> {
        Some(rows)
    }
}

impl Accumulate for f64 {
    type Acc = f64;
    #[inline(always)]
    fn widen(self) -> f64 {
        self
    }
    #[inline(always)]
    fn as_acc_rows<const K: usize>(rows: &[[f64; K]]) -> Option<&[[f64; K]]> {
        Some(rows)
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
            fn to_f32(self) -> f32 {
                <$t>::to_f32(self)
            }
            #[inline(always)]
            fn to_scalar(self) -> Scalar {
                Scalar::Float(<$t>::to_f64(self))
            }
            #[inline(always)]
            fn from_f32_rounded(x: f32, mode: RoundMode) -> Self {
                narrow::<f32, $t>(x, mode)
            }
            #[inline(always)]
            fn from_f64_rounded(x: f64, mode: RoundMode) -> Self {
                narrow::<f64, $t>(x, mode)
            }
            #[inline(always)]
            fn from_i128_rounded(i: i128, mode: RoundMode) -> Self {
                narrow_from_int::<$t>(i, mode)
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
                <$t>::from_f32(FloatSem::rem(self.to_f32(), rhs.to_f32()))
            }
            #[inline(always)]
            fn floor_mod(self, rhs: Self) -> Self {
                <$t>::from_f32(FloatSem::floor_mod(self.to_f32(), rhs.to_f32()))
            }
            #[inline(always)]
            fn floor_div(self, rhs: Self) -> Self {
                <$t>::from_f32(FloatSem::floor_div(self.to_f32(), rhs.to_f32()))
            }
            #[inline(always)]
            fn pow(self, rhs: Self) -> Self {
                <$t>::from_f32(FloatSem::pow(self.to_f32(), rhs.to_f32()))
            }
            // The result is one of the operands, so the round trip through f32 is exact.
            #[inline(always)]
            fn max(self, rhs: Self) -> Self {
                <$t>::from_f32(FloatSem::max(self.to_f32(), rhs.to_f32()))
            }
            #[inline(always)]
            fn min(self, rhs: Self) -> Self {
                <$t>::from_f32(FloatSem::min(self.to_f32(), rhs.to_f32()))
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
                <$t>::from_f32(FloatSem::exp(self.to_f32()))
            }
            #[inline(always)]
            fn ln(self) -> Self {
                <$t>::from_f32(FloatSem::ln(self.to_f32()))
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::from_f32(FloatSem::sqrt(self.to_f32()))
            }
            #[inline(always)]
            fn rsqrt(self) -> Self {
                <$t>::from_f32(FloatSem::rsqrt(self.to_f32()))
            }
            #[inline(always)]
            fn recip(self) -> Self {
                <$t>::from_f32(FloatSem::recip(self.to_f32()))
            }
        }
        impl Accumulate for $t {
            type Acc = f32;
            #[inline(always)]
            fn widen(self) -> f32 {
                self.to_f32()
            }
            #[inline(always)]
            fn widen_slice(src: &[Self], dst: &mut [f32]) {
                let n = src.len().min(dst.len());
                half::slice::HalfFloatSliceExt::convert_to_f32_slice(&src[..n], &mut dst[..n]);
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

    const MODES: [RoundMode; 6] = [
        CastRint, CastRound, CastFloor, CastCeil, CastTrunc, CastNone,
    ];

    fn to_i32(x: f32, m: RoundMode) -> i32 {
        convert::<f32, i32>(x, m)
    }

    #[test]
    fn float_to_int_every_mode_on_ties_and_negatives() {
        // (input, [rint, round, floor, ceil, trunc, none]); `none` truncates like `as`.
        let cases: [(f32, [i32; 6]); 8] = [
            (2.5, [2, 3, 2, 3, 2, 2]),
            (3.5, [4, 4, 3, 4, 3, 3]),
            (-2.5, [-2, -3, -3, -2, -2, -2]),
            (-3.5, [-4, -4, -4, -3, -3, -3]),
            (0.5, [0, 1, 0, 1, 0, 0]),
            (-0.5, [0, -1, -1, 0, 0, 0]),
            (1.25, [1, 1, 1, 2, 1, 1]),
            (-1.75, [-2, -2, -2, -1, -1, -1]),
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
    fn int_to_int_wraps() {
        assert_eq!(convert::<i32, i16>(70000, CastNone), 4464);
        assert_eq!(convert::<i32, u8>(-5, CastNone), 251);
        assert_eq!(convert::<u64, i64>(u64::MAX, CastNone), -1);
        assert_eq!(convert::<i64, i32>(-7, CastNone), -7);
        assert_eq!(convert::<u8, i8>(200, CastRint), -56);
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
        assert_eq!(
            convert::<f16, f32>(f16::from_f32(0.1), CastFloor),
            f16::from_f32(0.1).to_f32()
        );
        // bf16 directed.
        assert_eq!(convert::<f32, bf16>(1.001, CastCeil).to_f32(), 1.0078125);
        assert_eq!(convert::<f32, bf16>(1.001, CastFloor).to_f32(), 1.0);
    }

    #[test]
    fn round_names_match_the_compiler() {
        for r in [
            Round::Nearest,
            Round::Away,
            Round::Floor,
            Round::Ceil,
            Round::Trunc,
            Round::Odd,
        ] {
            assert_eq!(
                RoundMode::from_surface(&format!("{r:?}")),
                Some(RoundMode::from(r))
            );
        }
    }

    #[test]
    fn round_to_odd_narrows() {
        // 1 + 2^-11 lies between f16 1.0 (even) and 1 + 2^-10 (odd): odd picks the latter.
        let x = 1.0f32 + 2f32.powi(-11);
        assert_eq!(
            convert::<f32, f16>(x, CastOdd).to_f64(),
            1.0 + 2f64.powi(-10)
        );
        assert_eq!(
            convert::<f32, f16>(-x, CastOdd).to_f64(),
            -(1.0 + 2f64.powi(-10))
        );
        assert_eq!(convert::<f32, f16>(1.0, CastOdd).to_f64(), 1.0);
        assert_eq!(convert::<f32, i32>(2.2, CastOdd), 3);
        assert_eq!(convert::<f32, i32>(3.7, CastOdd), 3);
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
        assert_eq!(Element::rem(-7i32, 3), -1);
        assert_eq!(Element::rem(7i32, -3), 1);
        assert_eq!(Element::floor_mod(-7i32, 3), 2);
        assert_eq!(Element::floor_mod(7i32, -3), -2);
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
    fn float_rem_truncates_and_floor_mod_takes_divisor_sign() {
        assert_eq!(Element::rem(-5.5f32, 2.0), -1.5);
        assert_eq!(Element::floor_mod(5.5f32, 2.0), 1.5);
        assert_eq!(Element::floor_mod(-5.5f32, 2.0), 0.5);
        assert_eq!(Element::floor_mod(5.5f32, -2.0), -0.5);
        assert_eq!(
            Element::floor_mod(f16::from_f32(-1.0), f16::from_f32(4.0)).to_f32(),
            3.0
        );
        assert_eq!(
            Element::rem(f16::from_f32(-1.0), f16::from_f32(4.0)).to_f32(),
            -1.0
        );
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
