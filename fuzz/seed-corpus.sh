#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with the seed corpus: the samples and the
# .cu filetests (frontend), the .kir filetests (ir_parser), and kernelc's
# PTX of every .cu seed (ptx_validate). The corpora are generated, not
# committed (fuzz/corpus is ignored by git). Run from anywhere:
#   fuzz/seed-corpus.sh && cargo +nightly fuzz run frontend
set -euo pipefail
cd "$(dirname "$0")/.."
out=fuzz/corpus
mkdir -p "$out/frontend" "$out/ir_parser" "$out/ptx_validate"
cargo build --quiet --bin kernelc
for f in samples/*.cu tests/filetests/compile/*.cu tests/regressions/*.cu; do
    [ -e "$f" ] || continue
    name=$(echo "$f" | tr '/' '_')
    cp "$f" "$out/frontend/$name"
    ./target/debug/kernelc "$f" -o "$out/ptx_validate/${name%.cu}.ptx" 2>/dev/null || true
done
for f in tests/filetests/*/*.kir; do
    cp "$f" "$out/ir_parser/$(echo "$f" | tr '/' '_')"
done
echo "seed corpus: $(ls "$out/frontend" | wc -l) sources, $(ls "$out/ir_parser" | wc -l) IR files, $(ls "$out/ptx_validate" | wc -l) PTX files in $out"
