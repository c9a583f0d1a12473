//! The fractal-shape rule of the cube buffers (part of checklist item 6; the table is in
//! [`super::target`]'s doc).
//!
//! pto-isa stores a tile of the L1 buffer (`Mat`), L0A (`Left`), L0B (`Right`) and L0C
//! (`Acc`) as whole fractals ("boxes"), and its `Tile` refuses a shape that is not:
//! "Layout rows must be divisible by inner box rows" / "Layout cols must be divisible by
//! inner box cols" (`include/pto/common/pto_tile.hpp`; `shared/spec/pto-isa.md` 5.1;
//! `pto-lower/tests/cpp/pto_decls.hpp` models it). The row rule is waived for a one-row
//! tile. A kernel the verifier passes must not emit such a tile, so a matmul operand or
//! result of another shape is refused here, at the matmul, naming M / K / N.

use crate::diag::Diag;
use crate::entity::SpanId;
use crate::typefmt::short_tile;
use crate::types::{MemorySpace, TileType};

use super::target::buffer_name;

/// Rows of a 512-byte fractal box stored row-major, columns of one stored column-major,
/// and both extents of the 1024-byte `Acc` box.
const BOX_SIDE: u64 = 16;

/// Bytes of one row of a row-major 512-byte box (one column of a column-major one).
const BOX_LINE_BYTES: u64 = 32;

/// How a tile takes part in a matmul, for messages in M / K / N terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// The left operand, `M x K`: a `Mat` tile moved to `Left`.
    Left,
    /// The right operand, `K x N`: a `Mat` tile moved to `Right`.
    Right,
    /// The result or the accumulator, `M x N`, in `Acc`.
    Acc,
}

impl Role {
    /// Its name with its article: `a left operand`.
    fn article(self) -> &'static str {
        match self {
            Role::Acc => "an",
            Role::Left | Role::Right => "a",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Role::Left => "left operand",
            Role::Right => "right operand",
            Role::Acc => "accumulator",
        }
    }

    /// The names of its rows and columns.
    fn dims(self) -> (&'static str, &'static str) {
        match self {
            Role::Left => ("M", "K"),
            Role::Right => ("K", "N"),
            Role::Acc => ("M", "N"),
        }
    }

    /// The buffers it passes through on every target: an operand reaches `Left` /
    /// `Right` from a `Mat` tile of its shape (loaded, or moved there from `Vec` / `Acc`).
    fn spaces(self, from_mat: bool) -> &'static [MemorySpace] {
        match (self, from_mat) {
            (Role::Left, true) => &[MemorySpace::Mat, MemorySpace::Left],
            (Role::Left, false) => &[MemorySpace::Left],
            (Role::Right, true) => &[MemorySpace::Mat, MemorySpace::Right],
            (Role::Right, false) => &[MemorySpace::Right],
            (Role::Acc, _) => &[MemorySpace::Acc],
        }
    }
}

/// The multiples a `rows x cols` tile of `bits`-bit elements needs in `space`, as
/// `(rows, cols)`; 1 where nothing is required. `None` for a buffer without boxes.
fn multiples(space: MemorySpace, rows: u64, bits: u64) -> Option<(u64, u64)> {
    // Elements in one 32-byte line of a box (32 for int8, 16 for fp16, 8 for fp32).
    let line = (BOX_LINE_BYTES * 8 / bits.max(1)).max(1);
    let row_rule = |m: u64| if rows == 1 { 1 } else { m };
    match space {
        // A one-row Mat tile is stored unboxed, its row padded to 32 bytes by the lowering.
        MemorySpace::Mat if rows == 1 => Some((1, 1)),
        // Row-major 512-byte boxes: 16 rows of 32 bytes.
        MemorySpace::Mat | MemorySpace::Left => Some((row_rule(BOX_SIDE), line)),
        // Column-major 512-byte boxes: 32 bytes of rows by 16 columns.
        MemorySpace::Right => Some((row_rule(line), BOX_SIDE)),
        // The 1024-byte box: 16 x 16 elements.
        MemorySpace::Acc => Some((row_rule(BOX_SIDE), BOX_SIDE)),
        MemorySpace::Vec | MemorySpace::Bias | MemorySpace::Ddr => None,
    }
}

/// The largest of the multiples `spaces` ask of `tt` (all are powers of two), as
/// `(rows, cols)`.
fn combined(tt: &TileType, spaces: &[MemorySpace]) -> (u64, u64) {
    let (rows, _) = tt.rows_cols();
    let bits = u64::from(tt.dtype.bits());
    spaces
        .iter()
        .filter_map(|&s| multiples(s, rows, bits))
        .fold((1, 1), |(r, c), (r2, c2)| (r.max(r2), c.max(c2)))
}

/// The problem with `tt` as a matmul's `role` tile (`from_mat`: an operand reached from a
/// `Mat` tile of its own shape, i.e. not extracted from a larger tile), if any.
pub(super) fn check_role(tt: &TileType, role: Role, from_mat: bool, span: SpanId) -> Option<Diag> {
    if tt.shape.len() != 2 || tt.dtype == crate::DataType::Bool {
        return None;
    }
    let spaces = role.spaces(from_mat);
    let (rm, cm) = combined(tt, spaces);
    let (rows, cols) = tt.rows_cols();
    let (rname, cname) = role.dims();
    let (what, n, need, dim) = if !cols.is_multiple_of(cm) {
        ("columns", cols, cm, cname)
    } else if !rows.is_multiple_of(rm) {
        ("rows", rows, rm, rname)
    } else {
        return None;
    };
    let one = if what == "rows" { "1 row or " } else { "" };
    // pto-isa's own word in its message.
    let short = if what == "rows" { "rows" } else { "cols" };
    let buffers = spaces
        .iter()
        .map(|&s| buffer_name(s))
        .collect::<Vec<_>>()
        .join(" and the ");
    Some(
        Diag::new(
            span,
            format!(
                "matmul {} {} has {dim} = {n} {}; {} {} of {} needs {one}a multiple of {need} {what}",
                role.name(),
                short_tile(tt),
                counted(n, what),
                role.article(),
                role.name(),
                tt.dtype,
            ),
        )
        .note(format!(
            "pto-isa stores it in the {buffers} as whole fractals ({}) and refuses another shape (\"Layout {short} must be divisible by inner box {short}\")",
            box_text(role, tt),
        ))
        .note(format!(
            "make {dim} a multiple of {need}: at the edge of a tensor the tile's valid region can still be smaller"
        )),
    )
}

