//! Issue 16 part A from a kernel: each op run by the host function and checked against plain
//! Rust, and by the reference interpreter on the kernel's IR (which must agree exactly), at
//! tile-multiple and ragged sizes. The C++ of the same kernels runs in `tests/cpp_model.rs`.
#![allow(clippy::unwrap_used)]

#[path = "ops/kernels.rs"]
mod kernels;

mod support;

use pto::Tensor;
use pto::ir::DataType;
use pto_lower::interp::HostValue;
use support::run::{arg, f32s, f64s, interp, same, values, zeros};

const SIZES: [(usize, usize); 4] = [(32, 128), (37, 100), (5, 64), (16, 33)];

/// A kernel of two `r x c` inputs and three `r x c` outputs.
type TwoInThreeOut = fn(
    &Tensor<f32>,
    &Tensor<f32>,
    &mut Tensor<f32>,
    &mut Tensor<f32>,
    &mut Tensor<f32>,
) -> Result<(), pto::Error>;

/// Runs `kernel` on `x` and `y` (`r x c`) by its host function and in the interpreter on its
/// IR `m`, asserting the two agree bit for bit; the host function's three outputs.
fn two_in_three_out(
    kernel: TwoInThreeOut,
    m: &pto::ir::ProgramModule,
    x: &[f32],
    y: &[f32],
    (r, c): (usize, usize),
) -> [Vec<f32>; 3] {
    let (xt, yt) = (
        Tensor::from_vec(x.to_vec(), [r, c]).unwrap(),
        Tensor::from_vec(y.to_vec(), [r, c]).unwrap(),
    );
    let mut outs: Vec<Tensor<f32>> = (0..3).map(|_| Tensor::zeros([r, c])).collect();
    let [a, b, d] = &mut outs[..] else {
        unreachable!()
    };
    kernel(&xt, &yt, a, b, d).unwrap();
    let zero = || zeros::<f32>([r, c]);
    let got = interp(m, vec![arg(&xt), arg(&yt), zero(), zero(), zero()]);
    for (k, t) in outs.iter().enumerate() {
        same(
            &f32s(&got[k + 2]),
            t.as_slice(),
            &format!("interpreter output {k} at {r} x {c}"),
        );
    }
    [0, 1, 2].map(|k| outs[k].as_slice().to_vec())
}

#[test]
fn pow_and_fmod_match_their_definitions() {
    for (r, c) in SIZES {
        let x = values(r * c, (r * 7 + c) as u64, -4.0, 4.0);
        let y = values(r * c, (r * 11 + c) as u64, -3.0, 3.0);
        let [p, q, m] = two_in_three_out(
            kernels::pow_fmod,
            &kernels::pow_fmod::program(),
            &x,
            &y,
            (r, c),
        );
        let what = format!("{r} x {c}");
        let want_p: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a.abs().powf(*b)).collect();
        let want_q: Vec<f32> = x.iter().map(|a| a.powf(3.0)).collect();
        // `%` on floats is the NPU's `a - trunc(a / b) * b`, each step rounded (not Rust's
        // exact remainder; guide 4.4).
        let want_m: Vec<f32> = x
            .iter()
            .zip(&y)
            .map(|(a, b)| {
                let q = (a / b).trunc();
                a - q * b
            })
            .collect();
        same(&p, &want_p, &format!("pow {what}"));
        same(&q, &want_q, &format!("pows {what}"));
        same(&m, &want_m, &format!("fmod {what}"));
    }
}

