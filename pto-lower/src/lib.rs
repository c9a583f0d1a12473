//! pto-lower: the lowering pipeline from verified PTO-IR to an explicit PTO-ISA program, the
//! emitters (Rust host code calling `pto::isa`, PTO-ISA C++, seed-002 MLIR text) and a
//! reference interpreter.
//!
//! The folders are the stages, in order: [`passes`] (seed 002 section 8: canonicalize,
//! tile info, events, bufferize, and the pass manager), [`lower`] (to an [`isa::Program`],
//! then the steps over it: the fence step), [`emit`] (the printers) and [`interp`] (the
//! reference interpreter). [`info`] (tile facts the passes record) and [`isa`] (the program)
//! are what the stages share.
//!
//! One pipeline ([`compile`](mod@compile)) runs them: [`PassManager::lower`] (the passes of
//! [`PassManager::lowering_pipeline`], `lower-to-isa`, [`ISA_STEPS`]) gives an
//! [`isa::Program`], [`Compiled::emit`] prints it with each emitter; [`compile()`] is both,
//! and [`compile_program`] does it for every function of a `#[pto::program]`.
// Input-driven paths return errors; a panic on user input is a bug.
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod compile;
pub mod emit;
pub mod info;
pub mod interp;
pub mod isa;
pub mod lower;
pub mod passes;
mod walk;

pub use compile::{
    Compiled, CompiledProgram, ISA_STEPS, compile, compile_program, lower_kernel, pipeline_steps,
};
pub use isa::Program;
pub use passes::{Pass, PassManager};
