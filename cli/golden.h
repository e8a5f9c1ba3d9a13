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
} GoldenFile;

/* Compares each file's bytes with what is on disk; prints `diff -u`-style hunks (or "missing")
 * for every difference to out. Returns the number of files that differ. */
int golden_check(const GoldenFile *files, int n, FILE *out);
/* Appends a unified diff (3 lines of context) of a -> b to out; nothing if they are equal. */
void unified_diff(StrBuf *out, const char *a_name, const char *a, size_t alen, const char *b_name, const char *b,
                  size_t blen);
#endif
