//! Checklist item 6: target legality, and the targets themselves.
//!
//! Buffer capacities are PTO-ISA's `include/pto/common/buffer_limits.hpp` (see
//! `shared/spec/pto-isa.md` §5.4); the matmul limit is `docs/isa/TMATMUL.md`. The lowering's
//! bufferize pass reads the same [`Target`] rows.
//!
//! # Tile shapes per buffer
//!
//! What the lowering declares in each buffer (`emit/cpp.rs`, `put_tile_type_valid`), and
//! the shape pto-isa's `Tile` accepts there (`pto_tile.hpp`, `Tile::InnerRows` /
//! `InnerCols`: "Layout rows / cols must be divisible by inner box rows / cols";
//! `shared/spec/pto-isa.md` 5.1; modelled in `pto-lower/tests/cpp/pto_decls.hpp`). The
//! same on A2A3 and A5; `line` is a 32-byte row of elements: 32 for `int8`, 16 for
//! `fp16` / `bf16`, 8 for `fp32` / `int32`.
//!
//! | buffer | layout (both targets unless said) | rows | columns |
//! | --- | --- | --- | --- |
//! | `Vec`, `Bias` | row-major, unboxed (a `DN` column tile column-major) | any | multiple of `line`, or 1 column |
//! | `Mat`, rows > 1 | `ColMajor` + `SLayout::RowMajor`, 512-byte boxes (NZ) | multiple of 16 | multiple of `line` |
//! | `Mat`, 1 row | row-major, unboxed (a bias on its way to `Bias`) | 1 | any (the lowering pads the row to 32 bytes) |
//! | `Left` | A2A3 `RowMajor`, A5 `ColMajor`, + `SLayout::RowMajor`, 512 | 1 or multiple of 16 | multiple of `line` |
//! | `Right` | `RowMajor` + `SLayout::ColMajor`, 512 | 1 or multiple of `line` | multiple of 16 |
//! | `Acc` | `ColMajor` + `SLayout::RowMajor`, 1024-byte boxes | 1 or multiple of 16 | multiple of 16 |
//!
//! Every route of a matmul operand passes through a `Mat` tile of the operand's shape and
//! dtype (`pto-lower`'s `tile_info.rs`): a load into `Mat`, a vector result `Vec -> Mat`
//! (on A2A3 the vector-to-cube transfer), a matmul result `Acc -> Mat` (dtype kept); then
//! `TMOV` `Mat -> Left / Right`. Only an operand cut out of a bigger tile by `extract`
//! skips it (`TEXTRACT` into `Left` / `Right`), but its source is a `Mat` tile (checked
//! there). So for `M x K` by `K x N` of any input
//! dtype: M is 1 or a multiple of 16; K a multiple of 16 (`Mat` rows of the right operand,
//! 32 for `int8`: `Left` columns); N a multiple of 16 (`Acc`, `Right`; 32 for `int8`: `Mat`
//! columns). Padding the physical tiles instead would not do: `TMOV` and `TMATMUL` want
//! equal static shapes on both sides, so the padding would spread to every tile of the
//! chain. The verifier refuses at the matmul (`fractal.rs`), naming M, K or N and the
//! multiple; a tile moved into a cube buffer by hand is checked in that buffer.

use std::ops::Range;

use crate::DataType;
use crate::attr::Attr;
use crate::diag::Diag;
use crate::entity::{EntitySet, OpId, SecondaryMap, SpanId, ValueId};
use crate::ops::{Isa, OpClass, Opcode};
use crate::typefmt::short_tile;
use crate::types::{MemorySpace, TileType, Type};

use super::dtypes;
use super::extract;
use super::fractal::{self, Role};
use super::{Bodies, DefBy, Defs, Verifier};

/// An accelerator generation and its on-chip buffer capacities, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The canonical name (`A2A3`, `A5`).
    pub name: &'static str,
    /// Other spellings accepted for the module attribute `arch`.
    pub aliases: &'static [&'static str],
    /// Unified buffer (`Vec`).
    pub ub: u64,
    /// L1 / CBUF (`Mat`).
    pub l1: u64,
    /// L0A (`Left`).
    pub l0a: u64,
    /// L0B (`Right`).
    pub l0b: u64,
    /// L0C (`Acc`).
    pub l0c: u64,
    /// Bias table (`Bias`).
    pub bias: u64,
}

const KIB: u64 = 1024;

/// The largest M, K or N of one matmul instruction.
pub const MATMUL_MAX_DIM: u64 = 4095;

