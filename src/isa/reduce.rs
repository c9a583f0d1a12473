//! Axis reductions: `TROWSUM` / `TROWMAX` / `TROWMIN` (`R x C -> R x 1`) and `TCOLSUM` /
//! `TCOLMAX` / `TCOLMIN` (`R x C -> 1 x C`), over the source's valid region only.
//!
//! Row reductions give the destination the valid region `(src rows, 1)`, column reductions
//! `(1, src cols)`. An empty valid extent reduces to the identity (`0`, `LOWEST`, `HIGHEST`).
//! Sums accumulate in the element type, each addition rounded: a row sum in [`SUM_LANES`]
//! interleaved partial sums ([`lane_sum`] states the order), a column sum top to bottom. That
//! is exactly what `pto-lower`'s reference interpreter does, so the two agree bit for bit.

use crate::Tile;
use crate::element::Element;

/// The number of partial sums a row sum keeps (see [`lane_sum`]).
pub const SUM_LANES: usize = 16;

/// The sum of `xs` in the order the semantics fix for `TROWSUM`: [`SUM_LANES`] partial sums,
/// lane `l` adding the elements `l, l + 16, l + 32, ...` of the leading whole groups of 16 in
/// order (each starting from 0); then the lanes combined by halves (`l + 8` into `l`, then
/// `l + 4`, `l + 2`, `l + 1`); then the remaining `len % 16` elements added in order. A row
/// shorter than 16 is thus summed left to right from 0. Every addition is rounded in `T`.
///
/// The independent lanes are what lets the loop run as SIMD additions with several
/// accumulators in flight; `pto-lower`'s reference interpreter sums in the same order, so the
/// two agree bit for bit.
#[inline(always)]
pub fn lane_sum<T: Element>(xs: &[T]) -> T {
    lane_sum_map(xs, |x| x)
}

/// [`lane_sum`] of `f` applied to each element of `xs`: the same additions in the same order.
#[inline(always)]
pub fn lane_sum_map<T: Element>(xs: &[T], f: impl Fn(T) -> T) -> T {
    let (groups, tail) = xs.as_chunks::<SUM_LANES>();
    let mut acc = [T::ZERO; SUM_LANES];
    for g in groups {
        for (a, &x) in acc.iter_mut().zip(g) {
            *a = a.add(f(x));
        }
    }
    let mut width = SUM_LANES / 2;
    while width > 0 {
        for l in 0..width {
            acc[l] = acc[l].add(acc[l + width]);
        }
        width /= 2;
    }
    tail.iter().fold(acc[0], |s, &x| s.add(f(x)))
}

/// `OP(d, a ..); TROWSUM(dst, d)` for an elementwise op of the one tile `a` whose element
/// function is `f` (`TMUL(d, a, a)`: `|x| x * x`), in one pass: `dst[i, 0]` is the row sum
/// of `f(a[i, j])` over `a`'s valid region, in [`lane_sum`]'s order, as the two instructions
/// give it. `d` gets the op's valid region but not its elements: the code generator
/// (`pto-lower`'s `lower/pairs.rs`) calls this only for a `d` nothing reads afterwards.
#[inline]
pub fn trowsum_map<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, 1>,
    d: &mut Tile<T, R, C>,
    a: &Tile<T, R, C>,
    f: impl Fn(T) -> T,
) {
    let (vr, vc) = a.valid();
    row_reduce(dst, a, |s| lane_sum_map(s, &f));
    d.set_valid_clamped(vr, vc);
}

/// `trowsum_map` with `d` as its own source (`TEXP(d, d); TROWSUM(dst, d)`): `d` keeps its
/// elements, the mapped ones are only summed.
#[inline]
pub fn trowsum_map_inplace<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, 1>,
    d: &mut Tile<T, R, C>,
    f: impl Fn(T) -> T,
) {
    row_reduce(dst, d, |s| lane_sum_map(s, &f));
}

/// Row reduction over `src`'s valid region; `fold` reduces one row's valid prefix.
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
))]
fn row_reduce<T: Element, F: Fn(&[T]) -> T, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, 1>,
    src: &Tile<T, R, C>,
    fold: F,
) {
    let (vr, vc) = src.valid();
    let (d, s) = (&mut dst.data[..vr], &src.data[..vr]);
    if vc == C {
        // A constant length lets the row loop unroll.
        for (d, s) in d.iter_mut().zip(s) {
            d[0] = fold(s);
        }
    } else {
        for (d, s) in d.iter_mut().zip(s) {
            d[0] = fold(&s[..vc]);
        }
    }
    dst.set_valid_clamped(vr, 1);
}

