//! The `fuse-chains` step (last in the pipeline, after `fence`): marks each elementwise
//! chain of the program, a `TLOAD`s -> elementwise instructions -> `TSTORE` run, and each
//! `for` loop whose body is one, with an [`Inst::Fused`] in front of it.
//!
//! The host code runs a marked chain as one pass over the elements
//! (`pto::isa::tload_map_store`, or `tload_map_store_loop` for a loop, which checks the
//! window geometry once for the whole loop) instead of one pass per instruction. The mark
//! changes nothing else: the chain's instructions stay where they are, so the C++ prints them
//! one by one and every analysis reads them as before.
//!
//! Then it marks pairs of instructions the host code runs as one pass (`lower/pairs.rs`): a
//! broadcast whose result is only stored, an elementwise op whose result is only summed, a
//! load and its row reduction, a row broadcast and the ops after it up to a row sum.
//!
//! [`describe`] prints the marks (the file tests of `tests/files/fuse-chains/` pin it).

use std::fmt::Write;

use pto_ir::ops::{OPS, OpClass};
use pto_ir::sem::{ElementTrait, Sem};
use pto_ir::{DataType, ValueId};

use super::is_sync;
use crate::isa::{Arg, Chain, ChainLoop, Index, Inst, Isa, Program, TileId, TileRef};
use crate::isa::{LoopExec, count_tile_uses};

/// The element function (trait and name, `Element::add`) an elementwise instruction applies
/// to each element, its operands in the instruction's order; `None` for the others, which
/// end a chain. It is the runtime function of the meaning of the op table's row whose
/// tile-tile / tile-scalar (or unary) form `isa` is.
pub fn element_fn(isa: Isa) -> Option<(ElementTrait, &'static str)> {
    let sem = OPS.iter().find_map(|r| {
        let forms = match r.class {
            OpClass::TileBinary | OpClass::TileBitwise => 2,
            OpClass::TileUnary | OpClass::TileUnaryFloat | OpClass::TileNot => 1,
            _ => 0,
        };
        r.isa.get(..forms)?.contains(&isa).then_some(r.sem)
    })?;
    match sem {
        Sem::Binary(k) => Some(k.runtime_fn()),
        Sem::Unary(k) => Some(k.runtime_fn()),
        _ => None,
    }
}

/// The fuse-chains step: marks the program's chains (see the module docs).
pub fn run(p: &mut Program) {
    let mut uses = vec![0; p.tiles.len()];
    count_tile_uses(&p.body, &mut uses);
    let mut body = std::mem::take(&mut p.body);
    block(p, &uses, &mut body);
    p.body = body;
    super::pairs::run(p, &uses);
    super::load_views::run(p, &uses);
}

/// Whether an instruction is a sync (a no-op on the CPU, so inside a chain it is dropped).
/// Marks the chains of `insts` and of the blocks nested in it.
fn block(p: &Program, uses: &[usize], insts: &mut Vec<Inst>) {
    let mut at = 0;
    while at < insts.len() {
        if let Some(c) = chain_loop(p, uses, &insts[at]) {
            insts.insert(at, Inst::Fused(Box::new(c)));
            at += 2;
            continue;
        }
        if let Some(c) = chain_at(p, uses, &insts[at..]) {
            let len = c.len;
            insts.insert(at, Inst::Fused(Box::new(c)));
            at += 1 + len;
            continue;
        }
        match &mut insts[at] {
            Inst::For { body, .. } => block(p, uses, body),
            Inst::While { cond, body, .. } => {
                block(p, uses, cond);
                block(p, uses, body);
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                block(p, uses, then_body);
                block(p, uses, else_body);
            }
            _ => {}
        }
        at += 1;
    }
}

