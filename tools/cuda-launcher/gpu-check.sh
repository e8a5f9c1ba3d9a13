#!/bin/bash
# gpu-check.sh BUILD_DIR — `make gpu-check`: run qdc's PTX on the NVIDIA GPU of this machine and
# write bench/gpu-results.md. Every example (examples/*.qd) at sizes that are and are not
# multiples of the block size, on full grids and on 3 blocks, and the whole atomics matrix
# (tests/unit/exec_spec.c: op x dtype x order x global/shared/field, exact sequential-history check),
# compiled for the GPU's own sm_XY (or the nearest lower family qdc knows) with its metadata and
# run by tools/cuda-launcher through libqdrt's CUDA device (the driver API JIT-loads the PTX;
# needs only the driver: no CUDA toolkit); then tools/qdrun/device-check.sh (the typed launcher
# and qdrun on the GPU against the CPU).
# Never runs in CI (CI set: it refuses). Exit 0 all exact, 1 a mismatch, 77 no GPU.
set -u
b=${1:-build}
case "${CI:-}" in ""|0|false) ;; *) echo "gpu-check: CI is set; this check is for a machine with an NVIDIA GPU" >&2; exit 1;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
qdc="$root/$b/qdc"
[ -x "$qdc" ] || { echo "gpu-check: $qdc missing (run make first)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/qdc-gpu-check.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
make -s -C "$root/tools/cuda-launcher" OUT="$work" RT="$root/$b/libqdrt.a" >/dev/null || exit 2
launch="$work/qdc-cuda-launch"
info=$("$launch" --info); rc=$?
[ $rc = 0 ] || { echo "$info"; exit $rc; }
gpu=${info%|*}; sm=${info#*|}
# The GPU's family, or the highest qdc family not above it (PTX JIT runs it on newer GPUs).
target=$("$qdc" --list-targets | awk -v want="${sm#sm_}" '$1 ~ /^sm_[0-9]+$/ { v = substr($1, 4) + 0; if (v <= want + 0 && v > best) best = v } END { if (best) print "sm_" best }')
[ -n "$target" ] || { echo "gpu-check: no qdc PTX family for $sm" >&2; exit 2; }
out="$root/bench/gpu-results.md"
log="$work/log"
pass=0; fail=0
run() { # label, command...
    local label=$1; shift
    local t0=$(date +%s.%N) res
    if res=$("$@" 2>&1); then pass=$((pass + 1)); st=PASS; else fail=$((fail + 1)); st=FAIL; fi
    printf '| %s | %s | %.2f s | %s |\n' "$label" "$st" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" "$(echo "$res" | tail -1 | tr '|' '/')" >> "$log"
    echo "gpu-check: $label: $st"
}
for qd in "$root"/examples/*.qd; do
    name=$(basename "$qd" .qd)
    { "$qdc" "$qd" --target="$target" -o "$work/$name.ptx" && "$qdc" "$qd" --target="$target" --emit=metadata -o "$work/$name.json"; } || { fail=$((fail + 1)); echo "| $name | COMPILE FAIL | | |" >> "$log"; continue; }
    for n in 1 127 128 1000 4097 100003 1000000; do
        run "$name n=$n full" "$launch" "$name" "$work/$name.ptx" "$n"
        run "$name n=$n 3 blocks" "$launch" "$name" "$work/$name.ptx" "$n" few
    done
done
# libqdrt's CUDA device (issue 32): the typed launcher and qdrun against the CPU, byte for byte
run "libqdrt: histogram_any + qdrun on cuda vs cpu" bash "$root/tools/qdrun/device-check.sh" "$b" cuda "$target" ptx
"$launch" --emit-matrix "$work" || exit 2
for dt in i32 u32 i64 u64 f32 f64; do
    for sp in global shared field; do
        f="$work/x_${dt}_${sp}"
        { "$qdc" "$f.qd" --target="$target" -o "$f.ptx" && "$qdc" "$f.qd" --target="$target" --emit=metadata -o "$f.json"; } || { fail=$((fail + 1)); echo "| matrix $dt $sp | COMPILE FAIL | | |" >> "$log"; continue; }
        for n in 1024 131072; do
            run "matrix $dt $sp n=$n" "$launch" --matrix "$dt" "$sp" "$f.ptx" "$n"
        done
    done
done
{
    echo "# qdc on an NVIDIA GPU (\`make gpu-check\`)"
    echo
    echo "GPU: **$gpu** ($sm), PTX target \`$target\`, qdc $("$qdc" --version | head -1), $(date -u +%Y-%m-%d)."
    echo "Every run is checked exactly (examples: the checks of tests/unit/exec_spec.c; matrix: the"
    echo "sequential-history check of every target of every op x order kernel). **$pass passed, $fail failed.**"
    echo
    echo "| run | result | time | last line |"
    echo "|---|---|---|---|"
    cat "$log"
} > "$out"
echo "gpu-check: $pass passed, $fail failed on $gpu; wrote $out"
[ $fail = 0 ]