/// `%` and `floor_mod` of `f16` tiles: the `f32` sequences of `f32` tiles on the widened
/// operands, rounded to `f16` once (the `legalize` pass's `f32` route), host and interpreter
/// alike.
#[test]
fn f16_remainders_compute_in_f32() {
    use pto::f16;
    let rem = |a: f32, b: f32| a - (a / b).trunc() * b;
    let floor_mod = |a: f32, b: f32| {
        let r = a - (a / b).floor() * b;
        if r * b < 0.0 { r + b } else { r }
    };
    for (r, c) in SIZES {
        let h = |v: Vec<f32>| v.into_iter().map(f16::from_f32).collect::<Vec<_>>();
        let x = h(values(r * c, (r * 5 + c) as u64, -6.0, 6.0));
        let y = h(values(r * c, (r * 3 + c) as u64, -2.0, 2.0));
        let (xt, yt) = (
            Tensor::from_vec(x.clone(), [r, c]).unwrap(),
            Tensor::from_vec(y.clone(), [r, c]).unwrap(),
        );
        let mut outs: Vec<Tensor<f16>> = (0..3).map(|_| Tensor::zeros([r, c])).collect();
        let [m, n, p] = &mut outs[..] else {
            unreachable!()
        };
        kernels::rem_f16(&xt, &yt, m, n, p).unwrap();
        let zero = || zeros::<f16>([r, c]);
        let got = interp(
            &kernels::rem_f16::program(),
            vec![arg(&xt), arg(&yt), zero(), zero(), zero()],
        );
        let f = |t: &Tensor<f16>| t.as_slice().iter().map(|v| v.to_f32()).collect::<Vec<_>>();
        let wants = [
            x.iter()
                .zip(&y)
                .map(|(a, b)| rem(a.to_f32(), b.to_f32()))
                .collect::<Vec<_>>(),
            x.iter()
                .zip(&y)
                .map(|(a, b)| floor_mod(a.to_f32(), b.to_f32()))
                .collect(),
            x.iter().map(|a| floor_mod(a.to_f32(), -2.5)).collect(),
        ];
        for (k, (t, want)) in outs.iter().zip(wants).enumerate() {
            let want: Vec<f32> = want
                .into_iter()
                .map(|v| f16::from_f32(v).to_f32())
                .collect();
            same(&f(t), &want, &format!("f16 remainder {k} at {r} x {c}"));
            same(
                &f32s(&got[2 + k]),
                &want,
                &format!("interpreter {k} at {r} x {c}"),
            );
        }
    }
}

#[test]
fn compare_and_select_match_rust() {
    for (r, c) in SIZES {
        let mut x = values(r * c, (r * 5 + c) as u64, -3.0, 3.0);
        let y = values(r * c, (r * 3 + c) as u64, -3.0, 3.0);
        // Some equal pairs and a NaN, which compares false (and unequal).
        for i in (0..r * c).step_by(7) {
            x[i] = y[i];
        }
        x[1] = f32::NAN;
        let [l, k, p] =
            two_in_three_out(kernels::masks, &kernels::masks::program(), &x, &y, (r, c));
        let what = format!("{r} x {c}");
        let want_l: Vec<f32> = x
            .iter()
            .map(|&a| if a > 0.0 { a } else { a * 0.1 })
            .collect();
        let want_k: Vec<f32> = x
            .iter()
            .map(|&a| {
                // The kernel's mask in Rust: a NaN is not outside (`contains` would say it is).
                #[allow(clippy::manual_range_contains)]
                let outside = a < -1.0 || a >= 1.0;
                let sign = if a >= 0.0 { 1.0 } else { -1.0 };
                if !outside { a } else { sign }
            })
            .collect();
        let want_p: Vec<f32> = x
            .iter()
            .zip(&y)
            .map(|(&a, &b)| if a == b || (a > b && a <= 2.0) { a } else { b })
            .collect();
        same(&l, &want_l, &format!("leaky relu {what}"));
        same(&k, &want_k, &format!("clamp {what}"));
        same(&p, &want_p, &format!("picked {what}"));
    }
}

#[test]
#[ignore = "prints the kernels' IR and C++ for the guide"]
fn print_ops_text() {
    println!("{}", kernels::masks::IR);
    println!("{}", kernels::masks::CPP);
    println!("{}", kernels::products::IR);
}

