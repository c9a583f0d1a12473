//! Rust operators and method names to ops, and the lists of methods messages show.

use pto_ir::ops::{OPS, OpInfo, Spelling};
use pto_ir::sem::RoundMode;
use pto_ir::{DataType, OpClass, Opcode};
use syn::{BinOp, Expr, Ident};

use crate::model::with_spelling;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Max,
    Min,
    FloorDiv,
    FloorMod,
}

impl Bin {
    pub(super) fn scalar(self) -> Opcode {
        match self {
            Bin::Add => Opcode::ScalarAdd,
            Bin::Sub => Opcode::ScalarSub,
            Bin::Mul => Opcode::ScalarMul,
            Bin::Div => Opcode::ScalarDiv,
            Bin::Rem => Opcode::ScalarRem,
            Bin::Eq => Opcode::ScalarEq,
            Bin::Ne => Opcode::ScalarNe,
            Bin::Lt => Opcode::ScalarLt,
            Bin::Le => Opcode::ScalarLe,
            Bin::Gt => Opcode::ScalarGt,
            Bin::Ge => Opcode::ScalarGe,
            Bin::And => Opcode::ScalarAnd,
            Bin::Or => Opcode::ScalarOr,
            Bin::BitAnd => Opcode::ScalarBitAnd,
            Bin::BitOr => Opcode::ScalarBitOr,
            Bin::BitXor => Opcode::ScalarBitXor,
            Bin::Shl => Opcode::ScalarShl,
            Bin::Shr => Opcode::ScalarShr,
            Bin::Max => Opcode::ScalarMax,
            Bin::Min => Opcode::ScalarMin,
            Bin::FloorDiv => Opcode::ScalarFloorDiv,
            Bin::FloorMod => Opcode::ScalarFloorMod,
        }
    }

    pub(super) fn tile(self) -> Option<Opcode> {
        Some(match self {
            Bin::Add => Opcode::TileAdd,
            Bin::Sub => Opcode::TileSub,
            Bin::Mul => Opcode::TileMul,
            Bin::Div => Opcode::TileDiv,
            Bin::Rem => Opcode::TileRem,
            Bin::Max => Opcode::TileMax,
            Bin::Min => Opcode::TileMin,
            Bin::BitAnd => Opcode::TileAnd,
            Bin::BitOr => Opcode::TileOr,
            Bin::BitXor => Opcode::TileXor,
            Bin::Shl => Opcode::TileShl,
            Bin::Shr => Opcode::TileShr,
            Bin::FloorMod => Opcode::TileFloorMod,
            _ => return None,
        })
    }

    pub(super) fn symbol(self) -> &'static str {
        match self {
            Bin::Add => "+",
            Bin::Sub => "-",
            Bin::Mul => "*",
            Bin::Div => "/",
            Bin::Rem => "%",
            Bin::Eq => "==",
            Bin::Ne => "!=",
            Bin::Lt => "<",
            Bin::Le => "<=",
            Bin::Gt => ">",
            Bin::Ge => ">=",
            Bin::And => "&&",
            Bin::Or => "||",
            Bin::BitAnd => "&",
            Bin::BitOr => "|",
            Bin::BitXor => "^",
            Bin::Shl => "<<",
            Bin::Shr => ">>",
            Bin::Max => "max",
            Bin::Min => "min",
            Bin::FloorDiv => "floor_div",
            Bin::FloorMod => "floor_mod",
        }
    }
}

/// `(binary op, compound-assignment?)` for a syn operator.
pub(super) fn bin_of(op: &BinOp) -> Option<(Bin, bool)> {
    Some(match op {
        BinOp::Add(_) => (Bin::Add, false),
        BinOp::Sub(_) => (Bin::Sub, false),
        BinOp::Mul(_) => (Bin::Mul, false),
        BinOp::Div(_) => (Bin::Div, false),
        BinOp::Rem(_) => (Bin::Rem, false),
        BinOp::And(_) => (Bin::And, false),
        BinOp::Or(_) => (Bin::Or, false),
        BinOp::BitXor(_) => (Bin::BitXor, false),
        BinOp::BitAnd(_) => (Bin::BitAnd, false),
        BinOp::BitOr(_) => (Bin::BitOr, false),
        BinOp::Shl(_) => (Bin::Shl, false),
        BinOp::Shr(_) => (Bin::Shr, false),
        BinOp::Eq(_) => (Bin::Eq, false),
        BinOp::Lt(_) => (Bin::Lt, false),
        BinOp::Le(_) => (Bin::Le, false),
        BinOp::Ne(_) => (Bin::Ne, false),
        BinOp::Ge(_) => (Bin::Ge, false),
        BinOp::Gt(_) => (Bin::Gt, false),
        BinOp::AddAssign(_) => (Bin::Add, true),
        BinOp::SubAssign(_) => (Bin::Sub, true),
        BinOp::MulAssign(_) => (Bin::Mul, true),
        BinOp::DivAssign(_) => (Bin::Div, true),
        BinOp::RemAssign(_) => (Bin::Rem, true),
        BinOp::BitXorAssign(_) => (Bin::BitXor, true),
        BinOp::BitAndAssign(_) => (Bin::BitAnd, true),
        BinOp::BitOrAssign(_) => (Bin::BitOr, true),
        BinOp::ShlAssign(_) => (Bin::Shl, true),
        BinOp::ShrAssign(_) => (Bin::Shr, true),
        _ => return None,
    })
}

