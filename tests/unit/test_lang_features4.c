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
