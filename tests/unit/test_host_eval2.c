/* Host code qdc follows to the kernel calls it makes (issue 30, the "qdc could not follow the
 * host code" clusters of Quadrants' tests): a torch.autograd.Function subclass whose forward
 * F.apply(x) runs with a run-time ctx (f = F.apply too), arrays made like another (np/torch
 * zeros_like ...), torch.tensor of a numpy array, 2 * array, a host function called through
 * another name (func = helper; func(args)), a test_* function the script calls by name (a
 * helper, not a test pytest collects), numpy's math functions on numbers (np.cos(0)), the size,
 * ndim, shape and len() of a numpy array whose shape the script makes evident, and a
 * comprehension whose element or condition
 * reads a run-time value: a run-time value itself, an error only where a kernel uses it. */
#include "harness.h"
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char host2[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    float t[8], o[8] = {0};\n"
    "    double td[8], od[8] = {0};\n"
    "    int32_t x[8], y[8] = {0};\n"
    "    for (int i = 0; i < 8; i++) t[i] = 2.0f + i, td[i] = 0.5 * i, x[i] = 3;\n"
    "    square__f32_1d__f32_1d_args a = {.t = t, .t_shape = {8}, .o = o, .o_shape = {8}};\n"
    "    square__f64_1d__f64_1d_args b = {.t = td, .t_shape = {8}, .o = od, .o_shape = {8}};\n"
    "    make__i32_5__scale__i32_1d__i32_1d_args c = {.x = x, .x_shape = {8}, .y = y, .y_shape = {8}};\n"
    "    if (square__f32_1d__f32_1d(&a, nt) || square__f64_1d__f64_1d(&b, nt) || make__i32_5__scale__i32_1d__i32_1d(&c, nt)) return 2;\n"
    "    for (int i = 0; i < 8; i++) printf(\"%g%s\", o[i], i == 7 ? \"\\n\" : \" \");\n"
    "    for (int i = 0; i < 8; i++) printf(\"%g%s\", od[i], i == 7 ? \"\\n\" : \" \");\n"
    "    for (int i = 0; i < 8; i++) printf(\"%d%s\", y[i], i == 7 ? \"\\n\" : \" \");\n"
    "    float f[4] = {-1, -1, -1, -1};\n"
    "    test_fill__f32_4__fill__f32_1d_args d = {.a = f, .a_shape = {4}};\n"
    "    if (test_fill__f32_4__fill__f32_1d(&d, nt)) return 2;\n"
    "    printf(\"%g %g %g %g\\n\", f[0], f[1], f[2], f[3]);\n"
    "    float k[2] = {0};\n"
    "    consts__f32_1d_args e = {.o = k, .o_shape = {2}};\n"
    "    if (consts__f32_1d(&e, nt)) return 2;\n"
    "    printf(\"%g %g\\n\", k[0], k[1]);\n"
    "    int32_t z[4] = {0};\n"
    "    sizes__i32_1d_args g = {.o = z, .o_shape = {4}};\n"
    "    if (sizes__i32_1d(&g, nt)) return 2;\n"
    "    printf(\"%d %d %d %d\\n\", z[0], z[1], z[2], z[3]);\n"
    "    float p[12] = {0}, q[3] = {0};\n"
    "    prod__f32_2d__f32_1d_args h = {.p = p, .p_shape = {3, 4}, .q = q, .q_shape = {3}};\n"
    "    if (prod__f32_2d__f32_1d(&h, nt)) return 2;\n"
    "    printf(\"%g %g %g %g\\n\", p[6], p[11], q[1], q[2]);\n"
    "    return 0;\n}\n";

/* testdata/host-eval/host_eval2.py on 1, 2 and 4 threads: forward's kernel instantiated from
 * torch.tensor(2 * np.ones(8, float32)) (f32) and torch.ones(8, dtype=torch.float64) (f64), the
 * kernel of make(np.int32, 5) called as run(...): y = x * 5 + i, and the kernel of
 * test_fill(np.float32, 4), a test_* function the script calls itself (not pytest): a[i] = 4i,
 * numpy's math on numbers: np.cos(0) + np.sqrt(4.0) = 3, np.degrees(np.arctan2(1, 1)) = 45, and
 * a (2, 3) np.array's len, shape[1], size - 1 + ndim and size (read in the kernel): 2 3 7 6, and
 * the kernel np.dot(A, B) (2-d) and A @ v (1-d) of float32 arrays instantiate. */
Test(host_eval2, autograd_forward_like_arrays_and_aliases_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/host-eval/host_eval2.py", host2,
                          "4 9 16 25 36 49 64 81\n"
                          "0 0.25 1 2.25 4 6.25 9 12.25\n"
                          "15 16 17 18 19 20 21 22\n"
                          "0 4 8 12\n"
                          "3 45\n"
                          "2 3 7 6\n"
                          "12 23 2 4\n");
}

