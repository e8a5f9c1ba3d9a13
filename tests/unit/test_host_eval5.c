/* Host code qdc follows to the kernels it compiles (issue 30, fifth round): host functions with
 * keyword-only parameters (a bare '*') called with keywords and with **d, a host call whose
 * argument is a helper's result (run(qd.i32, twice(4))), a helper that grows a list of its own
 * (xs.append / xs.extend), and a qd.func called as module.func(...) whose loop is the kernel's
 * parallel loop (Genesis' solver_breakdown.py: solver.func_hessian_direct_tiled(...)). */
#include "harness.h"
#include "support/util.h"
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *path_join_tmp(const char *dir) { /* qdc_in_temp's output, <dir>/out */
    size_t n = strlen(dir) + 5;
    char *p = malloc(n);
    snprintf(p, n, "%s/out", dir);
    return p;
}

static const char host5[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    run__i32_8_3_None__fill_args a = {0};\n"
    "    run__i32_2_10_None__fill_args b = {0};\n"
    "    if (run__i32_8_3_None__fill(&a, nt)) return 2;\n"
    "    for (int i = 0; i < 8; i++) printf(\"%d \", qd_field_out[i]);\n"
    "    printf(\"\\n\");\n"
    "    if (run__i32_2_10_None__fill(&b, nt)) return 2;\n"
    "    for (int i = 0; i < 8; i++) printf(\"%d \", qd_field_out[i]);\n"
    "    printf(\"\\n\");\n"
    "    return 0;\n}\n";

/* testdata/host-eval/host_eval5.py on 1, 2 and 4 threads. TOTAL = SQ[3] + SQ[4] + len(SQ) =
 * 9 + 100 + 5 = 114 (squares(4) = [0, 1, 4, 9, 100]). run(qd.i32, twice(4), **{"base": 3}):
 * out[i] = 3 + i + 114 for i < 8, then lib.spread adds 1000 i: 117 + 1001 i. run(qd.i32, 2,
 * base=10): out[0] = 124, out[1] = 125, then 1000 i more everywhere. */
Test(host_eval5, keyword_only_helpers_and_module_funcs_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/host-eval/host_eval5.py", host5,
                          "117 1118 2119 3120 4121 5122 6123 7124 \n"
                          "124 1125 4119 6120 8121 10122 12123 14124 \n");
}

/* One entry per call Python makes, named by the call's values (base from **kwargs: 3). */
Test(host_eval5, entries_are_the_calls_python_makes) {
    char *path = root_path("testdata/host-eval/host_eval5.py");
    RunResult r = run_qdc("--target=x86_64", "--check", "--stats", path, NULL);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect_str_eq(r.out, "host_eval5: 2 kernels (run__i32_8_3_None__fill, run__i32_2_10_None__fill), 6 tasks, 2 atomics, "
                            "0 volatile loads, 0 fences\n");
    run_free(&r);
    free(path);
}

/* A keyword-only parameter passed by position is Python's TypeError when the script runs: the
 * call binds nothing, and a kernel reading the parameter is refused where it reads it. */
Test(host_eval5, keyword_only_parameter_by_position_is_refused) {
    expect_py_refused("k.py",
                      "import quadrants as qd\n"
                      "x = qd.field(qd.i32, shape=4)\n"
                      "def run(a, *, n=2):\n"
                      "    @qd.kernel\n"
                      "    def k():\n"
                      "        for i in range(n):\n"
                      "            x[i] = a\n"
                      "    k()\n"
                      "run(1, 3)\n",
                      "k.py:6:24: error[QD2062]: 'n' is a parameter of the host function 'run' whose argument qdc cannot evaluate, "
                      "known only when the script runs; kernels can use module constants, fields, qd.func and their own arguments\n"
                      " 6 |         for i in range(n):\n"
                      "   |                        ^\n"
                      "k.py:3:17: note: 'n' is set here\n"
                      " 3 | def run(a, *, n=2):\n"
                      "   |                 ^\n");
}

