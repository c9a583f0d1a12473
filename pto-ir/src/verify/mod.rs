//! The verifier: checks a [`ProgramModule`] and reports every problem as a [`Diag`] anchored
//! at the offending op's or statement's span (function-level problems at the function's span;
//! module-level problems, which have no location, at [`SpanId::NONE`]).
//!
//! It follows cranelift's `verifier/mod.rs` and naga's `valid/`: errors are data, one run
//! reports all of them, and the first pass proves every id in range so later passes can index
//! without fear. The verifier never panics, whatever the module holds.
//!
//! # Checklist
//!
//! 1. **Ids and tree shape** (`ids.rs`, *fatal*: later passes run only when this one is clean)
//!    - the entry and every listed function exist, no function is listed twice;
//!    - every block, statement, op and value a function reaches is in range, including the
//!      values named by symbolic extents (`Dim::Value`) inside types;
//!    - blocks, statements and ops form a tree: each is reached exactly once.
//! 2. **Program** (`program.rs`)
//!    - a unique entry naming one of the functions; unique function names;
//!    - parameters are scalars, tiles or tensors; return types are scalars.
//! 3. **SSA** (`ssa.rs`)
//!    - one definition per value (params, symbolic dims, op results, `for` ivs, iter args,
//!      statement results), reported at the second definition;
//!    - every use (op operands, values in op attributes, statement uses, symbolic extents in
//!      the type of a value being defined) sees a definition earlier on the path from the
//!      function entry, with structured visibility: values defined in a `for` / `if` / `while`
//!      / `scope` body are not visible after it, iter args and ivs only inside their loop
//!      (both regions of a `while`), nothing crosses functions.
//! 4. **Types** (`types.rs`)
//!    - every defined value's type is well formed: tiles of rank 1..4 with positive static
//!      extents, one valid extent per dimension, constant valid extents in `1..=shape[d]`,
//!      symbolic extents integer scalars, concrete dtypes; tensors of rank 1..4; no
//!      `unknown` type; the same for function return types;
//!    - every op except constants is typed by [`crate::ops::infer`] (its error becomes the
//!      diagnostic, with notes), and each declared result type equals the inferred one up to
//!      tile valid regions ([`crate::ops::same_up_to_valid`]);
//!    - constants: no operands, one scalar result with its literal set, and the literal fits
//!      the type (float -> float dtype, integer -> integer or float dtype, bool -> bool).
//! 5. **Statements** (`control.rs`)
//!    - `for`: integer scalar bounds, step and iv; iter args, results and the body's `yield`
//!      agree one to one in type (up to valid regions); init types match; a parallel loop
//!      carries nothing; the body ends in `yield` / `break` / `continue`;
//!    - `if`: a `bool` condition; both branches end in `yield` (or `break` / `continue`
//!      inside a loop) yielding the results' types;
//!    - `while`: the condition region ends in `statement.condition %c` with `%c` a `bool`;
//!      the body ends like a `for` body; iter args / yield / results agree;
//!    - terminators only as the last statement of their block: `yield` of a loop body or an
//!      `if` branch, `condition` of a `while` condition region, `break` / `continue` inside
//!      a loop carrying the innermost loop's iter-arg types, `return` of the function body
//!      carrying scalars of the declared return types; a function with return types ends in
//!      a `return`.
//! 6. **Target legality** (`target.rs`, against attribute `arch`, or the default A2A3
//!    target when the module has none)
//!    - the arch is known ([`target()`]);
//!    - each tile fits the buffer it lives in: matmul left / right operands in L0A / L0B,
//!      bias operands in the bias table, matmul results and accumulators in L0C, `tile.move`
//!      results in their `loc`, a placed tile in its memory, everything else in UB;
//!    - a row-major (UB or bias) tile's row is a multiple of 32 bytes unless it has one
//!      column;
//!    - a tile of a cube buffer (Mat, Left, Right, Acc) is whole fractal boxes
//!      (`fractal.rs`, the table in `target.rs`): a matmul's M is 1 or a multiple of 16, K
//!      and N multiples of 16 (32 for int8), reported at the matmul;
//!    - an `extract` used as a matmul operand (`TEXTRACT` Mat -> Left / Right) has offsets,
//!      a window and a source in whole fractal blocks, per target, location and dtype
//!      (`extract.rs`, its table); a run-time offset must be provably aligned;
//!    - matmul M, K and N are each at most 4095;
//!    - every instruction an op becomes takes the op's element type on the target
//!      (`dtypes.rs`, against the table of `ops/dtypes.rs` read from pto-isa's headers;
//!      which instructions, from the op table's ISA column and, for binary ops, the
//!      operand form the lowering also reads, [`crate::ops::BinaryForm`]): A2A3's
//!      arithmetic takes int16 / int32 / fp16 / fp32 only, its `TDIV` fp16 / fp32, its
//!      `TFMOD` fp32, A5 more; a cast is one of the target's `TCVT` pairs, a matmul one of
//!      `TMATMUL`'s (input, accumulator) pairs; no instruction computes on fp64;
//!    - `floor_mod` (`TREM` / `TREMS`) takes fp32 tiles on A2A3 and fp16 / fp32 on A5:
//!      A2A3's int32 path goes through fp32 and overwrites its divisor, A5's integer
//!      remainder truncates.
//!
//! Identical diagnostics (same anchor, same message) are reported once.

mod control;
mod dtypes;
mod extract;
mod fractal;
mod ids;
mod program;
mod ssa;
pub mod target;
mod types;

use std::collections::HashSet;

use crate::diag::{Diag, Diagnostics};
use crate::entity::{FuncId, OpId, SecondaryMap, SpanId, StmtId, ValueId};
use crate::module::ProgramModule;
use crate::stmt::StmtKind;
use crate::typefmt::type_msg;
use crate::types::Type;

