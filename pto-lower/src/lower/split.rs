//! The A2A3 cube/vector split: a lowering step after the fence step.
//!
//! On A2A3 the cube unit (AIC) and the vector unit (AIV) are separate cores: a cluster is one
//! AIC and two AIVs, each with its own buffers (`shared/spec/pto-programs.md` section A). A
//! kernel whose tile work uses both therefore runs as two programs, one per core kind, and a
//! cube result reaches the vector core through global memory. This step partitions such a
//! kernel's [`Program::body`] into a [`CoreSplit`]:
//!
//! - each tile instruction goes to the core that owns its tiles (Vec tiles: the vector core;
//!   Mat, Left, Right, Acc and Bias tiles: the cube core), each event to the core of its
//!   pipes (an event between a cube pipe and a vector pipe is replaced by the transfer);
//! - scalar work and control flow go to every core that needs them (each core computes its
//!   loop bounds, offsets and branch conditions itself);
//! - a `TMOV` from an Acc tile to a Vec tile is the transfer: the cube half waits for the GM
//!   slot to be free, writes the tile's valid extents and data into it and signals "ready"
//!   (`ffts_cross_core_sync`); the vector half waits for "ready" (`wait_flag_dev`), loads
//!   the slot and signals "free". The vector cores signal "free" once at the start, and the
//!   cube waits for the last "free" at its end, so every signal is consumed;
//! - the second vector core of the cluster (subblock 1) runs [`CoreSplit::peer`]: the vector
//!   part's control flow, transfers and handoffs without its tile work, because the
//!   cross-core signal mode pto-isa's pipes use (mode 2) reaches both AIVs and a cube wait
//!   ends only once both signalled;
//! - a tensor one core accesses and the other then reads or writes (a read after a write, a
//!   write after a read or a write) is handed off ([`Inst::Handoff`]): the sending core
//!   drains its pipes and signals (flag [`FLAG_TO_VECTOR`] or [`FLAG_TO_CUBE`]), the
//!   receiving core waits before its access. Handoffs are placed only between the
//!   instructions of a block both kinds of core run: there both follow the same control
//!   flow (same loop bounds, same branch conditions, computed on each core), so every
//!   signal meets its wait on every path, whatever the loops and branches inside. A store
//!   under a branch only one core runs is handed off after the whole branch (a signal
//!   without a store is harmless). A loop both run is split twice: once to learn what its
//!   body accesses, then with those accesses pending at its start, so an access that
//!   conflicts with one of the previous iteration waits for it; after the loop anything its
//!   body accessed counts as pending. A tensor both cores write at disjoint windows is
//!   handed off like any other (the step does not compare windows);
//! - a scalar read from a tensor (`Inst::Read`) runs on every core that has its offsets, so
//!   a value the vector core writes and the cube needs (a loop bound, an offset) reaches the
//!   cube through the tensor, ordered by a handoff; every other scalar comes from
//!   parameters, constants and scalar ops, which each core computes itself.
//!
//! The interpreter and the host function keep [`Program::body`]: the split changes where
//! work runs, not what it computes. A kernel whose work is all on one core is not split (a
//! pure vector or pure cube kernel runs on that core), nor is any kernel for A5, whose cores
//! have both units.
//!
//! **Calls.** A kernel reaches this step without calls when its tile work and that of the
//! functions it calls use both units: the lowering inlines its calls first
//! (`passes/inline_calls.rs`, chosen by `compile.rs`), into the module before the passes,
//! so the callee's tiles, events and tensor accesses are the caller's own and this step
//! splits them like any other (with the transfers and handoffs they need, on every core).
//! Splitting each callee instead (a cube and a vector version of it, called from the
//! matching part) would keep the calls, but needs the transfers and handoffs inside each
//! callee balanced against the caller's pending accesses at every call site; inlining gets
//! that from the one analysis of the whole kernel. That also covers a kernel with work on
//! one core calling a function with work on the other (or a kernel without tile work
//! calling a mixed one): together they use both, so the caller is split. Calls never
//! recurse (the verifier refuses a cycle), and a call graph whose inlining would add more
//! than `MAX_INLINED_OPS` operations is refused at the call that passes it, naming A2A3
//! and A5. A call left in a kernel with both kinds of work cannot happen after that; the
//! step still refuses one (at the call) rather than split around it.
//!
//! What else has no route is [`Route::Refused`], a compile error at the user's tokens naming
//! A2A3 and A5: a return from inside a loop, or a scalar one core computes and the other
//! needs that no tensor carries (none of the language's scalars is such today: the check
//! stays as the guard).

