//! `TEXTRACT`'s alignment rule for a matmul operand cut out of a bigger tile (part of
//! checklist item 6): an `extract` used directly as a matmul's left / right operand
//! becomes `TEXTRACT` from a `Mat` tile into `Left` / `Right`, which reads whole fractal
//! blocks, so its offsets (and, for some routes, the window's and the source's shapes)
//! must be multiples of the blocks.
//!
//! The rule as pto-isa's headers have it (`npu/a2a3/TExtract.hpp` and
//! `common/arch/memory/textract_common.hpp` for A2A3, `npu/a5/TExtract.hpp` for A5; the
//! tiles as the lowering declares them: `Mat` boxed `NZ` unless it has one row, `Left`
//! `ZZ` on A2A3 / `NZ` on A5, `Right` `ZN`, no compact mode). `c0` is one 32-byte line of
//! elements (8 fp32, 16 fp16 / bf16, 32 int8); `v` is one 512-byte fractal of elements
//! (128 fp32, 256 fp16 / bf16, 512 int8):
//!
//! | target | into | offsets (rows, columns) | window (rows, columns) | source (rows, columns) |
//! | --- | --- | --- | --- | --- |
//! | A2A3 | `Left` | 16, `c0` | 16, `c0` | 16, `c0` |
//! | A2A3 | `Right` | 16, 16 (32, 32 int8) | 16, 16 (32, 16 int8) | 16, 16 (32, 32 int8) |
//! | A5 | `Left` | 16, `c0` | - | - |
//! | A5 | `Right` | 16, `c0` | 16, 16 (int8: -) | 16, 16 (int8: -) |
//! | both | `Left` from a one-row source | -, `v` | -, `v` | -, `v` |
//! | both | `Right` from a one-row source | not legal (the source must be boxed) | | |
//!
//! On A2A3 the offsets are `PTO_ASSERT`s (checked in debug builds only) and the shapes
//! `static_assert`s; A5 has no offset assertion but turns the offsets into block positions
//! (`indexRow >> 4`, `indexCol * sizeof(T) >> 5`), so a misaligned offset silently reads the
//! block it falls in. Either way a misaligned window computes something else on the NPU
//! than the kernel means, so the verifier refuses it rather than leave it to a run-time
//! check the hardware build does not make.
//!
//! A run-time offset (a loop variable, a scalar) is accepted only when the verifier can
//! prove it a multiple of what the rule asks: a constant, a `for` loop variable whose start
//! and step are proven multiples (`for k in (0..K).step_by(16)`), and sums, differences,
//! minima, maxima, products and integer casts of such values. Anything else is refused
//! at the extract, naming the offset and the multiple: the host function and the
//! interpreter cannot fail the way the NPU would (they know no blocks), so leaving the
//! check to run time would give a kernel two meanings. The C++ model
//! (`pto-lower/tests/cpp/pto_decls.hpp`) checks the same rule at run time, as pto-isa's
//! debug build does.

use crate::Attr;
use crate::DataType;
use crate::diag::Diag;
use crate::entity::{OpId, ValueId};
use crate::module::ProgramModule;
use crate::ops::Opcode;
use crate::stmt::StmtKind;
use crate::typefmt::short_tile;
use crate::types::{MemorySpace, TileType};

use super::target::{Target, buffer_name};
use super::{DefBy, Defs};

/// Rows of a fractal box (and columns of a column-major one).
const BOX: u64 = 16;
/// Bytes of one line of a box.
const LINE_BYTES: u64 = 32;
/// Bytes of one fractal box.
const FRACTAL_BYTES: u64 = 512;
/// The proven multiple of zero: larger than any the rule asks.
const ANY: u64 = 1 << 32;
/// How deep the proof follows a value's definition.
const DEPTH: u32 = 16;

/// What `TEXTRACT` into one location asks, as `(rows, columns)` multiples (1: nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Need {
    /// Of the window's offset in the source.
    pub offset: (u64, u64),
    /// Of the window's shape.
    pub window: (u64, u64),
    /// Of the source tile's shape.
    pub source: (u64, u64),
}

/// What target `t`'s `TEXTRACT` into `into` (Left or Right) asks of a window of `d`
/// elements cut out of a source of `src_rows` rows; `None` when there is no such
/// `TEXTRACT` (into Right from a one-row, row-major source).
pub(super) fn need(t: &Target, into: MemorySpace, src_rows: u64, d: DataType) -> Option<Need> {
    let bytes = d.size_bytes().max(1);
    let c0 = (LINE_BYTES / bytes).max(1);
    let a5 = t.name == Target::A5.name;
    if src_rows == 1 {
        // A one-row Mat tile is row-major and unboxed: the GEMV route into Left only, in
        // whole 512-byte fractals.
        let v = (FRACTAL_BYTES / bytes).max(1);
        return (into == MemorySpace::Left).then_some(Need {
            offset: (1, v),
            window: (1, v),
            source: (1, v),
        });
    }
    let int8 = bytes == 1;
    Some(match (into, a5) {
        (MemorySpace::Left, false) => Need {
            offset: (BOX, c0),
            window: (BOX, c0),
            source: (BOX, c0),
        },
        (MemorySpace::Right, false) => {
            // The transposing load: whole square blocks (32 x 32 for int8).
            let f = if int8 { 2 * BOX } else { BOX };
            Need {
                offset: (f, f),
                window: (f, if int8 { BOX } else { f }),
                source: (f, f),
            }
        }
        (MemorySpace::Left, true) => Need {
            offset: (BOX, c0),
            window: (1, 1),
            source: (1, 1),
        },
        _ => {
            let sq = if int8 { 1 } else { BOX };
            Need {
                offset: (BOX, c0),
                window: (sq, sq),
                source: (sq, sq),
            }
        }
    })
}

