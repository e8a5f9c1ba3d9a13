/* The math builtins on every backend: each family compiles them (PTX through ptxas when it is
 * installed, SPIR-V validated in process), f64 transcendental functions on SPIR-V are a located
 * QD5101, and the portable expansions PTX and AMDGPU run (targets/llvm/mathlib.c) are measured
 * against long-double libm on this CPU by tools/math-accuracy (results on x86 itself:
 * x86_kernels/mathfns). */
#include "harness.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const f32_kernel =
    "import quadrants as qd\n\n"
    "@qd.kernel\n"
    "def k(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
    "    for i in range(a.shape[0]):\n"
    "        x = a[i]\n"
    "        a[i] = (qd.sin(x) + qd.cos(x) + qd.tan(x) + qd.asin(x) + qd.acos(x) + qd.math.atan(x) + qd.atan2(x, 2.0)\n"
    "                + qd.exp(x) + qd.log(x) + qd.tanh(x) + x ** 1.5 + qd.rsqrt(x) + qd.ceil(x) + qd.round(x)\n"
    "                + qd.math.clamp(x, 0.0, 1.0) + qd.math.pi + qd.math.e + qd.sqrt(x) + qd.floor(x))\n";

Test(mathfns, every_family_compiles) {
    static const char *const families[] = {"sm_60", "sm_70", "sm_90", "gfx906", "gfx90a", "gfx1100", "gfx1200",
                                           "vulkan1.1", "vulkan1.3", "apple7", "apple9", "x86_64", "x86_64-v3"};
    char *dir = make_temp_dir(), *src = NULL;
    cr_assert(asprintf(&src, "%s/m.qd", dir) > 0 && write_text(src, f32_kernel));
    for (size_t i = 0; i < sizeof families / sizeof *families; i++) {
        char *out = NULL, *tgt = NULL;
        cr_assert(asprintf(&out, "%s/m.%s", dir, families[i]) > 0 && asprintf(&tgt, "--target=%s", families[i]) > 0);
        RunResult r = run_qdc(tgt, src, "-o", out, NULL);
        cr_expect_eq(r.status, 0, "%s: %s", families[i], r.err);
        cr_expect(file_exists(out), "%s: no output", families[i]);
        run_free(&r);
        if (!strncmp(families[i], "sm_", 3)) {
            size_t len;
            char *ptx = read_text(out, &len);
            cr_assert(ptx);
            /* the expansions are inlined: no calls, no external functions NVPTX cannot resolve */
            cr_expect(!strstr(ptx, "call") && !strstr(ptx, ".extern"), "%s: PTX calls out:\n%s", families[i], ptx);
            free(ptx);
            if (tool_available("/usr/local/cuda/bin/ptxas")) {
                char *cubin = NULL;
                cr_assert(asprintf(&cubin, "%s.cubin", out) > 0);
                RunResult p = run_argv((const char *[]){"/usr/local/cuda/bin/ptxas", "-arch=sm_90", out, "-o", cubin, NULL}, NULL, NULL);
                cr_expect_eq(p.status, 0, "ptxas rejects %s: %s", families[i], p.err);
                run_free(&p);
                free(cubin);
            }
        }
        free(out), free(tgt);
    }
    remove_tree(dir);
    free(dir), free(src);
}

Test(mathfns, spirv_f64_transcendental_is_located_error) {
    char *dir = make_temp_dir(), *src = NULL, *out = NULL;
    cr_assert(asprintf(&src, "%s/d.qd", dir) > 0 && asprintf(&out, "%s/d.spv", dir) > 0);
    cr_assert(write_text(src, "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.f64, ndim=1)):\n"
                              "    for i in range(a.shape[0]):\n        a[i] = a[i] ** 0.5\n"));
    RunResult r = run_qdc("--target=vulkan1.2", src, "-o", out, NULL);
    cr_expect_eq(r.status, 1);
    char *want = NULL;
    cr_assert(asprintf(&want, "%s:6:16: error[QD5101]: pow on f64 has no SPIR-V form (GLSL.std.450 pow takes 16- and "
                              "32-bit floats); cast the argument to qd.f32\n", src) > 0);
    cr_expect(!strncmp(r.err, want, strlen(want)), "got:\n%s", r.err);
    cr_expect(!file_exists(out));
    run_free(&r);
    /* the same kernel is fine on x86 and the GPU LLVM targets */
    RunResult x = run_qdc("--target=sm_80", src, "-o", out, NULL);
    cr_expect_eq(x.status, 0, "%s", x.err);
    run_free(&x);
    remove_tree(dir);
    free(dir), free(src), free(out), free(want);
}

