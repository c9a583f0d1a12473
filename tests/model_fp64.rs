//! The C++ model computes fp64 tiles in double, as the semantics module does: a kernel whose
//! result depends on the low bits of fp64 sums and products matches its host function and
//! the interpreter exactly in the model on A2A3 and A5 (computed through `float`, `(x + 1e-9) - x` is 0 and
//! the rows are off by 1).
#![allow(clippy::unwrap_used)]

use pto::prelude::*;

mod support;

/// `y = ((x + 1e-9) - x) * 1e9 + x * x / 3`, 16 rows at a time, on fp64 tiles.
#[pto::kernel]
pub fn fine_f64(x: &Tensor<f64, R, 16>, #[out] y: &mut Tensor<f64, R, 16>) {
    for r in (0..R).step_by(16) {
        let t = x.load::<16, 16>([r, 0]);
        y.store([r, 0], ((t + 1.0e-9) - t) * 1.0e9 + t * t / 3.0);
    }
}

#[test]
fn fp64_tiles_compute_in_double_in_the_cpp_model() {
    let m = fine_f64::program();
    let model = || {
        support::model::Model::new("fine_f64", &m, vec![vec![("R", 32)], vec![("R", 37)]])
            .tolerance(0.0)
    };
    let mut problems = model().against_host(|t| fine_f64(&t.tensor(0), &mut t.out::<f64>(1)));
    problems.extend(model().against_interpreter());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
