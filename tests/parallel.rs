//! `for i in parallel(a..b)` loops (`docs/guide.md`, "Parallel loops"): run on all cores
//! where the lowering shows the iterations independent, in order (and saying why in
//! `LOWERED`) where it cannot; either way the result is the plain-Rust one, at edge sizes,
//! and the interpreter on the kernel's IR agrees.
#![allow(clippy::unwrap_used)]

mod support;

use pto::prelude::*;
use support::run::{arg, close, f32s, interp, values, zeros};

/// Row softmax, 8 rows per iteration, the row tiles in parallel.
#[pto::kernel]
pub fn par_softmax(x: &Tensor<f32, R, C>, out: &mut Tensor<f32, R, C>) {
    for r in parallel((0..R).step_by(8)) {
        let t = x.load::<8, 256>([r, 0]);
        let e = (t - t.row_max()).exp();
        out.store([r, 0], e / e.row_sum());
    }
}

/// `out = x * 2 + b` over 4 x 16 tiles: row tiles in parallel, column tiles in order inside.
#[pto::kernel]
pub fn par_nested(x: &Tensor<f32, R, C>, b: &Tensor<f32, 1, 16>, out: &mut Tensor<f32, R, C>) {
    let bias = b.load::<1, 16>([0, 0]);
    for r in parallel(range(0, R, 4)) {
        for c in (0..C).step_by(16) {
            let t = x.load::<4, 16>([r, c]);
            out.store([r, c], t * 2.0 + bias);
        }
    }
}

/// Windows of 2 rows at a stride of 1 row overlap: the loop runs in order.
#[pto::kernel]
pub fn par_overlapping(x: &Tensor<f32, R, 16>, out: &mut Tensor<f32, R, 16>) {
    for r in parallel(0..R) {
        let t = x.load::<2, 16>([r, 0]);
        out.store([r, 0], t + 1.0);
    }
}

/// A tensor read and written by the loop: the loop runs in order.
#[pto::kernel]
pub fn par_inout(y: &mut Tensor<f32, R, 16>) {
    for r in parallel(0..R) {
        let t = y.load::<1, 16>([r, 0]);
        y.store([r, 0], t * 3.0);
    }
}

/// Every row accumulates into one output row: overlapping `store_add` windows, in order.
#[pto::kernel]
pub fn par_store_add(x: &Tensor<f32, R, 16>, out: &mut Tensor<f32, 1, 16>) {
    for r in parallel(0..R) {
        let t = x.load::<1, 16>([r, 0]);
        out.store_add([0, 0], t);
    }
}

/// One row per iteration accumulated with `store_add`: disjoint windows, in parallel.
#[pto::kernel]
pub fn par_store_add_rows(x: &Tensor<f32, R, 16>, out: &mut Tensor<f32, R, 16>) {
    for r in parallel(0..R) {
        let t = x.load::<1, 16>([r, 0]);
        out.store_add([r, 0], t * 2.0);
    }
}

/// A single-element read in the body: element access keeps the loop in order.
#[pto::kernel]
pub fn par_read(x: &Tensor<f32, R, 16>, s: &Tensor<f32, R, 1>, out: &mut Tensor<f32, R, 16>) {
    for r in parallel(0..R) {
        let k = s.read([r, 0]);
        let t = x.load::<1, 16>([r, 0]);
        out.store([r, 0], t * k);
    }
}

/// A call in a parallel body: the callee's accesses are not analysed, so the loop runs in order.
#[pto::program]
pub mod par_calls {
    /// out = x + 1.
    #[pto::kernel]
    pub fn add_one(x: &Tensor<f32, R, 16>, out: &mut Tensor<f32, R, 16>) {
        for r in 0..R {
            let t = x.load::<1, 16>([r, 0]);
            out.store([r, 0], t + 1.0);
        }
    }

