//! The Itanium C++ ABI names of functions (nvcc's names of kernels and
//! device functions outside `extern "C"`) made readable, for every tool
//! that shows a PTX name to a person: `_Z9vectorAddPKfS0_Pfi` is
//! `vectorAdd(const float*, const float*, float*, int)`.
//!
//! It reads the names of functions at namespace scope, in the global
//! namespace or nested ones (`_ZN3sim4stepEPNS_8ParticleE` is
//! `sim::step(sim::Particle*)`), whose parameters are builtin types,
//! pointers, references, arrays, named classes and enumerations (nested
//! names too), with qualifiers and substitutions (Itanium C++ ABI 5.1.2,
//! 5.1.3, 5.1.5, 5.1.8): what the frontend's mangler (`frontend::mangle`)
//! makes, and nvcc's names of the same shape, function template instances
//! among them (5.1.5 `J ... E` argument packs, and `Dp` pack expansions
//! in the parameters, read as the types they expand to). Other names are
//! left as they are. It lives here, not in the frontend, because
//! `ptx-validate` and `ptx-emu` show nvcc's names too and never import the
//! compiler.

/// CV-qualifiers of a demangled type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Cv {
    restrict: bool,
    volatile: bool,
    konst: bool,
}

/// `<substitution>` for the `n`-th candidate (from 0): `S_`, `S0_`, ...,
/// `S9_`, `SA_`, ..., `SZ_`, `S10_` (the `<seq-id>` is base 36, digits
/// then capital letters, of `n - 1`).
pub fn substitution(n: usize) -> String {
    match n {
        0 => "S_".to_string(),
        n => format!("S{}_", base36(n - 1)),
    }
}

