/* libFuzzer target: the capability-YAML loader. The input becomes one extra family file,
 * fuzzfam.yaml, in a user directory before the real database (so `extends:` can name real
 * parents) and is queried.
 * Mutation is structure-aware (yaml_mutator.c); inputs that are not YAML get libFuzzer's own. */
#include "fuzz.h"
#include "yaml_mutator.h"
#include "../lower/lower.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *dir, *file;
static FILE *devnull;

/* libFuzzer leaves through exit() when -runs or -max_total_time ends the run (and on a crash
 * report): the scratch directory goes with it, so no run leaves anything in the temp dir. */
static void remove_scratch(void) {
    unlink(file);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    fuzz_quiet_diagnostics();
    const char *tmp = getenv("TMPDIR");
    char *tmpl = xasprintf("%s/qdc-fuzz-capdb-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpl)) die("mkdtemp %s failed", tmpl);
    dir = tmpl;
    file = xasprintf("%s/fuzzfam.yaml", dir);
    atexit(remove_scratch);
    devnull = fopen("/dev/null", "w");
    const char *root = getenv("QDC_ROOT");
    char *db = xasprintf("%s/capability-db", root && *root ? root : ".");
    ymut_init(db);
    free(db);
    return 0;
}

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* One call in eight, and whenever the input is not a YAML document, mutates bytes instead. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned seed) {
    size_t n = seed % 8 ? ymut_mutate(data, size, max_size, seed) : 0;
    return n ? n : LLVMFuzzerMutate(data, size, max_size);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *a, size_t na, const uint8_t *b, size_t nb, uint8_t *out,
                                 size_t max_size, unsigned seed) {
    return ymut_cross(a, na, b, nb, out, max_size, seed);
}

static const char *const str_keys[] = {"llvm.triple", "llvm.cpu", "llvm.features", "ptx.isa", "ptx.sm",
                                       "amdgpu.code_object", "spirv.version", "spirv.env", "msl.version"};
static const char *const int_keys[] = {"subgroup_width", "default_block_dim", "max_block_dim", "max_shared_bytes"};

static void query(const CapTarget *t) {
    for (size_t i = 0; i < ARRAY_LEN(str_keys); i++) (void)cap_str(t, str_keys[i]);
    for (size_t i = 0; i < ARRAY_LEN(int_keys); i++) (void)cap_int(t, int_keys[i], -1);
    const char **files;
    (void)capdb_target_files(t, &files);
    (void)cap_name(t), (void)cap_backend(t);
    capdb_print_target(t, false, devnull);
    capdb_print_target(t, true, devnull);
}

/* Seven inputs in eight are loaded as a compile loads the database (the fuzzed family's file and
 * its parents only); the eighth, chosen by a hash of its bytes so that a crash reproduces, as a
 * listing does (every file read and resolved, aliases checked across files). Loading all 24
 * files for every input made the target 50 executions/s, nearly all of it the checked-in files. */
static bool eager(const uint8_t *data, size_t size) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 16777619u;
    return h % 8 == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    diag_reset_counts();
    FILE *f = fopen(file, "wb");
    if (!f) die("cannot write %s", file);
    fwrite(data, 1, size, f);
    fclose(f);
    CapDb *db = fuzz_open_capdb(dir, !eager(data, size));
    if (!db) return 0;
    /* only the fuzzed family: the checked-in ones answer the same every time */
    const CapTarget *t = capdb_target(db, "fuzzfam");
    if (t) {
        query(t);
        capdb_support_matrix(db, "fuzzfam", true, devnull);
        capdb_support_matrix(db, "fuzzfam", false, devnull);
    }
    capdb_close(db);
    return 0;
}
