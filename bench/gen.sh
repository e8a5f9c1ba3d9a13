#!/usr/bin/env bash
# Scaling generators (issue 33 item 2), one kernel file on stdout:
#   bash bench/gen.sh statements N   one task loop of N statements (a t = t * 3 + k chain, an
#                                    atomic add into a[(i + k) % 64] every third statement)
#   bash bench/gen.sh kernels N      N kernels of one parallel loop with one atomic each
#   bash bench/gen.sh loops N        one kernel of N parallel loops (one atomic each)
#   bash bench/gen.sh atomics N      one task loop of N contended atomic statements x[j % 16] += j
set -eu
n=$2
case $1 in
statements)
    printf 'import quadrants as qd\n\n@qd.kernel\ndef big(a: qd.types.NDArray[qd.i32, 1], s: qd.i32):\n    for i in range(64):\n        t = s\n'
    for ((k = 1; k < n; k++)); do
        if ((k % 3)); then printf '        t = t * 3 + %d\n' "$k"; else printf '        a[(i + %d) %% 64] += t\n' "$k"; fi
    done ;;
kernels)
    printf 'import quadrants as qd\n'
    for ((k = 0; k < n; k++)); do
        printf '\n@qd.kernel\ndef k%d(a: qd.types.NDArray[qd.i32, 1]):\n    for i in range(a.shape[0]):\n        a[i] += %d\n' "$k" "$k"
    done ;;
loops)
    printf 'import quadrants as qd\n\n@qd.kernel\ndef loops(a: qd.types.NDArray[qd.i32, 1]):\n'
    for ((k = 0; k < n; k++)); do printf '    for i in range(a.shape[0]):\n        a[i] += %d\n' "$k"; done ;;
atomics)
    printf 'import quadrants as qd\n\n@qd.kernel\ndef atomics(x: qd.types.NDArray[qd.i32, 1]):\n    for j in range(x.shape[0]):\n'
    for ((k = 0; k < n; k++)); do printf '        x[j %% 16] += j\n'; done ;;
*) echo "usage: bash bench/gen.sh statements|kernels|loops|atomics N" >&2; exit 2 ;;
esac
