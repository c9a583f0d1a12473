//! Row passes for the CPU: a few instructions ending in a row reduction, run as one pass over
//! each row while it is in registers or L1.
//!
//! - `TLOAD(t, x[..]); TROW{SUM,MAX,MIN}(m, t)`: each row is copied and reduced in the same
//!   loop ([`tload_rowsum`], [`tload_rowmax`], [`tload_rowmin`]); the first pass of a softmax
//!   or a layernorm.
//! - `TROWEXPAND{op}(d, a, r); ops of d ..; TROWSUM(s, ..)` where one tile of the run is read
//!   afterwards: each element is computed once, that tile written and the run's last value
//!   summed ([`trowexpand_map_rowsum`]): `exp(t - max)` and its sum, `x - mean` and the sum of
//!   its squares.
//!
//! The code generator (`pto-lower`'s `lower/pairs.rs`) calls these in place of the
//! instructions, which the C++ still prints one by one. Results are those of the
//! instructions: a row sum in [`lane_sum`](super::lane_sum)'s order, a row max or min that of
//! the fold by `max` / `min` (`reduce.rs`'s row max and min), the same valid regions, the same
//! errors (a window off the plain path runs the instructions).

use super::memory::Plain;
use super::reduce::{SUM_LANES, fold_halves, row_max, row_min};
use super::{Offset, row_region, tload, trowmax, trowmin, trowsum};
use crate::element::Element;
use crate::{Error, Tensor, Tile};

/// How a row is copied and reduced: [`Sum`], [`Max`] or [`Min`]. A trait rather than a
/// closure so that the multiversioned row loop inlines it (a closure or function passed in
/// was left a call, and ran without the wide registers).
pub(super) trait CopyReduce<T> {
    /// Copies `s` into `d` (same length) and returns the row's reduction, read back from `d`
    /// while the row is in L1 (the reductions are `reduce.rs`'s, so the bits are theirs).
    fn row(d: &mut [T], s: &[T]) -> T;
    /// The row's reduction alone, read in place (`view.rs`).
    fn reduce(s: &[T]) -> T;
}

/// `TROWSUM`'s reduction.
pub(super) struct Sum;
/// `TROWMAX`'s reduction.
pub(super) struct Max;
/// `TROWMIN`'s reduction.
pub(super) struct Min;

impl<T: Element> CopyReduce<T> for Sum {
    /// Copies and sums each chunk in one loop (the row is read once; a copy and then
    /// [`lane_sum`](super::lane_sum) read it twice), in `lane_sum`'s order.
    #[inline(always)]
    fn row(d: &mut [T], s: &[T]) -> T {
        let (dg, dt) = d.as_chunks_mut::<SUM_LANES>();
        let (sg, st) = s.as_chunks::<SUM_LANES>();
        let mut acc = [T::ZERO; SUM_LANES];
        for (d, s) in dg.iter_mut().zip(sg) {
            *d = *s;
            for (a, &x) in acc.iter_mut().zip(s) {
                *a = a.add(x);
            }
        }
        let mut sum = fold_halves(acc);
        for (d, &x) in dt.iter_mut().zip(st) {
            *d = x;
            sum = sum.add(x);
        }
        sum
    }

    /// [`lane_sum`](super::lane_sum)'s additions, its lanes folded by [`fold_halves`] (so
    /// the row loop keeps whole registers).
    #[inline(always)]
    fn reduce(s: &[T]) -> T {
        let (sg, st) = s.as_chunks::<SUM_LANES>();
        let mut acc = [T::ZERO; SUM_LANES];
        for s in sg {
            for (a, &x) in acc.iter_mut().zip(s) {
                *a = a.add(x);
            }
        }
        st.iter().fold(fold_halves(acc), |sum, &x| sum.add(x))
    }
}

impl<T: Element> CopyReduce<T> for Max {
    #[inline(always)]
    fn row(d: &mut [T], s: &[T]) -> T {
        d.copy_from_slice(s);
        row_max(d)
    }

    #[inline(always)]
    fn reduce(s: &[T]) -> T {
        row_max(s)
    }
}

