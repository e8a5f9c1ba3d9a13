/* Sparse matrix builders (`K: qd.types.sparse_matrix_builder()`, `K[i, j] += v`, qdc-lang(7)
 * "Sparse matrix builders", qdc-abi(7) "Sparse matrix builders"): the triplet buffer
 * [count, i, j, bits(v), ...] filled by a parallel loop on x86 (1 and 4 threads) and on lavapipe,
 * compared as a multiset (the order of the slots is the order the atomics ran); the count past
 * the capacity with nothing written beyond it; every family compiles it; the misuses Quadrants
 * rejects are located errors. */
#include "../../support/util.h"
#include "harness.h"
#include "test_x86.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* fill: 8x8 triplets (i, j, i + j) from a 2-d parallel loop, then 8 of (i, i, -0.5) by -=. */
#define SRC                                                                                                            \
    "import quadrants as qd\n\nn = 8\n"                                                                                \
    "K = qd.linalg.SparseMatrixBuilder(n, n, max_num_triplets=100)\n\n"                                               \
    "@qd.kernel\ndef fill(A: qd.types.sparse_matrix_builder()):\n"                                                    \
    "    for i, j in qd.ndrange(n, n):\n        A[i, j] += i + j\n"                                                   \
    "    for i in range(n):\n        A[i, i] -= 0.5\n\nfill(K)\n"
#define NTRIP 72

static int cmp_trip(const void *a, const void *b) {
    const int32_t *x = a, *y = b;
    for (int k = 0; k < 3; k++)
        if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
    return 0;
}

/* The expected multiset, sorted: (i, j, bits of (float)(i + j)) and (i, i, bits of -0.5f). */
static void expected(int32_t *t) {
    int n = 0;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            float v = (float)(i + j);
            t[3 * n] = i, t[3 * n + 1] = j, memcpy(&t[3 * n + 2], &v, 4), n++;
        }
    for (int i = 0; i < 8; i++) {
        float v = -0.5f;
        t[3 * n] = i, t[3 * n + 1] = i, memcpy(&t[3 * n + 2], &v, 4), n++;
    }
    qsort(t, NTRIP, 12, cmp_trip);
}

/* buf: a builder's buffer after fill, capacity cap: the count, and the stored triplets as the
 * expected multiset (when cap >= NTRIP) or a sub-multiset of cap of them, nothing past them. */
static void check(const int32_t *buf, int cap, int words, const char *where) {
    cr_expect_eq(buf[0], NTRIP, "%s: count %d, want %d", where, buf[0], NTRIP);
    int stored = cap < NTRIP ? cap : NTRIP;
    int32_t want[3 * NTRIP], got[3 * NTRIP];
    expected(want);
    memcpy(got, buf + 1, (size_t)stored * 12);
    qsort(got, (size_t)stored, 12, cmp_trip);
    int w = 0, bad = 0; /* got is a sub-multiset of want (all of it when not cut) */
    for (int k = 0; k < stored; k++) {
        while (w < NTRIP && cmp_trip(&want[3 * w], &got[3 * k]) < 0) w++;
        if (w == NTRIP || cmp_trip(&want[3 * w], &got[3 * k])) bad++;
        else w++;
    }
    cr_expect_eq(bad, 0, "%s: %d stored triplets are not fill's", where, bad);
    for (int k = 1 + 3 * stored; k < words; k++) cr_expect_eq(buf[k], -7, "%s: word %d written past the triplets", where, k);
}

static const char host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int n = atoi(argv[1]), cap = atoi(argv[2]), words = 1 + 3 * cap + 5;\n"
    "    int32_t *buf = malloc(sizeof *buf * (size_t)words);\n"
    "    for (int k = 0; k < words; k++) buf[k] = -7;\n    buf[0] = 0;\n"
    "    fill_args a = {.A = buf, .A_shape = {1 + 3 * cap}};\n"
    "    if (fill(&a, n)) return 2;\n"
    "    for (int k = 0; k < words; k++) printf(\"%d\\n\", buf[k]);\n"
    "    free(buf);\n    return 0;\n}\n";

