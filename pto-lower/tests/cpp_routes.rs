//! Ops and casts a target has no instruction for but computes exactly by a route of ones it
//! has (pto-lower's `legalize` pass; the rules are `pto_ir::ops::dtypes::computes_in`,
//! `byte_op_wraps` and `cast_route`, which the verifier reads too): each kernel verifies on
//! both targets, its C++ uses the route, and it runs in the C++ model like the interpreter
//! at N = 32 and 37, bit for bit.
#![allow(missing_docs, clippy::unwrap_used)]

mod common;
#[path = "cpp/harness.rs"]
mod harness;

/// The kernel `body` (ops in a loop over 16-row tiles of `N`) with parameters `params`.
fn kernel(params: &str, consts: &str, body: &str) -> pto_ir::ProgramModule {
    kernel_with("", params, consts, body)
}

/// [`kernel`] with module attributes `attrs` (lines).
fn kernel_with(attrs: &str, params: &str, consts: &str, body: &str) -> pto_ir::ProgramModule {
    let text = format!(
        r#"program.module @k {{
  program.entry @k
{attrs}  func.func @k({params}) {{
    statement.op {{
      %c0 = 0 : int64
      %c16 = 16 : int64
{consts}
    }}
    statement.for %i = %c0 to %N step %c16 {{
      statement.op {{
{body}
      }}
      statement.yield
    }}
    statement.return
  }}
}}
"#
    );
    let m = pto_ir::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    pto_ir::verify(&m).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    m
}

/// A 1-byte integer kernel on `t` (`int8` or `uint8`): sums, products, a negation, a scalar
/// on the left, a maximum, a row sum subtracted as a broadcast, `abs`, compares and selects
/// (tile and scalar forms), a column sum. Every arithmetic step leaves the type's range on
/// the harness's inputs (-100 to 100).
fn byte_kernel(t: &str) -> pto_ir::ProgramModule {
    let tile = format!("tile<[?, 32], [16, 32], {t}>");
    let col = format!("tile<[?, 1], [16, 1], {t}>");
    let row = format!("tile<[1, 32], [1, 32], {t}>");
    let mask = "tile<[?, 32], [16, 32], bool>";
    let tensor = format!("tensor<[%N, 32], {t}>");
    let params = format!(
        "%x: {tensor} #in, %y: {tensor} #in, %o: {tensor} #out, %c: tensor<[1, 32], {t}> #out"
    );
    let consts = format!("      %k = 100 : {t}");
    let body = format!(
        "        %a = tile.load %x : ({tensor}) -> {tile} {{shape=[16, 32], offset=[%i, 0]}}
        %b = tile.load %y : ({tensor}) -> {tile} {{shape=[16, 32], offset=[%i, 0]}}
        %s = tile.add %a, %b : ({tile}, {tile}) -> {tile}
        %p = tile.mul %s, %b : ({tile}, {tile}) -> {tile}
        %n = tile.neg %p : ({tile}) -> {tile}
        %q = tile.sub %k, %a : ({t}, {tile}) -> {tile}
        %m = tile.max %n, %q : ({tile}, {tile}) -> {tile}
        %r = tile.row_sum %m : ({tile}) -> {col}
        %d = tile.sub %m, %r : ({tile}, {col}) -> {tile}
        %e = tile.abs %d : ({tile}) -> {tile}
        %f = tile.mul %e, %k : ({tile}, {t}) -> {tile}
        %lt = tile.lt %f, %a : ({tile}, {tile}) -> {mask}
        %h = tile.select %lt, %f, %a : ({mask}, {tile}, {tile}) -> {tile}
        %gt = tile.gt %k, %h : ({t}, {tile}) -> {mask}
        %v = tile.select %gt, %h, %k : ({mask}, {tile}, {t}) -> {tile}
        %g = tile.col_sum %v : ({tile}) -> {row}
        tile.store %v, %o : ({tile}, {tensor}) -> () {{offset=[%i, 0]}}
        tile.store %g, %c : ({row}, tensor<[1, 32], {t}>) -> () {{offset=[0, 0]}}"
    );
    kernel(&params, &consts, &body)
}

