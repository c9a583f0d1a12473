//! A split kernel (`lower/split.rs`): the cube part `NAME_aic`, the vector part `NAME_aiv`
//! and the `__global__` entry that runs the part of the core it is built for, with the
//! transfer of an Acc tile to a Vec tile through the GM slot.
//!
//! pto-isa builds a mixed kernel once per core kind, defining `__DAV_CUBE__` for the AIC and
//! `__DAV_VEC__` for the AIV (`shared/spec/pto-programs.md` section A); its CPU simulation
//! defines both, and runs the cube and vector functions of a mixed kernel as threads, so
//! the entry calls a part only when exactly one macro is defined and a simulator calls
//! `NAME_aic` and `NAME_aiv` itself.

use std::fmt::Write;

use pto_ir::MemorySpace;

use crate::emit::writer::Level;
use crate::isa::TileId;
use crate::lower::split::{
    CoreSplit, FLAG_FREE, FLAG_READY, FLAG_TO_CUBE, FLAG_TO_VECTOR, FLAG_V2C_FREE, FLAG_V2C_READY,
    SLOT_HEADER,
};

use super::slot::Slot;
use super::{Kind, Part, WORKSPACE, Writer};

/// The parameter that carries the FFTS base address on the chip (the host gets it from the
/// runtime; pto-isa's mixed kernels set it first).
const FFTS: &str = "pto_ffts_addr";

/// `ffts_cross_core_sync`'s configuration word for `flag` in mode 2, the cube / vector
/// mode (pto-programs.md: `1 | mode << 4 | flag << 8`).
pub(super) fn cross_core_config(flag: u8) -> u64 {
    1 | (2 << 4) | (u64::from(flag) << 8)
}

