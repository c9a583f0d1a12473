//! `pto::isa` against hand-written Rust loops over the same data (64 x 64 tiles).
//!
//! Run with `cargo bench -p pto --bench isa_vs_loops`; each `*_pto` bench should be at least
//! 0.9x as fast as its `*_loop` twin.
#![allow(missing_docs, clippy::unwrap_used)]
use divan::{Bencher, black_box};
use pto::isa::*;
use pto::{Tile, f16};

fn main() {
    divan::main();
}

const R: usize = 64;
const C: usize = 64;

fn tile(seed: f32) -> Tile<f32, R, C> {
    Tile::from_fn(|i, j| seed + (i * C + j) as f32 * 0.001)
}
fn vecs(seed: f32) -> Vec<f32> {
    (0..R * C).map(|k| seed + k as f32 * 0.001).collect()
}

#[divan::bench]
fn tadd_pto(b: Bencher) {
    let (x, y, mut d) = (tile(1.0), tile(2.0), Tile::<f32, R, C>::zeros());
    b.bench_local(|| tadd(black_box(&mut d), black_box(&x), black_box(&y)));
}
#[divan::bench]
fn tadd_loop(b: Bencher) {
    let (x, y, mut d) = (vecs(1.0), vecs(2.0), vec![0f32; R * C]);
    b.bench_local(|| {
        let (x, y, d) = (black_box(&x), black_box(&y), black_box(&mut d));
        for ((d, x), y) in d.iter_mut().zip(x).zip(y) {
            *d = x + y;
        }
    });
}
#[divan::bench]
fn tadd_partial_pto(b: Bencher) {
    let x = tile(1.0).with_valid(60, 60).unwrap();
    let (y, mut d) = (tile(2.0), Tile::<f32, R, C>::zeros());
    b.bench_local(|| tadd(black_box(&mut d), black_box(&x), black_box(&y)));
}
#[divan::bench]
fn tadd_partial_loop(b: Bencher) {
    let (x, y, mut d) = (vecs(1.0), vecs(2.0), vec![0f32; R * C]);
    b.bench_local(|| {
        let (x, y, d) = (black_box(&x), black_box(&y), black_box(&mut d));
        for i in 0..60 {
            let (d, x, y) = (
                &mut d[i * C..i * C + 60],
                &x[i * C..i * C + 60],
                &y[i * C..i * C + 60],
            );
            for ((d, x), y) in d.iter_mut().zip(x).zip(y) {
                *d = x + y;
            }
        }
    });
}
#[divan::bench]
fn tmuls_pto(b: Bencher) {
    let (x, mut d) = (tile(1.0), Tile::<f32, R, C>::zeros());
    b.bench_local(|| tmuls(black_box(&mut d), black_box(&x), black_box(3.0)));
}
#[divan::bench]
fn tmuls_loop(b: Bencher) {
    let (x, mut d) = (vecs(1.0), vec![0f32; R * C]);
    b.bench_local(|| {
        let (x, d, k) = (black_box(&x), black_box(&mut d), black_box(3.0f32));
        for (d, x) in d.iter_mut().zip(x) {
            *d = x * k;
        }
    });
}
#[divan::bench]
fn tmax_pto(b: Bencher) {
    let (x, y, mut d) = (tile(1.0), tile(2.0), Tile::<f32, R, C>::zeros());
    b.bench_local(|| tmax(black_box(&mut d), black_box(&x), black_box(&y)));
}
#[divan::bench]
fn tmax_loop(b: Bencher) {
    let (x, y, mut d) = (vecs(1.0), vecs(2.0), vec![0f32; R * C]);
    b.bench_local(|| {
        let (x, y, d) = (black_box(&x), black_box(&y), black_box(&mut d));
        for ((d, x), y) in d.iter_mut().zip(x).zip(y) {
            *d = x.max(*y);
        }
    });
}
#[divan::bench]
fn texp_pto(b: Bencher) {
    let (x, mut d) = (tile(1.0), Tile::<f32, R, C>::zeros());
    b.bench_local(|| texp(black_box(&mut d), black_box(&x)));
}
#[divan::bench]
fn texp_loop(b: Bencher) {
    let (x, mut d) = (vecs(1.0), vec![0f32; R * C]);
    b.bench_local(|| {
        let (x, d) = (black_box(&x), black_box(&mut d));
        for (d, x) in d.iter_mut().zip(x) {
            *d = x.exp();
        }
    });
}
#[divan::bench]
fn tadd_i32_pto(b: Bencher) {
    let x = Tile::<i32, R, C>::from_fn(|i, j| (i * j) as i32);
    let (y, mut d) = (x.clone(), Tile::<i32, R, C>::zeros());
    b.bench_local(|| tadd(black_box(&mut d), black_box(&x), black_box(&y)));
}
#[divan::bench]
fn tadd_i32_loop(b: Bencher) {
    let x: Vec<i32> = (0..R * C).map(|k| k as i32).collect();
    let (y, mut d) = (x.clone(), vec![0i32; R * C]);
    b.bench_local(|| {
        let (x, y, d) = (black_box(&x), black_box(&y), black_box(&mut d));
        for ((d, x), y) in d.iter_mut().zip(x).zip(y) {
            *d = x.wrapping_add(*y);
        }
    });
}
#[divan::bench]
fn trowsum_pto(b: Bencher) {
    let (x, mut d) = (tile(1.0), Tile::<f32, R, 1>::zeros());
    b.bench_local(|| trowsum(black_box(&mut d), black_box(&x)));
}
#[divan::bench]
fn trowsum_loop(b: Bencher) {
    let (x, mut d) = (vecs(1.0), vec![0f32; R]);
    b.bench_local(|| {
        let (x, d) = (black_box(&x), black_box(&mut d));
        for (d, row) in d.iter_mut().zip(x.chunks_exact(C)) {
            *d = row.iter().sum();
        }
    });
}
#[divan::bench]
fn trowmax_pto(b: Bencher) {
    let (x, mut d) = (tile(1.0), Tile::<f32, R, 1>::zeros());
    b.bench_local(|| trowmax(black_box(&mut d), black_box(&x)));
}
#[divan::bench]
fn trowmax_loop(b: Bencher) {
    let (x, mut d) = (vecs(1.0), vec![0f32; R]);
    b.bench_local(|| {
        let (x, d) = (black_box(&x), black_box(&mut d));
        for (d, row) in d.iter_mut().zip(x.chunks_exact(C)) {
            *d = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        }
    });
}
#[divan::bench]
fn tcolsum_pto(b: Bencher) {
    let (x, mut d) = (tile(1.0), Tile::<f32, 1, C>::zeros());
    b.bench_local(|| tcolsum(black_box(&mut d), black_box(&x)));
}
#[divan::bench]
fn tcolsum_loop(b: Bencher) {
    let (x, mut d) = (vecs(1.0), vec![0f32; C]);
    b.bench_local(|| {
        let (x, d) = (black_box(&x), black_box(&mut d));
        d.fill(0.0);
        for row in x.chunks_exact(C) {
            for (d, v) in d.iter_mut().zip(row) {
                *d += v;
            }
        }
    });
}
#[divan::bench]
fn trowexpandsub_pto(b: Bencher) {
    let (x, r, mut d) = (
        tile(1.0),
        Tile::<f32, R, 1>::full(0.5),
        Tile::<f32, R, C>::zeros(),
    );
    b.bench_local(|| trowexpandsub(black_box(&mut d), black_box(&x), black_box(&r)));
}
#[divan::bench]
fn trowexpandsub_loop(b: Bencher) {
    let (x, r, mut d) = (vecs(1.0), vec![0.5f32; R], vec![0f32; R * C]);
    b.bench_local(|| {
        let (x, r, d) = (black_box(&x), black_box(&r), black_box(&mut d));
        for ((d, x), r) in d.chunks_exact_mut(C).zip(x.chunks_exact(C)).zip(r) {
            for (d, x) in d.iter_mut().zip(x) {
                *d = x - r;
            }
        }
    });
}
#[divan::bench]
fn tmatmul_f32_pto(b: Bencher) {
    let (x, y, mut d) = (tile(1.0), tile(2.0), Tile::<f32, R, C>::zeros());
    b.bench_local(|| tmatmul(black_box(&mut d), black_box(&x), black_box(&y)));
}
#[divan::bench]
fn tmatmul_f32_loop(b: Bencher) {
    let (x, y, mut d) = (vecs(1.0), vecs(2.0), vec![0f32; R * C]);
    b.bench_local(|| {
        let (x, y, d) = (black_box(&x), black_box(&y), black_box(&mut d));
        for i in 0..R {
            let drow = &mut d[i * C..(i + 1) * C];
            drow.fill(0.0);
            for k in 0..C {
                let a = x[i * C + k];
                for (dv, bv) in drow.iter_mut().zip(&y[k * C..(k + 1) * C]) {
                    *dv += a * bv;
                }
            }
        }
    });
}
#[divan::bench]
fn tcvt_f32_f16_pto(b: Bencher) {
    let (x, mut d) = (tile(1.0), Tile::<f16, R, C>::zeros());
    b.bench_local(|| tcvt(black_box(&mut d), black_box(&x), RoundMode::CastRint));
}
#[divan::bench]
fn tcvt_f32_f16_loop(b: Bencher) {
    let (x, mut d) = (vecs(1.0), vec![f16::ZERO; R * C]);
    b.bench_local(|| {
        let (x, d) = (black_box(&x), black_box(&mut d));
        for (d, x) in d.iter_mut().zip(x) {
            *d = f16::from_f32(*x);
        }
    });
}
#[divan::bench]
fn tcvt_f32_i32_pto(b: Bencher) {
    let (x, mut d) = (tile(1.0), Tile::<i32, R, C>::zeros());
    b.bench_local(|| tcvt(black_box(&mut d), black_box(&x), RoundMode::CastRint));
}
#[divan::bench]
fn tcvt_f32_i32_loop(b: Bencher) {
    let (x, mut d) = (vecs(1.0), vec![0i32; R * C]);
    b.bench_local(|| {
        let (x, d) = (black_box(&x), black_box(&mut d));
        for (d, x) in d.iter_mut().zip(x) {
            *d = x.round_ties_even() as i32;
        }
    });
}
#[divan::bench]
fn tadd_f16_pto(b: Bencher) {
    let x = Tile::<f16, R, C>::from_fn(|i, j| f16::from_f32((i + j) as f32));
    let (y, mut d) = (x.clone(), Tile::<f16, R, C>::zeros());
    b.bench_local(|| tadd(black_box(&mut d), black_box(&x), black_box(&y)));
}
#[divan::bench]
fn tadd_f16_loop(b: Bencher) {
    let x: Vec<f16> = (0..R * C).map(|k| f16::from_f32(k as f32)).collect();
    let (y, mut d) = (x.clone(), vec![f16::ZERO; R * C]);
    b.bench_local(|| {
        let (x, y, d) = (black_box(&x), black_box(&y), black_box(&mut d));
        for ((d, x), y) in d.iter_mut().zip(x).zip(y) {
            *d = *x + *y;
        }
    });
}
#[divan::bench]
fn tmuls_f16_pto(b: Bencher) {
    let x = Tile::<f16, R, C>::from_fn(|i, j| f16::from_f32((i + j) as f32));
    let mut d = Tile::<f16, R, C>::zeros();
    b.bench_local(|| {
        tmuls(
            black_box(&mut d),
            black_box(&x),
            black_box(f16::from_f32(0.5)),
        )
    });
}
#[divan::bench]
fn tmuls_f16_loop(b: Bencher) {
    let x: Vec<f16> = (0..R * C).map(|k| f16::from_f32(k as f32)).collect();
    let mut d = vec![f16::ZERO; R * C];
    b.bench_local(|| {
        let (x, d, k) = (
            black_box(&x),
            black_box(&mut d),
            black_box(f16::from_f32(0.5)),
        );
        for (d, x) in d.iter_mut().zip(x) {
            *d = *x * k;
        }
    });
}
#[divan::bench]
fn texp_f16_pto(b: Bencher) {
    let x = Tile::<f16, R, C>::from_fn(|i, j| f16::from_f32((i + j) as f32 * 0.01));
    let mut d = Tile::<f16, R, C>::zeros();
    b.bench_local(|| texp(black_box(&mut d), black_box(&x)));
}
#[divan::bench]
fn texp_f16_loop(b: Bencher) {
    let x: Vec<f16> = (0..R * C).map(|k| f16::from_f32(k as f32 * 0.01)).collect();
    let mut d = vec![f16::ZERO; R * C];
    b.bench_local(|| {
        let (x, d) = (black_box(&x), black_box(&mut d));
        for (d, x) in d.iter_mut().zip(x) {
            *d = f16::from_f32(x.to_f32().exp());
        }
    });
}
#[divan::bench]
fn trowsum_partial_pto(b: Bencher) {
    let (x, mut d) = (
        tile(1.0).with_valid(64, 60).unwrap(),
        Tile::<f32, R, 1>::zeros(),
    );
    b.bench_local(|| trowsum(black_box(&mut d), black_box(&x)));
}
#[divan::bench]
fn trowsum_partial_loop(b: Bencher) {
    let (x, mut d) = (vecs(1.0), vec![0f32; R]);
    b.bench_local(|| {
        let (x, d) = (black_box(&x), black_box(&mut d));
        for (d, row) in d.iter_mut().zip(x.chunks_exact(C)) {
            *d = row[..60].iter().sum();
        }
    });
}
#[divan::bench]
fn trowmax_partial_pto(b: Bencher) {
    let (x, mut d) = (
        tile(1.0).with_valid(64, 60).unwrap(),
        Tile::<f32, R, 1>::zeros(),
    );
    b.bench_local(|| trowmax(black_box(&mut d), black_box(&x)));
}
#[divan::bench]
fn trowmax_partial_loop(b: Bencher) {
    let (x, mut d) = (vecs(1.0), vec![0f32; R]);
    b.bench_local(|| {
        let (x, d) = (black_box(&x), black_box(&mut d));
        for (d, row) in d.iter_mut().zip(x.chunks_exact(C)) {
            *d = row[..60].iter().copied().fold(f32::NEG_INFINITY, f32::max);
        }
    });
}
