//! Differential conformance: every elementwise op of the op table x every dtype it accepts
//! (of the 12 the CPU runtime implements) x {full tile, ragged valid region, 1-row tile,
//! 1-column tile}, run through the reference interpreter (on IR text) and through the
//! `pto::isa` instruction the lowering picks (the host code's call); and every scalar op x
//! dtype x operand pairs through constant folding (`canonicalize`), the interpreter and the
//! runtime's element functions (which the host code names). Results must be bit-identical,
//! integers and floats alike (floats compare by bits, every NaN equal to every NaN): both
//! sides evaluate the semantics module's functions in the dtype's precision, so 0 ulps.

use pto::element::Element;
use pto::ir::DataType;
use pto::ir::ops::{OPS, OpClass, Opcode};
use pto::ir::sem::{Binary, Sem, Unary};
use pto::isa;
use pto::{Tile, bf16, f16};
use pto_lower::interp::{HostValue, run};

mod support;
use support::{Host, host_float, host_int};

/// A tile case: the tile's shape and the valid region the op runs on.
#[derive(Clone, Copy, Debug)]
struct Case {
    name: &'static str,
    valid: (usize, usize),
}

/// Deterministic operand values of dtype `d` as `f64`: small integers (zero and negatives
/// included, so division by zero and out-of-range shifts are exercised), or floats with
/// fractions, ties, a NaN and zeros of both signs (`+0` against `-0` and `-0` against `+0`
/// between seeds 1 and 2).
fn values(d: DataType, n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let k = (s % 41) as i64 - 20;
            if d.is_float() {
                if i == 5 && seed == 1 {
                    f64::NAN
                } else if i % 7 == 3 {
                    // Zeros of both signs, paired both ways between the seeds' operands.
                    if (i / 7 + seed as usize).is_multiple_of(2) {
                        0.0
                    } else {
                        -0.0
                    }
                } else {
                    k as f64 * 0.75 + 0.5 * (k % 2) as f64
                }
            } else if d.is_unsigned_int() {
                (k + 20) as f64
            } else {
                k as f64
            }
        })
        .collect()
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits()
        || (a.is_nan() && b.is_nan())
        || (a == 0.0 && b == 0.0 && a.is_sign_negative() == b.is_sign_negative())
}

/// IR text of `o = op(a, b)` (or `op(a)`, or `op(a, k)` with a constant `k`) on `R x C`
/// tiles narrowed to `valid`.
fn module(
    op: Opcode,
    d: DataType,
    shape: (usize, usize),
    valid: (usize, usize),
    form: Form,
) -> String {
    let (r, c) = shape;
    let dt = d.name();
    let ten = format!("tensor<[{r}, {c}], {dt}>");
    let full = format!("tile<[{r}, {c}], [{r}, {c}], {dt}>");
    let tv = format!("tile<[{}, {}], [{r}, {c}], {dt}>", valid.0, valid.1);
    let mut body = String::new();
    body += &format!(
        "      %a_4 = tile.load %x_1 : ({ten}) -> {full} {{shape=[{r}, {c}], offset=[0, 0]}}\n"
    );
    body += &format!(
        "      %b_5 = tile.load %y_2 : ({ten}) -> {full} {{shape=[{r}, {c}], offset=[0, 0]}}\n"
    );
    body += &format!(
        "      %m_6 = {} : int64\n      %n_7 = {} : int64\n",
        valid.0, valid.1
    );
    body +=
        &format!("      %av_8 = tile.valid %a_4, %m_6, %n_7 : ({full}, int64, int64) -> {tv}\n");
    body +=
        &format!("      %bv_9 = tile.valid %b_5, %m_6, %n_7 : ({full}, int64, int64) -> {tv}\n");
    let k = if d.is_float() {
        "1.25".to_string()
    } else {
        "3".to_string()
    };
    let name = op.full_name();
    body += &match form {
        Form::TileTile => format!("      %r_10 = {name} %av_8, %bv_9 : ({tv}, {tv}) -> {tv}\n"),
        Form::TileScalar => format!(
            "      %k_11 = {k} : {dt}\n      %r_10 = {name} %av_8, %k_11 : ({tv}, {dt}) -> {tv}\n"
        ),
        Form::Unary => format!("      %r_10 = {name} %av_8 : ({tv}) -> {tv}\n"),
    };
    body += &format!("      tile.store %r_10, %o_3 : ({tv}, {ten}) -> () {{offset=[0, 0]}}\n");
    format!(
        "program.module @c {{\n  program.entry @k\n  func.func @k(%x_1: {ten} #in, %y_2: {ten} #in, %o_3: {ten} #out) {{\n    statement.op {{\n{body}    }}\n    statement.return\n  }}\n}}\n"
    )
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    TileTile,
    TileScalar,
    Unary,
}

