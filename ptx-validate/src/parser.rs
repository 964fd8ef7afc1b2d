//! Tokens to a [`Module`]. Recursive descent over PTX's statement grammar.
//!
//! Why recovery matters: ptxas stops at the first syntax error with
//! `Parsing error near 'x': syntax error`, and so do we. The parser returns
//! the first syntax error as a diagnostic instead of a partial module,
//! because every later check would be reasoning about a guess. Debug-only
//! directives (`.file`, `.loc`, `.section`) are skipped: they carry no
//! semantics the checks need.

use crate::ast::*;
use crate::constexpr::{self, Const, ConstError, LEVELS, WARP_SIZE, WARP_SIZE_NAME};
use crate::diag::Diag;
use crate::isa;
use crate::lexer::{self, lex, FloatLit, Pos, Tok, Token};

/// Deeper `{}` nesting than this is refused, so hostile input cannot
/// overflow the stack of a recursive parser.
const MAX_DEPTH: usize = 200;

struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    i: usize,
    depth: usize,
    /// Errors that do not stop ptxas's parser (`Constant overflow`); they
    /// end up in [`Module::read_errors`].
    errors: Vec<Diag>,
}

type PResult<T> = Result<T, Diag>;

/// Parses a PTX module, or returns the first syntax error.
pub fn parse(src: &str) -> Result<Module, Diag> {
    let mut p = Parser {
        src,
        toks: lex(src),
        i: 0,
        depth: 0,
        errors: Vec::new(),
    };
    let mut m = p.module()?;
    m.read_errors = p.errors;
    Ok(m)
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.i.min(self.toks.len() - 1)].tok
    }
    fn peek_at(&self, n: usize) -> &Tok {
        &self.toks[(self.i + n).min(self.toks.len() - 1)].tok
    }
    fn pos(&self) -> Pos {
        self.toks[self.i.min(self.toks.len() - 1)].pos
    }
    /// Moves past the current token (never past `Eof`).
    fn bump(&mut self) {
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
    }
    /// The current token, cloned, and moves past it. [`Parser::bump`] is
    /// the cheap form for when the token is not needed: a clone of a word
    /// is an allocation, and the parser's speed is mostly its allocations.
    fn next(&mut self) -> Tok {
        let t = self.peek().clone();
        self.bump();
        t
    }
    fn is_punct(&self, c: char) -> bool {
        *self.peek() == Tok::Punct(c)
    }
    fn eat_punct(&mut self, c: char) -> bool {
        if self.is_punct(c) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn is_dot(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::DotWord(d) if d == w)
    }

    /// ptxas's wording for every syntax error.
    fn syntax_error(&self) -> Diag {
        let near = match self.peek() {
            Tok::Ident(s) | Tok::DotWord(s) => s.clone(),
            Tok::Int(v) => v.to_string(),
            Tok::Float(_) => "float".into(),
            Tok::Str(s) => format!("\"{s}\""),
            Tok::Punct(c) | Tok::Unknown(c) => c.to_string(),
            Tok::Eof => "end of file".into(),
        };
        Diag::error(
            self.pos(),
            format!("Parsing error near '{near}': syntax error"),
        )
    }

    fn expect_punct(&mut self, c: char) -> PResult<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.syntax_error())
        }
    }

    fn ident(&mut self) -> PResult<(String, Pos)> {
        let pos = self.pos();
        let name = match self.peek() {
            Tok::Ident(s) => s.clone(),
            _ => return Err(self.syntax_error()),
        };
        self.bump();
        Ok((name, pos))
    }

    /// An integer literal, optionally negated, or `WARP_SZ` (declarations
    /// and directives take no other expression: `%r<4+4>` is a syntax error,
    /// `%r<WARP_SZ>` is not).
    /// A parameter's element count as ptxas 13.5 keeps it: the literal's
    /// 64 bits, refused from 2^32 to 2^63 (`Constant overflow`), else their
    /// low 32 bits, so `[18446744073709551615]` is 4294967295 elements and
    /// `[9223372036854775808]` is `[]`.
    fn param_count(&mut self, pos: Pos, count: i128) -> u64 {
        let bits = count as u64;
        if (1 << 32..1 << 63).contains(&bits) {
            self.errors
                .push(Diag::error(pos, "Constant overflow".into()));
            return u64::from(u32::MAX);
        }
        bits & u64::from(u32::MAX)
    }

    fn int(&mut self) -> PResult<i128> {
        let neg = self.eat_punct('-');
        let pos = self.pos();
        match self.next() {
            Tok::Int(v) => {
                self.check_int_literal(pos);
                Ok(if neg { -v } else { v })
            }
            Tok::Ident(name) if name == WARP_SIZE_NAME && !neg => Ok(WARP_SIZE),
            _ => {
                self.i = self.i.saturating_sub(1);
                Err(self.syntax_error())
            }
        }
    }

    /// The value after `.align`: ptxas keeps it in 32 bits (`Constant
    /// overflow` from 2^32; whether it is a power of two is checked later).
    fn alignment(&mut self) -> PResult<i128> {
        let at = self.pos();
        let n = self.int()?;
        if n >= 1 << 32 {
            self.errors
                .push(Diag::error(at, "Constant overflow".into()));
        }
        Ok(n)
    }

    /// `Constant overflow` for an integer literal ptxas cannot read.
    fn check_int_literal(&mut self, pos: Pos) {
        if lexer::int_literal_overflows(self.src.get(pos.offset..).unwrap_or("")) {
            self.errors
                .push(Diag::error(pos, "Constant overflow".into()));
        }
    }

    /// `Constant overflow` for a decimal float literal outside the doubles.
    fn check_float_literal(&mut self, f: FloatLit, pos: Pos) {
        let text = self.src.get(pos.offset..).unwrap_or("");
        if matches!(f, FloatLit::Decimal(_)) && lexer::float_literal_overflows(text) {
            self.errors
                .push(Diag::error(pos, "Constant overflow".into()));
        }
    }

    /// A constant expression, folded (see [`crate::constexpr`]).
    fn const_expr(&mut self) -> PResult<Const> {
        let cond = self.binary_level(0)?;
        if !self.eat_punct('?') {
            return Ok(cond);
        }
        let a = self.const_expr()?;
        self.expect_punct(':')?;
        let b = self.const_expr()?;
        let truth = match cond {
            Const::Int(v) => v != 0,
            Const::Float(_) => constexpr::unary('!', cond) == Ok(Const::Int(0)),
        };
        Ok(if truth { a } else { b })
    }

    /// The operators of precedence `level` and tighter.
    fn binary_level(&mut self, level: usize) -> PResult<Const> {
        let Some(ops) = LEVELS.get(level) else {
            return self.unary_expr();
        };
        let mut lhs = self.binary_level(level + 1)?;
        while let Some(op) = self.operator_at(ops) {
            let pos = self.pos();
            // ptxas reads a `0f` literal as an operand alone or in
            // parentheses, never beside an operator (`0f3F800000+1`,
            // `1+0f3F800000`, `-0f3F800000` are syntax errors; `0d` is not
            // so limited).
            if self.i > 0 && is_f32_bits(&self.toks[self.i - 1].tok) {
                return Err(self.syntax_error());
            }
            self.i += op.len();
            if is_f32_bits(self.peek()) {
                return Err(self.syntax_error());
            }
            let rhs = self.binary_level(level + 1)?;
            lhs = self.fold(constexpr::binary(op, lhs, rhs), pos)?;
        }
        Ok(lhs)
    }

    /// Which of `ops` the next tokens spell: two-character operators are
    /// two adjacent punctuation tokens, and a one-character operator is
    /// not the start of a two-character one (`|` is not `||`).
    fn operator_at(&self, ops: &[&'static str]) -> Option<&'static str> {
        let punct_at = |n: usize| match (self.peek_at(n), self.toks.get(self.i + n)) {
            (Tok::Punct(c), Some(t)) => Some((*c, t.pos.offset)),
            _ => None,
        };
        let (first, at) = punct_at(0)?;
        let second = punct_at(1)
            .filter(|&(_, next)| next == at + 1)
            .map(|(c, _)| c);
        let pair = second.map(|c| format!("{first}{c}"));
        let is_pair = pair
            .as_deref()
            .is_some_and(|p| LEVELS.iter().any(|l| l.contains(&p)));
        ops.iter().copied().find(|op| match op.len() {
            2 => pair.as_deref() == Some(*op),
            _ => !is_pair && op.starts_with(first),
        })
    }

    /// A unary operator, a parenthesised expression, a literal or `WARP_SZ`.
    fn unary_expr(&mut self) -> PResult<Const> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Punct(c @ ('-' | '+' | '~' | '!')) => {
                self.bump();
                if is_f32_bits(self.peek()) {
                    return Err(self.syntax_error());
                }
                let v = self.unary_expr()?;
                self.fold(constexpr::unary(c, v), pos)
            }
            Tok::Punct('(') => {
                self.bump();
                let v = self.const_expr()?;
                self.expect_punct(')')?;
                Ok(v)
            }
            Tok::Int(v) => {
                self.check_int_literal(pos);
                self.bump();
                Ok(Const::Int(v))
            }
            Tok::Float(f) => {
                self.check_float_literal(f, pos);
                self.bump();
                Ok(Const::Float(f))
            }
            Tok::Ident(name) if name == WARP_SIZE_NAME => {
                self.bump();
                Ok(Const::Int(WARP_SIZE))
            }
            _ => Err(self.syntax_error()),
        }
    }

    /// The value of a folded operation; a type mismatch is an error that
    /// lets reading go on, a division by zero is fatal.
    fn fold(&mut self, r: Result<Const, ConstError>, pos: Pos) -> PResult<Const> {
        match r {
            Ok(c) => Ok(c),
            Err(ConstError::TypeMismatch) => {
                self.errors
                    .push(Diag::error(pos, "Constant expression type mismatch".into()));
                Ok(Const::Int(0))
            }
            Err(ConstError::DivisionByZero) => Err(Diag::error(
                pos,
                "Constant expression has division by zero".into(),
            )),
        }
    }

    /// An integer constant expression (an address offset or an immediate
    /// address); a float one is an error.
    fn int_expr(&mut self) -> PResult<i128> {
        let pos = self.pos();
        match self.const_expr()? {
            Const::Int(v) => Ok(v),
            Const::Float(_) => {
                self.errors.push(Diag::error(
                    pos,
                    "Integer constant expression expected".into(),
                ));
                Ok(0)
            }
        }
    }

    /// Skips the rest of the current source line (for `.loc`/`.file`).
    fn skip_line(&mut self, line: u32) {
        while self.pos().line == line && *self.peek() != Tok::Eof {
            self.bump();
        }
    }

    /// Skips a balanced `{ ... }` (a `.section` body).
    fn skip_braced(&mut self) -> PResult<()> {
        self.expect_punct('{')?;
        let mut depth = 1usize;
        while depth > 0 {
            match self.next() {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => depth -= 1,
                Tok::Eof => return Err(self.syntax_error()),
                _ => {}
            }
        }
        Ok(())
    }

    fn module(&mut self) -> PResult<Module> {
        let mut m = Module::default();
        let mut seen_other = false;
        loop {
            let pos = self.pos();
            match self.peek().clone() {
                Tok::Eof => break,
                Tok::DotWord(d) => match d.as_str() {
                    ".version" => {
                        self.bump();
                        let v = match self.next() {
                            Tok::Float(crate::lexer::FloatLit::Decimal(_)) => {
                                let t = &self.toks[self.i - 1];
                                version_from_text(self.src, t)
                            }
                            // `.version 9` is no version to ptxas 13.5
                            // (`Missing .version directive`): it wants
                            // major.minor.
                            Tok::Int(_) => {
                                self.errors.push(Diag::error(
                                    pos,
                                    "Missing .version directive at start of file".into(),
                                ));
                                Some((0, 0))
                            }
                            _ => None,
                        };
                        let Some(v) = v else {
                            self.i -= 1;
                            return Err(self.syntax_error());
                        };
                        m.version_first = !seen_other && m.version.is_none();
                        m.version = Some((v, pos));
                    }
                    ".target" => {
                        self.bump();
                        seen_other = true;
                        // ptxas 13.5 takes a second `.target` directive, and
                        // the last one governs (`.target sm_80` then
                        // `.target sm_90` allows sm_90's features; the other
                        // order does not).
                        m.target.clear();
                        loop {
                            let (t, tp) = self.ident()?;
                            m.target.push((t, tp));
                            if !self.eat_punct(',') {
                                break;
                            }
                        }
                    }
                    // A second `.address_size` is a syntax error to ptxas.
                    ".address_size" if m.address_size.is_some() => {
                        return Err(self.syntax_error());
                    }
                    ".address_size" => {
                        self.bump();
                        seen_other = true;
                        let v = self.int()?;
                        m.address_size = Some((v.clamp(0, 1024) as u32, pos));
                    }
                    // `.loc` belongs inside a function (a syntax error here).
                    ".file" => {
                        self.bump();
                        m.has_body = true;
                        self.skip_line(pos.line);
                    }
                    ".section" => {
                        m.has_body = true;
                        self.bump();
                        seen_other = true;
                        self.bump();
                        self.skip_braced()?;
                    }
                    ".pragma" => {
                        m.has_body = true;
                        self.bump();
                        self.bump();
                        self.expect_punct(';')?;
                    }
                    _ => {
                        seen_other = true;
                        m.has_body = true;
                        self.top_item(&mut m)?;
                    }
                },
                _ => return Err(self.syntax_error()),
            }
        }
        Ok(m)
    }

    fn top_item(&mut self, m: &mut Module) -> PResult<()> {
        let mut linkage = Vec::new();
        while let Tok::DotWord(d) = self.peek() {
            if matches!(d.as_str(), ".visible" | ".extern" | ".weak" | ".common") {
                linkage.push(d.clone());
                self.bump();
            } else {
                break;
            }
        }
        if self.is_dot(".entry") || self.is_dot(".func") {
            let f = self.function(linkage)?;
            m.items.push(Item::Func(f));
            return Ok(());
        }
        let v = self.var_decl(linkage)?;
        m.items.push(Item::Var(v));
        Ok(())
    }

    fn function(&mut self, linkage: Vec<String>) -> PResult<Function> {
        let kind = if self.is_dot(".entry") {
            FuncKind::Entry
        } else {
            FuncKind::Func
        };
        self.bump();
        let mut rets = Vec::new();
        if kind == FuncKind::Func && self.is_punct('(') {
            rets = self.param_list()?;
        }
        let (name, pos) = self.ident()?;
        let mut params = Vec::new();
        if self.is_punct('(') {
            params = self.param_list()?;
        }
        let mut directives: Vec<(String, Vec<i128>, Pos)> = Vec::new();
        loop {
            let dpos = self.pos();
            match self.peek().clone() {
                // Kernels take the performance and cluster directives (and
                // `.pragma`), device functions only `.noreturn`, once; any
                // other is a syntax error to ptxas.
                Tok::DotWord(d)
                    if kind == FuncKind::Entry
                        && matches!(
                            d.as_str(),
                            ".maxntid"
                                | ".reqntid"
                                | ".minnctapersm"
                                | ".maxnctapersm"
                                | ".maxnreg"
                                | ".reqnctapercluster"
                                | ".explicitcluster"
                                | ".maxclusterrank"
                                | ".blocksareclusters"
                        )
                        || kind == FuncKind::Func && d == ".noreturn" && directives.is_empty() =>
                {
                    self.bump();
                    let mut vals = Vec::new();
                    if matches!(self.peek(), Tok::Int(_)) {
                        vals.push(self.int()?);
                        while self.eat_punct(',') {
                            vals.push(self.int()?);
                        }
                    }
                    directives.push((d, vals, dpos));
                }
                Tok::DotWord(d) if d == ".pragma" && kind == FuncKind::Entry => {
                    self.bump();
                    self.bump();
                    self.expect_punct(';')?;
                }
                _ => break,
            }
        }
        // A device function's declaration may end without its `;` (ptxas
        // reads the next directive); a kernel's may not.
        let body = if self.eat_punct(';') {
            None
        } else if self.is_punct('{') {
            Some(self.block_body()?)
        } else if kind == FuncKind::Func {
            None
        } else {
            return Err(self.syntax_error());
        };
        Ok(Function {
            kind,
            linkage,
            name,
            pos,
            rets,
            params,
            directives,
            body,
        })
    }

    fn param_list(&mut self) -> PResult<Vec<Param>> {
        self.expect_punct('(')?;
        let mut out = Vec::new();
        if self.eat_punct(')') {
            return Ok(out);
        }
        loop {
            out.push(self.param()?);
            if self.eat_punct(')') {
                return Ok(out);
            }
            self.expect_punct(',')?;
        }
    }

    fn param(&mut self) -> PResult<Param> {
        let space = match self.next() {
            Tok::DotWord(d) if d == ".param" || d == ".reg" => d,
            _ => {
                self.i -= 1;
                return Err(self.syntax_error());
            }
        };
        let mut ty = String::new();
        let mut align = None;
        // A kernel pointer's attributes follow its type, in order (ptxas
        // 13.5: `.u64 .ptr .global .align 16`; a space without `.ptr`, a
        // second `.ptr`, or `.ptr` after an `.align` is a syntax error).
        let (mut ptr, mut spaced, mut closed) = (false, false, false);
        while let Tok::DotWord(d) = self.peek().clone() {
            let is_space = matches!(d.as_str(), ".global" | ".shared" | ".local" | ".const")
                || d.starts_with(".shared::");
            let misplaced = match d.as_str() {
                ".ptr" => ty.is_empty() || ptr || closed,
                _ if is_space => !ptr || spaced || closed,
                _ => false,
            };
            if misplaced {
                return Err(self.syntax_error());
            }
            self.bump();
            match d.as_str() {
                ".align" => {
                    closed = !ty.is_empty();
                    align = Some(self.alignment()?);
                }
                ".ptr" => ptr = true,
                _ if is_space => spaced = true,
                _ => self.declared_type(&mut ty, d)?,
            }
        }
        if ty.is_empty() {
            return Err(self.syntax_error());
        }
        let (name, pos) = match self.peek() {
            // `_` is a legal (anonymous) name in prototypes.
            Tok::Ident(_) => self.ident()?,
            _ => return Err(self.syntax_error()),
        };
        let mut array = None;
        if self.eat_punct('[') {
            array = Some(if self.is_punct(']') {
                0
            } else {
                let pos = self.pos();
                let count = self.int()?;
                self.param_count(pos, count)
            });
            self.expect_punct(']')?;
        }
        Ok(Param {
            space,
            ty,
            name,
            pos,
            array,
            align,
        })
    }

    /// The type of a declaration, just read (`d`, the token before the
    /// cursor): one per declaration, and one a variable can have (`.bf16`,
    /// `.tf32` or an unknown word are syntax errors to ptxas; the 8-bit
    /// float types are an error that lets reading go on).
    fn declared_type(&mut self, ty: &mut String, d: String) -> PResult<()> {
        let pos = self.toks[self.i.saturating_sub(1)].pos;
        match isa::declared_type(&d) {
            Some(declarable) if ty.is_empty() => {
                if !declarable {
                    self.errors.push(Diag::error(
                        pos,
                        format!("Type {d} may only be used as an instruction type"),
                    ));
                }
                *ty = d;
                Ok(())
            }
            _ => {
                self.i -= 1;
                Err(self.syntax_error())
            }
        }
    }

    /// A variable declaration after its linkage: `.shared .align 16 .b8 s[256];`.
    fn var_decl(&mut self, linkage: Vec<String>) -> PResult<VarDecl> {
        let space = match self.peek().clone() {
            Tok::DotWord(d)
                if matches!(
                    d.as_str(),
                    ".reg" | ".shared" | ".local" | ".const" | ".global" | ".param" | ".tex"
                ) || d.starts_with(".shared::") =>
            {
                self.bump();
                d
            }
            _ => return Err(self.syntax_error()),
        };
        let mut ty = String::new();
        let mut vector = None;
        let mut align = None;
        let mut pointer = false;
        while let Tok::DotWord(d) = self.peek().clone() {
            let at = self.pos();
            self.bump();
            match d.as_str() {
                ".align" => align = Some(self.alignment()?),
                ".v2" => vector = Some(2),
                ".v4" => vector = Some(4),
                ".v8" => vector = Some(8),
                ".attribute" => {
                    self.expect_punct('(')?;
                    while !self.eat_punct(')') {
                        if *self.peek() == Tok::Eof {
                            return Err(self.syntax_error());
                        }
                        self.bump();
                    }
                }
                ".ptr" => pointer = true,
                // A second space (`.global.global .b8 x[1];`, `.global
                // .shared`, `.local.local` in a body) is `Multiple state
                // spaces specified` (ptxas 13.5); only a `.ptr` names the
                // space it points to.
                ".global" | ".shared" | ".local" | ".const" if pointer => {}
                ".global" | ".shared" | ".local" | ".const" => self
                    .errors
                    .push(Diag::error(at, "Multiple state spaces specified".into())),
                _ if d.starts_with(".shared::") => self
                    .errors
                    .push(Diag::error(at, "Multiple state spaces specified".into())),
                _ => self.declared_type(&mut ty, d)?,
            }
        }
        if ty.is_empty() {
            return Err(self.syntax_error());
        }
        let mut names = Vec::new();
        // ptxas takes a declaration of no name (`.reg .b32;`), but a name
        // after each comma.
        if !self.is_punct(';') {
            loop {
                let (name, pos) = self.ident()?;
                let mut d = DeclName {
                    name,
                    pos,
                    range: None,
                    array: Vec::new(),
                    has_init: false,
                };
                if self.eat_punct('<') {
                    let at = self.pos();
                    if self.is_punct('-') {
                        return Err(self.syntax_error());
                    }
                    let n = self.int()?;
                    // ptxas: `Constant overflow` from 2^32 registers, and a
                    // fatal `Memory allocation failure` at 2^32 - 1.
                    if n >= i128::from(u32::MAX) {
                        self.errors
                            .push(Diag::error(at, "Constant overflow".into()));
                    }
                    d.range = Some(n.clamp(0, u32::MAX as i128) as u32);
                    self.expect_punct('>')?;
                }
                while self.eat_punct('[') {
                    if self.eat_punct(']') {
                        d.array.push(None);
                    } else {
                        let n = self.int()?;
                        d.array.push(Some(n.clamp(0, u32::MAX as i128) as u64));
                        self.expect_punct(']')?;
                    }
                }
                if self.eat_punct('=') {
                    d.has_init = true;
                    self.initializer(&ty, &d.array, 0)?;
                }
                names.push(d);
                if !self.eat_punct(',') {
                    break;
                }
            }
        }
        self.expect_punct(';')?;
        Ok(VarDecl {
            linkage,
            space,
            ty,
            vector,
            align,
            names,
        })
    }

    /// An initializer of a variable of type `ty` with array dimensions
    /// `dims` (ptxas 13.5's rules, each fatal): one braced list per
    /// dimension, with at most as many elements as the dimension (`[]`
    /// takes any number), and at the bottom a constant expression or an
    /// address (`name`, `name+4`, `generic(name)`); a float variable takes
    /// no integer constant.
    fn initializer(&mut self, ty: &str, dims: &[Option<u64>], depth: usize) -> PResult<()> {
        let mismatch = |p: &Self| Diag::error(p.pos(), "Initial value type mismatch".into());
        if depth > 8 {
            return Err(self.syntax_error());
        }
        let Some((&n, inner)) = dims.split_first() else {
            if self.is_punct('{') {
                return Err(mismatch(self));
            }
            return self.initial_value(ty);
        };
        if !self.is_punct('{') {
            return Err(mismatch(self));
        }
        self.bump();
        let mut count = 0u64;
        loop {
            self.initializer(ty, inner, depth + 1)?;
            count += 1;
            if !self.eat_punct(',') {
                break;
            }
        }
        if n.is_some_and(|n| n > 0 && count > n) {
            return Err(Diag::error(
                self.pos(),
                "Greater number of elements in array initializer".into(),
            ));
        }
        self.expect_punct('}')
    }

    /// One initial value: an address or a constant expression.
    fn initial_value(&mut self, ty: &str) -> PResult<()> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Ident(name) if name != WARP_SIZE_NAME => {
                self.bump();
                if name == "generic" && self.eat_punct('(') {
                    self.ident()?;
                    self.expect_punct(')')?;
                }
                if self.eat_punct('+') {
                    self.int_expr()?;
                }
                Ok(())
            }
            _ => {
                let value = self.const_expr()?;
                let float = isa::type_info(ty).is_some_and(|(k, _)| k.is_float());
                if float && matches!(value, Const::Int(_)) {
                    return Err(Diag::error(pos, "Initial value type mismatch".into()));
                }
                Ok(())
            }
        }
    }

    /// `{ statements }`, with nested blocks.
    fn block_body(&mut self) -> PResult<Vec<Stmt>> {
        self.expect_punct('{')?;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Diag::error(self.pos(), "Blocks nested too deeply".into()));
        }
        let mut out = Vec::new();
        loop {
            let pos = self.pos();
            // Only a label's name is needed here; an instruction's words are
            // read (and copied) once, by `instruction`.
            let mut label = match self.peek() {
                Tok::Ident(name) if *self.peek_at(1) == Tok::Punct(':') => Some(name.clone()),
                _ => None,
            };
            match self.peek() {
                Tok::Punct('}') => {
                    self.bump();
                    break;
                }
                Tok::Eof => return Err(self.syntax_error()),
                Tok::Punct('{') => {
                    let inner = self.block_body()?;
                    out.push(Stmt::Block(inner, pos));
                }
                Tok::DotWord(d) => match d.as_str() {
                    ".loc" | ".file" => {
                        self.bump();
                        self.skip_line(pos.line);
                    }
                    ".pragma" => {
                        self.bump();
                        self.bump();
                        self.expect_punct(';')?;
                    }
                    _ => {
                        let mut linkage = Vec::new();
                        while let Tok::DotWord(l) = self.peek().clone() {
                            if l == ".extern" || l == ".weak" || l == ".visible" {
                                linkage.push(l);
                                self.bump();
                            } else {
                                break;
                            }
                        }
                        out.push(Stmt::Decl(self.var_decl(linkage)?));
                    }
                },
                Tok::Ident(_) if label.is_some() => {
                    let name = label.take().unwrap_or_default();
                    self.bump();
                    self.bump();
                    if self.is_dot(".callprototype") {
                        self.bump();
                        // `(.param .b32 _) _ (.param .b32 _);`
                        if self.is_punct('(') {
                            self.param_list()?;
                        }
                        self.ident()?;
                        if self.is_punct('(') {
                            self.param_list()?;
                        }
                        self.expect_punct(';')?;
                        out.push(Stmt::Prototype(name, pos));
                    } else {
                        out.push(Stmt::Label(name, pos));
                    }
                }
                _ => out.push(Stmt::Inst(self.instruction()?)),
            }
        }
        self.depth -= 1;
        Ok(out)
    }

    fn instruction(&mut self) -> PResult<Inst> {
        let pos = self.pos();
        let mut guard = None;
        if self.eat_punct('@') {
            let neg = self.eat_punct('!');
            let gpos = self.pos();
            let (name, _) = self.ident()?;
            guard = Some((
                neg,
                Operand {
                    kind: OpKind::Name {
                        name,
                        comp: None,
                        negated: false,
                    },
                    pos: gpos,
                },
            ));
        }
        let (opcode, _) = self.ident()?;
        let mut mods = Vec::new();
        while let Tok::DotWord(d) = self.peek() {
            if isa::DIRECTIVE_WORDS.contains(&d.as_str()) {
                return Err(self.syntax_error());
            }
            let d = d.clone();
            self.bump();
            mods.push(d);
        }
        let mut operands = Vec::new();
        if !self.is_punct(';') {
            loop {
                operands.push(self.operand(0)?);
                if !self.eat_punct(',') {
                    break;
                }
            }
        }
        self.expect_punct(';')?;
        Ok(Inst {
            guard,
            opcode,
            mods,
            operands,
            pos,
        })
    }

    fn operand(&mut self, depth: usize) -> PResult<Operand> {
        if depth > 8 {
            return Err(self.syntax_error());
        }
        let pos = self.pos();
        let kind = match self.peek().clone() {
            Tok::Ident(s) if s == "_" => {
                self.bump();
                OpKind::Sink
            }
            Tok::Punct('!') if matches!(self.peek_at(1), Tok::Ident(n) if n != WARP_SIZE_NAME) => {
                self.bump();
                let (name, _) = self.ident()?;
                OpKind::Name {
                    name,
                    comp: None,
                    negated: true,
                }
            }
            // A constant expression; `(` starts one only when an
            // expression follows it (`(1+2)`), else it is a call's list.
            t if constexpr::starts_expression(&t)
                && (t != Tok::Punct('(') || constexpr::starts_expression(self.peek_at(1))) =>
            {
                match self.const_expr()? {
                    Const::Int(v) => OpKind::Int(v),
                    Const::Float(f) => OpKind::Float(f),
                }
            }
            Tok::Ident(name) => {
                self.bump();
                let mut comp = None;
                if let Tok::DotWord(c) = self.peek().clone() {
                    if matches!(c.as_str(), ".x" | ".y" | ".z" | ".w") {
                        self.bump();
                        comp = Some(c);
                    }
                }
                if self.is_punct('+') {
                    self.bump();
                    let off = self.int_expr()?;
                    OpKind::SymOffset(name, off)
                } else if comp.is_none() && self.eat_punct('[') {
                    self.element(name)?
                } else {
                    OpKind::Name {
                        name,
                        comp,
                        negated: false,
                    }
                }
            }
            Tok::Punct('{') => {
                self.bump();
                let mut items = Vec::new();
                if !self.is_punct('}') {
                    loop {
                        items.push(self.operand(depth + 1)?);
                        if !self.eat_punct(',') {
                            break;
                        }
                    }
                }
                self.expect_punct('}')?;
                OpKind::Vector(items)
            }
            Tok::Punct('(') => {
                self.bump();
                let mut items = Vec::new();
                if !self.is_punct(')') {
                    loop {
                        items.push(self.operand(depth + 1)?);
                        if !self.eat_punct(',') {
                            break;
                        }
                    }
                }
                self.expect_punct(')')?;
                OpKind::List(items)
            }
            Tok::Punct('[') => {
                self.bump();
                self.address()?
            }
            _ => return Err(self.syntax_error()),
        };
        let op = Operand { kind, pos };
        if self.is_punct('|') {
            // A pair's halves are plain names: ptxas stops at the `|` after
            // `%tid.x`, and at the `.x` of `%p|%tid.x`.
            if matches!(op.kind, OpKind::Name { comp: Some(_), .. }) {
                return Err(self.syntax_error());
            }
            self.bump();
            if matches!(self.peek(), Tok::Ident(_))
                && matches!(self.peek_at(1), Tok::DotWord(c) if matches!(c.as_str(), ".x" | ".y" | ".z" | ".w"))
            {
                self.bump();
                return Err(self.syntax_error());
            }
            let second = self.operand(depth + 1)?;
            return Ok(Operand {
                kind: OpKind::Pair(Box::new(op), Box::new(second)),
                pos,
            });
        }
        Ok(op)
    }

    /// After `name[`: a register, a register plus a constant, or a
    /// constant, then `]`.
    fn element(&mut self, name: String) -> PResult<OpKind> {
        let mut index = None;
        let mut offset = 0;
        match self.peek().clone() {
            Tok::Ident(reg) if reg != WARP_SIZE_NAME && reg != "_" => {
                self.bump();
                index = Some(reg);
                if self.eat_punct('+') {
                    offset = self.int_expr()?;
                }
            }
            t if constexpr::starts_expression(&t) => offset = self.int_expr()?,
            _ => return Err(self.syntax_error()),
        }
        self.expect_punct(']')?;
        Ok(OpKind::Element {
            name,
            index,
            offset,
        })
    }

    /// After `[`: `reg`, `reg+imm`, `reg+-imm`, `sym+imm`, `imm`, and the
    /// tensor form `tmap, {c0, c1}`; `imm` is a constant expression
    /// (`[%rd14+4+1]`). `reg-imm` is a syntax error, as in ptxas.
    fn address(&mut self) -> PResult<OpKind> {
        let mut base = None;
        let mut offset = 0;
        match self.peek().clone() {
            t if constexpr::starts_expression(&t) => offset = self.int_expr()?,
            Tok::Ident(name) => {
                self.bump();
                base = Some(name);
                if self.eat_punct('+') {
                    offset = self.int_expr()?;
                }
            }
            _ => return Err(self.syntax_error()),
        }
        let mut extra = Vec::new();
        while self.eat_punct(',') {
            extra.push(self.operand(1)?);
        }
        self.expect_punct(']')?;
        Ok(OpKind::Addr {
            base,
            offset,
            extra,
        })
    }
}

