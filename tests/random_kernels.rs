//! Differential conformance, issue 12 point 6 (b) and (c): random well-typed kernels with
//! nested `for` loops (a symbolic bound from a scalar parameter and constant bounds),
//! `while` loops with a counter condition and a data-dependent `break` (an element read of
//! the input), `if` / `else` with a merged tile result, tiles carried through loops, loads
//! (plain and `load_or` with a pad) and stores of tensors whose sizes are not tile
//! multiples, row / column reductions (and `int32` arg-reductions) and their broadcasts
//! (fused, or by `row_expand` / `col_expand`), compare masks and `select`, rows moved
//! between tiles by `extract` / `insert`, conversions with a named rounding, conversions to
//! a second dtype and back (`cast` / `cast_round`: int32 -> fp32, fp32 -> int32,
//! int16 -> int32, int8 -> fp16, fp16 / bf16 -> fp32, and back), and matmul K loops
//! (`tile.matmul` then a carried `tile.matmul_acc`, or a zero accumulator) over ragged
//! M / N / K for fp32, fp16 and bf16 (an fp32 accumulator converted back) and int8 (an
//! int32 accumulator converted back through fp32 and fp16, which saturates: no target's
//! TCVT converts int32 to int8). int32 and int16 kernels have no matmul
//! (the IR's matmul takes int8, not int32 / int16, inputs).
//!
//! Two kinds of family. The small families (`int32`, `fp32` on 4 x 8 tiles; `int16`, `fp16`
//! on 4 x 16; `int8` on 4 x 32, an int8 row being 32 bytes) are fast; their tiles are
//! below the 16-row fractals a matmul operand needs (the verifier's fractal rule), so their
//! matmul node is a cast. The matmul families (`fp32`, `fp16`, `bf16` on 16 x 16 tiles,
//! `int8` on 16 x 32: M a multiple of 16, K and N of 16, 32 for int8) generate the whole
//! language with matmul likelier, over tensors up to three tiles and a bit in each
//! direction, and fail if their kernels run fewer matmul ops than kernels.
//!
//! Each kernel is IR text; it must parse, verify and re-parse structurally equal after
//! printing (c). It then runs two ways: through the reference interpreter, and through the
//! lowered ISA program ([`pto_lower::lower_kernel`], the program the Rust emitter prints as
//! the host code) executed here instruction by instruction with the `pto::isa` functions
//! the emitted host code calls. (Compiling emitted Rust per kernel would cost seconds per
//! case; this executor runs a kernel in microseconds, so proptest can shrink.) The output
//! tensors must agree bit for bit for integers and floats alike (0 ulps; NaNs equal).
//!
//! 5 small families x 300 kernels and 4 matmul families x 64 = 1,756 kernels per run; the
//! seeds in `random_kernels.proptest-regressions` are replayed first by every family.
//! `PTO_FUZZ_CASES=20000 cargo test --test random_kernels --release` runs a longer campaign
//! (that many kernels per family).
#[path = "random_kernels/exec.rs"]
mod exec;

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use pto::ir::DataType;
use pto::ir::ops::dtypes::computes_in;
use pto::ir::ops::{OPS, OpClass, OpInfo, Opcode};
use pto::ir::verify::target::Target;
use pto_lower::interp::{HostValue, run};

/// The tile rows of the families without matmul (small tiles keep them fast); their
/// columns are one 32-byte row (8 for 32-bit, 16 for 16-bit, 32 for 8-bit dtypes).
const SMALL_R: usize = 4;

/// The tile rows of the matmul families: a matmul's M is 1 or a multiple of 16 (the
/// verifier's fractal rule, `pto-ir/src/verify/fractal.rs`); their columns (K and N) are 16,
/// 32 for `int8`.
const MATMUL_R: usize = 16;

/// One generated statement; each defines one new tile of the family's shape (`R x C`).
#[derive(Clone, Debug)]
enum Node {
    /// An elementwise op (`op` indexes the dtype's candidates) on earlier tiles; `scalar`
    /// takes the constant as second operand.
    Op {
        op: usize,
        lhs: usize,
        rhs: usize,
        scalar: bool,
    },
    /// A load of `x` or `y` at the current tile position.
    Load { y: bool },
    /// A store of a tile to the output at the current tile position (defines no tile).
    Store { src: usize },
    /// A tile filled with a constant.
    Full,
    /// A row (`row`) or column reduction (`kind`: sum / max / min, and for `int32` the row
    /// arg-max / arg-min) of a tile, broadcast back onto another tile with a binary op: by
    /// the fused broadcast form, or (`expand`) by `row_expand` / `col_expand` first.
    Reduce {
        row: bool,
        kind: usize,
        src: usize,
        onto: usize,
        op: usize,
        expand: bool,
    },
    /// A mask from a comparison (`cmp` picks `eq` .. `ge`) of two tiles or of a tile and
    /// the constant, then `mask.select(a, b)` with `b` a tile or the constant.
    Select {
        cmp: usize,
        lhs: usize,
        rhs: usize,
        a: usize,
        b: usize,
        scalar_rhs: bool,
        scalar_alt: bool,
    },
    /// `load_or` of `x` or `y`: the part of the window outside the tensor is the constant.
    LoadOr { y: bool },
    /// A conversion to the tile's own dtype with a named rounding (`cast_round`, `TCVT`:
    /// for floats, rounding to an integral value).
    Round { src: usize, mode: usize },
    /// Row `i` of a tile extracted (`extract::<1, C>([i, 0])`) and inserted into another
    /// tile at row `j` (`insert`); `i` and `j` modulo the tile rows.
    Rows {
        src: usize,
        i: usize,
        onto: usize,
        j: usize,
    },
    /// A conversion to the kernel's other dtype ([`alt`]) and back: `mode` 0 is the plain
    /// `cast` (`t.cast::<U>()`), 1..=5 a named rounding (`cast_round::<U>(mode)`); `back`
    /// likewise for the conversion back.
    Cast {
        src: usize,
        mode: usize,
        back: usize,
    },
    /// `x[row, :] @ w[:, col]` by a K loop over `R x C` / `C x C` tiles of `x` and the
    /// `N x N` tensor `w` (ragged in M, N and K): `tile.matmul` of the first K tile then
    /// `tile.matmul_acc` carried through the loop, or (`zero`) a zero accumulator and
    /// `matmul_acc` from the first; an accumulator wider than the dtype (`fp16` inputs
    /// accumulate in `fp32`, `int8` in `int32`) is converted back; then combined with
    /// `onto` by the broadcast op `op`. The IR's matmul takes fp16 / bf16 / fp32 / int8: for
    /// `int32` / `int16` kernels, and on the small families' 4-row tiles, this node is a
    /// [`Node::Cast`].
    Matmul { onto: usize, op: usize, zero: bool },
    /// `if iv < k` with a tile result yielded by each branch.
    If {
        k: usize,
        then: Vec<Node>,
        els: Vec<Node>,
    },
    /// A column-tile loop carrying a tile (initialised from `init`): `bound` 0 is the
    /// symbolic column-tile count, otherwise a constant bound.
    /// With `scalar`, it also carries a scalar of the element type.
    For {
        init: usize,
        bound: usize,
        scalar: bool,
        body: Vec<Node>,
    },
    /// A `while` loop carrying a tile (initialised from `init`) and a counter `w`:
    /// `while w < limit`, and after the body `break` when the counter passes the element
    /// `x[row, 0]` (a data-dependent exit, with the carried values of that iteration).
    While {
        init: usize,
        limit: usize,
        body: Vec<Node>,
    },
}