/// A2A3's arithmetic, broadcasts, reductions, compares and selects take no 1-byte integers,
/// and A5's `TMUL` none either, but `int8 -> fp16 -> fp32` is exact, so is every step of the op in `fp32`
/// (at most 2^16 in magnitude), and the wrap `x - 256 * floor((x + 128) / 256)`: the kernel
/// that was refused on A2A3 compiles there and wraps like the semantics.
#[test]
fn byte_arithmetic_computes_exactly_in_fp32_and_wraps() {
    for t in ["int8", "uint8"] {
        let m = byte_kernel(t);
        for target in ["A2A3", "A5"] {
            let c = harness::cpp_for(&m, target).unwrap();
            assert!(c.contains("CAST_FLOOR"), "{t} {target}: {c}");
        }
        harness::runs_like_the_interpreter(&m, &format!("{t}_arith"));
    }
}

/// Casts whose pair neither target's `TCVT` has (or only A5's), through a type that holds
/// every value of the source: `int8 -> fp16 -> fp32`, `int16 -> fp32 -> int32`, `bf16 ->
/// fp32 -> fp16` (A5 has that pair), and an `fp16` rounded to an integral `fp16` (no `TCVT
/// fp16 -> fp16` on either target) through `fp32` and back.
#[test]
fn casts_without_a_tcvt_take_an_exact_route() {
    let t8 = "tile<[?, 32], [16, 32], int8>";
    let f32t = "tile<[?, 32], [16, 32], fp32>";
    let t16 = |d: &str| format!("tile<[?, 16], [16, 16], {d}>");
    let n32 = |d: &str| format!("tensor<[%N, 32], {d}>");
    let n16 = |d: &str| format!("tensor<[%N, 16], {d}>");
    let params = format!(
        "%x8: {} #in, %x16: {} #in, %h: {} #in, %bh: {} #in, %o8: {} #out, %o16: {} #out, %ofl: {} #out, %oce: {} #out, %obh: {} #out",
        n32("int8"),
        n16("int16"),
        n16("fp16"),
        n16("bf16"),
        n32("fp32"),
        n16("int32"),
        n16("fp16"),
        n16("fp16"),
        n16("fp16"),
    );
    let (i16t, i32t, h, b) = (t16("int16"), t16("int32"), t16("fp16"), t16("bf16"));
    let load = |v: &str, src: &str, tensor: &str, tile: &str, cols: u32| {
        format!(
            "        %{v} = tile.load %{src} : ({tensor}) -> {tile} {{shape=[16, {cols}], offset=[%i, 0]}}\n"
        )
    };
    let cast = |v: &str, src: &str, from: &str, to: &str, attrs: &str| {
        format!("        %{v} = tile.cast %{src} : ({from}) -> {to} {{{attrs}}}\n")
    };
    let store = |v: &str, dst: &str, tile: &str, tensor: &str| {
        format!("        tile.store %{v}, %{dst} : ({tile}, {tensor}) -> () {{offset=[%i, 0]}}\n")
    };
    let body = [
        load("a", "x8", &n32("int8"), t8, 32),
        cast("a2", "a", t8, f32t, "dtype=fp32"),
        store("a2", "o8", f32t, &n32("fp32")),
        load("b", "x16", &n16("int16"), &i16t, 16),
        cast("b2", "b", &i16t, &i32t, "dtype=int32"),
        store("b2", "o16", &i32t, &n16("int32")),
        load("c", "h", &n16("fp16"), &h, 16),
        cast("c2", "c", &h, &h, "dtype=fp16, round=floor"),
        store("c2", "ofl", &h, &n16("fp16")),
        cast("c3", "c", &h, &h, "dtype=fp16, round=round"),
        store("c3", "oce", &h, &n16("fp16")),
        load("d", "bh", &n16("bf16"), &b, 16),
        cast("d2", "d", &b, &h, "dtype=fp16"),
        store("d2", "obh", &h, &n16("fp16")),
    ]
    .concat();
    let m = kernel(&params, "", body.trim_end());
    for target in ["A2A3", "A5"] {
        let c = harness::cpp_for(&m, target).unwrap();
        assert!(c.contains("CAST_FLOOR"), "{target}: {c}");
    }
    harness::runs_like_the_interpreter(&m, "cast_routes");
}

