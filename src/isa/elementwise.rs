//! Elementwise tile-tile instructions (`TADD` ... `TSHR`) and unary instructions (`TNEG` ...
//! `TNOT`).
//!
//! Binary: `dst[i, j] = a[i, j] (op) b[i, j]` over the region `a` and `b` share, which becomes
//! `dst`'s valid region; except the accumulating `TADD`, `TMUL`, `TMAX`, `TMIN`, whose result
//! covers both regions (`docs/guide.md` section 5). Unary: `dst[i, j] = op(src[i, j])` over `src`'s valid region.
//! Element semantics (wrapping integers, division by zero, `TREM`'s sign) are those of
//! [`Element`], [`Float`] and [`Int`].

use super::{map_inplace, map1, map2, map2_inplace};
use crate::Tile;
use crate::element::{Element, Float, Int};

/// The shared binary body: intersect the valid regions, then map.
#[inline(always)]
fn binary<T: Copy, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, C>,
    a: &Tile<T, R, C>,
    b: &Tile<T, R, C>,
    f: impl Fn(T, T) -> T,
) {
    let vr = a.valid_rows.min(b.valid_rows);
    let vc = a.valid_cols.min(b.valid_cols);
    map2(&mut dst.data, &a.data, &b.data, vr, vc, f);
    dst.set_valid_clamped(vr, vc);
}

/// `dst = dst (op) b` over the region both share.
#[inline(always)]
fn binary_inplace<T: Copy, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, C>,
    b: &Tile<T, R, C>,
    f: impl Fn(T, T) -> T,
) {
    let vr = dst.valid_rows.min(b.valid_rows);
    let vc = dst.valid_cols.min(b.valid_cols);
    map2_inplace(&mut dst.data, &b.data, vr, vc, f);
    dst.set_valid_clamped(vr, vc);
}

/// The accumulating binary body (`TADD`, `TMUL`, `TMAX`, `TMIN`; `docs/guide.md` section 5):
/// the result covers both valid regions; where only one operand is valid it is that
/// operand's element, where neither is it is zero (pto-isa's `TPARTADD` and friends).
#[inline(always)]
fn partial<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, C>,
    a: &Tile<T, R, C>,
    b: &Tile<T, R, C>,
    f: impl Fn(T, T) -> T,
) {
    if a.valid() == b.valid() {
        return binary(dst, a, b, f);
    }
    let (ar, ac, br, bc) = (a.valid_rows, a.valid_cols, b.valid_rows, b.valid_cols);
    let (vr, vc) = (ar.max(br), ac.max(bc));
    for (i, row) in dst.data[..vr].iter_mut().enumerate() {
        for (j, d) in row[..vc].iter_mut().enumerate() {
            let (x, y) = (a.data[i][j], b.data[i][j]);
            *d = match (i < ar && j < ac, i < br && j < bc) {
                (true, true) => f(x, y),
                (true, false) => x,
                (false, true) => y,
                (false, false) => T::ZERO,
            };
        }
    }
    dst.set_valid_clamped(vr, vc);
}

/// [`partial`] with `dst` as the first operand.
#[inline(always)]
fn partial_inplace<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, C>,
    b: &Tile<T, R, C>,
    f: impl Fn(T, T) -> T,
) {
    if dst.valid() == b.valid() {
        return binary_inplace(dst, b, f);
    }
    let (ar, ac, br, bc) = (dst.valid_rows, dst.valid_cols, b.valid_rows, b.valid_cols);
    let (vr, vc) = (ar.max(br), ac.max(bc));
    for (i, row) in dst.data[..vr].iter_mut().enumerate() {
        for (j, d) in row[..vc].iter_mut().enumerate() {
            let y = b.data[i][j];
            *d = match (i < ar && j < ac, i < br && j < bc) {
                (true, true) => f(*d, y),
                (true, false) => *d,
                (false, true) => y,
                (false, false) => T::ZERO,
            };
        }
    }
    dst.set_valid_clamped(vr, vc);
}

