//! Checklist item 1: every id the later passes index is in range, and blocks, statements
//! and ops form a tree (each reached once), so the later passes can index and recurse
//! without fear (naga `valid/handles.rs`). Errors here are fatal.
//!
//! The same walk also gathers what the later passes would otherwise walk the module again
//! for: each function's ops in text order ([`Bodies`]), where each value is defined
//! ([`Defs`], with the second definitions the SSA check reports), and whether each use sees
//! a definition (the SSA check's [`Visibility`], which visits the same uses and definitions
//! in the same order; loop ivs and iter args are made visible before the body, statement
//! results after it).

use crate::entity::{BlockId, EntityId, EntitySet, FuncId, OpId, SpanId, StmtId, ValueId};
use crate::stmt::StmtKind;
use crate::types::Type;

use super::ssa::{Miss, Visibility};
use super::{Bodies, Body, DefBy, DefSite, Defs, Verifier};

/// The names in a message, spelled only when a message is reported.
type Who<'w> = &'w dyn Fn() -> String;

/// Which blocks, statements and ops the walk has reached, and which values' types it has
/// checked: one flag per id of each arena, the arenas one after another in one table.
struct Reached {
    flags: Vec<bool>,
    /// Where the statements' flags start.
    stmts: usize,
    /// Where the ops' flags start.
    ops: usize,
    /// Where the values' flags start.
    values: usize,
}

impl Reached {
    fn new(m: &crate::module::ProgramModule) -> Self {
        let stmts = m.blocks.len();
        let ops = stmts + m.stmts.len();
        let values = ops + m.ops.len();
        Reached {
            flags: vec![false; values + m.values.len()],
            stmts,
            ops,
            values,
        }
    }

    /// Marks flag `at`; `true` the first time. (Every id is range-checked before it is
    /// marked; one that were not would read as reached for the first time.)
    fn insert(&mut self, at: usize) -> bool {
        self.flags
            .get_mut(at)
            .is_none_or(|f| !std::mem::replace(f, true))
    }

    fn block(&mut self, b: BlockId) -> bool {
        self.insert(b.index())
    }

    fn stmt(&mut self, s: StmtId) -> bool {
        self.insert(self.stmts + s.index())
    }

    fn op(&mut self, o: OpId) -> bool {
        self.insert(self.ops + o.index())
    }

    fn value(&mut self, v: ValueId) -> bool {
        self.insert(self.values + v.index())
    }
}

struct Ids<'a, 'b> {
    v: &'b mut Verifier<'a>,
    reached: Reached,
    /// The function being walked.
    func: FuncId,
    /// The ops of the functions walked so far, function after function, in text order.
    op_order: Vec<OpId>,
    defs: Defs,
    /// Second definitions: the value and the later site.
    redefined: Vec<(ValueId, DefSite)>,
    /// The SSA visibility of each use, decided along this walk.
    vis: Visibility,
}

/// What the id walk found besides errors, for the later passes.
pub(super) struct Walk {
    /// The functions to check and their ops.
    pub bodies: Bodies,
    /// The first definition of each value.
    pub defs: Defs,
    /// Values defined again after their first definition, with the later site, in text
    /// order.
    pub redefined: Vec<(ValueId, DefSite)>,
    /// Uses that see no definition, in text order.
    pub misses: Vec<Miss>,
}

