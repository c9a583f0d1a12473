//! Fused `TLOAD` -> elementwise instructions -> `TSTORE` chains, for the CPU.
//!
//! On the NPU a kernel such as `out.store([b, 0], x.load::<1, 128>([b, 0]) * scale)` moves the
//! window into a tile, computes on the tile and moves it back; every step is a separate
//! instruction and the tile round trip is the point. On the CPU the round trip is three
//! extra passes over memory, so when a tile is only ever used by one such chain the generated
//! code calls these functions instead: they read the source windows, apply the elementwise
//! function and write the destination window in one pass, without touching the tiles.
//!
//! The result is exactly that of the unfused sequence `tload(ta, a, a_offset)?;` (`tload(tb,
//! b, b_offset)?;`) `..elementwise ops..; tstore(dst, t, dst_offset)?;` with the ops folded
//! into `f`: the same elements are written with the same values (the valid region is the one
//! the loads share, clipped to the destination window), and the same error is returned.
//! Only the tiles' contents afterwards differ, which is why the code generator uses these
//! only for tiles nothing else reads. Any case outside the fast path (rank 3 or 4 tensors,
//! an offset outside a tensor) runs the unfused sequence on the tiles.

use super::memory::Plain;
use super::{tload, tstore};
use crate::{Error, Tensor, Tile};

/// `tload(tile, src, src_offset)?; tile = f(tile); tstore(dst, tile, dst_offset)` in one pass
/// (see the module doc). `f` is applied to every element of the valid region.
#[inline]
pub fn tload_map_store<T: Copy, const R: usize, const C: usize>(
    tile: &mut Tile<T, R, C>,
    src: &Tensor<T>,
    src_offset: &[usize],
    dst: &mut Tensor<T>,
    dst_offset: &[usize],
    f: impl Fn(T) -> T,
) -> Result<(), Error> {
    if let Some(ps) = Plain::new(src.shape(), src_offset, R, C)
        && let Some(pd) = Plain::new(dst.shape(), dst_offset, ps.rows, ps.cols)
    {
        let (rows, cols) = (pd.rows, pd.cols);
        let (s, d) = (src.as_slice(), dst.as_mut_slice());
        if rows == 1 || (cols == ps.stride && cols == pd.stride) {
            // One contiguous run (a single row, or whole rows of equally wide tensors).
            let n = rows * cols;
            if let (Some(s), Some(d)) = (
                s.get(ps.start..ps.start + n),
                d.get_mut(pd.start..pd.start + n),
            ) {
                // Tile-row chunks: a constant trip count the compiler unrolls.
                let ((d_rows, d_rest), (s_rows, s_rest)) =
                    (d.as_chunks_mut::<C>(), s.as_chunks::<C>());
                for (d, s) in d_rows.iter_mut().zip(s_rows) {
                    for (d, &s) in d.iter_mut().zip(s) {
                        *d = f(s);
                    }
                }
                for (d, &s) in d_rest.iter_mut().zip(s_rest) {
                    *d = f(s);
                }
            }
        } else {
            let s_rows = s.get(ps.start..).unwrap_or_default().chunks(ps.stride);
            let d_rows = d
                .get_mut(pd.start..)
                .unwrap_or_default()
                .chunks_mut(pd.stride);
            for (d, s) in d_rows.zip(s_rows).take(rows) {
                if let (Some(d), Some(s)) = (d.get_mut(..cols), s.get(..cols)) {
                    for (d, &s) in d.iter_mut().zip(s) {
                        *d = f(s);
                    }
                }
            }
        }
        return Ok(());
    }
    tload(tile, src, src_offset)?;
    let (vr, vc) = tile.valid();
    super::map_inplace(&mut tile.data, vr, vc, f);
    tstore(dst, tile, dst_offset)
}

