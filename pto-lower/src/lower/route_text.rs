//! The A2A3 route as `//` comment lines at the end of `NAME::LOWERED`: each core's
//! instructions of a split kernel ([`CoreSplit`]), one per line, with the transfers and
//! their cross-core flags.

use std::fmt::Write;

use pto_ir::ValueId;

use super::split::{
    CoreSplit, Direction, FLAG_FREE, FLAG_READY, FLAG_TO_CUBE, FLAG_TO_VECTOR, FLAG_V2C_FREE,
    FLAG_V2C_READY, transfer,
};
use crate::info::pipe_cpp;
use crate::isa::{Inst, Program, TileId, TileRef, param_load};

impl CoreSplit {
    /// The route as `//` comment lines for `NAME::LOWERED`: each core's instructions, one
    /// per line, with the transfers and their cross-core flags.
    pub fn describe(&self, p: &Program) -> String {
        let mut out = String::new();
        out.push_str(
            "// A2A3 route (lower/split.rs): the cube part runs on the AIC, the vector part on\n",
        );
        if self.slot_bytes == 0 && self.v2c_bytes == 0 && self.handoffs == 0 {
            out.push_str("// AIV 0; they exchange nothing.\n");
        } else {
            out.push_str("// AIV 0 and its control flow on AIV 1.\n");
        }
        if let Some(note) = super::split::inlined_note(p) {
            for line in note.lines() {
                let _ = writeln!(out, "// {line}");
            }
        }
        if self.handoffs > 0 {
            let _ = writeln!(
                out,
                "// A tensor one core accesses and the other then reads or writes is handed off:\n\
                 // the sender drains its pipes and signals, the receiver waits (cross-core flag\n\
                 // {FLAG_TO_VECTOR}: cube to vector, flag {FLAG_TO_CUBE}: vector to cube)."
            );
        }
        if self.slot_bytes > 0 {
            let _ = writeln!(
                out,
                "// A cube result reaches the vector core through a {} byte GM slot (cross-core\n\
                 // flag {FLAG_READY}: ready, flag {FLAG_FREE}: free).",
                self.slot_bytes
            );
        }
        if self.v2c_bytes > 0 {
            let _ = writeln!(
                out,
                "// A vector result reaches the cube through a {} byte GM slot at byte {} of the\n\
                 // workspace (cross-core flag {FLAG_V2C_READY}: ready, flag {FLAG_V2C_FREE}: free).",
                self.v2c_bytes, self.slot_bytes
            );
        }
        for (title, part) in [
            ("aic (cube)", &self.cube),
            ("aiv 0 (vector)", &self.vector),
            ("aiv 1 (vector, control and transfers only)", &self.peer),
        ] {
            let _ = writeln!(out, "// {title}:");
            describe(p, part, 1, title.starts_with("aic"), &mut out);
        }
        out
    }
}

