//! SSA construction from environment tables (seed 001 `ExitForStatement` /
//! `ExitIfStatement`), with the provisional loop arguments of Braun et al., "Simple and
//! Efficient Construction of Static Single Assignment Form" (CC 2013), as cranelift-frontend
//! `ssa.rs` does for unstructured code.
//!
//! Reading, inside an open loop, a variable declared outside it creates a *provisional*
//! value at the loop (the candidate iter arg) instead of returning the outer value, so uses
//! in the body are of that value alone. When the loop closes:
//! 1. the variables the body assigned (its env's *updates*) are the loop-carried ones;
//! 2. each gets an iter arg: its provisional if it was read, else a fresh value, in which
//!    case (seed-API users that hold value ids directly) uses of the initial value inside the
//!    body are rewritten to the iter arg, as the seed specifies;
//! 3. provisionals of variables the body did not assign are trivial: their uses are
//!    rewritten to the outer value (Braun's trivial-phi removal);
//! 4. the body's `yield` is added or completed with the final values, and each pending
//!    `break` / `continue` gets the values the carried variables had where it stood;
//! 5. results are created and assigned to the variables in the enclosing scope.
//!
//! An `if` merges the variables either branch assigned: each gets a result; a branch that
//! did not assign it yields the value from before the `if`; a branch that ends in `break`
//! or `continue` does not take part in the merge.

use super::context::{IRBuilderContext, LoopState, PendingExit, Provisional};
use super::{IRBuilder, fail};
use crate::diag::Diag;
use crate::entity::{BlockId, SecondaryMap, StmtId, ValueId};
use crate::env::{Binding, BindingKind, Name};
use crate::inline::InlineVec;
use crate::ops;
use crate::stmt::{Block, BlockRole, IterArg, IterArgs, Statement, StmtKind, ValueList};
use crate::typefmt::type_msg;
use crate::types::{Dim, Type};
use crate::value::ValueDef;

/// The loop statement whose body (or `while` condition) `b` is, if any.
fn loop_of(b: &Block) -> Option<StmtId> {
    match b.role {
        BlockRole::ForBody | BlockRole::WhileCond | BlockRole::WhileBody => b.owner,
        _ => None,
    }
}

impl IRBuilder {
    /// The current block, or an error when there is no insertion point.
    pub(crate) fn insertion_block(&self, ctx: &IRBuilderContext) -> Result<BlockId, Diag> {
        match ctx.compound {
            Some(b) if self.module.blocks.contains(b) => Ok(b),
            other => Err(no_insertion_point(ctx, other)),
        }
    }

    /// The binding `name` resolves to from `block` (creating nothing) and whether the
    /// variable may be assigned.
    pub(crate) fn lookup_binding(&self, mut block: BlockId, name: &str) -> Option<(ValueId, bool)> {
        loop {
            let b = self.module.blocks.get(block)?;
            if let Some(bind) = b.env.local(name) {
                return Some((bind.value, bind.mutable));
            }
            if let Some(bind) = b.env.update(name) {
                // An update implies the variable is mutable where it was declared.
                return Some((bind.value, true));
            }
            block = self.scope_parent(block)?;
        }
    }

    /// The innermost parallel `for` whose body lies between `block` and the declaration of
    /// variable `name` (so that assigning `name` in `block` would carry it across iterations).
    pub(crate) fn parallel_loop_between(&self, mut block: BlockId, name: &str) -> Option<StmtId> {
        loop {
            let b = self.module.blocks.get(block)?;
            if b.env.local(name).is_some() {
                return None;
            }
            if b.role == BlockRole::ForBody
                && let Some(s) = b.owner
                && matches!(&self.module.stmts[s].kind, StmtKind::For(f) if f.kind == crate::stmt::ForKind::Parallel)
            {
                return Some(s);
            }
            block = self.scope_parent(block)?;
        }
    }

    /// The block whose environment a block's lookups continue in.
    fn scope_parent(&self, block: BlockId) -> Option<BlockId> {
        self.module.blocks.get(block)?.parent
    }

