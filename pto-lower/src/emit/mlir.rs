//! Seed-002 MLIR text of a lowered kernel (`shared/spec/ir-text.md` section 2), in two forms:
//! the custom form of `NAME::LOWERED` (`pto.tile.load %x[%i, 0] {loc = #pto.loc<Vec>, ..} :
//! pto.memref<..>, tile<1x128xf32>`, `!pto.event<..>` tokens with `wait(..)`, `scf.for` /
//! `scf.if` / `scf.while`) and MLIR's generic operation form (`"pto.tile.add"(%a, %b) {..} :
//! (..) -> ..`), which stock `mlir-opt --allow-unregistered-dialect` parses.
//!
//! Both are printed from the module after the pass pipeline (SSA values, with each tile's
//! location, layout, valid region and buffer offset, and the events of `insert-events`).

use std::collections::HashMap;

use pto_ir::{
    Attr, Constant, DataType, Dim, MemorySpace, OpClass, OpId, PipeKind, ProgramModule, StmtKind,
    TensorType, TileType, Type, ValueDef, ValueId,
};

use super::writer::{Level, Out};
use crate::events::{Event, events};
use crate::info::{addr_of, layout_name, space_of};
use crate::isa::Program;

/// The custom form (`NAME::LOWERED`).
pub fn emit_lowered(p: &Program) -> String {
    Writer::new(p, false).run()
}

/// The generic operation form.
pub fn emit_generic(p: &Program) -> String {
    Writer::new(p, true).run()
}

/// The MLIR spelling of a dtype.
pub fn mlir_dtype(d: DataType) -> &'static str {
    match d {
        DataType::Bool => "i1",
        DataType::Int4 => "i4",
        DataType::Int8 => "i8",
        DataType::Int16 => "i16",
        DataType::Int32 => "i32",
        DataType::Int64 => "i64",
        DataType::UInt8 => "ui8",
        DataType::UInt16 => "ui16",
        DataType::UInt32 => "ui32",
        DataType::UInt64 => "ui64",
        DataType::Fp8 => "f8E4M3FN",
        DataType::Fp16 => "f16",
        DataType::Bf16 => "bf16",
        DataType::Fp32 => "f32",
        DataType::Fp64 => "f64",
        DataType::Hf4 => "f4E2M1FN",
        DataType::Hf8 => "f8E5M2",
        DataType::Bottom | DataType::Unknown => "none",
    }
}

/// An MLIR float literal (always with a decimal point; hex bits for non-finite values).
fn float_lit(v: f64) -> String {
    if !v.is_finite() {
        return format!("0x{:016X}", v.to_bits());
    }
    let s = format!("{v:?}");
    if s.contains('.') {
        s
    } else if let Some(i) = s.find('e') {
        format!("{}.0{}", &s[..i], &s[i..])
    } else {
        format!("{s}.0")
    }
}

fn op_name(src: PipeKind) -> &'static str {
    match src {
        PipeKind::Mte2 => "TLOAD",
        PipeKind::Mte1 => "TMOV",
        PipeKind::M => "TMATMUL",
        PipeKind::Fix => "TMOV_ACC",
        PipeKind::Mte3 => "TSTORE",
        _ => "TVEC",
    }
}

struct Writer<'a> {
    m: &'a ProgramModule,
    p: &'a Program,
    generic: bool,
    out: Out,
    /// Renamed values (a `while` body's view of its iter args).
    rename: HashMap<ValueId, String>,
    /// Event token of each (src, dst, id), most recent first.
    tokens: HashMap<Event, String>,
    next_token: u32,
    next_tmp: u32,
}

impl<'a> Writer<'a> {
    fn new(p: &'a Program, generic: bool) -> Self {
        Writer {
            m: &p.module,
            p,
            generic,
            out: Out::default(),
            rename: HashMap::new(),
            tokens: HashMap::new(),
            next_token: 0,
            next_tmp: 0,
        }
    }

    fn name(&self, v: ValueId) -> String {
        if let Some(n) = self.rename.get(&v) {
            return n.clone();
        }
        self.m.ssa_name(v)
    }

    fn tmp(&mut self) -> String {
        self.next_tmp += 1;
        format!("%tmp{}", self.next_tmp)
    }