/// A statement; `matmul` weighs [`Node::Matmul`] against the other leaves (17 in all).
fn node(matmul: u32) -> impl Strategy<Value = Node> {
    let leaf = prop_oneof![
        4 => (0..64usize, 0..64usize, 0..64usize, any::<bool>())
            .prop_map(|(op, lhs, rhs, scalar)| Node::Op { op, lhs, rhs, scalar }),
        2 => any::<bool>().prop_map(|y| Node::Load { y }),
        1 => (0..64usize).prop_map(|src| Node::Store { src }),
        1 => Just(Node::Full),
        2 => (any::<bool>(), 0..5usize, 0..64usize, 0..64usize, 0..64usize, any::<bool>())
            .prop_map(|(row, kind, src, onto, op, expand)| Node::Reduce { row, kind, src, onto, op, expand }),
        1 => (0..6usize, 0..64usize, 0..64usize, 0..64usize, 0..64usize, any::<bool>(), any::<bool>())
            .prop_map(|(cmp, lhs, rhs, a, b, scalar_rhs, scalar_alt)| Node::Select { cmp, lhs, rhs, a, b, scalar_rhs, scalar_alt }),
        1 => any::<bool>().prop_map(|y| Node::LoadOr { y }),
        1 => (0..64usize, 0..5usize).prop_map(|(src, mode)| Node::Round { src, mode }),
        1 => (0..64usize, 0..16usize, 0..64usize, 0..16usize)
            .prop_map(|(src, i, onto, j)| Node::Rows { src, i, onto, j }),
        1 => (0..64usize, 0..6usize, 0..6usize)
            .prop_map(|(src, mode, back)| Node::Cast { src, mode, back }),
        matmul => (0..64usize, 0..64usize, any::<bool>())
            .prop_map(|(onto, op, zero)| Node::Matmul { onto, op, zero }),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (
                0..4usize,
                prop::collection::vec(inner.clone(), 0..4),
                prop::collection::vec(inner.clone(), 0..4)
            )
                .prop_map(|(k, then, els)| Node::If { k, then, els }),
            (
                0..64usize,
                0..4usize,
                any::<bool>(),
                prop::collection::vec(inner.clone(), 1..5)
            )
                .prop_map(|(init, bound, scalar, body)| Node::For {
                    init,
                    bound,
                    scalar,
                    body
                }),
            (0..64usize, 0..4usize, prop::collection::vec(inner, 1..4))
                .prop_map(|(init, limit, body)| Node::While { init, limit, body }),
        ]
    })
}

/// A whole kernel: the tensor size and the statements of the row-tile loop's body.
#[derive(Clone, Debug)]
struct Kernel {
    m: usize,
    n: usize,
    body: Vec<Node>,
}

/// A kernel on `r`-row tiles over an `m x n` tensor, `m` up to `3 r + 1` and `n` up to
/// `max_n` (ragged: most sizes are not tile multiples), `matmul` the weight of
/// [`Node::Matmul`].
fn kernel(r: usize, max_n: usize, matmul: u32) -> impl Strategy<Value = Kernel> {
    (
        1..=3 * r + 1,
        1..=max_n,
        prop::collection::vec(node(matmul), 1..6),
    )
        .prop_map(|(m, n, body)| Kernel { m, n, body })
}

/// The second dtype of a kernel over `d`: conversions go there and back (a pair each
/// target's `TCVT` has both ways), and an `fp16` matmul accumulates in it. `int8` goes
/// through `fp16` (exact): no target converts int32 to int8 in one step.
fn alt(d: DataType) -> DataType {
    match d {
        DataType::Int32 | DataType::Fp16 | DataType::Bf16 => DataType::Fp32,
        DataType::Fp32 | DataType::Int16 => DataType::Int32,
        DataType::Int8 => DataType::Fp16,
        other => other,
    }
}

/// The target a kernel over `d` is built for: A2A3's TCMP / TSEL take neither int8 nor
/// int16 elements, nor does its TCMP bf16, and its arithmetic no int8 or bf16; A5's do.
fn target_of(d: DataType) -> Target {
    if matches!(d, DataType::Int8 | DataType::Int16 | DataType::Bf16) {
        Target::A5
    } else {
        Target::A2A3
    }
}

/// The dtypes a value of `from` passes through to reach `to` by conversions `t`'s `TCVT`
/// has (`to` last), the fewest steps (at most three) first, through fp32 and fp16 only (the
/// executor's conversion slots, `exec::Slot::F32` / `F16`).
fn conversions(t: Target, from: DataType, to: DataType) -> Vec<DataType> {
    let mut paths = vec![vec![from]];
    for _ in 0..3 {
        let mut next = Vec::new();
        for p in &paths {
            let last = p[p.len() - 1];
            for d in [to, DataType::Fp32, DataType::Fp16] {
                if t.converts(last, d) && !p.contains(&d) {
                    let mut q = p.clone();
                    q.push(d);
                    if d == to {
                        return q[1..].to_vec();
                    }
                    next.push(q);
                }
            }
        }
        paths = next;
    }
    panic!("{} converts {from} to {to} in no three steps", t.name)
}

