//! The PTO-ISA C++ emitter, in the shape the PTO assembler (ptoas) prints
//! (`shared/spec/pto-isa.md`, last section): `#include "common/pto_instr.hpp"`,
//! `using namespace pto;`, `__global__ AICORE void NAME(__gm__ float* x, ...)`, one
//! `Tile<TileType::Vec, float, R, C, BLayout::RowMajor, VR, VC, SLayout::NoneBox, 512,
//! PadValue::Null>` per slot placed with `TASSIGN(t, offset)`, `GlobalTensor` views for every
//! load and store, destination-first intrinsics, `set_flag` / `wait_flag` / `pipe_barrier`,
//! and plain C++ control flow.
//!
//! Deviations, each marked in the output: symbolic dimensions are extra `int64_t`
//! parameters; a reduction's or transpose's scratch tile is its source (the pass pipeline
//! does not reserve scratch space yet); a kernel's returned scalars are not part of the
//! kernel ABI and appear as a comment.

use std::fmt::Write;

use pto_ir::entity::EntityId;
use pto_ir::typefmt::push_u64;
use pto_ir::{
    Constant, DataType, Dim, MemorySpace, Opcode, PipeKind, ProgramModule, Type, ValueDef, ValueId,
};

use pto_ir::sem::{Binary, Sem};

use super::writer::{Level, Out};
use crate::events::Event;
use crate::info::{buffer_extents, pipe_cpp, pipe_spelled};
use crate::isa::{Arg, Index, Inst, Isa, Program, TileId, TileRef, TileSlot};

/// Emits the C++ source of `p`.
pub fn emit(p: &Program) -> String {
    let mut w = Writer {
        p,
        m: &p.module,
        // Lines average about 200 bytes per op of the module: one allocation for most
        // kernels.
        out: Out::with_capacity(1024 + 256 * p.module.ops.len()),
        next_gt: 0,
        names: vec![None; p.module.values.len()],
        // Names average well under 16 bytes.
        name_text: String::with_capacity(16 * p.module.values.len()),
        zeroed: Vec::new(),
        workspace: 0,
    };
    w.put_program();
    let mut text = w.out.text;
    // The scalar helpers go in only when the kernel calls one.
    if text.contains("pto_rs::")
        && let Some(at) = text.find(USING).map(|i| i + USING.len())
    {
        text.insert_str(at, SCALAR_HELPERS);
    }
    text
}

const USING: &str = "using namespace pto;\n";

/// The name of the GM workspace parameter (see [`workspace_bytes`]).
const WORKSPACE: &str = "pto_workspace";

/// The kernel language's scalar division, remainder, floor forms, min / max and float to
/// integer `as`, as the semantics module (`pto_ir::sem`) defines them: total (by zero:
/// quotient 0, remainder the dividend; `MIN / -1` wraps), `/` and `%` truncating, `min` /
/// `max` ignoring a NaN, `as` saturating with NaN to 0. C++'s own operators and casts are
/// undefined for those inputs.
const SCALAR_HELPERS: &str = r#"#include <limits>
#include <type_traits>
namespace pto_rs {
template <typename T> constexpr bool is_int = std::is_integral<T>::value;
template <typename T> AICORE inline T div(T a, T b) {
    if constexpr (is_int<T>) {
        if (b == 0) return T(0);
        if constexpr (std::is_signed<T>::value) {
            if (b == T(-1)) return T(typename std::make_unsigned<T>::type(0) - typename std::make_unsigned<T>::type(a));
        }
        return a / b;
    } else {
        return a / b;
    }
}
template <typename T> AICORE inline T rem(T a, T b) {
    if constexpr (is_int<T>) {
        if (b == 0) return a;
        if constexpr (std::is_signed<T>::value) {
            if (b == T(-1)) return T(0);
        }
        return a % b;
    } else {
        return T(__builtin_fmod(a, b));
    }
}
template <typename T> AICORE inline T floor_mod(T a, T b) {
    T r = rem(a, b);
    if (b != T(0) && r != T(0) && ((r < T(0)) != (b < T(0)))) r = T(r + b);
    return r;
}
template <typename T> AICORE inline T floor_div(T a, T b) {
    if constexpr (is_int<T>) {
        T q = div(a, b);
        T r = rem(a, b);
        if (b != 0 && r != 0 && ((r < 0) != (b < 0))) q = T(q - 1);
        return q;
    } else {
        return T(__builtin_floor(a / b));
    }
}
template <typename D, typename S> AICORE inline D cast_trunc(S x) {
    if (x != x) return D(0);
    if (x <= S(std::numeric_limits<D>::lowest())) return std::numeric_limits<D>::lowest();
    if (x >= S(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
    return static_cast<D>(x);
}
template <typename T> AICORE inline T min(T a, T b) { return (b < a || a != a) ? b : a; }
template <typename T> AICORE inline T max(T a, T b) { return (b > a || a != a) ? b : a; }
}  // namespace pto_rs
"#;

/// The C++ element type.
pub fn cpp_dtype(d: DataType) -> &'static str {
    match d {
        DataType::Bool => "bool",
        DataType::Int8 => "int8_t",
        DataType::Int16 => "int16_t",
        DataType::Int32 => "int32_t",
        DataType::Int64 => "int64_t",
        DataType::UInt8 => "uint8_t",
        DataType::UInt16 => "uint16_t",
        DataType::UInt32 => "uint32_t",
        DataType::UInt64 => "uint64_t",
        DataType::Fp16 => "half",
        DataType::Bf16 => "bfloat16_t",
        DataType::Fp32 => "float",
        DataType::Fp64 => "double",
        _ => "uint8_t",
    }
}

/// Writes the `Tile<..>` type of a slot with the valid dimensions `valid` (`None`:
/// `DYNAMIC`; views of a slot's memory have their own). The fixed text around its numbers
/// comes in three pieces chosen by memory space (and layout), each spelled whole.
/// Extents are the slot's [`buffer_extents`]; a Left tile's layout depends on the target
/// (`a5`).
fn put_tile_type_valid(out: &mut Out, s: &TileSlot, valid: [Option<u64>; 2], a5: bool) {
    // The head up to the dtype, the text between the columns and the valid rows (the
    // `BLayout`), and the tail after the valid columns (`SLayout`, fractal size, pad).
    macro_rules! parts {
        ($loc:literal, $b:literal, $sl:literal, $fractal:literal) => {
            (
                concat!("Tile<TileType::", $loc, ", "),
                concat!(", BLayout::", $b, ", "),
                concat!(", SLayout::", $sl, ", ", $fractal, ", PadValue::Null>"),
            )
        };
    }
    let dn = s.layout == "DN";
    let (head, mid, tail) = match s.space {
        MemorySpace::Vec | MemorySpace::Ddr if dn => parts!("Vec", "ColMajor", "NoneBox", "512"),
        MemorySpace::Vec | MemorySpace::Ddr => parts!("Vec", "RowMajor", "NoneBox", "512"),
        MemorySpace::Bias if dn => parts!("Bias", "ColMajor", "NoneBox", "512"),
        MemorySpace::Bias => parts!("Bias", "RowMajor", "NoneBox", "512"),
        MemorySpace::Mat if s.rows == 1 => parts!("Mat", "RowMajor", "NoneBox", "512"),
        MemorySpace::Mat => parts!("Mat", "ColMajor", "RowMajor", "512"),
        MemorySpace::Left if a5 => parts!("Left", "ColMajor", "RowMajor", "512"),
        MemorySpace::Left => parts!("Left", "RowMajor", "RowMajor", "512"),
        MemorySpace::Right => parts!("Right", "RowMajor", "ColMajor", "512"),
        MemorySpace::Acc => parts!("Acc", "ColMajor", "RowMajor", "1024"),
    };
    let put_valid = |out: &mut Out, x: Option<u64>| match x {
        Some(c) => out.put_u64(c),
        None => out.put("DYNAMIC"),
    };
    let (rows, cols) = buffer_extents(s.space, s.layout, s.dtype, s.rows, s.cols);
    out.put(head);
    out.put(cpp_dtype(s.dtype));
    out.put(", ");
    out.put_u64(rows);
    out.put(", ");
    out.put_u64(cols);
    out.put(mid);
    put_valid(out, valid[0]);
    out.put(", ");
    put_valid(out, valid[1]);
    out.put(tail);
}

/// `set_flag(PIPE_MTE2, ` or `wait_flag(PIPE_MTE2, `: an event line up to its destination
/// pipe, spelled whole (the names are [`pipe_cpp`]'s).
fn event_head(set: bool, src: PipeKind) -> &'static str {
    if set {
        pipe_spelled!(src, "set_flag(", ", ")
    } else {
        pipe_spelled!(src, "wait_flag(", ", ")
    }
}

