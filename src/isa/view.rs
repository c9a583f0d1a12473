//! Loaded tiles read in place, for the CPU.
//!
//! `TLOAD(t, x[..])` copies a window of `x` into `t`; on the NPU that move is the only way in.
//! On the CPU, when the instructions after the load only read `t` through the calls below (a
//! row reduction, a broadcast written into a store) and `t` is dead after them, the copy is a pass over the tile that nothing needs: the
//! code generator (`pto-lower`'s `lower/load_views.rs`) asks [`tload_view`] for the window and,
//! on the plain path (a rank-1/2 tensor, the offset inside it), runs those instructions on
//! it; otherwise it runs them as before, after the `TLOAD`. The C++ is unchanged.
//!
//! Each `_view` call gives its destinations exactly what the instruction gives them when it
//! reads the loaded tile: the tile's valid region is the window's in-bounds part, as
//! [`tload`](super::tload) sets it; the reductions are `reduce.rs`'s, in the same order.

use super::TensorMut;
use super::expand::{col_region_of, row_region_of};
use super::expand_store::{col_into, row_into, window};
use super::memory::Plain;
use super::row_pass::{CopyReduce, Max, Min, Sum, map_sum_rows};
use super::{Offset, tcolexpand_store_inplace, trowexpand_store_inplace};
use crate::element::Element;
use crate::{Error, Tensor, Tile};

/// The window a `TLOAD` would copy into a tile, read in place: `rows x cols` elements (the
/// tile's valid region after the load), rows `stride` apart from `data[0]`.
#[derive(Clone, Copy, Debug)]
pub struct TileView<'a, T> {
    data: &'a [T],
    stride: usize,
    rows: usize,
    cols: usize,
}

impl<'a, T: Copy> TileView<'a, T> {
    /// The valid region the load gives the tile: `(rows, cols)`.
    pub fn valid(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// The rows as the row loops take them: the data and the distance between rows.
    pub(super) fn flat(&self) -> (&'a [T], usize) {
        (self.data, self.stride)
    }

    /// `TLOAD(t, ..)` of this window: the rows copied into `t`, its valid region set.
    fn load_into<const R: usize, const C: usize>(&self, t: &mut Tile<T, R, C>) {
        let rows = t.data.iter_mut().zip(self.data.chunks(self.stride.max(1)));
        for (d, s) in rows.take(self.rows) {
            if let (Some(d), Some(s)) = (d.get_mut(..self.cols), s.get(..self.cols)) {
                d.copy_from_slice(s);
            }
        }
        t.set_valid_clamped(self.rows, self.cols);
    }
}

/// The window `TLOAD(t, src[offset])` would copy into `t`, when it is on the plain path (a
/// rank-1 or rank-2 tensor, the offset inside it); `None` otherwise, and the caller runs the
/// `TLOAD` (and gets its error). `t` is neither read nor written: it only gives the shape.
#[inline]
pub fn tload_view<'a, T: Copy, const R: usize, const C: usize>(
    _t: &Tile<T, R, C>,
    src: &'a Tensor<T>,
    offset: impl Offset,
) -> Option<TileView<'a, T>> {
    let offset = offset.into_usizes();
    let p = Plain::new(src.shape(), offset.as_ref(), R, C)?;
    let data = src.as_slice().get(p.start..)?;
    Some(TileView {
        data,
        stride: p.stride,
        rows: p.rows,
        cols: p.cols,
    })
}

/// Whether the whole `rows x cols` window at `offset` lies inside `dst` on the plain path (a
/// rank-2 tensor, or rank 1 for one row): a transfer of a whole tile there moves all of it,
/// and so do the transfers of its rows one at a time. The host code's row-split runs
/// (`pto-lower`'s `lower/row_split.rs`) test it before they run.
#[inline]
pub fn window_fits<T>(
    dst: &(impl TensorMut<T> + ?Sized),
    offset: impl Offset,
    rows: usize,
    cols: usize,
) -> bool {
    let offset = offset.into_usizes();
    Plain::new(dst.shape(), offset.as_ref(), rows, cols)
        .is_some_and(|p| (p.rows, p.cols) == (rows, cols))
}

