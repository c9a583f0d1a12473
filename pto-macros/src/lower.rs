//! The kernel body to `IRBuilder` calls.
//!
//! The macro only maps Rust names to builder variables (`declare_var` / `assign_var` /
//! `use_var`); SSA construction (loop-carried values, branch merges) is the builder's job.
//! Every op and statement is created after `ctx.set_span(id)`, where `id` indexes the
//! [`SpanTable`], so every diagnostic of the builder, the verifier and the lowering maps back
//! to the user's tokens.
//!
//! Error recovery: an ill-typed `let` leaves its name *poisoned* (later uses are silently
//! skipped, so one mistake gives one error), an ill-typed condition or loop bound is replaced
//! by a placeholder constant so the body is still checked, and scopes are always popped.

use rustc_hash::FxHashSet;

use proc_macro2::Span;
use pto_ir::ops::{OPS, OpInfo, Spelling};
use pto_ir::sem::RoundMode;
use pto_ir::{
    Attr, Attrs, BlockId, BlockRole, Constant, DataType, Diag, Direction, FuncId, IRBuilder,
    IRBuilderContext, InlineVec, Name, OpClass, Opcode, ProgramModule, Signature, SpanId,
    TensorFormat, TensorType, TileType, Type, ValueId, ValueList,
};
use quote::ToTokens;
use syn::{
    AngleBracketedGenericArguments, BinOp, Expr, ExprCall, ExprForLoop, ExprIf, ExprMethodCall,
    ExprReturn, ExprWhile, GenericArgument, Ident, Lit, Local, Macro, Pat, RangeLimits, Stmt, UnOp,
};

use crate::args::Args;
use crate::ctxt::{Errors, error_range, items, range_of, tokens_range};
use crate::model::{DimSpec, Kernel, ParamTy, int_literal, scalar_dtype, with_spelling};

/// Where a `SpanId` points: a token range, or a syn node whose first and last tokens are
/// found only if a diagnostic needs them (finding them means printing the node).
#[derive(Clone, Copy)]
enum Anchor<'k> {
    Range(Span, Span),
    Node(&'k dyn ToTokens),
}

/// `SpanId` -> the user's tokens (first and last token of the node).
pub(crate) struct SpanTable<'k> {
    spans: Vec<Anchor<'k>>,
    fallback: (Span, Span),
}

impl<'k> SpanTable<'k> {
    fn new(fallback: (Span, Span)) -> Self {
        SpanTable {
            // Every expression and statement takes a span: room for a typical kernel's.
            spans: Vec::with_capacity(128),
            fallback,
        }
    }

    fn push(&mut self, a: Anchor<'k>) -> SpanId {
        self.spans.push(a);
        SpanId((self.spans.len() - 1) as u32)
    }

    fn id_range(&mut self, (start, end): (Span, Span)) -> SpanId {
        self.push(Anchor::Range(start, end))
    }

    fn id(&mut self, node: &'k dyn ToTokens) -> SpanId {
        self.push(Anchor::Node(node))
    }

    /// The tokens of a span id; the function name for `SpanId::NONE`.
    pub(crate) fn get(&self, id: SpanId) -> (Span, Span) {
        match self.spans.get(id.0 as usize) {
            Some(Anchor::Range(start, end)) if id.is_some() => (*start, *end),
            Some(Anchor::Node(node)) if id.is_some() => tokens_range(*node),
            _ => self.fallback,
        }
    }

    /// A diagnostic as a `syn::Error` at its tokens, notes appended, with the IR's value
    /// names in the user's spelling.
    pub(crate) fn error(&self, d: &Diag) -> syn::Error {
        let (start, end) = self.get(d.at);
        let mut msg = user_names(&d.message);
        for n in &d.notes {
            msg.push_str("\n  = note: ");
            msg.push_str(&user_names(n));
        }
        error_range(start, end, msg)
    }
}

/// The first attribute on a statement (`#[cfg(..)] let b = 2;`), if any.
fn stmt_attr(s: &Stmt) -> Option<&syn::Attribute> {
    match s {
        Stmt::Local(l) => l.attrs.first(),
        Stmt::Macro(m) => m.attrs.first(),
        Stmt::Item(_) => None,
        Stmt::Expr(e, _) => expr_attrs(e).first(),
    }
}

/// The outer attributes of an expression statement: syn puts those of `#[a] x = y` on its
/// leftmost operand.
fn expr_attrs(e: &Expr) -> &[syn::Attribute] {
    let own = own_attrs(e);
    if !own.is_empty() {
        return own;
    }
    match e {
        Expr::Assign(x) => expr_attrs(&x.left),
        Expr::Binary(x) => expr_attrs(&x.left),
        Expr::MethodCall(x) => expr_attrs(&x.receiver),
        Expr::Call(x) => expr_attrs(&x.func),
        Expr::Cast(x) => expr_attrs(&x.expr),
        Expr::Field(x) => expr_attrs(&x.base),
        Expr::Index(x) => expr_attrs(&x.expr),
        _ => &[],
    }
}

fn own_attrs(e: &Expr) -> &[syn::Attribute] {
    match e {
        Expr::Assign(x) => &x.attrs,
        Expr::Binary(x) => &x.attrs,
        Expr::Block(x) => &x.attrs,
        Expr::Break(x) => &x.attrs,
        Expr::Call(x) => &x.attrs,
        Expr::Continue(x) => &x.attrs,
        Expr::ForLoop(x) => &x.attrs,
        Expr::If(x) => &x.attrs,
        Expr::Loop(x) => &x.attrs,
        Expr::Macro(x) => &x.attrs,
        Expr::MethodCall(x) => &x.attrs,
        Expr::Paren(x) => &x.attrs,
        Expr::Path(x) => &x.attrs,
        Expr::Return(x) => &x.attrs,
        Expr::Unary(x) => &x.attrs,
        Expr::While(x) => &x.attrs,
        _ => &[],
    }
}

/// `text` with each IR value name written as the user wrote it: `%B_1 x 128` is `B x 128`
/// (the user never sees the IR's `%` and numbers). An unnamed `%7` stays as it is.
fn user_names(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        out.push_str(rest.get(..at).unwrap_or_default());
        let after = rest.get(at + 1..).unwrap_or_default();
        let len = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let name = after.get(..len).unwrap_or_default();
        match name.rsplit_once('_') {
            Some((base, n))
                if !base.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) =>
            {
                out.push_str(base);
            }
            _ => {
                out.push('%');
                out.push_str(name);
            }
        }
        rest = after.get(len..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// The result of lowering: the verified module and the span table for later diagnostics.
pub(crate) struct Lowered<'k> {
    pub module: ProgramModule,
    pub func: FuncId,
    pub spans: SpanTable<'k>,
}

/// Marker: an error was reported for this expression.
#[derive(Clone, Copy, Debug)]
struct Poison;

type R<T> = Result<T, Poison>;

/// An expression's value: an IR value, or a literal whose type the context fixes.
#[derive(Clone, Copy, Debug)]
enum Val {
    V(ValueId),
    Int(i64, SpanId),
    Float(f64, SpanId),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tail {
    /// The function body: a tail expression is the return value.
    Func,
    /// An `if` branch used as a value.
    Value,
    /// Any other block: no value.
    Unit,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Max,
    Min,
    FloorDiv,
    FloorMod,
}

impl Bin {
    fn scalar(self) -> Opcode {
        match self {
            Bin::Add => Opcode::ScalarAdd,
            Bin::Sub => Opcode::ScalarSub,
            Bin::Mul => Opcode::ScalarMul,
            Bin::Div => Opcode::ScalarDiv,
            Bin::Rem => Opcode::ScalarRem,
            Bin::Eq => Opcode::ScalarEq,
            Bin::Ne => Opcode::ScalarNe,
            Bin::Lt => Opcode::ScalarLt,
            Bin::Le => Opcode::ScalarLe,
            Bin::Gt => Opcode::ScalarGt,
            Bin::Ge => Opcode::ScalarGe,
            Bin::And => Opcode::ScalarAnd,
            Bin::Or => Opcode::ScalarOr,
            Bin::BitAnd => Opcode::ScalarBitAnd,
            Bin::BitOr => Opcode::ScalarBitOr,
            Bin::BitXor => Opcode::ScalarBitXor,
            Bin::Shl => Opcode::ScalarShl,
            Bin::Shr => Opcode::ScalarShr,
            Bin::Max => Opcode::ScalarMax,
            Bin::Min => Opcode::ScalarMin,
            Bin::FloorDiv => Opcode::ScalarFloorDiv,
            Bin::FloorMod => Opcode::ScalarFloorMod,
        }
    }

    fn tile(self) -> Option<Opcode> {
        Some(match self {
            Bin::Add => Opcode::TileAdd,
            Bin::Sub => Opcode::TileSub,
            Bin::Mul => Opcode::TileMul,
            Bin::Div => Opcode::TileDiv,
            Bin::Rem => Opcode::TileRem,
            Bin::Max => Opcode::TileMax,
            Bin::Min => Opcode::TileMin,
            Bin::BitAnd => Opcode::TileAnd,
            Bin::BitOr => Opcode::TileOr,
            Bin::BitXor => Opcode::TileXor,
            Bin::Shl => Opcode::TileShl,
            Bin::Shr => Opcode::TileShr,
            Bin::FloorMod => Opcode::TileFloorMod,
            _ => return None,
        })
    }

    fn symbol(self) -> &'static str {
        match self {
            Bin::Add => "+",
            Bin::Sub => "-",
            Bin::Mul => "*",
            Bin::Div => "/",
            Bin::Rem => "%",
            Bin::Eq => "==",
            Bin::Ne => "!=",
            Bin::Lt => "<",
            Bin::Le => "<=",
            Bin::Gt => ">",
            Bin::Ge => ">=",
            Bin::And => "&&",
            Bin::Or => "||",
            Bin::BitAnd => "&",
            Bin::BitOr => "|",
            Bin::BitXor => "^",
            Bin::Shl => "<<",
            Bin::Shr => ">>",
            Bin::Max => "max",
            Bin::Min => "min",
            Bin::FloorDiv => "floor_div",
            Bin::FloorMod => "floor_mod",
        }
    }
}