    fn is_loop_block(&self, block: BlockId) -> Option<StmtId> {
        loop_of(self.module.blocks.get(block)?)
    }

    /// Resolves a read of `name` from `block`, creating provisional loop arguments in every
    /// open loop between the read and the variable's declaration.
    ///
    /// One walk up the scopes to the binding (or to a provisional the innermost open loop
    /// on the way already has), noting the open loops passed; then their provisionals are
    /// made from the outermost in, each reading the one outside it. (This is the order and
    /// numbering of the recursive definition, without a call frame per scope.)
    pub(crate) fn resolve(
        &mut self,
        ctx: &mut IRBuilderContext,
        block: BlockId,
        name: &str,
    ) -> Option<ValueId> {
        // Up to the first open loop without a provisional of `name`, nothing is made and
        // nothing is listed: most reads find their binding (or the innermost loop's
        // provisional) there, and return without the bookkeeping of the full walk.
        let mut cur = block;
        loop {
            let b = self.module.blocks.get(cur)?;
            if let Some(bind) = b.env.get(name) {
                return Some(bind.value);
            }
            let parent = b.parent?;
            if let Some(lp) = loop_of(b)
                && let Some(state) = ctx.loops.get(lp)
            {
                if let Some(p) = state.provisionals.iter().find(|p| &*p.name == name) {
                    return Some(p.value);
                }
                return self.resolve_through_loops(ctx, lp, parent, name);
            }
            cur = parent;
        }
    }

    /// The rest of [`IRBuilder::resolve`]'s walk once it has passed `first`, an open loop
    /// without a provisional of `name`, continuing at `from` (that loop body's parent).
    fn resolve_through_loops(
        &mut self,
        ctx: &mut IRBuilderContext,
        first: StmtId,
        from: BlockId,
        name: &str,
    ) -> Option<ValueId> {
        let mut loops: InlineVec<StmtId, 4> = InlineVec::new();
        loops.push(first);
        let mut cur = from;
        let (mut outer, fixed, shared) = loop {
            let b = self.module.blocks.get(cur)?;
            if let Some((n, bind)) = b.env.get_named(name) {
                let fixed =
                    ctx.strict_mutability && bind.kind == BindingKind::Local && !bind.mutable;
                // The variable's shared name: the provisionals are named after it.
                break (bind.value, fixed, Name::clone(n));
            }
            let parent = b.parent?;
            if let Some(lp) = loop_of(b)
                && let Some(state) = ctx.loops.get(lp)
            {
                if let Some(p) = state.provisionals.iter().find(|p| &*p.name == name) {
                    break (p.value, p.value == p.outer, Name::clone(&p.name));
                }
                loops.push(lp);
            }
            cur = parent;
        };
        while let Some(lp) = loops.pop() {
            let value = if fixed {
                // Never carried: read as its value, but the number its provisional would
                // have had is taken, so the IR does not depend on the mode.
                self.module.skip_number();
                outer
            } else {
                let ty = self.module.values[outer].ty.clone();
                self.module.new_value_named(ty, Some(Name::clone(&shared)))
            };
            ctx.loops
                .entry_or_default(lp)
                .provisionals
                .push(Provisional {
                    name: Name::clone(&shared),
                    value,
                    outer,
                });
            outer = value;
        }
        Some(outer)
    }

    /// Records the environments between the current block and the loop body, for a
    /// `break` / `continue` that will be completed when the loop closes.
    pub(crate) fn record_exit(
        &mut self,
        ctx: &mut IRBuilderContext,
        stmt: StmtId,
        loop_stmt: StmtId,
    ) {
        let mut chain = Vec::new();
        let mut cur = ctx.compound;
        while let Some(b) = cur {
            let Some(block) = self.module.blocks.get(b) else {
                break;
            };
            let mut entries: Vec<(Name, Binding, bool)> = block
                .env
                .update_names()
                .map(|(n, v)| {
                    (
                        Name::clone(n),
                        Binding {
                            value: v,
                            kind: BindingKind::Update,
                            mutable: true,
                        },
                        false,
                    )
                })
                .collect();
            entries.extend(
                block
                    .env
                    .local_names()
                    .map(|(n, bind)| (Name::clone(n), *bind, true)),
            );
            chain.push(entries);
            if self.is_loop_block(b) == Some(loop_stmt) {
                break;
            }
            cur = block.parent;
        }
        chain.reverse();
        ctx.loops
            .entry_or_default(loop_stmt)
            .exits
            .push(PendingExit {
                stmt,
                scopes: chain,
            });
    }

