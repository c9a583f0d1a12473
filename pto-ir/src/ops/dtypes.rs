//! The element types each PTO-ISA instruction takes on each target: one row per instruction
//! (two targets, a small set of [`DataType`]s each), the (from, to) pairs of `TCVT` and the
//! (input, accumulator) pairs of the matmuls.
//!
//! Read from pto-isa's headers (`include/pto/npu/a2a3/` and `npu/a5/`): the element-type
//! `static_assert`s of each instruction and the `if constexpr` type chains that end in
//! `static_assert(sizeof(T) == 0)`; the `source` of a row names the file and line. The
//! verifier's element-type check (`verify/dtypes.rs`) and the C++ model
//! (`pto-lower/tests/cpp/pto_decls.hpp`, its `PTO_TAKES` / `PTO_CVT` / `PTO_MATMUL` lines,
//! compared with these rows by `pto-lower/tests/dtype_table.rs`) read the same rows.
//!
//! Instructions that only move data (`TMOV`, `TRESHAPE`, `TEXTRACT`, `TINSERT`, `TLOAD`,
//! `TSTORE` without accumulation) have no row: they move 1- to 8-byte elements on both
//! targets, every element type the language has. A row lists only the language's types: the
//! headers' fp8 / hif8 / fp4 / int4 paths are left out.

use crate::DataType::{self, *};

/// A set of element types (one bit per [`DataType`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Dtypes(u32);

impl Dtypes {
    /// The set of `ds`.
    pub const fn of(ds: &[DataType]) -> Dtypes {
        let mut bits = 0;
        let mut i = 0;
        while i < ds.len() {
            bits |= 1 << ds[i] as u32;
            i += 1;
        }
        Dtypes(bits)
    }

    /// Both sets' types.
    pub const fn with(self, other: Dtypes) -> Dtypes {
        Dtypes(self.0 | other.0)
    }

    /// Whether `d` is in the set.
    pub const fn contains(self, d: DataType) -> bool {
        self.0 & (1 << d as u32) != 0
    }

    /// The types in [`DataType::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = DataType> {
        DataType::ALL.into_iter().filter(move |&d| self.contains(d))
    }

    /// `int16, int32, fp16 and fp32`, for messages (`nothing` when empty).
    pub fn describe(self) -> String {
        let names: Vec<&str> = self.iter().map(DataType::name).collect();
        match names.as_slice() {
            [] => "nothing".to_string(),
            [one] => one.to_string(),
            [init @ .., last] => format!("{} and {last}", init.join(", ")),
        }
    }
}

/// The instructions a row is about, as pto-isa's C++ spells them.
///
/// `TSTORE_ADD` is `TSTORE<AtomicType::AtomicAdd>` (`store_add`), whose element types are
/// those of the hardware's atomic add, not of a plain store.
#[derive(Clone, Copy, Debug)]
pub struct Takes {
    /// The instructions with these element types (`TADD`, `TSUB`, ...).
    pub insts: &'static [&'static str],
    /// The element types A2A3 takes.
    pub a2a3: Dtypes,
    /// The element types A5 takes.
    pub a5: Dtypes,
    /// Where the rule is in pto-isa's headers (A2A3 file:line; A5 file:line).
    pub source: &'static str,
}

// The sets the rows share.
const FLOATS: Dtypes = Dtypes::of(&[Fp16, Fp32]);
/// A2A3's vector arithmetic: `TADD`, `TMUL`, `TADDS`, the row / column broadcasts ...
const A2A3_ARITH: Dtypes = Dtypes::of(&[Int16, Int32, Fp16, Fp32]);
/// 1-, 2- and 4-byte integers.
const INTS: Dtypes = Dtypes::of(&[Int8, UInt8, Int16, UInt16, Int32, UInt32]);
const INT64S: Dtypes = Dtypes::of(&[Int64, UInt64]);
/// 1-, 2- and 4-byte elements.
const B124: Dtypes = INTS.with(Dtypes::of(&[Fp16, Bf16, Fp32]));
/// 1- to 8-byte elements of the integer and IEEE types.
const B1248: Dtypes = B124.with(INT64S).with(Dtypes::of(&[Fp64]));
/// The 1-byte floats, which a rule by element size takes with the 1-byte integers.
const FLOAT8S: Dtypes = Dtypes::of(&[Fp8, Hf8]);
/// 1-, 2- and 4-byte elements of any kind (a rule on `sizeof(T)` only).
const SIZE124: Dtypes = B124.with(FLOAT8S);
/// 1- to 8-byte elements of any kind.
const SIZE1248: Dtypes = B1248.with(FLOAT8S);
/// 2- and 4-byte elements.
const B24: Dtypes = Dtypes::of(&[Int16, UInt16, Int32, UInt32, Fp16, Bf16, Fp32]);
/// A5's vector arithmetic without 64-bit integers (the broadcasts, `TPARTMUL`).
const A5_NARROW: Dtypes = B124;
/// A5's `TADD` / `TSUB` / `TMAX` / `TMIN` and their scalar forms: every integer, fp16, bf16, fp32.
const A5_ALL: Dtypes = B124.with(INT64S);
/// A5's `TMUL` / `TMULS`: no 1-byte integers.
const A5_MUL: Dtypes = Dtypes::of(&[
    Int16, UInt16, Int32, UInt32, Int64, UInt64, Fp16, Bf16, Fp32,
]);
/// A5's `TDIV` / `TDIVS`: no 1-byte integers, no bf16.
const A5_DIV: Dtypes = Dtypes::of(&[Int16, UInt16, Int32, UInt32, Int64, UInt64, Fp16, Fp32]);
/// `TPOW` on A2A3: integers up to 4 bytes and fp32, no fp16.
const POW_A2A3: Dtypes = INTS.with(Dtypes::of(&[Fp32]));
const POW_A5: Dtypes = INTS.with(FLOATS);
/// `TREM` on A5 (`TREMS` the same: its check asks 2, 4 or 8 bytes, the others reach no
/// implementation).
const REM_A5: Dtypes = Dtypes::of(&[Int16, UInt16, Int32, UInt32, Int64, UInt64, Fp16, Fp32]);
const REM_A2A3: Dtypes = Dtypes::of(&[Int32, Fp32]);
const FMOD_A5: Dtypes = Dtypes::of(&[Int16, UInt16, Int32, UInt32, Fp16, Fp32]);
const F32: Dtypes = Dtypes::of(&[Fp32]);

