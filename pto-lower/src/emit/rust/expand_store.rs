//! A broadcast written into its store ([`Inst::ExpandStore`](crate::isa::Inst), marked by
//! `lower/expand_store.rs`): one `trowexpand_store` / `tcolexpand_store` call (`_inplace` when the
//! op reads its destination) in place of the op and the `tstore`, with the op's element
//! function as a closure:
//! `trowexpand_store_inplace(out, [r, 0], t0, t1, move |__a: f32, __b: f32| -> f32 { Element::div(__a, __b) })?;`

use pto_ir::DataType;
use pto_ir::sem::ElementTrait;

use super::{Import, Writer};
use crate::isa::{Arg, ExpandStore, TileRef};
use crate::lower::expand_store::expand_fn;

impl<'a> Writer<'a> {
    /// Writes the call for a marked broadcast and store.
    pub(super) fn put_expand_store(&mut self, e: &ExpandStore) {
        let (isa, dst, args) = &e.op;
        let (Some(((tr, f), row)), [Arg::Tile(TileRef::Slot(a)), Arg::Tile(TileRef::Slot(b))]) =
            (expand_fn(*isa), args.as_slice())
        else {
            // Not marked (`lower/expand_store.rs`).
            return;
        };
        let inplace = a == dst;
        let name = if row {
            "trowexpand_store"
        } else {
            "tcolexpand_store"
        };
        self.put_isa(name, if inplace { "_inplace" } else { "" });
        self.put("(");
        let (tensor, offsets) = &e.store;
        self.put_store_tensor(*tensor);
        self.put_transfer_args(offsets, &[0, 0]);
        self.put(", ");
        self.put_tile(*dst);
        if !inplace {
            self.put(", ");
            self.put_tile(*a);
        }
        self.put(", ");
        self.put_tile(*b);
        let dtype = self.p.tile(*dst).map_or(DataType::Fp32, |s| s.dtype);
        let ty = self.rust_ty(dtype);
        let tr = match tr {
            ElementTrait::Element => Import::Element,
            ElementTrait::Float => Import::Float,
            ElementTrait::Int => Import::Int,
        };
        self.import(tr);
        self.put(", move | __a: ");
        self.put(ty);
        self.put(", __b: ");
        self.put(ty);
        self.put(" | -> ");
        self.put(ty);
        self.put(" { ");
        self.put(tr.name());
        self.put("::");
        self.put(f);
        self.put("(__a, __b) }) ? ; ");
    }
}
