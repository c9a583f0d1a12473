//! Issue 14: `extract(..)` of a tile used directly as a matmul operand. pto-isa's
//! `TEXTRACT` into Left / Right takes a boxed Mat source on A2A3 and A5 (no target extracts
//! from a Vec tile into Left / Right), so the source lives in Mat, on the cube core of A2A3:
//! loaded there, or moved there from Vec (on A2A3 the vector-to-cube transfer) or from Acc.
//! Likewise a filled tile (`Tile::full`) as an operand is filled in Mat (`TEXPANDS` takes
//! Vec and Mat tiles) and moved to Left.
//! Each kernel's host function matches the interpreter (exactly) and plain Rust, and its
//! `CPP` for A2A3 and A5 runs in the C++ model at aligned and ragged sizes.
#![allow(clippy::unwrap_used)]

#[path = "extract_operand/kernels.rs"]
mod kernels;

mod support;

use pto::ir::ProgramModule;
use pto_lower::interp::HostValue;
use support::model::harness::{args_for, dims_by_name};
use support::run::{Args, host, interp};

type Call = fn(&Args) -> Result<(), pto::Error>;
/// Plain Rust from the arguments and the sizes: `(argument index, expected data)` per
/// output.
type Reference = fn(&[HostValue], &[usize]) -> Vec<(usize, Vec<f64>)>;

struct Case {
    name: &'static str,
    m: ProgramModule,
    call: Call,
    reference: Reference,
}

fn t(args: &[HostValue], k: usize) -> Vec<f64> {
    args[k].as_tensor().unwrap().data.clone()
}

/// `a[:, c0..c0 + k] (m x k, from rows of width lda) @ b[r0..r0 + k, :] (rows of width ldb)`.
#[allow(clippy::too_many_arguments)]
fn mm(
    a: &[f64],
    lda: usize,
    c0: usize,
    b: &[f64],
    ldb: usize,
    r0: usize,
    m: usize,
    k: usize,
    n: usize,
) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            for j in 0..n {
                c[i * n + j] += a[i * lda + c0 + p] * b[(r0 + p) * ldb + j];
            }
        }
    }
    c
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "extract_left",
            m: kernels::extract_left::program(),
            call: |a| kernels::extract_left(&a.tensor(0), &a.tensor(1), &mut a.out::<f32>(2)),
            reference: |x, d| vec![(2, mm(&t(x, 0), 64, 32, &t(x, 1), d[1], 0, d[0], 32, d[1]))],
        },
        Case {
            name: "extract_right",
            m: kernels::extract_right::program(),
            call: |a| kernels::extract_right(&a.tensor(0), &a.tensor(1), &mut a.out::<f32>(2)),
            reference: |x, d| vec![(2, mm(&t(x, 0), 32, 0, &t(x, 1), d[1], 32, d[0], 32, d[1]))],
        },
        Case {
            name: "extract_scaled",
            m: kernels::extract_scaled::program(),
            call: |a| {
                let s = a.scalar(2) as f32;
                kernels::extract_scaled(&a.tensor(0), &a.tensor(1), s, &mut a.out::<f32>(3))
            },
            reference: |x, d| {
                let s = x[2].as_f64().unwrap() as f32;
                let a: Vec<f64> = t(x, 0).iter().map(|&v| f64::from(v as f32 * s)).collect();
                vec![(3, mm(&a, 64, 0, &t(x, 1), d[1], 0, d[0], 32, d[1]))]
            },
        },
        Case {
            name: "extract_product",
            m: kernels::extract_product::program(),
            call: |a| {
                kernels::extract_product(
                    &a.tensor(0),
                    &a.tensor(1),
                    &a.tensor(2),
                    &mut a.out::<f32>(3),
                )
            },
            reference: |x, d| {
                // The product is an f32 tile before the second matmul reads it.
                let h: Vec<f64> = mm(&t(x, 0), 32, 0, &t(x, 1), 64, 0, d[0], 32, 64)
                    .iter()
                    .map(|&v| f64::from(v as f32))
                    .collect();
                vec![(3, mm(&h, 64, 16, &t(x, 2), d[1], 0, d[0], 32, d[1]))]
            },
        },
        Case {
            name: "extract_and_reduce",
            m: kernels::extract_and_reduce::program(),
            call: |a| {
                kernels::extract_and_reduce(
                    &a.tensor(0),
                    &a.tensor(1),
                    &mut a.out::<f32>(2),
                    &mut a.out::<f32>(3),
                )
            },
            reference: |x, d| {
                let a = t(x, 0);
                let rows = a.chunks(64).map(|r| r.iter().sum()).collect();
                vec![(2, mm(&a, 64, 0, &t(x, 1), 16, 0, d[0], 32, 16)), (3, rows)]
            },
        },
        Case {
            name: "filled_left",
            m: kernels::filled_left::program(),
            call: |a| kernels::filled_left(&a.tensor(0), &mut a.out::<f32>(1)),
            reference: |x, d| {
                let half = vec![0.5; 16 * 32];
                vec![(1, mm(&half, 32, 0, &t(x, 0), d[0], 0, 16, 32, d[0]))]
            },
        },
    ]
}

