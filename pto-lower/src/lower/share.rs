//! The `share-tiles` step: copies the host code need not make. On the CPU every tile
//! location is the same memory, so a `TMOV` is a plain copy; where the copy and the tile it
//! reads hold the same values for as long as they are read, the host code can use one tile
//! for both and skip the copy. Two kinds, each marked by an [`Inst::Share`] in front of the
//! instructions it spans (the host code runs those with the tiles renamed):
//!
//! - operand moves: `TMOV(l, m)` into a tile only the next matmul reads (`TMOV` Mat ->
//!   Left / Right, then `TMATMUL*(c, l, r)`): the matmul reads `m` in place, the loaded tile,
//!   so a loaded operand is copied once (by its `TLOAD`) instead of twice;
//! - a value moved into another tile: `X(s, ..)` (the nearest instruction naming `s`, e.g. a
//!   `TLOAD`, or a branch that writes `s` on every path) then `TMOV(d, s)` with `s` dead
//!   after it: `X` writes `d` directly and the move is nothing (a tile loaded straight into
//!   the `Left` / `Right` tile its matmul reads). Between the two only a
//!   `TMATMUL_ACC(s, d, a, b)` that writes `s` first may name `d`; it becomes the in-place
//!   `TMATMUL_ACC(d, d, a, b)` (`tmatmul_acc_inplace`).
//!
//! Each tile a mark stops writing is dead after its span (nothing reads it before an
//! instruction writes it whole again, on every path: [`dead_after`]), and the tile it is
//! renamed to holds the same valid region and values wherever the renamed tile is read, so
//! the results are the separate instructions' bits. The C++ and the interpreter are
//! unchanged: they run the instructions one by one.

use std::fmt::Write as _;

use super::is_sync;
use crate::isa::{Arg, Inst, Isa, LoopExec, Program, Share, TileId, TileRef};

/// Marks the copies the host code can skip (see the module docs).
pub fn run(p: &mut Program) {
    let orig = p.body.clone();
    let mut body = std::mem::take(&mut p.body);
    block(p, &orig, &[], &mut body);
    p.body = body;
}

/// A span of a block to mark: first and last instruction, and the renames `(from, to)`.
type Span = (usize, usize, Vec<(TileId, TileId)>);

