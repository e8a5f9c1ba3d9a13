/* Host code qdc follows to the kernels it compiles (issue 30, fourth round): numpy arrays whose
 * dtype and ndim host code makes evident (np.eye, np.identity, the sum of two arrays with numpy's
 * float promotion, np.asarray of a list comprehension), Quadrants' host-side sparse solvers as
 * objects of the running script, and a kernel named like a C keyword (its launcher is
 * "<kernel>_", qdc-abi(7) NAMES). */
#include "harness.h"
#include "support/util.h"
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char host4[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    float m[16] = {0}, v[4] = {1, 2, 3, 4};\n"
    "    double md[16] = {0};\n"
    "    fill__f32_2d__f32_1d_args a = {.m = m, .m_shape = {4, 4}, .v = v, .v_shape = {4}};\n"
    "    fill__f64_2d__f32_1d_args b = {.m = md, .m_shape = {4, 4}, .v = v, .v_shape = {4}};\n"
    "    double_args d = {0};\n"
    "    if (fill__f32_2d__f32_1d(&a, nt) || fill__f64_2d__f32_1d(&b, nt) || double_(&d, nt) || double_(&d, nt)) return 2;\n"
    "    for (int i = 0; i < 16; i++) printf(\"%g,%g \", m[i], md[i]);\n"
    "    printf(\"\\n\");\n"
    "    for (int i = 0; i < 4; i++) printf(\"%d \", qd_field_out[i]);\n"
    "    printf(\"\\n\");\n"
    "    return 0;\n}\n";

/* testdata/host-eval/host_eval4.py on 1, 2 and 4 threads: fill(m, v) writes m[i, j] = 10 i + j +
 * v[j] (v = 1, 2, 3, 4) into the f32 entry and the f64 one; double() run twice from 0 gives
 * 2 (2 * 0 + 1) + 1 = 3 in every element, through its launcher double_. */
Test(host_eval4, numpy_sums_and_a_keyword_kernel_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/host-eval/host_eval4.py", host4,
                          "1,1 3,3 5,5 7,7 11,11 13,13 15,15 17,17 21,21 23,23 25,25 27,27 31,31 33,33 35,35 37,37 \n"
                          "3 3 3 3 \n");
}

/* The entries are the calls Python makes: fill of (f32 2-d, f32 1-d) for
 * (np.dot(A, A.T) + np.eye(n)).astype(np.float32) and np.asarray([... for ...], dtype=np.float32),
 * fill of (f64 2-d, f32 1-d) for np.identity(n) + np.ones(..., dtype=np.float32) (numpy promotes
 * to float64) and vals * 2; the sparse solver makes none. */
Test(host_eval4, entries_are_the_calls_python_makes) {
    char *path = root_path("testdata/host-eval/host_eval4.py");
    RunResult r = run_qdc("--target=x86_64", "--check", "--stats", path, NULL);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect_str_eq(r.out, "host_eval4: 3 kernels (double, fill__f32_2d__f32_1d, fill__f64_2d__f32_1d), 3 tasks, 0 atomics, "
                            "0 volatile loads, 0 fences\n");
    run_free(&r);
    free(path);
}

/* A solver is the running script's object: a kernel cannot read it (located, exit 1, no output). */
Test(host_eval4, sparse_solver_in_a_kernel_is_refused) {
    expect_py_refused("s.py",
                      "import quadrants as qd\n"
                      "solver = qd.linalg.SparseSolver(dtype=qd.f32)\n"
                      "x = qd.field(qd.f32, shape=4)\n"
                      "@qd.kernel\n"
                      "def k():\n"
                      "    for i in range(4):\n"
                      "        x[i] = solver\n"
                      "k()\n",
                      "s.py:7:16: error[QD2062]: 'solver' is a module-level value that is not a compile-time constant, known only "
                      "when the script runs; kernels can use module constants, fields, qd.func and their own arguments\n"
                      " 7 |         x[i] = solver\n"
                      "   |                ^~~~~~\n"
                      "s.py:2:1: note: 'solver' is set here\n"
                      " 2 | solver = qd.linalg.SparseSolver(dtype=qd.f32)\n"
                      "   | ^~~~~~\n");
}

/* Arrays numpy would not add in a way qdc follows (an int64 array plus a float32 one) leave the
 * generic kernel without an instance: the call is located (QD2060), never a guessed dtype. */
Test(host_eval4, mixed_int_and_float_arrays_are_not_guessed) {
    expect_py_refused("s.py",
                      "import numpy as np\n"
                      "import quadrants as qd\n"
                      "@qd.kernel\n"
                      "def k(a: qd.types.ndarray()):\n"
                      "    for i in range(4):\n"
                      "        a[i] = 1\n"
                      "k(np.arange(4) + np.ones(4, dtype=np.float32))\n",
                      "s.py:7:3: error[QD2060]: kernel 'k' is generic and qdc cannot evaluate this call's argument for 'a' (only fields, "
                      "compile-time numbers and arrays made by qd.ndarray or numpy with a dtype are known); compile it with "
                      "--instantiate 'k(...)'\n"
                      " 7 | k(np.arange(4) + np.ones(4, dtype=np.float32))\n"
                      "   |   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
}
