//! pto-lower: the lowering pipeline from verified PTO-IR to an explicit PTO-ISA program, the
//! emitters (Rust host code calling `pto::isa`, PTO-ISA C++, seed-002 MLIR text) and a
//! reference interpreter.
//!
//! The entry point the `#[pto::kernel]` macro calls is [`compile`]: it runs the passes of
//! seed 002 section 8 on a copy of the module ([`pass::PassManager::lowering_pipeline`]:
//! [`canonicalize`], [`tile_info`], [`events`], [`bufferize`]), lowers the kernel to an
//! [`isa::Program`] ([`lower`]) and prints it with each emitter ([`emit`]).
// Input-driven paths return errors; a panic on user input is a bug.
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod bufferize;
pub mod canonicalize;
pub mod emit;
pub mod events;
pub mod info;
pub mod interp;
pub mod isa;
pub mod lower;
pub mod pass;
pub mod tile_info;
mod walk;

use pto_ir::{Diag, Diagnostics, FuncId, ProgramModule, SpanId};

pub use isa::Program;
pub use pass::{Pass, PassManager};

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
    /// The module after the pass pipeline, in the statement text form.
    pub after_passes: String,
}

/// Runs the pass pipeline on a copy of `m` and lowers function `kernel` to an ISA program.
pub fn lower_kernel(m: &ProgramModule, kernel: FuncId) -> Result<Program, Diagnostics> {
    if !m.funcs.contains(kernel) {
        return Err(Diag::new(
            SpanId::NONE,
            format!("{kernel:?} is not a function of the module"),
        )
        .into());
    }
    let mut m = m.clone();
    PassManager::lowering_pipeline().run(&mut m)?;
    lower::lower(m, kernel)
}

/// Lowers function `kernel` of a verified module. Errors (a tile that does not fit its
/// buffer, an op the lowering does not support) are anchored at the op's span.
pub fn compile(m: &ProgramModule, kernel: FuncId) -> Result<Compiled, Diagnostics> {
    let p = lower_kernel(m, kernel)?;
    let host = emit::rust::emit(&p)?;
    Ok(Compiled {
        lowered: emit::mlir::emit_lowered(&p),
        mlir_generic: emit::mlir::emit_generic(&p),
        cpp: emit::cpp::emit(&p),
        host,
        after_passes: p.module.to_string(),
    })
}