/// The fusable chain starting at `insts[0]`, if there is one: one or two `TLOAD`s of
/// rank-1/2 windows, elementwise instructions over the loaded tiles only, and a `TSTORE` of a
/// tile every load flows into, to a tensor none of the loads reads; every tile of the chain
/// has one shape and dtype and is named by no instruction outside it (`uses`: the number of
/// instructions of the program naming each slot), so nothing observes the tiles, which the
/// fused call does not write. Sync instructions inside the chain are dropped.
fn chain_at(p: &Program, uses: &[usize], insts: &[Inst]) -> Option<Chain> {
    let load = |i: &Inst| match i {
        Inst::Load {
            dst,
            tensor,
            offsets,
            window,
        } if window.len() <= 2 => Some((*dst, *tensor, offsets.clone())),
        _ => None,
    };
    // The loads (up to two, syncs between them), then what follows them must go on a chain.
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
        Some(Inst::Op { isa, .. }) if element_fn(*isa).is_some() => {}
        Some(Inst::Store { .. }) => {}
        _ => return None,
    }
    let loads: Vec<_> = insts.get(..at)?.iter().filter_map(load).collect();
    let first = loads.first()?.0;
    let shape = p.tile(first).map(|s| (s.dtype, s.rows, s.cols))?;
    let same = |t: TileId| p.tile(t).map(|s| (s.dtype, s.rows, s.cols)) == Some(shape);
    // Tile -> the set of loads (bit i: load i) its current value depends on, updated when the
    // chain writes the tile again.
    let mut defined: Vec<(TileId, u32)> = Vec::new();
    for (k, (t, _, _)) in loads.iter().enumerate() {
        if defined.iter().any(|(d, _)| d == t) || !same(*t) {
            return None;
        }
        defined.push((*t, 1 << k));
    }
    let mask_of = |defined: &[(TileId, u32)], t: TileId| {
        defined.iter().find(|&&(d, _)| d == t).map(|&(_, m)| m)
    };
    let mut ops = Vec::new();
    // Tile -> how many instructions of the chain name it.
    let mut named: Vec<(TileId, usize)> = Vec::new();
    let mut name = |t: TileId| match named.iter_mut().find(|(u, _)| *u == t) {
        Some((_, n)) => *n += 1,
        None => named.push((t, 1)),
    };
    for (t, _, _) in &loads {
        name(*t);
    }
    let store = loop {
        match insts.get(at)? {
            Inst::Op { isa, dst, args } if element_fn(*isa).is_some() && same(*dst) => {
                let mut mask = 0;
                let mut tiles = 0;
                for a in args {
                    match a {
                        Arg::Tile(TileRef::Slot(t)) => {
                            mask |= mask_of(&defined, *t)?;
                            tiles += 1;
                            name(*t);
                        }
                        Arg::Tile(TileRef::Param(_)) | Arg::Cmp(_) => return None,
                        Arg::Scalar(_) | Arg::Imm(_) => {}
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
                name(*dst);
                match defined.iter_mut().find(|(d, _)| d == dst) {
                    Some(e) => e.1 = mask,
                    None => defined.push((*dst, mask)),
                }
                ops.push((*isa, *dst, args.clone()));
            }
            i if is_sync(i) => {}
            Inst::Store {
                tensor,
                add: false,
                src: TileRef::Slot(t),
                offsets,
                window,
            } if window.len() <= 2 => {
                name(*t);
                let all = (1u32 << loads.len()) - 1;
                if mask_of(&defined, *t)? != all || loads.iter().any(|l| l.1 == *tensor) {
                    return None;
                }
                break (*tensor, *t, offsets.clone());
            }
            _ => return None,
        }
        at += 1;
    };
    if named
        .iter()
        .any(|&(t, n)| uses.get(t.0 as usize).copied().unwrap_or(0) != n)
    {
        return None;
    }
    // The fused form computes over the region the loads share; an accumulating op (`TADD`
    // ...) covers both loads' regions instead, so two loads whose regions may differ (other
    // tensor extents or offsets) stay unfused.
    if let [(_, ta, oa), (_, tb, ob)] = loads.as_slice() {
        let shape = |t: ValueId| p.module.values[t].ty.as_tensor().map(|t| t.shape.clone());
        let same_region = oa == ob && shape(*ta) == shape(*tb);
        if !same_region && ops.iter().any(|(isa, _, _)| isa.partial_form().is_some()) {
            return None;
        }
    }
    Some(Chain {
        len: at + 1,
        loads,
        ops,
        store,
        over: None,
    })
}

/// The chain of a `for` loop run in one call, if `i` is one: a loop in order (not a
/// `parallel` one shown independent) over an `i64` variable with a constant positive step,
/// carrying nothing, whose body is one chain (and syncs) that names the loop variable only as
/// whole offset dimensions (everything else it names is defined before the loop).
fn chain_loop(p: &Program, uses: &[usize], i: &Inst) -> Option<Chain> {
    let Inst::For {
        iv,
        lb,
        ub,
        step,
        carried,
        body,
        results,
        exec,
    } = i
    else {
        return None;
    };
    if matches!(exec, LoopExec::Parallel { .. }) || !carried.is_empty() || !results.is_empty() {
        return None;
    }
    if p.module.values[*iv].ty.as_scalar() != Some(DataType::Int64) {
        return None;
    }
    let step = p.module.values[*step]
        .constant
        .map(|c| c.as_i64())
        .filter(|&k| k > 0)?;
    let at = body.iter().position(|i| !is_sync(i))?;
    let chain = chain_at(p, uses, body.get(at..)?)?;
    let names_iv = |args: &[Arg]| args.contains(&Arg::Scalar(*iv));
    if !body.iter().skip(at + chain.len).all(is_sync)
        || chain.ops.iter().any(|(_, _, args)| names_iv(args))
    {
        return None;
    }
    Some(Chain {
        len: 1,
        over: Some(ChainLoop {
            iv: *iv,
            lb: *lb,
            ub: *ub,
            step,
        }),
        ..chain
    })
}

/// The marks of a program, one line each in program order (nested ones indented):
/// `fused: TLOAD t0 <- %x[..]; TADD t2 = t0, t1; TSTORE %y[..] <- t2` (`over %i = .. step 4`
/// for a loop), `store: TROWEXPANDMUL t0 = t0, t1; TSTORE %y[..] <- t0` for a broadcast
/// written into its store, `rowsum: TMUL t2 = t0, t0; TROWSUM t3 = t2` for a mapped row sum
/// (`rowsum: TROWEXPANDSUB t0 = t0, t1; TEXP t0 = t0; TROWSUM t1 = t0 (keeps t0)` for a run
/// that writes a tile read afterwards), `reduce: TLOAD t0 <- %x[..]; TROWMAX t1 = t0` for a
/// load and its row reduction, `view: TLOAD t0 <- %x[..] (read in place)` for a load whose
/// readers read the window (`load_views.rs`; their own marks follow), then `rows: one at a
/// time (tiles t0, t1)` when its instructions, and the marks after it that name those tiles,
/// run row by row (`row_split.rs`).
pub fn describe(p: &Program) -> String {
    let mut out = String::new();
    describe_block(p, &p.body, 0, &mut out);
    out
}

/// An op as `describe` prints it: `TADD t2 = t0, t1`.
fn op_text(p: &Program, (isa, dst, args): &(Isa, TileId, crate::isa::Args)) -> String {
    let m = &p.module;
    let tile = |t: TileId| p.tile(t).map_or(format!("t{}", t.0), |s| s.name.clone());
    let args: Vec<String> = args
        .iter()
        .map(|a| match a {
            Arg::Tile(TileRef::Slot(t)) => tile(*t),
            Arg::Tile(TileRef::Param(v)) | Arg::Scalar(v) => m.ssa_name(*v).to_string(),
            Arg::Imm(x) => format!("{x:?}"),
            Arg::Cmp(c) => format!("{c:?}"),
        })
        .collect();
    format!("{} {} = {}", isa.name(), tile(*dst), args.join(", "))
}

fn describe_block(p: &Program, insts: &[Inst], depth: usize, out: &mut String) {
    let m = &p.module;
    let tile = |t: TileId| p.tile(t).map_or(format!("t{}", t.0), |s| s.name.clone());
    let index = |o: &Index| match o {
        Index::Const(c) => c.to_string(),
        Index::Value(v) => m.ssa_name(*v).to_string(),
    };
    let offsets = |os: &[Index]| os.iter().map(index).collect::<Vec<_>>().join(", ");
    for i in insts {
        match i {
            Inst::MapRowSum(e) => {
                let mut parts = Vec::new();
                if let Some((t, tensor, os)) = &e.load {
                    let x = m.ssa_name(*tensor);
                    parts.push(format!("TLOAD {} <- {x}[{}]", tile(*t), offsets(os)));
                }
                parts.extend(e.ops.iter().map(|op| op_text(p, op)));
                let (isa, sum) = e.reduce;
                let from = match (&e.load, e.ops.last()) {
                    (Some((t, _, _)), _) | (None, Some((_, t, _))) => tile(*t),
                    (None, None) => String::new(),
                };
                parts.push(format!("{} {} = {from}", isa.name(), tile(sum)));
                for (isa, d) in &e.more {
                    parts.push(format!("{} {} = {from}", isa.name(), tile(*d)));
                }
                let what = if e.load.is_some() { "reduce" } else { "rowsum" };
                let keep = e
                    .keep
                    .map_or(String::new(), |t| format!(" (keeps {})", tile(t)));
                let _ = writeln!(
                    out,
                    "{:1$}{what}: {2}{keep}",
                    "",
                    depth * 2,
                    parts.join("; ")
                );
            }
            Inst::LoadView(v) => {
                let _ = writeln!(
                    out,
                    "{:1$}view: TLOAD {2} <- {3}[{4}] (read in place)",
                    "",
                    depth * 2,
                    tile(v.tile),
                    m.ssa_name(v.tensor),
                    offsets(&v.offsets)
                );
                if let Some(r) = &v.rows {
                    let tiles: Vec<String> = r.tiles.iter().map(|&t| tile(t)).collect();
                    let kept = r.kept.as_ref().map_or(String::new(), |(t, x, _)| {
                        format!("; {} kept in {}'s window", tile(*t), m.ssa_name(*x))
                    });
                    let _ = writeln!(
                        out,
                        "{:1$}rows: one at a time (tiles {2}{3})",
                        "",
                        depth * 2,
                        tiles.join(", "),
                        kept
                    );
                }
            }
            Inst::ExpandStore(e) => {
                let (isa, dst, args) = &e.op;
                let args: Vec<String> = args
                    .iter()
                    .map(|a| match a {
                        Arg::Tile(TileRef::Slot(t)) => tile(*t),
                        _ => String::new(),
                    })
                    .collect();
                let (tensor, os) = &e.store;
                let _ = writeln!(
                    out,
                    "{:1$}store: {2} {3} = {4}; TSTORE {5}[{6}] <- {3}",
                    "",
                    depth * 2,
                    isa.name(),
                    tile(*dst),
                    args.join(", "),
                    m.ssa_name(*tensor),
                    offsets(os)
                );
            }
            Inst::Fused(c) => {
                let mut parts = Vec::new();
                for (t, tensor, os) in &c.loads {
                    let (t, x) = (tile(*t), m.ssa_name(*tensor));
                    parts.push(format!("TLOAD {t} <- {x}[{}]", offsets(os)));
                }
                parts.extend(c.ops.iter().map(|op| op_text(p, op)));
                let (tensor, t, os) = &c.store;
                let x = m.ssa_name(*tensor);
                parts.push(format!("TSTORE {x}[{}] <- {}", offsets(os), tile(*t)));
                let _ = write!(out, "{:1$}fused: {2}", "", depth * 2, parts.join("; "));
                if let Some(l) = c.over {
                    let (iv, lb, ub) = (m.ssa_name(l.iv), m.ssa_name(l.lb), m.ssa_name(l.ub));
                    let _ = write!(out, " over {iv} = {lb} to {ub} step {}", l.step);
                }
                out.push('\n');
            }
            Inst::For { body, .. } => describe_block(p, body, depth + 1, out),
            Inst::While { cond, body, .. } => {
                describe_block(p, cond, depth + 1, out);
                describe_block(p, body, depth + 1, out);
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                describe_block(p, then_body, depth + 1, out);
                describe_block(p, else_body, depth + 1, out);
            }
            _ => {}
        }
    }
}
