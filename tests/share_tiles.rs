//! The copies the host code skips (`pto-lower`'s `lower/share.rs`): matmul operands read in
//! place of their `TMOV`s, tiles loaded straight into the tile the matmul reads, in GEMMs
//! through tiles at tile-multiple and ragged `M`, `N`, `K` (edge windows whose tiles are only
//! partly valid). The host code must give exactly the interpreter's bits (which runs every
//! `TMOV`), and `LOWERED` must show the marks.
#![allow(clippy::unwrap_used)]

use pto::prelude::*;
use pto_lower::interp::{HostTensor, HostValue, run};

/// `matmul` at `k == 0`, `matmul_acc` after: each branch reads the loaded tiles in place.
#[pto::kernel]
pub fn gemm_branch(a: &Tensor<f32, M, K>, b: &Tensor<f32, K, N>, #[out] c: &mut Tensor<f32, M, N>) {
    for i in (0..M).step_by(32) {
        for j in (0..N).step_by(16) {
            let mut acc = Tile::<f32, 32, 16>::zeros();
            for k in (0..K).step_by(32) {
                let at = a.load::<32, 32>([i, k]);
                let bt = b.load::<32, 16>([k, j]);
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

/// A zero accumulator carried through `matmul_acc`: the operands load straight into the
/// tiles the matmul reads.
#[pto::kernel]
pub fn gemm_carried(
    a: &Tensor<f16, M, K>,
    b: &Tensor<f16, K, N>,
    #[out] c: &mut Tensor<f32, M, N>,
) {
    for i in (0..M).step_by(16) {
        for j in (0..N).step_by(32) {
            let mut acc = Tile::<f32, 16, 32>::zeros();
            for k in (0..K).step_by(16) {
                let at = a.load::<16, 16>([i, k]);
                let bt = b.load::<16, 32>([k, j]);
                acc = matmul_acc(acc, at, bt);
            }
            c.store([i, j], acc);
        }
    }
}

/// One loaded tile read by two matmuls and by a vector op: the moved tile is read twice
/// and the loaded one again after the moves.
#[pto::kernel]
pub fn two_products(
    a: &Tensor<f32, M, K>,
    b: &Tensor<f32, K, N>,
    d: &Tensor<f32, K, N>,
    #[out] c: &mut Tensor<f32, M, N>,
    #[out] e: &mut Tensor<f32, M, N>,
    #[out] s: &mut Tensor<f32, M, K>,
) {
    for i in (0..M).step_by(16) {
        let at = a.load::<16, 32>([i, 0]);
        c.store([i, 0], matmul(at, b.load::<32, 16>([0, 0])));
        e.store([i, 0], matmul(at, d.load::<32, 16>([0, 0])));
        s.store([i, 0], at * 2.0);
    }
}

/// Deterministic values in `[-4, 4)` with a fractional part.
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            8.0 * ((s >> 40) as f32 / (1u64 << 24) as f32) - 4.0
        })
        .collect()
}

fn host(d: DataType, v: &[f32], s: &[usize]) -> HostValue {
    let data = v.iter().map(|&x| f64::from(x)).collect();
    HostValue::Tensor(HostTensor::new(d, s.to_vec(), data).unwrap())
}

use pto::ir::DataType;

/// Runs `m` in the interpreter and returns each tensor after the run.
fn interp(m: &pto::ir::ProgramModule, mut vals: Vec<HostValue>) -> Vec<Vec<f32>> {
    run(m, m.entry.unwrap(), &mut vals).unwrap();
    vals.iter()
        .map(|a| {
            a.as_tensor()
                .unwrap()
                .data
                .iter()
                .map(|&x| x as f32)
                .collect()
        })
        .collect()
}

/// `(M, K, N)`: tile multiples, ragged each way, all ragged, smaller than one tile.
const SIZES: [(usize, usize, usize); 6] = [
    (64, 64, 32),
    (45, 64, 32),
    (64, 50, 32),
    (64, 64, 23),
    (37, 41, 29),
    (5, 7, 3),
];

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn lowered_shows_the_marks() {
    assert!(gemm_branch::LOWERED.contains("share-tiles"));
    assert!(
        gemm_branch::LOWERED.contains("share t") && gemm_branch::LOWERED.contains("TMATMUL_ACC")
    );
    assert!(gemm_carried::LOWERED.contains("// "));
    assert!(two_products::LOWERED.contains("share t"));
    // The C++ still moves each operand.
    assert!(gemm_branch::CPP.contains("TMOV("));
}

#[test]
fn gemms_match_the_interpreter() {
    for (m, k, n) in SIZES {
        let (av, bv) = (
            values(m * k, (m * 31 + k) as u64),
            values(k * n, (k * 17 + n) as u64),
        );
        let mut c = Tensor::<f32>::full([m, n], -1.0);
        gemm_branch(
            &Tensor::from_vec(av.clone(), [m, k]).unwrap(),
            &Tensor::from_vec(bv.clone(), [k, n]).unwrap(),
            &mut c,
        )
        .unwrap();
        let init = vec![-1.0; m * n];
        let want = interp(
            &gemm_branch::program(),
            vec![
                host(DataType::Fp32, &av, &[m, k]),
                host(DataType::Fp32, &bv, &[k, n]),
                host(DataType::Fp32, &init, &[m, n]),
            ],
        );
        assert_eq!(
            bits(c.as_slice()),
            bits(&want[2]),
            "gemm_branch {m} x {k} x {n}"
        );

        // f16 inputs (values exact in f16: multiples of 2^-8 in [-4, 4)).
        let h = |v: &[f32]| -> Vec<f32> { v.iter().map(|x| (x * 256.0).round() / 256.0).collect() };
        let (ah, bh) = (h(&av), h(&bv));
        let to16 = |v: &[f32]| v.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>();
        let mut c = Tensor::<f32>::full([m, n], -1.0);
        gemm_carried(
            &Tensor::from_vec(to16(&ah), [m, k]).unwrap(),
            &Tensor::from_vec(to16(&bh), [k, n]).unwrap(),
            &mut c,
        )
        .unwrap();
        let want = interp(
            &gemm_carried::program(),
            vec![
                host(DataType::Fp16, &ah, &[m, k]),
                host(DataType::Fp16, &bh, &[k, n]),
                host(DataType::Fp32, &init, &[m, n]),
            ],
        );
        assert_eq!(
            bits(c.as_slice()),
            bits(&want[2]),
            "gemm_carried {m} x {k} x {n}"
        );
    }
}

#[test]
fn a_tile_read_again_matches_the_interpreter() {
    for (m, k, n) in [(32, 32, 16), (21, 32, 16), (32, 19, 11), (3, 5, 7)] {
        let (av, bv, dv) = (values(m * k, 1), values(k * n, 2), values(k * n, 3));
        let (mut c, mut e, mut s) = (
            Tensor::<f32>::full([m, n], -1.0),
            Tensor::<f32>::full([m, n], -1.0),
            Tensor::<f32>::full([m, k], -1.0),
        );
        two_products(
            &Tensor::from_vec(av.clone(), [m, k]).unwrap(),
            &Tensor::from_vec(bv.clone(), [k, n]).unwrap(),
            &Tensor::from_vec(dv.clone(), [k, n]).unwrap(),
            &mut c,
            &mut e,
            &mut s,
        )
        .unwrap();
        let f = DataType::Fp32;
        let want = interp(
            &two_products::program(),
            vec![
                host(f, &av, &[m, k]),
                host(f, &bv, &[k, n]),
                host(f, &dv, &[k, n]),
                host(f, &vec![-1.0; m * n], &[m, n]),
                host(f, &vec![-1.0; m * n], &[m, n]),
                host(f, &vec![-1.0; m * k], &[m, k]),
            ],
        );
        assert_eq!(bits(c.as_slice()), bits(&want[3]), "c {m} x {k} x {n}");
        assert_eq!(bits(e.as_slice()), bits(&want[4]), "e {m} x {k} x {n}");
        assert_eq!(bits(s.as_slice()), bits(&want[5]), "s {m} x {k} x {n}");
    }
}
