//! Inlining of calls: each `func.call` in a function (and each call the inlined bodies make)
//! is replaced by a copy of the callee's body, its parameters bound to the arguments, its
//! symbolic dimensions to the extents of the tensors passed for them, and its returned
//! values in place of the call's results.
//!
//! The lowering inlines the calls of an A2A3 kernel whose tile work, with that of the
//! functions it calls, uses both the cube and the vector unit (`compile.rs`): A2A3 runs
//! them on separate cores, so such a kernel is split into a cube part and a vector part
//! (`lower/split.rs`), and a callee's work must be split with the caller's. Inlined, it is
//! the caller's own work: the passes place its tiles with the caller's (no buffer shared by
//! two functions' tiles), its events with the caller's, and the split gives each core its
//! part of it with the transfers and handoffs it needs. The host code and the C++ are
//! printed from the inlined program; the interpreter runs the module as written (with its
//! calls), so the tests compare the two.
//!
//! Calls never recurse (the verifier refuses a cycle), so inlining ends; a call graph whose
//! inlined size passes [`MAX_INLINED_OPS`] operations is refused at the call that passes it.

use pto_ir::{
    Attr, Attrs, BlockId, Constant, Diag, Dim, FuncId, OpId, Opcode, Operation, ProgramModule,
    Statement, StmtId, StmtKind, Type, ValueDef, ValueId, ValueList,
};
use rustc_hash::FxHashMap;

/// The most operations the inlined copies of callees may add to one function: a call graph
/// that calls a function twice at each of many levels grows exponentially when inlined.
pub const MAX_INLINED_OPS: usize = 20_000;

/// Inlines every call in function `f` of `m`, and every call the inlined bodies make, in
/// program order. Returns the number of functions inlined (named in the [`INLINED`]
/// attribute); fails at a call whose inlining passes [`MAX_INLINED_OPS`] or whose callee
/// cannot be bound (an unknown function, a symbolic dimension bound to an unnamed extent,
/// results the callee does not return).
pub fn inline_calls(m: &mut ProgramModule, f: FuncId, why: &str) -> Result<usize, Diag> {
    inline_calls_within(m, f, why, MAX_INLINED_OPS)
}

/// [`inline_calls`] with another limit than [`MAX_INLINED_OPS`] on the operations added.
pub fn inline_calls_within(
    m: &mut ProgramModule,
    f: FuncId,
    why: &str,
    max_ops: usize,
) -> Result<usize, Diag> {
    let mut names: Vec<String> = Vec::new();
    let mut added = 0;
    while let Some((block, at, k)) = find_call(m, m.funcs[f].body) {
        let room = max_ops.saturating_sub(added);
        let (size, name) = inline_one(m, f, block, at, k, why, room)?;
        added += size;
        if !names.contains(&name) {
            names.push(name);
        }
    }
    if !names.is_empty() {
        m.funcs[f].attrs.set(INLINED, Attr::Str(names.join(", ")));
    }
    Ok(names.len())
}

/// The function attribute that lists the callees inlined into a function (comma-separated,
/// in order of first call), which `LOWERED` and the C++ header comment name.
pub const INLINED: &str = "inlined_calls";

/// Whether function `f` of `m` calls another.
pub fn has_call(m: &ProgramModule, f: FuncId) -> bool {
    m.funcs
        .get(f)
        .is_some_and(|func| find_call(m, func.body).is_some())
}

/// The first call in `b`'s tree: its block, the index of its `statement.op` in the block,
/// and its index in that statement's ops.
fn find_call(m: &ProgramModule, b: BlockId) -> Option<(BlockId, usize, usize)> {
    for (i, &s) in m.blocks[b].stmts.iter().enumerate() {
        let kind = &m.stmts[s].kind;
        if let StmtKind::Op(ops) = kind
            && let Some(k) = ops.iter().position(|&o| m.ops[o].opcode == Opcode::Call)
        {
            return Some((b, i, k));
        }
        for child in kind.blocks() {
            if let Some(found) = find_call(m, child) {
                return Some(found);
            }
        }
    }
    None
}

