//! Pass `legalize` (after `tile-tensor-ops`): rewrites the tile ops whose instruction on the
//! module's target does not compute the semantics module's meaning into ops whose
//! instructions do. Every rewrite computes exactly the op's meaning, so the host code, the
//! interpreter (which runs the module before this pass) and the C++ agree.
//!
//! 1. An op whose instructions the target does not take on its element type but takes on
//!    `f32`, where computing in `f32` is the op's meaning (`pto_ir::ops::dtypes::computes_in`,
//!    the verifier's rule), computes in `f32`: its operands are converted to `f32` (exact),
//!    the op runs on `f32` tiles and the result is converted back. That covers compares,
//!    selects, maxima and minima of any type `f32` holds (int8, int16, bf16 on A2A3); 16-bit
//!    float elementwise ops (bf16 arithmetic on A2A3; the semantics computes every 16-bit float
//!    op in `f32` and rounds once), and the 16-bit `%`, `fmod` and `floor_mod` on both
//!    targets (pto-isa's own 16-bit `TFMOD` / `TREM`, A5 only, `npu/a5/TFMod.hpp`, `TRem.hpp`,
//!    round the `f32` remainder toward zero, and `TREM` then applies its sign fix in `f16`);
//!    and 1-byte integer `+ - *`, negation, `abs` and sums (A2A3's arithmetic takes no 1-byte
//!    integers, A5's `TMUL` none either), whose exact `f32` result is wrapped to the type's
//!    range before it goes back (`x - 256 * floor((x + 128) / 256)`, every step exact); and
//!    integer `/`, `%` and `floor_mod` of at most 16 bits (no integer `TDIV` / `TFMOD` on
//!    A2A3), from the `f32` quotient with a zero divisor selected away ([`ints`]). Unsigned
//!    `+ - *` whose signed twin the target takes (uint16 and uint32 on A2A3) computes on that
//!    instead: the same bits, each way a reinterpretation (`TRESHAPE` in the C++); so do their
//!    maxima, minima and compares, every operand's top bit flipped first (`TXORS`) and a picked
//!    value's flipped back; where the twin lacks the instruction too but has a route of its
//!    own, the op takes it next (uint16 compares on A2A3: int16, then `f32`). An operand
//!    several ops of a statement read is converted once.
//! 2. On A5, `floor_mod` of an `f32` tile and a scalar becomes `floor_mod` against a tile
//!    filled with the scalar (`TEXPANDS`, then `TREM`): A5's default `f32` `TREMS`
//!    (`npu/a5/TRemS.hpp`) leaves out the sign fix that its `TREM` and A2A3's `TREMS` apply.
//! 3. A binary op in an operand form no instruction takes (`r / a` with the broadcast `r` on
//!    the left, `a % r`, `s % a`, `s << a`: `pto_ir::ops::BinaryForm::instructions`) expands
//!    the small operand to the other's shape first (`tile.row_expand` / `tile.col_expand`, or
//!    `tile.full` for a scalar), then takes the tile-tile instruction. `r / a` was `(1 / a) *
//!    r`, two roundings. So does a scalar form whose instruction the target lacks for the
//!    type while the tile-tile one takes it (int8 `a << s` on A2A3).
//! 4. A cast whose pair the target's `TCVT` lacks takes an exact route of conversions it has
//!    (`pto_ir::ops::dtypes::cast_route`, which the verifier accepts): `int8 -> fp16 ->
//!    fp32`, `int16 -> fp32 -> int32`, an `f16` rounded to an integral `f16` through `f32`.
//! 5. An integer `abs` whose `TABS` the target lacks (int16 / int32 on A2A3) is `max(x,
//!    -x)` (`pto_ir::ops::dtypes::abs_as_max`).

use pto_ir::{
    Attr, Attrs, DataType, Diag, Diagnostics, OpClass, OpId, Opcode, ProgramModule, SpanId,
    StmtKind, TileType, Type, ValueId,
};

mod ints;

use super::Pass;
use super::bufferize::module_target;
use crate::walk::{Tree, inline_of, new_op_named};
use ints::Seq;
use pto_ir::ops::dtypes::{
    Step, abs_as_max, back_route, cast_route, computes_in, divides_exactly, orders, scalar_filled,
    wraps_bytes,
};
use pto_ir::ops::{BinaryForm, Insts, Isa, computing_instructions};
use pto_ir::sem::RoundMode;
use pto_ir::verify::target::Target;

