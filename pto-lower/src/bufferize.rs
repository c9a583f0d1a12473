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

use std::collections::HashMap;

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

#[derive(Default)]
struct Live {
    def: HashMap<ValueId, u32>,
    /// (value, use position, enclosing loops at the use).
    uses: Vec<(ValueId, u32, Vec<usize>)>,
    /// (start, end) of each loop, by index.
    loops: Vec<(u32, u32)>,
    /// Position of each statement (its uses).
    pos: HashMap<StmtId, u32>,
    /// Loops and ifs in post-order (children first).
    post: Vec<StmtId>,
    t: u32,
}

impl Live {
    fn walk(&mut self, m: &ProgramModule, b: BlockId, stack: &mut Vec<usize>) {
        for &s in &m.blocks[b].stmts {
            let u = self.t;
            self.pos.insert(s, u);
            let kind = &m.stmts[s].kind;
            if let StmtKind::Op(ops) = kind {
                for &o in ops {
                    let op = &m.ops[o];
                    let u = self.t;
                    for v in op.uses() {
                        self.uses.push((v, u, stack.clone()));
                    }
                    let tiles: Vec<_> = op
                        .operands
                        .iter()
                        .filter(|&&v| m.values[v].ty.as_tile().is_some())
                        .collect();
                    let dup = tiles
                        .iter()
                        .enumerate()
                        .any(|(i, a)| tiles[..i].contains(a));
                    let d = if in_place_capable(op.opcode.class()) && !dup {
                        u + 1
                    } else {
                        u
                    };
                    for &r in &op.results {
                        self.def.insert(r, d);
                    }
                    self.t += 2;
                }
                continue;
            }
            for v in kind.uses() {
                self.uses.push((v, u, stack.clone()));
            }
            self.t += 2;
            match kind {
                StmtKind::For(_) | StmtKind::While(_) => {
                    let (args, results): (Vec<_>, Vec<_>) = match kind {
                        StmtKind::For(l) => {
                            self.def.insert(l.iv, u + 1);
                            (
                                l.iter_args.iter().map(|a| a.arg).collect(),
                                l.results.clone(),
                            )
                        }
                        StmtKind::While(w) => (
                            w.iter_args.iter().map(|a| a.arg).collect(),
                            w.results.clone(),
                        ),
                        _ => (Vec::new(), Vec::new()),
                    };
                    for a in args {
                        self.def.insert(a, u + 1);
                    }
                    let li = self.loops.len();
                    self.loops.push((u, u));
                    stack.push(li);
                    for child in kind.blocks() {
                        self.walk(m, child, stack);
                    }
                    stack.pop();
                    let end = self.t;
                    self.t += 2;
                    self.loops[li].1 = end;
                    for r in results {
                        self.def.insert(r, end + 1);
                    }
                    self.post.push(s);
                }
                StmtKind::If(x) => {
                    for child in kind.blocks() {
                        self.walk(m, child, stack);
                    }
                    let end = self.t;
                    self.t += 2;
                    for &r in &x.results {
                        self.def.insert(r, end + 1);
                    }
                    self.post.push(s);
                }
                StmtKind::Scope(_, blk) => self.walk(m, *blk, stack),
                _ => {}
            }
        }
    }

    /// `[def, last use]` per value, loop-extended.
    fn intervals(&self) -> HashMap<ValueId, (u32, u32)> {
        let mut out: HashMap<ValueId, (u32, u32)> =
            self.def.iter().map(|(&v, &d)| (v, (d, d))).collect();
        for (v, u, loops) in &self.uses {
            let Some(&d) = self.def.get(v) else { continue };
            let mut last = *u;
            for &li in loops {
                let (start, end) = self.loops[li];
                if d > start {
                    continue; // defined inside the loop
                }
                // `li` encloses the use but not the definition: live through the loop.
                last = last.max(end);
            }
            let e = out.entry(*v).or_insert((d, d));
            e.1 = e.1.max(last);
        }
        out
    }
}

struct Classes {
    parent: HashMap<ValueId, ValueId>,
    /// Intervals of each root's class.
    spans: HashMap<ValueId, Vec<(u32, u32)>>,
}

