//! The last step of the lowering: orders what the events pass cannot see. The pass orders a
//! tile op after the ops whose results it reads, before buffers are assigned. Afterwards
//! tiles share buffer memory (bufferize reuses a buffer once its tile is dead), and the
//! lowering adds copies of its own (carrying tiles through loops and branches), so an
//! instruction can touch memory another pipe read or wrote with nothing ordering the two:
//! a load into a buffer a vector op still reads, a store after the loop that made its tile.
//!
//! This walks the program along every path (branches apart, loop bodies again for the back
//! edge, `break` / `continue` to where they go), keeping the accesses not yet ordered before
//! every pipe, and puts a `pipe_barrier(PIPE_ALL)` before an instruction that would read
//! memory another pipe writes, or write memory another pipe reads or writes, unordered.
//! An access is ordered before a pipe by a barrier after it, or by an event set after it by
//! its pipe (or by a pipe it was ordered before: ordering is transitive) that the other pipe
//! waited for. Pipes run their own instructions in order.

use pto_ir::{MemorySpace, PipeKind};

use crate::events::Event;
use crate::info::move_pipe;
use crate::isa::{Arg, Inst, Isa, TileId, TileRef, TileSlot};

/// Puts the barriers `body` needs (see the module docs).
pub(crate) fn insert(body: &mut Vec<Inst>, tiles: &[TileSlot]) {
    let mut f = Fences {
        tiles,
        loops: Vec::new(),
        touches: Vec::with_capacity(4),
    };
    f.block(body, &mut State::default());
}

/// A read or write not yet ordered before every pipe.
#[derive(Clone, Debug, PartialEq)]
struct Access {
    /// The memory: buffer and byte range.
    space: MemorySpace,
    lo: u64,
    hi: u64,
    pipe: PipeKind,
    write: bool,
    /// Events set after the access by its pipe, or by a pipe it is ordered before (a bit per
    /// source, destination and id).
    set: [u64; 8],
    /// The pipes (a bit each) it is ordered before.
    ordered: u16,
}

/// The unordered accesses on a path.
#[derive(Clone, Debug, Default, PartialEq)]
struct State(Vec<Access>);

impl State {
    /// Adds the accesses of another path that joins this one.
    fn merge(&mut self, other: &State) {
        for a in &other.0 {
            if !self.0.contains(a) {
                self.0.push(a.clone());
            }
        }
    }
}

/// The states that leave the innermost loop by `break` and go back by `continue`.
#[derive(Default)]
struct Exits {
    breaks: State,
    continues: State,
}

struct Fences<'a> {
    tiles: &'a [TileSlot],
    loops: Vec<Exits>,
    /// Scratch: the tiles the instruction at hand touches.
    touches: Vec<Touch>,
}

fn bit(p: PipeKind) -> u16 {
    1 << p as u16
}

/// Where event `e` is in [`Access::set`]: word and bit.
fn event_bit((src, dst, id): Event) -> (usize, u64) {
    let i = (src as usize * 8 + dst as usize) * 8 + usize::from(id & 7);
    (i / 64 % 8, 1 << (i % 64))
}

/// A tile an instruction reads or writes, on which pipe.
type Touch = (TileId, PipeKind, bool);

