#!/bin/sh
# Measures qdc's portable math expansions (what PTX and AMDGPU kernels run) on this CPU:
#   tools/math-accuracy/run.sh [QDC] [F32_BOUND F64_BOUND F64_POW_BOUND [SAMPLES]]
# Needs llvm-extract-19 and clang-19. Prints the table quoted in qdc-lang(7), "Math functions".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
qdc=${1:-$here/../../build/qdc}
[ $# -gt 0 ] && shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$qdc" --target=sm_90 -O0 --emit=llvm-ir "$here/accuracy.qd" -o "$tmp/acc.ll"
llvm-extract-19 -S $(for f in sin cos tan asin acos atan atan2 exp log tanh pow; do echo "--func=qdc.math.$f.f64"; done) \
    "$tmp/acc.ll" -o "$tmp/ex.ll"
grep -v '^target \|^source_filename' "$tmp/ex.ll" | sed -E 's/@qdc\.math\.(\w+)\.f64/@qdc_\1/g; s/define hidden/define/' > "$tmp/ex2.ll"
clang-19 -Wno-override-module -c -O2 -target x86_64-linux-gnu "$tmp/ex2.ll" -o "$tmp/ex.o"
cc -O2 "$here/measure.c" "$tmp/ex.o" -o "$tmp/measure" -lm
"$tmp/measure" "$@"
