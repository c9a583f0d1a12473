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

use super::TensorMut;
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
    // (`then`, not `then_some`: the product must not be computed for an offset outside.)
    (o0 < n0 && o1 < n1).then(|| (o0 * n1 + o1, n1))
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
    dst: &mut (impl TensorMut<T> + ?Sized),
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
            dst.tail_mut(d_start).unwrap_or_default(),
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
    dst: &mut (impl TensorMut<T> + ?Sized),
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
    dst: &mut (impl TensorMut<T> + ?Sized),
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
            dst.tail_mut(d_start).unwrap_or_default(),
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
    dst: &mut (impl TensorMut<T> + ?Sized),
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

/// One dimension of a window offset inside a loop `for iv in (lb..ub).step_by(step)`: the loop
/// variable itself (`iv as usize`), or a value that does not change across the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopIndex {
    /// `iv as usize` (a negative `iv` wraps to a huge offset, as the cast does).
    Iv,
    /// A loop-invariant offset.
    At(usize),
}

/// The iterations `(lb..ub).step_by(step)` of a loop over an `i64` variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopRange {
    /// The first value.
    pub lb: i64,
    /// The (exclusive) bound.
    pub ub: i64,
    /// The step; must be positive.
    pub step: usize,
}

impl LoopRange {
    /// The number of iterations, or an error for a zero step.
    fn count(&self) -> Result<u128, Error> {
        if self.step == 0 {
            return Err(Error::Unsupported("loop step 0 is not positive".into()));
        }
        let span = i128::from(self.ub) - i128::from(self.lb);
        Ok(if span <= 0 {
            0
        } else {
            (span as u128).div_ceil(self.step as u128)
        })
    }

    /// The value of the loop variable at iteration `k` (`k` below [`LoopRange::count`]).
    #[inline(always)]
    fn at(&self, k: u128) -> i64 {
        let v = i128::from(self.lb) + (k as i128).saturating_mul(self.step as i128);
        i64::try_from(v).unwrap_or(i64::MAX)
    }

    /// The iterations `k` whose value lies in `[lo, hi]`, as `k_lo..k_hi` within `0..count`.
    fn within(&self, count: u128, lo: i64, hi: i64) -> (u128, u128) {
        let (lb, step) = (i128::from(self.lb), self.step as i128);
        if lo > hi || step <= 0 {
            return (0, 0);
        }
        let (lo, hi) = (i128::from(lo), i128::from(hi));
        let k_lo = if lb >= lo {
            0
        } else {
            ((lo - lb) as u128).div_ceil(step as u128)
        };
        let k_hi = if hi < lb {
            0
        } else {
            ((hi - lb) / step) as u128 + 1
        };
        (k_lo.min(count), k_hi.min(count).max(k_lo.min(count)))
    }
}

/// The concrete offset of `spec` at loop value `iv`, in `buf` (or a fresh vector when longer).
fn loop_offset(spec: &[LoopIndex], iv: i64, buf: &mut [usize; MAX_RANK]) -> Vec<usize> {
    let at = |x: &LoopIndex| match *x {
        LoopIndex::Iv => iv as usize,
        LoopIndex::At(c) => c,
    };
    match buf.get_mut(..spec.len()) {
        Some(b) => {
            for (b, x) in b.iter_mut().zip(spec) {
                *b = at(x);
            }
            Vec::new()
        }
        None => spec.iter().map(at).collect(),
    }
}

/// Runs `g` with the concrete offset of `spec` at `iv`.
#[inline]
fn with_offset<R>(spec: &[LoopIndex], iv: i64, g: impl FnOnce(&[usize]) -> R) -> R {
    let mut buf = [0; MAX_RANK];
    let v = loop_offset(spec, iv, &mut buf);
    match buf.get(..spec.len()) {
        Some(b) if v.is_empty() => g(b),
        _ => g(&v),
    }
}

/// Where a window that walks with a loop lies in its (rank 1 or 2) tensor: the loop values
/// `[lo, hi]` for which the `rows x cols` window is wholly inside the tensor, and the start of
/// the window (linear index of its first element) as `base + coef * iv` there.
#[derive(Clone, Copy, Debug)]
struct Walk {
    lo: i64,
    hi: i64,
    base: usize,
    coef: usize,
    stride: usize,
}

