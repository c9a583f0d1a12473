//! Pass 5, lower to ISA: turns a function of a module that went through the pass pipeline
//! into an [`isa::Program`](crate::isa::Program).
//!
//! Each tile value maps to the slot `bufferize` gave it (location, offset, shape, dtype);
//! values with the same slot share storage. Copies (`TMOV`) appear only at the loop and
//! branch edges `bufferize` could not coalesce. Op forms the ISA lacks are rewritten:
//! `s - a` is `TMULS(d, a, -1); TADDS(d, d, s)` (`TNEG` for unsigned tiles), `s / a` is the
//! scalar-first `TDIVS(d, s, a)`, `r - a` with a broadcast `r` is `TROWEXPANDSUB(d, a, r)`
//! then `TMULS(d, d, -1)`, `r / a` is `TRECIP(d, a)` then `TROWEXPANDMUL(d, d, r)`.
//! The steps after it, in pipeline order: [`fence`] puts the barriers the events pass could
//! not see; [`split`] decides the A2A3 route (one core, or a cube part and a vector part with
//! transfers between them); [`fuse`] marks the elementwise chains the host code runs as one
//! pass, and the broadcasts whose result is only stored ([`pairs`]), written into the store;
//! [`share`] marks the copies (`TMOV`) the host code need not make.

pub mod fence;
pub mod fuse;
mod load_views;
mod ops;
pub mod pairs;
mod parallel;
mod route_text;
mod row_split;
pub mod share;
pub mod split;

pub(crate) use parallel::{row_parts, slot_use};

use pto_ir::entity::SecondaryMap;
use pto_ir::ops::BinaryForm;
use pto_ir::sem::{Compare, Sem};
use pto_ir::verify::target::Target;
use pto_ir::{
    Attr, BlockId, DataType, Diag, Diagnostics, ForKind, FuncId, IterArg, MemorySpace, OpClass,
    OpId, Opcode, PipeKind, ProgramModule, SpanId, StmtKind, Type, ValueDef, ValueId,
};
use rustc_hash::FxHashMap;

use crate::info::{addr_of, buffer_bytes, layout_name, read_rows, space_of, tile_bytes};
use crate::isa::{
    Arg, Args, Index, Inst, Isa, LoopExec, Offsets, Program, RoundMode, TileId, TileRef, TileSlot,
};
use crate::passes::bufferize::module_target;
use crate::passes::events::{EventRole, OpEvents};
use crate::walk::inline_of;

/// Whether `i` synchronises pipes (`set_flag` / `wait_flag` / `pipe_barrier`): the host
/// code's marks (`fuse-chains`, `share-tiles`) look through these, which order nothing on
/// the CPU.
fn is_sync(i: &Inst) -> bool {
    matches!(i, Inst::SetFlag(_) | Inst::WaitFlag(_) | Inst::Barrier(_))
}

/// Lowers function `func` of `m` (after the pass pipeline) to an ISA program, without the
/// barriers of the fence step ([`fence`]), which runs next in the pipeline.
pub fn lower(m: ProgramModule, func: FuncId) -> Result<Program, Diagnostics> {
    let events = OpEvents::from_attrs(&m);
    let target = module_target(&m).name;
    let span = m.funcs.get(func).map_or(SpanId::NONE, |f| f.span);
    let Some(f) = m.funcs.get(func) else {
        return Err(Diag::new(
            SpanId::NONE,
            format!("{func:?} is not a function of the module"),
        )
        .into());
    };
    let mut lw = Lowerer {
        m: &m,
        slot_of: SecondaryMap::with_len(m.values.len(), None),
        slots: FxHashMap::default(),
        next_at_place: Vec::new(),
        tiles: Vec::new(),
        diags: Vec::new(),
        targets: Vec::new(),
        events: &events,
        span: f.span,
    };
    let mut body = lw.block(f.body);
    let Lowerer { tiles, diags, .. } = lw;
    let mut verdicts = Vec::new();
    parallel::decide(&m, &mut body, false, &mut verdicts);
    parallel::spread_over_blocks(&mut body);
    let mut m = m;
    mark_parallel_loops(&mut m, &verdicts);
    let scratch = scratch_slots(&body, &tiles);
    if !diags.is_empty() {
        let mut d = Diagnostics::new();
        for x in diags {
            d.push(x);
        }
        return Err(d);
    }
    let p = Program {
        module: m,
        func,
        target,
        tiles,
        body,
        scratch,
        events,
        span,
        route: split::Route::Single,
    };
    Ok(p)
}

