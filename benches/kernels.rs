//! Whole `#[pto::kernel]` kernels against the plain-Rust loops a competent Rust programmer
//! would write for the same work (straight loops over slices written for the auto-vectoriser:
//! 16 partial sums per row, a polynomial `exp`; no SIMD intrinsics, no threads).
//!
//! Run with `cargo bench --bench kernels` (and with `RUSTFLAGS="-C target-cpu=native"`). Each
//! group times pto against a baseline (the hand loop, or `sgemm` / convert + `sgemm` for the
//! GEMMs) over the same preallocated inputs and outputs, the two calls alternating
//! (`paired/mod.rs`); `main` checks once, before timing, that the two compute the same numbers.
//! The figure to read is the median of the pairs' ratios pto / baseline, against the goals of
//! the performance issue (README table).
#![allow(missing_docs, clippy::unwrap_used)]
// Each included example brings its own copy of `examples/common`.
#![allow(clippy::duplicate_mod)]

use paired::Runner;
use pto::prelude::*;
use std::hint::black_box;

mod paired;

#[allow(dead_code)]
#[path = "../examples/quickstart.rs"]
mod quickstart;

#[allow(dead_code)]
#[path = "../examples/vector_add.rs"]
mod vector_add;

#[allow(dead_code)]
#[path = "../examples/row_softmax.rs"]
mod row_softmax;

#[allow(dead_code)]
#[path = "../examples/reductions.rs"]
mod reductions;

#[allow(dead_code)]
#[path = "../examples/broadcast.rs"]
mod broadcast;

/// `C = A @ B`, one 32 x 32 output tile at a time, K in 64-wide chunks.
#[pto::kernel]
pub fn matmul_tiled(
    a: &Tensor<f32, M, K>,
    b: &Tensor<f32, K, N>,
    #[out] c: &mut Tensor<f32, M, N>,
) {
    for i in (0..M).step_by(32) {
        for j in (0..N).step_by(32) {
            let mut acc = Tile::<f32, 32, 32>::zeros();
            for k in (0..K).step_by(64) {
                let at = a.load::<32, 64>([i, k]);
                let bt = b.load::<64, 32>([k, j]);
                if k == 0 {
                    acc = matmul(at, bt);
                } else {
                    acc = matmul_acc(acc, at, bt);
                }
            }
            c.store([i, j], acc);
        }
    }
}

fn main() {
    check_all();
    check_acceptance();
    let run = Runner::from_args("pto", "baseline");
    acceptance(&run);
    examples(&run);
}

/// Deterministic values in [-1, 1).
fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn tensor(data: &[f32], shape: [usize; 2]) -> Tensor<f32> {
    Tensor::from_vec(data.to_vec(), shape).unwrap()
}

/// Asserts `got` and `want` agree to a relative `tol` (absolute below 1).
fn assert_close(what: &str, got: &[f32], want: &[f32], tol: f32) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let err = (g - w).abs() / w.abs().max(1.0);
        assert!(err <= tol, "{what}: element {i}: pto {g} vs hand {w}");
    }
}

// ---------------------------------------------------------------- scale_rows (B x 128)

const SCALE_B: usize = 4096;
const SCALE: f32 = 2.0;

fn scale_rows_hand(x: &[f32], scale: f32, out: &mut [f32]) {
    for (o, &v) in out.iter_mut().zip(x) {
        *o = v * scale * 3.14;
    }
}

fn scale_rows_data() -> (Vec<f32>, Tensor<f32>, Tensor<f32>) {
    let x = random(SCALE_B * 128, 1);
    let xt = tensor(&x, [SCALE_B, 128]);
    (x, xt, Tensor::zeros([SCALE_B, 128]))
}

// ---------------------------------------------------------------- vector_add (n = 1 << 20)

const VADD_N: usize = 1 << 20;

fn vector_add_hand(a: &[f32], b: &[f32], c: &mut [f32]) {
    for ((c, &a), &b) in c.iter_mut().zip(a).zip(b) {
        *c = a + b;
    }
}

fn vector_add_data() -> (Vec<f32>, Vec<f32>) {
    (random(VADD_N, 2), random(VADD_N, 3))
}

// ---------------------------------------------------------------- row_softmax (1024 x 256)

