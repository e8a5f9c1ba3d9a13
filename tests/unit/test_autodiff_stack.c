/* The ad stack with checkpoints (issue 31, ir/autodiff.c x_for_replay): run-time loops that carry
 * non-linear locals, with trip counts on both sides of the checkpoint count (16) and of its
 * multiples (segments of 1 to 313 iterations, sub-segments of 1 to 20, last ones shorter than
 * the others, zero trips), a loop that starts past 0, one that steps by -3, two carried locals, and a run-time
 * loop inside another; run forward and backward on x86-64 (4 worker threads) in f64 against
 * central finite differences (fourth order) of the forward kernels and the analytic derivatives; the same
 * kernels in f32 on lavapipe against the analytic derivatives. */
#include "../../support/util.h"
#include "harness.h"
#include "test_x86.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNELS(T)                                                                                                           \
    "import quadrants as qd\n\n"                                                                                             \
    "A = qd.types.ndarray(qd." T ", ndim=1, needs_grad=True)\n"                                                              \
    "I = qd.types.ndarray(qd.i32, ndim=1)\n\n"                                                                               \
    "@qd.kernel\n"                                                                                                           \
    "def power(a: A, n: I, p: A):\n"                                                                                         \
    "    for i in a:\n"                                                                                                      \
    "        r = qd." T "(1.0)\n"                                                                                            \
    "        for j in range(3, n[i] + 3):\n"                                                                                 \
    "            r = r * a[i]\n"                                                                                             \
    "        p[i] = r\n\n"                                                                                                   \
    "@qd.kernel\n"                                                                                                           \
    "def fib(a: A, b: A, n: I, f: A):\n"                                                                                     \
    "    for i in a:\n"                                                                                                      \
    "        u = b[i]\n"                                                                                                     \
    "        v = qd." T "(1.0)\n"                                                                                            \
    "        for j in range(n[i]):\n"                                                                                        \
    "            u, v = v, 0.5 * u + v * a[i]\n"                                                                                   \
    "        f[i] = v\n\n"                                                                                                   \
    "@qd.kernel\n"                                                                                                           \
    "def down(a: A, b: A, n: I, g: A):\n"                                                                                    \
    "    for i in a:\n"                                                                                                      \
    "        t = a[i]\n"                                                                                                     \
    "        for s in range((n[i] + 2) // 3):\n" /* j = n[i], n[i] - 3, ... > 0 (range takes no step in kernels) */      \
    "            j = n[i] - 3 * s\n"                                                                                     \
    "            t = qd.tanh(t * b[i] + 0.01 * j) + 0.5 * t\n"                                                               \
    "        g[i] = t\n\n"                                                                                                   \
    "@qd.kernel\n"                                                                                                           \
    "def nest(a: A, b: A, n: I, h: A):\n"                                                                                    \
    "    for i in a:\n"                                                                                                      \
    "        t = a[i]\n"                                                                                                     \
    "        for j in range(n[i] // 4):\n"                                                                                   \
    "            for k in range(j + 1):\n"                                                                                   \
    "                t = qd.sin(t * b[i]) + 0.5 * t + 0.1\n"                                                                 \
    "            t = t * a[i] + 0.2\n"                                                                                       \
    "        h[i] = t\n"

/* trip counts: 0..3, around 16 x 2 and 16 x 4 (segments of 2 to 5, the last one shorter), 77, 100,
 * 129 (segments of 9, the last one 3), and past 16 x 16, where segments have sub-segments: 333
 * (21; 2, the last 1), 1000 (63; 4, the last 3), 1500 (94; 6, the last 4), 5000 (313; 20, the
 * last 13) */
#define TRIPS 0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 77, 100, 129, 333, 1000, 1500, 5000
#define STR_(...) #__VA_ARGS__
#define STR(...) STR_(__VA_ARGS__)
enum { NT = 17 };