/// The problems with extract `e`, a matmul operand in `into` (Left or Right), on target
/// `t` (the well-formed tile types of its source and window given).
pub(super) fn check(
    m: &ProgramModule,
    defs: &Defs,
    t: &Target,
    e: OpId,
    into: MemorySpace,
    (src, win): (&TileType, &TileType),
) -> Vec<Diag> {
    let op = &m.ops[e];
    let span = op.span;
    if src.shape.len() != 2 || win.shape.len() != 2 || src.dtype == DataType::Bool {
        return Vec::new();
    }
    let (src_rows, _) = src.rows_cols();
    let d = src.dtype;
    let other = Target::ALL.into_iter().find(|o| o.name != t.name);
    let Some(n) = need(t, into, src_rows, d) else {
        return vec![
            Diag::new(
                span,
                format!(
                    "extract from the one-row tile {} into the {}: TEXTRACT into Right takes a boxed source (16 or more rows in Mat) on every target",
                    short_tile(src),
                    buffer_name(into)
                ),
            )
            .note("load the right operand with its own rows instead of extracting it from one row"),
        ];
    };
    let offsets: Vec<Option<&Attr>> = match op.attrs.get("offset") {
        Some(Attr::List(l)) if l.len() == 2 => l.iter().map(Some).collect(),
        _ => vec![None, None],
    };
    let shown: Vec<String> = offsets
        .iter()
        .map(|a| a.map_or_else(|| "?".to_string(), |a| offset_text(m, a)))
        .collect();
    let head = format!(
        "extract at offset [{}] into the {}",
        shown.join(", "),
        buffer_name(into)
    );
    let rule = |what: &str, (r, c): (u64, u64)| {
        format!(
            "on {} TEXTRACT into {} needs {d} {what} in multiples of {r} rows and {c} columns",
            t.name,
            space_word(into)
        )
    };
    let mut out = Vec::new();
    for (k, a) in offsets.iter().enumerate() {
        let Some(a) = a else { continue };
        let want = if k == 0 { n.offset.0 } else { n.offset.1 };
        if want <= 1 || proven_multiple(m, defs, a, 0).is_multiple_of(want) {
            continue;
        }
        let dim = if k == 0 { "row" } else { "column" };
        let stat = static_offset(m, a);
        let claim = match stat {
            Some(c) => format!("{dim} offset {c} is not a multiple of {want}"),
            None => format!(
                "{dim} offset `{}` is not provably a multiple of {want}",
                shown[k]
            ),
        };
        let mut diag = Diag::new(
            span,
            format!("{head}: {claim}; {}", rule("offsets", n.offset)),
        );
        if let Some(o) = other
            && let Some(on) = need(&o, into, src_rows, d)
            && offsets
                .iter()
                .zip([on.offset.0, on.offset.1])
                .all(|(a, k)| a.is_none_or(|a| proven_multiple(m, defs, a, 0).is_multiple_of(k)))
        {
            diag = diag.note(format!(
                "{} allows it (offsets in multiples of {} rows and {} columns there)",
                o.name, on.offset.0, on.offset.1
            ));
        }
        diag = diag.note(if stat.is_some() {
            "pto-isa's TEXTRACT reads whole fractal blocks: a misaligned window would read the block its offset falls in"
        } else {
            "a run-time offset must be provably aligned: a constant, a loop variable with an aligned start and step (`for k in (0..K).step_by(16)`), or sums and products of those"
        });
        out.push(diag);
    }
    // A source that is not whole Mat boxes is reported once, at the matmul (`fractal.rs`).
    let (_, src_cols) = src.rows_cols();
    let c0 = (LINE_BYTES / d.size_bytes().max(1)).max(1);
    let boxed = src_rows == 1 || (src_rows.is_multiple_of(BOX) && src_cols.is_multiple_of(c0));
    for (what, tt, (r, c)) in [("window", win, n.window), ("source", src, n.source)] {
        let (rows, cols) = tt.rows_cols();
        if (rows.is_multiple_of(r) && cols.is_multiple_of(c)) || (what == "source" && !boxed) {
            continue;
        }
        let mut diag = Diag::new(
            span,
            format!(
                "{head}: the {what} {} is not whole blocks; {}",
                short_tile(tt),
                rule(&format!("{what} tiles"), (r, c))
            ),
        );
        if let Some(o) = other
            && let Some(on) = need(&o, into, src_rows, d)
        {
            let (r2, c2) = if what == "window" {
                on.window
            } else {
                on.source
            };
            if rows.is_multiple_of(r2) && cols.is_multiple_of(c2) {
                diag = diag.note(format!("{} allows it", o.name));
            }
        }
        out.push(diag);
    }
    out
}