const SM_R: usize = 1024;
const SM_C: usize = 256;

fn row_softmax_hand(x: &[f32], out: &mut [f32], cols: usize) {
    softmax_hand(x, out, cols);
}

fn row_softmax_data() -> Vec<f32> {
    random(SM_R * SM_C, 7)
        .into_iter()
        .map(|v| v * 8.0)
        .collect()
}

// ---------------------------------------------------------------- matmul (256 x 256 x 256)

const MM: usize = 256;

/// i-k-j: the inner loop runs along contiguous rows of `b` and `c`.
fn matmul_hand(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
    for (crow, arow) in c.chunks_exact_mut(n).zip(a.chunks_exact(k)).take(m) {
        crow.fill(0.0);
        for (&av, brow) in arow.iter().zip(b.chunks_exact(n)) {
            for (c, &bv) in crow.iter_mut().zip(brow) {
                *c += av * bv;
            }
        }
    }
}

fn matmul_data() -> (Vec<f32>, Vec<f32>) {
    (random(MM * MM, 15), random(MM * MM, 16))
}

// ---------------------------------------------------------------- reductions (4096 x 64)

const RED_R: usize = 4096;
const RED_C: usize = 64;

/// Row sums and maxima, column sums and maxima of a `rows x cols` matrix.
struct Reduced<'a> {
    row_sum: &'a mut [f32],
    row_max: &'a mut [f32],
    col_sum: &'a mut [f32],
    col_max: &'a mut [f32],
}

fn reductions_hand(x: &[f32], cols: usize, out: Reduced<'_>) {
    out.col_sum.fill(0.0);
    out.col_max.fill(-3.0e38);
    let rows = x.chunks_exact(cols);
    for ((row, rs), rm) in rows.zip(out.row_sum.iter_mut()).zip(out.row_max.iter_mut()) {
        *rs = sum16(row);
        *rm = max16(row);
        for ((cs, cm), &v) in out.col_sum.iter_mut().zip(out.col_max.iter_mut()).zip(row) {
            *cs += v;
            *cm = cm.max(v);
        }
    }
}

fn reductions_data() -> Vec<f32> {
    random(RED_R * RED_C, 9)
}

/// The pto outputs: row sums, row maxima, column sums, column maxima.
fn reductions_outputs() -> [Tensor<f32>; 4] {
    [
        Tensor::zeros([RED_R, 1]),
        Tensor::zeros([RED_R, 1]),
        Tensor::zeros([1, RED_C]),
        Tensor::zeros([1, RED_C]),
    ]
}

// ---------------------------------------------------------------- broadcast (4096 x 128)

const BC_R: usize = 4096;
const BC_C: usize = 128;

fn broadcast_hand(x: &[f32], v: &[f32], centered: &mut [f32], scaled: &mut [f32], cols: usize) {
    let rows = x.chunks_exact(cols);
    let outs = centered
        .chunks_exact_mut(cols)
        .zip(scaled.chunks_exact_mut(cols));
    for (row, (c, s)) in rows.zip(outs) {
        let m = row.iter().copied().fold(f32::MIN, f32::max);
        for (c, &x) in c.iter_mut().zip(row) {
            *c = x - m;
        }
        for ((s, &x), &v) in s.iter_mut().zip(row).zip(v) {
            *s = x * v;
        }
    }
}

fn broadcast_data() -> (Vec<f32>, Vec<f32>) {
    (random(BC_R * BC_C, 11), random(BC_C, 12))
}

// ---------------------------------------------------------------- the one-time check

