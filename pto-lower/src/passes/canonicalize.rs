//! Pass 1, canonicalize (seed 002 section 8 step 1): folds scalar arithmetic on constants,
//! removes loop-carried values a loop never changes (every `yield` / `continue` / `break`
//! passes the iter arg through unchanged), and deletes pure ops whose results are unused.
//! The module keeps verifying: folded ops become constants of the same type, and removed
//! iter args are replaced by their initial value everywhere.

use pto_ir::entity::SecondaryMap;
use pto_ir::{
    Attr, Constant, DataType, Diagnostics, OpClass, OpId, Opcode, Operation, ProgramModule, StmtId,
    StmtKind, ValueId,
};

use pto_ir::sem::{self, RoundMode, Sem, Value, convert};

use super::Pass;
use crate::walk::{self, Renames, Tree};

/// The canonicalize pass.
pub struct Canonicalize;

impl Pass for Canonicalize {
    fn name(&self) -> &'static str {
        "canonicalize"
    }

    fn run(&self, m: &mut ProgramModule) -> Result<(), Diagnostics> {
        // By index: the pass changes the module, never its function list (no copy of it).
        for k in 0..m.functions.len() {
            let f = m.functions[k];
            // The steps rewrite ops and drop emptied `statement.op`s from their blocks, but
            // never add statements or blocks: the tree walked once serves every round.
            let tree = walk::Tree::of(m, f);
            // Each step can enable the others; a few rounds reach the fixed point.
            for _ in 0..8 {
                let changed = fold_constants(m, &tree)
                    | remove_invariant_iter_args(m, &tree)
                    | remove_dead_ops(m, &tree);
                if !changed {
                    break;
                }
            }
        }
        Ok(())
    }
}

/// Turns scalar ops whose operands are all constants into constants.
fn fold_constants(m: &mut ProgramModule, tree: &Tree) -> bool {
    let mut changed = false;
    for &s in &tree.stmts {
        // Folding rewrites ops in place, never the op lists: index them.
        let count = match &m.stmts[s].kind {
            StmtKind::Op(ops) => ops.len(),
            _ => 0,
        };
        for i in 0..count {
            let StmtKind::Op(ops) = &m.stmts[s].kind else {
                break;
            };
            let o = ops[i];
            changed |= fold_op(m, o);
        }
    }
    changed
}

/// Turns op `o` into a constant when it is scalar arithmetic on constants.
fn fold_op(m: &mut ProgramModule, o: OpId) -> bool {
    let op = &m.ops[o];
    let class = op.opcode.class();
    let foldable = matches!(
        class,
        OpClass::ScalarArith
            | OpClass::ScalarCompare
            | OpClass::ScalarLogic
            | OpClass::ScalarUnary
            | OpClass::ScalarNot
            | OpClass::ScalarCast
    );
    if !foldable
        || op.results.len() != 1
        || op.operands.iter().any(|&v| m.values[v].constant.is_none())
    {
        return false;
    }
    let args: Vec<Constant> = op
        .operands
        .iter()
        .filter_map(|&v| m.values[v].constant)
        .collect();
    let Some(arg_tys) = op
        .operands
        .iter()
        .map(|&v| m.values[v].ty.as_scalar())
        .collect::<Option<Vec<DataType>>>()
    else {
        return false;
    };
    let res = op.results[0];
    let Some(res_ty) = m.values[res].ty.as_scalar() else {
        return false;
    };
    let Some(c) = eval(op.opcode, &arg_tys, res_ty, &args) else {
        return false;
    };
    let attr = match c {
        Constant::Bool(b) => Attr::Bool(b),
        Constant::Double(x) => Attr::Float(x),
        other => Attr::Int(other.as_i64()),
    };
    let op = &mut m.ops[o];
    op.opcode = Opcode::Const;
    op.operands.clear();
    op.attrs = pto_ir::Attrs::new().with("value", attr);
    m.values[res].constant = Some(c);
    true
}

/// A constant of dtype `d` as an exact value; `None` for a dtype without one.
fn value_of(c: Constant, d: DataType) -> Option<Value> {
    Some(if d == DataType::Bool {
        Value::Bool(c.as_i64() != 0)
    } else if d.is_float() {
        Value::Float(convert::round_float(c.as_f64(), d, RoundMode::CastRint)?)
    } else {
        let v = match c {
            Constant::SizeT(v) => i128::from(v),
            Constant::Double(x) => x as i128,
            other => i128::from(other.as_i64()),
        };
        Value::Int(convert::wrap_int(v, d)?)
    })
}

/// The constant of dtype `d` holding `v`; `None` when the IR has no constant for it.
fn constant_of(v: Value, d: DataType) -> Option<Constant> {
    Some(match v {
        Value::Bool(b) => Constant::Bool(b),
        Value::Float(x) => Constant::Double(x),
        Value::Int(i) => match d {
            DataType::Int32 => Constant::Int(i32::try_from(i).ok()?),
            DataType::UInt64 => Constant::SizeT(u64::try_from(i).ok()?),
            _ => Constant::Int64(i64::try_from(i).ok()?),
        },
    })
}

