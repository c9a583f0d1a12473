//! Pass 2, infer tile info (seed 002 section 8 step 3): gives every tile value a location
//! (`Vec`, `Mat`, `Left`, `Right`, `Acc`, `Bias`); its layout follows from location and shape
//! ([`crate::info::layout_name`]) and its valid region is in its type. Inserts the moves
//! matmul needs: operands loaded to `Mat` and moved to `Left` / `Right` (`Bias` for a bias),
//! results in `Acc`, moved to `Vec` when a vector op uses them (a store takes `Acc` directly).
//!
//! Locations come from a small fixed point: a value's location is what produces it (loads
//! go to `Mat` when a matmul consumes them, matmuls to `Acc`, moves to their `loc`, fills
//! and loop-carried values to what their users demand (a fill for a matmul operand to
//! `Mat`), `extract`s to the matmul operand they feed or `Vec`, everything else to `Vec`);
//! then every use whose demand differs gets a `tile.move`. An `extract`'s source is demanded
//! where `TEXTRACT` takes it: `Mat` for a Left / Right window, else `Vec`.
//!
//! A tile parameter lives in global memory (pto-isa has no tile-typed kernel argument), so
//! the pass first brings each one in: a `tile.move %param` at the function's entry, which
//! every use then reads ([`bring_in_tile_params`]). Its location is chosen like a load's
//! (`Mat` when a matmul consumes it, else `Vec`); a parameter wanted in both gets a second
//! entry move. Done here, in the IR, because that is where tiles get locations and slots:
//! `bufferize` counts the parameter's tile in its buffer like any other, `insert-events`
//! orders it (an MTE2 transfer, [`crate::info::pipe_of`]), the A2A3 split gives it to the
//! core whose buffer holds it, and `LOWERED` shows it. The C++ writes the move as a `TLOAD`
//! of the parameter's global memory; the host code and the interpreter copy the tile, so
//! their results do not change.

use pto_ir::entity::SecondaryMap;
use pto_ir::{
    Attr, Attrs, BlockId, Diagnostics, FuncId, IterArg, MemRef, MemorySpace, Name, OpClass, OpId,
    Opcode, ProgramModule, StmtId, StmtKind, TileType, Type, ValueDef, ValueId,
};

use super::Pass;
use crate::info::{set_space, tile_param_loaded};
use crate::walk;

/// The infer-tile-info pass.
pub struct InferTileInfo;

impl Pass for InferTileInfo {
    fn name(&self) -> &'static str {
        "infer-tile-info"
    }

    fn run(&self, m: &mut ProgramModule) -> Result<(), Diagnostics> {
        untiled_tensor_ops(m)?;
        // By index: the pass changes the module, never its function list (no copy of it).
        for k in 0..m.functions.len() {
            let f = m.functions[k];
            run_function(m, f);
        }
        Ok(())
    }
}

/// Tensor-level ops have no tile location: `tile-tensor-ops` (before this pass in the
/// pipeline) tiles them or refuses them, so one left here (this pass run alone) is an error
/// naming it, never a function whose tensor ops no later step lowers.
fn untiled_tensor_ops(m: &ProgramModule) -> Result<(), Diagnostics> {
    let mut out = Diagnostics::new();
    for &f in &m.functions {
        let tree = walk::Tree::of(m, f);
        for &s in &tree.stmts {
            let StmtKind::Op(ops) = &m.stmts[s].kind else {
                continue;
            };
            for &o in ops {
                let op = &m.ops[o];
                if op.opcode.info().dialect == "tensor" {
                    out.push(
                        pto_ir::Diag::new(
                            op.span,
                            format!(
                                "`{}` in `{}` is a tensor-level op, not tiled yet: run `tile-tensor-ops` first",
                                op.opcode, m.funcs[f].name
                            ),
                        )
                        .note("write the function with tile loads, tile ops and stores (`tile.load` / `tile.store`)"),
                    );
                }
            }
        }
    }
    out.into_result()
}

