/* Diagnostics for people and machines: text with caret, JSON lines, SARIF 2.1.0, colour,
 * -Werror / -W<name> / -Wno-<name>, --error-limit. Inputs live in testdata/diag/. */
#include "harness.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static RunResult check(const char *file, const char *a, const char *b) {
    char *path = root_path(file);
    const char *args[] = {"--check", path, a, b, NULL};
    RunResult r = run_qdc_argv(args, NULL, NULL);
    free(path);
    return r;
}

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

Test(diag_formats, text_has_location_caret_and_both_errors) {
    RunResult r = check("testdata/diag/two-errors.qd", "--color=never", NULL);
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.err, "two-errors.qd:6:23: error[QD2030]: 'atomic_and' requires integer operands, got f32\n"
                            " 6 |         qd.atomic_and(f[i], 1.0)\n"
                            "   |                       ^~~~\n"), "%s", r.err);
    cr_assert(strstr(r.err, "two-errors.qd:7:22: error[QD2030]: 'atomic_or'"), "%s", r.err);
    cr_assert_eq(r.out_len, 0);
    run_free(&r);
}

Test(diag_formats, json_lines_one_record_per_diagnostic) {
    RunResult r = check("testdata/diag/two-errors.qd", "--diagnostics-format=json", NULL);
    cr_assert_eq(r.status, 1);
    cr_assert_eq(count(r.err, "\n"), 2, "%s", r.err);
    cr_assert(strstr(r.err, "{\"schema\":\"qdc-diagnostic/1\",\"severity\":\"error\",\"code\":\"QD2030\","), "%s", r.err);
    cr_assert(strstr(r.err, "\"line\":6,\"column\":23,\"end_line\":6,\"end_column\":27,\"byte_offset\":139,"
                            "\"byte_length\":4,\"message\":\"'atomic_and' requires integer operands, got f32\"}"),
              "%s", r.err);
    cr_assert_null(strstr(r.err, " | "), "no source snippets in JSON mode");
    run_free(&r);
}

Test(diag_formats, sarif_is_one_document_with_rules_and_results) {
    RunResult r = check("testdata/diag/two-errors.qd", "--diagnostics-format=sarif", NULL);
    cr_assert_eq(r.status, 1);
    cr_assert(strncmp(r.err, "{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\"", 74) == 0,
              "%s", r.err);
    cr_assert_eq(count(r.err, "\"ruleId\":\"QD2030\""), 2);
    cr_assert(strstr(r.err, "\"region\":{\"startLine\":7,\"startColumn\":22,"), "%s", r.err);
    cr_assert_eq(count(r.err, "\n"), 1, "exactly one line: the SARIF log");
    run_free(&r);
}

Test(diag_formats, colour_always_and_never) {
    RunResult c = check("testdata/diag/two-errors.qd", "--color=always", NULL);
    cr_assert(strstr(c.err, "\033[1;31merror[QD2030]"), "%s", c.err);
    RunResult n = check("testdata/diag/two-errors.qd", "--color=never", NULL);
    cr_assert_null(strchr(n.err, '\033'));
    run_free(&c), run_free(&n);
}

Test(diag_formats, warning_switches) {
    RunResult w = check("testdata/diag/narrowing.qd", NULL, NULL);
    cr_assert_eq(w.status, 0);
    cr_assert(strstr(w.err, "narrowing.qd:6:29: warning[QD2101]: 'atomic_add' operand of type f32 is narrowed"), "%s", w.err);
    RunResult e = check("testdata/diag/narrowing.qd", "-Werror", NULL);
    cr_assert_eq(e.status, 1);
    cr_assert(strstr(e.err, "error[QD2101]"), "%s", e.err);
    RunResult en = check("testdata/diag/narrowing.qd", "-Werror=atomic-narrowing", NULL);
    cr_assert_eq(en.status, 1);
    RunResult off = check("testdata/diag/narrowing.qd", "-Wno-atomic-narrowing", "-Werror");
    cr_assert_eq(off.status, 0);
    cr_assert_eq(off.err_len, 0, "%s", off.err);
    RunResult bad = check("testdata/diag/narrowing.qd", "-Wno-such-warning", NULL);
    cr_assert_eq(bad.status, 2);
    cr_assert(strstr(bad.err, "unknown warning 'such-warning'"), "%s", bad.err);
    run_free(&w), run_free(&e), run_free(&en), run_free(&off), run_free(&bad);
}