/// The interpreter's output's valid region, row-major.
fn interpret(
    text: &str,
    d: DataType,
    shape: (usize, usize),
    valid: (usize, usize),
    x: &[f64],
    y: &[f64],
) -> Vec<f64> {
    let m = pto::ir::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    if let Err(e) = pto::ir::verify(&m) {
        // The semantics are checked for every dtype; which dtypes a target's TCMP / TSEL
        // take is the verifier's own test (pto-ir's target_compare_select.pto).
        assert!(
            e.iter().all(|d| d.message.contains(" is not legal on ")),
            "{e}\n{text}"
        );
    }
    let sh = vec![shape.0, shape.1];
    let mut args = vec![
        HostValue::tensor(d, sh.clone(), x.to_vec()).unwrap(),
        HostValue::tensor(d, sh.clone(), y.to_vec()).unwrap(),
        HostValue::tensor(d, sh, vec![0.0; shape.0 * shape.1]).unwrap(),
    ];
    run(&m, m.entry.unwrap(), &mut args).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let out = &args[2].as_tensor().unwrap().data;
    let mut v = Vec::new();
    for i in 0..valid.0 {
        for j in 0..valid.1 {
            v.push(out[i * shape.1 + j]);
        }
    }
    v
}

/// Runs every elementwise tile op on `T` for one tile shape; returns the cases run.
fn tile_ops<T: Element, const R: usize, const C: usize>(
    d: DataType,
    host: Host<T, R, C>,
    case: Case,
) -> usize {
    let x = values(d, R * C, 1);
    let y = values(d, R * C, 2);
    let tile = |v: &[f64]| {
        let t: Vec<T> = v.iter().map(|&e| T::from_f64(e)).collect();
        Tile::<T, R, C>::from_slice(&t)
            .unwrap()
            .with_valid(case.valid.0, case.valid.1)
            .unwrap()
    };
    let (a, b) = (tile(&x), tile(&y));
    let k = T::from_f64(if d.is_float() { 1.25 } else { 3.0 });
    let mut n = 0;
    for row in OPS
        .iter()
        .filter(|r| r.dialect == "tile" && r.opcode.accepts(d))
    {
        let forms: &[(Form, usize)] = match row.class {
            OpClass::TileBinary | OpClass::TileBitwise => {
                &[(Form::TileTile, 0), (Form::TileScalar, 1)]
            }
            OpClass::TileUnary | OpClass::TileUnaryFloat | OpClass::TileNot => &[(Form::Unary, 0)],
            _ => continue,
        };
        for &(form, k_isa) in forms {
            let Some(&instr) = row.isa.get(k_isa) else {
                continue;
            };
            let what = format!("{} ({}) on {d}, {}", row.opcode, instr.name(), case.name);
            let got = host(instr, &a, &b, k).unwrap_or_else(|| panic!("{what}: no host call"));
            assert_eq!(got.valid(), case.valid, "{what}: valid region");
            let host_v: Vec<f64> = got.to_vec().iter().map(|e| e.to_f64()).collect();
            let text = module(row.opcode, d, (R, C), case.valid, form);
            let interp_v = interpret(&text, d, (R, C), case.valid, &x, &y);
            assert_eq!(host_v.len(), interp_v.len(), "{what}");
            for (i, (h, v)) in host_v.iter().zip(&interp_v).enumerate() {
                assert!(
                    same(*h, *v),
                    "{what}: element {i}: host {h} vs interpreter {v}"
                );
            }
            n += 1;
        }
    }
    n
}

/// The four tile cases for one dtype: a full 4 x 32 tile, a ragged 3 x 21 valid region of
/// it, a 1 x 32 tile and an 8 x 1 tile.
fn all_cases<T: Element>(
    d: DataType,
    h1: Host<T, 4, 32>,
    h2: Host<T, 1, 32>,
    h3: Host<T, 8, 1>,
) -> usize {
    tile_ops::<T, 4, 32>(
        d,
        h1,
        Case {
            name: "full 4 x 32",
            valid: (4, 32),
        },
    ) + tile_ops::<T, 4, 32>(
        d,
        h1,
        Case {
            name: "ragged 3 x 21 of 4 x 32",
            valid: (3, 21),
        },
    ) + tile_ops::<T, 1, 32>(
        d,
        h2,
        Case {
            name: "1-row 1 x 32",
            valid: (1, 32),
        },
    ) + tile_ops::<T, 8, 1>(
        d,
        h3,
        Case {
            name: "1-column 8 x 1",
            valid: (8, 1),
        },
    )
}

macro_rules! ints {
    ($($t:ty => $d:ident),*) => {{
        let mut n = 0;
        $(n += all_cases::<$t>(DataType::$d, host_int, host_int, host_int);)*
        n
    }};
}

macro_rules! floats {
    ($($t:ty => $d:ident),*) => {{
        let mut n = 0;
        $(n += all_cases::<$t>(DataType::$d, host_float, host_float, host_float);)*
        n
    }};
}