/// Runs every pto kernel and its hand-written twin once on the bench inputs and asserts they
/// agree (exactly where both do the same operations in the same order).
fn check_all() {
    {
        let (x, xt, mut out) = scale_rows_data();
        quickstart::scale_rows(&xt, SCALE, &mut out).unwrap();
        let mut want = vec![0f32; x.len()];
        scale_rows_hand(&x, SCALE, &mut want);
        assert_close("scale_rows", out.as_slice(), &want, 0.0);
    }
    {
        let (av, bv) = vector_add_data();
        let x = Tensor::from_vec(av.clone(), [VADD_N]).unwrap();
        let y = Tensor::from_vec(bv.clone(), [VADD_N]).unwrap();
        let mut out = Tensor::<f32>::zeros([VADD_N]);
        vector_add::vector_add(&x, &y, &mut out).unwrap();
        let mut want = vec![0f32; VADD_N];
        vector_add_hand(&av, &bv, &mut want);
        assert_close("vector_add", out.as_slice(), &want, 0.0);
    }
    {
        let xv = row_softmax_data();
        let x = tensor(&xv, [SM_R, SM_C]);
        let mut out = Tensor::<f32>::zeros([SM_R, SM_C]);
        row_softmax::row_softmax(&x, &mut out).unwrap();
        let mut want = vec![0f32; xv.len()];
        row_softmax_hand(&xv, &mut want, SM_C);
        assert_close("row_softmax", out.as_slice(), &want, 0.0);
    }
    {
        let (av, bv) = matmul_data();
        let mut out = Tensor::<f32>::zeros([MM, MM]);
        matmul_tiled(&tensor(&av, [MM, MM]), &tensor(&bv, [MM, MM]), &mut out).unwrap();
        let mut want = vec![0f32; MM * MM];
        matmul_hand(&av, &bv, &mut want, MM, MM, MM);
        // The hand loop rounds each product, the matmul fuses each multiply-add: close.
        assert_close("matmul", out.as_slice(), &want, 1e-5);
        // The matmul's meaning, bit for bit: one fused multiply-add per product in k order.
        for (i, (arow, orow)) in av.chunks(MM).zip(out.as_slice().chunks(MM)).enumerate() {
            for (j, &o) in orow.iter().enumerate() {
                let s = (0..MM).fold(0f32, |s, p| arow[p].mul_add(bv[p * MM + j], s));
                assert_eq!(o.to_bits(), s.to_bits(), "matmul element ({i}, {j})");
            }
        }
    }
    {
        let xv = reductions_data();
        let [mut rs, mut rm, mut cs, mut cm] = reductions_outputs();
        let x = tensor(&xv, [RED_R, RED_C]);
        reductions::reductions(&x, &mut rs, &mut rm, &mut cs, &mut cm).unwrap();
        let [mut ws, mut wm, mut wcs, mut wcm] = reductions_outputs();
        let want = Reduced {
            row_sum: ws.as_mut_slice(),
            row_max: wm.as_mut_slice(),
            col_sum: wcs.as_mut_slice(),
            col_max: wcm.as_mut_slice(),
        };
        reductions_hand(&xv, RED_C, want);
        assert_close("row sums", rs.as_slice(), ws.as_slice(), 0.0);
        assert_close("row maxima", rm.as_slice(), wm.as_slice(), 0.0);
        // pto adds each 32-row block's column sums into the running sums: another order.
        assert_close("column sums", cs.as_slice(), wcs.as_slice(), 1e-4);
        assert_close("column maxima", cm.as_slice(), wcm.as_slice(), 0.0);
    }
    {
        let (xv, vv) = broadcast_data();
        let mut centered = Tensor::<f32>::zeros([BC_R, BC_C]);
        let mut scaled = Tensor::<f32>::zeros([BC_R, BC_C]);
        broadcast::broadcast(
            &tensor(&xv, [BC_R, BC_C]),
            &tensor(&vv, [1, BC_C]),
            &mut centered,
            &mut scaled,
        )
        .unwrap();
        let (mut want_c, mut want_s) = (vec![0f32; xv.len()], vec![0f32; xv.len()]);
        broadcast_hand(&xv, &vv, &mut want_c, &mut want_s, BC_C);
        assert_close("x - rowmax(x)", centered.as_slice(), &want_c, 0.0);
        assert_close("x * v", scaled.as_slice(), &want_s, 0.0);
    }
}

// ================================================================ acceptance kernels
//
// The kernels of the performance issue, each beside a hand-vectorised Rust loop doing the
// same operations in the same order (so `check_acceptance` can demand equal bits): loops
// written for the auto-vectoriser, with 16 partial sums / maxima per row and the same
// polynomial `exp` (`pto::ir::sem::exp_f32`); GEMM beside `matrixmultiply::sgemm` (through
// ndarray's safe `general_mat_mul`), single-threaded.

