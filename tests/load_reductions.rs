//! A load and several row and column reductions of the loaded tile, with other instructions
//! between (`pto-lower`'s `lower/pairs.rs`, `pto::isa::tload_reductions`): the host code
//! reduces each row every way in one pass and hands each result out where its reduction
//! stands; it copies the window into the tile only when something else reads the tile. The
//! host code must give exactly the interpreter's results at tile-multiple, ragged and 1 x 1
//! sizes (zeros of both signs, NaN), `LOWERED` must show the marks, and a load outside its
//! tensor must still be the load's error.
#![allow(clippy::unwrap_used)]

use pto::prelude::*;
use pto_lower::interp::HostValue;
use support::values::{bits, host_f32, interp_bits};

mod support;

/// Row sums and maxima per row tile; column sums and minima carried across row tiles. The
/// loaded tile is read only by the reductions (the pass does not copy it).
#[pto::kernel]
pub fn four_ways(
    x: &Tensor<f32, R, C>,
    #[out] rows: &mut Tensor<f32, R, 2>,
    #[out] cols: &mut Tensor<f32, 2, C>,
) {
    let mut sums = Tile::<f32, 1, 32>::zeros();
    let mut mins = Tile::<f32, 1, 32>::full(3.0e38);
    for r in (0..R).step_by(4) {
        let t = x.load::<4, 32>([r, 0]);
        rows.store([r, 0], t.row_sum());
        rows.store([r, 1], t.row_max());
        sums = sums + t.col_sum();
        mins = mins.min(t.col_min());
    }
    cols.store([0, 0], sums);
    cols.store([1, 0], mins);
}

/// The loaded tile is read between the reductions and after them (the pass copies it).
#[pto::kernel]
pub fn reused(
    x: &Tensor<f32, R, C>,
    #[out] out: &mut Tensor<f32, R, C>,
    #[out] rows: &mut Tensor<f32, R, 1>,
    #[out] cols: &mut Tensor<f32, R, C>,
) {
    for r in (0..R).step_by(4) {
        let t = x.load::<4, 16>([r, 0]);
        rows.store([r, 0], t.row_min());
        out.store([r, 0], t * 2.0);
        cols.store([r, 0], t.col_max());
        out.store([r, 0], t - t.col_sum());
    }
}

/// Two reductions of rows loaded `shift` rows down: the last loads fall outside `x`.
#[pto::kernel]
pub fn shifted(x: &Tensor<f32, R, C>, shift: i64, #[out] out: &mut Tensor<f32, R, 2>) {
    for r in (0..R).step_by(4) {
        let t = x.load::<4, 16>([r + shift, 0]);
        out.store([r, 0], t.row_max());
        out.store([r, 1], t.row_sum());
    }
}

/// Deterministic values in `[-4, 4)`, with zeros of both signs, ties and NaN.
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
                11 if k % 5 == 0 => f32::NAN,
                _ => 8.0 * ((s >> 40) as f32 / (1u64 << 24) as f32) - 4.0,
            }
        })
        .collect()
}

/// Sizes: tile multiples, ragged rows, ragged columns, both, fewer rows than a tile, 1 x 1.
const SIZES: [(usize, usize); 6] = [(16, 32), (13, 32), (16, 21), (21, 13), (3, 32), (1, 1)];

#[test]
fn lowered_shows_the_marks() {
    let l = four_ways::LOWERED;
    let mark = "reduce: TLOAD t2_t <- %x_0[%r_11, 0]; TROWSUM t3 = t2_t; TROWMAX t3 = t2_t; \
                TCOLSUM t4 = t2_t; TCOLMIN t4 = t2_t\n";
    assert!(l.contains(mark), "{l}");
    let l = reused::LOWERED;
    assert!(
        l.contains("TROWMIN") && l.contains("TCOLSUM") && l.contains("(keeps"),
        "{l}"
    );
    assert!(shifted::LOWERED.contains("TROWMAX t1 = t0_t; TROWSUM"));
    // The C++ still prints the instructions.
    let c = four_ways::CPP;
    assert!(c.contains("TROWSUM") && c.contains("TROWMAX") && c.contains("TCOLMIN"));
}