/// Every instruction's element types per target.
pub const TAKES: &[Takes] = &[
    Takes {
        insts: &["TADD", "TSUB", "TMAX", "TMIN"],
        a2a3: A2A3_ARITH,
        a5: A5_ALL,
        source: "a2a3/TAdd.hpp:62, TSub.hpp:61, TMax.hpp:61, TMin.hpp:62; a5/TAdd.hpp:60, TSub.hpp:59, TMax.hpp:59, TMin.hpp:59",
    },
    Takes {
        insts: &["TMUL"],
        a2a3: A2A3_ARITH,
        a5: A5_MUL,
        source: "a2a3/TMul.hpp:61; a5/TMul.hpp:59",
    },
    Takes {
        insts: &["TDIV"],
        a2a3: FLOATS,
        a5: A5_DIV,
        source: "a2a3/TDiv.hpp:58; a5/TDiv.hpp:67",
    },
    Takes {
        insts: &["TFMOD"],
        a2a3: F32,
        a5: FMOD_A5,
        source: "a2a3/TFmod.hpp:60,70; a5/TFMod.hpp:89",
    },
    Takes {
        insts: &["TREM"],
        a2a3: REM_A2A3,
        a5: REM_A5,
        source: "a2a3/TRem.hpp:177; a5/TRem.hpp:107",
    },
    Takes {
        insts: &["TPOW", "TPOWS"],
        a2a3: POW_A2A3,
        a5: POW_A5,
        source: "a2a3/TPow.hpp:265 (PowCheckType); a5/TPow.hpp:631",
    },
    Takes {
        // A2A3 checks no element type: it computes on 16-bit lanes (1- and 4-byte integers
        // reinterpreted, common/utils.hpp `B82B16Trait` / `B322B16Trait`); TXOR is built of
        // TOR / TAND / TNOT.
        insts: &["TAND", "TOR"],
        a2a3: INTS,
        a5: SIZE124,
        source: "a2a3/TAnd.hpp:51, TOr.hpp:40 (16-bit lanes); a5/TAnd.hpp:55, TOr.hpp:54",
    },
    Takes {
        insts: &["TXOR"],
        a2a3: INTS,
        a5: INTS,
        source: "a2a3/TXor.hpp:51 (TOR, TAND, TNOT); a5/TXor.hpp:54",
    },
    Takes {
        insts: &["TSHL", "TSHR"],
        a2a3: INTS,
        a5: INTS.with(INT64S),
        source: "a2a3/TShl.hpp:44, TShr.hpp:44; a5/TShl.hpp:81, TShr.hpp:81",
    },
    Takes {
        insts: &["TCMP"],
        a2a3: Dtypes::of(&[Int32, Fp16, Fp32]),
        a5: A5_ALL,
        source: "a2a3/TCmp.hpp:119; a5/TCmp.hpp:138",
    },
    Takes {
        insts: &["TCMPS"],
        a2a3: Dtypes::of(&[Int16, UInt16, Int32, Fp16, Fp32]),
        a5: A5_ALL,
        source: "a2a3/TCmps.hpp:155; a5/TCmps.hpp:231",
    },
    Takes {
        insts: &["TSEL"],
        a2a3: B24,
        a5: SIZE1248,
        source: "a2a3/TSel.hpp:67; a5/TSel.hpp:120",
    },
    Takes {
        insts: &["TSELS"],
        a2a3: B24,
        a5: Dtypes::of(&[
            Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64, Fp16, Fp32,
        ]),
        source: "a2a3/TSels.hpp:54; a5/TSels.hpp:124",
    },
    Takes {
        insts: &["TADDS", "TSUBS", "TMAXS", "TMINS"],
        a2a3: A2A3_ARITH,
        a5: A5_ALL,
        source: "a2a3/TAddS.hpp:52, TSubS.hpp:52, TMaxS.hpp:53, TMins.hpp:52; a5/TAddS.hpp:57, TSubS.hpp:57, TMaxs.hpp:57, TMins.hpp:57",
    },
    Takes {
        // TNEG is `TMULS(dst, src, -1)` on both targets (TUnaryOp.hpp).
        insts: &["TMULS", "TNEG"],
        a2a3: A2A3_ARITH,
        a5: A5_MUL,
        source: "a2a3/TMulS.hpp:52, TUnaryOp.hpp:449; a5/TMulS.hpp:57, TUnaryOp.hpp:365",
    },
    Takes {
        // TRECIP is `TDIVS(dst, 1, src)` on both targets (common/pto_instr.hpp).
        insts: &["TDIVS", "TRECIP"],
        a2a3: A2A3_ARITH,
        a5: A5_DIV,
        source: "a2a3/TDivS.hpp:220,278; a5/TDivS.hpp:138; common/pto_instr.hpp:533",
    },
    Takes {
        insts: &["TFMODS"],
        a2a3: F32,
        a5: B24,
        source: "a2a3/TFmodS.hpp:58,73; a5/TFModS.hpp:93",
    },
    Takes {
        insts: &["TREMS"],
        a2a3: REM_A2A3,
        a5: REM_A5,
        source: "a2a3/TRemS.hpp:140,155; a5/TRemS.hpp:97",
    },
    Takes {
        // A2A3: `TEXPANDS` of the scalar, then the tile-tile instruction.
        insts: &["TANDS", "TORS", "TXORS"],
        a2a3: INTS,
        a5: SIZE124,
        source: "a2a3/TBitwiseSOp.hpp:99-136; a5/TAndS.hpp:59, TOrS.hpp:59, TXorS.hpp:59",
    },
    Takes {
        insts: &["TSHLS", "TSHRS"],
        a2a3: Dtypes::of(&[Int16, UInt16, Int32, UInt32]),
        a5: INTS.with(INT64S),
        source: "a2a3/TBitwiseSOp.hpp:24 (TShiftCheck); a5/TShlS.hpp:57, TShrS.hpp:57",
    },
    Takes {
        insts: &["TEXP", "TLOG", "TSQRT", "TRSQRT"],
        a2a3: FLOATS,
        a5: FLOATS,
        source: "a2a3/TUnaryOp.hpp:265; a5/TUnaryOp.hpp:149, TRsqrt.hpp:194",
    },
    Takes {
        insts: &["TABS"],
        a2a3: FLOATS,
        a5: Dtypes::of(&[Int8, Int16, Int32, Fp16, Fp32]),
        source: "a2a3/TUnaryOp.hpp:265; a5/TUnaryOp.hpp:316",
    },
    Takes {
        insts: &["TRELU"],
        a2a3: Dtypes::of(&[Int32, Fp16, Fp32]),
        a5: Dtypes::of(&[Int32, Fp16, Fp32]),
        source: "a2a3/TUnaryOp.hpp:408; a5/TUnaryOp.hpp:247",
    },
    Takes {
        insts: &["TNOT"],
        a2a3: INTS,
        a5: INTS,
        source: "a2a3/TUnaryOp.hpp:388 (16-bit lanes); a5/TUnaryOp.hpp:212",
    },
    Takes {
        insts: &[
            "TROWEXPANDADD",
            "TROWEXPANDSUB",
            "TROWEXPANDMUL",
            "TROWEXPANDMAX",
            "TROWEXPANDMIN",
            "TCOLEXPANDADD",
            "TCOLEXPANDSUB",
            "TCOLEXPANDMUL",
            "TCOLEXPANDMAX",
            "TCOLEXPANDMIN",
        ],
        a2a3: A2A3_ARITH,
        a5: A5_NARROW,
        source: "a2a3/TRowExpandAdd.hpp:40 (and Sub:54, Mul:40, Max:40, Min:40), TColExpandBinOp.hpp:89; a5/TRowExpandAdd.hpp:55 (and the others), TColExpandBinOp.hpp:197",
    },
    Takes {
        insts: &["TROWEXPANDDIV", "TCOLEXPANDDIV"],
        a2a3: FLOATS,
        a5: A5_NARROW,
        source: "a2a3/TRowExpandDiv.hpp:55, TColExpandDiv.hpp:52; a5/TRowExpandDiv.hpp:84, TColExpandBinOp.hpp:197",
    },
    Takes {
        insts: &["TROWEXPAND", "TCOLEXPAND"],
        a2a3: SIZE124,
        a5: SIZE1248,
        source: "a2a3/TRowExpand.hpp:82, TColExpand.hpp:44; a5/TRowExpand.hpp:27, TColExpand.hpp:27",
    },
    Takes {
        insts: &["TROWSUM", "TROWPROD"],
        a2a3: A2A3_ARITH,
        a5: A2A3_ARITH,
        source: "a2a3/TRowReduceOps.hpp:197, TRowProd.hpp:56-70; a5/TRowReduce.hpp:393, TRowProd.hpp:27",
    },
    Takes {
        insts: &["TROWMAX", "TROWMIN"],
        a2a3: A2A3_ARITH,
        a5: A2A3_ARITH.with(Dtypes::of(&[Int8, UInt8])),
        source: "a2a3/TRowReduceOps.hpp:197; a5/TRowReduce.hpp:365,420",
    },
    Takes {
        insts: &["TCOLSUM", "TCOLMAX", "TCOLMIN"],
        a2a3: A2A3_ARITH,
        a5: A5_ALL,
        source: "a2a3/TColReduceOps.hpp:87, TColSum.hpp:102; a5/TColReduceOps.hpp:31",
    },
    Takes {
        insts: &["TCOLPROD"],
        a2a3: A2A3_ARITH,
        a5: Dtypes::of(&[Int16, UInt16, Int32, UInt32, Fp16, Bf16, Fp32]),
        source: "a2a3/TColReduceOps.hpp:87 (TColProd.hpp:47); a5/TColProd.hpp:42",
    },
    Takes {
        // The value tile's size is asserted (the index is int32 for 4-byte values).
        insts: &["TROWARGMAX", "TROWARGMIN"],
        a2a3: B24,
        a5: B24,
        source: "a2a3/TRowReduceIdxOps.hpp:29; a5/TRowReduceIdx.hpp:55",
    },
    Takes {
        insts: &["TTRANS", "TFILLPAD"],
        a2a3: SIZE124,
        a5: SIZE124,
        source: "a2a3/TTrans.hpp:1118, TFillPad.hpp:286; a5/TTrans.hpp:825, TFillPad.hpp:120",
    },
    Takes {
        insts: &["TEXPANDS"],
        a2a3: INTS.with(Dtypes::of(&[Fp16, Bf16, Fp32])),
        a5: A5_ALL,
        source: "a2a3/TExpandS.hpp:144; a5/TExpandS.hpp:149",
    },
    Takes {
        insts: &["TPARTADD", "TPARTMAX", "TPARTMIN"],
        a2a3: A2A3_ARITH,
        a5: A5_ALL,
        source: "a2a3/TPartAdd.hpp:74, TPartMax.hpp:74, TPartMin.hpp:74; a5/TPartAdd.hpp:33, TPartMax.hpp:34, TPartMin.hpp:34",
    },
    Takes {
        insts: &["TPARTMUL"],
        a2a3: A2A3_ARITH,
        a5: A5_NARROW,
        source: "a2a3/TPartMul.hpp:74; a5/TPartMul.hpp:32",
    },
    Takes {
        insts: &["TSTORE_ADD"],
        a2a3: Dtypes::of(&[Int8, Int16, Int32, Fp16, Bf16, Fp32]),
        a5: Dtypes::of(&[Int8, Int16, Int32, Fp16, Bf16, Fp32]),
        source: "common/arch/memory/tstore_common.hpp:151 (SetAtomicAdd); a5/TStore.hpp:95",
    },
];

