//! Declarations beyond plain scalars: array types, initializer lists,
//! module variables (`__shared__`, `__constant__`, `__device__`), enums,
//! `switch`, `__launch_bounds__`, and the integer constant expressions they
//! all need (evaluated by `consteval.rs`).

use std::collections::BTreeMap;

use super::consteval::wrap;
use super::{Binding, Checker, SwitchCtx};
use crate::ast;
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::typed::{
    Block, CastKind, Expr, ExprKind, GlobalId, GlobalVar, InitAddr, MemSpace, Stmt, StmtKind,
};
use crate::types::CType;

/// The largest object kernelc lays out (the `.local`/`.shared` limits are far
/// below it; this only keeps sizes in `u32` for the IR).
const MAX_OBJECT_SIZE: u64 = u32::MAX as u64;

impl Checker {
    /// Types `e` and evaluates it as an integer constant expression,
    /// reporting `what` needs one when it is not.
    fn require_const(&mut self, e: &ast::Expr, what: &str) -> Option<i128> {
        let t = self.expr(e)?;
        if !t.ty.is_integer() {
            self.error(
                e.span,
                Code::E0009,
                format!("{what} must have an integer type, not `{}`", t.ty),
            );
            return None;
        }
        let v = self.const_int(&t);
        if v.is_none() {
            self.error(
                e.span,
                Code::E0009,
                format!("{what} must be an integer constant expression"),
            );
        }
        v
    }

    /// Wraps `elem` in the declarator's array dimensions (innermost last).
    fn array_type(
        &mut self,
        elem: CType,
        dims: &[Option<ast::Expr>],
        name_span: Span,
    ) -> Option<CType> {
        let mut lens = Vec::new();
        for (k, d) in dims.iter().enumerate() {
            match d {
                None if k == 0 => lens.push(None),
                None => {
                    self.error(
                        name_span,
                        Code::E0009,
                        "only the first dimension of an array may be omitted",
                    );
                    return None;
                }
                Some(e) => {
                    let v = self.require_const(e, "an array size")?;
                    if v <= 0 || v > i128::from(MAX_OBJECT_SIZE) {
                        self.error(e.span, Code::E0009, format!("invalid array size {v}"));
                        return None;
                    }
                    lens.push(Some(v as u64));
                }
            }
        }
        let mut ty = elem;
        if !lens.is_empty() && matches!(ty, CType::Void) {
            self.error(name_span, Code::E0099, "array of `void`");
            return None;
        }
        for len in lens.into_iter().rev() {
            ty = CType::Array {
                elem: Box::new(ty),
                len,
            };
        }
        if ty.size().is_some_and(|s| s > MAX_OBJECT_SIZE) {
            self.error(name_span, Code::E0009, "array is too large");
            return None;
        }
        Some(ty)
    }

    /// The declared type of a variable, arrays included.
    pub(super) fn var_type(&mut self, v: &ast::VarDecl) -> Option<CType> {
        self.array_type(v.ty.ty.clone(), &v.dims, v.name_span)
    }

    /// A parameter's type: `T a[]` / `T a[N][M]` is adjusted to `T (*)[M]`.
    pub(super) fn param_type(&mut self, p: &ast::ParamDecl) -> CType {
        if p.dims.is_empty() {
            return p.ty.ty.clone();
        }
        let inner = self
            .array_type(p.ty.ty.clone(), &p.dims[1..], p.span)
            .unwrap_or(CType::INT);
        CType::Pointer {
            pointee: Box::new(inner),
            pointee_const: p.ty.is_const,
            pointee_volatile: p.ty.is_volatile,
            restrict: false,
        }
    }

