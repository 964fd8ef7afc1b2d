//! Writes modules and functions in the IR text format.

use crate::ir::Inst;
use crate::ir::{
    Block, Function, GlobalVarData, InstData, Linkage, MemFlags, Module, Opcode, Type, Value,
};
use core::fmt::{self, Write};
use std::collections::BTreeMap;

/// What to print besides the IR itself.
#[derive(Copy, Clone, Debug, Default)]
pub struct PrintOptions {
    /// Append each instruction's source span as `!start..end`.
    pub spans: bool,
}

/// Prints a whole module: variables first, then functions, in id order.
pub fn write_module(module: &Module, opts: PrintOptions) -> String {
    let mut out = String::new();
    for (gv, data) in module.globals.iter() {
        write_global(&mut out, gv, data, module).unwrap();
    }
    for (i, (_, func)) in module.functions.iter().enumerate() {
        if i > 0 || !module.globals.is_empty() {
            out.push('\n');
        }
        out.push_str(&write_function(func, Some(module), opts));
    }
    out
}

fn write_global(
    out: &mut String,
    gv: crate::ir::GlobalVar,
    g: &GlobalVarData,
    module: &Module,
) -> fmt::Result {
    write!(out, "{gv} = {}", g.space)?;
    match g.linkage {
        Linkage::External => {}
        Linkage::Internal => out.push_str(" internal"),
        Linkage::Weak => out.push_str(" weak"),
    }
    write!(out, " @{}", g.name)?;
    if g.managed {
        out.push_str(", managed");
    }
    if g.dynamic {
        out.push_str(", dynamic");
    } else {
        write!(out, ", size {}", g.size)?;
    }
    write!(out, ", align {}", g.align)?;
    if let Some(init) = &g.init {
        out.push_str(", init [");
        for (i, b) in init.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write!(out, "0x{b:02x}")?;
        }
        out.push(']');
    }
    if !g.relocs.is_empty() {
        out.push_str(", relocs [");
        for (i, r) in g.relocs.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_reloc(out, r, module)?;
        }
        out.push(']');
    }
    out.push('\n');
    Ok(())
}

/// `8: gv0 + 32` (a variable's address plus an addend, which may be
/// negative: `gv0 + -4`) or `16: @add` (a function's).
fn write_reloc(out: &mut String, r: &crate::ir::Reloc, module: &Module) -> fmt::Result {
    write!(out, "{}: ", r.offset)?;
    match r.target {
        crate::ir::RelocTarget::Global(t) => write!(out, "{t}")?,
        crate::ir::RelocTarget::Func(f) => match module.functions.get(f) {
            Some(func) => write!(out, "@{}", func.name)?,
            None => write!(out, "{f}")?,
        },
    }
    match r.addend {
        0 => Ok(()),
        a => write!(out, " + {a}"),
    }
}

/// Prints one function. Calls name their callee by `@name` when the module
/// is given, and by `fnN` otherwise.
pub fn write_function(func: &Function, module: Option<&Module>, opts: PrintOptions) -> String {
    write_function_with_comments(func, module, opts, &Comments::default())
}

/// Where a comment line attaches.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum CommentAt {
    /// After the function's header line.
    Function,
    /// After a block's header line.
    Block(Block),
    /// After an instruction.
    Inst(Inst),
}

/// Comment lines to print under entities (the verifier's `; error:` lines).
#[derive(Clone, Debug, Default)]
pub struct Comments {
    pub lines: BTreeMap<CommentAt, Vec<String>>,
}

impl Comments {
    pub fn add(&mut self, at: CommentAt, text: impl Into<String>) {
        self.lines.entry(at).or_default().push(text.into());
    }
}

/// Prints one function with `; text` lines under the entities `comments` names.
pub fn write_function_with_comments(
    func: &Function,
    module: Option<&Module>,
    opts: PrintOptions,
    comments: &Comments,
) -> String {
    let mut w = FuncWriter {
        out: String::new(),
        func,
        module,
        opts,
        comments,
    };
    w.function().expect("writing to a String cannot fail");
    w.out
}