/// The problem with a tile that lives in `space` outside a matmul's own operands (a move
/// into `Mat`, `Left`, `Right` or `Acc`, or a tile placed there), if any.
pub(super) fn check_in(tt: &TileType, space: MemorySpace, span: SpanId) -> Option<Diag> {
    if tt.dtype == crate::DataType::Bool {
        return None;
    }
    let (rows, cols) = tt.rows_cols();
    let (rm, cm) = multiples(space, rows, u64::from(tt.dtype.bits()))?;
    let (what, n, need) = if !cols.is_multiple_of(cm) {
        ("columns", cols, cm)
    } else if !rows.is_multiple_of(rm) {
        ("rows", rows, rm)
    } else {
        return None;
    };
    let one = if what == "rows" { "1 row or " } else { "" };
    // pto-isa's own word in its message.
    let short = if what == "rows" { "rows" } else { "cols" };
    Some(
        Diag::new(
            span,
            format!(
                "{} in the {} has {n} {}; a tile of {} there needs {one}a multiple of {need} {what}",
                short_tile(tt),
                buffer_name(space),
                counted(n, what),
                tt.dtype,
            ),
        )
        .note(format!(
            "pto-isa stores it as whole fractals and refuses another shape (\"Layout {short} must be divisible by inner box {short}\")"
        )),
    )
}

/// `rows`, or `row` for one.
fn counted(n: u64, what: &str) -> &str {
    if n == 1 {
        what.trim_end_matches('s')
    } else {
        what
    }
}

/// `16 rows x 32 bytes`-style text for the boxes of a role's buffers.
fn box_text(role: Role, tt: &TileType) -> String {
    let line = BOX_LINE_BYTES * 8 / u64::from(tt.dtype.bits()).max(1);
    match role {
        Role::Left => format!("{BOX_SIDE} rows x {line} {} columns", tt.dtype),
        Role::Right => format!(
            "{BOX_SIDE} rows x {line} {} columns in Mat, {line} rows x {BOX_SIDE} columns in Right",
            tt.dtype
        ),
        Role::Acc => format!("{BOX_SIDE} x {BOX_SIDE} elements"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DataType;

    fn t(shape: [u64; 2], d: DataType) -> TileType {
        TileType::new(d, shape.to_vec())
    }

    #[test]
    fn int8_operands_need_32_columns_and_the_right_one_32_rows() {
        let s = SpanId::NONE;
        assert!(check_role(&t([16, 32], DataType::Int8), Role::Left, true, s).is_none());
        let e = check_role(&t([16, 16], DataType::Int8), Role::Left, true, s).unwrap();
        assert!(e.message.contains("K = 16 columns"), "{}", e.message);
        assert!(
            e.message.contains("multiple of 32 columns"),
            "{}",
            e.message
        );
        // Right: K rows of whole 32-byte column lines, N columns of whole Mat rows.
        assert!(check_role(&t([32, 32], DataType::Int8), Role::Right, true, s).is_none());
        let e = check_role(&t([32, 16], DataType::Int8), Role::Right, true, s).unwrap();
        assert!(e.message.contains("N = 16 columns"), "{}", e.message);
        let e = check_role(&t([16, 32], DataType::Int8), Role::Right, true, s).unwrap();
        assert!(e.message.contains("K = 16 rows"), "{}", e.message);
    }

    #[test]
    fn rows_are_whole_boxes_or_one() {
        let s = SpanId::NONE;
        for d in [DataType::Fp16, DataType::Bf16, DataType::Fp32] {
            assert!(check_role(&t([1, 16], d), Role::Left, true, s).is_none());
            assert!(check_role(&t([16, 16], d), Role::Left, true, s).is_none());
            assert!(check_role(&t([8, 16], d), Role::Left, true, s).is_some());
            // fp32: 8-element lines, but the Mat tile of the right operand has 16-row boxes.
            assert!(check_role(&t([8, 16], d), Role::Right, true, s).is_some());
            assert!(check_role(&t([16, 8], d), Role::Acc, true, s).is_some());
            assert!(check_role(&t([1, 16], d), Role::Acc, true, s).is_none());
        }
        // An fp32 left operand may have 8 columns (one 32-byte line).
        assert!(check_role(&t([16, 8], DataType::Fp32), Role::Left, true, s).is_none());
        // Extracted operands skip the Mat tile: an fp32 right operand of 8 rows is whole
        // column-major boxes.
        assert!(check_role(&t([8, 16], DataType::Fp32), Role::Right, false, s).is_none());
    }

    #[test]
    fn a_one_row_mat_tile_is_unboxed_and_vec_has_no_boxes() {
        let s = SpanId::NONE;
        assert!(check_in(&t([1, 5], DataType::Int8), MemorySpace::Mat, s).is_none());
        assert!(check_in(&t([32, 16], DataType::Int8), MemorySpace::Mat, s).is_some());
        assert!(check_in(&t([8, 8], DataType::Fp32), MemorySpace::Vec, s).is_none());
    }
}
