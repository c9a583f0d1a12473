//! The PTO-ISA compute instructions the op table names (typed, so a table row and the
//! lowering cannot disagree on a spelling), with the `pto::isa` function that runs each on
//! the CPU.

use std::sync::LazyLock;

use rustc_hash::FxHashMap;

use super::table::{OPS, OpClass};

/// What the op table makes of an instruction (see [`Isa::in_table`]).
#[derive(Clone, Copy, Default)]
struct Forms {
    binary: bool,
    scalar_form: bool,
    unary: bool,
    expand: bool,
    row_broadcast: bool,
    reduction: bool,
}

/// Each instruction's forms, read from the op table once: the lowering and the emitters ask
/// for every instruction they place.
static FORMS: LazyLock<FxHashMap<Isa, Forms>> = LazyLock::new(|| {
    let binary = [OpClass::TileBinary, OpClass::TileBitwise];
    let unary = [
        OpClass::TileUnary,
        OpClass::TileUnaryFloat,
        OpClass::TileNot,
    ];
    let reductions = [
        OpClass::RowReduce,
        OpClass::ColReduce,
        OpClass::RowArgReduce,
    ];
    let forms = |i: Isa| Forms {
        binary: i.in_table(&binary, Some(0)),
        scalar_form: i.in_table(&binary, Some(1)),
        unary: i.in_table(&unary, Some(0)),
        expand: i.in_table(&[OpClass::TileBinary], Some(2))
            || i.in_table(&[OpClass::TileBinary], Some(3)),
        row_broadcast: i.in_table(&[OpClass::TileBinary], Some(2)),
        reduction: i.in_table(&reductions, None),
    };
    Isa::ALL.iter().map(|&i| (i, forms(i))).collect()
});

macro_rules! isa_ops {
    ($($v:ident = $name:literal $rust:literal;)*) => {
        /// A PTO-ISA compute instruction.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[allow(missing_docs, clippy::upper_case_acronyms)]
        pub enum Isa { $($v,)* }

        impl Isa {
            /// Every instruction, in declaration order.
            pub const ALL: &[Isa] = &[$(Isa::$v,)*];

            /// The instruction's name (`TADD`).
            pub fn name(self) -> &'static str {
                match self { $(Isa::$v => $name,)* }
            }

            /// The `pto::isa` function implementing it (`tadd`).
            pub fn rust_fn(self) -> &'static str {
                match self { $(Isa::$v => $rust,)* }
            }
        }
    };
}

