//! The op table: one row per operation. Everything else (builder constructors, printer,
//! parser, verifier, lowering and emitters) reads these rows, so adding an op is one row
//! here, one inference rule in `infer.rs` if its class is new, and one CPU function.
//!
//! A row gives the Rust variant, the dialect and lower-case mnemonic printed in the text
//! (`tile.row_sum`), the seed's `OP_*` spelling the parser also accepts (`tile.OP_MUL`,
//! `tensor.OP_SCALAR_ADD`), the signature class that types and checks it, and the PTO-ISA
//! instructions it lowers to. For elementwise tile ops the ISA column lists the forms by
//! operand class: tile-tile, tile-scalar, row broadcast, column broadcast.

use std::fmt;

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
    /// `R x C -> R x 1`.
    RowReduce,
    /// `R x C -> 1 x C`.
    ColReduce,
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
    pub isa: &'static [&'static str],
    /// The Rust surface form in a kernel, for messages (`a + b`, `a.row_sum()`, ...).
    pub surface: &'static str,
}

macro_rules! op_table {
    ($( $variant:ident => $dialect:literal $mnemonic:literal $alias:literal $class:ident [$($isa:literal),*] $surface:literal; )*) => {
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
                isa: &[$($isa),*],
                surface: $surface,
            },)*
        ];
    };
}

