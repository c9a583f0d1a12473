//! The parser's statements: blocks, `statement.op` / `for` / `if` / `while` / `scope`,
//! terminators and iter args.

use super::*;

impl<'a> Parser<'a> {
    // ---- statements ---------------------------------------------------------------------

    /// Statements up to and including the block's `}`; returns the brace's offset.
    pub(super) fn block_body(&mut self, b: BlockId) -> PResult<usize> {
        if self.blocks >= MAX_NESTING {
            return Err(err(
                self.at(),
                format!("blocks nested deeper than {MAX_NESTING}"),
            ));
        }
        self.blocks += 1;
        let r = loop {
            if *self.peek() == Tok::RBrace {
                break self.expect(&Tok::RBrace);
            }
            if let Err(e) = self.statement(b) {
                break Err(e);
            }
        };
        self.blocks -= 1;
        r
    }

    pub(super) fn new_stmt(&mut self, b: BlockId, at: usize) -> StmtId {
        self.m.push_stmt(
            b,
            Statement {
                kind: StmtKind::Yield(ValueList::new()),
                span: SpanId(at as u32),
            },
        )
    }

    pub(super) fn set_kind(&mut self, s: StmtId, kind: StmtKind) {
        if let Some(st) = self.m.stmts.get_mut(s) {
            st.kind = kind;
        }
    }

