//! `divconst` checked by running its output: for each type and divisor, a
//! kernel computes `sdiv`, `srem`, `udiv` and `urem` of many dividends by
//! the constant; the interpreter runs it as written (the division's own
//! semantics) and after the pass, and the results must be the same bits.
//! (The magic numbers themselves are checked against Rust's `/` and `%` on
//! many more divisors in the pass's unit tests.) A test of a midend pass, it
//! lives in the interpreter's crate because the midend never depends on
//! the interpreter.

use kir_interp::{run_kernel, KernelArg, LaunchConfig};
use midend::ir::{InstData, Module, Opcode};
use midend::passes::expand_const_division;
use midend::text::parse_module;
use stdx::bits::sext;
use stdx::rng::SplitMix64;

const OPS: [&str; 4] = ["sdiv", "srem", "udiv", "urem"];
const BLOCK: u32 = 256;
const BLOCKS: u32 = 3;

/// One thread per dividend; thread `i` stores `op_j(in[i], d)` at
/// `out[4 * i + j]`.
fn kernel(ty: &str, bytes: u32, d: i64) -> String {
    let mut text = format!(
        "kernel external @k(ptr<global>, ptr<global>) {{
block0(v0: ptr<global>, v1: ptr<global>):
    v2 = special tid.x
    v3 = special ctaid.x
    v4 = special ntid.x
    v5 = imul v3, v4
    v6 = iadd v5, v2
    v7 = zext.i64 v6
    v8 = iconst.i64 {bytes}
    v9 = imul v7, v8
    v10 = ptroffset v0, v9
    v11 = load.{ty} v10
    v12 = iconst.{ty} {d}
    v13 = iconst.i64 4
    v14 = imul v9, v13
"
    );
    for (j, op) in OPS.iter().enumerate() {
        let v = 20 + 4 * j;
        text.push_str(&format!(
            "    v{} = {op} v11, v12
    v{} = iconst.i64 {}
    v{} = iadd v14, v{}
    v{} = ptroffset v1, v{}
    store v{}, v{}
",
            v,
            v + 1,
            j as u32 * bytes,
            v + 2,
            v + 1,
            v + 3,
            v + 2,
            v,
            v + 3
        ));
    }
    text.push_str("    return\n}\n");
    text
}

fn run(module: &Module, input: &[u8]) -> Vec<u8> {
    let config = LaunchConfig {
        grid: [BLOCKS, 1, 1],
        block: [BLOCK, 1, 1],
        ..LaunchConfig::default()
    };
    let out = vec![0u8; input.len() * 4];
    let args = vec![KernelArg::Buffer(input.to_vec()), KernelArg::Buffer(out)];
    let result = run_kernel(module, "k", &args, &config).unwrap_or_else(|e| panic!("{e}"));
    result.buffers[1].clone().unwrap()
}

/// The dividends: the edges of the type, neighbours of multiples of `d`,
/// then random values of every magnitude.
fn dividends(bits: u32, d: i64, rng: &mut SplitMix64) -> Vec<u64> {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let half = 1u64 << (bits - 1);
    let ud = d as u64 & mask;
    let mut v: Vec<u64> = vec![0, 1, mask, mask - 1, half, half - 1, half + 1];
    for k in [1u64, 2, 3, 100, mask / ud.max(1), (half - 1) / ud.max(1)] {
        let m = k.wrapping_mul(ud);
        for x in [m.wrapping_sub(1), m, m.wrapping_add(1)] {
            v.push(x);
            v.push(x.wrapping_neg());
        }
    }
    while v.len() < (BLOCK * BLOCKS) as usize {
        let shift = rng.next_u64() % 64;
        v.push(rng.next_u64() >> shift);
    }
    v.into_iter().map(|x| x & mask).collect()
}

fn divisions_left(module: &Module) -> usize {
    let func = module.functions.values().next().unwrap();
    func.layout
        .insts()
        .filter(|&(_, i)| {
            matches!(
                func.dfg.insts[i],
                InstData::Binary {
                    opcode: Opcode::Sdiv | Opcode::Srem | Opcode::Udiv | Opcode::Urem,
                    ..
                }
            )
        })
        .count()
}

fn check(ty: &str, bits: u32, d: i64, rng: &mut SplitMix64) {
    let bytes = bits / 8;
    // Constants are written sign-extended from their width.
    let d = sext(d as u64, bits);
    let text = kernel(ty, bytes, d);
    let before = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut after = before.clone();
    for func in after.functions.values_mut() {
        expand_const_division(func);
    }
    if let Err(errors) = midend::verifier::verify_module(&after) {
        let (f, e) = &errors[0];
        panic!("{}", e.annotate(&after.functions[*f], Some(&after)));
    }
    // Every division by a constant other than 0, 1, -1 and the most
    // negative value is rewritten.
    let ud = d as u64
        & if bits == 64 {
            u64::MAX
        } else {
            (1 << bits) - 1
        };
    let signed_left = d == -1 || d == sext(1 << (bits - 1), bits);
    let expected_left = if ud <= 1 {
        4
    } else if signed_left {
        2
    } else {
        0
    };
    assert_eq!(divisions_left(&after), expected_left, "{ty} by {d}");
    let input: Vec<u8> = dividends(bits, d, rng)
        .iter()
        .flat_map(|x| x.to_le_bytes()[..bytes as usize].to_vec())
        .collect();
    let want = run(&before, &input);
    let got = run(&after, &input);
    if want != got {
        let b = bytes as usize;
        for i in 0..input.len() / b {
            for (j, op) in OPS.iter().enumerate() {
                let at = (4 * i + j) * b;
                assert_eq!(
                    got[at..at + b],
                    want[at..at + b],
                    "{op}.{ty} of {:?} by {d}",
                    &input[i * b..i * b + b]
                );
            }
        }
    }
}

fn divisors(bits: u32, rng: &mut SplitMix64) -> Vec<i64> {
    let mut v: Vec<i64> = vec![
        3,
        5,
        6,
        7,
        10,
        12,
        14,
        25,
        100,
        125,
        255,
        641,
        1000,
        65535,
        1_000_000_007,
    ];
    v.extend(v.clone().iter().map(|d| -d));
    let max = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    for x in [
        max,
        max - 1,
        max - 2,
        max >> 1,
        (max >> 1) - 1,
        (max >> 1) + 2,
    ] {
        v.push(x as i64);
    }
    // The ones left alone: 0, ±1, ± powers of two, the most negative.
    v.extend([0, 1, -1, 2, -2, 64, -64, 1i64 << (bits - 1)]);
    for _ in 0..12 {
        let shift = rng.next_u64() % 64;
        v.push((rng.next_u64() >> shift) as i64);
    }
    v
}

#[test]
fn rewritten_divisions_compute_the_same_bits_in_the_interpreter() {
    let mut rng = SplitMix64(7);
    for (ty, bits) in [("i8", 8), ("i16", 16), ("i32", 32), ("i64", 64)] {
        for d in divisors(bits, &mut rng) {
            check(ty, bits, d, &mut rng);
        }
    }
}
