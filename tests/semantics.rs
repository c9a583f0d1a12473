//! The language means what Rust means (dsl.md sections 5.1 and 5.4), the same way in every
//! backend: constant folding, the reference interpreter (on `NAME::program()`) and the
//! generated host code agree with Rust on `/`, `%`, `floor_div`, `floor_mod` and casts, on
//! scalars and tiles alike; the C++ names the same functions.

use pto::ir::DataType;
use pto::{Element, Tensor};
use pto_lower::interp::{HostValue, run};

/// Spellings the macro finds in the op table by operand class and dtype (issue 12): scalar
/// `a.pow(b)` (`scalar.pow`, not reachable before), `max` as a function and `min` as a
/// method, `bool ^ bool` (`scalar.xor`, before: an error for `scalar.bitxor` on `bool`)
/// and `!` on an integer (`scalar.bitnot`).
#[pto::kernel]
pub fn table_spellings(a: i32, b: i32, p: bool, q: bool, #[out] out: &mut Tensor<i32, 4, 8>) {
    out.store([0, 0], Tile::<i32, 1, 8>::full(a.pow(b)));
    out.store([1, 0], Tile::<i32, 1, 8>::full(max(a, b) - a.min(b)));
    out.store([2, 0], Tile::<i32, 1, 8>::full((p ^ q) as i32));
    out.store([3, 0], Tile::<i32, 1, 8>::full(!a));
}

#[test]
fn table_spellings_mean_rust_in_every_backend() {
    for (a, b, p, q) in [
        (3i32, 4i32, true, false),
        (-2, 3, true, true),
        (7, 0, false, false),
    ] {
        let want = [
            a.wrapping_pow(b as u32),
            std::cmp::max(a, b) - std::cmp::min(a, b),
            i32::from(p ^ q),
            !a,
        ];
        let mut out = Tensor::<i32>::try_zeros(&[4, 8]).unwrap();
        table_spellings(a, b, p, q, &mut out).unwrap();
        let host: Vec<i32> = out.as_slice().chunks(8).map(|r| r[0]).collect();
        assert_eq!(host, want, "host {a} {b} {p} {q}");
        let m = table_spellings::program();
        let mut args = vec![
            HostValue::i32(a),
            HostValue::i32(b),
            HostValue::bool(p),
            HostValue::bool(q),
            host_value(&out, DataType::Int32),
        ];
        run(&m, m.entry.unwrap(), &mut args).unwrap();
        let interp: Vec<i32> = interp_data(&args[4])
            .chunks(8)
            .map(|r| r[0] as i32)
            .collect();
        assert_eq!(interp, want, "interpreter {a} {b} {p} {q}");
    }
    let ir = table_spellings::IR;
    for op in [
        "scalar.pow",
        "scalar.max",
        "scalar.min",
        "scalar.xor",
        "scalar.bitnot",
    ] {
        assert!(ir.contains(op), "{op} not in\n{ir}");
    }
    assert!(table_spellings::CPP.contains("__builtin_pow("));
}

/// Scalar division and remainder, truncating and floored, written into one row each.
#[pto::kernel]
pub fn scalar_div(a: i32, b: i32, #[out] out: &mut Tensor<i32, 4, 8>) {
    out.store([0, 0], Tile::<i32, 1, 8>::full(a / b));
    out.store([1, 0], Tile::<i32, 1, 8>::full(a % b));
    out.store([2, 0], Tile::<i32, 1, 8>::full(a.floor_div(b)));
    out.store([3, 0], Tile::<i32, 1, 8>::full(a.floor_mod(b)));
}

/// The same on constants, which canonicalize folds.
#[pto::kernel]
pub fn folded_div(#[out] out: &mut Tensor<i32, 4, 8>) {
    let a: i32 = -7;
    let b: i32 = -2;
    out.store([0, 0], Tile::<i32, 1, 8>::full(a / b));
    out.store([1, 0], Tile::<i32, 1, 8>::full(a % b));
    out.store([2, 0], Tile::<i32, 1, 8>::full(a.floor_div(b)));
    out.store([3, 0], Tile::<i32, 1, 8>::full(a.floor_mod(b)));
}