/// Runs the id checks; `Some` when the module is safe to index.
pub(super) fn check(v: &mut Verifier<'_>) -> Option<Walk> {
    let before = v.diags.len();
    let m = v.m;
    if let Some(e) = m.entry
        && !m.funcs.contains(e)
    {
        v.error(
            SpanId::NONE,
            format!("the program entry {e:?} is not a function of this module"),
        );
    }
    let mut ids = Ids {
        v,
        reached: Reached::new(m),
        func: FuncId::new(0),
        op_order: Vec::new(),
        defs: Defs::with_len(m.values.len(), None),
        redefined: Vec::new(),
        vis: Visibility::new(m.values.len()),
    };
    let mut funcs = EntitySet::with_len(m.funcs.len());
    let mut bodies = Vec::new();
    for &f in &m.functions {
        let Some(func) = m.funcs.get(f) else {
            ids.v.error(
                SpanId::NONE,
                format!("the module lists {f:?}, which is not a function of this module"),
            );
            continue;
        };
        if !funcs.insert(f) {
            ids.v.error(
                func.span,
                format!("function `@{}` is listed twice in the module", func.name),
            );
            continue;
        }
        let who = || format!("function `@{}`", func.name);
        ids.func = f;
        ids.vis.enter(f, bodies.is_empty());
        let start = ids.op_order.len();
        for p in &func.sig.params {
            ids.value(p.value, func.span, &who);
            ids.define(p.value, DefBy::Param);
            ids.vis.introduce(m, p.value);
        }
        for &d in &func.dims {
            ids.value(d, func.span, &who);
            ids.define(d, DefBy::Dim);
            ids.vis.introduce(m, d);
        }
        // Parameters and symbolic dimensions are all defined at entry, so their types may
        // name each other.
        let entry = func
            .sig
            .params
            .iter()
            .map(|p| p.value)
            .chain(func.dims.iter().copied());
        for val in entry {
            ids.vis.check_type(m, val, func.span);
        }
        for t in &func.sig.returns {
            ids.type_dims(t, func.span, &who);
        }
        if !m.blocks.contains(func.inputs) {
            ids.bad(func.span, &who(), &format!("{:?}", func.inputs), "block");
        }
        ids.block(func.body, func.span, &who);
        bodies.push(Body {
            func: f,
            ops: start..ids.op_order.len(),
        });
    }
    let Ids {
        v,
        op_order,
        defs,
        redefined,
        vis,
        ..
    } = ids;
    (v.diags.len() == before).then_some(Walk {
        bodies: Bodies {
            bodies,
            ops: op_order,
        },
        defs,
        redefined,
        misses: vis.misses,
    })
}

impl Ids<'_, '_> {
    /// Records a definition of `val` (already range-checked by [`Ids::value`]; an id out of
    /// range fails the walk, so it is not recorded).
    fn define(&mut self, val: ValueId, by: DefBy) {
        if !self.v.m.values.contains(val) {
            return;
        }
        let site = DefSite {
            func: self.func,
            by,
        };
        let slot = &mut self.defs[val];
        if slot.is_some() {
            self.redefined.push((val, site));
        } else {
            *slot = Some(site);
        }
    }

    fn bad(&mut self, at: SpanId, who: &str, id: &str, kind: &str) {
        self.v.error(
            at,
            format!(
                "{who} refers to {id}, which is not {kind} of this module",
                kind = article(kind)
            ),
        );
    }

    /// Checks a value id, and the first time the value is seen, the values its type names.
    fn value(&mut self, val: ValueId, at: SpanId, who: Who<'_>) {
        match self.v.m.values.get(val) {
            None => self.bad_value(val, at, who),
            Some(d) => {
                if !matches!(d.ty, Type::Scalar(_)) && self.reached.value(val) {
                    self.type_dims(&d.ty, at, &|| format!("the type of `{}`", d.ssa_name()));
                }
            }
        }
    }

    fn bad_value(&mut self, val: ValueId, at: SpanId, who: Who<'_>) {
        self.bad(at, &who(), &format!("{val:?}"), "value");
    }

    fn type_dims(&mut self, t: &Type, at: SpanId, who: Who<'_>) {
        if matches!(t, Type::Scalar(_)) {
            return;
        }
        let m = self.v.m;
        // Tile valid regions and tensor shapes (and tuples of them) may name values.
        crate::module::for_each_dim(t, &mut |d| {
            if !m.values.contains(d) {
                self.bad(at, &who(), &format!("{d:?}"), "value");
            }
        });
    }

