//! Per-tile lowering facts kept on the IR values, and the small tables the passes share:
//! a tile's location and byte offset live in its type's `memref` (printed `mem=Vec, addr=0`); its layout
//! (`ND`, `DN`, `NZ` ...) is a function of location and shape; each op runs on one pipe.

use pto_ir::{
    DataType, MemRef, MemorySpace, OpClass, Opcode, Operation, PipeKind, ProgramModule, TileType,
    Type, ValueDef, ValueId,
};

use crate::isa::{Isa, TileSlot};

/// The memory a tile value lives in, once `infer-tile-info` ran.
pub fn space_of(m: &ProgramModule, v: ValueId) -> Option<MemorySpace> {
    m.values.get(v)?.ty.as_tile()?.memref.map(|r| r.space)
}

/// The byte offset of a tile value in its buffer, once `bufferize` ran.
pub fn addr_of(m: &ProgramModule, v: ValueId) -> Option<u64> {
    m.values.get(v)?.ty.as_tile()?.memref?.addr
}

/// Bytes a tile occupies in its buffer: its [`buffer_extents`] times the element size,
/// rounded up to 32, or the bytes `bufferize` reserved for it when that is more (a row
/// sum's source, [`row_sum_rows`]).
pub fn tile_bytes(ty: &Type) -> u64 {
    let Some(t) = ty.as_tile() else { return 0 };
    let Some(mem) = t.memref else {
        return t.buffer_bytes();
    };
    extent_bytes(t, mem.space, t.rows_cols().0).max(mem.size)
}

/// Bytes of a tile of `t`'s dtype and columns with `rows` rows in `space`.
fn extent_bytes(t: &TileType, space: MemorySpace, rows: u64) -> u64 {
    let layout = layout_name(space, &t.shape);
    buffer_bytes(space, layout, t.dtype, rows, t.rows_cols().1)
}

/// Bytes a `rows x cols` tile takes in `space`: its [`buffer_extents`] times the element
/// size, rounded up to 32.
pub fn buffer_bytes(
    space: MemorySpace,
    layout: &str,
    dtype: DataType,
    rows: u64,
    cols: u64,
) -> u64 {
    let (r, c) = buffer_extents(space, layout, dtype, rows, cols);
    (r.saturating_mul(c)
        .saturating_mul(dtype.size_bytes().max(1)))
    .div_ceil(32)
        * 32
}

/// The rows a row sum reads its `src_rows`-row source with in the C++: the static rows of
/// its result, a `dst_rows x 1` column in `dst_layout`, when they are more.
///
/// pto-isa's CPU simulation of `TROWSUM` asserts that the source and the destination tile
/// types have the same static `Rows` (`cpu/TRowSum.hpp`, `CheckRSValid`), while a
/// column-major column's rows are padded to 32 bytes (`pto_tile.hpp`: `Rows * sizeof(T)` a
/// multiple of 32; [`buffer_extents`]), so an f32 source of fewer than 8 rows (fp16: 16),
/// or of a row count that is not a multiple of 8, has fewer rows than its sum. The C++ reads
/// such a source through a view of the result's rows (its valid rows stay the source's);
/// `bufferize` reserves the rows the view adds, so the view covers no other tile. The NPU
/// implementations check only valid rows (`npu/a2a3/TRowReduceOps.hpp`,
/// `npu/a5/TRowReduce.hpp`: `TRowReduceCheck`), and `TROWMAX` / `TROWMIN` / `TROWPROD`
/// assert nothing of the kind on any target, so they read their source as it is.
pub fn row_sum_rows(dtype: DataType, src_rows: u64, dst_layout: &str, dst_rows: u64) -> u64 {
    let (rows, _) = buffer_extents(MemorySpace::Vec, dst_layout, dtype, dst_rows, 1);
    rows.max(src_rows)
}

/// The rows instruction `isa` reads its source slot `src` with, given its destination slot
/// `dst`: [`row_sum_rows`] for a row sum, else the source's own.
pub fn read_rows(isa: Isa, src: &TileSlot, dst: &TileSlot) -> u64 {
    if isa == Isa::TRowSum {
        row_sum_rows(src.dtype, src.rows, dst.layout, dst.rows)
    } else {
        src.rows
    }
}

/// The source of row sum `op` and the bytes its padded rows take ([`row_sum_rows`]), when
/// they are more than the source's own.
pub fn row_sum_source_bytes(m: &ProgramModule, op: &Operation) -> Option<(ValueId, u64)> {
    if op.opcode != Opcode::TileRowSum {
        return None;
    }
    let (&src, &dst) = (op.operands.first()?, op.results.first()?);
    let s = m.values[src].ty.as_tile()?;
    let d = m.values[dst].ty.as_tile()?;
    let space = s.memref?.space;
    let (src_rows, dst_rows) = (s.rows_cols().0, d.rows_cols().0);
    let dst_layout = layout_name(d.memref?.space, &d.shape);
    let rows = row_sum_rows(s.dtype, src_rows, dst_layout, dst_rows);
    (rows > src_rows).then(|| (src, extent_bytes(s, space, rows)))
}