/// Records on each `parallel` loop of `m` whether it runs in parallel (`exec = "parallel"`)
/// or in order (`exec = "sequential"` and `reason`), for `LOWERED` to show.
fn mark_parallel_loops(m: &mut ProgramModule, verdicts: &[(ValueId, Option<String>)]) {
    for (iv, why) in verdicts {
        let ValueDef::Iv(s) = m.values[*iv].def else {
            continue;
        };
        if let StmtKind::For(f) = &mut m.stmts[s].kind {
            match why {
                None => f.attrs.set("exec", Attr::Str("parallel".into())),
                Some(why) => {
                    f.attrs.set("exec", Attr::Str("sequential".into()));
                    f.attrs.set("reason", Attr::Str(why.clone()));
                }
            }
        }
    }
}

/// One scratch slot per scratch type of the instructions that need one
/// ([`scratch_for`]), all at the first 32-byte boundary past the Vec tiles (where
/// `bufferize` counted the region).
fn scratch_slots(body: &[Inst], tiles: &[TileSlot]) -> Vec<TileSlot> {
    fn walk(insts: &[Inst], tiles: &[TileSlot], addr: u64, out: &mut Vec<TileSlot>) {
        for i in insts {
            match i {
                Inst::Op { isa, dst, args } if isa.needs_scratch() => {
                    let Some(Arg::Tile(TileRef::Slot(s))) = args.first() else {
                        continue;
                    };
                    let Some(src) = tiles.get(s.0 as usize) else {
                        continue;
                    };
                    // The scratch has the type the source is read with.
                    let want = match tiles.get(dst.0 as usize) {
                        Some(d) => scratch_for(*isa, src, d),
                        None => scratch_for(*isa, src, src),
                    };
                    let same = |t: &TileSlot| {
                        t.dtype == want.dtype
                            && t.rows == want.rows
                            && t.cols == want.cols
                            && t.layout == want.layout
                    };
                    if !out.iter().any(same) {
                        out.push(TileSlot {
                            name: format!("scratch{}", out.len()),
                            addr,
                            ..want
                        });
                    }
                }
                Inst::For { body, .. } => walk(body, tiles, addr, out),
                Inst::While { cond, body, .. } => {
                    walk(cond, tiles, addr, out);
                    walk(body, tiles, addr, out);
                }
                Inst::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    walk(then_body, tiles, addr, out);
                    walk(else_body, tiles, addr, out);
                }
                _ => {}
            }
        }
    }
    let end = tiles
        .iter()
        .filter(|t| t.space == MemorySpace::Vec)
        .map(|t| t.addr + t.bytes)
        .max()
        .unwrap_or(0);
    let mut out = Vec::new();
    walk(body, tiles, end.div_ceil(32) * 32, &mut out);
    out
}

/// The scratch tile `isa` takes for source slot `src` of destination `dst` (named and placed
/// by the caller): the source's type as the instruction reads it ([`read_rows`]) with every
/// element valid, or the shape [`Isa::scratch_shape`] gives as a row-major Vec tile.
pub(crate) fn scratch_for(isa: Isa, src: &TileSlot, dst: &TileSlot) -> TileSlot {
    let bytes = src.dtype.size_bytes().max(1);
    let read = read_rows(isa, src, dst);
    let [rows, cols] = isa.scratch_shape(read, src.cols, bytes);
    if [rows, cols] == [read, src.cols] {
        return TileSlot {
            rows,
            valid: [Some(rows), Some(cols)],
            bytes: buffer_bytes(src.space, src.layout, src.dtype, rows, cols),
            ..src.clone()
        };
    }
    TileSlot {
        shape: [rows, cols].into(),
        rows,
        cols,
        space: MemorySpace::Vec,
        bytes: (rows * cols * bytes).div_ceil(32) * 32,
        layout: "ND",
        valid: [Some(rows), Some(cols)],
        ..src.clone()
    }
}

