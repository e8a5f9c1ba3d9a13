#!/usr/bin/env bash
# bench/lang/measure.sh QDC — compiles every kernel file here for every installed family
# (one qdc run per file; `# qdc: ARG` header lines are extra arguments, as in testdata/lang)
# and prints, per file, ok or the first diagnostic; then the count that compiled everywhere.
set -u
QDC=${1:?usage: measure.sh path/to/qdc}
DIR=$(cd "$(dirname "$0")" && pwd)
TARGETS=$("$QDC" --list-targets | awk '{print $1}' | paste -sd, -)
OUT=$(mktemp -d)
ok=0 n=0
for f in "$DIR"/*.qd "$DIR"/*.py; do
    args=()
    while IFS= read -r line; do args+=("${line#\# qdc: }"); done < <(grep '^# qdc: ' "$f")
    n=$((n + 1))
    if err=$("$QDC" "--target=$TARGETS" -o "$OUT/%t.%e" "${args[@]}" "$f" 2>&1); then
        ok=$((ok + 1)); printf '%-36s ok\n' "$(basename "$f")"
    else
        printf '%-36s %s\n' "$(basename "$f")" "$(echo "$err" | grep -m1 -o 'error\[QD[0-9]*\].*' | cut -c1-110)"
    fi
done
rm -rf "$OUT"
echo "compiled for every family: $ok of $n"
