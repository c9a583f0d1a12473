//! The op table: one row per operation. Everything else (builder constructors, printer,
//! parser, verifier, lowering and emitters) reads these rows, so adding an op is one row
//! here, one inference rule in `infer.rs` if its class is new, and one CPU function.
//!
//! A row gives the Rust variant, the dialect and lower-case mnemonic printed in the text
//! (`tile.row_sum`), the seed's `OP_*` spelling the parser also accepts (`tile.OP_MUL`,
//! `tensor.OP_SCALAR_ADD`), the signature class that types and checks it, the PTO-ISA
//! instructions it lowers to (typed [`Isa`] values), what it means per element (a
//! [`Sem`] value naming the function of the semantics module), and how a kernel spells it
//! ([`Spelling`]). For elementwise tile ops the ISA column lists the forms by operand class:
//! tile-tile, tile-scalar, row broadcast, column broadcast.

use std::fmt;
use std::sync::LazyLock;

use rustc_hash::FxHashMap;

pub use super::isa::Isa;
use crate::DataType;
use crate::sem::{Sem, Unary};

/// How an op's operands are typed and its results inferred (see `infer.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// `%c = 3.14 : fp64`: no operands, attribute `value`.
    Const,
    /// `func.call @f(..)`: attribute `callee`, results from the callee's signature.
    Call,
    /// Scalar arithmetic on two scalars of one numeric dtype.
    ScalarArith,
    /// Scalar comparison of two scalars of one dtype, giving `bool`.
    ScalarCompare,
    /// Logical and/or/xor of two `bool`s.
    ScalarLogic,
    /// Bitwise ops and shifts of two integers of one dtype.
    ScalarBitwise,
    /// Negation / absolute value of a numeric scalar.
    ScalarUnary,
    /// Logical not of a `bool`.
    ScalarNot,
    /// Bitwise not of an integer.
    ScalarBitNot,
    /// Conversion to the dtype of attribute `dtype`.
    ScalarCast,
    /// Elementwise on tiles: tile-tile (same shape and dtype), tile-scalar, scalar-tile, or an
    /// `R x C` tile with an `R x 1` (row) / `1 x C` (column) tile broadcast.
    TileBinary,
    /// As `TileBinary`, integer tiles only.
    TileBitwise,
    /// Elementwise unary on a float tile.
    TileUnaryFloat,
    /// Elementwise unary on a numeric tile.
    TileUnary,
    /// Bitwise not of an integer tile.
    TileNot,
    /// Tile conversion to attribute `dtype` (optional `round`).
    TileCast,
    /// Elementwise comparison of two numeric tiles of one shape and dtype, or of a tile and
    /// a scalar, giving a mask (`tile<.., bool>`).
    TileCompare,
    /// `select(mask, a, b)`: `a` where the mask is set, `b` (a tile or a scalar) elsewhere.
    Select,
    /// `R x C -> R x 1`.
    RowReduce,
    /// `R x C -> 1 x C`.
    ColReduce,
    /// `R x C -> R x 1` `int32` column indices of each row's extremum.
    RowArgReduce,
    /// `R x 1 -> R x C` with attribute `shape`.
    RowExpand,
    /// `1 x C -> R x C` with attribute `shape`.
    ColExpand,
    /// `R x C -> C x R`.
    Transpose,
    /// `M x K` by `K x N` into an `M x N` accumulator.
    Matmul,
    /// Accumulator plus `M x K` by `K x N`.
    MatmulAcc,
    /// `M x K` by `K x N` plus a `1 x N` bias.
    MatmulBias,
    /// Sub-tile window: attributes `shape`, `offset`.
    Extract,
    /// Writes a tile into another at attribute `offset`; result has the source's type.
    TileAssemble,
    /// A tile filled with a scalar operand: attributes `shape`, `dtype`.
    Full,
    /// Narrows the valid region to the integer operands.
    Valid,
    /// Tensor window to tile: attributes `shape`, `offset`.
    Load,
    /// Tile to tensor window at attribute `offset`; no result.
    Store,
    /// Tile copy to attribute `loc` (the lowering's moves).
    Move,
    /// Elementwise on tensors: tensor-tensor (same shape) or tensor-scalar.
    TensorBinary,
    /// Elementwise unary on a tensor.
    TensorUnary,
    /// A tensor window: attributes `shape`, `offset`.
    TensorView,
    /// Writes a tensor view into another at attribute `offset`; result has the source's type.
    TensorAssemble,
    /// The same elements (row-major) in the shape of attribute `shape`.
    Reshape,
    /// One element of a tensor at attribute `offset` (one index per dimension), as a scalar.
    ElementRead,
    /// Writes a scalar into one element of a tensor at attribute `offset`; no result.
    ElementWrite,
}

