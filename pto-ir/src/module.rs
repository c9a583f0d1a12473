//! Functions and the program module (seed 003 `Program` / `Function`, seed 004 `Function`).
//!
//! A [`ProgramModule`] owns every arena (values, ops, statements, blocks, functions), the
//! module-wide SSA counter, its attributes and its entry. Function names are unique and the
//! entry names one of the functions (checked by the builder and the verifier).

use crate::attr::Attrs;
use crate::diag::Diag;
use crate::entity::{Arena, BlockId, FuncId, OpId, SpanId, StmtId, ValueId};
use crate::env::{EnvTable, Name};
use crate::stmt::{Block, BlockRole, Operation, Statement, StmtList};
use crate::types::Type;
use crate::value::{Constant, ValueData, ValueDef};

/// What a function is for: seed 003's `func.kind` (`control_flow`, `data_flow`, `kernel`)
/// and seed 004's `FunctionType` (`Opaque`, `Orchestration`, `InCore`). The two sets are
/// one enum, printed with each set's own spelling; the pairs that mean the same place are
/// `control_flow` / `Orchestration` (host or AICPU side: control flow and calls) and
/// `kernel` / `InCore` (one AICore); `data_flow` and `Opaque` have no counterpart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum FunctionKind {
    /// Host-side control flow.
    ControlFlow,
    /// The root data-flow function.
    DataFlow,
    /// A leaf tile kernel.
    #[default]
    Kernel,
    /// Seed 004: not specified.
    Opaque,
    /// Seed 004: runs on the host / AICPU, launching `InCore` functions.
    Orchestration,
    /// Seed 004: a subgraph on one AICore (what `outline-incore` makes of a scope).
    InCore,
}

impl FunctionKind {
    /// Every kind.
    pub const ALL: [FunctionKind; 6] = [
        Self::ControlFlow,
        Self::DataFlow,
        Self::Kernel,
        Self::Opaque,
        Self::Orchestration,
        Self::InCore,
    ];

    /// The printed name.
    pub fn name(self) -> &'static str {
        match self {
            FunctionKind::ControlFlow => "control_flow",
            FunctionKind::DataFlow => "data_flow",
            FunctionKind::Kernel => "kernel",
            FunctionKind::Opaque => "Opaque",
            FunctionKind::Orchestration => "Orchestration",
            FunctionKind::InCore => "InCore",
        }
    }

    /// Parses a printed name (either set's spelling).
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// Parameter direction (seed 004 `ParamDirection`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Direction {
    /// Read only (the default).
    #[default]
    In,
    /// Write only.
    Out,
    /// Read and written.
    InOut,
}

impl Direction {
    /// The printed mark (`#in`, `#out`, `#inout`).
    pub fn mark(self) -> &'static str {
        match self {
            Direction::In => "#in",
            Direction::Out => "#out",
            Direction::InOut => "#inout",
        }
    }
}

/// A function parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// The parameter's value.
    pub value: ValueId,
    /// Its direction.
    pub direction: Direction,
}

/// A function signature: parameters, the symbolic dimensions they mention, and return types.
#[derive(Clone, Debug, Default)]
pub struct Signature {
    /// Parameters in order.
    pub params: Vec<Param>,
    /// Return types (scalars).
    pub returns: Vec<Type>,
}

/// A function.
#[derive(Clone, Debug)]
pub struct Function {
    /// Name, unique in the module.
    pub name: String,
    /// Kind.
    pub kind: FunctionKind,
    /// Parameters and return types.
    pub sig: Signature,
    /// Symbolic dimensions appearing in parameter types, defined at entry (`%B_1`).
    pub dims: Vec<ValueId>,
    /// Custom attributes.
    pub attrs: Attrs,
    /// The scope holding the parameters (seed `inputCompound_`).
    pub inputs: BlockId,
    /// The body (seed `compound_`), a child of `inputs`.
    pub body: BlockId,
    /// Source location.
    pub span: SpanId,
}

