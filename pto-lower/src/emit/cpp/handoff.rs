//! A cross-core handoff of a split A2A3 kernel ([`Inst::Handoff`], `lower/split.rs`): the
//! sending core's accesses to global memory are done and visible before the receiving
//! core's next ones. The sender drains its pipes, writes its scalar unit's data cache back
//! and signals; the receiver waits, then drops its cached lines of the tensors. In the cube /
//! vector mode a cube signal reaches both vector cores and a cube wait ends once both vector
//! cores signalled, so vector core 1 takes its part too.
//!
//! [`Inst::Handoff`]: crate::isa::Inst::Handoff

use crate::emit::writer::Level;
use crate::isa::Handoff;
use crate::lower::split::{FLAG_TO_CUBE, FLAG_TO_VECTOR};

use super::cores::cross_core_config;
use super::{Part, Writer};

impl Writer<'_> {
    /// The part of the current core in handoff `h`.
    pub(super) fn handoff(&mut self, l: Level, h: &Handoff) {
        let sends = match self.part {
            Part::Cube => h.from_cube,
            Part::Vector | Part::Peer => !h.from_cube,
            // Not split: one core, nothing to hand over.
            Part::Whole => return,
        };
        let (flag, pipe) = if h.from_cube {
            (FLAG_TO_VECTOR, "PIPE_FIX")
        } else {
            (FLAG_TO_CUBE, "PIPE_MTE3")
        };
        let names: Vec<String> = h
            .tensors
            .iter()
            .map(|&t| self.text(|me| me.name(t)))
            .collect();
        let l1 = l.next();
        self.out.line(l, "{");
        // Vector core 1 accesses no tensor: it only keeps the signal counts.
        let caches = self.part != Part::Peer;
        if sends {
            if self.part != Part::Peer {
                self.out.line(l1, "pipe_barrier(PIPE_ALL);");
            }
            if caches {
                self.write_back(l1, &names);
            }
            self.out.line(
                l1,
                &format!(
                    "ffts_cross_core_sync({pipe}, 0x{:x}); // done with {}",
                    cross_core_config(flag),
                    names.join(", ")
                ),
            );
        } else {
            self.out.line(
                l1,
                &format!(
                    "wait_flag_dev({flag}); // the other core is done with {}",
                    names.join(", ")
                ),
            );
            if caches {
                self.out.line(l1, "pipe_barrier(PIPE_ALL);");
                self.write_back(l1, &names);
            }
        }
        self.out.line(l, "}");
    }

    /// `dcci` of the whole data cache (the scalar unit's reads and writes of the tensors
    /// go through it), ordered before what follows.
    fn write_back(&mut self, l: Level, names: &[String]) {
        if let Some(t) = names.first() {
            self.out.line(
                l,
                &format!(
                    "dcci(reinterpret_cast<__gm__ void*>({t}), cache_line_t::ENTIRE_DATA_CACHE);"
                ),
            );
            self.out.line(l, "dsb(DSB_DDR);");
        }
    }
}
