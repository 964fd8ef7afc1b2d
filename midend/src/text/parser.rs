//! Reads the IR text format (what [`super::write_module`] writes) back into
//! a [`Module`] or a single [`Function`].
//!
//! Entity numbers are kept as written (`v12` is `Value(12)`), so a test or a
//! verifier message can name entities; skipped numbers become placeholders
//! ([`ValueDef::Detached`] values, empty blocks outside the layout, ...).
//! Instructions are numbered in order of appearance.
//!
//! Parsing is two-pass at both levels. A module's globals and function
//! headers are read first, so a call may name a function defined further
//! down. Inside a function, a use may textually precede its definition (a
//! loop's back edge in an unstructured CFG), so result types that the text
//! does not spell (`iadd`, `select`, ...) are inferred only once the whole
//! body has been read, following the same rules as [`crate::builder`].
//!
//! The parser never recurses, so deep input cannot overflow the stack, and
//! entity numbers are capped at [`MAX_ENTITY_INDEX`] so a short text cannot
//! ask for gigabytes of placeholders.

use super::lexer::{lex, Tok, Token};
use super::parse_error::{Entity, ParseError, ParseErrorKind as K};
use crate::ir::{
    AbiParam, AccelOp, AtomicOp, BarrierRedOp, CacheOp, Format, InlineAsm, MatchMode, MemScope,
    ReduxOp, ShuffleMode, VoteMode,
};
use crate::ir::{
    AddrSpace, AliasScope, AliasScopeData, Block, BlockCall, BlockData, CallSig, FloatCC,
    FuncAttrs, FuncId, FuncKind, Function, GlobalVar, GlobalVarData, Inst, InstData, IntCC,
    Linkage, MemFlags, Module, Opcode, Reloc, RelocTarget, Signature, SourceSpan, SpecialReg,
    StackSlot, StackSlotData, Type, Value, ValueData, ValueDef,
};
use cranelift_entity::{EntityRef, PrimaryMap};
use rustc_hash::{FxHashMap, FxHashSet};

/// The largest entity number the parser accepts (`v1048576`, `block1048576`, ...).
/// Gaps below a number are filled with placeholders, so the cap bounds memory.
pub const MAX_ENTITY_INDEX: u32 = 1 << 20;

type Result<T> = core::result::Result<T, ParseError>;

/// A position in the text.
#[derive(Copy, Clone, Debug)]
struct Loc {
    line: u32,
    col: u32,
}

/// An error whose reason another reader gave (modifiers, constraints).
fn error<T>(loc: Loc, kind: K) -> Result<T> {
    Err(ParseError {
        line: loc.line,
        col: loc.col,
        kind,
    })
}

/// What the grammar wanted, and the word it found instead.
fn expected_word(expected: &str, word: &str) -> K {
    K::Expected {
        expected: expected.to_string(),
        found: format!("'{word}'"),
    }
}

/// The number in an entity name (`v12` with prefix `v` is 12), if `word` is
/// the prefix followed by a decimal number without leading zeros. Numbers
/// too long for `u64` come back as `u64::MAX` (and are then rejected as too large).
fn entity_number(word: &str, prefix: &str) -> Option<u64> {
    let digits = word.strip_prefix(prefix)?;
    let ok = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    ok.then(|| digits.parse().unwrap_or(u64::MAX))
}

/// A read position in the token list. The list ends with `Eof`, and the
/// cursor never moves past it.
struct Cursor<'t, 'a> {
    toks: &'t [Token<'a>],
    pos: usize,
}

impl<'t, 'a> Cursor<'t, 'a> {
    fn token(&self) -> &'t Token<'a> {
        let toks: &'t [Token<'a>] = self.toks;
        &toks[self.pos.min(toks.len() - 1)]
    }

    fn peek(&self) -> &'t Tok<'a> {
        &self.token().tok
    }

    fn loc(&self) -> Loc {
        let t = self.token();
        Loc {
            line: t.line,
            col: t.col,
        }
    }

    fn advance(&mut self) {
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
    }

    fn skip_newlines(&mut self) {
        while *self.peek() == Tok::Newline {
            self.advance();
        }
    }

    fn unexpected<T>(&self, expected: &str) -> Result<T> {
        let kind = K::Expected {
            expected: expected.to_string(),
            found: self.peek().describe(),
        };
        error(self.loc(), kind)
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if *self.peek() == Tok::Punct(c) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, c: char) -> Result<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            self.unexpected(&format!("'{c}'"))
        }
    }

    fn word(&mut self, expected: &str) -> Result<(&'a str, Loc)> {
        let loc = self.loc();
        match *self.peek() {
            Tok::Word(w) => {
                self.advance();
                Ok((w, loc))
            }
            _ => self.unexpected(expected),
        }
    }

    fn peek_word(&self) -> Option<&'a str> {
        match *self.peek() {
            Tok::Word(w) => Some(w),
            _ => None,
        }
    }

    fn eat_word(&mut self, w: &str) -> bool {
        if self.peek_word() == Some(w) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn expect_word(&mut self, w: &str) -> Result<()> {
        if self.eat_word(w) {
            Ok(())
        } else {
            self.unexpected(&format!("'{w}'"))
        }
    }

    fn num(&mut self, expected: &str) -> Result<(&'a str, Loc)> {
        let loc = self.loc();
        match *self.peek() {
            Tok::Num(n) => {
                self.advance();
                Ok((n, loc))
            }
            _ => self.unexpected(expected),
        }
    }

    fn u32(&mut self) -> Result<u32> {
        let (n, loc) = self.num("an unsigned integer")?;
        n.parse()
            .or_else(|_| error(loc, K::NotU32 { text: n.into() }))
    }

    fn ty(&mut self) -> Result<Type> {
        let (w, loc) = self.word("a type")?;
        parse_type(w, loc)
    }

    /// Whether the next token is an entity name with this prefix.
    fn at_entity(&self, prefix: &str) -> bool {
        self.peek_word()
            .is_some_and(|w| entity_number(w, prefix).is_some())
    }

    fn entity<E: EntityRef>(&mut self, prefix: &'static str, what: &str) -> Result<(E, Loc)> {
        let loc = self.loc();
        let n = match self.peek_word().and_then(|w| entity_number(w, prefix)) {
            Some(n) => n,
            None => return self.unexpected(&format!("{what} like '{prefix}0'")),
        };
        if n > u64::from(MAX_ENTITY_INDEX) {
            return error(loc, K::EntityTooLarge { prefix, number: n });
        }
        self.advance();
        Ok((E::new(n as usize), loc))
    }

    /// Ends a line-sized item: a newline, or (not consumed) `}` or the end of input.
    fn end_of_line(&mut self) -> Result<()> {
        match self.peek() {
            Tok::Newline => {
                self.advance();
                Ok(())
            }
            Tok::Eof | Tok::Punct('}') => Ok(()),
            _ => self.unexpected("end of line"),
        }
    }
}

