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
    tail.iter().fold(fold_halves(acc), |s, &x| s.add(f(x)))
}

/// Combines [`SUM_LANES`] partial sums by halves (`l + 8` into `l`, then `l + 4`, `l + 2`,
/// `l + 1`), the middle step of [`lane_sum`].
///
/// The lanes pass through [`black_box`](std::hint::black_box) first: LLVM's SLP vectoriser
/// otherwise vectorises this fold together with the loop that filled the lanes and picks the
/// fold's width (2) for the loop too, so a row loop such as layernorm's `x - mean` and the sum
/// of its squares ran 2 lanes at a time (`vmovsd` loads, `vmovlhps` to rebuild each store);
/// behind the barrier the loop runs on whole ymm registers. The fold runs once per row.
#[inline(always)]
pub(super) fn fold_halves<T: Element>(acc: [T; SUM_LANES]) -> T {
    let mut acc = std::hint::black_box(acc);
    let mut width = SUM_LANES / 2;
    while width > 0 {
        for l in 0..width {
            acc[l] = acc[l].add(acc[l + width]);
        }
        width /= 2;
    }
    acc[0]
}

/// One step of a maximum that keeps the accumulator unless `x` is above it: one SIMD
/// compare (`maxps`). For an accumulator that is not NaN (a fold from `LOWEST` never takes
/// a NaN: it is above nothing) this is [`Element::max`] except when the two are zeros of
/// opposite signs, so a fold by it has the exact fold's value in any order and its bits
/// unless that value is zero ([`exact_if_zero`]). For accumulators in registers (a row's
/// lanes): one kept in memory and returned unchanged on one path becomes a conditional
/// store, which vectorises as masked stores (`vmaskmovps`, 2x slower column maxima), so
/// column folds step by [`Element::max_any_zero`].
#[inline(always)]
pub(super) fn keep_max<T: Element>(acc: T, x: T) -> T {
    if x > acc { x } else { acc }
}

/// [`keep_max`] for a minimum.
#[inline(always)]
pub(super) fn keep_min<T: Element>(acc: T, x: T) -> T {
    if x < acc { x } else { acc }
}

/// `m`, a maximum or minimum folded by [`keep_max`] / [`keep_min`], with the exact bits:
/// for a float `m` equal to zero the sign depends on the order of the fold, so the zero is
/// recomputed by `exact` (the fold by [`Element::max`] / [`Element::min`], whose order does
/// not matter: they order `-0` below `+0`). Any other value has one set of bits.
#[inline(always)]
pub(super) fn exact_if_zero<T: Element>(m: T, exact: impl FnOnce() -> T) -> T {
    if T::IS_FLOAT && m == T::ZERO {
        exact()
    } else {
        m
    }
}

/// `xs` folded by `f` from `init` (`T::max` from `LOWEST` for `TROWMAX`, `T::min` from
/// `HIGHEST` for `TROWMIN`), computed in [`SUM_LANES`] partial results kept by `keep`
/// ([`keep_max`], [`keep_min`]: one SIMD compare each), the lanes combined by halves, and the
/// zero recomputed by `f` ([`exact_if_zero`]). Any order gives the fold's value (`keep` never
/// takes a NaN into a partial result), so the lanes fold by halves: four compares deep where
/// a fold lane by lane was a chain of sixteen, which bounded a 128-wide row max (the broadcast
/// bench's kernel 1.11x -> 1.00x of its hand loop, 1000 calls back to back, native build).
#[inline(always)]
fn lane_extreme<T: Element>(
    xs: &[T],
    init: T,
    f: impl Fn(T, T) -> T,
    keep: impl Fn(T, T) -> T,
) -> T {
    let (groups, tail) = xs.as_chunks::<SUM_LANES>();
    let mut acc = [init; SUM_LANES];
    for g in groups {
        for (a, &x) in acc.iter_mut().zip(g) {
            *a = keep(*a, x);
        }
    }
    let mut width = SUM_LANES / 2;
    while width > 0 {
        for l in 0..width {
            acc[l] = keep(acc[l], acc[l + width]);
        }
        width /= 2;
    }
    let m = tail.iter().fold(acc[0], |a, &x| keep(a, x));
    exact_if_zero(m, || xs.iter().fold(init, |a, &x| f(a, x)))
}

/// `TROWMAX` of one row. A function marked `inline(always)` rather than a closure, so that it
/// inlines into the row loop's AVX2 clone (a closure this size ran as an SSE2 call per row).
#[inline(always)]
pub(super) fn row_max<T: Element>(xs: &[T]) -> T {
    lane_extreme(xs, T::LOWEST, T::max, keep_max)
}

