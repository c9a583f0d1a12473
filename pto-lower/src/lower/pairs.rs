//! Pairs of instructions the host code runs as one pass, marked by the `fuse-chains` step
//! after its chains. Each pair's first instruction fills a tile that only the second reads
//! (the tile is dead after it, [`dead_after`]), so the fused call need not write the tile:
//!
//! - a row or column broadcast op (`TROWEXPANDMUL(d, a, r)`, `TCOLEXPANDSUB(d, a, c)` ...)
//!   whose result the next instruction stores (`TSTORE(y[..], d)`): each element is computed
//!   once and written into the store's window (`pto::isa::trowexpand_store` ...), instead of
//!   a pass writing `d` and a pass copying it out (the last op of a softmax, of a layernorm,
//!   of `x - rowmax(x)`);
//! - an elementwise op of one tile (`TMUL(d, a, a)`, `TMULS`, `TEXP` ...) whose result the
//!   next instruction sums by rows (`TROWSUM(s, d)`): the sum of the mapped elements in the
//!   row sum's lane order (`pto::isa::trowsum_map`), without writing `d` (the variance of a
//!   layernorm).
//!
//! And two kinds of runs ending in a row reduction, done in one pass over each row while it
//! is in L1 (`pto::isa::tload_rowmax` ..., `trowexpand_map_rowsum`):
//!
//! - a `TLOAD` and a row reduction of the loaded tile (`TROWSUM`, `TROWMAX`, `TROWMIN`): each
//!   row is copied and reduced in one loop; the tile is loaded as before (the first pass of
//!   a softmax or a layernorm);
//! - a `TLOAD` and several row and column reductions of the loaded tile, with other
//!   instructions between that do not write it (`pto::isa::tload_reductions`): every
//!   reduction is done in one pass over the window, each result handed to its destination
//!   where its instruction stands, and the window copied into the tile only if something
//!   else reads it (the row and column sums and maxima of `examples/reductions.rs`);
//! - a row broadcast op, elementwise ops of one tile each reading the one before, and the
//!   `TROWSUM` of the last, where only one of the tiles the ops write is read afterwards
//!   (`keep`): each element is computed once, that tile written and the last value summed
//!   (`exp(t - max)` and its sum in a softmax, `x - mean` and the sum of its squares in a
//!   layernorm).
//!
//! The C++ is unchanged: it prints the instructions one by one.

use pto_ir::ops::{OPS, OpClass};
use pto_ir::sem::{ElementTrait, Sem};

use super::is_sync;
use crate::isa::count_tile_uses;
use crate::isa::{Arg, ExpandStore, Inst, Isa, LoopExec, MapRowSum, Program, TileId, TileRef};

/// Marks the broadcast-and-store pairs of the program (see the module docs).
pub fn run(p: &mut Program, uses: &[usize]) {
    let mut body = std::mem::take(&mut p.body);
    block(p, uses, &mut body, Scope::Function);
    p.body = body;
}

/// The element function (trait and name, `Element::mul`) of a broadcast op
/// (`TROWEXPANDMUL`: `mul`), its operands `(a, r)` or `(a, c)`, and whether the broadcast
/// operand is a column of row values (`TROWEXPAND..`) rather than a row (`TCOLEXPAND..`).
pub fn expand_fn(isa: Isa) -> Option<((ElementTrait, &'static str), bool)> {
    OPS.iter().find_map(|r| {
        if r.class != OpClass::TileBinary {
            return None;
        }
        let form = r.isa.iter().position(|&i| i == isa).filter(|&f| f >= 2)?;
        match r.sem {
            Sem::Binary(k) => Some((k.runtime_fn(), form == 2)),
            _ => None,
        }
    })
}

/// Where a list of instructions sits: what runs after its end.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Scope {
    /// The function's body: nothing runs after it.
    Function,
    /// A sequential `for` loop's body: the body again, then the code after the loop.
    Loop,
    /// Anything else (a branch, a `while`, a parallel loop's body): not looked at.
    Other,
}

