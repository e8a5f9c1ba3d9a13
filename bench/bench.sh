#!/usr/bin/env bash
# `make bench` (issue 9): one table of medians and ratios from one run, also written to
# bench/results.md. Sections: 1 compile latency per target kind (qdc vs llc-19 -O2 on qdc's own
# LLVM IR, nvcc -ptx on bench/cuda/, glslangValidator -V on bench/glsl/); 2 PTX quality vs nvcc
# (atomics, instructions, registers, spills from ptxas -v) on sm_80 and sm_90; 3 x86 run time vs
# bench/c/ (1 and 2 threads); 4 compile time and peak memory for 10^2..10^5 statements; 5 libqdrt's
# launch overhead vs vkrun (bench/qdrt/launch.sh).
# Public tools only: date, /usr/bin/time, repeated runs, medians. nvcc/ptxas columns are
# skipped with a note when /usr/local/cuda/bin is absent.
# usage: bash bench/bench.sh BUILD_DIR     env: BENCH_RUNS (5), BENCH_N (10^8), BENCH_SECTIONS (12345)
set -u
B=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
QDC=$(cd "$B" && pwd)/qdc
W=$(cd "$B" && pwd)/bench
RUNS=${BENCH_RUNS:-5}
N=${BENCH_N:-100000000}
SECTIONS=${BENCH_SECTIONS:-12345}
CUDA=/usr/local/cuda/bin
OUT=$ROOT/bench/results.md
mkdir -p "$W"
have_cuda=0; [ -x "$CUDA/nvcc" ] && [ -x "$CUDA/ptxas" ] && have_cuda=1
have_glslang=0; command -v glslangValidator >/dev/null && have_glslang=1
REPORT=$W/results.md
: >"$REPORT"
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }

# median_ms CMD...: runs CMD $RUNS times (output discarded) and prints the median wall time in
# ms; prints "fail" if any run exits non-zero.
median_ms() {
    local t=() i s e
    for ((i = 0; i < RUNS; i++)); do
        s=$(date +%s%N)
        "$@" >/dev/null 2>&1 || { echo fail; return 1; }
        e=$(date +%s%N)
        t+=($(((e - s) / 1000)))
    done
    printf '%s\n' "${t[@]}" | sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.1f\n", m/1000}'
}
# peak_kib CMD...: peak resident memory of one run, from /usr/bin/time.
peak_kib() { /usr/bin/time -f '%M' -o "$W/time.out" "$@" >/dev/null 2>&1 && cat "$W/time.out" || echo fail; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a+0 > 0 && b+0 > 0) printf "%.2f", a/b; else printf "n/a" }'; }

# One family per target kind (override with BENCH_TARGETS="x86_64 sm_80 ...").
pick_targets() {
    local list t out=""
    list=$("$QDC" --list-targets 2>/dev/null)
    for t in ${BENCH_TARGETS:-x86_64 sm_80 gfx942 vulkan1.2 apple8}; do # each family once: a repeat gave duplicate rows
        grep -qw -- "$t" <<<"$list" && [[ " $out" != *" $t "* ]] && out+="$t "
    done
    echo "$out"
}
# llc_flags TARGET: -mcpu/-mattr from the family's llvm.cpu and llvm.features (qdc --print-caps),
# so the llc floor compiles the IR for the same machine qdc does (without them llc-19 picks a
# generic CPU and aborts on sm_80 IR: redux.sync, activemask).
llc_flags() {
    "$QDC" --print-caps "$1" 2>/dev/null | awk -F': *' '
        $1 == "llvm.cpu" && $2 != "" { printf " -mcpu=%s", $2 }
        $1 == "llvm.features" && $2 != "" { printf " -mattr=%s", $2 }'
}
backend_of() { "$QDC" --list-targets 2>/dev/null | awk -v t="$1" '$1 == t {for (i = 2; i <= NF; i++) if ($i ~ /^(x86_64|ptx|amdgpu|spirv|msl)$/) {print $i; exit}}'; }