/// The `tile.cast` attributes converting to `to`: mode 0 plain, else a named rounding.
fn cast_attrs(to: DataType, mode: usize) -> String {
    match mode % 6 {
        0 => format!("{{dtype={to}}}"),
        m => format!(
            "{{dtype={to}, round={}}}",
            ["rint", "round", "floor", "ceil", "trunc"][m - 1]
        ),
    }
}

fn candidates(d: DataType) -> Vec<&'static OpInfo> {
    OPS.iter()
        .filter(|r| {
            r.dialect == "tile"
                && r.opcode.accepts(d)
                // Legal on the kernel's target in every operand form (the verifier's
                // element-type rules: A2A3's arithmetic takes no int8, its TDIV no
                // integers ...); conformance.rs checks the others' semantics.
                && target_of(d).takes(r.opcode, d)
                // Ops the `legalize` pass computes in f32 (16-bit float remainders, 16-bit
                // ops the target takes only in f32): this executor (exec.rs) runs the
                // kernel's element type; `tests/ops.rs` and pto-lower's `cpp_defects`
                // (`sixteen_bit_remainders_compute_in_fp32`,
                // `bf16_arithmetic_computes_in_fp32_where_the_target_lacks_it`) cover them.
                && computes_in(target_of(d), r.opcode, d, r.isa) == d
                && matches!(
                    r.class,
                    OpClass::TileBinary
                        | OpClass::TileBitwise
                        | OpClass::TileUnary
                        | OpClass::TileUnaryFloat
                        | OpClass::TileNot
                )
        })
        .collect()
}

/// Writes IR text for a kernel.
struct Gen {
    d: DataType,
    /// Tile rows.
    r: usize,
    ops: Vec<&'static OpInfo>,
    text: String,
    next: usize,
    /// Tile columns.
    c: usize,
    /// Column-tile count (`ceil(n / c)`).
    col_tiles: usize,
}

impl Gen {
    fn fresh(&mut self, stem: &str) -> String {
        self.next += 1;
        format!("%{stem}_{}", self.next)
    }

    fn full(&self) -> String {
        format!("tile<[?, ?], [{}, {}], {}>", self.r, self.c, self.d.name())
    }

    /// The tensor type: symbolic `%M_7 x %N_8`, so tile windows may cross its edge.
    fn ten(&self) -> String {
        format!("tensor<[%M_7, %N_8], {}>", self.d.name())
    }

    fn line(&mut self, depth: usize, s: &str) {
        for _ in 0..depth {
            self.text.push_str("  ");
        }
        self.text.push_str(s);
        self.text.push('\n');
    }

    /// A conversion of `src` to the other dtype and back (see [`Node::Cast`]) into `out`.
    fn cast(&mut self, depth: usize, out: &str, src: &str, mode: usize, back: usize) {
        let (full, a, rows) = (self.full(), alt(self.d), self.r);
        let alt_full = format!("tile<[?, ?], [{rows}, {}], {a}>", self.c);
        let mid = self.fresh("cv");
        let (there, home) = (cast_attrs(a, mode), cast_attrs(self.d, back));
        self.line(depth, "statement.op {");
        self.line(
            depth + 1,
            &format!("{mid} = tile.cast {src} : ({full}) -> {alt_full} {there}"),
        );
        self.line(
            depth + 1,
            &format!("{out} = tile.cast {mid} : ({alt_full}) -> {full} {home}"),
        );
        self.line(depth, "}");
    }

    /// `statement.op { .. }` around one op line.
    fn op(&mut self, depth: usize, s: &str) {
        self.line(depth, "statement.op {");
        self.line(depth + 1, s);
        self.line(depth, "}");
    }

    fn konst(&mut self, depth: usize, v: &str, ty: &str) -> String {
        let n = self.fresh("k");
        self.op(depth, &format!("{n} = {v} : {ty}"));
        n
    }

