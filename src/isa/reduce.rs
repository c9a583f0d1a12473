//! Axis reductions: `TROWSUM` / `TROWMAX` / `TROWMIN` (`R x C -> R x 1`) and `TCOLSUM` /
//! `TCOLMAX` / `TCOLMIN` (`R x C -> 1 x C`), over the source's valid region only.
//!
//! Row reductions give the destination the valid region `(src rows, 1)`, column reductions
//! `(1, src cols)`. An empty valid extent reduces to the identity (`0`, `LOWEST`, `HIGHEST`).
//! Sums accumulate sequentially (left to right, top to bottom) in the element type, each
//! addition rounded, which is exactly what `pto-lower`'s reference interpreter does, so the
//! two agree bit for bit.

use crate::Tile;
use crate::element::Element;

/// Folds the first `n` elements of each row of `src` into the matching row of `dst`, left to
/// right. Four rows are folded together, interleaved, so four independent dependency chains
/// are in flight (each row's order, and so its rounding, is unchanged).
/// Without `INTERLEAVE` each row is one fold (LLVM vectorises `max`/`min` folds by itself).
#[inline(always)]
fn fold_rows<T: Copy, const C: usize, const INTERLEAVE: bool>(
    dst: &mut [[T; 1]],
    src: &[[T; C]],
    n: usize,
    init: T,
    f: impl Fn(T, T) -> T,
) {
    if !INTERLEAVE {
        for (d, s) in dst.iter_mut().zip(src) {
            d[0] = s[..n].iter().fold(init, |a, &x| f(a, x));
        }
        return;
    }
    let (d4, d_rest) = dst.as_chunks_mut::<4>();
    let (s4, s_rest) = src.as_chunks::<4>();
    for (d, [r0, r1, r2, r3]) in d4.iter_mut().zip(s4) {
        let mut acc = [init; 4];
        let rows = r0[..n].iter().zip(&r1[..n]).zip(&r2[..n]).zip(&r3[..n]);
        for (((&x0, &x1), &x2), &x3) in rows {
            acc = [f(acc[0], x0), f(acc[1], x1), f(acc[2], x2), f(acc[3], x3)];
        }
        for (d, a) in d.iter_mut().zip(acc) {
            d[0] = a;
        }
    }
    for (d, s) in d_rest.iter_mut().zip(s_rest) {
        d[0] = s[..n].iter().fold(init, |a, &x| f(a, x));
    }
}

/// Row reduction over `src`'s valid region.
#[inline(always)]
fn row_reduce<T: Element, const R: usize, const C: usize, const INTERLEAVE: bool>(
    dst: &mut Tile<T, R, 1>,
    src: &Tile<T, R, C>,
    init: T,
    f: impl Fn(T, T) -> T + Copy,
) {
    let (vr, vc) = src.valid();
    let (d, s) = (&mut dst.data[..vr], &src.data[..vr]);
    if vc == C {
        // A constant trip count lets the row loop unroll.
        fold_rows::<T, C, INTERLEAVE>(d, s, C, init, f);
    } else {
        fold_rows::<T, C, INTERLEAVE>(d, s, vc, init, f);
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
    row_reduce::<T, R, C, true>(dst, src, T::ZERO, T::add);
}

/// `TROWMAX`: `dst[i, 0] = max_j src[i, j]` over `src`'s valid region.
#[inline]
pub fn trowmax<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, 1>,
    src: &Tile<T, R, C>,
) {
    row_reduce::<T, R, C, false>(dst, src, T::LOWEST, T::max);
}

/// `TROWMIN`: `dst[i, 0] = min_j src[i, j]` over `src`'s valid region.
#[inline]
pub fn trowmin<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, 1>,
    src: &Tile<T, R, C>,
) {
    row_reduce::<T, R, C, false>(dst, src, T::HIGHEST, T::min);
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