/// `out[i][0] = K::reduce(row i)` for the view's rows.
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
))]
fn reduce_rows<T: Copy, K: CopyReduce<T>>(
    out: &mut [[T; 1]],
    src: &[T],
    stride: usize,
    rows: usize,
    cols: usize,
) {
    for (o, s) in out.iter_mut().zip(src.chunks(stride.max(1))).take(rows) {
        if let Some(s) = s.get(..cols) {
            o[0] = K::reduce(s);
        }
    }
}

#[inline(always)]
fn reduce_view<T: Element, K: CopyReduce<T>, const R: usize>(
    dst: &mut Tile<T, R, 1>,
    v: &TileView<'_, T>,
) {
    reduce_rows::<T, K>(&mut dst.data, v.data, v.stride, v.rows, v.cols);
    dst.set_valid_clamped(v.rows, 1);
}

/// `TROWSUM(dst, t)` of the tile `t` loaded as `v` (see the module docs).
#[inline]
pub fn trowsum_view<T: Element, const R: usize>(dst: &mut Tile<T, R, 1>, v: &TileView<'_, T>) {
    reduce_view::<T, Sum, R>(dst, v);
}

/// `TROWMAX(dst, t)` of the tile `t` loaded as `v`.
#[inline]
pub fn trowmax_view<T: Element, const R: usize>(dst: &mut Tile<T, R, 1>, v: &TileView<'_, T>) {
    reduce_view::<T, Max, R>(dst, v);
}

/// `TROWMIN(dst, t)` of the tile `t` loaded as `v`.
#[inline]
pub fn trowmin_view<T: Element, const R: usize>(dst: &mut Tile<T, R, 1>, v: &TileView<'_, T>) {
    reduce_view::<T, Min, R>(dst, v);
}

/// `TROWEXPAND{op}(d0, t, r)`, elementwise ops, `TROWSUM(sum, dk)` (the run of
/// [`trowexpand_map_rowsum`](super::trowexpand_map_rowsum)) of the tile `t` loaded as `a`,
/// its values kept in another tile `w`: `w` and `sum` get what that call gives them.
#[inline]
pub fn trowexpand_map_rowsum_view<T: Element, const R: usize, const C: usize>(
    sum: &mut Tile<T, R, 1>,
    w: &mut Tile<T, R, C>,
    a: &TileView<'_, T>,
    r: &Tile<T, R, 1>,
    f: impl Fn(T, T) -> (T, T),
) {
    let (vr, vc) = row_region_of(a.valid(), r);
    let (data, stride) = a.flat();
    map_sum_rows(
        &mut sum.data,
        &mut w.data,
        data,
        stride,
        &r.data,
        (vr, vc),
        f,
    );
    w.set_valid_clamped(vr, vc);
    sum.set_valid_clamped(vr, 1);
}

/// The same run kept in the loaded tile `t` itself: `t` and `sum` get what `TLOAD(t, ..)`
/// and then [`trowexpand_map_rowsum_inplace`](super::trowexpand_map_rowsum_inplace) give
/// them (the run's values; in rows `r` does not cover, the window's). The window is read
/// once, by the run, instead of copied into `t` and read back (a softmax's `exp(x - max)`,
/// a layernorm's `x - mean`).
#[inline]
pub fn trowexpand_map_rowsum_view_into<T: Element, const R: usize, const C: usize>(
    sum: &mut Tile<T, R, 1>,
    t: &mut Tile<T, R, C>,
    a: &TileView<'_, T>,
    r: &Tile<T, R, 1>,
    f: impl Fn(T, T) -> (T, T),
) {
    let (vr, vc) = row_region_of(a.valid(), r);
    let (data, stride) = a.flat();
    map_sum_rows(
        &mut sum.data,
        &mut t.data,
        data,
        stride,
        &r.data,
        (vr, vc),
        f,
    );
    let rows = t.data.iter_mut().zip(a.data.chunks(a.stride.max(1)));
    for (d, s) in rows.take(a.rows).skip(vr) {
        if let (Some(d), Some(s)) = (d.get_mut(..a.cols), s.get(..a.cols)) {
            d.copy_from_slice(s);
        }
    }
    t.set_valid_clamped(vr, vc);
    sum.set_valid_clamped(vr, 1);
}

