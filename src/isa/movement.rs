//! Data movement between tiles: `TMOV`, `TEXTRACT`, `TINSERT`, `TTRANS`, `TFILLPAD`.
//!
//! Tile locations (Vec, Mat, Left, Right, Acc, Bias) are not distinguished on the CPU, so a
//! move between locations is a plain copy. A move that changes the dtype (an `f32` Acc tile
//! to an `f16` Vec tile) is [`super::tcvt`] with [`super::RoundMode::CastRint`].

use crate::element::Element;
use crate::{Error, Tile};

/// `TMOV(dst, src)`: copies `src`'s valid region; `dst` gets that valid region.
#[inline]
pub fn tmov<T: Copy, const R: usize, const C: usize>(dst: &mut Tile<T, R, C>, src: &Tile<T, R, C>) {
    let (vr, vc) = src.valid();
    if vc == C {
        dst.data[..vr].copy_from_slice(&src.data[..vr]);
    } else {
        for (d, s) in dst.data[..vr].iter_mut().zip(&src.data[..vr]) {
            d[..vc].copy_from_slice(&s[..vc]);
        }
    }
    dst.set_valid_clamped(vr, vc);
}

/// Checks that a `rows x cols` window at `(r0, c0)` fits in an `R x C` tile.
fn check_window(
    what: &'static str,
    r0: usize,
    c0: usize,
    rows: usize,
    cols: usize,
    bounds: [usize; 2],
) -> Result<(), Error> {
    let fits = |o: usize, n: usize, b: usize| o.checked_add(n).is_some_and(|e| e <= b);
    if fits(r0, rows, bounds[0]) && fits(c0, cols, bounds[1]) {
        Ok(())
    } else {
        Err(Error::OutOfBounds {
            what,
            offset: vec![r0, c0],
            extent: vec![rows, cols],
            bounds: bounds.to_vec(),
        })
    }
}

/// `TEXTRACT(dst, src, r0, c0)`: `dst[i, j] = src[r0 + i, c0 + j]`.
///
/// The `R2 x C2` window must lie inside `src`'s `R x C` storage (PTO's static rule), else
/// [`Error::OutOfBounds`]. Only the part of the window inside `src`'s valid region is copied
/// and becomes `dst`'s valid region.
pub fn textract<T: Copy, const R: usize, const C: usize, const R2: usize, const C2: usize>(
    dst: &mut Tile<T, R2, C2>,
    src: &Tile<T, R, C>,
    r0: usize,
    c0: usize,
) -> Result<(), Error> {
    check_window("textract window", r0, c0, R2, C2, [R, C])?;
    let vr = src.valid_rows.saturating_sub(r0).min(R2);
    let vc = src.valid_cols.saturating_sub(c0).min(C2);
    for (d, s) in dst.data[..vr].iter_mut().zip(&src.data[r0..r0 + vr]) {
        d[..vc].copy_from_slice(&s[c0..c0 + vc]);
    }
    dst.set_valid_clamped(vr, vc);
    Ok(())
}

/// `TINSERT(dst, src, r0, c0)`: `dst[r0 + i, c0 + j] = src[i, j]` over `src`'s valid region.
///
/// `src`'s whole `R2 x C2` storage, placed at `(r0, c0)`, must fit in `dst`'s `R x C`
/// storage (PTO's static rule, as for [`textract`]), else [`Error::OutOfBounds`]. `dst`'s
/// valid region is unchanged (insert into a tile whose valid region already covers the
/// window).
pub fn tinsert<T: Copy, const R: usize, const C: usize, const R2: usize, const C2: usize>(
    dst: &mut Tile<T, R, C>,
    src: &Tile<T, R2, C2>,
    r0: usize,
    c0: usize,
) -> Result<(), Error> {
    check_window("tinsert window", r0, c0, R2, C2, [R, C])?;
    let (vr, vc) = src.valid();
    for (d, s) in dst.data[r0..r0 + vr].iter_mut().zip(&src.data[..vr]) {
        d[c0..c0 + vc].copy_from_slice(&s[..vc]);
    }
    Ok(())
}