/// The accumulating ops, whose result covers both operands' valid regions ([`partial`]).
macro_rules! partial_op {
    ($name:ident, $inplace:ident, $f:path, $doc:literal) => {
        #[doc = concat!("`", $doc, "`: `dst = a (op) b`; the result covers both valid regions, taking the valid operand where only one is (pto-isa's `TPART` form).")]
        #[inline]
        pub fn $name<T: Element, const R: usize, const C: usize>(
            dst: &mut Tile<T, R, C>,
            a: &Tile<T, R, C>,
            b: &Tile<T, R, C>,
        ) {
            partial(dst, a, b, $f);
        }

        #[doc = concat!("`", $doc, "(dst, dst, b)`: `dst = dst (op) b`.")]
        #[inline]
        pub fn $inplace<T: Element, const R: usize, const C: usize>(
            dst: &mut Tile<T, R, C>,
            b: &Tile<T, R, C>,
        ) {
            partial_inplace(dst, b, $f);
        }
    };
}

macro_rules! binary_op {
    ($bound:ident, $name:ident, $inplace:ident, $f:path, $doc:literal) => {
        #[doc = concat!("`", $doc, "`: `dst = a (op) b` over the valid region `a` and `b` share.")]
        #[inline]
        pub fn $name<T: $bound, const R: usize, const C: usize>(
            dst: &mut Tile<T, R, C>,
            a: &Tile<T, R, C>,
            b: &Tile<T, R, C>,
        ) {
            binary(dst, a, b, $f);
        }

        #[doc = concat!("`", $doc, "(dst, dst, b)`: `dst = dst (op) b`.")]
        #[inline]
        pub fn $inplace<T: $bound, const R: usize, const C: usize>(
            dst: &mut Tile<T, R, C>,
            b: &Tile<T, R, C>,
        ) {
            binary_inplace(dst, b, $f);
        }
    };
    ($bound:ident, $name:ident, $inplace:ident, $rev:ident, $f:path, $doc:literal) => {
        binary_op!($bound, $name, $inplace, $f, $doc);

        #[doc = concat!("`", $doc, "(dst, a, dst)`: `dst = a (op) dst`.")]
        #[inline]
        pub fn $rev<T: $bound, const R: usize, const C: usize>(
            dst: &mut Tile<T, R, C>,
            a: &Tile<T, R, C>,
        ) {
            binary_inplace(dst, a, |d, a| $f(a, d));
        }
    };
}

partial_op!(tadd, tadd_inplace, Element::add, "TADD");
binary_op!(
    Element,
    tsub,
    tsub_inplace,
    tsub_inplace_rev,
    Element::sub,
    "TSUB"
);
partial_op!(tmul, tmul_inplace, Element::mul, "TMUL");
binary_op!(
    Element,
    tdiv,
    tdiv_inplace,
    tdiv_inplace_rev,
    Element::div,
    "TDIV"
);
partial_op!(tmax, tmax_inplace, Element::max, "TMAX");
partial_op!(tmin, tmin_inplace, Element::min, "TMIN");
binary_op!(
    Element,
    trem,
    trem_inplace,
    trem_inplace_rev,
    Element::floor_mod,
    "TREM"
);
binary_op!(
    Element,
    tfmod,
    tfmod_inplace,
    tfmod_inplace_rev,
    Element::rem,
    "TFMOD"
);
binary_op!(
    Element,
    tpow,
    tpow_inplace,
    tpow_inplace_rev,
    Element::pow,
    "TPOW"
);
binary_op!(Int, tand, tand_inplace, Int::and, "TAND");
binary_op!(Int, tor, tor_inplace, Int::or, "TOR");
binary_op!(Int, txor, txor_inplace, Int::xor, "TXOR");
binary_op!(Int, tshl, tshl_inplace, tshl_inplace_rev, Int::shl, "TSHL");
binary_op!(Int, tshr, tshr_inplace, tshr_inplace_rev, Int::shr, "TSHR");

