//! Type spelling shared by the printer and every message (`tile<[16, 32], [16, 32], fp32>`),
//! and the small number writers the text emitters share.

use std::fmt::{self, Write};

use crate::module::ProgramModule;
use crate::types::{Dim, TensorFormat, TileType, Type};

/// Spells one extent: a number, an SSA name, or `?`.
pub fn dim_str(m: &ProgramModule, d: &Dim) -> String {
    let mut s = String::new();
    let _ = write_dim(m, d, &mut s);
    s
}

/// Appends the decimal digits of `v` to `s`.
pub fn push_u64(s: &mut String, v: u64) {
    let _ = write!(s, "{v}");
}

/// Appends `v` in decimal (with a `-` when negative) to `s`.
pub fn push_i64(s: &mut String, v: i64) {
    let _ = write!(s, "{v}");
}

/// Appends `level` levels of indentation (two spaces each) to `s`.
pub fn push_indent(s: &mut String, level: usize) {
    let _ = write!(s, "{:1$}", "", 2 * level);
}

/// Appends `v` as `12.0` when it is a whole number of magnitude below 2^53 (every one of
/// them exact) and not `-0.0`, the spelling both `{v:?}` and `{v:.1}` give it; returns
/// whether it did (nothing is appended otherwise), so a caller can spell other floats its
/// own way.
pub fn push_whole_f64(s: &mut String, v: f64) -> bool {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if v.fract() != 0.0 || v.abs() >= EXACT || (v == 0.0 && v.is_sign_negative()) {
        return false;
    }
    let _ = write!(s, "{v:.1}");
    true
}

/// Writes [`dim_str`] of `d`.
pub fn write_dim(m: &ProgramModule, d: &Dim, w: &mut impl Write) -> fmt::Result {
    match d {
        Dim::Const(c) => write!(w, "{c}"),
        Dim::Value(v) => w.write_str(&m.ssa_name(*v)),
        Dim::Dynamic => w.write_char('?'),
    }
}

/// Writes `[a, b, ..]`, each item with `f`.
fn write_list<W: Write, T>(
    w: &mut W,
    items: &[T],
    mut f: impl FnMut(&T, &mut W) -> fmt::Result,
) -> fmt::Result {
    w.write_char('[')?;
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            w.write_str(", ")?;
        }
        f(x, w)?;
    }
    w.write_char(']')
}

/// Spells a type as the statement text does (a tile with its valid region first).
pub fn type_str(m: &ProgramModule, t: &Type) -> String {
    let mut s = String::new();
    let _ = write_type(m, t, &mut s);
    s
}

/// Writes [`type_str`] of `t`.
pub fn write_type(m: &ProgramModule, t: &Type, w: &mut impl Write) -> fmt::Result {
    match t {
        Type::Scalar(d) => w.write_str(d.name()),
        Type::Tile(tt) => {
            w.write_str("tile<")?;
            write_list(w, &tt.valid, |d, w| write_dim(m, d, w))?;
            w.write_str(", ")?;
            write_list(w, &tt.shape, |c, w| write!(w, "{c}"))?;
            write!(w, ", {}", tt.dtype.name())?;
            if let Some(r) = tt.memref {
                write!(w, ", mem={}", r.space.name())?;
                if let Some(a) = r.addr {
                    write!(w, ", addr={a}")?;
                }
            }
            w.write_char('>')
        }
        Type::Tensor(tt) => {
            w.write_str("tensor<")?;
            write_list(w, &tt.shape, |d, w| write_dim(m, d, w))?;
            write!(w, ", {}", tt.dtype.name())?;
            if tt.format == TensorFormat::Nz {
                w.write_str(", NZ")?;
            }
            w.write_char('>')
        }
        Type::Tuple(ts) => {
            w.write_str("tuple<")?;
            for (i, t) in ts.iter().enumerate() {
                if i > 0 {
                    w.write_str(", ")?;
                }
                write_type(m, t, w)?;
            }
            w.write_char('>')
        }
        Type::Pipe(p) => write!(w, "pipe<{}>", p.name()),
        Type::Unknown => w.write_str("unknown"),
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
    let _ = write_list(&mut s, &tt.shape, |c, w| write!(w, "{c}"));
    let _ = write!(s, ", {}>", tt.dtype.name());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_floats_spell_like_core_fmt() {
        let whole = [
            0.0,
            1.0,
            -3.0,
            1e15,
            9_007_199_254_740_991.0,
            -9_007_199_254_740_991.0,
        ];
        for v in whole {
            let mut s = String::new();
            assert!(push_whole_f64(&mut s, v), "{v}");
            assert_eq!(s, format!("{v:?}"));
        }
        for v in [
            -0.0,
            0.5,
            9_007_199_254_740_992.0,
            1e300,
            f64::NAN,
            f64::INFINITY,
        ] {
            let mut s = String::new();
            assert!(!push_whole_f64(&mut s, v) && s.is_empty(), "{v}");
        }
        let mut s = String::new();
        push_indent(&mut s, 3);
        assert_eq!(s, "      ");
    }
}