fn describe(p: &Program, insts: &[Inst], depth: usize, cube: bool, out: &mut String) {
    let pad = "  ".repeat(depth);
    let tile = |t: TileId| {
        p.tile(t)
            .map_or_else(|| format!("t{}", t.0), |s| s.name.clone())
    };
    let name = |v: ValueId| {
        let d = &p.module.values[v];
        match (&d.constant, &d.name) {
            (Some(c), _) => format!("{}", c.as_f64()),
            (None, Some(n)) => format!("%{n}_{}", d.number),
            (None, None) => format!("%{}", d.number),
        }
    };
    for i in insts {
        let line = match i {
            _ if matches!(transfer(p, i), Some((Direction::ToVector, _))) => {
                let (Some((_, src)), Inst::Op { dst, .. }) = (transfer(p, i), i) else {
                    continue;
                };
                if cube {
                    format!(
                        "push {} -> GM slot: wait_flag_dev({FLAG_FREE}); TSTORE; ffts_cross_core_sync(PIPE_FIX, flag {FLAG_READY})",
                        tile(src)
                    )
                } else {
                    format!(
                        "pop GM slot -> {}: wait_flag_dev({FLAG_READY}); TLOAD; ffts_cross_core_sync(PIPE_MTE2, flag {FLAG_FREE})",
                        tile(*dst)
                    )
                }
            }
            _ if transfer(p, i).is_some() => {
                let (Some((_, src)), Inst::Op { dst, .. }) = (transfer(p, i), i) else {
                    continue;
                };
                if cube {
                    format!(
                        "pop GM slot -> {}: wait_flag_dev({FLAG_V2C_READY}); TLOAD; ffts_cross_core_sync(PIPE_MTE2, flag {FLAG_V2C_FREE})",
                        tile(*dst)
                    )
                } else {
                    format!(
                        "push {} -> GM slot: TSTORE; ffts_cross_core_sync(PIPE_MTE3, flag {FLAG_V2C_READY}); wait_flag_dev({FLAG_V2C_FREE})",
                        tile(src)
                    )
                }
            }
            Inst::Fused(_)
            | Inst::ExpandStore(_)
            | Inst::MapRowSum(_)
            | Inst::LoadView(_)
            | Inst::Share(_) => continue,
            Inst::Handoff(h) => {
                let tensors: Vec<String> = h.tensors.iter().map(|&t| name(t)).collect();
                let tensors = tensors.join(", ");
                let (flag, pipe) = if h.from_cube {
                    (FLAG_TO_VECTOR, "PIPE_FIX")
                } else {
                    (FLAG_TO_CUBE, "PIPE_MTE3")
                };
                if h.from_cube == cube {
                    format!(
                        "handoff {tensors}: pipe_barrier(PIPE_ALL); ffts_cross_core_sync({pipe}, flag {flag})"
                    )
                } else {
                    format!("handoff {tensors}: wait_flag_dev({flag})")
                }
            }
            _ if param_load(i).is_some() => {
                let Some((dst, param)) = param_load(i) else {
                    continue;
                };
                format!("TLOAD {} <- {}", tile(dst), name(param))
            }
            Inst::Op { isa, dst, .. } => format!("{} {}", isa.name(), tile(*dst)),
            Inst::Load { dst, tensor, .. } => format!("TLOAD {} <- {}", tile(*dst), name(*tensor)),
            Inst::Store { src, tensor, .. } => {
                let s = match src {
                    TileRef::Slot(t) => tile(*t),
                    TileRef::Param(v) => name(*v),
                };
                format!("TSTORE {s} -> {}", name(*tensor))
            }
            Inst::Read { result, .. } => format!("{} = read", name(*result)),
            Inst::Write { tensor, .. } => format!("write {}", name(*tensor)),
            Inst::Extract { dst, .. } => format!("TEXTRACT {}", tile(*dst)),
            Inst::Insert { dst, .. } => format!("TINSERT {}", tile(*dst)),
            Inst::Cvt { dst, .. } => format!("TCVT {}", tile(*dst)),
            Inst::SetValid { dst, .. } => format!("valid {}", tile(*dst)),
            Inst::FullValid(t) => format!("valid {} (whole)", tile(*t)),
            Inst::SetFlag((a, b, id)) => {
                format!("set_flag({}, {}, {id})", pipe_cpp(*a), pipe_cpp(*b))
            }
            Inst::WaitFlag((a, b, id)) => {
                format!("wait_flag({}, {}, {id})", pipe_cpp(*a), pipe_cpp(*b))
            }
            Inst::Barrier(pipe) => format!("pipe_barrier({})", pipe_cpp(*pipe)),
            Inst::Scalar { op, result, .. } => format!("{} = {}", name(*result), op.full_name()),
            Inst::Assign(pairs) => {
                let d: Vec<String> = pairs.iter().map(|&(d, _)| name(d)).collect();
                format!("assign {}", d.join(", "))
            }
            Inst::For {
                iv,
                lb,
                ub,
                step,
                body,
                ..
            } => {
                let _ = writeln!(
                    out,
                    "//{pad}for {} = {} to {} step {} {{",
                    name(*iv),
                    name(*lb),
                    name(*ub),
                    name(*step)
                );
                describe(p, body, depth + 1, cube, out);
                let _ = writeln!(out, "//{pad}}}");
                continue;
            }
            Inst::While { cond, body, .. } => {
                let _ = writeln!(out, "//{pad}while {{");
                describe(p, cond, depth + 1, cube, out);
                let _ = writeln!(out, "//{pad}}} do {{");
                describe(p, body, depth + 1, cube, out);
                let _ = writeln!(out, "//{pad}}}");
                continue;
            }
            Inst::If {
                cond,
                then_body,
                else_body,
                ..
            } => {
                let _ = writeln!(out, "//{pad}if {} {{", name(*cond));
                describe(p, then_body, depth + 1, cube, out);
                let _ = writeln!(out, "//{pad}}} else {{");
                describe(p, else_body, depth + 1, cube, out);
                let _ = writeln!(out, "//{pad}}}");
                continue;
            }
            Inst::Break => "break".into(),
            Inst::Continue => "continue".into(),
            Inst::Return(v) if v.is_empty() => "return".into(),
            Inst::Return(v) => {
                let v: Vec<String> = v.iter().map(|&x| name(x)).collect();
                format!("return {}", v.join(", "))
            }
            Inst::Call { callee, .. } => format!("call {callee}"),
        };
        let _ = writeln!(out, "//{pad}{line}");
    }
}
