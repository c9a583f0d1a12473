//! Matrix multiplication on the cube unit: `TMATMUL`, `TMATMUL_ACC`, `TMATMUL_BIAS`.
//!
//! `C[i, j] = sum_k A[i, k] * B[k, j]` with `m = a.valid_rows`, `n = b.valid_cols` and
//! `k = min(a.valid_cols, b.valid_rows)` (PTO takes `k = a.valid_cols` and requires `b` to
//! cover it; taking the shared extent means a `K` edge tile whose two operands were loaded
//! with the same valid `k` needs nothing special, and nothing outside a valid region is read).
//! Inputs are widened to their [`Accumulate::Acc`] type before multiplying, so `f16`/`bf16`
//! accumulate in `f32` and `i8` in `i32`. Each element adds its products in `k` order, a
//! float one as a chain of fused multiply-adds (`acc = fma(a, b, acc)`, one rounding per
//! step), an integer one wrapping: the semantics module's step (`pto_ir::sem::MatmulStep`,
//! [`Accumulate::mul_add_widened`]). The result's valid region is `(m, n)`, and for
//! `TMATMUL_ACC` the region covering that and the accumulator's.
//!
//! The static shapes `A: M x K`, `B: K x N`, `C: M x N` are const generics (PTO's static
//! checks), so these instructions cannot fail.

use crate::Tile;
use crate::element::{Accumulate, Element};

/// Output rows one micro-kernel call computes.
const MR: usize = 4;
/// Output columns one micro-kernel call computes (one or two SIMD registers per row).
const NR: usize = 16;

