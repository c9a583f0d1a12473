//! Several reductions of one loaded tile in one pass, for the CPU.
//!
//! `TLOAD(t, x[..]); TROWSUM(a, t); TSTORE(..); TROWMAX(b, t); ..; TCOLSUM(c, t); ..`: the
//! reductions read the same tile, which nothing writes between them, so each row of the
//! window is reduced every way while it is in registers ([`tload_reductions`]), and each
//! result is handed to its destination where its instruction stood ([`Reduced::row`],
//! [`Reduced::col`]), so the instructions between see the tiles as before (a destination
//! may be one tile written by several of the reductions in turn). When nothing else reads
//! `t`, the pass does not copy the window into it at all.
//!
//! The code generator (`pto-lower`'s `lower/pairs.rs`) calls these in place of the
//! instructions, which the C++ still prints one by one. Results are those of the
//! instructions: a row sum in [`lane_sum`]'s order, a row or column max or min that of the
//! fold by `max` / `min` (`reduce.rs`), a column sum added top to bottom from zero,
//! the same valid regions, the same errors (a window off the plain path is loaded by
//! [`tload`] and the tile reduced).

use super::memory::Plain;
use super::reduce::{fix_zero_cols, row_max, row_min};
use super::{Offset, lane_sum, tload};
use crate::element::Element;
use crate::{Error, Tensor, Tile};

/// A reduction of [`tload_reductions`]: a sum, a maximum or a minimum (of each row for a
/// row reduction, of each column for a column one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduce {
    /// `TROWSUM` / `TCOLSUM`.
    Sum,
    /// `TROWMAX` / `TCOLMAX`.
    Max,
    /// `TROWMIN` / `TCOLMIN`.
    Min,
}

/// The results of [`tload_reductions`]: `NR` row reductions (`R x 1`) and `NC` column
/// reductions (`1 x C`) of an `R x C` region, on the stack.
#[derive(Clone, Debug)]
pub struct Reduced<T, const R: usize, const C: usize, const NR: usize, const NC: usize> {
    rows: [[T; R]; NR],
    cols: [[T; C]; NC],
    /// The reduced tile's valid region.
    valid: (usize, usize),
}

impl<T: Element, const R: usize, const C: usize, const NR: usize, const NC: usize>
    Reduced<T, R, C, NR, NC>
{
    /// Writes row reduction `k` into `dst` as its instruction would (`dst[i, 0]` for the
    /// valid rows; valid region `(rows, 1)`).
    #[inline]
    pub fn row(&self, k: usize, dst: &mut Tile<T, R, 1>) {
        let (vr, _) = self.valid;
        if let Some(r) = self.rows.get(k) {
            for (d, &x) in dst.data.iter_mut().zip(r).take(vr) {
                d[0] = x;
            }
        }
        dst.set_valid_clamped(vr, 1);
    }

    /// Writes column reduction `k` into `dst` as its instruction would (`dst[0, j]` for the
    /// valid columns; valid region `(1, cols)`).
    #[inline]
    pub fn col(&self, k: usize, dst: &mut Tile<T, 1, C>) {
        let (_, vc) = self.valid;
        if let (Some(c), Some(d)) = (self.cols.get(k), dst.data.first_mut()) {
            for (d, &x) in d.iter_mut().zip(c).take(vc) {
                *d = x;
            }
        }
        dst.set_valid_clamped(1, vc);
    }
}

/// The identity a column reduction starts from (as `tcolsum` / `tcolmax` / `tcolmin`).
fn identity<T: Element>(kind: Reduce) -> T {
    match kind {
        Reduce::Sum => T::ZERO,
        Reduce::Max => T::LOWEST,
        Reduce::Min => T::HIGHEST,
    }
}