/// A row-major tile's rows must be a multiple of this many bytes.
pub const ROW_ALIGN_BYTES: u64 = 32;

/// A2A3's fixed temporary in the unified buffer: bytes 184 KiB to 192 KiB (pto-isa's
/// `TMP_UB_OFFSET` and `TMP_UB_SIZE`, `include/pto/common/constants.hpp`); see
/// [`Target::fixed_temp`].
pub const A2A3_TMP_UB: Range<u64> = 184 * KIB..192 * KIB;

impl Target {
    /// Ascend 910B / 910C (`PTOv2`, this project's default).
    pub const A2A3: Target = Target {
        name: "A2A3",
        aliases: &["a2a3", "A3", "a3", "PTOv2"],
        ub: 192 * KIB,
        l1: 512 * KIB,
        l0a: 64 * KIB,
        l0b: 64 * KIB,
        l0c: 128 * KIB,
        bias: KIB,
    };

    /// Ascend 950 (`PTOv3`).
    pub const A5: Target = Target {
        name: "A5",
        aliases: &["a5", "PTOv3"],
        ub: 256 * KIB,
        l1: 512 * KIB,
        l0a: 64 * KIB,
        l0b: 64 * KIB,
        l0c: 256 * KIB,
        bias: 4 * KIB,
    };

    /// Every known target.
    pub const ALL: [Target; 2] = [Target::A2A3, Target::A5];

    /// The capacity of an on-chip buffer in bytes; `None` for global memory.
    pub fn capacity(&self, space: MemorySpace) -> Option<u64> {
        match space {
            MemorySpace::Ddr => None,
            MemorySpace::Vec => Some(self.ub),
            MemorySpace::Mat => Some(self.l1),
            MemorySpace::Left => Some(self.l0a),
            MemorySpace::Right => Some(self.l0b),
            MemorySpace::Acc => Some(self.l0c),
            MemorySpace::Bias => Some(self.bias),
        }
    }

    /// The bytes of `space` that instruction `isa` overwrites as a temporary at a fixed
    /// address on this target, as the lowering emits it; no tile or scratch tile may lie
    /// there in a kernel that runs it. `None` when it uses none.
    ///
    /// From pto-isa's headers (`include/pto/common/constants.hpp`: `TMP_UB_OFFSET` = 184 KiB,
    /// `TMP_UB_SIZE` = 8 KiB, the top 8 KiB of A2A3's 192 KiB unified buffer). On A2A3:
    /// - the row broadcasts `TROWEXPANDADD` / `SUB` / `MUL` / `DIV` / `MAX` / `MIN`
    ///   (`npu/a2a3/TRowExpandBinOp.hpp`, `TRowExpandBin`) whose per-row operand is
    ///   column-major and no `tmp` tile is passed, which is the form the emitter prints (a
    ///   column, or a column view of a one-element row); every dtype. The row-major form (one
    ///   32-byte block per row) uses none;
    /// - `TEXTRACT` from a 1-byte Vec ND tile into two NZ tiles with an odd byte width
    ///   (`npu/a2a3/TExtract.hpp`, `TExtractNdToNzWiden`): the lowering never emits it;
    /// - `TCVT`: `npu/a2a3/TCvt.hpp` mentions `TMP_UB_OFFSET` only in comments: its
    ///   conversions that need a temporary take a `tmp` tile, the others need none.
    ///
    /// A5's headers (`npu/a5/`) use no fixed-address temporary.
    pub fn fixed_temp(&self, isa: Isa, space: MemorySpace) -> Option<Range<u64>> {
        (self.name == Target::A2A3.name && space == MemorySpace::Vec && isa.is_row_broadcast())
            .then_some(A2A3_TMP_UB)
    }

    /// Whether the target has a `TMOV` from a tile in `from` to one in `to` (pto-isa.md,
    /// TMOV): Mat to Left, Right or Bias, Vec to Vec and Acc to Mat everywhere; A5 adds Acc
    /// to Vec and Vec to Mat. Acc to Acc, and anything into Acc or out of Left / Right /
    /// Bias, exists on no target.
    pub fn has_move(&self, from: MemorySpace, to: MemorySpace) -> bool {
        use MemorySpace::*;
        match (from, to) {
            (Mat, Left | Right | Bias) | (Vec, Vec) | (Acc, Mat) => true,
            (Acc, Vec) | (Vec, Mat) => self.name == Target::A5.name,
            _ => false,
        }
    }

