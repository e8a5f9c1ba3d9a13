/* Gradients of ndarrays (issue 31): qd.ndarray(..., needs_grad=True) and
 * qd.types.ndarray(needs_grad=...) make float ndarray parameters differentiable; the
 * <kernel>_grad companion takes one adjoint array "<x>_grad" per differentiable ndarray whose
 * elements the kernel reads or writes, after the primal's parameters (qdc-abi(7) GRADIENTS);
 * x.grad in a kernel is such a parameter of the kernel itself. Truth: a two-kernel chain with a
 * gather through an integer index array, run forward and backward on x86-64 (4 worker threads)
 * in f64, against central finite differences and the analytic gradient; the same in f32 on
 * lavapipe; the ABI and metadata exact; the refusals located. */
#include "../../support/util.h"
#include "harness.h"
#include "test_x86.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* chain1 stores y, chain2 reduces into loss and gathers x through idx (its adjoint scatters
 * into x_grad[idx[i]]: several i share an element). c is needs_grad=False: no adjoint. */
static const char chain_src[] =
    "import quadrants as qd\n\n"
    "A = qd.types.ndarray(qd.f64, ndim=1, needs_grad=True)\n"
    "C = qd.types.ndarray(qd.f64, ndim=1, needs_grad=False)\n"
    "I = qd.types.ndarray(qd.i32, ndim=1)\n\n"
    "@qd.kernel\n"
    "def chain1(x: A, w: A, c: C, idx: I, y: A, loss: A):\n"
    "    for i in x:\n"
    "        y[i] = qd.sin(x[i]) * w[i] * c[i]\n\n"
    "@qd.kernel\n"
    "def chain2(x: A, w: A, c: C, idx: I, y: A, loss: A):\n"
    "    for i in y:\n"
    "        loss[0] += y[i] ** 2 + x[idx[i]] * w[i]\n";

static const char chain_host[] =
    "#include \"d.h\"\n#include <math.h>\n#include <stdio.h>\n#include <string.h>\n"
    "#define N 37\n#define H 1e-6\n"
    "static double x[N], w[N], c[N], y[N], loss[1], xg[N], wg[N], yg[N], lg[1];\nstatic int idx[N];\n"
    "static int fails, checks;\n"
    "#define A(p) .p = p, .p##_shape = {N}\n"
    "static double run(void) {\n"
    "    loss[0] = 0;\n"
    "    chain1_args a = {A(x), A(w), A(c), A(idx), A(y), .loss = loss, .loss_shape = {1}};\n"
    "    chain2_args b = {A(x), A(w), A(c), A(idx), A(y), .loss = loss, .loss_shape = {1}};\n"
    "    if (chain1(&a, 4) || chain2(&b, 4)) { printf(\"launch failed\\n\"); fails++; }\n"
    "    return loss[0];\n}\n"
    "static double fd(double *p) { double s = *p; *p = s + H; double lp = run(); *p = s - H; double lm = run(); *p = s; return (lp - lm) / (2 * H); }\n"
    "static void cmp(const char *what, int i, double got, double want) {\n"
    "    checks++;\n"
    "    if (!(fabs(got - want) <= 1e-6 * (1 + fabs(want)))) fails++, printf(\"FAIL %s[%d]: %.12g, expected %.12g\\n\", what, i, got, want);\n}\n"
    "int main(void) {\n"
    "    for (int i = 0; i < N; i++) x[i] = 0.1 + 0.05 * i, w[i] = 0.7 - 0.03 * i, c[i] = 1.0 + 0.01 * i, idx[i] = (i * 7) % 5;\n"
    "    run();\n"
    "    lg[0] = 1;\n"
    "    chain2_grad_args gb = {A(x), A(w), A(c), A(idx), A(y), .loss = loss, .loss_shape = {1},\n"
    "                           .x_grad = xg, .x_grad_shape = {N}, .w_grad = wg, .w_grad_shape = {N}, .y_grad = yg, .y_grad_shape = {N},\n"
    "                           .loss_grad = lg, .loss_grad_shape = {1}};\n"
    "    chain1_grad_args ga = {A(x), A(w), A(c), A(idx), A(y), .loss = loss, .loss_shape = {1},\n"
    "                           .x_grad = xg, .x_grad_shape = {N}, .w_grad = wg, .w_grad_shape = {N}, .y_grad = yg, .y_grad_shape = {N}};\n"
    "    if (chain2_grad(&gb, 4) || chain1_grad(&ga, 4)) return 3;\n"
    "    for (int j = 0; j < N; j++) {\n"
    "        double sx = 0;\n"
    "        for (int i = 0; i < N; i++) if (idx[i] == j) sx += w[i];\n"
    "        double yj = sin(x[j]) * w[j] * c[j];\n"
    "        cmp(\"x exact\", j, xg[j], 2 * yj * cos(x[j]) * w[j] * c[j] + sx);\n"
    "        cmp(\"w exact\", j, wg[j], 2 * yj * sin(x[j]) * c[j] + x[idx[j]]);\n"
    "        cmp(\"y consumed\", j, yg[j], 0);\n"
    "        double gx = xg[j], gw = wg[j];\n"
    "        cmp(\"x fd\", j, gx, fd(&x[j]));\n"
    "        cmp(\"w fd\", j, gw, fd(&w[j]));\n"
    "    }\n"
    "    cmp(\"loss.grad kept\", 0, lg[0], 1);\n"
    "    printf(\"%d checks, %d failed\\n\", checks, fails);\n"
    "    return fails != 0;\n}\n";

