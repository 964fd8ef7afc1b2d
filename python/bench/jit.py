"""kernelc as a JIT, side by side with NVRTC: the time to compile each of
the samples (samples/*.cu) to PTX in this process, by kernelc (cold: the
cache off) and by NVRTC 13.5 (the `nvidia-cuda-nvrtc` wheel, through
ctypes), and kernelc's cached recompilation. Both compile for the same
target with their default optimization (kernelc -O3, NVRTC's -O3 for the
device code). Run by scripts/bench-python, which installs a release wheel
and NVRTC; it prints a Markdown table (docs/python.md quotes it).

Usage: python jit.py [--repeat N]
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import math
import os
import re
import statistics
import sys
import time
from pathlib import Path

import kernelc

ROOT = Path(__file__).resolve().parents[2]


def load_nvrtc() -> ctypes.CDLL:
    """libnvrtc from the `nvidia-cuda-nvrtc` wheel."""
    import nvidia

    for folder in nvidia.__path__:
        found = sorted(glob.glob(os.path.join(folder, "cu13", "lib", "libnvrtc.so*")))
        if found:
            return ctypes.CDLL(found[0])
    sys.exit("jit.py: libnvrtc not found: pip install nvidia-cuda-nvrtc==13.5.37")


class Nvrtc:
    def __init__(self) -> None:
        self.lib = load_nvrtc()

    def compile(self, source: str, name: str, options: list[str]) -> str:
        lib = self.lib
        prog = ctypes.c_void_p()
        check(lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None))
        opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
        status = lib.nvrtcCompileProgram(prog, len(options), opts)
        if status != 0:
            size = ctypes.c_size_t()
            lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
            log = ctypes.create_string_buffer(size.value)
            lib.nvrtcGetProgramLog(prog, log)
            lib.nvrtcDestroyProgram(ctypes.byref(prog))
            raise RuntimeError(log.value.decode(errors="replace"))
        size = ctypes.c_size_t()
        check(lib.nvrtcGetPTXSize(prog, ctypes.byref(size)))
        ptx = ctypes.create_string_buffer(size.value)
        check(lib.nvrtcGetPTX(prog, ptx))
        check(lib.nvrtcDestroyProgram(ctypes.byref(prog)))
        return ptx.value.decode()


def check(status: int) -> None:
    if status != 0:
        raise RuntimeError(f"NVRTC error {status}")


def median_seconds(work, repeat: int) -> float:
    work()  # warm: first-call costs (loading, page faults) are not the JIT's
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def target_of(source: str) -> str:
    found = re.search(r"^// kernelc-target: *(sm_\w+)", source, re.M)
    return found.group(1) if found else "sm_90"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    nvrtc = Nvrtc()
    include = str(ROOT / "include")
    rows = []
    for path in sorted((ROOT / "samples").glob("*.cu")):
        source = path.read_text()
        arch = target_of(source)
        name = str(path)

        # kernelc knows include/kernelc.cuh's functions itself (its own copy
        # of the header is built in); NVRTC reads the file, which defines
        # them in inline PTX.
        def cold() -> None:
            kernelc.compile(source, arch=arch, file_name=name, cache=False)

        def cached() -> None:
            kernelc.compile(source, arch=arch, file_name=name)

        def by_nvrtc() -> None:
            compute = arch.replace("sm_", "compute_")
            nvrtc.compile(source, path.name, [f"--gpu-architecture={compute}", f"-I{include}"])

        try:
            nvrtc_s = median_seconds(by_nvrtc, args.repeat)
        except RuntimeError as e:
            print(f"{path.name}: NVRTC refuses it ({str(e).splitlines()[0]}); left out", file=sys.stderr)
            continue
        rows.append((path.name, arch, median_seconds(cold, args.repeat), median_seconds(cached, args.repeat * 10), nvrtc_s))
    print("| sample | target | kernelc (ms) | kernelc cached (µs) | NVRTC 13.5 (ms) | NVRTC / kernelc |")
    print("|---|---|---:|---:|---:|---:|")
    for name, arch, cold_s, cached_s, nvrtc_s in rows:
        print(f"| {name} | {arch} | {cold_s * 1e3:.2f} | {cached_s * 1e6:.1f} | {nvrtc_s * 1e3:.1f} | {nvrtc_s / cold_s:.0f}× |")
    ratios = [nvrtc_s / cold_s for _, _, cold_s, _, nvrtc_s in rows]
    cached = [cached_s for _, _, _, cached_s, _ in rows]
    geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"\nNVRTC / kernelc, geometric mean over {len(rows)} samples: {geomean:.0f}× "
          f"(min {min(ratios):.0f}×); cached recompilation: median {statistics.median(cached) * 1e6:.1f} µs")


if __name__ == "__main__":
    main()