/// Evaluates a scalar op on constants of dtypes `args` (one per operand) giving `res`, by
/// the op's meaning in the semantics module (the one the interpreter and the host code
/// use); `None` for an op or dtype it does not fold.
fn eval(op: Opcode, args: &[DataType], res: DataType, a: &[Constant]) -> Option<Constant> {
    let d = *args.first()?;
    let x = value_of(*a.first()?, d)?;
    let y = match (a.get(1), args.get(1)) {
        (Some(&c), Some(&db)) => Some(value_of(c, db)?),
        _ => None,
    };
    let r = match op.info().sem {
        Sem::Binary(k) => {
            let mut y = y?;
            // A shift amount of another integer type converts like `as`.
            if let (Some(&db), Value::Int(_)) = (args.get(1), y)
                && db != d
            {
                y = sem::cast(y, db, d, RoundMode::CastTrunc)?;
            }
            sem::binary(k, d, x, y)?
        }
        Sem::Unary(k) => sem::unary(k, d, x)?,
        Sem::Compare(k) => Value::Bool(sem::compare(k, x, y?)?),
        Sem::Logic(k) => match (x, y?) {
            (Value::Bool(p), Value::Bool(q)) => Value::Bool(sem::logic(k, p, q)),
            _ => return None,
        },
        Sem::Cast => match RoundMode::for_cast(d, res, None) {
            None => x,
            Some(mode) => sem::cast(x, d, res, mode)?,
        },
        Sem::Select | Sem::None => return None,
    };
    constant_of(r, res)
}

/// Removes iter args that every loop exit passes through unchanged.
fn remove_invariant_iter_args(m: &mut ProgramModule, tree: &Tree) -> bool {
    // Every loop's decision reads only its own terminators, which no other loop's renames
    // touch, so the renames of all loops are applied in one walk at the end.
    let mut renames = Renames::with_default(None);
    let mut renamed = 0;
    let mut exits = Vec::new();
    for &s in &tree.stmts {
        let (args, body) = match &m.stmts[s].kind {
            StmtKind::For(l) => (&l.iter_args, l.body),
            StmtKind::While(w) => (&w.iter_args, w.body),
            _ => continue,
        };
        if args.is_empty() {
            continue;
        }
        walk::loop_exits(m, body, &mut exits);
        let invariant: Vec<usize> = (0..args.len())
            .filter(|&k| {
                exits.iter().all(|&e| match &m.stmts[e].kind {
                    StmtKind::Yield(v) | StmtKind::Break(v) | StmtKind::Continue(v) => {
                        v.get(k) == Some(&args[k].arg) || v.is_empty()
                    }
                    _ => false,
                })
            })
            .collect();
        if invariant.is_empty() {
            continue;
        }
        let results = match &m.stmts[s].kind {
            StmtKind::For(l) => &l.results,
            StmtKind::While(w) => &w.results,
            _ => continue,
        };
        for &k in &invariant {
            renames[args[k].arg] = Some(args[k].init);
            if let Some(&r) = results.get(k) {
                renames[r] = Some(args[k].init);
            }
            renamed += 2;
        }
        let n_args = args.len();
        let keep = |i: usize| !invariant.contains(&i);
        for &e in &exits {
            if let StmtKind::Yield(v) | StmtKind::Break(v) | StmtKind::Continue(v) =
                &mut m.stmts[e].kind
                && v.len() == n_args
            {
                *v = kept(v, &keep);
            }
        }
        let (new_args, new_results) = match &mut m.stmts[s].kind {
            StmtKind::For(l) => {
                l.iter_args = kept(&l.iter_args, &keep);
                l.results = kept(&l.results, &keep);
                (&l.iter_args, &l.results)
            }
            StmtKind::While(w) => {
                w.iter_args = kept(&w.iter_args, &keep);
                w.results = kept(&w.results, &keep);
                (&w.iter_args, &w.results)
            }
            _ => continue,
        };
        // Re-number the definition sites of the remaining iter args and results.
        for (i, a) in new_args.iter().enumerate() {
            m.values[a.arg].def = pto_ir::ValueDef::IterArg(s, i as u32);
        }
        for (i, &r) in new_results.iter().enumerate() {
            m.values[r].def = pto_ir::ValueDef::StmtResult(s, i as u32);
        }
    }
    walk::replace_uses(m, &tree.stmts, &renames, renamed);
    renamed > 0
}

/// Whether an op can go: it has no side effects and nobody uses its results.
fn is_dead(op: &Operation, counts: &SecondaryMap<ValueId, u32>) -> bool {
    !op.opcode.writes_memory() && op.results.iter().all(|&r| counts[r] == 0)
}

/// Deletes ops without side effects whose results nobody uses.
fn remove_dead_ops(m: &mut ProgramModule, tree: &Tree) -> bool {
    let counts = walk::use_counts(m, &tree.stmts);
    let ProgramModule {
        stmts: all_stmts,
        ops,
        blocks: all_blocks,
        ..
    } = m;
    let mut changed = false;
    for &s in &tree.stmts {
        // Most rounds find nothing dead: looking is cheaper than rebuilding every list.
        if let StmtKind::Op(list) = &mut all_stmts[s].kind
            && list.iter().any(|&o| is_dead(&ops[o], &counts))
        {
            list.retain(|&o| !is_dead(&ops[o], &counts));
            changed = true;
        }
    }
    // Drop `statement.op`s left empty (looking first, like the ops above).
    let emptied = |s: &StmtId| matches!(&all_stmts[*s].kind, StmtKind::Op(v) if v.is_empty());
    for &b in &tree.blocks {
        let list = &mut all_blocks[b].stmts;
        if list.iter().any(emptied) {
            list.retain(|s| !emptied(s));
            changed = true;
        }
    }
    changed
}

/// The items of `v` whose index `keep` accepts, in order.
fn kept<T: Copy, B: FromIterator<T>>(v: &[T], keep: &impl Fn(usize) -> bool) -> B {
    v.iter()
        .enumerate()
        .filter(|(i, _)| keep(*i))
        .map(|(_, x)| *x)
        .collect()
}