impl Walk {
    /// The walk of `spec` over a tensor of plane `dims` and rank `rank`, or `None` when no loop
    /// value puts the whole window inside it.
    fn new(
        dims: Option<[usize; 2]>,
        rank: usize,
        spec: &[LoopIndex],
        window: [usize; 2],
    ) -> Option<Walk> {
        let dims = dims?;
        let spec = match (rank, spec) {
            (1, &[o]) => [LoopIndex::At(0), o],
            (2, &[o0, o1]) => [o0, o1],
            _ => return None,
        };
        let (mut lo, mut hi) = (i64::MIN, i64::MAX);
        let (mut base, mut coef) = (0usize, 0usize);
        let scale = [dims[1], 1];
        for d in 0..2 {
            // The window along `d` fits at offset `o` when `o < n` and `o + w <= n`.
            let (n, w, k) = (dims[d], window[d].max(1), scale[d]);
            let last = n.checked_sub(w)?;
            match spec[d] {
                LoopIndex::At(c) => {
                    if c > last {
                        return None;
                    }
                    base += c * k;
                }
                LoopIndex::Iv => {
                    lo = lo.max(0);
                    hi = hi.min(i64::try_from(last).unwrap_or(i64::MAX));
                    coef += k;
                }
            }
        }
        Some(Walk {
            lo,
            hi,
            base,
            coef,
            stride: dims[1],
        })
    }

    /// The start of the window at `iv` (inside `[lo, hi]`).
    #[inline(always)]
    fn start(&self, iv: i64) -> usize {
        self.base.wrapping_add(self.coef.wrapping_mul(iv as usize))
    }
}

/// The rows of a window the fused calls compute for tensors of the given ranks: one when any
/// tensor is rank 1 (its plane has one row), else the tile's `R`.
fn walk_rows<const R: usize>(ranks: &[usize]) -> usize {
    if ranks.contains(&1) { R.min(1) } else { R }
}

/// `d = f(s)` over a whole `rows x C` window inside both tensors: `s` and `d` start at the
/// window's first element, and rows are `s_stride` / `d_stride` apart.
#[inline(always)]
fn map_window<T: Copy, const C: usize>(
    s: &[T],
    s_stride: usize,
    d: &mut [T],
    d_stride: usize,
    rows: usize,
    f: &impl Fn(T) -> T,
) {
    if rows == 1 || (s_stride == C && d_stride == C) {
        let n = rows * C;
        if let (Some(s), Some(d)) = (s.get(..n), d.get_mut(..n)) {
            for (d, s) in d
                .as_chunks_mut::<C>()
                .0
                .iter_mut()
                .zip(s.as_chunks::<C>().0)
            {
                map_row(d, s, f);
            }
        }
    } else {
        for (d, s) in d.chunks_mut(d_stride).zip(s.chunks(s_stride)).take(rows) {
            if let (Some(d), Some(s)) = (d.get_mut(..C), s.get(..C)) {
                for (d, &s) in d.iter_mut().zip(s) {
                    *d = f(s);
                }
            }
        }
    }
}

/// `d = f(a, b)` over a whole window (see [`map_window`]).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn map2_window<T: Copy, const C: usize>(
    a: &[T],
    a_stride: usize,
    b: &[T],
    b_stride: usize,
    d: &mut [T],
    d_stride: usize,
    rows: usize,
    f: &impl Fn(T, T) -> T,
) {
    if rows == 1 || (a_stride == C && b_stride == C && d_stride == C) {
        let n = rows * C;
        if let (Some(a), Some(b), Some(d)) = (a.get(..n), b.get(..n), d.get_mut(..n)) {
            let (a, b) = (a.as_chunks::<C>().0, b.as_chunks::<C>().0);
            for ((d, a), b) in d.as_chunks_mut::<C>().0.iter_mut().zip(a).zip(b) {
                map2_row(d, a, b, f);
            }
        }
    } else {
        let (a_rows, b_rows) = (a.chunks(a_stride), b.chunks(b_stride));
        for ((d, a), b) in d.chunks_mut(d_stride).zip(a_rows).zip(b_rows).take(rows) {
            if let (Some(d), Some(a), Some(b)) = (d.get_mut(..C), a.get(..C), b.get(..C)) {
                for ((d, &a), &b) in d.iter_mut().zip(a).zip(b) {
                    *d = f(a, b);
                }
            }
        }
    }
}