static void x86_case(const char *dir, const char *threads, int cap) {
    char c[16];
    snprintf(c, sizeof c, "%d", cap);
    RunResult r = x86_run_host(dir, threads, c, NULL);
    cr_expect_eq(r.status, 0, "status %d\n%s", r.status, r.err);
    int words = 1 + 3 * cap + 5;
    int32_t *buf = calloc((size_t)words, sizeof *buf);
    char *p = r.out;
    for (int k = 0; k < words && p && *p; k++) buf[k] = (int32_t)strtol(p, &p, 10);
    char *where = xasprintf("x86 %s threads, capacity %d", threads, cap);
    check(buf, cap, words, where);
    free(where), free(buf);
    run_free(&r);
}

Test(sparse_builder, x86_triplets, .timeout = 120) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir(), *qd = xasprintf("%s/sb.py", dir);
    cr_assert(write_text(qd, SRC));
    RunResult r = x86_compile_and_run(dir, qd, "--target=x86_64", host, "1", "100");
    cr_assert_eq(r.status, 0, "status %d\n%s%s", r.status, r.out, r.err);
    run_free(&r);
    x86_case(dir, "1", 100);
    x86_case(dir, "4", 100);
    x86_case(dir, "4", 72);
    x86_case(dir, "4", 30); /* overflow: 72 appends counted, 30 stored */
    x86_case(dir, "1", 0);
    remove_tree(dir);
    free(dir), free(qd);
}

Test(sparse_builder, lavapipe_triplets, .timeout = 120) {
    char *dir = make_temp_dir(), *spv = NULL;
    char *meta = vk_compile(dir, "sb", "vulkan1.3", SRC, &spv);
    static const int caps[] = {100, 30};
    for (int c = 0; c < 2; c++) {
        int cap = caps[c], words = 1 + 3 * cap + 5;
        int32_t *buf = malloc(sizeof *buf * (size_t)words);
        for (int k = 0; k < words; k++) buf[k] = -7;
        buf[0] = 0;
        VkArray arr[1] = {{buf, sizeof *buf * (size_t)words, 1 + 3 * cap}};
        char *err = NULL;
        const char *k[] = {"fill"};
        int rc = vk_run(dir, spv, meta, k, 1, arr, 1, NULL, 64, c ? VK_FEW : VK_FULL, true, &err);
        cr_expect_geq(rc, 0, "vkrun: %s", err);
        char *where = xasprintf("lavapipe, capacity %d", cap);
        if (rc > 0) check(buf, cap, words, where);
        free(where), free(err), free(buf);
    }
    free(meta), free(spv);
    remove_tree(dir);
    free(dir);
}