/// `TRESHAPE(dst, src)`: the same elements in row-major order, in `dst`'s shape (pto-isa
/// reinterprets the buffer; the CPU copies it). The element counts must match (a compile
/// error otherwise); `dst` becomes fully valid (the kernel language reshapes fully valid
/// tiles only).
pub fn treshape<T: Copy, const R: usize, const C: usize, const R2: usize, const C2: usize>(
    dst: &mut Tile<T, R2, C2>,
    src: &Tile<T, R, C>,
) {
    const { assert!(R * C == R2 * C2, "TRESHAPE: the element counts differ") };
    dst.data
        .as_flattened_mut()
        .copy_from_slice(src.data.as_flattened());
    dst.set_valid_clamped(R2, C2);
}

/// `TTRANS(dst, src)`: `dst[j, i] = src[i, j]` over `src`'s valid region; `dst` gets the
/// transposed valid region. (PTO's scratch tile is not needed on the CPU.)
pub fn ttrans<T: Copy, const R: usize, const C: usize>(
    dst: &mut Tile<T, C, R>,
    src: &Tile<T, R, C>,
) {
    let (vr, vc) = src.valid();
    // 8 x 8 blocks keep both the reads and the writes within a few cache lines.
    const B: usize = 8;
    for i0 in (0..vr).step_by(B) {
        let i1 = (i0 + B).min(vr);
        for j0 in (0..vc).step_by(B) {
            let j1 = (j0 + B).min(vc);
            for (i, s) in src.data[i0..i1].iter().enumerate() {
                for (j, &x) in s[j0..j1].iter().enumerate() {
                    dst.data[j0 + j][i0 + i] = x;
                }
            }
        }
    }
    dst.set_valid_clamped(vc, vr);
}

/// `TTRANS(t, t)` for a square tile, in place: `t`'s valid region becomes the transposed one.
pub fn ttrans_inplace<T: Copy, const N: usize>(t: &mut Tile<T, N, N>) {
    let (vr, vc) = t.valid();
    let n = vr.max(vc);
    for i in 0..n {
        for j in i + 1..n {
            let x = t.data[i][j];
            t.data[i][j] = t.data[j][i];
            t.data[j][i] = x;
        }
    }
    t.set_valid_clamped(vc, vr);
}

/// `TFILLPAD(dst, src, pad)`: copies `src`'s valid region and sets every other element of
/// `dst` to `pad`; `dst`'s valid region becomes the whole tile.
pub fn tfillpad<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, C>,
    src: &Tile<T, R, C>,
    pad: T,
) {
    let (vr, vc) = src.valid();
    for (i, (d, s)) in dst.data.iter_mut().zip(src.data.iter()).enumerate() {
        if i < vr {
            d[..vc].copy_from_slice(&s[..vc]);
            d[vc..].fill(pad);
        } else {
            d.fill(pad);
        }
    }
    dst.set_valid_clamped(R, C);
}