/// `for iv in (lb..ub).step_by(step) { tload_map_store(tile, src, src_offset(iv), dst,
/// dst_offset(iv), f)?; }` where each offset dimension is `iv as usize` or loop-invariant
/// ([`LoopIndex`]); a zero step is an error.
///
/// Equivalence: the window geometry is checked once, which gives the loop values for which
/// every window is wholly inside its tensor (an interval, as each offset is `iv` or constant).
/// Those iterations run in one tight loop that writes exactly what [`tload_map_store`] writes
/// for them, in the same order; every other iteration (edge windows that clip, offsets out of
/// range, the error) is the [`tload_map_store`] call itself. So the writes, the result and the
/// first failing iteration are those of the loop; only the tile's contents may differ.
#[allow(clippy::too_many_arguments)]
pub fn tload_map_store_loop<T: Copy, D: TensorMut<T> + ?Sized, const R: usize, const C: usize>(
    tile: &mut Tile<T, R, C>,
    src: &Tensor<T>,
    src_offset: &[LoopIndex],
    dst: &mut D,
    dst_offset: &[LoopIndex],
    range: LoopRange,
    f: impl Fn(T) -> T,
) -> Result<(), Error> {
    let count = range.count()?;
    let rows = walk_rows::<R>(&[src.rank(), dst.rank()]);
    let window = [rows, C];
    let walks = (
        Walk::new(src.plane(), src.rank(), src_offset, window),
        Walk::new(dst.plane(), dst.rank(), dst_offset, window),
    );
    let (k_lo, k_hi) = match walks {
        (Some(s), Some(d)) => range.within(count, s.lo.max(d.lo), s.hi.min(d.hi)),
        _ => (0, 0),
    };
    let one = |tile: &mut Tile<T, R, C>, dst: &mut D, k: u128| {
        let iv = range.at(k);
        with_offset(src_offset, iv, |so| {
            with_offset(dst_offset, iv, |d_o| {
                tload_map_store(tile, src, so, dst, d_o, &f)
            })
        })
    };
    for k in 0..k_lo {
        one(tile, dst, k)?;
    }
    if let (Some(sw), Some(dw)) = walks
        && k_lo < k_hi
    {
        let n = rows * C;
        let s = src.as_slice();
        let step = range.step;
        let (s0, d0) = (sw.start(range.at(k_lo)), dw.start(range.at(k_lo)));
        let iters = (k_hi - k_lo) as usize;
        if (rows == 1 || (sw.stride == C && dw.stride == C))
            && sw.coef.checked_mul(step) == Some(n)
            && dw.coef.checked_mul(step) == Some(n)
        {
            // Back-to-back windows: one contiguous run of whole rows.
            let len = iters.saturating_mul(n);
            if let (Some(s), Some(d)) = (
                s.get(s0..).and_then(|s| s.get(..len)),
                dst.tail_mut(d0).and_then(|d| d.get_mut(..len)),
            ) {
                for (d, &s) in d.iter_mut().zip(s) {
                    *d = f(s);
                }
            }
        } else {
            let (s_step, d_step) = (sw.coef.wrapping_mul(step), dw.coef.wrapping_mul(step));
            let (mut si, mut di) = (s0, d0);
            for _ in 0..iters {
                map_window::<T, C>(
                    s.get(si..).unwrap_or_default(),
                    sw.stride,
                    dst.tail_mut(di).unwrap_or_default(),
                    dw.stride,
                    rows,
                    &f,
                );
                si = si.wrapping_add(s_step);
                di = di.wrapping_add(d_step);
            }
        }
    }
    for k in k_hi.max(k_lo)..count {
        one(tile, dst, k)?;
    }
    Ok(())
}

