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
//! Each piece is built as tokens with `quote!` (identifiers with `format_ident!`, numbers and
//! strings as `proc_macro2::Literal`s), as a proc-macro builds its output: the macro splices
//! the body into the function it generates, and `pto-opt --emit=rust` pretty-prints it.
//!
//! The `Writer`'s methods live with what they build: `values` (literals, scalars, indices),
//! `signature` (the signature, shape binding, returned values), `inst` (instructions),
//! `parallel` (parallel loops), `chain` (the elementwise chains `fuse-chains` marked) and
//! `pairs` (its broadcasts written into their stores and ops summed by rows) and `rows` (the
//! loads read in place whose instructions run one row at a time).

use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream};
use quote::{format_ident, quote};

use pto_ir::entity::EntityId;
use pto_ir::{DataType, Diag, Diagnostics, ProgramModule, ValueDef, ValueId};

use crate::isa::{Inst, Offsets, Program, TileId, count_tile_uses};

mod chain;
mod inst;
mod pairs;
mod parallel;
mod rows;
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
    let body = w.program();
    w.take_diags()?;
    let params = p.module.funcs[p.func]
        .sig
        .params
        .iter()
        .map(|q| w.ident(q.value).to_string())
        .collect();
    Ok((body, params))
}

/// A whole host function `fn NAME(params) -> Result<R, ::pto::Error> { body }`, with the
/// parameter types of `shared/spec/dsl.md` section 3 (for tools and tests; the macro writes
/// its own signature from the user's and uses [`emit`]).
pub fn emit_fn(p: &Program) -> Result<TokenStream, Diagnostics> {
    let mut w = Writer::new(p);
    let body = w.program();
    // The body's errors win over the signature's: report them alone, as before the signature
    // is looked at.
    w.take_diags()?;
    let signature = w.signature();
    w.take_diags()?;
    Ok(quote!(#signature #body))
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

    fn ident(self) -> Ident {
        Ident::new(self.name(), Span::call_site())
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

/// Whether `s` can be an identifier.
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

/// `e` in parentheses, unless `bare`.
fn paren(bare: bool, e: TokenStream) -> TokenStream {
    if bare { e } else { quote!((#e)) }
}

/// `{ ts }`, with `ts` moved into the group: interpolated in `quote!` as `{ #ts }`, every
/// token of a loop body would be copied once per level of nesting, a cost that grows with the
/// kernel (a group is shared, not copied).
fn braced(ts: TokenStream) -> Group {
    Group::new(Delimiter::Brace, ts)
}

/// Builds the tokens of the host code.
///
/// Expression builders take `bare`: whether to leave out the parentheses around an
/// expression that would be wrapped in them as a whole (`(-1i32)`, `(a == b)`), as a `let`
/// value or an argument needs none; in any other position the parentheses keep the
/// precedence.
struct Writer<'a> {
    p: &'a Program,
    m: &'a ProgramModule,
    /// The names of the parameters, which no other value's identifier may take.
    params: Vec<&'a str>,
    /// Per value (by index), its identifier once named.
    idents: Vec<Option<Ident>>,
    /// Per tile slot (by index), its identifier: its name when that is one, else `t{index}`.
    tiles: Vec<Ident>,
    diags: Vec<Diag>,
    /// How many instructions name each tile slot (by index), anywhere in the kernel.
    tile_uses: Vec<usize>,
    /// The [`Import`]s the code uses, one bit each.
    imports: u8,
    /// The names of `pto::isa` the code uses unqualified (`tload`, `tmov`, `LoopRange`), in
    /// order of first use: imported at the top, so each call is `tload(..)` rather than
    /// `isa::tload(..)`.
    isa_names: Vec<(&'static str, &'static str, Ident)>,
    /// Tensors stored to by the parallel loop being built: locked at each store.
    locked: Vec<ValueId>,
    /// Per tile slot, whether only parallel loops use it (each declares its own copy).
    private: Vec<bool>,
    /// Inside a parallel loop's closure: how many loops deep (0 in its body itself).
    par_depth: Option<u32>,
    /// In the span of a load read in place (`lower/load_views.rs`), on the plain path: the loaded
    /// tile and the `TileView` variable its readers read instead.
    view: Option<(TileId, Ident)>,
    /// In the code a row split runs once per row (`lower/row_split.rs`): the row variable,
    /// added to the row offset of each rank-2 transfer.
    row: Option<Ident>,
    /// In that code, the loaded tile a row-summed run keeps in a store's window
    /// ([`RowSplit::kept`](crate::isa::RowSplit)), the variable saying whether it did, and
    /// the store's tensor and offsets.
    kept: Option<(TileId, Ident, ValueId, Offsets)>,
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
        let tiles = p
            .tiles
            .iter()
            .enumerate()
            .map(|(k, s)| {
                if valid_ident(&s.name) {
                    Ident::new(&s.name, Span::call_site())
                } else {
                    format_ident!("t{}", k)
                }
            })
            .collect();
        Writer {
            p,
            m,
            params,
            idents: vec![None; m.values.len()],
            tiles,
            diags: Vec::new(),
            tile_uses,
            imports: 0,
            isa_names: Vec::new(),
            locked: Vec::new(),
            private,
            par_depth: None,
            view: None,
            row: None,
            kept: None,
        }
    }

    /// Notes that the code uses `name`.
    fn import(&mut self, name: Import) {
        self.imports |= name.bit();
    }

    /// The name of the `pto::isa` item `{name}{suffix}`: imported and unqualified, unless a
    /// parameter has that name, which the import would shadow (a `use` in the body hides a
    /// parameter of the same name in the value namespace, where functions live).
    fn isa(&mut self, name: &'static str, suffix: &'static str) -> TokenStream {
        if let Some((_, _, id)) = self
            .isa_names
            .iter()
            .find(|(n, s, _)| (*n, *s) == (name, suffix))
        {
            return quote!(#id);
        }
        let id = format_ident!("{}{}", name, suffix);
        if self.params.iter().any(|p| id == p) {
            return quote!(::pto::isa::#id);
        }
        let tokens = quote!(#id);
        self.isa_names.push((name, suffix, id));
        tokens
    }

    /// The `use` of every `pto` name the code uses (nothing when it uses none).
    fn imports_use(&self) -> TokenStream {
        let mut items = Vec::new();
        let used = |i: Import| self.imports & i.bit() != 0;
        if used(Import::BindShapes) {
            items.push(quote!(bind_shapes));
        }
        if !self.isa_names.is_empty() {
            let names = self.isa_names.iter().map(|(_, _, id)| id);
            items.push(quote!(isa::{#(#names),*}));
        }
        for i in Import::ALL.into_iter().skip(1).filter(|&i| used(i)) {
            let name = i.ident();
            items.push(quote!(#name));
        }
        if items.is_empty() {
            return TokenStream::new();
        }
        quote!(use ::pto::{#(#items),*};)
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

    /// `(a.is_empty() && b.is_empty())` for tensors `ts`.
    fn all_empty(&mut self, ts: &[ValueId]) -> TokenStream {
        let ts: Vec<Ident> = ts.iter().map(|&t| self.ident(t)).collect();
        quote!((#(#ts.is_empty())&&*))
    }

    /// For a loop that carries nothing (`plain`), the condition under which all its
    /// iterations after the first do nothing: every tensor its body touches is empty, and the
    /// tiles it uses are its own (nothing after the loop reads what it left in them); `true`
    /// when it touches no tensor at all. `None` when the loop returns or shares a tile with
    /// the code around it.
    fn empty_guard(&mut self, plain: bool, body: &[Inst]) -> Option<TokenStream> {
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
            return Some(quote!(true));
        }
        Some(self.all_empty(&touched))
    }

    /// The Rust identifier of a value.
    fn ident(&mut self, v: ValueId) -> Ident {
        if let Some(Some(id)) = self.idents.get(v.index()) {
            return id.clone();
        }
        let id = Ident::new(&self.name(v), Span::call_site());
        if let Some(slot) = self.idents.get_mut(v.index()) {
            *slot = Some(id.clone());
        }
        id
    }

    /// The identifier of `v`: a parameter's own name, else `{name}_{number}` or `v_{number}`.
    fn name(&self, v: ValueId) -> String {
        let d = &self.m.values[v];
        match (d.def, &d.name) {
            // `__` names are the host code's own (`__pto_meter`, `__step`): a parameter
            // named so is renamed, and the macro binds it (see `emit_with_params`).
            (ValueDef::Param(..), Some(n)) if valid_ident(n) && !n.starts_with("__") => {
                n.to_string()
            }
            _ => {
                let mut base = String::new();
                if let Some(n) = d.name.as_deref() {
                    crate::lower::push_sanitized(&mut base, n);
                }
                let candidate = format!("{base}_{}", d.number);
                if base.is_empty()
                    || !valid_ident(&candidate)
                    || self.params.contains(&candidate.as_str())
                {
                    format!("v_{}", d.number)
                } else {
                    candidate
                }
            }
        }
    }

    /// The identifier of tile slot `t`.
    fn tile(&self, t: TileId) -> Ident {
        match self.tiles.get(t.0 as usize) {
            Some(id) => id.clone(),
            None => format_ident!("t{}", t.0),
        }
    }

    fn dtype(&self, v: ValueId) -> DataType {
        self.m.values[v].ty.dtype().unwrap_or(DataType::Unknown)
    }

    /// The Rust element type of `d`: the primitive, or the `pto` re-export of the half types.
    fn rust_ty(&mut self, d: DataType) -> TokenStream {
        match (d, d.rust_name()) {
            (DataType::Fp16, _) => quote!(::pto::f16),
            (DataType::Bf16, _) => quote!(::pto::bf16),
            (_, Some(name)) => {
                let name = Ident::new(name, Span::call_site());
                quote!(#name)
            }
            (other, None) => {
                self.err(format!("the CPU runtime has no {other} element type"));
                quote!(f32)
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
