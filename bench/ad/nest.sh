#!/bin/sh
# Compile cost of gradient kernels over nests of run-time loops (issue 31): for L = 1..4, a kernel
# whose body nests L loops `for jK in range(n)` each carrying v = v * y[i] + sin(v) * 0.5 (the ad
# stack at every level), compiled by qdc for x86_64. Per L: CPU s (user + system, median of REPS
# runs) of `qdc --target=x86_64 -o x.o`, the LLVM instructions of --emit=llvm-ir at -O0 and -O2,
# and the x86 instructions of the object (llvm-objdump-19 -d).
# STMTS=k repeats the statement k times per level (default 1), a larger body per level.
# usage: bench/ad/nest.sh [REPS] [LEVELS...]   (QDC=... to measure another binary)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REPS=${1:-3}
[ $# -ge 1 ] && shift
[ $# -eq 0 ] && set -- 1 2 3 4
QDC=${QDC:-$ROOT/build/qdc}
STMTS=${STMTS:-1}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
echo "| levels | qdc CPU s (median of $REPS) | LLVM instructions -O0 | LLVM instructions -O2 | x86 instructions |"
echo "|---|---|---|---|---|"
for L in "$@"; do
    f="$D/nest$L.py"
    {
        printf 'import quadrants as qd\n\nM = 8\n'
        printf 'x = qd.field(qd.f64, shape=M, needs_grad=True)\ny = qd.field(qd.f64, shape=M, needs_grad=True)\n'
        printf 'loss = qd.field(qd.f64, shape=(), needs_grad=True)\n\n\n@qd.kernel\ndef nest(n: qd.i32):\n'
        printf '    for i in range(M):\n        v = x[i]\n'
        ind="        "
        k=0
        while [ $k -lt "$L" ]; do
            printf '%sfor j%d in range(n):\n' "$ind" $k
            ind="$ind    "
            r=0
            while [ $r -lt "$STMTS" ]; do
                printf '%sv = v * y[i] + qd.sin(v) * 0.5\n' "$ind"
                r=$((r + 1))
            done
            k=$((k + 1))
        done
        printf '        loss[None] += v\n\n\nnest(3)\nnest.grad(3)\n'
    } >"$f"
    times=""
    r=0
    while [ $r -lt "$REPS" ]; do
        t=$( { /usr/bin/time -f '%U %S' "$QDC" "$f" --target=x86_64 -o "$D/n.o" 2>&1 >/dev/null; } | tail -1 | awk '{ printf "%.2f", $1 + $2 }')
        times="$times $t"
        r=$((r + 1))
    done
    med=$(echo "$times" | tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    "$QDC" "$f" --target=x86_64 --emit=llvm-ir -O0 -o "$D/n0.ll"
    "$QDC" "$f" --target=x86_64 --emit=llvm-ir -o "$D/n2.ll"
    i0=$(grep -cE '^  [^ ;]' "$D/n0.ll")
    i2=$(grep -cE '^  [^ ;]' "$D/n2.ll")
    ix=$(llvm-objdump-19 -d "$D/n.o" 2>/dev/null | grep -cE '^ +[0-9a-f]+:' || true)
    echo "| $L | $med ($times ) | $i0 | $i2 | $ix |"
done
