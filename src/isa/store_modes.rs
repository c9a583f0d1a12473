//! The other `TSTORE` forms: the atomic-add store (`tstore_add`, a kernel's `store_add`) and
//! the converting store from an accumulator (`tstore_cvt`, an `f32` matmul result written
//! into an `f16` / `bf16` tensor) and the quantising store (`tstore_quant`, an `f32` / `i32`
//! accumulator written into an `i8` / `u8` tensor, or an `i32` one into `f16`: pto-isa's
//! `TSTORE(global, acc, preQuantScalar)`, with the rule of `pto_ir::sem::store`).
//!
//! The converting and quantising stores take a [`StoreMode`]: a plain write, or pto-isa's
//! atomic add. All address the window as [`super::tstore`] does (offsets inside the tensor, the tile's
//! valid region clipped to the tensor; the `_window` forms take the window of a rank-3 / 4
//! transfer) and write exactly the elements `tstore` would. A converting store rounds to
//! nearest even ([`crate::element::convert`] with [`RoundMode::CastRint`]); an adding store
//! adds in the tensor's dtype (`dst = dst + convert(src)`, rounded once more to the
//! tensor's dtype), as pto-isa's atomic add does in global memory. On the CPU one
//! instruction runs at a time, so the add needs no atomics; the kernel macro keeps
//! iterations whose windows may overlap in order.

use super::TensorMut;
use super::memory::{Offset, Window, default_window};
use crate::element::{Element, RoundMode, convert};
use crate::tensor::MAX_RANK;
use crate::{Error, Tile};
use pto_ir::DataType;
use pto_ir::sem::store::{Quant, quant_of, quantize};

/// Writes `f(dst element, src element)` over `src`'s valid region placed at `offset` with
/// `window`, clipped to the tensor (the element walk of `tstore_window`).
fn store_with<S: Copy, D: Copy, const R: usize, const C: usize>(
    what: &'static str,
    dst: &mut (impl TensorMut<D> + ?Sized),
    src: &Tile<S, R, C>,
    offset: &[usize],
    window: &[usize],
    f: impl Fn(D, S) -> D,
) -> Result<(), Error> {
    let w = Window::new(what, dst.shape(), offset, window, [R, C])?;
    let lead = w.lead();
    let rows = src.valid_rows.min(w.rows);
    let cols = src.valid_cols.min(w.ext[lead]);
    let mut strides = [0; MAX_RANK];
    strides[..=lead].copy_from_slice(dst.strides());
    let mut idx = [0; MAX_RANK];
    for row in src.data.iter().take(rows) {
        if let Some(start) = w.row_start(&idx, &strides[..=lead])
            && let Some(line) = dst.tail_mut(start).and_then(|d| d.get_mut(..cols))
        {
            for (d, &s) in line.iter_mut().zip(&row[..cols]) {
                *d = f(*d, s);
            }
        }
        w.next_row(&mut idx);
    }
    Ok(())
}

/// The default window of a plain transfer of an `R x C` tile into `dst`.
fn plain_window<T>(
    dst: &(impl TensorMut<T> + ?Sized),
    rows: usize,
    cols: usize,
) -> [usize; MAX_RANK] {
    default_window(dst.rank(), rows, cols)
}

/// `TSTORE<.., AtomicType::AtomicAdd>(dst[offset..], src)`: adds `src`'s valid region into
/// the window at `offset`.
pub fn tstore_add<T: Element, const R: usize, const C: usize>(
    dst: &mut (impl TensorMut<T> + ?Sized),
    src: &Tile<T, R, C>,
    offset: impl Offset,
) -> Result<(), Error> {
    let w = plain_window(dst, R, C);
    let rank = dst.rank();
    tstore_add_window(dst, src, offset.into_usizes().as_ref(), &w[..rank])
}

/// [`tstore_add`] with an explicit window (one size per tensor dimension).
pub fn tstore_add_window<T: Element, const R: usize, const C: usize>(
    dst: &mut (impl TensorMut<T> + ?Sized),
    src: &Tile<T, R, C>,
    offset: &[usize],
    window: &[usize],
) -> Result<(), Error> {
    store_with("tstore_add window", dst, src, offset, window, T::add)
}

/// How a converting or quantising store writes an element: pto-isa's `AtomicType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreMode {
    /// `AtomicNone`: the element replaces the tensor's.
    Write,
    /// `AtomicAdd`: the element is added to the tensor's, in the tensor's dtype.
    Add,
}

impl StoreMode {
    /// The tensor element after storing `x` over `d`.
    fn apply<D: Element>(self, d: D, x: D) -> D {
        match self {
            StoreMode::Write => x,
            StoreMode::Add => d.add(x),
        }
    }

