//! Seed-002 MLIR text of a lowered kernel (`shared/spec/ir-text.md` section 2), in two forms:
//! the custom form of `NAME::LOWERED` (`pto.tile.load %x[%i, 0] {loc = #pto.loc<Vec>, ..} :
//! pto.memref<..>, tile<1x128xf32>`, `!pto.event<..>` tokens with `wait(..)`, `scf.for` /
//! `scf.if` / `scf.while`) and MLIR's generic operation form (`"pto.tile.add"(%a, %b) {..} :
//! (..) -> ..`), which stock `mlir-opt --allow-unregistered-dialect` parses.
//!
//! Both are printed from the module after the pass pipeline (SSA values, with each tile's
//! location, layout, valid region and buffer offset, and the events of `insert-events`).
//!
//! The `Writer`'s methods live with what they write: `block` (blocks, regions,
//! terminators) and `op` (one operation).

use std::fmt::Write;

use pto_ir::entity::EntityId;
use pto_ir::typefmt::push_whole_f64;
use pto_ir::{
    Attr, DataType, Dim, MemorySpace, PipeKind, ProgramModule, TensorType, TileType, Type, ValueId,
};

use super::writer::{Level, Out};
use crate::info::{addr_of, layout_name, space_of};
use crate::isa::Program;
use crate::passes::events::Event;

mod block;
mod op;

/// The custom form (`NAME::LOWERED`).
pub fn emit_lowered(p: &Program) -> String {
    let mut text = Writer::<false>::new(p).run();
    // The A2A3 route of a kernel that mixes cube and vector work (`lower/split.rs`), as
    // comments after the function: which instructions run on which core, and the transfers.
    match &p.route {
        crate::lower::split::Route::Split(s) => text.push_str(&s.describe(p)),
        // A refused route is a compile error (`compile.rs`): never printed.
        crate::lower::split::Route::Single | crate::lower::split::Route::Refused { .. } => {}
    }
    // The elementwise chains the `fuse-chains` step marked (`lower/fuse.rs`), which the host
    // code runs as one pass, one comment line each.
    for line in crate::lower::fuse::describe(p).lines() {
        let _ = writeln!(text, "// {line}");
    }
    // The copies the `share-tiles` step marked (`lower/share.rs`), which the host code skips.
    for line in crate::lower::share::describe(p).lines() {
        let _ = writeln!(text, "// {line}");
    }
    text
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
    /// The token number (`%e7`) of each event recorded so far, the most recent one.
    tokens: Vec<(Event, u32)>,
    next_token: u32,
    /// The events the current op waits for and records.
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
            out: Out::default(),
            renamed: Vec::new(),
            tokens: Vec::new(),
            next_token: 0,
            waits: Vec::new(),
            records: Vec::new(),
            next_tmp: 0,
            name_at: vec![(0, 0); p.module.values.len()],
            ty_at: vec![(0, 0); p.module.values.len()],
            ty_text: String::new(),
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
    /// last tile type's text) and records its range.
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
        // The steps that made it: the one pipeline's passes and ISA steps.
        let _ = writeln!(self.out.text, ": {}", crate::pipeline_steps().join(", "));
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
