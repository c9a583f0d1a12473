//! Masks (issue 16 part A): what `m.select(a, b)` means at one element. A mask element is
//! a `bool` (a comparison's result, [`super::compare`]); masks combine with `&`, `|`, `^`
//! and `!` as Rust's `bool` does ([`super::binary`] and [`super::unary`] on `Value::Bool`).

use super::Value;

/// `m.select(a, b)` at one element: `a` where the mask is set, `b` elsewhere.
pub fn select(mask: bool, a: Value, b: Value) -> Value {
    if mask { a } else { b }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DataType;
    use crate::sem::{Binary, Compare, Unary, binary, compare, unary};

    #[test]
    fn select_takes_the_first_value_where_the_mask_is_set() {
        assert_eq!(
            select(true, Value::Float(1.5), Value::Float(-2.0)),
            Value::Float(1.5)
        );
        assert_eq!(select(false, Value::Int(3), Value::Int(7)), Value::Int(7));
    }

    #[test]
    fn masks_combine_like_rust_bools() {
        let (t, f) = (Value::Bool(true), Value::Bool(false));
        let b = |op, x, y| binary(op, DataType::Bool, x, y);
        assert_eq!(b(Binary::BitAnd, t, f), Some(f));
        assert_eq!(b(Binary::BitOr, t, f), Some(t));
        assert_eq!(b(Binary::BitXor, t, t), Some(f));
        assert_eq!(b(Binary::Add, t, t), None);
        assert_eq!(unary(Unary::Not, DataType::Bool, t), Some(f));
    }

    #[test]
    fn a_nan_compares_unequal_and_unordered() {
        let (nan, one) = (Value::Float(f64::NAN), Value::Float(1.0));
        assert_eq!(compare(Compare::Ne, nan, one), Some(true));
        for k in [
            Compare::Eq,
            Compare::Lt,
            Compare::Le,
            Compare::Gt,
            Compare::Ge,
        ] {
            assert_eq!(compare(k, nan, one), Some(false), "{k:?}");
        }
    }
}
