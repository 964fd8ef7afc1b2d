//! Host function templates whose arguments a call deduces, as far as host
//! code's instantiations of kernel templates need them
//! (`crate::host_uses::HostFrame`): the launch inside `template <class F>
//! void launch2D(int w, int h, F f)` called as `launch2D(w, h, [=]
//! __device__ (int x, int y) { ... })`, and the type of a call of one
//! (`auto op = compose(Clamp{...}, saxpy);`, of type `Compose<Clamp,
//! Saxpy>`). Each is deduced as a device function template would be, from
//! its declaration read as device code (`crate::parser::host_template`)
//! and its call's arguments' stand-ins (`crate::host_args`).

use std::sync::Arc;

use super::templates::ArgType;
use super::Checker;
use crate::ast::{self, Spelling};
use crate::host_uses::HostFrame;
use crate::parser::HostTemplate;
use crate::templates::{self, CallArg, Request, TemplateArg};
use crate::token::Token;
use crate::typed::{Expr, ExprKind};
use crate::types::CType;

/// Typedefs that bind host templates' parameters.
type Bindings = Vec<(String, (CType, bool, Spelling))>;

/// The host function templates' declarations read so far: each
/// declaration (its tokens, shared by its frames and by
/// `Templates::host_templates`) with the typedefs bound around it, and what
/// it read as. A recursive host template's frames repeat one declaration
/// at every depth, and every use inside them reads all of its frames:
/// read once, not once per frame and use. The tokens are kept, so no other
/// declaration can take their address.
#[derive(Default)]
pub(super) struct HostReads(Vec<(Arc<[Token]>, Bindings, Option<HostTemplate>)>);

/// A frame's template with its deduced arguments (none outside every
/// frame): what its body's tokens name by its value and pack parameters.
#[derive(Default)]
struct FrameArgs(Option<(templates::FunctionTemplate, Vec<templates::ArgValue>)>);

impl FrameArgs {
    /// `tokens`, written in the frame's body, with its packs written out
    /// and its values in place (`templates::bind_in`); `None` when they
    /// misuse a pack, which leaves the use unfollowed.
    fn bind(&self, tokens: &[crate::token::Token]) -> Option<Vec<crate::token::Token>> {
        match &self.0 {
            Some((t, args)) => templates::bind_in(t, args, tokens).ok(),
            None => Some(tokens.to_vec()),
        }
    }

    /// `tokens`, one argument of a call written in the frame's body,
    /// bound as [`Self::bind`] binds them: the arguments they stand for,
    /// one per element of the pack they expand (`args...`), else
    /// themselves.
    fn bind_each(&self, tokens: &[Token]) -> Option<Vec<Vec<Token>>> {
        match &self.0 {
            Some((t, args)) => templates::bind_each_in(t, args, tokens).ok(),
            None => Some(vec![tokens.to_vec()]),
        }
    }
}

/// Why a use found through host template frames is not made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Unfollowed {
    /// A frame's template does not take its call's arguments, whose types
    /// kernelc knows: another template of its name is the one called.
    NotCalled,
    /// kernelc cannot read or type the host code on the way; nvcc makes
    /// an instance kernelc does not (W0010 for a kernel).
    Unread,
}

impl Checker {
    /// The template arguments and call arguments of `r`, a use found
    /// through host templates called with deduced arguments, read once
    /// those templates' parameters are deduced; why not when kernelc
    /// cannot read or deduce them (no error: host code is not kernelc's
    /// to judge).
    pub(super) fn read_in_frames(
        &mut self,
        r: &Request,
    ) -> Result<(Vec<TemplateArg>, Vec<CallArg>), Unfollowed> {
        let templates = self.tmpl.templates.clone();
        let (bound, inner) = self.frame_bindings(&r.frames)?;
        let mut args = Vec::new();
        for tokens in &r.written {
            let tokens = inner.bind(tokens).ok_or(Unfollowed::Unread)?;
            let arg = crate::parser::host_template_arg(&templates, &tokens, &bound, &self.opts);
            args.push(arg.ok_or(Unfollowed::Unread)?);
        }
        let mut call = Vec::new();
        for a in &r.call {
            let Some(each) = inner.bind_each(&a.tokens) else {
                call.push(CallArg {
                    expr: None,
                    ..a.clone()
                });
                continue;
            };
            call.extend(each.iter().map(|tokens| CallArg {
                expr: crate::parser::host_expr(&templates, tokens, &bound, &self.opts),
                ..a.clone()
            }));
        }
        self.class_instance_items(1);
        Ok((args, call))
    }

