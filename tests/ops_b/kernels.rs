//! Kernels of issue 16 part B (padded loads, element access, adding and converting stores),
//! shared by `tests/ops_b.rs` (against plain Rust and the interpreter) and
//! `tests/cpp_model.rs` (their C++ in the pto-isa model against the host functions).

use pto::prelude::*;

/// Row sums of `x` over 64-wide tiles padded with 1.0, added into `out` tile by tile with
/// `store_add`: each row's sum plus the number of padded columns of its last tile, so the
/// pad is observable.
#[pto::kernel]
pub fn padded_row_sums(x: &Tensor<f32, R, C>, out: &mut Tensor<f32, R, 1>) {
    for r in (0..R).step_by(16) {
        for c in (0..C).step_by(64) {
            out.store_add([r, 0], x.load_or::<16, 64>([r, c], 1.0).row_sum());
        }
    }
}

/// Column maxima of `i32` data through padded 8 x 8 tiles: the pad is `i32::MIN`, the
/// identity of a maximum, so the whole padded tile is reduced.
#[pto::kernel]
pub fn padded_col_max(x: &Tensor<i32, R, C>, #[out] out: &mut Tensor<i32, 1, C>) {
    for c in (0..C).step_by(8) {
        let mut acc = x.load_or::<8, 8>([0, c], -2147483648);
        for r in (8..R).step_by(8) {
            acc = acc.max(x.load_or::<8, 8>([r, c], -2147483648));
        }
        out.store([0, c], acc.col_max());
    }
}

/// Adds every 16 x 32 tile of `x` into `out` twice with `store_add` (`out += 2 x`).
#[pto::kernel]
pub fn add_twice(x: &Tensor<f32, R, C>, out: &mut Tensor<f32, R, C>) {
    for r in (0..R).step_by(16) {
        for c in (0..C).step_by(32) {
            let t = x.load::<16, 32>([r, c]);
            out.store_add([r, c], t);
            out.store_add([r, c], t);
        }
    }
}

/// `c = a @ b` stored into a `bf16` tensor: the f32 accumulator converts on the way out.
#[pto::kernel]
pub fn matmul_to_bf16(
    a: &Tensor<f32, M, K>,
    b: &Tensor<f32, K, N>,
    #[out] c: &mut Tensor<bf16, M, N>,
) {
    for i in (0..M).step_by(16) {
        for j in (0..N).step_by(16) {
            c.store(
                [i, j],
                matmul(a.load::<16, 32>([i, 0]), b.load::<32, 16>([0, j])),
            );
        }
    }
}

/// `out = x * x[0, 0]` tile by tile, then two single elements written: `out[0, 0]` becomes
/// `x[R - 1, C - 1] + 1` (after the tile stores) and `out[row, 1]` becomes `x[0, 0]` (a run-time
/// index: the host function returns `Err` when it is outside the tensor).
#[pto::kernel]
pub fn element_access(x: &Tensor<f32, R, C>, row: i64, out: &mut Tensor<f32, R, C>) {
    let s = x.read([0, 0]);
    for r in (0..R).step_by(16) {
        for c in (0..C).step_by(64) {
            out.store([r, c], x.load::<16, 64>([r, c]) * s);
        }
    }
    let last = x.read([R - 1, C - 1]);
    out.write([0, 0], last + 1.0);
    out.write([row, 1], s);
}

/// `out[row..row + 8, ..]` = `2 * x[row..row + 8, ..]`: a load and a store at a run-time row
/// offset (the window may reach past the tensor's end; its start must lie inside it, else
/// the host function returns `Err`, the interpreter fails and the C++ stops).
#[pto::kernel]
pub fn window_at(x: &Tensor<f32, R, C>, row: i64, out: &mut Tensor<f32, R, C>) {
    for c in (0..C).step_by(64) {
        out.store([row, c], x.load::<8, 64>([row, c]) * 2.0);
    }
}

/// `y` = the top-left 16 x 64 window of `x` (padded with 0 outside it) reshaped to 32 x 32;
/// `z` = a 16 x 16 zero tile with the top-left 8 x 8 window of `x` (padded with -1) inserted
/// at `[4, 8]` and twice it inserted at `[0, col]` (a run-time column: the host function
/// returns `Err` when the 8 x 8 tile does not fit).
#[pto::kernel]
pub fn reshape_insert(
    x: &Tensor<f32, R, C>,
    col: i64,
    #[out] y: &mut Tensor<f32, 32, 32>,
    #[out] z: &mut Tensor<f32, 16, 16>,
) {
    let t = x.load_or::<16, 64>([0, 0], 0.0);
    y.store([0, 0], t.reshape::<32, 32>());
    let small = x.load_or::<8, 8>([0, 0], -1.0);
    let big = Tile::<f32, 16, 16>::zeros();
    let big = big.insert([4, 8], small);
    z.store([0, 0], big.insert([0, col], small * 2.0));
}