isa_ops! {
    TAdd = "TADD" "tadd"; TSub = "TSUB" "tsub"; TMul = "TMUL" "tmul"; TDiv = "TDIV" "tdiv";
    TMax = "TMAX" "tmax"; TMin = "TMIN" "tmin"; TRem = "TREM" "trem"; TFMod = "TFMOD" "tfmod";
    TAnd = "TAND" "tand"; TOr = "TOR" "tor"; TXor = "TXOR" "txor"; TShl = "TSHL" "tshl"; TShr = "TSHR" "tshr";
    TAddS = "TADDS" "tadds"; TSubS = "TSUBS" "tsubs"; TMulS = "TMULS" "tmuls"; TDivS = "TDIVS" "tdivs";
    TMaxS = "TMAXS" "tmaxs"; TMinS = "TMINS" "tmins"; TRemS = "TREMS" "trems"; TFModS = "TFMODS" "tfmods";
    TAndS = "TANDS" "tands"; TOrS = "TORS" "tors"; TXorS = "TXORS" "txors"; TShlS = "TSHLS" "tshls"; TShrS = "TSHRS" "tshrs";
    TNeg = "TNEG" "tneg"; TAbs = "TABS" "tabs"; TRelu = "TRELU" "trelu"; TExp = "TEXP" "texp"; TLog = "TLOG" "tlog";
    TSqrt = "TSQRT" "tsqrt"; TRsqrt = "TRSQRT" "trsqrt"; TRecip = "TRECIP" "trecip"; TNot = "TNOT" "tnot";
    TRowSum = "TROWSUM" "trowsum"; TRowMax = "TROWMAX" "trowmax"; TRowMin = "TROWMIN" "trowmin";
    TColSum = "TCOLSUM" "tcolsum"; TColMax = "TCOLMAX" "tcolmax"; TColMin = "TCOLMIN" "tcolmin";
    TRowExpand = "TROWEXPAND" "trowexpand"; TColExpand = "TCOLEXPAND" "tcolexpand";
    TRowExpandAdd = "TROWEXPANDADD" "trowexpandadd"; TRowExpandSub = "TROWEXPANDSUB" "trowexpandsub";
    TRowExpandMul = "TROWEXPANDMUL" "trowexpandmul"; TRowExpandDiv = "TROWEXPANDDIV" "trowexpanddiv";
    TRowExpandMax = "TROWEXPANDMAX" "trowexpandmax"; TRowExpandMin = "TROWEXPANDMIN" "trowexpandmin";
    TColExpandAdd = "TCOLEXPANDADD" "tcolexpandadd"; TColExpandSub = "TCOLEXPANDSUB" "tcolexpandsub";
    TColExpandMul = "TCOLEXPANDMUL" "tcolexpandmul"; TColExpandDiv = "TCOLEXPANDDIV" "tcolexpanddiv";
    TColExpandMax = "TCOLEXPANDMAX" "tcolexpandmax"; TColExpandMin = "TCOLEXPANDMIN" "tcolexpandmin";
    TTrans = "TTRANS" "ttrans"; TMatmul = "TMATMUL" "tmatmul"; TMatmulAcc = "TMATMUL_ACC" "tmatmul_acc";
    TMatmulBias = "TMATMUL_BIAS" "tmatmul_bias"; TMov = "TMOV" "tmov"; TExpandS = "TEXPANDS" "texpands";
    TExtract = "TEXTRACT" "textract"; TInsert = "TINSERT" "tinsert"; TCvt = "TCVT" "tcvt";
    TLoad = "TLOAD" "tload"; TStore = "TSTORE" "tstore"; TFillPad = "TFILLPAD" "tfillpad_inplace";
    TReshape = "TRESHAPE" "treshape";
    // Issue 16 part A: masks, compare/select, pow, products, arg-reductions, expands.
    TPow = "TPOW" "tpow"; TPowS = "TPOWS" "tpows";
    TRowProd = "TROWPROD" "trowprod"; TColProd = "TCOLPROD" "tcolprod";
    TRowArgMax = "TROWARGMAX" "trowargmax"; TRowArgMin = "TROWARGMIN" "trowargmin";
    TCmp = "TCMP" "tcmp"; TCmpS = "TCMPS" "tcmps"; TSel = "TSEL" "tsel"; TSelS = "TSELS" "tsels";
}

impl Isa {
    /// Whether the op table has a row of one of `classes` with this instruction at operand
    /// form `form` (0 tile-tile, 1 tile-scalar, 2 row broadcast, 3 column broadcast), or
    /// at any form for `None`. The classifications below read the table, so a new row's
    /// instructions are classified by its class and position alone.
    fn in_table(self, classes: &[OpClass], form: Option<usize>) -> bool {
        OPS.iter().any(|r| {
            classes.contains(&r.class)
                && match form {
                    Some(i) => r.isa.get(i) == Some(&self),
                    None => r.isa.contains(&self),
                }
        })
    }

    /// The instruction's forms in the op table.
    fn forms(self) -> Forms {
        FORMS.get(&self).copied().unwrap_or_default()
    }

    /// Elementwise tile-tile binary ops.
    pub fn is_binary(self) -> bool {
        self.forms().binary
    }

    /// Commutative binary ops (`a op b == b op a`).
    pub fn is_commutative(self) -> bool {
        use Isa::*;
        matches!(self, TAdd | TMul | TMax | TMin | TAnd | TOr | TXor)
    }

    /// Tile-scalar ops.
    pub fn is_scalar_form(self) -> bool {
        self.forms().scalar_form
    }

    /// Elementwise unary ops.
    pub fn is_unary(self) -> bool {
        self.forms().unary
    }

    /// The fused row / column broadcast ops (`TROWEXPANDSUB` ...).
    pub fn is_expand_op(self) -> bool {
        self.forms().expand
    }

    /// The fused row broadcasts (`TROWEXPANDADD` / `SUB` / `MUL` / `DIV` / `MAX` / `MIN`):
    /// a binary op with a per-row `R x 1` operand.
    pub fn is_row_broadcast(self) -> bool {
        self.forms().row_broadcast
    }

    /// Reductions (the C++ form takes a scratch tile).
    pub fn is_reduction(self) -> bool {
        self.forms().reduction
    }

    /// Instructions whose C++ form takes a scratch tile (`tmp`), which they overwrite on
    /// A2A3; its shape is [`Isa::scratch_shape`].
    pub fn needs_scratch(self) -> bool {
        matches!(
            self,
            Isa::TRowSum
                | Isa::TRowMax
                | Isa::TRowMin
                | Isa::TTrans
                | Isa::TPow
                | Isa::TPowS
                | Isa::TSel
                | Isa::TSelS
                | Isa::TRowProd
                | Isa::TRowArgMax
                | Isa::TRowArgMin
                | Isa::TRem
                | Isa::TRemS
                | Isa::TXor
                | Isa::TXorS
        )
    }