impl Writer<'_> {
    /// The header comment of a split kernel.
    pub(super) fn put_split_head(&mut self, s: &CoreSplit) {
        let name = self.entry_name();
        if let Some(note) = crate::lower::split::inlined_note(self.p) {
            for line in note.lines() {
                let _ = writeln!(self.out.text, "// {line}");
            }
        }
        if s.workspace_bytes() == 0 && s.handoffs == 0 {
            let _ = write!(
                self.out.text,
                "// The kernel mixes cube and vector work, which A2A3 runs on separate cores: `{name}_aic`\n\
                 // is its cube part (AIC), `{name}_aiv` its vector part (AIV, subblock 0; the parts\n\
                 // exchange nothing). `{name}` runs the part of the core it is built for\n\
                 // (`__DAV_CUBE__` / `__DAV_VEC__`); a simulator that defines both runs `{name}_aic`\n\
                 // and `{name}_aiv` (once per subblock) as threads. `{name}` takes the FFTS base\n\
                 // address last (`{FFTS}`).\n"
            );
            return;
        }
        let _ = write!(
            self.out.text,
            "// The kernel mixes cube and vector work, which A2A3 runs on separate cores: `{name}_aic`\n\
             // is its cube part (AIC), `{name}_aiv` its vector part (AIV; subblock 0 does the vector\n\
             // work, subblock 1 takes part in the synchronisation only). `{name}` runs the part of\n\
             // the core it is built for (`__DAV_CUBE__` / `__DAV_VEC__`); a simulator that defines\n\
             // both runs `{name}_aic` and `{name}_aiv` (once per subblock) as threads.\n"
        );
        if s.workspace_bytes() > 0 {
            let _ = write!(
                self.out.text,
                "// {WORKSPACE}: {} bytes of global memory, the last parameter: GM slots through which\n\
                 // tiles pass between the cores (each with the tile's valid rows and columns in its\n\
                 // first {SLOT_HEADER} bytes, then the data).\n",
                s.workspace_bytes()
            );
        }
        if s.handoffs > 0 {
            let _ = write!(
                self.out.text,
                "// A tensor one part accesses and the other then reads or writes is handed off: the\n\
                 // sender waits for its pipes and signals, the receiver waits (cross-core flag\n\
                 // {FLAG_TO_VECTOR}: cube to vector, flag {FLAG_TO_CUBE}: vector to cube).\n"
            );
        }
        if s.slot_bytes > 0 {
            let _ = write!(
                self.out.text,
                "// Bytes 0..{}: a cube result on its way to the vector core, guarded by cross-core\n\
                 // flags {FLAG_READY} (ready) and {FLAG_FREE} (free).\n",
                s.slot_bytes
            );
        }
        if s.v2c_bytes > 0 {
            let _ = write!(
                self.out.text,
                "// Bytes {}..{}: a vector result on its way to the cube (A2A3 has no TMOV from a Vec\n\
                 // tile to a Mat tile), guarded by cross-core flags {FLAG_V2C_READY} (ready) and\n\
                 // {FLAG_V2C_FREE} (free).\n",
                s.slot_bytes,
                s.workspace_bytes()
            );
        }
        let _ = writeln!(
            self.out.text,
            "// `{name}` takes the FFTS base address last (`{FFTS}`)."
        );
    }

    /// The two parts and the entry.
    pub(super) fn put_split(&mut self, s: &CoreSplit) {
        let l0 = Level::default();
        let l1 = l0.next();
        let l2 = l1.next();
        self.part = Part::Cube;
        self.put_signature(Kind::Part("_aic"));
        self.put(" {\n");
        self.put_function_body(&s.cube, Some(MemorySpace::Acc));
        if s.slot_bytes > 0 {
            // The vector cores signal "free" once more than the cube waits inside its part.
            self.out.line(
                l1,
                &format!("wait_flag_dev({FLAG_FREE}); // the vector cores are done with the slot"),
            );
        }
        self.out.line(l0, "}");
        self.out.line(l0, "");
        self.part = Part::Vector;
        self.put_signature(Kind::Part("_aiv"));
        self.put(" {\n");
        if s.slot_bytes > 0 {
            self.out.line(
                l1,
                &format!(
                    "ffts_cross_core_sync(PIPE_MTE2, 0x{:x}); // the slot starts free",
                    cross_core_config(FLAG_FREE)
                ),
            );
        }
        self.out.line(l1, "if (get_subblockid() == 0) {");
        let start = self.out.text.len();
        self.put_function_body(&s.vector, Some(MemorySpace::Vec));
        // One level deeper: the body was written at level 1.
        let body = self.out.text.split_off(start);
        for line in body.lines() {
            self.out.indent(l1);
            self.put(line);
            self.put("\n");
        }
        self.out.line(l1, "} else {");
        self.part = Part::Peer;
        self.insts(&s.peer, l2);
        self.out.line(l1, "}");
        self.out.line(l0, "}");
        self.out.line(l0, "");
        self.part = Part::Whole;
        // The entry: the same parameters and the FFTS address.
        self.put_signature(Kind::Entry);
        if let Some(at) = self.out.text.rfind(')') {
            self.out.text.insert_str(at, &format!(", uint64_t {FFTS}"));
        }
        self.put(" {\n");
        self.out.line(l1, &format!("set_ffts_base_addr({FFTS});"));
        let args = self.part_args();
        let name = self.entry_name();
        self.out
            .line(l0, "#if defined(__DAV_CUBE__) && !defined(__DAV_VEC__)");
        self.out.line(l1, &format!("{name}_aic({args});"));
        self.out
            .line(l0, "#elif defined(__DAV_VEC__) && !defined(__DAV_CUBE__)");
        self.out.line(l1, &format!("{name}_aiv({args});"));
        self.out.line(l0, "#endif");
        self.out.line(l0, "}");
    }

    fn entry_name(&self) -> String {
        super::function_name(&self.m.funcs[self.p.func].name)
    }

    /// The entry's parameters as the arguments of a part.
    fn part_args(&mut self) -> String {
        let m = self.m;
        let f = &m.funcs[self.p.func];
        let mut args = Vec::new();
        for q in f
            .sig
            .params
            .iter()
            .map(|q| q.value)
            .chain(f.dims.iter().copied())
        {
            args.push(self.text(|me| me.name(q)));
        }
        for i in 0..f.sig.returns.len() {
            args.push(format!("{}{i}", super::RET));
        }
        if self.workspace > 0 {
            args.push(WORKSPACE.into());
        }
        args.join(", ")
    }

    /// The cube half of a transfer: waits until the slot is free, writes Acc tile `src`'s
    /// valid extents and data into it, and signals "ready" once the store is done (the
    /// signal is issued on the FIX pipe, behind the store).
    pub(super) fn push(&mut self, l: Level, src: TileId) {
        if self.p.tile(src).is_none() {
            return;
        }
        let l1 = l.next();
        self.out.line(l, "{");
        self.out.line(
            l1,
            &format!("wait_flag_dev({FLAG_FREE}); // the vector cores are done with the slot"),
        );
        self.out.line(l1, "pipe_barrier(PIPE_ALL);");
        self.store_to_slot(l1, src, Slot::ToVector);
        self.out.line(
            l1,
            &format!(
                "ffts_cross_core_sync(PIPE_FIX, 0x{:x}); // ready",
                cross_core_config(FLAG_READY)
            ),
        );
        self.out.line(l1, "pipe_barrier(PIPE_ALL);");
        self.out.line(l, "}");
    }

    /// The vector half of a transfer: waits for "ready", reads the extents and loads the slot
    /// into `dst` (`None`: vector core 1, which only synchronises), then signals "free" once
    /// the load is done (issued on the MTE2 pipe, behind the load).
    pub(super) fn pop(&mut self, l: Level, dst: Option<TileId>, src: TileId) {
        if self.p.tile(src).is_none() {
            return;
        }
        let l1 = l.next();
        self.out.line(l, "{");
        self.out.line(
            l1,
            &format!("wait_flag_dev({FLAG_READY}); // the cube filled the slot"),
        );
        if let Some(dst) = dst {
            self.load_from_slot(l1, dst, src, Slot::ToVector);
        }
        self.out.line(
            l1,
            &format!(
                "ffts_cross_core_sync(PIPE_MTE2, 0x{:x}); // free",
                cross_core_config(FLAG_FREE)
            ),
        );
        self.out.line(l1, "pipe_barrier(PIPE_ALL);");
        self.out.line(l, "}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cross_core_configuration_is_mode_2_with_the_flag() {
        assert_eq!(cross_core_config(FLAG_READY), 0x21);
        assert_eq!(cross_core_config(FLAG_FREE), 0x121);
        assert_eq!(cross_core_config(15), 0xf21);
    }
}
