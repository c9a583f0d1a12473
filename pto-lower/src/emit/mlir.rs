//! Seed-002 MLIR text of a lowered kernel (`shared/spec/ir-text.md` section 2), in two forms:
//! the custom form of `NAME::LOWERED` (`pto.tile.load %x[%i, 0] {loc = #pto.loc<Vec>, ..} :
//! pto.memref<..>, tile<1x128xf32>`, `!pto.event<..>` tokens with `wait(..)`, `scf.for` /
//! `scf.if` / `scf.while`) and MLIR's generic operation form (`"pto.tile.add"(%a, %b) {..} :
//! (..) -> ..`), which stock `mlir-opt --allow-unregistered-dialect` parses.
//!
//! Both are printed from the module after the pass pipeline (SSA values, with each tile's
//! location, layout, valid region and buffer offset, and the events of `insert-events`).

use std::fmt::Write;

use pto_ir::entity::EntityId;
use pto_ir::typefmt::push_whole_f64;
use pto_ir::{
    Attr, Constant, DataType, Dim, MemorySpace, OpClass, OpId, Operation, PipeKind, ProgramModule,
    StmtKind, TensorType, TileType, Type, ValueId,
};

use super::writer::{Level, Out};
use crate::info::{addr_of, layout_name, space_of};
use crate::isa::Program;
use crate::passes::events::{Event, EventRole};

/// The custom form (`NAME::LOWERED`).
pub fn emit_lowered(p: &Program) -> String {
    Writer::<false>::new(p).run()
}

/// The generic operation form.
pub fn emit_generic(p: &Program) -> String {
    Writer::<true>::new(p).run()
}

/// The MLIR spelling of a dtype.
pub fn mlir_dtype(d: DataType) -> &'static str {
    match d {
        DataType::Bool => "i1",
        DataType::Int4 => "i4",
        DataType::Int8 => "i8",
        DataType::Int16 => "i16",
        DataType::Int32 => "i32",
        DataType::Int64 => "i64",
        DataType::UInt8 => "ui8",
        DataType::UInt16 => "ui16",
        DataType::UInt32 => "ui32",
        DataType::UInt64 => "ui64",
        DataType::Fp8 => "f8E4M3FN",
        DataType::Fp16 => "f16",
        DataType::Bf16 => "bf16",
        DataType::Fp32 => "f32",
        DataType::Fp64 => "f64",
        DataType::Hf4 => "f4E2M1FN",
        DataType::Hf8 => "f8E5M2",
        DataType::Bottom | DataType::Unknown => "none",
    }
}

/// Writes an MLIR float literal (always with a decimal point; hex bits for non-finite values).
fn put_float(out: &mut Out, v: f64) {
    if push_whole_f64(&mut out.text, v) {
        return;
    }
    if !v.is_finite() {
        let _ = write!(out, "0x{:016X}", v.to_bits());
        return;
    }
    let start = out.text.len();
    let _ = write!(out, "{v:?}");
    let lit = &out.text[start..];
    if !lit.contains('.') {
        match lit.find('e') {
            Some(i) => out.text.insert_str(start + i, ".0"),
            None => out.put(".0"),
        }
    }
}

/// An event type's text up to its destination pipe, by its source pipe: the producer op
/// (`TLOAD` for `MTE2`, ...), the scope and the source pipe, spelled whole so that an event
/// type is four pieces instead of nine.
fn event_head(src: PipeKind) -> &'static str {
    macro_rules! head {
        ($op:literal, $pipe:literal) => {
            concat!(
                "!pto.event<producer = #pto.op<",
                $op,
                ">, scope = #pto.scope<intra>, pipes = #pto.pipes<",
                $pipe,
                ", "
            )
        };
    }
    match src {
        PipeKind::Mte2 => head!("TLOAD", "MTE2"),
        PipeKind::Mte1 => head!("TMOV", "MTE1"),
        PipeKind::M => head!("TMATMUL", "M"),
        PipeKind::Fix => head!("TMOV_ACC", "FIX"),
        PipeKind::Mte3 => head!("TSTORE", "MTE3"),
        PipeKind::S => head!("TVEC", "S"),
        PipeKind::V => head!("TVEC", "V"),
        PipeKind::All => head!("TVEC", "ALL"),
    }
}

/// A tile's `loc` and the start of its `layout` entry (`loc = #pto.loc<Vec>, layout =
/// #pto.layout<`), by memory space: one piece instead of three.
fn loc_head(space: MemorySpace) -> &'static str {
    macro_rules! head {
        ($space:literal) => {
            concat!("loc = #pto.loc<", $space, ">, layout = #pto.layout<")
        };
    }
    match space {
        MemorySpace::Ddr => head!("DDR"),
        MemorySpace::Vec => head!("Vec"),
        MemorySpace::Mat => head!("Mat"),
        MemorySpace::Left => head!("Left"),
        MemorySpace::Right => head!("Right"),
        MemorySpace::Acc => head!("Acc"),
        MemorySpace::Bias => head!("Bias"),
    }
}