#[test]
fn products_arg_reductions_and_expands_match_rust() {
    for (r, c) in [(32, 64), (37, 50), (5, 64), (16, 1)] {
        let mut x = values(r * c, (r * 13 + c) as u64, 0.5, 1.5);
        // Ties (the first index wins) and NaNs (never win; an all-NaN row gives 0).
        if c > 3 {
            x[2] = x[0]
                .max(x[1])
                .max(x[3..c].iter().copied().fold(f32::MIN, f32::max));
            x[3] = x[2];
            x[c + 1] = f32::NAN;
        }
        if r > 2 {
            for v in &mut x[2 * c..3 * c] {
                *v = f32::NAN;
            }
        }
        let xt = Tensor::from_vec(x.clone(), [r, c]).unwrap();
        let mut rows = Tensor::<f32>::zeros([r, c]);
        let mut cols = Tensor::<f32>::zeros([r, c]);
        let mut amax = Tensor::<i32>::zeros([r, 1]);
        let mut amin = Tensor::<i32>::zeros([r, 1]);
        kernels::products(&xt, &mut rows, &mut cols, &mut amax, &mut amin).unwrap();
        let what = format!("{r} x {c}");
        let row = |i: usize| &x[i * c..(i + 1) * c];
        let first_best = |i: usize, better: fn(f32, f32) -> bool| {
            let mut at = 0;
            for (j, &v) in row(i).iter().enumerate() {
                if better(v, row(i)[at]) || (row(i)[at].is_nan() && !v.is_nan()) {
                    at = j;
                }
            }
            at as i32
        };
        let mut want_rows = vec![0.0; r * c];
        let mut want_cols = vec![0.0; r * c];
        for i in 0..r {
            let p = row(i).iter().fold(1.0f32, |a, &v| a * v);
            want_rows[i * c..(i + 1) * c].fill(p);
            let block = i / 16 * 16;
            for j in 0..c {
                want_cols[i * c + j] =
                    (block..(block + 16).min(r)).fold(1.0f32, |a, k| a * x[k * c + j]);
            }
        }
        let want_max: Vec<i32> = (0..r).map(|i| first_best(i, |v, b| v > b)).collect();
        let want_min: Vec<i32> = (0..r).map(|i| first_best(i, |v, b| v < b)).collect();
        same(rows.as_slice(), &want_rows, &format!("row_prod {what}"));
        same(cols.as_slice(), &want_cols, &format!("col_prod {what}"));
        assert_eq!(amax.as_slice(), want_max, "row_argmax {what}");
        assert_eq!(amin.as_slice(), want_min, "row_argmin {what}");
        if r > 2 {
            assert_eq!(
                (amax.as_slice()[2], amin.as_slice()[2]),
                (0, 0),
                "all-NaN row"
            );
        }
        let got = interp(
            &kernels::products::program(),
            vec![
                arg(&xt),
                zeros::<f32>([r, c]),
                zeros::<f32>([r, c]),
                zeros::<i32>([r, 1]),
                zeros::<i32>([r, 1]),
            ],
        );
        let as_i32 = |k: usize| got[k].iter().map(|&v| v as i32).collect::<Vec<_>>();
        same(
            &f32s(&got[1]),
            rows.as_slice(),
            &format!("interpreter row_prod {what}"),
        );
        same(
            &f32s(&got[2]),
            cols.as_slice(),
            &format!("interpreter col_prod {what}"),
        );
        assert_eq!(as_i32(3), amax.as_slice(), "interpreter row_argmax {what}");
        assert_eq!(as_i32(4), amin.as_slice(), "interpreter row_argmin {what}");
    }
}

#[test]
fn a_mask_of_a_narrow_tile_matches_rust() {
    for r in [16, 40] {
        let x = values(r * 16, r as u64, -2.0, 2.0);
        let xt = Tensor::from_vec(x.clone(), [r, 16]).unwrap();
        let mut y = Tensor::<f32>::zeros([r, 16]);
        kernels::narrow_abs(&xt, &mut y).unwrap();
        let want: Vec<f32> = x
            .iter()
            .map(|v| if *v < 0.0 { 0.0 - v } else { *v })
            .collect();
        same(y.as_slice(), &want, &format!("narrow abs {r} x 16"));
    }
}

