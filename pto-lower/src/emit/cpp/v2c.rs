//! The vector-to-cube transfer of a split A2A3 kernel (`lower/split.rs`): a `TMOV` from a
//! Vec tile to a Mat tile, which A2A3 has no instruction for, goes through the second GM
//! slot of the workspace (after the cube-to-vector one). Vector core 0 writes the tile's
//! valid extents and data into the slot and signals "ready"; the cube waits for it (in the
//! cube / vector mode a cube wait ends once both vector cores signalled, so vector core 1
//! signals too), loads the slot into the Mat tile and signals "free"; each vector core waits
//! for "free" right after its "ready", so the slot is never overwritten before the cube
//! read it and every signal is consumed where it is given.

use crate::emit::writer::Level;
use crate::isa::TileId;
use crate::lower::split::{FLAG_V2C_FREE, FLAG_V2C_READY};

use super::Writer;
use super::cores::cross_core_config;
use super::slot::Slot;

impl Writer<'_> {
    /// The vector half: Vec tile `src` into the slot (`None`: vector core 1, which only
    /// synchronises), "ready", then the wait for "free".
    pub(super) fn v2c_push(&mut self, l: Level, src: Option<TileId>) {
        let l1 = l.next();
        self.out.line(l, "{");
        if let Some(src) = src.filter(|&s| self.p.tile(s).is_some()) {
            self.out.line(l1, "pipe_barrier(PIPE_ALL);");
            self.store_to_slot(l1, src, Slot::ToCube);
        }
        self.out.line(
            l1,
            &format!(
                "ffts_cross_core_sync(PIPE_MTE3, 0x{:x}); // ready for the cube",
                cross_core_config(FLAG_V2C_READY)
            ),
        );
        self.out.line(
            l1,
            &format!("wait_flag_dev({FLAG_V2C_FREE}); // the cube read the slot"),
        );
        self.out.line(l1, "pipe_barrier(PIPE_ALL);");
        self.out.line(l, "}");
    }

    /// The cube half: waits for "ready", loads the slot into Mat tile `dst` with the
    /// extents the vector core wrote, and signals "free" once the load is done.
    pub(super) fn v2c_pop(&mut self, l: Level, dst: TileId, src: TileId) {
        if self.p.tile(src).is_none() || self.p.tile(dst).is_none() {
            return;
        }
        let l1 = l.next();
        self.out.line(l, "{");
        self.out.line(
            l1,
            &format!("wait_flag_dev({FLAG_V2C_READY}); // the vector cores filled the slot"),
        );
        self.load_from_slot(l1, dst, src, Slot::ToCube);
        self.out.line(
            l1,
            &format!(
                "ffts_cross_core_sync(PIPE_MTE2, 0x{:x}); // free",
                cross_core_config(FLAG_V2C_FREE)
            ),
        );
        self.out.line(l1, "pipe_barrier(PIPE_ALL);");
        self.out.line(l, "}");
    }
}
