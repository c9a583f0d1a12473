//! The kernel body to `IRBuilder` calls.
//!
//! The macro only maps Rust names to builder variables (`declare_var` / `assign_var` /
//! `use_var`); SSA construction (loop-carried values, branch merges) is the builder's job.
//! Every op and statement is created after `ctx.set_span(id)`, where `id` indexes the
//! [`SpanTable`], so every diagnostic of the builder, the verifier and the lowering maps back
//! to the user's tokens.
//!
//! Error recovery: an ill-typed `let` leaves its name *poisoned* (later uses are silently
//! skipped, so one mistake gives one error), an ill-typed condition or loop bound is replaced
//! by a placeholder constant so the body is still checked, and scopes are always popped.

mod access;
mod call;
mod control;
mod expr;
mod ops;
mod scope;
mod spans;
mod stmt;
mod values;

use rustc_hash::FxHashSet;

use pto_ir::{
    Attr, BlockId, DataType, Diag, FuncId, IRBuilder, IRBuilderContext, Name, ProgramModule,
    Signature, SpanId, TensorFormat, TensorType, TileType, Type, ValueId,
};

use crate::args::Args;
use crate::ctxt::{Errors, range_of};
use crate::model::{DimSpec, Kernel, ParamTy};
use ops::rs;
use spans::SpanTable;

/// The result of lowering: the verified module and the span table for later diagnostics.
pub(crate) struct Lowered<'k> {
    pub module: ProgramModule,
    pub func: FuncId,
    pub spans: SpanTable<'k>,
}

/// Marker: an error was reported for this expression.
#[derive(Clone, Copy, Debug)]
struct Poison;

type R<T> = Result<T, Poison>;

