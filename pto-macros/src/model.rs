//! The borrowed model of a kernel's signature: parameters with their IR types and host
//! bindings, the symbolic dimensions they share by name, and the return type. Every node
//! keeps the syn tokens it came from, for error spans.

use proc_macro2::{Literal, Span, TokenStream};
use pto_ir::{DataType, Direction, Name};
use quote::{ToTokens, TokenStreamExt, quote};
use syn::punctuated::Pair;
use syn::{
    Attribute, Block, Expr, FnArg, GenericArgument, Ident, ItemFn, Lit, Pat, PathArguments,
    ReturnType, Token, Type, Visibility,
};

use crate::ctxt::Errors;

/// One extent of a tensor parameter.
#[derive(Clone, Debug)]
pub(crate) enum DimSpec {
    /// An integer literal.
    Const(u64),
    /// A symbolic dimension, shared by name across parameters: its spelling, and where it
    /// is written (for messages).
    Sym { name: Name, span: Span },
}

/// The kind and IR type of a parameter.
#[derive(Clone, Debug)]
pub(crate) enum ParamTy {
    /// `x: f32`.
    Scalar(DataType),
    /// `x: &Tensor<T, D..>`, `&mut`, `#[out] &mut`.
    Tensor { dtype: DataType, dims: Vec<DimSpec> },
    /// `x: &Tile<T, R, C>`.
    Tile {
        dtype: DataType,
        shape: pto_ir::Shape,
    },
    /// A parameter that could not be modeled (already reported).
    Invalid,
}

/// A parameter.
pub(crate) struct Param {
    pub ident: Ident,
    /// The spelling of `ident`, shared with the IR values and scopes that name it.
    pub name: Name,
    pub ty: ParamTy,
    pub direction: Direction,
    /// The host binding's type, spelled with the user's own paths (so their imports are used).
    pub host: TokenStream,
}

/// A kernel function.
pub(crate) struct Kernel<'a> {
    /// Attributes to keep on the host function (docs, lints).
    pub attrs: Vec<&'a Attribute>,
    pub vis: &'a Visibility,
    pub ident: &'a Ident,
    pub params: Vec<Param>,
    /// The scalar return type, if any: `None` is `()`; `Some(None)` is an invalid one.
    pub ret: Option<Option<(DataType, &'a Type)>>,
    /// A tuple of scalars returned (`-> (i64, f32)`, seed 004's `TupleType`); `ret` is then
    /// `None`.
    pub ret_tuple: Option<(Vec<DataType>, &'a Type)>,
    pub body: &'a Block,
}

impl Kernel<'_> {
    /// Whether the return type is known to be valid.
    pub(crate) fn ret_dtype(&self) -> Option<DataType> {
        self.ret.flatten().map(|(d, _)| d)
    }

    /// The returned scalars' types, in order (one for a scalar, several for a tuple).
    pub(crate) fn ret_dtypes(&self) -> Vec<DataType> {
        match &self.ret_tuple {
            Some((ds, _)) => ds.clone(),
            None => self.ret_dtype().into_iter().collect(),
        }
    }
}

const SCALARS: &str = "f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, bool";

/// Why a tensor or tile cannot hold `bool`: the host runtime has no `bool` element (a
/// `bool` scalar is fine).
pub(crate) const NO_BOOL_ELEMENTS: &str = "tensors and tiles of `bool` are not supported yet (the CPU runtime has no `bool` element); use `u8` holding 0 and 1";

/// The spelling of `ident` as the kernel means it: `r#loop` is the identifier `loop` (the IR
/// names the value so, and the emitters make their own identifiers from the name).
pub(crate) fn spelling(ident: &Ident) -> String {
    let s = ident.to_string();
    match s.strip_prefix("r#") {
        Some(bare) => bare.to_string(),
        None => s,
    }
}

/// The dtype a scalar type path names (`f32`, `f16`, `pto::f16`).
pub(crate) fn scalar_dtype(ty: &Type) -> Option<DataType> {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            if !matches!(last.arguments, PathArguments::None) {
                return None;
            }
            DataType::from_rust_name(&spelling(&last.ident))
        }
        Type::Paren(p) => scalar_dtype(&p.elem),
        Type::Group(g) => scalar_dtype(&g.elem),
        _ => None,
    }
}

/// An integer literal in a generic argument or expression (`128`, `{ 128 }`).
pub(crate) fn int_literal(e: &Expr) -> Option<u64> {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_parse::<u64>().ok(),
            _ => None,
        },
        Expr::Block(b) if b.block.stmts.len() == 1 => match b.block.stmts.first() {
            Some(syn::Stmt::Expr(e, None)) => int_literal(e),
            _ => None,
        },
        Expr::Paren(p) => int_literal(&p.expr),
        Expr::Group(g) => int_literal(&g.expr),
        _ => None,
    }
}

