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
//!    never takes over storage at the very position another one dies.
//! 4. **Capacity.** A buffer whose peak exceeds the target's capacity is an error naming the
//!    buffer, the bytes needed and the capacity.

use pto_ir::entity::SecondaryMap;
use pto_ir::verify::target::{Target, buffer_name, target};
use pto_ir::{
    Attr, BlockId, Diag, Diagnostics, FuncId, MemorySpace, OpClass, ProgramModule, SpanId, StmtId,
    StmtKind, ValueDef, ValueId,
};

use crate::info::{set_addr, space_of, tile_bytes};
use crate::pass::Pass;
use crate::walk;

/// The bufferize pass.
pub struct Bufferize;

impl Pass for Bufferize {
    fn name(&self) -> &'static str {
        "bufferize"
    }

    fn run(&self, m: &mut ProgramModule) -> Result<(), Diagnostics> {
        let t = module_target(m);
        let mut diags = Vec::new();
        for f in walk::functions(m) {
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
        _ => "PTOv2",
    };
    target(name).unwrap_or(Target::A2A3)
}

/// Whether an op may write its result over one of its operands.
fn in_place_capable(class: OpClass) -> bool {
    matches!(
        class,
        OpClass::TileBinary
            | OpClass::TileBitwise
            | OpClass::TileUnary
            | OpClass::TileUnaryFloat
            | OpClass::TileNot
            | OpClass::MatmulAcc
            | OpClass::Valid
    )
}

/// Loop index in [`Live::loops`].
type LoopIdx = u32;

struct Live {
    /// Definition position of each value.
    def: SecondaryMap<ValueId, Option<u32>>,
    /// Values with a definition position, in program order.
    defined: Vec<ValueId>,
    /// (value, use position, innermost loop enclosing the use).
    uses: Vec<(ValueId, u32, Option<LoopIdx>)>,
    /// (start, end, enclosing loop) of each loop, by index.
    loops: Vec<(u32, u32, Option<LoopIdx>)>,
    /// Position of each statement (its uses).
    pos: SecondaryMap<StmtId, Option<u32>>,
    /// Loops and ifs in post-order (children first).
    post: Vec<StmtId>,
    t: u32,
}

impl Live {
    fn new(m: &ProgramModule) -> Self {
        Live {
            def: SecondaryMap::with_capacity(m.values.len(), None),
            defined: Vec::new(),
            uses: Vec::new(),
            loops: Vec::new(),
            pos: SecondaryMap::with_capacity(m.stmts.len(), None),
            post: Vec::new(),
            t: 0,
        }
    }

    fn define(&mut self, v: ValueId, at: u32) {
        if self.def[v].is_none() {
            self.defined.push(v);
        }
        self.def[v] = Some(at);
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
                    let uses = &mut self.uses;
                    uses.extend(op.operands.iter().map(|&v| (v, u, inner)));
                    op.attrs.for_each_value(&mut |v| uses.push((v, u, inner)));
                    // An operand given twice must not share storage with the result.
                    let operands = &op.operands;
                    let dup = operands.iter().enumerate().any(|(i, &a)| {
                        m.values[a].ty.as_tile().is_some() && operands[..i].contains(&a)
                    });
                    let d = if in_place_capable(op.opcode.class()) && !dup {
                        u + 1
                    } else {
                        u
                    };
                    for &r in &op.results {
                        self.define(r, d);
                    }
                    self.t += 2;
                }
                continue;
            }
            for v in kind.uses() {
                self.uses.push((v, u, inner));
            }
            self.t += 2;
            match kind {
                StmtKind::For(_) | StmtKind::While(_) => {
                    let (args, results) = match kind {
                        StmtKind::For(l) => {
                            self.define(l.iv, u + 1);
                            (&l.iter_args, &l.results)
                        }
                        StmtKind::While(w) => (&w.iter_args, &w.results),
                        _ => continue,
                    };
                    for a in args {
                        self.define(a.arg, u + 1);
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
                        self.define(r, end + 1);
                    }
                    self.post.push(s);
                }
                StmtKind::If(x) => {
                    for child in kind.blocks() {
                        self.walk(m, child, inner);
                    }
                    let end = self.t;
                    self.t += 2;
                    for &r in &x.results {
                        self.define(r, end + 1);
                    }
                    self.post.push(s);
                }
                StmtKind::Scope(_, blk) => self.walk(m, *blk, inner),
                _ => {}
            }
        }
    }

    /// `[def, last use]` per value, loop-extended.
    fn intervals(&self) -> SecondaryMap<ValueId, Option<(u32, u32)>> {
        let mut out = SecondaryMap::with_default(None);
        for &v in &self.defined {
            out[v] = self.def[v].map(|d| (d, d));
        }
        for &(v, u, inner) in &self.uses {
            let Some(d) = self.def[v] else { continue };
            let mut last = u;
            let mut li = inner;
            while let Some(i) = li {
                let (start, end, outer) = self.loops[i as usize];
                li = outer;
                if d > start {
                    continue; // defined inside the loop
                }
                // The loop encloses the use but not the definition: live through the loop.
                last = last.max(end);
            }
            if let Some(e) = &mut out[v] {
                e.1 = e.1.max(last);
            }
        }
        out
    }
}