const ACC_R: usize = 4096;
const ACC_C: usize = 1024;

/// y = x * a + b, 8 x 1024 tiles.
#[pto::kernel]
pub fn axpb(x: &Tensor<f32, R, 1024>, a: f32, b: f32, #[out] y: &mut Tensor<f32, R, 1024>) {
    for r in (0..R).step_by(8) {
        y.store([r, 0], x.load::<8, 1024>([r, 0]) * a + b);
    }
}

/// Row softmax, 8 x 1024 tiles.
#[pto::kernel]
pub fn softmax_rows(x: &Tensor<f32, R, 1024>, #[out] out: &mut Tensor<f32, R, 1024>) {
    for r in (0..R).step_by(8) {
        let t = x.load::<8, 1024>([r, 0]);
        let e = (t - t.row_max()).exp();
        out.store([r, 0], e / e.row_sum());
    }
}

/// Row layernorm (no affine part), 8 x 1024 tiles: (x - mean) / sqrt(var + 1e-5).
#[pto::kernel]
pub fn layernorm_rows(x: &Tensor<f32, R, 1024>, #[out] out: &mut Tensor<f32, R, 1024>) {
    for r in (0..R).step_by(8) {
        let t = x.load::<8, 1024>([r, 0]);
        let d = t - t.row_sum() * 0.0009765625;
        let var = (d * d).row_sum() * 0.0009765625;
        out.store([r, 0], d * (var + 0.00001).rsqrt());
    }
}

/// `C = A @ B` through 64 x 64 tiles, `matmul_acc` over K.
#[pto::kernel]
pub fn gemm64(a: &Tensor<f32, M, K>, b: &Tensor<f32, K, N>, #[out] c: &mut Tensor<f32, M, N>) {
    for i in (0..M).step_by(64) {
        for j in (0..N).step_by(64) {
            let mut acc = Tile::<f32, 64, 64>::zeros();
            for k in (0..K).step_by(64) {
                let at = a.load::<64, 64>([i, k]);
                let bt = b.load::<64, 64>([k, j]);
                if k == 0 {
                    acc = matmul(at, bt);
                } else {
                    acc = matmul_acc(acc, at, bt);
                }
            }
            c.store([i, j], acc);
        }
    }
}

/// The same with f16 inputs, accumulating in f32.
#[pto::kernel]
pub fn gemm64_f16(a: &Tensor<f16, M, K>, b: &Tensor<f16, K, N>, #[out] c: &mut Tensor<f32, M, N>) {
    for i in (0..M).step_by(64) {
        for j in (0..N).step_by(64) {
            let mut acc = Tile::<f32, 64, 64>::zeros();
            for k in (0..K).step_by(64) {
                let at = a.load::<64, 64>([i, k]);
                let bt = b.load::<64, 64>([k, j]);
                if k == 0 {
                    acc = matmul(at, bt);
                } else {
                    acc = matmul_acc(acc, at, bt);
                }
            }
            c.store([i, j], acc);
        }
    }
}

const LANES: usize = 16;

/// Combines 16 lanes by halves (the runtime's row-sum order), then adds `tail` in order.
fn fold_lanes(mut acc: [f32; LANES], tail: impl Iterator<Item = f32>) -> f32 {
    let mut w = LANES / 2;
    while w > 0 {
        for l in 0..w {
            acc[l] += acc[l + w];
        }
        w /= 2;
    }
    tail.fold(acc[0], |s, x| s + x)
}

fn max16(row: &[f32]) -> f32 {
    let (groups, tail) = row.as_chunks::<LANES>();
    let mut acc = [f32::NEG_INFINITY; LANES];
    for g in groups {
        for (a, &x) in acc.iter_mut().zip(g) {
            *a = a.max(x);
        }
    }
    acc.iter()
        .chain(tail)
        .copied()
        .fold(f32::NEG_INFINITY, f32::max)
}

fn sum16(row: &[f32]) -> f32 {
    let (groups, tail) = row.as_chunks::<LANES>();
    let mut acc = [0.0f32; LANES];
    for g in groups {
        for (a, &x) in acc.iter_mut().zip(g) {
            *a += x;
        }
    }
    fold_lanes(acc, tail.iter().copied())
}

