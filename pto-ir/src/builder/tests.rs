//! Builder unit tests: SSA construction, branch merges, loop exits, misuse errors.

use super::*;
use crate::module::{Direction, Param};
use crate::stmt::{ForKind, ScopeKind};

struct Fx {
    b: IRBuilder,
    ctx: IRBuilderContext,
    f: FuncId,
}

fn kernel(params: Vec<(&str, Type, Direction)>) -> Fx {
    let mut b = IRBuilder::new(ProgramModule::new("main"));
    let params = params
        .into_iter()
        .map(|(n, t, d)| Param {
            value: b.new_value(t, n),
            direction: d,
        })
        .collect();
    let f = b
        .create_function(
            "k",
            FunctionKind::Kernel,
            Signature {
                params,
                returns: vec![],
            },
            true,
        )
        .unwrap();
    let mut ctx = IRBuilderContext::new();
    b.enter_function_body(&mut ctx, f).unwrap();
    Fx { b, ctx, f }
}

fn i64c(fx: &mut Fx, v: i64) -> ValueId {
    fx.b.create_const(&mut fx.ctx, Constant::Int64(v), None, "")
        .unwrap()
}

fn body_stmts(fx: &Fx) -> Vec<StmtKind> {
    let body = fx.b.module().funcs[fx.f].body;
    fx.b.module().blocks[body]
        .stmts
        .iter()
        .map(|&s| fx.b.module().stmts[s].kind.clone())
        .collect()
}

fn add(fx: &mut Fx, a: ValueId, b: ValueId, name: &str) -> ValueId {
    fx.b.build_op(
        &mut fx.ctx,
        Opcode::ScalarAdd,
        vec![a, b],
        Attrs::new(),
        name,
    )
    .unwrap()
    .unwrap()
}

fn for_range(
    fx: &mut Fx,
    n: i64,
    body: impl FnOnce(&mut IRBuilder, &mut IRBuilderContext, ValueId) -> Result<(), Diag>,
) -> StmtId {
    let lb = i64c(fx, 0);
    let ub = i64c(fx, n);
    let st = i64c(fx, 1);
    let iv = fx.b.new_scalar(DataType::Int64, "i");
    fx.b.for_loop(&mut fx.ctx, iv, lb, ub, st, ForKind::Sequential, body)
        .unwrap()
}

#[test]
fn assignment_in_loop_becomes_iter_arg_yield_and_result() {
    let mut fx = kernel(vec![]);
    let zero = i64c(&mut fx, 0);
    fx.b.declare_var(&fx.ctx, "acc", zero, true).unwrap();
    let fs = for_range(&mut fx, 10, |b, ctx, _| {
        let acc = b.use_var(ctx, "acc")?;
        let i = b.use_var(ctx, "i")?;
        let s = b
            .build_op(ctx, Opcode::ScalarAdd, vec![acc, i], Attrs::new(), "acc")?
            .unwrap();
        b.assign_var(ctx, "acc", s)
    });
    let m = fx.b.module();
    let StmtKind::For(f) = &m.stmts[fs].kind else {
        panic!()
    };
    assert_eq!(f.iter_args.len(), 1);
    assert_eq!(f.iter_args[0].init, zero);
    assert_eq!(f.results.len(), 1);
    // The add reads the iter arg, and the yield gives the add's result.
    let add_op = m
        .ops
        .iter()
        .find(|(_, o)| o.opcode == Opcode::ScalarAdd)
        .unwrap()
        .1;
    assert_eq!(add_op.operands[0], f.iter_args[0].arg);
    let last = *m.blocks[f.body].stmts.last().unwrap();
    assert!(matches!(&m.stmts[last].kind, StmtKind::Yield(v) if v == &add_op.results));
    // After the loop, `acc` is the loop result.
    assert_eq!(m.values[f.results[0]].def, ValueDef::StmtResult(fs, 0));
    let r0 = f.results[0];
    assert_eq!(fx.b.use_var(&mut fx.ctx, "acc").unwrap(), r0);
}