    /// The name a window error gives the store.
    fn what(self) -> &'static str {
        match self {
            StoreMode::Write => "tstore window",
            StoreMode::Add => "tstore_add window",
        }
    }
}

/// `TSTORE(dst[offset..], src)` from an accumulator of another dtype: stores `src`'s valid
/// region converted to the tensor's dtype, rounding to nearest even; with
/// [`StoreMode::Add`], `dst += convert(src)`.
pub fn tstore_cvt<S: Element, D: Element, const R: usize, const C: usize>(
    dst: &mut (impl TensorMut<D> + ?Sized),
    src: &Tile<S, R, C>,
    offset: impl Offset,
    mode: StoreMode,
) -> Result<(), Error> {
    let w = plain_window(dst, R, C);
    let rank = dst.rank();
    tstore_cvt_window(dst, src, offset.into_usizes().as_ref(), &w[..rank], mode)
}

/// [`tstore_cvt`] with an explicit window.
pub fn tstore_cvt_window<S: Element, D: Element, const R: usize, const C: usize>(
    dst: &mut (impl TensorMut<D> + ?Sized),
    src: &Tile<S, R, C>,
    offset: &[usize],
    window: &[usize],
    mode: StoreMode,
) -> Result<(), Error> {
    store_with(mode.what(), dst, src, offset, window, |d, s| {
        mode.apply(d, convert::<S, D>(s, RoundMode::CastRint))
    })
}

/// The quantising conversion from `S` to `D`, or `Err` when pto-isa has none.
fn quant<S: Element, D: Element>() -> Result<Quant, Error> {
    DataType::from_name(S::NAME)
        .zip(DataType::from_name(D::NAME))
        .and_then(|(s, d)| quant_of(s, d))
        .ok_or_else(|| {
            Error::Unsupported(format!(
                "a quantising store from {} into {}: pto-isa quantises fp32 into int8 / uint8 and int32 into int8 / uint8 / fp16",
                S::NAME,
                D::NAME
            ))
        })
}

/// One element through the quantising store `q` with `scale`.
#[inline(always)]
fn quantized<S: Element, D: Element>(s: S, q: Quant, scale: f32) -> D {
    D::from_f32_rounded(quantize(s.to_f32(), q, scale), RoundMode::CastRint)
}

/// `TSTORE(dst[offset..], src, preQuantScalar)` from an accumulator: stores `src`'s valid
/// region multiplied by `scale`, rounded and saturated into `D` (`pto_ir::sem::store`); with
/// [`StoreMode::Add`], `dst += quantize(src)`, added in `D` (wrapping for integers).
pub fn tstore_quant<S: Element, D: Element, const R: usize, const C: usize>(
    dst: &mut (impl TensorMut<D> + ?Sized),
    src: &Tile<S, R, C>,
    offset: impl Offset,
    scale: f32,
    mode: StoreMode,
) -> Result<(), Error> {
    let w = plain_window(dst, R, C);
    let rank = dst.rank();
    tstore_quant_window(
        dst,
        src,
        offset.into_usizes().as_ref(),
        &w[..rank],
        scale,
        mode,
    )
}