    /// The binary ops with a broadcast form (`TROWEXPAND*` / `TCOLEXPAND*`).
    fn broadcast_ops(&self) -> Vec<&'static OpInfo> {
        const EXPAND: [&str; 6] = ["add", "sub", "mul", "div", "max", "min"];
        self.ops
            .iter()
            .copied()
            .filter(|r| {
                matches!(r.class, OpClass::TileBinary)
                    && EXPAND
                        .iter()
                        .any(|e| r.opcode.full_name() == format!("tile.{e}"))
            })
            .collect()
    }

    /// Emits `nodes` at `depth`, with the tiles `env` visible; returns the last tile defined.
    /// `row` / `col` are the current tile position's offsets; `iv` the innermost induction
    /// variable (for `if` conditions).
    #[allow(clippy::too_many_arguments)]
    fn nodes(
        &mut self,
        depth: usize,
        nodes: &[Node],
        env: &mut Vec<String>,
        t: &Tensors,
        row: &str,
        col: &str,
        iv: &str,
    ) -> String {
        let (full, rows) = (self.full(), self.r);
        let dt = self.d.name();
        for nd in nodes {
            let out = self.fresh("t");
            match nd {
                Node::Op {
                    op,
                    lhs,
                    rhs,
                    scalar,
                } => {
                    let row_info = self.ops[op % self.ops.len()];
                    let (l, r) = (&env[lhs % env.len()], &env[rhs % env.len()]);
                    let binary =
                        matches!(row_info.class, OpClass::TileBinary | OpClass::TileBitwise);
                    let name = row_info.opcode.full_name();
                    let s = if !binary {
                        format!("{out} = {name} {l} : ({full}) -> {full}")
                    } else if *scalar {
                        let k = if self.d.is_float() { "1.5" } else { "3" };
                        let (l, k) = (l.clone(), self.konst(depth, k, dt));
                        format!("{out} = {name} {l}, {k} : ({full}, {dt}) -> {full}")
                    } else {
                        format!("{out} = {name} {l}, {r} : ({full}, {full}) -> {full}")
                    };
                    self.op(depth, &s);
                }
                Node::Store { src } => {
                    let (src, o, ten) = (&env[src % env.len()], &t.o, &t.ty);
                    self.op(
                        depth,
                        &format!("tile.store {src}, {o} : ({full}, {ten}) -> () {{offset=[{row}, {col}]}}"),
                    );
                    continue;
                }
                Node::Load { y } => {
                    let src = if *y { &t.y } else { &t.x };
                    let ten = &t.ty;
                    self.op(depth, &format!("{out} = tile.load {src} : ({ten}) -> {full} {{shape=[{rows}, {c}], offset=[{row}, {col}]}}", c = self.c));
                }
                Node::Full => {
                    let k = if self.d.is_float() { "0.25" } else { "2" };
                    let k = self.konst(depth, k, dt);
                    self.op(depth, &format!("{out} = tile.full {k} : ({dt}) -> {full} {{shape=[{rows}, {c}], dtype={dt}}}", c = self.c));
                }
                Node::Reduce {
                    row: by_row,
                    kind,
                    src,
                    onto,
                    op,
                    expand,
                } => {
                    let (src, onto) = (env[src % env.len()].clone(), env[onto % env.len()].clone());
                    // The arg-reductions give `int32` indices: broadcast onto `int32` tiles only.
                    let arg = *by_row && *kind >= 3 && self.d == DataType::Int32;
                    let kind = if arg {
                        ["argmax", "argmin"][kind - 3]
                    } else {
                        ["sum", "max", "min"][kind % 3]
                    };
                    // The drawn reduction if the target takes the dtype, else the first it
                    // takes of this direction's, then the other's (A5's TROWSUM takes no
                    // int8 or bf16; its column reductions do).
                    let t = target_of(self.d);
                    let legal = |row: bool, k: &str| {
                        let f = if row { "row" } else { "col" };
                        // (Natively: the executor runs no f32 steps, see `candidates`.)
                        Opcode::lookup("tile", &format!("{f}_{k}")).is_some_and(|o| {
                            t.takes(o, self.d) && computes_in(t, o, self.d, o.info().isa) == self.d
                        })
                    };
                    let (by_row, kind) = [(*by_row, kind)]
                        .into_iter()
                        .chain(["sum", "max", "min"].map(|k| (*by_row, k)))
                        .chain(["sum", "max", "min"].map(|k| (!*by_row, k)))
                        .find(|&(r, k)| legal(r, k))
                        .expect("a reduction the target takes");
                    let by_row = &by_row;
                    let (f, red) = if *by_row {
                        ("row", format!("tile<[?, 1], [{rows}, 1], {dt}>"))
                    } else {
                        ("col", format!("tile<[1, ?], [1, {}], {dt}>", self.c))
                    };
                    let bin = self.broadcast_ops();
                    let b = bin[op % bin.len()].opcode.full_name();
                    let red_v = self.fresh("r");
                    self.line(depth, "statement.op {");
                    self.line(
                        depth + 1,
                        &format!("{red_v} = tile.{f}_{kind} {src} : ({full}) -> {red}"),
                    );
                    if *expand {
                        let e = self.fresh("e");
                        self.line(
                            depth + 1,
                            &format!("{e} = tile.{f}_expand {red_v} : ({red}) -> {full} {{shape=[{rows}, {c}]}}", c = self.c),
                        );
                        self.line(
                            depth + 1,
                            &format!("{out} = {b} {onto}, {e} : ({full}, {full}) -> {full}"),
                        );
                    } else {
                        self.line(
                            depth + 1,
                            &format!("{out} = {b} {onto}, {red_v} : ({full}, {red}) -> {full}"),
                        );
                    }
                    self.line(depth, "}");
                }
                Node::Select {
                    cmp,
                    lhs,
                    rhs,
                    a,
                    b,
                    scalar_rhs,
                    scalar_alt,
                } => {
                    let mask = format!("tile<[?, ?], [{rows}, {}], bool>", self.c);
                    let cmp = ["eq", "ne", "lt", "le", "gt", "ge"][cmp % 6];
                    let (l, a) = (env[lhs % env.len()].clone(), env[a % env.len()].clone());
                    let k = if self.d.is_float() { "0.5" } else { "1" };
                    // The scalar forms where the target's TCMPS / TSELS take the dtype (A5's
                    // TSELS takes no bf16).
                    let t = target_of(self.d);
                    let (r, rty) = if *scalar_rhs && t.takes_inst("TCMPS", self.d) {
                        (self.konst(depth, k, dt), dt.to_string())
                    } else {
                        (env[rhs % env.len()].clone(), full.clone())
                    };
                    let (b, bty) = if *scalar_alt && t.takes_inst("TSELS", self.d) {
                        (self.konst(depth, "-3", dt), dt.to_string())
                    } else {
                        (env[b % env.len()].clone(), full.clone())
                    };
                    let m = self.fresh("m");
                    self.line(depth, "statement.op {");
                    self.line(
                        depth + 1,
                        &format!("{m} = tile.{cmp} {l}, {r} : ({full}, {rty}) -> {mask}"),
                    );
                    self.line(
                        depth + 1,
                        &format!(
                            "{out} = tile.select {m}, {a}, {b} : ({mask}, {full}, {bty}) -> {full}"
                        ),
                    );
                    self.line(depth, "}");
                }
                Node::LoadOr { y } => {
                    let src = if *y { &t.y } else { &t.x };
                    let (src, ten) = (src.clone(), t.ty.clone());
                    // A pad pto-isa can spell (`PadValue`): a custom fp32, else zero or the
                    // integer dtype's extreme.
                    let pad = match self.d {
                        DataType::Fp32 => "-2.5",
                        DataType::Int32 if *y => "2147483647",
                        DataType::Int32 => "-2147483648",
                        DataType::Int16 if *y => "32767",
                        DataType::Int16 => "-32768",
                        DataType::Int8 if *y => "127",
                        DataType::Int8 => "-128",
                        _ => "0.0",
                    };
                    let pad = self.konst(depth, pad, dt);
                    self.op(depth, &format!("{out} = tile.load_or {src}, {pad} : ({ten}, {dt}) -> {full} {{shape=[{rows}, {c}], offset=[{row}, {col}]}}", c = self.c));
                }
                Node::Round { src, mode } => {
                    let src = env[src % env.len()].clone();
                    let mode = ["rint", "round", "floor", "ceil", "trunc"][mode % 5];
                    // Only fp32's TCVT rounds in place; elsewhere the node is a copy.
                    if target_of(self.d).converts(self.d, self.d) {
                        self.op(depth, &format!("{out} = tile.cast {src} : ({full}) -> {full} {{dtype={dt}, round={mode}}}"));
                    } else {
                        self.op(
                            depth,
                            &format!("{out} = tile.cast {src} : ({full}) -> {full} {{dtype={dt}}}"),
                        );
                    }
                }
                Node::Cast { src, mode, back } => {
                    let src = env[src % env.len()].clone();
                    self.cast(depth, &out, &src, *mode, *back);
                }
                // Tiles below the 16-row fractals a matmul operand needs (the small
                // families), and the dtypes without matmul: the node becomes a cast.
                Node::Matmul { onto, .. }
                    if !rows.is_multiple_of(16)
                        || (!self.d.is_float() && self.d != DataType::Int8) =>
                {
                    let src = env[onto % env.len()].clone();
                    self.cast(depth, &out, &src, 0, 0);
                }
                Node::Matmul { onto, op, zero } => {
                    let onto = env[onto % env.len()].clone();
                    let (c, x, w) = (self.c, t.x.clone(), t.w.clone());
                    let (ten, wten) = (t.ty.clone(), t.wty.clone());
                    let acc_dt = if self.d.is_float() {
                        DataType::Fp32
                    } else {
                        DataType::Int32
                    };
                    let acc = format!("tile<[?, ?], [{rows}, {c}], {acc_dt}>");
                    let sq = format!("tile<[?, ?], [{c}, {c}], {dt}>");
                    let zero_i = self.konst(depth, "0", "int64");
                    let one = self.konst(depth, "1", "int64");
                    let cc = self.konst(depth, &c.to_string(), "int64");
                    let first = if *zero {
                        let (k0, z) = (self.fresh("k"), self.fresh("z"));
                        self.line(depth, "statement.op {");
                        let z0 = if acc_dt.is_float() { "0.0" } else { "0" };
                        self.line(depth + 1, &format!("{k0} = {z0} : {acc_dt}"));
                        self.line(depth + 1, &format!("{z} = tile.full {k0} : ({acc_dt}) -> {acc} {{shape=[{rows}, {c}], dtype={acc_dt}}}"));
                        self.line(depth, "}");
                        (z, zero_i.clone())
                    } else {
                        let (a0, b0, m0) = (self.fresh("a"), self.fresh("b"), self.fresh("m"));
                        self.line(depth, "statement.op {");
                        self.line(depth + 1, &format!("{a0} = tile.load {x} : ({ten}) -> {full} {{shape=[{rows}, {c}], offset=[{row}, {zero_i}]}}"));
                        self.line(depth + 1, &format!("{b0} = tile.load {w} : ({wten}) -> {sq} {{shape=[{c}, {c}], offset=[{zero_i}, {col}]}}"));
                        self.line(
                            depth + 1,
                            &format!("{m0} = tile.matmul {a0}, {b0} : ({full}, {sq}) -> {acc}"),
                        );
                        self.line(depth, "}");
                        (m0, one.clone())
                    };
                    let (kk, ma, mf) = (self.fresh("kk"), self.fresh("ma"), self.fresh("mf"));
                    let (lb, init) = (first.1, first.0);
                    let nc = t.col_tiles.clone();
                    self.line(depth, &format!("{mf} = statement.for {kk} = {lb} to {nc} step {one} iter_args({ma} = {init} : {acc}) {{"));
                    let (kc, a, b, m2) = (
                        self.fresh("kc"),
                        self.fresh("a"),
                        self.fresh("b"),
                        self.fresh("m"),
                    );
                    self.line(depth + 1, "statement.op {");
                    self.line(
                        depth + 2,
                        &format!("{kc} = scalar.mul {kk}, {cc} : (int64, int64) -> int64"),
                    );
                    self.line(depth + 2, &format!("{a} = tile.load {x} : ({ten}) -> {full} {{shape=[{rows}, {c}], offset=[{row}, {kc}]}}"));
                    self.line(depth + 2, &format!("{b} = tile.load {w} : ({wten}) -> {sq} {{shape=[{c}, {c}], offset=[{kc}, {col}]}}"));
                    self.line(
                        depth + 2,
                        &format!(
                            "{m2} = tile.matmul_acc {ma}, {a}, {b} : ({acc}, {full}, {sq}) -> {acc}"
                        ),
                    );
                    self.line(depth + 1, "}");
                    self.line(depth + 1, &format!("statement.yield {m2}"));
                    self.line(depth, "}");
                    // Back to the kernel's dtype by the target's conversions (int8: through
                    // fp32 and fp16, saturating).
                    let mut prod = mf;
                    let mut from = acc.clone();
                    if self.d != acc_dt {
                        for step in conversions(target_of(self.d), acc_dt, self.d) {
                            let back = self.fresh("mc");
                            let to = format!("tile<[?, ?], [{rows}, {c}], {step}>");
                            self.op(
                                depth,
                                &format!(
                                    "{back} = tile.cast {prod} : ({from}) -> {to} {{dtype={step}}}"
                                ),
                            );
                            (prod, from) = (back, to);
                        }
                    }
                    let bin = self.broadcast_ops();
                    let b = bin[op % bin.len()].opcode.full_name();
                    self.op(
                        depth,
                        &format!("{out} = {b} {onto}, {prod} : ({full}, {full}) -> {full}"),
                    );
                }
                Node::Rows { src, i, onto, j } => {
                    let (i, j) = (i % rows, j % rows);
                    let (src, onto) = (env[src % env.len()].clone(), env[onto % env.len()].clone());
                    let line = format!("tile<[?, ?], [1, {}], {dt}>", self.c);
                    let e = self.fresh("x");
                    self.line(depth, "statement.op {");
                    self.line(
                        depth + 1,
                        &format!("{e} = tile.extract {src} : ({full}) -> {line} {{shape=[1, {c}], offset=[{i}, 0]}}", c = self.c),
                    );
                    self.line(
                        depth + 1,
                        &format!("{out} = tile.assemble {e}, {onto} : ({line}, {full}) -> {full} {{offset=[{j}, 0]}}"),
                    );
                    self.line(depth, "}");
                }
                Node::While { init, limit, body } => {
                    let init = env[init % env.len()].clone();
                    let zero = self.konst(depth, "0", "int64");
                    let one = self.konst(depth, "1", "int64");
                    let lim = self.konst(depth, &(limit + 1).to_string(), "int64");
                    let (acc, w, c, w2) = (
                        self.fresh("acc"),
                        self.fresh("w"),
                        self.fresh("c"),
                        self.fresh("w"),
                    );
                    let wout = self.fresh("wo");
                    self.line(
                        depth,
                        &format!("{out}, {wout} = statement.while iter_args({acc} = {init} : {full}, {w} = {zero} : int64) cond {{"),
                    );
                    self.op(
                        depth + 1,
                        &format!("{c} = scalar.lt {w}, {lim} : (int64, int64) -> bool"),
                    );
                    self.line(depth + 1, &format!("statement.condition {c}"));
                    self.line(depth, "} do {");
                    self.op(
                        depth + 1,
                        &format!("{w2} = scalar.add {w}, {one} : (int64, int64) -> int64"),
                    );
                    let mut inner = env.clone();
                    inner.push(acc);
                    let last = self.nodes(depth + 1, body, &mut inner, t, row, col, &w2);
                    let (e, wf, stop) = (self.fresh("el"), self.fresh("wf"), self.fresh("stop"));
                    let (x, ten) = (t.x.clone(), t.ty.clone());
                    self.line(depth + 1, "statement.op {");
                    self.line(
                        depth + 2,
                        &format!("{e} = tile.read {x} : ({ten}) -> {dt} {{offset=[{row}, 0]}}"),
                    );
                    self.line(
                        depth + 2,
                        &format!("{wf} = scalar.cast {w2} : (int64) -> {dt} {{dtype={dt}}}"),
                    );
                    self.line(
                        depth + 2,
                        &format!("{stop} = scalar.lt {e}, {wf} : ({dt}, {dt}) -> bool"),
                    );
                    self.line(depth + 1, "}");
                    self.line(depth + 1, &format!("statement.if {stop} {{"));
                    self.line(depth + 2, &format!("statement.break {last}, {w2}"));
                    self.line(depth + 1, "} else {");
                    self.line(depth + 2, "statement.yield");
                    self.line(depth + 1, "}");
                    self.line(depth + 1, &format!("statement.yield {last}, {w2}"));
                    self.line(depth, "}");
                }
                Node::If { k, then, els } => {
                    let kc = self.konst(depth, &k.to_string(), "int64");
                    let c = self.fresh("c");
                    self.op(
                        depth,
                        &format!("{c} = scalar.lt {iv}, {kc} : (int64, int64) -> bool"),
                    );
                    self.line(depth, &format!("{out} = statement.if {c} {{"));
                    let mut e1 = env.clone();
                    let a = self.nodes(depth + 1, then, &mut e1, t, row, col, iv);
                    self.line(depth + 1, &format!("statement.yield {a}"));
                    self.line(depth, "} else {");
                    let mut e2 = env.clone();
                    let b = self.nodes(depth + 1, els, &mut e2, t, row, col, iv);
                    self.line(depth + 1, &format!("statement.yield {b}"));
                    self.line(depth, "}");
                }
                Node::For {
                    init,
                    bound,
                    scalar,
                    body,
                } => {
                    let init = env[init % env.len()].clone();
                    let zero = self.konst(depth, "0", "int64");
                    let one = self.konst(depth, "1", "int64");
                    let cc = self.konst(depth, &self.c.to_string(), "int64");
                    let ub = if *bound == 0 {
                        t.col_tiles.clone()
                    } else {
                        self.konst(depth, &(*bound).min(self.col_tiles).to_string(), "int64")
                    };
                    let j = self.fresh("j");
                    let acc = self.fresh("acc");
                    let tile_out = if *scalar {
                        self.fresh("lt")
                    } else {
                        out.clone()
                    };
                    // A carried scalar of the element type: s += j each iteration, then
                    // added to the loop's tile (exercises carried scalars and `as` casts).
                    let (outs, carried) = if *scalar {
                        let s0 = self.konst(depth, if self.d.is_float() { "0.5" } else { "1" }, dt);
                        let (sv, so) = (self.fresh("s"), self.fresh("so"));
                        (format!("{tile_out}, {so}"), Some((s0, sv, so)))
                    } else {
                        (tile_out.clone(), None)
                    };
                    let mut iter = format!("{acc} = {init} : {full}");
                    if let Some((s0, sv, _)) = &carried {
                        iter += &format!(", {sv} = {s0} : {dt}");
                    }
                    self.line(
                        depth,
                        &format!("{outs} = statement.for {j} = {zero} to {ub} step {one} iter_args({iter}) {{"),
                    );
                    let col2 = self.fresh("col");
                    self.op(
                        depth + 1,
                        &format!("{col2} = scalar.mul {j}, {cc} : (int64, int64) -> int64"),
                    );
                    let mut inner = env.clone();
                    inner.push(acc);
                    let last = self.nodes(depth + 1, body, &mut inner, t, row, &col2, &j);
                    if let Some((_, sv, so)) = &carried {
                        let (jf, s2) = (self.fresh("jf"), self.fresh("s"));
                        self.line(depth + 1, "statement.op {");
                        self.line(
                            depth + 2,
                            &format!("{jf} = scalar.cast {j} : (int64) -> {dt} {{dtype={dt}}}"),
                        );
                        self.line(
                            depth + 2,
                            &format!("{s2} = scalar.add {sv}, {jf} : ({dt}, {dt}) -> {dt}"),
                        );
                        self.line(depth + 1, "}");
                        self.line(depth + 1, &format!("statement.yield {last}, {s2}"));
                        self.line(depth, "}");
                        self.op(
                            depth,
                            &format!(
                                "{out} = tile.add {tile_out}, {so} : ({full}, {dt}) -> {full}"
                            ),
                        );
                    } else {
                        self.line(depth + 1, &format!("statement.yield {last}"));
                        self.line(depth, "}");
                    }
                }
            }
            env.push(out);
        }
        env.last().cloned().unwrap_or_default()
    }
}

