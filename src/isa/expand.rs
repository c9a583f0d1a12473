//! Broadcasts: `TEXPANDS` (fill with a scalar), `TROWEXPAND` / `TCOLEXPAND` (replicate an
//! `R x 1` column or a `1 x C` row) and the fused `TROWEXPAND{ADD,SUB,MUL,DIV,MAX,MIN}` /
//! `TCOLEXPAND{ADD,SUB,MUL,DIV,MAX,MIN}` (`dst[i, j] = a[i, j] (op) r[i, 0]` or `(op) c[0, j]`).
//!
//! Valid regions: the fused forms iterate over `a`'s valid region restricted to the rows
//! (columns) the per-row (per-column) operand covers, and give `dst` that region. The plain
//! expands keep `dst`'s valid extent along the broadcast axis and take the other from the
//! source. `_inplace` forms read `dst` as `a`; `_rev` forms put the broadcast operand first
//! (`trowexpandsub_rev(dst, r, a)` is `dst[i, j] = r[i, 0] - a[i, j]`).

use super::map_inplace;
use crate::Tile;
use crate::element::Element;

/// `TEXPANDS`: `dst[i, j] = k` over `dst`'s valid region.
#[inline]
pub fn texpands<T: Copy, const R: usize, const C: usize>(dst: &mut Tile<T, R, C>, k: T) {
    let (vr, vc) = dst.valid();
    map_inplace(&mut dst.data, vr, vc, move |_| k);
}

/// `TROWEXPAND`: `dst[i, j] = src[i, 0]`; rows from `src`'s valid rows, columns over `dst`'s
/// valid columns.
#[inline]
pub fn trowexpand<T: Copy, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, C>,
    src: &Tile<T, R, 1>,
) {
    let (vr, vc) = (src.valid_rows, dst.valid_cols);
    if src.valid_cols > 0 {
        for (d, s) in dst.data[..vr].iter_mut().zip(&src.data[..vr]) {
            d[..vc].fill(s[0]);
        }
    }
    dst.set_valid_clamped(vr, vc);
}

/// `TCOLEXPAND`: `dst[i, j] = src[0, j]`; columns from `src`'s valid columns, rows over
/// `dst`'s valid rows.
#[inline]
pub fn tcolexpand<T: Copy, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, C>,
    src: &Tile<T, 1, C>,
) {
    let (vr, vc) = (dst.valid_rows, src.valid_cols);
    if src.valid_rows > 0
        && let Some(s) = src.data.first()
    {
        for d in &mut dst.data[..vr] {
            d[..vc].copy_from_slice(&s[..vc]);
        }
    }
    dst.set_valid_clamped(vr, vc);
}

/// Valid region of a row-broadcast op: `a`'s, rows limited to what `r` covers.
#[inline(always)]
pub(super) fn row_region<T, const R: usize, const C: usize>(
    a: &Tile<T, R, C>,
    r: &Tile<T, R, 1>,
) -> (usize, usize) {
    row_region_of((a.valid_rows, a.valid_cols), r)
}

/// [`row_region`] for an operand `a` whose valid region is `(rows, cols)`.
#[inline(always)]
pub(super) fn row_region_of<T, const R: usize>(
    (rows, cols): (usize, usize),
    r: &Tile<T, R, 1>,
) -> (usize, usize) {
    let covered = if r.valid_cols == 0 { 0 } else { r.valid_rows };
    (rows.min(covered), cols)
}

/// Valid region of a column-broadcast op: `a`'s, columns limited to what `c` covers.
#[inline(always)]
pub(super) fn col_region<T, const R: usize, const C: usize>(
    a: &Tile<T, R, C>,
    c: &Tile<T, 1, C>,
) -> (usize, usize) {
    col_region_of((a.valid_rows, a.valid_cols), c)
}

/// [`col_region`] for an operand `a` whose valid region is `(rows, cols)`.
#[inline(always)]
pub(super) fn col_region_of<T, const C: usize>(
    (rows, cols): (usize, usize),
    c: &Tile<T, 1, C>,
) -> (usize, usize) {
    let covered = if c.valid_rows == 0 { 0 } else { c.valid_cols };
    (rows, cols.min(covered))
}

