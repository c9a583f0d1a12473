//! The parser's types (tensor, tile with its memref, scalar; extents) and attributes.

use super::*;

impl<'a> Parser<'a> {
    // ---- types --------------------------------------------------------------------------

    /// `(T, ..)` or a single type.
    pub(super) fn type_list_or_one(&mut self) -> PResult<Vec<Type>> {
        if !self.eat(&Tok::LParen) {
            return Ok(vec![self.ty()?]);
        }
        let mut out = Vec::new();
        if self.eat(&Tok::RParen) {
            return Ok(out);
        }
        loop {
            out.push(self.ty()?);
            if self.eat(&Tok::RParen) {
                return Ok(out);
            }
            if !self.eat(&Tok::Comma) {
                return Err(self.unexpected("`,` or `)`"));
            }
        }
    }

    pub(crate) fn ty(&mut self) -> PResult<Type> {
        self.nested(Self::ty_inner)
    }

    /// The optional placement of a tile type: `, mem=Vec` and then `, addr=512`.
    pub(super) fn tile_memref(
        &mut self,
        dtype: DataType,
        shape: &[u64],
    ) -> PResult<Option<MemRef>> {
        if !self.eat(&Tok::Comma) {
            return Ok(None);
        }
        let (key, at) = self.ident("`mem=`")?;
        if key != "mem" {
            return Err(err(
                at,
                format!("expected `mem=` or `>` in a tile type, found `{key}`"),
            ));
        }
        self.expect(&Tok::Eq)?;
        let (space_name, space_at) = self.ident("a memory space")?;
        let space = MemorySpace::from_name(space_name).ok_or_else(|| {
            let known: Vec<&str> = MemorySpace::ALL.iter().map(|s| s.name()).collect();
            err(
                space_at,
                format!(
                    "unknown memory space `{space_name}` (expected one of {})",
                    known.join(", ")
                ),
            )
        })?;
        let mut addr = None;
        if self.eat(&Tok::Comma) {
            let (key, at) = self.ident("`addr=`")?;
            if key != "addr" {
                return Err(err(
                    at,
                    format!("expected `addr=` or `>` in a tile type, found `{key}`"),
                ));
            }
            self.expect(&Tok::Eq)?;
            let at = self.at();
            addr =
                match *self.peek() {
                    Tok::Int(v) => {
                        self.bump();
                        Some(u64::try_from(v).map_err(|_| {
                            err(at, "a tile address must be a non-negative integer")
                        })?)
                    }
                    _ => return Err(self.unexpected("a byte offset")),
                };
        }
        let size = TileType::new(dtype, shape).buffer_bytes();
        Ok(Some(MemRef { space, addr, size }))
    }

    pub(super) fn ty_inner(&mut self) -> PResult<Type> {
        let at = self.at();
        let word = match *self.peek() {
            Tok::Ident(s) => s,
            _ => return Err(self.unexpected("a type")),
        };
        self.bump();
        match word {
            "tile" => {
                self.expect(&Tok::Lt)?;
                let first_at = self.at();
                let first = self.dims()?;
                self.expect(&Tok::Comma)?;
                let (valid, shape_at, shape) = if *self.peek() == Tok::LBracket {
                    let shape_at = self.at();
                    let shape = self.dims()?;
                    self.expect(&Tok::Comma)?;
                    (first, shape_at, shape)
                } else {
                    (first.clone(), first_at, first)
                };
                let shape: Shape = shape
                    .iter()
                    .map(|d| d.as_const())
                    .collect::<Option<_>>()
                    .ok_or_else(|| err(shape_at, "a tile's shape must be static integers"))?;
                if valid.len() != shape.len() {
                    return Err(err(
                        first_at,
                        format!(
                            "a tile's valid region has {} extents but its shape has {}",
                            valid.len(),
                            shape.len()
                        ),
                    ));
                }
                let dtype = self.dtype()?;
                let memref = self.tile_memref(dtype, &shape)?;
                self.expect(&Tok::Gt)?;
                Ok(Type::Tile(TileType {
                    dtype,
                    shape,
                    valid,
                    memref,
                }))
            }
            "tensor" => {
                self.expect(&Tok::Lt)?;
                let shape = self.dims()?;
                self.expect(&Tok::Comma)?;
                let dtype = self.dtype()?;
                let mut format = TensorFormat::Nd;
                if self.eat(&Tok::Comma) {
                    let (f, fat) = self.ident("a tensor format (`ND` or `NZ`)")?;
                    format = match f {
                        "ND" => TensorFormat::Nd,
                        "NZ" => TensorFormat::Nz,
                        _ => {
                            return Err(err(
                                fat,
                                format!("unknown tensor format `{f}` (expected `ND` or `NZ`)"),
                            ));
                        }
                    };
                }
                self.expect(&Tok::Gt)?;
                Ok(Type::Tensor(TensorType {
                    dtype,
                    shape,
                    format,
                }))
            }
            "tuple" => {
                self.expect(&Tok::Lt)?;
                let mut parts = Vec::new();
                if !self.eat(&Tok::Gt) {
                    loop {
                        parts.push(self.ty()?);
                        if self.eat(&Tok::Gt) {
                            break;
                        }
                        if !self.eat(&Tok::Comma) {
                            return Err(self.unexpected("`,` or `>`"));
                        }
                    }
                }
                Ok(Type::Tuple(parts))
            }
            "pipe" => {
                self.expect(&Tok::Lt)?;
                let (p, pat) = self.ident("a pipe kind")?;
                let kind = PipeKind::from_name(p)
                    .ok_or_else(|| err(pat, format!("unknown pipe kind `{p}`")))?;
                self.expect(&Tok::Gt)?;
                Ok(Type::Pipe(kind))
            }
            _ if word.eq_ignore_ascii_case("unknown") => Ok(Type::Unknown),
            _ => DataType::from_name(word)
                .map(Type::Scalar)
                .ok_or_else(|| err(at, format!("unknown type `{word}`"))),
        }
    }

