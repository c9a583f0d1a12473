//! File tests of the passes: each `tests/files/<pass>/*.pto` runs through the pipeline up to
//! and including `<pass>`; the module after it (statement text, where a placed tile's type
//! shows its memory and offset, `mem=Vec, addr=0`) is pinned in `<name>.expected`
//! (`BLESS=1` rewrites), must verify, and must print back identically after a parse.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use pto_ir::ProgramModule;
use pto_lower::info::{addr_of, layout_name, space_of};
use pto_lower::passes::{PIPELINE, pass_by_name};

/// `%name: loc=.. layout=.. addr=..` per placed tile, for assertions.
fn tile_table(m: &ProgramModule) -> String {
    let mut out = String::new();
    for (v, d) in m.values.iter() {
        let Some(t) = d.ty.as_tile() else { continue };
        let Some(space) = space_of(m, v) else {
            continue;
        };
        let addr = addr_of(m, v).map_or("-".to_string(), |a| a.to_string());
        out.push_str(&format!(
            "// {}: loc={} layout={} addr={}\n",
            m.ssa_name(v),
            space.name(),
            layout_name(space, &t.shape),
            addr
        ));
    }
    out
}

/// Runs the pipeline up to and including `pass` on each file of `tests/files/<pass>/`.
fn run_dir(pass: &str) -> usize {
    let upto = PIPELINE
        .iter()
        .position(|p| *p == pass)
        .expect("a pipeline pass");
    run_files(pass, &PIPELINE[..=upto])
}

/// Runs `passes` on each file of `tests/files/<dir>/` and checks the result.
fn run_files(dir: &str, passes: &[&str]) -> usize {
    let pass = dir;
    let dir = common::dir().join("tests/files").join(dir);
    let mut n = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.extension().and_then(|e| e.to_str()) != Some("pto") {
            continue;
        }
        let mut m = common::load(&path);
        for name in passes {
            pass_by_name(name)
                .unwrap()
                .run(&mut m)
                .unwrap_or_else(|e| panic!("{}: {name}: {e}", path.display()));
        }
        pto_ir::verify(&m).unwrap_or_else(|e| {
            panic!("{} after {pass} does not verify: {e}\n{m}", path.display())
        });
        let actual = m.to_string();
        let reparsed = pto_ir::parse(&actual).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            reparsed.to_string(),
            actual,
            "{} does not print back",
            path.display()
        );
        assert!(pto_ir::structurally_equal(&m, &reparsed));
        common::check_snapshot(&path.with_extension("expected"), &actual);
        n += 1;
    }
    assert!(n > 0, "no files in {}", dir.display());
    n
}

#[test]
fn canonicalize_files() {
    run_dir("canonicalize");
}

#[test]
fn canonicalize_views_files() {
    run_dir("canonicalize-views");
}

#[test]
fn tile_tensor_ops_files() {
    run_dir("tile-tensor-ops");
}

#[test]
fn infer_tile_info_files() {
    run_dir("infer-tile-info");
}

#[test]
fn insert_events_files() {
    run_dir("insert-events");
}

#[test]
fn bufferize_files() {
    run_dir("bufferize");
}

#[test]
fn software_pipeline_files() {
    // Optional, so it is not in the pipeline: it runs alone, on IR as the macro builds it.
    run_files("software-pipeline", &["software-pipeline"]);
}

#[test]
fn each_pass_runs_alone_and_keeps_verifying() {
    for k in common::KERNELS {
        for name in PIPELINE {
            let mut m = common::kernel(k);
            let pass = pass_by_name(name).unwrap();
            let r = pass.run(&mut m);
            if !pass.requires().is_empty() {
                // A pass that needs another one's results refuses, naming it.
                let e = r.expect_err(name).to_string();
                for need in pass.requires() {
                    assert!(e.contains(need), "{k}: {name} alone: {e}");
                }
                continue;
            }
            r.unwrap_or_else(|e| panic!("{k}: {name}: {e}"));
            pto_ir::verify(&m).unwrap_or_else(|e| panic!("{k} after {name} alone: {e}"));
        }
    }
}

#[test]
fn bufferize_without_tile_info_refuses() {
    let mut m = common::kernel("scale_rows");
    let e = pass_by_name("bufferize")
        .unwrap()
        .run(&mut m)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bufferize needs every tile's location") && e.contains("infer-tile-info"),
        "{e}"
    );
    // After infer-tile-info it runs.
    let mut m = common::kernel("scale_rows");
    for name in ["infer-tile-info", "bufferize"] {
        pass_by_name(name).unwrap().run(&mut m).unwrap();
    }
}

#[test]
fn canonicalize_folds_and_removes() {
    let mut m = common::load(&common::dir().join("tests/files/canonicalize/fold.pto"));
    pass_by_name("canonicalize").unwrap().run(&mut m).unwrap();
    let text = m.to_string();
    assert!(text.contains("%c6_6 = 6 : int64"), "{text}");
    assert!(text.contains("%c0_7 = 0 : int64"), "{text}");
    assert!(text.contains("%q_13 = 0.25 : fp64"), "{text}");
    assert!(!text.contains("unused_9"), "{text}");
    assert!(!text.contains("dead_11"), "{text}");
    assert!(
        !text.contains("%k_18"),
        "invariant iter arg removed: {text}"
    );
    assert!(text.contains("scalar.add %c6_6, %n_3"), "{text}");
}