impl Fences<'_> {
    fn space(&self, t: TileId) -> MemorySpace {
        self.tiles
            .get(t.0 as usize)
            .map_or(MemorySpace::Vec, |s| s.space)
    }

    /// Appends the tiles an instruction reads, then those it writes.
    fn touches(&self, i: &Inst, out: &mut Vec<Touch>) {
        let slot = |r: &TileRef| match r {
            TileRef::Slot(t) => Some(*t),
            TileRef::Param(_) => None,
        };
        match i {
            Inst::Op { isa, dst, args } => {
                let pipe = match isa {
                    Isa::TMatmul | Isa::TMatmulAcc | Isa::TMatmulBias => PipeKind::M,
                    Isa::TMov => match args.first() {
                        Some(Arg::Tile(TileRef::Slot(src))) => {
                            move_pipe(self.space(*src), self.space(*dst))
                        }
                        _ => PipeKind::V,
                    },
                    _ => PipeKind::V,
                };
                for a in args.iter() {
                    if let Arg::Tile(r) = a
                        && let Some(t) = slot(r)
                    {
                        out.push((t, pipe, false));
                    }
                }
                out.push((*dst, pipe, true));
            }
            Inst::Load { dst, .. } => out.push((*dst, PipeKind::Mte2, true)),
            Inst::Store { src, .. } => {
                if let Some(t) = slot(src) {
                    let pipe = if self.space(t) == MemorySpace::Acc {
                        PipeKind::Fix
                    } else {
                        PipeKind::Mte3
                    };
                    out.push((t, pipe, false));
                }
            }
            Inst::Extract { dst, src, .. } => {
                let from = slot(src).map_or(MemorySpace::Vec, |t| self.space(t));
                let pipe = move_pipe(from, self.space(*dst));
                out.extend(slot(src).map(|t| (t, pipe, false)));
                out.push((*dst, pipe, true));
            }
            Inst::Insert { dst, src, .. } => {
                out.extend(slot(src).map(|t| (t, PipeKind::V, false)));
                out.push((*dst, PipeKind::V, false));
                out.push((*dst, PipeKind::V, true));
            }
            Inst::Cvt { dst, src, .. } => {
                out.extend(slot(src).map(|t| (t, PipeKind::V, false)));
                out.push((*dst, PipeKind::V, true));
            }
            _ => {}
        }
    }

    fn access(&self, (t, pipe, write): Touch) -> Access {
        let (space, lo, hi) = self
            .tiles
            .get(t.0 as usize)
            .map_or((MemorySpace::Vec, 0, u64::MAX), |s| {
                (s.space, s.addr, s.addr + s.bytes.max(1))
            });
        Access {
            space,
            lo,
            hi,
            pipe,
            write,
            set: [0; 8],
            ordered: 0,
        }
    }

    /// Whether access `a` must wait for one of the unordered accesses `pending`.
    fn conflicts(pending: &[Access], a: &Access) -> bool {
        pending.iter().any(|b| {
            (a.write || b.write)
                && b.pipe != a.pipe
                && b.ordered & bit(a.pipe) == 0
                && b.space == a.space
                && b.lo < a.hi
                && a.lo < b.hi
        })
    }

    /// Fences `insts` (entered with `s`), leaving `s` as at their end.
    fn block(&mut self, insts: &mut Vec<Inst>, s: &mut State) {
        let mut touches = std::mem::take(&mut self.touches);
        let mut at = 0;
        while at < insts.len() {
            touches.clear();
            self.touches(&insts[at], &mut touches);
            let start = s.0.len();
            let mut conflict = false;
            for &t in &touches {
                let a = self.access(t);
                conflict |= Self::conflicts(&s.0[..start], &a);
                s.0.push(a);
            }
            if conflict {
                insts.insert(at, Inst::Barrier(PipeKind::All));
                s.0.drain(..start);
                at += 1;
            }
            self.inst(&mut insts[at], s);
            at += 1;
        }
        self.touches = touches;
    }

    fn inst(&mut self, i: &mut Inst, s: &mut State) {
        match i {
            Inst::Barrier(PipeKind::All) => s.0.clear(),
            Inst::Barrier(p) => {
                let p = *p;
                s.0.retain(|a| a.pipe != p);
            }
            Inst::SetFlag(ev) => {
                let (w, b) = event_bit(*ev);
                for a in s.0.iter_mut() {
                    if a.pipe == ev.0 || a.ordered & bit(ev.0) != 0 {
                        a.set[w] |= b;
                    }
                }
            }
            Inst::WaitFlag(ev) => {
                let (w, b) = event_bit(*ev);
                for a in s.0.iter_mut() {
                    if a.set[w] & b != 0 {
                        a.ordered |= bit(ev.1);
                    }
                }
            }
            Inst::For { body, .. } => self.lp(None, body, s),
            Inst::While { cond, body, .. } => self.lp(Some(cond), body, s),
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                let mut other = s.clone();
                self.block(then_body, s);
                self.block(else_body, &mut other);
                s.merge(&other);
            }
            Inst::Break | Inst::Continue => {
                let taken = std::mem::take(s);
                if let Some(l) = self.loops.last_mut() {
                    if matches!(i, Inst::Break) {
                        l.breaks.merge(&taken);
                    } else {
                        l.continues.merge(&taken);
                    }
                }
            }
            _ => {}
        }
    }

    /// A loop: `cond` (when given) before each iteration, then the body; fenced for the
    /// first iteration and again for the back edge. Leaves `s` as after any number of
    /// iterations.
    fn lp(&mut self, mut cond: Option<&mut Vec<Inst>>, body: &mut Vec<Inst>, s: &mut State) {
        let entry = s.clone();
        let mut at = entry.clone();
        // The second walk starts from what the first one left at the back edge; it only adds
        // barriers where the first did not order what crosses it.
        for _ in 0..2 {
            self.loops.push(Exits::default());
            if let Some(c) = cond.as_deref_mut() {
                self.block(c, &mut at);
            }
            let leaving = at.clone();
            self.block(body, &mut at);
            let exits = self.loops.pop().unwrap_or_default();
            at.merge(&exits.continues);
            s.merge(&leaving);
            s.merge(&exits.breaks);
            let mut next = entry.clone();
            next.merge(&at);
            at = next;
        }
        s.merge(&at);
    }
}
