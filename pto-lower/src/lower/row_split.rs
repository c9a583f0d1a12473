//! Loads read in place whose instructions the host code runs one row at a time, marked by the
//! `fuse-chains` step after the views (`load_views.rs`): the view's span and the instructions
//! after it while each is row-local (row `i` of its result depends only on row `i` of its
//! tile operands of the loaded tile's row count, `R`):
//!
//! - elementwise ops (tile-tile, tile-scalar, unary), row and column broadcasts (the column
//!   operand a one-row tile the span does not write), row reductions (`TROWSUM` ..);
//! - the marks of those (`rowsum: ..`, `store: ..`) and `TSTORE`s of `R`-row tiles to rank-2
//!   windows (at most one per tensor, none to the loaded tensor).
//!
//! Each `R`-row tile these name must be written there before it is read and be dead after
//! them. The host code then runs them, when the loaded window and every stored window are
//! whole (`R` rows, all columns, inside the tensor), once per row on one-row tiles, the
//! transfers' row offset moved down by the row; otherwise on the whole tiles as before. Row
//! `i` of every result is then computed from the same values by the same operations (a row
//! reduction sums one row in the same order), so the results are the same bits; what
//! changes is that a row's values stay in L1 between the instructions, as in a loop written
//! by hand, instead of passing through tiles of `R` rows that do not fit in it together (a
//! softmax or layernorm over 8 x 1024 `f32` tiles). The C++ is unchanged.
//!
//! Only loaded tiles of at least [`MIN_BYTES`] are split: with a smaller one the tiles of a
//! span mostly stay in L1 already, and the calls per row cost more than they save (a 16 x
//! 256 `f32` softmax ran 1.3x slower split).

use super::fuse::element_fn;
use super::is_sync;
use super::pairs::{Scope, expand_fn};
use crate::isa::{
    Arg, Args, Inst, Isa, LoadView, Offsets, RowSplit, TileId, TileRef, TileSlot, count_tile_uses,
};

/// The smallest loaded tile, in bytes, whose instructions are run row by row: a typical
/// 32 KiB L1 data cache, which the loaded window, a tile written from it and the stored
/// window then overflow three times over.
pub const MIN_BYTES: u64 = 32 * 1024;

/// The row split of the view marked at `insts[at]`, if there is one (see the module docs).
pub(super) fn split(
    tiles: &[TileSlot],
    uses: &[usize],
    insts: &[Inst],
    at: usize,
    scope: Scope,
) -> Option<RowSplit> {
    let Some(Inst::LoadView(v)) = insts.get(at) else {
        return None;
    };
    let slot = tiles.get(v.tile.0 as usize)?;
    let rows = slot.rows;
    if rows < 2 || slot.bytes < MIN_BYTES {
        return None;
    }
    let mut s = Scan {
        tiles,
        rows,
        view: v,
        written: Vec::new(),
        stores: Vec::new(),
    };
    // The view's span, all of it, then whole units after it while they are row-local.
    let view_end = at + v.len;
    for i in insts.get(at + 1..=view_end)? {
        if !s.accept(i) {
            return None;
        }
    }
    // Candidate ends: the view's span's and each unit's after it, with the scan's state.
    let mut ends = vec![(view_end, s.written.clone(), s.stores.clone())];
    let mut k = view_end + 1;
    while let Some(i) = insts.get(k) {
        let len = 1 + match i {
            Inst::MapRowSum(m) => m.len,
            Inst::ExpandStore(e) => e.len,
            _ => 0,
        };
        let Some(unit) = insts.get(k..k + len) else {
            break;
        };
        if !unit.iter().all(|i| s.accept(i)) {
            break;
        }
        k += len;
        ends.push((k - 1, s.written.clone(), s.stores.clone()));
    }
    // The longest run after which every split tile is dead.
    while let Some((end, written, stores)) = ends.pop() {
        if written
            .iter()
            .all(|&t| only_inside(uses, insts, (at, end), t, scope))
        {
            return Some(RowSplit {
                more: end - view_end,
                kept: kept_in_window(insts, (at, end), v),
                tiles: written,
                stores,
            });
        }
    }
    None
}

