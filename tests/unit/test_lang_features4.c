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