/// A2A3 compares only int32, fp16 and fp32 (`TCMP`, `TCMPS`), and selects no bf16 scalar on
/// A5 (`TSELS`); `relu` takes no int16 or bf16. A compare, select or `relu` only compares or
/// picks values, so it computes in `fp32`, which holds every int16 and bf16 value: tile and
/// scalar forms, on both targets.
#[test]
fn compares_and_selects_compute_in_a_type_that_holds_the_values() {
    for (t, k) in [("int16", "7"), ("bf16", "0.5")] {
        let tile = format!("tile<[?, 16], [16, 16], {t}>");
        let mask = "tile<[?, 16], [16, 16], bool>";
        let tensor = format!("tensor<[%N, 16], {t}>");
        let params = format!("%x: {tensor} #in, %y: {tensor} #in, %o: {tensor} #out");
        let body = format!(
            "        %a = tile.load %x : ({tensor}) -> {tile} {{shape=[16, 16], offset=[%i, 0]}}
        %b = tile.load %y : ({tensor}) -> {tile} {{shape=[16, 16], offset=[%i, 0]}}
        %lt = tile.lt %a, %b : ({tile}, {tile}) -> {mask}
        %s = tile.select %lt, %a, %b : ({mask}, {tile}, {tile}) -> {tile}
        %ge = tile.ge %k, %s : ({t}, {tile}) -> {mask}
        %v = tile.select %ge, %s, %k : ({mask}, {tile}, {t}) -> {tile}
        %r = tile.relu %v : ({tile}) -> {tile}
        tile.store %r, %o : ({tile}, {tensor}) -> () {{offset=[%i, 0]}}"
        );
        let m = kernel(&params, &format!("      %k = {k} : {t}"), &body);
        let c = harness::cpp_for(&m, "A2A3").unwrap();
        assert!(c.contains("TCMP"), "{t}: {c}");
        harness::runs_like_the_interpreter(&m, &format!("{t}_picks"));
    }
}

