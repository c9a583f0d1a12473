//! Issue 14's audit, the last rows: the kernels of the macro expansion snapshots
//! (`tests/expand/*.rs`), of the documentation (`docs/guide.md`'s own kernels, copied into
//! `tests/doc_kernels/guide.rs`; the crate docs' and README's `scale_rows` is the expansion
//! snapshot's) and of the compile-pass UI tests (`tests/ui/pass/*.rs`), each as `NAME::CPP`
//! for A2A3 and A5 in the C++ model of pto-isa against the reference interpreter, at an
//! aligned and a ragged size where the kernel has a symbolic dimension (twice with its
//! `bool` parameters flipped otherwise). Left out: `budget::spin` (a crate doc example that
//! never returns by design) and the guide's `tensor_level` program (an excerpt; the whole
//! program runs in `tests/tensor_level.rs`). The guide's other kernels come from test
//! files that have their rows already.
#![allow(clippy::unwrap_used)]

mod support;

#[path = "doc_kernels/guide.rs"]
mod guide;

#[allow(dead_code)]
#[path = "expand/accumulate.rs"]
mod accumulate;
#[allow(dead_code)]
#[path = "expand/if_merge.rs"]
mod if_merge;
#[allow(dead_code)]
#[path = "expand/matmul.rs"]
mod matmul;
#[allow(dead_code)]
#[path = "expand/program.rs"]
mod program;
#[allow(dead_code)]
#[path = "expand/scale_rows.rs"]
mod scale_rows;

#[allow(dead_code)]
#[path = "ui/pass/arch_a5.rs"]
mod ui_arch_a5;
#[allow(dead_code)]
#[path = "ui/pass/program.rs"]
mod ui_program;
// The file spells out its host functions' types.
#[allow(dead_code, clippy::type_complexity)]
#[path = "ui/pass/scale_rows.rs"]
mod ui_scale_rows;
// The file spells out its host functions' types.
#[allow(dead_code, clippy::type_complexity)]
#[path = "ui/pass/statements.rs"]
mod ui_statements;

use pto::ir::ProgramModule;
use support::model::{Model, Sizes};

/// `(name, module, size sets, whether A2A3 is a target)`.
fn rows() -> Vec<(&'static str, ProgramModule, Sizes, bool)> {
    let two = || vec![vec![], vec![]];
    vec![
        (
            "accumulate",
            accumulate::accumulate::program(),
            vec![vec![("B", 32)], vec![("B", 37)]],
            true,
        ),
        ("clamp_add", if_merge::clamp_add::program(), two(), true),
        ("matmul_tile", matmul::matmul_tile::program(), two(), true),
        (
            "doubled",
            program::doubled::program(),
            vec![vec![("R", 16)], vec![("R", 13)]],
            true,
        ),
        (
            "scale_rows",
            scale_rows::scale_rows::program(),
            vec![vec![("B", 32)], vec![("B", 37)]],
            true,
        ),
        (
            "r3",
            guide::r3::program(),
            vec![vec![("B", 4)], vec![("B", 7)]],
            true,
        ),
        ("tile_param", guide::tile_param::program(), two(), true),
        (
            "edge",
            guide::edge::program(),
            vec![vec![("R", 32), ("C", 128)], vec![("R", 37), ("C", 100)]],
            true,
        ),
        ("head", guide::head::program(), two(), true),
        ("count_up", guide::count_up::program(), two(), true),
        // 200 KiB of unified buffer: an A5 kernel (`arch = "A5"`), too big for A2A3.
        ("big_tile", ui_arch_a5::big_tile::program(), two(), false),
        ("ui_program", ui_program::p::program(), two(), true),
        ("alone", ui_program::alone::program(), two(), true),
        (
            "ui_scale_rows",
            ui_scale_rows::scale_rows::program(),
            vec![vec![("B", 32)], vec![("B", 37)]],
            true,
        ),
        (
            "statements",
            ui_statements::statements::program(),
            two(),
            true,
        ),
        ("tiles", ui_statements::tiles::program(), two(), true),
    ]
}

#[test]
fn every_kernel_runs_in_the_cpp_model() {
    let mut problems = Vec::new();
    for (name, m, sizes, a2a3) in rows() {
        problems.extend(Model::new(name, &m, sizes).a2a3(a2a3).against_interpreter());
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Each kernel of `tests/doc_kernels/guide.rs` is the guide's, word for word.
#[test]
fn the_guide_kernels_are_the_guides() {
    let guide = include_str!("../docs/guide.md");
    let copies = include_str!("doc_kernels/guide.rs");
    let kernels: Vec<&str> = copies
        .split("#[pto::kernel]")
        .skip(1)
        .map(|k| k.trim())
        .collect();
    assert_eq!(kernels.len(), 5);
    for k in kernels {
        assert!(
            guide.contains(&format!("#[pto::kernel]\n{k}\n```")),
            "not in docs/guide.md as it is here:\n{k}"
        );
    }
}
