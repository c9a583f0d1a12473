//! Loads the host code need not make, marked by the `fuse-chains` step after its pairs
//! (`pairs.rs`): a `TLOAD` of a rank-1/2 window into `t` (or a load-and-reduce mark starting
//! with one) whose loaded value only these read:
//!
//! - a row reduction of `t` (`TROWSUM`, `TROWMAX`, `TROWMIN`, the load-and-reduce mark's);
//! - a broadcast-and-store pair with `t` as the broadcast's source (`store: ..` marks);
//! - a row-summed run with `t` as its row broadcast's source (`rowsum: ..` marks), keeping
//!   its values in another tile, or in `t` itself: then the span ends there, `t` holding the
//!   run's values (`trowexpand_map_rowsum_view_into` writes it as the load and the run would);
//!
//! with other tile instructions between that do not name `t` (nor write the loaded tensor),
//! and `t` dead after the last reader. The host code then reads the tensor's window in place
//! on the plain path (`pto::isa::tload_view`, `trowmax_view`, `trowexpand_store_view` ...)
//! and runs the instructions as before otherwise, so the copy of the window into `t` is
//! saved (`x - rowmax(x)` and `x * v` of `examples/broadcast.rs`: native bench -20 to -25%).
//! The C++ is unchanged.
//!
//! A softmax's `exp(x - max)` or a layernorm's `x - mean` run then reads the window instead
//! of the load copying it and the run reading the copy back, and writes the loaded tile as
//! before (read in place into another tile, a layernorm measured 15% slower in session 13).
//! A view may then run row by row (`row_split.rs`).

use super::is_sync;
use super::pairs::{Scope, dead_after, expand_fn};
use crate::isa::count_tile_uses;
use crate::isa::{Arg, Inst, Isa, LoadView, LoopExec, MapRowSum, TileId, TileRef, TileSlot};
use pto_ir::ProgramModule;

/// Marks the loads of the program read in place (see the module docs).
pub fn run(p: &mut crate::isa::Program, uses: &[usize]) {
    let mut body = std::mem::take(&mut p.body);
    block(&p.module, &p.tiles, uses, &mut body, Scope::Function);
    p.body = body;
}

fn block(
    m: &ProgramModule,
    tiles: &[TileSlot],
    uses: &[usize],
    insts: &mut Vec<Inst>,
    scope: Scope,
) {
    let mut at = 0;
    while at < insts.len() {
        if scope != Scope::Other
            && let Some(v) = load_view(uses, insts, at, scope)
        {
            insts.insert(at, Inst::LoadView(Box::new(v)));
            // The instructions from the load on, one row at a time (`row_split.rs`).
            let rows = super::row_split::split(tiles, uses, insts, at, scope);
            let covers = match insts.get_mut(at) {
                Some(Inst::LoadView(v)) => {
                    v.rows = rows;
                    v.covers()
                }
                _ => 0,
            };
            at += 1 + covers;
            continue;
        }
        match &mut insts[at] {
            Inst::Fused(c) => at += c.len,
            Inst::ExpandStore(e) => at += e.len,
            Inst::MapRowSum(m) => at += m.len,
            // As in `pairs.rs`: a parallel loop only when its iterations own their rows.
            i @ Inst::For {
                exec: LoopExec::Parallel { .. },
                ..
            } if super::row_parts(m, i).is_none() => {}
            Inst::For { body, .. } => block(m, tiles, uses, body, Scope::Loop),
            _ => {}
        }
        at += 1;
    }
}

/// How the instructions of a span use the loaded tile.
enum Use {
    /// A reader with a `_view` form.
    Reads,
    /// A reader with a `_view` form after which the loaded value is gone: a broadcast
    /// stored from the tile into itself (the tile is dead), or a row-summed run that keeps
    /// its values in the tile (it writes the whole tile, `_view_into`).
    Overwrites,
    /// Does not name the tile; may stand inside the span.
    Other,
    /// Does not name the tile; ends the span before it.
    Stop,
    /// Names the tile otherwise: no mark.
    Refuse,
}

/// The number of entries the unit at `insts[k]` takes: a mark and its span, or one.
fn unit_len(i: &Inst) -> usize {
    1 + match i {
        Inst::Fused(c) => c.len,
        Inst::ExpandStore(e) => e.len,
        Inst::MapRowSum(m) => m.len,
        _ => 0,
    }
}

/// Whether any instruction of `unit` names `t`.
fn names(unit: &[Inst], t: TileId, tiles: usize) -> bool {
    let mut n = vec![0; tiles];
    count_tile_uses(unit, &mut n);
    n.get(t.0 as usize).copied().unwrap_or(0) > 0
}