/// Where a use sits.
#[derive(Clone, Copy, Debug)]
enum User {
    /// Operand `idx` of op `op` inside `statement.op` `stmt`.
    Op { op: OpId, idx: usize, stmt: StmtId },
    /// Init `idx` of loop `stmt`, which sits in `block`.
    Init {
        stmt: StmtId,
        idx: usize,
        block: BlockId,
    },
    /// Value `idx` of terminator `stmt` (in `block`), flowing into the values `targets`
    /// (iter args or `if` results).
    Term {
        stmt: StmtId,
        idx: usize,
        target: ValueId,
        block: BlockId,
    },
}

struct Facts {
    /// Every use of a tile in program order (only tiles have locations), with the index of
    /// the next use of the same value: each value's uses are a list linked through one
    /// vector (no sort, no second copy).
    users: Vec<(User, Option<u32>)>,
    /// The first and last entry of each value's list in `users`.
    uses_of: SecondaryMap<ValueId, Option<(u32, u32)>>,
    /// Tile values defined by the function, in program order.
    defs: Vec<ValueId>,
}

impl Facts {
    /// The uses of `v`, in program order.
    fn uses(&self, v: ValueId) -> impl Iterator<Item = User> + '_ {
        let mut at = self.uses_of[v].map(|(first, _)| first);
        std::iter::from_fn(move || {
            let &(u, next) = self.users.get(at? as usize)?;
            at = next;
            Some(u)
        })
    }

    /// Records use `u` of `v` when `v` is a tile (nothing else has a location).
    fn add_use(&mut self, m: &ProgramModule, v: ValueId, u: User) {
        if !is_tile(m, v) {
            return;
        }
        let i = self.users.len() as u32;
        self.users.push((u, None));
        self.uses_of[v] = match self.uses_of[v] {
            Some((first, last)) => {
                if let Some(tail) = self.users.get_mut(last as usize) {
                    tail.1 = Some(i);
                }
                Some((first, i))
            }
            None => Some((i, i)),
        };
    }
}

/// Where a value is: its location once the fixed point has one (`None`: not decided).
type Locations = SecondaryMap<ValueId, Option<MemorySpace>>;

fn is_tile(m: &ProgramModule, v: ValueId) -> bool {
    m.values[v].ty.as_tile().is_some()
}

