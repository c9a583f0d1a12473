//! Pass 2, canonicalize views (seed 002 section 8 step 2): every tensor view is rewritten
//! early into its base form, base + offset + stride, so later passes see one level of views.
//!
//! - A view of a view becomes a view of the base tensor at the summed offsets
//!   (`view(view(t, o1), o2) = view(t, o1 + o2)`; the verifier checked each window inside its
//!   source, so the sum stays inside the base).
//! - Each view records the base's row-major strides in elements (`stride=[64, 1]`); a
//!   stride with a symbolic extent in it is a value computed before the view.
//! - A load from a view whose window lies inside the view at constant offsets reads the
//!   base directly at the summed offsets. A load that may reach past the view's edge is kept,
//!   because it stops at the view's edge, not the base's. Stores into a view are kept, as
//!   they write the view (which `tensor.assemble` writes back), and so are loads from a view
//!   something writes.
//!
//! Offsets that are values are added with `scalar.add` ops placed just before the op that
//! needs them; constants are summed in place. Nothing else changes.

use std::collections::{HashMap, HashSet};

use pto_ir::{
    Attr, Attrs, Diagnostics, Dim, OpId, Opcode, ProgramModule, SpanId, StmtKind, Type, ValueId,
};

use super::Pass;
use crate::walk::{Tree, constant, scalar_op};

/// The canonicalize-views pass.
pub struct CanonicalizeViews;

impl Pass for CanonicalizeViews {
    fn name(&self) -> &'static str {
        "canonicalize-views"
    }

    fn run(&self, m: &mut ProgramModule) -> Result<(), Diagnostics> {
        for k in 0..m.functions.len() {
            let tree = Tree::of(m, m.functions[k]);
            // A view's base tensor and its offsets from the base, for views already rewritten.
            let mut bases: HashMap<ValueId, (ValueId, Vec<Attr>)> = HashMap::new();
            // Tensors some op writes: a view written to holds what was stored into it, which
            // its base does not, so loads from it are kept.
            let mut written = HashSet::new();
            for &s in &tree.stmts {
                if let StmtKind::Op(ops) = &m.stmts[s].kind {
                    for &op in ops.iter() {
                        if m.ops[op].opcode.writes_memory() {
                            written.extend(m.ops[op].operands.iter().copied());
                        }
                    }
                }
            }
            for &s in &tree.stmts {
                let StmtKind::Op(ops) = &m.stmts[s].kind else {
                    continue;
                };
                let mut out = Vec::new();
                for op in ops.clone() {
                    rewrite(m, op, &mut bases, &written, &mut out);
                    out.push(op);
                }
                m.stmts[s].kind = StmtKind::Op(out.into_iter().collect());
            }
        }
        Ok(())
    }
}

/// Rewrites `op` in place; new ops it needs go to `before`.
fn rewrite(
    m: &mut ProgramModule,
    op: OpId,
    bases: &mut HashMap<ValueId, (ValueId, Vec<Attr>)>,
    written: &HashSet<ValueId>,
    before: &mut Vec<OpId>,
) {
    let o = &m.ops[op];
    let span = o.span;
    let Some(&src) = o.operands.first() else {
        return;
    };
    let offsets = o
        .attrs
        .get("offset")
        .and_then(Attr::as_list)
        .map(<[Attr]>::to_vec)
        .unwrap_or_default();
    match o.opcode {
        Opcode::TensorView => {
            let (base, summed) = match bases.get(&src) {
                Some((base, outer)) => match add_offsets(m, outer, &offsets, span, before) {
                    Some(sum) => (*base, sum),
                    None => (src, offsets),
                },
                None => (src, offsets),
            };
            let stride = strides(m, base, span, before);
            let o = &mut m.ops[op];
            o.operands[0] = base;
            set_attr(&mut o.attrs, "offset", Attr::List(summed.clone()));
            if let Some(stride) = stride {
                set_attr(&mut o.attrs, "stride", Attr::List(stride));
            }
            if let Some(&result) = o.results.first() {
                bases.insert(result, (base, summed));
            }
        }
        Opcode::TileLoad if !written.contains(&src) => {
            let Some((base, outer)) = bases.get(&src).cloned() else {
                return;
            };
            let view_shape: Vec<Dim> = match m.ty(src) {
                Type::Tensor(t) => t.shape.iter().copied().collect(),
                _ => return,
            };
            let window = o
                .attrs
                .get("shape")
                .and_then(Attr::as_list)
                .map(<[Attr]>::to_vec)
                .unwrap_or_default();
            let inside = offsets.len() == view_shape.len()
                && window.len() == view_shape.len()
                && offsets
                    .iter()
                    .zip(&window)
                    .zip(&view_shape)
                    .all(|((p, w), d)| match (p.as_int(), w.as_int(), d) {
                        (Some(p), Some(w), Dim::Const(d)) => {
                            p >= 0 && w >= 0 && (p as u64).saturating_add(w as u64) <= *d
                        }
                        _ => false,
                    });
            if !inside {
                return;
            }
            if let Some(sum) = add_offsets(m, &outer, &offsets, span, before) {
                let o = &mut m.ops[op];
                o.operands[0] = base;
                set_attr(&mut o.attrs, "offset", Attr::List(sum));
            }
        }
        _ => {}
    }
}

