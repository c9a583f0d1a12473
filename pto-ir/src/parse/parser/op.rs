//! The parser's ops: one `%r = dialect.op %a, %b : (types) -> types {attrs}` and literals.

use super::*;

impl<'a> Parser<'a> {
    // ---- ops ----------------------------------------------------------------------------

    pub(super) fn push_op(
        &mut self,
        opcode: Opcode,
        operands: Vec<ValueId>,
        attrs: Attrs,
        at: usize,
    ) -> OpId {
        self.m.ops.push(Operation {
            opcode,
            operands: operands.into(),
            results: ValueList::new(),
            attrs,
            span: SpanId(at as u32),
        })
    }

    pub(super) fn define_op_results(&mut self, op: OpId, lhs: &[NameAt<'a>], tys: Vec<Type>) {
        let mut results = Vec::new();
        for (i, ((n, _), ty)) in lhs.iter().zip(tys).enumerate() {
            results.push(self.define(n, ty, ValueDef::OpResult(op, i as u32)));
        }
        if let Some(o) = self.m.ops.get_mut(op) {
            o.results = results.into();
        }
    }

    /// A literal, if the current token is one (for constants and operand type lists).
    pub(super) fn literal(&mut self) -> PResult<Option<Constant>> {
        let at = self.at();
        let c = match *self.peek() {
            Tok::Int(v) => match (i64::try_from(v), u64::try_from(v)) {
                (Ok(x), _) => Constant::Int64(x),
                (_, Ok(x)) => Constant::SizeT(x),
                _ => return Err(err(at, format!("integer literal `{v}` is out of range"))),
            },
            Tok::Float(v) => Constant::Double(v),
            Tok::Ident("true") => Constant::Bool(true),
            Tok::Ident("false") => Constant::Bool(false),
            Tok::Ident("nan") => Constant::Double(f64::NAN),
            Tok::Ident("inf") => Constant::Double(f64::INFINITY),
            _ => return Ok(None),
        };
        self.bump();
        Ok(Some(c))
    }

    pub(super) fn op(&mut self) -> PResult<OpId> {
        let at = self.at();
        let lhs = if matches!(self.peek(), Tok::Value(_)) {
            let names = self.value_names()?;
            self.expect(&Tok::Eq)?;
            names
        } else {
            Vec::new()
        };
        if let Some(c) = self.literal()? {
            if lhs.len() != 1 {
                return Err(err(at, "a constant defines exactly one value"));
            }
            self.expect(&Tok::Colon)?;
            let ty = self.ty()?;
            let mut attrs = Attrs::new();
            if *self.peek() == Tok::LBrace {
                attrs = self.attr_dict()?;
            }
            if attrs.get("value").is_none() {
                attrs.0.insert(0, ("value".into(), constant_attr(c)));
            }
            let op = self.push_op(Opcode::Const, Vec::new(), attrs, at);
            self.define_op_results(op, &lhs, vec![ty]);
            if let Some(v) = lhs.first().and_then(|(n, _)| self.names.get(*n).copied())
                && let Some(d) = self.m.values.get_mut(v)
                && d.def == ValueDef::OpResult(op, 0)
            {
                d.constant = Some(c);
            }
            return Ok(op);
        }
        let (name, name_at) = match *self.peek() {
            Tok::Ident(s) => (s, self.at()),
            _ if lhs.is_empty() => return Err(self.unexpected("an op or `}`")),
            _ => return Err(self.unexpected("an op or a constant")),
        };
        if name.starts_with("statement.") {
            return Err(err(
                name_at,
                format!("expected an op or the `}}` closing `statement.op`, found `{name}`"),
            ));
        }
        self.bump();
        let (dialect, mnemonic) = name.split_once('.').unwrap_or(("", name));
        let opcode = Opcode::lookup(dialect, mnemonic)
            .ok_or_else(|| err(name_at, format!("unknown op `{name}`")))?;
        let mut attrs = Attrs::new();
        let operands;
        let call_form = opcode == Opcode::Call && matches!(self.peek(), Tok::Symbol(_));
        if call_form {
            let (callee, _) = self.symbol("a callee `@name`")?;
            attrs.set("callee", Attr::Symbol(callee.to_string()));
            self.expect(&Tok::LParen)?;
            operands = self.uses();
            self.expect(&Tok::RParen)?;
        } else {
            operands = self.uses();
        }
        self.expect(&Tok::Colon)?;
        let types_at = self.at();
        self.expect(&Tok::LParen)?;
        let mut entries = Vec::new();
        if !self.eat(&Tok::RParen) {
            loop {
                let eat = self.at();
                entries.push((self.type_entry()?, eat));
                if self.eat(&Tok::RParen) {
                    break;
                }
                if !self.eat(&Tok::Comma) {
                    return Err(self.unexpected("`,` or `)`"));
                }
            }
        }
        if entries.len() != operands.len() {
            return Err(err(
                types_at,
                format!(
                    "`{name}` has {} operand{} but {} operand type{}",
                    operands.len(),
                    if operands.len() == 1 { "" } else { "s" },
                    entries.len(),
                    if entries.len() == 1 { "" } else { "s" }
                ),
            ));
        }
        for (i, ((entry, eat), &v)) in entries.into_iter().zip(&operands).enumerate() {
            let listed = match entry {
                TypeEntry::Type(t) => t,
                TypeEntry::Value(w) => self.ty_of(w),
            };
            let undefined = !self.defined.contains(&v);
            let actual = self.ty_of(v);
            if undefined && actual == Type::Unknown {
                if let Some(d) = self.m.values.get_mut(v) {
                    d.ty = listed;
                }
            } else if listed != actual && listed != Type::Unknown {
                return Err(err(
                    eat,
                    format!(
                        "operand {} of `{name}` (`{}`) has type {}, but the type list says {}",
                        i + 1,
                        self.m.ssa_name(v),
                        type_str(&self.m, &actual),
                        type_str(&self.m, &listed)
                    ),
                ));
            }
        }
        let arrow_at = self.expect(&Tok::Arrow)?;
        let tys = self.type_list_or_one()?;
        if tys.len() != lhs.len() {
            return Err(err(
                arrow_at,
                format!(
                    "`{name}` defines {} value{} but lists {} result type{}",
                    lhs.len(),
                    if lhs.len() == 1 { "" } else { "s" },
                    tys.len(),
                    if tys.len() == 1 { "" } else { "s" }
                ),
            ));
        }
        if *self.peek() == Tok::LBrace {
            for (k, v) in self.attr_dict()?.0 {
                attrs.set(k, v);
            }
        }
        let op = self.push_op(opcode, operands, attrs, at);
        self.define_op_results(op, &lhs, tys);
        Ok(op)
    }

    /// One entry of an operand type list: a type, a value (its type) or a literal (its
    /// inferred type).
    pub(super) fn type_entry(&mut self) -> PResult<TypeEntry> {
        if let Tok::Value(n) = *self.peek() {
            self.bump();
            return Ok(TypeEntry::Value(self.use_value(n)));
        }
        if let Some(c) = self.literal()? {
            return Ok(TypeEntry::Type(Type::Scalar(c.inferred_dtype())));
        }
        Ok(TypeEntry::Type(self.ty()?))
    }
}
