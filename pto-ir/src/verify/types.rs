//! Checklist item 4: well-formed types, and op typing through [`crate::ops::infer`].
//!
//! Type well-formedness is decided for every value of the module (with safe lookups), so an
//! op is typed only when all its operand and result types are well formed: `infer` indexes
//! valid regions by dimension and multiplies extents, which a malformed type would break.
//! Problems are reported only for values the functions define, at their definition.

use crate::diag::Diag;
use crate::entity::{EntitySet, OpId, ValueId};
use crate::module::ProgramModule;
use crate::ops::{OpClass, infer, same_up_to_valid};
use crate::stmt::Operation;
use crate::types::{Dim, Type};
use crate::value::Constant;

use super::{Bodies, Defs, Verifier, count};

/// Checks types and op typing; returns the values whose types are well formed and the ops
/// whose typing rule accepts them.
pub(super) fn check(
    v: &mut Verifier<'_>,
    bodies: &Bodies,
    defs: &Defs,
) -> (EntitySet<ValueId>, EntitySet<OpId>) {
    let m = v.m;
    let mut well_typed = EntitySet::with_len(m.values.len());
    let mut typed_ops = EntitySet::with_len(m.ops.len());
    // In id order, which is the order the problems of defined values are reported in.
    for (val, data) in m.values.iter() {
        // Scalars, the most common, without a call.
        let scalar_ok = matches!(data.ty, Type::Scalar(d) if d.is_concrete());
        if scalar_ok || well_formed(m, &data.ty) {
            well_typed.insert(val);
            continue;
        }
        let problems = problems(m, &data.ty);
        if problems.is_empty() {
            well_typed.insert(val);
        } else if let Some(site) = &defs[val] {
            for p in problems {
                v.error(site.span(m), format!("`{}` {p}", v.name(val)));
            }
        }
    }
    for body in bodies.iter() {
        let func = &m.funcs[body.func];
        for (i, t) in func.sig.returns.iter().enumerate() {
            if well_formed(m, t) {
                continue;
            }
            for p in problems(m, t) {
                v.error(
                    func.span,
                    format!("return type {} of `@{}` {p}", i + 1, func.name),
                );
            }
        }
        for &o in bodies.ops(body) {
            if type_op(v, o, &well_typed) {
                typed_ops.insert(o);
            }
        }
    }
    (well_typed, typed_ops)
}

/// Whether [`problems`] finds nothing wrong with a type, decided without spelling anything:
/// most types are well formed, and this keeps the message code off their path.
fn well_formed(m: &ProgramModule, t: &Type) -> bool {
    let sym = |d: &Dim| match d {
        Dim::Value(x) => m.values.get(*x).is_some_and(|data| data.ty.is_int_scalar()),
        _ => true,
    };
    match t {
        Type::Scalar(d) => d.is_concrete(),
        Type::Tile(tt) => {
            let rank = tt.shape.len();
            (1..=4).contains(&rank)
                && tt.valid.len() == rank
                && tt.dtype.is_concrete()
                && tt
                    .shape
                    .iter()
                    .try_fold(
                        1u64,
                        |acc, &s| if s == 0 { None } else { acc.checked_mul(s) },
                    )
                    .is_some_and(|n| n.checked_mul(64).is_some())
                && tt.valid.iter().zip(&tt.shape).all(|(v, &s)| match *v {
                    Dim::Const(c) => c != 0 && c <= s,
                    _ => sym(v),
                })
        }
        Type::Tensor(tt) => {
            (1..=4).contains(&tt.shape.len())
                && tt.dtype.is_concrete()
                && tt.shape.iter().all(|s| *s != Dim::Const(0) && sym(s))
        }
        Type::Tuple(ts) => ts.iter().all(|t| well_formed(m, t)),
        Type::Pipe(_) => true,
        Type::Unknown => false,
    }
}

