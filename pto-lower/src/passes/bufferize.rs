//! Pass 4, bufferize (seed 002 section 8 step 6): gives every tile value a 32-byte-aligned
//! byte offset in the buffer of its location, sharing space between tiles whose lifetimes
//! do not overlap.
//!
//! 1. **Live intervals.** Statements are numbered in program order, two positions per op:
//!    operands are read at `2k`, results are written at `2k + 1` when the op may write over
//!    one of its operands (elementwise, `matmul_acc`, `valid`), at `2k` otherwise (so the
//!    result never shares storage with an operand). A value defined outside a loop and used
//!    inside is live until the loop ends (it must survive the back edge). In this structured
//!    SSA form every value's live range is one interval `[def, last use]`.
//! 2. **Coalescing.** The values a loop carries (init, iter arg, each yielded value, result)
//!    and an `if`'s results with their yields join one storage class when their intervals are
//!    disjoint, so loop-carried tiles (a split-K accumulator) need no copies. When a join is
//!    refused, the lowering copies (`TMOV`) at that edge, and the copy's position is added to
//!    the target class so that parallel copies never clobber each other's sources.
//! 3. **Allocation.** Per buffer, classes in order of first use are placed first-fit at the
//!    lowest 32-byte-aligned offset that overlaps no live class (linear-scan style, after
//!    PyPTO's BasicMemoryReuse + AllocateMemoryAddr). A class of another shape or dtype
//!    never takes over storage at the very position another one dies. A class holding a
//!    row sum's source takes the rows the C++ reads it with (`info::row_sum_rows`), when
//!    they are more than its own.
//! 4. **Capacity.** A buffer whose peak exceeds the target's capacity is an error naming the
//!    buffer, the bytes needed and the capacity. On A2A3 a kernel whose lowering has a row
//!    broadcast (`TROWEXPANDSUB` ... with a column operand) has 184 KiB of Vec, not 192:
//!    pto-isa's A2A3 row broadcasts write an 8 KiB temporary at the fixed address 184 KiB
//!    (`Target::fixed_temp` says which instructions and where, and from which headers), so
//!    no tile or scratch tile may lie there; the error then names the instruction.

use pto_ir::entity::{EntityId, SecondaryMap};
use pto_ir::verify::target::{Target, buffer_name, target};
use pto_ir::{
    Attr, BlockId, Diag, Diagnostics, FuncId, MemorySpace, OpClass, Opcode, ProgramModule, SpanId,
    StmtId, StmtKind, ValueDef, ValueId,
};

use super::Pass;
use crate::info::{
    row_broadcast_isa, row_sum_source_bytes, scratch_bytes, set_addr, set_reserved, space_of,
    tile_bytes,
};
use crate::isa::Isa;
use crate::walk;

/// The bufferize pass.
pub struct Bufferize;

impl Pass for Bufferize {
    fn name(&self) -> &'static str {
        "bufferize"
    }

    fn requires(&self) -> &'static [&'static str] {
        &["infer-tile-info"]
    }

    fn run(&self, m: &mut ProgramModule) -> Result<(), Diagnostics> {
        let t = module_target(m);
        let mut diags = Vec::new();
        // By index: the pass changes the module, never its function list (no copy of it).
        for k in 0..m.functions.len() {
            let f = m.functions[k];
            if let Err(d) = run_function(m, f, &t) {
                diags.extend(d);
            }
        }
        let mut out = Diagnostics::new();
        for d in diags {
            out.push(d);
        }
        out.into_result()
    }
}

/// The module's target (attribute `arch`, default `PTOv2` = A2A3).
pub fn module_target(m: &ProgramModule) -> Target {
    let name = match m.attrs.get("arch") {
        Some(Attr::Str(s)) | Some(Attr::Ident(s)) => s.as_str(),
        _ => pto_ir::verify::target::DEFAULT_ARCH,
    };
    target(name).unwrap_or(Target::A2A3)
}

