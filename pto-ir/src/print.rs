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

use crate::attr::{Attr, Attrs};
use crate::entity::{BlockId, OpId, StmtId, ValueId};
use crate::module::{Direction, Function, ProgramModule};
use crate::ops::{OpClass, Opcode};
use crate::parse::lexer::escape;
use crate::stmt::{ForKind, StmtKind};
use crate::typefmt::{type_str, write_type};
use crate::types::Type;
use crate::value::Constant;

/// Blocks nested deeper than this print a marker instead of recursing (only a malformed,
/// cyclic module gets there).
const MAX_DEPTH: usize = 200;

impl fmt::Display for ProgramModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        Printer {
            m: self,
            out: &mut out,
        }
        .module();
        f.write_str(&out)
    }
}

struct Printer<'a> {
    m: &'a ProgramModule,
    out: &'a mut String,
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

impl Printer<'_> {
    fn name(&self, v: ValueId) -> String {
        self.m.ssa_name(v)
    }

    fn ty(&self, v: ValueId) -> String {
        match self.m.values.get(v) {
            Some(d) => type_str(self.m, &d.ty),
            None => "<invalid>".to_string(),
        }
    }

    fn names(&self, vs: &[ValueId]) -> String {
        let mut s = String::new();
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            self.m.write_ssa_name(v, &mut s);
        }
        s
    }

    fn types(&self, vs: &[ValueId]) -> String {
        let mut s = String::new();
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            match self.m.values.get(v) {
                Some(d) => write_type(self.m, &d.ty, &mut s),
                None => s.push_str("<invalid>"),
            }
        }
        s
    }

    fn indent(&mut self, level: usize) {
        for _ in 0..level {
            self.out.push_str("  ");
        }
    }

    fn line(&mut self, level: usize, s: &str) {
        self.indent(level);
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn module(&mut self) {
        let m = self.m;
        let _ = writeln!(self.out, "program.module @{} {{", m.name);
        if let Some(e) = m.entry {
            let name = m.funcs.get(e).map_or("<invalid>", |f| f.name.as_str());
            self.line(1, &format!("program.entry @{name}"));
        }
        for (k, v) in &m.attrs.0 {
            let s = format!("attr {k} = {}", attr_str(m, v));
            self.line(1, &s);
        }
        for (i, &fid) in m.functions.iter().enumerate() {
            if i > 0 {
                self.out.push('\n');
            }
            match m.funcs.get(fid) {
                Some(func) => self.function(func),
                None => self.line(1, &format!("// <invalid function {fid:?}>")),
            }
        }
        self.out.push_str("}\n");
    }

    fn function(&mut self, func: &Function) {
        let m = self.m;
        let mut head = format!("func.func @{}(", func.name);
        for (i, p) in func.sig.params.iter().enumerate() {
            if i > 0 {
                head.push_str(", ");
            }
            let scalar = matches!(m.values.get(p.value).map(|d| &d.ty), Some(Type::Scalar(_)));
            let _ = write!(head, "{}: {}", self.name(p.value), self.ty(p.value));
            if p.direction != Direction::In || !scalar {
                let _ = write!(head, " {}", p.direction.mark());
            }
        }
        head.push(')');
        if !func.sig.returns.is_empty() {
            let rets: Vec<String> = func.sig.returns.iter().map(|t| type_str(m, t)).collect();
            let _ = write!(head, " -> ({})", rets.join(", "));
        }
        if !func.attrs.is_empty() {
            let _ = write!(head, " attributes {}", dict_str(m, &func.attrs, false));
        }
        head.push_str(" {");
        self.line(1, &head);
        // The input scope holds no statements in a well-formed module; print any it has so
        // nothing is hidden (the parser puts every statement in the body).
        if let Some(b) = m.blocks.get(func.inputs) {
            for &s in &b.stmts {
                self.stmt(s, 2, 0);
            }
        }
        self.block_stmts(func.body, 2, 0);
        self.line(1, "}");
        self.line(1, &format!("// func.kind = {}", func.kind.name()));
    }

    fn block_stmts(&mut self, b: BlockId, level: usize, depth: usize) {
        if depth > MAX_DEPTH {
            self.line(level, "// <nesting too deep>");
            return;
        }
        match self.m.blocks.get(b) {
            Some(block) => {
                for &s in &block.stmts {
                    self.stmt(s, level, depth + 1);
                }
            }
            None => self.line(level, &format!("// <invalid block {b:?}>")),
        }
    }

    /// ` -> (T, ..)` when the parser could not derive the result types from the header.
    fn result_annotation(&self, kind: &StmtKind, results: &[ValueId]) -> String {
        let actual: Option<Vec<Type>> = results
            .iter()
            .map(|&v| self.m.values.get(v).map(|d| d.ty.clone()))
            .collect();
        let Some(actual) = actual else {
            return String::new();
        };
        if derived_result_types(self.m, kind).as_ref() == Some(&actual) {
            return String::new();
        }
        let tys: Vec<String> = actual.iter().map(|t| type_str(self.m, t)).collect();
        format!(" -> ({})", tys.join(", "))
    }

    fn lhs(&self, results: &[ValueId]) -> String {
        if results.is_empty() {
            String::new()
        } else {
            format!("{} = ", self.names(results))
        }
    }

    fn iter_args(&self, args: &[crate::stmt::IterArg]) -> String {
        if args.is_empty() {
            return String::new();
        }
        let items: Vec<String> = args
            .iter()
            .map(|a| {
                format!(
                    "{} = {} : {}",
                    self.name(a.arg),
                    self.name(a.init),
                    self.ty(a.arg)
                )
            })
            .collect();
        format!(" iter_args({})", items.join(", "))
    }

    fn stmt(&mut self, s: StmtId, level: usize, depth: usize) {
        let m = self.m;
        let Some(st) = m.stmts.get(s) else {
            self.line(level, &format!("// <invalid statement {s:?}>"));
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
                let iv_ty = match m.values.get(f.iv) {
                    Some(d) if d.ty != derived_iv_type(m, f.lb) => {
                        format!(" : {}", type_str(m, &d.ty))
                    }
                    _ => String::new(),
                };
                let mut head = format!(
                    "{}statement.for {}{iv_ty} = {} to {} step {}{}",
                    self.lhs(&f.results),
                    self.name(f.iv),
                    self.name(f.lb),
                    self.name(f.ub),
                    self.name(f.step),
                    self.iter_args(&f.iter_args)
                );
                let parallel = f.kind == ForKind::Parallel;
                if parallel || !f.attrs.is_empty() {
                    let mut items = Vec::new();
                    if parallel {
                        items.push("parallel".to_string());
                    }
                    items.extend(
                        f.attrs
                            .0
                            .iter()
                            .map(|(k, v)| format!("{k}={}", attr_str(m, v))),
                    );
                    let _ = write!(head, " {{{}}}", items.join(", "));
                }
                head.push_str(&self.result_annotation(&st.kind, &f.results));
                head.push_str(" {");
                self.line(level, &head);
                self.block_stmts(f.body, level + 1, depth);
                self.line(level, "}");
            }
            StmtKind::If(i) => {
                let head = format!(
                    "{}statement.if {}{} {{",
                    self.lhs(&i.results),
                    self.name(i.cond),
                    self.result_annotation(&st.kind, &i.results)
                );
                self.line(level, &head);
                self.block_stmts(i.then_block, level + 1, depth);
                self.line(level, "} else {");
                self.block_stmts(i.else_block, level + 1, depth);
                self.line(level, "}");
            }
            StmtKind::While(w) => {
                let head = format!(
                    "{}statement.while{}{} cond {{",
                    self.lhs(&w.results),
                    self.iter_args(&w.iter_args),
                    self.result_annotation(&st.kind, &w.results)
                );
                self.line(level, &head);
                self.block_stmts(w.cond_block, level + 1, depth);
                self.line(level, "} do {");
                self.block_stmts(w.body, level + 1, depth);
                self.line(level, "}");
            }
            StmtKind::Condition(c) => {
                let s = format!("statement.condition {}", self.name(*c));
                self.line(level, &s);
            }
            StmtKind::Yield(vs) => self.terminator(level, "statement.yield", vs),
            StmtKind::Return(vs) => self.terminator(level, "statement.return", vs),
            StmtKind::Break(vs) => self.terminator(level, "statement.break", vs),
            StmtKind::Continue(vs) => self.terminator(level, "statement.continue", vs),
            StmtKind::Scope(kind, b) => {
                self.line(level, &format!("statement.scope {} {{", kind.name()));
                self.block_stmts(*b, level + 1, depth);
                self.line(level, "}");
            }
        }
    }

    fn terminator(&mut self, level: usize, kw: &str, vs: &[ValueId]) {
        let s = if vs.is_empty() {
            kw.to_string()
        } else {
            format!("{kw} {}", self.names(vs))
        };
        self.line(level, &s);
    }

    fn op(&mut self, id: OpId, level: usize) {
        let m = self.m;
        let Some(op) = m.ops.get(id) else {
            self.line(level, &format!("// <invalid op {id:?}>"));
            return;
        };
        let mut s = self.lhs(&op.results);
        // Constant form: `%c = 3.14 : fp64`.
        if op.opcode.class() == OpClass::Const
            && op.operands.is_empty()
            && let [r] = op.results.as_slice()
            && let Some(c) = m.values.get(*r).and_then(|d| d.constant)
        {
            let _ = write!(s, "{c} : {}", self.ty(*r));
            let literal = constant_attr(c);
            let extra: Vec<(String, Attr)> = op
                .attrs
                .0
                .iter()
                .filter(|(k, v)| k != "value" || !attr_identical(v, &literal))
                .cloned()
                .collect();
            if !extra.is_empty() {
                let _ = write!(s, " {}", dict_str(m, &Attrs(extra), false));
            }
            self.line(level, &s);
            return;
        }
        let callee = match op.attrs.get("callee") {
            Some(Attr::Symbol(name)) if op.opcode == Opcode::Call => Some(name.clone()),
            _ => None,
        };
        let attrs: Vec<(String, Attr)> = match &callee {
            Some(_) => op
                .attrs
                .0
                .iter()
                .filter(|(k, _)| k != "callee")
                .cloned()
                .collect(),
            None => op.attrs.0.clone(),
        };
        match &callee {
            Some(name) => {
                let _ = write!(
                    s,
                    "func.call @{name}({}) : ({}) -> ({})",
                    self.names(&op.operands),
                    self.types(&op.operands),
                    self.types(&op.results)
                );
            }
            None => {
                s.push_str(&op.opcode.full_name());
                if !op.operands.is_empty() {
                    let _ = write!(s, " {}", self.names(&op.operands));
                }
                let _ = write!(s, " : ({}) -> ", self.types(&op.operands));
                if op.results.len() == 1 {
                    s.push_str(&self.types(&op.results));
                } else {
                    let _ = write!(s, "({})", self.types(&op.results));
                }
            }
        }
        if !attrs.is_empty() {
            let _ = write!(s, " {}", dict_str(m, &Attrs(attrs), false));
        }
        self.line(level, &s);
    }
}