/// A static offset, or a dynamic one (`-1` in the generic form's `static_offsets`).
fn offset(m: &ProgramModule, a: &Attr) -> (Option<ValueId>, i64) {
    match a {
        Attr::Value(v) => match m.values[*v].constant {
            Some(c) => (None, c.as_i64()),
            None => (Some(*v), -1),
        },
        Attr::Int(i) => (None, *i),
        _ => (None, 0),
    }
}

/// What a tile type's MLIR spelling shows: its shape and dtype.
type TileKey<'a> = (&'a [u64], DataType);

/// Writes the text straight into one [`Out`]: names, types and attributes are spelled in
/// place, never formatted into a `String` of their own first.
///
/// `GENERIC` selects the generic operation form. A parameter rather than a field, so each
/// form's writer is compiled without the other's branches: the macro runs only the custom
/// form, and its code stays smaller and tests fewer conditions.
struct Writer<'a, const GENERIC: bool> {
    m: &'a ProgramModule,
    p: &'a Program,
    out: Out,
    /// Values a `while` body sees under a fresh name: each entry appends `_do` to the
    /// value's name (`%x_3_do`), so the entries of nested loops stack.
    renamed: Vec<ValueId>,
    /// The token number (`%e7`) of each event recorded so far, the most recent one. At most 8
    /// ids per pipe pair occur, so a Vec searched linearly beats hashing.
    tokens: Vec<(Event, u32)>,
    next_token: u32,
    /// The events the current op waits for and records (reused from op to op).
    waits: Vec<Event>,
    records: Vec<Event>,
    next_tmp: u32,
    /// Where each value's name was first written in `out` (`start..end`, empty when it was
    /// not): a value is named at its definition and at every use, and copying is cheaper
    /// than spelling. Text once written is never moved.
    name_at: Vec<(u32, u32)>,
    /// Each value's type, spelled once into `ty_text` ([`Writer::vty_range`]): its range
    /// there (empty when not yet spelled).
    ty_at: Vec<(u32, u32)>,
    ty_text: String,
    /// The shape and dtype of the tile type spelled last into `ty_text`, and its range:
    /// values mostly repeat their neighbours' tile types, and comparing is cheaper than
    /// spelling.
    last_tile: Option<(TileKey<'a>, (u32, u32))>,
}

impl<'a, const GENERIC: bool> Writer<'a, GENERIC> {
    fn new(p: &'a Program) -> Self {
        Writer {
            m: &p.module,
            p,
            // The text averages about 230 bytes per op of the module (its line and its
            // share of the statements'): one allocation for most kernels.
            out: Out::with_capacity(512 + 256 * p.module.ops.len()),
            renamed: Vec::new(),
            // Room for a typical kernel's events and an op's waits and records: no growth
            // step by step as the first ones come.
            tokens: Vec::with_capacity(16),
            next_token: 0,
            waits: Vec::with_capacity(4),
            records: Vec::with_capacity(4),
            next_tmp: 0,
            name_at: vec![(0, 0); p.module.values.len()],
            ty_at: vec![(0, 0); p.module.values.len()],
            // Type texts average well under 32 bytes, and most values share them.
            ty_text: String::with_capacity(16 * p.module.values.len()),
            last_tile: None,
        }
    }

    fn put(&mut self, s: &str) {
        self.out.put(s);
    }

    fn name(&mut self, v: ValueId) {
        let text = &mut self.out.text;
        match self.name_at.get_mut(v.index()) {
            Some(&mut (s, e)) if s < e => text.extend_from_within(s as usize..e as usize),
            at => {
                let start = text.len();
                self.m.write_ssa_name(v, text);
                if let (Some(at), Ok(s), Ok(e)) =
                    (at, u32::try_from(start), u32::try_from(text.len()))
                {
                    *at = (s, e);
                }
            }
        }
        for _ in self.renamed.iter().filter(|&&r| r == v) {
            self.out.put("_do");
        }
    }

    fn names(&mut self, vs: impl IntoIterator<Item = ValueId>) {
        for (i, v) in vs.into_iter().enumerate() {
            self.out.sep(i);
            self.name(v);
        }
    }

    /// `%a: T, %b: U` (block arguments).
    fn typed_names(&mut self, vs: impl IntoIterator<Item = ValueId>) {
        for (i, v) in vs.into_iter().enumerate() {
            self.out.sep(i);
            self.name(v);
            self.put(": ");
            self.vty(v);
        }
    }

    fn token(&self, e: Event) -> Option<u32> {
        self.tokens.iter().find(|(k, _)| *k == e).map(|&(_, t)| t)
    }

    fn put_token(&mut self, t: u32) {
        self.put("%e");
        self.out.put_u64(u64::from(t));
    }

    fn bang(&mut self) {
        if GENERIC {
            self.out.put("!");
        }
    }