fn gather(m: &ProgramModule, f: FuncId) -> Facts {
    let mut facts = Facts {
        users: Vec::new(),
        uses_of: SecondaryMap::with_len(m.values.len(), None),
        defs: Vec::with_capacity(m.values.len()),
    };
    /// A loop's initial values, used by statement `s` in block `b`; its tile iter args are
    /// defined there.
    fn loop_entry(m: &ProgramModule, s: StmtId, b: BlockId, args: &[IterArg], facts: &mut Facts) {
        for (idx, a) in args.iter().enumerate() {
            let init = User::Init {
                stmt: s,
                idx,
                block: b,
            };
            facts.add_use(m, a.init, init);
            if is_tile(m, a.arg) {
                facts.defs.push(a.arg);
            }
        }
    }
    fn walk_block(
        m: &ProgramModule,
        b: BlockId,
        // The innermost loop around `b` (what a `break` / `continue` leaves or repeats).
        inner_loop: Option<StmtId>,
        facts: &mut Facts,
    ) {
        for &s in &m.blocks[b].stmts {
            match &m.stmts[s].kind {
                StmtKind::Op(ops) => {
                    for &o in ops {
                        for (idx, &v) in m.ops[o].operands.iter().enumerate() {
                            facts.add_use(
                                m,
                                v,
                                User::Op {
                                    op: o,
                                    idx,
                                    stmt: s,
                                },
                            );
                        }
                        facts
                            .defs
                            .extend(m.ops[o].results.iter().copied().filter(|&r| is_tile(m, r)));
                    }
                }
                StmtKind::For(l) => {
                    loop_entry(m, s, b, &l.iter_args, facts);
                    walk_block(m, l.body, Some(s), facts);
                    facts
                        .defs
                        .extend(l.results.iter().copied().filter(|&r| is_tile(m, r)));
                }
                StmtKind::While(w) => {
                    loop_entry(m, s, b, &w.iter_args, facts);
                    walk_block(m, w.cond_block, Some(s), facts);
                    walk_block(m, w.body, Some(s), facts);
                    facts
                        .defs
                        .extend(w.results.iter().copied().filter(|&r| is_tile(m, r)));
                }
                StmtKind::If(x) => {
                    walk_block(m, x.then_block, inner_loop, facts);
                    walk_block(m, x.else_block, inner_loop, facts);
                    facts
                        .defs
                        .extend(x.results.iter().copied().filter(|&r| is_tile(m, r)));
                }
                StmtKind::Scope(_, blk) => walk_block(m, *blk, inner_loop, facts),
                StmtKind::Yield(vals) => {
                    // An `if` branch yields into the innermost `if` when the block is one of
                    // its branches, else into the innermost loop.
                    match m.blocks[b].owner.map(|o| &m.stmts[o].kind) {
                        Some(StmtKind::If(x)) => {
                            push_term(m, facts, (s, b), vals, x.results.iter().copied())
                        }
                        Some(StmtKind::For(l)) => {
                            push_term(m, facts, (s, b), vals, args(&l.iter_args))
                        }
                        Some(StmtKind::While(w)) => {
                            push_term(m, facts, (s, b), vals, args(&w.iter_args))
                        }
                        _ => {}
                    }
                }
                StmtKind::Break(vals) | StmtKind::Continue(vals) => {
                    match inner_loop.map(|l| &m.stmts[l].kind) {
                        Some(StmtKind::For(l)) => {
                            push_term(m, facts, (s, b), vals, args(&l.iter_args))
                        }
                        Some(StmtKind::While(w)) => {
                            push_term(m, facts, (s, b), vals, args(&w.iter_args))
                        }
                        _ => {}
                    }
                }
                StmtKind::Condition(_) | StmtKind::Return(_) => {}
            }
        }
    }
    fn args(iter_args: &[IterArg]) -> impl Iterator<Item = ValueId> + '_ {
        iter_args.iter().map(|a| a.arg)
    }
    /// The uses of terminator `s` in block `b`.
    fn push_term(
        m: &ProgramModule,
        facts: &mut Facts,
        (s, b): (StmtId, BlockId),
        vals: &[ValueId],
        targets: impl Iterator<Item = ValueId>,
    ) {
        for (idx, (&v, t)) in vals.iter().zip(targets).enumerate() {
            facts.add_use(
                m,
                v,
                User::Term {
                    stmt: s,
                    idx,
                    target: t,
                    block: b,
                },
            );
        }
    }
    walk_block(m, m.funcs[f].body, None, &mut facts);
    facts
}

/// What location use `u` needs its value in (`None`: any).
fn demand(m: &ProgramModule, loc: &Locations, u: User) -> Option<MemorySpace> {
    match u {
        User::Op { op, idx, .. } => {
            let o = &m.ops[op];
            match (o.opcode.class(), idx) {
                (OpClass::Matmul, 0) | (OpClass::MatmulBias, 0) | (OpClass::MatmulAcc, 1) => {
                    Some(MemorySpace::Left)
                }
                (OpClass::Matmul, 1) | (OpClass::MatmulBias, 1) | (OpClass::MatmulAcc, 2) => {
                    Some(MemorySpace::Right)
                }
                (OpClass::MatmulBias, 2) => Some(MemorySpace::Bias),
                (OpClass::MatmulAcc, 0) => Some(MemorySpace::Acc),
                // pto-isa's `TEXTRACT` cuts a Left / Right operand out of a boxed Mat tile
                // and a Vec window out of a Vec tile (on both targets; `Vec -> Left` exists
                // on none), so the source sits where the window's users need it.
                (OpClass::Extract, 0) => match o.results.first().and_then(|&r| loc[r]) {
                    Some(MemorySpace::Left | MemorySpace::Right) => Some(MemorySpace::Mat),
                    _ => Some(MemorySpace::Vec),
                },
                (OpClass::Store | OpClass::Move | OpClass::Extract, _) => None,
                (OpClass::Valid, _) => None,
                _ => {
                    if is_tile(m, o.operands[idx]) {
                        Some(MemorySpace::Vec)
                    } else {
                        None
                    }
                }
            }
        }
        User::Init { stmt, idx, .. } => {
            let arg = match &m.stmts[stmt].kind {
                StmtKind::For(l) => l.iter_args.get(idx).map(|a| a.arg),
                StmtKind::While(w) => w.iter_args.get(idx).map(|a| a.arg),
                _ => None,
            }?;
            loc[arg]
        }
        User::Term { target, .. } => loc[target],
    }
}