/// The number of operations in `b`'s tree.
fn op_count(m: &ProgramModule, b: BlockId) -> usize {
    m.blocks[b]
        .stmts
        .iter()
        .map(|&s| {
            let kind = &m.stmts[s].kind;
            let own = match kind {
                StmtKind::Op(ops) => ops.len(),
                _ => 0,
            };
            own + kind.blocks().map(|c| op_count(m, c)).sum::<usize>()
        })
        .sum()
}

/// Inlines the call at op `k` of statement `at` of `block` (in function `f`); returns the operations added.
fn inline_one(
    m: &mut ProgramModule,
    f: FuncId,
    block: BlockId,
    at: usize,
    k: usize,
    why: &str,
    room: usize,
) -> Result<(usize, String), Diag> {
    let stmt = m.blocks[block].stmts[at];
    let StmtKind::Op(ops) = &m.stmts[stmt].kind else {
        return Ok((0, String::new()));
    };
    let ops = ops.clone();
    let call = ops[k];
    let op = m.ops[call].clone();
    let name = match op.attrs.get("callee") {
        Some(Attr::Symbol(s) | Attr::Str(s) | Attr::Ident(s)) => s.to_string(),
        _ => return Err(Diag::new(op.span, "`func.call` needs a `callee` symbol")),
    };
    let Some(g) = m.function_by_name(&name) else {
        return Err(Diag::new(
            op.span,
            format!("`@{name}` is not a function of the program"),
        ));
    };
    // The arguments a call takes when it is not inlined (`lower/mod.rs`), so that inlining
    // changes where the work runs, not which calls compile.
    for &v in &op.operands {
        match (&m.values[v].ty, m.values[v].def) {
            (Type::Scalar(_), _) | (Type::Tensor(_), ValueDef::Param(..)) => {}
            (Type::Tensor(_), _) => {
                return Err(Diag::new(
                    op.span,
                    format!(
                        "`@{name}` is passed a tensor that is not a parameter of the caller; only parameters are lowered as call arguments"
                    ),
                ));
            }
            _ => {
                return Err(Diag::new(
                    op.span,
                    format!(
                        "`@{name}` is passed a tile: tile arguments of a call are not lowered yet; pass the tensor and load the tile in the callee"
                    ),
                ));
            }
        }
    }
    let size = op_count(m, m.funcs[g].body);
    if size > room {
        return Err(Diag::new(
            op.span,
            format!(
                "the call of `{name}` cannot be inlined (the inlined calls would pass the limit of operations they may add): {why}"
            ),
        ));
    }
    let mut cx = Cloner {
        map: FxHashMap::default(),
    };
    // Parameters take the arguments; symbolic dimensions the extents of the tensors passed
    // for them (a constant extent becomes a constant op before the inlined body).
    let callee = m.funcs[g].clone();
    let mut before: Vec<OpId> = ops[..k].to_vec();
    for (p, &a) in callee.sig.params.iter().zip(&op.operands) {
        cx.map.insert(p.value, a);
    }
    for &d in &callee.dims {
        let extent = callee
            .sig
            .params
            .iter()
            .zip(&op.operands)
            .find_map(|(p, &a)| {
                let (Type::Tensor(pt), Type::Tensor(at)) = (&m.values[p.value].ty, &m.values[a].ty)
                else {
                    return None;
                };
                let i = pt.shape.iter().position(|&e| e == Dim::Value(d))?;
                at.shape.get(i).copied()
            });
        let v = match extent {
            Some(Dim::Value(v)) => v,
            Some(Dim::Const(c)) => {
                let ty = m.values[d].ty.clone();
                let v = m.new_constant(Constant::Int64(c as i64), Some(ty), None);
                let o = m.ops.push(Operation {
                    opcode: Opcode::Const,
                    operands: ValueList::new(),
                    results: ValueList::from([v]),
                    attrs: Attrs::of([("value", Attr::Int(c as i64))]),
                    span: op.span,
                });
                m.values[v].def = ValueDef::OpResult(o, 0);
                before.push(o);
                v
            }
            _ => {
                return Err(Diag::new(
                    op.span,
                    format!(
                        "the call of `{name}` cannot be inlined (a symbolic dimension of `{name}` has no extent to take from the arguments): {why}"
                    ),
                ));
            }
        };
        cx.map.insert(d, v);
    }
    // The body, its `return` taken apart.
    let mut body = Vec::new();
    let mut returned = Vec::new();
    for &s in m.blocks[callee.body].stmts.clone().iter() {
        if let StmtKind::Return(vals) = &m.stmts[s].kind {
            returned = vals.iter().map(|&v| cx.get(v)).collect();
            continue;
        }
        body.push(cx.stmt(m, s, block));
    }
    if returned.len() != op.results.len() {
        return Err(Diag::new(
            op.span,
            format!(
                "the call of `{name}` takes {} results, and `{name}` returns {}",
                op.results.len(),
                returned.len()
            ),
        ));
    }
    // The statement holding the call becomes the ops before it, the inlined body, and a
    // statement of the ops after it.
    let span = m.stmts[stmt].span;
    let mut stmts: Vec<StmtId> = Vec::new();
    if !before.is_empty() {
        m.stmts[stmt].kind = StmtKind::Op(before.into_iter().collect());
        stmts.push(stmt);
    }
    stmts.extend(body);
    if k + 1 < ops.len() {
        stmts.push(m.stmts.push(Statement {
            kind: StmtKind::Op(ops[k + 1..].iter().copied().collect()),
            span,
        }));
    }
    let list = &mut m.blocks[block].stmts;
    let mut all: Vec<StmtId> = list[..at].to_vec();
    all.extend(stmts);
    all.extend(list[at + 1..].iter().copied());
    *list = all.into_iter().collect();
    // Every use of a result (in the function the call was in) takes the returned value.
    let subst: FxHashMap<ValueId, ValueId> = op.results.iter().copied().zip(returned).collect();
    if !subst.is_empty() {
        substitute(m, m.funcs[f].body, &subst);
    }
    Ok((size, name))
}

