//! Quantising stores through kernels: an `i32` accumulator of an `i8` matmul stored into
//! `i8`, `u8` and `f16` tensors, an `f32` accumulator into `i8`, and a split-K `store_add`
//! into `i8`, at tile-multiple and ragged sizes. The host function must equal plain Rust
//! written from the rule (`pto_ir::sem::store`: scale 1.0, round to nearest even, saturate)
//! exactly, and the interpreter on the kernel's IR must equal the host function exactly.
#![allow(clippy::unwrap_used)]

#[path = "quant/kernels.rs"]
mod kernels;

mod support;

use pto::{Tensor, f16};
use support::run::{arg, assert_interp_agrees, data, states, zeros};

/// Deterministic integers in `lo..=hi`.
fn ints(n: usize, seed: u64, lo: i32, hi: i32) -> Vec<i32> {
    states(seed)
        .take(n)
        .map(|s| lo + ((s >> 33) % (hi - lo + 1) as u64) as i32)
        .collect()
}

/// `a @ b` of row-major `m x k` and `k x n` integer matrices, exactly.
fn product(a: &[i32], b: &[i32], m: usize, n: usize, k: usize) -> Vec<i64> {
    let mut out = vec![0i64; m * n];
    for i in 0..m {
        for j in 0..n {
            out[i * n + j] = (0..k).map(|p| i64::from(a[i * k + p] * b[p * n + j])).sum();
        }
    }
    out
}

/// The rule for an 8-bit target, written out: round half to even, then saturate.
fn to_8bit(x: f64, lo: f64, hi: f64) -> f64 {
    let r = x.round();
    let r = if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - x.signum()
    } else {
        r
    };
    r.clamp(lo, hi)
}

/// The sizes: tile multiples, ragged in every dimension, and a K shorter than one tile.
const SIZES: [(usize, usize, usize); 4] = [(32, 32, 64), (37, 21, 50), (16, 16, 32), (5, 40, 7)];

#[test]
fn i32_accumulator_into_i8_and_u8() {
    for (m, n, k) in SIZES {
        let (av, bv) = (ints(m * k, 1, -6, 6), ints(k * n, 2, -6, 6));
        let a = Tensor::from_vec(av.iter().map(|&x| x as i8).collect(), [m, k]).unwrap();
        let b = Tensor::from_vec(bv.iter().map(|&x| x as i8).collect(), [k, n]).unwrap();
        let mut c = Tensor::<i8>::zeros([m, n]);
        let mut u = Tensor::<u8>::zeros([m, n]);
        kernels::matmul_i8(&a, &b, &mut c, &mut u).unwrap();
        let p = product(&av, &bv, m, n, k);
        let want_c: Vec<f64> = p
            .iter()
            .map(|&x| to_8bit(x as f64, -128.0, 127.0))
            .collect();
        let want_u: Vec<f64> = p.iter().map(|&x| to_8bit(x as f64, 0.0, 255.0)).collect();
        assert_eq!(data(&c), want_c, "{m} x {n} x {k} into i8");
        assert_eq!(data(&u), want_u, "{m} x {n} x {k} into u8");
        // Both saturations and in-range values occur (at the longer K).
        assert!(k < 32 || p.iter().any(|&x| x > 127) && p.iter().any(|&x| x < -128));
        assert!(p.iter().any(|&x| (-128..=127).contains(&x) && x != 0));
        assert_interp_agrees(
            &kernels::matmul_i8::program(),
            vec![arg(&a), arg(&b), zeros::<i8>([m, n]), zeros::<u8>([m, n])],
            &[(2, data(&c)), (3, data(&u))],
            &format!("{m} x {n} x {k}"),
        );
    }
}

