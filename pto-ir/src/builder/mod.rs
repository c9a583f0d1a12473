//! The IRBuilder (seed 001): functions, values, ops and structured statements, with SSA
//! construction (loop-carried values and branch merges) done from environment tables.
//!
//! The builder owns the module it builds into (the seed's only builder state); every other
//! piece of state is in an explicit [`IRBuilderContext`]. The seed's API is here with its
//! semantics (`create_function`, `enter_function_body`, `create_tensor`, `create_scalar`,
//! `create_const_*`, `create_binary_op` / `create_unary_op` / `create_op` + `emit`,
//! `create_op_stmt`, `create_for_stmt` / `enter_for_body` / `exit_for_statement`,
//! `create_if_stmt` / `enter_if_then` / `enter_if_else` / `exit_if_statement`, `create_return`,
//! `create_yield`, env tables), extended to `while`, `break`, `continue` and scopes, plus
//! closure-scoped forms ([`IRBuilder::for_loop`], [`IRBuilder::if_else`],
//! [`IRBuilder::while_loop`]) that cannot leave a scope open.
//!
//! Every misuse (no insertion point, unbalanced scopes, a yield of the wrong arity, ill-typed
//! operands) is a returned [`Diag`], never a panic.

mod context;
mod control;
mod ssa;

pub use context::{IRBuilderContext, ScopeFrame};

use crate::attr::{Attr, Attrs};
use crate::diag::Diag;
use crate::dtype::DataType;
use crate::entity::{FuncId, OpId, StmtId, ValueId};
use crate::env::{Binding, BindingKind, Name};
use crate::module::{FunctionKind, ProgramModule, Signature};
use crate::ops::{self, Opcode};
use crate::stmt::{OpList, Operation, Statement, StmtKind, ValueList};
use crate::types::{TensorFormat, TensorType, TileType, Type};
use crate::value::{Constant, ValueDef};

/// Builds IR into the module it owns.
#[derive(Debug)]
pub struct IRBuilder {
    module: ProgramModule,
}

impl IRBuilder {
    /// A builder over `module`.
    pub fn new(module: ProgramModule) -> Self {
        IRBuilder { module }
    }

    /// The module so far.
    pub fn module(&self) -> &ProgramModule {
        &self.module
    }

    /// The module so far, mutably (for edits the builder has no method for).
    pub fn module_mut(&mut self) -> &mut ProgramModule {
        &mut self.module
    }

    /// The finished module; an error if `ctx` still has open scopes.
    pub fn finish(self, ctx: &IRBuilderContext) -> Result<ProgramModule, Diag> {
        if !ctx.is_balanced() {
            return fail(|| {
                Diag::new(
                    ctx.span,
                    format!(
                        "{} scope(s) were pushed but never popped",
                        ctx.scope_stack.len()
                    ),
                )
            });
        }
        Ok(self.module)
    }

    /// The module, whatever the state of any context.
    pub fn into_module(self) -> ProgramModule {
        self.module
    }

    // ----- module and functions -----

    /// Creates a function (name unique in the module), optionally as the program entry.
    pub fn create_function(
        &mut self,
        name: &str,
        kind: FunctionKind,
        sig: Signature,
        set_as_entry: bool,
    ) -> Result<FuncId, Diag> {
        for p in &sig.params {
            let ok =
                self.module.values.get(p.value).is_some_and(|d| {
                    matches!(d.ty, Type::Scalar(_) | Type::Tile(_) | Type::Tensor(_))
                });
            if !ok {
                return fail(|| {
                    Diag::new(
                        crate::entity::SpanId::NONE,
                        format!("parameters of `@{name}` must be tensors, tiles or scalars"),
                    )
                });
            }
        }
        let f = self
            .module
            .add_function(name, kind, sig, crate::entity::SpanId::NONE)?;
        if set_as_entry {
            self.module.entry = Some(f);
        }
        Ok(f)
    }

    /// Pushes the function's body scope (its parent is the input scope holding the
    /// parameters); the caller pops it with `ctx.pop_scope()`.
    pub fn enter_function_body(
        &mut self,
        ctx: &mut IRBuilderContext,
        func: FuncId,
    ) -> Result<(), Diag> {
        let body = self.module.funcs.get(func).map(|f| f.body).ok_or_else(|| {
            Diag::new(
                ctx.span,
                format!("{func:?} is not a function of this module"),
            )
        })?;
        ctx.push_scope(body, Some(func));
        Ok(())
    }

    // ----- values -----