/// Rewrites every use of a key of `map` in `b`'s tree (operands, attributes, statement
/// operands, and the extents in the types of the values defined there).
fn substitute(m: &mut ProgramModule, b: BlockId, map: &FxHashMap<ValueId, ValueId>) {
    let mut f = |v: ValueId| map.get(&v).copied().unwrap_or(v);
    for s in m.blocks[b].stmts.clone() {
        let mut defs = Vec::new();
        m.stmts[s].kind.map_uses(&mut f);
        m.stmts[s].kind.for_each_def(|v| defs.push(v));
        if let StmtKind::Op(ops) = m.stmts[s].kind.clone() {
            for o in ops {
                m.ops[o].map_uses(&mut f);
                defs.extend(m.ops[o].results.iter().copied());
            }
        }
        for d in defs {
            map_dims(&mut m.values[d].ty, &mut f);
        }
        for child in m.stmts[s].kind.blocks() {
            substitute(m, child, map);
        }
    }
}

/// Rewrites the values named by the extents of `t`.
fn map_dims(t: &mut Type, f: &mut impl FnMut(ValueId) -> ValueId) {
    let mut dim = |d: &mut Dim| {
        if let Dim::Value(v) = d {
            *v = f(*v);
        }
    };
    match t {
        Type::Tile(tt) => tt.valid.iter_mut().for_each(&mut dim),
        Type::Tensor(tt) => tt.shape.iter_mut().for_each(&mut dim),
        Type::Tuple(ts) => ts.iter_mut().for_each(|t| map_dims(t, f)),
        _ => {}
    }
}

/// Copies statements, ops and values of a callee, each defined value a new one.
struct Cloner {
    /// Callee value -> caller value (parameters, dimensions, and the copies so far).
    map: FxHashMap<ValueId, ValueId>,
}

impl Cloner {
    fn get(&self, v: ValueId) -> ValueId {
        self.map.get(&v).copied().unwrap_or(v)
    }

    /// A new value like `v` (name, type with its extents mapped, constant), defined at `def`.
    fn value(&mut self, m: &mut ProgramModule, v: ValueId, def: ValueDef) -> ValueId {
        let old = &m.values[v];
        let (name, constant) = (old.name.clone(), old.constant);
        let mut ty = old.ty.clone();
        map_dims(&mut ty, &mut |x| self.get(x));
        let n = m.new_value_named(ty, name);
        m.values[n].constant = constant;
        m.values[n].def = def;
        self.map.insert(v, n);
        n
    }