/// `(binary op, compound-assignment?)` for a syn operator.
fn bin_of(op: &BinOp) -> Option<(Bin, bool)> {
    Some(match op {
        BinOp::Add(_) => (Bin::Add, false),
        BinOp::Sub(_) => (Bin::Sub, false),
        BinOp::Mul(_) => (Bin::Mul, false),
        BinOp::Div(_) => (Bin::Div, false),
        BinOp::Rem(_) => (Bin::Rem, false),
        BinOp::And(_) => (Bin::And, false),
        BinOp::Or(_) => (Bin::Or, false),
        BinOp::BitXor(_) => (Bin::BitXor, false),
        BinOp::BitAnd(_) => (Bin::BitAnd, false),
        BinOp::BitOr(_) => (Bin::BitOr, false),
        BinOp::Shl(_) => (Bin::Shl, false),
        BinOp::Shr(_) => (Bin::Shr, false),
        BinOp::Eq(_) => (Bin::Eq, false),
        BinOp::Lt(_) => (Bin::Lt, false),
        BinOp::Le(_) => (Bin::Le, false),
        BinOp::Ne(_) => (Bin::Ne, false),
        BinOp::Ge(_) => (Bin::Ge, false),
        BinOp::Gt(_) => (Bin::Gt, false),
        BinOp::AddAssign(_) => (Bin::Add, true),
        BinOp::SubAssign(_) => (Bin::Sub, true),
        BinOp::MulAssign(_) => (Bin::Mul, true),
        BinOp::DivAssign(_) => (Bin::Div, true),
        BinOp::RemAssign(_) => (Bin::Rem, true),
        BinOp::BitXorAssign(_) => (Bin::BitXor, true),
        BinOp::BitAndAssign(_) => (Bin::BitAnd, true),
        BinOp::BitOrAssign(_) => (Bin::BitOr, true),
        BinOp::ShlAssign(_) => (Bin::Shl, true),
        BinOp::ShrAssign(_) => (Bin::Shr, true),
        _ => return None,
    })
}

const FUNCTIONS: &str = "min(a, b), max(a, b), matmul(a, b), matmul_acc(acc, a, b), matmul_bias(a, b, bias), \
                         Tile::<T, R, C>::zeros(), Tile::<T, R, C>::full(v)";
/// Tile methods the macro spells itself (composed of several ops, or with arguments that
/// are not values), after the op table's.
const TILE_METHODS_COMPOSED: &str =
    "floor_div(b), cast_round::<T>(Round::Nearest), extract::<R, C>([i, j]), valid([m, n])";

/// The number of arguments of a tile method the op table spells: its elementwise,
/// reduction and transpose rows written as a method (`a.exp()`, `a.max(b)`).
fn tile_method_arity(row: &OpInfo) -> Option<usize> {
    if row.dialect != "tile" || !matches!(row.spelling, Spelling::Method(_)) {
        return None;
    }
    match row.class {
        OpClass::TileUnary
        | OpClass::TileUnaryFloat
        | OpClass::RowReduce
        | OpClass::ColReduce
        | OpClass::Transpose => Some(0),
        OpClass::TileBinary | OpClass::TileBitwise => Some(1),
        _ => None,
    }
}

/// The op a tile method of the op table builds, and its number of arguments.
fn table_tile_method(name: &str) -> Option<(Opcode, usize)> {
    OPS.iter().find_map(|row| {
        let arity = tile_method_arity(row)?;
        matches!(row.spelling, Spelling::Method(m) if m == name).then_some((row.opcode, arity))
    })
}

/// The "tile methods: .." list of messages: the op table's methods, `cast`, then the composed
/// ones.
fn tile_methods() -> String {
    let mut out = String::new();
    for row in OPS {
        if tile_method_arity(row).is_some() || row.opcode == Opcode::TileCast {
            let text = row.surface.strip_prefix("a.").unwrap_or(row.surface);
            out.push_str(text);
            out.push_str(", ");
        }
    }
    out.push_str(TILE_METHODS_COMPOSED);
    out
}

/// The rounding mode a `Round::X` argument names.
fn round_mode(e: &Expr) -> Option<RoundMode> {
    let Expr::Path(p) = e else { return None };
    let last = p.path.segments.last()?;
    let n = p.path.segments.len();
    let prefix_ok = n == 1 || (n == 2 && p.path.segments.first()?.ident == "Round");
    if !prefix_ok {
        return None;
    }
    with_spelling(&last.ident, RoundMode::from_surface)
}
const TENSOR_METHODS: &str = "load::<R, C>([i, j]), store([i, j], tile)";
const SCALAR_METHODS: &str =
    "abs(), max(b), min(b), floor_div(b), floor_mod(b) (and `x as T` for conversions)";

/// Spells `ident` into `buf` (reused, so spelling allocates only when `buf` must grow).
fn spell(buf: &mut String, ident: &Ident) {
    use std::fmt::Write;
    buf.clear();
    let _ = write!(buf, "{ident}");
    // `r#loop` is the identifier `loop`: the IR names the value so, and the emitters make
    // their own identifiers from the name.
    if buf.starts_with("r#") {
        buf.drain(..2);
    }
}

/// The Rust spelling of a dtype, for messages.
fn rs(d: DataType) -> String {
    d.rust_name()
        .map_or_else(|| d.name().to_string(), str::to_string)
}

struct Lower<'k, 'e> {
    b: IRBuilder,
    ctx: IRBuilderContext,
    spans: SpanTable<'k>,
    errs: &'e mut Errors,
    kernel: &'k Kernel<'k>,
    /// Names whose `let` failed: uses are skipped without a second error.
    poisoned: FxHashSet<Name>,
    /// The bodies that have ended, in the order they ended, with their construct (`for`
    /// loop ...). Their blocks keep the names declared in them, which an unknown name is
    /// looked up in, so nothing is recorded per name while lowering.
    ended: Vec<(BlockId, &'static str)>,
    /// Spelling buffers for identifiers, reused by [`Lower::with_name`].
    names: Vec<String>,
    /// Whether the function body ended in `return` / a tail value.
    returned: bool,
}

/// Lowers the kernel into a verified module; `None` when errors were reported.
pub(crate) fn lower<'k>(k: &'k Kernel<'k>, args: &Args, errs: &mut Errors) -> Option<Lowered<'k>> {
    let name = crate::model::with_spelling(k.ident, str::to_string);
    let mut module = ProgramModule::new(name.clone());
    module.attrs.set("arch", Attr::Str(args.arch.clone()));
    // Room for a typical kernel up front: growing the arenas a doubling at a time would
    // copy every value and statement several times over.
    module.values.reserve(128);
    module.ops.reserve(64);
    module.stmts.reserve(64);
    module.blocks.reserve(32);
    let mut ctx = IRBuilderContext::new();
    // The kernel language assigns only `let mut` variables (through `assign_var`).
    ctx.strict_mutability = true;
    let mut lw = Lower {
        b: IRBuilder::new(module),
        ctx,
        spans: SpanTable::new(range_of(k.ident)),
        errs,
        kernel: k,
        poisoned: FxHashSet::default(),
        // Every loop body and `if` branch ends once: room for a typical kernel's.
        ended: Vec::with_capacity(16),
        names: Vec::new(),
        returned: false,
    };
    // Parameters, then the symbolic dimensions they mention (created once, shared by name).
    // The model spelled every name once; values share those names rather than copying them.
    let mut dims: Vec<(&Name, ValueId)> = Vec::new();
    let mut params = Vec::with_capacity(k.params.len());
    for p in &k.params {
        if matches!(p.ty, ParamTy::Invalid) {
            lw.poisoned.insert(Name::clone(&p.name));
            continue;
        }
        let v =
            lw.b.module_mut()
                .new_value_named(Type::Unknown, Some(Name::clone(&p.name)));
        let ty = match &p.ty {
            ParamTy::Scalar(d) => Type::Scalar(*d),
            ParamTy::Tensor { dtype, dims: ds } => {
                let mut shape = pto_ir::Extents::new();
                for d in ds {
                    shape.push(match d {
                        DimSpec::Const(c) => pto_ir::Dim::Const(*c),
                        DimSpec::Sym { name, .. } => {
                            let dv = match dims.iter().find(|(n, _)| *n == name) {
                                Some(&(_, dv)) => dv,
                                None => {
                                    let dv = lw.b.module_mut().new_value_named(
                                        Type::Scalar(DataType::Int64),
                                        Some(Name::clone(name)),
                                    );
                                    dims.push((name, dv));
                                    dv
                                }
                            };
                            pto_ir::Dim::Value(dv)
                        }
                    });
                }
                Type::Tensor(TensorType {
                    dtype: *dtype,
                    shape,
                    format: TensorFormat::Nd,
                })
            }
            ParamTy::Tile { dtype, shape } => Type::Tile(TileType::new(*dtype, shape.clone())),
            ParamTy::Invalid => Type::Unknown,
        };
        if let Some(d) = lw.b.module_mut().values.get_mut(v) {
            d.ty = ty;
        }
        params.push(pto_ir::Param {
            value: v,
            direction: p.direction,
        });
    }
    let returns = k
        .ret_dtype()
        .map(|d| vec![Type::Scalar(d)])
        .unwrap_or_default();
    let sig = Signature { params, returns };
    let func = match lw.b.create_function(&name, args.kind, sig, true) {
        Ok(f) => f,
        Err(d) => {
            let e = lw.spans.error(&d);
            lw.errs.push(e);
            return None;
        }
    };
    if let Err(d) = lw.b.enter_function_body(&mut lw.ctx, func) {
        let e = lw.spans.error(&d);
        lw.errs.push(e);
        return None;
    }
    let stmts = &k.body.stmts;
    lw.block(stmts, Tail::Func, None);
    if let Err(d) = lw.ctx.pop_scope() {
        lw.report(d);
    }
    if let Some(Some((d, ty))) = k.ret
        && !lw.returned
    {
        lw.errs.push_spanned(
            ty,
            format!(
                "the kernel returns `{}`, but its body does not end in a value; end it with a `{}` expression or `return v;`",
                rs(d),
                rs(d)
            ),
        );
    }
    let Lower {
        b,
        ctx,
        spans,
        errs,
        ..
    } = lw;
    // The verifier's errors are reported with the builder's: what was built of a kernel with
    // errors still verifies (ops that failed were not built, nor what used them).
    let built_with_errors = !errs.is_empty();
    let module = match b.finish(&ctx) {
        Ok(m) => m,
        Err(d) => {
            if !built_with_errors {
                errs.push(spans.error(&d));
            }
            return None;
        }
    };
    if let Err(ds) = pto_ir::verify(&module) {
        // A statement that failed leaves its block without the terminator it would have
        // ended in: those verifier errors only echo a builder error already reported.
        let echo = |d: &Diag| {
            built_with_errors
                && (d.message.contains("must end in") || d.message.contains("does not end in"))
        };
        for d in ds.iter().filter(|d| !echo(d)) {
            errs.push(spans.error(d));
        }
        return None;
    }
    if built_with_errors {
        return None;
    }
    Some(Lowered {
        module,
        func,
        spans,
    })
}

impl<'k> Lower<'k, '_> {
    // ----- diagnostics -----
    // (Cold, like `Errors`: off the path of a valid kernel.)

    #[cold]
    fn report(&mut self, d: Diag) {
        let e = self.spans.error(&d);
        self.errs.push(e);
    }

    fn check<T>(&mut self, r: Result<T, Diag>) -> R<T> {
        r.map_err(|d| {
            self.report(d);
            Poison
        })
    }

    #[cold]
    fn err<T>(&mut self, node: &(impl ToTokens + ?Sized), msg: impl std::fmt::Display) -> R<T> {
        self.errs.push_spanned(node, msg);
        Err(Poison)
    }