#[test]
fn read_only_outer_variable_is_not_carried() {
    let mut fx = kernel(vec![("n", Type::Scalar(DataType::Int64), Direction::In)]);
    let fs = for_range(&mut fx, 4, |b, ctx, _| {
        let n = b.use_var(ctx, "n")?;
        let i = b.use_var(ctx, "i")?;
        b.build_op(ctx, Opcode::ScalarAdd, vec![n, i], Attrs::new(), "t")?;
        Ok(())
    });
    let m = fx.b.module();
    let StmtKind::For(f) = &m.stmts[fs].kind else {
        panic!()
    };
    assert!(f.iter_args.is_empty() && f.results.is_empty());
    let n = m.funcs[fx.f].sig.params[0].value;
    let add_op = m
        .ops
        .iter()
        .find(|(_, o)| o.opcode == Opcode::ScalarAdd)
        .unwrap()
        .1;
    assert_eq!(
        add_op.operands[0], n,
        "the provisional was replaced by the outer value"
    );
}

#[test]
fn shadowing_let_in_body_does_not_carry_and_does_not_leak() {
    let mut fx = kernel(vec![]);
    let one = i64c(&mut fx, 1);
    fx.b.declare_var(&fx.ctx, "x", one, true).unwrap();
    let fs = for_range(&mut fx, 3, |b, ctx, _| {
        let x = b.use_var(ctx, "x")?;
        let y = b
            .build_op(ctx, Opcode::ScalarAdd, vec![x, x], Attrs::new(), "x")?
            .unwrap();
        b.declare_var(ctx, "x", y, true)?;
        let z = b
            .build_op(ctx, Opcode::ScalarAdd, vec![y, y], Attrs::new(), "x")?
            .unwrap();
        b.assign_var(ctx, "x", z) // assigns the shadowing local
    });
    let StmtKind::For(f) = &fx.b.module().stmts[fs].kind else {
        panic!()
    };
    assert!(f.iter_args.is_empty());
    assert_eq!(fx.b.use_var(&mut fx.ctx, "x").unwrap(), one);
}

#[test]
fn assignment_before_shadowing_still_carries() {
    let mut fx = kernel(vec![]);
    let one = i64c(&mut fx, 1);
    fx.b.declare_var(&fx.ctx, "x", one, true).unwrap();
    let fs = for_range(&mut fx, 3, |b, ctx, _| {
        let x = b.use_var(ctx, "x")?;
        let y = b
            .build_op(ctx, Opcode::ScalarAdd, vec![x, x], Attrs::new(), "x")?
            .unwrap();
        b.assign_var(ctx, "x", y)?;
        let c = b.create_const(ctx, Constant::Int64(7), None, "")?;
        b.declare_var(ctx, "x", c, false)
    });
    let StmtKind::For(f) = &fx.b.module().stmts[fs].kind else {
        panic!()
    };
    assert_eq!(f.iter_args.len(), 1);
}