    /// Whether the target computes `floor_mod` (`TREM` / `TREMS`) on tiles of `d` with the
    /// semantics module's meaning: fp32, fp16 and bf16 on both (16-bit floats through fp32,
    /// pto-lower's `legalize` pass, as is their meaning). A2A3 (`npu/a2a3/TRem.hpp`,
    /// `TRemS.hpp`) takes fp32 and int32, but computes int32 through fp32 (exact only below
    /// 2^24) and its `TREM` leaves the divisor tile holding the fp32 conversion of its
    /// elements. A5 (`npu/a5/TRem.hpp`) takes fp16, fp32 and the 2-, 4- and 8-byte integers,
    /// but its integer remainder truncates (`vmod`; for 64 bits `Int64Rem`, `a - trunc(a /
    /// b) * b`, 0 by zero): the dividend's sign, `a % b`'s meaning; its fp16 one rounds
    /// toward zero and fixes the sign in fp16. No integers on either.
    pub fn floor_mods(&self, d: DataType) -> bool {
        matches!(d, DataType::Fp16 | DataType::Bf16 | DataType::Fp32)
    }

    /// Whether the target's instructions for `op` take tiles (and tensors and scalars)
    /// whose elements are all `d`, in every operand form the lowering has for it (for a
    /// binary op: two tiles, a scalar on either side, a row or column broadcast on either
    /// side): none of the element-type rules the verifier applies refuses them. A cast is
    /// judged as the conversion from `d` to `d` with a named rounding.
    pub fn takes(&self, op: Opcode, d: DataType) -> bool {
        let mask = Type::Tile(TileType::new(DataType::Bool, vec![16, 64]));
        let big = Type::Tile(TileType::new(d, vec![16, 64]));
        let col = Type::Tile(TileType::new(d, vec![16, 1]));
        let row = Type::Tile(TileType::new(d, vec![1, 64]));
        let s = Type::Scalar(d);
        let rint = Attr::Ident("rint".into());
        let forms: Vec<Vec<&Type>> = match op.class() {
            OpClass::TileBinary | OpClass::TileBitwise => vec![
                vec![&big, &big],
                vec![&big, &s],
                vec![&s, &big],
                vec![&big, &col],
                vec![&col, &big],
                vec![&big, &row],
                vec![&row, &big],
            ],
            OpClass::TileCompare => vec![vec![&big, &big], vec![&big, &s]],
            OpClass::Select => vec![vec![&mask, &big, &big], vec![&mask, &big, &s]],
            OpClass::Full => vec![vec![&s]],
            _ => vec![vec![&big]],
        };
        forms
            .iter()
            .all(|operands| dtypes::problem(*self, op, Some(&rint), operands, &[&big]).is_none())
    }

    /// Whether the target's instruction `inst` (`TADD`, `TSELS`) takes elements of `d`
    /// (its row of `ops/dtypes.rs`; an instruction without a row moves any element).
    pub fn takes_inst(&self, inst: &str, d: DataType) -> bool {
        crate::ops::dtypes::row(inst).is_none_or(|r| {
            if self.name == Target::A5.name {
                r.a5.contains(d)
            } else {
                r.a2a3.contains(d)
            }
        })
    }

    /// Whether the target's `TCVT` converts `from` to `to`.
    pub fn converts(&self, from: DataType, to: DataType) -> bool {
        dtypes::converts(*self, from, to)
    }