    #[cold]
    fn err_range<T>(&mut self, r: (Span, Span), msg: impl std::fmt::Display) -> R<T> {
        self.errs.push_range(r, msg);
        Err(Poison)
    }

    fn sid(&mut self, node: &'k dyn ToTokens) -> SpanId {
        self.spans.id(node)
    }

    fn at(&mut self, node: &'k dyn ToTokens) -> SpanId {
        let id = self.spans.id(node);
        self.ctx.set_span(id);
        id
    }

    // ----- values and types -----

    fn ty(&self, v: ValueId) -> &Type {
        self.b
            .module()
            .values
            .get(v)
            .map_or(&Type::Unknown, |d| &d.ty)
    }

    fn show(&self, t: &Type) -> String {
        pto_ir::typefmt::type_msg(self.b.module(), t)
    }

    fn val_scalar(&self, v: &Val) -> Option<DataType> {
        match v {
            Val::V(v) => self.ty(*v).as_scalar(),
            _ => None,
        }
    }

    /// The element type of a tile value (`None` for anything else); the tile's type itself
    /// is not copied, since the ops on tiles only need this.
    fn val_tile(&self, v: &Val) -> Option<DataType> {
        match v {
            Val::V(v) => self.ty(*v).as_tile().map(|t| t.dtype),
            _ => None,
        }
    }

    fn is_tensor(&self, v: &Val) -> bool {
        matches!(v, Val::V(v) if matches!(self.ty(*v), Type::Tensor(_)))
    }

    fn name_value(&mut self, v: ValueId, name: &Name) {
        if let Some(d) = self.b.module_mut().values.get_mut(v)
            && d.name.is_none()
            && d.constant.is_none()
        {
            d.name = Some(Name::clone(name));
        }
    }

    /// A literal as a constant of `hint`'s type when it fits (`int64` / `fp64` otherwise).
    fn materialize(&mut self, v: Val, hint: Option<DataType>) -> R<ValueId> {
        let (c, dtype, span) = match v {
            Val::V(v) => return Ok(v),
            Val::Int(i, s) => {
                let d = hint.filter(|d| d.is_numeric()).unwrap_or(DataType::Int64);
                let c = if d.is_float() {
                    Constant::Double(i as f64)
                } else {
                    Constant::Int64(i)
                };
                (c, d, s)
            }
            Val::Float(f, s) => (
                Constant::Double(f),
                hint.filter(|d| d.is_float()).unwrap_or(DataType::Fp64),
                s,
            ),
        };
        self.ctx.set_span(span);
        let r = self.b.create_const(&mut self.ctx, c, Some(dtype), "");
        self.check(r)
    }

    fn const_of(&mut self, c: Constant, d: DataType) -> R<ValueId> {
        let r = self.b.create_const(&mut self.ctx, c, Some(d), "");
        self.check(r)
    }

    fn build(
        &mut self,
        span: SpanId,
        op: Opcode,
        operands: impl Into<ValueList>,
        attrs: Attrs,
    ) -> R<ValueId> {
        self.build_list(span, op, operands.into(), attrs)
    }

    /// [`Lower::build`] past the conversion of its operands (one copy for every form).
    #[inline(never)]
    fn build_list(
        &mut self,
        span: SpanId,
        op: Opcode,
        operands: ValueList,
        attrs: Attrs,
    ) -> R<ValueId> {
        self.ctx.set_span(span);
        let r = self.b.build_op(&mut self.ctx, op, operands, attrs, "");
        match self.check(r)? {
            Some(v) => Ok(v),
            None => {
                self.report(Diag::new(span, format!("`{op}` has no result")));
                Err(Poison)
            }
        }
    }

    // ----- scopes and variables -----

    fn declare(&mut self, name: &Name, v: ValueId, mutable: bool) {
        let r = self
            .b
            .declare_var_named(&self.ctx, Name::clone(name), v, mutable);
        // (Nearly always empty: removing would hash the name for nothing.)
        if self.check(r).is_ok() && !self.poisoned.is_empty() {
            self.poisoned.remove(name);
        }
    }

    /// Pops the builder scope of a body and records that the body ended.
    fn pop_scope(&mut self, construct: &'static str) {
        if let Some(b) = self.ctx.compound {
            self.ended.push((b, construct));
        }
        if let Err(d) = self.ctx.pop_scope() {
            self.report(d);
        }
    }

