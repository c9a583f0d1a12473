//! pto-lower: the lowering pipeline from verified PTO-IR to an explicit PTO-ISA program, the
//! emitters (Rust host code calling `pto::isa`, PTO-ISA C++, seed-002 MLIR text) and a
//! reference interpreter.
//!
//! The entry point the `#[pto::kernel]` macro calls is [`compile`].

pub mod interp;

use pto_ir::{Diag, Diagnostics, FuncId, ProgramModule, SpanId};

/// Everything the macro needs from the lowering of one kernel.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The IR after the pipeline, in the seed-002 MLIR style (`NAME::LOWERED`).
    pub lowered: String,
    /// The same program in MLIR's generic operation form.
    pub mlir_generic: String,
    /// PTO-ISA C++ source (`NAME::CPP`).
    pub cpp: String,
    /// The body of the host function: a block expression of type
    /// `Result<R, ::pto::Error>` that refers to the parameters by their IR names and to
    /// the runtime by absolute `::pto::` paths.
    pub host: proc_macro2::TokenStream,
}

/// Lowers function `kernel` of a verified module. Errors (a tile that does not fit its
/// buffer, an op the lowering does not support) are anchored at the op's span.
pub fn compile(m: &ProgramModule, kernel: FuncId) -> Result<Compiled, Diagnostics> {
    let _ = (m, kernel);
    Err(Diagnostics::from(Diag::new(
        SpanId::NONE,
        "pto-lower: the lowering pipeline is not implemented yet",
    )))
}
