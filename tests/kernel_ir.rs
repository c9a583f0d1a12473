//! The acceptance kernels: each is built by `#[pto::kernel]` at compile time; its IR text is
//! pinned, and it parses back and verifies.

use expect_test::{Expect, expect};
use pto::prelude::*;

fn check(ir: &str, expected: Expect) {
    expected.assert_eq(ir);
    let m = pto::ir::parse(ir).unwrap_or_else(|e| panic!("IR does not parse back:\n{e}\n{ir}"));
    if let Err(e) = pto::ir::verify(&m) {
        panic!("parsed IR does not verify:\n{e}\n{ir}");
    }
}

/// out[b, :] = x[b, :] * scale * 3.14, one row at a time.
#[pto::kernel]
pub fn scale_rows(x: &Tensor<f32, B, 128>, scale: f32, out: &mut Tensor<f32, B, 128>) {
    for b in 0..B {
        let row = x.load::<1, 128>([b, 0]);
        let y = row * scale * 3.14;
        out.store([b, 0], y);
    }
}

/// c = a + b over a 1-D tensor, 256 elements at a time.
#[pto::kernel]
pub fn vector_add_1d(a: &Tensor<f32, N>, b: &Tensor<f32, N>, #[out] c: &mut Tensor<f32, N>) {
    for i in (0..N).step_by(256) {
        let x = a.load::<256>([i]);
        let y = b.load::<256>([i]);
        c.store([i], x + y);
    }
}

/// c = a + b over a 2-D tensor walked in 16 x 64 tiles.
#[pto::kernel]
pub fn vector_add_2d(
    a: &Tensor<f32, M, N>,
    b: &Tensor<f32, M, N>,
    #[out] c: &mut Tensor<f32, M, N>,
) {
    for i in range(0, M, 16) {
        for j in range(0, N, 64) {
            let x = a.load::<16, 64>([i, j]);
            let y = b.load::<16, 64>([i, j]);
            c.store([i, j], x + y);
        }
    }
}

/// The same over `i32`.
#[pto::kernel]
pub fn vector_add_i32(
    a: &Tensor<i32, M, 64>,
    b: &Tensor<i32, M, 64>,
    #[out] c: &mut Tensor<i32, M, 64>,
) {
    for i in (0..M).step_by(8) {
        let sum = a.load::<8, 64>([i, 0]) + b.load::<8, 64>([i, 0]);
        c.store([i, 0], sum);
    }
}

/// out = alpha * x + y.
#[pto::kernel]
pub fn axpy(alpha: f32, x: &Tensor<f32, N>, y: &Tensor<f32, N>, #[out] out: &mut Tensor<f32, N>) {
    for i in (0..N).step_by(128) {
        let xt = x.load::<128>([i]);
        let yt = y.load::<128>([i]);
        out.store([i], alpha * xt + yt);
    }
}

/// Softmax of each row of a `R x 64` tensor, 8 rows at a time.
#[pto::kernel]
pub fn row_softmax(x: &Tensor<f32, R, 64>, #[out] out: &mut Tensor<f32, R, 64>) {
    for r in (0..R).step_by(8) {
        let t = x.load::<8, 64>([r, 0]);
        let m = t.row_max();
        let e = (t - m).exp();
        let s = e.row_sum();
        out.store([r, 0], e / s);
    }
}

/// Row sums and maxima, column sums and maxima of one 16 x 32 tile.
#[pto::kernel]
pub fn reductions(
    x: &Tensor<f32, 16, 32>,
    #[out] row_sum: &mut Tensor<f32, 16, 1>,
    #[out] row_max: &mut Tensor<f32, 16, 1>,
    #[out] col_sum: &mut Tensor<f32, 1, 32>,
    #[out] col_max: &mut Tensor<f32, 1, 32>,
) {
    let t = x.load::<16, 32>([0, 0]);
    row_sum.store([0, 0], t.row_sum());
    row_max.store([0, 0], t.row_max());
    col_sum.store([0, 0], t.col_sum());
    col_max.store([0, 0], t.col_max());
}