    /// `tile<16x256xf32>`: only the shape and dtype show, which [`Writer::ty`]'s memo
    /// relies on.
    fn tile_ty(&mut self, t: &TileType) {
        self.bang();
        self.put("tile<");
        for &d in &t.shape {
            self.out.put_u64(d);
            self.put("x");
        }
        self.put(mlir_dtype(t.dtype));
        self.put(">");
    }

    fn memref_ty(&mut self, t: &TensorType) {
        self.bang();
        self.put("pto.memref<");
        for (i, d) in t.shape.iter().enumerate() {
            if i > 0 {
                self.put("x");
            }
            match d.as_const() {
                Some(c) => self.out.put_u64(c),
                None => self.put("?"),
            }
        }
        self.put("x");
        self.put(mlir_dtype(t.dtype));
        self.put(", strided<[");
        // Row-major: a stride is the product of the extents after it, `?` if one is dynamic.
        for i in 0..t.shape.len() {
            self.out.sep(i);
            let stride = t.shape[i + 1..]
                .iter()
                .try_fold(1u64, |acc, d| acc.checked_mul(d.as_const()?));
            match stride {
                Some(s) => self.out.put_u64(s),
                None => self.put("?"),
            }
        }
        self.put("], offset: ?>>");
    }

    fn spell_ty(&mut self, t: &Type) {
        match t {
            Type::Scalar(d) => self.put(mlir_dtype(*d)),
            Type::Tile(t) => self.tile_ty(t),
            Type::Tensor(t) => self.memref_ty(t),
            Type::Tuple(ts) => {
                self.put("tuple<");
                for (i, t) in ts.iter().enumerate() {
                    self.out.sep(i);
                    self.spell_ty(t);
                }
                self.put(">");
            }
            Type::Pipe(p) => {
                self.put("!pto.pipe<");
                self.put(p.name());
                self.put(">");
            }
            Type::Unknown => self.put("none"),
        }
    }

    /// The range of value `v`'s type text in `ty_text`, spelled there on first use.
    fn vty_range(&mut self, v: ValueId) -> (u32, u32) {
        if let Some(&(s, e)) = self.ty_at.get(v.index())
            && s < e
        {
            return (s, e);
        }
        self.spell_vty(v)
    }

    /// [`Writer::vty_range`] the first time: spells `v`'s type into `ty_text` (or finds the
    /// last tile type's text) and records its range. Kept out of line, so the common copy
    /// does not pay this frame.
    #[inline(never)]
    fn spell_vty(&mut self, v: ValueId) -> (u32, u32) {
        let m = self.m;
        let t = &m.values[v].ty;
        let key = t.as_tile().map(|tt| (tt.shape.as_slice(), tt.dtype));
        let r = match (key, self.last_tile) {
            (Some(k), Some((last, r))) if k == last => r,
            _ => {
                // Spelled by the same writers as the output, into `ty_text` (type spelling
                // writes no names, whose ranges are into `out`).
                std::mem::swap(&mut self.out.text, &mut self.ty_text);
                let start = self.out.text.len();
                self.spell_ty(t);
                let end = self.out.text.len();
                std::mem::swap(&mut self.out.text, &mut self.ty_text);
                let r = match (u32::try_from(start), u32::try_from(end)) {
                    (Ok(s), Ok(e)) => (s, e),
                    _ => (0, 0),
                };
                if let Some(k) = key {
                    self.last_tile = Some((k, r));
                }
                r
            }
        };
        if let Some(at) = self.ty_at.get_mut(v.index()) {
            *at = r;
        }
        r
    }

    /// The type text of a range [`Writer::vty_range`] gave.
    fn ty_str(&self, (s, e): (u32, u32)) -> &str {
        self.ty_text.get(s as usize..e as usize).unwrap_or_default()
    }

    fn vty(&mut self, v: ValueId) {
        let r = self.vty_range(v);
        if r.0 < r.1 {
            self.out.text.push_str(
                self.ty_text
                    .get(r.0 as usize..r.1 as usize)
                    .unwrap_or_default(),
            );
        } else {
            // Not spellable into a range (a text over 4 GiB): spelled in place.
            let m = self.m;
            self.spell_ty(&m.values[v].ty);
        }
    }

    fn vtys(&mut self, vs: impl IntoIterator<Item = ValueId>) {
        for (i, v) in vs.into_iter().enumerate() {
            self.out.sep(i);
            self.vty(v);
        }
    }

    fn event_ty(&mut self, (src, dst, id): Event) {
        self.put(event_head(src));
        self.put(dst.name());
        self.put(">, eid = ");
        self.out.put_u64(u64::from(id));
        self.put(">");
    }

    /// Opens entry number `*n` of an op's attribute dictionary (` {` before the first);
    /// the caller closes a non-empty dictionary.
    fn entry(&mut self, n: &mut usize, key: &str) {
        self.put(if *n == 0 { " {" } else { ", " });
        *n += 1;
        self.put(key);
        self.put(" = ");
    }

