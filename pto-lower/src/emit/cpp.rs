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
use crate::info::{pipe_cpp, pipe_spelled};
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

/// Writes the `Tile<..>` type of a slot. The fixed text around its numbers comes in three
/// pieces chosen by memory space (and layout), each spelled whole.
fn put_tile_type(out: &mut Out, s: &TileSlot) {
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
        MemorySpace::Mat => parts!("Mat", "ColMajor", "RowMajor", "512"),
        MemorySpace::Left => parts!("Left", "RowMajor", "RowMajor", "512"),
        MemorySpace::Right => parts!("Right", "RowMajor", "ColMajor", "512"),
        MemorySpace::Acc => parts!("Acc", "ColMajor", "RowMajor", "1024"),
    };
    let put_valid = |out: &mut Out, x: Option<u64>| match x {
        Some(c) => out.put_u64(c),
        None => out.put("DYNAMIC"),
    };
    out.put(head);
    out.put(cpp_dtype(s.dtype));
    out.put(", ");
    out.put_u64(s.rows);
    out.put(", ");
    out.put_u64(s.cols);
    out.put(mid);
    put_valid(out, s.valid[0]);
    out.put(", ");
    put_valid(out, s.valid[1]);
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
}

impl Writer<'_> {
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
        self.put(") {\n");
        let l1 = l0.next();
        for s in &p.tiles {
            self.out.indent(l1);
            put_tile_type(&mut self.out, s);
            self.put(" ");
            self.put(&s.name);
            if s.valid.iter().any(Option::is_none) {
                self.put("(");
                self.out.put_u64(s.rows);
                self.put(", ");
                self.out.put_u64(s.cols);
                self.put(")");
            }
            self.put(";\n");
            self.out.indent(l1);
            self.put("TASSIGN(");
            self.put(&s.name);
            self.put(", 0x");
            push_hex(&mut self.out.text, s.addr);
            self.put("); // ");
            self.out.put_u64(s.bytes);
            self.put(" bytes of ");
            self.put(s.space.name());
            self.put("\n");
        }
        self.insts(&p.body, l1);
        self.out.line(l0, "}");
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

    /// Declares a `GlobalTensor` view `gtN` of `tensor` at `offsets` with the tile's `window`
    /// (the row pitch is the static one when it is known); `None` when `tensor` is not one.
    fn global(
        &mut self,
        l: Level,
        tensor: ValueId,
        offsets: &[Index],
        window: &[u64],
    ) -> Option<u32> {
        let m = self.m;
        let Type::Tensor(t) = &m.values[tensor].ty else {
            return None;
        };
        let n = t.shape.len();
        let (rows, cols) = match window.split_last() {
            Some((&c, lead)) => (lead.iter().product::<u64>(), c),
            None => (1, 1),
        };
        let ld_static = t.shape.last().and_then(|d| d.as_const());
        let id = self.next_gt;
        self.next_gt += 1;
        self.out.indent(l);
        self.put("using GT");
        self.out.put_u64(u64::from(id));
        self.put(" = GlobalTensor<");
        self.put(cpp_dtype(t.dtype));
        self.put(", Shape<1, 1, 1, ");
        self.out.put_u64(rows);
        self.put(", ");
        self.out.put_u64(cols);
        self.put(">, Stride<1, 1, 1, ");
        match ld_static {
            Some(ld) => self.out.put_u64(ld),
            None => self.put("DYNAMIC"),
        }
        self.put(", 1>>;\n");
        self.out.indent(l);
        self.put("GT");
        self.out.put_u64(u64::from(id));
        self.put(" gt");
        self.out.put_u64(u64::from(id));
        self.put("(");
        self.name(tensor);
        self.put(" + ");
        let terms = offsets.len().min(n);
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
        if ld_static.is_none() {
            self.put(", ");
            if n >= 2 {
                self.stride(&t.shape, n - 2);
            } else {
                self.put("1");
            }
        }
        self.put(");\n");
        Some(id)
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
            Inst::Op { isa, dst, args } => {
                let dty = self.p.tile(*dst).map_or(DataType::Fp32, |s| s.dtype);
                self.out.indent(l);
                self.put(isa.name());
                self.put("(");
                self.tile(*dst);
                for &x in args {
                    self.put(", ");
                    self.arg(x, dty);
                }
                match args.first() {
                    Some(&src) if isa.is_reduction() || *isa == Isa::TTrans => {
                        self.put(", ");
                        self.arg(src, dty);
                        self.put("); // scratch: the source\n");
                    }
                    _ => self.put(");\n"),
                }
            }
            Inst::Load {
                dst,
                tensor,
                offsets,
                window,
            } => {
                let g = self.global(l, *tensor, offsets, window);
                self.out.indent(l);
                self.put("TLOAD(");
                self.tile(*dst);
                self.put(", ");
                self.global_ref(g);
                self.put(");\n");
            }
            Inst::Store {
                tensor,
                src,
                offsets,
                window,
            } => {
                let g = self.global(l, *tensor, offsets, window);
                self.out.indent(l);
                self.put("TSTORE(");
                self.global_ref(g);
                self.put(", ");
                self.tref(*src);
                self.put(");\n");
            }
            Inst::Extract { dst, src, at } => self.tile_at(l, "TEXTRACT", *dst, *src, *at),
            Inst::Insert { dst, src, at } => self.tile_at(l, "TINSERT", *dst, *src, *at),
            Inst::Cvt { dst, src, round } => {
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
                self.out.indent(l);
                self.tile(*dst);
                self.put(".SetValidShape(");
                self.index(dims[0]);
                self.put(", ");
                self.index(dims[1]);
                self.put(");\n");
            }
            Inst::FullValid(_) => {}
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
                if vals.is_empty() {
                    self.out.line(l, "return;");
                } else {
                    self.out.indent(l);
                    self.put("return; // the kernel returns ");
                    for (i, &v) in vals.iter().enumerate() {
                        self.out.sep(i);
                        self.scalar(v);
                    }
                    self.put(" to the host\n");
                }
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