/// The kernel's tensor and scalar parameter names.
struct Tensors {
    x: String,
    y: String,
    o: String,
    ty: String,
    /// The matmul right operand `N x N`, and its type.
    w: String,
    wty: String,
    col_tiles: String,
}

/// The IR text of a kernel over `m x n` tensors of `d`.
fn kernel_text(k: &Kernel, d: DataType, r: usize, c: usize) -> String {
    let mut g = Gen {
        d,
        r,
        ops: candidates(d),
        text: String::new(),
        next: 10,
        c,
        col_tiles: k.n.div_ceil(c),
    };
    let ten = g.ten();
    let t = Tensors {
        x: "%x_1".into(),
        y: "%y_2".into(),
        o: "%o_3".into(),
        ty: ten.clone(),
        w: "%w_9".into(),
        wty: format!("tensor<[%N_8, %N_8], {}>", d.name()),
        col_tiles: "%nc_5".into(),
    };
    let full = g.full();
    g.line(0, "program.module @fuzz {");
    g.line(1, "program.entry @k");
    if target_of(d) == Target::A5 {
        g.line(1, "attr arch = \"A5\"");
    }
    g.line(1, &format!("func.func @k(%x_1: {ten} #in, %y_2: {ten} #in, %o_3: {ten} #out, %nr_4: int64, %nc_5: int64, %w_9: {wty} #in) {{", wty = t.wty));
    let zero = g.konst(2, "0", "int64");
    let one = g.konst(2, "1", "int64");
    let rr = g.konst(2, &g.r.to_string(), "int64");
    g.line(
        2,
        &format!("statement.for %i_6 = {zero} to %nr_4 step {one} {{"),
    );
    let row = g.fresh("row");
    g.op(
        3,
        &format!("{row} = scalar.mul %i_6, {rr} : (int64, int64) -> int64"),
    );
    let first = g.fresh("t");
    g.op(3, &format!("{first} = tile.load %x_1 : ({ten}) -> {full} {{shape=[{r}, {c}], offset=[{row}, {zero}]}}", r = g.r));
    let mut env = vec![first];
    let last = g.nodes(3, &k.body, &mut env, &t, &row, &zero, "%i_6");
    g.op(
        3,
        &format!("tile.store {last}, %o_3 : ({full}, {ten}) -> () {{offset=[{row}, {zero}]}}"),
    );
    g.line(3, "statement.yield");
    g.line(2, "}");
    g.line(2, "statement.return");
    g.line(1, "}");
    g.line(0, "}");
    g.text
}

