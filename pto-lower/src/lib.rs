//! pto-lower: the lowering pipeline from verified PTO-IR to an explicit PTO-ISA program, the
//! emitters (Rust host code calling `pto::isa`, PTO-ISA C++, seed-002 MLIR text) and a
//! reference interpreter.
//!
//! The folders are the stages, in order: [`passes`] (seed 002 section 8: canonicalize,
//! tile info, events, bufferize, and the pass manager), [`lower`] (to an [`isa::Program`],
//! then the fence step), [`emit`] (the printers) and [`interp`] (the reference interpreter).
//! [`info`] (tile facts the passes record) and [`isa`] (the program) are what the stages share.
//!
//! The entry point the `#[pto::kernel]` macro calls is [`compile`]: it runs the passes on a
//! copy of the module ([`PassManager::lowering_pipeline`]), lowers the kernel to an
//! [`isa::Program`] ([`lower`]) and prints it with each emitter ([`emit`]).
// Input-driven paths return errors; a panic on user input is a bug.
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod emit;
pub mod info;
pub mod interp;
pub mod isa;
pub mod lower;
pub mod passes;
mod walk;

use pto_ir::{Diag, Diagnostics, FuncId, ProgramModule, SpanId};

pub use isa::Program;
pub use passes::{Pass, PassManager};

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

/// What the `#[pto::kernel]` macro needs from the lowering of one kernel: [`Compiled`]
/// without the outputs only tools and tests read (the MLIR generic form, the module after
/// the passes).
#[derive(Clone, Debug)]
pub struct Artifacts {
    /// The IR after the pipeline, in the seed-002 MLIR style (`NAME::LOWERED`).
    pub lowered: String,
    /// PTO-ISA C++ source (`NAME::CPP`).
    pub cpp: String,
    /// The body of the host function (see [`Compiled::host`]).
    pub host: proc_macro2::TokenStream,
    /// The identifiers `host` uses for the kernel's parameters, in order (see
    /// [`emit::rust::emit_with_params`]).
    pub host_params: Vec<String>,
}

/// Runs the pass pipeline on a copy of `m` and lowers function `kernel` to an ISA program.
pub fn lower_kernel(m: &ProgramModule, kernel: FuncId) -> Result<Program, Diagnostics> {
    check_kernel(m, kernel)?;
    let mut m = m.clone();
    PassManager::lowering_pipeline().run(&mut m)?;
    lower::lower(m, kernel)
}

fn check_kernel(m: &ProgramModule, kernel: FuncId) -> Result<(), Diagnostics> {
    if !m.funcs.contains(kernel) {
        return Err(Diag::new(
            SpanId::NONE,
            format!("{kernel:?} is not a function of the module"),
        )
        .into());
    }
    Ok(())
}

/// Like [`lower_kernel`], but takes the module by value (no copy) and does not re-run the
/// verifier after each pass: the input is verified, and the passes' output is verified by
/// their tests (`PassManager::lowering_pipeline` verifies after each pass).
fn lower_kernel_unverified(mut m: ProgramModule, kernel: FuncId) -> Result<Program, Diagnostics> {
    check_kernel(&m, kernel)?;
    PassManager::lowering_pipeline()
        .verify_each(false)
        .run(&mut m)?;
    lower::lower(m, kernel)
}

/// [`lower_kernel_unverified`] for the macro: the same program, but the events are planned
/// into a table ([`passes::events::plan`]) instead of op attributes, and the inserted moves carry no
/// `loc` attribute ([`passes::tile_info::infer_for_lowering`]), so the module after the passes does
/// not show them. The passes run in the order of [`passes::PIPELINE`].
fn lower_kernel_owned(mut m: ProgramModule, kernel: FuncId) -> Result<Program, Diagnostics> {
    check_kernel(&m, kernel)?;
    passes::canonicalize::Canonicalize.run(&mut m)?;
    passes::views::CanonicalizeViews.run(&mut m)?;
    passes::tile_info::infer_for_lowering(&mut m);
    let events = passes::events::plan(&mut m);
    passes::bufferize::Bufferize.run(&mut m)?;
    lower::lower_with_events(m, kernel, events)
}

fn artifacts(p: &Program) -> Result<Artifacts, Diagnostics> {
    let (host, host_params) = emit::rust::emit_with_params(p)?;
    Ok(Artifacts {
        lowered: emit::mlir::emit_lowered(p),
        cpp: emit::cpp::emit(p),
        host,
        host_params,
    })
}

/// Lowers function `kernel` of a verified module. Errors (a tile that does not fit its
/// buffer, an op the lowering does not support) are anchored at the op's span.
pub fn compile(m: &ProgramModule, kernel: FuncId) -> Result<Compiled, Diagnostics> {
    let p = lower_kernel_unverified(m.clone(), kernel)?;
    let Artifacts {
        lowered, cpp, host, ..
    } = artifacts(&p)?;
    Ok(Compiled {
        lowered,
        mlir_generic: emit::mlir::emit_generic(&p),
        cpp,
        host,
        after_passes: p.module.to_text(),
    })
}

/// [`compile`] for the macro: takes the verified module by value and produces only
/// `LOWERED`, `CPP` and the host body (the same texts and errors as [`compile`]).
pub fn compile_artifacts(m: ProgramModule, kernel: FuncId) -> Result<Artifacts, Diagnostics> {
    let p = lower_kernel_owned(m, kernel)?;
    artifacts(&p)
}