/// A block's header line and its instruction lines, as [`write_function`]
/// prints them (for pictures of the CFG: `dot.rs`).
pub(crate) fn block_lines(
    func: &Function,
    module: Option<&Module>,
    opts: PrintOptions,
    block: Block,
) -> (String, Vec<String>) {
    let mut w = FuncWriter {
        out: String::new(),
        func,
        module,
        opts,
        comments: &Comments::default(),
    };
    w.block_header(block)
        .expect("writing to a String cannot fail");
    let header = std::mem::take(&mut w.out);
    let mut insts = Vec::new();
    for &inst in func.layout.block_insts(block) {
        w.inst(inst).expect("writing to a String cannot fail");
        insts.push(std::mem::take(&mut w.out));
    }
    (header.trim_end().to_string(), insts)
}

struct FuncWriter<'a> {
    out: String,
    func: &'a Function,
    module: Option<&'a Module>,
    opts: PrintOptions,
    comments: &'a Comments,
}

impl FuncWriter<'_> {
    fn function(&mut self) -> fmt::Result {
        self.header()?;
        self.out.push_str(" {\n");
        self.comment_lines(CommentAt::Function, "    ");
        self.preamble()?;
        for (i, &block) in self.func.layout.blocks().iter().enumerate() {
            if i > 0 || !self.preamble_is_empty() {
                self.out.push('\n');
            }
            self.block_header(block)?;
            self.comment_lines(CommentAt::Block(block), "");
            for &inst in self.func.layout.block_insts(block) {
                self.out.push_str("    ");
                self.inst(inst)?;
                self.out.push('\n');
                self.comment_lines(CommentAt::Inst(inst), "    ");
            }
        }
        self.out.push_str("}\n");
        Ok(())
    }

    fn comment_lines(&mut self, at: CommentAt, indent: &str) {
        if let Some(lines) = self.comments.lines.get(&at) {
            for line in lines {
                self.out.push_str(indent);
                self.out.push_str("; ");
                // One comment per line, whatever the text holds.
                self.out.push_str(&line.replace('\n', " "));
                self.out.push('\n');
            }
        }
    }

    fn preamble_is_empty(&self) -> bool {
        self.func.stack_slots.is_empty()
            && self.func.alias_scopes.is_empty()
            && self.printed_hints().next().is_none()
    }

    /// The loop hints whose header is still in the layout.
    fn printed_hints(&self) -> impl Iterator<Item = (Block, crate::ir::LoopHint)> + '_ {
        self.func
            .loop_hints
            .iter()
            .filter(|(b, _)| self.func.layout.is_block_inserted(**b))
            .map(|(b, h)| (*b, *h))
    }

    fn header(&mut self) -> fmt::Result {
        let f = self.func;
        let kind = if f.is_kernel() { "kernel" } else { "device" };
        let linkage = match f.attrs.linkage {
            Linkage::External => "external",
            Linkage::Internal => "internal",
            Linkage::Weak => "weak",
        };
        write!(self.out, "{kind} {linkage} @{}(", f.name)?;
        for (i, p) in f.signature.params.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            write!(self.out, "{}", p.ty)?;
            if p.attrs.restrict {
                self.out.push_str(" restrict");
            }
            if p.attrs.noalias {
                self.out.push_str(" noalias");
            }
            if p.attrs.grid_constant {
                self.out.push_str(" grid_constant");
            }
            if let Some((size, align)) = p.attrs.byval {
                write!(self.out, " byval({size}, {align})")?;
            }
            if let Some((size, align)) = p.attrs.sret {
                write!(self.out, " sret({size}, {align})")?;
            }
            if !p.attrs.restrict_fields.is_empty() {
                let offs: Vec<String> = p
                    .attrs
                    .restrict_fields
                    .iter()
                    .map(|o| o.to_string())
                    .collect();
                write!(self.out, " restrict_fields({})", offs.join(", "))?;
            }
        }
        self.out.push(')');
        if !f.signature.returns.is_empty() {
            self.out.push_str(" -> ");
            self.list(&f.signature.returns, |w, t| write!(w.out, "{t}"))?;
        }
        if f.attrs.noinline {
            self.out.push_str(" noinline");
        }
        if f.attrs.forceinline {
            self.out.push_str(" forceinline");
        }
        if f.attrs.restrict_processed {
            self.out.push_str(" restrict_processed");
        }
        if f.attrs.ftz {
            self.out.push_str(" ftz");
        }
        if let Some([x, y, z]) = f.attrs.cluster_dims {
            write!(self.out, " cluster_dims({x}, {y}, {z})")?;
        }
        if let Some(spaces) = &f.attrs.arg_spaces {
            let words: Vec<&str> = spaces
                .iter()
                .map(|s| s.map_or("none", |s| s.name()))
                .collect();
            write!(self.out, " arg_spaces({})", words.join(", "))?;
        }
        match f.attrs.launch_bounds {
            Some((n, Some(m))) => write!(self.out, " launch_bounds({n}, {m})")?,
            Some((n, None)) => write!(self.out, " launch_bounds({n})")?,
            None => {}
        }
        Ok(())
    }

    fn preamble(&mut self) -> fmt::Result {
        for (ss, data) in self.func.stack_slots.iter() {
            writeln!(
                self.out,
                "    {ss} = stack {}, align {}",
                data.size, data.align
            )?;
        }
        for (scope, data) in self.func.alias_scopes.iter() {
            writeln!(self.out, "    {scope} = alias_scope {:?}", data.name)?;
        }
        let hints: Vec<_> = self.printed_hints().collect();
        for (block, hint) in hints {
            match hint {
                crate::ir::LoopHint::Full => writeln!(self.out, "    unroll {block} full")?,
                crate::ir::LoopHint::Count(n) => writeln!(self.out, "    unroll {block} {n}")?,
                crate::ir::LoopHint::Unrolled => writeln!(self.out, "    unroll {block} unrolled")?,
            }
        }
        Ok(())
    }

    fn block_header(&mut self, block: Block) -> fmt::Result {
        write!(self.out, "{block}")?;
        let params = self.func.dfg.block_params(block);
        if !params.is_empty() {
            self.out.push('(');
            for (i, &p) in params.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                write!(self.out, "{p}: {}", self.func.dfg.value_type(p))?;
            }
            self.out.push(')');
        }
        self.out.push_str(":\n");
        Ok(())
    }

    fn list<T: Copy>(
        &mut self,
        items: &[T],
        mut each: impl FnMut(&mut Self, T) -> fmt::Result,
    ) -> fmt::Result {
        for (i, &item) in items.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            each(self, item)?;
        }
        Ok(())
    }

    fn value(&mut self, v: Value) -> fmt::Result {
        write!(self.out, "{}", self.func.dfg.resolve_aliases(v))
    }

    fn values(&mut self, vs: &[Value]) -> fmt::Result {
        self.list(vs, |w, v| w.value(v))
    }

    /// A function named by `@name` when the module is known, else `fnN`.
    fn func_ref(&mut self, func: crate::ir::FuncId) -> fmt::Result {
        match self.module.and_then(|m| m.functions.get(func)) {
            Some(f) => write!(self.out, "@{}", f.name),
            None => write!(self.out, "{func}"),
        }
    }

    /// `v1(v2, v3) : (T2, T3) -> R`: an indirect call's operands and
    /// signature.
    fn call_indirect(&mut self, sig: &crate::ir::CallSig, args: &[Value]) -> fmt::Result {
        if let Some((&callee, args)) = args.split_first() {
            self.value(callee)?;
            self.out.push('(');
            self.values(args)?;
        } else {
            self.out.push('(');
        }
        self.out.push_str(") : (");
        self.list(&sig.params, |w, t| write!(w.out, "{t}"))?;
        self.out.push(')');
        if !sig.returns.is_empty() {
            self.out.push_str(" -> ");
            self.list(&sig.returns, |w, t| write!(w.out, "{t}"))?;
        }
        Ok(())
    }

    fn block_call(&mut self, dest: &crate::ir::BlockCall) -> fmt::Result {
        write!(self.out, "{}", dest.block)?;
        if !dest.args.is_empty() {
            self.out.push('(');
            self.values(&dest.args)?;
            self.out.push(')');
        }
        Ok(())
    }

    fn mem_flags(&mut self, flags: &MemFlags) -> fmt::Result {
        if flags.volatile {
            self.out.push_str(" volatile");
        }
        if flags.invariant {
            self.out.push_str(" invariant");
        }
        if flags.align != 0 {
            write!(self.out, " align({})", flags.align)?;
        }
        if let Some(c) = flags.cache {
            write!(self.out, " cache({c})")?;
        }
        if !flags.scopes.is_empty() {
            self.out.push_str(" scopes(");
            self.list(&flags.scopes, |w, s| write!(w.out, "{s}"))?;
            self.out.push(')');
        }
        if !flags.noalias.is_empty() {
            self.out.push_str(" noalias(");
            self.list(&flags.noalias, |w, s| write!(w.out, "{s}"))?;
            self.out.push(')');
        }
        Ok(())
    }

    /// Writes one instruction, without indentation or newline.
    // Long: one arm per instruction format, the operand syntax docs/ir.md
    // gives for it, mirroring `operands_of` in the parser.
    fn inst(&mut self, inst: crate::ir::Inst) -> fmt::Result {
        let results = self.func.dfg.inst_results(inst).to_vec();
        if !results.is_empty() {
            self.values(&results)?;
            self.out.push_str(" = ");
        }
        let data = &self.func.dfg.insts[inst];
        let op = data.opcode();
        match data {
            InstData::Iconst { ty, imm } => write!(self.out, "iconst.{ty} {imm}")?,
            InstData::Fconst { ty, value } => {
                write!(self.out, "fconst.{ty} ")?;
                write_float(&mut self.out, *value)?;
            }
            InstData::Unary { arg, .. } => {
                write!(self.out, "{op} ")?;
                self.value(*arg)?;
            }
            InstData::Binary { args, .. } | InstData::IntCompare { args, .. } => {
                write!(self.out, "{op} ")?;
                if let InstData::IntCompare { cond, .. } = data {
                    write!(self.out, "{cond} ")?;
                }
                self.values(args)?;
            }
            InstData::FloatCompare { cond, args } => {
                write!(self.out, "{op} {cond} ")?;
                self.values(args)?;
            }
            InstData::Ternary { args, .. } => {
                write!(self.out, "{op} ")?;
                self.values(args)?;
            }
            InstData::Convert { ty, arg, .. } => {
                write!(self.out, "{op}.{ty} ")?;
                self.value(*arg)?;
            }
            InstData::AddrSpaceCast { to, arg } => {
                write!(self.out, "{op}.{} ", Type::Ptr(*to))?;
                self.value(*arg)?;
            }
            InstData::GlobalAddr { gv } => {
                let ty = results
                    .first()
                    .map(|&r| self.func.dfg.value_type(r).to_string())
                    .unwrap_or_else(|| "?".into());
                write!(self.out, "{op}.{ty} {gv}")?;
            }
            InstData::StackAddr { slot } => write!(self.out, "{op} {slot}")?,
            InstData::Load { ty, ptr, flags } => {
                write!(self.out, "{op}.{ty} ")?;
                self.value(*ptr)?;
                self.mem_flags(flags)?;
            }
            InstData::Store { value, ptr, flags } => {
                write!(self.out, "{op} ")?;
                self.values(&[*value, *ptr])?;
                self.mem_flags(flags)?;
            }
            InstData::Call { func, args } => {
                write!(self.out, "{op} ")?;
                self.func_ref(*func)?;
                self.out.push('(');
                self.values(args)?;
                self.out.push(')');
            }
            InstData::CallIndirect { sig, args } => {
                write!(self.out, "{op} ")?;
                self.call_indirect(sig, args)?;
            }
            InstData::FuncAddr { func } => {
                write!(self.out, "{op} ")?;
                self.func_ref(*func)?;
            }
            InstData::SpecialReg { reg } => write!(self.out, "{op} {reg}")?,
            InstData::AtomicRmw {
                op: aop,
                scope,
                args,
            } => {
                write!(self.out, "{op} {aop} {scope} ")?;
                self.values(args)?;
            }
            InstData::AtomicCas { scope, args } => {
                write!(self.out, "{op} {scope} ")?;
                self.values(args)?;
            }
            InstData::AtomicVec {
                op: aop,
                scope,
                args,
            } => {
                write!(self.out, "{op} {aop} {scope} ")?;
                self.values(args)?;
            }
            InstData::Fence { scope } => write!(self.out, "{op} {scope}")?,
            InstData::Shuffle { mode, args } => {
                write!(self.out, "{op} {mode} ")?;
                self.values(args)?;
            }
            InstData::Vote { mode, args } => {
                write!(self.out, "{op} {mode} ")?;
                self.values(args)?;
            }
            InstData::Redux { op: rop, args } => {
                write!(self.out, "{op} {rop} ")?;
                self.values(args)?;
            }
            InstData::Match { mode, args } => {
                write!(self.out, "{op} {mode} ")?;
                self.values(args)?;
            }
            InstData::BarrierRed { op: rop, arg } => {
                write!(self.out, "{op} {rop} ")?;
                self.value(*arg)?;
            }
            InstData::Effect { arg, .. } => {
                write!(self.out, "{op} ")?;
                self.value(*arg)?;
            }
            InstData::IsSpace { space, arg } => {
                write!(self.out, "{op} {space} ")?;
                self.value(*arg)?;
            }
            InstData::Nullary { .. } => write!(self.out, "{op}")?,
            InstData::Accel { op: aop, args } => {
                write!(self.out, "{aop}")?;
                if !args.is_empty() {
                    self.out.push(' ');
                    self.values(args)?;
                }
            }
            InstData::InlineAsm { asm, args } => {
                write!(self.out, "{op}")?;
                if asm.volatile {
                    self.out.push_str(" volatile");
                }
                if asm.memory {
                    self.out.push_str(" memory");
                }
                let (outs, ins) = (asm.outputs_text(), asm.inputs_text());
                write!(self.out, " {:?} {outs:?} {ins:?}", asm.template)?;
                if !args.is_empty() {
                    self.out.push(' ');
                    self.values(args)?;
                }
            }
            InstData::Jump { dest } => {
                write!(self.out, "{op} ")?;
                self.block_call(dest)?;
            }
            InstData::Brif {
                cond,
                then_dest,
                else_dest,
            } => {
                write!(self.out, "{op} ")?;
                self.value(*cond)?;
                self.out.push_str(", ");
                self.block_call(then_dest)?;
                self.out.push_str(", ");
                self.block_call(else_dest)?;
            }
            InstData::Return { args } => {
                self.out.push_str(Opcode::Return.name());
                if !args.is_empty() {
                    self.out.push(' ');
                    self.values(args)?;
                }
            }
        }
        let span = self.func.spans[inst];
        if self.opts.spans && !span.is_none() {
            write!(self.out, " !{}..{}", span.start, span.end)?;
        }
        Ok(())
    }
}

/// Writes a float so that parsing it gives back the same f64: the shortest
/// decimal form for finite values, `inf`/`-inf`, and the raw bits in hex for NaN.
pub fn write_float(out: &mut String, value: f64) -> fmt::Result {
    if value.is_nan() {
        write!(out, "0x{:016x}", value.to_bits())
    } else if value.is_infinite() {
        out.push_str(if value > 0.0 { "inf" } else { "-inf" });
        Ok(())
    } else {
        write!(out, "{value:?}")
    }
}
