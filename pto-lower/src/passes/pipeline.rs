//! Optional pass, software pipeline (seed 002 section 8 step 5; `pto-opt --pass
//! software-pipeline`): the next tile's load overlaps the current tile's compute.
//!
//! Each eligible `for` loop is unrolled by two into a main loop over pairs of iterations and
//! a tail (the original loop, now starting where the pairs end, so it runs at most once):
//!
//! ```text
//! for i = lb to ub step s { body(i) }
//! ==>
//! ub2 = lb + (ub - lb) / (2 s) * (2 s)
//! for i = lb to ub2 step 2 s { loads(i); loads(i + s); rest(i); rest(i + s) }
//! for i = ub2 to ub step s { body(i) }
//! ```
//!
//! In the pair, the loads of both copies come first, so they are ping-pong buffers: both are
//! live at once, `bufferize` gives them two places, and `insert-events` orders each load only
//! before its own consumers. On the chip the second load (MTE2) then runs while the vector
//! pipe computes on the first, instead of after the loop body's barrier. This is PyPTO's
//! LowerPipelineLoops (body copied per stage, stride stages x step, a tail) with the loads
//! hoisted ahead of the compute, which is what keeps the two stages' buffers apart.
//!
//! A loop is eligible when it is sequential, holds no nested loop, no `break` / `continue` and
//! no call, and has at least one hoistable load: a top-level `tile.load` of a tensor the body
//! never writes, whose offsets depend only on values from outside the body, the induction
//! variable and scalar ops between them (not on loop-carried values). Loop-carried values
//! flow from the first copy into the second. Moving a load earlier never changes what it
//! reads, as nothing in the body writes its tensor. Other loops are left as they are.
//!
//! The pass rewrites statements, so it runs before `insert-events` and `bufferize` (it
//! refuses a module that already has events or buffer addresses).

use std::collections::{HashMap, HashSet};

use pto_ir::stmt::{ForKind, ForStmt, IfStmt, IterArg, IterArgs, Statement};
use pto_ir::{
    Attr, Attrs, BlockId, BlockRole, Diag, Diagnostics, Dim, OpClass, OpId, Opcode, ProgramModule,
    SpanId, StmtId, StmtKind, Type, ValueDef, ValueId, ValueList,
};

use super::Pass;
use super::events::EventRole;
use crate::walk::{constant, inline_of, new_op_named, scalar_op};

/// The software-pipeline pass.
pub struct SoftwarePipeline;

impl Pass for SoftwarePipeline {
    fn name(&self) -> &'static str {
        "software-pipeline"
    }

    fn run(&self, m: &mut ProgramModule) -> Result<(), Diagnostics> {
        let placed = m.ops.iter().any(|(_, op)| {
            EventRole::ALL
                .iter()
                .any(|r| op.attrs.get(r.key()).is_some())
        }) || m
            .values
            .iter()
            .any(|(_, v)| v.ty.as_tile().is_some_and(|t| t.memref.is_some()));
        if placed {
            return Err(Diag::new(
                SpanId::NONE,
                "software-pipeline rewrites loops, so it runs before insert-events and bufferize; \
                 this module already has events or placed tiles",
            )
            .into());
        }
        let mut loops = Vec::new();
        for &f in &m.functions {
            collect_loops(m, m.funcs[f].body, &mut loops);
        }
        for (block, stmt) in loops {
            if let Some(hoisted) = eligible(m, stmt) {
                pipeline_loop(m, block, stmt, &hoisted);
            }
        }
        Ok(())
    }
}

/// Every `for` with the block holding it, outer loops first.
fn collect_loops(m: &ProgramModule, b: BlockId, out: &mut Vec<(BlockId, StmtId)>) {
    for &s in m.blocks[b].stmts.iter() {
        if matches!(m.stmts[s].kind, StmtKind::For(_)) {
            out.push((b, s));
        }
        for child in m.stmts[s].kind.blocks() {
            collect_loops(m, child, out);
        }
    }
}

