//! Blocks and regions: the statements of a block, region ends and terminators.

use pto_ir::{StmtKind, ValueId};

use crate::emit::writer::Level;

use super::Writer;

impl<'a, const GENERIC: bool> Writer<'a, GENERIC> {
    pub(super) fn block(&mut self, b: pto_ir::BlockId, l: Level) {
        let m = self.m;
        for &s in &m.blocks[b].stmts {
            match &m.stmts[s].kind {
                StmtKind::Op(ops) => {
                    for &o in ops {
                        self.op(o, l);
                    }
                }
                StmtKind::For(x) => {
                    let inits = || x.iter_args.iter().map(|a| a.init);
                    // How a `parallel` loop runs (the lowering's decision, `lower/parallel.rs`).
                    match (x.attrs.get("exec"), x.attrs.get("reason")) {
                        (Some(pto_ir::Attr::Str(e)), Some(pto_ir::Attr::Str(why))) => {
                            self.out.indent(l);
                            self.put("// parallel loop run ");
                            self.put(e);
                            self.put("ly: ");
                            self.put(&why.replace('\n', " "));
                            self.put("\n");
                        }
                        (Some(pto_ir::Attr::Str(e)), None) => {
                            self.out.indent(l);
                            self.put("// parallel loop: iterations run in ");
                            self.put(e);
                            self.put(" (all CPU cores; C++ blocks)\n");
                        }
                        _ => {}
                    }
                    self.out.indent(l);
                    self.results_lhs(&x.results);
                    if GENERIC {
                        self.put("\"scf.for\"(");
                        self.names([x.lb, x.ub, x.step].into_iter().chain(inits()));
                        self.put(") ({\n");
                        self.out.indent(l);
                        self.put("^bb0(");
                        self.typed_names(
                            std::iter::once(x.iv).chain(x.iter_args.iter().map(|a| a.arg)),
                        );
                        self.put("):\n");
                        self.block(x.body, l.next());
                        self.out.indent(l);
                        self.put("}) : (");
                        self.vtys([x.lb, x.ub, x.step].into_iter().chain(inits()));
                        self.put(") -> (");
                        self.vtys(x.results.iter().copied());
                        self.put(")\n");
                    } else {
                        self.put("scf.for ");
                        self.name(x.iv);
                        self.put(" = ");
                        self.name(x.lb);
                        self.put(" to ");
                        self.name(x.ub);
                        self.put(" step ");
                        self.name(x.step);
                        if !x.iter_args.is_empty() {
                            self.put(" iter_args(");
                            for (i, a) in x.iter_args.iter().enumerate() {
                                self.out.sep(i);
                                self.name(a.arg);
                                self.put(" = ");
                                self.name(a.init);
                            }
                            self.put(") -> (");
                            self.vtys(x.results.iter().copied());
                            self.put(")");
                        }
                        self.put(" : ");
                        self.vty(x.iv);
                        self.put(" {\n");
                        self.block(x.body, l.next());
                        self.out.line(l, "}");
                    }
                }
                StmtKind::If(x) => {
                    self.out.indent(l);
                    self.results_lhs(&x.results);
                    if GENERIC {
                        self.put("\"scf.if\"(");
                        self.name(x.cond);
                        self.put(") ({\n");
                        self.block(x.then_block, l.next());
                        self.out.line(l, "}, {");
                        self.block(x.else_block, l.next());
                        self.out.indent(l);
                        self.put("}) : (i1) -> (");
                        self.vtys(x.results.iter().copied());
                        self.put(")\n");
                    } else {
                        self.put("scf.if ");
                        self.name(x.cond);
                        if !x.results.is_empty() {
                            self.put(" -> (");
                            self.vtys(x.results.iter().copied());
                            self.put(")");
                        }
                        self.put(" {\n");
                        self.block(x.then_block, l.next());
                        self.out.line(l, "} else {");
                        self.block(x.else_block, l.next());
                        self.out.line(l, "}");
                    }
                }
                StmtKind::While(w) => {
                    let args = || w.iter_args.iter().map(|a| a.arg);
                    self.out.indent(l);
                    self.results_lhs(&w.results);
                    if GENERIC {
                        self.put("\"scf.while\"(");
                        self.names(w.iter_args.iter().map(|a| a.init));
                        self.put(") ({\n");
                        self.out.indent(l);
                        self.put("^bb0(");
                        self.typed_names(args());
                        self.put("):\n");
                    } else {
                        self.put("scf.while (");
                        for (i, a) in w.iter_args.iter().enumerate() {
                            self.out.sep(i);
                            self.name(a.arg);
                            self.put(" = ");
                            self.name(a.init);
                        }
                        self.put(") : (");
                        self.vtys(w.results.iter().copied());
                        self.put(") -> (");
                        self.vtys(w.results.iter().copied());
                        self.put(") {\n");
                    }
                    self.block(w.cond_block, l.next());
                    // The body sees the iter args under fresh names.
                    let saved = self.renamed.len();
                    self.renamed.extend(args());
                    self.out.line(l, if GENERIC { "}, {" } else { "} do {" });
                    self.out.indent(l);
                    self.put("^bb0(");
                    self.typed_names(args());
                    self.put("):\n");
                    self.block(w.body, l.next());
                    if GENERIC {
                        self.out.indent(l);
                        self.put("}) : (");
                        self.vtys(w.results.iter().copied());
                        self.put(") -> (");
                        self.vtys(w.results.iter().copied());
                        self.put(")\n");
                    } else {
                        self.out.line(l, "}");
                    }
                    self.renamed.truncate(saved);
                }
                StmtKind::Condition(c) => {
                    let args: &[pto_ir::IterArg] = match m.blocks[b].owner.map(|o| &m.stmts[o].kind)
                    {
                        Some(StmtKind::While(w)) => &w.iter_args,
                        _ => &[],
                    };
                    let args = || args.iter().map(|a| a.arg);
                    self.out.indent(l);
                    if GENERIC {
                        self.put("\"scf.condition\"(");
                        self.names(std::iter::once(*c).chain(args()));
                        self.put(") : (i1");
                        for a in args() {
                            self.put(", ");
                            self.vty(a);
                        }
                        self.put(") -> ()\n");
                    } else {
                        self.put("scf.condition(");
                        self.name(*c);
                        self.put(")");
                        self.operands_tail(args());
                        self.out.end();
                    }
                }
                StmtKind::Yield(vals) => self.terminator(l, "scf.yield", vals),
                StmtKind::Break(vals) | StmtKind::Continue(vals) => {
                    let word = if matches!(m.stmts[s].kind, StmtKind::Break(_)) {
                        "pto.break"
                    } else {
                        "pto.continue"
                    };
                    self.terminator(l, word, vals);
                    if GENERIC {
                        self.region_end(b, l);
                    }
                }
                StmtKind::Return(vals) => self.terminator(l, "func.return", vals),
                StmtKind::Scope(_, blk) => self.block(*blk, l),
            }
        }
    }

