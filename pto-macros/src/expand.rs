//! The generated items (dsl.md section 1): the host function `NAME` and `mod NAME` with
//! `IR`, `LOWERED`, `CPP` and `program()`.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::ctxt::Errors;
use crate::model::{Kernel, ParamTy};
use pto_ir::DataType;

/// The whole expansion of `#[pto::kernel(args)] input`.
pub(crate) fn kernel(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut errs = Errors::new();
    let args = crate::args::parse(args, &mut errs);
    // Before any parse: syn would recurse once per level and could exhaust the stack.
    let too_deep = crate::depth::check(&input);
    let input = match too_deep {
        None => input,
        Some(ref e) => {
            errs.push(e.clone());
            crate::depth::signature_only(input)
        }
    };
    let mut item: syn::ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(e) => {
            let e = syn::Error::new(
                e.span(),
                format!("#[pto::kernel] applies to a function: {e}"),
            );
            let mut out = e.to_compile_error();
            if let Some(deep) = errs.combined() {
                out.extend(deep.to_compile_error());
            } else {
                out.extend(input);
            }
            return out;
        }
    };
    crate::incore::rewrite(&mut item.block);
    let model = crate::model::build(&item, &mut errs);
    if too_deep.is_some() {
        return with_errors(errs, crate::fallback::stub(model));
    }
    let lowered = crate::lower::lower(&model, &args, &mut errs);
    let lowered = match (lowered, errs.is_empty()) {
        (Some(l), true) => l,
        _ => return with_errors(errs, crate::fallback::stub(model)),
    };
    let ir = lowered.module.to_text();
    let compiled = pto_lower::PassManager::lowering_pipeline()
        .verify_each(false)
        .lower(lowered.module, lowered.func)
        .and_then(pto_lower::Compiled::emit);
    match compiled {
        Ok(c) => {
            let host = bind_params(&model, &c.host_params, c.host);
            items(model, host, &ir, &c.lowered, &c.cpp)
        }
        Err(diags) => {
            for d in diags.iter() {
                errs.push(lowered.spans.error(d));
            }
            with_errors(errs, crate::fallback::stub(model))
        }
    }
}

