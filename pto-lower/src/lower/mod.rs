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
//! pass.

pub mod fence;
pub mod fuse;
mod parallel;
pub mod split;

pub(crate) use parallel::slot_use;

use pto_ir::entity::SecondaryMap;
use pto_ir::sem::{Compare, Sem};
use pto_ir::verify::target::Target;
use pto_ir::{
    Attr, BlockId, DataType, Diag, Diagnostics, ForKind, FuncId, IterArg, MemorySpace, OpClass,
    OpId, Opcode, PipeKind, ProgramModule, SpanId, StmtKind, Type, ValueDef, ValueId,
};
use rustc_hash::FxHashMap;

use crate::info::{addr_of, layout_name, space_of, tile_bytes};
use crate::isa::{
    Arg, Args, Index, Inst, Isa, LoopExec, Offsets, Program, RoundMode, TileId, TileRef, TileSlot,
};
use crate::passes::bufferize::module_target;
use crate::passes::events::{EventRole, OpEvents};
use crate::walk::inline_of;

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
        // Kernels have about one slot per three ops (sized once: no rehash as it fills).
        slots: FxHashMap::with_capacity_and_hasher(m.ops.len() / 3 + 4, Default::default()),
        next_at_place: Vec::with_capacity(m.ops.len() / 3 + 4),
        tiles: Vec::with_capacity(m.ops.len() / 3 + 4),
        diags: Vec::new(),
        // Room for a typical kernel's nesting (loops and branches) without regrowth.
        targets: Vec::with_capacity(8),
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