impl<T: Element> CopyReduce<T> for Min {
    #[inline(always)]
    fn row(d: &mut [T], s: &[T]) -> T {
        d.copy_from_slice(s);
        row_min(d)
    }

    #[inline(always)]
    fn reduce(s: &[T]) -> T {
        row_min(s)
    }
}

/// Copies the `rows x cols` window at `src[0..]` (rows `stride` apart) into `t`'s rows and
/// writes `K::row(tile row, tensor row)` into `out`'s rows.
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
))]
fn copy_reduce_rows<T: Copy, K: CopyReduce<T>, const C: usize>(
    t: &mut [[T; C]],
    out: &mut [[T; 1]],
    src: &[T],
    stride: usize,
    rows: usize,
    cols: usize,
) {
    for ((d, o), s) in t.iter_mut().zip(out).zip(src.chunks(stride)).take(rows) {
        if let (Some(d), Some(s)) = (d.get_mut(..cols), s.get(..cols)) {
            o[0] = K::row(d, s);
        }
    }
}

/// `TLOAD(t, src[offset])` then a row reduction of `t` into `dst`, in one pass on the plain
/// path; otherwise the two instructions (`reduce`).
#[inline(always)]
fn tload_reduce<T: Element, K: CopyReduce<T>, const R: usize, const C: usize>(
    t: &mut Tile<T, R, C>,
    src: &Tensor<T>,
    offset: impl Offset,
    dst: &mut Tile<T, R, 1>,
    reduce: impl Fn(&mut Tile<T, R, 1>, &Tile<T, R, C>),
) -> Result<(), Error> {
    let offset = offset.into_usizes();
    let offset = offset.as_ref();
    let Some(p) = Plain::new(src.shape(), offset, R, C) else {
        tload(t, src, offset)?;
        reduce(dst, t);
        return Ok(());
    };
    let s = src.as_slice().get(p.start..).unwrap_or_default();
    copy_reduce_rows::<T, K, C>(&mut t.data, &mut dst.data, s, p.stride, p.rows, p.cols);
    t.set_valid_clamped(p.rows, p.cols);
    dst.set_valid_clamped(p.rows, 1);
    Ok(())
}

/// `TLOAD(t, src[offset]); TROWSUM(dst, t)` in one pass: `t` is loaded as by [`tload`] and
/// `dst` gets [`trowsum`]'s sums.
#[inline]
pub fn tload_rowsum<T: Element, const R: usize, const C: usize>(
    t: &mut Tile<T, R, C>,
    src: &Tensor<T>,
    offset: impl Offset,
    dst: &mut Tile<T, R, 1>,
) -> Result<(), Error> {
    tload_reduce::<T, Sum, R, C>(t, src, offset, dst, trowsum)
}

/// `TLOAD(t, src[offset]); TROWMAX(dst, t)` in one pass (see [`tload_rowsum`]).
#[inline]
pub fn tload_rowmax<T: Element, const R: usize, const C: usize>(
    t: &mut Tile<T, R, C>,
    src: &Tensor<T>,
    offset: impl Offset,
    dst: &mut Tile<T, R, 1>,
) -> Result<(), Error> {
    tload_reduce::<T, Max, R, C>(t, src, offset, dst, trowmax)
}

/// `TLOAD(t, src[offset]); TROWMIN(dst, t)` in one pass (see [`tload_rowsum`]).
#[inline]
pub fn tload_rowmin<T: Element, const R: usize, const C: usize>(
    t: &mut Tile<T, R, C>,
    src: &Tensor<T>,
    offset: impl Offset,
    dst: &mut Tile<T, R, 1>,
) -> Result<(), Error> {
    tload_reduce::<T, Min, R, C>(t, src, offset, dst, trowmin)
}

