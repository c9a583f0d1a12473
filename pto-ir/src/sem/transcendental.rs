//! Branch-free `f32` `exp` and `ln` that the compiler vectorises.
//!
//! std's `f32::exp` / `f32::ln` are calls into the C library, one element at a time, so a loop
//! over a tile row cannot use SIMD. These are straight-line code (range reduction, a
//! polynomial, a power-of-two scaling; selects instead of branches for the special cases), so
//! a loop over them becomes vector code. They are the meaning of `TEXP` / `TLOG` on `f32`
//! ([`super::FloatSem`]), so constant folding, the interpreter and the runtime give the same bits.
//!
//! Accuracy, checked over every `f32` input (the `#[ignore]`d `*_all_inputs` tests, ~1 min in
//! release) and over 2^24 evenly spread bit patterns in CI (the `*_sweep` tests): at most
//! **1 ulp** from the correctly rounded result (the `f64` function rounded to `f32`), and at
//! most **2 ulp** from std's `f32::exp` / `f32::ln`.
//! Special values follow std: `exp(NaN) = NaN`, `exp(+inf) = +inf`, `exp(-inf) = 0`,
//! overflow to `+inf` above 88.72, gradual underflow to subnormals and 0; `ln(x < 0) = NaN`,
//! `ln(±0) = -inf`, `ln(+inf) = +inf`, `ln(NaN) = NaN`, subnormal inputs exact in range.
//! No fused multiply-add is used, so every build (with or without FMA) gives the same bits.

/// `2^n` for `n` in `-126..=127`, built from its exponent bits.
#[inline(always)]
fn pow2i(n: i32) -> f32 {
    f32::from_bits(((n + 127) as u32) << 23)
}

/// `e^x` to within 1 ulp (see the module doc).
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    // ln 2 split so that n * LN2_HI is exact for |n| <= 2^8.
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Adding 1.5 * 2^23 rounds to an integer (ties to even) and leaves it in the low bits.
    const SHIFTER: f32 = 12_582_912.0;
    // Outside [-104, 89] the result is 0 or +inf; clamping keeps n in -150..=129. A NaN
    // fails both tests and runs through as NaN.
    let xc = x.clamp(-104.0, 89.0);
    let t = xc * LOG2E + SHIFTER;
    let n = (t.to_bits() as i32).wrapping_sub(SHIFTER.to_bits() as i32);
    let nf = t - SHIFTER;
    let r = (xc - nf * LN2_HI) - nf * LN2_LO;
    // e^r on |r| <= 0.35: 1 + r + r^2 * p(r), a minimax polynomial.
    let p = 1.987_569_1e-4_f32;
    let p = p * r + 1.398_199_9e-3;
    let p = p * r + 8.333_452e-3;
    let p = p * r + 4.166_579_6e-2;
    let p = p * r + 1.666_666_5e-1;
    let p = p * r + 0.5;
    let y = 1.0 + (r + (r * r) * p);
    // y * 2^n in two exact steps, so a subnormal result is rounded once and n = 128 still
    // reaches the finite values just below 2^128.
    let n1 = n >> 1;
    let n2 = n - n1;
    // For a NaN input, n is garbage but in range; y is NaN.
    let (n1, n2) = (n1.clamp(-126, 127), n2.clamp(-126, 127));
    y * pow2i(n1) * pow2i(n2)
}

