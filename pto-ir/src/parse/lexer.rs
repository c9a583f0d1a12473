//! The lexer of the statement text format (cranelift-reader style).
//!
//! It turns the whole text into a token vector up front, each token carrying the byte offset
//! of its first character. Whitespace and `//` comments are dropped, except that a comment of
//! the form `// func.kind = NAME` is recorded separately (the parser attaches it to the
//! function whose closing brace it follows). The lexer never fails: a character it does not
//! know becomes a [`Tok::Error`] token that the parser reports when it reaches it.

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok<'a> {
    /// A word: letters, digits, `_`, `.`, `$`, starting with a letter or `_`
    /// (`statement.for`, `tile.OP_MUL`, `fp32`, `true`, `inf`).
    Ident(&'a str),
    /// `%name`: the text after `%`.
    Value(&'a str),
    /// `@name`: the text after `@`.
    Symbol(&'a str),
    /// `#word`: the text after `#`.
    Hash(&'a str),
    /// An integer literal, with its sign.
    Int(i128),
    /// A float literal (has a `.` or an exponent, or is `-inf`).
    Float(f64),
    /// A string literal, unescaped.
    Str(String),
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `=`
    Eq,
    /// `->`
    Arrow,
    /// `?`
    Question,
    /// Something the lexer could not read, with the message to report.
    Error(String),
    /// End of input.
    Eof,
}

impl Tok<'_> {
    /// How the token is described in messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Value(s) => format!("`%{s}`"),
            Tok::Symbol(s) => format!("`@{s}`"),
            Tok::Hash(s) => format!("`#{s}`"),
            Tok::Int(v) => format!("`{v}`"),
            Tok::Float(v) => format!("`{v}`"),
            Tok::Str(s) => format!("{s:?}"),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::LBrace => "`{`".into(),
            Tok::RBrace => "`}`".into(),
            Tok::Lt => "`<`".into(),
            Tok::Gt => "`>`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Colon => "`:`".into(),
            Tok::Eq => "`=`".into(),
            Tok::Arrow => "`->`".into(),
            Tok::Question => "`?`".into(),
            Tok::Error(m) => m.clone(),
            Tok::Eof => "end of input".into(),
        }
    }
}

/// A token and the byte offset where it starts.
#[derive(Clone, Debug)]
pub(crate) struct Token<'a> {
    /// The token.
    pub tok: Tok<'a>,
    /// Byte offset of its first character.
    pub at: usize,
}

/// A `// func.kind = NAME` comment.
#[derive(Clone, Debug)]
pub(crate) struct KindComment<'a> {
    /// Byte offset of the `//`.
    pub at: usize,
    /// The kind word.
    pub kind: &'a str,
    /// Byte offset of the kind word.
    pub kind_at: usize,
    /// The dtypes of symbolic dimensions that are not `int64`, after the kind:
    /// `, dim %b_1 : int32` each (the text after the first comma; empty when none).
    pub dims: &'a str,
}

/// The lexed text.
pub(crate) struct Lexed<'a> {
    /// Tokens, ending with [`Tok::Eof`].
    pub tokens: Vec<Token<'a>>,
    /// `// func.kind = X` comments in text order.
    pub kinds: Vec<KindComment<'a>>,
}

fn is_word_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

/// A byte of a word, or of a `%` / `@` / `#` name. Names keep the user's spelling, so
/// every byte of a non-ASCII character counts (`%größe_3`, `%変数_4`).
fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'$' || !c.is_ascii()
}

/// Lexes `text`.
pub(crate) fn lex(text: &str) -> Lexed<'_> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut kinds = Vec::new();
    let mut i = 0;
    let word_end = |from: usize, pred: fn(u8) -> bool| {
        let mut j = from;
        while bytes.get(j).is_some_and(|&c| pred(c)) {
            j += 1;
        }
        j
    };
    let slice = |a: usize, b: usize| text.get(a..b).unwrap_or("");
    while let Some(&c) = bytes.get(i) {
        let start = i;
        let simple = match c {
            b'(' => Some(Tok::LParen),
            b')' => Some(Tok::RParen),
            b'[' => Some(Tok::LBracket),
            b']' => Some(Tok::RBracket),
            b'{' => Some(Tok::LBrace),
            b'}' => Some(Tok::RBrace),
            b'<' => Some(Tok::Lt),
            b'>' => Some(Tok::Gt),
            b',' => Some(Tok::Comma),
            b':' => Some(Tok::Colon),
            b'=' => Some(Tok::Eq),
            b'?' => Some(Tok::Question),
            _ => None,
        };
        if let Some(t) = simple {
            tokens.push(Token { tok: t, at: start });
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
            let end = bytes
                .iter()
                .skip(i)
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |p| i + p);
            if let Some(k) = kind_comment(text, i, end) {
                kinds.push(k);
            }
            i = end;
            continue;
        }
        let (tok, end) = match c {
            b'%' | b'@' | b'#' => {
                let end = word_end(i + 1, is_word);
                let name = slice(i + 1, end);
                if name.is_empty() {
                    (
                        Tok::Error(format!("expected a name after `{}`", char::from(c))),
                        i + 1,
                    )
                } else if c == b'%' {
                    (Tok::Value(name), end)
                } else if c == b'@' {
                    (Tok::Symbol(name), end)
                } else {
                    (Tok::Hash(name), end)
                }
            }
            b'-' if bytes.get(i + 1) == Some(&b'>') => (Tok::Arrow, i + 2),
            b'-' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => number(text, i),
            b'-' if slice(i + 1, word_end(i + 1, is_word)) == "inf" => {
                (Tok::Float(f64::NEG_INFINITY), i + 4)
            }
            b'0'..=b'9' => number(text, i),
            b'"' => string(text, i),
            _ if is_word_start(c) => {
                let end = word_end(i, is_word);
                (Tok::Ident(slice(i, end)), end)
            }
            _ => {
                let ch = text.get(i..).and_then(|s| s.chars().next()).unwrap_or('?');
                (
                    Tok::Error(format!("unexpected character `{ch}`")),
                    i + ch.len_utf8(),
                )
            }
        };
        tokens.push(Token { tok, at: start });
        i = end.max(start + 1);
    }
    tokens.push(Token {
        tok: Tok::Eof,
        at: text.len(),
    });
    Lexed { tokens, kinds }
}