/// One `TCVT` conversion and the targets that have it.
#[derive(Clone, Copy, Debug)]
pub struct Cvt {
    /// The source tile's element type.
    pub from: DataType,
    /// The destination tile's element type.
    pub to: DataType,
    /// Whether A2A3 has it.
    pub a2a3: bool,
    /// Whether A5 has it.
    pub a5: bool,
}

const fn cvt(from: DataType, to: DataType, a2a3: bool, a5: bool) -> Cvt {
    Cvt { from, to, a2a3, a5 }
}

/// The conversions `TCVT` has (A2A3: `npu/a2a3/TCvt.hpp`, the `GenCastCall` dispatcher and
/// `GenCastCallSpecialCases`, whose `if constexpr` chain ends without a branch, so another
/// pair compiles and converts nothing; A5: `npu/a5/TCvt.hpp`, one `castData` overload per
/// pair, so another pair does not compile). `f32 -> f32` rounds to an integral value.
pub const CVT: &[Cvt] = &[
    cvt(Fp32, Fp16, true, true),
    cvt(Fp32, Bf16, true, true),
    cvt(Fp32, Int16, true, true),
    cvt(Fp32, Int32, true, true),
    cvt(Fp32, Int64, true, true),
    cvt(Fp32, Fp32, true, true),
    cvt(Fp16, Fp32, true, true),
    cvt(Fp16, Int32, true, true),
    cvt(Fp16, Int16, true, true),
    cvt(Fp16, Int8, true, true),
    cvt(Fp16, UInt8, true, true),
    cvt(Bf16, Fp32, true, true),
    cvt(Bf16, Int32, true, true),
    cvt(Bf16, Fp16, false, true),
    cvt(Int8, Fp16, true, true),
    cvt(Int8, Int16, false, true),
    cvt(Int8, Int32, false, true),
    cvt(UInt8, Fp16, true, true),
    cvt(UInt8, UInt16, false, true),
    cvt(Int16, Fp16, true, true),
    cvt(Int16, Fp32, true, true),
    cvt(Int16, Int32, false, true),
    cvt(Int16, UInt32, false, true),
    cvt(Int16, UInt8, false, true),
    cvt(Int32, Fp32, true, true),
    cvt(Int32, Int16, true, true),
    cvt(Int32, Int64, true, true),
    cvt(Int32, Fp16, true, false),
    cvt(Int32, UInt16, false, true),
    cvt(Int32, UInt8, false, true),
    cvt(UInt32, UInt8, false, true),
    cvt(UInt32, UInt16, false, true),
    cvt(UInt32, Int16, false, true),
    cvt(Int64, Fp32, true, true),
    cvt(Int64, Int32, true, true),
];