    /// `enum { A, B = 5, C }`: binds each enumerator as an `int` constant.
    pub(super) fn enum_decl(&mut self, e: &ast::EnumDecl) {
        let mut next: i128 = 0;
        for (name, value, span) in &e.enumerators {
            let v = match value {
                Some(x) => self.require_const(x, "an enumerator value").unwrap_or(next),
                None => next,
            };
            if i32::try_from(v).is_err() {
                self.error(
                    *span,
                    Code::E0009,
                    format!("enumerator `{name}` = {v} does not fit in `int`"),
                );
            }
            self.bind(
                name,
                Binding::Const(wrap(v, &CType::INT), CType::INT),
                *span,
            );
            next = v + 1;
        }
    }

    /// `__launch_bounds__(N[, M])` of a function, evaluated.
    pub(super) fn launch_bounds(&mut self, f: &ast::FunctionDecl) -> Option<(u32, Option<u32>)> {
        let (max, min, span) = f.launch_bounds.as_ref()?;
        if !f.specs.global {
            self.error(
                *span,
                Code::E0012,
                "`__launch_bounds__` applies only to `__global__` functions",
            );
            return None;
        }
        let eval = |c: &mut Checker, e: &ast::Expr| {
            let v = c.require_const(e, "a `__launch_bounds__` argument")?;
            match u32::try_from(v) {
                Ok(n) if n > 0 => Some(n),
                _ => {
                    c.error(
                        e.span,
                        Code::E0009,
                        format!("invalid `__launch_bounds__` value {v}"),
                    );
                    None
                }
            }
        };
        let max = eval(self, max)?;
        let min = match min {
            Some(m) => Some(eval(self, m)?),
            None => None,
        };
        Some((max, min))
    }

    /// `__cluster_dims__(x[, y[, z]])` of a kernel, evaluated; the missing
    /// dimensions are 1, as in CUDA.
    pub(super) fn cluster_dims(&mut self, f: &ast::FunctionDecl) -> Option<[u32; 3]> {
        let (dims, span) = f.cluster_dims.as_ref()?;
        if !f.specs.global {
            self.error(
                *span,
                Code::E0012,
                "`__cluster_dims__` applies only to `__global__` functions",
            );
            return None;
        }
        if dims.len() > 3 {
            self.error(
                *span,
                Code::E0099,
                "`__cluster_dims__` takes at most three dimensions",
            );
            return None;
        }
        // Clusters are a Hopper feature: say so where the attribute is
        // written rather than failing later in the backend.
        let arch = self.opts.cuda_arch();
        if arch < 900 {
            self.error(
                *span,
                Code::E0029,
                format!(
                    "`__cluster_dims__` needs sm_90 or newer (the target is sm_{})",
                    arch / 10
                ),
            );
            return None;
        }
        let mut out = [1u32; 3];
        for (slot, e) in out.iter_mut().zip(dims) {
            let v = self.require_const(e, "a `__cluster_dims__` dimension")?;
            match u32::try_from(v) {
                Ok(n) if n > 0 => *slot = n,
                _ => {
                    self.error(
                        e.span,
                        Code::E0099,
                        format!("invalid `__cluster_dims__` dimension {v}"),
                    );
                    return None;
                }
            }
        }
        Some(out)
    }

    /// Flattens a braced (or scalar) initializer for an object of type `ty`
    /// into every scalar leaf at its byte offset, zeros included. Also
    /// returns the number of outer elements, which sizes `T x[] = {...}`.
    pub(super) fn flatten_init(
        &mut self,
        ty: &CType,
        init: &ast::Init,
    ) -> Option<(Vec<(u64, Expr)>, u64)> {
        let spelled;
        let init = match self.string_as_list(ty, init) {
            Some(chars) => {
                spelled = ast::Init::List(chars?, init.span());
                &spelled
            }
            None => init,
        };
        let mut leaves = BTreeMap::new();
        let count = match init {
            ast::Init::List(items, span) => {
                let mut pos = 0;
                let n = self.fill(ty, items, &mut pos, 0, &mut leaves)?;
                if pos < items.len() {
                    self.error(
                        items[pos].span(),
                        Code::E0004,
                        "excess elements in initializer",
                    );
                    return None;
                }
                if items.is_empty() && ty.is_array() && ty.size().is_none() {
                    self.error(
                        *span,
                        Code::E0099,
                        "an array cannot be sized by an empty initializer",
                    );
                    return None;
                }
                n
            }
            ast::Init::Expr(e) => {
                self.error(
                    e.span,
                    Code::E0004,
                    format!("an array of type `{ty}` must be initialized with a braced list"),
                );
                return None;
            }
        };
        let full = match ty {
            CType::Array { elem, len: None } => CType::Array {
                elem: elem.clone(),
                len: Some(count),
            },
            t => t.clone(),
        };
        let mut out = Vec::new();
        zero_fill(&full, 0, &mut leaves, &mut out, init.span());
        Some((out, count))
    }