/// `TROWMIN` of one row (see [`row_max`]).
#[inline(always)]
pub(super) fn row_min<T: Element>(xs: &[T]) -> T {
    lane_extreme(xs, T::HIGHEST, T::min, keep_min)
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
    // One loop for every length: with a constant one (`vc == C`) the compiler unrolls a
    // row's groups and gathers the lanes element by element (`vinsertps`), 2x slower.
    for (d, s) in dst.data[..vr].iter_mut().zip(&src.data[..vr]) {
        d[0] = fold(&s[..vc]);
    }
    dst.set_valid_clamped(vr, 1);
}

/// Column reduction over `src`'s valid region, each column folded top to bottom from `init`
/// (the rows' columns are independent, so each row is one SIMD step).
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
))]
fn col_reduce<T: Element, F: Fn(T, T) -> T, const R: usize, const C: usize>(
    dst: &mut Tile<T, 1, C>,
    src: &Tile<T, R, C>,
    init: T,
    f: F,
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

/// A column maximum or minimum: [`col_reduce`] by `fast` ([`Element::max_any_zero`] /
/// [`Element::min_any_zero`]: the accumulators are in memory, see [`keep_max`]), then each
/// zero recomputed top to bottom by `f` ([`exact_if_zero`]).
#[inline(always)]
fn col_extreme<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, 1, C>,
    src: &Tile<T, R, C>,
    init: T,
    f: impl Fn(T, T) -> T,
    fast: impl Fn(T, T) -> T,
) {
    col_reduce(dst, src, init, fast);
    let (vr, vc) = src.valid();
    if let Some(out) = dst.data.first_mut() {
        fix_zero_cols(&mut out[..vc], |j| {
            src.data[..vr].iter().fold(init, |a, r| f(a, r[j]))
        });
    }
}

/// Column `j`'s result recomputed by `exact(j)` where it is a float zero (see
/// [`exact_if_zero`]). The check comes first and alone: a loop that may store a result
/// unchanged vectorises with masked stores, slow, and zeros are rare.
#[inline(always)]
pub(super) fn fix_zero_cols<T: Element>(out: &mut [T], exact: impl Fn(usize) -> T) {
    if T::IS_FLOAT && out.contains(&T::ZERO) {
        for (j, d) in out.iter_mut().enumerate() {
            *d = exact_if_zero(*d, || exact(j));
        }
    }
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
    row_reduce(dst, src, row_max);
}

/// `TROWMIN`: `dst[i, 0] = min_j src[i, j]` over `src`'s valid region.
#[inline]
pub fn trowmin<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, 1>,
    src: &Tile<T, R, C>,
) {
    row_reduce(dst, src, row_min);
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
    col_extreme(dst, src, T::LOWEST, T::max, T::max_any_zero);
}