#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
))]
pub(super) fn row_expand_op<T: Copy, F: Fn(T, T) -> T, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, C>,
    a: &Tile<T, R, C>,
    r: &Tile<T, R, 1>,
    f: F,
) {
    let (vr, vc) = row_region(a, r);
    for ((d, a), r) in dst.data[..vr]
        .iter_mut()
        .zip(&a.data[..vr])
        .zip(&r.data[..vr])
    {
        let r = r[0];
        for (d, &a) in d[..vc].iter_mut().zip(&a[..vc]) {
            *d = f(a, r);
        }
    }
    dst.set_valid_clamped(vr, vc);
}

#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
))]
pub(super) fn row_expand_inplace<T: Copy, F: Fn(T, T) -> T, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, C>,
    r: &Tile<T, R, 1>,
    f: F,
) {
    let (vr, vc) = row_region(dst, r);
    for (d, r) in dst.data[..vr].iter_mut().zip(&r.data[..vr]) {
        let r = r[0];
        for d in &mut d[..vc] {
            *d = f(*d, r);
        }
    }
    dst.set_valid_clamped(vr, vc);
}

#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
))]
pub(super) fn col_expand_op<T: Copy, F: Fn(T, T) -> T, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, C>,
    a: &Tile<T, R, C>,
    c: &Tile<T, 1, C>,
    f: F,
) {
    let (vr, vc) = col_region(a, c);
    if let Some(c) = c.data.first() {
        let c = &c[..vc];
        for (d, a) in dst.data[..vr].iter_mut().zip(&a.data[..vr]) {
            for ((d, &a), &c) in d[..vc].iter_mut().zip(&a[..vc]).zip(c) {
                *d = f(a, c);
            }
        }
    }
    dst.set_valid_clamped(vr, vc);
}

#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma",
    "x86_64+avx2+fma",
))]
pub(super) fn col_expand_inplace<T: Copy, F: Fn(T, T) -> T, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, C>,
    c: &Tile<T, 1, C>,
    f: F,
) {
    let (vr, vc) = col_region(dst, c);
    if let Some(c) = c.data.first() {
        let c = &c[..vc];
        for d in &mut dst.data[..vr] {
            for (d, &c) in d[..vc].iter_mut().zip(c) {
                *d = f(*d, c);
            }
        }
    }
    dst.set_valid_clamped(vr, vc);
}

macro_rules! expand_op {
    (
        $doc:literal, $f:path,
        $row:ident, $row_inplace:ident, $col:ident, $col_inplace:ident
        $(, $row_rev:ident, $col_rev:ident)?
    ) => {
        #[doc = concat!("`TROWEXPAND", $doc, "`: `dst[i, j] = a[i, j] (op) r[i, 0]`.")]
        #[inline]
        pub fn $row<T: Element, const R: usize, const C: usize>(
            dst: &mut Tile<T, R, C>,
            a: &Tile<T, R, C>,
            r: &Tile<T, R, 1>,
        ) {
            row_expand_op(dst, a, r, $f);
        }

        #[doc = concat!("`TROWEXPAND", $doc, "(dst, dst, r)`: `dst[i, j] = dst[i, j] (op) r[i, 0]`.")]
        #[inline]
        pub fn $row_inplace<T: Element, const R: usize, const C: usize>(
            dst: &mut Tile<T, R, C>,
            r: &Tile<T, R, 1>,
        ) {
            row_expand_inplace(dst, r, $f);
        }

        #[doc = concat!("`TCOLEXPAND", $doc, "`: `dst[i, j] = a[i, j] (op) c[0, j]`.")]
        #[inline]
        pub fn $col<T: Element, const R: usize, const C: usize>(
            dst: &mut Tile<T, R, C>,
            a: &Tile<T, R, C>,
            c: &Tile<T, 1, C>,
        ) {
            col_expand_op(dst, a, c, $f);
        }

        #[doc = concat!("`TCOLEXPAND", $doc, "(dst, dst, c)`: `dst[i, j] = dst[i, j] (op) c[0, j]`.")]
        #[inline]
        pub fn $col_inplace<T: Element, const R: usize, const C: usize>(
            dst: &mut Tile<T, R, C>,
            c: &Tile<T, 1, C>,
        ) {
            col_expand_inplace(dst, c, $f);
        }

        $(
            #[doc = concat!("`TROWEXPAND", $doc, "(dst, r, a)`: `dst[i, j] = r[i, 0] (op) a[i, j]`.")]
            #[inline]
            pub fn $row_rev<T: Element, const R: usize, const C: usize>(
                dst: &mut Tile<T, R, C>,
                r: &Tile<T, R, 1>,
                a: &Tile<T, R, C>,
            ) {
                row_expand_op(dst, a, r, |a, r| $f(r, a));
            }

            #[doc = concat!("`TCOLEXPAND", $doc, "(dst, c, a)`: `dst[i, j] = c[0, j] (op) a[i, j]`.")]
            #[inline]
            pub fn $col_rev<T: Element, const R: usize, const C: usize>(
                dst: &mut Tile<T, R, C>,
                c: &Tile<T, 1, C>,
                a: &Tile<T, R, C>,
            ) {
                col_expand_op(dst, a, c, |a, c| $f(c, a));
            }
        )?
    };
}

