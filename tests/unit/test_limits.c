/* Documented limits (issue 8): nesting depth, identifier length, kernels per file, unroll count,
 * shared-array size and error count each end in a clear diagnostic, in bounded time and memory,
 * and a 10^5-statement kernel compiles. Peak memory comes from /usr/bin/time (Debian `time`).
 * The input-size limit (64 MiB, QD0004) is covered in test_envfaults.c. */
#include "harness.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PRELUDE "import quadrants as qd\n\n"
#define KERNEL_HEAD "@qd.kernel\ndef k(a: qd.types.NDArray[qd.i32, 1], s: qd.i32):\n    for i in range(64):\n"

typedef struct {
    RunResult r;
    long maxrss_kib; /* -1 when /usr/bin/time is absent */
} Measured;

static bool asan(void) { return getenv("QDC_ASAN") && !strcmp(getenv("QDC_ASAN"), "1"); }

/* Writes text to a fresh temp file and runs qdc on it (args after the input), measuring RSS. */
static Measured run_on(const char *text, const char *a1, const char *a2, char **dir_out) {
    char *dir = make_temp_dir(), *in = xasprintf("%s/big.qd", dir);
    cr_assert(write_text(in, text));
    Measured m = {.maxrss_kib = -1};
    bool timed = access("/usr/bin/time", X_OK) == 0;
    const char *argv[] = {"/usr/bin/time", "-f", "qdc-maxrss-kib=%M", qdc_bin(), in, "--color=never", a1, a2, NULL};
    m.r = run_argv(timed ? argv : argv + 3, NULL, dir);
    char *rss = strstr(m.r.err, "qdc-maxrss-kib=");
    if (timed && rss) m.maxrss_kib = strtol(rss + 15, NULL, 10), *rss = 0;
    free(in);
    if (dir_out) *dir_out = dir;
    else remove_tree(dir), free(dir);
    return m;
}

static void need_frontend(void) {
    Measured m = run_on(PRELUDE KERNEL_HEAD "        a[i] = s\n", "--check", NULL, NULL);
    bool ok = m.r.status == 0;
    run_free(&m.r);
    if (!ok) cr_skip_test("frontend not available yet (qdc --check of a valid kernel fails)");
}

static void expect_limit(Measured *m, const char *code, long max_mib) {
    cr_expect_eq(m->r.status, 1, "exit status %d; stderr:\n%.2000s", m->r.status, m->r.err);
    if (code) cr_expect(strstr(m->r.err, code), "no %s; stderr:\n%.2000s", code, m->r.err);
    else cr_expect(strstr(m->r.err, "error[QD"), "no diagnostic; stderr:\n%.2000s", m->r.err);
    cr_expect(!strstr(m->r.err, "internal error"), "internal error:\n%.2000s", m->r.err);
    if (asan()) max_mib *= 4;
    if (m->maxrss_kib >= 0) cr_expect_leq(m->maxrss_kib / 1024, max_mib, "peak memory %ld MiB", m->maxrss_kib / 1024);
}

static char *repeat(const char *unit, int n, const char *prefix, const char *suffix) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, prefix);
    for (int i = 0; i < n; i++) sb_puts(&b, unit);
    sb_puts(&b, suffix);
    return sb_take(&b);
}

Test(limits, bracket_nesting, .timeout = 30) {
    need_frontend();
    char *open = repeat("(", 200, PRELUDE "N = ", "1"), *ok = repeat(")", 200, open, "\n");
    Measured m = run_on(ok, "--check", NULL, NULL);
    cr_expect(!strstr(m.r.err, "QD1007"), "200 brackets are within the limit:\n%.2000s", m.r.err);
    run_free(&m.r);
    free(open), free(ok);
    open = repeat("(", 100000, PRELUDE "N = ", "1");
    char *deep = repeat(")", 100000, open, "\n");
    m = run_on(deep, "--check", NULL, NULL);
    expect_limit(&m, "error[QD1007]", 256);
    cr_expect(strstr(m.r.err, ":3:205: error[QD1007]"), "the error points at bracket 201:\n%.2000s", m.r.err);
    run_free(&m.r);
    free(open), free(deep);
}

