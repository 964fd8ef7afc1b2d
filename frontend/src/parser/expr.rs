//! Expressions, by precedence climbing over C's binary operator table.

use super::decl::unsupported_keyword;
use super::{PResult, Parser, Recorded};
use crate::ast::{BinaryOp, Expr, ExprKind, NamedCastKind, QualType, Spelling, UnaryOp};
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::token::{Keyword, Punct, TokenKind};
use crate::types::CType;
use stdx::stack::with_stack;

/// Binding power of a binary operator token (higher binds tighter), C order.
fn binary_op(p: Punct) -> Option<(BinaryOp, u8)> {
    use BinaryOp::*;
    Some(match p {
        Punct::OrOr => (LogOr, 1),
        Punct::AndAnd => (LogAnd, 2),
        Punct::Pipe => (BitOr, 3),
        Punct::Caret => (BitXor, 4),
        Punct::Amp => (BitAnd, 5),
        Punct::EqEq => (Eq, 6),
        Punct::Ne => (Ne, 6),
        Punct::Lt => (Lt, 7),
        Punct::Le => (Le, 7),
        Punct::Gt => (Gt, 7),
        Punct::Ge => (Ge, 7),
        Punct::Shl => (Shl, 8),
        Punct::Shr => (Shr, 8),
        Punct::Plus => (Add, 9),
        Punct::Minus => (Sub, 9),
        Punct::Star => (Mul, 10),
        Punct::Slash => (Div, 10),
        Punct::Percent => (Rem, 10),
        _ => return None,
    })
}

/// Assignment operator tokens and the arithmetic they imply.
fn assign_op(p: Punct) -> Option<Option<BinaryOp>> {
    use BinaryOp::*;
    Some(match p {
        Punct::Assign => None,
        Punct::PlusAssign => Some(Add),
        Punct::MinusAssign => Some(Sub),
        Punct::StarAssign => Some(Mul),
        Punct::SlashAssign => Some(Div),
        Punct::PercentAssign => Some(Rem),
        Punct::AndAssign => Some(BitAnd),
        Punct::OrAssign => Some(BitOr),
        Punct::XorAssign => Some(BitXor),
        Punct::ShlAssign => Some(Shl),
        Punct::ShrAssign => Some(Shr),
        _ => return None,
    })
}

/// The spelling of an integer literal's type: `long long` for a `ll`
/// suffix (`5LL`, `7ull`; no digit is an `l`).
fn literal_spelling(text: &str) -> Spelling {
    if text.to_ascii_lowercase().contains("ll") {
        Spelling::LongLong
    } else {
        Spelling::Plain
    }
}

fn mk(kind: ExprKind, span: Span) -> Expr {
    Expr { kind, span }
}

/// An operator of a right-associative chain that waits for its right side.
enum RightFrame {
    /// `lhs op= ...`
    Assign { lhs: Expr, op: Option<BinaryOp> },
    /// `cond ? then : ...`
    Ternary { cond: Expr, then: Expr },
}

impl RightFrame {
    /// The expression this frame makes once its right side is known.
    fn close(self, right: Expr) -> Expr {
        match self {
            RightFrame::Assign { lhs, op } => {
                let span = lhs.span.to(right.span);
                mk(
                    ExprKind::Assign {
                        op,
                        lhs: Box::new(lhs),
                        rhs: Box::new(right),
                    },
                    span,
                )
            }
            RightFrame::Ternary { cond, then } => {
                let span = cond.span.to(right.span);
                mk(
                    ExprKind::Ternary {
                        cond: Box::new(cond),
                        then: Box::new(then),
                        els: Box::new(right),
                    },
                    span,
                )
            }
        }
    }
}