impl OpClass {
    /// Whether the class takes and gives scalars only (constants included): on the CPU these
    /// are plain Rust arithmetic, on the chip the scalar pipe.
    pub fn is_scalar(self) -> bool {
        matches!(
            self,
            OpClass::Const
                | OpClass::ScalarArith
                | OpClass::ScalarCompare
                | OpClass::ScalarLogic
                | OpClass::ScalarBitwise
                | OpClass::ScalarUnary
                | OpClass::ScalarNot
                | OpClass::ScalarBitNot
                | OpClass::ScalarCast
        )
    }
}

impl OpClass {
    /// What a kernel applies an op of this class to; `None` for constants and calls.
    pub fn operand(self) -> Option<Operand> {
        use OpClass::*;
        Some(match self {
            Const | Call => return None,
            ScalarArith | ScalarCompare | ScalarLogic | ScalarBitwise | ScalarUnary | ScalarNot
            | ScalarBitNot | ScalarCast => Operand::Scalar,
            Load | Store | ElementRead | ElementWrite | TensorBinary | TensorUnary | TensorView
            | TensorAssemble => Operand::Tensor,
            TileBinary | TileBitwise | TileUnaryFloat | TileUnary | TileNot | TileCast
            | TileCompare | Select | RowReduce | ColReduce | RowArgReduce | RowExpand
            | ColExpand | Transpose | Matmul | MatmulAcc | MatmulBias | Extract | TileAssemble
            | Full | Valid | Move | Reshape => Operand::Tile,
        })
    }
}

