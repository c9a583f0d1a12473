//! Issue 14: row reductions of tiles of few rows as `NAME::CPP`. A row reduction's `R x 1`
//! result is a column-major column padded to 32 bytes (8 rows of f32, 16 of f16), while
//! pto-isa's CPU simulation of `TROWSUM` asserts that its source has the result's static rows,
//! and its row-broadcast ops (`TROWEXPANDSUB` ...) take a one-row, one-column row-major result
//! as a 32-byte block (`pto-lower/src/info.rs` `row_sum_rows`, `emit/cpp.rs` `is_row_expand`).
//! Each kernel here reduces tiles of 1, 3, 4, 7 or 9 rows (f32 and f16) by sum, max and min and
//! feeds each result to a row broadcast; its C++ runs in the model of pto-isa on A2A3 and A5 at
//! tile-multiple and ragged sizes against the host function, and the host function gives
//! exactly the interpreter's results.
#![allow(clippy::unwrap_used)]

use pto::f16;
use pto::prelude::*;

mod support;

use support::model::{Model, Sizes, harness};

/// A kernel over `rows x 64` tiles of `$t`: `(x - rowmax(x)) * rowmin(x) + rowsum(x)`, each
/// reduction consumed by a row broadcast (`TROWEXPANDSUB`, `TROWEXPANDMUL`, `TROWEXPANDADD`).
macro_rules! rows_kernel {
    ($name:ident, $t:ty, $rows:literal) => {
        /// Row reductions of few-row tiles, each consumed by a row broadcast.
        #[pto::kernel]
        pub fn $name(x: &Tensor<$t, R, C>, #[out] out: &mut Tensor<$t, R, C>) {
            for r in (0..R).step_by($rows) {
                let t = x.load::<$rows, 64>([r, 0]);
                let d = (t - t.row_max()) * t.row_min();
                out.store([r, 0], d + t.row_sum());
            }
        }
    };
}

rows_kernel!(rows1_f32, f32, 1);
rows_kernel!(rows3_f32, f32, 3);
rows_kernel!(rows4_f32, f32, 4);
rows_kernel!(rows7_f32, f32, 7);
rows_kernel!(rows9_f32, f32, 9);
rows_kernel!(rows1_f16, f16, 1);
rows_kernel!(rows3_f16, f16, 3);
rows_kernel!(rows4_f16, f16, 4);
rows_kernel!(rows7_f16, f16, 7);
rows_kernel!(rows9_f16, f16, 9);

/// A kernel's name, module, tile rows and host function on the model's arguments.
type Case = (
    &'static str,
    pto::ir::ProgramModule,
    usize,
    fn(&support::run::Args) -> Result<(), pto::Error>,
);

fn cases() -> Vec<Case> {
    vec![
        ("rows1_f32", rows1_f32::program(), 1, |t| {
            rows1_f32(&t.tensor(0), &mut t.out::<f32>(1))
        }),
        ("rows3_f32", rows3_f32::program(), 3, |t| {
            rows3_f32(&t.tensor(0), &mut t.out::<f32>(1))
        }),
        ("rows4_f32", rows4_f32::program(), 4, |t| {
            rows4_f32(&t.tensor(0), &mut t.out::<f32>(1))
        }),
        ("rows7_f32", rows7_f32::program(), 7, |t| {
            rows7_f32(&t.tensor(0), &mut t.out::<f32>(1))
        }),
        ("rows9_f32", rows9_f32::program(), 9, |t| {
            rows9_f32(&t.tensor(0), &mut t.out::<f32>(1))
        }),
        ("rows1_f16", rows1_f16::program(), 1, |t| {
            rows1_f16(&t.tensor(0), &mut t.out::<f16>(1))
        }),
        ("rows3_f16", rows3_f16::program(), 3, |t| {
            rows3_f16(&t.tensor(0), &mut t.out::<f16>(1))
        }),
        ("rows4_f16", rows4_f16::program(), 4, |t| {
            rows4_f16(&t.tensor(0), &mut t.out::<f16>(1))
        }),
        ("rows7_f16", rows7_f16::program(), 7, |t| {
            rows7_f16(&t.tensor(0), &mut t.out::<f16>(1))
        }),
        ("rows9_f16", rows9_f16::program(), 9, |t| {
            rows9_f16(&t.tensor(0), &mut t.out::<f16>(1))
        }),
    ]
}

/// Four whole tiles of 64 columns, then a ragged count of rows (a last tile of about half its
/// rows; one-row tiles have no ragged count) and 50 of the 64 columns.
fn sizes(rows: usize) -> Sizes {
    vec![
        vec![("R", 4 * rows), ("C", 64)],
        vec![("R", 3 * rows + rows.div_ceil(2)), ("C", 50)],
    ]
}

/// Every kernel's C++ in the model on both targets against its host function.
#[test]
fn few_row_reductions_run_in_the_cpp_model() {
    let mut problems = Vec::new();
    for (name, m, rows, call) in cases() {
        problems.extend(Model::new(name, &m, sizes(rows)).against_host(call));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The host function gives exactly the interpreter's results at both size sets.
#[test]
fn host_equals_interpreter() {
    for (name, m, rows, call) in cases() {
        for (k, set) in sizes(rows).iter().enumerate() {
            let dims = harness::dims_by_name(&m, set);
            let args = harness::args_for(&m, &dims, 11 + k as u64, false);
            let mut by_host = args.clone();
            support::run::host(&mut by_host, call).unwrap();
            let by_interp = support::run::interp(&m, args);
            let host = &by_host[1].as_tensor().unwrap().data;
            assert_eq!(host, &by_interp[1], "{name} at {set:?}");
        }
    }
}

/// `CPP` reads a row sum's source of fewer rows than its result through a view of the
/// result's rows (the model refuses `TROWSUM` otherwise), and a one-row result of a row
/// broadcast through a column view.
#[test]
fn cpp_reads_sources_and_one_row_results_through_views() {
    let c = rows4_f32::CPP;
    assert!(
        c.contains("Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, DYNAMIC, DYNAMIC,"),
        "{c}"
    );
    assert!(
        c.contains("TROWSUM(") && c.contains(", in0, scratch"),
        "{c}"
    );
    let c = rows3_f16::CPP;
    assert!(
        c.contains("Tile<TileType::Vec, half, 16, 64, BLayout::RowMajor, DYNAMIC, DYNAMIC,"),
        "{c}"
    );
    let c = rows1_f32::CPP;
    assert!(
        c.contains("Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor, DYNAMIC, 1,"),
        "{c}"
    );
    assert!(c.contains("TROWEXPANDADD(") && c.contains(", in1);"), "{c}");
}
