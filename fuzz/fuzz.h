/* Shared plumbing of the libFuzzer targets: diagnostics silenced, and one in-process run of the
 * driver's pipeline (parse -> check -> lower -> emit) without touching the file system. */
#ifndef QDC_FUZZ_H
#define QDC_FUZZ_H
#include "../capdb/capdb.h"
#include "../support/util.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sends diagnostics to /dev/null with no error limit (the limit would exit the process). */
void fuzz_quiet_diagnostics(void);
/* Opens the checked-in capability database ($QDC_ROOT/capability-db, default ./capability-db),
 * after user_dir when not NULL (as --capdb-dir puts it first). lazy: as a compile opens it (a
 * family's file and its parents are read when asked for); else as a listing (every file read,
 * resolved and its aliases checked). NULL if it does not load. */
CapDb *fuzz_open_capdb(const char *user_dir, bool lazy);
/* Every family of db, in the database's order (malloc'ed; *n set). Dies when there is none. */
const CapTarget **fuzz_all_targets(CapDb *db, unsigned *n);
/* Runs the pipeline on text; t == NULL stops after the checker. Returns true if it compiled.
 * fuzz_compile is at -O2 (qdc's default); fuzz_compile_at at opt_level (0-3). */
bool fuzz_compile(const char *name, const uint8_t *text, size_t len, const CapTarget *t);
bool fuzz_compile_at(const char *name, const uint8_t *text, size_t len, const CapTarget *t, int opt_level);
/* An input's FNV-1a hash (the per-input choices that must replay: family, -O level). */
uint32_t fuzz_hash(const uint8_t *data, size_t size);
/* The -O level of an input with hash h for the targets that run LLVM's code generation: -O2 one
 * input in eight, -O0 the others (fuzz/README, "Cost per execution"). */
int fuzz_opt_level(uint32_t h);
#endif
