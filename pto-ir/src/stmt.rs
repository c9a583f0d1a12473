//! Operations and statements (seeds 003 and 004).
//!
//! Statements form a tree of [`Block`]s (the seed's `CompoundStatement`: a scope with a parent
//! and an environment table); values are flat in the module's value arena. Invariants a
//! verified module keeps:
//! - every op sits in exactly one `statement.op`;
//! - a `for` / `while` body and both `if` branches end in a terminator (`yield`, or `break` /
//!   `continue` inside a loop), and `yield`, `iter_args` and `results` agree in count and type;
//! - an `if` always has both branches, even when the source had no `else`;
//! - `return` appears only as the last statement of a function body.

use crate::attr::Attrs;
use crate::entity::{BlockId, OpId, SpanId, StmtId, ValueId};
use crate::env::EnvTable;
use crate::inline::InlineVec;
use crate::ops::Opcode;

/// Operands, results, yielded values: one to a few values, kept inline.
pub type ValueList = InlineVec<ValueId, 4>;

/// The ops of a `statement.op`, kept inline while there are few.
pub type OpList = InlineVec<OpId, 4>;

/// The statements of a block, kept inline while there are few.
pub type StmtList = InlineVec<StmtId, 4>;

/// Loop-carried values; most loops carry none, one or two.
pub type IterArgs = InlineVec<IterArg, 2>;

/// One operation: `%r = dialect.mnemonic %a, %b : (Ta, Tb) -> Tr {attrs}`.
#[derive(Clone, Debug)]
pub struct Operation {
    /// What it computes.
    pub opcode: Opcode,
    /// Value operands, in order.
    pub operands: ValueList,
    /// Results (empty for `tile.store`).
    pub results: ValueList,
    /// Attributes (shape, offset, dtype, callee, constant value ...); may use values.
    pub attrs: Attrs,
    /// Source location.
    pub span: SpanId,
}

impl Operation {
    /// Calls `f` on every value the op uses: operands, then values inside attributes.
    pub fn for_each_use(&self, mut f: impl FnMut(ValueId)) {
        self.operands.iter().for_each(|&v| f(v));
        self.attrs.for_each_value(&mut f);
    }

    /// Rewrites every use (operands and attributes).
    pub fn map_uses(&mut self, f: &mut impl FnMut(ValueId) -> ValueId) {
        for v in &mut self.operands {
            *v = f(*v);
        }
        self.attrs.map_values(f);
    }
}

/// Sequential or parallel `for` (seed 004 `ForKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ForKind {
    /// Iterations run in order.
    #[default]
    Sequential,
    /// Iterations are independent; no loop-carried values.
    Parallel,
}

/// The execution context of a `statement.scope` (seed 004 `ScopeKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScopeKind {
    /// A region the lowering outlines into its own kernel function.
    InCore,
}

impl ScopeKind {
    /// The printed keyword.
    pub fn name(self) -> &'static str {
        match self {
            ScopeKind::InCore => "incore",
        }
    }
}

/// A loop-carried value: the body's view `arg`, initialised from `init`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IterArg {
    /// The value inside the loop (`%acc` in `iter_args(%acc = %init : T)`).
    pub arg: ValueId,
    /// The value before the loop.
    pub init: ValueId,
}

/// `statement.for`.
#[derive(Clone, Debug)]
pub struct ForStmt {
    /// Induction variable.
    pub iv: ValueId,
    /// Lower bound (inclusive).
    pub lb: ValueId,
    /// Upper bound (exclusive).
    pub ub: ValueId,
    /// Step (positive).
    pub step: ValueId,
    /// Loop-carried values.
    pub iter_args: IterArgs,
    /// The body; ends in `yield`.
    pub body: BlockId,
    /// Values after the loop, one per iter arg.
    pub results: ValueList,
    /// Sequential or parallel.
    pub kind: ForKind,
    /// Extra attributes.
    pub attrs: Attrs,
}

/// `statement.if`.
#[derive(Clone, Debug)]
pub struct IfStmt {
    /// The `bool` condition.
    pub cond: ValueId,
    /// The then branch; ends in `yield`.
    pub then_block: BlockId,
    /// The else branch (always present); ends in `yield`.
    pub else_block: BlockId,
    /// Merged values.
    pub results: ValueList,
}

/// `statement.while`: `cond` region evaluated before each iteration, then `body`.
#[derive(Clone, Debug)]
pub struct WhileStmt {
    /// Loop-carried values, visible in both regions.
    pub iter_args: IterArgs,
    /// The condition region; ends in `statement.condition %c`.
    pub cond_block: BlockId,
    /// The body; ends in `yield`.
    pub body: BlockId,
    /// Values after the loop.
    pub results: ValueList,
}

/// A statement.
#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `statement.op { .. }`: a straight-line op sequence.
    Op(OpList),
    /// `statement.for`.
    For(ForStmt),
    /// `statement.if`.
    If(IfStmt),
    /// `statement.while`.
    While(WhileStmt),
    /// `statement.condition %c`: ends a `while` condition region.
    Condition(ValueId),
    /// `statement.yield %a, ..`: ends a loop body or `if` branch.
    Yield(ValueList),
    /// `statement.return %a, ..`: ends a function; scalars only.
    Return(ValueList),
    /// `statement.break %a, ..`: leaves the innermost loop with the loop-carried values.
    Break(ValueList),
    /// `statement.continue %a, ..`: next iteration with the loop-carried values.
    Continue(ValueList),
    /// `statement.scope incore { .. }`.
    Scope(ScopeKind, BlockId),
}