expand_op!(
    "ADD",
    Element::add,
    trowexpandadd,
    trowexpandadd_inplace,
    tcolexpandadd,
    tcolexpandadd_inplace
);
expand_op!(
    "SUB",
    Element::sub,
    trowexpandsub,
    trowexpandsub_inplace,
    tcolexpandsub,
    tcolexpandsub_inplace,
    trowexpandsub_rev,
    tcolexpandsub_rev
);
expand_op!(
    "MUL",
    Element::mul,
    trowexpandmul,
    trowexpandmul_inplace,
    tcolexpandmul,
    tcolexpandmul_inplace
);
expand_op!(
    "DIV",
    Element::div,
    trowexpanddiv,
    trowexpanddiv_inplace,
    tcolexpanddiv,
    tcolexpanddiv_inplace,
    trowexpanddiv_rev,
    tcolexpanddiv_rev
);
expand_op!(
    "MAX",
    Element::max,
    trowexpandmax,
    trowexpandmax_inplace,
    tcolexpandmax,
    tcolexpandmax_inplace
);
expand_op!(
    "MIN",
    Element::min,
    trowexpandmin,
    trowexpandmin_inplace,
    tcolexpandmin,
    tcolexpandmin_inplace
);

#[cfg(test)]
mod tests {
    use super::*;

