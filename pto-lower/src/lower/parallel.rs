//! Which `parallel` loops may really run their iterations at once.
//!
//! The verifier already rejects loop-carried values in a `parallel` loop; what it cannot see
//! is whether two iterations write the same tensor elements, or read what another writes.
//! The lowering proves independence here, on the ISA program, and a loop it cannot prove
//! runs in order ([`LoopExec::Serialized`], with the reason shown in `LOWERED`). A loop runs
//! in parallel when:
//! - its body neither returns nor leaves the loop (`break`; `continue` is fine);
//! - no tensor is both loaded and stored in it;
//! - for each tensor it stores to, one dimension separates the iterations: every store's
//!   offset along it is `a * i + s + c` (the loop variable `i`, one loop-invariant value
//!   `s` common to the stores, constants `a != 0` and `c`), the loop step is a constant,
//!   and the stores of one iteration cover at most `|a| * step` elements along it, so the
//!   windows of two iterations never meet;
//! - no tile slot holds a value from before the loop and is also written in it (each
//!   iteration then gets its own copy of the slots it writes);
//! - it is not inside another loop that runs in parallel (that one already uses the cores).

use pto_ir::{Opcode, ProgramModule, ValueId};

use crate::isa::{Arg, Index, Inst, LoopExec, TileId, TileRef};

/// Decides every `parallel` loop in `body` (marked [`LoopExec::Parallel`] by the lowering),
/// outermost first; returns `(induction variable, reason)` for each loop that must run in
/// order, and `(induction variable, None)` for each that runs in parallel.
pub(super) fn decide(
    m: &ProgramModule,
    body: &mut [Inst],
    inside_parallel: bool,
    out: &mut Vec<(ValueId, Option<String>)>,
) {
    for inst in body.iter_mut() {
        match inst {
            Inst::For {
                iv,
                step,
                carried,
                body,
                exec,
                ..
            } => {
                let mut inner_parallel = inside_parallel;
                if *exec != LoopExec::Sequential {
                    let verdict = if inside_parallel {
                        Err("it is nested in a parallel loop, whose iterations already run on all cores".to_string())
                    } else if !carried.is_empty() {
                        Err("it carries values from one iteration to the next".to_string())
                    } else {
                        independent(m, *iv, *step, body)
                    };
                    match verdict {
                        Ok(()) => {
                            *exec = LoopExec::Parallel { blocks: false };
                            inner_parallel = true;
                            out.push((*iv, None));
                        }
                        Err(why) => {
                            out.push((*iv, Some(why.clone())));
                            *exec = LoopExec::Serialized(why);
                        }
                    }
                }
                decide(m, body, inner_parallel, out);
            }
            Inst::While { cond, body, .. } => {
                decide(m, cond, inside_parallel, out);
                decide(m, body, inside_parallel, out);
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                decide(m, then_body, inside_parallel, out);
                decide(m, else_body, inside_parallel, out);
            }
            _ => {}
        }
    }
}

/// Sets `blocks` on the parallel loops of `body` that are in no other loop and whose stored
/// tensors no instruction outside them touches: every block of a C++ launch runs the code
/// outside the loop, so such a loop may give each block its share of the iterations.
pub(super) fn spread_over_blocks(body: &mut [Inst]) {
    let mut all = Vec::new();
    touches(body, &mut all);
    mark_blocks(body, &all);
}

fn mark_blocks(insts: &mut [Inst], all: &[ValueId]) {
    for i in insts {
        match i {
            Inst::For {
                body,
                exec: LoopExec::Parallel { blocks },
                ..
            } => {
                let mut mine = Vec::new();
                touches(body, &mut mine);
                let mut loads = Vec::new();
                let mut stores = Vec::new();
                collect(
                    body,
                    &mut loads,
                    &mut stores,
                    &mut Vec::new(),
                    &mut Vec::new(),
                );
                let count = |list: &[ValueId], t: ValueId| list.iter().filter(|&&x| x == t).count();
                *blocks = stores.iter().all(|s| count(all, s.0) == count(&mine, s.0));
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                mark_blocks(then_body, all);
                mark_blocks(else_body, all);
            }
            _ => {}
        }
    }
}

/// Every tensor access of `insts` (one entry per load or store).
fn touches(insts: &[Inst], out: &mut Vec<ValueId>) {
    for i in insts {
        match i {
            Inst::Load { tensor, .. } | Inst::Store { tensor, .. } => out.push(*tensor),
            Inst::For { body, .. } => touches(body, out),
            Inst::While { cond, body, .. } => {
                touches(cond, out);
                touches(body, out);
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                touches(then_body, out);
                touches(else_body, out);
            }
            _ => {}
        }
    }
}