Test(autodiff_ndarray, x86_gradients_match_finite_differences, .timeout = 240) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir(), *qd = xasprintf("%s/ad.py", dir);
    cr_assert(write_text(qd, chain_src));
    RunResult r = x86_compile_and_run(dir, qd, "--target=x86_64", chain_host, NULL, NULL);
    cr_expect_eq(r.status, 0, "status %d\n%s%s", r.status, r.out, r.err);
    cr_expect(strstr(r.out, "186 checks, 0 failed"), "%s", r.out); /* 37 x 5 + 1 */
    run_free(&r);
    remove_tree(dir);
    free(dir), free(qd);
}

/* The ad stack through ndarrays (Quadrants' test_ad_power and test_ad_fibonacci shapes, trip
 * counts read from an integer array, so known at run time only): p[i] = a[i]^n[i] by repeated
 * multiplication, f[i] the n[i]-th term of the recurrence (u, v) -> (v, u + v * a[i]) from
 * (b[i], 1); on x86-64 with 4 worker threads in f64, against the analytic power rule and central
 * finite differences. */
static const char stack_src[] =
    "import quadrants as qd\n\n"
    "A = qd.types.ndarray(qd.f64, ndim=1, needs_grad=True)\n"
    "I = qd.types.ndarray(qd.i32, ndim=1)\n\n"
    "@qd.kernel\n"
    "def power(a: A, n: I, p: A):\n"
    "    for i in a:\n"
    "        r = qd.f64(1.0)\n"
    "        for j in range(n[i]):\n"
    "            r = r * a[i]\n"
    "        p[i] = r\n\n"
    "@qd.kernel\n"
    "def fib(a: A, b: A, n: I, f: A):\n"
    "    for i in a:\n"
    "        u = b[i]\n"
    "        v = qd.f64(1.0)\n"
    "        for j in range(n[i]):\n"
    "            u, v = v, u + v * a[i]\n"
    "        f[i] = v\n";

