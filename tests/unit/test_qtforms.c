/* Forms of Quadrants' own test kernels (issue 30): stores at a run-time index into local vectors
 * and matrices (testdata/qtforms/vecstore.py), run on x86 with exact results on 1, 2 and 8
 * threads and compiled for every family. */
#include "../../support/util.h"
#include "harness.h"
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char vecstore_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]), bad = 0;\n"
    "    int32_t ret[3] = {0};\n"
    "    shared_vec_args sa = {.n = 7};\n"
    "    if (shared_vec(&sa, nt, ret)) return 2;\n"
    "    printf(\"shared_vec %d %d %d\\n\", ret[0], ret[1], ret[2]);\n"
    "    private_mat_args pa = {.k = 1};\n"
    "    if (private_mat(&pa, nt)) return 2;\n"
    "    for (int t = 0; t < 4; t++)\n"
    "        for (int c = 0; c < 6; c++) bad += qd_field_rows[t][c] != (c == (t % 2) * 3 + (t + 1) % 3 ? -1.0f : (float)c);\n"
    "    printf(\"private_mat %d bad\\n\", bad);\n"
    "    for (int rep = 0; rep < 2; rep++) {\n"
    "        scalar_loop_args la = {.n = 100};\n"
    "        if (scalar_loop(&la, nt)) return 2;\n"
    "        printf(\"scalar_loop %d %d %d %d\\n\", qd_field_out[0], qd_field_out[1], qd_field_out[2], qd_field_out[3]);\n"
    "    }\n"
    "    return 0;\n}\n";

Test(qtforms, vecstore_runs_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    char *src = root_path("testdata/qtforms/vecstore.py");
    const char *threads[] = {"1", "2", "8"};
    for (int t = 0; t < 3; t++) {
        char *dir = make_temp_dir();
        RunResult r = x86_compile_and_run(dir, src, "--target=x86_64", vecstore_host, threads[t], NULL);
        cr_expect_eq(r.status, 0, "%s threads: status %d\n%s%s", threads[t], r.status, r.out, r.err);
        /* Quadrants' test_local_matrix_non_constant_index gives [24, 30, 19]; + n = 7. Each residue r of
         * 0..99 mod 4 sums to 1200 + 25 r, twice (the vector starts at zero on every launch). */
        cr_expect_str_eq(r.out, "shared_vec 31 37 26\nprivate_mat 0 bad\nscalar_loop 1200 1225 1250 1275\n"
                                "scalar_loop 1200 1225 1250 1275\n", "%s threads", threads[t]);
        run_free(&r);
        remove_tree(dir);
        free(dir);
    }
    free(src);
}

/* Every family compiles it: the store is a chain of conditional stores, no target feature. */
Test(qtforms, vecstore_every_family, .timeout = 120) {
    char *src = root_path("testdata/qtforms/vecstore.py"), *dir = make_temp_dir(), *out = xasprintf("%s/v.%%t", dir);
    RunResult r = run_qdc("--target=sm_90,gfx942,vulkan1.3,apple8,x86_64", "--stats", src, "-o", out, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    /* the atomic `+=` per component of the promoted vector: 4 in scalar_loop */
    cr_expect(strstr(r.out, "3 kernels (shared_vec, private_mat, scalar_loop), 7 tasks, 4 atomics"), "%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(src), free(dir), free(out);
}