/// The matmul input types and the accumulator each gives (`TMATMUL`, `TMATMUL_ACC`,
/// `TMATMUL_BIAS`; the bias has the accumulator's type): the same on both targets
/// (`npu/a2a3/TMatmul.hpp:83`; `npu/a5/TMatmul.hpp:145-151`, which adds fp8 inputs).
pub const MATMUL: &[(DataType, DataType)] =
    &[(Int8, Int32), (Fp16, Fp32), (Bf16, Fp32), (Fp32, Fp32)];

/// The row of instruction `inst` (`TADD`), if it has one.
pub fn row(inst: &str) -> Option<&'static Takes> {
    TAKES.iter().find(|r| r.insts.contains(&inst))
}

/// The conversions on a target: `a5` selects A5's column, else A2A3's.
pub fn conversions(a5: bool) -> impl Iterator<Item = (DataType, DataType)> {
    CVT.iter()
        .filter(move |c| if a5 { c.a5 } else { c.a2a3 })
        .map(|c| (c.from, c.to))
}

/// The element type op `op` on `d` elements computes in on target `t`, whose instructions
/// for it are `insts`, when `t` does not take `d` in them (or, for a 16-bit float remainder,
/// always): the signed type of `d`'s width for unsigned ring arithmetic or an unsigned order
/// (`signed_twin`: `+ - *`, negation, sums keep the bits, [`reinterprets`]; maxima, minima
/// and compares with the top bit flipped, [`orders`]; uint16 / uint32 on A2A3), if `t` takes
/// that; else `fp32` where computing in `fp32` gives the op's meaning, `t` takes it and
/// converts `d` to `fp32` and back; else `d`. Computing in `fp32` gives the meaning of
/// - an op that only compares or picks among its operands' values ([`picks`]), on any type
///   `fp32` holds (int8 / int16 / bf16 compares and selects on A2A3);
/// - a 16-bit float elementwise op (or row / column maximum or minimum): the semantics
///   computes every 16-bit float op in `fp32` and rounds once to nearest (for `+ - * /` and
///   `sqrt` the same as rounding the exact result, since `fp32` has more than twice their
///   precision plus two bits; bf16 arithmetic on A2A3). pto-isa's own 16-bit `TFMOD` /
///   `TREM` (A5 only) round the `fp32` remainder toward zero instead. Sums and products are
///   not elementwise: they round each step in the 16-bit type;
/// - 1-byte integer ring arithmetic, wrapped before it goes back ([`wraps_bytes`]; A2A3's
///   arithmetic takes no 1-byte integers, A5's `TMUL` none either);
/// - integer division and remainders of at most 16 bits ([`divides_exactly`]; A2A3's `TDIV`
///   and `TFMOD` take no integers, A5's `TDIV` no 1-byte ones).
///
/// pto-lower's `legalize` pass converts such an op's operands to that type and its result
/// back ([`cast_route`], [`back_route`]). The verifier judges the instructions on the type
/// this returns.
pub fn computes_in(
    t: crate::verify::target::Target,
    op: crate::Opcode,
    d: DataType,
    insts: &[crate::ops::Isa],
) -> DataType {
    use crate::OpClass::*;
    use crate::Opcode::{TileFMod, TileFloorMod, TileRem};
    let takes = |x: DataType| insts.iter().all(|i| t.takes_inst(i.name(), x));
    let half = matches!(d, Fp16 | Bf16);
    let elementwise = matches!(
        op.class(),
        TileBinary | TileUnary | TileUnaryFloat | TensorBinary | TensorUnary
    );
    let remainder = half && matches!(op, TileRem | TileFMod | TileFloorMod);
    let exact = picks(op)
        || (half && elementwise)
        || (matches!(d, Int8 | UInt8) && wraps_bytes(op))
        || divides_exactly(op, d);
    // An integer `floor_mod` instruction truncates on every target (`Target::floor_mods`).
    let wrong = op == crate::Opcode::TileFloorMod && !t.floor_mods(d);
    let lacks = remainder || wrong || (!insts.is_empty() && !takes(d));
    if let Some(twin) = signed_twin(d)
        && lacks
        && ((wraps_bytes(op) && op != crate::Opcode::TileAbs) || orders(op))
        && takes(twin)
    {
        return twin;
    }
    let wide = Fp32;
    if exact
        && lacks
        && d != wide
        && takes(wide)
        && holds(wide, d)
        && cast_route(t, d, wide).is_some()
        && back_route(t, wide, d).is_some()
    {
        return wide;
    }
    // An unsigned order whose own type has no route to `fp32` but whose signed twin has one
    // (uint16 compares on A2A3: no `TCVT` takes uint16, and its `TCMP` no 16-bit integers):
    // the top bit flipped, the bits read as the twin, and the twin's route from there.
    match signed_twin(d) {
        Some(twin) if lacks && orders(op) && computes_in(t, op, twin, insts) != twin => twin,
        _ => d,
    }
}

