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
    // A lone function has no name to clash with (and needs no set, which allocates).
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
}