/// Whether an op may write its result over one of its operands. Not the remainders:
/// pto-isa's A2A3 `TREM` / `TREMS` / `TFMOD` (`npu/a2a3/TRem.hpp`, `TRemS.hpp`, `TFmod.hpp`)
/// write partial results into the destination and then read their sources again, so a
/// destination sharing a source's storage gives 0 (or skips the sign correction). Nor
/// `xor`: A2A3's `TXOR` / `TXORS` (`npu/a2a3/TXor.hpp`, `TBitwiseSOp.hpp`) assert that the
/// destination, the sources and `tmp` are all in different memory.
fn in_place_capable(op: Opcode) -> bool {
    if matches!(
        op,
        Opcode::TileRem | Opcode::TileFMod | Opcode::TileFloorMod | Opcode::TileXor
    ) {
        return false;
    }
    matches!(
        op.class(),
        OpClass::TileBinary
            | OpClass::TileBitwise
            | OpClass::TileUnary
            | OpClass::TileUnaryFloat
            | OpClass::TileNot
            | OpClass::MatmulAcc
            | OpClass::Valid
    )
}

fn is_tile(m: &ProgramModule, v: ValueId) -> bool {
    m.values[v].ty.as_tile().is_some()
}

/// Loop index in [`Live::loops`].
type LoopIdx = u32;

/// Only tile values are recorded (definitions and uses): nothing else needs a buffer, and
/// most uses in a kernel are of scalars (offsets, bounds).
struct Live {
    /// `[definition position, definition position]` of each tile value during the walk,
    /// `[definition, last use]` (loop-extended) after [`Live::extend_to_uses`].
    interval: SecondaryMap<ValueId, Option<(u32, u32)>>,
    /// Tile values with a definition position, in program order.
    defined: Vec<ValueId>,
    /// (tile value, use position, innermost loop enclosing the use).
    uses: Vec<(ValueId, u32, Option<LoopIdx>)>,
    /// (start, end, enclosing loop) of each loop, by index.
    loops: Vec<(u32, u32, Option<LoopIdx>)>,
    /// Position of each statement (its uses).
    pos: SecondaryMap<StmtId, Option<u32>>,
    /// Loops and ifs in post-order (children first).
    post: Vec<StmtId>,
    /// The positions of each `if`'s then block and else block (first, last), for the holes
    /// of [`Live::holes`].
    ifs: Vec<((u32, u32), (u32, u32))>,
    t: u32,
}

impl Live {
    fn new(m: &ProgramModule) -> Self {
        Live {
            interval: SecondaryMap::with_len(m.values.len(), None),
            defined: Vec::with_capacity(m.values.len()),
            // About one tile use per op (the other uses are of scalars).
            uses: Vec::with_capacity(m.ops.len()),
            // Room for a typical kernel's loops and ifs: no regrowth.
            loops: Vec::new(),
            pos: SecondaryMap::with_len(m.stmts.len(), None),
            post: Vec::new(),
            ifs: Vec::new(),
            t: 0,
        }
    }

    fn define(&mut self, m: &ProgramModule, v: ValueId, at: u32) {
        if !is_tile(m, v) {
            return;
        }
        if self.interval[v].is_none() {
            self.defined.push(v);
        }
        self.interval[v] = Some((at, at));
    }

    fn use_at(&mut self, m: &ProgramModule, v: ValueId, at: u32, inner: Option<LoopIdx>) {
        if is_tile(m, v) {
            self.uses.push((v, at, inner));
        }
    }

