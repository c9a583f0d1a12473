//! The CPU implementation of the PTO instructions, one function per instruction.
//!
//! Arguments come in the order of the PTO-ISA C++ intrinsics: destination first (`tadd(dst,
//! a, b)`, `trowsum(dst, src)`), except `tstore(tensor, tile, offset)` whose destination is
//! the tensor. The semantics are PTO's:
//!
//! * **Valid regions.** Every instruction iterates over a valid region and sets the
//!   destination's valid region from its sources: elementwise instructions use the region
//!   their operands share (the intersection of top-left prefixes), unary and tile-scalar
//!   instructions the source's, row reductions `(src rows, 1)`, column reductions `(1, src
//!   cols)`, transposition the swapped region, matmul `(a rows, b cols)`. Elements outside
//!   a valid region are never read as data and never written, except by [`tfillpad`].
//! * **Shapes.** Static tile shapes are const generics, so a shape mismatch PTO would reject
//!   at compile time is a Rust type error here. Instructions whose runtime arguments can be
//!   wrong (offsets, windows) return `Result<(), Error>`; the others cannot fail.
//! * **Aliasing.** PTO lets a destination be one of its sources. Rust's borrow rules forbid
//!   passing the same tile as `&mut` and `&`, so every instruction that reads a tile of the
//!   destination's type also has an `_inplace` form that reads the destination itself:
//!   `tsub_inplace(d, b)` is `TSUB(d, d, b)`, `tsub_inplace_rev(d, a)` is `TSUB(d, a, d)`,
//!   `texp_inplace(d)` is `TEXP(d, d)`, `tmatmul_acc_inplace(c, a, b)` is `TMATMUL_ACC(c, a,
//!   b)`. No instruction copies a tile behind the caller's back.
//! * **Performance.** Row-wise instructions run as tight loops over contiguous row slices
//!   whose length is checked once per row (a fully valid tile is one flat slice), so the
//!   compiler vectorises them; nothing allocates. The unary maps, row reductions,
//!   broadcasts and the matmul micro-kernel are also compiled for AVX2 / AVX-512 and picked at
//!   run time (`multiversion`), so a default build uses the wide registers where the CPU has
//!   them. Row sums use 16 partial sums ([`lane_sum`]); `f32` `exp` / `log` are the
//!   vectorising polynomials of the semantics module ([`crate::ir::sem::exp_f32`], `ln_f32`).
//!
//! Synchronisation (`set_flag`, `wait_flag`, `pipe_barrier`) is a no-op on the CPU, where
//! every instruction completes before the next one starts.

mod argreduce;
mod convert;
mod element_access;
mod elementwise;
mod expand;
mod expand_store;
mod fused;
mod kept_window;
mod load_reductions;
mod matmul;
mod memory;
mod movement;
mod reduce;
mod row_pass;
mod scalar_ops;
mod select;
mod store_modes;
mod sync;
mod tensor_mut;
#[cfg(test)]
mod test_data;
mod view;

pub use argreduce::*;
pub use convert::*;
pub use element_access::*;
pub use elementwise::*;
pub use expand::*;
pub use expand_store::*;
pub use fused::*;
pub use kept_window::*;
pub use load_reductions::*;
pub use matmul::*;
pub use memory::*;
pub use movement::*;
pub use reduce::*;
pub use row_pass::*;
pub use scalar_ops::*;
pub use select::*;
pub use store_modes::*;
pub use sync::*;
pub use tensor_mut::TensorMut;
pub use view::*;

/// `dst[i][j] = f(src[i][j])` over the top-left `vr x vc` region.
///
/// Callers pass `vr <= R` and `vc <= C` (a [`crate::Tile`] invariant), so the slicing below
/// never fails; it is checked once per call (or once per row), not per element.
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
))]
pub(crate) fn map1<S: Copy, D, F: Fn(S) -> D, const C: usize>(
    dst: &mut [[D; C]],
    src: &[[S; C]],
    vr: usize,
    vc: usize,
    f: F,
) {
    if vc == C {
        let d = dst[..vr].as_flattened_mut();
        let s = src[..vr].as_flattened();
        for (d, &s) in d.iter_mut().zip(s) {
            *d = f(s);
        }
    } else {
        for (d, s) in dst[..vr].iter_mut().zip(&src[..vr]) {
            for (d, &s) in d[..vc].iter_mut().zip(&s[..vc]) {
                *d = f(s);
            }
        }
    }
}

/// `dst[i][j] = f(dst[i][j])` over the top-left `vr x vc` region.
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
))]
pub(crate) fn map_inplace<T: Copy, F: Fn(T) -> T, const C: usize>(
    dst: &mut [[T; C]],
    vr: usize,
    vc: usize,
    f: F,
) {
    if vc == C {
        for d in dst[..vr].as_flattened_mut() {
            *d = f(*d);
        }
    } else {
        for d in &mut dst[..vr] {
            for d in &mut d[..vc] {
                *d = f(*d);
            }
        }
    }
}

/// `dst[i][j] = f(a[i][j], b[i][j])` over the top-left `vr x vc` region.
#[inline(always)]
pub(crate) fn map2<A: Copy, B: Copy, D, const C: usize>(
    dst: &mut [[D; C]],
    a: &[[A; C]],
    b: &[[B; C]],
    vr: usize,
    vc: usize,
    f: impl Fn(A, B) -> D,
) {
    if vc == C {
        let d = dst[..vr].as_flattened_mut();
        let a = a[..vr].as_flattened();
        let b = b[..vr].as_flattened();
        for ((d, &a), &b) in d.iter_mut().zip(a).zip(b) {
            *d = f(a, b);
        }
    } else {
        for ((d, a), b) in dst[..vr].iter_mut().zip(&a[..vr]).zip(&b[..vr]) {
            for ((d, &a), &b) in d[..vc].iter_mut().zip(&a[..vc]).zip(&b[..vc]) {
                *d = f(a, b);
            }
        }
    }
}

/// `dst[i][j] = f(dst[i][j], b[i][j])` over the top-left `vr x vc` region.
#[inline(always)]
pub(crate) fn map2_inplace<T: Copy, B: Copy, const C: usize>(
    dst: &mut [[T; C]],
    b: &[[B; C]],
    vr: usize,
    vc: usize,
    f: impl Fn(T, B) -> T,
) {
    if vc == C {
        let d = dst[..vr].as_flattened_mut();
        let b = b[..vr].as_flattened();
        for (d, &b) in d.iter_mut().zip(b) {
            *d = f(*d, b);
        }
    } else {
        for (d, b) in dst[..vr].iter_mut().zip(&b[..vr]) {
            for (d, &b) in d[..vc].iter_mut().zip(&b[..vc]) {
                *d = f(*d, b);
            }
        }
    }
}
