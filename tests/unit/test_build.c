/* Build-system citizenship (issue 7): dependency files (-MD/-MF/-MT/-MQ/-MP) rendered exactly and
 * written with the output, several targets in one run, and the plain-Make example rebuilding
 * exactly what changed. Tests that need a backend use the families that compile today. */
#include "cli/depfile.h"
#include "test_build_util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *render(const DepTarget *t, int nt, const char *const *deps, int nd, bool phony) {
    StrBuf b;
    sb_init(&b);
    dep_render(&b, t, nt, deps, nd, 1, phony);
    sb_putc(&b, 0);
    return sb_take(&b);
}

Test(build, depfile_rule_and_phony_targets) {
    DepTarget t[] = {{"out/k.ptx", true}};
    const char *deps[] = {"k.qd", "/db/sm_80.yaml", "/db/sm_90.yaml"};
    char *s = render(t, 1, deps, 3, true);
    cr_expect_str_eq(s, "out/k.ptx: \\\n  k.qd \\\n  /db/sm_80.yaml \\\n  /db/sm_90.yaml\n"
                        "\n/db/sm_80.yaml:\n\n/db/sm_90.yaml:\n");
    free(s);
}

Test(build, depfile_quoting_mt_verbatim_mq_quoted) {
    DepTarget t[] = {{"$(OBJ)", false}, {"a b$#.o", true}};
    const char *deps[] = {"my dir/k#1.qd"};
    char *s = render(t, 2, deps, 1, false);
    cr_expect_str_eq(s, "$(OBJ) a\\ b$$\\#.o: \\\n  my\\ dir/k\\#1.qd\n");
    free(s);
}

Test(build, depfile_default_path) {
    char *a = dep_default_path("out/k.ptx"), *b = dep_default_path("out.d/k"), *c = dep_default_path(".hidden");
    cr_expect_str_eq(a, "out/k.ptx.d"); /* the output name + .d: k.o and k.h never share one */
    cr_expect_str_eq(b, "out.d/k.d");
    cr_expect_str_eq(c, ".hidden.d");
    free(a), free(b), free(c);
}

Test(build, depfile_needs_a_name_or_target_without_output) {
    RunResult r = run_qdc("-MD", "-o", "-", "k.qd", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "qdc: error: -MD without an output file needs -MF FILE\n");
    run_free(&r);
    r = run_qdc("-MF", "k.d", "--check", "k.qd", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "qdc: error: a depfile without an output file needs -MT TARGET\n");
    run_free(&r);
}

Test(build, several_targets_need_percent_t) {
    RunResult r = run_qdc("--target=x86_64,x86_64", "-o", "k.o", "k.qd", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "several targets need -o with %t"), "%s", r.err);
    run_free(&r);
    r = run_qdc("--print-output-names", "--target=x86_64", "-o", "o/%t/%m.%e%%", "dir/k.qd", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect_str_eq(r.out, "o/x86_64/k.o%\n");
    run_free(&r);
}

/* A family that compiles today, or skip. */
static char *one_target(void) {
    char *names[1];
    if (working_targets(names, 1) == 1) return names[0];
    fprintf(stderr, "test_build: no family compiles examples/histogram.qd yet; skipping\n");
    cr_skip_test();
    return NULL;
}

Test(build, depfile_written_with_output_lists_source_and_capdb) {
    char *t = one_target(), *dir = make_temp_dir(), *ex = root_path("examples/histogram.qd");
    char *src = path_join(dir, "k.qd"), tflag[80];
    cr_assert(copy_file(ex, src));
    snprintf(tflag, sizeof tflag, "--target=%s", t);
    const char *args[] = {tflag, "-o", "out/k.bin", "-MD", "-MP", "k.qd", NULL};
    RunResult r = run_qdc_argv(args, NULL, dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *dpath = path_join(dir, "out/k.bin.d"), *d = read_text(dpath, NULL);
    cr_assert(d, "no depfile at out/k.bin.d");
    cr_expect(!strncmp(d, "out/k.bin: \\\n  k.qd", 19), "%s", d);
    cr_expect(strstr(d, ".yaml"), "capability files missing from the depfile:\n%s", d);
    cr_expect_eq(count_lines_with(d, ".yaml:"), count_lines_with(d, ".yaml") / 2, "-MP: one phony rule per YAML");
    run_free(&r), free(d), free(dpath);
    /* -o - with -MF and -MT: output on stdout, the depfile names the given target */
    const char *args2[] = {tflag, "-o", "-", "-MF", "dep.d", "-MT", "obj/k", "k.qd", NULL};
    r = run_qdc_argv(args2, NULL, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(r.out_len > 0);
    dpath = path_join(dir, "dep.d"), d = read_text(dpath, NULL);
    cr_expect(d && !strncmp(d, "obj/k: \\\n  k.qd", 15), "%s", d ? d : "(none)");
    run_free(&r), free(d), free(dpath);
    /* a failing compile writes neither output nor depfile */
    cr_assert(write_text(src, "import quadrants as qd\ndef (:\n"));
    const char *args3[] = {tflag, "-o", "bad/k.bin", "-MD", "k.qd", NULL};
    r = run_qdc_argv(args3, NULL, dir);
    cr_expect_eq(r.status, 1);
    char *bad = path_join(dir, "bad");
    cr_expect(!file_exists(bad), "nothing may be created on failure");
    run_free(&r), free(bad), free(src), free(ex), remove_tree(dir), free(dir), free(t);
}

Test(build, several_targets_in_one_run_match_single_runs) {
    char *names[2];
    int n = working_targets(names, 2);
    if (n < 2) {
        fprintf(stderr, "test_build: fewer than two families compile yet; skipping fan-out\n");
        free_names(names, n);
        cr_skip_test();
    }
    char *dir = make_temp_dir(), *ex = root_path("examples/histogram.qd"), list[160], one[100];
    snprintf(list, sizeof list, "--target=%s,%s", names[0], names[1]);
    const char *args[] = {list, "-o", "fan/%t/%m.%e", "-MD", "-MF", "fan.d", ex, NULL};
    RunResult r = run_qdc_argv(args, NULL, dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    for (int i = 0; i < 2; i++) {
        snprintf(one, sizeof one, "--target=%s", names[i]);
        const char *a1[] = {one, "-o", "single/%m.%e", ex, NULL};
        r = run_qdc_argv(a1, NULL, dir);
        cr_assert_eq(r.status, 0, "%s", r.err);
        const char *a2[] = {one, "--print-output-names", "-o", "%t/%m.%e", ex, NULL};
        RunResult p = run_qdc_argv(a2, NULL, dir);
        *strchr(p.out, '\n') = 0;
        char rel[200], *fan, *single;
        snprintf(rel, sizeof rel, "fan/%s", p.out);
        fan = path_join(dir, rel);
        snprintf(rel, sizeof rel, "single/%s", strchr(p.out, '/') + 1);
        single = path_join(dir, rel);
        size_t la = 0, lb = 0;
        char *a = read_text(fan, &la), *b = read_text(single, &lb);
        cr_expect(a && b && la == lb && !memcmp(a, b, la), "%s differs from %s", fan, single);
        free(a), free(b), free(fan), free(single), run_free(&p), run_free(&r);
    }
    char *dpath = path_join(dir, "fan.d"), *d = read_text(dpath, NULL);
    cr_expect(d && strstr(d, "fan/") && count_lines_with(d, ":") >= 1, "%s", d ? d : "(none)");
    free(d), free(dpath), free(ex), remove_tree(dir), free(dir), free_names(names, 2);
}
