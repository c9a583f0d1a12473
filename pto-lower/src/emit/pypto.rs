//! The module as PyPTO's Python DSL (seed 004's grammar; `pto-opt --emit=pypto`), so a PyPTO
//! user can read a pto-rs program in the notation they know.
//!
//! It prints the statement-level module (before or after any pass), one `@pl.function` method
//! per function inside a `@pl.program` class, and follows seed 004's SSA spelling:
//! - `for i, (acc,) in pl.range(lb, ub, step, init_values=(init,)):` and `pl.parallel(..)` for
//!   a parallel loop; a `yield` assigns the enclosing statement's results,
//!   `acc_out = pl.yield_(v)`, as PyPTO's `if` does, so every result is named where its value
//!   is chosen;
//! - `while`: `while c:` when the loop carries nothing and its condition needs no ops, else
//!   `for (x,) in pl.while_(init_values=(x0,)):` whose body starts with the condition's ops and
//!   `pl.cond(c)`;
//! - `break` with values assigns the loop's results first (`r = pl.yield_(v)` then `break`);
//!   `continue` with values rebinds the iteration arguments (`acc = v` then `continue`);
//! - `statement.scope incore` is `with pl.incore():`; a call is `self.f(..)`;
//! - every assignment carries its type (`y: pl.Tile[[16, 64], pl.FP32] = pl.exp(x)`), except
//!   the tuple assignments PyPTO cannot annotate.
//!
//! Ops: scalar ops whose meaning is a PyPTO expression node (seed 004: `Add`, `FloorDiv`,
//! `FloatDiv`, `Pow`, `Eq`, `And`, `BitShiftLeft`, `Neg`, `Not`, `BitNot`, `Cast`, ...) print as
//! the Python operator or builtin for that node; tile and tensor ops print through PyPTO's
//! unified dispatch, `pl.<op>(operands.., attrs)` (`pl.load(t, offsets, shape)`,
//! `pl.store(tile, offsets, out)`, `pl.maximum`); everything with no PyPTO node of the same
//! meaning (integer `/` and `%`, which truncate; the lowering's moves) prints as the explicit
//! namespace call `pl.scalar.div(a, b)` / `pl.tile.move(..)`. Constants print as Python
//! literals at their uses. Symbolic dimensions are bound at the top of the body from the
//! parameter that carries them (`B_1 = x_2.shape[0]`), and a dimension known only at run time
//! is `pl.DYNAMIC`. Module attributes are `# attr key = value` comments.

use std::fmt::Write;

use pto_ir::sem::{Binary, Compare, Logic, Sem, Unary};
use pto_ir::stmt::{ForKind, StmtKind};
use pto_ir::{
    Attr, Attrs, BlockId, DataType, Dim, Direction, Function, FunctionKind, OpClass, OpId,
    ProgramModule, StmtId, Type, ValueId,
};

use crate::passes::events::{EventRole, event_iter};

/// The module as PyPTO Python source.
pub fn emit_pypto(m: &ProgramModule) -> String {
    let mut w = Writer {
        m,
        out: String::new(),
        depth: 0,
        targets: Vec::new(),
    };
    w.module();
    w.out
}

/// What a `yield`, `break` or `continue` at the current point assigns.
#[derive(Clone, Copy)]
enum Target {
    /// An `if` branch: `yield` assigns the `if`'s results.
    Branch(StmtId),
    /// A loop body: `yield` and `break` assign the loop's results, `continue` its iteration
    /// arguments.
    Loop(StmtId),
}

struct Writer<'a> {
    m: &'a ProgramModule,
    out: String,
    depth: usize,
    /// Enclosing `if`s and loops, innermost last.
    targets: Vec<Target>,
}