fn parse_type(w: &str, loc: Loc) -> Result<Type> {
    w.parse()
        .or_else(|_| error(loc, K::UnknownType { word: w.into() }))
}

/// An indirect call's `: (params) -> returns` (no arrow: no results).
fn call_sig(cur: &mut Cursor) -> Result<CallSig> {
    cur.expect_punct(':')?;
    cur.expect_punct('(')?;
    let mut sig = CallSig::default();
    if !cur.eat_punct(')') {
        loop {
            sig.params.push(cur.ty()?);
            if !cur.eat_punct(',') {
                cur.expect_punct(')')?;
                break;
            }
        }
    }
    if *cur.peek() == Tok::Arrow {
        cur.advance();
        loop {
            sig.returns.push(cur.ty()?);
            if !cur.eat_punct(',') {
                break;
            }
        }
    }
    Ok(sig)
}

/// A function's header line, read in the first pass.
struct Header {
    name: String,
    name_loc: Loc,
    signature: Signature,
    attrs: FuncAttrs,
}

/// What a function body may refer to outside itself.
struct Context {
    /// Whether the text is a whole module (so calls and globals can be checked).
    in_module: bool,
    by_name: FxHashMap<String, FuncId>,
    /// Return types of each function of the module, by id.
    returns: Vec<Vec<Type>>,
    /// The globals the module defines (placeholders for gaps excluded).
    globals: FxHashSet<GlobalVar>,
}

fn header(cur: &mut Cursor) -> Result<Header> {
    let (kind, loc) = cur.word("'kernel' or 'device'")?;
    let kind = match kind {
        "kernel" => FuncKind::Kernel,
        "device" => FuncKind::Device,
        _ => return error(loc, expected_word("'kernel' or 'device'", kind)),
    };
    let (linkage, loc) = cur.word("'external', 'internal' or 'weak'")?;
    let linkage = match linkage {
        "external" => Linkage::External,
        "internal" => Linkage::Internal,
        "weak" => Linkage::Weak,
        _ => {
            return error(
                loc,
                expected_word("'external', 'internal' or 'weak'", linkage),
            );
        }
    };
    let name_loc = cur.loc();
    let name = match *cur.peek() {
        Tok::At(n) => n.to_string(),
        _ => return cur.unexpected("a function name like '@main'"),
    };
    cur.advance();
    cur.expect_punct('(')?;
    let mut signature = Signature::default();
    if !cur.eat_punct(')') {
        loop {
            signature.params.push(param(cur)?);
            if !cur.eat_punct(',') {
                cur.expect_punct(')')?;
                break;
            }
        }
    }
    if *cur.peek() == Tok::Arrow {
        cur.advance();
        loop {
            signature.returns.push(cur.ty()?);
            if !cur.eat_punct(',') {
                break;
            }
        }
    }
    let mut attrs = FuncAttrs::new(kind, linkage);
    loop {
        if cur.eat_word("noinline") {
            attrs.noinline = true;
        } else if cur.eat_word("forceinline") {
            attrs.forceinline = true;
        } else if cur.eat_word("restrict_processed") {
            attrs.restrict_processed = true;
        } else if cur.eat_word("ftz") {
            attrs.ftz = true;
        } else if cur.eat_word("launch_bounds") {
            cur.expect_punct('(')?;
            let max_threads = cur.u32()?;
            let min_blocks = if cur.eat_punct(',') {
                Some(cur.u32()?)
            } else {
                None
            };
            cur.expect_punct(')')?;
            attrs.launch_bounds = Some((max_threads, min_blocks));
        } else if cur.eat_word("cluster_dims") {
            cur.expect_punct('(')?;
            let x = cur.u32()?;
            cur.expect_punct(',')?;
            let y = cur.u32()?;
            cur.expect_punct(',')?;
            let z = cur.u32()?;
            cur.expect_punct(')')?;
            attrs.cluster_dims = Some([x, y, z]);
        } else if cur.eat_word("arg_spaces") {
            cur.expect_punct('(')?;
            let mut spaces = Vec::new();
            if !cur.eat_punct(')') {
                loop {
                    let (w, loc) = cur.word("an address space or 'none'")?;
                    spaces.push(match w {
                        "none" => None,
                        w => Some(
                            w.parse::<AddrSpace>()
                                .or_else(|_| error(loc, K::UnknownAddrSpace { word: w.into() }))?,
                        ),
                    });
                    if !cur.eat_punct(',') {
                        cur.expect_punct(')')?;
                        break;
                    }
                }
            }
            attrs.arg_spaces = Some(spaces);
        } else {
            break;
        }
    }
    Ok(Header {
        name,
        name_loc,
        signature,
        attrs,
    })
}

fn param(cur: &mut Cursor) -> Result<AbiParam> {
    let mut p = AbiParam::new(cur.ty()?);
    loop {
        if cur.eat_word("restrict") {
            p.attrs.restrict = true;
        } else if cur.eat_word("noalias") {
            p.attrs.noalias = true;
        } else if cur.eat_word("grid_constant") {
            p.attrs.grid_constant = true;
        } else if cur.eat_word("byval") {
            cur.expect_punct('(')?;
            let size = cur.u32()?;
            cur.expect_punct(',')?;
            let align = cur.u32()?;
            cur.expect_punct(')')?;
            p.attrs.byval = Some((size, align));
        } else if cur.eat_word("sret") {
            cur.expect_punct('(')?;
            let size = cur.u32()?;
            cur.expect_punct(',')?;
            let align = cur.u32()?;
            cur.expect_punct(')')?;
            p.attrs.sret = Some((size, align));
        } else if cur.eat_word("restrict_fields") {
            cur.expect_punct('(')?;
            loop {
                p.attrs.restrict_fields.push(cur.u32()?);
                if !cur.eat_punct(',') {
                    cur.expect_punct(')')?;
                    break;
                }
            }
        } else {
            return Ok(p);
        }
    }
}