fn natural(m: &ProgramModule, facts: &Facts, loc: &Locations, v: ValueId) -> MemorySpace {
    let demands = || facts.uses(v).filter_map(|u| demand(m, loc, u));
    match m.values[v].def {
        ValueDef::OpResult(o, _) => {
            let op = &m.ops[o];
            // A transfer from global memory lands in Mat when a matmul consumes it.
            let from_memory = || {
                if demands().any(|s| {
                    matches!(
                        s,
                        MemorySpace::Left
                            | MemorySpace::Right
                            | MemorySpace::Bias
                            | MemorySpace::Mat
                    )
                }) {
                    MemorySpace::Mat
                } else {
                    MemorySpace::Vec
                }
            };
            match op.opcode.class() {
                OpClass::Load => from_memory(),
                OpClass::Matmul | OpClass::MatmulAcc | OpClass::MatmulBias => MemorySpace::Acc,
                // The entry move of a tile parameter before its location is decided.
                OpClass::Move
                    if tile_param_loaded(m, op).is_some() && op.attrs.get("loc").is_none() =>
                {
                    from_memory()
                }
                OpClass::Move => op
                    .attrs
                    .get("loc")
                    .and_then(Attr::as_ident)
                    .and_then(MemorySpace::from_name)
                    .unwrap_or(MemorySpace::Vec),
                // `TEXPANDS` fills Vec and Mat tiles (and the lowering zero-fills Acc): a
                // matmul operand is filled in Mat and moved to Left / Right / Bias from there.
                OpClass::Full => match demands().next() {
                    Some(MemorySpace::Left | MemorySpace::Right | MemorySpace::Bias) => {
                        MemorySpace::Mat
                    }
                    other => other.unwrap_or(MemorySpace::Vec),
                },
                OpClass::Extract => demands()
                    .find(|s| matches!(s, MemorySpace::Left | MemorySpace::Right))
                    .unwrap_or(MemorySpace::Vec),
                // `valid` narrows in place: it stays where its source is.
                OpClass::Valid => op
                    .operands
                    .first()
                    .and_then(|&s| loc[s])
                    .unwrap_or(MemorySpace::Vec),
                _ => MemorySpace::Vec,
            }
        }
        ValueDef::IterArg(s, k) => {
            let own = demands().find(|&d| d != MemorySpace::Vec);
            let init = match &m.stmts[s].kind {
                StmtKind::For(l) => l.iter_args.get(k as usize).map(|a| a.init),
                StmtKind::While(w) => w.iter_args.get(k as usize).map(|a| a.init),
                _ => None,
            };
            own.or_else(|| init.and_then(|i| loc[i]))
                .unwrap_or(MemorySpace::Vec)
        }
        ValueDef::StmtResult(s, k) => match &m.stmts[s].kind {
            StmtKind::For(l) => l.iter_args.get(k as usize).and_then(|a| loc[a.arg]),
            StmtKind::While(w) => w.iter_args.get(k as usize).and_then(|a| loc[a.arg]),
            StmtKind::If(x) => {
                let first_yield =
                    m.blocks[x.then_block]
                        .stmts
                        .last()
                        .and_then(|&t| match &m.stmts[t].kind {
                            StmtKind::Yield(v) => v.get(k as usize).copied(),
                            _ => None,
                        });
                first_yield.and_then(|y| loc[y])
            }
            _ => None,
        }
        .unwrap_or(MemorySpace::Vec),
        _ => MemorySpace::Vec,
    }
}

