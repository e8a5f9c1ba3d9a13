#!/usr/bin/env bash
# examples/demo.sh — `make demo`: check every example (one summary line each), run each on the
# CPU through the x86_64 backend and examples/host/<name>.c, then compile every example for
# every target family (into OUTDIR/<family>/, kept for you to look at) and print a table with,
# for each kernel a family refuses, the diagnostic that says why. Stages whose part of qdc is
# not implemented yet are reported as pending; a failure of anything that exists makes the
# script exit non-zero.
# Usage: bash examples/demo.sh path/to/qdc [OUTDIR]     (default OUTDIR: <qdc's dir>/demo)
#        QDC_DEMO_EXAMPLES="a b" bash examples/demo.sh ...  (only examples/a.qd and b.qd)
#        CC and CFLAGS (a list of flags) build the host programs (the ASan suite passes
#        -fsanitize=address,undefined, as its libqdrt needs)
set -u
QDC=${1:?usage: demo.sh path/to/qdc}
[[ $QDC == */* ]] || QDC=./$QDC
QDC=$(cd "$(dirname "$QDC")" && pwd)/$(basename "$QDC")
EX=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$EX")
BUILD=$(dirname "$QDC")
CC=${CC:-cc}
OUT=${2:-$BUILD/demo}
rm -rf "$OUT" && mkdir -p "$OUT" || { echo "demo: cannot create $OUT" >&2; exit 1; }
OUT=$(cd "$OUT" && pwd)
WORK=$OUT/work
mkdir -p "$WORK"
failed=0

# run LOG CMD...: runs CMD with stderr in LOG; returns its exit status.
run() { local log=$1; shift; "$@" 2>"$log"; }
# A stage is pending when qdc stops at a stub: internal error "... not implemented".
pending() { [[ $1 == 3 ]] && grep -q 'not implemented' "$2"; }
# True when the log reports errors and every one of them is QD4xxx (target cannot do it).
only_qd4() { grep -q 'error\[QD4' "$1" && ! grep -o 'error\[QD[0-9]*\]' "$1" | grep -qv 'QD4'; }
fail() { echo "FAILED: $1" >&2; sed 's/^/    /' "$2" >&2; failed=1; }

# QDC_DEMO_EXAMPLES="histogram spin_chain" limits the run to those examples (the test suite's
# short run); default: every examples/*.qd.
examples=()
if [[ -n ${QDC_DEMO_EXAMPLES:-} ]]; then read -ra examples <<<"$QDC_DEMO_EXAMPLES"
else for f in "$EX"/*.qd; do examples+=("$(basename "$f" .qd)"); done; fi

echo "== check (${#examples[@]} examples)"
checked=()
for n in "${examples[@]}"; do
    run "$WORK/err" "$QDC" --check --stats "$EX/$n.qd" >"$WORK/out"; rc=$?
    if [[ $rc == 0 ]]; then cat "$WORK/out"; checked+=("$n")
    elif pending $rc "$WORK/err"; then echo "$n: pending (frontend not implemented)"
    else fail "qdc --check $n.qd (exit $rc)" "$WORK/err"; fi
done

echo "== run on the CPU (x86_64, all cores)"
for n in "${checked[@]}"; do
    host=$EX/host/$n.c
    if [[ ! -f $host ]]; then echo "$n: no host program (examples/host/$n.c)"; continue; fi
    run "$WORK/err" "$QDC" --target=x86_64 "$EX/$n.qd" -o "$WORK/$n.o"; rc=$?
    if pending $rc "$WORK/err"; then echo "$n: pending (x86_64 backend not implemented)"; continue; fi
    [[ $rc == 0 ]] || { fail "qdc --target=x86_64 $n.qd (exit $rc)" "$WORK/err"; continue; }
    run "$WORK/err" "$QDC" --target=x86_64 --emit=header "$EX/$n.qd" -o "$WORK/$n.h" ||
        { fail "qdc --emit=header $n.qd" "$WORK/err"; continue; }
    # shellcheck disable=SC2086 # CFLAGS is a list of flags, as make's
    run "$WORK/err" "$CC" -std=c17 -O2 ${CFLAGS:-} -I"$WORK" -I"$ROOT/runtime" "$host" "$WORK/$n.o" \
        "$BUILD/libqdrt.a" -lpthread -lm -o "$WORK/$n" || { fail "linking $n" "$WORK/err"; continue; }
    if run "$WORK/err" "$WORK/$n" >"$WORK/out"; then sed "s/^/$n: /" "$WORK/out"
    else fail "running $n (exit $?)" "$WORK/err"; fi
done

# Every family --list-targets prints (the first word of each line), x86_64-v3 included.
targets=()
if "$QDC" --list-targets >"$WORK/targets" 2>"$WORK/err"; then
    while read -r t _; do [[ -n $t ]] && targets+=("$t"); done <"$WORK/targets"
else fail "qdc --list-targets" "$WORK/err"; fi

echo "== compile for every target family (${#targets[@]} families x ${#checked[@]} examples) into $OUT"
printf '%-12s %6s  %s\n' TARGET OK "NOT SUPPORTED BY THE TARGET (QD4xxx, reasons below) / PENDING / FAILED"
reasons=()
for t in "${targets[@]}"; do
    ok=0 notes=""
    for n in "${checked[@]}"; do
        run "$WORK/err" "$QDC" --target="$t" --color=never "$EX/$n.qd" -o "$OUT/%t/%m.%e" >/dev/null; rc=$?
        if [[ $rc == 0 ]]; then ok=$((ok + 1))
        elif pending $rc "$WORK/err"; then notes+=" $n:pending"
        elif [[ $rc == 1 ]] && only_qd4 "$WORK/err"; then
            notes+=" $n:n/a"
            # the first error line, without the file name: "error[QD4005]: memory fence is not ..."
            reasons+=("$t $n: $(grep -m1 -o 'error\[QD4[0-9]*\]: .*' "$WORK/err")")
        else notes+=" $n:FAILED"; fail "qdc --target=$t $n.qd (exit $rc)" "$WORK/err"; fi
    done
    printf '%-12s %3d/%-2d %s\n' "$t" "$ok" "${#checked[@]}" "${notes# }"
done
if ((${#reasons[@]})); then
    echo "== why a family refused a kernel"
    printf '  %s\n' "${reasons[@]}"
fi
rm -rf "$WORK"
echo "== outputs: $OUT/<family>/<example>.<ext>"

if [[ $failed != 0 ]]; then echo "demo: FAILED (see above)"; exit 1; fi
echo "demo: ok"