/// `n` in base 36, digits then capital letters.
fn base36(mut n: usize) -> String {
    const DIGITS: &[u8; 36] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut s = Vec::new();
    loop {
        s.push(DIGITS[n % 36]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

/// The readable form of a name this module makes (and of nvcc's names of
/// the same shape): `_Z9vectorAddPKfS0_Pfi` is
/// `vectorAdd(const float*, const float*, float*, int)`. `None` for a name
/// that is not a mangled function name of that shape (an `extern "C"`
/// name is already readable).
pub fn demangle(name: &str) -> Option<String> {
    let rest = name.strip_prefix("_Z")?;
    let mut d = Demangler {
        text: rest.as_bytes(),
        pos: 0,
        candidates: Vec::new(),
        template_args: Vec::new(),
    };
    let mut fname = d.function_name()?;
    if d.peek() == Some(b'I') {
        // A template's instance: the name is a candidate, then its
        // arguments, then (5.1.2) the return type, which is not shown.
        d.candidates.push(Demangled::Named(fname.clone()));
        let args = d.template_args()?;
        // A `T_` read before the arguments were known (in a closure
        // type's signature) stands for its argument from here on.
        for c in &mut d.candidates {
            if let Demangled::Param(n) = c {
                *c = args.get(*n)?.clone();
            }
        }
        let shown: Vec<String> = args
            .iter()
            .map(|a| a.to_string())
            .filter(|a| !a.is_empty())
            .collect();
        fname = format!("{fname}<{}>", shown.join(", "));
        d.template_args = args;
        d.ty()?;
    }
    let mut params = Vec::new();
    while d.pos < d.text.len() {
        params.push(d.ty()?);
    }
    let params = match params.as_slice() {
        [] => return None,
        [Demangled::Builtin("void")] => String::new(),
        // An empty pack's expansion shows nothing.
        _ => params
            .iter()
            .map(|p| p.to_string())
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join(", "),
    };
    Some(format!("{fname}({params})"))
}

/// The readable form of any PTX function name: [`demangle`]'s, or the
/// name itself. A mangled name with a suffix after `__` (kernelc's clones
/// of a function for the memory spaces of its pointers, `_Z4bumpPi__local`)
/// keeps the suffix: `bump(int*)__local`.
pub fn readable(name: &str) -> String {
    if let Some(r) = demangle(name) {
        return r;
    }
    name.rfind("__")
        .and_then(|i| Some(format!("{}{}", demangle(&name[..i])?, &name[i..])))
        .unwrap_or_else(|| name.to_string())
}

/// `text` with every mangled function name in it (an identifier that
/// starts with `_Z`) in its [`readable`] form: the messages and notes of
/// the optimizer, which name functions as the PTX does.
pub fn readable_text(text: &str) -> String {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("_Z") {
        let starts_word = !rest[..i].ends_with(is_ident);
        let end = rest[i..]
            .find(|c: char| !is_ident(c))
            .map_or(rest.len(), |e| i + e);
        out.push_str(&rest[..i]);
        let word = &rest[i..end];
        match starts_word {
            true => out.push_str(&readable(word)),
            false => out.push_str(word),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The plain name of a function: `vectorAdd` for `_Z9vectorAddPKfS0_Pfi`,
/// the name itself when it is not mangled.
pub fn plain_name(name: &str) -> &str {
    name.strip_prefix("_Z")
        .and_then(|rest| {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let len: usize = rest[..digits].parse().ok()?;
            rest.get(digits..digits + len)
        })
        .unwrap_or(name)
}

/// What a kernel name a person gives (`kernelc run --kernel NAME`, an
/// engine's caller) names among a module's kernels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelLookup<'a> {
    /// The kernel of this PTX name.
    Found(&'a str),
    /// No kernel has that name, mangled or plain.
    Missing,
    /// Several kernels have that plain name (nvcc's overloads): their
    /// PTX names.
    Ambiguous(Vec<&'a str>),
}

/// Finds `requested` among `kernels` (PTX names): the kernel of that very
/// name, else the one kernel whose [`plain_name`] it is (`vectorAdd` for
/// `_Z9vectorAddPKfS0_Pfi`) or whose [`readable`] form it is, whole or
/// without the parameters (`blockSum<float, 128u>` for
/// `_Z8blockSumIfLj128EEvPKT_PS0_j`, a template's instance).
pub fn lookup_kernel<'a>(requested: &str, kernels: &[&'a str]) -> KernelLookup<'a> {
    if let Some(k) = kernels.iter().find(|k| **k == requested) {
        return KernelLookup::Found(k);
    }
    let readable_is = |k: &str| {
        let r = readable(k);
        r == requested
            || r.strip_prefix(requested)
                .is_some_and(|params| params.starts_with('('))
    };
    let named: Vec<&'a str> = kernels
        .iter()
        .copied()
        .filter(|k| plain_name(k) == requested || readable_is(k) || names_qualified(k, requested))
        .collect();
    match named.as_slice() {
        [] => KernelLookup::Missing,
        [one] => KernelLookup::Found(one),
        _ => KernelLookup::Ambiguous(named),
    }
}

/// Whether `requested` is the qualified name of the function `kernel`
/// (`sim::step` for `_ZN3sim4stepEPf`) or its last component (`step`).
fn names_qualified(kernel: &str, requested: &str) -> bool {
    let Some(readable) = demangle(kernel) else {
        return false;
    };
    // The parameters start at the first `(` that does not open an
    // `(anonymous namespace)`.
    const ANONYMOUS: &str = "(anonymous namespace)";
    let mut from = 0;
    let end = loop {
        match readable[from..].find('(') {
            Some(p) if readable[from + p..].starts_with(ANONYMOUS) => {
                from += p + ANONYMOUS.len();
            }
            Some(p) => break from + p,
            None => break readable.len(),
        }
    };
    let name = &readable[..end];
    name.contains("::")
        && (name == requested.trim_start_matches("::")
            || name.rsplit("::").next() == Some(requested))
}

/// The message for a plain name that several kernels have: each with its
/// readable form, and what to do.
pub fn ambiguity(requested: &str, kernels: &[&str]) -> String {
    let list: Vec<String> = kernels
        .iter()
        .map(|k| format!("`{k}` ({})", readable(k)))
        .collect();
    format!(
        "`{requested}` names {} kernels: {}; give the full name",
        kernels.len(),
        list.join(", ")
    )
}

/// A demangled type.
#[derive(Clone, Debug)]
enum Demangled {
    Builtin(&'static str),
    Named(String),
    Qualified(Cv, Box<Demangled>),
    Pointer(Box<Demangled>),
    Reference(Box<Demangled>),
    Array(u64, Box<Demangled>),
    /// `T_`, `T0_`, ... before the template arguments it names are known:
    /// in a closure type's signature, an `auto` parameter (and a
    /// substitution candidate that stands for the argument once known).
    Param(usize),
    /// An argument pack, or the types a pack expansion expands to: its
    /// elements, shown as a list.
    Pack(Vec<Demangled>),
}

impl std::fmt::Display for Demangled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Demangled::Builtin(b) => f.write_str(b),
            Demangled::Named(n) => f.write_str(n),
            Demangled::Qualified(q, inner) => {
                let words = [(q.konst, "const"), (q.volatile, "volatile")];
                let words: Vec<&str> = words.iter().filter(|w| w.0).map(|w| w.1).collect();
                let mut words = words.join(" ");
                if q.restrict {
                    words = format!("{words} __restrict__").trim().to_string();
                }
                match **inner {
                    // `float* const`: a pointer's own qualifiers follow it.
                    Demangled::Pointer(_) => write!(f, "{inner} {words}"),
                    _ => write!(f, "{words} {inner}"),
                }
            }
            Demangled::Pointer(inner) => match &**inner {
                Demangled::Array(..) => {
                    let (elem, dims) = inner.array_parts();
                    write!(f, "{elem} (*){dims}")
                }
                _ => write!(f, "{inner}*"),
            },
            Demangled::Reference(inner) => write!(f, "{inner}&"),
            Demangled::Param(_) => f.write_str("auto"),
            Demangled::Array(..) => {
                let (elem, dims) = self.array_parts();
                write!(f, "{elem} {dims}")
            }
            Demangled::Pack(elems) => {
                let shown: Vec<String> = elems.iter().map(|e| e.to_string()).collect();
                f.write_str(&shown.join(", "))
            }
        }
    }
}

impl Demangled {
    /// A pack expansion's types (5.1.5 `Dp <type>`): the pattern once per
    /// element of the pack it names (`PKT_` with `T_` the pack `float,
    /// int` is `const float*, const int*`).
    fn expansion(&self) -> Vec<Demangled> {
        let wrap = |inner: &Demangled, make: &dyn Fn(Demangled) -> Demangled| {
            inner.expansion().into_iter().map(make).collect()
        };
        match self {
            Demangled::Pack(elems) => elems.clone(),
            Demangled::Qualified(q, inner) => {
                wrap(inner, &|e| Demangled::Qualified(*q, Box::new(e)))
            }
            Demangled::Pointer(inner) => wrap(inner, &|e| Demangled::Pointer(Box::new(e))),
            Demangled::Reference(inner) => wrap(inner, &|e| Demangled::Reference(Box::new(e))),
            Demangled::Array(n, inner) => wrap(inner, &|e| Demangled::Array(*n, Box::new(e))),
            other => vec![other.clone()],
        }
    }

    /// An array's innermost element and its dimensions (`[4][5]`).
    fn array_parts(&self) -> (&Demangled, String) {
        let mut dims = String::new();
        let mut t = self;
        while let Demangled::Array(n, elem) = t {
            dims.push_str(&format!("[{n}]"));
            t = elem;
        }
        (t, dims)
    }
}

/// A reader of the parameter types of a mangled name.
struct Demangler<'a> {
    text: &'a [u8],
    pos: usize,
    candidates: Vec<Demangled>,
    /// A template instance's arguments, which `T_`, `T0_`, ... name.
    template_args: Vec<Demangled>,
}

impl Demangler<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn number(&mut self) -> Option<u64> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        std::str::from_utf8(&self.text[start..self.pos])
            .ok()?
            .parse()
            .ok()
    }

    fn source_name(&mut self) -> Option<String> {
        let len = usize::try_from(self.number()?).ok()?;
        let end = self.pos.checked_add(len)?;
        let name = std::str::from_utf8(self.text.get(self.pos..end)?).ok()?;
        self.pos = end;
        Some(name.to_string())
    }

    /// `I <template-arg>+ E`: types, and literals (5.1.6 `L <type>
    /// <value> E`) written as C++ writes them (`256u`, `true`, `-1l`).
    fn template_args(&mut self) -> Option<Vec<Demangled>> {
        self.pos += 1;
        let mut args = Vec::new();
        while self.peek()? != b'E' {
            if self.peek() == Some(b'J') {
                // An argument pack: its arguments, through its `E`.
                args.push(Demangled::Pack(self.template_args()?));
            } else if self.peek() == Some(b'L') {
                self.pos += 1;
                let ty = self.ty()?;
                let negative = self.peek() == Some(b'n');
                if negative {
                    self.pos += 1;
                }
                let value = self.number()?;
                if self.peek() != Some(b'E') {
                    return None;
                }
                self.pos += 1;
                args.push(Demangled::Named(literal(&ty, negative, value)));
            } else {
                args.push(self.ty()?);
            }
        }
        self.pos += 1;
        Some(args)
    }

    /// A function's name: a `<source-name>`, or a `<nested-name>` whose
    /// prefixes become candidates (the function itself does not).
    fn function_name(&mut self) -> Option<String> {
        if self.peek() == Some(b'N') {
            self.pos += 1;
            return self.nested();
        }
        self.source_name()
    }

    /// After `N`: `<prefix> <unqualified-name> E` (5.1.3), read as
    /// `a::b::c`; each proper prefix is a substitution candidate, and a
    /// substitution may stand for the leading ones.
    fn nested(&mut self) -> Option<String> {
        let mut parts: Vec<String> = Vec::new();
        loop {
            match self.peek()? {
                b'E' => {
                    self.pos += 1;
                    break;
                }
                b'S' => {
                    let prefix = self.substitution()?;
                    parts = vec![prefix.to_string()];
                    continue;
                }
                b'0'..=b'9' => {
                    let name = self.source_name()?;
                    // `_GLOBAL__N_1`, or nvcc's `_GLOBAL__N__<hash>_<file>`.
                    parts.push(match name.starts_with("_GLOBAL__N") {
                        true => "(anonymous namespace)".to_string(),
                        false => name,
                    });
                }
                _ => return None,
            }
            if self.peek() != Some(b'E') {
                self.candidates.push(Demangled::Named(parts.join("::")));
            }
        }
        (!parts.is_empty()).then(|| parts.join("::"))
    }

    /// `S_`, `S0_`, ...: the candidate it names (not a new candidate).
    fn substitution(&mut self) -> Option<Demangled> {
        self.pos += 1;
        let (mut n, mut digits) = (0usize, 0);
        while let Some(d) = self.peek().filter(|&d| d != b'_') {
            let v = (d as char).to_digit(36)? as usize;
            n = n.checked_mul(36)?.checked_add(v)?;
            digits += 1;
            self.pos += 1;
        }
        self.peek()?;
        self.pos += 1;
        let index = if digits == 0 { 0 } else { n + 1 };
        self.candidates.get(index).cloned()
    }

    fn ty(&mut self) -> Option<Demangled> {
        let c = self.peek()?;
        let builtin = BUILTINS.iter().find(|b| b.0 == c).map(|b| b.1);
        if let Some(b) = builtin {
            self.pos += 1;
            return Some(Demangled::Builtin(b));
        }
        let t = match c {
            // A substitution is not a new candidate.
            b'S' => return self.substitution(),
            b'r' | b'V' | b'K' => {
                let mut q = Cv::default();
                while let Some(c) = self.peek() {
                    match c {
                        b'r' => q.restrict = true,
                        b'V' => q.volatile = true,
                        b'K' => q.konst = true,
                        _ => break,
                    }
                    self.pos += 1;
                }
                Demangled::Qualified(q, Box::new(self.ty()?))
            }
            b'P' => {
                self.pos += 1;
                Demangled::Pointer(Box::new(self.ty()?))
            }
            b'R' => {
                self.pos += 1;
                Demangled::Reference(Box::new(self.ty()?))
            }
            b'A' => {
                self.pos += 1;
                let n = self.number()?;
                if self.peek() != Some(b'_') {
                    return None;
                }
                self.pos += 1;
                Demangled::Array(n, Box::new(self.ty()?))
            }
            b'0'..=b'9' => Demangled::Named(self.source_name()?),
            b'T' => {
                // `T_` is the first template argument, `T<n>_` the n+2th.
                self.pos += 1;
                let n = match self.peek()? {
                    b'_' => 0,
                    _ => usize::try_from(self.number()?).ok()? + 1,
                };
                if self.peek() != Some(b'_') {
                    return None;
                }
                self.pos += 1;
                match self.template_args.get(n) {
                    Some(arg) => arg.clone(),
                    None if self.template_args.is_empty() => Demangled::Param(n),
                    None => return None,
                }
            }
            b'N' => {
                self.pos += 1;
                Demangled::Named(self.nested()?)
            }
            b'Z' => {
                self.pos += 1;
                Demangled::Named(self.closure()?)
            }
            b'D' if self.text.get(self.pos + 1) == Some(&b'p') => {
                self.pos += 2;
                Demangled::Pack(self.ty()?.expansion())
            }
            _ => return None,
        };
        self.candidates.push(t.clone());
        Some(t)
    }

    /// After `Z`: a lambda's closure type (5.1.2 `<local-name>`, 5.1.8
    /// `<closure-type-name>`): the function it is in, whose parameter
    /// types end at `E` (a template's instance is not read), then `Ul`,
    /// the call operator's parameter types (`T_` an `auto` one, which as a
    /// substitution candidate is the instance's template argument), `E` and
    /// its number: `main::{lambda(float)#2}`, as c++filt writes it.
    fn closure(&mut self) -> Option<String> {
        let function = self.function_name()?;
        while self.peek()? != b'E' {
            self.ty()?;
        }
        self.pos += 1;
        if self.text.get(self.pos..self.pos + 2)? != b"Ul" {
            return None;
        }
        self.pos += 2;
        // The signature's `T_` are `auto` parameters (`Param`), read with
        // no template arguments known.
        let outer = std::mem::take(&mut self.template_args);
        let mut params = Vec::new();
        while self.peek() != Some(b'E') {
            match self.ty() {
                Some(t) => params.push(t),
                None => {
                    self.template_args = outer;
                    return None;
                }
            }
        }
        self.template_args = outer;
        self.pos += 1;
        let n = match self.peek()? {
            b'_' => 1,
            _ => self.number()?.checked_add(2)?,
        };
        if self.peek() != Some(b'_') {
            return None;
        }
        self.pos += 1;
        let shown: Vec<String> = match params.as_slice() {
            [Demangled::Builtin("void")] => Vec::new(),
            _ => params.iter().map(|p| p.to_string()).collect(),
        };
        Some(format!("{function}::{{lambda({})#{n}}}", shown.join(", ")))
    }
}