    /// The `[rows, cols]` of the scratch tile this instruction takes for a source of
    /// `rows x cols` elements of `bytes` bytes each: the source's shape, except `TREM`'s.
    /// pto-isa's A2A3 `TREM` (`npu/a2a3/TRem.hpp`) uses `tmp` as one row: the quotients of a
    /// source row (the destination's row stride, `cols`, or `rows` for a column tile, which
    /// the C++ reads through a `[1, rows]` view), then its comparison mask, for which it
    /// asserts `tmp.GetValidCol() >= stride + 2 * ceil(stride / 64)` and fills one whole
    /// 256-byte repeat. So `[1, W]` with `W` the stride and the mask words rounded up to a
    /// 32-byte row, plus 256 bytes. `TREMS` takes a tile of the destination's type (the CPU
    /// simulation's `TREMS_IMPL(TileDst&, TileSrc&, scalar, TileDst& tmp)`), which the
    /// emitter declares over this scratch: the source's shape. A5 ignores both. `TXOR` /
    /// `TXORS` take the source's shape too (A2A3 builds `a ^ b` as `(a | b) & !(a & b)`
    /// and keeps `a | b` in `tmp`; the emitter declares it with the destination's type).
    pub fn scratch_shape(self, rows: u64, cols: u64, bytes: u64) -> [u64; 2] {
        if self != Isa::TRem {
            return [rows, cols];
        }
        let bytes = bytes.max(1);
        let stride = if cols == 1 { rows } else { cols };
        let line = (32 / bytes).max(1);
        let used = (stride + 2 * stride.div_ceil(64)).div_ceil(line) * line;
        [1, used + 256 / bytes]
    }

    /// The accumulating binary ops, whose result covers both operands' valid regions
    /// (`docs/guide.md` section 5): where only one operand is valid the result is that
    /// operand, as in pto-isa's `TPARTADD` / `TPARTMUL` / `TPARTMAX` / `TPARTMIN`.
    pub fn partial_form(self) -> Option<&'static str> {
        Some(match self {
            Isa::TAdd => "TPARTADD",
            Isa::TMul => "TPARTMUL",
            Isa::TMax => "TPARTMAX",
            Isa::TMin => "TPARTMIN",
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Isa::{self, *};

    #[test]
    fn classifications_follow_the_table() {
        assert!(TAdd.is_binary() && TPow.is_binary() && TRem.is_binary() && !TAddS.is_binary());
        assert!(TShlS.is_scalar_form() && !TAdd.is_scalar_form() && !TCmpS.is_scalar_form());
        assert!(TExp.is_unary() && TNot.is_unary() && !TCvt.is_unary() && !TRowSum.is_unary());
        assert!(TRowExpandDiv.is_expand_op() && TColExpandMin.is_expand_op());
        assert!(!TRowExpand.is_expand_op() && !TAdd.is_expand_op());
        let rows: Vec<Isa> = Isa::ALL
            .iter()
            .copied()
            .filter(|i| i.is_row_broadcast())
            .collect();
        assert_eq!(
            rows,
            [
                TRowExpandAdd,
                TRowExpandSub,
                TRowExpandMul,
                TRowExpandDiv,
                TRowExpandMax,
                TRowExpandMin
            ]
        );
        assert!(TRowArgMin.is_reduction() && TColProd.is_reduction() && !TTrans.is_reduction());
    }

    #[test]
    fn trem_scratch_holds_a_row_its_mask_and_a_repeat() {
        // fp32 rows of 64: 64 quotients + 2 mask words, rounded to 72, + 64 (256 bytes).
        assert_eq!(TRem.scratch_shape(8, 64, 4), [1, 136]);
        // A column tile is read as one row of `rows`.
        assert_eq!(TRem.scratch_shape(40, 1, 4), [1, 48 + 64]);
        // 130 columns: 3 repeats, 6 mask words: 136, + 64.
        assert_eq!(TRem.scratch_shape(2, 130, 4), [1, 200]);
        assert_eq!(TRemS.scratch_shape(8, 64, 4), [8, 64]);
        assert_eq!(TRowSum.scratch_shape(8, 64, 2), [8, 64]);
        assert!(TXor.needs_scratch() && TXorS.needs_scratch());
        assert_eq!(TXor.scratch_shape(16, 32, 1), [16, 32]);
    }
}