/// Spells an attribute dictionary: `{k=v, ..}`, or `{ k=v, .. }` when `spaced`.
fn dict_str(m: &ProgramModule, attrs: &Attrs, spaced: bool) -> String {
    let items: Vec<String> = attrs
        .0
        .iter()
        .map(|(k, v)| format!("{k}={}", attr_str(m, v)))
        .collect();
    if spaced && !items.is_empty() {
        format!("{{ {} }}", items.join(", "))
    } else {
        format!("{{{}}}", items.join(", "))
    }
}

/// Spells one attribute value.
pub(crate) fn attr_str(m: &ProgramModule, a: &Attr) -> String {
    match a {
        Attr::Int(v) => v.to_string(),
        Attr::Float(v) => Constant::Double(*v).to_string(),
        Attr::Str(s) => escape(s),
        Attr::Bool(b) => b.to_string(),
        Attr::Value(v) => m.ssa_name(*v),
        Attr::Ident(s) => s.clone(),
        Attr::Symbol(s) => format!("@{s}"),
        Attr::List(items) => {
            let parts: Vec<String> = items.iter().map(|x| attr_str(m, x)).collect();
            format!("[{}]", parts.join(", "))
        }
        Attr::Map(items) => dict_str(m, &Attrs(items.clone()), true),
    }
}