    /// `loc`, `layout`, `valid`, `addr` of a tile value, as attribute entries.
    fn tile_attrs(&mut self, v: ValueId, n: &mut usize) {
        let m = self.m;
        let Some(t) = m.values[v].ty.as_tile() else {
            return;
        };
        // The fixed pieces between the entries are written whole.
        match space_of(m, v) {
            Some(space) => {
                self.put(if *n == 0 { " {" } else { ", " });
                self.put(loc_head(space));
                self.put(layout_name(space, &t.shape));
                self.put(">, valid = [");
                *n += 3;
            }
            None => {
                self.entry(n, "valid");
                self.put("[");
            }
        }
        for (i, d) in t.valid.iter().enumerate() {
            self.out.sep(i);
            match d {
                Dim::Const(c) => self.out.put_u64(*c),
                Dim::Value(x) if !GENERIC => self.name(*x),
                _ => self.put(if GENERIC { "-1" } else { "?" }),
            }
        }
        self.put("]");
        if let Some(addr) = addr_of(m, v) {
            // `valid` came before: never the first entry.
            *n += 1;
            self.put(", addr = ");
            self.out.put_u64(addr);
            if GENERIC {
                self.put(" : i64");
            }
        }
    }

    fn run(mut self) -> String {
        let m = self.m;
        let f = &m.funcs[self.p.func];
        let target = self.p.target;
        let params = || f.sig.params.iter().map(|q| q.value);
        let l0 = Level::default();
        let l1 = l0.next();
        let l2 = l1.next();
        self.put("// ");
        self.put(&f.name);
        self.put(" lowered for ");
        self.put(target);
        self.put(": canonicalize, infer-tile-info, insert-events, bufferize\n");
        if GENERIC {
            self.out.line(l0, "\"builtin.module\"() ({");
            self.out.line(l1, "\"func.func\"() ({");
            self.out.indent(l1);
            self.put("^bb0(");
            self.typed_names(params());
            self.put("):\n");
            self.dims(l2);
            self.block(f.body, l2);
            self.out.indent(l1);
            self.put("}) {function_type = (");
            self.vtys(params());
            self.put(") -> (");
            self.rets();
            self.put("), sym_name = \"");
            self.put(&f.name);
            self.put("\"} : () -> ()\n");
            self.put("}) {pto.target = \"");
            self.put(target);
            self.put("\"} : () -> ()\n");
        } else {
            self.put("module attributes {pto.target = #pto.target<");
            self.put(target);
            self.put(">} {\n");
            self.out.indent(l1);
            self.put("func.func @");
            self.put(&f.name);
            self.put("(");
            self.typed_names(params());
            self.put(")");
            if !f.sig.returns.is_empty() {
                self.put(" -> (");
                self.rets();
                self.put(")");
            }
            self.put(" {\n");
            self.dims(l2);
            self.block(f.body, l2);
            self.out.line(l1, "}");
            self.out.line(l0, "}");
        }
        self.out.text
    }

    /// The kernel's return types, comma-separated.
    fn rets(&mut self) {
        let f = &self.m.funcs[self.p.func];
        for (i, t) in f.sig.returns.iter().enumerate() {
            self.out.sep(i);
            self.spell_ty(t);
        }
    }

    /// Symbolic dimensions, read from the first tensor parameter that has them.
    fn dims(&mut self, l: Level) {
        let m = self.m;
        let f = &m.funcs[self.p.func];
        for &d in &f.dims {
            let found = f
                .sig
                .params
                .iter()
                .find_map(|q| match &m.values[q.value].ty {
                    Type::Tensor(t) => t
                        .shape
                        .iter()
                        .position(|x| *x == Dim::Value(d))
                        .map(|k| (q.value, k)),
                    _ => None,
                });
            self.out.indent(l);
            self.name(d);
            match found {
                Some((t, k)) if GENERIC => {
                    self.put(" = \"pto.tensor.dim\"(");
                    self.name(t);
                    self.put(") {dim = ");
                    self.out.put_u64(k as u64);
                    self.put(" : i64} : (");
                    self.vty(t);
                    self.put(") -> ");
                }
                Some((t, k)) => {
                    self.put(" = pto.tensor.dim ");
                    self.name(t);
                    self.put("[");
                    self.out.put_u64(k as u64);
                    self.put("] : ");
                    self.vty(t);
                    self.put(" -> ");
                }
                None if GENERIC => self.put(" = \"pto.undef\"() : () -> "),
                None => self.put(" = pto.undef : "),
            }
            self.vty(d);
            self.out.end();
        }
    }

