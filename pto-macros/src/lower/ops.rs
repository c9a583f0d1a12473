//! Rust operators and method names to ops, and the lists of methods messages show.

use pto_ir::ops::{OPS, OpInfo, Operand, Spelling};
use pto_ir::sem::RoundMode;
use pto_ir::{DataType, OpClass, Opcode};
use syn::{BinOp, Expr};

use crate::model::spelling;

/// `(operator, compound-assignment?)` for a syn operator: the spelling the op table's rows
/// are found by (`+=` is `+`).
pub(super) fn bin_of(op: &BinOp) -> Option<(Spelling<'static>, bool)> {
    let (sym, compound) = match op {
        BinOp::Add(_) => ("+", false),
        BinOp::Sub(_) => ("-", false),
        BinOp::Mul(_) => ("*", false),
        BinOp::Div(_) => ("/", false),
        BinOp::Rem(_) => ("%", false),
        BinOp::And(_) => ("&&", false),
        BinOp::Or(_) => ("||", false),
        BinOp::BitXor(_) => ("^", false),
        BinOp::BitAnd(_) => ("&", false),
        BinOp::BitOr(_) => ("|", false),
        BinOp::Shl(_) => ("<<", false),
        BinOp::Shr(_) => (">>", false),
        BinOp::Eq(_) => ("==", false),
        BinOp::Lt(_) => ("<", false),
        BinOp::Le(_) => ("<=", false),
        BinOp::Ne(_) => ("!=", false),
        BinOp::Ge(_) => (">=", false),
        BinOp::Gt(_) => (">", false),
        BinOp::AddAssign(_) => ("+", true),
        BinOp::SubAssign(_) => ("-", true),
        BinOp::MulAssign(_) => ("*", true),
        BinOp::DivAssign(_) => ("/", true),
        BinOp::RemAssign(_) => ("%", true),
        BinOp::BitXorAssign(_) => ("^", true),
        BinOp::BitAndAssign(_) => ("&", true),
        BinOp::BitOrAssign(_) => ("|", true),
        BinOp::ShlAssign(_) => ("<<", true),
        BinOp::ShrAssign(_) => (">>", true),
        _ => return None,
    };
    Some((Spelling::Operator(sym), compound))
}

/// A method or constructor the macro composes from ops of the table (`a.floor_div(b)` is
/// `tile.floormod`, `tile.sub` and `tile.div` on integers), by the class of its receiver.
pub(super) struct Composed {
    /// The receiver's class.
    pub on: Operand,
    /// How a kernel writes it.
    pub spelling: Spelling<'static>,
    /// The usage, as messages show it (without the receiver).
    pub usage: &'static str,
}

/// Everything the macro spells itself; the op table spells the rest.
pub(super) const COMPOSED: &[Composed] = &[
    Composed {
        on: Operand::Tile,
        spelling: TILE_FLOOR_DIV,
        usage: "floor_div(b)",
    },
    Composed {
        on: Operand::Tile,
        spelling: CAST_ROUND,
        usage: "cast_round::<T>(Round::Nearest)",
    },
    Composed {
        on: Operand::Tile,
        spelling: Spelling::Constructor("zeros"),
        usage: "Tile::<T, R, C>::zeros()",
    },
];

/// `a.cast_round::<T>(mode)`: `tile.cast` with a rounding mode.
pub(super) const CAST_ROUND: Spelling<'static> = Spelling::Method("cast_round");

/// `a.floor_div(b)` on tiles (composed: `tile_floor_div`).
pub(super) const TILE_FLOOR_DIV: Spelling<'static> = Spelling::Method("floor_div");

/// The number of value operands (a method's receiver included) of an op of `class` that
/// the macro builds from its arguments alone; `None` for classes whose arguments are not
/// all values (sizes, offsets, a dtype), which it spells one by one.
pub(super) fn value_operands(class: OpClass) -> Option<usize> {
    use OpClass::*;
    match class {
        TileUnary | TileUnaryFloat | TileNot | RowReduce | ColReduce | RowArgReduce | Transpose
        | ScalarUnary | ScalarNot | ScalarBitNot | TensorUnary => Some(1),
        TileBinary | TileBitwise | TileCompare | ScalarArith | ScalarCompare | ScalarLogic
        | ScalarBitwise | TensorBinary | Matmul => Some(2),
        Select | MatmulAcc | MatmulBias => Some(3),
        _ => None,
    }
}

/// The op of the table written `spelling` on `on`, for a dtype.
pub(super) fn spelled(
    spelling: Spelling<'_>,
    on: Operand,
    dtype: Option<DataType>,
) -> Option<Opcode> {
    Opcode::spelled(spelling, on, dtype)
}