#[test]
fn nested_loops_carry_through_both() {
    let mut fx = kernel(vec![]);
    let zero = i64c(&mut fx, 0);
    fx.b.declare_var(&fx.ctx, "s", zero, true).unwrap();
    let outer = for_range(&mut fx, 2, |b, ctx, _| {
        let lb = b.create_const(ctx, Constant::Int64(0), None, "")?;
        let ub = b.create_const(ctx, Constant::Int64(3), None, "")?;
        let st = b.create_const(ctx, Constant::Int64(1), None, "")?;
        let j = b.new_scalar(DataType::Int64, "j");
        b.for_loop(ctx, j, lb, ub, st, ForKind::Sequential, |b, ctx, j| {
            let s = b.use_var(ctx, "s")?;
            let t = b
                .build_op(ctx, Opcode::ScalarAdd, vec![s, j], Attrs::new(), "s")?
                .unwrap();
            b.assign_var(ctx, "s", t)
        })?;
        Ok(())
    });
    let m = fx.b.module();
    let StmtKind::For(f) = &m.stmts[outer].kind else {
        panic!()
    };
    assert_eq!(f.iter_args.len(), 1);
    assert_eq!(f.iter_args[0].init, zero);
    // The inner loop's init is the outer loop's iter arg; the outer yield is the inner result.
    let inner = m.blocks[f.body]
        .stmts
        .iter()
        .find_map(|&s| match &m.stmts[s].kind {
            StmtKind::For(g) => Some(g.clone()),
            _ => None,
        });
    let inner = inner.unwrap();
    assert_eq!(inner.iter_args[0].init, f.iter_args[0].arg);
    let last = *m.blocks[f.body].stmts.last().unwrap();
    assert!(matches!(&m.stmts[last].kind, StmtKind::Yield(v) if v == &inner.results));
}

#[test]
fn if_merges_variable_assigned_in_one_branch() {
    let mut fx = kernel(vec![("c", Type::Scalar(DataType::Bool), Direction::In)]);
    let zero = i64c(&mut fx, 0);
    fx.b.declare_var(&fx.ctx, "x", zero, true).unwrap();
    let c = fx.b.use_var(&mut fx.ctx, "c").unwrap();
    let (ifs, v) =
        fx.b.if_else(
            &mut fx.ctx,
            c,
            |b, ctx| {
                let x = b.use_var(ctx, "x")?;
                let y = b
                    .build_op(ctx, Opcode::ScalarAdd, vec![x, x], Attrs::new(), "x")?
                    .unwrap();
                b.assign_var(ctx, "x", y)?;
                Ok(None)
            },
            |_, _| Ok(None),
        )
        .unwrap();
    assert!(v.is_none());
    let m = fx.b.module();
    let StmtKind::If(i) = &m.stmts[ifs].kind else {
        panic!()
    };
    assert_eq!(i.results.len(), 1);
    let else_last = *m.blocks[i.else_block].stmts.last().unwrap();
    assert!(matches!(&m.stmts[else_last].kind, StmtKind::Yield(v) if v == &vec![zero]));
    let r0 = i.results[0];
    assert_eq!(fx.b.use_var(&mut fx.ctx, "x").unwrap(), r0);
}

#[test]
fn if_expression_merges_branch_values_and_checks_types() {
    let mut fx = kernel(vec![("c", Type::Scalar(DataType::Bool), Direction::In)]);
    let c = fx.b.use_var(&mut fx.ctx, "c").unwrap();
    let (_, v) =
        fx.b.if_else(
            &mut fx.ctx,
            c,
            |b, ctx| b.create_const(ctx, Constant::Int64(1), None, "").map(Some),
            |b, ctx| b.create_const(ctx, Constant::Int64(2), None, "").map(Some),
        )
        .unwrap();
    assert!(v.is_some());
    let err =
        fx.b.if_else(
            &mut fx.ctx,
            c,
            |b, ctx| b.create_const(ctx, Constant::Int64(1), None, "").map(Some),
            |b, ctx| {
                b.create_const(ctx, Constant::Double(2.0), None, "")
                    .map(Some)
            },
        )
        .unwrap_err();
    assert_eq!(
        err.message,
        "`if` and `else` have different types: int64 and fp64"
    );
    assert_eq!(
        fx.ctx.scope_stack.len(),
        1,
        "closure forms pop their scopes even on error"
    );
}

