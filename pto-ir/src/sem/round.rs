//! The one rounding mode of conversions (`TCVT`'s `pto::RoundMode`), used by the IR's
//! `round` attribute, the interpreter, the lowering, both emitters and the runtime.

use crate::DataType;

/// How a conversion rounds a value the destination type cannot hold exactly.
///
/// Float to integer: round to an integer in this direction, then saturate (NaN becomes 0).
/// Float to narrower float: round to the destination precision in this direction. A float
/// type to itself: round to an integral value ("round only"), except [`RoundMode::CastNone`],
/// which leaves the value alone. Integer to integer always wraps, like Rust's `as`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum RoundMode {
    /// Round to nearest, ties to even (`rint`, `CAST_RINT`).
    #[default]
    CastRint,
    /// Round to nearest, ties away from zero (`round`, `CAST_ROUND`).
    CastRound,
    /// Toward negative infinity (`floor`, `CAST_FLOOR`).
    CastFloor,
    /// Toward positive infinity (`ceil`, `CAST_CEIL`).
    CastCeil,
    /// Toward zero (`trunc`, `CAST_TRUNC`).
    CastTrunc,
    /// Round to odd: toward zero, then the last bit forced to 1 when inexact (`odd`,
    /// `CAST_ODD`).
    CastOdd,
    /// No explicit rounding (`none`, `CAST_NONE`): the conversion's default, Rust's `as`:
    /// float to integer truncates ([`RoundMode::for_int`]), other lossy conversions round like
    /// [`RoundMode::CastRint`], and a float type to itself is the identity. pto-isa's TCVT
    /// does the same for an unnamed mode (A5 `npu/a5/TCvt.hpp`'s default: float to integer
    /// toward zero, anything else to nearest even) except a float to itself, which it
    /// rounds to an integral value, so the lowering emits no such TCVT.
    CastNone,
}

impl RoundMode {
    /// Every mode, in declaration order.
    pub const ALL: [RoundMode; 7] = [
        RoundMode::CastRint,
        RoundMode::CastRound,
        RoundMode::CastFloor,
        RoundMode::CastCeil,
        RoundMode::CastTrunc,
        RoundMode::CastOdd,
        RoundMode::CastNone,
    ];

