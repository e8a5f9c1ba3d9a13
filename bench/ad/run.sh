#!/bin/sh
# Reverse-mode benchmark (issue 31): fit_grad of bench/ad/fit.qd compiled by qdc for x86_64 with
# the default contended-atomic rewrite and with --atomic-rewrite=none, run alternately ROUNDS
# times (each run: the median of REPS launches), on 1 and 2 threads.
# usage: bench/ad/run.sh [N] [ROUNDS] [REPS]   (from the checkout, after make)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
N=${1:-10000000} ROUNDS=${2:-3} REPS=${3:-5}
QDC=${QDC:-$ROOT/build/qdc}
CC=${CC:-clang-19}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
for m in default none; do
    mkdir -p "$D/$m"
    flag=--atomic-rewrite=$m
    [ "$m" = default ] && flag=
    "$QDC" "$ROOT/bench/ad/fit.qd" --target=x86_64 $flag -o "$D/$m/fit.o"
    "$QDC" "$ROOT/bench/ad/fit.qd" --target=x86_64 --emit=header -o "$D/$m/fit.h"
    "$CC" -O2 -I"$D/$m" -I"$ROOT/runtime" "$ROOT/bench/ad/adbench.c" "$D/$m/fit.o" "$ROOT/build/libqdrt.a" -lpthread -lm -o "$D/$m/adbench"
done
"$QDC" "$ROOT/bench/ad/fit.qd" --target=x86_64 --report-lowering -o "$D/r.o" | grep adjoint
echo "| threads | qdc (rewrite) ms | --atomic-rewrite=none ms | none / rewrite | p.grad (rewrite) | p.grad (none) | exact (f64) |"
echo "|---|---|---|---|---|---|---|"
for t in 1 2; do
    : >"$D/default.t"; : >"$D/none.t"
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        for m in default none; do "$D/$m/adbench" "$N" $t "$REPS" >>"$D/$m.t"; done
        r=$((r + 1))
    done
    q=$(sort -n "$D/default.t" | awk -v n="$ROUNDS" 'NR == int((n + 1) / 2)')
    z=$(sort -n "$D/none.t" | awk -v n="$ROUNDS" 'NR == int((n + 1) / 2)')
    echo "$q" "$z" | awk -v t=$t '{ printf "| %d | %s | %s | %.1f | %s, %s | %s, %s | %s, %s |\n", t, $1, $6, $6 / $1, $2, $3, $7, $8, $4, $5 }'
done