impl Writer<'_> {
    fn line(&mut self, text: &str) {
        if text.is_empty() {
            self.out.push('\n');
        } else {
            let _ = writeln!(self.out, "{:indent$}{text}", "", indent = 4 * self.depth);
        }
    }

    fn module(&mut self) {
        let m = self.m;
        self.line(&format!("# pypto.program: {}", m.name));
        self.line("import pypto.language as pl");
        for (key, value) in &m.attrs.0 {
            self.line(&format!("# attr {key} = {}", self.attr(value)));
        }
        self.line("");
        self.line("");
        self.line("@pl.program");
        self.line(&format!("class {}:", m.name));
        self.depth += 1;
        for (i, &f) in m.functions.iter().enumerate() {
            if i > 0 {
                self.line("");
            }
            self.function(&m.funcs[f], m.entry == Some(f));
        }
        if m.functions.is_empty() {
            self.line("pass");
        }
        self.depth -= 1;
    }

    fn function(&mut self, f: &Function, entry: bool) {
        let m = self.m;
        if entry {
            self.line("# entry");
        }
        self.line(&format!(
            "@pl.function(type=pl.FunctionType.{})  # func.kind = {}",
            function_type(f.kind),
            f.kind.name()
        ));
        let mut params = vec!["self".to_string()];
        for p in &f.sig.params {
            let ty = self.ty(m.ty(p.value));
            let ty = match p.direction {
                Direction::In => ty,
                Direction::Out => format!("pl.Out[{ty}]"),
                Direction::InOut => format!("pl.InOut[{ty}]"),
            };
            params.push(format!("{}: {ty}", self.name(p.value)));
        }
        let returns = match f.sig.returns.as_slice() {
            [] => String::new(),
            [t] => format!(" -> {}", self.ty(t)),
            ts => {
                let ts: Vec<String> = ts.iter().map(|t| self.ty(t)).collect();
                format!(" -> tuple[{}]", ts.join(", "))
            }
        };
        let attrs: Vec<String> = f
            .attrs
            .0
            .iter()
            .map(|(k, v)| format!("{k}={}", self.attr(v)))
            .collect();
        if !attrs.is_empty() {
            self.line(&format!("# attributes {{{}}}", attrs.join(", ")));
        }
        self.line(&format!("def {}({}){returns}:", f.name, params.join(", ")));
        self.depth += 1;
        let before = self.out.len();
        for &d in &f.dims {
            if let Some(source) = self.dim_source(f, d) {
                let line = format!("{} = {source}", self.name(d));
                self.line(&line);
            }
        }
        self.block(f.body);
        if self.out.len() == before {
            self.line("pass");
        }
        self.depth -= 1;
    }

    /// `x_2.shape[0]` for the first parameter whose type has `d` as an extent.
    fn dim_source(&self, f: &Function, d: ValueId) -> Option<String> {
        f.sig.params.iter().find_map(|p| {
            let extents: Vec<Dim> = match self.m.ty(p.value) {
                Type::Tensor(t) => t.shape.iter().copied().collect(),
                Type::Tile(t) => t.valid.iter().copied().collect(),
                _ => return None,
            };
            let axis = extents.iter().position(|e| *e == Dim::Value(d))?;
            Some(format!("{}.shape[{axis}]", self.name(p.value)))
        })
    }

    fn block(&mut self, b: BlockId) {
        let stmts: Vec<StmtId> = self.m.blocks[b].stmts.iter().copied().collect();
        for s in stmts {
            self.stmt(s);
        }
    }

    /// A nested block, `pass` when it prints nothing.
    fn body(&mut self, b: BlockId) {
        self.depth += 1;
        let before = self.out.len();
        self.block(b);
        if self.out.len() == before {
            self.line("pass");
        }
        self.depth -= 1;
    }

    fn stmt(&mut self, s: StmtId) {
        let m = self.m;
        match &m.stmts[s].kind {
            StmtKind::Op(ops) => {
                for &op in ops.iter() {
                    self.op(op);
                }
            }
            StmtKind::For(f) => {
                let range = if f.kind == ForKind::Parallel {
                    "pl.parallel"
                } else {
                    "pl.range"
                };
                let mut args = vec![self.operand(f.lb), self.operand(f.ub), self.operand(f.step)];
                let iv = self.name(f.iv);
                let head = if f.iter_args.is_empty() {
                    iv
                } else {
                    let inits: Vec<ValueId> = f.iter_args.iter().map(|a| a.init).collect();
                    let args_: Vec<ValueId> = f.iter_args.iter().map(|a| a.arg).collect();
                    args.push(format!("init_values={}", self.tuple(&inits)));
                    format!("{iv}, {}", self.tuple(&args_))
                };
                for (k, v) in &f.attrs.0 {
                    args.push(format!("{k}={}", self.attr(v)));
                }
                self.line(&format!("for {head} in {range}({}):", args.join(", ")));
                self.nested(Target::Loop(s), f.body);
            }
            StmtKind::If(i) => {
                self.line(&format!("if {}:", self.operand(i.cond)));
                self.nested(Target::Branch(s), i.then_block);
                self.line("else:");
                self.nested(Target::Branch(s), i.else_block);
            }
            StmtKind::While(w) => {
                let cond_block = &m.blocks[w.cond_block];
                let bare = match cond_block.stmts.as_slice() {
                    [only] => match m.stmts[*only].kind {
                        StmtKind::Condition(c) => Some(c),
                        _ => None,
                    },
                    _ => None,
                };
                match bare {
                    Some(c) if w.iter_args.is_empty() => {
                        self.line(&format!("while {}:", self.operand(c)));
                        self.nested(Target::Loop(s), w.body);
                    }
                    _ => {
                        let inits: Vec<ValueId> = w.iter_args.iter().map(|a| a.init).collect();
                        let args: Vec<ValueId> = w.iter_args.iter().map(|a| a.arg).collect();
                        self.line(&format!(
                            "for {} in pl.while_(init_values={}):",
                            self.tuple(&args),
                            self.tuple(&inits)
                        ));
                        self.targets.push(Target::Loop(s));
                        self.depth += 1;
                        self.block(w.cond_block);
                        self.block(w.body);
                        self.depth -= 1;
                        self.targets.pop();
                    }
                }
            }
            StmtKind::Condition(c) => {
                // Only reached in the `pl.while_` form: the bare form printed `while c:`.
                self.line(&format!("pl.cond({})", self.operand(*c)));
            }
            StmtKind::Yield(vals) => {
                if let Some(&t) = self.targets.last() {
                    self.assign_results(t, vals);
                }
            }
            StmtKind::Break(vals) => {
                if let Some(l) = self.innermost_loop() {
                    self.assign_results(l, vals);
                }
                self.line("break");
            }
            StmtKind::Continue(vals) => {
                if let Some(Target::Loop(l)) = self.innermost_loop()
                    && !vals.is_empty()
                {
                    let args = self.iter_args(l);
                    let targets: Vec<String> = args.iter().map(|&v| self.name(v)).collect();
                    let values: Vec<String> = vals.iter().map(|&v| self.operand(v)).collect();
                    self.line(&format!("{} = {}", targets.join(", "), values.join(", ")));
                }
                self.line("continue");
            }
            StmtKind::Return(vals) => {
                let vals: Vec<String> = vals.iter().map(|&v| self.operand(v)).collect();
                if vals.is_empty() {
                    self.line("return");
                } else {
                    self.line(&format!("return {}", vals.join(", ")));
                }
            }
            StmtKind::Scope(kind, b) => {
                self.line(&format!("with pl.{}():", kind.name()));
                self.body(*b);
            }
        }
    }

    fn nested(&mut self, t: Target, b: BlockId) {
        self.targets.push(t);
        self.body(b);
        self.targets.pop();
    }

    fn innermost_loop(&self) -> Option<Target> {
        self.targets
            .iter()
            .rev()
            .find(|t| matches!(t, Target::Loop(_)))
            .copied()
    }

    fn iter_args(&self, s: StmtId) -> Vec<ValueId> {
        match &self.m.stmts[s].kind {
            StmtKind::For(f) => f.iter_args.iter().map(|a| a.arg).collect(),
            StmtKind::While(w) => w.iter_args.iter().map(|a| a.arg).collect(),
            _ => Vec::new(),
        }
    }

    /// `r1, r2 = pl.yield_(a, b)` for the statement `t` names; nothing when it has no results.
    fn assign_results(&mut self, t: Target, vals: &[ValueId]) {
        let (Target::Branch(s) | Target::Loop(s)) = t;
        let results: Vec<ValueId> = match &self.m.stmts[s].kind {
            StmtKind::For(f) => f.results.iter().copied().collect(),
            StmtKind::If(i) => i.results.iter().copied().collect(),
            StmtKind::While(w) => w.results.iter().copied().collect(),
            _ => Vec::new(),
        };
        if results.is_empty() && vals.is_empty() {
            return;
        }
        let vals: Vec<String> = vals.iter().map(|&v| self.operand(v)).collect();
        let rhs = format!("pl.yield_({})", vals.join(", "));
        self.assign(&results, &rhs);
    }

    /// `name: T = rhs` for one result, `a, b = rhs` for several, `rhs` for none.
    fn assign(&mut self, results: &[ValueId], rhs: &str) {
        match results {
            [] => self.line(rhs),
            [r] => {
                let line = format!("{}: {} = {rhs}", self.name(*r), self.ty(self.m.ty(*r)));
                self.line(&line);
            }
            rs => {
                let names: Vec<String> = rs.iter().map(|&r| self.name(r)).collect();
                self.line(&format!("{} = {rhs}", names.join(", ")));
            }
        }
    }

    fn op(&mut self, id: OpId) {
        let op = &self.m.ops[id];
        let info = op.opcode.info();
        if info.class == OpClass::Const {
            return;
        }
        let a: Vec<String> = op.operands.iter().map(|&v| self.operand(v)).collect();
        let dtype = op.operands.first().and_then(|&v| self.m.ty(v).dtype());
        let rhs = if info.class == OpClass::Call {
            let callee = match op.attrs.get("callee") {
                Some(Attr::Symbol(s) | Attr::Str(s) | Attr::Ident(s)) => s.clone(),
                _ => "unknown".to_string(),
            };
            let attrs: Vec<String> = op
                .attrs
                .0
                .iter()
                .filter(|(k, _)| k != "callee")
                .map(|(k, v)| format!("{k}={}", self.attr(v)))
                .collect();
            let note = if attrs.is_empty() {
                String::new()
            } else {
                format!("  # {}", attrs.join(", "))
            };
            format!("self.{callee}({}){note}", a.join(", "))
        } else if info.class.is_scalar() {
            let to = op.attrs.get("dtype").map(|d| self.attr(d));
            if let (Sem::Cast, [x], Some(to)) = (info.sem, a.as_slice(), to) {
                format!("pl.cast({x}, {to})")
            } else {
                scalar_expr(info.sem, dtype, &a).unwrap_or_else(|| {
                    self.call(
                        &format!("pl.{}.{}", info.dialect, info.mnemonic),
                        &a,
                        &op.attrs,
                    )
                })
            }
        } else {
            match (info.class, a.as_slice()) {
                (OpClass::Load, [t]) => format!(
                    "pl.load({t}, {}, {})",
                    self.attr_or(&op.attrs, "offset"),
                    self.attr_or(&op.attrs, "shape")
                ),
                (OpClass::Store, [tile, t]) => format!(
                    "pl.store({tile}, {}, {t})",
                    self.attr_or(&op.attrs, "offset")
                ),
                (OpClass::Move, _) => self.call("pl.tile.move", &a, &op.attrs),
                _ => {
                    let name = match info.mnemonic {
                        "max" => "maximum",
                        "min" => "minimum",
                        other => other,
                    };
                    self.call(&format!("pl.{name}"), &a, &op.attrs)
                }
            }
        };
        let results: Vec<ValueId> = op.results.iter().copied().collect();
        self.sync(&op.attrs, EventRole::Wait);
        self.assign(&results, &rhs);
        self.sync(&op.attrs, EventRole::Set);
        self.sync(&op.attrs, EventRole::Sync);
    }

    /// An op's events (from `insert-events`) as PyPTO's synchronisation calls: the flags it
    /// waits for before it (`sync_dst`), those it sets after it (`sync_src`; a `sync` event
    /// is set and waited for at once).
    fn sync(&mut self, attrs: &Attrs, role: EventRole) {
        for (src, dst, id) in event_iter(attrs, role.key()) {
            let pipes = format!(
                "set_pipe=pl.PipeType.{}, wait_pipe=pl.PipeType.{}, event_id={id}",
                src.name(),
                dst.name()
            );
            if role != EventRole::Wait {
                self.line(&format!("pl.system.sync_src({pipes})"));
            }
            if role != EventRole::Set {
                self.line(&format!("pl.system.sync_dst({pipes})"));
            }
        }
    }

    /// `f(a, b, key=value, ..)`.
    fn call(&self, f: &str, args: &[String], attrs: &Attrs) -> String {
        let mut all: Vec<String> = args.to_vec();
        all.extend(
            attrs
                .0
                .iter()
                .filter(|(k, _)| !is_printed_apart(k))
                .map(|(k, v)| format!("{k}={}", self.attr(v))),
        );
        format!("{f}({})", all.join(", "))
    }

    fn attr_or(&self, attrs: &Attrs, key: &str) -> String {
        attrs.get(key).map_or("[]".to_string(), |a| self.attr(a))
    }

    /// An attribute as a Python expression.
    fn attr(&self, a: &Attr) -> String {
        match a {
            Attr::Int(v) => v.to_string(),
            Attr::Float(v) => py_float(*v),
            Attr::Str(s) => py_str(s),
            Attr::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            Attr::Value(v) => self.operand(*v),
            Attr::Ident(w) => match (DataType::from_name(w), pto_ir::MemorySpace::from_name(w)) {
                (Some(d), _) => py_dtype(d),
                (None, Some(space)) => format!("pl.MemorySpace.{}", space.name()),
                (None, None) => py_str(w),
            },
            Attr::Symbol(s) => format!("self.{s}"),
            Attr::List(items) => {
                let items: Vec<String> = items.iter().map(|i| self.attr(i)).collect();
                format!("[{}]", items.join(", "))
            }
            Attr::Map(items) => {
                let items: Vec<String> = items
                    .iter()
                    .map(|(k, v)| format!("{}: {}", py_str(k), self.attr(v)))
                    .collect();
                format!("{{{}}}", items.join(", "))
            }
        }
    }

    /// A value's Python name: `x_3`, or `v3` for an unnamed value.
    fn name(&self, v: ValueId) -> String {
        let d = self.m.value(v);
        match &d.name {
            Some(n) => format!("{n}_{}", d.number),
            None => format!("v{}", d.number),
        }
    }

    /// A use: the literal for a constant, the name otherwise.
    fn operand(&self, v: ValueId) -> String {
        match self.m.value(v).constant {
            Some(c) => {
                let float = matches!(self.m.ty(v), Type::Scalar(d) if d.is_float());
                match c {
                    pto_ir::Constant::Bool(b) => if b { "True" } else { "False" }.to_string(),
                    _ if float => py_float(c.as_f64()),
                    pto_ir::Constant::SizeT(u) => u.to_string(),
                    _ => c.as_i64().to_string(),
                }
            }
            None => self.name(v),
        }
    }

    /// `(a,)`, `(a, b)`: a Python tuple of uses.
    fn tuple(&self, vals: &[ValueId]) -> String {
        let items: Vec<String> = vals.iter().map(|&v| self.operand(v)).collect();
        match items.as_slice() {
            [one] => format!("({one},)"),
            _ => format!("({})", items.join(", ")),
        }
    }

    fn dim(&self, d: &Dim) -> String {
        match d {
            Dim::Const(c) => c.to_string(),
            Dim::Value(v) => self.operand(*v),
            Dim::Dynamic => "pl.DYNAMIC".to_string(),
        }
    }

    /// A type in PyPTO's subscript notation.
    fn ty(&self, t: &Type) -> String {
        match t {
            Type::Scalar(d) => format!("pl.Scalar[{}]", py_dtype(*d)),
            Type::Tensor(t) => {
                let shape: Vec<String> = t.shape.iter().map(|d| self.dim(d)).collect();
                format!("pl.Tensor[[{}], {}]", shape.join(", "), py_dtype(t.dtype))
            }
            Type::Tile(t) => {
                let shape: Vec<String> = t.shape.iter().map(u64::to_string).collect();
                let mut s = format!("pl.Tile[[{}], {}", shape.join(", "), py_dtype(t.dtype));
                if let Some(mr) = t.memref {
                    let addr = mr.addr.map_or("None".to_string(), |a| a.to_string());
                    let _ = write!(
                        s,
                        ", pl.MemRef(pl.MemorySpace.{}, {addr}, {})",
                        mr.space.name(),
                        mr.size
                    );
                }
                if !t.is_fully_valid() {
                    let valid: Vec<String> = t.valid.iter().map(|d| self.dim(d)).collect();
                    let _ = write!(s, ", pl.TileView(valid_shape=[{}])", valid.join(", "));
                }
                s.push(']');
                s
            }
            Type::Tuple(ts) => {
                let ts: Vec<String> = ts.iter().map(|t| self.ty(t)).collect();
                format!("tuple[{}]", ts.join(", "))
            }
            Type::Pipe(p) => format!("pl.PipeType.{}", p.name()),
            Type::Unknown => "pl.UnknownType".to_string(),
        }
    }
}

