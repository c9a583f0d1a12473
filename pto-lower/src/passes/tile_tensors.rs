//! Pass `tile-tensor-ops` (dsl.md 5.7): tensor-level ops become tile loops.
//!
//! Each `tensor.assemble` is the sink of a chain of elementwise tensor ops (`tensor.add`,
//! `tensor.exp`, ...) over views (`tensor.view`) and whole tensor parameters, all of one
//! shape. The pass replaces the sink by one loop nest over that shape in tiles of the
//! module's `tile_default` sizes (`tile_default_m` rows by `tile_default_n` columns, 16 when
//! absent; a dimension smaller than its tile size is one tile of its own extent):
//!
//! ```text
//! for i = 0 to R step M { for j = 0 to C step N {
//!   a = tile.load base_a {shape=[M, N], offset=[view_off + i, view_off + j]}
//!   a' = tile.valid a, min(M, R - i), min(N, C - j)      (views with an edge tile only)
//!   y = tile.mul a', s ...                                (the chain, fused)
//!   tile.store y, out {offset=[asm_off + i, asm_off + j]}
//! } }
//! ```
//!
//! The whole chain is fused into the one nest, so nothing is written between the ops. An
//! edge tile's valid region is the part inside the chain's shape (guide section 5): a load
//! from a whole parameter stops at the tensor's edge by itself, a load from a view is
//! narrowed with `tile.valid` to the view's edge, and the store writes only the valid region.
//!
//! Tensor values have value semantics (a view is a copy, as in the interpreter), while the
//! tiles read the base tensor when the sink runs. The two agree unless the base is written
//! between the chain's first read and the sink, so such a chain is refused, as is one that
//! reads the tensor it assembles into at another window. Whatever the pass cannot tile (a
//! tensor value used by anything but this chain, ranks above 2, an assemble into something
//! other than a tensor parameter) is an error naming the op: tensor ops never reach the
//! lowering untiled.

use std::collections::HashMap;

use pto_ir::stmt::{ForKind, ForStmt, IterArgs};
use pto_ir::{
    Attr, Attrs, BlockId, BlockRole, DataType, Diag, Diagnostics, Dim, Direction, FuncId,
    InlineVec, Name, OpClass, OpId, Opcode, ProgramModule, SpanId, Statement, StmtKind, Type,
    ValueDef, ValueId, ValueList,
};

use super::Pass;
use crate::walk::{Renames, Tree, constant, inline_of, new_op_named, replace_uses, use_counts};

/// The tensor-tiling pass.
pub struct TileTensorOps;

/// The tile size when the module sets no `tile_default`.
const DEFAULT_TILE: u64 = 16;

impl Pass for TileTensorOps {
    fn name(&self) -> &'static str {
        "tile-tensor-ops"
    }

    fn run(&self, m: &mut ProgramModule) -> Result<(), Diagnostics> {
        let size = |m: &ProgramModule, key: &str| {
            m.attrs
                .get(key)
                .and_then(Attr::as_int)
                .filter(|&n| n > 0)
                .map_or(DEFAULT_TILE, |n| n as u64)
        };
        let tiles = (size(m, "tile_default_m"), size(m, "tile_default_n"));
        let mut diags = Diagnostics::new();
        for k in 0..m.functions.len() {
            let f = m.functions[k];
            if let Err(d) = tile_function(m, f, tiles) {
                diags.push(d);
            }
        }
        diags.into_result()
    }
}

/// Tiles every sink of function `f`, then removes the tensor ops nothing uses any more.
fn tile_function(m: &mut ProgramModule, f: FuncId, tiles: (u64, u64)) -> Result<(), Diag> {
    while let Some(sink) = next_sink(m, f) {
        tile_sink(m, f, sink, tiles)?;
    }
    remove_dead_tensor_ops(m, f)
}

/// Where an op sits: its block, the statement's index in it and the op's index in the list.
#[derive(Clone, Copy)]
struct Site {
    block: BlockId,
    stmt: usize,
    op: usize,
}

/// The first `tensor.assemble` of `f` in program order.
fn next_sink(m: &ProgramModule, f: FuncId) -> Option<(OpId, Site)> {
    let tree = Tree::of(m, f);
    for &b in &tree.blocks {
        for (k, &s) in m.blocks[b].stmts.iter().enumerate() {
            if let StmtKind::Op(ops) = &m.stmts[s].kind
                && let Some(j) = ops
                    .iter()
                    .position(|&o| m.ops[o].opcode == Opcode::TensorAssemble)
            {
                return Some((
                    ops[j],
                    Site {
                        block: b,
                        stmt: k,
                        op: j,
                    },
                ));
            }
        }
    }
    None
}