#[test]
fn break_carries_values_where_it_stands() {
    let mut fx = kernel(vec![("c", Type::Scalar(DataType::Bool), Direction::In)]);
    let zero = i64c(&mut fx, 0);
    fx.b.declare_var(&fx.ctx, "x", zero, true).unwrap();
    let fs = for_range(&mut fx, 8, |b, ctx, i| {
        let x = b.use_var(ctx, "x")?;
        let y = b
            .build_op(ctx, Opcode::ScalarAdd, vec![x, i], Attrs::new(), "x")?
            .unwrap();
        b.assign_var(ctx, "x", y)?;
        let c = b.use_var(ctx, "c")?;
        b.if_else(
            ctx,
            c,
            |b, ctx| b.create_break(ctx).map(|_| None),
            |_, _| Ok(None),
        )?;
        let z = b
            .build_op(ctx, Opcode::ScalarAdd, vec![y, y], Attrs::new(), "x")?
            .unwrap();
        b.assign_var(ctx, "x", z)
    });
    let m = fx.b.module();
    let brk = m
        .stmts
        .iter()
        .find(|(_, s)| matches!(s.kind, StmtKind::Break(_)))
        .unwrap()
        .1;
    let first_add = m
        .ops
        .iter()
        .find(|(_, o)| o.opcode == Opcode::ScalarAdd)
        .unwrap()
        .1;
    assert!(matches!(&brk.kind, StmtKind::Break(v) if v == &first_add.results));
    let StmtKind::For(f) = &m.stmts[fs].kind else {
        panic!()
    };
    assert_eq!(f.iter_args.len(), 1);
}

#[test]
fn while_loop_carries_and_checks_condition() {
    let mut fx = kernel(vec![]);
    let zero = i64c(&mut fx, 0);
    fx.b.declare_var(&fx.ctx, "x", zero, true).unwrap();
    let ws =
        fx.b.while_loop(
            &mut fx.ctx,
            |b, ctx| {
                let x = b.use_var(ctx, "x")?;
                let ten = b.create_const(ctx, Constant::Int64(10), None, "")?;
                Ok(
                    b.build_op(ctx, Opcode::ScalarLt, vec![x, ten], Attrs::new(), "")?
                        .unwrap(),
                )
            },
            |b, ctx| {
                let x = b.use_var(ctx, "x")?;
                let one = b.create_const(ctx, Constant::Int64(1), None, "")?;
                let y = b
                    .build_op(ctx, Opcode::ScalarAdd, vec![x, one], Attrs::new(), "x")?
                    .unwrap();
                b.assign_var(ctx, "x", y)
            },
        )
        .unwrap();
    let m = fx.b.module();
    let StmtKind::While(w) = &m.stmts[ws].kind else {
        panic!()
    };
    assert_eq!(w.iter_args.len(), 1);
    let lt = m
        .ops
        .iter()
        .find(|(_, o)| o.opcode == Opcode::ScalarLt)
        .unwrap()
        .1;
    assert_eq!(
        lt.operands[0], w.iter_args[0].arg,
        "the condition reads the iter arg"
    );
}

#[test]
fn parallel_loop_rejects_loop_carried_assignment() {
    let mut fx = kernel(vec![]);
    let zero = i64c(&mut fx, 0);
    fx.b.declare_var(&fx.ctx, "x", zero, true).unwrap();
    let (lb, ub, st) = (i64c(&mut fx, 0), i64c(&mut fx, 4), i64c(&mut fx, 1));
    let iv = fx.b.new_scalar(DataType::Int64, "i");
    let err =
        fx.b.for_loop(
            &mut fx.ctx,
            iv,
            lb,
            ub,
            st,
            ForKind::Parallel,
            |b, ctx, i| b.assign_var(ctx, "x", i),
        )
        .unwrap_err();
    assert!(
        err.message.contains("`x` is assigned in a parallel loop"),
        "{}",
        err.message
    );
}

