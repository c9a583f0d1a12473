//! Edge tiles compose (`docs/guide.md` section 5): a tile carried through a loop over edge
//! tiles gives the right sums, maxima, minima and matmul accumulations at sizes that are not
//! tile multiples, through the host function (checked against plain Rust) and through the
//! interpreter on the kernel's IR (which must agree exactly).
#![allow(clippy::unwrap_used)]

#[path = "edge/kernels.rs"]
mod kernels;

mod support;

use pto::Tensor;
use support::run::{arg, close, f32s, interp, same, values, zeros};

type Reduce = fn(&Tensor<f32>, &mut Tensor<f32>) -> Result<(), pto::Error>;

/// A column reduction kernel at `r x c` on data in `lo..hi`, against `fold` over each column.
fn column_reduction(
    kernel: Reduce,
    m: &pto::ir::ProgramModule,
    (r, c): (usize, usize),
    fold: fn(f32, f32) -> f32,
    (lo, hi): (f32, f32),
    tol: f32,
) {
    let x = values(r * c, (r * 131 + c) as u64, lo, hi);
    let want: Vec<f32> = (0..c)
        .map(|j| (1..r).fold(x[j], |a, i| fold(a, x[i * c + j])))
        .collect();
    let xt = Tensor::from_vec(x.clone(), [r, c]).unwrap();
    let mut out = Tensor::<f32>::zeros([1, c]);
    kernel(&xt, &mut out).unwrap();
    let what = format!("{r} x {c}");
    close(out.as_slice(), &want, tol, &format!("host {what}"));
    let by_interp = interp(m, vec![arg(&xt), zeros::<f32>([1, c])]);
    same(
        &f32s(&by_interp[1]),
        out.as_slice(),
        &format!("interpreter vs host at {what}"),
    );
}

const SIZES: [(usize, usize); 6] = [(16, 64), (40, 64), (37, 50), (5, 64), (64, 33), (100, 64)];

#[test]
fn carried_sum_of_edge_tiles() {
    // 40 x 64 in 16-row tiles: the example (the last tile has 8 rows).
    for (r, c) in SIZES {
        column_reduction(
            kernels::carried_sum,
            &kernels::carried_sum::program(),
            (r, c),
            |a, b| a + b,
            (-1.0, 1.0),
            1e-5,
        );
    }
}

#[test]
fn carried_max_of_edge_tiles_on_negative_data() {
    // All negative: a zero-padded edge tile would win every maximum.
    for (r, c) in SIZES {
        column_reduction(
            kernels::carried_max,
            &kernels::carried_max::program(),
            (r, c),
            f32::max,
            (-10.0, -1.0),
            0.0,
        );
    }
}

#[test]
fn carried_min_of_edge_tiles_on_positive_data() {
    for (r, c) in SIZES {
        column_reduction(
            kernels::carried_min,
            &kernels::carried_min::program(),
            (r, c),
            f32::min,
            (1.0, 10.0),
            0.0,
        );
    }
}

#[test]
fn carried_matmul_accumulation_at_edges() {
    for (m, k, n) in [(32, 64, 32), (70, 50, 45), (20, 100, 33), (33, 31, 64)] {
        let a = values(m * k, 3, -1.0, 1.0);
        let b = values(k * n, 4, -1.0, 1.0);
        let mut want = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                want[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
            }
        }
        let (at, bt) = (
            Tensor::from_vec(a.clone(), [m, k]).unwrap(),
            Tensor::from_vec(b.clone(), [k, n]).unwrap(),
        );
        let mut c = Tensor::<f32>::zeros([m, n]);
        kernels::carried_matmul(&at, &bt, &mut c).unwrap();
        let what = format!("{m} x {k} x {n}");
        close(c.as_slice(), &want, 1e-5, &format!("host {what}"));
        let by_interp = interp(
            &kernels::carried_matmul::program(),
            vec![arg(&at), arg(&bt), zeros::<f32>([m, n])],
        );
        close(
            &f32s(&by_interp[2]),
            c.as_slice(),
            1e-6,
            &format!("interpreter vs host {what}"),
        );
    }
}