    /// Calls `add_one` from each iteration of a parallel loop.
    #[pto::kernel]
    #[entry]
    pub fn run(x: &Tensor<f32, R, 16>, out: &mut Tensor<f32, R, 16>) {
        for k in parallel(0..2) {
            add_one(x, out);
        }
    }
}

/// Two stores per iteration, at `2 * i` and `2 * i + 1`, of one-row tiles: disjoint.
#[pto::kernel]
pub fn par_interleaved(x: &Tensor<f32, R, 16>, out: &mut Tensor<f32, R2, 16>) {
    for i in parallel(0..R) {
        let t = x.load::<1, 16>([i, 0]);
        out.store([2 * i, 0], t);
        out.store([2 * i + 1, 0], -t);
    }
}

/// A parallel loop in a parallel loop: the outer one uses the cores, the inner runs in order.
#[pto::kernel]
pub fn par_in_par(x: &Tensor<f32, R, C>, out: &mut Tensor<f32, R, C>) {
    for r in parallel(0..R) {
        for c in parallel((0..C).step_by(16)) {
            let t = x.load::<1, 16>([r, c]);
            out.store([r, c], t + 1.0);
        }
    }
}

/// An `i32` loop variable, a scalar parameter used inside, an `if` giving a value per
/// iteration, and a store outside the loop to the tensor the loop stores to (so the C++
/// keeps every block on every iteration).
#[pto::kernel]
pub fn par_branchy(x: &Tensor<f32, 64, 16>, n: i32, s: f32, out: &mut Tensor<f32, 65, 16>) {
    let k = s * 2.0;
    for i in parallel(0..n) {
        let t = x.load::<1, 16>([i, 0]);
        let y = if i % 2 == 0 { t * k } else { t + k };
        out.store([i + 1, 0], y);
    }
    out.store([0, 0], Tile::<f32, 1, 16>::full(s));
}

/// `continue` ends one iteration; `break` would end the loop, so that loop runs in order.
#[pto::kernel]
pub fn par_skip(x: &Tensor<f32, R, 16>, out: &mut Tensor<f32, R, 16>) {
    for r in parallel(0..R) {
        if r % 3 == 1 {
            continue;
        }
        for c in (0..16).step_by(8) {
            if c == 8 {
                continue;
            }
            out.store([r, c], x.load::<1, 8>([r, c]) * 2.0);
        }
    }
    for r in parallel(0..R) {
        if r == 5 {
            break;
        }
        out.store([r, 8], x.load::<1, 8>([r, 8]));
    }
}

/// Row softmax over 8 x 1024 tiles (the size whose loads run row by row, `row_split.rs`):
/// each iteration owns its 8 rows of `out`, so its body is a sequential loop's.
#[pto::kernel]
pub fn par_softmax_wide(x: &Tensor<f32, R, C>, out: &mut Tensor<f32, R, C>) {
    for r in parallel((0..R).step_by(8)) {
        let t = x.load::<8, 1024>([r, 0]);
        let e = (t - t.row_max()).exp();
        out.store([r, 0], e / e.row_sum());
    }
}

/// [`par_softmax_wide`] with a sequential loop.
#[pto::kernel]
pub fn seq_softmax_wide(x: &Tensor<f32, R, C>, out: &mut Tensor<f32, R, C>) {
    for r in (0..R).step_by(8) {
        let t = x.load::<8, 1024>([r, 0]);
        let e = (t - t.row_max()).exp();
        out.store([r, 0], e / e.row_sum());
    }
}

/// Two stored tensors, one a row down (`[r + 1, 0]`), a step of 3 rows: each iteration owns
/// rows `[r, r + 3)` of `y` and `[r + 1, r + 4)` of `z`.
#[pto::kernel]
pub fn par_two_outs(x: &Tensor<f32, R, C>, y: &mut Tensor<f32, R, C>, z: &mut Tensor<f32, R1, C>) {
    for r in parallel((0..R).step_by(3)) {
        let t = x.load::<3, 64>([r, 0]);
        let e = (t - t.row_max()).exp();
        y.store([r, 0], e / e.row_sum());
        z.store([r + 1, 0], t * 2.0 + 1.0);
    }
}