/// `gv0 = shared internal @tile, size 1024, align 4, init [0x00, ...]`;
/// a `__managed__` one says so after its name (`global @m, managed, size 4, ...`).
fn global(cur: &mut Cursor) -> Result<(GlobalVar, Loc, GlobalVarData, Vec<NamedTarget>)> {
    let (gv, gv_loc) = cur.entity::<GlobalVar>("gv", "a global")?;
    cur.expect_punct('=')?;
    let (space, loc) = cur.word("an address space")?;
    let space: AddrSpace = space
        .parse()
        .or_else(|_| error(loc, K::UnknownAddrSpace { word: space.into() }))?;
    let linkage = if cur.eat_word("internal") {
        Linkage::Internal
    } else if cur.eat_word("weak") {
        Linkage::Weak
    } else {
        cur.eat_word("external");
        Linkage::External
    };
    let name = match *cur.peek() {
        Tok::At(n) => n.to_string(),
        _ => return cur.unexpected("a global name like '@tile'"),
    };
    cur.advance();
    cur.expect_punct(',')?;
    let managed = cur.eat_word("managed");
    if managed {
        cur.expect_punct(',')?;
    }
    let (size, dynamic) = if cur.eat_word("dynamic") {
        (0, true)
    } else {
        cur.expect_word("size")?;
        (cur.u32()?, false)
    };
    cur.expect_punct(',')?;
    cur.expect_word("align")?;
    let align = cur.u32()?;
    let mut init = None;
    let mut relocs = Vec::new();
    let mut named = Vec::new();
    if cur.eat_punct(',') {
        if !cur.eat_word("relocs") {
            cur.expect_word("init")?;
            init = Some(init_bytes(cur)?);
            if cur.eat_punct(',') {
                cur.expect_word("relocs")?;
                (relocs, named) = reloc_list(cur)?;
            }
        } else {
            (relocs, named) = reloc_list(cur)?;
        }
    }
    cur.end_of_line()?;
    let data = GlobalVarData {
        name,
        space,
        size,
        align,
        init,
        linkage,
        dynamic,
        managed,
        relocs,
    };
    Ok((gv, gv_loc, data, named))
}

/// `[0x2a, 7, ...]`: a variable's initial bytes.
fn init_bytes(cur: &mut Cursor) -> Result<Vec<u8>> {
    cur.expect_punct('[')?;
    let mut bytes = Vec::new();
    if cur.eat_punct(']') {
        return Ok(bytes);
    }
    loop {
        let (n, loc) = cur.num("a byte like '0x2a'")?;
        let byte = match n.strip_prefix("0x").or_else(|| n.strip_prefix("0X")) {
            Some(hex) => u8::from_str_radix(hex, 16).ok(),
            None => n.parse().ok(),
        };
        match byte {
            Some(b) => bytes.push(b),
            None => return error(loc, K::NotAByte { text: n.into() }),
        }
        if !cur.eat_punct(',') {
            cur.expect_punct(']')?;
            return Ok(bytes);
        }
    }
}

/// A relocation whose target function is written by name (`@add`): its
/// index in the list, the name and where it is, resolved once the
/// module's functions are known.
type NamedTarget = (usize, String, Loc);

/// `[8: gv0 + 32, 16: @add, 24: fn1]`: the addresses in a variable's
/// initial bytes (see [`crate::ir::Reloc`]).
fn reloc_list(cur: &mut Cursor) -> Result<(Vec<Reloc>, Vec<NamedTarget>)> {
    cur.expect_punct('[')?;
    let mut relocs = Vec::new();
    let mut named = Vec::new();
    if cur.eat_punct(']') {
        return Ok((relocs, named));
    }
    loop {
        let offset = cur.u32()?;
        cur.expect_punct(':')?;
        let loc = cur.loc();
        let target = match *cur.peek() {
            Tok::At(name) => {
                cur.advance();
                named.push((relocs.len(), name.to_string(), loc));
                RelocTarget::Func(FuncId::new(0))
            }
            _ if cur.at_entity("fn") => RelocTarget::Func(cur.entity("fn", "a function")?.0),
            _ => RelocTarget::Global(cur.entity("gv", "a global or '@function'")?.0),
        };
        let mut addend = 0;
        if cur.eat_punct('+') {
            let (n, loc) = cur.num("an addend like '32'")?;
            addend = n
                .parse()
                .or_else(|_| error(loc, K::NotI64 { text: n.into() }))?;
        }
        relocs.push(Reloc {
            offset,
            target,
            addend,
        });
        if !cur.eat_punct(',') {
            cur.expect_punct(']')?;
            return Ok((relocs, named));
        }
    }
}

/// Parses a module: globals and functions, in any order.
///
/// Function ids follow the order of the functions in the text; global
/// numbers are kept as written.
pub fn parse_module(text: &str) -> core::result::Result<Module, ParseError> {
    let toks = lex(text)?;
    let mut cur = Cursor {
        toks: &toks,
        pos: 0,
    };
    let mut globals: FxHashMap<GlobalVar, GlobalVarData> = FxHashMap::default();
    let mut global_names: FxHashSet<String> = FxHashSet::default();
    let mut headers: Vec<(Header, usize)> = Vec::new();
    let mut by_name = FxHashMap::default();
    let mut named_targets: Vec<(GlobalVar, NamedTarget)> = Vec::new();
    loop {
        cur.skip_newlines();
        match *cur.peek() {
            Tok::Eof => break,
            Tok::Word(w) if entity_number(w, "gv").is_some() => {
                let (gv, loc, data, named) = global(&mut cur)?;
                named_targets.extend(named.into_iter().map(|n| (gv, n)));
                if globals.contains_key(&gv) {
                    let entity = Entity::Global(gv);
                    return error(loc, K::DefinedTwice { entity });
                }
                if !global_names.insert(data.name.clone()) {
                    let name = data.name.clone();
                    return error(loc, K::DuplicateGlobalName { name });
                }
                globals.insert(gv, data);
            }
            Tok::Word("kernel" | "device") => {
                let h = header(&mut cur)?;
                let id = FuncId::new(headers.len());
                if by_name.insert(h.name.clone(), id).is_some() {
                    let name = h.name.clone();
                    return error(h.name_loc, K::DuplicateFunctionName { name });
                }
                if *cur.peek() != Tok::Punct('{') {
                    return cur.unexpected("'{'");
                }
                let body = cur.pos;
                // Bodies hold no braces, so the first `}` closes this one.
                while !matches!(cur.peek(), Tok::Punct('}') | Tok::Eof) {
                    cur.advance();
                }
                cur.expect_punct('}')?;
                cur.end_of_line()?;
                headers.push((h, body));
            }
            _ => return cur.unexpected("a global ('gv0 = ...') or a function ('kernel ...')"),
        }
    }

    let mut module = Module::new();
    let defined_globals: FxHashSet<GlobalVar> = globals.keys().copied().collect();
    if let Some(max) = globals.keys().map(|g| g.index()).max() {
        for i in 0..=max {
            let data = globals.remove(&GlobalVar::new(i)).unwrap_or(GlobalVarData {
                name: String::new(),
                space: AddrSpace::Generic,
                size: 0,
                align: 1,
                init: None,
                linkage: Linkage::Internal,
                dynamic: false,
                managed: false,
                relocs: Vec::new(),
            });
            module.globals.push(data);
        }
    }
    for (gv, (index, name, loc)) in named_targets {
        let Some(&func) = by_name.get(&name) else {
            return error(loc, K::UnknownFunctionName { name });
        };
        module.globals[gv].relocs[index].target = RelocTarget::Func(func);
    }
    let ctx = Context {
        in_module: true,
        by_name,
        returns: headers
            .iter()
            .map(|(h, _)| h.signature.returns.clone())
            .collect(),
        globals: defined_globals,
    };
    for (h, body) in headers {
        let mut cur = Cursor {
            toks: &toks,
            pos: body,
        };
        module
            .functions
            .push(FuncParser::new(&ctx).body(&mut cur, h)?);
    }
    Ok(module)
}

