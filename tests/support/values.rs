//! Moving tensors between the interpreter's values and `pto::Tensor`s, and the plain-f64
//! references the kernel tests compare with (`tests/chain.rs`, `tests/cross_core.rs`).
#![allow(clippy::unwrap_used)]

use pto::Tensor;
use pto_lower::interp::{HostTensor, HostValue};

/// The tensor `v` holds, as `f32`.
pub fn tensor(v: &HostValue) -> Tensor<f32> {
    let t = v.as_tensor().unwrap();
    Tensor::from_vec_dyn(t.data.iter().map(|&x| x as f32).collect(), &t.shape).unwrap()
}

/// The tensor `v` holds, as `i64`.
pub fn tensor_i64(v: &HostValue) -> Tensor<i64> {
    let t = v.as_tensor().unwrap();
    Tensor::from_vec_dyn(t.data.iter().map(|&x| x as i64).collect(), &t.shape).unwrap()
}

/// Replaces the elements of the tensor `v` holds with `t`'s.
pub fn put<T: Copy + Into<f64>>(v: &mut HostValue, t: &Tensor<T>) {
    let HostValue::Tensor(h) = v else { return };
    *h = HostTensor::new(
        h.dtype,
        h.shape.clone(),
        t.as_slice().iter().map(|&x| x.into()).collect(),
    )
    .unwrap();
}

/// The elements of the tensor `v` holds.
pub fn data(v: &HostValue) -> Vec<f64> {
    v.as_tensor().unwrap().data.clone()
}

/// `a (m x k) @ b (k x n)` in f64.
pub fn mm(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            for j in 0..n {
                c[i * n + j] += a[i * k + p] * b[p * n + j];
            }
        }
    }
    c
}

/// The largest difference relative to `max(|want|, 1)`.
pub fn max_error(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    got.iter()
        .zip(want)
        .map(|(g, w)| (g - w).abs() / w.abs().max(1.0))
        .fold(0.0, f64::max)
}

/// An f32 tensor of `shape` holding `d`, as the interpreter takes it.
pub fn host_f32(d: &[f32], shape: &[usize]) -> HostValue {
    let data = d.iter().map(|&x| f64::from(x)).collect();
    HostValue::Tensor(HostTensor::new(pto::ir::DataType::Fp32, shape.to_vec(), data).unwrap())
}

/// Runs `m`'s entry in the interpreter on `args` and returns each argument's bits after it
/// (as f32, as [`f32_bits`] gives them; tensors only).
pub fn interp_bits(m: &pto::ir::ProgramModule, mut args: Vec<HostValue>) -> Vec<Vec<u32>> {
    pto_lower::interp::run(m, m.entry.unwrap(), &mut args).unwrap();
    args.iter()
        .filter_map(|a| a.as_tensor())
        .map(|t| t.data.iter().map(|&x| f32_bits(x as f32)).collect())
        .collect()
}

/// A tensor's elements as bits (as [`f32_bits`] gives them).
pub fn bits(t: &Tensor<f32>) -> Vec<u32> {
    t.as_slice().iter().map(|&x| f32_bits(x)).collect()
}

/// `x`'s bits, every NaN as one value: a NaN result's sign and payload are unspecified
/// (`pto_ir::sem`), every other bit (a zero's sign too) is compared.
pub fn f32_bits(x: f32) -> u32 {
    if x.is_nan() { u32::MAX } else { x.to_bits() }
}