fn axpb_hand(x: &[f32], a: f32, b: f32, y: &mut [f32]) {
    for (y, &x) in y.iter_mut().zip(x) {
        *y = x * a + b;
    }
}

fn softmax_hand(x: &[f32], out: &mut [f32], cols: usize) {
    for (xr, or) in x.chunks_exact(cols).zip(out.chunks_exact_mut(cols)) {
        let m = max16(xr);
        // exp and the partial sums in one pass.
        let (xg, xt) = xr.as_chunks::<LANES>();
        let (og, ot) = or.as_chunks_mut::<LANES>();
        let mut acc = [0.0f32; LANES];
        for (o, x) in og.iter_mut().zip(xg) {
            for ((o, &x), a) in o.iter_mut().zip(x).zip(&mut acc) {
                *o = pto::ir::sem::exp_f32(x - m);
                *a += *o;
            }
        }
        for (o, &x) in ot.iter_mut().zip(xt) {
            *o = pto::ir::sem::exp_f32(x - m);
        }
        let sum = fold_lanes(acc, ot.iter().copied());
        for o in or.iter_mut() {
            *o /= sum;
        }
    }
}

fn layernorm_hand(x: &[f32], out: &mut [f32], cols: usize) {
    let inv_n = 0.0009765625f32;
    for (xr, or) in x.chunks_exact(cols).zip(out.chunks_exact_mut(cols)) {
        let mean = sum16(xr) * inv_n;
        // x - mean and the partial sums of its squares in one pass.
        let (xg, xt) = xr.as_chunks::<LANES>();
        let (og, ot) = or.as_chunks_mut::<LANES>();
        let mut acc = [0.0f32; LANES];
        for (o, x) in og.iter_mut().zip(xg) {
            for ((o, &x), a) in o.iter_mut().zip(x).zip(&mut acc) {
                *o = x - mean;
                *a += *o * *o;
            }
        }
        for (o, &x) in ot.iter_mut().zip(xt) {
            *o = x - mean;
        }
        let var = fold_lanes(acc, ot.iter().map(|d| d * d)) * inv_n;
        let inv = 1.0 / (var + 0.00001).sqrt();
        for o in or.iter_mut() {
            *o *= inv;
        }
    }
}

fn acceptance_data() -> Vec<f32> {
    random(ACC_R * ACC_C, 21)
        .into_iter()
        .map(|v| v * 8.0)
        .collect()
}

const GEMM: usize = 512;

fn gemm_data() -> (Vec<f32>, Vec<f32>) {
    (random(GEMM * GEMM, 31), random(GEMM * GEMM, 32))
}

/// `c = a @ b` by `matrixmultiply::sgemm` (ndarray's `general_mat_mul`, no threads).
fn sgemm(a: &ndarray::Array2<f32>, b: &ndarray::Array2<f32>, c: &mut ndarray::Array2<f32>) {
    ndarray::linalg::general_mat_mul(1.0, a, b, 0.0, c);
}

fn array(v: Vec<f32>, n: usize) -> ndarray::Array2<f32> {
    ndarray::Array2::from_shape_vec((n, n), v).unwrap()
}

/// Runs each acceptance kernel and its hand-written twin once and asserts equal results.
fn check_acceptance() {
    let xv = acceptance_data();
    let x = tensor(&xv, [ACC_R, ACC_C]);
    let mut out = Tensor::<f32>::zeros([ACC_R, ACC_C]);
    let mut want = vec![0f32; xv.len()];

    axpb(&x, 1.5, 0.25, &mut out).unwrap();
    axpb_hand(&xv, 1.5, 0.25, &mut want);
    assert_close("axpb", out.as_slice(), &want, 0.0);

    softmax_rows(&x, &mut out).unwrap();
    softmax_hand(&xv, &mut want, ACC_C);
    assert_close("softmax", out.as_slice(), &want, 0.0);

    layernorm_rows(&x, &mut out).unwrap();
    layernorm_hand(&xv, &mut want, ACC_C);
    assert_close("layernorm", out.as_slice(), &want, 0.0);

    let (av, bv) = gemm_data();
    let mut c = Tensor::<f32>::zeros([GEMM, GEMM]);
    gemm64(
        &tensor(&av, [GEMM, GEMM]),
        &tensor(&bv, [GEMM, GEMM]),
        &mut c,
    )
    .unwrap();
    let mut want = ndarray::Array2::<f32>::zeros((GEMM, GEMM));
    sgemm(&array(av, GEMM), &array(bv, GEMM), &mut want);
    // sgemm blocks K and fuses multiply-adds: the same sums in another order.
    let want = want.into_raw_vec_and_offset().0;
    assert_close("gemm", c.as_slice(), &want, 1e-4);
}