/// Parses one function. Calls in it must name their callee as `fnN` and
/// have no results (without the module, the callee's return types are
/// unknown); globals (`gvN`) are taken on trust.
pub fn parse_function(text: &str) -> core::result::Result<Function, ParseError> {
    let toks = lex(text)?;
    let mut cur = Cursor {
        toks: &toks,
        pos: 0,
    };
    cur.skip_newlines();
    let h = header(&mut cur)?;
    let ctx = Context {
        in_module: false,
        by_name: FxHashMap::default(),
        returns: Vec::new(),
        globals: FxHashSet::default(),
    };
    let func = FuncParser::new(&ctx).body(&mut cur, h)?;
    cur.skip_newlines();
    if *cur.peek() != Tok::Eof {
        return cur.unexpected("the end of the function text (use parse_module for a module)");
    }
    Ok(func)
}

/// How a result's type is found.
#[derive(Copy, Clone, Debug)]
enum TyRule {
    Known(Type),
    /// The same as this operand's type (`iadd`: the first operand's).
    SameAs(Value),
}

/// A value definition read from the text.
struct ValInfo {
    def: ValueDef,
    loc: Loc,
    rule: TyRule,
}

/// An instruction read from the text, waiting for result types.
struct PendingInst {
    data: InstData,
    results: Vec<Value>,
    block: Block,
    span: SourceSpan,
}

/// The state of reading one function body.
struct FuncParser<'c> {
    ctx: &'c Context,
    values: FxHashMap<Value, ValInfo>,
    /// Values in order of definition, for deterministic error order.
    value_order: Vec<Value>,
    blocks: FxHashMap<Block, BlockData>,
    block_order: Vec<Block>,
    slots: FxHashMap<StackSlot, StackSlotData>,
    hints: std::collections::BTreeMap<Block, crate::ir::LoopHint>,
    scopes: FxHashMap<AliasScope, AliasScopeData>,
    insts: Vec<PendingInst>,
    /// Entity references to check once the whole body has been read.
    uses: Vec<(Entity, Loc)>,
}

impl<'c> FuncParser<'c> {
    fn new(ctx: &'c Context) -> Self {
        FuncParser {
            ctx,
            values: FxHashMap::default(),
            value_order: Vec::new(),
            blocks: FxHashMap::default(),
            block_order: Vec::new(),
            slots: FxHashMap::default(),
            hints: Default::default(),
            scopes: FxHashMap::default(),
            insts: Vec::new(),
            uses: Vec::new(),
        }
    }

    /// Reads `{ ... }` after a header and builds the function.
    fn body(mut self, cur: &mut Cursor, h: Header) -> Result<Function> {
        cur.expect_punct('{')?;
        let mut current: Option<Block> = None;
        loop {
            cur.skip_newlines();
            match *cur.peek() {
                Tok::Punct('}') => {
                    cur.advance();
                    cur.end_of_line()?;
                    break;
                }
                Tok::Eof => {
                    return cur.unexpected(&format!("'}}' to close function '@{}'", h.name));
                }
                _ if cur.at_entity("ss") => self.stack_slot(cur)?,
                _ if cur.at_entity("scope") => self.alias_scope(cur)?,
                _ if cur.peek_word() == Some("unroll") => self.loop_hint(cur)?,
                _ if cur.at_entity("block") => current = Some(self.block_header(cur)?),
                _ => match current {
                    Some(block) => self.inst(cur, block)?,
                    None => {
                        return error(cur.loc(), K::ExpectedBlockHeader);
                    }
                },
            }
        }
        self.finish(h)
    }

    fn stack_slot(&mut self, cur: &mut Cursor) -> Result<()> {
        let (ss, loc) = cur.entity::<StackSlot>("ss", "a stack slot")?;
        cur.expect_punct('=')?;
        cur.expect_word("stack")?;
        let size = cur.u32()?;
        cur.expect_punct(',')?;
        cur.expect_word("align")?;
        let align = cur.u32()?;
        cur.end_of_line()?;
        if self
            .slots
            .insert(ss, StackSlotData { size, align })
            .is_some()
        {
            let entity = Entity::Slot(ss);
            return error(loc, K::DefinedTwice { entity });
        }
        Ok(())
    }

    /// `unroll block3 full` or `unroll block3 4`: a `#pragma unroll` hint;
    /// `unroll block3 unrolled`: `unroll-runtime`'s main loop.
    fn loop_hint(&mut self, cur: &mut Cursor) -> Result<()> {
        cur.expect_word("unroll")?;
        let (block, loc) = cur.entity::<Block>("block", "a block")?;
        let hint = if cur.eat_word("full") {
            crate::ir::LoopHint::Full
        } else if cur.eat_word("unrolled") {
            crate::ir::LoopHint::Unrolled
        } else {
            crate::ir::LoopHint::Count(cur.u32()?)
        };
        cur.end_of_line()?;
        if self.hints.insert(block, hint).is_some() {
            return error(loc, K::TwoUnrollHints { block });
        }
        Ok(())
    }

    fn alias_scope(&mut self, cur: &mut Cursor) -> Result<()> {
        let (scope, loc) = cur.entity::<AliasScope>("scope", "an alias scope")?;
        cur.expect_punct('=')?;
        cur.expect_word("alias_scope")?;
        let name = match cur.peek() {
            Tok::Str(s) => s.clone(),
            _ => return cur.unexpected("a quoted scope name"),
        };
        cur.advance();
        cur.end_of_line()?;
        if self.scopes.insert(scope, AliasScopeData { name }).is_some() {
            let entity = Entity::Scope(scope);
            return error(loc, K::DefinedTwice { entity });
        }
        Ok(())
    }