/// Integer `/`, `%` and `floor_mod` of at most 16 bits: A2A3's `TDIV` / `TFMOD` / `TREM` take
/// no 8- or 16-bit integers (A5's `TDIV` no 1-byte ones, and its integer `TREM` truncates),
/// but `f32` computes them exactly (`trunc` of the quotient, the remainder, a zero divisor
/// selected away: the harness's inputs hold zeros). Tile, scalar (both sides) and column
/// (both sides) forms, int8, uint8 and int16, both targets.
#[test]
fn small_integer_division_computes_exactly_in_fp32() {
    for (t, cols) in [("int8", 32), ("uint8", 32), ("int16", 16)] {
        let tile = format!("tile<[?, {cols}], [16, {cols}], {t}>");
        let col = format!("tile<[?, 1], [16, 1], {t}>");
        let tensor = format!("tensor<[%N, {cols}], {t}>");
        let params = format!("%x: {tensor} #in, %y: {tensor} #in, %o: {tensor} #out");
        let binary = |v: &str, op: &str, a: &str, b: &str, ta: &str, tb: &str| {
            format!("        %{v} = tile.{op} %{a}, %{b} : ({ta}, {tb}) -> {tile}\n")
        };
        let body = [
            format!("        %a = tile.load %x : ({tensor}) -> {tile} {{shape=[16, {cols}], offset=[%i, 0]}}\n"),
            format!("        %b = tile.load %y : ({tensor}) -> {tile} {{shape=[16, {cols}], offset=[%i, 0]}}\n"),
            format!("        %c = tile.row_max %b : ({tile}) -> {col}\n"),
            binary("q", "div", "a", "b", &tile, &tile),
            binary("r", "rem", "a", "b", &tile, &tile),
            binary("f", "floormod", "a", "b", &tile, &tile),
            binary("qs", "div", "a", "k", &tile, t),
            binary("sq", "floormod", "k", "b", t, &tile),
            binary("qc", "div", "a", "c", &tile, &col),
            binary("cq", "div", "c", "a", &col, &tile),
            binary("s1", "add", "q", "r", &tile, &tile),
            binary("s2", "add", "s1", "f", &tile, &tile),
            binary("s3", "add", "s2", "qs", &tile, &tile),
            binary("s4", "add", "s3", "sq", &tile, &tile),
            binary("s5", "add", "s4", "qc", &tile, &tile),
            binary("s6", "add", "s5", "cq", &tile, &tile),
            format!("        tile.store %s6, %o : ({tile}, {tensor}) -> () {{offset=[%i, 0]}}"),
        ]
        .concat();
        let m = kernel(&params, &format!("      %k = 7 : {t}"), &body);
        let c = harness::cpp_for(&m, "A2A3").unwrap();
        assert!(c.contains("CAST_TRUNC"), "{t}: {c}");
        harness::runs_like_the_interpreter(&m, &format!("{t}_division"));
    }
}

/// A2A3's arithmetic takes no unsigned 16- or 32-bit integers (and converts none), but `+ -
/// *`, negation and sums keep the same bits on the signed type of the width, which it takes:
/// the operands are reinterpreted (`TRESHAPE`), the signed instructions run, and the result
/// is reinterpreted back. A cast between two integer types of one width is that
/// reinterpretation too (Rust's `as`), on both targets.
#[test]
fn unsigned_arithmetic_runs_on_the_signed_twin() {
    for (t, s) in [("uint16", "int16"), ("uint32", "int32")] {
        let tile = format!("tile<[?, 16], [16, 16], {t}>");
        let twin = format!("tile<[?, 16], [16, 16], {s}>");
        let col = format!("tile<[?, 1], [16, 1], {t}>");
        let tensor = format!("tensor<[%N, 16], {t}>");
        let stensor = format!("tensor<[%N, 16], {s}>");
        let params =
            format!("%x: {tensor} #in, %y: {tensor} #in, %o: {tensor} #out, %so: {stensor} #out");
        let body = format!(
            "        %a = tile.load %x : ({tensor}) -> {tile} {{shape=[16, 16], offset=[%i, 0]}}
        %b = tile.load %y : ({tensor}) -> {tile} {{shape=[16, 16], offset=[%i, 0]}}
        %s = tile.add %a, %b : ({tile}, {tile}) -> {tile}
        %p = tile.mul %s, %b : ({tile}, {tile}) -> {tile}
        %n = tile.neg %p : ({tile}) -> {tile}
        %q = tile.sub %k, %a : ({t}, {tile}) -> {tile}
        %m = tile.add %n, %q : ({tile}, {tile}) -> {tile}
        %r = tile.row_sum %m : ({tile}) -> {col}
        %d = tile.sub %m, %r : ({tile}, {col}) -> {tile}
        %c = tile.cast %d : ({tile}) -> {twin} {{dtype={s}}}
        %e = tile.cast %c : ({twin}) -> {tile} {{dtype={t}}}
        tile.store %e, %o : ({tile}, {tensor}) -> () {{offset=[%i, 0]}}
        tile.store %c, %so : ({twin}, {stensor}) -> () {{offset=[%i, 0]}}"
        );
        let m = kernel(&params, &format!("      %k = 7 : {t}"), &body);
        for target in ["A2A3", "A5"] {
            let c = harness::cpp_for(&m, target).unwrap();
            assert!(c.contains("TRESHAPE"), "{t} {target}: {c}");
            assert!(!c.contains("TCVT"), "{t} {target}: {c}");
        }
        harness::runs_like_the_interpreter(&m, &format!("{t}_twin"));
    }
}