/// Places the tiles of function `f` and inserts its moves.
fn run_function(m: &mut ProgramModule, f: FuncId) {
    let entry = bring_in_tile_params(m, f);
    let facts = gather(m, f);
    let mut loc = Locations::with_len(m.values.len(), None);
    for _ in 0..4 {
        let mut changed = false;
        for &v in &facts.defs {
            let l = Some(natural(m, &facts, &loc, v));
            changed |= loc[v] != l;
            loc[v] = l;
        }
        // A round that changes nothing is the fixed point: later rounds would repeat it.
        if !changed {
            break;
        }
    }
    // Moves, collected first and applied afterwards so positions stay valid.
    let mut op_moves: Vec<(StmtId, OpId, usize, ValueId, MemorySpace)> = Vec::new();
    let mut stmt_moves: Vec<(User, ValueId, MemorySpace)> = Vec::new();
    let mut second_loads: Vec<(User, ValueId, MemorySpace, StmtId)> = Vec::new();
    for &v in &facts.defs {
        let have = loc[v].unwrap_or(MemorySpace::Vec);
        for u in facts.uses(v) {
            let Some(want) = demand(m, &loc, u) else {
                continue;
            };
            if want == have {
                continue;
            }
            // A tile parameter wanted in the other one of Vec and Mat is brought in there
            // too: no target moves Mat to Vec, and A2A3 has no Vec to Mat.
            if let Some(stmt) = entry
                && matches!(want, MemorySpace::Vec | MemorySpace::Mat)
                && let ValueDef::OpResult(o, 0) = m.values[v].def
                && let Some(p) = tile_param_loaded(m, &m.ops[o])
            {
                second_loads.push((u, p, want, stmt));
                continue;
            }
            match u {
                User::Op { op, idx, stmt } => op_moves.push((stmt, op, idx, v, want)),
                other => stmt_moves.push((other, v, want)),
            }
        }
    }
    for &v in &facts.defs {
        if let Some(l) = loc[v] {
            set_space(m, v, l);
            // An entry move records where it brings its parameter, like every move.
            if let ValueDef::OpResult(o, 0) = m.values[v].def
                && tile_param_loaded(m, &m.ops[o]).is_some()
            {
                m.ops[o].attrs.set("loc", Attr::Ident(l.name().to_string()));
            }
        }
    }
    let mut seconds: Vec<(ValueId, MemorySpace, ValueId)> = Vec::new();
    for (u, p, want, stmt) in second_loads {
        let moved = match seconds.iter().find(|s| s.0 == p && s.1 == want) {
            Some(s) => s.2,
            None => {
                let span = m.funcs[f].span;
                let (op, mv) = make_move(m, p, want, span, &mut MoveNames::default());
                // Named like the parameter, as the first entry move is.
                m.values[mv].name = m.values[p].name.clone();
                if let StmtKind::Op(list) = &mut m.stmts[stmt].kind {
                    list.push(op);
                }
                seconds.push((p, want, mv));
                mv
            }
        };
        use_value(m, u, moved);
    }
    // Moves in front of consuming ops; one move per (statement, value, location). The moves
    // of a value are adjacent in `op_moves`, so only the current value's are remembered.
    let mut made: Vec<(StmtId, ValueId, MemorySpace, ValueId)> = Vec::new();
    let mut names = MoveNames::default();
    for (stmt, op, idx, v, want) in op_moves {
        if made.first().is_some_and(|&(_, of, _, _)| of != v) {
            made.clear();
        }
        let before = made
            .iter()
            .find(|&&(s, _, w, _)| s == stmt && w == want)
            .map(|&(_, _, _, mv)| mv);
        let moved = match before {
            Some(mv) => mv,
            None => {
                let (mops, mv) = make_moves(m, v, want, m.ops[op].span, &mut names);
                if let StmtKind::Op(list) = &mut m.stmts[stmt].kind {
                    let at = list.iter().position(|&o| o == op).unwrap_or(0);
                    for (k, mop) in mops.into_iter().enumerate() {
                        list.insert(at + k, mop);
                    }
                }
                made.push((stmt, v, want, mv));
                mv
            }
        };
        m.ops[op].operands[idx] = moved;
    }
    // Moves in front of loops (inits) and terminators (yields, breaks, continues).
    for (u, v, want) in stmt_moves {
        let (User::Init { stmt, idx, block }
        | User::Term {
            stmt, idx, block, ..
        }) = u
        else {
            continue;
        };
        let (mops, mv) = make_moves(m, v, want, m.stmts[stmt].span, &mut names);
        for mop in mops {
            // Found again each time: an insertion may add a statement in front of it.
            let at = m.blocks[block]
                .stmts
                .iter()
                .position(|&s| s == stmt)
                .unwrap_or(0);
            walk::insert_op_before_stmt(m, block, at, mop);
        }
        match &mut m.stmts[stmt].kind {
            StmtKind::For(l) => l.iter_args[idx].init = mv,
            StmtKind::While(w) => w.iter_args[idx].init = mv,
            StmtKind::Yield(vals) | StmtKind::Break(vals) | StmtKind::Continue(vals) => {
                vals[idx] = mv
            }
            _ => {}
        }
    }
}

