//! Checklist item 3: single definitions and structured visibility of every use.
//!
//! The id walk visits every use and definition in text order, so it also tracks visibility
//! ([`Visibility`]) with a stack of scopes (one per block): entering a block opens a scope
//! (holding a loop's iv and iter args), leaving it hides everything defined there,
//! remembering which statement's body hid it. A use that sees no definition is recorded
//! as a [`Miss`]; it is worded here, after the walk, once every definition is known, so a
//! bad use can say whether the value is hidden, defined later, in another function, or
//! nowhere. Second definitions (also found by the id walk) are reported first.
//!
//! During the walk ids are not proven in range yet: visibility only reads and writes
//! in-range values, and its misses are thrown away when the id check fails.

use crate::diag::Diag;
use crate::entity::{EntityId, FuncId, SecondaryMap, SpanId, StmtId, ValueId};
use crate::inline::InlineVec;
use crate::module::ProgramModule;
use crate::types::Type;

use super::{DefBy, DefSite, Defs, Verifier, describe_stmt};

/// Reports second definitions, then the uses that saw no definition, in text order.
pub(super) fn check(
    v: &mut Verifier<'_>,
    defs: &Defs,
    redefined: &[(ValueId, DefSite)],
    misses: &[Miss],
) {
    for (val, site) in redefined {
        if let Some(first) = &defs[*val] {
            let first = describe_def(v, first);
            v.push(
                Diag::new(
                    site.span(v.m),
                    format!("`{}` is defined twice", v.name(*val)),
                )
                .note(format!("first defined by {first}")),
            );
        }
    }
    for miss in misses {
        report_use(v, defs, miss);
    }
}

/// What the walk knows about a value at the current point.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// Not defined yet on this path (or in another function).
    Not,
    /// Defined and visible.
    Live,
    /// Defined in a scope that has closed: the statement whose body held it.
    Hidden(StmtId),
}

/// A use of a value where it is not visible.
pub(super) struct Miss {
    val: ValueId,
    at: SpanId,
    /// The function using it.
    func: FuncId,
    /// The value whose type names it, for a use in a type.
    in_type_of: Option<ValueId>,
    /// The statement whose body held it, when it is hidden.
    hidden: Option<StmtId>,
}

fn describe_def(v: &Verifier<'_>, site: &DefSite) -> String {
    let m = v.m;
    let fname = m.funcs.get(site.func).map_or("?", |f| f.name.as_str());
    match site.by {
        DefBy::Param => format!("a parameter of `@{fname}`"),
        DefBy::Dim => format!("a symbolic dimension of `@{fname}`"),
        DefBy::Op(o) => m.ops.get(o).map_or_else(
            || "an op".to_string(),
            |op| format!("`{}`", op.opcode.full_name()),
        ),
        DefBy::Stmt(s) => describe_stmt(m, s),
    }
}

/// Visibility of values along the id walk (see the module docs).
pub(super) struct Visibility {
    /// The function being walked.
    func: FuncId,
    /// The number of values in the module.
    values: usize,
    /// Visibility of each value in this function.
    seen: SecondaryMap<ValueId, Seen>,
    /// The values defined in the open block scopes, outermost scope first (the function's
    /// own scope, which never closes, is not recorded).
    in_scope: Vec<ValueId>,
    /// Where each open block scope starts in `in_scope`, innermost last (kept inline:
    /// blocks rarely nest eight deep).
    scope_starts: InlineVec<usize, 8>,
    /// Uses that saw no definition, in text order.
    pub misses: Vec<Miss>,
}

impl Visibility {
    /// Visibility for a module with `values` values.
    pub fn new(values: usize) -> Self {
        Visibility {
            func: FuncId::new(0),
            values,
            seen: SecondaryMap::with_len(values, Seen::Not),
            // No value is in more than one open scope.
            in_scope: Vec::new(),
            scope_starts: InlineVec::new(),
            misses: Vec::new(),
        }
    }

    /// Starts function `f`: nothing is visible yet. `first`: no function was walked before.
    pub fn enter(&mut self, f: FuncId, first: bool) {
        self.func = f;
        if !first {
            self.seen = SecondaryMap::with_len(self.values, Seen::Not);
        }
        self.in_scope.clear();
        self.scope_starts.clear();
    }

    /// Makes `val` visible (values out of range are left to the id check).
    pub fn introduce(&mut self, m: &ProgramModule, val: ValueId) {
        if !m.values.contains(val) {
            return;
        }
        self.seen[val] = Seen::Live;
        if !self.scope_starts.is_empty() {
            self.in_scope.push(val);
        }
    }

    /// Defines `val` at `at`: the extents its type names must be visible first.
    pub fn define(&mut self, m: &ProgramModule, val: ValueId, at: SpanId) {
        self.check_type(m, val, at);
        self.introduce(m, val);
    }

    /// Uses the extents `val`'s type names, at `at`.
    pub fn check_type(&mut self, m: &ProgramModule, val: ValueId, at: SpanId) {
        let Some(data) = m.values.get(val) else {
            return;
        };
        // Most values are scalars, whose types name no value.
        if matches!(data.ty, Type::Scalar(_)) {
            return;
        }
        crate::module::for_each_dim(&data.ty, &mut |d| self.use_value(d, at, Some(val)));
    }

    /// Uses `val` at `at` (out of range, it reads as not defined: the id check fails).
    pub fn use_value(&mut self, val: ValueId, at: SpanId, in_type_of: Option<ValueId>) {
        let hidden = match self.seen[val] {
            Seen::Live => return,
            Seen::Hidden(s) => Some(s),
            Seen::Not => None,
        };
        self.misses.push(Miss {
            val,
            at,
            func: self.func,
            in_type_of,
            hidden,
        });
    }

    /// Opens a block scope.
    pub fn open(&mut self) {
        self.scope_starts.push(self.in_scope.len());
    }

    /// Closes the innermost block scope: what it defined is hidden behind `owner`.
    pub fn close(&mut self, owner: StmtId) {
        if let Some(start) = self.scope_starts.pop() {
            for &val in &self.in_scope[start..] {
                self.seen[val] = Seen::Hidden(owner);
            }
            self.in_scope.truncate(start);
        }
    }
}

/// Reports a use of a value where it is not visible.
fn report_use(v: &mut Verifier<'_>, defs: &Defs, miss: &Miss) {
    let &Miss {
        val,
        at,
        func,
        in_type_of,
        hidden,
    } = miss;
    let name = v.name(val);
    let mut msg = if let Some(s) = hidden {
        format!(
            "`{name}` is defined inside {} and is not visible here",
            describe_stmt(v.m, s)
        )
    } else {
        match defs[val] {
            Some(site) if site.func != func => {
                let fname = v.m.funcs.get(site.func).map_or("?", |f| f.name.as_str());
                format!("use of `{name}`, which is defined in another function (`@{fname}`)")
            }
            Some(_) => format!("use of `{name}` before its definition"),
            None => format!("use of `{name}`, which is never defined"),
        }
    };
    if let Some(owner) = in_type_of {
        msg.push_str(&format!(" (in the type of `{}`)", v.name(owner)));
    }
    let mut d = Diag::new(at, msg);
    if hidden.is_some() {
        d = d.note("values defined in a body are visible only inside it; pass the value out with `statement.yield` and use the statement's result");
    }
    v.push(d);
}
