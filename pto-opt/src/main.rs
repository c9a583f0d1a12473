//! `pto-opt`: runs PTO-IR passes on a `.pto` file and prints any stage.
//!
//! ```text
//! pto-opt FILE.pto [--pass NAME]... [--pipeline] [--func NAME] [--verify-each]
//!         [--emit=ir|pypto|pto-mlir|mlir-generic|cpp|rust]
//! ```
//! Parses the file (errors print as `FILE:line:col: message`), verifies it, runs the named
//! passes in order (or the passes of the lowering pipeline), verifying after each, and prints
//! the result: the statement text (`ir`, the default), the same module as PyPTO Python
//! (`pypto`, after the passes that ran), or the lowered entry function (or `--func`) as
//! seed-002 MLIR, MLIR generic form, PTO-ISA C++, or the Rust host function (its tokens
//! pretty-printed with `prettyplease`, as `cargo expand` shows macro output). The lowered forms
//! come from the one lowering pipeline the `#[pto::kernel]` macro runs
//! (`pto_lower::PassManager::lower`); `--verify-each` verifies after each of its passes too. For a module of several functions,
//! `pto-mlir` and `cpp` print the whole program (as `NAME::LOWERED` / `NAME::CPP` of a
//! `#[pto::program]`) unless `--func` names one.

use std::process::ExitCode;

use pto_ir::{Diagnostics, ProgramModule};
use pto_lower::Compiled;
use pto_lower::passes::{PASSES, PIPELINE, PassManager, pass_by_name};

const USAGE: &str = "usage: pto-opt FILE.pto [--pass NAME]... [--pipeline] [--func NAME] \
                     [--verify-each] [--emit=ir|pypto|pto-mlir|mlir-generic|cpp|rust]";

struct Options {
    file: String,
    passes: Vec<String>,
    func: Option<String>,
    emit: String,
    verify_each: bool,
}

fn options(args: &[String]) -> Result<Options, String> {
    let mut file = None;
    let mut passes = Vec::new();
    let mut func = None;
    let mut emit = "ir".to_string();
    let mut verify_each = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--pass" => passes.push(it.next().ok_or("--pass needs a pass name")?.clone()),
            "--pipeline" => passes.extend(PIPELINE.iter().map(|p| p.to_string())),
            "--func" => func = Some(it.next().ok_or("--func needs a function name")?.clone()),
            "--verify-each" => verify_each = true,
            "-h" | "--help" => return Err(String::new()),
            s if s.starts_with("--emit=") => emit = s["--emit=".len()..].to_string(),
            s if s.starts_with("--") => return Err(format!("unknown option `{s}`")),
            s if file.is_none() => file = Some(s.to_string()),
            s => return Err(format!("unexpected argument `{s}`")),
        }
    }
    if !["ir", "pypto", "pto-mlir", "mlir-generic", "cpp", "rust"].contains(&emit.as_str()) {
        return Err(format!("unknown --emit value `{emit}`"));
    }
    let file = file.ok_or("no input file")?;
    Ok(Options {
        file,
        passes,
        func,
        emit,
        verify_each,
    })
}

/// Prints diagnostics with the file name in front of each `line:col`.
fn report(file: &str, d: &Diagnostics) {
    for line in d.to_string().lines() {
        if line.starts_with("  note:") {
            eprintln!("{line}");
        } else {
            eprintln!("{file}:{line}");
        }
    }
}

fn run(o: &Options) -> Result<String, Diagnostics> {
    let text = std::fs::read_to_string(&o.file).map_err(|e| {
        Diagnostics::from(pto_ir::Diag::new(
            pto_ir::SpanId::NONE,
            format!("cannot read: {e}"),
        ))
    })?;
    let with_source = |mut d: Diagnostics| {
        d.set_source(&text);
        d
    };
    let mut m: ProgramModule = pto_ir::parse(&text)?;
    pto_ir::verify(&m).map_err(with_source)?;
    // A lowered output (`pto-mlir`, `mlir-generic`, `cpp`, `rust`) runs the lowering
    // pipeline itself; a pass of that pipeline named here as well would run twice, and the
    // pipeline's passes are not idempotent (a second `bufferize` or matmul-move insertion
    // sees its own output), so only the passes outside it run first.
    let lowered = !matches!(o.emit.as_str(), "ir" | "pypto");
    let mut pm = PassManager::new();
    for name in o
        .passes
        .iter()
        .filter(|n| !(lowered && PIPELINE.contains(&n.as_str())))
    {
        let pass = pass_by_name(name).ok_or_else(|| {
            Diagnostics::from(pto_ir::Diag::new(
                pto_ir::SpanId::NONE,
                format!("unknown pass `{name}`; passes: {}", PASSES.join(", ")),
            ))
        })?;
        pm.add(pass);
    }
    pm.run(&mut m).map_err(with_source)?;
    match o.emit.as_str() {
        "ir" => return Ok(m.to_string()),
        "pypto" => return Ok(pto_lower::emit::pypto::emit_pypto(&m)),
        _ => {}
    }
    let f = match &o.func {
        Some(name) => m.function_by_name(name),
        None => m.entry,
    }
    .ok_or_else(|| {
        Diagnostics::from(pto_ir::Diag::new(
            pto_ir::SpanId::NONE,
            "no such function to lower",
        ))
    })?;
    // A program with calls: the whole program's LOWERED / C++ (its `incore` scopes
    // outlined, the callees device functions), unless one function is asked for.
    if m.functions.len() > 1 && o.func.is_none() && matches!(o.emit.as_str(), "pto-mlir" | "cpp") {
        let c = pto_lower::compile_program(m).map_err(with_source)?;
        return Ok(if o.emit == "cpp" { c.cpp } else { c.lowered });
    }
    let c = PassManager::lowering_pipeline()
        .verify_each(o.verify_each)
        .lower(m, f)
        .and_then(Compiled::emit)
        .map_err(with_source)?;
    Ok(match o.emit.as_str() {
        "pto-mlir" => c.lowered,
        "mlir-generic" => c.mlir_generic(),
        "cpp" => c.cpp,
        _ => host_source(&c).map_err(with_source)?,
    })
}

/// The host function of `c` as Rust source for people: the emitter's tokens, pretty-printed.
fn host_source(c: &Compiled) -> Result<String, Diagnostics> {
    let tokens = pto_lower::emit::rust::emit_fn(&c.program)?;
    let file = syn::parse2::<syn::File>(tokens).map_err(|e| {
        pto_ir::Diag::new(
            pto_ir::SpanId::NONE,
            format!("internal error: the host function does not parse: {e}"),
        )
    })?;
    Ok(prettyplease::unparse(&file))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = match options(&args) {
        Ok(o) => o,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("pto-opt: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&o) {
        Ok(out) => {
            print!("{out}");
            if !out.ends_with('\n') {
                println!();
            }
            ExitCode::SUCCESS
        }
        Err(d) => {
            report(&o.file, &d);
            ExitCode::FAILURE
        }
    }
}
