//! The typing rule of `func.call`: arguments against the callee's signature.

use super::*;

pub(super) fn call(cx: &Cx<'_>) -> R<ResultTypes> {
    let callee = match cx.attr("callee")? {
        Attr::Symbol(s) => s,
        _ => {
            return fail(|| {
                InferError::new("`func.call` attribute `callee` must be a symbol `@name`")
            });
        }
    };
    let f = cx.m.function_by_name(callee).ok_or_else(|| {
        let names: Vec<String> =
            cx.m.functions
                .iter()
                .map(|&f| format!("@{}", cx.m.funcs[f].name))
                .collect();
        InferError::new(format!("call to unknown function `@{callee}`")).note(format!(
            "functions in this module: {}",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ))
    })?;
    let func = &cx.m.funcs[f];
    if func.sig.params.len() != cx.operands.len() {
        return fail(|| {
            InferError::new(format!(
                "`@{callee}` takes {} argument{}, found {}",
                func.sig.params.len(),
                if func.sig.params.len() == 1 { "" } else { "s" },
                cx.operands.len()
            ))
        });
    }
    for (i, p) in func.sig.params.iter().enumerate() {
        let want = &cx.m.values[p.value].ty;
        let got = cx.ty(i);
        if !call_compatible(want, got) {
            return fail(|| {
                InferError::new(format!(
                    "argument {} of `@{callee}` is {}, expected {}",
                    i + 1,
                    cx.show(got),
                    cx.show(want)
                ))
            });
        }
    }
    // A tensor the callee writes must be writable here, and passed once: the callee may
    // write it while it reads its other arguments.
    for (i, p) in func.sig.params.iter().enumerate() {
        if p.direction == crate::module::Direction::In || !matches!(cx.ty(i), Type::Tensor(_)) {
            continue;
        }
        let Some(&v) = cx.operands.get(i) else {
            continue;
        };
        let read_only = match cx.m.values[v].def {
            crate::value::ValueDef::Param(g, k) => {
                cx.m.funcs
                    .get(g)
                    .and_then(|g| g.sig.params.get(k as usize))
                    .is_some_and(|q| q.direction == crate::module::Direction::In)
            }
            _ => false,
        };
        let name = cx.m.ssa_name(v);
        if read_only {
            return fail(|| {
                InferError::new(format!(
                    "argument {} of `@{callee}` is written by it ({}), but `{name}` is read only here (`#in`)",
                    i + 1,
                    p.direction.mark()
                ))
                .note("declare the caller's parameter `&mut Tensor<..>` to pass it on")
            });
        }
        if cx.operands.iter().filter(|&&o| o == v).count() > 1 {
            return fail(|| {
                InferError::new(format!(
                    "`{name}` is passed to `@{callee}` more than once, and `@{callee}` writes it (argument {}); a tensor a call writes is passed once",
                    i + 1
                ))
            });
        }
    }
    let mut types = ResultTypes::from(func.sig.returns.as_slice());
    for t in &mut types {
        if let Type::Tile(tt) = t {
            tt.memref = None;
        }
    }
    Ok(types)
}
/// A call argument matches a parameter when kind, dtype and rank agree and static extents
/// are equal (a parameter's symbolic extent accepts any extent).
pub(super) fn call_compatible(want: &Type, got: &Type) -> bool {
    match (want, got) {
        (Type::Tensor(w), Type::Tensor(g)) => {
            w.dtype == g.dtype
                && w.shape.len() == g.shape.len()
                && w.shape
                    .iter()
                    .zip(&g.shape)
                    .all(|(a, b)| !matches!((a, b), (Dim::Const(x), Dim::Const(y)) if x != y))
        }
        (Type::Tile(w), Type::Tile(g)) => w.dtype == g.dtype && w.shape == g.shape,
        _ => want == got,
    }
}
