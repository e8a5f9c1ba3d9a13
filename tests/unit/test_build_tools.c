/* The plain-Make example (examples/make, -MMD -MP) and the CMake package (examples/cmake,
 * qdc_add_kernels with DEPFILE, Ninja) rebuild exactly what changed: touching a .qd rebuilds its
 * outputs for every family, touching a family's YAML rebuilds the outputs whose depfile lists
 * it, and otherwise nothing is rebuilt. Uses an install in a temporary DESTDIR. */
#include "test_build_util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    char *dest, *qdc, *dir, *src, *names[2], *db;
    int n;
} Env;

static Env env_new(const char *tool) {
    Env e = {0};
    if (!tool_available(tool)) {
        fprintf(stderr, "test_build_tools: %s not installed; skipping\n", tool);
        cr_skip_test();
    }
    e.n = working_targets(e.names, 2);
    if (!e.n) {
        fprintf(stderr, "test_build_tools: no family compiles yet; skipping\n");
        cr_skip_test();
    }
    e.dest = install_to_temp();
    cr_assert(e.dest, "install failed");
    e.qdc = path_join(e.dest, "usr/bin/qdc");
    e.db = path_join(e.dest, "usr/share/qdc/capability-db");
    e.dir = make_temp_dir();
    e.src = path_join(e.dir, "src");
    cr_assert(!mkdir(e.src, 0777));
    const char *ex[] = {"histogram.qd", "float_sum.qd"};
    for (int i = 0; i < 2; i++) {
        char rel[64], *from, *to;
        snprintf(rel, sizeof rel, "examples/%s", ex[i]);
        from = root_path(rel), to = path_join(e.src, ex[i]);
        cr_assert(copy_file(from, to));
        free(from), free(to);
    }
    return e;
}

static void env_free(Env *e) {
    remove_tree(e->dest), remove_tree(e->dir);
    free(e->dest), free(e->qdc), free(e->db), free(e->dir), free(e->src);
    free_names(e->names, e->n);
}

/* Backdates sources, database and outputs together, then makes one file newer. */
static void touch_only(Env *e, const char *out_dir, const char *path) {
    backdate_tree(e->src, -100), backdate_tree(e->db, -100), backdate_tree(out_dir, -100);
    set_mtime(path, 0);
}

/* The family YAML of names[0] in the installed database (NULL if not named after it). */
static char *family_yaml(Env *e) {
    char rel[96];
    snprintf(rel, sizeof rel, "%s.yaml", e->names[0]);
    char *p = path_join(e->db, rel);
    if (!file_exists(p)) free(p), p = NULL;
    return p;
}

/* How many of the 2 x n outputs have a depfile <out_dir>/<family>/<kernel>.d naming yaml. */
static int expected_rebuilds(Env *e, const char *out_dir, const char *yaml) {
    const char *base = strrchr(yaml, '/'), *kernels[] = {"histogram", "float_sum"};
    int n = 0;
    for (int t = 0; t < e->n; t++)
        for (int k = 0; k < 2; k++) {
            char rel[200], *p, *d;
            snprintf(rel, sizeof rel, "%s/%s.d", e->names[t], kernels[k]);
            p = path_join(out_dir, rel), d = read_text(p, NULL);
            cr_assert(d, "missing depfile %s", p);
            n += strstr(d, base) != NULL;
            free(p), free(d);
        }
    return n;
}

static RunResult make_run(Env *e, const char *flag) {
    char *mk = root_path("examples/make/Makefile"), q[4200], t[200] = "TARGETS=", s[4200], o[4200];
    snprintf(q, sizeof q, "QDC=%s", e->qdc);
    for (int i = 0; i < e->n; i++) strcat(strcat(t, i ? " " : ""), e->names[i]);
    snprintf(s, sizeof s, "SRCDIR=%s", e->src);
    snprintf(o, sizeof o, "OUT=%s/out", e->dir);
    const char *argv[] = {"make", "-f", mk, q, t, s, o, flag, NULL};
    RunResult r = run_argv(argv, NULL, e->dir);
    free(mk);
    return r;
}

Test(build_tools, make_example_rebuilds_exactly_what_changed) {
    Env e = env_new("make");
    RunResult r = make_run(&e, "-s");
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    char *out = path_join(e.dir, "out"), *hist = path_join(e.src, "histogram.qd");
    r = make_run(&e, "-q");
    cr_expect_eq(r.status, 0, "make -q: everything must be up to date");
    run_free(&r);
    touch_only(&e, out, hist);
    r = make_run(&e, "-n");
    cr_expect_eq(count_lines_with(r.out, "--target="), e.n, "%s", r.out);
    cr_expect_eq(count_lines_with(r.out, "histogram.qd"), e.n, "%s", r.out);
    run_free(&r);
    char *yaml = family_yaml(&e);
    if (yaml) {
        int want = expected_rebuilds(&e, out, yaml);
        cr_expect_geq(want, 2, "both kernels of %s depend on %s", e.names[0], yaml);
        touch_only(&e, out, yaml);
        r = make_run(&e, "-n");
        cr_expect_eq(count_lines_with(r.out, "--target="), want, "%s", r.out);
        run_free(&r);
    }
    free(yaml), free(out), free(hist), env_free(&e);
}

static RunResult ninja(Env *e, const char *flag) {
    char *b = path_join(e->dir, "b");
    const char *argv[] = {"ninja", "-C", b, flag, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    free(b);
    return r;
}

Test(build_tools, cmake_package_with_depfiles) {
    Env e = env_new("cmake");
    if (!tool_available("ninja")) cr_skip_test();
    char *cmdir = root_path("examples/cmake"), *b = path_join(e.dir, "b"), qdir[4200], tg[200] = "-DQDC_EXAMPLE_TARGETS=",
         srcs[4200];
    snprintf(qdir, sizeof qdir, "-Dqdc_DIR=%s/usr/lib/cmake/qdc", e.dest);
    for (int i = 0; i < e.n; i++) strcat(strcat(tg, i ? ";" : ""), e.names[i]);
    snprintf(srcs, sizeof srcs, "-DQDC_EXAMPLE_SOURCES=%s/histogram.qd;%s/float_sum.qd", e.src, e.src);
    const char *argv[] = {"cmake", "-G", "Ninja", "-S", cmdir, "-B", b, qdir, tg, srcs, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    r = ninja(&e, "-v");
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect_eq(count_lines_with(r.out, " -MD -MF "), 2 * e.n, "%s", r.out);
    run_free(&r);
    r = ninja(&e, "-n");
    cr_expect(strstr(r.out, "ninja: no work to do."), "%s", r.out);
    run_free(&r);
    char *out = path_join(b, "qdc"), *hist = path_join(e.src, "histogram.qd");
    touch_only(&e, out, hist);
    r = ninja(&e, "-n");
    cr_expect_eq(count_lines_with(r.out, "qdc "), e.n, "%s", r.out);
    cr_expect_eq(count_lines_with(r.out, "histogram.qd"), e.n, "%s", r.out);
    run_free(&r);
    char *yaml = family_yaml(&e);
    if (yaml) {
        r = ninja(&e, "");
        run_free(&r);
        int want = expected_rebuilds(&e, out, yaml);
        cr_expect_geq(want, 2, "both kernels of %s depend on %s", e.names[0], yaml);
        touch_only(&e, out, yaml);
        r = ninja(&e, "-n");
        cr_expect_eq(count_lines_with(r.out, "qdc "), want, "exactly the outputs depending on %s:\n%s", yaml, r.out);
        run_free(&r);
    }
    free(yaml), free(out), free(hist), free(cmdir), free(b), env_free(&e);
}