/// The host body with each parameter the body calls by another name (a raw `r#loop`, a
/// non-ASCII `ñ`) bound to that name first: the signature keeps the user's names.
pub(crate) fn bind_params(k: &Kernel<'_>, idents: &[String], body: TokenStream) -> TokenStream {
    let renamed: Vec<_> = k
        .params
        .iter()
        .zip(idents)
        .filter(|(p, name)| p.ident != name.as_str())
        .map(|(p, name)| (&p.ident, proc_macro2::Ident::new(name, p.ident.span())))
        .collect();
    let body = if renamed.is_empty() {
        body
    } else {
        let (user, host): (Vec<_>, Vec<_>) = renamed.into_iter().unzip();
        quote! {{
            let (#(#host,)*) = (#(#user,)*);
            #body
        }}
    };
    bind_masks(k, idents, body)
}

/// A mask parameter is `&pto::Tile<bool, R, C>` in the signature (dsl.md section 3; `&mut`
/// and `#[out]` masks are refused there) and the runtime's mask tile (`Tile<u8, R, C>`, the
/// flag in bit 0) in the body, which reads a copy.
fn bind_masks(k: &Kernel<'_>, idents: &[String], body: TokenStream) -> TokenStream {
    let bind = k.params.iter().zip(idents).filter_map(|(p, name)| {
        let ParamTy::Tile {
            dtype: DataType::Bool,
            ..
        } = p.ty
        else {
            return None;
        };
        let m = proc_macro2::Ident::new(name, p.ident.span());
        Some(quote!(let #m = &::pto::isa::mask_bytes(#m);))
    });
    let bind: Vec<_> = bind.collect();
    if bind.is_empty() {
        return body;
    }
    quote! {{
        #(#bind)*
        #body
    }}
}

fn with_errors(errs: Errors, stub: TokenStream) -> TokenStream {
    let mut out = errs
        .combined()
        .map(|e| e.to_compile_error())
        .unwrap_or_default();
    out.extend(stub);
    out
}

/// A host body that uses every parameter and returns `Err(Unsupported(why))`.
pub(crate) fn unsupported_body(k: &Kernel<'_>, why: &str) -> TokenStream {
    let names = k.params.iter().map(|p| &p.ident);
    quote! {{
        let _ = (#(#names,)*);
        ::core::result::Result::Err(::pto::Error::Unsupported(::std::string::String::from(#why)))
    }}
}

/// The host function and `mod NAME`, with the given host body and texts.
pub(crate) fn items(
    k: Kernel<'_>,
    body: TokenStream,
    ir: &str,
    lowered: &str,
    cpp: &str,
) -> TokenStream {
    let attrs = &k.attrs;
    let vis = k.vis;
    let ident = k.ident;
    let ret = match (k.ret, k.ret_tuple.as_ref().map(|(_, ty)| *ty)) {
        (Some(Some((_, ty))), _) | (_, Some(ty)) => quote!(#ty),
        _ => quote!(()),
    };
    let [ir, lowered, cpp] = [ir, lowered, cpp].map(text_literal);
    let mod_doc = format!("Compile-time artifacts of the `{ident}` kernel.");
    let unparsed = format!("`{ident}::IR` does not parse back: {{}}");
    let names = k.params.iter().map(|p| &p.ident);
    let tys = k.params.iter().map(|p| &p.host);
    quote! {
        #(#attrs)*
        #[allow(clippy::all, clippy::pedantic)] // the body is generated code
        #vis fn #ident(#(#names: #tys),*) -> ::core::result::Result<#ret, ::pto::Error> #body

        #[doc = #mod_doc]
        #[allow(dead_code)]
        #vis mod #ident {
            /// The verified PTO-IR of the kernel (statement form).
            pub const IR: &str = #ir;
            /// The IR after the lowering pipeline (seed-002 MLIR style).
            pub const LOWERED: &str = #lowered;
            /// The lowered kernel as PTO-ISA C++ source.
            pub const CPP: &str = #cpp;
            /// The IR as a value, parsed back from [`IR`].
            pub fn program() -> ::pto::ir::ProgramModule {
                // The macro keeps every kernel within the nesting the parser accepts, so this
                // cannot fail; if it ever did, an empty module would hide the bug.
                match ::pto::ir::parse(IR) {
                    ::core::result::Result::Ok(m) => m,
                    ::core::result::Result::Err(e) => ::core::panic!(#unparsed, e),
                }
            }
        }
    }
}

/// `text` as a string literal token, raw (`r#"..."#`) when it spans lines: a raw literal
/// reads as the text itself in expanded code.
pub(crate) fn text_literal(text: &str) -> Literal {
    // A carriage return is not allowed in a raw string.
    if text.contains('\n') && !text.contains('\r') {
        let hashes = "#".repeat(longest_hash_run_after_quote(text) + 1);
        if let Ok(lit) = format!("r{hashes}\"{text}\"{hashes}").parse() {
            return lit;
        }
    }
    Literal::string(text)
}

/// The longest run of `#` right after a `"` in `text` (0 when there is none): a raw literal
/// needs one more `#` than that to end where the text ends.
fn longest_hash_run_after_quote(text: &str) -> usize {
    text.split('"')
        .skip(1)
        .map(|rest| rest.bytes().take_while(|&b| b == b'#').count())
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};
    use quote::quote;

    #[test]
    fn text_literals_hold_their_text_exactly() {
        for text in [
            "",
            "plain",
            "two\nlines",
            "attr arch = \"PTOv2\"\n",
            "a \"# b\n",
            "\"##\"#\"\n",
            "\nends with a quote\"",
            "tab\tand \\ backslash \u{e9}",
            "bare\rreturn\n",
            "crlf\r\n",
            "ends with\n\r",
            "\"#\n",
        ] {
            let lit = super::text_literal(text);
            let parsed: syn::LitStr = syn::parse_quote!(#lit);
            assert_eq!(parsed.value(), text, "literal {lit}");
        }
        assert!(super::text_literal("x\ny").to_string().starts_with("r#\""));
    }

    fn check(args: proc_macro2::TokenStream, input: proc_macro2::TokenStream, expected: Expect) {
        let out = super::kernel(args, input);
        let file = syn::parse2::<syn::File>(out).map(|f| prettyplease::unparse(&f));
        expected.assert_eq(&file.unwrap_or_else(|e| format!("unparsable expansion: {e}")));
    }

    #[test]
    fn scalar_kernel_expands_to_host_fn_and_module() {
        check(
            quote!(arch = "PTOv2"),
            quote! {
                /// Doubles `a`.
                pub fn double(a: f32) -> f32 {
                    a * 2.0
                }
            },
            expect![[r##"
                /// Doubles `a`.
                #[allow(clippy::all, clippy::pedantic)]
                pub fn double(a: f32) -> ::core::result::Result<f32, ::pto::Error> {
                    use ::pto::Element;
                    let v_2: f32 = Element::mul(a, 2f32);
                    ::core::result::Result::Ok(v_2)
                }
                ///Compile-time artifacts of the `double` kernel.
                #[allow(dead_code)]
                pub mod double {
                    /// The verified PTO-IR of the kernel (statement form).
                    pub const IR: &str = r#"program.module @double {
                  program.entry @double
                  attr arch = "PTOv2"
                  func.func @double(%a_0: fp32) -> (fp32) {
                    statement.op {
                      %1 = 2.0 : fp32
                      %2 = scalar.mul %a_0, %1 : (fp32, fp32) -> fp32
                    }
                    statement.return %2
                  }
                  // func.kind = kernel
                }
                "#;
                    /// The IR after the lowering pipeline (seed-002 MLIR style).
                    pub const LOWERED: &str = r#"// double lowered for A2A3: canonicalize, canonicalize-views, tile-tensor-ops, legalize, infer-tile-info, insert-events, bufferize, lower-to-isa, fence, split-cores, fuse-chains, share-tiles
                module attributes {pto.target = #pto.target<A2A3>} {
                  func.func @double(%a_0: f32) -> (f32) {
                    %1 = pto.constant 2.0 : f32
                    %2 = pto.scalar.mul %a_0, %1 : f32
                    func.return %2 : f32
                  }
                }
                "#;
                    /// The lowered kernel as PTO-ISA C++ source.
                    pub const CPP: &str = r#"// double lowered by pto-lower for A2A3.
                // The kernel's returned scalars are written to `pto_ret0`, `pto_ret1`, ...: one-element
                // global-memory buffers, after the symbolic dimensions.
                #include <pto/pto-inst.hpp>
                #include "common/pto_instr.hpp"
                using namespace pto;

                __global__ AICORE void double_(float a, __gm__ float* pto_ret0) {
                  float v2 = (a * 2.0f);
                  *pto_ret0 = v2;
                  return;
                }
                "#;
                    /// The IR as a value, parsed back from [`IR`].
                    pub fn program() -> ::pto::ir::ProgramModule {
                        match ::pto::ir::parse(IR) {
                            ::core::result::Result::Ok(m) => m,
                            ::core::result::Result::Err(e) => {
                                ::core::panic!("`double::IR` does not parse back: {}", e)
                            }
                        }
                    }
                }
            "##]],
        );
    }

    #[test]
    fn errors_come_with_a_stub_of_the_same_signature() {
        check(
            quote!(),
            quote! {
                fn bad(x: &Tensor<f32, B, 16>, n: i64) -> i64 {
                    let t = x.load::<1, 16>([0, 0]);
                    n + missing
                }
            },
            expect![[r#"
                ::core::compile_error! {
                    "cannot find value `missing` in this scope\n  = note: variables in scope: `B`, `n`, `t`, `x`"
                }
                #[allow(clippy::all, clippy::pedantic)]
                fn bad(x: &Tensor<f32>, n: i64) -> ::core::result::Result<i64, ::pto::Error> {
                    let _ = (x, n);
                    ::core::result::Result::Err(
                        ::pto::Error::Unsupported(
                            ::std::string::String::from("this kernel failed to compile"),
                        ),
                    )
                }
                ///Compile-time artifacts of the `bad` kernel.
                #[allow(dead_code)]
                mod bad {
                    /// The verified PTO-IR of the kernel (statement form).
                    pub const IR: &str = "";
                    /// The IR after the lowering pipeline (seed-002 MLIR style).
                    pub const LOWERED: &str = "";
                    /// The lowered kernel as PTO-ISA C++ source.
                    pub const CPP: &str = "";
                    /// The IR as a value, parsed back from [`IR`].
                    pub fn program() -> ::pto::ir::ProgramModule {
                        match ::pto::ir::parse(IR) {
                            ::core::result::Result::Ok(m) => m,
                            ::core::result::Result::Err(e) => {
                                ::core::panic!("`bad::IR` does not parse back: {}", e)
                            }
                        }
                    }
                }
            "#]],
        );
    }
}