/// Tile `/` and `%` truncate (tile-tile and tile-scalar forms). On A5: A2A3's TDIV takes
/// fp16 and fp32 only, its TFMOD / TFMODS fp32 only (`npu/a2a3/TDiv.hpp`, `TFmod.hpp`).
#[pto::kernel(arch = "A5")]
pub fn tile_div_i32(
    x: &Tensor<i32, 8, 16>,
    y: &Tensor<i32, 8, 16>,
    #[out] q: &mut Tensor<i32, 8, 16>,
    #[out] r: &mut Tensor<i32, 8, 16>,
    #[out] rs: &mut Tensor<i32, 8, 16>,
) {
    let a = x.load::<8, 16>([0, 0]);
    let b = y.load::<8, 16>([0, 0]);
    q.store([0, 0], a / b);
    r.store([0, 0], a % b);
    rs.store([0, 0], a % -3);
}

/// Integer tile `floor_div` / `floor_mod` round down, but no target computes them (the
/// verifier refuses them: A2A3's TREM goes through fp32 and overwrites its divisor, A5's
/// truncates), so there is no kernel: the module `a.floor_div(b)`, `a.floor_mod(b)` and
/// `a.floor_mod(-3)` would be (the macro composes `floor_div` as `(a - a.floor_mod(b)) /
/// b`), for the interpreter and the verifier.
const TILE_FLOOR_I32: &str = r#"program.module @tile_floor_i32 {
  program.entry @k
  ARCH
  func.func @k(%x_1: tensor<[8, 16], int32> #in, %y_2: tensor<[8, 16], int32> #in, %fq_3: tensor<[8, 16], int32> #out, %fr_4: tensor<[8, 16], int32> #out, %frs_5: tensor<[8, 16], int32> #out) {
    statement.op {
      %k_6 = -3 : int32
      %a_7 = tile.load %x_1 : (tensor<[8, 16], int32>) -> tile<[8, 16], [8, 16], int32> {shape=[8, 16], offset=[0, 0]}
      %b_8 = tile.load %y_2 : (tensor<[8, 16], int32>) -> tile<[8, 16], [8, 16], int32> {shape=[8, 16], offset=[0, 0]}
      %m_9 = tile.floormod %a_7, %b_8 : (tile<[8, 16], [8, 16], int32>, tile<[8, 16], [8, 16], int32>) -> tile<[8, 16], [8, 16], int32>
      %d_10 = tile.sub %a_7, %m_9 : (tile<[8, 16], [8, 16], int32>, tile<[8, 16], [8, 16], int32>) -> tile<[8, 16], [8, 16], int32>
      %q_11 = tile.div %d_10, %b_8 : (tile<[8, 16], [8, 16], int32>, tile<[8, 16], [8, 16], int32>) -> tile<[8, 16], [8, 16], int32>
      %s_12 = tile.floormod %a_7, %k_6 : (tile<[8, 16], [8, 16], int32>, int32) -> tile<[8, 16], [8, 16], int32>
      tile.store %q_11, %fq_3 : (tile<[8, 16], [8, 16], int32>, tensor<[8, 16], int32>) -> () {offset=[0, 0]}
      tile.store %m_9, %fr_4 : (tile<[8, 16], [8, 16], int32>, tensor<[8, 16], int32>) -> () {offset=[0, 0]}
      tile.store %s_12, %frs_5 : (tile<[8, 16], [8, 16], int32>, tensor<[8, 16], int32>) -> () {offset=[0, 0]}
    }
    statement.return
  }
}
"#;

/// The float forms.
#[pto::kernel]
pub fn tile_div_f32(
    x: &Tensor<f32, 8, 16>,
    y: &Tensor<f32, 8, 16>,
    #[out] r: &mut Tensor<f32, 8, 16>,
    #[out] fq: &mut Tensor<f32, 8, 16>,
    #[out] fr: &mut Tensor<f32, 8, 16>,
) {
    let a = x.load::<8, 16>([0, 0]);
    let b = y.load::<8, 16>([0, 0]);
    r.store([0, 0], a % b);
    fq.store([0, 0], a.floor_div(b));
    fr.store([0, 0], a.floor_mod(b));
}

/// Casts: to the same dtype is the identity, float to integer truncates like `as`, and
/// `cast_round` names another rounding.
#[pto::kernel]
pub fn casts(
    x: &Tensor<f32, 1, 16>,
    #[out] same: &mut Tensor<f32, 1, 16>,
    #[out] trunc: &mut Tensor<i32, 1, 16>,
    #[out] nearest: &mut Tensor<i32, 1, 16>,
    #[out] away: &mut Tensor<i32, 1, 16>,
    #[out] floor: &mut Tensor<i32, 1, 16>,
) {
    let t = x.load::<1, 16>([0, 0]);
    same.store([0, 0], t.cast::<f32>());
    trunc.store([0, 0], t.cast::<i32>());
    nearest.store([0, 0], t.cast_round::<i32>(Round::Nearest));
    away.store([0, 0], t.cast_round::<i32>(Round::Away));
    floor.store([0, 0], t.cast_round::<i32>(Round::Floor));
}

