/* Reverse-mode autodiff (issue 31, ir/autodiff.c): gradient storage in the ABI, the <kernel>_grad
 * companions, and their truth: every differentiable operation, control flow and a two-kernel
 * chain run forward and backward on x86-64 (4 worker threads) in f64 and compared with central
 * finite differences of the forward kernels and with the analytic derivatives. */
#include "../../support/util.h"
#include "harness.h"
#include "test_x86.h"
#include "vk_exec.h"
#include <math.h>
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One differentiated operation: a kernel body computing r from a = x[i], b = w[i] (loss is the
 * sum of r), and dr/da, dr/db in C (NULL: only the finite difference is known). */
typedef struct {
    const char *name, *body, *da, *db;
} AdOp;

static const AdOp ops[] = {
    {"add", "r = a + b", "1", "1"},
    {"sub", "r = a - b", "1", "-1"},
    {"mul", "r = a * b", "b", "a"},
    {"div", "r = a / b", "1 / b", "-a / (b * b)"},
    {"pow", "r = a ** b", "b * pow(a, b - 1)", "log(a) * pow(a, b)"},
    {"powc", "r = a ** 3 * b", "3 * a * a * b", "a * a * a"},
    {"neg", "r = -a * b", "-b", "-a"},
    {"sin", "r = qd.sin(a) * b", "cos(a) * b", "sin(a)"},
    {"cos", "r = qd.cos(a * b)", "-sin(a * b) * b", "-sin(a * b) * a"},
    {"tan", "r = qd.tan(a) + b", "1 + tan(a) * tan(a)", "1"},
    {"tanh", "r = qd.tanh(a * b)", "(1 - tanh(a * b) * tanh(a * b)) * b", "(1 - tanh(a * b) * tanh(a * b)) * a"},
    {"exp", "r = qd.exp(a * b)", "exp(a * b) * b", "exp(a * b) * a"},
    {"log", "r = qd.log(a + b)", "1 / (a + b)", "1 / (a + b)"},
    {"sqrt", "r = qd.sqrt(a * b)", "0.5 / sqrt(a * b) * b", "0.5 / sqrt(a * b) * a"},
    {"rsqrt", "r = qd.rsqrt(a + b)", "-0.5 * pow(a + b, -1.5)", "-0.5 * pow(a + b, -1.5)"},
    {"asin", "r = qd.asin(a) * b", "b / sqrt(1 - a * a)", "asin(a)"},
    {"acos", "r = qd.acos(a) * b", "-b / sqrt(1 - a * a)", "acos(a)"},
    {"atan", "r = qd.atan(a * b)", "b / (1 + a * a * b * b)", "a / (1 + a * a * b * b)"},
    {"atan2", "r = qd.atan2(a, b)", "b / (a * a + b * b)", "-a / (a * a + b * b)"},
    {"min", "r = qd.min(a, 1.0 - b)", "a < 1 - b ? 1 : 0", "a < 1 - b ? 0 : -1"},
    {"max", "r = qd.max(a, 1.0 - b)", "1 - b < a ? 1 : 0", "1 - b < a ? 0 : -1"},
    {"abs", "r = abs(a - 0.52) * b", "(a > 0.522 ? 1 : -1) * b", "fabs(a - 0.52)"},
    {"select", "r = qd.select(a > 0.52, a * b, a + b)", "a > 0.52 ? b : 1", "a > 0.52 ? a : 1"},
    {"ternary", "r = a * b if a > 0.52 else a - b", "a > 0.52 ? b : 1", "a > 0.52 ? a : -1"},
    {"floor", "r = qd.floor(a * 7.0 + 0.13) + a * b", "b", "a"},
    {"cast", "r = qd.cast(qd.cast(a, qd.f32), qd.f64) * b", "b", "(double)(float)a"}, /* through f32: analytic only */
    {"if", "t = a\n        if a > 0.52:\n            t = a * a\n        else:\n            t = a * b\n        r = t * b", "a > 0.52 ? 2 * a * b : b * b",
     "a > 0.52 ? a * a : 2 * a * b"},
    {"func", "r = sq(a, b) + sq(b, a)", "2 * a * b + b * b", "a * a + 2 * a * b"},
    {"loop", "t = a\n        for j in range(3):\n            t = t * b + 1.0\n        r = t", "b * b * b", "3 * a * b * b + 2 * b + 1"},
    {"static", "t = a\n        for j in qd.static(range(2)):\n            t = t * t + b\n        r = t", "4 * a * (a * a + b)",
     "2 * (a * a + b) + 1"},
    {"dynloop", "r = 0.0\n        for j in range(cnt[None]):\n            loss[None] += a * b * w[j]", NULL, NULL},
    {"accum", "s = qd.f64(0.0)\n        for j in range(cnt[None]):\n            s += a * w[j]\n        r = s * b", NULL, NULL},
    {"accum2", "s = qd.f64(1.0)\n        for j in range(cnt[None]):\n            u = qd.sin(a * w[j])\n            s = s + u * u\n            s -= a\n        r = s * s * b", NULL, NULL},
    {"nested", "s = qd.f64(0.0)\n        for j in range(cnt[None]):\n            t = qd.f64(0.0)\n            for k in range(cnt[None]):\n"
               "                t += w[k] * a\n            s += t * w[j]\n        r = s * b", NULL, NULL},
    /* the ad stack (run-time trip count, locals carried from one iteration to the next, cnt 3) */
    {"dynpow", "t = qd.f64(1.0)\n        for j in range(cnt[None]):\n            t = t * a\n        r = t * b", "3 * a * a * b", "a * a * a"},
    {"fib", "p = a\n        q = b\n        for j in range(cnt[None]):\n            p, q = q, p + q\n        r = q * q", "4 * (2 * a + 3 * b)",
     "6 * (2 * a + 3 * b)"},
    {"dynnl", "t = a\n        for j in range(cnt[None]):\n            t = qd.sin(t * b) + w[j] * t\n        r = t", NULL, NULL},
    {"dyndbl", "t = a\n        for j in range(cnt[None]):\n            for k in range(j + 1):\n                t = t * t * b + w[k]\n"
               "            t = qd.tanh(t)\n        r = t", NULL, NULL},
    {"dynidx", "p = 0\n        s = qd.f64(0.0)\n        for j in range(cnt[None]):\n            s += qd.sin(a * w[p]) * b\n            p += 2\n"
               "        r = s", NULL, NULL},
    {"dynlast", "u = qd.f64(0.0)\n        for jj in range(cnt[None]):\n            j = cnt[None] + 1 - jj\n            if u < a:\n                u = qd.exp(a * w[j]) - u\n"
                "        r = u * b", NULL, NULL},
    {"vec", "v = qd.Vector([a, b])\n        m = qd.Matrix([[a, b], [b, a]])\n        r = (m @ v).dot(v)", "3 * a * a + 3 * b * b", "6 * a * b"},
    {"store", "y[i] = a * b\n        r = y[i] * y[i]", "2 * a * b * b", "2 * a * a * b"},
    /* qd.stop_grad(f): loads of f in the block of the call and the blocks inside it are constants to
     * autodiff, before the call as after it (Quadrants' Block::stop_gradients, make_adjoint.cpp and
     * make_dual.cpp gradients_stopped): w's gradient is 0, and x loaded in the branch adds none;
     * the finite difference of the stopped field is not the gradient, so only the other's is compared */
    {"stop", "r = a * b * b\n        qd.stop_grad(w)", "b * b", "0"},
    {"stopif", "r = a * b\n        if a > 0.52:\n            qd.stop_grad(x)\n            r += x[i] * b", "b", "a > 0.52 ? 2 * a : a"},
};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

static char *module_source(void) {
    char *s = xstrdup("import quadrants as qd\n\nN = 12\nx = qd.field(qd.f64, shape=N, needs_grad=True)\n"
                      "w = qd.field(qd.f64, shape=N, needs_grad=True)\ny = qd.field(qd.f64, shape=N, needs_grad=True)\n"
                      "loss = qd.field(qd.f64, shape=(), needs_grad=True)\ncnt = qd.field(qd.i32, shape=())\n\n"
                      "@qd.func\ndef sq(u, v):\n    return u * u * v\n\n"
                      "@qd.kernel\ndef chain1():\n    for i in x:\n        y[i] = qd.sin(x[i]) * w[i]\n\n"
                      "@qd.kernel\ndef chain2():\n    for i in y:\n        loss[None] += y[i] ** 2\n\n"
                      "@qd.kernel\ndef kinks():\n    for i in x:\n        loss[None] += abs(x[i]) + qd.max(x[i], w[i]) + qd.min(x[i], w[i])\n");
    for (int k = 0; k < NOPS; k++) {
        char *prev = s;
        s = xasprintf("%s\n@qd.kernel\ndef k_%s():\n    for i in x:\n        a = x[i]\n        b = w[i]\n        %s\n        loss[None] += r\n", prev,
                      ops[k].name, ops[k].body);
        free(prev);
    }
    return s;
}

