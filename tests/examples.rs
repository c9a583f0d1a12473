//! Every example kernel as an integration test: three sizes each, one of them an edge size
//! (not a multiple of the tile), checked against the example's plain-Rust reference with
//! the tolerance the example states (fp32 relative error <= 1e-5, exp chains <= 1e-4,
//! maxima and integer results exact); and wrong-shaped launches return `Err` naming the
//! parameter.

// Each example brings its own copy of `examples/common`; that is how they are shared.
#![allow(clippy::duplicate_mod)]

#[allow(dead_code)]
#[path = "../examples/quickstart.rs"]
mod quickstart;

#[allow(dead_code)]
#[path = "../examples/vector_add.rs"]
mod vector_add;

#[allow(dead_code)]
#[path = "../examples/axpy.rs"]
mod axpy;

#[allow(dead_code)]
#[path = "../examples/row_softmax.rs"]
mod row_softmax;

#[allow(dead_code)]
#[path = "../examples/reductions.rs"]
mod reductions;

#[allow(dead_code)]
#[path = "../examples/broadcast.rs"]
mod broadcast;

#[allow(dead_code)]
#[path = "../examples/matmul.rs"]
mod matmul;

#[allow(dead_code)]
#[path = "../examples/matmul_splitk.rs"]
mod matmul_splitk;

/// Runs an example's `check` and asserts every outcome is within its tolerance.
macro_rules! within_tolerance {
    ($check:expr) => {{
        let outcomes = $check.expect("the kernel runs");
        assert!(!outcomes.is_empty());
        for o in outcomes {
            assert!(
                o.err <= o.tol,
                "{}: error {} above tolerance {}",
                o.what,
                o.err,
                o.tol
            );
        }
    }};
}

#[test]
fn scale_rows_at_three_sizes() {
    for rows in [1, 7, 64] {
        within_tolerance!(quickstart::check(rows));
    }
}

#[test]
fn vector_add_at_three_sizes() {
    // 1024 is the tile; 1000 and 5000 leave an edge tile.
    for n in [1000, 1024, 5000] {
        within_tolerance!(vector_add::check(n));
    }
}

#[test]
fn axpy_at_three_sizes() {
    for n in [1, 2048, 4099] {
        within_tolerance!(axpy::check(n));
    }
}

#[test]
fn row_softmax_at_three_sizes() {
    // 16-row tiles, rows of up to 256 columns.
    for (rows, cols) in [(16, 256), (17, 100), (50, 3)] {
        within_tolerance!(row_softmax::check(rows, cols));
    }
}

#[test]
fn reductions_at_three_sizes() {
    for (rows, cols) in [(32, 64), (33, 10), (100, 63)] {
        within_tolerance!(reductions::check(rows, cols));
    }
}

#[test]
fn broadcast_at_three_sizes() {
    for (rows, cols) in [(16, 128), (5, 1), (40, 100)] {
        within_tolerance!(broadcast::check(rows, cols));
    }
}

#[test]
fn matmul_at_three_sizes() {
    for (m, n) in [(32, 32), (33, 31), (100, 70)] {
        within_tolerance!(matmul::check(m, n));
    }
}

#[test]
fn matmul_splitk_at_three_sizes() {
    for (m, n, k) in [(32, 32, 64), (40, 33, 130), (1, 70, 7)] {
        within_tolerance!(matmul_splitk::check(m, n, k));
    }
}

fn shape_error(r: Result<(), pto::Error>) -> String {
    match r {
        Err(e) => e.to_string(),
        Ok(()) => panic!("a wrong-shaped launch must fail"),
    }
}

#[test]
fn wrong_shapes_return_err_naming_the_parameter() {
    // A static dimension that does not match.
    let x = pto::Tensor::<f32>::zeros([4, 100]);
    let mut out = pto::Tensor::<f32>::zeros([4, 128]);
    let msg = shape_error(quickstart::scale_rows(&x, 1.0, &mut out));
    assert!(msg.contains("`x`") || msg.contains(" x "), "{msg}");
    assert!(msg.contains("128") && msg.contains("100"), "{msg}");

    // A symbolic dimension bound by one tensor and contradicted by another.
    let x = pto::Tensor::<f32>::zeros([4, 128]);
    let mut out = pto::Tensor::<f32>::zeros([5, 128]);
    let msg = shape_error(quickstart::scale_rows(&x, 1.0, &mut out));
    assert!(msg.contains("out") && msg.contains('B'), "{msg}");

    // A rank that does not match.
    let a = pto::Tensor::<f32>::zeros([8, 8]);
    let b = pto::Tensor::<f32>::zeros([64]);
    let mut c = pto::Tensor::<f32>::zeros([64]);
    let msg = shape_error(vector_add::vector_add(&a, &b, &mut c));
    assert!(msg.contains('a'), "{msg}");
}