fn set_attr(attrs: &mut Attrs, key: &'static str, value: Attr) {
    match attrs.0.iter_mut().find(|(k, _)| k == key) {
        Some((_, v)) => *v = value,
        None => attrs.0.push((key.into(), value)),
    }
}

/// `a + b` per dimension; `None` when the two cannot be added (mixed integer dtypes).
fn add_offsets(
    m: &mut ProgramModule,
    a: &[Attr],
    b: &[Attr],
    span: SpanId,
    before: &mut Vec<OpId>,
) -> Option<Vec<Attr>> {
    if a.len() != b.len() {
        return None;
    }
    let mut out = Vec::new();
    for (x, y) in a.iter().zip(b) {
        out.push(match (x, y) {
            (Attr::Int(x), Attr::Int(y)) => Attr::Int(x.checked_add(*y)?),
            (Attr::Int(0), v @ Attr::Value(_)) | (v @ Attr::Value(_), Attr::Int(0)) => v.clone(),
            (Attr::Value(v), Attr::Int(c)) | (Attr::Int(c), Attr::Value(v)) => {
                let d = m.ty(*v).as_scalar()?;
                let c = constant(m, d, *c, None, span, before);
                Attr::Value(scalar_op(m, Opcode::ScalarAdd, *v, c, None, span, before))
            }
            (Attr::Value(p), Attr::Value(q)) => {
                if m.ty(*p) != m.ty(*q) {
                    return None;
                }
                Attr::Value(scalar_op(m, Opcode::ScalarAdd, *p, *q, None, span, before))
            }
            _ => return None,
        });
    }
    Some(out)
}

/// The row-major strides of tensor `t` in elements; `None` for an extent known only at
/// run time without a value.
fn strides(
    m: &mut ProgramModule,
    t: ValueId,
    span: SpanId,
    before: &mut Vec<OpId>,
) -> Option<Vec<Attr>> {
    let shape: Vec<Dim> = match m.ty(t) {
        Type::Tensor(tt) => tt.shape.iter().copied().collect(),
        _ => return None,
    };
    let mut out = vec![Attr::Int(1); shape.len()];
    // The stride so far, as a constant factor and the value it multiplies (if any).
    let (mut k, mut v): (i64, Option<ValueId>) = (1, None);
    for d in (1..shape.len()).rev() {
        match shape[d] {
            Dim::Const(c) => k = k.checked_mul(i64::try_from(c).ok()?)?,
            Dim::Value(x) => {
                v = Some(match v {
                    None => x,
                    Some(p) if m.ty(p) == m.ty(x) => {
                        scalar_op(m, Opcode::ScalarMul, p, x, None, span, before)
                    }
                    Some(_) => return None,
                })
            }
            Dim::Dynamic => return None,
        }
        out[d - 1] = match v {
            None => Attr::Int(k),
            Some(x) if k == 1 => Attr::Value(x),
            Some(x) => {
                let dt = m.ty(x).as_scalar()?;
                let c = constant(m, dt, k, None, span, before);
                Attr::Value(scalar_op(m, Opcode::ScalarMul, x, c, None, span, before))
            }
        };
    }
    Some(out)
}