/// `tload(ta, a, a_offset)?; tload(tb, b, b_offset)?; ta = f(ta, tb); tstore(dst, ta,
/// dst_offset)` in one pass (see the module doc). `f` is applied over the valid region the
/// two loads share.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn tload2_map_store<T: Copy, const R: usize, const C: usize>(
    ta: &mut Tile<T, R, C>,
    a: &Tensor<T>,
    a_offset: &[usize],
    tb: &mut Tile<T, R, C>,
    b: &Tensor<T>,
    b_offset: &[usize],
    dst: &mut Tensor<T>,
    dst_offset: &[usize],
    f: impl Fn(T, T) -> T,
) -> Result<(), Error> {
    if let Some(pa) = Plain::new(a.shape(), a_offset, R, C)
        && let Some(pb) = Plain::new(b.shape(), b_offset, R, C)
        && let Some(pd) = Plain::new(
            dst.shape(),
            dst_offset,
            pa.rows.min(pb.rows),
            pa.cols.min(pb.cols),
        )
    {
        let (rows, cols) = (pd.rows, pd.cols);
        let (a, b, d) = (a.as_slice(), b.as_slice(), dst.as_mut_slice());
        if rows == 1 || (cols == pa.stride && cols == pb.stride && cols == pd.stride) {
            let n = rows * cols;
            if let (Some(a), Some(b), Some(d)) = (
                a.get(pa.start..pa.start + n),
                b.get(pb.start..pb.start + n),
                d.get_mut(pd.start..pd.start + n),
            ) {
                let (d_rows, d_rest) = d.as_chunks_mut::<C>();
                let ((a_rows, a_rest), (b_rows, b_rest)) = (a.as_chunks::<C>(), b.as_chunks::<C>());
                for ((d, a), b) in d_rows.iter_mut().zip(a_rows).zip(b_rows) {
                    for ((d, &a), &b) in d.iter_mut().zip(a).zip(b) {
                        *d = f(a, b);
                    }
                }
                for ((d, &a), &b) in d_rest.iter_mut().zip(a_rest).zip(b_rest) {
                    *d = f(a, b);
                }
            }
        } else {
            let a_rows = a.get(pa.start..).unwrap_or_default().chunks(pa.stride);
            let b_rows = b.get(pb.start..).unwrap_or_default().chunks(pb.stride);
            let d_rows = d
                .get_mut(pd.start..)
                .unwrap_or_default()
                .chunks_mut(pd.stride);
            for ((d, a), b) in d_rows.zip(a_rows).zip(b_rows).take(rows) {
                if let (Some(d), Some(a), Some(b)) =
                    (d.get_mut(..cols), a.get(..cols), b.get(..cols))
                {
                    for ((d, &a), &b) in d.iter_mut().zip(a).zip(b) {
                        *d = f(a, b);
                    }
                }
            }
        }
        return Ok(());
    }
    tload(ta, a, a_offset)?;
    tload(tb, b, b_offset)?;
    let vr = ta.valid_rows.min(tb.valid_rows);
    let vc = ta.valid_cols.min(tb.valid_cols);
    super::map2_inplace(&mut ta.data, &tb.data, vr, vc, f);
    ta.set_valid_clamped(vr, vc);
    tstore(dst, ta, dst_offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{tadd_inplace, tmuls_inplace};

    fn iota(shape: &[usize], k: f32) -> Tensor<f32> {
        let n = shape.iter().product::<usize>();
        Tensor::from_vec_dyn((0..n).map(|x| x as f32 * k + 1.0).collect(), shape).unwrap()
    }

    /// The unfused sequence the fused calls stand for.
    fn unfused1(
        src: &Tensor<f32>,
        so: &[usize],
        dst: &mut Tensor<f32>,
        d_o: &[usize],
    ) -> Result<(), Error> {
        let mut t = Tile::<f32, 4, 8>::zeros();
        tload(&mut t, src, so)?;
        tmuls_inplace(&mut t, 3.0);
        tstore(dst, &t, d_o)
    }

    fn unfused2(
        a: &Tensor<f32>,
        ao: &[usize],
        b: &Tensor<f32>,
        bo: &[usize],
        dst: &mut Tensor<f32>,
        d_o: &[usize],
    ) -> Result<(), Error> {
        let (mut ta, mut tb) = (Tile::<f32, 4, 8>::zeros(), Tile::<f32, 4, 8>::zeros());
        tload(&mut ta, a, ao)?;
        tload(&mut tb, b, bo)?;
        tadd_inplace(&mut ta, &tb);
        tstore(dst, &ta, d_o)
    }

    /// A tensor shape or an offset.
    type Dims = &'static [usize];

    #[test]
    fn one_source_matches_the_unfused_sequence() {
        // Shapes: exactly tile-wide, wider (strided rows), narrower (edge columns), rank 1,
        // rank 3 (the general path); offsets inside, at edges, and outside (errors).
        let cases: &[(Dims, Dims, Dims, Dims)] = &[
            (&[8, 8], &[0, 0], &[8, 8], &[4, 0]),
            (&[8, 8], &[6, 0], &[8, 8], &[0, 0]),
            (&[10, 13], &[8, 8], &[10, 13], &[1, 2]),
            (&[10, 13], &[3, 1], &[5, 6], &[3, 4]),
            (&[10, 13], &[3, 1], &[5, 6], &[5, 0]),
            (&[10, 13], &[10, 0], &[10, 13], &[0, 0]),
            (&[20], &[15], &[30], &[2]),
            (&[20], &[20], &[30], &[2]),
            (&[3, 4, 5], &[1, 2, 0], &[3, 4, 5], &[2, 0, 1]),
            (&[10, 13], &[2, 2], &[3, 4, 5], &[2, 0, 1]),
        ];
        for &(ss, so, ds, d_o) in cases {
            let src = iota(ss, 0.5);
            let mut want = Tensor::<f32>::try_full(ds, -7.0).unwrap();
            let mut got = want.clone();
            let w = unfused1(&src, so, &mut want, d_o);
            let mut t = Tile::<f32, 4, 8>::zeros();
            let g = tload_map_store(&mut t, &src, so, &mut got, d_o, |x| x * 3.0);
            assert_eq!(
                format!("{g:?}"),
                format!("{w:?}"),
                "{ss:?} {so:?} {ds:?} {d_o:?}"
            );
            assert_eq!(
                got.as_slice(),
                want.as_slice(),
                "{ss:?} {so:?} {ds:?} {d_o:?}"
            );
        }
    }

    #[test]
    fn two_sources_match_the_unfused_sequence() {
        let cases: &[(Dims, Dims, Dims, Dims, Dims, Dims)] = &[
            (&[8, 8], &[0, 0], &[8, 8], &[4, 0], &[8, 8], &[0, 0]),
            (&[10, 13], &[8, 8], &[9, 12], &[1, 1], &[10, 13], &[0, 0]),
            (&[10, 13], &[2, 3], &[9, 12], &[7, 9], &[6, 10], &[1, 1]),
            (&[4, 8], &[0, 0], &[4, 8], &[0, 0], &[4, 8], &[0, 0]),
            (&[20], &[15], &[18], &[1], &[30], &[2]),
            (&[10, 13], &[2, 3], &[9, 12], &[9, 0], &[6, 10], &[1, 1]),
            (&[10, 13], &[2, 3], &[9, 12], &[0, 0], &[6, 10], &[6, 1]),
            (
                &[3, 4, 5],
                &[1, 2, 0],
                &[3, 4, 5],
                &[0, 0, 0],
                &[3, 4, 5],
                &[2, 0, 1],
            ),
        ];
        for &(a_s, ao, b_s, bo, ds, d_o) in cases {
            let (a, b) = (iota(a_s, 0.5), iota(b_s, -0.25));
            let mut want = Tensor::<f32>::try_full(ds, -7.0).unwrap();
            let mut got = want.clone();
            let w = unfused2(&a, ao, &b, bo, &mut want, d_o);
            let (mut ta, mut tb) = (Tile::<f32, 4, 8>::zeros(), Tile::<f32, 4, 8>::zeros());
            let g = tload2_map_store(&mut ta, &a, ao, &mut tb, &b, bo, &mut got, d_o, |x, y| {
                x + y
            });
            let what = format!("{a_s:?} {ao:?} {b_s:?} {bo:?} {ds:?} {d_o:?}");
            assert_eq!(format!("{g:?}"), format!("{w:?}"), "{what}");
            assert_eq!(got.as_slice(), want.as_slice(), "{what}");
        }
    }
}
