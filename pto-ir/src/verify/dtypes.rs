//! Checklist item 6, element types: every instruction the lowering emits for an op takes
//! the op's element type on the target (the rows of `ops/dtypes.rs`, read from pto-isa's
//! headers), a cast's (from, to) pair is a `TCVT` conversion of the target or has an exact
//! route of them (`int8 -> fp16 -> fp32`; pto-lower's `legalize` pass takes it), a matmul's
//! (input, accumulator) pair one of `TMATMUL`'s; and `floor_mod` keeps the semantics
//! module's meaning ([`Target::floor_mods`]).
//!
//! Which instructions an op becomes is decided where the lowering decides it: the op
//! table's ISA column for unary ops, reductions, compares and selects by operand class, and
//! [`BinaryForm::instructions`] for elementwise binary ops (a column operand makes a row
//! broadcast, a scalar on the left a second instruction).

use super::target::Target;
use crate::DataType;
use crate::attr::Attr;
use crate::ops::dtypes::{self, MATMUL, Takes};
use crate::ops::{Isa, OpClass, Opcode, computing_instructions, tile_form};
use crate::sem::RoundMode;
use crate::types::Type;

/// A problem: the message (after `op: `) and its note.
pub(super) type Problem = (String, String);

/// What is wrong with op `op` (attribute `round`: `round`) on target `t`, whose operands
/// and results have the types `operands` and `results`, if anything.
pub(super) fn problem(
    t: Target,
    op: Opcode,
    round: Option<&Attr>,
    operands: &[&Type],
    results: &[&Type],
) -> Option<Problem> {
    let class = op.class();
    // A mask's C++ tile holds bytes: the bitwise instructions see `uint8_t`.
    let elem = |d: DataType| match d {
        DataType::Bool => DataType::UInt8,
        d => d,
    };
    let what = if operands.iter().any(|ty| ty.as_tensor().is_some()) {
        "tensors"
    } else {
        "tiles"
    };
    match class {
        OpClass::Store if op == Opcode::TileStoreAdd => {
            let d = operands.iter().find(|ty| ty.as_tile().is_some())?.dtype()?;
            return judge(t, op, "TSTORE_ADD", elem(d), "tiles");
        }
        OpClass::TileCast => {
            let (from, to) = (elem(operands.first()?.dtype()?), results.first()?.dtype()?);
            let named = round
                .and_then(Attr::as_ident)
                .and_then(RoundMode::from_word);
            // The identity (the same dtype, no mode named) is a copy.
            RoundMode::for_cast(from, to, named)?;
            if named == Some(RoundMode::CastOdd) && (from, to) != (DataType::Fp32, DataType::Fp16) {
                return Some(odd_problem(t, from, to));
            }
            return cast_problem(t, from, to);
        }
        OpClass::Matmul | OpClass::MatmulAcc | OpClass::MatmulBias => {
            let a = usize::from(class == OpClass::MatmulAcc);
            let input = operands.get(a).and_then(|ty| ty.dtype())?;
            let acc = results.first().and_then(|ty| ty.dtype())?;
            return matmul_problem(t, op, input, acc);
        }
        _ => {}
    }
    let (insts, d) = computing_instructions(op, operands, results)?;
    let insts = match tile_form(op) {
        Opcode::TileAbs => dtypes::abs_as_max(t, d).unwrap_or(insts),
        tile_op => dtypes::scalar_filled(t, tile_op, d, &insts).unwrap_or(insts),
    };
    let d = elem(dtypes::finally_computes_in(t, tile_form(op), d, &insts));
    // Tile operands whose valid regions may differ make the `TPART*` form of an
    // instruction that has one (pto-lower's C++ emitter), with its own element types, or
    // its route (A5's TPARTMUL takes no 64-bit integers: `dtypes::partial_forms`).
    let partial: Vec<&str> = if regions_may_differ(operands) {
        insts
            .iter()
            .flat_map(|&i| dtypes::partial_forms(t, i, d))
            .collect()
    } else {
        Vec::new()
    };
    let names = insts.iter().map(|i| i.name()).chain(partial);
    for name in names {
        if let Some(p) = judge(t, op, name, d, what) {
            return Some(p);
        }
    }
    if op == Opcode::TileFloorMod && !t.floor_mods(d) {
        return Some(floor_mod_problem(t, d));
    }
    None
}

