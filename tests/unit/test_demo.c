/* `make demo` (issue 20, item 19): the suite runs the demo's script (examples/demo.sh, what
 * `make demo` runs) on two examples with the qdc under test: it checks them, runs them on the
 * CPU, compiles them for every family `--list-targets` prints (x86_64-v3 included), says why a
 * family refused one, leaves the outputs in the directory it names and exits 0; a failing
 * example makes it exit 1. */
#include "test_build_util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static RunResult demo(const char *examples, const char *out) {
    char *script = root_path("examples/demo.sh"), env[256];
    snprintf(env, sizeof env, "QDC_DEMO_EXAMPLES=%s", examples);
    /* under the sanitizers the host programs link the instrumented libqdrt next to QDC_BIN */
    bool asan = getenv("QDC_ASAN") && !strcmp(getenv("QDC_ASAN"), "1");
    const char *cflags = asan ? "CFLAGS=-fsanitize=address,undefined" : "CFLAGS=";
    const char *argv[] = {"env", env, cflags, "bash", script, qdc_bin(), out, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    free(script);
    return r;
}

Test(demo, script_covers_every_family_and_keeps_outputs, .timeout = 300) {
    char *dir = make_temp_dir(), *out = path_join(dir, "demo");
    RunResult r = demo("histogram spin_chain", out);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "== check (2 examples)\n"), "%s", r.out);
    cr_expect(strstr(r.out, "histogram: 1048576 values, 256 bins: exact"), "%s", r.out);
    char want[4400];
    snprintf(want, sizeof want, "== outputs: %s/<family>/<example>.<ext>\ndemo: ok\n", out);
    cr_expect(strstr(r.out, want), "%s", r.out);
    /* a row per family of --list-targets, and the files in <out>/<family>/ */
    RunResult t = run_qdc("--list-targets", NULL);
    cr_assert_eq(t.status, 0);
    int families = 0;
    for (char *line = t.out; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        char fam[64], row[80];
        if (sscanf(line, "%63s", fam) != 1) continue;
        families++;
        snprintf(row, sizeof row, "\n%-12s ", fam);
        cr_expect(strstr(r.out, row), "no table row for %s:\n%s", fam, r.out);
        char rel[128];
        snprintf(rel, sizeof rel, "%s/histogram.", fam);
        char *p = path_join(out, rel);
        bool found = false;
        const char *exts[] = {"o", "ptx", "hsaco", "spv", "metal"};
        for (size_t i = 0; i < sizeof exts / sizeof *exts && !found; i++) {
            char file[4400];
            snprintf(file, sizeof file, "%s%s", p, exts[i]);
            found = file_exists(file);
        }
        cr_expect(found, "no output for %s under %s", fam, out);
        free(p);
    }
    cr_expect_geq(families, 20);
    char *v3 = path_join(out, "x86_64-v3/histogram.o");
    cr_expect(file_exists(v3), "x86_64-v3 is covered");
    /* the refusal says why: the database's reason for the apple families' missing fence */
    cr_expect(strstr(r.out, "== why a family refused a kernel\n  apple7 spin_chain: error[QD4005]: memory fence is not "
                            "supported on target 'apple7'"), "%s", r.out);
    char *work = path_join(out, "work");
    cr_expect(!file_exists(work), "the scratch directory is removed");
    run_free(&t), run_free(&r);
    free(v3), free(work), remove_tree(dir), free(dir), free(out);
}

Test(demo, a_failing_example_fails_the_demo) {
    char *dir = make_temp_dir(), *out = path_join(dir, "demo");
    RunResult r = demo("no_such_example", out);
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, "FAILED: qdc --check no_such_example.qd (exit 1)"), "%s", r.err);
    cr_expect(strstr(r.out, "demo: FAILED (see above)\n"), "%s", r.out);
    run_free(&r), remove_tree(dir), free(dir), free(out);
}

/* `make demo` runs that script with the tree's qdc into build/demo (make -n: nothing is built). */
Test(demo, make_demo_runs_the_script_into_build_demo) {
    const char *argv[] = {"make", "-n", "-C", qdc_root(), "demo", NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "bash examples/demo.sh build/qdc build/demo\n"), "%s", r.out);
    run_free(&r);
}
