//! Pass 3, insert events (seed 002 section 5): every producer / consumer pair of tile ops on
//! different pipes gets an event. The producer records it (`set = [[MTE2, V, 0]]`: source
//! pipe, destination pipe, event id) and the consumer waits for it (`wait = [[MTE2, V, 0]]`).
//! When the consumer is in another block than the producer (inside a loop or branch the
//! producer is outside of), the producer sets and waits at once (`sync = [..]`), which is
//! always safe. Dependencies carried around a loop's back edge are ordered by the barrier
//! the lowering places at the end of each loop body that issues tile work.
//!
//! Event ids are allocated round-robin per (source, destination) pipe pair, 8 per pair.

use pto_ir::entity::SecondaryMap;
use pto_ir::{Attr, BlockId, Diagnostics, OpId, PipeKind, ProgramModule, StmtKind, ValueDef};

use crate::info::pipe_of;
use crate::pass::Pass;
use crate::walk;

/// The insert-events pass.
pub struct InsertEvents;

/// One event: source pipe, destination pipe, id.
pub type Event = (PipeKind, PipeKind, u8);

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

impl Pass for InsertEvents {
    fn name(&self) -> &'static str {
        "insert-events"
    }

    fn run(&self, m: &mut ProgramModule) -> Result<(), Diagnostics> {
        for f in walk::functions(m) {
            // The ops in program order, and the block each one sits in.
            let mut ops = Vec::with_capacity(m.ops.len());
            let mut block_of = SecondaryMap::with_len(m.ops.len(), None);
            place_ops(m, m.funcs[f].body, &mut ops, &mut block_of);
            // The next event id per (source, destination) pipe pair.
            let mut next_id = [[0u8; PipeKind::ALL_KINDS.len()]; PipeKind::ALL_KINDS.len()];
            let mut done = Synced::new(m);
            for o in ops {
                let consumer_pipe = pipe_of(m, &m.ops[o]);
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
                    let producer_pipe = pipe_of(m, &m.ops[p]);
                    if producer_pipe == consumer_pipe || producer_pipe == PipeKind::S {
                        continue;
                    }
                    let (Some(pb), Some(cb)) = (block_of[p], block_of[o]) else {
                        continue;
                    };
                    if !done.insert(p, consumer_pipe, cb) {
                        continue;
                    }
                    let slot = &mut next_id[producer_pipe as usize][consumer_pipe as usize];
                    let ev = (producer_pipe, consumer_pipe, *slot);
                    *slot = (*slot + 1) % 8;
                    if pb == cb {
                        push_event(&mut m.ops[p].attrs, "set", ev);
                        push_event(&mut m.ops[o].attrs, "wait", ev);
                    } else {
                        push_event(&mut m.ops[p].attrs, "sync", ev);
                    }
                }
            }
        }
        Ok(())
    }
}

/// Per producer op, the (consumer pipe, consumer block) pairs already synchronised: a list
/// per producer, linked through one vector rather than a vector each.
struct Synced {
    /// The latest pair recorded for each producer.
    head: SecondaryMap<OpId, Option<u32>>,
    /// Each pair, with the producer's previous one.
    pairs: Vec<(PipeKind, BlockId, Option<u32>)>,
}

impl Synced {
    fn new(m: &ProgramModule) -> Self {
        Synced {
            head: SecondaryMap::with_len(m.ops.len(), None),
            pairs: Vec::new(),
        }
    }

    /// Records (`pipe`, `block`) for `producer`; `false` when it was recorded before.
    fn insert(&mut self, producer: OpId, pipe: PipeKind, block: BlockId) -> bool {
        let mut at = self.head[producer];
        while let Some(&(p, b, next)) = at.and_then(|i| self.pairs.get(i as usize)) {
            if (p, b) == (pipe, block) {
                return false;
            }
            at = next;
        }
        self.pairs.push((pipe, block, self.head[producer]));
        self.head[producer] = Some(self.pairs.len() as u32 - 1);
        true
    }
}

/// Appends the ops of a block tree to `ops` in program order, recording each one's block.
fn place_ops(
    m: &ProgramModule,
    b: BlockId,
    ops: &mut Vec<OpId>,
    block_of: &mut SecondaryMap<OpId, Option<BlockId>>,
) {
    for &s in &m.blocks[b].stmts {
        let kind = &m.stmts[s].kind;
        if let StmtKind::Op(list) = kind {
            for &o in list {
                ops.push(o);
                block_of[o] = Some(b);
            }
        }
        for child in kind.blocks() {
            place_ops(m, child, ops, block_of);
        }
    }
}