/// The loaded tile `t` with the store that may hold it (see [`RowSplit::kept`]): a
/// row-summed run inside the view's span reads the view into `t` itself
/// (`TROWEXPAND{op}(t, t, r)` ..., `keep` `t`), and after the span the split's one other
/// reader of `t` is a row broadcast in place stored whole (`TROWEXPAND{op}(t, t, r');
/// TSTORE(y[..], t)`), with no load or store between the two. The run then writes the
/// store's window, and the broadcast rewrites it in place.
///
/// The window's first writes (lines not in cache) then fall in the run's pass, beside its
/// loads and arithmetic, instead of making the store's pass a bare stream of stores that
/// stalls on them; the store's pass rewrites lines already in L1. Over 4096 x 1024 `f32`
/// rows, with the two ways alternating in one process: a softmax (`exp(x - max)`) ran 1.1x
/// faster, a layernorm (`x - mean`, a subtract and a multiply-add per element) 1.45x
/// (`benches/kernels.rs`; session 15 had measured the layernorm slower so, which the
/// alternating runs did not confirm).
fn kept_in_window(
    insts: &[Inst],
    (at, end): (usize, usize),
    v: &LoadView,
) -> Option<(TileId, pto_ir::ValueId, Offsets)> {
    let t = v.tile;
    let split = insts.get(at + 1..=end)?;
    let reads_t =
        |args: &Args| matches!(args.first(), Some(Arg::Tile(TileRef::Slot(a))) if *a == t);
    let (k, run) = split.iter().enumerate().find_map(|(k, i)| match i {
        Inst::MapRowSum(m)
            if m.keep == Some(t)
                && m.load.is_none()
                && m.more.is_empty()
                && m.ops.first().is_some_and(|(isa, _, args)| {
                    matches!(expand_fn(*isa), Some((_, true))) && reads_t(args)
                }) =>
        {
            Some((k, m))
        }
        _ => None,
    })?;
    let run_end = k + 1 + run.len;
    if run_end > v.len {
        return None;
    }
    let (s, store) = split.iter().enumerate().find_map(|(s, i)| match i {
        Inst::ExpandStore(e) if s >= v.len => Some((s, e)),
        _ => None,
    })?;
    let (isa, dst, args) = &store.op;
    let in_place = matches!(expand_fn(*isa), Some((_, true))) && *dst == t && reads_t(args);
    let names_t = |i: &Inst| {
        let mut n = vec![0; t.0 as usize + 1];
        count_tile_uses(std::slice::from_ref(i), &mut n);
        n.get(t.0 as usize).copied().unwrap_or(0) > 0
    };
    let transfer = |i: &Inst| {
        matches!(
            i,
            Inst::Load { .. } | Inst::Store { .. } | Inst::ExpandStore(_)
        )
    };
    let between = split.get(run_end..s)?;
    let after = split.get(s + 1 + store.len..)?;
    let clear =
        between.iter().all(|i| !names_t(i) && !transfer(i)) && after.iter().all(|i| !names_t(i));
    (in_place && clear).then(|| (t, store.store.0, store.store.1.clone()))
}

/// Whether only `insts[at..=end]` names `t`, in a function's body or a sequential loop's
/// body (where the tile's value is then never carried from one iteration to the next: the
/// split writes it before it reads it).
fn only_inside(
    uses: &[usize],
    insts: &[Inst],
    (at, end): (usize, usize),
    t: TileId,
    scope: Scope,
) -> bool {
    let names = |i: &Inst| {
        let mut n = vec![0; uses.len()];
        count_tile_uses(std::slice::from_ref(i), &mut n);
        n.get(t.0 as usize).copied().unwrap_or(0) > 0
    };
    let after = insts.iter().skip(end + 1).any(names);
    match scope {
        Scope::Function => !after,
        Scope::Other => false,
        Scope::Loop => {
            let mut inside = vec![0; uses.len()];
            count_tile_uses(insts, &mut inside);
            !after
                && !insts.iter().take(at).any(names)
                && inside.get(t.0 as usize) == uses.get(t.0 as usize)
        }
    }
}

/// The state of a scan over the instructions of a split, in order.
struct Scan<'a> {
    tiles: &'a [TileSlot],
    /// The loaded tile's rows.
    rows: u64,
    view: &'a LoadView,
    /// The split tiles written so far, in order of their first write.
    written: Vec<TileId>,
    /// The stores so far.
    stores: Vec<(pto_ir::ValueId, Offsets, TileId)>,
}

impl Scan<'_> {
    fn rows_of(&self, t: TileId) -> Option<u64> {
        self.tiles.get(t.0 as usize).map(|s| s.rows)
    }

    /// Whether `t` is a tile the split runs row by row (it has the loaded tile's rows).
    fn split(&self, t: TileId) -> bool {
        self.rows_of(t) == Some(self.rows)
    }

    /// Whether tile operand `a` may be read here: a split tile written before, or a one-row
    /// tile (which the split never writes: every destination is a split tile).
    fn readable(&self, a: &Arg) -> bool {
        match a {
            Arg::Tile(TileRef::Slot(t)) if self.split(*t) => self.written.contains(t),
            Arg::Tile(TileRef::Slot(t)) => self.rows_of(*t) == Some(1),
            Arg::Tile(TileRef::Param(_)) => false,
            Arg::Scalar(_) | Arg::Imm(_) => true,
            Arg::Cmp(_) => false,
        }
    }

    fn write(&mut self, t: TileId) -> bool {
        if !self.split(t) {
            return false;
        }
        if !self.written.contains(&t) {
            self.written.push(t);
        }
        true
    }

    /// Takes instruction `i` into the split, or says it cannot be.
    fn accept(&mut self, i: &Inst) -> bool {
        match i {
            _ if is_sync(i) => true,
            // The marks themselves do nothing; their instructions are checked one by one. A
            // run with column reductions after a load is not row-local.
            Inst::MapRowSum(m) => m.more.is_empty(),
            Inst::ExpandStore(_) => true,
            Inst::Load { dst, tensor, .. } => {
                *dst == self.view.tile && *tensor == self.view.tensor && self.write(*dst)
            }
            Inst::Op { isa, dst, args } => {
                row_local(*isa) && args.iter().all(|a| self.readable(a)) && self.write(*dst)
            }
            Inst::Store {
                src: TileRef::Slot(t),
                tensor,
                add: false,
                offsets,
                window,
            } => {
                let fresh =
                    *tensor != self.view.tensor && !self.stores.iter().any(|(x, _, _)| x == tensor);
                if !(fresh && window.len() <= 2 && offsets.len() == 2) {
                    return false;
                }
                let ok = self.split(*t) && self.written.contains(t);
                if ok {
                    self.stores.push((*tensor, offsets.clone(), *t));
                }
                ok
            }
            _ => false,
        }
    }
}

/// Whether row `i` of `isa`'s result depends only on row `i` of its tile operands (a
/// column broadcast's one-row operand aside).
fn row_local(isa: Isa) -> bool {
    element_fn(isa).is_some()
        || expand_fn(isa).is_some()
        || matches!(isa, Isa::TRowSum | Isa::TRowMax | Isa::TRowMin)
}
