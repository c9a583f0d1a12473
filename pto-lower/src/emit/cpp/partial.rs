//! An integer product whose operands' valid regions may differ, on a target whose `TPARTMUL`
//! lacks its element type (A5's takes no 64-bit integers): the route
//! `pto_ir::ops::dtypes::partial_forms` gives, which the verifier judges.

use crate::emit::writer::Level;
use crate::isa::{TileId, TileRef};

use super::{Writer, cpp_max, cpp_min};

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
        let (a_name, b_name) = (self.text(|me| me.tref(a)), self.text(|me| me.tref(b)));
        self.declare_at(l1, &slot, "in_a", &["r0".into(), "c0".into()]);
        if a != TileRef::Slot(dst) {
            self.out.line(l1, &format!("TMOV(in_a, {a_name});"));
        }
        let common = [cpp_min("r0", "r1"), cpp_min("c0", "c1")];
        self.declare_at(l1, &slot, "common", &common);
        self.out
            .line(l1, &format!("TMUL(common, common, {b_name});"));
        self.out
            .line(l1, &format!("TSUB(common, common, {b_name});"));
        self.set_region(l1, dst, &cpp_max("r0", "r1"), &cpp_max("c0", "c1"));
        self.out
            .line(l1, &format!("TPARTADD({}, in_a, {b_name});", slot.name));
        self.out.line(l, "}");
    }
}
