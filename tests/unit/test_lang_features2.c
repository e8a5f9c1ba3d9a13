/* Language features of Quadrants' tests that qdc lacked (issue 30, the compile cluster):
 * BufferView (frontend/sema_bview.c): testdata/lang-features2/bview.py run on x86 with 1, 2 and
 * 4 threads and a view kernel on lavapipe, each element the one Quadrants writes; and the
 * refusals, exact and located. */
#include "../../support/util.h"
#include "harness.h"
#include "test_x86.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char bview_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    int32_t a[12], b[12] = {0};\n"
    "    for (int i = 0; i < 12; i++) a[i] = -1;\n"
    "    views_args v = {.v_buf = a, .v_buf_shape = {12}, .v_offset = 2, .v_size = 6, .base = 10};\n"
    "    if (views(&v, nt)) return 2;\n"
    "    made_args m = {.a = b, .a_shape = {12}, .off = 3, .n = 4};\n"
    "    if (made(&m, nt)) return 2;\n"
    "    for (int i = 0; i < 12; i++) printf(\"%d%s\", a[i], i == 11 ? \"\\n\" : \" \");\n"
    "    for (int i = 0; i < 12; i++) printf(\"%d%s\", b[i], i == 11 ? \"\\n\" : \" \");\n"
    "    float f[16], mt[16] = {0};\n"
    "    for (int i = 0; i < 16; i++) f[i] = (float)i;\n"
    "    scale__f32_1d_args s = {.v_buf = f, .v_buf_shape = {16}, .v_offset = 4, .v_size = 8, .f = 2.0f};\n"
    "    if (scale__f32_1d(&s, nt)) return 2;\n"
    "    diag_args d = {.m_buf = mt, .m_buf_shape = {4, 2, 2}, .m_offset = 1, .m_size = 2};\n"
    "    if (diag(&d, nt)) return 2;\n"
    "    for (int i = 0; i < 16; i++) printf(\"%g%s\", (double)f[i], i == 15 ? \"\\n\" : \" \");\n"
    "    for (int i = 0; i < 16; i++) printf(\"%g%s\", (double)mt[i], i == 15 ? \"\\n\" : \" \");\n"
    "    return 0;\n}\n";

/* views(data[2:8], 10): v[i] = 10 + i on elements 2..7, v[1:3] (elements 3 and 4) += 100 * 2, the
 * qd.func writes 7 * 1000 + 1 through v.subview(5, 1) (element 7); made(b, 3, 4): -1..-4 on
 * elements 3..6, then the view's [3:] (element 6) gets 1 * 77; scale(data[4:12], 2) (the dtype
 * from the call's array): element 4 + i becomes (4 + i) * 2 + i; diag(m[1:3]) of 2x2 matrices:
 * m[1] = diag(1, 1.5), m[2] = diag(2, 2.5). Before, each kernel was QD2011 ("a module or builtin is
 * not subscriptable") or QD2005/QD2008 for 'qd.BufferView'. */
Test(lang_features2, bview_kernels_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/lang-features2/bview.py", bview_host,
                          "-1 -1 10 211 212 13 14 7001 -1 -1 -1 -1\n"
                          "0 0 0 -1 -2 -3 77 0 0 0 0 0\n"
                          "0 1 2 3 8 11 14 17 20 23 26 29 12 13 14 15\n"
                          "0 0 0 0 1 0 0 1.5 2 0 0 2.5 0 0 0 0\n");
}

/* Compiles src for vulkan1.1 and runs its kernel once on lavapipe with arrays arr (read back):
 * 1 when it ran, 0 when skipped (counted); an error fails the test. */
static int run_on_lavapipe(const char *src, const char *kernel, VkArray *arr, int narr, const int32_t *scalar, int items) {
    char *dir = make_temp_dir(), *spv = NULL, *err = NULL;
    char *meta = vk_compile(dir, "k", "vulkan1.1", src, &spv);
    const char *kernels[] = {kernel};
    int rc = vk_run(dir, spv, meta, kernels, 1, arr, narr, scalar, items, VK_FULL, true, &err);
    cr_expect_neq(rc, -1, "%s", err ? err : "");
    free(err), free(meta), free(spv);
    remove_tree(dir);
    free(dir);
    return rc;
}

/* The views kernel on lavapipe (vulkan1.1): every scalar parameter gets the run's one value (4),
 * so the view is elements 4..7 of 12 and base is 4: 4 5 6 7, then elements 5 and 6 += 200, the
 * last element 7 * 1000 + 1; the rest keep the sentinel. */