/// [`par_two_outs`] with a sequential loop.
#[pto::kernel]
pub fn seq_two_outs(x: &Tensor<f32, R, C>, y: &mut Tensor<f32, R, C>, z: &mut Tensor<f32, R1, C>) {
    for r in (0..R).step_by(3) {
        let t = x.load::<3, 64>([r, 0]);
        let e = (t - t.row_max()).exp();
        y.store([r, 0], e / e.row_sum());
        z.store([r + 1, 0], t * 2.0 + 1.0);
    }
}

/// Each iteration stores a row down, the last one past the tensor's end: an error.
#[pto::kernel]
pub fn par_past_the_end(x: &Tensor<f32, R, 16>, out: &mut Tensor<f32, R, 16>) {
    for r in parallel(0..R) {
        out.store([r + 1, 0], x.load::<1, 16>([r, 0]));
    }
}

/// [`par_past_the_end`] with a sequential loop.
#[pto::kernel]
pub fn seq_past_the_end(x: &Tensor<f32, R, 16>, out: &mut Tensor<f32, R, 16>) {
    for r in 0..R {
        out.store([r + 1, 0], x.load::<1, 16>([r, 0]));
    }
}

fn softmax_ref(x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; rows * cols];
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let m = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let s: f32 = row.iter().map(|v| (v - m).exp()).sum();
        for c in 0..cols {
            out[r * cols + c] = (row[c] - m).exp() / s;
        }
    }
    out
}

#[test]
fn softmax_runs_in_parallel_and_matches_plain_rust_at_edge_sizes() {
    assert!(
        par_softmax::LOWERED.contains("// parallel loop: iterations run in parallel"),
        "{}",
        par_softmax::LOWERED
    );
    for (rows, cols) in [(1, 1), (7, 5), (8, 256), (9, 255), (100, 17), (1001, 256)] {
        let x = values(rows * cols, (rows * 31 + cols) as u64, -8.0, 8.0);
        let xt = Tensor::from_vec(x.clone(), [rows, cols]).unwrap();
        let mut out = Tensor::<f32>::zeros([rows, cols]);
        par_softmax(&xt, &mut out).unwrap();
        let what = format!("softmax {rows} x {cols}");
        close(out.as_slice(), &softmax_ref(&x, rows, cols), 1e-5, &what);
        let got = interp(
            &par_softmax::program(),
            vec![arg(&xt), zeros::<f32>([rows, cols])],
        );
        close(
            &f32s(&got[1]),
            out.as_slice(),
            1e-5,
            &format!("{what}, interpreter"),
        );
    }
}

#[test]
fn nested_loops_share_a_read_only_tile_and_match_plain_rust() {
    assert!(
        par_nested::LOWERED.contains("iterations run in parallel"),
        "{}",
        par_nested::LOWERED
    );
    for (rows, cols) in [(1, 1), (3, 17), (4, 16), (13, 40), (257, 33)] {
        let x = values(rows * cols, (rows + cols) as u64, -2.0, 2.0);
        let b = values(16, 5, -1.0, 1.0);
        let mut out = Tensor::<f32>::zeros([rows, cols]);
        par_nested(
            &Tensor::from_vec(x.clone(), [rows, cols]).unwrap(),
            &Tensor::from_vec(b.clone(), [1, 16]).unwrap(),
            &mut out,
        )
        .unwrap();
        let want: Vec<f32> = (0..rows * cols)
            .map(|k| x[k] * 2.0 + b[(k % cols) % 16])
            .collect();
        close(
            out.as_slice(),
            &want,
            1e-6,
            &format!("nested {rows} x {cols}"),
        );
    }
}