/// What is wrong with a type, as phrases that follow a value's name (none exactly when
/// [`well_formed`] holds).
pub(super) fn problems(m: &ProgramModule, t: &Type) -> Vec<String> {
    let mut out = Vec::new();
    let dtype = |out: &mut Vec<String>, d: crate::DataType| {
        if !d.is_concrete() {
            out.push(format!("has element type {d}; expected a concrete dtype"));
        }
    };
    let sym = |out: &mut Vec<String>, d: &Dim| {
        if let Dim::Value(x) = d {
            match m.values.get(*x) {
                Some(data) if data.ty.is_int_scalar() => {}
                Some(data) => out.push(format!(
                    "has extent `{}` of type {}; symbolic extents must be integer scalars",
                    data.ssa_name(),
                    crate::typefmt::type_msg(m, &data.ty)
                )),
                None => out.push(format!(
                    "has extent {x:?}, which is not a value of this module"
                )),
            }
        }
    };
    match t {
        Type::Scalar(d) => dtype(&mut out, *d),
        Type::Tile(tt) => {
            let rank = tt.shape.len();
            if !(1..=4).contains(&rank) {
                out.push(format!("is a rank-{rank} tile; tiles have rank 1 to 4"));
            }
            for (d, &s) in tt.shape.iter().enumerate() {
                if s == 0 {
                    out.push(format!(
                        "is a tile with extent 0 in dimension {d}; static extents must be positive"
                    ));
                }
            }
            if tt
                .shape
                .iter()
                .try_fold(1u64, |acc, &s| acc.checked_mul(s))
                .is_none_or(|n| n.checked_mul(64).is_none())
            {
                out.push(format!(
                    "is a tile of shape {:?}, too large to address",
                    tt.shape
                ));
            }
            if tt.valid.len() != rank {
                out.push(format!(
                    "has {} for a rank-{rank} tile",
                    count(tt.valid.len(), "valid extent")
                ));
            } else {
                for (d, (v, &s)) in tt.valid.iter().zip(&tt.shape).enumerate() {
                    match *v {
                        Dim::Const(0) => out.push(format!("has valid extent 0 in dimension {d}; valid extents must be positive")),
                        Dim::Const(c) if c > s => out.push(format!(
                            "has valid extent {c} in dimension {d}, larger than the tile's extent {s}"
                        )),
                        _ => {}
                    }
                }
            }
            for v in &tt.valid {
                sym(&mut out, v);
            }
            dtype(&mut out, tt.dtype);
        }
        Type::Tensor(tt) => {
            let rank = tt.shape.len();
            if !(1..=4).contains(&rank) {
                out.push(format!("is a rank-{rank} tensor; tensors have rank 1 to 4"));
            }
            for (d, s) in tt.shape.iter().enumerate() {
                if *s == Dim::Const(0) {
                    out.push(format!("is a tensor with extent 0 in dimension {d}; static extents must be positive"));
                }
                sym(&mut out, s);
            }
            dtype(&mut out, tt.dtype);
        }
        Type::Tuple(ts) => {
            for t in ts {
                out.extend(problems(m, t));
            }
        }
        Type::Pipe(_) => {}
        Type::Unknown => out.push("has an unknown type".to_string()),
    }
    out
}

/// Checks op `o`'s typing rule; whether it accepts the op.
fn type_op(v: &mut Verifier<'_>, o: OpId, well_typed: &EntitySet<ValueId>) -> bool {
    let m = v.m;
    let op = &m.ops[o];
    // Spelled only for a message.
    let name = || op.opcode.full_name();
    if op.opcode.class() == OpClass::Const {
        type_const(v, op);
        return true;
    }
    let mut all_well_typed = op
        .operands
        .iter()
        .chain(&op.results)
        .all(|&x| well_typed.contains(x));
    op.attrs
        .for_each_value(&mut |x| all_well_typed &= well_typed.contains(x));
    if !all_well_typed {
        // The malformed type is reported at its definition.
        return false;
    }
    let types = match infer(m, op.opcode, &op.operands, &op.attrs) {
        Err(e) => {
            let mut d = Diag::new(op.span, e.message);
            d.notes = e.notes;
            v.push(d);
            return false;
        }
        Ok(types) => types,
    };
    if types.len() != op.results.len() {
        v.error(
            op.span,
            format!(
                "`{}` produces {}, but the op defines {}",
                name(),
                count(types.len(), "result"),
                count(op.results.len(), "result")
            ),
        );
        return false;
    }
    let mut ok = true;
    for (&r, want) in op.results.iter().zip(&types) {
        let got = v.ty(r);
        if !same_up_to_valid(got, want) {
            ok = false;
            v.error(
                op.span,
                format!(
                    "`{}` result `{}` has type {}, expected {}",
                    name(),
                    v.name(r),
                    v.show(got),
                    v.show(want)
                ),
            );
        }
    }
    ok
}

fn type_const(v: &mut Verifier<'_>, op: &Operation) {
    if !op.operands.is_empty() {
        v.error(
            op.span,
            format!("a constant takes no operands, found {}", op.operands.len()),
        );
    }
    let [r] = op.results[..] else {
        v.error(
            op.span,
            format!(
                "a constant defines exactly one result, found {}",
                op.results.len()
            ),
        );
        return;
    };
    let data = &v.m.values[r];
    // Spelled only for a message.
    let name = || data.ssa_name();
    let Some(c) = data.constant else {
        v.error(
            op.span,
            format!("constant `{}` has no literal value", name()),
        );
        return;
    };
    let Type::Scalar(d) = data.ty else {
        v.error(
            op.span,
            format!(
                "constant `{}` has type {}; constants are scalars",
                name(),
                v.show(&data.ty)
            ),
        );
        return;
    };
    let (fits, what) = match c {
        Constant::Bool(_) => (d == crate::DataType::Bool, "bool"),
        Constant::Double(_) => (d.is_float(), "float"),
        Constant::Int(_) | Constant::Int64(_) | Constant::SizeT(_) => {
            (d.is_int() || d.is_float(), "integer")
        }
    };
    if !fits {
        v.error(
            op.span,
            format!(
                "constant `{}` of type {d} cannot hold the {what} literal {c}",
                name()
            ),
        );
    }
}