macro_rules! unary_op {
    ($bound:ident, $name:ident, $inplace:ident, $f:path, $doc:literal) => {
        #[doc = concat!("`", $doc, "`: `dst = op(src)` over `src`'s valid region.")]
        #[inline]
        pub fn $name<T: $bound, const R: usize, const C: usize>(
            dst: &mut Tile<T, R, C>,
            src: &Tile<T, R, C>,
        ) {
            let (vr, vc) = src.valid();
            map1(&mut dst.data, &src.data, vr, vc, $f);
            dst.set_valid_clamped(vr, vc);
        }

        #[doc = concat!("`", $doc, "(dst, dst)`: `dst = op(dst)` in place.")]
        #[inline]
        pub fn $inplace<T: $bound, const R: usize, const C: usize>(dst: &mut Tile<T, R, C>) {
            let (vr, vc) = dst.valid();
            map_inplace(&mut dst.data, vr, vc, $f);
        }
    };
}

unary_op!(Element, tneg, tneg_inplace, Element::neg, "TNEG");
unary_op!(Element, tabs, tabs_inplace, Element::abs, "TABS");
unary_op!(Element, trelu, trelu_inplace, Element::relu, "TRELU");
unary_op!(Float, texp, texp_inplace, Float::exp, "TEXP");
unary_op!(Float, tlog, tlog_inplace, Float::ln, "TLOG");
unary_op!(Float, tsqrt, tsqrt_inplace, Float::sqrt, "TSQRT");
unary_op!(Float, trsqrt, trsqrt_inplace, Float::rsqrt, "TRSQRT");
unary_op!(Float, trecip, trecip_inplace, Float::recip, "TRECIP");
unary_op!(Int, tnot, tnot_inplace, Int::not, "TNOT");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::f16;

    fn t23(v: [f32; 6]) -> Tile<f32, 2, 3> {
        Tile::from_slice(&v).unwrap()
    }

    #[test]
    fn binary_float() {
        let a = t23([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let b = t23([6.0, -5.0, 4.0, 3.0, 2.0, -1.0]);
        let mut d = Tile::<f32, 2, 3>::zeros();
        tadd(&mut d, &a, &b);
        assert_eq!(d.to_vec(), [7.0, -3.0, 7.0, 7.0, 7.0, 5.0]);
        tsub(&mut d, &a, &b);
        assert_eq!(d.to_vec(), [-5.0, 7.0, -1.0, 1.0, 3.0, 7.0]);
        tmul(&mut d, &a, &b);
        assert_eq!(d.to_vec(), [6.0, -10.0, 12.0, 12.0, 10.0, -6.0]);
        tdiv(&mut d, &a, &b);
        assert_eq!(d.to_vec(), [1.0 / 6.0, -0.4, 0.75, 4.0 / 3.0, 2.5, -6.0]);
        tmax(&mut d, &a, &b);
        assert_eq!(d.to_vec(), [6.0, 2.0, 4.0, 4.0, 5.0, 6.0]);
        tmin(&mut d, &a, &b);
        assert_eq!(d.to_vec(), [1.0, -5.0, 3.0, 3.0, 2.0, -1.0]);
        trem(&mut d, &a, &b);
        // a - floor(a / b) * b, sign of the divisor.
        assert_eq!(d.to_vec(), [1.0, -3.0, 3.0, 1.0, 1.0, 0.0]);
    }

    #[test]
    fn binary_valid_region_is_the_shared_one() {
        let a = Tile::<i32, 4, 4>::full(2).with_valid(3, 4).unwrap();
        let b = Tile::<i32, 4, 4>::full(5).with_valid(4, 2).unwrap();
        let mut d = Tile::<i32, 4, 4>::full(-1);
        tsub(&mut d, &a, &b);
        assert_eq!(d.valid(), (3, 2));
        assert_eq!(d.to_vec(), vec![-3; 6]);
        // Outside the shared region nothing was written.
        assert_eq!(d.as_rows()[0][2], -1);
        assert_eq!(d.as_rows()[3][0], -1);
    }

    #[test]
    fn accumulating_ops_cover_both_valid_regions() {
        // A carried 4 x 4 accumulator plus a 2-row edge tile keeps its rows 2 and 3.
        let acc = Tile::<i32, 4, 4>::full(1);
        let edge = Tile::<i32, 4, 4>::full(5).with_valid(2, 4).unwrap();
        for (f, want) in [
            (
                tadd as fn(&mut Tile<i32, 4, 4>, &Tile<i32, 4, 4>, &Tile<i32, 4, 4>),
                6,
            ),
            (tmul, 5),
            (tmax, 5),
            (tmin, 1),
        ] {
            let mut d = Tile::<i32, 4, 4>::full(-1);
            f(&mut d, &edge, &acc);
            assert_eq!(d.valid(), (4, 4));
            assert_eq!(d.as_rows()[1], [want; 4]);
            assert_eq!(d.as_rows()[3], [1; 4]);
        }
        let mut d = acc.clone();
        tmax_inplace(
            &mut d,
            &Tile::<i32, 4, 4>::full(-9).with_valid(1, 2).unwrap(),
        );
        assert_eq!((d.valid(), d.to_vec()), ((4, 4), vec![1; 16]));
        // Regions neither of which holds the other: zero where neither operand is valid.
        let a = Tile::<i32, 4, 4>::full(2).with_valid(3, 4).unwrap();
        let b = Tile::<i32, 4, 4>::full(5).with_valid(4, 2).unwrap();
        let mut d = Tile::<i32, 4, 4>::full(-1);
        tadd(&mut d, &a, &b);
        assert_eq!(d.valid(), (4, 4));
        assert_eq!(
            (d.as_rows()[0], d.as_rows()[3]),
            ([7, 7, 2, 2], [5, 5, 0, 0])
        );
    }

    #[test]
    fn inplace_forms() {
        let a = t23([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let mut d = t23([10.0; 6]);
        tsub_inplace(&mut d, &a);
        assert_eq!(d.to_vec(), [9.0, 8.0, 7.0, 6.0, 5.0, 4.0]);
        tsub_inplace_rev(&mut d, &a);
        assert_eq!(d.to_vec(), [-8.0, -6.0, -4.0, -2.0, 0.0, 2.0]);
        tdiv_inplace_rev(&mut d, &a);
        assert_eq!(d.get(0, 0), Some(-0.125));
        assert_eq!(d.get(1, 1), Some(f32::INFINITY));
        tadd_inplace(&mut d, &a);
        assert_eq!(d.get(0, 0), Some(0.875));
        let mut e = a.clone();
        texp_inplace(&mut e);
        assert!((e.get(0, 0).unwrap() - core::f32::consts::E).abs() < 1e-6);
        let mut m = Tile::<i32, 1, 3>::from_slice(&[7, -7, 7]).unwrap();
        let k = Tile::<i32, 1, 3>::from_slice(&[3, 3, -3]).unwrap();
        trem_inplace(&mut m, &k);
        assert_eq!(m.to_vec(), [1, 2, -2]);
        let mut n = Tile::<i32, 1, 3>::from_slice(&[2, 3, 0]).unwrap();
        tshl_inplace_rev(&mut n, &k);
        assert_eq!(n.to_vec(), [12, 24, -3]);
    }

    #[test]
    fn integer_ops() {
        let a = Tile::<i32, 1, 4>::from_slice(&[12, -8, 7, i32::MAX]).unwrap();
        let b = Tile::<i32, 1, 4>::from_slice(&[10, 2, 0, 1]).unwrap();
        let mut d = Tile::<i32, 1, 4>::zeros();
        tand(&mut d, &a, &b);
        assert_eq!(d.to_vec(), [8, 0, 0, 1]);
        tor(&mut d, &a, &b);
        assert_eq!(d.to_vec(), [14, -6, 7, i32::MAX]);
        txor(&mut d, &a, &b);
        assert_eq!(d.to_vec(), [6, -6, 7, i32::MAX - 1]);
        tshl(&mut d, &a, &b);
        assert_eq!(d.to_vec(), [12 << 10, -32, 7, -2]);
        tshr(&mut d, &a, &b);
        assert_eq!(d.to_vec(), [0, -2, 7, i32::MAX >> 1]);
        tdiv(&mut d, &a, &b);
        assert_eq!(d.to_vec(), [1, -4, 0, i32::MAX]);
        tadd(&mut d, &a, &b);
        assert_eq!(d.to_vec(), [22, -6, 7, i32::MIN]);
        tnot(&mut d, &a);
        assert_eq!(d.to_vec(), [!12, 7, !7, i32::MIN]);
        tabs(&mut d, &a);
        assert_eq!(d.to_vec(), [12, 8, 7, i32::MAX]);
        tneg(&mut d, &a);
        assert_eq!(d.to_vec(), [-12, 8, -7, -i32::MAX]);
        trelu(&mut d, &a);
        assert_eq!(d.to_vec(), [12, 0, 7, i32::MAX]);
    }

    #[test]
    fn unary_float() {
        let s = Tile::<f32, 1, 4>::from_slice(&[4.0, 1.0, 0.25, -2.0]).unwrap();
        let mut d = Tile::<f32, 1, 4>::zeros();
        tsqrt(&mut d, &s);
        assert_eq!(&d.to_vec()[..3], [2.0, 1.0, 0.5]);
        assert!(d.get(0, 3).unwrap().is_nan());
        trsqrt(&mut d, &s);
        assert_eq!(&d.to_vec()[..3], [0.5, 1.0, 2.0]);
        trecip(&mut d, &s);
        assert_eq!(d.to_vec(), [0.25, 1.0, 4.0, -0.5]);
        tlog(&mut d, &s);
        assert_eq!(d.get(0, 1), Some(0.0));
        assert!((d.get(0, 0).unwrap() - 4f32.ln()).abs() < 1e-7);
        texp(&mut d, &s);
        assert!((d.get(0, 3).unwrap() - (-2f32).exp()).abs() < 1e-7);
        tneg(&mut d, &s);
        assert_eq!(d.to_vec(), [-4.0, -1.0, -0.25, 2.0]);
        tabs(&mut d, &s);
        assert_eq!(d.to_vec(), [4.0, 1.0, 0.25, 2.0]);
        trelu(&mut d, &s);
        assert_eq!(d.to_vec(), [4.0, 1.0, 0.25, 0.0]);
    }

    /// `max` / `min` of zeros of opposite signs in both operand orders, at a length the
    /// loops vectorise: `+0` / `-0`, through every instruction form; NaN ignored.
    #[test]
    fn max_and_min_order_zeros_in_every_form() {
        use crate::isa::{tcolexpandmax, tmaxs, tmins, trowexpandmax, trowexpandmin};
        let (p, n) = (0.0f32.to_bits(), (-0.0f32).to_bits());
        // Element j: (+0, -0) for even j, (-0, +0) for odd j; a NaN in either operand at 9, 10.
        let a = Tile::<f32, 2, 40>::from_fn(|_, j| match j {
            9 => f32::NAN,
            _ if j % 2 == 0 => 0.0,
            _ => -0.0,
        });
        let b = Tile::<f32, 2, 40>::from_fn(|_, j| match j {
            10 => f32::NAN,
            _ if j % 2 == 0 => -0.0,
            _ => 0.0,
        });
        let all = |t: &Tile<f32, 2, 40>, want: u32| t.to_vec().iter().all(|x| x.to_bits() == want);
        let mut d = Tile::<f32, 2, 40>::zeros();
        tmax(&mut d, &a, &b);
        assert!(all(&d, p), "{:?}", d.to_vec());
        tmax(&mut d, &b, &a);
        assert!(all(&d, p));
        // The NaN's partner is +0 at 9 and 10: the minimum is that zero there.
        let min_ok = |t: &Tile<f32, 2, 40>| {
            t.as_rows().iter().all(|row| {
                row.iter()
                    .enumerate()
                    .all(|(j, x)| x.to_bits() == if j == 9 || j == 10 { p } else { n })
            })
        };
        tmin(&mut d, &a, &b);
        assert!(min_ok(&d), "{:?}", d.to_vec());
        tmin(&mut d, &b, &a);
        assert!(min_ok(&d));
        let z = Tile::<f32, 2, 40>::from_fn(|_, j| if j % 3 == 0 { 0.0 } else { -0.0 });
        tmaxs(&mut d, &z, -0.0);
        assert!(
            z.to_vec()
                .iter()
                .zip(d.to_vec())
                .all(|(x, y)| x.to_bits() == y.to_bits())
        );
        tmaxs(&mut d, &z, 0.0);
        assert!(all(&d, p));
        tmins(&mut d, &z, 0.0);
        assert!(
            z.to_vec()
                .iter()
                .zip(d.to_vec())
                .all(|(x, y)| x.to_bits() == y.to_bits())
        );
        tmins(&mut d, &z, -0.0);
        assert!(all(&d, n));
        let r = Tile::<f32, 2, 1>::from_fn(|i, _| if i == 0 { 0.0 } else { -0.0 });
        trowexpandmax(&mut d, &z, &r);
        assert_eq!(d.as_rows()[0].map(f32::to_bits), [p; 40]);
        assert_eq!(
            d.as_rows()[1].map(f32::to_bits),
            z.as_rows()[1].map(f32::to_bits)
        );
        trowexpandmin(&mut d, &z, &r);
        assert_eq!(
            d.as_rows()[0].map(f32::to_bits),
            z.as_rows()[0].map(f32::to_bits)
        );
        assert_eq!(d.as_rows()[1].map(f32::to_bits), [n; 40]);
        let c = Tile::<f32, 1, 40>::full(0.0);
        tcolexpandmax(&mut d, &z, &c);
        assert!(all(&d, p));
        let mut h = Tile::<f32, 2, 40>::zeros();
        trelu(
            &mut h,
            &Tile::<f32, 2, 40>::from_fn(|_, j| [-0.0, 0.0, f32::NAN, -1.0][j % 4]),
        );
        assert!(all(&h, p));
        let (x, y) = (
            Tile::<f16, 1, 2>::from_fn(|_, j| f16::from_f32([0.0, -0.0][j])),
            Tile::<f16, 1, 2>::from_fn(|_, j| f16::from_f32([-0.0, 0.0][j])),
        );
        let mut e = Tile::<f16, 1, 2>::zeros();
        tmax(&mut e, &x, &y);
        assert_eq!(
            e.to_vec().iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            [0; 2]
        );
        tmin(&mut e, &x, &y);
        assert_eq!(
            e.to_vec().iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            [0x8000; 2]
        );
    }

    #[test]
    fn unary_keeps_partial_valid_region() {
        let s = Tile::<f32, 2, 4>::full(-1.0).with_valid(1, 3).unwrap();
        let mut d = Tile::<f32, 2, 4>::full(7.0);
        tabs(&mut d, &s);
        assert_eq!(d.valid(), (1, 3));
        assert_eq!(d.to_vec(), [1.0; 3]);
        assert_eq!(d.as_rows()[0][3], 7.0);
        assert_eq!(d.as_rows()[1][0], 7.0);
    }

    #[test]
    fn half_precision() {
        let a = Tile::<f16, 1, 2>::from_fn(|_, j| f16::from_f32(1.5 + j as f32));
        let b = Tile::<f16, 1, 2>::full(f16::from_f32(0.5));
        let mut d = Tile::<f16, 1, 2>::zeros();
        tmul(&mut d, &a, &b);
        assert_eq!(d.to_vec(), [f16::from_f32(0.75), f16::from_f32(1.25)]);
        tsqrt(&mut d, &b);
        assert_eq!(d.get(0, 0), Some(f16::from_f32(0.5f32.sqrt())));
    }
}
