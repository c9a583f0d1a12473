//! Checklist item 5: statement structure — loop and branch typing, terminators and where
//! they may appear.

use crate::DataType;
use crate::entity::{BlockId, FuncId, SpanId, StmtId, ValueId};
use crate::inline::InlineVec;
use crate::ops::same_up_to_valid;
use crate::stmt::{ForKind, IterArg, StmtKind};
use crate::types::Type;

use super::{Bodies, Verifier, count};

/// What a block is, as the walk reached it (the block's own `role` field is not trusted).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    FuncBody,
    ForBody,
    WhileBody,
    Branch,
    WhileCond,
    Scope,
}

pub(super) fn check(v: &mut Verifier<'_>, bodies: &Bodies) {
    for body in bodies.iter() {
        let mut c = Control {
            v: &mut *v,
            func: body.func,
            loops: InlineVec::new(),
        };
        c.function();
    }
}

struct Control<'a, 'b> {
    v: &'b mut Verifier<'a>,
    func: FuncId,
    /// The loop-carried values of each enclosing loop, innermost last (emptied inside a
    /// `while` condition region and a `statement.scope`, which `break` cannot leave). Kept
    /// inline: loops rarely nest four deep.
    loops: InlineVec<&'a [IterArg], 4>,
}

/// The statements a block may end in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ends {
    /// `statement.yield`.
    Yield,
    /// `statement.yield`, `statement.break` or `statement.continue`.
    LoopExit,
    /// `statement.condition`.
    Condition,
}

/// What a `yield` at the end of a block must match.
enum YieldTarget<'x> {
    None,
    Loop(&'x str, &'x [IterArg]),
    If(&'x [ValueId]),
}

/// The values a `yield`, `break` or `continue` must match in type: an `if`'s results or a
/// loop's iter args.
#[derive(Clone, Copy)]
enum Targets<'x> {
    Values(&'x [ValueId]),
    IterArgs(&'x [IterArg]),
}

impl Targets<'_> {
    fn len(self) -> usize {
        match self {
            Targets::Values(v) => v.len(),
            Targets::IterArgs(a) => a.len(),
        }
    }

    fn get(self, i: usize) -> Option<ValueId> {
        match self {
            Targets::Values(v) => v.get(i).copied(),
            Targets::IterArgs(a) => a.get(i).map(|a| a.arg),
        }
    }
}