static const char host[] =
    "#include \"d.h\"\n#include <math.h>\n#include <stdio.h>\n#include <string.h>\n"
    "#define N 17\n#define H 1e-6\n"
    "static const int trips[N] = {" STR(TRIPS) "};\n"
    "static double a[N], b[N], p[N], f[N], g[N], h[N], ag[N], bg[N], pg[N], fg[N], gg[N], hg[N];\nstatic int n[N];\n"
    "static int fails, checks;\n"
    "#define A(x) .x = x, .x##_shape = {N}\n"
    "#define G(x) .x##_grad = x##g, .x##_grad_shape = {N}\n"
    "static double sum(double *x) { double s = 0; for (int i = 0; i < N; i++) s += x[i]; return s; }\n"
    "static double run_p(void) { power_args k = {A(a), A(n), A(p)}; if (power(&k, 4)) fails++; return sum(p); }\n"
    "static double run_f(void) { fib_args k = {A(a), A(b), A(n), A(f)}; if (fib(&k, 4)) fails++; return sum(f); }\n"
    "static double run_g(void) { down_args k = {A(a), A(b), A(n), A(g)}; if (down(&k, 4)) fails++; return sum(g); }\n"
    "static double run_h(void) { nest_args k = {A(a), A(b), A(n), A(h)}; if (nest(&k, 4)) fails++; return sum(h); }\n"
    /* central differences of fourth order: the third derivative of a^5000 spoils the second-order one */
    "static double at(double *x, double v, double (*r)(void)) { *x = v; return r(); }\n"
    "static double fd(double *x, double (*r)(void)) { double s = *x, h = H * (1 + fabs(s));\n"
    "    double d = (8 * (at(x, s + h, r) - at(x, s - h, r)) - (at(x, s + 2 * h, r) - at(x, s - 2 * h, r))) / (12 * h); *x = s; r(); return d; }\n"
    "static void cmp(const char *what, int i, double got, double want) {\n"
    "    checks++;\n"
    "    if (!(fabs(got - want) <= 1e-6 * (1 + fabs(want)))) fails++, printf(\"FAIL %s[%d] (%d trips): %.12g, expected %.12g\\n\", what, i, n[i], got, want);\n}\n"
    "static void clear(void) { memset(ag, 0, sizeof ag), memset(bg, 0, sizeof bg); }\n"
    "int main(void) {\n"
    "    for (int i = 0; i < N; i++) a[i] = 0.9995 + 0.00005 * i, b[i] = 0.5 - 0.01 * i, n[i] = trips[i], pg[i] = fg[i] = gg[i] = hg[i] = 1;\n"
    "    run_p(), run_f(), run_g(), run_h();\n"
    "    power_grad_args gp = {A(a), A(n), A(p), G(a), G(p)};\n"
    "    if (power_grad(&gp, 4)) return 3;\n"
    "    for (int i = 0; i < N; i++) cmp(\"power exact\", i, ag[i], n[i] ? n[i] * pow(a[i], n[i] - 1) : 0), cmp(\"power fd\", i, ag[i], fd(&a[i], run_p));\n"
    "    clear();\n"
    "    for (int i = 0; i < N; i++) a[i] = 0.3 + 0.001 * i;\n"
    "    run_f();\n"
    "    fib_grad_args gf = {A(a), A(b), A(n), A(f), G(a), G(b), G(f)};\n"
    "    if (fib_grad(&gf, 4)) return 3;\n"
    "    for (int i = 0; i < N; i++) {\n"
    "        cmp(\"fib a fd\", i, ag[i], fd(&a[i], run_f)), cmp(\"fib b fd\", i, bg[i], fd(&b[i], run_f));\n"
    "        double u = 1, v = 0, x = b[i], y = 1, dx = 0, dy = 0;\n" /* d f / d b: the same recurrence from (1, 0); d f / d a: forward */
    "        for (int j = 0; j < n[i]; j++) {\n"
    "            double t = 0.5 * u + v * a[i], ny = 0.5 * x + y * a[i], dny = 0.5 * dx + dy * a[i] + y;\n"
    "            u = v, v = t, x = y, y = ny, dx = dy, dy = dny;\n        }\n"
    "        cmp(\"fib b exact\", i, bg[i], v), cmp(\"fib a exact\", i, ag[i], dy);\n"
    "    }\n"
    "    clear();\n"
    "    down_grad_args gd = {A(a), A(b), A(n), A(g), G(a), G(b), G(g)};\n"
    "    if (down_grad(&gd, 4)) return 3;\n"
    "    for (int i = 0; i < N; i++) cmp(\"down a fd\", i, ag[i], fd(&a[i], run_g)), cmp(\"down b fd\", i, bg[i], fd(&b[i], run_g));\n"
    "    clear();\n"
    "    nest_grad_args gn = {A(a), A(b), A(n), A(h), G(a), G(b), G(h)};\n"
    "    if (nest_grad(&gn, 4)) return 3;\n"
    "    for (int i = 0; i < N; i++) cmp(\"nest a fd\", i, ag[i], fd(&a[i], run_h)), cmp(\"nest b fd\", i, bg[i], fd(&b[i], run_h));\n"
    "    printf(\"%d checks, %d failed\\n\", checks, fails);\n"
    "    return fails != 0;\n}\n";

