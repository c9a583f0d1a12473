//! Kernels of issue 16 part A (masks, compare/select, pow, products, arg-reductions,
//! explicit expands), shared by the CPU tests (`tests/ops.rs`) and the C++ model runs
//! (`tests/cpp_model.rs`). Each walks its tensor in tiles, so sizes that are not tile
//! multiples run the ops on ragged valid regions.

use pto::prelude::*;

/// `|x| ^ y`, `x ^ 3` and `x.fmod(y)` (the method spelling of `%`).
#[pto::kernel]
pub fn pow_fmod(
    x: &Tensor<f32, R, C>,
    y: &Tensor<f32, R, C>,
    #[out] p: &mut Tensor<f32, R, C>,
    #[out] q: &mut Tensor<f32, R, C>,
    #[out] m: &mut Tensor<f32, R, C>,
) {
    for r in (0..R).step_by(16) {
        for c in (0..C).step_by(64) {
            let a = x.load::<16, 64>([r, c]);
            let b = y.load::<16, 64>([r, c]);
            p.store([r, c], a.abs().pow(b));
            q.store([r, c], a.pow(3.0));
            m.store([r, c], a.fmod(b));
        }
    }
}

/// Compare and select: a leaky ReLU (`x > 0 ? x : 0.1 x`), a clamp to `[-1, 1]` built
/// from masks combined with `|` and `!`, and `x` where it equals `y` or lies in
/// `(y, 2]` (`&`), `y` elsewhere.
#[pto::kernel]
pub fn masks(
    x: &Tensor<f32, R, C>,
    y: &Tensor<f32, R, C>,
    #[out] leaky: &mut Tensor<f32, R, C>,
    #[out] clamped: &mut Tensor<f32, R, C>,
    #[out] picked: &mut Tensor<f32, R, C>,
) {
    for r in (0..R).step_by(16) {
        for c in (0..C).step_by(64) {
            let a = x.load::<16, 64>([r, c]);
            let b = y.load::<16, 64>([r, c]);
            leaky.store([r, c], a.gt(0.0).select(a, a * 0.1));
            let outside: Tile<bool, 16, 64> = a.lt(-1.0) | a.ge(1.0);
            let sign = a.ge(0.0).select(Tile::<f32, 16, 64>::full(1.0), -1.0);
            clamped.store([r, c], (!outside).select(a, sign));
            let m = a.eq(b) | (a.gt(b) & a.le(2.0));
            picked.store([r, c], m.select(a, b));
        }
    }
}

/// Row and column products and arg-reductions of `x`'s 16 x 64 tiles (`C <= 64`), each
/// broadcast back to the tile with the explicit `row_expand` / `col_expand`.
#[pto::kernel]
pub fn products(
    x: &Tensor<f32, R, C>,
    #[out] rows: &mut Tensor<f32, R, C>,
    #[out] cols: &mut Tensor<f32, R, C>,
    #[out] argmax: &mut Tensor<i32, R, 1>,
    #[out] argmin: &mut Tensor<i32, R, 1>,
) {
    for r in (0..R).step_by(16) {
        let t = x.load::<16, 64>([r, 0]);
        rows.store([r, 0], t.row_prod().row_expand::<64>());
        cols.store([r, 0], t.col_prod().col_expand::<16>());
        argmax.store([r, 0], t.row_argmax());
        argmin.store([r, 0], t.row_argmin());
    }
}

/// `|x|` through a mask of 16-column tiles (a mask row of 16 bits, padded to 32 bytes in
/// the C++).
#[pto::kernel]
pub fn narrow_abs(x: &Tensor<f32, R, 16>, #[out] y: &mut Tensor<f32, R, 16>) {
    for r in (0..R).step_by(16) {
        let t = x.load::<16, 16>([r, 0]);
        y.store([r, 0], t.lt(0.0).select(0.0 - t, t));
    }
}

/// Row sums of `x` accumulated into a column tile that starts as
/// `Tile::<f32, 16, 1>::zeros()`, plus a column tile of 0.5 (`TEXPANDS` into `R x 1` tiles,
/// which the C++ fills through their row-major views).
#[pto::kernel]
pub fn column_fill(x: &Tensor<f32, R, C>, #[out] out: &mut Tensor<f32, R, 1>) {
    for r in (0..R).step_by(16) {
        let mut acc = Tile::<f32, 16, 1>::zeros();
        for c in (0..C).step_by(64) {
            acc = acc + x.load::<16, 64>([r, c]).row_sum();
        }
        out.store([r, 0], acc + Tile::<f32, 16, 1>::full(0.5));
    }
}

/// `y = x` where `x > 0` and the mask parameter `m` are both set, else -1, tile by tile
/// (a `&Tile<bool, 16, 16>` parameter: the host function takes a `&pto::Tile<bool, 16, 16>`).
#[pto::kernel]
pub fn mask_param(
    x: &Tensor<f32, R, 16>,
    m: &Tile<bool, 16, 16>,
    #[out] y: &mut Tensor<f32, R, 16>,
) {
    for r in (0..R).step_by(16) {
        let t = x.load::<16, 16>([r, 0]);
        y.store([r, 0], (t.gt(0.0) & m).select(t, -1.0));
    }
}

