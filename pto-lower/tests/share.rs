//! File tests of the `share-tiles` step: each `tests/files/share-tiles/*.pto` runs through
//! the whole pipeline; the marks (`pto_lower::lower::share::describe`) and the host code's
//! matmul lines are pinned in `<name>.expected` (`BLESS=1` rewrites). The marks leave the
//! C++ as it was; the host code skips the copies they mark.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use pto_lower::isa::{Inst, Program};
use pto_lower::lower::share;

/// The files of `tests/files/share-tiles/`, lowered.
fn programs() -> Vec<(std::path::PathBuf, Program)> {
    let dir = common::dir().join("tests/files/share-tiles");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("pto"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no files in {}", dir.display());
    paths
        .into_iter()
        .map(|path| {
            let m = common::load(&path);
            let p = pto_lower::lower_kernel(&m, m.entry.unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path, p)
        })
        .collect()
}

/// The host code's calls that load, move or multiply tiles, one a line (token text).
fn host_lines(p: &Program) -> String {
    let host = pto_lower::emit::rust::emit_fn(p).unwrap().to_string();
    host.split(['{', '}', ';'])
        .map(str::trim)
        .filter(|l| {
            ["tload (", "tmov (", "tmatmul"]
                .iter()
                .any(|w| l.starts_with(w))
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn file_tests() {
    for (path, p) in programs() {
        let text = format!("{}--- host\n{}", share::describe(&p), host_lines(&p));
        common::check_snapshot(&path.with_extension("expected"), &text);
    }
}

/// Removes the step's marks (the program before `share-tiles`).
fn unmark(insts: &mut Vec<Inst>) {
    insts.retain(|i| !matches!(i, Inst::Share(_)));
    for i in insts {
        match i {
            Inst::For { body, .. } => unmark(body),
            Inst::While { cond, body, .. } => {
                unmark(cond);
                unmark(body);
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                unmark(then_body);
                unmark(else_body);
            }
            _ => {}
        }
    }
}

#[test]
fn marks_leave_the_cpp_and_skip_host_copies() {
    for (path, p) in programs() {
        let mut plain = p.clone();
        unmark(&mut plain.body);
        let what = path.display();
        assert_ne!(plain.body, p.body, "{what}: no mark");
        assert_eq!(
            pto_lower::emit::cpp::emit(&p),
            pto_lower::emit::cpp::emit(&plain),
            "{what}"
        );
        let moves = |p: &Program| {
            let host = pto_lower::emit::rust::emit_fn(p).unwrap().to_string();
            host.matches("tmov (").count()
        };
        assert!(moves(&p) < moves(&plain), "{what}: no copy skipped");
    }
}