    pub(super) fn dtype(&mut self) -> PResult<DataType> {
        let (word, at) = self.ident("an element type")?;
        DataType::from_name(word).ok_or_else(|| err(at, format!("unknown element type `{word}`")))
    }

    /// `[e, ..]` where each extent is an integer, `%value` or `?`.
    pub(super) fn dims(&mut self) -> PResult<Extents> {
        self.expect(&Tok::LBracket)?;
        let mut out = Extents::new();
        if self.eat(&Tok::RBracket) {
            return Ok(out);
        }
        loop {
            let at = self.at();
            let d = match *self.peek() {
                Tok::Int(v) => Dim::Const(u64::try_from(v).map_err(|_| {
                    err(at, format!("extent `{v}` must be a non-negative integer"))
                })?),
                Tok::Value(n) => Dim::Value(self.value_for(n, Type::Scalar(DataType::Int64))),
                Tok::Question => Dim::Dynamic,
                _ => return Err(self.unexpected("an extent (an integer, `%value` or `?`)")),
            };
            self.bump();
            out.push(d);
            if self.eat(&Tok::RBracket) {
                return Ok(out);
            }
            if !self.eat(&Tok::Comma) {
                return Err(self.unexpected("`,` or `]`"));
            }
        }
    }

    // ---- attributes ---------------------------------------------------------------------

    /// `{k=v, ..}` (also `{}`).
    pub(super) fn attr_dict(&mut self) -> PResult<Attrs> {
        Ok(Attrs(self.attr_map()?))
    }

    pub(super) fn attr_map(&mut self) -> PResult<Vec<AttrEntry>> {
        self.expect(&Tok::LBrace)?;
        let mut out: Vec<AttrEntry> = Vec::new();
        if self.eat(&Tok::RBrace) {
            return Ok(out);
        }
        loop {
            let (key, _) = self.ident("an attribute name")?;
            self.expect(&Tok::Eq)?;
            let v = self.attr_value()?;
            match out.iter_mut().find(|(k, _)| k == key) {
                Some(slot) => slot.1 = v,
                None => out.push((key.to_string().into(), v)),
            }
            if self.eat(&Tok::RBrace) {
                return Ok(out);
            }
            if !self.eat(&Tok::Comma) {
                return Err(self.unexpected("`,` or `}`"));
            }
        }
    }

    pub(super) fn attr_value(&mut self) -> PResult<Attr> {
        self.nested(Self::attr_value_inner)
    }

    pub(super) fn attr_value_inner(&mut self) -> PResult<Attr> {
        let at = self.at();
        let a = match self.peek().clone() {
            Tok::Int(v) => Attr::Int(
                i64::try_from(v).map_err(|_| err(at, format!("integer `{v}` is out of range")))?,
            ),
            Tok::Float(v) => Attr::Float(v),
            Tok::Str(s) => Attr::Str(s),
            Tok::Value(n) => Attr::Value(self.use_value(n)),
            Tok::Symbol(s) => Attr::Symbol(s.to_string()),
            Tok::Ident("true") => Attr::Bool(true),
            Tok::Ident("false") => Attr::Bool(false),
            Tok::Ident("nan") => Attr::Float(f64::NAN),
            Tok::Ident("inf") => Attr::Float(f64::INFINITY),
            Tok::Ident(s) => Attr::Ident(s.to_string()),
            Tok::LBracket => {
                self.bump();
                let mut items = Vec::new();
                if !self.eat(&Tok::RBracket) {
                    loop {
                        items.push(self.attr_value()?);
                        if self.eat(&Tok::RBracket) {
                            break;
                        }
                        if !self.eat(&Tok::Comma) {
                            return Err(self.unexpected("`,` or `]`"));
                        }
                    }
                }
                return Ok(Attr::List(items));
            }
            Tok::LBrace => return Ok(Attr::Map(self.attr_map()?)),
            _ => return Err(self.unexpected("an attribute value")),
        };
        self.bump();
        Ok(a)
    }
}