/// Deterministic input data in a small range (halves for floats), different per seed.
fn inputs(n: usize, float: bool, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let k = (s % 21) as i64 - 10;
            if float { k as f64 * 0.5 } else { k as f64 }
        })
        .collect()
}

/// Bit for bit, zeros' signs included; any NaN equals any NaN (a NaN result's bits are
/// unspecified, `pto_ir::sem`).
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Builds, round-trips, lowers and runs one kernel on `R x C` tiles both ways; `Err` says
/// how they differ. `Ok` holds the kernel's matmul ops (`tile.matmul` and
/// `tile.matmul_acc`) when both runs completed, 0 when both rejected the arguments.
fn check<T: exec::Kind, const R: usize, const C: usize>(
    k: &Kernel,
    d: DataType,
) -> Result<usize, String> {
    let text = kernel_text(k, d, R, C);
    let m = pto::ir::parse(&text).map_err(|e| format!("parse: {e}\n{text}"))?;
    pto::ir::verify(&m).map_err(|e| format!("verify: {e}\n{text}"))?;
    // (c) The printed IR re-parses structurally equal.
    let again = pto::ir::parse(&m.to_string()).map_err(|e| format!("reparse: {e}\n{m}"))?;
    if !pto::ir::structurally_equal(&m, &again) {
        return Err(format!("not structurally equal after a round trip:\n{m}"));
    }
    let entry = m.entry.ok_or("no entry")?;
    let p = pto_lower::lower_kernel(&m, entry).map_err(|e| format!("lower: {e}\n{text}"))?;
    // The emitter must accept the program the executor runs.
    pto_lower::emit::rust::emit(&p).map_err(|e| format!("emit: {e}\n{text}"))?;

    let (mm, nn) = (k.m, k.n);
    let (x, y) = (
        inputs(mm * nn, d.is_float(), 11),
        inputs(mm * nn, d.is_float(), 12),
    );
    let w = inputs(nn * nn, d.is_float(), 13);
    let sentinel = vec![7.0; mm * nn];
    let (nr, nc) = (mm.div_ceil(R) as i64, nn.div_ceil(C) as i64);
    let sh = vec![mm, nn];
    let mut iargs = vec![
        HostValue::tensor(d, sh.clone(), x.clone()).map_err(|e| e.to_string())?,
        HostValue::tensor(d, sh.clone(), y.clone()).map_err(|e| e.to_string())?,
        HostValue::tensor(d, sh, sentinel.clone()).map_err(|e| e.to_string())?,
        HostValue::i64(nr),
        HostValue::i64(nc),
        HostValue::tensor(d, vec![nn, nn], w.clone()).map_err(|e| e.to_string())?,
    ];
    let interp = run(&m, entry, &mut iargs);

    let ten = |v: &[f64], shape: [usize; 2]| {
        pto::Tensor::from_vec(v.iter().map(|&e| T::from_f64(e)).collect(), shape)
            .map(exec::KArg::Tensor)
            .map_err(|e| e.to_string())
    };
    // The symbolic dimensions, bound from the tensors' shapes as the host code does.
    let dims: Vec<_> = p.module.funcs[p.func]
        .dims
        .iter()
        .copied()
        .zip([mm as i64, nn as i64])
        .collect();
    let mut hargs = vec![
        ten(&x, [mm, nn])?,
        ten(&y, [mm, nn])?,
        ten(&sentinel, [mm, nn])?,
        exec::KArg::Scalar(nr),
        exec::KArg::Scalar(nc),
        ten(&w, [nn, nn])?,
    ];
    let host = exec::run_program::<T, R, C>(&p, &dims, &mut hargs);
    match (interp, host) {
        (Ok(_), Ok(())) => {}
        // Both reject (an integer division by zero, say): they agree.
        (Err(_), Err(_)) => return Ok(0),
        (i, h) => return Err(format!("interpreter {i:?} vs host {h:?}\n{text}")),
    }
    let iout = &iargs[2].as_tensor().ok_or("no output")?.data;
    let exec::KArg::Tensor(hout) = &hargs[2] else {
        return Err("no output".into());
    };
    for (e, (&a, b)) in iout.iter().zip(hout.as_slice()).enumerate() {
        if !same(a, b.to_f64()) {
            return Err(format!(
                "element [{}, {}] of {mm} x {nn}: interpreter {a} vs host {}\n{text}",
                e / nn,
                e % nn,
                b.to_f64()
            ));
        }
    }
    Ok(text.matches("= tile.matmul").count())
}

