//! The Rust host emitter: an [`isa::Program`](crate::isa::Program) as the body of the host
//! function the `#[pto::kernel]` macro generates.
//!
//! The body is a block of type `Result<R, ::pto::Error>`:
//! 0. one `use` of the runtime names it uses (`Tile`, `Element`, the `isa` functions, ...);
//! 1. one `bind_shapes` call, which checks the shapes of all tensor parameters against a
//!    signature string (`"x[B, 128] out[B, 128]"`) and returns the symbolic dimensions, each
//!    bound from the first tensor carrying it and checked against every other; a symbolic
//!    dimension no tensor carries is the valid rows or columns of a tile parameter;
//! 2. every tile slot allocated once, before any loop, and bound as a `&mut Tile`
//!    (`let t0 = &mut Tile::<T, R, C>::zeros();`, the slots of one type together:
//!    `let [t1, t2] = &mut Tile::<T, R, C>::zeros_n();`), which a call reborrows as the
//!    destination (`&mut Tile`) or a source (`&Tile`) without `&mut` / `&` at each use;
//! 3. the instructions as calls of `pto::isa` functions (`tload(t0, x, ..)?`; the
//!    `_inplace` / `_rev` forms where the destination is also a source), structured control
//!    flow as Rust `for` / `loop` / `if`,
//!    scalar ops as panic-free arithmetic (`Element` ops: wrapping integers, division
//!    by zero gives 0); pipe synchronization (`set_flag` / `wait_flag` / `pipe_barrier`) is
//!    left out, since the CPU runs one instruction at a time;
//! 4. `::core::result::Result::Ok(..)` with the returned scalars.
//!
//! Parameters are named by their IR names without the SSA number (`%x_3` is `x`); other
//! values are `{name}_{number}`. Nothing here panics on any program.
//!
//! Like naga's `back` writers, the `Writer` appends Rust source text to one `String` (no
//! token, `format!` string or identifier allocated on the way); the text becomes tokens once
//! at the end (module `lex`), with `Span::call_site()` as `quote!` gives them. A punctuation
//! is joint with a punctuation character right after it, so the text puts a space after every
//! punctuation that `quote!` would emit on its own (`& mut Tile`, `) ? ;`, `Tile:: < f32`): the
//! tokens, spacing included, are the ones `quote!` makes of the same code.

use std::fmt::Write;
use std::ops::Range;

use proc_macro2::TokenStream;

use pto_ir::entity::EntityId;
use pto_ir::typefmt::push_u64;
use pto_ir::{
    Constant, DataType, Diag, Diagnostics, Dim, Direction, Opcode, ProgramModule, TensorType, Type,
    ValueDef, ValueId,
};

use crate::isa::{Arg, Index, Inst, Isa, Program, TileId, TileRef};

mod lex;

/// Emits the host body of `p`.
pub fn emit(p: &Program) -> Result<TokenStream, Diagnostics> {
    emit_with_params(p).map(|(body, _)| body)
}

/// [`emit`], with the identifiers the body uses for the kernel's parameters, in order: the
/// IR name when it is a plain ASCII identifier, another one otherwise (a raw `r#loop`, a
/// non-ASCII `ñ`, a `__`-name the host code uses itself). The macro binds each of these to
/// the user's parameter of the same position.
pub fn emit_with_params(p: &Program) -> Result<(TokenStream, Vec<String>), Diagnostics> {
    let mut w = Writer::new(p);
    w.put_program();
    let params = p.module.funcs[p.func]
        .sig
        .params
        .iter()
        .map(|q| {
            let r = match w.idents.get(q.value.index()) {
                Some(&(start, end)) if end > start => start as usize..end as usize,
                _ => w.name(q.value),
            };
            w.names.get(r).unwrap_or_default().to_string()
        })
        .collect();
    Ok((w.finish()?, params))
}

/// A whole host function `fn NAME(params) -> Result<R, ::pto::Error> { body }`, with the
/// parameter types of `shared/spec/dsl.md` section 3 (for tools and tests; the macro writes
/// its own signature from the user's and uses [`emit`]).
pub fn emit_fn(p: &Program) -> Result<TokenStream, Diagnostics> {
    let mut w = Writer::new(p);
    w.put_program();
    // The body's errors win over the signature's: report them alone, as before the signature
    // is looked at.
    w.take_diags()?;
    let body = std::mem::take(&mut w.out);
    w.put_signature();
    w.out.push_str(&body);
    w.finish()
}

