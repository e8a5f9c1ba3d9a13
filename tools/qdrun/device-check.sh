#!/bin/bash
# device-check.sh BUILD_DIR DEVICE TARGET EXT — libqdrt on one device against the CPU: the 20-line
# host program examples/qdrt/histogram_any.c (typed launcher histogram_run) and `qdrun histogram`
# with .npy files, each run on DEVICE (vulkan, cuda, hip) with examples/histogram.qd compiled for
# TARGET (.EXT) and on the CPU; the outputs must be byte-identical. `make gpu-check` runs it with
# cuda and the GPU's sm_XY; `bash tools/qdrun/device-check.sh build vulkan vulkan1.2 spv` on lavapipe.
# Exit 0 identical, 1 a difference or failure, 2 setup error, 77 no such device.
set -u
b=$1 dev=$2 target=$3 ext=$4
root=$(cd "$(dirname "$0")/../.." && pwd)
qdc="$root/$b/qdc" qdrun="$root/$b/qdrun" rt="$root/$b/libqdrt.a"
for f in "$qdc" "$qdrun" "$rt"; do [ -e "$f" ] || { echo "device-check: $f missing (run make first)" >&2; exit 2; }; done
work=$(mktemp -d "${TMPDIR:-/tmp}/qdrt-device-check.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
src="$root/examples/histogram.qd"
mkdir -p "$work/dev" "$work/cpu"
"$qdc" --target="$target" "$src" -o "$work/dev/histogram.$ext" && "$qdc" --target="$target" --emit=metadata "$src" -o "$work/dev/histogram.json" &&
  "$qdc" "$src" -o "$work/cpu/histogram.o" && "$qdc" --emit=metadata "$src" -o "$work/cpu/histogram.json" &&
  "$qdc" --target="$target" --emit=header "$src" -o "$work/histogram.h" || exit 2
cc -std=c17 -Wall -Wextra -Werror -I"$root/runtime" -I"$work" -o "$work/histogram_any" "$root/examples/qdrt/histogram_any.c" "$rt" \
  -lpthread -lm -rdynamic || exit 2
"$work/histogram_any" cpu "$work/cpu/histogram.o" > "$work/cpu.txt" || exit 1
"$work/histogram_any" "$dev" "$work/dev/histogram.$ext" > "$work/dev.txt" 2> "$work/err"; rc=$?
if [ $rc != 0 ]; then
  cat "$work/err" >&2
  grep -q "^histogram_any: no " "$work/err" && exit 77
  exit 1
fi
cmp -s "$work/cpu.txt" "$work/dev.txt" || { echo "device-check: histogram_any differs on $dev" >&2; diff "$work/cpu.txt" "$work/dev.txt" >&2; exit 1; }
# qdrun: 100003 values (not a multiple of any block size), bins read and written back
python3 - "$work" <<'PY' || exit 2
import struct, sys
def npy(path, vals):
    h = "{'descr': '<i4', 'fortran_order': False, 'shape': (%d,), }" % len(vals)
    h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
    open(path, 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + struct.pack('<%di' % len(vals), *vals))
n = 100003
npy(sys.argv[1] + '/data.npy', [(i * 2654435761) % 2**31 - 2**30 for i in range(n)])
npy(sys.argv[1] + '/bins-cpu.npy', [7] * 256)
npy(sys.argv[1] + '/bins-dev.npy', [7] * 256)
PY
"$qdrun" "$work/cpu/histogram.o" histogram data="$work/data.npy" bins=@"$work/bins-cpu.npy" || exit 1
"$qdrun" "$work/dev/histogram.$ext" histogram --device="$dev" data="$work/data.npy" bins=@"$work/bins-dev.npy"; rc=$?
[ $rc = 0 ] || exit $rc
cmp -s "$work/bins-cpu.npy" "$work/bins-dev.npy" || { echo "device-check: qdrun histogram differs on $dev" >&2; exit 1; }
echo "device-check: histogram_any and qdrun histogram on $dev ($target) match the CPU"