    /// A new value not bound to any variable (parameters, induction variables, results).
    pub fn new_value(&mut self, ty: Type, name: &str) -> ValueId {
        self.module.new_value(ty, Some(name))
    }

    /// A new symbolic scalar not bound to any variable.
    pub fn new_scalar(&mut self, dtype: DataType, name: &str) -> ValueId {
        self.module.new_value(Type::Scalar(dtype), Some(name))
    }

    fn bind_created(&mut self, ctx: &IRBuilderContext, name: &str, v: ValueId) -> Result<(), Diag> {
        if name.is_empty() {
            return Ok(());
        }
        self.set_env_var(ctx, name, v)
    }

    /// Seed `CreateTensor`: a tensor value of `shape`, bound in the current scope's
    /// environment under `name` (an assignment when `name` is visible from an outer scope).
    pub fn create_tensor(
        &mut self,
        ctx: &IRBuilderContext,
        shape: impl Into<crate::types::Extents>,
        dtype: DataType,
        name: &str,
    ) -> Result<ValueId, Diag> {
        self.insertion_block(ctx)?;
        let v = self.module.new_value(
            Type::Tensor(TensorType {
                dtype,
                shape: shape.into(),
                format: TensorFormat::Nd,
            }),
            Some(name),
        );
        self.bind_created(ctx, name, v)?;
        Ok(v)
    }

    /// A tile value of `shape`, bound like [`IRBuilder::create_tensor`].
    pub fn create_tile(
        &mut self,
        ctx: &IRBuilderContext,
        shape: impl Into<crate::types::Shape>,
        dtype: DataType,
        name: &str,
    ) -> Result<ValueId, Diag> {
        self.insertion_block(ctx)?;
        let v = self
            .module
            .new_value(Type::Tile(TileType::new(dtype, shape)), Some(name));
        self.bind_created(ctx, name, v)?;
        Ok(v)
    }

    /// Seed `CreateScalar`: a symbolic scalar bound in the current scope.
    pub fn create_scalar(
        &mut self,
        ctx: &IRBuilderContext,
        dtype: DataType,
        name: &str,
    ) -> Result<ValueId, Diag> {
        self.insertion_block(ctx)?;
        let v = self.module.new_value(Type::Scalar(dtype), Some(name));
        self.bind_created(ctx, name, v)?;
        Ok(v)
    }

    /// Seed `CreateConst(int64_t)`: an `int64` constant, emitted as `%name = v : int64`.
    pub fn create_const_i64(
        &mut self,
        ctx: &mut IRBuilderContext,
        v: i64,
        name: &str,
    ) -> Result<ValueId, Diag> {
        self.create_const(ctx, Constant::Int64(v), None, name)
    }

    /// Seed `CreateConst(double)`: an `fp64` constant.
    pub fn create_const_f64(
        &mut self,
        ctx: &mut IRBuilderContext,
        v: f64,
        name: &str,
    ) -> Result<ValueId, Diag> {
        self.create_const(ctx, Constant::Double(v), None, name)
    }

    /// A constant of the given scalar type (the constant's own dtype when `None`), emitted
    /// into the current `statement.op` and bound under `name` when it has one.
    pub fn create_const(
        &mut self,
        ctx: &mut IRBuilderContext,
        c: Constant,
        dtype: Option<DataType>,
        name: &str,
    ) -> Result<ValueId, Diag> {
        self.insertion_block(ctx)?;
        let dtype = dtype.unwrap_or(c.inferred_dtype());
        let fits = match c {
            Constant::Bool(_) => dtype == DataType::Bool,
            Constant::Double(_) => dtype.is_float(),
            _ => dtype.is_numeric(),
        };
        if !fits {
            return fail(|| {
                Diag::new(
                    ctx.span,
                    format!("the constant {c} cannot have type {dtype}"),
                )
            });
        }
        let v = self.module.new_constant(
            c,
            Some(Type::Scalar(dtype)),
            if name.is_empty() { None } else { Some(name) },
        );
        let attr = match c {
            Constant::Bool(b) => Attr::Bool(b),
            Constant::Double(f) => Attr::Float(f),
            other => Attr::Int(other.as_i64()),
        };
        let op = self.push_op(
            Opcode::Const,
            ValueList::new(),
            ValueList::from([v]),
            Attrs::of([("value", attr)]),
            ctx.span,
        );
        self.emit(ctx, op)?;
        self.bind_created(ctx, name, v)?;
        Ok(v)
    }

    // ----- ops -----