/// Reduces the `rows x cols` region at `src[0..]` (rows `stride` apart) every way `kinds`
/// asks into `out`, copying each row into `tile`'s row first when there is a tile.
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
))]
fn reduce_rows<T: Element, const R: usize, const C: usize, const NR: usize, const NC: usize>(
    mut tile: Option<&mut [[T; C]]>,
    src: &[T],
    stride: usize,
    (rows, cols): (usize, usize),
    kinds: ([Reduce; NR], [Reduce; NC]),
    out: &mut Reduced<T, R, C, NR, NC>,
) {
    for (c, &kind) in out.cols.iter_mut().zip(&kinds.1) {
        c.fill(identity(kind));
    }
    for (i, s) in src.chunks(stride).take(rows).enumerate() {
        let Some(s) = s.get(..cols) else {
            break; // unreachable: the caller's window is in bounds
        };
        if let Some(d) = tile
            .as_deref_mut()
            .and_then(|t| t.get_mut(i)?.get_mut(..cols))
        {
            d.copy_from_slice(s);
        }
        for (r, &kind) in out.rows.iter_mut().zip(&kinds.0) {
            if let Some(o) = r.get_mut(i) {
                *o = match kind {
                    Reduce::Sum => lane_sum(s),
                    Reduce::Max => row_max(s),
                    Reduce::Min => row_min(s),
                };
            }
        }
        for (c, &kind) in out.cols.iter_mut().zip(&kinds.1) {
            let c = c.iter_mut().zip(s);
            match kind {
                Reduce::Sum => c.for_each(|(d, &x)| *d = d.add(x)),
                Reduce::Max => c.for_each(|(d, &x)| *d = d.max_any_zero(x)),
                Reduce::Min => c.for_each(|(d, &x)| *d = d.min_any_zero(x)),
            }
        }
    }
    // A zero maximum or minimum recomputed with its sign (`reduce.rs`'s `fix_zero_cols`).
    for (c, &kind) in out.cols.iter_mut().zip(&kinds.1) {
        let f: fn(T, T) -> T = match kind {
            Reduce::Sum => continue,
            Reduce::Max => T::max,
            Reduce::Min => T::min,
        };
        let Some(c) = c.get_mut(..cols) else {
            continue; // unreachable: cols <= C
        };
        fix_zero_cols(c, |j| {
            let column = src.chunks(stride).take(rows).filter_map(|s| s.get(j));
            column.fold(identity(kind), |a, &x| f(a, x))
        });
    }
    out.valid = (rows, cols);
}

/// `TLOAD(t, src[offset])` and the row reductions `rows` and column reductions `cols` of
/// `t`, in one pass over the window; each result is then handed out by [`Reduced::row`] /
/// [`Reduced::col`] in place of its instruction. `t` gets the load's valid region, and its
/// elements only when `write` (the code generator passes `false` when nothing but these
/// reductions reads `t`). A window off the plain path is loaded into `t` by [`tload`] (its
/// error returned) and the tile reduced.
#[inline]
pub fn tload_reductions<
    T: Element,
    const R: usize,
    const C: usize,
    const NR: usize,
    const NC: usize,