fn ints(seed: u64, n: usize, nonzero: bool) -> Vec<i32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let v = (s % 41) as i32 - 20;
            if nonzero && v == 0 { 7 } else { v }
        })
        .collect()
}

fn host_value<T: Element>(t: &Tensor<T>, d: DataType) -> HostValue {
    let wide = t.as_slice().iter().map(|v| v.to_f64()).collect();
    HostValue::tensor(d, t.shape().to_vec(), wide).unwrap()
}

fn interp_data(v: &HostValue) -> Vec<f64> {
    v.as_tensor().unwrap().data.clone()
}

#[test]
fn scalar_division_means_rust_in_every_backend() {
    for (a, b) in [(-7, -2), (-7, 2), (7, -2), (7, 2), (i32::MIN, -1), (5, 0)] {
        let want = [
            a.checked_div(b)
                .unwrap_or(if b == 0 { 0 } else { a.wrapping_div(b) }),
            if b == 0 { a } else { a.wrapping_rem(b) },
            if b == 0 {
                0
            } else {
                a.wrapping_div(b) - i32::from(a.wrapping_rem(b) != 0 && (a < 0) != (b < 0))
            },
            if b == 0 {
                a
            } else {
                let r = a.wrapping_rem(b);
                if r != 0 && (r < 0) != (b < 0) {
                    r + b
                } else {
                    r
                }
            },
        ];
        let mut out = Tensor::<i32>::try_zeros(&[4, 8]).unwrap();
        scalar_div(a, b, &mut out).unwrap();
        let host: Vec<i32> = out.as_slice().chunks(8).map(|r| r[0]).collect();
        assert_eq!(host, want, "host {a} by {b}");
        let m = scalar_div::program();
        let mut args = vec![
            HostValue::i32(a),
            HostValue::i32(b),
            host_value(&out, DataType::Int32),
        ];
        run(&m, m.entry.unwrap(), &mut args).unwrap();
        let interp: Vec<i32> = interp_data(&args[2])
            .chunks(8)
            .map(|r| r[0] as i32)
            .collect();
        assert_eq!(interp, want, "interpreter {a} by {b}");
    }
    // -7 by -2: Rust gives 3 and -1, floored 3 and -1.
    assert_eq!((-7i32).div_euclid(-2), 4, "(not the floor division)");
}

#[test]
fn constant_folding_means_rust() {
    let mut out = Tensor::<i32>::try_zeros(&[4, 8]).unwrap();
    folded_div(&mut out).unwrap();
    let host: Vec<i32> = out.as_slice().chunks(8).map(|r| r[0]).collect();
    assert_eq!(host, [3, -1, 3, -1]);
    // Folded: the lowered program computes no scalar division at all.
    assert!(
        !folded_div::LOWERED.contains("floordiv"),
        "{}",
        folded_div::LOWERED
    );
    assert!(
        !folded_div::LOWERED.contains("scalar.div"),
        "{}",
        folded_div::LOWERED
    );
}

