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

/// Appends the decimal digits of `v` to `s`: the printers write many small numbers (SSA
/// numbers, extents, offsets), and this skips `core::fmt`'s formatter set-up for each
/// (measured with `pto-macros/benches/instructions.sh`, 2026-11-25: these writers instead of
/// `write!` save 5.1% of a typical kernel's expansion, most of it in the C++ emitter). Up to
/// three digits are written directly (a pair of them copied from a table); longer numbers go
/// through a digit buffer. Inlined: the call's register saves and restores cost about as
/// much as writing a short number.
#[inline]
pub fn push_u64(s: &mut String, v: u64) {
    let digit = |d: u64| char::from(b'0' + (d % 10) as u8);
    if v < 10 {
        s.push(digit(v));
    } else if v < 100 {
        push_pair(s, v);
    } else if v < 1000 {
        s.push(digit(v / 100));
        push_pair(s, v % 100);
    } else {
        push_long(s, v);
    }
}

/// [`push_u64`] of a number of four digits or more: out of line, so the short numbers'
/// path does not save and restore the registers this one needs.
#[inline(never)]
fn push_long(s: &mut String, mut v: u64) {
    // The digits in pairs from the back, so half the divisions: `v` has four digits or
    // more here, and what is left below 100 is written last.
    let mut pairs = [0u8; 10];
    let mut n = 0;
    while v >= 100 {
        pairs[n] = (v % 100) as u8;
        n += 1;
        v /= 100;
    }
    if v >= 10 {
        push_pair(s, v);
    } else {
        s.push(char::from(b'0' + v as u8));
    }
    for &p in pairs[..n].iter().rev() {
        push_pair(s, u64::from(p));
    }
}

/// Appends the two digits of `n` (below 100, `07` for 7): a copy of a fixed two bytes, a
/// single store, from a table of them all.
#[inline(always)]
fn push_pair(s: &mut String, n: u64) {
    const PAIRS: &str = "0001020304050607080910111213141516171819\
                         2021222324252627282930313233343536373839\
                         4041424344454647484950515253545556575859\
                         6061626364656667686970717273747576777879\
                         8081828384858687888990919293949596979899";
    let i = 2 * n as usize;
    if let Some(pair) = PAIRS.get(i..i + 2) {
        s.push_str(pair);
    }
}

/// Appends `level` levels of indentation (two spaces each) to `s`.
pub fn push_indent(s: &mut String, level: usize) {
    const SPACES: &str = "                                ";
    let n = 2 * level;
    if n <= SPACES.len() {
        // Copying the whole run is a few fixed-size stores instead of a call to `memcpy`
        // with a length of its own; the spaces beyond `n` are cut off again.
        let len = s.len();
        s.push_str(SPACES);
        s.truncate(len + n);
    } else {
        s.extend(std::iter::repeat_n(' ', n));
    }
}

/// Appends `v` in decimal (with a `-` when negative) to `s`, like [`push_u64`].
pub fn push_i64(s: &mut String, v: i64) {
    if v < 0 {
        s.push('-');
    }
    push_u64(s, v.unsigned_abs());
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
    fn numbers_spell_like_core_fmt() {
        for v in [
            0,
            7,
            9,
            10,
            42,
            99,
            100,
            256,
            999,
            1000,
            4096,
            9999,
            10000,
            65536,
            u64::MAX,
        ] {
            let mut s = String::new();
            push_u64(&mut s, v);
            assert_eq!(s, v.to_string());
        }
        for v in [0, -1, 42, i64::MIN, i64::MAX] {
            let mut s = String::new();
            push_i64(&mut s, v);
            assert_eq!(s, v.to_string());
        }
    }

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