/// An expression's value: an IR value, or a literal whose type the context fixes.
#[derive(Clone, Copy, Debug)]
enum Val {
    V(ValueId),
    Int(i64, SpanId),
    Float(f64, SpanId),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tail {
    /// The function body: a tail expression is the return value.
    Func,
    /// An `if` branch used as a value.
    Value,
    /// Any other block: no value.
    Unit,
}

struct Lower<'k, 'e> {
    b: IRBuilder,
    ctx: IRBuilderContext,
    spans: SpanTable<'k>,
    errs: &'e mut Errors,
    kernel: &'k Kernel<'k>,
    /// Names whose `let` failed: uses are skipped without a second error.
    poisoned: FxHashSet<Name>,
    /// The bodies that have ended, in the order they ended, with their construct (`for`
    /// loop ...). Their blocks keep the names declared in them, which an unknown name is
    /// looked up in, so nothing is recorded per name while lowering.
    ended: Vec<(BlockId, &'static str)>,
    /// Spelling buffers for identifiers, reused by [`Lower::with_name`].
    names: Vec<String>,
    /// Whether the function body ended in `return` / a tail value.
    returned: bool,
}

/// Lowers the kernel into a verified module; `None` when errors were reported.
pub(crate) fn lower<'k>(k: &'k Kernel<'k>, args: &Args, errs: &mut Errors) -> Option<Lowered<'k>> {
    let name = crate::model::with_spelling(k.ident, str::to_string);
    let mut module = ProgramModule::new(name.clone());
    module.attrs.set("arch", Attr::Str(args.arch.clone()));
    // Room for a typical kernel up front: growing the arenas a doubling at a time would
    // copy every value and statement several times over.
    module.values.reserve(128);
    module.ops.reserve(64);
    module.stmts.reserve(64);
    module.blocks.reserve(32);
    let mut ctx = IRBuilderContext::new();
    // The kernel language assigns only `let mut` variables (through `assign_var`).
    ctx.strict_mutability = true;
    let mut lw = Lower {
        b: IRBuilder::new(module),
        ctx,
        spans: SpanTable::new(range_of(k.ident)),
        errs,
        kernel: k,
        poisoned: FxHashSet::default(),
        // Every loop body and `if` branch ends once: room for a typical kernel's.
        ended: Vec::with_capacity(16),
        names: Vec::new(),
        returned: false,
    };
    // Parameters, then the symbolic dimensions they mention (created once, shared by name).
    // The model spelled every name once; values share those names rather than copying them.
    let mut dims: Vec<(&Name, ValueId)> = Vec::new();
    let mut params = Vec::with_capacity(k.params.len());
    for p in &k.params {
        if matches!(p.ty, ParamTy::Invalid) {
            lw.poisoned.insert(Name::clone(&p.name));
            continue;
        }
        let v =
            lw.b.module_mut()
                .new_value_named(Type::Unknown, Some(Name::clone(&p.name)));
        let ty = match &p.ty {
            ParamTy::Scalar(d) => Type::Scalar(*d),
            ParamTy::Tensor { dtype, dims: ds } => {
                let mut shape = pto_ir::Extents::new();
                for d in ds {
                    shape.push(match d {
                        DimSpec::Const(c) => pto_ir::Dim::Const(*c),
                        DimSpec::Sym { name, .. } => {
                            let dv = match dims.iter().find(|(n, _)| *n == name) {
                                Some(&(_, dv)) => dv,
                                None => {
                                    let dv = lw.b.module_mut().new_value_named(
                                        Type::Scalar(DataType::Int64),
                                        Some(Name::clone(name)),
                                    );
                                    dims.push((name, dv));
                                    dv
                                }
                            };
                            pto_ir::Dim::Value(dv)
                        }
                    });
                }
                Type::Tensor(TensorType {
                    dtype: *dtype,
                    shape,
                    format: TensorFormat::Nd,
                })
            }
            ParamTy::Tile { dtype, shape } => Type::Tile(TileType::new(*dtype, shape.clone())),
            ParamTy::Invalid => Type::Unknown,
        };
        if let Some(d) = lw.b.module_mut().values.get_mut(v) {
            d.ty = ty;
        }
        params.push(pto_ir::Param {
            value: v,
            direction: p.direction,
        });
    }
    let returns = k
        .ret_dtype()
        .map(|d| vec![Type::Scalar(d)])
        .unwrap_or_default();
    let sig = Signature { params, returns };
    let func = match lw.b.create_function(&name, args.kind, sig, true) {
        Ok(f) => f,
        Err(d) => {
            let e = lw.spans.error(&d);
            lw.errs.push(e);
            return None;
        }
    };
    if let Err(d) = lw.b.enter_function_body(&mut lw.ctx, func) {
        let e = lw.spans.error(&d);
        lw.errs.push(e);
        return None;
    }
    let stmts = &k.body.stmts;
    lw.block(stmts, Tail::Func, None);
    if let Err(d) = lw.ctx.pop_scope() {
        lw.report(d);
    }
    if let Some(Some((d, ty))) = k.ret
        && !lw.returned
    {
        lw.errs.push_spanned(
            ty,
            format!(
                "the kernel returns `{}`, but its body does not end in a value; end it with a `{}` expression or `return v;`",
                rs(d),
                rs(d)
            ),
        );
    }
    let Lower {
        b,
        ctx,
        spans,
        errs,
        ..
    } = lw;
    // The verifier's errors are reported with the builder's: what was built of a kernel with
    // errors still verifies (ops that failed were not built, nor what used them).
    let built_with_errors = !errs.is_empty();
    let module = match b.finish(&ctx) {
        Ok(m) => m,
        Err(d) => {
            if !built_with_errors {
                errs.push(spans.error(&d));
            }
            return None;
        }
    };
    if let Err(ds) = pto_ir::verify(&module) {
        // A statement that failed leaves its block without the terminator it would have
        // ended in: those verifier errors only echo a builder error already reported.
        let echo = |d: &Diag| {
            built_with_errors
                && (d.message.contains("must end in") || d.message.contains("does not end in"))
        };
        for d in ds.iter().filter(|d| !echo(d)) {
            errs.push(spans.error(d));
        }
        return None;
    }
    if built_with_errors {
        return None;
    }
    Some(Lowered {
        module,
        func,
        spans,
    })
}