    fn block(&mut self, b: pto_ir::BlockId, l: Level) {
        let m = self.m;
        for &s in &m.blocks[b].stmts {
            match &m.stmts[s].kind {
                StmtKind::Op(ops) => {
                    for &o in ops {
                        self.op(o, l);
                    }
                }
                StmtKind::For(x) => {
                    let inits = || x.iter_args.iter().map(|a| a.init);
                    self.out.indent(l);
                    self.results_lhs(&x.results);
                    if GENERIC {
                        self.put("\"scf.for\"(");
                        self.names([x.lb, x.ub, x.step].into_iter().chain(inits()));
                        self.put(") ({\n");
                        self.out.indent(l);
                        self.put("^bb0(");
                        self.typed_names(
                            std::iter::once(x.iv).chain(x.iter_args.iter().map(|a| a.arg)),
                        );
                        self.put("):\n");
                        self.block(x.body, l.next());
                        self.out.indent(l);
                        self.put("}) : (");
                        self.vtys([x.lb, x.ub, x.step].into_iter().chain(inits()));
                        self.put(") -> (");
                        self.vtys(x.results.iter().copied());
                        self.put(")\n");
                    } else {
                        self.put("scf.for ");
                        self.name(x.iv);
                        self.put(" = ");
                        self.name(x.lb);
                        self.put(" to ");
                        self.name(x.ub);
                        self.put(" step ");
                        self.name(x.step);
                        if !x.iter_args.is_empty() {
                            self.put(" iter_args(");
                            for (i, a) in x.iter_args.iter().enumerate() {
                                self.out.sep(i);
                                self.name(a.arg);
                                self.put(" = ");
                                self.name(a.init);
                            }
                            self.put(") -> (");
                            self.vtys(x.results.iter().copied());
                            self.put(")");
                        }
                        self.put(" : ");
                        self.vty(x.iv);
                        self.put(" {\n");
                        self.block(x.body, l.next());
                        self.out.line(l, "}");
                    }
                }
                StmtKind::If(x) => {
                    self.out.indent(l);
                    self.results_lhs(&x.results);
                    if GENERIC {
                        self.put("\"scf.if\"(");
                        self.name(x.cond);
                        self.put(") ({\n");
                        self.block(x.then_block, l.next());
                        self.out.line(l, "}, {");
                        self.block(x.else_block, l.next());
                        self.out.indent(l);
                        self.put("}) : (i1) -> (");
                        self.vtys(x.results.iter().copied());
                        self.put(")\n");
                    } else {
                        self.put("scf.if ");
                        self.name(x.cond);
                        if !x.results.is_empty() {
                            self.put(" -> (");
                            self.vtys(x.results.iter().copied());
                            self.put(")");
                        }
                        self.put(" {\n");
                        self.block(x.then_block, l.next());
                        self.out.line(l, "} else {");
                        self.block(x.else_block, l.next());
                        self.out.line(l, "}");
                    }
                }
                StmtKind::While(w) => {
                    let args = || w.iter_args.iter().map(|a| a.arg);
                    self.out.indent(l);
                    self.results_lhs(&w.results);
                    if GENERIC {
                        self.put("\"scf.while\"(");
                        self.names(w.iter_args.iter().map(|a| a.init));
                        self.put(") ({\n");
                        self.out.indent(l);
                        self.put("^bb0(");
                        self.typed_names(args());
                        self.put("):\n");
                    } else {
                        self.put("scf.while (");
                        for (i, a) in w.iter_args.iter().enumerate() {
                            self.out.sep(i);
                            self.name(a.arg);
                            self.put(" = ");
                            self.name(a.init);
                        }
                        self.put(") : (");
                        self.vtys(w.results.iter().copied());
                        self.put(") -> (");
                        self.vtys(w.results.iter().copied());
                        self.put(") {\n");
                    }
                    self.block(w.cond_block, l.next());
                    // The body sees the iter args under fresh names.
                    let saved = self.renamed.len();
                    self.renamed.extend(args());
                    self.out.line(l, if GENERIC { "}, {" } else { "} do {" });
                    self.out.indent(l);
                    self.put("^bb0(");
                    self.typed_names(args());
                    self.put("):\n");
                    self.block(w.body, l.next());
                    if GENERIC {
                        self.out.indent(l);
                        self.put("}) : (");
                        self.vtys(w.results.iter().copied());
                        self.put(") -> (");
                        self.vtys(w.results.iter().copied());
                        self.put(")\n");
                    } else {
                        self.out.line(l, "}");
                    }
                    self.renamed.truncate(saved);
                }
                StmtKind::Condition(c) => {
                    let args: &[pto_ir::IterArg] = match m.blocks[b].owner.map(|o| &m.stmts[o].kind)
                    {
                        Some(StmtKind::While(w)) => &w.iter_args,
                        _ => &[],
                    };
                    let args = || args.iter().map(|a| a.arg);
                    self.out.indent(l);
                    if GENERIC {
                        self.put("\"scf.condition\"(");
                        self.names(std::iter::once(*c).chain(args()));
                        self.put(") : (i1");
                        for a in args() {
                            self.put(", ");
                            self.vty(a);
                        }
                        self.put(") -> ()\n");
                    } else {
                        self.put("scf.condition(");
                        self.name(*c);
                        self.put(")");
                        self.operands_tail(args());
                        self.out.end();
                    }
                }
                StmtKind::Yield(vals) => self.terminator(l, "scf.yield", vals),
                StmtKind::Break(vals) | StmtKind::Continue(vals) => {
                    let word = if matches!(m.stmts[s].kind, StmtKind::Break(_)) {
                        "pto.break"
                    } else {
                        "pto.continue"
                    };
                    self.terminator(l, word, vals);
                    if GENERIC {
                        self.region_end(b, l);
                    }
                }
                StmtKind::Return(vals) => self.terminator(l, "func.return", vals),
                StmtKind::Scope(_, blk) => self.block(*blk, l),
            }
        }
    }