/// A tensor a chain reads: a parameter, through views, at offsets from its origin.
struct Leaf {
    /// The chain's value (the view, or the parameter itself).
    value: ValueId,
    /// The tensor parameter read.
    base: ValueId,
    /// One offset per dimension (`Int` or `Value`).
    offsets: Vec<Attr>,
    /// Whether it is a view (a window that may end before the base's edge).
    view: bool,
}

/// The op of `v`, if an op defines it.
fn def_op(m: &ProgramModule, v: ValueId) -> Option<OpId> {
    match m.values[v].def {
        ValueDef::OpResult(op, _) => Some(op),
        _ => None,
    }
}

/// The function parameter `v` is, through `tensor.assemble` results (which are their
/// destination) and, when `views`, through views; with the offsets the views add.
fn base_of(m: &ProgramModule, f: FuncId, mut v: ValueId, views: bool) -> Option<(ValueId, bool)> {
    let mut through_view = false;
    for _ in 0..m.ops.len() + 1 {
        if m.funcs[f].sig.params.iter().any(|p| p.value == v) {
            return Some((v, through_view));
        }
        let op = def_op(m, v)?;
        match m.ops[op].opcode {
            Opcode::TensorAssemble => v = *m.ops[op].operands.get(1)?,
            Opcode::TensorView if views => {
                through_view = true;
                v = *m.ops[op].operands.first()?;
            }
            _ => return None,
        }
    }
    None
}

/// The tensor operands of op `o`.
fn tensor_operands(m: &ProgramModule, o: OpId) -> impl Iterator<Item = ValueId> + '_ {
    m.ops[o]
        .operands
        .iter()
        .copied()
        .filter(|&v| matches!(m.ty(v), Type::Tensor(_)))
}

fn offsets_of(m: &ProgramModule, o: OpId) -> Vec<Attr> {
    m.ops[o]
        .attrs
        .get("offset")
        .and_then(Attr::as_list)
        .map(<[Attr]>::to_vec)
        .unwrap_or_default()
}

/// The user-facing name of `v` (`x` for `%x_3`).
fn shown(m: &ProgramModule, v: ValueId) -> String {
    match &m.values[v].name {
        Some(n) => format!("`{n}`"),
        None => format!("`{}`", m.ssa_name(v)),
    }
}

/// The chain ending in `src`: its elementwise ops in an order where operands come first, and
/// its leaves. New offset ops (sums of nested views' offsets) go to `pre`.
struct Chain {
    ops: Vec<OpId>,
    leaves: Vec<Leaf>,
}

fn collect_chain(
    m: &mut ProgramModule,
    f: FuncId,
    src: ValueId,
    sink_span: SpanId,
    pre: &mut Vec<OpId>,
) -> Result<Chain, Diag> {
    let mut chain = Chain {
        ops: Vec::new(),
        leaves: Vec::new(),
    };
    visit(m, f, src, sink_span, pre, &mut chain)?;
    Ok(chain)
}

fn visit(
    m: &mut ProgramModule,
    f: FuncId,
    v: ValueId,
    at: SpanId,
    pre: &mut Vec<OpId>,
    chain: &mut Chain,
) -> Result<(), Diag> {
    if !matches!(m.ty(v), Type::Tensor(_))
        || chain.leaves.iter().any(|l| l.value == v)
        || chain.ops.iter().any(|&o| m.ops[o].results.contains(&v))
    {
        return Ok(());
    }
    if let Some((base, false)) = base_of(m, f, v, false) {
        let rank = m.ty(base).as_tensor().map_or(0, |t| t.shape.len());
        chain.leaves.push(Leaf {
            value: v,
            base,
            offsets: vec![Attr::Int(0); rank],
            view: false,
        });
        return Ok(());
    }
    let Some(op) = def_op(m, v) else {
        return Err(Diag::new(
            at,
            format!(
                "cannot tile this tensor-level op: it reads {}, which is not a tensor parameter, a view or a tensor-level op",
                shown(m, v)
            ),
        ));
    };
    match m.ops[op].opcode.class() {
        OpClass::TensorView => {
            let (base, offsets) = view_base(m, f, op, pre)?;
            chain.leaves.push(Leaf {
                value: v,
                base,
                offsets,
                view: true,
            });
            Ok(())
        }
        OpClass::TensorBinary | OpClass::TensorUnary => {
            for k in 0..m.ops[op].operands.len() {
                let a = m.ops[op].operands[k];
                visit(m, f, a, m.ops[op].span, pre, chain)?;
            }
            chain.ops.push(op);
            Ok(())
        }
        _ => Err(Diag::new(
            m.ops[op].span,
            format!(
                "cannot tile `{}`: its tensor {} feeds a tensor-level op, and only `view`s, elementwise tensor ops and tensor parameters are tiled",
                m.ops[op].opcode,
                shown(m, v)
            ),
        )),
    }
}

