/* numpy values a script computes at module level (issue 30): qdc computes their elements
 * (frontend/py/sema_npvalue.c) and the kernels read them as Quadrants' constants; what the
 * script may change unseen is not guessed. */
#include "harness.h"
#include "test_x86.h"
#include <criterion/criterion.h>

static const char host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    k_args a = {0};\n"
    "    first_args f = {0};\n"
    "    second_args s = {0};\n"
    "    if (k(&a, nt) || first(&f, nt) || second(&s, nt)) return 2;\n"
    "    for (int i = 0; i < 16; i++) printf(\"%d \", qd_field_out[i]);\n"
    "    printf(\"\\n\");\n"
    "    for (int i = 0; i < 8; i++) printf(\"%g \", qd_field_fout[i]);\n"
    "    printf(\"\\n\");\n"
    "    return 0;\n}\n";

/* testdata/host-eval/numpy_values.py on 1, 2 and 4 threads, the values numpy computes:
 * prod([3, 3, 3]) = 27, prod([2, 2, 2]) * 5 = 40, sum(range(3, 8)) = 25 (a 0-d int32 array as a
 * range bound), the 8 points of ndrange(*(cube - 1)) summed as 100 x + 10 y + z = 444,
 * arange(12).reshape(3, 4)[2, -1] = 11, its column 1 summed 15, .T[3, 0] = 3, the stored
 * m[1, 0] = 7 + size 4 * 10, shape[0] 3 + ndim 2 * 10, int32(5) + 3, grid[1:, ::2] summed 28,
 * a 0-d array in the kernel 6, (grid // 5 % 3)[2, 3] = 2, -3 + 9, int8 100 * 2 wrapping to -56
 * (and 54): -56 * 1000 + 54; snap[1] at first()'s first call 2; linspace(0, 1, 5) as float32,
 * 0.5 + 1.5, max 1.5 * 4, and second() reading snap[1] = 20 stored after first() + grid[2, 0] 8. */
Test(npvalue, module_values_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/host-eval/numpy_values.py", host,
                          "27 40 25 444 11 15 3 47 23 8 28 6 2 6 -55946 2 \n"
                          "0 0.25 0.5 0.75 1 2 6 28 \n");
}

/* An array the script passes to a kernel: the kernel may write it, so a later kernel reading it
 * reads a value only the running script has. */
Test(npvalue, array_a_kernel_writes_is_not_guessed) {
    expect_k_py_refused("import numpy as np\n"
                        "import quadrants as qd\n"
                        "out = qd.field(qd.i32, shape=4)\n"
                        "arr = np.zeros(4, dtype=np.int32)\n"
                        "@qd.kernel\n"
                        "def fill(a: qd.types.ndarray()):\n"
                        "    for i in range(4):\n"
                        "        a[i] = i + 1\n"
                        "@qd.kernel\n"
                        "def use():\n"
                        "    out[0] = arr[0]\n"
                        "fill(arr)\n"
                        "use()\n",
                        "k.py:11:14: error[QD2062]: 'arr' is an array the script allocates, known only when the script runs; "
                        "kernels can use module constants, fields, qd.func and their own arguments\n"
                        " 11 |     out[0] = arr[0]\n"
                        "    |              ^~~\n"
                        "k.py:4:1: note: 'arr' is set here\n"
                        " 4 | arr = np.zeros(4, dtype=np.int32)\n"
                        "   | ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
}

/* numpy's view a[:, 0] is not contiguous: Quadrants refuses it as a kernel argument
 * (_func_base.py); a contiguous one (a row, a run of elements) it takes. */
Test(npvalue, non_contiguous_view_is_refused) {
    expect_k_py_refused("import numpy as np\n"
                        "import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def fill(img: qd.types.ndarray()):\n"
                        "    img[0] = 1\n"
                        "a = np.zeros(shape=(2, 2))[:, 0]\n"
                        "fill(a)\n",
                        "k.py:7:6: error[QD2069]: Non contiguous numpy arrays are not supported, please call "
                        "np.ascontiguousarray(arr) before passing it into quadrants kernel.\n"
                        " 7 | fill(a)\n"
                        "   |      ^\n");
    expect_k_py_compiles("import numpy as np\n"
                         "import quadrants as qd\n"
                         "@qd.kernel\n"
                         "def fill(img: qd.types.ndarray()):\n"
                         "    img[0] = 1\n"
                         "a = np.zeros(shape=(2, 2))\n"
                         "row = a[1, :]\n"
                         "mid = np.arange(6)[1:4]\n"
                         "fill(row)\n"
                         "fill(mid)\n");
}

/* An index outside the array's shape is refused where the kernel reads it (Python's IndexError). */
Test(npvalue, index_outside_the_shape) {
    expect_k_py_refused("import numpy as np\n"
                        "import quadrants as qd\n"
                        "out = qd.field(qd.i32, shape=4)\n"
                        "a = np.arange(4)\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    out[0] = a[4]\n"
                        "k()\n",
                        "k.py:7:16: error[QD2011]: a numpy array's index must be compile-time integers or slices within its shape\n"
                        " 7 |     out[0] = a[4]\n"
                        "   |                ^\n");
}

static const char alias_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int32_t a[4] = {1, 1, 1, 1};\n"
    "    float b[4] = {0};\n"
    "    k_args s = {.s__a = a, .s__a_shape = {4}, .s__b = b, .s__b_shape = {2, 2}};\n"
    "    if (k(&s, atoi(argv[1]))) return 2;\n"
    "    printf(\"%d %d %d %d %g\\n\", a[0], a[1], a[2], a[3], b[2]);\n"
    "    return 0;\n}\n";

/* testdata/host-eval/annotation_alias.py: the members annotated qd_anno[qd.i32, 1] and
 * qd_anno[qd.f32, 2] are an i32 1-d and an f32 2-d ndarray: a[i] += 3 i from 1, b[1, 0] = 2.5. */
Test(npvalue, annotation_through_a_name_runs_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/host-eval/annotation_alias.py", alias_host, "1 4 7 10 2.5\n");
}
