//! Which PTO-ISA instructions the lowering emits for an elementwise binary op, decided from
//! its operand types. The lowering (`pto-lower/src/lower/ops.rs`, `binary`) places the
//! instructions this module names, and the verifier's element-type check
//! (`verify/dtypes.rs`) judges the same list, so the two cannot disagree on a form.

use smallvec::SmallVec;

use super::{Isa, OpClass, Opcode};
use crate::DataType;
use crate::types::Type;

/// The operand form of an elementwise binary op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryForm {
    /// Two tiles (or tensors) of one shape.
    Tiles,
    /// A tile and a smaller one broadcast over it: an `R x 1` column per row (`row`), else a
    /// `1 x C` row per column; `big_first` when the big tile is the left operand.
    Broadcast {
        /// The small operand has one column (a value per row).
        row: bool,
        /// The big tile is the left operand.
        big_first: bool,
    },
    /// A tile (or tensor) and a scalar on the right.
    TileScalar,
    /// A scalar on the left and a tile (or tensor).
    ScalarTile,
}

/// The instructions of one op, in the order the lowering emits them.
pub type Insts = SmallVec<[Isa; 2]>;

/// Whether `a op b == b op a`, so the lowering may swap the operands into the
/// instruction's order.
pub fn commutes(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::TileAdd
            | Opcode::TileMul
            | Opcode::TileMax
            | Opcode::TileMin
            | Opcode::TileAnd
            | Opcode::TileOr
            | Opcode::TileXor
    )
}

impl BinaryForm {
    /// The form of operands typed `a` and `b`, `None` for two scalars.
    pub fn of(a: &Type, b: &Type) -> Option<BinaryForm> {
        let shape = |t: &Type| -> Option<Vec<u64>> {
            match t {
                Type::Tile(tt) => Some(tt.shape.to_vec()),
                // Tensors of one op have one shape (the typing rule); their tiles do too.
                Type::Tensor(_) => Some(Vec::new()),
                _ => None,
            }
        };
        Some(match (shape(a), shape(b)) {
            (Some(sa), Some(sb)) if sa == sb => BinaryForm::Tiles,
            (Some(sa), Some(sb)) => {
                let (na, nb) = (sa.iter().product::<u64>(), sb.iter().product::<u64>());
                let big_first = na >= nb;
                let small = if big_first { sb } else { sa };
                BinaryForm::Broadcast {
                    row: small.len() == 2 && small[1] == 1,
                    big_first,
                }
            }
            (Some(_), None) => BinaryForm::TileScalar,
            (None, Some(_)) => BinaryForm::ScalarTile,
            (None, None) => return None,
        })
    }

    /// The instructions the lowering emits for binary op `op` on elements of `d` in this
    /// form, or what has no PTO-ISA form (`"with a scalar"`), for the lowering's message.
    ///
    /// The op table's ISA column gives one instruction per form (tile-tile, tile-scalar,
    /// row broadcast, column broadcast). An operand order the instruction does not have
    /// takes a second instruction: `r - a` (broadcast `r` on the left) is `-(a - r)`, `s - a`
    /// is `(-a) + s`, `s / a` is `TDIVS` with the scalar first. Any other form without an
    /// instruction (`r / a` with the broadcast on the left, `a % r`, `s % a`, `a << s` ...)
    /// expands the small operand to the other's shape first (`TROWEXPAND` / `TCOLEXPAND`, or
    /// `TEXPANDS` for a scalar; placed by pto-lower's `legalize` pass as an op of its own),
    /// then takes the tile-tile instruction: `(1 / a) * r` would round twice.
    pub fn instructions(self, op: Opcode, d: DataType) -> Result<Insts, &'static str> {
        let form = |k: usize| op.info().isa.get(k).copied();
        let negate = if d.is_unsigned_int() {
            Isa::TNeg
        } else {
            Isa::TMulS
        };
        let one = |i: Isa| -> Insts { SmallVec::from_slice(&[i]) };
        let two = |i: Isa, j: Isa| -> Insts { SmallVec::from_slice(&[i, j]) };
        match self {
            BinaryForm::Tiles => form(0).map(one).ok_or("on two tiles"),
            BinaryForm::Broadcast { row, big_first } => {
                let expand = if row {
                    Isa::TRowExpand
                } else {
                    Isa::TColExpand
                };
                let expanded = || {
                    form(0)
                        .map(|tiles| two(expand, tiles))
                        .ok_or("with a broadcast operand")
                };
                match form(if row { 2 } else { 3 }) {
                    Some(isa) if big_first || commutes(op) => Ok(one(isa)),
                    Some(isa) if op == Opcode::TileSub => Ok(two(isa, negate)),
                    _ => expanded(),
                }
            }
            BinaryForm::TileScalar | BinaryForm::ScalarTile => {
                let expanded = || {
                    form(0)
                        .map(|tiles| two(Isa::TExpandS, tiles))
                        .ok_or("with a scalar")
                };
                match form(1) {
                    Some(isa) if self == BinaryForm::TileScalar || commutes(op) => Ok(one(isa)),
                    Some(_) if op == Opcode::TileSub => Ok(two(negate, Isa::TAddS)),
                    Some(_) if op == Opcode::TileDiv => Ok(one(Isa::TDivS)),
                    _ => expanded(),
                }
            }
        }
    }
}