    /// Seed `CreateBinaryOp`: an op `output = opcode(lhs, rhs)`, not yet placed (see
    /// [`IRBuilder::emit`]). `output` must have been created with a type compatible with
    /// what the op produces; an `Unknown` output type is filled in.
    pub fn create_binary_op(
        &mut self,
        opcode: Opcode,
        lhs: ValueId,
        rhs: ValueId,
        output: ValueId,
    ) -> Result<OpId, Diag> {
        self.create_op(opcode, [lhs, rhs], [output], Attrs::new())
    }

    /// Seed `CreateUnaryOp`: an op `output = opcode(input)`, not yet placed.
    pub fn create_unary_op(
        &mut self,
        opcode: Opcode,
        input: ValueId,
        output: ValueId,
    ) -> Result<OpId, Diag> {
        self.create_op(opcode, [input], [output], Attrs::new())
    }

    /// The op table's typing rule for `opcode`, its failure as a diagnostic at `span`.
    fn infer_at(
        &self,
        opcode: Opcode,
        operands: &[ValueId],
        attrs: &Attrs,
        span: crate::entity::SpanId,
    ) -> Result<ops::ResultTypes, Diag> {
        ops::infer(&self.module, opcode, operands, attrs).map_err(|e| Diag {
            at: span,
            message: e.message,
            notes: e.notes,
        })
    }

    /// Stores an op (not yet placed) and makes it the definition of its results.
    fn push_op(
        &mut self,
        opcode: Opcode,
        operands: ValueList,
        results: ValueList,
        attrs: Attrs,
        span: crate::entity::SpanId,
    ) -> OpId {
        let m = &mut self.module;
        let op = m.ops.push(Operation {
            opcode,
            operands,
            results,
            attrs,
            span,
        });
        for (i, &out) in m.ops[op].results.iter().enumerate() {
            m.values[out].def = ValueDef::OpResult(op, i as u32);
        }
        op
    }

    /// The constructor for any op class: checks operands against the op table's typing rule
    /// and the pre-created outputs against the inferred result types; not yet placed.
    pub fn create_op(
        &mut self,
        opcode: Opcode,
        operands: impl Into<ValueList>,
        outputs: impl Into<ValueList>,
        attrs: Attrs,
    ) -> Result<OpId, Diag> {
        let (operands, outputs) = (operands.into(), outputs.into());
        let span = crate::entity::SpanId::NONE;
        let types = self.infer_at(opcode, &operands, &attrs, span)?;
        if types.len() != outputs.len() {
            return fail(|| {
                Diag::new(
                    span,
                    format!(
                        "`{opcode}` produces {} result(s), {} output value(s) given",
                        types.len(),
                        outputs.len()
                    ),
                )
            });
        }
        for (&out, t) in outputs.iter().zip(&types) {
            let data = self.module.values.get_mut(out).ok_or_else(|| {
                Diag::new(
                    span,
                    format!("output {out:?} is not a value of this module"),
                )
            })?;
            if data.ty == Type::Unknown || ops::same_up_to_valid(&data.ty, t) {
                data.ty = t.clone();
            } else {
                let (have, want) = (
                    crate::typefmt::type_msg(&self.module, &self.module.values[out].ty),
                    crate::typefmt::type_msg(&self.module, t),
                );
                return fail(|| {
                    Diag::new(
                        span,
                        format!("`{opcode}` produces {want}, but its output was created as {have}"),
                    )
                });
            }
        }
        Ok(self.push_op(opcode, operands, outputs, attrs, span))
    }

    /// Seed `Emit`: appends a created op to the active `statement.op` of the current scope,
    /// opening one when none is active. The op takes the context's current span.
    pub fn emit(&mut self, ctx: &mut IRBuilderContext, op: OpId) -> Result<OpId, Diag> {
        let block = self.insertion_block(ctx)?;
        if !self.module.ops.contains(op) {
            return fail(|| Diag::new(ctx.span, format!("{op:?} is not an op of this module")));
        }
        if !self.module.ops[op].span.is_some() {
            self.module.ops[op].span = ctx.span;
        }
        let stmt = match ctx.active_op_stmt {
            Some(s) if self.module.blocks[block].stmts.last() == Some(&s) => s,
            _ => self.create_op_stmt(ctx)?,
        };
        if let StmtKind::Op(list) = &mut self.module.stmts[stmt].kind {
            list.push(op);
        }
        Ok(op)
    }

