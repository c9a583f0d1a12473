//! `TCVT`: elementwise dtype conversion with a rounding mode.
//!
//! `dst[i, j] = convert(src[i, j], mode)` over `src`'s valid region, which becomes `dst`'s.
//! The per-element rule is [`crate::element::convert`]: floats to integers round per
//! [`RoundMode`] and saturate (NaN becomes 0); floats to narrower floats round to the
//! destination precision in the mode's direction (`f16` / `bf16` through `half`); a float type
//! to itself rounds to an integral value ("round only"); integers to integers wrap.

use super::map1;
use crate::Tile;
pub use crate::element::RoundMode;
use crate::element::{Element, convert};

/// `TCVT(dst, src, mode)`: converts every valid element of `src` into `dst`'s type.
#[inline]
pub fn tcvt<S: Element, D: Element, const R: usize, const C: usize>(
    dst: &mut Tile<D, R, C>,
    src: &Tile<S, R, C>,
    mode: RoundMode,
) {
    // One loop per mode, so the rounding is a constant inside the loop and it vectorises.
    match mode {
        RoundMode::CastRint => tcvt_mode::<S, D, R, C, RINT>(dst, src),
        RoundMode::CastRound => tcvt_mode::<S, D, R, C, ROUND>(dst, src),
        RoundMode::CastFloor => tcvt_mode::<S, D, R, C, FLOOR>(dst, src),
        RoundMode::CastCeil => tcvt_mode::<S, D, R, C, CEIL>(dst, src),
        RoundMode::CastTrunc => tcvt_mode::<S, D, R, C, TRUNC>(dst, src),
        RoundMode::CastOdd => tcvt_mode::<S, D, R, C, ODD>(dst, src),
        RoundMode::CastNone => tcvt_mode::<S, D, R, C, NONE>(dst, src),
    }
}

const RINT: u8 = 0;
const ROUND: u8 = 1;
const FLOOR: u8 = 2;
const CEIL: u8 = 3;
const TRUNC: u8 = 4;
const NONE: u8 = 5;
const ODD: u8 = 6;

/// The `TCVT` loop for one rounding mode (kept out of line so each mode's loop is optimised
/// on its own).
#[inline(never)]
fn tcvt_mode<S: Element, D: Element, const R: usize, const C: usize, const MODE: u8>(
    dst: &mut Tile<D, R, C>,
    src: &Tile<S, R, C>,
) {
    let (vr, vc) = src.valid();
    map1(&mut dst.data, &src.data, vr, vc, convert_mode::<S, D, MODE>);
    dst.set_valid_clamped(vr, vc);
}

/// [`convert`] with the rounding mode as a constant.
#[inline(always)]
fn convert_mode<S: Element, D: Element, const MODE: u8>(x: S) -> D {
    let mode = match MODE {
        RINT => RoundMode::CastRint,
        ROUND => RoundMode::CastRound,
        FLOOR => RoundMode::CastFloor,
        CEIL => RoundMode::CastCeil,
        TRUNC => RoundMode::CastTrunc,
        ODD => RoundMode::CastOdd,
        _ => RoundMode::CastNone,
    };
    convert::<S, D>(x, mode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{bf16, f16};
    use RoundMode::*;

    #[test]
    fn every_mode_on_ties_and_negatives() {
        let src =
            Tile::<f32, 2, 4>::from_slice(&[0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, -2.6]).unwrap();
        let mut dst = Tile::<i32, 2, 4>::zeros();
        let cases: [(RoundMode, [i32; 8]); 6] = [
            (CastRint, [0, 2, 2, 0, -2, -2, 2, -3]),
            (CastRound, [1, 2, 3, -1, -2, -3, 2, -3]),
            (CastFloor, [0, 1, 2, -1, -2, -3, 2, -3]),
            (CastCeil, [1, 2, 3, 0, -1, -2, 3, -2]),
            (CastTrunc, [0, 1, 2, 0, -1, -2, 2, -2]),
            // `none` truncates, like `as` and pto-isa's default.
            (CastNone, [0, 1, 2, 0, -1, -2, 2, -2]),
        ];
        for (mode, want) in cases {
            tcvt(&mut dst, &src, mode);
            assert_eq!(dst.to_vec(), want, "{mode:?}");
        }
    }

    #[test]
    fn saturation_halves_and_valid_region() {
        let src = Tile::<f32, 1, 4>::from_slice(&[1e9, -1e9, f32::NAN, 65519.0])
            .unwrap()
            .with_valid(1, 3)
            .unwrap();
        let mut i16s = Tile::<i16, 1, 4>::full(7);
        tcvt(&mut i16s, &src, CastRint);
        assert_eq!(i16s.valid(), (1, 3));
        assert_eq!(i16s.to_vec(), [i16::MAX, i16::MIN, 0]);
        assert_eq!(i16s.as_rows()[0][3], 7);
        let mut h = Tile::<f16, 1, 4>::zeros();
        tcvt(&mut h, &src.clone().with_valid(1, 4).unwrap(), CastTrunc);
        assert_eq!(h.get(0, 0), Some(f16::MAX));
        assert_eq!(h.get(0, 1), Some(f16::MIN));
        assert!(h.get(0, 2).is_some_and(|x| x.is_nan()));
        assert_eq!(h.get(0, 3), Some(f16::MAX));
        let mut back = Tile::<f32, 1, 4>::zeros();
        tcvt(&mut back, &h, CastNone);
        assert_eq!(back.get(0, 3), Some(65504.0));
        let b =
            Tile::<bf16, 1, 2>::from_slice(&[bf16::from_f32(-2.5), bf16::from_f32(3.5)]).unwrap();
        let mut i = Tile::<i8, 1, 2>::zeros();
        tcvt(&mut i, &b, CastRound);
        assert_eq!(i.to_vec(), [-3, 4]);
        tcvt(&mut i, &b, CastRint);
        assert_eq!(i.to_vec(), [-2, 4]);
        let mut r = Tile::<f32, 1, 4>::zeros();
        tcvt(
            &mut r,
            &Tile::<f32, 1, 4>::from_slice(&[-2.5, 2.5, 0.7, -0.7]).unwrap(),
            CastFloor,
        );
        assert_eq!(r.to_vec(), [-3.0, 2.0, 0.0, -1.0]);
    }
}
