//! Structured statements: `for`, `if`, `while`, `break`, `continue`, `scope`, `yield`,
//! `return`, in the seed's explicit create / enter / pop / exit form and in closure-scoped
//! forms that always leave the scope stack balanced.

use super::context::IRBuilderContext;
use super::{IRBuilder, fail};
use crate::attr::Attrs;
use crate::diag::Diag;
use crate::entity::{BlockId, StmtId, ValueId};
use crate::stmt::{
    BlockRole, ForKind, ForStmt, IfStmt, IterArgs, ScopeKind, Statement, StmtKind, ValueList,
    WhileStmt,
};
use crate::typefmt::type_msg;
use crate::types::Type;
use crate::value::ValueDef;

impl IRBuilder {
    fn push_statement(
        &mut self,
        ctx: &mut IRBuilderContext,
        kind: StmtKind,
    ) -> Result<StmtId, Diag> {
        let block = self.insertion_block(ctx)?;
        // Every entered block is on the scope stack: a statement with blocks of its own
        // would put them past what prints and parses back.
        let compound = matches!(
            kind,
            StmtKind::For(_) | StmtKind::If(_) | StmtKind::While(_) | StmtKind::Scope(..)
        );
        if compound && ctx.scope_stack.len() >= crate::MAX_NESTING {
            return fail(|| {
                Diag::new(
                    ctx.span,
                    format!(
                        "blocks nested deeper than {} (the most the IR text holds)",
                        crate::MAX_NESTING
                    ),
                )
            });
        }
        let s = self.module.push_stmt(
            block,
            Statement {
                kind,
                span: ctx.span,
            },
        );
        ctx.active_op_stmt = None;
        Ok(s)
    }

    fn expect_int(&self, ctx: &IRBuilderContext, v: ValueId, what: &str) -> Result<(), Diag> {
        let ty = self.module.values.get(v).map(|d| &d.ty).ok_or_else(|| {
            Diag::new(
                ctx.span,
                format!("{what} {v:?} is not a value of this module"),
            )
        })?;
        if ty.is_int_scalar() {
            Ok(())
        } else {
            fail(|| {
                Diag::new(
                    ctx.span,
                    format!(
                        "{what} must be an integer scalar, found {}",
                        type_msg(&self.module, ty)
                    ),
                )
            })
        }
    }

    fn expect_bool(&self, ctx: &IRBuilderContext, v: ValueId, what: &str) -> Result<(), Diag> {
        let ty = self.module.values.get(v).map(|d| &d.ty).ok_or_else(|| {
            Diag::new(
                ctx.span,
                format!("{what} {v:?} is not a value of this module"),
            )
        })?;
        if *ty == Type::Scalar(crate::dtype::DataType::Bool) {
            Ok(())
        } else {
            fail(|| {
                Diag::new(
                    ctx.span,
                    format!(
                        "{what} must be a bool, found {}",
                        type_msg(&self.module, ty)
                    ),
                )
            })
        }
    }

    /// Seed `CreateForStmt`: a sequential `for iv in start..end step step` in the current
    /// scope. Enter its body with [`IRBuilder::enter_for_body`], pop it, then call
    /// [`IRBuilder::exit_for_statement`].
    pub fn create_for_stmt(
        &mut self,
        ctx: &mut IRBuilderContext,
        iv: ValueId,
        start: ValueId,
        end: ValueId,
        step: ValueId,
    ) -> Result<StmtId, Diag> {
        self.create_for_stmt_kind(ctx, iv, start, end, step, ForKind::Sequential)
    }