use std::collections::BTreeSet;

use pto_ir::{MemorySpace, PipeKind, SpanId, ValueDef, ValueId};
use rustc_hash::FxHashMap;

use crate::isa::{Arg, Handoff, Index, Inst, Isa, Program, TileId, TileRef};

/// A bit set of cores: [`CUBE`], [`VECTOR`] or both.
type Cores = u8;
/// The cube core (AIC).
const CUBE: Cores = 1;
/// The vector cores (AIV).
const VECTOR: Cores = 2;
/// Both kinds of core.
const BOTH: Cores = CUBE | VECTOR;

/// The cross-core flag the cube sets when the GM slot holds a tile ("ready").
pub const FLAG_READY: u8 = 0;
/// The cross-core flag the vector cores set when they are done with the slot ("free").
pub const FLAG_FREE: u8 = 1;
/// The cross-core flag the vector cores set when the vector-to-cube slot holds a tile.
pub const FLAG_V2C_READY: u8 = 2;
/// The cross-core flag the cube sets when it is done with the vector-to-cube slot.
pub const FLAG_V2C_FREE: u8 = 3;
/// The cross-core flag of a handoff from the cube to the vector cores.
pub const FLAG_TO_VECTOR: u8 = 4;
/// The cross-core flag of a handoff from the vector cores to the cube.
pub const FLAG_TO_CUBE: u8 = 5;
/// Bytes at the start of the GM slot that carry the moved tile's valid rows and columns
/// (two `int64_t`, padded to a cache line): the vector core cannot compute them, they
/// depend on the cube tiles' regions.
pub const SLOT_HEADER: u64 = 64;

/// A kernel's A2A3 route: what runs on the cube core and what on the vector cores.
#[derive(Clone, Debug, PartialEq)]
pub enum Route {
    /// One core does all the tile work (or the target has no split): [`Program::body`].
    Single,
    /// Split into a cube part and a vector part.
    Split(CoreSplit),
    /// Mixed work with no legal A2A3 route: the compile error, at the user's tokens.
    Refused {
        /// Where the error points.
        at: SpanId,
        /// The message: what, the target, and the target that runs it.
        message: String,
    },
}

/// The two programs of a split kernel. In every part a `TMOV` from an Acc slot to a Vec slot
/// stands for its half of the transfer (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct CoreSplit {
    /// The cube core's instructions.
    pub cube: Vec<Inst>,
    /// The instructions of vector core 0.
    pub vector: Vec<Inst>,
    /// The instructions of vector core 1: control flow and transfers only.
    pub peer: Vec<Inst>,
    /// Bytes of GM the cube-to-vector slot needs: [`SLOT_HEADER`] and the largest Acc tile
    /// moved (0: no cube result reaches the vector core).
    pub slot_bytes: u64,
    /// Bytes of GM the vector-to-cube slot needs, right after the first one: [`SLOT_HEADER`]
    /// and the largest Vec tile moved to a Mat tile (0: no vector result reaches the cube).
    pub v2c_bytes: u64,
    /// How many handoffs ([`Inst::Handoff`]) the parts hold: places where one core's
    /// tensor accesses are ordered before the other's.
    pub handoffs: usize,
}

impl CoreSplit {
    /// The bytes of the GM workspace: both slots.
    pub fn workspace_bytes(&self) -> u64 {
        self.slot_bytes + self.v2c_bytes
    }
}

/// The split step (after `fence`): records the program's route in [`Program::route`].
pub fn run(p: &mut Program) {
    p.route = route(p);
}