#[test]
fn column_tiles_fill_and_accumulate() {
    for (r, c) in [(32, 128), (37, 100), (5, 10)] {
        // Multiples of 1/8: every partial sum is exact, whatever the order.
        let x: Vec<f32> = values(r * c, 21, -8.0, 8.0)
            .iter()
            .map(|v| (v * 8.0).round() / 8.0)
            .collect();
        let xt = Tensor::from_vec(x.clone(), [r, c]).unwrap();
        let mut out = Tensor::<f32>::zeros([r, 1]);
        kernels::column_fill(&xt, &mut out).unwrap();
        let want: Vec<f32> = (0..r)
            .map(|i| x[i * c..(i + 1) * c].iter().sum::<f32>() + 0.5)
            .collect();
        same(out.as_slice(), &want, &format!("column fill {r} x {c}"));
        let got = interp(
            &kernels::column_fill::program(),
            vec![arg(&xt), zeros::<f32>([r, 1])],
        );
        assert_eq!(got[1], f64s(&want), "interpreter, column fill {r} x {c}");
    }
}

#[test]
fn mask_parameters_pick_like_computed_masks() {
    // A checkerboard mask with one odd row (2: bit 0, the flag, clear, as the interpreter reads it).
    let flags: Vec<u8> = (0..256)
        .map(|k| {
            if k / 16 == 5 {
                2
            } else {
                ((k / 16 + k % 16) % 2) as u8
            }
        })
        .collect();
    let bits: Vec<bool> = flags.iter().map(|&f| f & 1 == 1).collect();
    let m = pto::Tile::<bool, 16, 16>::from_slice(&bits).unwrap();
    for r in [32, 37, 3] {
        let x = values(r * 16, 41, -2.0, 2.0);
        let xt = Tensor::from_vec(x.clone(), [r, 16]).unwrap();
        let mut y = Tensor::<f32>::zeros([r, 16]);
        kernels::mask_param(&xt, &m, &mut y).unwrap();
        let want: Vec<f32> = x
            .iter()
            .enumerate()
            .map(|(k, &v)| {
                let set = flags[(k / 16 % 16) * 16 + k % 16] & 1 == 1;
                if v > 0.0 && set { v } else { -1.0 }
            })
            .collect();
        same(y.as_slice(), &want, &format!("mask parameter {r} x 16"));
        let mask = pto_lower::interp::HostTile::new(
            DataType::Bool,
            vec![16, 16],
            flags.iter().map(|&f| f64::from(f & 1)).collect(),
        )
        .unwrap();
        let got = interp(
            &kernels::mask_param::program(),
            vec![arg(&xt), HostValue::Tile(mask), zeros::<f32>([r, 16])],
        );
        assert_eq!(got[2], f64s(&want), "interpreter, mask parameter {r} x 16");
    }
}

