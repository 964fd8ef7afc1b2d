//! C++ member access control ([class.access]): who may name a class's
//! members.
//!
//! The parser records, per class, the members that are not public (a
//! `class`'s until its first access specifier, a `struct`'s or `union`'s
//! only after `private:`/`protected:`), the class's friends and each base's
//! access ([`ClassAccess`], kept in the class's [`crate::types::StructDef`]).
//! The checker asks [`ClassAccess::member`] where code names a member
//! (`sema/access.rs`): a data member through `.`/`->`, and every function a
//! call resolves to (member functions, constructors, operators, conversion
//! functions, static members), so a check comes after overload resolution
//! and never changes which overload a call chooses.

use crate::diag::Span;

/// A member's or a base's access.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Access {
    #[default]
    Public,
    Protected,
    Private,
}

impl Access {
    /// `public`, `protected` or `private`; `None` for another word.
    pub fn from_keyword(word: &str) -> Option<Access> {
        match word {
            "public" => Some(Access::Public),
            "protected" => Some(Access::Protected),
            "private" => Some(Access::Private),
            _ => None,
        }
    }

    /// The default for a class key: a `class`'s members and bases are
    /// private, a `struct`'s and `union`'s public.
    pub fn default_for(is_class: bool) -> Access {
        if is_class {
            Access::Private
        } else {
            Access::Public
        }
    }

    /// The keyword, as diagnostics say it.
    pub fn keyword(self) -> &'static str {
        match self {
            Access::Public => "public",
            Access::Protected => "protected",
            Access::Private => "private",
        }
    }
}

/// A member that is not public: its name, where it is declared, and its
/// access.
#[derive(Clone, Debug, PartialEq)]
pub struct Restricted {
    pub name: String,
    pub span: Span,
    pub access: Access,
}

/// What a class says about who may name its members.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClassAccess {
    /// The members that are not public: data members, member functions
    /// (one entry per declaration, so overloads may differ), static
    /// members.
    pub restricted: Vec<Restricted>,
    /// The keys its `friend` declarations name: functions (`ns::peek`) and
    /// classes (`ns::Maker`).
    pub friends: Vec<String>,
    /// Each base's access, in declaration order.
    pub bases: Vec<Access>,
}

impl ClassAccess {
    /// The member `name` when it is not public: for a function, the
    /// declaration whose name starts where `decl` does (overloads are told
    /// apart by it; a conversion function's name is only `operator` while
    /// the class is read), else the data member of that name.
    pub fn member(&self, name: &str, decl: Option<Span>) -> Option<&Restricted> {
        self.restricted.iter().find(|r| match decl {
            Some(d) => d.start == r.span.start,
            None => r.name == name,
        })
    }

    /// Whether `key` (a function's or a class's) is a friend.
    pub fn befriends(&self, key: &str) -> bool {
        self.friends.iter().any(|f| f == key)
    }
}