    fn walk(&mut self, m: &ProgramModule, b: BlockId, inner: Option<LoopIdx>) {
        for &s in &m.blocks[b].stmts {
            let u = self.t;
            self.pos[s] = Some(u);
            let kind = &m.stmts[s].kind;
            if let StmtKind::Op(ops) = kind {
                for &o in ops {
                    let op = &m.ops[o];
                    let u = self.t;
                    // An operand given twice must not share storage with the result.
                    let operands = &op.operands;
                    let mut dup = false;
                    for (i, &a) in operands.iter().enumerate() {
                        if is_tile(m, a) {
                            dup |= operands[..i].contains(&a);
                            self.uses.push((a, u, inner));
                        }
                    }
                    op.attrs
                        .for_each_value(&mut |v| self.use_at(m, v, u, inner));
                    let d = if in_place_capable(op.opcode) && !dup {
                        u + 1
                    } else {
                        u
                    };
                    for &r in &op.results {
                        self.define(m, r, d);
                    }
                    self.t += 2;
                }
                continue;
            }
            kind.for_each_use(|v| self.use_at(m, v, u, inner));
            self.t += 2;
            match kind {
                StmtKind::For(_) | StmtKind::While(_) => {
                    let (args, results) = match kind {
                        StmtKind::For(l) => {
                            self.define(m, l.iv, u + 1);
                            (&l.iter_args, &l.results)
                        }
                        StmtKind::While(w) => (&w.iter_args, &w.results),
                        _ => continue,
                    };
                    for a in args {
                        self.define(m, a.arg, u + 1);
                    }
                    let li = self.loops.len();
                    self.loops.push((u, u, inner));
                    for child in kind.blocks() {
                        self.walk(m, child, Some(li as LoopIdx));
                    }
                    let end = self.t;
                    self.t += 2;
                    self.loops[li].1 = end;
                    for &r in results {
                        self.define(m, r, end + 1);
                    }
                    self.post.push(s);
                }
                StmtKind::If(x) => {
                    let then_start = self.t;
                    self.walk(m, x.then_block, inner);
                    let else_start = self.t;
                    self.walk(m, x.else_block, inner);
                    let end = self.t;
                    // Blocks start past the `if`'s own position (so `start >= 2`); an empty
                    // block is `(start, start - 1)`, which contains no position.
                    self.ifs
                        .push(((then_start, else_start - 1), (else_start, end - 1)));
                    self.t += 2;
                    for &r in &x.results {
                        self.define(m, r, end + 1);
                    }
                    self.post.push(s);
                }
                StmtKind::Scope(_, blk) => self.walk(m, *blk, inner),
                _ => {}
            }
        }
    }

    /// Extends each interval to `[def, last use]`, loop-extended.
    fn extend_to_uses(&mut self) {
        let Live {
            interval,
            uses,
            loops,
            ..
        } = self;
        for &(v, u, inner) in uses.iter() {
            let Some((d, _)) = interval[v] else { continue };
            let mut last = u;
            let mut li = inner;
            while let Some(i) = li {
                let (start, end, outer) = loops[i as usize];
                li = outer;
                if d > start {
                    continue; // defined inside the loop
                }
                // The loop encloses the use but not the definition: live through the loop.
                last = last.max(end);
            }
            if let Some(e) = &mut interval[v] {
                e.1 = e.1.max(last);
            }
        }
    }
}

impl Live {
    /// The parts of the intervals where a value is dead although its interval covers them,
    /// sorted by value: the then block of an `if` when the value, defined before the `if`,
    /// is last used in its else block and not used in its then block. The branches exclude
    /// each other, so the then block may reuse the value's storage; this is what lets a
    /// split-K accumulator carried through `if k == 0 { matmul } else { matmul_acc }` keep
    /// one slot (no `TMOV` Acc -> Acc, which no target has).
    fn holes(&self) -> Vec<(ValueId, (u32, u32))> {
        let mut holes = Vec::new();
        if self.ifs.is_empty() {
            return holes;
        }
        for &v in &self.defined {
            let Some((d, last)) = self.interval[v] else {
                continue;
            };
            for &(then, other) in &self.ifs {
                if d < then.0 && then.0 <= then.1 && other.0 <= last && last <= other.1 {
                    holes.push((v, then));
                }
            }
        }
        holes.sort_unstable_by_key(|&(v, h)| (v.index(), h));
        // A value used in the then block is live there.
        let mut used = vec![false; holes.len()];
        for &(v, p, _) in &self.uses {
            let from = holes.partition_point(|h| h.0.index() < v.index());
            for (k, h) in holes.iter().enumerate().skip(from) {
                if h.0 != v {
                    break;
                }
                if h.1.0 <= p && p <= h.1.1 {
                    used[k] = true;
                }
            }
        }
        let mut k = 0;
        holes.retain(|_| {
            k += 1;
            !used[k - 1]
        });
        holes
    }
}

/// Storage classes: union-find over the tracked tile values.
struct Classes {
    /// Per value, its place in the classes.
    node: SecondaryMap<ValueId, Node>,
    /// The intervals of every class, each class's linked through `Span::next`, so a union
    /// splices two lists instead of copying one.
    spans: Vec<Span>,
    /// The tracked values, in program order.
    members: Vec<ValueId>,
}