/// The type the instructions `insts` of `op` on `d` elements finally run on, on `t`:
/// [`computes_in`] followed along its chain (uint16 -> int16 -> fp32 for a uint16 compare
/// on A2A3). pto-lower's `legalize` pass takes one step at a time; the verifier judges the
/// last.
pub fn finally_computes_in(
    t: crate::verify::target::Target,
    op: crate::Opcode,
    d: DataType,
    insts: &[crate::ops::Isa],
) -> DataType {
    let next = computes_in(t, op, d, insts);
    if next == d {
        d
    } else {
        finally_computes_in(t, op, next, insts)
    }
}

/// Whether op `op` only compares or picks among its operands' values (compares, selects,
/// maxima, minima, `relu`, row and column maxima and minima): computed in a type that holds
/// every value of its operands' type, it gives the same result.
pub fn picks(op: crate::Opcode) -> bool {
    use crate::Opcode::*;
    matches!(
        op,
        TileMax
            | TileMin
            | TileRelu
            | TileRowMax
            | TileRowMin
            | TileColMax
            | TileColMin
            | TileEq
            | TileNe
            | TileLt
            | TileLe
            | TileGt
            | TileGe
            | TileSelect
    )
}

/// Whether op `op` compares or picks by order (maxima, minima, row and column maxima and
/// minima, compares): on an unsigned type it runs on the signed type of the width once every
/// operand's top bit is flipped (`x ^ 2^(n - 1)` maps the unsigned order onto the signed
/// one), a picked value flipped back.
pub fn orders(op: crate::Opcode) -> bool {
    picks(op) && !matches!(op, crate::Opcode::TileSelect | crate::Opcode::TileRelu)
}

