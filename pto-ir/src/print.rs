//! The statement-form printer (`shared/spec/ir-text.md` section 1), the exact inverse of
//! [`crate::parse()`] (cranelift `write.rs` style).
//!
//! Spelling, beyond what the spec fixes:
//! - Indentation is two spaces per level: module items at 1, function body statements at 2,
//!   the ops of a `statement.op` one level deeper than the statement. Functions are separated
//!   by one blank line; each is followed by `// func.kind = KIND` at its own indentation.
//! - Parameters print `%x_3: T #in` for a non-scalar `In` parameter and `%s_4: fp32` for a
//!   scalar one; `#out` / `#inout` always. `-> (T, ..)` only when there are return types.
//!   Function attributes print ` attributes {k=v, ..}` just before the body's `{`.
//! - Op results: `-> T` for one result, `-> ()` for none, `-> (T1, T2)` for several;
//!   `func.call` always parenthesises: `-> (T)`. The attribute dictionary `{k=v, ..}` closes
//!   the line and is omitted when empty (a call's `callee` is printed as `@f(..)`, not in it).
//! - A constant prints `%c_5 = 3.14 : fp64` from the result value's `constant` field; its
//!   `value` attribute is omitted when it is the literal itself, and printed in a trailing
//!   dictionary otherwise. A `const` op without a constant result prints in the generic form
//!   `%r = const : () -> fp64 {..}`.
//! - `statement.for`: `%r = statement.for %i = %lb to %ub step %s iter_args(%a = %init : T)`,
//!   then one attribute dictionary when the loop is parallel or has attributes, holding the
//!   bare word `parallel` first and then `key=value` entries: `{parallel}`,
//!   `{parallel, unroll=4}`, `{unroll=4}`; then the body's `{`.
//! - An induction variable carries no type in the seed's spelling: the parser gives it its
//!   lower bound's type (`int64` if that is not a scalar); when the module's differs, the
//!   printer writes it: `statement.for %i_3 : int32 = %lb to ..`.
//! - Statement results carry no types in the seed's spelling: the parser takes a `for` /
//!   `while` result's type from its iter arg and an `if` result's from the merge of the two
//!   branches' yields. When that would not reproduce the module, the header carries the types
//!   explicitly just before the body's `{`: `%r = statement.if %c -> (fp32) {`.
//! - Attribute values: integers, floats (always with a `.` or an exponent, `nan`, `inf`,
//!   `-inf`), quoted strings with `\"`, `\\`, `\n`, `\t`, `\r`, `\u{..}` escapes, `true` /
//!   `false`, `%values`, bare words, `@symbols`, lists `[a, b]` and maps `{ K=v, L=w }`.

use std::fmt::{self, Write};

use crate::attr::{Attr, AttrEntry};
use crate::entity::{BlockId, EntityId, OpId, StmtId, ValueId};
use crate::module::{Direction, Function, ProgramModule};
use crate::ops::{OpClass, Opcode};
use crate::parse::lexer::escape;
use crate::stmt::{ForKind, StmtKind};
use crate::typefmt::{push_i64, push_u64, push_whole_f64, write_type};
use crate::types::Type;
use crate::value::Constant;

/// How deep blocks may nest in a function (its body counts as one): the printer prints
/// this deep and no deeper (a marker instead, which does not parse), the parser accepts
/// this deep and no deeper, and the builder refuses to open a block past it, so every
/// module the builder makes prints text that parses back. The bound keeps the parser (and
/// every recursive walk after it) within a test thread's 2 MiB stack in a debug build,
/// where a nesting level of the parser takes about 8 KiB.
pub const MAX_NESTING: usize = 128;

impl ProgramModule {
    /// The module's statement text: what `to_string()` gives ([`fmt::Display`]), returned
    /// as built instead of copied through a formatter.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        Printer {
            m: self,
            out: &mut out,
            spelled: vec![Range::default(); self.values.len()],
            last_ty: None,
        }
        .module();
        out
    }
}

impl fmt::Display for ProgramModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

/// Writes the text straight into one `String`: no piece is formatted on its own first.
struct Printer<'a> {
    m: &'a ProgramModule,
    out: &'a mut String,
    /// Where each value's type was written in `out` first: a value's type is printed at its
    /// definition and again at every use, and copying is cheaper than spelling. Measured
    /// (`pto-macros/benches/instructions.sh`, 2026-11-25): the copies save 4.3% of a typical
    /// kernel's expansion, and with the name writer (`ValueData::write_ssa_name`) 8.5%, over
    /// a plain `write!` printer.
    spelled: Vec<Range>,
    /// The tile type spelled last and where its text is in `out` (see
    /// [`Printer::write_type`]).
    last_ty: Option<(&'a Type, Range)>,
}

