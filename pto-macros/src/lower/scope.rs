//! `Lower`'s scopes and variables: Rust names to builder variables.

use pto_ir::{BlockRole, Name, ValueId};
use syn::Ident;

use super::{Lower, Poison, R, Val};
use crate::model::spelling;

impl<'k> Lower<'k, '_> {
    pub(super) fn declare(&mut self, name: &Name, v: ValueId, mutable: bool) {
        let r = self
            .b
            .declare_var_named(&self.ctx, Name::clone(name), v, mutable);
        // (Nearly always empty: removing would hash the name for nothing.)
        if self.check(r).is_ok() && !self.poisoned.is_empty() {
            self.poisoned.remove(name);
        }
    }

    /// Pops the builder scope of a body and records that the body ended.
    pub(super) fn pop_scope(&mut self, construct: &'static str) {
        if let Some(b) = self.ctx.compound {
            self.ended.push((b, construct));
        }
        if let Err(d) = self.ctx.pop_scope() {
            self.report(d);
        }
    }

    /// The construct whose body declared `name`, when that body has ended: the last ended
    /// body that declared it. (A name declared again in a body still open is visible, and
    /// is not looked up; one declared again in a body that ended since is found there.)
    fn gone(&self, name: &str) -> Option<&'static str> {
        let m = self.b.module();
        self.ended
            .iter()
            .rev()
            .find(|(b, _)| {
                m.blocks
                    .get(*b)
                    .is_some_and(|b| b.env.local(name).is_some())
            })
            .map(|&(_, construct)| construct)
    }

    /// The binding of `name` as seen from the current scope: the variable's shared name,
    /// its value, whether it is mutable and whether it is a parameter.
    pub(super) fn binding(&self, name: &str) -> Option<(Name, ValueId, bool, bool)> {
        let m = self.b.module();
        let mut cur = self.ctx.compound;
        while let Some(b) = cur {
            let block = m.blocks.get(b)?;
            if let Some((n, bind)) = block.env.get_named(name) {
                return Some(match bind.kind {
                    pto_ir::env::BindingKind::Local => (
                        Name::clone(n),
                        bind.value,
                        bind.mutable,
                        block.role == BlockRole::FuncInputs,
                    ),
                    pto_ir::env::BindingKind::Update => (Name::clone(n), bind.value, true, false),
                });
            }
            cur = block.parent;
        }
        None
    }

    pub(super) fn unknown_var(&mut self, ident: &'k Ident) {
        let name = ident.to_string();
        if let Some(construct) = self.gone(&name) {
            let msg = format!(
                "`{name}` is defined inside the {construct} and is not visible after it\n  = help: declare it before the {construct} with `let mut {name} = ..;` and assign it inside"
            );
            self.errs.push_spanned(ident, msg);
            return;
        }
        let mut names = self.b.visible_names(&self.ctx);
        names.sort();
        let list = if names.is_empty() {
            "none".to_string()
        } else {
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        self.errs.push_spanned(
            ident,
            format!(
                "cannot find value `{name}` in this scope\n  = note: variables in scope: {list}"
            ),
        );
    }

    /// The spelling of `ident` as a shared name (shared by the value, the scope and the
    /// bookkeeping that name it).
    pub(super) fn ident_name(&mut self, ident: &Ident) -> Name {
        Name::from(spelling(ident))
    }

    pub(super) fn var(&mut self, ident: &'k Ident) -> R<Val> {
        let name = spelling(ident);
        if self.poisoned.contains(name.as_str()) {
            return Err(Poison);
        }
        let Some(v) = self.b.read_var(&mut self.ctx, &name) else {
            self.unknown_var(ident);
            return Err(Poison);
        };
        // Later ops of the expression take the variable's span, as they always have.
        self.at(ident);
        Ok(Val::V(v))
    }
}
