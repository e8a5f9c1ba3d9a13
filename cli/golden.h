/* --emit-all=DIR [--golden-check]: the golden-output workflow for CI. A run writes every text
 * artifact of its targets (the backend's text output and the lowering report) under
 * DIR/<family>/; with --golden-check it writes nothing and prints a unified diff of each file
 * that would change (exit status 1). See qdc(1), GOLDEN OUTPUTS. */
#ifndef QDC_GOLDEN_H
#define QDC_GOLDEN_H
#include "../support/util.h"
#include <stdio.h>

typedef struct GoldenFile {
    const char *path;
    const StrBuf *data;
    bool spirv; /* a SPIR-V disassembly: the stored file is compared through spirv_stable_ids() */
} GoldenFile;

/* A SPIR-V disassembly (spirv-dis friendly names) whose remaining numeric ids are renumbered so a
 * small kernel change gives a small diff: ids first seen outside functions become %g1, %g2, ...
 * in order of first appearance (an OpFunction line's ids included), those first seen in a
 * function's body %1, %2, ... counted afresh in each function; the "; Bound:" header line is
 * dropped. Idempotent, so a golden file written before (raw numbering) and one written now
 * compare alike. For comparison only: the ids of different functions may repeat, so it does
 * not reassemble. */
void spirv_stable_ids(const char *text, size_t len, StrBuf *out);

/* The largest golden file read (a larger one is reported, never loaded). */
#define GOLDEN_MAX_BYTES (64u << 20)

/* Compares each file's bytes with what is on disk; prints `diff -u`-style hunks for every
 * difference to out, or one line for a file that is missing, not a regular file (a FIFO is never
 * opened) or over GOLDEN_MAX_BYTES. Returns the number of files that differ. */
int golden_check(const GoldenFile *files, int n, FILE *out);
/* Prints a note for each directory DIR/<family>/ holding <module>.lowering.txt for a family not
 * among built (a family dropped from the build leaves its goldens behind); returns how many. */
int golden_stale(const char *dir, const char *module, const char *const *built, int nbuilt, FILE *out);
/* Appends a unified diff (3 lines of context) of a -> b to out; nothing if they are equal. */
void unified_diff(StrBuf *out, const char *a_name, const char *a, size_t alen, const char *b_name, const char *b,
                  size_t blen);
#endif