/// What an output element starts from before the products are added.
#[derive(Clone, Copy)]
enum Start<'a, T, const N: usize> {
    /// Zero (`TMATMUL`).
    Zero,
    /// The same row of another tile (`TMATMUL_ACC` with a separate input accumulator).
    Rows(&'a [[T; N]]),
    /// A row broadcast down the rows (`TMATMUL_BIAS`).
    Bias(&'a [T; N]),
    /// The output's own value (`TMATMUL_ACC` in place).
    Keep,
}

impl<'a, T: Element, const N: usize> Start<'a, T, N> {
    /// Row `i`'s starting values, given the output row `own`.
    #[inline(always)]
    fn row(self, i: usize, own: &'a [T; N]) -> &'a [T] {
        match self {
            Start::Zero => &[],
            Start::Rows(rows) => rows.get(i).map_or(&[], |r| &r[..]),
            Start::Bias(row) => row,
            Start::Keep => own,
        }
    }
}

/// `c[i, j0 + l] += sum_k ap[i][k] * bp[k][bj + l]` for the `ROWS` rows given and `l < NR`,
/// the `ROWS x NR` block held in registers across the whole `k` loop. `bp` is a packed
/// `k x NR` panel (`BN = NR`, `bj = 0`) or the `b` tile's rows themselves. Each element is
/// the accumulator's chain of matmul steps in `k` order, as in the naive loop.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn micro_kernel<
    A: Accumulate,
    const ROWS: usize,
    const K: usize,
    const N: usize,
    const BN: usize,
>(
    c: &mut [[A::Acc; N]],
    start: Start<'_, A::Acc, N>,
    i0: usize,
    ap: &[[A::Acc; K]; ROWS],
    bp: &[[A::Acc; BN]],
    bj: usize,
    j0: usize,
) {
    if bj + NR > BN {
        return;
    }
    let mut acc = [[<A::Acc as Element>::ZERO; NR]; ROWS];
    for (r, (acc, crow)) in acc.iter_mut().zip(&*c).enumerate() {
        if let Some(src) = start.row(i0 + r, crow).get(j0..j0 + NR) {
            acc.copy_from_slice(src);
        }
    }
    let k = bp.len().min(K);
    for (kk, bv) in bp[..k].iter().enumerate() {
        let bv = &bv[bj..bj + NR];
        for (acc, arow) in acc.iter_mut().zip(ap) {
            let av = arow[kk];
            for (c, &b) in acc.iter_mut().zip(bv) {
                *c = A::mul_add_widened(*c, av, b);
            }
        }
    }
    for (acc, crow) in acc.iter().zip(c) {
        if let Some(dst) = crow.get_mut(j0..j0 + NR) {
            dst.copy_from_slice(acc);
        }
    }
}

/// `ROWS` rows of `a` (their first `k` elements), widened.
#[inline(always)]
fn pack_rows<A: Accumulate, const ROWS: usize, const K: usize>(
    dst: &mut [[A::Acc; K]; ROWS],
    a: &[[A; K]],
    k: usize,
) {
    for (d, s) in dst.iter_mut().zip(a) {
        A::widen_slice(&s[..k], &mut d[..k]);
    }
}

/// `c[i, j] += sum_k a[i, k] * b[k, j]` over `i < c.len()`, `j < n`, `k < b.len()`: packed
/// (widened) `k x NR` panels of `b` swept by `MR x NR` register blocks over packed rows of
/// `a` (inputs that need no widening, `f32`, are read in place: their tiles are small enough
/// to stay in cache, so the copies only cost time); the columns past the last whole panel
/// by an i-k-j loop. Every element takes its steps in `k` order, so the result does not
/// depend on the blocking. Compiled for AVX2 + FMA / AVX-512 too and chosen at run time
/// (`multiversion`), so a default build uses the wide registers and the fused multiply-add
/// instructions where the CPU has them (elsewhere `f32::mul_add` is a library call: slow,
/// and the same bits).
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+fma+f16c",
    "x86_64+avx2+fma+f16c",
    "aarch64+neon"
))]
fn accumulate<A: Accumulate, const K: usize, const N: usize>(
    c: &mut [[A::Acc; N]],
    start: Start<'_, A::Acc, N>,
    a: &[[A; K]],
    b: &[[A; N]],
    n: usize,
) {
    let k = b.len().min(K);
    let panels = n.min(N) / NR;
    if let (Some(a), Some(b)) = (A::as_acc_rows(a), A::as_acc_rows(&b[..k])) {
        let (c4, c_rest) = c.as_chunks_mut::<MR>();
        let (a4, a_rest) = a.as_chunks::<MR>();
        let i0 = a4.len() * MR;
        for p in 0..panels {
            let j0 = p * NR;
            for (blk, (c, a)) in c4.iter_mut().zip(a4).enumerate() {
                micro_kernel::<A, MR, K, N, N>(c, start, blk * MR, a, b, j0, j0);
            }
            for (r, (c, a)) in c_rest
                .chunks_mut(1)
                .zip(a_rest.as_chunks::<1>().0)
                .enumerate()
            {
                micro_kernel::<A, 1, K, N, N>(c, start, i0 + r, a, b, j0, j0);
            }
        }
    } else {
        packed::<A, K, N>(c, start, a, &b[..k], panels);
    }
    tail::<A, K, N>(c, start, a, &b[..k], panels * NR, n);
}