/// `ln x` to within 1 ulp (see the module doc).
#[inline(always)]
pub fn ln_f32(x: f32) -> f32 {
    // ln 2 split so that e * LN2_HI is exact for |e| <= 2^8.
    const LN2_HI: f32 = 6.931_381e-1;
    const LN2_LO: f32 = 9.058_001e-6;
    const SQRT_HALF_BITS: i32 = 0x3f35_04f3;
    // Scale subnormals into the normal range first (2^25 is exact).
    let sub = x < f32::MIN_POSITIVE;
    let xs = if sub { x * 33_554_432.0 } else { x };
    // xs = 2^e * m with m in [sqrt(1/2), sqrt(2)): e and m from the bits, offset by sqrt(1/2).
    let adj = (xs.to_bits() as i32).wrapping_sub(SQRT_HALF_BITS);
    let e = (adj >> 23) - if sub { 25 } else { 0 };
    let m = f32::from_bits((adj & 0x007f_ffff).wrapping_add(SQRT_HALF_BITS) as u32);
    // ln m = ln(1 + f) = 2 atanh(s) with s = f / (2 + f), |s| <= 0.1716:
    // f - f^2/2 + s (f^2/2 + R(s^2)), R a minimax polynomial.
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let r = 2.427_907_9e-1_f32;
    let r = r * z + 2.849_878_7e-1;
    let r = r * z + 4.000_097_2e-1;
    let r = r * z + 6.666_666e-1;
    let r = r * z;
    let hfsq = 0.5 * f * f;
    let ef = e as f32;
    let y = (((s * (hfsq + r)) + ef * LN2_LO) - hfsq + f) + ef * LN2_HI;
    // Special cases as selects: NaN and negatives -> NaN, 0 -> -inf, +inf -> +inf.
    if x.is_nan() || x < 0.0 {
        f32::NAN
    } else if x == 0.0 {
        f32::NEG_INFINITY
    } else if x == f32::INFINITY {
        f32::INFINITY
    } else {
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in ulps between two floats of the same sign class (NaNs must match).
    fn ulps(a: f32, b: f32) -> u32 {
        if a.is_nan() || b.is_nan() {
            return if a.is_nan() && b.is_nan() {
                0
            } else {
                u32::MAX
            };
        }
        let key = |x: f32| {
            let b = x.to_bits() as i32;
            if b < 0 {
                i32::MIN.wrapping_sub(b) as i64
            } else {
                b as i64
            }
        };
        (key(a) - key(b)).unsigned_abs().min(u64::from(u32::MAX)) as u32
    }

    /// Worst error of `f` over the bit patterns `start, start + step, ...` (wrapping), against
    /// the correctly rounded `f64` function and against std's `f32` function.
    fn worst(
        f: fn(f32) -> f32,
        exact: fn(f64) -> f64,
        std_f32: fn(f32) -> f32,
        step: u32,
    ) -> (u32, u32, f32) {
        let (mut vs_exact, mut vs_std, mut at) = (0, 0, 0.0);
        let mut bits = 0u32;
        loop {
            let x = f32::from_bits(bits);
            let got = f(x);
            let e = ulps(got, exact(f64::from(x)) as f32);
            if e > vs_exact {
                (vs_exact, at) = (e, x);
            }
            vs_std = vs_std.max(ulps(got, std_f32(x)));
            match bits.checked_add(step) {
                Some(b) => bits = b,
                None => break,
            }
        }
        (vs_exact, vs_std, at)
    }

    #[test]
    fn exp_special_values() {
        assert!(exp_f32(f32::NAN).is_nan());
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(exp_f32(-0.0), 1.0);
        assert_eq!(exp_f32(88.8), f32::INFINITY);
        assert_eq!(exp_f32(-104.0), 0.0);
        // The largest finite result and the smallest subnormal one.
        assert_eq!(exp_f32(88.722_83), 88.722_83f32.exp());
        assert_eq!(exp_f32(-103.27), (-103.27f32).exp());
        assert!(exp_f32(-103.27) > 0.0 && exp_f32(-103.27) < f32::MIN_POSITIVE);
    }

    #[test]
    fn ln_special_values() {
        assert!(ln_f32(f32::NAN).is_nan());
        assert!(ln_f32(-1.0).is_nan());
        assert!(ln_f32(f32::NEG_INFINITY).is_nan());
        assert_eq!(ln_f32(0.0), f32::NEG_INFINITY);
        assert_eq!(ln_f32(-0.0), f32::NEG_INFINITY);
        assert_eq!(ln_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(ln_f32(1.0), 0.0);
        let tiny = f32::from_bits(1);
        assert_eq!(ln_f32(tiny), tiny.ln());
        assert_eq!(ln_f32(f32::MAX), f32::MAX.ln());
    }

    /// 2^24 inputs spread over all bit patterns (step 2^8 + 1 so that every exponent and the
    /// low mantissa bits vary), incl. both zeros' neighbourhoods, subnormals, inf and NaN.
    const SWEEP_STEP: u32 = 257;

    #[test]
    fn exp_sweep() {
        let (vs_exact, vs_std, at) = worst(exp_f32, f64::exp, f32::exp, SWEEP_STEP);
        assert!(vs_exact <= 1, "exp: {vs_exact} ulp from exact at {at:e}");
        assert!(vs_std <= 2, "exp: {vs_std} ulp from std");
    }

    #[test]
    fn ln_sweep() {
        let (vs_exact, vs_std, at) = worst(ln_f32, f64::ln, f32::ln, SWEEP_STEP);
        assert!(vs_exact <= 1, "ln: {vs_exact} ulp from exact at {at:e}");
        assert!(vs_std <= 2, "ln: {vs_std} ulp from std");
    }

    /// Every `f32` input: `cargo test --release -p pto-ir --lib transcendental -- --ignored`.
    #[test]
    #[ignore = "2^32 inputs: run in release"]
    fn exp_all_inputs() {
        let (vs_exact, vs_std, at) = worst(exp_f32, f64::exp, f32::exp, 1);
        assert!(vs_exact <= 1, "exp: {vs_exact} ulp from exact at {at:e}");
        assert!(vs_std <= 2, "exp: {vs_std} ulp from std");
    }

    /// Every `f32` input: `cargo test --release -p pto-ir --lib transcendental -- --ignored`.
    #[test]
    #[ignore = "2^32 inputs: run in release"]
    fn ln_all_inputs() {
        let (vs_exact, vs_std, at) = worst(ln_f32, f64::ln, f32::ln, 1);
        assert!(vs_exact <= 1, "ln: {vs_exact} ulp from exact at {at:e}");
        assert!(vs_std <= 2, "ln: {vs_std} ulp from std");
    }
}