/// The kernels one step simpler than `body`: a node removed, or an `if` / `for` replaced by
/// the statements of one of its bodies (which proptest's shrinking of a recursive strategy
/// cannot do), at any depth.
fn simpler(body: &[Node]) -> Vec<Vec<Node>> {
    let mut out = Vec::new();
    for (i, nd) in body.iter().enumerate() {
        let splice = |with: &[Node]| {
            let mut b = body[..i].to_vec();
            b.extend_from_slice(with);
            b.extend_from_slice(&body[i + 1..]);
            b
        };
        out.push(splice(&[]));
        match nd {
            Node::If { k, then, els } => {
                out.push(splice(then));
                out.push(splice(els));
                for t in simpler(then) {
                    out.push(splice(&[Node::If {
                        k: *k,
                        then: t,
                        els: els.clone(),
                    }]));
                }
                for e in simpler(els) {
                    out.push(splice(&[Node::If {
                        k: *k,
                        then: then.clone(),
                        els: e,
                    }]));
                }
            }
            Node::For {
                init,
                bound,
                scalar,
                body: b,
            } => {
                out.push(splice(b));
                for s in simpler(b) {
                    let f = Node::For {
                        init: *init,
                        bound: *bound,
                        scalar: *scalar,
                        body: s,
                    };
                    out.push(splice(&[f]));
                }
            }
            Node::While {
                init,
                limit,
                body: b,
            } => {
                out.push(splice(b));
                for s in simpler(b) {
                    let w = Node::While {
                        init: *init,
                        limit: *limit,
                        body: s,
                    };
                    out.push(splice(&[w]));
                }
            }
            _ => {}
        }
    }
    out
}

