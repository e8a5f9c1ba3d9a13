/* libFuzzer target: kernel source text through the whole pipeline, for every backend kind.
 * Mutation is token-level (kernel_mutator.c), so operators, types and numbers are recombined
 * the way a user would write them; libFuzzer's byte mutations run one time in eight. An input
 * that checks is compiled for one family of one backend kind (x86_64, PTX, AMDGPU, SPIR-V, MSL),
 * both chosen by a hash of the input so that a crash replays: the kinds take turns over the
 * inputs; the hash also picks -O0 or (one input in eight) -O2 (fuzz_opt_level). (Compiling
 * every input for all five kinds made the target 7 executions/s, five LLVM or SPIR-V runs per
 * input; one per input tries five times as many kernels in the same time, and coverage feedback
 * still comes from every backend.) */
#include "fuzz.h"
#include "kernel_mutator.h"
#include "../capdb/capdb.h"
#include <stdlib.h>
#include <string.h>

static CapDb *db;
static const CapTarget *by_kind[8][32]; /* families grouped by backend kind */
static unsigned nkind[8], nkinds;
static const char *kinds[8];

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned seed) {
    size_t n = seed % 8 ? kmut_mutate(data, size, max_size, seed) : 0;
    return n ? n : LLVMFuzzerMutate(data, size, max_size);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    fuzz_quiet_diagnostics();
    db = fuzz_open_capdb(NULL, false);
    if (!db) die("the capability database does not load (set QDC_ROOT)");
    unsigned n;
    const CapTarget **all = fuzz_all_targets(db, &n);
    for (unsigned i = 0; i < n; i++) {
        const CapTarget *t = all[i];
        unsigned k = 0;
        while (k < nkinds && strcmp(kinds[k], cap_backend(t))) k++;
        if (k == nkinds && nkinds < 8) kinds[nkinds++] = cap_backend(t);
        if (k < 8 && nkind[k] < 32) by_kind[k][nkind[k]++] = t;
    }
    free(all);
    return 0;
}

/* One run of the pipeline per input: a kernel the checker rejects stops there, as the separate
 * check-only run before the compile (which parsed and checked every accepted input twice) did. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint32_t h = fuzz_hash(data, size);
    unsigned k = h % nkinds;
    fuzz_compile_at("fuzz.qd", data, size, by_kind[k][(h >> 8) % nkind[k]], fuzz_opt_level(h));
    return 0;
}