/// `PIPE_V, EVENT_ID`: an event line's destination pipe and the start of its event id.
fn event_dst(dst: PipeKind) -> &'static str {
    pipe_spelled!(dst, "", ", EVENT_ID")
}

/// Appends `v` in lower-case hexadecimal without leading zeros (`{:x}`).
fn push_hex(out: &mut String, v: u64) {
    let digits = (64 - v.leading_zeros()).div_ceil(4).max(1);
    for k in (0..digits).rev() {
        let d = ((v >> (4 * k)) & 0xf) as u32;
        out.push(char::from_digit(d, 16).unwrap_or('0'));
    }
}

/// `min(a, b)` of two C++ integer expressions, folded when both are numbers.
fn cpp_min(a: &str, b: &str) -> String {
    match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(x), Ok(y)) => x.min(y).to_string(),
        _ if a == b => a.to_string(),
        _ => format!("({a} < {b} ? {a} : {b})"),
    }
}

/// `max(a, b)` of two C++ integer expressions, folded when both are numbers.
fn cpp_max(a: &str, b: &str) -> String {
    match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(x), Ok(y)) => x.max(y).to_string(),
        _ if a == b => a.to_string(),
        _ => format!("({a} > {b} ? {a} : {b})"),
    }
}

/// Whether an instruction works element by element (these need row-major tiles).
fn is_elementwise(isa: Isa) -> bool {
    isa.is_binary() || isa.is_scalar_form() || isa.is_unary() || isa == Isa::TMov
}

/// Whether slot `s` is an `R x 1` column-major Vec tile (a row reduction's result).
fn is_column(s: &TileSlot) -> bool {
    s.space == MemorySpace::Vec && s.cols == 1 && s.layout == "DN"
}

/// The column tiles elementwise instructions touch, each once, in order.
fn column_tiles(p: &Program, insts: &[Inst], out: &mut Vec<TileId>) {
    for i in insts {
        match i {
            Inst::Op { isa, dst, args } if is_elementwise(*isa) => {
                let tiles = args.iter().filter_map(|a| match a {
                    Arg::Tile(TileRef::Slot(t)) => Some(*t),
                    _ => None,
                });
                for t in std::iter::once(*dst).chain(tiles) {
                    if p.tile(t).is_some_and(is_column) && !out.contains(&t) {
                        out.push(t);
                    }
                }
            }
            Inst::For { body, .. } => column_tiles(p, body, out),
            Inst::While { cond, body, .. } => {
                column_tiles(p, cond, out);
                column_tiles(p, body, out);
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                column_tiles(p, then_body, out);
                column_tiles(p, else_body, out);
            }
            _ => {}
        }
    }
}

/// Whether `TMOV(dst, src)` goes from an Acc tile to a Vec tile, which A2A3 has no
/// instruction for (pto-isa.md, TMOV: Acc -> Vec is A5).
fn acc_to_vec(p: &Program, dst: TileId, args: &[Arg]) -> Option<TileId> {
    let src = match args {
        [Arg::Tile(TileRef::Slot(src))] => *src,
        _ => return None,
    };
    let from = p.tile(src)?.space;
    let to = p.tile(dst)?.space;
    (from == MemorySpace::Acc && to == MemorySpace::Vec).then_some(src)
}