pub use target::{Target, target};

/// Checks a module, collecting every error.
pub fn verify(m: &ProgramModule) -> Result<(), Diagnostics> {
    verify_all(m).into_result()
}

/// Checks a module and returns every error found (empty when the module is valid).
pub fn verify_all(m: &ProgramModule) -> Diagnostics {
    let mut v = Verifier::new(m);
    if let Some(ids::Walk {
        bodies,
        defs,
        redefined,
        misses,
    }) = ids::check(&mut v)
    {
        program::check(&mut v, &bodies);
        ssa::check(&mut v, &defs, &redefined, &misses);
        let (well_typed, typed_ops) = types::check(&mut v, &bodies, &defs);
        control::check(&mut v, &bodies);
        target::check(&mut v, &bodies, &defs, &well_typed, &typed_ops);
    }
    v.finish()
}

/// Where a value is defined, as the verifier found it. Its span is looked up from what
/// defines it rather than stored: the table holds one entry per value, and at 12 bytes a
/// typical kernel's stays under the 1 KB at which glibc takes its slower large-request path.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DefSite {
    /// The function whose body defines it.
    pub func: FuncId,
    /// What defines it.
    pub by: DefBy,
}

impl DefSite {
    /// The span of the defining op, statement or function.
    pub fn span(&self, m: &ProgramModule) -> SpanId {
        let span = match self.by {
            DefBy::Param | DefBy::Dim => m.funcs.get(self.func).map(|f| f.span),
            DefBy::Op(o) => m.ops.get(o).map(|op| op.span),
            DefBy::Stmt(s) => m.stmts.get(s).map(|st| st.span),
        };
        span.unwrap_or(SpanId::NONE)
    }
}

/// What defines a value.
#[derive(Clone, Copy, Debug)]
pub(crate) enum DefBy {
    /// A function parameter.
    Param,
    /// A symbolic dimension of a function signature.
    Dim,
    /// An operation result.
    Op(OpId),
    /// A statement's iv, iter arg or result.
    Stmt(StmtId),
}

/// Definition sites of every value defined in the module's functions (`None`: not defined).
pub(crate) type Defs = SecondaryMap<ValueId, Option<DefSite>>;

/// The verifier's state: the module and the errors found so far.
pub(crate) struct Verifier<'a> {
    m: &'a ProgramModule,
    diags: Vec<Diag>,
}

impl<'a> Verifier<'a> {
    fn new(m: &'a ProgramModule) -> Self {
        Verifier {
            m,
            diags: Vec::new(),
        }
    }

    /// Records an error.
    fn push(&mut self, d: Diag) {
        self.diags.push(d);
    }

    /// Records an error without notes.
    fn error(&mut self, at: SpanId, message: impl Into<String>) {
        self.diags.push(Diag::new(at, message));
    }

    /// A value's printed name (safe for any id).
    fn name(&self, v: ValueId) -> String {
        self.m.ssa_name(v)
    }

    /// A value's type (the value must be in range).
    fn ty(&self, v: ValueId) -> &'a Type {
        &self.m.values[v].ty
    }

    /// A type spelled for a message.
    fn show(&self, t: &Type) -> String {
        type_msg(self.m, t)
    }

    fn finish(self) -> Diagnostics {
        if self.diags.is_empty() {
            return Diagnostics::new();
        }
        let mut seen: HashSet<(SpanId, String)> = HashSet::new();
        let mut out = Diagnostics::new();
        for d in self.diags {
            if seen.insert((d.at, d.message.clone())) {
                out.push(d);
            }
        }
        out
    }
}

/// The functions to check and the ops of their bodies, gathered by the id walk (which
/// proves the blocks form a tree of in-range ids) for all the checks after it.
pub(crate) struct Bodies {
    bodies: Vec<Body>,
    /// The ops of every body in text order, body after body.
    ops: Vec<OpId>,
}

/// One function to check.
pub(crate) struct Body {
    /// The function.
    pub func: FuncId,
    /// Where its ops are in [`Bodies::ops`].
    ops: std::ops::Range<usize>,
}

impl Bodies {
    /// The functions to check, in module order.
    fn iter(&self) -> std::slice::Iter<'_, Body> {
        self.bodies.iter()
    }

    /// Whether `f` is one of the functions to check.
    fn contains(&self, f: FuncId) -> bool {
        self.bodies.iter().any(|b| b.func == f)
    }

    /// Every op of a function body, in text order.
    fn ops(&self, body: &Body) -> &[OpId] {
        self.ops.get(body.ops.clone()).unwrap_or_default()
    }

    /// Every op of the functions to check, in text order.
    fn all_ops(&self) -> &[OpId] {
        &self.ops
    }
}

/// `1 value` / `2 values`.
fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("{n} {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// A statement described for messages: its keyword, and its results when it has any
/// (`statement.for` producing `%r_10`).
fn describe_stmt(m: &ProgramModule, s: StmtId) -> String {
    let Some(st) = m.stmts.get(s) else {
        return format!("{s:?}");
    };
    let results: &[ValueId] = match &st.kind {
        StmtKind::For(f) => &f.results,
        StmtKind::If(i) => &i.results,
        StmtKind::While(w) => &w.results,
        _ => &[],
    };
    if results.is_empty() {
        format!("the `{}`", st.kind.keyword())
    } else {
        let names: Vec<String> = results
            .iter()
            .map(|&r| format!("`{}`", m.ssa_name(r)))
            .collect();
        format!("the `{}` producing {}", st.kind.keyword(), names.join(", "))
    }
}