    /// A generic-form `break` / `continue` does not end its region: yields placeholder values
    /// of the types the enclosing region's terminator needs.
    fn region_end(&mut self, b: pto_ir::BlockId, l: Level) {
        let m = self.m;
        let need: Vec<ValueId> = match m.blocks[b].owner.map(|o| &m.stmts[o].kind) {
            Some(StmtKind::If(x)) => x.results.to_vec(),
            Some(StmtKind::For(x)) => x.iter_args.iter().map(|a| a.arg).collect(),
            Some(StmtKind::While(w)) => w.iter_args.iter().map(|a| a.arg).collect(),
            _ => Vec::new(),
        };
        let first = self.next_tmp + 1;
        for &v in &need {
            self.next_tmp += 1;
            self.out.indent(l);
            self.put("%tmp");
            self.out.put_u64(u64::from(self.next_tmp));
            self.put(" = \"pto.undef\"() : () -> ");
            self.vty(v);
            self.out.end();
        }
        self.out.indent(l);
        self.put("\"scf.yield\"(");
        for (i, t) in (first..=self.next_tmp).enumerate() {
            self.out.sep(i);
            self.put("%tmp");
            self.out.put_u64(u64::from(t));
        }
        self.put(") : (");
        self.vtys(need);
        self.put(") -> ()\n");
    }

    /// ` %a, %b : T, U` after a custom-form keyword, nothing when there are no values.
    fn operands_tail(&mut self, vals: impl Iterator<Item = ValueId> + Clone) {
        let mut vals = vals.peekable();
        if vals.peek().is_some() {
            self.put(" ");
            self.names(vals.clone());
            self.put(" : ");
            self.vtys(vals);
        }
    }

    /// `scf.yield`, `func.return`, `pto.break`, `pto.continue`: `KW %a : T` in the custom
    /// form, `"KW"(%a) : (T) -> ()` in the generic one.
    fn terminator(&mut self, l: Level, kw: &str, vals: &[ValueId]) {
        self.out.indent(l);
        if GENERIC {
            self.put("\"");
            self.put(kw);
            self.put("\"(");
            self.names(vals.iter().copied());
            self.put(") : (");
            self.vtys(vals.iter().copied());
            self.put(") -> ()");
        } else {
            self.put(kw);
            self.operands_tail(vals.iter().copied());
        }
        self.out.end();
    }

    fn results_lhs(&mut self, results: &[ValueId]) {
        if !results.is_empty() {
            self.names(results.iter().copied());
            self.put(" = ");
        }
    }

    fn mnemonic(&mut self, op: &Operation) {
        if op.opcode.class() == OpClass::Move {
            let from = op.operands.first().and_then(|&v| space_of(self.m, v));
            let to = op.results.first().and_then(|&v| space_of(self.m, v));
            let short = |s: Option<MemorySpace>| match s {
                Some(MemorySpace::Mat) => "m",
                Some(MemorySpace::Left) => "l",
                Some(MemorySpace::Right) => "r",
                Some(MemorySpace::Acc) => "a",
                Some(MemorySpace::Bias) => "b",
                _ => "v",
            };
            self.put("pto.tile.mov.");
            self.put(short(from));
            self.put("2");
            self.put(short(to));
            return;
        }
        let info = op.opcode.info();
        match info.dialect {
            "" => self.put("pto.constant"),
            "tile" => {
                self.put("pto.tile.");
                // `row_max` is spelled `row.max`: written in parts, not patched afterwards
                // (a replacement in the text moves everything after it).
                for (i, part) in info.mnemonic.split('_').enumerate() {
                    if i > 0 {
                        self.put(".");
                    }
                    self.put(part);
                }
            }
            d => {
                self.put("pto.");
                self.put(d);
                self.put(".");
                self.put(info.mnemonic);
            }
        }
    }