/// Operand forms no instruction takes (`k % a`, `a % col`, `col.floor_mod(a)`, `k.pow(a)`, `k
/// << a`): the small operand is expanded to a tile first (`TEXPANDS`, `TROWEXPAND`), then the
/// tile-tile instruction runs. They were lowering errors ("has no PTO-ISA form").
#[test]
fn forms_without_an_instruction_expand_their_small_operand() {
    let tile = "tile<[?, 32], [16, 32], fp32>";
    let col = "tile<[?, 1], [16, 1], fp32>";
    let tensor = "tensor<[%N, 32], fp32>";
    let itile = "tile<[?, 32], [16, 32], int32>";
    let itensor = "tensor<[%N, 32], int32>";
    let params =
        format!("%x: {tensor} #in, %y: {itensor} #in, %o: {tensor} #out, %io: {itensor} #out");
    let body = format!(
        "        %a = tile.load %x : ({tensor}) -> {tile} {{shape=[16, 32], offset=[%i, 0]}}
        %c = tile.row_max %a : ({tile}) -> {col}
        %r1 = tile.rem %k, %a : (fp32, {tile}) -> {tile}
        %r2 = tile.rem %a, %c : ({tile}, {col}) -> {tile}
        %r3 = tile.floormod %c, %a : ({col}, {tile}) -> {tile}
        %r4 = tile.pow %k, %a : (fp32, {tile}) -> {tile}
        %s1 = tile.add %r1, %r2 : ({tile}, {tile}) -> {tile}
        %s2 = tile.add %s1, %r3 : ({tile}, {tile}) -> {tile}
        %s3 = tile.add %s2, %r4 : ({tile}, {tile}) -> {tile}
        tile.store %s3, %o : ({tile}, {tensor}) -> () {{offset=[%i, 0]}}
        %b = tile.load %y : ({itensor}) -> {itile} {{shape=[16, 32], offset=[%i, 0]}}
        %sh = tile.and %b, %seven : ({itile}, int32) -> {itile}
        %l = tile.shl %three, %sh : (int32, {itile}) -> {itile}
        tile.store %l, %io : ({itile}, {itensor}) -> () {{offset=[%i, 0]}}"
    );
    let consts = "      %k = 1.5 : fp32\n      %seven = 7 : int32\n      %three = 3 : int32";
    let m = kernel(&params, consts, &body);
    for target in ["A2A3", "A5"] {
        let c = harness::cpp_for(&m, target).unwrap();
        assert!(
            c.contains("TEXPANDS") && c.contains("TROWEXPAND("),
            "{target}: {c}"
        );
    }
    harness::runs_like_the_interpreter(&m, "expanded_forms");
}

/// A2A3's `TABS` takes floats only; an int16 or int32 `abs` there is `max(x, -x)` (`TMULS` by
/// -1 and `TMAX`, which take them), on both targets alike.
#[test]
fn integer_abs_is_the_maximum_of_x_and_its_negation() {
    for t in ["int16", "int32"] {
        let tile = format!("tile<[?, 16], [16, 16], {t}>");
        let tensor = format!("tensor<[%N, 16], {t}>");
        let params = format!("%x: {tensor} #in, %o: {tensor} #out");
        let body = format!(
            "        %a = tile.load %x : ({tensor}) -> {tile} {{shape=[16, 16], offset=[%i, 0]}}
        %b = tile.abs %a : ({tile}) -> {tile}
        tile.store %b, %o : ({tile}, {tensor}) -> () {{offset=[%i, 0]}}"
        );
        let m = kernel(&params, "", &body);
        let c = harness::cpp_for(&m, "A2A3").unwrap();
        assert!(c.contains("TMAX(") && !c.contains("TABS("), "{t}: {c}");
        harness::runs_like_the_interpreter(&m, &format!("{t}_abs"));
    }
}