fn block(p: &Program, uses: &[usize], insts: &mut Vec<Inst>, scope: Scope) {
    let mut at = 0;
    while at < insts.len() {
        match &insts[at] {
            // A chain's instructions are taken.
            Inst::Fused(c) => {
                at += 1 + c.len;
                continue;
            }
            Inst::ExpandStore(m) => {
                at += 1 + m.len;
                continue;
            }
            Inst::MapRowSum(m) => {
                at += 1 + m.len;
                continue;
            }
            _ => {}
        }
        if scope != Scope::Other
            && let Some(m) = expand_store(p, uses, insts, at, scope)
        {
            let len = m.len;
            insts.insert(at, Inst::ExpandStore(Box::new(m)));
            at += 1 + len;
            continue;
        }
        if scope != Scope::Other
            && let Some(m) = map_rowsum(p, uses, insts, at, scope)
        {
            let len = m.len;
            insts.insert(at, Inst::MapRowSum(Box::new(m)));
            at += 1 + len;
            continue;
        }
        if let Some(m) = load_reductions(uses, insts, at, scope).or_else(|| load_reduce(insts, at))
        {
            let len = m.len;
            insts.insert(at, Inst::MapRowSum(Box::new(m)));
            at += 1 + len;
            continue;
        }
        match &mut insts[at] {
            // A parallel loop whose stores take a lock: a fused call would hold it while it
            // computes, and the iterations would run one at a time. One whose iterations
            // own their rows (`parallel::row_parts`) is marked as any loop.
            i @ Inst::For {
                exec: LoopExec::Parallel { .. },
                ..
            } if super::row_parts(&p.module, i).is_none() => {}
            Inst::For { body, .. } => block(p, uses, body, Scope::Loop),
            Inst::While { cond, body, .. } => {
                block(p, uses, cond, Scope::Other);
                block(p, uses, body, Scope::Other);
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                block(p, uses, then_body, Scope::Other);
                block(p, uses, else_body, Scope::Other);
            }
            _ => {}
        }
        at += 1;
    }
}

/// The broadcast-and-store pair at `insts[at]`, if there is one: a `TROWEXPAND{op}` /
/// `TCOLEXPAND{op}` of tile operands, then (syncs between) a plain `TSTORE` of its
/// destination, of the tile's dtype, through a rank-2 window of the tile's shape, and the
/// destination dead after the store.
fn expand_store(
    p: &Program,
    uses: &[usize],
    insts: &[Inst],
    at: usize,
    scope: Scope,
) -> Option<ExpandStore> {
    let Some(Inst::Op { isa, dst, args }) = insts.get(at) else {
        return None;
    };
    expand_fn(*isa)?;
    if !matches!(
        args.as_slice(),
        [Arg::Tile(TileRef::Slot(_)), Arg::Tile(TileRef::Slot(_))]
    ) {
        return None;
    }
    let mut k = at + 1;
    while insts.get(k).is_some_and(is_sync) {
        k += 1;
    }
    let Some(Inst::Store {
        tensor,
        add: false,
        src: TileRef::Slot(t),
        offsets,
        window,
    }) = insts.get(k)
    else {
        return None;
    };
    let slot = p.tile(*dst)?;
    if t != dst
        || window.as_slice() != [slot.rows, slot.cols]
        || offsets.len() != 2
        || p.module.values[*tensor].ty.dtype() != Some(slot.dtype)
        || !dead_after(uses, insts, k, *dst, scope)
    {
        return None;
    }
    Some(ExpandStore {
        len: k - at + 1,
        op: (*isa, *dst, args.clone()),
        store: (*tensor, offsets.clone()),
    })
}

/// The index of the next instruction after `insts[k]` that is not a sync.
fn next(insts: &[Inst], k: usize) -> usize {
    let mut k = k + 1;
    while insts.get(k).is_some_and(is_sync) {
        k += 1;
    }
    k
}

/// The load-and-reduce pair at `insts[at]`, if there is one: a `TLOAD` of a rank-1/2
/// window, then (syncs between) a `TROWSUM` / `TROWMAX` / `TROWMIN` of the loaded tile.
/// The tile stays as the load leaves it, so nothing is asked of what follows.
fn load_reduce(insts: &[Inst], at: usize) -> Option<MapRowSum> {
    let Some(Inst::Load {
        dst: t,
        tensor,
        offsets,
        window,
    }) = insts.get(at)
    else {
        return None;
    };
    let k = next(insts, at);
    let Some(Inst::Op { isa, dst, args }) = insts.get(k) else {
        return None;
    };
    let reduces = matches!(isa, Isa::TRowSum | Isa::TRowMax | Isa::TRowMin);
    let of_t = args.as_slice() == [Arg::Tile(TileRef::Slot(*t))];
    if !reduces || !of_t || window.len() > 2 || dst == t {
        return None;
    }
    Some(MapRowSum {
        len: k - at + 1,
        load: Some((*t, *tensor, offsets.clone())),
        ops: Vec::new(),
        reduce: (*isa, *dst),
        keep: None,
        more: Vec::new(),
    })
}