    /// A string literal initializing a character array (`char s[] =
    /// "abc"`, also braced: `{"abc"}`) as the items of a braced list: its
    /// bytes and the NUL, which C++ requires room for. `None` when `init`
    /// is not that, `Some(None)` after an error.
    fn string_as_list(&mut self, ty: &CType, init: &ast::Init) -> Option<Option<Vec<ast::Init>>> {
        let CType::Array { elem, len } = ty else {
            return None;
        };
        let CType::Int { bits: 8, signed } = **elem else {
            return None;
        };
        let e = match init {
            ast::Init::Expr(e) => e,
            ast::Init::List(items, _) => match items.as_slice() {
                [ast::Init::Expr(e)] => e,
                _ => return None,
            },
        };
        let ast::ExprKind::StrLit(bytes) = &e.kind else {
            return None;
        };
        let needed = bytes.len() as u64 + 1;
        if len.is_some_and(|n| n < needed) {
            self.error(
                e.span,
                Code::E0004,
                format!("a string of {needed} characters (with its NUL) cannot initialize `{ty}`"),
            );
            return Some(None);
        }
        let char_of = |b: u8| {
            ast::Init::Expr(ast::Expr {
                kind: if signed {
                    ast::ExprKind::CharLit(i64::from(b as i8))
                } else {
                    ast::ExprKind::IntLit {
                        value: u64::from(b),
                        ty: CType::Int {
                            bits: 32,
                            signed: true,
                        },
                        spelling: ast::Spelling::Plain,
                    }
                },
                span: e.span,
            })
        };
        Some(Some(
            bytes.iter().chain([&0]).map(|&b| char_of(b)).collect(),
        ))
    }

    /// Fills the object `ty` at `off` from `items[*pos..]` (brace elision:
    /// an aggregate element without its own braces takes items from here).
    /// Returns how many elements of `ty` (if an array) were initialized.
    fn fill(
        &mut self,
        ty: &CType,
        items: &[ast::Init],
        pos: &mut usize,
        off: u64,
        out: &mut BTreeMap<u64, Expr>,
    ) -> Option<u64> {
        if let CType::Struct(def) = ty {
            // A union's braced list initializes its first member; an
            // unnamed bit-field is no member to initialize.
            let members = if def.is_union { 1 } else { def.fields.len() };
            let named = def
                .fields
                .iter()
                .filter(|f| f.bits.is_none() || !f.name.is_empty());
            for f in named.take(members) {
                if *pos >= items.len() {
                    break;
                }
                match f.bits {
                    Some(bits) => self.bit_field_element(f, bits, items, pos, off, out)?,
                    None if f.reference => {
                        let bound = self.reference_element(&f.ty, &items[*pos])?;
                        *pos += 1;
                        out.insert(off + f.offset, bound);
                    }
                    None => self.element(&f.ty, items, pos, off + f.offset, out)?,
                }
            }
            return Some(1);
        }
        let CType::Array { elem, len } = ty else {
            // `int z{};` has no element: the value is zero.
            if *pos < items.len() {
                self.element(ty, items, pos, off, out)?;
            }
            return Some(1);
        };
        let esize = elem.size().unwrap_or(0);
        let mut k = 0u64;
        while *pos < items.len() && len.is_none_or(|n| k < n) {
            self.element(elem, items, pos, off + k * esize, out)?;
            k += 1;
        }
        Some(k)
    }

