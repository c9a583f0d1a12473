//! Loads the host code need not make, marked by the `fuse-chains` step after its pairs
//! (`pairs.rs`): a `TLOAD` of a rank-1/2 window into `t` (or a load-and-reduce mark starting
//! with one) whose loaded value only these read:
//!
//! - a row reduction of `t` (`TROWSUM`, `TROWMAX`, `TROWMIN`, the load-and-reduce mark's);
//! - a broadcast-and-store pair with `t` as the broadcast's source (`store: ..` marks);
//!
//! with other tile instructions between that do not name `t` (nor write the loaded tensor),
//! and `t` dead after the last reader. The host code then reads the tensor's window in place
//! on the plain path (`pto::isa::tload_view`, `trowmax_view`, `trowexpand_store_view` ...)
//! and runs the instructions as before otherwise, so the copy of the window into `t` is
//! saved (`x - rowmax(x)` and `x * v` of `examples/broadcast.rs`: native bench -20 to -25%).
//! The C++ is unchanged.
//!
//! A row-summed run reading `t` (`rowsum: ..` marks) is not a reader here: read in place, a
//! layernorm's `x - mean` pass reads the window a second time and writes another tile (it
//! ran in place on the loaded one), and measured 15% slower.

use super::is_sync;
use super::pairs::{Scope, dead_after};
use crate::isa::count_tile_uses;
use crate::isa::{Arg, Inst, Isa, LoadView, LoopExec, TileId, TileRef};

/// Marks the loads of the program read in place (see the module docs).
pub fn run(p: &mut crate::isa::Program, uses: &[usize]) {
    let mut body = std::mem::take(&mut p.body);
    block(uses, &mut body, Scope::Function);
    p.body = body;
}

fn block(uses: &[usize], insts: &mut Vec<Inst>, scope: Scope) {
    let mut at = 0;
    while at < insts.len() {
        if scope != Scope::Other
            && let Some(v) = load_view(uses, insts, at, scope)
        {
            let len = v.len;
            insts.insert(at, Inst::LoadView(Box::new(v)));
            at += 1 + len;
            continue;
        }
        match &mut insts[at] {
            Inst::Fused(c) => at += c.len,
            Inst::ExpandStore(e) => at += e.len,
            Inst::MapRowSum(m) => at += m.len,
            Inst::For {
                exec: LoopExec::Parallel { .. },
                ..
            } => {}
            Inst::For { body, .. } => block(uses, body, Scope::Loop),
            _ => {}
        }
        at += 1;
    }
}

/// How the instructions of a span use the loaded tile.
enum Use {
    /// A reader with a `_view` form.
    Reads,
    /// A reader with a `_view` form after which the tile is dead (a broadcast stored from
    /// the tile into itself).
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
    })
}
