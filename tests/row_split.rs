//! Loads read in place whose instructions the host code runs one row at a time
//! (`pto-lower`'s `lower/row_split.rs`, `pto::isa::window_fits`): for tiles of 32 KiB and
//! more, a view's span and the row-local instructions after it run once per row on one-row
//! tiles when the loaded and stored windows are whole, on the whole tiles otherwise. The host
//! code must give exactly the interpreter's results either way (whole tiles, ragged rows,
//! ragged columns, fewer rows than a tile), with zeros of both signs and NaN; `LOWERED` must
//! show the split where it applies and not where a tile is read afterwards, the tile is
//! small, or a store goes to the loaded tensor, and the softmax's and layernorm's kept rows held
//! in the stored window; a store outside its tensor is still the store's error.
#![allow(clippy::unwrap_used)]

use pto::prelude::*;
use pto_lower::interp::HostValue;
use support::values::{bits, host_f32, interp_bits};

/// Row softmax over 8 x 1024 tiles (32 KiB): split.
#[pto::kernel]
pub fn softmax(x: &Tensor<f32, R, C>, #[out] out: &mut Tensor<f32, R, C>) {
    for r in (0..R).step_by(8) {
        let t = x.load::<8, 1024>([r, 0]);
        let e = (t - t.row_max()).exp();
        out.store([r, 0], e / e.row_sum());
    }
}

/// Row layernorm: split, the scalar ops on the `8 x 1` tiles run on `1 x 1` ones.
#[pto::kernel]
pub fn layernorm(x: &Tensor<f32, R, C>, #[out] out: &mut Tensor<f32, R, C>) {
    for r in (0..R).step_by(8) {
        let t = x.load::<8, 1024>([r, 0]);
        let d = t - t.row_sum() * 0.0009765625;
        let var = (d * d).row_sum() * 0.0009765625;
        out.store([r, 0], d * (var + 0.00001).rsqrt());
    }
}

/// A row max stored, a column broadcast stored, a softmax by the same row max: three stores,
/// a `1 x C` operand loaded before the loop.
#[pto::kernel]
pub fn several(
    x: &Tensor<f32, R, C>,
    v: &Tensor<f32, 1, C>,
    #[out] maxes: &mut Tensor<f32, R, 1>,
    #[out] scaled: &mut Tensor<f32, R, C>,
    #[out] out: &mut Tensor<f32, R, C>,
) {
    let vt = v.load::<1, 1024>([0, 0]);
    for r in (0..R).step_by(8) {
        let t = x.load::<8, 1024>([r, 0]);
        let m = t.row_max();
        maxes.store([r, 0], m);
        scaled.store([r, 0], t * vt);
        let e = (t - m).exp();
        out.store([r, 0], e / e.row_sum());
    }
}

/// A row sum carried across the loop: the sum tile is read before the load, so only the
/// view's own span could be split, and the carried tile is not dead: no split.
#[pto::kernel]
pub fn carried(
    x: &Tensor<f32, R, C>,
    #[out] out: &mut Tensor<f32, R, C>,
    #[out] s: &mut Tensor<f32, 8, 1>,
) {
    let mut acc = Tile::<f32, 8, 1>::zeros();
    for r in (0..R).step_by(8) {
        let t = x.load::<8, 1024>([r, 0]);
        acc = acc + t.row_sum();
        out.store([r, 0], t - acc);
    }
    s.store([0, 0], acc);
}

/// The softmax over 16 x 256 tiles (16 KiB): read in place, not split.
#[pto::kernel]
pub fn small(x: &Tensor<f32, R, C>, #[out] out: &mut Tensor<f32, R, C>) {
    for r in (0..R).step_by(16) {
        let t = x.load::<16, 256>([r, 0]);
        let e = (t - t.row_max()).exp();
        out.store([r, 0], e / e.row_sum());
    }
}

