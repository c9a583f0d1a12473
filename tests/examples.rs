//! Every example kernel as an integration test:
//! - at three sizes each, one of them an edge size (not a multiple of the tile), checked
//!   against the example's plain-Rust reference with the tolerance the example states (fp32
//!   relative error <= 1e-5, exp chains <= 1e-4, maxima and integer results exact);
//! - run both ways on the same input: through the generated host function (the lowered ISA
//!   code on `pto::isa`) and through the reference interpreter on the kernel's IR
//!   (`NAME::program()`), which shares no code with the lowering; results must agree;
//! - and wrong-shaped launches return `Err` naming the parameter.

// Each example brings its own copy of `examples/common`; that is how they are shared.
#![allow(clippy::duplicate_mod)]

use pto::Element;
use pto::ir::DataType;
use pto_lower::interp::{HostValue, run};

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
#[path = "../examples/parallel_softmax.rs"]
mod parallel_softmax;

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

#[allow(dead_code)]
#[path = "../examples/program.rs"]
mod program;

#[allow(dead_code)]
#[path = "../examples/tensor_level.rs"]
mod tensor_level;

#[allow(dead_code)]
#[path = "../examples/clamp_relu.rs"]
mod clamp_relu;

#[allow(dead_code)]
#[path = "../examples/splitk_store_add.rs"]
mod splitk_store_add;

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
fn parallel_softmax_at_three_sizes() {
    // 8-row tiles in a parallel loop, rows of up to 1024 columns.
    for (rows, cols) in [(8, 1024), (1, 1), (1001, 999)] {
        within_tolerance!(parallel_softmax::check(rows, cols));
    }
}

#[test]
fn reductions_at_three_sizes() {
    for (rows, cols) in [(32, 64), (33, 10), (100, 63)] {
        within_tolerance!(reductions::check(rows, cols));
    }
}