/// The legalize pass.
pub struct Legalize;

impl Pass for Legalize {
    fn name(&self) -> &'static str {
        "legalize"
    }

    fn run(&self, m: &mut ProgramModule) -> Result<(), Diagnostics> {
        let t = module_target(m);
        for k in 0..m.functions.len() {
            let f = m.functions[k];
            let tree = Tree::of(m, f);
            for &s in &tree.stmts {
                let StmtKind::Op(ops) = &m.stmts[s].kind else {
                    continue;
                };
                if !ops.iter().any(|&o| needs_rewrite(m, o, t)) {
                    continue;
                }
                let old = ops.clone();
                let mut new = Vec::with_capacity(old.len() + 4);
                let mut converted = Converted::new();
                for o in old {
                    if rewrite(m, o, t, &mut new, &mut converted).is_none() {
                        let op = &m.ops[o];
                        return Err(Diag::new(
                            op.span,
                            format!(
                                "the legalize pass could not rewrite `{}` for {}",
                                op.opcode.info().surface,
                                t.name
                            ),
                        )
                        .into());
                    }
                }
                if let StmtKind::Op(ops) = &mut m.stmts[s].kind {
                    *ops = new.into_iter().collect();
                }
            }
        }
        Ok(())
    }
}

/// The operands rewrite 1 has converted in one statement: `(value, type it computes in,
/// top bit flipped)` to the converted value, so that an operand several ops read (`a` in
/// `a.max(b)` and `a.lt(b)`) is converted once. Its op lies earlier in the statement's op
/// list than any op that reuses it.
type Converted = std::collections::HashMap<(ValueId, DataType, bool), ValueId>;

/// The element type of op `o`'s result, when it is a tile.
fn result_dtype(m: &ProgramModule, o: OpId) -> Option<DataType> {
    let r = *m.ops[o].results.first()?;
    m.values[r].ty.as_tile().map(|t| t.dtype)
}

/// The instructions op `o` becomes and the element type they compute on (the verifier's,
/// [`computing_instructions`]).
fn instructions(m: &ProgramModule, o: OpId) -> Option<(Insts, DataType)> {
    let op = &m.ops[o];
    let types = |vs: &[ValueId]| -> Vec<&Type> { vs.iter().map(|&v| &m.values[v].ty).collect() };
    computing_instructions(op.opcode, &types(&op.operands), &types(&op.results))
}

/// Rewrite 1 applies: a 16-bit float op that computes in `f32` on `t` (the verifier's rule,
/// [`pto_ir::ops::dtypes::computes_in`]).
fn widens(m: &ProgramModule, o: OpId, t: Target) -> bool {
    instructions(m, o).is_some_and(|(insts, d)| computes_in(t, m.ops[o].opcode, d, &insts) != d)
}

/// Rewrite 2 applies: an A5 `f32` `floor_mod` with a scalar operand.
fn expands(m: &ProgramModule, o: OpId, t: Target) -> bool {
    let op = &m.ops[o];
    t.name == Target::A5.name
        && op.opcode == Opcode::TileFloorMod
        && result_dtype(m, o) == Some(DataType::Fp32)
        && op
            .operands
            .iter()
            .any(|&v| matches!(m.values[v].ty, Type::Scalar(_)))
}