    pub(super) fn uses(&mut self) -> Vec<ValueId> {
        let mut out = Vec::new();
        if matches!(self.peek(), Tok::Value(_)) {
            while let Tok::Value(n) = *self.peek() {
                self.bump();
                out.push(self.use_value(n));
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        out
    }

    pub(super) fn statement(&mut self, b: BlockId) -> PResult<()> {
        let at = self.at();
        let lhs = if matches!(self.peek(), Tok::Value(_)) {
            let names = self.value_names()?;
            self.expect(&Tok::Eq)?;
            names
        } else {
            Vec::new()
        };
        let (kw, kw_at) = match *self.peek() {
            Tok::Ident(s) => (s, self.at()),
            _ => return Err(self.unexpected("a statement")),
        };
        let defines = matches!(kw, "statement.for" | "statement.if" | "statement.while");
        if !lhs.is_empty() && !defines {
            if !kw.starts_with("statement.") {
                return Err(err(
                    kw_at,
                    format!(
                        "expected a statement, found `{kw}` (ops go inside `statement.op {{ .. }}`)"
                    ),
                ));
            }
            if matches!(
                kw,
                "statement.op"
                    | "statement.yield"
                    | "statement.return"
                    | "statement.break"
                    | "statement.continue"
                    | "statement.condition"
                    | "statement.scope"
            ) {
                return Err(err(kw_at, format!("`{kw}` defines no values")));
            }
        }
        match kw {
            "statement.op" => {
                self.bump();
                self.expect(&Tok::LBrace)?;
                let s = self.new_stmt(b, at);
                let mut ops = Vec::new();
                while *self.peek() != Tok::RBrace {
                    ops.push(self.op()?);
                }
                self.bump();
                self.set_kind(s, StmtKind::Op(ops.into()));
            }
            "statement.for" => {
                self.bump();
                self.for_stmt(b, at, lhs)?;
            }
            "statement.if" => {
                self.bump();
                self.if_stmt(b, at, lhs)?;
            }
            "statement.while" => {
                self.bump();
                self.while_stmt(b, at, lhs)?;
            }
            "statement.yield" | "statement.return" | "statement.break" | "statement.continue" => {
                self.bump();
                let vs = self.uses();
                let kind = match kw {
                    "statement.yield" => StmtKind::Yield(vs.into()),
                    "statement.return" => StmtKind::Return(vs.into()),
                    "statement.break" => StmtKind::Break(vs.into()),
                    _ => StmtKind::Continue(vs.into()),
                };
                let s = self.new_stmt(b, at);
                self.set_kind(s, kind);
            }
            "statement.condition" => {
                self.bump();
                let (n, _) = self.value_name("a condition `%value`")?;
                let c = self.use_value(n);
                let s = self.new_stmt(b, at);
                self.set_kind(s, StmtKind::Condition(c));
            }
            "statement.scope" => {
                self.bump();
                let (word, wat) = self.ident("a scope kind (`incore`)")?;
                let kind = match word {
                    "incore" => ScopeKind::InCore,
                    _ => {
                        return Err(err(
                            wat,
                            format!("unknown scope kind `{word}` (expected `incore`)"),
                        ));
                    }
                };
                self.expect(&Tok::LBrace)?;
                let s = self.new_stmt(b, at);
                let body = self.m.new_block(Some(b), Some(s), BlockRole::Scope);
                self.set_kind(s, StmtKind::Scope(kind, body));
                self.block_body(body)?;
            }
            _ if kw.starts_with("statement.") => {
                return Err(err(kw_at, format!("unknown statement `{kw}`")));
            }
            _ => {
                return Err(err(
                    kw_at,
                    format!(
                        "expected a statement, found `{kw}` (ops go inside `statement.op {{ .. }}`)"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `iter_args(%a = %init : T, ..)`, if present: the names, inits and types.
    pub(super) fn iter_args_clause(&mut self) -> PResult<Vec<IterArgText<'a>>> {
        let mut out = Vec::new();
        if !self.is_ident("iter_args") {
            return Ok(out);
        }
        self.bump();
        self.expect(&Tok::LParen)?;
        if self.eat(&Tok::RParen) {
            return Ok(out);
        }
        loop {
            let (name, _) = self.value_name("an iteration argument `%name`")?;
            self.expect(&Tok::Eq)?;
            let (init, _) = self.value_name("an initial value `%value`")?;
            let init = self.use_value(init);
            self.expect(&Tok::Colon)?;
            let ty = self.ty()?;
            out.push((name, init, ty));
            if self.eat(&Tok::RParen) {
                return Ok(out);
            }
            if !self.eat(&Tok::Comma) {
                return Err(self.unexpected("`,` or `)`"));
            }
        }
    }

    /// An optional `-> (T, ..)` result annotation.
    pub(super) fn result_annotation(&mut self, n: usize) -> PResult<Option<Vec<Type>>> {
        let at = self.at();
        if !self.eat(&Tok::Arrow) {
            return Ok(None);
        }
        let tys = self.type_list_or_one()?;
        if tys.len() != n {
            return Err(err(
                at,
                format!("{} result types for {n} results", tys.len()),
            ));
        }
        Ok(Some(tys))
    }

    pub(super) fn define_results(
        &mut self,
        s: StmtId,
        lhs: &[NameAt<'a>],
        tys: &[Type],
    ) -> Vec<ValueId> {
        lhs.iter()
            .enumerate()
            .map(|(i, (n, _))| {
                let ty = tys.get(i).cloned().unwrap_or(Type::Unknown);
                self.define(n, ty, ValueDef::StmtResult(s, i as u32))
            })
            .collect()
    }

    pub(super) fn for_stmt(&mut self, b: BlockId, at: usize, lhs: Vec<NameAt<'a>>) -> PResult<()> {
        let (iv_name, _) = self.value_name("an induction variable `%name`")?;
        let iv_ty = if self.eat(&Tok::Colon) {
            Some(self.ty()?)
        } else {
            None
        };
        self.expect(&Tok::Eq)?;
        let (lb, _) = self.value_name("a lower bound `%value`")?;
        let lb = self.use_value(lb);
        self.expect_ident("to")?;
        let (ub, _) = self.value_name("an upper bound `%value`")?;
        let ub = self.use_value(ub);
        self.expect_ident("step")?;
        let (step, _) = self.value_name("a step `%value`")?;
        let step = self.use_value(step);
        let iter = self.iter_args_clause()?;
        let mut kind = ForKind::Sequential;
        let mut attrs = Attrs::new();
        let is_dict = *self.peek() == Tok::LBrace
            && matches!(self.peek_n(1), Tok::Ident(k) if !k.starts_with("statement."))
            && matches!(self.peek_n(2), Tok::Eq | Tok::Comma | Tok::RBrace);
        if is_dict {
            self.bump();
            loop {
                let (key, _) = self.ident("an attribute name")?;
                if key == "parallel" && *self.peek() != Tok::Eq {
                    kind = ForKind::Parallel;
                } else {
                    self.expect(&Tok::Eq)?;
                    let v = self.attr_value()?;
                    attrs.set(key.to_string(), v);
                }
                if self.eat(&Tok::RBrace) {
                    break;
                }
                if !self.eat(&Tok::Comma) {
                    return Err(self.unexpected("`,` or `}`"));
                }
            }
        }
        let annotated = self.result_annotation(lhs.len())?;
        self.expect(&Tok::LBrace)?;
        let s = self.new_stmt(b, at);
        let iv_ty = iv_ty.unwrap_or_else(|| derived_iv_type(&self.m, lb));
        let iv = self.define(iv_name, iv_ty, ValueDef::Iv(s));
        let mut iter_args = Vec::new();
        for (i, (name, init, ty)) in iter.into_iter().enumerate() {
            let arg = self.define(name, ty, ValueDef::IterArg(s, i as u32));
            iter_args.push(IterArg { arg, init });
        }
        let tys =
            annotated.unwrap_or_else(|| iter_args.iter().map(|a| self.ty_of(a.arg)).collect());
        let results = self.define_results(s, &lhs, &tys);
        let body = self.m.new_block(Some(b), Some(s), BlockRole::ForBody);
        self.set_kind(
            s,
            StmtKind::For(ForStmt {
                iv,
                lb,
                ub,
                step,
                iter_args: iter_args.into(),
                body,
                results: results.into(),
                kind,
                attrs,
            }),
        );
        self.block_body(body)?;
        Ok(())
    }

    pub(super) fn if_stmt(&mut self, b: BlockId, at: usize, lhs: Vec<NameAt<'a>>) -> PResult<()> {
        let (c, _) = self.value_name("a condition `%value`")?;
        let cond = self.use_value(c);
        let annotated = self.result_annotation(lhs.len())?;
        self.expect(&Tok::LBrace)?;
        let s = self.new_stmt(b, at);
        let then_block = self.m.new_block(Some(b), Some(s), BlockRole::Then);
        let else_block = self.m.new_block(Some(b), Some(s), BlockRole::Else);
        self.block_body(then_block)?;
        self.expect_ident("else")?;
        self.expect(&Tok::LBrace)?;
        self.block_body(else_block)?;
        // Results are defined after the branches (they are not visible inside them).
        let placeholder = vec![ValueId::new(0); lhs.len()];
        let mut kind = StmtKind::If(IfStmt {
            cond,
            then_block,
            else_block,
            results: placeholder.into(),
        });
        let tys = annotated
            .or_else(|| derived_result_types(&self.m, &kind))
            .unwrap_or_default();
        let results = self.define_results(s, &lhs, &tys);
        if let StmtKind::If(i) = &mut kind {
            i.results = results.into();
        }
        self.set_kind(s, kind);
        Ok(())
    }

    pub(super) fn while_stmt(
        &mut self,
        b: BlockId,
        at: usize,
        lhs: Vec<NameAt<'a>>,
    ) -> PResult<()> {
        let iter = self.iter_args_clause()?;
        let annotated = self.result_annotation(lhs.len())?;
        self.expect_ident("cond")?;
        self.expect(&Tok::LBrace)?;
        let s = self.new_stmt(b, at);
        let mut iter_args = Vec::new();
        for (i, (name, init, ty)) in iter.into_iter().enumerate() {
            let arg = self.define(name, ty, ValueDef::IterArg(s, i as u32));
            iter_args.push(IterArg { arg, init });
        }
        let tys =
            annotated.unwrap_or_else(|| iter_args.iter().map(|a| self.ty_of(a.arg)).collect());
        let results = self.define_results(s, &lhs, &tys);
        let cond_block = self.m.new_block(Some(b), Some(s), BlockRole::WhileCond);
        let body = self.m.new_block(Some(b), Some(s), BlockRole::WhileBody);
        self.set_kind(
            s,
            StmtKind::While(WhileStmt {
                iter_args: iter_args.into(),
                cond_block,
                body,
                results: results.into(),
            }),
        );
        self.block_body(cond_block)?;
        self.expect_ident("do")?;
        self.expect(&Tok::LBrace)?;
        self.block_body(body)?;
        Ok(())
    }
}