    /// The address a reference member (of pointer type `ptr_ty`) holds
    /// when `item` initializes it: the object it names (`{x}` as `x`).
    fn reference_element(&mut self, ptr_ty: &CType, item: &ast::Init) -> Option<Expr> {
        let e = match item {
            ast::Init::Expr(e) => e,
            ast::Init::List(sub, _) if matches!(sub[..], [ast::Init::Expr(_)]) => {
                return self.reference_element(ptr_ty, &sub[0]);
            }
            ast::Init::List(_, span) => {
                self.error(
                    *span,
                    Code::E0004,
                    "a braced initializer for a reference member needs exactly one value",
                );
                return None;
            }
        };
        let v = self.expr_nodecay(e)?;
        self.bind_reference(v, ptr_ty, "a reference member")
    }

    /// Initializes one element of type `ty` from `items[*pos]`; a braced
    /// list nests one level (`stdx::stack`).
    pub(super) fn element(
        &mut self,
        ty: &CType,
        items: &[ast::Init],
        pos: &mut usize,
        off: u64,
        out: &mut BTreeMap<u64, Expr>,
    ) -> Option<()> {
        stdx::stack::with_stack(|| self.element_level(ty, items, pos, off, out))
    }

    fn element_level(
        &mut self,
        ty: &CType,
        items: &[ast::Init],
        pos: &mut usize,
        off: u64,
        out: &mut BTreeMap<u64, Expr>,
    ) -> Option<()> {
        match &items[*pos] {
            ast::Init::List(sub, span) => {
                *pos += 1;
                if !ty.is_array() && !ty.is_struct() && sub.len() != 1 {
                    self.error(
                        *span,
                        Code::E0004,
                        format!("a braced initializer for `{ty}` needs exactly one value"),
                    );
                    return None;
                }
                let mut p = 0;
                self.fill(ty, sub, &mut p, off, out)?;
                if p < sub.len() {
                    self.error(sub[p].span(), Code::E0004, "excess elements in initializer");
                    return None;
                }
            }
            ast::Init::Expr(e) if ty.is_array() => {
                if let Some(chars) = self.string_as_list(ty, &items[*pos]) {
                    *pos += 1;
                    let mut p = 0;
                    self.fill(ty, &chars?, &mut p, off, out)?;
                    return Some(());
                }
                let _ = e;
                self.fill(ty, items, pos, off, out)?;
            }
            ast::Init::Expr(e) if ty.is_struct() => {
                // A struct value initializes the whole member; anything else
                // starts brace elision into its members (C 6.7.9p13). Typing
                // is tried once quietly to tell the two apart.
                let mark = self.diags.len();
                match self.expr(e) {
                    Some(t) if t.ty == *ty => {
                        *pos += 1;
                        out.insert(off, t);
                    }
                    _ => {
                        self.diags.truncate(mark);
                        self.fill(ty, items, pos, off, out)?;
                    }
                }
            }
            ast::Init::Expr(e) => {
                *pos += 1;
                let t = self.expr(e)?;
                let t = self.assign_convert(t, ty, "initialization", e.span)?;
                out.insert(off, t);
            }
        }
        Some(())
    }

