//! The PTO-ISA program: the lowering's output and every emitter's input.
//!
//! A [`Program`] is one kernel as explicit instructions over *tile slots* (a [`TileSlot`] is a
//! region of an on-chip buffer with a static shape and dtype, placed by `bufferize`; SSA tile
//! values that share a slot are one storage), host tensors, and scalar SSA values of the IR
//! (named and typed by the module the program keeps). Structured control flow stays
//! structured (`for` / `while` / `if` / `break` / `continue`), so the emitters print it
//! directly. Invariants:
//! - instructions are destination first, like the PTO-ISA C++ intrinsics (`TSTORE` writes a
//!   tensor and has no tile destination);
//! - a slot read by an instruction was written before on every path (values are SSA);
//! - loop-carried scalars are mutable variables assigned at each loop exit ([`Inst::Assign`]);
//!   loop-carried tiles live in one slot, copied with `TMOV` only where `bufferize` could not
//!   coalesce them;
//! - events are explicit `set_flag` / `wait_flag` pairs, with a `PIPE_ALL` barrier at the top
//!   of every loop body that issues tile work (the back-edge dependency).

use pto_ir::{
    DataType, FuncId, InlineVec, MemorySpace, Opcode, PipeKind, ProgramModule, Shape, SpanId,
    ValueId, ValueList,
};

use crate::passes::events::{Event, OpEvents};

/// Index of a tile slot in [`Program::tiles`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TileId(pub u32);

/// One on-chip tile storage.
#[derive(Clone, Debug, PartialEq)]
pub struct TileSlot {
    /// The emitted variable name (`t0_row`).
    pub name: String,
    /// Element type.
    pub dtype: DataType,
    /// Static shape as written in the IR (rank 1 to 4), kept inline.
    pub shape: Shape,
    /// Rows of the 2-D view (leading dimensions folded).
    pub rows: u64,
    /// Columns of the 2-D view.
    pub cols: u64,
    /// The buffer.
    pub space: MemorySpace,
    /// Byte offset in the buffer.
    pub addr: u64,
    /// Bytes occupied (32-byte aligned).
    pub bytes: u64,
    /// `ND`, `DN`, `NZ`, ...
    pub layout: &'static str,
    /// Static valid rows / columns when every value in the slot has them, else `None`.
    pub valid: [Option<u64>; 2],
}

/// A tile operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileRef {
    /// An on-chip slot.
    Slot(TileId),
    /// A tile parameter of the kernel (read only).
    Param(ValueId),
}

/// An offset or extent: a constant or an integer scalar value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index {
    /// A constant.
    Const(u64),
    /// A runtime integer scalar.
    Value(ValueId),
}

/// An instruction operand after the destination.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg {
    /// A tile.
    Tile(TileRef),
    /// A scalar SSA value (constants are printed inline).
    Scalar(ValueId),
    /// An immediate the lowering introduced (`-1` of `s - a`).
    Imm(f64),
    /// The comparison of a `TCMP` / `TCMPS` (pto-isa's `CmpMode`).
    Cmp(pto_ir::sem::Compare),
}

/// The sources of an [`Inst::Op`] in PTO order, stored in line (an instruction takes at
/// most three: `TMATMUL_BIAS(d, a, b, bias)`).
pub type Args = InlineVec<Arg, 3>;

pub use pto_ir::ops::Isa;
pub use pto_ir::sem::RoundMode;

/// The element offsets of a transfer, one per tensor dimension (inline up to rank 2, the
/// usual one).
pub type Offsets = InlineVec<Index, 2>;

/// The window extents of a transfer, one per tensor dimension (inline up to rank 2).
pub type Window = InlineVec<u64, 2>;

