//! The fence step (`fence` in the pipeline, right after `lower-to-isa`): orders what the
//! events pass cannot see. The pass orders a
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

use crate::info::move_pipe;
use crate::isa::{Arg, Inst, Isa, Program, TileId, TileRef, TileSlot};
use crate::passes::events::Event;

/// The fence step: puts the barriers the program needs (see the module docs).
pub fn run(p: &mut Program) {
    insert(&mut p.body, &p.tiles);
}

/// Puts the barriers `body` needs (see the module docs).
fn insert(body: &mut Vec<Inst>, tiles: &[TileSlot]) {
    // Per slot (by its bit), the slots whose memory it shares, itself included: bufferize
    // gives a buffer to several tiles whose lives do not overlap.
    let overlaps = tiles
        .iter()
        .map(|a| {
            tiles.iter().enumerate().fold(0, |m, (j, b)| {
                let shared = a.space == b.space
                    && a.addr < b.addr + b.bytes.max(1)
                    && b.addr < a.addr + a.bytes.max(1);
                if shared {
                    m | slot_bit(TileId(j as u32))
                } else {
                    m
                }
            })
        })
        .collect();
    let mut nested = Vec::new();
    count_loops(body, &mut nested);
    let mut f = Fences {
        tiles,
        overlaps,
        loops: Vec::new(),
        touches: Vec::new(),
        memo: vec![None; nested.len()],
        nested,
        next_loop: 0,
    };
    f.block(body, &mut State::default());
}

/// A set of slots, a bit each (see [`slot_bit`]).
type Slots = u32;

/// The bit of a slot in a [`Slots`]. A kernel has a dozen slots or so; past 32 they share the
/// last bit, which only makes them conflict more (an extra barrier, never a missing one).
fn slot_bit(t: TileId) -> Slots {
    1 << t.0.min(Slots::BITS - 1)
}

/// The accesses not yet ordered before every pipe, as masks of slots per pipe. Two accesses
/// of one slot by one pipe count as the later one: whatever orders the later orders the
/// earlier too (the pipe runs them in order).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct State {
    /// Per pipe, the slots it read.
    reads: [Slots; 8],
    /// Per pipe, the slots it wrote.
    writes: [Slots; 8],
    /// Per pipe `p` and pipe `d`, the slots whose access by `p` is ordered before `d`.
    ordered: [[Slots; 8]; 8],
    /// The events set and not yet waited for (a wait consumes its event), each with what it
    /// orders: per pipe, the slots whose access by that pipe was done when it was set (its
    /// source pipe's accesses and those ordered before that pipe) and not touched again
    /// since. A few are in flight at a time; past [`IN_FLIGHT`] one is forgotten, and its wait
    /// then orders nothing (an extra barrier, never a missing one).
    in_flight: [Option<(Event, [Slots; 8])>; IN_FLIGHT],
}

/// How many events [`State`] follows at once.
const IN_FLIGHT: usize = 6;

impl State {
    fn pending(&self, p: usize) -> Slots {
        self.reads[p] | self.writes[p]
    }

    /// The accesses of either of two joining paths, ordered as on both. This is the join
    /// of a lattice (pending and unordered accesses grow, events in flight shrink), which
    /// the loop walk's fixed point relies on: `ordered` keeps only bits of pending slots,
    /// so two states that order the same accesses compare equal.
    fn merge(&mut self, o: &State) {
        for p in 0..8 {
            let (mine, theirs) = (self.pending(p), o.pending(p));
            if mine | theirs == 0 {
                continue;
            }
            for d in 0..8 {
                let (a, b) = (self.ordered[p][d], o.ordered[p][d]);
                self.ordered[p][d] = ((a & b) | (a & !theirs) | (b & !mine)) & (mine | theirs);
            }
            self.reads[p] |= o.reads[p];
            self.writes[p] |= o.writes[p];
        }
        // An event orders, after the join, what it orders on both paths.
        for f in &mut self.in_flight {
            *f = match (
                *f,
                o.in_flight
                    .iter()
                    .flatten()
                    .find(|x| f.is_some_and(|y| y.0 == x.0)),
            ) {
                (Some((e, mine)), Some((_, theirs))) => {
                    let mut both = [0; 8];
                    for (d, (a, b)) in both.iter_mut().zip(mine.iter().zip(theirs)) {
                        *d = a & b;
                    }
                    Some((e, both))
                }
                _ => None,
            };
        }
    }
}

