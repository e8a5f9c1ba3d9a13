/* Each target of a run has its own lowering result (issue 21 item 1, issue 13 item 10): the
 * checked module is never changed by lowering, so one target's decisions and capabilities never
 * show in another's output, and the order of --target does not change any output. */
#include "harness.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* Compiles examples/float_sum.qd for `targets` with +coarse-grained-memory into dir/<family>.json. */
static void metadata_for(const char *dir, const char *targets) {
    char *src = root_path("examples/float_sum.qd");
    char *tgt = xasprintf("--target=%s", targets);
    char *out = xasprintf("%s/%%t.%%e", dir);
    RunResult r = run_qdc(tgt, "--cap=+coarse-grained-memory", "--emit=metadata", "-o", out, src, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    free(src), free(tgt), free(out);
}

static char *caps_line(const char *dir, const char *family) {
    char *path = xasprintf("%s/%s.json", dir, family);
    char *text = read_text(path, NULL);
    cr_assert_not_null(text, "%s was not written", path);
    char *line = strstr(text, "\"capabilities_used\"");
    cr_assert_not_null(line, "%s", text);
    char *copy = xstrndup(line, strcspn(line, "\n"));
    free(text), free(path);
    return copy;
}

Test(per_target, capabilities_used_do_not_leak_between_targets) {
    char *a = make_temp_dir(), *b = make_temp_dir();
    metadata_for(a, "gfx90a,gfx906");
    metadata_for(b, "gfx906,gfx90a");
    char *a90a = caps_line(a, "gfx90a"), *a906 = caps_line(a, "gfx906");
    char *b90a = caps_line(b, "gfx90a"), *b906 = caps_line(b, "gfx906");
    cr_expect_str_eq(a90a, "\"capabilities_used\": [\"coarse-grained-memory\"],");
    cr_expect_str_eq(a906, "\"capabilities_used\": [],");
    cr_expect_str_eq(b90a, a90a, "the order of targets changed gfx90a's metadata");
    cr_expect_str_eq(b906, a906, "the order of targets changed gfx906's metadata");
    free(a90a), free(a906), free(b90a), free(b906);
    remove_tree(a), remove_tree(b);
    free(a), free(b);
}

/* The same for the decisions themselves: --report-lowering of a two-target run is exactly the
 * concatenation of the two single-target reports. */
Test(per_target, decisions_are_per_target) {
    char *src = root_path("examples/float_sum.qd");
    RunResult both = run_qdc("--target=sm_60,apple7", "--report-lowering", "--check", src, NULL);
    RunResult one = run_qdc("--target=sm_60", "--report-lowering", "--check", src, NULL);
    RunResult two = run_qdc("--target=apple7", "--report-lowering", "--check", src, NULL);
    cr_assert_eq(both.status, 0, "%s", both.err);
    cr_assert_eq(one.status, 0, "%s", one.err);
    cr_assert_eq(two.status, 0, "%s", two.err);
    char *cat = xasprintf("%s%s", one.out, two.out);
    cr_expect_str_eq(both.out, cat);
    free(cat), free(src);
    run_free(&both), run_free(&one), run_free(&two);
}
