//! Pass 3, insert events (seed 002 section 5): every producer / consumer pair of tile ops on
//! different pipes gets an event. The producer records it (`set = [[MTE2, V, 0]]`: source
//! pipe, destination pipe, event id) and the consumer waits for it (`wait = [[MTE2, V, 0]]`).
//! When the consumer is in another block than the producer (inside a loop or branch the
//! producer is outside of), the producer sets and waits at once (`sync = [..]`), which is
//! always safe. The pass orders an op after the ops whose results it reads; the rest (loop
//! back edges, tiles that leave an `if` or a loop, the copies the lowering makes, buffers
//! reused by bufferize) is ordered by barriers: one at the start of each loop body that
//! issues tile work, and those the lowering's fence step (`fence.rs`) puts where an access
//! would otherwise race with another pipe's.
//!
//! One event per producer and destination pipe serves all its consumers on that pipe: the
//! first consumer in program order gets it, and every later one runs after that wait on
//! every path. The later consumers sit in the producer's block or a block nested in it (SSA)
//! and come after the first one in program order, so either the wait is the producer's own
//! (`sync`, right after it) or it is the first consumer's in the producer's block, which
//! runs before anything after it in that block and its nested blocks. A load feeding
//! matmuls in three branches of an `if` has one `sync`, not one per branch.
//!
//! Event ids are allocated round-robin per (source, destination) pipe pair, 8 per pair.
//!
//! The pass writes the lists as op attributes, the text the file tests read; the lowering
//! reads them into an [`OpEvents`] table, which the emitters read.

use pto_ir::entity::SecondaryMap;
use pto_ir::{Attr, BlockId, Diagnostics, OpId, PipeKind, ProgramModule, StmtKind, ValueDef};

use super::Pass;
use crate::info::pipe_of;

/// The insert-events pass.
pub struct InsertEvents;

/// One event: source pipe, destination pipe, id.
pub type Event = (PipeKind, PipeKind, u8);

/// Which of an op's event lists an event is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventRole {
    /// The op records the event when it is done (`set`).
    Set,
    /// The op waits for the event before it starts (`wait`).
    Wait,
    /// The op records the event and waits for it at once (`sync`).
    Sync,
}

impl EventRole {
    /// Every role, in the order the lowering reads them.
    pub const ALL: [EventRole; 3] = [EventRole::Set, EventRole::Wait, EventRole::Sync];

    /// The attribute key holding the list (`set`, `wait`, `sync`).
    pub fn key(self) -> &'static str {
        match self {
            EventRole::Set => "set",
            EventRole::Wait => "wait",
            EventRole::Sync => "sync",
        }
    }
}

/// Reads an event list attribute (`set`, `wait`, `sync`) of an op.
pub fn events(attrs: &pto_ir::Attrs, key: &str) -> Vec<Event> {
    event_iter(attrs, key).collect()
}

/// [`events`], without collecting them.
pub fn event_iter<'a>(attrs: &'a pto_ir::Attrs, key: &str) -> impl Iterator<Item = Event> + 'a {
    let list = attrs.get(key).and_then(Attr::as_list).unwrap_or_default();
    list.iter().filter_map(|e| {
        let e = e.as_list()?;
        let src = PipeKind::from_name(e.first()?.as_ident()?)?;
        let dst = PipeKind::from_name(e.get(1)?.as_ident()?)?;
        let id = u8::try_from(e.get(2)?.as_int()?).ok()?;
        Some((src, dst, id))
    })
}

fn push_event(attrs: &mut pto_ir::Attrs, key: &'static str, (src, dst, id): Event) {
    let e = Attr::List(vec![
        Attr::Ident(src.name().to_string()),
        Attr::Ident(dst.name().to_string()),
        Attr::Int(i64::from(id)),
    ]);
    // Appends in place when the list exists (a copy of it per event would be quadratic).
    match attrs.0.iter_mut().find(|(k, _)| k == key) {
        Some((_, Attr::List(list))) => {
            if !list.contains(&e) {
                list.push(e);
            }
        }
        Some((_, other)) => *other = Attr::List(vec![e]),
        None => attrs.0.push((key.into(), Attr::List(vec![e]))),
    }
}

/// The events of every op, as the lowering and the emitters read them: the `set`, `wait`
/// and `sync` lists of each op, in order, read from the op attributes the pass wrote.
#[derive(Clone, Debug, Default)]
pub struct OpEvents {
    /// The first and last entry of each op's list.
    ends: SecondaryMap<OpId, Option<(u32, u32)>>,
    /// Every entry; each op's are linked through [`EventEntry::next`] in order.
    entries: Vec<EventEntry>,
}

#[derive(Clone, Copy, Debug)]
struct EventEntry {
    role: EventRole,
    event: Event,
    next: Option<u32>,
}

impl OpEvents {
    /// An empty table for the ops of `m`.
    pub fn new(m: &ProgramModule) -> Self {
        OpEvents {
            ends: SecondaryMap::with_len(m.ops.len(), None),
            // Kernels have about one event per op (a set and a wait, or a sync, per two).
            entries: Vec::with_capacity(m.ops.len()),
        }
    }