/// One instruction or structured statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Inst {
    /// A compute instruction `ISA(dst, args..)`.
    Op {
        /// The instruction.
        isa: Isa,
        /// Destination slot.
        dst: TileId,
        /// Sources in PTO order.
        args: Args,
    },
    /// `TLOAD(dst, tensor[offsets..])` of a `window` (the tile's IR shape).
    Load {
        /// Destination.
        dst: TileId,
        /// The tensor parameter.
        tensor: ValueId,
        /// Element offsets, one per tensor dimension.
        offsets: Offsets,
        /// Window sizes, one per tensor dimension.
        window: Window,
    },
    /// `TSTORE(tensor[offsets..], src)`; converts when the tile's dtype is not the tensor's
    /// (from an `Acc` tile only, `pto_ir::sem::store`).
    Store {
        /// The tensor parameter.
        tensor: ValueId,
        /// An atomic-add store (`store_add`): adds into the window instead of overwriting it.
        add: bool,
        /// Source tile.
        src: TileRef,
        /// Element offsets.
        offsets: Offsets,
        /// Window sizes (the tile's IR shape).
        window: Window,
    },
    /// A scalar read of one tensor element: `result = tensor[offsets..]`.
    Read {
        /// The scalar it defines.
        result: ValueId,
        /// The tensor parameter.
        tensor: ValueId,
        /// One index per tensor dimension.
        offsets: Offsets,
    },
    /// A scalar write of one tensor element: `tensor[offsets..] = value`.
    Write {
        /// The tensor parameter.
        tensor: ValueId,
        /// The scalar written.
        value: ValueId,
        /// One index per tensor dimension.
        offsets: Offsets,
    },
    /// `TEXTRACT(dst, src, r0, c0)`.
    Extract {
        /// Destination.
        dst: TileId,
        /// Source.
        src: TileRef,
        /// Row and column offset.
        at: [Index; 2],
    },
    /// `TINSERT(dst, src, r0, c0)`.
    Insert {
        /// Destination (read and written).
        dst: TileId,
        /// Source.
        src: TileRef,
        /// Row and column offset.
        at: [Index; 2],
    },
    /// `TCVT(dst, src, round)`.
    Cvt {
        /// Destination.
        dst: TileId,
        /// Source.
        src: TileRef,
        /// Rounding.
        round: RoundMode,
    },
    /// Narrows the valid region of `dst` (`tile.valid`).
    SetValid {
        /// The tile.
        dst: TileId,
        /// Valid rows and columns.
        dims: [Index; 2],
    },
    /// Makes the whole of `dst` valid (before a fill or broadcast that covers it).
    FullValid(TileId),
    /// `set_flag(src, dst, id)`.
    SetFlag(Event),
    /// `wait_flag(src, dst, id)`.
    WaitFlag(Event),
    /// `pipe_barrier(pipe)`.
    Barrier(PipeKind),
    /// A scalar-unit op `result = op(args)` (arithmetic, compare, logic, cast).
    Scalar {
        /// The IR op.
        op: Opcode,
        /// Result value.
        result: ValueId,
        /// Operands (in line, like the IR op's).
        args: ValueList,
    },
    /// Parallel assignment of loop-carried / branch-result scalars: `(d0, d1) = (s0, s1)`.
    Assign(Vec<(ValueId, ValueId)>),
    /// A counted loop. Scalar `carried` values are variables initialised before the loop;
    /// `results` are read from them after it.
    For {
        /// Induction variable.
        iv: ValueId,
        /// Lower bound.
        lb: ValueId,
        /// Upper bound (exclusive).
        ub: ValueId,
        /// Step (positive).
        step: ValueId,
        /// (iter arg, init) of carried scalars.
        carried: Vec<(ValueId, ValueId)>,
        /// The body.
        body: Vec<Inst>,
        /// (result, iter arg) of carried scalars.
        results: Vec<(ValueId, ValueId)>,
        /// How the iterations run: in order, or (a `parallel` loop shown safe) on all cores.
        exec: LoopExec,
    },
    /// `while`: `cond` runs before each iteration and ends by computing `cond_value`.
    While {
        /// (iter arg, init) of carried scalars.
        carried: Vec<(ValueId, ValueId)>,
        /// The condition region.
        cond: Vec<Inst>,
        /// The condition.
        cond_value: ValueId,
        /// The body.
        body: Vec<Inst>,
        /// (result, iter arg) of carried scalars.
        results: Vec<(ValueId, ValueId)>,
    },
    /// `if` / `else`; scalar `results` are declared before and assigned in each branch.
    If {
        /// The condition.
        cond: ValueId,
        /// Then branch.
        then_body: Vec<Inst>,
        /// Else branch.
        else_body: Vec<Inst>,
        /// Scalar results.
        results: Vec<ValueId>,
    },
    /// Leaves the innermost loop.
    Break,
    /// Next iteration of the innermost loop.
    Continue,
    /// Returns scalars (last instruction of the kernel).
    Return(Vec<ValueId>),
    /// `results = callee(args)`: a call of another function of the module (`func.call`).
    /// Arguments are scalars and tensor parameters of the caller; a tensor the callee
    /// writes (`#out` / `#inout`) is passed mutably. On the chip the call of an `InCore`
    /// function is a kernel launch (see the C++ emitter).
    Call {
        /// The callee's name.
        callee: String,
        /// The arguments in order.
        args: Vec<ValueId>,
        /// The scalar results, in order.
        results: Vec<ValueId>,
    },
    /// A mark of the `fuse-chains` step (`lower/fuse.rs`): the next [`Chain::len`]
    /// instructions are one elementwise chain, which the host code runs as one pass over the
    /// elements. It does nothing itself: the chain's instructions stay in place, so every
    /// analysis and the C++ (which prints them one by one) read the program as before.
    Fused(Box<Chain>),
    /// A mark of the `fuse-chains` step (`lower/pairs.rs`): the next [`ExpandStore::len`]
    /// instructions are a row / column broadcast op and the `TSTORE` of its result, which
    /// nothing reads afterwards; the host code writes the op's result straight into the
    /// store's window. Like [`Inst::Fused`] it does nothing itself.
    ExpandStore(Box<ExpandStore>),
    /// A mark of the `fuse-chains` step (`lower/pairs.rs`): the next [`MapRowSum::len`]
    /// instructions are a run ending in a row reduction that the host code does in one
    /// pass over each row: a `TLOAD` and a row reduction of the loaded tile, or elementwise
    /// ops (the first may be a row broadcast) and the `TROWSUM` of the last, of whose tiles
    /// at most one ([`MapRowSum::keep`]) is read afterwards. Like [`Inst::Fused`] it does
    /// nothing itself.
    MapRowSum(Box<MapRowSum>),
    /// A mark of the `fuse-chains` step (`lower/load_views.rs`): the next [`LoadView::len`]
    /// instructions start with a `TLOAD` of [`LoadView::tile`] (or a load-and-reduce mark
    /// spanning it) that only row reductions and broadcast-and-store marks of the span read;
    /// the host code reads the window in place on the plain path. Like [`Inst::Fused`] it
    /// does nothing itself.
    LoadView(Box<LoadView>),
    /// A mark of the `share-tiles` step (`lower/share.rs`): the host code runs the next
    /// [`Share::len`] instructions with each tile of [`Share::renames`] named as another,
    /// which holds the same values wherever the renamed one is read there (a `TMOV` it
    /// need not make). Like [`Inst::Fused`] it does nothing itself.
    Share(Box<Share>),
    /// A2A3 only, in the parts of a split kernel (`lower/split.rs`): the accesses of the
    /// sending core to global memory are done and visible before the receiving core's next
    /// ones. The sender waits for its pipes and signals (`ffts_cross_core_sync`), the
    /// receiver waits for the signal (`wait_flag_dev`). Never in [`Program::body`], so the
    /// interpreter and the host code never see it.
    Handoff(Handoff),
}