#[test]
fn clamp_relu_at_three_sizes() {
    for (rows, cols) in [(32, 128), (5, 1), (37, 100)] {
        within_tolerance!(clamp_relu::check(rows, cols));
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

#[test]
fn program_at_three_sizes() {
    for rows in [1, 16, 37] {
        within_tolerance!(program::check(rows));
    }
}

#[test]
fn tensor_level_at_three_sizes() {
    for (rows, cols) in [(37, 200), (32, 128), (1, 100)] {
        within_tolerance!(tensor_level::check(rows, cols));
    }
}

#[test]
fn splitk_store_add_at_three_sizes() {
    for (m, n, k) in [(32, 32, 64), (70, 50, 90), (1, 33, 200)] {
        within_tolerance!(splitk_store_add::check(m, n, k));
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

// ----- host code vs the reference interpreter -----

/// Deterministic values in [-1, 1).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// The same input as a runtime tensor and as an interpreter value.
fn input<T: Element>(
    data: Vec<T>,
    shape: &[usize],
    dtype: DataType,
) -> (pto::Tensor<T>, HostValue) {
    let wide = data.iter().map(|v| v.to_f64()).collect();
    let t = pto::Tensor::from_vec_dyn(data, shape).expect("shape matches data");
    let h = HostValue::tensor(dtype, shape.to_vec(), wide).expect("shape matches data");
    (t, h)
}

fn zeros<T: Element>(shape: &[usize], dtype: DataType) -> (pto::Tensor<T>, HostValue) {
    input(vec![T::ZERO; shape.iter().product()], shape, dtype)
}

/// Runs the kernel's IR in the interpreter and returns the arguments afterwards.
fn interpret(m: &pto::ir::ProgramModule, mut args: Vec<HostValue>) -> Vec<HostValue> {
    let f = m.entry.expect("kernels have an entry");
    run(m, f, &mut args).unwrap_or_else(|e| panic!("interpreter: {e}"));
    args
}

/// Asserts the host result equals the interpreted one within `tol` (relative, absolute
/// below 1).
fn agree<T: Element>(what: &str, host: &pto::Tensor<T>, interp: &HostValue, tol: f64) {
    let h = interp.as_tensor().expect("a tensor argument");
    assert_eq!(host.shape(), &h.shape[..], "{what}: shape");
    for (i, (a, b)) in host.as_slice().iter().zip(&h.data).enumerate() {
        let (a, b) = (a.to_f64(), *b);
        let err = (a - b).abs() / b.abs().max(1.0);
        assert!(
            err <= tol,
            "{what}: element {i}: host {a} vs interpreter {b}"
        );
    }
}

#[test]
fn scale_rows_agrees() {
    for rows in [3, 16] {
        let (x, hx) = input(values(rows * 128, 1), &[rows, 128], DataType::Fp32);
        let (mut out, hout) = zeros::<f32>(&[rows, 128], DataType::Fp32);
        quickstart::scale_rows(&x, 0.5, &mut out).expect("runs");
        let args = interpret(
            &quickstart::scale_rows::program(),
            vec![hx, HostValue::f32(0.5), hout],
        );
        agree("scale_rows", &out, &args[2], 1e-6);
    }
}

#[test]
fn vector_add_agrees() {
    for n in [1000, 2048] {
        let (a, ha) = input(values(n, 2), &[n], DataType::Fp32);
        let (b, hb) = input(values(n, 3), &[n], DataType::Fp32);
        let (mut c, hc) = zeros::<f32>(&[n], DataType::Fp32);
        vector_add::vector_add(&a, &b, &mut c).expect("runs");
        let args = interpret(&vector_add::vector_add::program(), vec![ha, hb, hc]);
        agree("vector_add", &c, &args[2], 0.0);

        let ints = |s| {
            values(n, s)
                .into_iter()
                .map(|v| (v * 1000.0) as i32)
                .collect::<Vec<_>>()
        };
        let (a, ha) = input(ints(4), &[n], DataType::Int32);
        let (b, hb) = input(ints(5), &[n], DataType::Int32);
        let (mut c, hc) = zeros::<i32>(&[n], DataType::Int32);
        vector_add::vector_add_i32(&a, &b, &mut c).expect("runs");
        let args = interpret(&vector_add::vector_add_i32::program(), vec![ha, hb, hc]);
        agree("vector_add_i32", &c, &args[2], 0.0);
    }
}

#[test]
fn axpy_agrees() {
    for n in [3000, 4096] {
        let (x, hx) = input(values(n, 6), &[n], DataType::Fp32);
        let (y, hy) = input(values(n, 7), &[n], DataType::Fp32);
        let (mut out, hout) = zeros::<f32>(&[n], DataType::Fp32);
        axpy::axpy(1.5, &x, &y, &mut out).expect("runs");
        let args = interpret(
            &axpy::axpy::program(),
            vec![HostValue::f32(1.5), hx, hy, hout],
        );
        agree("axpy", &out, &args[3], 1e-6);
    }
}

#[test]
fn row_softmax_agrees() {
    for (rows, cols) in [(20, 100), (32, 256)] {
        let (x, hx) = input(values(rows * cols, 8), &[rows, cols], DataType::Fp32);
        let (mut out, hout) = zeros::<f32>(&[rows, cols], DataType::Fp32);
        row_softmax::row_softmax(&x, &mut out).expect("runs");
        let args = interpret(&row_softmax::row_softmax::program(), vec![hx, hout]);
        agree("row_softmax", &out, &args[1], 1e-4);
    }
}

#[test]
fn reductions_agree() {
    for (rows, cols) in [(45, 30), (64, 64)] {
        let (x, hx) = input(values(rows * cols, 9), &[rows, cols], DataType::Fp32);
        let (mut rs, hrs) = zeros::<f32>(&[rows, 1], DataType::Fp32);
        let (mut rm, hrm) = zeros::<f32>(&[rows, 1], DataType::Fp32);
        let (mut cs, hcs) = zeros::<f32>(&[1, cols], DataType::Fp32);
        let (mut cm, hcm) = zeros::<f32>(&[1, cols], DataType::Fp32);
        reductions::reductions(&x, &mut rs, &mut rm, &mut cs, &mut cm).expect("runs");
        let args = interpret(
            &reductions::reductions::program(),
            vec![hx, hrs, hrm, hcs, hcm],
        );
        agree("row sums", &rs, &args[1], 1e-5);
        agree("row maxima", &rm, &args[2], 0.0);
        agree("column sums", &cs, &args[3], 1e-5);
        agree("column maxima", &cm, &args[4], 0.0);
    }
}

#[test]
fn broadcast_agrees() {
    for (rows, cols) in [(17, 90), (32, 128)] {
        let (x, hx) = input(values(rows * cols, 10), &[rows, cols], DataType::Fp32);
        let (v, hv) = input(values(cols, 11), &[1, cols], DataType::Fp32);
        let (mut c, hc) = zeros::<f32>(&[rows, cols], DataType::Fp32);
        let (mut s, hs) = zeros::<f32>(&[rows, cols], DataType::Fp32);
        broadcast::broadcast(&x, &v, &mut c, &mut s).expect("runs");
        let args = interpret(&broadcast::broadcast::program(), vec![hx, hv, hc, hs]);
        agree("x - rowmax(x)", &c, &args[2], 0.0);
        agree("x * v", &s, &args[3], 0.0);
    }
}

#[test]
fn clamp_relu_agrees() {
    for (rows, cols) in [(17, 90), (32, 128)] {
        let (x, hx) = input(values(rows * cols, 14), &[rows, cols], DataType::Fp32);
        let (mut l, hl) = zeros::<f32>(&[rows, cols], DataType::Fp32);
        let (mut c, hc) = zeros::<f32>(&[rows, cols], DataType::Fp32);
        clamp_relu::clamp_relu(&x, 0.1, -0.5, 0.5, &mut l, &mut c).expect("runs");
        let args = interpret(
            &clamp_relu::clamp_relu::program(),
            vec![
                hx,
                HostValue::f32(0.1),
                HostValue::f32(-0.5),
                HostValue::f32(0.5),
                hl,
                hc,
            ],
        );
        agree("leaky relu", &l, &args[4], 0.0);
        agree("clamp", &c, &args[5], 0.0);
    }
}

#[test]
fn matmul_agrees() {
    for (m, n) in [(40, 20), (64, 64)] {
        let (a, ha) = input(values(m * 64, 12), &[m, 64], DataType::Fp32);
        let (b, hb) = input(values(64 * n, 13), &[64, n], DataType::Fp32);
        let (mut c, hc) = zeros::<f32>(&[m, n], DataType::Fp32);
        matmul::matmul_f32(&a, &b, &mut c).expect("runs");
        let args = interpret(&matmul::matmul_f32::program(), vec![ha, hb, hc]);
        agree("matmul f32", &c, &args[2], 1e-6);

        let half = |s| {
            values(m.max(n) * 64, s)
                .into_iter()
                .map(pto::f16::from_f32)
                .collect::<Vec<_>>()
        };
        let (a, ha) = input(half(14)[..m * 64].to_vec(), &[m, 64], DataType::Fp16);
        let (b, hb) = input(half(15)[..64 * n].to_vec(), &[64, n], DataType::Fp16);
        let (mut c, hc) = zeros::<f32>(&[m, n], DataType::Fp32);
        matmul::matmul_f16(&a, &b, &mut c).expect("runs");
        let args = interpret(&matmul::matmul_f16::program(), vec![ha, hb, hc]);
        agree("matmul f16", &c, &args[2], 1e-6);
    }
}

#[test]
fn matmul_splitk_agrees() {
    for (m, n, k) in [(33, 40, 150), (32, 32, 128)] {
        let (a, ha) = input(values(m * k, 16), &[m, k], DataType::Fp32);
        let (b, hb) = input(values(k * n, 17), &[k, n], DataType::Fp32);
        let (bias, hbias) = input(values(n, 18), &[1, n], DataType::Fp32);
        for has_bias in [false, true] {
            let (mut c, hc) = zeros::<f32>(&[m, n], DataType::Fp32);
            matmul_splitk::matmul_splitk(&a, &b, &bias, has_bias, &mut c).expect("runs");
            let args = interpret(
                &matmul_splitk::matmul_splitk::program(),
                vec![
                    ha.clone(),
                    hb.clone(),
                    hbias.clone(),
                    HostValue::bool(has_bias),
                    hc,
                ],
            );
            agree("matmul_splitk", &c, &args[4], 1e-5);
        }
    }
}

#[test]
fn program_agrees() {
    // The interpreter runs the program's IR: the `incore` scope in line, the calls as calls.
    for (rows, cols) in [(5, 70), (32, 128)] {
        let (x, hx) = input(values(rows * cols, 11), &[rows, cols], DataType::Fp32);
        let (y, hy) = input(values(rows * cols, 12), &[rows, cols], DataType::Fp32);
        let (mut out, hout) = zeros::<f32>(&[rows, cols], DataType::Fp32);
        let n = program::axpy_clamp::run(0.5, -0.1, &x, &y, &mut out).expect("runs");
        let m = program::axpy_clamp::program();
        let f = m.entry.expect("an entry");
        let mut args = vec![HostValue::f32(0.5), HostValue::f32(-0.1), hx, hy, hout];
        let ret = run(&m, f, &mut args).unwrap_or_else(|e| panic!("interpreter: {e}"));
        agree("axpy_clamp", &out, &args[4], 1e-6);
        assert_eq!(ret.first().and_then(HostValue::as_i64), Some(n));
    }
}

#[test]
fn splitk_store_add_agrees() {
    for (m, n, k) in [(70, 50, 90), (32, 32, 128)] {
        let (a, ha) = input(values(m * k, 19), &[m, k], DataType::Fp32);
        let (b, hb) = input(values(k * n, 20), &[k, n], DataType::Fp32);
        // `store_add` adds into what the output holds.
        let (mut c, hc) = input(values(m * n, 21), &[m, n], DataType::Fp32);
        splitk_store_add::splitk_store_add(&a, &b, &mut c).expect("runs");
        let args = interpret(
            &splitk_store_add::splitk_store_add::program(),
            vec![ha.clone(), hb.clone(), hc],
        );
        agree("splitk_store_add", &c, &args[2], 1e-5);
        let (mut h, hh) = zeros::<pto::f16>(&[m, n], DataType::Fp16);
        splitk_store_add::matmul_to_f16(&a, &b, &mut h).expect("runs");
        let args = interpret(
            &splitk_store_add::matmul_to_f16::program(),
            vec![ha, hb, hh],
        );
        agree("matmul_to_f16", &h, &args[2], 1e-3);
    }
}
