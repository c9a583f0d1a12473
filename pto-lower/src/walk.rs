//! Read and edit helpers over a function's statement tree, shared by the passes.
//!
//! Per-value facts are kept in [`SecondaryMap`]s indexed by the value id, not hash maps: the
//! passes run inside the `#[pto::kernel]` macro on every build, where hashing each lookup
//! was a large part of their cost.

use pto_ir::entity::SecondaryMap;
use pto_ir::module::for_each_dim;
use pto_ir::{
    Attr, Attrs, BlockId, Constant, DataType, FuncId, InlineVec, Name, OpId, Opcode, Operation,
    ProgramModule, SpanId, Statement, StmtId, StmtKind, Type, ValueDef, ValueId,
};

/// A value renaming (`None`: keep the value).
pub(crate) type Renames = SecondaryMap<ValueId, Option<ValueId>>;

/// The statements and blocks of a function body, walked once for a pass that reads them
/// many times.
pub(crate) struct Tree {
    /// Every statement, in program order (parents before children).
    pub stmts: Vec<StmtId>,
    /// The body and every block nested in it.
    pub blocks: Vec<BlockId>,
}

impl Tree {
    /// The tree of function `f`.
    pub(crate) fn of(m: &ProgramModule, f: FuncId) -> Tree {
        fn walk(m: &ProgramModule, b: BlockId, tree: &mut Tree) {
            tree.blocks.push(b);
            let Some(block) = m.blocks.get(b) else { return };
            for &s in &block.stmts {
                tree.stmts.push(s);
                if let Some(st) = m.stmts.get(s) {
                    for child in st.kind.blocks() {
                        walk(m, child, tree);
                    }
                }
            }
        }
        let mut tree = Tree {
            stmts: Vec::with_capacity(m.stmts.len()),
            blocks: Vec::with_capacity(m.blocks.len()),
        };
        walk(m, m.funcs[f].body, &mut tree);
        tree
    }
}

/// Every value the statements `stmts` use, with counts: op operands and attribute values,
/// statement uses, and symbolic extents in the types of values they define.
pub(crate) fn use_counts(m: &ProgramModule, stmts: &[StmtId]) -> SecondaryMap<ValueId, u32> {
    let mut counts = SecondaryMap::with_len(m.values.len(), 0);
    let mut count = |v: ValueId| counts[v] += 1;
    for &s in stmts {
        let st = &m.stmts[s];
        if let StmtKind::Op(ops) = &st.kind {
            for &o in ops {
                let op = &m.ops[o];
                op.operands.iter().for_each(|&v| count(v));
                op.attrs.for_each_value(&mut count);
                for &r in &op.results {
                    // Scalars have no extents (most results: skip the call).
                    let ty = &m.values[r].ty;
                    if !matches!(ty, Type::Scalar(_)) {
                        for_each_dim(ty, &mut count);
                    }
                }
            }
            continue;
        }
        st.kind.for_each_use(&mut count);
        st.kind
            .for_each_def(|v| for_each_dim(&m.values[v].ty, &mut count));
    }
    counts
}

/// Rewrites every use in the statements `stmts` (ops, statements and symbolic extents of
/// types) by `renames`, following chains (a -> b -> c) so the order of the renames does not
/// matter. `count` is the number of renames (a bound will do; 0: nothing to do).
pub(crate) fn replace_uses(
    m: &mut ProgramModule,
    stmts: &[StmtId],
    renames: &Renames,
    count: usize,
) {
    if count == 0 {
        return;
    }
    let resolve = |mut v: ValueId| {
        // A chain is at most `count` renames long; the bound also stops a cycle.
        for _ in 0..count {
            match renames[v] {
                Some(n) if n != v => v = n,
                _ => break,
            }
        }
        v
    };
    let ProgramModule {
        stmts: all_stmts,
        ops,
        ..
    } = m;
    for &s in stmts {
        let kind = &mut all_stmts[s].kind;
        kind.map_uses(&mut |v| resolve(v));
        if let StmtKind::Op(list) = kind {
            for &o in list.iter() {
                ops[o].map_uses(&mut |v| resolve(v));
            }
        }
    }
}

