//! Type spelling shared by the printer and every message (`tile<[16, 32], [16, 32], fp32>`).

use std::fmt::Write;

use crate::module::ProgramModule;
use crate::types::{Dim, TensorFormat, TileType, Type};

/// Spells one extent: a number, an SSA name, or `?`.
pub fn dim_str(m: &ProgramModule, d: &Dim) -> String {
    match d {
        Dim::Const(c) => c.to_string(),
        Dim::Value(v) => m.ssa_name(*v),
        Dim::Dynamic => "?".to_string(),
    }
}

fn list<T>(items: &[T], mut f: impl FnMut(&T) -> String) -> String {
    let mut s = String::from("[");
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(&f(x));
    }
    s.push(']');
    s
}

/// Spells a type as the statement text does (a tile with its valid region first).
pub fn type_str(m: &ProgramModule, t: &Type) -> String {
    match t {
        Type::Scalar(d) => d.name().to_string(),
        Type::Tile(tt) => {
            let mut s = format!(
                "tile<{}, {}, {}",
                list(&tt.valid, |d| dim_str(m, d)),
                list(&tt.shape, u64::to_string),
                tt.dtype
            );
            if let Some(r) = tt.memref {
                let _ = write!(s, ", mem={}", r.space.name());
                if let Some(a) = r.addr {
                    let _ = write!(s, ", addr={a}");
                }
            }
            s.push('>');
            s
        }
        Type::Tensor(tt) => {
            let mut s = format!(
                "tensor<{}, {}",
                list(&tt.shape, |d| dim_str(m, d)),
                tt.dtype
            );
            if tt.format == TensorFormat::Nz {
                s.push_str(", NZ");
            }
            s.push('>');
            s
        }
        Type::Tuple(ts) => {
            let mut s = String::from("tuple<");
            for (i, t) in ts.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                let _ = write!(s, "{}", type_str(m, t));
            }
            s.push('>');
            s
        }
        Type::Pipe(p) => format!("pipe<{}>", p.name()),
        Type::Unknown => "unknown".to_string(),
    }
}

/// Spells a type for a message: like [`type_str`], but a fully valid tile in the seed's
/// short form `tile<[16, 32], fp32>`.
pub fn type_msg(m: &ProgramModule, t: &Type) -> String {
    match t {
        Type::Tile(tt) if tt.is_fully_valid() => short_tile(tt),
        _ => type_str(m, t),
    }
}

/// The seed's `TileType` spelling: `tile<[16, 32], fp32>`.
pub fn short_tile(tt: &TileType) -> String {
    format!("tile<{}, {}>", list(&tt.shape, u64::to_string), tt.dtype)
}

/// `16 x 32`.
pub fn shape_x(shape: &[u64]) -> String {
    shape
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(" x ")
}
