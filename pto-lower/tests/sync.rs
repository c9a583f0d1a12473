//! The lowered programs are synchronised: when an instruction reads buffer memory another
//! pipe wrote, or writes memory another pipe read or wrote, the earlier access is ordered
//! before it: by a `pipe_barrier(PIPE_ALL)` after it, or by an event its pipe set after it
//! (or a pipe it was ordered before: ordering is transitive) that the later pipe waited for.
//! Pipes run their own instructions in order. Checked on every acceptance kernel along every
//! path: branches apart, each loop body twice (the back edge), `break` / `continue` to where
//! they go. An unordered pair would race on hardware, although the CPU runtime, which runs
//! one instruction at a time, cannot show it. (Written apart from the lowering's own fence
//! step, `pto-lower/src/lower/fence.rs`, as a check of it and of the events pass.)
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;

use pto_ir::{MemorySpace, PipeKind};
use pto_lower::Program;
use pto_lower::isa::{Arg, Inst, Isa, TileId, TileRef};
use pto_lower::passes::events::Event;

/// A read or write not yet ordered before every pipe.
#[derive(Clone, Debug, PartialEq)]
struct Write {
    slot: TileId,
    pipe: PipeKind,
    write: bool,
    /// Events set after the write by its pipe, or by a pipe it was ordered before.
    set: Vec<Event>,
    /// The pipes (a bit each) that waited for one of them.
    ordered: u16,
}

/// The writes pending on one path.
#[derive(Clone, Debug, Default, PartialEq)]
struct State(Vec<Write>);

impl State {
    /// Both paths' pending writes.
    fn merge(&mut self, other: &State) {
        for w in &other.0 {
            if !self.0.contains(w) {
                self.0.push(w.clone());
            }
        }
    }
}

/// Where `break` and `continue` of the innermost loop go.
#[derive(Default)]
struct Exits {
    breaks: State,
    continues: State,
}

struct Checker<'a> {
    p: &'a Program,
    kernel: &'a str,
    loops: Vec<Exits>,
    errors: BTreeSet<String>,
}

fn bit(p: PipeKind) -> u16 {
    1 << p as u16
}