    /// Little-endian bytes of a flattened constant initializer, and the
    /// addresses among them (where the bytes stay zero).
    fn init_bytes(
        &mut self,
        size: u64,
        leaves: &[(u64, Expr)],
    ) -> Option<(Vec<u8>, Vec<InitAddr>)> {
        let mut bytes = vec![0u8; size as usize];
        let mut addrs = Vec::new();
        for (off, e) in leaves {
            let chunk: Vec<u8> = match &e.ty {
                CType::Pointer { .. } => Some(self.pointer_bytes(*off, e, &mut addrs)?.to_vec()),
                CType::Float { bits: 32 } => {
                    let v = self.const_float(e);
                    v.map(|v| (v as f32).to_le_bytes().to_vec())
                }
                CType::Float { .. } => self.const_float(e).map(|v| v.to_le_bytes().to_vec()),
                CType::Int { bits, .. } => self
                    .const_int(e)
                    .map(|v| (v as u64).to_le_bytes()[..usize::from(*bits / 8)].to_vec()),
                CType::Bool => self.const_int(e).map(|v| vec![u8::from(v != 0)]),
                _ => {
                    self.error(
                        e.span,
                        Code::E0002,
                        format!("module variable initializers of type `{}` are not supported by kernelc", e.ty),
                    );
                    return None;
                }
            }
            .or_else(|| {
                self.error(
                    e.span,
                    Code::E0009,
                    "the initializer of a module variable must be a constant",
                );
                None
            })?;
            let at = *off as usize;
            bytes[at..at + chunk.len()].copy_from_slice(&chunk);
        }
        Some((bytes, addrs))
    }

    /// `constexpr int widths[4] = {4, 6, 8, 10};` at file scope, with no
    /// memory space: host data whose elements are constants, bound as a
    /// [`Binding::ConstArray`]. False when `v` is no such array; true when
    /// it is (errors in its initializer reported).
    fn const_int_array(&mut self, v: &ast::VarDecl) -> bool {
        let st = &v.storage;
        let is_const = v.ty.is_const || st.constexpr.is_some();
        let Some(ast::Init::List(items, _)) = &v.init else {
            return false;
        };
        if !is_const || !v.ty.ty.is_integer() || v.dims.len() != 1 || st.is_extern {
            return false;
        }
        let ty = v.ty.ty.clone();
        let mut values = Vec::with_capacity(items.len());
        for item in items {
            let ast::Init::Expr(e) = item else {
                self.error(item.span(), Code::E0009, "expected an integer constant");
                return true;
            };
            let value = self
                .expr(e)
                .and_then(|t| self.assign_convert(t, &ty, "initialization", v.name_span))
                .and_then(|t| self.const_int(&t));
            let Some(value) = value else {
                let msg = "the elements of a file-scope `const` array must be constants";
                self.error(e.span, Code::E0009, msg);
                return true;
            };
            values.push(value);
        }
        if let Some(size) = &v.dims[0] {
            let len = self.expr(size).and_then(|t| self.const_int(&t));
            match len.and_then(|n| usize::try_from(n).ok()) {
                Some(n) if n >= values.len() => values.resize(n, 0),
                _ => {
                    let msg = "the array's size must be a constant no smaller than its initializer";
                    self.error(size.span, Code::E0009, msg);
                    return true;
                }
            }
        }
        self.bind(&v.name, Binding::ConstArray(values.into(), ty), v.name_span);
        true
    }

