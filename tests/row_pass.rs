//! Runs ending in a row reduction that the host code does in one pass over each row
//! (`pto-lower`'s `lower/pairs.rs`, `pto::isa::tload_rowmax` ..., `trowexpand_map_rowsum`):
//! a load and a row reduction of the loaded tile (the tile used again afterwards), and a row
//! broadcast, ops and a row sum with one tile of the run kept (in place or in another
//! tile). The host code must give exactly the interpreter's results at tile-multiple,
//! ragged and 1 x 1 sizes, `LOWERED` must show the marks, and a load outside its tensor must
//! still be the load's error.
#![allow(clippy::unwrap_used)]

use pto::prelude::*;
use pto_lower::interp::HostValue;
use support::values::{bits, host_f32, interp_bits};

/// The loaded tile is reduced three ways and used again after each reduction.
#[pto::kernel]
pub fn reductions_reused(
    x: &Tensor<f32, R, C>,
    #[out] spread: &mut Tensor<f32, R, C>,
    #[out] scaled: &mut Tensor<f32, R, C>,
) {
    for r in (0..R).step_by(4) {
        let t = x.load::<4, 32>([r, 0]);
        spread.store([r, 0], (t - t.row_min()) / (t.row_max() - t.row_min()));
        scaled.store([r, 0], t * 2.0);
        let u = x.load::<4, 32>([r, 0]);
        scaled.store([r, 0], u / u.row_sum());
    }
}

/// Softmax whose `exp(t - max)` is stored too (the kept tile is read twice after the run).
#[pto::kernel]
pub fn softmax_kept(
    x: &Tensor<f32, R, C>,
    #[out] out: &mut Tensor<f32, R, C>,
    #[out] exps: &mut Tensor<f32, R, C>,
) {
    for r in (0..R).step_by(4) {
        let t = x.load::<4, 64>([r, 0]);
        let e = (t - t.row_max()).exp();
        let s = e.row_sum();
        exps.store([r, 0], e);
        out.store([r, 0], e / s);
    }
}

/// The loaded tile is read after the run, so the run keeps another tile than its source.
#[pto::kernel]
pub fn centered_squares(
    x: &Tensor<f32, R, C>,
    #[out] out: &mut Tensor<f32, R, C>,
    #[out] copy: &mut Tensor<f32, R, C>,
) {
    for r in (0..R).step_by(8) {
        let t = x.load::<8, 32>([r, 0]);
        let d = t - t.row_sum() * 0.03125;
        let var = ((d * d) * 0.5).row_sum();
        out.store([r, 0], d * var);
        copy.store([r, 0], t + 1.0);
    }
}

/// `x - rowmax(x)` of rows loaded `shift` rows down: the last loads fall outside `x`.
#[pto::kernel]
pub fn shifted_max(x: &Tensor<f32, R, C>, shift: i64, #[out] out: &mut Tensor<f32, R, C>) {
    for r in (0..R).step_by(4) {
        let t = x.load::<4, 16>([r + shift, 0]);
        out.store([r, 0], t - t.row_max());
    }
}

/// Deterministic values in `[-4, 4)`, with zeros of both signs and ties.
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|k| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            match k % 13 {
                3 => -0.0,
                7 => 0.0,
                _ => 8.0 * ((s >> 40) as f32 / (1u64 << 24) as f32) - 4.0,
            }
        })
        .collect()
}

/// Sizes: tile multiples, ragged rows, ragged columns, both, fewer rows than a tile, 1 x 1.
const SIZES: [(usize, usize); 6] = [(16, 64), (13, 64), (16, 50), (21, 37), (3, 64), (1, 1)];

#[test]
fn lowered_shows_the_marks() {
    let l = reductions_reused::LOWERED;
    assert!(l.contains("reduce: TLOAD") && l.contains("TROWMIN"), "{l}");
    assert!(l.contains("TROWSUM"), "{l}");
    let l = softmax_kept::LOWERED;
    assert!(l.contains("reduce: TLOAD") && l.contains("TROWMAX"), "{l}");
    assert!(
        l.contains("rowsum: TROWEXPANDSUB") && l.contains("TEXP"),
        "{l}"
    );
    assert!(l.contains("(keeps"), "{l}");
    let l = centered_squares::LOWERED;
    assert!(
        l.contains("rowsum: TROWEXPANDSUB") && l.contains("(keeps"),
        "{l}"
    );
    // The C++ still prints the instructions.
    let c = softmax_kept::CPP;
    assert!(c.contains("TROWMAX") && c.contains("TEXP") && c.contains("TROWSUM"));
}