impl Checker<'_> {
    fn space(&self, t: TileId) -> MemorySpace {
        self.p.tile(t).map_or(MemorySpace::Vec, |s| s.space)
    }

    fn name(&self, t: TileId) -> String {
        self.p
            .tile(t)
            .map_or_else(|| format!("t{}", t.0), |s| s.name.clone())
    }

    /// Whether two slots share buffer memory.
    fn overlap(&self, a: TileId, b: TileId) -> bool {
        match (self.p.tile(a), self.p.tile(b)) {
            (Some(x), Some(y)) => {
                x.space == y.space && x.addr < y.addr + y.bytes && y.addr < x.addr + x.bytes
            }
            _ => a == b,
        }
    }

    /// Records an access of slot `t` on `pipe`, reporting the unordered earlier ones it
    /// conflicts with.
    fn touch(&mut self, s: &mut State, t: TileId, pipe: PipeKind, write: bool, what: &str) {
        for w in &s.0 {
            if (w.write || write)
                && w.pipe != pipe
                && w.ordered & bit(pipe) == 0
                && self.overlap(w.slot, t)
            {
                let kind = match (w.write, write) {
                    (true, false) => "reads",
                    (false, true) => "overwrites what was read:",
                    _ => "overwrites",
                };
                self.errors.insert(format!(
                    "{}: `{what}` on {pipe:?} {kind} {} ({}, accessed on {:?}) with nothing ordering them",
                    self.kernel,
                    self.name(t),
                    self.name(w.slot),
                    w.pipe
                ));
            }
        }
        s.0.push(Write {
            slot: t,
            pipe,
            write,
            set: Vec::new(),
            ordered: 0,
        });
    }

    fn read(&mut self, s: &mut State, t: TileRef, pipe: PipeKind, what: &str) {
        if let TileRef::Slot(t) = t {
            self.touch(s, t, pipe, false, what);
        }
    }

    fn write(&mut self, s: &mut State, t: TileId, pipe: PipeKind, what: &str) {
        self.touch(s, t, pipe, true, what);
    }

    fn body(&mut self, insts: &[Inst], s: &mut State) {
        for i in insts {
            self.inst(i, s);
        }
    }

    /// A loop: `cond` (when given) before each iteration, the body twice for the back edge;
    /// leaves `s` as after any number of iterations.
    fn lp(&mut self, cond: Option<&[Inst]>, body: &[Inst], s: &mut State) {
        let entry = s.clone();
        let mut at = entry.clone();
        for _ in 0..2 {
            self.loops.push(Exits::default());
            if let Some(c) = cond {
                self.body(c, &mut at);
            }
            let before_body = at.clone();
            self.body(body, &mut at);
            let exits = self.loops.pop().unwrap();
            at.merge(&exits.continues);
            // Leaving: at the condition (before the body) or by `break`.
            s.merge(&before_body);
            s.merge(&exits.breaks);
            let mut next = entry.clone();
            next.merge(&at);
            at = next;
        }
        s.merge(&at);
    }

    fn inst(&mut self, i: &Inst, s: &mut State) {
        match i {
            Inst::Barrier(PipeKind::All) => s.0.clear(),
            Inst::Barrier(p) => s.0.retain(|w| w.pipe != *p),
            // A pipe sets an event when its earlier work is done, which includes waiting for
            // the writes ordered before it already: ordering is transitive.
            Inst::SetFlag(ev) => {
                for w in
                    s.0.iter_mut()
                        .filter(|w| w.pipe == ev.0 || w.ordered & bit(ev.0) != 0)
                {
                    w.set.push(*ev);
                }
            }
            Inst::WaitFlag(ev) => {
                for w in s.0.iter_mut().filter(|w| w.set.contains(ev)) {
                    w.ordered |= bit(ev.1);
                }
            }
            Inst::Op { isa, dst, args } => {
                let pipe = match isa {
                    Isa::TMatmul | Isa::TMatmulAcc | Isa::TMatmulBias => PipeKind::M,
                    Isa::TMov => match args.first() {
                        Some(Arg::Tile(TileRef::Slot(src))) => {
                            pto_lower::info::move_pipe(self.space(*src), self.space(*dst))
                        }
                        _ => PipeKind::V,
                    },
                    _ => PipeKind::V,
                };
                for a in args.iter() {
                    if let Arg::Tile(t) = a {
                        self.read(s, *t, pipe, isa.name());
                    }
                }
                self.write(s, *dst, pipe, isa.name());
            }
            Inst::Load { dst, .. } => self.write(s, *dst, PipeKind::Mte2, "TLOAD"),
            // Scalar access to global memory touches no tile (the C++ puts a barrier first);
            // a fused-chain mark does nothing (its instructions follow it).
            Inst::Read { .. } | Inst::Write { .. } | Inst::Fused(_) | Inst::ExpandStore(_) | Inst::MapRowSum(_) | Inst::LoadView(_) | Inst::Share(_) | Inst::Handoff(_) => {}
            Inst::Store { src, .. } => {
                let pipe = match src {
                    TileRef::Slot(t) if self.space(*t) == MemorySpace::Acc => PipeKind::Fix,
                    _ => PipeKind::Mte3,
                };
                self.read(s, *src, pipe, "TSTORE");
            }
            Inst::Extract { dst, src, .. } => {
                let from = match src {
                    TileRef::Slot(t) => self.space(*t),
                    TileRef::Param(_) => MemorySpace::Vec,
                };
                let pipe = pto_lower::info::move_pipe(from, self.space(*dst));
                self.read(s, *src, pipe, "TEXTRACT");
                self.write(s, *dst, pipe, "TEXTRACT");
            }
            Inst::Insert { dst, src, .. } => {
                self.read(s, *src, PipeKind::V, "TINSERT");
                self.read(s, TileRef::Slot(*dst), PipeKind::V, "TINSERT");
                self.write(s, *dst, PipeKind::V, "TINSERT");
            }
            Inst::Cvt { dst, src, .. } => {
                self.read(s, *src, PipeKind::V, "TCVT");
                self.write(s, *dst, PipeKind::V, "TCVT");
            }
            Inst::For { body, .. } => self.lp(None, body, s),
            Inst::While { cond, body, .. } => self.lp(Some(cond), body, s),
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                let mut other = s.clone();
                self.body(then_body, s);
                self.body(else_body, &mut other);
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
            Inst::SetValid { .. }
            | Inst::FullValid(_)
            | Inst::Scalar { .. }
            | Inst::Assign(_)
            // The callee's tiles are its own (and checked on their own).
            | Inst::Call { .. }
            | Inst::Return(_) => {}
        }
    }
}