/* A helper that appends to a list its caller passes changes the caller's list: qdc does not
 * evaluate it (the value is the script's), located where a kernel reads it. */
Test(host_eval5, growing_a_parameter_list_is_not_evaluated) {
    expect_py_refused("g.py",
                      "import quadrants as qd\n"
                      "x = qd.field(qd.i32, shape=4)\n"
                      "def grow(xs, v):\n"
                      "    xs.append(v)\n"
                      "    return len(xs)\n"
                      "N = grow([1], 2)\n"
                      "@qd.kernel\n"
                      "def k():\n"
                      "    x[0] = N\n"
                      "k()\n",
                      "g.py:9:12: error[QD2062]: 'N' is a module-level value computed by the script, known only when the script runs; "
                      "kernels can use module constants, fields, qd.func and their own arguments\n"
                      " 9 |     x[0] = N\n"
                      "   |            ^\n"
                      "g.py:6:1: note: 'N' is set here\n"
                      " 6 | N = grow([1], 2)\n"
                      "   | ^\n");
}

/* Quadrants cooks `float` when a vector type is made (MatrixType.__init__ -> cook_dtype ->
 * impl.get_runtime().default_fp): a type made before qd.init(default_fp=qd.f64) is f32, one made
 * after it f64; `real = float` stays float itself, f64 where the kernel uses it. */
Test(host_eval5, a_type_made_before_init_keeps_the_default_of_then) {
    char *dir = NULL;
    RunResult r = qdc_in_temp("t.py",
                              "import quadrants as qd\n"
                              "real = float\n"
                              "vec_before = qd.types.vector(2, real)\n"
                              "qd.init(arch=qd.cpu, default_fp=qd.f64)\n"
                              "vec_after = qd.types.vector(2, float)\n"
                              "@qd.kernel\n"
                              "def k(out: qd.types.ndarray(qd.f64, ndim=1), x: real):\n"
                              "    a = vec_before(1.5, 2.5)\n"
                              "    b = vec_after(1.5, 2.5)\n"
                              "    out[0] = a[0] + b[1] + x\n"
                              "k(qd.ndarray(qd.f64, (1,)), 1.0)\n",
                              "--emit=ir", NULL, &dir);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    char *out = path_join_tmp(dir);
    char *ir = read_text(out, NULL);
    cr_assert(ir, "no IR written");
    cr_expect(strstr(ir, "kernel k(out: ndarray(f64, 1), x: f64)\n") != NULL, "%s", ir);
    cr_expect(strstr(ir, "  local %0 a_0: f32\n  local %1 a_1: f32\n  local %2 b_0: f64\n  local %3 b_1: f64\n") != NULL, "%s", ir);
    free(ir);
    free(out);
    run_free(&r);
    remove_tree(dir);
    free(dir);
}

/* Python's max(iterable) / min(iterable) in host code, of a compile-time list (it was QD2007
 * "'max' takes at least 2 arguments", a false refusal of valid Python): folded to 9 and 2. */
Test(host_eval5, max_and_min_of_one_iterable_in_host_code) {
    char *dir = NULL;
    RunResult r = qdc_in_temp("m.py",
                              "import quadrants as qd\n"
                              "out = qd.field(qd.i32, shape=1)\n"
                              "S = [4, 9, 2]\n"
                              "V = max(S)\n"
                              "W = min(S)\n"
                              "@qd.kernel\n"
                              "def k():\n"
                              "    out[0] = V * 10 + W\n"
                              "k()\n",
                              "--emit=ir", NULL, &dir);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    char *out = path_join_tmp(dir);
    char *ir = read_text(out, NULL);
    cr_assert(ir, "no IR written");
    cr_expect(strstr(ir, "    store field out[0:i32]:i32 = 92:i32\n") != NULL, "%s", ir);
    free(ir);
    free(out);
    run_free(&r);
    remove_tree(dir);
    free(dir);
}
