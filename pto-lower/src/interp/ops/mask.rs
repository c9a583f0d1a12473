//! Masks (issue 16 part A): comparisons give `bool` tiles (elements 0 / 1), `select` picks
//! by them, both through the semantics module (`sem::compare`, `sem::select`). `&`, `|`,
//! `^` and `!` on masks are the tile bitwise ops, which the semantics module defines on
//! `bool` as Rust does.

use pto_ir::sem::{self, Sem, Value};
use pto_ir::{DataType, Operation};

use super::{R, Rt, at, blank_tile, elem_scalar, err, for_each_index, meet, scalar_cast, to_value};
use crate::interp::HostTile;
use crate::interp::exec::{Frame, Interp};

impl Interp<'_> {
    /// `tile.eq` .. `tile.ge`: a mask valid where both operands are.
    pub(super) fn tile_compare(&self, fr: &Frame, op: &Operation) -> R<HostTile> {
        let Sem::Compare(k) = op.opcode.info().sem else {
            return err(format!("`{}` is not a comparison", op.opcode));
        };
        let (va, vb) = (self.operand(op, 0)?, self.operand(op, 1)?);
        let (ra, rb) = (self.get(fr, va)?, self.get(fr, vb)?);
        let cmp = |d: DataType, x: f64, y: f64| -> R<f64> {
            let (x, y) = (
                to_value(elem_scalar(d, x).value),
                to_value(elem_scalar(d, y).value),
            );
            match sem::compare(k, x, y) {
                Some(b) => Ok(f64::from(u8::from(b))),
                None => err(format!("`{}` does not compare {d}", op.opcode)),
            }
        };
        match (&ra, &rb) {
            (Rt::Tile(a), Rt::Tile(b)) if a.shape == b.shape && a.dtype == b.dtype => {
                let valid = meet(&a.valid, &b.valid);
                let mut out = blank_tile(DataType::Bool, a.shape.clone(), valid.clone());
                for_each_index(&valid, |idx| {
                    let i = at(&a.shape, idx)?;
                    out.data[i] = cmp(a.dtype, a.data[i], b.data[i])?;
                    Ok(())
                })?;
                Ok(out)
            }
            (Rt::Tile(t), Rt::Scalar(s)) | (Rt::Scalar(s), Rt::Tile(t)) => {
                let tile_first = matches!(ra, Rt::Tile(_));
                // The scalar takes the tile's dtype first (`TCMPS` takes a `T`).
                let y = scalar_cast(*s, t.dtype)?.as_f64();
                let mut out = blank_tile(DataType::Bool, t.shape.clone(), t.valid.clone());
                for_each_index(&t.valid, |idx| {
                    let i = at(&t.shape, idx)?;
                    let (p, q) = if tile_first {
                        (t.data[i], y)
                    } else {
                        (y, t.data[i])
                    };
                    out.data[i] = cmp(t.dtype, p, q)?;
                    Ok(())
                })?;
                Ok(out)
            }
            _ => err("compares two tiles of one shape and dtype, or a tile and a scalar"),
        }
    }

    /// `tile.select`: `a` where the mask is set, `b` (a tile or a scalar) elsewhere, valid
    /// where the mask and the tiles are.
    pub(super) fn select(&self, fr: &Frame, op: &Operation) -> R<HostTile> {
        let (vm, va, vb) = (
            self.operand(op, 0)?,
            self.operand(op, 1)?,
            self.operand(op, 2)?,
        );
        let (Rt::Tile(m), Rt::Tile(a)) = (self.get(fr, vm)?, self.get(fr, va)?) else {
            return err("selects by a mask tile between tiles");
        };
        if m.dtype != DataType::Bool || m.shape != a.shape {
            return err("the mask must be a bool tile of the alternatives' shape");
        }
        let alt = self.get(fr, vb)?;
        let mut valid = meet(&m.valid, &a.valid);
        let other = |i: usize| -> R<f64> {
            match &alt {
                Rt::Tile(b) => Ok(b.data[i]),
                Rt::Scalar(s) => Ok(scalar_cast(*s, a.dtype)?.as_f64()),
                _ => err("the second alternative is a tile or a scalar"),
            }
        };
        if let Rt::Tile(b) = &alt {
            if b.shape != a.shape || b.dtype != a.dtype {
                return err("the alternatives differ in shape or dtype");
            }
            valid = meet(&valid, &b.valid);
        }
        let mut out = blank_tile(a.dtype, a.shape.clone(), valid.clone());
        for_each_index(&valid, |idx| {
            let i = at(&a.shape, idx)?;
            let v = sem::select(
                m.data[i] != 0.0,
                Value::Float(a.data[i]),
                Value::Float(other(i)?),
            );
            out.data[i] = v.as_f64();
            Ok(())
        })?;
        Ok(out)
    }
}