pub(super) const FUNCTIONS: &str = "min(a, b), max(a, b), matmul(a, b), matmul_acc(acc, a, b), matmul_bias(a, b, bias), \
                         Tile::<T, R, C>::zeros(), Tile::<T, R, C>::full(v)";
/// Tile methods the macro spells itself (composed of several ops, or with arguments that
/// are not values), after the op table's.
const TILE_METHODS_COMPOSED: &str = "floor_div(b), cast_round::<T>(Round::Nearest), extract::<R, C>([i, j]), \
     insert([i, j], b), reshape::<R2, C2>(), valid([m, n]), row_expand::<C>(), col_expand::<R>()";

/// The number of arguments of a tile method the op table spells: its elementwise,
/// reduction and transpose rows written as a method (`a.exp()`, `a.max(b)`).
fn tile_method_arity(row: &OpInfo) -> Option<usize> {
    if row.dialect != "tile" || !matches!(row.spelling, Spelling::Method(_)) {
        return None;
    }
    match row.class {
        OpClass::TileUnary
        | OpClass::TileUnaryFloat
        | OpClass::RowReduce
        | OpClass::ColReduce
        | OpClass::RowArgReduce
        | OpClass::Transpose => Some(0),
        OpClass::TileBinary | OpClass::TileBitwise | OpClass::TileCompare => Some(1),
        OpClass::Select => Some(2),
        _ => None,
    }
}

/// Why a mask (`Tile<bool, R, C>`) cannot be used as a number, for messages.
pub(super) const MASK_NOT_A_NUMBER: &str = "a mask (`Tile<bool, R, C>`, from a comparison such as `a.gt(b)`) is not a number; pick values with it (`m.select(a, b)`) or combine masks with `&`, `|`, `^`, `!`";

/// The op a tile method of the op table builds, and its number of arguments.
pub(super) fn table_tile_method(name: &str) -> Option<(Opcode, usize)> {
    OPS.iter().find_map(|row| {
        let arity = tile_method_arity(row)?;
        matches!(row.spelling, Spelling::Method(m) if m == name).then_some((row.opcode, arity))
    })
}

/// The "tile methods: .." list of messages: the op table's methods, `cast`, then the composed
/// ones.
pub(super) fn tile_methods() -> String {
    let mut out = String::new();
    for row in OPS {
        if tile_method_arity(row).is_some() || row.opcode == Opcode::TileCast {
            let text = row.surface.split_once('.').map_or(row.surface, |(_, m)| m);
            out.push_str(text);
            out.push_str(", ");
        }
    }
    out.push_str(TILE_METHODS_COMPOSED);
    out
}

/// The rounding mode a `Round::X` argument names.
pub(super) fn round_mode(e: &Expr) -> Option<RoundMode> {
    let Expr::Path(p) = e else { return None };
    let last = p.path.segments.last()?;
    let n = p.path.segments.len();
    let prefix_ok = n == 1 || (n == 2 && p.path.segments.first()?.ident == "Round");
    if !prefix_ok {
        return None;
    }
    with_spelling(&last.ident, RoundMode::from_surface)
}
/// The "tensor methods: .." list of messages: the op table's rows a kernel writes as a
/// method on a tensor (loads, stores, element access).
pub(super) fn tensor_methods() -> String {
    let mut out = Vec::new();
    for row in OPS {
        if row.dialect == "tile"
            && matches!(row.spelling, Spelling::Method(_))
            && let Some(text) = row
                .surface
                .strip_prefix("t.")
                .or(row.surface.strip_prefix("out."))
        {
            out.push(text);
        }
    }
    out.join(", ")
}
pub(super) const SCALAR_METHODS: &str =
    "abs(), max(b), min(b), floor_div(b), floor_mod(b) (and `x as T` for conversions)";

/// Spells `ident` into `buf` (reused, so spelling allocates only when `buf` must grow).
pub(super) fn spell(buf: &mut String, ident: &Ident) {
    use std::fmt::Write;
    buf.clear();
    let _ = write!(buf, "{ident}");
    // `r#loop` is the identifier `loop`: the IR names the value so, and the emitters make
    // their own identifiers from the name.
    if buf.starts_with("r#") {
        buf.drain(..2);
    }
}

/// The Rust spelling of a dtype, for messages.
pub(super) fn rs(d: DataType) -> String {
    d.rust_name()
        .map_or_else(|| d.name().to_string(), str::to_string)
}