/// The parameter a view (of views) reads, with the summed offsets.
fn view_base(
    m: &mut ProgramModule,
    f: FuncId,
    view: OpId,
    pre: &mut Vec<OpId>,
) -> Result<(ValueId, Vec<Attr>), Diag> {
    let span = m.ops[view].span;
    let mut offsets = offsets_of(m, view);
    let mut src = m.ops[view].operands[0];
    for _ in 0..m.ops.len() {
        if let Some((base, false)) = base_of(m, f, src, false) {
            return Ok((base, offsets));
        }
        match def_op(m, src) {
            Some(inner) if m.ops[inner].opcode == Opcode::TensorView => {
                let outer = offsets_of(m, inner);
                offsets = add_offsets(m, &outer, &offsets, span, pre);
                src = m.ops[inner].operands[0];
            }
            _ => break,
        }
    }
    Err(Diag::new(
        span,
        format!(
            "cannot tile this view: it reads {}, which is not a tensor parameter or a view of one",
            shown(m, src)
        ),
    ))
}

/// An offset as a value, its constant op (if any) appended to `ops`.
fn offset_value(m: &mut ProgramModule, a: &Attr, span: SpanId, ops: &mut Vec<OpId>) -> ValueId {
    match a {
        Attr::Value(v) => *v,
        other => constant(
            m,
            DataType::Int64,
            other.as_int().unwrap_or(0),
            None,
            span,
            ops,
        ),
    }
}

/// `a + b` per dimension: constants folded, values added with `scalar.add` ops in `ops`.
fn add_offsets(
    m: &mut ProgramModule,
    a: &[Attr],
    b: &[Attr],
    span: SpanId,
    ops: &mut Vec<OpId>,
) -> Vec<Attr> {
    a.iter()
        .zip(b)
        .map(|(x, y)| match (x.as_int(), y.as_int()) {
            (Some(0), _) => y.clone(),
            (_, Some(0)) => x.clone(),
            (Some(p), Some(q)) => Attr::Int(p + q),
            _ => {
                let p = offset_value(m, x, span, ops);
                let q = offset_value(m, y, span, ops);
                Attr::Value(crate::walk::scalar_op(
                    m,
                    Opcode::ScalarAdd,
                    p,
                    q,
                    None,
                    span,
                    ops,
                ))
            }
        })
        .collect()
}

/// The position of every op under block `b`: the index of the statement of `b` holding it,
/// and its index in that `statement.op` (0 for ops in nested statements).
fn positions(m: &ProgramModule, b: BlockId) -> HashMap<OpId, (usize, usize)> {
    fn nested(m: &ProgramModule, blk: BlockId, k: usize, out: &mut HashMap<OpId, (usize, usize)>) {
        for &s in &m.blocks[blk].stmts {
            if let StmtKind::Op(ops) = &m.stmts[s].kind {
                for &o in ops.iter() {
                    out.insert(o, (k, 0));
                }
            }
            for child in m.stmts[s].kind.blocks() {
                nested(m, child, k, out);
            }
        }
    }
    let mut out = HashMap::new();
    for (k, &s) in m.blocks[b].stmts.iter().enumerate() {
        match &m.stmts[s].kind {
            StmtKind::Op(ops) => {
                for (j, &o) in ops.iter().enumerate() {
                    out.insert(o, (k, j));
                }
            }
            kind => {
                for child in kind.blocks() {
                    nested(m, child, k, &mut out);
                }
            }
        }
    }
    out
}