/* The kernels each host call instantiates, exactly, and nothing else (--stats). */
Test(host_eval2, entries_are_the_calls_python_makes) {
    char *path = root_path("testdata/host-eval/host_eval2.py");
    RunResult r = run_qdc("--target=x86_64", "--check", "--stats", path, NULL);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect_str_eq(r.out, "host_eval2: 7 kernels (square__f32_1d__f32_1d, square__f64_1d__f64_1d, make__i32_5__scale__i32_1d__i32_1d, "
                            "test_fill__f32_4__fill__f32_1d, consts__f32_1d, sizes__i32_1d, prod__f32_2d__f32_1d), 8 tasks, 0 atomics, "
                            "0 volatile loads, 0 fences\n");
    run_free(&r);
    free(path);
}

/* What stays unknowable is still located where a kernel uses it: a comprehension over a
 * run-time list names the value it reads; F.apply with an argument qdc cannot type leaves the
 * kernel forward calls uninstantiated (QD2060 at that call). */
Test(host_eval2, run_time_values_stay_located) {
    expect_py_refused("g.py",
                      "import numpy as np\nimport quadrants as qd\n\nc = qd.field(qd.i32, shape=())\nseen = list(np.random.rand(4))\n"
                      "hits = [i for i in range(4) if seen[i] > 0.5]\n\n@qd.kernel\ndef k():\n    c[None] = len(hits)\n\nk()\n",
                      "g.py:10:19: error[QD2062]: 'hits' is a value computed from 'seen' (a module-level value computed by the script), "
                      "known only when the script runs; kernels can use module constants, fields, qd.func and their own arguments\n"
                      " 10 |     c[None] = len(hits)\n    |                   ^~~~\n"
                      "g.py:6:1: note: 'hits' is set here\n 6 | hits = [i for i in range(4) if seen[i] > 0.5]\n   | ^~~~\n");
    expect_py_refused("g.py",
                      "import torch\nimport quadrants as qd\n\n@qd.kernel\ndef k(t: qd.types.ndarray()):\n    t[0] = 1\n\n"
                      "class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n        k(x)\n        return x\n\n"
                      "F.apply(load())\n",
                      "g.py:11:11: error[QD2060]: kernel 'k' is generic and qdc cannot evaluate this call's argument for 't' (only "
                      "fields, compile-time numbers and arrays made by qd.ndarray or numpy with a dtype are known); compile it with "
                      "--instantiate 'k(...)'\n"
                      " 11 |         k(x)\n    |           ^\n");
}

/* numpy's math on a number Python's math refuses (np.log(-1.0) is numpy's nan, with a warning):
 * not evaluated, a run-time value located where a kernel uses it. */
Test(host_eval2, numpy_math_outside_math_stays_run_time) {
    expect_py_refused("g.py",
                      "import numpy as np\nimport quadrants as qd\n\nc = qd.field(qd.f32, shape=())\nbad = np.log(-1.0)\n\n@qd.kernel\n"
                      "def k():\n    c[None] = bad\n\nk()\n",
                      "g.py:9:15: error[QD2062]: 'bad' is a module-level value computed by the script, known only when the script runs; "
                      "kernels can use module constants, fields, qd.func and their own arguments\n"
                      " 9 |     c[None] = bad\n   |               ^~~\n"
                      "g.py:5:1: note: 'bad' is set here\n 5 | bad = np.log(-1.0)\n   | ^~~\n");
}

/* A comprehension over run-time values that no kernel reads is not an error (Python computes
 * it when the script runs); a set literal and `in` over it in host code likewise. */
Test(host_eval2, unused_run_time_comprehensions_compile) {
    expect_py_compiles("g.py", "import numpy as np\nimport quadrants as qd\n\nc = qd.field(qd.i32, shape=4)\n\n@qd.kernel\ndef k():\n"
                               "    for i in range(4):\n        c[i] = i\n\nk()\nolds = list(c.to_numpy())\n"
                               "winners = [i for i in range(4) if olds[i] == 0]\nheads = {0, 3}\nflags = [1 if i in heads else 0 for i in range(4)]\n");
}