/// `x - x.row_max()` (row broadcast) and `x * v` with `v` a 1 x C tile (column broadcast).
#[pto::kernel]
pub fn broadcast(
    x: &Tensor<f32, 16, 64>,
    v: &Tensor<f32, 1, 64>,
    #[out] centered: &mut Tensor<f32, 16, 64>,
    #[out] scaled: &mut Tensor<f32, 16, 64>,
) {
    let t = x.load::<16, 64>([0, 0]);
    centered.store([0, 0], t - t.row_max());
    let w = v.load::<1, 64>([0, 0]);
    scaled.store([0, 0], t * w);
}

/// One tile of C = A @ B, f32 inputs.
#[pto::kernel]
pub fn matmul_f32(
    a: &Tensor<f32, 16, 32>,
    b: &Tensor<f32, 32, 16>,
    #[out] c: &mut Tensor<f32, 16, 16>,
) {
    let at = a.load::<16, 32>([0, 0]);
    let bt = b.load::<32, 16>([0, 0]);
    c.store([0, 0], matmul(at, bt));
}

/// One tile of C = A @ B, f16 inputs accumulating in f32.
#[pto::kernel]
pub fn matmul_f16(
    a: &Tensor<f16, 16, 32>,
    b: &Tensor<f16, 32, 16>,
    #[out] c: &mut Tensor<f32, 16, 16>,
) {
    let at = a.load::<16, 32>([0, 0]);
    let bt = b.load::<32, 16>([0, 0]);
    let acc = matmul(at, bt);
    c.store([0, 0], acc);
}

/// C = A @ B (+ bias) with K split into chunks of 32; the accumulator is loop-carried.
#[pto::kernel]
pub fn matmul_splitk(
    a: &Tensor<f16, 16, K>,
    b: &Tensor<f16, K, 16>,
    bias: &Tensor<f32, 1, 16>,
    has_bias: bool,
    #[out] c: &mut Tensor<f32, 16, 16>,
) {
    let bias_t = bias.load::<1, 16>([0, 0]);
    let mut acc = Tile::<f32, 16, 16>::zeros();
    for k in (0..K).step_by(32) {
        let at = a.load::<16, 32>([0, k]);
        let bt = b.load::<32, 16>([k, 0]);
        if k == 0 {
            if has_bias {
                acc = matmul_bias(at, bt, bias_t);
            } else {
                acc = matmul(at, bt);
            }
        } else {
            acc = matmul_acc(acc, at, bt);
        }
    }
    c.store([0, 0], acc);
}