/// What may run after a list of instructions, innermost first.
#[derive(Clone, Copy)]
enum Frame<'a> {
    /// The rest of an enclosing block.
    Rest(&'a [Inst]),
    /// A loop's body (and condition), which may run again.
    Repeat(&'a [Inst]),
}

/// Marks the spans of `insts` (a block of the program, `orig` its copy before marking, which
/// the analysis reads) and of the blocks nested in it; `after` is what runs after the block.
fn block<'a>(p: &Program, orig: &'a [Inst], after: &[Frame<'a>], insts: &mut Vec<Inst>) {
    for (q, (inst, o)) in insts.iter_mut().zip(orig).enumerate() {
        let rest = Frame::Rest(orig.get(q + 1..).unwrap_or_default());
        let inner = |extra: Option<Frame<'a>>| -> Vec<Frame<'a>> {
            extra
                .into_iter()
                .chain([rest])
                .chain(after.iter().copied())
                .collect()
        };
        match (inst, o) {
            // A parallel loop's tiles are each iteration's own copies: left alone.
            (
                Inst::For {
                    exec: LoopExec::Parallel { .. },
                    ..
                },
                _,
            ) => {}
            (Inst::For { body, .. }, Inst::For { body: ob, .. }) => {
                block(p, ob, &inner(Some(Frame::Repeat(ob))), body);
            }
            (
                Inst::While { cond, body, .. },
                Inst::While {
                    cond: oc, body: ob, ..
                },
            ) => {
                // After the body the condition runs, then maybe the body again.
                let frames: Vec<Frame<'a>> = [Frame::Repeat(oc), Frame::Repeat(ob)]
                    .into_iter()
                    .chain(inner(None))
                    .collect();
                block(p, ob, &frames, body);
                let frames: Vec<Frame<'a>> = [Frame::Repeat(ob), Frame::Repeat(oc)]
                    .into_iter()
                    .chain(inner(None))
                    .collect();
                block(p, oc, &frames, cond);
            }
            (
                Inst::If {
                    then_body,
                    else_body,
                    ..
                },
                Inst::If {
                    then_body: ot,
                    else_body: oe,
                    ..
                },
            ) => {
                let frames = inner(None);
                block(p, ot, &frames, then_body);
                block(p, oe, &frames, else_body);
            }
            _ => {}
        }
    }
    let covered = fuse_covered(orig);
    let candidates = (0..orig.len())
        .filter_map(|k| result_move(p, orig, after, &covered, k))
        .chain((0..orig.len()).filter_map(|j| operand_moves(p, orig, after, &covered, j)));
    let mut spans: Vec<Span> = Vec::new();
    for c in candidates {
        // Apart from each span taken, or nested in it (either way) renaming other tiles.
        let fits = spans.iter().all(|s| {
            let apart = c.1 < s.0 || c.0 > s.1;
            let nested = (c.0 >= s.0 && c.1 <= s.1) || (s.0 >= c.0 && s.1 <= c.1);
            let tiles =
                |x: &Span| -> Vec<TileId> { x.2.iter().flat_map(|&(a, b)| [a, b]).collect() };
            apart || (nested && tiles(&c).iter().all(|t| !tiles(s).contains(t)))
        });
        if fits {
            spans.push(c);
        }
    }
    if spans.is_empty() {
        return;
    }
    // Outer spans first where two start together.
    spans.sort_by(|x, y| x.0.cmp(&y.0).then(y.1.cmp(&x.1)));
    let old = std::mem::take(insts);
    let mut marks_at: Vec<usize> = Vec::new();
    let mut pos = Vec::with_capacity(old.len());
    let mut next = spans.iter().peekable();
    for (q, inst) in old.into_iter().enumerate() {
        while let Some((_, _, renames)) = next.next_if(|s| s.0 == q) {
            marks_at.push(insts.len());
            insts.push(Inst::Share(Box::new(Share {
                len: 0,
                renames: renames.clone(),
            })));
        }
        pos.push(insts.len());
        insts.push(inst);
    }
    for (&at, &(_, end, _)) in marks_at.iter().zip(&spans) {
        if let (Some(Inst::Share(s)), Some(&e)) = (insts.get_mut(at), pos.get(end)) {
            s.len = e - at;
        }
    }
}

/// Per instruction of `insts`, whether a mark of the `fuse-chains` step spans it (or is it):
/// a span of this step neither cuts into one nor renames inside one.
fn fuse_covered(insts: &[Inst]) -> Vec<bool> {
    let mut out = vec![false; insts.len()];
    for (q, i) in insts.iter().enumerate() {
        let len = match i {
            Inst::Fused(c) => c.len,
            Inst::ExpandStore(e) => e.len,
            Inst::MapRowSum(m) => m.len,
            Inst::LoadView(v) => v.covers(),
            _ => continue,
        };
        for c in out.iter_mut().skip(q).take(len + 1) {
            *c = true;
        }
    }
    out
}

fn is_matmul(isa: Isa) -> bool {
    matches!(isa, Isa::TMatmul | Isa::TMatmulAcc | Isa::TMatmulBias)
}

fn slot(t: TileId) -> Arg {
    Arg::Tile(TileRef::Slot(t))
}

/// `TMOV(dst, src)` of two slots of one dtype and shape (a plain copy on the host).
fn plain_move(p: &Program, i: &Inst) -> Option<(TileId, TileId)> {
    let Inst::Op {
        isa: Isa::TMov,
        dst,
        args,
    } = i
    else {
        return None;
    };
    let [Arg::Tile(TileRef::Slot(src))] = args.as_slice() else {
        return None;
    };
    let (a, b) = (p.tile(*dst)?, p.tile(*src)?);
    let same = (a.dtype, a.rows, a.cols) == (b.dtype, b.rows, b.cols);
    (same && dst != src).then_some((*dst, *src))
}

/// The operand moves into the matmul at `orig[j]`: the `TMOV(l, m)`s among the syncs and
/// moves just before it whose `l` the matmul reads and nothing after it does, with `m` not
/// written between the move and the matmul. Returns the span (first move, matmul) and the
/// renames `l -> m`.
fn operand_moves(
    p: &Program,
    orig: &[Inst],
    after: &[Frame<'_>],
    covered: &[bool],
    j: usize,
) -> Option<Span> {
    let Some(Inst::Op { isa, dst, args }) = orig.get(j) else {
        return None;
    };
    if !is_matmul(*isa) || covered.get(j) != Some(&false) {
        return None;
    }
    let mut start = j;
    while start > 0 {
        let i = &orig[start - 1];
        if covered[start - 1] || !(is_sync(i) || plain_move(p, i).is_some()) {
            break;
        }
        start -= 1;
    }
    let rest = orig.get(j + 1..).unwrap_or_default();
    let mut pairs: Vec<(usize, TileId, TileId)> = (start..j)
        .filter_map(|k| plain_move(p, &orig[k]).map(|(l, m)| (k, l, m)))
        .filter(|&(_, l, m)| {
            args.contains(&slot(l))
                && l != *dst
                && m != *dst
                && dead_after(l, rest, after)
                // Moved once: an earlier move into `l` would be renamed too.
                && orig[start..j].iter().filter(|i| names(i, l)).count() == 1
        })
        .collect();
    // `m` keeps its value from the move to the matmul, and is not itself renamed.
    let all = pairs.clone();
    pairs.retain(|&(k, _, m)| {
        orig[k + 1..j].iter().all(|i| !writes(i, m)) && all.iter().all(|&(_, l2, _)| l2 != m)
    });
    let first = pairs.first()?.0;
    Some((
        first,
        j,
        pairs.into_iter().map(|(_, l, m)| (l, m)).collect(),
    ))
}

/// The result move at `orig[k]`: `TMOV(d, s)` with `s` dead after it, written on every path
/// through the instructions before it (back to the nearest one naming `s` or `d`), where
/// only a `TMATMUL_ACC(s, d, ..)` that writes `s` first names `d`. Returns the span (which
/// reaches back over the instructions naming neither, so an operand span nests in it) and
/// the rename `s -> d`.
fn result_move(
    p: &Program,
    orig: &[Inst],
    after: &[Frame<'_>],
    covered: &[bool],
    k: usize,
) -> Option<Span> {
    let (d, s) = plain_move(p, orig.get(k)?)?;
    if covered[k] || !dead_after(s, orig.get(k + 1..).unwrap_or_default(), after) {
        return None;
    }
    let q = (0..k)
        .rev()
        .find(|&q| names(&orig[q], s) || names(&orig[q], d))?;
    let mut start = q;
    while start > 0
        && simple(&orig[start - 1])
        && !names(&orig[start - 1], s)
        && !names(&orig[start - 1], d)
    {
        start -= 1;
    }
    let span = &orig[start..k];
    let clear = covered[start..k].iter().all(|c| !c) && !span.iter().any(has_mark_or_loop);
    let ok = clear
        && scan(span, s, false) == Event::Kill
        && accumulates_first(span, s, d, &mut (false, false));
    ok.then(|| (start, k, vec![(s, d)]))
}

/// Whether, on every path through `insts`, the only instruction naming `d` (if any) is a
/// `TMATMUL_ACC(s, d, a, b)` that names `s` before anything else does, and at most one
/// (`seen`: whether `s` / `d` were named on the path so far). Loops naming either refuse.
fn accumulates_first(insts: &[Inst], s: TileId, d: TileId, seen: &mut (bool, bool)) -> bool {
    for i in insts {
        match i {
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                let (mut a, mut b) = (*seen, *seen);
                if !accumulates_first(then_body, s, d, &mut a)
                    || !accumulates_first(else_body, s, d, &mut b)
                {
                    return false;
                }
                *seen = (a.0 || b.0, a.1 || b.1);
            }
            _ if names(i, d) => {
                let ok = matches!(i, Inst::Op { isa: Isa::TMatmulAcc, dst, args }
                    if *dst == s && args.first() == Some(&slot(d))
                        && !args[1..].contains(&slot(d)) && !args[1..].contains(&slot(s)));
                if !ok || seen.0 || seen.1 || !matches!(i, Inst::Op { .. }) {
                    return false;
                }
                *seen = (true, true);
            }
            Inst::For { .. } | Inst::While { .. } if names(i, s) => return false,
            _ if names(i, s) => seen.0 = true,
            _ => {}
        }
    }
    true
}

/// An instruction with no nested ones that is not a mark.
fn simple(i: &Inst) -> bool {
    !matches!(
        i,
        Inst::For { .. }
            | Inst::While { .. }
            | Inst::If { .. }
            | Inst::Fused(_)
            | Inst::ExpandStore(_)
            | Inst::MapRowSum(_)
            | Inst::LoadView(_)
            | Inst::Share(_)
    )
}

/// Whether `i` is or holds a mark of the `fuse-chains` step or a loop (whose host code looks
/// at which tiles it shares with the code around it, by their names).
fn has_mark_or_loop(i: &Inst) -> bool {
    match i {
        Inst::If {
            then_body,
            else_body,
            ..
        } => then_body.iter().chain(else_body).any(has_mark_or_loop),
        Inst::Share(_) => false,
        i => !simple(i),
    }
}

/// Whether `i` (or an instruction nested in it) names tile `t`.
fn names(i: &Inst, t: TileId) -> bool {
    let mut n = vec![0; t.0 as usize + 1];
    crate::isa::count_tile_uses(std::slice::from_ref(i), &mut n);
    n[t.0 as usize] > 0
}

/// Whether the single instruction `i` writes tile `t`.
fn writes(i: &Inst, t: TileId) -> bool {
    match i {
        Inst::Op { dst, .. }
        | Inst::Load { dst, .. }
        | Inst::Extract { dst, .. }
        | Inst::Insert { dst, .. }
        | Inst::Cvt { dst, .. }
        | Inst::SetValid { dst, .. }
        | Inst::FullValid(dst) => *dst == t,
        _ => names(i, t),
    }
}

/// The first thing the instructions do with a tile, on the paths through them.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Event {
    /// Some path reads it (or may: a jump out of the list).
    Read,
    /// Every path writes it whole before reading it, or ends.
    Kill,
    /// Some path neither reads nor writes it.
    Neither,
}

/// What `insts` do first with `t` (see [`Event`]); `in_loop`: a `break` / `continue` jumps
/// within the list (in a loop nested in it) rather than out of it.
fn scan(insts: &[Inst], t: TileId, in_loop: bool) -> Event {
    for i in insts {
        let e = match i {
            Inst::If {
                then_body,
                else_body,
                ..
            } => match (scan(then_body, t, in_loop), scan(else_body, t, in_loop)) {
                (Event::Read, _) | (_, Event::Read) => Event::Read,
                (Event::Kill, Event::Kill) => Event::Kill,
                _ => Event::Neither,
            },
            // A loop may run no iteration: a write in it kills nothing.
            Inst::For { body, .. } => match scan(body, t, true) {
                Event::Read => Event::Read,
                _ => Event::Neither,
            },
            Inst::While { cond, body, .. } => match (scan(cond, t, true), scan(body, t, true)) {
                (Event::Read, _) | (Event::Neither, Event::Read) => Event::Read,
                (Event::Kill, _) => Event::Kill,
                _ => Event::Neither,
            },
            Inst::Break | Inst::Continue if !in_loop => Event::Read,
            Inst::Return(_) => Event::Kill,
            i if kills(i, t) => Event::Kill,
            i if names(i, t) => Event::Read,
            _ => Event::Neither,
        };
        if e != Event::Neither {
            return e;
        }
    }
    Event::Neither
}

/// Whether `i` writes `t`'s valid region from other tiles or a tensor without reading `t`.
fn kills(i: &Inst, t: TileId) -> bool {
    let reads = |args: &[Arg]| args.contains(&slot(t));
    match i {
        Inst::Load { dst, .. } => *dst == t,
        Inst::Extract { dst, src, .. } | Inst::Cvt { dst, src, .. } => {
            *dst == t && *src != TileRef::Slot(t)
        }
        Inst::Op { isa, dst, args } => {
            *dst == t
                && !reads(args)
                && (is_matmul(*isa)
                    || *isa == Isa::TMov
                    || isa.is_binary()
                    || isa.is_scalar_form()
                    || isa.is_unary()
                    || isa.is_expand_op())
        }
        _ => false,
    }
}

/// Whether nothing reads `t` after `rest` (the instructions after a point of the block) and
/// the frames around it before an instruction writes it whole.
fn dead_after(t: TileId, rest: &[Inst], after: &[Frame<'_>]) -> bool {
    match scan(rest, t, false) {
        Event::Read => return false,
        Event::Kill => return true,
        Event::Neither => {}
    }
    for f in after {
        match *f {
            Frame::Rest(insts) => match scan(insts, t, false) {
                Event::Read => return false,
                Event::Kill => return true,
                Event::Neither => {}
            },
            // The loop may also end here: a write in its body does not settle it.
            Frame::Repeat(insts) => {
                if scan(insts, t, true) == Event::Read {
                    return false;
                }
            }
        }
    }
    true
}

/// `insts` with each tile `from` named as `to` (the host code of a [`Share`] span).
pub fn renamed(insts: &[Inst], renames: &[(TileId, TileId)]) -> Vec<Inst> {
    let r = |t: &mut TileId| {
        if let Some(&(_, to)) = renames.iter().find(|(from, _)| from == t) {
            *t = to;
        }
    };
    let rr = |x: &mut TileRef| {
        if let TileRef::Slot(t) = x {
            r(t);
        }
    };
    let mut out = insts.to_vec();
    for i in &mut out {
        match i {
            Inst::Op { dst, args, .. } => {
                r(dst);
                for a in args.iter_mut() {
                    if let Arg::Tile(x) = a {
                        rr(x);
                    }
                }
            }
            Inst::Load { dst, .. } | Inst::SetValid { dst, .. } | Inst::FullValid(dst) => r(dst),
            Inst::Store { src, .. } => rr(src),
            Inst::Extract { dst, src, .. }
            | Inst::Insert { dst, src, .. }
            | Inst::Cvt { dst, src, .. } => {
                r(dst);
                rr(src);
            }
            Inst::For { body, .. } => *body = renamed(body, renames),
            Inst::While { cond, body, .. } => {
                *cond = renamed(cond, renames);
                *body = renamed(body, renames);
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                *then_body = renamed(then_body, renames);
                *else_body = renamed(else_body, renames);
            }
            Inst::Share(s) => {
                for (from, to) in &mut s.renames {
                    r(from);
                    r(to);
                }
            }
            _ => {}
        }
    }
    out
}

/// The marks of the program, one line each, indented by nesting (the file tests' text):
/// `share t3_at_left -> t1_at, t4_bt_right -> t2_bt: TMOV; TMOV; TMATMUL`.
pub fn describe(p: &Program) -> String {
    let mut out = String::new();
    describe_block(p, &p.body, 0, &mut out);
    out
}

fn describe_block(p: &Program, insts: &[Inst], depth: usize, out: &mut String) {
    let tile = |t: TileId| p.tile(t).map_or(format!("t{}", t.0), |s| s.name.clone());
    for (q, i) in insts.iter().enumerate() {
        match i {
            Inst::Share(s) => {
                let renames: Vec<String> = s
                    .renames
                    .iter()
                    .map(|&(from, to)| format!("{} -> {}", tile(from), tile(to)))
                    .collect();
                let span: Vec<String> = insts
                    .iter()
                    .skip(q + 1)
                    .take(s.len)
                    .map(|i| match i {
                        Inst::Op { isa, .. } => isa.name().to_string(),
                        Inst::Load { .. } => "TLOAD".into(),
                        Inst::Store { .. } => "TSTORE".into(),
                        Inst::If { .. } => "if".into(),
                        Inst::For { .. } => "for".into(),
                        Inst::Share(_) => "share".into(),
                        Inst::SetFlag(_) | Inst::WaitFlag(_) | Inst::Barrier(_) => "sync".into(),
                        _ => "..".into(),
                    })
                    .collect();
                let _ = writeln!(
                    out,
                    "{:1$}share {2}: {3}",
                    "",
                    depth * 2,
                    renames.join(", "),
                    span.join("; ")
                );
            }
            Inst::For { body, .. } => describe_block(p, body, depth + 1, out),
            Inst::While { cond, body, .. } => {
                describe_block(p, cond, depth + 1, out);
                describe_block(p, body, depth + 1, out);
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                describe_block(p, then_body, depth + 1, out);
                describe_block(p, else_body, depth + 1, out);
            }
            _ => {}
        }
    }
}