#[test]
fn tile_division_means_rust() {
    let x = Tensor::from_vec(ints(1, 128, false), [8, 16]).unwrap();
    let y = Tensor::from_vec(ints(2, 128, true), [8, 16]).unwrap();
    let z = || Tensor::<i32>::try_zeros(&[8, 16]).unwrap();
    let mut outs = [z(), z(), z()];
    {
        let [q, r, rs] = &mut outs;
        tile_div_i32(&x, &y, q, r, rs).unwrap();
    }
    let (xs, ys) = (x.as_slice(), y.as_slice());
    let floor_mod = |a: i32, b: i32| {
        let r = a % b;
        if r != 0 && (r < 0) != (b < 0) {
            r + b
        } else {
            r
        }
    };
    let want: [Vec<i32>; 3] = [
        xs.iter().zip(ys).map(|(a, b)| a / b).collect(),
        xs.iter().zip(ys).map(|(a, b)| a % b).collect(),
        xs.iter().map(|a| a % -3).collect(),
    ];
    let differ = xs
        .iter()
        .zip(ys)
        .filter(|(a, b)| *a % *b != floor_mod(**a, **b))
        .count();
    assert!(
        differ > 10,
        "the data must tell truncation from floor ({differ})"
    );
    for (k, w) in want.iter().enumerate() {
        assert_eq!(outs[k].as_slice(), &w[..], "host output {k}");
    }
    let m = tile_div_i32::program();
    let mut args = vec![
        host_value(&x, DataType::Int32),
        host_value(&y, DataType::Int32),
    ];
    args.extend((0..3).map(|_| host_value(&z(), DataType::Int32)));
    run(&m, m.entry.unwrap(), &mut args).unwrap();
    for (k, w) in want.iter().enumerate() {
        let got: Vec<i32> = interp_data(&args[k + 2])
            .iter()
            .map(|v| *v as i32)
            .collect();
        assert_eq!(got, *w, "interpreter output {k}");
    }
    // The C++ says the same: `%` is TFMOD.
    let cpp = tile_div_i32::CPP;
    assert!(cpp.contains("TFMOD(") && cpp.contains("TFMODS("), "{cpp}");

    // Floored: the interpreter and the host's instructions (`pto::isa::trem` / `trems`)
    // round down; the verifier refuses the module on both targets, at each `floor_mod`.
    let want: [Vec<i32>; 3] = [
        xs.iter()
            .zip(ys)
            .map(|(a, b)| (a - floor_mod(*a, *b)) / b)
            .collect(),
        xs.iter().zip(ys).map(|(a, b)| floor_mod(*a, *b)).collect(),
        xs.iter().map(|a| floor_mod(*a, -3)).collect(),
    ];
    let tile = |t: &Tensor<i32>| pto::Tile::<i32, 8, 16>::from_slice(t.as_slice()).unwrap();
    let (ta, tb) = (tile(&x), tile(&y));
    let mut d = pto::Tile::<i32, 8, 16>::zeros();
    pto::isa::trem(&mut d, &ta, &tb);
    assert_eq!(d.to_vec(), want[1], "host TREM");
    pto::isa::trems(&mut d, &ta, -3);
    assert_eq!(d.to_vec(), want[2], "host TREMS");
    for arch in ["", "attr arch = \"A5\""] {
        let m = pto::ir::parse(&TILE_FLOOR_I32.replace("ARCH", arch)).unwrap();
        let e = pto::ir::verify(&m).unwrap_err();
        let msgs: Vec<&str> = e.iter().map(|d| d.message.as_str()).collect();
        let floor: Vec<&&str> = msgs
            .iter()
            .filter(|m| m.starts_with("tile.floormod: "))
            .collect();
        assert_eq!(floor.len(), 2, "{e}");
        assert!(
            floor.iter().all(|m| m
                .starts_with("tile.floormod: `a.floor_mod(b)` on int32 tiles is not legal on ")),
            "{e}"
        );
        // A2A3 also refuses the integer `/` (its TDIV takes fp16 and fp32 only).
        assert_eq!(msgs.len(), if arch.is_empty() { 3 } else { 2 }, "{e}");
        let mut args = vec![
            host_value(&x, DataType::Int32),
            host_value(&y, DataType::Int32),
        ];
        args.extend((0..3).map(|_| host_value(&z(), DataType::Int32)));
        run(&m, m.entry.unwrap(), &mut args).unwrap();
        for (k, w) in want.iter().enumerate() {
            let got: Vec<i32> = interp_data(&args[k + 2])
                .iter()
                .map(|v| *v as i32)
                .collect();
            assert_eq!(got, *w, "interpreter floored output {k}");
        }
    }
}

