/* Frontend robustness through the qdc binary: bad bytes, empty input, directories, deep
 * nesting, very long lines, several errors per run, and the --emit=ast/ir dumps. */
#include "harness.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static RunResult check_text(const char *text, size_t len) {
    char *dir = make_temp_dir(), path[4096];
    snprintf(path, sizeof path, "%s/in.qd", dir);
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    fwrite(text, 1, len, f);
    fclose(f);
    RunResult r = run_qdc("--check", "--color=never", path, NULL);
    remove_tree(dir);
    free(dir);
    return r;
}

static void expect_error(const char *text, size_t len, const char *code) {
    RunResult r = check_text(text, len);
    cr_expect_eq(r.status, 1, "status %d for %s\n%s", r.status, code, r.err);
    cr_expect(strstr(r.err, code), "want %s, got:\n%s", code, r.err);
    run_free(&r);
}

Test(frontend, empty_input) { expect_error("", 0, "error[QD1004]"); }
Test(frontend, whitespace_only_input) { expect_error("  \n\n\t\n", 6, "error[QD1004]"); }
Test(frontend, nul_byte) { expect_error("import quadrants as qd\n\0\n", 25, ":2:1: error[QD1003]"); }
Test(frontend, invalid_utf8) { expect_error("import quadrants as qd\nx = 1 # \xc3\x28\n", 34, ":2:9: error[QD1002]"); }
Test(frontend, utf8_in_comments_and_strings_is_fine) {
    const char *t = "import quadrants as qd  # caf\xc3\xa9\n@qd.kernel\ndef k():\n    qd.atomic_add(c[None], 1, order=\"\xc3\xa9\")\n";
    expect_error(t, strlen(t), "error[QD2001]"); /* reaches sema: the bytes were accepted */
}

Test(frontend, directory_input) {
    char *dir = make_temp_dir();
    RunResult r = run_qdc("--check", dir, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "QD0002"), "%s", r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir);
}

Test(frontend, deep_parentheses_are_an_error_not_a_crash, .timeout = 20) {
    size_t n = 5000;
    char *t = malloc(2 * n + 16);
    strcpy(t, "x = ");
    memset(t + 4, '(', n);
    strcpy(t + 4 + n, "1");
    memset(t + 5 + n, ')', n);
    strcpy(t + 5 + 2 * n, "\n");
    expect_error(t, strlen(t), "error[QD1007]");
    free(t);
}

Test(frontend, deep_unary_chains_are_an_error_not_a_crash, .timeout = 20) {
    size_t n = 100000;
    char *t = malloc(2 * n + 16);
    strcpy(t, "x = ");
    for (size_t k = 0; k < n; k++) t[4 + 2 * k] = '-', t[5 + 2 * k] = ' ';
    strcpy(t + 4 + 2 * n, "1\n");
    expect_error(t, strlen(t), "error[QD1007]");
    for (size_t k = 0; k < n / 4; k++) memcpy(t + 4 + 4 * k, "not ", 4);
    expect_error(t, strlen(t), "error[QD1007]");
    free(t);
}

Test(frontend, deep_indentation_is_an_error_not_a_crash, .timeout = 20) {
    size_t cap = 1 << 20, len = 0;
    char *t = malloc(cap);
    len += (size_t)sprintf(t, "import quadrants as qd\n@qd.kernel\ndef k():\n");
    for (int d = 1; d <= 150; d++) {
        for (int s = 0; s < d; s++) t[len++] = ' ';
        len += (size_t)sprintf(t + len, "if True:\n");
    }
    for (int s = 0; s < 151; s++) t[len++] = ' ';
    len += (size_t)sprintf(t + len, "pass\n");
    expect_error(t, len, "error[QD1007]");
    free(t);
}

Test(frontend, very_long_lines_compile, .timeout = 20) {
    size_t n = 20000;
    char *t = malloc(n * 16 + 2000000);
    size_t len = (size_t)sprintf(t, "import quadrants as qd\n# ");
    memset(t + len, 'c', 1000000); /* a 1 MB comment line */
    len += 1000000;
    len += (size_t)sprintf(t + len, "\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n    a[0] = 0");
    for (size_t k = 0; k < n; k++) len += (size_t)sprintf(t + len, "; a[0] += 1");
    len += (size_t)sprintf(t + len, "\n");
    RunResult r = check_text(t, len);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(r.err_len, 0);
    run_free(&r);
    free(t);
}

Test(frontend, very_long_operator_chains_are_an_error_not_a_crash, .timeout = 20) {
    static const char *const ops[] = {" + 1", " < 1", " and 1"};
    for (size_t o = 0; o < ARRAY_LEN(ops); o++) {
        size_t terms = 200000;
        char *t = malloc(terms * 8 + 256);
        size_t len = (size_t)sprintf(t, "import quadrants as qd\nN = 0");
        for (size_t k = 0; k < terms; k++) len += (size_t)sprintf(t + len, "%s", ops[o]);
        len += (size_t)sprintf(t + len, "\n");
        expect_error(t, len, "error[QD1007]");
        free(t);
    }
}

Test(frontend, several_errors_per_run_and_the_error_limit) {
    const char *t = "import quadrants as qd\n@qd.kernel\ndef k():\n    a = x1\n    b = x2\n    c = x3\n";
    RunResult r = check_text(t, strlen(t));
    cr_expect(strstr(r.err, ":4:9: error[QD2001]") && strstr(r.err, ":5:9: error[QD2001]") && strstr(r.err, ":6:9: error[QD2001]"), "%s", r.err);
    run_free(&r);
    char *dir = make_temp_dir(), path[4096];
    snprintf(path, sizeof path, "%s/in.qd", dir);
    write_text(path, t);
    r = run_qdc("--check", "--error-limit=2", path, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, ":5:9:") && !strstr(r.err, ":6:9:") && strstr(r.err, "too many errors"), "%s", r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir);
}

Test(frontend, emit_ast_is_stable_and_located) {
    char *dir = make_temp_dir(), path[4096];
    snprintf(path, sizeof path, "%s/in.qd", dir);
    write_text(path, "import quadrants as qd\nN = 1 + 2 * 3\n");
    RunResult r = run_qdc("--emit=ast", path, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "; qdc ast 1\n(import quadrants as qd @1:1)\n"
                            "(assign (name N @2:1) = (binary + (int 1 @2:5) (binary * (int 2 @2:9) (int 3 @2:13) @2:9) @2:5) @2:1)\n");
    run_free(&r);
    remove_tree(dir);
    free(dir);
}

Test(frontend, module_without_kernels_warns) {
    const char *t = "import quadrants as qd\nN = 3\n";
    RunResult r = check_text(t, strlen(t));
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.err, "warning[QD2102]"), "%s", r.err);
    run_free(&r);
}
