//! The PTO-ISA C++ emitter, in the shape the PTO assembler (ptoas) prints
//! (`shared/spec/pto-isa.md`, last section): `#include "common/pto_instr.hpp"`,
//! `using namespace pto;`, `__global__ AICORE void NAME(__gm__ float* x, ...)`, one
//! `Tile<TileType::Vec, float, R, C, BLayout::RowMajor, VR, VC, SLayout::NoneBox, 512,
//! PadValue::Null>` per slot placed with `TASSIGN(t, offset)`, `GlobalTensor` views for every
//! load and store, destination-first intrinsics, `set_flag` / `wait_flag` / `pipe_barrier`,
//! and plain C++ control flow.
//!
//! What pto-isa's own kernels do not have, each said in the output's header comment:
//! symbolic dimensions are extra `int64_t` parameters after the tensors; a kernel's
//! returned scalars are written to one-element GM buffers after them (`pto_ret0`, ...);
//! on A2A3 a kernel with cube and vector work is split into `NAME_aic` and `NAME_aiv`
//! (`lower/split.rs`) that exchange tiles through a GM workspace parameter (`pto_workspace`)
//! under cross-core flags, and the entry takes the FFTS base address last. Reductions and
//! transposes get a scratch tile of their own (bufferize places it), never their source.
//!
//! Where a pto-isa instruction ties an operand's tile type to another's, the operand is read
//! through a view of the type it asks (`inst.rs`): a row sum's source of fewer rows than its
//! column result, whose rows are padded to 32 bytes, with the result's rows, since pto-isa's
//! CPU simulation asserts equal static rows in `TROWSUM` (`info::row_sum_rows`; bufferize
//! reserves the rows). The other candidate, a row-major `R x 8` result with one valid column,
//! is not one: pto-isa's row broadcasts read a row-major per-row operand as a whole 32-byte
//! block per row and want `32 / sizeof(T)` valid columns, so a one-row result reaches them
//! through a column-major view instead (`is_one_element_row`).
//!
//! The `Writer`'s methods live with what they write: `transfer` (global tensor views,
//! loads, stores), `inst` (tile ops, control flow, scalar ops), `cores` (a split kernel's
//! parts and the cube-to-vector transfer), `v2c` (the vector-to-cube transfer), `pad` and
//! `element`.

use std::fmt::Write;

use pto_ir::entity::EntityId;
use pto_ir::{Constant, DataType, MemorySpace, PipeKind, ProgramModule, Type, ValueDef, ValueId};

use super::writer::{Level, Out};
use crate::info::{buffer_extents, pipe_spelled};
use crate::isa::{Arg, Index, Inst, Isa, Program, TileId, TileRef, TileSlot};
use crate::lower::split::Route;
use crate::passes::events::Event;

mod cores;
mod element;
mod handoff;
mod inst;
mod pad;
mod partial;
mod slot;
mod transfer;
mod v2c;

/// Emits the C++ source of `p`.
pub fn emit(p: &Program) -> String {
    emit_as(p, false)
}

/// The C++ of a whole program: the header once, then every function, callees first. The
/// entry is the `__global__` kernel; the others are `AICORE inline` device functions, so a
/// `func.call` is a plain C++ call on the core that runs the entry (the guide says how this
/// maps onto a launch from the orchestration side).
pub fn emit_program(progs: &[&Program], entry: &str) -> String {
    let mut out = String::new();
    let mut bodies = String::new();
    for p in progs {
        let device = p.module.funcs[p.func].name != entry;
        let text = emit_as(p, device);
        // The part after the shared header (`using namespace pto;` and the helpers).
        // The leading comment lines of each function stay with it; the includes and the
        // `using` are written once.
        let head_end = text.find("#include").unwrap_or(0);
        let body = match text.find(USING) {
            Some(at) => {
                if out.is_empty() {
                    out.push_str(text.get(head_end..at + USING.len()).unwrap_or_default());
                }
                let rest = text.get(at + USING.len()..).unwrap_or_default();
                rest.strip_prefix(SCALAR_HELPERS).unwrap_or(rest)
            }
            None => text.as_str(),
        };
        bodies.push('\n');
        bodies.push_str(text.get(..head_end).unwrap_or_default());
        bodies.push_str(body.trim_start_matches('\n'));
    }
    if bodies.contains("pto_rs::") {
        out.push_str(SCALAR_HELPERS);
    }
    out.push_str(&bodies);
    out
}