#[test]
fn matmul_gets_its_moves() {
    let mut m = common::kernel("matmul");
    for name in ["canonicalize", "infer-tile-info"] {
        pass_by_name(name).unwrap().run(&mut m).unwrap();
    }
    let text = m.to_string();
    assert!(text.contains("{loc=Left}"), "{text}");
    assert!(text.contains("{loc=Right}"), "{text}");
    assert!(
        text.contains("{loc=Vec}"),
        "acc moved to Vec for relu: {text}"
    );
    let table = tile_table(&m);
    assert!(table.contains("%at_5: loc=Mat"), "{table}");
    assert!(table.contains("%ct_7: loc=Acc"), "{table}");
}

#[test]
fn bufferize_reuses_and_coalesces() {
    let mut m = common::kernel("splitk");
    pto_lower::PassManager::lowering_pipeline()
        .run(&mut m)
        .unwrap();
    let table = tile_table(&m);
    // The accumulator's init, iter arg, next value and result share one slot.
    for v in ["%acc0_8", "%acc_9", "%acc_11", "%next_14"] {
        assert!(
            table.contains(&format!("{v}: loc=Acc layout=NZ addr=0")),
            "{v}: {table}"
        );
    }
    let mut m = common::kernel("scale_rows");
    pto_lower::PassManager::lowering_pipeline()
        .run(&mut m)
        .unwrap();
    let table = tile_table(&m);
    for v in ["%row_8", "%t_9", "%y_11"] {
        assert!(
            table.contains(&format!("{v}: loc=Vec layout=ND addr=0")),
            "in place: {table}"
        );
    }
}

/// A split-K accumulator carried through `if k == 0 { matmul(_bias) } else { matmul_acc }`
/// keeps one Acc slot: the iter arg is dead in the then block, so the branches' results
/// join its class and the lowering needs no `TMOV` Acc -> Acc (which no target has).
#[test]
fn an_accumulator_carried_through_an_if_keeps_one_slot() {
    let mut m = common::kernel("branchy_matmul");
    pto_lower::PassManager::lowering_pipeline()
        .run(&mut m)
        .unwrap();
    let table = tile_table(&m);
    let accs: Vec<&str> = table.lines().filter(|l| l.contains("loc=Acc")).collect();
    assert!(accs.len() >= 6, "{table}");
    assert!(accs.iter().all(|l| l.ends_with("addr=0")), "{table}");
    let m = common::kernel("branchy_matmul");
    let p = pto_lower::lower_kernel(&m, m.entry.unwrap()).unwrap();
    let acc: Vec<&str> = p
        .tiles
        .iter()
        .filter(|t| t.space == pto_ir::MemorySpace::Acc)
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(acc.len(), 1, "one Acc slot: {acc:?}");
}

#[test]
fn offsets_are_32_byte_aligned_and_disjoint_when_live_together() {
    let mut m = common::kernel("softmax");
    pto_lower::PassManager::lowering_pipeline()
        .run(&mut m)
        .unwrap();
    for (v, _) in m.values.iter() {
        if let Some(a) = addr_of(&m, v) {
            assert_eq!(a % 32, 0);
        }
    }
}

/// A load feeding matmuls in three branches of an `if` (the split-K pattern) gets one event
/// per destination pipe, not one per branch, and a consumer after the `if` on a pipe the
/// load's `sync` already covers waits for nothing more.
#[test]
fn one_event_per_producer_and_destination_pipe() {
    let path = common::dir().join("tests/files/insert-events/branches.pto");
    let mut m = common::load(&path);
    for name in ["canonicalize", "infer-tile-info", "insert-events"] {
        pass_by_name(name).unwrap().run(&mut m).unwrap();
    }
    let text = m.to_string();
    let line = |start: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(start))
            .unwrap_or_else(|| panic!("no `{start}` in\n{text}"))
    };
    let at = line("%at_7 = tile.load");
    assert!(
        at.contains("sync=[[MTE2, MTE1, 0]]}"),
        "one sync per destination pipe: {at}"
    );
    let bt = line("%bt_8 = tile.load");
    assert!(bt.contains("sync=[[MTE2, MTE1, 1]]}"), "{bt}");
    // The vector unit's copies of the loaded tiles are loads of their own (no target moves
    // Mat to Vec), each waited for by its consumer.
    for later in [
        "%at_vec_20 = tile.load",
        "%at_vec_23 = tile.load",
        "%bt_vec_26 = tile.load",
    ] {
        let l = line(later);
        assert!(l.contains("set=[[MTE2, V, "), "{l}");
    }
    let l = line("%at_left_21 = tile.move");
    assert!(!l.contains("wait="), "covered by the load's sync: {l}");

    // The C++: one set / wait pair after each load for the moves to L0.
    let m = common::load(&path);
    let f = m.entry.unwrap();
    let cpp = pto_lower::compile(&m, f).unwrap().cpp;
    for flag in [
        "set_flag(PIPE_MTE2, PIPE_MTE1",
        "wait_flag(PIPE_MTE2, PIPE_MTE1",
    ] {
        assert_eq!(cpp.matches(flag).count(), 2, "{flag} in\n{cpp}");
    }
}

#[test]
fn canonicalize_keeps_ops_that_write_memory() {
    // `tensor.assemble` into an `#out` tensor writes it: its unused result does not make it
    // dead, and neither are the views and arithmetic feeding it.
    let path = common::dir().join("../pto-ir/tests/files/roundtrip/memory_tensor_ops.pto");
    let mut m = common::load(&path);
    pass_by_name("canonicalize").unwrap().run(&mut m).unwrap();
    let text = m.to_string();
    for op in ["tensor.assemble", "tensor.view", "tensor.div", "tile.store"] {
        assert!(text.contains(op), "{op} removed:\n{text}");
    }
}
