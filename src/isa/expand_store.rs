//! Broadcasts written straight into a store, for the CPU.
//!
//! A softmax ends with `TROWEXPANDDIV(e, e, s); TSTORE(out[..], e)`, `x - rowmax(x)` with
//! `TROWEXPANDSUB(d, x, m); TSTORE(y[..], d)`: on the NPU the op fills a tile and the store
//! moves it out. On the CPU that is a pass writing the tile and a pass copying it, so when
//! nothing reads the tile after the store, the code generator (`pto-lower`'s
//! `lower/pairs.rs`) calls these functions instead: they compute each element once and write
//! it into the store's window.
//!
//! The tensor gets exactly what the two instructions write, and the same error: the op's
//! valid region, clipped to the tensor, each element `f(a, r)` (`f(a, c)`). The tile `d` is
//! left as it was, but for its valid region (the op's); the code generator calls these only
//! for a tile nothing reads afterwards. A window off the plain path (a rank other than 1 or
//! 2, an offset outside the tensor) runs the two instructions, with their error.

use super::TensorMut;
use super::memory::Plain;
use super::row_region;
use super::{Offset, tstore};
use super::{col_expand_inplace, col_expand_op, col_region, row_expand_inplace, row_expand_op};
use crate::{Error, Tile};

/// `out[i * stride + j] = f(a[i * a_stride + j], r[i][0])` for `i < rows`, `j < cols` (`a` a
/// tile's rows, `a_stride` its width, or a tensor window read in place, `super::view`).
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
))]
pub(super) fn row_into<T: Copy, F: Fn(T, T) -> T>(
    out: &mut [T],
    stride: usize,
    (a, a_stride): (&[T], usize),
    r: &[[T; 1]],
    rows: usize,
    cols: usize,
    f: F,
) {
    for ((o, a), r) in out
        .chunks_mut(stride)
        .zip(a.chunks(a_stride.max(1)))
        .zip(r)
        .take(rows)
    {
        let r = r[0];
        if let (Some(o), Some(a)) = (o.get_mut(..cols), a.get(..cols)) {
            for (o, &a) in o.iter_mut().zip(a) {
                *o = f(a, r);
            }
        }
    }
}

/// `out[i * stride + j] = f(a[i * a_stride + j], c[j])` for `i < rows`, `j < cols` (`a` as
/// in [`row_into`]).
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
))]
pub(super) fn col_into<T: Copy, F: Fn(T, T) -> T>(
    out: &mut [T],
    stride: usize,
    (a, a_stride): (&[T], usize),
    c: &[T],
    rows: usize,
    cols: usize,
    f: F,
) {
    for (o, a) in out
        .chunks_mut(stride)
        .zip(a.chunks(a_stride.max(1)))
        .take(rows)
    {
        if let (Some(o), Some(a), Some(c)) = (o.get_mut(..cols), a.get(..cols), c.get(..cols)) {
            for ((o, &a), &c) in o.iter_mut().zip(a).zip(c) {
                *o = f(a, c);
            }
        }
    }
}

/// The window of a store of a `rows x cols` region at `offset`, on the plain path.
pub(super) fn window<T: Copy>(
    dst: &(impl TensorMut<T> + ?Sized),
    offset: &[usize],
    rows: usize,
    cols: usize,
) -> Option<Plain> {
    Plain::new(dst.shape(), offset, rows, cols)
}

/// `TROWEXPAND{op}(d, a, r); TSTORE(dst[offset], d)` in one pass, `f` the op's element
/// function (`dst[i, j] = f(a[i, j], r[i, 0])`); `d` is left unwritten but for its valid
/// region (see the module docs).
#[inline]
pub fn trowexpand_store<T: Copy, const R: usize, const C: usize>(
    dst: &mut (impl TensorMut<T> + ?Sized),
    offset: impl Offset,
    d: &mut Tile<T, R, C>,
    a: &Tile<T, R, C>,
    r: &Tile<T, R, 1>,
    f: impl Fn(T, T) -> T,
) -> Result<(), Error> {
    let offset = offset.into_usizes();
    let offset = offset.as_ref();
    let (vr, vc) = row_region(a, r);
    let Some(p) = window(dst, offset, vr, vc) else {
        row_expand_op(d, a, r, f);
        return tstore(dst, d, offset);
    };
    if let Some(out) = dst.tail_mut(p.start) {
        row_into(
            out,
            p.stride,
            (a.data.as_flattened(), C),
            &r.data,
            p.rows,
            p.cols,
            f,
        );
    }
    d.set_valid_clamped(vr, vc);
    Ok(())
}