/// `Ok` when the iterations of the loop over `iv` with body `body` are independent, else why
/// they may not be.
fn independent(m: &ProgramModule, iv: ValueId, step: ValueId, body: &[Inst]) -> Result<(), String> {
    if leaves_early(body, 0) {
        return Err("its body returns from the kernel or leaves the loop (`break`)".into());
    }
    if let Some(why) = runs_in_order(body) {
        return Err(why.into());
    }
    let mut loads = Vec::new();
    let mut stores = Vec::new();
    let mut defined = Vec::new();
    let mut scalar_defs = Vec::new();
    collect(
        body,
        &mut loads,
        &mut stores,
        &mut defined,
        &mut scalar_defs,
    );
    let name = |v: ValueId| {
        m.values[v]
            .name
            .as_deref()
            .unwrap_or("a tensor")
            .to_string()
    };
    for &(t, ..) in &stores {
        if loads.contains(&t) {
            return Err(format!(
                "`{}` is both loaded and stored in the loop, so one iteration may read what another writes",
                name(t)
            ));
        }
    }
    let step = m.values[step]
        .constant
        .filter(|c| !c.is_float())
        .map(|c| c.as_i64());
    let ctx = AffineCtx {
        m,
        iv,
        defined: &defined,
        defs: &scalar_defs,
    };
    let mut tensors: Vec<ValueId> = Vec::new();
    for s in &stores {
        if !tensors.contains(&s.0) {
            tensors.push(s.0);
        }
    }
    for t in tensors {
        let mine: Vec<&(ValueId, &[Index], &[u64])> = stores.iter().filter(|s| s.0 == t).collect();
        let Some(step) = step.filter(|&s| s > 0) else {
            return Err(format!(
                "the loop step is not a constant, so the store windows of `{}` cannot be shown disjoint",
                name(t)
            ));
        };
        let rank = mine.first().map_or(0, |s| s.1.len());
        let separated = (0..rank).any(|d| separates(&ctx, &mine, d, step));
        if !separated {
            return Err(format!(
                "the store windows of `{}` cannot be shown disjoint across iterations (needs an offset `a * {} + b` with `|a| * step` at least the window along that dimension)",
                name(t),
                m.values[iv].name.as_deref().unwrap_or("i"),
            ));
        }
    }
    if let Some(t) = shared_written_slot(body) {
        return Err(format!(
            "tile slot {} holds a value from before the loop and is written inside it",
            t.0
        ));
    }
    Ok(())
}

/// For a loop that runs in parallel, the first row of the rows each iteration stores to in
/// each tensor it stores to, `(tensor, lo)`: every store's offset along the first dimension
/// is `i + c` (the loop variable itself, constants `c`) and its window `h` rows, with
/// `lo <= c` and `c + h <= lo + step` (`lo` the least `c`, `step` the constant loop step).
/// The iteration at `i` then writes only rows `[i + lo, i + lo + step)`, and the host code
/// gives each iteration those rows as its own (`pto::par::row_parts`). `None` when the loop
/// is not one shown parallel, or some stored tensor is not stored that way (then all of them
/// stay behind a lock, and the body's stores are plain transfers).
pub(crate) fn row_parts(m: &ProgramModule, loop_inst: &Inst) -> Option<Vec<(ValueId, i64)>> {
    let Inst::For {
        iv,
        step,
        body,
        exec: LoopExec::Parallel { .. },
        ..
    } = loop_inst
    else {
        return None;
    };
    let step = m.values[*step]
        .constant
        .filter(|c| !c.is_float())
        .map(|c| c.as_i64())
        .filter(|&s| s > 0)?;
    let mut loads = Vec::new();
    let mut stores = Vec::new();
    let mut defined = Vec::new();
    let mut scalar_defs = Vec::new();
    collect(
        body,
        &mut loads,
        &mut stores,
        &mut defined,
        &mut scalar_defs,
    );
    let ctx = AffineCtx {
        m,
        iv: *iv,
        defined: &defined,
        defs: &scalar_defs,
    };
    let mut out: Vec<(ValueId, i64, i64)> = Vec::new();
    for (t, offsets, window) in &stores {
        let f = ctx.index(*offsets.first()?)?;
        if f.a != 1 || f.sym.is_some() {
            return None;
        }
        let h = i64::try_from(*window.first()?).ok()?;
        let end = f.c.checked_add(h)?;
        match out.iter_mut().find(|e| e.0 == *t) {
            Some(e) => {
                e.1 = e.1.min(f.c);
                e.2 = e.2.max(end);
            }
            None => out.push((*t, f.c, end)),
        }
    }
    out.iter()
        .map(|&(t, lo, hi)| (hi.checked_sub(lo)? <= step).then_some((t, lo)))
        .collect()
}

