/* The plain-Make example (examples/make, -MMD -MP) and the CMake package (examples/cmake,
 * qdc_add_kernels with DEPFILE, Ninja) rebuild exactly what changed: touching a .qd rebuilds its
 * outputs for every family, touching a family's YAML rebuilds the outputs whose depfile lists
 * it, and otherwise nothing is rebuilt. Uses an install in a temporary DESTDIR. */
#include "test_build_util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <ftw.h>
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

/* The depfile of <family>/<kernel>: <kernel>.d (the make example) or <kernel>.<ext>.d (the CMake
 * helper appends ".d" to the output name); NULL if neither exists. */
static char *depfile_of(const char *out_dir, const char *family, const char *kernel) {
    char rel[200];
    snprintf(rel, sizeof rel, "%s/%s.d", family, kernel);
    char *p = path_join(out_dir, rel);
    if (file_exists(p)) return p;
    free(p);
    snprintf(rel, sizeof rel, "%s", family);
    char *dir = path_join(out_dir, rel);
    DIR *d = opendir(dir);
    p = NULL;
    size_t kl = strlen(kernel);
    for (struct dirent *de; d && !p && (de = readdir(d));) {
        size_t l = strlen(de->d_name);
        if (l > kl + 3 && !strncmp(de->d_name, kernel, kl) && de->d_name[kl] == '.' && !strcmp(de->d_name + l - 2, ".d"))
            p = path_join(dir, de->d_name);
    }
    if (d) closedir(d);
    free(dir);
    return p;
}