/// `for iv in (lb..ub).step_by(step) { tload2_map_store(ta, a, a_offset(iv), tb, b,
/// b_offset(iv), dst, dst_offset(iv), f)?; }`, with the equivalence of
/// [`tload_map_store_loop`].
#[allow(clippy::too_many_arguments)]
pub fn tload2_map_store_loop<T: Copy, D: TensorMut<T> + ?Sized, const R: usize, const C: usize>(
    ta: &mut Tile<T, R, C>,
    a: &Tensor<T>,
    a_offset: &[LoopIndex],
    tb: &mut Tile<T, R, C>,
    b: &Tensor<T>,
    b_offset: &[LoopIndex],
    dst: &mut D,
    dst_offset: &[LoopIndex],
    range: LoopRange,
    f: impl Fn(T, T) -> T,
) -> Result<(), Error> {
    let count = range.count()?;
    let rows = walk_rows::<R>(&[a.rank(), b.rank(), dst.rank()]);
    let window = [rows, C];
    let walks = (
        Walk::new(a.plane(), a.rank(), a_offset, window),
        Walk::new(b.plane(), b.rank(), b_offset, window),
        Walk::new(dst.plane(), dst.rank(), dst_offset, window),
    );
    let (k_lo, k_hi) = match walks {
        (Some(aw), Some(bw), Some(dw)) => range.within(
            count,
            aw.lo.max(bw.lo).max(dw.lo),
            aw.hi.min(bw.hi).min(dw.hi),
        ),
        _ => (0, 0),
    };
    let one = |ta: &mut Tile<T, R, C>, tb: &mut Tile<T, R, C>, dst: &mut D, k: u128| {
        let iv = range.at(k);
        with_offset(a_offset, iv, |ao| {
            with_offset(b_offset, iv, |bo| {
                with_offset(dst_offset, iv, |d_o| {
                    tload2_map_store(ta, a, ao, tb, b, bo, dst, d_o, &f)
                })
            })
        })
    };
    for k in 0..k_lo {
        one(ta, tb, dst, k)?;
    }
    if let (Some(aw), Some(bw), Some(dw)) = walks
        && k_lo < k_hi
    {
        let n = rows * C;
        let (sa, sb) = (a.as_slice(), b.as_slice());
        let step = range.step;
        let iv0 = range.at(k_lo);
        let (a0, b0, d0) = (aw.start(iv0), bw.start(iv0), dw.start(iv0));
        let iters = (k_hi - k_lo) as usize;
        if (rows == 1 || (aw.stride == C && bw.stride == C && dw.stride == C))
            && aw.coef.checked_mul(step) == Some(n)
            && bw.coef.checked_mul(step) == Some(n)
            && dw.coef.checked_mul(step) == Some(n)
        {
            let len = iters.saturating_mul(n);
            if let (Some(sa), Some(sb), Some(d)) = (
                sa.get(a0..).and_then(|s| s.get(..len)),
                sb.get(b0..).and_then(|s| s.get(..len)),
                dst.tail_mut(d0).and_then(|d| d.get_mut(..len)),
            ) {
                for ((d, &x), &y) in d.iter_mut().zip(sa).zip(sb) {
                    *d = f(x, y);
                }
            }
        } else {
            let steps = (
                aw.coef.wrapping_mul(step),
                bw.coef.wrapping_mul(step),
                dw.coef.wrapping_mul(step),
            );
            let (mut ai, mut bi, mut di) = (a0, b0, d0);
            for _ in 0..iters {
                map2_window::<T, C>(
                    sa.get(ai..).unwrap_or_default(),
                    aw.stride,
                    sb.get(bi..).unwrap_or_default(),
                    bw.stride,
                    dst.tail_mut(di).unwrap_or_default(),
                    dw.stride,
                    rows,
                    &f,
                );
                ai = ai.wrapping_add(steps.0);
                bi = bi.wrapping_add(steps.1);
                di = di.wrapping_add(steps.2);
            }
        }
    }
    for k in k_hi.max(k_lo)..count {
        one(ta, tb, dst, k)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{tmuls_inplace, tsub_inplace};

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
        // A non-accumulating op: the fused form computes over the region the loads share,
        // like `TSUB` (the code generator does not fuse `TADD` of loads whose regions may
        // differ, since its result covers both).
        tsub_inplace(&mut ta, &tb);
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
                x - y
            });
            let what = format!("{a_s:?} {ao:?} {b_s:?} {bo:?} {ds:?} {d_o:?}");
            assert_eq!(format!("{g:?}"), format!("{w:?}"), "{what}");
            assert_eq!(got.as_slice(), want.as_slice(), "{what}");
        }
    }

    /// One iteration of the unfused sequence, given the three offsets.
    type Iteration<'a> = dyn FnMut(&[usize], &[usize], &[usize]) -> Result<(), Error> + 'a;

    /// The loop `tload_map_store_loop` stands for, on the unfused sequence.
    fn unfused_loop(
        one: &mut Iteration<'_>,
        specs: [&[LoopIndex]; 3],
        range: LoopRange,
    ) -> Result<(), Error> {
        if range.step == 0 {
            return Err(Error::Unsupported("loop step 0 is not positive".into()));
        }
        let offs = |spec: &[LoopIndex], iv: i64| -> Vec<usize> {
            spec.iter()
                .map(|x| match *x {
                    LoopIndex::Iv => iv as usize,
                    LoopIndex::At(c) => c,
                })
                .collect()
        };
        for iv in (range.lb..range.ub).step_by(range.step) {
            one(
                &offs(specs[0], iv),
                &offs(specs[1], iv),
                &offs(specs[2], iv),
            )?;
        }
        Ok(())
    }

    use LoopIndex::{At, Iv as IV};
    type Spec = &'static [LoopIndex];

    fn ranges() -> Vec<LoopRange> {
        let r = |lb, ub, step| LoopRange { lb, ub, step };
        vec![
            r(0, 12, 1),
            r(0, 12, 4),
            r(2, 9, 3),
            r(-2, 5, 1),
            r(5, 3, 1),
            r(0, 40, 1),
            r(i64::MAX - 3, i64::MAX, 2),
            r(i64::MIN, i64::MIN + 2, 1),
            r(0, 4, 0),
        ]
    }

    #[test]
    fn one_source_loops_match_the_unfused_sequence() {
        // Rows walking down (back to back when the tensor is as wide as the tile), columns
        // walking across, both, a constant destination, rank 1, rank 3 and wrong ranks.
        let cases: &[(Dims, Spec, Dims, Spec)] = &[
            (&[40, 8], &[IV, At(0)], &[40, 8], &[IV, At(0)]),
            (&[40, 13], &[IV, At(3)], &[30, 9], &[IV, At(1)]),
            (&[40, 13], &[IV, At(0)], &[40, 13], &[At(2), At(0)]),
            (&[10, 40], &[At(1), IV], &[10, 40], &[At(3), IV]),
            (&[40, 40], &[IV, IV], &[40, 40], &[IV, At(5)]),
            (&[60], &[IV], &[60], &[IV]),
            (&[60], &[IV], &[40, 8], &[IV, At(0)]),
            (&[40, 8], &[IV, At(0)], &[80], &[IV]),
            (&[40, 8], &[IV, At(9)], &[40, 8], &[IV, At(0)]),
            (&[40, 8], &[IV, At(0)], &[40, 8], &[IV]),
            (&[3, 40, 8], &[At(1), IV, At(0)], &[40, 8], &[IV, At(0)]),
            (&[3, 4], &[IV, At(0)], &[3, 4], &[IV, At(0)]),
        ];
        for &(ss, so, ds, d_o) in cases {
            for range in ranges() {
                let src = iota(ss, 0.5);
                let mut want = Tensor::<f32>::try_full(ds, -7.0).unwrap();
                let mut got = want.clone();
                let w = unfused_loop(
                    &mut |so, d_o, _| unfused1(&src, so, &mut want, d_o),
                    [so, d_o, &[]],
                    range,
                );
                let mut t = Tile::<f32, 4, 8>::zeros();
                let g = tload_map_store_loop(&mut t, &src, so, &mut got, d_o, range, |x| x * 3.0);
                let what = format!("{ss:?} {so:?} {ds:?} {d_o:?} {range:?}");
                assert_eq!(format!("{g:?}"), format!("{w:?}"), "{what}");
                assert_eq!(got.as_slice(), want.as_slice(), "{what}");
            }
        }
    }

    #[test]
    fn two_source_loops_match_the_unfused_sequence() {
        let cases: &[(Dims, Spec, Dims, Spec, Dims, Spec)] = &[
            (
                &[40, 8],
                &[IV, At(0)],
                &[40, 8],
                &[IV, At(0)],
                &[40, 8],
                &[IV, At(0)],
            ),
            (
                &[40, 13],
                &[IV, At(3)],
                &[30, 9],
                &[IV, At(1)],
                &[20, 12],
                &[IV, At(2)],
            ),
            (&[60], &[IV], &[40, 8], &[IV, At(0)], &[60], &[IV]),
            (
                &[10, 40],
                &[At(1), IV],
                &[40],
                &[At(3)],
                &[10, 40],
                &[At(3), IV],
            ),
            (
                &[40, 8],
                &[IV, At(0)],
                &[3, 40, 8],
                &[At(0), IV, At(0)],
                &[40, 8],
                &[IV, At(0)],
            ),
        ];
        for &(a_s, ao, b_s, bo, ds, d_o) in cases {
            for range in ranges() {
                let (a, b) = (iota(a_s, 0.5), iota(b_s, -0.25));
                let mut want = Tensor::<f32>::try_full(ds, -7.0).unwrap();
                let mut got = want.clone();
                let w = unfused_loop(
                    &mut |ao, bo, d_o| unfused2(&a, ao, &b, bo, &mut want, d_o),
                    [ao, bo, d_o],
                    range,
                );
                let (mut ta, mut tb) = (Tile::<f32, 4, 8>::zeros(), Tile::<f32, 4, 8>::zeros());
                let g = tload2_map_store_loop(
                    &mut ta,
                    &a,
                    ao,
                    &mut tb,
                    &b,
                    bo,
                    &mut got,
                    d_o,
                    range,
                    |x, y| x - y,
                );
                let what = format!("{a_s:?} {ao:?} {b_s:?} {bo:?} {ds:?} {d_o:?} {range:?}");
                assert_eq!(format!("{g:?}"), format!("{w:?}"), "{what}");
                assert_eq!(got.as_slice(), want.as_slice(), "{what}");
            }
        }
    }
}