    /// The innermost open loop around the current block.
    pub(crate) fn innermost_loop(&self, ctx: &IRBuilderContext) -> Option<StmtId> {
        let mut cur = ctx.compound;
        while let Some(b) = cur {
            if let Some(lp) = self.is_loop_block(b) {
                return Some(lp);
            }
            cur = self.module.blocks.get(b)?.parent;
        }
        None
    }

    /// Assigns `name` in `block` as the result of a statement nested in it: updates the
    /// local if `block` declares `name`, else records an update of the enclosing variable.
    fn assign_in(&mut self, block: BlockId, name: Name, value: ValueId) {
        let env = &mut self.module.blocks[block].env;
        let local = env.local(&name);
        let kind = if local.is_some() {
            BindingKind::Local
        } else {
            BindingKind::Update
        };
        let mutable = local.is_none_or(|b| b.mutable);
        env.set_named(
            name,
            Binding {
                value,
                kind,
                mutable,
            },
        );
    }

    /// Rewrites every use of a key of `map` inside `block` (ops, statements, nested blocks
    /// and the extents inside the types of values defined there).
    pub(crate) fn rewrite_uses(&mut self, block: BlockId, map: &Renames) {
        if map.is_empty() {
            return;
        }
        let mut f = |v: ValueId| map.get(v);
        // The arenas are borrowed apart so the walk edits ops, statements and values in
        // place, without copying any statement or op list.
        let m = &mut self.module;
        let (blocks, stmts, ops, values) = (&m.blocks, &mut m.stmts, &mut m.ops, &mut m.values);
        let mut stack = vec![block];
        while let Some(b) = stack.pop() {
            for &s in &blocks[b].stmts {
                let kind = &mut stmts[s].kind;
                kind.map_uses(&mut f);
                kind.for_each_def(|d| map_type_dims(&mut values[d].ty, &mut f));
                if let StmtKind::Op(list) = kind {
                    for &op in list.iter() {
                        ops[op].map_uses(&mut f);
                        for &r in &ops[op].results {
                            map_type_dims(&mut values[r].ty, &mut f);
                        }
                    }
                }
                stack.extend(kind.blocks());
            }
        }
    }

