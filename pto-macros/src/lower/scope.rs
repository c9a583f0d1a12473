//! `Lower`'s scopes and variables: Rust names to builder variables.

use pto_ir::{BlockRole, Name, ValueId};
use syn::Ident;

use super::ops::spell;
use super::{Lower, Poison, R, Val};

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

    /// Runs `f` with `ident` spelled in a reused buffer: variable reads and method calls
    /// are resolved by name all the time, and `to_string` would allocate each spelling.
    /// Calls may nest (each level takes its own buffer).
    pub(super) fn with_name<T>(
        &mut self,
        ident: &Ident,
        f: impl FnOnce(&mut Self, &str) -> T,
    ) -> T {
        let buf = self.spelled(ident);
        let r = f(self, &buf);
        self.names.push(buf);
        r
    }

    /// A reused buffer holding `ident`'s spelling, for [`Lower::with_name`].
    pub(super) fn spelled(&mut self, ident: &Ident) -> String {
        let mut buf = self.names.pop().unwrap_or_default();
        spell(&mut buf, ident);
        buf
    }

    /// The spelling of `ident` as a shared name (one allocation, shared by the value, the
    /// scope and the bookkeeping that name it).
    pub(super) fn ident_name(&mut self, ident: &Ident) -> Name {
        self.with_name(ident, |_, name| Name::from(name))
    }

    pub(super) fn var(&mut self, ident: &'k Ident) -> R<Val> {
        self.with_name(ident, |this, name| {
            if this.poisoned.contains(name) {
                return Err(Poison);
            }
            let Some(v) = this.b.read_var(&mut this.ctx, name) else {
                this.unknown_var(ident);
                return Err(Poison);
            };
            // Later ops of the expression take the variable's span, as they always have.
            this.at(ident);
            Ok(Val::V(v))
        })
    }
}