    fn bang(&self) -> &'static str {
        if self.generic { "!" } else { "" }
    }

    fn tile_ty(&self, t: &TileType) -> String {
        use std::fmt::Write;
        let mut s = String::with_capacity(32);
        s.push_str(self.bang());
        s.push_str("tile<");
        for (i, d) in t.shape.iter().enumerate() {
            if i > 0 {
                s.push('x');
            }
            let _ = write!(s, "{d}");
        }
        s.push('x');
        s.push_str(mlir_dtype(t.dtype));
        s.push('>');
        s
    }

    fn memref_ty(&self, t: &TensorType) -> String {
        let dims: Vec<String> = t
            .shape
            .iter()
            .map(|d| d.as_const().map_or("?".to_string(), |c| c.to_string()))
            .collect();
        let mut strides = vec!["1".to_string(); t.shape.len()];
        let mut acc = Some(1u64);
        for i in (0..t.shape.len()).rev() {
            strides[i] = acc.map_or("?".to_string(), |a| a.to_string());
            acc = match (acc, t.shape[i].as_const()) {
                (Some(a), Some(c)) => Some(a * c),
                _ => None,
            };
        }
        let b = if self.generic { "!" } else { "" };
        format!(
            "{b}pto.memref<{}x{}, strided<[{}], offset: ?>>",
            dims.join("x"),
            mlir_dtype(t.dtype),
            strides.join(", ")
        )
    }

    fn ty(&self, t: &Type) -> String {
        match t {
            Type::Scalar(d) => mlir_dtype(*d).to_string(),
            Type::Tile(t) => self.tile_ty(t),
            Type::Tensor(t) => self.memref_ty(t),
            Type::Tuple(ts) => format!(
                "tuple<{}>",
                ts.iter().map(|t| self.ty(t)).collect::<Vec<_>>().join(", ")
            ),
            Type::Pipe(p) => format!("!pto.pipe<{}>", p.name()),
            Type::Unknown => "none".to_string(),
        }
    }

    fn vty(&self, v: ValueId) -> String {
        self.ty(&self.m.values[v].ty)
    }

    fn event_ty(&self, (src, dst, id): Event) -> String {
        format!(
            "!pto.event<producer = #pto.op<{}>, scope = #pto.scope<intra>, pipes = #pto.pipes<{}, {}>, eid = {id}>",
            op_name(src),
            src.name(),
            dst.name()
        )
    }

    /// `loc`, `layout`, `valid`, `addr` of a tile value, as attribute entries.
    fn tile_attrs(&self, v: ValueId) -> Vec<String> {
        let Some(t) = self.m.values[v].ty.as_tile() else {
            return Vec::new();
        };
        let mut a = Vec::new();
        if let Some(space) = space_of(self.m, v) {
            a.push(format!("loc = #pto.loc<{}>", space.name()));
            a.push(format!(
                "layout = #pto.layout<{}>",
                layout_name(space, &t.shape)
            ));
        }
        let valid: Vec<String> = t
            .valid
            .iter()
            .map(|d| match d {
                Dim::Const(c) => c.to_string(),
                Dim::Value(x) if !self.generic => self.name(*x),
                _ => {
                    if self.generic {
                        "-1".to_string()
                    } else {
                        "?".to_string()
                    }
                }
            })
            .collect();
        a.push(format!("valid = [{}]", valid.join(", ")));
        if let Some(addr) = addr_of(self.m, v) {
            a.push(if self.generic {
                format!("addr = {addr} : i64")
            } else {
                format!("addr = {addr}")
            });
        }
        a
    }

    fn run(mut self) -> String {
        let m = self.m;
        let f = &m.funcs[self.p.func];
        let target = self.p.target;
        let l0 = Level::default();
        self.out.line(l0, format!("// {} lowered for {target}: canonicalize, infer-tile-info, insert-events, bufferize", f.name));
        let params: Vec<String> = f
            .sig
            .params
            .iter()
            .map(|q| format!("{}: {}", self.name(q.value), self.vty(q.value)))
            .collect();
        let rets: Vec<String> = f.sig.returns.iter().map(|t| self.ty(t)).collect();
        let l1 = l0.next();
        let l2 = l1.next();
        if self.generic {
            self.out.line(l0, "\"builtin.module\"() ({");
            let arg_tys: Vec<String> = f.sig.params.iter().map(|q| self.vty(q.value)).collect();
            self.out.line(l1, "\"func.func\"() ({");
            self.out.line(l1, format!("^bb0({}):", params.join(", ")));
            self.dims(l2);
            self.block(f.body, l2);
            self.out.line(
                l1,
                format!(
                    "}}) {{function_type = ({}) -> ({}), sym_name = \"{}\"}} : () -> ()",
                    arg_tys.join(", "),
                    rets.join(", "),
                    f.name
                ),
            );
            self.out
                .line(l0, format!("}}) {{pto.target = \"{target}\"}} : () -> ()"));
        } else {
            self.out.line(
                l0,
                format!("module attributes {{pto.target = #pto.target<{target}>}} {{"),
            );
            let ret = if rets.is_empty() {
                String::new()
            } else {
                format!(" -> ({})", rets.join(", "))
            };
            self.out.line(
                l1,
                format!("func.func @{}({}){ret} {{", f.name, params.join(", ")),
            );
            self.dims(l2);
            self.block(f.body, l2);
            self.out.line(l1, "}");
            self.out.line(l0, "}");
        }
        self.out.text
    }

    /// Symbolic dimensions, read from the first tensor parameter that has them.
    fn dims(&mut self, l: Level) {
        let m = self.m;
        let f = &m.funcs[self.p.func];
        for &d in &f.dims {
            let found = f
                .sig
                .params
                .iter()
                .find_map(|q| match &m.values[q.value].ty {
                    Type::Tensor(t) => t
                        .shape
                        .iter()
                        .position(|x| *x == Dim::Value(d))
                        .map(|k| (q.value, k)),
                    _ => None,
                });
            let ty = self.vty(d);
            match found {
                Some((t, k)) if self.generic => self.out.line(
                    l,
                    format!(
                        "{} = \"pto.tensor.dim\"({}) {{dim = {k} : i64}} : ({}) -> {ty}",
                        self.name(d),
                        self.name(t),
                        self.vty(t)
                    ),
                ),
                Some((t, k)) => self.out.line(
                    l,
                    format!(
                        "{} = pto.tensor.dim {}[{k}] : {} -> {ty}",
                        self.name(d),
                        self.name(t),
                        self.vty(t)
                    ),
                ),
                None => {
                    let s = if self.generic {
                        format!("{} = \"pto.undef\"() : () -> {ty}", self.name(d))
                    } else {
                        format!("{} = pto.undef : {ty}", self.name(d))
                    };
                    self.out.line(l, s);
                }
            }
        }
    }

    fn block(&mut self, b: pto_ir::BlockId, l: Level) {
        let m = self.m;
        for &s in &m.blocks[b].stmts {
            match &m.stmts[s].kind {
                StmtKind::Op(ops) => {
                    for &o in ops {
                        self.op(o, l);
                    }
                }
                StmtKind::For(x) => {
                    let res_tys: Vec<String> = x.results.iter().map(|&r| self.vty(r)).collect();
                    let lhs = self.results_lhs(&x.results);
                    if self.generic {
                        let mut operands =
                            vec![self.name(x.lb), self.name(x.ub), self.name(x.step)];
                        let mut tys = vec![self.vty(x.lb), self.vty(x.ub), self.vty(x.step)];
                        operands.extend(x.iter_args.iter().map(|a| self.name(a.init)));
                        tys.extend(x.iter_args.iter().map(|a| self.vty(a.init)));
                        let mut args = vec![format!("{}: {}", self.name(x.iv), self.vty(x.iv))];
                        args.extend(
                            x.iter_args
                                .iter()
                                .map(|a| format!("{}: {}", self.name(a.arg), self.vty(a.arg))),
                        );
                        self.out
                            .line(l, format!("{lhs}\"scf.for\"({}) ({{", operands.join(", ")));
                        self.out.line(l, format!("^bb0({}):", args.join(", ")));
                        self.block(x.body, l.next());
                        self.out.line(
                            l,
                            format!("}}) : ({}) -> ({})", tys.join(", "), res_tys.join(", ")),
                        );
                    } else {
                        let iters = if x.iter_args.is_empty() {
                            String::new()
                        } else {
                            let a: Vec<String> = x
                                .iter_args
                                .iter()
                                .map(|a| format!("{} = {}", self.name(a.arg), self.name(a.init)))
                                .collect();
                            format!(" iter_args({}) -> ({})", a.join(", "), res_tys.join(", "))
                        };
                        self.out.line(
                            l,
                            format!(
                                "{lhs}scf.for {} = {} to {} step {}{iters} : {} {{",
                                self.name(x.iv),
                                self.name(x.lb),
                                self.name(x.ub),
                                self.name(x.step),
                                self.vty(x.iv)
                            ),
                        );
                        self.block(x.body, l.next());
                        self.out.line(l, "}");
                    }
                }
                StmtKind::If(x) => {
                    let res_tys: Vec<String> = x.results.iter().map(|&r| self.vty(r)).collect();
                    let lhs = self.results_lhs(&x.results);
                    if self.generic {
                        self.out
                            .line(l, format!("{lhs}\"scf.if\"({}) ({{", self.name(x.cond)));
                        self.block(x.then_block, l.next());
                        self.out.line(l, "}, {");
                        self.block(x.else_block, l.next());
                        self.out
                            .line(l, format!("}}) : (i1) -> ({})", res_tys.join(", ")));
                    } else {
                        let r = if res_tys.is_empty() {
                            String::new()
                        } else {
                            format!(" -> ({})", res_tys.join(", "))
                        };
                        self.out
                            .line(l, format!("{lhs}scf.if {}{r} {{", self.name(x.cond)));
                        self.block(x.then_block, l.next());
                        self.out.line(l, "} else {");
                        self.block(x.else_block, l.next());
                        self.out.line(l, "}");
                    }
                }
                StmtKind::While(w) => {
                    let res_tys: Vec<String> = w.results.iter().map(|&r| self.vty(r)).collect();
                    let lhs = self.results_lhs(&w.results);
                    let inits: Vec<String> =
                        w.iter_args.iter().map(|a| self.name(a.init)).collect();
                    let before: Vec<String> = w
                        .iter_args
                        .iter()
                        .map(|a| format!("{}: {}", self.name(a.arg), self.vty(a.arg)))
                        .collect();
                    let fwd: Vec<String> = w.iter_args.iter().map(|a| self.name(a.arg)).collect();
                    if self.generic {
                        self.out
                            .line(l, format!("{lhs}\"scf.while\"({}) ({{", inits.join(", ")));
                        self.out.line(l, format!("^bb0({}):", before.join(", ")));
                    } else {
                        let a: Vec<String> = w
                            .iter_args
                            .iter()
                            .map(|a| format!("{} = {}", self.name(a.arg), self.name(a.init)))
                            .collect();
                        self.out.line(
                            l,
                            format!(
                                "{lhs}scf.while ({}) : ({}) -> ({}) {{",
                                a.join(", "),
                                res_tys.join(", "),
                                res_tys.join(", ")
                            ),
                        );
                    }
                    self.block(w.cond_block, l.next());
                    // The body sees the iter args under fresh names.
                    let saved = self.rename.clone();
                    for a in &w.iter_args {
                        let n = format!("{}_do", self.name(a.arg));
                        self.rename.insert(a.arg, n);
                    }
                    let after: Vec<String> = w
                        .iter_args
                        .iter()
                        .map(|a| format!("{}: {}", self.name(a.arg), self.vty(a.arg)))
                        .collect();
                    if self.generic {
                        self.out.line(l, "}, {");
                        self.out.line(l, format!("^bb0({}):", after.join(", ")));
                        self.block(w.body, l.next());
                        let _ = fwd;
                        self.out.line(
                            l,
                            format!("}}) : ({}) -> ({})", res_tys.join(", "), res_tys.join(", ")),
                        );
                    } else {
                        self.out.line(
                            l,
                            format!("}} do {{\n{}^bb0({}):", "  ".repeat(l.0), after.join(", ")),
                        );
                        self.block(w.body, l.next());
                        self.out.line(l, "}");
                    }
                    self.rename = saved;
                }
                StmtKind::Condition(c) => {
                    let owner = m.blocks[b].owner;
                    let args: Vec<ValueId> = match owner.map(|o| &m.stmts[o].kind) {
                        Some(StmtKind::While(w)) => w.iter_args.iter().map(|a| a.arg).collect(),
                        _ => Vec::new(),
                    };
                    let names: Vec<String> = args.iter().map(|&a| self.name(a)).collect();
                    let tys: Vec<String> = args.iter().map(|&a| self.vty(a)).collect();
                    if self.generic {
                        let mut ops = vec![self.name(*c)];
                        ops.extend(names);
                        let mut t = vec!["i1".to_string()];
                        t.extend(tys);
                        self.out.line(
                            l,
                            format!(
                                "\"scf.condition\"({}) : ({}) -> ()",
                                ops.join(", "),
                                t.join(", ")
                            ),
                        );
                    } else {
                        let tail = if names.is_empty() {
                            String::new()
                        } else {
                            format!(" {} : {}", names.join(", "), tys.join(", "))
                        };
                        self.out
                            .line(l, format!("scf.condition({}){tail}", self.name(*c)));
                    }
                }
                StmtKind::Yield(vals) => self.yield_(vals, l),
                StmtKind::Break(vals) | StmtKind::Continue(vals) => {
                    let word = if matches!(m.stmts[s].kind, StmtKind::Break(_)) {
                        "break"
                    } else {
                        "continue"
                    };
                    let names: Vec<String> = vals.iter().map(|&v| self.name(v)).collect();
                    let tys: Vec<String> = vals.iter().map(|&v| self.vty(v)).collect();
                    if self.generic {
                        self.out.line(
                            l,
                            format!(
                                "\"pto.{word}\"({}) : ({}) -> ()",
                                names.join(", "),
                                tys.join(", ")
                            ),
                        );
                        // The enclosing region still needs its terminator.
                        let owner = m.blocks[b].owner.map(|o| &m.stmts[o].kind);
                        let need: Vec<Type> = match owner {
                            Some(StmtKind::If(x)) => {
                                x.results.iter().map(|&r| m.values[r].ty.clone()).collect()
                            }
                            Some(StmtKind::For(x)) => x
                                .iter_args
                                .iter()
                                .map(|a| m.values[a.arg].ty.clone())
                                .collect(),
                            Some(StmtKind::While(w)) => w
                                .iter_args
                                .iter()
                                .map(|a| m.values[a.arg].ty.clone())
                                .collect(),
                            _ => Vec::new(),
                        };
                        let mut vs = Vec::new();
                        for t in &need {
                            let n = self.tmp();
                            self.out
                                .line(l, format!("{n} = \"pto.undef\"() : () -> {}", self.ty(t)));
                            vs.push(n);
                        }
                        let ts: Vec<String> = need.iter().map(|t| self.ty(t)).collect();
                        self.out.line(
                            l,
                            format!(
                                "\"scf.yield\"({}) : ({}) -> ()",
                                vs.join(", "),
                                ts.join(", ")
                            ),
                        );
                    } else {
                        let tail = if names.is_empty() {
                            String::new()
                        } else {
                            format!(" {} : {}", names.join(", "), tys.join(", "))
                        };
                        self.out.line(l, format!("pto.{word}{tail}"));
                    }
                }
                StmtKind::Return(vals) => {
                    let names: Vec<String> = vals.iter().map(|&v| self.name(v)).collect();
                    let tys: Vec<String> = vals.iter().map(|&v| self.vty(v)).collect();
                    if self.generic {
                        self.out.line(
                            l,
                            format!(
                                "\"func.return\"({}) : ({}) -> ()",
                                names.join(", "),
                                tys.join(", ")
                            ),
                        );
                    } else if names.is_empty() {
                        self.out.line(l, "func.return");
                    } else {
                        self.out.line(
                            l,
                            format!("func.return {} : {}", names.join(", "), tys.join(", ")),
                        );
                    }
                }
                StmtKind::Scope(_, blk) => self.block(*blk, l),
            }
        }
    }

    fn yield_(&mut self, vals: &[ValueId], l: Level) {
        let names: Vec<String> = vals.iter().map(|&v| self.name(v)).collect();
        let tys: Vec<String> = vals.iter().map(|&v| self.vty(v)).collect();
        if self.generic {
            self.out.line(
                l,
                format!(
                    "\"scf.yield\"({}) : ({}) -> ()",
                    names.join(", "),
                    tys.join(", ")
                ),
            );
        } else if names.is_empty() {
            self.out.line(l, "scf.yield");
        } else {
            self.out.line(
                l,
                format!("scf.yield {} : {}", names.join(", "), tys.join(", ")),
            );
        }
    }

    fn results_lhs(&self, results: &[ValueId]) -> String {
        if results.is_empty() {
            String::new()
        } else {
            format!(
                "{} = ",
                results
                    .iter()
                    .map(|&r| self.name(r))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    }

    fn mnemonic(&self, o: OpId) -> String {
        let op = &self.m.ops[o];
        if op.opcode.class() == OpClass::Move {
            let from = op.operands.first().and_then(|&v| space_of(self.m, v));
            let to = op.results.first().and_then(|&v| space_of(self.m, v));
            let short = |s: Option<MemorySpace>| match s {
                Some(MemorySpace::Mat) => "m",
                Some(MemorySpace::Left) => "l",
                Some(MemorySpace::Right) => "r",
                Some(MemorySpace::Acc) => "a",
                Some(MemorySpace::Bias) => "b",
                _ => "v",
            };
            return format!("pto.tile.mov.{}2{}", short(from), short(to));
        }
        let info = op.opcode.info();
        match info.dialect {
            "" => "pto.constant".to_string(),
            "tile" => format!("pto.tile.{}", info.mnemonic.replace('_', ".")),
            d => format!("pto.{d}.{}", info.mnemonic),
        }
    }

    fn op(&mut self, o: OpId, l: Level) {
        let m = self.m;
        let op = &m.ops[o];
        let class = op.opcode.class();
        let name = self.mnemonic(o);
        // Constants.
        if class == OpClass::Const {
            let Some(&r) = op.results.first() else { return };
            let d = m.values[r].ty.as_scalar().unwrap_or(DataType::Int64);
            let v = match m.values[r].constant {
                Some(Constant::Bool(b)) => b.to_string(),
                Some(c) if d.is_float() => float_lit(c.as_f64()),
                Some(Constant::SizeT(u)) => u.to_string(),
                Some(c) => c.as_i64().to_string(),
                None => "0".to_string(),
            };
            let t = mlir_dtype(d);
            if self.generic {
                self.out.line(
                    l,
                    format!(
                        "{} = \"pto.constant\"() {{value = {v} : {t}}} : () -> {t}",
                        self.name(r)
                    ),
                );
            } else {
                self.out
                    .line(l, format!("{} = pto.constant {v} : {t}", self.name(r)));
            }
            return;
        }
        // Event tokens this op waits for and records.
        let waits: Vec<String> = events(&op.attrs, "wait")
            .into_iter()
            .filter_map(|e| self.tokens.get(&e).cloned())
            .collect();
        let mut records = events(&op.attrs, "set");
        records.extend(events(&op.attrs, "sync"));
        let mut results: Vec<String> = op.results.iter().map(|&r| self.name(r)).collect();
        let mut res_tys: Vec<String> = op.results.iter().map(|&r| self.vty(r)).collect();
        for e in &records {
            let t = format!("%e{}", self.next_token);
            self.next_token += 1;
            self.tokens.insert(*e, t.clone());
            results.push(t);
            res_tys.push(self.event_ty(*e));
        }
        let lhs = if results.is_empty() {
            String::new()
        } else {
            format!("{} = ", results.join(", "))
        };
        let mut attrs: Vec<String> = Vec::new();
        if let Some(&r) = op.results.first() {
            attrs.extend(self.tile_attrs(r));
        }
        if class == OpClass::Store
            && let Some(&t) = op.operands.first()
            && let Some(s) = space_of(m, t)
        {
            attrs.push(format!("from = #pto.loc<{}>", s.name()));
        }
        for (k, v) in &op.attrs.0 {
            if matches!(
                k.as_str(),
                "offset" | "set" | "wait" | "sync" | "shape" | "loc"
            ) {
                continue;
            }
            let txt = match v {
                Attr::Ident(s) if k == "dtype" => {
                    mlir_dtype(DataType::from_name(s).unwrap_or(DataType::Unknown)).to_string()
                }
                Attr::Ident(s) | Attr::Str(s) => format!("\"{s}\""),
                Attr::Int(i) => {
                    if self.generic {
                        format!("{i} : i64")
                    } else {
                        i.to_string()
                    }
                }
                Attr::Float(f) => float_lit(*f),
                Attr::Bool(b) => b.to_string(),
                _ => continue,
            };
            attrs.push(format!("{k} = {txt}"));
        }
        // Offsets: dynamic ones become operands, static ones an attribute.
        let offsets: Vec<(Option<ValueId>, i64)> = op
            .attrs
            .get("offset")
            .and_then(Attr::as_list)
            .unwrap_or(&[])
            .iter()
            .map(|a| match a {
                Attr::Value(v) => match m.values[*v].constant {
                    Some(c) => (None, c.as_i64()),
                    None => (Some(*v), -1),
                },
                Attr::Int(i) => (None, *i),
                _ => (None, 0),
            })
            .collect();
        if self.generic {
            let mut operands: Vec<ValueId> = op.operands.clone();
            if matches!(
                class,
                OpClass::Load | OpClass::Store | OpClass::Extract | OpClass::TileAssemble
            ) {
                let list: Vec<String> = offsets.iter().map(|(_, c)| c.to_string()).collect();
                attrs.push(format!("static_offsets = [{}]", list.join(", ")));
                operands.extend(offsets.iter().filter_map(|(v, _)| *v));
            }
            let mut names: Vec<String> = operands.iter().map(|&v| self.name(v)).collect();
            let mut tys: Vec<String> = operands.iter().map(|&v| self.vty(v)).collect();
            if !waits.is_empty() {
                attrs.push(format!("num_waits = {} : i64", waits.len()));
                for w in &waits {
                    names.push(w.clone());
                    tys.push("!pto.event<>".to_string());
                }
            }
            // Waits are typed by their producers; look the types up again.
            let wait_tys: Vec<String> = events(&op.attrs, "wait")
                .into_iter()
                .filter(|e| self.tokens.contains_key(e))
                .map(|e| self.event_ty(e))
                .collect();
            let n = tys.len() - wait_tys.len();
            tys.truncate(n);
            tys.extend(wait_tys);
            let a = if attrs.is_empty() {
                String::new()
            } else {
                format!(" {{{}}}", attrs.join(", "))
            };
            let rt = if res_tys.len() == 1 {
                res_tys[0].clone()
            } else {
                format!("({})", res_tys.join(", "))
            };
            self.out.line(
                l,
                format!(
                    "{lhs}\"{name}\"({}){a} : ({}) -> {rt}",
                    names.join(", "),
                    tys.join(", ")
                ),
            );
            return;
        }
        let w = if waits.is_empty() {
            String::new()
        } else {
            format!(" wait({})", waits.join(", "))
        };
        let a = if attrs.is_empty() {
            String::new()
        } else {
            format!(" {{{}}}", attrs.join(", "))
        };
        let off = |me: &Self| -> String {
            let list: Vec<String> = offsets
                .iter()
                .map(|(v, c)| v.map_or_else(|| c.to_string(), |v| me.name(v)))
                .collect();
            format!("[{}]", list.join(", "))
        };
        let extra: Vec<String> = res_tys.iter().skip(op.results.len()).cloned().collect();
        let with_events = |mut v: Vec<String>| {
            v.extend(extra.iter().cloned());
            v.join(", ")
        };
        let line = match class {
            OpClass::Load => format!(
                "{lhs}{name} {}{}{w}{a} : {}",
                self.name(op.operands[0]),
                off(self),
                with_events(vec![self.vty(op.operands[0]), res_tys[0].clone()])
            ),
            OpClass::Store => format!(
                "{lhs}{name} {}, {}{}{w}{a} : {}",
                self.name(op.operands[0]),
                self.name(op.operands[1]),
                off(self),
                with_events(vec![self.vty(op.operands[1]), self.vty(op.operands[0])])
            ),
            _ => {
                let names: Vec<String> = op.operands.iter().map(|&v| self.name(v)).collect();
                let tys: Vec<String> = op.operands.iter().map(|&v| self.vty(v)).collect();
                let ex = if class == OpClass::Extract {
                    off(self)
                } else {
                    String::new()
                };
                let ret = res_tys.first().cloned().unwrap_or_default();
                if tys.iter().all(|t| *t == ret) && !tys.is_empty() {
                    format!(
                        "{lhs}{name} {}{ex}{w}{a} : {}",
                        names.join(", "),
                        with_events(vec![ret])
                    )
                } else {
                    format!(
                        "{lhs}{name} {}{ex}{w}{a} : {} -> {}",
                        names.join(", "),
                        tys.join(", "),
                        with_events(vec![ret])
                    )
                }
            }
        };
        self.out.line(l, line);
        let _ = ValueDef::Free;
    }
}