    fn values(
        &mut self,
        m: &mut ProgramModule,
        vs: &[ValueId],
        def: impl Fn(u32) -> ValueDef,
    ) -> ValueList {
        vs.iter()
            .enumerate()
            .map(|(i, &v)| self.value(m, v, def(i as u32)))
            .collect()
    }

    fn block(
        &mut self,
        m: &mut ProgramModule,
        b: BlockId,
        parent: BlockId,
        owner: StmtId,
    ) -> BlockId {
        let role = m.blocks[b].role;
        let nb = m.new_block(Some(parent), Some(owner), role);
        for s in m.blocks[b].stmts.clone() {
            let ns = self.stmt(m, s, nb);
            m.blocks[nb].stmts.push(ns);
        }
        nb
    }

    /// A copy of statement `s`, its child blocks children of `parent`'s tree.
    fn stmt(&mut self, m: &mut ProgramModule, s: StmtId, parent: BlockId) -> StmtId {
        let Statement { kind, span } = m.stmts[s].clone();
        // Pushed first: the copies of its blocks name it as their owner.
        let ns = m.stmts.push(Statement {
            kind: StmtKind::Yield(ValueList::new()),
            span,
        });
        let mut kind = kind;
        kind.map_uses(&mut |v| self.get(v));
        let kind = match kind {
            StmtKind::Op(ops) => {
                let mut out = Vec::new();
                for o in ops {
                    let mut op = m.ops[o].clone();
                    op.map_uses(&mut |v| self.get(v));
                    let results = op.results.clone();
                    let no = m.ops.push(op);
                    m.ops[no].results = self.values(m, &results, |i| ValueDef::OpResult(no, i));
                    out.push(no);
                }
                StmtKind::Op(out.into_iter().collect())
            }
            StmtKind::For(mut f) => {
                f.iv = self.value(m, f.iv, ValueDef::Iv(ns));
                for (i, a) in f.iter_args.iter_mut().enumerate() {
                    a.arg = self.value(m, a.arg, ValueDef::IterArg(ns, i as u32));
                }
                f.body = self.block(m, f.body, parent, ns);
                f.results = self.values(m, &f.results, |i| ValueDef::StmtResult(ns, i));
                StmtKind::For(f)
            }
            StmtKind::While(mut w) => {
                for (i, a) in w.iter_args.iter_mut().enumerate() {
                    a.arg = self.value(m, a.arg, ValueDef::IterArg(ns, i as u32));
                }
                w.cond_block = self.block(m, w.cond_block, parent, ns);
                w.body = self.block(m, w.body, parent, ns);
                w.results = self.values(m, &w.results, |i| ValueDef::StmtResult(ns, i));
                StmtKind::While(w)
            }
            StmtKind::If(mut i) => {
                i.then_block = self.block(m, i.then_block, parent, ns);
                i.else_block = self.block(m, i.else_block, parent, ns);
                i.results = self.values(m, &i.results, |k| ValueDef::StmtResult(ns, k));
                StmtKind::If(i)
            }
            StmtKind::Scope(kind, b) => StmtKind::Scope(kind, self.block(m, b, parent, ns)),
            other => other,
        };
        m.stmts[ns].kind = kind;
        ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pto_ir::DataType;
    use pto_ir::entity::EntityId;

    #[test]
    fn dims_in_types_are_mapped() {
        let mut ty = Type::Tensor(pto_ir::TensorType {
            dtype: DataType::Fp32,
            shape: [Dim::Value(ValueId::new(3)), Dim::Const(4)].into(),
            format: Default::default(),
        });
        map_dims(&mut ty, &mut |v| {
            if v == ValueId::new(3) {
                ValueId::new(7)
            } else {
                v
            }
        });
        let Type::Tensor(t) = ty else { return };
        assert_eq!(t.shape[0], Dim::Value(ValueId::new(7)));
        assert_eq!(t.shape[1], Dim::Const(4));
    }
}
