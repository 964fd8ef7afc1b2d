#!/usr/bin/env bash
# Regenerates the nvcc half of the valid corpus: nvcc 13.5's PTX for every
# sample kernel, at sm_80 and sm_90. Uses the project's tools folder (installed
# by ./scripts/test) unless KERNELC_NVCC names another nvcc.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
nvcc="${KERNELC_NVCC:-$root/.tools/cuda-13.5/nvidia/cu13/bin/nvcc}"
if [ ! -x "$nvcc" ]; then
    echo "gen_nvcc.sh: nvcc not found at $nvcc (run ./scripts/test to install it)" >&2
    exit 1
fi
mkdir -p "$here/valid"
# Run from the root with relative paths so the -G files' debug info does not
# record this machine's directory layout.
cd "$root"
for cu in samples/*.cu; do
    name="$(basename "$cu" .cu)"
    for arch in sm_80 sm_90; do
        "$nvcc" -ptx -arch="$arch" "$cu" -o "$here/valid/nvcc_${name}_${arch}.ptx"
        "$nvcc" -ptx -G -arch="$arch" "$cu" -o "$here/valid/nvcc_${name}_${arch}_G.ptx" || true
    done
done
echo "gen_nvcc.sh: wrote $(ls "$here"/valid/nvcc_*.ptx | wc -l) files"