#[test]
fn f32_accumulator_into_i8() {
    for (m, n, k) in SIZES {
        // Quarters: every product and sum is exact in f32, so the sums do not depend on
        // the order, and halves (ties) occur.
        let (av, bv) = (ints(m * k, 3, -24, 24), ints(k * n, 4, -8, 8));
        let a = Tensor::from_vec(av.iter().map(|&x| x as f32 / 4.0).collect(), [m, k]).unwrap();
        let b = Tensor::from_vec(bv.iter().map(|&x| x as f32 / 2.0).collect(), [k, n]).unwrap();
        let mut c = Tensor::<i8>::zeros([m, n]);
        kernels::matmul_f32_to_i8(&a, &b, &mut c).unwrap();
        let p: Vec<f64> = product(&av, &bv, m, n, k)
            .iter()
            .map(|&x| x as f64 / 8.0)
            .collect();
        let want: Vec<f64> = p.iter().map(|&x| to_8bit(x, -128.0, 127.0)).collect();
        assert_eq!(data(&c), want, "{m} x {n} x {k}");
        assert!(
            p.iter().any(|&x| x.fract().abs() == 0.5),
            "no ties at {m} x {n} x {k}"
        );
        assert!(
            k < 32 || p.iter().any(|&x| x.abs() > 128.0),
            "no saturation at {m} x {n} x {k}"
        );
        assert_interp_agrees(
            &kernels::matmul_f32_to_i8::program(),
            vec![arg(&a), arg(&b), zeros::<i8>([m, n])],
            &[(2, data(&c))],
            &format!("{m} x {n} x {k}"),
        );
    }
}

#[test]
fn i32_accumulator_into_f16_saturates() {
    for (m, n, k) in SIZES {
        let (av, bv) = (ints(m * k, 5, -127, 127), ints(k * n, 6, -127, 127));
        let a = Tensor::from_vec(av.iter().map(|&x| x as i8).collect(), [m, k]).unwrap();
        let b = Tensor::from_vec(bv.iter().map(|&x| x as i8).collect(), [k, n]).unwrap();
        let mut c = Tensor::<f16>::zeros([m, n]);
        kernels::matmul_i8_to_f16(&a, &b, &mut c).unwrap();
        let p = product(&av, &bv, m, n, k);
        let want: Vec<f64> = p
            .iter()
            .map(|&x| f64::from(f16::from_f32((x as f32).clamp(-65504.0, 65504.0)).to_f32()))
            .collect();
        assert_eq!(data(&c), want, "{m} x {n} x {k}");
        if k >= 50 {
            assert!(
                p.iter().any(|&x| x.abs() > 65504),
                "no saturation at {m} x {n} x {k}"
            );
        }
        assert_interp_agrees(
            &kernels::matmul_i8_to_f16::program(),
            vec![arg(&a), arg(&b), zeros::<f16>([m, n])],
            &[(2, data(&c))],
            &format!("{m} x {n} x {k}"),
        );
    }
}

#[test]
fn split_k_quantised_store_add_wraps_in_i8() {
    for (m, n, k) in SIZES {
        let (av, bv) = (ints(m * k, 7, -3, 3), ints(k * n, 8, -3, 3));
        let a = Tensor::from_vec(av.iter().map(|&x| x as i8).collect(), [m, k]).unwrap();
        let b = Tensor::from_vec(bv.iter().map(|&x| x as i8).collect(), [k, n]).unwrap();
        let start: Vec<i8> = ints(m * n, 9, -100, 100).iter().map(|&x| x as i8).collect();
        let mut c = Tensor::from_vec(start.clone(), [m, n]).unwrap();
        kernels::splitk_i8(&a, &b, &mut c).unwrap();
        // Each 32-wide chunk is quantised on its own, then added with wrapping.
        let mut want = start.clone();
        for k0 in (0..k).step_by(32) {
            let w = (k - k0).min(32);
            let ac: Vec<i32> = (0..m)
                .flat_map(|i| av[i * k + k0..i * k + k0 + w].to_vec())
                .collect();
            let bc: Vec<i32> = bv[k0 * n..(k0 + w) * n].to_vec();
            for (d, x) in want.iter_mut().zip(product(&ac, &bc, m, n, w)) {
                *d = d.wrapping_add(to_8bit(x as f64, -128.0, 127.0) as i8);
            }
        }
        assert_eq!(c.as_slice(), &want[..], "{m} x {n} x {k}");
        assert_interp_agrees(
            &kernels::splitk_i8::program(),
            vec![
                arg(&a),
                arg(&b),
                arg(&Tensor::from_vec(start, [m, n]).unwrap()),
            ],
            &[(2, data(&c))],
            &format!("{m} x {n} x {k}"),
        );
    }
}