impl<'a> Control<'a, '_> {
    fn function(&mut self) {
        let m = self.v.m;
        let func = &m.funcs[self.func];
        self.block(func.body, Role::FuncBody, &YieldTarget::None);
        if !func.sig.returns.is_empty() {
            let ends_in_return = m.blocks[func.body]
                .stmts
                .last()
                .is_some_and(|&s| matches!(m.stmts[s].kind, StmtKind::Return(_)));
            if !ends_in_return {
                let types: Vec<String> = func.sig.returns.iter().map(|t| self.v.show(t)).collect();
                self.v.error(
                    func.span,
                    format!(
                        "`@{}` returns ({}) but its body does not end in `statement.return`",
                        func.name,
                        types.join(", ")
                    ),
                );
            }
        }
    }

    /// Checks that a scalar value has an integer (or, with `want_bool`, `bool`) type.
    fn expect_scalar(&mut self, val: ValueId, at: SpanId, what: &str, want_bool: bool) {
        let t = self.v.ty(val);
        let ok = if want_bool {
            *t == Type::Scalar(DataType::Bool)
        } else {
            t.is_int_scalar()
        };
        if !ok {
            let want = if want_bool { "bool" } else { "an integer" };
            self.v.error(
                at,
                format!(
                    "{what} `{}` is {}, expected {want}",
                    self.v.name(val),
                    self.v.show(t)
                ),
            );
        }
    }

    /// `values` (yielded, carried by break / continue) against the types of `targets`;
    /// `head` and `count_msg` spell the messages, only when reported.
    fn match_values(
        &mut self,
        at: SpanId,
        values: &[ValueId],
        targets: Targets<'_>,
        head: impl Fn() -> String,
        count_msg: impl FnOnce() -> String,
        target_kind: &str,
    ) {
        if values.len() != targets.len() {
            self.v.error(at, count_msg());
            return;
        }
        for (i, &x) in values.iter().enumerate() {
            let Some(t) = targets.get(i) else { break };
            let (tx, tt) = (self.v.ty(x), self.v.ty(t));
            if !same_up_to_valid(tx, tt) {
                self.v.error(
                    at,
                    format!(
                        "{} `{}` is {} but {target_kind} `{}` is {}",
                        head(),
                        self.v.name(x),
                        self.v.show(tx),
                        self.v.name(t),
                        self.v.show(tt)
                    ),
                );
            }
        }
    }

    /// Iter args against their inits, and results against the iter args.
    fn iter_args(&mut self, at: SpanId, kw: &str, iter_args: &[IterArg], results: &[ValueId]) {
        for a in iter_args {
            let (ta, ti) = (self.v.ty(a.arg), self.v.ty(a.init));
            if !same_up_to_valid(ta, ti) {
                self.v.error(
                    at,
                    format!(
                        "iter_arg `{}` is {} but its initial value `{}` is {}",
                        self.v.name(a.arg),
                        self.v.show(ta),
                        self.v.name(a.init),
                        self.v.show(ti)
                    ),
                );
            }
        }
        if iter_args.len() != results.len() {
            self.v.error(
                at,
                format!(
                    "`{kw}` has {} but {}",
                    count(iter_args.len(), "iter_arg"),
                    count(results.len(), "result")
                ),
            );
            return;
        }
        for (a, &r) in iter_args.iter().zip(results) {
            let (ta, tr) = (self.v.ty(a.arg), self.v.ty(r));
            if !same_up_to_valid(ta, tr) {
                self.v.error(
                    at,
                    format!(
                        "result `{}` is {} but iter_arg `{}` is {}",
                        self.v.name(r),
                        self.v.show(tr),
                        self.v.name(a.arg),
                        self.v.show(ta)
                    ),
                );
            }
        }
    }

    /// Whether the block's last statement is one of `allowed`.
    fn ends_in(&self, b: BlockId, allowed: Ends) -> bool {
        let m = self.v.m;
        let Some(&s) = m.blocks[b].stmts.last() else {
            return false;
        };
        match m.stmts[s].kind {
            StmtKind::Yield(_) => allowed != Ends::Condition,
            StmtKind::Break(_) | StmtKind::Continue(_) => allowed == Ends::LoopExit,
            StmtKind::Condition(_) => allowed == Ends::Condition,
            _ => false,
        }
    }

    fn block(&mut self, b: BlockId, role: Role, target: &YieldTarget<'_>) {
        let m = self.v.m;
        let stmts = &m.blocks[b].stmts;
        for (i, &s) in stmts.iter().enumerate() {
            let last = i + 1 == stmts.len();
            self.stmt(s, role, last, target);
        }
    }

    /// Checks a block outside every enclosing loop (a `while` condition region, a scope).
    fn block_outside_loops(&mut self, b: BlockId, role: Role) {
        let loops = std::mem::take(&mut self.loops);
        self.block(b, role, &YieldTarget::None);
        self.loops = loops;
    }

    /// Checks a loop body, inside the loop carrying `args`.
    fn loop_body(&mut self, b: BlockId, role: Role, kw: &str, args: &'a [IterArg]) {
        self.loops.push(args);
        self.block(b, role, &YieldTarget::Loop(kw, args));
        self.loops.pop();
    }

    fn not_last(&mut self, at: SpanId, kw: &str) {
        self.v.error(
            at,
            format!("`{kw}` must be the last statement of its block"),
        );
    }

    fn stmt(&mut self, s: StmtId, role: Role, last: bool, target: &YieldTarget<'_>) {
        let m = self.v.m;
        let st = &m.stmts[s];
        let at = st.span;
        let kw = st.kind.keyword();
        match &st.kind {
            StmtKind::Op(_) => {}
            StmtKind::For(f) => {
                self.expect_scalar(f.lb, at, "loop bound", false);
                self.expect_scalar(f.ub, at, "loop bound", false);
                self.expect_scalar(f.step, at, "loop step", false);
                self.expect_scalar(f.iv, at, "induction variable", false);
                if f.kind == ForKind::Parallel {
                    for a in &f.iter_args {
                        let msg = format!(
                            "loop-carried value `{}` in a parallel loop",
                            self.v.name(a.arg)
                        );
                        self.v.push(
                            crate::Diag::new(at, msg)
                                .note("the iterations of a parallel loop are independent; use a sequential loop to carry values"),
                        );
                    }
                }
                self.iter_args(at, kw, &f.iter_args, &f.results);
                self.loop_body(f.body, Role::ForBody, kw, &f.iter_args);
                if !self.ends_in(f.body, Ends::LoopExit) {
                    self.v
                        .error(at, "`statement.for` body must end in `statement.yield`");
                }
            }
            StmtKind::If(i) => {
                self.expect_scalar(i.cond, at, "if condition", true);
                let ends = if self.loops.is_empty() {
                    Ends::Yield
                } else {
                    Ends::LoopExit
                };
                for (b, which) in [(i.then_block, "then"), (i.else_block, "else")] {
                    self.block(b, Role::Branch, &YieldTarget::If(&i.results));
                    if !self.ends_in(b, ends) {
                        self.v.error(
                            at,
                            format!(
                                "{which} branch of `statement.if` must end in `statement.yield`"
                            ),
                        );
                    }
                }
            }
            StmtKind::While(w) => {
                self.iter_args(at, kw, &w.iter_args, &w.results);
                self.block_outside_loops(w.cond_block, Role::WhileCond);
                if !self.ends_in(w.cond_block, Ends::Condition) {
                    self.v.error(
                        at,
                        "`statement.while` condition region must end in `statement.condition`",
                    );
                }
                self.loop_body(w.body, Role::WhileBody, kw, &w.iter_args);
                if !self.ends_in(w.body, Ends::LoopExit) {
                    self.v
                        .error(at, "`statement.while` body must end in `statement.yield`");
                }
            }
            StmtKind::Scope(_, body) => {
                self.block_outside_loops(*body, Role::Scope);
            }
            StmtKind::Condition(c) => {
                if role != Role::WhileCond {
                    self.v
                        .error(at, "`statement.condition` outside a while condition region");
                } else if !last {
                    self.not_last(at, kw);
                }
                self.expect_scalar(*c, at, "while condition", true);
            }
            StmtKind::Yield(vals) => {
                let allowed = matches!(role, Role::ForBody | Role::WhileBody | Role::Branch);
                if !allowed {
                    let place = match role {
                        Role::FuncBody => "a function body",
                        Role::Scope => "a `statement.scope`",
                        _ => "a while condition region",
                    };
                    self.v.error(at, format!("`statement.yield` in {place}; it may only end a loop body or an if branch"));
                    return;
                }
                if !last {
                    self.not_last(at, kw);
                }
                match target {
                    YieldTarget::Loop(lkw, args) => self.match_values(
                        at,
                        vals,
                        Targets::IterArgs(args),
                        || "yielded value".to_string(),
                        || {
                            format!(
                                "`statement.yield` yields {} but the `{lkw}` has {}",
                                count(vals.len(), "value"),
                                count(args.len(), "iter_arg")
                            )
                        },
                        "iter_arg",
                    ),
                    YieldTarget::If(results) => self.match_values(
                        at,
                        vals,
                        Targets::Values(results),
                        || "yielded value".to_string(),
                        || {
                            format!(
                                "`statement.yield` yields {} but the `statement.if` has {}",
                                count(vals.len(), "value"),
                                count(results.len(), "result")
                            )
                        },
                        "result",
                    ),
                    YieldTarget::None => {}
                }
            }
            StmtKind::Break(vals) | StmtKind::Continue(vals) => {
                let Some(&args) = self.loops.last() else {
                    self.v.error(at, format!("`{kw}` outside a loop"));
                    return;
                };
                if !last {
                    self.not_last(at, kw);
                }
                self.match_values(
                    at,
                    vals,
                    Targets::IterArgs(args),
                    || format!("`{kw}` value"),
                    || {
                        format!(
                            "`{kw}` carries {} but the innermost loop has {}",
                            count(vals.len(), "value"),
                            count(args.len(), "iter_arg")
                        )
                    },
                    "iter_arg",
                );
            }
            StmtKind::Return(vals) => {
                if role != Role::FuncBody || !last {
                    self.v.error(at, "`statement.return` is only allowed as the last statement of the function body");
                }
                let func = &m.funcs[self.func];
                for &x in vals {
                    let t = self.v.ty(x);
                    if !matches!(t, Type::Scalar(_)) {
                        self.v.error(
                            at,
                            format!(
                                "return of a {} `{}` ({}); only scalars can be returned",
                                t.kind_name(),
                                self.v.name(x),
                                self.v.show(t)
                            ),
                        );
                    }
                }
                if vals.len() != func.sig.returns.len() {
                    self.v.error(
                        at,
                        format!(
                            "`statement.return` returns {} but `@{}` declares {}",
                            count(vals.len(), "value"),
                            func.name,
                            count(func.sig.returns.len(), "return type")
                        ),
                    );
                } else {
                    for (&x, want) in vals.iter().zip(&func.sig.returns) {
                        let t = self.v.ty(x);
                        if t != want && matches!(t, Type::Scalar(_)) {
                            self.v.error(
                                at,
                                format!(
                                    "returned value `{}` is {} but `@{}` returns {}",
                                    self.v.name(x),
                                    self.v.show(t),
                                    func.name,
                                    self.v.show(want)
                                ),
                            );
                        }
                    }
                }
            }
        }
    }
}
