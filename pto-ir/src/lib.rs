//! PTO-IR: the tile-level SSA IR for PTO accelerators.
//!
//! The data model ([`ProgramModule`] with arenas of values, ops, statements and blocks), the
//! op table ([`ops`]), the [`IRBuilder`] with automatic loop-carried values and branch
//! merges, the statement text format (printer via `Display`, [`parse()`]), the [`verify()`]
//! verifier and [`structurally_equal`].
// Input-driven paths return errors; a panic on user input is a bug.
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod attr;
pub mod builder;
pub mod diag;
pub mod dtype;
pub mod entity;
pub mod env;
pub mod eq;
pub mod inline;
pub mod module;
pub mod ops;
pub mod parse;
mod print;
pub mod sem;
pub mod stmt;
pub mod typefmt;
pub mod types;
pub mod value;
pub mod verify;

pub use attr::{Attr, AttrEntry, AttrKey, Attrs};
pub use builder::{IRBuilder, IRBuilderContext};
pub use diag::{Diag, Diagnostics, LineCol};
pub use dtype::DataType;
pub use entity::{BlockId, FuncId, OpId, SpanId, StmtId, ValueId};
pub use env::Name;
pub use eq::structurally_equal;
pub use inline::InlineVec;
pub use module::{Direction, Function, FunctionKind, Param, ProgramModule, Signature};
pub use ops::{OpClass, Opcode};
pub use parse::parse;
pub use print::MAX_NESTING;
pub use stmt::{
    Block, BlockRole, ForKind, ForStmt, IfStmt, IterArg, IterArgs, OpList, Operation, ScopeKind,
    Statement, StmtKind, StmtList, ValueList, WhileStmt,
};
pub use types::{
    Dim, Extents, MemRef, MemorySpace, PipeKind, Shape, TensorFormat, TensorType, TileType, Type,
};
pub use value::{Constant, ValueData, ValueDef, ValueKind};
pub use verify::verify;