    /// A file-scope variable declaration.
    pub(super) fn file_var(&mut self, v: &ast::VarDecl) {
        self.func.scopes.clear();
        let st = &v.storage;
        if !(st.shared || st.constant || st.device) {
            // A `const` integer with a constant initializer is a named
            // constant, usable in device code as in C++.
            if st.constexpr.is_some() && v.ty.ty.is_float() && v.dims.is_empty() {
                // A `constexpr` floating constant: its value, like a macro.
                if let Some(ast::Init::Expr(e)) = &v.init {
                    let ty = v.ty.ty.clone();
                    let val = self
                        .expr(e)
                        .and_then(|t| self.assign_convert(t, &ty, "initialization", v.name_span))
                        .and_then(|t| {
                            let c = self.const_float(&t);
                            if c.is_none() {
                                self.error(
                                    e.span,
                                    Code::E0009,
                                    "the initializer of a `constexpr` variable must be a constant",
                                );
                            }
                            c
                        });
                    if let Some(val) = val {
                        self.bind(&v.name, Binding::ConstFloat(val, ty), v.name_span);
                    }
                    return;
                }
            }
            if self.const_int_array(v) {
                return;
            }
            if v.ty.is_const && v.ty.ty.is_integer() && v.dims.is_empty() && !st.is_extern {
                if let Some(ast::Init::Expr(e)) = &v.init {
                    let ty = v.ty.ty.clone();
                    let val = self
                        .expr(e)
                        .and_then(|t| self.assign_convert(t, &ty, "initialization", v.name_span))
                        .and_then(|t| {
                            let c = self.const_int(&t);
                            if c.is_none() {
                                self.error(
                                    e.span,
                                    Code::E0009,
                                    "the initializer of a file-scope `const` must be a constant",
                                );
                            }
                            c
                        });
                    if let Some(val) = val {
                        self.bind(&v.name, Binding::Const(val, ty), v.name_span);
                    }
                    return;
                }
            }
            self.diags.push(
                Diagnostic::error(
                    v.name_span,
                    Code::E0002,
                    format!("file-scope variable `{}` without a memory space is not supported by kernelc", v.name),
                )
                .with_note("declare it `__device__`, `__constant__` or `__shared__` (or a `const` integer with a constant value)"),
            );
            return;
        }
        if st.is_inline && !st.is_static && !self.opts.relocatable {
            let d = Diagnostic::error(
                v.name_span,
                Code::E0012,
                format!(
                    "an `inline` module variable (`{}`) must be `static` without `-rdc=true`",
                    v.name
                ),
            );
            self.diags.push(d.with_note("nvcc compiles a whole program here, which it shares with no other module: drop `inline`, or make the variable `static inline`"));
            return;
        }
        let name = crate::mangle::variable(&v.name, st.is_static);
        self.module_var(v, name, st.is_static, st.is_inline);
    }

    /// A `__shared__` variable declared inside a function: static storage,
    /// so a module variable with the Itanium name of a local entity
    /// (`_ZZ1kPfE4tile`, as nvcc names it). It is private to the module,
    /// but in an inline function with external linkage, whose definition
    /// other modules have too: there it is one object among them all.
    pub(super) fn local_shared(&mut self, v: &ast::VarDecl) {
        let name = if v.storage.is_extern {
            v.name.clone()
        } else {
            let function = &self.func.fn_link;
            let mut earlier = 0;
            loop {
                let name = crate::mangle::local_variable(function, &v.name, earlier);
                if !self.global_index.contains_key(&name) {
                    break name;
                }
                earlier += 1;
            }
        };
        let shared_among_modules = self.func.fn_inline && !self.func.fn_static;
        self.module_var(v, name, !shared_among_modules, shared_among_modules);
    }

