//! `#[pto::kernel]`: a Rust function whose body is written in the PTO kernel language
//! (the kernel language of `docs/guide.md`) becomes verified PTO-IR at compile time, plus a host function that
//! runs the lowered kernel on the CPU.
//!
//! The entry point is thin; the work is split as in thiserror's `impl/src`:
//! - [`args`](crate::args): the attribute arguments (`control_flow`, `arch = ".."`);
//! - [`model`](crate::model): the borrowed model of the signature (parameters, dtypes,
//!   symbolic dimensions), keeping the syn nodes for spans;
//! - [`lower`](crate::lower): statements and expressions to `IRBuilder` calls, with a span
//!   table mapping every `SpanId` back to the user's tokens;
//! - [`expand`](crate::expand): the generated items;
//! - [`fallback`](crate::fallback): the stub emitted with the errors, so user code that calls
//!   the kernel does not get a second cascade of errors.
//!
//! Errors are collected ([`ctxt::Errors`](crate::ctxt::Errors), after serde_derive's
//! `Ctxt`) and reported together. The macro never panics.
#![forbid(unsafe_code)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod args;
mod ctxt;
mod depth;
mod expand;
mod fallback;
mod incore;
mod lower;
mod model;
mod program;

use proc_macro::TokenStream;

/// Compiles a kernel written in the PTO kernel language. See the `pto` crate's
/// documentation and `docs/guide.md` for the language.
///
/// Accepted arguments: one of `kernel` (the default), `control_flow`, `data_flow`, and
/// `arch = "PTOv2"`.
#[proc_macro_attribute]
pub fn kernel(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::kernel(args.into(), input.into()).into()
}

/// Compiles a program: `#[pto::program(arch = "PTOv2", tile_default(M = 16, N = 16, K = 16),
/// key = value)] mod NAME { .. }` holding `#[pto::kernel]` functions, exactly one of them
/// `#[entry]`, which may call each other. See `docs/guide.md`.
#[proc_macro_attribute]
pub fn program(args: TokenStream, input: TokenStream) -> TokenStream {
    program::program(args.into(), input.into()).into()
}
