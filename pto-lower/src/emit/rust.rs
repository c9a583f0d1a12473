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
//!
//! The `Writer`'s methods live with what they write: `values` (literals, scalars, indices),
//! `signature` (the signature, shape binding, returned values), `inst` (instructions) and
//! `chain` (the elementwise chains `fuse-chains` marked) and `pairs` (its broadcasts written
//! into their stores).

use std::fmt::Write as _;
use std::ops::Range;

use proc_macro2::TokenStream;

use pto_ir::entity::EntityId;
use pto_ir::{DataType, Diag, Diagnostics, ProgramModule, ValueDef, ValueId};

use crate::isa::{Inst, Program, TileId, count_tile_uses};

mod chain;
mod inst;
mod lex;
mod pairs;
mod parallel;
mod signature;
mod values;

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
            Inst::Load { tensor, .. }
            | Inst::Store { tensor, .. }
            | Inst::Read { tensor, .. }
            | Inst::Write { tensor, .. }
                if !out.contains(tensor) =>
            {
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
            // A callee may write any tensor it is passed, and return early.
            Inst::Return(_) | Inst::Call { .. } => return None,
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
    /// Tensors stored to by the parallel loop being written: locked at each store.
    locked: Vec<ValueId>,
    /// Per tile slot, whether only parallel loops use it (each declares its own copy).
    private: Vec<bool>,
    /// Inside a parallel loop's closure: how many loops deep (0 in its body itself).
    par_depth: Option<u32>,
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
        let private = Writer::private_slots(&p.body, &tile_uses);
        Writer {
            p,
            m,
            out: String::new(),
            params,
            idents: vec![(0, 0); m.values.len()],
            names: String::new(),
            diags: Vec::new(),
            tile_uses,
            tile_named: p.tiles.iter().map(|s| valid_ident(&s.name)).collect(),
            imports: 0,
            isa_names: Vec::new(),
            locked: Vec::new(),
            private,
            par_depth: None,
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
                let _ = write!(self.names, "{}", u64::from(d.number));
                let candidate = self.names.get(start..).unwrap_or_default();
                if !named || !valid_ident(candidate) || self.params.contains(&candidate) {
                    self.names.truncate(start);
                    self.names.push_str("v_");
                    let _ = write!(self.names, "{}", u64::from(d.number));
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
                let _ = write!(self.out, "{}", u64::from(t.0));
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