Test(autodiff_stack, x86_long_loops_match_finite_differences, .timeout = 300) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir(), *qd = xasprintf("%s/ad.py", dir);
    cr_assert(write_text(qd, KERNELS("f64")));
    RunResult r = x86_compile_and_run(dir, qd, "--target=x86_64", host, NULL, NULL);
    cr_expect_eq(r.status, 0, "status %d\n%s%s", r.status, r.out, r.err);
    cr_expect(strstr(r.out, "170 checks, 0 failed"), "%s", r.out); /* 17 x (2 + 4 + 2 + 2) */
    cr_expect_str_empty(r.err, "%s", r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(qd);
}

/* One kernel's gradient on lavapipe: the primal, then the companion from seeded adjoints (1). */
static int vk_grad(const char *dir, const char *spv, const char *meta, const char *k, VkArray *arr, int narr, int nprimal) {
    char *kg = xasprintf("%s_grad", k), *err = NULL;
    const char *one[] = {k}, *two[] = {kg};
    int rc = vk_run(dir, spv, meta, one, 1, arr, nprimal, NULL, NT, VK_FULL, true, &err);
    cr_expect_neq(rc, -1, "%s: %s", k, err ? err : "");
    free(err), err = NULL;
    if (rc == 1) {
        rc = vk_run(dir, spv, meta, two, 1, arr, narr, NULL, NT, VK_FULL, true, &err);
        cr_expect_neq(rc, -1, "%s: %s", kg, err ? err : "");
        free(err);
    }
    free(kg);
    return rc;
}

Test(autodiff_stack, lavapipe_long_loops_match_exact, .timeout = 300) {
    char *dir = make_temp_dir(), *spv = NULL;
    char *meta = vk_compile(dir, "ad", "vulkan1.2", KERNELS("f32"), &spv);
    static const int32_t trips[NT] = {TRIPS};
    int32_t n[NT];
    float a[NT], b[NT], p[NT], f[NT], ag[NT], bg[NT], pg[NT], fg[NT];
    memcpy(n, trips, sizeof n);
    for (int i = 0; i < NT; i++) a[i] = (float)(0.9995 + 0.00005 * i), p[i] = ag[i] = 0, pg[i] = 1;
    VkArray pw[5] = {{a, sizeof a, NT}, {n, sizeof n, NT}, {p, sizeof p, NT}, {ag, sizeof ag, NT}, {pg, sizeof pg, NT}};
    if (vk_grad(dir, spv, meta, "power", pw, 5, 3) == 1)
        for (int i = 0; i < NT; i++) {
            double want = n[i] ? n[i] * pow((double)a[i], n[i] - 1) : 0;
            cr_expect(fabs(ag[i] - want) <= 2e-3 * (1 + fabs(want)), "power a_grad[%d] (%d trips): lavapipe %.7g, exact %.9g", i, n[i], ag[i], want);
        }
    for (int i = 0; i < NT; i++) a[i] = (float)(0.3 + 0.001 * i), b[i] = (float)(0.5 - 0.01 * i), f[i] = ag[i] = bg[i] = 0, fg[i] = 1;
    VkArray fw[7] = {{a, sizeof a, NT}, {b, sizeof b, NT}, {n, sizeof n, NT}, {f, sizeof f, NT}, {ag, sizeof ag, NT}, {bg, sizeof bg, NT}, {fg, sizeof fg, NT}};
    if (vk_grad(dir, spv, meta, "fib", fw, 7, 4) == 1)
        for (int i = 0; i < NT; i++) {
            double u = 1, v = 0, x = b[i], y = 1, dx = 0, dy = 0; /* d f / d b: the recurrence from (1, 0); d f / d a: forward */
            for (int j = 0; j < n[i]; j++) {
                double t = 0.5 * u + v * a[i], ny = 0.5 * x + y * a[i], dny = 0.5 * dx + dy * a[i] + y;
                u = v, v = t, x = y, y = ny, dx = dy, dy = dny;
            }
            cr_expect(fabs(bg[i] - v) <= 2e-3 * (1 + fabs(v)), "fib b_grad[%d] (%d trips): lavapipe %.7g, exact %.9g", i, n[i], bg[i], v);
            cr_expect(fabs(ag[i] - dy) <= 2e-3 * (1 + fabs(dy)), "fib a_grad[%d] (%d trips): lavapipe %.7g, exact %.9g", i, n[i], ag[i], dy);
        }
    free(meta), free(spv);
    remove_tree(dir);
    free(dir);
}

/* Nests of three and four run-time loops (x_for_replay inside x_for_replay: one replay of the
 * body per level), trip counts per element from 0 to past the checkpoint count at the outer
 * levels, statements before and after the inner loops, a bound that reads the outer counters. */
