//! Tile-scalar instructions (`TADDS` ... `TSHRS`): `dst[i, j] = src[i, j] (op) k` over `src`'s
//! valid region, which becomes `dst`'s.
//!
//! For the non-commutative operations the `_rev` form puts the scalar first:
//! `tsubs_rev(dst, k, src)` is `dst = k - src` and `tdivs_rev(dst, k, src)` is `dst = k / src`
//! (PTO's `TDIVS(dst, scalar, src)` overload). The scalar has the tile's element type; the
//! generated code converts it first.

use super::{map_inplace, map1};
use crate::Tile;
use crate::element::{Element, Int};

macro_rules! scalar_op {
    ($bound:ident, $name:ident, $inplace:ident, $f:path, $doc:literal) => {
        #[doc = concat!("`", $doc, "`: `dst = src (op) k` over `src`'s valid region.")]
        #[inline]
        pub fn $name<T: $bound, const R: usize, const C: usize>(
            dst: &mut Tile<T, R, C>,
            src: &Tile<T, R, C>,
            k: T,
        ) {
            let (vr, vc) = src.valid();
            map1(&mut dst.data, &src.data, vr, vc, move |x| $f(x, k));
            dst.set_valid_clamped(vr, vc);
        }

        #[doc = concat!("`", $doc, "(dst, dst, k)`: `dst = dst (op) k` in place.")]
        #[inline]
        pub fn $inplace<T: $bound, const R: usize, const C: usize>(dst: &mut Tile<T, R, C>, k: T) {
            let (vr, vc) = dst.valid();
            map_inplace(&mut dst.data, vr, vc, move |x| $f(x, k));
        }
    };
    ($bound:ident, $name:ident, $inplace:ident, $rev:ident, $rev_inplace:ident, $f:path, $doc:literal) => {
        scalar_op!($bound, $name, $inplace, $f, $doc);

        #[doc = concat!("`", $doc, "(dst, k, src)`: `dst = k (op) src`, scalar first.")]
        #[inline]
        pub fn $rev<T: $bound, const R: usize, const C: usize>(
            dst: &mut Tile<T, R, C>,
            k: T,
            src: &Tile<T, R, C>,
        ) {
            let (vr, vc) = src.valid();
            map1(&mut dst.data, &src.data, vr, vc, move |x| $f(k, x));
            dst.set_valid_clamped(vr, vc);
        }

        #[doc = concat!("`", $doc, "(dst, k, dst)`: `dst = k (op) dst` in place.")]
        #[inline]
        pub fn $rev_inplace<T: $bound, const R: usize, const C: usize>(
            dst: &mut Tile<T, R, C>,
            k: T,
        ) {
            let (vr, vc) = dst.valid();
            map_inplace(&mut dst.data, vr, vc, move |x| $f(k, x));
        }
    };
}