#[test]
fn kernels_match_the_interpreter() {
    type Kernel = fn(&Tensor<f32>, &mut Tensor<f32>, &mut Tensor<f32>) -> Result<(), pto::Error>;
    let kernels: [(&str, Kernel, pto::ir::ProgramModule, usize); 3] = [
        (
            "reductions_reused",
            reductions_reused,
            reductions_reused::program(),
            32,
        ),
        ("softmax_kept", softmax_kept, softmax_kept::program(), 64),
        (
            "centered_squares",
            centered_squares,
            centered_squares::program(),
            32,
        ),
    ];
    for (name, kernel, m, cols) in &kernels {
        for (r, c) in SIZES {
            let c = c.min(*cols);
            let x = values(r * c, (r * 97 + c) as u64);
            let (mut a, mut b) = (Tensor::full([r, c], -1.0), Tensor::full([r, c], -1.0));
            kernel(
                &Tensor::from_vec(x.clone(), [r, c]).unwrap(),
                &mut a,
                &mut b,
            )
            .unwrap();
            let init = vec![-1.0; r * c];
            let args = [(&x, [r, c]), (&init, [r, c]), (&init, [r, c])];
            let want = interp_bits(m, args.iter().map(|(d, s)| host_f32(d, s)).collect());
            assert_eq!(bits(&a), want[1], "{name} {r} x {c}");
            assert_eq!(bits(&b), want[2], "{name} {r} x {c}");
        }
    }
}

#[test]
fn a_load_outside_its_tensor_is_the_loads_error() {
    let (r, c) = (10, 16);
    let xs = values(r * c, 5);
    let x = Tensor::from_vec(xs.clone(), [r, c]).unwrap();
    // Row tiles at 0, 4 and 8 load at 3, 7 (3 rows in bounds) and 11 (outside the 10 rows).
    let mut out = Tensor::<f32>::full([r, c], -1.0);
    let err = shifted_max(&x, 3, &mut out).unwrap_err();
    assert!(matches!(err, pto::Error::OutOfBounds { .. }), "{err:?}");
    for i in 0..r {
        let want: Vec<f32> = if i < 7 {
            let row = &xs[(i + 3) * c..(i + 4) * c];
            let m = row.iter().fold(f32::NEG_INFINITY, |a, &x| a.max(x));
            row.iter().map(|&x| x - m).collect()
        } else {
            vec![-1.0; c]
        };
        assert_eq!(&out.as_slice()[i * c..(i + 1) * c], &want[..], "row {i}");
    }
    // In bounds, the same kernel matches the interpreter.
    let mut out = Tensor::<f32>::full([r, c], -1.0);
    shifted_max(&x, 0, &mut out).unwrap();
    let m = shifted_max::program();
    let args = vec![
        host_f32(&xs, &[r, c]),
        HostValue::i64(0),
        host_f32(&vec![-1.0; r * c], &[r, c]),
    ];
    let want = interp_bits(&m, args).swap_remove(1);
    assert_eq!(bits(&out), want);
}

mod support;

/// Issue 14's audit: this file's kernels as `NAME::CPP` for A2A3 and A5 in the C++ model of
/// pto-isa, at tile-multiple and ragged sizes, against their host functions (`shifted_max`
/// loads 1 row down: its last window falls partly outside `x`).
#[test]
fn every_kernel_here_runs_in_the_cpp_model() {
    use support::model::Model;
    let mut problems = Vec::new();
    problems.extend(
        Model::new(
            "reductions_reused",
            &reductions_reused::program(),
            vec![vec![("R", 32), ("C", 32)], vec![("R", 37), ("C", 20)]],
        )
        .against_host(|t| {
            reductions_reused(&t.tensor(0), &mut t.out::<f32>(1), &mut t.out::<f32>(2))
        }),
    );
    problems.extend(
        Model::new(
            "softmax_kept",
            &softmax_kept::program(),
            vec![vec![("R", 32), ("C", 64)], vec![("R", 37), ("C", 50)]],
        )
        .against_host(|t| softmax_kept(&t.tensor(0), &mut t.out::<f32>(1), &mut t.out::<f32>(2))),
    );
    problems.extend(
        Model::new(
            "centered_squares",
            &centered_squares::program(),
            vec![vec![("R", 32), ("C", 32)], vec![("R", 37), ("C", 20)]],
        )
        .against_host(|t| {
            centered_squares(&t.tensor(0), &mut t.out::<f32>(1), &mut t.out::<f32>(2))
        }),
    );
    problems.extend(
        Model::new(
            "shifted_max",
            &shifted_max::program(),
            vec![vec![("R", 32), ("C", 16)], vec![("R", 34), ("C", 10)]],
        )
        .arg(1, HostValue::i64(1))
        .against_host(|t| shifted_max(&t.tensor(0), t.scalar(1) as i64, &mut t.out::<f32>(2))),
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