    /// Creates a typed op, places it, and returns its result (`None` for `tile.store`):
    /// the one-call form the macro uses. The result is named `name` but bound to no variable.
    pub fn build_op(
        &mut self,
        ctx: &mut IRBuilderContext,
        opcode: Opcode,
        operands: impl Into<ValueList>,
        attrs: Attrs,
        name: &str,
    ) -> Result<Option<ValueId>, Diag> {
        self.build_op_list(ctx, opcode, operands.into(), attrs, name)
    }

    /// [`IRBuilder::build_op`] past the conversion of its operands: one copy of the code
    /// for every operand form (arrays of each length, lists) that callers pass.
    fn build_op_list(
        &mut self,
        ctx: &mut IRBuilderContext,
        opcode: Opcode,
        operands: ValueList,
        attrs: Attrs,
        name: &str,
    ) -> Result<Option<ValueId>, Diag> {
        self.insertion_block(ctx)?;
        let types = self.infer_at(opcode, &operands, &attrs, ctx.span)?;
        let mut outputs = ValueList::with_capacity(types.len());
        for t in types {
            let name = if name.is_empty() { None } else { Some(name) };
            outputs.push(self.module.new_value(t, name));
        }
        let first = outputs.first().copied();
        let op = self.push_op(opcode, operands, outputs, attrs, ctx.span);
        self.emit(ctx, op)?;
        Ok(first)
    }

    /// Seed `CreateOpStmt`: opens a new `statement.op` in the current scope and makes it the
    /// active one.
    pub fn create_op_stmt(&mut self, ctx: &mut IRBuilderContext) -> Result<StmtId, Diag> {
        let block = self.insertion_block(ctx)?;
        let s = self.module.push_stmt(
            block,
            Statement {
                kind: StmtKind::Op(OpList::new()),
                span: ctx.span,
            },
        );
        ctx.active_op_stmt = Some(s);
        Ok(s)
    }

    // ----- environment tables -----

    /// Seed `SetEnvVar`: binds `name` to `value` in the current scope. When `name` is
    /// visible from an enclosing scope this is an assignment to that variable (it may make
    /// it loop-carried or branch-merged; under [`IRBuilderContext::strict_mutability`], an
    /// error if the variable is immutable); otherwise it declares a new mutable variable.
    pub fn set_env_var(
        &mut self,
        ctx: &IRBuilderContext,
        name: &str,
        value: ValueId,
    ) -> Result<(), Diag> {
        let block = self.insertion_block(ctx)?;
        let kind = if self.module.blocks[block].env.local(name).is_none()
            && let Some((_, mutable)) = self.lookup_binding(block, name)
        {
            if ctx.strict_mutability && !mutable {
                return Err(unassignable(ctx, name, true));
            }
            BindingKind::Update
        } else {
            BindingKind::Local
        };
        self.module.blocks[block].env.set(
            name,
            Binding {
                value,
                kind,
                mutable: true,
            },
        );
        Ok(())
    }

    /// Seed `GetEnvVar`: the value bound to `name` in the current scope only.
    pub fn get_env_var(&self, ctx: &IRBuilderContext, name: &str) -> Option<ValueId> {
        let block = ctx.compound?;
        self.module
            .blocks
            .get(block)?
            .env
            .get(name)
            .map(|b| b.value)
    }

    /// Seed `GetAncestorValues`: every variable visible from the current scope with its
    /// current value (the nearest binding wins), in no particular order.
    pub fn get_ancestor_values(&self, ctx: &IRBuilderContext) -> Vec<(String, ValueId)> {
        let mut out: Vec<(String, ValueId)> = Vec::new();
        let mut cur = ctx.compound;
        while let Some(b) = cur {
            let Some(block) = self.module.blocks.get(b) else {
                break;
            };
            for (name, binding) in block.env.iter() {
                if !out.iter().any(|(n, _)| n == name) {
                    out.push((name.to_string(), binding.value));
                }
            }
            cur = block.parent;
        }
        out
    }

    /// `let name = value;` (`let mut` when `mutable`): a new variable in the current scope,
    /// shadowing any visible one until the scope ends.
    pub fn declare_var(
        &mut self,
        ctx: &IRBuilderContext,
        name: &str,
        value: ValueId,
        mutable: bool,
    ) -> Result<(), Diag> {
        self.declare_var_named(ctx, Name::from(name), value, mutable)
    }