/// Attributes printed as something else than a keyword argument: the callee, the events.
fn is_printed_apart(key: &str) -> bool {
    key == "callee" || EventRole::ALL.iter().any(|r| r.key() == key)
}

/// Seed 004's `FunctionType` for a function kind: a kernel runs on one AICore (`InCore`), a
/// control-flow function on the host / AICPU (`Orchestration`); a data-flow function has no
/// seed-004 counterpart (`Opaque`). Seed-004 kinds are themselves.
fn function_type(kind: FunctionKind) -> &'static str {
    match kind {
        FunctionKind::Kernel | FunctionKind::InCore => "InCore",
        FunctionKind::ControlFlow | FunctionKind::Orchestration => "Orchestration",
        FunctionKind::DataFlow | FunctionKind::Opaque => "Opaque",
    }
}

/// The Python expression for a scalar op whose meaning is a PyPTO expression node, or `None`
/// when PyPTO has no node of that meaning (integer division and remainder truncate here).
fn scalar_expr(sem: Sem, dtype: Option<DataType>, a: &[String]) -> Option<String> {
    let float = dtype.is_some_and(DataType::is_float);
    // A negative literal is parenthesised: `-7 ** n` would be `-(7 ** n)` in Python.
    let paren = |x: &String| {
        if x.starts_with('-') {
            format!("({x})")
        } else {
            x.clone()
        }
    };
    let infix = |op: &str| match a {
        [x, y] => Some(format!("{} {op} {}", paren(x), paren(y))),
        _ => None,
    };
    match sem {
        Sem::Binary(b) => match b {
            Binary::Add => infix("+"),
            Binary::Sub => infix("-"),
            Binary::Mul => infix("*"),
            Binary::Div if float => infix("/"),
            Binary::FloorDiv => infix("//"),
            Binary::FloorMod => infix("%"),
            Binary::Pow => infix("**"),
            Binary::Min => Some(format!("min({})", a.join(", "))),
            Binary::Max => Some(format!("max({})", a.join(", "))),
            Binary::BitAnd => infix("&"),
            Binary::BitOr => infix("|"),
            Binary::BitXor => infix("^"),
            Binary::Shl => infix("<<"),
            Binary::Shr => infix(">>"),
            Binary::Div | Binary::Rem => None,
        },
        Sem::Compare(c) => infix(match c {
            Compare::Eq => "==",
            Compare::Ne => "!=",
            Compare::Lt => "<",
            Compare::Le => "<=",
            Compare::Gt => ">",
            Compare::Ge => ">=",
        }),
        Sem::Logic(l) => infix(match l {
            Logic::And => "and",
            Logic::Or => "or",
            Logic::Xor => "^",
        }),
        Sem::Unary(u) => match (u, a) {
            (Unary::Neg, [x]) => Some(format!("-{x}")),
            (Unary::Abs, [x]) => Some(format!("abs({x})")),
            (Unary::Not, [x]) if dtype == Some(DataType::Bool) => Some(format!("not {x}")),
            (Unary::Not, [x]) => Some(format!("~{x}")),
            _ => None,
        },
        Sem::Cast | Sem::Select | Sem::None => None,
    }
}