/// `x - rowmax(x)` stored `shift` rows down: the last windows are cut by the tensor's end
/// (run on whole tiles) or wholly outside (the store's error).
#[pto::kernel]
pub fn shifted(x: &Tensor<f32, R, C>, shift: i64, #[out] out: &mut Tensor<f32, R, C>) {
    for r in (0..R).step_by(8) {
        let s = r + shift;
        let t = x.load::<8, 1024>([r, 0]);
        let e = (t - t.row_max()).exp();
        out.store([s, 0], e / e.row_sum());
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

/// Sizes: whole tiles, ragged rows, ragged columns, both, fewer rows than a tile, 1 x 1.
const SIZES: [(usize, usize); 6] = [
    (16, 1024),
    (20, 1024),
    (16, 1000),
    (13, 700),
    (3, 1024),
    (1, 1),
];

#[test]
fn lowered_shows_the_splits() {
    for l in [
        softmax::LOWERED,
        layernorm::LOWERED,
        several::LOWERED,
        shifted::LOWERED,
    ] {
        assert!(l.contains("rows: one at a time"), "{l}");
    }
    // The whole loop body of `several` (the loaded tile is read up to the last store).
    let l = several::LOWERED;
    assert!(
        l.contains("rows: one at a time (tiles t1_t, t2_m, t3; t1_t kept in %out_6's window)"),
        "{l}"
    );
    for l in [carried::LOWERED, small::LOWERED] {
        assert!(!l.contains("rows: one at a time"), "{l}");
    }
    // A softmax's `exp(x - max)` row and a layernorm's `x - mean` row are held in the
    // stored window (`pto::isa::trowexpand_map_rowsum_view_window`).
    for l in [softmax::LOWERED, shifted::LOWERED, layernorm::LOWERED] {
        assert!(l.contains("kept in %out_"), "{l}");
    }
    assert!(small::LOWERED.contains("view: TLOAD"), "{}", small::LOWERED);
}

#[test]
fn kernels_match_the_interpreter() {
    for (r, c) in SIZES {
        for seed in [1, 2] {
            let what = format!("{r} x {c} seed {seed}");
            let x = values(r * c, seed * 1000 + (r * 97 + c) as u64);
            let vv = values(c, 3);
            let init = vec![-1.0; r * c];
            let xt = Tensor::from_vec(x.clone(), [r, c]).unwrap();
            let fresh = || Tensor::full([r, c], -1.0);

            type One = fn(&Tensor<f32>, &mut Tensor<f32>) -> Result<(), pto::Error>;
            let ones: [(&str, One, pto::ir::ProgramModule); 3] = [
                ("softmax", softmax, softmax::program()),
                ("layernorm", layernorm, layernorm::program()),
                ("small", small, small::program()),
            ];
            for (name, kernel, m) in ones {
                let mut a = fresh();
                kernel(&xt, &mut a).unwrap();
                let want = interp_bits(&m, vec![host_f32(&x, &[r, c]), host_f32(&init, &[r, c])]);
                assert_eq!(bits(&a), want[1], "{name} {what}");
            }

            let (mut mx, mut sc, mut out) = (Tensor::full([r, 1], -1.0), fresh(), fresh());
            let vt = Tensor::from_vec(vv.clone(), [1, c]).unwrap();
            several(&xt, &vt, &mut mx, &mut sc, &mut out).unwrap();
            let args = vec![
                host_f32(&x, &[r, c]),
                host_f32(&vv, &[1, c]),
                host_f32(&vec![-1.0; r], &[r, 1]),
                host_f32(&init, &[r, c]),
                host_f32(&init, &[r, c]),
            ];
            let want = interp_bits(&several::program(), args);
            for (k, t) in [&mx, &sc, &out].into_iter().enumerate() {
                assert_eq!(bits(t), want[k + 2], "several output {k} {what}");
            }

            let (mut a, mut s) = (fresh(), Tensor::full([8, 1], -1.0));
            carried(&xt, &mut a, &mut s).unwrap();
            let args = vec![
                host_f32(&x, &[r, c]),
                host_f32(&init, &[r, c]),
                host_f32(&[-1.0; 8], &[8, 1]),
            ];
            let want = interp_bits(&carried::program(), args);
            assert_eq!(bits(&a), want[1], "carried {what}");
            assert_eq!(bits(&s), want[2], "carried sums {what}");
        }
    }
}

#[test]
fn stores_cut_or_outside_run_as_the_instructions() {
    let (r, c) = (20, 1024);
    let x = values(r * c, 9);
    let init = vec![-1.0; r * c];
    let xt = Tensor::from_vec(x.clone(), [r, c]).unwrap();
    // Shifted by 0 and 2: every store inside; by 2 the tiles at rows 0 and 8 store whole
    // windows (split), the one at row 16 (4 rows) a window cut at row 20.
    for shift in [0, 2] {
        let mut a = Tensor::full([r, c], -1.0);
        shifted(&xt, shift, &mut a).unwrap();
        let args = vec![
            host_f32(&x, &[r, c]),
            HostValue::i64(shift),
            host_f32(&init, &[r, c]),
        ];
        let want = interp_bits(&shifted::program(), args);
        assert_eq!(bits(&a), want[1], "shift {shift}");
    }
    // Shifted by 5: the tile at row 0 stores rows 5..13 (split), the one at row 8 rows
    // 13..20 (cut: whole tiles), the one at row 16 at row 21 of 20, the store's error.
    let mut a = Tensor::full([r, c], -1.0);
    let err = shifted(&xt, 5, &mut a).unwrap_err();
    assert!(matches!(err, pto::Error::OutOfBounds { .. }), "{err:?}");
    let mut b = Tensor::full([r, c], -1.0);
    shifted(&xt, 0, &mut b).unwrap();
    for i in 0..r {
        let row = |t: &Tensor<f32>, k: usize| bits(t)[k * c..(k + 1) * c].to_vec();
        let want = if i >= 5 {
            row(&b, i - 5)
        } else {
            vec![(-1.0f32).to_bits(); c]
        };
        assert_eq!(row(&a, i), want, "row {i} after the error");
    }
}

mod support;
