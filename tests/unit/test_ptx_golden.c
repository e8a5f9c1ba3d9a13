/* Golden PTX for the examples/ kernels on sm_60 and sm_90 (testdata/ptx/, QDC_UPDATE_GOLDEN=1
 * rewrites them), each also assembled by ptxas when it is present. */
#include "test_ptx_ir.h"
#include <stdio.h>

#define PTXAS "/usr/local/cuda/bin/ptxas"

static void assemble(const char *path, const char *family) {
    if (!tool_available(PTXAS)) return;
    const char *arch = !strcmp(family, "sm_60") ? "-arch=sm_75" : "-arch=sm_90";
    char *cubin = xasprintf("%s.cubin", path);
    RunResult r = run_argv((const char *[]){PTXAS, arch, path, "-o", cubin, NULL}, NULL, NULL);
    cr_expect_eq(r.status, 0, "ptxas %s rejected %s:\n%s", arch, path, r.err);
    run_free(&r);
    free(cubin);
}

static void golden(const char *family) {
    if (!tool_available(PTXAS)) printf("ptx_golden: SKIP ptxas check of %s (%s not present)\n", family, PTXAS);
    int n = golden_examples("ptx", family, ".ptx", assemble);
    cr_expect_geq(n, 8, "only %d examples compiled for %s", n, family);
}

Test(ptx_golden, examples_sm60) { golden("sm_60"); }
Test(ptx_golden, examples_sm90) { golden("sm_90"); }
