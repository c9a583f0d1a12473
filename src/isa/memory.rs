//! GM <-> tile transfers: `TLOAD` and `TSTORE`.
//!
//! A transfer addresses a *window* of a rank-1..4 [`Tensor`]: an element offset and a size per
//! dimension. The window's leading dimensions are flattened into tile rows (row-major) and its
//! last dimension is the tile's columns, so a window `[w0, .., wn]` needs
//! `w0 * .. * w(n-1) <= R` and `wn <= C`. The plain forms use the window `[C]` for a rank-1
//! tensor and `[1, .., 1, R, C]` otherwise; the `_window` forms take it explicitly (the
//! kernel's `x.load::<A, B, C>([i, j, k])` becomes a `[A, B, C]` window into an `A*B x C` tile).
//!
//! Edges: every offset must lie inside the tensor ([`Error::OutOfBounds`] otherwise), but a
//! window may reach past the tensor's end. `TLOAD` then reads only the in-bounds part and sets
//! the tile's valid region to it (it never reads outside the tensor); `TSTORE` writes only the
//! tile's valid region, clipped to the tensor. For rank 3/4 windows the in-bounds part of a
//! load must flatten to a top-left prefix of rows (true when only the outermost clipped
//! dimension is cut, with extent 1 above it); another cut is [`Error::Unsupported`].

use super::TensorMut;
use crate::tensor::MAX_RANK;
use crate::{Error, Tensor, Tile};

/// The default window for a tile `R x C` over a rank-`rank` tensor.
pub(super) fn default_window(rank: usize, rows: usize, cols: usize) -> [usize; MAX_RANK] {
    let mut w = [1; MAX_RANK];
    if rank >= 2 {
        w[rank - 2] = rows;
    }
    if rank >= 1 {
        w[rank - 1] = cols;
    }
    w
}

/// The fast path of the plain (default-window) transfers: a rank-1 or rank-2 tensor and an
/// offset inside it. The window is `[max_cols]` (rank 1) or `[max_rows, max_cols]` (rank 2),
/// clipped to the tensor; everything else (other ranks, bad offsets, errors) takes the general
/// path through [`Window`], which gives the same result.
pub(super) struct Plain {
    /// Linear index of the window's first element.
    pub(super) start: usize,
    /// Tensor elements from one window row to the next.
    pub(super) stride: usize,
    /// In-bounds rows.
    pub(super) rows: usize,
    /// In-bounds columns.
    pub(super) cols: usize,
}

impl Plain {
    /// The window of at most `max_rows x max_cols` at `offset`, or `None` off the fast path.
    #[inline(always)]
    pub(super) fn new(
        shape: &[usize],
        offset: &[usize],
        max_rows: usize,
        max_cols: usize,
    ) -> Option<Self> {
        match (shape, offset) {
            (&[n], &[o]) if o < n => Some(Self {
                start: o,
                stride: n,
                rows: max_rows.min(1),
                cols: max_cols.min(n - o),
            }),
            (&[n0, n1], &[o0, o1]) if o0 < n0 && o1 < n1 => Some(Self {
                start: o0 * n1 + o1,
                stride: n1,
                rows: max_rows.min(n0 - o0),
                cols: max_cols.min(n1 - o1),
            }),
            _ => None,
        }
    }
}

/// Copies `cols` elements of each of `dst.len()` rows, `stride` apart in `src`, into `dst`.
/// Full rows of a tensor exactly as wide as the tile are one contiguous copy.
#[inline(always)]
fn copy_in<T: Copy, const C: usize>(dst: &mut [[T; C]], src: &[T], stride: usize, cols: usize) {
    if cols == C && stride == C {
        let d = dst.as_flattened_mut();
        d.copy_from_slice(&src[..d.len()]);
    } else {
        for (d, s) in dst.iter_mut().zip(src.chunks(stride)) {
            d[..cols].copy_from_slice(&s[..cols]);
        }
    }
}

