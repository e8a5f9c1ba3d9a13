/* Python's math module evaluated at compile time (import math) and qd.math's transform builders
 * (rotation2d, rotation3d, rot_yaw_pitch_roll, rot_by_axis, translate, scale): exact values of
 * kernels run on x86 against the formulas computed here, and the located errors. */
#include "test_x86.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static RunResult check_text(const char *text) {
    char *dir = make_temp_dir(), *src = NULL;
    cr_assert(asprintf(&src, "%s/k.py", dir) > 0 && write_text(src, text));
    const char *argv[] = {"--check", "k.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    remove_tree(dir);
    free(dir), free(src);
    return r;
}

Test(pymath, errors) {
    static const struct { const char *src, *err; } rows[] = {
        {"import math\nimport quadrants as qd\n@qd.kernel\ndef k(a: qd.f32):\n    b = math.sqrt(a)\n",
         "k.py:5:19: error[QD2009]: math.sqrt takes compile-time numbers (Python's math cannot take a kernel value); use "
         "qd.sqrt for a run-time value\n"},
        {"import math\nimport quadrants as qd\n@qd.kernel\ndef k():\n    b = math.sqrt(-1.0)\n",
         "k.py:5:9: error[QD2009]: math.sqrt: math domain error (Python raises ValueError)\n"},
        {"import math\nimport quadrants as qd\n@qd.kernel\ndef k():\n    b = math.gamma(2.0)\n",
         "k.py:5:9: error[QD2008]: 'math.gamma' is not supported (Python's math module: qdc evaluates pi, e, tau"},
        {"import math\nimport quadrants as qd\n@qd.kernel\ndef k():\n    b = math.atan2(1.0)\n",
         "k.py:5:9: error[QD2007]: 'math.atan2' takes 2 arguments, got 1\n"},
        {"import quadrants as qd\n@qd.kernel\ndef k():\n    m = qd.math.rot_by_axis(1.0, 2.0)\n",
         "k.py:4:29: error[QD2040]: 'qd.math.rot_by_axis' needs a 3-vector axis, got "},
        {"import quadrants as qd\n@qd.kernel\ndef k():\n    m = qd.math.translate(1.0, 2.0)\n",
         "k.py:4:9: error[QD2007]: 'qd.math.translate' takes 3 arguments, got 2\n"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        RunResult r = check_text(rows[i].src);
        cr_expect_eq(r.status, 1, "row %zu: %s", i, r.err);
        cr_expect(strstr(r.err, rows[i].err), "row %zu: expected\n%s\ngot\n%s", i, rows[i].err, r.err);
        run_free(&r);
    }
}

static RunResult compile_emit(const char *text, const char *target, const char *emit) {
    char *dir = make_temp_dir(), *src = NULL, *topt = NULL;
    cr_assert(asprintf(&src, "%s/k.py", dir) > 0 && write_text(src, text) && asprintf(&topt, "--target=%s", target) > 0);
    bool check = !strcmp(emit, "--check");
    const char *argv[] = {topt, emit, check ? "k.py" : "-o", "-", "k.py", NULL};
    if (check) argv[3] = NULL;
    RunResult r = run_qdc_argv(argv, NULL, dir);
    remove_tree(dir);
    free(dir), free(src), free(topt);
    return r;
}

/* qd.lang.impl.current_cfg().arch is the compile's Quadrants arch (backends.def): a host helper
 * that asks it gives 64 lanes for AMDGPU, 32 elsewhere; targets of different archs in one
 * compile are QD2080 where it is asked. */
Test(pymath, current_cfg_arch_per_target) {
    const char *src = "import quadrants as qd\n"
                      "def lanes():\n"
                      "    return 64 if qd.lang.impl.current_cfg().arch == qd.amdgpu else 32\n"
                      "out = qd.field(qd.i32, shape=2)\n"
                      "@qd.kernel\n"
                      "def k():\n"
                      "    out[0] = lanes()\n"
                      "    out[1] = 1 if qd.lang.impl.current_cfg().arch == qd.vulkan else 0\n";
    static const struct { const char *target, *want0, *want1; } rows[] = {
        {"gfx942", "out[0:i32]:i32 = 64:i32", "out[1:i32]:i32 = 0:i32"},
        {"sm_90", "out[0:i32]:i32 = 32:i32", "out[1:i32]:i32 = 0:i32"},
        {"vulkan1.2", "out[0:i32]:i32 = 32:i32", "out[1:i32]:i32 = 1:i32"},
        {"gfx1100", "out[0:i32]:i32 = 64:i32", "out[1:i32]:i32 = 0:i32"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        RunResult r = compile_emit(src, rows[i].target, "--emit=ir");
        cr_expect_eq(r.status, 0, "%s: %s", rows[i].target, r.err);
        cr_expect(strstr(r.out, rows[i].want0) && strstr(r.out, rows[i].want1), "%s:\n%s", rows[i].target, r.out);
        run_free(&r);
    }
    RunResult m = compile_emit(src, "x86_64,sm_90", "--check");
    cr_expect_eq(m.status, 1);
    cr_expect(strstr(m.err, "k.py:3:18: error[QD2080]: the targets of this compile are different Quadrants archs"), "%s", m.err);
    run_free(&m);
}

/* == between compile-time objects (types, namespaces, strings, None) is decided when compiling,
 * as Python does; between such an object and a kernel value it is QD2009. */
Test(pymath, compile_time_equality) {
    const char *ok = "import quadrants as qd\n"
                     "T = qd.f32\n"
                     "A = 1 if T == qd.f32 else 2\n"
                     "B = 3 if T != qd.f32 else 4\n"
                     "C = 5 if 'add' == 'add' else 6\n"
                     "out = qd.field(qd.i32, shape=3)\n"
                     "@qd.kernel\n"
                     "def k():\n"
                     "    out[0] = A\n"
                     "    out[1] = B\n"
                     "    out[2] = C + (1 if T == qd.i32 else 0)\n";
    RunResult r = compile_emit(ok, "x86_64", "--emit=ir");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "out[0:i32]:i32 = 1:i32") && strstr(r.out, "out[1:i32]:i32 = 4:i32") && strstr(r.out, "out[2:i32]:i32 = 5:i32"),
              "%s", r.out);
    run_free(&r);
    const char *bad = "import quadrants as qd\n"
                      "@qd.kernel\n"
                      "def k(a: qd.i32) -> qd.i32:\n"
                      "    return 1 if a == qd.f32 else 0\n";
    RunResult e = compile_emit(bad, "x86_64", "--check");
    cr_expect_eq(e.status, 1);
    cr_expect(strstr(e.err, "k.py:4:17: error[QD2009]: '==' between a run-time value"), "%s", e.err);
    run_free(&e);
}

