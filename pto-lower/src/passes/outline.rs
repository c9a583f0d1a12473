//! Pass `outline-incore` (seed 004's `OutlineIncoreScopes`): each `statement.scope incore`
//! becomes a function of its own, kind `InCore`, named `{parent}_incore_{n}`, and the scope
//! becomes a `func.call` of it (seed 004: `main_incore_0(x) -> y`).
//!
//! - **Parameters** are the values the scope uses and does not define, in order of first
//!   use: tensors first keep their direction in the parent (a symbolic extent becomes a
//!   dimension of the new function, bound from the tensor), then scalars. A constant is
//!   defined again inside rather than passed.
//! - **Results** are the values the scope defines and the parent uses after it; they must be
//!   scalars (a function returns scalars only: a tile made inside is stored to a tensor there).
//! - A tile made before the scope cannot be used inside it (a tile has no storage shared by
//!   two functions): load it inside instead.
//!
//! The parent becomes `Orchestration`. Scopes nested in a scope are outlined from the
//! outlined function in turn.

use pto_ir::{
    Attr, Attrs, BlockId, Diag, Diagnostics, Dim, Direction, FuncId, FunctionKind, OpId, Opcode,
    Operation, Param, ProgramModule, Signature, StmtId, StmtKind, Type, ValueDef, ValueId,
    ValueList,
};
use rustc_hash::FxHashMap;

use super::Pass;

/// The `outline-incore` pass.
pub struct OutlineIncore;

impl Pass for OutlineIncore {
    fn name(&self) -> &'static str {
        "outline-incore"
    }

    fn run(&self, m: &mut ProgramModule) -> Result<(), Diagnostics> {
        let mut diags = Diagnostics::new();
        let mut k = 0;
        // Functions added by outlining are visited too (their nested scopes).
        while let Some(&f) = m.functions.get(k) {
            k += 1;
            let mut n = 0;
            while let Some((block, s)) = find_scope(m, m.funcs[f].body) {
                match outline(m, f, block, s, &mut n) {
                    Ok(()) => {}
                    Err(d) => {
                        diags.push(d);
                        // Left in place: the lowering runs the scope inline.
                        break;
                    }
                }
            }
        }
        diags.into_result()
    }
}

/// The first `incore` scope in `b`'s tree, with the block holding it.
fn find_scope(m: &ProgramModule, b: BlockId) -> Option<(BlockId, StmtId)> {
    for &s in &m.blocks[b].stmts {
        let kind = &m.stmts[s].kind;
        if matches!(kind, StmtKind::Scope(..)) {
            return Some((b, s));
        }
        for child in kind.blocks() {
            if let Some(found) = find_scope(m, child) {
                return Some(found);
            }
        }
    }
    None
}

/// Every value used in `b`'s tree (operands, attribute values, statement operands, and the
/// values named in the types of what is defined there), in order of first use; and every
/// value defined there.
fn uses_and_defs(m: &ProgramModule, b: BlockId, uses: &mut Vec<ValueId>, defs: &mut Vec<ValueId>) {
    let add = |v: ValueId, uses: &mut Vec<ValueId>| {
        if !uses.contains(&v) {
            uses.push(v);
        }
    };
    for &s in &m.blocks[b].stmts {
        let kind = &m.stmts[s].kind;
        kind.for_each_use(|v| add(v, uses));
        kind.for_each_def(|v| defs.push(v));
        if let StmtKind::Op(ops) = kind {
            for &o in ops {
                let op = &m.ops[o];
                op.for_each_use(|v| add(v, uses));
                defs.extend(op.results.iter().copied());
            }
        }
        for child in kind.blocks() {
            uses_and_defs(m, child, uses, defs);
        }
    }
    for &d in defs.iter() {
        pto_ir::module::for_each_dim(&m.values[d].ty, &mut |v| add(v, uses));
    }
}

/// The values used in `b`'s tree outside block `skip`'s tree.
fn uses_outside(m: &ProgramModule, b: BlockId, skip: BlockId, out: &mut Vec<ValueId>) {
    if b == skip {
        return;
    }
    let mut defs = Vec::new();
    for &s in &m.blocks[b].stmts {
        let kind = &m.stmts[s].kind;
        kind.for_each_use(|v| out.push(v));
        kind.for_each_def(|v| defs.push(v));
        if let StmtKind::Op(ops) = kind {
            for &o in ops {
                let op = &m.ops[o];
                op.for_each_use(|v| out.push(v));
                defs.extend(op.results.iter().copied());
            }
        }
        for child in kind.blocks() {
            uses_outside(m, child, skip, out);
        }
    }
    for d in defs {
        pto_ir::module::for_each_dim(&m.values[d].ty, &mut |v| out.push(v));
    }
}