/// Recognises `// func.kind = NAME` in the comment `text[start..end]`.
fn kind_comment(text: &str, start: usize, end: usize) -> Option<KindComment<'_>> {
    let body = text.get(start + 2..end)?;
    let trimmed = body.trim_start();
    let rest = trimmed.strip_prefix("func.kind")?;
    let rest = rest.trim_start().strip_prefix('=')?;
    let rest_trimmed = rest.trim();
    let (kind, dims) = match rest_trimmed.split_once(',') {
        Some((k, d)) => (k.trim(), d),
        None => (rest_trimmed, ""),
    };
    if kind.is_empty() {
        return None;
    }
    // Offset of the kind word: where `kind` starts inside `body`.
    let kind_at = start + 2 + (body.len() - rest.trim_start().len());
    Some(KindComment {
        at: start,
        kind,
        kind_at,
        dims,
    })
}

/// Lexes a number starting at `start` (an optional `-`, digits, optional fraction and
/// exponent).
fn number(text: &str, start: usize) -> (Tok<'static>, usize) {
    let bytes = text.as_bytes();
    let mut j = start;
    if bytes.get(j) == Some(&b'-') {
        j += 1;
    }
    let digits = |mut j: usize| {
        while bytes.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        j
    };
    j = digits(j);
    let mut float = false;
    if bytes.get(j) == Some(&b'.') && bytes.get(j + 1).is_some_and(u8::is_ascii_digit) {
        float = true;
        j = digits(j + 1);
    }
    if matches!(bytes.get(j), Some(b'e' | b'E')) {
        let mut k = j + 1;
        if matches!(bytes.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        if bytes.get(k).is_some_and(u8::is_ascii_digit) {
            float = true;
            j = digits(k);
        }
    }
    // A number running into a word (`12abc`) is one bad token, not two.
    if bytes.get(j).is_some_and(|&c| is_word(c) && c != b'.') {
        let mut k = j;
        while bytes.get(k).is_some_and(|&c| is_word(c)) {
            k += 1;
        }
        let s = text.get(start..k).unwrap_or("");
        return (Tok::Error(format!("malformed number `{s}`")), k);
    }
    let s = text.get(start..j).unwrap_or("");
    let tok = if float {
        match s.parse::<f64>() {
            Ok(v) => Tok::Float(v),
            Err(_) => Tok::Error(format!("malformed number `{s}`")),
        }
    } else {
        match s.parse::<i128>() {
            Ok(v) => Tok::Int(v),
            Err(_) => Tok::Error(format!("integer literal `{s}` is out of range")),
        }
    };
    (tok, j)
}

/// Lexes a string literal starting at the opening quote. Escapes: `\\`, `\"`, `\n`, `\t`,
/// `\r`, `\u{XXXX}`.
fn string(text: &str, start: usize) -> (Tok<'static>, usize) {
    let mut out = String::new();
    let Some(rest) = text.get(start + 1..) else {
        return (Tok::Error("unterminated string".into()), text.len());
    };
    let mut chars = rest.char_indices();
    while let Some((k, ch)) = chars.next() {
        match ch {
            '"' => return (Tok::Str(out), start + 1 + k + 1),
            '\n' => break,
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((_, 'r')) => out.push('\r'),
                Some((_, '\\')) => out.push('\\'),
                Some((_, '"')) => out.push('"'),
                Some((_, 'u')) => {
                    let mut hex = String::new();
                    let mut ok = matches!(chars.next(), Some((_, '{')));
                    if ok {
                        ok = false;
                        for (_, h) in chars.by_ref() {
                            if h == '}' {
                                ok = true;
                                break;
                            }
                            hex.push(h);
                            if hex.len() > 6 {
                                break;
                            }
                        }
                    }
                    match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        Some(c) if ok => out.push(c),
                        _ => {
                            return (
                                Tok::Error("malformed `\\u{..}` escape in string".into()),
                                start + 1 + k + 1,
                            );
                        }
                    }
                }
                Some((e, other)) => {
                    return (
                        Tok::Error(format!("unknown escape `\\{other}` in string")),
                        start + 1 + e + other.len_utf8(),
                    );
                }
                None => break,
            },
            c => out.push(c),
        }
    }
    let end = text
        .get(start..)
        .and_then(|s| s.find('\n'))
        .map_or(text.len(), |p| start + p);
    (Tok::Error("unterminated string".into()), end)
}

/// Escapes a string for printing (the inverse of the lexer's unescaping).
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::new();
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
