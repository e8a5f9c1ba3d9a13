/* Quantized types (qd.types.quant.int / fixed / float) in qd.BitpackedFields words
 * (frontend/sema_quant.c, qdc-lang(7) "Quantized types", qdc-abi(7) "Bit-packed fields"):
 * testdata/quant/basic.py run on x86 on 1, 2 and 8 threads and on lavapipe with exact values
 * (decoded members and the raw words), and exact diagnostics for misuse. */
#include "../../support/util.h"
#include "harness.h"
#include "test_x86.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* x[i] = -(2^i) (13 bits, signed), y[i] = 2^i - 1 (19 bits, unsigned) in one u32; a (fixed,
 * 10 bits, max 2.0: scale 2^-8), b (int 5), c (uint 2) in one word updated by 45 parallel
 * iterations: a += 1/32 fifteen times, b -= 1 fifteen times, c += 1 three times; f (float 5/10,
 * signed) and g (float 5/10, unsigned) in one u32. */
static const char want_ints[] =
    "-1 -2 -4 -8 -16 -32 -64 -128 -256 -512 -1024 -2048 0 1 3 7 15 31 63 127 255 511 1023 2047 -15 3 \n";
/* f signed: frac=10 counts the sign, as in Quadrants: 9 fraction bits: 1.5 exact; -1/3 rounded
 * to 171/512 (-0.33349609375); 100000 to 99968; 1e-6 below the smallest exponent: 0; g unsigned
 * (10 fraction bits) stores the magnitude, as Quadrants does: 1.5, pi to 3.140625, 100032, 0 */
static const char want_floats[] = "0.46875 1.5 -0.333496094 99968 0 1.5 3.140625 100032 0 \n";

static const char basic_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    int32_t o[26] = {0};\n"
    "    float of[9] = {0};\n"
    "    run_args a = {.o = o, .o_shape = {26}, .of = of, .of_shape = {9}};\n"
    "    if (run(&a, nt)) return 2;\n"
    "    for (int i = 0; i < 26; i++) printf(\"%d \", o[i]);\n"
    "    printf(\"\\n\");\n"
    "    for (int i = 0; i < 9; i++) printf(\"%.9g \", of[i]);\n"
    "    printf(\"\\nwords %08x %08x %08x %016llx %016llx\\n\", qd_field_x_bits[1], qd_field_x_bits[11], qd_field_a_bits,\n"
    "           (unsigned long long)qd_field_f_bits[1], (unsigned long long)qd_field_f_bits[2]);\n"
    "    return 0;\n}\n";

Test(quant, bitpacked_runs_on_x86, .timeout = 180) {
    if (!x86_have_runtime()) return;
    char *src = root_path("testdata/quant/basic.py");
    /* f[1] = -1/3: exponent 125 - 112 = 13, fraction 171 from bit 5, sign at bit 14; g[1] = pi from
     * bit 15: exponent 16, fraction 584 (0x556d | 0x4910 << 15). f[2] = 100000: 31 | 269 << 5;
     * g[2] = |-100000|: 31 | 539 << 5 (0x21bf | 0x437f << 15) */
    char *want = xasprintf("%s%swords 00003ffe 00fff800 0001c478 000000002488556d 0000000021bfa1bf\n", want_ints, want_floats);
    const char *threads[] = {"1", "2", "8"};
    for (int t = 0; t < 3; t++) {
        char *dir = make_temp_dir();
        RunResult r = x86_compile_and_run(dir, src, "--target=x86_64", basic_host, threads[t], NULL);
        cr_expect_eq(r.status, 0, "%s threads: status %d\n%s%s", threads[t], r.status, r.out, r.err);
        cr_expect_str_eq(r.out, want, "%s threads:\n%s", threads[t], r.out);
        run_free(&r);
        remove_tree(dir);
        free(dir);
    }
    free(src), free(want);
}