#define DEEP(T)                                                                                                              \
    "import quadrants as qd\n\n"                                                                                             \
    "A = qd.types.ndarray(qd." T ", ndim=1, needs_grad=True)\n"                                                              \
    "I = qd.types.ndarray(qd.i32, ndim=1)\n\n"                                                                               \
    "@qd.kernel\n"                                                                                                           \
    "def deep3(a: A, b: A, n: I, o: A):\n"                                                                                   \
    "    for i in a:\n"                                                                                                      \
    "        t = a[i]\n"                                                                                                     \
    "        for j in range(n[i]):\n"                                                                                        \
    "            t = t * b[i] + 0.1\n"                                                                                       \
    "            for k in range(n[i] - j):\n"                                                                                \
    "                u = qd.sin(t) * a[i]\n"                                                                                 \
    "                for l in range(k % 5 + 1):\n"                                                                           \
    "                    t = 0.5 * t + u * qd.cos(t * b[i]) * 0.3\n"                                                         \
    "                t = t + 0.01 * k\n"                                                                                     \
    "        o[i] = t\n\n"                                                                                                   \
    "@qd.kernel\n"                                                                                                           \
    "def deep4(a: A, b: A, n: I, o: A):\n"                                                                                   \
    "    for i in a:\n"                                                                                                      \
    "        t = a[i]\n"                                                                                                     \
    "        for j in range(n[i]):\n"                                                                                        \
    "            for k in range(n[i] // 2 + 1):\n"                                                                           \
    "                for l in range(2):\n"                                                                                   \
    "                    for m in range(n[i] % 4 + 1):\n"                                                                    \
    "                        t = qd.tanh(t * b[i]) + 0.5 * t\n"                                                              \
    "                    t = t * a[i] + 0.05\n"                                                                              \
    "        o[i] = t\n"

#define DEEP_TRIPS 0, 1, 2, 3, 5, 17, 20
enum { ND = 7 };
/* The same kernels in C (f64): the reference for finite differences. */
#define DEEP_C                                                                                                               \
    "static double c3(double a, double b, int n) { double t = a;\n"                                                          \
    "    for (int j = 0; j < n; j++) { t = t * b + 0.1;\n"                                                                   \
    "        for (int k = 0; k < n - j; k++) { double u = sin(t) * a; for (int l = 0; l < k % 5 + 1; l++) t = 0.5 * t + u * cos(t * b) * 0.3; t = t + 0.01 * k; } }\n" \
    "    return t; }\n"                                                                                                      \
    "static double c4(double a, double b, int n) { double t = a;\n"                                                          \
    "    for (int j = 0; j < n; j++) for (int k = 0; k < n / 2 + 1; k++) for (int l = 0; l < 2; l++) {\n"                 \
    "        for (int m = 0; m < n % 4 + 1; m++) t = tanh(t * b) + 0.5 * t;\n        t = t * a + 0.05; }\n"                          \
    "    return t; }\n"

static const char deep_host[] =
    "#include \"d.h\"\n#include <math.h>\n#include <stdio.h>\n"
    "#define N 7\n"
    "static int n[N] = {" STR(DEEP_TRIPS) "};\n"
    "static double a[N], b[N], o[N], ag[N], bg[N], og[N];\n"
    "static int fails, checks;\n"
    "#define A(x) .x = x, .x##_shape = {N}\n"
    "#define G(x) .x##_grad = x##g, .x##_grad_shape = {N}\n" DEEP_C
    "static double fd(double (*f)(double, double, int), int i, int wrt) { double s = wrt ? b[i] : a[i], h = 1e-5 * (1 + fabs(s)), v[4];\n"
    "    for (int q = 0; q < 4; q++) { double x = s + (q < 2 ? (q ? -h : h) : (q == 2 ? 2 * h : -2 * h));\n"
    "        v[q] = wrt ? f(a[i], x, n[i]) : f(x, b[i], n[i]); }\n"
    "    return (8 * (v[0] - v[1]) - (v[2] - v[3])) / (12 * h); }\n"
    "static void cmp(const char *what, int i, double got, double want) {\n"
    "    checks++;\n"
    "    if (!(fabs(got - want) <= 1e-6 * (1 + fabs(want)))) fails++, printf(\"FAIL %s[%d] (%d trips): %.12g, expected %.12g\\n\", what, i, n[i], got, want);\n}\n"
    "int main(void) {\n"
    "    for (int k = 0; k < 2; k++) {\n"
    "        double (*f)(double, double, int) = k ? c4 : c3;\n"
    "        for (int i = 0; i < N; i++) a[i] = 0.8 + 0.02 * i, b[i] = 0.6 - 0.03 * i, o[i] = ag[i] = bg[i] = 0, og[i] = 1;\n"
    "        if (k) { deep4_args p = {A(a), A(b), A(n), A(o)}; deep4_grad_args g = {A(a), A(b), A(n), A(o), G(a), G(b), G(o)};\n"
    "                 if (deep4(&p, 4) || deep4_grad(&g, 4)) return 3; }\n"
    "        else { deep3_args p = {A(a), A(b), A(n), A(o)}; deep3_grad_args g = {A(a), A(b), A(n), A(o), G(a), G(b), G(o)};\n"
    "               if (deep3(&p, 4) || deep3_grad(&g, 4)) return 3; }\n"
    "        for (int i = 0; i < N; i++) {\n"
    "            cmp(k ? \"deep4 value\" : \"deep3 value\", i, o[i], f(a[i], b[i], n[i]));\n"
    "            cmp(k ? \"deep4 a fd\" : \"deep3 a fd\", i, ag[i], fd(f, i, 0)), cmp(k ? \"deep4 b fd\" : \"deep3 b fd\", i, bg[i], fd(f, i, 1));\n"
    "        }\n"
    "    }\n"
    "    printf(\"%d checks, %d failed\\n\", checks, fails);\n"
    "    return fails != 0;\n}\n";