scalar_op!(Element, tadds, tadds_inplace, Element::add, "TADDS");
scalar_op!(
    Element,
    tsubs,
    tsubs_inplace,
    tsubs_rev,
    tsubs_rev_inplace,
    Element::sub,
    "TSUBS"
);
scalar_op!(Element, tmuls, tmuls_inplace, Element::mul, "TMULS");
scalar_op!(
    Element,
    tdivs,
    tdivs_inplace,
    tdivs_rev,
    tdivs_rev_inplace,
    Element::div,
    "TDIVS"
);
scalar_op!(Element, tmaxs, tmaxs_inplace, Element::max, "TMAXS");
scalar_op!(Element, tmins, tmins_inplace, Element::min, "TMINS");
scalar_op!(
    Element,
    trems,
    trems_inplace,
    trems_rev,
    trems_rev_inplace,
    Element::floor_mod,
    "TREMS"
);
scalar_op!(
    Element,
    tfmods,
    tfmods_inplace,
    tfmods_rev,
    tfmods_rev_inplace,
    Element::rem,
    "TFMODS"
);
scalar_op!(Element, tpows, tpows_inplace, Element::pow, "TPOWS");
scalar_op!(Int, tands, tands_inplace, Int::and, "TANDS");
scalar_op!(Int, tors, tors_inplace, Int::or, "TORS");
scalar_op!(Int, txors, txors_inplace, Int::xor, "TXORS");
scalar_op!(Int, tshls, tshls_inplace, Int::shl, "TSHLS");
scalar_op!(Int, tshrs, tshrs_inplace, Int::shr, "TSHRS");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_ops_both_orders() {
        let s = Tile::<f32, 2, 2>::from_slice(&[1.0, 2.0, -4.0, 8.0]).unwrap();
        let mut d = Tile::<f32, 2, 2>::zeros();
        tadds(&mut d, &s, 1.5);
        assert_eq!(d.to_vec(), [2.5, 3.5, -2.5, 9.5]);
        tsubs(&mut d, &s, 1.0);
        assert_eq!(d.to_vec(), [0.0, 1.0, -5.0, 7.0]);
        tsubs_rev(&mut d, 1.0, &s);
        assert_eq!(d.to_vec(), [0.0, -1.0, 5.0, -7.0]);
        tmuls(&mut d, &s, -2.0);
        assert_eq!(d.to_vec(), [-2.0, -4.0, 8.0, -16.0]);
        tdivs(&mut d, &s, 4.0);
        assert_eq!(d.to_vec(), [0.25, 0.5, -1.0, 2.0]);
        tdivs_rev(&mut d, 4.0, &s);
        assert_eq!(d.to_vec(), [4.0, 2.0, -1.0, 0.5]);
        tmaxs(&mut d, &s, 1.5);
        assert_eq!(d.to_vec(), [1.5, 2.0, 1.5, 8.0]);
        tmins(&mut d, &s, 1.5);
        assert_eq!(d.to_vec(), [1.0, 1.5, -4.0, 1.5]);
        trems(&mut d, &s, 3.0);
        assert_eq!(d.to_vec(), [1.0, 2.0, 2.0, 2.0]);
        trems_rev(&mut d, 3.0, &s);
        assert_eq!(d.to_vec(), [0.0, 1.0, -1.0, 3.0]);
    }

    #[test]
    fn scalar_ops_inplace_and_valid_region() {
        let mut d = Tile::<i32, 2, 3>::full(6).with_valid(1, 2).unwrap();
        tdivs_inplace(&mut d, 4);
        assert_eq!(d.to_vec(), [1, 1]);
        assert_eq!(d.as_rows()[0][2], 6);
        tdivs_rev_inplace(&mut d, 9);
        assert_eq!(d.to_vec(), [9, 9]);
        tsubs_rev_inplace(&mut d, 10);
        assert_eq!(d.to_vec(), [1, 1]);
        tadds_inplace(&mut d, 1);
        tmuls_inplace(&mut d, 5);
        assert_eq!(d.to_vec(), [10, 10]);
        tshls_inplace(&mut d, 2);
        assert_eq!(d.to_vec(), [40, 40]);
        assert_eq!(d.valid(), (1, 2));
        let s = Tile::<u8, 1, 2>::from_slice(&[0b1100, 0b1010]).unwrap();
        let mut e = Tile::<u8, 1, 2>::zeros();
        tands(&mut e, &s, 0b0110);
        assert_eq!(e.to_vec(), [0b0100, 0b0010]);
        tors(&mut e, &s, 1);
        assert_eq!(e.to_vec(), [0b1101, 0b1011]);
        txors(&mut e, &s, 0xff);
        assert_eq!(e.to_vec(), [0xf3, 0xf5]);
        tshrs(&mut e, &s, 2);
        assert_eq!(e.to_vec(), [3, 2]);
        let t = Tile::<i32, 2, 3>::full(-3).with_valid(2, 1).unwrap();
        let mut f = Tile::<i32, 2, 3>::zeros();
        tmins(&mut f, &t, -5);
        assert_eq!(f.valid(), (2, 1));
        assert_eq!(f.to_vec(), [-5, -5]);
    }
}