static const char host_head[] =
    "#include \"d.h\"\n#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
    "#define N 12\n#define H 1e-6\nstatic int fails, checks;\n"
    "#define RUN(k) do { k##_args args_; memset(&args_, 0, sizeof args_); if (k(&args_, 4)) exit(2); } while (0)\n"
    "static void init(void) {\n"
    "    for (int i = 0; i < N; i++) qd_field_x[i] = 0.2 + 0.05 * i, qd_field_w[i] = 0.3 + 0.06 * i;\n"
    "    memset(qd_field_y, 0, sizeof qd_field_y), memset(qd_field_x_grad, 0, sizeof qd_field_x_grad);\n"
    "    memset(qd_field_w_grad, 0, sizeof qd_field_w_grad), memset(qd_field_y_grad, 0, sizeof qd_field_y_grad);\n"
    "    qd_field_loss = 0, qd_field_loss_grad = 0, qd_field_cnt = 3;\n}\n"
    "static double fd(double *p, double (*f)(void)) {\n"
    "    double s = *p; *p = s + H; double lp = f(); *p = s - H; double lm = f(); *p = s; return (lp - lm) / (2 * H);\n}\n"
    "static void cmp(const char *op, int i, const char *what, double got, double want) {\n"
    "    checks++;\n"
    "    if (!(fabs(got - want) <= 1e-6 * (1 + fabs(want)))) fails++, printf(\"FAIL %s %s[%d]: gradient %.12g, expected %.12g\\n\", op, what, i, got, want);\n}\n"
    "static double chain(void) { qd_field_loss = 0; RUN(chain1); RUN(chain2); return qd_field_loss; }\n";