Test(autodiff_stack, x86_deep_nests_match_finite_differences, .timeout = 300) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir(), *qd = xasprintf("%s/d.py", dir);
    cr_assert(write_text(qd, DEEP("f64")));
    RunResult r = x86_compile_and_run(dir, qd, "--target=x86_64", deep_host, NULL, NULL);
    cr_expect_eq(r.status, 0, "status %d\n%s%s", r.status, r.out, r.err);
    cr_expect(strstr(r.out, "42 checks, 0 failed"), "%s", r.out); /* 2 kernels x 7 elements x 3 */
    cr_expect_str_empty(r.err, "%s", r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(qd);
}

/* The deep nests in f32 on lavapipe, against central differences of the C reference in f64 at the
 * same (f32) inputs. */
static double c3(double a, double b, int n) {
    double t = a;
    for (int j = 0; j < n; j++) {
        t = t * b + 0.1;
        for (int k = 0; k < n - j; k++) {
            double u = sin(t) * a;
            for (int l = 0; l < k % 5 + 1; l++) t = 0.5 * t + u * cos(t * b) * 0.3;
            t = t + 0.01 * k;
        }
    }
    return t;
}
static double c4(double a, double b, int n) {
    double t = a;
    for (int j = 0; j < n; j++)
        for (int k = 0; k < n / 2 + 1; k++)
            for (int l = 0; l < 2; l++) {
                for (int m = 0; m < n % 4 + 1; m++) t = tanh(t * b) + 0.5 * t;
                t = t * a + 0.05;
            }
    return t;
}
static double cfd(double (*f)(double, double, int), double a, double b, int n, int wrt) {
    double h = 1e-5;
    return wrt ? (f(a, b + h, n) - f(a, b - h, n)) / (2 * h) : (f(a + h, b, n) - f(a - h, b, n)) / (2 * h);
}

