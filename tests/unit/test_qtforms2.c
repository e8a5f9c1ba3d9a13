/* More forms of Quadrants' own test kernels (issue 30): a def that binds its name again
 * (testdata/qtforms/redef.py), run on x86 with exact results on 1, 2 and 8 threads; the
 * compile-time checks Quadrants makes, ported with its message (exact diagnostics). */
#include "../../support/util.h"
#include "harness.h"
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs testdata/qtforms/NAME with host on 1, 2 and 8 threads: exit 0 and exactly `want` printed. */
static void run_x86(const char *name, const char *host, const char *want) {
    if (!x86_have_runtime()) return;
    char *rel = xasprintf("testdata/qtforms/%s", name), *src = root_path(rel);
    const char *threads[] = {"1", "2", "8"};
    for (int t = 0; t < 3; t++) {
        char *dir = make_temp_dir();
        RunResult r = x86_compile_and_run(dir, src, "--target=x86_64", host, threads[t], NULL);
        cr_expect_eq(r.status, 0, "%s on %s threads: status %d\n%s%s", name, threads[t], r.status, r.out, r.err);
        cr_expect_str_eq(r.out, want, "%s on %s threads", name, threads[t]);
        run_free(&r);
        remove_tree(dir);
        free(dir);
    }
    free(rel), free(src);
}

static const char redef_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    fill_args a = {.k = 1};\n"
    "    fill__def2_args b = {.k = 1};\n"
    "    fill__def3_args c = {.k = 2};\n"
    "    use_g_args u = {0};\n"
    "    if (fill(&a, nt) || fill__def2(&b, nt) || fill__def3(&c, nt) || use_g(&u, nt)) return 2;\n"
    "    printf(\"%d %d %d %d got %d\\n\", qd_field_out[0], qd_field_out[1], qd_field_out[2], qd_field_out[3], qd_field_got);\n"
    "    return 0;\n}\n";

/* fill (scale 2) gives 2i+1, fill__def2 (scale 3) adds 3i+1, fill__def3 adds 100k = 200; use_g
 * calls the second g (2). */
Test(qtforms2, redefinition_runs_on_x86, .timeout = 120) {
    run_x86("redef.py", redef_host, "202 207 212 217 got 22\n");
}
