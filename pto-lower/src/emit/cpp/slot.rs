//! The GM slots of a split A2A3 kernel's workspace (`lower/split.rs`): how a tile goes into
//! a slot and comes out of it, the same for both directions. A slot holds the tile's valid
//! rows and columns in its first [`SLOT_HEADER`] bytes, then the data; the receiving core
//! cannot compute the extents, they depend on the sending core's tiles.

use crate::emit::writer::Level;
use crate::isa::{TileId, TileRef};
use crate::lower::split::{Route, SLOT_HEADER};

use super::{WORKSPACE, Writer, cpp_dtype, put_tile_type_valid};

/// One of the two slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Slot {
    /// A cube result on its way to the vector core: at the start of the workspace.
    ToVector,
    /// A vector result on its way to the cube: after the first slot.
    ToCube,
}

impl Writer<'_> {
    /// Where `slot` starts in the workspace.
    fn slot_at(&self, slot: Slot) -> u64 {
        match (slot, &self.p.route) {
            (Slot::ToCube, Route::Split(s)) => s.slot_bytes,
            _ => 0,
        }
    }

    /// The line that points `hdr` at `slot`'s header.
    fn slot_header(&mut self, l: Level, slot: Slot) {
        let at = match slot {
            Slot::ToVector => String::new(),
            Slot::ToCube => format!(" + {}", self.slot_at(slot)),
        };
        self.out.line(
            l,
            &format!(
                "volatile __gm__ int64_t* hdr = reinterpret_cast<volatile __gm__ int64_t*>({WORKSPACE}{at});"
            ),
        );
    }

    /// Writes tile `src`'s valid extents into `slot`'s header (through the scalar unit,
    /// written back from its data cache: `dcci`, then `dsb` orders it before what follows)
    /// and its valid region into the slot's data (`TSTORE` through a view of the tile with
    /// exactly that region).
    pub(super) fn store_to_slot(&mut self, l: Level, src: TileId, slot: Slot) {
        let Some(from) = self.p.tile(src).cloned() else {
            return;
        };
        let (r, c) = (
            self.vdim(TileRef::Slot(src), 0),
            self.vdim(TileRef::Slot(src), 1),
        );
        self.out
            .line(l, &format!("const int64_t r0 = {r}, c0 = {c};"));
        self.slot_header(l, slot);
        self.out.line(l, "hdr[0] = r0;");
        self.out.line(l, "hdr[1] = c0;");
        self.out.line(
            l,
            "dcci(reinterpret_cast<__gm__ void*>(const_cast<__gm__ int64_t*>(hdr)), cache_line_t::SINGLE_CACHE_LINE);",
        );
        self.out.line(l, "dsb(DSB_DDR);");
        self.out.indent(l);
        let a5 = self.a5();
        put_tile_type_valid(&mut self.out, &from, [None, None], a5);
        self.put(" sv(r0, c0);\n");
        self.out.indent(l);
        self.put("TASSIGN(sv, 0x");
        self.put(&format!("{:x}", from.addr));
        self.put(");\n");
        let at = self.slot_at(slot);
        let id = self.slot_view(l, cpp_dtype(from.dtype), from.cols, at);
        self.out.line(l, &format!("TSTORE(gt{id}, sv);"));
    }

    /// Reads the extents from `slot`'s header (dropping the scalar unit's cached copy
    /// first) and loads the slot into `dst` with that valid region; `src` is the sending
    /// core's tile, whose type the data has.
    pub(super) fn load_from_slot(&mut self, l: Level, dst: TileId, src: TileId, slot: Slot) {
        let (Some(from), Some(to)) = (self.p.tile(src).cloned(), self.p.tile(dst).cloned()) else {
            return;
        };
        self.slot_header(l, slot);
        self.out.line(
            l,
            "dcci(reinterpret_cast<__gm__ void*>(const_cast<__gm__ int64_t*>(hdr)), cache_line_t::SINGLE_CACHE_LINE);",
        );
        self.out.line(l, "const int64_t r0 = hdr[0], c0 = hdr[1];");
        self.out.line(l, "pipe_barrier(PIPE_ALL);");
        self.set_region(l, dst, "r0", "c0");
        let at = self.slot_at(slot);
        let id = self.slot_view(l, cpp_dtype(from.dtype), from.cols, at);
        self.out.line(l, &format!("TLOAD({}, gt{id});", to.name));
    }

    /// Declares `gtN`, the data of the slot `at` bytes into the workspace as an `r0 x c0`
    /// tensor with rows of `cols` elements.
    pub(super) fn slot_view(&mut self, l: Level, ty: &str, cols: u64, at: u64) -> u32 {
        let id = self.next_gt;
        self.next_gt += 1;
        self.out.line(
            l,
            &format!(
                "using GT{id} = GlobalTensor<{ty}, Shape<1, 1, 1, DYNAMIC, DYNAMIC>, Stride<1, 1, 1, {cols}, 1>>;"
            ),
        );
        self.out.line(
            l,
            &format!(
                "GT{id} gt{id}(reinterpret_cast<__gm__ {ty}*>({WORKSPACE} + {}), {{r0, c0}});",
                at + SLOT_HEADER
            ),
        );
        id
    }
}