static void add(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(char **s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *more = NULL;
    cr_assert(vasprintf(&more, fmt, ap) >= 0);
    va_end(ap);
    char *prev = *s;
    *s = xasprintf("%s%s", prev, more);
    free(prev), free(more);
}

static char *host_source(void) {
    char *s = xstrdup(host_head);
    for (int k = 0; k < NOPS; k++) {
        const AdOp *o = &ops[k];
        add(&s, "static double f_%s(void) { qd_field_loss = 0; RUN(k_%s); return qd_field_loss; }\n"
                "static void t_%s(void) {\n    init(); f_%s(); qd_field_loss_grad = 1; RUN(k_%s_grad);\n"
                "    for (int i = 0; i < N; i++) {\n        double a = qd_field_x[i], b = qd_field_w[i]; (void)a, (void)b;\n"
                "        double gx = qd_field_x_grad[i], gw = qd_field_w_grad[i];\n",
            o->name, o->name, o->name, o->name, o->name);
        if (strcmp(o->name, "cast") && strcmp(o->name, "stopif")) /* through f32, x stopped: the analytic value only */
            add(&s, "        cmp(\"%s fd\", i, \"x\", gx, fd(&qd_field_x[i], f_%s));\n", o->name, o->name);
        if (strcmp(o->name, "cast") && strcmp(o->name, "stop"))
            add(&s, "        cmp(\"%s fd\", i, \"w\", gw, fd(&qd_field_w[i], f_%s));\n", o->name, o->name);
        if (o->da) add(&s, "        cmp(\"%s\", i, \"x\", gx, %s);\n        cmp(\"%s\", i, \"w\", gw, %s);\n", o->name, o->da, o->name, o->db);
        add(&s, "        printf(\"G %s %%d %%.17g %%.17g\\n\", i, gx, gw);\n", o->name);
        add(&s, "    }\n}\n");
    }
    add(&s, "int main(void) {\n");
    for (int k = 0; k < NOPS; k++) add(&s, "    t_%s();\n", ops[k].name);
    add(&s, "    init(); chain(); qd_field_loss_grad = 1; RUN(chain2_grad); RUN(chain1_grad);\n"
            "    for (int i = 0; i < N; i++) {\n        double a = qd_field_x[i], b = qd_field_w[i];\n"
            "        cmp(\"chain fd\", i, \"x\", qd_field_x_grad[i], fd(&qd_field_x[i], chain));\n"
            "        cmp(\"chain fd\", i, \"w\", qd_field_w_grad[i], fd(&qd_field_w[i], chain));\n"
            "        cmp(\"chain\", i, \"x\", qd_field_x_grad[i], 2 * sin(a) * b * cos(a) * b);\n"
            "        cmp(\"chain\", i, \"w\", qd_field_w_grad[i], 2 * sin(a) * b * sin(a));\n"
            "        cmp(\"chain\", i, \"y\", qd_field_y_grad[i], 0);\n"
            "        printf(\"G chain %%d %%.17g %%.17g\\n\", i, qd_field_x_grad[i], qd_field_w_grad[i]);\n    }\n"
            "    init(); memset(qd_field_x, 0, sizeof qd_field_x), memset(qd_field_w, 0, sizeof qd_field_w);\n"
            "    RUN(kinks); qd_field_loss_grad = 1; RUN(kinks_grad);\n"
            "    for (int i = 0; i < N; i++) cmp(\"kinks\", i, \"x\", qd_field_x_grad[i], 0), cmp(\"kinks\", i, \"w\", qd_field_w_grad[i], 2);\n"
            "    printf(\"%%d checks, %%d failed\\n\", checks, fails);\n    return fails != 0;\n}\n");
    return s;
}

/* The x86 run: its output ("G op i dx dw" lines, then "N checks, M failed"), or NULL after a
 * test failure. */
static char *x86_reference(void) {
    char *dir = make_temp_dir(), *qd = xasprintf("%s/ad.py", dir), *src = module_source(), *host = host_source();
    cr_assert(write_text(qd, src));
    RunResult r = x86_compile_and_run(dir, qd, "--target=x86_64", host, NULL, NULL);
    cr_expect_eq(r.status, 0, "status %d\n%s%s", r.status, r.out, r.err);
    char *out = r.status == 0 ? xstrdup(r.out) : NULL;
    run_free(&r);
    remove_tree(dir);
    free(dir), free(qd), free(src), free(host);
    return out;
}

Test(autodiff, x86_gradients_match_finite_differences, .timeout = 240) {
    if (!x86_have_runtime()) return;
    char *out = x86_reference();
    cr_assert(out);
    cr_expect(strstr(out, ", 0 failed") && !strstr(out, "FAIL"), "%s", out);
    free(out);
}

/* The same kernels in f32 on lavapipe: each op's forward and gradient kernels between a kernel
 * that loads x, w and seeds loss.grad and one that copies the gradients into the ndarray io;
 * compared with the x86 f64 gradients (themselves checked against finite differences). */
#define VN 12
static char *vulkan_source(void) {
    char *s = xstrdup("import quadrants as qd\n\nN = 12\nIO = qd.types.ndarray(qd.f32, ndim=1)\n"
                      "x = qd.field(qd.f32, shape=N, needs_grad=True)\nw = qd.field(qd.f32, shape=N, needs_grad=True)\n"
                      "y = qd.field(qd.f32, shape=N, needs_grad=True)\nloss = qd.field(qd.f32, shape=(), needs_grad=True)\n"
                      "cnt = qd.field(qd.i32, shape=())\n\n@qd.func\ndef sq(u, v):\n    return u * u * v\n\n"
                      "@qd.kernel\ndef load(io: IO):\n    for i in x:\n        x[i] = io[i]\n        w[i] = io[N + i]\n"
                      "        x.grad[i] = 0.0\n        w.grad[i] = 0.0\n        y[i] = 0.0\n        y.grad[i] = 0.0\n"
                      "    loss[None] = 0.0\n    loss.grad[None] = 1.0\n    cnt[None] = 3\n\n"
                      "@qd.kernel\ndef chain1(io: IO):\n    for i in x:\n        y[i] = qd.sin(x[i]) * w[i]\n\n"
                      "@qd.kernel\ndef chain2(io: IO):\n    for i in y:\n        loss[None] += y[i] ** 2\n");
    for (int k = 0; k <= NOPS; k++) {
        if (k < NOPS) {
            char *body = xstrdup(ops[k].body);
            for (char *p = strstr(body, "qd.f64"); p; p = strstr(p, "qd.f64")) p[4] = '3', p[5] = '2';
            add(&s, "\n@qd.kernel\ndef k_%s(io: IO):\n    for i in x:\n        a = x[i]\n        b = w[i]\n        %s\n        loss[None] += r\n",
                ops[k].name, body);
            free(body);
        }
        add(&s, "\n@qd.kernel\ndef dump_%d(io: IO):\n    for i in x:\n        io[%d + i] = x.grad[i]\n        io[%d + i] = w.grad[i]\n", k,
            (2 + 2 * k) * VN, (3 + 2 * k) * VN);
    }
    return s;
}

Test(autodiff, lavapipe_gradients_match_x86, .timeout = 300) {
    if (!x86_have_runtime()) return;
    char *ref = x86_reference();
    cr_assert(ref);
    char *dir = make_temp_dir(), *qd = xasprintf("%s/ad.py", dir), *spv = xasprintf("%s/ad.spv", dir), *mf = xasprintf("%s/ad.json", dir);
    char *src = vulkan_source();
    cr_assert(write_text(qd, src));
    RunResult r = run_qdc("--target=vulkan1.2", qd, "-o", spv, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_qdc("--target=vulkan1.2", "--emit=metadata", qd, "-o", mf, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *meta = read_text(mf, NULL);
    cr_assert(meta);
    size_t nio = (size_t)(2 + 2 * (NOPS + 1)) * VN;
    float *io = calloc(nio, sizeof *io);
    for (int i = 0; i < VN; i++) io[i] = (float)(0.2 + 0.05 * i), io[VN + i] = (float)(0.3 + 0.06 * i);
    for (int first = 0; first <= NOPS; first += 8) { /* a few ops per vkrun: its command line has room for them */
        const char *ks[64];
        char *names[64];
        int nk = 0, nn = 0;
        for (int k = first; k < first + 8 && k <= NOPS; k++) {
            const char *op = k < NOPS ? ops[k].name : "chain";
            ks[nk++] = "load";
            if (k < NOPS) {
                ks[nk++] = names[nn++] = xasprintf("k_%s", op);
                ks[nk++] = names[nn++] = xasprintf("k_%s_grad", op);
            } else {
                ks[nk++] = "chain1", ks[nk++] = "chain2", ks[nk++] = "chain2_grad", ks[nk++] = "chain1_grad";
            }
            ks[nk++] = names[nn++] = xasprintf("dump_%d", k);
        }
        VkArray arr[1] = {{io, nio * sizeof *io, (int32_t)nio}};
        char *err = NULL;
        int rc = vk_run(dir, spv, meta, ks, nk, arr, 1, NULL, VN, VK_FULL, true, &err);
        cr_expect_neq(rc, -1, "%s", err ? err : "");
        free(err);
        for (int j = 0; j < nn; j++) free(names[j]);
        if (rc != 1) break;
    }
    int checked = 0;
    for (const char *p = strstr(ref, "G "); p; p = strstr(p + 1, "\nG ")) {
        char op[32];
        int i;
        double gx, gw;
        if (*p == '\n') p++;
        if (sscanf(p, "G %31s %d %lf %lf", op, &i, &gx, &gw) != 4) continue;
        int k = 0;
        while (k < NOPS && strcmp(ops[k].name, op)) k++;
        if (!strcmp(op, "cast")) continue; /* f64 there */
        double vx = io[(2 + 2 * k) * VN + i], vw = io[(3 + 2 * k) * VN + i];
        cr_expect(fabs(vx - gx) <= 2e-3 * (1 + fabs(gx)), "%s x[%d]: lavapipe %.7g, x86 f64 %.12g", op, i, vx, gx);
        cr_expect(fabs(vw - gw) <= 2e-3 * (1 + fabs(gw)), "%s w[%d]: lavapipe %.7g, x86 f64 %.12g", op, i, vw, gw);
        checked++;
    }
    cr_expect_eq(checked, NOPS * VN, "compared %d", checked); /* every op but cast, and the chain */
    free(io), free(meta), free(src), free(qd), free(spv), free(mf), free(ref);
    remove_tree(dir);
    free(dir);
}

static const char gfield[] = "import quadrants as qd\n\nx = qd.field(qd.f32, shape=8, needs_grad=True)\n"
                             "loss = qd.field(qd.f32, shape=(), needs_grad=True)\nn = qd.field(qd.i32, shape=())\n\n";

/* What Quadrants' autodiff refuses, and what qdc does not do yet: a located QD2112 warning in
 * Quadrants' words where it has them, and no companion; the other kernels (s: the ad stack) keep theirs. */
Test(autodiff, refusals_name_the_rule) {
    char *src = xasprintf("%s@qd.kernel\ndef w():\n    for i in x:\n        t = x[i]\n        while t < 10.0:\n            t = t * 2.0\n"
                          "        loss[None] += t\n\n"
                          "@qd.kernel\ndef b():\n    for i in x:\n        for j in range(n[None]):\n            if j > 2:\n                break\n"
                          "            loss[None] += x[j]\n\n"
                          "@qd.kernel\ndef c():\n    for i in x:\n        for j in range(n[None]):\n            if j > 2:\n                continue\n"
                          "            loss[None] += x[j]\n\n"
                          "@qd.kernel\ndef s():\n    for i in x:\n        t = x[i]\n        for j in range(n[None]):\n            t = t * t\n"
                          "        loss[None] += t\n\n"
                          "@qd.kernel\ndef raw():\n    for i in range(7):\n        x[i + 1] = x[i] * 2.0\n\n"
                          "@qd.kernel\ndef m():\n    for i in x:\n        qd.atomic_max(loss[None], x[i])\n\n"
                          "@qd.kernel\ndef ok():\n    for i in x:\n        loss[None] += x[i] * x[i]\n\n"
                          "@qd.ad.no_grad\n@qd.kernel\ndef quiet():\n    for i in x:\n        loss[None] += x[i]\n",
                          gfield);
    char *dir;
    RunResult r = qdc_in_temp("ad.py", src, "--emit=header", NULL, &dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    static const char *const want[] = {
        "ad.py:11:9: warning[QD2112]: kernel 'w' gets no gradient kernel 'w_grad': WhileStmt is not supported in AutoDiff. [-Wno-grad]\n",
        "ad.py:20:17: warning[QD2112]: kernel 'b' gets no gradient kernel 'b_grad': WhileControlStmt (break) is not supported in "
        "AutoDiff. [-Wno-grad]\n",
        "ad.py:28:17: warning[QD2112]: kernel 'c' gets no gradient kernel 'c_grad': ContinueStmt is not supported in AutoDiff. [-Wno-grad]\n",
        "ad.py:42:20: warning[QD2112]: kernel 'raw' gets no gradient kernel 'raw_grad': Cross-iteration read-after-write on the "
        "`needs_grad` global field `x` at the offload-level loop body is not supported in reverse-mode autodiff",
        "ad.py:47:9: warning[QD2112]: kernel 'm' gets no gradient kernel 'm_grad': atomic max on a needs_grad field is not "
        "differentiable (atomic add and sub are) [-Wno-grad]\n",
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) cr_expect(strstr(r.err, want[k]), "no\n%s\nin:\n%s", want[k], r.err);
    char *hp = xasprintf("%s/out", dir), *h = read_text(hp, NULL);
    cr_assert(h);
    cr_expect(strstr(h, "static inline int ok_grad(const ok_grad_args *args, int nthreads)"), "%s", h);
    /* a run-time loop carrying a non-linear local: the ad stack, no warning */
    cr_expect(strstr(h, "static inline int s_grad(const s_grad_args *args, int nthreads)"), "%s", h);
    cr_expect(!strstr(r.err, "'s'"), "%s", r.err);
    static const char *const absent[] = {"w_grad", "b_grad", "c_grad", "raw_grad", "m_grad", "quiet_grad"};
    for (size_t k = 0; k < sizeof absent / sizeof *absent; k++) {
        char *decl = xasprintf(" %s(", absent[k]);
        cr_expect(!strstr(h, decl), "%s is declared:\n%s", absent[k], h);
        free(decl);
    }
    cr_expect(strstr(h, "extern float qd_field_x_grad[8];\n") && strstr(h, "extern float qd_field_loss_grad;\n"), "%s", h);
    free(h), free(hp), free(src);
    run_free(&r);
    remove_tree(dir);
    free(dir);
}

/* The companion compiles for every family; its adjoint accumulations are atomics the database
 * lowers (native or CAS) and the reductions rewrite reduces, as --report-lowering says (x is read
 * at x[i // 2] too: not loop-unique, so its adjoint is an atomic, not demoted). */
Test(autodiff, every_family_compiles_companions, .timeout = 120) {
    static const TargetLine fam[] = {
        {"x86_64", "adjoint accumulation in k_grad: reduced per worker"},
        {"sm_90", "native       adjoint accumulation in k_grad: reduced per subgroup"},
        {"sm_60", "adjoint accumulation in k_grad: atom.add.f32"},
        {"gfx942", "adjoint accumulation in k_grad:"},
        {"vulkan1.1", "cas          adjoint accumulation in k_grad: CAS loop computing add on the integer bits"},
        {"vulkan1.3", "adjoint accumulation in k_grad:"},
        {"apple7", "adjoint accumulation in k_grad:"},
        {"apple9", "adjoint accumulation in k_grad:"},
    };
    char *src = xasprintf("%sp = qd.field(qd.f32, shape=2, needs_grad=True)\n\n@qd.kernel\ndef k():\n    for i in x:\n"
                          "        r = p[0] * x[i] + p[1] * x[i // 2]\n        loss[None] += qd.sin(r) * r\n", gfield);
    expect_lowering_report(src, fam, sizeof fam / sizeof *fam);
    char *dir;
    RunResult r = qdc_in_temp("ad.py", src, "--target=vulkan1.3", "--emit=metadata", &dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *mp = xasprintf("%s/out", dir), *m = read_text(mp, NULL);
    cr_assert(m);
    cr_expect(strstr(m, "{\"name\": \"p\", \"dtype\": \"f32\", \"shape\": [2], \"grad\": \"p_grad\", \"set\": 1, \"binding\": 3}"), "%s", m);
    cr_expect(strstr(m, "\"name\": \"k_grad\", \"grad_of\": \"k\""), "%s", m);
    free(m), free(mp), free(src);
    run_free(&r);
    remove_tree(dir);
    free(dir);
}

/* The ad stack's companion (a run-time loop carrying a non-linear local, inside it a second one
 * and an if on a carried local) compiles for every family to the family's own output, with no
 * warning: it is made of locals, loops and the adjoint atomics, which every backend lowers. */
Test(autodiff, every_family_compiles_ad_stack_companions, .timeout = 180) {
    static const struct { const char *target, *file, *entry; } fam[] = {
        {"x86_64", "ad.o", "s_grad"},        {"sm_90", "ad.ptx", ".entry s_grad_t0("}, {"gfx942", "ad.o", "s_grad_t0"},
        {"vulkan1.1", "ad.spv", "s_grad_t0"}, {"vulkan1.3", "ad.spv", "s_grad_t0"},   {"apple7", "ad.metal", "kernel void s_grad_t0("},
        {"apple9", "ad.metal", "kernel void s_grad_t0("},
    };
    char *src = xasprintf("%s@qd.kernel\ndef s():\n    for i in x:\n        t = x[i]\n        for j in range(n[None]):\n"
                          "            for k in range(j, n[None]):\n                t = qd.sin(t) * t + x[k]\n"
                          "            if t > 1.0:\n                t = t * 0.5\n        loss[None] += t\n", gfield);
    char *dir = make_temp_dir(), *qd = xasprintf("%s/ad.py", dir);
    cr_assert(write_text(qd, src));
    for (size_t f = 0; f < sizeof fam / sizeof *fam; f++) {
        char *tgt = xasprintf("--target=%s", fam[f].target), *out = xasprintf("%s/%s", dir, fam[f].file);
        remove(out);
        RunResult r = run_qdc(tgt, qd, "-o", out, NULL);
        cr_expect_eq(r.status, 0, "%s: %s", fam[f].target, r.err);
        cr_expect_str_empty(r.err, "%s: %s", fam[f].target, r.err);
        size_t len = 0;
        char *bin = read_text(out, &len);
        cr_expect(bin && memmem(bin, len, fam[f].entry, strlen(fam[f].entry)), "%s: no %s in %s", fam[f].target, fam[f].entry, out);
        free(bin), free(tgt), free(out);
        run_free(&r);
    }
    free(src), free(qd);
    remove_tree(dir);
    free(dir);
}

/* A serial task's companion accumulates adjoints with plain loads and stores (one thread): f64
 * on vulkan1.3, which has no f64 atomic add without int64 atomics, differentiates; run on
 * lavapipe, loss = x0 * x1 + x2^3 / x0 at dyadic x gives exact gradients. */
Test(autodiff, serial_task_companion_needs_no_atomics, .timeout = 180) {
    static const char src[] = "import quadrants as qd\n\nIO = qd.types.ndarray(qd.f64, ndim=1)\n"
                              "x = qd.field(qd.f64, shape=3, needs_grad=True)\nloss = qd.field(qd.f64, shape=(), needs_grad=True)\n\n"
                              "@qd.kernel\ndef load(io: IO):\n    for k in range(3):\n        x[k] = io[k]\n        x.grad[k] = 0.0\n"
                              "    loss.grad[None] = 1.0\n\n"
                              "@qd.kernel\ndef ser(io: IO):\n    loss[None] = x[0] * x[1] + x[2] * x[2] * x[2] / x[0]\n\n"
                              "@qd.kernel\ndef dump(io: IO):\n    for k in range(3):\n        io[3 + k] = x.grad[k]\n    io[6] = loss[None]\n";
    char *dir;
    RunResult r = qdc_in_temp("ad.py", src, "--target=vulkan1.3", "--report-lowering", &dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(!strstr(r.out, "ser_grad"), "an atomic in the serial companion:\n%s", r.out);
    run_free(&r);
    char *qd = xasprintf("%s/ad.py", dir), *spv = xasprintf("%s/ad.spv", dir), *mf = xasprintf("%s/ad.json", dir);
    r = run_qdc("--target=vulkan1.3", qd, "-o", spv, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_qdc("--target=vulkan1.3", "--emit=metadata", qd, "-o", mf, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *meta = read_text(mf, NULL), *err = NULL;
    cr_assert(meta);
    double io[8] = {0.5, 1.5, 2.0, 7, 7, 7, 7, 7};
    VkArray arr[1] = {{io, sizeof io, 8}};
    const char *ks[] = {"load", "ser", "ser_grad", "dump"};
    int rc = vk_run(dir, spv, meta, ks, 4, arr, 1, NULL, 8, VK_FULL, true, &err);
    cr_expect_neq(rc, -1, "%s", err ? err : "");
    if (rc == 1) {
        cr_expect(io[6] == 16.75, "loss %.17g", io[6]);
        cr_expect(io[3] == -30.5 && io[4] == 0.5 && io[5] == 24.0, "gradients %.17g %.17g %.17g", io[3], io[4], io[5]);
    }
    free(err), free(meta), free(qd), free(spv), free(mf);
    remove_tree(dir);
    free(dir);
}

/* Quadrants gives every kernel a gradient: a kernel the script differentiates by name (K.grad(),
 * or run inside `with qd.ad.Tape(...)`, in a host function too) gets its companion although it
 * touches no field with an adjoint (a no-op there); a kernel the script does not differentiate
 * gets none. */
Test(autodiff, kernels_the_script_differentiates_get_companions) {
    char *src = xasprintf("%s@qd.kernel\ndef inc():\n    for i in range(8):\n        n[None] += 1\n\n"
                          "@qd.kernel\ndef nothing():\n    for i in range(3):\n        pass\n\n"
                          "@qd.kernel\ndef plain():\n    for i in range(3):\n        pass\n\n"
                          "def test_it():\n    @qd.kernel\n    def inner():\n        for i in range(3):\n            pass\n\n"
                          "    with qd.ad.Tape(loss=loss):\n        inner()\n\n"
                          "inc()\ninc.grad()\nwith qd.ad.Tape(loss=loss):\n    nothing()\nplain()\n",
                          gfield);
    char *dir;
    RunResult r = qdc_in_temp("ad.py", src, "--emit=header", NULL, &dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_empty(r.err, "%s", r.err);
    char *hp = xasprintf("%s/out", dir), *h = read_text(hp, NULL);
    cr_assert(h);
    static const char *const present[] = {" inc_grad(", " nothing_grad(", " test_it__inner_grad("};
    for (size_t k = 0; k < sizeof present / sizeof *present; k++) cr_expect(strstr(h, present[k]), "no%s:\n%s", present[k], h);
    cr_expect(strstr(h, " plain(") && !strstr(h, " plain_grad("), "%s", h);
    free(h), free(hp), free(src);
    run_free(&r);
    remove_tree(dir);
    free(dir);
}

/* ---- forward mode (ir/autodiff_fwd.c) ---- */

/* Operations for forward mode (reverse mode refuses while; nonlin takes its ad stack). */
static const AdOp fops[] = {
    {"while", "t = a\n        while t < 2.0:\n            t = t * (1.5 + b) + a\n        r = t", NULL, NULL},
    {"nonlin", "t = a\n        for j in range(cnt[None]):\n            t = t * t * b + w[j]\n        r = t", NULL, NULL},
    {"brk", "t = a\n        for j in range(cnt[None]):\n            if t > 1.0:\n                break\n            t = t * (2.0 + b)\n        r = t", NULL, NULL},
    {"atomloc", "t = a * b\n        qd.atomic_add(t, qd.sin(a))\n        r = t", "b + cos(a)", "a"},
};
#define NFOPS ((int)(sizeof fops / sizeof fops[0]))

/* The reverse-mode module with dual fields too, and the forward-only operations. */
static char *fwd_module_source(void) {
    char *base = module_source(), *s = xstrdup("");
    for (const char *p = base; *p;) { /* needs_grad=True -> needs_grad=True, needs_dual=True */
        const char *q = strstr(p, "needs_grad=True");
        if (!q) { add(&s, "%s", p); break; }
        add(&s, "%.*sneeds_grad=True, needs_dual=True", (int)(q - p), p);
        p = q + strlen("needs_grad=True");
    }
    free(base);
    for (int k = 0; k < NFOPS; k++)
        add(&s, "\n@qd.kernel\ndef k_%s():\n    for i in x:\n        a = x[i]\n        b = w[i]\n        %s\n        loss[None] += r\n", fops[k].name, fops[k].body);
    return s;
}

/* Each operation's <kernel>_fwd run with seeds along x only, w only and both: loss.dual
 * against the central finite difference of the forward kernel along the seed (f64), the
 * analytic directional derivative where known, and loss against the forward kernel's. */
static char *fwd_host_source(void) {
    char *s = xstrdup(host_head);
    add(&s, "static double S1[N], S2[N];\n"
            "static double along(double (*f)(void), double cx, double cw) {\n"
            "    double x0[N], w0[N], p, m;\n    memcpy(x0, qd_field_x, sizeof x0), memcpy(w0, qd_field_w, sizeof w0);\n"
            "    for (int i = 0; i < N; i++) qd_field_x[i] = x0[i] + H * cx * S1[i], qd_field_w[i] = w0[i] + H * cw * S2[i];\n"
            "    p = f();\n"
            "    for (int i = 0; i < N; i++) qd_field_x[i] = x0[i] - H * cx * S1[i], qd_field_w[i] = w0[i] - H * cw * S2[i];\n"
            "    m = f();\n    memcpy(qd_field_x, x0, sizeof x0), memcpy(qd_field_w, w0, sizeof w0);\n    return (p - m) / (2 * H);\n}\n"
            "static double seeded(void (*k)(void), double cx, double cw) {\n"
            "    for (int i = 0; i < N; i++) qd_field_x_dual[i] = cx * S1[i], qd_field_w_dual[i] = cw * S2[i], qd_field_y_dual[i] = 0;\n"
            "    qd_field_loss = 0, qd_field_loss_dual = 0;\n    k();\n    return qd_field_loss_dual;\n}\n");
    for (int k = 0; k < NOPS + NFOPS; k++) {
        const AdOp *o = k < NOPS ? &ops[k] : &fops[k - NOPS];
        add(&s, "static double f_%s(void) { qd_field_loss = 0; RUN(k_%s); return qd_field_loss; }\n"
                "static void r_%s(void) { RUN(k_%s_fwd); }\n"
                "static void t_%s(void) {\n    init();\n    double primal = f_%s();\n"
                "    for (int c = 0; c < 3; c++) {\n        double cx = c != 1, cw = c != 0;\n"
                "        double got = seeded(r_%s, cx, cw);\n        cmp(\"%s fwd primal\", c, \"loss\", qd_field_loss, primal);\n",
            o->name, o->name, o->name, o->name, o->name, o->name, o->name, o->name);
        if (strcmp(o->name, "cast") && strncmp(o->name, "stop", 4)) /* stopped: the analytic value only */
            add(&s, "        cmp(\"%s fwd fd\", c, \"loss\", got, along(f_%s, cx, cw));\n", o->name, o->name);
        if (o->da)
            add(&s, "        double want = 0;\n        for (int i = 0; i < N; i++) {\n            double a = qd_field_x[i], b = qd_field_w[i]; (void)a, (void)b;\n"
                    "            want += cx * S1[i] * (%s) + cw * S2[i] * (%s);\n        }\n        cmp(\"%s fwd\", c, \"loss\", got, want);\n",
                o->da, o->db, o->name);
        add(&s, "        printf(\"F %s %%d %%.17g\\n\", c, got);\n    }\n}\n", o->name);
    }
    add(&s, "static void r_chain(void) { RUN(chain1_fwd); RUN(chain2_fwd); }\n"
            "int main(void) {\n    (void)fd;\n    for (int i = 0; i < N; i++) S1[i] = 0.5 + 0.1 * i, S2[i] = 1.3 - 0.07 * i;\n");
    for (int k = 0; k < NOPS + NFOPS; k++) add(&s, "    t_%s();\n", k < NOPS ? ops[k].name : fops[k - NOPS].name);
    add(&s, "    for (int c = 0; c < 3; c++) {\n        double cx = c != 1, cw = c != 0;\n        init();\n"
            "        double got = seeded(r_chain, cx, cw);\n        cmp(\"chain fwd fd\", c, \"loss\", got, along(chain, cx, cw));\n"
            "        for (int i = 0; i < N; i++) {\n            double a = qd_field_x[i], b = qd_field_w[i];\n"
            "            cmp(\"chain fwd\", i, \"y\", qd_field_y_dual[i], cos(a) * b * cx * S1[i] + sin(a) * cw * S2[i]);\n"
            "            cmp(\"chain fwd\", i, \"x\", qd_field_x_dual[i], cx * S1[i]);\n        }\n"
            "        printf(\"F chain %%d %%.17g\\n\", c, got);\n    }\n"
            "    printf(\"%%d checks, %%d failed\\n\", checks, fails);\n    return fails != 0;\n}\n");
    return s;
}

static char *fwd_x86_reference(void) {
    char *dir = make_temp_dir(), *qd = xasprintf("%s/ad.py", dir), *src = fwd_module_source(), *host = fwd_host_source();
    cr_assert(write_text(qd, src));
    RunResult r = x86_compile_and_run(dir, qd, "--target=x86_64", host, NULL, NULL);
    cr_expect_eq(r.status, 0, "status %d\n%s%s", r.status, r.out, r.err);
    char *out = r.status == 0 ? xstrdup(r.out) : NULL;
    run_free(&r);
    remove_tree(dir);
    free(dir), free(qd), free(src), free(host);
    return out;
}

Test(autodiff, x86_forward_mode_matches_finite_differences, .timeout = 300) {
    if (!x86_have_runtime()) return;
    char *out = fwd_x86_reference();
    cr_assert(out);
    cr_expect(strstr(out, ", 0 failed") && !strstr(out, "FAIL"), "%s", out);
    int n = 0;
    for (const char *p = strstr(out, "F "); p; p = strstr(p + 1, "\nF ")) n++;
    cr_expect_eq(n, 3 * (NOPS + NFOPS + 1), "%d directional derivatives in:\n%s", n, out);
    free(out);
}

/* Quadrants' own example (its user guide, qd.ad.FwdMode): loss[1] += x[3] * x[4] with the seed
 * (0, 0, 0, 1, 1) laid out in x.dual gives loss.dual[1] == x[3] + x[4] == 7; the metadata names
 * the dual fields and the companion, and the kernel the companion of a no_grad kernel is absent. */
Test(autodiff, forward_mode_abi_and_quadrants_example, .timeout = 120) {
    if (!x86_have_runtime()) return;
    static const char src[] = "import quadrants as qd\n\nx = qd.field(qd.f32, shape=5)\nloss = qd.field(qd.f32, shape=5)\n"
                              "n = qd.field(qd.i32, shape=5)\nqd.root.lazy_dual()\n\n"
                              "@qd.kernel\ndef compute():\n    loss[1] += x[3] * x[4]\n\n"
                              "@qd.ad.no_grad\n@qd.kernel\ndef quiet():\n    loss[0] += x[0]\n";
    static const char host[] = "#include \"d.h\"\n#include <stdio.h>\n"
                               "int main(void) {\n    for (int i = 0; i < 5; i++) qd_field_x[i] = (float)i;\n"
                               "    qd_field_x_dual[3] = 1, qd_field_x_dual[4] = 1;\n"
                               "    compute_fwd_args a = {0};\n    if (compute_fwd(&a, 4)) return 2;\n"
                               "    printf(\"%g %g %g\\n\", qd_field_loss_dual[1], qd_field_loss[1], qd_field_loss_dual[0]);\n    return 0;\n}\n";
    char *dir = make_temp_dir(), *qd = xasprintf("%s/ad.py", dir);
    cr_assert(write_text(qd, src));
    RunResult r = x86_compile_and_run(dir, qd, "--target=x86_64", host, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect_str_eq(r.out, "7 12 0\n");
    run_free(&r);
    char *mf = xasprintf("%s/ad.json", dir);
    r = run_qdc("--target=vulkan1.3", "--emit=metadata", qd, "-o", mf, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *m = read_text(mf, NULL);
    cr_assert(m);
    cr_expect(strstr(m, "{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": [5], \"dual\": \"x_dual\", \"set\": 1, \"binding\": "), "%s", m);
    cr_expect(strstr(m, "{\"name\": \"x_dual\", \"dtype\": \"f32\", \"shape\": [5], \"set\": 1"), "%s", m);
    cr_expect(strstr(m, "\"name\": \"compute_fwd\", \"fwd_of\": \"compute\""), "%s", m);
    cr_expect(!strstr(m, "\"n_dual\"") && !strstr(m, "quiet_fwd") && !strstr(m, "compute_grad"), "%s", m);
    run_free(&r);
    free(m), free(mf), free(qd);
    remove_tree(dir);
    free(dir);
}

/* What forward mode does not differentiate: a located QD2140 warning and no companion. */
Test(autodiff, forward_mode_refusals_are_located) {
    char *dir;
    RunResult r = qdc_in_temp("ad.py", "import quadrants as qd\n\nx = qd.field(qd.f32, shape=8, needs_dual=True)\n"
                         "loss = qd.field(qd.f32, shape=(), needs_dual=True)\nc = qd.field(qd.i32, shape=())\n\n"
                         "@qd.kernel\ndef m():\n    for i in x:\n        qd.atomic_max(loss[None], x[i])\n\n"
                         "@qd.kernel\ndef u():\n    for i in x:\n        x[i] = qd.atomic_add(loss[None], x[i])\n\n"
                         "@qd.kernel\ndef ok():\n    for i in x:\n        loss[None] += x[i] * x[i]\n",
                         "--emit=header", NULL, &dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    static const char *const want[] = {
        "ad.py:10:9: warning[QD2140]: kernel 'm' gets no forward-mode kernel 'm_fwd': atomic max on a value that has a tangent is not "
        "differentiated by qdc's forward mode (atomic add and sub are) [-Wno-fwd]\n",
        "ad.py:15:16: warning[QD2140]: kernel 'u' gets no forward-mode kernel 'u_fwd': an atomic whose result is used, on or with a value "
        "that has a tangent, is not differentiated by qdc's forward mode [-Wno-fwd]\n",
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) cr_expect(strstr(r.err, want[k]), "no\n%s\nin:\n%s", want[k], r.err);
    char *hp = xasprintf("%s/out", dir), *h = read_text(hp, NULL);
    cr_assert(h);
    cr_expect(strstr(h, "static inline int ok_fwd(const ok_fwd_args *args, int nthreads)") && !strstr(h, " m_fwd(") && !strstr(h, " u_fwd("), "%s", h);
    free(h), free(hp);
    run_free(&r);
    remove_tree(dir);
    free(dir);
}

/* The forward-mode companions in f32 on lavapipe: a kernel loads x, w and the seeds (both
 * directions) from the ndarray io, each op's k_<op>_fwd runs, and a kernel copies loss.dual
 * into io; compared with the x86 f64 directional derivatives (checked against finite
 * differences above), and for the chain y.dual too. */
static char *vulkan_fwd_source(void) {
    char *s = xstrdup("import quadrants as qd\n\nN = 12\nIO = qd.types.ndarray(qd.f32, ndim=1)\n"
                      "x = qd.field(qd.f32, shape=N, needs_dual=True)\nw = qd.field(qd.f32, shape=N, needs_dual=True)\n"
                      "y = qd.field(qd.f32, shape=N, needs_dual=True)\nloss = qd.field(qd.f32, shape=(), needs_dual=True)\n"
                      "cnt = qd.field(qd.i32, shape=())\n\n@qd.func\ndef sq(u, v):\n    return u * u * v\n\n"
                      "@qd.kernel\ndef load(io: IO):\n    for i in x:\n        x[i] = io[i]\n        w[i] = io[N + i]\n"
                      "        x.dual[i] = io[2 * N + i]\n        w.dual[i] = io[3 * N + i]\n        y[i] = 0.0\n        y.dual[i] = 0.0\n"
                      "    loss[None] = 0.0\n    loss.dual[None] = 0.0\n    cnt[None] = 3\n\n"
                      "@qd.kernel\ndef chain1(io: IO):\n    for i in x:\n        y[i] = qd.sin(x[i]) * w[i]\n\n"
                      "@qd.kernel\ndef chain2(io: IO):\n    for i in y:\n        loss[None] += y[i] ** 2\n\n"
                      "@qd.kernel\ndef dump_y(io: IO):\n    for i in y:\n        io[4 * N + i] = y.dual[i]\n");
    for (int k = 0; k < NOPS + NFOPS; k++) {
        const AdOp *o = k < NOPS ? &ops[k] : &fops[k - NOPS];
        char *body = xstrdup(o->body);
        for (char *p = strstr(body, "qd.f64"); p; p = strstr(p, "qd.f64")) p[4] = '3', p[5] = '2';
        add(&s, "\n@qd.kernel\ndef k_%s(io: IO):\n    for i in x:\n        a = x[i]\n        b = w[i]\n        %s\n        loss[None] += r\n",
            o->name, body);
        free(body);
    }
    for (int k = 0; k <= NOPS + NFOPS; k++) add(&s, "\n@qd.kernel\ndef dump_%d(io: IO):\n    io[5 * N + %d] = loss.dual[None]\n", k, k);
    return s;
}

Test(autodiff, lavapipe_forward_mode_matches_x86, .timeout = 300) {
    if (!x86_have_runtime()) return;
    char *ref = fwd_x86_reference();
    cr_assert(ref);
    char *dir = make_temp_dir(), *qd = xasprintf("%s/ad.py", dir), *spv = xasprintf("%s/ad.spv", dir), *mf = xasprintf("%s/ad.json", dir);
    char *src = vulkan_fwd_source();
    cr_assert(write_text(qd, src));
    RunResult r = run_qdc("--target=vulkan1.2", qd, "-o", spv, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_qdc("--target=vulkan1.2", "--emit=metadata", qd, "-o", mf, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *meta = read_text(mf, NULL);
    cr_assert(meta);
    int nall = NOPS + NFOPS;
    size_t nio = (size_t)5 * VN + (size_t)nall + 1; /* x, w, their seeds, y.dual, then loss.dual per op and the chain */
    float *io = calloc(nio, sizeof *io), *got = calloc((size_t)nall + 1, sizeof *got), ydual[VN];
    for (int first = 0; first <= nall; first += 10) {
        const char *ks[64];
        char *names[64];
        int nk = 0, nn = 0;
        for (int k = first; k < first + 10 && k <= nall; k++) {
            for (int i = 0; i < VN; i++) /* the x86 test's S1, S2, both directions */
                io[i] = (float)(0.2 + 0.05 * i), io[VN + i] = (float)(0.3 + 0.06 * i), io[2 * VN + i] = (float)(0.5 + 0.1 * i),
                io[3 * VN + i] = (float)(1.3 - 0.07 * i);
            ks[nk++] = "load";
            if (k < nall) ks[nk++] = names[nn++] = xasprintf("k_%s_fwd", k < NOPS ? ops[k].name : fops[k - NOPS].name);
            else ks[nk++] = "chain1_fwd", ks[nk++] = "chain2_fwd", ks[nk++] = "dump_y";
            ks[nk++] = names[nn++] = xasprintf("dump_%d", k);
        }
        VkArray arr[1] = {{io, nio * sizeof *io, (int32_t)nio}};
        char *err = NULL;
        int rc = vk_run(dir, spv, meta, ks, nk, arr, 1, NULL, VN, VK_FULL, true, &err);
        cr_expect_neq(rc, -1, "%s", err ? err : "");
        free(err);
        for (int j = 0; j < nn; j++) free(names[j]);
        if (rc != 1) break;
        for (int k = first; k < first + 10 && k <= nall; k++) got[k] = io[5 * VN + k];
    }
    memcpy(ydual, io + 4 * VN, sizeof ydual);
    int checked = 0;
    for (const char *p = strstr(ref, "F "); p; p = strstr(p + 1, "\nF ")) {
        char op[32];
        int c;
        double want;
        if (*p == '\n') p++;
        if (sscanf(p, "F %31s %d %lf", op, &c, &want) != 3 || c != 2 || !strcmp(op, "cast")) continue;
        int k = 0;
        while (k < nall && strcmp(k < NOPS ? ops[k].name : fops[k - NOPS].name, op)) k++;
        cr_expect(fabs(got[k] - want) <= 2e-3 * (1 + fabs(want)), "%s: lavapipe %.7g, x86 f64 %.12g", op, got[k], want);
        checked++;
    }
    cr_expect_eq(checked, nall, "compared %d", checked); /* every op but cast, and the chain */
    for (int i = 0; i < VN; i++) {
        double a = 0.2 + 0.05 * i, b = 0.3 + 0.06 * i, want = cos(a) * b * (0.5 + 0.1 * i) + sin(a) * (1.3 - 0.07 * i);
        cr_expect(fabs(ydual[i] - want) <= 1e-4 * (1 + fabs(want)), "y.dual[%d]: lavapipe %.7g, analytic %.12g", i, ydual[i], want);
    }
    free(io), free(got), free(meta), free(src), free(qd), free(spv), free(mf), free(ref);
    remove_tree(dir);
    free(dir);
}

/* The forward-mode companion compiles for every family; its tangent accumulation into
 * loss.dual is an atomic the database lowers and the reductions rewrite reduces. */
Test(autodiff, every_family_compiles_forward_companions, .timeout = 120) {
    static const TargetLine fam[] = {
        {"x86_64", "in k_fwd: reduced per worker"},
        {"sm_90", "native       in k_fwd: reduced per subgroup"},
        {"sm_60", "in k_fwd: reduced per subgroup: a partial per thread, shfl.sync butterfly"},
        {"gfx942", "in k_fwd:"},
        {"vulkan1.1", "cas          in k_fwd: CAS loop computing add on the integer bits"},
        {"vulkan1.3", "in k_fwd:"},
        {"apple7", "in k_fwd:"},
        {"apple9", "in k_fwd:"},
    };
    static const char src[] = "import quadrants as qd\n\nx = qd.field(qd.f32, shape=8, needs_dual=True)\n"
                              "loss = qd.field(qd.f32, shape=(), needs_dual=True)\np = qd.field(qd.f32, shape=2, needs_dual=True)\n\n"
                              "@qd.kernel\ndef k():\n    for i in x:\n        r = p[0] * x[i] + p[1]\n        loss[None] += qd.sin(r) * r\n";
    expect_lowering_report(src, fam, sizeof fam / sizeof *fam);
}

/* Quadrants' grad_test(tifunc) pattern (its test_ad_basics.py): a host helper defining fields and
 * a kernel around a lambda it is passed. Each lambda is its own evaluation of the helper, named
 * by where the lambda is (line, column), with its own _grad and _fwd companions (x.grad and
 * x.dual placed in the SNode beside x), run on x86. */
Test(autodiff, helper_with_lambdas_gets_a_kernel_per_lambda, .timeout = 120) {
    if (!x86_have_runtime()) return;
    static const char src[] = "import quadrants as qd\n\n"
                              "def grad_test(tifunc):\n    x = qd.field(qd.f64)\n    y = qd.field(qd.f64)\n"
                              "    qd.root.dense(qd.i, 1).place(x, x.grad, x.dual, y, y.grad, y.dual)\n\n"
                              "    @qd.kernel\n    def func():\n        for i in x:\n            y[i] = tifunc(x[i])\n\n"
                              "    func()\n    func.grad()\n\n"
                              "def test_a():\n    grad_test(lambda x: x * x * x)\n    grad_test(lambda x: qd.sin(x))\n";
    static const char host[] =
        "#include \"d.h\"\n#include <math.h>\n#include <stdio.h>\n"
        "#define RUN(k) do { k##_args a_ = {0}; if (k(&a_, 2)) return 2; } while (0)\n"
        "int main(void) {\n"
        "    *qd_field_grad_test__tifunc_l17c15__x_at(0) = 0.234, *qd_field_grad_test__tifunc_l17c15__y_grad_at(0) = 1;\n"
        "    RUN(grad_test__tifunc_l17c15__func); RUN(grad_test__tifunc_l17c15__func_grad);\n"
        "    *qd_field_grad_test__tifunc_l18c15__x_at(0) = 0.234, *qd_field_grad_test__tifunc_l18c15__x_dual_at(0) = 1;\n"
        "    RUN(grad_test__tifunc_l18c15__func_fwd);\n"
        "    printf(\"%.9f %.9f %.9f %.9f\\n\", *qd_field_grad_test__tifunc_l17c15__y_at(0), *qd_field_grad_test__tifunc_l17c15__x_grad_at(0),\n"
        "           *qd_field_grad_test__tifunc_l18c15__y_at(0), *qd_field_grad_test__tifunc_l18c15__y_dual_at(0));\n"
        "    return fabs(*qd_field_grad_test__tifunc_l18c15__y_dual_at(0) - cos(0.234)) > 1e-12;\n}\n";
    char *dir = make_temp_dir(), *qd = xasprintf("%s/ad.py", dir);
    cr_assert(write_text(qd, src));
    RunResult r = x86_compile_and_run(dir, qd, "--target=x86_64", host, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect_str_eq(r.out, "0.012812904 0.164268000 0.231870355 0.972746698\n"); /* 0.234^3, 3 * 0.234^2, sin, cos */
    run_free(&r);
    free(qd);
    remove_tree(dir);
    free(dir);
}

/* Quadrants' demote_atomics: an adjoint whose memory every iteration of a parallel task accesses
 * at its own loop variables only (x[i] in `for i in range(1, 4)`, m[a, b] in `for a, b in m`) is
 * accumulated with a plain load, add and store, so f64 on vulkan1.3 (no f64 atomic add without
 * int64 atomics) differentiates (Quadrants' test_ad_if_parallel_f64); run on lavapipe at dyadic
 * values, the gradients are exact. x[i] beside x[i - 1] is not loop-unique: an atomic, refused. */
Test(autodiff, loop_unique_adjoints_need_no_atomics, .timeout = 180) {
    static const char src[] = "import quadrants as qd\n\nIO = qd.types.ndarray(qd.f64, ndim=1)\n"
                              "x = qd.field(qd.f64, shape=4, needs_grad=True)\ny = qd.field(qd.f64, shape=4, needs_grad=True)\n"
                              "m = qd.field(qd.f64, shape=(2, 2), needs_grad=True)\nn = qd.field(qd.f64, shape=(2, 2), needs_grad=True)\n\n"
                              "@qd.kernel\ndef load(io: IO):\n    for k in range(4):\n        x[k] = io[k]\n        x.grad[k] = 0.0\n"
                              "        y.grad[k] = 1.0 + k\n    for a, b in m:\n        m[a, b] = io[a * 2 + b]\n        m.grad[a, b] = 0.0\n"
                              "        n.grad[a, b] = 1.0\n\n"
                              "@qd.kernel\ndef f(io: IO):\n    for i in range(1, 4):\n        t = x[i]\n        if t > 0:\n            y[i] = t * t\n"
                              "        else:\n            y[i] = 2 * t\n\n"
                              "@qd.kernel\ndef g(io: IO):\n    for a, b in m:\n        n[a, b] = m[a, b] * m[a, b] * m[a, b]\n\n"
                              "@qd.kernel\ndef dump(io: IO):\n    for k in range(4):\n        io[4 + k] = x.grad[k]\n    for a, b in m:\n"
                              "        io[8 + a * 2 + b] = m.grad[a, b]\n";
    char *dir;
    RunResult r = qdc_in_temp("ad.py", src, "--target=vulkan1.3", "--report-lowering", &dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(!strstr(r.out, "f_grad") && !strstr(r.out, "g_grad"), "an atomic in a companion:\n%s", r.out);
    run_free(&r);
    char *spv = NULL, *meta = vk_compile(dir, "ad", "vulkan1.3", src, &spv), *err = NULL;
    double io[12] = {-0.5, 1.5, 2.0, -1.0, 7, 7, 7, 7, 7, 7, 7, 7};
    VkArray arr[1] = {{io, sizeof io, 12}};
    const char *ks[] = {"load", "f", "f_grad", "g", "g_grad", "dump"};
    int rc = vk_run(dir, spv, meta, ks, 6, arr, 1, NULL, 12, VK_FULL, true, &err);
    cr_expect_neq(rc, -1, "%s", err ? err : "");
    if (rc == 1) {
        cr_expect(io[4] == 0 && io[5] == 6 && io[6] == 12 && io[7] == 8, "x.grad %.17g %.17g %.17g %.17g", io[4], io[5], io[6], io[7]);
        cr_expect(io[8] == 0.75 && io[9] == 6.75 && io[10] == 12 && io[11] == 3, "m.grad %.17g %.17g %.17g %.17g", io[8], io[9], io[10], io[11]);
    }
    free(err), free(meta), free(spv);
    remove_tree(dir);
    free(dir);
    static const char gather[] = "import quadrants as qd\n\nx = qd.field(qd.f64, shape=4, needs_grad=True)\n"
                                 "y = qd.field(qd.f64, shape=4, needs_grad=True)\n\n"
                                 "@qd.kernel\ndef k():\n    for i in range(1, 4):\n        y[i] = x[i] * x[i - 1]\n";
    r = qdc_in_temp("ad.py", gather, "--target=vulkan1.3", NULL, &dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "ad.py:9:16: error[QD4001]: atomic add on f64 in global memory is not supported on target 'vulkan1.3'"), "%s", r.err);
    cr_expect(strstr(r.err, "ad.py:9:23: error[QD4001]: atomic add on f64 in global memory is not supported on target 'vulkan1.3'"), "%s", r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir);
}

/* Quadrants gives every kernel run inside `with qd.ad.FwdMode(...)` a dual kernel: one that
 * touches no field with a dual field (its handle_shape tests) gets its <kernel>_fwd, a no-op
 * beside the primal's work, at module level and in a host function; K.grad() and a Tape ask for
 * no forward companion, a kernel run outside FwdMode gets none, and @qd.ad.no_grad keeps it from
 * one (Quadrants runs it as written). */
Test(autodiff, kernels_run_in_fwdmode_get_forward_companions) {
    static const char src[] = "import quadrants as qd\n\n"
                              "a = qd.field(float)\nb = qd.field(float)\nqd.root.dense(qd.i, 1).place(a, b, a.dual, b.dual)\n"
                              "c = qd.field(float, shape=(), needs_grad=True)\n\n"
                              "@qd.kernel\ndef empty():\n    pass\n\n"
                              "@qd.kernel\ndef count():\n    for i in range(3):\n        c[None] += 1.0\n\n"
                              "@qd.kernel\ndef outside():\n    pass\n\n"
                              "@qd.ad.no_grad\n@qd.kernel\ndef skipped():\n    pass\n\n"
                              "def test_it():\n    @qd.kernel\n    def inner():\n        pass\n\n"
                              "    with qd.ad.FwdMode(loss=b, param=a):\n        inner()\n\n"
                              "with qd.ad.FwdMode(loss=b, param=a):\n    empty()\n    count()\n    skipped()\n"
                              "outside()\nwith qd.ad.Tape(loss=c):\n    outside()\n";
    char *dir;
    RunResult r = qdc_in_temp("ad.py", src, "--emit=metadata", "--target=x86_64", &dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_empty(r.err, "%s", r.err);
    char *mp = xasprintf("%s/out", dir), *m = read_text(mp, NULL);
    cr_assert(m);
    static const char *const present[] = {"\"name\": \"empty_fwd\", \"fwd_of\": \"empty\"", "\"name\": \"count_fwd\", \"fwd_of\": \"count\"",
                                           "\"name\": \"test_it__inner_fwd\", \"fwd_of\": \"test_it__inner\"",
                                           "\"name\": \"outside_grad\", \"grad_of\": \"outside\""};
    for (size_t k = 0; k < sizeof present / sizeof *present; k++) cr_expect(strstr(m, present[k]), "no %s:\n%s", present[k], m);
    cr_expect(!strstr(m, "outside_fwd") && !strstr(m, "skipped_fwd") && !strstr(m, "empty_grad"), "%s", m);
    free(m), free(mp);
    run_free(&r);
    remove_tree(dir);
    free(dir);
}

/* Ndarrays have no dual in Quadrants (Ndarray.has_dual() is always False): x.dual of an ndarray
 * parameter is its AttributeError, located, and no output is written. */
Test(autodiff, ndarray_dual_is_quadrants_attribute_error) {
    static const char src[] = "import quadrants as qd\n\n"
                              "@qd.kernel\ndef k(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n    for i in x:\n        x.dual[i] = 1.0\n";
    char *dir;
    RunResult r = qdc_in_temp("ad.py", src, "--target=x86_64", NULL, &dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "ad.py:6:9: error[QD2044]: 'AnyArray' object has no attribute 'dual': an ndarray has no dual in Quadrants; "
                            "forward mode differentiates fields declared with needs_dual=True (or placed by qd.root.lazy_dual())\n"
                            " 6 |         x.dual[i] = 1.0\n   |         ^~~~~~\n"),
              "%s", r.err);
    char *o = xasprintf("%s/out", dir);
    cr_expect(access(o, F_OK) != 0, "an output file was written");
    free(o);
    run_free(&r);
    remove_tree(dir);
    free(dir);
}

/* qd.ad.Tape's contract for a C host (qdc-abi(7), "Launch contract") with @qd.ad.grad_replaced /
 * @qd.ad.grad_for and @qd.ad.no_grad, run on x86-64 (4 threads) in f64: the forward launches in
 * order, then in reverse the companions, the grad_for function's kernels in place of the
 * replaced function's, nothing for the no_grad kernel (it has no companion). x.grad against the
 * central finite difference of the loss without the no_grad kernel's share (Quadrants leaves
 * it out) and against the analytic 2 x cos(x^2) + 3 (the hand-written adjoint adds 3 per
 * element, so that a replaced gradient is told from the companion's). */
Test(autodiff, grad_replaced_and_no_grad_follow_the_tape_contract, .timeout = 180) {
    if (!x86_have_runtime()) return;
    static const char src[] =
        "import quadrants as qd\n\nN = 12\nx = qd.field(qd.f64, shape=N, needs_grad=True)\ny = qd.field(qd.f64, shape=N, needs_grad=True)\n"
        "loss = qd.field(qd.f64, shape=(), needs_grad=True)\n\n\n"
        "@qd.kernel\ndef square():\n    for i in x:\n        y[i] = x[i] * x[i]\n\n\n"
        "@qd.kernel\ndef square_back():\n    for i in x:\n        x.grad[i] += (2.0 * x[i] * y.grad[i] + 3.0) * loss.grad[None]\n\n\n"
        "@qd.kernel\ndef total():\n    for i in y:\n        loss[None] += qd.sin(y[i])\n\n\n"
        "@qd.ad.no_grad\n@qd.kernel\ndef count():\n    for i in x:\n        loss[None] += x[i] * x[i] * x[i]\n\n\n"
        "@qd.ad.grad_replaced\ndef forward():\n    square()\n\n\n@qd.ad.grad_for(forward)\ndef backward():\n    square_back()\n\n\n"
        "with qd.ad.Tape(loss=loss):\n    forward()\n    total()\n    count()\n";
    static const char host[] =
        "#include \"d.h\"\n#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
        "#define N 12\n#define H 1e-6\n"
        "#define RUN(k) do { k##_args args_; memset(&args_, 0, sizeof args_); if (k(&args_, 4)) exit(2); } while (0)\n"
        "static double f(void) { qd_field_loss = 0; RUN(square); RUN(total); return qd_field_loss; }\n"
        "int main(void) {\n    int fails = 0;\n    for (int i = 0; i < N; i++) qd_field_x[i] = 0.2 + 0.07 * i;\n"
        "    memset(qd_field_x_grad, 0, sizeof qd_field_x_grad), memset(qd_field_y_grad, 0, sizeof qd_field_y_grad);\n"
        "    qd_field_loss = 0, qd_field_loss_grad = 1;\n"
        "    RUN(square); RUN(total); RUN(count);\n" /* the Tape's block */
        "    RUN(total_grad); RUN(square_back);\n"    /* in reverse: count is no_grad, forward's gradient is backward's */
        "    for (int i = 0; i < N; i++) {\n        double a = qd_field_x[i], s = qd_field_x[i], lp, lm;\n"
        "        qd_field_x[i] = s + H; lp = f(); qd_field_x[i] = s - H; lm = f(); qd_field_x[i] = s;\n"
        "        double fd = (lp - lm) / (2 * H) + 3, want = 2 * a * cos(a * a) + 3, got = qd_field_x_grad[i];\n"
        "        if (!(fabs(got - fd) <= 1e-6 * (1 + fabs(fd))) || !(fabs(got - want) <= 1e-9 * (1 + fabs(want))))\n"
        "            fails++, printf(\"FAIL x.grad[%d] = %.12g, finite difference %.12g, analytic %.12g\\n\", i, got, fd, want);\n"
        "        if (qd_field_y_grad[i] != cos(a * a)) fails++, printf(\"FAIL y.grad[%d] = %.12g\\n\", i, qd_field_y_grad[i]);\n    }\n"
        "    printf(\"%d failed\\n\", fails);\n    return fails != 0;\n}\n";
    char *dir = make_temp_dir(), *qd = xasprintf("%s/ad.py", dir);
    cr_assert(write_text(qd, src));
    RunResult r = x86_compile_and_run(dir, qd, "--target=x86_64", host, NULL, NULL);
    cr_expect_eq(r.status, 0, "status %d\n%s%s", r.status, r.out, r.err);
    cr_expect(strstr(r.out, "0 failed"), "%s%s", r.out, r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(qd);
    /* the no_grad kernel has no companion; the others have theirs */
    char *h;
    r = qdc_in_temp("ad.py", src, "--emit=header", "--target=x86_64", &dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *hp = xasprintf("%s/out", dir);
    h = read_text(hp, NULL);
    free(hp);
    cr_assert(h);
    cr_expect(!strstr(h, "count_grad") && strstr(h, "total_grad_args") && strstr(h, "square_grad_args"), "%s", h);
    free(h);
    run_free(&r);
    remove_tree(dir);
    free(dir);
}