    fn define_value(&mut self, v: Value, loc: Loc, def: ValueDef, rule: TyRule) -> Result<()> {
        if self.values.contains_key(&v) {
            let entity = Entity::Value(v);
            return error(loc, K::DefinedTwice { entity });
        }
        self.values.insert(v, ValInfo { def, loc, rule });
        self.value_order.push(v);
        Ok(())
    }

    /// `block3(v4: i32, v5: ptr<global>):`
    fn block_header(&mut self, cur: &mut Cursor) -> Result<Block> {
        let (block, loc) = cur.entity::<Block>("block", "a block")?;
        if self.blocks.contains_key(&block) {
            let entity = Entity::Block(block);
            return error(loc, K::DefinedTwice { entity });
        }
        let mut params = Vec::new();
        if cur.eat_punct('(') && !cur.eat_punct(')') {
            loop {
                let (v, vloc) = cur.entity::<Value>("v", "a value")?;
                cur.expect_punct(':')?;
                let ty = cur.ty()?;
                let def = ValueDef::Param(block, params.len() as u32);
                self.define_value(v, vloc, def, TyRule::Known(ty))?;
                params.push(v);
                if !cur.eat_punct(',') {
                    cur.expect_punct(')')?;
                    break;
                }
            }
        }
        cur.expect_punct(':')?;
        cur.end_of_line()?;
        self.blocks.insert(block, BlockData { params });
        self.block_order.push(block);
        Ok(block)
    }

    fn use_value(&mut self, cur: &mut Cursor) -> Result<Value> {
        let (v, loc) = cur.entity::<Value>("v", "a value")?;
        self.uses.push((Entity::Value(v), loc));
        Ok(v)
    }

    /// A possibly empty comma-separated list of values.
    fn value_list(&mut self, cur: &mut Cursor) -> Result<Vec<Value>> {
        let mut out = Vec::new();
        if cur.at_entity("v") {
            loop {
                out.push(self.use_value(cur)?);
                if !cur.eat_punct(',') {
                    break;
                }
            }
        }
        Ok(out)
    }

    /// Exactly `N` comma-separated values.
    fn operands<const N: usize>(&mut self, cur: &mut Cursor, op: Opcode) -> Result<[Value; N]> {
        let loc = cur.loc();
        let vals = self.value_list(cur)?;
        let n = vals.len();
        vals.try_into().or_else(|_| {
            let kind = K::OperandCount {
                opcode: op,
                expected: N,
                found: n,
            };
            error(loc, kind)
        })
    }

    fn block_call(&mut self, cur: &mut Cursor) -> Result<BlockCall> {
        let (block, loc) = cur.entity::<Block>("block", "a block")?;
        self.uses.push((Entity::Block(block), loc));
        let mut args = Vec::new();
        if cur.eat_punct('(') {
            args = self.value_list(cur)?;
            cur.expect_punct(')')?;
        }
        Ok(BlockCall::new(block, args))
    }

    fn scope_list(&mut self, cur: &mut Cursor) -> Result<Vec<AliasScope>> {
        cur.expect_punct('(')?;
        let mut out = Vec::new();
        if !cur.eat_punct(')') {
            loop {
                let (s, loc) = cur.entity::<AliasScope>("scope", "an alias scope")?;
                self.uses.push((Entity::Scope(s), loc));
                out.push(s);
                if !cur.eat_punct(',') {
                    cur.expect_punct(')')?;
                    break;
                }
            }
        }
        Ok(out)
    }

    /// `volatile invariant align(16) cache(cs) scopes(scope0) noalias(scope1)`,
    /// any subset, any order.
    fn mem_flags(&mut self, cur: &mut Cursor) -> Result<MemFlags> {
        let mut flags = MemFlags::default();
        loop {
            if cur.eat_word("volatile") {
                flags.volatile = true;
            } else if cur.eat_word("invariant") {
                flags.invariant = true;
            } else if cur.eat_word("align") {
                cur.expect_punct('(')?;
                flags.align = cur.u32()?;
                cur.expect_punct(')')?;
            } else if cur.eat_word("cache") {
                cur.expect_punct('(')?;
                flags.cache = Some(named(cur, "a cache operator", CacheOp::from_name)?);
                cur.expect_punct(')')?;
            } else if cur.eat_word("scopes") {
                flags.scopes.extend(self.scope_list(cur)?);
            } else if cur.eat_word("noalias") {
                flags.noalias.extend(self.scope_list(cur)?);
            } else {
                return Ok(flags);
            }
        }
    }

    /// One instruction line: `[results =] opcode[.type] operands [!start..end]`.
    fn inst(&mut self, cur: &mut Cursor, block: Block) -> Result<()> {
        let start = cur.loc();
        let mut results = Vec::new();
        if cur.at_entity("v") {
            loop {
                results.push(cur.entity::<Value>("v", "a value")?);
                if !cur.eat_punct(',') {
                    break;
                }
            }
            cur.expect_punct('=')?;
        }
        let (word, wloc) = cur.word("an opcode")?;
        let (base, suffix) = match word.split_once('.') {
            Some((b, s)) => (b, Some(s)),
            None => (word, None),
        };
        let op = match Opcode::from_name(base) {
            Some(op) => op,
            None => return error(wloc, K::UnknownOpcode { word: base.into() }),
        };
        let wants_type = matches!(
            op.format(),
            Format::Iconst
                | Format::Fconst
                | Format::Convert
                | Format::AddrSpaceCast
                | Format::GlobalAddr
                | Format::Load
        );
        let ty = match (suffix, wants_type) {
            (Some(s), true) => parse_type(s, wloc)?,
            (None, true) => {
                return error(wloc, K::NeedsTypeSuffix { opcode: op });
            }
            (Some(_), false) => return error(wloc, K::NoTypeSuffix { opcode: op }),
            // Not used by formats that take no suffix.
            (None, false) => Type::I32,
        };
        let (data, rules) = self.operands_of(cur, op, ty)?;
        let rules = match rules {
            Some(r) => r,
            None if results.is_empty() => Vec::new(),
            None => {
                return error(start, K::CallResultsNeedModule);
            }
        };
        if rules.len() != results.len() {
            let kind = K::ResultCount {
                opcode: op,
                expected: rules.len(),
                written: results.len(),
            };
            return error(start, kind);
        }
        let mut span = SourceSpan::default();
        if cur.eat_punct('!') {
            let from = cur.u32()?;
            if *cur.peek() != Tok::DotDot {
                return cur.unexpected("'..' in a span");
            }
            cur.advance();
            span = SourceSpan::new(from, cur.u32()?);
        }
        cur.end_of_line()?;
        let inst = Inst::new(self.insts.len());
        for (n, (&(v, loc), rule)) in results.iter().zip(rules).enumerate() {
            self.define_value(v, loc, ValueDef::Result(inst, n as u32), rule)?;
        }
        self.insts.push(PendingInst {
            data,
            results: results.into_iter().map(|(v, _)| v).collect(),
            block,
            span,
        });
        Ok(())
    }

