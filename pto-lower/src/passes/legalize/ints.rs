//! Integer results computed in `f32` (rewrite 1 of the pass): the wrap of ring arithmetic,
//! and integer division and remainders of types of at most 16 bits
//! (`pto_ir::ops::dtypes::divides_exactly`, which says why `f32` gives their meaning).

use pto_ir::{Attr, Attrs, DataType, OpId, Opcode, ProgramModule, SpanId, Type, ValueId};

use super::cast;
use crate::walk::{float_constant, inline_of, new_op_named};
use pto_ir::sem::RoundMode;

/// New ops at one op's span, appended to `out`; each result's type from the op's typing
/// rule.
pub(super) struct Seq<'a> {
    span: SpanId,
    o: OpId,
    out: &'a mut Vec<OpId>,
}

impl<'a> Seq<'a> {
    /// Ops standing for op `o`, appended to `out`.
    pub(super) fn new(m: &ProgramModule, o: OpId, out: &'a mut Vec<OpId>) -> Self {
        Seq {
            span: m.ops[o].span,
            o,
            out,
        }
    }

    /// `opcode(operands)` with `attrs`; `None` when the typing rule refuses it (the op is
    /// then left as it was and the lowering reports it).
    pub(super) fn op(
        &mut self,
        m: &mut ProgramModule,
        opcode: Opcode,
        operands: &[ValueId],
        attrs: Attrs,
    ) -> Option<ValueId> {
        let ty = pto_ir::ops::infer(m, opcode, operands, &attrs)
            .ok()?
            .first()
            .cloned()?;
        let (op, v) = new_op_named(m, opcode, inline_of(operands), attrs, ty, None, self.span);
        self.out.push(op);
        Some(v)
    }

    /// `v` expanded to `like`'s shape by `expand`: a scalar filled into a fully valid tile
    /// (`tile.full`), a column or row by `tile.row_expand` / `tile.col_expand`, which keeps
    /// its valid region (the typing rule's).
    pub(super) fn expand(
        &mut self,
        m: &mut ProgramModule,
        v: ValueId,
        like: &pto_ir::TileType,
        expand: Opcode,
    ) -> Option<ValueId> {
        if expand == Opcode::TileFull {
            let full = pto_ir::TileType::new(like.dtype, like.shape.clone());
            let (op, t) = new_op_named(
                m,
                expand,
                inline_of(&[v]),
                Attrs::default(),
                Type::Tile(full),
                None,
                self.span,
            );
            self.out.push(op);
            return Some(t);
        }
        let dims = like.shape.iter().map(|&d| Attr::Int(d as i64)).collect();
        self.op(m, expand, &[v], Attrs::of([("shape", Attr::List(dims))]))
    }

    /// An `f32` scalar constant.
    fn f32(&mut self, m: &mut ProgramModule, c: f64) -> ValueId {
        float_constant(m, DataType::Fp32, c, self.span, self.out)
    }

    /// `x` rounded to an integral `f32` in `mode`.
    fn round(&mut self, m: &mut ProgramModule, x: ValueId, mode: RoundMode) -> ValueId {
        let word = Attr::Ident(mode.word().into());
        cast(m, x, DataType::Fp32, Some(&word), self.o, self.out)
    }
}

/// `x` (an `f32` tile of integral values) wrapped to the range of the integer type `d` as
/// the semantics' arithmetic wraps: `x - 2^n * floor((x + 2^(n - 1)) / 2^n)` when signed,
/// `x - 2^n * floor(x / 2^n)` when not, for `d` of `n <= 16` bits; every step is exact on
/// values below 2^24.
pub(super) fn wrap(
    seq: &mut Seq<'_>,
    m: &mut ProgramModule,
    x: ValueId,
    d: DataType,
) -> Option<ValueId> {
    let modulus = f64::from(1u32 << d.bits());
    let shifted = if d.is_signed_int() {
        let half = seq.f32(m, modulus / 2.0);
        seq.op(m, Opcode::TileAdd, &[x, half], Attrs::new())?
    } else {
        x
    };
    let inv = seq.f32(m, 1.0 / modulus);
    let q = seq.op(m, Opcode::TileMul, &[shifted, inv], Attrs::new())?;
    let q = seq.round(m, q, RoundMode::CastFloor);
    let n = seq.f32(m, modulus);
    let k = seq.op(m, Opcode::TileMul, &[q, n], Attrs::new())?;
    seq.op(m, Opcode::TileSub, &[x, k], Attrs::new())
}

/// Operand `v` of an integer division as a tile of `like`'s shape: a scalar filled into one
/// (`tile.full`), a column or row expanded (`tile.row_expand` / `tile.col_expand`), so the
/// zero-divisor selection and the remainder see one element per result element.
pub(super) fn full_tile(
    seq: &mut Seq<'_>,
    m: &mut ProgramModule,
    v: ValueId,
    like: &pto_ir::TileType,
) -> Option<ValueId> {
    let expand = match &m.values[v].ty {
        Type::Scalar(_) => Opcode::TileFull,
        Type::Tile(t) if t.shape != like.shape => {
            let (rows, cols) = t.rows_cols();
            if cols == 1 && rows != 1 {
                Opcode::TileRowExpand
            } else {
                Opcode::TileColExpand
            }
        }
        _ => return Some(v),
    };
    seq.expand(m, v, like, expand)
}

/// The integer `opcode` (`/`, `%` / `fmod`, `floor_mod`) of `a` by `b` on `d` values held in
/// `f32` tiles, given `q`, their `f32` quotient: `trunc(q)` (wrapped: `MIN / -1` wraps to
/// `MIN`), or `a - trunc(q) * b`, then for `floor_mod` `+ b` where that and `b` differ in sign;
/// `0` (a quotient) or `a` (a remainder) where `b` is zero, as the semantics gives.
pub(super) fn divided(
    seq: &mut Seq<'_>,
    m: &mut ProgramModule,
    opcode: Opcode,
    (a, b, q): (ValueId, ValueId, ValueId),
    d: DataType,
) -> Option<ValueId> {
    let none = Attrs::new;
    let t = seq.round(m, q, RoundMode::CastTrunc);
    let zero = seq.f32(m, 0.0);
    let nonzero = seq.op(m, Opcode::TileNe, &[b, zero], none())?;
    if opcode == Opcode::TileDiv {
        let x = seq.op(m, Opcode::TileSelect, &[nonzero, t, zero], none())?;
        return wrap(seq, m, x, d);
    }
    let tb = seq.op(m, Opcode::TileMul, &[t, b], none())?;
    let r = seq.op(m, Opcode::TileSub, &[a, tb], none())?;
    let r = seq.op(m, Opcode::TileSelect, &[nonzero, r, a], none())?;
    if opcode != Opcode::TileFloorMod {
        return Some(r);
    }
    // `r * b` may round, but not to the other sign or to zero.
    let rb = seq.op(m, Opcode::TileMul, &[r, b], none())?;
    let apart = seq.op(m, Opcode::TileLt, &[rb, zero], none())?;
    let fixed = seq.op(m, Opcode::TileAdd, &[r, b], none())?;
    seq.op(m, Opcode::TileSelect, &[apart, fixed, r], none())
}