#[test]
fn misuse_is_an_error_not_a_panic() {
    let mut b = IRBuilder::new(ProgramModule::new("m"));
    let mut ctx = IRBuilderContext::new();
    assert!(ctx.pop_scope().is_err());
    let e = b
        .create_const(&mut ctx, Constant::Int64(1), None, "")
        .unwrap_err();
    assert!(e.message.contains("no insertion point"));
    let f = b
        .create_function("f", FunctionKind::Kernel, Signature::default(), true)
        .unwrap();
    assert!(
        b.create_function("f", FunctionKind::Kernel, Signature::default(), false)
            .is_err()
    );
    b.enter_function_body(&mut ctx, f).unwrap();
    let one = b
        .create_const(&mut ctx, Constant::Int64(1), None, "one")
        .unwrap();
    let iv = b.new_scalar(DataType::Int64, "i");
    let fs = b.create_for_stmt(&mut ctx, iv, one, one, one).unwrap();
    b.enter_for_body(&mut ctx, fs).unwrap();
    assert!(
        b.exit_for_statement(&mut ctx, fs).is_err(),
        "body scope still open"
    );
    b.create_yield(&mut ctx, vec![one, one]).unwrap();
    ctx.pop_scope().unwrap();
    // Nothing is assigned in the loop, so an explicit 2-value yield is the wrong arity.
    assert!(b.exit_for_statement(&mut ctx, fs).is_err());
    b.declare_var(&ctx, "k", one, false).unwrap();
    let e = b.assign_var(&ctx, "k", one).unwrap_err();
    assert_eq!(e.message, "cannot assign twice to immutable variable `k`");
    let e = b.use_var(&mut ctx, "nope").unwrap_err();
    assert_eq!(e.message, "cannot find value `nope` in this scope");
    let e = b.create_break(&mut ctx).unwrap_err();
    assert_eq!(e.message, "`break` outside of a loop");
    let t = b.new_value(Type::Tile(TileType::new(DataType::Fp32, vec![16, 16])), "t");
    let e = b.create_return(&mut ctx, vec![t]).unwrap_err();
    assert!(e.message.starts_with("only scalars can be returned"));
    let flt = b
        .create_const(&mut ctx, Constant::Double(1.0), None, "")
        .unwrap();
    let e = b
        .build_op(
            &mut ctx,
            Opcode::ScalarAdd,
            vec![one, flt],
            Attrs::new(),
            "",
        )
        .unwrap_err();
    assert_eq!(
        e.message,
        "`scalar.add` operands have different types: int64 and fp64"
    );
    assert!(b.finish(&ctx).is_err(), "function body scope still open");
}

#[test]
fn explicit_yield_of_wrong_arity_is_rejected() {
    let mut fx = kernel(vec![]);
    let zero = i64c(&mut fx, 0);
    fx.b.declare_var(&fx.ctx, "x", zero, true).unwrap();
    let (lb, ub, st) = (i64c(&mut fx, 0), i64c(&mut fx, 4), i64c(&mut fx, 1));
    let iv = fx.b.new_scalar(DataType::Int64, "i");
    let fs = fx.b.create_for_stmt(&mut fx.ctx, iv, lb, ub, st).unwrap();
    fx.b.enter_for_body(&mut fx.ctx, fs).unwrap();
    fx.b.assign_var(&fx.ctx, "x", iv).unwrap();
    fx.b.create_yield(&mut fx.ctx, vec![iv, iv]).unwrap();
    fx.ctx.pop_scope().unwrap();
    let e = fx.b.exit_for_statement(&mut fx.ctx, fs).unwrap_err();
    assert!(
        e.message.contains("explicit yield has 2 value(s)"),
        "{}",
        e.message
    );
}

#[test]
fn scope_is_transparent() {
    let mut fx = kernel(vec![]);
    let zero = i64c(&mut fx, 0);
    fx.b.declare_var(&fx.ctx, "x", zero, true).unwrap();
    fx.b.scope(&mut fx.ctx, ScopeKind::InCore, |b, ctx| {
        let x = b.use_var(ctx, "x")?;
        let y = b
            .build_op(ctx, Opcode::ScalarAdd, vec![x, x], Attrs::new(), "y")?
            .unwrap();
        b.declare_var(ctx, "y", y, false)?;
        b.assign_var(ctx, "x", y)
    })
    .unwrap();
    let y = fx.b.use_var(&mut fx.ctx, "y").unwrap();
    assert_eq!(fx.b.use_var(&mut fx.ctx, "x").unwrap(), y);
    let _ = body_stmts(&fx);
    let _ = add;
}