/// Rewrites 2 and 3 apply: the operand of op `o` to expand first, and the op that expands
/// it (`tile.full` for a scalar, `tile.row_expand` / `tile.col_expand` for a column or row):
/// when the op's instructions begin with the expansion ([`BinaryForm::instructions`], which
/// the verifier judges), for rewrite 2, or when the target's scalar-form instruction lacks
/// the type and the tile-tile one takes it ([`scalar_filled`]).
fn expansion(m: &ProgramModule, o: OpId, t: Target) -> Option<(usize, Opcode)> {
    let op = &m.ops[o];
    if !matches!(
        op.opcode.class(),
        OpClass::TileBinary | OpClass::TileBitwise
    ) {
        return None;
    }
    let (a, b) = (
        &m.values[*op.operands.first()?].ty,
        &m.values[*op.operands.get(1)?].ty,
    );
    let scalar = usize::from(matches!(a, Type::Tile(_)));
    let form = BinaryForm::of(a, b)?;
    let d = [a, b].iter().find_map(|ty| ty.as_tile().map(|t| t.dtype))?;
    let insts = form.instructions(op.opcode, d).ok()?;
    if expands(m, o, t) || scalar_filled(t, op.opcode, d, &insts).is_some() {
        return Some((scalar, Opcode::TileFull));
    }
    let small = match form {
        BinaryForm::Broadcast { big_first, .. } => usize::from(big_first),
        _ => scalar,
    };
    match insts.as_slice() {
        [Isa::TRowExpand, _] => Some((small, Opcode::TileRowExpand)),
        [Isa::TColExpand, _] => Some((small, Opcode::TileColExpand)),
        [Isa::TExpandS, _] => Some((small, Opcode::TileFull)),
        _ => None,
    }
}

/// Rewrite 5 applies: an integer `abs` the target computes as `max(x, -x)`
/// ([`abs_as_max`]).
fn abs_by_max(m: &ProgramModule, o: OpId, t: Target) -> bool {
    m.ops[o].opcode == Opcode::TileAbs
        && result_dtype(m, o).is_some_and(|d| abs_as_max(t, d).is_some())
}

/// Rewrite 5: `x.abs()` as `x.max(-x)`; op `o` becomes the `max`.
fn abs_as_max_ops(m: &mut ProgramModule, o: OpId, out: &mut Vec<OpId>) -> Option<()> {
    let x = *m.ops[o].operands.first()?;
    let neg = Seq::new(m, o, out).op(m, Opcode::TileNeg, &[x], Attrs::new())?;
    let op = &mut m.ops[o];
    op.opcode = Opcode::TileMax;
    op.operands = inline_of(&[x, neg]);
    out.push(o);
    Some(())
}

fn needs_rewrite(m: &ProgramModule, o: OpId, t: Target) -> bool {
    expansion(m, o, t).is_some()
        || widens(m, o, t)
        || cast_steps(m, o, t).is_some()
        || abs_by_max(m, o, t)
}

/// Appends op `o`, or the ops it is rewritten into, to `out`: an expanded operand is
/// followed by the rewrites of the tile-tile op, a widened `f16` `floor_mod` by a scalar is
/// an `f32` one, expanded in turn on A5. `None` when a typing rule refuses an op of the
/// rewrite (the verifier admitted the op, so this is the pass's own error).
fn rewrite(
    m: &mut ProgramModule,
    o: OpId,
    t: Target,
    out: &mut Vec<OpId>,
    converted: &mut Converted,
) -> Option<()> {
    if let Some((k, expand)) = expansion(m, o, t) {
        expand_operand(m, o, k, expand, out)?;
        rewrite(m, o, t, out, converted)
    } else if widens(m, o, t) {
        widen(m, o, t, out, converted)
    } else if cast_steps(m, o, t).is_some() {
        route_cast(m, o, t, out);
        Some(())
    } else if abs_by_max(m, o, t) {
        abs_as_max_ops(m, o, out)
    } else {
        out.push(o);
        Some(())
    }
}

/// Rewrites 2 and 3: operand `k` of op `o` replaced by its expansion to the other operand's
/// shape by `expand`, appended to `out` (op `o` itself is not). A scalar fills a fully valid
/// tile; an expanded column or row keeps its valid region (the typing rule's).
fn expand_operand(
    m: &mut ProgramModule,
    o: OpId,
    k: usize,
    expand: Opcode,
    out: &mut Vec<OpId>,
) -> Option<()> {
    let v = *m.ops[o].operands.get(k)?;
    let big = m.values[*m.ops[o].operands.get(1 - k)?]
        .ty
        .as_tile()?
        .clone();
    let wide = Seq::new(m, o, out).expand(m, v, &big, expand)?;
    m.ops[o].operands[k] = wide;
    Some(())
}