    fn block(&mut self, b: BlockId, at: SpanId, who: Who<'_>) {
        let m = self.v.m;
        let Some(block) = m.blocks.get(b) else {
            self.bad(at, &who(), &format!("{b:?}"), "block");
            return;
        };
        if !self.reached.block(b) {
            self.v.error(
                at,
                format!(
                    "{} reaches {b:?} a second time; blocks must form a tree",
                    who()
                ),
            );
            return;
        }
        for &s in &block.stmts {
            let Some(st) = m.stmts.get(s) else {
                self.bad(at, "a block", &format!("{s:?}"), "statement");
                continue;
            };
            let kw = || format!("`{}`", st.kind.keyword());
            if !self.reached.stmt(s) {
                self.v.error(
                    st.span,
                    format!(
                        "{} ({s:?}) appears twice; statements must form a tree",
                        kw()
                    ),
                );
                continue;
            }
            // (Only `statement.op` holds ops, and it uses nothing itself.)
            st.kind.for_each_use(|u| {
                self.value(u, st.span, &kw);
                self.vis.use_value(u, st.span, None);
            });
            if let StmtKind::Op(ops) = &st.kind {
                for &o in ops {
                    let Some(op) = m.ops.get(o) else {
                        self.bad(st.span, &kw(), &format!("{o:?}"), "operation");
                        continue;
                    };
                    let okw = || format!("`{}`", op.opcode.full_name());
                    if !self.reached.op(o) {
                        self.v.error(op.span, format!("{} ({o:?}) appears twice; every op sits in exactly one `statement.op`", okw()));
                        continue;
                    }
                    self.op_order.push(o);
                    op.for_each_use(|u| {
                        self.value(u, op.span, &okw);
                        self.vis.use_value(u, op.span, None);
                    });
                    for &r in &op.results {
                        self.value(r, op.span, &okw);
                        self.define(r, DefBy::Op(o));
                        self.vis.define(m, r, op.span);
                    }
                }
            }
            st.kind.for_each_def(|u| {
                self.value(u, st.span, &kw);
                self.define(u, DefBy::Stmt(s));
            });
            self.nested(s, &st.kind, st.span, &kw);
        }
    }

    /// Walks the blocks of statement `s` (in [`StmtKind::blocks`] order), making its ivs
    /// and iter args visible inside and its results after it: values defined in a body
    /// are visible only inside it.
    fn nested(&mut self, s: StmtId, kind: &StmtKind, at: SpanId, who: Who<'_>) {
        let m = self.v.m;
        let results: &[ValueId] = match kind {
            StmtKind::For(f) => {
                self.vis.open();
                self.vis.define(m, f.iv, at);
                for a in &f.iter_args {
                    self.vis.define(m, a.arg, at);
                }
                self.block(f.body, at, who);
                self.vis.close(s);
                &f.results
            }
            StmtKind::If(i) => {
                for b in [i.then_block, i.else_block] {
                    self.vis.open();
                    self.block(b, at, who);
                    self.vis.close(s);
                }
                &i.results
            }
            StmtKind::While(w) => {
                // The iter args live in a scope around both regions.
                self.vis.open();
                for a in &w.iter_args {
                    self.vis.define(m, a.arg, at);
                }
                for b in [w.cond_block, w.body] {
                    self.vis.open();
                    self.block(b, at, who);
                    self.vis.close(s);
                }
                self.vis.close(s);
                &w.results
            }
            // A scope is transparent to SSA (seed 004): what it defines stays visible after it.
            StmtKind::Scope(_, body) => {
                self.block(*body, at, who);
                &[]
            }
            StmtKind::Op(_)
            | StmtKind::Condition(_)
            | StmtKind::Yield(_)
            | StmtKind::Return(_)
            | StmtKind::Break(_)
            | StmtKind::Continue(_) => &[],
        };
        for &r in results {
            self.vis.define(m, r, at);
        }
    }
}

fn article(kind: &str) -> String {
    if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        format!("an {kind}")
    } else {
        format!("a {kind}")
    }
}
