//! The one lowering pipeline and its one result.
//!
//! [`PassManager::lower`] runs the pipeline on a module: its passes (for
//! [`PassManager::lowering_pipeline`], those of [`passes::PIPELINE`]), then `lower-to-isa`
//! ([`lower::lower`]), then the steps over the ISA program ([`ISA_STEPS`]). [`Compiled::emit`]
//! prints a lowered program with each emitter. [`compile`] does both; the `#[pto::kernel]`
//! macro, `pto-opt` and the tests call it (or the two halves), so they all run one pipeline.

use pto_ir::{Diag, Diagnostics, FuncId, ProgramModule, SpanId};

use crate::passes::Pass;

use crate::isa::Program;
use crate::passes::PassManager;
use crate::{emit, lower, passes};

/// A step over the ISA program: its name and the rewrite.
pub type IsaStep = (&'static str, fn(&mut Program));

/// The steps after `lower-to-isa`, in order.
pub const ISA_STEPS: [IsaStep; 4] = [
    ("fence", lower::fence::run),
    ("split-cores", lower::split::run),
    ("fuse-chains", lower::fuse::run),
    ("share-tiles", lower::share::run),
];

/// The names of every step of the lowering pipeline, in order: the passes, `lower-to-isa`,
/// then [`ISA_STEPS`].
pub fn pipeline_steps() -> Vec<&'static str> {
    let mut out = passes::PIPELINE.to_vec();
    out.push("lower-to-isa");
    out.extend(ISA_STEPS.iter().map(|(name, _)| *name));
    out
}

impl PassManager {
    /// Runs the passes on `m`, lowers function `kernel` to an ISA program and runs the
    /// [`ISA_STEPS`] on it. Errors (a tile that does not fit its buffer, an op the lowering
    /// does not support) are anchored at the op's span.
    pub fn lower(&self, mut m: ProgramModule, kernel: FuncId) -> Result<Program, Diagnostics> {
        if !m.funcs.contains(kernel) {
            return Err(Diag::new(
                SpanId::NONE,
                format!("{kernel:?} is not a function of the module"),
            )
            .into());
        }
        // The module before the passes, for a kernel whose calls may have to be inlined.
        let pre = passes::inline_calls::has_call(&m, kernel).then(|| m.clone());
        self.run(&mut m)?;
        self.lower_function(pre.as_ref(), m, kernel)
    }

    /// Lowers function `kernel` of `passed` (a module the passes have run on); on A2A3,
    /// when its tile work and that of the functions it calls use both the cube and the
    /// vector unit, its calls are inlined into a copy of `pre` (the same module before the
    /// passes) and that is lowered instead: A2A3 runs the two units on separate cores, so
    /// the kernel is split between them (`lower/split.rs`) and the callees' work with it
    /// (`passes/inline_calls.rs`).
    fn lower_function(
        &self,
        pre: Option<&ProgramModule>,
        passed: ProgramModule,
        kernel: FuncId,
    ) -> Result<Program, Diagnostics> {
        let Some(pre) = pre.filter(|_| module_target_is_a2a3(&passed)) else {
            return lower_to_isa(passed, kernel);
        };
        let (cube, vector) = units_with_callees(&passed, kernel, &mut Vec::new());
        if !(cube && vector) {
            return lower_to_isa(passed, kernel);
        }
        let mut m = pre.clone();
        let name = m.funcs[kernel].name.clone();
        let why = format!(
            "`{name}` has cube and vector work, which target A2A3 runs on separate cores, so its calls are inlined to split their work too; target A5 runs the call as it is (its cores have both)"
        );
        passes::inline_calls::inline_calls(&mut m, kernel, &why)?;
        self.run(&mut m)?;
        lower_to_isa(m, kernel)
    }
}

fn module_target_is_a2a3(m: &ProgramModule) -> bool {
    passes::bufferize::module_target(m).name == "A2A3"
}

