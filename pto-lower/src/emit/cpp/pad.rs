//! Instructions that act through a second view of a slot's storage: `TFILLPAD` of a padded
//! load (`load_or`; pto-isa reads the pad from the destination tile type's `PadValue`, so the
//! slot, declared with `PadValue::Null`, is padded through a view whose type names the pad)
//! and `TRESHAPE` (which re-points a tile of the new shape at the source's storage; the view
//! is then copied into the destination slot with a Vec -> Vec `TMOV`).

use crate::emit::writer::Level;
use crate::isa::{Arg, TileId, TileRef};
use pto_ir::sem::pad::{PadKind, pad_kind};

use super::{Writer, put_tile_type_valid};

impl Writer<'_> {
    /// `TFILLPAD_INPLACE(pad view, dst)`: every element of `dst` outside its valid region
    /// becomes the constant pad; `dst`'s valid region becomes the whole tile.
    pub(super) fn fill_pad(&mut self, l: Level, dst: TileId, args: &[Arg]) {
        let Some(slot) = self.p.tile(dst).cloned() else {
            return;
        };
        let pad = match args {
            [Arg::Scalar(v)] => self.m.values[*v].constant.map(|c| c.as_f64()),
            _ => None,
        };
        let pad = match pad.and_then(|v| pad_kind(slot.dtype, v)) {
            Some(PadKind::Zero) => "PadValue::Zero".to_string(),
            Some(PadKind::Max) => "PadValue::Max".to_string(),
            Some(PadKind::Min) => "PadValue::Min".to_string(),
            Some(PadKind::Custom(v)) => format!("PadValueCustom({v:?}f)"),
            None => {
                self.out.line(
                    l,
                    "// load_or: the pad is not a constant pto-isa can pad with",
                );
                return;
            }
        };
        self.out.line(l, "{");
        let l1 = l.next();
        let mut ty = super::Out::default();
        let a5 = self.a5();
        put_tile_type_valid(&mut ty, &slot, [Some(slot.rows), Some(slot.cols)], a5);
        let ty = ty.text.replace("PadValue::Null", &pad);
        self.out.line(l1, &format!("{ty} pv;"));
        self.out.indent(l1);
        self.put("TASSIGN(pv, 0x");
        self.put(&format!("{:x}", slot.addr));
        self.put(");\n");
        self.out.indent(l1);
        self.put("TFILLPAD_INPLACE(pv, ");
        self.tref(TileRef::Slot(dst));
        self.put(");\n");
        let (r, c) = (slot.rows.to_string(), slot.cols.to_string());
        self.set_region(l1, dst, &r, &c);
        self.out.line(l, "}");
    }
}

impl Writer<'_> {
    /// `TRESHAPE(view, src); TMOV(dst, view);` with a fully valid view of `dst`'s type, `dst`
    /// fully valid.
    pub(super) fn reshape(&mut self, l: Level, dst: TileId, src: TileRef) {
        let Some(slot) = self.p.tile(dst).cloned() else {
            return;
        };
        let (r, c) = (slot.rows.to_string(), slot.cols.to_string());
        self.reinterpret(l, dst, src, (&r, &c));
    }

    /// `src`'s storage read as a tile of slot `dst`'s type (`TRESHAPE` into a view, then
    /// `TMOV`), `dst`'s valid region set to `rows x cols`: a reshape, or a cast between two
    /// integer types of one width, whose bits it keeps.
    pub(super) fn reinterpret(
        &mut self,
        l: Level,
        dst: TileId,
        src: TileRef,
        (rows, cols): (&str, &str),
    ) {
        let Some(slot) = self.p.tile(dst).cloned() else {
            return;
        };
        self.out.line(l, "{");
        let l1 = l.next();
        let mut ty = super::Out::default();
        let a5 = self.a5();
        put_tile_type_valid(&mut ty, &slot, [Some(slot.rows), Some(slot.cols)], a5);
        self.out.line(l1, &format!("{} rv;", ty.text));
        self.out.indent(l1);
        self.put("TRESHAPE(rv, ");
        self.tref(src);
        self.put(");\n");
        self.set_region(l1, dst, rows, cols);
        self.out.indent(l1);
        self.put("TMOV(");
        self.tref(TileRef::Slot(dst));
        self.put(", rv);\n");
        self.out.line(l, "}");
    }
}
