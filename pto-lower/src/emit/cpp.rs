//! The PTO-ISA C++ emitter, in the shape the PTO assembler (ptoas) prints
//! (`shared/spec/pto-isa.md`, last section): `#include "common/pto_instr.hpp"`,
//! `using namespace pto;`, `__global__ AICORE void NAME(__gm__ float* x, ...)`, one
//! `Tile<TileType::Vec, float, R, C, BLayout::RowMajor, VR, VC, SLayout::NoneBox, 512,
//! PadValue::Null>` per slot placed with `TASSIGN(t, offset)`, `GlobalTensor` views for every
//! load and store, destination-first intrinsics, `set_flag` / `wait_flag` / `pipe_barrier`,
//! and plain C++ control flow.
//!
//! Deviations, each marked in the output: symbolic dimensions are extra `int64_t`
//! parameters; a reduction's or transpose's scratch tile is its source (the pass pipeline
//! does not reserve scratch space yet); a kernel's returned scalars are not part of the
//! kernel ABI and appear as a comment.

use pto_ir::{
    Constant, DataType, Dim, MemorySpace, Opcode, ProgramModule, Type, ValueDef, ValueId,
};

use super::writer::{Level, Out};
use crate::events::Event;
use crate::info::pipe_cpp;
use crate::isa::{Arg, Index, Inst, Isa, Program, TileId, TileRef, TileSlot};

/// Emits the C++ source of `p`.
pub fn emit(p: &Program) -> String {
    let mut w = Writer {
        p,
        m: &p.module,
        out: Out::default(),
        next_gt: 0,
    };
    w.put_program();
    w.out.text
}

/// The C++ element type.
pub fn cpp_dtype(d: DataType) -> &'static str {
    match d {
        DataType::Bool => "bool",
        DataType::Int8 => "int8_t",
        DataType::Int16 => "int16_t",
        DataType::Int32 => "int32_t",
        DataType::Int64 => "int64_t",
        DataType::UInt8 => "uint8_t",
        DataType::UInt16 => "uint16_t",
        DataType::UInt32 => "uint32_t",
        DataType::UInt64 => "uint64_t",
        DataType::Fp16 => "half",
        DataType::Bf16 => "bfloat16_t",
        DataType::Fp32 => "float",
        DataType::Fp64 => "double",
        _ => "uint8_t",
    }
}

/// The `Tile<..>` type of a slot.
pub fn tile_type(s: &TileSlot) -> String {
    let loc = match s.space {
        MemorySpace::Vec | MemorySpace::Ddr => "Vec",
        MemorySpace::Mat => "Mat",
        MemorySpace::Left => "Left",
        MemorySpace::Right => "Right",
        MemorySpace::Acc => "Acc",
        MemorySpace::Bias => "Bias",
    };
    let (b, sl, fractal) = match s.space {
        MemorySpace::Vec | MemorySpace::Ddr | MemorySpace::Bias => {
            if s.layout == "DN" {
                ("ColMajor", "NoneBox", 512)
            } else {
                ("RowMajor", "NoneBox", 512)
            }
        }
        MemorySpace::Mat => ("ColMajor", "RowMajor", 512),
        MemorySpace::Left => ("RowMajor", "RowMajor", 512),
        MemorySpace::Right => ("RowMajor", "ColMajor", 512),
        MemorySpace::Acc => ("ColMajor", "RowMajor", 1024),
    };
    let v = |x: Option<u64>| x.map_or("DYNAMIC".to_string(), |c| c.to_string());
    format!(
        "Tile<TileType::{loc}, {}, {}, {}, BLayout::{b}, {}, {}, SLayout::{sl}, {fractal}, PadValue::Null>",
        cpp_dtype(s.dtype),
        s.rows,
        s.cols,
        v(s.valid[0]),
        v(s.valid[1])
    )
}

fn ident_ok(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(x) if x.is_ascii_alphabetic() || x == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

struct Writer<'a> {
    p: &'a Program,
    m: &'a ProgramModule,
    out: Out,
    next_gt: u32,
}