/// Whether the tile work of function `f` of `passed` and of the functions it calls (and
/// they call) uses the cube unit, and the vector unit. `seen`: the functions counted.
fn units_with_callees(passed: &ProgramModule, f: FuncId, seen: &mut Vec<FuncId>) -> (bool, bool) {
    if seen.contains(&f) {
        return (false, false);
    }
    seen.push(f);
    // A function that does not lower is reported by its own lowering.
    let Ok(p) = lower::lower(passed.clone(), f) else {
        return (false, false);
    };
    let (mut cube, mut vector) = lower::split::units(&p, &p.body);
    let mut callees = Vec::new();
    calls(&p.body, &mut callees);
    for name in callees {
        if let Some(g) = passed.function_by_name(&name) {
            let (c, v) = units_with_callees(passed, g, seen);
            cube |= c;
            vector |= v;
        }
    }
    (cube, vector)
}

/// Lowers function `kernel` of a module the passes have run on, and runs the [`ISA_STEPS`].
fn lower_to_isa(m: ProgramModule, kernel: FuncId) -> Result<Program, Diagnostics> {
    let mut p = lower::lower(m, kernel)?;
    for (_, step) in ISA_STEPS {
        step(&mut p);
    }
    // A kernel with no legal A2A3 route (`lower/split.rs`) is refused at the user's tokens.
    if let lower::split::Route::Refused { at, message } = &p.route {
        return Err(Diag::new(*at, message.clone()).into());
    }
    Ok(p)
}

/// A lowered kernel and its printed forms.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The ISA program the texts are printed from.
    pub program: Program,
    /// The IR after the pipeline, in the seed-002 MLIR style (`NAME::LOWERED`).
    pub lowered: String,
    /// PTO-ISA C++ source (`NAME::CPP`).
    pub cpp: String,
    /// The body of the host function: a block expression of type
    /// `Result<R, ::pto::Error>` that refers to the parameters by `host_params` and to the
    /// runtime by absolute `::pto::` paths.
    pub host: proc_macro2::TokenStream,
    /// The identifiers `host` uses for the kernel's parameters, in order (see
    /// [`emit::rust::emit_with_params`]).
    pub host_params: Vec<String>,
}

impl Compiled {
    /// Prints a lowered program with each emitter.
    pub fn emit(program: Program) -> Result<Compiled, Diagnostics> {
        let (host, host_params) = emit::rust::emit_with_params(&program)?;
        Ok(Compiled {
            lowered: emit::mlir::emit_lowered(&program),
            cpp: emit::cpp::emit(&program),
            host,
            host_params,
            program,
        })
    }

    /// The program in MLIR's generic operation form.
    pub fn mlir_generic(&self) -> String {
        emit::mlir::emit_generic(&self.program)
    }

    /// The module after the passes, in the statement text form.
    pub fn after_passes(&self) -> String {
        self.program.module.to_text()
    }
}

/// Lowers function `kernel` of a verified module (a copy of it) with the default pipeline (without
/// verifying after each pass: its passes' output is verified by their tests) and prints it.
pub fn compile(m: &ProgramModule, kernel: FuncId) -> Result<Compiled, Diagnostics> {
    let p = PassManager::lowering_pipeline()
        .verify_each(false)
        .lower(m.clone(), kernel)?;
    Compiled::emit(p)
}

/// Lowers function `kernel` of `m` with the default pipeline, verifying after each pass
/// (for tests and tools that read the ISA program).
pub fn lower_kernel(m: &ProgramModule, kernel: FuncId) -> Result<Program, Diagnostics> {
    PassManager::lowering_pipeline().lower(m.clone(), kernel)
}

