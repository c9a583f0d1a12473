//! Loads the host code reads in place (`pto-lower`'s `lower/load_views.rs`, `pto::isa::tload_view`,
//! `trowmax_view`, `trowexpand_store_view` ...): a loaded tile that only row reductions,
//! row-summed runs and broadcasts written into stores read is not copied; they read the tensor's window. The host code must give exactly the interpreter's results at
//! tile-multiple, ragged and 1 x 1 sizes, with zeros of both signs and NaN, `LOWERED` must
//! show the mark where it applies (and not where the tile is read otherwise), and a load or
//! a store outside its tensor must still be that instruction's error. (Rank-1 and rank-3
//! windows: the unit tests of `src/isa/view.rs`; the DSL's row reductions and broadcasts
//! take rank-2 tiles.)
#![allow(clippy::unwrap_used)]

use pto::prelude::*;
use pto_lower::interp::HostValue;
use support::values::{bits, host_f32, interp_bits};

/// `x - rowmax(x)` and `x * v` (the broadcast kernel): a row max, a row broadcast stored, a
/// column broadcast in place stored.
#[pto::kernel]
pub fn centered_scaled(
    x: &Tensor<f32, R, C>,
    v: &Tensor<f32, 1, C>,
    #[out] centered: &mut Tensor<f32, R, C>,
    #[out] scaled: &mut Tensor<f32, R, C>,
) {
    let vt = v.load::<1, 32>([0, 0]);
    for r in (0..R).step_by(4) {
        let t = x.load::<4, 32>([r, 0]);
        centered.store([r, 0], t - t.row_max());
        scaled.store([r, 0], t * vt);
    }
}

/// A layernorm: the loaded tile is summed, then overwritten by `x - mean` (whose squares
/// are summed), then scaled into the store; read in place by the sum and the `x - mean`
/// run, which writes the tile (`trowexpand_map_rowsum_view_into`).
#[pto::kernel]
pub fn layernorm(x: &Tensor<f32, R, C>, #[out] out: &mut Tensor<f32, R, C>) {
    for r in (0..R).step_by(8) {
        let t = x.load::<8, 32>([r, 0]);
        let d = t - t.row_sum() * 0.03125;
        let var = (d * d).row_sum() * 0.03125;
        out.store([r, 0], d * (var + 0.00001).rsqrt());
    }
}

/// A softmax whose `exp(t - max)` goes to another tile than the loaded one, and a row min
/// of the loaded tile stored beside it; not read in place: the load and its two row
/// reductions are one pass (`tload_reductions`), which keeps the tile for the other readers.
#[pto::kernel]
pub fn softmax_min(
    x: &Tensor<f32, R, C>,
    #[out] out: &mut Tensor<f32, R, C>,
    #[out] low: &mut Tensor<f32, R, C>,
) {
    for r in (0..R).step_by(4) {
        let t = x.load::<4, 32>([r, 0]);
        let e = (t - t.row_max()).exp();
        low.store([r, 0], t - t.row_min());
        out.store([r, 0], e / e.row_sum());
    }
}

/// A row sum of the loaded tile after another load and a store of that tile: read in place
/// (the reduction is not next to the load).
#[pto::kernel]
pub fn other_load_between(
    x: &Tensor<f32, R, C>,
    y: &Tensor<f32, R, C>,
    #[out] out: &mut Tensor<f32, R, C>,
    #[out] shifted: &mut Tensor<f32, R, C>,
) {
    for r in (0..R).step_by(4) {
        let t = x.load::<4, 32>([r, 0]);
        let u = y.load::<4, 32>([r, 0]);
        shifted.store([r, 0], u + 1.0);
        out.store([r, 0], t / t.row_sum());
    }
}

/// The loaded tile is also stored as it is: it is loaded, not read in place.
#[pto::kernel]
pub fn copied_too(
    x: &Tensor<f32, R, C>,
    #[out] out: &mut Tensor<f32, R, C>,
    #[out] copy: &mut Tensor<f32, R, C>,
) {
    for r in (0..R).step_by(4) {
        let t = x.load::<4, 32>([r, 0]);
        out.store([r, 0], t - t.row_max());
        copy.store([r, 0], t);
    }
}