    /// `%c = pto.constant 1.0 : f32`.
    fn constant(&mut self, op: &Operation, l: Level) {
        let m = self.m;
        let Some(&r) = op.results.first() else { return };
        let d = m.values[r].ty.as_scalar().unwrap_or(DataType::Int64);
        let t = mlir_dtype(d);
        self.out.indent(l);
        self.name(r);
        self.put(if GENERIC {
            " = \"pto.constant\"() {value = "
        } else {
            " = pto.constant "
        });
        match m.values[r].constant {
            Some(Constant::Bool(b)) => self.put(if b { "true" } else { "false" }),
            Some(c) if d.is_float() => put_float(&mut self.out, c.as_f64()),
            Some(Constant::SizeT(u)) => self.out.put_u64(u),
            Some(c) => self.out.put_i64(c.as_i64()),
            None => self.put("0"),
        }
        self.put(" : ");
        self.put(t);
        if GENERIC {
            self.put("} : () -> ");
            self.put(t);
        }
        self.out.end();
    }

    /// The op's first result type or, with no results, its first recorded event's type.
    fn first_result_ty(&mut self, op: &Operation, records: &[Event]) {
        match (op.results.first(), records.first()) {
            (Some(&r), _) => self.vty(r),
            (None, Some(&e)) => self.event_ty(e),
            (None, None) => {}
        }
    }

    /// `, E` for each event the op records (their tokens are extra results).
    fn record_tys(&mut self, records: &[Event]) {
        for &e in records {
            self.put(", ");
            self.event_ty(e);
        }
    }

    /// `[%i, 0]`: a custom-form offset list.
    fn offsets(&mut self, offs: &[Attr]) {
        let m = self.m;
        self.put("[");
        for (i, a) in offs.iter().enumerate() {
            self.out.sep(i);
            match offset(m, a) {
                (Some(v), _) => self.name(v),
                (None, c) => self.out.put_i64(c),
            }
        }
        self.put("]");
    }

    /// The attribute entries both forms share: the result tile's, a store's source location,
    /// the op's own attributes. Returns how many were written.
    fn attrs(&mut self, op: &Operation) -> usize {
        let m = self.m;
        let mut n = 0;
        if let Some(&r) = op.results.first() {
            self.tile_attrs(r, &mut n);
        }
        if op.opcode.class() == OpClass::Store
            && let Some(&t) = op.operands.first()
            && let Some(s) = space_of(m, t)
        {
            self.entry(&mut n, "from");
            self.put("#pto.loc<");
            self.put(s.name());
            self.put(">");
        }
        for (k, v) in &op.attrs.0 {
            // The kind first: most attributes are lists, which need no name comparison.
            let shown = matches!(
                v,
                Attr::Ident(_) | Attr::Str(_) | Attr::Int(_) | Attr::Float(_) | Attr::Bool(_)
            ) && !matches!(&**k, "offset" | "set" | "wait" | "sync" | "shape" | "loc");
            if !shown {
                continue;
            }
            self.entry(&mut n, k);
            match v {
                Attr::Ident(s) if k == "dtype" => self.put(mlir_dtype(
                    DataType::from_name(s).unwrap_or(DataType::Unknown),
                )),
                Attr::Ident(s) | Attr::Str(s) => {
                    self.put("\"");
                    self.put(s);
                    self.put("\"");
                }
                Attr::Int(i) => {
                    self.out.put_i64(*i);
                    if GENERIC {
                        self.put(" : i64");
                    }
                }
                Attr::Float(f) => put_float(&mut self.out, *f),
                Attr::Bool(b) => self.put(if *b { "true" } else { "false" }),
                _ => {}
            }
        }
        n
    }

    /// The wait tokens (`%e3, %e5`) of events recorded earlier.
    fn wait_tokens(&mut self, waits: &[Event], first: usize) {
        for (i, &e) in waits.iter().enumerate() {
            if let Some(t) = self.token(e) {
                self.out.sep(first + i);
                self.put_token(t);
            }
        }
    }

