//! `#[pto::program(..)] mod NAME { .. }`: several `#[pto::kernel]` functions in one
//! `program.module`, exactly one marked `#[entry]` (dsl.md sections 1 and 2).
//!
//! Every function is declared first (parameters and signature), so a call is checked against
//! its callee's signature wherever the two are written; then each body is lowered into the
//! one module, which is verified as a whole and lowered by `pto_lower::compile_program`
//! (`incore` scopes outlined, each function lowered on its own). The module keeps each
//! kernel's items (`NAME::f(..)`, `NAME::f::IR`, ...) and adds `NAME::IR`, `NAME::LOWERED`,
//! `NAME::CPP` and `NAME::program()`; a `func.call` in the host code calls the callee's host
//! function, so calling the entry runs the program.

use proc_macro2::TokenStream;
use pto_ir::{Attr, FunctionKind, IRBuilder, ProgramModule};
use quote::quote;
use syn::punctuated::Punctuated;
use syn::{Expr, Item, ItemFn, Lit, Meta, Token, UnOp};

use crate::ctxt::{Errors, range_of};
use crate::lower::SpanTable;
use crate::model::{Kernel, spelling};

/// The program's arguments: the target and the module attributes, in order.
struct ProgramArgs {
    arch: String,
    attrs: Vec<(String, Attr)>,
}

/// The names of the module attributes `tile_default(M = .., N = .., K = ..)` sets, which
/// the tiling pass reads (documented in docs/guide.md).
pub(crate) const TILE_DEFAULT_KEYS: [(&str, &str); 3] = [
    ("M", "tile_default_m"),
    ("N", "tile_default_n"),
    ("K", "tile_default_k"),
];

/// One kernel of the program, before it is modelled.
struct Func {
    item: ItemFn,
    kind: FunctionKind,
    entry: bool,
}