/// `f16` copies of the GEMM inputs.
fn gemm_data_f16() -> (Vec<f16>, Vec<f16>) {
    let (a, b) = gemm_data();
    let h = |v: Vec<f32>| v.into_iter().map(f16::from_f32).collect();
    (h(a), h(b))
}

/// `c = a @ b` by `sgemm` over the tensors' data (`n x n`, row-major).
fn sgemm_tensors(a: &Tensor<f32>, b: &Tensor<f32>, c: &mut Tensor<f32>, n: usize) {
    let a = ndarray::ArrayView2::from_shape((n, n), a.as_slice()).unwrap();
    let b = ndarray::ArrayView2::from_shape((n, n), b.as_slice()).unwrap();
    let mut c = ndarray::ArrayViewMut2::from_shape((n, n), c.as_mut_slice()).unwrap();
    ndarray::linalg::general_mat_mul(1.0, &a, &b, 0.0, &mut c);
}

// Each group below gives pto and its baseline the same input and output buffers (see
// `paired/mod.rs`): the hand loops read and write the tensors' data.

/// The kernels of the performance issue, each against its baseline.
fn acceptance(run: &Runner) {
    let x = tensor(&acceptance_data(), [ACC_R, ACC_C]);
    let mut s = (x, Tensor::<f32>::zeros([ACC_R, ACC_C]));
    run.compare(
        "axpb_4096x1024",
        &mut s,
        |(x, y)| axpb(black_box(x), black_box(1.5), black_box(0.25), black_box(y)).unwrap(),
        |(x, y)| {
            axpb_hand(
                black_box(x.as_slice()),
                black_box(1.5),
                black_box(0.25),
                black_box(y.as_mut_slice()),
            )
        },
    );
    run.compare(
        "softmax_4096x1024",
        &mut s,
        |(x, y)| softmax_rows(black_box(x), black_box(y)).unwrap(),
        |(x, y)| softmax_hand(black_box(x.as_slice()), black_box(y.as_mut_slice()), ACC_C),
    );
    run.compare(
        "layernorm_4096x1024",
        &mut s,
        |(x, y)| layernorm_rows(black_box(x), black_box(y)).unwrap(),
        |(x, y)| layernorm_hand(black_box(x.as_slice()), black_box(y.as_mut_slice()), ACC_C),
    );

    let (av, bv) = gemm_data();
    let (a, b) = (tensor(&av, [GEMM, GEMM]), tensor(&bv, [GEMM, GEMM]));
    let mut s = (a, b, Tensor::<f32>::zeros([GEMM, GEMM]));
    run.compare(
        "gemm_512_f32 (vs sgemm)",
        &mut s,
        |(a, b, c)| gemm64(black_box(a), black_box(b), black_box(c)).unwrap(),
        |(a, b, c)| sgemm_tensors(black_box(a), black_box(b), black_box(c), GEMM),
    );

    let (ah, bh) = gemm_data_f16();
    let ah = Tensor::from_vec(ah, [GEMM, GEMM]).unwrap();
    let bh = Tensor::from_vec(bh, [GEMM, GEMM]).unwrap();
    let mut s = (ah, bh, Tensor::<f32>::zeros([GEMM, GEMM]));
    run.compare(
        "gemm_512_f16 (vs convert+sgemm)",
        &mut s,
        |(a, b, c)| gemm64_f16(black_box(a), black_box(b), black_box(c)).unwrap(),
        |(a, b, c)| {
            // Both inputs converted to f32 (timed), then sgemm.
            let wide = |t: &Tensor<f16>| {
                let v = t
                    .as_slice()
                    .iter()
                    .map(|x| x.to_f32())
                    .collect::<Vec<f32>>();
                Tensor::from_vec(v, [GEMM, GEMM]).unwrap()
            };
            let (a, b) = (wide(black_box(a)), wide(black_box(b)));
            sgemm_tensors(&a, &b, black_box(c), GEMM);
        },
    );
}