fn emit_as(p: &Program, device: bool) -> String {
    let mut w = Writer {
        device,
        p,
        m: &p.module,
        out: Out::default(),
        next_gt: 0,
        names: vec![None; p.module.values.len()],
        name_text: String::new(),
        zeroed: Vec::new(),
        loops: Vec::new(),
        workspace: 0,
        part: Part::Whole,
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

/// The name of the GM workspace parameter (see [`workspace_bytes`]). Generated names
/// start with `pto_`; a user's parameter named so is renamed ([`push_cpp_name`]).
pub(super) const WORKSPACE: &str = "pto_workspace";

/// The prefix of the result pointer parameters (`pto_ret0`, ...).
pub(super) const RET: &str = "pto_ret";

/// What function [`Writer::put_signature`] writes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The `__global__` kernel.
    Entry,
    /// A device function of a program, called from its entry.
    Device,
    /// One core's part of a split kernel, named with this suffix (`_aic`, `_aiv`).
    Part(&'static str),
}

/// Which part of the kernel the writer is writing (a `TMOV` Acc -> Vec is written by part).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// The whole kernel on one core.
    Whole,
    /// The cube part of a split kernel: `TMOV` Acc -> Vec pushes.
    Cube,
    /// Vector core 0's part: `TMOV` Acc -> Vec pops into the Vec tile.
    Vector,
    /// Vector core 1's part: `TMOV` Acc -> Vec only takes part in the synchronisation.
    Peer,
}

/// The kernel language's scalar division, remainder, floor forms, min / max and float to
/// integer `as`, as the semantics module (`pto_ir::sem`) defines them: total (by zero:
/// quotient 0, remainder the dividend; `MIN / -1` wraps), `/` and `%` truncating, `min` /
/// `max` ignoring a NaN and ordering `-0` below `+0`, `as` saturating with NaN to 0. C++'s own operators and casts are
/// undefined for those inputs. Also the stop of a kernel whose run-time index is out of
/// bounds (`out_of_bounds`).
const SCALAR_HELPERS: &str = r#"#include <limits>
#include <type_traits>
namespace pto_rs {
template <typename T> constexpr bool is_int = std::is_integral<T>::value;
// Floats compute in float (double for double) and round once to T. `%` and `floor_mod` are
// the NPU's TFMOD / TREM sequences (pto_ir::sem's FloatSem), one rounding per statement, so
// no compiler fuses the multiply into the subtraction.
template <typename T> using arith = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
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
        using F = arith<T>;
        const F x = F(a), y = F(b);
        const F q = F(__builtin_trunc(x / y));
        const F p = q * y;
        return T(x - p);
    }
}
template <typename T> AICORE inline T floor_mod(T a, T b) {
    if constexpr (is_int<T>) {
        T r = rem(a, b);
        if (b != T(0) && r != T(0) && ((r < T(0)) != (b < T(0)))) r = T(r + b);
        return r;
    } else {
        using F = arith<T>;
        const F x = F(a), y = F(b);
        const F q = F(__builtin_floor(x / y));
        const F p = q * y;
        const F r = x - p;
        const F s = r * y;
        return T(s < F(0) ? r + y : r);
    }
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
// Equal zeros: `a + b` is -0 only when both are, `-(-a - b)` when either is (IEEE addition,
// to nearest): maximumNumber's +0, minimumNumber's -0 (pto_ir::sem's float semantics).
template <typename T> AICORE inline T min(T a, T b) {
    if (a == b && a == T(0)) return T(-(-a - b));
    return (b < a || a != a) ? b : a;
}
template <typename T> AICORE inline T max(T a, T b) {
    if (a == b && a == T(0)) return T(a + b);
    return (b > a || a != a) ? b : a;
}
// A run-time index outside its tensor or tile, where the host function returns Err: the
// kernel stops before the access. pto-isa's failed checks trap(); its CPU simulation has no
// trap(), so there the process aborts.
[[noreturn]] AICORE inline void out_of_bounds() {
#if defined(__CPU_SIM)
    __builtin_trap();
#else
    trap();
#endif
}
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

/// The C++ element type of a tile parameter's global memory: its dtype's, except a mask's,
/// which is bytes of packed flags ([`pack_mask`]).
pub fn param_dtype(d: DataType) -> &'static str {
    if d == DataType::Bool {
        "uint8_t"
    } else {
        cpp_dtype(d)
    }
}

/// The bytes of one row of a mask with `cols` columns in global memory: one bit per
/// column.
pub fn mask_row_bytes(cols: u64) -> u64 {
    cols.div_ceil(8)
}