/// A cross-core handoff (see [`Inst::Handoff`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Handoff {
    /// From the cube core to the vector cores (`false`: from the vector cores to the cube).
    pub from_cube: bool,
    /// The tensors whose accesses it orders: the sender's earlier accesses conflict with
    /// the receiver's later ones (one of the two writes).
    pub tensors: Vec<ValueId>,
}

/// Tiles the host code uses in place of others over a span (see [`Inst::Share`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Share {
    /// How many instructions after the mark it spans (syncs and nested marks included).
    pub len: usize,
    /// `(from, to)`: in the span, tile `from` is named `to`.
    pub renames: Vec<(TileId, TileId)>,
}

/// A run ending in a row reduction, done in one pass over each row (see [`Inst::MapRowSum`]).
#[derive(Clone, Debug, PartialEq)]
pub struct MapRowSum {
    /// How many instructions after the mark it spans (syncs included).
    pub len: usize,
    /// The `TLOAD` the run starts with (tile, tensor, offsets); then `ops` is empty and the
    /// reduction reads the loaded tile.
    pub load: Option<(TileId, ValueId, Offsets)>,
    /// The ops in order, each but the first reading the one before's result: a row
    /// broadcast (`TROWEXPANDSUB`) or an elementwise op of one tile (`TMUL(d, a, a)`,
    /// `TMULS`, `TEXP` ...) first, elementwise ops of one tile after it.
    pub ops: Vec<(Isa, TileId, Args)>,
    /// The reduction (`TROWSUM`; `TROWMAX` / `TROWMIN` after a load) and its destination.
    pub reduce: (Isa, TileId),
    /// The one tile the ops write that is read afterwards (it keeps the value of the last op
    /// writing it), or `None` when none is. After a load with [`MapRowSum::more`]: the loaded
    /// tile when something other than the reductions reads it (the pass then writes it).
    pub keep: Option<TileId>,
    /// After a load: the further row and column reductions of the loaded tile in the span
    /// (`TROWMAX`, `TCOLSUM` ...), in order, done in the same pass as `reduce`, which is then
    /// the first. Nothing in the span writes the loaded tile; the span's other instructions
    /// run after the pass, in order, each reduction's result given to its destination where
    /// the reduction stands.
    pub more: Vec<(Isa, TileId)>,
}