/// `TROWEXPAND{op}(d, d, r); TSTORE(dst[offset], d)` in one pass (see [`trowexpand_store`]).
#[inline]
pub fn trowexpand_store_inplace<T: Copy, const R: usize, const C: usize>(
    dst: &mut (impl TensorMut<T> + ?Sized),
    offset: impl Offset,
    d: &mut Tile<T, R, C>,
    r: &Tile<T, R, 1>,
    f: impl Fn(T, T) -> T,
) -> Result<(), Error> {
    let offset = offset.into_usizes();
    let offset = offset.as_ref();
    let (vr, vc) = row_region(d, r);
    let Some(p) = window(dst, offset, vr, vc) else {
        row_expand_inplace(d, r, f);
        return tstore(dst, d, offset);
    };
    if let Some(out) = dst.tail_mut(p.start) {
        row_into(
            out,
            p.stride,
            (d.data.as_flattened(), C),
            &r.data,
            p.rows,
            p.cols,
            f,
        );
    }
    d.set_valid_clamped(vr, vc);
    Ok(())
}

/// `TCOLEXPAND{op}(d, a, c); TSTORE(dst[offset], d)` in one pass, `f` the op's element
/// function (`dst[i, j] = f(a[i, j], c[0, j])`); `d` is left unwritten but for its valid
/// region (see the module docs).
#[inline]
pub fn tcolexpand_store<T: Copy, const R: usize, const C: usize>(
    dst: &mut (impl TensorMut<T> + ?Sized),
    offset: impl Offset,
    d: &mut Tile<T, R, C>,
    a: &Tile<T, R, C>,
    c: &Tile<T, 1, C>,
    f: impl Fn(T, T) -> T,
) -> Result<(), Error> {
    let offset = offset.into_usizes();
    let offset = offset.as_ref();
    let (vr, vc) = col_region(a, c);
    let (Some(p), Some(crow)) = (window(dst, offset, vr, vc), c.data.first()) else {
        col_expand_op(d, a, c, f);
        return tstore(dst, d, offset);
    };
    if let Some(out) = dst.tail_mut(p.start) {
        col_into(
            out,
            p.stride,
            (a.data.as_flattened(), C),
            crow,
            p.rows,
            p.cols,
            f,
        );
    }
    d.set_valid_clamped(vr, vc);
    Ok(())
}

