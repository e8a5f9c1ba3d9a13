/* The command line as build systems use it (issues 34 and 35): depfile names that never collide
 * or replace an output, lexically normalised dependency paths, time stamps a plain Makefile can
 * rely on (and --keep-unchanged for Ninja's restat), a real plain-make project that rebuilds
 * exactly what an edit changed and is idle after. */
#include "test_build_util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <ftw.h>
#include <time.h>
#include <sys/stat.h>

static char *example(const char *name) {
    char rel[128];
    snprintf(rel, sizeof rel, "examples/%s", name);
    return root_path(rel);
}

/* -MD without -MF appends ".d" to the output: k.o and k.h of one kernel get their own depfile. */
Test(cli_build, default_depfile_is_the_output_name_plus_d) {
    char *dir = make_temp_dir(), *ex = example("histogram.qd"), *o = path_join(dir, "out/k.o"),
         *h = path_join(dir, "out/k.h");
    const char *a1[] = {"--target=x86_64", "-o", o, "-MD", ex, NULL}, *a2[] = {"--target=x86_64", "-o", h, "-MD", ex, NULL};
    RunResult r = run_qdc_argv(a1, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_qdc_argv(a2, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *od = path_join(dir, "out/k.o.d"), *hd = path_join(dir, "out/k.h.d"), *old = path_join(dir, "out/k.d");
    char *otext = read_text(od, NULL), *htext = read_text(hd, NULL);
    cr_assert(otext && htext, "k.o.d and k.h.d are written");
    cr_expect(!strncmp(otext, o, strlen(o)) && otext[strlen(o)] == ':', "%s", otext);
    cr_expect(!strncmp(htext, h, strlen(h)) && htext[strlen(h)] == ':', "%s", htext);
    cr_expect(!file_exists(old), "no out/k.d shared by both");
    free(otext), free(htext), free(od), free(hd), free(old);
    remove_tree(dir), free(dir), free(ex), free(o), free(h);
}

/* Issue 34 item 1: a depfile named like one of several outputs (whose directory does not exist
 * yet) is refused, QD0007, exit 1, nothing written: for every target and every kind. */
Test(cli_build, depfile_never_replaces_an_output) {
    char *dir = make_temp_dir(), *ex = example("histogram.qd"), *tmpl = path_join(dir, "out/%t.%e"),
         *obj = path_join(dir, "out/x86_64.o"), *out = path_join(dir, "out");
    const char *a1[] = {"--target=x86_64,sm_90", "-o", tmpl, "-MD", "-MF", obj, ex, NULL};
    RunResult r = run_qdc_argv(a1, NULL, NULL);
    char want[9000];
    snprintf(want, sizeof want, "qdc: error[QD0007]: the depfile '%s' is also the output file '%s'\n", obj, obj);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect_str_eq(r.err, want);
    cr_expect(!file_exists(out), "nothing is written");
    run_free(&r);
    char *meta = path_join(dir, "out/%t.d"), *md = path_join(dir, "out/sm_90.d");
    const char *a2[] = {"--target=x86_64,sm_90", "-o", meta, "--emit=metadata", "-MD", "-MF", md, ex, NULL};
    r = run_qdc_argv(a2, NULL, NULL);
    snprintf(want, sizeof want, "qdc: error[QD0007]: the depfile '%s' is also the output file '%s'\n", md, md);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect_str_eq(r.err, want);
    cr_expect(!file_exists(out), "nothing is written");
    run_free(&r);
    /* the same file through a directory that does not exist yet, spelled two ways */
    char *one = path_join(dir, "new/sub/../k.o"), *two = path_join(dir, "new//k.o");
    const char *a3[] = {"--target=x86_64", "-o", one, "-MD", "-MF", two, ex, NULL};
    r = run_qdc_argv(a3, NULL, NULL);
    snprintf(want, sizeof want, "qdc: error[QD0007]: the depfile '%s' is also the output file '%s'\n", two, one);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect_str_eq(r.err, want);
    run_free(&r);
    free(two);
    remove_tree(dir), free(dir), free(ex), free(tmpl), free(obj), free(out), free(meta), free(md), free(one);
}

/* Dependency paths are normalised lexically: no "dir/.." or "./" (the build tree's database is
 * found through "<exe dir>/../capability-db"). */
Test(cli_build, depfile_paths_are_normalised) {
    char *dir = make_temp_dir(), *ex = example("histogram.qd"), *sub = path_join(dir, "sub"), *k = path_join(dir, "k.qd");
    cr_assert(!mkdir(sub, 0777) && copy_file(ex, k));
    const char *args[] = {"--target=x86_64", "-o", "k.o", "-MD", "./sub/../k.qd", NULL};
    RunResult r = run_qdc_argv(args, NULL, dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *d = path_join(dir, "k.o.d"), *text = read_text(d, NULL);
    cr_assert(text);
    cr_expect(!strncmp(text, "k.o: \\\n  k.qd \\\n  /", 19), "%s", text);
    cr_expect(!strstr(text, "/../") && !strstr(text, "/./"), "%s", text);
    cr_expect(strstr(text, "/capability-db/x86_64.yaml"), "%s", text);
    free(d), free(text), remove_tree(dir), free(dir), free(ex), free(sub), free(k);
}

/* By default an output that already holds the bytes gets a new time stamp (make compares time
 * stamps only); with --keep-unchanged it is left alone (Ninja's restat). */
Test(cli_build, unchanged_outputs_are_touched_unless_keep_unchanged) {
    char *dir = make_temp_dir(), *ex = example("histogram.qd"), *o = path_join(dir, "k.o"), *d = path_join(dir, "k.o.d");
    const char *args[] = {"--target=x86_64", "-o", o, "-MD", ex, NULL};
    RunResult r = run_qdc_argv(args, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    struct stat before, after, dafter;
    set_mtime(o, -1000), set_mtime(d, -1000);
    cr_assert(!stat(o, &before));
    r = run_qdc_argv(args, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    cr_assert(!stat(o, &after) && !stat(d, &dafter));
    cr_expect_gt(after.st_mtime, before.st_mtime + 900, "the object's time stamp is now");
    cr_expect_gt(dafter.st_mtime, before.st_mtime + 900, "the depfile's time stamp is now");
    cr_expect_eq(after.st_ino, before.st_ino, "touched, not replaced");
    set_mtime(o, -1000);
    cr_assert(!stat(o, &before));
    const char *keep[] = {"--keep-unchanged", "--target=x86_64", "-o", o, "-MD", ex, NULL};
    r = run_qdc_argv(keep, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    cr_assert(!stat(o, &after));
    cr_expect_eq(after.st_mtime, before.st_mtime, "--keep-unchanged leaves the time stamp");
    remove_tree(dir), free(dir), free(ex), free(o), free(d);
}

/* ---- a real plain-make project: examples/make/Makefile ---- */

typedef struct {
    char *dir, *src, *db;
} Project;

static RunResult make_in(Project *p, const char *flag) {
    char *mk = root_path("examples/make/Makefile"), q[4200];
    snprintf(q, sizeof q, "QDC=%s", qdc_bin());
    const char *argv[] = {"make", "-f", mk, q, "TARGETS=x86_64 sm_90", "SRCDIR=src", "OUT=out",
                          "QDCFLAGS=--capdb-dir=db -Wno-capdb-shadow", flag, NULL};
    RunResult r = run_argv(argv, NULL, p->dir);
    free(mk);
    return r;
}

/* Sets every file under a directory to one time stamp 100 s ago (one instant for all, so no
 * file is newer than another by the time the walk took). */
static struct timespec aged[2];
static int age_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    utimensat(AT_FDCWD, path, aged, AT_SYMLINK_NOFOLLOW);
    return 0;
}
static void age_tree(const char *dir) {
    clock_gettime(CLOCK_REALTIME, &aged[0]);
    aged[0].tv_sec -= 100, aged[0].tv_nsec = 0, aged[1] = aged[0];
    nftw(dir, age_one, 16, FTW_PHYS);
}

/* Runs make and returns which (family, kernel) pairs it compiled, as "x86_64:histogram ...". */
static char *rebuilt(Project *p) {
    RunResult r = make_in(p, "--no-print-directory");
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    static const char *const fams[] = {"x86_64", "sm_90"}, *const ks[] = {"histogram", "float_sum"};
    char *list = calloc(1, 256);
    for (int f = 0; f < 2; f++)
        for (int k = 0; k < 2; k++) {
            char line[128];
            snprintf(line, sizeof line, "--target=%s -o out/%s/%s.", fams[f], fams[f], ks[k]);
            int n = count_lines_with(r.out, line);
            cr_expect_leq(n, 1, "%s", r.out);
            if (n) sprintf(list + strlen(list), "%s%s:%s", *list ? " " : "", fams[f], ks[k]);
        }
    run_free(&r);
    age_tree(p->dir); /* every file older than the next edit */
    return list;
}

static void expect_idle(Project *p) {
    char *l = rebuilt(p);
    cr_expect_str_empty(l, "make is idle, yet it compiled %s", l);
    free(l);
}

static void append(const char *path, const char *text) {
    FILE *f = fopen(path, "a");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

Test(cli_build, plain_makefile_rebuilds_exactly_and_is_idle_after) {
    if (!tool_available("make")) cr_skip_test("make is not installed");
    Project p = {make_temp_dir(), NULL, NULL};
    p.src = path_join(p.dir, "src"), p.db = path_join(p.dir, "db");
    cr_assert(!mkdir(p.src, 0777) && !mkdir(p.db, 0777));
    char *h = path_join(p.src, "histogram.qd"), *f = path_join(p.src, "float_sum.qd"), *y = path_join(p.db, "x86_64.yaml");
    char *eh = example("histogram.qd"), *ef = example("float_sum.qd"), *ey = root_path("capability-db/x86_64.yaml");
    cr_assert(copy_file(eh, h) && copy_file(ef, f) && copy_file(ey, y));
    char *l = rebuilt(&p);
    cr_expect_str_eq(l, "x86_64:histogram x86_64:float_sum sm_90:histogram sm_90:float_sum");
    free(l);
    expect_idle(&p);
    append(h, "# a comment: the outputs do not change\n");
    l = rebuilt(&p);
    cr_expect_str_eq(l, "x86_64:histogram sm_90:histogram");
    free(l);
    expect_idle(&p); /* the unchanged outputs were touched, so make does not rerun qdc */
    append(y, "# a comment in the family's capability file\n");
    l = rebuilt(&p);
    cr_expect_str_eq(l, "x86_64:histogram x86_64:float_sum");
    free(l);
    expect_idle(&p);
    char *text = read_text(f, NULL), *edited = malloc(strlen(text) + 64);
    sprintf(edited, "%s\n@qd.kernel\ndef extra_kernel():\n    pass\n", text);
    cr_assert(write_text(f, edited));
    l = rebuilt(&p);
    cr_expect_str_eq(l, "x86_64:float_sum sm_90:float_sum");
    free(l);
    expect_idle(&p);
    free(text), free(edited), free(h), free(f), free(y), free(eh), free(ef), free(ey);
    remove_tree(p.dir), free(p.dir), free(p.src), free(p.db);
}

/* ---- issue 35 items 6 and 8, issue 34 item 13: habits from other compilers, suggestions ---- */

static void expect_usage_err(RunResult r, const char *want) {
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect_str_eq(r.err, want);
    run_free(&r);
}

Test(cli_build, other_compilers_spellings_and_suggestions) {
    expect_usage_err(run_qdc("-O4", "k.qd", NULL), "qdc: error: unknown optimization level '-O4' (qdc has -O0, -O1, -O2 "
                                                   "and -O3; did you mean '-O3'?)\nqdc: run 'qdc --help' for usage\n");
    RunResult r = run_qdc("--target=sm_100", "k.qd", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "qdc: error: unknown target 'sm_100'; known targets: sm_60, "), "%s", r.err);
    cr_expect(strstr(r.err, "\nqdc: note: the newest sm_ family in the capability database is 'sm_90a'; to compile for "
                            "sm_100, describe it in sm_100.yaml ('extends: sm_90a' and what differs) in a --capdb-dir "
                            "directory (see qdc-capdb(5))\n"), "%s", r.err);
    cr_expect(!strstr(r.err, "sm_60'?"), "%s", r.err);
    run_free(&r);
    char *ex = example("histogram.qd");
    RunResult want = run_qdc("--target=sm_90", "-o", "-", ex, NULL), want_v = run_qdc("--target=vulkan1.3", "-o", "-", ex, NULL);
    cr_assert_eq(want.status, 0, "%s", want.err);
    const char *const spell[][3] = {{"-arch=sm_90", NULL}, {"-arch", "sm_90"}, {"--arch=sm_90", NULL},
                                    {"--gpu-architecture=sm_90", NULL}, {"--target-env=vulkan1.3", NULL}};
    for (size_t i = 0; i < sizeof spell / sizeof spell[0]; i++) {
        const char *args[] = {spell[i][0], spell[i][1] ? spell[i][1] : "-o", spell[i][1] ? "-o" : "-", spell[i][1] ? "-" : ex,
                              spell[i][1] ? ex : NULL, NULL};
        r = run_qdc_argv(args, NULL, NULL);
        RunResult *w = strstr(spell[i][0], "vulkan") ? &want_v : &want;
        cr_expect_eq(r.status, 0, "%s: %s", spell[i][0], r.err);
        cr_expect(r.out_len == w->out_len && !memcmp(r.out, w->out, r.out_len), "%s compiles as --target", spell[i][0]);
        run_free(&r);
    }
    run_free(&want), run_free(&want_v), free(ex);
}

Test(cli_build, taichi_import_and_instantiate_name_give_one_error) {
    const char *taichi = "import taichi as ti\n\n@ti.kernel\ndef k(a: ti.types.ndarray(dtype=ti.i32, ndim=1)):\n    a[0] = 1\n";
    const char *a1[] = {"--check", "-", NULL};
    RunResult r = run_qdc_argv(a1, taichi, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.err, "<stdin>:1:1: error[QD2003]: Quadrants kernels import quadrants, not taichi: write 'import "
                            "quadrants as qd' and qd.<name> where the code has its Taichi alias\n 1 | import taichi as ti\n"
                            "   | ^~~~~~~~~~~~~~~~~~~\n");
    run_free(&r);
    const char *generic = "import quadrants as qd\n\n@qd.kernel\ndef scale(a: qd.types.ndarray()):\n    a[0] = 1\n";
    const char *a2[] = {"--check", "--instantiate=scael(a=f32[1])", "-", NULL};
    r = run_qdc_argv(a2, generic, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.err, "--instantiate:1:1: error[QD2061]: --instantiate names 'scael', which is not a kernel of this "
                            "module; did you mean 'scale'?\n 1 | scael(a=f32[1])\n   | ^~~~~\n");
    run_free(&r);
}

Test(cli_build, wall_wextra_version_json_and_format_where_it_applies) {
    const char *src = "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.u8, ndim=1)):\n    a[0] = 300\n";
    const char *quiet[] = {"--check", "-Wno-constant-conversion", "-", NULL},
               *wall[] = {"--check", "-Wno-constant-conversion", "-Wall", "-", NULL},
               *wextra[] = {"--check", "-Wno-constant-conversion", "-Wextra", "-Werror", "-", NULL};
    RunResult q = run_qdc_argv(quiet, src, NULL), w = run_qdc_argv(wall, src, NULL), x = run_qdc_argv(wextra, src, NULL);
    cr_expect_eq(q.status, 0, "%s", q.err);
    cr_expect_str_empty(q.err);
    cr_expect_eq(w.status, 0, "%s", w.err);
    cr_expect(strstr(w.err, "warning[QD2150]"), "-Wall turns the warning back on: %s", w.err);
    cr_expect_eq(x.status, 1, "%s", x.err);
    cr_expect(strstr(x.err, "error[QD2150]"), "%s", x.err);
    run_free(&q), run_free(&w), run_free(&x);
    RunResult v = run_qdc("--version", "--format=json", NULL);
    cr_expect_eq(v.status, 0, "%s", v.err);
    cr_expect(!strncmp(v.out, "{\"schema\":\"qdc-version/1\",\"version\":\"", 37), "%s", v.out);
    cr_expect(strstr(v.out, ",\"capdb_schema\":1,\"capdb_dirs\":[\""), "%s", v.out);
    cr_expect_eq(v.out[v.out_len - 2], '}', "%s", v.out);
    run_free(&v);
    expect_usage_err(run_qdc("--format=json", "k.qd", NULL),
                     "qdc: error: --format=json applies to --version, --list-targets, --print-caps and --support-matrix\n");
    expect_usage_err(run_qdc("--version", "--format=md", NULL), "qdc: error: --version prints text or json, not md\n");
}

/* Issue 34 item 13: a capability description holding ESC or BEL is printed escaped. */
Test(cli_build, control_characters_in_descriptions_are_escaped) {
    char *dir = make_temp_dir(), *shipped = root_path("capability-db/x86_64.yaml"), *mine = path_join(dir, "x86_64.yaml");
    char *t = read_text(shipped, NULL), *d = strstr(t, "\ndescription: ");
    cr_assert(d);
    char *eol = strchr(d + 1, '\n'), flag[4200];
    size_t n = strlen(t) + 64;
    char *text = malloc(n);
    snprintf(text, n, "%.*s\ndescription: \"x86 \\e[31mred\\a\"%s", (int)(d - t), t, eol);
    cr_assert(write_text(mine, text));
    snprintf(flag, sizeof flag, "--capdb-dir=%s", dir);
    RunResult r = run_qdc(flag, "-Wno-capdb-shadow", "--list-targets", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "x86_64     x86_64  -         x86 \\e[31mred\\x07\n"), "%s", r.out);
    cr_expect(!strchr(r.out, '\033') && !strchr(r.out, '\a'));
    run_free(&r);
    r = run_qdc(flag, "-Wno-capdb-shadow", "--print-caps", "x86_64", NULL);
    cr_expect(strstr(r.out, "\ndescription: x86 \\e[31mred\\x07\n"), "%s", r.out);
    cr_expect(!strchr(r.out, '\033') && !strchr(r.out, '\a'));
    run_free(&r);
    free(t), free(text), free(shipped), free(mine), remove_tree(dir), free(dir);
}

/* Issue 35 item 8: `make install` puts a bash completion beside qdc whose families, aliases and
 * capabilities come from the database through the installed qdc. */
static char *complete_line(const char *script, const char *words, int cword) {
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "source '%s'; COMP_WORDS=(%s); COMP_CWORD=%d; _qdc; printf '%%s\\n' \"${COMPREPLY[@]}\"",
             script, words, cword);
    const char *argv[] = {"bash", "--norc", "-c", cmd, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char *out = strdup(r.out);
    run_free(&r);
    return out;
}

Test(cli_build, bash_completion_is_installed_and_asks_the_database) {
    if (!tool_available("bash")) cr_skip_test("bash is not installed");
    char *dest = install_to_temp();
    cr_assert(dest, "install failed");
    char *script = path_join(dest, "usr/share/bash-completion/completions/qdc"), *qdc = path_join(dest, "usr/bin/qdc"), w[4400];
    cr_assert(file_exists(script), "no completion installed at %s", script);
    static const struct { const char *words; int cword; const char *want; } cases[] = {
        {"--target = sm_9", 3, "sm_90\nsm_90a\n"},
        {"--target = sm_90,gfx94", 3, "sm_90,gfx942\n"}, /* after a comma */
        {"--print-caps h1", 2, "h100\n"},                /* aliases */
        {"--target = vulkan1.2 --cap = -subgroup", 6, "-subgroup-arithmetic\n-subgroup-ballot\n-subgroup32\n"},
        {"--keep", 1, "--keep-unchanged\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(w, sizeof w, "'%s' %s", qdc, cases[i].words);
        char *got = complete_line(script, w, cases[i].cword);
        cr_expect_str_eq(got, cases[i].want, "%s", cases[i].words);
        free(got);
    }
    free(script), free(qdc), remove_tree(dest), free(dest);
}

/* ---- issue 35 item 2: several input files per call ---- */

Test(cli_build, several_inputs_compile_in_order_with_a_depfile_each) {
    char *dir = make_temp_dir(), *a = path_join(dir, "a"), *b = path_join(dir, "b"), *eh = example("histogram.qd"),
         *ef = example("float_sum.qd");
    cr_assert(!mkdir(a, 0777) && !mkdir(b, 0777));
    char *ah = path_join(a, "histogram.qd"), *af = path_join(a, "float_sum.qd"), *bh = path_join(b, "histogram.qd");
    cr_assert(copy_file(eh, ah) && copy_file(ef, af) && copy_file(eh, bh));
    const char *args[] = {"a/histogram.qd", "a/float_sum.qd", "--target=x86_64,sm_90", "-o", "out/%t/%n.%e", "-MD", NULL};
    RunResult r = run_qdc_argv(args, NULL, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    const char *files[] = {"out/x86_64/histogram.o", "out/sm_90/histogram.ptx", "out/x86_64/float_sum.o", "out/sm_90/float_sum.ptx"};
    for (size_t i = 0; i < 4; i++) {
        char *p = path_join(dir, files[i]);
        cr_expect(file_exists(p), "%s", files[i]);
        free(p);
    }
    char *dh = path_join(dir, "out/x86_64/histogram.o.d"), *df = path_join(dir, "out/x86_64/float_sum.o.d");
    char *th = read_text(dh, NULL), *tf = read_text(df, NULL);
    cr_assert(th && tf);
    cr_expect(!strncmp(th, "out/x86_64/histogram.o out/sm_90/histogram.ptx: \\\n  a/histogram.qd \\\n", 69), "%s", th);
    cr_expect(!strncmp(tf, "out/x86_64/float_sum.o out/sm_90/float_sum.ptx: \\\n  a/float_sum.qd \\\n", 69), "%s", tf);
    free(dh), free(df), free(th), free(tf);
    /* the same as one call per input: byte for byte */
    const char *one[] = {"a/float_sum.qd", "--target=sm_90", "-o", "-", NULL};
    r = run_qdc_argv(one, NULL, dir);
    char *p = path_join(dir, "out/sm_90/float_sum.ptx"), *t = read_text(p, NULL);
    cr_expect(t && !strcmp(t, r.out), "several inputs compile as one each");
    run_free(&r), free(p), free(t);
    /* diagnostics in input order, every input tried, the worst status */
    const char *bad[] = {"--check", "nothere.qd", "a/histogram.qd", "missing2.qd", NULL};
    r = run_qdc_argv(bad, NULL, dir);
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.err, "qdc: error[QD0001]: cannot open 'nothere.qd': no such file\n"
                            "qdc: error[QD0001]: cannot open 'missing2.qd': no such file\n");
    run_free(&r);
    /* two inputs that would write one file */
    const char *clash[] = {"a/histogram.qd", "b/histogram.qd", "-o", "o2/%n.%e", NULL};
    r = run_qdc_argv(clash, NULL, dir);
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.err, "qdc: error[QD0007]: the output file 'o2/histogram.o' would be written for both "
                            "'a/histogram.qd' and 'b/histogram.qd'\n");
    run_free(&r);
    char *o2 = path_join(dir, "o2");
    cr_expect(!file_exists(o2), "nothing written");
    const char *mf[] = {"a/histogram.qd", "a/float_sum.qd", "-o", "o3/%n.%e", "-MD", "-MF", "x.d", NULL};
    r = run_qdc_argv(mf, NULL, dir);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "qdc: error: -MF, -MT and -MQ name one depfile and one rule: with several input files each "
                            "output gets its own depfile (<output>.d)\n");
    run_free(&r);
    const char *in[] = {"a/histogram.qd", "-", NULL};
    r = run_qdc_argv(in, "", dir);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "qdc: error: standard input (-) cannot be one of several input files\n");
    run_free(&r);
    free(o2), free(ah), free(af), free(bh), free(a), free(b), free(eh), free(ef), remove_tree(dir), free(dir);
}

/* ---- issue 35 item 4: --embed (CMake's EMBED) ---- */

/* One run writes the output, <output>.c holding its bytes and <output>.h declaring them; a C
 * program that includes the header gets back exactly the output's bytes. */
Test(cli_build, embed_writes_the_array_and_its_header_in_the_same_run) {
    if (!tool_available("cc")) cr_skip_test("no C compiler");
    char *dir = make_temp_dir(), *ex = example("histogram.qd");
    const char *args[] = {"--target=sm_90", "--embed", "--symbol-prefix=h_", "-o", "gpu/k.ptx", "-MD", ex, NULL};
    RunResult r = run_qdc_argv(args, NULL, dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *ptx = path_join(dir, "gpu/k.ptx"), *h = path_join(dir, "gpu/k.ptx.h"), *d = path_join(dir, "gpu/k.ptx.d");
    size_t plen;
    char *p = read_text(ptx, &plen), *ht = read_text(h, NULL), *dt = read_text(d, NULL), decl[256];
    cr_assert(p && ht && dt);
    snprintf(decl, sizeof decl, "extern const size_t h_qdc_histogram_sm_90_size;\nextern const unsigned char "
                                "h_qdc_histogram_sm_90[%zu];\n", plen + 1);
    cr_expect(strstr(ht, decl), "%s", ht);
    cr_expect(strstr(ht, "#ifndef H_QDC_HISTOGRAM_SM_90_H\n"), "%s", ht);
    cr_expect(!strncmp(dt, "gpu/k.ptx gpu/k.ptx.c gpu/k.ptx.h: \\\n", 37), "the depfile names all three: %s", dt);
    char *m = path_join(dir, "m.c");
    cr_assert(write_text(m, "#include \"gpu/k.ptx.h\"\n#include <stdio.h>\nint main(void) {\n"
                            "    fwrite(h_qdc_histogram_sm_90, 1, h_qdc_histogram_sm_90_size, stdout);\n"
                            "    return h_qdc_histogram_sm_90[h_qdc_histogram_sm_90_size];\n}\n"));
    char *c = path_join(dir, "gpu/k.ptx.c"), *ct = read_text(c, NULL);
    cr_assert(ct);
    cr_expect(!strncmp(ct, "/* The ptx output of histogram.qd for sm_90, embedded by qdc --embed. Generated; do not edit. */\n"
                           "#include \"k.ptx.h\"\n#include <stddef.h>\n", 128), "the .c includes its own header: %s", ct);
    const char *cc[] = {"cc", "-std=c17", "-Wall", "-Werror", "-I.", "-o", "m", "m.c", "gpu/k.ptx.c", NULL};
    r = run_argv(cc, NULL, dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    /* a header that disagrees with the definitions (one byte short) no longer compiles with them */
    char wrong[256];
    snprintf(wrong, sizeof wrong, "#include <stddef.h>\nextern const size_t h_qdc_histogram_sm_90_size;\n"
                                  "extern const unsigned char h_qdc_histogram_sm_90[%zu];\n", plen);
    cr_assert(write_text(h, wrong));
    const char *cc_c[] = {"cc", "-std=c17", "-c", "-o", "k.o", "gpu/k.ptx.c", NULL};
    r = run_argv(cc_c, NULL, dir);
    cr_expect_neq(r.status, 0, "a mismatched header compiles: %s", wrong);
    cr_expect(strstr(r.err, "h_qdc_histogram_sm_90"), "the compiler names the symbol: %s", r.err);
    run_free(&r);
    free(c), free(ct);
    const char *run[] = {"./m", NULL};
    r = run_argv(run, NULL, dir);
    cr_expect_eq(r.status, 0);
    cr_expect(r.out_len == plen && !memcmp(r.out, p, plen), "the embedded bytes are the .ptx");
    run_free(&r);
    const char *bad[] = {"--target=sm_90", "--embed", "-o", "-", ex, NULL};
    r = run_qdc_argv(bad, NULL, dir);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "qdc: error: --embed writes <output>.c and <output>.h beside an output file: give -o FILE (not "
                            "-), and no --emit=c-array, ast or ir, or --emit-all\n");
    run_free(&r);
    const char *quote[] = {"--target=sm_90", "--embed", "-o", "gpu/k\"1.ptx", ex, NULL};
    r = run_qdc_argv(quote, NULL, dir);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "qdc: error: --embed: the output name 'k\"1.ptx' cannot be #included from <output>.c (it "
                            "holds '\"', '\\' or a newline)\n");
    char *q = path_join(dir, "gpu/k\"1.ptx"), *qc = path_join(dir, "gpu/k\"1.ptx.c");
    cr_expect(!file_exists(q) && !file_exists(qc), "nothing written");
    free(q), free(qc);
    run_free(&r);
    free(p), free(ht), free(dt), free(ptx), free(h), free(d), free(m), free(ex), remove_tree(dir), free(dir);
}

/* Issue 35 item 10: a CMake configure error quotes qdc's message once ("qdc: error: ..."), not
 * "qdc: qdc: error: ...". */
Test(cli_build, cmake_configure_error_is_not_prefixed_twice) {
    if (!tool_available("cmake")) cr_skip_test("cmake is not installed");
    char *dir = make_temp_dir(), *lists = path_join(dir, "CMakeLists.txt"), *k = path_join(dir, "k.qd"),
         *ex = example("histogram.qd"), *b = path_join(dir, "b"), *cm = root_path("cmake"), def[4200];
    cr_assert(copy_file(ex, k));
    cr_assert(write_text(lists, "cmake_minimum_required(VERSION 3.20)\nproject(t C)\nfind_package(qdc REQUIRED)\n"
                                "qdc_add_kernels(k SOURCES k.qd TARGETS sm_9000)\n"));
    snprintf(def, sizeof def, "-Dqdc_DIR=%s", cm);
    const char *argv[] = {"cmake", "-S", dir, "-B", b, def, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    cr_expect_neq(r.status, 0);
    cr_expect(strstr(r.err, "qdc: error: unknown target 'sm_9000'; known targets: "), "%s", r.err);
    cr_expect(!strstr(r.err, "qdc: qdc:"), "%s", r.err);
    run_free(&r);
    free(lists), free(k), free(ex), free(b), free(cm), remove_tree(dir), free(dir);
}