>(
    t: &mut Tile<T, R, C>,
    write: bool,
    src: &Tensor<T>,
    offset: impl Offset,
    rows: [Reduce; NR],
    cols: [Reduce; NC],
) -> Result<Reduced<T, R, C, NR, NC>, Error> {
    let offset = offset.into_usizes();
    let offset = offset.as_ref();
    let mut out = Reduced {
        rows: [[T::ZERO; R]; NR],
        cols: [[T::ZERO; C]; NC],
        valid: (0, 0),
    };
    let Some(p) = Plain::new(src.shape(), offset, R, C) else {
        tload(t, src, offset)?;
        let region = t.valid();
        reduce_rows(
            None,
            t.data.as_flattened(),
            C,
            region,
            (rows, cols),
            &mut out,
        );
        return Ok(out);
    };
    let s = src.as_slice().get(p.start..).unwrap_or_default();
    let tile = write.then_some(&mut t.data[..]);
    reduce_rows(tile, s, p.stride, (p.rows, p.cols), (rows, cols), &mut out);
    t.set_valid_clamped(p.rows, p.cols);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::test_data::{WINDOWS, bits, tensor, value};
    use crate::isa::{tcolmax, tcolmin, tcolsum, trowmax, trowmin, trowsum};

    /// Fills: mixed values, zeros of both signs only, NaN and zeros, all NaN, zeros of both
    /// signs among negative and among positive numbers.
    fn fills() -> Vec<fn(usize) -> f32> {
        vec![
            value,
            |k| if k.is_multiple_of(3) { 0.0 } else { -0.0 },
            |k| if k.is_multiple_of(5) { -0.0 } else { f32::NAN },
            |_| f32::NAN,
            |k| match k % 19 {
                7 => 0.0,
                2 | 13 => -0.0,
                _ => -1.0,
            },
            |k| match k % 23 {
                3 => -0.0,
                1 | 18 => 0.0,
                _ => 1.0,
            },
        ]
    }

    type RowFn = fn(&mut Tile<f32, 4, 1>, &Tile<f32, 4, 40>);
    type ColFn = fn(&mut Tile<f32, 1, 40>, &Tile<f32, 4, 40>);
    const ROWS: [(Reduce, RowFn); 3] = [
        (Reduce::Sum, trowsum),
        (Reduce::Max, trowmax),
        (Reduce::Min, trowmin),
    ];
    const COLS: [(Reduce, ColFn); 3] = [
        (Reduce::Sum, tcolsum),
        (Reduce::Max, tcolmax),
        (Reduce::Min, tcolmin),
    ];

    /// Every row and column reduction, handed out into tiles that held other values, against
    /// `TLOAD` and the instructions one by one: the same bits, valid regions and errors, and
    /// the loaded tile the load's when `write` (its valid region either way).
    #[test]
    fn match_the_load_and_the_instructions() {
        for (i, fill) in fills().into_iter().enumerate() {
            for &(shape, offset) in WINDOWS {
                for write in [true, false] {
                    let what = format!("fill {i} {shape:?} {offset:?} write {write}");
                    let x = tensor(shape, fill);
                    let mut t = Tile::<f32, 4, 40>::full(7.0);
                    let loaded = tload(&mut t, &x, offset);
                    let mut t2 = Tile::<f32, 4, 40>::full(7.0);
                    let got = tload_reductions(
                        &mut t2,
                        write,
                        &x,
                        offset,
                        ROWS.map(|r| r.0),
                        COLS.map(|c| c.0),
                    );
                    let got = match (got, loaded) {
                        (Ok(got), Ok(())) => got,
                        (got, want) => {
                            assert_eq!(format!("{:?}", got.map(|_| ())), format!("{want:?}"));
                            continue;
                        }
                    };
                    assert_eq!(t2.valid(), t.valid(), "{what}");
                    if write || shape.len() > 2 {
                        assert_eq!(bits(&t2), bits(&t), "{what}");
                    } else {
                        assert_eq!(bits(&t2), bits(&Tile::<f32, 4, 40>::full(7.0)), "{what}");
                    }
                    for (k, (_, f)) in ROWS.into_iter().enumerate() {
                        let (mut want, mut d) = (Tile::full(5.0), Tile::full(5.0));
                        f(&mut want, &t);
                        got.row(k, &mut d);
                        assert_eq!((bits(&d), d.valid()), (bits(&want), want.valid()), "{what}");
                    }
                    for (k, (_, f)) in COLS.into_iter().enumerate() {
                        let (mut want, mut d) = (Tile::full(5.0), Tile::full(5.0));
                        f(&mut want, &t);
                        got.col(k, &mut d);
                        assert_eq!((bits(&d), d.valid()), (bits(&want), want.valid()), "{what}");
                    }
                }
            }
        }
    }

    #[test]
    fn one_by_one_tile() {
        let x = tensor(&[3, 2], |k| k as f32 - 0.5);
        let mut t = Tile::<f32, 1, 1>::zeros();
        let got = tload_reductions(&mut t, true, &x, [2, 1], [Reduce::Max], [Reduce::Sum]);
        let got = got.unwrap();
        let (mut r, mut c) = (Tile::<f32, 1, 1>::zeros(), Tile::<f32, 1, 1>::zeros());
        got.row(0, &mut r);
        got.col(0, &mut c);
        assert_eq!(
            (t.to_vec(), r.to_vec(), c.to_vec()),
            (vec![4.5], vec![4.5], vec![4.5])
        );
        // An index past the results leaves the elements and sets the valid region.
        got.row(3, &mut r);
        assert_eq!((r.to_vec(), r.valid()), (vec![4.5], (1, 1)));
    }
}