    fn op(&mut self, o: OpId, l: Level) {
        let m = self.m;
        let op = &m.ops[o];
        let class = op.opcode.class();
        if class == OpClass::Const {
            self.constant(op, l);
            return;
        }
        // The events this op waits for (those recorded earlier) and records.
        // In buffers kept across ops (most ops have no events, the rest one or two).
        let ev = &self.p.events;
        let mut waits = std::mem::take(&mut self.waits);
        waits.clear();
        let mut records = std::mem::take(&mut self.records);
        records.clear();
        // Most ops have none: one test instead of walking three empty lists.
        if ev.has(o) {
            waits.extend(
                ev.of(o, EventRole::Wait)
                    .filter(|&e| self.token(e).is_some()),
            );
            records.extend(ev.of(o, EventRole::Set).chain(ev.of(o, EventRole::Sync)));
        }
        // Only these classes print offsets: the others need not look the attribute up.
        let offs = match class {
            OpClass::Load | OpClass::Store | OpClass::Extract | OpClass::TileAssemble => op
                .attrs
                .get("offset")
                .and_then(Attr::as_list)
                .unwrap_or(&[]),
            _ => &[],
        };
        self.out.indent(l);
        if !op.results.is_empty() || !records.is_empty() {
            self.names(op.results.iter().copied());
            for i in 0..records.len() {
                self.out.sep(op.results.len() + i);
                self.put_token(self.next_token + i as u32);
            }
            self.put(" = ");
        }
        if GENERIC {
            // Dynamic offsets become operands, all of them a `static_offsets` attribute.
            let with_offsets = matches!(
                class,
                OpClass::Load | OpClass::Store | OpClass::Extract | OpClass::TileAssemble
            );
            let offs = if with_offsets { offs } else { &[] };
            let dynamic = || offs.iter().filter_map(|a| offset(m, a).0);
            let n_operands = op.operands.len() + dynamic().count();
            self.put("\"");
            self.mnemonic(op);
            self.put("\"(");
            self.names(op.operands.iter().copied().chain(dynamic()));
            self.wait_tokens(&waits, n_operands);
            self.put(")");
            let mut n = self.attrs(op);
            if with_offsets {
                self.entry(&mut n, "static_offsets");
                self.put("[");
                for (i, a) in offs.iter().enumerate() {
                    self.out.sep(i);
                    self.out.put_i64(offset(m, a).1);
                }
                self.put("]");
            }
            if !waits.is_empty() {
                self.entry(&mut n, "num_waits");
                self.out.put_u64(waits.len() as u64);
                self.put(" : i64");
            }
            if n > 0 {
                self.put("}");
            }
            self.put(" : (");
            self.vtys(op.operands.iter().copied().chain(dynamic()));
            // Waits are typed by their producers.
            for (i, &e) in waits.iter().enumerate() {
                self.out.sep(n_operands + i);
                self.event_ty(e);
            }
            self.put(") -> ");
            if op.results.len() + records.len() == 1 {
                self.first_result_ty(op, &records);
            } else {
                self.put("(");
                self.vtys(op.results.iter().copied());
                for (i, &e) in records.iter().enumerate() {
                    self.out.sep(op.results.len() + i);
                    self.event_ty(e);
                }
                self.put(")");
            }
        } else {
            self.mnemonic(op);
            self.put(" ");
            match class {
                OpClass::Load => {
                    self.names(op.operands.first().copied());
                    self.offsets(offs);
                }
                OpClass::Store => {
                    self.names(op.operands.iter().take(2).copied());
                    self.offsets(offs);
                }
                OpClass::Extract => {
                    self.names(op.operands.iter().copied());
                    self.offsets(offs);
                }
                _ => self.names(op.operands.iter().copied()),
            }
            if !waits.is_empty() {
                self.put(" wait(");
                self.wait_tokens(&waits, 0);
                self.put(")");
            }
            if self.attrs(op) > 0 {
                self.put("}");
            }
            self.put(" : ");
            match class {
                OpClass::Load => {
                    self.vtys(op.operands.first().copied());
                    self.put(", ");
                    self.first_result_ty(op, &records);
                }
                OpClass::Store => {
                    self.vtys(op.operands.get(1).copied());
                    self.put(", ");
                    self.vtys(op.operands.first().copied());
                }
                _ => {
                    // `A, B -> R`, shortened to `R` when every operand type is spelled like
                    // the result's. (Without a result, `R` is an event type or nothing,
                    // which no operand type is spelled like.)
                    let short = match op.results.first() {
                        Some(&r) if !op.operands.is_empty() => {
                            let want = self.vty_range(r);
                            op.operands.iter().all(|&v| {
                                let have = self.vty_range(v);
                                self.ty_str(have) == self.ty_str(want)
                            })
                        }
                        _ => false,
                    };
                    if !short {
                        self.vtys(op.operands.iter().copied());
                        self.put(" -> ");
                    }
                    self.first_result_ty(op, &records);
                }
            }
            self.record_tys(&records);
        }
        self.out.end();
        for (i, &e) in records.iter().enumerate() {
            let t = self.next_token + i as u32;
            match self.tokens.iter_mut().find(|(k, _)| *k == e) {
                Some(slot) => slot.1 = t,
                None => self.tokens.push((e, t)),
            }
        }
        self.next_token += records.len() as u32;
        self.waits = waits;
        self.records = records;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pre-joined pieces spell the pipes and memory spaces as their `name()`s do.
    #[test]
    fn joined_pieces_spell_names_as_the_ir_does() {
        for p in PipeKind::ALL_KINDS {
            let head = event_head(p);
            assert!(
                head.starts_with("!pto.event<producer = #pto.op<T"),
                "{head}"
            );
            let want = format!(
                ">, scope = #pto.scope<intra>, pipes = #pto.pipes<{}, ",
                p.name()
            );
            assert!(head.ends_with(&want), "{head}");
        }
        for s in MemorySpace::ALL {
            let want = format!("loc = #pto.loc<{}>, layout = #pto.layout<", s.name());
            assert_eq!(loc_head(s), want);
        }
    }
}