impl StmtKind {
    /// Whether this ends a region (`yield`, `break`, `continue`, `condition`, `return`).
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            StmtKind::Yield(_)
                | StmtKind::Break(_)
                | StmtKind::Continue(_)
                | StmtKind::Condition(_)
                | StmtKind::Return(_)
        )
    }

    /// Child blocks, in print order (at most two; the iterator does not borrow the statement, so the caller may edit the module while walking).
    pub fn blocks(&self) -> impl Iterator<Item = BlockId> + use<> {
        let (first, second) = match self {
            StmtKind::For(f) => (Some(f.body), None),
            StmtKind::If(i) => (Some(i.then_block), Some(i.else_block)),
            StmtKind::While(w) => (Some(w.cond_block), Some(w.body)),
            StmtKind::Scope(_, b) => (Some(*b), None),
            _ => (None, None),
        };
        first.into_iter().chain(second)
    }

    /// Calls `f` on every value the statement itself uses (not those of nested blocks or
    /// ops), in print order.
    pub fn for_each_use(&self, mut f: impl FnMut(ValueId)) {
        match self {
            StmtKind::For(s) => {
                [s.lb, s.ub, s.step].into_iter().for_each(&mut f);
                s.iter_args.iter().for_each(|a| f(a.init));
                s.attrs.for_each_value(&mut f);
            }
            StmtKind::If(i) => f(i.cond),
            StmtKind::While(w) => w.iter_args.iter().for_each(|a| f(a.init)),
            StmtKind::Condition(c) => f(*c),
            StmtKind::Yield(v)
            | StmtKind::Return(v)
            | StmtKind::Break(v)
            | StmtKind::Continue(v) => v.iter().copied().for_each(f),
            StmtKind::Op(_) | StmtKind::Scope(..) => {}
        }
    }

    /// Rewrites the values the statement itself uses.
    pub fn map_uses(&mut self, f: &mut impl FnMut(ValueId) -> ValueId) {
        match self {
            StmtKind::For(s) => {
                s.lb = f(s.lb);
                s.ub = f(s.ub);
                s.step = f(s.step);
                for a in &mut s.iter_args {
                    a.init = f(a.init);
                }
                s.attrs.map_values(f);
            }
            StmtKind::If(i) => i.cond = f(i.cond),
            StmtKind::While(w) => {
                for a in &mut w.iter_args {
                    a.init = f(a.init);
                }
            }
            StmtKind::Condition(c) => *c = f(*c),
            StmtKind::Yield(v)
            | StmtKind::Return(v)
            | StmtKind::Break(v)
            | StmtKind::Continue(v) => {
                for x in v {
                    *x = f(*x);
                }
            }
            StmtKind::Op(_) | StmtKind::Scope(..) => {}
        }
    }

    /// Calls `f` on every value the statement defines (iv, iter args, results), excluding
    /// nested ops.
    pub fn for_each_def(&self, mut f: impl FnMut(ValueId)) {
        match self {
            StmtKind::For(s) => {
                f(s.iv);
                s.iter_args.iter().for_each(|a| f(a.arg));
                s.results.iter().copied().for_each(f);
            }
            StmtKind::If(i) => i.results.iter().copied().for_each(f),
            StmtKind::While(w) => {
                w.iter_args.iter().for_each(|a| f(a.arg));
                w.results.iter().copied().for_each(f);
            }
            _ => {}
        }
    }

    /// The keyword for messages (`statement.for`).
    pub fn keyword(&self) -> &'static str {
        match self {
            StmtKind::Op(_) => "statement.op",
            StmtKind::For(_) => "statement.for",
            StmtKind::If(_) => "statement.if",
            StmtKind::While(_) => "statement.while",
            StmtKind::Condition(_) => "statement.condition",
            StmtKind::Yield(_) => "statement.yield",
            StmtKind::Return(_) => "statement.return",
            StmtKind::Break(_) => "statement.break",
            StmtKind::Continue(_) => "statement.continue",
            StmtKind::Scope(..) => "statement.scope",
        }
    }
}

/// A statement with its location.
#[derive(Clone, Debug)]
pub struct Statement {
    /// What it is.
    pub kind: StmtKind,
    /// Source location.
    pub span: SpanId,
}

/// What a block is the body of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockRole {
    /// A function's input scope (holds parameters in its environment).
    FuncInputs,
    /// A function body.
    FuncBody,
    /// A `for` body.
    ForBody,
    /// An `if` then branch.
    Then,
    /// An `if` else branch.
    Else,
    /// A `while` condition region.
    WhileCond,
    /// A `while` body.
    WhileBody,
    /// A `statement.scope` body.
    Scope,
}

/// A compound statement: a scope with its statements, parent scope and environment table.
#[derive(Clone, Debug)]
pub struct Block {
    /// Statements in order.
    pub stmts: StmtList,
    /// The enclosing scope (`None` for a function's input scope).
    pub parent: Option<BlockId>,
    /// The statement that owns this block (`None` for function scopes).
    pub owner: Option<StmtId>,
    /// What the block is.
    pub role: BlockRole,
    /// Variable name -> latest value, maintained by the builder (not printed or compared).
    pub env: EnvTable,
}