/// `Left` / `Right`.
fn space_word(s: MemorySpace) -> &'static str {
    match s {
        MemorySpace::Left => "Left",
        _ => "Right",
    }
}

/// An offset as the user wrote it: the number, or the value's name.
fn offset_text(m: &ProgramModule, a: &Attr) -> String {
    match a {
        Attr::Int(v) => v.to_string(),
        Attr::Value(v) => match static_value(m, *v) {
            Some(c) => c.to_string(),
            None => m.ssa_name(*v),
        },
        _ => "?".to_string(),
    }
}

/// The offset's value when it is a constant.
fn static_offset(m: &ProgramModule, a: &Attr) -> Option<i64> {
    match a {
        Attr::Int(v) => Some(*v),
        Attr::Value(v) => static_value(m, *v),
        _ => None,
    }
}

fn static_value(m: &ProgramModule, v: ValueId) -> Option<i64> {
    m.values
        .get(v)
        .and_then(|d| d.constant)
        .filter(|c| !c.is_float())
        .map(|c| c.as_i64())
}

/// The largest power of two (capped at [`ANY`]) the offset is proven a multiple of.
fn proven_multiple(m: &ProgramModule, defs: &Defs, a: &Attr, depth: u32) -> u64 {
    match a {
        Attr::Int(v) => pow2_of(*v),
        Attr::Value(v) => value_multiple(m, defs, *v, depth),
        _ => 1,
    }
}

/// The largest power of two dividing `c` (capped at [`ANY`]; zero is a multiple of all).
fn pow2_of(c: i64) -> u64 {
    if c == 0 {
        ANY
    } else {
        (1u64 << c.trailing_zeros()).min(ANY)
    }
}

/// [`proven_multiple`] of a value: constants, `for` loop variables, and the scalar ops
/// that keep a common factor.
fn value_multiple(m: &ProgramModule, defs: &Defs, v: ValueId, depth: u32) -> u64 {
    if let Some(c) = static_value(m, v) {
        return pow2_of(c);
    }
    if depth > DEPTH {
        return 1;
    }
    let of = |x: ValueId| value_multiple(m, defs, x, depth + 1);
    let def = m.values.get(v).and_then(|_| defs[v]);
    match def.map(|d| d.by) {
        Some(DefBy::Stmt(s)) => match m.stmts.get(s).map(|st| &st.kind) {
            Some(StmtKind::For(f)) if f.iv == v => of(f.lb).min(of(f.step)),
            _ => 1,
        },
        Some(DefBy::Op(o)) => {
            let Some(op) = m.ops.get(o) else { return 1 };
            let args: Vec<u64> = op.operands.iter().map(|&x| of(x)).collect();
            match (op.opcode, args.as_slice()) {
                (
                    Opcode::ScalarAdd | Opcode::ScalarSub | Opcode::ScalarMin | Opcode::ScalarMax,
                    [a, b],
                ) => (*a).min(*b),
                (Opcode::ScalarMul, [a, b]) => a.saturating_mul(*b).min(ANY),
                (Opcode::ScalarCast, [a]) if m.values[v].ty.is_int_scalar() => *a,
                _ => 1,
            }
        }
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_per_target_location_and_dtype() {
        let (a2, a5) = (Target::A2A3, Target::A5);
        let l = MemorySpace::Left;
        let r = MemorySpace::Right;
        let n = |t, s, rows, d| need(&t, s, rows, d).unwrap();
        assert_eq!(n(a2, l, 32, DataType::Fp32).offset, (16, 8));
        assert_eq!(n(a2, l, 32, DataType::Fp16).offset, (16, 16));
        assert_eq!(n(a2, l, 32, DataType::Int8).offset, (16, 32));
        assert_eq!(n(a2, r, 32, DataType::Fp32).offset, (16, 16));
        assert_eq!(n(a2, r, 32, DataType::Int8).offset, (32, 32));
        assert_eq!(n(a2, r, 32, DataType::Int8).window, (32, 16));
        assert_eq!(n(a5, l, 32, DataType::Fp32).window, (1, 1));
        assert_eq!(n(a5, r, 32, DataType::Fp32).offset, (16, 8));
        assert_eq!(n(a5, r, 32, DataType::Fp32).source, (16, 16));
        assert_eq!(n(a5, r, 32, DataType::Int8).source, (1, 1));
        assert_eq!(n(a5, l, 1, DataType::Fp32).offset, (1, 128));
        assert!(need(&a2, r, 1, DataType::Fp32).is_none());
    }

    #[test]
    fn powers_of_two_of_constants() {
        assert_eq!(pow2_of(48), 16);
        assert_eq!(pow2_of(8), 8);
        assert_eq!(pow2_of(0), ANY);
        assert_eq!(pow2_of(-32), 32);
    }
}