static const char stack_host[] =
    "#include \"d.h\"\n#include <math.h>\n#include <stdio.h>\n#include <string.h>\n"
    "#define N 23\n#define H 1e-6\n"
    "static double a[N], b[N], p[N], f[N], ag[N], bg[N], pg[N], fg[N];\nstatic int n[N];\nstatic int fails, checks;\n"
    "#define A(x) .x = x, .x##_shape = {N}\n"
    "static double sum(double *x) { double s = 0; for (int i = 0; i < N; i++) s += x[i]; return s; }\n"
    "static double run_p(void) { power_args k = {A(a), A(n), A(p)}; if (power(&k, 4)) fails++; return sum(p); }\n"
    "static double run_f(void) { fib_args k = {A(a), A(b), A(n), A(f)}; if (fib(&k, 4)) fails++; return sum(f); }\n"
    "static double fd(double *x, double (*g)(void)) { double s = *x; *x = s + H; double lp = g(); *x = s - H; double lm = g(); *x = s; return (lp - lm) / (2 * H); }\n"
    "static void cmp(const char *what, int i, double got, double want) {\n"
    "    checks++;\n"
    "    if (!(fabs(got - want) <= 1e-6 * (1 + fabs(want)))) fails++, printf(\"FAIL %s[%d]: %.12g, expected %.12g\\n\", what, i, got, want);\n}\n"
    "int main(void) {\n"
    "    for (int i = 0; i < N; i++) a[i] = 0.8 + 0.02 * i, b[i] = 0.5 - 0.01 * i, n[i] = i % 9, pg[i] = 1, fg[i] = 1;\n"
    "    run_p(), run_f();\n"
    "    power_grad_args gp = {A(a), A(n), A(p), .a_grad = ag, .a_grad_shape = {N}, .p_grad = pg, .p_grad_shape = {N}};\n"
    "    fib_grad_args gf = {A(a), A(b), A(n), A(f), .a_grad = ag, .a_grad_shape = {N}, .b_grad = bg, .b_grad_shape = {N},\n"
    "                        .f_grad = fg, .f_grad_shape = {N}};\n"
    "    if (power_grad(&gp, 4)) return 3;\n"
    "    for (int i = 0; i < N; i++) {\n"
    "        cmp(\"power exact\", i, ag[i], n[i] ? n[i] * pow(a[i], n[i] - 1) : 0);\n"
    "        cmp(\"power fd\", i, ag[i], fd(&a[i], run_p));\n"
    "        ag[i] = 0;\n    }\n"
    "    if (fib_grad(&gf, 4)) return 3;\n"
    "    for (int i = 0; i < N; i++) {\n"
    "        cmp(\"fib a fd\", i, ag[i], fd(&a[i], run_f));\n"
    "        cmp(\"fib b fd\", i, bg[i], fd(&b[i], run_f));\n"
    "        double u = 1, v = 0;\n" /* d f / d b: the same recurrence from (1, 0) */
    "        for (int j = 0; j < n[i]; j++) { double t = u + v * a[i]; u = v, v = t; }\n"
    "        cmp(\"fib b exact\", i, bg[i], v);\n"
    "    }\n"
    "    printf(\"%d checks, %d failed\\n\", checks, fails);\n"
    "    return fails != 0;\n}\n";

Test(autodiff_ndarray, x86_ad_stack_matches_finite_differences, .timeout = 240) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir(), *qd = xasprintf("%s/ad.py", dir);
    cr_assert(write_text(qd, stack_src));
    RunResult r = x86_compile_and_run(dir, qd, "--target=x86_64", stack_host, NULL, NULL);
    cr_expect_eq(r.status, 0, "status %d\n%s%s", r.status, r.out, r.err);
    cr_expect(strstr(r.out, "115 checks, 0 failed"), "%s", r.out); /* 23 x 5 */
    cr_expect_str_empty(r.err, "%s", r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(qd);
}

static char *out_text(const char *dir) {
    char *p = xasprintf("%s/out", dir), *t = read_text(p, NULL);
    free(p);
    cr_assert(t);
    return t;
}