/* The bounds qdc-lang(7) states: f32 within 1 ulp (0.5 measured), f64 within 4 ulp, f64 pow
 * within 64 ulp (e^(y ln x) loses |y ln x| ulps). */
Test(mathfns, portable_expansions_accuracy, .timeout = 120) {
    if (!tool_available("llvm-extract-19") || !tool_available("clang-19")) {
        printf("mathfns: SKIP accuracy (llvm-extract-19 or clang-19 missing)\n");
        return;
    }
    char *dir = make_temp_dir(), *ll = NULL, *ex = NULL, *ex2 = NULL, *obj = NULL, *bin = NULL;
    char *qd = root_path("tools/math-accuracy/accuracy.qd"), *measure = root_path("tools/math-accuracy/measure.c");
    cr_assert(asprintf(&ll, "%s/a.ll", dir) > 0 && asprintf(&ex, "%s/ex.ll", dir) > 0 && asprintf(&ex2, "%s/ex2.ll", dir) > 0 &&
              asprintf(&obj, "%s/ex.o", dir) > 0 && asprintf(&bin, "%s/measure", dir) > 0);
    RunResult r = run_qdc("--target=sm_90", "-O0", "--emit=llvm-ir", qd, "-o", ll, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    static const char *const fns[] = {"sin", "cos", "tan", "asin", "acos", "atan", "atan2", "exp", "log", "tanh", "pow"};
    const char *argv[32] = {"llvm-extract-19", "-S"};
    char *names[11];
    int n = 2;
    for (int i = 0; i < 11; i++) {
        cr_assert(asprintf(&names[i], "--func=qdc.math.%s.f64", fns[i]) > 0);
        argv[n++] = names[i];
    }
    argv[n++] = ll, argv[n++] = "-o", argv[n++] = ex, argv[n] = NULL;
    r = run_argv(argv, NULL, NULL);
    cr_assert_eq(r.status, 0, "llvm-extract: %s", r.err);
    run_free(&r);
    /* external names qdc_<fn>, no GPU triple: the functions are target-independent f64 code */
    size_t len;
    char *text = read_text(ex, &len);
    cr_assert(text);
    char *outp = malloc(len + 1), *o = outp;
    for (char *line = text, *nl; *line; line = nl) {
        nl = strchr(line, '\n');
        nl = nl ? nl + 1 : line + strlen(line);
        if (!strncmp(line, "target ", 7) || !strncmp(line, "source_filename", 15)) continue;
        for (char *p = line; p < nl;) {
            if (!strncmp(p, "define hidden ", 14)) { o += sprintf(o, "define "), p += 14; continue; }
            if (!strncmp(p, "@qdc.math.", 10)) {
                p += 10;
                o += sprintf(o, "@qdc_");
                while (*p != '.') *o++ = *p++;
                p += 4; /* ".f64" */
                continue;
            }
            *o++ = *p++;
        }
    }
    *o = 0;
    cr_assert(write_text(ex2, outp));
    r = run_argv((const char *[]){"clang-19", "-Wno-override-module", "-c", "-O2", "-target", "x86_64-linux-gnu", ex2, "-o", obj, NULL}, NULL, NULL);
    cr_assert_eq(r.status, 0, "clang-19: %s", r.err);
    run_free(&r);
    r = run_argv((const char *[]){"cc", "-O2", measure, obj, "-o", bin, "-lm", NULL}, NULL, NULL);
    cr_assert_eq(r.status, 0, "cc: %s", r.err);
    run_free(&r);
    r = run_argv((const char *[]){bin, "1", "4", "64", "65536", NULL}, NULL, NULL);
    cr_expect_eq(r.status, 0, "accuracy bounds exceeded:\n%s", r.out);
    cr_expect(strstr(r.out, "f32  function") && strstr(r.out, "f64  function") && strstr(r.out, "     pow "), "%s", r.out);
    run_free(&r);
    for (int i = 0; i < 11; i++) free(names[i]);
    remove_tree(dir);
    free(text), free(outp), free(dir), free(ll), free(ex), free(ex2), free(obj), free(bin), free(qd), free(measure);
}
