/* Host-program plumbing for the x86 tests (see test_x86.h). */
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool x86_have_runtime(void) {
    const char *rt = getenv("QDC_RT");
    if (rt && *rt && tool_available("cc")) return true;
    fprintf(stderr, "test_x86: QDC_RT or cc missing; skipping host-program tests\n");
    return false;
}

bool x86_build_host(const char *dir, const char *host_src, const char *const *objs) {
    char *src = NULL;
    if (asprintf(&src, "%s/host.c", dir) < 0) abort();
    write_text(src, host_src);
    bool ok = x86_build_host_file(dir, src, objs);
    free(src);
    return ok;
}

bool x86_build_host_file(const char *dir, const char *src, const char *const *objs) {
    char *exe = NULL, *inc = NULL, *rtinc = NULL, *exinc = NULL;
    if (asprintf(&exe, "%s/host", dir) < 0 || asprintf(&inc, "-I%s", dir) < 0 ||
        asprintf(&rtinc, "-I%s/runtime", qdc_root()) < 0 || asprintf(&exinc, "-I%s/examples/host", qdc_root()) < 0)
        abort();
    const char *argv[48];
    int n = 0;
    argv[n++] = "cc";
    argv[n++] = "-std=c11";
    argv[n++] = "-Wall";
    argv[n++] = "-Werror";
    argv[n++] = "-O1";
    bool asan = getenv("QDC_ASAN") && !strcmp(getenv("QDC_ASAN"), "1");
    if (asan) argv[n++] = "-fsanitize=address,undefined";
    argv[n++] = inc;
    argv[n++] = rtinc;
    argv[n++] = exinc;
    argv[n++] = src;
    char *paths[32];
    int np = 0;
    for (int i = 0; objs[i] && np < 32; i++) {
        if (asprintf(&paths[np], "%s/%s", dir, objs[i]) < 0) abort();
        argv[n++] = paths[np++];
    }
    argv[n++] = getenv("QDC_RT");
    argv[n++] = "-lpthread";
    argv[n++] = "-lm";
    argv[n++] = "-o";
    argv[n++] = exe;
    argv[n] = NULL;
    RunResult r = run_argv(argv, NULL, NULL);
    bool ok = r.status == 0;
    if (!ok) fprintf(stderr, "host build failed (%d):\n%s%s\n", r.status, r.out, r.err);
    run_free(&r);
    for (int i = 0; i < np; i++) free(paths[i]);
    free(exe), free(inc), free(rtinc), free(exinc);
    return ok;
}

RunResult x86_run_host(const char *dir, const char *a1, const char *a2, const char *a3) {
    char *exe = NULL;
    if (asprintf(&exe, "%s/host", dir) < 0) abort();
    const char *argv[] = {exe, a1, a2, a3, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    free(exe);
    return r;
}

RunResult x86_compile_and_run(const char *dir, const char *src, const char *flag, const char *host_src, const char *a1, const char *a2) {
    char *obj = NULL, *hdr = NULL;
    if (asprintf(&obj, "%s/d.o", dir) < 0 || asprintf(&hdr, "%s/d.h", dir) < 0) abort();
    RunResult c = run_qdc(flag, src, "-o", obj, NULL), h = run_qdc("--emit=header", src, "-o", hdr, NULL);
    bool compiled = c.status == 0 && h.status == 0;
    if (!compiled) fprintf(stderr, "x86_compile_and_run: qdc failed:\n%s%s", c.err, h.err);
    run_free(&c), run_free(&h);
    free(obj), free(hdr);
    const char *objs[] = {"d.o", NULL};
    if (!compiled || !x86_build_host(dir, host_src, objs)) return (RunResult){.status = -1, .out = strdup(""), .err = strdup("qdc or cc failed")};
    return x86_run_host(dir, a1, a2, NULL);
}

void x86_run_ints(const char *dir, const char *name, const char *text, const char *host_src, const char *threads, int64_t *got, int n) {
    char *qd = NULL;
    if (asprintf(&qd, "%s/%s", dir, name) < 0) abort();
    cr_assert(write_text(qd, text));
    RunResult r = x86_compile_and_run(dir, qd, "--target=x86_64", host_src, threads, NULL);
    cr_assert_eq(r.status, 0, "%s on %s threads: status %d\n%s", name, threads, r.status, r.err);
    char *p = r.out;
    for (int i = 0; i < n; i++) got[i] = strtoll(p, &p, 10);
    run_free(&r);
    free(qd);
}

void x86_expect_on_threads(const char *rel_src, const char *host_src, const char *want) {
    x86_expect_on_thread_counts(rel_src, host_src, want, (const char *const[]){"1", "2", "4", NULL});
}

void x86_expect_on_thread_counts(const char *rel_src, const char *host_src, const char *want, const char *const *threads) {
    char *src = root_path(rel_src);
    for (int t = 0; threads[t]; t++) {
        char *dir = make_temp_dir();
        RunResult r = x86_compile_and_run(dir, src, "--target=x86_64", host_src, threads[t], NULL);
        cr_expect_eq(r.status, 0, "%s on %s threads: status %d\n%s%s", rel_src, threads[t], r.status, r.out, r.err);
        cr_expect_str_eq(r.out, want, "%s on %s threads", rel_src, threads[t]);
        run_free(&r);
        remove_tree(dir);
        free(dir);
    }
    free(src);
}