examples=()
for f in "$ROOT"/examples/*.qd; do examples+=("$(basename "$f" .qd)"); done

# interleaved ARRAY...: runs the commands held in the named arrays in turn, $RUNS rounds
# (A B C A B C ..., so load from elsewhere hits them alike); MED[i] is then the median wall time
# in ms of command i, or "fail" if one of its runs exited non-zero.
interleaved() {
    local names=("$@") i r s e ref
    local -a t=()
    MED=()
    for ((r = 0; r < RUNS; r++)); do
        for i in "${!names[@]}"; do
            ref="${names[i]}[@]"
            s=$(date +%s%N)
            "${!ref}" >/dev/null 2>&1 || MED[i]=fail
            e=$(date +%s%N)
            t[i]+="$(((e - s) / 1000)) "
        done
    done
    for i in "${!names[@]}"; do
        [[ ${MED[i]:-} == fail ]] && continue
        MED[i]=$(printf '%s\n' ${t[i]} | sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.1f\n", m/1000}')
    done
}

# Section 1: qdc end to end against `llc-19 -O2` on the LLVM IR qdc itself emits (an object for
# x86_64 and AMDGPU, PTX text for NVIDIA), nvcc -ptx and glslangValidator -V, each row's
# commands interleaved. AMDGPU also gets a second table splitting qdc's time into the unlinked
# object (`--emit=obj`, a documented output) and ld.lld-19 run alone on that object.
section1() {
    say "## 1. Compile latency (median of $RUNS interleaved runs, ms)"
    say ""
    say "| example | target | qdc | llc-19 -O2 floor | qdc/llc | nvcc -ptx | qdc/nvcc | glslang -V | qdc/glslang |"
    say "|---|---|---|---|---|---|---|---|---|"
    local ex t kind q l n g i amd=""
    local -a cq cl cn cg co ck names
    for t in $(pick_targets); do
        kind=$(backend_of "$t"); [ -n "$kind" ] || kind=$t
        for ex in "${examples[@]}"; do
            local src=$ROOT/examples/$ex.qd o=$W/$ex.$t.out
            if ! "$QDC" "$src" --target="$t" -o "$o" 2>"$W/err"; then
                say "| $ex | $t | $(grep -m1 -o 'error\[QD[0-9]*\]' "$W/err" || echo fail) (target cannot compile it) | | | | | | |"
                continue
            fi
            cq=("$QDC" "$src" --target="$t" -o "$o") names=(cq)
            l=n/a n=n/a g=n/a
            if [[ $kind == x86_64 || $kind == ptx || $kind == amdgpu ]] &&
                "$QDC" "$src" --target="$t" --emit=llvm-ir -o "$W/$ex.$t.ll" 2>/dev/null; then
                local -a lf
                read -ra lf <<<"$(llc_flags "$t")"
                cl=(llc-19 -O2 "${lf[@]}" "$W/$ex.$t.ll" -o "$W/$ex.$t.llc") names+=(cl) l=
                [[ $kind == ptx ]] || cl=(llc-19 -O2 "${lf[@]}" -filetype=obj "$W/$ex.$t.ll" -o "$W/$ex.$t.llc")
            fi
            if [[ $kind == amdgpu ]] && "$QDC" "$src" --target="$t" --emit=obj -o "$W/$ex.$t.o" 2>/dev/null; then
                co=("$QDC" "$src" --target="$t" --emit=obj -o "$W/$ex.$t.o")
                ck=(ld.lld-19 -shared --no-undefined "$W/$ex.$t.o" -o "$W/$ex.$t.lld.hsaco") names+=(co ck)
            fi
            if [[ $kind == ptx && $have_cuda == 1 && -f $ROOT/bench/cuda/$ex.cu ]]; then
                cn=("$CUDA/nvcc" -ptx -arch="${t%a}" "$ROOT/bench/cuda/$ex.cu" -o "$W/$ex.nvcc.ptx") names+=(cn) n=
            fi
            if [[ ($kind == spirv || $kind == msl) && $have_glslang == 1 && -f $ROOT/bench/glsl/$ex.comp ]]; then
                cg=(glslangValidator -V --target-env vulkan1.2 "$ROOT/bench/glsl/$ex.comp" -o "$W/$ex.glsl.spv") names+=(cg) g=
            fi
            interleaved "${names[@]}"
            local -A m=()
            for i in "${!names[@]}"; do m[${names[i]}]=${MED[i]}; done
            q=${m[cq]} l=${m[cl]:-$l} n=${m[cn]:-$n} g=${m[cg]:-$g}
            say "| $ex | $t | $q | $l | $(ratio "$q" "$l") | $n | $(ratio "$q" "$n") | $g | $(ratio "$q" "$g") |"
            [[ -n ${m[co]:-} ]] && amd+="| $ex | $t | $q | ${m[co]} | ${m[ck]} | $l | $(ratio "$q" "$l") | $(ratio "${m[co]}" "$l") |"$'\n'
            unset m
        done
    done
    [[ $have_cuda == 1 ]] || say "(nvcc columns skipped: $CUDA/nvcc not found)"
    say ""
    [[ -n $amd ]] || return 0
    say "AMDGPU: qdc's code object (linked by ld.lld-19, which qdc starts before code generation so"
    say "that its start-up overlaps qdc's) against the unlinked object (--emit=obj) and ld.lld-19 alone."
    say ""
    say "| example | target | qdc | qdc --emit=obj | ld.lld-19 alone | llc-19 -O2 floor | qdc/llc | obj/llc |"
    say "|---|---|---|---|---|---|---|---|"
    say "${amd%$'\n'}"
    say ""
}

# PTX body statistics: atomics (atom/red), instructions (statements ending in ';' that are not
# directives or declarations), then ptxas -v registers and spill bytes.
ptx_stats() {
    local ptx=$1 arch=$2
    local atom instr regs spill
    atom=$(grep -cE '^\s*(@%p[0-9]+\s+)?(atom|red)\.' "$ptx")
    instr=$(grep -E '^\s*(@!?%p[0-9]+\s+)?[a-z][a-z0-9_.]*(\s|;)' "$ptx" | grep -vcE '^\s*\.|^\s*(ret|//)')
    "$CUDA/ptxas" -v -arch="$arch" "$ptx" -o "$W/ptxas.cubin" 2>"$W/ptxas.log" || { echo "fail fail fail fail"; return; }
    regs=$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' "$W/ptxas.log" | sort -n | tail -1)
    spill=$(sed -n 's/.*\([0-9][0-9]*\) bytes spill stores, \([0-9][0-9]*\) bytes spill loads.*/\1+\2/p' "$W/ptxas.log" |
        awk -F+ '{s += $1 + $2} END {print s + 0}')
    echo "$atom $instr ${regs:-0} $spill"
}