#[inline(always)]
fn col_reduce<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, 1, C>,
    src: &Tile<T, R, C>,
    init: T,
    f: impl Fn(T, T) -> T,
) {
    let (vr, vc) = src.valid();
    let Some(out) = dst.data.first_mut() else {
        return; // unreachable: a tile has at least one row
    };
    let out = &mut out[..vc];
    out.fill(init);
    for s in &src.data[..vr] {
        for (d, &x) in out.iter_mut().zip(&s[..vc]) {
            *d = f(*d, x);
        }
    }
    dst.set_valid_clamped(1, vc);
}

/// `TROWSUM`: `dst[i, 0] = sum_j src[i, j]` over `src`'s valid region.
#[inline]
pub fn trowsum<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, 1>,
    src: &Tile<T, R, C>,
) {
    row_reduce(dst, src, lane_sum);
}

/// `TROWMAX`: `dst[i, 0] = max_j src[i, j]` over `src`'s valid region.
#[inline]
pub fn trowmax<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, 1>,
    src: &Tile<T, R, C>,
) {
    row_reduce(dst, src, |s| s.iter().fold(T::LOWEST, |a, &x| a.max(x)));
}

/// `TROWMIN`: `dst[i, 0] = min_j src[i, j]` over `src`'s valid region.
#[inline]
pub fn trowmin<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, 1>,
    src: &Tile<T, R, C>,
) {
    row_reduce(dst, src, |s| s.iter().fold(T::HIGHEST, |a, &x| a.min(x)));
}

/// `TROWPROD`: `dst[i, 0] = prod_j src[i, j]` over `src`'s valid region, left to right
/// (wrapping for integers).
#[inline]
pub fn trowprod<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, 1>,
    src: &Tile<T, R, C>,
) {
    row_reduce(dst, src, |s| s.iter().fold(T::ONE, |a, &x| a.mul(x)));
}

/// `TCOLPROD`: `dst[0, j] = prod_i src[i, j]` over `src`'s valid region, top to bottom.
#[inline]
pub fn tcolprod<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, 1, C>,
    src: &Tile<T, R, C>,
) {
    col_reduce(dst, src, T::ONE, T::mul);
}

/// `TCOLSUM`: `dst[0, j] = sum_i src[i, j]` over `src`'s valid region.
#[inline]
pub fn tcolsum<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, 1, C>,
    src: &Tile<T, R, C>,
) {
    col_reduce(dst, src, T::ZERO, T::add);
}

/// `TCOLMAX`: `dst[0, j] = max_i src[i, j]` over `src`'s valid region.
#[inline]
pub fn tcolmax<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, 1, C>,
    src: &Tile<T, R, C>,
) {
    col_reduce(dst, src, T::LOWEST, T::max);
}