/// What [`Classes`] keeps per value.
#[derive(Clone, Copy, Default)]
struct Node {
    /// The value's parent (itself for a root); `None` for untracked values.
    parent: Option<ValueId>,
    /// The first and last of a root's intervals in `spans` (`None` for other values).
    chain: Option<(u32, u32)>,
    /// A placed root's byte offset in its buffer (set by [`allocate`]).
    offset: Option<u64>,
}

/// One interval of a class, and the index of the class's next one.
#[derive(Clone, Copy)]
struct Span {
    start: u32,
    end: u32,
    next: Option<u32>,
}

impl Classes {
    fn new(m: &ProgramModule) -> Self {
        Classes {
            node: SecondaryMap::with_len(m.values.len(), Node::default()),
            spans: Vec::with_capacity(m.values.len()),
            members: Vec::with_capacity(m.values.len()),
        }
    }

    /// Starts tracking `v` as a class of its own, live over `iv` except in `holes`
    /// (disjoint, sorted).
    fn track(&mut self, v: ValueId, (start, end): (u32, u32), holes: &[(u32, u32)]) {
        self.node[v].parent = Some(v);
        self.members.push(v);
        let mut from = start;
        for &(a, b) in holes {
            if a > from {
                self.push_span(v, (from, a - 1));
            }
            from = from.max(b + 1);
        }
        if from <= end {
            self.push_span(v, (from, end));
        }
    }

    fn tracked(&self, v: ValueId) -> bool {
        self.node[v].parent.is_some()
    }

    fn find(&self, mut v: ValueId) -> ValueId {
        while let Some(p) = self.node[v].parent {
            if p == v {
                break;
            }
            v = p;
        }
        v
    }

    /// The intervals of root `r`'s class.
    fn spans_of(&self, r: ValueId) -> impl Iterator<Item = (u32, u32)> + '_ {
        let mut at = self.node[r].chain.map(|(first, _)| first);
        std::iter::from_fn(move || {
            let span = self.spans.get(at? as usize)?;
            at = span.next;
            Some((span.start, span.end))
        })
    }

    /// Appends an interval to root `r`'s class.
    fn push_span(&mut self, r: ValueId, (start, end): (u32, u32)) {
        let i = self.spans.len() as u32;
        self.spans.push(Span {
            start,
            end,
            next: None,
        });
        self.node[r].chain = match self.node[r].chain {
            Some((first, last)) => {
                if let Some(tail) = self.spans.get_mut(last as usize) {
                    tail.next = Some(i);
                }
                Some((first, i))
            }
            None => Some((i, i)),
        };
    }

    /// Whether an interval of root `a`'s class comes within `gap` of one of root `b`'s.
    fn overlap(&self, a: ValueId, b: ValueId, gap: u32) -> bool {
        self.spans_of(a).any(|(s1, e1)| {
            self.spans_of(b)
                .any(|(s2, e2)| s1 <= e2 + gap && s2 <= e1 + gap)
        })
    }

    fn try_union(&mut self, m: &ProgramModule, a: ValueId, b: ValueId) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return true;
        }
        if !self.tracked(ra) || !self.tracked(rb) {
            return false;
        }
        // The buffer first: comparing shapes costs more.
        if space_of(m, a) != space_of(m, b) {
            return false;
        }
        let same_type = m.values[a].ty.as_tile().map(|t| (&t.shape, t.dtype))
            == m.values[b].ty.as_tile().map(|t| (&t.shape, t.dtype));
        if !same_type || self.overlap(ra, rb, 0) {
            return false;
        }
        // Splice `rb`'s intervals after `ra`'s.
        if let (Some((first, last)), Some((b_first, b_last))) =
            (self.node[ra].chain, self.node[rb].chain)
        {
            if let Some(tail) = self.spans.get_mut(last as usize) {
                tail.next = Some(b_first);
            }
            self.node[ra].chain = Some((first, b_last));
        }
        self.node[rb].chain = None;
        self.node[rb].parent = Some(ra);
        true
    }

    fn add_point(&mut self, v: ValueId, p: u32) {
        let r = self.find(v);
        if self.tracked(r) {
            self.push_span(r, (p, p));
        }
    }
}

