//! Float semantics: what every float op means, in the precision of the type.
//!
//! `%` is C's `fmod` (like Rust's, the sign of the dividend); `floor_div` is `floor(a / b)`
//! and `floor_mod` moves `fmod` to the divisor's sign; `min` / `max` ignore a NaN operand (a
//! NaN results only when both are NaN), like Rust's `f32::min`. `f16` / `bf16` compute in
//! `f32` and round the result to their precision.

/// The meaning of the float ops on one Rust float type.
pub trait FloatSem: Copy + PartialOrd {
    /// `a % b`, truncating (`fmod`).
    fn rem(self, rhs: Self) -> Self;
    /// `floor(a / b)`.
    fn floor_div(self, rhs: Self) -> Self;
    /// `a - floor(a / b) * b`, computed exactly from `fmod` (the divisor's sign).
    fn floor_mod(self, rhs: Self) -> Self;
    /// The smaller operand; a NaN operand is ignored.
    fn min(self, rhs: Self) -> Self;
    /// The larger operand; a NaN operand is ignored.
    fn max(self, rhs: Self) -> Self;
    /// `a` to the power `b`.
    fn pow(self, rhs: Self) -> Self;
    /// `max(a, 0)`.
    fn relu(self) -> Self;
    /// `|a|`.
    fn abs(self) -> Self;
    /// `e^a`.
    fn exp(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// `1 / sqrt(a)`.
    fn rsqrt(self) -> Self;
    /// `1 / a`.
    fn recip(self) -> Self;
}

macro_rules! float_sem {
    ($($t:ty: $exp:path, $ln:path);*) => {$(
        impl FloatSem for $t {
            #[inline(always)]
            fn rem(self, rhs: Self) -> Self {
                self % rhs
            }
            #[inline(always)]
            fn floor_div(self, rhs: Self) -> Self {
                (self / rhs).floor()
            }
            #[inline(always)]
            fn floor_mod(self, rhs: Self) -> Self {
                let r = self % rhs;
                if r != 0.0 && ((r < 0.0) != (rhs < 0.0)) { r + rhs } else { r }
            }
            #[inline(always)]
            fn min(self, rhs: Self) -> Self {
                <$t>::min(self, rhs)
            }
            #[inline(always)]
            fn max(self, rhs: Self) -> Self {
                <$t>::max(self, rhs)
            }
            #[inline(always)]
            fn pow(self, rhs: Self) -> Self {
                self.powf(rhs)
            }
            #[inline(always)]
            fn relu(self) -> Self {
                <$t>::max(self, 0.0)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn exp(self) -> Self {
                $exp(self)
            }
            #[inline(always)]
            fn ln(self) -> Self {
                $ln(self)
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
    )*};
}

// `f32` uses the vectorising polynomials, so the runtime's loops over tiles become SIMD code
// and every backend still computes the same bits.
float_sem!(f32: super::exp_f32, super::ln_f32; f64: f64::exp, f64::ln);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rem_truncates_and_floor_mod_takes_the_divisor_sign() {
        assert_eq!(FloatSem::rem(-5.5f32, 2.0), -1.5);
        assert_eq!(FloatSem::floor_mod(-5.5f32, 2.0), 0.5);
        assert_eq!(FloatSem::floor_mod(5.5f64, -2.0), -0.5);
        assert_eq!(FloatSem::floor_div(-7.0f64, 2.0), -4.0);
        assert_eq!(FloatSem::floor_div(-7.0f64, -2.0), 3.0);
    }

    #[test]
    fn min_max_ignore_nan() {
        assert_eq!(FloatSem::max(f32::NAN, 1.0), 1.0);
        assert_eq!(FloatSem::min(2.0f64, f64::NAN), 2.0);
        assert!(FloatSem::max(f32::NAN, f32::NAN).is_nan());
        assert_eq!(FloatSem::relu(-0.5f32), 0.0);
    }
}
