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
use crate::entity::{BlockId, OpId, StmtId, ValueId};
use crate::module::{Direction, Function, ProgramModule};
use crate::ops::{OpClass, Opcode};
use crate::parse::lexer::escape;
use crate::stmt::{ForKind, StmtKind};
use crate::typefmt::write_type;
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
    /// The module's statement text: what `to_string()` gives ([`fmt::Display`]).
    pub fn to_text(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for ProgramModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Printer { m: self, out: f }.module()
    }
}

/// Writes a module's text to `out`.
struct Printer<'a, W> {
    m: &'a ProgramModule,
    out: W,
}

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

/// The type the parser gives an induction variable written without one: its lower bound's
/// type when that is a scalar, else `int64`.
pub(crate) fn derived_iv_type(m: &ProgramModule, lb: ValueId) -> Type {
    match m.values.get(lb).map(|d| &d.ty) {
        Some(t @ Type::Scalar(_)) => t.clone(),
        _ => Type::Scalar(crate::dtype::DataType::Int64),
    }
}

impl<W: Write> Printer<'_, W> {
    fn indent(&mut self, level: usize) -> fmt::Result {
        write!(self.out, "{:1$}", "", 2 * level)
    }

    fn line(&mut self, level: usize, s: &str) -> fmt::Result {
        self.indent(level)?;
        writeln!(self.out, "{s}")
    }

    fn name(&mut self, v: ValueId) -> fmt::Result {
        self.out.write_str(&self.m.ssa_name(v))
    }

    fn ty(&mut self, t: &Type) -> fmt::Result {
        write_type(self.m, t, &mut self.out)
    }

    fn value_ty(&mut self, v: ValueId) -> fmt::Result {
        match self.m.values.get(v) {
            Some(d) => write_type(self.m, &d.ty, &mut self.out),
            None => self.out.write_str("<invalid>"),
        }
    }

    /// `a, b, c`, each item with `f`.
    fn list<T>(
        &mut self,
        items: &[T],
        mut f: impl FnMut(&mut Self, &T) -> fmt::Result,
    ) -> fmt::Result {
        for (i, x) in items.iter().enumerate() {
            if i > 0 {
                self.out.write_str(", ")?;
            }
            f(self, x)?;
        }
        Ok(())
    }

    fn names(&mut self, vs: &[ValueId]) -> fmt::Result {
        self.list(vs, |p, &v| p.name(v))
    }

    fn types(&mut self, vs: &[ValueId]) -> fmt::Result {
        self.list(vs, |p, &v| p.value_ty(v))
    }

    fn module(&mut self) -> fmt::Result {
        let m = self.m;
        writeln!(self.out, "program.module @{} {{", m.name)?;
        if let Some(e) = m.entry {
            let name = m.funcs.get(e).map_or("<invalid>", |f| f.name.as_str());
            writeln!(self.out, "  program.entry @{name}")?;
        }
        for (k, v) in &m.attrs.0 {
            write!(self.out, "  attr {k} = ")?;
            self.attr(v)?;
            writeln!(self.out)?;
        }
        for (i, &fid) in m.functions.iter().enumerate() {
            if i > 0 {
                writeln!(self.out)?;
            }
            match m.funcs.get(fid) {
                Some(func) => self.function(func)?,
                None => self.line(1, &format!("// <invalid function {fid:?}>"))?,
            }
        }
        writeln!(self.out, "}}")
    }

    fn function(&mut self, func: &Function) -> fmt::Result {
        let m = self.m;
        write!(self.out, "  func.func @{}(", func.name)?;
        self.list(&func.sig.params, |p, param| {
            let scalar = matches!(
                m.values.get(param.value).map(|d| &d.ty),
                Some(Type::Scalar(_))
            );
            p.name(param.value)?;
            p.out.write_str(": ")?;
            p.value_ty(param.value)?;
            if param.direction != Direction::In || !scalar {
                write!(p.out, " {}", param.direction.mark())?;
            }
            Ok(())
        })?;
        self.out.write_char(')')?;
        if !func.sig.returns.is_empty() {
            self.out.write_str(" -> (")?;
            self.list(&func.sig.returns, |p, t| p.ty(t))?;
            self.out.write_char(')')?;
        }
        if !func.attrs.is_empty() {
            self.out.write_str(" attributes ")?;
            self.dict(func.attrs.0.iter(), false)?;
        }
        writeln!(self.out, " {{")?;
        // The input scope holds no statements in a well-formed module; print any it has so
        // nothing is hidden (the parser puts every statement in the body).
        if let Some(b) = m.blocks.get(func.inputs) {
            for &s in &b.stmts {
                self.stmt(s, 2, 0)?;
            }
        }
        self.block_stmts(func.body, 2, 1)?;
        self.line(1, "}")?;
        write!(self.out, "  // func.kind = {}", func.kind.name())?;
        // Symbolic dimensions are int64 unless recorded here (the types only name them).
        for &d in &func.dims {
            if let Some(Type::Scalar(dt)) = m.values.get(d).map(|v| &v.ty)
                && *dt != crate::DataType::Int64
            {
                write!(self.out, ", dim {} : {}", m.ssa_name(d), dt.name())?;
            }
        }
        writeln!(self.out)
    }

    fn block_stmts(&mut self, b: BlockId, level: usize, depth: usize) -> fmt::Result {
        if depth > MAX_NESTING {
            return self.line(level, "// <nesting too deep>");
        }
        match self.m.blocks.get(b) {
            Some(block) => {
                for &s in &block.stmts {
                    self.stmt(s, level, depth + 1)?;
                }
                Ok(())
            }
            None => self.line(level, &format!("// <invalid block {b:?}>")),
        }
    }

    /// ` -> (T, ..)` when the parser could not derive the result types from the header.
    fn result_annotation(&mut self, kind: &StmtKind, results: &[ValueId]) -> fmt::Result {
        let m = self.m;
        let Some(actual) = results
            .iter()
            .map(|&v| m.values.get(v).map(|d| d.ty.clone()))
            .collect::<Option<Vec<Type>>>()
        else {
            return Ok(());
        };
        if derived_result_types(m, kind).as_ref() == Some(&actual) {
            return Ok(());
        }
        self.out.write_str(" -> (")?;
        self.list(&actual, |p, t| p.ty(t))?;
        self.out.write_char(')')
    }

    fn lhs(&mut self, results: &[ValueId]) -> fmt::Result {
        if results.is_empty() {
            return Ok(());
        }
        self.names(results)?;
        self.out.write_str(" = ")
    }

    fn iter_args(&mut self, args: &[crate::stmt::IterArg]) -> fmt::Result {
        if args.is_empty() {
            return Ok(());
        }
        self.out.write_str(" iter_args(")?;
        self.list(args, |p, a| {
            p.name(a.arg)?;
            p.out.write_str(" = ")?;
            p.name(a.init)?;
            p.out.write_str(" : ")?;
            p.value_ty(a.arg)
        })?;
        self.out.write_char(')')
    }

    fn stmt(&mut self, s: StmtId, level: usize, depth: usize) -> fmt::Result {
        let m = self.m;
        let Some(st) = m.stmts.get(s) else {
            return self.line(level, &format!("// <invalid statement {s:?}>"));
        };
        match &st.kind {
            StmtKind::Op(ops) => {
                self.line(level, "statement.op {")?;
                for &op in ops {
                    self.op(op, level + 1)?;
                }
                self.line(level, "}")
            }
            StmtKind::For(f) => {
                self.indent(level)?;
                self.lhs(&f.results)?;
                self.out.write_str("statement.for ")?;
                self.name(f.iv)?;
                if let Some(d) = m.values.get(f.iv)
                    && d.ty != derived_iv_type(m, f.lb)
                {
                    self.out.write_str(" : ")?;
                    self.ty(&d.ty)?;
                }
                self.out.write_str(" = ")?;
                self.name(f.lb)?;
                self.out.write_str(" to ")?;
                self.name(f.ub)?;
                self.out.write_str(" step ")?;
                self.name(f.step)?;
                self.iter_args(&f.iter_args)?;
                let parallel = f.kind == ForKind::Parallel;
                if parallel || !f.attrs.is_empty() {
                    self.out.write_str(" {")?;
                    if parallel {
                        self.out.write_str("parallel")?;
                    }
                    for (i, (k, v)) in f.attrs.0.iter().enumerate() {
                        if i > 0 || parallel {
                            self.out.write_str(", ")?;
                        }
                        write!(self.out, "{k}=")?;
                        self.attr(v)?;
                    }
                    self.out.write_char('}')?;
                }
                self.result_annotation(&st.kind, &f.results)?;
                writeln!(self.out, " {{")?;
                self.block_stmts(f.body, level + 1, depth)?;
                self.line(level, "}")
            }
            StmtKind::If(i) => {
                self.indent(level)?;
                self.lhs(&i.results)?;
                self.out.write_str("statement.if ")?;
                self.name(i.cond)?;
                self.result_annotation(&st.kind, &i.results)?;
                writeln!(self.out, " {{")?;
                self.block_stmts(i.then_block, level + 1, depth)?;
                self.line(level, "} else {")?;
                self.block_stmts(i.else_block, level + 1, depth)?;
                self.line(level, "}")
            }
            StmtKind::While(w) => {
                self.indent(level)?;
                self.lhs(&w.results)?;
                self.out.write_str("statement.while")?;
                self.iter_args(&w.iter_args)?;
                self.result_annotation(&st.kind, &w.results)?;
                writeln!(self.out, " cond {{")?;
                self.block_stmts(w.cond_block, level + 1, depth)?;
                self.line(level, "} do {")?;
                self.block_stmts(w.body, level + 1, depth)?;
                self.line(level, "}")
            }
            StmtKind::Condition(c) => {
                self.indent(level)?;
                self.out.write_str("statement.condition ")?;
                self.name(*c)?;
                writeln!(self.out)
            }
            StmtKind::Yield(vs) => self.terminator(level, "statement.yield", vs),
            StmtKind::Return(vs) => self.terminator(level, "statement.return", vs),
            StmtKind::Break(vs) => self.terminator(level, "statement.break", vs),
            StmtKind::Continue(vs) => self.terminator(level, "statement.continue", vs),
            StmtKind::Scope(kind, b) => {
                self.indent(level)?;
                writeln!(self.out, "statement.scope {} {{", kind.name())?;
                self.block_stmts(*b, level + 1, depth)?;
                self.line(level, "}")
            }
        }
    }

    fn terminator(&mut self, level: usize, kw: &str, vs: &[ValueId]) -> fmt::Result {
        self.indent(level)?;
        self.out.write_str(kw)?;
        if !vs.is_empty() {
            self.out.write_char(' ')?;
            self.names(vs)?;
        }
        writeln!(self.out)
    }

    fn op(&mut self, id: OpId, level: usize) -> fmt::Result {
        let m = self.m;
        let Some(op) = m.ops.get(id) else {
            return self.line(level, &format!("// <invalid op {id:?}>"));
        };
        self.indent(level)?;
        self.lhs(&op.results)?;
        // Constant form: `%c = 3.14 : fp64`.
        if op.opcode.class() == OpClass::Const
            && op.operands.is_empty()
            && let [r] = op.results.as_slice()
            && let Some(c) = m.values.get(*r).and_then(|d| d.constant)
        {
            write!(self.out, "{c} : ")?;
            self.value_ty(*r)?;
            let literal = constant_attr(c);
            let is_extra = |(k, v): &&AttrEntry| k != "value" || !attr_identical(v, &literal);
            if op.attrs.0.iter().any(|e| is_extra(&e)) {
                self.out.write_char(' ')?;
                self.dict(op.attrs.0.iter().filter(is_extra), false)?;
            }
            return writeln!(self.out);
        }
        let callee = match (op.opcode, op.attrs.get("callee")) {
            (Opcode::Call, Some(Attr::Symbol(name))) => Some(name),
            _ => None,
        };
        match callee {
            Some(name) => {
                write!(self.out, "func.call @{name}(")?;
                self.names(&op.operands)?;
                self.out.write_str(") : (")?;
                self.types(&op.operands)?;
                self.out.write_str(") -> (")?;
                self.types(&op.results)?;
                self.out.write_char(')')?;
            }
            None => {
                self.out.write_str(&op.opcode.full_name())?;
                if !op.operands.is_empty() {
                    self.out.write_char(' ')?;
                    self.names(&op.operands)?;
                }
                self.out.write_str(" : (")?;
                self.types(&op.operands)?;
                self.out.write_str(") -> ")?;
                if op.results.len() == 1 {
                    self.types(&op.results)?;
                } else {
                    self.out.write_char('(')?;
                    self.types(&op.results)?;
                    self.out.write_char(')')?;
                }
            }
        }
        // A call's callee is printed as `@f(..)`, not in the dictionary.
        let shown = |(k, _): &&AttrEntry| callee.is_none() || k != "callee";
        if op.attrs.0.iter().any(|e| shown(&e)) {
            self.out.write_char(' ')?;
            self.dict(op.attrs.0.iter().filter(shown), false)?;
        }
        writeln!(self.out)
    }

    /// Spells an attribute dictionary: `{k=v, ..}`, or `{ k=v, .. }` when `spaced`.
    fn dict<'e>(
        &mut self,
        entries: impl Iterator<Item = &'e AttrEntry>,
        spaced: bool,
    ) -> fmt::Result {
        self.out.write_char('{')?;
        let mut n = 0;
        for (k, v) in entries {
            let sep = match (n, spaced) {
                (0, true) => " ",
                (0, false) => "",
                _ => ", ",
            };
            write!(self.out, "{sep}{k}=")?;
            self.attr(v)?;
            n += 1;
        }
        if spaced && n > 0 {
            self.out.write_char(' ')?;
        }
        self.out.write_char('}')
    }

    /// Spells one attribute value.
    fn attr(&mut self, a: &Attr) -> fmt::Result {
        match a {
            Attr::Int(v) => write!(self.out, "{v}"),
            Attr::Float(v) => write!(self.out, "{}", Constant::Double(*v)),
            Attr::Str(s) => self.out.write_str(&escape(s)),
            Attr::Bool(b) => write!(self.out, "{b}"),
            Attr::Value(v) => self.name(*v),
            Attr::Ident(s) => self.out.write_str(s),
            Attr::Symbol(s) => write!(self.out, "@{s}"),
            Attr::List(items) => {
                self.out.write_char('[')?;
                self.list(items, |p, x| p.attr(x))?;
                self.out.write_char(']')
            }
            Attr::Map(items) => self.dict(items.iter(), true),
        }
    }
}
