/* Fix-its (issue 35.7) and SARIF related locations (35.10): the mistakes with one obvious edit
 * (a ':' missing at the end of a line, a misspelled name or builtin with a did-you-mean) show
 * the replacement under the caret, print clang's fix-it line with
 * -fdiagnostics-parseable-fixits, and carry it as "fixits" (JSON lines) and "fixes" (SARIF);
 * a SARIF note is a relatedLocation of its result, not a result of its own. */
#include "harness.h"
#include "support/diag.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *TYPOS = "import quadrants as qd\n"
                           "\n"
                           "@qd.kernel\n"
                           "def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                           "    for i in range(4):\n"
                           "        qd.atomic_ad(a[0], i)\n"
                           "        a[1] = ii\n";

/* Runs qdc on text saved as k.qd in a fresh directory (so diagnostics name "k.qd"). */
static RunResult check(const char *text, const char *a1, const char *a2, const char *a3) {
    char *dir = make_temp_dir(), *path = xasprintf("%s/k.qd", dir);
    cr_assert(write_text(path, text));
    const char *args[] = {"--check", "k.qd", a1, a2, a3, NULL};
    RunResult r = run_qdc_argv(args, NULL, dir);
    remove_tree(dir), free(dir), free(path);
    return r;
}

Test(fixits, missing_colon_is_inserted_after_the_last_token) {
    /* the caret is where the line ends, the fix-it after the last token: not inside the comment */
    const char *src = "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                      "    for i in range(4)  # each\n        a[i] = 1\n";
    RunResult r = check(src, NULL, NULL, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.err, "k.qd:5:30: error[QD1011]: expected ':', got 'end of line'\n"
                            " 5 |     for i in range(4)  # each\n"
                            "   |                              ^\n"
                            "   |                      :\n");
    run_free(&r);
    r = check(src, "-fdiagnostics-parseable-fixits", NULL, NULL);
    cr_expect_str_eq(r.err, "k.qd:5:30: error[QD1011]: expected ':', got 'end of line'\n"
                            " 5 |     for i in range(4)  # each\n"
                            "   |                              ^\n"
                            "   |                      :\n"
                            "fix-it:\"k.qd\":{5:22-5:22}:\":\"\n");
    run_free(&r);
}

Test(fixits, did_you_mean_replaces_the_name) {
    RunResult r = check(TYPOS, "-fdiagnostics-parseable-fixits", NULL, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.err, "k.qd:6:9: error[QD2008]: 'qd.atomic_ad' is not supported in v1 kernels; did you mean 'qd.atomic_add'?\n"
                            " 6 |         qd.atomic_ad(a[0], i)\n"
                            "   |         ^~~~~~~~~~~~\n"
                            "   |         qd.atomic_add\n"
                            "fix-it:\"k.qd\":{6:9-6:21}:\"qd.atomic_add\"\n"
                            "k.qd:7:16: error[QD2001]: Name \"ii\" is not defined; did you mean 'i'?\n"
                            " 7 |         a[1] = ii\n"
                            "   |                ^~\n"
                            "   |                i\n"
                            "fix-it:\"k.qd\":{7:16-7:18}:\"i\"\n");
    cr_expect_str_empty(r.out);
    run_free(&r);
}

