//! Issue 16 part B through kernels: `load_or` (padded loads), `store_add` and converting
//! stores, at tile-multiple and ragged sizes, through the host function (against plain Rust)
//! and the interpreter on the kernel's IR (which must agree exactly).
#![allow(clippy::unwrap_used)]

#[path = "ops_b/kernels.rs"]
mod kernels;

mod support;

use pto::ir::DataType;
use pto::{Tensor, bf16};
use pto_lower::interp::{HostValue, run};
use support::run::{arg, assert_interp_agrees, data, interp, values, zeros};

#[test]
fn load_or_pads_outside_the_tensor() {
    for (r, c) in [(16, 64), (40, 64), (37, 50), (5, 130)] {
        let x = values(r * c, (r * 7 + c) as u64, -1.0, 1.0);
        let xt = Tensor::from_vec(x.clone(), [r, c]).unwrap();
        let mut out = Tensor::<f32>::zeros([r, 1]);
        kernels::padded_row_sums(&xt, &mut out).unwrap();
        // Each row: its sum, plus 1.0 for each padded column of its last tile.
        let pads = c.div_ceil(64) * 64 - c;
        for i in 0..r {
            let want: f32 = x[i * c..(i + 1) * c].iter().sum::<f32>() + pads as f32;
            let got = out.as_slice()[i];
            assert!(
                (got - want).abs() <= 1e-4 * want.abs().max(1.0),
                "{r} x {c} row {i}: {got} vs {want}"
            );
        }
        assert_interp_agrees(
            &kernels::padded_row_sums::program(),
            vec![arg(&xt), zeros::<f32>([r, 1])],
            &[(1, data(&out))],
            &format!("{r} x {c}"),
        );
    }
}

#[test]
fn load_or_with_the_identity_of_max_reduces_whole_tiles() {
    for (r, c) in [(16, 16), (13, 21), (3, 5)] {
        let x: Vec<i32> = values(r * c, (r + c) as u64, -1e6, -1e3)
            .iter()
            .map(|&v| v as i32)
            .collect();
        let xt = Tensor::from_vec(x.clone(), [r, c]).unwrap();
        let mut out = Tensor::<i32>::zeros([1, c]);
        kernels::padded_col_max(&xt, &mut out).unwrap();
        let want: Vec<i32> = (0..c)
            .map(|j| (0..r).map(|i| x[i * c + j]).max().unwrap())
            .collect();
        assert_eq!(out.as_slice(), &want[..], "{r} x {c}");
        assert_interp_agrees(
            &kernels::padded_col_max::program(),
            vec![arg(&xt), zeros::<i32>([1, c])],
            &[(1, data(&out))],
            &format!("{r} x {c}"),
        );
    }
}

#[test]
fn store_add_accumulates_into_the_output() {
    for (r, c) in [(32, 64), (37, 50), (1, 7)] {
        let x = values(r * c, 3, -2.0, 2.0);
        let start = values(r * c, 4, -2.0, 2.0);
        let xt = Tensor::from_vec(x.clone(), [r, c]).unwrap();
        let mut out = Tensor::from_vec(start.clone(), [r, c]).unwrap();
        let start_t = out.clone();
        kernels::add_twice(&xt, &mut out).unwrap();
        for i in 0..r * c {
            assert_eq!(
                out.as_slice()[i],
                start[i] + x[i] + x[i],
                "{r} x {c} element {i}"
            );
        }
        assert_interp_agrees(
            &kernels::add_twice::program(),
            vec![arg(&xt), arg(&start_t)],
            &[(1, data(&out))],
            &format!("{r} x {c}"),
        );
    }
}

#[test]
fn converting_store_rounds_an_accumulator_to_bf16() {
    for (m, n) in [(16, 16), (20, 37)] {
        let (k, av, bv) = (
            32,
            values(m * 32, 5, -1.0, 1.0),
            values(32 * n, 6, -1.0, 1.0),
        );
        let a = Tensor::from_vec(av.clone(), [m, k]).unwrap();
        let b = Tensor::from_vec(bv.clone(), [k, n]).unwrap();
        let mut c = Tensor::<bf16>::zeros([m, n]);
        kernels::matmul_to_bf16(&a, &b, &mut c).unwrap();
        for i in 0..m {
            for j in 0..n {
                let s: f32 = (0..k).map(|p| av[i * k + p] * bv[p * n + j]).sum();
                let got = c.as_slice()[i * n + j].to_f32();
                // One bf16 rounding (8 significant bits) of the f32 sum.
                assert!(
                    (got - s).abs() <= s.abs() / 128.0 + 1e-6,
                    "{m} x {n} [{i}, {j}]: {got} vs {s}"
                );
            }
        }
        let zero = Tensor::<bf16>::zeros([m, n]);
        let by_interp = interp(
            &kernels::matmul_to_bf16::program(),
            vec![arg(&a), arg(&b), arg(&zero)],
        );
        let host_c = data(&c);
        let differ = by_interp[2]
            .iter()
            .zip(&host_c)
            .filter(|(x, y)| x != y)
            .count();
        // The interpreter sums in another order; a tie may round the other way, rarely.
        assert!(
            differ * 50 <= m * n,
            "{differ} of {} elements differ",
            m * n
        );
    }
}