/// `TROWEXPAND{op}(d, t, r); TSTORE(dst[offset], d)` of the tile `t` loaded as `a`, as
/// [`trowexpand_store`](super::trowexpand_store) does it (`d` gets only its valid region; a
/// store off the plain path loads `a` into `d` and runs the two instructions).
#[inline]
pub fn trowexpand_store_view<T: Copy, const R: usize, const C: usize>(
    dst: &mut (impl TensorMut<T> + ?Sized),
    offset: impl Offset,
    d: &mut Tile<T, R, C>,
    a: &TileView<'_, T>,
    r: &Tile<T, R, 1>,
    f: impl Fn(T, T) -> T,
) -> Result<(), Error> {
    let offset = offset.into_usizes();
    let offset = offset.as_ref();
    let (vr, vc) = row_region_of(a.valid(), r);
    let Some(p) = window(dst, offset, vr, vc) else {
        a.load_into(d);
        return trowexpand_store_inplace(dst, offset, d, r, f);
    };
    if let Some(out) = dst.tail_mut(p.start) {
        row_into(out, p.stride, a.flat(), &r.data, p.rows, p.cols, f);
    }
    d.set_valid_clamped(vr, vc);
    Ok(())
}

/// `TCOLEXPAND{op}(d, t, c); TSTORE(dst[offset], d)` of the tile `t` loaded as `a` (see
/// [`trowexpand_store_view`]).
#[inline]
pub fn tcolexpand_store_view<T: Copy, const R: usize, const C: usize>(
    dst: &mut (impl TensorMut<T> + ?Sized),
    offset: impl Offset,
    d: &mut Tile<T, R, C>,
    a: &TileView<'_, T>,
    c: &Tile<T, 1, C>,
    f: impl Fn(T, T) -> T,
) -> Result<(), Error> {
    let offset = offset.into_usizes();
    let offset = offset.as_ref();
    let (vr, vc) = col_region_of(a.valid(), c);
    let (Some(p), Some(crow)) = (window(dst, offset, vr, vc), c.data.first()) else {
        a.load_into(d);
        return tcolexpand_store_inplace(dst, offset, d, c, f);
    };
    if let Some(out) = dst.tail_mut(p.start) {
        col_into(out, p.stride, a.flat(), crow, p.rows, p.cols, f);
    }
    d.set_valid_clamped(vr, vc);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::test_data::{WINDOWS, bits, tensor, value};
    use crate::isa::{
        tcolexpandmul, tload, trowexpand_map_rowsum, trowexpand_map_rowsum_inplace, trowexpanddiv,
        trowmax, trowmin, trowsum, tstore,
    };

    /// Fills: mixed values (zeros of both signs, NaN, infinities), zeros of both signs only,
    /// NaN and zeros.
    fn fills() -> [fn(usize) -> f32; 3] {
        [
            value,
            |k| if k.is_multiple_of(3) { 0.0 } else { -0.0 },
            |k| if k.is_multiple_of(5) { -0.0 } else { f32::NAN },
        ]
    }

    /// Store windows for a 4 x 40 tile: whole, ragged, rank 1, rank 3 (the general path),
    /// outside (an error).
    const STORES: &[(&[usize], &[usize])] = &[
        (&[8, 40], &[4, 0]),
        (&[10, 53], &[8, 9]),
        (&[6], &[2]),
        (&[3, 4, 40], &[1, 0, 0]),
        (&[8, 40], &[8, 0]),
    ];

    /// The broadcast operands: whole, fewer rows (columns), empty.
    fn operands() -> Vec<(Tile<f32, 4, 1>, Tile<f32, 1, 40>)> {
        let r = Tile::<f32, 4, 1>::from_fn(|i, _| value(i + 5) * 0.5 + 0.25);
        let c = Tile::<f32, 1, 40>::from_fn(|_, j| value(j + 11));
        [((4, 1), (1, 40)), ((2, 1), (1, 17)), ((4, 0), (0, 40))]
            .into_iter()
            .map(|(rv, cv)| {
                (
                    r.clone().with_valid(rv.0, rv.1).unwrap(),
                    c.clone().with_valid(cv.0, cv.1).unwrap(),
                )
            })
            .collect()
    }

    /// Each window of each fill: the view (when on the plain path) and the loaded tile.
    fn cases() -> Vec<(String, Tensor<f32>, &'static [usize])> {
        let mut out = Vec::new();
        for (i, fill) in fills().into_iter().enumerate() {
            for &(shape, offset) in WINDOWS {
                let what = format!("fill {i} {shape:?} {offset:?}");
                out.push((what, tensor(shape, fill), offset));
            }
        }
        out
    }

    #[test]
    fn a_view_is_the_plain_path_of_the_load() {
        for (what, x, offset) in cases() {
            let mut t = Tile::<f32, 4, 40>::full(7.0);
            let loaded = tload(&mut t, &x, offset);
            let plain = x.rank() <= 2 && loaded.is_ok();
            match tload_view(&t, &x, offset) {
                Some(v) => {
                    assert!(plain, "{what}");
                    assert_eq!(v.valid(), t.valid(), "{what}");
                    let mut u = Tile::<f32, 4, 40>::full(7.0);
                    v.load_into(&mut u);
                    assert_eq!(bits(&u), bits(&t), "{what}");
                }
                None => assert!(!plain, "{what}"),
            }
        }
        let one = tensor(&[3, 2], |k| k as f32 - 0.5);
        let t = Tile::<f32, 1, 1>::zeros();
        let v = tload_view(&t, &one, [2, 1]).unwrap();
        let mut m = Tile::<f32, 1, 1>::zeros();
        trowmax_view(&mut m, &v);
        assert_eq!((v.valid(), m.to_vec()), ((1, 1), vec![4.5]));
    }

    #[test]
    fn row_reductions_match_the_instructions() {
        type Plain = fn(&mut Tile<f32, 4, 1>, &Tile<f32, 4, 40>);
        type View = fn(&mut Tile<f32, 4, 1>, &TileView<'_, f32>);
        let pairs: [(&str, Plain, View); 3] = [
            ("sum", trowsum, trowsum_view),
            ("max", trowmax, trowmax_view),
            ("min", trowmin, trowmin_view),
        ];
        for (what, x, offset) in cases() {
            let mut t = Tile::<f32, 4, 40>::full(7.0);
            let Some(v) = tload_view(&t, &x, offset) else {
                continue;
            };
            tload(&mut t, &x, offset).unwrap();
            for (name, plain, view) in pairs {
                let (mut want, mut got) = (Tile::full(5.0), Tile::full(5.0));
                plain(&mut want, &t);
                view(&mut got, &v);
                assert_eq!(bits(&got), bits(&want), "{name} {what}");
                assert_eq!(got.valid(), want.valid(), "{name} {what}");
            }
        }
    }

    #[test]
    fn row_summed_runs_match_the_instructions() {
        // exp(t - r) kept and summed (a softmax), t - r kept and its squares summed (a
        // layernorm).
        type Run = fn(f32, f32) -> (f32, f32);
        let runs: [Run; 2] = [
            |x, m| {
                let v = crate::element::Float::exp(x - m);
                (v, v)
            },
            |x, m| (x - m, (x - m) * (x - m)),
        ];
        for (what, x, offset) in cases() {
            let mut t = Tile::<f32, 4, 40>::full(7.0);
            let Some(v) = tload_view(&t, &x, offset) else {
                continue;
            };
            tload(&mut t, &x, offset).unwrap();
            for (r, _) in operands() {
                for (k, f) in runs.into_iter().enumerate() {
                    let what = format!("{what} r {:?} run {k}", r.valid());
                    // Kept in another tile.
                    let (mut w, mut s) = (Tile::<f32, 4, 40>::full(2.0), Tile::full(3.0));
                    trowexpand_map_rowsum(&mut s, &mut w, &t, &r, f);
                    let (mut w2, mut s2) = (Tile::<f32, 4, 40>::full(2.0), Tile::full(3.0));
                    trowexpand_map_rowsum_view(&mut s2, &mut w2, &v, &r, f);
                    assert_eq!(bits(&w2), bits(&w), "{what}");
                    assert_eq!(bits(&s2), bits(&s), "{what}");
                    assert_eq!((w2.valid(), s2.valid()), (w.valid(), s.valid()), "{what}");
                    // Kept in the loaded tile: the load, then the run in place.
                    let (mut w, mut s) = (t.clone(), Tile::full(3.0));
                    trowexpand_map_rowsum_inplace(&mut s, &mut w, &r, f);
                    let (mut w2, mut s2) = (Tile::<f32, 4, 40>::full(7.0), Tile::full(3.0));
                    trowexpand_map_rowsum_view_into(&mut s2, &mut w2, &v, &r, f);
                    assert_eq!(bits(&w2), bits(&w), "into {what}");
                    assert_eq!(bits(&s2), bits(&s), "into {what}");
                    assert_eq!(
                        (w2.valid(), s2.valid()),
                        (w.valid(), s.valid()),
                        "into {what}"
                    );
                }
            }
        }
    }

    #[test]
    fn broadcast_stores_match_the_instructions() {
        for (what, x, offset) in cases() {
            let mut t = Tile::<f32, 4, 40>::full(7.0);
            let Some(v) = tload_view(&t, &x, offset) else {
                continue;
            };
            tload(&mut t, &x, offset).unwrap();
            for (r, c) in operands() {
                for &(shape, at) in STORES {
                    let what = format!(
                        "{what} r {:?} c {:?} -> {shape:?} {at:?}",
                        r.valid(),
                        c.valid()
                    );
                    let y = tensor(shape, |k| k as f32 * 0.5);

                    let (mut want, mut d) = (y.clone(), Tile::<f32, 4, 40>::full(3.0));
                    trowexpanddiv(&mut d, &t, &r);
                    let w = tstore(&mut want, &d, at);
                    let (mut got, mut d2) = (y.clone(), Tile::<f32, 4, 40>::full(3.0));
                    let g = trowexpand_store_view(&mut got, at, &mut d2, &v, &r, |a, b| a / b);
                    assert_eq!(format!("{g:?}"), format!("{w:?}"), "row {what}");
                    assert_eq!(got.as_slice().len(), want.as_slice().len());
                    let b = |t: &Tensor<f32>| {
                        t.as_slice().iter().map(|x| x.to_bits()).collect::<Vec<_>>()
                    };
                    assert_eq!(b(&got), b(&want), "row {what}");
                    assert_eq!(d2.valid(), d.valid(), "row {what}");

                    let (mut want, mut d) = (y.clone(), Tile::<f32, 4, 40>::full(3.0));
                    tcolexpandmul(&mut d, &t, &c);
                    let w = tstore(&mut want, &d, at);
                    let (mut got, mut d2) = (y.clone(), Tile::<f32, 4, 40>::full(3.0));
                    let g = tcolexpand_store_view(&mut got, at, &mut d2, &v, &c, |a, b| a * b);
                    assert_eq!(format!("{g:?}"), format!("{w:?}"), "col {what}");
                    assert_eq!(b(&got), b(&want), "col {what}");
                    assert_eq!(d2.valid(), d.valid(), "col {what}");
                }
            }
        }
    }
}
