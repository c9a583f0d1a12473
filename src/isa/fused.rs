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

use super::{tload, tstore};
use crate::tensor::MAX_RANK;
use crate::{Error, Tensor, Tile};

/// `offset` copied into `buf` when it fits (always, for a valid offset). The slow paths take
/// the copy, so on the fast path the caller's offset array is only read and can stay in
/// registers instead of being written to the stack on every call.
#[inline(always)]
fn copy_offset<'a>(offset: &'a [usize], buf: &'a mut [usize; MAX_RANK]) -> &'a [usize] {
    match buf.get_mut(..offset.len()) {
        Some(b) => {
            b.copy_from_slice(offset);
            b
        }
        None => offset,
    }
}

/// The offset of a window into a tensor of rank `rank` as `[row, col]` (rank 1: one row), or
/// `None` when the offset is not of that rank or the tensor is neither rank 1 nor rank 2.
#[inline(always)]
fn plane_offset(rank: usize, offset: &[usize]) -> Option<[usize; 2]> {
    match (rank, offset) {
        (1, &[o]) => Some([0, o]),
        (2, &[o0, o1]) => Some([o0, o1]),
        _ => None,
    }
}

/// Start of a window (linear index of its first element) and row stride, given the tensor's
/// `[rows, cols]` and the window's `[row, col]` offset, when the offset is inside the tensor.
#[inline(always)]
fn plane_start(dims: [usize; 2], offset: [usize; 2]) -> Option<(usize, usize)> {
    let ([n0, n1], [o0, o1]) = (dims, offset);
    // o0 < n0 and o1 < n1, so the start is below n0 * n1 (the tensor's length): no overflow.
    (o0 < n0 && o1 < n1).then_some((o0 * n1 + o1, n1))
}

/// `d[j] = f(s[j])` over one tile row: a constant trip count the compiler fully unrolls.
#[inline(always)]
fn map_row<T: Copy, const C: usize>(d: &mut [T; C], s: &[T; C], f: &impl Fn(T) -> T) {
    for (d, &s) in d.iter_mut().zip(s) {
        *d = f(s);
    }
}