/* Quadrants' form: arrays allocated with needs_grad=True, kernels with plain ndarray
 * annotations, k.grad(...) called with the same arguments. The companion's parameters and the
 * metadata's "grad_of" of each adjoint array; an array read only for its shape and an integer
 * array get no adjoint; x.grad in a kernel is its own parameter. */
static const char quadrants_src[] =
    "import quadrants as qd\n\n"
    "@qd.kernel\n"
    "def k(a: qd.types.ndarray(), b: qd.types.ndarray(), p: qd.types.ndarray(), arr: qd.types.ndarray()):\n"
    "    for i in range(arr.shape[0]):\n"
    "        p[i] = a[i] * a[i] + b[i]\n\n"
    "@qd.kernel\n"
    "def peek(x: qd.types.ndarray(), s: qd.types.ndarray()):\n"
    "    for i in x:\n"
    "        s[None] += x.grad[i]\n\n"
    "def test_it():\n"
    "    a = qd.ndarray(qd.f32, shape=10, needs_grad=True)\n"
    "    b = qd.ndarray(qd.i32, shape=10)\n"
    "    p = qd.ndarray(qd.f32, shape=10, needs_grad=True)\n"
    "    arr = qd.ndarray(qd.f32, shape=10)\n"
    "    s = qd.ndarray(qd.f32, shape=(), needs_grad=True)\n"
    "    k(a, b, p, arr)\n"
    "    k.grad(a, b, p, arr)\n"
    "    peek(a, s)\n";

