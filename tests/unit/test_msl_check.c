/* The MSL check without a Mac: every .metal file qdc generates for the Apple families (each at
 * its default MSL and with --cap=+msl3.2) compiles with clang-19 as C++17 against
 * tests/msl/metal_stub.h, which declares the Metal address spaces, types, atomic, fence and
 * SIMD-group functions per MSL version (__METAL_VERSION__ from the database's msl.version).
 * It catches syntax and type errors and version gates (a fence in MSL 3.0 output fails); it
 * does not run anything. */
#include "harness.h"
#include "../../support/util.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *target, *cap, *cap2; /* NULL or "--cap=+msl3.2", "--cap=+int64-emulation" */
} MslRun;

static const MslRun runs[] = { /* apple7's default (2.3) differs from apple8's in nothing the stub gates */
    {"apple8", "--cap=+int64-emulation", NULL},
    {"apple9", NULL, NULL},
    {"apple7", "--cap=+msl3.2", NULL},
    {"apple9", "--cap=+msl3.2", "--cap=+int64-emulation"},
};

static const char *const input_dirs[] = {"examples", "testdata/lowering", "tests/kernels", "testdata/msl", "testdata/frontend"};

/* "2.3.0" -> "230": the database value --print-caps shows for key (msl.version ...). */
static char *metal_version(const char *target, const char *key) {
    RunResult r = run_qdc("--print-caps", target, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *want = xasprintf("\n%s: ", key), *at = strstr(r.out, want);
    cr_assert(at, "no %s for %s", key, target);
    unsigned major = 0, minor = 0;
    cr_assert_eq(sscanf(at + strlen(want), "%u.%u", &major, &minor), 2);
    run_free(&r), free(want);
    return xasprintf("%u%u0", major, minor);
}

/* Compiles n files for one MSL version and Apple family; returns clang's status, stderr in *err. */
static int clang_check(const char *ver, const char *family, char **files, int n, char **err) {
    const char **argv = xcalloc((size_t)n + 16, sizeof *argv);
    char *inc = root_path("tests/msl/include"), *incflag = xasprintf("-I%s", inc);
    char *dv = xasprintf("-D__METAL_VERSION__=%s", ver), *df = xasprintf("-DQDC_APPLE_FAMILY=%s", family);
    const char *fixed[] = {"clang-19", "-x", "c++", "-std=c++17", "-fsyntax-only", "-Wall", "-Werror",
                           "-Wno-unknown-attributes", "-Wno-self-assign", "-Xclang", "-cl-single-precision-constant"};
    int k = 0;
    for (size_t i = 0; i < ARRAY_LEN(fixed); i++) argv[k++] = fixed[i];
    argv[k++] = incflag, argv[k++] = dv, argv[k++] = df;
    for (int i = 0; i < n; i++) argv[k++] = files[i];
    argv[k] = NULL;
    RunResult r = run_argv(argv, NULL, NULL);
    int st = r.status;
    *err = xstrdup(r.err ? r.err : "");
    run_free(&r);
    free(argv), free(inc), free(incflag), free(dv), free(df);
    return st;
}

static int generate(const MslRun *run, const char *dir, char ***files) {
    int n = 0;
    VEC(char *) out = {0};
    for (size_t d = 0; d < ARRAY_LEN(input_dirs); d++) {
        char *abs = root_path(input_dirs[d]);
        DIR *dh = opendir(abs);
        cr_assert(dh, "%s", abs);
        for (struct dirent *e; (e = readdir(dh));) {
            size_t len = strlen(e->d_name);
            if (len < 4 || strcmp(e->d_name + len - 3, ".qd") || !strncmp(e->d_name, "err-", 4)) continue;
            char *in = xasprintf("%s/%s", abs, e->d_name);
            char *path = xasprintf("%s/%zu.%.*s.metal", dir, d, (int)(len - 3), e->d_name);
            char *tgt = xasprintf("--target=%s", run->target);
            const char *args[8] = {in, tgt, "-o", path};
            int na = 4;
            if (run->cap) args[na++] = run->cap;
            if (run->cap2) args[na++] = run->cap2;
            args[na] = NULL;
            RunResult r = run_qdc_argv(args, NULL, NULL);
            cr_expect(r.status == 0 || r.status == 1, "%s %s: status %d", e->d_name, run->target, r.status);
            if (r.status == 0) {
                vec_push(&out, path);
                n++;
            } else {
                cr_expect(!file_exists(path), "%s: an output file after an error", path);
                cr_expect(strstr(r.err, ": error[QD"), "%s %s: %s", e->d_name, run->target, r.err);
                free(path);
            }
            run_free(&r), free(in), free(tgt);
        }
        closedir(dh), free(abs);
    }
    *files = out.items;
    return n;
}

Test(msl_check, every_generated_metal_file_compiles_against_the_stub, .timeout = 240) {
    if (!tool_available("clang-19")) cr_skip_test("clang-19 not installed");
    int total = 0;
    for (size_t i = 0; i < ARRAY_LEN(runs); i++) {
        char *dir = make_temp_dir(), **files = NULL, *err = NULL;
        bool up = runs[i].cap && strstr(runs[i].cap, "msl3.2");
        char *ver = metal_version(runs[i].target, up ? "msl.upgrade_version" : "msl.version");
        const char *family = runs[i].target + 5;
        int n = generate(&runs[i], dir, &files);
        cr_expect_geq(n, 8, "%s %s: only %d files generated", runs[i].target, runs[i].cap ? runs[i].cap : "", n);
        int st = clang_check(ver, family, files, n, &err);
        cr_expect_eq(st, 0, "%s %s (MSL %s): clang-19 rejects generated MSL:\n%s", runs[i].target,
                     runs[i].cap ? runs[i].cap : "", ver, err);
        total += n;
        for (int k = 0; k < n; k++) free(files[k]);
        free(files), free(err), free(ver);
        remove_tree(dir), free(dir);
    }
    cr_expect_geq(total, 60);
}

/* The check can fail: the fence qdc writes for MSL 3.2 does not compile as MSL 3.0. */
Test(msl_check, a_fence_in_msl_3_0_is_rejected_by_the_stub) {
    if (!tool_available("clang-19")) cr_skip_test("clang-19 not installed");
    char *dir = make_temp_dir(), *path = xasprintf("%s/spin.metal", dir), *in = root_path("examples/spin_chain.qd");
    RunResult r = run_qdc(in, "--target=apple9", "--cap=+msl3.2", "-o", path, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *err = NULL;
    cr_expect_eq(clang_check("320", "9", &path, 1, &err), 0, "%s", err);
    free(err);
    cr_expect_neq(clang_check("300", "9", &path, 1, &err), 0);
    cr_expect(strstr(err, "atomic_thread_fence") || strstr(err, "coherent"), "%s", err);
    free(err);
    run_free(&r), free(path), free(in);
    remove_tree(dir), free(dir);
}