/// Whether `isa` reduces a tile by rows or by columns to a sum, maximum or minimum.
pub fn is_reduction(isa: Isa) -> bool {
    matches!(
        isa,
        Isa::TRowSum | Isa::TRowMax | Isa::TRowMin | Isa::TColSum | Isa::TColMax | Isa::TColMin
    )
}

/// The load and reductions at `insts[at]`, if there are: a `TLOAD` of a rank-1/2 window into
/// `t`, then at least two row or column reductions of `t` (`TROWSUM`, `TCOLMAX` ...) before
/// anything writes `t`; between them only ops, loads and stores (and syncs), which may read
/// `t` and the reductions' results. The span ends at the last reduction; the loaded tile is
/// written ([`MapRowSum::keep`]) when an instruction of the span other than the reductions,
/// or one after the span, reads it.
fn load_reductions(uses: &[usize], insts: &[Inst], at: usize, scope: Scope) -> Option<MapRowSum> {
    let Some(Inst::Load {
        dst: t,
        tensor,
        offsets,
        window,
    }) = insts.get(at)
    else {
        return None;
    };
    if window.len() > 2 {
        return None;
    }
    let of_t = [Arg::Tile(TileRef::Slot(*t))];
    let names_t = |i: &Inst| {
        let mut n = vec![0; uses.len()];
        count_tile_uses(std::slice::from_ref(i), &mut n);
        n.get(t.0 as usize).copied().unwrap_or(0) > 0
    };
    let mut found = Vec::new();
    // The index of the last reduction, and of the first other instruction reading `t`.
    let (mut end, mut read) = (at, None);
    for (k, i) in insts.iter().enumerate().skip(at + 1) {
        match i {
            _ if is_sync(i) => {}
            Inst::Op { isa, dst, args }
                if is_reduction(*isa) && args.as_slice() == of_t && dst != t =>
            {
                found.push((*isa, *dst));
                end = k;
            }
            Inst::Op { dst, .. } | Inst::Load { dst, .. } if dst != t => {
                if names_t(i) {
                    read.get_or_insert(k);
                }
            }
            Inst::Store { .. } => {
                if names_t(i) {
                    read.get_or_insert(k);
                }
            }
            _ => break,
        }
    }
    let (&reduce, more) = found.split_first()?;
    if more.is_empty() {
        return None;
    }
    let read_in_span = read.is_some_and(|k| k < end);
    let keep = (read_in_span || !dead_after(uses, insts, end, *t, scope)).then_some(*t);
    Some(MapRowSum {
        len: end - at + 1,
        load: Some((*t, *tensor, offsets.clone())),
        ops: Vec::new(),
        reduce,
        keep,
        more: more.to_vec(),
    })
}

/// Whether `args` are those of an elementwise op of the one tile `t` (unary, tile-scalar,
/// or tile-tile of `t` twice).
fn of_one_tile(isa: Isa, args: &[Arg], t: TileId) -> bool {
    let t = Arg::Tile(TileRef::Slot(t));
    crate::lower::fuse::element_fn(isa).is_some()
        && match args {
            [a] => *a == t && isa.is_unary(),
            [a, Arg::Scalar(_) | Arg::Imm(_)] => *a == t && isa.is_scalar_form(),
            [a, b] => *a == t && *b == t && isa.is_binary(),
            _ => false,
        }
}