Test(autodiff_ndarray, abi_metadata_and_header, .timeout = 120) {
    char *dir;
    RunResult r = qdc_in_temp("ad.py", quadrants_src, "--emit=metadata", "--target=x86_64", &dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    /* reading an adjoint array is not differentiable: Quadrants' RuntimeError at peek.grad */
    cr_expect(strstr(r.err, "ad.py:11:20: warning[QD2112]: kernel 'peek__f32_1d__f32_0d' gets no gradient kernel 'peek__f32_1d__f32_0d_grad': Cannot "
                            "automatically differentiate through a grad tensor, if you really want to do that, pass the grad tensor into the "
                            "kernel directly ('x_grad' is the adjoint of 'x')"),
              "%s", r.err);
    char *m = out_text(dir);
    static const char *const want[] = {
        "{\"name\": \"k__f32_1d__i32_1d__f32_1d__f32_1d_grad\", \"grad_of\": \"k__f32_1d__i32_1d__f32_1d__f32_1d\",\n     \"params\": [{\"name\": \"a\", \"kind\": \"ndarray\", \"dtype\": \"f32\", "
        "\"ndim\": 1}, {\"name\": \"b\", \"kind\": \"ndarray\", \"dtype\": \"i32\", \"ndim\": 1}, {\"name\": \"p\", \"kind\": \"ndarray\", "
        "\"dtype\": \"f32\", \"ndim\": 1}, {\"name\": \"arr\", \"kind\": \"ndarray\", \"dtype\": \"f32\", \"ndim\": 1}, {\"name\": \"a_grad\", "
        "\"kind\": \"ndarray\", \"dtype\": \"f32\", \"ndim\": 1, \"grad_of\": \"a\"}, {\"name\": \"p_grad\", \"kind\": \"ndarray\", \"dtype\": "
        "\"f32\", \"ndim\": 1, \"grad_of\": \"p\"}],",
        "{\"name\": \"peek__f32_1d__f32_0d\",\n     \"params\": [{\"name\": \"x\", \"kind\": \"ndarray\", \"dtype\": \"f32\", \"ndim\": 1}, {\"name\": "
        "\"s\", \"kind\": \"ndarray\", \"dtype\": \"f32\", \"ndim\": 0}, {\"name\": \"x_grad\", \"kind\": \"ndarray\", \"dtype\": \"f32\", "
        "\"ndim\": 1, \"grad_of\": \"x\"}],",
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) cr_expect(strstr(m, want[k]), "no\n%s\nin:\n%s", want[k], m);
    cr_expect(!strstr(m, "\"arr_grad\"") && !strstr(m, "\"b_grad\"") && !strstr(m, "peek__f32_1d__f32_0d_grad"), "%s", m);
    free(m);
    run_free(&r);
    remove_tree(dir);
    free(dir);
    r = qdc_in_temp("ad.py", quadrants_src, "--emit=header", "--target=x86_64", &dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *h = out_text(dir);
    cr_expect(strstr(h, "float *a_grad;") && strstr(h, "int32_t a_grad_shape[1];") && strstr(h, "float *p_grad;"), "%s", h);
    cr_expect(strstr(h, "static inline int k__f32_1d__i32_1d__f32_1d__f32_1d_grad(const k__f32_1d__i32_1d__f32_1d__f32_1d_grad_args *args, int nthreads)"), "%s", h);
    free(h);
    run_free(&r);
    remove_tree(dir);
    free(dir);
    /* the same companion for SPIR-V: the adjoint arrays are bindings after the primal's */
    r = qdc_in_temp("ad.py", quadrants_src, "--emit=metadata", "--target=vulkan1.3", &dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    m = out_text(dir);
    cr_expect(strstr(m, "{\"name\": \"a_grad\", \"dtype\": \"f32\", \"kind\": \"ndarray\", \"ndim\": 1, \"set\": 0, \"binding\": 4, "
                        "\"grad_of\": \"a\"}"),
              "%s", m);
    free(m);
    run_free(&r);
    remove_tree(dir);
    free(dir);
}

/* Located refusals: needs_grad=True on an integer ndarray (Quadrants' message), x.grad of an
 * integer ndarray parameter, x.grad.grad; outside pytest.raises only. */
Test(autodiff_ndarray, refusals_are_located) {
    static const char src[] = "import quadrants as qd\n\n"
                              "@qd.kernel\n"
                              "def k(a: qd.types.ndarray(qd.i32, ndim=1), f: qd.types.ndarray(qd.f32, ndim=1)):\n"
                              "    for i in a:\n"
                              "        a[i] = a.grad[i]\n"
                              "        f[i] = f.grad.grad[i]\n\n"
                              "@qd.kernel\n"
                              "def h(b: qd.types.ndarray(qd.i32, ndim=1, needs_grad=True)):\n"
                              "    pass\n\n"
                              "def test_x():\n"
                              "    x = qd.ndarray(qd.i32, shape=3, needs_grad=True)\n"
                              "    k(x, qd.ndarray(qd.f32, shape=3))\n";
    char *dir;
    RunResult r = qdc_in_temp("ad.py", src, "--emit=metadata", NULL, &dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    static const char *const want[] = {
        "ad.py:6:16: error[QD2152]: i32 is not supported for ndarray with `needs_grad=True` or `needs_dual=True`.\n",
        "ad.py:7:16: error[QD2153]: 'f_grad' is the adjoint of ndarray 'f': it has no gradient of its own\n",
        "ad.py:10:43: error[QD2152]: i32 is not supported for ndarray with `needs_grad=True` or `needs_dual=True`.\n",
        "ad.py:14:48: error[QD2152]: i32 is not supported for ndarray with `needs_grad=True` or `needs_dual=True`.\n",
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) cr_expect(strstr(r.err, want[k]), "no\n%s\nin:\n%s", want[k], r.err);
    char *o = xasprintf("%s/out", dir);
    cr_expect(access(o, F_OK) != 0, "an output file was written");
    free(o);
    run_free(&r);
    remove_tree(dir);
    free(dir);
    static const char raises[] = "import pytest\nimport quadrants as qd\n\n"
                                 "@qd.kernel\ndef k(a: qd.types.ndarray()):\n    for i in a:\n        a[i] = 1.0\n\n"
                                 "def test_x():\n    with pytest.raises(RuntimeError):\n        qd.ndarray(qd.i32, shape=3, needs_grad=True)\n"
                                 "    k(qd.ndarray(qd.f32, shape=3))\n";
    r = qdc_in_temp("ad.py", raises, "--emit=metadata", NULL, &dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir);
}

/* f32 on lavapipe: k's forward kernel, then k_grad with loss's adjoint 1, against the exact
 * gradient: x_grad[i] = w[i] (sin x + x cos x) + 2 x[i] (the gather through idx adds w), and
 * loss's adjoint kept (an atomic add). */
Test(autodiff_ndarray, lavapipe_gradients_match_exact, .timeout = 300) {
    static const char src[] = "import quadrants as qd\n\n"
                              "A = qd.types.ndarray(qd.f32, ndim=1, needs_grad=True)\n\n"
                              "@qd.kernel\n"
                              "def k(x: A, w: A, y: A, loss: A):\n"
                              "    for i in x:\n"
                              "        y[i] = qd.sin(x[i]) * x[i]\n"
                              "        loss[0] += y[i] * w[i] + x[i] * x[i]\n";
    char *dir = make_temp_dir(), *qd = xasprintf("%s/ad.py", dir), *spv = xasprintf("%s/ad.spv", dir), *mf = xasprintf("%s/ad.json", dir);
    cr_assert(write_text(qd, src));
    RunResult r = run_qdc("--target=vulkan1.2", qd, "-o", spv, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_qdc("--target=vulkan1.2", "--emit=metadata", qd, "-o", mf, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *meta = read_text(mf, NULL);
    cr_assert(meta);
    enum { N = 200 };
    static float x[N], w[N], y[N], loss[1], xg[N], wg[N], yg[N], lg[1];
    for (int i = 0; i < N; i++) x[i] = (float)(0.01 * i - 0.5), w[i] = (float)(0.3 + 0.002 * i);
    VkArray fw[4] = {{x, sizeof x, N}, {w, sizeof w, N}, {y, sizeof y, N}, {loss, sizeof loss, 1}};
    const char *kf[] = {"k"}, *kg[] = {"k_grad"};
    char *err = NULL;
    int rc = vk_run(dir, spv, meta, kf, 1, fw, 4, NULL, N, VK_FULL, true, &err);
    cr_assert_neq(rc, -1, "%s", err ? err : "");
    free(err), err = NULL;
    if (rc == 1) {
        double want = 0;
        for (int i = 0; i < N; i++) want += sin(x[i]) * x[i] * w[i] + (double)x[i] * x[i];
        cr_expect(fabs(loss[0] - want) <= 1e-3 * (1 + fabs(want)), "loss %.7g, expected %.7g", loss[0], want);
        lg[0] = 1;
        VkArray bw[8] = {{x, sizeof x, N}, {w, sizeof w, N}, {y, sizeof y, N}, {loss, sizeof loss, 1},
                         {xg, sizeof xg, N}, {wg, sizeof wg, N}, {yg, sizeof yg, N}, {lg, sizeof lg, 1}};
        rc = vk_run(dir, spv, meta, kg, 1, bw, 8, NULL, N, VK_FULL, true, &err);
        cr_assert_neq(rc, -1, "%s", err ? err : "");
        free(err);
        for (int i = 0; rc == 1 && i < N; i++) {
            double a = x[i], gx = w[i] * (sin(a) + a * cos(a)) + 2 * a, gw = sin(a) * a;
            cr_expect(fabs(xg[i] - gx) <= 1e-4 * (1 + fabs(gx)), "x_grad[%d]: lavapipe %.7g, exact %.9g", i, xg[i], gx);
            cr_expect(fabs(wg[i] - gw) <= 1e-4 * (1 + fabs(gw)), "w_grad[%d]: lavapipe %.7g, exact %.9g", i, wg[i], gw);
            cr_expect(yg[i] == 0.0f, "y_grad[%d] %g", i, yg[i]);
        }
        cr_expect(rc != 1 || lg[0] == 1.0f, "loss_grad %g", lg[0]);
    }
    free(meta), free(qd), free(spv), free(mf);
    remove_tree(dir);
    free(dir);
}

/* k.grad(args) is a call site as k(args) is: a generic kernel called only through .grad (a
 * backward pass from stored adjoints, as Quadrants' test_hash_encoder_simple) is instantiated
 * with those arguments, and a kernel call Quadrants rejects is rejected there too. */
Test(autodiff_ndarray, grad_call_instantiates) {
    static const char src[] = "import quadrants as qd\n\n"
                              "@qd.kernel\n"
                              "def enc(table: qd.types.ndarray(), out: qd.types.ndarray()):\n"
                              "    for level in range(1):\n"
                              "        out[0, 0] = table[0] * 2.0\n\n"
                              "def test_x():\n"
                              "    table = qd.ndarray(shape=(1), dtype=qd.f32, needs_grad=True)\n"
                              "    out = qd.ndarray(shape=(1, 1), dtype=qd.f32, needs_grad=True)\n"
                              "    enc.grad(table, out)\n";
    char *dir;
    RunResult r = qdc_in_temp("ad.py", src, "--emit=metadata", NULL, &dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *m = out_text(dir);
    cr_expect(strstr(m, "{\"name\": \"enc__f32_1d__f32_2d_grad\", \"grad_of\": \"enc__f32_1d__f32_2d\",") &&
                  strstr(m, "{\"name\": \"table_grad\", \"kind\": \"ndarray\", \"dtype\": \"f32\", \"ndim\": 1, \"grad_of\": \"table\"}, "
                            "{\"name\": \"out_grad\", \"kind\": \"ndarray\", \"dtype\": \"f32\", \"ndim\": 2, \"grad_of\": \"out\"}]"),
              "%s", m);
    free(m);
    run_free(&r);
    remove_tree(dir);
    free(dir);
    static const char bad[] = "import quadrants as qd\n\n"
                              "@qd.kernel\n"
                              "def enc(table: qd.types.ndarray(), out: qd.types.ndarray()):\n"
                              "    out[0, 0] = table[0] * 2.0\n\n"
                              "def test_x():\n"
                              "    table = qd.ndarray(shape=(1), dtype=qd.f32, needs_grad=True)\n"
                              "    enc.grad(table)\n";
    r = qdc_in_temp("ad.py", bad, "--emit=metadata", NULL, &dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "ad.py:9:5: error[QD2069]"), "%s", r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir);
}

/* Every family compiles the companion with its adjoint arrays; the accumulations into them are
 * atomics the capability database lowers (native or CAS), marked in --report-lowering. */
Test(autodiff_ndarray, every_family_compiles_companions, .timeout = 120) {
    static const TargetLine fam[] = {
        {"x86_64", "cas          adjoint accumulation in k_grad: CAS loop computing add on the integer bits"},
        {"sm_90", "native       adjoint accumulation in k_grad: atom.add.f32"},
        {"gfx942", "native       adjoint accumulation in k_grad: global_atomic_add_f32"},
        {"vulkan1.1", "cas          adjoint accumulation in k_grad: CAS loop computing add on the integer bits"},
        {"vulkan1.3", "adjoint accumulation in k_grad:"},
        {"apple7", "adjoint accumulation in k_grad:"},
        {"apple9", "adjoint accumulation in k_grad:"},
    };
    static const char src[] = "import quadrants as qd\n\n"
                              "A = qd.types.ndarray(qd.f32, ndim=1, needs_grad=True)\n\n"
                              "@qd.kernel\n"
                              "def k(x: A, loss: A):\n"
                              "    for i in x:\n"
                              "        loss[0] += qd.sin(x[i]) * x[i // 2]\n"; /* not loop-unique: atomic adjoints */
    expect_lowering_report(src, fam, sizeof fam / sizeof *fam);
}

/* Which ndarray parameters get an adjoint array in <kernel>_grad: Quadrants' rule per launch
 * (_template_mapper_hotpath.py: the annotation's needs_grad= where given, else whether the array
 * passed has a gradient, a qd.ndarray's needs_grad=True or a torch tensor's requires_grad=True);
 * where no call qdc evaluates decides, every float ndarray of a script that allocates one with
 * needs_grad=True. */
static char *grad_header(const char *src) {
    char *dir;
    RunResult r = qdc_in_temp("ad.py", src, "--emit=header", "--target=x86_64", &dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char *h = r.status == 0 ? out_text(dir) : xstrdup("");
    run_free(&r);
    remove_tree(dir);
    free(dir);
    return h;
}

Test(autodiff_ndarray, companion_arrays_follow_the_arguments_gradients, .timeout = 120) {
#define KSRC(ann) "import quadrants as qd\nimport torch\n\n@qd.kernel\ndef k(a: qd.types.ndarray(), b: " ann ", p: qd.types.ndarray()):\n" \
                  "    for i in a:\n        p[0] += a[i] * b[i]\n\n\n"
    char *h = grad_header(KSRC("qd.types.ndarray()") "a = qd.ndarray(qd.f32, shape=4, needs_grad=True)\nb = qd.ndarray(qd.f32, shape=4)\n"
                          "p = qd.ndarray(qd.f32, shape=1, needs_grad=True)\nk(a, b, p)\nk.grad(a, b, p)\n");
    cr_expect(strstr(h, "float *a_grad;") && strstr(h, "float *p_grad;") && !strstr(h, "b_grad"), "%s", h); /* b has no gradient */
    free(h);
    h = grad_header(KSRC("qd.types.ndarray()") "a = torch.ones(4, requires_grad=True)\nb = torch.ones(4)\np = torch.zeros(1, requires_grad=True)\n"
                    "k(a, b, p)\nk.grad(a, b, p)\n");
    cr_expect(strstr(h, "float *a_grad;") && strstr(h, "float *p_grad;") && !strstr(h, "b_grad"), "%s", h); /* torch's requires_grad */
    free(h);
    h = grad_header(KSRC("qd.types.ndarray(needs_grad=False)") "a = qd.ndarray(qd.f32, shape=4, needs_grad=True)\n"
                    "b = qd.ndarray(qd.f32, shape=4, needs_grad=True)\np = qd.ndarray(qd.f32, shape=1, needs_grad=True)\nk(a, b, p)\nk.grad(a, b, p)\n");
    cr_expect(strstr(h, "float *a_grad;") && strstr(h, "float *p_grad;") && !strstr(h, "b_grad"), "%s", h); /* the annotation decides */
    free(h);
    h = grad_header(KSRC("qd.types.ndarray()") "a = qd.ndarray(qd.f32, shape=4, needs_grad=True)\nb = qd.ndarray(qd.f32, shape=4)\n"
                    "p = qd.ndarray(qd.f32, shape=1, needs_grad=True)\nk(a, b, p)\nk(b, a, p)\nk.grad(a, b, p)\n");
    cr_expect(strstr(h, "float *a_grad;") && strstr(h, "float *b_grad;") && strstr(h, "float *p_grad;"), "%s", h); /* one call each way */
    free(h);
    h = grad_header("import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(qd.f32, ndim=1), b: qd.types.ndarray(qd.f32, ndim=1)):\n"
                    "    for i in a:\n        b[0] += a[i]\n\n\nx = qd.ndarray(qd.f32, shape=4, needs_grad=True)\n");
    cr_expect(strstr(h, "float *a_grad;") && strstr(h, "float *b_grad;"), "%s", h); /* no call: the module's rule */
    free(h);
#undef KSRC
}