Test(lang_features2, bview_kernel_on_lavapipe, .timeout = 120) {
    static const char src[] =
        "import quadrants as qd\nfrom quadrants import BufferView\n\n"
        "@qd.func\ndef put(w: BufferView[qd.i32], k: qd.i32, x: qd.i32):\n    w[k] = x\n\n"
        "@qd.kernel\ndef views(v: BufferView[qd.i32], base: qd.i32):\n    for i in range(v.size):\n        v[i] = base + i\n"
        "    sub = v[1:3]\n    for i in range(sub.size):\n        sub[i] += 100 * sub.shape[0]\n"
        "    last = v.subview(v.size - 1, 1)\n    for i in range(last.size):\n        put(last, i, last.offset * 1000 + last.size)\n";
    int32_t got[12];
    for (int i = 0; i < 12; i++) got[i] = -7;
    VkArray arr[1] = {{got, sizeof got, 12}};
    int32_t n = 4;
    if (run_on_lavapipe(src, "views", arr, 1, &n, 12) == 1) {
        const int32_t want[12] = {-7, -7, -7, -7, 4, 205, 206, 7001, -7, -7, -7, -7};
        for (int i = 0; i < 12; i++) cr_expect_eq(got[i], want[i], "o[%d] = %d, want %d", i, got[i], want[i]);
    }
}

/* `v: BufferView` under --instantiate: the spec's array types the view (entry k__f32_1d); a 2-D
 * one is Quadrants' "requires a 1D ndarray". */
