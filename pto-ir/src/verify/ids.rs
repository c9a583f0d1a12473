//! Checklist item 1: every id the later passes index is in range, and blocks, statements
//! and ops form a tree (each reached once), so the later passes can index and recurse
//! without fear (naga `valid/handles.rs`). Errors here are fatal.

use crate::entity::{BlockId, EntitySet, OpId, SpanId, StmtId, ValueId};
use crate::stmt::StmtKind;
use crate::types::Type;

use super::Verifier;

/// The names in a message, spelled only when a message is reported.
type Who<'w> = &'w dyn Fn() -> String;

struct Ids<'a, 'b> {
    v: &'b mut Verifier<'a>,
    blocks: EntitySet<BlockId>,
    stmts: EntitySet<StmtId>,
    ops: EntitySet<OpId>,
    typed: EntitySet<ValueId>,
}

/// Runs the id checks; `true` when the module is safe to index.
pub(super) fn check(v: &mut Verifier<'_>) -> bool {
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
        blocks: EntitySet::with_len(m.blocks.len()),
        stmts: EntitySet::with_len(m.stmts.len()),
        ops: EntitySet::with_len(m.ops.len()),
        typed: EntitySet::with_len(m.values.len()),
    };
    let mut funcs = EntitySet::with_len(m.funcs.len());
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
        for p in &func.sig.params {
            ids.value(p.value, func.span, &who);
        }
        for &d in &func.dims {
            ids.value(d, func.span, &who);
        }
        for t in &func.sig.returns {
            ids.type_dims(t, func.span, &who);
        }
        if !m.blocks.contains(func.inputs) {
            ids.bad(func.span, &who(), &format!("{:?}", func.inputs), "block");
        }
        ids.block(func.body, func.span, &who);
    }
    v.diags.len() == before
}

impl Ids<'_, '_> {
    fn bad(&mut self, at: SpanId, who: &str, id: &str, kind: &str) {
        self.v.error(
            at,
            format!(
                "{who} refers to {id}, which is not {kind} of this module",
                kind = article(kind)
            ),
        );
    }

    fn value(&mut self, val: ValueId, at: SpanId, who: Who<'_>) {
        match self.v.m.values.get(val) {
            None => self.bad(at, &who(), &format!("{val:?}"), "value"),
            Some(d) => {
                if self.typed.insert(val) {
                    let t = &d.ty;
                    self.type_dims(t, at, &|| format!("the type of `{}`", d.ssa_name()));
                }
            }
        }
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
        if !self.blocks.insert(b) {
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
            if !self.stmts.insert(s) {
                self.v.error(
                    st.span,
                    format!(
                        "{} ({s:?}) appears twice; statements must form a tree",
                        kw()
                    ),
                );
                continue;
            }
            if let StmtKind::Op(ops) = &st.kind {
                for &o in ops {
                    let Some(op) = m.ops.get(o) else {
                        self.bad(st.span, &kw(), &format!("{o:?}"), "operation");
                        continue;
                    };
                    let okw = || format!("`{}`", op.opcode.full_name());
                    if !self.ops.insert(o) {
                        self.v.error(op.span, format!("{} ({o:?}) appears twice; every op sits in exactly one `statement.op`", okw()));
                        continue;
                    }
                    op.for_each_use(|u| self.value(u, op.span, &okw));
                    for &r in &op.results {
                        self.value(r, op.span, &okw);
                    }
                }
            }
            st.kind.for_each_use(|u| self.value(u, st.span, &kw));
            st.kind.for_each_def(|u| self.value(u, st.span, &kw));
            for child in st.kind.blocks() {
                self.block(child, st.span, &kw);
            }
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