    /// The operands after the opcode, and how to type the results (`None`
    /// for a call whose callee's signature is unknown).
    // Long: one arm per instruction format, the operand syntax docs/ir.md
    // gives for it, mirroring the printer in `text/writer.rs`.
    fn operands_of(
        &mut self,
        cur: &mut Cursor,
        op: Opcode,
        ty: Type,
    ) -> Result<(InstData, Option<Vec<TyRule>>)> {
        use TyRule::{Known, SameAs};
        let one = |data, rule| Ok((data, Some(vec![rule])));
        let none = |data| Ok((data, Some(Vec::new())));
        match op.format() {
            Format::Iconst => {
                let (n, loc) = cur.num("an integer")?;
                match n.parse::<i64>() {
                    Ok(imm) => one(InstData::Iconst { ty, imm }, Known(ty)),
                    Err(_) => error(loc, K::NotI64 { text: n.into() }),
                }
            }
            Format::Fconst => {
                let value = float(cur)?;
                one(InstData::Fconst { ty, value }, Known(ty))
            }
            Format::Unary => {
                let [arg] = self.operands(cur, op)?;
                one(InstData::Unary { opcode: op, arg }, SameAs(arg))
            }
            Format::Binary => {
                let args = self.operands(cur, op)?;
                one(InstData::Binary { opcode: op, args }, SameAs(args[0]))
            }
            Format::Ternary => {
                let args = self.operands(cur, op)?;
                // `select c, a, b` has the type of `a`; `fma a, b, c` of `a`.
                let from = if op == Opcode::Select {
                    args[1]
                } else {
                    args[0]
                };
                one(InstData::Ternary { opcode: op, args }, SameAs(from))
            }
            Format::IntCompare => {
                let (w, loc) = cur.word("an integer condition like 'slt'")?;
                let cond = IntCC::from_name(w)
                    .map_or_else(|| error(loc, K::UnknownIntCondition { word: w.into() }), Ok)?;
                let args = self.operands(cur, op)?;
                one(InstData::IntCompare { cond, args }, Known(Type::I1))
            }
            Format::FloatCompare => {
                let (w, loc) = cur.word("a float condition like 'olt'")?;
                let cond = FloatCC::from_name(w).map_or_else(
                    || error(loc, K::UnknownFloatCondition { word: w.into() }),
                    Ok,
                )?;
                let args = self.operands(cur, op)?;
                one(InstData::FloatCompare { cond, args }, Known(Type::I1))
            }
            Format::Convert => {
                let [arg] = self.operands(cur, op)?;
                one(
                    InstData::Convert {
                        opcode: op,
                        ty,
                        arg,
                    },
                    Known(ty),
                )
            }
            Format::AddrSpaceCast => {
                let Type::Ptr(to) = ty else {
                    return error(cur.loc(), K::AddrSpaceCastNeedsPointer);
                };
                let [arg] = self.operands(cur, op)?;
                one(InstData::AddrSpaceCast { to, arg }, Known(ty))
            }
            Format::GlobalAddr => {
                let (gv, loc) = cur.entity::<GlobalVar>("gv", "a global")?;
                self.uses.push((Entity::Global(gv), loc));
                one(InstData::GlobalAddr { gv }, Known(ty))
            }
            Format::StackAddr => {
                let (slot, loc) = cur.entity::<StackSlot>("ss", "a stack slot")?;
                self.uses.push((Entity::Slot(slot), loc));
                let ty = Type::Ptr(AddrSpace::Local);
                one(InstData::StackAddr { slot }, Known(ty))
            }
            Format::Load => {
                let [ptr] = self.operands(cur, op)?;
                let flags = self.mem_flags(cur)?;
                one(InstData::Load { ty, ptr, flags }, Known(ty))
            }
            Format::Store => {
                let [value, ptr] = self.operands(cur, op)?;
                let flags = self.mem_flags(cur)?;
                none(InstData::Store { value, ptr, flags })
            }
            Format::Call => {
                let (func, returns) = self.callee(cur)?;
                cur.expect_punct('(')?;
                let args = self.value_list(cur)?;
                cur.expect_punct(')')?;
                let rules = returns.map(|r| r.into_iter().map(Known).collect());
                Ok((InstData::Call { func, args }, rules))
            }
            Format::CallIndirect => {
                let callee = self.use_value(cur)?;
                cur.expect_punct('(')?;
                let mut args = vec![callee];
                args.extend(self.value_list(cur)?);
                cur.expect_punct(')')?;
                let sig = call_sig(cur)?;
                let rules = sig.returns.iter().copied().map(Known).collect();
                let sig = Box::new(sig);
                Ok((InstData::CallIndirect { sig, args }, Some(rules)))
            }
            Format::FuncAddr => {
                let (func, _) = self.callee(cur)?;
                one(InstData::FuncAddr { func }, Known(Type::I64))
            }
            Format::SpecialReg => {
                let (w, loc) = cur.word("a special register like 'tid.x'")?;
                let reg = SpecialReg::from_name(w)
                    .map_or_else(|| error(loc, K::UnknownSpecialReg { word: w.into() }), Ok)?;
                one(InstData::SpecialReg { reg }, Known(reg.ty()))
            }
            Format::Nullary => none(InstData::Nullary { opcode: op }),
            Format::AtomicRmw => {
                let aop = named(cur, "an atomic operation like 'add'", AtomicOp::from_name)?;
                let scope = named(cur, "a scope: cta, gpu or sys", MemScope::from_name)?;
                let args = self.operands(cur, op)?;
                one(
                    InstData::AtomicRmw {
                        op: aop,
                        scope,
                        args,
                    },
                    SameAs(args[1]),
                )
            }
            Format::AtomicCas => {
                let scope = named(cur, "a scope: cta, gpu or sys", MemScope::from_name)?;
                let args = self.operands(cur, op)?;
                one(InstData::AtomicCas { scope, args }, SameAs(args[1]))
            }
            Format::AtomicVec => {
                let aop = named(cur, "an atomic operation like 'add'", AtomicOp::from_name)?;
                let scope = named(cur, "a scope: cta, gpu or sys", MemScope::from_name)?;
                let args = self.value_list(cur)?;
                // One result per element, each of its element's type.
                let rules = args.iter().skip(1).map(|&a| SameAs(a)).collect();
                Ok((
                    InstData::AtomicVec {
                        op: aop,
                        scope,
                        args,
                    },
                    Some(rules),
                ))
            }
            Format::Fence => {
                let scope = named(cur, "a scope: cta, gpu or sys", MemScope::from_name)?;
                none(InstData::Fence { scope })
            }
            Format::Shuffle => {
                let mode = named(cur, "a mode: idx, up, down or bfly", ShuffleMode::from_name)?;
                let args = self.operands(cur, op)?;
                one(InstData::Shuffle { mode, args }, SameAs(args[0]))
            }
            Format::Vote => {
                let mode = named(cur, "a vote: all, any, uni or ballot", VoteMode::from_name)?;
                let args = self.operands(cur, op)?;
                let ty = if mode == VoteMode::Ballot {
                    Type::I32
                } else {
                    Type::I1
                };
                one(InstData::Vote { mode, args }, Known(ty))
            }
            Format::Redux => {
                let rop = named(
                    cur,
                    "a reduction: add, umin, umax, smin, smax, and, or or xor",
                    ReduxOp::from_name,
                )?;
                let args = self.operands(cur, op)?;
                one(InstData::Redux { op: rop, args }, Known(Type::I32))
            }
            Format::Match => {
                let mode = named(cur, "a match: any or all", MatchMode::from_name)?;
                let args = self.operands(cur, op)?;
                one(InstData::Match { mode, args }, Known(Type::I32))
            }
            Format::BarrierRed => {
                let rop = named(cur, "a reduction: popc, and or or", BarrierRedOp::from_name)?;
                let [arg] = self.operands(cur, op)?;
                let ty = if rop == BarrierRedOp::Popc {
                    Type::I32
                } else {
                    Type::I1
                };
                one(InstData::BarrierRed { op: rop, arg }, Known(ty))
            }
            Format::Effect => {
                let [arg] = self.operands(cur, op)?;
                none(InstData::Effect { opcode: op, arg })
            }
            Format::IsSpace => {
                let space = named(cur, "an address space like 'shared'", |w| {
                    w.parse::<AddrSpace>().ok()
                })?;
                let [arg] = self.operands(cur, op)?;
                one(InstData::IsSpace { space, arg }, Known(Type::I1))
            }
            Format::Accel => {
                // Modifiers are words and numbers up to the first value;
                // a surface access always has four, whose vector width
                // (`v2`) is spelled like a value.
                let loc = cur.loc();
                let mut words = Vec::new();
                let fixed = matches!(op, Opcode::Suld | Opcode::Sust).then_some(4);
                while fixed.map_or(!cur.at_entity("v"), |n| words.len() < n) {
                    match *cur.peek() {
                        Tok::Word(w) | Tok::Num(w) => {
                            words.push(w);
                            cur.advance();
                        }
                        _ => break,
                    }
                }
                let aop =
                    AccelOp::from_modifiers(op, &words).or_else(|e| error(loc, K::Modifiers(e)))?;
                let args = self.value_list(cur)?;
                let rules = aop.result_types().into_iter().map(Known).collect();
                Ok((InstData::Accel { op: aop, args }, Some(rules)))
            }
            Format::InlineAsm => {
                let volatile = cur.eat_word("volatile");
                let memory = cur.eat_word("memory");
                let loc = cur.loc();
                let template = quoted(cur, "the quoted PTX template")?;
                let outputs = InlineAsm::parse_outputs(&quoted(cur, "the quoted outputs")?)
                    .or_else(|e| error(loc, K::Constraints(e)))?;
                let inputs = InlineAsm::parse_inputs(&quoted(cur, "the quoted inputs")?)
                    .or_else(|e| error(loc, K::Constraints(e)))?;
                let args = self.value_list(cur)?;
                let asm = InlineAsm {
                    template,
                    outputs,
                    inputs,
                    volatile,
                    memory,
                };
                let rules = asm.result_types().into_iter().map(Known).collect();
                let asm = Box::new(asm);
                Ok((InstData::InlineAsm { asm, args }, Some(rules)))
            }
            Format::Jump => {
                let dest = self.block_call(cur)?;
                none(InstData::Jump { dest })
            }
            Format::Brif => {
                let cond = self.use_value(cur)?;
                cur.expect_punct(',')?;
                let then_dest = self.block_call(cur)?;
                cur.expect_punct(',')?;
                let else_dest = self.block_call(cur)?;
                none(InstData::Brif {
                    cond,
                    then_dest,
                    else_dest,
                })
            }
            Format::Return => {
                let args = self.value_list(cur)?;
                none(InstData::Return { args })
            }
        }
    }