/* One compile for several families of one Quadrants arch answers it too. */
Test(pymath, current_cfg_arch_of_one_arch) {
    const char *src = "import quadrants as qd\n"
                      "W = 64 if qd.lang.impl.current_cfg().arch == qd.amdgpu else 32\n"
                      "out = qd.field(qd.i32, shape=W)\n"
                      "@qd.kernel\n"
                      "def k():\n"
                      "    out[W - 1] = 1\n";
    RunResult r = compile_emit(src, "gfx906,gfx942,gfx1200", "--check");
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    RunResult x = compile_emit(src, "x86_64,x86_64-v3", "--check");
    cr_expect_eq(x.status, 0, "%s", x.err);
    run_free(&x);
}

/* A lambda with *args or **kwargs is host code (a perf_dispatch hash): called from a kernel, QD1012. */
Test(pymath, star_lambda_in_a_kernel) {
    const char *src = "import quadrants as qd\n"
                      "f = lambda *args: 1\n"
                      "@qd.kernel\n"
                      "def k() -> qd.i32:\n"
                      "    return f(1, 2)\n";
    RunResult r = compile_emit(src, "x86_64", "--check");
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "k.py:5:12: error[QD1012]: '*args' parameters are not supported in kernels\n"), "%s", r.err);
    run_free(&r);
}

/* Dicts of compile-time keys: a missing key is Python's KeyError (QD2011), a kernel value as key
 * QD2009, a set or a dict comprehension QD1012. */
Test(pymath, dict_errors) {
    static const struct { const char *src, *err; } rows[] = {
        {"import quadrants as qd\nD = {1: 2}\n@qd.kernel\ndef k() -> qd.i32:\n    return D[3]\n",
         "k.py:5:14: error[QD2011]: the key is not in the dict (Python raises KeyError)\n"},
        {"import quadrants as qd\nD = {1: 2}\n@qd.kernel\ndef k(a: qd.i32) -> qd.i32:\n    return D[a]\n",
         "k.py:5:14: error[QD2009]: a dict key must be a compile-time value (a number, string, type or tuple of them), got "},
        {"import quadrants as qd\n@qd.kernel\ndef k() -> qd.i32:\n    s = {1, 2}\n    return 0\n",
         "k.py:4:9: error[QD1012]: sets and dict comprehensions are not supported in kernels\n"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        RunResult r = compile_emit(rows[i].src, "x86_64", "--check");
        cr_expect_eq(r.status, 1, "row %zu: %s", i, r.err);
        cr_expect(strstr(r.err, rows[i].err), "row %zu: expected\n%s\ngot\n%s", i, rows[i].err, r.err);
        run_free(&r);
    }
}