fn is_f32_bits(t: &Tok) -> bool {
    matches!(t, Tok::Float(FloatLit::F32Bits(_)))
}

/// `.version 8.0` lexes as a decimal float; re-read the digits as written so
/// that `8.10` is not mistaken for `8.1`.
/// A `.version` as ptxas 13.5 reads it: major and minor are integers as
/// written, so `8.10` is 8.10 (above 8.6, as a `tcgen05` kernel under it
/// shows), not the float 8.1.
fn version_from_text(src: &str, t: &Token) -> Option<(u32, u32)> {
    let text = src.get(t.pos.offset..)?;
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (major, minor) = text[..end].split_once('.')?;
    let number = |s: &str| s.parse::<u32>().ok().filter(|v| *v < 1000);
    Some((number(major)?, number(minor).unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .u64 p, .param .align 8 .b8 s[16])\n.maxntid 256, 1, 1\n{\n\
        .reg .pred %p<2>; .reg .b32 %r<5>; .reg .b64 %rd<4>;\n\
        ld.param.u64 %rd1, [p];\n@!%p1 bra $L1;\n\
        { .reg .b64 %t; st.global.v2.u32 [%rd1+-4], {%r1, _}; }\n\
        $L1:\n mov.u32 %r2, %tid.x;\n ret;\n}\n";

    #[test]
    fn parses_a_small_kernel() {
        let m = parse(SMALL).unwrap();
        assert_eq!(m.version.unwrap().0, (8, 0));
        let Item::Func(f) = &m.items[0] else {
            panic!("not a function")
        };
        assert_eq!(f.params.len(), 2);
        assert_eq!(f.params[1].array, Some(16));
        assert_eq!(f.directives[0].1, vec![256, 1, 1]);
        assert_eq!(f.body.as_ref().unwrap().len(), 9);
    }

    #[test]
    fn reg_minus_imm_is_a_syntax_error() {
        let src = SMALL.replace("[%rd1+-4]", "[%rd1-4]");
        let e = parse(&src).unwrap_err();
        assert!(e.msg.contains("Parsing error near '-'"), "{}", e.msg);
        assert_eq!(e.pos.line, 10);
    }

    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        let src = format!(
            ".version 8.0\n.target sm_90\n.entry k() {}{}",
            "{".repeat(5000),
            "}".repeat(5001)
        );
        assert!(parse(&src).is_err());
    }
}
