//! Type spelling shared by the printer and every message (`tile<[16, 32], [16, 32], fp32>`).

use std::fmt::Write;

use crate::module::ProgramModule;
use crate::types::{Dim, TensorFormat, TileType, Type};

/// Spells one extent: a number, an SSA name, or `?`.
pub fn dim_str(m: &ProgramModule, d: &Dim) -> String {
    let mut s = String::new();
    write_dim(m, d, &mut s);
    s
}

fn write_dim(m: &ProgramModule, d: &Dim, s: &mut String) {
    match d {
        Dim::Const(c) => {
            let _ = write!(s, "{c}");
        }
        Dim::Value(v) => m.write_ssa_name(*v, s),
        Dim::Dynamic => s.push('?'),
    }
}

fn write_list<T>(s: &mut String, items: &[T], mut f: impl FnMut(&T, &mut String)) {
    s.push('[');
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        f(x, s);
    }
    s.push(']');
}

/// Spells a type as the statement text does (a tile with its valid region first).
pub fn type_str(m: &ProgramModule, t: &Type) -> String {
    let mut s = String::new();
    write_type(m, t, &mut s);
    s
}

/// Appends [`type_str`] of `t` to `s`.
pub fn write_type(m: &ProgramModule, t: &Type, s: &mut String) {
    match t {
        Type::Scalar(d) => s.push_str(d.name()),
        Type::Tile(tt) => {
            s.push_str("tile<");
            write_list(s, &tt.valid, |d, s| write_dim(m, d, s));
            s.push_str(", ");
            write_list(s, &tt.shape, |c, s| {
                let _ = write!(s, "{c}");
            });
            let _ = write!(s, ", {}", tt.dtype);
            if let Some(r) = tt.memref {
                let _ = write!(s, ", mem={}", r.space.name());
                if let Some(a) = r.addr {
                    let _ = write!(s, ", addr={a}");
                }
            }
            s.push('>');
        }
        Type::Tensor(tt) => {
            s.push_str("tensor<");
            write_list(s, &tt.shape, |d, s| write_dim(m, d, s));
            let _ = write!(s, ", {}", tt.dtype);
            if tt.format == TensorFormat::Nz {
                s.push_str(", NZ");
            }
            s.push('>');
        }
        Type::Tuple(ts) => {
            s.push_str("tuple<");
            for (i, t) in ts.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                write_type(m, t, s);
            }
            s.push('>');
        }
        Type::Pipe(p) => {
            let _ = write!(s, "pipe<{}>", p.name());
        }
        Type::Unknown => s.push_str("unknown"),
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
    let mut s = String::from("tile<");
    write_list(&mut s, &tt.shape, |c, s| {
        let _ = write!(s, "{c}");
    });
    let _ = write!(s, ", {}>", tt.dtype);
    s
}

/// `16 x 32`.
pub fn shape_x(shape: &[u64]) -> String {
    shape
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(" x ")
}
