//! Loads read in place whose instructions run one row at a time (`lower/row_split.rs`):
//!
//! ```text
//! if tload_view(t0, x, [r, 0]).is_some_and(|__v| __v.valid() == (8, 1024))
//!     && window_fits(out, [r, 0], 8, 1024)
//! {
//!     for __row in 0..8i64 {
//!         // the span as below, on `__row_t0: Tile<f32, 1, 1024>` ..., at
//!         // `[i64::wrapping_add(r, __row), 0]`
//!     }
//! } else {
//!     // the span on the whole tiles
//! }
//! ```
//!
//! The one-row tiles are declared once at the top of the body, beside the others
//! ([`Writer::row_tiles`]).

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::{Import, Writer};
use crate::isa::{Inst, LoadView, RowSplit, TileId};

impl Writer<'_> {
    /// A view's span and the `more` instructions after it, row by row when the view has a
    /// [`RowSplit`] and its windows are whole, else on the whole tiles.
    pub(super) fn load_view_rows(
        &mut self,
        v: &LoadView,
        span: &[Inst],
        more: &[Inst],
    ) -> TokenStream {
        let mut whole = self.load_view(v, span);
        whole.extend(self.insts(more));
        let Some(split) = &v.rows else {
            return whole;
        };
        let cond = self.whole_windows(v, split);
        // The split tiles named as their one-row twins, the transfers moved down by the row.
        let saved: Vec<(TileId, Ident)> = split.tiles.iter().map(|&t| (t, self.tile(t))).collect();
        for (t, id) in &saved {
            if let Some(slot) = self.tiles.get_mut(t.0 as usize) {
                *slot = row_twin(id);
            }
        }
        let row = format_ident!("__row");
        let outer = self.row.replace(row.clone());
        let kept = split.kept.as_ref().map(|(t, x, offsets)| {
            let flag = format_ident!("__kept_{}", self.tile(*t));
            (*t, flag, *x, offsets.clone())
        });
        let mut by_row = match &kept {
            Some((_, flag, _, _)) => quote!(let mut #flag = false;),
            None => TokenStream::new(),
        };
        let outer_kept = std::mem::replace(&mut self.kept, kept);
        by_row.extend(self.load_view(v, span));
        by_row.extend(self.insts(more));
        self.kept = outer_kept;
        self.row = outer;
        for (t, id) in saved {
            if let Some(slot) = self.tiles.get_mut(t.0 as usize) {
                *slot = id;
            }
        }
        let rows = self.p.tile(v.tile).map_or(1, |s| s.rows);
        let rows = Literal::i64_suffixed(i64::try_from(rows).unwrap_or(i64::MAX));
        quote! {
            if #cond {
                for #row in 0..#rows { #by_row }
            } else {
                #whole
            }
        }
    }

    /// The test that the view's window and each stored window are whole: all the tile's
    /// rows and columns, inside the tensor (then no row of the split is cut short).
    fn whole_windows(&mut self, v: &LoadView, split: &RowSplit) -> TokenStream {
        let call = self.isa("tload_view", "");
        let t = self.tile(v.tile);
        let x = self.ident(v.tensor);
        let offsets = self.transfer_args(&v.offsets, &[]);
        let (rows, cols) = self.p.tile(v.tile).map_or((0, 0), |s| (s.rows, s.cols));
        let (r, c) = (lit(rows), lit(cols));
        let mut cond = quote!(#call(#t, #x #offsets).is_some_and(|__v| __v.valid() == (#r, #c)));
        let fits = self.isa("window_fits", "");
        for (tensor, offsets, tile) in &split.stores {
            let x = self.ident(*tensor);
            let offsets = self.transfer_args(offsets, &[]);
            let (rows, cols) = self.p.tile(*tile).map_or((0, 0), |s| (s.rows, s.cols));
            let (r, c) = (lit(rows), lit(cols));
            cond.extend(quote!(&& #fits(#x #offsets, #r, #c)));
        }
        cond
    }

    /// `let __row_t0 = &mut Tile::<f32, 1, 1024>::zeros();` for each tile some view splits
    /// by rows (once, however many split it), outside parallel loops (each of which makes
    /// its own per worker, [`Writer::row_twins`]).
    pub(super) fn row_tiles(&mut self, insts: &[Inst], done: &mut Vec<TileId>) -> TokenStream {
        let mut out = TokenStream::new();
        for (id, tile) in self.row_twins(insts, done, false) {
            out.extend(quote!(let #id = &mut #tile;));
        }
        out
    }

    /// The one-row twins of the tiles the views of `insts` split by rows, each once, with
    /// the `Tile::<T, 1, C>::zeros()` that makes it; those inside parallel loops too when
    /// `in_parallel`.
    pub(super) fn row_twins(
        &mut self,
        insts: &[Inst],
        done: &mut Vec<TileId>,
        in_parallel: bool,
    ) -> Vec<(Ident, TokenStream)> {
        let mut out = Vec::new();
        for i in insts {
            match i {
                Inst::LoadView(v) => {
                    for &t in v.rows.iter().flat_map(|r| &r.tiles) {
                        let Some(s) = self.p.tile(t) else {
                            continue;
                        };
                        if done.contains(&t) {
                            continue;
                        }
                        done.push(t);
                        let ty = if s.dtype == pto_ir::DataType::Bool {
                            quote!(u8)
                        } else {
                            self.rust_ty(s.dtype)
                        };
                        self.import(Import::Tile);
                        let id = row_twin(&self.tile(t));
                        let cols = lit(s.cols);
                        out.push((id, quote!(Tile::<#ty, 1, #cols>::zeros())));
                    }
                }
                Inst::For {
                    exec: crate::isa::LoopExec::Parallel { .. },
                    ..
                } if !in_parallel => {}
                Inst::For { body, .. } => out.extend(self.row_twins(body, done, in_parallel)),
                Inst::While { cond, body, .. } => {
                    out.extend(self.row_twins(cond, done, in_parallel));
                    out.extend(self.row_twins(body, done, in_parallel));
                }
                Inst::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    out.extend(self.row_twins(then_body, done, in_parallel));
                    out.extend(self.row_twins(else_body, done, in_parallel));
                }
                _ => {}
            }
        }
        out
    }
}

/// The one-row twin of tile `id`: `__row_t0`.
fn row_twin(id: &Ident) -> Ident {
    format_ident!("__row_{}", id)
}

fn lit(n: u64) -> Literal {
    Literal::usize_unsuffixed(usize::try_from(n).unwrap_or(usize::MAX))
}