/// Whether op `op` is ring arithmetic (`+ - *`, negation, `abs`, row and column sums), whose
/// exact value on 1-byte integers is an integer below 2^24 in magnitude (a product at most
/// 2^16, a sum of at most 2^17 elements, more than any tile holds): `fp32` computes it
/// exactly, and `x - 256 * floor((x + 128) / 256)` (signed; `x - 256 * floor(x / 256)`
/// unsigned), each step exact, wraps it as the semantics does. Division, remainders, powers
/// and products are not: their exact values leave `fp32`'s 24 bits, or a zero divisor needs
/// the integer rule.
pub fn wraps_bytes(op: crate::Opcode) -> bool {
    use crate::Opcode::*;
    matches!(
        op,
        TileAdd | TileSub | TileMul | TileNeg | TileAbs | TileRowSum | TileColSum
    )
}

/// Whether `op` is an integer division or remainder (`/`, `%`, `fmod`, `floor_mod`) of a type
/// of at most 16 bits, whose meaning `fp32` computes exactly: the integer quotient is
/// `trunc(q)` of the correctly rounded `fp32` quotient `q` (a quotient that is no integer is at
/// least `1 / |b|` from one, more than `q`'s rounding error, at most `2^16 / |b| * 2^-24`);
/// `a - trunc(q) * b` is exact (below `|a|`); a zero divisor is selected away (the semantics
/// gives `0` for a quotient, `a` for a remainder), and `MIN / -1` wrapped. Wider integers
/// leave `fp32`'s 24 bits.
pub fn divides_exactly(op: crate::Opcode, d: DataType) -> bool {
    use crate::Opcode::*;
    matches!(op, TileDiv | TileRem | TileFMod | TileFloorMod) && d.is_int() && d.bits() <= 16
}