Test(fixits, json_fixits_and_sarif_fixes) {
    RunResult r = check(TYPOS, "--diagnostics-format=json", NULL, NULL);
    cr_expect_str_eq(r.err,
        "{\"schema\":\"qdc-diagnostic/1\",\"severity\":\"error\",\"code\":\"QD2008\",\"file\":\"k.qd\",\"line\":6,\"column\":9,"
        "\"end_line\":6,\"end_column\":21,\"byte_offset\":116,\"byte_length\":12,\"message\":\"'qd.atomic_ad' is not "
        "supported in v1 kernels; did you mean 'qd.atomic_add'?\",\"fixits\":[{\"file\":\"k.qd\",\"line\":6,\"column\":9,"
        "\"end_line\":6,\"end_column\":21,\"byte_offset\":116,\"byte_length\":12,\"text\":\"qd.atomic_add\"}]}\n"
        "{\"schema\":\"qdc-diagnostic/1\",\"severity\":\"error\",\"code\":\"QD2001\",\"file\":\"k.qd\",\"line\":7,\"column\":16,"
        "\"end_line\":7,\"end_column\":18,\"byte_offset\":153,\"byte_length\":2,\"message\":\"Name \\\"ii\\\" is not defined; "
        "did you mean 'i'?\",\"fixits\":[{\"file\":\"k.qd\",\"line\":7,\"column\":16,\"end_line\":7,\"end_column\":18,"
        "\"byte_offset\":153,\"byte_length\":2,\"text\":\"i\"}]}\n");
    run_free(&r);
    r = check(TYPOS, "--diagnostics-format=sarif", NULL, NULL);
    const char *results = strstr(r.err, "\"results\":");
    cr_assert(results, "%s", r.err);
    cr_expect_str_eq(results,
        "\"results\":[{\"ruleId\":\"QD2008\",\"level\":\"error\",\"message\":{\"text\":\"'qd.atomic_ad' is not supported in v1 "
        "kernels; did you mean 'qd.atomic_add'?\"},\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"k.qd\"},"
        "\"region\":{\"startLine\":6,\"startColumn\":9,\"endLine\":6,\"endColumn\":21,\"byteOffset\":116,\"byteLength\":12}}}],"
        "\"fixes\":[{\"description\":{\"text\":\"replace with 'qd.atomic_add'\"},\"artifactChanges\":[{\"artifactLocation\":"
        "{\"uri\":\"k.qd\"},\"replacements\":[{\"deletedRegion\":{\"startLine\":6,\"startColumn\":9,\"endLine\":6,\"endColumn\":21,"
        "\"byteOffset\":116,\"byteLength\":12},\"insertedContent\":{\"text\":\"qd.atomic_add\"}}]}]}]},"
        "{\"ruleId\":\"QD2001\",\"level\":\"error\",\"message\":{\"text\":\"Name \\\"ii\\\" is not defined; did you mean 'i'?\"},"
        "\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"k.qd\"},\"region\":{\"startLine\":7,"
        "\"startColumn\":16,\"endLine\":7,\"endColumn\":18,\"byteOffset\":153,\"byteLength\":2}}}],\"fixes\":[{\"description\":"
        "{\"text\":\"replace with 'i'\"},\"artifactChanges\":[{\"artifactLocation\":{\"uri\":\"k.qd\"},\"replacements\":"
        "[{\"deletedRegion\":{\"startLine\":7,\"startColumn\":16,\"endLine\":7,\"endColumn\":18,\"byteOffset\":153,"
        "\"byteLength\":2},\"insertedContent\":{\"text\":\"i\"}}]}]}]}]}]}\n");
    run_free(&r);
}

/* A family's refusal and its note (the --cap to pass): one result with a relatedLocation. */
Test(fixits, sarif_notes_are_related_locations) {
    const char *src = "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.f64, ndim=1)):\n"
                      "    for i in range(4):\n        qd.atomic_max(a[0], 1.0)\n";
    RunResult r = check(src, "--report-lowering", "--target=vulkan1.1", "--diagnostics-format=sarif");
    cr_expect_eq(r.status, 1);
    const char *results = strstr(r.err, "\"results\":");
    cr_assert(results, "%s", r.err);
    cr_expect_str_eq(results,
        "\"results\":[{\"ruleId\":\"QD4001\",\"level\":\"error\",\"message\":{\"text\":\"atomic max on f64 in global memory is "
        "not supported on target 'vulkan1.1' (capability-db/vulkan1.1.yaml:92)\"},\"locations\":[{\"physicalLocation\":"
        "{\"artifactLocation\":{\"uri\":\"k.qd\"},\"region\":{\"startLine\":6,\"startColumn\":9,\"endLine\":6,\"endColumn\":33,"
        "\"byteOffset\":116,\"byteLength\":24}}}],\"relatedLocations\":[{\"id\":0,\"message\":{\"text\":\"pass "
        "--cap=+float64-atomic-min-max if the device has it: shaderBufferFloat64AtomicMinMax + "
        "shaderSharedFloat64AtomicMinMax (VK_EXT_shader_atomic_float2)\"}}]}]}]}\n");
    run_free(&r);
}

static char *capture(DiagFormat fmt, void (*body)(void)) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert(f);
    DiagConfig cfg = {.format = fmt, .color = DIAG_COLOR_NEVER, .error_limit = 20, .out = f};
    diag_init(&cfg);
    body();
    diag_finish();
    fclose(f);
    diag_reset_counts();
    return text;
}