Test(diag_formats, list_warnings_names_each_switch) {
    RunResult r = run_qdc("--list-warnings", NULL);
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "-Watomic-narrowing"), "%s", r.out);
    run_free(&r);
}

Test(diag_formats, error_limit_stops_after_n) {
    RunResult r = check("testdata/diag/two-errors.qd", "--error-limit=1", NULL);
    cr_assert_eq(r.status, 1);
    cr_assert_eq(count(r.err, "error[QD2030]"), 1, "%s", r.err);
    cr_assert(strstr(r.err, "qdc: fatal error: too many errors emitted (1), stopping now [--error-limit=1]\n"), "%s", r.err);
    RunResult u = check("testdata/diag/two-errors.qd", "--error-limit=0", NULL);
    cr_assert_eq(count(u.err, "error[QD2030]"), 2, "0 means no limit");
    RunResult bad = check("testdata/diag/two-errors.qd", "--error-limit=x", NULL);
    cr_assert_eq(bad.status, 2);
    run_free(&r), run_free(&u), run_free(&bad);
}

/* A diagnostic with no source location (QD0001: the input cannot be opened) names the input. */
Test(diag_formats, json_without_location_names_the_input) {
    RunResult r = check("testdata/diag/no-such-file.qd", "--diagnostics-format=json", NULL);
    cr_assert_eq(r.status, 1);
    char *path = root_path("testdata/diag/no-such-file.qd");
    char want[1024];
    snprintf(want, sizeof want, "{\"schema\":\"qdc-diagnostic/1\",\"severity\":\"error\",\"code\":\"QD0001\",\"file\":\"%s\","
             "\"line\":0,\"column\":0,\"end_line\":0,\"end_column\":0,\"byte_offset\":0,\"byte_length\":0,"
             "\"message\":\"cannot open '%s': no such file\"}\n", path, path);
    cr_assert_str_eq(r.err, want);
    free(path);
    run_free(&r);
}

/* SARIF 2.1.0: a physicalLocation with an artifactLocation and no region means the whole file. */
Test(diag_formats, sarif_without_location_points_at_the_whole_input) {
    RunResult r = check("testdata/diag/no-such-file.qd", "--diagnostics-format=sarif", NULL);
    cr_assert_eq(r.status, 1);
    char *path = root_path("testdata/diag/no-such-file.qd");
    char want[1024];
    snprintf(want, sizeof want, "{\"ruleId\":\"QD0001\",\"level\":\"error\",\"message\":{\"text\":\"cannot open '%s': no such "
             "file\"},\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"%s\"}}}]}]}]}\n", path, path);
    cr_assert(strstr(r.err, want), "%s", r.err);
    cr_assert_null(strstr(r.err, "\"region\""));
    free(path);
    run_free(&r);
}

Test(diag_formats, stdin_is_named_like_in_text) {
    const char *args[] = {"--check", "-", "--diagnostics-format=json", "--capdb-dir", "/nonexistent/db", NULL};
    RunResult r = run_qdc_argv(args, "@qd.kernel\ndef k():\n    pass\n", NULL);
    cr_assert(strstr(r.err, "\"code\":\"QD0006\",\"file\":\"<stdin>\",\"line\":0,"), "%s", r.err);
    run_free(&r);
}

/* ---- --stats and --time-report in the machine formats (issue 21 item 5) ---- */

/* s with every number after "ms": replaced by N (times differ from run to run). */
static char *mask_ms(const char *s) {
    StrBuf b;
    sb_init(&b);
    for (const char *p = s; *p;) {
        if (!strncmp(p, "ms\":", 4)) {
            sb_puts(&b, "ms\":N");
            for (p += 4; (*p >= '0' && *p <= '9') || *p == '.'; p++) {}
        } else {
            sb_putc(&b, *p++);
        }
    }
    return sb_take(&b);
}