/// Storage classes: union-find over the tracked tile values.
struct Classes {
    /// Each tracked value's parent (itself for a root); `None` for untracked values.
    parent: SecondaryMap<ValueId, Option<ValueId>>,
    /// Intervals of each root's class (empty for other values).
    spans: SecondaryMap<ValueId, Vec<(u32, u32)>>,
    /// The tracked values, in program order.
    members: Vec<ValueId>,
}

impl Classes {
    fn tracked(&self, v: ValueId) -> bool {
        self.parent[v].is_some()
    }

    fn find(&self, mut v: ValueId) -> ValueId {
        while let Some(p) = self.parent[v] {
            if p == v {
                break;
            }
            v = p;
        }
        v
    }

    fn overlap(a: &[(u32, u32)], b: &[(u32, u32)], gap: u32) -> bool {
        a.iter()
            .any(|&(s1, e1)| b.iter().any(|&(s2, e2)| s1 <= e2 + gap && s2 <= e1 + gap))
    }

    fn try_union(&mut self, m: &ProgramModule, a: ValueId, b: ValueId) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return true;
        }
        if !self.tracked(ra) || !self.tracked(rb) {
            return false;
        }
        let same_type = m.values[a].ty.as_tile().map(|t| (&t.shape, t.dtype))
            == m.values[b].ty.as_tile().map(|t| (&t.shape, t.dtype));
        if !same_type
            || space_of(m, a) != space_of(m, b)
            || Self::overlap(&self.spans[ra], &self.spans[rb], 0)
        {
            return false;
        }
        let moved = std::mem::take(&mut self.spans[rb]);
        self.spans[ra].extend(moved);
        self.parent[rb] = Some(ra);
        true
    }

    fn add_point(&mut self, v: ValueId, p: u32) {
        let r = self.find(v);
        if self.tracked(r) {
            self.spans[r].push((p, p));
        }
    }
}