    /// The events the op attributes of `m` hold (what [`InsertEvents`] wrote).
    pub fn from_attrs(m: &ProgramModule) -> Self {
        let mut t = OpEvents::new(m);
        for (o, op) in m.ops.iter() {
            for role in EventRole::ALL {
                for e in event_iter(&op.attrs, role.key()) {
                    t.append(o, role, e);
                }
            }
        }
        t
    }

    /// Whether op `o` has any event.
    pub fn has(&self, o: OpId) -> bool {
        self.ends[o].is_some()
    }

    /// The events of op `o` in list `role`, in order.
    pub fn of(&self, o: OpId, role: EventRole) -> impl Iterator<Item = Event> + '_ {
        let mut at = self.ends[o].map(|(first, _)| first);
        std::iter::from_fn(move || {
            loop {
                let e = self.entries.get(at? as usize)?;
                at = e.next;
                if e.role == role {
                    return Some(e.event);
                }
            }
        })
    }

    fn append(&mut self, o: OpId, role: EventRole, event: Event) {
        let i = self.entries.len() as u32;
        self.entries.push(EventEntry {
            role,
            event,
            next: None,
        });
        self.ends[o] = match self.ends[o] {
            Some((first, last)) => {
                if let Some(tail) = self.entries.get_mut(last as usize) {
                    tail.next = Some(i);
                }
                Some((first, i))
            }
            None => Some((i, i)),
        };
    }
}

impl Pass for InsertEvents {
    fn name(&self) -> &'static str {
        "insert-events"
    }

    fn run(&self, m: &mut ProgramModule) -> Result<(), Diagnostics> {
        for k in 0..m.functions.len() {
            let f = m.functions[k];
            insert(m, f);
        }
        Ok(())
    }
}

/// Adds the events of function `f` to its ops' attributes, producers' before consumers'.
fn insert(m: &mut ProgramModule, f: pto_ir::FuncId) {
    let add = |m: &mut ProgramModule, o: OpId, role: EventRole, e: Event| {
        push_event(&mut m.ops[o].attrs, role.key(), e)
    };
    // The ops in program order, and the block and pipe of each one (with, per producer,
    // the destination pipes that wait for it already).
    let mut ops = Vec::new();
    let mut at: SecondaryMap<OpId, Placed> = SecondaryMap::with_len(m.ops.len(), Placed::default());
    place_ops(m, m.funcs[f].body, &mut ops, &mut at);
    // The next event id per (source, destination) pipe pair.
    let mut next_id = [[0u8; PipeKind::ALL_KINDS.len()]; PipeKind::ALL_KINDS.len()];
    const _: () = assert!(PipeKind::ALL_KINDS.len() <= 8);
    for o in ops {
        let Some((cb, consumer_pipe)) = at[o].place else {
            continue;
        };
        if consumer_pipe == PipeKind::S {
            continue;
        }
        // By index: the loop adds events to the ops while it reads the operands.
        for i in 0..m.ops[o].operands.len() {
            let v = m.ops[o].operands[i];
            let ValueDef::OpResult(p, _) = m.values[v].def else {
                continue;
            };
            if m.values[v].ty.as_tile().is_none() {
                continue;
            }
            // A producer outside the function has no place: nothing to order against.
            let Some((pb, producer_pipe)) = at[p].place else {
                continue;
            };
            if producer_pipe == consumer_pipe || producer_pipe == PipeKind::S {
                continue;
            }
            // An earlier consumer on this pipe waits already (see the module docs).
            let bit = 1u8 << consumer_pipe as u8;
            if at[p].waited & bit != 0 {
                continue;
            }
            at[p].waited |= bit;
            let slot = &mut next_id[producer_pipe as usize][consumer_pipe as usize];
            let ev = (producer_pipe, consumer_pipe, *slot);
            *slot = (*slot + 1) % 8;
            if pb == cb {
                add(m, p, EventRole::Set, ev);
                add(m, o, EventRole::Wait, ev);
            } else {
                add(m, p, EventRole::Sync, ev);
            }
        }
    }
}

/// What [`insert`] keeps per op.
#[derive(Clone, Copy, Default)]
struct Placed {
    /// The op's block and pipe (`None`: not in the function).
    place: Option<(BlockId, PipeKind)>,
    /// As a producer, the destination pipes that wait for it already (a bit per pipe).
    waited: u8,
}

/// Appends the ops of a block tree to `ops` in program order, recording each one's block
/// and pipe (worked out once per op, not once per use).
fn place_ops(
    m: &ProgramModule,
    b: BlockId,
    ops: &mut Vec<OpId>,
    at: &mut SecondaryMap<OpId, Placed>,
) {
    for &s in &m.blocks[b].stmts {
        let kind = &m.stmts[s].kind;
        if let StmtKind::Op(list) = kind {
            for &o in list {
                ops.push(o);
                at[o].place = Some((b, pipe_of(m, &m.ops[o])));
            }
            continue;
        }
        for child in kind.blocks() {
            place_ops(m, child, ops, at);
        }
    }
}