/// A whole program: the unit printed, parsed and verified.
#[derive(Clone, Debug)]
pub struct ProgramModule {
    /// Module name (`@main`).
    pub name: String,
    /// The entry function.
    pub entry: Option<FuncId>,
    /// Module attributes (`attr key = value`), in order.
    pub attrs: Attrs,
    /// Functions in print order.
    pub functions: Vec<FuncId>,
    /// Function storage.
    pub funcs: Arena<FuncId, Function>,
    /// Value storage.
    pub values: Arena<ValueId, ValueData>,
    /// Operation storage.
    pub ops: Arena<OpId, Operation>,
    /// Statement storage.
    pub stmts: Arena<StmtId, Statement>,
    /// Block storage.
    pub blocks: Arena<BlockId, Block>,
    /// Next SSA number.
    pub next_number: u32,
}

impl ProgramModule {
    /// An empty module.
    pub fn new(name: impl Into<String>) -> Self {
        ProgramModule {
            name: name.into(),
            entry: None,
            attrs: Attrs::new(),
            functions: Vec::new(),
            funcs: Arena::new(),
            values: Arena::new(),
            ops: Arena::new(),
            stmts: Arena::new(),
            blocks: Arena::new(),
            next_number: 0,
        }
    }

    /// Creates a value with the next SSA number.
    pub fn new_value(&mut self, ty: Type, name: Option<&str>) -> ValueId {
        let number = self.next_number;
        self.new_value_numbered(ty, name, number)
    }

    /// Creates a value with the next SSA number, named by a shared name (no copy).
    pub fn new_value_named(&mut self, ty: Type, name: Option<Name>) -> ValueId {
        let number = self.next_number;
        self.push_value(ty, name.filter(|n| !n.is_empty()), number)
    }

    /// Creates a value with a given SSA number (the parser keeps the text's numbers).
    pub fn new_value_numbered(&mut self, ty: Type, name: Option<&str>, number: u32) -> ValueId {
        let name = name.filter(|n| !n.is_empty()).map(Name::from);
        self.push_value(ty, name, number)
    }

    /// Takes the next SSA number without creating a value (for a value the builder can do
    /// without, so that the numbers of the others stay as they were).
    pub fn skip_number(&mut self) {
        self.next_number = self.next_number.saturating_add(1);
    }

    fn push_value(&mut self, ty: Type, name: Option<Name>, number: u32) -> ValueId {
        self.next_number = self.next_number.max(number.saturating_add(1));
        self.values.push(ValueData {
            name,
            number,
            ty,
            constant: None,
            def: ValueDef::Free,
        })
    }

    /// Creates a constant scalar of `ty` (the constant's dtype unless given).
    pub fn new_constant(&mut self, c: Constant, ty: Option<Type>, name: Option<&str>) -> ValueId {
        let ty = ty.unwrap_or_else(|| Type::Scalar(c.inferred_dtype()));
        let v = self.new_value(ty, name);
        self.values[v].constant = Some(c);
        v
    }

    /// A value's data.
    pub fn value(&self, v: ValueId) -> &ValueData {
        &self.values[v]
    }

    /// A value's type.
    pub fn ty(&self, v: ValueId) -> &Type {
        &self.values[v].ty
    }

    /// A value's printed SSA name.
    pub fn ssa_name(&self, v: ValueId) -> String {
        match self.values.get(v) {
            Some(d) => d.ssa_name(),
            None => format!("<invalid {v:?}>"),
        }
    }

    /// Appends [`ProgramModule::ssa_name`] of `v` to `out`.
    pub fn write_ssa_name(&self, v: ValueId, out: &mut String) {
        match self.values.get(v) {
            Some(d) => d.write_ssa_name(out),
            None => {
                use std::fmt::Write;
                let _ = write!(out, "<invalid {v:?}>");
            }
        }
    }

    /// A new empty block.
    pub fn new_block(
        &mut self,
        parent: Option<BlockId>,
        owner: Option<StmtId>,
        role: BlockRole,
    ) -> BlockId {
        self.blocks.push(Block {
            stmts: StmtList::new(),
            parent,
            owner,
            role,
            env: EnvTable::new(),
        })
    }

    /// Appends a statement to a block.
    pub fn push_stmt(&mut self, block: BlockId, stmt: Statement) -> StmtId {
        let id = self.stmts.push(stmt);
        self.blocks[block].stmts.push(id);
        id
    }