/// One row of [`trowexpand_map_rowsum`]: `w[j] = f(a[j], r).0`, and the
/// [`lane_sum`](super::lane_sum) of the `.1`s.
#[inline(always)]
pub(super) fn map_sum_row<T: Element>(
    w: &mut [T],
    a: &[T],
    r: T,
    f: &impl Fn(T, T) -> (T, T),
) -> T {
    let mut acc = [T::ZERO; SUM_LANES];
    let (wg, wt) = w.as_chunks_mut::<SUM_LANES>();
    let (ag, at) = a.as_chunks::<SUM_LANES>();
    for (w, a) in wg.iter_mut().zip(ag) {
        // The chunk read whole before any of it is written (see `map_sum_rows`).
        let a: [T; SUM_LANES] = *a;
        for ((w, &x), s) in w.iter_mut().zip(&a).zip(&mut acc) {
            let (v, y) = f(x, r);
            *w = v;
            *s = s.add(y);
        }
    }
    let mut sum = fold_halves(acc);
    for (w, &x) in wt.iter_mut().zip(at) {
        let (v, y) = f(x, r);
        *w = v;
        sum = sum.add(y);
    }
    sum
}

/// [`map_sum_row`] with `a` the row `w` itself.
#[inline(always)]
fn map_sum_row_inplace<T: Element>(w: &mut [T], r: T, f: &impl Fn(T, T) -> (T, T)) -> T {
    let mut acc = [T::ZERO; SUM_LANES];
    let (wg, wt) = w.as_chunks_mut::<SUM_LANES>();
    for w in wg.iter_mut() {
        for (w, s) in w.iter_mut().zip(&mut acc) {
            let (v, y) = f(*w, r);
            *w = v;
            *s = s.add(y);
        }
    }
    let mut sum = fold_halves(acc);
    for w in wt {
        let (v, y) = f(*w, r);
        *w = v;
        sum = sum.add(y);
    }
    sum
}

/// `sum[i][0] = map_sum_row(w[i], a's row i, r[i][0])` for the rows `i < vr` (`vc` columns),
/// `a`'s rows (a tile's or a window read in place) `stride` apart. `a` is a parameter of its
/// own, not in a tuple or an `Option`, so that the compiler knows it is not `w`: otherwise
/// it kept each element's load after the store before it (scalar code, a layernorm's
/// `x - mean` pass 1.7x slower).
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
))]
pub(super) fn map_sum_rows<T: Element, F: Fn(T, T) -> (T, T), const C: usize>(
    sum: &mut [[T; 1]],
    w: &mut [[T; C]],
    a: &[T],
    stride: usize,
    r: &[[T; 1]],
    (vr, vc): (usize, usize),
    f: F,
) {
    let rows = sum.iter_mut().zip(w).zip(r).zip(a.chunks(stride.max(1)));
    for (((s, w), r), a) in rows.take(vr) {
        if let (Some(w), Some(a)) = (w.get_mut(..vc), a.get(..vc)) {
            s[0] = map_sum_row(w, a, r[0], &f);
        }
    }
}

/// [`map_sum_rows`] with `a` the rows of `w` themselves.
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
))]
fn map_sum_rows_inplace<T: Element, F: Fn(T, T) -> (T, T), const C: usize>(
    sum: &mut [[T; 1]],
    w: &mut [[T; C]],
    r: &[[T; 1]],
    (vr, vc): (usize, usize),
    f: F,
) {
    for ((s, w), r) in sum.iter_mut().zip(w).zip(r).take(vr) {
        if let Some(w) = w.get_mut(..vc) {
            s[0] = map_sum_row_inplace(w, r[0], &f);
        }
    }
}

/// `TROWEXPAND{op}(d0, a, r)`, then elementwise ops of one tile each reading the one before
/// (`TEXP(d1, d0)`, `TMUL(d1, d0, d0)` ...), then `TROWSUM(sum, dk)` of the last, in one
/// pass, for a run of which only `w` is read afterwards: `f(a[i, j], r[i, 0])` gives the
/// value the run leaves in `w` and the value summed. `w` and `sum` get the run's valid
/// regions (`a`'s rows as far as `r` covers them, `a`'s columns, and those rows by one), the
/// sums [`lane_sum`](super::lane_sum)'s order; the run's other tiles are not written (nothing reads them).
#[inline]
pub fn trowexpand_map_rowsum<T: Element, const R: usize, const C: usize>(
    sum: &mut Tile<T, R, 1>,
    w: &mut Tile<T, R, C>,
    a: &Tile<T, R, C>,
    r: &Tile<T, R, 1>,
    f: impl Fn(T, T) -> (T, T),
) {
    let (vr, vc) = row_region(a, r);
    map_sum_rows(
        &mut sum.data,
        &mut w.data,
        a.data.as_flattened(),
        C,
        &r.data,
        (vr, vc),
        f,
    );
    w.set_valid_clamped(vr, vc);
    sum.set_valid_clamped(vr, 1);
}

