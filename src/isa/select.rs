//! Masks (issue 16 part A): `TCMP` / `TCMPS` compare elementwise into a mask tile, `TSEL` /
//! `TSELS` pick by one.
//!
//! On the CPU a mask is a `Tile<u8, R, C>` with one byte per element whose low bit is the
//! flag: `tcmp` writes 0 or 1, `tsel` tests bit 0, so the integer `tand` / `tor` / `txor` /
//! `tnot` combine masks as `&`, `|`, `^`, `!` do on `bool` (`!1u8` is `0xfe`, low bit 0).
//! (The C++ holds pto-isa's packed bit tile; only these instructions read or write a mask,
//! so nothing observes the difference.) Comparisons are IEEE: a NaN is unequal to
//! everything and unordered, as in `pto_ir::sem::compare`.

use crate::Tile;
use crate::element::Element;

/// The comparison of a `TCMP` / `TCMPS` (pto-isa's `CmpMode`).
pub use pto_ir::sem::Compare as CmpMode;

#[inline(always)]
fn holds<T: PartialOrd>(mode: CmpMode, a: T, b: T) -> u8 {
    u8::from(match mode {
        CmpMode::Eq => a == b,
        CmpMode::Ne => a != b,
        CmpMode::Lt => a < b,
        CmpMode::Le => a <= b,
        CmpMode::Gt => a > b,
        CmpMode::Ge => a >= b,
    })
}

/// `TCMP(mask, a, b, mode)`: `mask = a (mode) b` over the valid region `a` and `b` share.
pub fn tcmp<T: Element, const R: usize, const C: usize>(
    mask: &mut Tile<u8, R, C>,
    a: &Tile<T, R, C>,
    b: &Tile<T, R, C>,
    mode: CmpMode,
) {
    let vr = a.valid_rows.min(b.valid_rows);
    let vc = a.valid_cols.min(b.valid_cols);
    super::map2(&mut mask.data, &a.data, &b.data, vr, vc, |x, y| {
        holds(mode, x, y)
    });
    mask.set_valid_clamped(vr, vc);
}

/// `TCMPS(mask, a, k, mode)`: `mask = a (mode) k` over `a`'s valid region.
pub fn tcmps<T: Element, const R: usize, const C: usize>(
    mask: &mut Tile<u8, R, C>,
    a: &Tile<T, R, C>,
    k: T,
    mode: CmpMode,
) {
    let (vr, vc) = a.valid();
    super::map1(&mut mask.data, &a.data, vr, vc, |x| holds(mode, x, k));
    mask.set_valid_clamped(vr, vc);
}

/// `TSEL(dst, mask, a, b)`: `a` where the mask is set, `b` elsewhere, over the valid
/// region the three share.
pub fn tsel<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, C>,
    mask: &Tile<u8, R, C>,
    a: &Tile<T, R, C>,
    b: &Tile<T, R, C>,
) {
    let vr = mask.valid_rows.min(a.valid_rows).min(b.valid_rows);
    let vc = mask.valid_cols.min(a.valid_cols).min(b.valid_cols);
    for (((d, m), a), b) in dst.data[..vr]
        .iter_mut()
        .zip(&mask.data[..vr])
        .zip(&a.data[..vr])
        .zip(&b.data[..vr])
    {
        for (((d, &m), &a), &b) in d[..vc].iter_mut().zip(&m[..vc]).zip(&a[..vc]).zip(&b[..vc]) {
            *d = if m & 1 == 1 { a } else { b };
        }
    }
    dst.set_valid_clamped(vr, vc);
}

/// `TSELS(dst, mask, a, k)`: `a` where the mask is set, `k` elsewhere, over the valid
/// region the mask and `a` share.
pub fn tsels<T: Element, const R: usize, const C: usize>(
    dst: &mut Tile<T, R, C>,
    mask: &Tile<u8, R, C>,
    a: &Tile<T, R, C>,
    k: T,
) {
    let vr = mask.valid_rows.min(a.valid_rows);
    let vc = mask.valid_cols.min(a.valid_cols);
    super::map2(&mut dst.data, &mask.data, &a.data, vr, vc, |m, a| {
        if m & 1 == 1 { a } else { k }
    });
    dst.set_valid_clamped(vr, vc);
}

/// A mask parameter's flags as the runtime's mask tile (one byte per element, the flag in
/// bit 0), with its valid region: the host function of a kernel with a `&Tile<bool, R, C>`
/// parameter runs on this copy.
pub fn mask_bytes<const R: usize, const C: usize>(m: &Tile<bool, R, C>) -> Tile<u8, R, C> {
    let mut out = Tile::from_fn(|i, j| u8::from(m.data[i][j]));
    out.valid_rows = m.valid_rows;
    out.valid_cols = m.valid_cols;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_then_select_over_the_shared_valid_region() {
        let a = Tile::<f32, 2, 8>::from_fn(|i, j| (i * 8 + j) as f32 - 5.0);
        let b = Tile::<f32, 2, 8>::full(0.0).with_valid(2, 6).unwrap();
        let mut m = Tile::<u8, 2, 8>::zeros();
        tcmp(&mut m, &a, &b, CmpMode::Gt);
        assert_eq!(m.valid(), (2, 6));
        assert_eq!(m.valid_row(0).unwrap(), &[0, 0, 0, 0, 0, 0]);
        assert_eq!(m.valid_row(1).unwrap(), &[1, 1, 1, 1, 1, 1]);
        let mut d = Tile::<f32, 2, 8>::zeros();
        tsels(&mut d, &m, &a, -1.0);
        assert_eq!(d.valid_row(1).unwrap()[..2], [3.0, 4.0]);
        assert_eq!(d.valid_row(0).unwrap()[0], -1.0);
    }

    #[test]
    fn a_nan_is_unequal_and_unordered() {
        let a = Tile::<f32, 1, 8>::full(f32::NAN);
        let mut m = Tile::<u8, 1, 8>::zeros();
        for (mode, want) in [
            (CmpMode::Eq, 0),
            (CmpMode::Ne, 1),
            (CmpMode::Lt, 0),
            (CmpMode::Ge, 0),
        ] {
            tcmps(&mut m, &a, 1.0, mode);
            assert_eq!(m.get(0, 0), Some(want), "{mode:?}");
        }
    }

    #[test]
    fn tnot_of_a_mask_flips_its_low_bit() {
        let mut m = Tile::<u8, 1, 8>::from_fn(|_, j| (j % 2) as u8);
        crate::isa::tnot_inplace(&mut m);
        let a = Tile::<i32, 1, 8>::full(1);
        let mut d = Tile::<i32, 1, 8>::zeros();
        tsels(&mut d, &m, &a, 0);
        assert_eq!(d.to_vec(), [1, 0, 1, 0, 1, 0, 1, 0]);
    }
}