    /// [`IRBuilder::create_for_stmt`] with an explicit sequential / parallel kind.
    pub fn create_for_stmt_kind(
        &mut self,
        ctx: &mut IRBuilderContext,
        iv: ValueId,
        start: ValueId,
        end: ValueId,
        step: ValueId,
        kind: ForKind,
    ) -> Result<StmtId, Diag> {
        self.expect_int(ctx, iv, "the induction variable")?;
        self.expect_int(ctx, start, "the loop's lower bound")?;
        self.expect_int(ctx, end, "the loop's upper bound")?;
        self.expect_int(ctx, step, "the loop's step")?;
        let parent = self.insertion_block(ctx)?;
        let body = self
            .module
            .new_block(Some(parent), None, BlockRole::ForBody);
        let s = self.push_statement(
            ctx,
            StmtKind::For(ForStmt {
                iv,
                lb: start,
                ub: end,
                step,
                iter_args: IterArgs::new(),
                body,
                results: ValueList::new(),
                kind,
                attrs: Attrs::new(),
            }),
        )?;
        self.module.blocks[body].owner = Some(s);
        self.module.values[iv].def = ValueDef::Iv(s);
        ctx.loops.entry_or_default(s);
        Ok(s)
    }

    /// Seed `EnterForBody`: pushes the loop body scope; the induction variable is visible
    /// there under its name.
    pub fn enter_for_body(&mut self, ctx: &mut IRBuilderContext, fs: StmtId) -> Result<(), Diag> {
        let (body, iv) = match self.module.stmts.get(fs).map(|s| &s.kind) {
            Some(StmtKind::For(f)) => (f.body, f.iv),
            _ => {
                return fail(|| Diag::new(ctx.span, format!("{fs:?} is not a for statement")));
            }
        };
        ctx.push_scope(body, None);
        if let Some(name) = self.module.values[iv].name.clone() {
            self.declare_var_named(ctx, name, iv, false)?;
        }
        Ok(())
    }

    /// Seed `ExitForStatement`: after the body scope is popped, creates iter args, the
    /// yield and results for the variables the body assigned.
    pub fn exit_for_statement(
        &mut self,
        ctx: &mut IRBuilderContext,
        fs: StmtId,
    ) -> Result<(), Diag> {
        self.close_loop(ctx, fs)
    }

    /// Seed `CreateIfStmt`: an `if` with empty then and else branches.
    pub fn create_if_stmt(
        &mut self,
        ctx: &mut IRBuilderContext,
        cond: ValueId,
    ) -> Result<StmtId, Diag> {
        self.expect_bool(ctx, cond, "the `if` condition")?;
        let parent = self.insertion_block(ctx)?;
        let then_block = self.module.new_block(Some(parent), None, BlockRole::Then);
        let else_block = self.module.new_block(Some(parent), None, BlockRole::Else);
        let s = self.push_statement(
            ctx,
            StmtKind::If(IfStmt {
                cond,
                then_block,
                else_block,
                results: ValueList::new(),
            }),
        )?;
        self.module.blocks[then_block].owner = Some(s);
        self.module.blocks[else_block].owner = Some(s);
        Ok(s)
    }

    /// The two blocks of statement `s` as `pick` reads them (then/else of an `if`,
    /// condition/body of a `while`); an error naming `what` when `s` is something else.
    fn two_blocks(
        &self,
        ctx: &IRBuilderContext,
        s: StmtId,
        what: &str,
        pick: fn(&StmtKind) -> Option<(BlockId, BlockId)>,
    ) -> Result<(BlockId, BlockId), Diag> {
        self.module
            .stmts
            .get(s)
            .and_then(|st| pick(&st.kind))
            .ok_or_else(|| Diag::new(ctx.span, format!("{s:?} is not {what}")))
    }

    fn if_blocks(&self, ctx: &IRBuilderContext, ifs: StmtId) -> Result<(BlockId, BlockId), Diag> {
        self.two_blocks(ctx, ifs, "an if statement", |k| match k {
            StmtKind::If(i) => Some((i.then_block, i.else_block)),
            _ => None,
        })
    }

    /// Seed `EnterIfThen`: pushes the then branch scope.
    pub fn enter_if_then(&mut self, ctx: &mut IRBuilderContext, ifs: StmtId) -> Result<(), Diag> {
        let (t, _) = self.if_blocks(ctx, ifs)?;
        ctx.push_scope(t, None);
        Ok(())
    }

    /// Seed `EnterIfElse`: pushes the else branch scope.
    pub fn enter_if_else(&mut self, ctx: &mut IRBuilderContext, ifs: StmtId) -> Result<(), Diag> {
        let (_, e) = self.if_blocks(ctx, ifs)?;
        ctx.push_scope(e, None);
        Ok(())
    }