    /// The construct whose body declared `name`, when that body has ended: the last ended
    /// body that declared it. (A name declared again in a body still open is visible, and
    /// is not looked up; one declared again in a body that ended since is found there.)
    fn gone(&self, name: &str) -> Option<&'static str> {
        let m = self.b.module();
        self.ended
            .iter()
            .rev()
            .find(|(b, _)| {
                m.blocks
                    .get(*b)
                    .is_some_and(|b| b.env.local(name).is_some())
            })
            .map(|&(_, construct)| construct)
    }

    /// The binding of `name` as seen from the current scope: the variable's shared name,
    /// its value, whether it is mutable and whether it is a parameter.
    fn binding(&self, name: &str) -> Option<(Name, ValueId, bool, bool)> {
        let m = self.b.module();
        let mut cur = self.ctx.compound;
        while let Some(b) = cur {
            let block = m.blocks.get(b)?;
            if let Some((n, bind)) = block.env.get_named(name) {
                return Some(match bind.kind {
                    pto_ir::env::BindingKind::Local => (
                        Name::clone(n),
                        bind.value,
                        bind.mutable,
                        block.role == BlockRole::FuncInputs,
                    ),
                    pto_ir::env::BindingKind::Update => (Name::clone(n), bind.value, true, false),
                });
            }
            cur = block.parent;
        }
        None
    }

    #[cold]
    fn unknown_var(&mut self, ident: &'k Ident) {
        let name = ident.to_string();
        if let Some(construct) = self.gone(&name) {
            let msg = format!(
                "`{name}` is defined inside the {construct} and is not visible after it\n  = help: declare it before the {construct} with `let mut {name} = ..;` and assign it inside"
            );
            self.errs.push_spanned(ident, msg);
            return;
        }
        let mut names = self.b.visible_names(&self.ctx);
        names.sort();
        let list = if names.is_empty() {
            "none".to_string()
        } else {
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        self.errs.push_spanned(
            ident,
            format!(
                "cannot find value `{name}` in this scope\n  = note: variables in scope: {list}"
            ),
        );
    }

    /// Runs `f` with `ident` spelled in a reused buffer: variable reads and method calls
    /// are resolved by name all the time, and `to_string` would allocate each spelling.
    /// Calls may nest (each level takes its own buffer).
    fn with_name<T>(&mut self, ident: &Ident, f: impl FnOnce(&mut Self, &str) -> T) -> T {
        let buf = self.spelled(ident);
        let r = f(self, &buf);
        self.names.push(buf);
        r
    }

    /// A reused buffer holding `ident`'s spelling, for [`Lower::with_name`] (out of line:
    /// one copy, not one per caller).
    #[inline(never)]
    fn spelled(&mut self, ident: &Ident) -> String {
        let mut buf = self.names.pop().unwrap_or_default();
        spell(&mut buf, ident);
        buf
    }

    /// The spelling of `ident` as a shared name (one allocation, shared by the value, the
    /// scope and the bookkeeping that name it).
    fn ident_name(&mut self, ident: &Ident) -> Name {
        self.with_name(ident, |_, name| Name::from(name))
    }

    fn var(&mut self, ident: &'k Ident) -> R<Val> {
        self.with_name(ident, |this, name| {
            if this.poisoned.contains(name) {
                return Err(Poison);
            }
            let Some(v) = this.b.read_var(&mut this.ctx, name) else {
                this.unknown_var(ident);
                return Err(Poison);
            };
            // Later ops of the expression take the variable's span, as they always have.
            this.at(ident);
            Ok(Val::V(v))
        })
    }

    // ----- blocks and statements -----

    /// Lowers a block's statements; returns the tail value of a `Tail::Value` block.
    fn block(&mut self, stmts: &'k [Stmt], tail: Tail, hint: Option<DataType>) -> Option<Val> {
        let n = stmts.len();
        for (i, s) in stmts.iter().enumerate() {
            let last = i + 1 == n;
            if let Some(attr) = stmt_attr(s) {
                self.errs.push_spanned(
                    attr,
                    "attributes cannot be used on a statement in a kernel: the kernel would keep the statement whatever the attribute says (a `#[cfg(..)]` is not evaluated); remove it, or choose with a `bool` parameter",
                );
                continue;
            }
            match s {
                Stmt::Local(l) => self.let_stmt(l),
                Stmt::Item(item) => {
                    self.errs.push_spanned(
                        item,
                        "items (`fn`, `struct`, `use`, `const`, ...) cannot be declared inside a kernel body; declare them outside the kernel",
                    );
                }
                Stmt::Macro(m) => self.macro_use(&m.mac),
                Stmt::Expr(e, semi) => {
                    if last && semi.is_none() {
                        match tail {
                            Tail::Func => self.func_tail(e),
                            Tail::Value => {
                                return self.stmt_expr(e, true, hint, false).ok().flatten();
                            }
                            Tail::Unit => {
                                if let Ok(Some(_)) = self.stmt_expr(e, false, None, false) {
                                    self.errs.push_spanned(
                                        e,
                                        "this block cannot end in a value; end the expression with `;`",
                                    );
                                }
                            }
                        }
                    } else {
                        let ret_ok = tail == Tail::Func && last;
                        let _ = self.stmt_expr(e, false, None, ret_ok);
                    }
                }
            }
        }
        None
    }

    fn macro_use(&mut self, mac: &'k Macro) {
        let r = (range_of(&mac.path).0, mac.bang_token.span);
        if mac.path.is_ident("incore") {
            self.errs
                .push_range(r, "`incore! { .. }` regions are not supported yet");
        } else {
            let name = mac.path.to_token_stream().to_string().replace(' ', "");
            self.errs.push_range(
                r,
                format!(
                    "the macro `{name}!` cannot be used in a kernel body; the kernel language has no macros (compute values and return them, or store them to an `#[out]` tensor)"
                ),
            );
        }
    }

    fn func_tail(&mut self, e: &'k Expr) {
        if let Expr::Return(r) = e {
            self.ret_stmt(r);
            return;
        }
        match self.kernel.ret {
            Some(Some((d, _))) => {
                if let Ok(Some(v)) = self.stmt_expr(e, true, Some(d), false) {
                    self.returned = true;
                    let _ = self.emit_return(v, d, e, e);
                } else {
                    self.returned = true;
                }
            }
            Some(None) => {
                self.returned = true;
                let _ = self.stmt_expr(e, true, None, false);
            }
            None => {
                if let Ok(Some(v)) = self.stmt_expr(e, false, None, false) {
                    let what = match self.val_tile(&v) {
                        Some(_) => {
                            "; tiles are written to a `&mut Tensor` parameter with `t.store([i, j], tile)`"
                        }
                        None => {
                            "; declare the return type (`-> f32`) to return a scalar, or end the expression with `;`"
                        }
                    };
                    self.errs.push_spanned(
                        e,
                        format!("the kernel returns nothing, but its body ends in a value{what}"),
                    );
                }
            }
        }
    }

    fn emit_return(
        &mut self,
        v: Val,
        d: DataType,
        node: &'k dyn ToTokens,
        value_node: &'k Expr,
    ) -> R<()> {
        let v = self.materialize(v, Some(d))?;
        let ty = self.ty(v);
        match &ty {
            Type::Scalar(got) if *got == d => {}
            Type::Scalar(got) => {
                return self.err(
                    value_node,
                    format!(
                        "mismatched return type: the kernel returns `{}`, but this is `{}`; convert it with `as {}`",
                        rs(d),
                        rs(*got),
                        rs(d)
                    ),
                );
            }
            other => {
                let shown = self.show(other);
                return self.err(
                    node,
                    format!(
                        "a kernel can only return scalars, but this returns {shown}; write tiles to a `&mut Tensor` / `#[out]` parameter with `t.store([i, j], tile)`"
                    ),
                );
            }
        }
        self.at(node);
        let r = self.b.create_return(&mut self.ctx, [v]);
        self.check(r).map(|_| ())
    }

    fn ret_stmt(&mut self, r: &'k ExprReturn) {
        self.returned = true;
        let Some(e) = &r.expr else {
            if let Some(Some((d, _))) = self.kernel.ret {
                self.errs.push_spanned(
                    r,
                    format!("`return;` needs a value: the kernel returns `{}`", rs(d)),
                );
            }
            return;
        };
        let v = self.expr_h(e, self.kernel.ret_dtype());
        let Ok(v) = v else { return };
        match self.kernel.ret {
            Some(Some((d, _))) => {
                let _ = self.emit_return(v, d, r, e);
            }
            Some(None) => {}
            None => {
                let msg = if self.val_tile(&v).is_some() || self.is_tensor(&v) {
                    "a kernel can only return scalars; write tiles to a `&mut Tensor` / `#[out]` parameter with `t.store([i, j], tile)`"
                } else {
                    "the kernel has no return type; declare one (`-> f32`) to return a scalar"
                };
                self.errs.push_spanned(r, msg);
            }
        }
    }

    /// An expression in statement position. Returns its value, `None` for statements.
    fn stmt_expr(
        &mut self,
        e: &'k Expr,
        want: bool,
        hint: Option<DataType>,
        ret_ok: bool,
    ) -> R<Option<Val>> {
        match e {
            Expr::ForLoop(f) => {
                self.lower_for(f);
                Ok(None)
            }
            Expr::While(w) => {
                self.lower_while(w);
                Ok(None)
            }
            Expr::If(i) => self.lower_if(i, want, hint),
            Expr::Assign(a) => {
                self.assign(&a.left, &a.right, None, e);
                Ok(None)
            }
            Expr::Binary(b) if matches!(bin_of(&b.op), Some((_, true))) => {
                if let Some((k, _)) = bin_of(&b.op) {
                    self.assign(&b.left, &b.right, Some(k), e);
                }
                Ok(None)
            }
            Expr::Break(b) => {
                if b.label.is_some() || b.expr.is_some() {
                    return self.err(
                        e,
                        "`break` takes no label or value in a kernel; write `break;`",
                    );
                }
                self.at(e);
                let r = self.b.create_break(&mut self.ctx);
                self.check(r).map(|_| None)
            }
            Expr::Continue(c) => {
                if c.label.is_some() {
                    return self.err(
                        e,
                        "`continue` takes no label in a kernel; write `continue;`",
                    );
                }
                self.at(e);
                let r = self.b.create_continue(&mut self.ctx);
                self.check(r).map(|_| None)
            }
            Expr::Return(r) => {
                if ret_ok {
                    self.ret_stmt(r);
                    Ok(None)
                } else {
                    if let Some(v) = &r.expr {
                        let _ = self.expr(v);
                    }
                    self.err(
                        &r.return_token,
                        "`return` is only allowed as the last statement of the kernel body\n  = help: assign the result to a `let mut` variable and return it at the end",
                    )
                }
            }
            Expr::MethodCall(m) => self.method(m),
            Expr::Macro(m) => {
                self.macro_use(&m.mac);
                Err(Poison)
            }
            Expr::Paren(p) => self.stmt_expr(&p.expr, want, hint, ret_ok),
            _ => self.expr_h(e, hint).map(Some),
        }
    }

    fn let_stmt(&mut self, l: &'k Local) {
        let (pat, ann) = match &l.pat {
            Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            p => (p, None),
        };
        let (ident, mutable) = match pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                (Some(&pi.ident), pi.mutability.is_some())
            }
            Pat::Wild(_) => (None, false),
            other => {
                self.errs.push_spanned(
                    other,
                    "patterns are not supported in a kernel; bind one value per `let`: `let x = ..;`",
                );
                if let Some(init) = &l.init {
                    let _ = self.expr(&init.expr);
                }
                return;
            }
        };
        let name = ident.map(|i| self.ident_name(i));
        let poison = |this: &mut Self| {
            if let Some(n) = &name {
                this.poisoned.insert(n.clone());
            }
        };
        let Some(init) = &l.init else {
            self.errs.push_spanned(
                l,
                "a `let` in a kernel needs a value: `let x = ..;` (values are SSA, defined once)",
            );
            poison(self);
            return;
        };
        if let Some((else_token, _)) = &init.diverge {
            self.errs
                .push_spanned(else_token, "`let .. else` is not supported in a kernel");
        }
        // The annotation: a scalar type or a tile type.
        let expected: Option<Type> = match ann {
            None => None,
            Some(t) => match self.annotation(t) {
                Ok(t) => Some(t),
                Err(Poison) => {
                    let _ = self.expr(&init.expr);
                    poison(self);
                    return;
                }
            },
        };
        let hint = expected.as_ref().and_then(Type::as_scalar);
        let v = self.expr_h(&init.expr, hint).and_then(|v| {
            self.at(&init.expr);
            self.materialize(v, hint)
        });
        let Ok(v) = v else {
            poison(self);
            return;
        };
        if let Some(want) = &expected {
            let got = self.ty(v);
            if !pto_ir::ops::same_up_to_valid(want, got) {
                let (w, g) = (self.show(want), self.show(got));
                self.errs.push_spanned(
                    &init.expr,
                    format!("mismatched types: expected {w}, found {g}"),
                );
                poison(self);
                return;
            }
        }
        if let Some(n) = &name {
            self.name_value(v, n);
            self.at(l);
            self.declare(n, v, mutable);
        }
    }

    /// A `let` type annotation: a scalar or `Tile<T, R, C>`.
    fn annotation(&mut self, t: &'k syn::Type) -> R<Type> {
        if let Some(d) = scalar_dtype(t) {
            return Ok(Type::Scalar(d));
        }
        if let syn::Type::Path(p) = t
            && let Some(last) = p.path.segments.last()
            && last.ident == "Tile"
            && let syn::PathArguments::AngleBracketed(a) = &last.arguments
        {
            let (dtype, shape) = self.tile_args(a, t)?;
            return Ok(Type::Tile(TileType::new(dtype, shape)));
        }
        self.err(
            t,
            "a `let` annotation is a scalar type (`f32`, `i64`, ...) or `Tile<T, R, C>`",
        )
    }

    /// `<T, R, C>` of a tile type.
    fn tile_args(
        &mut self,
        a: &'k AngleBracketedGenericArguments,
        node: &'k impl ToTokens,
    ) -> R<(DataType, pto_ir::Shape)> {
        let mut it = items(&a.args);
        let dtype = match it.next() {
            Some(GenericArgument::Type(t)) => match scalar_dtype(t) {
                Some(DataType::Bool) => return self.err(t, crate::model::NO_BOOL_ELEMENTS),
                d => d,
            },
            _ => None,
        };
        let Some(dtype) = dtype else {
            return self.err(
                node,
                "a tile type is `Tile::<T, R, C>` with `T` one of f16, bf16, f32, f64, i8..i64, u8..u64, bool",
            );
        };
        let rest: InlineVec<&GenericArgument, 4> = it.collect();
        let shape = self.sizes(&rest, node)?;
        Ok((dtype, shape))
    }

    /// Static sizes written as generic arguments (`::<16, 128>`).
    fn sizes(&mut self, args: &[&'k GenericArgument], node: &'k impl ToTokens) -> R<pto_ir::Shape> {
        if args.is_empty() || args.len() > 4 {
            return self.err(
                node,
                format!("a tile has 1 to 4 dimensions, found {}", args.len()),
            );
        }
        let mut out = pto_ir::Shape::new();
        for a in args {
            match a {
                GenericArgument::Const(e) if int_literal(e).is_some_and(|v| v > 0) => {
                    out.push(int_literal(e).unwrap_or(1));
                }
                GenericArgument::Const(e) if int_literal(e).is_some() => {
                    return self.err(
                        *a,
                        "a tile size is at least 1: a tile of no rows or columns holds nothing",
                    );
                }
                other => {
                    return self.err(
                        other,
                        "tile sizes are static: write a positive integer literal (symbolic dimensions cannot size a tile)",
                    );
                }
            }
        }
        Ok(out)
    }

    fn assign(&mut self, left: &'k Expr, right: &'k Expr, op: Option<Bin>, whole: &'k Expr) {
        let ident = match left {
            Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                p.path.get_ident()
            }
            Expr::Index(_) => {
                self.errs.push_spanned(
                    left,
                    "indexing is not supported in a kernel; write a tile into a tensor with `t.store([i, j], tile)`",
                );
                None
            }
            other => {
                self.errs.push_spanned(
                    other,
                    "only variables can be assigned in a kernel: `x = ..;`",
                );
                None
            }
        };
        let Some(ident) = ident else {
            let _ = self.expr(right);
            return;
        };
        // `None`: the name is poisoned; else its binding, if any. The variable's own shared
        // name is used from here on, so an assignment copies no string.
        let found = self.with_name(ident, |this, name| {
            (!this.poisoned.contains(name)).then(|| this.binding(name))
        });
        let Some(found) = found else {
            let _ = self.expr(right);
            return;
        };
        let Some((name, cur, mutable, is_param)) = found else {
            self.unknown_var(ident);
            let _ = self.expr(right);
            return;
        };
        // `cur`'s type is read where it is needed rather than copied: values keep their types.
        let hint = self.ty(cur).as_scalar();
        let new = match op {
            None => self.expr_h(right, hint),
            Some(k) => {
                let old = self.var(ident);
                let r = self.expr_h(right, hint);
                match (old, r) {
                    (Ok(old), Ok(r)) => {
                        let span = self.sid(whole);
                        self.apply_binary(k, old, r, span, hint)
                    }
                    _ => Err(Poison),
                }
            }
        };
        let Ok(new) = new else { return };
        if !mutable {
            let help = if is_param {
                format!(
                    "`{name}` is a kernel parameter; make a mutable copy first: `let mut {name} = {name};`"
                )
            } else {
                format!("declare it with `let mut {name} = ..;` to allow assignment")
            };
            self.errs.push_spanned(
                left,
                format!("cannot assign twice to immutable variable `{name}`\n  = help: {help}"),
            );
            return;
        }
        self.at(right);
        let Ok(new) = self.materialize(new, hint) else {
            return;
        };
        let (cur_ty, new_ty) = (self.ty(cur), self.ty(new));
        if !pto_ir::ops::same_up_to_valid(cur_ty, new_ty) {
            let (c, n) = (self.show(cur_ty), self.show(new_ty));
            self.errs.push_spanned(
                right,
                format!("mismatched types: `{name}` is {c}, but the assigned value is {n}; a variable keeps one type"),
            );
            return;
        }
        self.name_value(new, &name);
        self.at(left);
        let r = self.b.assign_var_named(&self.ctx, name, new);
        let _ = self.check(r);
    }

    // ----- control flow -----

    /// A `bool` condition; on error a placeholder `true` so the body is still checked.
    fn cond(&mut self, e: &'k Expr, what: &str) -> R<ValueId> {
        let v = self.expr(e).and_then(|v| {
            self.at(e);
            self.materialize(v, Some(DataType::Bool))
        });
        let ok = match v {
            Ok(v) => match self.ty(v) {
                Type::Scalar(DataType::Bool) => return Ok(v),
                t => {
                    let shown = self.show(t);
                    let help = match t {
                        Type::Scalar(d) if d.is_numeric() => "; compare explicitly, e.g. `x != 0`",
                        _ => "",
                    };
                    self.errs.push_spanned(
                        e,
                        format!("the `{what}` condition must be a `bool`, found {shown}{help}"),
                    );
                    false
                }
            },
            Err(Poison) => false,
        };
        let _ = ok;
        self.at(e);
        self.const_of(Constant::Bool(true), DataType::Bool)
    }

    fn lower_if(&mut self, e: &'k ExprIf, want: bool, hint: Option<DataType>) -> R<Option<Val>> {
        let cond = self.cond(&e.cond, "if")?;
        let if_range = (e.if_token.span, range_of(&*e.cond).1);
        let if_span = self.spans.id_range(if_range);
        self.ctx.set_span(if_span);
        let r = self.b.create_if_stmt(&mut self.ctx, cond);
        let ifs = self.check(r)?;
        let mode = if want { Tail::Value } else { Tail::Unit };
        let mut ok = true;
        let mut has_values = (false, false);
        let mut branch_hint = hint;

        let r = self.b.enter_if_then(&mut self.ctx, ifs);
        self.check(r)?;
        let tv = self.block(&e.then_branch.stmts, mode, hint);
        if want && let Some(v) = tv {
            match self.materialize(v, hint) {
                Ok(v) => {
                    branch_hint = branch_hint.or_else(|| self.ty(v).as_scalar());
                    has_values.0 = true;
                    let r = self.b.set_branch_value(&mut self.ctx, v);
                    ok &= self.check(r).is_ok();
                }
                Err(Poison) => ok = false,
            }
        }
        self.pop_scope("`if` branch");

        let r = self.b.enter_if_else(&mut self.ctx, ifs);
        self.check(r)?;
        let ev = match &e.else_branch {
            None => None,
            Some((_, else_e)) => match &**else_e {
                Expr::Block(b) => self.block(&b.block.stmts, mode, branch_hint),
                Expr::If(nested) => match self.lower_if(nested, want, branch_hint) {
                    Ok(v) => v,
                    Err(Poison) => {
                        ok = false;
                        None
                    }
                },
                other => {
                    ok = false;
                    let _ = self.err::<()>(other, "expected a block or `if` after `else`");
                    None
                }
            },
        };
        if want && let Some(v) = ev {
            match self.materialize(v, branch_hint) {
                Ok(v) => {
                    has_values.1 = true;
                    let r = self.b.set_branch_value(&mut self.ctx, v);
                    ok &= self.check(r).is_ok();
                }
                Err(Poison) => ok = false,
            }
        }
        self.pop_scope("`if` branch");
        self.ctx.set_span(if_span);
        let r = self.b.exit_if_statement(&mut self.ctx, ifs);
        let merged = self.check(r)?;
        if !ok {
            return Err(Poison);
        }
        if !want {
            return Ok(None);
        }
        if e.else_branch.is_none() {
            return self.err_range(
                if_range,
                "an `if` used as a value needs an `else` branch giving a value of the same type",
            );
        }
        match merged {
            Some(v) => Ok(Some(Val::V(v))),
            None if has_values.0 != has_values.1 => Err(Poison),
            None => self.err_range(
                if_range,
                "this `if` is used as a value, but its branches give no value",
            ),
        }
    }

    /// `a..b`, `(a..b).step_by(s)`, `range(a, b, s)`: the bound expressions.
    fn for_head(&mut self, e: &'k Expr) -> R<(&'k Expr, &'k Expr, Option<&'k Expr>)> {
        const SUPPORTED: &str = "a `for` loop iterates over `a..b`, `(a..b).step_by(s)` or `range(a, b, s)` (integer bounds)";
        match e {
            Expr::Range(r) => match (&r.start, &r.end, &r.limits) {
                (Some(a), Some(b), RangeLimits::HalfOpen(_)) => Ok((a, b, None)),
                (_, _, RangeLimits::Closed(_)) => self.err(
                    e,
                    "inclusive ranges `a..=b` are not supported; write `a..b + 1`",
                ),
                _ => self.err(e, "a loop range needs both bounds: `a..b`"),
            },
            Expr::Paren(p) => self.for_head(&p.expr),
            Expr::MethodCall(m) if m.method == "step_by" => {
                let (a, b, s) = self.for_head(&m.receiver)?;
                if s.is_some() {
                    return self.err(&m.method, "`step_by` is given twice");
                }
                if m.args.len() != 1 {
                    return self.err(
                        &m.method,
                        format!("`step_by(s)` takes 1 argument, found {}", m.args.len()),
                    );
                }
                Ok((a, b, m.args.first()))
            }
            Expr::Call(c) => {
                let name = match &*c.func {
                    Expr::Path(p) => p.path.get_ident().map(Ident::to_string),
                    _ => None,
                };
                match name.as_deref() {
                    Some("range") => {
                        let args: InlineVec<&Expr, 4> = items(&c.args).collect();
                        match args.as_slice() {
                            [a, b] => Ok((a, b, None)),
                            [a, b, s] => Ok((a, b, Some(s))),
                            _ => self.err(
                                &c.func,
                                format!("`range(a, b, s)` takes 2 or 3 arguments, found {}", args.len()),
                            ),
                        }
                    }
                    Some("parallel") => self.err(
                        &c.func,
                        "`parallel` loops are not supported yet; use a sequential `for i in a..b` loop",
                    ),
                    _ => self.err(e, SUPPORTED),
                }
            }
            _ => self.err(e, SUPPORTED),
        }
    }

    /// Loop bounds: integer scalars of one dtype (literals take it; `int64` by default).
    fn bounds(&mut self, exprs: [Option<&'k Expr>; 3]) -> R<(ValueId, ValueId, ValueId)> {
        let mut vals = InlineVec::<_, 3>::new();
        let mut ok = true;
        for e in exprs {
            match e {
                Some(e) => match self.expr(e) {
                    Ok(v) => vals.push(Some((v, e))),
                    Err(Poison) => {
                        ok = false;
                        vals.push(None);
                    }
                },
                None => vals.push(None),
            }
        }
        let mut dtype: Option<DataType> = None;
        for (v, e) in vals.iter().flatten() {
            match v {
                Val::V(id) => {
                    let t = self.ty(*id);
                    if t.is_int_scalar() {
                        match (dtype, t.as_scalar()) {
                            (Some(d), Some(d2)) if d != d2 => {
                                ok = false;
                                self.errs.push_spanned(
                                    *e,
                                    format!("loop bounds have different types: `{}` and `{}`; convert one with `as`", rs(d), rs(d2)),
                                );
                            }
                            (None, d2) => dtype = d2,
                            _ => {}
                        }
                    } else {
                        ok = false;
                        let shown = self.show(t);
                        self.errs.push_spanned(
                            *e,
                            format!("loop bounds must be integer scalars, found {shown}"),
                        );
                    }
                }
                Val::Float(..) => {
                    ok = false;
                    self.errs.push_spanned(
                        *e,
                        "loop bounds must be integer scalars, found a float literal",
                    );
                }
                Val::Int(..) => {}
            }
        }
        if !ok {
            return Err(Poison);
        }
        let d = dtype.unwrap_or(DataType::Int64);
        let mut out = InlineVec::<_, 3>::new();
        for slot in vals {
            match slot {
                Some((v, e)) => {
                    self.at(e);
                    out.push(self.materialize(v, Some(d))?);
                }
                None => out.push(self.const_of(Constant::Int64(1), d)?),
            }
        }
        match out.as_slice() {
            [a, b, c] => Ok((*a, *b, *c)),
            _ => Err(Poison),
        }
    }

    fn lower_for(&mut self, f: &'k ExprForLoop) {
        if let Some(l) = &f.label {
            self.errs
                .push_spanned(l, "loop labels are not supported in a kernel");
        }
        let iv_name = match &*f.pat {
            Pat::Ident(pi)
                if pi.by_ref.is_none() && pi.subpat.is_none() && pi.mutability.is_none() =>
            {
                Some(self.ident_name(&pi.ident))
            }
            Pat::Wild(_) => None,
            other => {
                self.errs
                    .push_spanned(other, "the loop variable is a plain name: `for i in a..b`");
                None
            }
        };
        let head = self.for_head(&f.expr);
        let placeholder = |this: &mut Self| -> R<(ValueId, ValueId, ValueId)> {
            let a = this.const_of(Constant::Int64(0), DataType::Int64)?;
            let b = this.const_of(Constant::Int64(1), DataType::Int64)?;
            let c = this.const_of(Constant::Int64(1), DataType::Int64)?;
            Ok((a, b, c))
        };
        let bounds = match head {
            Ok((a, b, s)) => self.bounds([Some(a), Some(b), s]),
            Err(Poison) => Err(Poison),
        };
        let (lb, ub, step) = match bounds {
            Ok(b) => b,
            Err(Poison) => match placeholder(self) {
                Ok(b) => b,
                Err(Poison) => return,
            },
        };
        let dtype = self.ty(lb).as_scalar().unwrap_or(DataType::Int64);
        let iv = self
            .b
            .module_mut()
            .new_value_named(Type::Scalar(dtype), iv_name.clone());
        let range = (f.for_token.span, range_of(&*f.expr).1);
        let span = self.spans.id_range(range);
        self.ctx.set_span(span);
        let r = self.b.create_for_stmt_kind(
            &mut self.ctx,
            iv,
            lb,
            ub,
            step,
            pto_ir::ForKind::Sequential,
        );
        let Ok(fs) = self.check(r) else { return };
        let r = self.b.enter_for_body(&mut self.ctx, fs);
        if self.check(r).is_err() {
            return;
        }
        if let Some(iv_name) = iv_name {
            self.poisoned.remove(&iv_name);
        }
        self.block(&f.body.stmts, Tail::Unit, None);
        self.pop_scope("`for` loop");
        self.ctx.set_span(span);
        let r = self.b.exit_for_statement(&mut self.ctx, fs);
        let _ = self.check(r);
    }

    fn lower_while(&mut self, w: &'k ExprWhile) {
        if let Some(l) = &w.label {
            self.errs
                .push_spanned(l, "loop labels are not supported in a kernel");
        }
        let range = (w.while_token.span, range_of(&*w.cond).1);
        let span = self.spans.id_range(range);
        self.ctx.set_span(span);
        let r = self.b.create_while_stmt(&mut self.ctx);
        let Ok(ws) = self.check(r) else { return };
        let r = self.b.enter_while_cond(&mut self.ctx, ws);
        if self.check(r).is_err() {
            return;
        }
        if let Ok(c) = self.cond(&w.cond, "while") {
            self.at(&w.cond);
            let r = self.b.create_condition(&mut self.ctx, c);
            let _ = self.check(r);
        }
        self.pop_scope("`while` condition");
        let r = self.b.enter_while_body(&mut self.ctx, ws);
        if self.check(r).is_err() {
            return;
        }
        self.block(&w.body.stmts, Tail::Unit, None);
        self.pop_scope("`while` loop");
        self.ctx.set_span(span);
        let r = self.b.exit_while_statement(&mut self.ctx, ws);
        let _ = self.check(r);
    }

    // ----- expressions -----

    fn expr(&mut self, e: &'k Expr) -> R<Val> {
        self.expr_h(e, None)
    }

    /// An expression that must have a value; `hint` types literals and `if` results.
    fn expr_h(&mut self, e: &'k Expr, hint: Option<DataType>) -> R<Val> {
        match e {
            Expr::Lit(l) => self.lit(&l.lit, e),
            Expr::Path(p) => match p.path.get_ident() {
                Some(ident) if p.qself.is_none() => self.var(ident),
                _ => self.err(
                    e,
                    format!(
                        "unknown value `{}`; a kernel refers to its parameters, symbolic dimensions and `let` variables by name",
                        p.path.to_token_stream().to_string().replace(' ', "")
                    ),
                ),
            },
            Expr::Paren(p) => self.expr_h(&p.expr, hint),
            Expr::Group(g) => self.expr_h(&g.expr, hint),
            Expr::Binary(b) => {
                let Some((k, compound)) = bin_of(&b.op) else {
                    return self.err(e, "unsupported operator");
                };
                if compound {
                    return self.err(e, "a compound assignment is a statement, not a value; write it on its own line");
                }
                let l = self.expr_h(&b.left, hint);
                let r = self.expr_h(&b.right, hint);
                let (l, r) = (l?, r?);
                let span = self.sid(e);
                self.apply_binary(k, l, r, span, hint)
            }
            Expr::Unary(u) => self.unary(u, e, hint),
            Expr::Cast(c) => self.cast(&c.expr, &c.ty, e),
            Expr::MethodCall(m) => match self.method(m)? {
                Some(v) => Ok(v),
                None => self.err(e, "`t.store(..)` has no value; it is a statement"),
            },
            Expr::Call(c) => self.call(c, e),
            Expr::If(i) => match self.lower_if(i, true, hint)? {
                Some(v) => Ok(v),
                None => Err(Poison),
            },
            _ => self.unsupported(e),
        }
    }

    #[cold]
    fn unsupported<T>(&mut self, e: &'k Expr) -> R<T> {
        let (range, msg): ((Span, Span), String) = match e {
            Expr::Closure(_) => (range_of(e), "closures are not supported in a kernel; write the computation inline".into()),
            Expr::Reference(_) | Expr::RawAddr(_) => (
                range_of(e),
                "references are not supported in a kernel body; use the value directly (`x`, not `&x`)".into(),
            ),
            Expr::Match(m) => (
                (m.match_token.span, range_of(&*m.expr).1),
                "`match` is not supported in a kernel; use `if` / `else if` / `else`".into(),
            ),
            Expr::Loop(l) => (
                range_of(&l.loop_token),
                "`loop` is not supported in a kernel; use `while cond { .. }` or `for i in a..b { .. }`".into(),
            ),
            Expr::Unsafe(u) => (range_of(&u.unsafe_token), "`unsafe` blocks are not allowed in a kernel".into()),
            Expr::Macro(m) => {
                self.macro_use(&m.mac);
                return Err(Poison);
            }
            Expr::Struct(s) => (
                range_of(&s.path),
                "struct literals are not supported in a kernel; create tiles with `Tile::<T, R, C>::zeros()` / `full(v)` or `t.load::<R, C>([i, j])`".into(),
            ),
            Expr::Index(_) => (
                range_of(e),
                "indexing is not supported in a kernel; load a window with `t.load::<R, C>([i, j])` or take a sub-tile with `a.extract::<R, C>([i, j])`".into(),
            ),
            Expr::Tuple(_) => (range_of(e), "tuples are not supported in a kernel; bind one value per `let`".into()),
            Expr::Array(_) => (
                range_of(e),
                "arrays are only written as offsets: `t.load::<R, C>([i, j])`, `t.store([i, j], tile)`".into(),
            ),
            Expr::Range(_) => (range_of(e), "ranges are only written as `for` loop bounds: `for i in a..b`".into()),
            Expr::Field(_) => (range_of(e), "field access is not supported in a kernel".into()),
            Expr::Try(_) => (range_of(e), "the `?` operator is not supported in a kernel".into()),
            Expr::Block(_) => (
                range_of(e),
                "block expressions are not supported in a kernel; use `let` statements (blocks belong to `if`, `for` and `while`)".into(),
            ),
            Expr::Assign(_) => (range_of(e), "an assignment is a statement, not a value".into()),
            Expr::ForLoop(_) | Expr::While(_) => (range_of(e), "a loop is a statement, not a value".into()),
            Expr::Return(r) => (
                range_of(&r.return_token),
                "`return` is only allowed as the last statement of the kernel body".into(),
            ),
            Expr::Break(_) | Expr::Continue(_) => (range_of(e), "`break` / `continue` are statements, not values".into()),
            Expr::Async(_) | Expr::Await(_) => (range_of(e), "`async` / `.await` are not supported in a kernel".into()),
            _ => (
                range_of(e),
                "this Rust syntax is not part of the kernel language; kernels use `let`, assignment, `for`, `while`, `if`, arithmetic, method calls on tiles and tensors, and the built-in functions".into(),
            ),
        };
        self.err_range(range, msg)
    }

    fn lit(&mut self, l: &'k Lit, e: &'k Expr) -> R<Val> {
        let span = self.sid(e);
        match l {
            Lit::Int(i) => {
                let suffix = i.suffix();
                let Ok(v) = i.base10_parse::<i64>() else {
                    return self.err(e, "integer literal out of range for `i64`");
                };
                if suffix.is_empty() {
                    return Ok(Val::Int(v, span));
                }
                match DataType::from_rust_name(suffix) {
                    Some(d) if d.is_numeric() => {
                        self.ctx.set_span(span);
                        let c = if d.is_float() {
                            Constant::Double(v as f64)
                        } else {
                            Constant::Int64(v)
                        };
                        self.const_of(c, d).map(Val::V)
                    }
                    _ => self.err(e, format!("unsupported literal suffix `{suffix}`")),
                }
            }
            Lit::Float(f) => {
                let Ok(v) = f.base10_parse::<f64>() else {
                    return self.err(e, "invalid float literal");
                };
                let suffix = f.suffix();
                if suffix.is_empty() {
                    return Ok(Val::Float(v, span));
                }
                match DataType::from_rust_name(suffix) {
                    Some(d) if d.is_float() => {
                        self.ctx.set_span(span);
                        self.const_of(Constant::Double(v), d).map(Val::V)
                    }
                    _ => self.err(e, format!("unsupported literal suffix `{suffix}`")),
                }
            }
            Lit::Bool(b) => {
                self.ctx.set_span(span);
                self.const_of(Constant::Bool(b.value), DataType::Bool)
                    .map(Val::V)
            }
            _ => self.err(
                e,
                "only integer, float and `bool` literals are supported in a kernel",
            ),
        }
    }

    fn apply_binary(
        &mut self,
        k: Bin,
        l: Val,
        r: Val,
        span: SpanId,
        hint: Option<DataType>,
    ) -> R<Val> {
        if self.is_tensor(&l) || self.is_tensor(&r) {
            let (s, e) = self.spans.get(span);
            return self.err_range(
                (s, e),
                format!(
                    "tensor-level arithmetic (`{}` on tensors) is not supported yet; load tiles with `t.load::<R, C>([i, j])` and compute on them",
                    k.symbol()
                ),
            );
        }
        let tile = self.val_tile(&l).or_else(|| self.val_tile(&r));
        if let (Some(dtype), Bin::FloorDiv) = (tile, k) {
            return self.tile_floor_div(l, r, dtype, span);
        }
        if let Some(dtype) = tile {
            let Some(op) = k.tile() else {
                let (s, e) = self.spans.get(span);
                return self.err_range(
                    (s, e),
                    format!(
                        "`{}` is not an operation on tiles; tiles support + - * / % and .max(b) / .min(b) (comparisons and `&&` / `||` are for scalars)",
                        k.symbol()
                    ),
                );
            };
            self.ctx.set_span(span);
            let l = self.materialize(l, Some(dtype))?;
            let r = self.materialize(r, Some(dtype))?;
            return self.build(span, op, [l, r], Attrs::new()).map(Val::V);
        }
        let d = match (self.val_scalar(&l), self.val_scalar(&r)) {
            (Some(d), _) | (None, Some(d)) => d,
            (None, None) if matches!(l, Val::Float(..)) || matches!(r, Val::Float(..)) => {
                hint.filter(|d| d.is_float()).unwrap_or(DataType::Fp64)
            }
            (None, None) => hint.filter(|d| d.is_numeric()).unwrap_or(DataType::Int64),
        };
        self.ctx.set_span(span);
        let lv = self.materialize(l, Some(d))?;
        let rv = self.materialize(r, Some(d))?;
        self.build(span, k.scalar(), [lv, rv], Attrs::new())
            .map(Val::V)
    }

    /// `a.floor_div(b)` on tiles, composed from ops every backend has: for floats the
    /// quotient rounded toward negative infinity (`TDIV`, then `TCVT` "round only" with
    /// `CAST_FLOOR`), for integers `(a - a.floor_mod(b)) / b`, an exact division.
    fn tile_floor_div(&mut self, l: Val, r: Val, dtype: DataType, span: SpanId) -> R<Val> {
        self.ctx.set_span(span);
        let l = self.materialize(l, Some(dtype))?;
        let r = self.materialize(r, Some(dtype))?;
        if dtype.is_float() {
            let q = self.build(span, Opcode::TileDiv, [l, r], Attrs::new())?;
            let attrs = Attrs::of([
                ("dtype", Attr::Ident(dtype.name().into())),
                ("round", Attr::Ident(RoundMode::CastFloor.word().into())),
            ]);
            return self.build(span, Opcode::TileCast, [q], attrs).map(Val::V);
        }
        let m = self.build(span, Opcode::TileFloorMod, [l, r], Attrs::new())?;
        let d = self.build(span, Opcode::TileSub, [l, m], Attrs::new())?;
        self.build(span, Opcode::TileDiv, [d, r], Attrs::new())
            .map(Val::V)
    }

    fn unary(&mut self, u: &'k syn::ExprUnary, e: &'k Expr, hint: Option<DataType>) -> R<Val> {
        match &u.op {
            UnOp::Neg(_) => {
                let v = self.expr_h(&u.expr, hint)?;
                let span = self.sid(e);
                match v {
                    Val::Int(i, _) => Ok(Val::Int(i.wrapping_neg(), span)),
                    Val::Float(f, _) => Ok(Val::Float(-f, span)),
                    Val::V(id) => match self.ty(id) {
                        Type::Tile(_) => self
                            .build(span, Opcode::TileNeg, [id], Attrs::new())
                            .map(Val::V),
                        Type::Scalar(_) => self
                            .build(span, Opcode::ScalarNeg, [id], Attrs::new())
                            .map(Val::V),
                        _ => self.err(
                            e,
                            "tensor-level negation is not supported yet; load tiles first",
                        ),
                    },
                }
            }
            UnOp::Not(_) => {
                let v = self.expr(&u.expr)?;
                let span = self.sid(e);
                let id = self.materialize(v, None)?;
                let op = match self.ty(id) {
                    Type::Tile(_) => Opcode::TileNot,
                    Type::Scalar(DataType::Bool) => Opcode::ScalarNot,
                    Type::Scalar(_) => Opcode::ScalarBitNot,
                    _ => {
                        return self.err(
                            e,
                            "`!` applies to `bool` and integer scalars and integer tiles",
                        );
                    }
                };
                self.build(span, op, [id], Attrs::new()).map(Val::V)
            }
            UnOp::Deref(_) => self.err(
                e,
                "dereferencing (`*x`) is not supported in a kernel; values are used directly",
            ),
            _ => self.err(e, "unsupported unary operator"),
        }
    }

    fn cast(&mut self, inner: &'k Expr, ty: &'k syn::Type, e: &'k Expr) -> R<Val> {
        let Some(d) = scalar_dtype(ty) else {
            let _ = self.expr(inner);
            return self.err(
                ty,
                "`as` converts between scalar types (f16, bf16, f32, f64, i8..i64, u8..u64, bool); convert tiles with `.cast::<T>()`",
            );
        };
        let v = self.expr(inner)?;
        let span = self.sid(e);
        match v {
            Val::Int(i, _) if d.is_numeric() => {
                self.ctx.set_span(span);
                let c = if d.is_float() {
                    Constant::Double(i as f64)
                } else {
                    Constant::Int64(i)
                };
                self.const_of(c, d).map(Val::V)
            }
            Val::Float(f, _) if d.is_numeric() => {
                self.ctx.set_span(span);
                let c = if d.is_float() {
                    Constant::Double(f)
                } else {
                    Constant::Int64(f as i64)
                };
                self.const_of(c, d).map(Val::V)
            }
            _ => {
                let id = self.materialize(v, None)?;
                match self.ty(id) {
                    Type::Scalar(s) if *s == d => Ok(Val::V(id)),
                    Type::Scalar(_) => self
                        .build(
                            span,
                            Opcode::ScalarCast,
                            [id],
                            Attrs::of([("dtype", Attr::Ident(d.name().into()))]),
                        )
                        .map(Val::V),
                    Type::Tile(_) => self.err(
                        e,
                        format!("`as` does not convert tiles; write `.cast::<{}>()`", rs(d)),
                    ),
                    t => {
                        let shown = self.show(t);
                        self.err(e, format!("`as` converts scalars, found {shown}"))
                    }
                }
            }
        }
    }

    /// `[i, j]` offsets: integer literals become `Attr::Int`, other values `Attr::Value`.
    fn offsets(&mut self, e: &'k Expr) -> R<Vec<Attr>> {
        let Expr::Array(a) = e else {
            let _ = self.expr(e);
            return self.err(
                e,
                "offsets are written as an array, one per dimension: `[i, j]`",
            );
        };
        let mut out = Vec::with_capacity(a.elems.len());
        let mut ok = true;
        for el in items(&a.elems) {
            match self.expr(el) {
                Ok(Val::Int(i, _)) if i >= 0 => out.push(Attr::Int(i)),
                Ok(v) => {
                    self.at(el);
                    match self.materialize(v, Some(DataType::Int64)) {
                        Ok(id) => {
                            if self.ty(id).is_int_scalar() {
                                out.push(Attr::Value(id));
                            } else {
                                let shown = self.show(self.ty(id));
                                self.errs.push_spanned(
                                    el,
                                    format!("offsets must be integer scalars, found {shown}"),
                                );
                                ok = false;
                            }
                        }
                        Err(Poison) => ok = false,
                    }
                }
                Err(Poison) => ok = false,
            }
        }
        if ok { Ok(out) } else { Err(Poison) }
    }

    fn arity(
        &mut self,
        name: &'k Ident,
        args: usize,
        want: usize,
        usage: &dyn std::fmt::Display,
    ) -> R<()> {
        if args == want {
            return Ok(());
        }
        let plural = if want == 1 { "argument" } else { "arguments" };
        self.err(
            name,
            format!("`{usage}` takes {want} {plural}, found {args}"),
        )
    }

    fn no_turbofish(&mut self, m: &'k ExprMethodCall, usage: &dyn std::fmt::Display) -> R<()> {
        match &m.turbofish {
            Some(tf) => self.err(tf, format!("`{usage}` takes no type arguments")),
            None => Ok(()),
        }
    }

    /// A method call; `None` for `t.store(..)`.
    fn method(&mut self, m: &'k ExprMethodCall) -> R<Option<Val>> {
        self.with_name(&m.method, |this, name| this.named_method(m, name))
    }

    /// [`Lower::method`] with the method's name spelled.
    fn named_method(&mut self, m: &'k ExprMethodCall, name: &str) -> R<Option<Val>> {
        if matches!(&*m.receiver, Expr::Range(_))
            || matches!(&*m.receiver, Expr::Paren(p) if matches!(&*p.expr, Expr::Range(_)))
        {
            return self.err(
                &*m.receiver,
                "ranges are only written as `for` loop bounds: `for i in (a..b).step_by(s)`",
            );
        }
        let recv = self.expr(&m.receiver)?;
        let span = self.sid(m);
        let n = m.args.len();
        if self.is_tensor(&recv) {
            let Val::V(t) = recv else { return Err(Poison) };
            return self.tensor_method(m, t, name, span).map(|v| v.map(Val::V));
        }
        if let Some(dtype) = self.val_tile(&recv) {
            let Val::V(t) = recv else { return Err(Poison) };
            return self
                .tile_method(m, t, dtype, name, span)
                .map(|v| Some(Val::V(v)));
        }
        // Scalars (and literals).
        match name {
            "abs" => {
                self.no_turbofish(m, &"x.abs()")?;
                self.arity(&m.method, n, 0, &"x.abs()")?;
                let id = self.materialize(recv, None)?;
                self.build(span, Opcode::ScalarAbs, [id], Attrs::new())
                    .map(|v| Some(Val::V(v)))
            }
            "max" | "min" | "floor_div" | "floor_mod" => {
                self.no_turbofish(m, &format_args!("x.{name}(y)"))?;
                self.arity(&m.method, n, 1, &format_args!("x.{name}(y)"))?;
                let Some(arg) = m.args.first() else {
                    return Err(Poison);
                };
                let other = self.expr(arg)?;
                let k = match name {
                    "max" => Bin::Max,
                    "min" => Bin::Min,
                    "floor_div" => Bin::FloorDiv,
                    _ => Bin::FloorMod,
                };
                self.apply_binary(k, recv, other, span, None).map(Some)
            }
            _ => {
                let what = match recv {
                    Val::V(id) => self.show(self.ty(id)),
                    _ => "a literal".to_string(),
                };
                self.err(
                    &m.method,
                    format!("no method `{name}` on {what}; scalar methods: {SCALAR_METHODS}"),
                )
            }
        }
    }

    fn tensor_param_direction(&self, t: ValueId) -> Option<(Direction, Name)> {
        let m = self.b.module();
        let f = m.functions.first()?;
        let func = m.funcs.get(*f)?;
        func.sig.params.iter().find(|p| p.value == t).map(|p| {
            (
                p.direction,
                m.values
                    .get(t)
                    .and_then(|d| d.name.clone())
                    .unwrap_or_default(),
            )
        })
    }

    fn tensor_method(
        &mut self,
        m: &'k ExprMethodCall,
        t: ValueId,
        name: &str,
        span: SpanId,
    ) -> R<Option<ValueId>> {
        let n = m.args.len();
        match name {
            "load" => {
                let Some(tf) = &m.turbofish else {
                    return self.err(&m.method, "write the window size: `t.load::<R, C>([i, j])`");
                };
                let args: InlineVec<&GenericArgument, 4> = items(&tf.args).collect();
                let shape = self.sizes(&args, tf);
                self.arity(&m.method, n, 1, &"t.load::<R, C>([i, j])")?;
                let Some(arg) = m.args.first() else { return Err(Poison) };
                let off = self.offsets(arg);
                let (shape, off) = (shape?, off?);
                let attrs = Attrs::of([("shape", Attr::ints(&shape)), ("offset", Attr::List(off))]);
                self.build(span, Opcode::TileLoad, [t], attrs).map(Some)
            }
            "store" => {
                self.no_turbofish(m, &"t.store([i, j], tile)")?;
                self.arity(&m.method, n, 2, &"t.store([i, j], tile)")?;
                let (Some(o), Some(v)) = (m.args.first(), m.args.get(1)) else { return Err(Poison) };
                let off = self.offsets(o);
                let tile = self.expr(v);
                let (off, tile) = (off?, tile?);
                if let Some((Direction::In, pname)) = self.tensor_param_direction(t) {
                    return self.err(
                        &m.method,
                        format!(
                            "cannot store into `{pname}`: it is a read-only `&Tensor` parameter; declare it `&mut Tensor<..>` (or `#[out] {pname}: &mut Tensor<..>`)"
                        ),
                    );
                }
                let tile = self.materialize(tile, None)?;
                self.ctx.set_span(span);
                let r = self.b.build_op(
                    &mut self.ctx,
                    Opcode::TileStore,
                    [tile, t],
                    Attrs::of([("offset", Attr::List(off))]),
                    "",
                );
                self.check(r).map(|_| None)
            }
            "view" | "assemble" | "exp" | "abs" | "sqrt" | "relu" | "max" | "min" => self.err(
                &m.method,
                format!(
                    "tensor-level operations (`t.{name}(..)`) are not supported yet; load tiles with `t.load::<R, C>([i, j])`"
                ),
            ),
            _ => self.err(&m.method, format!("no method `{name}` on a tensor; tensor methods: {TENSOR_METHODS}")),
        }
    }

    fn tile_method(
        &mut self,
        m: &'k ExprMethodCall,
        t: ValueId,
        dtype: DataType,
        name: &str,
        span: SpanId,
    ) -> R<ValueId> {
        let n = m.args.len();
        // Methods the op table spells, with no argument (`a.exp()`) or one (`a.max(b)`).
        if let Some((op, arity)) = table_tile_method(name) {
            let usage = format_args!("a.{name}({})", if arity == 0 { "" } else { "b" });
            self.no_turbofish(m, &usage)?;
            self.arity(&m.method, n, arity, &usage)?;
            if arity == 0 {
                return self.build(span, op, [t], Attrs::new());
            }
            let Some(arg) = m.args.first() else {
                return Err(Poison);
            };
            let other = self.expr(arg)?;
            if self.is_tensor(&other) {
                return self.err(
                    arg,
                    format!("`a.{name}(b)` takes a tile or a scalar, not a tensor"),
                );
            }
            self.ctx.set_span(span);
            let other = self.materialize(other, Some(dtype))?;
            return self.build(span, op, [t, other], Attrs::new());
        }
        match name {
            "floor_div" => {
                self.no_turbofish(m, &"a.floor_div(b)")?;
                self.arity(&m.method, n, 1, &"a.floor_div(b)")?;
                let Some(arg) = m.args.first() else {
                    return Err(Poison);
                };
                let other = self.expr(arg)?;
                match self.apply_binary(Bin::FloorDiv, Val::V(t), other, span, Some(dtype))? {
                    Val::V(v) => Ok(v),
                    _ => Err(Poison),
                }
            }
            "cast" | "cast_round" => {
                let usage = if name == "cast" {
                    "a.cast::<T>()"
                } else {
                    "a.cast_round::<T>(Round::Nearest)"
                };
                let d = match &m.turbofish {
                    Some(tf) if tf.args.len() == 1 => match tf.args.first() {
                        Some(GenericArgument::Type(ty)) => scalar_dtype(ty),
                        _ => None,
                    },
                    _ => None,
                };
                let Some(d) = d else {
                    return self.err(
                        &m.method,
                        format!("write the target element type: `{usage}`"),
                    );
                };
                if d == DataType::Bool {
                    return self.err(&m.method, crate::model::NO_BOOL_ELEMENTS);
                }
                if name == "cast" {
                    self.arity(&m.method, n, 0, &usage)?;
                    // A cast to the tile's own dtype is the identity, as `as` is.
                    if d == dtype {
                        return Ok(t);
                    }
                    return self.build(
                        span,
                        Opcode::TileCast,
                        [t],
                        Attrs::of([("dtype", Attr::Ident(d.name().into()))]),
                    );
                }
                self.arity(&m.method, n, 1, &usage)?;
                let Some(arg) = m.args.first() else {
                    return Err(Poison);
                };
                let Some(mode) = round_mode(arg) else {
                    return self.err(
                        arg,
                        "name the rounding: `Round::Nearest`, `Round::Away`, `Round::Floor`, `Round::Ceil`, `Round::Trunc` or `Round::Odd`",
                    );
                };
                let attrs = Attrs::of([
                    ("dtype", Attr::Ident(d.name().into())),
                    ("round", Attr::Ident(mode.word().into())),
                ]);
                self.build(span, Opcode::TileCast, [t], attrs)
            }
            "extract" => {
                let Some(tf) = &m.turbofish else {
                    return self.err(
                        &m.method,
                        "write the window size: `a.extract::<R, C>([i, j])`",
                    );
                };
                let args: InlineVec<&GenericArgument, 4> = items(&tf.args).collect();
                let shape = self.sizes(&args, tf);
                self.arity(&m.method, n, 1, &"a.extract::<R, C>([i, j])")?;
                let Some(arg) = m.args.first() else {
                    return Err(Poison);
                };
                let off = self.offsets(arg);
                let (shape, off) = (shape?, off?);
                let attrs = Attrs::of([("shape", Attr::ints(&shape)), ("offset", Attr::List(off))]);
                self.build(span, Opcode::TileExtract, [t], attrs)
            }
            "valid" => {
                self.no_turbofish(m, &"a.valid([m, n])")?;
                self.arity(&m.method, n, 1, &"a.valid([m, n])")?;
                let Some(Expr::Array(arr)) = m.args.first() else {
                    return self.err(
                        &m.args,
                        "the valid region is written as an array: `a.valid([m, n])`",
                    );
                };
                let mut operands = ValueList::from([t]);
                let mut ok = true;
                for el in items(&arr.elems) {
                    match self
                        .expr(el)
                        .and_then(|v| self.materialize(v, Some(DataType::Int64)))
                    {
                        Ok(v) => operands.push(v),
                        Err(Poison) => ok = false,
                    }
                }
                if !ok {
                    return Err(Poison);
                }
                self.build(span, Opcode::TileValid, operands, Attrs::new())
            }
            "load" | "store" => self.err(
                &m.method,
                format!(
                    "`{name}` is a tensor method, but the receiver is a tile; tile methods: {}",
                    tile_methods()
                ),
            ),
            _ => self.err(
                &m.method,
                format!(
                    "no method `{name}` on a tile; tile methods: {}",
                    tile_methods()
                ),
            ),
        }
    }

    fn call(&mut self, c: &'k ExprCall, e: &'k Expr) -> R<Val> {
        let Expr::Path(p) = &*c.func else {
            return self.err(
                &c.func,
                format!("only the built-in functions can be called in a kernel: {FUNCTIONS}"),
            );
        };
        let mut segs = items(&p.path.segments);
        let span = self.sid(e);
        // Tile::<T, R, C>::zeros() / full(v)
        if let (Some(ty), Some(ctor), None) = (segs.next(), segs.next(), segs.next())
            && ty.ident == "Tile"
        {
            let syn::PathArguments::AngleBracketed(a) = &ty.arguments else {
                return self.err(
                    &p.path,
                    "write the tile type: `Tile::<f32, 16, 16>::zeros()`",
                );
            };
            let tile = self.tile_args(a, a);
            // `Some(takes a fill value)` for a known constructor.
            let full = with_spelling(&ctor.ident, |name| match name {
                "zeros" => Some(false),
                "full" => Some(true),
                _ => None,
            });
            let fill = match full {
                Some(false) => {
                    self.arity(&ctor.ident, c.args.len(), 0, &"Tile::<T, R, C>::zeros()")?;
                    None
                }
                Some(true) => {
                    self.arity(&ctor.ident, c.args.len(), 1, &"Tile::<T, R, C>::full(v)")?;
                    match c.args.first() {
                        Some(a) => Some(self.expr(a)?),
                        None => return Err(Poison),
                    }
                }
                None => {
                    return self.err(
                        &ctor.ident,
                        format!("no tile constructor `{}`; tiles are created with `Tile::<T, R, C>::zeros()` or `Tile::<T, R, C>::full(v)`", ctor.ident),
                    );
                }
            };
            let (dtype, shape) = tile?;
            self.ctx.set_span(span);
            let v = match fill {
                None => {
                    let c = if dtype.is_float() {
                        Constant::Double(0.0)
                    } else if dtype == DataType::Bool {
                        Constant::Bool(false)
                    } else {
                        Constant::Int64(0)
                    };
                    self.const_of(c, dtype)?
                }
                Some(v) => self.materialize(v, Some(dtype))?,
            };
            let attrs = Attrs::of([
                ("shape", Attr::ints(&shape)),
                ("dtype", Attr::Ident(dtype.name().into())),
            ]);
            return self.build(span, Opcode::TileFull, [v], attrs).map(Val::V);
        }
        let Some(ident) = p.path.get_ident() else {
            return self.err(
                &p.path,
                format!(
                    "cannot find function `{}`; the kernel language has: {FUNCTIONS}",
                    p.path.to_token_stream().to_string().replace(' ', "")
                ),
            );
        };
        // The function, or the message for a name that is not one (`None`: unknown).
        let callee = with_spelling(ident, |name| match name {
            "min" => Ok((Some(Bin::Min), None, 2, "min(a, b)")),
            "max" => Ok((Some(Bin::Max), None, 2, "max(a, b)")),
            "matmul" => Ok((None, Some(Opcode::TileMatmul), 2, "matmul(a, b)")),
            "matmul_acc" => Ok((
                None,
                Some(Opcode::TileMatmulAcc),
                3,
                "matmul_acc(acc, a, b)",
            )),
            "matmul_bias" => Ok((
                None,
                Some(Opcode::TileMatmulBias),
                3,
                "matmul_bias(a, b, bias)",
            )),
            "range" => Err(Some(
                "`range(a, b, s)` is only written as the bounds of a `for` loop",
            )),
            "parallel" => Err(Some(
                "`parallel` loops are not supported yet; use a sequential `for i in a..b` loop",
            )),
            "Tile" => Err(Some(
                "tiles are created with `Tile::<T, R, C>::zeros()` or `Tile::<T, R, C>::full(v)`",
            )),
            _ => Err(None),
        });
        let (bin, op, want, usage) = match callee {
            Ok(c) => c,
            Err(Some(msg)) => return self.err(ident, msg),
            Err(None) => {
                return self.err(
                    ident,
                    format!("cannot find function `{ident}`; the kernel language has: {FUNCTIONS}"),
                );
            }
        };
        // Lower every argument first, so errors inside them are all reported.
        let mut vals = InlineVec::<_, 4>::new();
        let mut ok = true;
        for a in items(&c.args) {
            match self.expr(a) {
                Ok(v) => vals.push(v),
                Err(Poison) => ok = false,
            }
        }
        self.arity(ident, c.args.len(), want, &usage)?;
        if !ok {
            return Err(Poison);
        }
        match (bin, op, vals.as_slice()) {
            (Some(k), _, [a, b]) => self.apply_binary(k, *a, *b, span, None),
            (_, Some(op), _) => {
                let mut ids = ValueList::new();
                for v in vals {
                    ids.push(self.materialize(v, None)?);
                }
                self.build(span, op, ids, Attrs::new()).map(Val::V)
            }
            _ => Err(Poison),
        }
    }
}