/// `TCOLMIN`: `dst[0, j] = min_i src[i, j]` over `src`'s valid region.
#[inline]
pub fn tcolmin<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, 1, C>,
    src: &Tile<T, R, C>,
) {
    col_extreme(dst, src, T::HIGHEST, T::min, T::min_any_zero);
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
        (row.iter().sum(), fold_max(row), fold_min(row))
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

    /// Rows of values drawn from a small set rich in ties: both zeros, NaN, infinities,
    /// equal non-zero values, the extremes.
    fn tricky_rows(n: usize, len: usize) -> Vec<Vec<f32>> {
        const PICK: [f32; 10] = [
            0.0,
            -0.0,
            f32::NAN,
            1.5,
            -1.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            f32::MIN,
            -2.0,
        ];
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        (0..n)
            .map(|_| {
                (0..len)
                    .map(|_| {
                        s = s
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        // Mostly zeros and NaN, so many rows have a zero extreme.
                        let k = (s >> 33) as usize % 16;
                        PICK[if k < 10 { k } else { k % 3 }]
                    })
                    .collect()
            })
            .collect()
    }

    /// The fold by the semantics' `max` / `min` (whose order does not matter).
    fn fold_max(xs: &[f32]) -> f32 {
        xs.iter()
            .fold(<f32 as Element>::LOWEST, |a, &x| Element::max(a, x))
    }

    fn fold_min(xs: &[f32]) -> f32 {
        xs.iter()
            .fold(<f32 as Element>::HIGHEST, |a, &x| Element::min(a, x))
    }

    #[test]
    fn row_and_column_max_and_min_are_the_fold_by_max_and_min() {
        let bits = |x: f32| x.to_bits();
        for len in [0, 1, 2, 15, 16, 17, 33, 40, 64] {
            for row in tricky_rows(400, len) {
                assert_eq!(bits(row_max(&row)), bits(fold_max(&row)), "max of {row:?}");
                assert_eq!(bits(row_min(&row)), bits(fold_min(&row)), "min of {row:?}");
            }
        }
        // Through the instructions, ragged: 3 x 37 valid of a 4 x 40 tile, by rows and by
        // columns.
        let rows = tricky_rows(4, 40);
        let t = Tile::<f32, 4, 40>::from_fn(|i, j| rows[i][j])
            .with_valid(3, 37)
            .unwrap();
        let (mut mx, mut mn) = (Tile::<f32, 4, 1>::zeros(), Tile::<f32, 4, 1>::zeros());
        trowmax(&mut mx, &t);
        trowmin(&mut mn, &t);
        assert_eq!(mx.valid(), (3, 1));
        for (i, row) in rows.iter().take(3).enumerate() {
            let row = &row[..37];
            assert_eq!(mx.get(i, 0).map(bits), Some(bits(fold_max(row))), "row {i}");
            assert_eq!(mn.get(i, 0).map(bits), Some(bits(fold_min(row))), "row {i}");
        }
        let cols = tricky_rows(40, 23);
        let t = Tile::<f32, 23, 40>::from_fn(|i, j| cols[j][i])
            .with_valid(21, 37)
            .unwrap();
        let (mut mx, mut mn) = (Tile::<f32, 1, 40>::zeros(), Tile::<f32, 1, 40>::zeros());
        tcolmax(&mut mx, &t);
        tcolmin(&mut mn, &t);
        assert_eq!(mx.valid(), (1, 37));
        for (j, col) in cols.iter().take(37).enumerate() {
            let col = &col[..21];
            assert_eq!(
                mx.get(0, j).map(bits),
                Some(bits(fold_max(col))),
                "column {j}"
            );
            assert_eq!(
                mn.get(0, j).map(bits),
                Some(bits(fold_min(col))),
                "column {j}"
            );
        }
    }

    #[test]
    fn max_of_zeros_is_plus_zero_and_min_minus_zero_in_any_order() {
        let (p, n) = (0.0f32.to_bits(), (-0.0f32).to_bits());
        // Rows of zeros only, alternating from either sign, and a lone zero of the other
        // sign at every position (in the lanes, in the tail), among negative numbers for
        // the maximum and positive ones for the minimum.
        for len in [2, 3, 16, 17, 40] {
            for first in [0.0f32, -0.0] {
                let row: Vec<f32> = (0..len)
                    .map(|j| if j % 2 == 0 { first } else { -first })
                    .collect();
                assert_eq!(row_max(&row).to_bits(), p, "{row:?}");
                assert_eq!(row_min(&row).to_bits(), n, "{row:?}");
            }
            for at in 0..len {
                let mut row = vec![-0.0f32; len];
                row[at] = 0.0;
                assert_eq!(row_max(&row).to_bits(), p, "max, +0 at {at} of {len}");
                let mut row = vec![0.0f32; len];
                row[at] = -0.0;
                assert_eq!(row_min(&row).to_bits(), n, "min, -0 at {at} of {len}");
                let row: Vec<f32> = (0..len)
                    .map(|j| if j == at { 0.0 } else { -1.0 - j as f32 })
                    .collect();
                assert_eq!(row_max(&row).to_bits(), p);
            }
        }
        // The instructions, rows and columns: zeros of both signs in both orders.
        let t = Tile::<f32, 2, 2>::from_slice(&[0.0, -0.0, -0.0, 0.0]).unwrap();
        let (mut r, mut c) = (Tile::<f32, 2, 1>::zeros(), Tile::<f32, 1, 2>::zeros());
        trowmax(&mut r, &t);
        assert_eq!(
            r.to_vec().iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            vec![p, p]
        );
        trowmin(&mut r, &t);
        assert_eq!(
            r.to_vec().iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            vec![n, n]
        );
        tcolmax(&mut c, &t);
        assert_eq!(
            c.to_vec().iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            vec![p, p]
        );
        tcolmin(&mut c, &t);
        assert_eq!(
            c.to_vec().iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            vec![n, n]
        );
        // Halves take the same rule.
        let h = Tile::<bf16, 1, 2>::from_fn(|_, j| bf16::from_f32(if j == 0 { -0.0 } else { 0.0 }));
        let mut d = Tile::<bf16, 1, 1>::zeros();
        trowmax(&mut d, &h);
        assert_eq!(d.to_vec()[0].to_bits(), 0);
        trowmin(&mut d, &h);
        assert_eq!(d.to_vec()[0].to_bits(), 0x8000);
    }

    #[test]
    fn integer_and_half_extremes() {
        let ints: Vec<i32> = (0..37).map(|j| (j * 7919) % 101 - 50).collect();
        assert_eq!(
            lane_extreme(&ints, i32::MIN, Ord::max, keep_max),
            ints.iter().copied().fold(i32::MIN, Ord::max)
        );
        let halves: Vec<bf16> = (0..37).map(|j| bf16::from_f32(j as f32 - 20.0)).collect();
        assert_eq!(row_max(&halves), bf16::from_f32(16.0));
        assert_eq!(row_min(&halves), bf16::from_f32(-20.0));
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