Test(limits, indentation_nesting, .timeout = 30) {
    need_frontend();
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, PRELUDE "@qd.kernel\ndef k(s: qd.i32):\n");
    for (int d = 0; d < 5000; d++) sb_printf(&b, "%*sif s > %d:\n", 4 * (d + 1), "", d);
    sb_printf(&b, "%*spass\n", 4 * 5001, "");
    Measured m = run_on(b.data, "--check", NULL, NULL);
    expect_limit(&m, "error[QD1007]", 256);
    run_free(&m.r);
    sb_free(&b);
}

Test(limits, identifier_length, .timeout = 30) {
    need_frontend();
    char *name = repeat("x", 1 << 20, PRELUDE, " = 1\n"); /* a 1 MiB identifier; the limit is 1024 */
    Measured m = run_on(name, "--check", NULL, NULL);
    expect_limit(&m, "error[QD1014]", 512);
    cr_expect(strstr(m.r.err, "big.qd:3:1: error[QD1014]"), "the error points at the identifier:\n%.2000s", m.r.err);
    run_free(&m.r);
    free(name);
    name = repeat("x", 1024, PRELUDE, " = 1\n");
    m = run_on(name, "--check", NULL, NULL);
    cr_expect(!strstr(m.r.err, "QD1014"), "1024 characters are within the limit:\n%.300s", m.r.err);
    run_free(&m.r);
    free(name);
}

Test(limits, kernels_per_file, .timeout = 60) {
    need_frontend();
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, PRELUDE);
    for (int k = 0; k < 20000; k++) sb_printf(&b, "@qd.kernel\ndef k%d(a: qd.types.NDArray[qd.i32, 1]):\n    a[0] = %d\n", k, k);
    Measured m = run_on(b.data, "--check", NULL, NULL); /* limit: 10000 kernels and funcs */
    expect_limit(&m, "error[QD2024]", 1024);
    cr_expect(strstr(m.r.err, "big.qd:30004:5: error[QD2024]"), "the error points at kernel 10001:\n%.2000s", m.r.err);
    run_free(&m.r);
    sb_free(&b);
}

Test(limits, static_unroll_count, .timeout = 30) {
    need_frontend();
    Measured m = run_on(PRELUDE KERNEL_HEAD "        for j in qd.static(range(1000000000)):\n            a[j % 64] += 1\n",
                        "--check", NULL, NULL);
    expect_limit(&m, NULL, 512);
    cr_expect(strstr(m.r.err, "big.qd:6:"), "the error points at the unrolled loop:\n%.2000s", m.r.err);
    run_free(&m.r);
}

/* The unroll limit (65536, QD2022) bounds the statements one loop nest unrolls to, not each
 * qd.static loop alone: 1000 x 1000 would be 10^6 statements. */
Test(limits, nested_static_unroll_count, .timeout = 30) {
    need_frontend();
    Measured m = run_on(PRELUDE KERNEL_HEAD "        for j in qd.static(range(1000)):\n"
                                           "            for l in qd.static(range(1000)):\n"
                                           "                a[(j + l) % 64] += 1\n",
                        "--check", NULL, NULL);
    expect_limit(&m, "error[QD2022]", 256);
    run_free(&m.r);
}

/* A SharedArray within the language limit but over the family's max_shared_bytes (apple7:
 * 32 KiB; 20000 f32 = 80000 bytes) is a located error, not a kernel that cannot launch. */
