//! The fast CPU kernels keep the one meaning: row sums (partial sums in SIMD lanes), the
//! blocked tile matmul (f32, f16 and i8 inputs) and `exp` / `log` run as host code and through
//! the reference interpreter on `NAME::program()`, at sizes with edge tiles.

use pto::ir::DataType;
use pto::prelude::*;
use pto_lower::interp::{HostValue, run};

/// out[r, 0] = sum of row r (rows of up to 128 columns).
#[pto::kernel]
pub fn row_sums(x: &Tensor<f32, R, C>, #[out] out: &mut Tensor<f32, R, 1>) {
    for r in (0..R).step_by(8) {
        let t = x.load::<8, 128>([r, 0]);
        out.store([r, 0], t.row_sum());
    }
}

/// out = exp(x) + log(|x| + 1), one 4 x 64 tile at a time.
#[pto::kernel]
pub fn exp_log(x: &Tensor<f32, R, 64>, #[out] out: &mut Tensor<f32, R, 64>) {
    for r in (0..R).step_by(4) {
        let t = x.load::<4, 64>([r, 0]);
        let l = (t.abs() + 1.0).log();
        out.store([r, 0], t.exp() + l);
    }
}

macro_rules! gemm_kernel {
    ($name:ident, $in:ty, $acc:ty) => {
        /// `C = A @ B` through 64 x 64 tiles, `matmul_acc` over K.
        #[pto::kernel]
        pub fn $name(
            a: &Tensor<$in, M, K>,
            b: &Tensor<$in, K, N>,
            #[out] c: &mut Tensor<$acc, M, N>,
        ) {
            for i in (0..M).step_by(64) {
                for j in (0..N).step_by(64) {
                    let mut acc = Tile::<$acc, 64, 64>::zeros();
                    for k in (0..K).step_by(64) {
                        let at = a.load::<64, 64>([i, k]);
                        let bt = b.load::<64, 64>([k, j]);
                        if k == 0 {
                            acc = matmul(at, bt);
                        } else {
                            acc = matmul_acc(acc, at, bt);
                        }
                    }
                    c.store([i, j], acc);
                }
            }
        }
    };
}

gemm_kernel!(gemm_f32, f32, f32);
gemm_kernel!(gemm_f16, f16, f32);
gemm_kernel!(gemm_i8, i8, i32);

/// Values with many significant bits, so that any change of summation order shows.
fn values(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let h = (i as u32 ^ seed).wrapping_mul(2_654_435_761).rotate_left(7);
            (h % 20_011) as f32 / 997.0 - 10.0
        })
        .collect()
}

fn host_tensor(dtype: DataType, shape: &[usize], data: impl Iterator<Item = f64>) -> HostValue {
    HostValue::tensor(dtype, shape.to_vec(), data.collect()).expect("shape")
}

fn out_data(v: &HostValue) -> &[f64] {
    &v.as_tensor().expect("a tensor").data
}

#[test]
fn row_sums_agree_bit_for_bit() {
    let m = row_sums::program();
    let f = m.entry.expect("entry");
    // Widths below 16, of whole lane groups, with a tail, and edge tiles in both directions.
    for (rows, cols) in [(3, 5), (8, 16), (13, 100), (16, 128), (9, 33)] {
        let xs = values(rows * cols, 7);
        let x = pto::Tensor::from_vec(xs.clone(), [rows, cols]).expect("shape");
        let mut out = pto::Tensor::<f32>::zeros([rows, 1]);
        row_sums(&x, &mut out).expect("runs");
        let mut args = vec![
            host_tensor(DataType::Fp32, &[rows, cols], xs.iter().map(|&v| v.into())),
            host_tensor(DataType::Fp32, &[rows, 1], std::iter::repeat_n(0.0, rows)),
        ];
        run(&m, f, &mut args).expect("interprets");
        let host: Vec<f64> = out.as_slice().iter().map(|&v| v.into()).collect();
        assert_eq!(host, out_data(&args[1]), "{rows} x {cols}");
        // And not the left-to-right sum (the order is the lanes').
        if cols == 100 {
            let seq: Vec<f64> = xs
                .chunks(cols)
                .map(|r| f64::from(r.iter().sum::<f32>()))
                .collect();
            assert_ne!(host, seq, "the example distinguishes the orders");
        }
    }
}