/// A mask parameter's global memory, as the kernel's C++ reads it: `rows` rows of
/// [`mask_row_bytes`] bytes each, flag `(i, j)` (`flags[i * cols + j]`) in bit `j % 8` of
/// byte `j / 8` of row `i`. It is the form of pto-isa's mask tiles (a packed bit tile, as
/// `TCMP` writes it), so the kernel loads it with a plain `TLOAD`.
pub fn pack_mask(rows: usize, cols: usize, flags: &[bool]) -> Vec<u8> {
    let row_bytes = cols.div_ceil(8);
    let mut out = vec![0u8; rows * row_bytes];
    for (k, _) in flags.iter().enumerate().filter(|(_, f)| **f) {
        let (i, j) = (k / cols.max(1), k % cols.max(1));
        if let Some(b) = out.get_mut(i * row_bytes + j / 8) {
            *b |= 1 << (j % 8);
        }
    }
    out
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
    // A mask is pto-isa's packed bit tile: row `i` holds its flags from byte 0 on, one bit
    // per column (bit `j % 8` of byte `j / 8`), in the slot's `cols` bytes.
    out.put(if s.dtype == DataType::Bool {
        "uint8_t"
    } else {
        cpp_dtype(s.dtype)
    });
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

/// Whether an instruction works element by element (these need row-major tiles; a fill,
/// `TEXPANDS`, too: pto-isa rejects it on a column-major Vec tile).
fn is_elementwise(isa: Isa) -> bool {
    isa.is_binary()
        || isa.is_scalar_form()
        || isa.is_unary()
        || isa == Isa::TMov
        || isa == Isa::TExpandS
}

/// Whether slot `s` is an `R x 1` column-major Vec tile (a row reduction's result).
fn is_column(s: &TileSlot) -> bool {
    s.space == MemorySpace::Vec && s.cols == 1 && s.layout == "DN"
}

/// Whether slot `s` is a one-row, one-column row-major Vec tile (a one-row reduction's
/// result, `1 x 8` f32 in its buffer, one valid column). A row broadcast (`TROWEXPANDSUB`
/// ..., `Isa::is_row_broadcast`) takes its per-row operand as a column (ColMajor, one valid
/// column) or as one 32-byte block per row (RowMajor with `32 / sizeof(T)` valid columns, all
/// of which the NPU applies: the block is repeated along the row), with the destination's
/// valid rows (`cpu/TRowExpandOp.hpp`, `npu/a2a3/TRowExpandSub.hpp` and the others, A5's
/// alike): such a tile would be read as its whole 32-byte block.
fn is_one_element_row(s: &TileSlot) -> bool {
    s.space == MemorySpace::Vec && s.rows == 1 && s.cols == 1 && s.layout == "ND"
}

/// The column-major view of a one-element row ([`is_one_element_row`]): the same 32 bytes,
/// element `(0, 0)` first, typed as the column a row-broadcast op takes.
fn column_view(s: &TileSlot) -> TileSlot {
    TileSlot {
        layout: "DN",
        ..s.clone()
    }
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
            // A conversion between two columns goes through both views.
            Inst::Cvt {
                dst,
                src: TileRef::Slot(src),
                ..
            } if p.tile(*dst).is_some_and(is_column) && p.tile(*src).is_some_and(is_column) => {
                for t in [*dst, *src] {
                    if !out.contains(&t) {
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
pub(crate) fn acc_to_vec(p: &Program, dst: TileId, args: &[Arg]) -> Option<TileId> {
    let src = match args {
        [Arg::Tile(TileRef::Slot(src))] => *src,
        _ => return None,
    };
    let from = p.tile(src)?.space;
    let to = p.tile(dst)?.space;
    (from == MemorySpace::Acc && to == MemorySpace::Vec).then_some(src)
}

/// Whether `TMOV(dst, src)` goes from a Vec tile to a Mat tile, which A2A3 has no
/// instruction for (pto-isa.md, TMOV: Vec -> Mat is A5): the source.
pub(crate) fn vec_to_mat(p: &Program, dst: TileId, args: &[Arg]) -> Option<TileId> {
    let src = match args {
        [Arg::Tile(TileRef::Slot(src))] => *src,
        _ => return None,
    };
    let from = p.tile(src)?.space;
    let to = p.tile(dst)?.space;
    (from == MemorySpace::Vec && to == MemorySpace::Mat).then_some(src)
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
            // Not a keyword, but a function of that name must return `int`.
            | "main"
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

/// Whether a parameter named `name` could clash with a name the emitter makes: the
/// `pto_` prefix (`pto_workspace`, `pto_ret0`, `pto_rs::`), the shapes of value names
/// (`acc_7`, `v7`), tile names (`t0_x`, `scratch..`) and block locals (`e0`, `w1`, `r0`,
/// `c0`, `gt0`, `GT0`, `tmp0`, `sv`, `hdr`). Such a parameter gets a `_` appended, and so does
/// one that already ends with `_`, which keeps the renaming one to one (no generated name
/// ends with `_`).
fn is_generated_name(name: &str) -> bool {
    let digits_after = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
    };
    let tile_name = name
        .strip_prefix('t')
        .and_then(|r| r.split_once('_'))
        .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    let value_name = name
        .rsplit_once('_')
        .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    name.starts_with("pto_")
        || name.starts_with("scratch")
        || name.ends_with('_')
        || tile_name
        || value_name
        || matches!(name, "sv" | "hdr")
        || ["v", "e", "w", "r", "c", "gt", "GT", "tmp"]
            .iter()
            .any(|p| digits_after(p))
}

/// Whether `s` is a lower-case name the emitted C++ already uses: an element type
/// (`half` comes in with `using namespace pto;`, the fixed-width integers from `<cstdint>`)
/// or a builtin the kernel calls. A function or parameter named so would hide it (a program
/// function `half` made every `half` in the file ambiguous).
fn is_pto_name(s: &str) -> bool {
    matches!(
        s,
        "half"
            | "bfloat16_t"
            | "int8_t"
            | "int16_t"
            | "int32_t"
            | "int64_t"
            | "uint8_t"
            | "uint16_t"
            | "uint32_t"
            | "uint64_t"
            | "set_flag"
            | "wait_flag"
            | "pipe_barrier"
            | "get_block_idx"
            | "get_block_num"
            | "dcci"
            | "dsb"
            | "ffts_cross_core_sync"
            | "wait_flag_dev"
            | "trap"
    )
}

/// Appends `name` as a C++ identifier to `out`: itself, with `_` appended when it is a C++
/// keyword or a name the C++ uses ([`is_pto_name`]); `false` (nothing appended) when it is
/// not an identifier at all.
fn push_cpp_ident(out: &mut String, name: &str) -> bool {
    if !ident_ok(name) {
        return false;
    }
    out.push_str(name);
    if is_cpp_keyword(name) || is_pto_name(name) {
        out.push('_');
    }
    true
}

/// The C++ name of the function named `name` in the IR, as every declaration, call and
/// part (`NAME_aic` / `NAME_aiv`) spells it: the name itself, `_` appended to a C++ keyword
/// or to `main` (C++ reserves `::main`: a kernel named so would clash with a host program's
/// `int main()`), `kernel` when it is not an identifier. A launcher calls the kernel by
/// this name.
pub fn function_name(name: &str) -> String {
    let mut s = String::new();
    if !push_cpp_ident(&mut s, name) {
        s.push_str("kernel");
    }
    s
}

/// Appends the C++ name of a value to `out`: a parameter's own name when it is an
/// identifier (`_` appended to a C++ keyword), else the sanitized IR name with the SSA
/// number (`acc_7`), else `v7`.
fn push_cpp_name(out: &mut String, m: &ProgramModule, v: ValueId) {
    let d = &m.values[v];
    if let (ValueDef::Param(..), Some(n)) = (d.def, &d.name)
        && push_cpp_ident(out, n)
    {
        if is_generated_name(n) && !is_cpp_keyword(n) {
            out.push('_');
        }
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
    let _ = write!(out, "{}", u64::from(d.number));
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
    /// `(induction variable, lower bound, upper bound)` of each loop being written, innermost
    /// last: an offset that is such a variable, counted from a non-negative start up to its
    /// tensor's extent, is inside the tensor and needs no guard (`element.rs`).
    loops: Vec<(ValueId, ValueId, ValueId)>,
    /// The bytes of the GM workspace parameter (0: none), see [`workspace_bytes`].
    workspace: u64,
    /// A device function a program's entry calls (`AICORE inline`), not a `__global__` kernel.
    device: bool,
    /// The part being written.
    part: Part,
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
            let _ = writeln!(
                self.out.text,
                "// The kernel's returned scalars are written to `{RET}0`, `{RET}1`, ...: one-element\n\
                 // global-memory buffers, after the symbolic dimensions."
            );
        }
        self.put_param_layouts();
        // A device function of a program runs on the core of its caller: not split.
        let split = match &p.route {
            Route::Split(s) if !self.device => Some(s),
            _ => None,
        };
        if let Some(s) = split {
            self.workspace = s.workspace_bytes();
            self.put_split_head(s);
        } else {
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
        }
        // pto-isa's entry header comes first: `common/pto_instr.hpp` alone does not compile.
        self.out.line(l0, "#include <pto/pto-inst.hpp>");
        self.out.line(l0, "#include \"common/pto_instr.hpp\"");
        self.out.line(l0, "using namespace pto;");
        self.out.line(l0, "");
        if let Some(s) = split {
            self.put_split(s);
            return;
        }
        self.put_signature(if self.device {
            Kind::Device
        } else {
            Kind::Entry
        });
        self.put(" {\n");
        self.put_function_body(&p.body, None);
        self.out.line(l0, "}");
    }

    /// The header lines that say what global memory a tile parameter points to: pto-isa
    /// has no tile-typed kernel argument, so the kernel loads each one into a tile at entry.
    fn put_param_layouts(&mut self) {
        let m = self.m;
        for q in &m.funcs[self.p.func].sig.params {
            let Some(t) = m.values[q.value].ty.as_tile() else {
                continue;
            };
            let (rows, cols) = t.rows_cols();
            self.put("// ");
            self.name(q.value);
            if t.dtype == DataType::Bool {
                let bytes = mask_row_bytes(cols);
                let _ = writeln!(
                    self.out.text,
                    ": a {rows} x {cols} mask in global memory, {rows} rows of {bytes} bytes: element\n\
                     // (i, j) is bit j % 8 of byte j / 8 of row i (pto-isa's packed mask form); the\n\
                     // kernel loads it into a tile at entry (TLOAD)."
                );
            } else {
                let _ = writeln!(
                    self.out.text,
                    ": a {rows} x {cols} tile in global memory, its elements row-major ({}); the\n\
                     // kernel loads it into a tile at entry (TLOAD).",
                    cpp_dtype(t.dtype)
                );
            }
        }
    }

    /// `__global__ AICORE void NAME(params..)` (without the body): the kernel's parameters,
    /// then its symbolic dimensions, its result pointers and the GM workspace.
    fn put_signature(&mut self, kind: Kind) {
        let m = self.m;
        let f = &m.funcs[self.p.func];
        self.put(match kind {
            Kind::Entry => "__global__ AICORE void ",
            Kind::Device | Kind::Part(_) => "AICORE inline void ",
        });
        self.out.text.push_str(&function_name(&f.name));
        if let Kind::Part(suffix) = kind {
            self.put(suffix);
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
                    self.put(param_dtype(t.dtype));
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
            // A device function's results go to its caller's locals.
            if !self.device {
                self.put("__gm__ ");
            }
            self.put(cpp_dtype(t.dtype().unwrap_or(DataType::Fp32)));
            let _ = write!(self.out, "* {RET}{i}");
        }
        if self.workspace > 0 {
            let n = f.sig.params.len() + f.dims.len() + f.sig.returns.len();
            self.out.sep(n);
            let _ = write!(self.out, "__gm__ uint8_t* {WORKSPACE}");
        }
        self.put(")");
    }

    /// The declarations of the tiles `insts` use (those of core `only` when given) and the
    /// instructions, at level 1.
    fn put_function_body(&mut self, insts: &[Inst], only: Option<MemorySpace>) {
        let p = self.p;
        let l1 = Level::default().next();
        // A part declares the tiles of its core only: the other core has no such buffer.
        let mine = |s: &TileSlot| match only {
            None => true,
            Some(MemorySpace::Vec) => matches!(s.space, MemorySpace::Vec | MemorySpace::Ddr),
            Some(_) => !matches!(s.space, MemorySpace::Vec | MemorySpace::Ddr),
        };
        for s in p.tiles.iter().chain(&p.scratch).filter(|s| mine(s)) {
            self.declare(l1, s, &s.name, s.valid);
        }
        // Row-major `[1, R]` views of the `[R, 1]` column-major tiles that elementwise and
        // scalar instructions use: those require row-major tiles.
        let mut cols = Vec::new();
        column_tiles(p, insts, &mut cols);
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
        zero_filled_accs(p, insts, &mut zeroed);
        for t in &zeroed {
            if let Some(s) = p.tile(*t) {
                self.out.line(l1, &format!("bool {}_zero = false;", s.name));
            }
        }
        self.zeroed = zeroed;
        self.insts(insts, l1);
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
        self.put(&format!("{:x}", s.addr));
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
}

#[cfg(test)]
mod tests {
    use super::function_name;

    #[test]
    fn function_names_avoid_main_and_keywords() {
        assert_eq!(function_name("main"), "main_");
        assert_eq!(function_name("double"), "double_");
        assert_eq!(function_name("half"), "half_");
        assert_eq!(function_name("matmul_relu"), "matmul_relu");
        assert_eq!(function_name("9lives"), "kernel");
    }
}
