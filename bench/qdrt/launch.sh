#!/bin/bash
# launch.sh [BUILD_DIR] — launch overhead of libqdrt vs vkrun for a trivial kernel (one task, one
# element) on this machine's Vulkan driver (the suite's lavapipe when VK_DRIVER_FILES is unset and
# BUILD_DIR/vulkan has it) and libqdrt's CPU device; writes bench/qdrt/results.md.
#   vkrun submit->idle: VKRUN_TIME's "submit to idle" (one dispatch, recorded in advance)
#   libqdrt per launch: the mean of 1000 qdrt_launch_kernel calls (checks, descriptor set,
#                       command buffer recorded, submitted, waited for)
#   process: the wall time of one whole `vkrun` / `qdrun` process (device creation included), mean of 20
set -eu
b=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
[ -n "${VK_DRIVER_FILES:-}" ] || [ ! -f "$root/$b/vulkan/lvp_icd.json" ] || export VK_DRIVER_FILES="$root/$b/vulkan/lvp_icd.json"
work=$(mktemp -d "${TMPDIR:-/tmp}/qdrt-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
qdc="$root/$b/qdc"
src="$root/bench/qdrt/trivial.qd"
"$qdc" --target=vulkan1.2 "$src" -o "$work/trivial.spv"
"$qdc" --target=vulkan1.2 --emit=metadata "$src" -o "$work/trivial.json"
mkdir -p "$work/cpu"
"$qdc" "$src" -o "$work/cpu/trivial.o"
"$qdc" --emit=metadata "$src" -o "$work/cpu/trivial.json"
cc -std=c17 -O2 -Wall -Wextra -Werror -I"$root/runtime" -o "$work/launch" "$root/bench/qdrt/launch.c" "$root/$b/libqdrt.a" \
  -lpthread -lm -rdynamic
read -r vk_launch vk_open vk_first < <("$work/launch" vulkan "$work/trivial.spv" 1000)
read -r cpu_launch cpu_open cpu_first < <("$work/launch" cpu "$work/cpu/trivial.o" 1000)
printf '\1\0\0\0' > "$work/buf"
python3 - "$work" <<'PY'
import struct, sys
h = "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }"
h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
open(sys.argv[1] + '/a.npy', 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + struct.pack('<i', 0))
PY
submit=0
t0=$(date +%s.%N)
for i in $(seq 20); do
  s=$(VKRUN_TIME=1 "$root/$b/vkrun" "$work/trivial.spv" --buffer 0,0,"$work/buf" fill_t0:1 2>&1 >/dev/null | sed -n 's/.*submit to idle \([0-9.]*\) ms/\1/p')
  submit=$(awk -v a="$submit" -v b="$s" 'BEGIN { print a + b }')
done
t1=$(date +%s.%N)
for i in $(seq 20); do "$root/$b/qdrun" "$work/trivial.spv" fill a=@"$work/a.npy"; done
t2=$(date +%s.%N)
for i in $(seq 20); do "$root/$b/qdrun" "$work/cpu/trivial.o" fill a=@"$work/a.npy"; done
t3=$(date +%s.%N)
dev=$(VK_LOADER_DEBUG= "$root/$b/vkrun" "$work/trivial.spv" --buffer 0,0,"$work/buf" fill_t0:1 | sed -n 's/vkrun: ran 1 entry point(s) on \(.*\) (Vulkan.*/\1/p')
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 20 * 1000 }'; }
{
  echo "# Launch overhead: libqdrt vs vkrun (\`bash bench/qdrt/launch.sh\`)"
  echo
  echo "Kernel: bench/qdrt/trivial.qd (\`fill\`, one task, one element). Vulkan device: $dev; CPU: $(nproc) threads. $(date -u +%Y-%m-%d)."
  echo
  echo "| what | time |"
  echo "|---|---|"
  echo "| vkrun: one dispatch, submit to idle (VKRUN_TIME; command buffer recorded before) | $(awk -v a="$submit" 'BEGIN { printf "%.1f us", a / 20 * 1000 }') |"
  echo "| libqdrt Vulkan: one qdrt_launch_kernel (checks, descriptor set, record, submit, wait), mean of 1000 | $vk_launch us |"
  echo "| libqdrt Vulkan: the first qdrt_launch_kernel after loading | $vk_first us |"
  echo "| libqdrt CPU: one qdrt_launch_kernel, mean of 1000 | $cpu_launch us |"
  echo "| libqdrt CPU: the first qdrt_launch_kernel (thread pool started) | $cpu_first us |"
  echo "| libqdrt Vulkan: device open + module load (pipelines created) | $vk_open ms |"
  echo "| libqdrt CPU: device open + module load (ld.lld-19 link + dlopen) | $cpu_open ms |"
  echo "| one whole vkrun process (instance, device, pipeline, dispatch, write-back) | $(ms "$t0" "$t1") ms |"
  echo "| one whole qdrun process, Vulkan (.npy in and out) | $(ms "$t1" "$t2") ms |"
  echo "| one whole qdrun process, CPU (.o linked at load) | $(ms "$t2" "$t3") ms |"
} > "$root/bench/qdrt/results.md"
cat "$root/bench/qdrt/results.md"