/// Whether dimension `d` keeps the windows of the stores `stores` of different iterations
/// apart.
fn separates(
    ctx: &AffineCtx<'_>,
    stores: &[&(ValueId, &[Index], &[u64])],
    d: usize,
    step: i64,
) -> bool {
    let mut common: Option<(i64, Option<ValueId>)> = None;
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for (_, offsets, window) in stores {
        let (Some(off), Some(&w)) = (offsets.get(d), window.get(d)) else {
            return false;
        };
        let Some(f) = ctx.index(*off) else {
            return false;
        };
        if f.a == 0 {
            return false;
        }
        match common {
            None => common = Some((f.a, f.sym)),
            Some(c) if c == (f.a, f.sym) => {}
            Some(_) => return false,
        }
        let Ok(w) = i64::try_from(w) else {
            return false;
        };
        lo = lo.min(f.c);
        hi = hi.max(f.c.saturating_add(w));
    }
    match common {
        Some((a, _)) => a
            .checked_mul(step)
            .is_some_and(|stride| hi.saturating_sub(lo) <= stride.saturating_abs()),
        None => false,
    }
}

/// `a * iv + sym + c`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Affine {
    a: i64,
    sym: Option<ValueId>,
    c: i64,
}

struct AffineCtx<'a> {
    m: &'a ProgramModule,
    iv: ValueId,
    /// Values defined inside the loop body (not loop-invariant).
    defined: &'a [ValueId],
    /// The scalar ops of the body: (result, op, operands).
    defs: &'a [(ValueId, Opcode, Vec<ValueId>)],
}

impl AffineCtx<'_> {
    fn index(&self, i: Index) -> Option<Affine> {
        match i {
            Index::Const(c) => Some(Affine {
                a: 0,
                sym: None,
                c: i64::try_from(c).ok()?,
            }),
            Index::Value(v) => self.value(v, 0),
        }
    }

    fn value(&self, v: ValueId, depth: u32) -> Option<Affine> {
        if depth > 32 {
            return None;
        }
        if v == self.iv {
            return Some(Affine {
                a: 1,
                sym: None,
                c: 0,
            });
        }
        if let Some(c) = self.m.values[v].constant {
            return (!c.is_float()).then(|| Affine {
                a: 0,
                sym: None,
                c: c.as_i64(),
            });
        }
        if let Some((_, op, args)) = self.defs.iter().find(|d| d.0 == v) {
            let (x, y) = match args.as_slice() {
                [x, y] => (self.value(*x, depth + 1)?, self.value(*y, depth + 1)?),
                _ => return None,
            };
            return match op {
                Opcode::ScalarAdd => add(x, y, 1),
                Opcode::ScalarSub => add(x, y, -1),
                Opcode::ScalarMul => mul(x, y).or_else(|| mul(y, x)),
                _ => None,
            };
        }
        if self.defined.contains(&v) {
            return None;
        }
        Some(Affine {
            a: 0,
            sym: Some(v),
            c: 0,
        })
    }
}

/// `x + k * y` for `k` = 1 or -1.
fn add(x: Affine, y: Affine, k: i64) -> Option<Affine> {
    let sym = match (x.sym, y.sym) {
        (s, None) => s,
        (None, s) if k == 1 => s,
        _ => return None,
    };
    Some(Affine {
        a: x.a.checked_add(y.a.checked_mul(k)?)?,
        sym,
        c: x.c.checked_add(y.c.checked_mul(k)?)?,
    })
}

/// `x * y` where `y` is a constant (and `x` has no symbolic part unless `y` is 1).
fn mul(x: Affine, y: Affine) -> Option<Affine> {
    if y.a != 0 || y.sym.is_some() || (x.sym.is_some() && y.c != 1) {
        return None;
    }
    Some(Affine {
        a: x.a.checked_mul(y.c)?,
        sym: x.sym,
        c: x.c.checked_mul(y.c)?,
    })
}