/// `mask_param` (a `&Tile<bool, 16, 16>` parameter: global memory holding the mask's packed
/// rows, which the kernel loads into a tile at entry) as `NAME::CPP` for A2A3 and A5 in the
/// C++ model of pto-isa, at a tile-multiple and a ragged size, against its host function;
/// the other kernels of this file run in `tests/cpp_model.rs`.
#[test]
fn mask_param_runs_in_the_cpp_model() {
    let problems = support::model::Model::new(
        "mask_param",
        &kernels::mask_param::program(),
        vec![vec![("R", 32)], vec![("R", 37)]],
    )
    .against_host(|t| {
        kernels::mask_param(&t.tensor(0), &t.mask::<16, 16>(1), &mut t.out::<f32>(2))
    });
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `i8` arithmetic on A2A3, whose arithmetic takes no 1-byte integers (computed exactly in
/// `f32` and wrapped by the `legalize` pass), and casts it has no `TCVT` for (`i8 -> i32`,
/// `i8 -> f32` through `f16`; an `f16` rounded to `f16` through `f32`): the host function
/// equals Rust's wrapping arithmetic and `as`, and the interpreter, at every size.
#[test]
fn byte_arithmetic_wraps_and_routed_casts_convert() {
    use pto::f16;
    for (r, c) in SIZES {
        let bytes = |seed: u64| -> Vec<i8> {
            values(r * c, seed, -128.0, 128.0)
                .into_iter()
                .map(|v| v.floor() as i8)
                .collect()
        };
        let (x, y) = (bytes((r * 5 + c) as u64), bytes((r * 3 + c) as u64));
        let h: Vec<f16> = values(r * c, (r + c) as u64, -40.0, 40.0)
            .into_iter()
            .map(f16::from_f32)
            .collect();
        let xt = Tensor::from_vec(x.clone(), [r, c]).unwrap();
        let yt = Tensor::from_vec(y.clone(), [r, c]).unwrap();
        let ht = Tensor::from_vec(h.clone(), [r, c]).unwrap();
        let mut o = Tensor::<i8>::zeros([r, c]);
        let mut w = Tensor::<i32>::zeros([r, c]);
        let mut f = Tensor::<f32>::zeros([r, c]);
        let mut fl = Tensor::<f16>::zeros([r, c]);
        let mut cm = Tensor::<i8>::zeros([1, c]);
        kernels::bytes(&xt, &yt, &ht, &mut o, &mut w, &mut f, &mut fl, &mut cm).unwrap();

        // Rust: each 16 x 64 tile's row sums, over the tile's columns only.
        let m: Vec<i8> = x
            .iter()
            .zip(&y)
            .map(|(&a, &b)| {
                let p = a.wrapping_add(b).wrapping_mul(b);
                p.wrapping_neg().max(100i8.wrapping_sub(a))
            })
            .collect();
        let mut want_o = vec![0i8; r * c];
        for i in 0..r {
            for c0 in (0..c).step_by(64) {
                let cols = c0..(c0 + 64).min(c);
                let s = cols.clone().fold(0i8, |s, j| s.wrapping_add(m[i * c + j]));
                for j in cols {
                    want_o[i * c + j] = m[i * c + j].wrapping_sub(s).wrapping_abs();
                }
            }
        }
        let want_d = want_o.clone();
        for (o, &a) in want_o.iter_mut().zip(&x) {
            let e = if *o < a { *o } else { a };
            *o = if e > 50 { e } else { 50 };
        }
        let last = (r - 1) / 16 * 16;
        let want_cm: Vec<i8> = (0..c)
            .map(|j| (last..r).map(|i| want_d[i * c + j]).max().unwrap())
            .collect();
        let want_w: Vec<i32> = x.iter().map(|&a| i32::from(a)).collect();
        let want_f: Vec<f32> = x.iter().map(|&a| f32::from(a)).collect();
        let want_fl: Vec<f16> = h
            .iter()
            .map(|g| {
                let g = g.to_f32();
                f16::from_f32(f16::from_f32(g.floor()).to_f32() + f16::from_f32(g.round()).to_f32())
            })
            .collect();
        let what = format!("{r} x {c}");
        assert_eq!(o.as_slice(), &want_o[..], "i8 arithmetic {what}");
        assert_eq!(cm.as_slice(), &want_cm[..], "i8 column max {what}");
        assert_eq!(w.as_slice(), &want_w[..], "i8 as i32 {what}");
        assert_eq!(f.as_slice(), &want_f[..], "i8 as f32 {what}");
        assert_eq!(fl.as_slice(), &want_fl[..], "f16 floor + away {what}");

        let got = interp(
            &kernels::bytes::program(),
            vec![
                arg(&xt),
                arg(&yt),
                arg(&ht),
                zeros::<i8>([r, c]),
                zeros::<i32>([r, c]),
                zeros::<f32>([r, c]),
                zeros::<f16>([r, c]),
                zeros::<i8>([1, c]),
            ],
        );
        let host = [
            support::run::data(&o),
            support::run::data(&w),
            support::run::data(&f),
            support::run::data(&fl),
            support::run::data(&cm),
        ];
        for (k, want) in host.iter().enumerate() {
            assert_eq!(&got[3 + k], want, "interpreter output {k} at {what}");
        }
    }
}

/// `i16` `/`, `%` and `floor_mod` on A2A3 (no integer `TDIV` / `TFMOD` / `TREM` there; exact
/// in `f32`): the host function equals Rust's wrapping operations with the semantics' zero
/// divisor (`0` for a quotient, the dividend for a remainder), `MIN / -1` and large
/// quotients included, and the interpreter, at every size.
#[test]
fn i16_division_matches_rust() {
    for (r, c) in SIZES {
        let ints = |seed: u64, lo: f32, hi: f32| -> Vec<i16> {
            values(r * c, seed, lo, hi)
                .into_iter()
                .map(|v| v.floor() as i16)
                .collect()
        };
        let mut x = ints((r * 5 + c) as u64, -32768.0, 32768.0);
        let mut y = ints((r * 3 + c) as u64, -300.0, 300.0);
        // Zero divisors, `MIN / -1`, divisors of 1 and the extremes.
        for (i, (a, b)) in x.iter_mut().zip(&mut y).enumerate() {
            match i % 11 {
                0 => *b = 0,
                1 => (*a, *b) = (i16::MIN, -1),
                2 => *b = if i % 2 == 0 { 1 } else { i16::MAX },
                3 => *b = i16::MIN,
                _ => {}
            }
        }
        let (xt, yt) = (
            Tensor::from_vec(x.clone(), [r, c]).unwrap(),
            Tensor::from_vec(y.clone(), [r, c]).unwrap(),
        );
        let mut outs: Vec<Tensor<i16>> = (0..3).map(|_| Tensor::zeros([r, c])).collect();
        let [q, m, f] = &mut outs[..] else {
            unreachable!()
        };
        kernels::div_i16(&xt, &yt, q, m, f).unwrap();
        fn rem(a: i16, b: i16) -> i16 {
            if b == 0 { a } else { a.wrapping_rem(b) }
        }
        let div: fn(i16, i16) -> i16 = |a, b| if b == 0 { 0 } else { a.wrapping_div(b) };
        let floor_mod: fn(i16, i16) -> i16 = |a, b| {
            let r = rem(a, b);
            if b != 0 && r != 0 && (r < 0) != (b < 0) {
                r.wrapping_add(b)
            } else {
                r
            }
        };
        let what = format!("{r} x {c}");
        for (k, op) in [div, rem, floor_mod].into_iter().enumerate() {
            let want: Vec<i16> = x.iter().zip(&y).map(|(&a, &b)| op(a, b)).collect();
            assert_eq!(outs[k].as_slice(), &want[..], "i16 op {k} at {what}");
        }
        let zero = || zeros::<i16>([r, c]);
        let got = interp(
            &kernels::div_i16::program(),
            vec![arg(&xt), arg(&yt), zero(), zero(), zero()],
        );
        for (k, t) in outs.iter().enumerate() {
            assert_eq!(
                got[2 + k],
                support::run::data(t),
                "interpreter {k} at {what}"
            );
        }
    }
}

/// `n` `u16` values spread over the whole range (the top bit set in about half).
fn u16_values(n: usize, seed: u64) -> Vec<u16> {
    values(n, seed, 0.0, 65536.0)
        .into_iter()
        .map(|v| v as u16)
        .collect()
}

/// `u16` `+ - *` and sums on A2A3 run on `i16` instructions (the same bits) and a `u16` to
/// `i16` cast keeps the bits: the host function equals Rust's wrapping arithmetic and `as`,
/// and the interpreter, at every size.
#[test]
fn u16_arithmetic_runs_on_i16() {
    for (r, c) in SIZES {
        let ints = |seed: u64| u16_values(r * c, seed);
        let (x, y) = (ints((r * 5 + c) as u64), ints((r * 3 + c) as u64));
        let (xt, yt) = (
            Tensor::from_vec(x.clone(), [r, c]).unwrap(),
            Tensor::from_vec(y.clone(), [r, c]).unwrap(),
        );
        let mut o = Tensor::<u16>::zeros([r, c]);
        let mut s = Tensor::<i16>::zeros([r, c]);
        kernels::twin_u16(&xt, &yt, &mut o, &mut s).unwrap();
        let p: Vec<u16> = x
            .iter()
            .zip(&y)
            .map(|(&a, &b)| a.wrapping_add(b).wrapping_mul(b).wrapping_sub(7))
            .collect();
        let mut want_o = vec![0u16; r * c];
        for i in 0..r {
            for c0 in (0..c).step_by(64) {
                let cols = c0..(c0 + 64).min(c);
                let sum = cols
                    .clone()
                    .fold(0u16, |acc, j| acc.wrapping_add(p[i * c + j]));
                for j in cols {
                    want_o[i * c + j] = p[i * c + j].wrapping_sub(sum);
                }
            }
        }
        let want_s: Vec<i16> = p.iter().map(|&v| v as i16).collect();
        let what = format!("{r} x {c}");
        assert_eq!(o.as_slice(), &want_o[..], "u16 arithmetic {what}");
        assert_eq!(s.as_slice(), &want_s[..], "u16 as i16 {what}");
        let got = interp(
            &kernels::twin_u16::program(),
            vec![
                arg(&xt),
                arg(&yt),
                zeros::<u16>([r, c]),
                zeros::<i16>([r, c]),
            ],
        );
        assert_eq!(got[2], support::run::data(&o), "interpreter u16 at {what}");
        assert_eq!(got[3], support::run::data(&s), "interpreter i16 at {what}");
    }
}

/// `u16` maxima, minima, row maxima and compares on A2A3 (no instruction takes `u16` there):
/// computed on `i16` with the top bit flipped (a compare then in `f32`), they follow the
/// unsigned order over the whole range.
#[test]
fn u16_order_holds_over_the_whole_range() {
    for (r, c) in SIZES {
        let ints = |seed: u64| u16_values(r * c, seed);
        let (x, y) = (ints((r * 7 + c) as u64), ints((r * 2 + c) as u64));
        let (xt, yt) = (
            Tensor::from_vec(x.clone(), [r, c]).unwrap(),
            Tensor::from_vec(y.clone(), [r, c]).unwrap(),
        );
        let mut o = Tensor::<u16>::zeros([r, c]);
        kernels::order_u16(&xt, &yt, &mut o).unwrap();
        let m: Vec<u16> = x
            .iter()
            .zip(&y)
            .map(|(&a, &b)| a.max(b).min(40000))
            .collect();
        let mut want = vec![0u16; r * c];
        for i in 0..r {
            for c0 in (0..c).step_by(64) {
                let cols = c0..(c0 + 64).min(c);
                let top = cols.clone().map(|j| m[i * c + j]).max().unwrap();
                for j in cols {
                    let k = i * c + j;
                    let d = top.wrapping_sub(m[k]);
                    want[k] = if x[k] < y[k] { d } else { x[k] };
                }
            }
        }
        let what = format!("{r} x {c}");
        assert_eq!(o.as_slice(), &want[..], "u16 order {what}");
        let got = interp(
            &kernels::order_u16::program(),
            vec![arg(&xt), arg(&yt), zeros::<u16>([r, c])],
        );
        assert_eq!(got[2], support::run::data(&o), "interpreter at {what}");
    }
}