/// The states that leave the innermost loop by `break` and go back by `continue`.
#[derive(Default)]
struct Exits {
    breaks: Option<State>,
    continues: Option<State>,
}

fn join(into: &mut Option<State>, s: &State) {
    match into {
        Some(x) => x.merge(s),
        None => *into = Some(*s),
    }
}

struct Fences<'a> {
    tiles: &'a [TileSlot],
    /// Per slot, the [`slot_bit`]s of the slots sharing its memory.
    overlaps: Vec<Slots>,
    loops: Vec<Exits>,
    /// Scratch: the tiles the instruction at hand touches.
    touches: Vec<Touch>,
    /// Per loop (numbered in preorder, see [`count_loops`]), how many loops it holds.
    nested: Vec<usize>,
    /// Per loop, its last fixed point.
    memo: Vec<Option<Memo>>,
    /// The number of the next loop the walk meets.
    next_loop: usize,
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
                        // A tile parameter's entry load (`isa::param_load`).
                        Some(Arg::Tile(TileRef::Param(_))) => PipeKind::Mte2,
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

    /// Whether an access of slot `t` by `pipe` must wait for a pending one.
    fn conflicts(&self, s: &State, (t, pipe, write): Touch) -> bool {
        let over = self
            .overlaps
            .get(t.0 as usize)
            .copied()
            .unwrap_or(Slots::MAX);
        let me = pipe as usize;
        (0..8).any(|p| {
            let touched = if write { s.pending(p) } else { s.writes[p] };
            p != me && touched & over & !s.ordered[p][me] != 0
        })
    }

    /// Fences `insts` (entered with `s`), leaving `s` as at their end.
    fn block(&mut self, insts: &mut Vec<Inst>, s: &mut State) {
        let mut touches = std::mem::take(&mut self.touches);
        let mut at = 0;
        while at < insts.len() {
            touches.clear();
            self.touches(&insts[at], &mut touches);
            if touches.iter().any(|&t| self.conflicts(s, t)) {
                // Rare (a few per kernel): the shift is cheaper than rebuilding the list.
                insts.insert(at, Inst::Barrier(PipeKind::All));
                *s = State::default();
                at += 1;
            }
            for &(t, pipe, write) in &touches {
                let (b, p) = (slot_bit(t), pipe as usize);
                if write {
                    s.writes[p] |= b;
                } else {
                    s.reads[p] |= b;
                }
                for d in &mut s.ordered[p] {
                    *d &= !b;
                }
                // The new access comes after every event in flight.
                for (_, done) in s.in_flight.iter_mut().flatten() {
                    done[p] &= !b;
                }
            }
            self.inst(&mut insts[at], s);
            at += 1;
        }
        self.touches = touches;
    }

    fn inst(&mut self, i: &mut Inst, s: &mut State) {
        match i {
            Inst::Barrier(PipeKind::All) => *s = State::default(),
            Inst::Barrier(p) => {
                let p = *p as usize;
                s.reads[p] = 0;
                s.writes[p] = 0;
            }
            Inst::SetFlag(ev) => {
                let src = ev.0 as usize;
                let mut done = [0; 8];
                for (p, d) in done.iter_mut().enumerate() {
                    *d = if p == src {
                        s.pending(p)
                    } else {
                        s.ordered[p][src]
                    };
                }
                let at = s
                    .in_flight
                    .iter()
                    .position(|f| f.is_some_and(|(e, _)| e == *ev))
                    .or_else(|| s.in_flight.iter().position(Option::is_none))
                    .unwrap_or(0);
                s.in_flight[at] = Some((*ev, done));
            }
            Inst::WaitFlag(ev) => {
                let f = s
                    .in_flight
                    .iter_mut()
                    .find(|f| f.is_some_and(|(e, _)| e == *ev));
                if let Some((_, done)) = f.and_then(Option::take) {
                    let dst = ev.1 as usize;
                    for (p, d) in done.iter().enumerate() {
                        s.ordered[p][dst] |= d & s.pending(p);
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
                let mut other = *s;
                self.block(then_body, s);
                self.block(else_body, &mut other);
                s.merge(&other);
            }
            Inst::Break | Inst::Continue => {
                let taken = std::mem::take(s);
                if let Some(l) = self.loops.last_mut() {
                    if matches!(i, Inst::Break) {
                        join(&mut l.breaks, &taken);
                    } else {
                        join(&mut l.continues, &taken);
                    }
                }
            }
            _ => {}
        }
    }

    /// A loop: `cond` (when given) before each iteration, then the body. The state at the
    /// loop head is grown to a fixed point (entry joined with what the back edge carries);
    /// barriers inserted on the way stay, and only make later states smaller. Leaves `s` as
    /// after any number of iterations.
    ///
    /// Each loop remembers its last head and exit state: when the loop is entered again
    /// (its enclosing loop's next walk) with nothing the head does not already hold, the
    /// remembered exit stands and the body is not walked again. A head only grows (the
    /// join is a union of pending and unordered accesses, an intersection of events in
    /// flight), so each loop is walked a bounded number of times in all, whatever the depth
    /// of the loops around it: walking every enclosing level twice doubled the cost per level.
    fn lp(&mut self, mut cond: Option<&mut Vec<Inst>>, body: &mut Vec<Inst>, s: &mut State) {
        let id = self.next_loop;
        let inside = self.nested.get(id).copied().unwrap_or(0);
        let after = id + 1 + inside;
        let mut head = *s;
        if let Some(Some(memo)) = self.memo.get(id) {
            let mut grown = memo.head;
            grown.merge(s);
            if grown == memo.head {
                *s = memo.exit;
                self.next_loop = after;
                return;
            }
            head = grown;
        }
        let exit = loop {
            self.next_loop = id + 1;
            self.loops.push(Exits::default());
            let mut at = head;
            if let Some(c) = cond.as_deref_mut() {
                self.block(c, &mut at);
            }
            // Leaving at the condition (no more iterations), or by `break`.
            let mut exit = head;
            exit.merge(&at);
            self.block(body, &mut at);
            if let Some(exits) = self.loops.pop() {
                if let Some(c) = exits.continues {
                    at.merge(&c);
                }
                if let Some(b) = exits.breaks {
                    exit.merge(&b);
                }
            }
            let mut next = head;
            next.merge(&at);
            if next == head {
                break exit;
            }
            head = next;
        };
        if let Some(m) = self.memo.get_mut(id) {
            *m = Some(Memo { head, exit });
        }
        s.merge(&exit);
        self.next_loop = after;
    }
}

/// A loop's last fixed point: its head state and the state it leaves with.
#[derive(Clone, Copy)]
struct Memo {
    head: State,
    exit: State,
}

/// Per loop in preorder (a loop, then the loops of its condition, then those of its body;
/// a branch's `then` before its `else`), how many loops it holds.
fn count_loops(insts: &[Inst], out: &mut Vec<usize>) {
    for i in insts {
        match i {
            Inst::For { body, .. } => {
                let id = out.len();
                out.push(0);
                count_loops(body, out);
                let inside = out.len() - id - 1;
                out[id] = inside;
            }
            Inst::While { cond, body, .. } => {
                let id = out.len();
                out.push(0);
                count_loops(cond, out);
                count_loops(body, out);
                let inside = out.len() - id - 1;
                out[id] = inside;
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                count_loops(then_body, out);
                count_loops(else_body, out);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use pto_ir::entity::EntityId;
    use pto_ir::{DataType, MemorySpace, PipeKind, ValueId};

    use super::insert;
    use crate::isa::{Arg, Inst, Isa, TileId, TileRef, TileSlot};

    fn slot(addr: u64) -> TileSlot {
        TileSlot {
            name: format!("t{addr}"),
            dtype: DataType::Fp32,
            shape: [16, 16].into(),
            rows: 16,
            cols: 16,
            space: MemorySpace::Vec,
            addr,
            bytes: 1024,
            layout: "ND",
            valid: [Some(16), Some(16)],
        }
    }

    fn vadd(dst: u32, src: u32) -> Inst {
        Inst::Op {
            isa: Isa::TAdd,
            dst: TileId(dst),
            args: [Arg::Tile(TileRef::Slot(TileId(src))); 2].into(),
        }
    }

    fn store(src: u32) -> Inst {
        Inst::Store {
            tensor: ValueId::new(0),
            add: false,
            src: TileRef::Slot(TileId(src)),
            offsets: Default::default(),
            window: Default::default(),
        }
    }

    fn barriers(insts: &[Inst]) -> Vec<usize> {
        (0..insts.len())
            .filter(|&i| matches!(insts[i], Inst::Barrier(PipeKind::All)))
            .collect()
    }

    /// A wait orders what its pipe did before the set, not what it did after it.
    #[test]
    fn a_wait_orders_only_what_came_before_its_set() {
        let ev = (PipeKind::V, PipeKind::Mte3, 0);
        let tiles = [slot(0)];
        let mut ordered = vec![vadd(0, 0), Inst::SetFlag(ev), Inst::WaitFlag(ev), store(0)];
        insert(&mut ordered, &tiles);
        assert_eq!(barriers(&ordered), Vec::<usize>::new());
        let mut late = vec![
            vadd(0, 0),
            Inst::SetFlag(ev),
            vadd(0, 0),
            Inst::WaitFlag(ev),
            store(0),
        ];
        insert(&mut late, &tiles);
        assert_eq!(barriers(&late), vec![4], "{late:?}");
    }

    /// A buffer reused by another tile is overwritten only after the other pipe's read.
    #[test]
    fn reused_memory_waits_for_the_last_reader() {
        let tiles = [slot(0), slot(512)];
        let mut insts = vec![
            Inst::Load {
                dst: TileId(0),
                tensor: ValueId::new(0),
                offsets: Default::default(),
                window: Default::default(),
            },
            Inst::Barrier(PipeKind::All),
            store(0),
            vadd(1, 1),
        ];
        insert(&mut insts, &tiles);
        assert_eq!(barriers(&insts), vec![1, 3], "{insts:?}");
    }

    fn for_loop(body: Vec<Inst>) -> Inst {
        let v = ValueId::new(0);
        Inst::For {
            iv: v,
            lb: v,
            ub: v,
            step: v,
            carried: Vec::new(),
            body,
            results: Vec::new(),
            exec: crate::isa::LoopExec::Sequential,
        }
    }

    /// Loops nested 64 deep, the innermost doing tile work with no barrier in front: each
    /// loop is walked a bounded number of times (walking every level twice for its back
    /// edge took 2^64 walks), and the back edge still orders the innermost body.
    #[test]
    fn nested_loops_reach_a_fixed_point_in_linear_time() {
        let tiles = [slot(0)];
        let (done, got) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut body = vec![store(0), vadd(0, 0)];
            for _ in 0..64 {
                body = vec![for_loop(body)];
            }
            insert(&mut body, &tiles);
            let _ = done.send(body);
        });
        let mut body = got
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("the fence step finishes on 64 nested loops");
        for _ in 0..64 {
            match body.pop() {
                Some(Inst::For { body: inner, .. }) => body = inner,
                other => panic!("expected a loop, got {other:?}"),
            }
        }
        // The store (MTE3) reads what the previous iteration's vector op wrote (the back
        // edge), and the vector op overwrites what the store reads.
        assert_eq!(barriers(&body), vec![0, 2], "{body:?}");
    }
}