/// The row-broadcast instruction (`TROWEXPANDSUB` ...) the lowering makes of binary op `op`
/// (`lower/ops.rs`, `binary`): two tiles of different shapes, the smaller an `R x 1` column.
/// `r / a` with the column on the left is `TRECIP` then `TROWEXPANDMUL`.
pub fn row_broadcast_isa(m: &ProgramModule, op: &Operation) -> Option<Isa> {
    if !matches!(
        op.opcode.class(),
        OpClass::TileBinary | OpClass::TileBitwise
    ) {
        return None;
    }
    let (a, b) = (op.operands.first()?, op.operands.get(1)?);
    let (ta, tb) = (m.values[*a].ty.as_tile()?, m.values[*b].ty.as_tile()?);
    if ta.shape == tb.shape {
        return None;
    }
    let big_first = ta.elements() >= tb.elements();
    let small = if big_first { tb } else { ta };
    if small.shape.len() != 2 || small.shape[1] != 1 {
        return None;
    }
    if !big_first && op.opcode == Opcode::TileDiv {
        return Some(Isa::TRowExpandMul);
    }
    op.opcode.info().isa.get(2).copied()
}

/// Records that `bufferize` reserved `bytes` for a placed tile value ([`tile_bytes`]).
pub fn set_reserved(m: &mut ProgramModule, v: ValueId, bytes: u64) {
    if let Type::Tile(t) = &mut m.values[v].ty
        && let Some(mem) = t.memref.as_mut()
    {
        mem.size = mem.size.max(bytes);
    }
}

/// The extents a `rows x cols` tile has in its buffer. pto-isa requires each row of a
/// row-major unboxed tile, and each column of a column-major one, to be a multiple of 32
/// bytes (`docs/coding/Tile.md`), so a `1 x 1` f32 tile is stored as `1 x 8` and a `4 x 1`
/// column as `8 x 1`, the extra elements outside its valid region.
pub fn buffer_extents(
    space: MemorySpace,
    layout: &str,
    dtype: pto_ir::DataType,
    rows: u64,
    cols: u64,
) -> (u64, u64) {
    let size = dtype.size_bytes().max(1);
    let pad = |n: u64| (n * size).div_ceil(32) * 32 / size;
    match space {
        MemorySpace::Vec | MemorySpace::Ddr | MemorySpace::Bias if layout == "DN" => {
            (pad(rows), cols)
        }
        MemorySpace::Vec | MemorySpace::Ddr | MemorySpace::Bias => (rows, pad(cols)),
        // A one-row Mat tile (a bias on its way to the Bias table) is row-major, unboxed.
        MemorySpace::Mat if rows == 1 => (rows, pad(cols)),
        _ => (rows, cols),
    }
}

/// Bytes of scratch the ops of function `f` need past its Vec tiles: the largest scratch
/// tile of their instructions (`Isa::scratch_shape`: mostly the source's type). pto-isa's
/// `TROWSUM` / `TROWMAX` / `TROWMIN` / `TTRANS` / `TREM` ... take a `tmp` tile the
/// instruction overwrites on A2A3, so it cannot be the source; one region serves every
/// such op, since each uses it only while it runs.
pub fn scratch_bytes(m: &ProgramModule, f: pto_ir::FuncId) -> u64 {
    let tree = crate::walk::Tree::of(m, f);
    let mut need = 0;
    for &s in &tree.stmts {
        let Some(pto_ir::StmtKind::Op(ops)) = m.stmts.get(s).map(|st| &st.kind) else {
            continue;
        };
        for &o in ops {
            let op = &m.ops[o];
            if needs_scratch(op.opcode)
                && let Some(&a) = op.operands.first()
            {
                need = need.max(scratch_tile_bytes(op.opcode, &m.values[a].ty));
            }
        }
    }
    need
}

/// Whether an op's instruction takes a scratch tile: the op table's instructions say
/// (`Isa::needs_scratch`, the one list).
pub fn needs_scratch(op: pto_ir::Opcode) -> bool {
    op.info().isa.iter().any(|i| i.needs_scratch())
}

/// The bytes of the largest scratch tile one of `op`'s instructions takes for a source of
/// type `src` (the source's own bytes, or `Isa::scratch_shape`'s row for `TREM`).
fn scratch_tile_bytes(op: pto_ir::Opcode, src: &Type) -> u64 {
    let own = tile_bytes(src);
    let Some(t) = src.as_tile() else { return own };
    let (rows, cols) = t.rows_cols();
    let bytes = t.dtype.size_bytes().max(1);
    op.info()
        .isa
        .iter()
        .filter(|i| i.needs_scratch())
        .map(|i| match i.scratch_shape(rows, cols, bytes) {
            [r, c] if [r, c] == [rows, cols] => own,
            [r, c] => (r * c * bytes).div_ceil(32) * 32,
        })
        .max()
        .unwrap_or(own)
}

