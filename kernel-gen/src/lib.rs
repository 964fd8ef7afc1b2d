//! kernel-gen: random kernels in kernelc's language, in the manner of Csmith
//! and YARPGen, for differential testing.
//!
//! Every kernel is deterministic from its seed and free of undefined
//! behaviour *by construction*, so any difference between engines (the IR
//! interpreter at `-O0` and `-O3`, the PTX emulator on `-O0` and `-O3` PTX)
//! is a compiler bug, never a property of the test case:
//! - all arithmetic is on `unsigned` (wraps, never overflows); signed views
//!   (`(int)a >> s`, signed compares) are only conversions and compares;
//! - shift amounts are masked with `& 31u`, divisors are `(b | 1u)`;
//! - every index is masked into range (`& 15u` on arrays of at least 16
//!   elements, `& 63u` on the 64-element input);
//! - every variable and array is initialized before it is read;
//! - every thread writes only its own output slots, its own local array and
//!   its own row of the shared `rows` array; shared arrays other threads
//!   read are written once, before a barrier, and never again;
//! - atomics use one operation per counter (add, or, xor, min), so the final
//!   value does not depend on the order threads arrive in, and their results
//!   are never read;
//! - barriers and warp collectives appear only at the top level of the
//!   kernel, which has no early return, so control flow there is uniform;
//! - loops have constant trip counts.
//!
//! Pointers mix provenance on purpose: `const unsigned *` variables and
//! helper parameters take the input (global, `__restrict__`), shared,
//! local, `__constant__` and `__device__` arrays, through selects, joins
//! after `if`/`else`, pointer-returning helpers and offsets, and are tested
//! with `__isShared`. That is what memory-space inference and the alias
//! analysis must get right.
//!
//! [`check`] compiles and runs a generated kernel through every engine.

pub mod check;

use std::fmt::Write as _;

/// Threads per block. A multiple of 32 (warp collectives need full warps)
/// and a power of two (indices into per-thread shared arrays are masked).
pub const BLOCK: u32 = 64;
/// Blocks per grid.
pub const GRID: u32 = 2;
/// Elements of the input buffer (a power of two: indices are masked).
pub const IN_LEN: u32 = 64;
/// Output slots per thread.
pub const OUT_PER_THREAD: u32 = 2;
/// Counters: 0..4 take global atomics, 4..8 receive the shared counters.
pub const COUNTERS: u32 = 8;

/// A generated kernel and how to launch it.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub seed: u64,
    /// The `.cu` text.
    pub source: String,
    /// The kernel's name (`extern "C"`, so it is also the PTX name).
    pub name: String,
    pub grid: u32,
    pub block: u32,
    /// The launch arguments in `kernelc run` syntax.
    pub args: Vec<String>,
}

impl Kernel {
    /// The `kernelc run` command line (after the file name) that launches it.
    pub fn run_line(&self) -> String {
        format!(
            "--kernel {} --grid {} --block {} {}",
            self.name,
            self.grid,
            self.block,
            self.args.join(" ")
        )
    }
}

/// splitmix64: small, seedable and the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `pct` percent.
    fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// The kinds of helper a kernel may call.
#[derive(Clone, Debug)]
enum Helper {
    /// `unsigned hK(const unsigned *p, unsigned x)`: reads through a
    /// generic pointer.
    Read(String),
    /// `void wK(unsigned *p, unsigned x)`: writes through a generic pointer
    /// to thread-owned memory.
    Write(String),
    /// `const unsigned *pickK(const unsigned *a, const unsigned *b, unsigned c)`.
    Pick(String),
    /// `void bump(unsigned *c, unsigned v)`: `atomicAdd` through a generic
    /// pointer to counter 0 (shared or global).
    Bump,
}

/// Where the generator is: the kernel (with its own names) or a helper.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Ctx {
    Kernel,
    Helper,
}