/// Sizes by symbolic dimension: tile multiples, then ragged M and N.
fn sizes() -> Vec<Vec<(&'static str, usize)>> {
    vec![vec![("M", 32), ("N", 32)], vec![("M", 37), ("N", 21)]]
}

#[test]
fn host_matches_the_interpreter_and_plain_rust() {
    for c in cases() {
        for (k, set) in sizes().iter().enumerate() {
            let dims = dims_by_name(&c.m, set);
            let args = args_for(&c.m, &dims, 7 + k as u64, false);
            let mut got = args.clone();
            host(&mut got, c.call).unwrap();
            let want = interp(&c.m, args.clone());
            for (i, v) in got.iter().enumerate() {
                if let Some(g) = v.as_tensor() {
                    assert_eq!(
                        g.data, want[i],
                        "{} {set:?}: host vs interpreter, argument {i}",
                        c.name
                    );
                }
            }
            for (i, r) in (c.reference)(&args, &dims) {
                let g = &got[i].as_tensor().unwrap().data;
                // Relative to the largest element: a second matmul's sums cancel.
                let scale = r.iter().fold(1.0f64, |a, &v| a.max(v.abs()));
                let err = g
                    .iter()
                    .zip(&r)
                    .fold(0.0f64, |a, (g, w)| a.max((g - w).abs()))
                    / scale;
                assert!(
                    err <= 1e-5,
                    "{} {set:?}: argument {i} vs plain Rust (f64): {err:.2e}",
                    c.name
                );
            }
        }
    }
}

#[test]
fn every_kernel_runs_in_the_cpp_model_on_both_targets() {
    let mut problems = Vec::new();
    for c in cases() {
        problems.extend(support::model::check(c.name, &c.m, &sizes(), true));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// On A2A3 the extract runs on the cube core, from a Mat tile: the C++ of the cube part
/// declares the source and no TEXTRACT reads a Vec tile.
#[test]
fn the_extract_reads_a_mat_tile() {
    for c in cases() {
        for target in ["A2A3", "A5"] {
            let cpp = support::model::harness::cpp_for(&c.m, target).unwrap();
            for line in cpp.lines().filter(|l| l.contains("TEXTRACT(")) {
                let src = line.split(['(', ',']).nth(2).unwrap().trim();
                let decl = cpp
                    .lines()
                    .find(|l| l.contains(&format!(" {src};")) || l.contains(&format!(" {src}(")))
                    .unwrap_or_else(|| {
                        panic!("{} {target}: {src} is not declared:\n{cpp}", c.name)
                    });
                assert!(
                    decl.contains("TileType::Mat"),
                    "{} {target}: {line} reads {decl}",
                    c.name
                );
            }
        }
    }
}