/// `pl.FP32`, `pl.INT64`, `pl.BOOL`: PyPTO's dtype constants.
fn py_dtype(d: DataType) -> String {
    format!("pl.{}", d.name().to_ascii_uppercase())
}

/// A Python float literal: always with a `.` or exponent; `float("inf")` / `float("nan")`.
fn py_float(v: f64) -> String {
    if v.is_nan() {
        "float(\"nan\")".to_string()
    } else if v.is_infinite() {
        if v > 0.0 {
            "float(\"inf\")"
        } else {
            "float(\"-inf\")"
        }
        .to_string()
    } else {
        let s = format!("{v:?}");
        if s.contains(['.', 'e']) {
            s
        } else {
            format!("{s}.0")
        }
    }
}

/// A Python string literal with Python's escapes.
fn py_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\U{:08x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_python() {
        assert_eq!(py_float(1.0), "1.0");
        assert_eq!(py_float(-2.5e-30), "-2.5e-30");
        assert_eq!(py_float(f64::NEG_INFINITY), "float(\"-inf\")");
        assert_eq!(py_float(f64::NAN), "float(\"nan\")");
        assert_eq!(
            py_str("a\"b\\c\nd\u{1b}é"),
            "\"a\\\"b\\\\c\\nd\\U0000001bé\""
        );
        assert_eq!(py_dtype(DataType::Bf16), "pl.BF16");
    }

    #[test]
    fn scalar_ops_map_to_nodes_of_the_same_meaning() {
        let a = ["x".to_string(), "-7".to_string()];
        let expr = |sem, d| scalar_expr(sem, Some(d), &a);
        assert_eq!(
            expr(Sem::Binary(Binary::Pow), DataType::Int64).as_deref(),
            Some("x ** (-7)")
        );
        assert_eq!(
            expr(Sem::Binary(Binary::Div), DataType::Fp32).as_deref(),
            Some("x / (-7)")
        );
        // Integer `/` and `%` truncate; Python's `//` and `%` floor.
        assert_eq!(expr(Sem::Binary(Binary::Div), DataType::Int64), None);
        assert_eq!(expr(Sem::Binary(Binary::Rem), DataType::Fp32), None);
        assert_eq!(
            expr(Sem::Binary(Binary::FloorMod), DataType::Int32).as_deref(),
            Some("x % (-7)")
        );
        assert_eq!(
            expr(Sem::Logic(Logic::And), DataType::Bool).as_deref(),
            Some("x and (-7)")
        );
        let one = ["b".to_string()];
        assert_eq!(
            scalar_expr(Sem::Unary(Unary::Not), Some(DataType::Bool), &one).as_deref(),
            Some("not b")
        );
        assert_eq!(
            scalar_expr(Sem::Unary(Unary::Not), Some(DataType::Int8), &one).as_deref(),
            Some("~b")
        );
    }
}
