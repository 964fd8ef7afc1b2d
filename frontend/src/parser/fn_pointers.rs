//! Function pointer declarators: `float (*f)(float)`, `T (*table[4])(T)`,
//! and the abstract `float (*)(float)` of casts, aliases and template
//! arguments; and pointers to arrays, whose declarators have the same
//! shape (`float (*rows)[4]`, `(float (*)[4])buf`).
//!
//! C writes a function pointer's name inside the type, so the declarator
//! is parsed here once the return type (specifiers and `*`s) is known,
//! and gives the same three things an ordinary declarator does: the type,
//! the name, and array sizes. Each place that reads declarators (variables,
//! parameters, members, `typedef`, type names) asks [`Parser::at_fn_pointer`]
//! first and calls [`Parser::fn_pointer_declarator`].

use super::{PResult, Parser};
use crate::ast::{Expr, Init, QualType, Storage, VarDecl};
use crate::codes::Code;
use crate::diag::Span;
use crate::token::{Keyword, Punct, Token, TokenKind};
use crate::types::{CType, FnType};
use std::sync::Arc;

/// A parsed function pointer declarator.
pub(super) struct FnPointerDeclarator {
    /// The pointer's type (`const` when written `(*const f)`).
    pub ty: QualType,
    /// The declared name; `None` in an abstract declarator.
    pub name: Option<Token>,
    /// Array sizes after the name (`(*table[4])`), outermost first.
    pub dims: Vec<Option<Expr>>,
}