/// The bytes of the GM workspace the A2A3 route of `TMOV` Acc -> Vec needs: the largest
/// Acc tile moved (the moves run one after the other, so they share it).
fn workspace_bytes(p: &Program, insts: &[Inst]) -> u64 {
    let mut most = 0;
    for i in insts {
        let here = match i {
            Inst::Op {
                isa: Isa::TMov,
                dst,
                args,
            } => acc_to_vec(p, *dst, args)
                .and_then(|src| p.tile(src))
                .map_or(0, |s| s.bytes),
            Inst::For { body, .. } => workspace_bytes(p, body),
            Inst::While { cond, body, .. } => {
                workspace_bytes(p, cond).max(workspace_bytes(p, body))
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => workspace_bytes(p, then_body).max(workspace_bytes(p, else_body)),
            _ => 0,
        };
        most = most.max(here);
    }
    most
}

/// The Acc slots `TEXPANDS` fills, each once.
fn zero_filled_accs(p: &Program, insts: &[Inst], out: &mut Vec<TileId>) {
    for i in insts {
        match i {
            Inst::Op {
                isa: Isa::TExpandS,
                dst,
                ..
            } if p.tile(*dst).is_some_and(|s| s.space == MemorySpace::Acc)
                && !out.contains(dst) =>
            {
                out.push(*dst)
            }
            Inst::For { body, .. } => zero_filled_accs(p, body, out),
            Inst::While { cond, body, .. } => {
                zero_filled_accs(p, cond, out);
                zero_filled_accs(p, body, out);
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                zero_filled_accs(p, then_body, out);
                zero_filled_accs(p, else_body, out);
            }
            _ => {}
        }
    }
}

/// The row-major `[1, R]` view of column tile `s` (same memory, `NAME_row`), whose valid
/// columns are the column tile's valid rows.
fn row_view(s: &TileSlot) -> TileSlot {
    TileSlot {
        name: format!("{}_row", s.name),
        rows: 1,
        cols: s.rows,
        layout: "ND",
        valid: [Some(1), None],
        ..s.clone()
    }
}

fn ident_ok(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(x) if x.is_ascii_alphabetic() || x == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// C++ keywords (and alternative operator spellings) that are ordinary identifiers in Rust
/// and in the IR: a kernel named `double` or a parameter named `new` must not keep them.
fn is_cpp_keyword(s: &str) -> bool {
    // A `match` on the string compiles to a dispatch on length and bytes, not a scan.
    matches!(
        s,
        "alignas"
            | "alignof"
            | "and"
            | "and_eq"
            | "asm"
            | "auto"
            | "bitand"
            | "bitor"
            | "bool"
            | "break"
            | "case"
            | "catch"
            | "char"
            | "char8_t"
            | "char16_t"
            | "char32_t"
            | "class"
            | "compl"
            | "concept"
            | "const"
            | "consteval"
            | "constexpr"
            | "constinit"
            | "const_cast"
            | "continue"
            | "co_await"
            | "co_return"
            | "co_yield"
            | "decltype"
            | "default"
            | "delete"
            | "do"
            | "double"
            | "dynamic_cast"
            | "else"
            | "enum"
            | "explicit"
            | "export"
            | "extern"
            | "false"
            | "float"
            | "for"
            | "friend"
            | "goto"
            | "if"
            | "inline"
            | "int"
            | "long"
            | "mutable"
            | "namespace"
            | "new"
            | "noexcept"
            | "not"
            | "not_eq"
            | "nullptr"
            | "operator"
            | "or"
            | "or_eq"
            | "private"
            | "protected"
            | "public"
            | "register"
            | "reinterpret_cast"
            | "requires"
            | "return"
            | "short"
            | "signed"
            | "sizeof"
            | "static"
            | "static_assert"
            | "static_cast"
            | "struct"
            | "switch"
            | "template"
            | "this"
            | "thread_local"
            | "throw"
            | "true"
            | "try"
            | "typedef"
            | "typeid"
            | "typename"
            | "union"
            | "unsigned"
            | "using"
            | "virtual"
            | "void"
            | "volatile"
            | "wchar_t"
            | "while"
            | "xor"
            | "xor_eq"
    )
}

/// Appends `name` as a C++ identifier to `out`: itself, with `_` appended when it is a C++
/// keyword; `false` (nothing appended) when it is not an identifier at all.
fn push_cpp_ident(out: &mut String, name: &str) -> bool {
    if !ident_ok(name) {
        return false;
    }
    out.push_str(name);
    if is_cpp_keyword(name) {
        out.push('_');
    }
    true
}

/// Appends the C++ name of a value to `out`: a parameter's own name when it is an
/// identifier (`_` appended to a C++ keyword), else the sanitized IR name with the SSA
/// number (`acc_7`), else `v7`.
fn push_cpp_name(out: &mut String, m: &ProgramModule, v: ValueId) {
    let d = &m.values[v];
    if let (ValueDef::Param(..), Some(n)) = (d.def, &d.name)
        && push_cpp_ident(out, n)
    {
        return;
    }
    // Sanitizing maps each char to one of `[a-z0-9_]`, so the result is an identifier when
    // the name is not empty and does not start with a digit.
    match d.name.as_deref() {
        Some(n) if n.chars().next().is_some_and(|c| !c.is_ascii_digit()) => {
            crate::lower::push_sanitized(out, n);
            out.push('_');
        }
        _ => out.push('v'),
    }
    push_u64(out, u64::from(d.number));
}

/// Writes the text straight into one [`Out`].
struct Writer<'a> {
    p: &'a Program,
    m: &'a ProgramModule,
    out: Out,
    next_gt: u32,
    /// The C++ name of each value ([`push_cpp_name`]), made on first use since names
    /// repeat at every use: its range in `name_text`, which holds them all.
    names: Vec<Option<(u32, u32)>>,
    name_text: String,
    /// The Acc slots a kernel fills with zero, each with a `NAME_zero` flag.
    zeroed: Vec<TileId>,
    /// The bytes of the GM workspace parameter (0: none), see [`workspace_bytes`].
    workspace: u64,
}

impl Writer<'_> {
    /// Whether the target is A5 (which lays Left tiles out column-major).
    fn a5(&self) -> bool {
        self.p.target == "A5"
    }

    fn put(&mut self, s: &str) {
        self.out.put(s);
    }

    fn name(&mut self, v: ValueId) {
        let range = match self.names.get(v.index()) {
            Some(&Some(r)) => r,
            _ => {
                let start = self.name_text.len() as u32;
                push_cpp_name(&mut self.name_text, self.m, v);
                let r = (start, self.name_text.len() as u32);
                if let Some(slot) = self.names.get_mut(v.index()) {
                    *slot = Some(r);
                }
                r
            }
        };
        let text = self
            .name_text
            .get(range.0 as usize..range.1 as usize)
            .unwrap_or_default();
        self.out.put(text);
    }

    fn tile(&mut self, t: TileId) {
        match self.p.tile(t) {
            Some(s) => self.out.put(&s.name),
            None => {
                self.put("t");
                self.out.put_u64(u64::from(t.0));
            }
        }
    }

    fn tref(&mut self, t: TileRef) {
        match t {
            TileRef::Slot(s) => self.tile(s),
            TileRef::Param(v) => self.name(v),
        }
    }

    fn dtype(&self, v: ValueId) -> DataType {
        self.m.values[v].ty.dtype().unwrap_or(DataType::Unknown)
    }

    /// A C++ literal of `x` as a `d`.
    fn lit(&mut self, x: Constant, d: DataType) {
        match d {
            DataType::Bool => self.put(if x.as_i64() != 0 { "true" } else { "false" }),
            DataType::Fp32 | DataType::Fp16 | DataType::Bf16 => {
                if d != DataType::Fp32 {
                    self.put(cpp_dtype(d));
                    self.put("(");
                }
                let v = x.as_f64();
                if v.is_finite() {
                    let _ = write!(self.out, "{:?}f", v as f32);
                } else {
                    self.put("__builtin_inff()");
                }
                if d != DataType::Fp32 {
                    self.put(")");
                }
            }
            DataType::Fp64 => {
                let v = x.as_f64();
                if v.is_finite() {
                    let _ = write!(self.out, "{v:?}");
                } else {
                    self.put("__builtin_inf()");
                }
            }
            DataType::UInt64 => {
                match x {
                    Constant::SizeT(u) => self.out.put_u64(u),
                    other => self.out.put_i64(other.as_i64()),
                }
                self.put("ULL");
            }
            DataType::Int64 => {
                self.out.put_i64(x.as_i64());
                self.put("LL");
            }
            _ => self.out.put_i64(x.as_i64()),
        }
    }

    fn scalar(&mut self, v: ValueId) {
        match self.m.values[v].constant {
            Some(c) => self.lit(c, self.dtype(v)),
            None => self.name(v),
        }
    }

    fn scalar_as(&mut self, v: ValueId, to: DataType) {
        if self.dtype(v) == to {
            self.scalar(v);
        } else {
            self.put("static_cast<");
            self.put(cpp_dtype(to));
            self.put(">(");
            self.scalar(v);
            self.put(")");
        }
    }

    fn index(&mut self, i: Index) {
        match i {
            Index::Const(c) => self.out.put_u64(c),
            Index::Value(v) => self.scalar(v),
        }
    }

    /// `set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);` (`wait_flag(..)` unless `set`).
    fn event(&mut self, l: Level, set: bool, (src, dst, id): Event) {
        self.out.indent(l);
        self.put(event_head(set, src));
        self.put(event_dst(dst));
        self.out.put_u64(u64::from(id));
        self.put(");\n");
    }

    fn put_program(&mut self) {
        let m = self.m;
        let p = self.p;
        let f = &m.funcs[p.func];
        let l0 = Level::default();
        self.put("// ");
        self.put(&f.name);
        self.put(" lowered by pto-lower for ");
        self.put(p.target);
        self.put(".\n");
        if !f.sig.returns.is_empty() {
            self.put("// The kernel's returned scalars are written to `ret0`, `ret1`, ...: one-element\n");
            self.put("// global-memory buffers, after the symbolic dimensions.\n");
        }
        if !self.a5() {
            self.workspace = workspace_bytes(p, &p.body);
        }
        if self.workspace > 0 {
            let _ = write!(
                self.out.text,
                "// {WORKSPACE}: {} bytes of global memory, the last parameter. A2A3 has no TMOV\n\
                 // from an Acc tile to a Vec tile, so a cube result reaches the vector unit\n\
                 // through it: TSTORE from the Acc tile, then TLOAD into the Vec tile.\n",
                self.workspace
            );
        }
        // pto-isa's entry header comes first: `common/pto_instr.hpp` alone does not compile.
        self.out.line(l0, "#include <pto/pto-inst.hpp>");
        self.out.line(l0, "#include \"common/pto_instr.hpp\"");
        self.out.line(l0, "using namespace pto;");
        self.out.line(l0, "");
        self.put("__global__ AICORE void ");
        if !push_cpp_ident(&mut self.out.text, &f.name) {
            self.put("kernel");
        }
        self.put("(");
        for (i, q) in f.sig.params.iter().enumerate() {
            self.out.sep(i);
            match &m.values[q.value].ty {
                Type::Tensor(t) => {
                    self.put("__gm__ ");
                    self.put(cpp_dtype(t.dtype));
                    self.put("* ");
                }
                Type::Tile(t) => {
                    self.put("__gm__ ");
                    self.put(cpp_dtype(t.dtype));
                    self.put("* ");
                }
                t => {
                    self.put(cpp_dtype(t.dtype().unwrap_or(DataType::Fp32)));
                    self.put(" ");
                }
            }
            self.name(q.value);
        }
        for (i, &d) in f.dims.iter().enumerate() {
            self.out.sep(f.sig.params.len() + i);
            self.put(cpp_dtype(self.dtype(d)));
            self.put(" ");
            self.name(d);
            self.put(" /* symbolic dimension */");
        }
        for (i, t) in f.sig.returns.iter().enumerate() {
            self.out.sep(f.sig.params.len() + f.dims.len() + i);
            self.put("__gm__ ");
            self.put(cpp_dtype(t.dtype().unwrap_or(DataType::Fp32)));
            let _ = write!(self.out, "* ret{i}");
        }
        if self.workspace > 0 {
            let n = f.sig.params.len() + f.dims.len() + f.sig.returns.len();
            self.out.sep(n);
            let _ = write!(self.out, "__gm__ uint8_t* {WORKSPACE}");
        }
        self.put(") {\n");
        let l1 = l0.next();
        for s in p.tiles.iter().chain(&p.scratch) {
            self.declare(l1, s, &s.name, s.valid);
        }
        // Row-major `[1, R]` views of the `[R, 1]` column-major tiles that elementwise and
        // scalar instructions use: those require row-major tiles.
        let mut cols = Vec::new();
        column_tiles(p, &p.body, &mut cols);
        for t in cols {
            if let Some(s) = p.tile(t) {
                let v = row_view(s);
                self.declare(l1, &v, &v.name, v.valid);
            }
        }
        // pto-isa fills only Vec and Mat tiles, so an accumulator "filled with zero" is a
        // flag instead: the next matmul into it starts the sum (`TMATMUL`) rather than
        // adding to it (`TMATMUL_ACC`).
        let mut zeroed = Vec::new();
        zero_filled_accs(p, &p.body, &mut zeroed);
        for t in &zeroed {
            if let Some(s) = p.tile(*t) {
                self.out.line(l1, &format!("bool {}_zero = false;", s.name));
            }
        }
        self.zeroed = zeroed;
        self.insts(&p.body, l1);
        self.out.line(l0, "}");
    }

    /// `Tile<..> name(dynamic extents); TASSIGN(name, addr);`: a tile object over slot `s`'s
    /// memory with valid dimensions `valid`, constructed with the slot's extents for the
    /// dynamic ones (pto-isa has a constructor per number of dynamic valid dimensions).
    fn declare(&mut self, l: Level, s: &TileSlot, name: &str, valid: [Option<u64>; 2]) {
        self.out.indent(l);
        let a5 = self.a5();
        put_tile_type_valid(&mut self.out, s, valid, a5);
        self.put(" ");
        self.put(name);
        match valid {
            [None, None] => {
                let _ = write!(self.out, "({}, {})", s.rows, s.cols);
            }
            [None, Some(_)] => {
                let _ = write!(self.out, "({})", s.rows);
            }
            [Some(_), None] => {
                let _ = write!(self.out, "({})", s.cols);
            }
            [Some(_), Some(_)] => {}
        }
        self.put(";\n");
        self.out.indent(l);
        self.put("TASSIGN(");
        self.put(name);
        self.put(", 0x");
        push_hex(&mut self.out.text, s.addr);
        self.put("); // ");
        self.out.put_u64(s.bytes);
        self.put(" bytes of ");
        self.put(s.space.name());
        self.put("\n");
    }

    fn insts(&mut self, insts: &[Inst], l: Level) {
        for i in insts {
            self.inst(i, l);
        }
    }

    /// One extent of a tensor for a stride expression.
    fn dim(&mut self, d: &Dim) {
        match d {
            Dim::Const(c) => self.out.put_u64(*c),
            Dim::Value(v) => {
                self.put("static_cast<int64_t>(");
                self.name(*v);
                self.put(")");
            }
            Dim::Dynamic => self.put("0"),
        }
    }

    /// The row-major stride of dimension `k`: `1 * d3 * d2` for the extents after it.
    fn stride(&mut self, shape: &[Dim], k: usize) {
        self.put("1");
        for d in shape[k + 1..].iter().rev() {
            self.put(" * ");
            self.dim(d);
        }
    }

    /// Runs `f` writing into the output and returns what it wrote instead.
    fn text(&mut self, f: impl FnOnce(&mut Self)) -> String {
        let start = self.out.text.len();
        f(self);
        self.out.text.split_off(start)
    }

    /// The C++ expression of valid dimension `k` (0: rows, 1: columns) of a tile operand:
    /// the constant when the slot's is static, else `t.GetValidRow()` / `t.GetValidCol()`.
    fn vdim(&self, t: TileRef, k: usize) -> String {
        match t {
            TileRef::Slot(id) => match self.p.tile(id) {
                Some(s) => match s.valid[k] {
                    Some(c) => c.to_string(),
                    None => format!(
                        "static_cast<int64_t>({}.{}())",
                        s.name,
                        if k == 0 { "GetValidRow" } else { "GetValidCol" }
                    ),
                },
                None => "0".into(),
            },
            TileRef::Param(v) => {
                let rc = self.m.values[v].ty.as_tile().map(|t| t.rows_cols());
                rc.map_or(0, |(r, c)| if k == 0 { r } else { c })
                    .to_string()
            }
        }
    }

    /// Sets the valid region of slot `dst` to `rows x cols` (C++ expressions): nothing for a
    /// static dimension (the IR proved it), else `SetValidShape` / `SetValidRow` /
    /// `SetValidCol`, whichever the slot's dynamic dimensions allow.
    fn set_region(&mut self, l: Level, dst: TileId, rows: &str, cols: &str) {
        let Some(s) = self.p.tile(dst) else { return };
        let line = match s.valid {
            [None, None] => format!("{}.SetValidShape({rows}, {cols});", s.name),
            [None, Some(_)] => format!("{}.SetValidRow({rows});", s.name),
            [Some(_), None] => format!("{}.SetValidCol({cols});", s.name),
            [Some(_), Some(_)] => return,
        };
        self.out.line(l, &line);
    }

    /// The extent of a transfer window in tensor dimension `k`: the window's, clamped to what
    /// is left of the tensor after the offset.
    fn window_extent(&mut self, shape: &[Dim], k: usize, off: Option<Index>, w: u64) -> String {
        let off = off.unwrap_or(Index::Const(0));
        if let (Some(Dim::Const(n)), Index::Const(o)) = (shape.get(k), off) {
            return n.saturating_sub(o).min(w).to_string();
        }
        let n = match shape.get(k) {
            Some(d) => self.text(|me| me.dim(d)),
            None => "1".into(),
        };
        let o = self.text(|me| {
            me.put("static_cast<int64_t>(");
            me.index(off);
            me.put(")");
        });
        format!("({n} - {o} < {w} ? {n} - {o} : {w})")
    }

    /// Declares a `GlobalTensor` `gtN` of `tensor` at `offsets` whose 5-D shape is `exts`
    /// (the window's extents per tensor dimension, clamped to the tensor), all dynamic: an
    /// edge window is smaller than the tile and pto-isa's `TLOAD` / `TSTORE` require the
    /// shape to equal the tile's valid region. Strides are static where the tensor's extents
    /// are. `None` when `tensor` is not one.
    fn global(
        &mut self,
        l: Level,
        tensor: ValueId,
        offsets: &[Index],
        exts: &[String],
    ) -> Option<u32> {
        let m = self.m;
        let Type::Tensor(t) = &m.values[tensor].ty else {
            return None;
        };
        let n = t.shape.len().clamp(1, 5);
        let id = self.next_gt;
        self.next_gt += 1;
        // Strides of the tensor's dimensions, outermost first: static or a runtime product.
        let mut strides: Vec<(Option<u64>, String)> = Vec::with_capacity(n);
        for k in 0..n {
            let after = t.shape.get(k + 1..).unwrap_or(&[]);
            let st = after
                .iter()
                .map(|d| d.as_const())
                .try_fold(1u64, |a, d| d.map(|d| a * d));
            let text = self.text(|me| me.stride(&t.shape, k));
            strides.push((st, text));
        }
        let lead = 5 - n;
        let mut ty = format!("GlobalTensor<{}, Shape<", cpp_dtype(t.dtype));
        for k in 0..5 {
            ty.push_str(if k < lead { "1" } else { "DYNAMIC" });
            ty.push_str(if k < 4 { ", " } else { ">, Stride<" });
        }
        for k in 0..5usize {
            match k.checked_sub(lead).and_then(|j| strides.get(j)) {
                Some((Some(c), _)) => {
                    let _ = write!(ty, "{c}");
                }
                Some((None, _)) => ty.push_str("DYNAMIC"),
                None => ty.push('1'),
            }
            ty.push_str(if k < 4 { ", " } else { ">>" });
        }
        self.out.line(l, &format!("using GT{id} = {ty};"));
        self.out.indent(l);
        let _ = write!(self.out, "GT{id} gt{id}(");
        self.name(tensor);
        self.put(" + ");
        let terms = offsets.len().min(t.shape.len());
        if terms == 0 {
            self.put("0");
        }
        for (k, &o) in offsets.iter().take(terms).enumerate() {
            if k > 0 {
                self.put(" + ");
            }
            self.put("static_cast<int64_t>(");
            self.index(o);
            self.put(") * (");
            self.stride(&t.shape, k);
            self.put(")");
        }
        self.put(", {");
        self.put(&exts.join(", "));
        self.put("}");
        let dynamic: Vec<&str> = strides
            .iter()
            .filter(|s| s.0.is_none())
            .map(|s| s.1.as_str())
            .collect();
        if !dynamic.is_empty() {
            self.put(", {");
            self.put(&dynamic.join(", "));
            self.put("}");
        }
        self.put(");\n");
        Some(id)
    }

    /// The clamped window extents of a transfer, one per tensor dimension.
    fn extents(&mut self, tensor: ValueId, offsets: &[Index], window: &[u64]) -> Vec<String> {
        let shape = match &self.m.values[tensor].ty {
            Type::Tensor(t) => t.shape.to_vec(),
            _ => Vec::new(),
        };
        (0..window.len().max(1))
            .map(|k| {
                let w = window.get(k).copied().unwrap_or(1);
                self.window_extent(&shape, k, offsets.get(k).copied(), w)
            })
            .collect()
    }

    /// Declares `const int64_t eK = ..;` for each extent that is not a number, and names it.
    fn name_extents(&mut self, l: Level, exts: &mut [String], prefix: &str) {
        for (k, e) in exts.iter_mut().enumerate() {
            if e.parse::<u64>().is_err() {
                self.out
                    .line(l, &format!("const int64_t {prefix}{k} = {e};"));
                *e = format!("{prefix}{k}");
            }
        }
    }

    /// `TLOAD`: the tile's valid region becomes the in-bounds part of the window, and the
    /// `GlobalTensor` has exactly that shape.
    fn load(&mut self, l: Level, dst: TileId, tensor: ValueId, offsets: &[Index], window: &[u64]) {
        let mut exts = self.extents(tensor, offsets, window);
        self.out.line(l, "{");
        let l1 = l.next();
        self.name_extents(l1, &mut exts, "e");
        let (cols, lead) = exts
            .split_last()
            .map_or(("1".to_string(), &[][..]), |(c, lead)| (c.clone(), lead));
        let rows = if lead.is_empty() {
            "1".to_string()
        } else {
            lead.join(" * ")
        };
        self.set_region(l1, dst, &rows, &cols);
        let g = self.global(l1, tensor, offsets, &exts);
        self.out.indent(l1);
        self.put("TLOAD(");
        self.tile(dst);
        self.put(", ");
        self.global_ref(g);
        self.put(");\n");
        self.out.line(l, "}");
    }

    /// `TSTORE`: writes the tile's valid region clipped to the tensor, through a view of
    /// the tile whose valid region is exactly the `GlobalTensor`'s shape.
    fn store(
        &mut self,
        l: Level,
        src: TileRef,
        tensor: ValueId,
        offsets: &[Index],
        window: &[u64],
    ) {
        let mut exts = self.extents(tensor, offsets, window);
        let TileRef::Slot(id) = src else {
            self.out
                .line(l, "// a tile parameter cannot be stored from the kernel");
            return;
        };
        let Some(slot) = self.p.tile(id).cloned() else {
            return;
        };
        self.out.line(l, "{");
        let l1 = l.next();
        let (vr, vc) = (self.vdim(src, 0), self.vdim(src, 1));
        self.name_extents(l1, &mut exts, "w");
        let n = exts.len();
        if let Some(c) = exts.last_mut() {
            *c = cpp_min(&vc, c);
        }
        if n >= 2 {
            exts[n - 2] = cpp_min(&vr, &exts[n - 2]);
        }
        self.name_extents(l1, &mut exts, "e");
        let rows = if n >= 2 {
            exts[..n - 1].join(" * ")
        } else {
            "1".into()
        };
        let cols = exts.last().cloned().unwrap_or_else(|| "1".into());
        self.out.indent(l1);
        let a5 = self.a5();
        put_tile_type_valid(&mut self.out, &slot, [None, None], a5);
        let _ = writeln!(self.out.text, " sv({rows}, {cols});");
        self.out.indent(l1);
        self.put("TASSIGN(sv, 0x");
        push_hex(&mut self.out.text, slot.addr);
        self.put(");\n");
        let g = self.global(l1, tensor, offsets, &exts);
        self.out.indent(l1);
        self.put("TSTORE(");
        self.global_ref(g);
        self.put(", sv);\n");
        self.out.line(l, "}");
    }

    /// `TMOV` Acc -> Vec on A2A3, which has no such instruction: the Acc tile's valid region
    /// goes to the GM workspace (`TSTORE`, FIX pipe) and comes back into the Vec tile
    /// (`TLOAD`, MTE2 pipe), with barriers so the load sees the store and nothing reads the
    /// Vec tile before the load. The two units share the kernel here; a kernel split into
    /// cube and vector cores would put `ffts_cross_core_sync` / `wait_flag_dev` there instead.
    fn through_workspace(&mut self, l: Level, dst: TileId, src: TileId) {
        let (Some(from), Some(to)) = (self.p.tile(src).cloned(), self.p.tile(dst).cloned()) else {
            return;
        };
        let ty = cpp_dtype(from.dtype);
        self.out.line(l, "{");
        let l1 = l.next();
        let (r, c) = (
            self.vdim(TileRef::Slot(src), 0),
            self.vdim(TileRef::Slot(src), 1),
        );
        self.out
            .line(l1, &format!("const int64_t r0 = {r}, c0 = {c};"));
        self.out.indent(l1);
        let a5 = self.a5();
        put_tile_type_valid(&mut self.out, &from, [None, None], a5);
        self.put(" sv(r0, c0);\n");
        self.out.indent(l1);
        self.put("TASSIGN(sv, 0x");
        push_hex(&mut self.out.text, from.addr);
        self.put(");\n");
        let id = self.next_gt;
        self.next_gt += 1;
        self.out.line(
            l1,
            &format!(
                "using GT{id} = GlobalTensor<{ty}, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, {}, 1>>;",
                from.cols
            ),
        );
        self.out.line(
            l1,
            &format!("GT{id} gt{id}(reinterpret_cast<__gm__ {ty}*>({WORKSPACE}), {{r0, c0}});"),
        );
        self.out.line(l1, &format!("TSTORE(gt{id}, sv);"));
        self.out.line(l1, "pipe_barrier(PIPE_ALL);");
        self.set_region(l1, dst, "r0", "c0");
        self.out.line(l1, &format!("TLOAD({}, gt{id});", to.name));
        self.out.line(l1, "pipe_barrier(PIPE_ALL);");
        self.out.line(l, "}");
    }

    /// The view [`Writer::global`] declared, by name.
    fn global_ref(&mut self, g: Option<u32>) {
        match g {
            Some(id) => {
                self.put("gt");
                self.out.put_u64(u64::from(id));
            }
            None => self.put("/* not a tensor */"),
        }
    }

    fn arg(&mut self, x: Arg, dty: DataType) {
        match x {
            Arg::Tile(t) => self.tref(t),
            Arg::Scalar(v) => self.scalar_as(v, dty),
            Arg::Imm(f) => self.lit(Constant::Double(f), dty),
        }
    }

    /// The valid region an instruction gives its destination, from its sources' regions
    /// `src[k] = (rows, cols)` (C++ expressions); `None` when the destination keeps its
    /// own (a fill). The same rules as `pto::isa` and the interpreter (`docs/guide.md`
    /// section 5).
    fn result_region(
        &self,
        isa: Isa,
        dst: TileId,
        src: &[(String, String)],
    ) -> Option<(String, String)> {
        let (min, max) = (cpp_min, cpp_max);
        let own = |k: usize| self.vdim(TileRef::Slot(dst), k);
        let (a, b) = (src.first()?, src.get(1));
        use Isa::*;
        Some(match isa {
            TExpandS => return None,
            _ if isa.partial_form().is_some() => {
                let b = b?;
                (max(&a.0, &b.0), max(&a.1, &b.1))
            }
            _ if isa.is_binary() => {
                let b = b?;
                (min(&a.0, &b.0), min(&a.1, &b.1))
            }
            TRowSum | TRowMax | TRowMin => (a.0.clone(), "1".into()),
            TColSum | TColMax | TColMin => ("1".into(), a.1.clone()),
            TRowExpand => (a.0.clone(), own(1)),
            TColExpand => (own(0), a.1.clone()),
            TRowExpandAdd | TRowExpandSub | TRowExpandMul | TRowExpandDiv | TRowExpandMax
            | TRowExpandMin => (min(&a.0, &b?.0), a.1.clone()),
            TColExpandAdd | TColExpandSub | TColExpandMul | TColExpandDiv | TColExpandMax
            | TColExpandMin => (a.0.clone(), min(&a.1, &b?.1)),
            TTrans => (a.1.clone(), a.0.clone()),
            TMatmul | TMatmulBias => (a.0.clone(), b?.1.clone()),
            // `c = c_in + a * b`: the product covers `a`'s rows and `b`'s columns, and the
            // accumulator keeps what lies outside them (section 5's rule for sums).
            TMatmulAcc => {
                let (x, y) = (b?, src.get(2)?);
                (max(&a.0, &x.0), max(&a.1, &y.1))
            }
            _ => a.clone(),
        })
    }

    /// A compute instruction: the destination's valid region set from the sources' (read
    /// into locals first, since the destination may be a source), then the call. Column
    /// tiles go through their row-major views; an accumulating op whose operands' regions
    /// may differ is the `TPART*` form, with an aliased operand read through a view that
    /// keeps its own region.
    fn op(&mut self, l: Level, isa: Isa, dst: TileId, args: &[Arg]) {
        let Some(dslot) = self.p.tile(dst).cloned() else {
            return;
        };
        if isa == Isa::TMov
            && self.workspace > 0
            && let Some(src) = acc_to_vec(self.p, dst, args)
        {
            self.through_workspace(l, dst, src);
            return;
        }
        if self.zeroed.contains(&dst) && isa == Isa::TExpandS {
            self.out.line(
                l,
                &format!("{}_zero = true; // the accumulator is zero", dslot.name),
            );
            return;
        }
        if let (Isa::TMatmulAcc, [Arg::Tile(TileRef::Slot(c_in)), a, b]) = (isa, args)
            && self.zeroed.contains(c_in)
        {
            let flag = self
                .p
                .tile(*c_in)
                .map(|s| format!("{}_zero", s.name))
                .unwrap_or_default();
            self.out.line(l, &format!("if ({flag}) {{"));
            self.op_plain(l.next(), Isa::TMatmul, dst, &[*a, *b]);
            self.out.line(l, "} else {");
            self.op_plain(l.next(), isa, dst, args);
            self.out.line(l, "}");
            if self.zeroed.contains(&dst) {
                self.out.line(l, &format!("{}_zero = false;", dslot.name));
            }
            return;
        }
        self.op_plain(l, isa, dst, args);
        if self.zeroed.contains(&dst) {
            // Anything else written into the accumulator replaces the zero.
            self.out.line(l, &format!("{}_zero = false;", dslot.name));
        }
    }

    /// [`Writer::op`] once the accumulator flags are dealt with.
    fn op_plain(&mut self, l: Level, isa: Isa, dst: TileId, args: &[Arg]) {
        let Some(dslot) = self.p.tile(dst).cloned() else {
            return;
        };
        let dty = dslot.dtype;
        let column = is_elementwise(isa) && is_column(&dslot);
        let tiles: Vec<TileRef> = args
            .iter()
            .filter_map(|a| match a {
                Arg::Tile(t) => Some(*t),
                _ => None,
            })
            .collect();
        let regions: Vec<(String, String)> = tiles
            .iter()
            .map(|&t| (self.vdim(t, 0), self.vdim(t, 1)))
            .collect();
        let statically_equal = regions.windows(2).all(|w| w[0] == w[1])
            && regions
                .iter()
                .all(|(r, c)| r.parse::<u64>().is_ok() && c.parse::<u64>().is_ok());
        let partial = isa
            .partial_form()
            .filter(|_| tiles.len() == 2 && !statically_equal);
        let direct = self.result_region(isa, dst, &regions);
        let own = (
            self.vdim(TileRef::Slot(dst), 0),
            self.vdim(TileRef::Slot(dst), 1),
        );
        let unchanged = direct.as_ref().is_none_or(|r| *r == own);
        if !column && partial.is_none() && (unchanged || !tiles.contains(&TileRef::Slot(dst))) {
            // No source sees the destination's region change: set it and call.
            if let (false, Some((r, c))) = (unchanged, &direct) {
                self.set_region(l, dst, r, c);
            }
            let names = tiles.iter().map(|&t| self.text(|me| me.tref(t))).collect();
            self.call(l, isa, isa.name(), &dslot.name, dty, args, names, &tiles);
            return;
        }
        self.out.line(l, "{");
        let l1 = l.next();
        // The sources' regions, read before the destination's changes.
        let mut locals = Vec::with_capacity(regions.len());
        for (k, (r, c)) in regions.iter().enumerate() {
            self.out
                .line(l1, &format!("const int64_t r{k} = {r}, c{k} = {c};"));
            locals.push((format!("r{k}"), format!("c{k}")));
        }
        let region = self.result_region(isa, dst, &locals);
        // The name each tile operand is read through.
        let mut names = Vec::with_capacity(tiles.len());
        for (k, &t) in tiles.iter().enumerate() {
            let slot = match t {
                TileRef::Slot(id) => self.p.tile(id).cloned(),
                TileRef::Param(_) => None,
            };
            let Some(slot) = slot else {
                names.push(self.text(|me| me.tref(t)));
                continue;
            };
            let aliased = t == TileRef::Slot(dst) && partial.is_some();
            if column {
                let view = row_view(&slot);
                if aliased {
                    let name = format!("in{k}");
                    self.declare_at(l1, &view, &name, &["1".into(), locals[k].0.clone()]);
                    names.push(name);
                } else {
                    self.out
                        .line(l1, &format!("{}.SetValidCol({});", view.name, locals[k].0));
                    names.push(view.name);
                }
            } else if aliased && slot.valid.iter().any(Option::is_none) {
                let name = format!("in{k}");
                self.declare_at(
                    l1,
                    &slot,
                    &name,
                    &[locals[k].0.clone(), locals[k].1.clone()],
                );
                names.push(name);
            } else {
                names.push(slot.name.clone());
            }
        }
        if let Some((r, c)) = &region {
            self.set_region(l1, dst, r, c);
            if column {
                self.out
                    .line(l1, &format!("{}_row.SetValidCol({r});", dslot.name));
            }
        }
        let dst_name = if column {
            format!("{}_row", dslot.name)
        } else {
            dslot.name.clone()
        };
        self.call(
            l1,
            isa,
            partial.unwrap_or(isa.name()),
            &dst_name,
            dty,
            args,
            names,
            &tiles,
        );
        self.out.line(l, "}");
    }

    /// `NAME(dst, args..);` (`name` is `isa`'s spelling or its partial form) with the tile
    /// operands read through `names`, and the scratch tile last for the instructions that
    /// take one.
    #[allow(clippy::too_many_arguments)]
    fn call(
        &mut self,
        l: Level,
        isa: Isa,
        name: &str,
        dst: &str,
        dty: DataType,
        args: &[Arg],
        names: Vec<String>,
        tiles: &[TileRef],
    ) {
        self.out.indent(l);
        self.put(name);
        self.put("(");
        self.put(dst);
        let mut next_tile = names.into_iter();
        for &x in args {
            self.put(", ");
            match x {
                Arg::Tile(_) => {
                    let n = next_tile.next().unwrap_or_default();
                    self.put(&n);
                }
                other => self.arg(other, dty),
            }
        }
        if isa.needs_scratch() {
            let src = tiles.first().and_then(|t| match t {
                TileRef::Slot(id) => self.p.tile(*id),
                TileRef::Param(_) => None,
            });
            let scratch = src.and_then(|src| {
                self.p
                    .scratch
                    .iter()
                    .find(|s| s.dtype == src.dtype && s.rows == src.rows && s.cols == src.cols)
            });
            if let Some(s) = scratch {
                self.put(", ");
                self.put(&s.name);
            }
        }
        self.put(");\n");
    }

    /// Declares a tile object named `name` over slot `s`'s memory whose valid dimensions
    /// are all dynamic, constructed with `valid` (C++ expressions).
    fn declare_at(&mut self, l: Level, s: &TileSlot, name: &str, valid: &[String; 2]) {
        self.out.indent(l);
        let a5 = self.a5();
        put_tile_type_valid(&mut self.out, s, [None, None], a5);
        let _ = writeln!(self.out.text, " {name}({}, {});", valid[0], valid[1]);
        self.out.indent(l);
        let _ = write!(self.out.text, "TASSIGN({name}, 0x");
        push_hex(&mut self.out.text, s.addr);
        self.put(");\n");
    }

    /// `TEXTRACT(dst, src, r, c);` and the like.
    fn tile_at(&mut self, l: Level, f: &str, dst: TileId, src: TileRef, at: [Index; 2]) {
        self.out.indent(l);
        self.put(f);
        self.put("(");
        self.tile(dst);
        self.put(", ");
        self.tref(src);
        self.put(", ");
        self.index(at[0]);
        self.put(", ");
        self.index(at[1]);
        self.put(");\n");
    }

    fn inst(&mut self, i: &Inst, l: Level) {
        match i {
            Inst::Op { isa, dst, args } => self.op(l, *isa, *dst, args),
            Inst::Load {
                dst,
                tensor,
                offsets,
                window,
            } => self.load(l, *dst, *tensor, offsets, window),
            Inst::Store {
                tensor,
                src,
                offsets,
                window,
            } => self.store(l, *src, *tensor, offsets, window),
            Inst::Extract { dst, src, at } => {
                // The window's part inside the source's valid region.
                if let Some(d) = self.p.tile(*dst) {
                    let (rows, cols) = (d.rows.to_string(), d.cols.to_string());
                    let mut ext = [String::new(), String::new()];
                    for (k, lim) in [rows, cols].iter().enumerate() {
                        let v = self.vdim(*src, k);
                        let o = self.text(|me| me.index(at[k]));
                        let left = match (v.parse::<u64>(), o.parse::<u64>()) {
                            (Ok(v), Ok(o)) => v.saturating_sub(o).to_string(),
                            _ => format!("({v} > {o} ? {v} - {o} : 0)"),
                        };
                        ext[k] = cpp_min(&left, lim);
                    }
                    self.set_region(l, *dst, &ext[0], &ext[1]);
                }
                self.tile_at(l, "TEXTRACT", *dst, *src, *at)
            }
            Inst::Insert { dst, src, at } => self.tile_at(l, "TINSERT", *dst, *src, *at),
            Inst::Cvt { dst, src, round } => {
                let (r, c) = (self.vdim(*src, 0), self.vdim(*src, 1));
                self.set_region(l, *dst, &r, &c);
                self.out.indent(l);
                self.put("TCVT(");
                self.tile(*dst);
                self.put(", ");
                self.tref(*src);
                self.put(", RoundMode::");
                self.put(round.cpp());
                self.put(");\n");
            }
            Inst::SetValid { dst, dims } => {
                let r = self.text(|me| me.index(dims[0]));
                let c = self.text(|me| me.index(dims[1]));
                self.set_region(l, *dst, &r, &c);
            }
            Inst::FullValid(t) => {
                if let Some(s) = self.p.tile(*t) {
                    let (r, c) = (s.rows.to_string(), s.cols.to_string());
                    self.set_region(l, *t, &r, &c);
                }
            }
            Inst::SetFlag(e) => self.event(l, true, *e),
            Inst::WaitFlag(e) => self.event(l, false, *e),
            Inst::Barrier(p) => {
                self.out.indent(l);
                self.put("pipe_barrier(");
                self.put(pipe_cpp(*p));
                self.put(");\n");
            }
            Inst::Scalar { op, result, args } => {
                self.out.indent(l);
                self.put(cpp_dtype(self.dtype(*result)));
                self.put(" ");
                self.name(*result);
                self.put(" = ");
                self.scalar_op(*op, *result, args);
                self.put(";\n");
            }
            Inst::Assign(pairs) => {
                if let [(d, s)] = pairs.as_slice() {
                    self.out.indent(l);
                    self.name(*d);
                    self.put(" = ");
                    self.scalar_as(*s, self.dtype(*d));
                    self.put(";\n");
                } else {
                    self.out.line(l, "{");
                    for (k, &(d, s)) in pairs.iter().enumerate() {
                        self.out.indent(l.next());
                        self.put(cpp_dtype(self.dtype(d)));
                        self.put(" tmp");
                        self.out.put_u64(k as u64);
                        self.put(" = ");
                        self.scalar_as(s, self.dtype(d));
                        self.put(";\n");
                    }
                    for (k, &(d, _)) in pairs.iter().enumerate() {
                        self.out.indent(l.next());
                        self.name(d);
                        self.put(" = tmp");
                        self.out.put_u64(k as u64);
                        self.put(";\n");
                    }
                    self.out.line(l, "}");
                }
            }
            Inst::For {
                iv,
                lb,
                ub,
                step,
                carried,
                body,
                results,
            } => {
                self.carried(carried, l);
                self.out.indent(l);
                self.put("for (");
                self.put(cpp_dtype(self.dtype(*iv)));
                self.put(" ");
                self.name(*iv);
                self.put(" = ");
                self.scalar(*lb);
                self.put("; ");
                self.name(*iv);
                self.put(" < ");
                self.scalar(*ub);
                self.put("; ");
                self.name(*iv);
                self.put(" += ");
                self.scalar(*step);
                self.put(") {\n");
                self.insts(body, l.next());
                self.out.line(l, "}");
                self.results(results, l);
            }
            Inst::While {
                carried,
                cond,
                cond_value,
                body,
                results,
            } => {
                self.carried(carried, l);
                self.out.line(l, "while (true) {");
                self.insts(cond, l.next());
                self.out.indent(l.next());
                self.put("if (!");
                self.scalar(*cond_value);
                self.put(") break;\n");
                self.insts(body, l.next());
                self.out.line(l, "}");
                self.results(results, l);
            }
            Inst::If {
                cond,
                then_body,
                else_body,
                results,
            } => {
                for &r in results {
                    self.out.indent(l);
                    self.put(cpp_dtype(self.dtype(r)));
                    self.put(" ");
                    self.name(r);
                    self.put(";\n");
                }
                self.out.indent(l);
                self.put("if (");
                self.scalar(*cond);
                self.put(") {\n");
                self.insts(then_body, l.next());
                self.out.line(l, "} else {");
                self.insts(else_body, l.next());
                self.out.line(l, "}");
            }
            Inst::Break => self.out.line(l, "break;"),
            Inst::Continue => self.out.line(l, "continue;"),
            Inst::Return(vals) => {
                for (i, &v) in vals.iter().enumerate() {
                    self.out.indent(l);
                    let _ = write!(self.out, "*ret{i} = ");
                    self.scalar(v);
                    self.put(";\n");
                }
                self.out.line(l, "return;");
            }
        }
    }

    fn carried(&mut self, carried: &[(ValueId, ValueId)], l: Level) {
        for &(a, init) in carried {
            let d = self.dtype(a);
            self.out.indent(l);
            self.put(cpp_dtype(d));
            self.put(" ");
            self.name(a);
            self.put(" = ");
            self.scalar_as(init, d);
            self.put(";\n");
        }
    }

    fn results(&mut self, results: &[(ValueId, ValueId)], l: Level) {
        for &(r, a) in results {
            self.out.indent(l);
            self.put(cpp_dtype(self.dtype(r)));
            self.put(" ");
            self.name(r);
            self.put(" = ");
            self.name(a);
            self.put(";\n");
        }
    }

    /// An optional scalar operand (nothing when it is missing).
    fn operand(&mut self, v: Option<ValueId>) {
        if let Some(v) = v {
            self.scalar(v);
        }
    }

    /// Writes a scalar op's C++ expression template: its text, and the operands `a` / `b`
    /// where marked.
    fn template(&mut self, pieces: &[Piece<'_>], a: Option<ValueId>, b: Option<ValueId>) {
        for p in pieces {
            match *p {
                Piece::Text(s) => self.put(s),
                Piece::A => self.operand(a),
                Piece::B => self.operand(b),
            }
        }
    }

    fn scalar_op(&mut self, op: Opcode, result: ValueId, args: &[ValueId]) {
        use Opcode::*;
        use Piece::{A, B, Text as T};
        let a = args.first().copied();
        let b = args.get(1).copied();
        if let Some(o) = binary_operator(op) {
            return self.template(&[T("("), A, T(" "), T(o), T(" "), B, T(")")], a, b);
        }
        let cast;
        let helper;
        let pieces: &[Piece<'_>] = match op.info().sem {
            // The semantics module's functions, by name (see `SCALAR_HELPERS`).
            Sem::Binary(
                k @ (Binary::Div
                | Binary::Rem
                | Binary::FloorDiv
                | Binary::FloorMod
                | Binary::Min
                | Binary::Max),
            ) => {
                let ty = cpp_dtype(self.dtype(result));
                helper = [
                    T("pto_rs::"),
                    T(k.fn_name()),
                    T("<"),
                    T(ty),
                    T(">("),
                    A,
                    T(", "),
                    B,
                    T(")"),
                ];
                &helper
            }
            _ => match op {
                ScalarPow => &[T("__builtin_pow("), A, T(", "), B, T(")")],
                ScalarNeg => &[T("(-"), A, T(")")],
                ScalarAbs => &[T("("), A, T(" < 0 ? -"), A, T(" : "), A, T(")")],
                ScalarNot => &[T("(!"), A, T(")")],
                ScalarBitNot => &[T("(~"), A, T(")")],
                ScalarCast => {
                    let to_d = self.dtype(result);
                    let from = a.map(|v| self.dtype(v));
                    let to = cpp_dtype(to_d);
                    // Float to integer is Rust's `as` (saturating, NaN to 0); C++'s cast is
                    // undefined out of range.
                    let saturate = from
                        .is_some_and(|f| matches!(f, DataType::Fp32 | DataType::Fp64))
                        && to_d.is_int();
                    cast = if saturate {
                        [T("pto_rs::cast_trunc<"), T(to), T(">("), A, T(")")]
                    } else {
                        [T("static_cast<"), T(to), T(">("), A, T(")")]
                    };
                    &cast
                }
                _ => &[A],
            },
        };
        self.template(pieces, a, b);
    }
}

/// The C++ infix operator of a binary scalar op (the semantics module's helpers for the rest).
fn binary_operator(op: Opcode) -> Option<&'static str> {
    use Opcode::*;
    Some(match op {
        ScalarAdd => "+",
        ScalarSub => "-",
        ScalarMul => "*",
        ScalarEq => "==",
        ScalarNe => "!=",
        ScalarLt => "<",
        ScalarLe => "<=",
        ScalarGt => ">",
        ScalarGe => ">=",
        ScalarAnd => "&&",
        ScalarOr => "||",
        ScalarXor => "!=",
        ScalarBitAnd => "&",
        ScalarBitOr => "|",
        ScalarBitXor => "^",
        ScalarShl => "<<",
        ScalarShr => ">>",
        _ => return None,
    })
}

/// A piece of a scalar op's C++ expression template.
enum Piece<'s> {
    /// Literal text.
    Text(&'s str),
    /// The first operand.
    A,
    /// The second operand.
    B,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_spells_like_core_fmt() {
        for v in [0, 1, 9, 10, 15, 16, 255, 256, 0x1000, 0x12345, u64::MAX] {
            let mut s = String::new();
            push_hex(&mut s, v);
            assert_eq!(s, format!("{v:x}"));
        }
    }
}