/// A template argument's value as C++ writes it: `16`, `256u`, `-1l`,
/// `8ul`, `true`, `(char)120`.
fn literal(ty: &Demangled, negative: bool, value: u64) -> String {
    let sign = if negative { "-" } else { "" };
    let name = ty.to_string();
    let suffix = match name.as_str() {
        "bool" => return (value != 0).to_string(),
        "int" => "",
        "unsigned int" => "u",
        "long" => "l",
        "unsigned long" => "ul",
        "long long" => "ll",
        "unsigned long long" => "ull",
        _ => return format!("({name}){sign}{value}"),
    };
    format!("{sign}{value}{suffix}")
}

/// The builtin types' codes and C++ names (5.1.5).
const BUILTINS: [(u8, &str); 15] = [
    (b'v', "void"),
    (b'b', "bool"),
    (b'c', "char"),
    (b'a', "signed char"),
    (b'h', "unsigned char"),
    (b's', "short"),
    (b't', "unsigned short"),
    (b'i', "int"),
    (b'j', "unsigned int"),
    (b'l', "long"),
    (b'm', "unsigned long"),
    (b'x', "long long"),
    (b'y', "unsigned long long"),
    (b'f', "float"),
    (b'd', "double"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_forms() {
        let cases = [
            ("_Z9vectorAddPKfS0_Pfi", "vectorAdd(const float*, const float*, float*, int)"),
            ("_Z2k7v", "k7()"),
            ("_Z2k1PfPKfPViPVKiS_", "k1(float*, const float*, volatile int*, const volatile int*, float*)"),
            ("_Z2k5PPfS0_PPKfPKS_RiRKiR1P", "k5(float**, float**, const float**, float* const*, int&, const int&, P&)"),
            ("_Z2k46float4PS_1PPS1_1EPS3_xPxPiPA4_f", "k4(float4, float4*, P, P*, E, E*, long long, long long*, int*, float (*)[4])"),
            ("_ZN3sim13kineticEnergyEPKNS_8ParticleEiPf", "sim::kineticEnergy(const sim::Particle*, int, float*)"),
            ("_ZN3sim2k2EPNS_1d1VES1_PNS_8ParticleE", "sim::k2(sim::d::V*, sim::d::V, sim::Particle*)"),
            ("_ZN1a1b2abEPN3sim8ParticleES3_", "a::b::ab(sim::Particle*, sim::Particle*)"),
            ("_Z2e22E2N3sim10ActivationEPi", "e2(E2, sim::Activation, int*)"),
            ("_ZN12_GLOBAL__N_14anonEPf", "(anonymous namespace)::anon(float*)"),
            ("_ZN1a36_GLOBAL__N__ef807801_4_a_cu_b7b01a5d5anon2EPf", "a::(anonymous namespace)::anon2(float*)"),
            ("_Z2k2cahstijlmxyfdb", "k2(char, signed char, unsigned char, short, unsigned short, int, unsigned int, long, unsigned long, long long, unsigned long long, float, double, bool)"),
        ];
        for (mangled, readable) in cases {
            assert_eq!(demangle(mangled).as_deref(), Some(readable), "{mangled}");
        }
        // Kernel templates instantiated for lambdas' closure types (nvcc's
        // names for extended lambdas).
        let closures = [
            ("_Z4fillIZ4mainEUliE_EvPfiT_", "fill<main::{lambda(int)#1}>(float*, int, main::{lambda(int)#1})"),
            ("_Z3mapIfZ4mainEUlfE2_EvPKT_PS1_iT0_", "map<float, main::{lambda(float)#4}>(const float*, float*, int, main::{lambda(float)#4})"),
            ("_Z4fillIZ6helperPfiEUliE_EvS0_iT_", "fill<helper::{lambda(int)#1}>(float*, int, helper::{lambda(int)#1})"),
            ("_Z7composeIZ4mainEUlT_E_Z4mainEUliE_EvPfiS0_T0_", "compose<main::{lambda(auto)#1}, main::{lambda(int)#1}>(float*, int, main::{lambda(auto)#1}, main::{lambda(int)#1})"),
            ("_Z1kIZ4mainEUlvE_EvPfT_", "k<main::{lambda()#1}>(float*, main::{lambda()#1})"),
        ];
        for (mangled, readable) in closures {
            assert_eq!(demangle(mangled).as_deref(), Some(readable), "{mangled}");
        }
        assert_eq!(plain_name("_Z9vectorAddPKfS0_Pfi"), "vectorAdd");
        assert_eq!(readable("_Z2k7v"), "k7()");
        assert_eq!(readable("vadd"), "vadd");
        assert_eq!(readable("_Z4bumpPi__local"), "bump(int*)__local");
        assert_eq!(
            readable_text("in `_Z4bumpPi`, called from x_Z1kv and `_Z9vectorAddPfi_param_0`"),
            "in `bump(int*)`, called from x_Z1kv and `_Z9vectorAddPfi_param_0`"
        );
    }

    #[test]
    fn kernels_by_plain_name() {
        let kernels = ["_Z5scalePfi", "_Z5scalePdi", "_Z3addPf", "vadd"];
        assert_eq!(
            lookup_kernel("_Z5scalePdi", &kernels),
            KernelLookup::Found("_Z5scalePdi")
        );
        assert_eq!(
            lookup_kernel("add", &kernels),
            KernelLookup::Found("_Z3addPf")
        );
        assert_eq!(lookup_kernel("vadd", &kernels), KernelLookup::Found("vadd"));
        let nested = ["_ZN3sim4stepEPf", "_ZN3gfx4stepEPf", "_ZN3sim4initEPf"];
        assert_eq!(
            lookup_kernel("sim::step", &nested),
            KernelLookup::Found("_ZN3sim4stepEPf")
        );
        assert_eq!(
            lookup_kernel("init", &nested),
            KernelLookup::Found("_ZN3sim4initEPf")
        );
        let anonymous = ["_ZN12_GLOBAL__N_14stepEPf", "_ZN1a12_GLOBAL__N_14initEPf"];
        assert_eq!(
            lookup_kernel("step", &anonymous),
            KernelLookup::Found("_ZN12_GLOBAL__N_14stepEPf")
        );
        assert_eq!(
            lookup_kernel("a::(anonymous namespace)::init", &anonymous),
            KernelLookup::Found("_ZN1a12_GLOBAL__N_14initEPf")
        );
        assert_eq!(
            lookup_kernel("step", &nested),
            KernelLookup::Ambiguous(vec!["_ZN3sim4stepEPf", "_ZN3gfx4stepEPf"])
        );
        assert_eq!(lookup_kernel("mul", &kernels), KernelLookup::Missing);
        let scale = vec!["_Z5scalePfi", "_Z5scalePdi"];
        assert_eq!(
            lookup_kernel("scale", &kernels),
            KernelLookup::Ambiguous(scale.clone())
        );
        assert_eq!(
            ambiguity("scale", &scale),
            "`scale` names 2 kernels: `_Z5scalePfi` (scale(float*, int)), \
             `_Z5scalePdi` (scale(double*, int)); give the full name"
        );
    }

    #[test]
    fn template_instances_read_with_their_arguments() {
        assert_eq!(
            demangle("_Z15biasGeluForwardI6__halfEvPT_PKS1_S4_ii").as_deref(),
            Some("biasGeluForward<__half>(__half*, const __half*, const __half*, int, int)")
        );
        assert_eq!(
            demangle("_Z9reduceSumIfLj256ELb1EEvPKT_PS0_j").as_deref(),
            Some("reduceSum<float, 256u, true>(const float*, float*, unsigned int)")
        );
        assert_eq!(
            demangle("_Z5byIntILin5EEvPi").as_deref(),
            Some("byInt<-5>(int*)")
        );
        assert_eq!(
            plain_name("_Z14matrixMulTiledILi16EEvPfPKfS2_ii"),
            "matrixMulTiled"
        );
        // A template parameter past the arguments is no name.
        assert_eq!(demangle("_Z1fIiEvT0_"), None);
        // Argument packs, and the parameters their expansions give (nvcc's
        // names); an empty pack is no argument and no parameter.
        assert_eq!(
            demangle("_Z9sumInputsIJPKfS1_EEvPfiDpT_").as_deref(),
            Some("sumInputs<const float*, const float*>(float*, int, const float*, const float*)")
        );
        assert_eq!(
            demangle("_Z5foldsIJfiEEvPfiDpPKT_").as_deref(),
            Some("folds<float, int>(float*, int, const float*, const int*)")
        );
        assert_eq!(
            demangle("_Z7weightsIJLi1ELi2EEEvPKjPji").as_deref(),
            Some("weights<1, 2>(const unsigned int*, unsigned int*, int)")
        );
        assert_eq!(
            demangle("_Z9sumInputsIJEEvPfiDpT_").as_deref(),
            Some("sumInputs<>(float*, int)")
        );
    }

    #[test]
    fn template_instances_are_found_by_their_readable_names() {
        let kernels = [
            "_Z8blockSumIfLj128EEvPKT_PS0_j",
            "_Z8blockSumIiLj128EEvPKT_PS0_j",
        ];
        assert_eq!(
            lookup_kernel("blockSum<int, 128u>", &kernels),
            KernelLookup::Found("_Z8blockSumIiLj128EEvPKT_PS0_j")
        );
        assert_eq!(
            lookup_kernel(
                "blockSum<float, 128u>(const float*, float*, unsigned int)",
                &kernels
            ),
            KernelLookup::Found("_Z8blockSumIfLj128EEvPKT_PS0_j")
        );
        assert!(matches!(
            lookup_kernel("blockSum", &kernels),
            KernelLookup::Ambiguous(_)
        ));
        assert_eq!(
            lookup_kernel("blockSum<int>", &kernels),
            KernelLookup::Missing
        );
    }

    #[test]
    fn substitution_numbers() {
        assert_eq!(substitution(0), "S_");
        assert_eq!(substitution(1), "S0_");
        assert_eq!(substitution(11), "SA_");
        assert_eq!(substitution(37), "S10_");
    }

    #[test]
    fn other_names_are_refused() {
        for name in ["vectorAdd", "_Z", "_Z99x", "_Z1kS_", "_ZN2nsE", "_Z1kQ"] {
            assert_eq!(demangle(name), None, "{name}");
        }
        assert_eq!(plain_name("_Z99x"), "_Z99x");
    }
}