/// The reverse of [`copy_in`]: `cols` elements of each row of `src` into rows `stride` apart.
#[inline(always)]
fn copy_out<T: Copy, const C: usize>(dst: &mut [T], src: &[[T; C]], stride: usize, cols: usize) {
    if cols == C && stride == C {
        let s = src.as_flattened();
        dst[..s.len()].copy_from_slice(s);
    } else {
        for (d, s) in dst.chunks_mut(stride).zip(src) {
            d[..cols].copy_from_slice(&s[..cols]);
        }
    }
}

/// A checked window: per-dimension extents clipped to the tensor, and the window's tile shape.
pub(super) struct Window<'a> {
    offset: &'a [usize],
    window: &'a [usize],
    /// In-bounds extent per dimension.
    pub(super) ext: [usize; MAX_RANK],
    /// Rows of the window (product of the leading dimensions).
    pub(super) rows: usize,
}

impl<'a> Window<'a> {
    pub(super) fn new(
        what: &'static str,
        shape: &[usize],
        offset: &'a [usize],
        window: &'a [usize],
        tile: [usize; 2],
    ) -> Result<Self, Error> {
        let rank = shape.len();
        for (param, v) in [("offset", offset), ("window", window)] {
            if v.len() != rank {
                return Err(Error::Rank {
                    param,
                    expected: rank,
                    actual: v.len(),
                });
            }
        }
        let lead = rank - 1;
        let rows = window[..lead]
            .iter()
            .try_fold(1usize, |a, &w| a.checked_mul(w))
            .unwrap_or(usize::MAX);
        let cols = window[lead];
        if rows > tile[0] || cols > tile[1] {
            return Err(Error::ValidRegion {
                rows,
                cols,
                max_rows: tile[0],
                max_cols: tile[1],
            });
        }
        let mut ext = [0; MAX_RANK];
        for d in 0..rank {
            if offset[d] >= shape[d] {
                return Err(Error::OutOfBounds {
                    what,
                    offset: offset.to_vec(),
                    extent: window.to_vec(),
                    bounds: shape.to_vec(),
                });
            }
            ext[d] = window[d].min(shape[d] - offset[d]);
        }
        Ok(Self {
            offset,
            window,
            ext,
            rows,
        })
    }

    pub(super) fn lead(&self) -> usize {
        self.window.len() - 1
    }

    /// Tensor linear index of flattened window row `idx` (window coordinates), column 0, or
    /// `None` when the row lies outside the tensor.
    pub(super) fn row_start(&self, idx: &[usize; MAX_RANK], strides: &[usize]) -> Option<usize> {
        let lead = self.lead();
        let mut at = self.offset[lead] * strides[lead];
        for d in 0..lead {
            if idx[d] >= self.ext[d] {
                return None;
            }
            at += (self.offset[d] + idx[d]) * strides[d];
        }
        Some(at)
    }

    /// Advances a window-coordinate row index (odometer over the leading dimensions).
    pub(super) fn next_row(&self, idx: &mut [usize; MAX_RANK]) {
        for d in (0..self.lead()).rev() {
            idx[d] += 1;
            if idx[d] < self.window[d] {
                return;
            }
            idx[d] = 0;
        }
    }
}

/// The offset of a [`tload`] / [`tstore`] window, one index per tensor dimension: `usize`s
/// (`&[r, 0]`), or the `i64`s a kernel computes (`[r, 0]`, as the host code the kernel macro
/// generates passes them), converted as `as usize` converts (a negative index wraps to a
/// huge one, which is out of bounds).
pub trait Offset {
    /// The indices as `usize`s.
    type Usizes: AsRef<[usize]>;
    /// Converts the indices.
    fn into_usizes(self) -> Self::Usizes;
}

impl<'a> Offset for &'a [usize] {
    type Usizes = &'a [usize];
    fn into_usizes(self) -> &'a [usize] {
        self
    }
}

impl<'a, const N: usize> Offset for &'a [usize; N] {
    type Usizes = &'a [usize; N];
    fn into_usizes(self) -> &'a [usize; N] {
        self
    }
}

impl<const N: usize> Offset for [i64; N] {
    type Usizes = [usize; N];
    fn into_usizes(self) -> [usize; N] {
        self.map(|i| i as usize)
    }
}