/// Whether `unit` writes tensor `x` (so a view of it could not be held across it).
fn writes_tensor(unit: &[Inst], x: pto_ir::ValueId) -> bool {
    unit.iter().any(|i| match i {
        Inst::Store { tensor, .. } | Inst::Write { tensor, .. } => *tensor == x,
        _ => false,
    })
}

/// How `unit` (a mark and its span, or one instruction) uses `t`, loaded from `x`.
fn classify(unit: &[Inst], t: TileId, x: pto_ir::ValueId, tiles: usize) -> Use {
    let Some(first) = unit.first() else {
        return Use::Stop;
    };
    let slot = |a: &Arg| *a == Arg::Tile(TileRef::Slot(t));
    let of_t = [Arg::Tile(TileRef::Slot(t))];
    if !names(unit, t, tiles) {
        let plain = matches!(
            first,
            Inst::Op { .. }
                | Inst::Load { .. }
                | Inst::Store { .. }
                | Inst::SetValid { .. }
                | Inst::FullValid(_)
                | Inst::Extract { .. }
                | Inst::Insert { .. }
                | Inst::Cvt { .. }
                | Inst::Fused(_)
                | Inst::ExpandStore(_)
                | Inst::MapRowSum(_)
        ) || is_sync(first);
        return if plain && !writes_tensor(unit, x) {
            Use::Other
        } else {
            Use::Stop
        };
    }
    match first {
        Inst::Op { isa, dst, args }
            if matches!(isa, Isa::TRowSum | Isa::TRowMax | Isa::TRowMin)
                && args.as_slice() == of_t
                && *dst != t =>
        {
            Use::Reads
        }
        Inst::MapRowSum(m) if m.load.is_none() => map_rowsum_use(m, t),
        Inst::ExpandStore(e) if !writes_tensor(unit, x) => match e.op.2.as_slice() {
            [a, b] if slot(a) && !slot(b) => {
                if e.op.1 == t {
                    Use::Overwrites
                } else {
                    Use::Reads
                }
            }
            _ => Use::Refuse,
        },
        _ => Use::Refuse,
    }
}

/// How a row-summed run (`TROWEXPAND{op}(d0, a, r)`, ops, `TROWSUM`) uses `t`: `a` may be
/// `t`, read in place; the run then keeps its values in `t` (the tile is overwritten, as the
/// in-place run on the loaded tile does) or in another tile, and names `t` nowhere else.
fn map_rowsum_use(m: &MapRowSum, t: TileId) -> Use {
    let slot = |a: &Arg| *a == Arg::Tile(TileRef::Slot(t));
    let (Some(((isa, d0, args), rest)), Some(keep)) = (m.ops.split_first(), m.keep) else {
        return Use::Refuse;
    };
    let row_expand = matches!(expand_fn(*isa), Some((_, true)));
    if !row_expand || m.reduce.1 == t || !matches!(args.as_slice(), [a, r] if slot(a) && !slot(r)) {
        return Use::Refuse;
    }
    if keep == t {
        return Use::Overwrites;
    }
    let elsewhere = *d0 == t || rest.iter().any(|(_, d, a)| *d == t || a.iter().any(slot));
    if elsewhere { Use::Refuse } else { Use::Reads }
}

/// The load read in place at `insts[at]`, if there is one (see the module docs).
fn load_view(uses: &[usize], insts: &[Inst], at: usize, scope: Scope) -> Option<LoadView> {
    // The load, and whether the start is a load-and-reduce mark (a reader itself).
    let (t, x, offsets, reads) = match insts.get(at)? {
        Inst::Load {
            dst,
            tensor,
            offsets,
            window,
        } if window.len() <= 2 => (*dst, *tensor, offsets.clone(), false),
        Inst::MapRowSum(m) if m.more.is_empty() && m.ops.is_empty() => {
            let (t, x, offsets) = m.load.clone()?;
            (t, x, offsets, true)
        }
        _ => return None,
    };
    let tiles = uses.len();
    let mut k = at + unit_len(&insts[at]);
    // The index of the last entry of the last reader, and whether it overwrote `t`.
    let mut end = reads.then_some((k - 1, false));
    while let Some(i) = insts.get(k) {
        let len = unit_len(i);
        let unit = insts.get(k..k + len)?;
        match classify(unit, t, x, tiles) {
            Use::Reads => end = Some((k + len - 1, false)),
            Use::Overwrites => {
                end = Some((k + len - 1, true));
                break;
            }
            Use::Other => {}
            Use::Stop => break,
            Use::Refuse => return None,
        }
        k += len;
    }
    let (end, overwritten) = end?;
    if !overwritten && !dead_after(uses, insts, end, t, scope) {
        return None;
    }
    Some(LoadView {
        len: end - at + 1,
        tile: t,
        tensor: x,
        offsets,
        rows: None,
    })
}
