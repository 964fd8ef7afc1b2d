#!/usr/bin/env bash
# Regenerates the nvcc half of the valid corpus: nvcc 13.5's PTX for every
# sample kernel, at sm_80 and sm_90 (or at the sample's own target), with
# and without -G. Uses the project's tools folder (installed by
# ./scripts/test) unless KERNELC_NVCC names another nvcc.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
nvcc="${KERNELC_NVCC:-$root/.tools/cuda-13.5/nvidia/cu13/bin/nvcc}"
if [ ! -x "$nvcc" ]; then
    echo "gen_nvcc.sh: nvcc not found at $nvcc (run ./scripts/test to install it)" >&2
    exit 1
fi
mkdir -p "$here/valid"
# Run from the root with relative paths. (nvcc 13.5 still writes the absolute
# path of each source into the -G files' `.file` lines; only the debug
# sections change with it, so regenerated files differ in those lines.)
cd "$root"
for cu in samples/*.cu; do
    name="$(basename "$cu" .cu)"
    # A sample that names its target (`// kernelc-target: sm_90a`) is built
    # for that target only; the others for sm_80 and sm_90.
    archs="$(sed -n 's|^// kernelc-target: *\(sm_[0-9a-z]*\).*|\1|p' "$cu" | head -n 1)"
    archs="${archs:-sm_80 sm_90}"
    for arch in $archs; do
        "$nvcc" -ptx -arch="$arch" -I include "$cu" -o "$here/valid/nvcc_${name}_${arch}.ptx"
        "$nvcc" -ptx -G -arch="$arch" -I include "$cu" -o "$here/valid/nvcc_${name}_${arch}_G.ptx" || true
    done
done
echo "gen_nvcc.sh: wrote $(ls "$here"/valid/nvcc_*.ptx | wc -l) files"
