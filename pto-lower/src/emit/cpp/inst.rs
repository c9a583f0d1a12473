//! Instructions: tile ops, control flow and scalar ops.

use std::fmt::Write;

use pto_ir::{Constant, DataType, Opcode, Type, ValueId};

use pto_ir::ops::dtypes::{PARTIAL_MUL_ROUTE, partial_forms, reinterprets};
use pto_ir::sem::{Binary, Compare, Sem};
use pto_ir::verify::target::{Target, target};

use crate::emit::writer::Level;
use crate::info::{pipe_cpp, read_rows};
use crate::isa::{Arg, Index, Inst, Isa, LoopExec, TileId, TileRef, TileSlot};
use crate::lower::scratch_for;

use super::{
    Part, RET, Writer, acc_to_vec, column_view, cpp_dtype, cpp_max, cpp_min, is_column,
    is_elementwise, is_one_element_row, put_tile_type_valid, row_view, vec_to_mat,
};

/// The C++ infix operator of a binary scalar op (the semantics module's helpers for the rest).
fn binary_operator(op: Opcode) -> Option<&'static str> {
    use Opcode::*;
    Some(match op {
        ScalarAdd => "+",
        ScalarSub => "-",
        ScalarMul => "*",
        ScalarEq => "==",
        ScalarNe => "!=",
        ScalarLt => "<",
        ScalarLe => "<=",
        ScalarGt => ">",
        ScalarGe => ">=",
        ScalarAnd => "&&",
        ScalarOr => "||",
        ScalarXor => "!=",
        ScalarBitAnd => "&",
        ScalarBitOr => "|",
        ScalarBitXor => "^",
        ScalarShl => "<<",
        ScalarShr => ">>",
        _ => return None,
    })
}

/// pto-isa's `CmpMode` of a comparison.
fn cmp_mode(k: Compare) -> &'static str {
    match k {
        Compare::Eq => "CmpMode::EQ",
        Compare::Ne => "CmpMode::NE",
        Compare::Lt => "CmpMode::LT",
        Compare::Le => "CmpMode::LE",
        Compare::Gt => "CmpMode::GT",
        Compare::Ge => "CmpMode::GE",
    }
}

/// A piece of a scalar op's C++ expression template.
enum Piece<'s> {
    /// Literal text.
    Text(&'s str),
    /// The first operand.
    A,
    /// The second operand.
    B,
}