/// What a generic parameter type names: `Tensor`, `Tile`, or something else.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Generic {
    Tensor,
    Tile,
    Other,
}

/// The generic arguments of a type (`T` and up to four extents), kept inline.
type GenericArgs<'a> = pto_ir::InlineVec<&'a GenericArgument, 5>;

/// `Tensor<T, D..>` or `Tile<T, D..>`: the last path segment's name and its arguments.
fn generic_type(ty: &Type) -> Option<(&Ident, Generic, GenericArgs<'_>)> {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let args = match &last.arguments {
                PathArguments::AngleBracketed(a) => a.args.iter().collect(),
                PathArguments::None => GenericArgs::new(),
                PathArguments::Parenthesized(_) => return None,
            };
            let kind = match spelling(&last.ident).as_str() {
                "Tensor" => Generic::Tensor,
                "Tile" => Generic::Tile,
                _ => Generic::Other,
            };
            Some((&last.ident, kind, args))
        }
        Type::Group(g) => generic_type(&g.elem),
        _ => None,
    }
}

/// One extent written as a generic argument.
fn dim_arg(arg: &GenericArgument) -> Option<DimSpec> {
    match arg {
        GenericArgument::Const(e) => int_literal(e).filter(|&v| v > 0).map(DimSpec::Const),
        GenericArgument::Type(Type::Path(p)) if p.qself.is_none() => {
            p.path.get_ident().map(|i| DimSpec::Sym {
                name: Name::from(spelling(i)),
                span: i.span(),
            })
        }
        _ => None,
    }
}

/// Models `T, D0, D1, ..` of a `Tensor` / `Tile`.
fn elem_and_dims(
    what: &str,
    ty: &Type,
    args: &[&GenericArgument],
    errs: &mut Errors,
) -> Option<(DataType, Vec<DimSpec>)> {
    let Some((first, dims)) = args.split_first() else {
        errs.push_spanned(
            ty,
            format!("`{what}` needs an element type and 1 to 4 dimensions: `{what}<f32, B, 128>`"),
        );
        return None;
    };
    let dtype = match first {
        GenericArgument::Type(t) => scalar_dtype(t),
        _ => None,
    };
    let Some(dtype) = dtype else {
        errs.push_spanned(
            first,
            format!("unknown element type; expected one of {SCALARS}"),
        );
        return None;
    };
    // A mask tile (`Tile<bool, R, C>`) may be a parameter; a tensor of `bool` may not.
    if dtype == DataType::Bool && what != "Tile" {
        errs.push_spanned(first, NO_BOOL_ELEMENTS);
        return None;
    }
    if dims.is_empty() || dims.len() > 4 {
        errs.push_spanned(
            ty,
            format!(
                "`{what}` has rank {}, but ranks 1 to 4 are supported",
                dims.len()
            ),
        );
        return None;
    }
    let mut out = Vec::with_capacity(dims.len());
    let mut ok = true;
    for d in dims {
        match dim_arg(d) {
            Some(spec) => out.push(spec),
            None => {
                errs.push_spanned(
                    d,
                    "a dimension is a positive integer literal or an identifier (a symbolic dimension)",
                );
                ok = false;
            }
        }
    }
    ok.then_some((dtype, out))
}