/// Refuses a chain whose tiles would read something other than what its tensor values hold:
/// a base written between the chain's first read of it and the sink, or the destination
/// read at another window than the one written.
fn check_hazards(
    m: &ProgramModule,
    f: FuncId,
    sink: OpId,
    site: Site,
    chain: &Chain,
    dst: ValueId,
    dst_offsets: &[Attr],
) -> Result<(), Diag> {
    let span = m.ops[sink].span;
    let src_shape: Vec<Dim> = match m.ty(m.ops[sink].operands[0]) {
        Type::Tensor(t) => t.shape.iter().copied().collect(),
        _ => Vec::new(),
    };
    let src_shape = src_shape.as_slice();
    let pos = positions(m, site.block);
    let sink_pos = (site.stmt, site.op);
    let tree = Tree::of(m, f);
    for leaf in &chain.leaves {
        // A view something stores into holds what was stored, not what its base holds.
        if leaf.view {
            for &s in &tree.stmts {
                if let StmtKind::Op(ops) = &m.stmts[s].kind {
                    for &o in ops.iter() {
                        if o != sink
                            && m.ops[o].opcode.writes_memory()
                            && m.ops[o].operands.contains(&leaf.value)
                        {
                            return Err(Diag::new(
                                m.ops[o].span,
                                format!(
                                    "cannot tile the tensor-level ops reading the view {}: `{}` writes into it",
                                    shown(m, leaf.value),
                                    m.ops[o].opcode
                                ),
                            )
                            .note("a view is a copy of its window; assemble results into a tensor parameter instead"));
                        }
                    }
                }
            }
        }
        if leaf.base == dst && !same_or_disjoint(m, &leaf.offsets, dst_offsets, src_shape) {
            return Err(Diag::new(
                span,
                format!(
                    "cannot tile this `assemble`: it reads {} at a window that may overlap the one it writes, so tile by tile it would read what it has just written",
                    shown(m, dst)
                ),
            )
            .note("read from another tensor, or from the window written, or from one disjoint from it at constant offsets"));
        }
        // Where the chain reads the base: the view, or the ops that take the parameter.
        let readers: Vec<OpId> = if leaf.view {
            def_op(m, leaf.value).into_iter().collect()
        } else {
            chain
                .ops
                .iter()
                .copied()
                .chain([sink])
                .filter(|&o| m.ops[o].operands.contains(&leaf.value))
                .collect()
        };
        let first = readers.iter().map(|o| pos.get(o).copied()).min().flatten();
        let outside = readers.iter().any(|o| !pos.contains_key(o));
        for &s in &tree.stmts {
            let StmtKind::Op(ops) = &m.stmts[s].kind else {
                continue;
            };
            for &w in ops.iter() {
                if !m.ops[w].opcode.writes_memory()
                    || !tensor_operands(m, w)
                        .any(|t| base_of(m, f, t, true).is_some_and(|(b, _)| b == leaf.base))
                {
                    continue;
                }
                let between = match (first, pos.get(&w)) {
                    _ if outside => true,
                    (Some(r), Some(&p)) => w != sink && r < p && p < sink_pos,
                    _ => false,
                };
                if between {
                    return Err(Diag::new(
                        span,
                        format!(
                            "cannot tile this `assemble`: the values it writes read {} before a store or `assemble` writes it again, and their tiles would read it here, after the write",
                            shown(m, leaf.base),
                        ),
                    )
                    .note("a tensor value is a copy of what its tensor held where it was made; take the view after the write (in the loop that assembles it)"));
                }
            }
        }
    }
    Ok(())
}

/// Whether two windows of one shape, at offsets `a` and `b`, are the same window (each
/// tile then reads only what it writes itself) or are shown disjoint by constant offsets in
/// some dimension (no tile reads what another wrote).
fn same_or_disjoint(m: &ProgramModule, a: &[Attr], b: &[Attr], shape: &[Dim]) -> bool {
    let konst = |x: &Attr| match x {
        Attr::Value(v) => m.values[*v].constant.map(|c| c.as_i64()),
        other => other.as_int(),
    };
    let same = a
        .iter()
        .zip(b)
        .all(|(x, y)| x == y || konst(x).is_some_and(|p| konst(y) == Some(p)));
    let disjoint = a
        .iter()
        .zip(b)
        .zip(shape)
        .any(|((x, y), d)| match (konst(x), konst(y), d) {
            (Some(p), Some(q), Dim::Const(n)) => p.abs_diff(q) >= *n,
            _ => false,
        });
    same || disjoint
}

/// The loops of a nest: per dimension, its index (a constant 0 when the dimension is one
/// tile), and its valid extent in the current tile.
struct Nest {
    index: Vec<Attr>,
    valid: Vec<ValueId>,
    /// Whether some dimension has an edge tile (its extent is not a multiple of the tile).
    edge: bool,
    /// The innermost block (where the tile ops go) and the outermost loop statement.
    body: BlockId,
    outer: Option<pto_ir::StmtId>,
}