/* A fix-it belongs to the next error or warning only: one that is dropped (quiet, disabled,
 * a repeat) takes its fix-it with it. Notes with a place keep it in relatedLocations. */
static void fixit_consumed(void) {
    Source *s = source_new("k.qd", "x = yy\nz = w\n", 13);
    diag_error(span_make(s, 4, 2), QD2001, "first");
    diag_fixit(span_make(s, 4, 2), "y");
    diag_error(span_make(s, 4, 2), QD2001, "first"); /* a repeat: not shown, fix-it dropped */
    int mark = diag_quiet_begin();
    diag_fixit(span_make(s, 4, 2), "y");
    diag_error(span_make(s, 4, 2), QD2001, "speculative");
    diag_quiet_end(mark);
    diag_error(span_make(s, 11, 1), QD2001, "second");
    diag_note(span_make(s, 0, 1), "defined here");
    source_free(s);
}

Test(fixits, a_fixit_is_consumed_by_the_next_diagnostic) {
    char *out = capture(DIAG_TEXT, fixit_consumed);
    cr_expect_str_eq(out, "k.qd:1:5: error[QD2001]: first\n 1 | x = yy\n   |     ^~\n"
                          "k.qd:2:5: error[QD2001]: second\n 2 | z = w\n   |     ^\n"
                          "k.qd:1:1: note: defined here\n 1 | x = yy\n   | ^\n");
    free(out);
    out = capture(DIAG_SARIF, fixit_consumed);
    const char *results = strstr(out, "\"results\":");
    cr_assert(results, "%s", out);
    cr_expect_str_eq(results,
        "\"results\":[{\"ruleId\":\"QD2001\",\"level\":\"error\",\"message\":{\"text\":\"first\"},\"locations\":[{"
        "\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"k.qd\"},\"region\":{\"startLine\":1,\"startColumn\":5,"
        "\"endLine\":1,\"endColumn\":7,\"byteOffset\":4,\"byteLength\":2}}}]},{\"ruleId\":\"QD2001\",\"level\":\"error\","
        "\"message\":{\"text\":\"second\"},\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"k.qd\"},"
        "\"region\":{\"startLine\":2,\"startColumn\":5,\"endLine\":2,\"endColumn\":6,\"byteOffset\":11,\"byteLength\":1}}}],"
        "\"relatedLocations\":[{\"id\":0,\"message\":{\"text\":\"defined here\"},\"physicalLocation\":{\"artifactLocation\":"
        "{\"uri\":\"k.qd\"},\"region\":{\"startLine\":1,\"startColumn\":1,\"endLine\":1,\"endColumn\":2,\"byteOffset\":0,"
        "\"byteLength\":1}}}]}]}]}\n");
    free(out);
}

/* A kernel that returns a scalar without declaring it: ` -> qd.<type of the value>` after the
 * parameter list; a value that is not a scalar gets no fix-it (no one obvious spelling). */
Test(fixits, missing_return_type_is_inserted_after_the_parameters) {
    const char *src = "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
                      "    return a[0] * 2\n";
    RunResult r = check(src, "-fdiagnostics-parseable-fixits", NULL, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.err, "k.qd:5:5: error[QD2015]: a kernel returns a value only when declared with a return type "
                            "(def k(...) -> qd.f32:)\n"
                            " 5 |     return a[0] * 2\n"
                            "   |     ^~~~~~\n"
                            "fix-it:\"k.qd\":{4:49-4:49}:\" -> qd.f32\"\n");
    run_free(&r);
    const char *ints = "import quadrants as qd\n\n@qd.kernel\ndef count(n: qd.i32, s: qd.types.ndarray(dtype=qd.u8, ndim=1)):\n"
                       "    return n + 1\n";
    r = check(ints, "-fdiagnostics-parseable-fixits", NULL, NULL);
    cr_expect(strstr(r.err, "(def count(...) -> qd.i32:)\n") && strstr(r.err, "fix-it:\"k.qd\":{4:63-4:63}:\" -> qd.i32\"\n"),
              "%s", r.err);
    run_free(&r);
    const char *vec = "import quadrants as qd\n\n@qd.kernel\ndef v():\n    return qd.Vector([1.0, 2.0])\n";
    r = check(vec, "-fdiagnostics-parseable-fixits", NULL, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "error[QD2015]") && !strstr(r.err, "fix-it:"), "%s", r.err);
    run_free(&r);
}