fn model_param_ty(arg: &FnArg, ty: &Type, is_out: bool, errs: &mut Errors) -> (ParamTy, Direction) {
    let (inner, mutable) = match ty {
        Type::Reference(r) => (&*r.elem, r.mutability.is_some()),
        other => {
            if let Some(d) = scalar_dtype(other) {
                if is_out {
                    errs.push_spanned(
                        arg,
                        "`#[out]` marks a `&mut Tensor` or `&mut Tile` parameter, not a scalar",
                    );
                }
                return (ParamTy::Scalar(d), Direction::In);
            }
            if let Some((name, kind, _)) = generic_type(other)
                && kind != Generic::Other
            {
                errs.push_spanned(
                    other,
                    format!("a `{name}` parameter is passed by reference: `&{name}<..>` or `&mut {name}<..>`"),
                );
                return (ParamTy::Invalid, Direction::In);
            }
            errs.push_spanned(
                other,
                format!(
                    "unsupported parameter type; expected a scalar ({SCALARS}), `&Tensor<T, D..>`, `&mut Tensor<T, D..>` or `&Tile<T, R, C>`"
                ),
            );
            return (ParamTy::Invalid, Direction::In);
        }
    };
    let direction = match (mutable, is_out) {
        (false, false) => Direction::In,
        (true, false) => Direction::InOut,
        (true, true) => Direction::Out,
        (false, true) => {
            errs.push_spanned(ty, "an `#[out]` parameter must be `&mut`");
            Direction::Out
        }
    };
    let Some((name, kind, args)) = generic_type(inner) else {
        errs.push_spanned(
            ty,
            "unsupported parameter type; expected `&Tensor<T, D..>`, `&mut Tensor<T, D..>` or `&Tile<T, R, C>`",
        );
        return (ParamTy::Invalid, direction);
    };
    match kind {
        Generic::Tensor => match elem_and_dims("Tensor", inner, &args, errs) {
            Some((dtype, dims)) => (ParamTy::Tensor { dtype, dims }, direction),
            None => (ParamTy::Invalid, direction),
        },
        Generic::Tile => match elem_and_dims("Tile", inner, &args, errs) {
            Some((dtype, dims)) => {
                let mut shape = pto_ir::Shape::new();
                for (d, a) in dims.iter().zip(args.iter().skip(1)) {
                    match d {
                        DimSpec::Const(c) => shape.push(*c),
                        DimSpec::Sym { name: s, .. } => errs.push_spanned(
                            a,
                            format!("tile dimensions are static: `{s}` must be an integer literal"),
                        ),
                    }
                }
                if dtype == DataType::Bool && direction != Direction::In {
                    // The host function reads a copy of a mask (its runtime form is bytes),
                    // and a kernel cannot assign a tile parameter: nothing would come back.
                    errs.push_spanned(
                        ty,
                        "a mask parameter is read only: take `&Tile<bool, R, C>` (a kernel cannot write a tile parameter; store results into tensors)",
                    );
                }
                if shape.len() == dims.len() {
                    (ParamTy::Tile { dtype, shape }, direction)
                } else {
                    (ParamTy::Invalid, direction)
                }
            }
            None => (ParamTy::Invalid, direction),
        },
        Generic::Other => {
            errs.push_spanned(
                inner,
                format!("unsupported parameter type `{name}`; expected `Tensor<T, D..>` or `Tile<T, R, C>`"),
            );
            (ParamTy::Invalid, direction)
        }
    }
}

/// Builds the model, reporting every problem of the signature.
pub(crate) fn build<'a>(item: &'a ItemFn, errs: &mut Errors) -> Kernel<'a> {
    let sig = &item.sig;
    if let Some(c) = &sig.constness {
        errs.push_spanned(c, "a kernel cannot be `const`");
    }
    if let Some(a) = &sig.asyncness {
        errs.push_spanned(a, "a kernel cannot be `async`");
    }
    if let syn::Safety::Unsafe(u) = &sig.safety {
        errs.push_spanned(u, "a kernel cannot be `unsafe`");
    }
    if let Some(abi) = &sig.abi {
        errs.push_spanned(abi, "a kernel cannot have an ABI");
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errs.push_spanned(
            &sig.generics,
            "a kernel cannot be generic; symbolic dimensions are written directly in the types: `&Tensor<f32, B, 128>`",
        );
    }
    if let Some(v) = &sig.variadic {
        errs.push_spanned(v, "a kernel cannot be variadic");
    }
    let name = spelling(&sig.ident);
    if ["pto", "std", "core", "alloc"].contains(&name.as_str()) {
        errs.push_spanned(
            &sig.ident,
            format!(
                "a kernel cannot be named `{name}`: its `mod {name}` (with `{name}::IR` and \
                     the other items) would make every `{name}::..` path of the enclosing \
                     module ambiguous with the `{name}` crate; rename the kernel"
            ),
        );
    }
    let mut params = Vec::with_capacity(sig.inputs.len());
    for arg in sig.inputs.iter() {
        let pt = match arg {
            FnArg::Typed(pt) => pt,
            FnArg::Receiver(r) => {
                errs.push_spanned(r, "a kernel is a free function; it cannot take `self`");
                continue;
            }
        };
        let mut is_out = false;
        for a in &pt.attrs {
            if a.path().is_ident("out") && matches!(a.meta, syn::Meta::Path(_)) {
                is_out = true;
            } else {
                errs.push_spanned(
                    a,
                    "unsupported parameter attribute; the only one is `#[out]`",
                );
            }
        }
        let ident = match &*pt.pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                if let Some(m) = &pi.mutability {
                    errs.push_spanned(
                        m,
                        format!(
                            "kernel parameters cannot be `mut`; declare a local copy instead: `let mut {0} = {0};`",
                            pi.ident
                        ),
                    );
                }
                pi.ident.clone()
            }
            other => {
                errs.push_spanned(
                    other,
                    "a kernel parameter is a plain name: `x: &Tensor<f32, B, 128>`",
                );
                continue;
            }
        };
        let name = Name::from(spelling(&ident));
        if params.iter().any(|p: &Param| p.name == name) {
            errs.push_spanned(&ident, format!("parameter `{name}` is declared twice"));
        }
        let (ty, direction) = model_param_ty(arg, &pt.ty, is_out, errs);
        let host = host_type(&pt.ty, &ty);
        params.push(Param {
            ident,
            name,
            ty,
            direction,
            host,
        });
    }
    // A symbolic dimension cannot share its name with a parameter.
    for p in &params {
        if let ParamTy::Tensor { dims, .. } = &p.ty {
            for d in dims {
                if let DimSpec::Sym { name, span } = d
                    && params.iter().any(|p| p.name == *name)
                {
                    errs.push_range(
                        (*span, *span),
                        format!("symbolic dimension `{name}` has the name of a parameter; rename one of them"),
                    );
                }
            }
        }
    }
    let mut ret_tuple = None;
    let ret = match &sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, ty) => match scalar_dtype(ty) {
            Some(d) => Some(Some((d, &**ty))),
            None => {
                if matches!(&**ty, Type::Tuple(t) if t.elems.is_empty()) {
                    None
                } else if let Type::Tuple(t) = &**ty
                    && t.elems.len() >= 2
                    && let Some(ds) = t.elems.iter().map(scalar_dtype).collect::<Option<Vec<_>>>()
                {
                    ret_tuple = Some((ds, &**ty));
                    None
                } else {
                    errs.push_spanned(
                        ty,
                        format!(
                            "a kernel returns a scalar ({SCALARS}) or nothing; tiles and tensors are returned through `&mut` / `#[out]` parameters"
                        ),
                    );
                    Some(None)
                }
            }
        },
    };
    let attrs = item.attrs.iter().collect();
    Kernel {
        attrs,
        vis: &item.vis,
        ident: &sig.ident,
        params,
        ret,
        ret_tuple,
        body: &item.block,
    }
}