impl Writer<'_> {
    fn arg(&mut self, x: Arg, dty: DataType) {
        match x {
            Arg::Tile(t) => self.tref(t),
            Arg::Scalar(v) => self.scalar_as(v, dty),
            Arg::Imm(f) => self.lit(Constant::Double(f), dty),
            Arg::Cmp(k) => self.put(cmp_mode(k)),
        }
    }

    /// The valid region an instruction gives its destination, from its sources' regions
    /// `src[k] = (rows, cols)` (C++ expressions); `None` when the destination keeps its
    /// own (a fill). The same rules as `pto::isa` and the interpreter (`docs/guide.md`
    /// section 5).
    fn result_region(
        &self,
        isa: Isa,
        dst: TileId,
        src: &[(String, String)],
    ) -> Option<(String, String)> {
        let (min, max) = (cpp_min, cpp_max);
        let own = |k: usize| self.vdim(TileRef::Slot(dst), k);
        let (a, b) = (src.first()?, src.get(1));
        use Isa::*;
        Some(match isa {
            TExpandS => return None,
            // The mask covers where both operands are; a selection where the mask and
            // both alternatives are.
            TCmp => (min(&a.0, &b?.0), min(&a.1, &b?.1)),
            TSel => {
                let (x, y) = (b?, src.get(2)?);
                (min(&min(&a.0, &x.0), &y.0), min(&min(&a.1, &x.1), &y.1))
            }
            TSelS => {
                let b = b?;
                (min(&a.0, &b.0), min(&a.1, &b.1))
            }
            _ if isa.partial_form().is_some() => {
                let b = b?;
                (max(&a.0, &b.0), max(&a.1, &b.1))
            }
            _ if isa.is_binary() => {
                let b = b?;
                (min(&a.0, &b.0), min(&a.1, &b.1))
            }
            TRowSum | TRowMax | TRowMin | TRowProd | TRowArgMax | TRowArgMin => {
                (a.0.clone(), "1".into())
            }
            TColSum | TColMax | TColMin | TColProd => ("1".into(), a.1.clone()),
            TRowExpand => (a.0.clone(), own(1)),
            TColExpand => (own(0), a.1.clone()),
            TRowExpandAdd | TRowExpandSub | TRowExpandMul | TRowExpandDiv | TRowExpandMax
            | TRowExpandMin => (min(&a.0, &b?.0), a.1.clone()),
            TColExpandAdd | TColExpandSub | TColExpandMul | TColExpandDiv | TColExpandMax
            | TColExpandMin => (a.0.clone(), min(&a.1, &b?.1)),
            TTrans => (a.1.clone(), a.0.clone()),
            TMatmul | TMatmulBias => (a.0.clone(), b?.1.clone()),
            // `c = c_in + a * b`: the product covers `a`'s rows and `b`'s columns, and the
            // accumulator keeps what lies outside them (section 5's rule for sums).
            TMatmulAcc => {
                let (x, y) = (b?, src.get(2)?);
                (max(&a.0, &x.0), max(&a.1, &y.1))
            }
            _ => a.clone(),
        })
    }

    /// A compute instruction: the destination's valid region set from the sources' (read
    /// into locals first, since the destination may be a source), then the call. Column
    /// tiles go through their row-major views; an accumulating op whose operands' regions
    /// may differ is the `TPART*` form, with an aliased operand read through a view that
    /// keeps its own region.
    pub(super) fn op(&mut self, l: Level, isa: Isa, dst: TileId, args: &[Arg]) {
        let Some(dslot) = self.p.tile(dst).cloned() else {
            return;
        };
        if isa == Isa::TMov
            && self.workspace > 0
            && let Some(src) = acc_to_vec(self.p, dst, args)
        {
            match self.part {
                Part::Whole => self.through_workspace(l, dst, src),
                Part::Cube => self.push(l, src),
                Part::Vector => self.pop(l, Some(dst), src),
                Part::Peer => self.pop(l, None, src),
            }
            return;
        }
        if isa == Isa::TMov
            && self.workspace > 0
            && let Some(src) = vec_to_mat(self.p, dst, args)
        {
            match self.part {
                // Not split: no route (the lowering refuses such a kernel).
                Part::Whole => {}
                Part::Cube => self.v2c_pop(l, dst, src),
                Part::Vector => self.v2c_push(l, Some(src)),
                Part::Peer => self.v2c_push(l, None),
            }
            if self.part != Part::Whole {
                return;
            }
        }
        if let (Isa::TMov, [Arg::Tile(TileRef::Param(param))]) = (isa, args) {
            return self.load_param(l, dst, *param);
        }
        if isa == Isa::TFillPad {
            return self.fill_pad(l, dst, args);
        }
        if let (Isa::TReshape, [Arg::Tile(src)]) = (isa, args) {
            return self.reshape(l, dst, *src);
        }
        if self.zeroed.contains(&dst) && isa == Isa::TExpandS {
            self.out.line(
                l,
                &format!("{}_zero = true; // the accumulator is zero", dslot.name),
            );
            return;
        }
        if let (Isa::TMatmulAcc, [Arg::Tile(TileRef::Slot(c_in)), a, b]) = (isa, args)
            && self.zeroed.contains(c_in)
        {
            let flag = self
                .p
                .tile(*c_in)
                .map(|s| format!("{}_zero", s.name))
                .unwrap_or_default();
            self.out.line(l, &format!("if ({flag}) {{"));
            self.op_plain(l.next(), Isa::TMatmul, dst, &[*a, *b]);
            self.out.line(l, "} else {");
            self.op_plain(l.next(), isa, dst, args);
            self.out.line(l, "}");
            if self.zeroed.contains(&dst) {
                self.out.line(l, &format!("{}_zero = false;", dslot.name));
            }
            return;
        }
        self.op_plain(l, isa, dst, args);
        if self.zeroed.contains(&dst) {
            // Anything else written into the accumulator replaces the zero.
            self.out.line(l, &format!("{}_zero = false;", dslot.name));
        }
    }

    /// [`Writer::op`] once the accumulator flags are dealt with.
    fn op_plain(&mut self, l: Level, isa: Isa, dst: TileId, args: &[Arg]) {
        let Some(dslot) = self.p.tile(dst).cloned() else {
            return;
        };
        let dty = dslot.dtype;
        let column = is_elementwise(isa) && is_column(&dslot);
        let tiles: Vec<TileRef> = args
            .iter()
            .filter_map(|a| match a {
                Arg::Tile(t) => Some(*t),
                _ => None,
            })
            .collect();
        let regions: Vec<(String, String)> = tiles
            .iter()
            .map(|&t| (self.vdim(t, 0), self.vdim(t, 1)))
            .collect();
        let statically_equal = regions.windows(2).all(|w| w[0] == w[1])
            && regions
                .iter()
                .all(|(r, c)| r.parse::<u64>().is_ok() && c.parse::<u64>().is_ok());
        let partial = isa
            .partial_form()
            .filter(|_| tiles.len() == 2 && !statically_equal);
        let target = target(self.p.target).unwrap_or(Target::A2A3);
        if let (Some(_), &[a, b]) = (partial, tiles.as_slice())
            && partial_forms(target, isa, dty) == PARTIAL_MUL_ROUTE
        {
            self.partial_product(l, dst, [a, b]);
            return;
        }
        let direct = self.result_region(isa, dst, &regions);
        let own = (
            self.vdim(TileRef::Slot(dst), 0),
            self.vdim(TileRef::Slot(dst), 1),
        );
        let unchanged = direct.as_ref().is_none_or(|r| *r == own);
        // Operands whose tile type pto-isa ties to the destination's: TSEL takes one tile
        // type for the destination and both alternatives (`TSEL(TileData& dst, MaskTile&,
        // TileData& src0, TileData& src1, ..)`), TTRANS's CPU simulation asserts that the
        // source's static valid dimensions mirror the destination's, and TROWSUM's that the
        // source has the destination's static rows (`info::row_sum_rows`: a column result's
        // rows are padded to 32 bytes; bufferize reserved the source's). An operand declared
        // otherwise is read through a view of the type they ask: `(rows, valid dimensions)`.
        let tied = |k: usize, s: &TileSlot| match isa {
            Isa::TSel if k > 0 => Some((s.rows, dslot.valid)),
            Isa::TTrans if k == 0 => Some((s.rows, [dslot.valid[1], dslot.valid[0]])),
            Isa::TRowSum if k == 0 => Some((read_rows(isa, s, &dslot), s.valid)),
            _ => None,
        };
        let retyped: Vec<Option<TileSlot>> = tiles
            .iter()
            .enumerate()
            .map(|(k, &t)| {
                let TileRef::Slot(id) = t else { return None };
                let s = self.p.tile(id)?;
                if isa.is_row_broadcast() && is_one_element_row(s) {
                    return Some(column_view(s));
                }
                let (rows, valid) = tied(k, s)?;
                (rows != s.rows || valid != s.valid).then(|| TileSlot {
                    rows,
                    valid,
                    ..s.clone()
                })
            })
            .collect();
        let retype = retyped.iter().any(Option::is_some);
        let scratch = self.scratch_for(isa, &dslot, &tiles);
        if !column
            && !retype
            && partial.is_none()
            && (unchanged || !tiles.contains(&TileRef::Slot(dst)))
        {
            // No source sees the destination's region change: set it and call.
            if let (false, Some((r, c))) = (unchanged, &direct) {
                self.set_region(l, dst, r, c);
            }
            let names = tiles.iter().map(|&t| self.text(|me| me.tref(t))).collect();
            let call = (isa, isa.name(), dslot.name.as_str(), dty);
            self.call(l, call, args, names, &tiles, scratch);
            return;
        }
        self.out.line(l, "{");
        let l1 = l.next();
        // The sources' regions, read before the destination's changes.
        let mut locals = Vec::with_capacity(regions.len());
        for (k, (r, c)) in regions.iter().enumerate() {
            self.out
                .line(l1, &format!("const int64_t r{k} = {r}, c{k} = {c};"));
            locals.push((format!("r{k}"), format!("c{k}")));
        }
        let region = self.result_region(isa, dst, &locals);
        // The name each tile operand is read through.
        let mut names = Vec::with_capacity(tiles.len());
        for (k, &t) in tiles.iter().enumerate() {
            let slot = match t {
                TileRef::Slot(id) => self.p.tile(id).cloned(),
                TileRef::Param(_) => None,
            };
            let Some(slot) = slot else {
                names.push(self.text(|me| me.tref(t)));
                continue;
            };
            let aliased = t == TileRef::Slot(dst) && partial.is_some();
            if let Some(view) = &retyped[k] {
                let name = format!("in{k}");
                self.declare_typed(l1, view, view.valid, &name, &locals[k]);
                names.push(name);
            } else if column {
                let view = row_view(&slot);
                if aliased {
                    let name = format!("in{k}");
                    self.declare_at(l1, &view, &name, &["1".into(), locals[k].0.clone()]);
                    names.push(name);
                } else {
                    self.out
                        .line(l1, &format!("{}.SetValidCol({});", view.name, locals[k].0));
                    names.push(view.name);
                }
            } else if aliased && slot.valid.iter().any(Option::is_none) {
                let name = format!("in{k}");
                self.declare_at(
                    l1,
                    &slot,
                    &name,
                    &[locals[k].0.clone(), locals[k].1.clone()],
                );
                names.push(name);
            } else {
                names.push(slot.name.clone());
            }
        }
        if let Some((r, c)) = &region {
            self.set_region(l1, dst, r, c);
            if column {
                self.out
                    .line(l1, &format!("{}_row.SetValidCol({r});", dslot.name));
            }
        } else if column {
            // A fill (`TEXPANDS`) keeps the destination's region: its view takes it.
            let r = self.vdim(TileRef::Slot(dst), 0);
            self.out
                .line(l1, &format!("{}_row.SetValidCol({r});", dslot.name));
        }
        let dst_name = if column {
            format!("{}_row", dslot.name)
        } else {
            dslot.name.clone()
        };
        let call = (isa, partial.unwrap_or(isa.name()), dst_name.as_str(), dty);
        self.call(l1, call, args, names, &tiles, scratch);
        self.out.line(l, "}");
    }

    /// The scratch tile of `isa` when it takes one, with its address: the one of the type
    /// `lower::scratch_for` gives the source as it is read (`lower::scratch_slots` made it).
    fn scratch_for(&self, isa: Isa, dst: &TileSlot, tiles: &[TileRef]) -> Option<(String, u64)> {
        if !isa.needs_scratch() {
            return None;
        }
        let src = match tiles.first()? {
            TileRef::Slot(id) => self.p.tile(*id)?,
            TileRef::Param(_) => return None,
        };
        let want = scratch_for(isa, src, dst);
        let s = self.p.scratch.iter().find(|s| {
            s.dtype == want.dtype
                && s.rows == want.rows
                && s.cols == want.cols
                && s.layout == want.layout
        })?;
        Some((s.name.clone(), s.addr))
    }

    /// `NAME(dst, args..);` for `(isa, name, dst, dtype)` (`name` is `isa`'s spelling or its
    /// partial form) with the tile operands read through `names`, and `scratch` last for the
    /// instructions that take one.
    fn call(
        &mut self,
        l: Level,
        (isa, name, dst, dty): (Isa, &str, &str, DataType),
        args: &[Arg],
        names: Vec<String>,
        tiles: &[TileRef],
        scratch: Option<(String, u64)>,
    ) {
        // The CPU simulation's `TREMS` / `TXORS` take `tmp` of the destination's exact type
        // (`TileDst& tmp`), and A2A3's `TXOR` one of its dtype and valid region: a copy of
        // the destination's tile object (its valid region too) moved onto the scratch
        // memory, in a block of its own.
        let tmp_as_dst = matches!(isa, Isa::TRemS | Isa::TXor | Isa::TXorS) && scratch.is_some();
        let scratch = scratch.map(|(name, addr)| {
            if !tmp_as_dst {
                return name;
            }
            let view = format!("{name}_as_dst");
            self.out.line(l, "{");
            self.out.line(
                l.next(),
                &format!("std::remove_reference_t<decltype({dst})> {view} = {dst};"),
            );
            self.out
                .line(l.next(), &format!("TASSIGN({view}, 0x{addr:x});"));
            view
        });
        let l0 = l;
        let l = if tmp_as_dst { l.next() } else { l };
        self.out.indent(l);
        self.put(name);
        self.put("(");
        self.put(dst);
        // A mask's scalar operand (`TCMPS`) has the compared tile's dtype.
        let dty = match (dty, tiles.first()) {
            (DataType::Bool, Some(TileRef::Slot(id))) => self.p.tile(*id).map_or(dty, |s| s.dtype),
            (DataType::Bool, Some(TileRef::Param(v))) => {
                self.m.values[*v].ty.dtype().unwrap_or(dty)
            }
            _ => dty,
        };
        let mut next_tile = names.into_iter();
        for (k, &x) in args.iter().enumerate() {
            // `TSELS(dst, mask, src, tmp, scalar)`: the scratch tile before the scalar.
            if isa == Isa::TSelS
                && k + 1 == args.len()
                && let Some(s) = &scratch
            {
                self.put(", ");
                self.put(s);
            }
            self.put(", ");
            match x {
                Arg::Tile(_) => {
                    let n = next_tile.next().unwrap_or_default();
                    self.put(&n);
                }
                other => self.arg(other, dty),
            }
        }
        if isa != Isa::TSelS
            && let Some(s) = &scratch
        {
            self.put(", ");
            self.put(s);
        }
        self.put(");\n");
        if tmp_as_dst {
            self.out.line(l0, "}");
        }
    }

    /// Declares a tile object named `name` over slot `s`'s memory typed with valid
    /// dimensions `valid` (another tile's, for an instruction that takes one tile type),
    /// its dynamic ones constructed with `region` (C++ expressions).
    fn declare_typed(
        &mut self,
        l: Level,
        s: &TileSlot,
        valid: [Option<u64>; 2],
        name: &str,
        region: &(String, String),
    ) {
        self.out.indent(l);
        let a5 = self.a5();
        put_tile_type_valid(&mut self.out, s, valid, a5);
        let (r, c) = region;
        let _ = match valid {
            [None, None] => writeln!(self.out.text, " {name}({r}, {c});"),
            [None, Some(_)] => writeln!(self.out.text, " {name}({r});"),
            [Some(_), None] => writeln!(self.out.text, " {name}({c});"),
            [Some(_), Some(_)] => writeln!(self.out.text, " {name};"),
        };
        self.out.indent(l);
        let _ = write!(self.out.text, "TASSIGN({name}, 0x");
        self.put(&format!("{:x}", s.addr));
        self.put(");\n");
    }

    /// Declares a tile object named `name` over slot `s`'s memory whose valid dimensions
    /// are all dynamic, constructed with `valid` (C++ expressions).
    pub(super) fn declare_at(&mut self, l: Level, s: &TileSlot, name: &str, valid: &[String; 2]) {
        self.out.indent(l);
        let a5 = self.a5();
        put_tile_type_valid(&mut self.out, s, [None, None], a5);
        let _ = writeln!(self.out.text, " {name}({}, {});", valid[0], valid[1]);
        self.out.indent(l);
        let _ = write!(self.out.text, "TASSIGN({name}, 0x");
        self.put(&format!("{:x}", s.addr));
        self.put(");\n");
    }

    /// `TEXTRACT(dst, src, r, c);` and the like.
    fn tile_at(&mut self, l: Level, f: &str, dst: TileId, src: TileRef, at: [Index; 2]) {
        self.out.indent(l);
        self.put(f);
        self.put("(");
        self.tile(dst);
        self.put(", ");
        self.tref(src);
        self.put(", ");
        self.index(at[0]);
        self.put(", ");
        self.index(at[1]);
        self.put(");\n");
    }

    pub(super) fn inst(&mut self, i: &Inst, l: Level) {
        match i {
            // The C++ prints a chain's instructions one by one (they follow the mark).
            Inst::Fused(_)
            | Inst::ExpandStore(_)
            | Inst::MapRowSum(_)
            | Inst::LoadView(_)
            | Inst::Share(_) => {}
            Inst::Handoff(h) => self.handoff(l, h),
            Inst::Op { isa, dst, args } => self.op(l, *isa, *dst, args),
            Inst::Load {
                dst,
                tensor,
                offsets,
                window,
            } => self.load(l, *dst, *tensor, offsets, window),
            Inst::Store {
                tensor,
                add,
                src,
                offsets,
                window,
            } => self.store(l, *src, *tensor, *add, offsets, window),
            Inst::Read {
                result,
                tensor,
                offsets,
            } => self.read(l, *result, *tensor, offsets),
            Inst::Write {
                tensor,
                value,
                offsets,
            } => self.write(l, *tensor, *value, offsets),
            Inst::Extract { dst, src, at } => {
                // The window's part inside the source's valid region.
                if let Some(d) = self.p.tile(*dst) {
                    let (rows, cols) = (d.rows.to_string(), d.cols.to_string());
                    let mut ext = [String::new(), String::new()];
                    for (k, lim) in [rows, cols].iter().enumerate() {
                        let v = self.vdim(*src, k);
                        let o = self.text(|me| me.index(at[k]));
                        let left = match (v.parse::<u64>(), o.parse::<u64>()) {
                            (Ok(v), Ok(o)) => v.saturating_sub(o).to_string(),
                            _ => format!("({v} > {o} ? {v} - {o} : 0)"),
                        };
                        ext[k] = cpp_min(&left, lim);
                    }
                    self.set_region(l, *dst, &ext[0], &ext[1]);
                }
                self.guard_window(l, *src, TileRef::Slot(*dst), *at);
                self.tile_at(l, "TEXTRACT", *dst, *src, *at)
            }
            Inst::Insert { dst, src, at } => {
                self.guard_window(l, TileRef::Slot(*dst), *src, *at);
                self.tile_at(l, "TINSERT", *dst, *src, *at)
            }
            Inst::Cvt { dst, src, round } => {
                let (r, c) = (self.vdim(*src, 0), self.vdim(*src, 1));
                let d = |me: &Self, t: TileRef| match t {
                    TileRef::Slot(s) => me.p.tile(s).map_or(DataType::Unknown, |s| s.dtype),
                    TileRef::Param(v) => me.dtype(v),
                };
                if reinterprets(d(self, *src), d(self, TileRef::Slot(*dst))) {
                    return self.reinterpret(l, *dst, *src, (&r, &c));
                }
                self.set_region(l, *dst, &r, &c);
                // TCVT takes row-major tiles: a column converts through the `[1, R]` views
                // of both tiles (`column_tiles` declares them).
                let column_of = |me: &Self, t: TileRef| match t {
                    TileRef::Slot(s) => {
                        me.p.tile(s)
                            .filter(|s| is_column(s))
                            .map(|s| s.name.clone())
                    }
                    TileRef::Param(_) => None,
                };
                let views = column_of(self, TileRef::Slot(*dst)).zip(column_of(self, *src));
                if let Some((dn, sn)) = &views {
                    self.out.line(l, &format!("{dn}_row.SetValidCol({r});"));
                    self.out.line(l, &format!("{sn}_row.SetValidCol({r});"));
                }
                self.out.indent(l);
                self.put("TCVT(");
                match &views {
                    Some((dn, sn)) => self.put(&format!("{dn}_row, {sn}_row")),
                    None => {
                        self.tile(*dst);
                        self.put(", ");
                        self.tref(*src);
                    }
                }
                self.put(", RoundMode::");
                self.put(round.cpp());
                // Integer to integer wraps (the semantics' `as`); pto-isa's TCVT saturates
                // a narrowing one unless told not to.
                if d(self, TileRef::Slot(*dst)).is_int() && d(self, *src).is_int() {
                    self.put(", SaturationMode::OFF");
                }
                self.put(");\n");
            }
            Inst::SetValid { dst, dims } => {
                let r = self.text(|me| me.index(dims[0]));
                let c = self.text(|me| me.index(dims[1]));
                self.set_region(l, *dst, &r, &c);
            }
            Inst::FullValid(t) => {
                if let Some(s) = self.p.tile(*t) {
                    let (r, c) = (s.rows.to_string(), s.cols.to_string());
                    self.set_region(l, *t, &r, &c);
                }
            }
            Inst::SetFlag(e) => self.event(l, true, *e),
            Inst::WaitFlag(e) => self.event(l, false, *e),
            Inst::Barrier(p) => {
                self.out.indent(l);
                self.put("pipe_barrier(");
                self.put(pipe_cpp(*p));
                self.put(");\n");
            }
            Inst::Scalar { op, result, args } => {
                self.out.indent(l);
                self.put(cpp_dtype(self.dtype(*result)));
                self.put(" ");
                self.name(*result);
                self.put(" = ");
                self.scalar_op(*op, *result, args);
                self.put(";\n");
            }
            Inst::Assign(pairs) => {
                if let [(d, s)] = pairs.as_slice() {
                    self.out.indent(l);
                    self.name(*d);
                    self.put(" = ");
                    self.scalar_as(*s, self.dtype(*d));
                    self.put(";\n");
                } else {
                    self.out.line(l, "{");
                    for (k, &(d, s)) in pairs.iter().enumerate() {
                        self.out.indent(l.next());
                        self.put(cpp_dtype(self.dtype(d)));
                        self.put(" tmp");
                        self.out.put_u64(k as u64);
                        self.put(" = ");
                        self.scalar_as(s, self.dtype(d));
                        self.put(";\n");
                    }
                    for (k, &(d, _)) in pairs.iter().enumerate() {
                        self.out.indent(l.next());
                        self.name(d);
                        self.put(" = tmp");
                        self.out.put_u64(k as u64);
                        self.put(";\n");
                    }
                    self.out.line(l, "}");
                }
            }
            Inst::For {
                iv,
                lb,
                ub,
                step,
                carried,
                body,
                results,
                exec,
            } => {
                self.carried(carried, l);
                let blocks = matches!(exec, LoopExec::Parallel { blocks: true });
                match exec {
                    LoopExec::Sequential => {}
                    LoopExec::Parallel { blocks: true } => self.out.line(
                        l,
                        "// parallel: each block runs iterations get_block_idx(), get_block_idx() + get_block_num(), ...",
                    ),
                    LoopExec::Parallel { blocks: false } => self.out.line(
                        l,
                        "// parallel, but every block runs all iterations: it is inside another loop, or code outside it touches the tensors it stores to",
                    ),
                    LoopExec::Serialized(why) => {
                        self.out.indent(l);
                        self.put("// parallel loop run in order: ");
                        self.put(&why.replace('\n', " "));
                        self.put("\n");
                    }
                }
                self.out.indent(l);
                self.put("for (");
                let ivt = cpp_dtype(self.dtype(*iv));
                self.put(ivt);
                self.put(" ");
                self.name(*iv);
                self.put(" = ");
                self.scalar(*lb);
                if blocks {
                    self.put(" + static_cast<");
                    self.put(ivt);
                    self.put(">(get_block_idx()) * ");
                    self.scalar(*step);
                }
                self.put("; ");
                self.name(*iv);
                self.put(" < ");
                self.scalar(*ub);
                self.put("; ");
                self.name(*iv);
                self.put(" += ");
                if blocks {
                    self.put("static_cast<");
                    self.put(ivt);
                    self.put(">(get_block_num()) * ");
                }
                self.scalar(*step);
                self.put(") {\n");
                self.loops.push((*iv, *lb, *ub));
                self.insts(body, l.next());
                self.loops.pop();
                self.out.line(l, "}");
                self.results(results, l);
            }
            Inst::While {
                carried,
                cond,
                cond_value,
                body,
                results,
            } => {
                self.carried(carried, l);
                self.out.line(l, "while (true) {");
                self.insts(cond, l.next());
                self.out.indent(l.next());
                self.put("if (!");
                self.scalar(*cond_value);
                self.put(") break;\n");
                self.insts(body, l.next());
                self.out.line(l, "}");
                self.results(results, l);
            }
            Inst::If {
                cond,
                then_body,
                else_body,
                results,
            } => {
                for &r in results {
                    self.out.indent(l);
                    self.put(cpp_dtype(self.dtype(r)));
                    self.put(" ");
                    self.name(r);
                    self.put(";\n");
                }
                self.out.indent(l);
                self.put("if (");
                self.scalar(*cond);
                self.put(") {\n");
                self.insts(then_body, l.next());
                self.out.line(l, "} else {");
                self.insts(else_body, l.next());
                self.out.line(l, "}");
            }
            Inst::Break => self.out.line(l, "break;"),
            Inst::Continue => self.out.line(l, "continue;"),
            Inst::Return(vals) => {
                for (i, &v) in vals.iter().enumerate() {
                    self.out.indent(l);
                    let _ = write!(self.out, "*{RET}{i} = ");
                    self.scalar(v);
                    self.put(";\n");
                }
                self.out.line(l, "return;");
            }
            Inst::Call {
                callee,
                args,
                results,
            } => self.func_call(callee, args, results, l),
        }
    }

    /// A call of another function of the program: its results declared, then
    /// `callee(args.., dims.., &r0, ..)`, the callee's symbolic dimensions taken from the
    /// extents of the tensors passed for them. A barrier first and after a callee with
    /// tensors: its tile work neither overtakes nor is overtaken by the caller's.
    fn func_call(&mut self, callee: &str, args: &[ValueId], results: &[ValueId], l: Level) {
        let m = self.m;
        let Some(f) = m.function_by_name(callee).map(|f| &m.funcs[f]) else {
            self.out
                .line(l, &format!("// func.call @{callee}: no such function"));
            return;
        };
        for &r in results {
            self.out.indent(l);
            self.put(cpp_dtype(self.dtype(r)));
            self.put(" ");
            self.name(r);
            self.put(";\n");
        }
        // A callee without tensors does no tile work: nothing to order. Two calls in a row
        // share the barrier between them.
        let tile_work = f
            .sig
            .params
            .iter()
            .any(|p| !matches!(m.values[p.value].ty, Type::Scalar(_)));
        const BARRIER: &str = "pipe_barrier(PIPE_ALL);";
        if tile_work && !self.out.text.trim_end().ends_with(BARRIER) {
            self.out.line(l, BARRIER);
        }
        self.out.indent(l);
        self.out.text.push_str(&super::function_name(callee));
        self.put("(");
        let mut n = 0;
        for &a in args {
            self.out.sep(n);
            n += 1;
            match m.values[a].ty {
                Type::Tensor(_) => self.name(a),
                _ => self.scalar(a),
            }
        }
        for &d in &f.dims {
            self.out.sep(n);
            n += 1;
            // The first tensor parameter of the callee with `d` among its extents.
            let passed = f.sig.params.iter().zip(args).find_map(|(p, &a)| {
                let Type::Tensor(want) = &m.values[p.value].ty else {
                    return None;
                };
                let Type::Tensor(got) = &m.values[a].ty else {
                    return None;
                };
                let k = want
                    .shape
                    .iter()
                    .position(|x| *x == pto_ir::Dim::Value(d))?;
                got.shape.get(k).copied()
            });
            match passed {
                Some(pto_ir::Dim::Const(c)) => self.out.put_u64(c),
                Some(pto_ir::Dim::Value(v)) => self.name(v),
                _ => self.put("0 /* unknown extent */"),
            }
        }
        for &r in results {
            self.out.sep(n);
            n += 1;
            self.put("&");
            self.name(r);
        }
        self.put(");\n");
        if tile_work {
            self.out.line(l, BARRIER);
        }
    }

    fn carried(&mut self, carried: &[(ValueId, ValueId)], l: Level) {
        for &(a, init) in carried {
            let d = self.dtype(a);
            self.out.indent(l);
            self.put(cpp_dtype(d));
            self.put(" ");
            self.name(a);
            self.put(" = ");
            self.scalar_as(init, d);
            self.put(";\n");
        }
    }

    fn results(&mut self, results: &[(ValueId, ValueId)], l: Level) {
        for &(r, a) in results {
            self.out.indent(l);
            self.put(cpp_dtype(self.dtype(r)));
            self.put(" ");
            self.name(r);
            self.put(" = ");
            self.name(a);
            self.put(";\n");
        }
    }

    /// An optional scalar operand (nothing when it is missing).
    pub(super) fn operand(&mut self, v: Option<ValueId>) {
        if let Some(v) = v {
            self.scalar(v);
        }
    }

    /// Writes a scalar op's C++ expression template: its text, and the operands `a` / `b`
    /// where marked.
    fn template(&mut self, pieces: &[Piece<'_>], a: Option<ValueId>, b: Option<ValueId>) {
        for p in pieces {
            match *p {
                Piece::Text(s) => self.put(s),
                Piece::A => self.operand(a),
                Piece::B => self.operand(b),
            }
        }
    }

    fn scalar_op(&mut self, op: Opcode, result: ValueId, args: &[ValueId]) {
        use Opcode::*;
        use Piece::{A, B, Text as T};
        let a = args.first().copied();
        let b = args.get(1).copied();
        if let Some(o) = binary_operator(op) {
            return self.template(&[T("("), A, T(" "), T(o), T(" "), B, T(")")], a, b);
        }
        let cast;
        let helper;
        let pieces: &[Piece<'_>] = match op.info().sem {
            // The semantics module's functions, by name (see `SCALAR_HELPERS`).
            Sem::Binary(
                k @ (Binary::Div
                | Binary::Rem
                | Binary::FloorDiv
                | Binary::FloorMod
                | Binary::Min
                | Binary::Max),
            ) => {
                let ty = cpp_dtype(self.dtype(result));
                helper = [
                    T("pto_rs::"),
                    T(k.fn_name()),
                    T("<"),
                    T(ty),
                    T(">("),
                    A,
                    T(", "),
                    B,
                    T(")"),
                ];
                &helper
            }
            _ => match op {
                ScalarPow => &[T("__builtin_pow("), A, T(", "), B, T(")")],
                ScalarNeg => &[T("(-"), A, T(")")],
                ScalarAbs => &[T("("), A, T(" < 0 ? -"), A, T(" : "), A, T(")")],
                ScalarNot => &[T("(!"), A, T(")")],
                ScalarBitNot => &[T("(~"), A, T(")")],
                ScalarCast => {
                    let to_d = self.dtype(result);
                    let from = a.map(|v| self.dtype(v));
                    let to = cpp_dtype(to_d);
                    // Float to integer is Rust's `as` (saturating, NaN to 0); C++'s cast is
                    // undefined out of range.
                    let saturate = from
                        .is_some_and(|f| matches!(f, DataType::Fp32 | DataType::Fp64))
                        && to_d.is_int();
                    cast = if saturate {
                        [T("pto_rs::cast_trunc<"), T(to), T(">("), A, T(")")]
                    } else {
                        [T("static_cast<"), T(to), T(">("), A, T(")")]
                    };
                    &cast
                }
                _ => &[A],
            },
        };
        self.template(pieces, a, b);
    }
}