    /// Checks a module variable and binds its name to it; `is_static`: it
    /// has internal linkage; `is_inline`: it is a local static of an inline
    /// function, which other modules define too.
    fn module_var(&mut self, v: &ast::VarDecl, name: String, is_static: bool, is_inline: bool) {
        let st = &v.storage;
        let Some(ty) = self.var_type(v) else {
            return;
        };
        if st.managed && !self.managed_var_is_valid(v) {
            return;
        }
        let space = if st.shared {
            if st.constant {
                self.error(
                    st.span,
                    Code::E0012,
                    "a variable cannot be both `__shared__` and `__constant__`",
                );
                return;
            }
            MemSpace::Shared
        } else if st.constant {
            MemSpace::Constant
        } else {
            MemSpace::Device
        };
        if ty == CType::Void || ty.scalar_elem() == &CType::Void {
            self.error(
                v.name_span,
                Code::E0004,
                format!("variable `{}` has type `void`", v.name),
            );
            return;
        }
        if self.refuse_incomplete(&ty, &format!("variable `{}`", v.name), v.name_span) {
            return;
        }
        let mut dynamic = false;
        if st.is_extern {
            let unsized_array = matches!(ty, CType::Array { len: None, .. });
            if space != MemSpace::Shared || !unsized_array || v.init.is_some() {
                self.error(
                    st.span,
                    Code::E0012,
                    "`extern` variables are supported by kernelc only as `extern __shared__ T name[]` (dynamic shared memory)",
                );
                return;
            }
            dynamic = true;
            if let Some(i) = self
                .global_index
                .get(&name)
                .copied()
                .filter(|&i| self.globals[i].dynamic)
            {
                // Every `extern __shared__` array is the same memory.
                self.bind(&v.name, Binding::Global(GlobalId(i as u32)), v.name_span);
                return;
            }
        }
        let mut ty = ty;
        let mut init = None;
        let mut addrs = Vec::new();
        if let Some(i) = &v.init {
            if space == MemSpace::Shared {
                self.error(
                    i.span(),
                    Code::E0012,
                    "`__shared__` variables cannot have an initializer",
                );
                return;
            }
            let flat = match i {
                ast::Init::Expr(e) if !ty.is_array() => self
                    .expr(e)
                    .and_then(|t| self.assign_convert(t, &ty, "initialization", v.name_span))
                    .map(|t| (vec![(0, t)], 1)),
                _ => self.flatten_init(&ty, i),
            };
            let Some((leaves, count)) = flat else {
                return;
            };
            if let CType::Array { elem, len: None } = &ty {
                ty = CType::Array {
                    elem: elem.clone(),
                    len: Some(count),
                };
            }
            let Some((bytes, found)) = self.init_bytes(ty.size().unwrap_or(0), &leaves) else {
                return;
            };
            init = Some(bytes);
            addrs = found;
        }
        if !dynamic && ty.size().is_none() {
            self.error(
                v.name_span,
                Code::E0009,
                format!("variable `{}` needs a size", v.name),
            );
            return;
        }
        if self.by_name.contains_key(&name) || self.global_index.contains_key(&name) {
            self.error(
                v.name_span,
                Code::E0006,
                format!("redefinition of `{}`", v.name),
            );
            return;
        }
        let id = GlobalId(self.globals.len() as u32);
        self.global_index.insert(name.clone(), self.globals.len());
        self.globals.push(GlobalVar {
            name,
            ty,
            space,
            init,
            addrs,
            dynamic,
            managed: st.managed,
            align: st.align,
            is_static,
            is_inline,
            is_const: v.ty.is_const,
            span: v.name_span,
        });
        self.bind(&v.name, Binding::Global(id), v.name_span);
    }

    /// nvcc's rules for a `__managed__` variable: global memory only, and
    /// writable, since the host writes it as well. Reports the first broken.
    fn managed_var_is_valid(&mut self, v: &ast::VarDecl) -> bool {
        let st = &v.storage;
        let broken = if st.shared || st.constant {
            Some((
                st.span,
                "`__managed__` variables cannot be `__shared__` or `__constant__`",
            ))
        } else if v.ty.is_const || st.constexpr.is_some() {
            Some((
                v.name_span,
                "a `__managed__` variable cannot have a `const` type",
            ))
        } else {
            None
        };
        if let Some((span, message)) = broken {
            self.error(span, Code::E0012, message);
        }
        broken.is_none()
    }