/// The whole expansion of `#[pto::program(args)] input`.
pub(crate) fn program(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut errs = Errors::new();
    let pargs = parse_args(args, &mut errs);
    let module: syn::ItemMod = match syn::parse2(input.clone()) {
        Ok(m) => m,
        Err(e) => {
            let e = syn::Error::new(
                e.span(),
                format!("#[pto::program] applies to a module `mod NAME {{ .. }}`: {e}"),
            );
            let mut out = e.to_compile_error();
            out.extend(input);
            return out;
        }
    };
    let Some((_, content)) = &module.content else {
        errs.push_spanned(
            &module,
            "#[pto::program] needs the module's functions in line: `mod NAME { .. }`",
        );
        return with_errors(errs, quote!(#module));
    };
    // The kernels, and the other items kept as they are.
    let mut funcs: Vec<Func> = Vec::new();
    let mut others: Vec<&Item> = Vec::new();
    for item in content {
        match item {
            Item::Fn(f) => {
                if let Some(func) = kernel_item(f, &mut errs) {
                    funcs.push(func);
                }
            }
            other => others.push(other),
        }
    }
    for f in &mut funcs {
        crate::incore::rewrite(&mut f.item.block);
    }
    let mod_name = spelling(&module.ident);
    check_items(&funcs, &module, &mut errs);
    let models: Vec<Kernel<'_>> = funcs
        .iter()
        .map(|f| crate::model::build(&f.item, &mut errs))
        .collect();
    let lowered = if errs.is_empty() {
        lower_program(&mod_name, &pargs, &funcs, &models, &mut errs)
    } else {
        None
    };
    let vis = &module.vis;
    let ident = &module.ident;
    let attrs = &module.attrs;
    let Some((module_ir, c)) = lowered else {
        // One stub per name: a second `fn a` would be an error of its own.
        let mut names: Vec<String> = Vec::new();
        let stubs: Vec<TokenStream> = models
            .into_iter()
            .filter(|k| {
                let name = spelling(k.ident);
                let keep = !names.contains(&name)
                    && !["IR", "LOWERED", "CPP", "program"].contains(&name.as_str());
                names.push(name);
                keep
            })
            .map(crate::fallback::stub)
            .collect();
        let body = quote! {
            #[allow(unused_imports)]
            use super::*;
            #(#others)*
            #(#stubs)*
        };
        let texts = texts(ident, "", "", "");
        return with_errors(errs, quote! { #(#attrs)* #vis mod #ident { #body #texts } });
    };
    let mut items = TokenStream::new();
    let mut models: Vec<Option<Kernel<'_>>> = models.into_iter().map(Some).collect();
    for (name, a, outlined) in &c.funcs {
        if *outlined {
            // An outlined region: a host function of its own, with the IR's parameter types.
            let host = pto_lower::emit::rust::emit_fn(&a.program);
            match host {
                Ok(t) => {
                    let doc = format!(
                        "The host function of `{name}`, an `incore!` region outlined into a function of its own."
                    );
                    items.extend(quote!(#[doc = #doc]));
                    items.extend(t);
                }
                Err(ds) => {
                    for d in ds.iter() {
                        errs.push(syn::Error::new_spanned(ident, &d.message));
                    }
                }
            }
            continue;
        }
        let model = models
            .iter_mut()
            .find(|k| k.as_ref().is_some_and(|k| spelling(k.ident) == *name))
            .and_then(Option::take);
        let Some(model) = model else { continue };
        let mut m = module_ir.clone();
        m.entry = m.function_by_name(name);
        let ir = m.to_text();
        let host = crate::expand::bind_params(&model, &a.host_params, a.host.clone());
        items.extend(crate::expand::items(model, host, &ir, &a.lowered, &a.cpp));
    }
    let ir = module_ir.to_text();
    let texts = texts(ident, &ir, &c.lowered, &c.cpp);
    let out = quote! {
        #(#attrs)*
        #vis mod #ident {
            #[allow(unused_imports)]
            use super::*;
            #(#others)*
            #items
            #texts
        }
    };
    if errs.is_empty() {
        out
    } else {
        with_errors(errs, out)
    }
}

/// `IR`, `LOWERED`, `CPP` and `program()` of the whole program.
fn texts(ident: &syn::Ident, ir: &str, lowered: &str, cpp: &str) -> TokenStream {
    let unparsed = format!("`{ident}::IR` does not parse back: {{}}");
    let [ir, lowered, cpp] = [ir, lowered, cpp].map(crate::expand::text_literal);
    quote! {
        /// The verified PTO-IR of the whole program (statement form).
        pub const IR: &str = #ir;
        /// Every function of the program after the lowering pipeline (seed-002 MLIR style).
        pub const LOWERED: &str = #lowered;
        /// The program as PTO-ISA C++ source: the entry a `__global__` kernel, the functions it
        /// calls device functions.
        pub const CPP: &str = #cpp;
        /// The program's IR as a value, parsed back from [`IR`].
        pub fn program() -> ::pto::ir::ProgramModule {
            match ::pto::ir::parse(IR) {
                ::core::result::Result::Ok(m) => m,
                ::core::result::Result::Err(e) => ::core::panic!(#unparsed, e),
            }
        }
    }
}

fn with_errors(errs: Errors, rest: TokenStream) -> TokenStream {
    let mut out = errs
        .combined()
        .map(|e| e.to_compile_error())
        .unwrap_or_default();
    out.extend(rest);
    out
}

/// A function of the program: it must be `#[pto::kernel]` (or `#[kernel]`), optionally with
/// a kind, and may be `#[entry]`. Those attributes are taken off the item.
fn kernel_item(f: &ItemFn, errs: &mut Errors) -> Option<Func> {
    let mut item = f.clone();
    let mut kernel = None;
    let mut entry = false;
    item.attrs.retain(|a| {
        let p = a.path();
        let is_kernel = p.is_ident("kernel")
            || (p.segments.len() == 2
                && p.segments.first().is_some_and(|s| s.ident == "pto")
                && p.segments.last().is_some_and(|s| s.ident == "kernel"));
        if is_kernel {
            let tokens = match &a.meta {
                Meta::List(l) => l.tokens.clone(),
                _ => TokenStream::new(),
            };
            kernel = Some((tokens, a.clone()));
            false
        } else if p.is_ident("entry") {
            if !matches!(a.meta, Meta::Path(_)) {
                errs.push_spanned(a, "`#[entry]` takes no arguments");
            }
            entry = true;
            false
        } else {
            true
        }
    });
    let Some((tokens, attr)) = kernel else {
        errs.push_spanned(
            &f.sig.ident,
            format!(
                "every function of a `#[pto::program]` is a kernel: mark `{}` with `#[pto::kernel]`, or move it out of the module",
                f.sig.ident
            ),
        );
        return None;
    };
    let args = crate::args::parse(tokens, errs);
    if args.arch != "PTOv2" {
        errs.push_spanned(
            &attr,
            "a kernel of a program takes the program's `arch`: give `arch = ..` to `#[pto::program(..)]`",
        );
    }
    Some(Func {
        item,
        kind: args.kind,
        entry,
    })
}

/// Exactly one `#[entry]`, and no two functions with one name: errors at the items.
fn check_items(funcs: &[Func], module: &syn::ItemMod, errs: &mut Errors) {
    let entries: Vec<&Func> = funcs.iter().filter(|f| f.entry).collect();
    let names: Vec<String> = funcs.iter().map(|f| spelling(&f.item.sig.ident)).collect();
    match entries.as_slice() {
        [] if !funcs.is_empty() => errs.push_range(
            range_of(&module.ident),
            format!(
                "program `{}` has no `#[entry]` function; mark the one that runs first with `#[entry]` (functions: {})",
                module.ident,
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
        [] => errs.push_range(
            range_of(&module.ident),
            format!(
                "program `{}` has no functions; add `#[pto::kernel]` functions, one of them `#[entry]`",
                module.ident
            ),
        ),
        [_] => {}
        [first, rest @ ..] => {
            for f in rest {
                errs.push_spanned(
                    &f.item.sig.ident,
                    format!(
                        "a program has exactly one `#[entry]`: `{}` is one already",
                        first.item.sig.ident
                    ),
                );
            }
        }
    }
    for (f, name) in funcs.iter().zip(&names) {
        if ["IR", "LOWERED", "CPP", "program"].contains(&name.as_str()) {
            errs.push_spanned(
                &f.item.sig.ident,
                format!(
                    "a kernel of a program cannot be named `{name}`: the program's module has its own `{name}`; rename the kernel"
                ),
            );
        }
    }
    for (i, (f, name)) in funcs.iter().zip(&names).enumerate() {
        if names.iter().take(i).any(|n| n == name) {
            errs.push_spanned(
                &f.item.sig.ident,
                format!(
                    "the function `{name}` is defined twice in program `{}`",
                    module.ident
                ),
            );
        }
    }
}

/// Builds the program module (every function declared, then every body lowered), verifies
/// it as a whole and lowers it. Returns the verified module and the lowering's artifacts.
fn lower_program<'k>(
    mod_name: &str,
    pargs: &ProgramArgs,
    funcs: &[Func],
    models: &'k [Kernel<'k>],
    errs: &mut Errors,
) -> Option<(ProgramModule, pto_lower::CompiledProgram)> {
    let mut module = ProgramModule::new(mod_name.to_string());
    module.attrs.set("arch", Attr::Str(pargs.arch.clone()));
    for (k, v) in &pargs.attrs {
        module.attrs.set(k.clone(), v.clone());
    }
    let mut b = IRBuilder::new(module);
    let mut spans = SpanTable::new(models.first().map_or_else(
        || {
            let s = proc_macro2::Span::call_site();
            (s, s)
        },
        |k| range_of(k.ident),
    ));
    let mut declared = Vec::with_capacity(models.len());
    for (f, k) in funcs.iter().zip(models) {
        let name = spelling(k.ident);
        declared.push(crate::lower::declare(
            &mut b, &spans, errs, k, &name, f.kind, f.entry,
        )?);
    }
    let mut ok = true;
    for (k, (func, poisoned)) in models.iter().zip(declared) {
        let (b2, s2, fine) = crate::lower::lower_body(b, spans, errs, k, func, poisoned, true);
        b = b2;
        spans = s2;
        ok &= fine;
    }
    let module = crate::lower::verified(b.into_module(), &mut spans, errs, !ok)?;
    if !ok {
        return None;
    }
    match pto_lower::compile_program(module.clone()) {
        Ok(c) => Some((module, c)),
        Err(ds) => {
            for d in ds.iter() {
                errs.push(spans.error(d));
            }
            None
        }
    }
}

/// `arch = "PTOv2"`, `tile_default(M = 16, N = 16, K = 16)` and `key = value` (an integer,
/// float, string or `bool` literal).
fn parse_args(tokens: TokenStream, errs: &mut Errors) -> ProgramArgs {
    let mut out = ProgramArgs {
        arch: "PTOv2".to_string(),
        attrs: Vec::new(),
    };
    const EXPECTED: &str =
        "expected `arch = \"PTOv2\"`, `tile_default(M = 16, N = 16, K = 16)` or `key = value`";
    let metas =
        match syn::parse::Parser::parse2(Punctuated::<Meta, Token![,]>::parse_terminated, tokens) {
            Ok(m) => m,
            Err(e) => {
                errs.push(syn::Error::new(e.span(), format!("{e}; {EXPECTED}")));
                return out;
            }
        };
    let mut seen: Vec<String> = Vec::new();
    for meta in metas {
        let key = meta
            .path()
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        if seen.contains(&key) {
            errs.push_spanned(meta.path(), format!("`{key}` is given twice"));
            continue;
        }
        seen.push(key.clone());
        match &meta {
            Meta::NameValue(nv) if key == "arch" => match &nv.value {
                Expr::Lit(l) => match &l.lit {
                    Lit::Str(s) if pto_ir::verify::target(&s.value()).is_some() => {
                        out.arch = s.value()
                    }
                    Lit::Str(s) => errs.push_spanned(
                        s,
                        format!(
                            "unknown arch `{}`; known targets: {}",
                            s.value(),
                            pto_ir::verify::Target::known_names()
                        ),
                    ),
                    other => errs.push_spanned(other, "`arch` takes a string: `arch = \"PTOv2\"`"),
                },
                other => errs.push_spanned(other, "`arch` takes a string: `arch = \"PTOv2\"`"),
            },
            Meta::NameValue(nv) if !key.is_empty() => match literal(&nv.value) {
                Some(v) => out.attrs.push((key, v)),
                None => errs.push_spanned(
                    &nv.value,
                    format!("`{key}` takes a literal: an integer, a float, a string or a `bool`"),
                ),
            },
            Meta::List(l) if key == "tile_default" => {
                let inner = l
                    .parse_args_with(Punctuated::<syn::MetaNameValue, Token![,]>::parse_terminated);
                let inner = match inner {
                    Ok(i) => i,
                    Err(e) => {
                        errs.push(syn::Error::new(
                            e.span(),
                            format!("{e}; expected `tile_default(M = 16, N = 16, K = 16)`"),
                        ));
                        continue;
                    }
                };
                let mut got = Vec::new();
                for nv in inner {
                    let size = match literal(&nv.value) {
                        Some(Attr::Int(n)) if n > 0 => Some(n),
                        _ => None,
                    };
                    let key = TILE_DEFAULT_KEYS
                        .iter()
                        .find(|(k, _)| nv.path.is_ident(k))
                        .map(|(_, attr)| *attr);
                    match (key, size) {
                        (Some(k), Some(n)) if !got.contains(&k) => {
                            got.push(k);
                            out.attrs.push((k.to_string(), Attr::Int(n)));
                        }
                        (Some(_), Some(_)) => errs.push_spanned(&nv.path, "given twice"),
                        (None, _) => errs.push_spanned(
                            &nv.path,
                            "`tile_default` takes the sizes `M`, `N` and `K`",
                        ),
                        (_, None) => errs
                            .push_spanned(&nv.value, "a tile size is a positive integer literal"),
                    }
                }
            }
            other => errs.push_spanned(other.path(), format!("unknown argument; {EXPECTED}")),
        }
    }
    out
}

/// A literal attribute value (`-3` included).
fn literal(e: &Expr) -> Option<Attr> {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_parse::<i64>().ok().map(Attr::Int),
            Lit::Float(f) => f.base10_parse::<f64>().ok().map(Attr::Float),
            Lit::Str(s) => Some(Attr::Str(s.value())),
            Lit::Bool(b) => Some(Attr::Bool(b.value)),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match literal(&u.expr)? {
            Attr::Int(i) => Some(Attr::Int(i.checked_neg()?)),
            Attr::Float(f) => Some(Attr::Float(-f)),
            _ => None,
        },
        _ => None,
    }
}