/// Where terminators send their values.
#[derive(Clone, Copy)]
enum YieldTarget<'a> {
    /// Iter args of a loop.
    Loop(&'a [IterArg]),
    /// Results of an `if`.
    If(&'a [ValueId]),
}

struct Lowerer<'a> {
    m: &'a ProgramModule,
    /// The slot of each tile value already lowered.
    slot_of: SecondaryMap<ValueId, Option<TileId>>,
    /// The first slot at each (buffer, offset), by `MemorySpace` discriminant and offset
    /// (only looked up, never walked in order: a hash map, Fx for its cheap hash of two ints).
    slots: FxHashMap<(u8, u64), TileId>,
    /// The next slot at the same (buffer, offset) as each slot (one per dtype and shape).
    next_at_place: Vec<Option<TileId>>,
    tiles: Vec<TileSlot>,
    diags: Vec<Diag>,
    targets: Vec<YieldTarget<'a>>,
    events: &'a OpEvents,
    span: SpanId,
}

fn is_tile(m: &ProgramModule, v: ValueId) -> bool {
    matches!(m.values[v].ty, Type::Tile(_))
}

impl<'a> Lowerer<'a> {
    fn err(&mut self, at: SpanId, msg: impl Into<String>) {
        let at = if at.is_some() { at } else { self.span };
        self.diags.push(Diag::new(at, msg));
    }

    fn is_param(&self, v: ValueId) -> bool {
        matches!(self.m.values[v].def, ValueDef::Param(..))
    }

    /// The slot of a tile value (created on first use).
    fn slot(&mut self, v: ValueId, at: SpanId) -> TileId {
        if let Some(id) = self.slot_of[v] {
            // The value's valid extents are already merged into the slot.
            return id;
        }
        match self.place(v, at) {
            Some(id) => {
                self.slot_of[v] = Some(id);
                id
            }
            None => TileId(0),
        }
    }

    /// Finds or creates the slot of a tile value the first time it is lowered; `None`
    /// (reported) when the value has no buffer.
    fn place(&mut self, v: ValueId, at: SpanId) -> Option<TileId> {
        let m = self.m;
        let data = &m.values[v];
        let (Some(t), Some(space), Some(addr)) = (data.ty.as_tile(), space_of(m, v), addr_of(m, v))
        else {
            self.err(
                at,
                format!(
                    "tile {} has no buffer: run the infer-tile-info and bufferize passes first",
                    m.ssa_name(v)
                ),
            );
            return None;
        };
        let (rows, cols) = t.rows_cols();
        let valid: [Option<u64>; 2] = {
            let lead_const = t.valid[..t.valid.len().saturating_sub(1)]
                .iter()
                .all(|d| d.as_const().is_some());
            let rows = if t.shape.len() == 1 {
                Some(1)
            } else if lead_const {
                let p: u64 = t.valid[..t.valid.len() - 1]
                    .iter()
                    .filter_map(|d| d.as_const())
                    .product();
                Some(p.min(rows))
            } else {
                None
            };
            [rows, t.valid.last().and_then(|d| d.as_const())]
        };
        // A padded load's tile is fully valid only after its `TFILLPAD`: its `TLOAD` gives it
        // the window's valid region first, so the slot's valid region changes at run time.
        let padded =
            matches!(data.def, ValueDef::OpResult(o, _) if m.ops[o].opcode == Opcode::TileLoadOr);
        let valid = if padded { [None, None] } else { valid };
        let id = TileId(self.tiles.len() as u32);
        // Walk the chain of slots at this (buffer, offset) for one of the same dtype and
        // shape; failing that, the link that ended the chain now names the slot made below.
        let mut link = self.slots.entry((space as u8, addr)).or_insert(id);
        while *link != id {
            let at = link.0 as usize;
            if let Some(slot) = self.tiles.get_mut(at)
                && slot.dtype == t.dtype
                && slot.shape == t.shape
            {
                for (have, new) in slot.valid.iter_mut().zip(valid) {
                    if *have != new {
                        *have = None;
                    }
                }
                // A row sum's source reserves more (`info::row_sum_rows`).
                slot.bytes = slot.bytes.max(tile_bytes(&data.ty));
                return Some(*link);
            }
            let Some(next) = self.next_at_place.get_mut(at) else {
                break;
            };
            link = next.get_or_insert(id);
        }
        self.next_at_place.push(None);
        let base = data.name.as_deref().unwrap_or_default();
        let mut name = format!("t{}", id.0);
        if !base.is_empty() {
            name.push('_');
            push_sanitized(&mut name, base);
        }
        self.tiles.push(TileSlot {
            name,
            dtype: t.dtype,
            shape: inline_of(&t.shape),
            rows,
            cols,
            space,
            addr,
            bytes: tile_bytes(&data.ty),
            layout: layout_name(space, &t.shape),
            valid,
        });
        Some(id)
    }

