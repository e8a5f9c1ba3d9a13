/* Golden --report-lowering outputs: every testdata/lowering/<kernel>.qd on a fixed set of targets
 * (with and without --cap), compared with testdata/lowering/<kernel>.golden (exit status, stdout
 * and stderr per target). QDC_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing. */
#include "harness.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static const char *const configs[][3] = {
    {"--target=sm_60", NULL, NULL},
    {"--target=sm_90", NULL, NULL},
    {"--target=gfx906", NULL, NULL},
    {"--target=gfx942", NULL, NULL},
    {"--target=gfx90a", "--cap=+coarse-grained-memory", NULL},
    {"--target=vulkan1.2", NULL, NULL},
    {"--target=vulkan1.2", "--cap=+int64-atomics", "--cap=+float-atomic-add"},
    {"--target=apple7", NULL, NULL},
    {"--target=apple9", NULL, NULL},
    {"--target=apple9", "--cap=+msl3.2", NULL},
    {"--target=x86_64", NULL, NULL},
};

static char *report_all(const char *rel) {
    StrBuf b;
    sb_init(&b);
    for (size_t c = 0; c < ARRAY_LEN(configs); c++) {
        const char *args[10] = {rel, "--report-lowering", "--check", "--color=never"};
        int n = 4;
        for (int k = 0; k < 3 && configs[c][k]; k++) args[n++] = configs[c][k];
        args[n] = NULL;
        RunResult r = run_qdc_argv(args, NULL, qdc_root());
        sb_puts(&b, "===");
        for (int k = 0; k < 3 && configs[c][k]; k++) sb_printf(&b, " %s", configs[c][k]);
        sb_printf(&b, "\nexit %d\n%s%s", r.status, r.out, r.err);
        run_free(&r);
    }
    return sb_take(&b);
}

Test(lowering_golden, reports_match) {
    char *dir = root_path("testdata/lowering");
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    bool update = getenv("QDC_UPDATE_GOLDEN") && !strcmp(getenv("QDC_UPDATE_GOLDEN"), "1");
    int kernels = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".qd")) continue;
        char *rel = xasprintf("testdata/lowering/%s", e->d_name);
        char *golden = xasprintf("%s/%.*s.golden", dir, (int)(len - 3), e->d_name);
        char *got = report_all(rel);
        if (update) cr_assert(write_text(golden, got), "cannot write %s", golden);
        char *want = read_text(golden, NULL);
        cr_expect_not_null(want, "%s missing: run with QDC_UPDATE_GOLDEN=1", golden);
        if (want) cr_expect_str_eq(got, want, "%s differs from the lowering report", golden);
        free(want), free(got), free(golden), free(rel);
        kernels++;
    }
    closedir(d);
    free(dir);
    cr_assert_geq(kernels, 5);
}
