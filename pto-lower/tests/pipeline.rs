//! The optional `software-pipeline` pass as a user runs it (`pto-opt --pass
//! software-pipeline`): it changes when loads are issued, never what a kernel computes. Every
//! acceptance kernel and pass file runs in the interpreter before and after the pass, at sizes
//! that give an even and an odd number of tiles, and must give bit-identical outputs; the
//! pipelined C++ issues the second copy's loads before the first copy's compute (its events
//! and barriers are checked by `sync.rs`, its numbers by `cpp_model.rs`).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "cpp/harness.rs"]
mod harness;

use pto_ir::ProgramModule;
use pto_lower::interp::{HostValue, run};
use pto_lower::passes::{Pass, pass_by_name, pipeline::SoftwarePipeline};

fn pipelined(m: &ProgramModule) -> ProgramModule {
    let mut p = m.clone();
    SoftwarePipeline.run(&mut p).unwrap();
    pto_ir::verify(&p).unwrap_or_else(|e| panic!("pipelined module does not verify: {e}\n{p}"));
    p
}

fn modules() -> Vec<(String, ProgramModule)> {
    let mut out: Vec<(String, ProgramModule)> = common::KERNELS
        .iter()
        .chain(&["branchy_matmul", "matmul_relu"])
        .map(|k| (k.to_string(), common::kernel(k)))
        .collect();
    let dir = common::dir().join("tests/files/software-pipeline");
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "pto") {
            out.push((path.display().to_string(), common::load(&path)));
        }
    }
    out
}

#[test]
fn pipelined_kernels_compute_exactly_what_they_did() {
    let mut changed = Vec::new();
    for (name, m) in modules() {
        let p = pipelined(&m);
        if p.to_string().contains("pipelined=2") {
            changed.push(name.clone());
        }
        let ndims = m.funcs[m.entry.unwrap()].dims.len();
        // 1 to 3 tiles of 8 or 16 rows, even and odd tile counts, ragged and exact.
        for size in [1, 7, 8, 9, 16, 17, 24, 31, 32, 33, 37, 48, 64, 70] {
            let dims = vec![size; ndims];
            let mut want = harness::args_for(&m, &dims, 11, size % 2 == 0);
            let mut got = want.clone();
            let want_rets = run(&m, m.entry.unwrap(), &mut want);
            let got_rets = run(&p, p.entry.unwrap(), &mut got);
            assert_eq!(
                format!("{got_rets:?}"),
                format!("{want_rets:?}"),
                "{name} at {size}: returns"
            );
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                if let (HostValue::Tensor(g), HostValue::Tensor(w)) = (g, w) {
                    let same = g
                        .data
                        .iter()
                        .zip(&w.data)
                        .all(|(a, b)| a.to_bits() == b.to_bits());
                    assert!(same, "{name} at {size}: parameter {k} differs");
                }
            }
            if ndims == 0 {
                break;
            }
        }
    }
    for k in ["scale_rows", "vadd", "axpy", "softmax", "splitk", "carried"] {
        assert!(
            changed
                .iter()
                .any(|c| c == k || c.ends_with(&format!("/{k}.pto"))),
            "{k} was not pipelined: {changed:?}"
        );
    }
}

#[test]
fn a_pair_issues_both_loads_before_computing_on_either() {
    let p = pipelined(&common::kernel("vadd"));
    let cpp = pto_lower::compile(&p, p.entry.unwrap()).unwrap().cpp;
    let body = &cpp[cpp.find("i_17 += 32").expect("the pairs' loop")..];
    let body = &body[..body.find("\n  }\n").unwrap()];
    let loads: Vec<usize> = body.match_indices("TLOAD(").map(|(i, _)| i).collect();
    let first_add = body.find("TPARTADD(").unwrap();
    assert_eq!(loads.len(), 4, "{body}");
    assert!(
        loads[3] < first_add,
        "the second copy's loads come first:\n{body}"
    );
    // Four loaded tiles live at once: ping-pong buffers, not one reused.
    for t in ["t0_a", "t1_b", "t2_a", "t3_b"] {
        assert!(body.contains(&format!("TLOAD({t},")), "{t}:\n{body}");
    }
}

#[test]
fn runs_before_events_and_buffers_or_refuses() {
    let mut m = common::kernel("vadd");
    pass_by_name("infer-tile-info")
        .unwrap()
        .run(&mut m)
        .unwrap();
    pass_by_name("insert-events").unwrap().run(&mut m).unwrap();
    let e = SoftwarePipeline.run(&mut m).unwrap_err().to_string();
    assert!(e.contains("runs before insert-events and bufferize"), "{e}");
}