fn run_function(m: &mut ProgramModule, f: FuncId, target: &Target) -> Result<(), Vec<Diag>> {
    let mut live = Live::new(m);
    live.walk(m, m.funcs[f].body, None);
    live.extend_to_uses();
    // Placement needs every tile's buffer: without `infer-tile-info` there is nothing to
    // place, and an empty result would look like success.
    let unplaced: Vec<ValueId> = live
        .defined
        .iter()
        .copied()
        .filter(|&v| {
            !matches!(m.values[v].def, ValueDef::Param(..))
                && m.values[v].ty.as_tile().is_some()
                && space_of(m, v).is_none()
        })
        .collect();
    if let Some(&v) = unplaced.first() {
        return Err(vec![
            Diag::new(
                def_span(m, v),
                format!(
                    "bufferize needs every tile's location, but {} (and {} more tile value(s)) has none",
                    m.ssa_name(v),
                    unplaced.len() - 1
                ),
            )
            .note("run `infer-tile-info` before `bufferize` (the lowering pipeline does)"),
        ]);
    }
    let intervals = &live.interval;
    let holes = live.holes();
    let mut classes = Classes::new(m);
    for &v in &live.defined {
        let Some(iv) = intervals[v] else { continue };
        // Parameters live in global memory, not in a buffer.
        if !matches!(m.values[v].def, ValueDef::Param(..)) && space_of(m, v).is_some() {
            let from = holes.partition_point(|h| h.0.index() < v.index());
            let to = from + holes[from..].partition_point(|h| h.0 == v);
            // Sorted by value, then by position.
            let mine: Vec<(u32, u32)> = holes[from..to].iter().map(|h| h.1).collect();
            classes.track(v, iv, &mine);
        }
    }
    coalesce(m, &live, intervals, &mut classes);
    // A class holding a row sum's source reserves the rows the C++ reads it with.
    let mut reserve = SecondaryMap::with_len(m.values.len(), 0u64);
    for (v, bytes) in row_sum_sources(m, f) {
        if classes.tracked(v) {
            let r = classes.find(v);
            reserve[r] = reserve[r].max(bytes);
        }
    }
    let placed = allocate(m, &mut classes, &reserve);
    for &v in &classes.members {
        let r = classes.find(v);
        if let Some(off) = classes.node[r].offset {
            set_addr(m, v, off);
            if reserve[r] > 0 {
                set_reserved(m, v, reserve[r]);
            }
        }
    }
    // Capacity: each buffer's peak (the end of its highest class), in one walk of the
    // placed classes rather than one per buffer.
    let mut peak = [0u64; MemorySpace::ALL.len()];
    // Every space indexes the table by its discriminant.
    const _: () = {
        let mut i = 0;
        while i < MemorySpace::ALL.len() {
            assert!((MemorySpace::ALL[i] as usize) < MemorySpace::ALL.len());
            i += 1;
        }
    };
    for &(_, space, off, size) in &placed {
        if let Some(p) = peak.get_mut(space as usize) {
            *p = (*p).max(off + size);
        }
    }
    // The scratch tile of row reductions and transposes sits past the Vec tiles
    // (`info::scratch_bytes`; the lowering places it there).
    if let Some(p) = peak.get_mut(MemorySpace::Vec as usize) {
        let scratch = scratch_bytes(m, f);
        if scratch > 0 {
            *p = p.div_ceil(32) * 32 + scratch;
        }
    }
    let mut diags = Vec::new();
    for space in MemorySpace::ALL {
        let Some(cap) = target.capacity(space) else {
            continue;
        };
        let temp = fixed_temp(m, f, target, space);
        // The fixed temporaries sit at the top of their buffer: the tiles end below them.
        let limit = temp.as_ref().map_or(cap, |(_, r)| r.start.min(cap));
        let need = peak.get(space as usize).copied().unwrap_or(0);
        if need > limit {
            let culprit = placed
                .iter()
                .filter(|p| p.1 == space && p.2 + p.3 > limit)
                .map(|p| p.0)
                .next();
            let at = culprit.map_or(m.funcs[f].span, |v| def_span(m, v));
            let mut msg = format!(
                "kernel `{}` needs {need} bytes of the {} but target {} has {limit} bytes",
                m.funcs[f].name,
                buffer_name(space),
                target.name
            );
            if let Some((isa, r)) = &temp {
                msg.push_str(&format!(
                    " for tiles: bytes {}..{} ({} KiB) are reserved for the temporary `{}` writes at that fixed address",
                    r.start,
                    r.end,
                    (r.end - r.start) / 1024,
                    isa.name()
                ));
            }
            diags.push(
                Diag::new(at, msg)
                .note("tiles whose lifetimes overlap cannot share space; use smaller tiles or fewer live tiles"),
            );
        }
    }
    if diags.is_empty() { Ok(()) } else { Err(diags) }
}

