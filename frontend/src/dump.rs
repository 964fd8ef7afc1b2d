//! `--emit ast`: an indented, human-readable rendering of the syntax tree.
//!
//! One node per line, children indented by two spaces, so a student can see
//! how precedence grouped an expression.

use crate::ast::{
    Block, EnumDecl, Expr, ExprKind, FunctionDecl, Init, Item, QualType, StaticAssert, Stmt,
    StmtKind, TranslationUnit, VarDecl,
};

/// Renders the whole translation unit.
pub fn dump_ast(tu: &TranslationUnit) -> String {
    let mut d = Dumper { out: String::new() };
    for item in &tu.items {
        match item {
            Item::Function(f) => d.function(f),
            Item::Var(v) => d.var(v, 0),
            Item::Enum(e) => d.enum_decl(e, 0),
            Item::StaticAssert(sa) => d.static_assert(sa, 0),
        }
    }
    d.out
}

/// Renders a single expression (used by tests and diagnostics).
pub fn dump_expr(e: &Expr) -> String {
    let mut d = Dumper { out: String::new() };
    d.expr(e, 0);
    d.out
}

struct Dumper {
    out: String,
}

/// Object qualifiers go before a plain type (`const int`) but after a
/// pointer (`float *const`), so the dump never suggests the wrong meaning.
fn qual(t: &QualType) -> String {
    let mut q = String::new();
    if t.is_const {
        q.push_str("const ");
    }
    if t.is_volatile {
        q.push_str("volatile ");
    }
    if t.ty.is_pointer() && !q.is_empty() {
        format!("{} {}", t.ty, q.trim_end())
    } else {
        format!("{q}{}", t.ty)
    }
}

impl Dumper {
    /// An `if` (`If`) or `if constexpr` (`IfConstexpr`) and its arms.
    fn if_stmt(
        &mut self,
        label: &str,
        cond: &Expr,
        then: &Stmt,
        els: &Option<Box<Stmt>>,
        depth: usize,
    ) {
        self.line(depth, label);
        self.expr(cond, depth + 1);
        self.stmt(then, depth + 1);
        if let Some(e) = els {
            self.line(depth, "Else");
            self.stmt(e, depth + 1);
        }
    }

    fn line(&mut self, depth: usize, text: &str) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn function(&mut self, f: &FunctionDecl) {
        let s = &f.specs;
        let mut flags = String::new();
        for (on, name) in [
            (s.extern_c, "extern \"C\""),
            (s.is_static, "static"),
            (s.inline, "inline"),
            (s.forceinline, "__forceinline__"),
            (s.noinline, "__noinline__"),
            (s.global, "__global__"),
            (s.device, "__device__"),
            (s.host, "__host__"),
        ] {
            if on {
                flags.push(' ');
                flags.push_str(name);
            }
        }
        let kind = if f.body.is_some() {
            "Function"
        } else {
            "Prototype"
        };
        self.line(0, &format!("{kind} {} -> {}{flags}", f.name, f.ret));
        for p in &f.params {
            let name = p.name.as_deref().unwrap_or("<unnamed>");
            let r = if p.by_ref.is_some() { " &" } else { "" };
            self.line(1, &format!("Param {name}: {}{r}", qual(&p.ty)));
        }
        if let Some(b) = &f.body {
            self.block(b, 1);
        }
    }

    fn var(&mut self, v: &VarDecl, depth: usize) {
        let st = &v.storage;
        let mut flags = String::new();
        for (on, name) in [
            (st.is_extern, " extern"),
            (st.is_static, " static"),
            (st.shared, " __shared__"),
            (st.constant, " __constant__"),
            (st.device, " __device__"),
            (st.constexpr.is_some(), " constexpr"),
            (v.by_ref.is_some(), " &"),
            (v.direct_braces, " {init}"),
        ] {
            if on {
                flags.push_str(name);
            }
        }
        let dims: String = v
            .dims
            .iter()
            .map(|d| if d.is_some() { "[N]" } else { "[]" })
            .collect();
        let ty = if v.auto.is_some() {
            let mut q = String::new();
            if v.ty.is_const {
                q.push_str("const ");
            }
            if v.ty.ty.is_pointer() {
                q.push_str("auto *");
            } else {
                q.push_str("auto");
            }
            q
        } else {
            qual(&v.ty)
        };
        self.line(depth, &format!("Decl {}: {ty}{dims}{flags}", v.name));
        for d in v.dims.iter().flatten() {
            self.line(depth + 1, "ArraySize");
            self.expr(d, depth + 2);
        }
        if let Some(i) = &v.init {
            self.init(i, depth + 1);
        }
    }

    fn init(&mut self, i: &Init, depth: usize) {
        stdx::stack::with_stack(|| match i {
            Init::Expr(e) => self.expr(e, depth),
            Init::List(items, _) => {
                self.line(depth, "InitList");
                for i in items {
                    self.init(i, depth + 1);
                }
            }
        })
    }