Test(lang_features2, bview_without_dtype_under_instantiate) {
    static const char src[] = "import quadrants as qd\nfrom quadrants import BufferView\n\n"
                              "@qd.kernel\ndef k(v: BufferView):\n    v[0] = 1.0\n";
    char *dir = NULL;
    RunResult r = qdc_in_temp("g.py", src, "--target=x86_64", "--instantiate=k(v=f32[1])", &dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    run_free(&r), remove_tree(dir), free(dir);
    r = qdc_in_temp("g.py", src, "--target=x86_64", "--instantiate=k(v=f32[2])", &dir);
    cr_expect_eq(r.status, 1);
    char *want = xasprintf("%s/g.py:5:7: error[QD2005]: BufferView requires a 1D ndarray, got 2 dimensions (Quadrants: \"BufferView "
                           "requires a 1D ndarray\")\n 5 | def k(v: BufferView):\n   |       ^\n", dir);
    cr_expect_str_eq(r.err, want);
    free(want);
    run_free(&r), remove_tree(dir), free(dir);
}

static const char inverse_host[] =
    "#include \"d.h\"\n#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
    "static void show(const double *x, int n) {\n"
    "    for (int i = 0; i < n; i++) printf(\"%.6f%s\", fabs(x[i]) < 5e-7 ? 0.0 : x[i], i == n - 1 ? \"\\n\" : \" \");\n}\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    static const double m4[16] = {4, 1, 2, 1, 1, 5, 0, 1, 2, 0, 6, 1, 1, 1, 1, 3};\n"
    "    for (int i = 0; i < 16; i++) qd_field_m4[i / 4][i % 4] = m4[i];\n"
    "    for (int i = 0; i < 6; i++)\n"
    "        for (int j = 0; j < 6; j++) {\n"
    "            int u = 5 - i; /* the rows of an upper-triangular matrix, reversed: its first pivot is 0 */\n"
    "            qd_field_m6[0][i][j] = u == j ? u + 1 : j > u ? (u + j) % 3 + 1 : 0;\n"
    "            qd_field_m6[1][i][j] = (i * 7 + j * 3) % 5 + (i == j ? 10 : 0);\n"
    "        }\n"
    "    small_args s = {0};\n    large_args l = {0};\n"
    "    if (small(&s, nt) || large(&l, nt)) return 2;\n"
    "    show(&qd_field_i4[0][0], 16);\n    printf(\"%.6f\\n\", qd_field_d4);\n"
    "    show(&qd_field_i6[0][0][0], 36);\n    show(&qd_field_i6[1][0][0], 36);\n"
    "    return 0;\n}\n";

/* inverse.py: each inverse is the exact one (Python's fractions) to 6 decimals, the 4x4
 * determinant 241; the first 6x6 needs a row swap at every step. Before, QD2043 ("inverse is
 * supported for 1x1, 2x2 and 3x3 matrices in qdc"). */
Test(lang_features2, inverses_past_3x3_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads(
        "testdata/lang-features2/inverse.py", inverse_host,
        "0.327801 -0.053942 -0.099585 -0.058091 -0.053942 0.224066 0.029046 -0.066390 -0.099585 0.029046 0.207469 -0.045643 "
        "-0.058091 -0.066390 -0.045643 0.390041\n"
        "241.000000\n"
        "-0.491667 0.033333 0.750000 -0.666667 -1.000000 1.000000 0.070833 -0.216667 -0.125000 -0.166667 0.500000 0.000000 "
        "0.008333 0.033333 -0.250000 0.333333 0.000000 0.000000 -0.108333 -0.100000 0.250000 0.000000 0.000000 0.000000 "
        "-0.033333 0.200000 0.000000 0.000000 0.000000 0.000000 0.166667 0.000000 0.000000 0.000000 0.000000 0.000000\n"
        "0.107266 -0.016955 0.003806 -0.044637 -0.003114 0.007266 -0.003114 0.107266 -0.015917 0.004844 -0.041522 -0.003114 "
        "-0.044637 0.004152 0.105190 0.002768 0.004844 -0.044637 0.003806 -0.042215 -0.002768 0.105190 -0.015917 0.003806 "
        "-0.016955 0.006228 -0.042215 0.004152 0.107266 -0.016955 0.007266 -0.016955 0.003806 -0.044637 -0.003114 0.107266\n");
}

/* A 5x5 f32 inverse on lavapipe (vulkan1.1), of the reversed upper-triangular matrix (every step
 * swaps rows at run time): within 1e-5 of the exact inverse. */
Test(lang_features2, inverse_lu_on_lavapipe, .timeout = 120) {
    static const char src[] =
        "import quadrants as qd\n\n@qd.kernel\ndef inv5(a: qd.types.ndarray(qd.f32, ndim=1), o: qd.types.ndarray(qd.f32, ndim=1)):\n"
        "    for _ in range(1):\n"
        "        m = qd.Matrix([[a[i * 5 + j] for j in qd.static(range(5))] for i in qd.static(range(5))])\n"
        "        r = m.inverse()\n        for i in qd.static(range(5)):\n            for j in qd.static(range(5)):\n"
        "                o[i * 5 + j] = r[i, j]\n";
    static const float want[25] = {1 / 30.0f, 0.75f, -2 / 3.0f, -1, 1, -13 / 60.0f, -0.125f, -1 / 6.0f, 0.5f, 0, 1 / 30.0f, -0.25f,
                                   1 / 3.0f, 0, 0, -0.1f, 0.25f, 0, 0, 0, 0.2f, 0, 0, 0, 0};
    float in[25], got[25];
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            int u = 4 - i;
            in[i * 5 + j] = (float)(u == j ? u + 1 : j > u ? (u + j) % 3 + 1 : 0);
        }
    for (int i = 0; i < 25; i++) got[i] = -99;
    VkArray arr[2] = {{in, sizeof in, 25}, {got, sizeof got, 25}};
    if (run_on_lavapipe(src, "inv5", arr, 2, NULL, 1) == 1)
        for (int i = 0; i < 25; i++) cr_expect(got[i] > want[i] - 1e-5f && got[i] < want[i] + 1e-5f, "o[%d] = %g, want %g", i, got[i], want[i]);
}

/* Past Quadrants' limits: a 13x13 inverse and a 5x5 determinant, in its words. */
Test(lang_features2, inverse_and_determinant_limits) {
    expect_py_refused("g.py", "import quadrants as qd\n\nm = qd.Matrix.field(13, 13, dtype=qd.f32, shape=())\n\n@qd.kernel\n"
                              "def k():\n    m[None] = m[None].inverse()\n",
                      "g.py:7:15: error[QD2043]: inverse is supported for square matrices up to 12x12 (Quadrants: only dimension < 13 "
                      "is supported), got a 13x13 matrix\n"
                      " 7 |     m[None] = m[None].inverse()\n   |               ^~~~~~~~~~~~~~~~~\n");
    expect_py_refused("g.py", "import quadrants as qd\n\nm = qd.Matrix.field(5, 5, dtype=qd.f32, shape=())\nd = qd.field(qd.f32, shape=())\n\n"
                              "@qd.kernel\ndef k():\n    d[None] = m[None].determinant()\n",
                      "g.py:8:15: error[QD2043]: determinant is supported for square matrices up to 4x4 (Quadrants: only dimension < 5 "
                      "is supported), got a 5x5 matrix\n"
                      " 8 |     d[None] = m[None].determinant()\n   |               ^~~~~~~~~~~~~~~~~~~~~\n");
}