/// A lowered `#[pto::program]`: each function's [`Compiled`] and the whole program's texts.
#[derive(Clone, Debug)]
pub struct CompiledProgram {
    /// The module the functions were lowered from: the input with every `incore` scope
    /// outlined ([`passes::outline`]).
    pub module: ProgramModule,
    /// Each function of `module`, in module order: its name, its lowering (its `cpp` holds
    /// it and the functions it calls, callees first), and whether it was outlined (it has no
    /// function in the user's source).
    pub funcs: Vec<(String, Compiled, bool)>,
    /// The lowered text of every function, in module order (`NAME::LOWERED`).
    pub lowered: String,
    /// The C++ of the whole program, the entry the `__global__` kernel (`NAME::CPP`).
    pub cpp: String,
}

/// Lowers every function of a verified program module: outlines its `incore` scopes, runs
/// the passes once on the module, then lowers and prints each function; a `func.call`
/// becomes a call of the callee's host function (Rust) or device function (C++). Every
/// function's refusals are reported, not only the first function's.
pub fn compile_program(mut m: ProgramModule) -> Result<CompiledProgram, Diagnostics> {
    let user: Vec<FuncId> = m.functions.clone();
    passes::outline::OutlineIncore.run(&mut m)?;
    let mut pm = PassManager::lowering_pipeline();
    pm.verify_each(false);
    let mut passed = m.clone();
    pm.run(&mut passed)?;
    let mut diags = Diagnostics::new();
    let mut compiled = Vec::new();
    for &f in &m.functions {
        // Each program owns its module (the emitters read it), hence one copy a function.
        let pre = passes::inline_calls::has_call(&m, f).then_some(&m);
        match pm
            .lower_function(pre, passed.clone(), f)
            .and_then(Compiled::emit)
        {
            Ok(c) => compiled.push(c),
            Err(e) => e.into_iter().for_each(|d| diags.push(d)),
        }
    }
    diags.into_result()?;
    let cpp_of =
        |f: FuncId| emit::cpp::emit_program(&callees_first(&m, &compiled, f), &m.funcs[f].name);
    let cpps: Vec<String> = m.functions.iter().map(|&f| cpp_of(f)).collect();
    let cpp = m.entry.map(cpp_of).unwrap_or_default();
    let mut funcs = Vec::new();
    let mut lowered = String::new();
    for ((c, f_cpp), &f) in compiled.into_iter().zip(cpps).zip(&m.functions) {
        merge_lowered(&mut lowered, &c.lowered);
        let name = m.funcs[f].name.clone();
        funcs.push((name, Compiled { cpp: f_cpp, ..c }, !user.contains(&f)));
    }
    if !lowered.is_empty() {
        lowered.push_str("}\n");
    }
    Ok(CompiledProgram {
        module: m,
        funcs,
        lowered,
        cpp,
    })
}

/// The lowered functions `root` reaches by calls, itself included, each after the
/// functions it calls (a post-order of the call graph).
fn callees_first<'p>(m: &ProgramModule, progs: &'p [Compiled], root: FuncId) -> Vec<&'p Program> {
    fn visit<'p>(
        m: &ProgramModule,
        progs: &'p [Compiled],
        f: FuncId,
        seen: &mut Vec<FuncId>,
        out: &mut Vec<&'p Program>,
    ) {
        if seen.contains(&f) {
            return;
        }
        seen.push(f);
        let Some(p) = progs.iter().map(|c| &c.program).find(|p| p.func == f) else {
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
    let mut out = Vec::new();
    visit(m, progs, root, &mut Vec::new(), &mut out);
    out
}

/// The callees of the calls in `insts`, in order.
fn calls(insts: &[crate::isa::Inst], out: &mut Vec<String>) {
    use crate::isa::Inst;
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
    // The module's closing `}`, then comment lines about the whole function (the A2A3 route,
    // the fused chains), which go inside the one module after the function.
    let (body, tail) = match body.iter().rposition(|l| *l == "}") {
        Some(end) => (&body[..end], &body[end + 1..]),
        None => (body.as_slice(), &[][..]),
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
    for c in tail {
        out.push_str("  ");
        out.push_str(c);
        out.push('\n');
    }
}