Test(autodiff_stack, lavapipe_deep_nests_match_finite_differences, .timeout = 300) {
    char *dir = make_temp_dir(), *spv = NULL;
    char *meta = vk_compile(dir, "d", "vulkan1.2", DEEP("f32"), &spv);
    static const int32_t trips[ND] = {DEEP_TRIPS};
    static const char *names[2] = {"deep3", "deep4"};
    double (*ref[2])(double, double, int) = {c3, c4};
    for (int k = 0; k < 2; k++) {
        int32_t n[ND];
        float a[ND], b[ND], o[ND], ag[ND], bg[ND], og[ND];
        memcpy(n, trips, sizeof n);
        for (int i = 0; i < ND; i++) a[i] = (float)(0.8 + 0.02 * i), b[i] = (float)(0.6 - 0.03 * i), o[i] = ag[i] = bg[i] = 0, og[i] = 1;
        VkArray arr[7] = {{a, sizeof a, ND}, {b, sizeof b, ND}, {n, sizeof n, ND}, {o, sizeof o, ND}, {ag, sizeof ag, ND}, {bg, sizeof bg, ND}, {og, sizeof og, ND}};
        char *kg = xasprintf("%s_grad", names[k]), *err = NULL;
        const char *one[] = {names[k]}, *two[] = {kg};
        int rc = vk_run(dir, spv, meta, one, 1, arr, 4, NULL, ND, VK_FULL, true, &err);
        cr_expect_neq(rc, -1, "%s: %s", names[k], err ? err : "");
        free(err), err = NULL;
        if (rc == 1) {
            rc = vk_run(dir, spv, meta, two, 1, arr, 7, NULL, ND, VK_FULL, true, &err);
            cr_expect_neq(rc, -1, "%s: %s", kg, err ? err : "");
            free(err);
        }
        if (rc == 1)
            for (int i = 0; i < ND; i++) {
                double v = ref[k](a[i], b[i], n[i]), da = cfd(ref[k], a[i], b[i], n[i], 0), db = cfd(ref[k], a[i], b[i], n[i], 1);
                cr_expect(fabs(o[i] - v) <= 1e-3 * (1 + fabs(v)), "%s[%d] (%d trips): lavapipe %.7g, C %.9g", names[k], i, n[i], o[i], v);
                cr_expect(fabs(ag[i] - da) <= 2e-3 * (1 + fabs(da)), "%s a_grad[%d] (%d trips): lavapipe %.7g, fd %.9g", names[k], i, n[i], ag[i], da);
                cr_expect(fabs(bg[i] - db) <= 2e-3 * (1 + fabs(db)), "%s b_grad[%d] (%d trips): lavapipe %.7g, fd %.9g", names[k], i, n[i], bg[i], db);
            }
        free(kg);
    }
    free(meta), free(spv);
    remove_tree(dir);
    free(dir);
}

/* Run-time loops with an ad stack (units, emitted once: blk_phases) in every kind of block: two in
 * one body of a run-time loop, one in a branch of an `if` in a run-time loop, one in a run-time loop
 * that carries nothing, one in a loop that accumulates, two in a qd.static loop at the task's top. */
#define UNITS(T)                                                                                                             \
    "import quadrants as qd\n\n"                                                                                             \
    "A = qd.types.ndarray(qd." T ", ndim=1, needs_grad=True)\n"                                                              \
    "I = qd.types.ndarray(qd.i32, ndim=1)\n\n"                                                                               \
    "@qd.kernel\n"                                                                                                           \
    "def two(a: A, b: A, n: I, o: A):\n"                                                                                     \
    "    for i in a:\n"                                                                                                      \
    "        t = a[i]\n"                                                                                                     \
    "        for j in range(n[i]):\n"                                                                                        \
    "            for k in range(j % 3 + 1):\n"                                                                               \
    "                t = qd.sin(t * b[i]) + 0.5 * t\n"                                                                       \
    "            t = t * a[i] + 0.1\n"                                                                                       \
    "            for k in range(n[i] - j):\n"                                                                                \
    "                t = qd.tanh(t + b[i]) * 0.7 + 0.2 * t\n"                                                                \
    "        o[i] = t\n\n"                                                                                                   \
    "@qd.kernel\n"                                                                                                           \
    "def branch(a: A, b: A, n: I, o: A):\n"                                                                                  \
    "    for i in a:\n"                                                                                                      \
    "        t = a[i]\n"                                                                                                     \
    "        for j in range(n[i]):\n"                                                                                        \
    "            if j % 2 == 0:\n"                                                                                           \
    "                for k in range(j + 1):\n"                                                                               \
    "                    t = qd.sin(t * b[i]) + 0.5 * t\n"                                                                   \
    "            else:\n"                                                                                                    \
    "                t = t * a[i] + 0.1\n"                                                                                   \
    "        o[i] = t\n\n"                                                                                                   \
    "@qd.kernel\n"                                                                                                           \
    "def plain(a: A, b: A, n: I, o: A):\n"                                                                                   \
    "    for i in a:\n"                                                                                                      \
    "        for j in range(n[i]):\n"                                                                                        \
    "            t = a[i] * (j + 1)\n"                                                                                       \
    "            for k in range(n[i] - j):\n"                                                                                \
    "                t = qd.sin(t * b[i]) + 0.5 * t\n"                                                                       \
    "            o[i] += t\n\n"                                                                                              \
    "@qd.kernel\n"                                                                                                           \
    "def acc(a: A, b: A, n: I, o: A):\n"                                                                                     \
    "    for i in a:\n"                                                                                                      \
    "        s = qd." T "(0.0)\n"                                                                                            \
    "        for j in range(n[i]):\n"                                                                                        \
    "            t = a[i] + 0.1 * j\n"                                                                                       \
    "            for k in range(j % 4 + 1):\n"                                                                               \
    "                t = qd.sin(t * b[i]) + 0.5 * t\n"                                                                       \
    "            s += t * t\n"                                                                                               \
    "        o[i] = s\n\n"                                                                                                   \
    "@qd.kernel\n"                                                                                                           \
    "def stat(a: A, b: A, n: I, o: A):\n"                                                                                    \
    "    for i in a:\n"                                                                                                      \
    "        t = a[i]\n"                                                                                                     \
    "        for q in qd.static(range(2)):\n"                                                                                \
    "            for k in range(n[i] + q):\n"                                                                                \
    "                t = qd.sin(t * b[i]) + 0.5 * t\n"                                                                       \
    "            t = t * b[i]\n"                                                                                             \
    "        o[i] = t\n"