/// The body's hoistable ops (loads and the scalar ops their offsets need), or `None` when the
/// loop is not eligible.
fn eligible(m: &ProgramModule, s: StmtId) -> Option<HashSet<OpId>> {
    let StmtKind::For(f) = &m.stmts[s].kind else {
        return None;
    };
    if f.kind != ForKind::Sequential {
        return None;
    }
    let mut written = HashSet::new();
    let mut ok = true;
    walk_body(m, f.body, &mut |st| match st {
        StmtKind::For(_) | StmtKind::While(_) | StmtKind::Break(_) | StmtKind::Continue(_) => {
            ok = false;
        }
        StmtKind::Op(ops) => {
            for &op in ops.iter() {
                let o = &m.ops[op];
                if o.opcode.class() == OpClass::Call {
                    ok = false;
                }
                if o.opcode.writes_memory() {
                    written.extend(o.operands.iter().copied());
                }
            }
        }
        _ => {}
    });
    if !ok {
        return None;
    }
    // Values the body's top level defines by a pure scalar op, and by which op.
    let mut scalar_def = HashMap::new();
    let mut loads = Vec::new();
    for &st in m.blocks[f.body].stmts.iter() {
        if let StmtKind::Op(ops) = &m.stmts[st].kind {
            for &op in ops.iter() {
                let o = &m.ops[op];
                if o.opcode.class().is_scalar() {
                    for &r in o.results.iter() {
                        scalar_def.insert(r, op);
                    }
                } else if o.opcode == Opcode::TileLoad
                    && o.operands.iter().all(|v| !written.contains(v))
                {
                    loads.push(op);
                }
            }
        }
    }
    let carried: HashSet<ValueId> = f.iter_args.iter().map(|a| a.arg).collect();
    let mut inside = HashSet::new();
    defined_inside(m, f.body, &mut inside);
    let mut hoisted = HashSet::new();
    for load in loads {
        let mut needed = vec![load];
        let mut stack = vec![load];
        let mut good = true;
        while let Some(op) = stack.pop() {
            m.ops[op].for_each_use(|v| {
                if carried.contains(&v) {
                    good = false;
                } else if let Some(&def) = scalar_def.get(&v) {
                    if !needed.contains(&def) {
                        needed.push(def);
                        stack.push(def);
                    }
                } else if inside.contains(&v) {
                    good = false;
                }
            });
        }
        if good {
            hoisted.extend(needed);
        }
    }
    let has_load = hoisted
        .iter()
        .any(|&op| m.ops[op].opcode == Opcode::TileLoad);
    has_load.then_some(hoisted)
}

/// Calls `f` on every statement of `b` and its nested blocks.
fn walk_body(m: &ProgramModule, b: BlockId, f: &mut impl FnMut(&StmtKind)) {
    for &s in m.blocks[b].stmts.iter() {
        f(&m.stmts[s].kind);
        for child in m.stmts[s].kind.blocks() {
            walk_body(m, child, f);
        }
    }
}

/// The values defined inside block `b` (at any depth).
fn defined_inside(m: &ProgramModule, b: BlockId, out: &mut HashSet<ValueId>) {
    for &s in m.blocks[b].stmts.iter() {
        match &m.stmts[s].kind {
            StmtKind::Op(ops) => {
                for &op in ops.iter() {
                    out.extend(m.ops[op].results.iter().copied());
                }
            }
            StmtKind::For(f) => {
                out.insert(f.iv);
                out.extend(f.iter_args.iter().map(|a| a.arg));
                out.extend(f.results.iter().copied());
            }
            StmtKind::While(w) => {
                out.extend(w.iter_args.iter().map(|a| a.arg));
                out.extend(w.results.iter().copied());
            }
            StmtKind::If(i) => out.extend(i.results.iter().copied()),
            _ => {}
        }
        for child in m.stmts[s].kind.blocks() {
            defined_inside(m, child, out);
        }
    }
}