/// The conversions that bring values of `d`, held in `wide`, back to `d` on `t` (each exact
/// on them): `wide -> d` when `t` has it, else through a type that holds every value of `d`
/// (`fp32 -> fp16 -> int8`).
pub fn back_route(
    t: crate::verify::target::Target,
    wide: DataType,
    d: DataType,
) -> Option<Vec<Step>> {
    if step(t, wide, d) {
        return Some(vec![(d, false)]);
    }
    [Fp16, Fp32, Int16, Int32]
        .into_iter()
        .find(|&x| x != wide && x != d && holds(x, d) && step(t, wide, x) && step(t, x, d))
        .map(|x| vec![(x, false), (d, false)])
}

/// The instructions of `abs` on `d` elements on `t` when its `TABS` takes no such integers
/// but its `TMULS` and `TMAX` do: `max(x, -x)`, the negation a `TMULS` by -1 (`TNEG`), exact
/// (`-MIN` wraps to `MIN`, and so does `MIN.abs()` in the semantics). pto-lower's `legalize`
/// pass writes it as `tile.neg` and `tile.max`; the verifier judges these.
pub fn abs_as_max(t: crate::verify::target::Target, d: DataType) -> Option<crate::ops::Insts> {
    use crate::ops::Isa;
    let takes = |i: Isa| t.takes_inst(i.name(), d);
    (d.is_signed_int() && !takes(Isa::TAbs) && takes(Isa::TNeg) && takes(Isa::TMax))
        .then(|| [Isa::TNeg, Isa::TMax].into_iter().collect())
}

/// The instructions of a binary op `op` with a scalar operand on `d` elements on `t` when
/// the scalar form's instruction (`insts`, one) does not take `d` but filling the scalar into
/// a tile (`TEXPANDS`) and the tile-tile instruction do: int8 / uint8 shifts by a scalar on
/// A2A3 (its `TSHLS` takes 2- and 4-byte integers, `TSHL` every width). pto-lower's
/// `legalize` pass fills the tile (`tile.full`); the verifier judges these.
pub fn scalar_filled(
    t: crate::verify::target::Target,
    op: crate::Opcode,
    d: DataType,
    insts: &[crate::ops::Isa],
) -> Option<crate::ops::Insts> {
    use crate::ops::{Isa, OpClass};
    if !matches!(op.class(), OpClass::TileBinary | OpClass::TileBitwise) {
        return None;
    }
    let forms = op.info().isa;
    let (&[scalar], Some(&tiles)) = (insts, forms.first()) else {
        return None;
    };
    let takes = |i: Isa| t.takes_inst(i.name(), d);
    (forms.get(1) == Some(&scalar) && !takes(scalar) && takes(Isa::TExpandS) && takes(tiles))
        .then(|| [Isa::TExpandS, tiles].into_iter().collect())
}

/// The instructions `inst` (a tile-tile instruction) becomes on `t` for `d` elements when
/// its operands' valid regions may differ: its `TPART*` form ([`crate::ops::Isa::partial_form`]),
/// or, for an integer product whose `TPARTMUL` the target lacks (A5's takes no 64-bit
/// integers), `TMUL` and `TSUB` over the common region and `TPARTADD` over the rest: with
/// `x` copied into the destination, `x * y - y` where both are valid, then `TPARTADD` with `y`
/// gives `x * y` there and `x` or `y` where only one is, as `TPARTMUL` does (ring arithmetic,
/// exact). pto-lower's C++ emitter writes these; the verifier judges them.
pub fn partial_forms(
    t: crate::verify::target::Target,
    inst: crate::ops::Isa,
    d: DataType,
) -> Vec<&'static str> {
    match inst.partial_form() {
        Some("TPARTMUL") if d.is_int() && !t.takes_inst("TPARTMUL", d) => {
            PARTIAL_MUL_ROUTE.to_vec()
        }
        Some(p) => vec![p],
        None => Vec::new(),
    }
}

/// [`partial_forms`]'s route of an integer product, after the copy (`TMOV`).
pub const PARTIAL_MUL_ROUTE: [&str; 3] = ["TMUL", "TSUB", "TPARTADD"];

/// Whether a cast from `from` to `to` keeps the bits: two integer types of one width, between
/// which Rust's `as` reinterprets. The C++ emitter writes it as `TRESHAPE` to a tile of the
/// other type (pto-isa's `TRESHAPE` takes two tile types of one total size,
/// `npu/a2a3/TReshape.hpp`), which both targets have; no `TCVT` converts such a pair.
pub fn reinterprets(from: DataType, to: DataType) -> bool {
    from != to && from.is_int() && to.is_int() && from.bits() == to.bits()
}

/// Whether `t` converts `from` to `to` in one step: a `TCVT` or a reinterpretation.
fn step(t: crate::verify::target::Target, from: DataType, to: DataType) -> bool {
    reinterprets(from, to) || t.converts(from, to)
}

/// The signed integer type of `d`'s width, for an unsigned `d`: its `+ - *` keep the same
/// bits (two's complement), so unsigned ring arithmetic runs on the signed instructions.
fn signed_twin(d: DataType) -> Option<DataType> {
    match d {
        UInt8 => Some(Int8),
        UInt16 => Some(Int16),
        UInt32 => Some(Int32),
        UInt64 => Some(Int64),
        _ => None,
    }
}