op_table! {
    // Constants and calls.
    Const => "" "const" "OP_CONST" Const [] "literal";
    Call => "func" "call" "OP_CALL" Call [] "f(..)";
    // Scalar unit arithmetic (seed 004 binary/unary expressions).
    ScalarAdd => "scalar" "add" "OP_SCALAR_ADD" ScalarArith [] "a + b";
    ScalarSub => "scalar" "sub" "OP_SCALAR_SUB" ScalarArith [] "a - b";
    ScalarMul => "scalar" "mul" "OP_SCALAR_MUL" ScalarArith [] "a * b";
    ScalarDiv => "scalar" "div" "OP_SCALAR_DIV" ScalarArith [] "a / b";
    ScalarRem => "scalar" "rem" "OP_SCALAR_REM" ScalarArith [] "a % b";
    ScalarFloorDiv => "scalar" "floordiv" "OP_SCALAR_FLOORDIV" ScalarArith [] "floor(a / b)";
    ScalarFloorMod => "scalar" "floormod" "OP_SCALAR_FLOORMOD" ScalarArith [] "a - floor(a / b) * b";
    ScalarMin => "scalar" "min" "OP_SCALAR_MIN" ScalarArith [] "min(a, b)";
    ScalarMax => "scalar" "max" "OP_SCALAR_MAX" ScalarArith [] "max(a, b)";
    ScalarPow => "scalar" "pow" "OP_SCALAR_POW" ScalarArith [] "a.pow(b)";
    ScalarEq => "scalar" "eq" "OP_SCALAR_EQ" ScalarCompare [] "a == b";
    ScalarNe => "scalar" "ne" "OP_SCALAR_NE" ScalarCompare [] "a != b";
    ScalarLt => "scalar" "lt" "OP_SCALAR_LT" ScalarCompare [] "a < b";
    ScalarLe => "scalar" "le" "OP_SCALAR_LE" ScalarCompare [] "a <= b";
    ScalarGt => "scalar" "gt" "OP_SCALAR_GT" ScalarCompare [] "a > b";
    ScalarGe => "scalar" "ge" "OP_SCALAR_GE" ScalarCompare [] "a >= b";
    ScalarAnd => "scalar" "and" "OP_SCALAR_AND" ScalarLogic [] "a && b";
    ScalarOr => "scalar" "or" "OP_SCALAR_OR" ScalarLogic [] "a || b";
    ScalarXor => "scalar" "xor" "OP_SCALAR_XOR" ScalarLogic [] "a ^ b";
    ScalarBitAnd => "scalar" "bitand" "OP_SCALAR_BITAND" ScalarBitwise [] "a & b";
    ScalarBitOr => "scalar" "bitor" "OP_SCALAR_BITOR" ScalarBitwise [] "a | b";
    ScalarBitXor => "scalar" "bitxor" "OP_SCALAR_BITXOR" ScalarBitwise [] "a ^ b";
    ScalarShl => "scalar" "shl" "OP_SCALAR_SHL" ScalarBitwise [] "a << b";
    ScalarShr => "scalar" "shr" "OP_SCALAR_SHR" ScalarBitwise [] "a >> b";
    ScalarNeg => "scalar" "neg" "OP_SCALAR_NEG" ScalarUnary [] "-a";
    ScalarAbs => "scalar" "abs" "OP_SCALAR_ABS" ScalarUnary [] "a.abs()";
    ScalarNot => "scalar" "not" "OP_SCALAR_NOT" ScalarNot [] "!a";
    ScalarBitNot => "scalar" "bitnot" "OP_SCALAR_BITNOT" ScalarBitNot [] "!a";
    ScalarCast => "scalar" "cast" "OP_SCALAR_CAST" ScalarCast [] "a as T";
    // Tile elementwise, by operand form: tile-tile, tile-scalar, row broadcast, column broadcast.
    TileAdd => "tile" "add" "OP_ADD" TileBinary ["TADD", "TADDS", "TROWEXPANDADD", "TCOLEXPANDADD"] "a + b";
    TileSub => "tile" "sub" "OP_SUB" TileBinary ["TSUB", "TSUBS", "TROWEXPANDSUB", "TCOLEXPANDSUB"] "a - b";
    TileMul => "tile" "mul" "OP_MUL" TileBinary ["TMUL", "TMULS", "TROWEXPANDMUL", "TCOLEXPANDMUL"] "a * b";
    TileDiv => "tile" "div" "OP_DIV" TileBinary ["TDIV", "TDIVS", "TROWEXPANDDIV", "TCOLEXPANDDIV"] "a / b";
    TileMax => "tile" "max" "OP_MAX" TileBinary ["TMAX", "TMAXS", "TROWEXPANDMAX", "TCOLEXPANDMAX"] "a.max(b)";
    TileMin => "tile" "min" "OP_MIN" TileBinary ["TMIN", "TMINS", "TROWEXPANDMIN", "TCOLEXPANDMIN"] "a.min(b)";
    TileRem => "tile" "rem" "OP_REM" TileBinary ["TREM", "TREMS"] "a % b";
    TileAnd => "tile" "and" "OP_AND" TileBitwise ["TAND", "TANDS"] "a & b";
    TileOr => "tile" "or" "OP_OR" TileBitwise ["TOR", "TORS"] "a | b";
    TileXor => "tile" "xor" "OP_XOR" TileBitwise ["TXOR", "TXORS"] "a ^ b";
    TileShl => "tile" "shl" "OP_SHL" TileBitwise ["TSHL", "TSHLS"] "a << b";
    TileShr => "tile" "shr" "OP_SHR" TileBitwise ["TSHR", "TSHRS"] "a >> b";
    // Tile unary.
    TileNeg => "tile" "neg" "OP_NEG" TileUnary ["TNEG"] "-a";
    TileAbs => "tile" "abs" "OP_ABS" TileUnary ["TABS"] "a.abs()";
    TileRelu => "tile" "relu" "OP_RELU" TileUnary ["TRELU"] "a.relu()";
    TileExp => "tile" "exp" "OP_EXP" TileUnaryFloat ["TEXP"] "a.exp()";
    TileLog => "tile" "log" "OP_LOG" TileUnaryFloat ["TLOG"] "a.log()";
    TileSqrt => "tile" "sqrt" "OP_SQRT" TileUnaryFloat ["TSQRT"] "a.sqrt()";
    TileRsqrt => "tile" "rsqrt" "OP_RSQRT" TileUnaryFloat ["TRSQRT"] "a.rsqrt()";
    TileRecip => "tile" "recip" "OP_RECIP" TileUnaryFloat ["TRECIP"] "a.recip()";
    TileNot => "tile" "not" "OP_NOT" TileNot ["TNOT"] "!a";
    TileCast => "tile" "cast" "OP_CAST" TileCast ["TCVT"] "a.cast::<T>()";
    // Reductions, broadcast, transpose.
    TileRowSum => "tile" "row_sum" "OP_ROW_SUM" RowReduce ["TROWSUM"] "a.row_sum()";
    TileRowMax => "tile" "row_max" "OP_ROW_MAX" RowReduce ["TROWMAX"] "a.row_max()";
    TileRowMin => "tile" "row_min" "OP_ROW_MIN" RowReduce ["TROWMIN"] "a.row_min()";
    TileColSum => "tile" "col_sum" "OP_COL_SUM" ColReduce ["TCOLSUM"] "a.col_sum()";
    TileColMax => "tile" "col_max" "OP_COL_MAX" ColReduce ["TCOLMAX"] "a.col_max()";
    TileColMin => "tile" "col_min" "OP_COL_MIN" ColReduce ["TCOLMIN"] "a.col_min()";
    TileRowExpand => "tile" "row_expand" "OP_ROW_EXPAND" RowExpand ["TROWEXPAND"] "a.row_expand::<R, C>()";
    TileColExpand => "tile" "col_expand" "OP_COL_EXPAND" ColExpand ["TCOLEXPAND"] "a.col_expand::<R, C>()";
    TileTranspose => "tile" "transpose" "OP_TRANSPOSE" Transpose ["TTRANS"] "a.transpose()";
    // Matrix.
    TileMatmul => "tile" "matmul" "OP_MATMUL" Matmul ["TMATMUL"] "matmul(a, b)";
    TileMatmulAcc => "tile" "matmul_acc" "OP_MATMUL_ACC" MatmulAcc ["TMATMUL_ACC"] "matmul_acc(acc, a, b)";
    TileMatmulBias => "tile" "matmul_bias" "OP_MATMUL_BIAS" MatmulBias ["TMATMUL_BIAS"] "matmul_bias(a, b, bias)";
    TileExtract => "tile" "extract" "OP_EXTRACT" Extract ["TEXTRACT"] "a.extract::<R, C>([i, j])";
    TileAssemble => "tile" "assemble" "OP_ASSEMBLE" TileAssemble ["TINSERT"] "dst.assemble(src, [i, j])";
    // Constructors, valid regions, memory.
    TileFull => "tile" "full" "OP_FULL" Full ["TEXPANDS"] "Tile::<T, R, C>::full(v)";
    TileValid => "tile" "valid" "OP_VALID" Valid [] "a.valid([m, n])";
    TileLoad => "tile" "load" "OP_LOAD" Load ["TLOAD"] "t.load::<R, C>([i, j])";
    TileStore => "tile" "store" "OP_STORE" Store ["TSTORE"] "t.store([i, j], tile)";
    TileMove => "tile" "move" "OP_MOVE" Move ["TMOV"] "(lowering)";
    // Tensor level (control_flow / data_flow functions).
    TensorView => "tensor" "view" "OP_VIEW" TensorView [] "t.view([sizes], [offsets])";
    TensorAssemble => "tensor" "assemble" "OP_ASSEMBLE" TensorAssemble [] "out.assemble(v, [offsets])";
    TensorAdd => "tensor" "add" "OP_ADD" TensorBinary [] "a + b";
    TensorSub => "tensor" "sub" "OP_SUB" TensorBinary [] "a - b";
    TensorMul => "tensor" "mul" "OP_MUL" TensorBinary [] "a * b";
    TensorDiv => "tensor" "div" "OP_DIV" TensorBinary [] "a / b";
    TensorMax => "tensor" "max" "OP_MAX" TensorBinary [] "a.max(b)";
    TensorMin => "tensor" "min" "OP_MIN" TensorBinary [] "a.min(b)";
    TensorNeg => "tensor" "neg" "OP_NEG" TensorUnary [] "-a";
    TensorExp => "tensor" "exp" "OP_EXP" TensorUnary [] "a.exp()";
    TensorAbs => "tensor" "abs" "OP_ABS" TensorUnary [] "a.abs()";
    TensorSqrt => "tensor" "sqrt" "OP_SQRT" TensorUnary [] "a.sqrt()";
    TensorRelu => "tensor" "relu" "OP_RELU" TensorUnary [] "a.relu()";
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

    /// Whether the op produces no result.
    pub fn has_no_result(self) -> bool {
        matches!(self.class(), OpClass::Store)
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