    /// `switch (cond) body`: only labels directly in the body's block count.
    pub(super) fn switch_stmt(&mut self, cond: &ast::Expr, body: &ast::Stmt) -> StmtKind {
        let c = self.expr(cond);
        self.refuse_temporaries(cond.span);
        let c = match c {
            Some(c) if c.ty.is_integer() => Some(super::convert::promote(c)),
            Some(c) => {
                self.error(
                    c.span,
                    Code::E0099,
                    format!("a `switch` needs an integer value, not `{}`", c.ty),
                );
                None
            }
            None => None,
        };
        let ty = c.as_ref().map_or(CType::INT, |c| c.ty.clone());
        self.func.switches.push(SwitchCtx {
            cases: Vec::new(),
            case_spans: Default::default(),
            default: None,
            labels: 0,
        });
        self.func.break_depth += 1;
        self.func.break_scopes.push(self.func.scopes.len());
        self.func.scopes.push(super::Scope::default());
        let stmts: &[ast::Stmt] = match &body.kind {
            ast::StmtKind::Block(b) => &b.stmts,
            _ => std::slice::from_ref(body),
        };
        let mut out = Vec::new();
        for s in stmts {
            match &s.kind {
                ast::StmtKind::Case(value) => {
                    let v = self.require_const(value, "a `case` value");
                    let ctx = self.func.switches.last_mut().expect("pushed above");
                    let label = ctx.labels;
                    ctx.labels += 1;
                    if let Some(v) = v.map(|v| wrap(v, &ty)) {
                        if let Some(&prev) = ctx.case_spans.get(&v) {
                            self.diags.push(
                                Diagnostic::error(
                                    s.span,
                                    Code::E0006,
                                    format!("duplicate `case` value {v}"),
                                )
                                .with_label(prev, "previous `case` here"),
                            );
                        } else {
                            ctx.case_spans.insert(v, s.span);
                            ctx.cases.push((v, label, s.span));
                        }
                    }
                    out.push(Stmt {
                        kind: StmtKind::Label(label),
                        span: s.span,
                    });
                }
                ast::StmtKind::Default => {
                    let ctx = self.func.switches.last_mut().expect("pushed above");
                    let label = ctx.labels;
                    ctx.labels += 1;
                    if let Some((_, prev)) = ctx.default {
                        self.diags.push(
                            Diagnostic::error(
                                s.span,
                                Code::E0006,
                                "multiple `default` labels in one `switch`",
                            )
                            .with_label(prev, "previous `default` here"),
                        );
                    } else {
                        ctx.default = Some((label, s.span));
                    }
                    out.push(Stmt {
                        kind: StmtKind::Label(label),
                        span: s.span,
                    });
                }
                _ => {
                    let st = self.stmt(s);
                    out.push(st);
                }
            }
        }
        out.extend(self.scope_end(body.span));
        self.func.scopes.pop();
        self.func.break_scopes.pop();
        self.func.break_depth -= 1;
        let ctx = self.func.switches.pop().expect("pushed above");
        let Some(cond) = c else {
            return StmtKind::Empty;
        };
        StmtKind::Switch {
            cond,
            cases: ctx.cases.iter().map(|c| (c.0, c.1)).collect(),
            default: ctx.default.map(|d| d.0),
            body: Block {
                stmts: out,
                span: body.span,
            },
        }
    }
}

/// Appends every scalar leaf of `ty` at `off`: the initialized ones from
/// `given`, zeros for the rest.
pub(super) fn zero_fill(
    ty: &CType,
    off: u64,
    given: &mut BTreeMap<u64, Expr>,
    out: &mut Vec<(u64, Expr)>,
    span: Span,
) {
    match ty {
        CType::Array { elem, len: Some(n) } => {
            let esize = elem.size().unwrap_or(0);
            for k in 0..*n {
                zero_fill(elem, off + k * esize, given, out, span);
            }
        }
        CType::Struct(def) => {
            if given.get(&off).is_some_and(|e| e.ty == *ty) {
                if let Some(e) = given.remove(&off) {
                    out.push((off, e));
                }
                return;
            }
            if def.has_bit_fields() {
                super::bit_fields::zero_fill_units(def, off, given, out, span);
                return;
            }
            // A union's list initializes its first member only.
            let members = if def.is_union { 1 } else { def.fields.len() };
            for f in def.fields.iter().take(members) {
                zero_fill(&f.ty, off + f.offset, given, out, span);
            }
        }
        _ => {
            let zero = |kind, ty: CType| Expr { kind, ty, span };
            let e = given.remove(&off).unwrap_or_else(|| match ty {
                CType::Float { .. } => zero(ExprKind::FloatConst(0.0), ty.clone()),
                CType::Pointer { .. } => zero(
                    ExprKind::Cast {
                        kind: CastKind::IntToPtr,
                        expr: Box::new(zero(ExprKind::IntConst(0), CType::LONG)),
                    },
                    ty.clone(),
                ),
                _ => zero(ExprKind::IntConst(0), ty.clone()),
            });
            out.push((off, e));
        }
    }
}
