/* Issue 33 item 4: -j N compiles the targets of one call in forked workers; the outputs, the
 * diagnostics (in target order), the reports on stdout and the exit status are those of a
 * serial run (-j 1). */
#include "harness.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TARGETS "x86_64,sm_80,gfx942,vulkan1.2,apple8"
static const char *const families[] = {"x86_64", "sm_80", "gfx942", "vulkan1.2", "apple8"};
static const char *const exts[] = {"o", "ptx", "hsaco", "spv", "metal"};

static char *joined(const char *a, const char *b) {
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    snprintf(s, n, "%s/%s", a, b);
    return s;
}

/* Compiles examples/<ex>.qd for TARGETS with -j <j> into dir; returns the run. */
static RunResult compile_into(const char *ex, const char *j, const char *dir) {
    char rel[128];
    snprintf(rel, sizeof rel, "examples/%s.qd", ex);
    char *src = root_path(rel), *tmpl = joined(dir, "%t.%e");
    RunResult r = run_qdc(src, "--target=" TARGETS, "-j", j, "-o", tmpl, NULL);
    free(src), free(tmpl);
    return r;
}

Test(jobs, parallel_outputs_are_the_serial_bytes) {
    const char *exs[] = {"float_sum", "histogram"};
    for (size_t e = 0; e < sizeof exs / sizeof *exs; e++) {
        char *serial = make_temp_dir(), *par = make_temp_dir();
        RunResult a = compile_into(exs[e], "1", serial), b = compile_into(exs[e], "4", par);
        cr_expect_eq(a.status, 0, "%s -j1: %s", exs[e], a.err);
        cr_expect_eq(b.status, 0, "%s -j4: %s", exs[e], b.err);
        cr_expect_str_eq(b.err, a.err);
        for (size_t i = 0; i < sizeof families / sizeof *families; i++) {
            char name[64];
            snprintf(name, sizeof name, "%s.%s", families[i], exts[i]);
            char *pa = joined(serial, name), *pb = joined(par, name);
            size_t la = 0, lb = 0;
            char *da = read_text(pa, &la), *db = read_text(pb, &lb);
            cr_expect(da && la > 64, "%s: no serial %s", exs[e], name);
            cr_expect(db && lb == la && !memcmp(da, db, la), "%s: -j4 wrote other bytes for %s", exs[e], name);
            free(da), free(db), free(pa), free(pb);
        }
        run_free(&a), run_free(&b);
        remove_tree(serial), remove_tree(par);
        free(serial), free(par);
    }
}

/* spin_chain fails on every Apple family (QD4005, no MSL fence before 3.2): the errors come in
 * --target order whatever worker finishes first, and no output is written. */
Test(jobs, diagnostics_in_target_order) {
    char *src = root_path("examples/spin_chain.qd"), *dir = make_temp_dir(), *tmpl = joined(dir, "%t.%e");
    const char *list = "--target=apple9,x86_64,apple7,vulkan1.1,apple8";
    RunResult a = run_qdc(src, list, "-j", "1", "-o", tmpl, NULL);
    RunResult b = run_qdc(src, list, "-j", "8", "-o", tmpl, NULL);
    RunResult c = run_qdc(src, list, "--jobs=3", "-o", tmpl, NULL);
    cr_expect_eq(a.status, 1, "%s", a.err);
    cr_expect_eq(b.status, 1, "%s", b.err);
    cr_expect_eq(c.status, 1, "%s", c.err);
    cr_expect_str_eq(b.err, a.err);
    cr_expect_str_eq(c.err, a.err);
    const char *p9 = strstr(b.err, "on target 'apple9'"), *p7 = strstr(b.err, "on target 'apple7'"),
               *p8 = strstr(b.err, "on target 'apple8'");
    cr_expect(p9 && p7 && p8 && p9 < p7 && p7 < p8, "not in --target order:\n%s", b.err);
    cr_expect(strstr(b.err, "error[QD4005]"), "%s", b.err);
    char *x86 = joined(dir, "x86_64.o");
    cr_expect(!file_exists(x86), "an output was written although apple targets failed");
    run_free(&a), run_free(&b), run_free(&c);
    remove_tree(dir);
    free(src), free(dir), free(tmpl), free(x86);
}

/* --report-lowering prints on stdout from each worker: replayed in target order. */
Test(jobs, reports_in_target_order) {
    char *src = root_path("examples/histogram.qd");
    RunResult a = run_qdc(src, "--target=apple7,x86_64,sm_90", "--report-lowering", "-j1", NULL);
    RunResult b = run_qdc(src, "--target=apple7,x86_64,sm_90", "--report-lowering", "-j3", NULL);
    cr_expect_eq(a.status, 0, "%s", a.err);
    cr_expect_eq(b.status, 0, "%s", b.err);
    cr_expect(a.out_len > 100, "no report");
    cr_expect_str_eq(b.out, a.out);
    cr_expect_str_eq(b.err, a.err);
    run_free(&a), run_free(&b);
    free(src);
}

/* A usage error in the first target (an unknown --cap) ends the run as serially: exit 2, the
 * same single message, the later targets' diagnostics dropped. */
Test(jobs, usage_error_stops_as_serial) {
    char *src = root_path("examples/histogram.qd"), *dir = make_temp_dir(), *tmpl = joined(dir, "%t.%e");
    RunResult a = run_qdc(src, "--target=x86_64,apple8,sm_90", "--cap=+msl3.2", "-j1", "-o", tmpl, NULL);
    RunResult b = run_qdc(src, "--target=x86_64,apple8,sm_90", "--cap=+msl3.2", "-j4", "-o", tmpl, NULL);
    cr_expect_eq(a.status, 2);
    cr_expect_eq(b.status, 2);
    cr_expect_str_eq(b.err, "qdc: error[QD3010]: unknown capability '+msl3.2' for target 'x86_64' (write --cap=+NAME or "
                            "--cap=-NAME; this target has no optional capabilities)\n");
    cr_expect_str_eq(b.err, a.err);
    run_free(&a), run_free(&b);
    remove_tree(dir);
    free(src), free(dir), free(tmpl);
}

Test(jobs, bad_job_counts) {
    const char *bad[] = {"0", "x", "2x", "-3", "100000"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        RunResult r = run_qdc("-j", bad[i], "k.qd", NULL);
        char want[160];
        snprintf(want, sizeof want,
                 "qdc: error: -j needs a number of jobs from 1 to 1024, got '%s'\nqdc: run 'qdc --help' for usage\n", bad[i]);
        cr_expect_eq(r.status, 2, "-j %s", bad[i]);
        cr_expect_str_eq(r.err, want);
        run_free(&r);
    }
    RunResult r = run_qdc("-j", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "qdc: error: -j needs a number of jobs from 1 to 1024, got ''\nqdc: run 'qdc --help' for usage\n");
    run_free(&r);
}
