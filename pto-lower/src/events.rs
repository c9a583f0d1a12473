//! Pass 3, insert events (seed 002 section 5): every producer / consumer pair of tile ops on
//! different pipes gets an event. The producer records it (`set = [[MTE2, V, 0]]`: source
//! pipe, destination pipe, event id) and the consumer waits for it (`wait = [[MTE2, V, 0]]`).
//! When the consumer is in another block than the producer (inside a loop or branch the
//! producer is outside of), the producer sets and waits at once (`sync = [..]`), which is
//! always safe. Dependencies carried around a loop's back edge are ordered by the barrier
//! the lowering places at the end of each loop body that issues tile work.
//!
//! Event ids are allocated round-robin per (source, destination) pipe pair, 8 per pair.

use std::collections::HashMap;

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
    let Some(list) = attrs.get(key).and_then(Attr::as_list) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|e| {
            let e = e.as_list()?;
            let src = PipeKind::from_name(e.first()?.as_ident()?)?;
            let dst = PipeKind::from_name(e.get(1)?.as_ident()?)?;
            let id = u8::try_from(e.get(2)?.as_int()?).ok()?;
            Some((src, dst, id))
        })
        .collect()
}

fn push_event(attrs: &mut pto_ir::Attrs, key: &str, (src, dst, id): Event) {
    let e = Attr::List(vec![
        Attr::Ident(src.name().to_string()),
        Attr::Ident(dst.name().to_string()),
        Attr::Int(i64::from(id)),
    ]);
    let mut list = attrs
        .get(key)
        .and_then(Attr::as_list)
        .map(<[Attr]>::to_vec)
        .unwrap_or_default();
    if !list.contains(&e) {
        list.push(e);
    }
    attrs.set(key, Attr::List(list));
}

impl Pass for InsertEvents {
    fn name(&self) -> &'static str {
        "insert-events"
    }

    fn run(&self, m: &mut ProgramModule) -> Result<(), Diagnostics> {
        for f in walk::functions(m) {
            // Which block each op sits in.
            let mut block_of: HashMap<OpId, BlockId> = HashMap::new();
            let mut blocks = vec![m.funcs[f].body];
            walk::visit_stmts(m, m.funcs[f].body, &mut |s| {
                blocks.extend(m.stmts[s].kind.blocks())
            });
            for &b in &blocks {
                for &s in &m.blocks[b].stmts {
                    if let StmtKind::Op(ops) = &m.stmts[s].kind {
                        for &o in ops {
                            block_of.insert(o, b);
                        }
                    }
                }
            }
            let mut next_id: HashMap<(PipeKind, PipeKind), u8> = HashMap::new();
            // (producer, consumer pipe, consumer block) already synchronised.
            let mut done: HashMap<(OpId, PipeKind, BlockId), ()> = HashMap::new();
            for o in walk::ops_in(m, m.funcs[f].body) {
                let consumer_pipe = pipe_of(m, &m.ops[o]);
                if consumer_pipe == PipeKind::S {
                    continue;
                }
                let operands = m.ops[o].operands.clone();
                for v in operands {
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
                    let (Some(&pb), Some(&cb)) = (block_of.get(&p), block_of.get(&o)) else {
                        continue;
                    };
                    if done.insert((p, consumer_pipe, cb), ()).is_some() {
                        continue;
                    }
                    let slot = next_id.entry((producer_pipe, consumer_pipe)).or_insert(0);
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