impl Parser<'_> {
    fn punct(&self) -> Option<Punct> {
        match self.peek().kind {
            TokenKind::Punct(p) if !self.at_eof() => Some(p),
            _ => None,
        }
    }

    /// Full expression including the comma operator (a flat chain: a loop).
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        let mut lhs = self.assign_expr()?;
        while self.eat_punct(Punct::Comma) {
            let rhs = self.assign_expr()?;
            let span = lhs.span.to(rhs.span);
            lhs = mk(
                ExprKind::Binary {
                    op: BinaryOp::Comma,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span,
            );
        }
        Ok(lhs)
    }

    /// Assignment expression (right-associative); one nesting level.
    pub(super) fn assign_expr(&mut self) -> PResult<Expr> {
        with_stack(|| {
            self.enter()?;
            let r = self.right_chain(true);
            self.leave();
            r
        })
    }

    /// A conditional expression (no assignment or comma), as `case` needs.
    pub(super) fn cond_value(&mut self) -> PResult<Expr> {
        with_stack(|| {
            self.enter()?;
            let r = self.right_chain(false);
            self.leave();
            r
        })
    }

    /// The right-associative operators, `a = b = c` and
    /// `c1 ? x : c2 ? y : z`, parsed as a loop: each operand before the
    /// last leaves a frame that waits for its right side (the assignment's
    /// value, the conditional's last operand), and the tree is built from
    /// the right at the end, so a chain of any length costs no recursion.
    /// The middle of `?:` is a full expression (true nesting); its last
    /// operand is an assignment expression, as C++ and most C compilers
    /// accept. Without `assign`, the chain may not start with an
    /// assignment (a `case` value).
    fn right_chain(&mut self, assign: bool) -> PResult<Expr> {
        let mut frames: Vec<RightFrame> = Vec::new();
        let mut last = loop {
            let e = self.binary(1)?;
            if self.eat_punct(Punct::Question) {
                let then = self.expr()?;
                self.expect_punct(Punct::Colon, "in conditional expression")?;
                frames.push(RightFrame::Ternary { cond: e, then });
                continue;
            }
            let assign_allowed = assign || !frames.is_empty();
            if let Some(op) = self.punct().and_then(assign_op).filter(|_| assign_allowed) {
                self.bump();
                frames.push(RightFrame::Assign { lhs: e, op });
                continue;
            }
            break e;
        };
        while let Some(frame) = frames.pop() {
            last = frame.close(last);
        }
        Ok(last)
    }

    /// Binary operators with binding power at least `min`; left-associative,
    /// so a chain of one precedence level is a loop (the recursion is bounded
    /// by the number of levels).
    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.cast_expr()?;
        loop {
            let Some((op, prec)) = self.punct().and_then(binary_op) else {
                return Ok(lhs);
            };
            if self.in_template_args && matches!(op, BinaryOp::Gt | BinaryOp::Shr) {
                // The `>` closes the template argument list.
                return Ok(lhs);
            }
            if prec < min {
                return Ok(lhs);
            }
            if op == BinaryOp::Shl && self.is_punct_at(1, Punct::Lt) {
                return self.device_launch();
            }
            self.bump();
            let rhs = self.binary(prec + 1)?;
            let span = lhs.span.to(rhs.span);
            lhs = mk(
                ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span,
            );
        }
    }

    /// `k<<<grid, block>>>(...)` in device code, at `<<<`: CUDA's dynamic
    /// parallelism, which no expression spells otherwise.
    fn device_launch<T>(&mut self) -> PResult<T> {
        let span = self.span().to(self.peek_at(1).span);
        self.diags.push(
            Diagnostic::error(
                span,
                Code::E0002,
                "a kernel launch in device code (dynamic parallelism) is not supported by kernelc",
            )
            .with_note(
                "nvcc compiles one only with `-rdc=true`; launch the kernel from host code instead",
            ),
        );
        Err(Recorded)
    }

    /// `(type) expr` or a unary expression. `(float(x) + 1)` is no cast:
    /// a one-token type name followed by `(` is a functional cast inside
    /// parentheses, unless an abstract pointer declarator follows
    /// (`(float (*)[4]) p`, `(void (*)(int)) f`).
    fn cast_expr(&mut self) -> PResult<Expr> {
        let declarator = self.is_punct_at(3, Punct::Star) && self.is_punct_at(4, Punct::RParen);
        let functional =
            self.simple_type_at(1).is_some() && self.is_punct_at(2, Punct::LParen) && !declarator;
        if self.is_punct(Punct::LParen)
            && self.starts_type(1)
            && !functional
            && self.parenthesized_type_follows()
        {
            return with_stack(|| {
                self.enter()?;
                let r = self.cast_inner();
                self.leave();
                r
            });
        }
        self.unary()
    }

    /// Whether `(` here opens a type closed by `)`. A class template-id
    /// may start a type or a value (`(is_integral<T>::value && ...)`), which
    /// only reading it tells: it is read, and the reading undone.
    fn parenthesized_type_follows(&mut self) -> bool {
        if self.class_template_at(1).is_none() {
            return true;
        }
        let (pos, diags, split) = (self.pos, self.diags.len(), self.split_shr);
        self.pos += 1;
        let is_type =
            self.type_name().is_ok() && self.diags.len() == diags && self.is_punct(Punct::RParen);
        self.pos = pos;
        self.diags.truncate(diags);
        self.split_shr = split;
        is_type
    }

    fn cast_inner(&mut self) -> PResult<Expr> {
        let open = self.bump().span;
        let ty = self.type_name()?;
        let ty = self.reference_type(ty);
        self.expect_punct(Punct::RParen, "to close the cast")?;
        let e = self.cast_expr()?;
        let span = open.to(e.span);
        Ok(match super::references::referent_of(ty) {
            // `(T &&)x` means what `static_cast<T &&>(x)` means.
            (referent, Some(r)) if r.rvalue => {
                reference_cast_call(referent, true, e, open.to(r.at), span)
            }
            (referent, Some(_)) => crate::ast::reference_through_pointer(None, referent, e, span),
            (ty, None) => mk(
                ExprKind::Cast {
                    ty,
                    expr: Box::new(e),
                },
                span,
            ),
        })
    }

    /// A unary expression; a prefix operator opens a nesting level (its
    /// operand), a plain postfix expression does not.
    fn unary(&mut self) -> PResult<Expr> {
        let prefix = self.is_kw(Keyword::Sizeof)
            || matches!(
                self.punct(),
                Some(
                    Punct::Plus
                        | Punct::Minus
                        | Punct::Bang
                        | Punct::Tilde
                        | Punct::Star
                        | Punct::Amp
                        | Punct::PlusPlus
                        | Punct::MinusMinus
                )
            );
        if !prefix {
            return self.postfix();
        }
        with_stack(|| {
            self.enter()?;
            let r = self.unary_inner();
            self.leave();
            r
        })
    }

    fn unary_inner(&mut self) -> PResult<Expr> {
        let start = self.span();
        let op = match self.punct() {
            Some(Punct::Plus) => Some(UnaryOp::Plus),
            Some(Punct::Minus) => Some(UnaryOp::Neg),
            Some(Punct::Bang) => Some(UnaryOp::Not),
            Some(Punct::Tilde) => Some(UnaryOp::BitNot),
            Some(Punct::Star) => Some(UnaryOp::Deref),
            Some(Punct::Amp) => Some(UnaryOp::AddrOf),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            let operand = self.cast_expr()?;
            let span = start.to(operand.span);
            return Ok(mk(
                ExprKind::Unary {
                    op,
                    operand: Box::new(operand),
                },
                span,
            ));
        }
        if let Some(p @ (Punct::PlusPlus | Punct::MinusMinus)) = self.punct() {
            self.bump();
            let operand = self.unary()?;
            let span = start.to(operand.span);
            return Ok(mk(
                ExprKind::IncDec {
                    inc: p == Punct::PlusPlus,
                    prefix: true,
                    operand: Box::new(operand),
                },
                span,
            ));
        }
        if self.eat_kw(Keyword::Sizeof) {
            // `sizeof "text"` / `sizeof("text")`: the one place kernelc can
            // use a string literal's value (for instance from `#x`).
            let paren = usize::from(self.is_punct(Punct::LParen));
            if let TokenKind::Str(text) = &self.peek_at(paren).kind {
                if paren == 0 || self.is_punct_at(2, Punct::RParen) {
                    let len = text.len() as u64 + 1;
                    self.pos += 1 + 2 * paren;
                    let span = start.to(self.prev_span());
                    let ty = QualType {
                        ty: CType::Array {
                            elem: Box::new(CType::Int {
                                bits: 8,
                                signed: true,
                            }),
                            len: Some(len),
                        },
                        is_const: true,
                        is_volatile: false,
                        spelling: Default::default(),
                        span,
                    };
                    return Ok(mk(ExprKind::SizeofType(ty), span));
                }
            }
            if self.is_punct(Punct::LParen) && self.starts_type(1) {
                self.bump();
                let ty = self.type_name()?;
                self.expect_punct(Punct::RParen, "to close `sizeof(`")?;
                return Ok(mk(ExprKind::SizeofType(ty), start.to(self.prev_span())));
            }
            let e = self.unary()?;
            let span = start.to(e.span);
            return Ok(mk(ExprKind::SizeofExpr(Box::new(e)), span));
        }
        self.postfix()
    }

    /// A primary expression and its postfix operators (a flat chain: a loop).
    fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        loop {
            let Some(p) = self.punct() else { return Ok(e) };
            if !matches!(
                p,
                Punct::LBracket
                    | Punct::LParen
                    | Punct::Dot
                    | Punct::Arrow
                    | Punct::PlusPlus
                    | Punct::MinusMinus
            ) {
                return Ok(e);
            }
            e = self.postfix_op(e, p)?;
        }
    }

    fn postfix_op(&mut self, e: Expr, p: Punct) -> PResult<Expr> {
        self.bump();
        Ok(match p {
            Punct::LBracket => {
                let index = self.expr()?;
                let close = self.expect_punct(Punct::RBracket, "to close the index")?;
                let span = e.span.to(close);
                mk(
                    ExprKind::Index {
                        base: Box::new(e),
                        index: Box::new(index),
                    },
                    span,
                )
            }
            Punct::LParen => {
                let mut args = Vec::new();
                if !self.is_punct(Punct::RParen) {
                    loop {
                        args.push(self.assign_expr()?);
                        if !self.eat_punct(Punct::Comma) {
                            break;
                        }
                    }
                }
                let close = self.expect_punct(Punct::RParen, "to close the argument list")?;
                let span = e.span.to(close);
                mk(
                    ExprKind::Call {
                        callee: Box::new(e),
                        args,
                    },
                    span,
                )
            }
            Punct::Dot | Punct::Arrow => {
                if self.is_punct(Punct::Star) {
                    let sp = self.span();
                    return self.error(
                        sp,
                        Code::E0002,
                        "pointers to members (`.*`, `->*`) are not supported by kernelc",
                    );
                }
                // `obj.template f<T>(x)`: the keyword says arguments follow.
                let keyword = self.eat_kw(Keyword::Template);
                if self.peek().kind != TokenKind::Ident || self.at_eof() {
                    let msg = format!("expected a member name, found {}", self.found());
                    let sp = self.span();
                    return self.error(sp, Code::E0003, msg);
                }
                let field = self.bump();
                let template_args = if self.member_template_args_follow(&field.text, keyword) {
                    self.template_args()?
                } else {
                    Vec::new()
                };
                let span = e.span.to(self.prev_span());
                mk(
                    ExprKind::Member {
                        base: Box::new(e),
                        field: field.text.into(),
                        field_span: field.span,
                        arrow: p == Punct::Arrow,
                        template_args,
                    },
                    span,
                )
            }
            _ => {
                let span = e.span.to(self.prev_span());
                mk(
                    ExprKind::IncDec {
                        inc: p == Punct::PlusPlus,
                        prefix: false,
                        operand: Box::new(e),
                    },
                    span,
                )
            }
        })
    }

    /// A string literal, joined with the ones right after it (`"a" "b"` is
    /// `"ab"`, as C's translation phase 6 joins them).
    fn string_literal(&mut self) -> Expr {
        let start = self.peek().span;
        let mut bytes = Vec::new();
        while let TokenKind::Str(text) = &self.peek().kind {
            // The lexer keeps each byte of the literal as one `char`.
            bytes.extend(text.chars().map(|c| c as u32 as u8));
            self.bump();
        }
        let span = start.to(self.prev_span());
        Expr {
            kind: ExprKind::StrLit(bytes),
            span,
        }
    }

    /// How many tokens `<utility>`'s `std::move` or `std::forward` (also
    /// `cuda::std::`) takes here, when a call (`(`, or `<` for written
    /// arguments) follows: sema builds them in, so no header declares
    /// them.
    fn utility_name_at(&self) -> Option<usize> {
        let std_at = match self.peek().text.as_ref() {
            "cuda" if self.is_punct_at(1, Punct::ColonColon) => 2,
            _ => 0,
        };
        let named = self.peek_at(std_at).text.as_ref() == "std"
            && self.peek_at(std_at).kind == TokenKind::Ident
            && self.is_punct_at(std_at + 1, Punct::ColonColon)
            && matches!(self.peek_at(std_at + 2).text.as_ref(), "move" | "forward");
        let len = std_at + 3;
        let called = self.is_punct_at(len, Punct::LParen) || self.is_punct_at(len, Punct::Lt);
        (named && called).then_some(len)
    }

    /// `std::move` or `std::forward<T>` as a call's callee: the name, with
    /// its written template arguments.
    fn utility_callee(&mut self) -> PResult<Expr> {
        let len = self.utility_name_at().unwrap_or(0);
        let start = self.span();
        let mut name = String::new();
        for _ in 0..len {
            name.push_str(&self.bump().text);
        }
        if !self.is_punct(Punct::Lt) {
            return Ok(mk(ExprKind::Ident(name), start.to(self.prev_span())));
        }
        let args = self.template_args()?;
        Ok(mk(
            ExprKind::TemplateId { name, args },
            start.to(self.prev_span()),
        ))
    }

    /// Whether `std::name(` starts here with `name` no type (a type's
    /// name, `std::true_type()`, is a functional cast).
    fn std_function_call_at(&self) -> bool {
        self.peek().text == "std"
            && self.is_punct_at(1, Punct::ColonColon)
            && self.peek_at(2).kind == TokenKind::Ident
            && self.is_punct_at(3, Punct::LParen)
            && self.qualified_type_at(0).is_none()
    }

    fn primary(&mut self) -> PResult<Expr> {
        let tok = self.peek().clone();
        if self.at_eof() {
            let sp = self.prev_span();
            return self.error(sp, Code::E0003, "expected an expression, found end of file");
        }
        let kind = match &tok.kind {
            TokenKind::Ident if self.utility_name_at().is_some() => return self.utility_callee(),
            TokenKind::Ident if self.std_function_call_at() => {
                // `std::abs(x)`, `std::pow(x, 2)`: sema calls `<cmath>`'s
                // ones as the built-ins of the same name.
                self.bump();
                self.bump();
                let name = self.bump();
                let text = format!("std::{}", name.text);
                let callee = mk(ExprKind::Ident(text), tok.span.to(name.span));
                return Ok(callee);
            }
            TokenKind::Ident if self.at_functional_cast() => return self.functional_cast(),
            TokenKind::Ident if self.is_punct_at(1, Punct::ColonColon) => {
                return self.name_or_template_id()
            }
            TokenKind::Punct(Punct::ColonColon) if self.qualified_at(0).is_some() => {
                return self.name_or_template_id()
            }
            TokenKind::Ident
                if self.is_punct_at(1, Punct::LParen)
                    && matches!(
                        tok.text.as_str(),
                        "alignof" | "__alignof__" | "__builtin_offsetof"
                    ) =>
            {
                return self.layout_query();
            }
            TokenKind::Ident
                if self.is_punct_at(1, Punct::LParen) && tok.text.starts_with("__builtin_") =>
            {
                if let Some(e) = self.float_builtin()? {
                    return Ok(e);
                }
                ExprKind::Ident(tok.text.to_string())
            }
            TokenKind::Ident => return self.name_or_template_id(),
            TokenKind::Int { value, ty } => ExprKind::IntLit {
                value: *value,
                ty: ty.clone(),
                spelling: literal_spelling(&tok.text),
            },
            TokenKind::Float { value, ty } => ExprKind::FloatLit {
                value: *value,
                ty: ty.clone(),
            },
            TokenKind::Char(v) => ExprKind::CharLit(*v),
            TokenKind::Keyword(Keyword::True) => ExprKind::BoolLit(true),
            TokenKind::Keyword(Keyword::False) => ExprKind::BoolLit(false),
            // Reported before parsing (`lex_and_split`); kept total here.
            TokenKind::Invalid(error) => {
                self.diags.push((**error).clone());
                return Err(Recorded);
            }
            TokenKind::Str(_) => return Ok(self.string_literal()),
            TokenKind::Punct(Punct::LParen) => {
                self.bump();
                let outer = std::mem::replace(&mut self.in_template_args, false);
                let inner = self.expr();
                self.in_template_args = outer;
                let inner = inner?;
                let close = self.expect_punct(Punct::RParen, "to close the parenthesis")?;
                let mut inner = inner;
                inner.span = tok.span.to(close);
                return Ok(inner);
            }
            TokenKind::Punct(Punct::LBracket) => return self.lambda(),
            TokenKind::Punct(Punct::ColonColon) => {
                return self.error(
                    tok.span,
                    Code::E0002,
                    "`::` (C++ scope resolution) is not supported by kernelc",
                )
            }
            TokenKind::Keyword(
                k @ (Keyword::StaticCast | Keyword::ReinterpretCast | Keyword::ConstCast),
            ) => {
                let kind = match k {
                    Keyword::StaticCast => NamedCastKind::Static,
                    Keyword::ReinterpretCast => NamedCastKind::Reinterpret,
                    _ => NamedCastKind::Const,
                };
                return self.named_cast(kind);
            }
            TokenKind::Keyword(Keyword::Nullptr) => ExprKind::Nullptr,
            TokenKind::Keyword(Keyword::This) => return self.this_expr(),
            // `typename Traits::Bits(0)`, `typename Tr<T>::B{}`: the keyword
            // only says that the dependent name is a type; the cast or
            // construction after it is parsed as without it.
            TokenKind::Keyword(Keyword::Typename) if self.starts_type(1) => {
                self.bump();
                return self.primary();
            }
            TokenKind::Keyword(Keyword::Decltype) if self.is_punct_at(1, Punct::LParen) => {
                return self.decltype_value()
            }
            TokenKind::Keyword(k) => {
                if let Some(what) = unsupported_keyword(*k) {
                    return self.error(
                        tok.span,
                        Code::E0002,
                        format!("{what} is not supported by kernelc yet"),
                    );
                }
                if self.simple_type_at(0).is_some() && self.is_punct_at(1, Punct::LParen) {
                    return self.functional_cast();
                }
                if self.starts_type(0) && self.is_punct_at(1, Punct::LParen) {
                    return self.error(
                        tok.span,
                        Code::E0003,
                        format!(
                            "this functional-style cast is not valid C++: only a one-word type name may be used, as in `float(x)`; write `({})expr`",
                            tok.text
                        ),
                    );
                }
                if self.starts_type(0) && self.is_punct_at(1, Punct::LBrace) {
                    return self.error(
                        tok.span,
                        Code::E0002,
                        "brace-initialized temporaries (`T{...}`) are not supported by kernelc",
                    );
                }
                return self.error(
                    tok.span,
                    Code::E0003,
                    format!("expected an expression, found `{}`", tok.text),
                );
            }
            TokenKind::Punct(_) => {
                return self.error(
                    tok.span,
                    Code::E0003,
                    format!("expected an expression, found `{}`", tok.text),
                )
            }
        };
        self.bump();
        Ok(mk(kind, tok.span))
    }
}