    fn static_assert(&mut self, sa: &StaticAssert, depth: usize) {
        match &sa.message {
            Some(m) => self.line(depth, &format!("StaticAssert {m:?}")),
            None => self.line(depth, "StaticAssert"),
        }
        self.expr(&sa.cond, depth + 1);
    }

    fn enum_decl(&mut self, e: &EnumDecl, depth: usize) {
        self.line(depth, "Enum");
        for (name, value, _) in &e.enumerators {
            self.line(depth + 1, &format!("Enumerator {name}"));
            if let Some(v) = value {
                self.expr(v, depth + 2);
            }
        }
    }

    fn block(&mut self, b: &Block, depth: usize) {
        self.line(depth, "Block");
        for s in &b.stmts {
            self.stmt(s, depth + 1);
        }
    }

    fn stmt(&mut self, s: &Stmt, depth: usize) {
        stdx::stack::with_stack(|| self.stmt_level(s, depth))
    }

    fn stmt_level(&mut self, s: &Stmt, depth: usize) {
        match &s.kind {
            StmtKind::Expr(e) => {
                self.line(depth, "ExprStmt");
                self.expr(e, depth + 1);
            }
            StmtKind::Decl(vars) => {
                for v in vars {
                    self.var(v, depth);
                }
            }
            StmtKind::Switch { cond, body } => {
                self.line(depth, "Switch");
                self.expr(cond, depth + 1);
                self.stmt(body, depth + 1);
            }
            StmtKind::Case(v) => {
                self.line(depth, "Case");
                self.expr(v, depth + 1);
            }
            StmtKind::Default => self.line(depth, "Default"),
            StmtKind::Enum(e) => self.enum_decl(e, depth),
            StmtKind::StaticAssert(sa) => self.static_assert(sa, depth),
            StmtKind::Goto(l) => self.line(depth, &format!("Goto {l}")),
            StmtKind::Labeled { label, stmt, .. } => {
                self.line(depth, &format!("Label {label}"));
                self.stmt(stmt, depth + 1);
            }
            StmtKind::Bindings(b) => {
                self.line(depth, "Bindings");
                self.var(&b.object, depth + 1);
            }
            StmtKind::RangeFor { var, range, body } => {
                self.line(depth, "RangeFor");
                self.var(var, depth + 1);
                self.expr(range, depth + 1);
                self.stmt(body, depth + 1);
            }
            StmtKind::Unroll { count, stmt } => {
                self.line(depth, "PragmaUnroll");
                if let Some(c) = count {
                    self.expr(c, depth + 1);
                }
                self.stmt(stmt, depth + 1);
            }
            StmtKind::Block(b) => self.block(b, depth),
            StmtKind::If { cond, then, els } => self.if_stmt("If", cond, then, els, depth),
            StmtKind::ConstexprIf {
                cond, then, els, ..
            } => self.if_stmt("IfConstexpr", cond, then, els, depth),
            StmtKind::While { cond, body } => {
                self.line(depth, "While");
                self.expr(cond, depth + 1);
                self.stmt(body, depth + 1);
            }
            StmtKind::DoWhile { body, cond } => {
                self.line(depth, "DoWhile");
                self.stmt(body, depth + 1);
                self.expr(cond, depth + 1);
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.line(depth, "For");
                match init {
                    Some(i) => self.stmt(i, depth + 1),
                    None => self.line(depth + 1, "<no init>"),
                }
                match cond {
                    Some(c) => self.expr(c, depth + 1),
                    None => self.line(depth + 1, "<no condition>"),
                }
                match step {
                    Some(c) => self.expr(c, depth + 1),
                    None => self.line(depth + 1, "<no step>"),
                }
                self.stmt(body, depth + 1);
            }
            StmtKind::Break => self.line(depth, "Break"),
            StmtKind::Continue => self.line(depth, "Continue"),
            StmtKind::Return(v) => {
                self.line(depth, "Return");
                if let Some(v) = v {
                    self.expr(v, depth + 1);
                }
            }
            StmtKind::Empty => self.line(depth, "Empty"),
            StmtKind::Asm(a) => {
                let v = if a.volatile { " volatile" } else { "" };
                self.line(depth, &format!("Asm{v} {:?}", a.template));
                for op in a.outputs.iter().chain(&a.inputs) {
                    self.line(depth + 1, &format!("Operand {:?}", op.constraint));
                    self.expr(&op.expr, depth + 2);
                }
            }
        }
    }

    fn expr(&mut self, e: &Expr, depth: usize) {
        stdx::stack::with_stack(|| self.expr_level(e, depth))
    }

