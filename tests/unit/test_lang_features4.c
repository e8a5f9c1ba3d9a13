/* Kernel-language features of issue #30's fourth round (qdc-lang(7)): quantized floats that
 * share one exponent (BitpackedFields.place(..., shared_exponent=True)), run on x86 with 1, 2
 * and 8 threads and on lavapipe, every value checked against a hand computation; and the forms
 * Quadrants accepts that qdc refused before. */
#include "../../support/util.h"
#include "harness.h"
#include "test_x86.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* testdata/quant/shared_exp.py, by hand (f32 bits; digits keep the leading 1):
 * a = 3.2 (0x404ccccd) with b = 0: shared f32 exponent 128, a's 10 digits
 * (0xcccccd + 2^13) >> 14 = 819 -> 819 / 256 = 3.19921875; b = 0.25 (exponent 125, 3 below):
 * (0x800000 >> 3 + 2^9) >> 10 = 1024 -> 0.25 exactly. a = 100 (exponent 133) moves the shared
 * exponent; b's digits become 32 (0.25 still). a = 1000 then b = 1e-6: b is 29 exponents below,
 * its digits shift out: 0. 1e-30 is below the 5-bit exponent's range: both read 0. 20 contended
 * a += 4 and 40 b += 1 from 0: 80 and 40 (all exact). The signed pair p (frac 10: 9 digits and
 * the sign), q (frac 13) with an int r in one word: p = 3i - 17, q = 2i, r = i exactly. */
static const char want_shared[] = "3.19921875 0.25 100 0.25 1000 0 0 0 80 40 "
                                  "-17 -14 -11 -8 -5 -2 1 4 7 10 13 16 0 2 4 6 8 10 12 14 16 18 20 22 "
                                  "0 1 2 3 4 5 6 7 8 9 10 11 \n";

static const char shared_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    float o[46] = {0};\n"
    "    run_args a = {.o = o, .o_shape = {46}};\n"
    "    if (run(&a, nt)) return 2;\n"
    "    for (int i = 0; i < 46; i++) printf(\"%.9g \", o[i]);\n"
    "    printf(\"\\nword %08x\\n\", qd_field_a_bits);\n"
    "    return 0;\n}\n";

Test(lang_features4, shared_exponent_runs_on_x86, .timeout = 240) {
    if (!x86_have_runtime()) return;
    char *src = root_path("testdata/quant/shared_exp.py");
    /* the last word: exponent 133 - 112 = 21 in bits 0-4, a's digits 80 * 2^3 = 640 from bit 5,
     * b's 40 * 2^7 = 5120 from bit 15 (its 14 digits: 2^6 at bit 13) */
    char *want = xasprintf("%sword %08x\n", want_shared, 21u | 640u << 5 | 5120u << 15);
    const char *threads[] = {"1", "2", "8"};
    for (int t = 0; t < 3; t++) {
        char *dir = make_temp_dir();
        RunResult r = x86_compile_and_run(dir, src, "--target=x86_64", shared_host, threads[t], NULL);
        cr_expect_eq(r.status, 0, "%s threads: status %d\n%s%s", threads[t], r.status, r.out, r.err);
        cr_expect_str_eq(r.out, want, "%s threads:\n%s", threads[t], r.out);
        run_free(&r);
        remove_tree(dir);
        free(dir);
    }
    free(src), free(want);
}

Test(lang_features4, shared_exponent_on_lavapipe, .timeout = 240) {
    char *path = root_path("testdata/quant/shared_exp.py"), *src = read_text(path, NULL);
    cr_assert(src);
    char *dir = make_temp_dir(), *spv = NULL;
    char *meta = vk_compile(dir, "s", "vulkan1.3", src, &spv);
    float o[46];
    memset(o, 0x55, sizeof o);
    VkArray arr[1] = {{o, sizeof o, 46}};
    const char *kernels[] = {"run"};
    char *err = NULL;
    int rc = vk_run(dir, spv, meta, kernels, 1, arr, 1, NULL, 60, VK_FULL, true, &err);
    cr_expect_neq(rc, -1, "%s", err ? err : "");
    if (rc == 1) {
        char got[1024] = "", *p = got;
        for (int i = 0; i < 46; i++) p += sprintf(p, "%.9g ", o[i]);
        sprintf(p, "\n");
        cr_expect_str_eq(got, want_shared);
    }
    free(err), free(meta), free(spv), free(src), free(path);
    remove_tree(dir);
    free(dir);
}

/* Quadrants' checks of a shared-exponent place(): floats of different exponent widths, one field
 * alone; both located at the place() and no member reported again as never placed. The word
 * holds exp + frac bits per float: two signed 5/10 floats sharing an exponent need
 * 5 + 10 + 10 = 25 bits, so a third 8-bit int still fits 32 bits, a 16-bit one does not. */
