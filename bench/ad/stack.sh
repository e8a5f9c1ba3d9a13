#!/bin/sh
# Ad-stack benchmark (issue 31): power and power_grad of bench/ad/stack.qd compiled by qdc for
# x86_64, at each trip count N given (default 1000 10000), T threads, REPS runs each.
# usage: bench/ad/stack.sh [T] [REPS] [N...]   (from the checkout, after make)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=${1:-2} REPS=${2:-3}
[ $# -ge 2 ] && shift 2 || shift $#
[ $# -eq 0 ] && set -- 1000 10000
QDC=${QDC:-$ROOT/build/qdc}
CC=${CC:-clang-19}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
"$QDC" "$ROOT/bench/ad/stack.qd" --target=x86_64 -o "$D/stack.o"
"$QDC" "$ROOT/bench/ad/stack.qd" --target=x86_64 --emit=header -o "$D/stack.h"
"$CC" -O2 -I"$D" -I"$ROOT/runtime" "$ROOT/bench/ad/stackbench.c" "$D/stack.o" "$ROOT/build/libqdrt.a" -lpthread -lm -o "$D/stackbench"
echo "| n | power ms | power_grad ms | power_grad CPU ms | grad / primal | max rel. error vs analytic |"
echo "|---|---|---|---|---|---|"
for n in "$@"; do
    "$D/stackbench" "$n" "$T" "$REPS" | awk -v n="$n" '{ printf "| %d | %s | %s | %s | %s | %s |\n", n, $1, $2, $3, ($1 > 0 ? sprintf("%.0f", $2 / $1) : "-"), $4 }'
done
