//! Float semantics: what every float op means, in the precision of the type.
//!
//! `f16` / `bf16` compute in `f32` and round the result to their precision (to nearest).
//!
//! **`%` and `floor_mod`** are the NPU's sequences, not the exact remainder: `a % b` is
//! `a - trunc(a / b) * b` and `floor_mod` is `r = a - floor(a / b) * b`, then `r + b` where
//! `r * b < 0`, each step rounded in the type (no fused multiply-add). That is what pto-isa's
//! `TFMOD` (`npu/a2a3/TFmod.hpp`: `vdiv`, `vconv_f322f32z`, `vmul`, `vsub`; `npu/a5/TFMod.hpp`'s
//! default algorithm: the same four with `vtrc`) and `TREM` (`npu/a2a3/TRem.hpp`, `npu/a5/TRem.hpp`
//! default: `vconv_f322f32f` / `vtrc(ROUND_F)`, then the multiply, compare and select of the
//! sign fix) compute on fp32 on both targets, and A2A3 has no other fp32 algorithm, so every
//! backend can reproduce it. It differs from C's `fmod` where `a / b` rounds to or across an
//! integer (`0.3 % 0.1` is `0`, not `2^-27`, in fp32) and where the quotient is beyond 2^24, and
//! `a % inf` is NaN (`fmod` gives `a`). `floor_div` is `floor(a / b)`, the quotient `floor_mod`
//! uses.
//!
//! **`min` / `max`** are IEEE 754-2019's `minimumNumber` / `maximumNumber` (C23's
//! `fminimum_num` / `fmaximum_num`): a NaN operand is ignored (a NaN results only when both
//! are NaN), and `-0` counts as less than `+0`, so `max(+0, -0)` and `max(-0, +0)` are `+0`,
//! `min` of the two is `-0`. Why these: with zeros ordered the operation is commutative and
//! associative on every non-NaN value, so a row or column maximum is one value whatever the
//! order of the fold; the runtime's 16-lane and pairwise folds, the interpreter's left to
//! right fold and the C++ give the same bits by definition rather than by how the code is
//! compiled (Rust's `f32::max`, C's `fmax` and x86's `maxps` may return either zero). Ignoring
//! a NaN is what the previous definition, Rust's `f32::max` and C's `fmax` do, and keeps a
//! row maximum of data with a hole (a NaN) usable; pto-isa's CPU simulation uses `std::max`
//! (the first operand on a tie or a NaN first operand) and its headers do not state the
//! NPU's `vmax` on zeros or NaN, so there is no target rule to follow. `relu(x)` is
//! `max(x, 0)`: `+0` for both zeros and for NaN.
//!
//! **NaN results** have an unspecified sign and payload: an op whose result is NaN may give
//! any NaN (`inf - inf`, `0 * inf`, `NaN + 1`, `max(NaN, NaN)`), and two backends, or one
//! compiled differently, may give different NaN bits (x86 returns the first operand's NaN of
//! an addition, and LLVM may swap the operands), so tests compare NaN results as "both NaN".
//! Every other result, zeros' signs included, is exact.