/// The panels of [`accumulate`] for inputs that are widened: the rows of `a` widened once,
/// `MR` at a time, into packed blocks that every panel reuses, and each `k x NR` panel of
/// `b` widened into a packed buffer before the blocks sweep it.
#[inline(always)]
fn packed<A: Accumulate, const K: usize, const N: usize>(
    c: &mut [[A::Acc; N]],
    start: Start<'_, A::Acc, N>,
    a: &[[A; K]],
    b: &[[A; N]],
    panels: usize,
) {
    let zero = <A::Acc as Element>::ZERO;
    let k = b.len().min(K);
    let (a4, a_rest) = a.as_chunks::<MR>();
    let mut ap = vec![[[zero; K]; MR]; if panels > 0 { a4.len() } else { 0 }];
    for (dst, rows) in ap.iter_mut().zip(a4) {
        pack_rows::<A, MR, K>(dst, rows, k);
    }
    let mut ap1 = vec![[[zero; K]; 1]; if panels > 0 { a_rest.len() } else { 0 }];
    for (dst, row) in ap1.iter_mut().zip(a_rest.chunks(1)) {
        pack_rows::<A, 1, K>(dst, row, k);
    }
    let mut bp = [[zero; NR]; K];
    for p in 0..panels {
        let j0 = p * NR;
        for (dst, brow) in bp.iter_mut().zip(&b[..k]) {
            A::widen_slice(&brow[j0..j0 + NR], dst);
        }
        let bp = &bp[..k];
        let (c4, c_rest) = c.as_chunks_mut::<MR>();
        for (blk, (c, ap)) in c4.iter_mut().zip(&ap).enumerate() {
            micro_kernel::<A, MR, K, N, NR>(c, start, blk * MR, ap, bp, 0, j0);
        }
        let i0 = a4.len() * MR;
        for (r, (c, ap)) in c_rest.chunks_mut(1).zip(&ap1).enumerate() {
            micro_kernel::<A, 1, K, N, NR>(c, start, i0 + r, ap, bp, 0, j0);
        }
    }
}

/// The columns `j0..n` past the last whole panel of [`accumulate`], by an i-k-j loop.
#[inline(always)]
fn tail<A: Accumulate, const K: usize, const N: usize>(
    c: &mut [[A::Acc; N]],
    start: Start<'_, A::Acc, N>,
    a: &[[A; K]],
    b: &[[A; N]],
    j0: usize,
    n: usize,
) {
    let zero = <A::Acc as Element>::ZERO;
    let k = b.len().min(K);
    if j0 < n {
        for (i, (crow, arow)) in c.iter_mut().zip(a).enumerate() {
            match start {
                Start::Keep => {}
                Start::Bias(row) => crow[j0..n].copy_from_slice(&row[j0..n]),
                Start::Rows(rows) => match rows.get(i) {
                    Some(row) => crow[j0..n].copy_from_slice(&row[j0..n]),
                    None => crow[j0..n].fill(zero),
                },
                Start::Zero => crow[j0..n].fill(zero),
            }
            let crow = &mut crow[j0..n];
            for (&av, brow) in arow[..k].iter().zip(&b[..k]) {
                let av = av.widen();
                for (c, &bv) in crow.iter_mut().zip(&brow[j0..n]) {
                    *c = A::mul_add_widened(*c, av, bv.widen());
                }
            }
        }
    }
}

/// The common kernel: each output element is `start`'s value plus the products.
#[inline(always)]
fn matmul_with<A: Accumulate, const M: usize, const K: usize, const N: usize>(
    c: &mut Tile<A::Acc, M, N>,
    start: Start<'_, A::Acc, N>,
    a: &Tile<A, M, K>,
    b: &Tile<A, K, N>,
) {
    let m = a.valid_rows;
    let k = a.valid_cols.min(b.valid_rows);
    let n = b.valid_cols;
    accumulate::<A, K, N>(&mut c.data[..m], start, &a.data[..m], &b.data[..k], n);
    c.set_valid_clamped(m, n);
}

/// `TMATMUL`: `c = a · b`, accumulating in `A::Acc`.
#[inline]
pub fn tmatmul<A: Accumulate, const M: usize, const K: usize, const N: usize>(
    c: &mut Tile<A::Acc, M, N>,
    a: &Tile<A, M, K>,
    b: &Tile<A, K, N>,
) {
    matmul_with(c, Start::Zero, a, b);
}