/// `TFILLPAD_INPLACE(dst, pad)`: sets every element outside `dst`'s valid region to `pad`;
/// the valid region becomes the whole tile.
pub fn tfillpad_inplace<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, C>,
    pad: T,
) {
    let (vr, vc) = dst.valid();
    for (i, d) in dst.data.iter_mut().enumerate() {
        if i < vr {
            d[vc..].fill(pad);
        } else {
            d.fill(pad);
        }
    }
    dst.set_valid_clamped(R, C);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src() -> Tile<i32, 4, 5> {
        Tile::from_fn(|i, j| (i * 10 + j) as i32)
    }

    #[test]
    fn mov_copies_valid_region() {
        let s = src().with_valid(2, 3).unwrap();
        let mut d = Tile::<i32, 4, 5>::full(-1);
        tmov(&mut d, &s);
        assert_eq!(d.valid(), (2, 3));
        assert_eq!(d.to_vec(), [0, 1, 2, 10, 11, 12]);
        assert_eq!(d.as_rows()[0][3], -1);
        let mut e = Tile::<i32, 4, 5>::zeros();
        tmov(&mut e, &src());
        assert_eq!(e, src());
    }

    #[test]
    fn extract_window() {
        let mut d = Tile::<i32, 2, 2>::zeros();
        textract(&mut d, &src(), 1, 3).unwrap();
        assert_eq!(d.valid(), (2, 2));
        assert_eq!(d.to_vec(), [13, 14, 23, 24]);
        // Window partly outside src's valid region: dst's valid region is the inside part.
        textract(&mut d, &src().with_valid(2, 4).unwrap(), 1, 3).unwrap();
        assert_eq!(d.valid(), (1, 1));
        assert_eq!(d.to_vec(), [13]);
        assert!(matches!(
            textract(&mut d, &src(), 3, 0),
            Err(Error::OutOfBounds { .. })
        ));
        assert!(textract(&mut d, &src(), 0, usize::MAX).is_err());
    }

    #[test]
    fn insert_window() {
        let mut big = Tile::<i32, 4, 5>::zeros();
        let small = Tile::<i32, 2, 2>::from_slice(&[1, 2, 3, 4]).unwrap();
        tinsert(&mut big, &small, 2, 3).unwrap();
        assert_eq!(big.as_rows()[2], [0, 0, 0, 1, 2]);
        assert_eq!(big.as_rows()[3], [0, 0, 0, 3, 4]);
        assert_eq!(big.valid(), (4, 5));
        assert!(tinsert(&mut big, &small, 3, 0).is_err());
        // The whole small tile must fit, even where only part of it is valid; only the
        // valid part is written.
        let part = small.with_valid(1, 2).unwrap();
        assert!(tinsert(&mut big, &part, 3, 0).is_err());
        tinsert(&mut big, &part, 0, 0).unwrap();
        assert_eq!(big.as_rows()[0], [1, 2, 0, 0, 0]);
        assert_eq!(big.as_rows()[1], [0, 0, 0, 0, 0]);
    }

    #[test]
    fn transpose() {
        let s = Tile::<f32, 3, 17>::from_fn(|i, j| (i * 100 + j) as f32);
        let mut d = Tile::<f32, 17, 3>::zeros();
        ttrans(&mut d, &s);
        assert_eq!(d.valid(), (17, 3));
        for i in 0..3 {
            for j in 0..17 {
                assert_eq!(d.get(j, i), s.get(i, j));
            }
        }
        let p = s.with_valid(2, 9).unwrap();
        let mut e = Tile::<f32, 17, 3>::full(-1.0);
        ttrans(&mut e, &p);
        assert_eq!(e.valid(), (9, 2));
        assert_eq!(e.get(8, 1), Some(108.0));
        assert_eq!(e.as_rows()[9][0], -1.0);
        assert_eq!(e.as_rows()[0][2], -1.0);
    }

    #[test]
    fn transpose_in_place() {
        let mut t = Tile::<i32, 4, 4>::from_fn(|i, j| (10 * i + j) as i32)
            .with_valid(2, 3)
            .unwrap();
        ttrans_inplace(&mut t);
        assert_eq!(t.valid(), (3, 2));
        assert_eq!(t.to_vec(), [0, 10, 1, 11, 2, 12]);
    }

    #[test]
    fn fillpad() {
        let s = src().with_valid(1, 2).unwrap();
        let mut d = Tile::<i32, 4, 5>::zeros();
        tfillpad(&mut d, &s, -9);
        assert_eq!(d.valid(), (4, 5));
        assert_eq!(d.as_rows()[0], [0, 1, -9, -9, -9]);
        assert_eq!(d.as_rows()[3], [-9; 5]);
        let mut e = src().with_valid(3, 4).unwrap();
        tfillpad_inplace(&mut e, 0);
        assert_eq!(e.as_rows()[2], [20, 21, 22, 23, 0]);
        assert_eq!(e.as_rows()[3], [0; 5]);
    }
}