    /// A generic-form `break` / `continue` does not end its region: yields placeholder values
    /// of the types the enclosing region's terminator needs.
    fn region_end(&mut self, b: pto_ir::BlockId, l: Level) {
        let m = self.m;
        let need: Vec<ValueId> = match m.blocks[b].owner.map(|o| &m.stmts[o].kind) {
            Some(StmtKind::If(x)) => x.results.to_vec(),
            Some(StmtKind::For(x)) => x.iter_args.iter().map(|a| a.arg).collect(),
            Some(StmtKind::While(w)) => w.iter_args.iter().map(|a| a.arg).collect(),
            _ => Vec::new(),
        };
        let first = self.next_tmp + 1;
        for &v in &need {
            self.next_tmp += 1;
            self.out.indent(l);
            self.put("%tmp");
            self.out.put_u64(u64::from(self.next_tmp));
            self.put(" = \"pto.undef\"() : () -> ");
            self.vty(v);
            self.out.end();
        }
        self.out.indent(l);
        self.put("\"scf.yield\"(");
        for (i, t) in (first..=self.next_tmp).enumerate() {
            self.out.sep(i);
            self.put("%tmp");
            self.out.put_u64(u64::from(t));
        }
        self.put(") : (");
        self.vtys(need);
        self.put(") -> ()\n");
    }

    /// ` %a, %b : T, U` after a custom-form keyword, nothing when there are no values.
    fn operands_tail(&mut self, vals: impl Iterator<Item = ValueId> + Clone) {
        let mut vals = vals.peekable();
        if vals.peek().is_some() {
            self.put(" ");
            self.names(vals.clone());
            self.put(" : ");
            self.vtys(vals);
        }
    }

    /// `scf.yield`, `func.return`, `pto.break`, `pto.continue`: `KW %a : T` in the custom
    /// form, `"KW"(%a) : (T) -> ()` in the generic one.
    fn terminator(&mut self, l: Level, kw: &str, vals: &[ValueId]) {
        self.out.indent(l);
        if GENERIC {
            self.put("\"");
            self.put(kw);
            self.put("\"(");
            self.names(vals.iter().copied());
            self.put(") : (");
            self.vtys(vals.iter().copied());
            self.put(") -> ()");
        } else {
            self.put(kw);
            self.operands_tail(vals.iter().copied());
        }
        self.out.end();
    }

    fn results_lhs(&mut self, results: &[ValueId]) {
        if !results.is_empty() {
            self.names(results.iter().copied());
            self.put(" = ");
        }
    }
}