/// [`tstore_quant`] with an explicit window.
pub fn tstore_quant_window<S: Element, D: Element, const R: usize, const C: usize>(
    dst: &mut (impl TensorMut<D> + ?Sized),
    src: &Tile<S, R, C>,
    offset: &[usize],
    window: &[usize],
    scale: f32,
    mode: StoreMode,
) -> Result<(), Error> {
    let q = quant::<S, D>()?;
    store_with(mode.what(), dst, src, offset, window, |d, s| {
        mode.apply(d, quantized(s, q, scale))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Tensor;
    use crate::f16;

    #[test]
    fn store_add_accumulates_the_valid_region_clipped() {
        let mut out = Tensor::<f32>::full([5, 6], 1.0);
        let mut t = Tile::<f32, 4, 4>::full(2.0);
        tstore_add(&mut out, &t, &[3, 4]).unwrap();
        tstore_add(&mut out, &t, &[3, 4]).unwrap();
        // A 2 x 2 corner is inside; it got 1 + 2 + 2.
        assert_eq!(out.get(&[4, 5]), Some(5.0));
        assert_eq!(out.get(&[3, 4]), Some(5.0));
        assert_eq!(out.get(&[2, 4]), Some(1.0));
        assert_eq!(out.as_slice().iter().sum::<f32>(), 30.0 + 16.0);
        // Only the valid region adds.
        t.set_valid(1, 1).unwrap();
        tstore_add(&mut out, &t, [0i64, 0]).unwrap();
        assert_eq!(out.get(&[0, 0]), Some(3.0));
        assert_eq!(out.get(&[0, 1]), Some(1.0));
        assert!(matches!(
            tstore_add(&mut out, &t, &[5, 0]),
            Err(Error::OutOfBounds { .. })
        ));
    }

    #[test]
    fn converting_store_rounds_to_nearest_even() {
        // 1 + 2^-11 is a tie between two halves: nearest even keeps 1.0; 1 + 3 * 2^-11 rounds up.
        let t =
            Tile::<f32, 1, 4>::from_slice(&[1.0 + 1.0 / 2048.0, 1.0 + 3.0 / 2048.0, 70000.0, -0.5])
                .unwrap();
        let mut out = Tensor::<f16>::zeros([1, 4]);
        tstore_cvt(&mut out, &t, &[0, 0], StoreMode::Write).unwrap();
        assert_eq!(out.get(&[0, 0]), Some(f16::from_f32(1.0)));
        assert_eq!(out.get(&[0, 1]), Some(f16::from_f32(1.0 + 4.0 / 2048.0)));
        assert_eq!(out.get(&[0, 2]), Some(f16::INFINITY));
        assert_eq!(out.get(&[0, 3]), Some(f16::from_f32(-0.5)));
        tstore_cvt(&mut out, &t, &[0, 0], StoreMode::Add).unwrap();
        assert_eq!(out.get(&[0, 3]), Some(f16::from_f32(-1.0)));
    }

    #[test]
    fn quantising_store_rounds_saturates_and_clips() {
        let t = Tile::<i32, 2, 4>::from_slice(&[1, -2, 300, -300, 5, 6, 7, 8]).unwrap();
        let mut out = Tensor::<i8>::full([2, 3], 9);
        tstore_quant(&mut out, &t, &[0, 0], 1.0, StoreMode::Write).unwrap();
        assert_eq!(out.as_slice(), &[1, -2, 127, 5, 6, 7]);
        // 5 * 0.5 = 2.5 and 7 * 0.5 = 3.5 round to even.
        tstore_quant(&mut out, &t, &[0, 0], 0.5, StoreMode::Write).unwrap();
        assert_eq!(out.as_slice(), &[0, -1, 127, 2, 3, 4]);
        let f = Tile::<f32, 1, 4>::from_slice(&[-0.5, 254.5, f32::NAN, -7.0]).unwrap();
        let mut u = Tensor::<u8>::zeros([1, 4]);
        tstore_quant(&mut u, &f, &[0, 0], 1.0, StoreMode::Write).unwrap();
        assert_eq!(u.as_slice(), &[0, 254, 0, 0]);
        let mut h = Tensor::<f16>::zeros([2, 3]);
        let big = Tile::<i32, 2, 4>::from_slice(&[70000, -70000, 2049, 0, 0, 0, 0, 0]).unwrap();
        tstore_quant(&mut h, &big, &[0, 0], 1.0, StoreMode::Write).unwrap();
        assert_eq!(h.get(&[0, 0]), Some(f16::from_f32(65504.0)));
        assert_eq!(h.get(&[0, 1]), Some(f16::from_f32(-65504.0)));
        assert_eq!(h.get(&[0, 2]), Some(f16::from_f32(2048.0)));
        tstore_quant(&mut out, &t, &[0, 0], 1.0, StoreMode::Add).unwrap();
        assert_eq!(out.as_slice(), &[1, -3, -2, 7, 9, 11]);
        assert!(matches!(
            tstore_quant(
                &mut out,
                &Tile::<f32, 1, 1>::zeros(),
                &[0, 0],
                1.0,
                StoreMode::Write
            ),
            Ok(())
        ));
        let mut bad = Tensor::<i16>::zeros([1, 1]);
        assert!(matches!(
            tstore_quant(
                &mut bad,
                &Tile::<f32, 1, 1>::zeros(),
                &[0, 0],
                1.0,
                StoreMode::Write
            ),
            Err(Error::Unsupported(_))
        ));
    }

    #[test]
    fn windows_of_rank_3() {
        let t = Tile::<i32, 4, 2>::full(3);
        let mut out = Tensor::<i32>::zeros([2, 2, 2]);
        tstore_add_window(&mut out, &t, &[0, 0, 0], &[2, 2, 2]).unwrap();
        tstore_add_window(&mut out, &t, &[1, 0, 0], &[2, 2, 2]).unwrap();
        assert_eq!(out.as_slice(), &[3, 3, 3, 3, 6, 6, 6, 6]);
    }
}