Test(diag_formats, stats_is_a_json_record) {
    char *ex = root_path("examples/histogram.qd");
    RunResult r = run_qdc("--check", "--stats", "--diagnostics-format=json", ex, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "{\"schema\":\"qdc-stats/1\",\"module\":\"histogram\",\"kernels\":[\"histogram\"],\"tasks\":2,"
                            "\"atomics\":1,\"volatile_loads\":0,\"fences\":0}\n");
    cr_expect_eq(r.err_len, 0, "%s", r.err);
    run_free(&r);
    /* with the output on stdout, the record goes to the diagnostics stream, after the SARIF
     * results as the run's property */
    r = run_qdc("--stats", "--target=sm_90", "--diagnostics-format=sarif", "-o", "-", ex, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, ".target sm_90") && !strstr(r.out, "qdc-stats"), "%s", r.out);
    cr_expect(strstr(r.err, "\"results\":[],\"properties\":{\"qdc-stats\":{\"schema\":\"qdc-stats/1\",\"module\":\"histogram\","
                            "\"kernels\":[\"histogram\"],\"tasks\":2,\"atomics\":1,\"volatile_loads\":0,\"fences\":0}}}]}\n"),
              "%s", r.err);
    cr_expect_eq(count(r.err, "\n"), 1, "one SARIF document:\n%s", r.err);
    run_free(&r);
    r = run_qdc("--stats", "--target=sm_90", "--diagnostics-format=json", "-o", "-", ex, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "{\"schema\":\"qdc-stats/1\",\"module\":\"histogram\",\"kernels\":[\"histogram\"],\"tasks\":2,"
                            "\"atomics\":1,\"volatile_loads\":0,\"fences\":0}\n");
    run_free(&r), free(ex);
}

Test(diag_formats, time_report_is_a_json_record) {
    char *ex = root_path("examples/histogram.qd");
    char *dir = make_temp_dir(), *out = xasprintf("%s/%%t.ptx", dir);
    RunResult r = run_qdc("--time-report", "--target=sm_60,sm_90", "--emit=ptx", "--diagnostics-format=json", "-o", out, ex, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char *m = mask_ms(r.err);
    cr_expect_str_eq(m, "{\"schema\":\"qdc-time-report/1\",\"unit\":\"ms\",\"phases\":[{\"phase\":\"read\",\"ms\":N},"
                        "{\"phase\":\"parse\",\"ms\":N},{\"phase\":\"check\",\"ms\":N},"
                        "{\"phase\":\"lower+emit\",\"target\":\"sm_60\",\"ms\":N},"
                        "{\"phase\":\"lower+emit\",\"target\":\"sm_90\",\"ms\":N},{\"phase\":\"write\",\"ms\":N}],\"total_ms\":N}\n");
    cr_expect(!strstr(r.err, "ms\":N") && strstr(r.err, "\"total_ms\":"), "numbers, not text: %s", r.err);
    free(m);
    run_free(&r);
    /* an error and the report: the diagnostic record first, the report last, stderr all records */
    char *bad = root_path("testdata/diag/two-errors.qd");
    r = run_qdc("--check", "--time-report", "--diagnostics-format=json", bad, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect_eq(count(r.err, "\n"), 3, "%s", r.err);
    cr_expect_eq(count(r.err, "{\"schema\":\"qdc-diagnostic/1\""), 2, "%s", r.err);
    m = mask_ms(strstr(r.err, "{\"schema\":\"qdc-time-report/1\"") ? strstr(r.err, "{\"schema\":\"qdc-time-report/1\"") : "");
    cr_expect_str_eq(m, "{\"schema\":\"qdc-time-report/1\",\"unit\":\"ms\",\"phases\":[{\"phase\":\"read\",\"ms\":N},"
                        "{\"phase\":\"parse\",\"ms\":N},{\"phase\":\"check\",\"ms\":N},{\"phase\":\"write\",\"ms\":N}],\"total_ms\":N}\n");
    free(m);
    run_free(&r);
    /* SARIF: the report is the run's property; stderr stays one document */
    r = run_qdc("--check", "--time-report", "--diagnostics-format=sarif", bad, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect_eq(count(r.err, "\n"), 1, "%s", r.err);
    m = mask_ms(r.err);
    cr_expect(strstr(m, "],\"properties\":{\"qdc-time-report\":{\"schema\":\"qdc-time-report/1\",\"unit\":\"ms\",\"phases\":["
                        "{\"phase\":\"read\",\"ms\":N},{\"phase\":\"parse\",\"ms\":N},{\"phase\":\"check\",\"ms\":N},"
                        "{\"phase\":\"write\",\"ms\":N}],\"total_ms\":N}}}]}\n"), "%s", r.err);
    free(m);
    run_free(&r);
    /* text stays the table */
    r = run_qdc("--check", "--time-report", ex, NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(!strncmp(r.err, "qdc: time report (wall clock, ms)\n  read ", 41) && strstr(r.err, "\n  total "), "%s", r.err);
    run_free(&r);
    remove_tree(dir);
    free(ex), free(bad), free(dir), free(out);
}