    /// `@name` or `fnN`, with the callee's return types when known.
    fn callee(&mut self, cur: &mut Cursor) -> Result<(FuncId, Option<Vec<Type>>)> {
        let loc = cur.loc();
        let ctx = self.ctx;
        if let Tok::At(name) = *cur.peek() {
            cur.advance();
            if !ctx.in_module {
                let name = name.to_string();
                return error(loc, K::CallByNameNeedsModule { name });
            }
            return match ctx.by_name.get(name) {
                Some(&id) => Ok((id, Some(ctx.returns[id.index()].clone()))),
                None => error(loc, K::UnknownFunctionName { name: name.into() }),
            };
        }
        let (id, loc) = cur.entity::<FuncId>("fn", "a callee ('@name' or 'fnN')")?;
        if !ctx.in_module {
            return Ok((id, None));
        }
        match ctx.returns.get(id.index()) {
            Some(r) => Ok((id, Some(r.clone()))),
            None => error(loc, K::UnknownFunction { id }),
        }
    }

    /// Checks references, infers result types and assembles the function.
    fn finish(self, h: Header) -> Result<Function> {
        for &(u, loc) in &self.uses {
            let defined = match u {
                Entity::Value(v) => self.values.contains_key(&v),
                Entity::Block(b) => self.blocks.contains_key(&b),
                Entity::Slot(s) => self.slots.contains_key(&s),
                Entity::Scope(s) => self.scopes.contains_key(&s),
                Entity::Global(g) => !self.ctx.in_module || self.ctx.globals.contains(&g),
            };
            if !defined {
                return error(loc, K::UndefinedUse { entity: u });
            }
        }
        let types = self.infer_types()?;

        let mut func = Function::new(h.name, h.signature, h.attrs);
        let max_value = self.values.keys().map(|v| v.index()).max();
        for i in max_value.map_or(0..0, |m| 0..m + 1) {
            let v = Value::new(i);
            let data = match self.values.get(&v) {
                Some(info) => ValueData {
                    ty: types[&v],
                    def: info.def,
                },
                None => ValueData {
                    ty: Type::I32,
                    def: ValueDef::Detached,
                },
            };
            func.dfg.values.push(data);
        }
        let mut blocks = self.blocks;
        let max_block = blocks.keys().map(|b| b.index()).max();
        for i in max_block.map_or(0..0, |m| 0..m + 1) {
            let data = blocks.remove(&Block::new(i)).unwrap_or_default();
            func.dfg.blocks.push(data);
        }
        func.stack_slots = fill_gaps(self.slots, StackSlotData { size: 0, align: 1 });
        let placeholder = AliasScopeData {
            name: String::new(),
        };
        func.alias_scopes = fill_gaps(self.scopes, placeholder);
        func.loop_hints = self.hints;
        for &b in &self.block_order {
            func.layout.append_block(b);
        }
        for p in self.insts {
            let inst = func.dfg.insts.push(p.data);
            func.dfg.results[inst] = p.results.into();
            func.layout.append_inst(inst, p.block);
            if !p.span.is_none() {
                func.spans[inst] = p.span;
            }
        }
        Ok(func)
    }

