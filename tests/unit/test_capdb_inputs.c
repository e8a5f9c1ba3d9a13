/* Capability directories the user names (--capdb-dir, QDC_CAPDB_PATH) that cannot be searched
 * (warning QD0006), and the loader's fuzz regression inputs in testdata/regress/capdb/. */
#include "harness.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *cat(const char *a, const char *b) {
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    snprintf(s, n, "%s/%s", a, b);
    return s;
}

/* Copies src to dir/fuzzfam.yaml byte for byte (crash inputs may hold NULs). */
static void copy_as_fuzzfam(const char *src, const char *dir) {
    char *dst = cat(dir, "fuzzfam.yaml");
    const char *argv[] = {"cp", src, dst, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    cr_assert_eq(r.status, 0, "cp %s: %s", src, r.err);
    run_free(&r);
    free(dst);
}

Test(capdb_inputs, missing_capdb_dir_is_warned_and_skipped) {
    char *tmp = make_temp_dir(), *gone = cat(tmp, "nosuch");
    RunResult r = run_qdc("--capdb-dir", gone, "--list-targets", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char want[512];
    snprintf(want, sizeof want, "qdc: warning[QD0006]: --capdb-dir directory '%s' is ignored: No such file or directory [-Wmissing-capdb-dir]\n",
             gone);
    cr_expect_str_eq(r.err, want);
    cr_expect(strstr(r.out, "sm_80"), "the checked-in families still load: %s", r.out);
    run_free(&r);
    remove_tree(tmp);
    free(tmp), free(gone);
}

Test(capdb_inputs, capdb_dir_that_is_a_file) {
    char *tmp = make_temp_dir(), *file = cat(tmp, "db.yaml");
    cr_assert(write_text(file, "schema: 1\n"));
    RunResult r = run_qdc("--capdb-dir", file, "--list-targets", NULL);
    cr_expect_eq(r.status, 0);
    char want[512];
    snprintf(want, sizeof want, "qdc: warning[QD0006]: --capdb-dir directory '%s' is ignored: not a directory [-Wmissing-capdb-dir]\n", file);
    cr_expect_str_eq(r.err, want);
    run_free(&r);
    remove_tree(tmp);
    free(tmp), free(file);
}

Test(capdb_inputs, warning_switches_and_werror) {
    const char *gone = "/nonexistent/qdc-capdb";
    RunResult off = run_qdc("-Wno-missing-capdb-dir", "--capdb-dir", gone, "--list-targets", NULL);
    cr_expect_eq(off.status, 0);
    cr_expect_str_empty(off.err);
    RunResult e = run_qdc("-Werror=missing-capdb-dir", "--capdb-dir", gone, "--list-targets", NULL);
    cr_expect_eq(e.status, 1, "%s", e.err);
    cr_expect_str_eq(e.err, "qdc: error[QD0006]: --capdb-dir directory '/nonexistent/qdc-capdb' is ignored: "
                            "No such file or directory [-Werror=missing-capdb-dir]\n");
    RunResult ok = run_qdc("--capdb-dir", qdc_root(), "--list-targets", NULL);
    cr_expect_eq(ok.status, 0);
    cr_expect_str_empty(ok.err, "an existing directory without family files is fine");
    run_free(&off), run_free(&e), run_free(&ok);
}

Test(capdb_inputs, missing_qdc_capdb_path_entry_is_warned) {
    const char *argv[] = {"env", "QDC_CAPDB_PATH=/nonexistent/a::/nonexistent/b", qdc_bin(), "--list-targets", NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "qdc: warning[QD0006]: QDC_CAPDB_PATH directory '/nonexistent/a' is ignored: No such file or directory [-Wmissing-capdb-dir]\n"
                            "qdc: warning[QD0006]: QDC_CAPDB_PATH directory '/nonexistent/b' is ignored: No such file or directory [-Wmissing-capdb-dir]\n");
    run_free(&r);
}

Test(capdb_inputs, json_warning_without_input_has_null_file) {
    RunResult r = run_qdc("--diagnostics-format=json", "--capdb-dir", "/nonexistent/db", "--list-targets", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect_str_eq(r.err, "{\"schema\":\"qdc-diagnostic/1\",\"severity\":\"warning\",\"code\":\"QD0006\",\"file\":null,"
                            "\"line\":0,\"column\":0,\"end_line\":0,\"end_column\":0,\"byte_offset\":0,\"byte_length\":0,"
                            "\"message\":\"--capdb-dir directory '/nonexistent/db' is ignored: No such file or directory\"}\n");
    run_free(&r);
}

/* The cyclic 'else' found by fuzz_capdb: a located QD3003, not a stack overflow. */
Test(capdb_inputs, else_alias_cycle_is_an_error) {
    char *tmp = make_temp_dir(), *src = root_path("testdata/regress/capdb/else-alias-cycle.yaml");
    copy_as_fuzzfam(src, tmp);
    RunResult r = run_qdc("--capdb-dir", tmp, "--list-targets", NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "fuzzfam.yaml:4:11: error[QD3003]: 'else' cells nest more than 16 deep"), "%s", r.err);
    run_free(&r);
    remove_tree(tmp);
    free(tmp), free(src);
}

/* Every saved capdb crash input, as the only extra family file: a diagnostic or success. */
Test(capdb_inputs, regress_inputs_load_or_fail_cleanly) {
    char *dir = root_path("testdata/regress/capdb");
    DIR *d = opendir(dir);
    cr_assert(d, "%s", dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char *tmp = make_temp_dir(), *src = cat(dir, e->d_name);
        copy_as_fuzzfam(src, tmp);
        RunResult r = run_qdc("--capdb-dir", tmp, "--print-caps", "fuzzfam", NULL);
        cr_expect(r.status <= 2, "%s: exit %d\n%s", e->d_name, r.status, r.err);
        cr_expect(!strstr(r.err, "Sanitizer") && !strstr(r.err, "runtime error"), "%s: %s", e->d_name, r.err);
        run_free(&r);
        remove_tree(tmp);
        free(tmp), free(src);
        n++;
    }
    closedir(d);
    cr_expect_geq(n, 1);
    free(dir);
}

/* Issue 13 item 15: a FIFO named *.yaml in a capability directory is skipped unopened with
 * QD3011; opening it blocked every command forever. (A directory is QD0001: test_io_formats.c.) */
Test(capdb_inputs, fifo_named_yaml_is_skipped, .timeout = 20) {
    char *tmp = make_temp_dir(), *fifo = cat(tmp, "zz.yaml");
    cr_assert_eq(mkfifo(fifo, 0644), 0);
    RunResult r = run_qdc("--capdb-dir", tmp, "--list-targets", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char want[1024];
    snprintf(want, sizeof want, "qdc: warning[QD3011]: '%s' is skipped: a capability file must be a regular file "
                                "[-Wcapdb-special-file]\n", fifo);
    cr_expect_str_eq(r.err, want);
    cr_expect(strstr(r.out, "sm_80"), "the checked-in families still load: %s", r.out);
    run_free(&r);
    remove_tree(tmp);
    free(tmp), free(fifo);
}

/* Issue 13 item 15: duplicate-key and capability-name checks are linear. 250,000 capability
 * names (3.6 MB, under the 4 MiB limit) took over 120 s; now well under a second. */
Test(capdb_inputs, huge_caps_map_loads_in_linear_time, .timeout = 30) {
    char *tmp = make_temp_dir(), *file = cat(tmp, "big.yaml");
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fputs("schema: 1\nname: big\nextends: x86_64\ncaps:\n", f);
    for (int i = 0; i < 250000; i++) fprintf(f, "  c%d: \"d\"\n", i);
    fputs("  c17: \"again\"\n", f);
    fclose(f);
    RunResult r = run_qdc("--capdb-dir", tmp, "--list-targets", NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    char want[512];
    snprintf(want, sizeof want, "%s:250005:3: error[QD3004]: duplicate key 'c17' (first at line 22)", file);
    cr_expect(!strncmp(r.err, want, strlen(want)), "%s", r.err);
    run_free(&r);
    remove_tree(tmp);
    free(tmp), free(file);
}

Test(capdb_inputs, oversized_file_says_so) {
    char *tmp = make_temp_dir(), *file = cat(tmp, "big.yaml");
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    for (int i = 0; i < 300000; i++) fprintf(f, "# padding line %d\n", i);
    fclose(f);
    RunResult r = run_qdc("--capdb-dir", tmp, "--list-targets", NULL);
    cr_expect_eq(r.status, 1);
    char want[512];
    snprintf(want, sizeof want, "qdc: error[QD0001]: cannot read capability file '%s': larger than the 4 MiB limit\n", file);
    cr_expect_str_eq(r.err, want);
    run_free(&r);
    remove_tree(tmp);
    free(tmp), free(file);
}

/* Issue 34 item 16: a compile reads only its families' files and the files they extend, so a
 * malformed user file fails the families whose chain includes it and no other (listings, which
 * read every file, still report it). */
Test(capdb_inputs, malformed_file_fails_only_its_chain) {
    char *tmp = make_temp_dir(), *in = root_path("examples/histogram.qd");
    char *broken = cat(tmp, "broken.yaml"), *child = cat(tmp, "child.yaml"), *mine = cat(tmp, "mine.yaml");
    char *o1 = cat(tmp, "a.bin"), *tmpl = cat(tmp, "k.%t.o"), *o2 = cat(tmp, "k.x86_64.o");
    cr_assert(write_text(broken, "schema: 1\nname: broken\nextends: x86_64\nbogus_key: 1\n"));
    cr_assert(write_text(child, "schema: 1\nname: child\nextends: broken\n"));
    cr_assert(write_text(mine, "schema: 1\nname: mine\nextends: x86_64\naliases: [mycpu]\n"));
    const char *want = "broken.yaml:4:1: error[QD3002]: unknown key 'bogus_key'";
    const char *fams[] = {"x86_64", "sm_80", "mine", "mycpu"};
    for (size_t i = 0; i < sizeof fams / sizeof *fams; i++) {
        char t[64];
        snprintf(t, sizeof t, "--target=%s", fams[i]);
        RunResult r = run_qdc(in, "--capdb-dir", tmp, t, "-o", o1, NULL);
        cr_expect_eq(r.status, 0, "%s: %s", fams[i], r.err);
        cr_expect_str_empty(r.err, "%s", fams[i]);
        cr_expect(file_exists(o1), "%s", fams[i]);
        remove(o1);
        run_free(&r);
    }
    const char *bad[] = {"--target=broken", "--target=child", "--target=x86_64,child"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        RunResult r = run_qdc(in, "--capdb-dir", tmp, bad[i], "-o", tmpl, NULL);
        cr_expect_eq(r.status, 1, "%s: %s", bad[i], r.err);
        cr_expect(strstr(r.err, want), "%s: %s", bad[i], r.err);
        cr_expect(!file_exists(o2), "%s wrote an output", bad[i]);
        run_free(&r);
    }
    RunResult r = run_qdc("--capdb-dir", tmp, "--print-caps", "child", NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, want), "%s", r.err);
    run_free(&r);
    r = run_qdc("--capdb-dir", tmp, "--list-targets", NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, want), "%s", r.err);
    run_free(&r);
    remove_tree(tmp);
    free(tmp), free(in), free(broken), free(child), free(mine), free(o1), free(tmpl), free(o2);
}
