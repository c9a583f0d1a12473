//! `TROWARGMAX` / `TROWARGMIN` (issue 16 part A): the `i32` column index of each row's
//! maximum / minimum over the source's valid region. The first index wins a tie and a NaN
//! never beats a number, so an all-NaN row gives 0 (`pto_ir::sem::arg`, the one rule).

use crate::Tile;
use crate::element::Element;

#[inline(always)]
fn arg_row<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<i32, R, 1>,
    src: &Tile<T, R, C>,
    beats: impl Fn(T, T) -> bool,
) {
    let (vr, vc) = src.valid();
    for (d, s) in dst.data[..vr].iter_mut().zip(&src.data[..vr]) {
        let mut at = 0;
        for (j, &x) in s[..vc].iter().enumerate().skip(1) {
            if beats(x, s[at]) {
                at = j;
            }
        }
        // `at < C`, and a tile's columns fit an `i32` index (a Vec tile is at most 256 KiB).
        d[0] = at as i32;
    }
    dst.set_valid_clamped(vr, 1);
}

/// Whether `x` is a NaN (`x != x`; integers never are).
#[inline(always)]
#[allow(clippy::eq_op)]
fn nan<T: PartialEq>(x: T) -> bool {
    x != x
}

/// `TROWARGMAX(dst, src)`: `dst[i, 0]` = the first `j` with the largest `src[i, j]`.
pub fn trowargmax<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<i32, R, 1>,
    src: &Tile<T, R, C>,
) {
    arg_row(dst, src, |x, best| x > best || (nan(best) && !nan(x)));
}

/// `TROWARGMIN(dst, src)`: `dst[i, 0]` = the first `j` with the smallest `src[i, j]`.
pub fn trowargmin<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<i32, R, 1>,
    src: &Tile<T, R, C>,
) {
    arg_row(dst, src, |x, best| x < best || (nan(best) && !nan(x)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_index_wins_and_nan_never_does_over_the_valid_region() {
        let nan = f32::NAN;
        let rows = [
            [1.0, 3.0, 3.0, 9.0],
            [nan, 2.0, nan, -1.0],
            [nan, nan, nan, 5.0],
        ];
        let src = Tile::<f32, 3, 4>::from_fn(|i, j| rows[i][j])
            .with_valid(3, 3)
            .unwrap();
        let mut d = Tile::<i32, 3, 1>::zeros();
        trowargmax(&mut d, &src);
        assert_eq!(d.to_vec(), [1, 1, 0]);
        trowargmin(&mut d, &src);
        assert_eq!(d.to_vec(), [0, 1, 0]);
    }
}
