//! Checklist item 3: single definitions and structured visibility of every use.
//!
//! The id walk has recorded where each value is defined and which values are defined again;
//! those second definitions are reported first. Then a walk replays each function in text
//! order with a stack of scopes (one per block): entering a block pushes a scope (holding a loop's iv and iter args),
//! leaving it hides everything defined there, remembering which statement's body hid it, so a
//! bad use can say whether the value is hidden, defined later, in another function, or nowhere.

use crate::diag::Diag;
use crate::entity::{BlockId, FuncId, SecondaryMap, SpanId, StmtId, ValueId};
use crate::stmt::StmtKind;
use crate::types::Type;

use super::{Bodies, DefBy, DefSite, Defs, Verifier, describe_stmt};

/// Reports second definitions (found by the id walk), then replays each function.
pub(super) fn check(
    v: &mut Verifier<'_>,
    bodies: &Bodies,
    defs: &Defs,
    redefined: &[(ValueId, DefSite)],
) {
    for (val, site) in redefined {
        if let Some(first) = &defs[*val] {
            let first = describe_def(v, first);
            v.push(
                Diag::new(
                    site.span(v.m),
                    format!("`{}` is defined twice", v.name(*val)),
                )
                .note(format!("first defined by {first}")),
            );
        }
    }
    let values = v.m.values.len();
    // Sized up front (no value is in more than one open scope), and reused from body to body.
    let mut in_scope = Vec::with_capacity(values);
    let mut scope_starts = Vec::with_capacity(8);
    for body in bodies.iter() {
        let mut w = Vis {
            defs,
            func: body.func,
            seen: SecondaryMap::with_len(values, Seen::Not),
            in_scope,
            scope_starts,
            v: &mut *v,
        };
        w.function();
        (in_scope, scope_starts) = (w.in_scope, w.scope_starts);
    }
}

/// What the replay knows about a value at the current point.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// Not defined yet on this path (or in another function).
    Not,
    /// Defined and visible.
    Live,
    /// Defined in a scope that has closed: the statement whose body held it.
    Hidden(StmtId),
}

fn describe_def(v: &Verifier<'_>, site: &DefSite) -> String {
    let m = v.m;
    let fname = m.funcs.get(site.func).map_or("?", |f| f.name.as_str());
    match site.by {
        DefBy::Param => format!("a parameter of `@{fname}`"),
        DefBy::Dim => format!("a symbolic dimension of `@{fname}`"),
        DefBy::Op(o) => m.ops.get(o).map_or_else(
            || "an op".to_string(),
            |op| format!("`{}`", op.opcode.full_name()),
        ),
        DefBy::Stmt(s) => describe_stmt(m, s),
    }
}

struct Vis<'a, 'b> {
    v: &'b mut Verifier<'a>,
    defs: &'b Defs,
    func: FuncId,
    /// Visibility of each value in this function.
    seen: SecondaryMap<ValueId, Seen>,
    /// The values defined in the open block scopes, outermost scope first (the function's
    /// own scope, which never closes, is not recorded).
    in_scope: Vec<ValueId>,
    /// Where each open block scope starts in `in_scope`, innermost last.
    scope_starts: Vec<usize>,
}

impl Vis<'_, '_> {
    fn function(&mut self) {
        let m = self.v.m;
        let func = &m.funcs[self.func];
        let entry = || {
            func.sig
                .params
                .iter()
                .map(|p| p.value)
                .chain(func.dims.iter().copied())
        };
        // Parameters and symbolic dimensions are all defined at entry, so their types may
        // name each other.
        for val in entry() {
            self.introduce(val);
        }
        for val in entry() {
            self.check_type(val, func.span);
        }
        self.stmts(func.body);
    }

    fn introduce(&mut self, val: ValueId) {
        self.seen[val] = Seen::Live;
        if !self.scope_starts.is_empty() {
            self.in_scope.push(val);
        }
    }

    /// Defines `val` at `at`: the extents its type names must be visible first.
    fn define(&mut self, val: ValueId, at: SpanId) {
        self.check_type(val, at);
        self.introduce(val);
    }

    fn check_type(&mut self, val: ValueId, at: SpanId) {
        let ty = self.v.ty(val);
        // Most values are scalars, whose types name no value.
        if matches!(ty, Type::Scalar(_)) {
            return;
        }
        crate::module::for_each_dim(ty, &mut |d| self.use_value(d, at, Some(val)));
    }