/// Builds the loop nest over `shape` in tiles `tile` inside block `parent`; constants and
/// extents go to `pre`. With `clip`, the valid extents of edge tiles are computed.
fn build_nest(
    m: &mut ProgramModule,
    parent: BlockId,
    shape: &[Dim],
    tile: &[u64],
    clip: bool,
    span: SpanId,
    pre: &mut Vec<OpId>,
) -> Nest {
    let mut nest = Nest {
        index: Vec::new(),
        valid: Vec::new(),
        edge: false,
        body: parent,
        outer: None,
    };
    let mut loops = Vec::new();
    for (d, (&dim, &t)) in shape.iter().zip(tile).enumerate() {
        let one_tile = matches!(dim, Dim::Const(n) if n <= t);
        if one_tile {
            let n = constant(m, DataType::Int64, t as i64, None, span, pre);
            nest.index.push(Attr::Int(0));
            nest.valid.push(n);
            continue;
        }
        let ub = match dim {
            Dim::Const(n) => constant(m, DataType::Int64, n as i64, None, span, pre),
            Dim::Value(v) => v,
            Dim::Dynamic => constant(m, DataType::Int64, 0, None, span, pre),
        };
        let lb = constant(m, DataType::Int64, 0, None, span, pre);
        let step = constant(m, DataType::Int64, t as i64, None, span, pre);
        let s = m.stmts.push(Statement {
            kind: StmtKind::Yield(ValueList::new()),
            span,
        });
        let iv = m.new_value_named(
            Type::Scalar(DataType::Int64),
            Some(Name::from(if d + 1 == shape.len() { "tj" } else { "ti" })),
        );
        m.values[iv].def = ValueDef::Iv(s);
        let edge = !matches!(dim, Dim::Const(n) if n % t == 0);
        nest.edge |= edge;
        nest.index.push(Attr::Value(iv));
        nest.valid.push(step);
        loops.push((s, iv, lb, ub, step, d, edge));
    }
    // Nest the loops: each body holds the next loop, the innermost the tile ops.
    let mut block = parent;
    for (s, iv, lb, ub, step, _, _) in loops.iter().copied() {
        let body = m.new_block(Some(block), Some(s), BlockRole::ForBody);
        m.stmts[s].kind = StmtKind::For(ForStmt {
            iv,
            lb,
            ub,
            step,
            iter_args: IterArgs::new(),
            body,
            results: ValueList::new(),
            kind: ForKind::Sequential,
            attrs: Attrs::new(),
        });
        if block == parent {
            nest.outer = Some(s);
        } else {
            m.blocks[block].stmts.push(s);
        }
        block = body;
    }
    nest.body = block;
    // The valid extents of edge tiles, computed in the innermost body: min(t, extent - i).
    let mut inner = Vec::new();
    for (_, iv, _, ub, step, d, edge) in loops {
        if edge && clip {
            let left = crate::walk::scalar_op(m, Opcode::ScalarSub, ub, iv, None, span, &mut inner);
            nest.valid[d] =
                crate::walk::scalar_op(m, Opcode::ScalarMin, step, left, None, span, &mut inner);
        }
    }
    if !inner.is_empty() {
        let s = m.stmts.push(Statement {
            kind: StmtKind::Op(inner.into_iter().collect()),
            span,
        });
        m.blocks[block].stmts.push(s);
    }
    nest
}

/// An op with inferred result type, appended to `ops`; an error at `span` if it does not type.
fn typed_op(
    m: &mut ProgramModule,
    opcode: Opcode,
    operands: &[ValueId],
    attrs: Attrs,
    name: Option<Name>,
    span: SpanId,
    ops: &mut Vec<OpId>,
) -> Result<Option<ValueId>, Diag> {
    let types = pto_ir::ops::infer(m, opcode, operands, &attrs).map_err(|e| {
        e.notes.iter().fold(
            Diag::new(span, format!("tiling tensor-level ops: {}", e.message)),
            |d, n| d.note(n.clone()),
        )
    })?;
    let ops_list: ValueList = inline_of(operands);
    match types.first() {
        Some(ty) => {
            let (op, v) = new_op_named(m, opcode, ops_list, attrs, ty.clone(), name, span);
            ops.push(op);
            Ok(Some(v))
        }
        None => {
            let op = m.ops.push(pto_ir::Operation {
                opcode,
                operands: ops_list,
                results: ValueList::new(),
                attrs,
                span,
            });
            ops.push(op);
            Ok(None)
        }
    }
}