/// Makes use `u` read `v`.
fn use_value(m: &mut ProgramModule, u: User, v: ValueId) {
    match u {
        User::Op { op, idx, .. } => m.ops[op].operands[idx] = v,
        User::Init { stmt, idx, .. } => match &mut m.stmts[stmt].kind {
            StmtKind::For(l) => l.iter_args[idx].init = v,
            StmtKind::While(w) => w.iter_args[idx].init = v,
            _ => {}
        },
        User::Term { stmt, idx, .. } => {
            if let StmtKind::Yield(vals) | StmtKind::Break(vals) | StmtKind::Continue(vals) =
                &mut m.stmts[stmt].kind
            {
                vals[idx] = v;
            }
        }
    }
}

/// Gives every tile parameter of `f` that is used a `tile.move %param` (no location yet) at
/// the start of the body, and makes every use read the move instead: the tile the kernel
/// loads from the parameter's global memory at entry (see the module doc). Returns the
/// `statement.op` holding the moves, `None` when `f` has no tile parameter in use.
fn bring_in_tile_params(m: &mut ProgramModule, f: FuncId) -> Option<StmtId> {
    let tree = walk::Tree::of(m, f);
    let used = walk::use_counts(m, &tree.stmts);
    let params: Vec<ValueId> = m.funcs[f]
        .sig
        .params
        .iter()
        .map(|p| p.value)
        .filter(|&v| is_tile(m, v) && used[v] > 0)
        .collect();
    if params.is_empty() {
        return None;
    }
    let span = m.funcs[f].span;
    let mut renames = walk::Renames::with_len(m.values.len(), None);
    let mut ops = Vec::with_capacity(params.len());
    for &p in &params {
        let ty = m.values[p].ty.clone();
        let name = m.values[p].name.clone();
        let (op, v) = walk::new_op_named(
            m,
            Opcode::TileMove,
            walk::inline_of(&[p]),
            Attrs::new(),
            ty,
            name,
            span,
        );
        ops.push(op);
        renames[p] = Some(v);
    }
    // The moves are in no statement yet, so they keep reading the parameters.
    walk::replace_uses(m, &tree.stmts, &renames, params.len());
    let body = m.funcs[f].body;
    match m.blocks[body].stmts.first().copied() {
        Some(s) if matches!(m.stmts[s].kind, StmtKind::Op(_)) => {
            if let StmtKind::Op(list) = &mut m.stmts[s].kind {
                for (k, op) in ops.into_iter().enumerate() {
                    list.insert(k, op);
                }
            }
            Some(s)
        }
        _ => {
            let s = m.stmts.push(pto_ir::Statement {
                kind: StmtKind::Op(walk::inline_of(&ops)),
                span,
            });
            m.blocks[body].stmts.insert(0, s);
            Some(s)
        }
    }
}

/// The names of the moves made so far, by moved value and location: the moves of one value
/// to one location (one per branch that needs it) share their result's name.
#[derive(Default)]
struct MoveNames {
    made: Vec<(ValueId, MemorySpace, Name)>,
}