Test(lang_features4, shared_exponent_misuse) {
    const char *head = "import quadrants as qd\n\n"
                       "e5 = qd.types.quant.float(exp=5, frac=10)\ne6 = qd.types.quant.float(exp=6, frac=10)\n"
                       "x = qd.field(dtype=e5)\ny = qd.field(dtype=e6)\nb = qd.BitpackedFields(max_num_bits=32)\n";
    char *t1 = xasprintf("%sb.place(x, y, shared_exponent=True)\n", head);
    expect_py_refused("s.py", t1,
                      "s.py:8:12: error[QD2063]: QuantFloatTypes with shared exponents must have exactly the same exponent type: "
                      "6 exponent bits here, 5 before\n 8 | b.place(x, y, shared_exponent=True)\n   |            ^\n");
    char *t2 = xasprintf("%sb.place(x, shared_exponent=True)\nb.place(y)\nqd.root.place(b)\n", head);
    expect_py_refused("s.py", t2,
                      "s.py:8:1: error[QD2063]: At least 2 fields need to be placed when shared_exponent=True\n"
                      " 8 | b.place(x, shared_exponent=True)\n   | ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
    const char *fit = "import quadrants as qd\n\n"
                      "e5 = qd.types.quant.float(exp=5, frac=10)\nx = qd.field(dtype=e5)\ny = qd.field(dtype=e5)\n"
                      "z = qd.field(dtype=qd.types.quant.int(%d, False))\nb = qd.BitpackedFields(max_num_bits=32)\n"
                      "b.place(x, y, shared_exponent=True)\nb.place(z)\nqd.root.place(b)\n\n%s";
    char *t3 = xasprintf(fit, 7, "@qd.kernel\ndef k(v: qd.f32):\n    x[None] = v\n    y[None] += v\n    z[None] = 1\n");
    char *t4 = xasprintf(fit, 8, "");
    expect_py_compiles("s.py", t3);
    expect_py_refused("s.py", t4,
                      "s.py:9:9: error[QD2063]: the fields placed need 33 bits, more than max_num_bits=32\n"
                      " 9 | b.place(z)\n   |         ^\n");
    free(t1), free(t2), free(t3), free(t4);
}

/* qd.block_local (and qd.cache_read_only) may stand between qd.loop_config and its loop, as in
 * Quadrants; another statement there is still QD2017. */
Test(lang_features4, loop_config_before_block_local) {
    const char *src = "import quadrants as qd\n\n"
                      "a = qd.field(dtype=qd.f32)\nb = qd.field(dtype=qd.f32)\n"
                      "blk = qd.root.pointer(qd.ij, 4)\nblk.dense(qd.ij, 8).place(a)\nblk.dense(qd.ij, 8).place(b)\n\n"
                      "@qd.kernel\ndef k():\n    qd.loop_config(block_dim=64)\n    qd.block_local(a)\n"
                      "    for i, j in a:\n        b[i, j] += a[i + 1, j]\n";
    expect_py_compiles("l.py", src);
    expect_py_refused("l.py",
                      "import quadrants as qd\n\nb = qd.field(dtype=qd.f32, shape=8)\n\n"
                      "@qd.kernel\ndef k():\n    qd.loop_config(block_dim=64)\n    print(1)\n    for i in b:\n        b[i] = 1.0\n",
                      "l.py:7:5: error[QD2017]: qd.loop_config must directly precede a top-level for loop\n"
                      " 7 |     qd.loop_config(block_dim=64)\n   |     ^~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
}

/* testdata/lang-features4/big_vectors.py: a 1024-component argument (sum of i * (i % 7) for
 * a[i] = i: 1570304), a 1024-component return value (i * i + 5; sum 357394944), a
 * 100-component vector field (2070 - 1069 = 1001), and the slice m[r, :] of a 2 x 100 matrix
 * at a run-time row read past component 64 (1000 + j; 65..99 sum to 37870). */
static const char big_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    total_args ta;\n"
    "    int32_t *p = &ta.a_0, r = 0, sq[1024], o[4] = {0};\n"
    "    for (int i = 0; i < 1024; i++) p[i] = i;\n"
    "    if (sizeof ta != 4096 || &ta.a_1023 != p + 1023 || total(&ta, nt, &r)) return 2;\n"
    "    squares_args sa = {.k = 5};\n"
    "    if (squares(&sa, nt, sq)) return 3;\n"
    "    long long s = 0;\n"
    "    for (int i = 0; i < 1024; i++) s += sq[i];\n"
    "    fields_args fa = {.o = o, .o_shape = {4}};\n"
    "    slices_args la = {.o = o, .o_shape = {4}};\n"
    "    if (fields(&fa, nt) || slices(&la, nt)) return 4;\n"
    "    printf(\"%d %lld %d %d %d %d %d %d %d\\n\", r, s, sq[0], sq[64], sq[1023], o[0], o[1], o[2], o[3]);\n"
    "    return 0;\n}\n";

Test(lang_features4, vectors_past_64_components_on_x86, .timeout = 300) {
    if (!x86_have_runtime()) return;
    char *src = root_path("testdata/lang-features4/big_vectors.py");
    const char *threads[] = {"1", "2", "8"};
    for (int t = 0; t < 3; t++) {
        char *dir = make_temp_dir();
        RunResult r = x86_compile_and_run(dir, src, "--target=x86_64", big_host, threads[t], NULL);
        cr_expect_eq(r.status, 0, "%s threads: status %d\n%s%s", threads[t], r.status, r.out, r.err);
        cr_expect_str_eq(r.out, "1570304 357394944 5 4101 1046534 1099 1064 1001 37870\n", "%s threads", threads[t]);
        run_free(&r);
        remove_tree(dir);
        free(dir);
    }
    free(src);
}

/* Its slice kernel alone (the module's 1028 fields are more than vk_exec.h holds) on lavapipe,
 * with a 100-component local vector read at run-time indices past 64 (o[2]: 64 + 99 = 163). */
static const char big_slices[] =
    "import quadrants as qd\n\nm2x100 = qd.types.matrix(2, 100, qd.i32)\n\n\n"
    "@qd.kernel\ndef slices(o: qd.types.ndarray(qd.i32, ndim=1)):\n"
    "    for _ in range(1):\n        m = m2x100(0)\n        for j in range(100):\n            m[1, j] = 1000 + j\n"
    "        r = 1\n        row = m[r, :]\n        o[0] = row[99]\n        o[1] = row[64]\n        s = 0\n"
    "        for j in qd.static(range(65, 100)):\n            s += row[j]\n        o[3] = s\n"
    "        v = qd.Vector([k for k in range(100)])\n        t = 0\n"
    "        for j in range(2):\n            t += v[64 + j * 35]\n        o[2] = t\n";

Test(lang_features4, vectors_past_64_components_on_lavapipe, .timeout = 300) {
    char *dir = make_temp_dir(), *spv = NULL;
    char *meta = vk_compile(dir, "b", "vulkan1.3", big_slices, &spv);
    int32_t o[4];
    memset(o, 0x55, sizeof o);
    VkArray arr[1] = {{o, sizeof o, 4}};
    const char *kernels[] = {"slices"};
    char *err = NULL;
    int rc = vk_run(dir, spv, meta, kernels, 1, arr, 1, NULL, 1, VK_FULL, true, &err);
    cr_expect_neq(rc, -1, "%s", err ? err : "");
    if (rc == 1) {
        char got[128];
        snprintf(got, sizeof got, "%d %d %d %d", o[0], o[1], o[2], o[3]);
        cr_expect_str_eq(got, "1099 1064 163 37870");
    }
    free(err), free(meta), free(spv);
    remove_tree(dir);
    free(dir);
}

/* Past the limit: QD2043 with the limit, for one dimension and for a matrix's product. */
Test(lang_features4, vector_size_limit) {
    expect_py_refused("v.py", "import quadrants as qd\n\nv = qd.types.vector(4097, qd.f32)\n",
                      "v.py:3:21: error[QD2043]: the size of a vector or matrix must be between 1 and 4096, got 4097\n"
                      " 3 | v = qd.types.vector(4097, qd.f32)\n   |                     ^~~~\n");
    expect_py_refused("v.py", "import quadrants as qd\n\nm = qd.types.matrix(65, 64, qd.f32)\n",
                      "v.py:3:5: error[QD2043]: a 65 x 64 matrix has 4160 components; qdc supports at most 4096\n"
                      " 3 | m = qd.types.matrix(65, 64, qd.f32)\n   |     ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
}

/* testdata/lang-features4/singles.py: {x[j]: x[j] + j ... if j > 2 if j < 5} with x[i] = 2i
 * holds x[3] + 3 and x[4] + 4 (21); an np.int32 (5, 2, 2) array for an ndarray of qd.math.mat2
 * makes an entry of i32 2x2 elements (Quadrants checks only the element shape of a numpy array):
 * a[i][j, k] = j^2 + k^2 + 10i; y with offset=None (computed) starts at 0: y[0] + y[2] = 1 + 7. */
static const char singles_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    for (int i = 0; i < 8; i++) qd_field_x[i] = 2 * i;\n"
    "    int32_t r = 0, r2 = 0, m[20];\n"
    "    dictcomp_args da = {0};\n"
    "    mat_elems__i32_3d_args ma = {.a = m, .a_shape = {5, 2, 2}};\n"
    "    no_offset_args na = {0};\n"
    "    if (dictcomp(&da, nt, &r) || mat_elems__i32_3d(&ma, nt) || no_offset(&na, nt, &r2)) return 2;\n"
    "    printf(\"%d %d |\", r, r2);\n"
    "    for (int i = 0; i < 20; i++) printf(\" %d\", m[i]);\n"
    "    printf(\"\\n\");\n"
    "    return 0;\n}\n";

Test(lang_features4, singles_on_x86, .timeout = 240) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/lang-features4/singles.py", singles_host,
                          "21 8 | 0 1 1 2 10 11 11 12 20 21 21 22 30 31 31 32 40 41 41 42\n");
}
