//! Structural equality and hashing (seed 004, PyPTO's `structural_equal` / `structural_hash`).
//!
//! Two modules are structurally equal when they have the same attributes, the same entry
//! function name and the same functions in order (names, kinds, attributes, parameter
//! directions and types, return types, symbolic dimensions), with bodies equal statement by
//! statement and op by op (opcode, attributes, operand and result types). The module name is
//! ignored (PyPTO's `IgnoreField`), and so are value ids, value names and numbers, source
//! spans and the builders' environment tables.
//!
//! Values are compared through a bijection built as the walk meets them: each module is
//! walked in the same fixed order into a canonical token stream in which a value is replaced
//! by the index of its first appearance (and, at that first appearance, by its type, constant
//! and layout). Two modules are equal iff their streams are equal, so a use of the second
//! parameter must match a use of the second parameter; [`structural_hash`] hashes the same
//! stream, so equal modules hash equal. Attribute dictionaries compare as dictionaries (key
//! order is ignored); lists and maps inside them compare in order; floats compare bit for
//! bit; integer constants compare by value whatever their width variant (`Int(3)` equals
//! `Int64(3)`; the value's type is compared separately).
//!
//! Every struct is destructured exhaustively, so a new field cannot be silently skipped.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use crate::attr::{Attr, AttrEntry, Attrs};
use crate::entity::{BlockId, FuncId, OpId, StmtId, ValueId};
use crate::module::{Function, Param, ProgramModule, Signature};
use crate::stmt::{Block, ForStmt, IfStmt, IterArg, Operation, Statement, StmtKind, WhileStmt};
use crate::types::{Dim, MemRef, TensorType, TileType, Type};
use crate::value::{Constant, ValueData};

/// Whether two modules are equal up to value ids and names (see the module doc).
pub fn structurally_equal(a: &ProgramModule, b: &ProgramModule) -> bool {
    canonical(a) == canonical(b)
}

/// A hash of the module's structure, consistent with [`structurally_equal`]: equal modules
/// hash equal.
pub fn structural_hash(m: &ProgramModule) -> u64 {
    let mut h = DefaultHasher::new();
    canonical(m).hash(&mut h);
    h.finish()
}

/// One item of the canonical stream.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Tok {
    /// A structural marker (`for`, `op`, `end`, ...).
    Tag(&'static str),
    /// A count, index or small enum.
    U(u64),
    /// A signed integer.
    I(i128),
    /// A float, by bits.
    F(u64),
    /// A string (names, keys).
    S(String),
    /// A value, by order of first appearance.
    Val(u32),
    /// An id that does not name an entity of the module.
    Invalid,
}

fn canonical(m: &ProgramModule) -> Vec<Tok> {
    let mut w = Walker {
        m,
        out: Vec::new(),
        vals: HashMap::new(),
        depth: 0,
    };
    w.module();
    w.out
}

/// Blocks nested deeper than this are cut off (only a cyclic, malformed module gets there).
const MAX_DEPTH: usize = 1000;

struct Walker<'a> {
    m: &'a ProgramModule,
    out: Vec<Tok>,
    vals: HashMap<ValueId, u32>,
    depth: usize,
}