#[test]
fn overlapping_windows_run_in_order_and_say_why() {
    assert!(
        par_overlapping::LOWERED.contains(
            "// parallel loop run sequentially: the store windows of `out` cannot be shown disjoint"
        ),
        "{}",
        par_overlapping::LOWERED
    );
    assert!(
        par_overlapping::CPP.contains("// parallel loop run in order: the store windows of `out`")
    );
    assert!(!par_overlapping::CPP.contains("get_block_idx"));
    for rows in [1, 2, 5, 64] {
        let x = values(rows * 16, rows as u64, -1.0, 1.0);
        let mut out = Tensor::<f32>::zeros([rows, 16]);
        par_overlapping(&Tensor::from_vec(x.clone(), [rows, 16]).unwrap(), &mut out).unwrap();
        let want: Vec<f32> = x.iter().map(|v| v + 1.0).collect();
        close(out.as_slice(), &want, 0.0, "overlapping");
    }
}

#[test]
fn store_add_in_a_parallel_loop_runs_in_parallel_only_on_disjoint_windows() {
    assert!(
        par_store_add::LOWERED.contains("run sequentially: the store windows of `out`"),
        "{}",
        par_store_add::LOWERED
    );
    assert!(
        par_store_add_rows::LOWERED.contains("iterations run in parallel"),
        "{}",
        par_store_add_rows::LOWERED
    );
    for rows in [1, 7, 64] {
        let x = values(rows * 16, rows as u64 + 5, -1.0, 1.0);
        let xt = Tensor::from_vec(x.clone(), [rows, 16]).unwrap();
        let mut sum = Tensor::from_vec(vec![1.0f32; 16], [1, 16]).unwrap();
        par_store_add(&xt, &mut sum).unwrap();
        let mut want = vec![1.0f32; 16];
        for r in 0..rows {
            for c in 0..16 {
                want[c] += x[r * 16 + c];
            }
        }
        close(sum.as_slice(), &want, 1e-6, "store_add sum");
        let mut out = Tensor::from_vec(vec![0.5f32; rows * 16], [rows, 16]).unwrap();
        par_store_add_rows(&xt, &mut out).unwrap();
        let want: Vec<f32> = x.iter().map(|v| 0.5 + v * 2.0).collect();
        close(out.as_slice(), &want, 0.0, "store_add rows");
    }
}

#[test]
fn element_access_keeps_a_parallel_loop_in_order() {
    assert!(
        par_read::LOWERED
            .contains("run sequentially: its body reads or writes single tensor elements"),
        "{}",
        par_read::LOWERED
    );
    let rows = 9;
    let x = values(rows * 16, 4, -1.0, 1.0);
    let k = values(rows, 6, -2.0, 2.0);
    let mut out = Tensor::<f32>::zeros([rows, 16]);
    par_read(
        &Tensor::from_vec(x.clone(), [rows, 16]).unwrap(),
        &Tensor::from_vec(k.clone(), [rows, 1]).unwrap(),
        &mut out,
    )
    .unwrap();
    let want: Vec<f32> = x.iter().enumerate().map(|(i, v)| v * k[i / 16]).collect();
    close(out.as_slice(), &want, 0.0, "read");
}

#[test]
fn a_call_keeps_a_parallel_loop_in_order() {
    assert!(
        par_calls::LOWERED.contains("run sequentially: its body calls another kernel"),
        "{}",
        par_calls::LOWERED
    );
    let x = values(5 * 16, 8, -1.0, 1.0);
    let mut out = Tensor::<f32>::zeros([5, 16]);
    par_calls::run(&Tensor::from_vec(x.clone(), [5, 16]).unwrap(), &mut out).unwrap();
    let want: Vec<f32> = x.iter().map(|v| v + 1.0).collect();
    close(out.as_slice(), &want, 0.0, "call");
}