#[test]
fn kernels_match_the_interpreter() {
    for (r, c) in SIZES {
        let what = format!("{r} x {c}");
        let xs = values(r * c, (r * 97 + c) as u64);
        let c32 = c.min(32);
        let x32: Vec<f32> = xs.chunks(c).flat_map(|row| &row[..c32]).copied().collect();
        let (mut rows, mut cols) = (Tensor::full([r, 2], -1.0), Tensor::full([2, c32], -1.0));
        let x2 = Tensor::from_vec(x32.clone(), [r, c32]).unwrap();
        four_ways(&x2, &mut rows, &mut cols).unwrap();
        let args = vec![
            host_f32(&x32, &[r, c32]),
            host_f32(&vec![-1.0; r * 2], &[r, 2]),
            host_f32(&vec![-1.0; 2 * c32], &[2, c32]),
        ];
        let want = interp_bits(&four_ways::program(), args);
        assert_eq!(bits(&rows), want[1], "four_ways rows {what}");
        assert_eq!(bits(&cols), want[2], "four_ways cols {what}");

        let c16 = c.min(16);
        let x16: Vec<f32> = xs.chunks(c).flat_map(|row| &row[..c16]).copied().collect();
        let x3 = Tensor::from_vec(x16.clone(), [r, c16]).unwrap();
        let mut out = Tensor::full([r, c16], -1.0);
        let mut rs = Tensor::full([r, 1], -1.0);
        let mut cs = Tensor::full([r, c16], -1.0);
        reused(&x3, &mut out, &mut rs, &mut cs).unwrap();
        let args = vec![
            host_f32(&x16, &[r, c16]),
            host_f32(&vec![-1.0; r * c16], &[r, c16]),
            host_f32(&vec![-1.0; r], &[r, 1]),
            host_f32(&vec![-1.0; r * c16], &[r, c16]),
        ];
        let want = interp_bits(&reused::program(), args);
        assert_eq!(bits(&out), want[1], "reused out {what}");
        assert_eq!(bits(&rs), want[2], "reused rows {what}");
        assert_eq!(bits(&cs), want[3], "reused cols {what}");
    }
}

#[test]
fn a_load_outside_its_tensor_is_the_loads_error() {
    let (r, c) = (10, 16);
    let xs = values(r * c, 5);
    let x = Tensor::from_vec(xs.clone(), [r, c]).unwrap();
    // Row tiles at 0, 4 and 8 load at 3, 7 (3 rows in bounds) and 11 (outside the 10 rows).
    let mut out = Tensor::<f32>::full([r, 2], -1.0);
    let err = shifted(&x, 3, &mut out).unwrap_err();
    assert!(matches!(err, pto::Error::OutOfBounds { .. }), "{err:?}");
    // Rows 0..7 have the reductions of x's rows 3..10 (the kernel on them alone), the rest
    // was never stored.
    let below = Tensor::from_vec(xs[3 * c..].to_vec(), [7, c]).unwrap();
    let mut want = Tensor::<f32>::full([7, 2], -1.0);
    shifted(&below, 0, &mut want).unwrap();
    let mut want = bits(&want);
    want.extend([(-1.0f32).to_bits(); 6]);
    assert_eq!(bits(&out), want);
    let m = shifted::program();
    let args = vec![
        host_f32(&xs, &[r, c]),
        HostValue::i64(0),
        host_f32(&vec![-1.0; r * 2], &[r, 2]),
    ];
    // In bounds, the same kernel matches the interpreter.
    let mut out = Tensor::<f32>::full([r, 2], -1.0);
    shifted(&x, 0, &mut out).unwrap();
    assert_eq!(bits(&out), interp_bits(&m, args)[1]);
}