    fn tref(&mut self, v: ValueId, at: SpanId) -> TileRef {
        if self.is_param(v) {
            TileRef::Param(v)
        } else {
            TileRef::Slot(self.slot(v, at))
        }
    }

    /// `TMOV(dst, src)` unless they are the same storage; an error when the target has no
    /// route between the two locations.
    fn copy(&mut self, out: &mut Vec<Inst>, dst: ValueId, src: ValueId, at: SpanId) {
        let d = self.slot(dst, at);
        let s = self.tref(src, at);
        if s != TileRef::Slot(d) {
            if let (TileRef::Slot(s), Some(to)) = (s, self.tiles.get(d.0 as usize).map(|t| t.space))
                && let Some(from) = self.tiles.get(s.0 as usize).map(|t| t.space)
            {
                self.check_move(from, to, at);
            }
            out.push(Inst::Op {
                isa: Isa::TMov,
                dst: d,
                args: inline_of(&[Arg::Tile(s)]),
            });
        }
    }

    /// An error unless the target moves a tile from `from` to `to`, directly or by a route
    /// the emitters take: Acc to Vec and Vec to Mat on A2A3 go through a GM slot between
    /// the cube and vector cores (`split.rs`, the C++ emitter). The message names the move,
    /// the target, and the targets that have it.
    fn check_move(&mut self, from: MemorySpace, to: MemorySpace, at: SpanId) {
        let t = module_target(self.m);
        let routed = matches!(
            (from, to),
            (MemorySpace::Acc, MemorySpace::Vec) | (MemorySpace::Vec, MemorySpace::Mat)
        );
        if t.has_move(from, to) || routed {
            return;
        }
        let others: Vec<&str> = Target::ALL
            .iter()
            .filter(|o| o.has_move(from, to))
            .map(|o| o.name)
            .collect();
        let allows = if others.is_empty() {
            "no target has it".to_string()
        } else {
            format!("target {} has it", others.join(" and "))
        };
        self.err(
            at,
            format!(
                "`TMOV` from {} {} tile to {} {} tile is not legal on target {}: {allows}",
                article(from),
                from.name(),
                article(to),
                to.name(),
                t.name
            ),
        );
    }

    fn block(&mut self, b: BlockId) -> Vec<Inst> {
        self.block_after(b, None)
    }