#[test]
fn a_tensor_read_and_written_runs_in_order() {
    assert!(
        par_inout::LOWERED.contains("run sequentially: `y` is both loaded and stored in the loop"),
        "{}",
        par_inout::LOWERED
    );
    let y0 = values(7 * 16, 3, -1.0, 1.0);
    let mut y = Tensor::from_vec(y0.clone(), [7, 16]).unwrap();
    par_inout(&mut y).unwrap();
    let want: Vec<f32> = y0.iter().map(|v| v * 3.0).collect();
    close(y.as_slice(), &want, 0.0, "inout");
}

#[test]
fn stores_at_affine_offsets_in_one_iteration_are_disjoint() {
    assert!(
        par_interleaved::LOWERED.contains("iterations run in parallel"),
        "{}",
        par_interleaved::LOWERED
    );
    for rows in [1, 3, 100] {
        let x = values(rows * 16, 9, -1.0, 1.0);
        let mut out = Tensor::<f32>::zeros([2 * rows, 16]);
        par_interleaved(&Tensor::from_vec(x.clone(), [rows, 16]).unwrap(), &mut out).unwrap();
        let mut want = vec![0.0; 2 * rows * 16];
        for r in 0..rows {
            for c in 0..16 {
                want[2 * r * 16 + c] = x[r * 16 + c];
                want[(2 * r + 1) * 16 + c] = -x[r * 16 + c];
            }
        }
        close(out.as_slice(), &want, 0.0, "interleaved");
    }
}

#[test]
fn a_parallel_loop_charges_the_budget() {
    let x = Tensor::<f32>::zeros([64, 16]);
    let mut out = Tensor::<f32>::zeros([128, 16]);
    let r = pto::Budget::iterations(10).run(|| par_interleaved(&x, &mut out));
    assert!(matches!(r, Err(pto::Error::Budget { .. })), "{r:?}");
    assert!(
        pto::Budget::iterations(64)
            .run(|| par_interleaved(&x, &mut out))
            .is_ok()
    );
}

#[test]
fn the_cpp_gives_each_block_its_share_of_the_iterations() {
    assert!(
        par_softmax::CPP.contains("+ static_cast<int64_t>(get_block_idx()) * 8LL; r_"),
        "{}",
        par_softmax::CPP
    );
    assert!(par_softmax::CPP.contains("static_cast<int64_t>(get_block_num()) * 8LL"));
    assert!(
        par_softmax::IR.contains("{parallel}"),
        "{}",
        par_softmax::IR
    );
}

#[test]
fn a_parallel_loop_inside_a_parallel_loop_runs_in_order() {
    let lowered = par_in_par::LOWERED;
    assert!(
        lowered.contains("// parallel loop: iterations run in parallel"),
        "{lowered}"
    );
    assert!(
        lowered.contains("// parallel loop run sequentially: it is nested in a parallel loop"),
        "{lowered}"
    );
    for (rows, cols) in [(1, 1), (5, 33), (64, 64)] {
        let x = values(rows * cols, 77, -1.0, 1.0);
        let mut out = Tensor::<f32>::zeros([rows, cols]);
        par_in_par(
            &Tensor::from_vec(x.clone(), [rows, cols]).unwrap(),
            &mut out,
        )
        .unwrap();
        let want: Vec<f32> = x.iter().map(|v| v + 1.0).collect();
        close(out.as_slice(), &want, 0.0, "parallel in parallel");
    }
}

#[test]
fn branches_scalars_and_an_i32_loop_variable_run_in_parallel() {
    assert!(
        par_branchy::LOWERED.contains("iterations run in parallel"),
        "{}",
        par_branchy::LOWERED
    );
    assert!(
        par_branchy::CPP.contains("every block runs all iterations"),
        "{}",
        par_branchy::CPP
    );
    assert!(!par_branchy::CPP.contains("get_block_idx"));
    let x = values(64 * 16, 4, -1.0, 1.0);
    for n in [0, 1, 37, 64] {
        let mut out = Tensor::<f32>::zeros([65, 16]);
        par_branchy(
            &Tensor::from_vec(x.clone(), [64, 16]).unwrap(),
            n,
            0.5,
            &mut out,
        )
        .unwrap();
        let mut want = vec![0.0; 65 * 16];
        want[..16].fill(0.5);
        for i in 0..n as usize {
            for c in 0..16 {
                let v = x[i * 16 + c];
                want[(i + 1) * 16 + c] = if i % 2 == 0 { v * 1.0 } else { v + 1.0 };
            }
        }
        close(out.as_slice(), &want, 0.0, &format!("branchy n = {n}"));
    }
}

