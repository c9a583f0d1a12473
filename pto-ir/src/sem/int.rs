//! Integer semantics: what every integer op means on every integer width.
//!
//! Everything is total, so no backend can panic or hit undefined behaviour: arithmetic wraps
//! (two's complement); `/` and `%` truncate toward zero like Rust's, with `x / 0 == 0` and
//! `x % 0 == x` (so `a == (a / b) * b + a % b` holds for every `b`) and `MIN / -1 == MIN`;
//! `floor_div` / `floor_mod` round toward negative infinity (the remainder takes the divisor's
//! sign) with the same zero rule; a shift by an amount outside `0..BITS` shifts every bit out
//! (0, or -1 for a right shift of a negative value); `pow` with a negative exponent is
//! `1 / a^-n` truncated.

/// The meaning of the integer ops on one Rust integer type.
pub trait IntSem: Copy + Ord {
    /// `a + b`, wrapping.
    fn add(self, rhs: Self) -> Self;
    /// `a - b`, wrapping.
    fn sub(self, rhs: Self) -> Self;
    /// `a * b`, wrapping.
    fn mul(self, rhs: Self) -> Self;
    /// `a / b` truncated toward zero; 0 when `b == 0`.
    fn div(self, rhs: Self) -> Self;
    /// `a % b` (sign of `a`); `a` when `b == 0`.
    fn rem(self, rhs: Self) -> Self;
    /// `a / b` rounded toward negative infinity; 0 when `b == 0`.
    fn floor_div(self, rhs: Self) -> Self;
    /// `a - floor_div(a, b) * b` (sign of `b`); `a` when `b == 0`.
    fn floor_mod(self, rhs: Self) -> Self;
    /// `a` to the power `b`, wrapping.
    fn pow(self, rhs: Self) -> Self;
    /// `a << b`; 0 when `b` is outside `0..BITS`.
    fn shl(self, rhs: Self) -> Self;
    /// `a >> b` (arithmetic for signed types); the sign fill when `b` is outside `0..BITS`.
    fn shr(self, rhs: Self) -> Self;
    /// `-a`, wrapping (`0 - a` for unsigned types).
    fn neg(self) -> Self;
    /// `|a|`, wrapping (`MIN` stays `MIN`); the identity for unsigned types.
    fn abs(self) -> Self;
}

macro_rules! int_sem {
    ($abs:ident: $($t:ty),*) => {$(
        impl IntSem for $t {
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
            fn rem(self, rhs: Self) -> Self {
                if rhs == 0 { self } else { self.wrapping_rem(rhs) }
            }
            #[inline(always)]
            fn floor_div(self, rhs: Self) -> Self {
                if rhs == 0 {
                    return 0;
                }
                let (q, r) = (self.wrapping_div(rhs), self.wrapping_rem(rhs));
                #[allow(unused_comparisons)]
                if r != 0 && ((r < 0) != (rhs < 0)) { q.wrapping_sub(1) } else { q }
            }
            #[inline(always)]
            fn floor_mod(self, rhs: Self) -> Self {
                if rhs == 0 {
                    return self;
                }
                let r = self.wrapping_rem(rhs);
                #[allow(unused_comparisons)]
                if r != 0 && ((r < 0) != (rhs < 0)) { r.wrapping_add(rhs) } else { r }
            }
            #[inline(always)]
            fn pow(self, rhs: Self) -> Self {
                #[allow(unused_comparisons)]
                if rhs < 0 {
                    // 1 / a^n, truncated: only 1 and -1 have a non-zero result.
                    return match i128::try_from(self) {
                        Ok(1) => 1,
                        Ok(-1) if rhs % 2 == 0 => 1,
                        Ok(-1) => self,
                        _ => 0,
                    };
                }
                // Square and multiply over the exponent's bits (it may exceed u32).
                let (mut acc, mut base, mut e): (Self, Self, u128) = (1, self, rhs as u128);
                while e > 0 {
                    if e & 1 == 1 {
                        acc = acc.wrapping_mul(base);
                    }
                    base = base.wrapping_mul(base);
                    e >>= 1;
                }
                acc
            }
            #[inline(always)]
            fn shl(self, rhs: Self) -> Self {
                match u32::try_from(rhs) {
                    Ok(n) if n < <$t>::BITS => self << n,
                    _ => 0,
                }
            }
            #[inline(always)]
            fn shr(self, rhs: Self) -> Self {
                match u32::try_from(rhs) {
                    Ok(n) if n < <$t>::BITS => self >> n,
                    // Everything shifted out: the sign fill.
                    _ => self >> (<$t>::BITS - 1) >> 1,
                }
            }
            #[inline(always)]
            fn neg(self) -> Self {
                self.wrapping_neg()
            }
            #[inline(always)]
            fn abs(self) -> Self {
                int_sem!(@$abs self)
            }
        }
    )*};
    (@signed $x:ident) => { $x.wrapping_abs() };
    (@unsigned $x:ident) => { $x };
}

int_sem!(signed: i8, i16, i32, i64);
int_sem!(unsigned: u8, u16, u32, u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_truncates_and_floor_forms_round_down() {
        assert_eq!(IntSem::div(-7i32, 2), -3);
        assert_eq!(IntSem::rem(-7i32, 2), -1);
        assert_eq!(IntSem::floor_div(-7i32, 2), -4);
        assert_eq!(IntSem::floor_mod(-7i32, 2), 1);
        // The case: -7 by -2.
        assert_eq!(IntSem::div(-7i32, -2), 3);
        assert_eq!(IntSem::floor_div(-7i32, -2), 3);
        assert_eq!(IntSem::floor_mod(-7i32, -2), -1);
        assert_eq!(IntSem::floor_div(7i32, -2), -4);
        assert_eq!(IntSem::floor_mod(7i32, -2), -1);
        assert_eq!(IntSem::floor_div(7u8, 2), 3);
    }

    #[test]
    fn everything_is_total() {
        assert_eq!(IntSem::div(7i32, 0), 0);
        assert_eq!(IntSem::rem(7i32, 0), 7);
        assert_eq!(IntSem::floor_div(7i32, 0), 0);
        assert_eq!(IntSem::floor_mod(-7i32, 0), -7);
        assert_eq!(IntSem::div(i32::MIN, -1), i32::MIN);
        assert_eq!(IntSem::rem(i32::MIN, -1), 0);
        assert_eq!(IntSem::floor_div(i8::MIN, -1), i8::MIN);
        assert_eq!(IntSem::add(i8::MAX, 1), i8::MIN);
        assert_eq!(IntSem::abs(i8::MIN), i8::MIN);
        assert_eq!(IntSem::neg(1u8), 255);
        assert_eq!(IntSem::shl(1i32, 40), 0);
        assert_eq!(IntSem::shl(1i32, -1), 0);
        assert_eq!(IntSem::shr(-8i32, 99), -1);
        assert_eq!(IntSem::shr(200u8, 3), 25);
        assert_eq!(IntSem::pow(3i32, 4), 81);
        assert_eq!(IntSem::pow(2i8, 7), -128);
        assert_eq!(IntSem::pow(2i32, -1), 0);
        assert_eq!(IntSem::pow(-1i32, -3), -1);
        assert_eq!(IntSem::pow(3u64, 40), 3u64.wrapping_pow(40));
    }
}