#[test]
fn read_and_write_single_elements() {
    for (r, c, row) in [(16, 64, 3usize), (37, 50, 36), (1, 2, 0)] {
        let x = values(r * c, 9, -3.0, 3.0);
        let xt = Tensor::from_vec(x.clone(), [r, c]).unwrap();
        let mut out = Tensor::<f32>::zeros([r, c]);
        let zero = out.clone();
        kernels::element_access(&xt, row as i64, &mut out).unwrap();
        let mut want: Vec<f32> = x.iter().map(|v| v * x[0]).collect();
        want[0] = x[r * c - 1] + 1.0;
        want[row * c + 1] = x[0];
        assert_eq!(out.as_slice(), &want[..], "{r} x {c}");
        assert_interp_agrees(
            &kernels::element_access::program(),
            vec![
                arg(&xt),
                HostValue::scalar(DataType::Int64, row as f64).unwrap(),
                arg(&zero),
            ],
            &[(2, data(&out))],
            &format!("{r} x {c}"),
        );
    }
}

#[test]
fn an_element_index_outside_the_tensor_is_err() {
    let xt = Tensor::from_vec(vec![1.0f32; 4 * 8], [4, 8]).unwrap();
    let mut out = Tensor::<f32>::zeros([4, 8]);
    for row in [4i64, -1, i64::MAX] {
        let e = kernels::element_access(&xt, row, &mut out).unwrap_err();
        assert!(matches!(e, pto::Error::OutOfBounds { .. }), "{e}");
        let mut args = vec![
            arg(&xt),
            HostValue::scalar(DataType::Int64, row as f64).unwrap(),
            arg(&out),
        ];
        let m = kernels::element_access::program();
        assert!(
            run(&m, m.entry.unwrap(), &mut args).is_err(),
            "the interpreter at row {row}"
        );
    }
}

/// The plain-Rust `reshape_insert`: `x` padded with `pad` outside it, as `r x c` row-major.
fn window(x: &[f32], (xr, xc): (usize, usize), (r, c): (usize, usize), pad: f32) -> Vec<f32> {
    (0..r * c)
        .map(|k| {
            let (i, j) = (k / c, k % c);
            if i < xr && j < xc { x[i * xc + j] } else { pad }
        })
        .collect()
}

#[test]
fn reshape_and_insert() {
    for (r, c, col) in [(16, 64, 8usize), (5, 40, 0), (20, 3, 3)] {
        let x = values(r * c, 11, -3.0, 3.0);
        let xt = Tensor::from_vec(x.clone(), [r, c]).unwrap();
        let (mut y, mut z) = (
            Tensor::<f32>::zeros([32, 32]),
            Tensor::<f32>::zeros([16, 16]),
        );
        let (y0, z0) = (y.clone(), z.clone());
        kernels::reshape_insert(&xt, col as i64, &mut y, &mut z).unwrap();
        // The same elements, row-major, in the new shape.
        assert_eq!(
            y.as_slice(),
            &window(&x, (r, c), (16, 64), 0.0)[..],
            "{r} x {c}"
        );
        let small = window(&x, (r, c), (8, 8), -1.0);
        let mut want = vec![0.0f32; 256];
        for i in 0..8 {
            for j in 0..8 {
                want[(4 + i) * 16 + 8 + j] = small[i * 8 + j];
            }
        }
        for i in 0..8 {
            for j in 0..8 {
                want[i * 16 + col + j] = small[i * 8 + j] * 2.0;
            }
        }
        assert_eq!(z.as_slice(), &want[..], "{r} x {c} at column {col}");
        assert_interp_agrees(
            &kernels::reshape_insert::program(),
            vec![
                arg(&xt),
                HostValue::scalar(DataType::Int64, col as f64).unwrap(),
                arg(&y0),
                arg(&z0),
            ],
            &[(2, data(&y)), (3, data(&z))],
            &format!("{r} x {c}"),
        );
    }
    // A run-time offset whose 8 x 8 tile does not fit the 16 x 16 one.
    let xt = Tensor::from_vec(vec![1.0f32; 64], [8, 8]).unwrap();
    let (mut y, mut z) = (
        Tensor::<f32>::zeros([32, 32]),
        Tensor::<f32>::zeros([16, 16]),
    );
    let e = kernels::reshape_insert(&xt, 9, &mut y, &mut z).unwrap_err();
    assert!(matches!(e, pto::Error::OutOfBounds { .. }), "{e}");
}

#[test]
fn the_cpp_pads_through_the_tile_type() {
    let cpp = kernels::padded_row_sums::CPP;
    assert!(cpp.contains("PadValueCustom(1.0f)> pv;"), "{cpp}");
    assert!(cpp.contains("TFILLPAD_INPLACE(pv, "), "{cpp}");
    assert!(kernels::padded_col_max::CPP.contains("PadValue::Min> pv;"));
    assert!(kernels::add_twice::CPP.contains("AtomicType::AtomicAdd>("));
    let ri = kernels::reshape_insert::CPP;
    assert!(
        ri.contains("TRESHAPE(rv, ") && ri.contains("TINSERT("),
        "{ri}"
    );
    eprintln!("{}\n{ri}", kernels::reshape_insert::IR);
    eprintln!("{}", kernels::element_access::LOWERED);
    eprintln!("{}", kernels::reshape_insert::LOWERED);
    let access = kernels::element_access::CPP;
    assert!(access.contains("const float s_"), "{access}");
    eprintln!(
        "{}\n{cpp}\n{}\n{access}",
        kernels::padded_row_sums::IR,
        kernels::element_access::IR
    );
}