    fn expr_level(&mut self, e: &Expr, depth: usize) {
        let d = depth + 1;
        match &e.kind {
            ExprKind::Ident(n) => self.line(depth, &format!("Ident {n}")),
            ExprKind::IntLit { value, ty, .. } => {
                self.line(depth, &format!("IntLit {value} ({ty})"))
            }
            ExprKind::FloatLit { value, ty } => {
                self.line(depth, &format!("FloatLit {value:?} ({ty})"))
            }
            ExprKind::CharLit(v) => self.line(depth, &format!("CharLit {v}")),
            ExprKind::StrLit(bytes) => self.line(
                depth,
                &format!("StrLit {:?}", String::from_utf8_lossy(bytes)),
            ),
            ExprKind::BoolLit(v) => self.line(depth, &format!("BoolLit {v}")),
            ExprKind::Unary { op, operand } => {
                self.line(depth, &format!("Unary {}", op.as_str()));
                self.expr(operand, d);
            }
            ExprKind::IncDec {
                inc,
                prefix,
                operand,
            } => {
                let op = if *inc { "++" } else { "--" };
                let fix = if *prefix { "Pre" } else { "Post" };
                self.line(depth, &format!("{fix}IncDec {op}"));
                self.expr(operand, d);
            }
            ExprKind::Binary { op, lhs, rhs } => {
                self.line(depth, &format!("Binary {}", op.as_str()));
                self.expr(lhs, d);
                self.expr(rhs, d);
            }
            ExprKind::Assign { op, lhs, rhs } => {
                let op = op.map_or(String::new(), |o| o.as_str().to_string());
                self.line(depth, &format!("Assign {op}="));
                self.expr(lhs, d);
                self.expr(rhs, d);
            }
            ExprKind::Ternary { cond, then, els } => {
                self.line(depth, "Ternary");
                self.expr(cond, d);
                self.expr(then, d);
                self.expr(els, d);
            }
            ExprKind::Cast { ty, expr } => {
                self.line(depth, &format!("Cast to {}", qual(ty)));
                self.expr(expr, d);
            }
            ExprKind::NamedCast { kind, ty, expr } => {
                self.line(depth, &format!("{} to {}", kind.as_str(), qual(ty)));
                self.expr(expr, d);
            }
            ExprKind::ZeroInit(t) => self.line(depth, &format!("ZeroInit {}", qual(t))),
            ExprKind::BracedList(items) => {
                self.line(depth, "BracedList");
                for item in items {
                    self.expr(item, depth + 1);
                }
            }
            ExprKind::Construct { ty, args } => {
                self.line(depth, &format!("Construct {}", qual(ty)));
                for a in args {
                    self.expr(a, d);
                }
            }
            ExprKind::Nullptr => self.line(depth, "Nullptr"),
            ExprKind::SizeofType(t) => self.line(depth, &format!("SizeofType {}", qual(t))),
            ExprKind::SizeofExpr(x) => {
                self.line(depth, "SizeofExpr");
                self.expr(x, d);
            }
            ExprKind::Index { base, index } => {
                self.line(depth, "Index");
                self.expr(base, d);
                self.expr(index, d);
            }
            ExprKind::Call { callee, args } => {
                self.line(depth, "Call");
                self.expr(callee, d);
                for a in args {
                    self.expr(a, d);
                }
            }
            ExprKind::TemplateId { name, args } => {
                self.line(depth, &format!("TemplateId {name}"));
                for a in args {
                    match a {
                        crate::templates::TemplateArg::Type(t) => {
                            self.line(d, &format!("Type {}", qual(t)))
                        }
                        crate::templates::TemplateArg::Value(e) => self.expr(e, d),
                        crate::templates::TemplateArg::Decltype(e) => {
                            self.line(d, "Decltype");
                            self.expr(e, d + 1);
                        }
                        crate::templates::TemplateArg::Template(key, _) => {
                            self.line(d, &format!("Template {key}"))
                        }
                    }
                }
            }
            ExprKind::Member {
                base, field, arrow, ..
            } => {
                let op = if *arrow { "->" } else { "." };
                self.line(depth, &format!("Member {op}{field}"));
                self.expr(base, d);
            }
            ExprKind::Lambda(l) => self.lambda(l, depth),
        }
    }

    /// A lambda: its captures, then its call operator's tokens as written.
    fn lambda(&mut self, l: &crate::ast::Lambda, depth: usize) {
        let default = match l.default {
            Some(crate::ast::CaptureDefault::Copy) => " [=]",
            Some(crate::ast::CaptureDefault::Ref) => " [&]",
            None => "",
        };
        let mutable = if l.mutable { " mutable" } else { "" };
        self.line(depth, &format!("Lambda{default}{mutable}"));
        for c in &l.captures {
            let how = if c.by_ref { "&" } else { "" };
            self.line(depth + 1, &format!("Capture {how}{}", c.name));
            self.expr(&c.init, depth + 2);
        }
        let words: Vec<&str> = l.tokens.iter().map(|t| t.text.as_str()).collect();
        self.line(depth + 1, &format!("Operator {}", words.join(" ")));
    }
}