/// Whether two tile operands' valid regions may differ at run time: they differ, or one is
/// not a constant.
fn regions_may_differ(operands: &[&Type]) -> bool {
    match (
        operands.first().and_then(|ty| ty.as_tile()),
        operands.get(1).and_then(|ty| ty.as_tile()),
    ) {
        (Some(a), Some(b)) => {
            a.valid != b.valid
                || a.valid
                    .iter()
                    .chain(&b.valid)
                    .any(|d| !matches!(d, crate::types::Dim::Const(_)))
        }
        _ => false,
    }
}

/// Whether `t` is A5 (the table's second column).
fn is_a5(t: Target) -> bool {
    t.name == Target::A5.name
}

/// The element types `t` takes in row `r`.
fn takes(t: Target, r: &Takes) -> dtypes::Dtypes {
    if is_a5(t) { r.a5 } else { r.a2a3 }
}

/// The other target, for notes.
fn other(t: Target) -> Target {
    if is_a5(t) { Target::A2A3 } else { Target::A5 }
}

/// `.cast::<f32>()`.
fn cast_to(d: DataType) -> String {
    format!("`.cast::<{}>()`", d.rust_name().unwrap_or(d.name()))
}

/// Whether `t`'s `TCVT` converts `from` to `to`.
pub fn converts(t: Target, from: DataType, to: DataType) -> bool {
    dtypes::conversions(is_a5(t)).any(|p| p == (from, to))
}

/// The note for fp64, which no instruction computes on or converts.
const FP64_NOTE: &str = "no target computes on (or converts) fp64 tiles: give the kernel fp32 data, or compute in fp64 on the host";

/// The problem with instruction `inst` on elements of `d` for op `op` on `t`, if its row
/// refuses them.
fn judge(t: Target, op: Opcode, inst: &str, d: DataType, what: &str) -> Option<Problem> {
    let row = dtypes::row(inst)?;
    let here = takes(t, row);
    if here.contains(d) {
        return None;
    }
    let surface = op.info().surface;
    let message = format!(
        "`{surface}` on {d} {what} is not legal on {}: its {inst} takes {} only",
        t.name,
        here.describe()
    );
    // A conversion this target has into a type the instruction takes: integers to an
    // integer type first, then to a float type.
    let order: &[DataType] = if d.is_int() {
        &[
            DataType::Int32,
            DataType::Int16,
            DataType::Fp32,
            DataType::Fp16,
        ]
    } else {
        &[DataType::Fp32, DataType::Fp16]
    };
    let convert = order
        .iter()
        .copied()
        .find(|&c| here.contains(c) && converts(t, d, c))
        .map(cast_to);
    let o = other(t);
    let note = match (d, convert) {
        (DataType::Fp64, _) => FP64_NOTE.to_string(),
        (_, conv) if takes(o, row).contains(d) => format!(
            "{}'s {inst} takes {d}{}",
            o.name,
            conv.map_or_else(
                || format!(
                    "; no single conversion on {} reaches a type its {inst} takes",
                    t.name
                ),
                |c| format!("; on {} convert first ({c})", t.name)
            )
        ),
        (_, Some(c)) => format!("no target's {inst} takes {d}: convert first ({c})"),
        (_, None) => format!("no target's {inst} takes {d}"),
    };
    Some((message, note))
}