    /// [`Lowerer::block`], after instruction `first` when given.
    fn block_after(&mut self, b: BlockId, first: Option<Inst>) -> Vec<Inst> {
        let m = self.m;
        let stmts = &m.blocks[b].stmts;
        let mut out: Vec<Inst> = first.into_iter().collect();
        for &s in stmts {
            let span = m.stmts[s].span;
            match &m.stmts[s].kind {
                StmtKind::Op(ops) => {
                    for &o in ops {
                        self.op(o, &mut out);
                    }
                }
                StmtKind::For(l) => {
                    let mut carried = Vec::new();
                    for a in &l.iter_args {
                        if is_tile(m, a.arg) {
                            self.copy(&mut out, a.arg, a.init, span);
                        } else {
                            carried.push((a.arg, a.init));
                        }
                    }
                    let body = self.loop_body(l.body, &l.iter_args);
                    let mut results = Vec::new();
                    let mut after = Vec::new();
                    for (a, &r) in l.iter_args.iter().zip(&l.results) {
                        if is_tile(m, r) {
                            self.copy(&mut after, r, a.arg, span);
                        } else {
                            results.push((r, a.arg));
                        }
                    }
                    out.push(Inst::For {
                        iv: l.iv,
                        lb: l.lb,
                        ub: l.ub,
                        step: l.step,
                        carried,
                        body,
                        results,
                        exec: match l.kind {
                            ForKind::Sequential => LoopExec::Sequential,
                            // Decided once the whole kernel is lowered (`parallel.rs`).
                            ForKind::Parallel => LoopExec::Parallel { blocks: false },
                        },
                    });
                    out.extend(after);
                }
                StmtKind::While(w) => {
                    let mut carried = Vec::new();
                    for a in &w.iter_args {
                        if is_tile(m, a.arg) {
                            self.copy(&mut out, a.arg, a.init, span);
                        } else {
                            carried.push((a.arg, a.init));
                        }
                    }
                    self.targets.push(YieldTarget::Loop(&w.iter_args));
                    let cond = self.block(w.cond_block);
                    self.targets.pop();
                    let cond_value =
                        m.blocks[w.cond_block]
                            .stmts
                            .last()
                            .and_then(|&c| match m.stmts[c].kind {
                                StmtKind::Condition(v) => Some(v),
                                _ => None,
                            });
                    let Some(cond_value) = cond_value else {
                        self.err(
                            span,
                            "a `while` condition region must end in `statement.condition`",
                        );
                        continue;
                    };
                    let body = self.loop_body(w.body, &w.iter_args);
                    let mut results = Vec::new();
                    let mut after = Vec::new();
                    for (a, &r) in w.iter_args.iter().zip(&w.results) {
                        if is_tile(m, r) {
                            self.copy(&mut after, r, a.arg, span);
                        } else {
                            results.push((r, a.arg));
                        }
                    }
                    out.push(Inst::While {
                        carried,
                        cond,
                        cond_value,
                        body,
                        results,
                    });
                    out.extend(after);
                }
                StmtKind::If(x) => {
                    self.targets.push(YieldTarget::If(&x.results));
                    let then_body = self.block(x.then_block);
                    let else_body = self.block(x.else_block);
                    self.targets.pop();
                    out.push(Inst::If {
                        cond: x.cond,
                        then_body,
                        else_body,
                        results: x
                            .results
                            .iter()
                            .copied()
                            .filter(|&r| !is_tile(m, r))
                            .collect(),
                    });
                }
                StmtKind::Yield(vals) => match self.targets.last().copied() {
                    Some(YieldTarget::Loop(args)) => {
                        self.exit_copies(&mut out, args.iter().map(|a| a.arg), vals, span)
                    }
                    Some(YieldTarget::If(results)) => {
                        self.exit_copies(&mut out, results.iter().copied(), vals, span)
                    }
                    None => {}
                },
                StmtKind::Break(vals) | StmtKind::Continue(vals) => {
                    let innermost_loop = self.targets.iter().rev().find_map(|t| match t {
                        YieldTarget::Loop(args) => Some(*args),
                        YieldTarget::If(_) => None,
                    });
                    if let Some(args) = innermost_loop {
                        self.exit_copies(&mut out, args.iter().map(|a| a.arg), vals, span);
                    }
                    out.push(if matches!(m.stmts[s].kind, StmtKind::Break(_)) {
                        Inst::Break
                    } else {
                        Inst::Continue
                    });
                }
                StmtKind::Condition(_) => {}
                StmtKind::Return(vals) => out.push(Inst::Return(vals.to_vec())),
                StmtKind::Scope(_, blk) => {
                    let inner = self.block(*blk);
                    out.extend(inner);
                }
            }
        }
        out
    }

    fn loop_body(&mut self, body: BlockId, args: &'a [IterArg]) -> Vec<Inst> {
        self.targets.push(YieldTarget::Loop(args));
        // The previous iteration's tile work (on any pipe) completes before this one's. Most
        // loop bodies issue tile work: the barrier goes in first and leaves when there is
        // none, rather than being inserted in front of the whole body.
        let mut insts = self.block_after(body, Some(Inst::Barrier(PipeKind::All)));
        self.targets.pop();
        if !has_tile_work(insts.get(1..).unwrap_or_default()) {
            insts.remove(0);
        }
        insts
    }