impl Writer<'_> {
    fn name(&self, v: ValueId) -> String {
        let d = &self.m.values[v];
        if let (ValueDef::Param(..), Some(n)) = (d.def, &d.name)
            && ident_ok(n)
        {
            return n.clone();
        }
        match d.name.as_deref().map(crate::lower::sanitize) {
            Some(n) if !n.is_empty() && ident_ok(&n) => format!("{n}_{}", d.number),
            _ => format!("v{}", d.number),
        }
    }

    fn tile(&self, t: TileId) -> String {
        self.p
            .tile(t)
            .map_or_else(|| format!("t{}", t.0), |s| s.name.clone())
    }

    fn tref(&self, t: TileRef) -> String {
        match t {
            TileRef::Slot(s) => self.tile(s),
            TileRef::Param(v) => self.name(v),
        }
    }

    fn dtype(&self, v: ValueId) -> DataType {
        self.m.values[v].ty.dtype().unwrap_or(DataType::Unknown)
    }

    fn lit(x: Constant, d: DataType) -> String {
        match d {
            DataType::Bool => (x.as_i64() != 0).to_string(),
            DataType::Fp32 | DataType::Fp16 | DataType::Bf16 => {
                let v = x.as_f64();
                let s = if v.is_finite() {
                    format!("{:?}f", v as f32)
                } else {
                    "__builtin_inff()".to_string()
                };
                if d == DataType::Fp32 {
                    s
                } else {
                    format!("{}({s})", cpp_dtype(d))
                }
            }
            DataType::Fp64 => {
                let v = x.as_f64();
                if v.is_finite() {
                    format!("{v:?}")
                } else {
                    "__builtin_inf()".to_string()
                }
            }
            DataType::UInt64 => match x {
                Constant::SizeT(u) => format!("{u}ULL"),
                other => format!("{}ULL", other.as_i64()),
            },
            DataType::Int64 => format!("{}LL", x.as_i64()),
            _ => x.as_i64().to_string(),
        }
    }

    fn scalar(&self, v: ValueId) -> String {
        match self.m.values[v].constant {
            Some(c) => Self::lit(c, self.dtype(v)),
            None => self.name(v),
        }
    }

    fn scalar_as(&self, v: ValueId, to: DataType) -> String {
        let e = self.scalar(v);
        if self.dtype(v) == to {
            e
        } else {
            format!("static_cast<{}>({e})", cpp_dtype(to))
        }
    }

    fn index(&self, i: Index) -> String {
        match i {
            Index::Const(c) => c.to_string(),
            Index::Value(v) => self.scalar(v),
        }
    }

    fn event(&mut self, l: Level, f: &str, (src, dst, id): Event) {
        self.out.line(
            l,
            format!("{f}({}, {}, EVENT_ID{id});", pipe_cpp(src), pipe_cpp(dst)),
        );
    }

    fn put_program(&mut self) {
        let m = self.m;
        let f = &m.funcs[self.p.func];
        let l0 = Level::default();
        self.out.line(
            l0,
            format!("// {} lowered by pto-lower for {}.", f.name, self.p.target),
        );
        self.out.line(l0, "#include \"common/pto_instr.hpp\"");
        self.out.line(l0, "using namespace pto;");
        self.out.line(l0, "");
        let mut params: Vec<String> = Vec::new();
        for q in &f.sig.params {
            let n = self.name(q.value);
            params.push(match &m.values[q.value].ty {
                Type::Tensor(t) => format!("__gm__ {}* {n}", cpp_dtype(t.dtype)),
                Type::Tile(t) => format!("__gm__ {}* {n}", cpp_dtype(t.dtype)),
                t => format!("{} {n}", cpp_dtype(t.dtype().unwrap_or(DataType::Fp32))),
            });
        }
        for &d in &f.dims {
            params.push(format!(
                "{} {} /* symbolic dimension */",
                cpp_dtype(self.dtype(d)),
                self.name(d)
            ));
        }
        let name = if ident_ok(&f.name) {
            f.name.clone()
        } else {
            "kernel".to_string()
        };
        self.out.line(
            l0,
            format!("__global__ AICORE void {name}({}) {{", params.join(", ")),
        );
        let l1 = l0.next();
        for (i, s) in self.p.tiles.iter().enumerate() {
            let t = self.tile(TileId(i as u32));
            let dynamic = s.valid.iter().any(Option::is_none);
            let ctor = if dynamic {
                format!("({}, {})", s.rows, s.cols)
            } else {
                String::new()
            };
            self.out.line(l1, format!("{} {t}{ctor};", tile_type(s)));
            self.out.line(
                l1,
                format!(
                    "TASSIGN({t}, 0x{:x}); // {} bytes of {}",
                    s.addr,
                    s.bytes,
                    s.space.name()
                ),
            );
        }
        let body = self.p.body.clone();
        self.insts(&body, l1);
        self.out.line(l0, "}");
    }

    fn insts(&mut self, insts: &[Inst], l: Level) {
        for i in insts {
            self.inst(i, l);
        }
    }

    /// A `GlobalTensor` view of `tensor` at `offsets` with the tile's `window`.
    fn global(&mut self, l: Level, tensor: ValueId, offsets: &[Index], window: &[u64]) -> String {
        let m = self.m;
        let Type::Tensor(t) = &m.values[tensor].ty else {
            return "/* not a tensor */".to_string();
        };
        let dims: Vec<String> = t
            .shape
            .iter()
            .map(|d| match d {
                Dim::Const(c) => c.to_string(),
                Dim::Value(v) => format!("static_cast<int64_t>({})", self.name(*v)),
                Dim::Dynamic => "0".to_string(),
            })
            .collect();
        // Row-major strides; the row pitch is the static one when it is known.
        let n = dims.len();
        let mut strides = vec!["1".to_string(); n];
        for k in (0..n.saturating_sub(1)).rev() {
            strides[k] = format!("{} * {}", strides[k + 1], dims[k + 1]);
        }
        let off: Vec<String> = offsets
            .iter()
            .zip(&strides)
            .map(|(&o, s)| format!("static_cast<int64_t>({}) * ({s})", self.index(o)))
            .collect();
        let (rows, cols) = match window.split_last() {
            Some((&c, lead)) => (lead.iter().product::<u64>(), c),
            None => (1, 1),
        };
        let ld_static = t.shape.last().and_then(|d| d.as_const());
        let id = self.next_gt;
        self.next_gt += 1;
        let ty = cpp_dtype(t.dtype);
        let g = format!("gt{id}");
        let ptr = format!(
            "{} + {}",
            self.name(tensor),
            if off.is_empty() {
                "0".to_string()
            } else {
                off.join(" + ")
            }
        );
        match ld_static {
            Some(ld) if n >= 1 => {
                self.out.line(l, format!("using GT{id} = GlobalTensor<{ty}, Shape<1, 1, 1, {rows}, {cols}>, Stride<1, 1, 1, {ld}, 1>>;"));
                self.out.line(l, format!("GT{id} {g}({ptr});"));
            }
            _ => {
                let ld = if n >= 2 {
                    strides[n - 2].clone()
                } else {
                    "1".to_string()
                };
                self.out.line(l, format!("using GT{id} = GlobalTensor<{ty}, Shape<1, 1, 1, {rows}, {cols}>, Stride<1, 1, 1, DYNAMIC, 1>>;"));
                self.out.line(l, format!("GT{id} {g}({ptr}, {ld});"));
            }
        }
        g
    }

    fn inst(&mut self, i: &Inst, l: Level) {
        match i {
            Inst::Op { isa, dst, args } => {
                let d = self.tile(*dst);
                let dty = self.p.tile(*dst).map_or(DataType::Fp32, |s| s.dtype);
                let mut a: Vec<String> = vec![d];
                for x in args {
                    a.push(match *x {
                        Arg::Tile(t) => self.tref(t),
                        Arg::Scalar(v) => self.scalar_as(v, dty),
                        Arg::Imm(f) => Self::lit(Constant::Double(f), dty),
                    });
                }
                if (isa.is_reduction() || *isa == Isa::TTrans)
                    && let Some(src) = a.get(1).cloned()
                {
                    a.push(src);
                    self.out.line(
                        l,
                        format!("{}({}); // scratch: the source", isa.name(), a.join(", ")),
                    );
                    return;
                }
                self.out
                    .line(l, format!("{}({});", isa.name(), a.join(", ")));
            }
            Inst::Load {
                dst,
                tensor,
                offsets,
                window,
            } => {
                let g = self.global(l, *tensor, offsets, window);
                self.out
                    .line(l, format!("TLOAD({}, {g});", self.tile(*dst)));
            }
            Inst::Store {
                tensor,
                src,
                offsets,
                window,
            } => {
                let g = self.global(l, *tensor, offsets, window);
                self.out
                    .line(l, format!("TSTORE({g}, {});", self.tref(*src)));
            }
            Inst::Extract { dst, src, at } => {
                let s = format!(
                    "TEXTRACT({}, {}, {}, {});",
                    self.tile(*dst),
                    self.tref(*src),
                    self.index(at[0]),
                    self.index(at[1])
                );
                self.out.line(l, s);
            }
            Inst::Insert { dst, src, at } => {
                let s = format!(
                    "TINSERT({}, {}, {}, {});",
                    self.tile(*dst),
                    self.tref(*src),
                    self.index(at[0]),
                    self.index(at[1])
                );
                self.out.line(l, s);
            }
            Inst::Cvt { dst, src, round } => {
                let s = format!(
                    "TCVT({}, {}, RoundMode::{});",
                    self.tile(*dst),
                    self.tref(*src),
                    round.cpp()
                );
                self.out.line(l, s);
            }
            Inst::SetValid { dst, dims } => {
                let s = format!(
                    "{}.SetValidShape({}, {});",
                    self.tile(*dst),
                    self.index(dims[0]),
                    self.index(dims[1])
                );
                self.out.line(l, s);
            }
            Inst::FullValid(_) => {}
            Inst::SetFlag(e) => self.event(l, "set_flag", *e),
            Inst::WaitFlag(e) => self.event(l, "wait_flag", *e),
            Inst::Barrier(p) => self.out.line(l, format!("pipe_barrier({});", pipe_cpp(*p))),
            Inst::Scalar { op, result, args } => {
                let t = cpp_dtype(self.dtype(*result));
                let e = self.scalar_op(*op, *result, args);
                self.out
                    .line(l, format!("{t} {} = {e};", self.name(*result)));
            }
            Inst::Assign(pairs) => {
                if let [(d, s)] = pairs.as_slice() {
                    let e = self.scalar_as(*s, self.dtype(*d));
                    self.out.line(l, format!("{} = {e};", self.name(*d)));
                } else {
                    self.out.line(l, "{");
                    for (k, (d, s)) in pairs.iter().enumerate() {
                        let e = self.scalar_as(*s, self.dtype(*d));
                        self.out.line(
                            l.next(),
                            format!("{} tmp{k} = {e};", cpp_dtype(self.dtype(*d))),
                        );
                    }
                    for (k, (d, _)) in pairs.iter().enumerate() {
                        self.out
                            .line(l.next(), format!("{} = tmp{k};", self.name(*d)));
                    }
                    self.out.line(l, "}");
                }
            }
            Inst::For {
                iv,
                lb,
                ub,
                step,
                carried,
                body,
                results,
            } => {
                self.carried(carried, l);
                let t = cpp_dtype(self.dtype(*iv));
                let ivn = self.name(*iv);
                let s = format!(
                    "for ({t} {ivn} = {}; {ivn} < {}; {ivn} += {}) {{",
                    self.scalar(*lb),
                    self.scalar(*ub),
                    self.scalar(*step)
                );
                self.out.line(l, s);
                self.insts(body, l.next());
                self.out.line(l, "}");
                self.results(results, l);
            }
            Inst::While {
                carried,
                cond,
                cond_value,
                body,
                results,
            } => {
                self.carried(carried, l);
                self.out.line(l, "while (true) {");
                self.insts(cond, l.next());
                let c = self.scalar(*cond_value);
                self.out.line(l.next(), format!("if (!{c}) break;"));
                self.insts(body, l.next());
                self.out.line(l, "}");
                self.results(results, l);
            }
            Inst::If {
                cond,
                then_body,
                else_body,
                results,
            } => {
                for &r in results {
                    self.out
                        .line(l, format!("{} {};", cpp_dtype(self.dtype(r)), self.name(r)));
                }
                let c = self.scalar(*cond);
                self.out.line(l, format!("if ({c}) {{"));
                self.insts(then_body, l.next());
                self.out.line(l, "} else {");
                self.insts(else_body, l.next());
                self.out.line(l, "}");
            }
            Inst::Break => self.out.line(l, "break;"),
            Inst::Continue => self.out.line(l, "continue;"),
            Inst::Return(vals) => {
                let v: Vec<String> = vals.iter().map(|&v| self.scalar(v)).collect();
                if v.is_empty() {
                    self.out.line(l, "return;");
                } else {
                    self.out.line(
                        l,
                        format!("return; // the kernel returns {} to the host", v.join(", ")),
                    );
                }
            }
        }
    }

    fn carried(&mut self, carried: &[(ValueId, ValueId)], l: Level) {
        for &(a, init) in carried {
            let d = self.dtype(a);
            let e = self.scalar_as(init, d);
            self.out
                .line(l, format!("{} {} = {e};", cpp_dtype(d), self.name(a)));
        }
    }

    fn results(&mut self, results: &[(ValueId, ValueId)], l: Level) {
        for &(r, a) in results {
            self.out.line(
                l,
                format!(
                    "{} {} = {};",
                    cpp_dtype(self.dtype(r)),
                    self.name(r),
                    self.name(a)
                ),
            );
        }
    }

    fn scalar_op(&self, op: Opcode, result: ValueId, args: &[ValueId]) -> String {
        use Opcode::*;
        let a = args.first().map(|&v| self.scalar(v)).unwrap_or_default();
        let b = args.get(1).map(|&v| self.scalar(v)).unwrap_or_default();
        let bin = |o: &str| format!("({a} {o} {b})");
        match op {
            ScalarAdd => bin("+"),
            ScalarSub => bin("-"),
            ScalarMul => bin("*"),
            ScalarDiv | ScalarFloorDiv => bin("/"),
            ScalarRem | ScalarFloorMod => {
                if self.dtype(result).is_float() {
                    format!("__builtin_fmod({a}, {b})")
                } else {
                    bin("%")
                }
            }
            ScalarMin => format!("({a} < {b} ? {a} : {b})"),
            ScalarMax => format!("({a} > {b} ? {a} : {b})"),
            ScalarPow => format!("__builtin_pow({a}, {b})"),
            ScalarEq => bin("=="),
            ScalarNe => bin("!="),
            ScalarLt => bin("<"),
            ScalarLe => bin("<="),
            ScalarGt => bin(">"),
            ScalarGe => bin(">="),
            ScalarAnd => bin("&&"),
            ScalarOr => bin("||"),
            ScalarXor => bin("!="),
            ScalarBitAnd => bin("&"),
            ScalarBitOr => bin("|"),
            ScalarBitXor => bin("^"),
            ScalarShl => bin("<<"),
            ScalarShr => bin(">>"),
            ScalarNeg => format!("(-{a})"),
            ScalarAbs => format!("({a} < 0 ? -{a} : {a})"),
            ScalarNot => format!("(!{a})"),
            ScalarBitNot => format!("(~{a})"),
            ScalarCast => format!("static_cast<{}>({a})", cpp_dtype(self.dtype(result))),
            _ => a,
        }
    }
}