section2() {
    say "## 2. Generated PTX vs nvcc (atomics / instructions / max registers / spill bytes)"
    say ""
    if [[ $have_cuda == 0 ]]; then say "(skipped: $CUDA/ptxas not found)"; say ""; return; fi
    say "| example | arch | qdc atom | nvcc atom | qdc instr | nvcc instr | instr ratio | qdc regs | nvcc regs | qdc spill | nvcc spill |"
    say "|---|---|---|---|---|---|---|---|---|---|---|"
    local ex arch
    for arch in sm_80 sm_90; do
        for ex in "${examples[@]}"; do
            [[ -f $ROOT/bench/cuda/$ex.cu ]] || continue
            local qp=$W/$ex.$arch.qdc.ptx np=$W/$ex.$arch.nvcc.ptx
            "$QDC" "$ROOT/examples/$ex.qd" --target=$arch -o "$qp" 2>/dev/null || { say "| $ex | $arch | qdc failed |"; continue; }
            "$CUDA/nvcc" -ptx -O3 -arch=$arch "$ROOT/bench/cuda/$ex.cu" -o "$np" 2>/dev/null || { say "| $ex | $arch | nvcc failed |"; continue; }
            read -r qa qi qr qs < <(ptx_stats "$qp" $arch)
            read -r na ni nr ns < <(ptx_stats "$np" $arch)
            say "| $ex | $arch | $qa | $na | $qi | $ni | $(ratio "$qi" "$ni") | $qr | $nr | $qs | $ns |"
        done
    done
    say ""
    say "Registers are the maximum over a module's entries; bench/cuda/ are the same grid-stride algorithms."
    say "Per-entry numbers and an explanation of every difference: bench/ptx-quality.md."
    say ""
}