/// The moves that bring `v` to `want`, in order, and the value they end with. A matmul
/// operand (Left, Right, Bias) is reached from Mat only (pto-isa.md, TMOV), so a vector
/// result or a matmul result fed to a matmul goes through Mat first: Vec -> Mat -> Left
/// (on A2A3 the Vec -> Mat step is the vector-to-cube transfer, `lower/split.rs`) and
/// Acc -> Mat -> Left.
fn make_moves(
    m: &mut ProgramModule,
    v: ValueId,
    want: MemorySpace,
    span: pto_ir::SpanId,
    names: &mut MoveNames,
) -> (Vec<OpId>, ValueId) {
    let have = m.values[v]
        .ty
        .as_tile()
        .and_then(|t| t.memref)
        .map(|r| r.space);
    let operand = matches!(
        want,
        MemorySpace::Left | MemorySpace::Right | MemorySpace::Bias
    );
    if operand && matches!(have, Some(MemorySpace::Vec | MemorySpace::Acc)) {
        let (first, mid) = make_move(m, v, MemorySpace::Mat, span, names);
        let (second, out) = make_move(m, mid, want, span, names);
        return (vec![first, second], out);
    }
    let (mop, out) = make_move(m, v, want, span, names);
    (vec![mop], out)
}

/// A `tile.move %v {loc = want}` with its result placed in `want`, named from `names`.
fn make_move(
    m: &mut ProgramModule,
    v: ValueId,
    want: MemorySpace,
    span: pto_ir::SpanId,
    names: &mut MoveNames,
) -> (OpId, ValueId) {
    // The moved value's type, living in `want` (what `set_space` would record afterwards);
    // a tile's lists are copied item by item ([`walk::inline_of`]).
    let ty = match &m.values[v].ty {
        Type::Tile(t) => Type::Tile(TileType {
            dtype: t.dtype,
            shape: walk::inline_of(&t.shape),
            valid: walk::inline_of(&t.valid),
            memref: Some(MemRef {
                space: want,
                addr: t.memref.and_then(|r| r.addr),
                size: t.buffer_bytes(),
            }),
        }),
        other => other.clone(),
    };
    let name = match names
        .made
        .iter()
        .find(|(of, to, _)| *of == v && *to == want)
    {
        Some((_, _, name)) => name.clone(),
        None => {
            // `{base}_{location in lower case}`.
            let base = m.values[v].name.as_deref().unwrap_or("t");
            let name = Name::from(format!("{base}_{}", want.name().to_ascii_lowercase()));
            names.made.push((v, want, name.clone()));
            name
        }
    };
    // A tile loaded from a read-only tensor and wanted in the other one of Vec and Mat is
    // loaded again there: no target moves Mat to Vec, and A2A3 has no Vec to Mat
    // (pto-isa.md, TMOV), while a second `TLOAD` of the same window is legal everywhere
    // (the tensor is not written in between: it is an input).
    let have = m.values[v]
        .ty
        .as_tile()
        .and_then(|t| t.memref)
        .map(|r| r.space);
    let read_only = |m: &ProgramModule, t: ValueId| match m.values[t].def {
        ValueDef::Param(f, k) => m.funcs[f]
            .sig
            .params
            .get(k as usize)
            .is_some_and(|p| p.direction == pto_ir::Direction::In),
        _ => false,
    };
    if let ValueDef::OpResult(o, 0) = m.values[v].def
        && m.ops[o].opcode == Opcode::TileLoad
        && m.ops[o].operands.first().is_some_and(|&t| read_only(m, t))
        && matches!(
            (have, want),
            (Some(MemorySpace::Mat), MemorySpace::Vec) | (Some(MemorySpace::Vec), MemorySpace::Mat)
        )
    {
        let (operands, attrs) = (m.ops[o].operands.clone(), m.ops[o].attrs.clone());
        return walk::new_op_named(m, Opcode::TileLoad, operands, attrs, ty, Some(name), span);
    }
    let attrs = Attrs(vec![("loc".into(), Attr::Ident(want.name().to_string()))]);
    walk::new_op_named(
        m,
        Opcode::TileMove,
        walk::inline_of(&[v]),
        attrs,
        ty,
        Some(name),
        span,
    )
}
