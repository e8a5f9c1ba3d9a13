#!/bin/sh
# Diagnostic codes are an enum generated from the codes.def tables (support/diag.h, DiagCode):
# turns every code literal "QDnnnn" passed to the diagnostics engine into the enum constant
# QDnnnn in the compiler's sources, so an unknown code is a compile error. Idempotent: re-run it
# after merging a branch that still writes string codes. In tests and fuzzers only the code
# argument of diag_error/diag_warning calls changes (their other "QDnnnn" strings are expected
# output). Run from the repository root.
set -eu
cd "$(dirname "$0")/../.."
find cli frontend ir capdb lower targets support -name '*.[ch]' -print | while read -r f; do
    if grep -qE '"QD[0-9]{4}"' "$f"; then
        sed -E -i 's/"(QD[0-9]{4})"/\1/g' "$f"
        echo "codes-enum: $f"
    fi
done
find tests fuzz -name '*.[ch]' -print | while read -r f; do
    if grep -qE 'diag_(error|warning)\([^"]*"QD[0-9]{4}"' "$f"; then
        sed -E -i 's/(diag_(error|warning)\([^"]*)"(QD[0-9]{4})"/\1\3/g' "$f"
        echo "codes-enum: $f"
    fi
done