/* The same kernels in C (f64): code here, and a string in the x86 host. */
#define UNITS_C                                                                                                              \
    static double u_two(double a, double b, int n) {                                                                         \
        double t = a;                                                                                                        \
        for (int j = 0; j < n; j++) {                                                                                        \
            for (int k = 0; k < j % 3 + 1; k++) t = sin(t * b) + 0.5 * t;                                                   \
            t = t * a + 0.1;                                                                                                 \
            for (int k = 0; k < n - j; k++) t = tanh(t + b) * 0.7 + 0.2 * t;                                                \
        }                                                                                                                    \
        return t;                                                                                                            \
    }                                                                                                                        \
    static double u_branch(double a, double b, int n) {                                                                      \
        double t = a;                                                                                                        \
        for (int j = 0; j < n; j++) {                                                                                        \
            if (j % 2 == 0) {                                                                                                \
                for (int k = 0; k < j + 1; k++) t = sin(t * b) + 0.5 * t;                                                   \
            } else {                                                                                                         \
                t = t * a + 0.1;                                                                                             \
            }                                                                                                                \
        }                                                                                                                    \
        return t;                                                                                                            \
    }                                                                                                                        \
    static double u_plain(double a, double b, int n) {                                                                       \
        double o = 0;                                                                                                        \
        for (int j = 0; j < n; j++) {                                                                                        \
            double t = a * (j + 1);                                                                                          \
            for (int k = 0; k < n - j; k++) t = sin(t * b) + 0.5 * t;                                                       \
            o += t;                                                                                                          \
        }                                                                                                                    \
        return o;                                                                                                            \
    }                                                                                                                        \
    static double u_acc(double a, double b, int n) {                                                                         \
        double s = 0;                                                                                                        \
        for (int j = 0; j < n; j++) {                                                                                        \
            double t = a + 0.1 * j;                                                                                          \
            for (int k = 0; k < j % 4 + 1; k++) t = sin(t * b) + 0.5 * t;                                                   \
            s += t * t;                                                                                                      \
        }                                                                                                                    \
        return s;                                                                                                            \
    }                                                                                                                        \
    static double u_stat(double a, double b, int n) {                                                                        \
        double t = a;                                                                                                        \
        for (int q = 0; q < 2; q++) {                                                                                        \
            for (int k = 0; k < n + q; k++) t = sin(t * b) + 0.5 * t;                                                       \
            t = t * b;                                                                                                       \
        }                                                                                                                    \
        return t;                                                                                                            \
    }                                                                                                                        \
    static double fd4(double (*f)(double, double, int), double a, double b, int n, int wrt) {                               \
        double s = wrt ? b : a, h = 1e-5 * (1 + fabs(s)), v[4];                                                              \
        for (int q = 0; q < 4; q++) {                                                                                        \
            double x = s + (q < 2 ? (q ? -h : h) : (q == 2 ? 2 * h : -2 * h));                                               \
            v[q] = wrt ? f(a, x, n) : f(x, b, n);                                                                            \
        }                                                                                                                    \
        return (8 * (v[0] - v[1]) - (v[2] - v[3])) / (12 * h);                                                               \
    }

UNITS_C

/* x86, f64, 4 threads: each kernel's value and both gradients against fourth-order central
 * differences of its C twin, per element (tolerance 1e-6 relative). */