Test(quant, bitpacked_on_lavapipe, .timeout = 180) {
    char *path = root_path("testdata/quant/basic.py"), *src = read_text(path, NULL);
    cr_assert(src);
    char *dir = make_temp_dir(), *spv = NULL;
    char *meta = vk_compile(dir, "q", "vulkan1.3", src, &spv);
    int32_t o[26];
    float of[9];
    memset(o, 0x55, sizeof o), memset(of, 0x55, sizeof of);
    VkArray arr[2] = {{o, sizeof o, 26}, {of, sizeof of, 9}};
    const char *kernels[] = {"run"};
    char *err = NULL;
    int rc = vk_run(dir, spv, meta, kernels, 1, arr, 2, NULL, 45, VK_FULL, true, &err);
    cr_expect_neq(rc, -1, "%s", err ? err : "");
    if (rc == 1) {
        char got[512] = "", *p = got;
        for (int i = 0; i < 26; i++) p += sprintf(p, "%d ", o[i]);
        p += sprintf(p, "\n");
        cr_expect_str_eq(got, want_ints);
        p = got;
        for (int i = 0; i < 9; i++) p += sprintf(p, "%.9g ", of[i]);
        sprintf(p, "\n");
        cr_expect_str_eq(got, want_floats);
    }
    free(err), free(meta), free(spv), free(src), free(path);
    remove_tree(dir);
    free(dir);
}