/// Replaces the sink `tensor.assemble` at `site` by its tile loop nest.
fn tile_sink(
    m: &mut ProgramModule,
    f: FuncId,
    (sink, site): (OpId, Site),
    (tm, tn): (u64, u64),
) -> Result<(), Diag> {
    let span = m.ops[sink].span;
    let (src, dst_in) = (m.ops[sink].operands[0], m.ops[sink].operands[1]);
    let Some((dst, false)) = base_of(m, f, dst_in, false) else {
        return Err(Diag::new(
            span,
            format!(
                "cannot tile this `assemble`: it writes into {}, which is not a tensor parameter (a view is a copy, so assembling into it changes no parameter)",
                shown(m, dst_in)
            ),
        )
        .note("assemble into a `&mut Tensor` or `#[out]` parameter: `out.assemble(v, [i, j])`"));
    };
    if m.funcs[f]
        .sig
        .params
        .iter()
        .any(|p| p.value == dst && p.direction == Direction::In)
    {
        return Err(Diag::new(
            span,
            format!(
                "cannot assemble into {}: it is a read-only `#in` tensor parameter",
                shown(m, dst)
            ),
        ));
    }
    let shape: Vec<Dim> = match m.ty(src) {
        Type::Tensor(t) => t.shape.iter().copied().collect(),
        _ => Vec::new(),
    };
    let tile: Vec<u64> = match shape.len() {
        1 => vec![tn],
        2 => vec![tm, tn],
        r => {
            return Err(Diag::new(
                span,
                format!(
                    "cannot tile a rank-{r} tensor-level `assemble`: tensor-level ops are tiled for rank-1 and rank-2 tensors"
                ),
            ));
        }
    };
    // A dimension smaller than its tile size is one tile of its own extent.
    let tile: Vec<u64> = tile
        .iter()
        .zip(&shape)
        .map(|(&t, d)| match d {
            Dim::Const(n) => t.min(*n).max(1),
            _ => t,
        })
        .collect();
    let dst_offsets = offsets_of(m, sink);
    let mut pre = Vec::new();
    let chain = collect_chain(m, f, src, span, &mut pre)?;
    check_hazards(m, f, sink, site, &chain, dst, &dst_offsets)?;

    let clip = chain.leaves.iter().any(|l| l.view);
    let nest = build_nest(m, site.block, &shape, &tile, clip, span, &mut pre);
    let mut body = Vec::new();
    let mut tiles: HashMap<ValueId, ValueId> = HashMap::new();
    let idx = nest.index.clone();
    for leaf in &chain.leaves {
        let offsets = add_offsets(m, &leaf.offsets, &idx, span, &mut body);
        let attrs = Attrs::of([
            ("shape", Attr::ints(&tile)),
            ("offset", Attr::List(offsets)),
        ]);
        let name = m.values[leaf.value].name.clone();
        let Some(mut t) = typed_op(
            m,
            Opcode::TileLoad,
            &[leaf.base],
            attrs,
            name.clone(),
            span,
            &mut body,
        )?
        else {
            continue;
        };
        if leaf.view && nest.edge {
            let mut operands = vec![t];
            operands.extend(&nest.valid);
            if let Some(v) = typed_op(
                m,
                Opcode::TileValid,
                &operands,
                Attrs::new(),
                name,
                span,
                &mut body,
            )? {
                t = v;
            }
        }
        tiles.insert(leaf.value, t);
    }
    for &op in &chain.ops {
        let o = &m.ops[op];
        let (opcode, at) = (o.opcode, o.span);
        let Some(tile_op) = Opcode::lookup("tile", o.opcode.info().mnemonic) else {
            return Err(Diag::new(
                at,
                format!("`{opcode}` has no tile form to tile it into"),
            ));
        };
        let operands: Vec<ValueId> = o
            .operands
            .iter()
            .map(|v| tiles.get(v).copied().unwrap_or(*v))
            .collect();
        let Some(&result) = o.results.first() else {
            continue;
        };
        let name = m.values[result].name.clone();
        if let Some(t) = typed_op(m, tile_op, &operands, Attrs::new(), name, at, &mut body)? {
            tiles.insert(result, t);
        }
    }
    let Some(&out_tile) = tiles.get(&src) else {
        return Err(Diag::new(
            span,
            "cannot tile this `assemble`: its value has no tile",
        ));
    };
    let offsets = add_offsets(m, &dst_offsets, &idx, span, &mut body);
    typed_op(
        m,
        Opcode::TileStore,
        &[out_tile, dst],
        Attrs::of([("offset", Attr::List(offsets))]),
        None,
        span,
        &mut body,
    )?;

    // The nest's body: the tile ops after the extents, then each loop body's `yield`.
    let body_stmt = m.stmts.push(Statement {
        kind: StmtKind::Op(body.into_iter().collect()),
        span,
    });
    if nest.outer.is_some() {
        m.blocks[nest.body].stmts.push(body_stmt);
        let mut b = nest.body;
        loop {
            let y = m.stmts.push(Statement {
                kind: StmtKind::Yield(ValueList::new()),
                span,
            });
            m.blocks[b].stmts.push(y);
            match m.blocks[b].parent {
                Some(p) if p != site.block => b = p,
                _ => break,
            }
        }
    }

    // Splice: the ops before the sink, `pre`, the nest, the ops after the sink.
    let s = m.blocks[site.block].stmts[site.stmt];
    let StmtKind::Op(list) = &m.stmts[s].kind else {
        return Ok(());
    };
    let before: Vec<OpId> = list[..site.op].to_vec();
    let after: Vec<OpId> = list[site.op + 1..].to_vec();
    let mut head = before;
    head.extend(pre);
    let mut new_stmts = Vec::new();
    if head.is_empty() {
        // An empty `statement.op` is not printed; drop it.
    } else {
        m.stmts[s].kind = StmtKind::Op(head.into_iter().collect());
        new_stmts.push(s);
    }
    // No loop (the shape is one tile): the tile's ops go right here.
    new_stmts.push(nest.outer.unwrap_or(body_stmt));
    if !after.is_empty() {
        new_stmts.push(m.stmts.push(Statement {
            kind: StmtKind::Op(after.into_iter().collect()),
            span,
        }));
    }
    let stmts = &mut m.blocks[site.block].stmts;
    let mut list: Vec<_> = stmts.iter().copied().collect();
    list.splice(site.stmt..=site.stmt, new_stmts);
    *stmts = list.into_iter().collect();

    // The assemble's result is its destination.
    if let Some(&r) = m.ops[sink].results.first() {
        let mut renames: Renames = pto_ir::entity::SecondaryMap::with_len(m.values.len(), None);
        renames[r] = Some(dst);
        let tree = Tree::of(m, f);
        replace_uses(m, &tree.stmts, &renames, 1);
    }
    Ok(())
}