#[test]
fn exp_and_log_are_within_one_ulp_of_the_interpreter() {
    let m = exp_log::program();
    let f = m.entry.expect("entry");
    let rows = 10;
    let xs: Vec<f32> = values(rows * 64, 3).iter().map(|v| v * 9.0).collect();
    let x = pto::Tensor::from_vec(xs.clone(), [rows, 64]).expect("shape");
    let mut out = pto::Tensor::<f32>::zeros([rows, 64]);
    exp_log(&x, &mut out).expect("runs");
    let mut args = vec![
        host_tensor(DataType::Fp32, &[rows, 64], xs.iter().map(|&v| v.into())),
        host_tensor(
            DataType::Fp32,
            &[rows, 64],
            std::iter::repeat_n(0.0, rows * 64),
        ),
    ];
    run(&m, f, &mut args).expect("interprets");
    for (i, (&h, &w)) in out.as_slice().iter().zip(out_data(&args[1])).enumerate() {
        let w = w as f32;
        // exp and log each within 1 ulp, then one rounded addition: a few ulps of the sum.
        let ulps = (h.to_bits() as i64 - w.to_bits() as i64).abs();
        assert!(
            ulps <= 3,
            "element {i} ({}): host {h} vs interpreter {w}",
            xs[i]
        );
    }
}

/// Runs `host` and the interpreter on `m` for `M x K` by `K x N` inputs given as `f64`s, and
/// asserts that they agree bit for bit.
fn check_gemm(
    m: &pto::ir::ProgramModule,
    dtypes: (DataType, DataType),
    (mm, kk, nn): (usize, usize, usize),
    a: &[f64],
    b: &[f64],
    host: &[f64],
) {
    let f = m.entry.expect("entry");
    let mut args = vec![
        host_tensor(dtypes.0, &[mm, kk], a.iter().copied()),
        host_tensor(dtypes.0, &[kk, nn], b.iter().copied()),
        host_tensor(dtypes.1, &[mm, nn], std::iter::repeat_n(0.0, mm * nn)),
    ];
    run(m, f, &mut args).expect("interprets");
    assert_eq!(host, out_data(&args[2]), "{mm} x {kk} x {nn}");
}

/// Sizes with partial tiles along every dimension, partial micro-kernel blocks (rows not a
/// multiple of 4, columns not of 16) and K spanning several tiles.
const SIZES: [(usize, usize, usize); 3] = [(64, 64, 64), (70, 150, 90), (5, 7, 19)];

#[test]
fn gemm_f32_agrees_bit_for_bit() {
    for (mm, kk, nn) in SIZES {
        let (a, b) = (values(mm * kk, 1), values(kk * nn, 2));
        let at = pto::Tensor::from_vec(a.clone(), [mm, kk]).expect("shape");
        let bt = pto::Tensor::from_vec(b.clone(), [kk, nn]).expect("shape");
        let mut c = pto::Tensor::<f32>::zeros([mm, nn]);
        gemm_f32(&at, &bt, &mut c).expect("runs");
        let host: Vec<f64> = c.as_slice().iter().map(|&v| v.into()).collect();
        let wide = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>();
        let m = gemm_f32::program();
        check_gemm(
            &m,
            (DataType::Fp32, DataType::Fp32),
            (mm, kk, nn),
            &wide(&a),
            &wide(&b),
            &host,
        );
    }
}

