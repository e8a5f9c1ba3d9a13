#!/bin/sh
# Issue 13 item 25: one JSON writer. Replaces the old name sb_json_string() by json_str() of
# support/json.h and adds that include where a file starts using it. Idempotent: re-run it after
# merging a branch that still calls sb_json_string. Run from the repository root.
set -eu
cd "$(dirname "$0")/../.."
# the old name's own declaration and definition go
sed -i '/^void sb_json_string(/d' support/util.h
sed -i '/^void sb_json_string(/,+1d' support/json.c
find cli frontend ir capdb lower targets support fuzz tests runtime -name '*.[ch]' -print | while read -r f; do
    grep -q 'sb_json_string' "$f" || continue
    sed -i 's/\bsb_json_string(/json_str(/g' "$f"
    if ! grep -q 'json\.h"' "$f"; then
        # the include path from this file to support/json.h
        dir=$(dirname "$f"); up=""
        while [ "$dir" != "." ]; do up="../$up"; dir=$(dirname "$dir"); done
        inc="${up}support/json.h"
        [ "$(dirname "$f")" = support ] && inc="json.h"
        awk -v inc="#include \"$inc\"" 'done == 0 && /^#include "/ { print; print inc; done = 1; next } { print }' "$f" > "$f.tmp"
        mv "$f.tmp" "$f"
    fi
    echo "json-str: $f"
done
