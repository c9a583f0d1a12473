//! `max` / `min` of zeros and NaN, one meaning everywhere: IEEE 754-2019's maximumNumber /
//! minimumNumber (`pto_ir::sem`'s float semantics): `-0` below `+0`, a NaN operand ignored.
//! One kernel takes them through every CPU path (elementwise, with a scalar, a row
//! broadcast, relu, row and column reductions of a loaded tile, which the host code does in
//! one pass, scalar `max` / `min` of elements read) and is checked bit for bit against the
//! semantics, the interpreter agreeing, and in the C++ model of both targets. Each result
//! `v` goes out as `clamp(1 / v, -1, 1) + v`, which is `+1` for `+0` and `-1` for `-0`, so
//! the C++ comparison (a relative tolerance, blind to a zero's sign) sees the sign too.
#![allow(clippy::unwrap_used)]

use pto::element::Element;
use pto::prelude::*;

mod support;
use support::model::Model;
use support::run::{arg, interp, zeros};
use support::values::f32_bits;

/// Each way of taking a `max` or `min`, each result stored as `clamp(1 / v, -1, 1) + v`.
#[pto::kernel]
pub fn zero_signs(
    x: &Tensor<f32, R, C>,
    y: &Tensor<f32, R, C>,
    #[out] ew: &mut Tensor<f32, R, C>,
    #[out] with_zero: &mut Tensor<f32, R, C>,
    #[out] rows: &mut Tensor<f32, R, 4>,
    #[out] cols: &mut Tensor<f32, 2, C>,
    #[out] scalars: &mut Tensor<f32, 1, 4>,
) {
    let a = x.load::<8, 32>([0, 0]);
    let b = y.load::<8, 32>([0, 0]);
    let v = a.max(b);
    let w = a.min(b);
    ew.store(
        [0, 0],
        (v.recip().max(-1.0).min(1.0) + v) + (w.recip().max(-1.0).min(1.0) + w) * 4.0,
    );
    let v = a.max(0.0);
    let w = a.relu();
    let u = a.max(b.row_min());
    let m = (v.recip().max(-1.0).min(1.0) + v) + (w.recip().max(-1.0).min(1.0) + w) * 4.0;
    with_zero.store([0, 0], m + (u.recip().max(-1.0).min(1.0) + u) * 16.0);
    let v = a.row_max();
    rows.store([0, 0], v.recip().max(-1.0).min(1.0) + v);
    let v = a.row_min();
    rows.store([0, 1], v.recip().max(-1.0).min(1.0) + v);
    let v = b.row_max();
    rows.store([0, 2], v.recip().max(-1.0).min(1.0) + v);
    let v = b.row_min();
    rows.store([0, 3], v.recip().max(-1.0).min(1.0) + v);
    let v = a.col_max();
    cols.store([0, 0], v.recip().max(-1.0).min(1.0) + v);
    let v = a.col_min();
    cols.store([1, 0], v.recip().max(-1.0).min(1.0) + v);
    let p = x.read([0, 0]);
    let q = y.read([0, 0]);
    let s = max(p, q);
    scalars.write([0, 0], min(max(1.0 / s, -1.0), 1.0) + s);
    let s = max(q, p);
    scalars.write([0, 1], min(max(1.0 / s, -1.0), 1.0) + s);
    let s = min(p, q);
    scalars.write([0, 2], min(max(1.0 / s, -1.0), 1.0) + s);
    let s = min(q, p);
    scalars.write([0, 3], min(max(1.0 / s, -1.0), 1.0) + s);
}

/// `x` and `y` at `r x c`: zeros paired both ways (`+0, -0` and `-0, +0`), rows and
/// columns of zeros and negative numbers, a NaN against a zero, and numbers.
fn inputs(r: usize, c: usize) -> (Vec<f32>, Vec<f32>) {
    let x = |i: usize, j: usize| match (i % 4, j % 5) {
        (0, _) if j.is_multiple_of(2) => 0.0,
        (0, _) => -0.0,
        (1, 3) => f32::NAN,
        (1, _) => -0.0,
        (2, 4) => 0.0,
        (2, _) => -1.0 - j as f32,
        _ if j.is_multiple_of(3) => -0.0,
        _ => (i as f32 - 4.0) * 0.5 + j as f32 * 0.25,
    };
    let y = |i: usize, j: usize| match (i % 4, j % 5) {
        (0, _) if j.is_multiple_of(2) => -0.0,
        (0, _) => 0.0,
        (1, 2) => f32::NAN,
        (1, _) => 0.0,
        (2, 1) => -0.0,
        (2, _) => 1.0 + j as f32,
        _ => -0.0,
    };
    let grid =
        |f: &dyn Fn(usize, usize) -> f32| (0..r * c).map(|k| f(k / c, k % c)).collect::<Vec<f32>>();
    (grid(&x), grid(&y))
}