    fn use_value(&mut self, val: ValueId, at: SpanId, in_type_of: Option<ValueId>) {
        let hidden = match self.seen[val] {
            Seen::Live => return,
            Seen::Hidden(s) => Some(s),
            Seen::Not => None,
        };
        self.report_use(val, at, in_type_of, hidden);
    }

    /// Reports a use of `val` where it is not visible (`hidden`: the statement whose body
    /// held it).
    #[cold]
    #[inline(never)]
    fn report_use(
        &mut self,
        val: ValueId,
        at: SpanId,
        in_type_of: Option<ValueId>,
        hidden: Option<StmtId>,
    ) {
        let name = self.v.name(val);
        let mut msg = if let Some(s) = hidden {
            format!(
                "`{name}` is defined inside {} and is not visible here",
                describe_stmt(self.v.m, s)
            )
        } else {
            match self.defs[val] {
                Some(site) if site.func != self.func => {
                    let fname = self
                        .v
                        .m
                        .funcs
                        .get(site.func)
                        .map_or("?", |f| f.name.as_str());
                    format!("use of `{name}`, which is defined in another function (`@{fname}`)")
                }
                Some(_) => format!("use of `{name}` before its definition"),
                None => format!("use of `{name}`, which is never defined"),
            }
        };
        if let Some(owner) = in_type_of {
            msg.push_str(&format!(" (in the type of `{}`)", self.v.name(owner)));
        }
        let mut d = Diag::new(at, msg);
        if hidden.is_some() {
            d = d.note("values defined in a body are visible only inside it; pass the value out with `statement.yield` and use the statement's result");
        }
        self.v.push(d);
    }

    /// Walks a block in a new scope opened with `pre` (ivs, iter args) defined at `at`;
    /// on exit everything defined in the scope is hidden behind `owner`.
    fn scoped(
        &mut self,
        b: BlockId,
        owner: StmtId,
        pre: impl IntoIterator<Item = ValueId>,
        at: SpanId,
    ) {
        self.open();
        for val in pre {
            self.define(val, at);
        }
        self.stmts(b);
        self.close(owner);
    }

    fn open(&mut self) {
        self.scope_starts.push(self.in_scope.len());
    }

    fn close(&mut self, owner: StmtId) {
        if let Some(start) = self.scope_starts.pop() {
            for &val in &self.in_scope[start..] {
                self.seen[val] = Seen::Hidden(owner);
            }
            self.in_scope.truncate(start);
        }
    }

    fn stmts(&mut self, b: BlockId) {
        let m = self.v.m;
        for &s in &m.blocks[b].stmts {
            let st = &m.stmts[s];
            st.kind.for_each_use(|u| self.use_value(u, st.span, None));
            match &st.kind {
                StmtKind::Op(ops) => {
                    for &o in ops {
                        let op = &m.ops[o];
                        op.for_each_use(|u| self.use_value(u, op.span, None));
                        for &r in &op.results {
                            self.define(r, op.span);
                        }
                    }
                }
                StmtKind::For(f) => {
                    let pre = std::iter::once(f.iv).chain(f.iter_args.iter().map(|a| a.arg));
                    self.scoped(f.body, s, pre, st.span);
                    for &r in &f.results {
                        self.define(r, st.span);
                    }
                }
                StmtKind::If(i) => {
                    self.scoped(i.then_block, s, [], st.span);
                    self.scoped(i.else_block, s, [], st.span);
                    for &r in &i.results {
                        self.define(r, st.span);
                    }
                }
                StmtKind::While(w) => {
                    // The iter args live in a scope around both regions.
                    self.open();
                    for a in &w.iter_args {
                        self.define(a.arg, st.span);
                    }
                    self.scoped(w.cond_block, s, [], st.span);
                    self.scoped(w.body, s, [], st.span);
                    self.close(s);
                    for &r in &w.results {
                        self.define(r, st.span);
                    }
                }
                // A scope is transparent to SSA (seed 004): what it defines stays visible after it.
                StmtKind::Scope(_, body) => self.stmts(*body),
                StmtKind::Condition(_)
                | StmtKind::Yield(_)
                | StmtKind::Return(_)
                | StmtKind::Break(_)
                | StmtKind::Continue(_) => {}
            }
        }
    }
}
