/* The CUDA launcher (tools/cuda-launcher, a client of libqdrt's CUDA device): builds with a C
 * compiler and libqdrt.a alone (no CUDA headers), then runs each example's sm_70 PTX with its
 * metadata (JIT-compiled by the driver for the GPU present) and checks the results. Without a driver or GPU it prints a skip notice (the launcher exits 77); the full
 * GPU check is `make gpu-check` (never in CI). */
#include "exec_spec.h"
#include "test_ptx_ir.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const launched[] = {"histogram", "shared_histogram", "float_sum", "bitflags", "cas_max",
                                       "compaction", "last_block", "spin_chain", "minmax", "exchange_handoff"};

Test(ptx_launcher, examples_on_gpu, .timeout = 600) {
    char *dir = make_temp_dir();
    char *src = root_path("tools/cuda-launcher/launch.c"), *spec = root_path("tests/unit/exec_spec.c"), *eq = root_path("tests/unit/exec_qdrt.c");
    char *bin = xasprintf("%s/qdc-cuda-launch", dir);
    cr_assert(getenv("QDC_RT"), "QDC_RT (libqdrt.a) is not set");
    bool asan = getenv("QDC_ASAN") && !strcmp(getenv("QDC_ASAN"), "1"); /* QDC_RT is then the sanitized libqdrt */
    RunResult b = run_argv((const char *[]){"cc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-O1", "-D_GNU_SOURCE",
                                            asan ? "-fsanitize=address,undefined" : "-DQDRT_PLAIN", "-o", bin, src, spec, eq,
                                            getenv("QDC_RT"), "-ldl", "-lpthread", "-lm", NULL}, NULL, NULL);
    cr_assert_eq(b.status, 0, "the launcher does not build:\n%s", b.err);
    run_free(&b);
    RunResult u = run_argv((const char *[]){bin, NULL}, NULL, NULL);
    cr_expect_eq(u.status, 2, "usage error must exit 2");
    run_free(&u);
    /* --info (make gpu-check's choice of target) through libqdrt's CUDA device: the GPU's name and
     * compute capability, here from testdata/qdrt/fake_gpu.c standing in for libcuda.so.1 */
    char *stub = root_path("testdata/qdrt/fake_gpu.c"), *fake = xasprintf("%s/libcuda.so.1", dir), *ld = xasprintf("LD_LIBRARY_PATH=%s", dir);
    RunResult fb = run_argv((const char *[]){"cc", "-std=c17", "-D_GNU_SOURCE", "-shared", "-fPIC", "-o", fake, stub, NULL}, NULL, NULL);
    cr_assert_eq(fb.status, 0, "%s", fb.err);
    run_free(&fb);
    RunResult info = run_argv((const char *[]){"env", ld, bin, "--info", NULL}, NULL, NULL);
    cr_expect_eq(info.status, 0, "%s", info.err);
    cr_expect_str_eq(info.out, "Fake GPU 0|sm_86\n");
    run_free(&info);
    remove(fake);
    free(stub), free(fake), free(ld);
    /* the modules' metadata only matters where a GPU runs them (the launcher skips before reading it) */
    RunResult gi = run_argv((const char *[]){bin, "--info", NULL}, NULL, NULL);
    bool gpu = gi.status == 0;
    run_free(&gi);
    for (size_t i = 0; i < ARRAY_LEN(launched); i++) {
        char *qd = xasprintf("examples/%s.qd", launched[i]);
        char *qdp = root_path(qd);
        char *ptx = xasprintf("%s/%s.ptx", dir, launched[i]);
        char *meta = xasprintf("%s/%s.json", dir, launched[i]);
        RunResult c = run_qdc(qdp, "--target=sm_70", "-o", ptx, NULL),
                  cm = gpu ? run_qdc(qdp, "--target=sm_70", "--emit=metadata", "-o", meta, NULL) : (RunResult){0};
        cr_expect_eq(c.status, 0, "%s: %s", qd, c.err);
        cr_expect_eq(cm.status, 0, "%s: %s", qd, cm.err);
        run_free(&c), run_free(&cm), free(meta);
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
    /* The atomics matrix of make gpu-check: the launcher writes the files, each compiles for
     * sm_70 and has the entries of every kernel of exec_spec.c; without a GPU the run is a skip. */
    RunResult e = run_argv((const char *[]){bin, "--emit-matrix", dir, NULL}, NULL, NULL);
    cr_assert_eq(e.status, 0, "%s", e.err);
    run_free(&e);
    for (int dt = 0; dt < XD_COUNT; dt++)
        for (int sp = 0; sp < XS_COUNT; sp++) {
            char *stem = xasprintf("%s/x_%s_%s", dir, xdtype_name[dt], xspace_name[sp]), *qd = xasprintf("%s.qd", stem),
                 *ptx = xasprintf("%s.ptx", stem), *meta = xasprintf("%s.json", stem);
            RunResult c = run_qdc(qd, "--target=sm_70", "-o", ptx, NULL),
                      cm = gpu ? run_qdc(qd, "--target=sm_70", "--emit=metadata", "-o", meta, NULL) : (RunResult){0};
            cr_expect_eq(c.status, 0, "%s: %s", qd, c.err);
            cr_expect_eq(cm.status, 0, "%s: %s", qd, cm.err);
            run_free(&c), run_free(&cm), free(stem), free(meta);
            char *text = read_text(ptx, NULL);
            XFile f;
            xfile_init(&f, dt, sp);
            int entries = 0, firsts = 0; /* field kernels have 3 tasks: copy in, atomics, copy out */
            for (const char *p = text; p && (p = strstr(p, ".entry ")); p++) entries++, firsts += !strncmp(strchr(p, '(') - 3, "_t0(", 4);
            cr_expect_eq(firsts, f.nkernels, "%s: %d kernels, %d expected", ptx, firsts, f.nkernels);
            cr_expect_eq(entries, f.nkernels * (sp == XS_FIELD ? 3 : 1), "%s: %d entries", ptx, entries);
            RunResult r = run_argv((const char *[]){bin, "--matrix", xdtype_name[dt], xspace_name[sp], ptx, "1024", NULL}, NULL, NULL);
            cr_expect(r.status == 0 || r.status == 77, "matrix %s %s on the GPU: %s%s", xdtype_name[dt], xspace_name[sp], r.out, r.err);
            run_free(&r);
            free(qd), free(ptx), free(text);
        }
    remove_tree(dir);
    free(dir), free(src), free(spec), free(eq), free(bin);
}