/// [`trowexpand_map_rowsum`] with `w` as the broadcast's source (`TROWEXPANDSUB(w, w, r)`
/// ...).
#[inline]
pub fn trowexpand_map_rowsum_inplace<T: Element, const R: usize, const C: usize>(
    sum: &mut Tile<T, R, 1>,
    w: &mut Tile<T, R, C>,
    r: &Tile<T, R, 1>,
    f: impl Fn(T, T) -> (T, T),
) {
    let (vr, vc) = row_region(w, r);
    map_sum_rows_inplace(&mut sum.data, &mut w.data, &r.data, (vr, vc), f);
    w.set_valid_clamped(vr, vc);
    sum.set_valid_clamped(vr, 1);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::test_data::{WINDOWS, bits, tensor, value};
    use crate::isa::{texp_inplace, tmul, trowexpandsub, trowexpandsub_inplace};

    /// Fills: mixed values, rows of zeros of both signs only, NaN and zeros, one NaN
    /// with numbers, all NaN.
    fn fills() -> Vec<Box<dyn Fn(usize) -> f32>> {
        vec![
            Box::new(value),
            Box::new(|k| if k.is_multiple_of(3) { 0.0 } else { -0.0 }),
            Box::new(|k| if k.is_multiple_of(5) { -0.0 } else { f32::NAN }),
            Box::new(|k| {
                if k.is_multiple_of(17) {
                    f32::NAN
                } else {
                    -(k as f32)
                }
            }),
            Box::new(|_| f32::NAN),
            // Zeros of both signs at other positions than the row's first (a row max of
            // zero, +0 when the row has one; a row min, -0).
            Box::new(|k| match k % 19 {
                7 => 0.0,
                2 | 13 => -0.0,
                _ => -1.0,
            }),
            Box::new(|k| match k % 23 {
                3 => -0.0,
                1 | 18 => 0.0,
                _ => 1.0,
            }),
        ]
    }

    #[test]
    fn load_and_reduce_match_the_two_instructions() {
        type Fused = fn(
            &mut Tile<f32, 4, 40>,
            &Tensor<f32>,
            &[usize],
            &mut Tile<f32, 4, 1>,
        ) -> Result<(), Error>;
        type Plain = fn(&mut Tile<f32, 4, 1>, &Tile<f32, 4, 40>);
        let pairs: [(&str, Fused, Plain); 3] = [
            ("sum", |t, x, o, d| tload_rowsum(t, x, o, d), trowsum),
            ("max", |t, x, o, d| tload_rowmax(t, x, o, d), trowmax),
            ("min", |t, x, o, d| tload_rowmin(t, x, o, d), trowmin),
        ];
        for (i, fill) in fills().iter().enumerate() {
            for &(shape, offset) in WINDOWS {
                let x = tensor(shape, fill);
                for (name, fused, plain) in pairs {
                    let what = format!("{name} fill {i} {shape:?} {offset:?}");
                    let (mut t, mut d) = (Tile::<f32, 4, 40>::full(7.0), Tile::full(5.0));
                    let want = tload(&mut t, &x, offset).map(|()| plain(&mut d, &t));
                    let (mut t2, mut d2) = (Tile::<f32, 4, 40>::full(7.0), Tile::full(5.0));
                    let got = fused(&mut t2, &x, offset, &mut d2);
                    assert_eq!(format!("{got:?}"), format!("{want:?}"), "{what}");
                    assert_eq!(bits(&t2), bits(&t), "{what}");
                    assert_eq!(t2.valid(), t.valid(), "{what}");
                    assert_eq!(bits(&d2), bits(&d), "{what}");
                    assert_eq!(d2.valid(), d.valid(), "{what}");
                }
            }
        }
    }

    #[test]
    fn one_by_one_load_and_reduce() {
        let x = tensor(&[3, 2], |k| k as f32 - 0.5);
        let (mut t, mut d) = (Tile::<f32, 1, 1>::zeros(), Tile::<f32, 1, 1>::zeros());
        tload_rowmax(&mut t, &x, [2, 1], &mut d).unwrap();
        assert_eq!((t.to_vec(), d.to_vec()), (vec![4.5], vec![4.5]));
        tload_rowsum(&mut t, &x, [0, 0], &mut d).unwrap();
        assert_eq!((t.to_vec(), d.to_vec()), (vec![-0.5], vec![-0.5]));
    }

    /// The tile regions of a broadcast's operands: whole, ragged, `r` shorter, `r` empty.
    type Region = (usize, usize);
    const REGIONS: &[(Region, Region)] = &[
        ((4, 40), (4, 1)),
        ((3, 37), (4, 1)),
        ((4, 17), (2, 1)),
        ((4, 40), (4, 0)),
        ((1, 1), (1, 1)),
        ((4, 0), (4, 1)),
    ];

    #[test]
    fn broadcast_runs_match_the_instructions() {
        for (i, fill) in fills().iter().enumerate() {
            for &(ar, rr) in REGIONS {
                let what = format!("fill {i} {ar:?} {rr:?}");
                let a = Tile::<f32, 4, 40>::from_fn(|r, c| fill(r * 40 + c) * 0.25)
                    .with_valid(ar.0, ar.1)
                    .unwrap();
                let r = Tile::<f32, 4, 1>::from_fn(|r, _| fill(r + 3))
                    .with_valid(rr.0, rr.1)
                    .unwrap();
                // exp(a - r), kept and summed (softmax): into another tile, then in place.
                let (mut e, mut s) = (Tile::<f32, 4, 40>::full(2.0), Tile::<f32, 4, 1>::full(3.0));
                trowexpandsub(&mut e, &a, &r);
                texp_inplace(&mut e);
                trowsum(&mut s, &e);
                let (mut e2, mut s2) =
                    (Tile::<f32, 4, 40>::full(2.0), Tile::<f32, 4, 1>::full(3.0));
                let f = |x: f32, m: f32| {
                    let v = crate::element::Float::exp(x - m);
                    (v, v)
                };
                trowexpand_map_rowsum(&mut s2, &mut e2, &a, &r, f);
                assert_eq!(bits(&e2), bits(&e), "{what}");
                assert_eq!(bits(&s2), bits(&s), "{what}");
                assert_eq!((e2.valid(), s2.valid()), (e.valid(), s.valid()), "{what}");
                let (mut e, mut s) = (a.clone(), Tile::<f32, 4, 1>::full(3.0));
                trowexpandsub_inplace(&mut e, &r);
                texp_inplace(&mut e);
                trowsum(&mut s, &e);
                let (mut e2, mut s2) = (a.clone(), Tile::<f32, 4, 1>::full(3.0));
                trowexpand_map_rowsum_inplace(&mut s2, &mut e2, &r, f);
                assert_eq!(bits(&e2), bits(&e), "in place {what}");
                assert_eq!(bits(&s2), bits(&s), "in place {what}");

                // d = a - r kept, d * d summed (layernorm).
                let (mut d, mut sq, mut s) = (
                    a.clone(),
                    Tile::<f32, 4, 40>::zeros(),
                    Tile::<f32, 4, 1>::full(3.0),
                );
                trowexpandsub_inplace(&mut d, &r);
                tmul(&mut sq, &d, &d);
                trowsum(&mut s, &sq);
                let (mut d2, mut s2) = (a.clone(), Tile::<f32, 4, 1>::full(3.0));
                trowexpand_map_rowsum_inplace(&mut s2, &mut d2, &r, |x, m| {
                    let v = x - m;
                    (v, v * v)
                });
                assert_eq!(bits(&d2), bits(&d), "sq {what}");
                assert_eq!(bits(&s2), bits(&s), "sq {what}");
                assert_eq!(
                    (d2.valid(), s2.valid()),
                    (d.valid(), s.valid()),
                    "sq {what}"
                );
            }
        }
    }
}