/// The tile op a tensor-level op becomes (`tile_tensors`: the tile op of its name); any
/// other op itself.
pub fn tile_form(op: Opcode) -> Opcode {
    match op.class() {
        OpClass::TensorBinary | OpClass::TensorUnary => {
            Opcode::lookup("tile", op.info().mnemonic).unwrap_or(op)
        }
        _ => op,
    }
}

/// The instructions op `op` becomes with operands typed `operands` and results typed
/// `results`, and the element type of the values they compute on, for an op whose
/// instructions compute: an elementwise op by its operand form ([`BinaryForm`]; a tensor op
/// as the tile op of its name, `tile_tensors`), a compare or select by its tile-tile or
/// tile-scalar form (`TCMP` / `TCMPS`, `TSEL` / `TSELS`, as the lowering picks them), a
/// reduction, expansion, transpose, fill or padded load. `None` for other ops (casts,
/// matmuls and stores have rules of their own) and for a form the ISA lacks (the lowering's
/// error). The verifier's element-type check and pto-lower's `legalize` pass both read it.
pub fn computing_instructions(
    op: Opcode,
    operands: &[&Type],
    results: &[&Type],
) -> Option<(Insts, DataType)> {
    let class = op.class();
    let tile_op = tile_form(op);
    let one = |k: usize| -> Insts { tile_op.info().isa.get(k).copied().into_iter().collect() };
    let is_tile = |ty: &&Type| ty.as_tile().is_some();
    let first = || operands.first()?.dtype();
    let result = || results.first()?.dtype();
    Some(match class {
        OpClass::TileBinary | OpClass::TileBitwise | OpClass::TensorBinary => {
            let d = operands
                .iter()
                .find(|ty| !matches!(ty, Type::Scalar(_)))?
                .dtype()?;
            let (a, b) = (operands.first()?, operands.get(1)?);
            (BinaryForm::of(a, b)?.instructions(tile_op, d).ok()?, d)
        }
        OpClass::TileUnary
        | OpClass::TileUnaryFloat
        | OpClass::TileNot
        | OpClass::TensorUnary
        | OpClass::RowReduce
        | OpClass::ColReduce
        | OpClass::RowArgReduce
        | OpClass::RowExpand
        | OpClass::ColExpand
        | OpClass::Transpose => (one(0), first()?),
        OpClass::TileCompare => {
            let both = operands.iter().all(is_tile);
            let d = operands
                .iter()
                .copied()
                .find(|ty| ty.as_tile().is_some())?
                .dtype()?;
            (one(usize::from(!both)), d)
        }
        OpClass::Select => {
            let alt_tile = operands.get(2).is_some_and(is_tile);
            (one(usize::from(!alt_tile)), result()?)
        }
        OpClass::Full => ([Isa::TExpandS].into_iter().collect(), result()?),
        OpClass::Load if op == Opcode::TileLoadOr => {
            ([Isa::TFillPad].into_iter().collect(), result()?)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::TileType;
    use DataType::*;

    fn tile(shape: &[u64]) -> Type {
        Type::Tile(TileType::new(Fp32, shape.to_vec()))
    }

    #[test]
    fn forms_and_their_instructions() {
        let (big, col, row) = (tile(&[16, 64]), tile(&[16, 1]), tile(&[1, 64]));
        let s = Type::Scalar(Fp32);
        let f = |a: &Type, b: &Type| BinaryForm::of(a, b);
        assert_eq!(f(&big, &big), Some(BinaryForm::Tiles));
        assert_eq!(f(&big, &s), Some(BinaryForm::TileScalar));
        assert_eq!(f(&s, &big), Some(BinaryForm::ScalarTile));
        assert_eq!(f(&s, &s), None);
        let left_col = f(&col, &big);
        assert_eq!(
            left_col,
            Some(BinaryForm::Broadcast {
                row: true,
                big_first: false
            })
        );
        let insts = |form: Option<BinaryForm>, op, d| {
            form.map(|x| x.instructions(op, d).map(|v| v.to_vec()))
        };
        assert_eq!(
            insts(left_col, Opcode::TileDiv, Fp32),
            Some(Ok(vec![Isa::TRowExpand, Isa::TDiv]))
        );
        assert_eq!(
            insts(left_col, Opcode::TileSub, Fp32),
            Some(Ok(vec![Isa::TRowExpandSub, Isa::TMulS]))
        );
        assert_eq!(
            insts(f(&big, &row), Opcode::TileMax, Fp32),
            Some(Ok(vec![Isa::TColExpandMax]))
        );
        assert_eq!(
            insts(f(&s, &big), Opcode::TileSub, UInt16),
            Some(Ok(vec![Isa::TNeg, Isa::TAddS]))
        );
        assert_eq!(
            insts(f(&s, &big), Opcode::TileDiv, Int32),
            Some(Ok(vec![Isa::TDivS]))
        );
        // Forms without an instruction expand the small operand, then take the tile-tile one.
        assert_eq!(
            insts(f(&s, &big), Opcode::TileShl, Int32),
            Some(Ok(vec![Isa::TExpandS, Isa::TShl]))
        );
        assert_eq!(
            insts(f(&big, &col), Opcode::TileShl, Int32),
            Some(Ok(vec![Isa::TRowExpand, Isa::TShl]))
        );
        assert_eq!(
            insts(f(&big, &row), Opcode::TileRem, Fp32),
            Some(Ok(vec![Isa::TColExpand, Isa::TFMod]))
        );
    }
}
