/* Issue 21 item 5: one error path. The engine never ends the process (at --error-limit it prints
 * the fatal line once and drops the rest; only cli/ decides the exit status), and every line qdc
 * writes to stderr besides a diagnostic goes through it, so JSON and SARIF get records only. */
#include "harness.h"
#include "support/diag.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *capture(DiagFormat fmt, int limit, void (*body)(void)) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert(f);
    DiagConfig cfg = {.format = fmt, .color = DIAG_COLOR_NEVER, .error_limit = limit, .out = f};
    diag_init(&cfg);
    body();
    diag_finish();
    fclose(f);
    return text;
}

static void three_errors(void) {
    Source *s = source_new("k.qd", "x = 1\n", 6);
    diag_error(span_make(s, 0, 1), QD2001, "first");
    diag_error(span_make(s, 4, 1), QD2001, "second");
    diag_error(span_make(s, 4, 1), QD2001, "third");
    source_free(s);
}

Test(diag_engine, error_limit_returns_to_the_driver) {
    char *out = capture(DIAG_TEXT, 1, three_errors);
    /* still running here: the limit no longer calls exit() */
    cr_expect_eq(diag_error_count(), 2, "the error and the fatal line count; later ones are dropped");
    cr_expect(strstr(out, "k.qd:1:1: error[QD2001]: first\n"), "%s", out);
    cr_expect(strstr(out, "qdc: fatal error: too many errors emitted (1), stopping now [--error-limit=1]\n"), "%s", out);
    cr_expect(!strstr(out, "second") && !strstr(out, "third"), "%s", out);
    free(out);
}

static void summary(void) { diag_summary("%d of %d golden files under '%s' differ", 2, 2, "g\"d"); }
static void hints(void) {
    diag_usage("unknown option '%s'", "--x");
    diag_usage_hint(false, "run 'qdc --help' for usage");
    diag_usage_hint(true, "did you mean '%s'?", "--y");
}

Test(diag_engine, summaries_and_hints_are_records_in_machine_formats) {
    char *t = capture(DIAG_TEXT, 0, summary), *j = capture(DIAG_JSON, 0, summary);
    cr_expect_str_eq(t, "qdc: 2 of 2 golden files under 'g\"d' differ\n");
    cr_expect_str_eq(j, "{\"schema\":\"qdc-diagnostic/1\",\"severity\":\"note\",\"code\":null,\"file\":null,\"line\":0,"
                        "\"column\":0,\"end_line\":0,\"end_column\":0,\"byte_offset\":0,\"byte_length\":0,"
                        "\"message\":\"2 of 2 golden files under 'g\\\"d' differ\"}\n");
    free(t), free(j);
    t = capture(DIAG_TEXT, 0, hints), j = capture(DIAG_JSON, 0, hints);
    cr_expect_str_eq(t, "qdc: error: unknown option '--x'\nqdc: run 'qdc --help' for usage\nqdc: note: did you mean '--y'?\n");
    cr_expect(!strstr(j, "qdc:") && !strncmp(j, "{\"schema\"", 9) && !strchr(strchr(j, '\n') + 1, '{'),
              "JSON: one record, no text lines:\n%s", j);
    free(t), free(j);
}

/* --golden-check's count reaches a JSON consumer as a record, not a text line on stderr. */
Test(diag_engine, golden_check_summary_in_json) {
    char *dir = make_temp_dir(), *flag = xasprintf("--emit-all=%s", dir), *ex = root_path("examples/float_sum.qd");
    RunResult r = run_qdc(flag, "--target=vulkan1.2", ex, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_qdc(flag, "--golden-check", "--diagnostics-format=json", "--target=vulkan1.2", "--cap=+float-atomic-add", ex, NULL);
    cr_expect_eq(r.status, 1);
    const char *head = "{\"schema\":\"qdc-diagnostic/1\",\"severity\":\"note\"";
    cr_expect(!strncmp(r.err, head, strlen(head)), "%s", r.err);
    cr_expect(strstr(r.err, "golden files under") && !strstr(r.err, "\nqdc:"), "%s", r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(flag), free(ex);
}

/* --support-matrix's usage errors were plain text even in JSON mode. */
Test(diag_engine, support_matrix_usage_errors_are_records) {
    RunResult r = run_qdc("--diagnostics-format=json", "--support-matrix", "--targets=sm_99", NULL);
    cr_expect_eq(r.status, 2);
    const char *head = "{\"schema\":\"qdc-diagnostic/1\",\"severity\":\"error\",\"code\":null,";
    cr_expect(!strncmp(r.err, head, strlen(head)), "%s", r.err);
    cr_expect(strstr(r.err, "\"message\":\"unknown target 'sm_99' in --targets; known targets: sm_60, "), "%s", r.err);
    cr_expect_str_empty(r.out);
    run_free(&r);
    r = run_qdc("--support-matrix", "--targets=,", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "qdc: error: --targets lists no target\n");
    run_free(&r);
}
