//! The Rust host emitter: an [`isa::Program`](crate::isa::Program) as the body of the host
//! function the `#[pto::kernel]` macro generates.
//!
//! The body is a block of type `Result<R, ::pto::Error>`:
//! 1. shape checks of every tensor parameter (`Tensor::check_shape`: rank and static dims),
//!    then symbolic dimensions bound from the first tensor carrying them and checked against
//!    every other (`Tensor::bind_dim`);
//! 2. every tile slot allocated once (`::pto::Tile::<T, R, C>::zeros()`), before any loop;
//! 3. the instructions as `::pto::isa::*` calls (the `_inplace` / `_rev` forms where the
//!    destination is also a source), structured control flow as Rust `for` / `loop` / `if`,
//!    scalar ops as panic-free arithmetic (`::pto::Element` ops: wrapping integers, division
//!    by zero gives 0);
//! 4. `Ok(..)` with the returned scalars.
//!
//! Parameters are named by their IR names without the SSA number (`%x_3` is `x`); other
//! values are `{name}_{number}`. Nothing here panics on any program.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

use pto_ir::{
    Constant, DataType, Diag, Diagnostics, Opcode, PipeKind, ProgramModule, Type, ValueDef, ValueId,
};

use crate::events::Event;
use crate::isa::{Arg, Index, Inst, Isa, Program, TileId, TileRef};

/// Emits the host body of `p`.
pub fn emit(p: &Program) -> Result<TokenStream, Diagnostics> {
    let mut w = Writer::new(p);
    let body = w.put_program();
    if w.diags.is_empty() {
        Ok(body)
    } else {
        let mut d = Diagnostics::new();
        for x in w.diags {
            d.push(x);
        }
        Err(d)
    }
}