/// A range of the output (`start..end`), empty when there is none.
#[derive(Clone, Copy, Default)]
struct Range(u32, u32);

/// The attribute a constant's `value` holds when it is the literal itself.
pub(crate) fn constant_attr(c: Constant) -> Attr {
    match c {
        Constant::Bool(b) => Attr::Bool(b),
        Constant::Int(v) => Attr::Int(i64::from(v)),
        Constant::Int64(v) => Attr::Int(v),
        Constant::SizeT(v) => i64::try_from(v).map_or(Attr::Float(v as f64), Attr::Int),
        Constant::Double(v) => Attr::Float(v),
    }
}

/// Whether two attributes are identical (floats bit for bit).
pub(crate) fn attr_identical(a: &Attr, b: &Attr) -> bool {
    match (a, b) {
        (Attr::Float(x), Attr::Float(y)) => x.to_bits() == y.to_bits(),
        (Attr::List(x), Attr::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| attr_identical(p, q))
        }
        (Attr::Map(x), Attr::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k, p), (l, q))| k == l && attr_identical(p, q))
        }
        _ => a == b,
    }
}

/// The types the parser derives for a statement's results when the text gives none:
/// a `for` / `while` result has its iter arg's type, an `if` result the merge of the two
/// branches' yielded types. `None` when they cannot be derived.
pub(crate) fn derived_result_types(m: &ProgramModule, kind: &StmtKind) -> Option<Vec<Type>> {
    let ty = |v: ValueId| m.values.get(v).map(|d| d.ty.clone());
    match kind {
        StmtKind::For(s) => s.iter_args.iter().map(|a| ty(a.arg)).collect(),
        StmtKind::While(w) => w.iter_args.iter().map(|a| ty(a.arg)).collect(),
        StmtKind::If(i) => {
            let yields = |b: BlockId| -> Option<Vec<Type>> {
                let last = *m.blocks.get(b)?.stmts.last()?;
                match &m.stmts.get(last)?.kind {
                    StmtKind::Yield(vs) => vs.iter().map(|&v| ty(v)).collect(),
                    _ => None,
                }
            };
            let n = i.results.len();
            match (yields(i.then_block), yields(i.else_block)) {
                (Some(a), Some(b)) if a.len() == n && b.len() == n => Some(
                    a.iter()
                        .zip(&b)
                        .map(|(x, y)| crate::ops::merge_types(x, y))
                        .collect(),
                ),
                (Some(a), _) if a.len() == n => Some(a),
                (_, Some(b)) if b.len() == n => Some(b),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether [`derived_result_types`] of `kind` gives the types of `results`, without
/// building the list: the printer asks this of every statement with results.
fn derived_result_types_are(m: &ProgramModule, kind: &StmtKind, results: &[ValueId]) -> bool {
    let ty = |v: ValueId| m.values.get(v).map(|d| &d.ty);
    // Whether the values `vs` all have types and those are the results' types, in order.
    let same = |vs: &mut dyn ExactSizeIterator<Item = ValueId>| {
        vs.len() == results.len()
            && vs
                .zip(results)
                .all(|(v, &r)| ty(v).is_some() && ty(v) == ty(r))
    };
    match kind {
        StmtKind::For(s) => same(&mut s.iter_args.iter().map(|a| a.arg)),
        StmtKind::While(w) => same(&mut w.iter_args.iter().map(|a| a.arg)),
        StmtKind::If(i) => {
            // The yielded values of a branch, when each has a type.
            let yields = |b: BlockId| -> Option<&[ValueId]> {
                let last = *m.blocks.get(b)?.stmts.last()?;
                match &m.stmts.get(last)?.kind {
                    StmtKind::Yield(vs) if vs.iter().all(|&v| ty(v).is_some()) => Some(vs),
                    _ => None,
                }
            };
            let n = i.results.len();
            match (yields(i.then_block), yields(i.else_block)) {
                (Some(a), Some(b)) if a.len() == n && b.len() == n => {
                    n == results.len()
                        && a.iter().zip(b).zip(results).all(|((&x, &y), &r)| {
                            match (ty(x), ty(y), ty(r)) {
                                // Merging a type with itself gives it back: no merge to build.
                                (Some(x), Some(y), Some(r)) if x == y => x == r,
                                (Some(x), Some(y), Some(r)) => crate::ops::merge_types(x, y) == *r,
                                _ => false,
                            }
                        })
                }
                (Some(a), _) if a.len() == n => same(&mut a.iter().copied()),
                (_, Some(b)) if b.len() == n => same(&mut b.iter().copied()),
                _ => false,
            }
        }
        _ => false,
    }
}

/// The type the parser gives an induction variable written without one: its lower bound's
/// type when that is a scalar, else `int64`.
pub(crate) fn derived_iv_type(m: &ProgramModule, lb: ValueId) -> Type {
    match m.values.get(lb).map(|d| &d.ty) {
        Some(t @ Type::Scalar(_)) => t.clone(),
        _ => Type::Scalar(crate::dtype::DataType::Int64),
    }
}

impl<'a> Printer<'a> {
    fn put(&mut self, s: &str) {
        self.out.push_str(s);
    }

    fn sep(&mut self, i: usize) {
        if i > 0 {
            self.out.push_str(", ");
        }
    }

    /// Copies text written before (`false` when `r` is empty, as when nothing was).
    fn copy(&mut self, r: Range) -> bool {
        if r.0 == r.1 {
            return false;
        }
        self.out.extend_from_within(r.0 as usize..r.1 as usize);
        true
    }

    /// Writes text with `write`, returning where it is (empty if the output is too long
    /// for the ranges).
    fn spell(&mut self, write: impl FnOnce(&mut Self)) -> Range {
        let start = self.out.len();
        write(self);
        match (u32::try_from(start), u32::try_from(self.out.len())) {
            (Ok(s), Ok(e)) => Range(s, e),
            _ => Range::default(),
        }
    }

    /// Spells a value's name: cheaper than copying an earlier spelling of it (a call to
    /// `memcpy` with a length of its own), as the names are short.
    fn name(&mut self, v: ValueId) {
        self.m.write_ssa_name(v, self.out);
    }

    /// Spells a type, or copies the last tile type spelled when `t` is the same: a chain of
    /// elementwise ops repeats one type. Comparing two tile types in full costs about as
    /// much as spelling one, so the full comparison is made only when the dtype and the
    /// outer extents already agree; neighbouring ops' types mostly differ there.
    fn write_type(&mut self, t: &'a Type) {
        if let (Some((Type::Tile(last), r)), Type::Tile(tt)) = (self.last_ty, t) {
            let (a, b) = (&last.shape, &tt.shape);
            if last.dtype == tt.dtype
                && a.len() == b.len()
                && a.first() == b.first()
                && a.last() == b.last()
                && last == tt
                && self.copy(r)
            {
                return;
            }
        }
        let r = self.spell(|p| {
            let _ = write_type(p.m, t, p.out);
        });
        if let Type::Tile(_) = t {
            self.last_ty = Some((t, r));
        }
    }

    fn ty(&mut self, v: ValueId) {
        let Some(d) = self.m.values.get(v) else {
            self.put("<invalid>");
            return;
        };
        if let Type::Scalar(dt) = d.ty {
            self.put(dt.name());
            return;
        }
        let i = v.index();
        let before = self.spelled.get(i).copied();
        if before.is_some_and(|r| self.copy(r)) {
            return;
        }
        let r = self.spell(|p| p.write_type(&d.ty));
        if let Some(s) = self.spelled.get_mut(i) {
            *s = r;
        }
    }

    fn names(&mut self, vs: &[ValueId]) {
        for (i, &v) in vs.iter().enumerate() {
            self.sep(i);
            self.name(v);
        }
    }

    fn types(&mut self, vs: &[ValueId]) {
        for (i, &v) in vs.iter().enumerate() {
            self.sep(i);
            self.ty(v);
        }
    }

    fn indent(&mut self, level: usize) {
        crate::typefmt::push_indent(self.out, level);
    }

    fn line(&mut self, level: usize, s: &str) {
        self.indent(level);
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// A line holding a marker for a broken reference (`// <invalid op OpId(3)>`).
    fn invalid(&mut self, level: usize, what: fmt::Arguments<'_>) {
        self.indent(level);
        let _ = self.out.write_fmt(what);
        self.out.push('\n');
    }

    fn module(&mut self) {
        let m = self.m;
        self.put("program.module @");
        self.put(&m.name);
        self.put(" {\n");
        if let Some(e) = m.entry {
            let name = m.funcs.get(e).map_or("<invalid>", |f| f.name.as_str());
            self.indent(1);
            self.put("program.entry @");
            self.put(name);
            self.out.push('\n');
        }
        for (k, v) in &m.attrs.0 {
            self.indent(1);
            self.put("attr ");
            self.put(k);
            self.put(" = ");
            self.attr(v);
            self.out.push('\n');
        }
        for (i, &fid) in m.functions.iter().enumerate() {
            if i > 0 {
                self.out.push('\n');
            }
            match m.funcs.get(fid) {
                Some(func) => self.function(func),
                None => self.invalid(1, format_args!("// <invalid function {fid:?}>")),
            }
        }
        self.put("}\n");
    }

    fn function(&mut self, func: &'a Function) {
        let m = self.m;
        self.indent(1);
        self.put("func.func @");
        self.put(&func.name);
        self.out.push('(');
        for (i, p) in func.sig.params.iter().enumerate() {
            self.sep(i);
            let scalar = matches!(m.values.get(p.value).map(|d| &d.ty), Some(Type::Scalar(_)));
            self.name(p.value);
            self.put(": ");
            self.ty(p.value);
            if p.direction != Direction::In || !scalar {
                self.out.push(' ');
                self.put(p.direction.mark());
            }
        }
        self.out.push(')');
        if !func.sig.returns.is_empty() {
            self.put(" -> (");
            for (i, t) in func.sig.returns.iter().enumerate() {
                self.sep(i);
                self.write_type(t);
            }
            self.out.push(')');
        }
        if !func.attrs.is_empty() {
            self.put(" attributes ");
            self.dict(func.attrs.0.iter(), false);
        }
        self.put(" {\n");
        // The input scope holds no statements in a well-formed module; print any it has so
        // nothing is hidden (the parser puts every statement in the body).
        if let Some(b) = m.blocks.get(func.inputs) {
            for &s in &b.stmts {
                self.stmt(s, 2, 0);
            }
        }
        self.block_stmts(func.body, 2, 1);
        self.line(1, "}");
        self.indent(1);
        self.put("// func.kind = ");
        self.put(func.kind.name());
        // Symbolic dimensions are int64 unless recorded here (the types only name them).
        for &d in &func.dims {
            if let Some(Type::Scalar(dt)) = m.values.get(d).map(|v| &v.ty)
                && *dt != crate::DataType::Int64
            {
                self.put(", dim ");
                self.put(&m.values[d].ssa_name());
                self.put(" : ");
                self.put(dt.name());
            }
        }
        self.out.push('\n');
    }

    fn block_stmts(&mut self, b: BlockId, level: usize, depth: usize) {
        if depth > MAX_NESTING {
            self.line(level, "// <nesting too deep>");
            return;
        }
        match self.m.blocks.get(b) {
            Some(block) => {
                for &s in &block.stmts {
                    self.stmt(s, level, depth + 1);
                }
            }
            None => self.invalid(level, format_args!("// <invalid block {b:?}>")),
        }
    }

    /// ` -> (T, ..)` when the parser could not derive the result types from the header.
    fn result_annotation(&mut self, kind: &StmtKind, results: &[ValueId]) {
        let m = self.m;
        if results.iter().any(|&v| m.values.get(v).is_none()) {
            return;
        }
        if derived_result_types_are(m, kind, results) {
            return;
        }
        let actual = || {
            results
                .iter()
                .filter_map(|&v| m.values.get(v).map(|d| &d.ty))
        };
        self.put(" -> (");
        for (i, t) in actual().enumerate() {
            self.sep(i);
            self.write_type(t);
        }
        self.out.push(')');
    }

    fn lhs(&mut self, results: &[ValueId]) {
        if !results.is_empty() {
            self.names(results);
            self.put(" = ");
        }
    }

    fn iter_args(&mut self, args: &[crate::stmt::IterArg]) {
        if args.is_empty() {
            return;
        }
        self.put(" iter_args(");
        for (i, a) in args.iter().enumerate() {
            self.sep(i);
            self.name(a.arg);
            self.put(" = ");
            self.name(a.init);
            self.put(" : ");
            self.ty(a.arg);
        }
        self.out.push(')');
    }

    fn stmt(&mut self, s: StmtId, level: usize, depth: usize) {
        let m = self.m;
        let Some(st) = m.stmts.get(s) else {
            self.invalid(level, format_args!("// <invalid statement {s:?}>"));
            return;
        };
        match &st.kind {
            StmtKind::Op(ops) => {
                self.line(level, "statement.op {");
                for &op in ops {
                    self.op(op, level + 1);
                }
                self.line(level, "}");
            }
            StmtKind::For(f) => {
                self.indent(level);
                self.lhs(&f.results);
                self.put("statement.for ");
                self.name(f.iv);
                if let Some(d) = m.values.get(f.iv)
                    && d.ty != derived_iv_type(m, f.lb)
                {
                    self.put(" : ");
                    self.write_type(&d.ty);
                }
                self.put(" = ");
                self.name(f.lb);
                self.put(" to ");
                self.name(f.ub);
                self.put(" step ");
                self.name(f.step);
                self.iter_args(&f.iter_args);
                let parallel = f.kind == ForKind::Parallel;
                if parallel || !f.attrs.is_empty() {
                    self.put(" {");
                    if parallel {
                        self.put("parallel");
                    }
                    for (i, (k, v)) in f.attrs.0.iter().enumerate() {
                        self.sep(i + usize::from(parallel));
                        self.put(k);
                        self.out.push('=');
                        self.attr(v);
                    }
                    self.out.push('}');
                }
                self.result_annotation(&st.kind, &f.results);
                self.put(" {\n");
                self.block_stmts(f.body, level + 1, depth);
                self.line(level, "}");
            }
            StmtKind::If(i) => {
                self.indent(level);
                self.lhs(&i.results);
                self.put("statement.if ");
                self.name(i.cond);
                self.result_annotation(&st.kind, &i.results);
                self.put(" {\n");
                self.block_stmts(i.then_block, level + 1, depth);
                self.line(level, "} else {");
                self.block_stmts(i.else_block, level + 1, depth);
                self.line(level, "}");
            }
            StmtKind::While(w) => {
                self.indent(level);
                self.lhs(&w.results);
                self.put("statement.while");
                self.iter_args(&w.iter_args);
                self.result_annotation(&st.kind, &w.results);
                self.put(" cond {\n");
                self.block_stmts(w.cond_block, level + 1, depth);
                self.line(level, "} do {");
                self.block_stmts(w.body, level + 1, depth);
                self.line(level, "}");
            }
            StmtKind::Condition(c) => {
                self.indent(level);
                self.put("statement.condition ");
                self.name(*c);
                self.out.push('\n');
            }
            StmtKind::Yield(vs) => self.terminator(level, "statement.yield", vs),
            StmtKind::Return(vs) => self.terminator(level, "statement.return", vs),
            StmtKind::Break(vs) => self.terminator(level, "statement.break", vs),
            StmtKind::Continue(vs) => self.terminator(level, "statement.continue", vs),
            StmtKind::Scope(kind, b) => {
                self.indent(level);
                self.put("statement.scope ");
                self.put(kind.name());
                self.put(" {\n");
                self.block_stmts(*b, level + 1, depth);
                self.line(level, "}");
            }
        }
    }

    fn terminator(&mut self, level: usize, kw: &str, vs: &[ValueId]) {
        self.indent(level);
        self.put(kw);
        if !vs.is_empty() {
            self.out.push(' ');
            self.names(vs);
        }
        self.out.push('\n');
    }

    fn op(&mut self, id: OpId, level: usize) {
        let m = self.m;
        let Some(op) = m.ops.get(id) else {
            self.invalid(level, format_args!("// <invalid op {id:?}>"));
            return;
        };
        self.indent(level);
        self.lhs(&op.results);
        // Constant form: `%c = 3.14 : fp64`.
        if op.opcode.class() == OpClass::Const
            && op.operands.is_empty()
            && let [r] = op.results.as_slice()
            && let Some(c) = m.values.get(*r).and_then(|d| d.constant)
        {
            self.constant(c);
            self.put(" : ");
            self.ty(*r);
            let literal = constant_attr(c);
            let is_extra = |(k, v): &&AttrEntry| k != "value" || !attr_identical(v, &literal);
            if op.attrs.0.iter().any(|e| is_extra(&e)) {
                self.out.push(' ');
                self.dict(op.attrs.0.iter().filter(is_extra), false);
            }
            self.out.push('\n');
            return;
        }
        // Only a call looks its callee up: the other ops' keys need no comparison.
        let callee = match op.opcode {
            Opcode::Call => match op.attrs.get("callee") {
                Some(Attr::Symbol(name)) => Some(name),
                _ => None,
            },
            _ => None,
        };
        match callee {
            Some(name) => {
                self.put("func.call @");
                self.put(name);
                self.out.push('(');
                self.names(&op.operands);
                self.put(") : (");
                self.types(&op.operands);
                self.put(") -> (");
                self.types(&op.results);
                self.out.push(')');
            }
            None => {
                let info = op.opcode.info();
                if !info.dialect.is_empty() {
                    self.put(info.dialect);
                    self.out.push('.');
                }
                self.put(info.mnemonic);
                if !op.operands.is_empty() {
                    self.out.push(' ');
                    self.names(&op.operands);
                }
                self.put(" : (");
                self.types(&op.operands);
                self.put(") -> ");
                if op.results.len() == 1 {
                    self.types(&op.results);
                } else {
                    self.out.push('(');
                    self.types(&op.results);
                    self.out.push(')');
                }
            }
        }
        // A call's callee is printed as `@f(..)`, not in the dictionary.
        let shown = |(k, _): &&AttrEntry| callee.is_none() || k != "callee";
        if op.attrs.0.iter().any(|e| shown(&e)) {
            self.out.push(' ');
            self.dict(op.attrs.0.iter().filter(shown), false);
        }
        self.out.push('\n');
    }

    /// Spells a constant as [`Constant`]'s `Display` does, integers without `core::fmt`.
    fn constant(&mut self, c: Constant) {
        match c {
            Constant::Int(v) => push_i64(self.out, i64::from(v)),
            Constant::Int64(v) => push_i64(self.out, v),
            Constant::SizeT(v) => push_u64(self.out, v),
            Constant::Bool(b) => self.put(if b { "true" } else { "false" }),
            Constant::Double(v) => {
                if !push_whole_f64(self.out, v) {
                    let _ = write!(self.out, "{c}");
                }
            }
        }
    }

    /// Spells an attribute dictionary: `{k=v, ..}`, or `{ k=v, .. }` when `spaced`.
    fn dict<'e>(&mut self, entries: impl Iterator<Item = &'e AttrEntry>, spaced: bool) {
        self.out.push('{');
        let mut n = 0;
        for (k, v) in entries {
            self.put(if n > 0 {
                ", "
            } else if spaced {
                " "
            } else {
                ""
            });
            self.put(k);
            self.out.push('=');
            self.attr(v);
            n += 1;
        }
        if spaced && n > 0 {
            self.out.push(' ');
        }
        self.out.push('}');
    }

    /// Spells one attribute value.
    fn attr(&mut self, a: &Attr) {
        match a {
            Attr::Int(v) => push_i64(self.out, *v),
            Attr::Float(v) => self.constant(Constant::Double(*v)),
            Attr::Str(s) => self.put(&escape(s)),
            Attr::Bool(b) => self.put(if *b { "true" } else { "false" }),
            Attr::Value(v) => self.name(*v),
            Attr::Ident(s) => self.put(s),
            Attr::Symbol(s) => {
                self.out.push('@');
                self.put(s);
            }
            Attr::List(items) => {
                self.out.push('[');
                for (i, x) in items.iter().enumerate() {
                    self.sep(i);
                    self.attr(x);
                }
                self.out.push(']');
            }
            Attr::Map(items) => self.dict(items.iter(), true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The printer's check agrees with the parser's derivation on every statement of the
    /// round-trip and kernel files.
    #[test]
    fn derived_result_check_matches_derivation() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let dirs = [
            root.join("tests/files/roundtrip"),
            root.join("tests/files"),
            root.join("../pto-lower/tests/kernels"),
        ];
        let mut checked = 0;
        for dir in dirs {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let path = e.path();
                if path.extension().is_none_or(|x| x != "pto") {
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                let Ok(m) = crate::parse(&text) else { continue };
                for (_, st) in m.stmts.iter() {
                    let results: &[ValueId] = match &st.kind {
                        StmtKind::For(f) => &f.results,
                        StmtKind::While(w) => &w.results,
                        StmtKind::If(i) => &i.results,
                        _ => continue,
                    };
                    let actual: Vec<Type> = results.iter().map(|&v| m.ty(v).clone()).collect();
                    assert_eq!(
                        derived_result_types_are(&m, &st.kind, results),
                        derived_result_types(&m, &st.kind).is_some_and(|d| d == actual),
                        "{}",
                        path.display()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 10, "{checked} statements checked");
    }
}