    fn a() -> Tile<f32, 2, 3> {
        Tile::from_slice(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap()
    }

    #[test]
    fn fill_and_plain_expands() {
        let mut d = Tile::<f32, 2, 3>::zeros().with_valid(2, 2).unwrap();
        texpands(&mut d, 4.5);
        assert_eq!(d.to_vec(), [4.5; 4]);
        assert_eq!(d.as_rows()[0][2], 0.0);
        let r = Tile::<f32, 2, 1>::from_slice(&[7.0, 8.0]).unwrap();
        let mut e = Tile::<f32, 2, 3>::zeros();
        trowexpand(&mut e, &r);
        assert_eq!(e.to_vec(), [7.0, 7.0, 7.0, 8.0, 8.0, 8.0]);
        let c = Tile::<f32, 1, 3>::from_slice(&[1.0, 2.0, 3.0])
            .unwrap()
            .with_valid(1, 2)
            .unwrap();
        tcolexpand(&mut e, &c);
        assert_eq!(e.valid(), (2, 2));
        assert_eq!(e.to_vec(), [1.0, 2.0, 1.0, 2.0]);
    }

    #[test]
    fn row_expand_ops() {
        let r = Tile::<f32, 2, 1>::from_slice(&[2.0, -1.0]).unwrap();
        let mut d = Tile::<f32, 2, 3>::zeros();
        trowexpandadd(&mut d, &a(), &r);
        assert_eq!(d.to_vec(), [3.0, 4.0, 5.0, 3.0, 4.0, 5.0]);
        trowexpandsub(&mut d, &a(), &r);
        assert_eq!(d.to_vec(), [-1.0, 0.0, 1.0, 5.0, 6.0, 7.0]);
        trowexpandsub_rev(&mut d, &r, &a());
        assert_eq!(d.to_vec(), [1.0, 0.0, -1.0, -5.0, -6.0, -7.0]);
        trowexpandmul(&mut d, &a(), &r);
        assert_eq!(d.to_vec(), [2.0, 4.0, 6.0, -4.0, -5.0, -6.0]);
        trowexpanddiv(&mut d, &a(), &r);
        assert_eq!(d.to_vec(), [0.5, 1.0, 1.5, -4.0, -5.0, -6.0]);
        trowexpanddiv_rev(&mut d, &r, &a());
        assert_eq!(d.to_vec(), [2.0, 1.0, 2.0 / 3.0, -0.25, -0.2, -1.0 / 6.0]);
        trowexpandmax(&mut d, &a(), &r);
        assert_eq!(d.to_vec(), [2.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        trowexpandmin(&mut d, &a(), &r);
        assert_eq!(d.to_vec(), [1.0, 2.0, 2.0, -1.0, -1.0, -1.0]);
        // Softmax-style in place: subtract the row max.
        let mut x = a();
        let mx = Tile::<f32, 2, 1>::from_slice(&[3.0, 6.0]).unwrap();
        trowexpandsub_inplace(&mut x, &mx);
        assert_eq!(x.to_vec(), [-2.0, -1.0, 0.0, -2.0, -1.0, 0.0]);
        trowexpandmul_inplace(&mut x, &r);
        assert_eq!(x.to_vec(), [-4.0, -2.0, 0.0, 2.0, 1.0, 0.0]);
    }

    #[test]
    fn col_expand_ops() {
        let c = Tile::<f32, 1, 3>::from_slice(&[1.0, 2.0, 4.0]).unwrap();
        let mut d = Tile::<f32, 2, 3>::zeros();
        tcolexpandadd(&mut d, &a(), &c);
        assert_eq!(d.to_vec(), [2.0, 4.0, 7.0, 5.0, 7.0, 10.0]);
        tcolexpandsub(&mut d, &a(), &c);
        assert_eq!(d.to_vec(), [0.0, 0.0, -1.0, 3.0, 3.0, 2.0]);
        tcolexpandsub_rev(&mut d, &c, &a());
        assert_eq!(d.to_vec(), [0.0, 0.0, 1.0, -3.0, -3.0, -2.0]);
        tcolexpandmul(&mut d, &a(), &c);
        assert_eq!(d.to_vec(), [1.0, 4.0, 12.0, 4.0, 10.0, 24.0]);
        tcolexpanddiv(&mut d, &a(), &c);
        assert_eq!(d.to_vec(), [1.0, 1.0, 0.75, 4.0, 2.5, 1.5]);
        tcolexpanddiv_rev(&mut d, &c, &a());
        assert_eq!(d.to_vec(), [1.0, 1.0, 4.0 / 3.0, 0.25, 0.4, 4.0 / 6.0]);
        tcolexpandmax(&mut d, &a(), &c);
        assert_eq!(d.to_vec(), [1.0, 2.0, 4.0, 4.0, 5.0, 6.0]);
        tcolexpandmin(&mut d, &a(), &c);
        assert_eq!(d.to_vec(), [1.0, 2.0, 3.0, 1.0, 2.0, 4.0]);
        let mut x = a();
        tcolexpandadd_inplace(&mut x, &c);
        assert_eq!(x.to_vec(), [2.0, 4.0, 7.0, 5.0, 7.0, 10.0]);
        tcolexpanddiv_inplace(&mut x, &c);
        assert_eq!(x.to_vec(), [2.0, 2.0, 1.75, 5.0, 3.5, 2.5]);
    }

    #[test]
    fn expand_valid_regions() {
        let a = a().with_valid(2, 2).unwrap();
        let r = Tile::<f32, 2, 1>::full(1.0).with_valid(1, 1).unwrap();
        let mut d = Tile::<f32, 2, 3>::full(9.0);
        trowexpandadd(&mut d, &a, &r);
        assert_eq!(d.valid(), (1, 2));
        assert_eq!(d.to_vec(), [2.0, 3.0]);
        assert_eq!(d.as_rows()[1][0], 9.0);
        let c = Tile::<f32, 1, 3>::full(1.0).with_valid(1, 1).unwrap();
        tcolexpandmul(&mut d, &a, &c);
        assert_eq!(d.valid(), (2, 1));
        assert_eq!(d.to_vec(), [1.0, 4.0]);
    }
}