impl Parser<'_> {
    /// The type a one-token type name `n` tokens ahead names, for
    /// functional casts (`float(x)`, `unsigned(x)`, `size_t(x)`, `S(s)`).
    /// C++ allows only a single-word name there: `unsigned int(x)` is not
    /// a cast.
    pub(super) fn simple_type_at(&self, n: usize) -> Option<QualType> {
        if self.at_eof_at(n) {
            return None;
        }
        let t = self.peek_at(n);
        let ty = match &t.kind {
            TokenKind::Keyword(k) => match k {
                Keyword::Void => CType::Void,
                Keyword::Bool => CType::Bool,
                Keyword::Char => CType::Int {
                    bits: 8,
                    signed: true,
                },
                Keyword::Short => CType::Int {
                    bits: 16,
                    signed: true,
                },
                Keyword::Int | Keyword::Signed => CType::INT,
                Keyword::Unsigned => CType::UINT,
                Keyword::Long => CType::LONG,
                Keyword::Float => CType::FLOAT,
                Keyword::Double => CType::DOUBLE,
                _ => return None,
            },
            TokenKind::Ident => {
                let (ty, is_const) = self.type_named(&t.text)?;
                return Some(QualType {
                    ty,
                    is_const,
                    is_volatile: false,
                    spelling: Default::default(),
                    span: t.span,
                });
            }
            _ => return None,
        };
        Some(QualType {
            ty,
            is_const: false,
            is_volatile: false,
            spelling: Default::default(),
            span: t.span,
        })
    }

    /// `dim3(a, b)` after the type's name, at the `(`: the call of the
    /// constructor, `dim3` with its arguments (sema fills in the rest).
    pub(super) fn constructor_call(&mut self, type_name: &str, at: Span) -> PResult<Expr> {
        self.bump(); // `(`
        let mut args = Vec::new();
        if !self.is_punct(Punct::RParen) {
            loop {
                args.push(self.assign_expr()?);
                if !self.eat_punct(Punct::Comma) {
                    break;
                }
            }
        }
        let close = self.expect_punct(Punct::RParen, &format!("to close `{type_name}(`"))?;
        let callee = mk(ExprKind::Ident(type_name.to_string()), at);
        Ok(mk(
            ExprKind::Call {
                callee: Box::new(callee),
                args,
            },
            at.to(close),
        ))
    }

    /// `T(expr)` (a cast, as `(T)expr`) or `T()` (zero), at the type name;
    /// for a struct `S(a, b)` and `S{a, b}`, a construction.
    #[inline(never)]
    /// Whether a functional cast starts here: a one-word type name and
    /// `(`, or a struct's name and `{` (a construction).
    fn at_functional_cast(&self) -> bool {
        if self.is_punct_at(1, Punct::LParen) {
            return self.simple_type_at(0).is_some();
        }
        self.is_punct_at(1, Punct::LBrace)
            && self.simple_type_at(0).is_some_and(|t| t.ty.is_struct())
    }

    /// `(a, b)` or `{a, b}` after a struct type's name (at `at`): its
    /// construction.
    pub(super) fn construct(&mut self, ty: QualType, at: Span) -> PResult<Expr> {
        let close = if self.eat_punct(Punct::LBrace) {
            Punct::RBrace
        } else {
            self.expect_punct(Punct::LParen, "to open the constructor's arguments")?;
            Punct::RParen
        };
        let mut args = Vec::new();
        while !self.is_punct(close) {
            args.push(self.list_item()?);
            if !self.eat_punct(Punct::Comma) {
                break;
            }
        }
        let end = self.expect_punct(close, "to close the constructor's arguments")?;
        Ok(mk(ExprKind::Construct { ty, args }, at.to(end)))
    }

    /// `{a, b, c}` (a trailing comma allowed) whose type the context
    /// gives (`ast::ExprKind::BracedList`).
    pub(super) fn braced_list(&mut self) -> PResult<Expr> {
        let open = self.expect_punct(Punct::LBrace, "to open the list")?;
        let mut items = Vec::new();
        while !self.is_punct(Punct::RBrace) {
            items.push(self.list_item()?);
            if !self.eat_punct(Punct::Comma) {
                break;
            }
        }
        let close = self.expect_punct(Punct::RBrace, "to close the list")?;
        Ok(mk(ExprKind::BracedList(items), open.to(close)))
    }

    /// An item of a braced list or of a construction's arguments: a value,
    /// or a nested list whose type the checker gives (`{limit}` of
    /// `Cell{x, {limit}, 1}`).
    fn list_item(&mut self) -> PResult<Expr> {
        if self.is_punct(Punct::LBrace) {
            // Each list opens a level, as parentheses do.
            return with_stack(|| {
                self.enter()?;
                let list = self.braced_list();
                self.leave();
                list
            });
        }
        self.assign_expr()
    }

    fn functional_cast(&mut self) -> PResult<Expr> {
        let Some(ty) = self.simple_type_at(0) else {
            let sp = self.span();
            return self.error(sp, Code::E0003, "expected a type name");
        };
        if super::decl::is_dim3(&ty.ty) {
            let name = self.bump();
            return self.constructor_call(&name.text, name.span);
        }
        if ty.ty.is_struct() {
            let at = self.bump().span;
            return self.construct(ty, at);
        }
        let start = self.span();
        self.cast_to(ty, start)
    }

    /// `(expr)` or `()` after a scalar type's name, whose last token is
    /// the current one (`start` is where the name began): the cast to
    /// `ty`, or `ty`'s zero.
    pub(super) fn cast_to(&mut self, ty: QualType, start: Span) -> PResult<Expr> {
        if let CType::Ref { .. } = ty.ty {
            return self.error(
                start,
                Code::E0002,
                format!(
                    "a functional cast to the reference type `{}` is not supported by kernelc",
                    ty.ty
                ),
            );
        }
        self.bump(); // the type name's last token
        self.bump(); // `(`
        if self.eat_punct(Punct::RParen) {
            return Ok(mk(ExprKind::ZeroInit(ty), start.to(self.prev_span())));
        }
        let e = self.assign_expr()?;
        if self.is_punct(Punct::Comma) {
            let sp = self.span();
            return self.error(
                sp,
                Code::E0002,
                "a functional cast takes one value (constructors are not supported by kernelc)",
            );
        }
        let close = self.expect_punct(Punct::RParen, "to close the functional cast")?;
        Ok(mk(
            ExprKind::Cast {
                ty,
                expr: Box::new(e),
            },
            start.to(close),
        ))
    }

    /// `static_cast<T>(e)` and its kin, at the keyword.
    #[inline(never)]
    fn named_cast(&mut self, kind: NamedCastKind) -> PResult<Expr> {
        let start = self.bump().span;
        self.expect_punct(Punct::Lt, &format!("after `{}`", kind.as_str()))?;
        // `static_cast<T &>(x)`, or `static_cast<T>(x)` with `T` bound to
        // a reference type.
        let ty = self.type_name()?;
        let ty = self.reference_type(ty);
        if let (NamedCastKind::Static, CType::Ref { rvalue, .. }) = (kind, &ty.ty) {
            let rvalue = *rvalue;
            let (referent, _) = super::references::referent_of(ty);
            return self.reference_cast(start, referent, rvalue);
        }
        if let CType::Ref { rvalue: true, .. } = ty.ty {
            let sp = ty.span;
            return self.error(
                sp,
                Code::E0002,
                format!(
                    "`{}` to an rvalue reference type is not supported by kernelc",
                    kind.as_str()
                ),
            );
        }
        let (ty, by_ref) = super::references::referent_of(ty);
        // `static_cast<Pack<T>>(x)`: the type's own list took half of `>>`.
        if !self.close_template_args() {
            self.expect_punct(
                Punct::Gt,
                &format!("to close the type of `{}`", kind.as_str()),
            )?;
        }
        self.expect_punct(Punct::LParen, &format!("after `{}<...>`", kind.as_str()))?;
        let e = self.expr()?;
        let close = self.expect_punct(Punct::RParen, "to close the cast")?;
        let span = start.to(close);
        if by_ref.is_some() {
            return Ok(crate::ast::reference_through_pointer(
                Some(kind),
                ty,
                e,
                span,
            ));
        }
        Ok(mk(
            ExprKind::NamedCast {
                kind,
                ty,
                expr: Box::new(e),
            },
            span,
        ))
    }

    /// `static_cast<T &&>(e)` and `static_cast<T &>(e)` after the type (an
    /// instance has collapsed `T &&` of a `T` bound to a reference to
    /// `T &`, `crate::templates`): a call of sema's built-in
    /// [`crate::ast::REFERENCE_CASTS`] `rvalue_cast<T>(e)` or `lvalue_cast<T>(e)`,
    /// which designate `e` itself as an xvalue or an lvalue.
    fn reference_cast(
        &mut self,
        start: Span,
        ty: crate::ast::QualType,
        rvalue: bool,
    ) -> PResult<Expr> {
        self.expect_punct(Punct::Gt, "to close the type of `static_cast`")?;
        let at = self.expect_punct(Punct::LParen, "after `static_cast<...>`")?;
        let e = self.expr()?;
        let close = self.expect_punct(Punct::RParen, "to close the cast")?;
        Ok(reference_cast_call(
            ty,
            rvalue,
            e,
            start.to(at),
            start.to(close),
        ))
    }

    /// The GCC built-ins C's `<math.h>` uses for `INFINITY`, `NAN` and
    /// `HUGE_VAL(F)`: `__builtin_inff()`, `__builtin_huge_val()`,
    /// `__builtin_nanf("")` (the string is the NaN's payload, `""` for 0,
    /// or a number), ... as floating literals. `None` for other names.
    #[inline(never)]
    fn float_builtin(&mut self) -> PResult<Option<Expr>> {
        let name = self.peek().text.clone();
        let (ty, nan) = match name.as_str() {
            "__builtin_inff" | "__builtin_huge_valf" => (CType::FLOAT, false),
            "__builtin_inf" | "__builtin_huge_val" => (CType::DOUBLE, false),
            "__builtin_nanf" => (CType::FLOAT, true),
            "__builtin_nan" => (CType::DOUBLE, true),
            _ => return Ok(None),
        };
        let start = self.bump().span;
        self.bump(); // `(`
        let mut payload = 0u64;
        if nan {
            let tok = self.peek().clone();
            let TokenKind::Str(text) = &tok.kind else {
                return self.error(
                    tok.span,
                    Code::E0010,
                    format!("`{name}` takes a string literal"),
                );
            };
            let parsed = if text.is_empty() {
                Some(0)
            } else if let Some(h) = text.strip_prefix("0x").or(text.strip_prefix("0X")) {
                u64::from_str_radix(h, 16).ok()
            } else {
                text.parse::<u64>().ok()
            };
            // The payload fills the mantissa below the quiet bit.
            let limit = if ty == CType::FLOAT { 1 << 22 } else { 1 << 51 };
            match parsed {
                Some(p) if p < limit => payload = p,
                _ => {
                    return self.error(
                        tok.span,
                        Code::E0003,
                        format!("kernelc needs the payload of `{name}` to be \"\" or a number that fits below the quiet bit"),
                    )
                }
            }
            self.bump();
        }
        let close = self.expect_punct(Punct::RParen, &format!("to close `{name}(`"))?;
        let value = match (nan, ty == CType::FLOAT) {
            (false, _) => f64::INFINITY,
            // A float NaN is kept as the double whose conversion to float
            // gives these bits: the payload sits at the top of the mantissa.
            (true, true) => f64::from_bits(0x7ff8_0000_0000_0000 | (payload << 29)),
            (true, false) => f64::from_bits(0x7ff8_0000_0000_0000 | payload),
        };
        Ok(Some(mk(ExprKind::FloatLit { value, ty }, start.to(close))))
    }
}