/// Rewrites loop `s` (in block `b`) into a pipelined main loop over pairs and a tail.
fn pipeline_loop(m: &mut ProgramModule, b: BlockId, s: StmtId, hoisted: &HashSet<OpId>) {
    let StmtKind::For(f) = m.stmts[s].kind.clone() else {
        return;
    };
    let span = m.stmts[s].span;
    // The trip count of the pairs: ub2 = lb + (ub - lb) / (2 s) * (2 s).
    let mut pre = Vec::new();
    let Some(dtype) = m.ty(f.step).as_scalar() else {
        return;
    };
    let two = constant(m, dtype, 2, Some("c2"), span, &mut pre);
    let mut scalar = |m: &mut ProgramModule, opcode, a, b, name| {
        scalar_op(m, opcode, a, b, Some(name), span, &mut pre)
    };
    let step2 = scalar(m, Opcode::ScalarMul, f.step, two, "step2");
    let trip = scalar(m, Opcode::ScalarSub, f.ub, f.lb, "trip");
    let pairs = scalar(m, Opcode::ScalarDiv, trip, step2, "pairs");
    let paired = scalar(m, Opcode::ScalarMul, pairs, step2, "paired");
    let ub2 = scalar(m, Opcode::ScalarAdd, f.lb, paired, "ub2");
    let pre_stmt = m.stmts.push(Statement {
        kind: StmtKind::Op(pre.into_iter().collect()),
        span,
    });

    // The main loop, its body filled below.
    let main = m.stmts.push(Statement {
        kind: StmtKind::Yield(ValueList::new()),
        span,
    });
    let body = m.new_block(Some(b), Some(main), BlockRole::ForBody);
    let mut c = Cloner::default();
    let iv = c.fresh(m, f.iv, ValueDef::Iv(main));
    let mut iter_args = IterArgs::new();
    let mut results = ValueList::new();
    for (k, a) in f.iter_args.iter().enumerate() {
        let arg = c.fresh(m, a.arg, ValueDef::IterArg(main, k as u32));
        iter_args.push(IterArg { arg, init: a.init });
        let (ty, name) = (
            m.ty(f.results[k]).clone(),
            m.value(f.results[k]).name.clone(),
        );
        let r = m.new_value_named(ty, name);
        m.values[r].def = ValueDef::StmtResult(main, k as u32);
        results.push(r);
    }
    // i + s for the second copy.
    let (ty, name) = (m.ty(f.iv).clone(), m.value(f.iv).name.clone());
    let operands = inline_of(&[iv, f.step]);
    let (add, second_iv) =
        new_op_named(m, Opcode::ScalarAdd, operands, Attrs::new(), ty, name, span);

    // Copy A sees the main loop's iv and iter args; copy B sees iv + s and A's yields.
    let first = c.copy(m, &f, body, hoisted);
    let mut second_map = Cloner::default();
    second_map.map.insert(f.iv, second_iv);
    for (a, &y) in f.iter_args.iter().zip(&first.yields) {
        second_map.map.insert(a.arg, y);
    }
    let second = second_map.copy(m, &f, body, hoisted);

    let mut head: Vec<OpId> = vec![add];
    head.extend(&first.hoisted);
    head.extend(&second.hoisted);
    let head_stmt = m.stmts.push(Statement {
        kind: StmtKind::Op(head.into_iter().collect()),
        span,
    });
    let yield_stmt = m.stmts.push(Statement {
        kind: StmtKind::Yield(second.yields.iter().copied().collect()),
        span,
    });
    let stmts = &mut m.blocks[body].stmts;
    stmts.push(head_stmt);
    first
        .rest
        .iter()
        .chain(&second.rest)
        .for_each(|&st| stmts.push(st));
    stmts.push(yield_stmt);

    let mut attrs = f.attrs.clone();
    attrs.0.push(("pipelined".into(), Attr::Int(2)));
    m.stmts[main].kind = StmtKind::For(ForStmt {
        iv,
        lb: f.lb,
        ub: ub2,
        step: step2,
        iter_args,
        body,
        results: results.clone(),
        kind: ForKind::Sequential,
        attrs,
    });
    // The original loop becomes the tail: it starts where the pairs end, from their results.
    if let StmtKind::For(tail) = &mut m.stmts[s].kind {
        tail.lb = ub2;
        for (a, &r) in tail.iter_args.iter_mut().zip(&results) {
            a.init = r;
        }
    }
    let at = m.blocks[b].stmts.iter().position(|&x| x == s).unwrap_or(0);
    m.blocks[b].stmts.insert(at, main);
    m.blocks[b].stmts.insert(at, pre_stmt);
}

/// One copy of a loop body placed in the main loop.
struct Copy {
    /// Its hoisted ops, in order.
    hoisted: Vec<OpId>,
    /// Its other statements, in order (without the final `yield`).
    rest: Vec<StmtId>,
    /// The values its final `yield` gives.
    yields: Vec<ValueId>,
}

/// Deep copy of statements with their values renamed.
#[derive(Default)]
struct Cloner {
    map: HashMap<ValueId, ValueId>,
}

impl Cloner {
    fn get(&self, v: ValueId) -> ValueId {
        self.map.get(&v).copied().unwrap_or(v)
    }

    /// A new value like `v` (its name, its type with extents renamed), defined by `def`.
    fn fresh(&mut self, m: &mut ProgramModule, v: ValueId, def: ValueDef) -> ValueId {
        let ty = self.ty(m.ty(v));
        let d = m.value(v);
        let (name, constant) = (d.name.clone(), d.constant);
        let n = m.new_value_named(ty, name);
        m.values[n].def = def;
        m.values[n].constant = constant;
        self.map.insert(v, n);
        n
    }

    fn ty(&self, t: &Type) -> Type {
        let dim = |d: &Dim| match d {
            Dim::Value(v) => Dim::Value(self.get(*v)),
            other => *other,
        };
        match t {
            Type::Tile(tt) => {
                let mut tt = tt.clone();
                for d in tt.valid.as_mut_slice() {
                    *d = dim(d);
                }
                Type::Tile(tt)
            }
            Type::Tensor(tt) => {
                let mut tt = tt.clone();
                for d in tt.shape.as_mut_slice() {
                    *d = dim(d);
                }
                Type::Tensor(tt)
            }
            other => other.clone(),
        }
    }

