//! Tile matmul: what one output element of `matmul` / `matmul_acc` / `matmul_bias` is.
//!
//! The inputs are widened exactly to the accumulator dtype (fp16 / bf16 / fp32 to fp32, int8
//! to int32). Element `(i, j)` starts from zero (`matmul`), the accumulator's element
//! (`matmul_acc`) or the bias row's element `j` (`matmul_bias`) and takes one
//! [`MatmulStep::matmul_step`] per `k` in increasing order:
//!
//! * float accumulators: `acc = fma(a[i, k], b[k, j], acc)`, the exact product plus the
//!   accumulator rounded once (to nearest even), not the product rounded and then the sum;
//! * integer accumulators: `acc = acc + a[i, k] * b[k, j]`, wrapping.
//!
//! Fused because that is what a CPU's multiply-add instruction computes, so the runtime's
//! micro-kernel can use it and still give every backend's bits; one rounding per step is
//! also the more accurate sum. The result depends on the `k` order only, not on how a
//! backend blocks the rows and columns. For fp16 inputs fused and separate agree (every
//! product of two fp16 values is exact in fp32); for bf16 and fp32 they can differ.

/// One step of a tile matmul's sum: the accumulator plus one product (see the module doc).
pub trait MatmulStep: Copy {
    /// `acc + a * b`: fused (one rounding) for floats, wrapping for integers.
    fn matmul_step(self, a: Self, b: Self) -> Self;
}

macro_rules! float_step {
    ($($t:ty),*) => {$(
        impl MatmulStep for $t {
            #[inline(always)]
            fn matmul_step(self, a: Self, b: Self) -> Self {
                a.mul_add(b, self)
            }
        }
    )*};
}

macro_rules! int_step {
    ($($t:ty),*) => {$(
        impl MatmulStep for $t {
            #[inline(always)]
            fn matmul_step(self, a: Self, b: Self) -> Self {
                self.wrapping_add(a.wrapping_mul(b))
            }
        }
    )*};
}

float_step!(f32, f64);
int_step!(i32, i64, u32, u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_steps_round_once() {
        // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: the product alone rounds the 2^-24 away (ties to
        // even), the fused step keeps it in the sum with -1.
        let a = 1.0 + 2f32.powi(-12);
        assert_eq!(a * a - 1.0, 2f32.powi(-11));
        assert_eq!((-1.0f32).matmul_step(a, a), 2f32.powi(-11) + 2f32.powi(-24));
        // Below f32's subnormals: 2^-150 alone rounds to 0, 2^-149 + 2^-150 to 2^-148.
        let t = 2f32.powi(-75);
        let tiny = f32::from_bits(1);
        assert_eq!(tiny + t * t, tiny);
        assert_eq!(tiny.matmul_step(t, t), 2.0 * tiny);
        assert_eq!(1.0f64.matmul_step(3.0, -0.5), -0.5);
    }

    #[test]
    fn integer_steps_wrap() {
        assert_eq!(5i32.matmul_step(-128, 127), 5 - 128 * 127);
        assert_eq!(i32::MAX.matmul_step(1, 1), i32::MIN);
        assert_eq!(0u32.matmul_step(u32::MAX, 2), u32::MAX - 1);
    }
}