/// `d[j] = f(a[j], b[j])` over one tile row (see [`map_row`]).
#[inline(always)]
fn map2_row<T: Copy, const C: usize>(
    d: &mut [T; C],
    a: &[T; C],
    b: &[T; C],
    f: &impl Fn(T, T) -> T,
) {
    for ((d, &a), &b) in d.iter_mut().zip(a).zip(b) {
        *d = f(a, b);
    }
}

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
    if let (Some(sn), Some(dn)) = (src.plane(), dst.plane())
        && let (Some(so), Some(d_o)) = (
            plane_offset(src.rank(), src_offset),
            plane_offset(dst.rank(), dst_offset),
        )
        && let (Some((s_start, s_stride)), Some((d_start, d_stride))) =
            (plane_start(sn, so), plane_start(dn, d_o))
    {
        // In-bounds rows and columns: those of the load, clipped to the store's window.
        let rows = R.min(sn[0] - so[0]).min(dn[0] - d_o[0]);
        let cols = C.min(sn[1] - so[1]).min(dn[1] - d_o[1]);
        let (s, d) = (
            src.as_slice().get(s_start..).unwrap_or_default(),
            dst.as_mut_slice().get_mut(d_start..).unwrap_or_default(),
        );
        if cols == C && (rows == 1 || (s_stride == C && d_stride == C)) {
            // Whole tile rows in one contiguous run (the common case: one row of a row-major
            // tensor, or whole rows of a tensor exactly as wide as the tile).
            let n = rows * C;
            if let (Some(s), Some(d)) = (s.get(..n), d.get_mut(..n)) {
                for (d, s) in d
                    .as_chunks_mut::<C>()
                    .0
                    .iter_mut()
                    .zip(s.as_chunks::<C>().0)
                {
                    map_row(d, s, &f);
                }
            }
        } else if rows == 1 || (cols == s_stride && cols == d_stride) {
            // One contiguous run of partial rows.
            let n = rows * cols;
            if let (Some(s), Some(d)) = (s.get(..n), d.get_mut(..n)) {
                for (d, &s) in d.iter_mut().zip(s) {
                    *d = f(s);
                }
            }
        } else {
            let s_rows = s.chunks(s_stride);
            let d_rows = d.chunks_mut(d_stride);
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
    let (mut so, mut d_o) = ([0; MAX_RANK], [0; MAX_RANK]);
    let (so, d_o) = (
        copy_offset(src_offset, &mut so),
        copy_offset(dst_offset, &mut d_o),
    );
    tload_map_store_slow(tile, src, so, dst, d_o, f)
}

/// The unfused sequence behind [`tload_map_store`], for the cases off its fast path.
#[cold]
#[inline(never)]
fn tload_map_store_slow<T: Copy, const R: usize, const C: usize>(
    tile: &mut Tile<T, R, C>,
    src: &Tensor<T>,
    src_offset: &[usize],
    dst: &mut Tensor<T>,
    dst_offset: &[usize],
    f: impl Fn(T) -> T,
) -> Result<(), Error> {
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
    if let (Some(an), Some(bn), Some(dn)) = (a.plane(), b.plane(), dst.plane())
        && let (Some(ao), Some(bo), Some(d_o)) = (
            plane_offset(a.rank(), a_offset),
            plane_offset(b.rank(), b_offset),
            plane_offset(dst.rank(), dst_offset),
        )
        && let (Some((a_start, a_stride)), Some((b_start, b_stride)), Some((d_start, d_stride))) = (
            plane_start(an, ao),
            plane_start(bn, bo),
            plane_start(dn, d_o),
        )
    {
        // The valid region the loads share, clipped to the store's window.
        let rows = R.min(an[0] - ao[0]).min(bn[0] - bo[0]).min(dn[0] - d_o[0]);
        let cols = C.min(an[1] - ao[1]).min(bn[1] - bo[1]).min(dn[1] - d_o[1]);
        let (a, b, d) = (
            a.as_slice().get(a_start..).unwrap_or_default(),
            b.as_slice().get(b_start..).unwrap_or_default(),
            dst.as_mut_slice().get_mut(d_start..).unwrap_or_default(),
        );
        if cols == C && (rows == 1 || (a_stride == C && b_stride == C && d_stride == C)) {
            let n = rows * C;
            if let (Some(a), Some(b), Some(d)) = (a.get(..n), b.get(..n), d.get_mut(..n)) {
                let (a, b) = (a.as_chunks::<C>().0, b.as_chunks::<C>().0);
                for ((d, a), b) in d.as_chunks_mut::<C>().0.iter_mut().zip(a).zip(b) {
                    map2_row(d, a, b, &f);
                }
            }
        } else if rows == 1 || (cols == a_stride && cols == b_stride && cols == d_stride) {
            let n = rows * cols;
            if let (Some(a), Some(b), Some(d)) = (a.get(..n), b.get(..n), d.get_mut(..n)) {
                for ((d, &a), &b) in d.iter_mut().zip(a).zip(b) {
                    *d = f(a, b);
                }
            }
        } else {
            let (a_rows, b_rows) = (a.chunks(a_stride), b.chunks(b_stride));
            let d_rows = d.chunks_mut(d_stride);
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
    let (mut ao, mut bo, mut d_o) = ([0; MAX_RANK], [0; MAX_RANK], [0; MAX_RANK]);
    let (ao, bo, d_o) = (
        copy_offset(a_offset, &mut ao),
        copy_offset(b_offset, &mut bo),
        copy_offset(dst_offset, &mut d_o),
    );
    tload2_map_store_slow(ta, a, ao, tb, b, bo, dst, d_o, f)
}

/// The unfused sequence behind [`tload2_map_store`], for the cases off its fast path.
#[allow(clippy::too_many_arguments)]
#[cold]
#[inline(never)]
fn tload2_map_store_slow<T: Copy, const R: usize, const C: usize>(
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
            // One whole tile row at strided positions; one partial row; rank 1 into rank 2;
            // an offset of the wrong rank (an error).
            (&[10, 13], &[9, 0], &[10, 13], &[0, 5]),
            (&[10, 13], &[9, 0], &[10, 13], &[0, 6]),
            (&[20], &[3], &[4, 8], &[1, 0]),
            (&[4, 8], &[0, 0], &[32], &[0]),
            (&[8, 8], &[1], &[8, 8], &[0, 0]),
            (&[8, 8], &[1, 0], &[8, 8], &[0]),
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
            (&[10, 13], &[9, 0], &[20], &[4], &[4, 8], &[3, 0]),
            (&[10, 13], &[9, 0], &[20], &[14], &[4, 8], &[3, 0]),
            (&[8, 8], &[0, 0], &[8, 8], &[4, 0], &[8, 8], &[1]),
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