/// Loads `shift` rows down and stores `store_shift` rows down: the last windows fall partly
/// or wholly outside the tensors.
#[pto::kernel]
pub fn shifted(
    x: &Tensor<f32, R, C>,
    v: &Tensor<f32, 1, C>,
    shift: i64,
    store_shift: i64,
    #[out] centered: &mut Tensor<f32, R, C>,
    #[out] scaled: &mut Tensor<f32, R, C>,
) {
    let vt = v.load::<1, 32>([0, 0]);
    for r in (0..R).step_by(4) {
        // Before the load: a scalar op ends the span read in place (`lower/load_views.rs`).
        let s = r + store_shift;
        let t = x.load::<4, 32>([r + shift, 0]);
        centered.store([r, 0], t - t.row_max());
        scaled.store([s, 0], t * vt);
    }
}

/// Deterministic values in `[-4, 4)`, with zeros of both signs and NaN.
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|k| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            match k % 17 {
                3 => -0.0,
                7 => 0.0,
                11 if k % 3 == 0 => f32::NAN,
                _ => 8.0 * ((s >> 40) as f32 / (1u64 << 24) as f32) - 4.0,
            }
        })
        .collect()
}

/// Rows of zeros of both signs only (a row max of zero, whose sign the order decides).
fn zeros(n: usize) -> Vec<f32> {
    (0..n)
        .map(|k| if k % 3 == 1 { 0.0 } else { -0.0 })
        .collect()
}

/// Sizes: tile multiples, ragged rows, ragged columns, both, fewer rows than a tile, 1 x 1.
const SIZES: [(usize, usize); 6] = [(16, 32), (13, 32), (16, 21), (21, 13), (3, 32), (1, 1)];

#[test]
fn lowered_shows_the_marks() {
    let l = centered_scaled::LOWERED;
    assert!(
        l.contains("view: TLOAD") && l.contains("(read in place)"),
        "{l}"
    );
    let l = shifted::LOWERED;
    assert!(l.contains("view: TLOAD"), "{l}");
    let l = other_load_between::LOWERED;
    assert!(
        l.contains("view: TLOAD") && !l.contains("reduce: TLOAD"),
        "{l}"
    );
    // Read by a row-summed run that writes the loaded tile.
    let l = layernorm::LOWERED;
    assert!(l.contains("view: TLOAD"), "{l}");
    // Read otherwise: stored as it is, or loaded and reduced twice in one pass.
    for l in [copied_too::LOWERED, softmax_min::LOWERED] {
        assert!(!l.contains("view: TLOAD"), "{l}");
    }
    // The C++ still loads the tile.
    assert!(centered_scaled::CPP.contains("TLOAD"));
}

fn input(r: usize, c: usize, zero: bool) -> Vec<f32> {
    if zero {
        zeros(r * c)
    } else {
        values(r * c, (r * 97 + c) as u64)
    }
}

#[test]
fn kernels_match_the_interpreter() {
    for (r, c) in SIZES {
        for zero in [false, true] {
            let what = format!("{r} x {c} zeros {zero}");
            let x = input(r, c, zero);
            let vv = values(c, 3);
            let init = vec![-1.0; r * c];
            let xt = Tensor::from_vec(x.clone(), [r, c]).unwrap();
            let (mut a, mut b) = (Tensor::full([r, c], -1.0), Tensor::full([r, c], -1.0));

            centered_scaled(
                &xt,
                &Tensor::from_vec(vv.clone(), [1, c]).unwrap(),
                &mut a,
                &mut b,
            )
            .unwrap();
            let args = vec![
                host_f32(&x, &[r, c]),
                host_f32(&vv, &[1, c]),
                host_f32(&init, &[r, c]),
                host_f32(&init, &[r, c]),
            ];
            let want = interp_bits(&centered_scaled::program(), args);
            assert_eq!(bits(&a), want[2], "centered_scaled {what}");
            assert_eq!(bits(&b), want[3], "centered_scaled {what}");

            let mut a = Tensor::full([r, c], -1.0);
            layernorm(&xt, &mut a).unwrap();
            let args = vec![host_f32(&x, &[r, c]), host_f32(&init, &[r, c])];
            let want = interp_bits(&layernorm::program(), args);
            assert_eq!(bits(&a), want[1], "layernorm {what}");

            let y = values(r * c, 77);
            let (mut a, mut b) = (Tensor::full([r, c], -1.0), Tensor::full([r, c], -1.0));
            let yt = Tensor::from_vec(y.clone(), [r, c]).unwrap();
            other_load_between(&xt, &yt, &mut a, &mut b).unwrap();
            let args = [&x, &y, &init, &init]
                .map(|d| host_f32(d, &[r, c]))
                .to_vec();
            let want = interp_bits(&other_load_between::program(), args);
            assert_eq!(bits(&a), want[2], "other_load_between {what}");
            assert_eq!(bits(&b), want[3], "other_load_between {what}");

            type Two =
                fn(&Tensor<f32>, &mut Tensor<f32>, &mut Tensor<f32>) -> Result<(), pto::Error>;
            let twos: [(&str, Two, pto::ir::ProgramModule); 2] = [
                ("softmax_min", softmax_min, softmax_min::program()),
                ("copied_too", copied_too, copied_too::program()),
            ];
            for (name, kernel, m) in twos {
                let (mut a, mut b) = (Tensor::full([r, c], -1.0), Tensor::full([r, c], -1.0));
                kernel(&xt, &mut a, &mut b).unwrap();
                let args = [&x, &init, &init].map(|d| host_f32(d, &[r, c])).to_vec();
                let want = interp_bits(&m, args);
                assert_eq!(bits(&a), want[1], "{name} {what}");
                assert_eq!(bits(&b), want[2], "{name} {what}");
            }
        }
    }
}