#[test]
fn tile_ops_agree_for_every_dtype_and_shape() {
    let n = ints!(i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64, u8 => UInt8, u16 => UInt16, u32 => UInt32, u64 => UInt64)
        + floats!(f16 => Fp16, bf16 => Bf16, f32 => Fp32, f64 => Fp64);
    // 4 cases per (op form, dtype). Integers: 10 arithmetic ops (pow and fmod included)
    // and 5 bitwise ones, each tile-tile and tile-scalar, and 4 unary (neg abs relu not) =
    // 34 forms; floats: 10 x 2 and 8 unary = 28 forms.
    assert_eq!(n, 4 * (8 * 34 + 4 * 28), "cases run");
}

// ----- scalars: constant folding, interpreter, runtime element functions -----

fn scalar_module(op: Opcode, d: DataType, a: &str, b: Option<&str>) -> String {
    let dt = d.name();
    let name = op.full_name();
    let body = match b {
        Some(b) => format!(
            "      %a_1 = {a} : {dt}\n      %b_2 = {b} : {dt}\n      %r_3 = {name} %a_1, %b_2 : ({dt}, {dt}) -> {dt}\n"
        ),
        None => format!("      %a_1 = {a} : {dt}\n      %r_3 = {name} %a_1 : ({dt}) -> {dt}\n"),
    };
    format!(
        "program.module @s {{\n  program.entry @k\n  func.func @k() -> ({dt}) {{\n    statement.op {{\n{body}    }}\n    statement.return %r_3\n  }}\n}}\n"
    )
}

fn host_scalar<T: Element>(sem: Sem, a: T, b: T) -> Option<T> {
    Some(match sem {
        Sem::Binary(Binary::Add) => a.add(b),
        Sem::Binary(Binary::Sub) => a.sub(b),
        Sem::Binary(Binary::Mul) => a.mul(b),
        Sem::Binary(Binary::Div) => a.div(b),
        Sem::Binary(Binary::Rem) => a.rem(b),
        Sem::Binary(Binary::FloorDiv) => a.floor_div(b),
        Sem::Binary(Binary::FloorMod) => a.floor_mod(b),
        Sem::Binary(Binary::Min) => a.min(b),
        Sem::Binary(Binary::Max) => a.max(b),
        Sem::Binary(Binary::Pow) => a.pow(b),
        Sem::Unary(Unary::Neg) => a.neg(),
        Sem::Unary(Unary::Abs) => a.abs(),
        _ => return None,
    })
}

