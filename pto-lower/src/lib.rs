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
    passes::tile_tensors::TileTensorOps.run(&mut m)?;
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

/// What the `#[pto::program]` macro needs from the lowering of a whole program.
#[derive(Clone, Debug)]
pub struct ProgramArtifacts {
    /// The module the functions were lowered from: the input with every `incore` scope
    /// outlined ([`passes::outline`]).
    pub module: ProgramModule,
    /// Each function of `module`, in module order: its name, its artifacts (its `CPP` holds
    /// it and the functions it calls, callees first), and whether it was outlined (it has no
    /// function in the user's source).
    pub funcs: Vec<(String, Artifacts, bool)>,
    /// The lowered text of every function, in module order (`NAME::LOWERED`).
    pub lowered: String,
    /// The C++ of the whole program, the entry the `__global__` kernel (`NAME::CPP`).
    pub cpp: String,
}

/// Lowers every function of a verified program module: outlines its `incore` scopes, then
/// lowers each function on its own; a `func.call` becomes a call of the callee's host
/// function (Rust) or device function (C++).
pub fn compile_program(mut m: ProgramModule) -> Result<ProgramArtifacts, Diagnostics> {
    let user: Vec<FuncId> = m.functions.clone();
    passes::outline::OutlineIncore.run(&mut m)?;
    let mut progs = Vec::with_capacity(m.functions.len());
    for &f in &m.functions {
        progs.push(lower_kernel_owned(m.clone(), f)?);
    }
    let mut funcs = Vec::with_capacity(progs.len());
    let mut lowered = String::new();
    for (p, &f) in progs.iter().zip(&m.functions) {
        let a = artifacts(p)?;
        let name = m.funcs[f].name.clone();
        let cpp = emit::cpp::emit_program(&callees_first(&m, &progs, f), &name);
        merge_lowered(&mut lowered, &a.lowered);
        funcs.push((name, Artifacts { cpp, ..a }, !user.contains(&f)));
    }
    if !lowered.is_empty() {
        lowered.push_str("}\n");
    }
    let cpp = match m.entry {
        Some(e) => emit::cpp::emit_program(&callees_first(&m, &progs, e), &m.funcs[e].name),
        None => String::new(),
    };
    Ok(ProgramArtifacts {
        module: m,
        funcs,
        lowered,
        cpp,
    })
}

/// The lowered functions `root` reaches by calls, itself included, each after the
/// functions it calls (a post-order of the call graph).
fn callees_first<'p>(m: &ProgramModule, progs: &'p [Program], root: FuncId) -> Vec<&'p Program> {
    fn visit<'p>(
        m: &ProgramModule,
        progs: &'p [Program],
        f: FuncId,
        seen: &mut Vec<FuncId>,
        out: &mut Vec<&'p Program>,
    ) {
        if seen.contains(&f) {
            return;
        }
        seen.push(f);
        let Some(p) = progs.iter().find(|p| p.func == f) else {
            return;
        };
        let mut callees = Vec::new();
        calls(&p.body, &mut callees);
        for name in callees {
            if let Some(g) = m.function_by_name(&name) {
                visit(m, progs, g, seen, out);
            }
        }
        out.push(p);
    }
    fn calls(insts: &[isa::Inst], out: &mut Vec<String>) {
        use isa::Inst;
        for i in insts {
            match i {
                Inst::Call { callee, .. } => out.push(callee.clone()),
                Inst::For { body, .. } => calls(body, out),
                Inst::While { cond, body, .. } => {
                    calls(cond, out);
                    calls(body, out);
                }
                Inst::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    calls(then_body, out);
                    calls(else_body, out);
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    visit(m, progs, root, &mut Vec::new(), &mut out);
    out
}

/// Appends one function's lowered text to the program's: one `module` around all functions,
/// each after the comment line naming its passes.
fn merge_lowered(out: &mut String, text: &str) {
    let mut lines = text.lines();
    let mut head = Vec::new();
    for line in lines.by_ref() {
        if line.starts_with("module") {
            if out.is_empty() {
                head.push(line);
            }
            break;
        }
        head.push(line);
    }
    let body: Vec<&str> = lines.collect();
    // The text ends in the module's closing `}`.
    let body = match body.split_last() {
        Some((&"}", rest)) => rest,
        _ => body.as_slice(),
    };
    if out.is_empty() {
        // The comment lines, then `module .. {`.
        if let Some((module, comments)) = head.split_last() {
            out.push_str(module);
            out.push('\n');
            for c in comments {
                out.push_str("  ");
                out.push_str(c);
                out.push('\n');
            }
        }
    } else {
        for c in head {
            out.push_str("  ");
            out.push_str(c);
            out.push('\n');
        }
    }
    for line in body {
        out.push_str(line);
        out.push('\n');
    }
}
