/* Issue 33 item 3: big inputs end in an output or a diagnostic, never a signal. SPIRV-Cross
 * recursed past the main thread's stack (SIGSEGV) from about 1,700 rewritten atomics of one task
 * on the Apple families; it now runs on a thread with a large stack. */
#include "harness.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int count(const char *text, const char *needle) {
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

Test(big_inputs, apple9_two_thousand_rewritten_atomics, .timeout = 240) {
    char *dir = make_temp_dir();
    size_t cap = 200 + 2000 * 24;
    char *src = malloc(cap), *in = malloc(strlen(dir) + 16), *out = malloc(strlen(dir) + 16);
    size_t n = (size_t)snprintf(src, cap, "import quadrants as qd\n\n@qd.kernel\ndef atomics(x: qd.types.NDArray[qd.i32, 1]):\n"
                                          "    for j in range(x.shape[0]):\n");
    for (int k = 0; k < 2000; k++) n += (size_t)snprintf(src + n, cap - n, "        x[0] += j\n");
    sprintf(in, "%s/k.qd", dir), sprintf(out, "%s/k.metal", dir);
    cr_assert(write_text(in, src));
    RunResult r = run_qdc(in, "--target=apple9", "-o", out, NULL);
    cr_expect_eq(r.status, 0, "status %d: %s", r.status, r.err);
    cr_expect_str_empty(r.err);
    size_t len = 0;
    char *msl = read_text(out, &len);
    cr_assert(msl, "no MSL written");
    cr_expect_eq(count(msl, "simd_sum("), 2000, "one subgroup sum per statement");
    cr_expect_eq(count(msl, "atomic_fetch_add_explicit("), 2000, "one atomic per statement and subgroup");
    free(msl);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(in), free(out);
}