/// One scratch slot per source type of the instructions that need one, all at the first
/// 32-byte boundary past the Vec tiles (where `bufferize` counted the region).
fn scratch_slots(body: &[Inst], tiles: &[TileSlot]) -> Vec<TileSlot> {
    fn walk(insts: &[Inst], tiles: &[TileSlot], addr: u64, out: &mut Vec<TileSlot>) {
        for i in insts {
            match i {
                Inst::Op { isa, args, .. } if isa.needs_scratch() => {
                    let Some(Arg::Tile(TileRef::Slot(s))) = args.first() else {
                        continue;
                    };
                    let Some(src) = tiles.get(s.0 as usize) else {
                        continue;
                    };
                    let same = |t: &TileSlot| {
                        t.dtype == src.dtype && t.rows == src.rows && t.cols == src.cols
                    };
                    if !out.iter().any(same) {
                        out.push(TileSlot {
                            name: format!("scratch{}", out.len()),
                            addr,
                            valid: [Some(src.rows), Some(src.cols)],
                            ..src.clone()
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
    /// the emitters take: Acc to Vec on A2A3 goes through a GM workspace (the C++ emitter).
    /// The message names the move, the target, and the targets that have it.
    fn check_move(&mut self, from: MemorySpace, to: MemorySpace, at: SpanId) {
        let t = module_target(self.m);
        let routed = from == MemorySpace::Acc && to == MemorySpace::Vec;
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
                "`TMOV` from a {} tile to a {} tile is not legal on target {}: {allows}",
                from.name(),
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
        // An op makes one to three instructions (with its events): reserve two per op.
        let ops: usize = stmts
            .iter()
            .map(|&s| match &m.stmts[s].kind {
                StmtKind::Op(ops) => ops.len(),
                _ => 1,
            })
            .sum();
        let mut out = Vec::with_capacity(2 * ops + 1);
        out.extend(first);
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

    fn op(&mut self, o: OpId, out: &mut Vec<Inst>) {
        let m = self.m;
        let op = &m.ops[o];
        let at = op.span;
        // Most ops have no events: one look at the table instead of one per list.
        let has_events = self.events.has(o);
        if has_events {
            for ev in self.events.of(o, EventRole::Wait) {
                out.push(Inst::WaitFlag(ev));
            }
        }
        let class = op.opcode.class();
        let res = op.results.first().copied();
        // A mask is a packed bit tile in the C++: only the instructions that know that layout
        // (compare, select, the bitwise ones, moves) may touch one.
        let is_mask = |v: &ValueId| {
            m.values[*v]
                .ty
                .as_tile()
                .is_some_and(|t| t.dtype == DataType::Bool)
        };
        let mask_ok = matches!(
            op.opcode,
            Opcode::TileAnd | Opcode::TileOr | Opcode::TileXor | Opcode::TileNot | Opcode::TileMove
        ) || matches!(
            class,
            OpClass::TileCompare | OpClass::Select | OpClass::Valid
        );
        if !mask_ok && (op.operands.iter().any(is_mask) || op.results.iter().any(is_mask)) {
            self.err(
                at,
                format!(
                    "`{}` cannot take or give a mask (a tile of bool)",
                    op.opcode
                ),
            );
        }
        let dst = |me: &mut Self| res.map(|r| me.slot(r, at)).unwrap_or(TileId(0));
        let isa_at = |k: usize| op.opcode.info().isa.get(k).copied();
        match class {
            OpClass::Const => {}
            OpClass::Call => self.call(o, out),
            OpClass::ScalarArith
            | OpClass::ScalarCompare
            | OpClass::ScalarLogic
            | OpClass::ScalarBitwise
            | OpClass::ScalarUnary
            | OpClass::ScalarNot
            | OpClass::ScalarBitNot
            | OpClass::ScalarCast => {
                if let Some(r) = res {
                    out.push(Inst::Scalar {
                        op: op.opcode,
                        result: r,
                        args: inline_of(&op.operands),
                    });
                }
            }
            OpClass::TileBinary | OpClass::TileBitwise => self.binary(o, out),
            OpClass::TileUnary | OpClass::TileUnaryFloat | OpClass::TileNot => {
                let d = dst(self);
                let a = self.tref(op.operands[0], at);
                match isa_at(0) {
                    Some(isa) => out.push(Inst::Op { isa, dst: d, args: inline_of(&[Arg::Tile(a)]) }),
                    None => self.err(at, format!("`{}` has no ISA instruction", op.opcode)),
                }
            }
            OpClass::TileCast => {
                let d = dst(self);
                let src = self.tref(op.operands[0], at);
                let word = op.attrs.get("round").and_then(Attr::as_ident);
                let named = word.and_then(RoundMode::from_word);
                if let (Some(w), None) = (word, named) {
                    self.err(at, format!("`tile.cast` has no rounding mode `{w}`"));
                }
                let from = self.m.values[op.operands[0]].ty.dtype();
                let to = op.results.first().and_then(|&r| self.m.values[r].ty.dtype());
                match (from, to) {
                    (Some(from), Some(to)) => match RoundMode::for_cast(from, to, named) {
                        Some(round) => out.push(Inst::Cvt { dst: d, src, round }),
                        // The same dtype and no mode named: the identity, a copy.
                        None => out.push(Inst::Op { isa: Isa::TMov, dst: d, args: inline_of(&[Arg::Tile(src)]) }),
                    },
                    _ => self.err(at, "`tile.cast` of a value that is not a tile"),
                }
            }
            OpClass::TileCompare => self.compare(o, out),
            OpClass::Select => {
                let d = dst(self);
                let (m_, a, b) = (op.operands[0], op.operands[1], op.operands[2]);
                let (rm, ra) = (self.tref(m_, at), self.tref(a, at));
                let (isa, alt) = match m.values[b].ty {
                    Type::Tile(_) => (Isa::TSel, Arg::Tile(self.tref(b, at))),
                    _ => (Isa::TSelS, Arg::Scalar(b)),
                };
                out.push(Inst::Op { isa, dst: d, args: inline_of(&[Arg::Tile(rm), Arg::Tile(ra), alt]) });
            }
            OpClass::Reshape => {
                let d = dst(self);
                let a = self.tref(op.operands[0], at);
                // TRESHAPE reinterprets the buffer, so both shapes must be rows without padding
                // in a vector tile (a row-major Vec tile whose rows are whole 32-byte blocks).
                let unpadded = |v: ValueId| {
                    let t = m.values[v].ty.as_tile();
                    t.is_some_and(|t| t.shape.last().is_some_and(|&c| c * u64::from(t.dtype.bits()) % 256 == 0))
                        && space_of(m, v) == Some(MemorySpace::Vec)
                };
                let (src, res_ok) = (op.operands[0], res.is_some_and(unpadded));
                if !(unpadded(src) && res_ok) {
                    self.err(
                        at,
                        "`reshape` reinterprets a vector tile's buffer (pto-isa's TRESHAPE): both shapes need rows of whole 32-byte blocks (8 f32, 16 f16 columns ...)",
                    );
                }
                out.push(Inst::Op { isa: Isa::TReshape, dst: d, args: inline_of(&[Arg::Tile(a)]) });
            }
            OpClass::RowReduce | OpClass::ColReduce | OpClass::RowArgReduce | OpClass::Transpose => {
                let d = dst(self);
                let a = self.tref(op.operands[0], at);
                match isa_at(0) {
                    Some(isa) => out.push(Inst::Op { isa, dst: d, args: inline_of(&[Arg::Tile(a)]) }),
                    None => self.err(at, format!("`{}` has no ISA instruction", op.opcode)),
                }
            }
            OpClass::RowExpand | OpClass::ColExpand => {
                let d = dst(self);
                let a = self.tref(op.operands[0], at);
                match isa_at(0) {
                    Some(isa) => {
                        out.push(Inst::FullValid(d));
                        out.push(Inst::Op { isa, dst: d, args: inline_of(&[Arg::Tile(a)]) });
                    }
                    None => self.err(at, format!("`{}` has no ISA instruction", op.opcode)),
                }
            }
            OpClass::Matmul | OpClass::MatmulAcc | OpClass::MatmulBias => {
                let d = dst(self);
                let mut args = Args::new();
                for &v in &op.operands {
                    args.push(Arg::Tile(self.tref(v, at)));
                }
                let isa = match class {
                    OpClass::Matmul => Isa::TMatmul,
                    OpClass::MatmulAcc => Isa::TMatmulAcc,
                    _ => Isa::TMatmulBias,
                };
                if class == OpClass::MatmulBias {
                    let acc = m.values[op.results[0]].ty.dtype();
                    if m.values[op.operands[2]].ty.dtype() != acc {
                        self.err(at, "a matmul bias must have the accumulator's dtype (convert it with `.cast::<T>()` first)");
                    }
                }
                out.push(Inst::Op { isa, dst: d, args });
            }
            OpClass::Extract => {
                let d = dst(self);
                let src = self.tref(op.operands[0], at);
                let off = self.index_list(op.attrs.get("offset"), 2, at);
                out.push(Inst::Extract {
                    dst: d,
                    src,
                    at: [off.first().copied().unwrap_or(Index::Const(0)), off.get(1).copied().unwrap_or(Index::Const(0))],
                });
            }
            OpClass::TileAssemble => {
                let (Some(r), [src, into]) = (res, op.operands.as_slice()) else { return };
                self.copy(out, r, *into, at);
                let d = self.slot(r, at);
                let s = self.tref(*src, at);
                let rank = m.values[*into].ty.as_tile().map_or(2, |t| t.shape.len());
                if rank != 2 {
                    self.err(at, "`tile.assemble` is lowered for rank-2 tiles only");
                }
                let off = self.index_list(op.attrs.get("offset"), rank, at);
                out.push(Inst::Insert {
                    dst: d,
                    src: s,
                    at: [off.first().copied().unwrap_or(Index::Const(0)), off.get(1).copied().unwrap_or(Index::Const(0))],
                });
            }
            OpClass::Full => {
                let d = dst(self);
                out.push(Inst::FullValid(d));
                out.push(Inst::Op {
                    isa: Isa::TExpandS,
                    dst: d,
                    args: inline_of(&[Arg::Scalar(op.operands[0])]),
                });
            }
            OpClass::Valid => {
                let Some(r) = res else { return };
                self.copy(out, r, op.operands[0], at);
                let d = self.slot(r, at);
                let dims: Vec<Index> = op.operands[1..]
                    .iter()
                    .map(|&v| match m.values[v].constant {
                        Some(c) => Index::Const(c.as_i64().max(0) as u64),
                        None => Index::Value(v),
                    })
                    .collect();
                let dims = match dims.as_slice() {
                    [c] => [Index::Const(1), *c],
                    [r, c] => [*r, *c],
                    _ => {
                        self.err(at, "`tile.valid` is lowered for rank-1 and rank-2 tiles only");
                        [Index::Const(1), Index::Const(1)]
                    }
                };
                out.push(Inst::SetValid { dst: d, dims });
            }
            OpClass::Load => {
                let d = dst(self);
                let tensor = op.operands[0];
                if !self.is_param(tensor) {
                    self.err(at, "a load must read a tensor parameter of the kernel");
                }
                let rank = m.values[tensor].ty.as_tensor().map_or(0, |t| t.shape.len());
                let offsets = self.index_list(op.attrs.get("offset"), rank, at);
                let window = res.and_then(|r| m.values[r].ty.as_tile()).map(|t| inline_of(t.shape.as_slice())).unwrap_or_default();
                out.push(Inst::Load { dst: d, tensor, offsets, window });
                if op.opcode == Opcode::TileLoadOr
                    && let Some(&pad) = op.operands.get(1)
                {
                    // `TFILLPAD` pads Vec tiles in place (the Mat form pads to the fractal).
                    if res.and_then(|r| space_of(m, r)) != Some(MemorySpace::Vec) {
                        self.err(at, "`load_or` pads a vector tile; a tile for a matmul is loaded with `load`, whose edge the matmul handles through its valid region");
                    }
                    out.push(Inst::Op { isa: Isa::TFillPad, dst: d, args: inline_of(&[Arg::Scalar(pad)]) });
                }
            }
            OpClass::Store => {
                let (tile, tensor) = (op.operands[0], op.operands[1]);
                if !self.is_param(tensor) {
                    self.err(at, "a store must write a tensor parameter of the kernel");
                }
                let src = self.tref(tile, at);
                let rank = m.values[tensor].ty.as_tensor().map_or(0, |t| t.shape.len());
                let offsets = self.index_list(op.attrs.get("offset"), rank, at);
                let window = m.values[tile].ty.as_tile().map(|t| inline_of(t.shape.as_slice())).unwrap_or_default();
                if let (Some(tt), Some(dt)) = (m.values[tile].ty.as_tile(), m.values[tensor].ty.as_tensor())
                    && pto_ir::sem::store::store_needs_acc(tt.dtype, dt.dtype)
                    && space_of(m, tile) != Some(MemorySpace::Acc)
                {
                    self.err(
                        at,
                        format!(
                            "storing {} tile into {} tensor converts, and only a matmul accumulator (an Acc tile) converts on the way out; convert a vector tile first with `.cast::<{}>()`",
                            pto_ir::ops::article(tt.dtype),
                            pto_ir::ops::article(dt.dtype),
                            dt.dtype.rust_name().unwrap_or(dt.dtype.name())
                        ),
                    );
                }
                let add = op.opcode == Opcode::TileStoreAdd;
                out.push(Inst::Store { tensor, add, src, offsets, window });
            }
            OpClass::Move => {
                if let Some(r) = res {
                    self.copy(out, r, op.operands[0], at);
                }
            }
            OpClass::ElementRead | OpClass::ElementWrite => {
                let write = op.opcode.class() == OpClass::ElementWrite;
                let tensor = op.operands[usize::from(write)];
                if !self.is_param(tensor) {
                    self.err(at, "an element access must name a tensor parameter of the kernel");
                }
                let rank = m.values[tensor].ty.as_tensor().map_or(0, |t| t.shape.len());
                let offsets = self.index_list(op.attrs.get("offset"), rank, at);
                match (write, res) {
                    (true, _) => out.push(Inst::Write { tensor, value: op.operands[0], offsets }),
                    (false, Some(result)) => out.push(Inst::Read { result, tensor, offsets }),
                    (false, None) => {}
                }
            }
            OpClass::TensorBinary | OpClass::TensorUnary | OpClass::TensorView | OpClass::TensorAssemble => self.err(
                at,
                format!("tensor-level `{}` cannot run in a tile kernel: tile it into loads, tile ops and stores", op.opcode),
            ),
        }
        if !has_events {
            return;
        }
        for ev in self.events.of(o, EventRole::Set) {
            out.push(Inst::SetFlag(ev));
        }
        for ev in self.events.of(o, EventRole::Sync) {
            out.push(Inst::SetFlag(ev));
            out.push(Inst::WaitFlag(ev));
        }
    }

    fn binary(&mut self, o: OpId, out: &mut Vec<Inst>) {
        let m = self.m;
        let op = &m.ops[o];
        let at = op.span;
        let Some(r) = op.results.first().copied() else {
            return;
        };
        let d = self.slot(r, at);
        let form = |k: usize| op.opcode.info().isa.get(k).copied();
        let (a, b) = (op.operands[0], op.operands[1]);
        let name = op.opcode.info().surface;
        let unsupported = |me: &mut Self, what: &str| {
            me.err(
                at,
                format!("`{}` ({name}) {what} has no PTO-ISA form", op.opcode),
            );
        };
        match (&m.values[a].ty, &m.values[b].ty) {
            (Type::Tile(ta), Type::Tile(tb)) if ta.shape == tb.shape => {
                let (ra, rb) = (self.tref(a, at), self.tref(b, at));
                match form(0) {
                    Some(isa) => out.push(Inst::Op {
                        isa,
                        dst: d,
                        args: inline_of(&[Arg::Tile(ra), Arg::Tile(rb)]),
                    }),
                    None => unsupported(self, "on two tiles"),
                }
            }
            (Type::Tile(ta), Type::Tile(tb)) => {
                let big_first = ta.elements() >= tb.elements();
                let (big, small, small_ty) = if big_first { (a, b, tb) } else { (b, a, ta) };
                let row = small_ty.shape.len() == 2 && small_ty.shape[1] == 1;
                let Some(isa) = form(if row { 2 } else { 3 }) else {
                    return unsupported(self, "with a broadcast operand");
                };
                let (rbig, rsmall) = (self.tref(big, at), self.tref(small, at));
                if big_first || isa_commutes(op.opcode) {
                    out.push(Inst::Op {
                        isa,
                        dst: d,
                        args: inline_of(&[Arg::Tile(rbig), Arg::Tile(rsmall)]),
                    });
                } else if op.opcode == Opcode::TileSub {
                    // r - a = -(a - r)
                    out.push(Inst::Op {
                        isa,
                        dst: d,
                        args: inline_of(&[Arg::Tile(rbig), Arg::Tile(rsmall)]),
                    });
                    self.negate(out, d, &ta.dtype);
                } else if op.opcode == Opcode::TileDiv {
                    // r / a = (1 / a) * r
                    let mul = if row {
                        Isa::TRowExpandMul
                    } else {
                        Isa::TColExpandMul
                    };
                    out.push(Inst::Op {
                        isa: Isa::TRecip,
                        dst: d,
                        args: inline_of(&[Arg::Tile(rbig)]),
                    });
                    out.push(Inst::Op {
                        isa: mul,
                        dst: d,
                        args: inline_of(&[Arg::Tile(TileRef::Slot(d)), Arg::Tile(rsmall)]),
                    });
                } else {
                    unsupported(self, "with the broadcast operand on the left");
                }
            }
            (Type::Tile(_), Type::Scalar(_)) => {
                let ra = self.tref(a, at);
                match form(1) {
                    Some(isa) => out.push(Inst::Op {
                        isa,
                        dst: d,
                        args: inline_of(&[Arg::Tile(ra), Arg::Scalar(b)]),
                    }),
                    None => unsupported(self, "with a scalar"),
                }
            }
            (Type::Scalar(_), Type::Tile(tb)) => {
                let rb = self.tref(b, at);
                let Some(isa) = form(1) else {
                    return unsupported(self, "with a scalar");
                };
                if isa_commutes(op.opcode) {
                    out.push(Inst::Op {
                        isa,
                        dst: d,
                        args: inline_of(&[Arg::Tile(rb), Arg::Scalar(a)]),
                    });
                } else if op.opcode == Opcode::TileSub {
                    // s - a = (-a) + s
                    if tb.dtype.is_unsigned_int() {
                        out.push(Inst::Op {
                            isa: Isa::TNeg,
                            dst: d,
                            args: inline_of(&[Arg::Tile(rb)]),
                        });
                    } else {
                        out.push(Inst::Op {
                            isa: Isa::TMulS,
                            dst: d,
                            args: inline_of(&[Arg::Tile(rb), Arg::Imm(-1.0)]),
                        });
                    }
                    out.push(Inst::Op {
                        isa: Isa::TAddS,
                        dst: d,
                        args: inline_of(&[Arg::Tile(TileRef::Slot(d)), Arg::Scalar(a)]),
                    });
                } else if op.opcode == Opcode::TileDiv {
                    out.push(Inst::Op {
                        isa: Isa::TDivS,
                        dst: d,
                        args: inline_of(&[Arg::Scalar(a), Arg::Tile(rb)]),
                    });
                } else {
                    unsupported(self, "with the scalar on the left");
                }
            }
            _ => unsupported(self, "on these operands"),
        }
    }

    /// `TCMP(mask, a, b, mode)` or `TCMPS(mask, a, s, mode)`; a scalar on the left compares
    /// the other way round (`s < a` is `a > s`).
    fn compare(&mut self, o: OpId, out: &mut Vec<Inst>) {
        let m = self.m;
        let op = &m.ops[o];
        let at = op.span;
        let (Some(r), Sem::Compare(k)) = (op.results.first().copied(), op.opcode.info().sem) else {
            return self.err(at, format!("`{}` is not a comparison", op.opcode));
        };
        let d = self.slot(r, at);
        let (a, b) = (op.operands[0], op.operands[1]);
        let args = match (&m.values[a].ty, &m.values[b].ty) {
            (Type::Tile(_), Type::Tile(_)) => {
                let (ra, rb) = (self.tref(a, at), self.tref(b, at));
                (Isa::TCmp, [Arg::Tile(ra), Arg::Tile(rb), Arg::Cmp(k)])
            }
            (Type::Tile(_), _) => (
                Isa::TCmpS,
                [Arg::Tile(self.tref(a, at)), Arg::Scalar(b), Arg::Cmp(k)],
            ),
            _ => {
                let flipped = match k {
                    Compare::Lt => Compare::Gt,
                    Compare::Le => Compare::Ge,
                    Compare::Gt => Compare::Lt,
                    Compare::Ge => Compare::Le,
                    other => other,
                };
                (
                    Isa::TCmpS,
                    [
                        Arg::Tile(self.tref(b, at)),
                        Arg::Scalar(a),
                        Arg::Cmp(flipped),
                    ],
                )
            }
        };
        out.push(Inst::Op {
            isa: args.0,
            dst: d,
            args: inline_of(&args.1),
        });
    }

    fn negate(&mut self, out: &mut Vec<Inst>, d: TileId, dtype: &DataType) {
        if dtype.is_unsigned_int() {
            out.push(Inst::Op {
                isa: Isa::TNeg,
                dst: d,
                args: inline_of(&[Arg::Tile(TileRef::Slot(d))]),
            });
        } else {
            out.push(Inst::Op {
                isa: Isa::TMulS,
                dst: d,
                args: inline_of(&[Arg::Tile(TileRef::Slot(d)), Arg::Imm(-1.0)]),
            });
        }
    }
}

fn isa_commutes(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::TileAdd
            | Opcode::TileMul
            | Opcode::TileMax
            | Opcode::TileMin
            | Opcode::TileAnd
            | Opcode::TileOr
            | Opcode::TileXor
    )
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
