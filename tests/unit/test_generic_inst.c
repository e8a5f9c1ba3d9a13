/* Generic kernels instantiated by the host calls qdc evaluates (issue 30, the QD2060 clusters of
 * Quadrants' tests): an array argument passed on through a host helper (before, the helper's
 * parameter was a run-time value and the kernel it calls stayed uninstantiated), a numpy dtype
 * read from a dict of dtypes (_NP[qd.i32]; np.bool_ is Quadrants' u1), one item of
 * itertools.permutations as an ndarray's layout, and a generic kernel no call reaches: warning
 * QD2108 when other kernels compile (Python never compiles it), error QD2060 when none would; a
 * numpy array of scalars for an ndarray of vectors (its last axes are the element's). */
#include "harness.h"
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compile(const char *text, char **err, bool *wrote) { return qdc_x86_text("g.py", text, err, wrote); }

static const char generic_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    float af[8] = {0};\n"
    "    int32_t ai[8] = {0}, ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};\n"
    "    scale__f32_1d_3__k__f32_1d__i32_1d_args s1 = {.a = af, .a_shape = {8}, .b = ones, .b_shape = {8}};\n"
    "    scale__i32_1d_5__k__i32_1d__i32_1d_args s2 = {.a = ai, .a_shape = {8}, .b = ones, .b_shape = {8}};\n"
    "    if (scale__f32_1d_3__k__f32_1d__i32_1d(&s1, nt) || scale__i32_1d_5__k__i32_1d__i32_1d(&s2, nt)) return 2;\n"
    "    for (int i = 0; i < 8; i++) printf(\"%g %d%s\", af[i], ai[i], i == 7 ? \"\\n\" : \" \");\n"
    "    uint8_t flags[8] = {0, 1, 0, 1, 0, 0, 1, 0};\n"
    "    int32_t sum[1] = {0};\n"
    "    count__u1_1d__i32_1d_args c = {.f = flags, .f_shape = {8}, .out = sum, .out_shape = {1}};\n"
    "    if (count__u1_1d__i32_1d(&c, nt)) return 2;\n"
    "    int32_t x[24];\n"
    "    for (int i = 0; i < 24; i++) x[i] = -1;\n"
    "    fill__i32_3d_l210_args f = {.x = x, .x_shape = {4, 3, 2}};\n"
    "    if (fill__i32_3d_l210(&f, nt)) return 2;\n"
    "    printf(\"%d\", sum[0]);\n"
    "    for (int i = 0; i < 24; i++) printf(\" %d\", x[i]);\n"
    "    printf(\"\\n\");\n"
    "    float p[8] = {1, 2, 3, 4, 5, 6, 7, 8}, o[4] = {0};\n"
    "    mix__f32_2d__f32_1d_args m = {.p = p, .p_shape = {4, 2}, .out = o, .out_shape = {4}};\n"
    "    if (mix__f32_2d__f32_1d(&m, nt)) return 2;\n"
    "    printf(\"%g %g %g %g\\n\", o[0], o[1], o[2], o[3]);\n"
    "    return 0;\n}\n";

/* testdata/host-eval/generic_inst.py on 1, 2 and 4 threads: Python's values; the layout (2, 1, 0)
 * stores canonical x[i, j, k] at storage [k][j][i]; a (4, 2) numpy array for an ndarray of vec2 is
 * four vectors (before, QD2061 "declared with dtype vec2_f32, the instantiation gives f32"). */
Test(generic_inst, helper_arrays_dtype_tables_and_layouts_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/host-eval/generic_inst.py", generic_host,
                          "3 5 4 6 5 7 6 8 7 9 8 10 9 11 10 12\n"
                          "10 0 100 10 110 20 120 1 101 11 111 21 121 2 102 12 112 22 122 3 103 13 113 23 123\n"
                          "21 43 65 87\n");
}

/* The uncalled kernel of generic_inst.py is a warning beside the kernels that compile, exactly. */
Test(generic_inst, uncalled_generic_kernel_is_a_warning_beside_others) {
    char *path = root_path("testdata/host-eval/generic_inst.py");
    char *text = read_text(path, NULL);
    cr_assert(text);
    char *err;
    bool wrote;
    int status = compile(text, &err, &wrote);
    cr_expect_eq(status, 0, "exit %d: %s", status, err);
    cr_expect(wrote, "no output");
    cr_expect_str_eq(err, "g.py:53:14: warning[QD2108]: kernel 'never' is generic ('x' has no fixed type) and no call qdc can "
                          "evaluate instantiates it: it is not compiled (as in Python, where a kernel is compiled at its first "
                          "call); compile it with --instantiate 'never(x=f32[1])' [-Wgeneric-uncalled]\n"
                          " 53 | def never(x: qd.types.ndarray()):\n"
                          "    |              ^~~~~~~~~~~~~~~~~~\n");
    free(err), free(text), free(path);
}