/// Decides the route of `p` (A2A3 only; other targets are [`Route::Single`]).
pub fn route(p: &Program) -> Route {
    if p.target != "A2A3" {
        return Route::Single;
    }
    if work(p, &p.body) != BOTH {
        return Route::Single;
    }
    let mut s = Splitter {
        p,
        avail: FxHashMap::default(),
        largest: 0,
        largest_v2c: 0,
        pending: Default::default(),
        handoffs: 0,
    };
    let (cube, vector) = match s.block(&p.body, BOTH, true) {
        Ok(parts) => parts,
        Err(Refusal { at, why }) => {
            return Route::Refused {
                at,
                message: format!(
                    "{why}: not legal on target A2A3, whose cube and vector units are separate cores; target A5 runs it (its cores have both)"
                ),
            };
        }
    };
    let slot = |largest: u64| {
        if largest == 0 {
            0
        } else {
            SLOT_HEADER + largest
        }
    };
    // Vector core 1 takes part in the transfers' and handoffs' synchronisation.
    let peer = if s.largest == 0 && s.largest_v2c == 0 && s.handoffs == 0 {
        Vec::new()
    } else {
        peer(p, &vector)
    };
    Route::Split(CoreSplit {
        cube,
        vector,
        peer,
        slot_bytes: slot(s.largest),
        v2c_bytes: slot(s.largest_v2c),
        handoffs: s.handoffs,
    })
}

/// The callees inlined into `p`'s kernel before the passes (`passes/inline_calls.rs`), as
/// the sentence `LOWERED`'s route and the C++ header comment print, or `None`.
pub fn inlined_note(p: &Program) -> Option<String> {
    let names = match p.module.funcs[p.func]
        .attrs
        .get(crate::passes::inline_calls::INLINED)
    {
        Some(pto_ir::Attr::Str(s)) => s,
        _ => return None,
    };
    let names: Vec<String> = names.split(", ").map(|n| format!("`{n}`")).collect();
    Some(format!(
        "The calls of {} are inlined (passes/inline_calls.rs): their work is split with the\nkernel's.",
        names.join(", ")
    ))
}

/// The core that owns slot `t`'s buffer.
fn core_of(p: &Program, t: TileId) -> Cores {
    match p.tile(t).map(|s| s.space) {
        Some(MemorySpace::Vec | MemorySpace::Ddr) | None => VECTOR,
        Some(_) => CUBE,
    }
}

fn core_of_ref(p: &Program, t: TileRef) -> Cores {
    match t {
        TileRef::Slot(t) => core_of(p, t),
        TileRef::Param(_) => VECTOR,
    }
}

/// The direction of a transfer between the cores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// A `TMOV` from an Acc tile to a Vec tile: a cube result to the vector core.
    ToVector,
    /// A `TMOV` from a Vec tile to a Mat tile: a vector result to the cube.
    ToCube,
}

/// Whether `i` is a transfer between the cores: its direction and the slot it reads.
pub fn transfer(p: &Program, i: &Inst) -> Option<(Direction, TileId)> {
    let Inst::Op {
        isa: Isa::TMov,
        dst,
        args,
    } = i
    else {
        return None;
    };
    if let Some(src) = crate::emit::cpp::acc_to_vec(p, *dst, args) {
        return Some((Direction::ToVector, src));
    }
    crate::emit::cpp::vec_to_mat(p, *dst, args).map(|src| (Direction::ToCube, src))
}

/// Whether `i` is a transfer between the cores, in either direction.
pub fn is_transfer(p: &Program, i: &Inst) -> bool {
    transfer(p, i).is_some()
}

/// The core a pipe belongs to (0: either, `MTE2`, the scalar unit and `ALL` exist on both).
fn core_of_pipe(pipe: PipeKind) -> Cores {
    match pipe {
        PipeKind::M | PipeKind::Mte1 | PipeKind::Fix => CUBE,
        PipeKind::V | PipeKind::Mte3 => VECTOR,
        PipeKind::S | PipeKind::Mte2 | PipeKind::All => 0,
    }
}

/// The cores an event between `a` and `b` belongs to: 0 when it links a cube pipe to a
/// vector pipe (the transfer replaces it), `BOTH` when neither pipe is core-specific.
fn core_of_event(a: PipeKind, b: PipeKind) -> Cores {
    match core_of_pipe(a) | core_of_pipe(b) {
        BOTH => 0,
        0 => BOTH,
        c => c,
    }
}

/// Whether `insts` have tile work on the cube (`true`) and on the vector unit (second).
pub(crate) fn units(p: &Program, insts: &[Inst]) -> (bool, bool) {
    let w = work(p, insts);
    (w & CUBE != 0, w & VECTOR != 0)
}