#[test]
fn gemm_f16_agrees_bit_for_bit() {
    for (mm, kk, nn) in SIZES {
        let half = |v: Vec<f32>| v.into_iter().map(f16::from_f32).collect::<Vec<_>>();
        let (a, b) = (half(values(mm * kk, 3)), half(values(kk * nn, 4)));
        let at = pto::Tensor::from_vec(a.clone(), [mm, kk]).expect("shape");
        let bt = pto::Tensor::from_vec(b.clone(), [kk, nn]).expect("shape");
        let mut c = pto::Tensor::<f32>::zeros([mm, nn]);
        gemm_f16(&at, &bt, &mut c).expect("runs");
        let host: Vec<f64> = c.as_slice().iter().map(|&v| v.into()).collect();
        let wide = |v: &[f16]| v.iter().map(|&x| f64::from(x.to_f32())).collect::<Vec<_>>();
        let m = gemm_f16::program();
        check_gemm(
            &m,
            (DataType::Fp16, DataType::Fp32),
            (mm, kk, nn),
            &wide(&a),
            &wide(&b),
            &host,
        );
    }
}

#[test]
fn gemm_i8_agrees_exactly() {
    for (mm, kk, nn) in SIZES {
        let int8 = |v: Vec<f32>| v.into_iter().map(|x| (x * 12.0) as i8).collect::<Vec<_>>();
        let (a, b) = (int8(values(mm * kk, 5)), int8(values(kk * nn, 6)));
        let at = pto::Tensor::from_vec(a.clone(), [mm, kk]).expect("shape");
        let bt = pto::Tensor::from_vec(b.clone(), [kk, nn]).expect("shape");
        let mut c = pto::Tensor::<i32>::zeros([mm, nn]);
        gemm_i8(&at, &bt, &mut c).expect("runs");
        let host: Vec<f64> = c.as_slice().iter().map(|&v| v.into()).collect();
        let wide = |v: &[i8]| v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>();
        let m = gemm_i8::program();
        check_gemm(
            &m,
            (DataType::Int8, DataType::Int32),
            (mm, kk, nn),
            &wide(&a),
            &wide(&b),
            &host,
        );
    }
}

mod support;

/// Issue 14's audit: this file's kernels as `NAME::CPP` for A2A3 and A5 in the C++ model of
/// pto-isa, at tile-multiple and ragged sizes (edge tiles in every dimension), against their
/// host functions.
#[test]
fn every_kernel_here_runs_in_the_cpp_model() {
    use support::model::Model;
    let mkn = || {
        vec![
            vec![("M", 64), ("K", 128), ("N", 64)],
            vec![("M", 70), ("K", 50), ("N", 45)],
        ]
    };
    let mut problems = Vec::new();
    problems.extend(
        Model::new(
            "row_sums",
            &row_sums::program(),
            vec![vec![("R", 32), ("C", 128)], vec![("R", 37), ("C", 100)]],
        )
        .against_host(|t| row_sums(&t.tensor(0), &mut t.out::<f32>(1))),
    );
    problems.extend(
        Model::new(
            "exp_log",
            &exp_log::program(),
            vec![vec![("R", 32)], vec![("R", 37)]],
        )
        .against_host(|t| exp_log(&t.tensor(0), &mut t.out::<f32>(1))),
    );
    problems.extend(
        Model::new("gemm_f32", &gemm_f32::program(), mkn())
            .against_host(|t| gemm_f32(&t.tensor(0), &t.tensor(1), &mut t.out::<f32>(2))),
    );
    problems.extend(
        Model::new("gemm_f16", &gemm_f16::program(), mkn())
            .against_host(|t| gemm_f16(&t.tensor(0), &t.tensor(1), &mut t.out::<f32>(2))),
    );
    problems.extend(
        Model::new("gemm_i8", &gemm_i8::program(), mkn())
            .against_host(|t| gemm_i8(&t.tensor(0), &t.tensor(1), &mut t.out::<i32>(2))),
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