    fn exit_copies(
        &mut self,
        out: &mut Vec<Inst>,
        targets: impl Iterator<Item = ValueId>,
        vals: &[ValueId],
        at: SpanId,
    ) {
        let mut scalars = Vec::new();
        for (t, &v) in targets.zip(vals) {
            if t == v {
                continue;
            }
            if is_tile(self.m, t) {
                self.copy(out, t, v, at);
            } else {
                scalars.push((t, v));
            }
        }
        if !scalars.is_empty() {
            out.push(Inst::Assign(scalars));
        }
    }

    fn index_list(&mut self, attr: Option<&Attr>, rank: usize, at: SpanId) -> Offsets {
        let m = self.m;
        let items = attr.and_then(Attr::as_list).unwrap_or(&[]);
        if items.len() != rank {
            self.err(at, format!("expected {rank} offsets"));
        }
        // Pushed one by one: a `collect` goes through `SmallVec`'s general `extend`.
        let mut offsets = Offsets::new();
        for a in items {
            let c = match a {
                Attr::Int(v) => Some(*v),
                Attr::Value(v) => m.values[*v].constant.map(|c| c.as_i64()),
                _ => Some(0),
            };
            // A constant the passes folded (`0 - 1`) can be negative where the verifier saw
            // a runtime value.
            if let Some(c) = c.filter(|&c| c < 0) {
                self.err(at, format!("offset {c} is negative"));
            }
            offsets.push(match (a, c) {
                (_, Some(c)) => Index::Const(c.max(0) as u64),
                (Attr::Value(v), None) => Index::Value(*v),
                _ => Index::Const(0),
            });
        }
        offsets
    }

    /// `func.call`: scalars and the caller's tensor parameters are passed on; the callee is
    /// lowered on its own (a tile has no storage shared between two functions yet).
    fn call(&mut self, o: OpId, out: &mut Vec<Inst>) {
        let m = self.m;
        let op = &m.ops[o];
        let callee = match op.attrs.get("callee") {
            Some(Attr::Symbol(s) | Attr::Str(s) | Attr::Ident(s)) => s.to_string(),
            _ => return self.err(op.span, "`func.call` needs a `callee` symbol"),
        };
        for &v in &op.operands {
            match &m.values[v].ty {
                Type::Scalar(_) => {}
                Type::Tensor(_) if matches!(m.values[v].def, ValueDef::Param(..)) => {}
                Type::Tensor(_) => {
                    return self.err(
                        op.span,
                        format!("`@{callee}` is passed a tensor that is not a parameter of the caller; only parameters are lowered as call arguments"),
                    );
                }
                _ => {
                    return self.err(
                        op.span,
                        format!("`@{callee}` is passed a tile: tile arguments of a call are not lowered yet; pass the tensor and load the tile in the callee"),
                    );
                }
            }
        }
        out.push(Inst::Call {
            callee,
            args: op.operands.to_vec(),
            results: op.results.to_vec(),
        });
    }
}

fn has_tile_work(insts: &[Inst]) -> bool {
    insts.iter().any(|i| match i {
        Inst::Scalar { .. } | Inst::Assign(_) | Inst::Break | Inst::Continue | Inst::Return(_) => {
            false
        }
        // The callee's tile work is its own: it starts and ends inside the call.
        Inst::Call { .. } => false,
        Inst::For { body, .. } => has_tile_work(body),
        Inst::While { cond, body, .. } => has_tile_work(cond) || has_tile_work(body),
        Inst::If {
            then_body,
            else_body,
            ..
        } => has_tile_work(then_body) || has_tile_work(else_body),
        _ => true,
    })
}

/// Appends `s` made safe as part of an identifier in Rust and C++ (`[a-z0-9_]`) to `out`.
pub(crate) fn push_sanitized(out: &mut String, s: &str) {
    // Most names are snake case already: copied whole rather than pushed char by char.
    if s.bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    {
        out.push_str(s);
        return;
    }
    out.extend(s.chars().map(|c| {
        if c.is_ascii_alphanumeric() || c == '_' {
            c.to_ascii_lowercase()
        } else {
            '_'
        }
    }));
}

/// `an` before a location name that starts with a vowel (`an Acc tile`), else `a`.
fn article(space: MemorySpace) -> &'static str {
    if space.name().starts_with(['A', 'E', 'I', 'O', 'U']) {
        "an"
    } else {
        "a"
    }
}