/// A `TLOAD`s -> elementwise instructions -> `TSTORE` run the host code fuses into one pass
/// (`pto::isa::tload_map_store`); see `Writer::chain_at`.
struct Chain<'i> {
    /// (tile, tensor, offsets) of each load, in order.
    loads: Vec<(TileId, ValueId, &'i [Index])>,
    /// The elementwise instructions, in order.
    ops: Vec<(Isa, TileId, &'i [Arg])>,
    /// (tensor, tile, offsets) of the store.
    store: (ValueId, TileId, &'i [Index]),
    /// Instructions the chain spans, syncs included.
    len: usize,
}

/// The `for` loop a [`Chain`] call runs (see `Writer::put_chain_loop`): loop variable,
/// bounds and constant positive step.
#[derive(Clone, Copy)]
struct ChainLoop {
    iv: ValueId,
    lb: ValueId,
    step: i64,
}

/// The trait and function (`(Import::Element, "add")`, emitted as `Element::add`) of the
/// element operation an elementwise instruction applies, operands in the instruction's
/// order; `None` for the others.
fn elementwise_name(isa: Isa) -> Option<(Import, &'static str)> {
    use Import::{Element, Float, Int};
    use Isa::*;
    Some(match isa {
        TAdd | TAddS => (Element, "add"),
        TSub | TSubS => (Element, "sub"),
        TMul | TMulS => (Element, "mul"),
        TDiv | TDivS => (Element, "div"),
        TMax | TMaxS => (Element, "max"),
        TMin | TMinS => (Element, "min"),
        TRem | TRemS => (Element, "floor_mod"),
        TFMod | TFModS => (Element, "rem"),
        TAnd | TAndS => (Int, "and"),
        TOr | TOrS => (Int, "or"),
        TXor | TXorS => (Int, "xor"),
        TShl | TShlS => (Int, "shl"),
        TShr | TShrS => (Int, "shr"),
        TNeg => (Element, "neg"),
        TAbs => (Element, "abs"),
        TRelu => (Element, "relu"),
        TExp => (Float, "exp"),
        TLog => (Float, "ln"),
        TSqrt => (Float, "sqrt"),
        TRsqrt => (Float, "rsqrt"),
        TRecip => (Float, "recip"),
        TNot => (Int, "not"),
        _ => return None,
    })
}

/// Adds to `out[t]`, per tile slot `t` of the program, the number of instructions in `insts`
/// that name it.
fn count_tile_uses(insts: &[Inst], out: &mut [usize]) {
    fn add(out: &mut [usize], t: TileId) {
        // A slot outside the program is in no chain (`Writer::chain_at`), so needs no count.
        if let Some(n) = out.get_mut(t.0 as usize) {
            *n += 1;
        }
    }
    let slot = |r: &TileRef| match r {
        TileRef::Slot(t) => Some(*t),
        TileRef::Param(_) => None,
    };
    for i in insts {
        match i {
            Inst::Op { dst, args, .. } => {
                add(out, *dst);
                for a in args {
                    if let Arg::Tile(r) = a
                        && let Some(t) = slot(r)
                    {
                        add(out, t);
                    }
                }
            }
            Inst::Load { dst, .. } | Inst::SetValid { dst, .. } | Inst::FullValid(dst) => {
                add(out, *dst)
            }
            Inst::Store { src, .. } => {
                if let Some(t) = slot(src) {
                    add(out, t);
                }
            }
            Inst::Extract { dst, src, .. }
            | Inst::Insert { dst, src, .. }
            | Inst::Cvt { dst, src, .. } => {
                add(out, *dst);
                if let Some(t) = slot(src) {
                    add(out, t);
                }
            }
            Inst::For { body, .. } => count_tile_uses(body, out),
            Inst::While { cond, body, .. } => {
                count_tile_uses(cond, out);
                count_tile_uses(body, out);
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                count_tile_uses(then_body, out);
                count_tile_uses(else_body, out);
            }
            Inst::SetFlag(_)
            | Inst::WaitFlag(_)
            | Inst::Barrier(_)
            | Inst::Scalar { .. }
            | Inst::Assign(_)
            | Inst::Break
            | Inst::Continue
            | Inst::Return(_) => {}
        }
    }
}

/// A name of the `pto` crate the host body may use, imported once at its top.
#[derive(Clone, Copy)]
enum Import {
    BindShapes,
    Element,
    Float,
    Int,
    RoundMode,
    Tile,
}

impl Import {
    /// In the order of the `use`.
    const ALL: [Import; 6] = [
        Import::BindShapes,
        Import::Element,
        Import::Float,
        Import::Int,
        Import::RoundMode,
        Import::Tile,
    ];

    fn name(self) -> &'static str {
        match self {
            Import::BindShapes => "bind_shapes",
            Import::Element => "Element",
            Import::Float => "Float",
            Import::Int => "Int",
            Import::RoundMode => "RoundMode",
            Import::Tile => "Tile",
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// Whether `s` can be a parameter name (`symbol`: false) or a symbolic dimension in the
/// signature of `pto::bind_shapes`.
fn signature_word(s: &str, symbol: bool) -> bool {
    let bad = |c: char| c.is_whitespace() || matches!(c, '[' | ']' | ',');
    !s.contains(bad) && (!symbol || (s != "?" && s.starts_with(|c: char| !c.is_ascii_digit())))
}

/// Whether `s` can be an identifier.
/// The tensors `insts` load from or store to (appended to `out`), or `None` when they
/// return from the kernel (a loop holding a `return` is never cut short).
fn touched_tensors(insts: &[Inst], out: &mut Vec<ValueId>) -> Option<()> {
    for i in insts {
        match i {
            Inst::Load { tensor, .. } | Inst::Store { tensor, .. } if !out.contains(tensor) => {
                out.push(*tensor);
            }
            Inst::For { body, .. } => touched_tensors(body, out)?,
            Inst::While { cond, body, .. } => {
                touched_tensors(cond, out)?;
                touched_tensors(body, out)?;
            }
            Inst::If {
                then_body,
                else_body,
                ..
            } => {
                touched_tensors(then_body, out)?;
                touched_tensors(else_body, out)?;
            }
            Inst::Return(_) => return None,
            _ => {}
        }
    }
    Some(())
}

/// Whether a loop is a program: the loops of the host code tick the budget meter.
fn has_loops(insts: &[Inst]) -> bool {
    insts.iter().any(|i| match i {
        Inst::For { .. } | Inst::While { .. } => true,
        Inst::If {
            then_body,
            else_body,
            ..
        } => has_loops(then_body) || has_loops(else_body),
        _ => false,
    })
}

fn valid_ident(s: &str) -> bool {
    // By bytes: a byte of a non-ASCII character is no ASCII letter, digit or `_` either.
    let word = match s.as_bytes() {
        [] | [b'_'] => false,
        [first, rest @ ..] => {
            (first.is_ascii_alphabetic() || *first == b'_')
                && rest.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
        }
    };
    word && !RUST_KEYWORDS.contains(&s)
}

/// The words Rust reserves in any edition (a parameter named `r#loop` is `loop` in the IR).
const RUST_KEYWORDS: [&str; 52] = [
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// Sign, magnitude and suffix of a signed literal `t`, and whether it is the type's minimum.
fn signed(t: i64, min: i64, suffix: &'static str) -> (bool, u64, &'static str, bool) {
    (t < 0, t.unsigned_abs(), suffix, t == min)
}

/// Whether an instruction is a sync (a no-op on the CPU).
fn is_sync(i: &Inst) -> bool {
    matches!(i, Inst::SetFlag(_) | Inst::WaitFlag(_) | Inst::Barrier(_))
}

/// Writes Rust source text into `out`.
///
/// Expression writers take `bare`: whether to leave out the parentheses around an expression
/// that would be wrapped in them as a whole (`(-1i32)`, `(a == b)`), as a `let` value or an
/// argument needs none; in any other position the parentheses keep the precedence.
struct Writer<'a> {
    p: &'a Program,
    m: &'a ProgramModule,
    /// The text so far.
    out: String,
    /// The names of the parameters, which no other value's identifier may take.
    /// (A kernel has a few: a scan costs less than hashing.)
    params: Vec<&'a str>,
    /// Per value (by index), where its identifier is in `names` (start, end), once written:
    /// `(0, 0)` before (an identifier is never empty). Two `u32`s rather than an
    /// `Option<Range<usize>>` keep the table a third of the size.
    idents: Vec<(u32, u32)>,
    /// The identifiers of `idents`, one after another (one buffer instead of a `String` each).
    names: String,
    diags: Vec<Diag>,
    /// How many instructions name each tile slot (by index), anywhere in the kernel.
    tile_uses: Vec<usize>,
    /// Per tile slot (by index), whether its name is an identifier (else it is `t{index}`);
    /// checked once, as a slot is named at each use.
    tile_named: Vec<bool>,
    /// The [`Import`]s the text uses, one bit each.
    imports: u8,
    /// The names of `pto::isa` the text uses unqualified (`tload`, `tmov`, `LoopRange`):
    /// imported at the top, so each call is `tload(..)` rather than `isa::tload(..)`.
    isa_names: Vec<(&'static str, &'static str)>,
}

impl<'a> Writer<'a> {
    fn new(p: &'a Program) -> Self {
        let m = &p.module;
        let params = m.funcs[p.func]
            .sig
            .params
            .iter()
            .filter_map(|q| m.values[q.value].name.as_deref())
            .collect();
        let mut tile_uses = vec![0; p.tiles.len()];
        count_tile_uses(&p.body, &mut tile_uses);
        Writer {
            p,
            m,
            // About what a typical instruction takes, so the buffer rarely grows.
            out: String::with_capacity(128 * p.inst_count() + 1024),
            params,
            idents: vec![(0, 0); m.values.len()],
            // A few bytes per named value: rarely grows.
            names: String::with_capacity(256),
            diags: Vec::new(),
            tile_uses,
            tile_named: p.tiles.iter().map(|s| valid_ident(&s.name)).collect(),
            imports: 0,
            // A kernel calls a dozen or so: one allocation.
            isa_names: Vec::with_capacity(16),
        }
    }

    /// Notes that the text uses `name`.
    fn import(&mut self, name: Import) {
        self.imports |= name.bit();
    }

    /// Writes the name of the `pto::isa` item `{name}{suffix}`: imported and unqualified,
    /// unless a parameter has that name, which the import would shadow (a `use` in the body
    /// hides a parameter of the same name in the value namespace, where functions live).
    fn put_isa(&mut self, name: &'static str, suffix: &'static str) {
        // Imported already, so no parameter has the name (checked once, below). The same name
        // is nearly always the same `&'static str`: a scan by address first, by text only when
        // that finds none.
        let names = &self.isa_names;
        let imported = names
            .iter()
            .any(|&(n, s)| std::ptr::eq(n, name) && std::ptr::eq(s, suffix))
            || names.iter().any(|&(n, s)| n == name && s == suffix);
        if !imported {
            let is = |p: &&str| {
                p.len() == name.len() + suffix.len() && p.starts_with(name) && p.ends_with(suffix)
            };
            if self.params.iter().any(is) {
                self.put("::pto::isa::");
            } else {
                self.isa_names.push((name, suffix));
            }
        }
        self.put(name);
        self.put(suffix);
    }

    /// Records an error once: every error is at the kernel's span, so a problem met at each
    /// use (an element type the runtime lacks) would otherwise repeat word for word.
    fn err(&mut self, msg: impl Into<String>) {
        let msg = msg.into();
        if !self.diags.iter().any(|d| d.message == msg) {
            self.diags.push(Diag::new(self.p.span, msg));
        }
    }

    /// The errors so far, if any.
    fn take_diags(&mut self) -> Result<(), Diagnostics> {
        if self.diags.is_empty() {
            return Ok(());
        }
        let mut d = Diagnostics::new();
        for x in self.diags.drain(..) {
            d.push(x);
        }
        Err(d)
    }

    /// The text as tokens, or the errors.
    fn finish(mut self) -> Result<TokenStream, Diagnostics> {
        self.take_diags()?;
        lex::tokens(&self.out).map_err(|e| {
            Diag::new(
                self.p.span,
                format!("internal error: the generated host code does not lex: {e}"),
            )
            .into()
        })
    }

    fn put(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// `(a.is_empty() && b.is_empty())` for tensors `ts`.
    fn all_empty(&mut self, ts: &[ValueId]) -> String {
        let mut out = String::from("(");
        for (k, &t) in ts.iter().enumerate() {
            if k > 0 {
                out.push_str(" && ");
            }
            let r = match self.idents.get(t.index()) {
                Some(&(start, end)) if end > start => start as usize..end as usize,
                _ => self.name(t),
            };
            out.push_str(self.names.get(r).unwrap_or_default());
            out.push_str(".is_empty()");
        }
        out.push(')');
        out
    }

    /// For a loop that carries nothing (`plain`), the condition under which all its
    /// iterations after the first do nothing: every tensor its body touches is empty, and the
    /// tiles it uses are its own (nothing after the loop reads what it left in them); `true`
    /// when it touches no tensor at all. `None` when the loop returns or shares a tile with
    /// the code around it.
    fn empty_guard(&mut self, plain: bool, body: &[Inst]) -> Option<String> {
        if !plain {
            return None;
        }
        let mut touched = Vec::new();
        touched_tensors(body, &mut touched)?;
        let mut inside = vec![0; self.tile_uses.len()];
        count_tile_uses(body, &mut inside);
        if inside
            .iter()
            .zip(&self.tile_uses)
            .any(|(i, all)| *i != 0 && i != all)
        {
            return None;
        }
        // A loop that touches no tensor computes nothing anyone sees after its first
        // iteration (its values and tiles stay inside it).
        if touched.is_empty() {
            return Some("true".to_string());
        }
        Some(self.all_empty(&touched))
    }

    /// Writes the Rust identifier of a value.
    fn put_ident(&mut self, v: ValueId) {
        let r = match self.idents.get(v.index()) {
            Some(&(start, end)) if end > start => start as usize..end as usize,
            _ => self.name(v),
        };
        self.out.push_str(self.names.get(r).unwrap_or_default());
    }

    /// Appends the identifier of `v` to `names` and remembers where it is.
    fn name(&mut self, v: ValueId) -> Range<usize> {
        let d = &self.m.values[v];
        let start = self.names.len();
        match (d.def, &d.name) {
            // `__` names are the host code's own (`__pto_meter`, `__step`): a parameter
            // named so is renamed, and the macro binds it (see `emit_with_params`).
            (ValueDef::Param(..), Some(n)) if valid_ident(n) && !n.starts_with("__") => {
                self.names.push_str(n)
            }
            _ => {
                if let Some(n) = d.name.as_deref() {
                    crate::lower::push_sanitized(&mut self.names, n);
                }
                let named = self.names.len() > start;
                self.names.push('_');
                push_u64(&mut self.names, u64::from(d.number));
                let candidate = self.names.get(start..).unwrap_or_default();
                if !named || !valid_ident(candidate) || self.params.contains(&candidate) {
                    self.names.truncate(start);
                    self.names.push_str("v_");
                    push_u64(&mut self.names, u64::from(d.number));
                }
            }
        }
        let r = start..self.names.len();
        if let (Some(slot), Ok(s), Ok(e)) = (
            self.idents.get_mut(v.index()),
            u32::try_from(r.start),
            u32::try_from(r.end),
        ) {
            *slot = (s, e);
        }
        r
    }

    fn put_tile(&mut self, t: TileId) {
        match self.p.tile(t) {
            Some(s) if self.tile_named.get(t.0 as usize) == Some(&true) => {
                self.out.push_str(&s.name)
            }
            _ => {
                self.out.push('t');
                push_u64(&mut self.out, u64::from(t.0));
            }
        }
    }

    /// Writes `s` inside a string literal, escaped as `proc_macro2::Literal::string` does
    /// (the text after it must not start with a digit).
    fn put_escaped(&mut self, s: &str) {
        if s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return self.out.push_str(s);
        }
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            match c {
                // `\0` before an octal digit would read as an octal escape.
                '\0' if chars
                    .as_str()
                    .starts_with(|n: char| ('0'..='7').contains(&n)) =>
                {
                    self.out.push_str("\\x00")
                }
                '\0' => self.out.push_str("\\0"),
                '\'' => self.out.push(c),
                c => self.out.extend(c.escape_debug()),
            }
        }
    }

    fn dtype(&self, v: ValueId) -> DataType {
        self.m.values[v].ty.dtype().unwrap_or(DataType::Unknown)
    }

    /// The Rust element type of `d`: the primitive, or the `pto` re-export of the half types.
    fn rust_ty(&mut self, d: DataType) -> &'static str {
        match (d, d.rust_name()) {
            (DataType::Fp16, _) => "::pto::f16",
            (DataType::Bf16, _) => "::pto::bf16",
            (_, Some(name)) => name,
            (other, None) => {
                self.err(format!("the CPU runtime has no {other} element type"));
                "f32"
            }
        }
    }

    /// Writes `(` unless `bare`.
    fn open(&mut self, bare: bool) {
        if !bare {
            self.out.push('(');
        }
    }

    /// Writes `)` unless `bare`.
    fn close(&mut self, bare: bool) {
        if !bare {
            self.out.push(')');
        }
    }

    /// Writes a literal `x` of type `d` (negative numbers are `(-x)`).
    fn put_lit(&mut self, x: Constant, d: DataType, bare: bool) {
        if d == DataType::Bool {
            self.put(if x.as_i64() != 0 { "true" } else { "false" });
            return;
        }
        if d.is_float() {
            let v = x.as_f64();
            let ty = self.rust_ty(d);
            if v.is_nan() {
                match d {
                    DataType::Fp32 => self.put("f32::NAN"),
                    DataType::Fp64 => self.put("f64::NAN"),
                    _ => {
                        self.import(Import::Element);
                        let _ = write!(self.out, "< {ty} as Element> ::from_f64(f64::NAN)");
                    }
                }
                return;
            }
            let neg = v.is_sign_negative() && v != 0.0;
            let mag = v.abs();
            if neg {
                self.open(bare);
                self.put("- ");
            }
            if !matches!(d, DataType::Fp32 | DataType::Fp64) {
                self.import(Import::Element);
            }
            // The spellings of `Literal::f32_suffixed` / `f64_suffixed` (`2f32`, `0.5f64`).
            let _ = match d {
                DataType::Fp32 if mag.is_finite() => write!(self.out, "{}f32", mag as f32),
                DataType::Fp64 if mag.is_finite() => write!(self.out, "{mag}f64"),
                DataType::Fp32 => write!(self.out, "f32::INFINITY"),
                DataType::Fp64 => write!(self.out, "f64::INFINITY"),
                _ if mag.is_finite() => {
                    write!(self.out, "< {ty} as Element> ::from_f64({mag}f64)")
                }
                _ => write!(self.out, "< {ty} as Element> ::from_f64(f64::INFINITY)"),
            };
            if neg {
                self.close(bare);
            }
            return;
        }
        let ty = self.rust_ty(d);
        let v: i128 = match x {
            Constant::SizeT(u) => i128::from(u),
            Constant::Double(f) => f as i128,
            other => i128::from(other.as_i64()),
        };
        // The value in the literal's type (out of range wraps, as an `as` cast does), then
        // its sign and magnitude: `(- 5i8)`; the minimum has no positive magnitude.
        let (neg, mag, suffix, is_min) = match d {
            DataType::Int8 => signed(v as i8 as i64, i64::from(i8::MIN), "i8"),
            DataType::Int16 => signed(v as i16 as i64, i64::from(i16::MIN), "i16"),
            DataType::Int32 => signed(v as i32 as i64, i64::from(i32::MIN), "i32"),
            DataType::Int64 => signed(v as i64, i64::MIN, "i64"),
            DataType::UInt8 => (false, u64::from(v as u8), "u8", false),
            DataType::UInt16 => (false, u64::from(v as u16), "u16", false),
            DataType::UInt32 => (false, u64::from(v as u32), "u32", false),
            _ => (false, v as u64, "u64", false),
        };
        if is_min {
            let _ = write!(self.out, "{ty}::MIN");
            return;
        }
        if neg {
            self.open(bare);
            self.put("- ");
        }
        push_u64(&mut self.out, mag);
        self.put(suffix);
        if neg {
            self.close(bare);
        }
    }

    /// Writes a scalar operand: a literal for constants, else the value's identifier.
    fn put_scalar(&mut self, v: ValueId, bare: bool) {
        match self.m.values[v].constant {
            Some(c) => self.put_lit(c, self.dtype(v), bare),
            None => self.put_ident(v),
        }
    }

    /// Writes `v` (of type `from`) converted to `to`.
    fn put_convert(&mut self, v: ValueId, from: DataType, to: DataType, bare: bool) {
        if from == to {
            return self.put_scalar(v, bare);
        }
        let prim = |d: DataType| d.is_numeric() && !matches!(d, DataType::Fp16 | DataType::Bf16);
        let t = self.rust_ty(to);
        if to == DataType::Bool {
            self.open(bare);
            self.put_scalar(v, false);
            self.put(" != ");
            self.put_lit(Constant::Int64(0), from, false);
            self.close(bare);
        } else if from == DataType::Bool && prim(to) {
            self.open(bare);
            self.put("u8::from(");
            self.put_scalar(v, false);
            let _ = write!(self.out, ") as {t}");
            self.close(bare);
        } else if from == DataType::Bool {
            self.import(Import::Element);
            let _ = write!(self.out, "< {t} as Element> ::from_f64(f64::from(u8::from(");
            self.put_scalar(v, false);
            self.put(")))");
        } else if prim(from) && prim(to) {
            self.open(bare);
            self.put_scalar(v, false);
            let _ = write!(self.out, " as {t}");
            self.close(bare);
        } else if from.is_float() && !to.is_float() {
            // `as` truncates toward zero (and saturates).
            self.import(Import::Element);
            self.import(Import::RoundMode);
            let _ = write!(
                self.out,
                "< {t} as Element> ::from_f64_rounded(Element::to_f64("
            );
            self.put_scalar(v, false);
            self.put("), RoundMode::CastTrunc)");
        } else {
            self.import(Import::Element);
            let _ = write!(self.out, "< {t} as Element> ::from_f64(Element::to_f64(");
            self.put_scalar(v, false);
            self.put("))");
        }
    }

    /// Writes a scalar operand converted to `to`.
    fn put_scalar_as(&mut self, v: ValueId, to: DataType, bare: bool) {
        if let Some(c) = self.m.values[v].constant
            && to.is_numeric()
            && (to.is_float() || !c.is_float())
        {
            return self.put_lit(c, to, bare);
        }
        self.put_convert(v, self.dtype(v), to, bare);
    }

    /// Writes an index or extent, for a `usize` parameter (which types an unsuffixed
    /// literal: a suffix would only cost the lexer).
    fn put_index(&mut self, i: Index) {
        match i {
            Index::Const(c) => {
                push_u64(
                    &mut self.out,
                    usize::try_from(c).unwrap_or(usize::MAX) as u64,
                );
            }
            Index::Value(v) if self.dtype(v) == DataType::Bool => {
                self.put("usize::from(");
                self.put_scalar(v, false);
                self.put(")");
            }
            // Checked: a negative offset is an error naming it (`as usize` would wrap it).
            Index::Value(v) => {
                self.put("::pto::offset(");
                self.put_scalar(v, true);
                self.put(")?");
            }
        }
    }

    /// Writes `[a, b, ..]`, each item by `item`.
    fn put_bracketed<T: Copy>(&mut self, items: &[T], mut item: impl FnMut(&mut Self, T)) {
        self.put("[");
        for (k, &x) in items.iter().enumerate() {
            if k > 0 {
                self.put(", ");
            }
            item(self, x);
        }
        self.put("]");
    }

    /// Writes `[i, j, ..]` (the `&` is the caller's).
    fn put_indices(&mut self, offsets: &[Index]) {
        self.put_bracketed(offsets, Self::put_index);
    }

    /// The end of a `tload` / `tstore` call: `, [offsets]` as the `i64`s they are
    /// ([`pto::isa::Offset`]), or the `&[offsets], &[window]` of the `_window` form (more
    /// than 2-D), then `)?;`.
    fn put_transfer_end(&mut self, offsets: &[Index], window: &[u64]) {
        if window.len() > 2 {
            self.put(", &");
            self.put_indices(offsets);
            self.put(", ");
            self.put_window(window);
        } else {
            self.put(", ");
            self.put_bracketed(offsets, |w, o| match o {
                // Past `i64::MAX` is out of bounds of any tensor, as `i64::MAX` is.
                Index::Const(c) => push_u64(&mut w.out, c.min(i64::MAX as u64)),
                Index::Value(v) if w.dtype(v) == DataType::Bool => {
                    w.put("i64::from(");
                    w.put_scalar(v, false);
                    w.put(")");
                }
                Index::Value(v) => w.put_scalar_as(v, DataType::Int64, true),
            });
        }
        self.put(") ? ; ");
    }

    fn put_window(&mut self, window: &[u64]) {
        self.put("&");
        self.put_bracketed(window, |w, s| push_u64(&mut w.out, s as usize as u64));
    }

    fn put_tref(&mut self, t: TileRef) {
        match t {
            TileRef::Slot(s) => self.put_tile(s),
            // A tile parameter is already a reference (`&Tile` or `&mut Tile`, which the
            // callee's `&Tile` parameter reborrows as shared).
            TileRef::Param(v) => self.put_ident(v),
        }
    }

    /// The signature of [`emit_fn`], up to the body.
    fn put_signature(&mut self) {
        let m = self.m;
        let f = &m.funcs[self.p.func];
        self.put(
            "#[allow(unused_mut, unused_variables, unused_assignments, unused_parens, \
             non_snake_case, unreachable_code, clippy::all)] pub fn ",
        );
        self.put(if valid_ident(&f.name) {
            &f.name
        } else {
            "kernel"
        });
        self.put("(");
        for (k, q) in f.sig.params.iter().enumerate() {
            if k > 0 {
                self.put(", ");
            }
            self.put_ident(q.value);
            self.put(": ");
            let r = if q.direction == Direction::In {
                "& "
            } else {
                "&mut "
            };
            match &m.values[q.value].ty {
                Type::Tensor(t) => {
                    let e = self.rust_ty(t.dtype);
                    let _ = write!(self.out, "{r}::pto::Tensor< {e}> ");
                }
                Type::Tile(t) => {
                    let e = self.rust_ty(t.dtype);
                    let (rows, cols) = t.rows_cols();
                    let _ = write!(
                        self.out,
                        "{r}::pto::Tile< {e}, {}, {}> ",
                        rows as usize, cols as usize
                    );
                }
                t => {
                    let e = self.rust_ty(t.dtype().unwrap_or(DataType::Fp32));
                    self.put(e);
                }
            }
        }
        self.put(") -> ::core::result::Result< ");
        match f.sig.returns.as_slice() {
            [] => self.put("()"),
            [t] => {
                let e = self.rust_ty(t.dtype().unwrap_or(DataType::Fp32));
                self.put(e);
            }
            ts => {
                self.put("(");
                for (k, t) in ts.iter().enumerate() {
                    if k > 0 {
                        self.put(", ");
                    }
                    let e = self.rust_ty(t.dtype().unwrap_or(DataType::Fp32));
                    self.put(e);
                }
                self.put(")");
            }
        }
        self.put(", ::pto::Error> ");
    }

    fn put_program(&mut self) {
        self.put("{ ");
        let body = self.out.len();
        // 1. Shapes.
        self.put_shapes();
        // The budget meter every loop iteration ticks (`pto::Budget`).
        if has_loops(&self.p.body) {
            self.put("let mut __pto_meter = ::pto::budget::Meter::start(); ");
        }
        // 2. Tiles, once; those of one type together (`let [a, b] = &mut Tile::<..>::zeros_n();`),
        // in order of their first slot. (A kernel has a few slots: a scan per slot costs less
        // than collecting the groups.)
        let tiles = &self.p.tiles;
        let ty_of = |s: &crate::isa::TileSlot| (s.dtype, s.rows, s.cols);
        for (i, s) in tiles.iter().enumerate() {
            let ty = ty_of(s);
            if tiles.iter().take(i).any(|e| ty_of(e) == ty) {
                continue;
            }
            let ids = || {
                (i..tiles.len())
                    .filter(move |&k| tiles.get(k).map(ty_of) == Some(ty))
                    .map(|k| TileId(k as u32))
            };
            let n = ids().count();
            self.put("let ");
            if n == 1 {
                self.put_tile(TileId(i as u32));
            } else {
                self.put("[");
                for (k, id) in ids().enumerate() {
                    if k > 0 {
                        self.put(", ");
                    }
                    self.put_tile(id);
                }
                self.put("]");
            }
            let ty = self.rust_ty(s.dtype);
            self.import(Import::Tile);
            self.put(" = &mut Tile:: < ");
            self.put(ty);
            self.put(", ");
            push_u64(&mut self.out, s.rows as usize as u64);
            self.put(", ");
            push_u64(&mut self.out, s.cols as usize as u64);
            self.put(if n == 1 {
                "> ::zeros(); "
            } else {
                "> ::zeros_n(); "
            });
        }
        // 3. Instructions; a final `return` becomes the tail expression.
        match self.p.body.split_last() {
            Some((Inst::Return(vals), rest)) => {
                self.put_insts(rest);
                self.put_ok(vals);
            }
            _ => {
                self.put_insts(&self.p.body);
                self.put("::core::result::Result::Ok(())");
            }
        }
        self.put(" }");
        // 0. The `pto` names the body uses, imported in front of it. The body is all generated
        // code: the imports shadow nothing it uses (the user's module-level items), but a
        // parameter of the same name in the value namespace, where of these names only the
        // functions `bind_shapes` and `isa::*` live (`put_shapes`, `put_isa`).
        if self.imports != 0 || !self.isa_names.is_empty() {
            let mut names = Import::ALL
                .into_iter()
                .filter(|i| self.imports & i.bit() != 0)
                .map(Import::name);
            let mut import = String::with_capacity(80 + 24 * self.isa_names.len());
            import.push_str("use ::pto::{");
            let mut sep = "";
            if self.imports & Import::BindShapes.bit() != 0 {
                import.extend(names.next());
                sep = ", ";
            }
            if !self.isa_names.is_empty() {
                // In order of first use.
                import.push_str(sep);
                import.push_str("isa::{");
                for (k, (name, suffix)) in self.isa_names.iter().enumerate() {
                    if k > 0 {
                        import.push_str(", ");
                    }
                    import.push_str(name);
                    import.push_str(suffix);
                }
                import.push('}');
                sep = ", ";
            }
            for name in names {
                import.push_str(sep);
                import.push_str(name);
                sep = ", ";
            }
            import.push_str("}; ");
            self.out.insert_str(body, &import);
        }
    }

    /// Checks the tensor parameters' shapes and binds the symbolic dimensions: one
    /// `pto::bind_shapes` call, with the tensors' declared shapes as its signature string,
    /// returns those the tensors carry in order of first appearance; any other is the valid
    /// rows or columns of a tile parameter.
    fn put_shapes(&mut self) {
        let m = self.m;
        let f = &m.funcs[self.p.func];
        let mut bound: Vec<ValueId> = Vec::new();
        for (_, t) in self.tensor_params() {
            for d in &t.shape {
                if let Dim::Value(v) = *d
                    && f.dims.contains(&v)
                    && !bound.contains(&v)
                {
                    bound.push(v);
                }
            }
        }
        for (k, &d) in bound.iter().enumerate() {
            let name = self.symbol_name(d);
            if !signature_word(&name, true) {
                self.err(format!(
                    "the host code cannot bind a symbolic dimension named `{name}`"
                ));
            } else if bound.iter().take(k).any(|&e| self.symbol_name(e) == name) {
                self.err(format!(
                    "two symbolic dimensions are named `{name}`: the host code cannot tell them \
                     apart"
                ));
            }
        }
        if self.tensor_params().next().is_some() {
            // `bind_shapes` returns `i64`s: a symbol of another type is cast after the call.
            self.put("let [");
            for (k, &d) in bound.iter().enumerate() {
                if k > 0 {
                    self.put(", ");
                }
                if self.dtype(d) != DataType::Int64 {
                    let _ = write!(self.out, "__dim_{}", m.values[d].number);
                } else {
                    self.put_ident(d);
                }
            }
            // Imported, unless a parameter has its name (the import would shadow it).
            if self.params.contains(&Import::BindShapes.name()) {
                self.put("] = ::pto::bind_shapes(\"");
            } else {
                self.import(Import::BindShapes);
                self.put("] = bind_shapes(\"");
            }
            self.put_shape_signature(&bound);
            self.put("\", [");
            for (k, (p, _)) in self.tensor_params().enumerate() {
                if k > 0 {
                    self.put(", ");
                }
                self.put_ident(p);
                self.put(".shape()");
            }
            self.put("]) ? ; ");
            for &d in &bound {
                if self.dtype(d) != DataType::Int64 {
                    let ty = self.rust_ty(self.dtype(d));
                    self.put("let ");
                    self.put_ident(d);
                    let number = m.values[d].number;
                    let _ = write!(self.out, ": {ty} = __dim_{number} as {ty}; ");
                }
            }
        }
        for &d in &f.dims {
            if !bound.contains(&d) {
                self.put_tile_dim(d);
            }
        }
    }

    /// The tensor parameters, in order.
    fn tensor_params(&self) -> impl Iterator<Item = (ValueId, &'a TensorType)> + use<'a> {
        let m = self.m;
        m.funcs[self.p.func]
            .sig
            .params
            .iter()
            .filter_map(move |q| match &m.values[q.value].ty {
                Type::Tensor(t) => Some((q.value, t)),
                _ => None,
            })
    }

    /// Writes the text of the signature string of `bind_shapes`: every tensor parameter as
    /// `name[d0, d1, ..]`, a dimension being a size, a symbol of `bound`, or `?` for any size.
    fn put_shape_signature(&mut self, bound: &[ValueId]) {
        let m = self.m;
        for (k, (p, t)) in self.tensor_params().enumerate() {
            if k > 0 {
                self.put(" ");
            }
            let name = m.values[p].name.as_deref().unwrap_or_default();
            if !signature_word(name, false) {
                self.err(format!(
                    "the host code cannot check the shape of a parameter named `{name}`"
                ));
            }
            self.put_escaped(name);
            self.put("[");
            for (j, d) in t.shape.iter().enumerate() {
                if j > 0 {
                    self.put(", ");
                }
                match *d {
                    Dim::Const(c) => {
                        push_u64(
                            &mut self.out,
                            usize::try_from(c).unwrap_or(usize::MAX) as u64,
                        );
                    }
                    Dim::Value(v) if bound.contains(&v) => {
                        let name = self.symbol_name(v);
                        self.put_escaped(&name);
                    }
                    Dim::Value(_) | Dim::Dynamic => self.put("?"),
                }
            }
            self.put("]");
        }
    }

    /// The name of symbolic dimension `d` (`d{number}` when it has none).
    fn symbol_name(&self, d: ValueId) -> std::borrow::Cow<'a, str> {
        let dv = &self.m.values[d];
        match &dv.name {
            Some(n) => (&**n).into(),
            None => format!("d{}", dv.number).into(),
        }
    }

    /// Binds symbolic dimension `d`, which no tensor parameter carries, from the valid region
    /// of the first tile parameter that has it.
    fn put_tile_dim(&mut self, d: ValueId) {
        let m = self.m;
        let f = &m.funcs[self.p.func];
        let ty = self.rust_ty(self.dtype(d));
        let is_d = |dim: &Dim| *dim == Dim::Value(d);
        // The first tile parameter with `d` in its valid region; its last dimension is the
        // columns, any other the rows.
        let from_tile = f.sig.params.iter().find_map(|q| {
            let Type::Tile(t) = &m.values[q.value].ty else {
                return None;
            };
            let k = t.valid.iter().rposition(is_d)?;
            Some((q.value, k + 1 == t.valid.len()))
        });
        match from_tile {
            Some((p, cols)) => {
                self.put("let ");
                self.put_ident(d);
                let _ = write!(self.out, ": {ty} = ");
                self.put_ident(p);
                let what = if cols { "valid_cols" } else { "valid_rows" };
                let _ = write!(self.out, ".{what}() as {ty}; ");
            }
            None => {
                let sym = self.symbol_name(d);
                self.err(format!(
                    "symbolic dimension `{sym}` is not the size of any parameter"
                ));
            }
        }
    }

    /// Writes `::core::result::Result::Ok(..)` of the returned values.
    fn put_ok(&mut self, vals: &[ValueId]) {
        self.put("::core::result::Result::Ok(");
        match vals {
            [] => self.put("()"),
            [v] => self.put_scalar(*v, false),
            vs => {
                self.put("(");
                for (k, &v) in vs.iter().enumerate() {
                    if k > 0 {
                        self.put(", ");
                    }
                    self.put_scalar(v, false);
                }
                self.put(")");
            }
        }
        self.put(")");
    }

    fn put_insts(&mut self, insts: &[Inst]) {
        let mut rest = insts;
        while let Some((i, tail)) = rest.split_first() {
            if let Some(chain) = self.chain_at(rest) {
                self.put_chain(&chain, None);
                rest = rest.get(chain.len..).unwrap_or_default();
            } else {
                self.put_inst(i);
                rest = tail;
            }
        }
    }

    /// The fusable chain starting at `insts[0]`, if there is one: one or two `TLOAD`s of
    /// rank-1/2 windows, elementwise instructions over the loaded tiles only, and a `TSTORE`
    /// of a tile every load flows into, to a tensor none of the loads reads; every tile of the
    /// chain has one shape and dtype and is named by no instruction outside it (so nothing
    /// observes the tiles, which the fused call does not write). Sync instructions inside the
    /// chain (no-ops on the CPU) are dropped.
    fn chain_at<'i>(&self, insts: &'i [Inst]) -> Option<Chain<'i>> {
        let load = |i: &'i Inst| match i {
            Inst::Load {
                dst,
                tensor,
                offsets,
                window,
            } if window.len() <= 2 => Some((*dst, *tensor, offsets.as_slice())),
            _ => None,
        };
        // The loads, and the instruction after them, before anything is collected: most
        // loads start no chain (the next instruction is no elementwise one or store), and
        // this is asked at every instruction.
        let mut at = 0;
        let mut n_loads = 0;
        while let Some(i) = insts.get(at) {
            if n_loads < 2 && load(i).is_some() {
                n_loads += 1;
            } else if !(is_sync(i) && n_loads > 0) {
                break;
            }
            at += 1;
        }
        match insts.get(at) {
            _ if n_loads == 0 => return None,
            Some(Inst::Op { isa, .. }) if elementwise_name(*isa).is_some() => {}
            Some(Inst::Store { .. }) => {}
            _ => return None,
        }
        let loads: Vec<_> = insts.get(..at)?.iter().filter_map(load).collect();
        let first = loads.first()?.0;
        let shape = self.p.tile(first).map(|s| (s.dtype, s.rows, s.cols))?;
        let same = |t: TileId| self.p.tile(t).map(|s| (s.dtype, s.rows, s.cols)) == Some(shape);
        // Tile -> the set of loads (bit i: load i) its current value depends on; one entry per
        // tile (a chain names a few), updated when the chain writes the tile again.
        let mut defined: Vec<(TileId, u32)> = Vec::new();
        for (k, &(t, _, _)) in loads.iter().enumerate() {
            if defined.iter().any(|&(d, _)| d == t) || !same(t) {
                return None;
            }
            defined.push((t, 1 << k));
        }
        let mask_of = |defined: &[(TileId, u32)], t: TileId| {
            defined.iter().find(|&&(d, _)| d == t).map(|&(_, m)| m)
        };
        let mut ops = Vec::new();
        // Tile -> how many instructions of the chain name it (a chain names a few tiles).
        let mut uses: Vec<(TileId, usize)> = Vec::new();
        let mut use_tile = |t: TileId| match uses.iter_mut().find(|(u, _)| *u == t) {
            Some((_, n)) => *n += 1,
            None => uses.push((t, 1)),
        };
        for &(t, _, _) in &loads {
            use_tile(t);
        }
        let store = loop {
            match insts.get(at)? {
                Inst::Op { isa, dst, args } if elementwise_name(*isa).is_some() && same(*dst) => {
                    let mut mask = 0;
                    let mut tiles = 0;
                    for a in args {
                        match a {
                            Arg::Tile(TileRef::Slot(t)) => {
                                mask |= mask_of(&defined, *t)?;
                                tiles += 1;
                                use_tile(*t);
                            }
                            Arg::Tile(TileRef::Param(_)) => return None,
                            Arg::Scalar(_) | Arg::Imm(_) => {}
                        }
                    }
                    let arity_ok = match args.len() {
                        1 => isa.is_unary() && tiles == 1,
                        2 if isa.is_binary() => tiles == 2,
                        2 => isa.is_scalar_form() && tiles == 1,
                        _ => false,
                    };
                    if !arity_ok {
                        return None;
                    }
                    use_tile(*dst);
                    match defined.iter_mut().find(|(d, _)| d == dst) {
                        Some(e) => e.1 = mask,
                        None => defined.push((*dst, mask)),
                    }
                    ops.push((*isa, *dst, args.as_slice()));
                }
                i if is_sync(i) => {}
                Inst::Store {
                    tensor,
                    src: TileRef::Slot(t),
                    offsets,
                    window,
                } if window.len() <= 2 => {
                    use_tile(*t);
                    let all = (1u32 << loads.len()) - 1;
                    if mask_of(&defined, *t)? != all || loads.iter().any(|l| l.1 == *tensor) {
                        return None;
                    }
                    break (*tensor, *t, offsets.as_slice());
                }
                _ => return None,
            }
            at += 1;
        };
        if uses
            .iter()
            .any(|&(t, n)| self.tile_uses.get(t.0 as usize).copied().unwrap_or(0) != n)
        {
            return None;
        }
        // The fused form computes over the region the loads share; an accumulating op
        // (`TADD` ...) covers both loads' regions instead, so two loads whose regions may
        // differ (other tensor extents or offsets) stay unfused.
        if let [(_, ta, oa), (_, tb, ob)] = loads.as_slice() {
            let shape = |t: ValueId| {
                self.p.module.values[t]
                    .ty
                    .as_tensor()
                    .map(|t| t.shape.clone())
            };
            let same_region = oa == ob && shape(*ta) == shape(*tb);
            if !same_region && ops.iter().any(|(isa, _, _)| isa.partial_form().is_some()) {
                return None;
            }
        }
        Some(Chain {
            loads,
            ops,
            store,
            len: at + 1,
        })
    }

    /// Writes a `for` loop whose body is one [`Chain`] (and sync instructions, no-ops on the
    /// CPU) as one `tload_map_store_loop` / `tload2_map_store_loop` call, which checks the
    /// window geometry once for the whole loop: when the loop variable is an `i64` with a
    /// constant positive step, the loop carries nothing, and the chain uses the variable only
    /// as whole offset dimensions (everything else it names is defined before the loop).
    /// Writes nothing and returns false otherwise.
    fn put_chain_loop(
        &mut self,
        iv: ValueId,
        lb: ValueId,
        ub: ValueId,
        step: ValueId,
        body: &[Inst],
    ) -> bool {
        if self.dtype(iv) != DataType::Int64 {
            return false;
        }
        let Some(step) = self.m.values[step]
            .constant
            .map(|c| c.as_i64())
            .filter(|&k| k > 0)
        else {
            return false;
        };
        let Some(at) = body.iter().position(|i| !is_sync(i)) else {
            return false;
        };
        let Some(chain) = self.chain_at(body.get(at..).unwrap_or_default()) else {
            return false;
        };
        let names_iv = |args: &[Arg]| args.contains(&Arg::Scalar(iv));
        if !body.iter().skip(at + chain.len).all(is_sync)
            || chain.ops.iter().any(|&(_, _, args)| names_iv(args))
        {
            return false;
        }
        // The runtime runs the whole loop in one call: the meter charges its iterations up
        // front, and over empty tensors ends it after the first (the others do nothing).
        let mut touched: Vec<ValueId> = chain.loads.iter().map(|l| l.1).collect();
        touched.push(chain.store.0);
        let empty = self.all_empty(&touched);
        self.put("{ let __ub = __pto_meter.loop_end(");
        self.put_i64(lb, true);
        self.put(", ");
        self.put_i64(ub, true);
        let _ = write!(self.out, ", {step}, {empty})? ; ");
        self.put_chain(&chain, Some(ChainLoop { iv, lb, step }));
        self.put("} ");
        true
    }

    /// Writes the offsets of a chain's load or store: plain indices, or in a loop call
    /// ([`Writer::put_chain_loop`]) `LoopIndex`es.
    fn put_chain_offsets(&mut self, offsets: &[Index], iv: Option<ValueId>) {
        let Some(iv) = iv else {
            return self.put_indices(offsets);
        };
        self.put_bracketed(offsets, |w, o| {
            w.put_isa("LoopIndex", "");
            if o == Index::Value(iv) {
                w.put("::Iv");
            } else {
                w.put("::At(");
                w.put_index(o);
                w.put(")");
            }
        });
    }

    /// Writes a [`Chain`] as one `tload_map_store` / `tload2_map_store` call whose closure
    /// computes the stored element from the loaded ones with the chain's instructions in
    /// order; with `lp`, the loop call of [`Writer::put_chain_loop`].
    fn put_chain(&mut self, c: &Chain<'_>, lp: Option<ChainLoop>) {
        let iv = lp.map(|l| l.iv);
        let dtype = self.p.tile(c.store.1).map_or(DataType::Fp32, |s| s.dtype);
        let ty = self.rust_ty(dtype);
        let f = match (c.loads.len(), lp.is_some()) {
            (1, false) => "tload_map_store",
            (_, false) => "tload2_map_store",
            (1, true) => "tload_map_store_loop",
            (_, true) => "tload2_map_store_loop",
        };
        self.put_isa(f, "");
        self.put("(");
        for &(t, tensor, offsets) in &c.loads {
            self.put_tile(t);
            self.put(", ");
            self.put_ident(tensor);
            self.put(", &");
            self.put_chain_offsets(offsets, iv);
            self.put(", ");
        }
        // A `&mut Tensor` parameter, reborrowed by the call.
        self.put_ident(c.store.0);
        self.put(", &");
        self.put_chain_offsets(c.store.2, iv);
        self.put(", ");
        if let Some(l) = lp {
            self.put_isa("LoopRange", "");
            self.put(" { lb: ");
            self.put_i64(l.lb, true);
            // `__ub`: see `put_chain_loop`.
            let _ = write!(self.out, ", ub: __ub, step: {} }}, ", l.step as usize);
        }
        self.put("move |");
        for (k, &(t, _, _)) in c.loads.iter().enumerate() {
            let sep = if k > 0 { ", " } else { "" };
            let _ = write!(self.out, "{sep}__e{}: {ty}", t.0);
        }
        let _ = write!(self.out, "| -> {ty} {{ ");
        for &(isa, dst, args) in &c.ops {
            let _ = write!(self.out, "let __e{}: {ty} = ", dst.0);
            if let Some((tr, f)) = elementwise_name(isa) {
                self.import(tr);
                let _ = write!(self.out, "{}::{f}", tr.name());
            }
            self.put("(");
            for (k, a) in args.iter().enumerate() {
                if k > 0 {
                    self.put(", ");
                }
                match *a {
                    Arg::Tile(TileRef::Slot(t)) => {
                        let _ = write!(self.out, "__e{}", t.0);
                    }
                    // Not in a chain (`chain_at`).
                    Arg::Tile(TileRef::Param(_)) => {}
                    Arg::Scalar(v) => self.put_scalar_as(v, dtype, true),
                    Arg::Imm(x) => self.put_lit(Constant::Double(x), dtype, true),
                }
            }
            self.put("); ");
        }
        let _ = write!(self.out, "__e{} }}, ) ? ; ", c.store.1.0);
    }

    fn put_inst(&mut self, i: &Inst) {
        match i {
            Inst::Op { isa, dst, args } => self.put_op(*isa, *dst, args),
            Inst::Load {
                dst,
                tensor,
                offsets,
                window,
            } => {
                self.put_isa(
                    if window.len() > 2 {
                        "tload_window"
                    } else {
                        "tload"
                    },
                    "",
                );
                self.put("(");
                self.put_tile(*dst);
                // Already a `&Tensor` (or a `&mut Tensor`, reborrowed as shared).
                self.put(", ");
                self.put_ident(*tensor);
                self.put_transfer_end(offsets, window);
            }
            Inst::Store {
                tensor,
                src,
                offsets,
                window,
            } => {
                self.put_isa(
                    if window.len() > 2 {
                        "tstore_window"
                    } else {
                        "tstore"
                    },
                    "",
                );
                // A `&mut Tensor` parameter, reborrowed by the call.
                self.put("(");
                self.put_ident(*tensor);
                self.put(", ");
                self.put_tref(*src);
                self.put_transfer_end(offsets, window);
            }
            Inst::Extract { dst, src, at } | Inst::Insert { dst, src, at } => {
                let f = if matches!(i, Inst::Extract { .. }) {
                    "textract"
                } else {
                    "tinsert"
                };
                self.put_isa(f, "");
                self.put("(");
                self.put_tile(*dst);
                self.put(", ");
                self.put_tref(*src);
                self.put(", ");
                self.put_index(at[0]);
                self.put(", ");
                self.put_index(at[1]);
                self.put(") ? ; ");
            }
            Inst::Cvt { dst, src, round } => {
                self.import(Import::RoundMode);
                self.put_isa("tcvt", "");
                self.put("(");
                self.put_tile(*dst);
                self.put(", ");
                self.put_tref(*src);
                let _ = write!(self.out, ", RoundMode::{}); ", round.rust());
            }
            Inst::SetValid { dst, dims } => {
                self.put_tile(*dst);
                self.put(".set_valid(");
                self.put_index(dims[0]);
                self.put(", ");
                self.put_index(dims[1]);
                self.put(") ? ; ");
            }
            Inst::FullValid(t) => {
                self.put_tile(*t);
                let (r, c) = self.p.tile(*t).map_or((1, 1), |s| (s.rows, s.cols));
                self.put(".set_valid(");
                push_u64(&mut self.out, r as usize as u64);
                self.put(", ");
                push_u64(&mut self.out, c as usize as u64);
                self.put(") ? ; ");
            }
            // The CPU runs one instruction at a time: pipe synchronization has nothing to
            // order (LOWERED and CPP keep it).
            Inst::SetFlag(_) | Inst::WaitFlag(_) | Inst::Barrier(_) => {}
            Inst::Scalar { op, result, args } => {
                self.put("let ");
                self.put_ident(*result);
                let ty = self.rust_ty(self.dtype(*result));
                let _ = write!(self.out, ": {ty} = ");
                self.put_scalar_op(*op, *result, args);
                self.put("; ");
            }
            Inst::Assign(pairs) => {
                if let [(d, s)] = pairs.as_slice() {
                    self.put_ident(*d);
                    self.put(" = ");
                    self.put_scalar_as(*s, self.dtype(*d), true);
                } else {
                    self.put("(");
                    for (k, &(d, _)) in pairs.iter().enumerate() {
                        if k > 0 {
                            self.put(", ");
                        }
                        self.put_ident(d);
                    }
                    self.put(") = (");
                    for (k, &(d, s)) in pairs.iter().enumerate() {
                        if k > 0 {
                            self.put(", ");
                        }
                        self.put_scalar_as(s, self.dtype(d), true);
                    }
                    self.put(")");
                }
                self.put("; ");
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
                if carried.is_empty()
                    && results.is_empty()
                    && self.put_chain_loop(*iv, *lb, *ub, *step, body)
                {
                    return;
                }
                self.put_carried_decls(carried);
                let ivt = self.dtype(*iv);
                self.put("for ");
                self.put_ident(*iv);
                self.put(" in ");
                let k = self.m.values[*step].constant.map(|c| c.as_i64());
                let empty = self.empty_guard(carried.is_empty() && results.is_empty(), body);
                let ranged = k != Some(1) || empty.is_some();
                if ranged {
                    self.put("(");
                }
                self.put_bound(*lb, *ub, ivt);
                self.put(" .. ");
                self.put_bound(*ub, *lb, ivt);
                match k {
                    Some(1) => {}
                    Some(k) if k > 0 => {
                        self.put(").step_by(");
                        push_u64(&mut self.out, k as usize as u64);
                        self.put(")");
                    }
                    _ => {
                        self.put(").step_by({ let __step = ");
                        self.put_scalar_as(*step, ivt, false);
                        self.put(
                            "; if __step <= 0 as _ { return ::core::result::Result::Err(\
                             ::pto::Error::Unsupported(::std::format!(\
                             \"loop step {} is not positive\", __step))); } __step as usize })",
                        );
                    }
                }
                if let Some(guard) = empty {
                    // Every iteration after the first would do nothing.
                    if k == Some(1) {
                        self.put(")");
                    }
                    let _ = write!(self.out, ".take(if {guard} {{ 1 }} else {{ usize::MAX }})");
                }
                self.put(" { __pto_meter.tick()? ; ");
                self.put_insts(body);
                self.put("} ");
                self.put_result_decls(results);
            }
            Inst::While {
                carried,
                cond,
                cond_value,
                body,
                results,
            } => {
                self.put_carried_decls(carried);
                self.put("loop { __pto_meter.tick()? ; ");
                self.put_insts(cond);
                self.put("if ! ");
                self.put_scalar(*cond_value, false);
                self.put(" { break; } ");
                self.put_insts(body);
                self.put("} ");
                self.put_result_decls(results);
            }
            Inst::If {
                cond,
                then_body,
                else_body,
                results,
            } => {
                for &r in results {
                    self.put("let ");
                    self.put_ident(r);
                    let ty = self.rust_ty(self.dtype(r));
                    let _ = write!(self.out, ": {ty}; ");
                }
                self.put("if ");
                self.put_scalar(*cond, false);
                self.put(" { ");
                self.put_insts(then_body);
                self.put("} else { ");
                self.put_insts(else_body);
                self.put("} ");
            }
            Inst::Break => self.put("break; "),
            Inst::Continue => self.put("continue; "),
            Inst::Return(vals) => {
                self.put("return ");
                self.put_ok(vals);
                self.put("; ");
            }
        }
    }

    /// Writes bound `v` of a `for` loop over `ivt` whose other bound is `other`: a constant
    /// as a plain integer (`(0 .. n)`) when `other`, not a constant, types the range and the
    /// value is a non-negative `i64`; else as `put_scalar_as` does (`(0i64 .. 16)`).
    fn put_bound(&mut self, v: ValueId, other: ValueId, ivt: DataType) {
        if ivt == DataType::Int64 && self.m.values[other].constant.is_none() {
            self.put_i64(v, false);
        } else {
            self.put_scalar_as(v, ivt, false);
        }
    }

    /// Writes `v` as an `i64` where the code around types it (a typed field, a range whose
    /// other bound is an `i64`): a non-negative integer constant needs no suffix (`lb: 0`).
    fn put_i64(&mut self, v: ValueId, bare: bool) {
        match self.m.values[v].constant {
            Some(c) if !c.is_float() && c.as_i64() >= 0 => {
                push_u64(&mut self.out, c.as_i64().unsigned_abs())
            }
            _ => self.put_scalar_as(v, DataType::Int64, bare),
        }
    }

    fn put_carried_decls(&mut self, carried: &[(ValueId, ValueId)]) {
        for &(arg, init) in carried {
            self.put("let mut ");
            self.put_ident(arg);
            let d = self.dtype(arg);
            let ty = self.rust_ty(d);
            let _ = write!(self.out, ": {ty} = ");
            self.put_scalar_as(init, d, true);
            self.put("; ");
        }
    }

    fn put_result_decls(&mut self, results: &[(ValueId, ValueId)]) {
        for &(r, arg) in results {
            self.put("let ");
            self.put_ident(r);
            let ty = self.rust_ty(self.dtype(r));
            let _ = write!(self.out, ": {ty} = ");
            self.put_ident(arg);
            self.put("; ");
        }
    }

    /// Writes a scalar-unit op as an expression, bare (it is a `let` value).
    fn put_scalar_op(&mut self, op: Opcode, result: ValueId, args: &[ValueId]) {
        use Opcode::*;
        let d = self.dtype(result);
        let ad = args.first().map_or(d, |&a| self.dtype(a));
        let (a, b) = (args.first().copied(), args.get(1).copied());
        // The trait whose function the op calls, if it is a call (`Element::add(a, b)`); the
        // text before (after the trait), between and after the operands (`None`: no second
        // operand), and whether `a` and `)` follow (`a.checked_rem(b).unwrap_or(a)`).
        let (el, int) = (Some(Import::Element), Some(Import::Int));
        let (call, pre, mid, post, a_again) = match op {
            // The arithmetic names the runtime's element functions, which are the semantics
            // module's definitions (`pto_ir::sem`).
            ScalarAdd => (el, "::add(", Some(", "), ")", false),
            ScalarSub => (el, "::sub(", Some(", "), ")", false),
            ScalarMul => (el, "::mul(", Some(", "), ")", false),
            ScalarDiv => (el, "::div(", Some(", "), ")", false),
            ScalarRem => (el, "::rem(", Some(", "), ")", false),
            ScalarFloorDiv => (el, "::floor_div(", Some(", "), ")", false),
            ScalarFloorMod => (el, "::floor_mod(", Some(", "), ")", false),
            ScalarPow => (el, "::pow(", Some(", "), ")", false),
            ScalarMin => (el, "::min(", Some(", "), ")", false),
            ScalarMax => (el, "::max(", Some(", "), ")", false),
            ScalarEq => (None, "", Some(" == "), "", false),
            ScalarNe => (None, "", Some(" != "), "", false),
            ScalarLt => (None, "", Some(" < "), "", false),
            ScalarLe => (None, "", Some(" <= "), "", false),
            ScalarGt => (None, "", Some(" > "), "", false),
            ScalarGe => (None, "", Some(" >= "), "", false),
            ScalarAnd | ScalarBitAnd => (None, "", Some(" & "), "", false),
            ScalarOr | ScalarBitOr => (None, "", Some(" | "), "", false),
            ScalarXor | ScalarBitXor => (None, "", Some(" ^ "), "", false),
            ScalarShl => (int, "::shl(", Some(", "), ")", false),
            ScalarShr => (int, "::shr(", Some(", "), ")", false),
            ScalarNeg => (el, "::neg(", None, ")", false),
            ScalarAbs => (el, "::abs(", None, ")", false),
            ScalarNot | ScalarBitNot => (None, "! ", None, "", false),
            ScalarCast => {
                if let Some(a) = a {
                    self.put_convert(a, ad, d, true);
                }
                return;
            }
            other => {
                self.err(format!("`{other}` is not a scalar-unit op"));
                self.put_operand(a);
                return;
            }
        };
        if let Some(tr) = call {
            self.import(tr);
            self.put(tr.name());
        }
        self.put(pre);
        let a_at = self.out.len();
        self.put_operand(a);
        let a_text = a_at..self.out.len();
        if let Some(mid) = mid {
            self.put(mid);
            match b {
                // Shift amounts may have another integer type; the runtime's shifts take the
                // value's type.
                Some(b) if matches!(op, ScalarShl | ScalarShr) => self.put_scalar_as(b, ad, false),
                b => self.put_operand(b),
            }
        }
        self.put(post);
        if a_again {
            // Copied: written again, a literal of an unsupported type would report its error
            // twice.
            self.out.extend_from_within(a_text);
            self.put(")");
        }
    }

    /// Writes an operand of a scalar op, if there is one.
    fn put_operand(&mut self, v: Option<ValueId>) {
        if let Some(v) = v {
            self.put_scalar(v, false);
        }
    }

    /// Writes `{f}{suffix}(&mut dst, args..);`, a call of `pto::isa::{f}{suffix}`.
    fn put_call(&mut self, f: &'static str, suffix: &'static str, dst: TileId, args: &[Arg]) {
        self.put_isa(f, suffix);
        self.put("(");
        self.put_tile(dst);
        let dtype = self.p.tile(dst).map_or(DataType::Fp32, |s| s.dtype);
        for a in args {
            self.put(", ");
            match *a {
                Arg::Tile(t) => self.put_tref(t),
                Arg::Scalar(v) => self.put_scalar_as(v, dtype, true),
                Arg::Imm(x) => self.put_lit(Constant::Double(x), dtype, true),
            }
        }
        self.put("); ");
    }

    fn put_op(&mut self, isa: Isa, dst: TileId, args: &[Arg]) {
        use std::slice::from_ref;
        let is_dst = |a: &Arg| *a == Arg::Tile(TileRef::Slot(dst));
        let f = isa.rust_fn();
        match args {
            // TMOV onto itself is nothing.
            [a] if isa == Isa::TMov && is_dst(a) => {}
            [a] if isa.is_unary() && is_dst(a) => self.put_call(f, "_inplace", dst, &[]),
            [_] => self.put_call(f, "", dst, args),
            [a, b] if isa.is_binary() || isa.is_expand_op() => {
                if is_dst(a) && is_dst(b) {
                    self.err(format!("{} reads its destination twice", isa.name()));
                } else if is_dst(a) {
                    self.put_call(f, "_inplace", dst, from_ref(b));
                } else if is_dst(b) && isa.is_binary() {
                    let suffix = if isa.is_commutative() {
                        "_inplace"
                    } else {
                        "_inplace_rev"
                    };
                    self.put_call(f, suffix, dst, from_ref(a));
                } else if is_dst(b) {
                    self.err(format!(
                        "{} with its broadcast operand as destination",
                        isa.name()
                    ));
                } else {
                    self.put_call(f, "", dst, args);
                }
            }
            [a, k] if isa.is_scalar_form() => match (a, k) {
                (Arg::Tile(_), _) if is_dst(a) => self.put_call(f, "_inplace", dst, from_ref(k)),
                (Arg::Tile(_), _) => self.put_call(f, "", dst, args),
                // Scalar first (`TDIVS(d, k, s)`).
                (_, Arg::Tile(_)) if is_dst(k) => {
                    self.put_call(f, "_rev_inplace", dst, from_ref(a))
                }
                _ => self.put_call(f, "_rev", dst, args),
            },
            [c, _, _] if isa == Isa::TMatmulAcc && is_dst(c) => {
                let ab = args.get(1..).unwrap_or_default();
                self.put_call("tmatmul_acc", "_inplace", dst, ab)
            }
            args => {
                if args.iter().any(is_dst) {
                    self.err(format!("{} cannot read its destination", isa.name()));
                }
                self.put_call(f, "", dst, args);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn valid_ident_takes_ascii_identifiers_only() {
        for ok in ["a", "_a", "A_1", "__", "t0_row"] {
            assert!(super::valid_ident(ok), "{ok}");
        }
        for bad in [
            "", "_", "1a", "a-b", "é", "aé", "a b", "loop", "match", "gen",
        ] {
            assert!(!super::valid_ident(bad), "{bad}");
        }
    }
}