    /// Records `value` as the value of the current `if` branch (the tail expression of an
    /// `if` used as an expression); [`IRBuilder::exit_if_statement`] merges the two.
    pub fn set_branch_value(
        &mut self,
        ctx: &mut IRBuilderContext,
        value: ValueId,
    ) -> Result<(), Diag> {
        let block = self.insertion_block(ctx)?;
        ctx.branch_values.insert(block, value);
        Ok(())
    }

    /// Seed `ExitIfStatement`: after both branch scopes are popped, merges the variables the
    /// branches assigned into results and completes both yields. Returns the merged branch
    /// value when both branches set one with [`IRBuilder::set_branch_value`].
    pub fn exit_if_statement(
        &mut self,
        ctx: &mut IRBuilderContext,
        ifs: StmtId,
    ) -> Result<Option<ValueId>, Diag> {
        self.close_if(ctx, ifs)
    }

    /// A `while` loop: enter its condition region with [`IRBuilder::enter_while_cond`], end
    /// it with [`IRBuilder::create_condition`], pop; enter the body with
    /// [`IRBuilder::enter_while_body`], pop; then [`IRBuilder::exit_while_statement`].
    pub fn create_while_stmt(&mut self, ctx: &mut IRBuilderContext) -> Result<StmtId, Diag> {
        let parent = self.insertion_block(ctx)?;
        let cond_block = self
            .module
            .new_block(Some(parent), None, BlockRole::WhileCond);
        let body = self
            .module
            .new_block(Some(parent), None, BlockRole::WhileBody);
        let s = self.push_statement(
            ctx,
            StmtKind::While(WhileStmt {
                iter_args: IterArgs::new(),
                cond_block,
                body,
                results: ValueList::new(),
            }),
        )?;
        self.module.blocks[cond_block].owner = Some(s);
        self.module.blocks[body].owner = Some(s);
        ctx.loops.entry_or_default(s);
        Ok(s)
    }

    fn while_blocks(&self, ctx: &IRBuilderContext, ws: StmtId) -> Result<(BlockId, BlockId), Diag> {
        self.two_blocks(ctx, ws, "a while statement", |k| match k {
            StmtKind::While(w) => Some((w.cond_block, w.body)),
            _ => None,
        })
    }

    /// Pushes a `while`'s condition region.
    pub fn enter_while_cond(&mut self, ctx: &mut IRBuilderContext, ws: StmtId) -> Result<(), Diag> {
        let (c, _) = self.while_blocks(ctx, ws)?;
        ctx.push_scope(c, None);
        Ok(())
    }

    /// Ends a `while` condition region with `statement.condition %cond`.
    pub fn create_condition(
        &mut self,
        ctx: &mut IRBuilderContext,
        cond: ValueId,
    ) -> Result<StmtId, Diag> {
        self.expect_bool(ctx, cond, "the `while` condition")?;
        let block = self.insertion_block(ctx)?;
        if self.module.blocks[block].role != BlockRole::WhileCond {
            return fail(|| {
                Diag::new(
                    ctx.span,
                    "statement.condition belongs at the end of a while condition region",
                )
            });
        }
        self.push_statement(ctx, StmtKind::Condition(cond))
    }

    /// Pushes a `while`'s body.
    pub fn enter_while_body(&mut self, ctx: &mut IRBuilderContext, ws: StmtId) -> Result<(), Diag> {
        let (_, b) = self.while_blocks(ctx, ws)?;
        ctx.push_scope(b, None);
        Ok(())
    }

    /// After both regions are popped: iter args, yield and results, as for `for`.
    pub fn exit_while_statement(
        &mut self,
        ctx: &mut IRBuilderContext,
        ws: StmtId,
    ) -> Result<(), Diag> {
        let (c, _) = self.while_blocks(ctx, ws)?;
        let ends_in_condition = self.module.blocks[c]
            .stmts
            .last()
            .is_some_and(|&s| matches!(self.module.stmts[s].kind, StmtKind::Condition(_)));
        if !ends_in_condition {
            return fail(|| {
                Diag::new(
                    ctx.span,
                    "the while condition region must end with create_condition",
                )
            });
        }
        self.close_loop(ctx, ws)
    }