/// Outlines scope statement `s` of block `block` of function `f`.
fn outline(
    m: &mut ProgramModule,
    f: FuncId,
    block: BlockId,
    s: StmtId,
    n: &mut u32,
) -> Result<(), Diag> {
    let span = m.stmts[s].span;
    let StmtKind::Scope(_, body) = m.stmts[s].kind else {
        return Ok(());
    };
    if leaves_a_loop(m, body) {
        return Err(Diag::new(
            span,
            "a `break` or `continue` in an `incore` region leaves a loop outside the region, which an outlined function cannot do; put the region inside the loop body's branches instead",
        ));
    }
    let (mut uses, mut defs) = (Vec::new(), Vec::new());
    uses_and_defs(m, body, &mut uses, &mut defs);
    let live_in: Vec<ValueId> = uses.into_iter().filter(|v| !defs.contains(v)).collect();
    let mut after = Vec::new();
    uses_outside(m, m.funcs[f].body, body, &mut after);
    let mut live_out: Vec<ValueId> = Vec::new();
    for &d in &defs {
        if after.contains(&d) && !live_out.contains(&d) {
            live_out.push(d);
        }
    }
    for &v in &live_out {
        if !matches!(m.values[v].ty, Type::Scalar(_)) {
            return Err(Diag::new(
                span,
                format!(
                    "`{}` is made in an `incore` region and used after it, but an outlined function returns scalars only; store it to a tensor inside the region",
                    m.ssa_name(v)
                ),
            ));
        }
    }
    let parent_direction = |m: &ProgramModule, v: ValueId| match m.values[v].def {
        ValueDef::Param(g, i) => m
            .funcs
            .get(g)
            .and_then(|g| g.sig.params.get(i as usize))
            .map_or(Direction::In, |p| p.direction),
        _ => Direction::In,
    };
    // Old value -> its replacement inside the new function.
    let mut map: FxHashMap<ValueId, ValueId> = FxHashMap::default();
    let mut params = Vec::new();
    let mut actuals = ValueList::new();
    let mut consts = Vec::new();
    // Tensors first: their symbolic extents become the new function's dimensions.
    for &v in &live_in {
        let Type::Tensor(t) = m.values[v].ty.clone() else {
            continue;
        };
        let mut t2 = t.clone();
        for d in t2.shape.iter_mut() {
            if let Dim::Value(x) = *d {
                let x2 = match map.get(&x) {
                    Some(&x2) => x2,
                    None => {
                        let data = &m.values[x];
                        let (ty, name) = (data.ty.clone(), data.name.clone());
                        let x2 = m.new_value_named(ty, name);
                        map.insert(x, x2);
                        x2
                    }
                };
                *d = Dim::Value(x2);
            }
        }
        let name = m.values[v].name.clone();
        let p = m.new_value_named(Type::Tensor(t2), name);
        map.insert(v, p);
        params.push(Param {
            value: p,
            direction: parent_direction(m, v),
        });
        actuals.push(v);
    }
    for &v in &live_in {
        if map.contains_key(&v) {
            continue;
        }
        match &m.values[v].ty {
            Type::Tensor(_) => {}
            Type::Scalar(_) if m.values[v].constant.is_some() => consts.push(v),
            Type::Scalar(_) => {
                let data = &m.values[v];
                let (ty, name) = (data.ty.clone(), data.name.clone());
                let p = m.new_value_named(ty, name);
                map.insert(v, p);
                params.push(Param {
                    value: p,
                    direction: Direction::In,
                });
                actuals.push(v);
            }
            other => {
                return Err(Diag::new(
                    span,
                    format!(
                        "`{}` ({}) is made before an `incore` region and used inside it; a tile has no storage two functions share: load it inside the region",
                        m.ssa_name(v),
                        pto_ir::typefmt::type_msg(m, other)
                    ),
                ));
            }
        }
    }
    // Constants are defined again, first thing in the new function.
    let mut const_ops = Vec::new();
    for &c in &consts {
        let data = &m.values[c];
        let (ty, name, constant) = (data.ty.clone(), data.name.clone(), data.constant);
        let attrs = match data.def {
            ValueDef::OpResult(o, _) => m.ops[o].attrs.clone(),
            _ => Attrs::new(),
        };
        let c2 = m.new_value_named(ty, name);
        m.values[c2].constant = constant;
        let op = m.ops.push(Operation {
            opcode: Opcode::Const,
            operands: ValueList::new(),
            results: ValueList::from([c2]),
            attrs,
            span,
        });
        m.values[c2].def = ValueDef::OpResult(op, 0);
        map.insert(c, c2);
        const_ops.push(op);
    }
    // Results: each live-out gets a new value inside; the old one becomes the call's result.
    let mut returns = Vec::new();
    let mut inner_outs = ValueList::new();
    for &v in &live_out {
        let data = &m.values[v];
        let (ty, name, def) = (data.ty.clone(), data.name.clone(), data.def);
        let v2 = m.new_value_named(ty.clone(), name);
        m.values[v2].def = def;
        map.insert(v, v2);
        returns.push(ty);
        inner_outs.push(v2);
    }
    let parent = m.funcs[f].name.clone();
    let name = loop {
        let name = format!("{parent}_incore_{n}");
        *n += 1;
        if m.function_by_name(&name).is_none() {
            break name;
        }
    };
    let g = m.add_function(
        &name,
        FunctionKind::InCore,
        Signature { params, returns },
        span,
    )?;
    let gbody = m.funcs[g].body;
    // The scope's statements move into the new body; constants and the return go around them.
    let moved = std::mem::take(&mut m.blocks[body].stmts);
    for &st in &moved {
        for child in m.stmts[st].kind.blocks() {
            m.blocks[child].parent = Some(gbody);
        }
    }
    if !const_ops.is_empty() {
        let st = m.stmts.push(pto_ir::Statement {
            kind: StmtKind::Op(const_ops.into_iter().collect()),
            span,
        });
        m.blocks[gbody].stmts.push(st);
    }
    for st in moved {
        m.blocks[gbody].stmts.push(st);
    }
    rename(m, gbody, &map);
    for &d in &defs {
        let ty = map_type(&m.values[d].ty, &map);
        m.values[d].ty = ty;
    }
    if !inner_outs.is_empty() {
        m.push_stmt(
            gbody,
            pto_ir::Statement {
                kind: StmtKind::Return(inner_outs),
                span,
            },
        );
    }
    // The scope becomes the call.
    let call = m.ops.push(Operation {
        opcode: Opcode::Call,
        operands: actuals,
        results: live_out.iter().copied().collect(),
        attrs: Attrs::of([("callee", Attr::Symbol(name))]),
        span,
    });
    for (i, &v) in live_out.iter().enumerate() {
        m.values[v].def = ValueDef::OpResult(call, i as u32);
    }
    m.stmts[s].kind = StmtKind::Op([call].into_iter().collect::<pto_ir::OpList>());
    let _ = block;
    if m.funcs[f].kind == FunctionKind::Kernel {
        m.funcs[f].kind = FunctionKind::Orchestration;
    }
    Ok(())
}