/// A2A3's `TSHLS` / `TSHRS` take 2- and 4-byte integers, its `TSHL` / `TSHR` every width: an
/// int8 or uint8 shift by a scalar fills the scalar into a tile (`TEXPANDS`) and shifts
/// tile by tile.
#[test]
fn byte_shifts_by_a_scalar_fill_a_tile_on_a2a3() {
    for t in ["int8", "uint8"] {
        let tile = format!("tile<[?, 32], [16, 32], {t}>");
        let tensor = format!("tensor<[%N, 32], {t}>");
        let params = format!("%x: {tensor} #in, %o: {tensor} #out");
        let body = format!(
            "        %a = tile.load %x : ({tensor}) -> {tile} {{shape=[16, 32], offset=[%i, 0]}}
        %b = tile.shl %a, %k : ({tile}, {t}) -> {tile}
        %c = tile.shr %b, %one : ({tile}, {t}) -> {tile}
        tile.store %c, %o : ({tile}, {tensor}) -> () {{offset=[%i, 0]}}"
        );
        let m = kernel(
            &params,
            &format!("      %k = 3 : {t}\n      %one = 1 : {t}"),
            &body,
        );
        let c = harness::cpp_for(&m, "A2A3").unwrap();
        assert!(c.contains("TSHL(") && !c.contains("TSHLS("), "{t}: {c}");
        harness::runs_like_the_interpreter(&m, &format!("{t}_shifts"));
    }
}

/// A2A3's maxima, minima and `TCMP` take no unsigned 16- or 32-bit integers: with every
/// operand's top bit flipped (`TXORS`, which takes them) the unsigned order is the signed
/// one, so they run on int16 / int32 and a picked value is flipped back. A uint16 compare of
/// two tiles takes one more step (A2A3's `TCMP` takes no int16 either): the flipped bits
/// read as int16, converted to fp32 and compared there. The inputs are scaled so that the
/// top bit is set in about half of the elements. `min(b, a)` takes operands already flipped
/// and converted for `max(a, b)` (one conversion per operand per statement), and its
/// result is still flipped back.
#[test]
fn unsigned_order_runs_on_the_signed_twin_with_the_top_bit_flipped() {
    for (t, big) in [("uint16", "40000"), ("uint32", "3000000000")] {
        let tile = format!("tile<[?, 16], [16, 16], {t}>");
        let col = format!("tile<[?, 1], [16, 1], {t}>");
        let row = format!("tile<[1, 16], [1, 16], {t}>");
        let mask = "tile<[?, 16], [16, 16], bool>";
        let tensor = format!("tensor<[%N, 16], {t}>");
        let params = format!(
            "%x: {tensor} #in, %y: {tensor} #in, %o: {tensor} #out, %c: tensor<[1, 16], {t}> #out"
        );
        let mut body = format!(
            "        %a0 = tile.load %x : ({tensor}) -> {tile} {{shape=[16, 16], offset=[%i, 0]}}
        %b0 = tile.load %y : ({tensor}) -> {tile} {{shape=[16, 16], offset=[%i, 0]}}
        %a = tile.mul %a0, %scale : ({tile}, {t}) -> {tile}
        %b = tile.mul %b0, %scale : ({tile}, {t}) -> {tile}
        %mx = tile.max %a, %b : ({tile}, {tile}) -> {tile}
        %mn = tile.min %mx, %big : ({tile}, {t}) -> {tile}
        %rm = tile.row_max %mn : ({tile}) -> {col}
        %d = tile.sub %rm, %mn : ({col}, {tile}) -> {tile}
        %gt = tile.gt %big, %d : ({t}, {tile}) -> {mask}
        %s = tile.select %gt, %d, %a : ({mask}, {tile}, {tile}) -> {tile}
"
        );
        body.push_str(&format!(
            "        %lt = tile.lt %a, %s : ({tile}, {tile}) -> {mask}
        %v = tile.select %lt, %a, %b : ({mask}, {tile}, {tile}) -> {tile}
        %w = tile.min %b, %a : ({tile}, {tile}) -> {tile}
        %vw = tile.max %v, %w : ({tile}, {tile}) -> {tile}
        %cm = tile.col_min %v : ({tile}) -> {row}
        tile.store %vw, %o : ({tile}, {tensor}) -> () {{offset=[%i, 0]}}
        tile.store %cm, %c : ({row}, tensor<[1, 16], {t}>) -> () {{offset=[0, 0]}}"
        ));
        let consts = format!("      %scale = 700 : {t}\n      %big = {big} : {t}");
        let m = kernel(&params, &consts, &body);
        let c = harness::cpp_for(&m, "A2A3").unwrap();
        assert!(c.contains("TXORS("), "{t}: {c}");
        if t == "uint16" {
            assert!(c.contains("TCVT("), "{t}: {c}");
        }
        harness::runs_like_the_interpreter(&m, &format!("{t}_order"));
    }
}