/// A load read in place (see [`Inst::LoadView`]).
#[derive(Clone, Debug, PartialEq)]
pub struct LoadView {
    /// How many instructions after the mark it spans (nested marks and syncs included).
    pub len: usize,
    /// The loaded tile.
    pub tile: TileId,
    /// The loaded tensor.
    pub tensor: ValueId,
    /// The load's offsets.
    pub offsets: Offsets,
    /// When the span and the next [`RowSplit::more`] instructions are run one row at a time
    /// (`lower/row_split.rs`); `None` when the span runs on whole tiles.
    pub rows: Option<RowSplit>,
}

impl LoadView {
    /// How many instructions after the mark it covers: its span and the instructions run
    /// row by row with it.
    pub fn covers(&self) -> usize {
        self.len + self.rows.as_ref().map_or(0, |r| r.more)
    }
}

/// A load read in place whose span, and some instructions after it, the host code runs one
/// row at a time (see `lower/row_split.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct RowSplit {
    /// How many instructions after the view's span run row by row with it.
    pub more: usize,
    /// The tiles of the loaded tile's row count these instructions name (each written there
    /// before it is read, and dead after): run as one-row tiles.
    pub tiles: Vec<TileId>,
    /// The `TSTORE`s among them: tensor, offsets and the stored tile, whose whole window must
    /// lie inside the tensor for the rows to run one at a time.
    pub stores: Vec<(ValueId, Offsets, TileId)>,
    /// The loaded tile when a row-summed run in the view's span keeps it and a broadcast
    /// store after the span is its only other reader: the tensor and offsets of that store,
    /// whose window then holds the kept row instead of the one-row tile
    /// (`pto::isa::trowexpand_map_rowsum_view_window`, `trowexpand_store_window`).
    pub kept: Option<(TileId, ValueId, Offsets)>,
}

/// A broadcast op and the store of its result (see [`Inst::ExpandStore`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ExpandStore {
    /// How many instructions after the mark it spans (syncs included).
    pub len: usize,
    /// The broadcast op (`TROWEXPANDMUL`, ...), its destination and its two tile operands.
    pub op: (Isa, TileId, Args),
    /// The store's tensor and offsets.
    pub store: (ValueId, Offsets),
}

/// A `TLOAD`s -> elementwise instructions -> `TSTORE` run (or a `for` loop whose body is
/// one), found by the `fuse-chains` step.
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    /// How many instructions after the mark it spans (syncs included; one for a loop).
    pub len: usize,
    /// (tile, tensor, offsets) of each load (one or two), in order.
    pub loads: Vec<(TileId, ValueId, Offsets)>,
    /// The elementwise instructions (`TADD`, `TMULS`, `TEXP`, ...), in order.
    pub ops: Vec<(Isa, TileId, Args)>,
    /// (tensor, tile, offsets) of the store.
    pub store: (ValueId, TileId, Offsets),
    /// For a loop whose body is the chain: the loop, run in one call.
    pub over: Option<ChainLoop>,
}

/// The `for` loop a [`Chain`] runs over: loop variable, bounds and constant positive step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainLoop {
    /// The `i64` loop variable.
    pub iv: ValueId,
    /// Lower bound.
    pub lb: ValueId,
    /// Upper bound (exclusive).
    pub ub: ValueId,
    /// The step.
    pub step: i64,
}

/// How the iterations of a [`Inst::For`] run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoopExec {
    /// A sequential `for`: in order.
    Sequential,
    /// A `parallel` loop whose iterations were shown independent (`lower/parallel.rs`): the
    /// CPU runs them on all cores; the C++ distributes them over the blocks of the launch
    /// when `blocks` (the loop is in no other loop, and no code outside it touches the
    /// tensors it stores to, which every block runs), else each block runs them all.
    Parallel {
        /// Whether the C++ gives each block its share of the iterations.
        blocks: bool,
    },
    /// A `parallel` loop run in order, for the reason given (stores that cannot be shown
    /// disjoint, a tensor both read and written, ...).
    Serialized(String),
}