/// The first instruction of `f`'s lowering that overwrites a fixed range of `space` on
/// `target` as its temporary ([`Target::fixed_temp`]), with that range.
fn fixed_temp(
    m: &ProgramModule,
    f: FuncId,
    target: &Target,
    space: MemorySpace,
) -> Option<(Isa, std::ops::Range<u64>)> {
    let tree = walk::Tree::of(m, f);
    tree.stmts
        .iter()
        .find_map(|&s| match m.stmts.get(s).map(|st| &st.kind) {
            Some(StmtKind::Op(ops)) => ops.iter().find_map(|&o| {
                let isa = row_broadcast_isa(m, &m.ops[o])?;
                target.fixed_temp(isa, space).map(|r| (isa, r))
            }),
            _ => None,
        })
}

/// Joins the classes of the values a loop carries and of an `if`'s results with their
/// yields, inner statements first; refused edges become copy points.
fn coalesce(
    m: &ProgramModule,
    live: &Live,
    intervals: &SecondaryMap<ValueId, Option<(u32, u32)>>,
    classes: &mut Classes,
) {
    let mut exits = Vec::new();
    for &s in &live.post {
        let at = live.pos[s].unwrap_or(0);
        match &m.stmts[s].kind {
            StmtKind::For(_) | StmtKind::While(_) => {
                let (args, results, body) = match &m.stmts[s].kind {
                    StmtKind::For(l) => (&l.iter_args, &l.results, l.body),
                    StmtKind::While(w) => (&w.iter_args, &w.results, w.body),
                    _ => continue,
                };
                // A loop that carries nothing has nothing to join.
                if args.is_empty() {
                    continue;
                }
                walk::loop_exits(m, body, &mut exits);
                for (k, a) in args.iter().enumerate() {
                    if !classes.tracked(a.arg) {
                        continue;
                    }
                    if let Some(&r) = results.get(k)
                        && !classes.try_union(m, a.arg, r)
                    {
                        let end = intervals[r].map_or(at, |i| i.0.saturating_sub(1));
                        classes.add_point(r, end);
                    }
                    for &e in &exits {
                        let vals: &[ValueId] = match &m.stmts[e].kind {
                            StmtKind::Yield(v) | StmtKind::Break(v) | StmtKind::Continue(v) => v,
                            _ => &[],
                        };
                        if let Some(&y) = vals.get(k)
                            && y != a.arg
                            && !(classes.tracked(y) && classes.try_union(m, y, a.arg))
                        {
                            let p = live.pos[e].unwrap_or(at);
                            classes.add_point(a.arg, p);
                        }
                    }
                    if !(classes.tracked(a.init) && classes.try_union(m, a.init, a.arg)) {
                        classes.add_point(a.arg, at);
                    }
                }
            }
            StmtKind::If(x) => {
                for (k, &r) in x.results.iter().enumerate() {
                    if !classes.tracked(r) {
                        continue;
                    }
                    for blk in [x.then_block, x.else_block] {
                        let Some(&t) = m.blocks[blk].stmts.last() else {
                            continue;
                        };
                        if let StmtKind::Yield(vals) = &m.stmts[t].kind
                            && let Some(&y) = vals.get(k)
                            && !(classes.tracked(y) && classes.try_union(m, y, r))
                        {
                            let p = live.pos[t].unwrap_or(at);
                            classes.add_point(r, p);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// A placed class: its root, buffer, offset and size in bytes.
type Placed = (ValueId, MemorySpace, u64, u64);

/// The sources of `f`'s row sums that the C++ reads with more rows than they have, and the
/// bytes those rows take (`info::row_sum_rows`).
fn row_sum_sources(m: &ProgramModule, f: FuncId) -> Vec<(ValueId, u64)> {
    let tree = walk::Tree::of(m, f);
    let mut out = Vec::new();
    for &s in &tree.stmts {
        if let Some(StmtKind::Op(ops)) = m.stmts.get(s).map(|st| &st.kind) {
            out.extend(
                ops.iter()
                    .filter_map(|&o| row_sum_source_bytes(m, &m.ops[o])),
            );
        }
    }
    out
}

/// Places each class in its buffer, first fit in order of first use, each taking its
/// extents or the bytes `reserve` gives its root, whichever is more; returns the placed
/// classes and records the offset of each root in its [`Node`].
fn allocate(
    m: &ProgramModule,
    classes: &mut Classes,
    reserve: &SecondaryMap<ValueId, u64>,
) -> Vec<Placed> {
    // Each root with its first and last point, in order of first point then SSA number (a
    // stable sort: ties keep program order). One walk of each class's intervals for both.
    // Sized by the members (a bound): a filtered collect would grow the list step by step.
    let mut roots: Vec<(u32, u32, ValueId, u32)> = Vec::with_capacity(classes.members.len());
    roots.extend(
        classes
            .members
            .iter()
            .copied()
            .filter(|&v| classes.find(v) == v)
            .map(|r| {
                let (first, last) = classes
                    .spans_of(r)
                    .fold(None, |acc: Option<(u32, u32)>, (s, e)| {
                        Some(acc.map_or((s, e), |(f, l)| (f.min(s), l.max(e))))
                    })
                    .unwrap_or((0, 0));
                (first, m.values[r].number, r, last)
            }),
    );
    roots.sort_by_key(|&(first, number, _, _)| (first, number));
    let mut placed: Vec<Placed> = Vec::with_capacity(roots.len());
    // The placed classes that may still overlap a later root: roots come in order of first
    // use, so a class whose last point (plus the gap of 1) is before this root's first point
    // can never conflict again and leaves the list. This keeps the placement linear in the
    // number of tiles for kernels whose tiles are short-lived (`(index in placed, last point)`).
    // Sized for a typical kernel's tiles: no regrowth.
    let mut active: Vec<(usize, u32)> = Vec::with_capacity(roots.len());
    // Reused across roots: the (offset, size) of the conflicting classes.
    let mut conflicts: Vec<(u64, u64)> = Vec::new();
    for &(first, _, r, last) in &roots {
        let Some(space) = space_of(m, r) else {
            continue;
        };
        active.retain(|&(_, last)| last.saturating_add(1) >= first);
        let size = tile_bytes(&m.values[r].ty).max(reserve[r]);
        let key = m.values[r].ty.as_tile().map(|t| (&t.shape, t.dtype));
        conflicts.clear();
        conflicts.extend(
            active
                .iter()
                .filter_map(|&(i, _)| placed.get(i))
                .filter(|(o, sp, _, _)| {
                    // The buffer first: comparing shapes costs more.
                    *sp == space && {
                        let other = m.values[*o].ty.as_tile().map(|t| (&t.shape, t.dtype));
                        classes.overlap(*o, r, u32::from(other != key))
                    }
                })
                .map(|&(_, _, off, sz)| (off, sz)),
        );
        // The candidate offsets are 0 and the end of each conflicting class, lowest first:
        // the conflicts sorted by their end give them without a list of their own.
        conflicts.sort_unstable_by_key(|&(o, s)| o + s);
        let off = std::iter::once(0)
            .chain(conflicts.iter().map(|&(o, s)| o + s))
            .find(|&c| conflicts.iter().all(|&(o, s)| c + size <= o || o + s <= c))
            .unwrap_or(0);
        active.push((placed.len(), last));
        placed.push((r, space, off, size));
        classes.node[r].offset = Some(off);
    }
    placed
}

/// The span of the op or statement defining `v`.
pub(crate) fn def_span(m: &ProgramModule, v: ValueId) -> SpanId {
    match m.values[v].def {
        ValueDef::OpResult(o, _) => m.ops[o].span,
        ValueDef::IterArg(s, _) | ValueDef::StmtResult(s, _) | ValueDef::Iv(s) => m.stmts[s].span,
        _ => SpanId::NONE,
    }
}