/// `clamp(1 / v, -1, 1) + v`, the form the kernel stores `v` in.
fn code(v: f32) -> f32 {
    let mx = <f32 as Element>::max;
    <f32 as Element>::min(mx(1.0 / v, -1.0), 1.0) + v
}

/// The kernel's outputs from the semantics' `max` / `min` directly.
fn expected(x: &[f32], y: &[f32], r: usize, c: usize) -> [Vec<f32>; 5] {
    type F = fn(f32, f32) -> f32;
    let (mx, mn): (F, F) = (<f32 as Element>::max, <f32 as Element>::min);
    let row = |v: &[f32], i: usize, f: F, init: f32| {
        v[i * c..(i + 1) * c].iter().fold(init, |a, &e| f(a, e))
    };
    let col = |j: usize, f: F, init: f32| (0..r).map(|i| x[i * c + j]).fold(init, f);
    let (lo, hi) = (f32::NEG_INFINITY, f32::INFINITY);
    let ew = (0..r * c)
        .map(|k| code(mx(x[k], y[k])) + code(mn(x[k], y[k])) * 4.0)
        .collect();
    let with_zero = (0..r * c)
        .map(|k| {
            let (a, i) = (x[k], k / c);
            let m = code(mx(a, 0.0)) + code(Element::relu(a)) * 4.0;
            m + code(mx(a, row(y, i, mn, hi))) * 16.0
        })
        .collect();
    let rows = (0..r)
        .flat_map(|i| {
            [
                row(x, i, mx, lo),
                row(x, i, mn, hi),
                row(y, i, mx, lo),
                row(y, i, mn, hi),
            ]
            .map(code)
        })
        .collect();
    let cols = [(mx, lo), (mn, hi)]
        .into_iter()
        .flat_map(|(f, init)| (0..c).map(move |j| code(col(j, f, init))))
        .collect();
    let (p, q) = (x[0], y[0]);
    let scalars = [mx(p, q), mx(q, p), mn(p, q), mn(q, p)].map(code).to_vec();
    [ew, with_zero, rows, cols, scalars]
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|&x| f32_bits(x)).collect()
}

const SIZES: [(usize, usize); 4] = [(8, 32), (5, 21), (4, 17), (1, 1)];

#[test]
fn host_and_interpreter_give_the_semantics_bits() {
    const NAMES: [&str; 5] = ["ew", "with_zero", "rows", "cols", "scalars"];
    for (r, c) in SIZES {
        let (xv, yv) = inputs(r, c);
        let (x, y) = (
            Tensor::from_vec(xv.clone(), [r, c]).unwrap(),
            Tensor::from_vec(yv.clone(), [r, c]).unwrap(),
        );
        let mut out = [[r, c], [r, c], [r, 4], [2, c], [1, 4]].map(Tensor::<f32>::zeros);
        let [ew, with_zero, rows, cols, scalars] = &mut out;
        zero_signs(&x, &y, ew, with_zero, rows, cols, scalars).unwrap();
        let want = expected(&xv, &yv, r, c);
        let what = format!("{r} x {c}");
        let got = out.each_ref().map(|t| bits(t.as_slice()));
        for (k, name) in NAMES.into_iter().enumerate() {
            assert_eq!(got[k], bits(&want[k]), "host {name} {what}");
        }
        let mut args = vec![arg(&x), arg(&y)];
        args.extend(
            out.each_ref()
                .map(|t| zeros::<f32>([t.shape()[0], t.shape()[1]])),
        );
        let by_interp = interp(&zero_signs::program(), args);
        for (k, name) in NAMES.into_iter().enumerate() {
            let v: Vec<f32> = by_interp[k + 2].iter().map(|&e| e as f32).collect();
            assert_eq!(bits(&v), got[k], "interpreter {name} {what}");
        }
    }
    // The inputs pair the zeros both ways, and the outputs show both signs.
    let (x, y) = inputs(8, 32);
    let want = expected(&x, &y, 8, 32);
    assert_eq!(want[4], [1.0, 1.0, -1.0, -1.0]);
    assert!(want[2].contains(&1.0) && want[2].contains(&-1.0));
    assert!(want[3].contains(&1.0) && want[3].contains(&-1.0));
}

#[test]
fn lowered_takes_the_one_pass_reductions() {
    let l = zero_signs::LOWERED;
    assert!(l.contains("reduce: TLOAD"), "{l}");
}

#[test]
fn the_cpp_model_gives_the_same_signs() {
    let m = zero_signs::program();
    let mut problems = Vec::new();
    for (r, c) in SIZES {
        let (xv, yv) = inputs(r, c);
        let t = |v: Vec<f32>| arg(&Tensor::from_vec(v, [r, c]).unwrap());
        problems.extend(
            Model::new("zero_signs", &m, vec![vec![("R", r), ("C", c)]])
                .arg(0, t(xv))
                .arg(1, t(yv))
                .against_interpreter(),
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