    /// Seed `ExitForStatement` (and the same for `while`): builds iter args, yields,
    /// `break` / `continue` values and results for the variables the loop assigned. The
    /// loop's scopes must already be popped.
    pub(crate) fn close_loop(
        &mut self,
        ctx: &mut IRBuilderContext,
        stmt: StmtId,
    ) -> Result<(), Diag> {
        let (body, cond_block, parent) = match &self.module.stmts.get(stmt).map(|s| &s.kind) {
            Some(StmtKind::For(f)) => (f.body, None, self.module.blocks[f.body].parent),
            Some(StmtKind::While(w)) => (
                w.body,
                Some(w.cond_block),
                self.module.blocks[w.body].parent,
            ),
            _ => {
                return fail(|| Diag::new(ctx.span, format!("{stmt:?} is not a loop statement")));
            }
        };
        let parent = parent.ok_or_else(|| Diag::new(ctx.span, "loop body has no parent scope"))?;
        if ctx.compound != Some(parent) {
            return fail(|| {
                Diag::new(
                    ctx.span,
                    "pop the loop's scopes (ctx.pop_scope()) before closing the loop statement",
                )
            });
        }
        let span = self.module.stmts[stmt].span;
        if let Some(c) = cond_block
            && let Some((name, _)) = self.module.blocks[c].env.updates().next()
        {
            return fail(|| {
                Diag::new(
                    span,
                    format!("a while condition cannot assign variables (`{name}` is assigned)"),
                )
            });
        }
        let state = ctx.loops.remove(stmt).unwrap_or_default();
        let LoopState {
            provisionals,
            exits,
        } = state;
        let carried: Vec<(Name, ValueId)> = self.module.blocks[body]
            .env
            .update_names()
            .map(|(n, v)| (Name::clone(n), v))
            .collect();
        let is_parallel = matches!(&self.module.stmts[stmt].kind, StmtKind::For(f) if f.kind == crate::stmt::ForKind::Parallel);
        if is_parallel && let Some((name, _)) = carried.first() {
            return fail(|| {
                Diag::new(span, format!("`{name}` is assigned in a parallel loop, which would make it loop-carried"))
                .note("iterations of a parallel loop are independent: assign a variable declared inside the loop, or use a sequential `for`")
            });
        }

        let mut iter_args = IterArgs::new();
        let mut yields = Vec::new();
        let mut seed_rewrites = Renames::new(self.module.values.len());
        for (name, end) in &carried {
            // (A variable read as its value has no provisional to carry.)
            let prov = provisionals
                .iter()
                .find(|p| &p.name == name && p.value != p.outer);
            let init = match prov {
                Some(p) => p.outer,
                None => self.resolve(ctx, parent, name).ok_or_else(|| {
                    Diag::new(
                        span,
                        format!("loop assigns `{name}`, which is not declared outside it"),
                    )
                })?,
            };
            let (init_ty, end_ty) = (&self.module.values[init].ty, &self.module.values[*end].ty);
            if !ops::same_up_to_valid(init_ty, end_ty) {
                let at = self.value_span(*end).unwrap_or(span);
                return fail(|| {
                    Diag::new(
                        at,
                        format!(
                            "`{name}` is {} before the loop but is assigned {} inside it",
                            type_msg(&self.module, init_ty),
                            type_msg(&self.module, end_ty)
                        ),
                    )
                    .note("a loop-carried variable keeps one type across iterations")
                });
            }
            let ty = ops::merge_types(init_ty, end_ty);
            let arg = match prov {
                Some(p) => p.value,
                None => {
                    let a = self
                        .module
                        .new_value_named(ty.clone(), Some(Name::clone(name)));
                    seed_rewrites.insert(init, a);
                    a
                }
            };
            self.module.values[arg].ty = ty;
            iter_args.push(IterArg { arg, init });
            yields.push(*end);
        }
        // Seed semantics for values used directly: the initial value inside the body is the
        // iter arg. The macro reads through provisionals, so this finds nothing to do there.
        self.rewrite_uses(body, &seed_rewrites);
        if let Some(c) = cond_block {
            self.rewrite_uses(c, &seed_rewrites);
        }
        // Trivial provisionals (read, never assigned) become the outer value.
        let mut trivial = Renames::new(self.module.values.len());
        for p in &provisionals {
            if p.value != p.outer && !carried.iter().any(|(n, _)| *n == p.name) {
                trivial.insert(p.value, p.outer);
            }
        }
        self.rewrite_uses(body, &trivial);
        if let Some(c) = cond_block {
            self.rewrite_uses(c, &trivial);
        }
        let mut renamed = ValueList::with_capacity(yields.len());
        for v in yields {
            renamed.push(trivial.get(v));
        }
        let yields = renamed;

        // Complete the body's terminator.
        self.complete_yield(body, yields, span)?;
        // Complete break / continue with the values carried variables had where they stood.
        for exit in &exits {
            let mut values = ValueList::new();
            for ((name, _), ia) in carried.iter().zip(&iter_args) {
                let mut v = ia.arg;
                'scopes: for scope in &exit.scopes {
                    for (n, bind, is_local) in scope {
                        if n == name && !is_local {
                            v = bind.value;
                        }
                    }
                    if scope.iter().any(|(n, _, is_local)| n == name && *is_local) {
                        break 'scopes;
                    }
                }
                values.push(trivial.get(v));
            }
            match &mut self.module.stmts[exit.stmt].kind {
                StmtKind::Break(v) | StmtKind::Continue(v) => *v = values,
                _ => {}
            }
        }
        // Results, assigned to the variables in the enclosing scope.
        let mut results = ValueList::new();
        for (i, ((name, _), ia)) in carried.iter().zip(&iter_args).enumerate() {
            let ty = self.module.values[ia.arg].ty.clone();
            let r = self.module.new_value_named(ty, Some(Name::clone(name)));
            self.module.values[r].def = ValueDef::StmtResult(stmt, i as u32);
            self.module.values[ia.arg].def = ValueDef::IterArg(stmt, i as u32);
            results.push(r);
            self.assign_in(parent, Name::clone(name), r);
        }
        match &mut self.module.stmts[stmt].kind {
            StmtKind::For(f) => {
                f.iter_args = iter_args;
                f.results = results;
            }
            StmtKind::While(w) => {
                w.iter_args = iter_args;
                w.results = results;
            }
            _ => {}
        }
        ctx.active_op_stmt = None;
        Ok(())
    }

    /// Adds a `yield` of `values` at the end of `block`, or completes an empty one there;
    /// a block that already ends in `break` / `continue` / `return` gets none.
    fn complete_yield(
        &mut self,
        block: BlockId,
        values: ValueList,
        span: crate::entity::SpanId,
    ) -> Result<(), Diag> {
        let last = self.module.blocks[block].stmts.last().copied();
        match last.map(|s| &mut self.module.stmts[s].kind) {
            Some(StmtKind::Yield(existing)) => {
                if existing.is_empty() || *existing == values {
                    *existing = values;
                    Ok(())
                } else {
                    fail(|| {
                        Diag::new(
                            span,
                            format!(
                                "the explicit yield has {} value(s) but the builder found {} loop-carried or merged variable(s)",
                                existing.len(),
                                values.len()
                            ),
                        )
                    })
                }
            }
            Some(k) if k.is_terminator() => Ok(()),
            _ => {
                self.module.push_stmt(
                    block,
                    Statement {
                        kind: StmtKind::Yield(values),
                        span,
                    },
                );
                Ok(())
            }
        }
    }

    fn ends_in_exit(&self, block: BlockId) -> bool {
        self.module.blocks[block].stmts.last().is_some_and(|&s| {
            matches!(
                self.module.stmts[s].kind,
                StmtKind::Break(_) | StmtKind::Continue(_) | StmtKind::Return(_)
            )
        })
    }

    fn value_span(&self, v: ValueId) -> Option<crate::entity::SpanId> {
        match self.module.values.get(v)?.def {
            ValueDef::OpResult(op, _) => self
                .module
                .ops
                .get(op)
                .map(|o| o.span)
                .filter(|s| s.is_some()),
            _ => None,
        }
    }

    /// Seed `ExitIfStatement`: merges the variables either branch assigned (and the
    /// branches' tail values, when both set one) into the `if`'s results. Returns the merged
    /// tail value of an `if` used as an expression.
    pub(crate) fn close_if(
        &mut self,
        ctx: &mut IRBuilderContext,
        stmt: StmtId,
    ) -> Result<Option<ValueId>, Diag> {
        let (then_b, else_b) = match self.module.stmts.get(stmt).map(|s| &s.kind) {
            Some(StmtKind::If(i)) => (i.then_block, i.else_block),
            _ => {
                return fail(|| Diag::new(ctx.span, format!("{stmt:?} is not an if statement")));
            }
        };
        let parent = self.module.blocks[then_b]
            .parent
            .ok_or_else(|| Diag::new(ctx.span, "if branch has no parent scope"))?;
        if ctx.compound != Some(parent) {
            return fail(|| {
                Diag::new(
                    ctx.span,
                    "pop both branch scopes (ctx.pop_scope()) before exit_if_statement",
                )
            });
        }
        let span = self.module.stmts[stmt].span;
        let then_live = !self.ends_in_exit(then_b);
        let else_live = !self.ends_in_exit(else_b);
        let mut names: InlineVec<Name, 4> = InlineVec::new();
        for b in [then_b, else_b] {
            for (n, _) in self.module.blocks[b].env.update_names() {
                if !names.contains(n) {
                    names.push(Name::clone(n));
                }
            }
        }
        let mut then_vals = ValueList::new();
        let mut else_vals = ValueList::new();
        let mut merged: InlineVec<(Option<Name>, Type), 2> = InlineVec::new();
        let tail = (
            ctx.branch_values.remove(then_b),
            ctx.branch_values.remove(else_b),
        );
        let value_in = |this: &mut Self,
                        ctx: &mut IRBuilderContext,
                        b: BlockId,
                        n: &str|
         -> Result<ValueId, Diag> {
            match this.module.blocks[b].env.update(n) {
                Some(bind) => Ok(bind.value),
                None => this.resolve(ctx, parent, n).ok_or_else(|| {
                    Diag::new(span, format!("`{n}` is not declared before the `if`"))
                }),
            }
        };
        for n in &names {
            let tv = value_in(self, ctx, then_b, n)?;
            let ev = value_in(self, ctx, else_b, n)?;
            // The types are read in place: the merged one is the only copy made.
            let (tt, et) = (&self.module.values[tv].ty, &self.module.values[ev].ty);
            if then_live && else_live && !ops::same_up_to_valid(tt, et) {
                return fail(|| {
                    Diag::new(
                        span,
                        format!(
                            "`if` branches give `{n}` different types: {} and {}",
                            type_msg(&self.module, tt),
                            type_msg(&self.module, et)
                        ),
                    )
                });
            }
            let ty = if then_live {
                ops::merge_types(tt, et)
            } else {
                et.clone()
            };
            then_vals.push(tv);
            else_vals.push(ev);
            merged.push((Some(n.clone()), ty));
        }
        // The branches' tail values (an `if` used as a value). A branch that left the loop
        // (`break` / `continue`) gives none; the live branches' values are merged.
        let tail_result = match tail {
            (None, None) => false,
            (tv, ev) => {
                let live: Vec<ValueId> = [(tv, then_live), (ev, else_live)]
                    .into_iter()
                    .filter_map(|(v, live)| if live { v } else { None })
                    .collect();
                if (then_live && tv.is_none()) || (else_live && ev.is_none()) || live.is_empty() {
                    return fail(|| {
                        Diag::new(
                            span,
                            "`if` used as a value needs a value from both branches",
                        )
                    });
                }
                let types: Vec<Type> = live
                    .iter()
                    .map(|&v| self.module.values[v].ty.clone())
                    .collect();
                if let [tt, et] = types.as_slice()
                    && !ops::same_up_to_valid(tt, et)
                {
                    return fail(|| {
                        Diag::new(
                            span,
                            format!(
                                "`if` and `else` have different types: {} and {}",
                                type_msg(&self.module, tt),
                                type_msg(&self.module, et)
                            ),
                        )
                    });
                }
                if let (true, Some(v)) = (then_live, tv) {
                    then_vals.push(v);
                }
                if let (true, Some(v)) = (else_live, ev) {
                    else_vals.push(v);
                }
                let ty = types
                    .iter()
                    .skip(1)
                    .fold(types[0].clone(), |acc, t| ops::merge_types(&acc, t));
                merged.push((None, ty));
                true
            }
        };
        if !then_live && !else_live {
            ctx.active_op_stmt = None;
            return Ok(None);
        }
        if then_live {
            self.complete_yield(then_b, then_vals, span)?;
        }
        if else_live {
            self.complete_yield(else_b, else_vals, span)?;
        }
        let mut results = ValueList::new();
        let mut tail_value = None;
        for (i, (name, ty)) in merged.into_iter().enumerate() {
            let r = self.module.new_value_named(ty, name.clone());
            self.module.values[r].def = ValueDef::StmtResult(stmt, i as u32);
            results.push(r);
            match name {
                Some(n) => self.assign_in(parent, n, r),
                None => tail_value = Some(r),
            }
        }
        if let StmtKind::If(i) = &mut self.module.stmts[stmt].kind {
            i.results = results;
        }
        ctx.active_op_stmt = None;
        Ok(if tail_result { tail_value } else { None })
    }

    /// Seed-transparent scope exit: assignments and declarations made inside a
    /// `statement.scope` stay visible after it.
    pub(crate) fn close_scope(
        &mut self,
        ctx: &mut IRBuilderContext,
        stmt: StmtId,
    ) -> Result<(), Diag> {
        let body = match self.module.stmts.get(stmt).map(|s| &s.kind) {
            Some(StmtKind::Scope(_, b)) => *b,
            _ => {
                return fail(|| Diag::new(ctx.span, format!("{stmt:?} is not a scope statement")));
            }
        };
        let parent = self.module.blocks[body]
            .parent
            .ok_or_else(|| Diag::new(ctx.span, "scope has no parent"))?;
        if ctx.compound != Some(parent) {
            return fail(|| {
                Diag::new(
                    ctx.span,
                    "pop the scope body (ctx.pop_scope()) before exit_scope_statement",
                )
            });
        }
        let updates: Vec<(Name, ValueId)> = self.module.blocks[body]
            .env
            .update_names()
            .map(|(n, v)| (Name::clone(n), v))
            .collect();
        let locals: Vec<(Name, Binding)> = self.module.blocks[body]
            .env
            .local_names()
            .map(|(n, b)| (Name::clone(n), *b))
            .collect();
        for (n, v) in updates {
            self.assign_in(parent, n, v);
        }
        for (n, b) in locals {
            self.module.blocks[parent].env.set_named(n, b);
        }
        ctx.active_op_stmt = None;
        Ok(())
    }
}

