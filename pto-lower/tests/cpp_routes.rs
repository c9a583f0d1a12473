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
    let text = format!(
        r#"program.module @k {{
  program.entry @k
  func.func @k({params}) {{
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
/// on the left, a maximum, a row sum subtracted as a broadcast, `abs`, a column sum. Every
/// step but the maximum leaves the type's range on the harness's inputs (-100 to 100).
fn byte_kernel(t: &str) -> pto_ir::ProgramModule {
    let tile = format!("tile<[?, 32], [16, 32], {t}>");
    let col = format!("tile<[?, 1], [16, 1], {t}>");
    let row = format!("tile<[1, 32], [1, 32], {t}>");
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
        %g = tile.col_sum %f : ({tile}) -> {row}
        tile.store %f, %o : ({tile}, {tensor}) -> () {{offset=[%i, 0]}}
        tile.store %g, %c : ({row}, tensor<[1, 32], {t}>) -> () {{offset=[0, 0]}}"
    );
    kernel(&params, &consts, &body)
}

/// A2A3's arithmetic, broadcasts and reductions take no 1-byte integers, and A5's `TMUL`
/// none either, but `int8 -> fp16 -> fp32` is exact, so is every step of the op in `fp32`
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
