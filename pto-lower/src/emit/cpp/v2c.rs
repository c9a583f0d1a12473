//! The vector-to-cube transfer of a split A2A3 kernel (`lower/split.rs`): a `TMOV` from a
//! Vec tile to a Mat tile, which A2A3 has no instruction for, goes through the second GM
//! slot of the workspace (after the cube-to-vector one). Vector core 0 writes the tile's
//! valid extents and data into the slot and signals "ready"; the cube waits for it (in the
//! cube / vector mode a cube wait ends once both vector cores signalled, so vector core 1
//! signals too), loads the slot into the Mat tile and signals "free"; each vector core waits
//! for "free" right after its "ready", so the slot is never overwritten before the cube
//! read it and every signal is consumed where it is given.

use crate::emit::writer::Level;
use crate::isa::{TileId, TileRef};
use crate::lower::split::{FLAG_V2C_FREE, FLAG_V2C_READY, Route};

use super::cores::cross_core_config;
use super::{WORKSPACE, Writer, cpp_dtype, put_tile_type_valid};

impl Writer<'_> {
    /// Where the vector-to-cube slot starts in the workspace: after the cube-to-vector one.
    fn v2c_at(&self) -> u64 {
        match &self.p.route {
            Route::Split(s) => s.slot_bytes,
            _ => 0,
        }
    }

    /// Lines that point `hdr` at the slot's header.
    fn v2c_header(&mut self, l: Level) {
        let at = self.v2c_at();
        self.out.line(
            l,
            &format!(
                "volatile __gm__ int64_t* hdr = reinterpret_cast<volatile __gm__ int64_t*>({WORKSPACE} + {at});"
            ),
        );
    }

    /// The vector half: Vec tile `src` into the slot (`None`: vector core 1, which only
    /// synchronises), "ready", then the wait for "free".
    pub(super) fn v2c_push(&mut self, l: Level, src: Option<TileId>) {
        let l1 = l.next();
        self.out.line(l, "{");
        if let Some((src, from)) = src.and_then(|s| self.p.tile(s).cloned().map(|t| (s, t))) {
            self.out.line(l1, "pipe_barrier(PIPE_ALL);");
            let (r, c) = (
                self.vdim(TileRef::Slot(src), 0),
                self.vdim(TileRef::Slot(src), 1),
            );
            self.out
                .line(l1, &format!("const int64_t r0 = {r}, c0 = {c};"));
            // The extents through the scalar unit, written back from its data cache.
            self.v2c_header(l1);
            self.out.line(l1, "hdr[0] = r0;");
            self.out.line(l1, "hdr[1] = c0;");
            self.out.line(
                l1,
                "dcci(reinterpret_cast<__gm__ void*>(const_cast<__gm__ int64_t*>(hdr)), cache_line_t::SINGLE_CACHE_LINE);",
            );
            self.out.line(l1, "dsb(DSB_DDR);");
            self.out.indent(l1);
            let a5 = self.a5();
            put_tile_type_valid(&mut self.out, &from, [None, None], a5);
            self.put(" sv(r0, c0);\n");
            self.out.indent(l1);
            self.put("TASSIGN(sv, 0x");
            self.put(&format!("{:x}", from.addr));
            self.put(");\n");
            let at = self.v2c_at();
            let id = self.slot_view(l1, cpp_dtype(from.dtype), from.cols, at);
            self.out.line(l1, &format!("TSTORE(gt{id}, sv);"));
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
        let (Some(from), Some(to)) = (self.p.tile(src).cloned(), self.p.tile(dst).cloned()) else {
            return;
        };
        let l1 = l.next();
        self.out.line(l, "{");
        self.out.line(
            l1,
            &format!("wait_flag_dev({FLAG_V2C_READY}); // the vector cores filled the slot"),
        );
        self.v2c_header(l1);
        self.out.line(
            l1,
            "dcci(reinterpret_cast<__gm__ void*>(const_cast<__gm__ int64_t*>(hdr)), cache_line_t::SINGLE_CACHE_LINE);",
        );
        self.out.line(l1, "const int64_t r0 = hdr[0], c0 = hdr[1];");
        self.out.line(l1, "pipe_barrier(PIPE_ALL);");
        self.set_region(l1, dst, "r0", "c0");
        let at = self.v2c_at();
        let id = self.slot_view(l1, cpp_dtype(from.dtype), from.cols, at);
        self.out.line(l1, &format!("TLOAD({}, gt{id});", to.name));
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