struct Gen {
    rng: Rng,
    out: String,
    indent: usize,
    ctx: Ctx,
    /// `unsigned` variables in scope that statements may assign.
    scalars: Vec<String>,
    /// Loop counters in scope: read, never assigned (trip counts stay constant).
    loopvars: Vec<String>,
    /// `const unsigned *` variables in scope (at least 16 readable elements).
    rptrs: Vec<String>,
    /// `unsigned *` variables in scope (16 thread-owned elements).
    wptrs: Vec<String>,
    helpers: Vec<Helper>,
    next_id: u32,
    /// Statements left to generate (bounds the kernel's size).
    budget: u32,
    loop_depth: u32,
}

/// Generates the kernel of `seed`.
pub fn generate(seed: u64) -> Kernel {
    let mut g = Gen {
        rng: Rng(seed ^ 0x6b65_726e_656c_6763),
        out: String::new(),
        indent: 0,
        ctx: Ctx::Kernel,
        scalars: Vec::new(),
        loopvars: Vec::new(),
        rptrs: Vec::new(),
        wptrs: Vec::new(),
        helpers: Vec::new(),
        next_id: 0,
        budget: 0,
        loop_depth: 0,
    };
    let name = format!("gen{seed}");
    g.module(&name, seed);
    let out_len = GRID * BLOCK * OUT_PER_THREAD;
    Kernel {
        seed,
        source: g.out,
        name,
        grid: GRID,
        block: BLOCK,
        args: vec![
            format!("u32[]:zeros:{out_len}"),
            format!("u32[]:rand:{IN_LEN}:{seed}"),
            format!("u32[]:zeros:{COUNTERS}"),
            format!("u32:{}", seed % 1000),
        ],
    }
}