/// How a list shows a row written as a method or a function (`max(b)` / `max(a, b)`, the
/// surface without its receiver).
fn usage(row: &OpInfo, method: bool) -> String {
    match row.spelling {
        Spelling::MethodOrFunction(name) => {
            let n = value_operands(row.class).unwrap_or(1);
            let names = ["a", "b", "c"];
            let args = if method {
                names.get(1..n)
            } else {
                names.get(..n)
            };
            format!("{name}({})", args.unwrap_or_default().join(", "))
        }
        Spelling::Method(_) => row
            .surface
            .split_once('.')
            .map_or(row.surface, |(_, m)| m)
            .to_string(),
        _ => row.surface.to_string(),
    }
}

/// The methods a kernel may call on `on`, for messages: the op table's, then the composed
/// ones; with `dialect`, only the table's of that dialect (`"tensor"`: the tensor-level
/// methods).
pub(super) fn methods(on: Operand, dialect: Option<&str>) -> String {
    let mut out: Vec<String> = Vec::new();
    for row in OPS {
        if row.class.operand() == Some(on)
            && dialect.is_none_or(|d| row.dialect == d)
            && matches!(
                row.spelling,
                Spelling::Method(_) | Spelling::MethodOrFunction(_)
            )
        {
            let u = usage(row, true);
            if !out.contains(&u) {
                out.push(u);
            }
        }
    }
    if dialect.is_none() {
        for c in COMPOSED {
            if c.on == on && matches!(c.spelling, Spelling::Method(_)) {
                out.push(c.usage.to_string());
            }
        }
    }
    out.join(", ")
}

/// The free functions and constructors a kernel may call, for messages: the op table's
/// functions, then the constructors (the composed `zeros()` first).
pub(super) fn functions() -> String {
    let mut out: Vec<String> = Vec::new();
    for row in OPS.iter().filter(|r| r.class != OpClass::Call) {
        if matches!(
            row.spelling,
            Spelling::MethodOrFunction(_) | Spelling::Function(_)
        ) {
            let u = usage(row, false);
            if !out.contains(&u) {
                out.push(u);
            }
        }
    }
    let composed = COMPOSED.iter().map(|c| (c.spelling, c.usage));
    let table = OPS.iter().map(|r| (r.spelling, r.surface));
    for (spelling, usage) in composed.chain(table) {
        if matches!(spelling, Spelling::Constructor(_)) {
            out.push(usage.to_string());
        }
    }
    out.join(", ")
}

/// The operators tiles have, for messages (`+ - * / % & | ^ << >>`).
pub(super) fn tile_operators() -> String {
    let mut out: Vec<&str> = Vec::new();
    for row in OPS {
        if let (Spelling::Operator(s), Some(Operand::Tile)) = (row.spelling, row.class.operand())
            && !out.contains(&s)
        {
            out.push(s);
        }
    }
    out.join(" ")
}

/// The spelling of the `on` row that means what `op` means (`a.lt(b)` for scalar `<`), for
/// messages about an operator another operand class writes as a method.
pub(super) fn same_meaning(op: Opcode, on: Operand) -> Option<&'static OpInfo> {
    let sem = op.info().sem;
    (sem != pto_ir::sem::Sem::None)
        .then(|| {
            OPS.iter()
                .find(|r| r.sem == sem && r.class.operand() == Some(on))
        })
        .flatten()
}

/// Why a mask (`Tile<bool, R, C>`) cannot be used as a number, for messages.
pub(super) const MASK_NOT_A_NUMBER: &str = "a mask (`Tile<bool, R, C>`, from a comparison such as `a.gt(b)`) is not a number; pick values with it (`m.select(a, b)`) or combine masks with `&`, `|`, `^`, `!`";

/// The rounding mode a `Round::X` argument names.
pub(super) fn round_mode(e: &Expr) -> Option<RoundMode> {
    let Expr::Path(p) = e else { return None };
    let last = p.path.segments.last()?;
    let n = p.path.segments.len();
    let prefix_ok = n == 1 || (n == 2 && p.path.segments.first()?.ident == "Round");
    if !prefix_ok {
        return None;
    }
    RoundMode::from_surface(&spelling(&last.ident))
}
/// The Rust spelling of a dtype, for messages.
pub(super) fn rs(d: DataType) -> String {
    d.rust_name()
        .map_or_else(|| d.name().to_string(), str::to_string)
}

#[cfg(test)]
mod tests;