#[test]
fn scale_rows_ir() {
    check(
        scale_rows::IR,
        expect![[r#"
        program.module @scale_rows {
          program.entry @scale_rows
          attr arch = "PTOv2"
          func.func @scale_rows(%x_0: tensor<[%B_1, 128], fp32> #in, %scale_2: fp32, %out_3: tensor<[%B_1, 128], fp32> #inout) {
            statement.op {
              %4 = 0 : int64
              %5 = 1 : int64
            }
            statement.for %b_6 = %4 to %B_1 step %5 {
              statement.op {
                %row_8 = tile.load %x_0 : (tensor<[%B_1, 128], fp32>) -> tile<[?, 128], [1, 128], fp32> {shape=[1, 128], offset=[%b_6, 0]}
                %10 = tile.mul %row_8, %scale_2 : (tile<[?, 128], [1, 128], fp32>, fp32) -> tile<[?, 128], [1, 128], fp32>
                %11 = 3.14 : fp32
                %y_12 = tile.mul %10, %11 : (tile<[?, 128], [1, 128], fp32>, fp32) -> tile<[?, 128], [1, 128], fp32>
                tile.store %y_12, %out_3 : (tile<[?, 128], [1, 128], fp32>, tensor<[%B_1, 128], fp32>) -> () {offset=[%b_6, 0]}
              }
              statement.yield
            }
          }
          // func.kind = kernel
        }
    "#]],
    );
}

#[test]
fn vector_add_1d_ir() {
    check(
        vector_add_1d::IR,
        expect![[r#"
        program.module @vector_add_1d {
          program.entry @vector_add_1d
          attr arch = "PTOv2"
          func.func @vector_add_1d(%a_0: tensor<[%N_1], fp32> #in, %b_2: tensor<[%N_1], fp32> #in, %c_3: tensor<[%N_1], fp32> #out) {
            statement.op {
              %4 = 0 : int64
              %5 = 256 : int64
            }
            statement.for %i_6 = %4 to %N_1 step %5 {
              statement.op {
                %x_8 = tile.load %a_0 : (tensor<[%N_1], fp32>) -> tile<[?], [256], fp32> {shape=[256], offset=[%i_6]}
                %y_10 = tile.load %b_2 : (tensor<[%N_1], fp32>) -> tile<[?], [256], fp32> {shape=[256], offset=[%i_6]}
                %12 = tile.add %x_8, %y_10 : (tile<[?], [256], fp32>, tile<[?], [256], fp32>) -> tile<[?], [256], fp32>
                tile.store %12, %c_3 : (tile<[?], [256], fp32>, tensor<[%N_1], fp32>) -> () {offset=[%i_6]}
              }
              statement.yield
            }
          }
          // func.kind = kernel
        }
    "#]],
    );
}

#[test]
fn vector_add_2d_ir() {
    check(
        vector_add_2d::IR,
        expect![[r#"
        program.module @vector_add_2d {
          program.entry @vector_add_2d
          attr arch = "PTOv2"
          func.func @vector_add_2d(%a_0: tensor<[%M_1, %N_2], fp32> #in, %b_3: tensor<[%M_1, %N_2], fp32> #in, %c_4: tensor<[%M_1, %N_2], fp32> #out) {
            statement.op {
              %5 = 0 : int64
              %6 = 16 : int64
            }
            statement.for %i_7 = %5 to %M_1 step %6 {
              statement.op {
                %9 = 0 : int64
                %10 = 64 : int64
              }
              statement.for %j_11 = %9 to %N_2 step %10 {
                statement.op {
                  %x_15 = tile.load %a_0 : (tensor<[%M_1, %N_2], fp32>) -> tile<[?, ?], [16, 64], fp32> {shape=[16, 64], offset=[%i_7, %j_11]}
                  %y_18 = tile.load %b_3 : (tensor<[%M_1, %N_2], fp32>) -> tile<[?, ?], [16, 64], fp32> {shape=[16, 64], offset=[%i_7, %j_11]}
                  %21 = tile.add %x_15, %y_18 : (tile<[?, ?], [16, 64], fp32>, tile<[?, ?], [16, 64], fp32>) -> tile<[?, ?], [16, 64], fp32>
                  tile.store %21, %c_4 : (tile<[?, ?], [16, 64], fp32>, tensor<[%M_1, %N_2], fp32>) -> () {offset=[%i_7, %j_11]}
                }
                statement.yield
              }
              statement.yield
            }
          }
          // func.kind = kernel
        }
    "#]],
    );
}

#[test]
fn vector_add_i32_ir() {
    check(
        vector_add_i32::IR,
        expect![[r#"
        program.module @vector_add_i32 {
          program.entry @vector_add_i32
          attr arch = "PTOv2"
          func.func @vector_add_i32(%a_0: tensor<[%M_1, 64], int32> #in, %b_2: tensor<[%M_1, 64], int32> #in, %c_3: tensor<[%M_1, 64], int32> #out) {
            statement.op {
              %4 = 0 : int64
              %5 = 8 : int64
            }
            statement.for %i_6 = %4 to %M_1 step %5 {
              statement.op {
                %8 = tile.load %a_0 : (tensor<[%M_1, 64], int32>) -> tile<[?, 64], [8, 64], int32> {shape=[8, 64], offset=[%i_6, 0]}
                %10 = tile.load %b_2 : (tensor<[%M_1, 64], int32>) -> tile<[?, 64], [8, 64], int32> {shape=[8, 64], offset=[%i_6, 0]}
                %sum_11 = tile.add %8, %10 : (tile<[?, 64], [8, 64], int32>, tile<[?, 64], [8, 64], int32>) -> tile<[?, 64], [8, 64], int32>
                tile.store %sum_11, %c_3 : (tile<[?, 64], [8, 64], int32>, tensor<[%M_1, 64], int32>) -> () {offset=[%i_6, 0]}
              }
              statement.yield
            }
          }
          // func.kind = kernel
        }
    "#]],
    );
}

#[test]
fn axpy_ir() {
    check(
        axpy::IR,
        expect![[r#"
        program.module @axpy {
          program.entry @axpy
          attr arch = "PTOv2"
          func.func @axpy(%alpha_0: fp32, %x_1: tensor<[%N_2], fp32> #in, %y_3: tensor<[%N_2], fp32> #in, %out_4: tensor<[%N_2], fp32> #out) {
            statement.op {
              %5 = 0 : int64
              %6 = 128 : int64
            }
            statement.for %i_7 = %5 to %N_2 step %6 {
              statement.op {
                %xt_9 = tile.load %x_1 : (tensor<[%N_2], fp32>) -> tile<[?], [128], fp32> {shape=[128], offset=[%i_7]}
                %yt_11 = tile.load %y_3 : (tensor<[%N_2], fp32>) -> tile<[?], [128], fp32> {shape=[128], offset=[%i_7]}
                %14 = tile.mul %alpha_0, %xt_9 : (fp32, tile<[?], [128], fp32>) -> tile<[?], [128], fp32>
                %15 = tile.add %14, %yt_11 : (tile<[?], [128], fp32>, tile<[?], [128], fp32>) -> tile<[?], [128], fp32>
                tile.store %15, %out_4 : (tile<[?], [128], fp32>, tensor<[%N_2], fp32>) -> () {offset=[%i_7]}
              }
              statement.yield
            }
          }
          // func.kind = kernel
        }
    "#]],
    );
}

#[test]
fn row_softmax_ir() {
    check(
        row_softmax::IR,
        expect![[r#"
        program.module @row_softmax {
          program.entry @row_softmax
          attr arch = "PTOv2"
          func.func @row_softmax(%x_0: tensor<[%R_1, 64], fp32> #in, %out_2: tensor<[%R_1, 64], fp32> #out) {
            statement.op {
              %3 = 0 : int64
              %4 = 8 : int64
            }
            statement.for %r_5 = %3 to %R_1 step %4 {
              statement.op {
                %t_7 = tile.load %x_0 : (tensor<[%R_1, 64], fp32>) -> tile<[?, 64], [8, 64], fp32> {shape=[8, 64], offset=[%r_5, 0]}
                %m_8 = tile.row_max %t_7 : (tile<[?, 64], [8, 64], fp32>) -> tile<[?, 1], [8, 1], fp32>
                %9 = tile.sub %t_7, %m_8 : (tile<[?, 64], [8, 64], fp32>, tile<[?, 1], [8, 1], fp32>) -> tile<[?, 64], [8, 64], fp32>
                %e_10 = tile.exp %9 : (tile<[?, 64], [8, 64], fp32>) -> tile<[?, 64], [8, 64], fp32>
                %s_11 = tile.row_sum %e_10 : (tile<[?, 64], [8, 64], fp32>) -> tile<[?, 1], [8, 1], fp32>
                %13 = tile.div %e_10, %s_11 : (tile<[?, 64], [8, 64], fp32>, tile<[?, 1], [8, 1], fp32>) -> tile<[?, 64], [8, 64], fp32>
                tile.store %13, %out_2 : (tile<[?, 64], [8, 64], fp32>, tensor<[%R_1, 64], fp32>) -> () {offset=[%r_5, 0]}
              }
              statement.yield
            }
          }
          // func.kind = kernel
        }
    "#]],
    );
}

#[test]
fn reductions_ir() {
    check(
        reductions::IR,
        expect![[r#"
        program.module @reductions {
          program.entry @reductions
          attr arch = "PTOv2"
          func.func @reductions(%x_0: tensor<[16, 32], fp32> #in, %row_sum_1: tensor<[16, 1], fp32> #out, %row_max_2: tensor<[16, 1], fp32> #out, %col_sum_3: tensor<[1, 32], fp32> #out, %col_max_4: tensor<[1, 32], fp32> #out) {
            statement.op {
              %t_5 = tile.load %x_0 : (tensor<[16, 32], fp32>) -> tile<[16, 32], [16, 32], fp32> {shape=[16, 32], offset=[0, 0]}
              %6 = tile.row_sum %t_5 : (tile<[16, 32], [16, 32], fp32>) -> tile<[16, 1], [16, 1], fp32>
              tile.store %6, %row_sum_1 : (tile<[16, 1], [16, 1], fp32>, tensor<[16, 1], fp32>) -> () {offset=[0, 0]}
              %7 = tile.row_max %t_5 : (tile<[16, 32], [16, 32], fp32>) -> tile<[16, 1], [16, 1], fp32>
              tile.store %7, %row_max_2 : (tile<[16, 1], [16, 1], fp32>, tensor<[16, 1], fp32>) -> () {offset=[0, 0]}
              %8 = tile.col_sum %t_5 : (tile<[16, 32], [16, 32], fp32>) -> tile<[1, 32], [1, 32], fp32>
              tile.store %8, %col_sum_3 : (tile<[1, 32], [1, 32], fp32>, tensor<[1, 32], fp32>) -> () {offset=[0, 0]}
              %9 = tile.col_max %t_5 : (tile<[16, 32], [16, 32], fp32>) -> tile<[1, 32], [1, 32], fp32>
              tile.store %9, %col_max_4 : (tile<[1, 32], [1, 32], fp32>, tensor<[1, 32], fp32>) -> () {offset=[0, 0]}
            }
          }
          // func.kind = kernel
        }
    "#]],
    );
}

#[test]
fn broadcast_ir() {
    check(
        broadcast::IR,
        expect![[r#"
        program.module @broadcast {
          program.entry @broadcast
          attr arch = "PTOv2"
          func.func @broadcast(%x_0: tensor<[16, 64], fp32> #in, %v_1: tensor<[1, 64], fp32> #in, %centered_2: tensor<[16, 64], fp32> #out, %scaled_3: tensor<[16, 64], fp32> #out) {
            statement.op {
              %t_4 = tile.load %x_0 : (tensor<[16, 64], fp32>) -> tile<[16, 64], [16, 64], fp32> {shape=[16, 64], offset=[0, 0]}
              %5 = tile.row_max %t_4 : (tile<[16, 64], [16, 64], fp32>) -> tile<[16, 1], [16, 1], fp32>
              %6 = tile.sub %t_4, %5 : (tile<[16, 64], [16, 64], fp32>, tile<[16, 1], [16, 1], fp32>) -> tile<[16, 64], [16, 64], fp32>
              tile.store %6, %centered_2 : (tile<[16, 64], [16, 64], fp32>, tensor<[16, 64], fp32>) -> () {offset=[0, 0]}
              %w_7 = tile.load %v_1 : (tensor<[1, 64], fp32>) -> tile<[1, 64], [1, 64], fp32> {shape=[1, 64], offset=[0, 0]}
              %8 = tile.mul %t_4, %w_7 : (tile<[16, 64], [16, 64], fp32>, tile<[1, 64], [1, 64], fp32>) -> tile<[16, 64], [16, 64], fp32>
              tile.store %8, %scaled_3 : (tile<[16, 64], [16, 64], fp32>, tensor<[16, 64], fp32>) -> () {offset=[0, 0]}
            }
          }
          // func.kind = kernel
        }
    "#]],
    );
}

#[test]
fn matmul_f32_ir() {
    check(
        matmul_f32::IR,
        expect![[r#"
        program.module @matmul_f32 {
          program.entry @matmul_f32
          attr arch = "PTOv2"
          func.func @matmul_f32(%a_0: tensor<[16, 32], fp32> #in, %b_1: tensor<[32, 16], fp32> #in, %c_2: tensor<[16, 16], fp32> #out) {
            statement.op {
              %at_3 = tile.load %a_0 : (tensor<[16, 32], fp32>) -> tile<[16, 32], [16, 32], fp32> {shape=[16, 32], offset=[0, 0]}
              %bt_4 = tile.load %b_1 : (tensor<[32, 16], fp32>) -> tile<[32, 16], [32, 16], fp32> {shape=[32, 16], offset=[0, 0]}
              %5 = tile.matmul %at_3, %bt_4 : (tile<[16, 32], [16, 32], fp32>, tile<[32, 16], [32, 16], fp32>) -> tile<[16, 16], [16, 16], fp32>
              tile.store %5, %c_2 : (tile<[16, 16], [16, 16], fp32>, tensor<[16, 16], fp32>) -> () {offset=[0, 0]}
            }
          }
          // func.kind = kernel
        }
    "#]],
    );
}

#[test]
fn matmul_f16_ir() {
    check(
        matmul_f16::IR,
        expect![[r#"
        program.module @matmul_f16 {
          program.entry @matmul_f16
          attr arch = "PTOv2"
          func.func @matmul_f16(%a_0: tensor<[16, 32], fp16> #in, %b_1: tensor<[32, 16], fp16> #in, %c_2: tensor<[16, 16], fp32> #out) {
            statement.op {
              %at_3 = tile.load %a_0 : (tensor<[16, 32], fp16>) -> tile<[16, 32], [16, 32], fp16> {shape=[16, 32], offset=[0, 0]}
              %bt_4 = tile.load %b_1 : (tensor<[32, 16], fp16>) -> tile<[32, 16], [32, 16], fp16> {shape=[32, 16], offset=[0, 0]}
              %acc_5 = tile.matmul %at_3, %bt_4 : (tile<[16, 32], [16, 32], fp16>, tile<[32, 16], [32, 16], fp16>) -> tile<[16, 16], [16, 16], fp32>
              tile.store %acc_5, %c_2 : (tile<[16, 16], [16, 16], fp32>, tensor<[16, 16], fp32>) -> () {offset=[0, 0]}
            }
          }
          // func.kind = kernel
        }
    "#]],
    );
}

#[test]
fn matmul_splitk_ir() {
    check(
        matmul_splitk::IR,
        expect![[r#"
        program.module @matmul_splitk {
          program.entry @matmul_splitk
          attr arch = "PTOv2"
          func.func @matmul_splitk(%a_0: tensor<[16, %K_1], fp16> #in, %b_2: tensor<[%K_1, 16], fp16> #in, %bias_3: tensor<[1, 16], fp32> #in, %has_bias_4: bool, %c_5: tensor<[16, 16], fp32> #out) {
            statement.op {
              %bias_t_6 = tile.load %bias_3 : (tensor<[1, 16], fp32>) -> tile<[1, 16], [1, 16], fp32> {shape=[1, 16], offset=[0, 0]}
              %7 = 0.0 : fp32
              %acc_8 = tile.full %7 : (fp32) -> tile<[16, 16], [16, 16], fp32> {shape=[16, 16], dtype=fp32}
              %9 = 0 : int64
              %10 = 32 : int64
            }
            %acc_26 = statement.for %k_11 = %9 to %K_1 step %10 iter_args(%acc_23 = %acc_8 : tile<[16, 16], [16, 16], fp32>) {
              statement.op {
                %at_13 = tile.load %a_0 : (tensor<[16, %K_1], fp16>) -> tile<[16, ?], [16, 32], fp16> {shape=[16, 32], offset=[0, %k_11]}
                %bt_15 = tile.load %b_2 : (tensor<[%K_1, 16], fp16>) -> tile<[?, 16], [32, 16], fp16> {shape=[32, 16], offset=[%k_11, 0]}
                %16 = 0 : int64
                %17 = scalar.eq %k_11, %16 : (int64, int64) -> bool
              }
              %acc_25 = statement.if %17 {
                %acc_22 = statement.if %has_bias_4 {
                  statement.op {
                    %acc_20 = tile.matmul_bias %at_13, %bt_15, %bias_t_6 : (tile<[16, ?], [16, 32], fp16>, tile<[?, 16], [32, 16], fp16>, tile<[1, 16], [1, 16], fp32>) -> tile<[16, 16], [16, 16], fp32>
                  }
                  statement.yield %acc_20
                } else {
                  statement.op {
                    %acc_21 = tile.matmul %at_13, %bt_15 : (tile<[16, ?], [16, 32], fp16>, tile<[?, 16], [32, 16], fp16>) -> tile<[16, 16], [16, 16], fp32>
                  }
                  statement.yield %acc_21
                }
                statement.yield %acc_22
              } else {
                statement.op {
                  %acc_24 = tile.matmul_acc %acc_23, %at_13, %bt_15 : (tile<[16, 16], [16, 16], fp32>, tile<[16, ?], [16, 32], fp16>, tile<[?, 16], [32, 16], fp16>) -> tile<[16, 16], [16, 16], fp32>
                }
                statement.yield %acc_24
              }
              statement.yield %acc_25
            }
            statement.op {
              tile.store %acc_26, %c_5 : (tile<[16, 16], [16, 16], fp32>, tensor<[16, 16], fp32>) -> () {offset=[0, 0]}
            }
          }
          // func.kind = kernel
        }
    "#]],
    );
}

#[test]
fn program_parses_back_and_host_fn_exists() {
    let m = scale_rows::program();
    assert_eq!(m.name, "scale_rows");
    assert_eq!(
        scale_rows::IR.lines().next(),
        Some("program.module @scale_rows {")
    );
    type Host = fn(&pto::Tensor<f32>, f32, &mut pto::Tensor<f32>) -> Result<(), pto::Error>;
    let f: Host = scale_rows;
    let x = pto::Tensor::<f32>::zeros([4, 128]);
    let mut out = pto::Tensor::<f32>::zeros([4, 128]);
    // Until the lowering lands the host function returns `Err(Unsupported)`; never a fake result.
    if let Err(e) = f(&x, 2.0, &mut out) {
        assert!(matches!(e, pto::Error::Unsupported(_)), "{e}");
        assert!(scale_rows::LOWERED.starts_with("// lowering not available"));
    }
}

mod support;

/// Issue 14's audit: every kernel of this file as `NAME::CPP` for A2A3 and A5 in the C++
/// model of pto-isa, at a tile-multiple and a ragged size (the static ones at their size),
/// against its host function.
#[test]
fn every_kernel_here_runs_in_the_cpp_model() {
    use support::model::Model;
    let one = || vec![vec![]];
    let mut problems = Vec::new();
    problems.extend(
        Model::new(
            "scale_rows",
            &scale_rows::program(),
            vec![vec![("B", 16)], vec![("B", 5)]],
        )
        .against_host(|t| scale_rows(&t.tensor(0), t.scalar(1) as f32, &mut t.out::<f32>(2))),
    );
    problems.extend(
        Model::new(
            "vector_add_1d",
            &vector_add_1d::program(),
            vec![vec![("N", 2048)], vec![("N", 5000)]],
        )
        .against_host(|t| vector_add_1d(&t.tensor(0), &t.tensor(1), &mut t.out::<f32>(2))),
    );
    problems.extend(
        Model::new(
            "vector_add_2d",
            &vector_add_2d::program(),
            vec![vec![("M", 32), ("N", 128)], vec![("M", 37), ("N", 100)]],
        )
        .against_host(|t| vector_add_2d(&t.tensor(0), &t.tensor(1), &mut t.out::<f32>(2))),
    );
    problems.extend(
        Model::new(
            "vector_add_i32",
            &vector_add_i32::program(),
            vec![vec![("M", 32)], vec![("M", 37)]],
        )
        .against_host(|t| vector_add_i32(&t.tensor(0), &t.tensor(1), &mut t.out::<i32>(2))),
    );
    problems.extend(
        Model::new(
            "axpy",
            &axpy::program(),
            vec![vec![("N", 1024)], vec![("N", 1000)]],
        )
        .against_host(|t| {
            axpy(
                t.scalar(0) as f32,
                &t.tensor(1),
                &t.tensor(2),
                &mut t.out::<f32>(3),
            )
        }),
    );
    problems.extend(
        Model::new(
            "row_softmax",
            &row_softmax::program(),
            vec![vec![("R", 32)], vec![("R", 37)]],
        )
        .against_host(|t| row_softmax(&t.tensor(0), &mut t.out::<f32>(1))),
    );
    problems.extend(
        Model::new("reductions", &reductions::program(), one()).against_host(|t| {
            reductions(
                &t.tensor(0),
                &mut t.out::<f32>(1),
                &mut t.out::<f32>(2),
                &mut t.out::<f32>(3),
                &mut t.out::<f32>(4),
            )
        }),
    );
    problems.extend(
        Model::new("broadcast", &broadcast::program(), one()).against_host(|t| {
            broadcast(
                &t.tensor(0),
                &t.tensor(1),
                &mut t.out::<f32>(2),
                &mut t.out::<f32>(3),
            )
        }),
    );
    problems.extend(
        Model::new("matmul_f32", &matmul_f32::program(), one())
            .against_host(|t| matmul_f32(&t.tensor(0), &t.tensor(1), &mut t.out::<f32>(2))),
    );
    problems.extend(
        Model::new("matmul_f16", &matmul_f16::program(), one())
            .against_host(|t| matmul_f16(&t.tensor(0), &t.tensor(1), &mut t.out::<f32>(2))),
    );
    problems.extend(
        Model::new(
            "matmul_splitk",
            &matmul_splitk::program(),
            vec![vec![("K", 64)], vec![("K", 50)]],
        )
        .against_host(|t| {
            matmul_splitk(
                &t.tensor(0),
                &t.tensor(1),
                &t.tensor(2),
                t.flag(3),
                &mut t.out::<f32>(4),
            )
        }),
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