/// The host type of a parameter: scalars as written, `&Tensor<T, ..>` as `&Tensor<T>`,
/// `&Tile<T, ..>` as the 2-D `&Tile<T, R, C>` (a mask too: `expand::bind_masks` converts it),
/// reusing the user's paths.
fn host_type(ty: &Type, model: &ParamTy) -> TokenStream {
    let (reference, inner) = match ty {
        Type::Reference(r) => (Some(r), &*r.elem),
        other => (None, other),
    };
    let Type::Path(tp) = inner else {
        return quote!(impl ::core::marker::Sized);
    };
    let segments = &tp.path.segments;
    let elem = match segments.last().map(|s| &s.arguments) {
        Some(PathArguments::AngleBracketed(a)) => a.args.first(),
        _ => None,
    };
    // The host's generic arguments: `<T>` for a tensor, `<T, R, C>` for a tile.
    let (elem, rows_cols) = match (model, elem) {
        (ParamTy::Scalar(_), _) => return quote!(#ty),
        (ParamTy::Tensor { .. }, Some(elem)) => (elem, None),
        (ParamTy::Tile { shape, .. }, Some(elem)) => match shape.split_last() {
            Some((&c, lead)) => (elem, Some((lead.iter().product::<u64>(), c))),
            None => (elem, Some((1, 1))),
        },
        _ => return quote!(impl ::core::marker::Sized),
    };
    // The user's path as written, but for the last segment's generic arguments, printed
    // piece by piece into one stream: cloning the path would copy the arguments it then
    // drops, and quoting the pieces apart would build streams only to move their tokens.
    let mut out = TokenStream::new();
    if let Some(r) = reference {
        r.and_token.to_tokens(&mut out);
        r.mutability.to_tokens(&mut out);
    }
    tp.path.leading_colon.to_tokens(&mut out);
    for pair in segments.pairs() {
        match pair {
            Pair::Punctuated(seg, colons) => {
                seg.to_tokens(&mut out);
                colons.to_tokens(&mut out);
            }
            Pair::End(last) => {
                last.ident.to_tokens(&mut out);
                <Token![<]>::default().to_tokens(&mut out);
                elem.to_tokens(&mut out);
                if let Some((rows, cols)) = rows_cols {
                    for n in [rows, cols] {
                        <Token![,]>::default().to_tokens(&mut out);
                        out.append(Literal::u64_unsuffixed(n));
                    }
                }
                <Token![>]>::default().to_tokens(&mut out);
            }
        }
    }
    out
}