/* The module compiles for every backend's family (the CAS loops through each database). */
Test(quant, bitpacked_every_family, .timeout = 180) {
    char *src = root_path("testdata/quant/basic.py"), *dir = make_temp_dir(), *out = xasprintf("%s/o.%%t", dir);
    RunResult r = run_qdc("--target=sm_90,gfx942,vulkan1.3,apple8,x86_64", src, "-o", out, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    run_free(&r);
    remove_tree(dir);
    free(src), free(dir), free(out);
}

static void check(const char *body, const char *err) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/m.py", dir);
    char *text = xasprintf("import quadrants as qd\n\nq4 = qd.types.quant.int(4, True)\n%s", body);
    cr_assert(write_text(src, text));
    const char *argv[] = {"--color=never", "--target=x86_64", "--check", "m.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect_str_eq(r.err, err);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(text);
}

Test(quant, misuse_diagnostics) {
    check("b = qd.BitpackedFields(max_num_bits=24)\n",
          "m.py:4:37: error[QD2063]: max_num_bits of qd.BitpackedFields must be 8, 16, 32 or 64 (the word's width), got 24\n"
          " 4 | b = qd.BitpackedFields(max_num_bits=24)\n   |                                     ^~\n");
    check("w = qd.types.quant.int(33)\n",
          "m.py:4:24: error[QD2005]: a quantized int has 1 to 32 bits, got 33\n"
          " 4 | w = qd.types.quant.int(33)\n   |                        ^~\n");
    check("x = qd.field(q4)\ny = qd.field(qd.types.quant.int(30, False))\nb = qd.BitpackedFields(max_num_bits=32)\nb.place(x, y)\n",
          "m.py:7:12: error[QD2063]: the fields placed need 34 bits, more than max_num_bits=32\n"
          " 7 | b.place(x, y)\n   |            ^\n");
    /* a member whose place() was refused is reported there only, not again at each use in a kernel */
    check("x = qd.field(q4)\ny = qd.field(qd.types.quant.int(30, False))\nb = qd.BitpackedFields(max_num_bits=32)\nb.place(x, y)\n"
          "qd.root.place(b)\n@qd.kernel\ndef k():\n    y[None] = 3\n    x[None] = y[None] + 1\nk()\n",
          "m.py:7:12: error[QD2063]: the fields placed need 34 bits, more than max_num_bits=32\n"
          " 7 | b.place(x, y)\n   |            ^\n");
    check("x = qd.field(q4, shape=4)\n",
          "m.py:4:18: error[QD2063]: a field of a quantized type is placed with qd.BitpackedFields; qd.field(shape=...) is not supported for it\n"
          " 4 | x = qd.field(q4, shape=4)\n   |                  ^~~~~\n");
    check("x = qd.field(q4)\nb = qd.BitpackedFields(max_num_bits=32)\nb.place(x, shared_exponent=True)\n",
          "m.py:6:1: error[QD2063]: At least 2 fields need to be placed when shared_exponent=True\n"
          " 6 | b.place(x, shared_exponent=True)\n   | ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
    check("x = qd.field(q4)\n", "m.py:4:1: error[QD2063]: field 'x' of a quantized type is never placed: place it with "
          "b = qd.BitpackedFields(max_num_bits=32); b.place(x); qd.root.place(b)\n 4 | x = qd.field(q4)\n   | ^~~~~~~~~~~~~~~~\n");
}

/* A 64-bit word's CAS loop is the database's 64-bit compare-and-swap: refused on Vulkan without
 * the int64-atomics capability, naming the database line. */
Test(quant, u64_word_needs_int64_atomics_on_vulkan) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/w.py", dir);
    cr_assert(write_text(src, "import quadrants as qd\n\nx = qd.field(dtype=qd.types.quant.int(40 - 8, True))\n"
                              "b = qd.BitpackedFields(max_num_bits=64)\nb.place(x)\nqd.root.place(b)\n\n"
                              "@qd.kernel\ndef k():\n    x[None] = 3\n"));
    const char *argv[] = {"--color=never", "--target=vulkan1.3", "-o", "w.spv", "w.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "w.py:10:15: error[QD4001]: atomic load on u64 in global memory is not supported on target 'vulkan1.3' "
                            "(capability-db/vulkan1.1.yaml:"), "%s", r.err);
    run_free(&r);
    const char *argv2[] = {"--color=never", "--target=vulkan1.3", "--cap=+int64-atomics", "-o", "w.spv", "w.py", NULL};
    r = run_qdc_argv(argv2, NULL, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
}

/* testdata/quant/array.py: a 1-bit quant_array of 32 in one word, a 3-bit one of 10 per cell of
 * a dense node; every element written by its own iteration. */
static const char want_array[] =
    "0 1 0 1 0 0 1 0 1 0 0 1 0 1 0 0 1 0 1 0 0 1 0 1 0 0 1 0 1 0 0 1 "
    "-3 -2 -1 0 1 2 3 -4 -3 -2 -1 0 1 2 3 -4 -3 -2 -1 0 1 2 3 -4 -3 -2 -1 0 1 2 \n";

static const char array_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    int32_t o[62] = {0};\n"
    "    run_args a = {.o = o, .o_shape = {62}};\n"
    "    if (run(&a, nt)) return 2;\n"
    "    for (int i = 0; i < 62; i++) printf(\"%d \", o[i]);\n"
    "    printf(\"\\nwords %08x %08x %08x\\n\", qd_field_x_bits, qd_field_y_bits[0], qd_field_y_bits[2]);\n"
    "    return 0;\n}\n";

static const char array64_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int32_t o[6] = {0};\n"
    "    run_args a = {.o = o, .o_shape = {6}};\n"
    "    if (run(&a, atoi(argv[1]))) return 2;\n"
    "    printf(\"%d %d %d %d %d %d %016llx\\n\", o[0], o[1], o[2], o[3], o[4], o[5], (unsigned long long)qd_field_x_bits);\n"
    "    return 0;\n}\n";

static void x86_threads(const char *rel, const char *host, const char *want) {
    if (x86_have_runtime()) x86_expect_on_thread_counts(rel, host, want, (const char *const[]){"1", "2", "8", NULL});
}

/* Words: bit i of x is element i; y's cell 0 holds (-3, -2, ..., -2) as 3-bit fields from bit 0. */
Test(quant, quant_array_runs_on_x86, .timeout = 180) {
    char *want = xasprintf("%swords 94a5294a 358d11f5 111f58d1\n", want_array);
    x86_threads("testdata/quant/array.py", array_host, want);
    free(want);
}

/* 100 + (0 + 3 + ... + 87) = 1405, 200 + (1 + 4 + ... + 88) = 1535, -300 + (2 + ... + 89) =
 * 1065, 4095 (the largest 13-bit value) - 90 = 4005; then qd.atomic_add(x[0], 5) returns 1405
 * and leaves 1410, qd.atomic_min(x[1], -7) returns 1535 and leaves -7; the word holds them from
 * bit 0, 13 bits each. */
Test(quant, quant_array_u64_runs_on_x86, .timeout = 180) {
    x86_threads("testdata/quant/array64.py", array64_host, "1410 -7 1065 4005 1405 1535 0007d290a7ff2582\n");
}

Test(quant, quant_array_on_lavapipe, .timeout = 180) {
    char *path = root_path("testdata/quant/array.py"), *src = read_text(path, NULL);
    cr_assert(src);
    char *dir = make_temp_dir(), *spv = NULL;
    char *meta = vk_compile(dir, "a", "vulkan1.3", src, &spv);
    int32_t o[62];
    memset(o, 0x55, sizeof o);
    VkArray arr[1] = {{o, sizeof o, 62}};
    const char *kernels[] = {"run"};
    char *err = NULL;
    int rc = vk_run(dir, spv, meta, kernels, 1, arr, 1, NULL, 32, VK_FULL, true, &err);
    cr_expect_neq(rc, -1, "%s", err ? err : "");
    if (rc == 1) {
        char got[512] = "", *p = got;
        for (int i = 0; i < 62; i++) p += sprintf(p, "%d ", o[i]);
        sprintf(p, "\n");
        cr_expect_str_eq(got, want_array);
    }
    free(err), free(meta), free(spv), free(src), free(path);
    remove_tree(dir);
    free(dir);
}

/* Operations that would see the word, not the member: refused at the use. */
Test(quant, word_operations_refused) {
    const char *head = "import quadrants as qd\n\nx = qd.field(dtype=qd.types.quant.int(8, True))\n"
                       "b = qd.BitpackedFields(max_num_bits=32)\nb.place(x)\nqd.root.place(b)\n\n@qd.kernel\ndef k() -> qd.i32:\n";
    char *dir = make_temp_dir(), *src = xasprintf("%s/w.py", dir);
    char *t1 = xasprintf("%s    return qd.atomic_cas(x[None], 0, 1)\n", head);
    cr_assert(write_text(src, t1));
    const char *argv[] = {"--color=never", "--target=x86_64", "--check", "w.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect_str_eq(r.err, "w.py:10:12: error[QD2063]: 'atomic_cas' on a field of a quantized type is not supported: qdc updates "
                            "quantized fields with add, sub, mul, min, max, and, or and xor\n"
                            " 10 |     return qd.atomic_cas(x[None], 0, 1)\n    |            ^~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
    run_free(&r);
    char *t2 = xasprintf("%s    return qd.volatile_load(x[None])\n", head);
    cr_assert(write_text(src, t2));
    r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect_str_eq(r.err, "w.py:10:29: error[QD2063]: this operation on a field of a quantized type is not supported: read it, "
                            "assign it, or update it with op= or qd.atomic_<op>\n"
                            " 10 |     return qd.volatile_load(x[None])\n    |                             ^~~~~~~\n");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(t1), free(t2);
}

static const char hints_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    run_args a = {0};\n"
    "    if (run(&a, atoi(argv[1]))) return 2;\n"
    "    for (int i = 0; i < 16; i++) printf(\"%d \", *qd_field_y_at(i));\n"
    "    double t = 0;\n"
    "    for (int i = 0; i < 64; i++) t += qd_field_s[i];\n"
    "    int32_t o[5] = {0};\n"
    "    ops_args b = {.o = o, .o_shape = {5}};\n"
    "    if (ops(&b, 1)) return 2;\n"
    "    printf(\"%g ops %d %d %d %d %d\\n\", t, o[0], o[1], o[2], o[3], o[4]);\n"
    "    return 0;\n}\n";

/* x[i] = 5i mod 16 is a permutation, so y[5i mod 16] = i (y[k] = 13k mod 16), then + k (every
 * cell of y is active after the first loop);
 * s holds 2 x[i mod 16]: 4 * 2 * (0 + ... + 15) = 960. qd.lang.ops.add of two vectors, mul of
 * two ints, qd._lib.core.get_max_num_indices() (qdc's 8), qd.Matrix.diag(dim=2, val=3). */
Test(hints, loop_unique_block_local_run_on_x86, .timeout = 120) {
    x86_threads("testdata/quant/hints.py", hints_host, "0 14 12 10 8 6 20 18 16 14 12 26 24 22 20 18 960 ops 11 22 42 8 33\n");
}

Test(hints, misuse_diagnostics) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/h.py", dir);
    cr_assert(write_text(src, "import quadrants as qd\n\nx = qd.field(qd.i32, shape=4)\n\n@qd.kernel\ndef k():\n"
                              "    qd.block_local(3)\n    for i in range(4):\n        x[qd.loop_unique(i, covers=5)] = 1\n"));
    const char *argv[] = {"--color=never", "--target=x86_64", "--check", "h.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect_str_eq(r.err, "h.py:7:20: error[QD2019]: qd.block_local takes fields, not a value\n"
                            " 7 |     qd.block_local(3)\n   |                    ^\n"
                            "h.py:9:36: error[QD2019]: covers= of qd.loop_unique takes fields, not a value\n"
                            " 9 |         x[qd.loop_unique(i, covers=5)] = 1\n   |                                    ^\n");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
}

static const char ref_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    float o[6] = {0};\n"
    "    run_args a = {.o = o, .o_shape = {6}};\n"
    "    if (run(&a, atoi(argv[1]))) return 2;\n"
    "    for (int i = 0; i < 6; i++) printf(\"%g \", o[i]);\n"
    "    printf(\"\\n\");\n"
    "    return 0;\n}\n";

/* seven(a) sets the caller's a; twice(b) doubles b, twice(c) each iteration's c; an element is
 * not a variable (QD2019). */
Test(hints, ref_parameters_run_on_x86, .timeout = 120) {
    x86_threads("testdata/quant/ref.py", ref_host, "7 42 1 3 5 7 \n");
    char *dir = make_temp_dir(), *src = xasprintf("%s/r.py", dir);
    cr_assert(write_text(src, "import quadrants as qd\n\n@qd.real_func\ndef f(a: qd.ref(qd.f32)):\n    a = 7\n\n"
                              "@qd.kernel\ndef k(o: qd.types.ndarray(qd.f32, ndim=1)):\n    f(o[0])\n"));
    const char *argv[] = {"--color=never", "--target=x86_64", "--check", "r.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect_str_eq(r.err, "r.py:9:5: error[QD2019]: argument 'a' is declared qd.ref(...): pass a local variable, not a value\n"
                            " 9 |     f(o[0])\n   |     ^~~~~~~\n");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
}

static const char sparse_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    run_args a = {0};\n"
    "    if (run(&a, atoi(argv[1]))) return 2;\n"
    "    printf(\"%d\\n\", qd_field_c);\n"
    "    return 0;\n}\n";

/* x[17] = 1 activates cell 2 (elements 16..23); the struct-for visits those 8:
 * 8 + 2 * 100 + 1000 * (16 + ... + 23) = 156208. */
Test(quant, quant_array_under_pointer_runs_on_x86, .timeout = 120) {
    x86_threads("testdata/quant/sparse.py", sparse_host, "156208\n");
}

static const char packs_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    init_args i = {0};\n"
    "    rotate_args r = {0};\n"
    "    dump_args d = {0};\n"
    "    if (init(&i, nt)) return 2;\n"
    "    for (int k = 0; k < 5; k++)\n"
    "        if (rotate(&r, nt)) return 2;\n"
    "    if (dump(&d, nt)) return 2;\n"
    "    for (int k = 0; k < 7; k++) printf(\"%d \", qd_field_out[k]);\n"
    "    printf(\"word %02x\\n\", qd_field_a_bits);\n"
    "    return 0;\n}\n";

/* testdata/quant/packs.py (Quadrants' test_bitpacked_fields.py and test_quant_fixed.py): the
 * 8-bit pack holds a = 3, b = 7, c = -2 as 3, 3 and 2 bits from bit 0 (0b10'111'011 = 0xbb, in the
 * low bits of its 32-bit word); the quantized 2x2 matrix, the identity rotated 5 times by 18
 * degrees, is [[0, 1], [-1, 0]] within the fixed type's precision (times 1000, rounded). */
Test(quant, pack_of_8_bits_and_quantized_matrix_run_on_x86, .timeout = 180) {
    x86_threads("testdata/quant/packs.py", packs_host, "3 7 -2 0 1000 -1000 0 word bb\n");
}