impl Parser<'_> {
    /// `alignof(T)` and `__builtin_offsetof(T, member)` (what `offsetof`
    /// expands to): constants of type `size_t`, computed here, since the
    /// parser already knows every type's layout.
    #[inline(never)]
    fn layout_query(&mut self) -> PResult<Expr> {
        let kw = self.bump();
        self.bump(); // `(`
        let ty = self.type_name()?;
        let value = if kw.text == "__builtin_offsetof" {
            self.expect_punct(Punct::Comma, "after the type of `offsetof`")?;
            self.member_designator(&ty.ty)?
        } else {
            if ty.ty.size().is_none() {
                return self.error(
                    ty.span,
                    Code::E0003,
                    format!("`alignof` of the incomplete type `{}`", ty.ty),
                );
            }
            ty.ty.align()
        };
        let close = self.expect_punct(Punct::RParen, &format!("to close `{}(`", kw.text))?;
        Ok(mk(
            ExprKind::IntLit {
                value,
                ty: CType::ULONG,
                spelling: Spelling::Plain,
            },
            kw.span.to(close),
        ))
    }

    /// The byte offset of `m`, `m.n`, `m[2].n`, ... inside `ty`.
    fn member_designator(&mut self, ty: &CType) -> PResult<u64> {
        let mut ty = ty.clone();
        let mut offset = 0u64;
        let mut first = true;
        loop {
            if first || self.eat_punct(Punct::Dot) {
                first = false;
                let name = self.peek().clone();
                if name.kind != TokenKind::Ident || self.at_eof() {
                    let msg = format!(
                        "expected a member name in `offsetof`, found {}",
                        self.found()
                    );
                    return self.error(name.span, Code::E0003, msg);
                }
                self.bump();
                let Some(def) = ty.struct_def() else {
                    return self.error(
                        name.span,
                        Code::E0003,
                        format!("`offsetof` needs a struct, not `{ty}`"),
                    );
                };
                let Some(f) = crate::bases::member_field(def, &name.text) else {
                    let msg = format!("no member named `{}` in `{ty}`", name.text);
                    return self.error(name.span, Code::E0008, msg);
                };
                offset += f.offset;
                ty = f.ty.clone();
            } else if self.eat_punct(Punct::LBracket) {
                let idx = self.peek().clone();
                let TokenKind::Int { value, .. } = idx.kind else {
                    return self.error(
                        idx.span,
                        Code::E0010,
                        "kernelc needs an `offsetof` array index written as a literal",
                    );
                };
                self.bump();
                self.expect_punct(Punct::RBracket, "to close the index")?;
                let CType::Array { elem, .. } = &ty else {
                    return self.error(
                        idx.span,
                        Code::E0003,
                        format!("`offsetof` indexes `{ty}`, which is not an array"),
                    );
                };
                let esize = elem.size().unwrap_or(0);
                offset = offset.saturating_add(value.saturating_mul(esize));
                ty = (**elem).clone();
            } else {
                return Ok(offset);
            }
        }
    }
}

/// A call of sema's built-in `static_cast` to `ty &&` (`rvalue`) or
/// `ty &` ([`crate::ast::REFERENCE_CASTS`]) on `e`, its callee at `at`.
fn reference_cast_call(
    ty: crate::ast::QualType,
    rvalue: bool,
    e: Expr,
    at: Span,
    span: Span,
) -> Expr {
    let name = crate::ast::REFERENCE_CASTS[usize::from(!rvalue)].to_string();
    let args = vec![crate::templates::TemplateArg::Type(ty)];
    let callee = mk(ExprKind::TemplateId { name, args }, at);
    mk(
        ExprKind::Call {
            callee: Box::new(callee),
            args: vec![e],
        },
        span,
    )
}