impl Classes {
    fn find(&self, mut v: ValueId) -> ValueId {
        while let Some(&p) = self.parent.get(&v) {
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
        let (Some(sa), Some(sb)) = (self.spans.get(&ra), self.spans.get(&rb)) else {
            return false;
        };
        let same_type = m.values[a].ty.as_tile().map(|t| (&t.shape, t.dtype))
            == m.values[b].ty.as_tile().map(|t| (&t.shape, t.dtype));
        if !same_type || space_of(m, a) != space_of(m, b) || Self::overlap(sa, sb, 0) {
            return false;
        }
        let mut merged = sa.clone();
        merged.extend(sb.iter().copied());
        self.spans.remove(&rb);
        self.spans.insert(ra, merged);
        self.parent.insert(rb, ra);
        true
    }

    fn add_point(&mut self, v: ValueId, p: u32) {
        let r = self.find(v);
        if let Some(s) = self.spans.get_mut(&r) {
            s.push((p, p));
        }
    }
}

fn run_function(m: &mut ProgramModule, f: FuncId, target: &Target) -> Result<(), Vec<Diag>> {
    let mut live = Live::default();
    live.walk(m, m.funcs[f].body, &mut Vec::new());
    let intervals = live.intervals();
    let params: Vec<ValueId> = m.funcs[f].sig.params.iter().map(|p| p.value).collect();
    let mut classes = Classes {
        parent: HashMap::new(),
        spans: HashMap::new(),
    };
    for (&v, &iv) in &intervals {
        if m.values[v].ty.as_tile().is_some() && !params.contains(&v) && space_of(m, v).is_some() {
            classes.parent.insert(v, v);
            classes.spans.insert(v, vec![iv]);
        }
    }
    let tracked = |c: &Classes, v: ValueId| c.parent.contains_key(&v);
    // Coalesce, inner statements first; refused edges become copy points.
    for &s in &live.post.clone() {
        let at = live.pos.get(&s).copied().unwrap_or(0);
        match &m.stmts[s].kind {
            StmtKind::For(_) | StmtKind::While(_) => {
                let (args, results, body) = match &m.stmts[s].kind {
                    StmtKind::For(l) => (l.iter_args.clone(), l.results.clone(), l.body),
                    StmtKind::While(w) => (w.iter_args.clone(), w.results.clone(), w.body),
                    _ => continue,
                };
                let exits = walk::loop_exits(m, body);
                for (k, a) in args.iter().enumerate() {
                    if !tracked(&classes, a.arg) {
                        continue;
                    }
                    if let Some(&r) = results.get(k)
                        && !classes.try_union(m, a.arg, r)
                    {
                        let end = intervals.get(&r).map_or(at, |i| i.0.saturating_sub(1));
                        classes.add_point(r, end);
                    }
                    for &e in &exits {
                        let vals = match &m.stmts[e].kind {
                            StmtKind::Yield(v) | StmtKind::Break(v) | StmtKind::Continue(v) => {
                                v.clone()
                            }
                            _ => Vec::new(),
                        };
                        if let Some(&y) = vals.get(k)
                            && y != a.arg
                            && !(tracked(&classes, y) && classes.try_union(m, y, a.arg))
                        {
                            let p = live.pos.get(&e).copied().unwrap_or(at);
                            classes.add_point(a.arg, p);
                        }
                    }
                    if !(tracked(&classes, a.init) && classes.try_union(m, a.init, a.arg)) {
                        classes.add_point(a.arg, at);
                    }
                }
            }
            StmtKind::If(x) => {
                for (k, &r) in x.results.iter().enumerate() {
                    if !tracked(&classes, r) {
                        continue;
                    }
                    for blk in [x.then_block, x.else_block] {
                        let Some(&t) = m.blocks[blk].stmts.last() else {
                            continue;
                        };
                        if let StmtKind::Yield(vals) = &m.stmts[t].kind
                            && let Some(&y) = vals.get(k)
                            && !(tracked(&classes, y) && classes.try_union(m, y, r))
                        {
                            let p = live.pos.get(&t).copied().unwrap_or(at);
                            classes.add_point(r, p);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    // Allocation, per buffer, first fit in order of first use.
    let mut roots: Vec<ValueId> = classes.spans.keys().copied().collect();
    roots.sort_by_cached_key(|r| {
        (
            classes.spans[r].iter().map(|i| i.0).min().unwrap_or(0),
            m.values[*r].number,
        )
    });
    let mut placed: Vec<(ValueId, MemorySpace, u64, u64)> = Vec::new();
    let mut offset_of: HashMap<ValueId, u64> = HashMap::new();
    // The placed classes that may still overlap a later root: roots come in order of first
    // use, so a class whose last point (plus the gap of 1) is before this root's first point
    // can never conflict again and leaves the list. This keeps the placement linear in the
    // number of tiles for kernels whose tiles are short-lived (`(index in placed, last point)`).
    let mut active: Vec<(usize, u32)> = Vec::new();
    let no_spans: Vec<(u32, u32)> = Vec::new();
    for &r in &roots {
        let Some(space) = space_of(m, r) else {
            continue;
        };
        let r_spans = classes.spans.get(&r).unwrap_or(&no_spans);
        let first = r_spans.iter().map(|i| i.0).min().unwrap_or(0);
        active.retain(|&(_, last)| last.saturating_add(1) >= first);
        let size = tile_bytes(&m.values[r].ty);
        let key = m.values[r].ty.as_tile().map(|t| (&t.shape, t.dtype));
        let conflicts: Vec<(u64, u64)> = active
            .iter()
            .filter_map(|&(i, _)| placed.get(i))
            .filter(|(o, sp, _, _)| {
                let gap = u32::from(m.values[*o].ty.as_tile().map(|t| (&t.shape, t.dtype)) != key);
                *sp == space
                    && Classes::overlap(classes.spans.get(o).unwrap_or(&no_spans), r_spans, gap)
            })
            .map(|&(_, _, off, sz)| (off, sz))
            .collect();
        let mut candidates: Vec<u64> = std::iter::once(0)
            .chain(conflicts.iter().map(|&(o, s)| o + s))
            .collect();
        candidates.sort_unstable();
        let off = candidates
            .into_iter()
            .find(|&c| conflicts.iter().all(|&(o, s)| c + size <= o || o + s <= c))
            .unwrap_or(0);
        let last = r_spans.iter().map(|i| i.1).max().unwrap_or(0);
        active.push((placed.len(), last));
        placed.push((r, space, off, size));
        offset_of.insert(r, off);
    }
    let members: Vec<ValueId> = classes.parent.keys().copied().collect();
    for v in members {
        let r = classes.find(v);
        if let Some(&off) = offset_of.get(&r) {
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