/// `shifted` on the host against the interpreter; the host's error, if any.
fn shifted_both(shift: i64, store_shift: i64) -> Result<(), pto::Error> {
    let (r, c) = (10, 32);
    let x = values(r * c, 5);
    let vv = values(c, 6);
    let init = vec![-1.0; r * c];
    let (mut a, mut b) = (Tensor::full([r, c], -1.0), Tensor::full([r, c], -1.0));
    let got = shifted(
        &Tensor::from_vec(x.clone(), [r, c]).unwrap(),
        &Tensor::from_vec(vv.clone(), [1, c]).unwrap(),
        shift,
        store_shift,
        &mut a,
        &mut b,
    );
    let args = vec![
        host_f32(&x, &[r, c]),
        host_f32(&vv, &[1, c]),
        HostValue::i64(shift),
        HostValue::i64(store_shift),
        host_f32(&init, &[r, c]),
        host_f32(&init, &[r, c]),
    ];
    let m = shifted::program();
    let what = format!("shift {shift} store_shift {store_shift}");
    // After an error, what the host wrote before it is checked row by row below.
    if got.is_ok() {
        let want = interp_bits(&m, args);
        assert_eq!(bits(&a), want[2], "{what}");
        assert_eq!(bits(&b), want[3], "{what}");
    }
    got
}

#[test]
fn windows_partly_or_wholly_outside_are_the_instructions_errors() {
    // In bounds, and loads of 3 rows in bounds at the end (the view covers them).
    shifted_both(0, 0).unwrap();
    shifted_both(0, 2).unwrap_err();
    // A load wholly outside (row 11 of 10): the load's error.
    let err = shifted_both(3, 0).unwrap_err();
    assert!(matches!(err, pto::Error::OutOfBounds { .. }), "{err:?}");
    // A store wholly outside (row 12 of 10) after a load read in place: the store's error,
    // and the stores before it done.
    let (r, c) = (10, 32);
    let x = values(r * c, 5);
    let vv = values(c, 6);
    let (mut a, mut b) = (Tensor::full([r, c], -1.0), Tensor::full([r, c], -1.0));
    let err = shifted(
        &Tensor::from_vec(x.clone(), [r, c]).unwrap(),
        &Tensor::from_vec(vv.clone(), [1, c]).unwrap(),
        0,
        4,
        &mut a,
        &mut b,
    )
    .unwrap_err();
    assert!(matches!(err, pto::Error::OutOfBounds { .. }), "{err:?}");
    for i in 0..r {
        let row = &x[i * c..(i + 1) * c];
        let m = row.iter().fold(f32::NEG_INFINITY, |a, &x| a.max(x));
        // Tiles at rows 0 and 4 store scaled rows 4..8 and 8..10; the tile at row 8 fails
        // at its scaled store, after its centered store.
        let want: Vec<u32> = row.iter().map(|&x| (x - m).to_bits()).collect();
        let got: Vec<u32> = a.as_slice()[i * c..(i + 1) * c]
            .iter()
            .map(|x| x.to_bits())
            .collect();
        assert_eq!(got, want, "centered row {i}");
        let src = i.checked_sub(4);
        let want: Vec<u32> = match src {
            Some(s) => x[s * c..(s + 1) * c]
                .iter()
                .zip(&vv)
                .map(|(&x, &v)| (x * v).to_bits())
                .collect(),
            None => vec![(-1.0f32).to_bits(); c],
        };
        let got: Vec<u32> = b.as_slice()[i * c..(i + 1) * c]
            .iter()
            .map(|x| x.to_bits())
            .collect();
        assert_eq!(got, want, "scaled row {i}");
    }
}

mod support;