impl Walker<'_> {
    fn tag(&mut self, t: &'static str) {
        self.out.push(Tok::Tag(t));
    }

    fn len(&mut self, n: usize) {
        self.out.push(Tok::U(n as u64));
    }

    fn module(&mut self) {
        let ProgramModule {
            name: _,
            entry,
            attrs,
            functions,
            funcs,
            values: _,
            ops: _,
            stmts: _,
            blocks: _,
            next_number: _,
        } = self.m;
        self.tag("module");
        self.attrs(attrs);
        match entry {
            Some(e) => match funcs.get(*e) {
                Some(f) => self.out.push(Tok::S(f.name.clone())),
                None => self.out.push(Tok::Invalid),
            },
            None => self.tag("no-entry"),
        }
        self.len(functions.len());
        for &f in functions {
            self.function(f);
        }
    }

    fn function(&mut self, id: FuncId) {
        let Some(func) = self.m.funcs.get(id) else {
            self.out.push(Tok::Invalid);
            return;
        };
        let Function {
            name,
            kind,
            sig,
            dims,
            attrs,
            inputs,
            body,
            span: _,
        } = func;
        self.tag("func");
        self.out.push(Tok::S(name.clone()));
        self.out.push(Tok::U(*kind as u64));
        let Signature { params, returns } = sig;
        self.len(params.len());
        for p in params {
            let Param { value, direction } = p;
            self.value(*value);
            self.out.push(Tok::U(*direction as u64));
        }
        self.len(returns.len());
        for t in returns {
            self.ty(t);
        }
        self.len(dims.len());
        for &d in dims {
            self.value(d);
        }
        self.attrs(attrs);
        self.block(*inputs);
        self.block(*body);
    }

    fn block(&mut self, id: BlockId) {
        let Some(block) = self.m.blocks.get(id) else {
            self.out.push(Tok::Invalid);
            return;
        };
        if self.depth > MAX_DEPTH {
            self.tag("too-deep");
            return;
        }
        self.depth += 1;
        let Block {
            stmts,
            parent: _,
            owner: _,
            role,
            env: _,
        } = block;
        self.tag("block");
        self.out.push(Tok::U(*role as u64));
        self.len(stmts.len());
        for &s in stmts {
            self.stmt(s);
        }
        self.tag("end");
        self.depth -= 1;
    }

    fn values(&mut self, vs: &[ValueId]) {
        self.len(vs.len());
        for &v in vs {
            self.value(v);
        }
    }

    fn iter_args(&mut self, args: &[IterArg]) {
        self.len(args.len());
        for a in args {
            let IterArg { arg, init } = a;
            self.value(*arg);
            self.value(*init);
        }
    }

    fn stmt(&mut self, id: StmtId) {
        let Some(st) = self.m.stmts.get(id) else {
            self.out.push(Tok::Invalid);
            return;
        };
        let Statement { kind, span: _ } = st;
        match kind {
            StmtKind::Op(ops) => {
                self.tag("op-stmt");
                self.len(ops.len());
                for &op in ops {
                    self.op(op);
                }
            }
            StmtKind::For(f) => {
                let ForStmt {
                    iv,
                    lb,
                    ub,
                    step,
                    iter_args,
                    body,
                    results,
                    kind,
                    attrs,
                } = f;
                self.tag("for");
                self.out.push(Tok::U(*kind as u64));
                self.value(*lb);
                self.value(*ub);
                self.value(*step);
                self.value(*iv);
                self.iter_args(iter_args);
                self.attrs(attrs);
                self.block(*body);
                self.values(results);
            }
            StmtKind::If(i) => {
                let IfStmt {
                    cond,
                    then_block,
                    else_block,
                    results,
                } = i;
                self.tag("if");
                self.value(*cond);
                self.block(*then_block);
                self.block(*else_block);
                self.values(results);
            }
            StmtKind::While(w) => {
                let WhileStmt {
                    iter_args,
                    cond_block,
                    body,
                    results,
                } = w;
                self.tag("while");
                self.iter_args(iter_args);
                self.block(*cond_block);
                self.block(*body);
                self.values(results);
            }
            StmtKind::Condition(c) => {
                self.tag("condition");
                self.value(*c);
            }
            StmtKind::Yield(vs) => {
                self.tag("yield");
                self.values(vs);
            }
            StmtKind::Return(vs) => {
                self.tag("return");
                self.values(vs);
            }
            StmtKind::Break(vs) => {
                self.tag("break");
                self.values(vs);
            }
            StmtKind::Continue(vs) => {
                self.tag("continue");
                self.values(vs);
            }
            StmtKind::Scope(kind, b) => {
                self.tag("scope");
                self.out.push(Tok::U(*kind as u64));
                self.block(*b);
            }
        }
    }

    fn op(&mut self, id: OpId) {
        let Some(op) = self.m.ops.get(id) else {
            self.out.push(Tok::Invalid);
            return;
        };
        let Operation {
            opcode,
            operands,
            results,
            attrs,
            span: _,
        } = op;
        self.tag("op");
        self.out.push(Tok::U(*opcode as u64));
        self.values(operands);
        self.attrs(attrs);
        self.values(results);
    }

    /// A value: its canonical index, and at its first appearance its type, constant and
    /// layout (names, numbers and the definition site are not compared: the walk position
    /// already fixes where it is defined).
    fn value(&mut self, v: ValueId) {
        if let Some(&i) = self.vals.get(&v) {
            self.out.push(Tok::Val(i));
            return;
        }
        let i = u32::try_from(self.vals.len()).unwrap_or(u32::MAX);
        self.vals.insert(v, i);
        self.out.push(Tok::Val(i));
        let Some(data) = self.m.values.get(v) else {
            self.out.push(Tok::Invalid);
            return;
        };
        let ValueData {
            name: _,
            number: _,
            ty,
            constant,
            def: _,
        } = data;
        self.tag("new");
        self.ty(ty);
        match constant {
            Some(c) => self.constant(*c),
            None => self.tag("no-const"),
        }
    }

    fn constant(&mut self, c: Constant) {
        match c {
            Constant::Bool(b) => {
                self.tag("bool");
                self.out.push(Tok::U(u64::from(b)));
            }
            Constant::Int(v) => self.out.push(Tok::I(i128::from(v))),
            Constant::Int64(v) => self.out.push(Tok::I(i128::from(v))),
            Constant::SizeT(v) => self.out.push(Tok::I(i128::from(v))),
            Constant::Double(v) => self.out.push(Tok::F(v.to_bits())),
        }
    }

    fn dim(&mut self, d: &Dim) {
        match d {
            Dim::Const(c) => {
                self.tag("c");
                self.out.push(Tok::U(*c));
            }
            Dim::Value(v) => self.value(*v),
            Dim::Dynamic => self.tag("?"),
        }
    }

    fn ty(&mut self, t: &Type) {
        if self.depth > MAX_DEPTH {
            self.tag("too-deep");
            return;
        }
        self.depth += 1;
        match t {
            Type::Scalar(d) => {
                self.tag("scalar");
                self.out.push(Tok::U(*d as u64));
            }
            Type::Tile(tt) => {
                let TileType {
                    dtype,
                    shape,
                    valid,
                    memref,
                } = tt;
                self.tag("tile");
                self.out.push(Tok::U(*dtype as u64));
                self.len(shape.len());
                self.out.extend(shape.iter().map(|&s| Tok::U(s)));
                self.len(valid.len());
                for d in valid {
                    self.dim(d);
                }
                match memref {
                    Some(MemRef { space, addr, size }) => {
                        self.tag("mem");
                        self.out.push(Tok::U(*space as u64));
                        match addr {
                            Some(a) => self.out.push(Tok::U(*a)),
                            None => self.tag("no-addr"),
                        }
                        self.out.push(Tok::U(*size));
                    }
                    None => self.tag("no-mem"),
                }
            }
            Type::Tensor(tt) => {
                let TensorType {
                    dtype,
                    shape,
                    format,
                } = tt;
                self.tag("tensor");
                self.out.push(Tok::U(*dtype as u64));
                self.out.push(Tok::U(*format as u64));
                self.len(shape.len());
                for d in shape {
                    self.dim(d);
                }
            }
            Type::Tuple(ts) => {
                self.tag("tuple");
                self.len(ts.len());
                for t in ts {
                    self.ty(t);
                }
            }
            Type::Pipe(p) => {
                self.tag("pipe");
                self.out.push(Tok::U(*p as u64));
            }
            Type::Unknown => self.tag("unknown"),
        }
        self.depth -= 1;
    }

    /// A dictionary: entries sorted by key (values inside are walked in that order, which is
    /// the same for two equal dictionaries).
    fn attrs(&mut self, attrs: &Attrs) {
        let Attrs(entries) = attrs;
        let mut sorted: Vec<&AttrEntry> = entries.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        self.tag("attrs");
        self.len(sorted.len());
        for (k, v) in sorted {
            self.out.push(Tok::S(k.to_string()));
            self.attr(v);
        }
    }

    fn attr(&mut self, a: &Attr) {
        match a {
            Attr::Int(v) => {
                self.tag("int");
                self.out.push(Tok::I(i128::from(*v)));
            }
            Attr::Float(v) => {
                self.tag("float");
                self.out.push(Tok::F(v.to_bits()));
            }
            Attr::Str(s) => {
                self.tag("str");
                self.out.push(Tok::S(s.clone()));
            }
            Attr::Bool(b) => {
                self.tag("bool");
                self.out.push(Tok::U(u64::from(*b)));
            }
            Attr::Value(v) => {
                self.tag("value");
                self.value(*v);
            }
            Attr::Ident(s) => {
                self.tag("ident");
                self.out.push(Tok::S(s.clone()));
            }
            Attr::Symbol(s) => {
                self.tag("symbol");
                self.out.push(Tok::S(s.clone()));
            }
            Attr::List(items) => {
                self.tag("list");
                self.len(items.len());
                for x in items {
                    self.attr(x);
                }
            }
            Attr::Map(items) => {
                self.tag("map");
                self.len(items.len());
                for (k, x) in items {
                    self.out.push(Tok::S(k.to_string()));
                    self.attr(x);
                }
            }
        }
    }
}