/// The problem with converting `from` to `to` on `t`, if its `TCVT` has no such conversion
/// and no exact route of conversions it has computes the cast ([`dtypes::cast_route`]).
fn cast_problem(t: Target, from: DataType, to: DataType) -> Option<Problem> {
    if dtypes::cast_route(t, from, to).is_some() {
        return None;
    }
    let a5 = is_a5(t);
    let tos: Vec<DataType> = dtypes::conversions(a5)
        .filter(|&(f, _)| f == from)
        .map(|(_, to)| to)
        .collect();
    let list = dtypes::Dtypes::of(&tos);
    let inst = Isa::TCvt.name();
    let message = if tos.is_empty() {
        format!(
            "converting {from} tiles to {to} is not legal on {}: its {inst} converts no {from} tiles",
            t.name
        )
    } else {
        format!(
            "converting {from} tiles to {to} is not legal on {}: its {inst} converts {from} to {} only",
            t.name,
            list.describe()
        )
    };
    // Two conversions this target has, through a type between.
    let via = tos
        .iter()
        .copied()
        .find(|&x| converts(t, x, to))
        .map(|x| format!("{}{}", cast_to(x).trim_end_matches('`'), &cast_to(to)[1..]));
    let o = other(t);
    let note = match via {
        _ if from == DataType::Fp64 || to == DataType::Fp64 => FP64_NOTE.to_string(),
        Some(v) if converts(o, from, to) => format!(
            "{}'s {inst} converts {from} to {to}; on {} convert in two steps ({v})",
            o.name, t.name
        ),
        Some(v) => format!("convert in two steps ({v})"),
        None if converts(o, from, to) => {
            format!("{}'s {inst} converts {from} to {to}", o.name)
        }
        None => format!("no target's {inst} converts {from} to {to} in one or two steps"),
    };
    Some((message, note))
}

/// The problem with a matmul of `input` tiles into an `acc` accumulator, if `TMATMUL` has
/// no such pair.
fn matmul_problem(t: Target, op: Opcode, input: DataType, acc: DataType) -> Option<Problem> {
    if MATMUL.contains(&(input, acc)) {
        return None;
    }
    let pairs: Vec<String> = MATMUL
        .iter()
        .map(|(i, a)| format!("{i} into {a}"))
        .collect();
    Some((
        format!(
            "`{}` of {input} tiles into {acc} is not legal on {}: its {} multiplies {} only",
            op.info().surface,
            t.name,
            Isa::TMatmul.name(),
            pairs.join(", ")
        ),
        if input == DataType::Fp64 {
            FP64_NOTE.to_string()
        } else {
            "no target multiplies these: convert the operands first (`.cast::<f16>()`)".to_string()
        },
    ))
}

/// Rounding to odd from `from` to `to` on `t`: pto-isa's TCVT rounds to odd only from fp32
/// to fp16 (A2A3's `vconv_f322f16o`; A5's dispatch takes `CAST_ODD` for that pair alone)
/// and rounds every other pair in its default mode.
fn odd_problem(t: Target, from: DataType, to: DataType) -> Problem {
    (
        format!(
            "rounding {from} to {to} to odd is not legal on {}: its TCVT rounds to odd from fp32 to fp16 only (any other pair in its default mode)",
            t.name
        ),
        "name another mode (`Round::Trunc` is the nearest in spirit), or round to odd through fp32 -> fp16".to_string(),
    )
}

/// `floor_mod` of `d` tiles on `t`: legal as an instruction, but not with the semantics
/// module's meaning ([`Target::floor_mods`]).
fn floor_mod_problem(t: Target, d: DataType) -> Problem {
    let why = if is_a5(t) {
        "A5's integer TREM truncates: the dividend's sign, not the divisor's"
    } else {
        "A2A3's TREM computes int32 through fp32 (exact below 2^24 only) and overwrites the divisor tile"
    };
    let note = if let Some(o) = Target::ALL.into_iter().find(|o| o.floor_mods(d)) {
        format!(
            "{} takes `floor_mod` of {d}; on {} convert first (`.cast::<f32>()`)",
            o.name, t.name
        )
    } else {
        "compute in fp32 (`.cast::<f32>()`, exact for integers below 2^24)".to_string()
    };
    (
        format!(
            "`a.floor_mod(b)` on {d} tiles is not legal on {}: {why}; it takes floats only",
            t.name
        ),
        note,
    )
}