static const char units_host[] =
    "#include \"d.h\"\n#include <math.h>\n#include <stdio.h>\n#define N 7\n" STR(UNITS_C) "\n"
    "static int n[N] = {" STR(DEEP_TRIPS) "};\n"
    "static double a[N], b[N], o[N], ag[N], bg[N], og[N];\n"
    "static int fails, checks;\n"
    "#define A(x) .x = x, .x##_shape = {N}\n"
    "#define G(x) .x##_grad = x##g, .x##_grad_shape = {N}\n"
    "static void cmp(const char *k, const char *what, int i, double got, double want) {\n"
    "    checks++;\n"
    "    if (!(fabs(got - want) <= 1e-6 * (1 + fabs(want)))) fails++, printf(\"FAIL %s %s[%d] (%d trips): %.12g, expected %.12g\\n\", k, what, i, n[i], got, want);\n}\n"
    "#define RUN(K) { for (int i = 0; i < N; i++) a[i] = 0.8 + 0.02 * i, b[i] = 0.6 - 0.03 * i, o[i] = ag[i] = bg[i] = 0, og[i] = 1;\\\n"
    "    K##_args p = {A(a), A(b), A(n), A(o)}; K##_grad_args g = {A(a), A(b), A(n), A(o), G(a), G(b), G(o)};\\\n"
    "    if (K(&p, 4) || K##_grad(&g, 4)) return 3;\\\n"
    "    for (int i = 0; i < N; i++) cmp(#K, \"value\", i, o[i], u_##K(a[i], b[i], n[i])), cmp(#K, \"a fd\", i, ag[i], fd4(u_##K, a[i], b[i], n[i], 0)),\\\n"
    "        cmp(#K, \"b fd\", i, bg[i], fd4(u_##K, a[i], b[i], n[i], 1)); }\n"
    "int main(void) {\n"
    "    RUN(two) RUN(branch) RUN(plain) RUN(acc) RUN(stat)\n"
    "    printf(\"%d checks, %d failed\\n\", checks, fails);\n"
    "    return fails != 0;\n}\n";

Test(autodiff_stack, x86_units_in_every_block_match_finite_differences, .timeout = 300) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir(), *qd = xasprintf("%s/d.py", dir);
    cr_assert(write_text(qd, UNITS("f64")));
    RunResult r = x86_compile_and_run(dir, qd, "--target=x86_64", units_host, NULL, NULL);
    cr_expect_eq(r.status, 0, "status %d\n%s%s", r.status, r.out, r.err);
    cr_expect(strstr(r.out, "105 checks, 0 failed"), "%s", r.out); /* 5 kernels x 7 elements x 3 */
    cr_expect_str_empty(r.err, "%s", r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(qd);
}

/* The same kernels in f32 on lavapipe, against central differences of the C twins in f64 at the
 * same (f32) inputs. */
Test(autodiff_stack, lavapipe_units_in_every_block_match_finite_differences, .timeout = 300) {
    char *dir = make_temp_dir(), *spv = NULL;
    char *meta = vk_compile(dir, "d", "vulkan1.2", UNITS("f32"), &spv);
    static const int32_t trips[ND] = {DEEP_TRIPS};
    static const char *names[5] = {"two", "branch", "plain", "acc", "stat"};
    double (*ref[5])(double, double, int) = {u_two, u_branch, u_plain, u_acc, u_stat};
    for (int k = 0; k < 5; k++) {
        int32_t n[ND];
        float a[ND], b[ND], o[ND], ag[ND], bg[ND], og[ND];
        memcpy(n, trips, sizeof n);
        for (int i = 0; i < ND; i++) a[i] = (float)(0.8 + 0.02 * i), b[i] = (float)(0.6 - 0.03 * i), o[i] = ag[i] = bg[i] = 0, og[i] = 1;
        VkArray arr[7] = {{a, sizeof a, ND}, {b, sizeof b, ND}, {n, sizeof n, ND}, {o, sizeof o, ND}, {ag, sizeof ag, ND}, {bg, sizeof bg, ND}, {og, sizeof og, ND}};
        if (vk_grad(dir, spv, meta, names[k], arr, 7, 4) != 1) continue;
        for (int i = 0; i < ND; i++) {
            double v = ref[k](a[i], b[i], n[i]), da = fd4(ref[k], a[i], b[i], n[i], 0), db = fd4(ref[k], a[i], b[i], n[i], 1);
            cr_expect(fabs(o[i] - v) <= 1e-3 * (1 + fabs(v)), "%s[%d] (%d trips): lavapipe %.7g, C %.9g", names[k], i, n[i], o[i], v);
            cr_expect(fabs(ag[i] - da) <= 2e-3 * (1 + fabs(da)), "%s a_grad[%d] (%d trips): lavapipe %.7g, fd %.9g", names[k], i, n[i], ag[i], da);
            cr_expect(fabs(bg[i] - db) <= 2e-3 * (1 + fabs(db)), "%s b_grad[%d] (%d trips): lavapipe %.7g, fd %.9g", names[k], i, n[i], bg[i], db);
        }
    }
    free(meta), free(spv);
    remove_tree(dir);
    free(dir);
}