    fn create_loop_exit(
        &mut self,
        ctx: &mut IRBuilderContext,
        is_break: bool,
    ) -> Result<StmtId, Diag> {
        let word = if is_break { "break" } else { "continue" };
        let lp = self
            .innermost_loop(ctx)
            .ok_or_else(|| Diag::new(ctx.span, format!("`{word}` outside of a loop")))?;
        let kind = if is_break {
            StmtKind::Break(ValueList::new())
        } else {
            StmtKind::Continue(ValueList::new())
        };
        let s = self.push_statement(ctx, kind)?;
        self.record_exit(ctx, s, lp);
        Ok(s)
    }

    /// `statement.break`: leaves the innermost loop; it carries the loop-carried values as
    /// they are here (filled in when the loop is closed).
    pub fn create_break(&mut self, ctx: &mut IRBuilderContext) -> Result<StmtId, Diag> {
        self.create_loop_exit(ctx, true)
    }

    /// `statement.continue`: next iteration of the innermost loop, carrying the current
    /// loop-carried values.
    pub fn create_continue(&mut self, ctx: &mut IRBuilderContext) -> Result<StmtId, Diag> {
        self.create_loop_exit(ctx, false)
    }

    /// `statement.scope incore { .. }`: enter with [`IRBuilder::enter_scope_body`], pop, then
    /// [`IRBuilder::exit_scope_statement`]. A scope is transparent to SSA (seed 004): what it
    /// defines or assigns stays visible after it.
    pub fn create_scope_stmt(
        &mut self,
        ctx: &mut IRBuilderContext,
        kind: ScopeKind,
    ) -> Result<StmtId, Diag> {
        let parent = self.insertion_block(ctx)?;
        let body = self.module.new_block(Some(parent), None, BlockRole::Scope);
        let s = self.push_statement(ctx, StmtKind::Scope(kind, body))?;
        self.module.blocks[body].owner = Some(s);
        Ok(s)
    }

    /// Pushes a scope statement's body.
    pub fn enter_scope_body(&mut self, ctx: &mut IRBuilderContext, ss: StmtId) -> Result<(), Diag> {
        match self.module.stmts.get(ss).map(|s| &s.kind) {
            Some(StmtKind::Scope(_, b)) => {
                ctx.push_scope(*b, None);
                Ok(())
            }
            _ => fail(|| Diag::new(ctx.span, format!("{ss:?} is not a scope statement"))),
        }
    }

    /// After the scope body is popped: makes its definitions visible after it.
    pub fn exit_scope_statement(
        &mut self,
        ctx: &mut IRBuilderContext,
        ss: StmtId,
    ) -> Result<(), Diag> {
        self.close_scope(ctx, ss)
    }

    /// Seed `CreateReturn`: `statement.return` of scalar values, only in the function body
    /// itself (the verifier checks it is the last statement).
    pub fn create_return(
        &mut self,
        ctx: &mut IRBuilderContext,
        values: impl Into<ValueList>,
    ) -> Result<StmtId, Diag> {
        let values = values.into();
        let block = self.insertion_block(ctx)?;
        if self.module.blocks[block].role != BlockRole::FuncBody {
            return fail(|| {
                Diag::new(
                    ctx.span,
                    "`return` is only allowed as the last statement of the function body",
                )
            });
        }
        for &v in &values {
            let ty = self.module.values.get(v).map(|d| &d.ty).ok_or_else(|| {
                Diag::new(ctx.span, format!("{v:?} is not a value of this module"))
            })?;
            if !matches!(ty, Type::Scalar(_)) {
                return fail(|| {
                    Diag::new(
                        ctx.span,
                        format!(
                            "only scalars can be returned, found {}",
                            type_msg(&self.module, ty)
                        ),
                    )
                    .note("tensors and tiles are returned through `&mut` / `#[out]` parameters")
                });
            }
        }
        self.push_statement(ctx, StmtKind::Return(values))
    }

