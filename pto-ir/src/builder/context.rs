//! `IRBuilderContext` (seed 001): the insertion point and the scope stack.
//!
//! All building state lives here, not in the builder: the current function, the current
//! compound statement (block), the active `statement.op` that `emit` appends to, and a stack
//! of saved frames. `push_scope` / `pop_scope` must balance; the builder reports an
//! unbalanced stack as an error instead of panicking. Per-loop SSA state (provisional loop
//! arguments, pending `break` / `continue`) lives here too, keyed by the loop statement.

use crate::diag::Diag;
use crate::entity::{BlockId, FuncId, SpanId, StmtId, ValueId};
use crate::env::{Binding, Name};
use crate::inline::InlineVec;

/// A saved insertion point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScopeFrame {
    /// The block that was current.
    pub compound: Option<BlockId>,
    /// The function that was current.
    pub func: Option<FuncId>,
    /// The `statement.op` that was active.
    pub active_op_stmt: Option<StmtId>,
}

/// A read, inside a loop, of a variable declared outside it: the loop-level value standing
/// for the variable until the loop is closed (Braun et al.'s provisional phi). If the loop
/// assigns the variable it becomes an iter arg; otherwise it is replaced by `outer`. A
/// variable that cannot be assigned (see [`IRBuilderContext::strict_mutability`]) has
/// `value == outer`: it is read as its value, and there is nothing to replace.
#[derive(Clone, Debug)]
pub(crate) struct Provisional {
    pub name: Name,
    pub value: ValueId,
    pub outer: ValueId,
}

/// A `break` / `continue` waiting for the loop's carried values: the environments of the
/// scopes between it and the loop body (outermost first), as they were when it was created.
#[derive(Clone, Debug)]
pub(crate) struct PendingExit {
    pub stmt: StmtId,
    pub scopes: Vec<Vec<(Name, Binding, bool)>>,
}

/// SSA state of an open loop.
#[derive(Clone, Debug, Default)]
pub(crate) struct LoopState {
    /// Kept inline while few: a loop reads a handful of outer variables (the typical
    /// kernel's loops, up to seven).
    pub provisionals: InlineVec<Provisional, 8>,
    pub exits: Vec<PendingExit>,
}

/// Small maps keyed by the open loops and `if` branches. Few are open at a time (as many as
/// are nested), so a list searched from its newest entry is cheaper than hashing, and its
/// code is much smaller on the builder's path.
#[derive(Clone, Debug)]
pub(crate) struct OpenMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for OpenMap<K, V> {
    fn default() -> Self {
        OpenMap(Vec::new())
    }
}

impl<K: Copy + PartialEq, V> OpenMap<K, V> {
    fn index(&self, k: K) -> Option<usize> {
        self.0.iter().rposition(|(key, _)| *key == k)
    }

    pub(crate) fn get(&self, k: K) -> Option<&V> {
        self.index(k).and_then(|i| self.0.get(i)).map(|(_, v)| v)
    }

    /// The entry of `k`, made with `V::default()` when absent.
    pub(crate) fn entry_or_default(&mut self, k: K) -> &mut V
    where
        V: Default,
    {
        let i = match self.index(k) {
            Some(i) => i,
            None => {
                self.0.push((k, V::default()));
                self.0.len() - 1
            }
        };
        &mut self.0[i].1
    }

    /// Sets the value of `k`, replacing any.
    pub(crate) fn insert(&mut self, k: K, v: V) {
        match self.index(k) {
            Some(i) => self.0[i].1 = v,
            None => self.0.push((k, v)),
        }
    }

    pub(crate) fn remove(&mut self, k: K) -> Option<V> {
        self.index(k).map(|i| self.0.remove(i).1)
    }
}

/// Building state: insertion point, scope stack, and loop SSA state.
#[derive(Clone, Debug, Default)]
pub struct IRBuilderContext {
    /// The current function.
    pub func: Option<FuncId>,
    /// The current block (the seed's `compound`).
    pub compound: Option<BlockId>,
    /// The `statement.op` that `emit` appends to, if one is open.
    pub active_op_stmt: Option<StmtId>,
    /// Saved frames.
    pub scope_stack: Vec<ScopeFrame>,
    /// The source location given to ops and statements created from now on.
    pub span: SpanId,
    /// Whether an immutable variable (a parameter, a symbolic dimension, an induction
    /// variable, a `let` without `mut`) stays bound to its value: [`IRBuilder::set_env_var`]
    /// (and the `create_*` methods that bind their result by name) then refuse to assign
    /// one declared in an enclosing scope, as [`IRBuilder::assign_var`] always does. Such a
    /// variable can never be loop-carried, so a read of it inside a loop is its value, and
    /// no provisional loop argument is made for it (the SSA number the provisional would
    /// have taken is still taken, so the IR is the same either way). Off by default, for
    /// the seed's API, where `set_env_var` rebinds any visible name.
    ///
    /// [`IRBuilder::set_env_var`]: crate::IRBuilder::set_env_var
    /// [`IRBuilder::assign_var`]: crate::IRBuilder::assign_var
    pub strict_mutability: bool,
    pub(crate) loops: OpenMap<StmtId, LoopState>,
    pub(crate) branch_values: OpenMap<BlockId, ValueId>,
}

impl IRBuilderContext {
    /// A context with no insertion point.
    pub fn new() -> Self {
        IRBuilderContext {
            span: SpanId::NONE,
            ..Default::default()
        }
    }

    /// Saves the current insertion point and makes `compound` current (in `func`, or the
    /// current function when `None`). A new scope starts without an active `statement.op`.
    pub fn push_scope(&mut self, compound: BlockId, func: Option<FuncId>) {
        self.scope_stack.push(ScopeFrame {
            compound: self.compound,
            func: self.func,
            active_op_stmt: self.active_op_stmt,
        });
        self.compound = Some(compound);
        if func.is_some() {
            self.func = func;
        }
        self.active_op_stmt = None;
    }

    /// Restores the insertion point saved by the matching `push_scope`.
    pub fn pop_scope(&mut self) -> Result<(), Diag> {
        let frame = self.scope_stack.pop().ok_or_else(|| {
            Diag::new(
                self.span,
                "pop_scope without a matching push_scope: the scope stack is empty",
            )
        })?;
        self.compound = frame.compound;
        self.func = frame.func;
        self.active_op_stmt = frame.active_op_stmt;
        Ok(())
    }

    /// Ends the active `statement.op`, so the next `emit` opens a new one.
    pub fn reset_insertion_point(&mut self) {
        self.active_op_stmt = None;
    }

    /// Sets the location given to ops and statements created from now on.
    pub fn set_span(&mut self, span: SpanId) {
        self.span = span;
    }

    /// Whether every pushed scope has been popped.
    pub fn is_balanced(&self) -> bool {
        self.scope_stack.is_empty()
    }
}