/// [`check`], and on a failure, the failing kernel made as simple as [`simpler`] can.
fn check_min<T: exec::Kind, const R: usize, const C: usize>(
    k: &Kernel,
    d: DataType,
) -> Result<usize, String> {
    let mut err = match check::<T, R, C>(k, d) {
        Ok(n) => return Ok(n),
        Err(e) => e,
    };
    let mut k = k.clone();
    'outer: loop {
        for body in simpler(&k.body) {
            let cand = Kernel { body, ..k.clone() };
            if let Err(e) = check::<T, R, C>(&cand, d) {
                (k, err) = (cand, e);
                continue 'outer;
            }
        }
        return Err(format!("{err}\nsimplest failing kernel found: {k:#?}"));
    }
}

/// Kernels per dtype: `default`, or `PTO_FUZZ_CASES` for a longer campaign.
fn cases(default: u32) -> u32 {
    std::env::var("PTO_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs `cases` random kernels of `d` on `R x C` tiles (`matmul` the weight of
/// [`Node::Matmul`]) through [`check_min`], replaying the seeds in
/// `random_kernels.proptest-regressions` first; panics with the simplest failing kernel.
/// Returns the matmul ops of the kernels that ran.
fn family<T: exec::Kind, const R: usize, const C: usize>(
    d: DataType,
    max_n: usize,
    matmul: u32,
    cases: u32,
) -> usize {
    let config = ProptestConfig {
        cases,
        source_file: Some(file!()),
        ..ProptestConfig::default()
    };
    let ops = std::cell::Cell::new(0);
    let run = TestRunner::new(config).run(&kernel(R, max_n, matmul), |k| {
        let n = check_min::<T, R, C>(&k, d).map_err(TestCaseError::fail)?;
        ops.set(ops.get() + n);
        Ok(())
    });
    if let Err(e) = run {
        panic!("{e}");
    }
    ops.get()
}

/// Kernels per small family (4-row tiles, no matmul).
const SMALL_CASES: u32 = 300;

#[test]
fn random_i32_kernels_agree() {
    family::<i32, SMALL_R, 8>(DataType::Int32, 51, 1, cases(SMALL_CASES));
}

#[test]
fn random_f32_kernels_agree() {
    family::<f32, SMALL_R, 8>(DataType::Fp32, 51, 1, cases(SMALL_CASES));
}

#[test]
fn random_i16_kernels_agree() {
    family::<i16, SMALL_R, 16>(DataType::Int16, 51, 1, cases(SMALL_CASES));
}

#[test]
fn random_i8_kernels_agree() {
    family::<i8, SMALL_R, 32>(DataType::Int8, 51, 1, cases(SMALL_CASES));
}

#[test]
fn random_f16_kernels_agree() {
    family::<pto::f16, SMALL_R, 16>(DataType::Fp16, 51, 1, cases(SMALL_CASES));
}

/// Kernels per matmul family (16-row tiles, matmul likelier than in the small families).
const MATMUL_CASES: u32 = 64;

/// Weight of [`Node::Matmul`] in the matmul families (17 leaf weights besides it).
const MATMUL_WEIGHT: u32 = 4;

/// A matmul family: `cases` kernels on `MATMUL_R x C` tiles over tensors up to `3 C + 3`
/// columns (ragged M, N and K), which must run at least one matmul op per kernel on
/// average (about 3.5 with these weights): a generator that stops producing matmuls fails
/// here.
fn matmul_family<T: exec::Kind, const C: usize>(d: DataType) {
    let cases = cases(MATMUL_CASES);
    let ops = family::<T, MATMUL_R, C>(d, 3 * C + 3, MATMUL_WEIGHT, cases);
    eprintln!("{d}: {ops} matmul ops in {cases} kernels");
    assert!(
        ops >= cases as usize,
        "{d}: only {ops} matmul ops in {cases} kernels"
    );
}

#[test]
fn random_f32_matmul_kernels_agree() {
    matmul_family::<f32, 16>(DataType::Fp32);
}

#[test]
fn random_f16_matmul_kernels_agree() {
    matmul_family::<pto::f16, 16>(DataType::Fp16);
}

#[test]
fn random_bf16_matmul_kernels_agree() {
    matmul_family::<pto::bf16, 16>(DataType::Bf16);
}

#[test]
fn random_i8_matmul_kernels_agree() {
    matmul_family::<i8, 32>(DataType::Int8);
}