    /// The template parameters of the host templates `frames` calls,
    /// deduced outermost first (each frame's call may name the ones
    /// before): the type parameters as typedefs, and the innermost
    /// frame's parameters, which the use inside it names.
    fn frame_bindings(
        &mut self,
        frames: &[HostFrame],
    ) -> Result<(Bindings, FrameArgs), Unfollowed> {
        use Unfollowed::Unread;
        let mut bound: Bindings = Vec::new();
        let mut caller = FrameArgs::default();
        for f in frames {
            let read = self.read_host_template(&f.header, &bound).ok_or(Unread)?;
            let mut arg_types: Vec<Option<ArgType>> = Vec::new();
            for a in f.args.iter() {
                for tokens in caller.bind_each(&a.tokens).ok_or(Unread)? {
                    arg_types.push(self.host_tokens_type(&tokens, &bound));
                }
            }
            let written = self
                .frame_written(&read.template, &f.explicit, &caller, &bound)
                .ok_or(Unread)?;
            let args = match self.deduce_pattern(&read.template, &written, &arg_types) {
                Ok(args) => args,
                Err(_) if arg_types.iter().all(Option::is_some) => {
                    return Err(Unfollowed::NotCalled)
                }
                Err(_) => return Err(Unread),
            };
            bound.extend(templates::type_bindings(&read.template, &args));
            caller = FrameArgs(Some((read.template, args)));
        }
        Ok((bound, caller))
    }

    /// The template arguments a frame's call writes (`launch<4>(p)`),
    /// read in the caller's scope (`caller`, `bound`) and evaluated
    /// against `t`'s parameters; `None` when one does not read.
    fn frame_written(
        &mut self,
        t: &templates::FunctionTemplate,
        explicit: &[Vec<Token>],
        caller: &FrameArgs,
        bound: &Bindings,
    ) -> Option<Vec<templates::ArgValue>> {
        if explicit.is_empty() {
            return Some(Vec::new());
        }
        let templates = self.tmpl.templates.clone();
        let mut args: Vec<TemplateArg> = Vec::new();
        for tokens in explicit {
            let tokens = caller.bind(tokens)?;
            let arg = crate::parser::host_template_arg(&templates, &tokens, bound, &self.opts);
            self.class_instance_items(1);
            args.push(arg?);
        }
        let values = self.template_arg_values(&args, &t.params)?;
        (values.len() == args.len()).then_some(values)
    }

    /// The host function template declared by `header`, read with `bound`
    /// (`crate::parser::host_template`), once per declaration and bindings.
    fn read_host_template(
        &mut self,
        header: &Arc<[Token]>,
        bound: &[(String, (CType, bool, Spelling))],
    ) -> Option<HostTemplate> {
        let known = self
            .tmpl
            .host_reads
            .0
            .iter()
            .find(|(h, b, _)| Arc::ptr_eq(h, header) && b == bound);
        if let Some((_, _, read)) = known {
            return read.clone();
        }
        let templates = self.tmpl.templates.clone();
        let read = crate::parser::host_template(&templates, header, bound, &self.opts);
        self.class_instance_items(1);
        self.tmpl
            .host_reads
            .0
            .push((header.clone(), bound.to_vec(), read.clone()));
        read
    }

    /// The type of a host call's argument `tokens` read with `bound`.
    fn host_tokens_type(
        &mut self,
        tokens: &[crate::token::Token],
        bound: &Bindings,
    ) -> Option<ArgType> {
        let templates = self.tmpl.templates.clone();
        let e = crate::parser::host_expr(&templates, tokens, bound, &self.opts);
        self.class_instance_items(1);
        self.host_expr_type(&e?)
    }

    /// A call of the host function template `name` in a host stand-in
    /// (`compose(a, b)`): a value of the type its declaration returns for
    /// the arguments the call deduces (not a call: host code is not
    /// compiled). `None` when `name` is no host template kernelc can read
    /// and deduce.
    pub(super) fn host_template_call(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: crate::diag::Span,
    ) -> Option<Expr> {
        let templates = self.tmpl.templates.clone();
        let headers = templates.host_templates.get(name)?;
        let arg_types: Vec<Option<ArgType>> = args
            .iter()
            .map(|a| self.expr(a).map(|e| self.c_arg_type(&e)))
            .collect();
        for header in headers {
            let Some(read) = self.read_host_template(header, &[]) else {
                continue;
            };
            let Ok(deduced) = self.deduce_pattern(&read.template, &[], &arg_types) else {
                continue;
            };
            let bound = templates::type_bindings(&read.template, &deduced);
            let ret = crate::parser::host_type(&templates, &read.ret, &bound, &self.opts);
            self.class_instance_items(1);
            let Some(ret) = ret else { continue };
            let tmp = self.declare_local("", ret.ty.clone(), false, false, span);
            self.mark_used(tmp);
            return Some(super::expr::mk(ExprKind::Local(tmp), ret.ty, span));
        }
        None
    }
}