fn scalar_ops<T: Element>(d: DataType) -> usize {
    let pairs: &[(f64, f64)] = if d.is_float() {
        &[
            (-7.5, 2.0),
            (7.25, -2.0),
            (-7.0, -2.0),
            (1.5, 0.0),
            (-0.5, 3.0),
            (0.0, -0.0),
            (-0.0, 0.0),
            (-0.0, -0.0),
        ]
    } else if d.is_unsigned_int() {
        &[(7.0, 2.0), (7.0, 0.0), (0.0, 3.0), (200.0, 3.0)]
    } else {
        &[
            (-7.0, -2.0),
            (-7.0, 2.0),
            (7.0, -2.0),
            (7.0, 0.0),
            (-1.0, 3.0),
        ]
    };
    let lit = |x: f64| {
        if d.is_float() {
            format!("{x:?}")
        } else {
            format!("{}", x as i64)
        }
    };
    let mut n = 0;
    for row in OPS.iter().filter(|r| {
        r.dialect == "scalar" && matches!(r.class, OpClass::ScalarArith | OpClass::ScalarUnary)
    }) {
        if !row.opcode.accepts(d) {
            continue;
        }
        for &(x, y) in pairs {
            let (a, b) = (T::from_f64(x), T::from_f64(y));
            let Some(host) = host_scalar(row.sem, a, b) else {
                continue;
            };
            if row.sem == Sem::Binary(Binary::Pow) && !d.is_float() && y < 0.0 {
                continue;
            }
            let unary = row.class == OpClass::ScalarUnary;
            let text = scalar_module(row.opcode, d, &lit(x), (!unary).then(|| lit(y)).as_deref());
            let what = format!("{} {x} {y} on {d}", row.opcode);
            let m = pto::ir::parse(&text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
            let interp =
                run(&m, m.entry.unwrap(), &mut []).unwrap_or_else(|e| panic!("{what}: {e}"));
            let interp = interp[0].as_f64().unwrap();
            let mut folded = m.clone();
            pto_lower::passes::pass_by_name("canonicalize")
                .unwrap()
                .run(&mut folded)
                .unwrap();
            let printed = folded.to_string();
            assert!(
                !printed.contains(&op_text(row.opcode)),
                "{what}: not folded\n{printed}"
            );
            let f = run(&folded, folded.entry.unwrap(), &mut []).unwrap()[0]
                .as_f64()
                .unwrap();
            let h = host.to_f64();
            assert!(
                same(h, interp) && same(h, f),
                "{what}: host {h}, interpreter {interp}, folded {f}"
            );
            n += 1;
        }
    }
    n
}

fn op_text(op: Opcode) -> String {
    format!(" {} %", op.full_name())
}

#[test]
fn scalar_ops_agree_when_folded_interpreted_and_run() {
    let n = scalar_ops::<i8>(DataType::Int8)
        + scalar_ops::<i16>(DataType::Int16)
        + scalar_ops::<i32>(DataType::Int32)
        + scalar_ops::<i64>(DataType::Int64)
        + scalar_ops::<u8>(DataType::UInt8)
        + scalar_ops::<u32>(DataType::UInt32)
        + scalar_ops::<f32>(DataType::Fp32)
        + scalar_ops::<f64>(DataType::Fp64);
    assert!(n > 300, "{n}");
}

// ----- conversions: every dtype pair x every rounding (and none named) -----

/// `tile.cast` from `S` to `D` in every mode, interpreter against `pto::isa::tcvt` (the
/// identity, an unnamed same-dtype cast, is `TMOV` in the lowering: compared as a copy).
fn casts<S: Element, D: Element>(from: DataType, to: DataType) -> usize {
    use pto::ir::sem::RoundMode;
    const R: usize = 4;
    const C: usize = 32;
    let mut x = values(from, R * C, 3);
    if from.is_float() {
        // Saturation, NaN and negative zero.
        x[7] = 1e10;
        x[9] = -1e10;
        x[11] = f64::NAN;
        x[13] = -0.0;
        // Inexact in the narrower formats: every rounding direction matters.
        for (i, v) in [
            0.1,
            1.0 / 3.0,
            -2.0 / 3.0,
            1.0 + 2f64.powi(-11) + 2f64.powi(-20),
            65519.0,
            3.0e-6,
            -1234.5678,
        ]
        .into_iter()
        .enumerate()
        {
            x[15 + 2 * i] = v;
        }
    } else {
        // Integers beyond f16 / f32 precision (saturated to the source type by `from_f64`).
        x[15] = 16_777_217.0;
        x[17] = 2049.0;
        x[19] = 100_003.0;
    }
    let src_vals: Vec<S> = x.iter().map(|&e| S::from_f64(e)).collect();
    let x: Vec<f64> = src_vals.iter().map(|e| e.to_f64()).collect();
    let mut n = 0;
    let modes = std::iter::once(None).chain(RoundMode::ALL.into_iter().map(Some));
    for named in modes {
        for valid in [(R, C), (3, 21)] {
            let src = Tile::<S, R, C>::from_slice(&src_vals)
                .unwrap()
                .with_valid(valid.0, valid.1)
                .unwrap();
            let mut dst = Tile::<D, R, C>::zeros();
            let mode = RoundMode::for_cast(from, to, named).unwrap_or(RoundMode::CastNone);
            isa::tcvt(&mut dst, &src, mode);
            let host: Vec<f64> = dst.to_vec().iter().map(|e| e.to_f64()).collect();
            let (fd, td) = (from.name(), to.name());
            let ten = |d: &str| format!("tensor<[{R}, {C}], {d}>");
            let tv = |d: &str| format!("tile<[{}, {}], [{R}, {C}], {d}>", valid.0, valid.1);
            let round = named.map_or(String::new(), |m| format!(", round={}", m.word()));
            let text = format!(
                "program.module @c {{\n  program.entry @k\n  func.func @k(%x_1: {} #in, %y_2: {} #in, %o_3: {} #out) {{\n    statement.op {{\n      %a_4 = tile.load %x_1 : ({}) -> tile<[{R}, {C}], [{R}, {C}], {fd}> {{shape=[{R}, {C}], offset=[0, 0]}}\n      %m_6 = {} : int64\n      %n_7 = {} : int64\n      %av_8 = tile.valid %a_4, %m_6, %n_7 : (tile<[{R}, {C}], [{R}, {C}], {fd}>, int64, int64) -> {}\n      %r_10 = tile.cast %av_8 : ({}) -> {} {{dtype={td}{round}}}\n      tile.store %r_10, %o_3 : ({}, {}) -> () {{offset=[0, 0]}}\n    }}\n    statement.return\n  }}\n}}\n",
                ten(fd),
                ten(fd),
                ten(td),
                ten(fd),
                valid.0,
                valid.1,
                tv(fd),
                tv(fd),
                tv(td),
                tv(td),
                ten(td)
            );
            let m = pto::ir::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            let sh = vec![R, C];
            let mut args = vec![
                HostValue::tensor(from, sh.clone(), x.clone()).unwrap(),
                HostValue::tensor(from, sh.clone(), x.clone()).unwrap(),
                HostValue::tensor(to, sh, vec![0.0; R * C]).unwrap(),
            ];
            run(&m, m.entry.unwrap(), &mut args).unwrap_or_else(|e| panic!("{e}\n{text}"));
            let out = &args[2].as_tensor().unwrap().data;
            for i in 0..valid.0 {
                for j in 0..valid.1 {
                    let (h, v) = (host[i * valid.1 + j], out[i * C + j]);
                    assert!(
                        same(h, v),
                        "{fd} -> {td} {named:?} ({valid:?}) of {}: host {h} vs interpreter {v}",
                        x[i * C + j]
                    );
                }
            }
            n += 1;
        }
    }
    n
}

macro_rules! cast_matrix {
    ($($s:ty => $sd:ident),*; $targets:tt) => {{
        let mut n = 0;
        $(n += cast_matrix!(@to $s => $sd; $targets);)*
        n
    }};
    (@to $s:ty => $sd:ident; [$($d:ty => $dd:ident),*]) => {{
        let mut n = 0;
        $(n += casts::<$s, $d>(DataType::$sd, DataType::$dd);)*
        n
    }};
}

#[test]
fn casts_agree_for_every_dtype_pair_and_rounding() {
    let n = cast_matrix!(
        i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64, u8 => UInt8, u16 => UInt16, u32 => UInt32, u64 => UInt64,
        f16 => Fp16, bf16 => Bf16, f32 => Fp32, f64 => Fp64;
        [i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64, u8 => UInt8, u16 => UInt16, u32 => UInt32, u64 => UInt64,
         f16 => Fp16, bf16 => Bf16, f32 => Fp32, f64 => Fp64]
    );
    // 144 pairs x 8 roundings (none named, and the 7 modes) x 2 valid regions.
    assert_eq!(n, 144 * 8 * 2);
}

// ----- masks: compare then select, every comparison x dtype x tile case -----

/// IR text of `o = select(cmp(a, b), a, b)`, or `select(cmp(a, k), a, -k)` with a constant
/// `k`, on `R x C` tiles narrowed to `valid`.
fn mask_module(
    op: Opcode,
    d: DataType,
    shape: (usize, usize),
    valid: (usize, usize),
    scalar: bool,
) -> String {
    let (r, c) = shape;
    let dt = d.name();
    let ten = format!("tensor<[{r}, {c}], {dt}>");
    let full = format!("tile<[{r}, {c}], [{r}, {c}], {dt}>");
    let tv = format!("tile<[{}, {}], [{r}, {c}], {dt}>", valid.0, valid.1);
    let mv = format!("tile<[{}, {}], [{r}, {c}], bool>", valid.0, valid.1);
    let (k, alt) = if d.is_float() {
        ("1.25", "-1.25")
    } else {
        ("3", "7")
    };
    let name = op.full_name();
    let mut body = format!(
        "      %a_4 = tile.load %x_1 : ({ten}) -> {full} {{shape=[{r}, {c}], offset=[0, 0]}}\n      %b_5 = tile.load %y_2 : ({ten}) -> {full} {{shape=[{r}, {c}], offset=[0, 0]}}\n      %m_6 = {} : int64\n      %n_7 = {} : int64\n      %av_8 = tile.valid %a_4, %m_6, %n_7 : ({full}, int64, int64) -> {tv}\n      %bv_9 = tile.valid %b_5, %m_6, %n_7 : ({full}, int64, int64) -> {tv}\n",
        valid.0, valid.1
    );
    body += &if scalar {
        format!(
            "      %k_11 = {k} : {dt}\n      %j_12 = {alt} : {dt}\n      %c_10 = {name} %av_8, %k_11 : ({tv}, {dt}) -> {mv}\n      %r_13 = tile.select %c_10, %av_8, %j_12 : ({mv}, {tv}, {dt}) -> {tv}\n"
        )
    } else {
        format!(
            "      %c_10 = {name} %av_8, %bv_9 : ({tv}, {tv}) -> {mv}\n      %r_13 = tile.select %c_10, %av_8, %bv_9 : ({mv}, {tv}, {tv}) -> {tv}\n"
        )
    };
    body += &format!("      tile.store %r_13, %o_3 : ({tv}, {ten}) -> () {{offset=[0, 0]}}\n");
    format!(
        "program.module @c {{\n  program.entry @k\n  func.func @k(%x_1: {ten} #in, %y_2: {ten} #in, %o_3: {ten} #out) {{\n    statement.op {{\n{body}    }}\n    statement.return\n  }}\n}}\n"
    )
}

/// Every comparison on `T` for one tile case, tile-tile and tile-scalar, through
/// `tcmp` / `tcmps` and `tsel` / `tsels` against the interpreter; returns the cases run.
fn mask_ops<T: Element, const R: usize, const C: usize>(d: DataType, case: Case) -> usize {
    let x = values(d, R * C, 1);
    let mut y = values(d, R * C, 2);
    // Equal pairs, so `eq` / `le` / `ge` hold somewhere.
    for i in (0..R * C).step_by(3) {
        y[i] = x[i];
    }
    let tile = |v: &[f64]| {
        let t: Vec<T> = v.iter().map(|&e| T::from_f64(e)).collect();
        Tile::<T, R, C>::from_slice(&t)
            .unwrap()
            .with_valid(case.valid.0, case.valid.1)
            .unwrap()
    };
    let (a, b) = (tile(&x), tile(&y));
    let (k, alt) = if d.is_float() {
        (T::from_f64(1.25), T::from_f64(-1.25))
    } else {
        (T::from_f64(3.0), T::from_f64(7.0))
    };
    let mut n = 0;
    for row in OPS.iter().filter(|r| r.class == OpClass::TileCompare) {
        let Sem::Compare(mode) = row.sem else {
            panic!("{}: a comparison without a comparison", row.opcode)
        };
        for scalar in [false, true] {
            let mut m = Tile::<u8, R, C>::zeros();
            let mut got = Tile::<T, R, C>::zeros();
            if scalar {
                isa::tcmps(&mut m, &a, k, mode);
                isa::tsels(&mut got, &m, &a, alt);
            } else {
                isa::tcmp(&mut m, &a, &b, mode);
                isa::tsel(&mut got, &m, &a, &b);
            }
            let what = format!("{} (scalar: {scalar}) on {d}, {}", row.opcode, case.name);
            assert_eq!(got.valid(), case.valid, "{what}: valid region");
            let host_v: Vec<f64> = got.to_vec().iter().map(|e| e.to_f64()).collect();
            let text = mask_module(row.opcode, d, (R, C), case.valid, scalar);
            let interp_v = interpret(&text, d, (R, C), case.valid, &x, &y);
            for (i, (h, v)) in host_v.iter().zip(&interp_v).enumerate() {
                assert!(
                    same(*h, *v),
                    "{what}: element {i}: host {h} vs interpreter {v}"
                );
            }
            n += 1;
        }
    }
    n
}

fn mask_cases<T: Element>(d: DataType) -> usize {
    let full = Case {
        name: "full 4 x 32",
        valid: (4, 32),
    };
    let ragged = Case {
        name: "ragged 3 x 21 of 4 x 32",
        valid: (3, 21),
    };
    mask_ops::<T, 4, 32>(d, full) + mask_ops::<T, 4, 32>(d, ragged)
}

#[test]
fn masks_agree_for_every_dtype_and_shape() {
    let n = mask_cases::<i8>(DataType::Int8)
        + mask_cases::<i16>(DataType::Int16)
        + mask_cases::<i32>(DataType::Int32)
        + mask_cases::<i64>(DataType::Int64)
        + mask_cases::<u8>(DataType::UInt8)
        + mask_cases::<u16>(DataType::UInt16)
        + mask_cases::<u32>(DataType::UInt32)
        + mask_cases::<u64>(DataType::UInt64)
        + mask_cases::<f16>(DataType::Fp16)
        + mask_cases::<bf16>(DataType::Bf16)
        + mask_cases::<f32>(DataType::Fp32)
        + mask_cases::<f64>(DataType::Fp64);
    // 6 comparisons x {tile, scalar} x {full, ragged} x 12 dtypes.
    assert_eq!(n, 6 * 2 * 2 * 12, "cases run");
}

/// Issue 16 part B: a kernel in IR text on a `13 x 40` f32 tensor `x` (8 x 32 windows at an
/// offset: `[0, 0]` is a full tile, `[9, 19]` a ragged 4 x 21 one) and an `8 x 32` tensor `o`
/// holding `y`: run by the interpreter, it must give exactly what the `pto::isa` calls give.
fn part_b_interp(body: &str, x: (&[f64], (usize, usize)), o: (&[f64], DataType)) -> Vec<f64> {
    let (r, c) = x.1;
    let od = o.1.name();
    let text = format!(
        "program.module @c {{\n  program.entry @k\n  func.func @k(%x_1: tensor<[{r}, {c}], fp32> #in, %o_2: tensor<[8, 32], {od}> #inout) {{\n    statement.op {{\n{body}    }}\n    statement.return\n  }}\n}}\n"
    );
    let m = pto::ir::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    pto::ir::verify(&m).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut args = vec![
        HostValue::tensor(DataType::Fp32, vec![r, c], x.0.to_vec()).unwrap(),
        HostValue::tensor(o.1, vec![8, 32], o.0.to_vec()).unwrap(),
    ];
    run(&m, m.entry.unwrap(), &mut args).unwrap_or_else(|e| panic!("{e}\n{text}"));
    args[1].as_tensor().unwrap().data.clone()
}

fn agree_bits(what: &str, host: &[f64], interp: &[f64]) {
    assert_eq!(host.len(), interp.len(), "{what}");
    for (i, (h, v)) in host.iter().zip(interp).enumerate() {
        assert!(
            same(*h, *v),
            "{what}: element {i}: host {h} vs interpreter {v}"
        );
    }
}

#[test]
fn part_b_memory_ops_agree_at_full_and_ragged_regions() {
    use pto::Tensor;
    let (r, c) = (13, 40);
    for (i, j) in [(0usize, 0usize), (9, 19), (5, 8)] {
        let what = |op: &str| format!("{op} at [{i}, {j}]");
        let xv: Vec<f64> = values(DataType::Fp32, r * c, 3)
            .into_iter()
            .map(|v| if v.is_nan() { 0.25 } else { v })
            .collect();
        let yv = values(DataType::Fp32, 8 * 32, 4)
            .into_iter()
            .map(|v| if v.is_nan() { 0.5 } else { v })
            .collect::<Vec<_>>();
        let x = Tensor::from_vec_dyn(xv.iter().map(|&v| v as f32).collect(), &[r, c]).unwrap();
        let y = || Tensor::from_vec_dyn(yv.iter().map(|&v| v as f32).collect(), &[8, 32]).unwrap();
        let ten = format!("tensor<[{r}, {c}], fp32>");
        let o32 = "tensor<[8, 32], fp32>";
        let loaded = format!(
            "tile<[{}, {}], [8, 32], fp32>",
            (r - i).min(8),
            (c - j).min(32)
        );
        let load = format!(
            "      %t_3 = tile.load %x_1 : ({ten}) -> {loaded} {{shape=[8, 32], offset=[{i}, {j}]}}\n"
        );
        let mut t = Tile::<f32, 8, 32>::zeros();
        isa::tload(&mut t, &x, &[i, j]).unwrap();
        let bits = |o: &Tensor<f32>| {
            o.as_slice()
                .iter()
                .map(|&v| f64::from(v))
                .collect::<Vec<_>>()
        };

        // load_or pads with 1.5 and the whole tile is stored.
        let body = format!(
            "      %p_3 = 1.5 : fp32\n      %t_4 = tile.load_or %x_1, %p_3 : ({ten}, fp32) -> tile<[8, 32], [8, 32], fp32> {{shape=[8, 32], offset=[{i}, {j}]}}\n      tile.store %t_4, %o_2 : (tile<[8, 32], [8, 32], fp32>, {o32}) -> () {{offset=[0, 0]}}\n"
        );
        let mut padded = t.clone();
        isa::tfillpad_inplace(&mut padded, 1.5);
        let mut o = y();
        isa::tstore(&mut o, &padded, &[0, 0]).unwrap();
        agree_bits(
            &what("load_or"),
            &bits(&o),
            &part_b_interp(&body, (&xv, (r, c)), (&yv, DataType::Fp32)),
        );

        // store_add of the (ragged) loaded tile into y.
        let body = format!(
            "{load}      tile.store_add %t_3, %o_2 : ({loaded}, {o32}) -> () {{offset=[0, 0]}}\n"
        );
        let mut o = y();
        isa::tstore_add(&mut o, &t, &[0, 0]).unwrap();
        agree_bits(
            &what("store_add"),
            &bits(&o),
            &part_b_interp(&body, (&xv, (r, c)), (&yv, DataType::Fp32)),
        );

        // A converting store into fp16 (the interpreter runs the IR; the lowering takes it
        // from an accumulator only).
        let body = format!(
            "{load}      tile.store %t_3, %o_2 : ({loaded}, tensor<[8, 32], fp16>) -> () {{offset=[0, 0]}}\n"
        );
        let y16: Vec<f64> = yv
            .iter()
            .map(|&v| f64::from(f16::from_f64(v).to_f32()))
            .collect();
        let mut o16 =
            Tensor::from_vec_dyn(y16.iter().map(|&v| f16::from_f64(v)).collect(), &[8, 32])
                .unwrap();
        isa::tstore_cvt(&mut o16, &t, &[0, 0], isa::StoreMode::Write).unwrap();
        let host16: Vec<f64> = o16.as_slice().iter().map(|v| v.to_f64()).collect();
        agree_bits(
            &what("converting store"),
            &host16,
            &part_b_interp(&body, (&xv, (r, c)), (&y16, DataType::Fp16)),
        );

        // Quantising stores into int8 and uint8 (scale 1.0: ties to even, saturation; the
        // interpreter runs the IR, the lowering takes them from an accumulator only).
        for (d, lo, hi) in [
            (DataType::Int8, -128.0, 127.0),
            (DataType::UInt8, 0.0, 255.0),
        ] {
            let body = format!(
                "{load}      tile.store %t_3, %o_2 : ({loaded}, tensor<[8, 32], {}>) -> () {{offset=[0, 0]}}\n",
                d.name()
            );
            let y8: Vec<f64> = yv.iter().map(|&v| v.round().clamp(lo, hi)).collect();
            let host8: Vec<f64> = if d == DataType::Int8 {
                let mut o8 =
                    Tensor::from_vec_dyn(y8.iter().map(|&v| v as i8).collect(), &[8, 32]).unwrap();
                isa::tstore_quant(&mut o8, &t, &[0, 0], 1.0, isa::StoreMode::Write).unwrap();
                o8.as_slice().iter().map(|&v| f64::from(v)).collect()
            } else {
                let mut o8 =
                    Tensor::from_vec_dyn(y8.iter().map(|&v| v as u8).collect(), &[8, 32]).unwrap();
                isa::tstore_quant(&mut o8, &t, &[0, 0], 1.0, isa::StoreMode::Write).unwrap();
                o8.as_slice().iter().map(|&v| f64::from(v)).collect()
            };
            agree_bits(
                &what(&format!("quantising store into {}", d.name())),
                &host8,
                &part_b_interp(&body, (&xv, (r, c)), (&y8, d)),
            );
        }

        // reshape of the padded tile to 16 x 16, stored as 8 x 32 through a second reshape.
        let body = format!(
            "      %p_3 = 0.0 : fp32\n      %t_4 = tile.load_or %x_1, %p_3 : ({ten}, fp32) -> tile<[8, 32], [8, 32], fp32> {{shape=[8, 32], offset=[{i}, {j}]}}\n      %s_5 = tile.reshape %t_4 : (tile<[8, 32], [8, 32], fp32>) -> tile<[16, 16], [16, 16], fp32> {{shape=[16, 16]}}\n      %u_6 = tile.reshape %s_5 : (tile<[16, 16], [16, 16], fp32>) -> tile<[8, 32], [8, 32], fp32> {{shape=[8, 32]}}\n      tile.store %u_6, %o_2 : (tile<[8, 32], [8, 32], fp32>, {o32}) -> () {{offset=[0, 0]}}\n"
        );
        let mut z = t.clone();
        isa::tfillpad_inplace(&mut z, 0.0);
        let (mut s, mut u) = (Tile::<f32, 16, 16>::zeros(), Tile::<f32, 8, 32>::zeros());
        isa::treshape(&mut s, &z);
        isa::treshape(&mut u, &s);
        let mut o = y();
        isa::tstore(&mut o, &u, &[0, 0]).unwrap();
        agree_bits(
            &what("reshape"),
            &bits(&o),
            &part_b_interp(&body, (&xv, (r, c)), (&yv, DataType::Fp32)),
        );

        // insert of a 4 x 8 window of the loaded tile into a full tile of 2.0 at [4, 16].
        let body = format!(
            "{load}      %e_4 = tile.extract %t_3 : ({loaded}) -> tile<[4, 8], [4, 8], fp32> {{shape=[4, 8], offset=[0, 0]}}\n      %k_5 = 2.0 : fp32\n      %f_6 = tile.full %k_5 : (fp32) -> tile<[8, 32], [8, 32], fp32> {{shape=[8, 32], dtype=fp32}}\n      %g_7 = tile.assemble %e_4, %f_6 : (tile<[4, 8], [4, 8], fp32>, tile<[8, 32], [8, 32], fp32>) -> tile<[8, 32], [8, 32], fp32> {{offset=[4, 16]}}\n      tile.store %g_7, %o_2 : (tile<[8, 32], [8, 32], fp32>, {o32}) -> () {{offset=[0, 0]}}\n"
        );
        let mut e = Tile::<f32, 4, 8>::zeros();
        isa::textract(&mut e, &t, 0, 0).unwrap();
        let mut g = Tile::<f32, 8, 32>::full(2.0);
        isa::tinsert(&mut g, &e, 4, 16).unwrap();
        let mut o = y();
        isa::tstore(&mut o, &g, &[0, 0]).unwrap();
        agree_bits(
            &what("insert"),
            &bits(&o),
            &part_b_interp(&body, (&xv, (r, c)), (&yv, DataType::Fp32)),
        );

        // read the last element of x and write it into o[7, 31].
        let body = format!(
            "      %v_3 = tile.read %x_1 : ({ten}) -> fp32 {{offset=[{}, {}]}}\n      tile.write %v_3, %o_2 : (fp32, {o32}) -> () {{offset=[7, 31]}}\n",
            r - 1 - i,
            c - 1 - j
        );
        let mut o = y();
        let v = isa::tread(&x, &[r - 1 - i, c - 1 - j]).unwrap();
        isa::twrite(&mut o, v, &[7usize, 31]).unwrap();
        agree_bits(
            &what("read / write"),
            &bits(&o),
            &part_b_interp(&body, (&xv, (r, c)), (&yv, DataType::Fp32)),
        );
    }
}