#[test]
fn every_read_after_write_across_pipes_is_ordered() {
    let mut errors = BTreeSet::new();
    // The acceptance kernels, and one whose tiles flow through nested branches and loops.
    // Each also after `software-pipeline`, whose pairs keep two copies' tiles live at once.
    for k in common::KERNELS
        .into_iter()
        .chain(["branchy_matmul", "attention", "relu_chain"])
    {
        for pipelined in [false, true] {
            let mut m = common::kernel(k);
            if pipelined {
                pto_lower::passes::pass_by_name("software-pipeline")
                    .unwrap()
                    .run(&mut m)
                    .unwrap();
            }
            let p = pto_lower::lower_kernel(&m, m.entry.unwrap()).unwrap();
            let mut c = Checker {
                p: &p,
                kernel: k,
                loops: Vec::new(),
                errors: BTreeSet::new(),
            };
            c.body(&p.body, &mut State::default());
            errors.extend(c.errors);
        }
    }
    assert!(
        errors.is_empty(),
        "unordered reads:\n{}",
        errors.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// A split part with each transfer as what the C++ makes of it: the push and the pop start
/// and end with `pipe_barrier(PIPE_ALL)` (the cross-core flags order the cores).
fn with_transfers_as_barriers(p: &Program, insts: &[Inst]) -> Vec<Inst> {
    use pto_lower::lower::split::is_transfer;
    let mut out = Vec::new();
    for i in insts {
        if is_transfer(p, i) {
            out.push(Inst::Barrier(PipeKind::All));
            continue;
        }
        out.push(match i {
            Inst::For { body, .. } => {
                let mut i = i.clone();
                if let Inst::For { body: b, .. } = &mut i {
                    *b = with_transfers_as_barriers(p, body);
                }
                i
            }
            Inst::While { cond, body, .. } => {
                let mut i = i.clone();
                if let Inst::While {
                    cond: c, body: b, ..
                } = &mut i
                {
                    *c = with_transfers_as_barriers(p, cond);
                    *b = with_transfers_as_barriers(p, body);
                }
                i
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                let mut i = i.clone();
                if let Inst::If {
                    then_body: t,
                    else_body: e,
                    ..
                } = &mut i
                {
                    *t = with_transfers_as_barriers(p, then_body);
                    *e = with_transfers_as_barriers(p, else_body);
                }
                i
            }
            other => other.clone(),
        });
    }
    out
}

/// The cross-core route (A2A3, `lower/split.rs`): each core's part is synchronised on its
/// own, the events between a cube pipe and a vector pipe having been dropped for the
/// transfers, and the transfers sit at the same place of the same control flow in the cube
/// part and the vector part (so every push has its pop on every path).
#[test]
fn split_parts_are_ordered_on_each_core_and_transfer_in_step() {
    use pto_lower::lower::split::{Route, is_transfer};
    /// The loops, branches, transfers and handoffs of a part, as text (the handoffs at one
    /// place in a fixed order: each core puts its own signal before its wait).
    fn skeleton(p: &Program, insts: &[Inst], out: &mut String) {
        let mut run: Vec<&str> = Vec::new();
        for i in insts {
            if let Inst::Handoff(h) = i {
                run.push(if h.from_cube { "H>v;" } else { "H>c;" });
                continue;
            }
            run.sort_unstable();
            out.extend(run.drain(..));
            if is_transfer(p, i) {
                out.push_str("T;");
            }
            match i {
                Inst::For { iv, body, .. } => {
                    let mut inner = String::new();
                    skeleton(p, body, &mut inner);
                    if !inner.is_empty() {
                        out.push_str(&format!("for {iv:?} {{{inner}}}"));
                    }
                }
                Inst::While { cond, body, .. } => {
                    let mut inner = String::new();
                    skeleton(p, cond, &mut inner);
                    skeleton(p, body, &mut inner);
                    if !inner.is_empty() {
                        out.push_str(&format!("while {{{inner}}}"));
                    }
                }
                Inst::If {
                    cond,
                    then_body,
                    else_body,
                    ..
                } => {
                    let (mut t, mut e) = (String::new(), String::new());
                    skeleton(p, then_body, &mut t);
                    skeleton(p, else_body, &mut e);
                    if !t.is_empty() || !e.is_empty() {
                        out.push_str(&format!("if {cond:?} {{{t}}} else {{{e}}}"));
                    }
                }
                _ => {}
            }
        }
        run.sort_unstable();
        out.extend(run.drain(..));
    }
    let mut errors = BTreeSet::new();
    let mut split = 0;
    for k in common::KERNELS.into_iter().chain([
        "branchy_matmul",
        "matmul_relu",
        "attention_scores",
        "attention",
        "relu_chain",
        "handoff",
    ]) {
        let m = common::kernel(k);
        let p = pto_lower::lower_kernel(&m, m.entry.unwrap()).unwrap();
        let Route::Split(s) = &p.route else {
            continue;
        };
        split += 1;
        for part in [&s.cube, &s.vector] {
            let part = with_transfers_as_barriers(&p, part);
            let mut c = Checker {
                p: &p,
                kernel: k,
                loops: Vec::new(),
                errors: BTreeSet::new(),
            };
            c.body(&part, &mut State::default());
            errors.extend(c.errors);
        }
        let (mut a, mut v, mut w) = (String::new(), String::new(), String::new());
        skeleton(&p, &s.cube, &mut a);
        skeleton(&p, &s.vector, &mut v);
        skeleton(&p, &s.peer, &mut w);
        if k == "handoff" {
            // Cube to vector after the store, vector to cube before the next one.
            assert!(a.contains("H>c;") && a.contains("H>v;"), "{k}: {a}");
        }
        assert_eq!(a, v, "{k}: the cube's and vector core 0's transfers differ");
        assert_eq!(
            v, w,
            "{k}: vector core 0's and vector core 1's transfers differ"
        );
    }
    assert!(split >= 7, "only {split} split kernels");
    assert!(
        errors.is_empty(),
        "unordered reads:\n{}",
        errors.into_iter().collect::<Vec<_>>().join("\n")
    );
}