impl Gen {
    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}{}", self.next_id)
    }

    fn constant(&mut self) -> String {
        let v = match self.rng.below(4) {
            0 => self.rng.below(8),
            1 => self.rng.below(256),
            2 => self.rng.next() & 0xffff_ffff,
            _ => 0xffff_fff0 + self.rng.below(16),
        };
        format!("{v}u")
    }

    fn module(&mut self, name: &str, seed: u64) {
        let _ = writeln!(
            self.out,
            "// kernel-gen seed {seed}: UB-free by construction (see kernel-gen/src/lib.rs)"
        );
        let cdata: Vec<String> = (0..16).map(|_| self.constant()).collect();
        let gdata: Vec<String> = (0..16).map(|_| self.constant()).collect();
        let _ = writeln!(
            self.out,
            "__constant__ unsigned cdata[16] = {{{}}};",
            cdata.join(", ")
        );
        let _ = writeln!(
            self.out,
            "__device__ unsigned gdata[16] = {{{}}};",
            gdata.join(", ")
        );
        let _ = writeln!(self.out, "__shared__ unsigned fsh[{BLOCK}];\n");
        let n_helpers = self.rng.below(5);
        for _ in 0..n_helpers {
            self.helper();
        }
        if self.rng.chance(50) {
            self.out.push_str(
                "__device__ void bump(unsigned *c, unsigned v)\n{\n    atomicAdd(c, v);\n}\n\n",
            );
            self.helpers.push(Helper::Bump);
        }
        self.kernel(name);
    }

    /// Readable pointer expressions available in the current context.
    fn rbases(&self) -> Vec<String> {
        let mut b: Vec<String> = vec!["cdata".into(), "gdata".into(), "fsh".into()];
        if self.ctx == Ctx::Kernel {
            b.extend(["in", "sh", "loc", "mine"].map(String::from));
            b.push(format!("(in + {}u)", 8 * (self.next_id % 6)));
            b.push(format!("(sh + {}u)", 4 * (self.next_id % 8)));
        }
        b.extend(self.rptrs.iter().cloned());
        b.extend(self.wptrs.iter().cloned());
        b
    }

    /// A readable pointer (to at least 16 elements).
    fn rptr(&mut self, depth: u32) -> String {
        let bases = self.rbases();
        if depth > 0 && self.rng.chance(25) {
            let c = self.cond(depth - 1);
            let a = self.rptr(depth - 1);
            let b = self.rptr(depth - 1);
            return format!("({c} ? {a} : {b})");
        }
        let picks: Vec<String> = self
            .helpers
            .iter()
            .filter_map(|h| match h {
                Helper::Pick(n) => Some(n.clone()),
                _ => None,
            })
            .collect();
        if depth > 0 && !picks.is_empty() && self.rng.chance(20) {
            let f = self.rng.pick(&picks).clone();
            let a = self.rptr(depth - 1);
            let b = self.rptr(depth - 1);
            let c = self.expr(depth - 1);
            return format!("{f}({a}, {b}, {c})");
        }
        self.rng.pick(&bases).clone()
    }

    /// A writable pointer to 16 thread-owned elements.
    fn wptr(&mut self, depth: u32) -> String {
        let mut bases: Vec<String> = vec!["loc".into(), "mine".into()];
        bases.extend(self.wptrs.iter().cloned());
        if depth > 0 && self.rng.chance(30) {
            let c = self.cond(depth - 1);
            let a = self.rng.pick(&bases).clone();
            let b = self.rng.pick(&bases).clone();
            return format!("({c} ? {a} : {b})");
        }
        self.rng.pick(&bases).clone()
    }

    fn read(&mut self, depth: u32) -> String {
        let p = self.rptr(depth.min(2));
        let i = self.expr(depth);
        format!("{p}[({i}) & 15u]")
    }

    fn leaf(&mut self) -> String {
        let mut leaves: Vec<String> = self.scalars.clone();
        leaves.extend(self.loopvars.iter().cloned());
        leaves.push("threadIdx.x".into());
        if self.ctx == Ctx::Kernel {
            leaves.extend(["tid", "gid", "n", "blockIdx.x"].map(String::from));
        }
        match self.rng.below(4) {
            0 => self.constant(),
            _ => self.rng.pick(&leaves).clone(),
        }
    }

    /// A condition (an `int` 0/1 or an `unsigned`, used as a truth value).
    fn cond(&mut self, depth: u32) -> String {
        let a = self.expr(depth);
        let b = self.expr(depth);
        match self.rng.below(6) {
            0 => format!("({a} < {b})"),
            1 => format!("((int){a} < (int){b})"),
            2 => format!("({a} == {b})"),
            3 => format!("(({a} & 1u) != 0u)"),
            4 => format!("({a} >= {b} && {b} != 0u)"),
            _ => format!("({a} > {b} || (int){a} >= 0)"),
        }
    }

    /// An `unsigned` expression.
    fn expr(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.chance(25) {
            return self.leaf();
        }
        let d = depth - 1;
        match self.rng.below(16) {
            0..=3 => {
                let op = *self.rng.pick(&["+", "-", "*", "^", "&", "|"]);
                let a = self.expr(d);
                let b = self.expr(d);
                format!("({a} {op} {b})")
            }
            4 => {
                let op = *self.rng.pick(&["<<", ">>"]);
                let a = self.expr(d);
                let b = self.expr(d);
                format!("({a} {op} ({b} & 31u))")
            }
            5 => {
                let op = *self.rng.pick(&["/", "%"]);
                let a = self.expr(d);
                let b = self.expr(d);
                format!("({a} {op} ({b} | 1u))")
            }
            6 => {
                let a = self.expr(d);
                let b = self.expr(d);
                format!("(unsigned)((int){a} >> ({b} & 31u))")
            }
            7 => {
                let c = self.cond(d);
                let a = self.expr(d);
                let b = self.expr(d);
                format!("({c} ? {a} : {b})")
            }
            8 | 9 => self.read(d),
            10 => {
                let a = self.expr(d);
                let b = self.expr(d);
                format!("(unsigned)(((unsigned long long){a} * {b}) >> 32)")
            }
            11 => {
                let p = self.rptr(1);
                let a = self.expr(d);
                let b = self.expr(d);
                format!("(__isShared({p}) ? {a} : {b})")
            }
            12 => {
                let a = self.expr(d);
                match self.rng.below(4) {
                    0 => format!("(~{a})"),
                    1 => format!("(0u - {a})"),
                    2 => format!("(unsigned)__popc({a})"),
                    _ => format!("__brev({a})"),
                }
            }
            _ => {
                let reads: Vec<String> = self
                    .helpers
                    .iter()
                    .filter_map(|h| match h {
                        Helper::Read(n) => Some(n.clone()),
                        _ => None,
                    })
                    .collect();
                if reads.is_empty() {
                    return self.leaf();
                }
                let f = self.rng.pick(&reads).clone();
                let p = self.rptr(1);
                let a = self.expr(d);
                format!("{f}({p}, {a})")
            }
        }
    }

    fn helper(&mut self) {
        self.ctx = Ctx::Helper;
        let noinline = if self.rng.chance(50) {
            "__noinline__ "
        } else {
            ""
        };
        match self.rng.below(3) {
            0 => {
                let name = self.fresh("h");
                self.line(&format!(
                    "__device__ {noinline}unsigned {name}(const unsigned *p, unsigned x)"
                ));
                self.line("{");
                self.indent += 1;
                self.scalars = vec!["x".into()];
                self.rptrs = vec!["p".into()];
                let init = self.read(2);
                self.line(&format!("unsigned r = x ^ {init};"));
                self.scalars.push("r".into());
                let g = self.expr(2);
                self.line(&format!("if (__isShared(p)) r += {g};"));
                self.budget = 3;
                self.block_body(2);
                self.line("return r;");
                self.indent -= 1;
                self.line("}\n");
                self.helpers.push(Helper::Read(name));
            }
            1 => {
                let name = self.fresh("w");
                self.line(&format!(
                    "__device__ {noinline}void {name}(unsigned *p, unsigned x)"
                ));
                self.line("{");
                self.indent += 1;
                self.scalars = vec!["x".into()];
                self.rptrs = vec![];
                self.wptrs = vec!["p".into()];
                let v = self.expr(3);
                self.line(&format!("p[x & 15u] = {v};"));
                let v = self.expr(2);
                self.line(&format!("p[(x + 1u) & 15u] ^= {v};"));
                self.indent -= 1;
                self.line("}\n");
                self.helpers.push(Helper::Write(name));
            }
            _ => {
                let name = self.fresh("pick");
                self.line(&format!(
                    "__device__ {noinline}const unsigned *{name}(const unsigned *a, const unsigned *b, unsigned c)"
                ));
                self.line("{");
                self.indent += 1;
                if self.rng.chance(50) {
                    self.line("return (c & 1u) ? a : b;");
                } else {
                    self.line("const unsigned *q = a;");
                    self.line("if ((c & 2u) != 0u)");
                    self.line("    q = b;");
                    self.line("return q;");
                }
                self.indent -= 1;
                self.line("}\n");
                self.helpers.push(Helper::Pick(name));
            }
        }
        self.scalars.clear();
        self.rptrs.clear();
        self.wptrs.clear();
    }

    fn kernel(&mut self, name: &str) {
        self.ctx = Ctx::Kernel;
        self.line(&format!(
            "extern \"C\" __global__ void {name}(unsigned *__restrict__ out, const unsigned *__restrict__ in, unsigned *counters, unsigned n)"
        ));
        self.line("{");
        self.indent += 1;
        for l in [
            format!("__shared__ unsigned sh[{BLOCK}];"),
            format!("__shared__ unsigned xs[{BLOCK}];"),
            format!("__shared__ unsigned rows[{BLOCK}][16];"),
            "__shared__ unsigned scnt[4];".into(),
            "unsigned loc[16];".into(),
            "unsigned tid = threadIdx.x;".into(),
            "unsigned gid = blockIdx.x * blockDim.x + tid;".into(),
            "unsigned *mine = rows[tid];".into(),
            "for (unsigned i = 0u; i < 16u; i++) {".into(),
            format!("    loc[i] = in[(gid + i) & {}u] ^ i;", IN_LEN - 1),
            "    mine[i] = loc[i] * 3u + tid;".into(),
            "}".into(),
            format!("sh[tid] = in[gid & {}u] + tid;", IN_LEN - 1),
            "fsh[tid] = tid * 2654435761u;".into(),
            "if (tid < 4u)".into(),
            "    scnt[tid] = tid == 3u ? 0xffffffffu : 0u;".into(),
            "__syncthreads();".into(),
        ] {
            self.line(&l);
        }
        self.scalars = vec![];
        let nvars = 2 + self.rng.below(3);
        for _ in 0..nvars {
            let v = self.fresh("v");
            let e = self.expr(3);
            self.line(&format!("unsigned {v} = {e};"));
            self.scalars.push(v);
        }
        let top: Vec<String> = self.scalars.clone();
        self.budget = 10 + self.rng.below(20) as u32;
        while self.budget > 0 {
            self.budget -= 1;
            if self.rng.chance(15) {
                self.uniform_stmt();
            } else {
                self.stmt(3);
            }
        }
        self.line("__syncthreads();");
        self.line("if (tid < 4u)");
        self.line("    atomicAdd(&counters[4u + tid], scnt[tid]);");
        let mut h = String::from("0u");
        for v in &top {
            h = format!("({h} * 31u + {v})");
        }
        self.line(&format!("out[gid * 2u] = {h};"));
        self.line("unsigned hl = 0u;");
        self.line("for (unsigned i = 0u; i < 16u; i++)");
        self.line("    hl = hl * 33u + (loc[i] ^ (mine[i] << 1));");
        self.line("out[gid * 2u + 1u] = hl;");
        self.indent -= 1;
        self.line("}");
    }

    /// A statement only allowed where control flow is uniform (the top
    /// level of the kernel): a shared-memory exchange between barriers, or
    /// a warp collective.
    fn uniform_stmt(&mut self) {
        let v = self.rng.pick(&self.scalars.clone()).clone();
        match self.rng.below(3) {
            0 => {
                let e = self.expr(3);
                let k = 1 + self.rng.below(u64::from(BLOCK) - 1);
                self.line("__syncthreads();");
                self.line(&format!("xs[tid] = {e};"));
                self.line("__syncthreads();");
                self.line(&format!("{v} ^= xs[(tid + {k}u) & {}u];", BLOCK - 1));
            }
            1 => {
                let e = self.expr(2);
                let m = 1u32 << self.rng.below(5);
                self.line(&format!("{v} += __shfl_xor_sync(0xffffffffu, {e}, {m});"));
            }
            _ => {
                let c = self.cond(2);
                self.line(&format!("{v} ^= __ballot_sync(0xffffffffu, {c});"));
            }
        }
    }

    /// Statements of a nested block (scope handled by the caller).
    fn block_body(&mut self, depth: u32) {
        let n = 1 + self.rng.below(3);
        for _ in 0..n {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            self.stmt(depth);
        }
    }

    fn nested(&mut self, depth: u32) {
        let (s, r, w) = (self.scalars.len(), self.rptrs.len(), self.wptrs.len());
        self.indent += 1;
        self.block_body(depth);
        self.indent -= 1;
        self.scalars.truncate(s);
        self.rptrs.truncate(r);
        self.wptrs.truncate(w);
    }

    /// A statement that is fine in divergent control flow.
    fn stmt(&mut self, depth: u32) {
        let kind = self.rng.below(if depth == 0 { 8 } else { 12 });
        let in_kernel = self.ctx == Ctx::Kernel;
        match kind {
            0 | 1 => {
                let v = self.rng.pick(&self.scalars.clone()).clone();
                let op = *self.rng.pick(&["=", "+=", "^=", "-=", "|=", "*="]);
                let e = self.expr(3);
                self.line(&format!("{v} {op} {e};"));
            }
            2 => {
                let v = self.fresh("v");
                let e = self.expr(3);
                self.line(&format!("unsigned {v} = {e};"));
                self.scalars.push(v);
            }
            3 => {
                let p = self.fresh("p");
                let e = self.rptr(2);
                self.line(&format!("const unsigned *{p} = {e};"));
                self.rptrs.push(p);
            }
            4 if in_kernel => {
                let p = self.fresh("q");
                let e = self.wptr(2);
                self.line(&format!("unsigned *{p} = {e};"));
                self.wptrs.push(p);
            }
            5 if in_kernel => {
                let p = self.wptr(1);
                let i = self.expr(2);
                let e = self.expr(3);
                if self.rng.chance(30) {
                    self.line(&format!("if (__isShared({p})) {p}[({i}) & 15u] += {e};"));
                } else {
                    self.line(&format!("{p}[({i}) & 15u] = {e};"));
                }
            }
            6 if in_kernel => {
                let j = self.rng.below(4);
                let op = ["atomicAdd", "atomicOr", "atomicXor", "atomicMin"][j as usize];
                let e = self.expr(2);
                let target = match self.rng.below(3) {
                    0 => format!("&counters[{j}]"),
                    1 => format!("&scnt[{j}]"),
                    _ => {
                        let c = self.cond(1);
                        format!("({c} ? &scnt[{j}] : &counters[{j}])")
                    }
                };
                self.line(&format!("{op}({target}, {e});"));
            }
            7 if in_kernel => {
                let calls: Vec<Helper> = self
                    .helpers
                    .iter()
                    .filter(|h| matches!(h, Helper::Write(_) | Helper::Bump))
                    .cloned()
                    .collect();
                if calls.is_empty() {
                    return self.stmt(0);
                }
                let e = self.expr(2);
                match self.rng.pick(&calls).clone() {
                    Helper::Write(f) => {
                        let p = self.wptr(1);
                        self.line(&format!("{f}({p}, {e});"));
                    }
                    _ => {
                        let t = if self.rng.chance(50) {
                            "&scnt[0]"
                        } else {
                            "&counters[0]"
                        };
                        self.line(&format!("bump({t}, {e});"));
                    }
                }
            }
            8 => {
                let c = self.cond(2);
                self.line(&format!("if {c} {{"));
                self.nested(depth - 1);
                if self.rng.chance(50) {
                    self.line("} else {");
                    self.nested(depth - 1);
                }
                self.line("}");
            }
            9 => {
                // A pointer join: assigned on both arms, read after.
                let p = self.fresh("j");
                let a = self.rptr(1);
                let b = self.rptr(1);
                let c = self.cond(1);
                self.line(&format!("const unsigned *{p} = {a};"));
                self.line(&format!("if {c}"));
                self.line(&format!("    {p} = {b};"));
                self.rptrs.push(p.clone());
                let v = self.rng.pick(&self.scalars.clone()).clone();
                let i = self.expr(1);
                self.line(&format!("{v} += {p}[({i}) & 15u];"));
            }
            10 if self.loop_depth < 2 => {
                let i = self.fresh("i");
                let trip = 1 + self.rng.below(4);
                self.line(&format!("for (unsigned {i} = 0u; {i} < {trip}u; {i}++) {{"));
                self.loopvars.push(i);
                self.loop_depth += 1;
                if self.rng.chance(30) {
                    let c = self.cond(1);
                    self.line(&format!("    if {c}"));
                    self.line("        break;");
                }
                self.nested(depth - 1);
                self.loop_depth -= 1;
                self.loopvars.pop();
                self.line("}");
            }
            11 => {
                let e = self.expr(2);
                let v = self.rng.pick(&self.scalars.clone()).clone();
                self.line(&format!("switch (({e}) & 3u) {{"));
                for case in 0..3 {
                    let x = self.expr(2);
                    self.line(&format!("case {case}u:"));
                    self.line(&format!("    {v} ^= {x};"));
                    if self.rng.chance(60) {
                        self.line("    break;");
                    }
                }
                let x = self.expr(1);
                self.line("default:");
                self.line(&format!("    {v} += {x};"));
                self.line("}");
            }
            _ => {
                let v = self.rng.pick(&self.scalars.clone()).clone();
                let e = self.expr(2);
                self.line(&format!("{v} ^= {e};"));
            }
        }
    }
}