/// `TLOAD(dst, src[offset..])`: loads the tile-shaped window at `offset` (see the module doc).
pub fn tload<T: Copy, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, C>,
    src: &Tensor<T>,
    offset: impl Offset,
) -> Result<(), Error> {
    let offset = offset.into_usizes();
    let offset = offset.as_ref();
    if let Some(p) = Plain::new(src.shape(), offset, R, C) {
        let rows = &mut dst.data[..p.rows];
        copy_in(rows, &src.as_slice()[p.start..], p.stride, p.cols);
        dst.set_valid_clamped(p.rows, p.cols);
        return Ok(());
    }
    let window = default_window(src.rank(), R, C);
    tload_window(dst, src, offset, &window[..src.rank()])
}

/// `TLOAD` with an explicit window (one size per tensor dimension).
///
/// Reads only the in-bounds part of the window and sets `dst`'s valid region to it.
pub fn tload_window<T: Copy, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, C>,
    src: &Tensor<T>,
    offset: &[usize],
    window: &[usize],
) -> Result<(), Error> {
    let w = Window::new("tload window", src.shape(), offset, window, [R, C])?;
    let lead = w.lead();
    // The in-bounds rows form a prefix iff, above the innermost clipped leading dimension,
    // every extent is 1 (then rows = product of the leading extents).
    if let Some(q) = (0..lead).rev().find(|&d| w.ext[d] < window[d])
        && (0..q).any(|d| w.ext[d] != 1)
    {
        return Err(Error::Unsupported(format!(
            "tload window {window:?} at {offset:?} crosses the edge of tensor {:?} in a way \
             whose in-bounds part is not a top-left block of the flattened tile",
            src.shape()
        )));
    }
    let rows: usize = w.ext[..lead].iter().product();
    let cols = w.ext[lead];
    debug_assert!(rows <= w.rows);
    let data = src.as_slice();
    let strides = src.strides();
    let mut idx = [0; MAX_RANK];
    for row in dst.data.iter_mut().take(rows) {
        let Some(start) = w.row_start(&idx, strides) else {
            break; // unreachable: the first `rows` window rows are in bounds
        };
        let Some(line) = data.get(start..start + cols) else {
            break; // unreachable: `Window::new` clipped the extent to the tensor
        };
        row[..cols].copy_from_slice(line);
        w.next_row(&mut idx);
    }
    dst.set_valid_clamped(rows, cols);
    Ok(())
}

/// `TSTORE(dst[offset..], src)`: stores `src`'s valid region at `offset` (see the module doc).
pub fn tstore<T: Copy, const R: usize, const C: usize>(
    dst: &mut (impl TensorMut<T> + ?Sized),
    src: &Tile<T, R, C>,
    offset: impl Offset,
) -> Result<(), Error> {
    let offset = offset.into_usizes();
    let offset = offset.as_ref();
    let (vr, vc) = src.valid();
    if let Some(p) = Plain::new(dst.shape(), offset, vr.min(R), vc) {
        let rows = &src.data[..p.rows];
        if let Some(out) = dst.tail_mut(p.start) {
            copy_out(out, rows, p.stride, p.cols);
        }
        return Ok(());
    }
    let window = default_window(dst.rank(), R, C);
    let rank = dst.rank();
    tstore_window(dst, src, offset, &window[..rank])
}