    /// `A2A3 (also a2a3, A3, a3, PTOv2), A5 (also a5, PTOv3)`, for messages.
    pub fn known_names() -> String {
        Target::ALL
            .iter()
            .map(|t| format!("{} (also {})", t.name, t.aliases.join(", ")))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Looks a target up by its name or one of its aliases (`PTOv2` is `A2A3`).
pub fn target(name: &str) -> Option<Target> {
    Target::ALL
        .into_iter()
        .find(|t| t.name == name || t.aliases.contains(&name))
}

/// The buffer's name in messages: `unified buffer (Vec)`.
pub fn buffer_name(space: MemorySpace) -> &'static str {
    match space {
        MemorySpace::Ddr => "global memory (DDR)",
        MemorySpace::Vec => "unified buffer (Vec)",
        MemorySpace::Mat => "L1 buffer (Mat)",
        MemorySpace::Left => "L0A buffer (Left)",
        MemorySpace::Right => "L0B buffer (Right)",
        MemorySpace::Acc => "L0C buffer (Acc)",
        MemorySpace::Bias => "bias table (Bias)",
    }
}

/// `256 KiB`, or `1000 bytes` when not a whole number of KiB.
fn bytes_str(b: u64) -> String {
    if b.is_multiple_of(KIB) {
        format!("{} KiB", b / KIB)
    } else {
        format!("{b} bytes")
    }
}

/// A tile's size in bytes, `None` on overflow.
fn tile_bytes(t: &TileType) -> Option<u64> {
    let elems = t
        .shape
        .iter()
        .try_fold(1u64, |acc, &s| acc.checked_mul(s))?;
    Some(elems.checked_mul(u64::from(t.dtype.bits()))?.div_ceil(8))
}

/// The target of a module without attribute `arch` (A2A3).
pub const DEFAULT_ARCH: &str = "PTOv2";

pub(super) fn check(
    v: &mut Verifier<'_>,
    bodies: &Bodies,
    defs: &Defs,
    well_typed: &EntitySet<ValueId>,
    typed_ops: &EntitySet<OpId>,
) {
    let m = v.m;
    let name = match m.attrs.get("arch") {
        // No `arch`: the default target, the one the lowering uses.
        None => DEFAULT_ARCH,
        Some(Attr::Str(s) | Attr::Ident(s)) => s.as_str(),
        Some(_) => {
            v.error(
                SpanId::NONE,
                "module attribute `arch` must be a string naming the target",
            );
            return;
        }
    };
    let Some(t) = target(name) else {
        v.push(
            Diag::new(
                SpanId::NONE,
                format!("unknown target architecture `{name}`"),
            )
            .note(format!("known targets: {}", Target::known_names())),
        );
        return;
    };
    let tile = |val: ValueId| -> Option<&TileType> {
        if well_typed.contains(val) {
            m.values.get(val).and_then(|d| d.ty.as_tile())
        } else {
            None
        }
    };
    let mut p = Placement {
        t,
        flags: SecondaryMap::with_len(m.values.len(), 0),
        too_large: Vec::new(),
        misaligned: Vec::new(),
        unboxed: Vec::new(),
    };
    // Where each tile lives: from the ops that use it as a matmul operand (anchored there)
    // and from what defines it (anchored at the definition).
    let home = |p: &mut Placement, val: ValueId, space: MemorySpace, span: SpanId| {
        p.flags[val] |= HAS_HOME;
        if defs[val].is_some()
            && let Some(tt) = tile(val)
        {
            p.place(val, tt, space, span);
        }
    };
    for &o in bodies.all_ops() {
        let op = &m.ops[o];
        let class = op.opcode.class();
        let roles: &[MemorySpace] = match class {
            OpClass::Matmul => &[MemorySpace::Left, MemorySpace::Right],
            OpClass::MatmulAcc => &[MemorySpace::Acc, MemorySpace::Left, MemorySpace::Right],
            OpClass::MatmulBias => &[MemorySpace::Left, MemorySpace::Right, MemorySpace::Bias],
            _ => &[],
        };
        for (&x, &space) in op.operands.iter().zip(roles) {
            let role = match space {
                MemorySpace::Left => Some(Role::Left),
                MemorySpace::Right => Some(Role::Right),
                MemorySpace::Acc => Some(Role::Acc),
                _ => None,
            };
            if let (Some(role), Some(tt), true) = (role, tile(x), defs[x].is_some()) {
                // An extracted operand is cut out of its source tile (`TEXTRACT`); any
                // other reaches Left / Right from a Mat tile of its own shape.
                let extract = match defs[x].map(|d| d.by) {
                    Some(DefBy::Op(e)) if m.ops[e].opcode.class() == OpClass::Extract => Some(e),
                    _ => None,
                };
                p.check_role(x, tt, role, extract.is_none(), op.span);
                // Its offsets and shapes against `TEXTRACT`'s block rule (`extract.rs`).
                if let Some(e) = extract
                    && let Some(&src) = m.ops[e].operands.first()
                    && let Some(st) = tile(src)
                {
                    for d in extract::check(m, defs, &t, e, space, (st, tt)) {
                        v.push(d);
                    }
                }
                // `TEXTRACT` into Left / Right reads a Mat tile: the lowering places the
                // source there, so it must be whole fractals too.
                if let Some(&src) = extract.and_then(|e| m.ops[e].operands.first())
                    && defs[src].is_some()
                    && let Some(st) = tile(src)
                {
                    p.place(src, st, MemorySpace::Mat, op.span);
                }
            }
            home(&mut p, x, space, op.span);
        }
        let result_home = match class {
            OpClass::Matmul | OpClass::MatmulAcc | OpClass::MatmulBias => Some(MemorySpace::Acc),
            OpClass::Move => op
                .attrs
                .get("loc")
                .and_then(Attr::as_ident)
                .and_then(MemorySpace::from_name),
            _ => None,
        };
        if let Some(space) = result_home {
            for &r in &op.results {
                if space == MemorySpace::Acc
                    && class != OpClass::Move
                    && defs[r].is_some()
                    && let Some(tt) = tile(r)
                {
                    p.check_role(r, tt, Role::Acc, true, op.span);
                }
                home(&mut p, r, space, op.span);
            }
        }
        // The element types of the instructions the op becomes (`dtypes.rs`), when its
        // typing rule accepts it.
        let ty = |x: &ValueId| -> Option<&Type> {
            if well_typed.contains(*x) {
                m.values.get(*x).map(|d| &d.ty)
            } else {
                None
            }
        };
        let operands: Option<Vec<&Type>> = op.operands.iter().map(ty).collect();
        let results: Option<Vec<&Type>> = op.results.iter().map(ty).collect();
        if let (Some(a), Some(r), true) = (operands, results, typed_ops.contains(o))
            && let Some(d) = dtypes::problem(t, op.opcode, op.attrs.get("round"), &a, &r)
        {
            v.push(d_at(d, op.span, &op.opcode.full_name()));
        }
        if matches!(
            class,
            OpClass::Matmul | OpClass::MatmulAcc | OpClass::MatmulBias
        ) {
            let first = usize::from(class == OpClass::MatmulAcc);
            if let (Some(a), Some(b)) = (
                op.operands.get(first).and_then(|&x| tile(x)),
                op.operands.get(first + 1).and_then(|&x| tile(x)),
            ) && a.shape.len() == 2
                && b.shape.len() == 2
            {
                for (dim, n) in [("M", a.shape[0]), ("K", a.shape[1]), ("N", b.shape[1])] {
                    if n > MATMUL_MAX_DIM {
                        v.error(
                            op.span,
                            format!("matmul {dim} = {n} exceeds the limit of {MATMUL_MAX_DIM} of one matmul instruction"),
                        );
                    }
                }
            }
        }
    }
    for val in m.values.keys() {
        let Some(site) = &defs[val] else { continue };
        let Some(tt) = tile(val) else { continue };
        if let Some(mem) = tt.memref {
            p.place(val, tt, mem.space, site.span(m));
        } else if p.flags[val] & HAS_HOME == 0 {
            p.place(val, tt, MemorySpace::Vec, site.span(m));
        }
    }
    // After the matmul limits: capacities, then row alignment, then fractal shapes.
    for d in p.too_large.into_iter().chain(p.misaligned).chain(p.unboxed) {
        v.push(d);
    }
}

/// The diagnostic of an element-type problem with op `name` at `span`.
fn d_at((msg, note): dtypes::Problem, span: SpanId, name: &str) -> Diag {
    Diag::new(span, format!("{name}: {msg}")).note(note)
}

/// [`Placement::flags`]: a matmul or move says where the tile lives (else it is in UB).
const HAS_HOME: u16 = 1 << 8;
/// [`Placement::flags`]: the tile's rows were checked (once per tile, in its first
/// row-major home).
const ROW_CHECKED: u16 = 1 << 9;

/// [`Placement::flags`]: the tile's fractal shape was checked (once per tile: as a matmul
/// operand or result first, else in its first boxed home).
const BOX_CHECKED: u16 = 1 << 10;

/// The tiles placed so far and the row-alignment problems found.
struct Placement {
    t: Target,
    /// Per value: one bit per memory space it was checked in (bits 0 to 7, by
    /// `MemorySpace as u8`), [`HAS_HOME`] and [`ROW_CHECKED`].
    flags: SecondaryMap<ValueId, u16>,
    /// Tiles too large for their buffer.
    too_large: Vec<Diag>,
    /// Row-alignment problems, reported after the capacity problems.
    misaligned: Vec<Diag>,
    /// Tiles of a cube buffer that are not whole fractals, reported last.
    unboxed: Vec<Diag>,
}

impl Placement {
    /// Checks that `tt` (the well-formed tile type of the defined value `val`) fits `space`
    /// and, for a row-major space, that its rows are aligned; each space once per value.
    fn place(&mut self, val: ValueId, tt: &TileType, space: MemorySpace, span: SpanId) {
        let bit = 1u16 << (space as u8);
        let flags = &mut self.flags[val];
        if *flags & bit != 0 {
            return;
        }
        *flags |= bit;
        if matches!(space, MemorySpace::Vec | MemorySpace::Bias) && *flags & ROW_CHECKED == 0 {
            *flags |= ROW_CHECKED;
            if let Some(d) = misaligned(tt, span) {
                self.misaligned.push(d);
            }
        }
        if matches!(
            space,
            MemorySpace::Mat | MemorySpace::Left | MemorySpace::Right | MemorySpace::Acc
        ) && *flags & BOX_CHECKED == 0
        {
            *flags |= BOX_CHECKED;
            if let Some(d) = fractal::check_in(tt, space, span) {
                self.unboxed.push(d);
            }
        }
        // The capacity is read in place (the target row is not copied per tile).
        let Some(cap) = self.t.capacity(space) else {
            return;
        };
        let need = tile_bytes(tt);
        if need.is_none_or(|n| n > cap) {
            let d = too_large(self.t.name, tt, need, space, cap, span);
            self.too_large.push(d);
        }
    }
}

impl Placement {
    /// Checks the fractal shape of `tt` (the well-formed tile type of `val`) as a matmul's
    /// `role` tile, once per value.
    fn check_role(
        &mut self,
        val: ValueId,
        tt: &TileType,
        role: Role,
        from_mat: bool,
        span: SpanId,
    ) {
        let flags = &mut self.flags[val];
        if *flags & BOX_CHECKED != 0 {
            return;
        }
        *flags |= BOX_CHECKED;
        if let Some(d) = fractal::check_role(tt, role, from_mat, span) {
            self.unboxed.push(d);
        }
    }
}

/// The problem with a tile of `need` bytes (`None`: more than can be addressed) in a buffer
/// of `cap` bytes on target `target`.
fn too_large(
    target: &str,
    tt: &TileType,
    need: Option<u64>,
    space: MemorySpace,
    cap: u64,
    span: SpanId,
) -> Diag {
    let need = need.map_or_else(|| "more bytes than can be addressed".to_string(), bytes_str);
    Diag::new(
        span,
        format!(
            "{} needs {need} but the {target} {} holds {}",
            short_tile(tt),
            buffer_name(space),
            bytes_str(cap)
        ),
    )
}

/// The problem with a row-major tile whose rows are not a multiple of 32 bytes, if any.
fn misaligned(tt: &TileType, span: SpanId) -> Option<Diag> {
    let (_, cols) = tt.rows_cols();
    // A mask is a packed bit tile whose rows the lowering pads to 32 bytes.
    if cols == 1 || tt.dtype == crate::DataType::Bool {
        return None;
    }
    let bits = u64::from(tt.dtype.bits());
    let row_bytes = cols.checked_mul(bits)?.div_ceil(8);
    if row_bytes.is_multiple_of(ROW_ALIGN_BYTES) {
        return None;
    }
    let mut d = Diag::new(
        span,
        format!(
            "{} has rows of {row_bytes} bytes; a row-major tile row must be a multiple of {ROW_ALIGN_BYTES} bytes",
            short_tile(tt)
        ),
    );
    if bits > 0 && (ROW_ALIGN_BYTES * 8).is_multiple_of(bits) {
        d = d.note(format!(
            "make the last extent a multiple of {} for {} (or 1, for a column tile)",
            ROW_ALIGN_BYTES * 8 / bits,
            tt.dtype
        ));
    }
    Some(d)
}

#[cfg(test)]
mod fixed_temp_tests {
    use super::*;

    #[test]
    fn only_a2a3_row_broadcasts_reserve_the_top_of_vec() {
        let t = Target::A2A3;
        assert_eq!(
            t.fixed_temp(Isa::TRowExpandDiv, MemorySpace::Vec),
            Some(184 * KIB..192 * KIB)
        );
        assert_eq!(A2A3_TMP_UB.end, t.ub);
        assert_eq!(t.fixed_temp(Isa::TRowExpandDiv, MemorySpace::Mat), None);
        assert_eq!(t.fixed_temp(Isa::TColExpandSub, MemorySpace::Vec), None);
        assert_eq!(t.fixed_temp(Isa::TCvt, MemorySpace::Vec), None);
        assert_eq!(
            Target::A5.fixed_temp(Isa::TRowExpandSub, MemorySpace::Vec),
            None
        );
    }
}