/// `v` as `dtype`: a `tile.cast` (a tile; rounding in `round`, when named) or a
/// `scalar.cast` (a scalar), appended to `out`.
fn cast(
    m: &mut ProgramModule,
    v: ValueId,
    dtype: DataType,
    round: Option<&Attr>,
    o: OpId,
    out: &mut Vec<OpId>,
) -> ValueId {
    let span = m.ops[o].span;
    let (opcode, ty) = match &m.values[v].ty {
        Type::Tile(t) => (
            Opcode::TileCast,
            Type::Tile(TileType { dtype, ..t.clone() }),
        ),
        _ => (Opcode::ScalarCast, Type::Scalar(dtype)),
    };
    let (op, r) = new_op_named(
        m,
        opcode,
        inline_of(&[v]),
        cast_attrs(dtype, round),
        ty,
        None,
        span,
    );
    out.push(op);
    r
}

/// `v` converted along `steps` (a [`cast_route`]), the rounding step in `round`.
fn convert(
    m: &mut ProgramModule,
    v: ValueId,
    steps: &[Step],
    round: Option<&Attr>,
    o: OpId,
    out: &mut Vec<OpId>,
) -> ValueId {
    steps.iter().fold(v, |v, &(d, rounds)| {
        cast(m, v, d, round.filter(|_| rounds), o, out)
    })
}

/// A cast's attributes: its `dtype`, and its `round` when named.
fn cast_attrs(d: DataType, round: Option<&Attr>) -> Attrs {
    let attrs = Attrs::of([("dtype", Attr::Ident(d.name().into()))]);
    match round {
        Some(r) => attrs.with("round", r.clone()),
        None => attrs,
    }
}

/// The constant with only the top bit of `d` set, which flips an unsigned order onto the
/// signed one ([`orders`]).
fn top_bit(m: &mut ProgramModule, d: DataType, span: SpanId, out: &mut Vec<OpId>) -> ValueId {
    crate::walk::constant(m, d, 1i64 << (d.bits() - 1), None, span, out)
}