/// `x % y`, `x.floor_mod(y)` and `x.floor_mod(-2.5)` on `f16` tiles (computed in `f32`).
#[pto::kernel]
pub fn rem_f16(
    x: &Tensor<f16, R, C>,
    y: &Tensor<f16, R, C>,
    #[out] m: &mut Tensor<f16, R, C>,
    #[out] n: &mut Tensor<f16, R, C>,
    #[out] p: &mut Tensor<f16, R, C>,
) {
    for r in (0..R).step_by(16) {
        for c in (0..C).step_by(64) {
            let a = x.load::<16, 64>([r, c]);
            let b = y.load::<16, 64>([r, c]);
            m.store([r, c], a % b);
            n.store([r, c], a.floor_mod(b));
            p.store([r, c], a.floor_mod(-2.5));
        }
    }
}

/// 1-byte integer arithmetic and the casts a target lacks a `TCVT` for, on the default
/// target A2A3 (whose arithmetic takes no `i8`): `(x + y) * y` and its negation against `100
/// - x` (both wrap), a row sum subtracted as a broadcast, `abs`, compares and selects, a
/// column maximum (of the `abs`); `x` as
/// `i32` and `f32` (through `f16`), and `h` floored and rounded away to `f16` (through `f32`).
#[pto::kernel]
pub fn bytes(
    x: &Tensor<i8, R, C>,
    y: &Tensor<i8, R, C>,
    h: &Tensor<f16, R, C>,
    #[out] o: &mut Tensor<i8, R, C>,
    #[out] w: &mut Tensor<i32, R, C>,
    #[out] f: &mut Tensor<f32, R, C>,
    #[out] fl: &mut Tensor<f16, R, C>,
    #[out] cm: &mut Tensor<i8, 1, C>,
) {
    for r in (0..R).step_by(16) {
        for c in (0..C).step_by(64) {
            let a = x.load::<16, 64>([r, c]);
            let b = y.load::<16, 64>([r, c]);
            let p = (a + b) * b;
            let m = (-p).max(100 - a);
            let d = (m - m.row_sum()).abs();
            let e = d.lt(a).select(d, a);
            o.store([r, c], e.gt(50).select(e, 50));
            cm.store([0, c], d.col_max());
            w.store([r, c], a.cast::<i32>());
            f.store([r, c], a.cast::<f32>());
            let g = h.load::<16, 64>([r, c]);
            fl.store(
                [r, c],
                g.cast_round::<f16>(Round::Floor) + g.cast_round::<f16>(Round::Away),
            );
        }
    }
}

/// `x / y`, `x % y` and `x.floor_mod(y)` of `i16` tiles, which A2A3's `TDIV` / `TFMOD` / `TREM`
/// do not take (computed exactly in `f32` by the `legalize` pass).
#[pto::kernel]
pub fn div_i16(
    x: &Tensor<i16, R, C>,
    y: &Tensor<i16, R, C>,
    #[out] q: &mut Tensor<i16, R, C>,
    #[out] m: &mut Tensor<i16, R, C>,
    #[out] f: &mut Tensor<i16, R, C>,
) {
    for r in (0..R).step_by(16) {
        for c in (0..C).step_by(64) {
            let a = x.load::<16, 64>([r, c]);
            let b = y.load::<16, 64>([r, c]);
            q.store([r, c], a / b);
            m.store([r, c], a % b);
            f.store([r, c], a.floor_mod(b));
        }
    }
}

/// `u16` arithmetic on A2A3, whose instructions take no `u16` (run on `i16`, the same bits),
/// and a `u16` cast to `i16` (a reinterpretation).
#[pto::kernel]
pub fn twin_u16(
    x: &Tensor<u16, R, C>,
    y: &Tensor<u16, R, C>,
    #[out] o: &mut Tensor<u16, R, C>,
    #[out] s: &mut Tensor<i16, R, C>,
) {
    for r in (0..R).step_by(16) {
        for c in (0..C).step_by(64) {
            let a = x.load::<16, 64>([r, c]);
            let b = y.load::<16, 64>([r, c]);
            let p = (a + b) * b - 7;
            o.store([r, c], p - p.row_sum());
            s.store([r, c], p.cast::<i16>());
        }
    }
}

/// `u16` maxima, minima and row maxima on A2A3 (run on `i16`, the top bit flipped), and a
/// compare of two tiles (then read as `i16` and compared in `f32`).
#[pto::kernel]
pub fn order_u16(x: &Tensor<u16, R, C>, y: &Tensor<u16, R, C>, #[out] o: &mut Tensor<u16, R, C>) {
    for r in (0..R).step_by(16) {
        for c in (0..C).step_by(64) {
            let a = x.load::<16, 64>([r, c]);
            let b = y.load::<16, 64>([r, c]);
            let m = a.max(b).min(40000);
            let d = m.row_max() - m;
            o.store([r, c], a.lt(b).select(d, a));
        }
    }
}