/// The examples' kernels, each against its hand loop.
fn examples(run: &Runner) {
    let (xv, vv) = broadcast_data();
    let mut s = (
        tensor(&xv, [BC_R, BC_C]),
        tensor(&vv, [1, BC_C]),
        Tensor::<f32>::zeros([BC_R, BC_C]),
        Tensor::<f32>::zeros([BC_R, BC_C]),
    );
    run.compare(
        "broadcast_4096x128",
        &mut s,
        |(x, v, c, s)| {
            broadcast::broadcast(black_box(x), black_box(v), black_box(c), black_box(s)).unwrap()
        },
        |(x, v, c, s)| {
            broadcast_hand(
                black_box(x.as_slice()),
                black_box(v.as_slice()),
                black_box(c.as_mut_slice()),
                black_box(s.as_mut_slice()),
                BC_C,
            )
        },
    );

    let x = tensor(&reductions_data(), [RED_R, RED_C]);
    let [rs, rm, cs, cm] = reductions_outputs();
    let mut s = (x, rs, rm, cs, cm);
    run.compare(
        "reductions_4096x64",
        &mut s,
        |(x, rs, rm, cs, cm)| {
            reductions::reductions(
                black_box(x),
                black_box(rs),
                black_box(rm),
                black_box(cs),
                black_box(cm),
            )
            .unwrap()
        },
        |(x, rs, rm, cs, cm)| {
            reductions_hand(
                black_box(x.as_slice()),
                RED_C,
                black_box(Reduced {
                    row_sum: rs.as_mut_slice(),
                    row_max: rm.as_mut_slice(),
                    col_sum: cs.as_mut_slice(),
                    col_max: cm.as_mut_slice(),
                }),
            )
        },
    );

    let x = tensor(&row_softmax_data(), [SM_R, SM_C]);
    let mut s = (x, Tensor::<f32>::zeros([SM_R, SM_C]));
    run.compare(
        "row_softmax_1024x256",
        &mut s,
        |(x, y)| row_softmax::row_softmax(black_box(x), black_box(y)).unwrap(),
        |(x, y)| row_softmax_hand(black_box(x.as_slice()), black_box(y.as_mut_slice()), SM_C),
    );

    let (_, x, out) = scale_rows_data();
    let mut s = (x, out);
    run.compare(
        "scale_rows_4096x128",
        &mut s,
        |(x, y)| quickstart::scale_rows(black_box(x), black_box(SCALE), black_box(y)).unwrap(),
        |(x, y)| {
            scale_rows_hand(
                black_box(x.as_slice()),
                black_box(SCALE),
                black_box(y.as_mut_slice()),
            )
        },
    );

    let (av, bv) = vector_add_data();
    let mut s = (
        Tensor::from_vec(av, [VADD_N]).unwrap(),
        Tensor::from_vec(bv, [VADD_N]).unwrap(),
        Tensor::<f32>::zeros([VADD_N]),
    );
    run.compare(
        "vector_add_2^20",
        &mut s,
        |(a, b, c)| vector_add::vector_add(black_box(a), black_box(b), black_box(c)).unwrap(),
        |(a, b, c)| {
            vector_add_hand(
                black_box(a.as_slice()),
                black_box(b.as_slice()),
                black_box(c.as_mut_slice()),
            )
        },
    );

    let (av, bv) = matmul_data();
    let mut s = (
        tensor(&av, [MM, MM]),
        tensor(&bv, [MM, MM]),
        Tensor::<f32>::zeros([MM, MM]),
    );
    run.compare(
        "matmul_256 (vs i-k-j loop)",
        &mut s,
        |(a, b, c)| matmul_tiled(black_box(a), black_box(b), black_box(c)).unwrap(),
        |(a, b, c)| {
            matmul_hand(
                black_box(a.as_slice()),
                black_box(b.as_slice()),
                black_box(c.as_mut_slice()),
                MM,
                MM,
                MM,
            )
        },
    );
}