/// One lowered kernel.
#[derive(Clone, Debug)]
pub struct Program {
    /// The module after the pass pipeline (names and types of values, parameters).
    pub module: ProgramModule,
    /// The kernel.
    pub func: FuncId,
    /// The target name (`A2A3`, `A5`).
    pub target: &'static str,
    /// Tile slots.
    pub tiles: Vec<TileSlot>,
    /// The body.
    pub body: Vec<Inst>,
    /// Scratch tiles past the Vec tiles, one per source type of the instructions that need
    /// one ([`Isa::needs_scratch`]); they share one region, which `bufferize` counted.
    pub scratch: Vec<TileSlot>,
    /// The events of each op of the module (`insert-events`), which the MLIR text shows.
    pub events: OpEvents,
    /// The kernel's span, for messages.
    pub span: SpanId,
    /// Where the work runs on the target: one core, or (A2A3) a cube part and a vector
    /// part ([`crate::lower::split`]).
    pub route: crate::lower::split::Route,
}

impl Program {
    /// A slot.
    pub fn tile(&self, t: TileId) -> Option<&TileSlot> {
        self.tiles.get(t.0 as usize)
    }

    /// Number of instructions, nested ones included.
    pub fn inst_count(&self) -> usize {
        fn count(v: &[Inst]) -> usize {
            let mut n = v.len();
            for i in v {
                match i {
                    Inst::For { body, .. } => n += count(body),
                    Inst::While { cond, body, .. } => n += count(cond) + count(body),
                    Inst::If {
                        then_body,
                        else_body,
                        ..
                    } => n += count(then_body) + count(else_body),
                    _ => {}
                }
            }
            n
        }
        count(&self.body)
    }
}

/// The entry load of a tile parameter, `TMOV(dst, param)` (`passes/tile_info.rs` brings each
/// tile parameter in with a move at the kernel's entry): the slot and the parameter. The
/// parameter is global memory, so the C++ writes a `TLOAD` and the pipe is MTE2; the host
/// code copies the tile.
pub fn param_load(i: &Inst) -> Option<(TileId, ValueId)> {
    match i {
        Inst::Op {
            isa: Isa::TMov,
            dst,
            args,
        } => match args.as_slice() {
            [Arg::Tile(TileRef::Param(p))] => Some((*dst, *p)),
            _ => None,
        },
        _ => None,
    }
}

/// Adds to `out[t]`, per tile slot `t` of the program, the number of instructions in `insts`
/// that name it.
pub(crate) fn count_tile_uses(insts: &[Inst], out: &mut [usize]) {
    fn add(out: &mut [usize], t: TileId) {
        // A slot outside the program is in no chain (`lower/fuse.rs`), so needs no count.
        if let Some(n) = out.get_mut(t.0 as usize) {
            *n += 1;
        }
    }
    let slot = |r: &TileRef| match r {
        TileRef::Slot(t) => Some(*t),
        TileRef::Param(_) => None,
    };
    for i in insts {
        match i {
            Inst::Op { dst, args, .. } => {
                add(out, *dst);
                for a in args {
                    if let Arg::Tile(r) = a
                        && let Some(t) = slot(r)
                    {
                        add(out, t);
                    }
                }
            }
            Inst::Load { dst, .. } | Inst::SetValid { dst, .. } | Inst::FullValid(dst) => {
                add(out, *dst)
            }
            Inst::Store { src, .. } => {
                if let Some(t) = slot(src) {
                    add(out, t);
                }
            }
            Inst::Extract { dst, src, .. }
            | Inst::Insert { dst, src, .. }
            | Inst::Cvt { dst, src, .. } => {
                add(out, *dst);
                if let Some(t) = slot(src) {
                    add(out, t);
                }
            }
            Inst::For { body, .. } => count_tile_uses(body, out),
            Inst::While { cond, body, .. } => {
                count_tile_uses(cond, out);
                count_tile_uses(body, out);
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                count_tile_uses(then_body, out);
                count_tile_uses(else_body, out);
            }
            Inst::SetFlag(_)
            | Inst::WaitFlag(_)
            | Inst::Barrier(_)
            | Inst::Call { .. }
            | Inst::Read { .. }
            | Inst::Write { .. }
            | Inst::Scalar { .. }
            | Inst::Assign(_)
            | Inst::Break
            | Inst::Continue
            | Inst::Return(_)
            | Inst::Fused(_)
            | Inst::ExpandStore(_)
            | Inst::MapRowSum(_)
            | Inst::LoadView(_)
            | Inst::Share(_)
            | Inst::Handoff(_) => {}
        }
    }
}