/// The cores with tile work in `insts` (a transfer is work on both).
fn work(p: &Program, insts: &[Inst]) -> Cores {
    let mut c = 0;
    for i in insts {
        c |= match i {
            _ if is_transfer(p, i) => BOTH,
            Inst::Op { dst, .. }
            | Inst::Load { dst, .. }
            | Inst::Extract { dst, .. }
            | Inst::Insert { dst, .. }
            | Inst::Cvt { dst, .. }
            | Inst::SetValid { dst, .. }
            | Inst::FullValid(dst) => core_of(p, *dst),
            Inst::Store { src, .. } => core_of_ref(p, *src),
            Inst::Write { .. } => VECTOR,
            Inst::For { body, .. } => work(p, body),
            Inst::While { cond, body, .. } => work(p, cond) | work(p, body),
            Inst::If {
                then_body,
                else_body,
                ..
            } => work(p, then_body) | work(p, else_body),
            _ => 0,
        };
    }
    c
}

/// Whether `insts` leave the loop they are in (a `break` / `continue` outside nested loops).
fn leaves_loop(insts: &[Inst]) -> bool {
    insts.iter().any(|i| match i {
        Inst::Break | Inst::Continue => true,
        Inst::If {
            then_body,
            else_body,
            ..
        } => leaves_loop(then_body) || leaves_loop(else_body),
        _ => false,
    })
}

struct Splitter<'a> {
    p: &'a Program,
    /// The cores that hold each scalar computed so far (absent: a parameter or constant,
    /// which every core has).
    avail: FxHashMap<ValueId, Cores>,
    /// The bytes of the largest Acc tile moved to a Vec tile.
    largest: u64,
    /// The bytes of the largest Vec tile moved to a Mat tile.
    largest_v2c: u64,
    /// The tensor accesses of the cube (0) and the vector cores (1) since their last handoff
    /// to the other kind of core, at the current point of a block both kinds run.
    pending: [Access; 2],
    /// The handoffs placed so far.
    handoffs: usize,
}

/// Why a kernel has no A2A3 route, and where.
struct Refusal {
    at: SpanId,
    why: String,
}

/// The tensors some instructions read and write.
#[derive(Clone, Debug, Default, PartialEq)]
struct Access {
    reads: BTreeSet<ValueId>,
    writes: BTreeSet<ValueId>,
}

impl Access {
    /// The accesses of `insts` (and of the instructions nested in them).
    fn of(insts: &[Inst]) -> Access {
        let mut a = Access::default();
        a.add(insts);
        a
    }

    fn add(&mut self, insts: &[Inst]) {
        for i in insts {
            match i {
                Inst::Load { tensor, .. } | Inst::Read { tensor, .. } => {
                    self.reads.insert(*tensor);
                }
                Inst::Store { tensor, .. } | Inst::Write { tensor, .. } => {
                    self.writes.insert(*tensor);
                }
                Inst::For { body, .. } => self.add(body),
                Inst::While { cond, body, .. } => {
                    self.add(cond);
                    self.add(body);
                }
                Inst::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    self.add(then_body);
                    self.add(else_body);
                }
                _ => {}
            }
        }
    }

    fn union(&mut self, o: &Access) {
        self.reads.extend(o.reads.iter().copied());
        self.writes.extend(o.writes.iter().copied());
    }

    /// The tensors of `later` accesses that must wait for these earlier ones on the other
    /// core: a write after any access, a read after a write.
    fn conflicts(&self, later: &Access) -> Vec<ValueId> {
        let mut out: BTreeSet<ValueId> = later
            .writes
            .iter()
            .filter(|t| self.reads.contains(t) || self.writes.contains(t))
            .copied()
            .collect();
        out.extend(later.reads.iter().filter(|t| self.writes.contains(t)));
        out.into_iter().collect()
    }
}

