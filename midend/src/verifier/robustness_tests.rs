//! The verifier must never panic, however broken the function: corrupt a
//! valid function at random (dangling references, stale definitions, broken
//! layout) and check that verifying and annotating it return normally.

use super::verify_function;
use crate::builder::{FuncCursor, InstBuilder};
use crate::ir::{
    AbiParam, AddrSpace, Block, FuncAttrs, FuncKind, Function, Inst, IntCC, Linkage, MemFlags,
    Module, Signature, Type, Value, ValueDef,
};
use cranelift_entity::EntityRef;

/// A tiny deterministic generator (64-bit LCG); enough for picking mutations.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// A loop storing to memory: blocks with parameters, branches, loads, stores.
fn sample() -> Function {
    let g = Type::Ptr(AddrSpace::Global);
    let sig = Signature {
        params: vec![AbiParam::new(g), AbiParam::new(Type::I32)],
        returns: vec![],
    };
    let mut f = Function::new(
        "s",
        sig,
        FuncAttrs::new(FuncKind::Kernel, Linkage::External),
    );
    let [entry, header, body, exit] = [0; 4].map(|_| f.dfg.make_block());
    for b in [entry, header, body, exit] {
        f.layout.append_block(b);
    }
    let p = f.dfg.append_block_param(entry, g);
    let n = f.dfg.append_block_param(entry, Type::I32);
    let i = f.dfg.append_block_param(header, Type::I32);
    let mut c = FuncCursor::at_end(&mut f, entry);
    let zero = c.iconst(Type::I32, 0);
    c.jump(header, vec![zero]);
    let mut c = FuncCursor::at_end(c.func, header);
    let more = c.icmp(IntCC::Slt, i, n);
    c.brif(more, body, vec![], exit, vec![]);
    let mut c = FuncCursor::at_end(c.func, body);
    let wide = c.convert(crate::ir::Opcode::Sext, Type::I64, i);
    let q = c.ptroffset(p, wide);
    let x = c.load(Type::I32, q, MemFlags::default());
    let one = c.iconst(Type::I32, 1);
    let y = c.iadd(x, one);
    c.store(y, q, MemFlags::default());
    let next = c.iadd(i, one);
    c.jump(header, vec![next]);
    let mut c = FuncCursor::at_end(c.func, exit);
    c.ret(vec![]);
    f
}

fn mutate(f: &mut Function, rng: &mut Lcg, fresh: &mut u32) {
    let placed: Vec<Inst> = f
        .layout
        .insts()
        .map(|(_, i)| i)
        .filter(|&i| f.dfg.insts.is_valid(i))
        .collect();
    let nv = f.dfg.values.len() + 3;
    let nb = f.dfg.blocks.len() + 2;
    let inst = placed.get(rng.below(placed.len())).copied();
    let value = Value::new(rng.below(nv));
    let block = Block::new(rng.below(nb));
    match rng.below(8) {
        0 => {
            if let Some(inst) = inst {
                let mut k = 0;
                let pick = rng.below(3);
                f.dfg.insts[inst].map_args(|v| {
                    k += 1;
                    if k - 1 == pick {
                        value
                    } else {
                        v
                    }
                });
            }
        }
        1 => {
            if let Some(inst) = inst {
                for d in f.dfg.insts[inst].branch_destinations_mut() {
                    d.block = block;
                }
            }
        }
        2 => {
            if let Some(inst) = inst {
                f.layout.remove_inst(inst);
            }
        }
        3 => {
            let v = Value::new(rng.below(f.dfg.values.len()));
            let n = rng.below(3) as u32;
            f.dfg.values[v].def = match rng.below(4) {
                0 => ValueDef::Detached,
                1 => ValueDef::Alias(value),
                2 => ValueDef::Result(Inst::new(rng.below(placed.len() + 2)), n),
                _ => ValueDef::Param(block, n),
            };
        }
        4 => {
            if f.dfg.blocks.is_valid(block) {
                f.dfg.blocks[block].params.push(value);
            }
        }
        5 => {
            if let Some(inst) = inst {
                f.dfg.results[inst].push(value);
            }
        }
        6 => {
            if let Some(&b) = f.layout.blocks().get(rng.below(4)) {
                *fresh += 1;
                f.layout.append_inst(Inst::from_u32(1000 + *fresh), b);
            }
        }
        _ => {
            let at = placed.get(rng.below(placed.len())).copied();
            if let (Some(inst), Some(at)) = (inst, at) {
                // The layout API itself panics on an unplaced `at`.
                if f.layout.inst_block(at).is_some() {
                    f.layout.insert_inst_before(inst, at);
                }
            }
        }
    }
}

#[test]
fn corrupted_functions_never_panic_the_verifier() {
    let module = Module::new();
    assert_eq!(verify_function(&sample(), None), Ok(()));
    let mut rng = Lcg(0x5eed);
    let mut fresh = 0;
    for _ in 0..2000 {
        let mut f = sample();
        for _ in 0..1 + rng.below(4) {
            mutate(&mut f, &mut rng, &mut fresh);
        }
        for m in [None, Some(&module)] {
            if let Err(e) = verify_function(&f, m) {
                assert!(!e.is_empty());
                let text = e.annotate(&f, m);
                assert!(text.contains("; error: "), "{text}");
            }
        }
    }
}