/// `TMATMUL_ACC(c_out, c_in, a, b)`: `c_out = c_in + a · b` (see
/// [`tmatmul_acc_inplace`] for the valid region).
#[inline]
pub fn tmatmul_acc<A: Accumulate, const M: usize, const K: usize, const N: usize>(
    c_out: &mut Tile<A::Acc, M, N>,
    c_in: &Tile<A::Acc, M, N>,
    a: &Tile<A, M, K>,
    b: &Tile<A, K, N>,
) {
    if c_in.valid() == (a.valid_rows, b.valid_cols) {
        // The usual case: the accumulator covers the product, so its rows seed the block.
        matmul_with(c_out, Start::Rows(&c_in.data), a, b);
        return;
    }
    let (vr, vc) = c_in.valid();
    for (d, s) in c_out.data[..vr].iter_mut().zip(&c_in.data[..vr]) {
        d[..vc].copy_from_slice(&s[..vc]);
    }
    c_out.set_valid_clamped(vr, vc);
    tmatmul_acc_inplace(c_out, a, b);
}

/// `TMATMUL_ACC(c, a, b)` (in place): `c += a · b` over the product's `(m, n)`. Like a sum
/// of tiles (`docs/guide.md` section 5), the result covers the accumulator's valid region
/// and the product's: outside the product `c` keeps its elements, and an element neither
/// covers is zero.
#[inline]
pub fn tmatmul_acc_inplace<A: Accumulate, const M: usize, const K: usize, const N: usize>(
    c: &mut Tile<A::Acc, M, N>,
    a: &Tile<A, M, K>,
    b: &Tile<A, K, N>,
) {
    let (cr, cc) = c.valid();
    let (m, n) = (a.valid_rows, b.valid_cols);
    let (vr, vc) = (cr.max(m).min(M), cc.max(n).min(N));
    if (cr, cc) != (vr, vc) {
        for (i, row) in c.data[..vr].iter_mut().enumerate() {
            for (j, x) in row[..vc].iter_mut().enumerate() {
                if i >= cr || j >= cc {
                    *x = <A::Acc as Element>::ZERO;
                }
            }
        }
    }
    matmul_with(c, Start::Keep, a, b);
    c.set_valid_clamped(vr, vc);
}