/// The run summed by rows at `insts[at]`, if there is one: ops of one shape and dtype (a
/// row broadcast of tile operands, or an elementwise op of one tile, first; elementwise ops
/// of one tile each reading the one before after it), then (syncs between) a `TROWSUM` of
/// the last op's result into another tile. Of the tiles the ops write, at most one may be
/// read after the sum: none for a single elementwise op (its result is only summed), one
/// (`keep`) after a broadcast (`exp(t - max)` kept and summed; `x - mean` kept and its
/// squares summed).
fn map_rowsum(
    p: &Program,
    uses: &[usize],
    insts: &[Inst],
    at: usize,
    scope: Scope,
) -> Option<MapRowSum> {
    let Some(Inst::Op { isa, dst, args }) = insts.get(at) else {
        return None;
    };
    let shape = |t: TileId| p.tile(t).map(|s| (s.dtype, s.rows, s.cols));
    let first = shape(*dst)?;
    // The first op's tile source, and its broadcast operand.
    let (src, expand) = match args.as_slice() {
        [Arg::Tile(TileRef::Slot(a)), Arg::Tile(TileRef::Slot(r))]
            if expand_fn(*isa).is_some_and(|(_, row)| row) =>
        {
            let rows = p.tile(*r).map(|s| (s.dtype, s.rows, s.cols));
            if shape(*a) != Some(first) || rows != Some((first.0, first.1, 1)) {
                return None;
            }
            (*a, Some(*r))
        }
        [Arg::Tile(TileRef::Slot(a)), ..] if of_one_tile(*isa, args, *a) => (*a, None),
        _ => return None,
    };
    let mut ops = vec![(*isa, *dst, args.clone())];
    let mut k = next(insts, at);
    let sum = loop {
        let last = ops.last()?.1;
        match insts.get(k)? {
            Inst::Op {
                isa: Isa::TRowSum,
                dst: sum,
                args,
            } if args.as_slice() == [Arg::Tile(TileRef::Slot(last))] => break *sum,
            Inst::Op { isa, dst, args }
                if expand.is_some()
                    && of_one_tile(*isa, args, last)
                    && shape(*dst) == Some(first) =>
            {
                ops.push((*isa, *dst, args.clone()));
            }
            _ => return None,
        }
        k = next(insts, k);
    };
    let mut written: Vec<TileId> = ops.iter().map(|o| o.1).collect();
    written.sort_by_key(|t| t.0);
    written.dedup();
    // The call borrows `sum`, the kept tile and the source apart; a broadcast operand that
    // is also the sum is copied first (the host code), one that is written is not allowed.
    if written.contains(&sum)
        || sum == src
        || expand.is_some_and(|r| written.contains(&r) || r == src)
    {
        return None;
    }
    let live: Vec<TileId> = written
        .into_iter()
        .filter(|&t| !dead_after(uses, insts, k, t, scope))
        .collect();
    let keep = match (expand, live.as_slice()) {
        (None, []) => None,
        (Some(_), [t]) => Some(*t),
        _ => return None,
    };
    Some(MapRowSum {
        len: k - at + 1,
        load: None,
        ops,
        reduce: (Isa::TRowSum, sum),
        keep,
        more: Vec::new(),
    })
}

/// Whether nothing reads tile `t` after `insts[k]`: in a function's body, nothing after it
/// names `t`; in a sequential loop's body, nothing after it names `t`, nothing outside the
/// body does, and the body's first instruction naming `t` writes it without reading it (a
/// `TLOAD`, or an elementwise or broadcast op whose region comes from its sources), so the
/// next iteration does not read it either.
pub(super) fn dead_after(
    uses: &[usize],
    insts: &[Inst],
    k: usize,
    t: TileId,
    scope: Scope,
) -> bool {
    let names = |i: &Inst| {
        let mut n = vec![0; uses.len()];
        count_tile_uses(std::slice::from_ref(i), &mut n);
        n.get(t.0 as usize).copied().unwrap_or(0) > 0
    };
    if insts.iter().skip(k + 1).any(names) {
        return false;
    }
    match scope {
        Scope::Function => true,
        Scope::Other => false,
        Scope::Loop => {
            let mut inside = vec![0; uses.len()];
            count_tile_uses(insts, &mut inside);
            if inside.get(t.0 as usize) != uses.get(t.0 as usize) {
                return false;
            }
            let src = |a: &Arg| *a == Arg::Tile(TileRef::Slot(t));
            match insts.iter().find(|i| names(i)) {
                Some(Inst::Load { dst, .. }) => *dst == t,
                Some(Inst::Op { isa, dst, args }) => {
                    *dst == t
                        && !args.iter().any(src)
                        && (isa.is_binary()
                            || isa.is_scalar_form()
                            || isa.is_unary()
                            || isa.is_expand_op())
                }
                _ => false,
            }
        }
    }
}
