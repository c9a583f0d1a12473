//! A `parallel` loop shown independent (`lower/parallel.rs`), run on all cores with rayon.
//!
//! When each iteration stores only to rows `[i + lo, i + lo + step)` of each tensor it
//! stores to (`lower::row_parts`), every iteration owns those rows, cut apart before the loop
//! runs, and its body is the one a sequential loop would have (loads read in place, pairs,
//! row splits: `lower/load_views.rs` and `lower/pairs.rs` mark it as any loop body):
//!
//! ```text
//! { let x = &*x; let t2 = &*t2;
//!   let __pto_parts = ::pto::par::row_parts(&mut *out, lb, ub, step, lo)?;
//!   ::pto::par::for_parts(&mut __pto_meter, lb, ub, step, __pto_parts,
//!       || (Tile::<f32, 8, 1024>::zeros(), ..),
//!       |__pto_tiles, __pto_meter, __pto_i, out| { let (t0, ..) = __pto_tiles;
//!           let i: i64 = __pto_i as i64; .. tstore(out, t0, [i, 0])?; .. Ok(()) })?; }
//! ```
//!
//! `row_parts` cuts one part per run of consecutive iterations (a few runs per thread), each
//! run going in order on one thread with its part (`out: &mut Rows`); with several stored
//! tensors the parts are zipped, `(out, y)`. Otherwise every
//! stored tensor is behind a lock taken per store, and the body's stores are plain transfers:
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
//! slots the body only reads and tensors it only loads are shared as `&`; a stored tensor's
//! rows are split with `split_at_mut` (each `&mut` part moved to one iteration, so the borrow
//! checker rules out two writers), or it is behind a mutex, taken for the length of one
//! `tstore` (the lowering proved the store windows of different iterations disjoint, so the
//! order of the stores does not matter).

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use pto_ir::{DataType, ValueId};

use super::{Import, Writer, braced};
use crate::isa::{Inst, TileId};
use crate::lower::slot_use;

impl<'a> Writer<'a> {
    /// The parallel loop over `iv`.
    pub(super) fn parallel_loop(
        &mut self,
        iv: ValueId,
        [lb, ub, step]: [ValueId; 3],
        insts: &[Inst],
        rows: Option<Vec<(ValueId, i64)>>,
    ) -> TokenStream {
        // A loop that stores nothing needs no parts.
        let rows = rows.filter(|r| !r.is_empty());
        let (written, live_in) = slot_use(insts);
        let mut loads = Vec::new();
        let mut stores = Vec::new();
        tensors(insts, &mut loads, &mut stores);
        let mut shared = TokenStream::new();
        for &t in &loads {
            let t = self.ident(t);
            shared.extend(quote!(let #t = &*#t;));
        }
        let (lbv, ubv, stepv) = (self.i64(lb, true), self.i64(ub, true), self.i64(step, true));
        // The iterations' rows of each stored tensor, zipped, and the closure's pattern for
        // one iteration's part.
        let mut parts: Option<(TokenStream, TokenStream)> = None;
        match &rows {
            Some(rows) => {
                for &(t, lo) in rows {
                    let t = self.ident(t);
                    let lo = Literal::i64_suffixed(lo);
                    let cut = quote!(::pto::par::row_parts(&mut *#t, #lbv, #ubv, #stepv, #lo)?);
                    parts = Some(match parts {
                        None => (cut, quote!(#t)),
                        Some((zipped, pat)) => (
                            quote!(::core::iter::zip(#zipped, #cut).collect::<::std::vec::Vec<_>>()),
                            quote!((#pat, #t)),
                        ),
                    });
                }
            }
            None => {
                for &t in &stores {
                    let t = self.ident(t);
                    shared.extend(quote!(let #t = ::pto::par::Locked::new(&mut *#t);));
                }
            }
        }
        let (cut, pat) = parts.unwrap_or_default();
        for &t in &live_in {
            let t = self.tile(t);
            shared.extend(quote!(let #t = &*#t;));
        }
        let (lb, ub, step) = (lbv, ubv, stepv);
        let mut inits: Vec<TokenStream> = written.iter().map(|&t| self.tile_new(t)).collect();
        let mut names: Vec<Ident> = written.iter().map(|&t| self.tile(t)).collect();
        // The one-row tiles of the body's row splits: each worker's own too.
        for (id, tile) in self.row_twins(insts, &mut Vec::new(), true) {
            names.push(id);
            inits.push(tile);
        }
        let ivt = self.dtype(iv);
        let iv = self.ident(iv);
        let ty = self.rust_ty(ivt);
        let iv = if ivt == DataType::Int64 {
            quote!(let #iv = __pto_i;)
        } else {
            quote!(let #iv: #ty = __pto_i as #ty;)
        };
        let locked = if rows.is_some() { Vec::new() } else { stores };
        let outer = std::mem::replace(&mut self.locked, locked);
        let depth = self.par_depth.replace(0);
        let mut body = quote! {
            let (#(#names,)*) = __pto_tiles;
            #[allow(unused_variables)] #iv
        };
        body.extend(self.insts(insts));
        body.extend(quote!(::core::result::Result::Ok(())));
        let body = braced(body);
        self.par_depth = depth;
        self.locked = outer;
        let mut block = shared;
        match rows {
            Some(_) => {
                block.extend(quote! {
                    let __pto_parts = #cut;
                    ::pto::par::for_parts(&mut __pto_meter, #lb, #ub, #step, __pto_parts,
                        || (#(#inits,)*), |__pto_tiles, __pto_meter, __pto_i, #pat| #body)?;
                });
            }
            None => block.extend(quote! {
                ::pto::par::for_range(&mut __pto_meter, #lb, #ub, #step, || (#(#inits,)*),
                    |__pto_tiles, __pto_meter, __pto_i| #body)?;
            }),
        }
        let block = braced(block);
        quote!(#block)
    }

    /// `Tile::<T, R, C>::zeros()` for slot `t`.
    fn tile_new(&mut self, t: TileId) -> TokenStream {
        let Some(s) = self.p.tile(t) else {
            return TokenStream::new();
        };
        let (rows, cols) = (
            Literal::u64_unsuffixed(s.rows),
            Literal::u64_unsuffixed(s.cols),
        );
        let ty = self.rust_ty(s.dtype);
        self.import(Import::Tile);
        quote!(Tile::<#ty, #rows, #cols>::zeros())
    }

    /// Tensor `t` as the destination of a store: the parameter, or inside a parallel loop
    /// the locked tensor.
    pub(super) fn store_tensor(&mut self, t: ValueId) -> TokenStream {
        let id = self.ident(t);
        if self.locked.contains(&t) {
            quote!(&mut *#id.lock())
        } else {
            quote!(#id)
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