    /// Copies the loop body `f.body` into `into`, splitting off the hoisted ops.
    fn copy(
        &mut self,
        m: &mut ProgramModule,
        f: &ForStmt,
        into: BlockId,
        hoisted: &HashSet<OpId>,
    ) -> Copy {
        let mut out = Copy {
            hoisted: Vec::new(),
            rest: Vec::new(),
            yields: Vec::new(),
        };
        let stmts: Vec<StmtId> = m.blocks[f.body].stmts.iter().copied().collect();
        for st in stmts {
            match m.stmts[st].kind.clone() {
                StmtKind::Yield(vals) => out.yields = vals.iter().map(|&v| self.get(v)).collect(),
                StmtKind::Op(ops) => {
                    let mut kept = Vec::new();
                    for &op in ops.iter() {
                        let new = self.op(m, op);
                        if hoisted.contains(&op) {
                            out.hoisted.push(new);
                        } else {
                            kept.push(new);
                        }
                    }
                    if !kept.is_empty() {
                        let span = m.stmts[st].span;
                        let id = m.stmts.push(Statement {
                            kind: StmtKind::Op(kept.into_iter().collect()),
                            span,
                        });
                        out.rest.push(id);
                    }
                }
                _ => out.rest.push(self.stmt(m, st, into)),
            }
        }
        out
    }

    fn op(&mut self, m: &mut ProgramModule, op: OpId) -> OpId {
        let mut o = m.ops[op].clone();
        o.map_uses(&mut |v| self.get(v));
        let new = m.ops.push(o);
        let results: Vec<ValueId> = m.ops[op].results.iter().copied().collect();
        let mut renamed = ValueList::new();
        for (k, r) in results.into_iter().enumerate() {
            renamed.push(self.fresh(m, r, ValueDef::OpResult(new, k as u32)));
        }
        m.ops[new].results = renamed;
        new
    }

    /// A copy of statement `st` (and its blocks) placed in block `parent`.
    fn stmt(&mut self, m: &mut ProgramModule, st: StmtId, parent: BlockId) -> StmtId {
        let span = m.stmts[st].span;
        let new = m.stmts.push(Statement {
            kind: StmtKind::Yield(ValueList::new()),
            span,
        });
        let list =
            |c: &Self, vals: &ValueList| -> ValueList { vals.iter().map(|&v| c.get(v)).collect() };
        let kind = match m.stmts[st].kind.clone() {
            StmtKind::Op(ops) => StmtKind::Op(ops.iter().map(|&op| self.op(m, op)).collect()),
            StmtKind::If(i) => {
                let cond = self.get(i.cond);
                let then_block = self.block(m, i.then_block, parent, new, BlockRole::Then);
                let else_block = self.block(m, i.else_block, parent, new, BlockRole::Else);
                let results = self.results(m, &i.results, new);
                StmtKind::If(IfStmt {
                    cond,
                    then_block,
                    else_block,
                    results,
                })
            }
            StmtKind::Scope(kind, blk) => {
                StmtKind::Scope(kind, self.block(m, blk, parent, new, BlockRole::Scope))
            }
            StmtKind::Yield(v) => StmtKind::Yield(list(self, &v)),
            StmtKind::Return(v) => StmtKind::Return(list(self, &v)),
            StmtKind::Condition(v) => StmtKind::Condition(self.get(v)),
            // Not in an eligible body (no loops, no break / continue).
            other @ (StmtKind::For(_)
            | StmtKind::While(_)
            | StmtKind::Break(_)
            | StmtKind::Continue(_)) => other,
        };
        m.stmts[new].kind = kind;
        new
    }

    fn block(
        &mut self,
        m: &mut ProgramModule,
        b: BlockId,
        parent: BlockId,
        owner: StmtId,
        role: BlockRole,
    ) -> BlockId {
        let new = m.new_block(Some(parent), Some(owner), role);
        let stmts: Vec<StmtId> = m.blocks[b].stmts.iter().copied().collect();
        for st in stmts {
            let copy = self.stmt(m, st, new);
            m.blocks[new].stmts.push(copy);
        }
        new
    }

    fn results(&mut self, m: &mut ProgramModule, rs: &ValueList, owner: StmtId) -> ValueList {
        rs.iter()
            .enumerate()
            .map(|(k, &r)| self.fresh(m, r, ValueDef::StmtResult(owner, k as u32)))
            .collect()
    }
}
