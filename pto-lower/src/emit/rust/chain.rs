//! Elementwise-chain fusion in the host code: a `TLOAD`s -> elementwise -> `TSTORE` run (and
//! a `for` loop whose body is one) written as one `tload_map_store` call.

use std::fmt::Write;

use pto_ir::ops::{OPS, OpClass};
use pto_ir::sem::{ElementTrait, Sem};
use pto_ir::{Constant, DataType, ValueId};

use super::{Import, Writer, is_sync};
use crate::isa::{Arg, Index, Inst, Isa, TileId, TileRef};

/// A `TLOAD`s -> elementwise instructions -> `TSTORE` run the host code fuses into one pass
/// (`pto::isa::tload_map_store`); see `Writer::chain_at`.
pub(super) struct Chain<'i> {
    /// (tile, tensor, offsets) of each load, in order.
    loads: Vec<(TileId, ValueId, &'i [Index])>,
    /// The elementwise instructions, in order.
    ops: Vec<(Isa, TileId, &'i [Arg])>,
    /// (tensor, tile, offsets) of the store.
    store: (ValueId, TileId, &'i [Index]),
    /// Instructions the chain spans, syncs included.
    pub(super) len: usize,
}

/// The `for` loop a [`Chain`] call runs (see `Writer::put_chain_loop`): loop variable,
/// bounds and constant positive step.
#[derive(Clone, Copy)]
pub(super) struct ChainLoop {
    iv: ValueId,
    lb: ValueId,
    step: i64,
}

/// The trait and function (`(Import::Element, "add")`, emitted as `Element::add`) of the
/// element operation an elementwise instruction applies, operands in the instruction's
/// order; `None` for the others.
fn elementwise_name(isa: Isa) -> Option<(Import, &'static str)> {
    // The meaning of the op table's row whose tile-tile / tile-scalar (or unary) form `isa` is.
    let sem = OPS.iter().find_map(|r| {
        let forms = match r.class {
            OpClass::TileBinary | OpClass::TileBitwise => 2,
            OpClass::TileUnary | OpClass::TileUnaryFloat | OpClass::TileNot => 1,
            _ => 0,
        };
        r.isa.get(..forms)?.contains(&isa).then_some(r.sem)
    })?;
    let (t, name) = match sem {
        Sem::Binary(k) => k.runtime_fn(),
        Sem::Unary(k) => k.runtime_fn(),
        _ => return None,
    };
    let t = match t {
        ElementTrait::Element => Import::Element,
        ElementTrait::Float => Import::Float,
        ElementTrait::Int => Import::Int,
    };
    Some((t, name))
}

impl<'a> Writer<'a> {
    /// The fusable chain starting at `insts[0]`, if there is one: one or two `TLOAD`s of
    /// rank-1/2 windows, elementwise instructions over the loaded tiles only, and a `TSTORE`
    /// of a tile every load flows into, to a tensor none of the loads reads; every tile of the
    /// chain has one shape and dtype and is named by no instruction outside it (so nothing
    /// observes the tiles, which the fused call does not write). Sync instructions inside the
    /// chain (no-ops on the CPU) are dropped.
    pub(super) fn chain_at<'i>(&self, insts: &'i [Inst]) -> Option<Chain<'i>> {
        let load = |i: &'i Inst| match i {
            Inst::Load {
                dst,
                tensor,
                offsets,
                window,
            } if window.len() <= 2 => Some((*dst, *tensor, offsets.as_slice())),
            _ => None,
        };
        // The loads, and the instruction after them, before anything is collected: most
        // loads start no chain (the next instruction is no elementwise one or store), and
        // this is asked at every instruction.
        let mut at = 0;
        let mut n_loads = 0;
        while let Some(i) = insts.get(at) {
            if n_loads < 2 && load(i).is_some() {
                n_loads += 1;
            } else if !(is_sync(i) && n_loads > 0) {
                break;
            }
            at += 1;
        }
        match insts.get(at) {
            _ if n_loads == 0 => return None,
            Some(Inst::Op { isa, .. }) if elementwise_name(*isa).is_some() => {}
            Some(Inst::Store { .. }) => {}
            _ => return None,
        }
        let loads: Vec<_> = insts.get(..at)?.iter().filter_map(load).collect();
        let first = loads.first()?.0;
        let shape = self.p.tile(first).map(|s| (s.dtype, s.rows, s.cols))?;
        let same = |t: TileId| self.p.tile(t).map(|s| (s.dtype, s.rows, s.cols)) == Some(shape);
        // Tile -> the set of loads (bit i: load i) its current value depends on; one entry per
        // tile (a chain names a few), updated when the chain writes the tile again.
        let mut defined: Vec<(TileId, u32)> = Vec::new();
        for (k, &(t, _, _)) in loads.iter().enumerate() {
            if defined.iter().any(|&(d, _)| d == t) || !same(t) {
                return None;
            }
            defined.push((t, 1 << k));
        }
        let mask_of = |defined: &[(TileId, u32)], t: TileId| {
            defined.iter().find(|&&(d, _)| d == t).map(|&(_, m)| m)
        };
        let mut ops = Vec::new();
        // Tile -> how many instructions of the chain name it (a chain names a few tiles).
        let mut uses: Vec<(TileId, usize)> = Vec::new();
        let mut use_tile = |t: TileId| match uses.iter_mut().find(|(u, _)| *u == t) {
            Some((_, n)) => *n += 1,
            None => uses.push((t, 1)),
        };
        for &(t, _, _) in &loads {
            use_tile(t);
        }
        let store = loop {
            match insts.get(at)? {
                Inst::Op { isa, dst, args } if elementwise_name(*isa).is_some() && same(*dst) => {
                    let mut mask = 0;
                    let mut tiles = 0;
                    for a in args {
                        match a {
                            Arg::Tile(TileRef::Slot(t)) => {
                                mask |= mask_of(&defined, *t)?;
                                tiles += 1;
                                use_tile(*t);
                            }
                            Arg::Tile(TileRef::Param(_)) => return None,
                            Arg::Scalar(_) | Arg::Imm(_) => {}
                            Arg::Cmp(_) => return None,
                        }
                    }
                    let arity_ok = match args.len() {
                        1 => isa.is_unary() && tiles == 1,
                        2 if isa.is_binary() => tiles == 2,
                        2 => isa.is_scalar_form() && tiles == 1,
                        _ => false,
                    };
                    if !arity_ok {
                        return None;
                    }
                    use_tile(*dst);
                    match defined.iter_mut().find(|(d, _)| d == dst) {
                        Some(e) => e.1 = mask,
                        None => defined.push((*dst, mask)),
                    }
                    ops.push((*isa, *dst, args.as_slice()));
                }
                i if is_sync(i) => {}
                Inst::Store {
                    tensor,
                    add: false,
                    src: TileRef::Slot(t),
                    offsets,
                    window,
                } if window.len() <= 2 => {
                    use_tile(*t);
                    let all = (1u32 << loads.len()) - 1;
                    if mask_of(&defined, *t)? != all || loads.iter().any(|l| l.1 == *tensor) {
                        return None;
                    }
                    break (*tensor, *t, offsets.as_slice());
                }
                _ => return None,
            }
            at += 1;
        };
        if uses
            .iter()
            .any(|&(t, n)| self.tile_uses.get(t.0 as usize).copied().unwrap_or(0) != n)
        {
            return None;
        }
        // The fused form computes over the region the loads share; an accumulating op
        // (`TADD` ...) covers both loads' regions instead, so two loads whose regions may
        // differ (other tensor extents or offsets) stay unfused.
        if let [(_, ta, oa), (_, tb, ob)] = loads.as_slice() {
            let shape = |t: ValueId| {
                self.p.module.values[t]
                    .ty
                    .as_tensor()
                    .map(|t| t.shape.clone())
            };
            let same_region = oa == ob && shape(*ta) == shape(*tb);
            if !same_region && ops.iter().any(|(isa, _, _)| isa.partial_form().is_some()) {
                return None;
            }
        }
        Some(Chain {
            loads,
            ops,
            store,
            len: at + 1,
        })
    }

    /// Writes a `for` loop whose body is one [`Chain`] (and sync instructions, no-ops on the
    /// CPU) as one `tload_map_store_loop` / `tload2_map_store_loop` call, which checks the
    /// window geometry once for the whole loop: when the loop variable is an `i64` with a
    /// constant positive step, the loop carries nothing, and the chain uses the variable only
    /// as whole offset dimensions (everything else it names is defined before the loop).
    /// Writes nothing and returns false otherwise.
    pub(super) fn put_chain_loop(
        &mut self,
        iv: ValueId,
        lb: ValueId,
        ub: ValueId,
        step: ValueId,
        body: &[Inst],
    ) -> bool {
        if self.dtype(iv) != DataType::Int64 {
            return false;
        }
        let Some(step) = self.m.values[step]
            .constant
            .map(|c| c.as_i64())
            .filter(|&k| k > 0)
        else {
            return false;
        };
        let Some(at) = body.iter().position(|i| !is_sync(i)) else {
            return false;
        };
        let Some(chain) = self.chain_at(body.get(at..).unwrap_or_default()) else {
            return false;
        };
        let names_iv = |args: &[Arg]| args.contains(&Arg::Scalar(iv));
        if !body.iter().skip(at + chain.len).all(is_sync)
            || chain.ops.iter().any(|&(_, _, args)| names_iv(args))
        {
            return false;
        }
        // The runtime runs the whole loop in one call: the meter charges its iterations up
        // front, and over empty tensors ends it after the first (the others do nothing).
        let mut touched: Vec<ValueId> = chain.loads.iter().map(|l| l.1).collect();
        touched.push(chain.store.0);
        let empty = self.all_empty(&touched);
        self.put("{ let __ub = __pto_meter.loop_end(");
        self.put_i64(lb, true);
        self.put(", ");
        self.put_i64(ub, true);
        let _ = write!(self.out, ", {step}, {empty})? ; ");
        self.put_chain(&chain, Some(ChainLoop { iv, lb, step }));
        self.put("} ");
        true
    }

    /// Writes the offsets of a chain's load or store: plain indices, or in a loop call
    /// ([`Writer::put_chain_loop`]) `LoopIndex`es.
    fn put_chain_offsets(&mut self, offsets: &[Index], iv: Option<ValueId>) {
        let Some(iv) = iv else {
            return self.put_indices(offsets);
        };
        self.put_bracketed(offsets, |w, o| {
            w.put_isa("LoopIndex", "");
            if o == Index::Value(iv) {
                w.put("::Iv");
            } else {
                w.put("::At(");
                w.put_index(o);
                w.put(")");
            }
        });
    }

    /// Writes a [`Chain`] as one `tload_map_store` / `tload2_map_store` call whose closure
    /// computes the stored element from the loaded ones with the chain's instructions in
    /// order; with `lp`, the loop call of [`Writer::put_chain_loop`].
    pub(super) fn put_chain(&mut self, c: &Chain<'_>, lp: Option<ChainLoop>) {
        let iv = lp.map(|l| l.iv);
        let dtype = self.p.tile(c.store.1).map_or(DataType::Fp32, |s| s.dtype);
        let ty = self.rust_ty(dtype);
        let f = match (c.loads.len(), lp.is_some()) {
            (1, false) => "tload_map_store",
            (_, false) => "tload2_map_store",
            (1, true) => "tload_map_store_loop",
            (_, true) => "tload2_map_store_loop",
        };
        self.put_isa(f, "");
        self.put("(");
        for &(t, tensor, offsets) in &c.loads {
            self.put_tile(t);
            self.put(", ");
            self.put_ident(tensor);
            self.put(", &");
            self.put_chain_offsets(offsets, iv);
            self.put(", ");
        }
        // A `&mut Tensor` parameter, reborrowed by the call.
        self.put_store_tensor(c.store.0);
        self.put(", &");
        self.put_chain_offsets(c.store.2, iv);
        self.put(", ");
        if let Some(l) = lp {
            self.put_isa("LoopRange", "");
            self.put(" { lb: ");
            self.put_i64(l.lb, true);
            // `__ub`: see `put_chain_loop`.
            let _ = write!(self.out, ", ub: __ub, step: {} }}, ", l.step as usize);
        }
        self.put("move |");
        for (k, &(t, _, _)) in c.loads.iter().enumerate() {
            let sep = if k > 0 { ", " } else { "" };
            let _ = write!(self.out, "{sep}__e{}: {ty}", t.0);
        }
        let _ = write!(self.out, "| -> {ty} {{ ");
        for &(isa, dst, args) in &c.ops {
            let _ = write!(self.out, "let __e{}: {ty} = ", dst.0);
            if let Some((tr, f)) = elementwise_name(isa) {
                self.import(tr);
                let _ = write!(self.out, "{}::{f}", tr.name());
            }
            self.put("(");
            for (k, a) in args.iter().enumerate() {
                if k > 0 {
                    self.put(", ");
                }
                match *a {
                    Arg::Tile(TileRef::Slot(t)) => {
                        let _ = write!(self.out, "__e{}", t.0);
                    }
                    // Not in a chain (`chain_at`).
                    Arg::Tile(TileRef::Param(_)) => {}
                    Arg::Scalar(v) => self.put_scalar_as(v, dtype, true),
                    Arg::Imm(x) => self.put_lit(Constant::Double(x), dtype, true),
                    // Not in a chain (`elementwise_name`).
                    Arg::Cmp(_) => {}
                }
            }
            self.put("); ");
        }
        let _ = write!(self.out, "__e{} }}, ) ? ; ", c.store.1.0);
    }
}