/// The terminators that leave or continue loop body `body` (its final `yield` and any
/// `break` / `continue` reached through `if` branches and scopes, not nested loops), in
/// `out` (cleared first: one list serves every loop of a pass).
pub(crate) fn loop_exits(m: &ProgramModule, body: BlockId, out: &mut Vec<StmtId>) {
    out.clear();
    fn walk(m: &ProgramModule, b: BlockId, top: bool, out: &mut Vec<StmtId>) {
        for &s in &m.blocks[b].stmts {
            match &m.stmts[s].kind {
                StmtKind::Yield(_) if top => out.push(s),
                StmtKind::Break(_) | StmtKind::Continue(_) => out.push(s),
                StmtKind::If(i) => {
                    walk(m, i.then_block, false, out);
                    walk(m, i.else_block, false, out);
                }
                StmtKind::Scope(_, blk) => walk(m, *blk, false, out),
                _ => {}
            }
        }
    }
    walk(m, body, true, out);
}

/// An inline list holding `items`, pushed one by one. `InlineVec`'s conversions from arrays
/// and slices (and its `clone`) go through `SmallVec`'s general `extend`, several times the
/// cost of pushing the one to four items these lists hold, and the passes and the lowering
/// build many of them at every expansion.
pub(crate) fn inline_of<T: Copy, const N: usize>(items: &[T]) -> InlineVec<T, N> {
    let mut list = InlineVec::new();
    for &x in items {
        list.push(x);
    }
    list
}

/// Creates an op with one result of type `ty` (named `name`, shared: no copy), not yet
/// placed.
pub(crate) fn new_op_named(
    m: &mut ProgramModule,
    opcode: pto_ir::Opcode,
    operands: pto_ir::ValueList,
    attrs: pto_ir::Attrs,
    ty: Type,
    name: Option<Name>,
    span: SpanId,
) -> (OpId, ValueId) {
    let v = m.new_value_named(ty, name);
    let op = m.ops.push(Operation {
        opcode,
        operands,
        results: inline_of(&[v]),
        attrs,
        span,
    });
    m.values[v].def = ValueDef::OpResult(op, 0);
    (op, v)
}

/// An integer constant of `dtype` (named `name`), its `const` op appended to `ops`.
pub(crate) fn constant(
    m: &mut ProgramModule,
    dtype: DataType,
    c: i64,
    name: Option<&str>,
    span: SpanId,
    ops: &mut Vec<OpId>,
) -> ValueId {
    constant_of(m, dtype, Constant::Int64(c), name, span, ops)
}

/// A float constant of `dtype`, its `const` op appended to `ops`.
pub(crate) fn float_constant(
    m: &mut ProgramModule,
    dtype: DataType,
    x: f64,
    span: SpanId,
    ops: &mut Vec<OpId>,
) -> ValueId {
    constant_of(m, dtype, Constant::Double(x), None, span, ops)
}

fn constant_of(
    m: &mut ProgramModule,
    dtype: DataType,
    c: Constant,
    name: Option<&str>,
    span: SpanId,
    ops: &mut Vec<OpId>,
) -> ValueId {
    let value = match c {
        Constant::Double(x) => Attr::Float(x),
        other => Attr::Int(other.as_i64()),
    };
    let (op, v) = new_op_named(
        m,
        Opcode::Const,
        InlineVec::new(),
        Attrs::of([("value", value)]),
        Type::Scalar(dtype),
        name.map(Name::from),
        span,
    );
    m.values[v].constant = Some(c);
    ops.push(op);
    v
}

/// `opcode(a, b)` of `a`'s type (named `name`), its op appended to `ops`.
pub(crate) fn scalar_op(
    m: &mut ProgramModule,
    opcode: Opcode,
    a: ValueId,
    b: ValueId,
    name: Option<&str>,
    span: SpanId,
    ops: &mut Vec<OpId>,
) -> ValueId {
    let ty = m.ty(a).clone();
    let operands = inline_of(&[a, b]);
    let (op, v) = new_op_named(
        m,
        opcode,
        operands,
        Attrs::new(),
        ty,
        name.map(Name::from),
        span,
    );
    ops.push(op);
    v
}

/// Inserts op `op` into block `block` just before statement index `at`, reusing a directly
/// preceding `statement.op` when there is one.
pub(crate) fn insert_op_before_stmt(m: &mut ProgramModule, block: BlockId, at: usize, op: OpId) {
    if at > 0 {
        let prev = m.blocks[block].stmts[at - 1];
        if let StmtKind::Op(list) = &mut m.stmts[prev].kind {
            list.push(op);
            return;
        }
    }
    let span = m.ops[op].span;
    let s = m.stmts.push(Statement {
        kind: StmtKind::Op([op].into()),
        span,
    });
    m.blocks[block].stmts.insert(at, s);
}