    /// Seed `CreateYield`: an explicit `statement.yield` (normally the exits add it).
    pub fn create_yield(
        &mut self,
        ctx: &mut IRBuilderContext,
        values: impl Into<ValueList>,
    ) -> Result<StmtId, Diag> {
        self.push_statement(ctx, StmtKind::Yield(values.into()))
    }

    // ----- closure-scoped forms -----

    /// A `for` whose body is built by `body(builder, ctx, iv)`; the scope is always popped.
    #[allow(clippy::too_many_arguments)]
    pub fn for_loop(
        &mut self,
        ctx: &mut IRBuilderContext,
        iv: ValueId,
        start: ValueId,
        end: ValueId,
        step: ValueId,
        kind: ForKind,
        body: impl FnOnce(&mut Self, &mut IRBuilderContext, ValueId) -> Result<(), Diag>,
    ) -> Result<StmtId, Diag> {
        let fs = self.create_for_stmt_kind(ctx, iv, start, end, step, kind)?;
        self.enter_for_body(ctx, fs)?;
        let r = body(self, ctx, iv);
        ctx.pop_scope()?;
        r?;
        self.exit_for_statement(ctx, fs)?;
        Ok(fs)
    }

    /// An `if` whose branches are built by closures; each may return a branch value (both
    /// or neither), which the result merges. Returns the statement and the merged value.
    pub fn if_else(
        &mut self,
        ctx: &mut IRBuilderContext,
        cond: ValueId,
        then_f: impl FnOnce(&mut Self, &mut IRBuilderContext) -> Result<Option<ValueId>, Diag>,
        else_f: impl FnOnce(&mut Self, &mut IRBuilderContext) -> Result<Option<ValueId>, Diag>,
    ) -> Result<(StmtId, Option<ValueId>), Diag> {
        let ifs = self.create_if_stmt(ctx, cond)?;
        self.enter_if_then(ctx, ifs)?;
        let r = then_f(self, ctx).and_then(|v| match v {
            Some(v) => self.set_branch_value(ctx, v),
            None => Ok(()),
        });
        ctx.pop_scope()?;
        r?;
        self.enter_if_else(ctx, ifs)?;
        let r = else_f(self, ctx).and_then(|v| match v {
            Some(v) => self.set_branch_value(ctx, v),
            None => Ok(()),
        });
        ctx.pop_scope()?;
        r?;
        let v = self.exit_if_statement(ctx, ifs)?;
        Ok((ifs, v))
    }

    /// A `while` whose condition and body are built by closures; scopes are always popped.
    pub fn while_loop(
        &mut self,
        ctx: &mut IRBuilderContext,
        cond_f: impl FnOnce(&mut Self, &mut IRBuilderContext) -> Result<ValueId, Diag>,
        body_f: impl FnOnce(&mut Self, &mut IRBuilderContext) -> Result<(), Diag>,
    ) -> Result<StmtId, Diag> {
        let ws = self.create_while_stmt(ctx)?;
        self.enter_while_cond(ctx, ws)?;
        let r = cond_f(self, ctx).and_then(|c| self.create_condition(ctx, c).map(|_| ()));
        ctx.pop_scope()?;
        r?;
        self.enter_while_body(ctx, ws)?;
        let r = body_f(self, ctx);
        ctx.pop_scope()?;
        r?;
        self.exit_while_statement(ctx, ws)?;
        Ok(ws)
    }

    /// A `statement.scope` whose body is built by a closure.
    pub fn scope(
        &mut self,
        ctx: &mut IRBuilderContext,
        kind: ScopeKind,
        body: impl FnOnce(&mut Self, &mut IRBuilderContext) -> Result<(), Diag>,
    ) -> Result<StmtId, Diag> {
        let ss = self.create_scope_stmt(ctx, kind)?;
        self.enter_scope_body(ctx, ss)?;
        let r = body(self, ctx);
        ctx.pop_scope()?;
        r?;
        self.exit_scope_statement(ctx, ss)?;
        Ok(ss)
    }
}
