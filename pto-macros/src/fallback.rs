//! The stub emitted with compile errors: the host function with the kernel's signature and
//! the `mod NAME` items, so code that calls the kernel sees no second cascade of errors.

use proc_macro2::TokenStream;

use crate::model::Kernel;

/// The items of a kernel that failed to compile (emitted next to the errors).
pub(crate) fn stub(k: Kernel<'_>) -> TokenStream {
    let body = crate::expand::unsupported_body(&k, "this kernel failed to compile");
    crate::expand::items(k, body, "", "", "")
}