/// Records the location of a tile value (keeping any address it has).
pub fn set_space(m: &mut ProgramModule, v: ValueId, space: MemorySpace) {
    if let Type::Tile(t) = &mut m.values[v].ty {
        let size = t.buffer_bytes();
        let addr = t.memref.and_then(|r| r.addr);
        t.memref = Some(MemRef { space, addr, size });
    }
}

/// Records the byte offset of a placed tile value.
pub fn set_addr(m: &mut ProgramModule, v: ValueId, addr: u64) {
    if let Type::Tile(t) = &mut m.values[v].ty
        && let Some(mem) = t.memref.as_mut()
    {
        mem.addr = Some(addr);
    }
}

/// The layout of a tile in `space` with static `shape` (seed 002 `#pto.layout`): row-major
/// `ND` in the unified buffer (`DN` for an `R x 1` column, the row-reduction form), the
/// fractal `NZ` in L1 and L0C, `ZZ` / `ZN` for the left / right matmul operands.
pub fn layout_name(space: MemorySpace, shape: &[u64]) -> &'static str {
    match space {
        MemorySpace::Vec | MemorySpace::Ddr | MemorySpace::Bias => {
            if shape.len() == 2 && shape[1] == 1 && shape[0] > 1 {
                "DN"
            } else {
                "ND"
            }
        }
        MemorySpace::Mat | MemorySpace::Acc => "NZ",
        MemorySpace::Left => "ZZ",
        MemorySpace::Right => "ZN",
    }
}

/// The tile parameter `op` brings in when it is a tile parameter's entry move (a
/// `tile.move` of the parameter, `passes/tile_info.rs`): a transfer from global memory, the
/// C++'s `TLOAD`.
pub fn tile_param_loaded(m: &ProgramModule, op: &Operation) -> Option<ValueId> {
    let &p = op.operands.first()?;
    let param =
        matches!(m.values[p].def, ValueDef::Param(..)) && m.values[p].ty.as_tile().is_some();
    (op.opcode == Opcode::TileMove && param).then_some(p)
}

/// The pipe an op runs on (`shared/spec/pto-isa.md` section 4.3); `S` for scalar work.
pub fn pipe_of(m: &ProgramModule, op: &Operation) -> PipeKind {
    let space = |v: Option<&ValueId>| v.and_then(|&v| space_of(m, v)).unwrap_or(MemorySpace::Vec);
    match op.opcode.class() {
        OpClass::Load => PipeKind::Mte2,
        OpClass::Move if tile_param_loaded(m, op).is_some() => PipeKind::Mte2,
        OpClass::Store => {
            if space(op.operands.first()) == MemorySpace::Acc {
                PipeKind::Fix
            } else {
                PipeKind::Mte3
            }
        }
        OpClass::Move | OpClass::Extract => {
            move_pipe(space(op.operands.first()), space(op.results.first()))
        }
        OpClass::Matmul | OpClass::MatmulAcc | OpClass::MatmulBias => PipeKind::M,
        // Scalar ops (a verified module's take and give scalars only): no look at the types.
        c if c.is_scalar() => PipeKind::S,
        _ => {
            let tile_involved = op
                .results
                .iter()
                .chain(&op.operands)
                .any(|&v| m.values[v].ty.as_tile().is_some());
            if tile_involved {
                PipeKind::V
            } else {
                PipeKind::S
            }
        }
    }
}

/// The pipe of a copy (`TMOV`, `TEXTRACT`) from buffer `from` to buffer `to`: the fixpipe
/// out of the accumulator, MTE1 into the matmul operand buffers, the vector unit otherwise.
pub fn move_pipe(from: MemorySpace, to: MemorySpace) -> PipeKind {
    match (from, to) {
        (MemorySpace::Acc, _) => PipeKind::Fix,
        (_, MemorySpace::Left | MemorySpace::Right | MemorySpace::Bias) => PipeKind::Mte1,
        _ => PipeKind::V,
    }
}

/// `concat!($before, "PIPE_V", $after)` for pipe `V`, and so on: the one list of the pipes'
/// C++ spellings, from which [`pipe_cpp`] and the C++ emitter's pre-joined event-line pieces
/// are made.
macro_rules! pipe_spelled {
    ($p:expr, $before:literal, $after:literal) => {
        match $p {
            PipeKind::S => concat!($before, "PIPE_S", $after),
            PipeKind::V => concat!($before, "PIPE_V", $after),
            PipeKind::M => concat!($before, "PIPE_M", $after),
            PipeKind::Mte1 => concat!($before, "PIPE_MTE1", $after),
            PipeKind::Mte2 => concat!($before, "PIPE_MTE2", $after),
            PipeKind::Mte3 => concat!($before, "PIPE_MTE3", $after),
            PipeKind::Fix => concat!($before, "PIPE_FIX", $after),
            PipeKind::All => concat!($before, "PIPE_ALL", $after),
        }
    };
}
pub(crate) use pipe_spelled;

/// The `PIPE_*` spelling of a pipe.
pub fn pipe_cpp(p: PipeKind) -> &'static str {
    pipe_spelled!(p, "", "")
}