#[test]
fn float_tile_division_means_rust() {
    let f = |s, nz| {
        ints(s, 128, nz)
            .into_iter()
            .map(|v| v as f32 * 0.75)
            .collect::<Vec<_>>()
    };
    let x = Tensor::from_vec(f(3, false), [8, 16]).unwrap();
    let y = Tensor::from_vec(f(4, true), [8, 16]).unwrap();
    let z = || Tensor::<f32>::try_zeros(&[8, 16]).unwrap();
    let mut outs = [z(), z(), z()];
    {
        let [r, fq, fr] = &mut outs;
        tile_div_f32(&x, &y, r, fq, fr).unwrap();
    }
    let (xs, ys) = (x.as_slice(), y.as_slice());
    let want: [Vec<f32>; 3] = [
        xs.iter().zip(ys).map(|(a, b)| a % b).collect(),
        xs.iter().zip(ys).map(|(a, b)| (a / b).floor()).collect(),
        xs.iter()
            .zip(ys)
            .map(|(a, b)| {
                let r = a % b;
                if r != 0.0 && (r < 0.0) != (*b < 0.0) {
                    r + b
                } else {
                    r
                }
            })
            .collect(),
    ];
    for (k, w) in want.iter().enumerate() {
        assert_eq!(outs[k].as_slice(), &w[..], "host output {k}");
    }
    let m = tile_div_f32::program();
    let mut args = vec![
        host_value(&x, DataType::Fp32),
        host_value(&y, DataType::Fp32),
    ];
    args.extend((0..3).map(|_| host_value(&z(), DataType::Fp32)));
    run(&m, m.entry.unwrap(), &mut args).unwrap();
    for (k, w) in want.iter().enumerate() {
        let w: Vec<f64> = w.iter().map(|v| f64::from(*v)).collect();
        assert_eq!(interp_data(&args[k + 2]), w, "interpreter output {k}");
    }
}

#[test]
fn casts_mean_rust_as_unless_a_rounding_is_named() {
    let xs: Vec<f32> = vec![
        1.5,
        0.78,
        -1.5,
        2.5,
        -2.5,
        3.5,
        -0.4,
        1e10,
        -1e10,
        f32::NAN,
        0.5,
        -0.5,
        2.49,
        -2.51,
        7.0,
        -7.0,
    ];
    let x = Tensor::from_vec(xs.clone(), [1, 16]).unwrap();
    let mut same = Tensor::<f32>::try_zeros(&[1, 16]).unwrap();
    let z = || Tensor::<i32>::try_zeros(&[1, 16]).unwrap();
    let mut outs = [z(), z(), z(), z()];
    {
        let [t, n, a, f] = &mut outs;
        casts(&x, &mut same, t, n, a, f).unwrap();
    }
    // Identity, bit for bit (the NaN stays a NaN).
    for (a, b) in same.as_slice().iter().zip(&xs) {
        assert!(a == b || (a.is_nan() && b.is_nan()), "{a} vs {b}");
    }
    let want: [Vec<i32>; 4] = [
        xs.iter().map(|v| *v as i32).collect(),
        xs.iter().map(|v| v.round_ties_even() as i32).collect(),
        xs.iter().map(|v| v.round() as i32).collect(),
        xs.iter().map(|v| v.floor() as i32).collect(),
    ];
    for (k, w) in want.iter().enumerate() {
        assert_eq!(outs[k].as_slice(), &w[..], "host output {k}");
    }
    let m = casts::program();
    let mut args = vec![
        host_value(&x, DataType::Fp32),
        host_value(&same, DataType::Fp32),
    ];
    args.extend((0..4).map(|_| host_value(&z(), DataType::Int32)));
    run(&m, m.entry.unwrap(), &mut args).unwrap();
    let same_i = interp_data(&args[1]);
    for (a, b) in same_i.iter().zip(&xs) {
        assert!(
            *a == f64::from(*b) || (a.is_nan() && b.is_nan()),
            "interpreter {a} vs {b}"
        );
    }
    for (k, w) in want.iter().enumerate() {
        let got: Vec<i32> = interp_data(&args[k + 2])
            .iter()
            .map(|v| *v as i32)
            .collect();
        assert_eq!(got, *w, "interpreter output {k}");
    }
    // The identity is no instruction; the named roundings are TCVT with their mode.
    let cpp = casts::CPP;
    for mode in ["CAST_TRUNC", "CAST_RINT", "CAST_ROUND", "CAST_FLOOR"] {
        assert!(
            cpp.contains(&format!("RoundMode::{mode})")),
            "{mode} in\n{cpp}"
        );
    }
    assert_eq!(cpp.matches("TCVT(").count(), 4, "{cpp}");
}

/// Scalar float-to-integer `as` and floor division in the C++.
#[pto::kernel]
pub fn scalar_cpp(x: f32, a: i32, b: i32, #[out] out: &mut Tensor<i32, 1, 8>) {
    let q = a.floor_div(b) + (x as i32);
    out.store([0, 0], Tile::<i32, 1, 8>::full(q));
}