    /// The IR's `round` attribute word (`rint`, `floor`, ...).
    pub fn word(self) -> &'static str {
        match self {
            RoundMode::CastRint => "rint",
            RoundMode::CastRound => "round",
            RoundMode::CastFloor => "floor",
            RoundMode::CastCeil => "ceil",
            RoundMode::CastTrunc => "trunc",
            RoundMode::CastOdd => "odd",
            RoundMode::CastNone => "none",
        }
    }

    /// Parses a `round` attribute word.
    pub fn from_word(s: &str) -> Option<RoundMode> {
        RoundMode::ALL.into_iter().find(|m| m.word() == s)
    }

    /// The kernel language's `Round::*` name (`Nearest`, `Away`, ...), if the mode has one.
    pub fn surface(self) -> Option<&'static str> {
        Some(match self {
            RoundMode::CastRint => "Nearest",
            RoundMode::CastRound => "Away",
            RoundMode::CastFloor => "Floor",
            RoundMode::CastCeil => "Ceil",
            RoundMode::CastTrunc => "Trunc",
            RoundMode::CastOdd => "Odd",
            RoundMode::CastNone => return None,
        })
    }

    /// The mode a kernel's `Round::*` name stands for.
    pub fn from_surface(s: &str) -> Option<RoundMode> {
        RoundMode::ALL.into_iter().find(|m| m.surface() == Some(s))
    }

    /// The C++ `RoundMode::CAST_*` name.
    pub fn cpp(self) -> &'static str {
        match self {
            RoundMode::CastRint => "CAST_RINT",
            RoundMode::CastRound => "CAST_ROUND",
            RoundMode::CastFloor => "CAST_FLOOR",
            RoundMode::CastCeil => "CAST_CEIL",
            RoundMode::CastTrunc => "CAST_TRUNC",
            RoundMode::CastOdd => "CAST_ODD",
            RoundMode::CastNone => "CAST_NONE",
        }
    }

    /// The Rust variant name (`CastRint`), as the generated host code spells it.
    pub fn rust(self) -> &'static str {
        match self {
            RoundMode::CastRint => "CastRint",
            RoundMode::CastRound => "CastRound",
            RoundMode::CastFloor => "CastFloor",
            RoundMode::CastCeil => "CastCeil",
            RoundMode::CastTrunc => "CastTrunc",
            RoundMode::CastOdd => "CastOdd",
            RoundMode::CastNone => "CastNone",
        }
    }

    /// The mode a conversion from `from` to `to` uses when the kernel names `named` (or
    /// nothing): `None` when the conversion is the identity (the same dtype and no mode
    /// named, or an integer type to itself whatever the mode: integers are integral).
    /// Unnamed (or named [`RoundMode::CastNone`]), a float to integer conversion truncates
    /// toward zero like Rust's `as`, and anything else rounds to nearest even.
    pub fn for_cast(from: DataType, to: DataType, named: Option<RoundMode>) -> Option<RoundMode> {
        if from == to && !from.is_float() {
            return None;
        }
        match named.filter(|&m| m != RoundMode::CastNone) {
            Some(m) => Some(m),
            None if from == to => None,
            None if from.is_float() && !to.is_float() => Some(RoundMode::CastTrunc),
            None => Some(RoundMode::CastRint),
        }
    }

    /// The direction a float-to-integer conversion rounds in: this mode, except
    /// [`RoundMode::CastNone`], which truncates.
    pub fn for_int(self) -> RoundMode {
        if self == RoundMode::CastNone {
            RoundMode::CastTrunc
        } else {
            self
        }
    }

    /// Rounds `x` to an integral value in this direction ([`RoundMode::CastNone`] rounds to
    /// nearest even).
    pub fn to_integral(self, x: f64) -> f64 {
        match self {
            RoundMode::CastRint | RoundMode::CastNone => x.round_ties_even(),
            RoundMode::CastRound => x.round(),
            RoundMode::CastFloor => x.floor(),
            RoundMode::CastCeil => x.ceil(),
            RoundMode::CastTrunc => x.trunc(),
            RoundMode::CastOdd => {
                let t = x.trunc();
                if t == x || t % 2.0 != 0.0 {
                    t
                } else {
                    t + x.signum()
                }
            }
        }
    }

    /// [`RoundMode::to_integral`] in `f32`.
    pub fn to_integral_f32(self, x: f32) -> f32 {
        match self {
            RoundMode::CastRint | RoundMode::CastNone => x.round_ties_even(),
            RoundMode::CastRound => x.round(),
            RoundMode::CastFloor => x.floor(),
            RoundMode::CastCeil => x.ceil(),
            RoundMode::CastTrunc => x.trunc(),
            RoundMode::CastOdd => {
                let t = x.trunc();
                if t == x || t % 2.0 != 0.0 {
                    t
                } else {
                    t + x.signum()
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_and_odd_is_a_mode() {
        for m in RoundMode::ALL {
            assert_eq!(RoundMode::from_word(m.word()), Some(m));
        }
        assert_eq!(RoundMode::from_word("odd"), Some(RoundMode::CastOdd));
        assert_eq!(RoundMode::from_word("nearest"), None);
        assert_eq!(
            RoundMode::from_surface("Nearest"),
            Some(RoundMode::CastRint)
        );
        assert_eq!(RoundMode::from_surface("Away"), Some(RoundMode::CastRound));
    }

    #[test]
    fn unnamed_casts_mean_rust_as() {
        use DataType::*;
        assert_eq!(RoundMode::for_cast(Fp32, Fp32, None), None);
        // An integer to itself is the identity in any mode (no `TCVT` of that pair exists).
        assert_eq!(
            RoundMode::for_cast(Int32, Int32, Some(RoundMode::CastFloor)),
            None
        );
        // `none` is the unnamed conversion: the identity, truncation to an integer.
        assert_eq!(
            RoundMode::for_cast(Fp32, Fp32, Some(RoundMode::CastNone)),
            None
        );
        assert_eq!(
            RoundMode::for_cast(Fp32, Int32, Some(RoundMode::CastNone)),
            Some(RoundMode::CastTrunc)
        );
        assert_eq!(
            crate::sem::convert::float_to_int(-2.7, Int32, RoundMode::CastNone),
            Some(-2)
        );
        assert_eq!(
            RoundMode::for_cast(Fp32, Int32, None),
            Some(RoundMode::CastTrunc)
        );
        assert_eq!(
            RoundMode::for_cast(Fp32, Fp16, None),
            Some(RoundMode::CastRint)
        );
        assert_eq!(
            RoundMode::for_cast(Int32, Fp32, None),
            Some(RoundMode::CastRint)
        );
        assert_eq!(
            RoundMode::for_cast(Fp32, Int32, Some(RoundMode::CastRint)),
            Some(RoundMode::CastRint)
        );
    }

    #[test]
    fn integral_rounding_in_every_mode() {
        use RoundMode::*;
        // (x, [rint, round, floor, ceil, trunc, odd])
        let cases: [(f64, [f64; 6]); 5] = [
            (2.5, [2.0, 3.0, 2.0, 3.0, 2.0, 3.0]),
            (-2.5, [-2.0, -3.0, -3.0, -2.0, -2.0, -3.0]),
            (3.5, [4.0, 4.0, 3.0, 4.0, 3.0, 3.0]),
            (2.2, [2.0, 2.0, 2.0, 3.0, 2.0, 3.0]),
            (4.0, [4.0, 4.0, 4.0, 4.0, 4.0, 4.0]),
        ];
        for (x, want) in cases {
            let modes = [CastRint, CastRound, CastFloor, CastCeil, CastTrunc, CastOdd];
            for (m, w) in modes.into_iter().zip(want) {
                assert_eq!(m.to_integral(x), w, "{x} {m:?}");
                assert_eq!(f64::from(m.to_integral_f32(x as f32)), w, "{x} {m:?} f32");
            }
        }
    }
}
