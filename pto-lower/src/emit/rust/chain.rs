//! An elementwise chain the `fuse-chains` step marked ([`Inst::Fused`](crate::isa::Inst)),
//! written as one `tload_map_store` call (a `for` loop whose body is one: one
//! `tload_map_store_loop` call).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use pto_ir::{Constant, DataType, ValueId};

use super::{Writer, braced};
use crate::isa::{Arg, Chain, Index, TileRef};
use crate::lower::fuse::element_fn;

impl<'a> Writer<'a> {
    /// A marked chain: in a loop call when it runs over a loop. The runtime runs the whole
    /// loop in one call: the meter charges its iterations up front, and over empty tensors
    /// ends it after the first (the others do nothing).
    pub(super) fn fused(&mut self, c: &Chain) -> TokenStream {
        let Some(l) = c.over else {
            return self.chain(c);
        };
        let mut touched: Vec<ValueId> = c.loads.iter().map(|l| l.1).collect();
        touched.push(c.store.0);
        let empty = self.all_empty(&touched);
        let (lb, ub) = (self.i64(l.lb, true), self.i64(l.ub, true));
        let step = Literal::i64_unsuffixed(l.step);
        let mut block = quote!(let __ub = __pto_meter.loop_end(#lb, #ub, #step, #empty)?;);
        block.extend(self.chain(c));
        let block = braced(block);
        quote!(#block)
    }

    /// The offsets of a chain's load or store: plain indices, or in a loop call
    /// `LoopIndex`es.
    fn chain_offsets(&mut self, offsets: &[Index], iv: Option<ValueId>) -> TokenStream {
        let Some(iv) = iv else {
            return self.indices(offsets);
        };
        let items: Vec<TokenStream> = offsets
            .iter()
            .map(|&o| {
                let f = self.isa("LoopIndex", "");
                if o == Index::Value(iv) {
                    quote!(#f::Iv)
                } else {
                    let i = self.index(o);
                    quote!(#f::At(#i))
                }
            })
            .collect();
        quote!([#(#items),*])
    }

    /// A chain as one `tload_map_store` / `tload2_map_store` call (the `_loop` forms over a
    /// loop) whose closure computes the stored element from the loaded ones with the chain's
    /// instructions in order.
    fn chain(&mut self, c: &Chain) -> TokenStream {
        let iv = c.over.map(|l| l.iv);
        let dtype = self.p.tile(c.store.1).map_or(DataType::Fp32, |s| s.dtype);
        let ty = self.rust_ty(dtype);
        let f = match (c.loads.len(), c.over.is_some()) {
            (1, false) => "tload_map_store",
            (_, false) => "tload2_map_store",
            (1, true) => "tload_map_store_loop",
            (_, true) => "tload2_map_store_loop",
        };
        let f = self.isa(f, "");
        let mut args = TokenStream::new();
        for (t, tensor, offsets) in &c.loads {
            let t = self.tile(*t);
            let tensor = self.ident(*tensor);
            let offsets = self.chain_offsets(offsets, iv);
            args.extend(quote!(#t, #tensor, &#offsets,));
        }
        // A `&mut Tensor` parameter, reborrowed by the call.
        let store = self.store_tensor(c.store.0);
        let offsets = self.chain_offsets(&c.store.2, iv);
        args.extend(quote!(#store, &#offsets,));
        if let Some(l) = c.over {
            let range = self.isa("LoopRange", "");
            let lb = self.i64(l.lb, true);
            // `__ub`: see `fused`.
            let step = Literal::usize_unsuffixed(l.step as usize);
            args.extend(quote!(#range { lb: #lb, ub: __ub, step: #step },));
        }
        let element = |t: crate::isa::TileId| format_ident!("__e{}", t.0);
        let inputs = c.loads.iter().map(|(t, _, _)| element(*t));
        let mut body = TokenStream::new();
        for (isa, dst, op_args) in &c.ops {
            let callee = match element_fn(*isa) {
                Some((tr, f)) => self.element_callee(tr, f),
                None => TokenStream::new(),
            };
            let op_args: Vec<TokenStream> = op_args
                .iter()
                .map(|a| match *a {
                    Arg::Tile(TileRef::Slot(t)) => {
                        let e = element(t);
                        quote!(#e)
                    }
                    // Not in a chain (`lower/fuse.rs`).
                    Arg::Tile(TileRef::Param(_)) | Arg::Cmp(_) => TokenStream::new(),
                    Arg::Scalar(v) => self.scalar_as(v, dtype, true),
                    Arg::Imm(x) => self.lit(Constant::Double(x), dtype, true),
                })
                .collect();
            let dst = element(*dst);
            body.extend(quote!(let #dst: #ty = #callee(#(#op_args),*);));
        }
        let result = element(c.store.1);
        body.extend(quote!(#result));
        let body = braced(body);
        quote!(#f(#args move |#(#inputs: #ty),*| -> #ty #body,)?;)
    }
}
