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
mod tensor;
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
pub(crate) use spans::SpanTable;

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
    /// Whether the function body ended in `return` / a tail value.
    returned: bool,
    /// Whether the kernel is one of a `#[pto::program]`'s (which may call the others).
    in_program: bool,
}

/// Lowers the kernel into a verified module; `None` when errors were reported.
pub(crate) fn lower<'k>(k: &'k Kernel<'k>, args: &Args, errs: &mut Errors) -> Option<Lowered<'k>> {
    let name = crate::model::spelling(k.ident);
    let mut module = ProgramModule::new(name.clone());
    module.attrs.set("arch", Attr::Str(args.arch.clone()));
    let mut b = IRBuilder::new(module);
    let spans = SpanTable::new(range_of(k.ident));
    let (func, poisoned) = declare(&mut b, &spans, errs, k, &name, args.kind, true)?;
    let (b, mut spans, ok) = lower_body(b, spans, errs, k, func, poisoned, false);
    // The verifier's errors are reported with the builder's: what was built of a kernel with
    // errors still verifies (ops that failed were not built, nor what used them).
    let module = verified(b.into_module(), &mut spans, errs, !ok)?;
    if !ok {
        return None;
    }
    Some(Lowered {
        module,
        func,
        spans,
    })
}

/// Creates function `name` for kernel `k` (its parameters, the symbolic dimensions they
/// mention, its signature), without a body yet; returns it with the names of the
/// parameters whose type was invalid (poisoned in the body).
pub(crate) fn declare(
    b: &mut IRBuilder,
    spans: &SpanTable<'_>,
    errs: &mut Errors,
    k: &Kernel<'_>,
    name: &str,
    kind: pto_ir::FunctionKind,
    entry: bool,
) -> Option<(FuncId, Vec<Name>)> {
    let mut poisoned = Vec::new();
    // Parameters, then the symbolic dimensions they mention (created once, shared by name).
    // The model spelled every name once; values share those names rather than copying them.
    let mut dims: Vec<(&Name, ValueId)> = Vec::new();
    let mut params = Vec::with_capacity(k.params.len());
    for p in &k.params {
        if matches!(p.ty, ParamTy::Invalid) {
            poisoned.push(Name::clone(&p.name));
            continue;
        }
        let v = b
            .module_mut()
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
                                    let dv = b.module_mut().new_value_named(
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
        if let Some(d) = b.module_mut().values.get_mut(v) {
            d.ty = ty;
        }
        params.push(pto_ir::Param {
            value: v,
            direction: p.direction,
        });
    }
    let returns = k.ret_dtypes().into_iter().map(Type::Scalar).collect();
    let sig = Signature { params, returns };
    match b.create_function(name, kind, sig, entry) {
        Ok(f) => Some((f, poisoned)),
        Err(d) => {
            errs.push(spans.error(&d));
            None
        }
    }
}

/// Lowers the body of kernel `k` into its function `func` (made by [`declare`]); returns
/// the builder and the span table back, and whether the body was built without errors.
pub(crate) fn lower_body<'k>(
    b: IRBuilder,
    spans: SpanTable<'k>,
    errs: &mut Errors,
    k: &'k Kernel<'k>,
    func: FuncId,
    poisoned: Vec<Name>,
    in_program: bool,
) -> (IRBuilder, SpanTable<'k>, bool) {
    let before = errs.len();
    let mut ctx = IRBuilderContext::new();
    // The kernel language assigns only `let mut` variables (through `assign_var`).
    ctx.strict_mutability = true;
    let mut lw = Lower {
        b,
        ctx,
        spans,
        errs,
        kernel: k,
        poisoned: poisoned.into_iter().collect(),
        ended: Vec::new(),
        returned: false,
        in_program,
    };
    if let Err(d) = lw.b.enter_function_body(&mut lw.ctx, func) {
        lw.report(d);
        let Lower { b, spans, .. } = lw;
        return (b, spans, false);
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
    if let Some((_, ty)) = &k.ret_tuple
        && !lw.returned
    {
        lw.errs.push_spanned(
            ty,
            "the kernel returns a tuple, but its body does not end in one; end it with a `(a, b)` expression or `return (a, b);`",
        );
    }
    let Lower {
        b,
        ctx,
        spans,
        errs,
        ..
    } = lw;
    let ok = errs.len() == before;
    if ok && !ctx.is_balanced() {
        let d = Diag::new(SpanId::NONE, "a scope was pushed but never popped");
        errs.push(spans.error(&d));
        return (b, spans, false);
    }
    (b, spans, ok)
}

/// Verifies a module built without errors (`built_with_errors`: with some, whose echoes
/// the verifier's errors would repeat); `None` when it does not verify.
pub(crate) fn verified(
    module: ProgramModule,
    spans: &mut SpanTable<'_>,
    errs: &mut Errors,
    built_with_errors: bool,
) -> Option<ProgramModule> {
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
    Some(module)
}
