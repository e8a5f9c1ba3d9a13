#!/usr/bin/env bash
# Runs one libFuzzer target: replays testdata/regress/<name>/ (every past crash), then fuzzes
# for SECONDS from testdata/fuzz-seeds/<name>/ plus a working corpus under the build tree, with
# fuzz/<name>.dict as -dict= when there is one (capdb: regenerate seeds and dict with fuzz/capdb-seeds.sh).
# A new crash is copied into testdata/regress/<name>/ so that later runs replay it.
# usage: fuzz/run.sh BUILD_DIR NAME SECONDS SEED|random
set -u
b=$1 name=$2 secs=$3 seed=$4
bin=$b/fuzz_$name
seeds=testdata/fuzz-seeds/$name regress=testdata/regress/$name
corpus=$b/corpus/$name crashes=$b/crashes/$name
mkdir -p "$corpus" "$crashes" "$regress"
export QDC_ROOT=${QDC_ROOT:-$PWD}
# frontend and kernel: 256 KiB, so that 30 000-link postfix chains (60 KB) and 10^4-line
# kernels are reachable; the pipeline input is generator bytes, 1 KiB drives a whole module.
case $name in frontend|kernel) max_len=262144 ;; capdb) max_len=16384 ;; *) max_len=1024 ;; esac
opts=(-max_len=$max_len -timeout=20 -rss_limit_mb=3072 -print_final_stats=1)
[ "$seed" = random ] || opts+=(-seed="$seed")
[ -f "fuzz/$name.dict" ] && opts+=(-dict="fuzz/$name.dict")
extra=(); [ "$name" = frontend ] && extra=(testdata/bad)   # the bad-input corpus seeds the frontend too
[ "$name" = kernel ] && extra=(testdata/regress/compile)  # readable pipeline crashes seed the kernel fuzzer

shopt -s nullglob
replay=("$regress"/*)
if [ ${#replay[@]} -gt 0 ]; then
    if ! "$bin" "${opts[@]}" "${replay[@]}" >"$b/replay-$name.log" 2>&1; then
        echo "fuzz_$name: a regression input crashes again (see $b/replay-$name.log)"; tail -30 "$b/replay-$name.log"
        exit 1
    fi
fi
log=$b/fuzz-$name.log
"$bin" "${opts[@]}" -max_total_time="$secs" -artifact_prefix="$crashes/" "$corpus" "$seeds" "${extra[@]}" >"$log" 2>&1
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
found=("$crashes"/crash-* "$crashes"/leak-* "$crashes"/timeout-* "$crashes"/oom-*)
new=0
for f in "${found[@]}"; do
    dest=$regress/$(basename "$f")
    [ -e "$dest" ] || { cp "$f" "$dest"; new=$((new + 1)); }
done
echo "fuzz_$name: ${execs:-0} executions in ${secs} s, replayed ${#replay[@]} regression inputs, $new new crash(es), exit $rc"
if [ $rc -ne 0 ]; then
    grep -m1 -E 'ERROR|SUMMARY|deadly signal|fuzz target exited' "$log"
    echo "fuzz_$name: inputs copied to $regress/; full log in $log"
    exit 1
fi
