//! File tests of the `fuse-chains` step: each `tests/files/fuse-chains/*.pto` runs through
//! the whole pipeline; the chains it marks (`pto_lower::lower::fuse::describe`) are pinned in
//! `<name>.expected` (`BLESS=1` rewrites). The marks leave the C++ as it was: it prints the
//! chains' instructions one by one.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use pto_lower::isa::{Inst, Program};
use pto_lower::lower::fuse;

/// The files of `tests/files/fuse-chains/`, lowered.
fn programs() -> Vec<(std::path::PathBuf, Program)> {
    let dir = common::dir().join("tests/files/fuse-chains");
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

#[test]
fn file_tests() {
    for (path, p) in programs() {
        common::check_snapshot(&path.with_extension("expected"), &fuse::describe(&p));
    }
}

/// Removes every mark (the program before `fuse-chains`).
fn unmark(insts: &mut Vec<Inst>) {
    insts.retain(|i| {
        !matches!(
            i,
            Inst::Fused(_) | Inst::ExpandStore(_) | Inst::MapRowSum(_) | Inst::LoadView(_)
        )
    });
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
fn marks_leave_the_cpp_and_change_the_host_code() {
    let mut fused = 0;
    for (path, p) in programs() {
        let mut plain = p.clone();
        unmark(&mut plain.body);
        let what = path.display();
        assert_eq!(
            pto_lower::emit::cpp::emit(&p),
            pto_lower::emit::cpp::emit(&plain),
            "{what}"
        );
        let host = pto_lower::emit::rust::emit_fn(&p).unwrap().to_string();
        let unfused = pto_lower::emit::rust::emit_fn(&plain).unwrap().to_string();
        if fuse::describe(&p).is_empty() {
            assert_eq!(host, unfused, "{what}");
        } else {
            fused += 1;
            let marked = |h: &str| {
                ["map_store", "expand_store", "tload_reductions"]
                    .iter()
                    .any(|m| h.contains(m))
            };
            assert!(marked(&host), "{what}: {host}");
            assert!(!marked(&unfused), "{what}: {unfused}");
        }
    }
    assert!(fused >= 3, "the files mark chains");
}

/// The step runs after the fence step; only `share-tiles` (which skips host copies) follows.
#[test]
fn fuse_chains_is_a_named_step_after_fence() {
    let steps = pto_lower::pipeline_steps();
    let at = |s: &str| steps.iter().position(|x| *x == s).unwrap();
    assert!(at("lower-to-isa") < at("fence") && at("fence") < at("fuse-chains"));
    assert_eq!(steps.last(), Some(&"share-tiles"));
    assert_eq!(at("fuse-chains") + 1, at("share-tiles"));
}
