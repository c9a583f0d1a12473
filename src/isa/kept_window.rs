//! A row-summed run's kept tile held in the window its broadcast store writes, for the CPU.
//!
//! In `e = exp(t - m); s = TROWSUM(e); out[..] = e / s` (a softmax; a layernorm's `x - mean`
//! and `* rsqrt(var)`) one pass writes the kept tile `e` and sums it, and the store's pass
//! reads it back and writes the window. Through a tile, that second pass is a run of stores
//! to lines not yet in cache with little else to do; with `e` written into the stored window
//! instead, the first pass takes those misses beside its loads and arithmetic, and the second
//! rewrites lines already in L1, as a loop written by hand does. For a 4096 x 1024 `f32`
//! layernorm one row at a time, the same two passes written both ways by hand took 1.2 to 1.3
//! times as long through a one-row buffer (medians of 100 alternating calls, any buffer
//! offset).
//!
//! The two calls are a pair: [`trowexpand_map_rowsum_view_window`] says whether it wrote
//! the window, and [`trowexpand_store_window`] is told. Together they give the window, the
//! sums and the valid regions exactly what
//! [`trowexpand_map_rowsum_view_into`](super::trowexpand_map_rowsum_view_into) then
//! [`trowexpand_store_inplace`](super::trowexpand_store_inplace) give them; only the kept
//! tile's values are not written (they are in the window, and the tile is dead after the
//! store). The host code's row splits use the pair (`pto-lower`'s `lower/row_split.rs`).

use super::TensorMut;
use super::expand::{row_region, row_region_of};
use super::expand_store::window;
use super::row_pass::map_sum_row;
use super::view::TileView;
use super::{Offset, trowexpand_map_rowsum_view_into, trowexpand_store_inplace};
use crate::element::Element;
use crate::{Error, Tile};

/// The run of [`trowexpand_map_rowsum_view_into`](super::trowexpand_map_rowsum_view_into)
/// (`TLOAD(w, ..)` read as `a`, `TROWEXPAND{op}`, elementwise ops, `TROWSUM(sum, ..)`), its
/// kept values written into the `R x C` window of `dst` at `offset` instead of `w` when the
/// run covers all of `w` and that window lies whole inside `dst` (then `true`; `w` gets only
/// its valid region). Otherwise it is that call, into `w` (`false`).
///
/// Never inlined: in a `-C target-cpu=native` build, where `multiversion` calls its AVX-512
/// body directly, the row loop inlined into a layernorm kernel's one-row loop ran 1.3x
/// slower than as a call (the same instructions; 100 alternating calls, 4096 x 1024 `f32`).
#[inline(never)]
pub fn trowexpand_map_rowsum_view_window<T: Element, const R: usize, const C: usize>(
    sum: &mut Tile<T, R, 1>,
    w: &mut Tile<T, R, C>,
    dst: &mut (impl TensorMut<T> + ?Sized),
    offset: impl Offset,
    a: &TileView<'_, T>,
    r: &Tile<T, R, 1>,
    f: impl Fn(T, T) -> (T, T),
) -> bool {
    let offset = offset.into_usizes();
    let (vr, vc) = row_region_of(a.valid(), r);
    let whole = window(dst, offset.as_ref(), R, C)
        .filter(|p| (vr, vc) == (R, C) && (p.rows, p.cols) == (R, C));
    let Some(p) = whole else {
        trowexpand_map_rowsum_view_into(sum, w, a, r, f);
        return false;
    };
    let Some(out) = dst.tail_mut(p.start) else {
        trowexpand_map_rowsum_view_into(sum, w, a, r, f);
        return false;
    };
    let (data, stride) = a.flat();
    map_sum_window(
        &mut sum.data,
        out,
        p.stride,
        data,
        stride,
        &r.data,
        (vr, vc),
        f,
    );
    w.set_valid_clamped(vr, vc);
    sum.set_valid_clamped(vr, 1);
    true
}

/// `TROWEXPAND{op}(d, d, r); TSTORE(dst[offset], d)` after
/// [`trowexpand_map_rowsum_view_window`] kept `d`: `in_window` is what that call returned.
/// When it wrote the window, each element there becomes `f(it, r[i, 0])` in place; otherwise
/// this is [`trowexpand_store_inplace`](super::trowexpand_store_inplace).
#[inline]
pub fn trowexpand_store_window<T: Copy, const R: usize, const C: usize>(
    dst: &mut (impl TensorMut<T> + ?Sized),
    offset: impl Offset,
    d: &mut Tile<T, R, C>,
    r: &Tile<T, R, 1>,
    in_window: bool,
    f: impl Fn(T, T) -> T,
) -> Result<(), Error> {
    let offset = offset.into_usizes();
    let offset = offset.as_ref();
    if !in_window {
        return trowexpand_store_inplace(dst, offset, d, r, f);
    }
    // The window was whole for all of `d`, so it is for the part `r` covers.
    let (vr, vc) = row_region(d, r);
    if let Some(p) = window(dst, offset, vr, vc)
        && let Some(out) = dst.tail_mut(p.start)
    {
        row_op_window(out, p.stride, &r.data, p.rows, p.cols, f);
    }
    d.set_valid_clamped(vr, vc);
    Ok(())
}