fn run_function(m: &mut ProgramModule, f: FuncId, target: &Target) -> Result<(), Vec<Diag>> {
    let mut live = Live::new(m);
    live.walk(m, m.funcs[f].body, None);
    let intervals = live.intervals();
    let params = &m.funcs[f].sig.params;
    let mut classes = Classes {
        parent: SecondaryMap::with_capacity(m.values.len(), None),
        spans: SecondaryMap::with_capacity(m.values.len(), Vec::new()),
        members: Vec::new(),
    };
    for &v in &live.defined {
        let Some(iv) = intervals[v] else { continue };
        if m.values[v].ty.as_tile().is_some()
            && !params.iter().any(|p| p.value == v)
            && space_of(m, v).is_some()
        {
            classes.parent[v] = Some(v);
            classes.spans[v] = vec![iv];
            classes.members.push(v);
        }
    }
    // Coalesce, inner statements first; refused edges become copy points.
    let mr: &ProgramModule = m;
    for &s in &live.post {
        let at = live.pos[s].unwrap_or(0);
        match &mr.stmts[s].kind {
            StmtKind::For(_) | StmtKind::While(_) => {
                let (args, results, body) = match &mr.stmts[s].kind {
                    StmtKind::For(l) => (&l.iter_args, &l.results, l.body),
                    StmtKind::While(w) => (&w.iter_args, &w.results, w.body),
                    _ => continue,
                };
                let exits = walk::loop_exits(mr, body);
                for (k, a) in args.iter().enumerate() {
                    if !classes.tracked(a.arg) {
                        continue;
                    }
                    if let Some(&r) = results.get(k)
                        && !classes.try_union(mr, a.arg, r)
                    {
                        let end = intervals[r].map_or(at, |i| i.0.saturating_sub(1));
                        classes.add_point(r, end);
                    }
                    for &e in &exits {
                        let vals: &[ValueId] = match &mr.stmts[e].kind {
                            StmtKind::Yield(v) | StmtKind::Break(v) | StmtKind::Continue(v) => v,
                            _ => &[],
                        };
                        if let Some(&y) = vals.get(k)
                            && y != a.arg
                            && !(classes.tracked(y) && classes.try_union(mr, y, a.arg))
                        {
                            let p = live.pos[e].unwrap_or(at);
                            classes.add_point(a.arg, p);
                        }
                    }
                    if !(classes.tracked(a.init) && classes.try_union(mr, a.init, a.arg)) {
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
                        let Some(&t) = mr.blocks[blk].stmts.last() else {
                            continue;
                        };
                        if let StmtKind::Yield(vals) = &mr.stmts[t].kind
                            && let Some(&y) = vals.get(k)
                            && !(classes.tracked(y) && classes.try_union(mr, y, r))
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
    // Allocation, per buffer, first fit in order of first use.
    let first_point = |r: ValueId| classes.spans[r].iter().map(|i| i.0).min().unwrap_or(0);
    let mut roots: Vec<ValueId> = classes
        .members
        .iter()
        .copied()
        .filter(|&v| classes.find(v) == v)
        .collect();
    roots.sort_by_cached_key(|&r| (first_point(r), m.values[r].number));
    let mut placed: Vec<(ValueId, MemorySpace, u64, u64)> = Vec::new();
    let mut offset_of: SecondaryMap<ValueId, Option<u64>> =
        SecondaryMap::with_capacity(m.values.len(), None);
    // The placed classes that may still overlap a later root: roots come in order of first
    // use, so a class whose last point (plus the gap of 1) is before this root's first point
    // can never conflict again and leaves the list. This keeps the placement linear in the
    // number of tiles for kernels whose tiles are short-lived (`(index in placed, last point)`).
    let mut active: Vec<(usize, u32)> = Vec::new();
    // Reused across roots: the (offset, size) of the conflicting classes, candidate offsets.
    let mut conflicts: Vec<(u64, u64)> = Vec::new();
    let mut candidates: Vec<u64> = Vec::new();
    for &r in &roots {
        let Some(space) = space_of(m, r) else {
            continue;
        };
        let r_spans = &classes.spans[r];
        let first = first_point(r);
        active.retain(|&(_, last)| last.saturating_add(1) >= first);
        let size = tile_bytes(&m.values[r].ty);
        let key = m.values[r].ty.as_tile().map(|t| (&t.shape, t.dtype));
        conflicts.clear();
        conflicts.extend(
            active
                .iter()
                .filter_map(|&(i, _)| placed.get(i))
                .filter(|(o, sp, _, _)| {
                    let gap =
                        u32::from(m.values[*o].ty.as_tile().map(|t| (&t.shape, t.dtype)) != key);
                    *sp == space && Classes::overlap(&classes.spans[*o], r_spans, gap)
                })
                .map(|&(_, _, off, sz)| (off, sz)),
        );
        candidates.clear();
        candidates.push(0);
        candidates.extend(conflicts.iter().map(|&(o, s)| o + s));
        candidates.sort_unstable();
        let off = candidates
            .iter()
            .copied()
            .find(|&c| conflicts.iter().all(|&(o, s)| c + size <= o || o + s <= c))
            .unwrap_or(0);
        let last = r_spans.iter().map(|i| i.1).max().unwrap_or(0);
        active.push((placed.len(), last));
        placed.push((r, space, off, size));
        offset_of[r] = Some(off);
    }
    for &v in &classes.members {
        if let Some(off) = offset_of[classes.find(v)] {
            set_addr(m, v, off);
        }
    }
    // Capacity.
    let mut diags = Vec::new();
    for space in MemorySpace::ALL {
        let Some(cap) = target.capacity(space) else {
            continue;
        };
        let need = placed
            .iter()
            .filter(|p| p.1 == space)
            .map(|p| p.2 + p.3)
            .max()
            .unwrap_or(0);
        if need > cap {
            let culprit = placed
                .iter()
                .filter(|p| p.1 == space && p.2 + p.3 > cap)
                .map(|p| p.0)
                .next();
            let at = culprit.map_or(m.funcs[f].span, |v| def_span(m, v));
            diags.push(
                Diag::new(
                    at,
                    format!(
                        "kernel `{}` needs {need} bytes of the {} but target {} has {cap} bytes",
                        m.funcs[f].name,
                        buffer_name(space),
                        target.name
                    ),
                )
                .note("tiles whose lifetimes overlap cannot share space; use smaller tiles or fewer live tiles"),
            );
        }
    }
    if diags.is_empty() { Ok(()) } else { Err(diags) }
}

/// The span of the op or statement defining `v`.
pub(crate) fn def_span(m: &ProgramModule, v: ValueId) -> SpanId {
    match m.values[v].def {
        ValueDef::OpResult(o, _) => m.ops[o].span,
        ValueDef::IterArg(s, _) | ValueDef::StmtResult(s, _) | ValueDef::Iv(s) => m.stmts[s].span,
        _ => SpanId::NONE,
    }
}
