//! Hostile input to the macro's expansion function: a proc-macro crate cannot export plain
//! functions, so its modules are compiled into each test with `#[path]` (as the bench does).
//! Nothing here is public API.
#![allow(dead_code, unused_imports)]

#[path = "../src/args.rs"]
mod args;
#[path = "../src/ctxt.rs"]
mod ctxt;
#[path = "../src/depth.rs"]
mod depth;
#[path = "../src/expand.rs"]
mod expand;
#[path = "../src/fallback.rs"]
mod fallback;
#[path = "../src/incore.rs"]
mod incore;
#[path = "../src/lower/mod.rs"]
mod lower;
#[path = "../src/model.rs"]
mod model;

use proc_macro2::TokenStream;

/// The expansion of `#[pto::kernel(args)] input`, as the attribute produces it.
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::kernel(args, input)
}

/// The nesting bound the macro enforces.
pub(crate) const MAX_KERNEL_NESTING: usize = depth::MAX_KERNEL_NESTING;

/// The messages of the `compile_error!`s in an expansion.
pub(crate) fn errors(out: &TokenStream) -> Vec<String> {
    let text = out.to_string();
    text.match_indices("compile_error !")
        .map(|(at, _)| {
            let rest = &text[at..];
            rest.split_once('"')
                .and_then(|(_, r)| r.split_once("\" }").or_else(|| r.split_once('"')))
                .map_or(String::new(), |(msg, _)| msg.to_string())
        })
        .collect()
}

/// `body` wrapped `depth` times by `wrap` (`{}` marks where the inner part goes).
pub(crate) fn nest(depth: usize, wrap: &str, body: &str) -> String {
    let mut s = body.to_string();
    for i in (0..depth).rev() {
        s = wrap.replace("{i}", &i.to_string()).replace("{}", &s);
    }
    s
}

#[path = "hostile/deep.rs"]
mod deep;
#[path = "hostile/fuzz.rs"]
mod fuzz;
#[path = "hostile/idents.rs"]
mod idents;
#[path = "hostile/messages.rs"]
mod messages;