/// The meaning of the float ops on one Rust float type.
pub trait FloatSem: Copy + PartialOrd {
    /// `a % b`: `a - trunc(a / b) * b`, each step rounded (the module doc).
    fn rem(self, rhs: Self) -> Self;
    /// `floor(a / b)`.
    fn floor_div(self, rhs: Self) -> Self;
    /// `r = a - floor(a / b) * b`, then `r + b` where `r * b < 0` (the divisor's sign), each
    /// step rounded (the module doc).
    fn floor_mod(self, rhs: Self) -> Self;
    /// The smaller operand, `-0` below `+0`; a NaN operand is ignored (`minimumNumber`).
    fn min(self, rhs: Self) -> Self;
    /// The larger operand, `+0` above `-0`; a NaN operand is ignored (`maximumNumber`).
    fn max(self, rhs: Self) -> Self;
    /// `a` to the power `b`.
    fn pow(self, rhs: Self) -> Self;
    /// `max(a, 0)`: `a` when it is above zero, else `+0` (also for `-0` and NaN).
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
                let q = (self / rhs).trunc();
                self - q * rhs
            }
            #[inline(always)]
            fn floor_div(self, rhs: Self) -> Self {
                (self / rhs).floor()
            }
            #[inline(always)]
            fn floor_mod(self, rhs: Self) -> Self {
                let q = (self / rhs).floor();
                let r = self - q * rhs;
                if r * rhs < 0.0 { r + rhs } else { r }
            }
            // Equal operands have the same bits except for `+0` / `-0`, where the and of
            // the bits clears the sign unless both have it (the or sets it if either has);
            // unequal ones are `maxnum` / `minnum`'s (Rust's `max` / `min`), whose only
            // freedom is that zero sign. Both arms are computed values, never an operand
            // as it was loaded: `d = max(d, x)` with `d` returned unchanged on one path
            // becomes a conditional store, which the vectoriser emits as masked stores
            // (`vmaskmovps`, 2x slower column maxima).
            #[inline(always)]
            fn min(self, rhs: Self) -> Self {
                if self == rhs {
                    <$t>::from_bits(self.to_bits() | rhs.to_bits())
                } else {
                    <$t>::min(self, rhs)
                }
            }
            #[inline(always)]
            fn max(self, rhs: Self) -> Self {
                if self == rhs {
                    <$t>::from_bits(self.to_bits() & rhs.to_bits())
                } else {
                    <$t>::max(self, rhs)
                }
            }
            #[inline(always)]
            fn pow(self, rhs: Self) -> Self {
                self.powf(rhs)
            }
            #[inline(always)]
            fn relu(self) -> Self {
                // `maxnum(x, 0)` is `x` above zero and a zero otherwise (NaN too); `abs`
                // makes that zero `+0`.
                <$t>::max(self, 0.0).abs()
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
    fn rem_and_floor_mod_are_the_npu_sequences() {
        // 0.3f is 3 * 0.1f + 2^-27 exactly (C's fmod), but the product 3 * 0.1f rounds to
        // 0.3f: the remainder is 0.
        assert_eq!(FloatSem::rem(0.3f32, 0.1), 0.0);
        assert_eq!(FloatSem::floor_mod(0.3f32, 0.1), 0.0);
        assert_eq!(0.3f32 % 0.1, 2f32.powi(-27));
        // Exact where the quotient is exact.
        assert_eq!(FloatSem::rem(7.25f32, -2.0), 1.25);
        assert_eq!(FloatSem::floor_mod(7.25f32, -2.0), -0.75);
        assert_eq!(FloatSem::floor_mod(-0.5f32, 3.0), 2.5);
        // A zero remainder keeps the sign the subtraction gives: +0, never moved by `+ b`.
        assert_eq!(
            FloatSem::floor_mod(-4.0f32, 2.0).to_bits(),
            0.0f32.to_bits()
        );
        assert_eq!(FloatSem::rem(-4.0f32, 2.0).to_bits(), 0.0f32.to_bits());
        // -tiny / 4 underflows to -0, so r = -tiny and the sign fix gives 4 - tiny = 4.
        let tiny = f32::from_bits(1);
        assert_eq!(FloatSem::floor_mod(-tiny, 4.0), 4.0);
        // Division by zero and infinite operands give NaN.
        assert!(FloatSem::rem(1.0f32, 0.0).is_nan());
        assert!(FloatSem::floor_mod(1.0f32, f32::INFINITY).is_nan());
        assert!(FloatSem::rem(f64::INFINITY, 2.0).is_nan());
    }

    #[test]
    fn min_max_ignore_nan() {
        assert_eq!(FloatSem::max(f32::NAN, 1.0), 1.0);
        assert_eq!(FloatSem::max(1.0f32, f32::NAN), 1.0);
        assert_eq!(FloatSem::min(2.0f64, f64::NAN), 2.0);
        assert_eq!(FloatSem::min(f64::NAN, 2.0f64), 2.0);
        assert!(FloatSem::max(f32::NAN, f32::NAN).is_nan());
        assert!(FloatSem::min(f64::NAN, -f64::NAN).is_nan());
        assert_eq!(FloatSem::relu(-0.5f32), 0.0);
    }

    #[test]
    fn zeros_are_ordered_in_both_operand_orders() {
        let (p, n) = (0.0f32, -0.0f32);
        for (a, b) in [(p, n), (n, p)] {
            assert_eq!(
                FloatSem::max(a, b).to_bits(),
                p.to_bits(),
                "max({a:?}, {b:?})"
            );
            assert_eq!(
                FloatSem::min(a, b).to_bits(),
                n.to_bits(),
                "min({a:?}, {b:?})"
            );
            let (a, b) = (f64::from(a), f64::from(b));
            assert_eq!(FloatSem::max(a, b).to_bits(), 0.0f64.to_bits());
            assert_eq!(FloatSem::min(a, b).to_bits(), (-0.0f64).to_bits());
        }
        for z in [p, n] {
            assert_eq!(FloatSem::max(z, z).to_bits(), z.to_bits());
            assert_eq!(FloatSem::min(z, z).to_bits(), z.to_bits());
            assert_eq!(FloatSem::relu(z).to_bits(), p.to_bits());
        }
        assert_eq!(FloatSem::relu(f32::NAN).to_bits(), p.to_bits());
    }

    /// Values where the order of a fold could show: both zeros, NaN of both signs,
    /// infinities, equal non-zero values, subnormals, the extremes.
    const SPECIAL: [f32; 12] = [
        0.0,
        -0.0,
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.5,
        -1.5,
        f32::MIN_POSITIVE / 4.0,
        -f32::MIN_POSITIVE / 4.0,
        f32::MAX,
        f32::MIN,
    ];

    /// Bits, with every NaN the same (a NaN result's bits are unspecified).
    fn key(x: f32) -> u32 {
        if x.is_nan() { u32::MAX } else { x.to_bits() }
    }

    #[test]
    fn min_max_are_commutative_and_associative_and_relu_is_max_with_zero() {
        type Op = fn(f32, f32) -> f32;
        for (name, op) in [("max", FloatSem::max as Op), ("min", FloatSem::min as Op)] {
            for a in SPECIAL {
                for b in SPECIAL {
                    let ab = op(a, b);
                    assert_eq!(key(ab), key(op(b, a)), "{name}({a:?}, {b:?})");
                    // One of the operands, NaN only when both are.
                    assert!(
                        key(ab) == key(a) || key(ab) == key(b),
                        "{name}({a:?}, {b:?}) = {ab:?}"
                    );
                    assert_eq!(ab.is_nan(), a.is_nan() && b.is_nan());
                    for c in SPECIAL {
                        assert_eq!(
                            key(op(ab, c)),
                            key(op(a, op(b, c))),
                            "{name} of {a:?}, {b:?}, {c:?}"
                        );
                    }
                }
            }
        }
        for x in SPECIAL {
            assert_eq!(FloatSem::relu(x).to_bits(), FloatSem::max(x, 0.0).to_bits());
            assert_eq!(
                FloatSem::relu(f64::from(x)).to_bits(),
                FloatSem::max(f64::from(x), 0.0).to_bits()
            );
        }
    }
}