/// `TSTORE` with an explicit window: the tile's rows are unflattened over the window's
/// leading dimensions. Writes only `src`'s valid region, clipped to the window and the tensor.
pub fn tstore_window<T: Copy, const R: usize, const C: usize>(
    dst: &mut (impl TensorMut<T> + ?Sized),
    src: &Tile<T, R, C>,
    offset: &[usize],
    window: &[usize],
) -> Result<(), Error> {
    let w = Window::new("tstore window", dst.shape(), offset, window, [R, C])?;
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
            line.copy_from_slice(&row[..cols]);
        }
        w.next_row(&mut idx);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iota(shape: &[usize]) -> Tensor<f32> {
        let n = shape.iter().product::<usize>();
        Tensor::from_vec_dyn((0..n).map(|x| x as f32).collect(), shape).unwrap()
    }

    #[test]
    fn load_store_roundtrip_2d() {
        let x = iota(&[8, 16]);
        let mut t = Tile::<f32, 4, 8>::zeros();
        tload(&mut t, &x, &[2, 8]).unwrap();
        assert_eq!(t.valid(), (4, 8));
        assert_eq!(t.get(0, 0), Some(40.0));
        assert_eq!(t.get(3, 7), Some(5.0 * 16.0 + 15.0));
        let mut out = Tensor::<f32>::zeros([8, 16]);
        tstore(&mut out, &t, &[2, 8]).unwrap();
        for r in 0..8 {
            for c in 0..16 {
                let inside = (2..6).contains(&r) && (8..16).contains(&c);
                let want = if inside { (r * 16 + c) as f32 } else { 0.0 };
                assert_eq!(out.get(&[r, c]), Some(want));
            }
        }
    }

    #[test]
    fn edge_load_sets_valid_region_and_store_writes_only_it() {
        // 10 x 13 tensor, 4 x 8 tiles: the tile at [8, 8] has 2 x 5 in bounds.
        let x = iota(&[10, 13]);
        let mut t = Tile::<f32, 4, 8>::full(-1.0);
        tload(&mut t, &x, &[8, 8]).unwrap();
        assert_eq!(t.valid(), (2, 5));
        assert_eq!(
            t.to_vec(),
            [
                112.0, 113.0, 114.0, 115.0, 116.0, 125.0, 126.0, 127.0, 128.0, 129.0
            ]
        );
        // Nothing outside the in-bounds part was written into the tile either.
        assert_eq!(t.as_rows()[0][5], -1.0);
        assert_eq!(t.as_rows()[2][0], -1.0);
        // Garbage outside the valid region must not reach the tensor.
        t.as_rows_mut()[0][6] = 999.0;
        let mut out = Tensor::<f32>::full([10, 13], 7.0);
        tstore(&mut out, &t, &[8, 8]).unwrap();
        let changed: Vec<usize> = (0..130).filter(|&i| out.as_slice()[i] != 7.0).collect();
        assert_eq!(changed, [112, 113, 114, 115, 116, 125, 126, 127, 128, 129]);
        assert_eq!(out.as_slice()[112], 112.0);
        // A narrowed valid region stores fewer elements.
        t.set_valid(1, 2).unwrap();
        let mut out2 = Tensor::<f32>::zeros([10, 13]);
        tstore(&mut out2, &t, &[0, 0]).unwrap();
        assert_eq!(out2.as_slice().iter().filter(|&&v| v != 0.0).count(), 2);
        assert_eq!(&out2.as_slice()[..3], &[112.0, 113.0, 0.0]);
    }

    #[test]
    fn full_tile_store_past_the_edge_is_clipped() {
        let t = Tile::<i32, 4, 4>::full(1);
        let mut out = Tensor::<i32>::zeros([5, 6]);
        tstore(&mut out, &t, &[3, 4]).unwrap();
        assert_eq!(out.as_slice().iter().sum::<i32>(), 4);
        assert_eq!(out.get(&[4, 5]), Some(1));
    }

    #[test]
    fn bad_offsets_and_windows() {
        let x = iota(&[4, 4]);
        let mut t = Tile::<f32, 2, 2>::zeros();
        assert!(matches!(
            tload(&mut t, &x, &[4, 0]),
            Err(Error::OutOfBounds { .. })
        ));
        assert!(matches!(
            tload(&mut t, &x, &[0]),
            Err(Error::Rank {
                param: "offset",
                ..
            })
        ));
        assert!(matches!(
            tload_window(&mut t, &x, &[0, 0], &[3, 2]),
            Err(Error::ValidRegion { rows: 3, .. })
        ));
        assert!(matches!(
            tload_window(&mut t, &x, &[0, 0], &[2]),
            Err(Error::Rank {
                param: "window",
                ..
            })
        ));
        let mut out = Tensor::<f32>::zeros([4, 4]);
        assert!(tstore(&mut out, &t, &[0, 9]).is_err());
        // `i64` offsets, as generated host code passes them: a negative one is out of bounds.
        assert_eq!(tload(&mut t, &x, [0i64, 0]), tload(&mut t, &x, &[0, 0]));
        assert!(matches!(
            tload(&mut t, &x, [-1i64, 0]),
            Err(Error::OutOfBounds { .. })
        ));
        assert!(tstore_window(&mut out, &t, &[0, 0], &[usize::MAX, 2]).is_err());
        assert!(out.as_slice().iter().all(|&v| v == 0.0));
    }

    #[test]
    fn rank_1() {
        let x = iota(&[10]);
        let mut t = Tile::<f32, 1, 8>::zeros();
        tload(&mut t, &x, &[4]).unwrap();
        assert_eq!(t.valid(), (1, 6));
        assert_eq!(t.to_vec(), [4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
        let mut out = Tensor::<f32>::zeros([10]);
        tstore(&mut out, &t, &[4]).unwrap();
        assert_eq!(out.as_slice()[4..], [4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
        assert_eq!(out.as_slice()[3], 0.0);
    }

    #[test]
    fn rank_3_and_4_flatten_leading_dims() {
        // [3, 4, 5] tensor; window [2, 4, 5] at [1, 0, 0] -> 8 x 5 tile.
        let x = iota(&[3, 4, 5]);
        let mut t = Tile::<f32, 8, 5>::zeros();
        tload_window(&mut t, &x, &[1, 0, 0], &[2, 4, 5]).unwrap();
        assert_eq!(t.valid(), (8, 5));
        assert_eq!(t.get(0, 0), Some(20.0));
        assert_eq!(t.get(7, 4), Some(59.0));
        // Same window at [2, 0, 0]: only the first block is inside -> 4 valid rows.
        tload_window(&mut t, &x, &[2, 0, 0], &[2, 4, 5]).unwrap();
        assert_eq!(t.valid(), (4, 5));
        assert_eq!(t.get(3, 4), Some(59.0));
        // Window [1, 4, 5] at [2, 1, 2]: rows 1..4, cols 2..5 -> 3 x 3.
        tload_window(&mut t, &x, &[2, 1, 2], &[1, 4, 5]).unwrap();
        assert_eq!(t.valid(), (3, 3));
        assert_eq!(t.get(0, 0), Some(47.0));
        // Default window for rank 3 is [1, R, C].
        let mut u = Tile::<f32, 2, 5>::zeros();
        tload(&mut u, &x, &[1, 3, 0]).unwrap();
        assert_eq!(u.valid(), (1, 5));
        assert_eq!(u.get(0, 0), Some(35.0));
        // A cut in a middle dimension with several outer blocks is not a prefix.
        assert!(matches!(
            tload_window(&mut t, &x, &[0, 2, 0], &[2, 4, 5]),
            Err(Error::Unsupported(_))
        ));
        // Store unflattens rows over the window and clips to the tensor.
        let mut out = Tensor::<f32>::zeros([3, 4, 5]);
        let full = Tile::<f32, 8, 5>::from_fn(|i, j| (100 * i + j) as f32);
        tstore_window(&mut out, &full, &[2, 2, 0], &[2, 4, 5]).unwrap();
        assert_eq!(out.get(&[2, 2, 0]), Some(0.0));
        assert_eq!(out.get(&[2, 3, 4]), Some(104.0));
        assert_eq!(out.as_slice().iter().filter(|&&v| v != 0.0).count(), 9);
        // Rank 4.
        let y = iota(&[2, 2, 3, 4]);
        let mut v = Tile::<f32, 12, 4>::zeros();
        tload_window(&mut v, &y, &[1, 0, 0, 0], &[1, 2, 3, 4]).unwrap();
        assert_eq!(v.valid(), (6, 4));
        assert_eq!(v.get(0, 0), Some(24.0));
        assert_eq!(v.get(5, 3), Some(47.0));
        let mut out4 = Tensor::<f32>::zeros([2, 2, 3, 4]);
        tstore_window(&mut out4, &v, &[1, 0, 0, 0], &[1, 2, 3, 4]).unwrap();
        assert_eq!(&out4.as_slice()[24..], &y.as_slice()[24..]);
        assert!(out4.as_slice()[..24].iter().all(|&x| x == 0.0));
    }
}
