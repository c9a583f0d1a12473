//! Checklist item 2: the program's entry, function names, parameter and return kinds.

use std::collections::HashSet;

use crate::entity::SpanId;
use crate::types::Type;

use super::{Bodies, Verifier};

pub(super) fn check(v: &mut Verifier<'_>, bodies: &Bodies) {
    let m = v.m;
    match m.entry {
        None => v.error(SpanId::NONE, "program has no entry"),
        Some(e) if !bodies.contains(e) => {
            let name = m
                .funcs
                .get(e)
                .map_or_else(|| format!("{e:?}"), |f| format!("`@{}`", f.name));
            v.error(
                SpanId::NONE,
                format!("program entry {name} is not one of the module's functions"),
            );
        }
        Some(_) => {}
    }
    // A lone function has no name to clash with.
    let several = bodies.iter().len() > 1;
    let mut names = HashSet::new();
    for body in bodies.iter() {
        let func = &m.funcs[body.func];
        if several && !names.insert(func.name.as_str()) {
            v.error(
                func.span,
                format!("a function named `@{}` is defined twice", func.name),
            );
        }
        for p in &func.sig.params {
            let t = v.ty(p.value);
            if !matches!(t, Type::Scalar(_) | Type::Tile(_) | Type::Tensor(_)) {
                v.error(
                    func.span,
                    format!(
                        "parameter `{}` of `@{}` is {}; parameters must be scalars, tiles or tensors",
                        v.name(p.value),
                        func.name,
                        v.show(t)
                    ),
                );
            }
        }
        for (i, t) in func.sig.returns.iter().enumerate() {
            if !matches!(t, Type::Scalar(_)) {
                v.error(
                    func.span,
                    format!(
                        "return type {} of `@{}` is {}; only scalars can be returned",
                        i + 1,
                        func.name,
                        v.show(t)
                    ),
                );
            }
        }
    }
    recursion(v, bodies);
}

/// Calls between functions never recurse, directly or through others: each call of a kernel
/// is a launch of its own, and the host code and C++ call the callee's function in place.
/// Reported at every call on a cycle.
fn recursion(v: &mut Verifier<'_>, bodies: &Bodies) {
    let m = v.m;
    // (caller, callee, the call's span), one per call.
    let mut edges = Vec::new();
    for body in bodies.iter() {
        for &o in bodies.ops(body) {
            let op = &m.ops[o];
            if op.opcode != crate::ops::Opcode::Call {
                continue;
            }
            if let Some(crate::attr::Attr::Symbol(name)) = op.attrs.get("callee")
                && let Some(g) = m.function_by_name(name)
            {
                edges.push((body.func, g, op.span));
            }
        }
    }
    if edges.is_empty() {
        return;
    }
    for &(from, to, span) in &edges {
        // Does `to` reach `from`? Then this call closes a cycle.
        let mut seen = vec![to];
        let mut work = vec![to];
        let mut cycle = from == to;
        while let Some(f) = work.pop() {
            for &(a, b, _) in &edges {
                if a == f && !seen.contains(&b) {
                    if b == from {
                        cycle = true;
                    }
                    seen.push(b);
                    work.push(b);
                }
            }
        }
        if cycle {
            v.error(
                span,
                format!(
                    "`@{}` calls `@{}`, which leads back to `@{}`: calls between functions cannot recurse",
                    m.funcs[from].name, m.funcs[to].name, m.funcs[from].name
                ),
            );
        }
    }
}