/// `sum[i][0] = map_sum_row(out's row i, a's row i, r[i][0])` for the rows `i < vr` (`vc`
/// columns), `out`'s rows `out_stride` apart and `a`'s `stride` apart (as `row_pass.rs`'s
/// `map_sum_rows`, into a tensor's window).
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
))]
#[allow(clippy::too_many_arguments)]
fn map_sum_window<T: Element, F: Fn(T, T) -> (T, T)>(
    sum: &mut [[T; 1]],
    out: &mut [T],
    out_stride: usize,
    a: &[T],
    stride: usize,
    r: &[[T; 1]],
    (vr, vc): (usize, usize),
    f: F,
) {
    let rows = sum
        .iter_mut()
        .zip(out.chunks_mut(out_stride.max(1)))
        .zip(r)
        .zip(a.chunks(stride.max(1)));
    for (((s, w), r), a) in rows.take(vr) {
        if let (Some(w), Some(a)) = (w.get_mut(..vc), a.get(..vc)) {
            s[0] = map_sum_row(w, a, r[0], &f);
        }
    }
}

/// `out[i * stride + j] = f(out[i * stride + j], r[i][0])` for `i < rows`, `j < cols`.
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
))]
fn row_op_window<T: Copy, F: Fn(T, T) -> T>(
    out: &mut [T],
    stride: usize,
    r: &[[T; 1]],
    rows: usize,
    cols: usize,
    f: F,
) {
    for (o, r) in out.chunks_mut(stride.max(1)).zip(r).take(rows) {
        let r = r[0];
        if let Some(o) = o.get_mut(..cols) {
            for x in o {
                *x = f(*x, r);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Tensor;
    use crate::isa::test_data::{WINDOWS, bits, tensor, value};
    use crate::isa::tload_view;

    /// Store windows for a 4 x 40 tile: whole, ragged, rank 1, rank 3 (the general path),
    /// outside (an error).
    const STORES: &[(&[usize], &[usize])] = &[
        (&[8, 40], &[4, 0]),
        (&[4, 40], &[0, 0]),
        (&[10, 53], &[8, 9]),
        (&[6], &[2]),
        (&[160], &[0]),
        (&[3, 4, 40], &[1, 0, 0]),
        (&[8, 40], &[8, 0]),
    ];

    /// The tensor's elements as bits, every NaN as one value.
    fn tensor_bits(t: &Tensor<f32>) -> Vec<u32> {
        let b = |x: &f32| if x.is_nan() { u32::MAX } else { x.to_bits() };
        t.as_slice().iter().map(b).collect()
    }

    #[test]
    fn the_pair_gives_what_the_run_and_the_store_give() {
        type Run = fn(f32, f32) -> (f32, f32);
        // exp(t - r) kept and summed (a softmax), t - r kept and its squares summed (a
        // layernorm).
        let runs: [Run; 2] = [
            |x, m| {
                let v = crate::element::Float::exp(x - m);
                (v, v)
            },
            |x, m| (x - m, (x - m) * (x - m)),
        ];
        let r = Tile::<f32, 4, 1>::from_fn(|i, _| value(i + 5) * 0.5 + 0.25);
        let rs = [(4, 1), (2, 1), (4, 0)].map(|(a, b)| r.clone().with_valid(a, b).unwrap());
        let mut windows = 0;
        for &(shape, offset) in WINDOWS {
            let x = tensor(shape, |k| value(k + 3));
            let Some(v) = tload_view(&Tile::<f32, 4, 40>::zeros(), &x, offset) else {
                continue;
            };
            for (k, f) in runs.into_iter().enumerate() {
                for r in &rs {
                    for &(yshape, at) in STORES {
                        let what = format!(
                            "{shape:?} {offset:?} run {k} r {:?} {yshape:?} {at:?}",
                            r.valid()
                        );
                        let y = tensor(yshape, |k| k as f32 * 0.5);
                        // The run into the tile, then the broadcast and store.
                        let (mut want, mut s) = (y.clone(), Tile::<f32, 4, 1>::full(3.0));
                        let mut w = Tile::<f32, 4, 40>::full(7.0);
                        trowexpand_map_rowsum_view_into(&mut s, &mut w, &v, r, f);
                        let s_want = s.clone();
                        let e_want =
                            trowexpand_store_inplace(&mut want, at, &mut w, &s_want, |a, b| a * b);
                        // The pair.
                        let (mut got, mut s2) = (y.clone(), Tile::<f32, 4, 1>::full(3.0));
                        let mut w2 = Tile::<f32, 4, 40>::full(7.0);
                        let kept = trowexpand_map_rowsum_view_window(
                            &mut s2, &mut w2, &mut got, at, &v, r, f,
                        );
                        windows += usize::from(kept);
                        assert_eq!(bits(&s2), bits(&s), "sums {what}");
                        assert_eq!((w2.valid(), s2.valid()), (w.valid(), s.valid()), "{what}");
                        let s2 = s2.clone();
                        let e =
                            trowexpand_store_window(&mut got, at, &mut w2, &s2, kept, |a, b| a * b);
                        assert_eq!(format!("{e:?}"), format!("{e_want:?}"), "{what}");
                        assert_eq!(tensor_bits(&got), tensor_bits(&want), "{what}");
                        assert_eq!(w2.valid(), w.valid(), "{what}");
                    }
                }
            }
        }
        // Some cases went through the window.
        assert!(windows > 0);
    }
}
