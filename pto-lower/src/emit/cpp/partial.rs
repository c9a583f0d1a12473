//! An integer product whose operands' valid regions may differ, on a target whose `TPARTMUL`
//! lacks its element type (A5's takes no 64-bit integers): the route
//! `pto_ir::ops::dtypes::partial_forms` gives, which the verifier judges.

use crate::emit::writer::Level;
use crate::isa::{TileId, TileRef};

use super::{Writer, cpp_max, cpp_min, is_column, row_view};

impl Writer<'_> {
    /// `dst = a * b` as `TPARTMUL` computes it (the product where both operands are valid,
    /// the valid one where one is), from instructions that take the type: `a` copied into
    /// `dst` (`TMOV`; nothing when `dst` is `a`), `dst * b - b` over the common region
    /// (`TMUL`, `TSUB` in place), then `TPARTADD(dst, dst, b)`, which adds `b` back where both
    /// are valid and keeps the valid one elsewhere. `b` may not be `dst`: the operands are
    /// swapped first (the product commutes). Each step wraps, so the result is exact.
    pub(super) fn partial_product(&mut self, l: Level, dst: TileId, operands: [TileRef; 2]) {
        let Some(slot) = self.p.tile(dst).cloned() else {
            return;
        };
        let [a, b] = match operands {
            [a, b] if b == TileRef::Slot(dst) => [b, a],
            ab => ab,
        };
        self.out.line(l, "{");
        let l1 = l.next();
        let (r0, c0, r1, c1) = (
            self.vdim(a, 0),
            self.vdim(a, 1),
            self.vdim(b, 0),
            self.vdim(b, 1),
        );
        self.out.line(
            l1,
            &format!("const int64_t r0 = {r0}, c0 = {c0}, r1 = {r1}, c1 = {c1};"),
        );
        self.out.line(
            l1,
            "// TPARTMUL lacks this type here: a copied, a * b - b where both are valid, + b.",
        );
        // A column tile is read through its `[1, R]` row-major view, as elementwise
        // instructions need (`Writer::op`).
        let column = is_column(&slot);
        let shape = |r: String, c: String| if column { ["1".into(), r] } else { [r, c] };
        let view = if column {
            row_view(&slot)
        } else {
            slot.clone()
        };
        let a_name = self.read_as_row(l1, a, "r0");
        let b_name = self.read_as_row(l1, b, "r1");
        self.declare_at(l1, &view, "in_a", &shape("r0".into(), "c0".into()));
        if a != TileRef::Slot(dst) {
            self.out.line(l1, &format!("TMOV(in_a, {a_name});"));
        }
        let common = shape(cpp_min("r0", "r1"), cpp_min("c0", "c1"));
        self.declare_at(l1, &view, "common", &common);
        self.out
            .line(l1, &format!("TMUL(common, common, {b_name});"));
        self.out
            .line(l1, &format!("TSUB(common, common, {b_name});"));
        let (rows, cols) = (cpp_max("r0", "r1"), cpp_max("c0", "c1"));
        self.set_region(l1, dst, &rows, &cols);
        if column {
            self.out
                .line(l1, &format!("{}.SetValidCol({rows});", view.name));
        }
        self.out
            .line(l1, &format!("TPARTADD({}, in_a, {b_name});", view.name));
        self.out.line(l, "}");
    }

    /// The name operand `t` is read through: a column slot's row view, its valid columns
    /// set to the column's rows (`rows`, a C++ expression).
    fn read_as_row(&mut self, l: Level, t: TileRef, rows: &str) -> String {
        match t {
            TileRef::Slot(id) => match self.p.tile(id).filter(|s| is_column(s)) {
                Some(s) => {
                    let view = row_view(s);
                    self.out
                        .line(l, &format!("{}.SetValidCol({rows});", view.name));
                    view.name
                }
                None => self.text(|me| me.tref(t)),
            },
            TileRef::Param(_) => self.text(|me| me.tref(t)),
        }
    }
}