/// Whether `body` returns, or breaks the loop it is the body of (`depth` 0; a `continue`
/// only ends its own iteration); those of loops nested in it are theirs.
fn leaves_early(body: &[Inst], depth: u32) -> bool {
    body.iter().any(|i| match i {
        Inst::Return(_) => true,
        Inst::Break => depth == 0,
        Inst::For { body, .. } => leaves_early(body, depth + 1),
        Inst::While { cond, body, .. } => {
            leaves_early(cond, depth + 1) || leaves_early(body, depth + 1)
        }
        Inst::If {
            then_body,
            else_body,
            ..
        } => leaves_early(then_body, depth) || leaves_early(else_body, depth),
        _ => false,
    })
}

/// Why `body` must run in order whatever its windows: a call (the callee's accesses are not
/// analysed here) or single-element access (not part of the window analysis).
fn runs_in_order(body: &[Inst]) -> Option<&'static str> {
    body.iter().find_map(|i| match i {
        Inst::Call { .. } => Some("its body calls another kernel, whose accesses are not analysed"),
        Inst::Read { .. } | Inst::Write { .. } => {
            Some("its body reads or writes single tensor elements (`read` / `write`)")
        }
        Inst::For { body, .. } => runs_in_order(body),
        Inst::While { cond, body, .. } => runs_in_order(cond).or_else(|| runs_in_order(body)),
        Inst::If {
            then_body,
            else_body,
            ..
        } => runs_in_order(then_body).or_else(|| runs_in_order(else_body)),
        _ => None,
    })
}

type StoreRef<'a> = (ValueId, &'a [Index], &'a [u64]);

/// The tensors `body` loads, its stores, the values it defines and its scalar ops.
fn collect<'a>(
    body: &'a [Inst],
    loads: &mut Vec<ValueId>,
    stores: &mut Vec<StoreRef<'a>>,
    defined: &mut Vec<ValueId>,
    defs: &mut Vec<(ValueId, Opcode, Vec<ValueId>)>,
) {
    for i in body {
        match i {
            Inst::Load { tensor, .. } => loads.push(*tensor),
            Inst::Store {
                tensor,
                offsets,
                window,
                ..
            } => stores.push((*tensor, offsets, window)),
            Inst::Scalar { op, result, args } => {
                defined.push(*result);
                defs.push((*result, *op, args.iter().copied().collect()));
            }
            Inst::Assign(pairs) => defined.extend(pairs.iter().map(|p| p.0)),
            Inst::For {
                iv,
                carried,
                body,
                results,
                ..
            } => {
                defined.push(*iv);
                defined.extend(carried.iter().map(|c| c.0));
                defined.extend(results.iter().map(|r| r.0));
                collect(body, loads, stores, defined, defs);
            }
            Inst::While {
                carried,
                cond,
                body,
                results,
                ..
            } => {
                defined.extend(carried.iter().map(|c| c.0));
                defined.extend(results.iter().map(|r| r.0));
                collect(cond, loads, stores, defined, defs);
                collect(body, loads, stores, defined, defs);
            }
            Inst::If {
                then_body,
                else_body,
                results,
                ..
            } => {
                defined.extend(results.iter().copied());
                collect(then_body, loads, stores, defined, defs);
                collect(else_body, loads, stores, defined, defs);
            }
            _ => {}
        }
    }
}

/// The tile slots `body` reads and writes, in program order (nested bodies in line).
fn slot_accesses(body: &[Inst], f: &mut impl FnMut(TileId, bool)) {
    let read = |r: &TileRef, f: &mut dyn FnMut(TileId, bool)| {
        if let TileRef::Slot(t) = r {
            f(*t, false);
        }
    };
    for i in body {
        match i {
            Inst::Op { dst, args, .. } => {
                for a in args {
                    if let Arg::Tile(r) = a {
                        read(r, f);
                    }
                }
                f(*dst, true);
            }
            Inst::Load { dst, .. } | Inst::FullValid(dst) => f(*dst, true),
            Inst::Store { src, .. } => read(src, f),
            Inst::Extract { dst, src, .. } | Inst::Cvt { dst, src, .. } => {
                read(src, f);
                f(*dst, true);
            }
            Inst::Insert { dst, src, .. } => {
                read(src, f);
                f(*dst, false);
                f(*dst, true);
            }
            Inst::SetValid { dst, .. } => {
                f(*dst, false);
                f(*dst, true);
            }
            Inst::For { body, .. } => slot_accesses(body, f),
            Inst::While { cond, body, .. } => {
                slot_accesses(cond, f);
                slot_accesses(body, f);
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                slot_accesses(then_body, f);
                slot_accesses(else_body, f);
            }
            _ => {}
        }
    }
}