impl Splitter<'_> {
    fn name(&self, v: ValueId) -> String {
        let d = &self.p.module.values[v];
        d.name
            .as_deref()
            .map_or_else(|| format!("%{}", d.number), str::to_string)
    }

    /// Where value `v` is defined in the user's source.
    fn span_of(&self, v: ValueId) -> SpanId {
        let m = &self.p.module;
        match m.values[v].def {
            ValueDef::OpResult(op, _) => m.ops[op].span,
            ValueDef::Iv(s) | ValueDef::IterArg(s, _) | ValueDef::StmtResult(s, _) => {
                m.stmts[s].span
            }
            _ => self.p.span,
        }
    }

    /// The refusal of a call: at the call in the user's source.
    fn call(&self, callee: &str, args: &[ValueId], results: &[ValueId]) -> Refusal {
        let at = self
            .p
            .module
            .ops
            .iter()
            .find(|(_, o)| o.operands.as_slice() == args && o.results.as_slice() == results)
            .map_or(self.p.span, |(_, o)| o.span);
        Refusal {
            at,
            why: format!(
                "the call of `{callee}` in a kernel with cube and vector work, not inlined (the callee's work is not split between the cores)"
            ),
        }
    }

    /// The handoffs instruction `i` needs first, `ci` / `vi` being its cube and vector
    /// parts, at a point both kinds of core run: placed at `cube[c0]` and `vector[v0]`
    /// (each core's own signal before its wait, so neither waits for a signal it has not
    /// given), and the pending accesses updated.
    fn hand_off(&mut self, cube: &mut Vec<Inst>, c0: usize, vector: &mut Vec<Inst>, v0: usize) {
        let (ac, av) = (Access::of(&cube[c0..]), Access::of(&vector[v0..]));
        let to_vector = self.pending[0].conflicts(&av);
        let to_cube = self.pending[1].conflicts(&ac);
        let h =
            |from_cube: bool, tensors: Vec<ValueId>| Inst::Handoff(Handoff { from_cube, tensors });
        let (mut at_c, mut at_v) = (Vec::new(), Vec::new());
        if !to_vector.is_empty() {
            self.pending[0] = Access::default();
            at_c.push(h(true, to_vector.clone()));
            self.handoffs += 1;
        }
        if !to_cube.is_empty() {
            self.pending[1] = Access::default();
            at_c.push(h(false, to_cube.clone()));
            at_v.push(h(false, to_cube));
            self.handoffs += 1;
        }
        if !to_vector.is_empty() {
            at_v.push(h(true, to_vector));
        }
        cube.splice(c0..c0, at_c);
        vector.splice(v0..v0, at_v);
        self.pending[0].union(&ac);
        self.pending[1].union(&av);
    }

    fn avail(&self, v: ValueId) -> Cores {
        self.avail.get(&v).copied().unwrap_or(BOTH)
    }

    fn index_avail(&self, i: Index) -> Cores {
        match i {
            Index::Const(_) => BOTH,
            Index::Value(v) => self.avail(v),
        }
    }

    /// Fails unless every core of `on` has scalar `v`.
    fn need(&self, v: ValueId, on: Cores) -> Result<(), Refusal> {
        if self.avail(v) & on == on {
            return Ok(());
        }
        Err(Refusal {
            at: self.span_of(v),
            why: format!(
                "scalar `{}` is computed on the {} core but used on the {} core",
                self.name(v),
                core_name(self.avail(v)),
                core_name(on & !self.avail(v)),
            ),
        })
    }

    fn need_index(&self, i: Index, on: Cores) -> Result<(), Refusal> {
        match i {
            Index::Value(v) => self.need(v, on),
            Index::Const(_) => Ok(()),
        }
    }

    fn need_args(&self, args: &[Arg], on: Cores) -> Result<(), Refusal> {
        for a in args {
            if let Arg::Scalar(v) = a {
                self.need(*v, on)?;
            }
        }
        Ok(())
    }

    /// Splits a loop's body that both kinds of core run (`split`), with the handoffs its
    /// iterations need: an access may conflict with one of an earlier iteration, so the
    /// body is split once to learn what each core accesses in it, then again with those
    /// accesses pending at its start. Every path through the body ends where it started
    /// (or leaves the loop), so after the loop anything the body accessed may be pending.
    fn looped(
        &mut self,
        mut split: impl FnMut(&mut Self) -> Result<(Vec<Inst>, Vec<Inst>), Refusal>,
    ) -> Result<(Vec<Inst>, Vec<Inst>), Refusal> {
        self.looped_with(&mut |me: &mut Self| {
            let parts = split(me)?;
            Ok((parts.clone(), parts))
        })
    }

    /// [`Splitter::looped`] for a split into any parts `T`, with the cube's and the
    /// vector's instructions of the whole loop alongside.
    fn looped_with<T>(
        &mut self,
        split: &mut impl FnMut(&mut Self) -> Result<(T, (Vec<Inst>, Vec<Inst>)), Refusal>,
    ) -> Result<T, Refusal> {
        let entry = self.pending.clone();
        let handoffs = self.handoffs;
        let (_, (c, v)) = split(self)?;
        let mut head = entry;
        head[0].union(&Access::of(&c));
        head[1].union(&Access::of(&v));
        self.pending = head.clone();
        self.handoffs = handoffs;
        let (parts, _) = split(self)?;
        self.pending = head;
        Ok(parts)
    }

    /// Splits `insts`, which run on cores `on`, into the cube's and the vector's
    /// instructions. `top`: the kernel's body (where its `return` is).
    fn block(
        &mut self,
        insts: &[Inst],
        on: Cores,
        top: bool,
    ) -> Result<(Vec<Inst>, Vec<Inst>), Refusal> {
        let p = self.p;
        let (mut cube, mut vector) = (Vec::new(), Vec::new());
        for i in insts {
            let (c0, v0) = (cube.len(), vector.len());
            // A loop or branch both kinds of core run orders its accesses inside.
            let mut inner = false;
            let mut put = |c: Cores, inst: Inst| {
                if c & CUBE != 0 {
                    cube.push(inst.clone());
                }
                if c & VECTOR != 0 {
                    vector.push(inst);
                }
            };
            if let Some((dir, src)) = transfer(p, i) {
                let bytes = p.tile(src).map_or(0, |s| s.bytes);
                let largest = match dir {
                    Direction::ToVector => &mut self.largest,
                    Direction::ToCube => &mut self.largest_v2c,
                };
                *largest = (*largest).max(bytes);
                put(on, i.clone());
                continue;
            }
            match i {
                // A host-code mark (the fuse-chains step runs after this one).
                Inst::Fused(_)
                | Inst::ExpandStore(_)
                | Inst::MapRowSum(_)
                | Inst::LoadView(_)
                | Inst::Share(_) => {}
                Inst::Op { dst, args, .. } => {
                    let c = core_of(p, *dst) & on;
                    self.need_args(args, c)?;
                    put(c, i.clone());
                }
                Inst::Load { dst, offsets, .. } => {
                    let c = core_of(p, *dst) & on;
                    for &o in offsets {
                        self.need_index(o, c)?;
                    }
                    put(c, i.clone());
                }
                Inst::Store { src, offsets, .. } => {
                    let c = core_of_ref(p, *src) & on;
                    for &o in offsets {
                        self.need_index(o, c)?;
                    }
                    put(c, i.clone());
                }
                Inst::Extract { dst, at, .. } | Inst::Insert { dst, at, .. } => {
                    let c = core_of(p, *dst) & on;
                    for &o in at {
                        self.need_index(o, c)?;
                    }
                    put(c, i.clone());
                }
                Inst::SetValid { dst, dims } => {
                    let c = core_of(p, *dst) & on;
                    for &o in dims {
                        self.need_index(o, c)?;
                    }
                    put(c, i.clone());
                }
                Inst::Cvt { dst, .. } | Inst::FullValid(dst) => {
                    put(core_of(p, *dst) & on, i.clone())
                }
                Inst::Read {
                    result, offsets, ..
                } => {
                    // Every core that can: a handoff orders it after the other core's
                    // writes of the tensor, and a scalar read this way reaches both cores.
                    let mut c = on;
                    for &o in offsets {
                        c &= self.index_avail(o);
                    }
                    self.avail.insert(*result, c);
                    put(c, i.clone());
                }
                Inst::Write { value, offsets, .. } => {
                    let c = VECTOR & on;
                    self.need(*value, c)?;
                    for &o in offsets {
                        self.need_index(o, c)?;
                    }
                    put(c, i.clone());
                }
                Inst::SetFlag((a, b, _)) | Inst::WaitFlag((a, b, _)) => {
                    put(core_of_event(*a, *b) & on, i.clone())
                }
                Inst::Barrier(pipe) => {
                    let c = match core_of_pipe(*pipe) {
                        0 => BOTH,
                        c => c,
                    };
                    put(c & on, i.clone());
                }
                Inst::Scalar { result, args, .. } => {
                    let c = args.iter().fold(on, |c, &a| c & self.avail(a));
                    self.avail.insert(*result, c);
                    put(c, i.clone());
                }
                Inst::Assign(pairs) => {
                    let mut c = on;
                    for &(d, s) in pairs {
                        c &= self.avail(d);
                        self.need(s, self.avail(d) & on)?;
                    }
                    put(c, i.clone());
                }
                Inst::For {
                    iv,
                    lb,
                    ub,
                    step,
                    carried,
                    body,
                    results,
                    exec,
                } => {
                    let w = work(p, body);
                    let c = if w != 0 {
                        w & on
                    } else {
                        [*lb, *ub, *step]
                            .iter()
                            .chain(carried.iter().map(|(_, init)| init))
                            .fold(on, |c, &v| c & self.avail(v))
                    };
                    for v in [*lb, *ub, *step] {
                        self.need(v, c)?;
                    }
                    for &(a, init) in carried {
                        self.need(init, c)?;
                        self.avail.insert(a, c);
                    }
                    self.avail.insert(*iv, c);
                    inner = c == BOTH;
                    let (bc, bv) = if inner {
                        self.looped(|me| me.block(body, c, false))?
                    } else {
                        self.block(body, c, false)?
                    };
                    for &(r, _) in results {
                        self.avail.insert(r, c);
                    }
                    let with = |body: Vec<Inst>| Inst::For {
                        iv: *iv,
                        lb: *lb,
                        ub: *ub,
                        step: *step,
                        carried: carried.clone(),
                        body,
                        results: results.clone(),
                        exec: exec.clone(),
                    };
                    if c & CUBE != 0 {
                        cube.push(with(bc));
                    }
                    if c & VECTOR != 0 {
                        vector.push(with(bv));
                    }
                }
                Inst::While {
                    carried,
                    cond,
                    cond_value,
                    body,
                    results,
                } => {
                    let w = work(p, cond) | work(p, body);
                    let c = if w != 0 {
                        w & on
                    } else {
                        carried
                            .iter()
                            .fold(on, |c, &(_, init)| c & self.avail(init))
                    };
                    for &(a, init) in carried {
                        self.need(init, c)?;
                        self.avail.insert(a, c);
                    }
                    inner = c == BOTH;
                    let mut parts = |me: &mut Self| {
                        let (cc, cv) = me.block(cond, c, false)?;
                        me.need(*cond_value, c)?;
                        let (bc, bv) = me.block(body, c, false)?;
                        let mut all_c = cc.clone();
                        all_c.extend(bc.iter().cloned());
                        let mut all_v = cv.clone();
                        all_v.extend(bv.iter().cloned());
                        Ok(((cc, cv, bc, bv), (all_c, all_v)))
                    };
                    let (cc, cv, bc, bv) = if inner {
                        self.looped_with(&mut parts)?
                    } else {
                        parts(self)?.0
                    };
                    for &(r, _) in results {
                        self.avail.insert(r, c);
                    }
                    let with = |cond: Vec<Inst>, body: Vec<Inst>| Inst::While {
                        carried: carried.clone(),
                        cond,
                        cond_value: *cond_value,
                        body,
                        results: results.clone(),
                    };
                    if c & CUBE != 0 {
                        cube.push(with(cc, bc));
                    }
                    if c & VECTOR != 0 {
                        vector.push(with(cv, bv));
                    }
                }
                Inst::If {
                    cond,
                    then_body,
                    else_body,
                    results,
                } => {
                    let w = work(p, then_body) | work(p, else_body);
                    // A branch that leaves the loop must run wherever the loop does.
                    let c = if leaves_loop(then_body) || leaves_loop(else_body) {
                        on
                    } else if w != 0 {
                        w & on
                    } else {
                        on & self.avail(*cond)
                    };
                    self.need(*cond, c)?;
                    for &r in results {
                        self.avail.insert(r, c);
                    }
                    inner = c == BOTH;
                    let entry = self.pending.clone();
                    let (tc, tv) = self.block(then_body, c, false)?;
                    let after_then = std::mem::replace(&mut self.pending, entry);
                    let (ec, ev) = self.block(else_body, c, false)?;
                    if inner {
                        // Either branch may have run.
                        self.pending[0].union(&after_then[0]);
                        self.pending[1].union(&after_then[1]);
                    } else {
                        self.pending = after_then;
                    }
                    let with = |then_body: Vec<Inst>, else_body: Vec<Inst>| Inst::If {
                        cond: *cond,
                        then_body,
                        else_body,
                        results: results.clone(),
                    };
                    if c & CUBE != 0 {
                        cube.push(with(tc, ec));
                    }
                    if c & VECTOR != 0 {
                        vector.push(with(tv, ev));
                    }
                }
                Inst::Break | Inst::Continue => put(on, i.clone()),
                Inst::Return(vals) => {
                    if !top {
                        return Err(Refusal {
                            at: p.span,
                            why: "a return from inside a loop or branch".into(),
                        });
                    }
                    // Vector core 0 writes the results; the cube ends its part after its
                    // last transfer (the emitter drains the last "free" there).
                    for &v in vals {
                        self.need(v, VECTOR)?;
                    }
                    vector.push(i.clone());
                }
                Inst::Call {
                    callee,
                    args,
                    results,
                } => return Err(self.call(callee, args, results)),
                // Placed by this step only.
                Inst::Handoff(_) => {}
            }
            if on == BOTH && !inner {
                self.hand_off(&mut cube, c0, &mut vector, v0);
            }
        }
        Ok((cube, vector))
    }
}