#[test]
fn if_value_with_a_breaking_branch_takes_the_live_branch() {
    let mut fx = kernel(vec![("c", Type::Scalar(DataType::Bool), Direction::In)]);
    let mut got = None;
    for_range(&mut fx, 4, |b, ctx, _| {
        let c = b.use_var(ctx, "c")?;
        let (ifs, v) = b.if_else(
            ctx,
            c,
            |b, ctx| b.create_break(ctx).map(|_| None),
            |b, ctx| b.create_const(ctx, Constant::Int64(5), None, "").map(Some),
        )?;
        got = Some((ifs, v));
        Ok(())
    });
    let (ifs, v) = got.unwrap();
    let m = fx.b.module();
    let StmtKind::If(i) = &m.stmts[ifs].kind else {
        panic!()
    };
    assert_eq!(i.results.len(), 1);
    assert_eq!(v, Some(i.results[0]));
    let then_last = *m.blocks[i.then_block].stmts.last().unwrap();
    assert!(matches!(m.stmts[then_last].kind, StmtKind::Break(_)));
    let else_last = *m.blocks[i.else_block].stmts.last().unwrap();
    assert!(matches!(&m.stmts[else_last].kind, StmtKind::Yield(v) if v.len() == 1));
}

/// Under strict mutability, reads of immutable variables inside nested loops are their
/// values (no provisional is made, nothing is rewritten) and the printed module is the one
/// the default mode builds; rebinding an immutable outer variable is an error.
#[test]
fn strict_mutability_reads_immutables_directly_with_the_same_ir() {
    let build = |strict: bool| {
        let mut fx = kernel(vec![("n", Type::Scalar(DataType::Int64), Direction::In)]);
        fx.ctx.strict_mutability = strict;
        let zero = i64c(&mut fx, 0);
        fx.b.declare_var(&fx.ctx, "acc", zero, true).unwrap();
        let reads = std::cell::RefCell::new(Vec::new());
        for_range(&mut fx, 4, |b, ctx, _| {
            let lb = b.create_const(ctx, Constant::Int64(0), None, "")?;
            let st = b.create_const(ctx, Constant::Int64(1), None, "")?;
            let iv = b.new_scalar(DataType::Int64, "j");
            b.for_loop(ctx, iv, lb, lb, st, ForKind::Sequential, |b, ctx, _| {
                let n = b.use_var(ctx, "n")?;
                let i = b.use_var(ctx, "i")?;
                let acc = b.use_var(ctx, "acc")?;
                reads.borrow_mut().extend([n, i]);
                let t = b
                    .build_op(ctx, Opcode::ScalarAdd, vec![n, i], Attrs::new(), "t")?
                    .unwrap();
                let s = b
                    .build_op(ctx, Opcode::ScalarAdd, vec![acc, t], Attrs::new(), "acc")?
                    .unwrap();
                b.assign_var(ctx, "acc", s)
            })?;
            Ok(())
        });
        let rebind = fx.b.set_env_var(&fx.ctx, "n", zero);
        (
            fx.b.module().to_string(),
            reads.into_inner(),
            rebind.is_err(),
        )
    };
    let (default_ir, default_reads, default_rebind) = build(false);
    let (strict_ir, strict_reads, strict_rebind) = build(true);
    assert_eq!(strict_ir, default_ir);
    assert!(!default_rebind && strict_rebind);
    // Default: provisionals (later replaced); strict: the parameter and the outer loop's
    // induction variable themselves.
    assert_ne!(default_reads, strict_reads);
    assert!(strict_ir.contains("%acc_"));
}