/// Whether every value of `from` is a value of `to`, so that converting one to the other
/// is exact in every mode.
pub fn holds(to: DataType, from: DataType) -> bool {
    // The bits of an integer's magnitude; the significand bits of a float.
    let magnitude = |d: DataType| d.bits() - u32::from(d.is_signed_int());
    let significand = |d: DataType| match d {
        Bf16 => Some(8),
        Fp16 => Some(11),
        Fp32 => Some(24),
        Fp64 => Some(53),
        _ => None,
    };
    if from == to {
        return true;
    }
    match (from.is_int(), to.is_int()) {
        (true, true) => {
            magnitude(to) >= magnitude(from) && (to.is_signed_int() || !from.is_signed_int())
        }
        (true, false) => significand(to).is_some_and(|s| s >= magnitude(from)),
        (false, false) => matches!((from, to), (Fp16 | Bf16, Fp32) | (Fp16 | Bf16 | Fp32, Fp64)),
        (false, true) => false,
    }
}

/// One `TCVT` of a cast's route: the type it converts to, and whether it rounds in the
/// cast's mode (the other steps are exact on the values they see and name no mode).
pub type Step = (DataType, bool);

/// The conversions that compute a cast from `from` to `to` on `t` (every one a `TCVT` the
/// target has or a [`reinterprets`]), when its own `TCVT` lacks the pair but the cast's
/// meaning has an exact route: the pair itself when `t` converts it; else through a type `x` that holds every
/// value of `from` (`int8 -> fp16 -> fp32`, `int16 -> fp32 -> int32`, `fp16 -> fp32 -> bf16`:
/// the only rounding is the last step's, on the same value; an integer to a narrower
/// integer, which wraps, is not routed through a float, which saturates); a 16-bit float
/// rounded to an integral value of its own type goes through `fp32` and back (the integral
/// value is one of the type's). `None` when no route exists.
pub fn cast_route(
    t: crate::verify::target::Target,
    from: DataType,
    to: DataType,
) -> Option<Vec<Step>> {
    if step(t, from, to) {
        return Some(vec![(to, true)]);
    }
    if from == to && from.is_float() {
        let wide = Fp32;
        return (holds(wide, from)
            && step(t, from, wide)
            && step(t, wide, wide)
            && step(t, wide, from))
        .then(|| vec![(wide, false), (wide, true), (from, false)]);
    }
    if from.is_int() && to.is_int() && !holds(to, from) {
        return None;
    }
    [Fp16, Fp32, Int16, Int32]
        .into_iter()
        .find(|&x| x != from && x != to && holds(x, from) && step(t, from, x) && step(t, x, to))
        .map(|x| vec![(x, false), (to, true)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Isa;

    #[test]
    fn every_computing_instruction_has_one_row() {
        let moves = [
            Isa::TMov,
            Isa::TReshape,
            Isa::TExtract,
            Isa::TInsert,
            Isa::TLoad,
            Isa::TStore,
            Isa::TCvt,
            Isa::TMatmul,
            Isa::TMatmulAcc,
            Isa::TMatmulBias,
        ];
        for &i in Isa::ALL {
            let n = TAKES.iter().filter(|r| r.insts.contains(&i.name())).count();
            let want = usize::from(!moves.contains(&i));
            assert_eq!(n, want, "{} has {n} rows", i.name());
            if let Some(p) = i.partial_form() {
                assert!(row(p).is_some(), "{p}");
            }
        }
    }

    #[test]
    fn the_sets_say_what_the_headers_say() {
        let add = row("TADD").map(|r| (r.a2a3, r.a5));
        assert_eq!(
            add.map(|(a, _)| a.describe()).as_deref(),
            Some("int16, int32, fp16 and fp32")
        );
        assert!(
            add.is_some_and(|(a, b)| !a.contains(Int8) && b.contains(Int8) && b.contains(Bf16))
        );
        assert!(row("TDIV").is_some_and(|r| !r.a2a3.contains(Int32) && r.a5.contains(Int32)));
        assert!(row("TFMOD").is_some_and(|r| r.a2a3 == F32));
        assert!(
            TAKES
                .iter()
                .all(|r| !r.a2a3.contains(Bool) && !r.a5.contains(Bool))
        );
        // A rule by size takes fp8 with the 1-byte integers; a list of types does not.
        assert!(row("TTRANS").is_some_and(|r| r.a2a3.contains(Fp8)));
        assert!(row("TADD").is_some_and(|r| !r.a5.contains(Fp8)));
        assert!(conversions(false).all(|(f, t)| f != Fp64 && t != Fp64));
        assert!(
            conversions(false).any(|p| p == (Int32, Fp16))
                && !conversions(true).any(|p| p == (Int32, Fp16))
        );
        assert_eq!(Dtypes::default().describe(), "nothing");
    }
}
