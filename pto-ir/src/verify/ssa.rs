//! Checklist item 3: single definitions and structured visibility of every use.
//!
//! Two walks over each function. The first records where each value is defined and reports
//! second definitions. The second replays the function in text order with a stack of scopes
//! (one per block): entering a block pushes a scope (holding a loop's iv and iter args),
//! leaving it hides everything defined there, remembering which statement's body hid it, so a
//! bad use can say whether the value is hidden, defined later, in another function, or nowhere.

use crate::diag::Diag;
use crate::entity::{BlockId, EntitySet, FuncId, SecondaryMap, SpanId, StmtId, ValueId};
use crate::stmt::StmtKind;

use super::{Bodies, DefBy, DefSite, Defs, Verifier, describe_stmt};

/// Runs both walks and returns the definition sites.
pub(super) fn check(v: &mut Verifier<'_>, bodies: &Bodies<'_>) -> Defs {
    let defs = collect_defs(v, bodies);
    let values = v.m.values.len();
    for body in bodies.iter() {
        let mut w = Vis {
            defs: &defs,
            func: body.func,
            live: EntitySet::with_len(values),
            hidden: SecondaryMap::with_len(values, None),
            in_scope: Vec::new(),
            scope_starts: Vec::new(),
            v: &mut *v,
        };
        w.function();
    }
    defs
}

fn collect_defs(v: &mut Verifier<'_>, bodies: &Bodies<'_>) -> Defs {
    let m = v.m;
    let mut defs = Defs::with_len(m.values.len(), None);
    let mut define = |v: &mut Verifier<'_>, val: ValueId, site: DefSite| {
        if let Some(first) = &defs[val] {
            let first = describe_def(v, first);
            v.push(
                Diag::new(site.span, format!("`{}` is defined twice", v.name(val)))
                    .note(format!("first defined by {first}")),
            );
        } else {
            defs[val] = Some(site);
        }
    };
    for body in bodies.iter() {
        let f = body.func;
        let func = &m.funcs[f];
        for p in &func.sig.params {
            define(
                v,
                p.value,
                DefSite {
                    func: f,
                    span: func.span,
                    by: DefBy::Param,
                },
            );
        }
        for &d in &func.dims {
            define(
                v,
                d,
                DefSite {
                    func: f,
                    span: func.span,
                    by: DefBy::Dim,
                },
            );
        }
        for &s in bodies.stmts(body) {
            let st = &m.stmts[s];
            if let StmtKind::Op(ops) = &st.kind {
                for &o in ops {
                    let op = &m.ops[o];
                    for &r in &op.results {
                        define(
                            v,
                            r,
                            DefSite {
                                func: f,
                                span: op.span,
                                by: DefBy::Op(o),
                            },
                        );
                    }
                }
            }
            st.kind.for_each_def(|d| {
                define(
                    v,
                    d,
                    DefSite {
                        func: f,
                        span: st.span,
                        by: DefBy::Stmt(s),
                    },
                );
            });
        }
    }
    defs
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
    live: EntitySet<ValueId>,
    /// Values whose scope has closed, with the statement whose body held them.
    hidden: SecondaryMap<ValueId, Option<StmtId>>,
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
        let entry: Vec<ValueId> = func
            .sig
            .params
            .iter()
            .map(|p| p.value)
            .chain(func.dims.iter().copied())
            .collect();
        // Parameters and symbolic dimensions are all defined at entry, so their types may
        // name each other.
        for &val in &entry {
            self.introduce(val);
        }
        for &val in &entry {
            self.check_type(val, func.span);
        }
        self.stmts(func.body);
    }

    fn introduce(&mut self, val: ValueId) {
        self.live.insert(val);
        if self.hidden[val].is_some() {
            self.hidden[val] = None;
        }
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
        crate::module::for_each_dim(ty, &mut |d| self.use_value(d, at, Some(val)));
    }

    fn use_value(&mut self, val: ValueId, at: SpanId, in_type_of: Option<ValueId>) {
        if self.live.contains(val) {
            return;
        }
        let name = self.v.name(val);
        let mut msg = if let Some(s) = self.hidden[val] {
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
        if self.hidden[val].is_some() {
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
                self.live.remove(val);
                self.hidden[val] = Some(owner);
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
