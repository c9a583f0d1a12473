//! Recursive-descent parser of the statement text format (cranelift-reader style).
//!
//! It reads exactly what the printer writes (see `print.rs` for the spelling), plus the
//! seed-003 spellings: `OP_*` op names, `#in` on scalars, the short tile type
//! `tile<[16, 32], fp32>`, upper-case dtypes, `?` extents, comments, and the quirks of
//! seed 003's first example (an SSA value or a literal in place of an operand type, values
//! used but never defined).
//!
//! Names: one table maps the text after `%` to a value for the whole module, so a name always
//! denotes the same value (a second definition reuses it; the verifier reports the
//! duplicate). `%x_7` keeps the number 7, `%7` is the unnamed value 7, and a name without a
//! numeric suffix gets a fresh number above every number in the text. A name first seen as a
//! tensor or tile extent is an `int64` scalar (a parameter type's becomes a symbolic dimension
//! of the function); any other name first seen in a use gets its type from the op's type list,
//! or `unknown`, and stays undefined. The parser stops at the first error.

use std::collections::{HashMap, HashSet};

use super::lexer::{KindComment, Tok, Token};
use crate::MAX_NESTING;
use crate::attr::{Attr, AttrEntry, Attrs};
use crate::diag::Diag;
use crate::dtype::DataType;
use crate::entity::{BlockId, EntityId, FuncId, OpId, SpanId, StmtId, ValueId};
use crate::module::{Direction, FunctionKind, Param, ProgramModule, Signature};
use crate::ops::Opcode;
use crate::print::{constant_attr, derived_iv_type, derived_result_types};
use crate::stmt::{
    BlockRole, ForKind, ForStmt, IfStmt, IterArg, Operation, ScopeKind, Statement, StmtKind,
    ValueList, WhileStmt,
};
use crate::typefmt::type_str;
use crate::types::{
    Dim, Extents, MemRef, MemorySpace, PipeKind, Shape, TensorFormat, TensorType, TileType, Type,
};
use crate::value::{Constant, ValueDef};

type PResult<T> = Result<T, Diag>;

/// Lists, maps and types nested deeper than this are rejected (so no input can exhaust the
/// stack). Blocks have their own bound, [`MAX_NESTING`], the printer's.
const MAX_DEPTH: usize = 100;

/// Numbers at or above this stay part of the name (`%x_99999999999` is the name
/// `x_99999999999`), so fresh numbers can never overflow.
const MAX_NUMBER: u32 = 1 << 30;

/// Splits `x_7` into `(Some("x"), Some(7))`, `7` into `(None, Some(7))` and `M` into
/// `(Some("M"), None)`. Only a number spelled as the printer spells it counts (`x_07` and
/// `_7` are plain names), so two different names never print the same.
pub(crate) fn split_name(text: &str) -> (Option<&str>, Option<u32>) {
    let number = |s: &str| {
        let canonical = s == "0" || !s.starts_with('0');
        if canonical && !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
            s.parse::<u32>().ok().filter(|&n| n < MAX_NUMBER)
        } else {
            None
        }
    };
    if let Some(n) = number(text) {
        return (None, Some(n));
    }
    if let Some((name, suffix)) = text.rsplit_once('_')
        && !name.is_empty()
        && let Some(n) = number(suffix)
    {
        return (Some(name), Some(n));
    }
    (Some(text), None)
}

/// An operand type-list entry: a type, or the seed's value / literal in place of one.
enum TypeEntry {
    Type(Type),
    Value(ValueId),
}

/// A `%name` token and where it is.
type NameAt<'a> = (&'a str, usize);

/// `%arg = %init : T` of an `iter_args(..)` clause: the arg's name, the init, the type.
type IterArgText<'a> = (&'a str, ValueId, Type);

pub(crate) struct Parser<'a> {
    toks: Vec<Token<'a>>,
    kinds: Vec<KindComment<'a>>,
    pos: usize,
    depth: usize,
    /// How many blocks are open.
    blocks: usize,
    m: ProgramModule,
    names: HashMap<String, ValueId>,
    defined: HashSet<ValueId>,
    next_fresh: u32,
}

fn err(at: usize, msg: impl Into<String>) -> Diag {
    Diag::new(SpanId(u32::try_from(at).unwrap_or(u32::MAX - 1)), msg)
}

impl<'a> Parser<'a> {
    pub(crate) fn new(toks: Vec<Token<'a>>, kinds: Vec<KindComment<'a>>) -> Self {
        let max = toks
            .iter()
            .filter_map(|t| match t.tok {
                Tok::Value(s) => split_name(s).1,
                _ => None,
            })
            .max();
        Parser {
            toks,
            kinds,
            pos: 0,
            depth: 0,
            blocks: 0,
            m: ProgramModule::new(""),
            names: HashMap::new(),
            defined: HashSet::new(),
            next_fresh: max.map_or(0, |n| n + 1),
        }
    }

    // ---- tokens -------------------------------------------------------------------------