/// The part of vector core 1: `vector` without its tile work, stores and results (the
/// control flow and the scalars it needs, and the transfers' synchronisation).
fn peer(p: &Program, vector: &[Inst]) -> Vec<Inst> {
    let mut out = Vec::new();
    for i in vector {
        if is_transfer(p, i) {
            out.push(i.clone());
            continue;
        }
        match i {
            Inst::Scalar { .. }
            | Inst::Read { .. }
            | Inst::Assign(_)
            | Inst::Break
            | Inst::Continue
            | Inst::Handoff(_) => out.push(i.clone()),
            Inst::Return(_) => out.push(Inst::Return(Vec::new())),
            Inst::For {
                iv,
                lb,
                ub,
                step,
                carried,
                body,
                results,
                exec,
            } => out.push(Inst::For {
                iv: *iv,
                lb: *lb,
                ub: *ub,
                step: *step,
                carried: carried.clone(),
                body: peer(p, body),
                results: results.clone(),
                exec: exec.clone(),
            }),
            Inst::While {
                carried,
                cond,
                cond_value,
                body,
                results,
            } => out.push(Inst::While {
                carried: carried.clone(),
                cond: peer(p, cond),
                cond_value: *cond_value,
                body: peer(p, body),
                results: results.clone(),
            }),
            Inst::If {
                cond,
                then_body,
                else_body,
                results,
            } => out.push(Inst::If {
                cond: *cond,
                then_body: peer(p, then_body),
                else_body: peer(p, else_body),
                results: results.clone(),
            }),
            _ => {}
        }
    }
    out
}

