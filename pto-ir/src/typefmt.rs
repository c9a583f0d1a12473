//! Type spelling shared by the printer and every message (`tile<[16, 32], [16, 32], fp32>`),
//! and the number writers the text printers and emitters share.

use crate::module::ProgramModule;
use crate::types::{Dim, TensorFormat, TileType, Type};

/// Spells one extent: a number, an SSA name, or `?`.
pub fn dim_str(m: &ProgramModule, d: &Dim) -> String {
    let mut s = String::new();
    write_dim(m, d, &mut s);
    s
}

/// Appends the decimal digits of `v` to `s`: the printers write many small numbers (SSA
/// numbers, extents, offsets), and this skips `core::fmt`'s formatter set-up for each. Up to
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
/// them exact) and not `-0.0`: the spelling both `{v:?}` and `{v:.1}` give it, without
/// `core::fmt`'s float formatting (`1.0` is the float literal kernels use most). Returns
/// whether it did; nothing is appended otherwise.
pub fn push_whole_f64(s: &mut String, v: f64) -> bool {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if v.fract() != 0.0 || v.abs() >= EXACT || (v == 0.0 && v.is_sign_negative()) {
        return false;
    }
    push_i64(s, v as i64);
    s.push_str(".0");
    true
}

/// Appends [`dim_str`] of `d` to `s`.
pub fn write_dim(m: &ProgramModule, d: &Dim, s: &mut String) {
    match d {
        Dim::Const(c) => push_u64(s, *c),
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
            write_list(s, &tt.shape, |&c, s| push_u64(s, c));
            s.push_str(", ");
            s.push_str(tt.dtype.name());
            if let Some(r) = tt.memref {
                s.push_str(", mem=");
                s.push_str(r.space.name());
                if let Some(a) = r.addr {
                    s.push_str(", addr=");
                    push_u64(s, a);
                }
            }
            s.push('>');
        }
        Type::Tensor(tt) => {
            s.push_str("tensor<");
            write_list(s, &tt.shape, |d, s| write_dim(m, d, s));
            s.push_str(", ");
            s.push_str(tt.dtype.name());
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
            s.push_str("pipe<");
            s.push_str(p.name());
            s.push('>');
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
    write_list(&mut s, &tt.shape, |&c, s| push_u64(s, c));
    s.push_str(", ");
    s.push_str(tt.dtype.name());
    s.push('>');
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
            1234567890,
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
            assert_eq!(s, format!("{v:.1}"));
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
    }
}
