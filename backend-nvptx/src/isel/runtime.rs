//! Calls into the CUDA runtime's device library: `vprintf` (device
//! `printf`) and `__assertfail` (a failed `assert`).
//!
//! They are ordinary PTX calls of functions the module declares `.extern`
//! ([`RUNTIME_FUNCTIONS`]): the driver links them in when it loads the
//! module, as it does for nvcc's PTX, which calls them the same way.

use super::error::Malformed;
use super::{device_param_ty, Isel, IselResult};
use crate::minst::{AddrBase, Address, MInst, Space};
use midend::ir::{AccelOp, Type, Value};

/// The runtime functions: the operation, the PTX name, the parameter types
/// and the result type, as CUDA's headers declare them and nvcc's PTX
/// declares them (`.extern .func (.param .b32 func_retval0) vprintf(...)`).
pub const RUNTIME_FUNCTIONS: &[(AccelOp, &str, &[Type], Option<Type>)] = &[
    (
        AccelOp::Vprintf,
        "vprintf",
        &[Type::I64, Type::I64],
        Some(Type::I32),
    ),
    (
        AccelOp::AssertFail,
        "__assertfail",
        &[Type::I64, Type::I64, Type::I32, Type::I64, Type::I64],
        None,
    ),
];

/// The name, parameter types and result type of runtime call `op`.
pub fn runtime_function(op: AccelOp) -> Option<(&'static str, &'static [Type], Option<Type>)> {
    RUNTIME_FUNCTIONS
        .iter()
        .find(|(o, ..)| *o == op)
        .map(|&(_, name, params, ret)| (name, params, ret))
}

impl Isel<'_> {
    /// `call.uni (retval0), vprintf, (param0, param1);` in its own
    /// parameter scope, as for a call of a device function.
    pub(super) fn runtime_call(
        &mut self,
        op: AccelOp,
        args: &[Value],
        results: &[Value],
    ) -> IselResult<()> {
        let (callee, params, ret) =
            runtime_function(op).ok_or(Malformed::NotARuntimeCall(op.opcode()))?;
        self.emit(MInst::ScopeOpen);
        let mut names = Vec::new();
        for (n, (&a, &ty)) in args.iter().zip(params).enumerate() {
            let name = format!("param{n}");
            self.emit(MInst::ParamDecl {
                ty: device_param_ty(ty),
                name: name.clone(),
            });
            let addr = Address {
                base: AddrBase::Sym(name.clone()),
                offset: 0,
            };
            self.store(Space::Param, false, a, addr)?;
            names.push(name);
        }
        let ret = ret.zip(results.first().copied());
        if let Some((ty, _)) = ret {
            self.emit(MInst::ParamDecl {
                ty: device_param_ty(ty),
                name: "retval0".into(),
            });
        }
        self.emit(MInst::Call {
            callee: callee.into(),
            ret: ret.map(|_| "retval0".to_string()),
            args: names,
        });
        if let Some((ty, r)) = ret {
            let dst = self.def(r);
            let addr = Address {
                base: AddrBase::Sym("retval0".into()),
                offset: 0,
            };
            self.load(Space::Param, super::LoadKind::Plain, ty, dst, addr)?;
        }
        self.emit(MInst::ScopeClose);
        Ok(())
    }
}
