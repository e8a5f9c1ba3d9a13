#!/usr/bin/env bash
# `make memcheck`: compiles every example for one family of each target kind under valgrind and
# fails on any definite leak or memory error. LLVM's and SPIRV-Cross's process-lifetime caches
# are "still reachable", not definite, so no suppressions are needed.
# usage: bash fuzz/memcheck.sh path/to/qdc     env: MEMCHECK_TARGETS (default: one per kind)
set -u
QDC=$1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/qdc-memcheck.XXXXXX")
trap 'rm -rf "$W"' EXIT
list=$("$QDC" --list-targets 2>/dev/null)
targets=${MEMCHECK_TARGETS:-}
[ -n "$targets" ] || for k in x86_64 sm_80 gfx942 vulkan1.2 apple8; do grep -qw -- "$k" <<<"$list" && targets+="$k "; done
jobs=()
for f in "$ROOT"/examples/*.qd; do for t in $targets; do jobs+=("$f $t"); done; done
one() {
    local f=$1 t=$2 n; n=$(basename "$f" .qd)-$t
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite \
        --error-exitcode=99 "$QDC" "$f" --target="$t" -o "$W/$n.out" >"$W/$n.log" 2>&1
    local rc=$?
    case $rc in
        0) echo "ok   $n" ;;
        99) echo "LEAK $n"; sed 's/^/    /' "$W/$n.log" | head -40; return 1 ;;
        1) echo "skip $n (the target cannot compile it: $(grep -m1 -o 'error\[QD[0-9]*\]' "$W/$n.log"))" ;;
        *) echo "FAIL $n (qdc exit $rc)"; sed 's/^/    /' "$W/$n.log" | head -40; return 1 ;;
    esac
}
export -f one; export QDC W
printf '%s\n' "${jobs[@]}" | xargs -P 2 -L 1 bash -c 'one $0 $1'
rc=$?
echo "memcheck: ${#jobs[@]} compilations ($targets), $([ $rc = 0 ] && echo 'no definite leaks or memory errors' || echo FAILED)"
exit $rc