/* Nothing else compiles: each uncalled generic kernel stays error QD2060 (no output); an array a
 * helper receives that qdc cannot type is still located at the kernel call. */
Test(generic_inst, refusals_stay_errors) {
    char *err;
    bool wrote;
    int status = compile("import numpy as np\nimport quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray()):\n    a[0] = 1\n\n"
                         "@qd.kernel\ndef j(a: qd.types.ndarray()):\n    a[0] = 1\n",
                         &err, &wrote);
    cr_expect_eq(status, 1, "exit %d: %s", status, err);
    cr_expect(!wrote, "an output was written after an error");
    cr_expect_str_eq(err, "g.py:5:10: error[QD2060]: kernel 'k' is generic ('a' has no fixed type) and no call qdc can evaluate "
                          "instantiates it; compile it with --instantiate 'k(a=f32[1])'\n"
                          " 5 | def k(a: qd.types.ndarray()):\n   |          ^~~~~~~~~~~~~~~~~~\n"
                          "g.py:9:10: error[QD2060]: kernel 'j' is generic ('a' has no fixed type) and no call qdc can evaluate "
                          "instantiates it; compile it with --instantiate 'j(a=f32[1])'\n"
                          " 9 | def j(a: qd.types.ndarray()):\n   |          ^~~~~~~~~~~~~~~~~~\n");
    free(err);
    status = compile("import numpy as np\nimport quadrants as qd\n\n\ndef h(arr):\n    @qd.kernel\n    def k(a: qd.types.ndarray()):\n"
                     "        a[0] = 1\n\n    k(arr)\n\n\nh(np.asarray(data))\n",
                     &err, &wrote);
    cr_expect_eq(status, 1, "exit %d: %s", status, err);
    cr_expect(!wrote, "an output was written after an error");
    cr_expect_str_eq(err, "g.py:10:7: error[QD2060]: kernel 'k' is generic and qdc cannot evaluate this call's argument for 'a' "
                          "(only fields, compile-time numbers and arrays made by qd.ndarray or numpy with a dtype are known); "
                          "compile it with --instantiate 'h__k(...)'\n"
                          " 10 |     k(arr)\n    |       ^~~\n");
    free(err);
}

/* One spelling of a host scalar in an instantiation's name, for a qd.template() argument and a
 * generic dataclass member alike (val_host_spell): an unsigned int past INT64_MAX is positive
 * (before, the dataclass member spelled 2**64 - 1 as m1 and -2**63 as m-9223372036854775808),
 * "m" for a minus, a float's '.' as 'p', True. */
Test(generic_inst, host_scalars_spell_one_way) {
    char *dir = make_temp_dir(), *src = NULL;
    cr_assert(asprintf(&src, "%s/g.py", dir) > 0);
    cr_assert(write_text(src, "import dataclasses\nimport quadrants as qd\n\nx = qd.field(qd.i32, shape=4)\n\n"
                              "@dataclasses.dataclass\nclass S:\n    n: qd.template()\n\n"
                              "@qd.kernel\ndef k(t: qd.template()):\n    x[0] = 1\n\n"
                              "@qd.kernel\ndef d(s: qd.template()):\n    x[0] = 2\n\n"
                              "BIG = 18446744073709551615\n"
                              "k(BIG)\nk(-9223372036854775808)\nk(-3)\nk(2.5)\nk(True)\n"
                              "d(S(n=BIG))\nd(S(n=-9223372036854775808))\nd(S(n=-3))\nd(S(n=2.5))\nd(S(n=True))\n"));
    const char *argv[] = {"--target=x86_64", "--check", "--stats", "g.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect_str_eq(r.out, "g: 10 kernels (k__18446744073709551615, k__m9223372036854775808, k__m3, k__2p5, k__True, "
                            "d__S_18446744073709551615, d__S_m9223372036854775808, d__S_m3, d__S_2p5, d__S_True), 10 tasks, "
                            "0 atomics, 0 volatile loads, 0 fences\n");
    run_free(&r);
    free(src), free(dir);
}