/// Removes tensor-level ops whose results nothing uses; any other left is an error naming it.
fn remove_dead_tensor_ops(m: &mut ProgramModule, f: FuncId) -> Result<(), Diag> {
    loop {
        let tree = Tree::of(m, f);
        let uses = use_counts(m, &tree.stmts);
        let mut removed = false;
        for &s in &tree.stmts {
            let StmtKind::Op(ops) = &m.stmts[s].kind else {
                continue;
            };
            let keep: InlineVec<OpId, 4> = ops
                .iter()
                .copied()
                .filter(|&o| {
                    let op = &m.ops[o];
                    !(op.opcode.info().dialect == "tensor"
                        && !op.opcode.writes_memory()
                        && op.results.iter().all(|&r| uses[r] == 0))
                })
                .collect();
            if keep.len() != ops.len() {
                removed = true;
                m.stmts[s].kind = StmtKind::Op(keep);
            }
        }
        if !removed {
            break;
        }
    }
    // Drop the `statement.op`s left empty.
    let tree = Tree::of(m, f);
    for &b in &tree.blocks {
        let keep: Vec<_> = m.blocks[b]
            .stmts
            .iter()
            .copied()
            .filter(|&s| !matches!(&m.stmts[s].kind, StmtKind::Op(ops) if ops.is_empty()))
            .collect();
        m.blocks[b].stmts = keep.into_iter().collect();
    }
    let tree = Tree::of(m, f);
    for &s in &tree.stmts {
        let StmtKind::Op(ops) = &m.stmts[s].kind else {
            continue;
        };
        for &o in ops.iter() {
            let op = &m.ops[o];
            if op.opcode.info().dialect == "tensor" {
                return Err(Diag::new(
                    op.span,
                    format!(
                        "`{}` in `{}` cannot be tiled: its tensor is used by something other than elementwise tensor ops ending in `assemble`",
                        op.opcode, m.funcs[f].name
                    ),
                )
                .note("tensor-level values are tiled when they are assembled into a tensor parameter (`out.assemble(v, [i, j])`); load tiles with `t.load::<R, C>([i, j])` for anything else"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the pass on `body` in a `data_flow` function of `x: tensor<[16, 64]> #in` and
    /// `out: tensor<[16, 64]> #out`; the error message, if any.
    fn refusal(body: &str) -> Option<String> {
        let text = format!(
            "program.module @t {{\n  program.entry @f\n  func.func @f(%x_1: tensor<[16, 64], fp32> #in, %out_2: tensor<[16, 64], fp32> #out) {{\n    statement.op {{\n{body}\n    }}\n    statement.return\n  }}\n  // func.kind = data_flow\n}}\n"
        );
        let mut m = match pto_ir::parse(&text) {
            Ok(m) => m,
            Err(e) => return Some(format!("parse: {e}")),
        };
        TileTensorOps
            .run(&mut m)
            .err()
            .and_then(|d| d.iter().next().map(|d| d.message.clone()))
    }

    #[test]
    fn a_view_loaded_as_a_tile_is_refused_by_name() {
        let msg = refusal(
            "      %v_3 = tensor.view %x_1 : (tensor<[16, 64], fp32>) -> tensor<[8, 64], fp32> {shape=[8, 64], offset=[0, 0]}\n      %t_4 = tile.load %v_3 : (tensor<[8, 64], fp32>) -> tile<[8, 64], [8, 64], fp32> {shape=[8, 64], offset=[0, 0]}\n      tile.store %t_4, %out_2 : (tile<[8, 64], [8, 64], fp32>, tensor<[16, 64], fp32>) -> () {offset=[0, 0]}",
        );
        let msg = msg.unwrap_or_default();
        assert!(
            msg.contains("`tensor.view` in `f` cannot be tiled"),
            "{msg}"
        );
    }

    #[test]
    fn an_assemble_into_a_view_is_refused() {
        let msg = refusal(
            "      %v_3 = tensor.view %out_2 : (tensor<[16, 64], fp32>) -> tensor<[8, 64], fp32> {shape=[8, 64], offset=[0, 0]}\n      %w_4 = tensor.view %x_1 : (tensor<[16, 64], fp32>) -> tensor<[8, 64], fp32> {shape=[8, 64], offset=[0, 0]}\n      %a_5 = tensor.assemble %w_4, %v_3 : (tensor<[8, 64], fp32>, tensor<[8, 64], fp32>) -> tensor<[8, 64], fp32> {offset=[0, 0]}",
        );
        let msg = msg.unwrap_or_default();
        assert!(msg.contains("which is not a tensor parameter"), "{msg}");
    }

    #[test]
    fn a_chain_is_fused_into_one_nest_and_no_tensor_op_is_left() {
        let text = "program.module @t {\n  program.entry @f\n  attr tile_default_m = 8\n  attr tile_default_n = 32\n  func.func @f(%x_1: tensor<[16, 64], fp32> #in, %out_2: tensor<[16, 64], fp32> #out) {\n    statement.op {\n      %e_3 = tensor.exp %x_1 : (tensor<[16, 64], fp32>) -> tensor<[16, 64], fp32>\n      %m_4 = tensor.mul %e_3, %x_1 : (tensor<[16, 64], fp32>, tensor<[16, 64], fp32>) -> tensor<[16, 64], fp32>\n      %a_5 = tensor.assemble %m_4, %out_2 : (tensor<[16, 64], fp32>, tensor<[16, 64], fp32>) -> tensor<[16, 64], fp32> {offset=[0, 0]}\n    }\n    statement.return\n  }\n  // func.kind = data_flow\n}\n";
        let mut m = pto_ir::parse(text).unwrap_or_else(|e| panic!("{e}"));
        TileTensorOps.run(&mut m).unwrap_or_else(|e| panic!("{e}"));
        pto_ir::verify(&m).unwrap_or_else(|e| panic!("{e}"));
        let out = m.to_string();
        assert!(!out.contains("tensor."), "{out}");
        // One load of x serves both uses; one store; a 2 x 2 nest of 8 x 32 tiles.
        assert_eq!(out.matches("tile.load").count(), 1, "{out}");
        assert_eq!(out.matches("tile.store").count(), 1, "{out}");
        assert_eq!(out.matches("statement.for").count(), 2, "{out}");
        assert!(out.contains("[8, 32], fp32> {shape=[8, 32]"), "{out}");
        assert!(!out.contains("tile.valid"), "{out}");
    }
}