/// `TMATMUL_BIAS`: `c[i, j] = bias[0, j] + sum_k a[i, k] · b[k, j]` (the bias row is
/// broadcast over rows; it has the accumulator type, like PTO's Bias tile).
#[inline]
pub fn tmatmul_bias<A: Accumulate, const M: usize, const K: usize, const N: usize>(
    c: &mut Tile<A::Acc, M, N>,
    a: &Tile<A, M, K>,
    b: &Tile<A, K, N>,
    bias: &Tile<A::Acc, 1, N>,
) {
    let start = match bias.data.first() {
        Some(row) => Start::Bias(row),
        None => Start::Zero,
    };
    matmul_with(c, start, a, b);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{bf16, f16};

    /// Naive triple loop in f64 over the valid extents.
    fn naive<A: Accumulate, const M: usize, const K: usize, const N: usize>(
        a: &Tile<A, M, K>,
        b: &Tile<A, K, N>,
    ) -> Vec<f64> {
        let (m, k, n) = (a.valid_rows(), a.valid_cols(), b.valid_cols());
        let mut out = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                for kk in 0..k {
                    out[i * n + j] += a.as_rows()[i][kk].to_f64() * b.as_rows()[kk][j].to_f64();
                }
            }
        }
        out
    }

    #[test]
    fn f32_matches_naive() {
        let a = Tile::<f32, 5, 7>::from_fn(|i, j| (i as f32) - 0.5 * j as f32);
        let b = Tile::<f32, 7, 3>::from_fn(|i, j| 1.0 + (i * 3 + j) as f32 * 0.25);
        let mut c = Tile::<f32, 5, 3>::full(99.0);
        tmatmul(&mut c, &a, &b);
        assert_eq!(c.valid(), (5, 3));
        let want = naive(&a, &b);
        for (got, want) in c.to_vec().iter().zip(&want) {
            assert_eq!(f64::from(*got), *want);
        }
    }

    #[test]
    fn f16_inputs_accumulate_in_f32() {
        // 64 products of 1.0 * (1 + 2^-10): in f16 the running sum would lose the low bits
        // (f16 has 11 significant bits); f32 accumulation keeps them exactly.
        let a = Tile::<f16, 2, 64>::full(f16::ONE);
        let b = Tile::<f16, 64, 4>::from_fn(|k, j| {
            f16::from_f32(if j == 0 {
                1.0 + 2f32.powi(-10)
            } else {
                (k % 5) as f32 - 2.0
            })
        });
        let mut c = Tile::<f32, 2, 4>::zeros();
        tmatmul(&mut c, &a, &b);
        let want = naive(&a, &b);
        assert_eq!(c.get(0, 0), Some(64.0 + 64.0 * 2f32.powi(-10)));
        for (got, want) in c.to_vec().iter().zip(&want) {
            assert_eq!(f64::from(*got), *want);
        }
        let ab = Tile::<bf16, 2, 64>::full(bf16::from_f32(0.5));
        let bb = Tile::<bf16, 64, 4>::full(bf16::from_f32(3.0));
        tmatmul(&mut c, &ab, &bb);
        assert_eq!(c.to_vec(), vec![96.0; 8]);
    }

    #[test]
    fn i8_accumulates_in_i32() {
        let a = Tile::<i8, 3, 40>::from_fn(|i, k| if (i + k) % 2 == 0 { 127 } else { -128 });
        let b = Tile::<i8, 40, 2>::from_fn(|k, j| if j == 0 { 127 } else { (k as i8) - 20 });
        let mut c = Tile::<i32, 3, 2>::zeros();
        tmatmul(&mut c, &a, &b);
        let want = naive(&a, &b);
        for (got, want) in c.to_vec().iter().zip(&want) {
            assert_eq!(f64::from(*got), *want);
        }
        // Far outside i8 and i16: 20 * 127 * 127 - 20 * 128 * 127.
        assert_eq!(c.get(0, 0), Some(20 * 127 * 127 - 20 * 128 * 127));
    }

    #[test]
    fn partial_valid_regions() {
        let a = Tile::<f32, 4, 4>::from_fn(|i, j| (i * 4 + j) as f32)
            .with_valid(3, 2)
            .unwrap();
        let b = Tile::<f32, 4, 4>::from_fn(|i, j| (i + j) as f32 - 1.0)
            .with_valid(2, 3)
            .unwrap();
        let mut c = Tile::<f32, 4, 4>::full(-7.0);
        tmatmul(&mut c, &a, &b);
        assert_eq!(c.valid(), (3, 3));
        let want = naive(&a, &b);
        assert_eq!(
            c.to_vec().iter().map(|&x| f64::from(x)).collect::<Vec<_>>(),
            want
        );
        assert_eq!(c.as_rows()[3][0], -7.0);
        assert_eq!(c.as_rows()[0][3], -7.0);
        // b covering fewer rows than a's valid columns: k is the shared extent.
        let b1 = b.clone().with_valid(1, 3).unwrap();
        tmatmul(&mut c, &a, &b1);
        assert_eq!(c.get(2, 1), Some(8.0 * 0.0));
        assert_eq!(c.get(1, 2), Some(4.0 * 1.0));
    }

    #[test]
    fn acc_and_bias() {
        let a = Tile::<f16, 2, 3>::from_fn(|i, k| f16::from_f32((i + k) as f32));
        let b = Tile::<f16, 3, 2>::from_fn(|k, j| f16::from_f32(k as f32 - j as f32));
        let mut ab = Tile::<f32, 2, 2>::zeros();
        tmatmul(&mut ab, &a, &b);
        // a = [[0,1,2],[1,2,3]], b = [[0,-1],[1,0],[2,1]].
        assert_eq!(ab.to_vec(), [5.0, 2.0, 8.0, 2.0]);
        let cin = Tile::<f32, 2, 2>::from_slice(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        let mut cout = Tile::<f32, 2, 2>::zeros();
        tmatmul_acc(&mut cout, &cin, &a, &b);
        assert_eq!(cout.to_vec(), [6.0, 4.0, 11.0, 6.0]);
        tmatmul_acc_inplace(&mut cout, &a, &b);
        assert_eq!(cout.to_vec(), [11.0, 6.0, 19.0, 8.0]);
        let bias = Tile::<f32, 1, 2>::from_slice(&[0.5, -0.5]).unwrap();
        let mut cb = Tile::<f32, 2, 2>::zeros();
        tmatmul_bias(&mut cb, &a, &b, &bias);
        assert_eq!(cb.to_vec(), [5.5, 1.5, 8.5, 1.5]);
        let ai = Tile::<i8, 1, 2>::from_slice(&[100, 100]).unwrap();
        let bi = Tile::<i8, 2, 1>::from_slice(&[100, 100]).unwrap();
        let mut ci = Tile::<i32, 1, 1>::full(5);
        tmatmul_acc_inplace(&mut ci, &ai, &bi);
        assert_eq!(ci.to_vec(), [20005]);
    }

    /// Every start (zero, another accumulator, in place, bias) through the blocked path (two
    /// 4-row blocks and a single row; two 16-column panels and a 5-column tail), bit for bit
    /// against the chain `fma(a_k, b_k, acc)` in `k` order, computed here by `f32::mul_add`
    /// outside any FMA target (a library call on a CPU without the instruction).
    #[test]
    fn blocked_kernel_keeps_the_sequential_sums() {
        let v = |i: usize, j: usize, s: usize| ((i * 31 + j * 17 + s) % 97) as f32 / 7.3 - 6.0;
        let a = Tile::<f32, 9, 20>::from_fn(|i, k| v(i, k, 1));
        let b = Tile::<f32, 20, 37>::from_fn(|k, j| v(k, j, 2));
        let cin = Tile::<f32, 9, 37>::from_fn(|i, j| v(i, j, 3) * 100.0);
        let bias = Tile::<f32, 1, 37>::from_fn(|_, j| v(0, j, 4) * 10.0);
        let want = |start: &dyn Fn(usize, usize) -> f32| -> Vec<f32> {
            let mut out = Vec::new();
            for i in 0..9 {
                for j in 0..37 {
                    let mut acc = start(i, j);
                    for k in 0..20 {
                        acc = a.as_rows()[i][k].mul_add(b.as_rows()[k][j], acc);
                    }
                    out.push(acc);
                }
            }
            out
        };
        let mut c = Tile::<f32, 9, 37>::full(f32::NAN);
        tmatmul(&mut c, &a, &b);
        assert_eq!(c.to_vec(), want(&|_, _| 0.0));
        // The values make the fused chain differ from rounded products added in order.
        let mut separate = Vec::new();
        for i in 0..9 {
            for j in 0..37 {
                let mut acc = 0.0f32;
                for k in 0..20 {
                    acc += a.as_rows()[i][k] * b.as_rows()[k][j];
                }
                separate.push(acc);
            }
        }
        assert_ne!(c.to_vec(), separate);
        tmatmul_acc(&mut c, &cin, &a, &b);
        assert_eq!(c.to_vec(), want(&|i, j| cin.as_rows()[i][j]));
        let mut c = cin.clone();
        tmatmul_acc_inplace(&mut c, &a, &b);
        assert_eq!(c.to_vec(), want(&|i, j| cin.as_rows()[i][j]));
        tmatmul_bias(&mut c, &a, &b, &bias);
        assert_eq!(c.to_vec(), want(&|_, j| bias.as_rows()[0][j]));
    }

    /// The f16 kernel against the sequential sum of products, bit for bit, over values from
    /// subnormal to the largest f16, through the blocked path and the column tail: the fused
    /// chain and the separate one agree for f16 (its products are exact in f32).
    #[test]
    fn f16_kernel_keeps_the_sequential_sums() {
        let v = |i: usize, j: usize, s: usize| {
            let h = (i * 7919 + j * 104_729 + s * 31) % 0x7c00;
            let x = f16::from_bits(h as u16);
            if (i + j + s).is_multiple_of(3) { -x } else { x }
        };
        let a = Tile::<f16, 9, 20>::from_fn(|i, k| v(i, k, 1));
        let b = Tile::<f16, 20, 37>::from_fn(|k, j| v(k, j, 2));
        let cin = Tile::<f32, 9, 37>::from_fn(|i, j| v(i, j, 3).to_f32() * 1e3);
        let mut want = Vec::new();
        for i in 0..9 {
            for j in 0..37 {
                let mut acc = cin.as_rows()[i][j];
                for k in 0..20 {
                    acc += a.as_rows()[i][k].to_f32() * b.as_rows()[k][j].to_f32();
                }
                want.push(acc);
            }
        }
        let mut c = Tile::<f32, 9, 37>::zeros();
        tmatmul_acc(&mut c, &cin, &a, &b);
        let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
        assert_eq!(bits(c.to_vec()), bits(want));
    }

    /// The claim that lets f16 use fused multiply-adds: every product of two f16 values is
    /// exact in f32, so `fma(a, b, c)` (one rounding) equals `c + a * b` (the product's
    /// rounding is none). Every f16 `a` against a spread of `b` including the extremes,
    /// then the fused step against the separate one.
    #[test]
    fn f16_products_are_exact_in_f32() {
        let extremes = [
            0x0001u16, 0x03ff, 0x0400, 0x3c00, 0x3c01, 0x7bff, 0x5555, 0x2aaa,
        ];
        let bs: Vec<f32> = extremes
            .iter()
            .chain(&[0x1234, 0x4321, 0x6789, 0x0abc, 0x3ffe, 0x7001])
            .flat_map(|&h| [f16::from_bits(h).to_f32(), -f16::from_bits(h).to_f32()])
            .collect();
        let cs = [0.0f32, -0.0, 1.0, -3.5e-8, 6.1e4, -1.0e9, 1.0e-40, 7.0e-46];
        for h in 0..=u16::MAX {
            let a = f16::from_bits(h).to_f32();
            if !a.is_finite() {
                continue;
            }
            for &b in &bs {
                let p = a * b;
                assert_eq!(f64::from(p), f64::from(a) * f64::from(b), "{a:e} * {b:e}");
                for &c in &cs {
                    let fused = <f16 as Accumulate>::mul_add_widened(c, a, b);
                    assert_eq!(fused.to_bits(), (c + p).to_bits(), "{c:e} + {a:e} * {b:e}");
                }
            }
        }
    }

    /// bf16 is fused like f32: its exponent range is f32's, so a product can fall below f32's
    /// subnormals, where one rounding differs from two; the kernel takes the fused one.
    #[test]
    fn bf16_steps_are_fused() {
        let a = bf16::from_f32(2f32.powi(-75));
        let c = f32::from_bits(1); // 2^-149
        // 2^-150 rounds (ties to even) to 0 alone, but 2^-149 + 2^-150 rounds to 2^-148.
        let (a32, tiny) = (a.to_f32(), c);
        assert_eq!(tiny + a32 * a32, tiny);
        assert_eq!(
            <bf16 as Accumulate>::mul_add_widened(c, a32, a32),
            2.0 * tiny
        );
        let at = Tile::<bf16, 5, 3>::full(a);
        let bt = Tile::<bf16, 3, 17>::full(a);
        let cin = Tile::<f32, 5, 17>::full(c);
        let mut out = Tile::<f32, 5, 17>::zeros();
        tmatmul_acc(&mut out, &cin, &at, &bt);
        // Three fused steps: 2^-149 + 2^-150 ties to 2^-148 (even), then 2^-148 + 2^-150 ties
        // back to 2^-148 (separately, each product rounds to 0 and the sum stays 2^-149).
        let want = (0..3).fold(c, |acc, _| a32.mul_add(a32, acc));
        assert_eq!(out.to_vec(), vec![want; 5 * 17]);
        assert_ne!(want, c);
    }
}