/// `TCOLEXPAND{op}(d, d, c); TSTORE(dst[offset], d)` in one pass (see [`tcolexpand_store`]).
#[inline]
pub fn tcolexpand_store_inplace<T: Copy, const R: usize, const C: usize>(
    dst: &mut (impl TensorMut<T> + ?Sized),
    offset: impl Offset,
    d: &mut Tile<T, R, C>,
    c: &Tile<T, 1, C>,
    f: impl Fn(T, T) -> T,
) -> Result<(), Error> {
    let offset = offset.into_usizes();
    let offset = offset.as_ref();
    let (vr, vc) = col_region(d, c);
    let (Some(p), Some(crow)) = (window(dst, offset, vr, vc), c.data.first()) else {
        col_expand_inplace(d, c, f);
        return tstore(dst, d, offset);
    };
    if let Some(out) = dst.tail_mut(p.start) {
        col_into(
            out,
            p.stride,
            (d.data.as_flattened(), C),
            crow,
            p.rows,
            p.cols,
            f,
        );
    }
    d.set_valid_clamped(vr, vc);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Tensor;
    use crate::isa::{tcolexpandsub, tcolexpandsub_inplace, trowexpanddiv, trowexpanddiv_inplace};

    fn iota(shape: &[usize], k: f32) -> Tensor<f32> {
        let n = shape.iter().product::<usize>();
        Tensor::from_vec_dyn(
            (0..n).map(|x| (x * 7 % 23) as f32 * k - 9.0).collect(),
            shape,
        )
        .unwrap()
    }

    /// Tile regions (including empty broadcast operands), store shapes and offsets: whole
    /// windows, ragged edges, rank 1, rank 3 (the general path) and offsets outside (errors).
    type Case = (
        (usize, usize),
        (usize, usize),
        &'static [usize],
        &'static [usize],
    );
    const CASES: &[Case] = &[
        ((4, 8), (4, 1), &[8, 8], &[4, 0]),
        ((4, 8), (4, 1), &[10, 13], &[8, 9]),
        ((3, 5), (2, 1), &[10, 13], &[1, 2]),
        ((4, 8), (0, 1), &[8, 8], &[0, 0]),
        ((4, 8), (4, 1), &[6], &[2]),
        ((4, 8), (4, 1), &[3, 4, 8], &[1, 0, 0]),
        ((4, 8), (4, 1), &[8, 8], &[8, 0]),
        ((4, 8), (4, 1), &[8, 8], &[0]),
    ];

    fn tiles(a: (usize, usize), b: (usize, usize)) -> (Tile<f32, 4, 8>, Tile<f32, 4, 1>) {
        let t = Tile::from_fn(|i, j| (i * 8 + j) as f32 - 5.5);
        let r = Tile::from_fn(|i, _| i as f32 + 0.5);
        (
            t.with_valid(a.0, a.1).unwrap(),
            r.with_valid(b.0, b.1).unwrap(),
        )
    }

    #[test]
    fn row_broadcasts_match_the_two_instructions() {
        for &(ar, rr, shape, offset) in CASES {
            let what = format!("{ar:?} {rr:?} {shape:?} {offset:?}");
            let (a, r) = tiles(ar, rr);
            let mut want = iota(shape, 0.5);
            let mut got = want.clone();
            let mut d = Tile::<f32, 4, 8>::full(3.0);
            trowexpanddiv(&mut d, &a, &r);
            let w = tstore(&mut want, &d, offset);
            let mut d2 = Tile::<f32, 4, 8>::full(3.0);
            let g = trowexpand_store(&mut got, offset, &mut d2, &a, &r, |x, y| x / y);
            assert_eq!(format!("{g:?}"), format!("{w:?}"), "{what}");
            assert_eq!(got.as_slice(), want.as_slice(), "{what}");
            assert_eq!(d2.valid(), d.valid(), "{what}");

            let mut want = iota(shape, 0.5);
            let mut got = want.clone();
            let mut d = a.clone();
            trowexpanddiv_inplace(&mut d, &r);
            let w = tstore(&mut want, &d, offset);
            let mut d2 = a.clone();
            let g = trowexpand_store_inplace(&mut got, offset, &mut d2, &r, |x, y| x / y);
            assert_eq!(format!("{g:?}"), format!("{w:?}"), "in place {what}");
            assert_eq!(got.as_slice(), want.as_slice(), "in place {what}");
        }
    }

    #[test]
    fn column_broadcasts_match_the_two_instructions() {
        for &(ar, (cr, _), shape, offset) in CASES {
            let (a, _) = tiles(ar, (4, 1));
            for cc in [8, 5] {
                let what = format!("{ar:?} {cr} x {cc} {shape:?} {offset:?}");
                let c = Tile::<f32, 1, 8>::from_fn(|_, j| j as f32 * 0.25)
                    .with_valid(cr.min(1), cc)
                    .unwrap();
                let mut want = iota(shape, 0.5);
                let mut got = want.clone();
                let mut d = Tile::<f32, 4, 8>::full(3.0);
                tcolexpandsub(&mut d, &a, &c);
                let w = tstore(&mut want, &d, offset);
                let mut d2 = Tile::<f32, 4, 8>::full(3.0);
                let g = tcolexpand_store(&mut got, offset, &mut d2, &a, &c, |x, y| x - y);
                assert_eq!(format!("{g:?}"), format!("{w:?}"), "{what}");
                assert_eq!(got.as_slice(), want.as_slice(), "{what}");

                let mut want = iota(shape, 0.5);
                let mut got = want.clone();
                let mut d = a.clone();
                tcolexpandsub_inplace(&mut d, &c);
                let w = tstore(&mut want, &d, offset);
                let mut d2 = a.clone();
                let g = tcolexpand_store_inplace(&mut got, offset, &mut d2, &c, |x, y| x - y);
                assert_eq!(format!("{g:?}"), format!("{w:?}"), "in place {what}");
                assert_eq!(got.as_slice(), want.as_slice(), "in place {what}");
            }
        }
    }
}