/// How a kernel spells an op. The macro finds the op a kernel means by this spelling and
/// the class of its operands ([`Opcode::spelled`]), and its messages list the spellings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling<'a> {
    /// A literal (constants).
    Literal,
    /// A binary operator (`a + b`, `a && b`) or `as`.
    Operator(&'a str),
    /// A prefix operator (`-a`, `!a`).
    Prefix(&'a str),
    /// A method on the first operand (`a.exp()`, `t.load::<R, C>(..)`).
    Method(&'a str),
    /// A method on the first operand that may also be written as a free function of all
    /// operands: `a.max(b)` or `max(a, b)`.
    MethodOrFunction(&'a str),
    /// A free function (`matmul(a, b)`).
    Function(&'a str),
    /// A tile constructor (`Tile::<T, R, C>::full(v)`).
    Constructor(&'a str),
    /// Not written in a kernel: the lowering introduces it.
    Lowering,
}

/// The table's rows by their spelling's text (`+`, `max`; empty for literals and
/// lowering-only ops), in table order: the index [`Opcode::spelled`] looks a kernel's
/// operators and methods up in.
static BY_TEXT: LazyLock<FxHashMap<&'static str, Vec<&'static OpInfo>>> = LazyLock::new(|| {
    let mut rows: FxHashMap<_, Vec<_>> = FxHashMap::default();
    for r in OPS {
        rows.entry(r.spelling.text()).or_default().push(r);
    }
    rows
});

impl<'a> Spelling<'a> {
    /// Whether a kernel that writes `written` writes this spelling (a `MethodOrFunction` row
    /// is written as either).
    pub fn matches(self, written: Spelling<'_>) -> bool {
        match (self, written) {
            (Spelling::MethodOrFunction(a), Spelling::Method(b) | Spelling::Function(b)) => a == b,
            _ => self == written,
        }
    }

    /// The operator or name (`+`, `max`), empty for literals and lowering-only ops.
    pub fn text(self) -> &'a str {
        match self {
            Spelling::Operator(s)
            | Spelling::Prefix(s)
            | Spelling::Method(s)
            | Spelling::MethodOrFunction(s)
            | Spelling::Function(s)
            | Spelling::Constructor(s) => s,
            Spelling::Literal | Spelling::Lowering => "",
        }
    }
}

/// What a kernel applies an op to, which picks the op a spelling means: `a + b` is
/// `scalar.add` on scalars, `tile.add` when either side is a tile (a mask included), and
/// `tensor.add` on tensors; a method's receiver decides for a method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// Scalars (and literals).
    Scalar,
    /// Tiles.
    Tile,
    /// Tensors (a load's or a store's receiver, tensor-level ops).
    Tensor,
}

/// One row of the op table.
#[derive(Clone, Copy, Debug)]
pub struct OpInfo {
    /// The op.
    pub opcode: Opcode,
    /// Dialect prefix: `scalar`, `tile`, `tensor`, `func`, or empty for constants.
    pub dialect: &'static str,
    /// Lower-case mnemonic.
    pub mnemonic: &'static str,
    /// The seed's `OP_*` spelling, accepted by the parser.
    pub alias: &'static str,
    /// The signature class.
    pub class: OpClass,
    /// PTO-ISA instructions (by operand form for elementwise ops; empty for scalar-unit ops).
    pub isa: &'static [Isa],
    /// The meaning per element (`Sem::None` for ops that are not elementwise).
    pub sem: Sem,
    /// How a kernel writes it.
    pub spelling: Spelling<'static>,
    /// The Rust surface form in a kernel, for messages (`a + b`, `a.row_sum()`, ...).
    pub surface: &'static str,
}

macro_rules! op_table {
    ($( $variant:ident => $dialect:literal $mnemonic:literal $alias:literal $class:ident [$($isa:ident),*] {$sem:expr} {$spelling:expr} $surface:literal; )*) => {
        /// Every operation of PTO-IR (see the op table in `ops/table.rs`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $dialect, ".", $mnemonic, "` (`", $surface, "`)")]
                $variant,
            )*
        }

        /// The op table, one row per [`Opcode`], in declaration order.
        pub static OPS: &[OpInfo] = &[
            $(OpInfo {
                opcode: Opcode::$variant,
                dialect: $dialect,
                mnemonic: $mnemonic,
                alias: $alias,
                class: OpClass::$class,
                isa: &[$(Isa::$isa),*],
                sem: $sem,
                spelling: $spelling,
                surface: $surface,
            },)*
        ];
    };
}

// Short names for the semantics column.
use crate::sem::{Binary::*, Compare::*, Logic::*, Unary::*};
use Sem::{Binary as B, Cast, Compare as C, Logic as L, Unary as U};
use Spelling::*;

op_table! {
    // Constants and calls.
    Const => "" "const" "OP_CONST" Const [] {Sem::None} {Literal} "literal";
    Call => "func" "call" "OP_CALL" Call [] {Sem::None} {Function("f")} "f(..)";
    // Scalar unit arithmetic (seed 004 binary/unary expressions).
    ScalarAdd => "scalar" "add" "OP_SCALAR_ADD" ScalarArith [] {B(Add)} {Operator("+")} "a + b";
    ScalarSub => "scalar" "sub" "OP_SCALAR_SUB" ScalarArith [] {B(Sub)} {Operator("-")} "a - b";
    ScalarMul => "scalar" "mul" "OP_SCALAR_MUL" ScalarArith [] {B(Mul)} {Operator("*")} "a * b";
    ScalarDiv => "scalar" "div" "OP_SCALAR_DIV" ScalarArith [] {B(Div)} {Operator("/")} "a / b";
    ScalarRem => "scalar" "rem" "OP_SCALAR_REM" ScalarArith [] {B(Rem)} {Operator("%")} "a % b";
    ScalarFloorDiv => "scalar" "floordiv" "OP_SCALAR_FLOORDIV" ScalarArith [] {B(FloorDiv)} {Method("floor_div")} "a.floor_div(b)";
    ScalarFloorMod => "scalar" "floormod" "OP_SCALAR_FLOORMOD" ScalarArith [] {B(FloorMod)} {Method("floor_mod")} "a.floor_mod(b)";
    ScalarMin => "scalar" "min" "OP_SCALAR_MIN" ScalarArith [] {B(Min)} {MethodOrFunction("min")} "min(a, b)";
    ScalarMax => "scalar" "max" "OP_SCALAR_MAX" ScalarArith [] {B(Max)} {MethodOrFunction("max")} "max(a, b)";
    ScalarPow => "scalar" "pow" "OP_SCALAR_POW" ScalarArith [] {B(Pow)} {Method("pow")} "a.pow(b)";
    ScalarEq => "scalar" "eq" "OP_SCALAR_EQ" ScalarCompare [] {C(Eq)} {Operator("==")} "a == b";
    ScalarNe => "scalar" "ne" "OP_SCALAR_NE" ScalarCompare [] {C(Ne)} {Operator("!=")} "a != b";
    ScalarLt => "scalar" "lt" "OP_SCALAR_LT" ScalarCompare [] {C(Lt)} {Operator("<")} "a < b";
    ScalarLe => "scalar" "le" "OP_SCALAR_LE" ScalarCompare [] {C(Le)} {Operator("<=")} "a <= b";
    ScalarGt => "scalar" "gt" "OP_SCALAR_GT" ScalarCompare [] {C(Gt)} {Operator(">")} "a > b";
    ScalarGe => "scalar" "ge" "OP_SCALAR_GE" ScalarCompare [] {C(Ge)} {Operator(">=")} "a >= b";
    ScalarAnd => "scalar" "and" "OP_SCALAR_AND" ScalarLogic [] {L(And)} {Operator("&&")} "a && b";
    ScalarOr => "scalar" "or" "OP_SCALAR_OR" ScalarLogic [] {L(Or)} {Operator("||")} "a || b";
    ScalarXor => "scalar" "xor" "OP_SCALAR_XOR" ScalarLogic [] {L(Xor)} {Operator("^")} "a ^ b";
    ScalarBitAnd => "scalar" "bitand" "OP_SCALAR_BITAND" ScalarBitwise [] {B(BitAnd)} {Operator("&")} "a & b";
    ScalarBitOr => "scalar" "bitor" "OP_SCALAR_BITOR" ScalarBitwise [] {B(BitOr)} {Operator("|")} "a | b";
    ScalarBitXor => "scalar" "bitxor" "OP_SCALAR_BITXOR" ScalarBitwise [] {B(BitXor)} {Operator("^")} "a ^ b";
    ScalarShl => "scalar" "shl" "OP_SCALAR_SHL" ScalarBitwise [] {B(Shl)} {Operator("<<")} "a << b";
    ScalarShr => "scalar" "shr" "OP_SCALAR_SHR" ScalarBitwise [] {B(Shr)} {Operator(">>")} "a >> b";
    ScalarNeg => "scalar" "neg" "OP_SCALAR_NEG" ScalarUnary [] {U(Neg)} {Prefix("-")} "-a";
    ScalarAbs => "scalar" "abs" "OP_SCALAR_ABS" ScalarUnary [] {U(Abs)} {Method("abs")} "a.abs()";
    ScalarNot => "scalar" "not" "OP_SCALAR_NOT" ScalarNot [] {U(Not)} {Prefix("!")} "!a";
    ScalarBitNot => "scalar" "bitnot" "OP_SCALAR_BITNOT" ScalarBitNot [] {U(Not)} {Prefix("!")} "!a";
    ScalarCast => "scalar" "cast" "OP_SCALAR_CAST" ScalarCast [] {Cast} {Operator("as")} "a as T";
    // Tile elementwise, by operand form: tile-tile, tile-scalar, row broadcast, column broadcast.
    TileAdd => "tile" "add" "OP_ADD" TileBinary [TAdd, TAddS, TRowExpandAdd, TColExpandAdd] {B(Add)} {Operator("+")} "a + b";
    TileSub => "tile" "sub" "OP_SUB" TileBinary [TSub, TSubS, TRowExpandSub, TColExpandSub] {B(Sub)} {Operator("-")} "a - b";
    TileMul => "tile" "mul" "OP_MUL" TileBinary [TMul, TMulS, TRowExpandMul, TColExpandMul] {B(Mul)} {Operator("*")} "a * b";
    TileDiv => "tile" "div" "OP_DIV" TileBinary [TDiv, TDivS, TRowExpandDiv, TColExpandDiv] {B(Div)} {Operator("/")} "a / b";
    TileMax => "tile" "max" "OP_MAX" TileBinary [TMax, TMaxS, TRowExpandMax, TColExpandMax] {B(Max)} {MethodOrFunction("max")} "a.max(b)";
    TileMin => "tile" "min" "OP_MIN" TileBinary [TMin, TMinS, TRowExpandMin, TColExpandMin] {B(Min)} {MethodOrFunction("min")} "a.min(b)";
    TileRem => "tile" "rem" "OP_REM" TileBinary [TFMod, TFModS] {B(Rem)} {Operator("%")} "a % b";
    TileFloorMod => "tile" "floormod" "OP_FLOORMOD" TileBinary [TRem, TRemS] {B(FloorMod)} {Method("floor_mod")} "a.floor_mod(b)";
    TileAnd => "tile" "and" "OP_AND" TileBitwise [TAnd, TAndS] {B(BitAnd)} {Operator("&")} "a & b";
    TileOr => "tile" "or" "OP_OR" TileBitwise [TOr, TOrS] {B(BitOr)} {Operator("|")} "a | b";
    TileXor => "tile" "xor" "OP_XOR" TileBitwise [TXor, TXorS] {B(BitXor)} {Operator("^")} "a ^ b";
    TileShl => "tile" "shl" "OP_SHL" TileBitwise [TShl, TShlS] {B(Shl)} {Operator("<<")} "a << b";
    TileShr => "tile" "shr" "OP_SHR" TileBitwise [TShr, TShrS] {B(Shr)} {Operator(">>")} "a >> b";
    // Issue 16 part A: masks, compare/select, pow, products, arg-reductions, expands
    TilePow => "tile" "pow" "OP_POW" TileBinary [TPow, TPowS] {B(Pow)} {Method("pow")} "a.pow(b)";
    TileFMod => "tile" "fmod" "OP_FMOD" TileBinary [TFMod, TFModS] {B(Rem)} {Method("fmod")} "a.fmod(b)";
    TileEq => "tile" "eq" "OP_EQ" TileCompare [TCmp, TCmpS] {C(Eq)} {Method("eq")} "a.eq(b)";
    TileNe => "tile" "ne" "OP_NE" TileCompare [TCmp, TCmpS] {C(Ne)} {Method("ne")} "a.ne(b)";
    TileLt => "tile" "lt" "OP_LT" TileCompare [TCmp, TCmpS] {C(Lt)} {Method("lt")} "a.lt(b)";
    TileLe => "tile" "le" "OP_LE" TileCompare [TCmp, TCmpS] {C(Le)} {Method("le")} "a.le(b)";
    TileGt => "tile" "gt" "OP_GT" TileCompare [TCmp, TCmpS] {C(Gt)} {Method("gt")} "a.gt(b)";
    TileGe => "tile" "ge" "OP_GE" TileCompare [TCmp, TCmpS] {C(Ge)} {Method("ge")} "a.ge(b)";
    TileSelect => "tile" "select" "OP_SEL" Select [TSel, TSelS] {Sem::Select} {Method("select")} "m.select(a, b)";
    TileRowProd => "tile" "row_prod" "OP_ROW_PROD" RowReduce [TRowProd] {Sem::None} {Method("row_prod")} "a.row_prod()";
    TileColProd => "tile" "col_prod" "OP_COL_PROD" ColReduce [TColProd] {Sem::None} {Method("col_prod")} "a.col_prod()";
    TileRowArgMax => "tile" "row_argmax" "OP_ROW_ARGMAX" RowArgReduce [TRowArgMax] {Sem::None} {Method("row_argmax")} "a.row_argmax()";
    TileRowArgMin => "tile" "row_argmin" "OP_ROW_ARGMIN" RowArgReduce [TRowArgMin] {Sem::None} {Method("row_argmin")} "a.row_argmin()";
    // Tile unary.
    TileNeg => "tile" "neg" "OP_NEG" TileUnary [TNeg] {U(Neg)} {Prefix("-")} "-a";
    TileAbs => "tile" "abs" "OP_ABS" TileUnary [TAbs] {U(Abs)} {Method("abs")} "a.abs()";
    TileRelu => "tile" "relu" "OP_RELU" TileUnary [TRelu] {U(Relu)} {Method("relu")} "a.relu()";
    TileExp => "tile" "exp" "OP_EXP" TileUnaryFloat [TExp] {U(Exp)} {Method("exp")} "a.exp()";
    TileLog => "tile" "log" "OP_LOG" TileUnaryFloat [TLog] {U(Log)} {Method("log")} "a.log()";
    TileSqrt => "tile" "sqrt" "OP_SQRT" TileUnaryFloat [TSqrt] {U(Sqrt)} {Method("sqrt")} "a.sqrt()";
    TileRsqrt => "tile" "rsqrt" "OP_RSQRT" TileUnaryFloat [TRsqrt] {U(Rsqrt)} {Method("rsqrt")} "a.rsqrt()";
    TileRecip => "tile" "recip" "OP_RECIP" TileUnaryFloat [TRecip] {U(Recip)} {Method("recip")} "a.recip()";
    TileNot => "tile" "not" "OP_NOT" TileNot [TNot] {U(Not)} {Prefix("!")} "!a";
    TileCast => "tile" "cast" "OP_CAST" TileCast [TCvt] {Cast} {Method("cast")} "a.cast::<T>()";
    // Reductions, broadcast, transpose.
    TileRowSum => "tile" "row_sum" "OP_ROW_SUM" RowReduce [TRowSum] {Sem::None} {Method("row_sum")} "a.row_sum()";
    TileRowMax => "tile" "row_max" "OP_ROW_MAX" RowReduce [TRowMax] {Sem::None} {Method("row_max")} "a.row_max()";
    TileRowMin => "tile" "row_min" "OP_ROW_MIN" RowReduce [TRowMin] {Sem::None} {Method("row_min")} "a.row_min()";
    TileColSum => "tile" "col_sum" "OP_COL_SUM" ColReduce [TColSum] {Sem::None} {Method("col_sum")} "a.col_sum()";
    TileColMax => "tile" "col_max" "OP_COL_MAX" ColReduce [TColMax] {Sem::None} {Method("col_max")} "a.col_max()";
    TileColMin => "tile" "col_min" "OP_COL_MIN" ColReduce [TColMin] {Sem::None} {Method("col_min")} "a.col_min()";
    TileRowExpand => "tile" "row_expand" "OP_ROW_EXPAND" RowExpand [TRowExpand] {Sem::None} {Method("row_expand")} "a.row_expand::<C>()";
    TileColExpand => "tile" "col_expand" "OP_COL_EXPAND" ColExpand [TColExpand] {Sem::None} {Method("col_expand")} "a.col_expand::<R>()";
    TileTranspose => "tile" "transpose" "OP_TRANSPOSE" Transpose [TTrans] {Sem::None} {Method("transpose")} "a.transpose()";
    // Matrix.
    TileMatmul => "tile" "matmul" "OP_MATMUL" Matmul [TMatmul] {Sem::None} {Function("matmul")} "matmul(a, b)";
    TileMatmulAcc => "tile" "matmul_acc" "OP_MATMUL_ACC" MatmulAcc [TMatmulAcc] {Sem::None} {Function("matmul_acc")} "matmul_acc(acc, a, b)";
    TileMatmulBias => "tile" "matmul_bias" "OP_MATMUL_BIAS" MatmulBias [TMatmulBias] {Sem::None} {Function("matmul_bias")} "matmul_bias(a, b, bias)";
    TileExtract => "tile" "extract" "OP_EXTRACT" Extract [TExtract] {Sem::None} {Method("extract")} "a.extract::<R, C>([i, j])";
    TileAssemble => "tile" "assemble" "OP_ASSEMBLE" TileAssemble [TInsert] {Sem::None} {Method("insert")} "a.insert([i, j], b)";
    // Constructors, valid regions, memory.
    TileFull => "tile" "full" "OP_FULL" Full [TExpandS] {Sem::None} {Constructor("full")} "Tile::<T, R, C>::full(v)";
    TileValid => "tile" "valid" "OP_VALID" Valid [] {Sem::None} {Method("valid")} "a.valid([m, n])";
    TileLoad => "tile" "load" "OP_LOAD" Load [TLoad] {Sem::None} {Method("load")} "t.load::<R, C>([i, j])";
    TileStore => "tile" "store" "OP_STORE" Store [TStore] {Sem::None} {Method("store")} "t.store([i, j], tile)";
    TileMove => "tile" "move" "OP_MOVE" Move [TMov] {Sem::None} {Lowering} "(lowering)";
    // Issue 16 part B: reshape, insert, padded loads, element access, atomic and converting stores
    TileReshape => "tile" "reshape" "OP_RESHAPE" Reshape [TReshape] {Sem::None} {Method("reshape")} "a.reshape::<R2, C2>()";
    TileRead => "tile" "read" "OP_READ" ElementRead [] {Sem::None} {Method("read")} "t.read([i, j])";
    TileWrite => "tile" "write" "OP_WRITE" ElementWrite [] {Sem::None} {Method("write")} "t.write([i, j], s)";
    TileLoadOr => "tile" "load_or" "OP_LOAD_OR" Load [TLoad, TFillPad] {Sem::None} {Method("load_or")} "t.load_or::<R, C>([i, j], v)";
    TileStoreAdd => "tile" "store_add" "OP_STORE_ADD" Store [TStore] {Sem::None} {Method("store_add")} "out.store_add([i, j], tile)";
    // Tensor level (control_flow / data_flow functions).
    TensorView => "tensor" "view" "OP_VIEW" TensorView [] {Sem::None} {Method("view")} "t.view([sizes], [offsets])";
    TensorAssemble => "tensor" "assemble" "OP_ASSEMBLE" TensorAssemble [] {Sem::None} {Method("assemble")} "out.assemble(v, [offsets])";
    TensorAdd => "tensor" "add" "OP_ADD" TensorBinary [] {B(Add)} {Operator("+")} "a + b";
    TensorSub => "tensor" "sub" "OP_SUB" TensorBinary [] {B(Sub)} {Operator("-")} "a - b";
    TensorMul => "tensor" "mul" "OP_MUL" TensorBinary [] {B(Mul)} {Operator("*")} "a * b";
    TensorDiv => "tensor" "div" "OP_DIV" TensorBinary [] {B(Div)} {Operator("/")} "a / b";
    TensorMax => "tensor" "max" "OP_MAX" TensorBinary [] {B(Max)} {Method("max")} "a.max(b)";
    TensorMin => "tensor" "min" "OP_MIN" TensorBinary [] {B(Min)} {Method("min")} "a.min(b)";
    TensorNeg => "tensor" "neg" "OP_NEG" TensorUnary [] {U(Neg)} {Prefix("-")} "-a";
    TensorExp => "tensor" "exp" "OP_EXP" TensorUnary [] {U(Exp)} {Method("exp")} "a.exp()";
    TensorAbs => "tensor" "abs" "OP_ABS" TensorUnary [] {U(Abs)} {Method("abs")} "a.abs()";
    TensorSqrt => "tensor" "sqrt" "OP_SQRT" TensorUnary [] {U(Sqrt)} {Method("sqrt")} "a.sqrt()";
    TensorRelu => "tensor" "relu" "OP_RELU" TensorUnary [] {U(Relu)} {Method("relu")} "a.relu()";
}

impl Opcode {
    /// This op's table row.
    pub fn info(self) -> &'static OpInfo {
        // Rows are declared in variant order, so the discriminant indexes the table.
        &OPS[self as usize]
    }

    /// Signature class.
    pub fn class(self) -> OpClass {
        self.info().class
    }

    /// `dialect.mnemonic` as printed (`tile.add`), or `const` for constants.
    pub fn full_name(self) -> String {
        let i = self.info();
        if i.dialect.is_empty() {
            i.mnemonic.to_string()
        } else {
            format!("{}.{}", i.dialect, i.mnemonic)
        }
    }

    /// Looks up `dialect.name`, where `name` is a mnemonic or the seed's `OP_*` alias.
    /// Scalar aliases (`OP_SCALAR_ADD`) are accepted under any dialect prefix, as the seed
    /// writes `tensor.OP_SCALAR_ADD`.
    pub fn lookup(dialect: &str, name: &str) -> Option<Opcode> {
        OPS.iter()
            .find(|r| r.dialect == dialect && (r.mnemonic == name || r.alias == name))
            .or_else(|| {
                OPS.iter().find(|r| {
                    r.dialect == "scalar" && r.alias == name && name.starts_with("OP_SCALAR_")
                })
            })
            .map(|r| r.opcode)
    }

    /// The op a kernel means by `spelling` on operands of class `operand`: of the rows so
    /// spelled, the first that accepts `dtype` (the operands' element dtype: `!` is
    /// `scalar.not` on a `bool`, `scalar.bitnot` on an integer), else the first (whose
    /// typing rule then reports the dtype).
    pub fn spelled(
        spelling: Spelling<'_>,
        operand: Operand,
        dtype: Option<DataType>,
    ) -> Option<Opcode> {
        let mut rows = BY_TEXT
            .get(spelling.text())
            .into_iter()
            .flatten()
            .filter(|r| r.spelling.matches(spelling) && r.class.operand() == Some(operand));
        let first = rows.next()?.opcode;
        let accepted = |op: &Opcode| dtype.is_none_or(|d| op.accepts(d));
        if accepted(&first) {
            return Some(first);
        }
        Some(rows.map(|r| r.opcode).find(accepted).unwrap_or(first))
    }

    /// Whether the op accepts element dtype `d` (the dtype of its tile or scalar operands):
    /// the class decides (bitwise ops take integers, transcendental ones floats, logic
    /// `bool`), narrowed by what the semantics column defines.
    pub fn accepts(self, d: DataType) -> bool {
        let numeric = d.is_int() || d.is_float();
        let by_sem = match self.info().sem {
            Sem::Binary(k) => d.is_int() || (d.is_float() && k.on_floats()),
            Sem::Unary(k) => {
                d.is_float()
                    || (d.is_int() && k.on_ints())
                    || (d == DataType::Bool && k == Unary::Not)
            }
            _ => true,
        };
        // Masks (`bool` tiles) combine with `&`, `|`, `^` and `!`.
        if d == DataType::Bool
            && matches!(
                self,
                Opcode::TileAnd | Opcode::TileOr | Opcode::TileXor | Opcode::TileNot
            )
        {
            return true;
        }
        by_sem
            && match self.class() {
                OpClass::ScalarBitwise
                | OpClass::TileBitwise
                | OpClass::ScalarBitNot
                | OpClass::TileNot => d.is_int(),
                OpClass::TileUnaryFloat => d.is_float(),
                OpClass::ScalarLogic | OpClass::ScalarNot => d == DataType::Bool,
                OpClass::ScalarArith
                | OpClass::ScalarUnary
                | OpClass::TileBinary
                | OpClass::TileUnary
                | OpClass::TensorBinary
                | OpClass::TensorUnary
                | OpClass::RowReduce
                | OpClass::ColReduce
                | OpClass::TileCompare
                | OpClass::Select
                | OpClass::RowArgReduce => numeric,
                _ => d.is_concrete(),
            }
    }

    /// Whether the op writes memory outside its results (a store, a `tensor.assemble` into a
    /// tensor, a call), so it must stay even when nobody reads a result.
    pub fn writes_memory(self) -> bool {
        matches!(
            self.class(),
            OpClass::Store | OpClass::Call | OpClass::TensorAssemble | OpClass::ElementWrite
        )
    }

    /// Whether the op reads memory it does not own as an operand value: a load, an
    /// accumulating store (`store_add` reads the window it adds into), a call. Such an op
    /// may not be reordered across a store to the same tensor.
    pub fn reads_memory(self) -> bool {
        matches!(
            self.class(),
            OpClass::Load | OpClass::Call | OpClass::ElementRead
        ) || self == Opcode::TileStoreAdd
    }

    /// Whether the op produces no result.
    pub fn has_no_result(self) -> bool {
        matches!(self.class(), OpClass::Store | OpClass::ElementWrite)
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.full_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_variant_order_and_names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for (i, row) in OPS.iter().enumerate() {
            assert_eq!(row.opcode as usize, i, "{row:?}");
            assert!(
                seen.insert((row.dialect, row.mnemonic)),
                "duplicate {row:?}"
            );
            assert_eq!(Opcode::lookup(row.dialect, row.mnemonic), Some(row.opcode));
        }
    }

    #[test]
    fn memory_effects() {
        // `store_add` reads the window it adds into and writes it: no pass may drop it or
        // move it across another access of the tensor.
        for op in [Opcode::TileStoreAdd, Opcode::TileStore, Opcode::TileWrite] {
            assert!(op.writes_memory() && op.has_no_result(), "{op}");
        }
        for op in [
            Opcode::TileStoreAdd,
            Opcode::TileLoad,
            Opcode::TileLoadOr,
            Opcode::TileRead,
        ] {
            assert!(op.reads_memory(), "{op}");
        }
        assert!(!Opcode::TileStore.reads_memory() && !Opcode::TileRead.writes_memory());
    }

    #[test]
    fn kernel_spellings_resolve_by_operand_and_dtype() {
        use DataType::{Bool, Fp32, Int32};
        let op = |s, o, d| Opcode::spelled(s, o, d);
        assert_eq!(
            op(Operator("+"), Operand::Scalar, Some(Fp32)),
            Some(Opcode::ScalarAdd)
        );
        assert_eq!(
            op(Operator("+"), Operand::Tile, Some(Fp32)),
            Some(Opcode::TileAdd)
        );
        assert_eq!(
            op(Operator("+"), Operand::Tensor, None),
            Some(Opcode::TensorAdd)
        );
        assert_eq!(
            op(Prefix("!"), Operand::Scalar, Some(Bool)),
            Some(Opcode::ScalarNot)
        );
        assert_eq!(
            op(Prefix("!"), Operand::Scalar, Some(Int32)),
            Some(Opcode::ScalarBitNot)
        );
        assert_eq!(
            op(Operator("^"), Operand::Scalar, Some(Bool)),
            Some(Opcode::ScalarXor)
        );
        assert_eq!(
            op(Operator("^"), Operand::Scalar, Some(Int32)),
            Some(Opcode::ScalarBitXor)
        );
        // A `MethodOrFunction` row answers both forms.
        assert_eq!(
            op(Function("max"), Operand::Tile, None),
            Some(Opcode::TileMax)
        );
        assert_eq!(
            op(Method("max"), Operand::Scalar, None),
            Some(Opcode::ScalarMax)
        );
        assert_eq!(
            op(Method("load"), Operand::Tensor, None),
            Some(Opcode::TileLoad)
        );
        // No tile row is spelled `<` (tiles compare with `a.lt(b)`); no dtype gives none.
        assert_eq!(op(Operator("<"), Operand::Tile, Some(Fp32)), None);
        assert_eq!(
            op(Operator("&"), Operand::Scalar, Some(Bool)),
            Some(Opcode::ScalarBitAnd)
        );
    }

    #[test]
    fn seed_spellings_resolve() {
        assert_eq!(Opcode::lookup("tile", "OP_MUL"), Some(Opcode::TileMul));
        assert_eq!(Opcode::lookup("tensor", "OP_MUL"), Some(Opcode::TensorMul));
        assert_eq!(
            Opcode::lookup("tensor", "OP_SCALAR_ADD"),
            Some(Opcode::ScalarAdd)
        );
        assert_eq!(
            Opcode::lookup("tile", "assemble"),
            Some(Opcode::TileAssemble)
        );
        assert_eq!(Opcode::lookup("tile", "nope"), None);
    }
}