/* How many of the 2 x n outputs have a depfile (depfile_of) naming yaml. */
static int expected_rebuilds(Env *e, const char *out_dir, const char *yaml) {
    const char *base = strrchr(yaml, '/'), *kernels[] = {"histogram", "float_sum"};
    int n = 0;
    for (int t = 0; t < e->n; t++)
        for (int k = 0; k < 2; k++) {
            char *p, *d;
            p = depfile_of(out_dir, e->names[t], kernels[k]);
            cr_assert(p, "no depfile for %s/%s under %s", e->names[t], kernels[k], out_dir);
            d = read_text(p, NULL);
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

/* The depfile of each output is <output>.d: an object and a header of one kernel never share
 * one, so Ninja settles (`ninja -n` idle) with both rules in one directory. */
Test(build_tools, cmake_object_and_header_rules_settle) {
    Env e = env_new("cmake");
    if (!tool_available("ninja")) cr_skip_test();
    char *cmdir = root_path("examples/cmake"), *b = path_join(e.dir, "b"), qdir[4200], srcs[4200];
    snprintf(qdir, sizeof qdir, "-Dqdc_DIR=%s/usr/lib/cmake/qdc", e.dest);
    snprintf(srcs, sizeof srcs, "-DQDC_EXAMPLE_SOURCES=%s/histogram.qd;%s/float_sum.qd", e.src, e.src);
    const char *argv[] = {"cmake", "-G", "Ninja", "-S", cmdir, "-B", b, qdir, "-DQDC_EXAMPLE_TARGETS=x86_64", srcs,
                          "-DQDC_EXAMPLE_HEADERS=ON", NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    r = ninja(&e, "-j2");
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    char *o = path_join(b, "qdc/x86_64/histogram.o.d"), *h = path_join(b, "qdc/x86_64/histogram.h.d");
    cr_expect(file_exists(o) && file_exists(h), "depfiles are named <output>.d");
    r = ninja(&e, "-n");
    cr_expect(strstr(r.out, "ninja: no work to do."), "%s", r.out);
    run_free(&r);
    free(o), free(h), free(cmdir), free(b), env_free(&e);
}

/* qdc_add_library(): a host program links the CPU kernels (header on the include path, qdrt
 * linked) and carries an embedded GPU output; an edit that leaves the header unchanged
 * recompiles no host code (outputs are not rewritten, Ninja restats). */
Test(build_tools, cmake_library_links_host_and_settles) {
    Env e = env_new("cmake");
    if (!tool_available("ninja")) cr_skip_test();
    char *cmdir = root_path("examples/cmake-library"), *b = path_join(e.dir, "b"), qdir[4200], srcdir[4200];
    snprintf(qdir, sizeof qdir, "-Dqdc_DIR=%s/usr/lib/cmake/qdc", e.dest);
    snprintf(srcdir, sizeof srcdir, "-DQDC_EXAMPLE_DIR=%s", e.src);
    const char *gpu = "-DQDC_EXAMPLE_GPU_TARGETS=";
    for (int i = 0; i < e.n; i++)
        if (!strcmp(e.names[i], "sm_90")) gpu = "-DQDC_EXAMPLE_GPU_TARGETS=sm_90";
    const char *argv[] = {"cmake", "-G", "Ninja", "-S", cmdir, "-B", b, qdir, srcdir, gpu, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    r = ninja(&e, "-v");
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    if (strcmp(gpu + strlen("-DQDC_EXAMPLE_GPU_TARGETS="), "")) /* EMBED: one qdc run per source gives the PTX and its array */
        cr_expect_eq(count_lines_with(r.out, "--target=sm_90"), 2, "%s", r.out);
    run_free(&r);
    char *host = path_join(b, "host");
    const char *run[] = {host, NULL};
    r = run_argv(run, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(!strncmp(r.out, "histogram: 1000 values counted, bins[7]=4\n", 42), "%s", r.out);
    if (strcmp(gpu + strlen("-DQDC_EXAMPLE_GPU_TARGETS="), ""))
        cr_expect(strstr(r.out, "embedded sm_90 PTX: "), "%s", r.out);
    run_free(&r);
    r = ninja(&e, "-n");
    cr_expect(strstr(r.out, "ninja: no work to do."), "%s", r.out);
    run_free(&r);
    char *hist = path_join(e.src, "histogram.qd"), *text = read_text(hist, NULL);
    cr_assert(text);
    size_t n = strlen(text);
    char *more = malloc(n + 32);
    snprintf(more, n + 32, "%s# a comment only\n", text);
    cr_assert(write_text(hist, more));
    set_mtime(hist, 5);
    r = ninja(&e, "-v");
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "histogram.qd"), "the kernel is recompiled: %s", r.out);
    cr_expect(!strstr(r.out, "host.c"), "an unchanged header recompiles no host code: %s", r.out);
    run_free(&r);
    r = ninja(&e, "-n");
    cr_expect(strstr(r.out, "ninja: no work to do."), "%s", r.out);
    run_free(&r);
    free(text), free(more), free(hist), free(host), free(cmdir), free(b), env_free(&e);
}

/* qdc_add_library(... SHARED, two CPU families, INSTANTIATE): examples/cmake-dispatch builds
 * libkernels.so holding the instantiated generic kernel for x86_64 and x86_64-v3 under distinct
 * prefixes; the host includes both headers in one file and runs either family. */
Test(build_tools, cmake_shared_library_two_cpu_families_and_instantiate) {
    Env e = env_new("cmake");
    if (!tool_available("ninja")) cr_skip_test();
    char *cmdir = root_path("examples/cmake-dispatch"), *b = path_join(e.dir, "b"), qdir[4200];
    snprintf(qdir, sizeof qdir, "-Dqdc_DIR=%s/usr/lib/cmake/qdc", e.dest);
    const char *argv[] = {"cmake", "-G", "Ninja", "-S", cmdir, "-B", b, qdir, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    r = ninja(&e, "-j2");
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    char *host = path_join(b, "host"), *so = path_join(b, "libkernels.so");
    const char *base[] = {host, "baseline", NULL}, *any[] = {host, NULL};
    r = run_argv(base, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect_str_eq(r.out, "x86_64: a[999]=2997\n");
    run_free(&r);
    r = run_argv(any, NULL, NULL); /* x86_64-v3 where the CPU has AVX2, FMA and BMI2 */
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(!strcmp(r.out, "x86_64: a[999]=2997\n") || !strcmp(r.out, "x86_64-v3: a[999]=2997\n"), "%s", r.out);
    run_free(&r);
    const char *nm[] = {"llvm-nm-19", "-D", "--defined-only", so, NULL};
    r = run_argv(nm, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, " T scale_x86_64_scale_f32_t0\n") && strstr(r.out, " T scale_x86_64_v3_scale_f32_t0\n"),
              "both families in the shared library:\n%s", r.out);
    run_free(&r);
    const char *dyn[] = {"llvm-readelf-19", "-d", host, NULL};
    r = run_argv(dyn, NULL, NULL);
    cr_expect(strstr(r.out, "Shared library: [libkernels.so]"), "%s", r.out);
    run_free(&r);
    r = ninja(&e, "-n");
    cr_expect(strstr(r.out, "ninja: no work to do."), "%s", r.out);
    run_free(&r);
    free(host), free(so), free(cmdir), free(b), env_free(&e);
}

static int files_left;
static int count_files(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)path, (void)sb, (void)ftw;
    if (flag == FTW_F || flag == FTW_SL) files_left++;
    return 0;
}

/* The installed qdrt.pc builds a host program against the installed runtime, wherever the tree
 * was moved (its prefix is relative to the .pc file); `make uninstall` removes every file. */
Test(build_tools, pkg_config_and_uninstall) {
    if (!tool_available("pkg-config")) cr_skip_test();
    char *dest = install_to_temp();
    cr_assert(dest, "install failed");
    char *pcdir = path_join(dest, "usr/lib/pkgconfig"), env[4200];
    snprintf(env, sizeof env, "PKG_CONFIG_PATH=%s", pcdir);
    const char *argv[] = {"env", env, "pkg-config", "--cflags", "--libs", "qdrt", NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char want[4400];
    snprintf(want, sizeof want, "-I%s/usr/lib/pkgconfig/../../include/qdc -L%s/usr/lib/pkgconfig/../../lib -lqdrt -lpthread -lm "
             "-rdynamic \n",
             dest, dest);
    cr_expect_str_eq(r.out, want);
    run_free(&r);
    const char *ver[] = {"env", env, "pkg-config", "--modversion", "qdrt", NULL};
    r = run_argv(ver, NULL, NULL);
    char *vf = root_path("VERSION"), *v = read_text(vf, NULL);
    cr_expect_str_eq(r.out, v);
    run_free(&r), free(vf), free(v);
    char dvar[4200];
    snprintf(dvar, sizeof dvar, "DESTDIR=%s", dest);
    const char *un[] = {"make", "-s", "-C", qdc_root(), "uninstall", dvar, "PREFIX=/usr", NULL};
    r = run_argv(un, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    files_left = 0;
    nftw(dest, count_files, 16, FTW_PHYS);
    cr_expect_eq(files_left, 0, "make uninstall leaves files under %s", dest);
    remove_tree(dest), free(dest), free(pcdir);
}

/* examples/lit: LLVM's lit runs the .qd files' RUN lines and FileCheck matches their CHECK
 * lines (Debian llvm-19-tools); the three tests pass against the qdc under test. */
Test(build_tools, lit_examples_pass) {
    const char *lit = "/usr/lib/llvm-19/build/utils/lit/lit.py";
    if (!file_exists(lit) || !tool_available("/usr/lib/llvm-19/bin/FileCheck")) {
        fprintf(stderr, "test_build_tools: llvm-19-tools not installed; skipping\n");
        cr_skip_test();
    }
    char *dir = root_path("examples/lit"), *tmp = make_temp_dir(), qdc[4200], td[4200];
    snprintf(qdc, sizeof qdc, "QDC=%s", qdc_bin());
    snprintf(td, sizeof td, "TMPDIR=%s", tmp);
    const char *argv[] = {"env", qdc, td, "python3", lit, "-v", dir, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "Passed: 3"), "%s", r.out);
    run_free(&r), remove_tree(tmp), free(tmp), free(dir);
}

/* tests/lit: the project's own FileCheck tests (-g line information on every output kind,
 * memory-order lowering and instructions per family) pass against the qdc under test. */
Test(build_tools, lit_suite_passes) {
    const char *lit = "/usr/lib/llvm-19/build/utils/lit/lit.py";
    if (!file_exists(lit) || !tool_available("/usr/lib/llvm-19/bin/FileCheck")) {
        fprintf(stderr, "test_build_tools: llvm-19-tools not installed; skipping\n");
        cr_skip_test();
    }
    char *dir = root_path("tests/lit"), *tmp = make_temp_dir(), qdc[4200], td[4200];
    snprintf(qdc, sizeof qdc, "QDC=%s", qdc_bin());
    snprintf(td, sizeof td, "TMPDIR=%s", tmp);
    const char *argv[] = {"env", qdc, td, "python3", lit, "-v", dir, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "Passed: 2"), "%s", r.out);
    run_free(&r), remove_tree(tmp), free(tmp), free(dir);
}
