#!/usr/bin/env bash
# Measures how many of a Genesis tree's module-level kernels compile through instantiation
# drivers (qdc(1), INSTANTIATION DRIVERS; issue 30 item 7).
#
#   tools/drivers/measure.sh GENESIS_ROOT [TARGET...]
#
# GENESIS_ROOT: an unmodified Genesis source tree (only its .py files are read), e.g.
#   git -C MIRROR archive HEAD -- '*.py' | tar -x -C /tmp/genesis
# TARGETs default to x86_64 sm_90 gfx942 vulkan1.3. For every module under GENESIS_ROOT/genesis
# with a module-level @qd.kernel, tools/drivers/genesis_drivers.py writes one driver per kernel
# (into $OUTDIR, default a fresh temporary directory); each driver is compiled with
#   $QDC DRIVER.py -I GENESIS_ROOT -D gs.qd_float=qd.f32 -D gs.qd_int=qd.i32 \
#        -D gs.qd_bool=qd.u1 -D gs.use_ndarray=True -D gs.EPS=... -D gs.qd_vec3=... --target=T --check
# (the values gs.init(precision="32") sets: the dtypes, the vector and matrix types
# gs.qd_vec2 ... gs.qd_ivec4 built from them, gs.EPS = float32's machine epsilon)
# (QDC defaults to build/qdc of this checkout). One line per kernel and target:
#   PASS|FAIL  target  module:kernel  [the first diagnostic line, for a failure]
# then per target and overall (a kernel counts once it compiles on every target):
#   TOTAL target: N/M
#   ALL: N/M
# Exit status 0 (the counts are the result); 2 on bad usage.
#
#   tools/drivers/measure.sh --modules GENESIS_ROOT [TARGET...]
#
# reads each such module itself (no driver; the same -D start-up values) per target:
#   $QDC MODULE.py -I GENESIS_ROOT -D ... --target=T --check --error-limit=0
# A module counts when qdc reads it through: exit 0, or exit 1 where every diagnostic is QD2060
# (a generic kernel needs an instance: a module-level kernel of untyped arrays, dataclasses and
# template configs is generic until a caller names its arguments). One line per module and target:
#   PASS|FAIL  target  module  [the first other diagnostic line, for a failure]
# then TOTAL target: N/M and ALL: N/M (a module counts once it passes on every target).
set -u
here=$(cd "$(dirname "$0")" && pwd)
modules_mode=0
if [ "${1:-}" = --modules ]; then modules_mode=1; shift; fi
root=${1:?usage: measure.sh [--modules] GENESIS_ROOT [TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(x86_64 sm_90 gfx942 vulkan1.3)
qdc=${QDC:-$here/../../build/qdc}
out=${OUTDIR:-$(mktemp -d)}
defs=(-D gs.qd_float=qd.f32 -D gs.qd_int=qd.i32 -D gs.qd_bool=qd.u1 -D gs.use_ndarray=True -D gs.EPS=1.1920928955078125e-07)
for n in 2 3 4 6 7 11; do defs+=(-D "gs.qd_vec$n=qd.types.vector($n, qd.f32)"); done
for n in 2 3 4; do defs+=(-D "gs.qd_ivec$n=qd.types.vector($n, qd.i32)"); done
for n in 3 4; do defs+=(-D "gs.qd_mat$n=qd.types.matrix($n, $n, qd.f32)"); done
declare -A ok
total=0
mods=${MODULES:-$(cd "$root" && grep -rl --include="*.py" "^@qd.kernel" genesis | sort)}
if [ $modules_mode -eq 1 ]; then
    for m in $mods; do
        total=$((total + 1))
        all=1
        for t in "${targets[@]}"; do
            err=$(timeout 120 "$qdc" "$root/$m" -I "$root" "${defs[@]}" --target="$t" --check --error-limit=0 2>&1 >/dev/null)
            rc=$?
            other=$(printf '%s\n' "$err" | grep -E 'error|fatal|internal' | grep -v 'error\[QD2060\]')
            if [ $rc -eq 0 ] || { [ $rc -eq 1 ] && [ -z "$other" ]; }; then
                echo "PASS $t $m"
                ok[$t]=$((${ok[$t]:-0} + 1))
            else
                first=$(printf '%s\n' "$other" | head -1)
                [ -n "$first" ] || first="exit $rc, no diagnostic"
                echo "FAIL $t $m  ${first#"$root/"}"
                all=0
            fi
        done
        ok[all]=$((${ok[all]:-0} + all))
    done
    for t in "${targets[@]}"; do echo "TOTAL $t: ${ok[$t]:-0}/$total"; done
    echo "ALL: ${ok[all]:-0}/$total"
    exit 0
fi
for m in $mods; do
    dir="$out/${m%.py}"
    drivers=$(python3 "$here/genesis_drivers.py" "$root" "$root/$m" "$dir") || { echo "DRIVERS-FAILED $m"; continue; }
    for d in $drivers; do
        k=$(basename "$d" .py)
        total=$((total + 1))
        all=1
        for t in "${targets[@]}"; do
            err=$(timeout 120 "$qdc" "$d" -I "$root" "${defs[@]}" --target="$t" --check 2>&1 >/dev/null)
            rc=$?
            if [ $rc -eq 0 ]; then
                echo "PASS $t $m:$k"
                ok[$t]=$((${ok[$t]:-0} + 1))
            else
                first=$(printf '%s\n' "$err" | grep -m1 -E 'error|fatal|internal' || printf '%s\n' "$err" | head -1)
                [ -n "$first" ] || first="exit $rc, no diagnostic"
                echo "FAIL $t $m:$k  ${first#"$out/"}"
                all=0
            fi
        done
        ok[all]=$((${ok[all]:-0} + all))
    done
done
for t in "${targets[@]}"; do echo "TOTAL $t: ${ok[$t]:-0}/$total"; done
echo "ALL: ${ok[all]:-0}/$total"