/// The tile slots `body` writes (each iteration gets its own), and those it reads before
/// writing them (their value comes from before the loop).
pub(crate) fn slot_use(body: &[Inst]) -> (Vec<TileId>, Vec<TileId>) {
    let mut written = Vec::new();
    let mut live_in = Vec::new();
    slot_accesses(body, &mut |t, write| {
        if write {
            if !written.contains(&t) {
                written.push(t);
            }
        } else if !written.contains(&t) && !live_in.contains(&t) {
            live_in.push(t);
        }
    });
    (written, live_in)
}

/// A slot `body` both reads from before the loop and writes.
fn shared_written_slot(body: &[Inst]) -> Option<TileId> {
    let (written, live_in) = slot_use(body);
    live_in.into_iter().find(|t| written.contains(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel over `x`, `out` (`[R, 16]` f32) whose body is `body` (IR statements; `%x_0`,
    /// `%out_2`, `%R_1` are the parameters, `%c0`, `%c1`, `%c2`, `%c4` integer constants).
    fn kernel(body: &str) -> String {
        format!(
            "program.module @k {{
  program.entry @k
  func.func @k(%x_0: tensor<[%R_1, 16], fp32> #in, %out_2: tensor<[%R_1, 16], fp32> #out) {{
    statement.op {{
      %c0_3 = 0 : int64
      %c1_4 = 1 : int64
      %c2_5 = 2 : int64
      %c4_6 = 4 : int64
    }}
{body}
  }}
}}
"
        )
    }

    /// The `exec` of each `for` of the lowered kernel, outermost first.
    fn execs(text: &str) -> Vec<LoopExec> {
        fn walk(insts: &[Inst], out: &mut Vec<LoopExec>) {
            for i in insts {
                if let Inst::For { exec, body, .. } = i {
                    out.push(exec.clone());
                    walk(body, out);
                }
            }
        }
        let m = pto_ir::parse(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        let f = m.entry.expect("an entry");
        let p = crate::lower_kernel(&m, f).unwrap_or_else(|e| panic!("{e:?}"));
        let mut out = Vec::new();
        walk(&p.body, &mut out);
        out
    }

    /// A parallel loop over `%i` from 0 to R by `step` loading `rows` x 16 at `[%i, 0]` and
    /// storing it to `out` at `[off, 0]` (`off` computed from `%i` by `offset_ops`).
    fn copy_loop(step: &str, rows: u32, offset_ops: &str, off: &str) -> String {
        format!(
            "    statement.for %i_7 = %c0_3 to %R_1 step {step} {{parallel}} {{
      statement.op {{
        {offset_ops}
        %t_9 = tile.load %x_0 : (tensor<[%R_1, 16], fp32>) -> tile<[?, 16], [{rows}, 16], fp32> {{shape=[{rows}, 16], offset=[%i_7, 0]}}
        tile.store %t_9, %out_2 : (tile<[?, 16], [{rows}, 16], fp32>, tensor<[%R_1, 16], fp32>) -> () {{offset=[{off}, 0]}}
      }}
      statement.yield
    }}"
        )
    }

    #[test]
    fn a_stride_of_at_least_the_window_runs_in_parallel_on_blocks() {
        let text = kernel(&copy_loop("%c4_6", 4, "", "%i_7"));
        assert_eq!(execs(&text), vec![LoopExec::Parallel { blocks: true }]);
        // 2 * i with 2-row windows and step 1: stride 2 >= 2.
        let text = kernel(&copy_loop(
            "%c1_4",
            2,
            "%o_8 = scalar.mul %i_7, %c2_5 : (int64, int64) -> int64",
            "%o_8",
        ));
        assert_eq!(execs(&text), vec![LoopExec::Parallel { blocks: true }]);
    }

    #[test]
    fn overlapping_or_unprovable_windows_run_in_order() {
        for (step, rows, ops, off) in [
            ("%c1_4", 2, "", "%i_7"),
            (
                "%c4_6",
                4,
                "%o_8 = scalar.floordiv %i_7, %c2_5 : (int64, int64) -> int64",
                "%o_8",
            ),
            ("%c4_6", 4, "", "%c0_3"),
            ("%R_1", 4, "", "%i_7"),
        ] {
            let text = kernel(&copy_loop(step, rows, ops, off));
            match execs(&text).as_slice() {
                [LoopExec::Serialized(why)] => {
                    assert!(why.contains("store windows of `out`"), "{why}")
                }
                other => panic!("{step} {rows} {off}: {other:?}"),
            }
        }
    }

    /// `row_parts` of the kernel's one loop, with the stored tensor by name, and the host
    /// code's way of sharing it.
    fn rows_and_host(text: &str) -> (Option<Vec<(String, i64)>>, String) {
        let m = pto_ir::parse(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        let f = m.entry.expect("an entry");
        let p = crate::lower_kernel(&m, f).unwrap_or_else(|e| panic!("{e:?}"));
        let rows = p.body.iter().find_map(|i| match i {
            Inst::For { .. } => Some(row_parts(&p.module, i)),
            _ => None,
        });
        let rows = rows.flatten().map(|r| {
            r.into_iter()
                .map(|(t, lo)| {
                    (
                        p.module.values[t]
                            .name
                            .as_deref()
                            .unwrap_or_default()
                            .to_string(),
                        lo,
                    )
                })
                .collect()
        });
        let host = crate::compile(&m, f)
            .unwrap_or_else(|e| panic!("{e}"))
            .host
            .to_string();
        (rows, host)
    }

    #[test]
    fn stores_at_the_loop_variable_plus_a_constant_give_each_iteration_its_rows() {
        let out = |lo| Some(vec![("out".to_string(), lo)]);
        // Rows [i, i + 4) and [i + 1, i + 4) of a step of 4; [i + 1, i + 5) too.
        for (rows, ops, off, want) in [
            (4, "", "%i_7", out(0)),
            (
                3,
                "%o_8 = scalar.add %i_7, %c1_4 : (int64, int64) -> int64",
                "%o_8",
                out(1),
            ),
            (
                4,
                "%o_8 = scalar.add %c1_4, %i_7 : (int64, int64) -> int64",
                "%o_8",
                out(1),
            ),
        ] {
            let (got, host) = rows_and_host(&kernel(&copy_loop("%c4_6", rows, ops, off)));
            assert_eq!(got, want, "{off}");
            assert!(
                host.contains(":: pto :: par :: row_parts (& mut * out"),
                "{host}"
            );
            assert!(host.contains(":: pto :: par :: for_parts"), "{host}");
            assert!(!host.contains("Locked"), "{host}");
        }
    }

    #[test]
    fn other_disjoint_stores_keep_the_lock() {
        // `2 * i` with 2-row windows and step 1: disjoint, but not rows `[i + lo, ..)`.
        let text = kernel(&copy_loop(
            "%c1_4",
            2,
            "%o_8 = scalar.mul %i_7, %c2_5 : (int64, int64) -> int64",
            "%o_8",
        ));
        let (got, host) = rows_and_host(&text);
        assert_eq!(got, None);
        assert!(
            host.contains("let out = :: pto :: par :: Locked :: new (& mut * out) ;"),
            "{host}"
        );
        assert!(host.contains(":: pto :: par :: for_range"), "{host}");
        assert!(!host.contains("row_parts"), "{host}");
    }

    #[test]
    fn a_tensor_stored_outside_the_loop_keeps_every_block_on_every_iteration() {
        let body = format!(
            "{}
    statement.op {{
      %z_20 = tile.load %x_0 : (tensor<[%R_1, 16], fp32>) -> tile<[?, 16], [1, 16], fp32> {{shape=[1, 16], offset=[%c0_3, 0]}}
      tile.store %z_20, %out_2 : (tile<[?, 16], [1, 16], fp32>, tensor<[%R_1, 16], fp32>) -> () {{offset=[%c0_3, 0]}}
    }}",
            copy_loop("%c4_6", 4, "", "%i_7")
        );
        assert_eq!(
            execs(&kernel(&body)),
            vec![LoopExec::Parallel { blocks: false }]
        );
    }

    #[test]
    fn a_parallel_loop_in_a_loop_that_cannot_be_parallel_runs_in_parallel_itself() {
        let body = format!(
            "    statement.for %j_30 = %c0_3 to %c2_5 step %c1_4 {{parallel}} {{
{}
      statement.yield
    }}",
            copy_loop("%c4_6", 4, "", "%i_7")
        );
        match execs(&kernel(&body)).as_slice() {
            // The outer loop stores the same windows in each of its iterations.
            [
                LoopExec::Serialized(outer),
                LoopExec::Parallel { blocks: false },
            ] => {
                assert!(outer.contains("cannot be shown disjoint"), "{outer}")
            }
            other => panic!("{other:?}"),
        }
    }
}