/// Why there is no insertion point: a block of another module, or none at all.
fn no_insertion_point(ctx: &IRBuilderContext, block: Option<BlockId>) -> Diag {
    match block {
        Some(b) => Diag::new(ctx.span, format!("{b:?} is not a block of this module")),
        None => Diag::new(
            ctx.span,
            "no insertion point: call enter_function_body (or enter a statement's scope) first",
        ),
    }
}

/// A renaming of values for [`IRBuilder::rewrite_uses`], dense by value id: the rewrite
/// looks up every use in a body, and a table lookup is cheaper than hashing.
pub(crate) struct Renames {
    map: SecondaryMap<ValueId, Option<ValueId>>,
    len: usize,
    /// The number of values of the module, the table's size once something is renamed.
    values: usize,
}

impl Renames {
    /// No renaming, for a module of `values` values (nothing is allocated until a value
    /// is renamed; then the table is sized once for all of them).
    pub(crate) fn new(values: usize) -> Self {
        Renames {
            map: SecondaryMap::new(),
            len: 0,
            values,
        }
    }

    /// Renames `from` to `to` (replacing an earlier renaming of `from`).
    pub(crate) fn insert(&mut self, from: ValueId, to: ValueId) {
        if self.len == 0 {
            self.map = SecondaryMap::with_len(self.values, None);
        }
        if self.map[from].replace(to).is_none() {
            self.len += 1;
        }
    }

    /// What `v` is renamed to (`v` itself when it is not renamed).
    pub(crate) fn get(&self, v: ValueId) -> ValueId {
        self.map[v].unwrap_or(v)
    }

    /// Whether nothing is renamed.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }
}

fn map_type_dims(t: &mut Type, f: &mut impl FnMut(ValueId) -> ValueId) {
    let map = |d: &mut Dim, f: &mut dyn FnMut(ValueId) -> ValueId| {
        if let Dim::Value(v) = d {
            *v = f(*v);
        }
    };
    match t {
        Type::Tile(tt) => tt.valid.iter_mut().for_each(|d| map(d, f)),
        Type::Tensor(tt) => tt.shape.iter_mut().for_each(|d| map(d, f)),
        Type::Tuple(ts) => ts.iter_mut().for_each(|t| map_type_dims(t, f)),
        _ => {}
    }
}