    /// Finds a function by name.
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .copied()
            .find(|&f| self.funcs[f].name == name)
    }

    /// Adds an (empty-bodied) function, checking the name is unique.
    pub fn add_function(
        &mut self,
        name: &str,
        kind: FunctionKind,
        sig: Signature,
        span: SpanId,
    ) -> Result<FuncId, Diag> {
        if self.function_by_name(name).is_some() {
            return Err(Diag::new(
                span,
                format!("a function named `@{name}` already exists in the module"),
            ));
        }
        let inputs = self.new_block(None, None, BlockRole::FuncInputs);
        let body = self.new_block(Some(inputs), None, BlockRole::FuncBody);
        let f = self.funcs.push(Function {
            name: name.to_string(),
            kind,
            sig,
            dims: Vec::new(),
            attrs: Attrs::new(),
            inputs,
            body,
            span,
        });
        self.functions.push(f);
        // The arenas are borrowed apart so names and types are read in place, not cloned.
        let (params, values, env) = (
            &self.funcs[f].sig.params,
            &mut self.values,
            &mut self.blocks[inputs].env,
        );
        let local = |value| crate::env::Binding {
            value,
            kind: crate::env::BindingKind::Local,
            mutable: false,
        };
        // Symbolic dimensions mentioned in parameter types are defined at entry: each value
        // of this module that is not a parameter, once, in order of first mention.
        let mut unique = Vec::new();
        for p in params {
            if let Some(data) = values.get(p.value) {
                for_each_dim(&data.ty, &mut |d| {
                    if !params.iter().any(|p| p.value == d)
                        && !unique.contains(&d)
                        && values.contains(d)
                    {
                        unique.push(d);
                    }
                });
            }
        }
        // The input scope binds the parameters, then the dimensions: room for all at once.
        env.reserve_locals(params.len() + unique.len());
        for (i, p) in params.iter().enumerate() {
            if let Some(d) = values.get_mut(p.value) {
                d.def = ValueDef::Param(f, i as u32);
                if let Some(name) = &d.name {
                    env.set_named(Name::clone(name), local(p.value));
                }
            }
        }
        for &d in &unique {
            let data = &mut values[d];
            if data.def == ValueDef::Free {
                data.def = ValueDef::Dim(f);
            }
            if let Some(name) = &data.name {
                env.set_named(Name::clone(name), local(d));
            }
        }
        self.funcs[f].dims = unique;
        Ok(f)
    }

    /// The function that contains a block (walking up to its input scope).
    pub fn function_of_block(&self, mut b: BlockId) -> Option<FuncId> {
        while let Some(p) = self.blocks[b].parent {
            b = p;
        }
        self.functions
            .iter()
            .copied()
            .find(|&f| self.funcs[f].inputs == b)
    }

    /// Number of operations reachable from the functions.
    pub fn op_count(&self) -> usize {
        self.ops.len()
    }
}

/// The values named by symbolic extents of a type.
pub fn collect_dims(t: &Type, out: &mut Vec<ValueId>) {
    for_each_dim(t, &mut |v| out.push(v));
}

/// Calls `f` with each value named by a symbolic extent of a type, in the order
/// [`collect_dims`] lists them (for a walk that needs no list).
pub fn for_each_dim(t: &Type, f: &mut impl FnMut(ValueId)) {
    use crate::types::Dim;
    let mut visit = |d: &Dim| {
        if let Dim::Value(v) = d {
            f(*v);
        }
    };
    match t {
        Type::Tile(tt) => tt.valid.iter().for_each(&mut visit),
        Type::Tensor(tt) => tt.shape.iter().for_each(&mut visit),
        Type::Tuple(ts) => ts.iter().for_each(|t| for_each_dim(t, f)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::FunctionKind;

    #[test]
    fn both_sets_of_function_kinds_print_and_parse() {
        for k in FunctionKind::ALL {
            assert_eq!(FunctionKind::from_name(k.name()), Some(k));
        }
        assert_eq!(
            FunctionKind::from_name("InCore"),
            Some(FunctionKind::InCore)
        );
        assert_eq!(
            FunctionKind::from_name("Orchestration"),
            Some(FunctionKind::Orchestration)
        );
        assert_eq!(
            FunctionKind::from_name("control_flow"),
            Some(FunctionKind::ControlFlow)
        );
        assert_eq!(FunctionKind::from_name("incore"), None);
    }
}