#[test]
fn cpp_names_the_semantics_helpers() {
    let cpp = scalar_cpp::CPP;
    assert!(cpp.contains("namespace pto_rs {"), "{cpp}");
    assert!(cpp.contains("pto_rs::floor_div<int32_t>("), "{cpp}");
    assert!(cpp.contains("pto_rs::cast_trunc<int32_t>("), "{cpp}");
    // Kernels that need no helper get none.
    assert!(!casts::CPP.contains("namespace pto_rs"), "{}", casts::CPP);
    let mut out = Tensor::<i32>::try_zeros(&[1, 8]).unwrap();
    scalar_cpp(f32::NAN, -7, 2, &mut out).unwrap();
    assert_eq!(out.as_slice()[0], -4);
    scalar_cpp(1e20, -7, 2, &mut out).unwrap();
    assert_eq!(out.as_slice()[0], i32::MAX.wrapping_add(-4));
}

#[test]
fn helper_cpp_compiles_with_gxx() {
    let Ok(o) = std::process::Command::new("g++").arg("--version").output() else {
        eprintln!("skip: no g++");
        return;
    };
    if !o.status.success() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("pto-sem-cpp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let include = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("pto-lower/tests/cpp");
    for (name, cpp, target) in [
        ("scalar_cpp", scalar_cpp::CPP, "A2A3"),
        ("tile_div_i32", tile_div_i32::CPP, "A5"),
        ("casts", casts::CPP, "A2A3"),
    ] {
        let file = dir.join(format!("{name}.cpp"));
        std::fs::write(&file, cpp).unwrap();
        let o = std::process::Command::new("g++")
            .args(["-std=c++20", "-fsyntax-only"])
            .arg(format!("-DPTO_TARGET_{target}"))
            .arg("-I")
            .arg(&include)
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{name}:\n{}\n{cpp}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

mod support;

/// Issue 14's audit: this file's kernels as `NAME::CPP` for A2A3 and A5 in the C++ model of
/// pto-isa, against their host functions. Their shapes are static, so each runs at its one
/// size (`table_spellings` with its flags false, then true); the model's arguments are 5
/// for integer scalars and 1.5 for floats, tensors of random values (integers in
/// [-100, 100], so a zero divisor can occur).
#[test]
fn every_kernel_here_runs_in_the_cpp_model() {
    use support::model::Model;
    let one = || vec![vec![]];
    fn i(t: &support::run::Args, k: usize) -> i32 {
        t.scalar(k) as i32
    }
    let mut problems = Vec::new();
    problems.extend(
        Model::new(
            "table_spellings",
            &table_spellings::program(),
            vec![vec![], vec![]],
        )
        .against_host(|t| {
            table_spellings(i(t, 0), i(t, 1), t.flag(2), t.flag(3), &mut t.out::<i32>(4))
        }),
    );
    problems.extend(
        Model::new("scalar_div", &scalar_div::program(), one())
            .against_host(|t| scalar_div(i(t, 0), i(t, 1), &mut t.out::<i32>(2))),
    );
    problems.extend(
        Model::new("folded_div", &folded_div::program(), one())
            .against_host(|t| folded_div(&mut t.out::<i32>(0))),
    );
    problems.extend(
        Model::new("tile_div_i32", &tile_div_i32::program(), one())
            .a2a3(false)
            .against_host(|t| {
                tile_div_i32(
                    &t.tensor(0),
                    &t.tensor(1),
                    &mut t.out::<i32>(2),
                    &mut t.out::<i32>(3),
                    &mut t.out::<i32>(4),
                )
            }),
    );
    problems.extend(
        Model::new("tile_div_f32", &tile_div_f32::program(), one()).against_host(|t| {
            tile_div_f32(
                &t.tensor(0),
                &t.tensor(1),
                &mut t.out::<f32>(2),
                &mut t.out::<f32>(3),
                &mut t.out::<f32>(4),
            )
        }),
    );
    problems.extend(
        Model::new("casts", &casts::program(), one()).against_host(|t| {
            casts(
                &t.tensor(0),
                &mut t.out::<f32>(1),
                &mut t.out::<i32>(2),
                &mut t.out::<i32>(3),
                &mut t.out::<i32>(4),
                &mut t.out::<i32>(5),
            )
        }),
    );
    problems.extend(
        Model::new("scalar_cpp", &scalar_cpp::program(), one()).against_host(|t| {
            scalar_cpp(t.scalar(0) as f32, i(t, 1), i(t, 2), &mut t.out::<i32>(3))
        }),
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
