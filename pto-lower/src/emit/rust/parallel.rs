//! A `parallel` loop shown independent (`lower/parallel.rs`), run on all cores with rayon
//! through `pto::par::for_range`.
//!
//! ```text
//! { let x = &*x; let out = ::pto::par::Locked::new(&mut *out); let t2 = &*t2;
//!   ::pto::par::for_range(&mut __pto_meter, lb, ub, step,
//!       || (Tile::<f32, 8, 1024>::zeros(), ..),
//!       |__pto_tiles, __pto_meter, __pto_i| { let (t0, ..) = __pto_tiles; let i: i64 = __pto_i as i64;
//!           .. tstore(&mut *out.lock(), t0, [i, 0])?; .. Ok(()) })?; }
//! ```
//!
//! No `unsafe` and no data race by construction: each worker gets its own copy of the tile
//! slots the body writes (made once per rayon job by the `init` closure, not per iteration);
//! slots the body only reads and tensors it only loads are shared as `&`; a tensor it stores
//! to is behind a mutex, taken for the length of one `tstore` (the lowering proved the store
//! windows of different iterations disjoint, so the order of the stores does not matter).

use pto_ir::{DataType, ValueId};

use super::{Import, Writer};
use crate::isa::{Inst, TileId};
use crate::lower::slot_use;

impl<'a> Writer<'a> {
    /// Writes the parallel loop over `iv`.
    pub(super) fn put_parallel_loop(
        &mut self,
        iv: ValueId,
        [lb, ub, step]: [ValueId; 3],
        body: &[Inst],
    ) {
        let (written, live_in) = slot_use(body);
        let mut loads = Vec::new();
        let mut stores = Vec::new();
        tensors(body, &mut loads, &mut stores);
        self.put("{ ");
        for &t in &loads {
            self.put("let ");
            self.put_ident(t);
            self.put(" = & * ");
            self.put_ident(t);
            self.put("; ");
        }
        for &t in &stores {
            self.put("let ");
            self.put_ident(t);
            self.put(" = ::pto::par::Locked::new(& mut * ");
            self.put_ident(t);
            self.put("); ");
        }
        for &t in &live_in {
            self.put("let ");
            self.put_tile(t);
            self.put(" = & * ");
            self.put_tile(t);
            self.put("; ");
        }
        self.put("::pto::par::for_range(& mut __pto_meter, ");
        self.put_i64(lb, true);
        self.put(", ");
        self.put_i64(ub, true);
        self.put(", ");
        self.put_i64(step, true);
        self.put(", || (");
        for &t in &written {
            self.put_tile_new(t);
            self.put(", ");
        }
        self.put("), | __pto_tiles, __pto_meter, __pto_i | { let (");
        for &t in &written {
            self.put_tile(t);
            self.put(", ");
        }
        self.put(") = __pto_tiles; #[allow(unused_variables)] let ");
        self.put_ident(iv);
        let ivt = self.dtype(iv);
        let ty = self.rust_ty(ivt);
        if ivt == DataType::Int64 {
            self.put(" = __pto_i; ");
        } else {
            self.put(": ");
            self.put(ty);
            self.put(" = __pto_i as ");
            self.put(ty);
            self.put("; ");
        }
        let outer = std::mem::replace(&mut self.locked, stores);
        let depth = self.par_depth.replace(0);
        self.put_insts(body);
        self.par_depth = depth;
        self.locked = outer;
        self.put("::core::result::Result::Ok(()) }) ? ; } ");
    }

    /// `Tile::<T, R, C>::zeros()` for slot `t`.
    fn put_tile_new(&mut self, t: TileId) {
        let Some(s) = self.p.tile(t) else { return };
        let (dtype, rows, cols) = (s.dtype, s.rows, s.cols);
        let ty = self.rust_ty(dtype);
        self.import(Import::Tile);
        self.put("Tile:: < ");
        self.put(ty);
        let _ =
            std::fmt::Write::write_fmt(&mut self.out, format_args!(", {rows}, {cols}> ::zeros()"));
    }

    /// Writes tensor `t` as the destination of a store: the parameter, or inside a parallel
    /// loop the locked tensor.
    pub(super) fn put_store_tensor(&mut self, t: ValueId) {
        if self.locked.contains(&t) {
            self.put("& mut * ");
            self.put_ident(t);
            self.put(".lock()");
        } else {
            self.put_ident(t);
        }
    }

    /// Per tile slot, whether it is used only inside parallel loops that write it (each of
    /// which declares its own): no declaration at the top of the body then.
    pub(super) fn private_slots(body: &[Inst], tile_uses: &[usize]) -> Vec<bool> {
        let mut inside = vec![0usize; tile_uses.len()];
        private_uses(body, &mut inside);
        inside
            .iter()
            .zip(tile_uses)
            .map(|(i, all)| *i > 0 && i == all)
            .collect()
    }
}

/// Adds to `out[t]` the uses of slot `t` inside the parallel loops of `insts` that write it.
fn private_uses(insts: &[Inst], out: &mut [usize]) {
    for i in insts {
        match i {
            Inst::For {
                body,
                exec: crate::isa::LoopExec::Parallel { .. },
                ..
            } => {
                let (written, _) = slot_use(body);
                let mut counts = vec![0usize; out.len()];
                crate::isa::count_tile_uses(body, &mut counts);
                for t in written {
                    if let (Some(o), Some(c)) =
                        (out.get_mut(t.0 as usize), counts.get(t.0 as usize))
                    {
                        *o += c;
                    }
                }
            }
            Inst::For { body, .. } => private_uses(body, out),
            Inst::While { cond, body, .. } => {
                private_uses(cond, out);
                private_uses(body, out);
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                private_uses(then_body, out);
                private_uses(else_body, out);
            }
            _ => {}
        }
    }
}

/// The tensors `insts` load from and store to, each once.
fn tensors(insts: &[Inst], loads: &mut Vec<ValueId>, stores: &mut Vec<ValueId>) {
    for i in insts {
        match i {
            Inst::Load { tensor, .. } if !loads.contains(tensor) => loads.push(*tensor),
            Inst::Store { tensor, .. } if !stores.contains(tensor) => stores.push(*tensor),
            Inst::For { body, .. } => tensors(body, loads, stores),
            Inst::While { cond, body, .. } => {
                tensors(cond, loads, stores);
                tensors(body, loads, stores);
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                tensors(then_body, loads, stores);
                tensors(else_body, loads, stores);
            }
            _ => {}
        }
    }
}