/// `TCOLMIN`: `dst[0, j] = min_i src[i, j]` over `src`'s valid region.
#[inline]
pub fn tcolmin<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, 1, C>,
    src: &Tile<T, R, C>,
) {
    col_reduce(dst, src, T::HIGHEST, T::min);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bf16;

    fn sample() -> Tile<f32, 3, 40> {
        Tile::from_fn(|i, j| (i as f32 + 1.0) * (j as f32) - 10.0)
    }

    fn naive_row(t: &Tile<f32, 3, 40>, i: usize, n: usize) -> (f32, f32, f32) {
        let row = &t.as_rows()[i][..n];
        (
            row.iter().sum(),
            row.iter().copied().fold(f32::NEG_INFINITY, f32::max),
            row.iter().copied().fold(f32::INFINITY, f32::min),
        )
    }

    #[test]
    fn row_reductions_full_and_partial() {
        let mut s = sample();
        let (mut sum, mut max, mut min) =
            (Tile::<f32, 3, 1>::zeros(), Tile::zeros(), Tile::zeros());
        for (vr, vc) in [(3, 40), (2, 37), (3, 5), (1, 16), (3, 17)] {
            s.set_valid(vr, vc).unwrap();
            trowsum(&mut sum, &s);
            trowmax(&mut max, &s);
            trowmin(&mut min, &s);
            assert_eq!(sum.valid(), (vr, 1));
            assert_eq!(max.valid(), (vr, 1));
            for i in 0..vr {
                let (ns, nx, nn) = naive_row(&s, i, vc);
                assert_eq!(sum.get(i, 0), Some(ns), "sum {vr}x{vc} row {i}");
                assert_eq!(max.get(i, 0), Some(nx));
                assert_eq!(min.get(i, 0), Some(nn));
            }
        }
        // Row 0 of the full tile: sum_j (j - 10) = 780 - 400.
        s.set_valid(1, 40).unwrap();
        trowsum(&mut sum, &s);
        assert_eq!(sum.to_vec(), [380.0]);
    }

    #[test]
    fn row_sum_follows_the_lane_order() {
        // 2^24 + 1 rounds to 2^24 in f32, 2^24 + 2 does not: adding the ones one at a time
        // to the big value loses them, adding them in groups first does not.
        let row: Vec<f32> = (0..37)
            .map(|j| if j == 0 { 16_777_216.0 } else { 1.0 })
            .collect();
        // The order spelled out: lanes over elements 0..32, halves, then 32..37 in order.
        let mut lanes = [0.0f32; 16];
        for (j, &x) in row[..32].iter().enumerate() {
            lanes[j % 16] += x;
        }
        for w in [8, 4, 2, 1] {
            for l in 0..w {
                lanes[l] += lanes[l + w];
            }
        }
        let want = row[32..].iter().fold(lanes[0], |s, &x| s + x);
        let sequential: f32 = row.iter().sum();
        assert_ne!(
            want.to_bits(),
            sequential.to_bits(),
            "the example shows the order"
        );
        let t = Tile::<f32, 1, 40>::from_fn(|_, j| row.get(j).copied().unwrap_or(f32::NAN))
            .with_valid(1, 37)
            .unwrap();
        let mut d = Tile::<f32, 1, 1>::zeros();
        trowsum(&mut d, &t);
        assert_eq!(d.to_vec(), [want]);
        // Shorter than 16: left to right.
        let mut d = Tile::<f32, 1, 1>::zeros();
        trowsum(&mut d, &t.clone().with_valid(1, 12).unwrap());
        assert_eq!(d.to_vec(), [row[..12].iter().sum::<f32>()]);
    }

    #[test]
    fn mapped_row_sum_is_the_op_then_the_sum() {
        let mut s = sample();
        for (vr, vc) in [(3, 40), (2, 37), (3, 5), (1, 16), (3, 0)] {
            s.set_valid(vr, vc).unwrap();
            let (mut sq, mut want) = (Tile::<f32, 3, 40>::zeros(), Tile::<f32, 3, 1>::zeros());
            crate::isa::tmul(&mut sq, &s, &s);
            trowsum(&mut want, &sq);
            let (mut d, mut got) = (Tile::<f32, 3, 40>::full(9.0), Tile::<f32, 3, 1>::zeros());
            trowsum_map(&mut got, &mut d, &s, |x| x * x);
            assert_eq!(got.valid(), want.valid());
            assert_eq!(d.valid(), sq.valid());
            for i in 0..vr {
                assert_eq!(got.get(i, 0), want.get(i, 0), "{vr} x {vc} row {i}");
            }
            let mut same = s.clone();
            trowsum_map_inplace(&mut got, &mut same, |x| x * x);
            assert_eq!(same.to_vec(), s.to_vec());
            for i in 0..vr {
                assert_eq!(
                    got.get(i, 0),
                    want.get(i, 0),
                    "in place {vr} x {vc} row {i}"
                );
            }
        }
    }

    #[test]
    fn col_reductions_partial() {
        let s = Tile::<i32, 4, 3>::from_slice(&[1, 5, -2, 4, -1, 9, 7, 0, 3, 100, 100, 100])
            .unwrap()
            .with_valid(3, 2)
            .unwrap();
        let mut d = Tile::<i32, 1, 3>::full(-9);
        tcolsum(&mut d, &s);
        assert_eq!(d.valid(), (1, 2));
        assert_eq!(d.to_vec(), [12, 4]);
        assert_eq!(d.as_rows()[0][2], -9);
        tcolmax(&mut d, &s);
        assert_eq!(d.to_vec(), [7, 5]);
        tcolmin(&mut d, &s);
        assert_eq!(d.to_vec(), [1, -1]);
    }

    #[test]
    fn empty_extent_gives_identity() {
        let s = Tile::<i16, 2, 4>::full(3).with_valid(2, 0).unwrap();
        let mut d = Tile::<i16, 2, 1>::full(1);
        trowmax(&mut d, &s);
        assert_eq!(d.to_vec(), [i16::MIN, i16::MIN]);
        trowsum(&mut d, &s);
        assert_eq!(d.to_vec(), [0, 0]);
    }

    #[test]
    fn bf16_row_sum() {
        let s = Tile::<bf16, 2, 20>::full(bf16::from_f32(0.5));
        let mut d = Tile::<bf16, 2, 1>::zeros();
        trowsum(&mut d, &s);
        assert_eq!(d.to_vec(), [bf16::from_f32(10.0); 2]);
    }
}