    /// Gives every defined value a type, following `SameAs` chains. A chain
    /// that loops back on itself has no type to find, and is an error.
    fn infer_types(&self) -> Result<FxHashMap<Value, Type>> {
        let mut types: FxHashMap<Value, Type> = FxHashMap::default();
        for &v in &self.value_order {
            let mut path = Vec::new();
            let mut on_path = FxHashSet::default();
            let mut cur = v;
            let ty = loop {
                if let Some(&t) = types.get(&cur) {
                    break Some(t);
                }
                match self.values[&cur].rule {
                    TyRule::Known(t) => break Some(t),
                    TyRule::SameAs(src) => {
                        if !on_path.insert(cur) {
                            break None;
                        }
                        path.push(cur);
                        cur = src;
                    }
                }
            };
            match ty {
                Some(t) => {
                    types.insert(cur, t);
                    for p in path {
                        types.insert(p, t);
                    }
                }
                None => {
                    return error(self.values[&v].loc, K::SelfDependentType { value: v });
                }
            }
        }
        Ok(types)
    }
}

/// Reads a word and looks it up with `lookup` (an enum's `from_name`).
fn named<T>(cur: &mut Cursor, expected: &str, lookup: impl Fn(&str) -> Option<T>) -> Result<T> {
    let (w, loc) = cur.word(expected)?;
    match lookup(w) {
        Some(t) => Ok(t),
        None => error(loc, expected_word(expected, w)),
    }
}

/// Turns a map of numbered entities into a `PrimaryMap`, with `placeholder`
/// in the numbers nobody defined.
fn fill_gaps<K: EntityRef + core::hash::Hash + Eq, V: Clone>(
    mut defined: FxHashMap<K, V>,
    placeholder: V,
) -> PrimaryMap<K, V> {
    let mut out = PrimaryMap::new();
    let max = defined.keys().map(|k| k.index()).max();
    for i in max.map_or(0..0, |m| 0..m + 1) {
        out.push(defined.remove(&K::new(i)).unwrap_or(placeholder.clone()));
    }
    out
}

/// A float constant: decimal, `inf`, `-inf`, or raw IEEE bits in hex (NaNs).
fn float(cur: &mut Cursor) -> Result<f64> {
    let loc = cur.loc();
    let text = match *cur.peek() {
        Tok::Num(n) => n,
        Tok::Word("inf") => "inf",
        _ => return cur.unexpected("a float constant"),
    };
    cur.advance();
    let value = match text {
        "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        _ => match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16).ok().map(f64::from_bits),
            None => text.parse().ok(),
        },
    };
    value.map_or_else(|| error(loc, K::NotAFloat { text: text.into() }), Ok)
}

/// A quoted string (an `inline_asm`'s template or constraints).
fn quoted(cur: &mut Cursor, expected: &str) -> Result<String> {
    match cur.peek() {
        Tok::Str(s) => {
            let s = s.clone();
            cur.advance();
            Ok(s)
        }
        _ => cur.unexpected(expected),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entity_numbers_reject_leading_zeros() {
        assert_eq!(entity_number("v0", "v"), Some(0));
        assert_eq!(entity_number("v12", "v"), Some(12));
        assert_eq!(entity_number("v012", "v"), None);
        assert_eq!(entity_number("v", "v"), None);
        assert_eq!(entity_number("v1x", "v"), None);
        assert_eq!(
            entity_number("v99999999999999999999999", "v"),
            Some(u64::MAX)
        );
    }

    #[test]
    fn gaps_become_placeholders() {
        let f = parse_function(
            "device external @f() {\nblock2(v3: i32):\n    v5 = iadd v3, v3\n    return v5\n}\n",
        )
        .unwrap();
        assert_eq!(f.dfg.values.len(), 6);
        assert_eq!(f.dfg.value_def(Value::new(0)), ValueDef::Detached);
        assert_eq!(f.dfg.value_def(Value::new(4)), ValueDef::Detached);
        assert_eq!(f.dfg.value_type(Value::new(5)), Type::I32);
        assert_eq!(f.dfg.blocks.len(), 3);
        assert_eq!(f.layout.blocks(), &[Block::new(2)]);
    }

    #[test]
    fn types_flow_backwards_through_the_text() {
        // v2 is used (by v3) before it is defined, in a later block.
        let f = parse_function(
            "device external @f(f32) {\nblock0(v0: f32):\n    jump block2\n\n\
             block1:\n    v3 = fadd v2, v0\n    return\n\n\
             block2:\n    v2 = fneg v0\n    jump block1\n}\n",
        )
        .unwrap();
        assert_eq!(f.dfg.value_type(Value::new(3)), Type::F32);
    }

    #[test]
    fn self_dependent_types_are_an_error() {
        let e = parse_function(
            "device external @f() {\nblock0:\n    v1 = iadd v2, v2\n    v2 = iadd v1, v1\n    return\n}\n",
        )
        .unwrap_err();
        assert_eq!((e.line, e.col), (3, 5));
        assert!(matches!(e.kind, K::SelfDependentType { .. }), "{e}");
    }
}