#define HEAD "import quadrants as qd\nfrom quadrants import BufferView\n\n"

/* Host code's views: a name bound to data[:16] or to BufferView(data, 2, 4) types a kernel's
 * BufferView parameter like the slice written at the call; the whole array where a view is
 * declared is Quadrants' run-time type error, located at the argument. */
Test(lang_features2, bview_host_values) {
    expect_py_compiles("g.py", HEAD "data = qd.ndarray(qd.f32, shape=(32,))\nview = data[:16]\nb = BufferView(data, 2, 4)\n\n"
                               "@qd.kernel\ndef k(v: BufferView):\n    for i in range(v.size):\n        v[i] = 0.0\n\nk(view)\nk(b)\n");
    expect_py_refused("g.py", HEAD "data = qd.ndarray(qd.f32, shape=(32,))\n\n@qd.kernel\ndef k(v: BufferView[qd.f32]):\n    v[0] = 0.0\n\nk(data)\n",
                      "g.py:10:3: error[QD2069]: Argument v expects a BufferView, got an ndarray (pass a slice of it: data[a:b])\n"
                      " 10 | k(data)\n    |   ^~~~\n");
}

/* What Quadrants rejects when it compiles the kernel, in its words where it has them; a view of
 * a 2-D ndarray; a generic view no call instantiates. */
Test(lang_features2, bview_refusals_are_located) {
    expect_py_refused("g.py", HEAD "@qd.kernel\ndef k(v: BufferView[qd.f32]):\n    s = v[0:4:1]\n    s[0] = 1.0\n",
                      "g.py:6:15: error[QD2011]: BufferView slice does not support an explicit step in kernels\n"
                      " 6 |     s = v[0:4:1]\n   |               ^\n");
    expect_py_refused("g.py", HEAD "@qd.kernel\ndef k(v: BufferView[qd.f32]):\n    v[0, 1:2] = 1.0\n",
                      "g.py:6:6: error[QD2011]: BufferView only supports 1D slicing in kernels\n"
                      " 6 |     v[0, 1:2] = 1.0\n   |      ^~~~~~~~\n");
    expect_py_refused("g.py", HEAD "@qd.kernel\ndef k(a: qd.types.ndarray(qd.f32, ndim=2)):\n    v = BufferView(a, 0, 4)\n    v[0] = 1.0\n",
                      "g.py:6:20: error[QD2019]: BufferView requires a 1D ndarray, got 'a' with 2 dimensions\n"
                      " 6 |     v = BufferView(a, 0, 4)\n   |                    ^\n");
    expect_py_refused("g.py", HEAD "@qd.kernel\ndef k(v: BufferView[qd.f32]):\n    w = BufferView(v, 0, 4)\n",
                      "g.py:6:20: error[QD2019]: Cannot nest BufferView(view, ...); use view.subview(offset, size) instead\n"
                      " 6 |     w = BufferView(v, 0, 4)\n   |                    ^\n");
    expect_py_refused("g.py", HEAD "@qd.kernel\ndef k(v: BufferView[qd.f32]):\n    v[-1] = 2.0\n    v[0.5] = 1.0\n    v.data[0] = 1.0\n",
                      "g.py:6:7: error[QD2171]: Negative indices are not supported in Quadrants kernels.\n"
                      " 6 |     v[-1] = 2.0\n   |       ^~\n"
                      "g.py:7:7: error[QD2011]: array index must be an integer, got f32\n"
                      " 7 |     v[0.5] = 1.0\n   |       ^~~\n"
                      "g.py:8:5: error[QD2019]: 'BufferView' object has no attribute 'data' (a view has size, offset, shape and subview)\n"
                      " 8 |     v.data[0] = 1.0\n   |     ^~~~~~\n");
    expect_py_refused("g.py", HEAD "@qd.kernel\ndef k(v: BufferView[qd.f32]):\n    s = v.subview(1)\n",
                      "g.py:6:9: error[QD2007]: BufferView: takes 2 arguments (offset, size), got 1\n"
                      " 6 |     s = v.subview(1)\n   |         ^~~~~~~~~~~~\n");
    expect_py_refused("g.py", HEAD "@qd.kernel\ndef k(v: BufferView):\n    v[0] = 1.0\n",
                      "g.py:5:10: error[QD2060]: kernel 'k' is generic ('v' has no fixed type) and no call qdc can evaluate "
                      "instantiates it; compile it with --instantiate 'k(v=f32[1])'\n"
                      " 5 | def k(v: BufferView):\n   |          ^~~~~~~~~~\n");
}