    fn peek(&self) -> &Tok<'a> {
        self.peek_n(0)
    }

    fn peek_n(&self, n: usize) -> &Tok<'a> {
        self.toks
            .get(self.pos + n)
            .or_else(|| self.toks.last())
            .map_or(&Tok::Eof, |t| &t.tok)
    }

    fn at(&self) -> usize {
        self.toks
            .get(self.pos)
            .or_else(|| self.toks.last())
            .map_or(0, |t| t.at)
    }

    fn bump(&mut self) -> Tok<'a> {
        let t = self.peek().clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    /// The error for an unexpected current token.
    fn unexpected(&self, what: &str) -> Diag {
        match self.peek() {
            Tok::Error(msg) => err(self.at(), msg.clone()),
            t => err(
                self.at(),
                format!("expected {what}, found {}", t.describe()),
            ),
        }
    }

    fn eat(&mut self, t: &Tok<'_>) -> bool {
        if self.peek() == t {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, t: &Tok<'_>) -> PResult<usize> {
        let at = self.at();
        if self.eat(t) {
            Ok(at)
        } else {
            Err(self.unexpected(&t.describe()))
        }
    }

    fn is_ident(&self, word: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if *s == word)
    }

    fn expect_ident(&mut self, word: &str) -> PResult<usize> {
        let at = self.at();
        if self.is_ident(word) {
            self.bump();
            Ok(at)
        } else {
            Err(self.unexpected(&format!("`{word}`")))
        }
    }

    fn ident(&mut self, what: &str) -> PResult<(&'a str, usize)> {
        let at = self.at();
        match *self.peek() {
            Tok::Ident(s) => {
                self.bump();
                Ok((s, at))
            }
            _ => Err(self.unexpected(what)),
        }
    }

    fn symbol(&mut self, what: &str) -> PResult<(&'a str, usize)> {
        let at = self.at();
        match *self.peek() {
            Tok::Symbol(s) => {
                self.bump();
                Ok((s, at))
            }
            _ => Err(self.unexpected(what)),
        }
    }

    fn value_name(&mut self, what: &str) -> PResult<NameAt<'a>> {
        let at = self.at();
        match *self.peek() {
            Tok::Value(s) => {
                self.bump();
                Ok((s, at))
            }
            _ => Err(self.unexpected(what)),
        }
    }

    /// `%a, %b, ..` (at least one).
    fn value_names(&mut self) -> PResult<Vec<NameAt<'a>>> {
        let mut out = vec![self.value_name("an SSA value")?];
        while self.eat(&Tok::Comma) {
            out.push(self.value_name("an SSA value")?);
        }
        Ok(out)
    }

    /// Runs `f` one nesting level deeper, refusing absurd nesting.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_DEPTH {
            return Err(err(self.at(), "nesting too deep"));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    // ---- values -------------------------------------------------------------------------

    /// The value a name denotes, created with `ty` when the name is new.
    fn value_for(&mut self, text: &str, ty: Type) -> ValueId {
        if let Some(&v) = self.names.get(text) {
            return v;
        }
        let (name, number) = split_name(text);
        let number = number.unwrap_or_else(|| {
            let n = self.next_fresh;
            self.next_fresh = self.next_fresh.saturating_add(1);
            n
        });
        let v = self.m.new_value_numbered(ty, name, number);
        self.names.insert(text.to_string(), v);
        v
    }

    fn use_value(&mut self, text: &str) -> ValueId {
        self.value_for(text, Type::Unknown)
    }

    /// Defines a name (the first definition wins; a later one reuses the value).
    fn define(&mut self, text: &str, ty: Type, def: ValueDef) -> ValueId {
        let v = self.value_for(text, ty.clone());
        if self.defined.insert(v)
            && let Some(d) = self.m.values.get_mut(v)
        {
            d.ty = ty;
            d.def = def;
        }
        v
    }

    fn ty_of(&self, v: ValueId) -> Type {
        self.m.values.get(v).map_or(Type::Unknown, |d| d.ty.clone())
    }

    // ---- module -------------------------------------------------------------------------

    pub(crate) fn module(mut self) -> PResult<ProgramModule> {
        self.expect_ident("program.module")?;
        let (name, _) = self.symbol("a module name `@name`")?;
        self.m.name = name.to_string();
        self.expect(&Tok::LBrace)?;
        let mut entry: Option<(&'a str, usize)> = None;
        loop {
            match *self.peek() {
                Tok::Ident("program.entry") => {
                    let at = self.at();
                    self.bump();
                    let sym = self.symbol("an entry function `@name`")?;
                    if entry.is_some() {
                        return Err(err(at, "a module has only one `program.entry`"));
                    }
                    entry = Some(sym);
                }
                Tok::Ident("attr") => {
                    self.bump();
                    let (key, _) = self.ident("an attribute name")?;
                    self.expect(&Tok::Eq)?;
                    let v = self.attr_value()?;
                    self.m.attrs.set(key.to_string(), v);
                }
                Tok::Ident("func.func") => self.function()?,
                Tok::RBrace => break,
                _ => return Err(self.unexpected("`program.entry`, `attr`, `func.func` or `}`")),
            }
        }
        self.expect(&Tok::RBrace)?;
        if *self.peek() != Tok::Eof {
            return Err(err(
                self.at(),
                format!(
                    "unexpected {} after the module's closing `}}`",
                    self.peek().describe()
                ),
            ));
        }
        if let Some((name, at)) = entry {
            match self.m.function_by_name(name) {
                Some(f) => self.m.entry = Some(f),
                None => {
                    return Err(err(at, format!("unknown entry function `@{name}`")));
                }
            }
        }
        Ok(self.m)
    }

    fn function(&mut self) -> PResult<()> {
        let at = self.expect_ident("func.func")?;
        let (name, _) = self.symbol("a function name `@name`")?;
        self.expect(&Tok::LParen)?;
        let mut params = Vec::new();
        if !self.eat(&Tok::RParen) {
            loop {
                let (pname, _) = self.value_name("a parameter `%name`")?;
                self.expect(&Tok::Colon)?;
                let ty = self.ty()?;
                let direction = match *self.peek() {
                    Tok::Hash(h) => {
                        let hat = self.at();
                        self.bump();
                        match h {
                            "in" => Direction::In,
                            "out" => Direction::Out,
                            "inout" => Direction::InOut,
                            _ => {
                                return Err(err(
                                    hat,
                                    format!(
                                        "unknown parameter direction `#{h}` (expected `#in`, `#out` or `#inout`)"
                                    ),
                                ));
                            }
                        }
                    }
                    _ => Direction::In,
                };
                let value = self.define(pname, ty, ValueDef::Free);
                params.push(Param { value, direction });
                if self.eat(&Tok::RParen) {
                    break;
                }
                if !self.eat(&Tok::Comma) {
                    return Err(self.unexpected("`,` or `)`"));
                }
            }
        }
        let mut returns = Vec::new();
        if self.eat(&Tok::Arrow) {
            returns = self.type_list_or_one()?;
        }
        let mut attrs = Attrs::new();
        if self.is_ident("attributes") {
            self.bump();
            attrs = self.attr_dict()?;
        }
        let sig = Signature { params, returns };
        let f = self
            .m
            .add_function(name, FunctionKind::Kernel, sig, SpanId(at as u32))?;
        let (body, dims) = match self.m.funcs.get_mut(f) {
            Some(func) => {
                func.attrs = attrs;
                (func.body, func.dims.clone())
            }
            None => return Err(err(at, "internal error: function not created")),
        };
        self.defined.extend(dims);
        self.expect(&Tok::LBrace)?;
        let close = self.block_body(body)?;
        self.function_kind(f, close)?;
        Ok(())
    }

    /// Applies a `// func.kind = X` comment between the function's closing brace and the
    /// next token.
    fn function_kind(&mut self, f: FuncId, close: usize) -> PResult<()> {
        let next = self.at();
        let Some(c) = self.kinds.iter().find(|k| k.at > close && k.at < next) else {
            return Ok(());
        };
        let kind = FunctionKind::from_name(c.kind).ok_or_else(|| {
            err(
                c.kind_at,
                format!(
                    "unknown function kind `{}` (expected `control_flow`, `data_flow` or `kernel`)",
                    c.kind
                ),
            )
        })?;
        if let Some(func) = self.m.funcs.get_mut(f) {
            func.kind = kind;
        }
        // `, dim %b_1 : int32` entries: the dtypes of symbolic dimensions that are not int64.
        for entry in c.dims.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let bad = || {
                err(
                    c.kind_at,
                    format!(
                        "expected `dim %name : dtype` after the function kind, found `{entry}`"
                    ),
                )
            };
            let spec = entry.strip_prefix("dim").ok_or_else(bad)?;
            let (name, dtype) = spec.split_once(':').ok_or_else(bad)?;
            let (name, dtype) = (name.trim(), dtype.trim());
            let dtype = DataType::from_name(dtype)
                .filter(|d| d.is_int())
                .ok_or_else(|| {
                    err(
                        c.kind_at,
                        format!("`{dtype}` is not an integer dtype for `{name}`"),
                    )
                })?;
            let Some(func) = self.m.funcs.get(f) else {
                break;
            };
            let dim = func
                .dims
                .iter()
                .copied()
                .find(|&v| self.m.values[v].ssa_name() == name);
            let Some(dim) = dim else {
                return Err(err(
                    c.kind_at,
                    format!("`{name}` is not a symbolic dimension of this function"),
                ));
            };
            self.m.values[dim].ty = Type::Scalar(dtype);
        }
        Ok(())
    }

    // ---- statements ---------------------------------------------------------------------

    /// Statements up to and including the block's `}`; returns the brace's offset.
    fn block_body(&mut self, b: BlockId) -> PResult<usize> {
        if self.blocks >= MAX_NESTING {
            return Err(err(
                self.at(),
                format!("blocks nested deeper than {MAX_NESTING}"),
            ));
        }
        self.blocks += 1;
        let r = loop {
            if *self.peek() == Tok::RBrace {
                break self.expect(&Tok::RBrace);
            }
            if let Err(e) = self.statement(b) {
                break Err(e);
            }
        };
        self.blocks -= 1;
        r
    }

    fn new_stmt(&mut self, b: BlockId, at: usize) -> StmtId {
        self.m.push_stmt(
            b,
            Statement {
                kind: StmtKind::Yield(ValueList::new()),
                span: SpanId(at as u32),
            },
        )
    }

    fn set_kind(&mut self, s: StmtId, kind: StmtKind) {
        if let Some(st) = self.m.stmts.get_mut(s) {
            st.kind = kind;
        }
    }

    fn uses(&mut self) -> Vec<ValueId> {
        let mut out = Vec::new();
        if matches!(self.peek(), Tok::Value(_)) {
            while let Tok::Value(n) = *self.peek() {
                self.bump();
                out.push(self.use_value(n));
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        out
    }

    fn statement(&mut self, b: BlockId) -> PResult<()> {
        let at = self.at();
        let lhs = if matches!(self.peek(), Tok::Value(_)) {
            let names = self.value_names()?;
            self.expect(&Tok::Eq)?;
            names
        } else {
            Vec::new()
        };
        let (kw, kw_at) = match *self.peek() {
            Tok::Ident(s) => (s, self.at()),
            _ => return Err(self.unexpected("a statement")),
        };
        let defines = matches!(kw, "statement.for" | "statement.if" | "statement.while");
        if !lhs.is_empty() && !defines {
            if !kw.starts_with("statement.") {
                return Err(err(
                    kw_at,
                    format!(
                        "expected a statement, found `{kw}` (ops go inside `statement.op {{ .. }}`)"
                    ),
                ));
            }
            if matches!(
                kw,
                "statement.op"
                    | "statement.yield"
                    | "statement.return"
                    | "statement.break"
                    | "statement.continue"
                    | "statement.condition"
                    | "statement.scope"
            ) {
                return Err(err(kw_at, format!("`{kw}` defines no values")));
            }
        }
        match kw {
            "statement.op" => {
                self.bump();
                self.expect(&Tok::LBrace)?;
                let s = self.new_stmt(b, at);
                let mut ops = Vec::new();
                while *self.peek() != Tok::RBrace {
                    ops.push(self.op()?);
                }
                self.bump();
                self.set_kind(s, StmtKind::Op(ops.into()));
            }
            "statement.for" => {
                self.bump();
                self.for_stmt(b, at, lhs)?;
            }
            "statement.if" => {
                self.bump();
                self.if_stmt(b, at, lhs)?;
            }
            "statement.while" => {
                self.bump();
                self.while_stmt(b, at, lhs)?;
            }
            "statement.yield" | "statement.return" | "statement.break" | "statement.continue" => {
                self.bump();
                let vs = self.uses();
                let kind = match kw {
                    "statement.yield" => StmtKind::Yield(vs.into()),
                    "statement.return" => StmtKind::Return(vs.into()),
                    "statement.break" => StmtKind::Break(vs.into()),
                    _ => StmtKind::Continue(vs.into()),
                };
                let s = self.new_stmt(b, at);
                self.set_kind(s, kind);
            }
            "statement.condition" => {
                self.bump();
                let (n, _) = self.value_name("a condition `%value`")?;
                let c = self.use_value(n);
                let s = self.new_stmt(b, at);
                self.set_kind(s, StmtKind::Condition(c));
            }
            "statement.scope" => {
                self.bump();
                let (word, wat) = self.ident("a scope kind (`incore`)")?;
                let kind = match word {
                    "incore" => ScopeKind::InCore,
                    _ => {
                        return Err(err(
                            wat,
                            format!("unknown scope kind `{word}` (expected `incore`)"),
                        ));
                    }
                };
                self.expect(&Tok::LBrace)?;
                let s = self.new_stmt(b, at);
                let body = self.m.new_block(Some(b), Some(s), BlockRole::Scope);
                self.set_kind(s, StmtKind::Scope(kind, body));
                self.block_body(body)?;
            }
            _ if kw.starts_with("statement.") => {
                return Err(err(kw_at, format!("unknown statement `{kw}`")));
            }
            _ => {
                return Err(err(
                    kw_at,
                    format!(
                        "expected a statement, found `{kw}` (ops go inside `statement.op {{ .. }}`)"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `iter_args(%a = %init : T, ..)`, if present: the names, inits and types.
    fn iter_args_clause(&mut self) -> PResult<Vec<IterArgText<'a>>> {
        let mut out = Vec::new();
        if !self.is_ident("iter_args") {
            return Ok(out);
        }
        self.bump();
        self.expect(&Tok::LParen)?;
        if self.eat(&Tok::RParen) {
            return Ok(out);
        }
        loop {
            let (name, _) = self.value_name("an iteration argument `%name`")?;
            self.expect(&Tok::Eq)?;
            let (init, _) = self.value_name("an initial value `%value`")?;
            let init = self.use_value(init);
            self.expect(&Tok::Colon)?;
            let ty = self.ty()?;
            out.push((name, init, ty));
            if self.eat(&Tok::RParen) {
                return Ok(out);
            }
            if !self.eat(&Tok::Comma) {
                return Err(self.unexpected("`,` or `)`"));
            }
        }
    }

    /// An optional `-> (T, ..)` result annotation.
    fn result_annotation(&mut self, n: usize) -> PResult<Option<Vec<Type>>> {
        let at = self.at();
        if !self.eat(&Tok::Arrow) {
            return Ok(None);
        }
        let tys = self.type_list_or_one()?;
        if tys.len() != n {
            return Err(err(
                at,
                format!("{} result types for {n} results", tys.len()),
            ));
        }
        Ok(Some(tys))
    }

    fn define_results(&mut self, s: StmtId, lhs: &[NameAt<'a>], tys: &[Type]) -> Vec<ValueId> {
        lhs.iter()
            .enumerate()
            .map(|(i, (n, _))| {
                let ty = tys.get(i).cloned().unwrap_or(Type::Unknown);
                self.define(n, ty, ValueDef::StmtResult(s, i as u32))
            })
            .collect()
    }

    fn for_stmt(&mut self, b: BlockId, at: usize, lhs: Vec<NameAt<'a>>) -> PResult<()> {
        let (iv_name, _) = self.value_name("an induction variable `%name`")?;
        let iv_ty = if self.eat(&Tok::Colon) {
            Some(self.ty()?)
        } else {
            None
        };
        self.expect(&Tok::Eq)?;
        let (lb, _) = self.value_name("a lower bound `%value`")?;
        let lb = self.use_value(lb);
        self.expect_ident("to")?;
        let (ub, _) = self.value_name("an upper bound `%value`")?;
        let ub = self.use_value(ub);
        self.expect_ident("step")?;
        let (step, _) = self.value_name("a step `%value`")?;
        let step = self.use_value(step);
        let iter = self.iter_args_clause()?;
        let mut kind = ForKind::Sequential;
        let mut attrs = Attrs::new();
        let is_dict = *self.peek() == Tok::LBrace
            && matches!(self.peek_n(1), Tok::Ident(k) if !k.starts_with("statement."))
            && matches!(self.peek_n(2), Tok::Eq | Tok::Comma | Tok::RBrace);
        if is_dict {
            self.bump();
            loop {
                let (key, _) = self.ident("an attribute name")?;
                if key == "parallel" && *self.peek() != Tok::Eq {
                    kind = ForKind::Parallel;
                } else {
                    self.expect(&Tok::Eq)?;
                    let v = self.attr_value()?;
                    attrs.set(key.to_string(), v);
                }
                if self.eat(&Tok::RBrace) {
                    break;
                }
                if !self.eat(&Tok::Comma) {
                    return Err(self.unexpected("`,` or `}`"));
                }
            }
        }
        let annotated = self.result_annotation(lhs.len())?;
        self.expect(&Tok::LBrace)?;
        let s = self.new_stmt(b, at);
        let iv_ty = iv_ty.unwrap_or_else(|| derived_iv_type(&self.m, lb));
        let iv = self.define(iv_name, iv_ty, ValueDef::Iv(s));
        let mut iter_args = Vec::new();
        for (i, (name, init, ty)) in iter.into_iter().enumerate() {
            let arg = self.define(name, ty, ValueDef::IterArg(s, i as u32));
            iter_args.push(IterArg { arg, init });
        }
        let tys =
            annotated.unwrap_or_else(|| iter_args.iter().map(|a| self.ty_of(a.arg)).collect());
        let results = self.define_results(s, &lhs, &tys);
        let body = self.m.new_block(Some(b), Some(s), BlockRole::ForBody);
        self.set_kind(
            s,
            StmtKind::For(ForStmt {
                iv,
                lb,
                ub,
                step,
                iter_args: iter_args.into(),
                body,
                results: results.into(),
                kind,
                attrs,
            }),
        );
        self.block_body(body)?;
        Ok(())
    }

    fn if_stmt(&mut self, b: BlockId, at: usize, lhs: Vec<NameAt<'a>>) -> PResult<()> {
        let (c, _) = self.value_name("a condition `%value`")?;
        let cond = self.use_value(c);
        let annotated = self.result_annotation(lhs.len())?;
        self.expect(&Tok::LBrace)?;
        let s = self.new_stmt(b, at);
        let then_block = self.m.new_block(Some(b), Some(s), BlockRole::Then);
        let else_block = self.m.new_block(Some(b), Some(s), BlockRole::Else);
        self.block_body(then_block)?;
        self.expect_ident("else")?;
        self.expect(&Tok::LBrace)?;
        self.block_body(else_block)?;
        // Results are defined after the branches (they are not visible inside them).
        let placeholder = vec![ValueId::new(0); lhs.len()];
        let mut kind = StmtKind::If(IfStmt {
            cond,
            then_block,
            else_block,
            results: placeholder.into(),
        });
        let tys = annotated
            .or_else(|| derived_result_types(&self.m, &kind))
            .unwrap_or_default();
        let results = self.define_results(s, &lhs, &tys);
        if let StmtKind::If(i) = &mut kind {
            i.results = results.into();
        }
        self.set_kind(s, kind);
        Ok(())
    }

    fn while_stmt(&mut self, b: BlockId, at: usize, lhs: Vec<NameAt<'a>>) -> PResult<()> {
        let iter = self.iter_args_clause()?;
        let annotated = self.result_annotation(lhs.len())?;
        self.expect_ident("cond")?;
        self.expect(&Tok::LBrace)?;
        let s = self.new_stmt(b, at);
        let mut iter_args = Vec::new();
        for (i, (name, init, ty)) in iter.into_iter().enumerate() {
            let arg = self.define(name, ty, ValueDef::IterArg(s, i as u32));
            iter_args.push(IterArg { arg, init });
        }
        let tys =
            annotated.unwrap_or_else(|| iter_args.iter().map(|a| self.ty_of(a.arg)).collect());
        let results = self.define_results(s, &lhs, &tys);
        let cond_block = self.m.new_block(Some(b), Some(s), BlockRole::WhileCond);
        let body = self.m.new_block(Some(b), Some(s), BlockRole::WhileBody);
        self.set_kind(
            s,
            StmtKind::While(WhileStmt {
                iter_args: iter_args.into(),
                cond_block,
                body,
                results: results.into(),
            }),
        );
        self.block_body(cond_block)?;
        self.expect_ident("do")?;
        self.expect(&Tok::LBrace)?;
        self.block_body(body)?;
        Ok(())
    }

    // ---- ops ----------------------------------------------------------------------------

    fn push_op(&mut self, opcode: Opcode, operands: Vec<ValueId>, attrs: Attrs, at: usize) -> OpId {
        self.m.ops.push(Operation {
            opcode,
            operands: operands.into(),
            results: ValueList::new(),
            attrs,
            span: SpanId(at as u32),
        })
    }

    fn define_op_results(&mut self, op: OpId, lhs: &[NameAt<'a>], tys: Vec<Type>) {
        let mut results = Vec::new();
        for (i, ((n, _), ty)) in lhs.iter().zip(tys).enumerate() {
            results.push(self.define(n, ty, ValueDef::OpResult(op, i as u32)));
        }
        if let Some(o) = self.m.ops.get_mut(op) {
            o.results = results.into();
        }
    }

    /// A literal, if the current token is one (for constants and operand type lists).
    fn literal(&mut self) -> PResult<Option<Constant>> {
        let at = self.at();
        let c = match *self.peek() {
            Tok::Int(v) => match (i64::try_from(v), u64::try_from(v)) {
                (Ok(x), _) => Constant::Int64(x),
                (_, Ok(x)) => Constant::SizeT(x),
                _ => return Err(err(at, format!("integer literal `{v}` is out of range"))),
            },
            Tok::Float(v) => Constant::Double(v),
            Tok::Ident("true") => Constant::Bool(true),
            Tok::Ident("false") => Constant::Bool(false),
            Tok::Ident("nan") => Constant::Double(f64::NAN),
            Tok::Ident("inf") => Constant::Double(f64::INFINITY),
            _ => return Ok(None),
        };
        self.bump();
        Ok(Some(c))
    }

    fn op(&mut self) -> PResult<OpId> {
        let at = self.at();
        let lhs = if matches!(self.peek(), Tok::Value(_)) {
            let names = self.value_names()?;
            self.expect(&Tok::Eq)?;
            names
        } else {
            Vec::new()
        };
        if let Some(c) = self.literal()? {
            if lhs.len() != 1 {
                return Err(err(at, "a constant defines exactly one value"));
            }
            self.expect(&Tok::Colon)?;
            let ty = self.ty()?;
            let mut attrs = Attrs::new();
            if *self.peek() == Tok::LBrace {
                attrs = self.attr_dict()?;
            }
            if attrs.get("value").is_none() {
                attrs.0.insert(0, ("value".into(), constant_attr(c)));
            }
            let op = self.push_op(Opcode::Const, Vec::new(), attrs, at);
            self.define_op_results(op, &lhs, vec![ty]);
            if let Some(v) = lhs.first().and_then(|(n, _)| self.names.get(*n).copied())
                && let Some(d) = self.m.values.get_mut(v)
                && d.def == ValueDef::OpResult(op, 0)
            {
                d.constant = Some(c);
            }
            return Ok(op);
        }
        let (name, name_at) = match *self.peek() {
            Tok::Ident(s) => (s, self.at()),
            _ if lhs.is_empty() => return Err(self.unexpected("an op or `}`")),
            _ => return Err(self.unexpected("an op or a constant")),
        };
        if name.starts_with("statement.") {
            return Err(err(
                name_at,
                format!("expected an op or the `}}` closing `statement.op`, found `{name}`"),
            ));
        }
        self.bump();
        let (dialect, mnemonic) = name.split_once('.').unwrap_or(("", name));
        let opcode = Opcode::lookup(dialect, mnemonic)
            .ok_or_else(|| err(name_at, format!("unknown op `{name}`")))?;
        let mut attrs = Attrs::new();
        let operands;
        let call_form = opcode == Opcode::Call && matches!(self.peek(), Tok::Symbol(_));
        if call_form {
            let (callee, _) = self.symbol("a callee `@name`")?;
            attrs.set("callee", Attr::Symbol(callee.to_string()));
            self.expect(&Tok::LParen)?;
            operands = self.uses();
            self.expect(&Tok::RParen)?;
        } else {
            operands = self.uses();
        }
        self.expect(&Tok::Colon)?;
        let types_at = self.at();
        self.expect(&Tok::LParen)?;
        let mut entries = Vec::new();
        if !self.eat(&Tok::RParen) {
            loop {
                let eat = self.at();
                entries.push((self.type_entry()?, eat));
                if self.eat(&Tok::RParen) {
                    break;
                }
                if !self.eat(&Tok::Comma) {
                    return Err(self.unexpected("`,` or `)`"));
                }
            }
        }
        if entries.len() != operands.len() {
            return Err(err(
                types_at,
                format!(
                    "`{name}` has {} operand{} but {} operand type{}",
                    operands.len(),
                    if operands.len() == 1 { "" } else { "s" },
                    entries.len(),
                    if entries.len() == 1 { "" } else { "s" }
                ),
            ));
        }
        for (i, ((entry, eat), &v)) in entries.into_iter().zip(&operands).enumerate() {
            let listed = match entry {
                TypeEntry::Type(t) => t,
                TypeEntry::Value(w) => self.ty_of(w),
            };
            let undefined = !self.defined.contains(&v);
            let actual = self.ty_of(v);
            if undefined && actual == Type::Unknown {
                if let Some(d) = self.m.values.get_mut(v) {
                    d.ty = listed;
                }
            } else if listed != actual && listed != Type::Unknown {
                return Err(err(
                    eat,
                    format!(
                        "operand {} of `{name}` (`{}`) has type {}, but the type list says {}",
                        i + 1,
                        self.m.ssa_name(v),
                        type_str(&self.m, &actual),
                        type_str(&self.m, &listed)
                    ),
                ));
            }
        }
        let arrow_at = self.expect(&Tok::Arrow)?;
        let tys = self.type_list_or_one()?;
        if tys.len() != lhs.len() {
            return Err(err(
                arrow_at,
                format!(
                    "`{name}` defines {} value{} but lists {} result type{}",
                    lhs.len(),
                    if lhs.len() == 1 { "" } else { "s" },
                    tys.len(),
                    if tys.len() == 1 { "" } else { "s" }
                ),
            ));
        }
        if *self.peek() == Tok::LBrace {
            for (k, v) in self.attr_dict()?.0 {
                attrs.set(k, v);
            }
        }
        let op = self.push_op(opcode, operands, attrs, at);
        self.define_op_results(op, &lhs, tys);
        Ok(op)
    }

    /// One entry of an operand type list: a type, a value (its type) or a literal (its
    /// inferred type).
    fn type_entry(&mut self) -> PResult<TypeEntry> {
        if let Tok::Value(n) = *self.peek() {
            self.bump();
            return Ok(TypeEntry::Value(self.use_value(n)));
        }
        if let Some(c) = self.literal()? {
            return Ok(TypeEntry::Type(Type::Scalar(c.inferred_dtype())));
        }
        Ok(TypeEntry::Type(self.ty()?))
    }

    // ---- types --------------------------------------------------------------------------

    /// `(T, ..)` or a single type.
    fn type_list_or_one(&mut self) -> PResult<Vec<Type>> {
        if !self.eat(&Tok::LParen) {
            return Ok(vec![self.ty()?]);
        }
        let mut out = Vec::new();
        if self.eat(&Tok::RParen) {
            return Ok(out);
        }
        loop {
            out.push(self.ty()?);
            if self.eat(&Tok::RParen) {
                return Ok(out);
            }
            if !self.eat(&Tok::Comma) {
                return Err(self.unexpected("`,` or `)`"));
            }
        }
    }

    pub(crate) fn ty(&mut self) -> PResult<Type> {
        self.nested(Self::ty_inner)
    }

    /// The optional placement of a tile type: `, mem=Vec` and then `, addr=512`.
    fn tile_memref(&mut self, dtype: DataType, shape: &[u64]) -> PResult<Option<MemRef>> {
        if !self.eat(&Tok::Comma) {
            return Ok(None);
        }
        let (key, at) = self.ident("`mem=`")?;
        if key != "mem" {
            return Err(err(
                at,
                format!("expected `mem=` or `>` in a tile type, found `{key}`"),
            ));
        }
        self.expect(&Tok::Eq)?;
        let (space_name, space_at) = self.ident("a memory space")?;
        let space = MemorySpace::from_name(space_name).ok_or_else(|| {
            let known: Vec<&str> = MemorySpace::ALL.iter().map(|s| s.name()).collect();
            err(
                space_at,
                format!(
                    "unknown memory space `{space_name}` (expected one of {})",
                    known.join(", ")
                ),
            )
        })?;
        let mut addr = None;
        if self.eat(&Tok::Comma) {
            let (key, at) = self.ident("`addr=`")?;
            if key != "addr" {
                return Err(err(
                    at,
                    format!("expected `addr=` or `>` in a tile type, found `{key}`"),
                ));
            }
            self.expect(&Tok::Eq)?;
            let at = self.at();
            addr =
                match *self.peek() {
                    Tok::Int(v) => {
                        self.bump();
                        Some(u64::try_from(v).map_err(|_| {
                            err(at, "a tile address must be a non-negative integer")
                        })?)
                    }
                    _ => return Err(self.unexpected("a byte offset")),
                };
        }
        let size = TileType::new(dtype, shape).buffer_bytes();
        Ok(Some(MemRef { space, addr, size }))
    }

    fn ty_inner(&mut self) -> PResult<Type> {
        let at = self.at();
        let word = match *self.peek() {
            Tok::Ident(s) => s,
            _ => return Err(self.unexpected("a type")),
        };
        self.bump();
        match word {
            "tile" => {
                self.expect(&Tok::Lt)?;
                let first_at = self.at();
                let first = self.dims()?;
                self.expect(&Tok::Comma)?;
                let (valid, shape_at, shape) = if *self.peek() == Tok::LBracket {
                    let shape_at = self.at();
                    let shape = self.dims()?;
                    self.expect(&Tok::Comma)?;
                    (first, shape_at, shape)
                } else {
                    (first.clone(), first_at, first)
                };
                let shape: Shape = shape
                    .iter()
                    .map(|d| d.as_const())
                    .collect::<Option<_>>()
                    .ok_or_else(|| err(shape_at, "a tile's shape must be static integers"))?;
                if valid.len() != shape.len() {
                    return Err(err(
                        first_at,
                        format!(
                            "a tile's valid region has {} extents but its shape has {}",
                            valid.len(),
                            shape.len()
                        ),
                    ));
                }
                let dtype = self.dtype()?;
                let memref = self.tile_memref(dtype, &shape)?;
                self.expect(&Tok::Gt)?;
                Ok(Type::Tile(TileType {
                    dtype,
                    shape,
                    valid,
                    memref,
                }))
            }
            "tensor" => {
                self.expect(&Tok::Lt)?;
                let shape = self.dims()?;
                self.expect(&Tok::Comma)?;
                let dtype = self.dtype()?;
                let mut format = TensorFormat::Nd;
                if self.eat(&Tok::Comma) {
                    let (f, fat) = self.ident("a tensor format (`ND` or `NZ`)")?;
                    format = match f {
                        "ND" => TensorFormat::Nd,
                        "NZ" => TensorFormat::Nz,
                        _ => {
                            return Err(err(
                                fat,
                                format!("unknown tensor format `{f}` (expected `ND` or `NZ`)"),
                            ));
                        }
                    };
                }
                self.expect(&Tok::Gt)?;
                Ok(Type::Tensor(TensorType {
                    dtype,
                    shape,
                    format,
                }))
            }
            "tuple" => {
                self.expect(&Tok::Lt)?;
                let mut parts = Vec::new();
                if !self.eat(&Tok::Gt) {
                    loop {
                        parts.push(self.ty()?);
                        if self.eat(&Tok::Gt) {
                            break;
                        }
                        if !self.eat(&Tok::Comma) {
                            return Err(self.unexpected("`,` or `>`"));
                        }
                    }
                }
                Ok(Type::Tuple(parts))
            }
            "pipe" => {
                self.expect(&Tok::Lt)?;
                let (p, pat) = self.ident("a pipe kind")?;
                let kind = PipeKind::from_name(p)
                    .ok_or_else(|| err(pat, format!("unknown pipe kind `{p}`")))?;
                self.expect(&Tok::Gt)?;
                Ok(Type::Pipe(kind))
            }
            _ if word.eq_ignore_ascii_case("unknown") => Ok(Type::Unknown),
            _ => DataType::from_name(word)
                .map(Type::Scalar)
                .ok_or_else(|| err(at, format!("unknown type `{word}`"))),
        }
    }

    fn dtype(&mut self) -> PResult<DataType> {
        let (word, at) = self.ident("an element type")?;
        DataType::from_name(word).ok_or_else(|| err(at, format!("unknown element type `{word}`")))
    }

    /// `[e, ..]` where each extent is an integer, `%value` or `?`.
    fn dims(&mut self) -> PResult<Extents> {
        self.expect(&Tok::LBracket)?;
        let mut out = Extents::new();
        if self.eat(&Tok::RBracket) {
            return Ok(out);
        }
        loop {
            let at = self.at();
            let d = match *self.peek() {
                Tok::Int(v) => Dim::Const(u64::try_from(v).map_err(|_| {
                    err(at, format!("extent `{v}` must be a non-negative integer"))
                })?),
                Tok::Value(n) => Dim::Value(self.value_for(n, Type::Scalar(DataType::Int64))),
                Tok::Question => Dim::Dynamic,
                _ => return Err(self.unexpected("an extent (an integer, `%value` or `?`)")),
            };
            self.bump();
            out.push(d);
            if self.eat(&Tok::RBracket) {
                return Ok(out);
            }
            if !self.eat(&Tok::Comma) {
                return Err(self.unexpected("`,` or `]`"));
            }
        }
    }

    // ---- attributes ---------------------------------------------------------------------

    /// `{k=v, ..}` (also `{}`).
    fn attr_dict(&mut self) -> PResult<Attrs> {
        Ok(Attrs(self.attr_map()?))
    }

    fn attr_map(&mut self) -> PResult<Vec<AttrEntry>> {
        self.expect(&Tok::LBrace)?;
        let mut out: Vec<AttrEntry> = Vec::new();
        if self.eat(&Tok::RBrace) {
            return Ok(out);
        }
        loop {
            let (key, _) = self.ident("an attribute name")?;
            self.expect(&Tok::Eq)?;
            let v = self.attr_value()?;
            match out.iter_mut().find(|(k, _)| k == key) {
                Some(slot) => slot.1 = v,
                None => out.push((key.to_string().into(), v)),
            }
            if self.eat(&Tok::RBrace) {
                return Ok(out);
            }
            if !self.eat(&Tok::Comma) {
                return Err(self.unexpected("`,` or `}`"));
            }
        }
    }

    fn attr_value(&mut self) -> PResult<Attr> {
        self.nested(Self::attr_value_inner)
    }

    fn attr_value_inner(&mut self) -> PResult<Attr> {
        let at = self.at();
        let a = match self.peek().clone() {
            Tok::Int(v) => Attr::Int(
                i64::try_from(v).map_err(|_| err(at, format!("integer `{v}` is out of range")))?,
            ),
            Tok::Float(v) => Attr::Float(v),
            Tok::Str(s) => Attr::Str(s),
            Tok::Value(n) => Attr::Value(self.use_value(n)),
            Tok::Symbol(s) => Attr::Symbol(s.to_string()),
            Tok::Ident("true") => Attr::Bool(true),
            Tok::Ident("false") => Attr::Bool(false),
            Tok::Ident("nan") => Attr::Float(f64::NAN),
            Tok::Ident("inf") => Attr::Float(f64::INFINITY),
            Tok::Ident(s) => Attr::Ident(s.to_string()),
            Tok::LBracket => {
                self.bump();
                let mut items = Vec::new();
                if !self.eat(&Tok::RBracket) {
                    loop {
                        items.push(self.attr_value()?);
                        if self.eat(&Tok::RBracket) {
                            break;
                        }
                        if !self.eat(&Tok::Comma) {
                            return Err(self.unexpected("`,` or `]`"));
                        }
                    }
                }
                return Ok(Attr::List(items));
            }
            Tok::LBrace => return Ok(Attr::Map(self.attr_map()?)),
            _ => return Err(self.unexpected("an attribute value")),
        };
        self.bump();
        Ok(a)
    }
}