#[test]
fn continue_ends_an_iteration_and_break_runs_the_loop_in_order() {
    let lowered = par_skip::LOWERED;
    assert!(
        lowered.contains("// parallel loop: iterations run in parallel"),
        "{lowered}"
    );
    assert!(
        lowered.contains("// parallel loop run sequentially: its body returns from the kernel or leaves the loop (`break`)"),
        "{lowered}"
    );
    for rows in [1, 4, 7, 50] {
        let x = values(rows * 16, 12, -1.0, 1.0);
        let mut out = Tensor::<f32>::zeros([rows, 16]);
        par_skip(&Tensor::from_vec(x.clone(), [rows, 16]).unwrap(), &mut out).unwrap();
        let mut want = vec![0.0; rows * 16];
        for r in 0..rows {
            for c in 0..8 {
                if r % 3 != 1 {
                    want[r * 16 + c] = x[r * 16 + c] * 2.0;
                }
            }
            for c in 8..16 {
                if r < 5 {
                    want[r * 16 + c] = x[r * 16 + c];
                }
            }
        }
        close(out.as_slice(), &want, 0.0, &format!("skip {rows}"));
    }
}

/// Issue 14's audit: every kernel of this file as `NAME::CPP` for A2A3 and A5 in the C++
/// model of pto-isa (the driver launches 3 blocks when the C++ reads the block index), at
/// tile-multiple and ragged sizes, against the interpreter (which this file's tests tie to
/// the host functions).
#[test]
fn every_kernel_here_runs_in_the_cpp_model() {
    let rc = || vec![vec![("R", 32), ("C", 64)], vec![("R", 37), ("C", 50)]];
    let r = || vec![vec![("R", 32)], vec![("R", 37)]];
    let rows: Vec<(&str, pto::ir::ProgramModule, support::model::Sizes)> = vec![
        ("par_softmax", par_softmax::program(), rc()),
        ("par_nested", par_nested::program(), rc()),
        ("par_overlapping", par_overlapping::program(), r()),
        ("par_inout", par_inout::program(), r()),
        ("par_store_add", par_store_add::program(), r()),
        ("par_store_add_rows", par_store_add_rows::program(), r()),
        ("par_read", par_read::program(), r()),
        ("par_calls", par_calls::program(), r()),
        (
            "par_interleaved",
            par_interleaved::program(),
            vec![vec![("R", 16), ("R2", 32)], vec![("R", 37), ("R2", 74)]],
        ),
        ("par_in_par", par_in_par::program(), rc()),
        ("par_branchy", par_branchy::program(), vec![vec![]]),
        ("par_skip", par_skip::program(), r()),
    ];
    let mut problems = Vec::new();
    for (name, m, sizes) in rows {
        problems.extend(support::model::check(name, &m, &sizes, true));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The bits of `got` and `want`, element by element.
fn same_bits(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(
            g.to_bits(),
            w.to_bits(),
            "{what}: element {i} is {g}, expected {w}"
        );
    }
}

#[test]
fn iterations_that_own_their_rows_give_the_sequential_bits() {
    assert!(
        par_softmax_wide::LOWERED.contains("// parallel loop: iterations run in parallel"),
        "{}",
        par_softmax_wide::LOWERED
    );
    // Ragged row counts (8 does not divide 37 or 5), a row shorter than the tile (no row
    // split then), a single row.
    for (rows, cols) in [
        (37, 1024),
        (5, 1024),
        (64, 1024),
        (37, 1000),
        (1, 3),
        (0, 8),
    ] {
        let x = values(rows * cols, (rows * 7 + cols) as u64, -8.0, 8.0);
        let xt = Tensor::from_vec(x.clone(), [rows, cols]).unwrap();
        let mut par = Tensor::<f32>::zeros([rows, cols]);
        par_softmax_wide(&xt, &mut par).unwrap();
        let mut seq = Tensor::<f32>::zeros([rows, cols]);
        seq_softmax_wide(&xt, &mut seq).unwrap();
        let what = format!("softmax {rows} x {cols}");
        same_bits(par.as_slice(), seq.as_slice(), &what);
        close(par.as_slice(), &softmax_ref(&x, rows, cols), 1e-5, &what);
        if rows > 0 {
            let got = interp(
                &par_softmax_wide::program(),
                vec![arg(&xt), zeros::<f32>([rows, cols])],
            );
            close(
                &f32s(&got[1]),
                par.as_slice(),
                1e-6,
                &format!("{what}, interpreter"),
            );
        }
    }
}

/// A kernel of one input and two outputs.
type TwoOuts = fn(&Tensor<f32>, &mut Tensor<f32>, &mut Tensor<f32>) -> Result<(), pto::Error>;

#[test]
fn two_stored_tensors_one_a_row_down_each_owned_by_rows() {
    assert!(
        par_two_outs::LOWERED.contains("// parallel loop: iterations run in parallel"),
        "{}",
        par_two_outs::LOWERED
    );
    // A step of 3 divides none of 37, 5, 1, 64 but 0; columns short of the tile and past it.
    for (rows, cols) in [(37, 64), (5, 64), (1, 1), (64, 50), (37, 100), (0, 4)] {
        let x = values(rows * cols, (rows + 3 * cols) as u64, -4.0, 4.0);
        let xt = Tensor::from_vec(x.clone(), [rows, cols]).unwrap();
        // Row 0 of `z` is written by no iteration: it keeps its 7s.
        let run = |k: TwoOuts| {
            let mut y = Tensor::<f32>::zeros([rows, cols]);
            let mut z =
                Tensor::from_vec(vec![7.0f32; (rows + 1) * cols], [rows + 1, cols]).unwrap();
            k(&xt, &mut y, &mut z).unwrap();
            (y, z)
        };
        let (py, pz) = run(par_two_outs);
        let (sy, sz) = run(seq_two_outs);
        let what = format!("two outputs {rows} x {cols}");
        same_bits(py.as_slice(), sy.as_slice(), &what);
        same_bits(pz.as_slice(), sz.as_slice(), &what);
        let w = cols.min(64);
        let mut want_z = vec![7.0f32; (rows + 1) * cols];
        for r in 0..rows {
            for c in 0..w {
                want_z[(r + 1) * cols + c] = x[r * cols + c] * 2.0 + 1.0;
            }
        }
        close(pz.as_slice(), &want_z, 0.0, &format!("{what}, z"));
        if w == cols {
            close(
                py.as_slice(),
                &softmax_ref(&x, rows, cols),
                1e-5,
                &format!("{what}, y"),
            );
        }
    }
}

#[test]
fn a_store_past_the_end_of_its_rows_fails_as_in_order() {
    assert!(
        par_past_the_end::LOWERED.contains("iterations run in parallel"),
        "{}",
        par_past_the_end::LOWERED
    );
    for rows in [1, 5, 37] {
        let x = Tensor::from_vec(values(rows * 16, 2, -1.0, 1.0), [rows, 16]).unwrap();
        let mut par = Tensor::<f32>::zeros([rows, 16]);
        let mut seq = Tensor::<f32>::zeros([rows, 16]);
        let (p, s) = (
            par_past_the_end(&x, &mut par),
            seq_past_the_end(&x, &mut seq),
        );
        assert!(matches!(s, Err(pto::Error::OutOfBounds { .. })), "{s:?}");
        assert_eq!(p, s, "{rows} rows");
    }
}
