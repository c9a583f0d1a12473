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
//!
//! Here: the tokens, values and the module and its functions; the `Parser`'s other methods
//! live with what they read, in `stmt` (statements), `op` (ops) and `types` (types and
//! attributes).

mod op;
mod stmt;
mod types;

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
}