/// Rewrite 1: the operands converted to the type the op computes in, op `o` on them into a
/// new tile of that type, an integer result wrapped or divided ([`ints`]), and the old result
/// defined by the conversion back. `None` when a typing rule refuses a new op.
fn widen(
    m: &mut ProgramModule,
    o: OpId,
    t: Target,
    out: &mut Vec<OpId>,
    converted: &mut Converted,
) -> Option<()> {
    let (insts, narrow) = instructions(m, o)?;
    let r = *m.ops[o].results.first()?;
    let Type::Tile(tile) = m.values[r].ty.clone() else {
        out.push(o);
        return Some(());
    };
    let opcode = m.ops[o].opcode;
    let wide = computes_in(t, opcode, narrow, &insts);
    let there = cast_route(t, narrow, wide)?;
    // An unsigned order on the signed twin: every operand's top bit flipped ([`orders`]).
    let span = m.ops[o].span;
    let flips = narrow.is_unsigned_int() && wide.is_signed_int() && orders(opcode);
    // The top bit, made where first needed: a compare whose operands were all flipped
    // before ([`Converted`]) needs none.
    let mut top = None;
    // The operands of the op's type (a select's mask is not).
    let operands: Vec<ValueId> = m.ops[o].operands.to_vec();
    let mut wide_operands = Vec::with_capacity(operands.len());
    for v in operands {
        let key = (v, wide, flips);
        if let Some(&w) = converted.get(&key) {
            wide_operands.push(w);
            continue;
        }
        let (is_tile, dtype) = match &m.values[v].ty {
            Type::Tile(x) => (true, Some(x.dtype)),
            Type::Scalar(d) => (false, Some(*d)),
            _ => (false, None),
        };
        let x = if flips && dtype == Some(narrow) {
            let top = *top.get_or_insert_with(|| top_bit(m, narrow, span, out));
            if is_tile {
                Seq::new(m, o, out).op(m, Opcode::TileXor, &[v, top], Attrs::new())?
            } else {
                crate::walk::scalar_op(m, Opcode::ScalarBitXor, v, top, None, span, out)
            }
        } else {
            v
        };
        let w = match m.values[x].ty {
            Type::Tile(ref x_ty) if x_ty.dtype == narrow => convert(m, x, &there, None, o, out),
            Type::Scalar(d) if d == narrow => cast(m, x, wide, None, o, out),
            _ => x,
        };
        if w != v {
            converted.insert(key, w);
        }
        wide_operands.push(w);
    }
    if tile.dtype != narrow {
        // A compare: the mask is the result; the twin of an unsigned type may take one
        // more step (uint16 -> int16 -> fp32 on A2A3).
        m.ops[o].operands = wide_operands.into_iter().collect();
        return rewrite(m, o, t, out, converted);
    }
    let wide_tile = TileType {
        dtype: wide,
        ..tile
    };
    let divides = narrow.is_int() && divides_exactly(opcode, narrow);
    if divides {
        let mut seq = Seq::new(m, o, out);
        for v in &mut wide_operands {
            *v = ints::full_tile(&mut seq, m, *v, &wide_tile)?;
        }
        m.ops[o].opcode = Opcode::TileDiv;
    }
    let wide_r = m.new_value_named(Type::Tile(wide_tile), None);
    m.values[wide_r].def = pto_ir::ValueDef::OpResult(o, 0);
    let op = &mut m.ops[o];
    op.operands = wide_operands.iter().copied().collect();
    op.results = inline_of(&[wide_r]);
    rewrite(m, o, t, out, converted)?;
    let mut seq = Seq::new(m, o, out);
    let x = match wide_operands[..] {
        [a, b] if divides => ints::divided(&mut seq, m, opcode, (a, b, wide_r), narrow)?,
        _ if narrow.is_int() && wide.is_float() && wraps_bytes(opcode) => {
            ints::wrap(&mut seq, m, wide_r, narrow)?
        }
        _ => wide_r,
    };
    let back = back_route(t, wide, narrow)?;
    // The old result, now defined by the last conversion (or the flip of the top bit back):
    // its uses stay as they are.
    let (steps, last) = if flips {
        let top = *top.get_or_insert_with(|| top_bit(m, narrow, span, out));
        (&back[..], (Opcode::TileXor, Some(top), Attrs::new()))
    } else {
        (
            &back[..back.len() - 1],
            (Opcode::TileCast, None, cast_attrs(narrow, None)),
        )
    };
    let x = convert(m, x, steps, None, o, out);
    let (opcode, second, attrs) = last;
    let operands: Vec<ValueId> = std::iter::once(x).chain(second).collect();
    let back_op = m.ops.push(pto_ir::Operation {
        opcode,
        operands: inline_of(&operands),
        results: inline_of(&[r]),
        attrs,
        span,
    });
    m.values[r].def = pto_ir::ValueDef::OpResult(back_op, 0);
    out.push(back_op);
    Some(())
}

/// Rewrite 4: a cast whose pair the target's `TCVT` lacks, along its exact route
/// ([`cast_route`]); op `o` becomes the last conversion.
fn route_cast(m: &mut ProgramModule, o: OpId, t: Target, out: &mut Vec<OpId>) {
    let Some(steps) = cast_steps(m, o, t) else {
        out.push(o);
        return;
    };
    let round = m.ops[o].attrs.get("round").cloned();
    let last = steps.len() - 1;
    let x = convert(
        m,
        m.ops[o].operands[0],
        &steps[..last],
        round.as_ref(),
        o,
        out,
    );
    let (d, rounds) = steps[last];
    let op = &mut m.ops[o];
    op.operands = inline_of(&[x]);
    op.attrs = cast_attrs(d, round.as_ref().filter(|_| rounds));
    out.push(o);
}

/// Rewrite 4 applies: op `o` is a tile cast that is no identity and whose pair the target's
/// `TCVT` lacks; the route it takes.
fn cast_steps(m: &ProgramModule, o: OpId, t: Target) -> Option<Vec<Step>> {
    let op = &m.ops[o];
    if op.opcode != Opcode::TileCast {
        return None;
    }
    let from = m.values[*op.operands.first()?].ty.as_tile()?.dtype;
    let to = result_dtype(m, o)?;
    let named = op
        .attrs
        .get("round")
        .and_then(Attr::as_ident)
        .and_then(RoundMode::from_word);
    RoundMode::for_cast(from, to, named)?;
    let steps = cast_route(t, from, to)?;
    (steps.len() > 1).then_some(steps)
}
