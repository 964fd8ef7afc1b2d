//! Shared by midend's integration tests: functions built with the builder
//! and the text the printer gives for them.

#![allow(dead_code)]

use midend::builder::InstBuilder;
use midend::ir::*;
use midend::ssa::{FunctionBuilder, Variable};

/// `int sum(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }`
pub fn build_sum_loop() -> Function {
    let sig = Signature {
        params: vec![AbiParam::new(Type::I32)],
        returns: vec![Type::I32],
    };
    let mut func = Function::new(
        "sum",
        sig,
        FuncAttrs::new(FuncKind::Device, Linkage::External),
    );
    let mut b = FunctionBuilder::new(&mut func);
    let (s, i, n) = (
        Variable::from_u32(0),
        Variable::from_u32(1),
        Variable::from_u32(2),
    );
    for v in [s, i, n] {
        b.declare_var(v, Type::I32);
    }
    let entry = b.create_block();
    let header = b.create_block();
    let body = b.create_block();
    let exit = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let param = b.func.params()[0];
    b.def_var(n, param);
    let zero = b.iconst(Type::I32, 0);
    b.def_var(s, zero);
    b.def_var(i, zero);
    b.jump(header, vec![]);

    b.switch_to_block(header);
    let iv = b.use_var(i);
    let nv = b.use_var(n);
    let c = b.icmp(IntCC::Slt, iv, nv);
    b.brif(c, body, vec![], exit, vec![]);

    b.switch_to_block(body);
    b.seal_block(body);
    let sv = b.use_var(s);
    let iv = b.use_var(i);
    let s2 = b.iadd(sv, iv);
    b.def_var(s, s2);
    let one = b.iconst(Type::I32, 1);
    let i2 = b.iadd(iv, one);
    b.def_var(i, i2);
    b.jump(header, vec![]);
    b.seal_block(header);

    b.switch_to_block(exit);
    b.seal_block(exit);
    let sv = b.use_var(s);
    b.ret(vec![sv]);
    b.finalize();
    func
}

/// What the printer writes for [`build_sum_loop`]. `n` is loop-invariant:
/// its header parameter (v3) is made while the header is unsealed, found
/// trivial when it is sealed, and removed, so only `i` and `s` keep
/// parameters. Numbers are never reused, hence the gap.
pub const SUM_LOOP_TEXT: &str = "\
device external @sum(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    jump block1(v1, v1)

block1(v2: i32, v5: i32):
    v4 = icmp slt v2, v0
    brif v4, block2, block3

block2:
    v6 = iadd v5, v2
    v7 = iconst.i32 1
    v8 = iadd v2, v7
    jump block1(v8, v6)

block3:
    return v5
}
";