/// A5's `TPARTMUL` takes no 64-bit integers, which a product of operands whose valid regions
/// may differ needs (the product where both are valid, the valid one elsewhere): it takes
/// `TMUL` and `TSUB` over the common region and `TPARTADD` (`ops::dtypes::partial_forms`).
/// An edge tile times a full one, into a tile of its own (both operands are read later) and
/// in place, in both orders (the destination is each operand in turn), int64 and uint64, row
/// tiles and column tiles (read through row-major views); at the ragged N = 37 the regions
/// differ in the last tile.
#[test]
fn a5_partial_products_of_64_bit_integers_take_a_route() {
    for (t, cols) in [("int64", 16), ("uint64", 16), ("int64", 1), ("uint64", 1)] {
        let edge = format!("tile<[?, {cols}], [16, {cols}], {t}>");
        let full = format!("tile<[16, {cols}], [16, {cols}], {t}>");
        let tensor = format!("tensor<[%N, {cols}], {t}>");
        let params = format!("%x: {tensor} #in, %y: {tensor} #in, %o: {tensor} #out");
        let load = format!("({tensor}) -> {edge} {{shape=[16, {cols}], offset=[%i, 0]}}");
        let body = format!(
            "        %a = tile.load %x : {load}
        %b = tile.load %y : {load}
        %f = tile.full %k : ({t}) -> {full} {{shape=[16, {cols}], dtype={t}}}
        %p = tile.mul %a, %f : ({edge}, {full}) -> {full}
        %q = tile.mul %p, %b : ({full}, {edge}) -> {full}
        %r = tile.mul %b, %q : ({edge}, {full}) -> {full}
        %s = tile.add %r, %a : ({full}, {edge}) -> {full}
        %u = tile.add %s, %f : ({full}, {full}) -> {full}
        tile.store %u, %o : ({full}, {tensor}) -> () {{offset=[%i, 0]}}"
        );
        let m = kernel_with(
            "  attr arch = \"A5\"\n",
            &params,
            &format!("      %k = 3 : {t}"),
            &body,
        );
        let c = harness::cpp_for(&m, "A5").unwrap();
        assert!(
            c.contains("TPARTADD(") && c.contains("TMOV(in_a") && !c.contains("TPARTMUL("),
            "{t} {cols}: {c}"
        );
        let name = format!("{t}_{cols}_partial_mul");
        harness::runs_like_the_interpreter_on(&m, &name, &["A5"]);
    }
}
