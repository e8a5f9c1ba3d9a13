/* libFuzzer target: the capability-YAML loader. The input becomes one extra family file next
 * to the real database (so `inherits:` can name real parents); every family is then queried. */
#include "fuzz.h"
#include "../lowering/lower.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *dir, *file;
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    fuzz_quiet_diagnostics();
    char tmpl[] = "/tmp/qdc-fuzz-capdb-XXXXXX";
    if (!mkdtemp(tmpl)) die("mkdtemp failed");
    dir = xstrdup(tmpl);
    file = xasprintf("%s/fuzzfam.yaml", dir);
    devnull = fopen("/dev/null", "w");
    return 0;
}

static const char *const str_keys[] = {"llvm.triple", "llvm.cpu", "llvm.features", "ptx.isa", "ptx.sm",
                                       "amdgpu.code_object", "spirv.version", "spirv.env", "msl.version",
                                       "output.extension"};
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    diag_reset_counts();
    FILE *f = fopen(file, "wb");
    if (!f) die("cannot write %s", file);
    fwrite(data, 1, size, f);
    fclose(f);
    CapDb *db = fuzz_open_capdb(dir);
    if (!db) return 0;
    char *names = xstrdup(capdb_target_names(db));
    for (char *save, *n = strtok_r(names, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
        while (*n == ' ') n++;
        const CapTarget *t = capdb_target(db, n);
        if (t) query(t);
    }
    capdb_support_matrix(db, capdb_target_names(db), true, devnull);
    free(names);
    capdb_close(db);
    return 0;
}