/// A whole host function `fn NAME(params) -> Result<R, ::pto::Error> { body }`, with the
/// parameter types of `shared/spec/dsl.md` section 3 (for tools and tests; the macro writes
/// its own signature from the user's and uses [`emit`]).
pub fn emit_fn(p: &Program) -> Result<TokenStream, Diagnostics> {
    let body = emit(p)?;
    let mut w = Writer::new(p);
    let m = &p.module;
    let f = &m.funcs[p.func];
    let name = if valid_ident(&f.name) {
        Ident::new(&f.name, Span::call_site())
    } else {
        format_ident!("kernel")
    };
    let mut params = Vec::new();
    for q in &f.sig.params {
        let id = w.ident(q.value);
        let mutable = q.direction != pto_ir::Direction::In;
        let ty = match &m.values[q.value].ty {
            Type::Tensor(t) => {
                let e = w.rust_ty(t.dtype);
                if mutable {
                    quote!(&mut ::pto::Tensor<#e>)
                } else {
                    quote!(&::pto::Tensor<#e>)
                }
            }
            Type::Tile(t) => {
                let e = w.rust_ty(t.dtype);
                let (r, c) = t.rows_cols();
                let (r, c) = (
                    Literal::usize_unsuffixed(r as usize),
                    Literal::usize_unsuffixed(c as usize),
                );
                if mutable {
                    quote!(&mut ::pto::Tile<#e, #r, #c>)
                } else {
                    quote!(&::pto::Tile<#e, #r, #c>)
                }
            }
            t => {
                let e = w.rust_ty(t.dtype().unwrap_or(DataType::Fp32));
                quote!(#e)
            }
        };
        params.push(quote!(#id: #ty));
    }
    let rets: Vec<TokenStream> = f
        .sig
        .returns
        .iter()
        .map(|t| w.rust_ty(t.dtype().unwrap_or(DataType::Fp32)))
        .collect();
    let ret = match rets.as_slice() {
        [] => quote!(()),
        [r] => quote!(#r),
        rs => quote!((#(#rs),*)),
    };
    if !w.diags.is_empty() {
        let mut d = Diagnostics::new();
        for x in w.diags {
            d.push(x);
        }
        return Err(d);
    }
    Ok(quote! {
        #[allow(unused_mut, unused_variables, unused_assignments, unused_parens, non_snake_case, unreachable_code, clippy::all)]
        pub fn #name(#(#params),*) -> ::core::result::Result<#ret, ::pto::Error> #body
    })
}

/// A `TLOAD`s -> elementwise instructions -> `TSTORE` run the host code fuses into one pass
/// (`pto::isa::tload_map_store`); see `Writer::chain_at`.
struct Chain<'i> {
    /// (tile, tensor, offsets) of each load, in order.
    loads: Vec<(TileId, ValueId, &'i [Index])>,
    /// The elementwise instructions, in order.
    ops: Vec<(Isa, TileId, &'i [Arg])>,
    /// (tensor, tile, offsets) of the store.
    store: (ValueId, TileId, &'i [Index]),
    /// Instructions the chain spans, syncs included.
    len: usize,
}

/// The element function (`::pto::Element::add`) an elementwise instruction applies, operands
/// in the instruction's order; `None` for the others.
fn elementwise_fn(isa: Isa) -> Option<TokenStream> {
    let (tr, f) = elementwise_name(isa)?;
    let (tr, f) = (
        Ident::new(tr, Span::call_site()),
        Ident::new(f, Span::call_site()),
    );
    Some(quote!(::pto::#tr::#f))
}

/// The trait and function of [`elementwise_fn`]: `("Element", "add")`.
fn elementwise_name(isa: Isa) -> Option<(&'static str, &'static str)> {
    use Isa::*;
    Some(match isa {
        TAdd | TAddS => ("Element", "add"),
        TSub | TSubS => ("Element", "sub"),
        TMul | TMulS => ("Element", "mul"),
        TDiv | TDivS => ("Element", "div"),
        TMax | TMaxS => ("Element", "max"),
        TMin | TMinS => ("Element", "min"),
        TRem | TRemS => ("Element", "rem"),
        TAnd | TAndS => ("Int", "and"),
        TOr | TOrS => ("Int", "or"),
        TXor | TXorS => ("Int", "xor"),
        TShl | TShlS => ("Int", "shl"),
        TShr | TShrS => ("Int", "shr"),
        TNeg => ("Element", "neg"),
        TAbs => ("Element", "abs"),
        TRelu => ("Element", "relu"),
        TExp => ("Float", "exp"),
        TLog => ("Float", "ln"),
        TSqrt => ("Float", "sqrt"),
        TRsqrt => ("Float", "rsqrt"),
        TRecip => ("Float", "recip"),
        TNot => ("Int", "not"),
        _ => return None,
    })
}

/// Adds to `out`, per tile slot, the number of instructions in `insts` that name it.
fn count_tile_uses(insts: &[Inst], out: &mut HashMap<TileId, usize>) {
    fn add(out: &mut HashMap<TileId, usize>, t: TileId) {
        *out.entry(t).or_default() += 1;
    }
    let slot = |r: &TileRef| match r {
        TileRef::Slot(t) => Some(*t),
        TileRef::Param(_) => None,
    };
    for i in insts {
        match i {
            Inst::Op { dst, args, .. } => {
                add(out, *dst);
                for a in args {
                    if let Arg::Tile(r) = a
                        && let Some(t) = slot(r)
                    {
                        add(out, t);
                    }
                }
            }
            Inst::Load { dst, .. } | Inst::SetValid { dst, .. } | Inst::FullValid(dst) => {
                add(out, *dst)
            }
            Inst::Store { src, .. } => {
                if let Some(t) = slot(src) {
                    add(out, t);
                }
            }
            Inst::Extract { dst, src, .. }
            | Inst::Insert { dst, src, .. }
            | Inst::Cvt { dst, src, .. } => {
                add(out, *dst);
                if let Some(t) = slot(src) {
                    add(out, t);
                }
            }
            Inst::For { body, .. } => count_tile_uses(body, out),
            Inst::While { cond, body, .. } => {
                count_tile_uses(cond, out);
                count_tile_uses(body, out);
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                count_tile_uses(then_body, out);
                count_tile_uses(else_body, out);
            }
            Inst::SetFlag(_)
            | Inst::WaitFlag(_)
            | Inst::Barrier(_)
            | Inst::Scalar { .. }
            | Inst::Assign(_)
            | Inst::Break
            | Inst::Continue
            | Inst::Return(_) => {}
        }
    }
}

/// `e` without one pair of enclosing parentheses (a bare argument or `let` value needs none).
fn unparen(e: TokenStream) -> TokenStream {
    let mut it = e.clone().into_iter();
    match (it.next(), it.next()) {
        (Some(proc_macro2::TokenTree::Group(g)), None)
            if g.delimiter() == proc_macro2::Delimiter::Parenthesis =>
        {
            g.stream()
        }
        _ => e,
    }
}

/// Whether `s` can be an identifier.
fn valid_ident(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    s != "_" && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

struct Writer<'a> {
    p: &'a Program,
    m: &'a ProgramModule,
    params: HashSet<String>,
    diags: Vec<Diag>,
    /// How many instructions name each tile slot, anywhere in the kernel.
    tile_uses: HashMap<TileId, usize>,
}

impl<'a> Writer<'a> {
    fn new(p: &'a Program) -> Self {
        let m = &p.module;
        let params = m.funcs[p.func]
            .sig
            .params
            .iter()
            .filter_map(|q| m.values[q.value].name.clone())
            .collect();
        let mut tile_uses = HashMap::new();
        count_tile_uses(&p.body, &mut tile_uses);
        Writer {
            p,
            m,
            params,
            diags: Vec::new(),
            tile_uses,
        }
    }

    fn err(&mut self, msg: impl Into<String>) {
        self.diags.push(Diag::new(self.p.span, msg));
    }

    /// The Rust identifier of a value.
    fn ident(&self, v: ValueId) -> Ident {
        let d = &self.m.values[v];
        if let (ValueDef::Param(..), Some(n)) = (d.def, &d.name)
            && valid_ident(n)
        {
            return Ident::new(n, Span::call_site());
        }
        let base = d
            .name
            .as_deref()
            .map(crate::lower::sanitize)
            .unwrap_or_default();
        let candidate = format!("{base}_{}", d.number);
        if !base.is_empty() && valid_ident(&candidate) && !self.params.contains(&candidate) {
            Ident::new(&candidate, Span::call_site())
        } else {
            format_ident!("v_{}", d.number)
        }
    }

    fn tile_ident(&self, t: TileId) -> Ident {
        match self.p.tile(t) {
            Some(s) if valid_ident(&s.name) => Ident::new(&s.name, Span::call_site()),
            _ => format_ident!("t{}", t.0),
        }
    }

    fn dtype(&self, v: ValueId) -> DataType {
        self.m.values[v].ty.dtype().unwrap_or(DataType::Unknown)
    }

    fn rust_ty(&mut self, d: DataType) -> TokenStream {
        match d {
            DataType::Bool => quote!(bool),
            DataType::Int8 => quote!(i8),
            DataType::Int16 => quote!(i16),
            DataType::Int32 => quote!(i32),
            DataType::Int64 => quote!(i64),
            DataType::UInt8 => quote!(u8),
            DataType::UInt16 => quote!(u16),
            DataType::UInt32 => quote!(u32),
            DataType::UInt64 => quote!(u64),
            DataType::Fp16 => quote!(::pto::f16),
            DataType::Bf16 => quote!(::pto::bf16),
            DataType::Fp32 => quote!(f32),
            DataType::Fp64 => quote!(f64),
            other => {
                self.err(format!("the CPU runtime has no {other} element type"));
                quote!(f32)
            }
        }
    }

    /// A literal `x` of type `d`.
    fn lit(&mut self, x: Constant, d: DataType) -> TokenStream {
        if d == DataType::Bool {
            return if x.as_i64() != 0 {
                quote!(true)
            } else {
                quote!(false)
            };
        }
        if d.is_float() {
            let v = x.as_f64();
            let ty = self.rust_ty(d);
            if v.is_nan() {
                return match d {
                    DataType::Fp32 => quote!(f32::NAN),
                    DataType::Fp64 => quote!(f64::NAN),
                    _ => quote!(<#ty as ::pto::Element>::from_f64(f64::NAN)),
                };
            }
            let neg = v.is_sign_negative() && v != 0.0;
            let mag = v.abs();
            let body = match d {
                DataType::Fp32 if mag.is_finite() => {
                    let l = Literal::f32_suffixed(mag as f32);
                    quote!(#l)
                }
                DataType::Fp64 if mag.is_finite() => {
                    let l = Literal::f64_suffixed(mag);
                    quote!(#l)
                }
                DataType::Fp32 => quote!(f32::INFINITY),
                DataType::Fp64 => quote!(f64::INFINITY),
                _ if mag.is_finite() => {
                    let l = Literal::f64_suffixed(mag);
                    quote!(<#ty as ::pto::Element>::from_f64(#l))
                }
                _ => quote!(<#ty as ::pto::Element>::from_f64(f64::INFINITY)),
            };
            return if neg { quote!((-#body)) } else { body };
        }
        let ty = self.rust_ty(d);
        let v: i128 = match x {
            Constant::SizeT(u) => i128::from(u),
            Constant::Double(f) => f as i128,
            other => i128::from(other.as_i64()),
        };
        if v == i128::from(i64::MIN) {
            return quote!(#ty::MIN);
        }
        let mag = v.unsigned_abs().min(u128::from(u64::MAX)) as u64;
        let l = match d {
            DataType::Int8 => Literal::i8_suffixed(mag as i8),
            DataType::Int16 => Literal::i16_suffixed(mag as i16),
            DataType::Int32 => Literal::i32_suffixed(mag as i32),
            DataType::Int64 => Literal::i64_suffixed(mag as i64),
            DataType::UInt8 => Literal::u8_suffixed(mag as u8),
            DataType::UInt16 => Literal::u16_suffixed(mag as u16),
            DataType::UInt32 => Literal::u32_suffixed(mag as u32),
            _ => Literal::u64_suffixed(mag),
        };
        if v < 0 { quote!((-#l)) } else { quote!(#l) }
    }

    /// A scalar operand: a literal for constants, else the value's identifier.
    fn scalar(&mut self, v: ValueId) -> TokenStream {
        match self.m.values[v].constant {
            Some(c) => self.lit(c, self.dtype(v)),
            None => {
                let i = self.ident(v);
                quote!(#i)
            }
        }
    }

    /// `e` (of type `from`) converted to `to`.
    fn convert(&mut self, e: TokenStream, from: DataType, to: DataType) -> TokenStream {
        if from == to {
            return e;
        }
        let prim = |d: DataType| d.is_numeric() && !matches!(d, DataType::Fp16 | DataType::Bf16);
        let t = self.rust_ty(to);
        if to == DataType::Bool {
            let zero = self.lit(Constant::Int64(0), from);
            return quote!((#e != #zero));
        }
        if from == DataType::Bool {
            return if prim(to) {
                quote!((u8::from(#e) as #t))
            } else {
                quote!(<#t as ::pto::Element>::from_f64(f64::from(u8::from(#e))))
            };
        }
        if prim(from) && prim(to) {
            quote!((#e as #t))
        } else {
            quote!(<#t as ::pto::Element>::from_f64(::pto::Element::to_f64(#e)))
        }
    }

    /// A scalar operand converted to `to`.
    fn scalar_as(&mut self, v: ValueId, to: DataType) -> TokenStream {
        let from = self.dtype(v);
        if let Some(c) = self.m.values[v].constant
            && to.is_numeric()
            && (to.is_float() || !c.is_float())
        {
            return self.lit(c, to);
        }
        let e = self.scalar(v);
        self.convert(e, from, to)
    }

    fn index(&mut self, i: Index) -> TokenStream {
        match i {
            Index::Const(c) => {
                let l = Literal::usize_suffixed(usize::try_from(c).unwrap_or(usize::MAX));
                quote!(#l)
            }
            Index::Value(v) => {
                let e = self.scalar(v);
                if self.dtype(v) == DataType::Bool {
                    quote!(usize::from(#e))
                } else {
                    quote!(#e as usize)
                }
            }
        }
    }

    fn tref(&self, t: TileRef) -> TokenStream {
        match t {
            TileRef::Slot(s) => {
                let i = self.tile_ident(s);
                quote!(&#i)
            }
            TileRef::Param(v) => {
                let i = self.ident(v);
                quote!(&*#i)
            }
        }
    }

    fn pipe(p: PipeKind) -> TokenStream {
        let v = match p {
            PipeKind::S => quote!(S),
            PipeKind::V => quote!(V),
            PipeKind::M => quote!(M),
            PipeKind::Mte1 => quote!(Mte1),
            PipeKind::Mte2 => quote!(Mte2),
            PipeKind::Mte3 => quote!(Mte3),
            PipeKind::Fix => quote!(Fix),
            PipeKind::All => quote!(All),
        };
        quote!(::pto::isa::Pipe::#v)
    }

    fn event(&self, f: &str, (src, dst, id): Event) -> TokenStream {
        let (s, d) = (Self::pipe(src), Self::pipe(dst));
        let f = format_ident!("{f}");
        let id = Literal::u8_suffixed(id);
        quote!(::pto::isa::#f(#s, #d, ::pto::isa::EventId(#id));)
    }

    fn put_program(&mut self) -> TokenStream {
        let m = self.m;
        let f = &m.funcs[self.p.func];
        let mut checks = TokenStream::new();
        // 1. Shapes of tensor parameters.
        for q in &f.sig.params {
            let Type::Tensor(t) = &m.values[q.value].ty else {
                continue;
            };
            let name = m.values[q.value].name.clone().unwrap_or_default();
            let id = self.ident(q.value);
            let dims = t.shape.iter().map(|d| match d.as_const() {
                Some(c) => {
                    let l = Literal::usize_suffixed(usize::try_from(c).unwrap_or(usize::MAX));
                    quote!(::core::option::Option::Some(#l))
                }
                None => quote!(::core::option::Option::None),
            });
            checks.extend(quote!(#id.check_shape(#name, &[#(#dims),*])?;));
        }
        // 2. Symbolic dimensions.
        for &d in &f.dims {
            let sym = m.values[d]
                .name
                .clone()
                .unwrap_or_else(|| format!("d{}", m.values[d].number));
            let slot = format_ident!("__dim_{}", m.values[d].number);
            let mut binds = TokenStream::new();
            let mut from_tile = None;
            for q in &f.sig.params {
                let pname = m.values[q.value].name.clone().unwrap_or_default();
                let pid = self.ident(q.value);
                match &m.values[q.value].ty {
                    Type::Tensor(t) => {
                        for (k, dim) in t.shape.iter().enumerate() {
                            if *dim == pto_ir::Dim::Value(d) {
                                binds.extend(quote!(#pid.bind_dim(#pname, #k, #sym, &mut #slot)?;));
                            }
                        }
                    }
                    Type::Tile(t) if from_tile.is_none() => {
                        let n = t.valid.len();
                        for (k, dim) in t.valid.iter().enumerate() {
                            if *dim == pto_ir::Dim::Value(d) {
                                from_tile = Some(if k + 1 == n {
                                    quote!(#pid.valid_cols())
                                } else {
                                    quote!(#pid.valid_rows())
                                });
                            }
                        }
                    }
                    _ => {}
                }
            }
            let id = self.ident(d);
            let ty = self.rust_ty(self.dtype(d));
            if !binds.is_empty() {
                checks.extend(quote! {
                    let mut #slot: ::core::option::Option<usize> = ::core::option::Option::None;
                    #binds
                    let #id: #ty = #slot.unwrap_or(0) as #ty;
                });
            } else if let Some(e) = from_tile {
                checks.extend(quote!(let #id: #ty = #e as #ty;));
            } else {
                self.err(format!(
                    "symbolic dimension `{sym}` is not the size of any parameter"
                ));
            }
        }
        // 3. Tiles, once.
        let mut tiles = TokenStream::new();
        for (i, s) in self.p.tiles.iter().enumerate() {
            let id = self.tile_ident(TileId(i as u32));
            let ty = self.rust_ty(s.dtype);
            let (r, c) = (
                Literal::usize_unsuffixed(s.rows as usize),
                Literal::usize_unsuffixed(s.cols as usize),
            );
            tiles.extend(quote!(let mut #id = ::pto::Tile::<#ty, #r, #c>::zeros();));
        }
        // 4. Instructions; a final `return` becomes the tail expression.
        let mut body = self.p.body.as_slice();
        let mut tail = quote!(::core::result::Result::Ok(()));
        if let Some((Inst::Return(vals), rest)) = body.split_last() {
            tail = self.ok(vals);
            body = rest;
        }
        let insts = self.put_insts(body);
        quote! {{
            #checks
            #tiles
            #insts
            #tail
        }}
    }

    fn ok(&mut self, vals: &[ValueId]) -> TokenStream {
        let es: Vec<TokenStream> = vals.iter().map(|&v| self.scalar(v)).collect();
        match es.as_slice() {
            [] => quote!(::core::result::Result::Ok(())),
            [e] => quote!(::core::result::Result::Ok(#e)),
            es => quote!(::core::result::Result::Ok((#(#es),*))),
        }
    }

    fn put_insts(&mut self, insts: &[Inst]) -> TokenStream {
        let mut out = TokenStream::new();
        let mut rest = insts;
        while let Some((i, tail)) = rest.split_first() {
            if let Some(chain) = self.chain_at(rest) {
                out.extend(self.put_chain(&chain));
                rest = &rest[chain.len..];
            } else {
                out.extend(self.put_inst(i));
                rest = tail;
            }
        }
        out
    }

    /// The fusable chain starting at `insts[0]`, if there is one: one or two `TLOAD`s of
    /// rank-1/2 windows, elementwise instructions over the loaded tiles only, and a `TSTORE`
    /// of a tile every load flows into, to a tensor none of the loads reads; every tile of the
    /// chain has one shape and dtype and is named by no instruction outside it (so nothing
    /// observes the tiles, which the fused call does not write). Sync instructions inside the
    /// chain (no-ops on the CPU) are dropped.
    fn chain_at<'i>(&self, insts: &'i [Inst]) -> Option<Chain<'i>> {
        let is_sync =
            |i: &Inst| matches!(i, Inst::SetFlag(_) | Inst::WaitFlag(_) | Inst::Barrier(_));
        let mut at = 0;
        let mut loads = Vec::new();
        while let Some(i) = insts.get(at) {
            match i {
                Inst::Load {
                    dst,
                    tensor,
                    offsets,
                    window,
                } if window.len() <= 2 && loads.len() < 2 => {
                    loads.push((*dst, *tensor, offsets.as_slice()));
                }
                i if is_sync(i) && !loads.is_empty() => {}
                _ => break,
            }
            at += 1;
        }
        let first = loads.first()?.0;
        let shape = self.p.tile(first).map(|s| (s.dtype, s.rows, s.cols))?;
        let same = |t: TileId| self.p.tile(t).map(|s| (s.dtype, s.rows, s.cols)) == Some(shape);
        // Tile -> the set of loads (bit i: load i) its current value depends on.
        let mut defined: Vec<(TileId, u32)> = Vec::new();
        for (k, &(t, _, _)) in loads.iter().enumerate() {
            if defined.iter().any(|&(d, _)| d == t) || !same(t) {
                return None;
            }
            defined.push((t, 1 << k));
        }
        let mask_of = |defined: &[(TileId, u32)], t: TileId| {
            defined
                .iter()
                .rev()
                .find(|&&(d, _)| d == t)
                .map(|&(_, m)| m)
        };
        let mut ops = Vec::new();
        let mut uses: HashMap<TileId, usize> = HashMap::new();
        for &(t, _, _) in &loads {
            *uses.entry(t).or_default() += 1;
        }
        let store = loop {
            match insts.get(at)? {
                Inst::Op { isa, dst, args } if elementwise_name(*isa).is_some() && same(*dst) => {
                    let mut mask = 0;
                    let mut tiles = 0;
                    for a in args {
                        match a {
                            Arg::Tile(TileRef::Slot(t)) => {
                                mask |= mask_of(&defined, *t)?;
                                tiles += 1;
                                *uses.entry(*t).or_default() += 1;
                            }
                            Arg::Tile(TileRef::Param(_)) => return None,
                            Arg::Scalar(_) | Arg::Imm(_) => {}
                        }
                    }
                    let arity_ok = match args.len() {
                        1 => isa.is_unary() && tiles == 1,
                        2 if isa.is_binary() => tiles == 2,
                        2 => isa.is_scalar_form() && tiles == 1,
                        _ => false,
                    };
                    if !arity_ok {
                        return None;
                    }
                    *uses.entry(*dst).or_default() += 1;
                    defined.push((*dst, mask));
                    ops.push((*isa, *dst, args.as_slice()));
                }
                i if is_sync(i) => {}
                Inst::Store {
                    tensor,
                    src: TileRef::Slot(t),
                    offsets,
                    window,
                } if window.len() <= 2 => {
                    *uses.entry(*t).or_default() += 1;
                    let all = (1u32 << loads.len()) - 1;
                    if mask_of(&defined, *t)? != all || loads.iter().any(|l| l.1 == *tensor) {
                        return None;
                    }
                    break (*tensor, *t, offsets.as_slice());
                }
                _ => return None,
            }
            at += 1;
        };
        if uses
            .iter()
            .any(|(t, n)| self.tile_uses.get(t).copied().unwrap_or(0) != *n)
        {
            return None;
        }
        Some(Chain {
            loads,
            ops,
            store,
            len: at + 1,
        })
    }

    /// A [`Chain`] as one `tload_map_store` / `tload2_map_store` call whose closure computes
    /// the stored element from the loaded ones with the chain's instructions in order.
    fn put_chain(&mut self, c: &Chain<'_>) -> TokenStream {
        self.put_chain_in(c, None)
    }

    /// A `for` loop whose body is one [`Chain`] (and sync instructions, no-ops on the CPU) as
    /// one `tload_map_store_loop` / `tload2_map_store_loop` call, which checks the window
    /// geometry once for the whole loop: when the loop variable is an `i64` with a constant
    /// positive step, the loop carries nothing, and the chain uses the variable only as whole
    /// offset dimensions (everything else it names is defined before the loop).
    fn put_chain_loop(
        &mut self,
        iv: ValueId,
        lb: ValueId,
        ub: ValueId,
        step: ValueId,
        body: &[Inst],
    ) -> Option<TokenStream> {
        let is_sync =
            |i: &Inst| matches!(i, Inst::SetFlag(_) | Inst::WaitFlag(_) | Inst::Barrier(_));
        if self.dtype(iv) != DataType::Int64 {
            return None;
        }
        let k = self.m.values[step]
            .constant
            .map(|c| c.as_i64())
            .filter(|&k| k > 0)?;
        let at = body.iter().position(|i| !is_sync(i))?;
        let chain = self.chain_at(&body[at..])?;
        if !body[at + chain.len..].iter().all(is_sync) {
            return None;
        }
        let names_iv = |args: &[Arg]| args.contains(&Arg::Scalar(iv));
        if chain.ops.iter().any(|&(_, _, args)| names_iv(args)) {
            return None;
        }
        let lb = unparen(self.scalar_as(lb, DataType::Int64));
        let ub = unparen(self.scalar_as(ub, DataType::Int64));
        let k = Literal::usize_suffixed(k as usize);
        let range = quote!(::pto::isa::LoopRange { lb: #lb, ub: #ub, step: #k });
        Some(self.put_chain_in(&chain, Some((iv, range))))
    }

    /// The offsets of a chain's load or store: plain indices, or in a loop call
    /// ([`Writer::put_chain_loop`]) `LoopIndex`es.
    fn chain_offsets(&mut self, offsets: &[Index], iv: Option<ValueId>) -> Vec<TokenStream> {
        offsets
            .iter()
            .map(|&o| match (iv, o) {
                (None, o) => self.index(o),
                (Some(iv), Index::Value(v)) if v == iv => quote!(::pto::isa::LoopIndex::Iv),
                (Some(_), o) => {
                    let e = unparen(self.index(o));
                    quote!(::pto::isa::LoopIndex::At(#e))
                }
            })
            .collect()
    }

    /// [`Writer::put_chain`], or with `lp = (iv, range)` the loop call of
    /// [`Writer::put_chain_loop`].
    fn put_chain_in(&mut self, c: &Chain<'_>, lp: Option<(ValueId, TokenStream)>) -> TokenStream {
        let iv = lp.as_ref().map(|l| l.0);
        let dtype = self.p.tile(c.store.1).map_or(DataType::Fp32, |s| s.dtype);
        let ty = self.rust_ty(dtype);
        let var = |t: TileId| format_ident!("__e{}", t.0);
        let mut body = TokenStream::new();
        for &(isa, dst, args) in &c.ops {
            let mut es = Vec::new();
            for a in args {
                es.push(match *a {
                    Arg::Tile(TileRef::Slot(t)) => {
                        let v = var(t);
                        quote!(#v)
                    }
                    Arg::Tile(TileRef::Param(_)) => TokenStream::new(),
                    Arg::Scalar(v) => unparen(self.scalar_as(v, dtype)),
                    Arg::Imm(x) => unparen(self.lit(Constant::Double(x), dtype)),
                });
            }
            let f = elementwise_fn(isa).unwrap_or_default();
            let d = var(dst);
            body.extend(quote!(let #d: #ty = #f(#(#es),*);));
        }
        let out = var(c.store.1);
        let x = self.ident(c.store.0);
        let x_offs = self.chain_offsets(c.store.2, iv);
        let mut load_args = Vec::new();
        let mut params = Vec::new();
        for &(t, tensor, offsets) in &c.loads {
            let tile = self.tile_ident(t);
            let src = self.ident(tensor);
            let offs = self.chain_offsets(offsets, iv);
            load_args.push(quote!(&mut #tile, &*#src, &[#(#offs),*]));
            let v = var(t);
            params.push(quote!(#v: #ty));
        }
        let f = match (c.loads.len(), &lp) {
            (1, None) => format_ident!("tload_map_store"),
            (_, None) => format_ident!("tload2_map_store"),
            (1, Some(_)) => format_ident!("tload_map_store_loop"),
            (_, Some(_)) => format_ident!("tload2_map_store_loop"),
        };
        let range = lp.map(|(_, r)| quote!(#r,));
        quote! {
            ::pto::isa::#f(
                #(#load_args,)*
                &mut *#x,
                &[#(#x_offs),*],
                #range
                move |#(#params),*| -> #ty {
                    #body
                    #out
                },
            )?;
        }
    }

    fn put_inst(&mut self, i: &Inst) -> TokenStream {
        match i {
            Inst::Op { isa, dst, args } => self.put_op(*isa, *dst, args),
            Inst::Load {
                dst,
                tensor,
                offsets,
                window,
            } => {
                let d = self.tile_ident(*dst);
                let x = self.ident(*tensor);
                let offs: Vec<TokenStream> = offsets.iter().map(|&o| self.index(o)).collect();
                if window.len() <= 2 {
                    quote!(::pto::isa::tload(&mut #d, &*#x, &[#(#offs),*])?;)
                } else {
                    let w = window.iter().map(|&s| Literal::usize_suffixed(s as usize));
                    quote!(::pto::isa::tload_window(&mut #d, &*#x, &[#(#offs),*], &[#(#w),*])?;)
                }
            }
            Inst::Store {
                tensor,
                src,
                offsets,
                window,
            } => {
                let s = self.tref(*src);
                let x = self.ident(*tensor);
                let offs: Vec<TokenStream> = offsets.iter().map(|&o| self.index(o)).collect();
                if window.len() <= 2 {
                    quote!(::pto::isa::tstore(&mut *#x, #s, &[#(#offs),*])?;)
                } else {
                    let w = window.iter().map(|&s| Literal::usize_suffixed(s as usize));
                    quote!(::pto::isa::tstore_window(&mut *#x, #s, &[#(#offs),*], &[#(#w),*])?;)
                }
            }
            Inst::Extract { dst, src, at } => {
                let d = self.tile_ident(*dst);
                let s = self.tref(*src);
                let (r, c) = (self.index(at[0]), self.index(at[1]));
                quote!(::pto::isa::textract(&mut #d, #s, #r, #c)?;)
            }
            Inst::Insert { dst, src, at } => {
                let d = self.tile_ident(*dst);
                let s = self.tref(*src);
                let (r, c) = (self.index(at[0]), self.index(at[1]));
                quote!(::pto::isa::tinsert(&mut #d, #s, #r, #c)?;)
            }
            Inst::Cvt { dst, src, round } => {
                let d = self.tile_ident(*dst);
                let s = self.tref(*src);
                let mode = format_ident!("{}", round.rust());
                quote!(::pto::isa::tcvt(&mut #d, #s, ::pto::RoundMode::#mode);)
            }
            Inst::SetValid { dst, dims } => {
                let d = self.tile_ident(*dst);
                let (r, c) = (self.index(dims[0]), self.index(dims[1]));
                quote!(#d.set_valid(#r, #c)?;)
            }
            Inst::FullValid(t) => {
                let d = self.tile_ident(*t);
                let (r, c) = self.p.tile(*t).map_or((1, 1), |s| (s.rows, s.cols));
                let (r, c) = (
                    Literal::usize_suffixed(r as usize),
                    Literal::usize_suffixed(c as usize),
                );
                quote!(#d.set_valid(#r, #c)?;)
            }
            Inst::SetFlag(e) => self.event("set_flag", *e),
            Inst::WaitFlag(e) => self.event("wait_flag", *e),
            Inst::Barrier(p) => {
                let p = Self::pipe(*p);
                quote!(::pto::isa::pipe_barrier(#p);)
            }
            Inst::Scalar { op, result, args } => {
                let r = self.ident(*result);
                let ty = self.rust_ty(self.dtype(*result));
                let e = unparen(self.scalar_op(*op, *result, args));
                quote!(let #r: #ty = #e;)
            }
            Inst::Assign(pairs) => {
                let mut lhs = Vec::new();
                let mut rhs = Vec::new();
                for &(d, s) in pairs {
                    lhs.push(self.ident(d));
                    let to = self.dtype(d);
                    rhs.push(unparen(self.scalar_as(s, to)));
                }
                if let ([l], [r]) = (lhs.as_slice(), rhs.as_slice()) {
                    quote!(#l = #r;)
                } else {
                    quote!((#(#lhs),*) = (#(#rhs),*);)
                }
            }
            Inst::For {
                iv,
                lb,
                ub,
                step,
                carried,
                body,
                results,
            } => {
                if carried.is_empty()
                    && results.is_empty()
                    && let Some(t) = self.put_chain_loop(*iv, *lb, *ub, *step, body)
                {
                    return t;
                }
                let pre = self.carried_decls(carried);
                let post = self.result_decls(results);
                let ivt = self.dtype(*iv);
                let ivi = self.ident(*iv);
                let lb = self.scalar_as(*lb, ivt);
                let ub = self.scalar_as(*ub, ivt);
                let body = self.put_insts(body);
                let range = match self.m.values[*step].constant.map(|c| c.as_i64()) {
                    Some(1) => quote!(#lb..#ub),
                    Some(k) if k > 0 => {
                        let k = Literal::usize_suffixed(k as usize);
                        quote!((#lb..#ub).step_by(#k))
                    }
                    _ => {
                        let s = self.scalar_as(*step, ivt);
                        quote!((#lb..#ub).step_by({
                            let __step = #s;
                            if __step <= 0 as _ {
                                return ::core::result::Result::Err(::pto::Error::Unsupported(
                                    ::std::format!("loop step {} is not positive", __step)));
                            }
                            __step as usize
                        }))
                    }
                };
                quote! {
                    #pre
                    for #ivi in #range {
                        #body
                    }
                    #post
                }
            }
            Inst::While {
                carried,
                cond,
                cond_value,
                body,
                results,
            } => {
                let pre = self.carried_decls(carried);
                let post = self.result_decls(results);
                let cond = self.put_insts(cond);
                let c = self.scalar(*cond_value);
                let body = self.put_insts(body);
                quote! {
                    #pre
                    loop {
                        #cond
                        if !#c {
                            break;
                        }
                        #body
                    }
                    #post
                }
            }
            Inst::If {
                cond,
                then_body,
                else_body,
                results,
            } => {
                let mut decls = TokenStream::new();
                for &r in results {
                    let id = self.ident(r);
                    let ty = self.rust_ty(self.dtype(r));
                    decls.extend(quote!(let #id: #ty;));
                }
                let c = self.scalar(*cond);
                let t = self.put_insts(then_body);
                let e = self.put_insts(else_body);
                quote! {
                    #decls
                    if #c {
                        #t
                    } else {
                        #e
                    }
                }
            }
            Inst::Break => quote!(break;),
            Inst::Continue => quote!(continue;),
            Inst::Return(vals) => {
                let ok = self.ok(vals);
                quote!(return #ok;)
            }
        }
    }

    fn carried_decls(&mut self, carried: &[(ValueId, ValueId)]) -> TokenStream {
        let mut out = TokenStream::new();
        for &(arg, init) in carried {
            let id = self.ident(arg);
            let d = self.dtype(arg);
            let ty = self.rust_ty(d);
            let e = unparen(self.scalar_as(init, d));
            out.extend(quote!(let mut #id: #ty = #e;));
        }
        out
    }

    fn result_decls(&mut self, results: &[(ValueId, ValueId)]) -> TokenStream {
        let mut out = TokenStream::new();
        for &(r, arg) in results {
            let id = self.ident(r);
            let a = self.ident(arg);
            let ty = self.rust_ty(self.dtype(r));
            out.extend(quote!(let #id: #ty = #a;));
        }
        out
    }

    fn scalar_op(&mut self, op: Opcode, result: ValueId, args: &[ValueId]) -> TokenStream {
        use Opcode::*;
        let d = self.dtype(result);
        let ad = args.first().map_or(d, |&a| self.dtype(a));
        let a = args.first().map(|&v| self.scalar(v)).unwrap_or_default();
        let b = match args.get(1) {
            // Shift amounts may have another integer type; the runtime's shifts take the
            // value's type.
            Some(&v) if matches!(op, ScalarShl | ScalarShr) => self.scalar_as(v, ad),
            Some(&v) => self.scalar(v),
            None => TokenStream::new(),
        };
        let ty = self.rust_ty(d);
        let float = ad.is_float();
        let via_f64 = |f: TokenStream| quote!(<#ty as ::pto::Element>::from_f64(::pto::Element::to_f64(#a).#f(::pto::Element::to_f64(#b))));
        match op {
            ScalarAdd => quote!(::pto::Element::add(#a, #b)),
            ScalarSub => quote!(::pto::Element::sub(#a, #b)),
            ScalarMul => quote!(::pto::Element::mul(#a, #b)),
            ScalarDiv => quote!(::pto::Element::div(#a, #b)),
            ScalarRem if float => quote!((#a % #b)),
            ScalarRem => quote!(#a.checked_rem(#b).unwrap_or(#a)),
            ScalarMin => quote!(::pto::Element::min(#a, #b)),
            ScalarMax => quote!(::pto::Element::max(#a, #b)),
            ScalarFloorDiv if float => via_f64(quote!(div_euclid)),
            ScalarFloorDiv => quote!(#a.checked_div_euclid(#b).unwrap_or(0)),
            ScalarFloorMod if float => via_f64(quote!(rem_euclid)),
            ScalarFloorMod => quote!(#a.checked_rem_euclid(#b).unwrap_or(#a)),
            ScalarPow if float => via_f64(quote!(powf)),
            ScalarPow => quote!(#a.wrapping_pow(u32::try_from(#b).unwrap_or(u32::MAX))),
            ScalarEq => quote!((#a == #b)),
            ScalarNe => quote!((#a != #b)),
            ScalarLt => quote!((#a < #b)),
            ScalarLe => quote!((#a <= #b)),
            ScalarGt => quote!((#a > #b)),
            ScalarGe => quote!((#a >= #b)),
            ScalarAnd | ScalarBitAnd => quote!((#a & #b)),
            ScalarOr | ScalarBitOr => quote!((#a | #b)),
            ScalarXor | ScalarBitXor => quote!((#a ^ #b)),
            ScalarShl => quote!(::pto::Int::shl(#a, #b)),
            ScalarShr => quote!(::pto::Int::shr(#a, #b)),
            ScalarNeg => quote!(::pto::Element::neg(#a)),
            ScalarAbs => quote!(::pto::Element::abs(#a)),
            ScalarNot | ScalarBitNot => quote!((!#a)),
            ScalarCast => self.convert(a, ad, d),
            other => {
                self.err(format!("`{other}` is not a scalar-unit op"));
                quote!(#a)
            }
        }
    }

    fn put_op(&mut self, isa: Isa, dst: TileId, args: &[Arg]) -> TokenStream {
        let d = self.tile_ident(dst);
        let tile_dtype = self.p.tile(dst).map_or(DataType::Fp32, |s| s.dtype);
        let is_dst = |a: &Arg| *a == Arg::Tile(TileRef::Slot(dst));
        let f = format_ident!("{}", isa.rust_fn());
        let f_inplace = format_ident!("{}_inplace", isa.rust_fn());
        let arg = |me: &mut Self, a: &Arg| -> TokenStream {
            unparen(match *a {
                Arg::Tile(t) => me.tref(t),
                Arg::Scalar(v) => me.scalar_as(v, tile_dtype),
                Arg::Imm(x) => me.lit(Constant::Double(x), tile_dtype),
            })
        };
        match args {
            // TMOV onto itself is nothing.
            [a] if isa == Isa::TMov && is_dst(a) => TokenStream::new(),
            [a] if isa.is_unary() && is_dst(a) => quote!(::pto::isa::#f_inplace(&mut #d);),
            [a] => {
                let a = arg(self, a);
                quote!(::pto::isa::#f(&mut #d, #a);)
            }
            [a, b] if isa.is_binary() || isa.is_expand_op() => {
                if is_dst(a) && is_dst(b) {
                    self.err(format!("{} reads its destination twice", isa.name()));
                    TokenStream::new()
                } else if is_dst(a) {
                    let b = arg(self, b);
                    quote!(::pto::isa::#f_inplace(&mut #d, #b);)
                } else if is_dst(b) && isa.is_binary() {
                    let a = arg(self, a);
                    if isa.is_commutative() {
                        quote!(::pto::isa::#f_inplace(&mut #d, #a);)
                    } else {
                        let rev = format_ident!("{}_inplace_rev", isa.rust_fn());
                        quote!(::pto::isa::#rev(&mut #d, #a);)
                    }
                } else if is_dst(b) {
                    self.err(format!(
                        "{} with its broadcast operand as destination",
                        isa.name()
                    ));
                    TokenStream::new()
                } else {
                    let (a, b) = (arg(self, a), arg(self, b));
                    quote!(::pto::isa::#f(&mut #d, #a, #b);)
                }
            }
            [a, k] if isa.is_scalar_form() => match (a, k) {
                (Arg::Tile(_), _) if is_dst(a) => {
                    let k = arg(self, k);
                    quote!(::pto::isa::#f_inplace(&mut #d, #k);)
                }
                (Arg::Tile(_), _) => {
                    let (a, k) = (arg(self, a), arg(self, k));
                    quote!(::pto::isa::#f(&mut #d, #a, #k);)
                }
                // Scalar first (`TDIVS(d, k, s)`).
                (_, Arg::Tile(_)) if is_dst(k) => {
                    let rev = format_ident!("{}_rev_inplace", isa.rust_fn());
                    let a = arg(self, a);
                    quote!(::pto::isa::#rev(&mut #d, #a);)
                }
                _ => {
                    let rev = format_ident!("{}_rev", isa.rust_fn());
                    let (a, k) = (arg(self, a), arg(self, k));
                    quote!(::pto::isa::#rev(&mut #d, #a, #k);)
                }
            },
            [c, a, b] if isa == Isa::TMatmulAcc && is_dst(c) => {
                let (a, b) = (arg(self, a), arg(self, b));
                quote!(::pto::isa::tmatmul_acc_inplace(&mut #d, #a, #b);)
            }
            args => {
                if args.iter().any(is_dst) {
                    self.err(format!("{} cannot read its destination", isa.name()));
                }
                let es: Vec<TokenStream> = args.iter().map(|a| arg(self, a)).collect();
                quote!(::pto::isa::#f(&mut #d, #(#es),*);)
            }
        }
    }
}
