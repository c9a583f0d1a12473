//! The attribute arguments: `#[pto::kernel]`, `#[pto::kernel(control_flow)]`,
//! `#[pto::kernel(data_flow, arch = "PTOv2")]`.

use proc_macro2::TokenStream;
use pto_ir::FunctionKind;
use syn::punctuated::Punctuated;
use syn::{Expr, Lit, Meta, Token};

use crate::ctxt::Errors;

/// Parsed arguments.
pub(crate) struct Args {
    pub kind: FunctionKind,
    pub arch: String,
}

pub(crate) fn parse(tokens: TokenStream, errs: &mut Errors) -> Args {
    let mut args = Args {
        kind: FunctionKind::Kernel,
        arch: "PTOv2".to_string(),
    };
    if tokens.is_empty() {
        return args;
    }
    let metas =
        match syn::parse::Parser::parse2(Punctuated::<Meta, Token![,]>::parse_terminated, tokens) {
            Ok(m) => m,
            Err(e) => {
                errs.push(syn::Error::new(
                    e.span(),
                    format!(
                        "{e}; expected `kernel`, `control_flow`, `data_flow` or `arch = \"PTOv2\"`"
                    ),
                ));
                return args;
            }
        };
    let mut kind_seen = false;
    let mut arch_seen = false;
    for meta in metas {
        match &meta {
            Meta::Path(p) => {
                let kind = p.get_ident().and_then(|i| FunctionKind::from_name(&i.to_string()));
                match kind {
                    Some(k) if !kind_seen => {
                        args.kind = k;
                        kind_seen = true;
                    }
                    Some(_) => errs.push_spanned(p, "the function kind is given twice"),
                    None => errs.push_spanned(
                        p,
                        format!(
                            "unknown argument `{}`; expected `kernel`, `control_flow`, `data_flow` or `arch = \"PTOv2\"`",
                            quote::quote!(#p).to_string().replace(' ', "")
                        ),
                    ),
                }
            }
            Meta::NameValue(nv) if nv.path.is_ident("arch") => {
                if arch_seen {
                    errs.push_spanned(&nv.path, "`arch` is given twice");
                }
                arch_seen = true;
                match &nv.value {
                    Expr::Lit(l) => match &l.lit {
                        // The verifier's target table is the one list of known targets.
                        Lit::Str(s) if pto_ir::verify::target(&s.value()).is_some() => {
                            args.arch = s.value()
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
                }
            }
            Meta::NameValue(nv) => errs.push_spanned(
                &nv.path,
                "unknown argument; expected `kernel`, `control_flow`, `data_flow` or `arch = \"PTOv2\"`",
            ),
            Meta::List(l) => errs.push_spanned(
                &l.path,
                "unknown argument; expected `kernel`, `control_flow`, `data_flow` or `arch = \"PTOv2\"`",
            ),
        }
    }
    args
}
