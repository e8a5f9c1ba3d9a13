/* The CUDA launcher (tools/cuda-launcher): builds with a C compiler alone (no CUDA headers),
 * then runs each example's sm_70 PTX (JIT-compiled by the driver for the GPU present) and checks
 * the results. Without a driver or GPU it prints a skip notice (the launcher exits 77); the full
 * GPU check is `make gpu-check` (never in CI). */
#include "test_ptx_ir.h"
#include <stdio.h>

static const char *const launched[] = {"histogram", "shared_histogram", "float_sum", "bitflags", "cas_max",
                                       "compaction", "last_block", "spin_chain", "minmax", "exchange_handoff"};

Test(ptx_launcher, examples_on_gpu, .timeout = 120) {
    char *dir = make_temp_dir();
    char *src = root_path("tools/cuda-launcher/launch.c"), *spec = root_path("tests/unit/exec_spec.c");
    char *bin = xasprintf("%s/qdc-cuda-launch", dir);
    RunResult b = run_argv((const char *[]){"cc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-O1", "-D_GNU_SOURCE",
                                            "-o", bin, src, spec, "-ldl", "-lm", NULL}, NULL, NULL);
    cr_assert_eq(b.status, 0, "the launcher does not build:\n%s", b.err);
    run_free(&b);
    RunResult u = run_argv((const char *[]){bin, NULL}, NULL, NULL);
    cr_expect_eq(u.status, 2, "usage error must exit 2");
    run_free(&u);
    for (size_t i = 0; i < ARRAY_LEN(launched); i++) {
        char *qd = xasprintf("examples/%s.qd", launched[i]);
        char *qdp = root_path(qd);
        char *ptx = xasprintf("%s/%s.ptx", dir, launched[i]);
        RunResult c = run_qdc(qdp, "--target=sm_70", "-o", ptx, NULL);
        cr_expect_eq(c.status, 0, "%s: %s", qd, c.err);
        run_free(&c);
        RunResult r = run_argv((const char *[]){bin, launched[i], ptx, "4096", NULL}, NULL, NULL);
        if (r.status == 77) {
            printf("ptx_launcher: SKIP running %s: %s", launched[i], r.out);
        } else {
            cr_expect_eq(r.status, 0, "%s on the GPU: %s%s", launched[i], r.out, r.err);
            printf("%s", r.out);
        }
        run_free(&r);
        free(qd), free(qdp), free(ptx);
    }
    remove_tree(dir);
    free(dir), free(src), free(spec), free(bin);
}
