//! The PyPTO printer (`pto-opt --emit=pypto`): every statement form of `tests/pypto/program.pto`
//! and the acceptance kernels, before and after the lowering pipeline, print as pinned in
//! `tests/pypto/*.py` (`BLESS=1` rewrites), and each printed module is Python that parses
//! with every name bound before it is read (checked by `tests/pypto/check_names.py` with the
//! machine's `python3`).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use pto_ir::ProgramModule;
use pto_lower::emit::pypto::emit_pypto;
use pto_lower::passes::{PIPELINE, pass_by_name};

fn pipeline(mut m: ProgramModule) -> ProgramModule {
    for name in PIPELINE {
        pass_by_name(name).unwrap().run(&mut m).unwrap();
    }
    m
}

/// Runs the name check with `python3`; `false` when there is no `python3`.
fn python_accepts(source: &str, what: &str) -> bool {
    let Some(python) = common::find_tool(&["python3"]) else {
        return false;
    };
    let script = common::dir().join("tests/pypto/check_names.py");
    let mut child = Command::new(python)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(source.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{what}: not Python with bound names:\n{}{}\n{source}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    true
}

#[test]
fn statement_forms_print_as_pinned() {
    let dir = common::dir().join("tests/pypto");
    let m = common::load(&dir.join("program.pto"));
    let py = emit_pypto(&m);
    common::check_snapshot(&dir.join("program.py"), &py);
    python_accepts(&py, "program.pto");
    for (kernel, lowered) in [("softmax", false), ("control", false), ("matmul", true)] {
        let m = common::kernel(kernel);
        let (m, name) = if lowered {
            (pipeline(m), format!("{kernel}.lowered.py"))
        } else {
            (m, format!("{kernel}.py"))
        };
        common::check_snapshot(&dir.join(name), &emit_pypto(&m));
    }
}

#[test]
fn every_kernel_prints_python_before_and_after_lowering() {
    let mut checked = 0;
    for kernel in common::KERNELS {
        let m = common::kernel(kernel);
        let before = emit_pypto(&m);
        let after = emit_pypto(&pipeline(m));
        assert!(before.contains(&format!("def {kernel}(self")), "{before}");
        if python_accepts(&before, kernel) && python_accepts(&after, kernel) {
            checked += 1;
        }
    }
    if checked == 0 {
        eprintln!("python3 not found: printed modules were not parsed as Python");
    }
}