Test(limits, shared_array_over_target_limit, .timeout = 30) {
    need_frontend();
    char *dir;
    Measured m = run_on(PRELUDE KERNEL_HEAD "        sh = qd.simt.block.SharedArray((20000,), qd.f32)\n"
                                           "        sh[i] = 1.0\n",
                        "--target=apple7", "--emit=msl", &dir);
    expect_limit(&m, NULL, 512);
    cr_expect(strstr(m.r.err, "big.qd:6:"), "the error points at the SharedArray:\n%.2000s", m.r.err);
    run_free(&m.r);
    remove_tree(dir), free(dir);
}

Test(limits, shared_array_size, .timeout = 30) {
    need_frontend();
    Measured m = run_on(PRELUDE KERNEL_HEAD "        sh = qd.simt.block.SharedArray((1 << 30,), qd.f32)\n"
                                           "        sh[0] = 1.0\n",
                        "--check", NULL, NULL);
    expect_limit(&m, NULL, 256);
    cr_expect(strstr(m.r.err, "big.qd:6:"), "the error points at the SharedArray:\n%.2000s", m.r.err);
    run_free(&m.r);
}

Test(limits, error_count_is_capped, .timeout = 30) {
    need_frontend();
    char *text = repeat("        a[i] = nope\n", 100000, PRELUDE KERNEL_HEAD, "");
    Measured m = run_on(text, "--check", NULL, NULL);
    expect_limit(&m, "error[QD2001]", 512);
    int n = 0;
    for (const char *p = m.r.err; (p = strstr(p, "error[QD2001]")); p++) n++;
    cr_expect_eq(n, 20, "default --error-limit is 20, saw %d errors", n);
    run_free(&m.r);
    free(text);
}

/* 10^5 statements: compiles for x86_64 with bounded memory (time is bounded by .timeout;
 * `make bench` measures the growth from 10^2 to 10^5). */
Test(limits, hundred_thousand_statements, .timeout = 120) {
    need_frontend();
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, PRELUDE KERNEL_HEAD "        t = s\n");
    for (int k = 0; k < 100000; k++)
        sb_printf(&b, k % 3 ? "        t = t * 3 + %d\n" : "        a[(i + %d) %% 64] += t\n", k);
    char *dir;
    Measured m = run_on(b.data, "--check", NULL, &dir);
    cr_expect_eq(m.r.status, 0, "stderr:\n%.2000s", m.r.err);
    if (m.maxrss_kib >= 0) cr_expect_leq(m.maxrss_kib / 1024, asan() ? 4096 : 1024, "peak %ld MiB", m.maxrss_kib / 1024);
    run_free(&m.r);
    remove_tree(dir), free(dir);
    sb_free(&b);
}

/* Issue 13 item 13: attribute, subscript and call chains count as expression levels, in the
 * kernel (sema) and at module level, and --emit=ast does not recurse past the limit either. */
static void expect_chain_limit(const char *link, const char *head, const char *emit) {
    char *ok = repeat(link, 990, head, "\n");
    char *text = repeat(link, 40000, head, "\n");
    Measured m = run_on(text, emit, NULL, NULL);
    expect_limit(&m, "error[QD1007]", 256);
    cr_expect(strstr(m.r.err, "expression nested too deeply (limit 1000 levels)"), "%.2000s", m.r.err);
    run_free(&m.r);
    m = run_on(ok, "--check", NULL, NULL);
    cr_expect(!strstr(m.r.err, "QD1007"), "990 links are within the limit:\n%.2000s", m.r.err);
    run_free(&m.r);
    free(ok), free(text);
}

Test(limits, postfix_chains, .timeout = 60) {
    need_frontend();
    expect_chain_limit(".a", PRELUDE KERNEL_HEAD "        a[i] = qd", "--check");
    expect_chain_limit("[0]", PRELUDE KERNEL_HEAD "        a[i] = s", "--check");
    expect_chain_limit("(1)", PRELUDE KERNEL_HEAD "        a[i] = abs", "--check");
    expect_chain_limit("[0]", PRELUDE "N = s", "--emit=ast");
}