/// Whether `b`'s tree holds a `break` / `continue` of a loop outside it.
fn leaves_a_loop(m: &ProgramModule, b: BlockId) -> bool {
    m.blocks[b].stmts.iter().any(|&s| match &m.stmts[s].kind {
        StmtKind::Break(_) | StmtKind::Continue(_) => true,
        // Those inside a loop of the region are its own.
        StmtKind::For(_) | StmtKind::While(_) => false,
        kind => kind.blocks().any(|c| leaves_a_loop(m, c)),
    })
}

/// Rewrites, in `b`'s tree, every use and definition of a value `map` replaces.
fn rename(m: &mut ProgramModule, b: BlockId, map: &FxHashMap<ValueId, ValueId>) {
    let get = |v: ValueId| map.get(&v).copied().unwrap_or(v);
    let stmts = m.blocks[b].stmts.clone();
    for s in stmts {
        let mut f = get;
        m.stmts[s].kind.map_uses(&mut f);
        let ops: Vec<OpId> = match &m.stmts[s].kind {
            StmtKind::Op(ops) => ops.to_vec(),
            _ => Vec::new(),
        };
        for o in ops {
            let op = &mut m.ops[o];
            op.map_uses(&mut f);
            for r in op.results.iter_mut() {
                *r = get(*r);
            }
        }
        match &mut m.stmts[s].kind {
            StmtKind::For(x) => {
                x.iv = get(x.iv);
                for a in x.iter_args.iter_mut() {
                    a.arg = get(a.arg);
                }
                for r in x.results.iter_mut() {
                    *r = get(*r);
                }
            }
            StmtKind::If(x) => {
                for r in x.results.iter_mut() {
                    *r = get(*r);
                }
            }
            StmtKind::While(x) => {
                for a in x.iter_args.iter_mut() {
                    a.arg = get(a.arg);
                }
                for r in x.results.iter_mut() {
                    *r = get(*r);
                }
            }
            _ => {}
        }
        for child in m.stmts[s].kind.blocks() {
            rename(m, child, map);
        }
    }
}

/// `t` with every symbolic extent `map` replaces replaced.
fn map_type(t: &Type, map: &FxHashMap<ValueId, ValueId>) -> Type {
    let dim = |d: &Dim| match d {
        Dim::Value(v) => Dim::Value(map.get(v).copied().unwrap_or(*v)),
        other => *other,
    };
    match t {
        Type::Tile(tt) => {
            let mut tt = tt.clone();
            for d in tt.valid.iter_mut() {
                *d = dim(d);
            }
            Type::Tile(tt)
        }
        Type::Tensor(tt) => {
            let mut tt = tt.clone();
            for d in tt.shape.iter_mut() {
                *d = dim(d);
            }
            Type::Tensor(tt)
        }
        Type::Tuple(ts) => Type::Tuple(ts.iter().map(|t| map_type(t, map)).collect()),
        other => other.clone(),
    }
}