    /// [`IRBuilder::declare_var`] with a shared name, which the scope keeps without a copy.
    pub fn declare_var_named(
        &mut self,
        ctx: &IRBuilderContext,
        name: Name,
        value: ValueId,
        mutable: bool,
    ) -> Result<(), Diag> {
        let block = self.insertion_block(ctx)?;
        self.module.blocks[block].env.set_named(
            name,
            Binding {
                value,
                kind: BindingKind::Local,
                mutable,
            },
        );
        Ok(())
    }

    /// `name = value;`: assigns the visible variable `name`, which must be mutable.
    pub fn assign_var(
        &mut self,
        ctx: &IRBuilderContext,
        name: &str,
        value: ValueId,
    ) -> Result<(), Diag> {
        self.assign_var_as(ctx, name, value)
    }

    /// [`IRBuilder::assign_var`] with a shared name (the variable's own, say), which the
    /// scope keeps without a copy when it records the assignment.
    pub fn assign_var_named(
        &mut self,
        ctx: &IRBuilderContext,
        name: Name,
        value: ValueId,
    ) -> Result<(), Diag> {
        self.assign_var_as(ctx, name, value)
    }

    fn assign_var_as<N: AsRef<str> + Into<Name>>(
        &mut self,
        ctx: &IRBuilderContext,
        name: N,
        value: ValueId,
    ) -> Result<(), Diag> {
        let block = self.insertion_block(ctx)?;
        match self.lookup_binding(block, name.as_ref()) {
            None => Err(unassignable(ctx, name.as_ref(), false)),
            Some((_, false)) => Err(unassignable(ctx, name.as_ref(), true)),
            Some(_) => {
                if self.parallel_loop_between(block, name.as_ref()).is_some() {
                    return Err(Diag::new(
                        ctx.span,
                        format!(
                            "`{}` is assigned in a parallel loop, which would make it loop-carried",
                            name.as_ref()
                        ),
                    )
                    .note("iterations of a parallel loop are independent: assign a variable declared inside the loop, or use a sequential `for`"));
                }
                let env = &mut self.module.blocks[block].env;
                let kind = if env.local(name.as_ref()).is_some() {
                    BindingKind::Local
                } else {
                    BindingKind::Update
                };
                env.set_as(
                    name,
                    Binding {
                        value,
                        kind,
                        mutable: true,
                    },
                );
                Ok(())
            }
        }
    }

    /// Reads variable `name` as seen from the current scope. Inside a loop, a variable
    /// declared outside it reads as the loop's provisional argument, which becomes an iter
    /// arg if the loop assigns the variable.
    pub fn use_var(&mut self, ctx: &mut IRBuilderContext, name: &str) -> Result<ValueId, Diag> {
        let block = self.insertion_block(ctx)?;
        self.resolve(ctx, block, name).ok_or_else(|| {
            Diag::new(
                ctx.span,
                format!("cannot find value `{name}` in this scope"),
            )
        })
    }

    /// [`IRBuilder::use_var`] for a caller that reports unknown names itself: `None` (and
    /// nothing created) when `name` is not visible or there is no insertion point. One walk
    /// up the scopes, where [`IRBuilder::is_visible`] then `use_var` would take two.
    pub fn read_var(&mut self, ctx: &mut IRBuilderContext, name: &str) -> Option<ValueId> {
        let block = self.insertion_block(ctx).ok()?;
        self.resolve(ctx, block, name)
    }

    /// Whether `name` is visible from the current scope (creates nothing).
    pub fn is_visible(&self, ctx: &IRBuilderContext, name: &str) -> bool {
        ctx.compound
            .is_some_and(|b| self.lookup_binding(b, name).is_some())
    }

    /// Every variable name visible from the current scope (for "did you mean" messages).
    pub fn visible_names(&self, ctx: &IRBuilderContext) -> Vec<String> {
        self.get_ancestor_values(ctx)
            .into_iter()
            .map(|(n, _)| n)
            .collect()
    }
}

/// Fails with the diagnostic `f` builds.
pub(crate) fn fail<T>(f: impl FnOnce() -> Diag) -> Result<T, Diag> {
    Err(f())
}

/// Why `name` cannot be assigned: no such variable, or (`immutable`) a `let` without `mut`.
fn unassignable(ctx: &IRBuilderContext, name: &str, immutable: bool) -> Diag {
    if immutable {
        Diag::new(
            ctx.span,
            format!("cannot assign twice to immutable variable `{name}`"),
        )
        .note(format!(
            "declare it with `let mut {name}` to allow assignment"
        ))
    } else {
        Diag::new(
            ctx.span,
            format!("cannot assign to `{name}`: no such variable"),
        )
    }
}

#[cfg(test)]
mod tests;