/* Every family compiles the append: the count's atomic add is lowered as the database says. */
Test(sparse_builder, every_family) {
    static const char *const fam[] = {"x86_64", "sm_60", "sm_90", "gfx906", "gfx942", "gfx1100", "apple7", "apple9", "vulkan1.1"};
    char *dir = make_temp_dir(), *src = xasprintf("%s/sb.py", dir);
    cr_assert(write_text(src, SRC));
    for (size_t i = 0; i < sizeof fam / sizeof *fam; i++) {
        char *t = xasprintf("--target=%s", fam[i]);
        const char *argv[] = {t, "-o", "sb.out", "sb.py", NULL};
        RunResult r = run_qdc_argv(argv, NULL, dir);
        cr_expect_eq(r.status, 0, "%s: exit %d: %s", fam[i], r.status, r.err);
        cr_expect_str_eq(r.err, "", "%s: diagnostics", fam[i]);
        run_free(&r);
        free(t);
    }
    const char *argv[] = {"--target=x86_64", "--emit=metadata", "-o", "-", "sb.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect(r.out && strstr(r.out, "{\"name\": \"A\", \"kind\": \"ndarray\", \"dtype\": \"i32\", \"ndim\": 1, \"sparse_matrix_builder\": "
                                     "{\"value_dtype\": \"f32\"}"),
              "metadata:\n%s", r.out);
    run_free(&r);
    const char *hargv[] = {"--target=x86_64", "--emit=header", "-o", "-", "sb.py", NULL};
    r = run_qdc_argv(hargv, NULL, dir);
    cr_expect(r.out && strstr(r.out, "    int32_t *A; /* sparse matrix builder: [count, i0, j0, v0, ...], v as f32 bits; A_shape[0] = 1 + "
                                     "3 * capacity; count = appends made (may exceed capacity; min(count, capacity) stored) */\n"
                                     "    int32_t A_shape[1];\n"),
              "header:\n%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
}

static void expect_error(const char *body, const char *want) {
    char *text = xasprintf("import quadrants as qd\n\n@qd.kernel\ndef k(A: qd.types.sparse_matrix_builder()):\n%s", body);
    expect_g_py_error_prefix(text, want);
    free(text);
}

Test(sparse_builder, misuse) {
    expect_error("    for i in range(4):\n        A[i, i] *= 2.0\n",
                 "g.py:6:9: error[QD2010]: Only operations '+=' and '-=' are supported on sparse matrices.\n");
    expect_error("    for i in range(4):\n        A[i, i] = 2.0\n",
                 "g.py:6:9: error[QD2010]: Only operations '+=' and '-=' are supported on sparse matrices.\n");
    expect_error("    for i in range(4):\n        A[i] += 2.0\n",
                 "g.py:6:11: error[QD2042]: a sparse matrix builder takes two indices, K[i, j]\n");
    expect_error("    for i in range(4):\n        A[i, 0.5] += 2.0\n",
                 "g.py:6:10: error[QD2042]: a sparse matrix builder's indices must be integers, got i32 and f32\n");
}

/* qd.lang.impl.call_internal: the runtime functions with a meaning for a compiled kernel are
 * computed (Quadrants' type check of their arguments, its messages); the others are located
 * errors. */
static void expect_internal_error(const char *call, const char *want) {
    char *text = xasprintf("import quadrants as qd\nfrom quadrants.lang import impl\n\n@qd.kernel\ndef k():\n    %s\n", call);
    expect_g_py_error_prefix(text, want);
    free(text);
}

Test(sparse_builder, internal_functions) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/ci.py", dir);
    cr_assert(write_text(src, "import quadrants as qd\nfrom quadrants.lang import impl\n\n@qd.kernel\n"
                              "def k(x: qd.types.ndarray(qd.i32, ndim=1), a: qd.f32):\n"
                              "    x[0] = impl.call_internal(\"test_internal_func_args\", a, 2.0, 3) + "
                              "impl.call_internal(\"do_nothing\")\n    x[1] = impl.call_internal(\"test_internal_func_args\", 1.0, 2.0, 3)\n"));
    const char *argv[] = {"--target=x86_64", "--emit=ir", "-o", "-", "ci.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(r.out && strstr(r.out, "store ndarray x[0:i32]:i32 = (cast:i32 (mul:f32 (add:f32 $a 2:f32) 3:f32))\n") &&
                  strstr(r.out, "store ndarray x[1:i32]:i32 = 9:i32\n"),
              "ir:\n%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
    expect_internal_error("impl.call_internal(\"test_internal_func_args\", 1.0)",
                          "g.py:6:5: error[QD2007]: 1 arguments were passed in but expected 3. this is not supposed to happen; "
                          "please report this as a bug\n");
    expect_internal_error("impl.call_internal(\"test_internal_func_args\", 1, 2, 3)",
                          "g.py:6:51: error[QD2021]: expected f32 for argument #1, but got i32\n");
    expect_internal_error("impl.call_internal(\"test_list_manager\")",
                          "g.py:6:24: error[QD2008]: internal function 'test_list_manager' works on Quadrants' own runtime (its "
                          "memory managers, the autodiff stack, CUDA lanes), which a kernel compiled by qdc does not have\n");
}