# Section 3 takes at least 7 runs of each side, qdc and C interleaved (x86bench alternates them).
section3() {
    local runs=$((RUNS < 7 ? 7 : RUNS))
    say "## 3. x86 run time (N = $N, median of $runs runs, qdc and C interleaved, ms; ratio = C / qdc, target >= 1.0)"
    say ""
    local hdr=$W/x86 ex
    mkdir -p "$hdr"
    for ex in histogram float_sum compaction cas_max; do
        "$QDC" "$ROOT/examples/$ex.qd" --target=x86_64 -o "$hdr/$ex.o" 2>"$hdr/err" &&
            "$QDC" "$ROOT/examples/$ex.qd" --target=x86_64 --emit=header -o "$hdr/$ex.h" 2>>"$hdr/err" ||
            { say "(skipped: qdc cannot compile $ex.qd for x86_64: $(head -1 "$hdr/err"))"; say ""; return; }
    done
    "$QDC" "$ROOT/bench/x86/reductions.qd" --target=x86_64 -o "$hdr/reductions.o" 2>"$hdr/err" &&
        "$QDC" "$ROOT/bench/x86/reductions.qd" --target=x86_64 --emit=header -o "$hdr/reductions.h" 2>>"$hdr/err" ||
        { say "(skipped: qdc cannot compile bench/x86/reductions.qd: $(head -1 "$hdr/err"))"; say ""; return; }
    clang-19 -O2 -I"$hdr" -I"$ROOT/runtime" -I"$ROOT/bench/c" "$ROOT/bench/c/x86bench.c" "$ROOT/bench/c/ref.c" \
        "$hdr"/*.o "$B/libqdrt.a" -lpthread -lm -o "$hdr/x86bench" 2>"$hdr/err" ||
        { say "(skipped: the benchmark driver does not build: $(head -3 "$hdr/err"))"; say ""; return; }
    say "| kernel | threads | qdc | C (__atomic, clang -O2) | C/qdc | result |"
    say "|---|---|---|---|---|---|"
    "$hdr/x86bench" "$N" "$runs" | while read -r name th q c ok; do
        say "| $name | $th | $q | $c | $(ratio "$c" "$q") | $ok |"
    done
    say ""
}

# Section 3, Vulkan (issue 17): the reductions, float_sum and compaction on lavapipe (the CPU
# Vulkan driver of `make vulkan-deps`: 8-lane subgroups on this host's CPUs), vulkan1.2 with
# the subgroup caps, qdc's default (reduced / aggregated per subgroup) against
# --atomic-rewrite=none, interleaved; each time is vkrun's VKRUN_TIME (vkQueueSubmit to idle:
# the dispatches only, no device or pipeline creation), median of at least 7 runs, the two
# variants alternating which runs first. Inputs are zeros
# (every atomic on one address: the most contended case; compaction's threshold -1 keeps all).
le32() { local v=$(($1 & 0xffffffff)); printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((v & 255)) $((v >> 8 & 255)) $((v >> 16 & 255)) $((v >> 24 & 255)))"; }
vk_time() { # vk_time SPV ARGS...: one timed vkrun; prints ms or "fail"
    local out
    out=$(VKRUN_TIME=1 VK_DRIVER_FILES="$VKD/lvp_icd.json" LD_LIBRARY_PATH="$VKLIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$B/vkrun" "$@" 2>&1 >/dev/null) ||
        { echo fail; return; }
    sed -n 's/^vkrun: submit to idle \([0-9.]*\) ms$/\1/p' <<<"$out"
}
section3v() {
    local n=${BENCH_VK_N:-4194304} runs=$((RUNS < 7 ? 7 : RUNS)) d=$W/vk g caps
    VKD=$(cd "$B" && pwd)/vulkan
    say "### 3c. Vulkan on lavapipe (issue 17; N = $n, median of $runs runs interleaved, ms of vkQueueSubmit to idle; ratio = none / default)"
    say ""
    if [ ! -x "$B/vkrun" ] || [ ! -f "$VKD/lvp_icd.json" ] || [ ! -f "$VKD/libdir" ]; then
        say "(skipped: no lavapipe or vkrun: make vulkan-deps)"; say ""; return
    fi
    VKLIB=$(head -1 "$VKD/libdir")
    mkdir -p "$d"
    caps=(--target=vulkan1.2 --cap=+subgroup-arithmetic --cap=+subgroup-ballot --cap=+float-atomic-add)
    for m in all none; do
        "$QDC" "$ROOT/bench/x86/reductions.qd" "${caps[@]}" --atomic-rewrite=$m -o "$d/red.$m.spv" &&
            "$QDC" "$ROOT/examples/float_sum.qd" "${caps[@]}" --atomic-rewrite=$m -o "$d/fs.$m.spv" &&
            "$QDC" "$ROOT/examples/compaction.qd" "${caps[@]}" --atomic-rewrite=$m -o "$d/cp.$m.spv" 2>"$d/err" ||
            { say "(skipped: qdc cannot compile the Vulkan benchmarks: $(head -1 "$d/err"))"; say ""; return; }
    done
    g=$(((n + 127) / 128)); ((g > 65535)) && g=65535
    truncate -s 0 "$d/x" && truncate -s $((4 * n)) "$d/x" && truncate -s 0 "$d/y" && truncate -s $((4 * n)) "$d/y"
    truncate -s 0 "$d/z" && truncate -s $((4 * n)) "$d/z" && truncate -s 0 "$d/o" && truncate -s 16 "$d/o"
    truncate -s 0 "$d/c" && truncate -s 4 "$d/c"
    le32 "$n" >"$d/p2" && le32 1 >>"$d/p2"                   # (x, out): extents
    le32 "$n" >"$d/p4" && le32 4 >>"$d/p4"                   # (x, bins)
    le32 "$n" >"$d/pf" && le32 2 >>"$d/pf"                   # float_sum (x, out)
    { le32 -1; le32 "$n"; le32 "$n"; le32 "$n"; le32 1; } >"$d/pc"   # compaction: threshold, extents
    local -A what=([isum]="red p2 isum" [imax]="red p2 imax" [hist4]="red p4 hist4" [float_sum]="fs pf float_sum"
                   [compaction]="cp pc compact")
    say "| kernel | default (reduced / aggregated per subgroup) | --atomic-rewrite=none | none / default |"
    say "|---|---|---|---|"
    local k spv push entry m r
    for k in isum imax hist4 float_sum compaction; do
        read -r spv push entry <<<"${what[$k]}"
        local -a ta=() tn=()
        for ((r = 0; r < runs; r++)); do
            local order=(all none)
            ((r % 2)) && order=(none all)   # alternate which goes first: no order bias
            for m in "${order[@]}"; do
                local t args=("$d/$spv.$m.spv" --buffer "0,0,$d/x" --buffer "0,1,$d/o" --push "$d/$push")
                local tail=()
                [ "$k" = compaction ] && args=("$d/$spv.$m.spv" --buffer "0,0,$d/x" --buffer "0,1,$d/y" --buffer "0,2,$d/z"
                                               --buffer "0,3,$d/o" --buffer "1,0,$d/c" --push "$d/$push") tail=("${entry}_t2:1")
                t=$(vk_time "${args[@]}" "${entry}_t0:1" "${entry}_t1:$g" "${tail[@]}")
                if [ $m = all ]; then ta+=("$t"); else tn+=("$t"); fi
            done
        done
        local ma mn
        ma=$(printf '%s\n' "${ta[@]}" | sort -n | awk '/fail/ {f=1} {v[NR]=$1} END {if (f || !NR) print "fail"; else print (NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}')
        mn=$(printf '%s\n' "${tn[@]}" | sort -n | awk '/fail/ {f=1} {v[NR]=$1} END {if (f || !NR) print "fail"; else print (NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}')
        say "| $k | $ma | $mn | $(ratio "$mn" "$ma") |"
    done
    say ""
}

# A kernel of $1 statements: atomics on an ndarray mixed with local arithmetic.
gen_kernel() {
    local n=$1 k
    printf 'import quadrants as qd\n\n@qd.kernel\ndef big(a: qd.types.NDArray[qd.i32, 1], s: qd.i32):\n    for i in range(64):\n        t = s\n'
    for ((k = 1; k < n; k++)); do
        if ((k % 3)); then printf '        t = t * 3 + %d\n' "$k"; else printf '        a[(i + %d) %% 64] += t\n' "$k"; fi
    done
}

# A module of $1 small kernels (one parallel loop with one atomic each).
gen_kernels() {
    local n=$1 k
    printf 'import quadrants as qd\n'
    for ((k = 0; k < n; k++)); do
        printf '\n@qd.kernel\ndef k%d(a: qd.types.NDArray[qd.i32, 1]):\n    for i in range(a.shape[0]):\n        a[i] += %d\n' "$k" "$k"
    done
}

# Section 4 commands run under `timeout $BENCH_TIMEOUT` (default 300 s): "timeout" in a cell
# means the compile did not finish in that time. Every backend kind, up to 10^5 statements;
# qdc(1) promises growth of at most n log n, so ms per statement must stay about flat.
SCALE_TARGETS=${BENCH_SCALE_TARGETS:-x86_64 sm_90 gfx942 vulkan1.3 apple8}
section4() {
    local lim=${BENCH_TIMEOUT:-300}
    say "## 4. Scaling (every backend; median of $RUNS runs, one run past 1000 statements; peak RSS of one run; limit ${lim} s)"
    say ""
    say "| target | statements | --check ms | --check peak MiB | compile ms | compile peak MiB | compile ms per stmt |"
    say "|---|---|---|---|---|---|---|"
    local n c cm t m runs=$RUNS tg
    for n in 100 1000 10000 100000; do gen_kernel $n >"$W/scale$n.qd"; done
    for tg in $SCALE_TARGETS; do
        for n in 100 1000 10000 100000; do
            ((n > 1000)) && RUNS=1
            c=$(median_ms timeout "$lim" "$QDC" --check "$W/scale$n.qd")
            cm=$(peak_kib timeout "$lim" "$QDC" --check "$W/scale$n.qd")
            t=$(median_ms timeout "$lim" "$QDC" "$W/scale$n.qd" --target="$tg" -o "$W/scale$n.$tg.out")
            [[ $t == fail ]] && t=timeout m=n/a || m=$(peak_kib timeout "$lim" "$QDC" "$W/scale$n.qd" --target="$tg" -o "$W/scale$n.$tg.out")
            RUNS=$runs
            say "| $tg | $n | $c | $(mib "$cm") | $t | $(mib "$m") | $(awk -v t="$t" -v n=$n 'BEGIN { if (t+0 > 0) printf "%.3f", t/n; else print "n/a" }') |"
            [[ $t == timeout ]] && break
        done
    done
    say ""
    say "Many small kernels (one module, one kernel per 3 lines):"
    say ""
    say "| target | kernels | compile ms | compile peak MiB |"
    say "|---|---|---|---|"
    for n in 1000 10000; do gen_kernels $n >"$W/kernels$n.qd"; done
    RUNS=1
    for tg in $SCALE_TARGETS; do
        for n in 1000 10000; do
            t=$(median_ms timeout "$lim" "$QDC" "$W/kernels$n.qd" --target="$tg" -o "$W/kernels$n.$tg.out")
            [[ $t == fail ]] && t=timeout m=n/a || m=$(peak_kib timeout "$lim" "$QDC" "$W/kernels$n.qd" --target="$tg" -o "$W/kernels$n.$tg.out")
            say "| $tg | $n | $t | $(mib "$m") |"
            [[ $t == timeout ]] && break
        done
    done
    RUNS=$runs
    say ""
}
mib() { awk -v m="$1" 'BEGIN { if (m+0 > 0) printf "%.1f", m/1024; else print m }'; }

# 5. libqdrt's launch overhead vs vkrun (issue 32): bench/qdrt/launch.sh's one run, its table here.
section5() {
    say "## 5. Launch overhead: libqdrt vs vkrun (issue 32; bench/qdrt/launch.sh, one run; vkrun is itself a client of libqdrt)"
    say ""
    if bash "$ROOT/bench/qdrt/launch.sh" "$B" >"$W/launch.log" 2>&1; then
        sed -n '3,$p' "$ROOT/bench/qdrt/results.md" | while IFS= read -r l; do say "$l"; done
    else
        say "(skipped: bench/qdrt/launch.sh failed: $(tail -1 "$W/launch.log"))"
    fi
    say ""
}

say "# qdc benchmarks"
say ""
say "Host: $(nproc) CPUs, $(uname -m); qdc $("$QDC" --version 2>/dev/null | head -1); $(llc-19 --version | grep -m1 'LLVM version' | sed 's/^ *//')"
say ""
[[ $SECTIONS == *1* ]] && section1
[[ $SECTIONS == *2* ]] && section2
[[ $SECTIONS == *3* ]] && { section3; section3v; }
[[ $SECTIONS == *v* && $SECTIONS != *3* ]] && section3v   # BENCH_SECTIONS=v: the Vulkan part alone
[[ $SECTIONS == *4* ]] && section4
[[ $SECTIONS == *5* ]] && section5
cp "$REPORT" "$OUT"
echo "written: bench/results.md"
