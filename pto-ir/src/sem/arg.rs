//! Arg-reductions (issue 16 part A): which element of a row `row_argmax` / `row_argmin`
//! pick. The first index wins a tie; a NaN never beats a number (as `max` / `min` ignore a
//! NaN operand), so an all-NaN row gives index 0.

use super::Value;

/// Whether `candidate` replaces `best` as the row's maximum (`max`) or minimum: strictly
/// greater (less), or `best` is NaN and `candidate` is not. Scanning left to right and
/// keeping `best` otherwise gives the first index of the extremum.
pub fn beats(max: bool, candidate: Value, best: Value) -> bool {
    match (candidate, best) {
        (Value::Float(c), Value::Float(b)) => {
            (b.is_nan() && !c.is_nan()) || if max { c > b } else { c < b }
        }
        (Value::Int(c), Value::Int(b)) => {
            if max {
                c > b
            } else {
                c < b
            }
        }
        _ => false,
    }
}

/// The index `row_argmax` (`max`) or `row_argmin` picks in `row` (0 for an empty row).
pub fn arg_best(max: bool, row: impl IntoIterator<Item = Value>) -> usize {
    let mut it = row.into_iter().enumerate();
    let Some((_, mut best)) = it.next() else {
        return 0;
    };
    let mut at = 0;
    for (j, x) in it {
        if beats(max, x, best) {
            (best, at) = (x, j);
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(xs: &[f64]) -> Vec<Value> {
        xs.iter().map(|&x| Value::Float(x)).collect()
    }

    #[test]
    fn ties_go_to_the_first_index_and_nan_never_wins() {
        let nan = f64::NAN;
        assert_eq!(arg_best(true, f(&[1.0, 3.0, 3.0, 2.0])), 1);
        assert_eq!(arg_best(false, f(&[1.0, 0.5, 0.5])), 1);
        assert_eq!(arg_best(true, f(&[nan, 2.0, nan, 5.0])), 3);
        assert_eq!(arg_best(false, f(&[nan, nan, -1.0])), 2);
        assert_eq!(arg_best(true, f(&[nan, nan])), 0);
        assert_eq!(
            arg_best(true, [Value::Int(-3), Value::Int(7), Value::Int(7)]),
            1
        );
    }
}
