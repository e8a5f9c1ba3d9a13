#!/bin/sh
# Issue 21 item 4: IR builders take an arena, not a Sema. Rewrites the frontend's calls of the
# old Sema-taking builders to the ir/build.c ones on the Sema's arena, and renames the three
# that really are semantic checks (they read locals or report diagnostics) to sema_*:
#   ir_new(S, ...)        -> irb_new(S->arena, ...)      ir_const_int(S, ...) -> irb_int(S->arena, ...)
#   ir_const_float(S, ...) -> irb_float(S->arena, ...)   ir_cast(S, ...)      -> irb_cast(S->arena, ...)
#   ir_binary -> sema_binary, ir_local -> sema_local, ir_to_bool -> sema_to_bool
# S is any name or member chain (S, c->S). Idempotent: re-run it after merging a branch that
# still calls the old names. Run from the repository root.
set -eu
cd "$(dirname "$0")/../.."
ARG='([A-Za-z_][A-Za-z0-9_]*(->[A-Za-z_][A-Za-z0-9_]*)*)'
find frontend ir lower targets cli tests fuzz -name '*.[ch]' -print | while read -r f; do
    grep -qE '\bir_(new|const_int|const_float|cast|binary|local|to_bool)\(' "$f" || continue
    sed -E -i \
        -e "s/\\bir_new\\($ARG,/irb_new(\\1->arena,/g" \
        -e "s/\\bir_const_int\\($ARG,/irb_int(\\1->arena,/g" \
        -e "s/\\bir_const_float\\($ARG,/irb_float(\\1->arena,/g" \
        -e "s/\\bir_cast\\($ARG,/irb_cast(\\1->arena,/g" \
        -e 's/\bir_binary\(/sema_binary(/g' \
        -e 's/\bir_local\(/sema_local(/g' \
        -e 's/\bir_to_bool\(/sema_to_bool(/g' "$f"
    echo "ir-builders: $f"
done