impl Parser<'_> {
    /// Whether a function pointer declarator starts here: `(*`, or a
    /// pointer to member's `(S::*`, which [`Parser::fn_pointer_declarator`]
    /// refuses.
    pub(super) fn at_fn_pointer(&self) -> bool {
        self.is_punct(Punct::LParen)
            && (self.is_punct_at(1, Punct::Star) || self.member_pointer_at(1).is_some())
    }

    /// The tokens of `S::*` (a class's name, possibly qualified, then
    /// `::*`) starting `n` ahead, if they are there.
    fn member_pointer_at(&self, n: usize) -> Option<usize> {
        let mut k = n;
        while !self.at_eof_at(k) && self.peek_at(k).kind == TokenKind::Ident {
            if !self.is_punct_at(k + 1, Punct::ColonColon) {
                return None;
            }
            if self.is_punct_at(k + 2, Punct::Star) {
                return Some(k + 3 - n);
            }
            k += 2;
        }
        None
    }

    /// `(*[const] [name][dims])(params)` after the return type `ret`.
    /// `named` says whether a name must be written (a variable, member or
    /// `typedef`), may be (a parameter) or must not be (a type name).
    pub(super) fn fn_pointer_declarator(
        &mut self,
        ret: QualType,
        named: Naming,
    ) -> PResult<FnPointerDeclarator> {
        let open = self.bump().span;
        if self.member_pointer_at(0).is_some() {
            let sp = self.span();
            return self.error(
                sp,
                Code::E0002,
                "pointers to members are not supported by kernelc",
            );
        }
        self.bump(); // `*`
        let mut is_const = false;
        loop {
            if self.eat_kw(Keyword::Const) {
                is_const = true;
            } else if !(self.eat_kw(Keyword::Volatile)
                || self.eat_kw(Keyword::Restrict)
                || self.eat_kw(Keyword::Restrict2))
            {
                break;
            }
        }
        if self.is_punct(Punct::Star) || self.is_punct(Punct::Amp) || self.at_fn_pointer() {
            let sp = self.span();
            return self.error(
                sp,
                Code::E0002,
                "pointers to function pointers and functions returning function pointers are not supported by kernelc",
            );
        }
        let name = if self.peek().kind == TokenKind::Ident && !self.at_eof() {
            if named == Naming::Never {
                let sp = self.span();
                return self.error(sp, Code::E0003, "a type name cannot declare a name");
            }
            Some(self.bump())
        } else {
            if named == Naming::Required {
                let msg = format!("expected a name after `(*`, found {}", self.found());
                let sp = self.span();
                return self.error(sp, Code::E0003, msg);
            }
            None
        };
        let dims = self.dims()?;
        self.expect_punct(Punct::RParen, "to close the function pointer declarator")?;
        if self.is_punct(Punct::LBracket) {
            let ty = self.array_pointer(ret, open, is_const)?;
            return Ok(FnPointerDeclarator { ty, name, dims });
        }
        self.expect_punct(
            Punct::LParen,
            "before the parameters of a function pointer type",
        )?;
        let params = self.fn_type_params()?;
        if ret.ty.is_struct() || ret.ty.is_array() {
            return self.error(
                ret.span,
                Code::E0002,
                "function pointers returning a struct are not supported by kernelc",
            );
        }
        let pointee = CType::Function(Arc::new(FnType {
            ret: ret.ty,
            params,
        }));
        let ty = QualType {
            ty: CType::ptr_to(pointee),
            is_const,
            is_volatile: false,
            spelling: ret.spelling,
            span: ret.span.to(open).to(self.prev_span()),
        };
        Ok(FnPointerDeclarator { ty, name, dims })
    }

    /// The type of `(*p)[N]...`, a pointer to an array of `elem`, at the
    /// array's first `[` (the `(` was at `open`); `is_const`: the pointer
    /// itself is (`(*const p)[4]`).
    fn array_pointer(&mut self, elem: QualType, open: Span, is_const: bool) -> PResult<QualType> {
        let bounds = self.dims()?;
        let of = super::structs::FixedArray::Named;
        let array = self.fixed_array(elem.ty, &bounds, open, of)?;
        Ok(QualType {
            ty: CType::Pointer {
                pointee: Box::new(array),
                pointee_const: elem.is_const,
                pointee_volatile: elem.is_volatile,
                restrict: false,
            },
            is_const,
            is_volatile: false,
            spelling: elem.spelling,
            span: elem.span.to(self.prev_span()),
        })
    }

    /// A variable declared with a function pointer declarator, and its
    /// initializer (`= f`, `{f}`), up to the `,` or `;` after it.
    pub(super) fn fn_pointer_variable(
        &mut self,
        ret: QualType,
        start: Span,
        storage: &Storage,
        auto: Option<Span>,
    ) -> PResult<VarDecl> {
        let d = self.fn_pointer_declarator(ret, Naming::Required)?;
        let Some(mut name) = d.name else {
            // `Naming::Required` made sure of a name.
            return Err(super::Recorded);
        };
        name.text = self.declare_value(&name.text, name.span).into();
        let direct_braces = self.is_punct(Punct::LBrace);
        let init = if direct_braces || self.eat_punct(Punct::Assign) {
            Some(self.initializer()?)
        } else {
            None
        };
        let end = init.as_ref().map_or(self.prev_span(), Init::span);
        Ok(VarDecl {
            name: name.text.into(),
            name_span: name.span,
            ty: d.ty,
            dims: d.dims,
            storage: storage.clone(),
            init,
            by_ref: None,
            rvalue: false,
            auto,
            decltype: None,
            direct_braces,
            span: start.to(end),
        })
    }

    /// `typedef R (*name)(params)`: the alias of a function pointer type.
    pub(super) fn fn_pointer_typedef(&mut self, ret: QualType) -> PResult<()> {
        let d = self.fn_pointer_declarator(ret, Naming::Required)?;
        if let Some(Some(e)) = d.dims.first() {
            return self.error(
                e.span,
                Code::E0002,
                "typedefs of arrays of function pointers are not supported by kernelc yet",
            );
        }
        if let Some(name) = d.name {
            self.define_typedef(name.text.into(), name.span, d.ty);
        }
        Ok(())
    }

    /// The type of a template value parameter, and its name when a
    /// function pointer declarator holds it (`float (*Op)(float)`); the
    /// name of any other follows the type.
    pub(super) fn value_param_type(&mut self) -> PResult<(QualType, Option<Token>)> {
        if !self.starts_type(0) {
            return Ok((self.type_name()?, None));
        }
        let (base, span, ds) = self.specifiers()?;
        if let Some(sp) = ds.first_non_type().or(ds.auto) {
            return self.error(
                sp,
                Code::E0012,
                "a storage or function specifier cannot appear on a template parameter",
            );
        }
        let Some(base) = base else {
            return self.error(span, Code::E0003, "expected a type");
        };
        let ty = self.pointers(base);
        if !self.at_fn_pointer() {
            return Ok((ty, None));
        }
        let d = self.fn_pointer_declarator(ty, Naming::Required)?;
        Ok((d.ty, d.name))
    }

    /// The parameter types of a function pointer type, after its `(`
    /// (through the `)`): names may be written, arrays decay to pointers,
    /// a reference is a [`CType::Ref`] (llama.cpp's `dequantize_kernel_t`
    /// takes `dfloat2 &v`); default arguments, references to arrays and
    /// structs by value are refused.
    fn fn_type_params(&mut self) -> PResult<Vec<CType>> {
        let decls = self.params()?;
        let mut out = Vec::with_capacity(decls.len());
        for p in decls {
            if let Some(r) = p.by_ref {
                if !p.dims.is_empty() {
                    return self.error(
                        r,
                        Code::E0002,
                        "references to arrays in function pointer types are not supported by kernelc",
                    );
                }
                out.push(CType::Ref {
                    referent: Box::new(p.ty.ty),
                    referent_const: p.ty.is_const,
                    referent_volatile: p.ty.is_volatile,
                    rvalue: p.rvalue,
                });
                continue;
            }
            if let Some(d) = &p.default {
                return self.error(
                    d.span,
                    Code::E0003,
                    "a parameter of a function pointer type cannot have a default argument",
                );
            }
            if p.ty.ty.is_struct() && p.dims.is_empty() {
                return self.error(
                    p.span,
                    Code::E0002,
                    "struct parameters in function pointer types are not supported by kernelc",
                );
            }
            let ty = match p.dims.len() {
                0 => p.ty.ty,
                // `float a[]` and `float a[][4]`: a pointer to the element
                // (the inner sizes must be constants, as in any parameter).
                _ => match self.decayed_param_array(p.ty.ty, &p.dims[1..]) {
                    Some(t) => t,
                    None => {
                        return self.error(
                            p.span,
                            Code::E0008,
                            "kernelc needs the inner sizes of an array parameter to be literal expressions",
                        )
                    }
                },
            };
            out.push(ty);
        }
        Ok(out)
    }

    /// `elem[d1]...[dn]` as the pointer an array parameter decays to.
    fn decayed_param_array(&self, elem: CType, inner: &[Option<Expr>]) -> Option<CType> {
        let mut ty = elem;
        for d in inner.iter().rev() {
            let len = super::structs::const_dim(d.as_ref()?, &|n| self.constant(n))?;
            ty = CType::Array {
                elem: Box::new(ty),
                len: Some(u64::try_from(len).ok().filter(|&n| n > 0)?),
            };
        }
        Some(CType::ptr_to(ty))
    }
}

/// Whether a function pointer declarator names something.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Naming {
    /// A variable, member or `typedef`.
    Required,
    /// A parameter.
    Optional,
    /// A type name (`float (*)(float)`).
    Never,
}