fn core_name(c: Cores) -> &'static str {
    match c {
        CUBE => "cube",
        VECTOR => "vector",
        BOTH => "cube and vector",
        _ => "no",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pto_ir::entity::EntityId;

    #[test]
    fn events_go_to_the_core_of_their_pipes() {
        use PipeKind::*;
        assert_eq!(core_of_event(Mte2, Mte1), CUBE);
        assert_eq!(core_of_event(M, Fix), CUBE);
        assert_eq!(core_of_event(Mte2, V), VECTOR);
        assert_eq!(core_of_event(V, Mte3), VECTOR);
        // A cube pipe and a vector pipe: the transfer orders them instead.
        assert_eq!(core_of_event(Fix, V), 0);
        assert_eq!(core_of_event(V, M), 0);
        // Pipes both cores have.
        assert_eq!(core_of_event(S, Mte2), BOTH);
    }

    #[test]
    fn a_break_in_a_branch_leaves_the_loop_but_not_from_a_nested_loop() {
        let inner = Inst::If {
            cond: ValueId::new(0),
            then_body: vec![Inst::Break],
            else_body: Vec::new(),
            results: Vec::new(),
        };
        assert!(leaves_loop(std::slice::from_ref(&inner)));
        let nested = Inst::While {
            carried: Vec::new(),
            cond: Vec::new(),
            cond_value: ValueId::new(0),
            body: vec![inner],
            results: Vec::new(),
        };
        assert!(!leaves_loop(&[nested]));
    }
}
