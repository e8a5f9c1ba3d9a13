/* The qdc command line (issue 2): usage errors and exit statuses, --help/--version, stdin input
 * named <stdin>, input-file errors with their exact codes, no output (or temp file) left behind
 * on failure, atomic outputs and `-o -`. Tests that need the frontend skip while it is a stub. */
#include "harness.h"
#include "test_build_util.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const good_src =
    "import quadrants as qd\n"
    "\n"
    "@qd.kernel\n"
    "def bump(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
    "    for i in range(a.shape[0]):\n"
    "        qd.atomic_add(a[0], 1)\n";

/* A syntax error on line 2, column 5 ("(" where a name must follow def). */
static const char *const bad_src = "import quadrants as qd\ndef (:\n";

/* True when qdc still stops at the frontend stub; prints why the caller skips. */
static bool frontend_pending(void) {
    const char *args[] = {"--check", "-", NULL};
    RunResult r = run_qdc_argv(args, good_src, NULL);
    bool pending = r.status == 3 && strstr(r.err, "not implemented");
    run_free(&r);
    if (pending) fprintf(stderr, "test_cli: frontend not implemented yet; skipping\n");
    return pending;
}

/* Number of directory entries other than . and .. */
static int count_entries(const char *dir) {
    DIR *d = opendir(dir);
    cr_assert(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static char *path_in(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

Test(cli, unknown_option_is_a_usage_error) {
    RunResult r = run_qdc("--frobnicate", "x.qd", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "qdc: error: unknown option '--frobnicate'\nqdc: run 'qdc --help' for usage\n");
    cr_expect_str_empty(r.out);
    run_free(&r);
}

Test(cli, unknown_target_lists_known_ones) {
    RunResult r = run_qdc("--target=sm_9000", "x.qd", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "qdc: error: unknown target 'sm_9000'; known targets: "), "%s", r.err);
    cr_expect(strstr(r.err, "x86_64"), "known targets must include x86_64: %s", r.err);
    run_free(&r);
}

/* Several inputs are compiled one after another (test_cli_build.c); one -o file for all is not. */
Test(cli, two_inputs_with_one_output_file_are_a_usage_error) {
    RunResult r = run_qdc("a.qd", "b.qd", "-o", "k.o", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "qdc: error: cannot specify -o 'k.o' with several input files: use a template with %n (the "
                            "input's name), for example -o out/%n.%e\n");
    run_free(&r);
}

Test(cli, bad_emit_kind_is_a_usage_error) {
    RunResult r = run_qdc("--emit=bitcode", "a.qd", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "qdc: error: unknown --emit kind 'bitcode' (ast, ir, obj,"), "%s", r.err);
    run_free(&r);
}

Test(cli, missing_option_values_are_usage_errors) {
    const char *cases[][2] = {{"-o", NULL}, {"--target", NULL}, {"--diagnostics-format=xml", "a.qd"},
                              {"--color=sometimes", "a.qd"}, {"-Wno-such-warning", "a.qd"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        RunResult r = run_qdc(cases[i][0], cases[i][1], NULL);
        cr_expect_eq(r.status, 2, "%s: exit %d", cases[i][0], r.status);
        cr_expect(strstr(r.err, "qdc: error: "), "%s: %s", cases[i][0], r.err);
        run_free(&r);
    }
}

Test(cli, no_input_is_a_usage_error) {
    RunResult r = run_qdc(NULL);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "qdc: error: no input file (run 'qdc --help' for usage)\n");
    run_free(&r);
}

Test(cli, help_goes_to_stdout_and_succeeds) {
    RunResult r = run_qdc("--help", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(!strncmp(r.out, "usage: qdc [options] FILE", 25), "%s", r.out);
    const char *opts[] = {"--target=", "--emit=", "--check", "-o FILE", "--diagnostics-format", "--version"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) cr_expect(strstr(r.out, opts[i]), "--help lacks %s", opts[i]);
    cr_expect_str_empty(r.err);
    run_free(&r);
}

Test(cli, version_names_the_release) {
    RunResult r = run_qdc("--version", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(!strncmp(r.out, "qdc 0.1.0 ", 10), "%s", r.out);
    cr_expect_str_empty(r.err);
    run_free(&r);
}

Test(cli, nonexistent_input) {
    RunResult r = run_qdc("--check", "/nonexistent/k.qd", NULL);
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.err, "qdc: error[QD0001]: cannot open '/nonexistent/k.qd': no such file\n");
    run_free(&r);
}

Test(cli, directory_input) {
    char *dir = make_temp_dir();
    RunResult r = run_qdc("--check", dir, NULL);
    cr_expect_eq(r.status, 1);
    char want[4200];
    snprintf(want, sizeof want, "qdc: error[QD0002]: '%s' is a directory, not a kernel file\n", dir);
    cr_expect_str_eq(r.err, want);
    run_free(&r);
    remove_tree(dir), free(dir);
}

/* Root reads any file, so as root the check runs as uid 65534 (setpriv) on a copy of qdc in a
 * 0755 directory under /tmp: the checkout may sit under a 0700 directory that user cannot enter. */
Test(cli, unreadable_input) {
    bool root = geteuid() == 0;
    if (root && !tool_available("setpriv")) cr_skip_test("root without setpriv cannot test as another user");
    char *qdc = NULL, *dir = root ? public_qdc_copy(&qdc) : make_temp_dir();
    cr_assert(dir, "cannot copy qdc into a directory under /tmp");
    char *in = path_in(dir, "k.qd");
    cr_assert(write_text(in, good_src));
    chmod(in, 0);
    const char *as_nobody[] = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", qdc, "--check", in, NULL};
    RunResult r = root ? run_argv(as_nobody, NULL, "/") : run_qdc("--check", in, NULL);
    cr_expect_eq(r.status, 1);
    char want[4200];
    snprintf(want, sizeof want, "qdc: error[QD0001]: cannot read '%s': Permission denied\n", in);
    cr_expect_str_eq(r.err, want);
    run_free(&r);
    remove_tree(dir), free(in), free(dir), free(qdc);
}

Test(cli, stdin_is_named_stdin_in_diagnostics) {
    if (frontend_pending()) cr_skip_test();
    const char *args[] = {"--check", "-", NULL};
    RunResult r = run_qdc_argv(args, bad_src, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(!strncmp(r.err, "<stdin>:2:5: error[QD1", 22), "%s", r.err);
    run_free(&r);
}

/* A failing compilation leaves the output directory exactly as it was: no output, no temp file,
 * and an existing output is not touched. */
Test(cli, failure_leaves_no_output) {
    char *dir = make_temp_dir(), *in = path_in(dir, "bad.qd"), *out = path_in(dir, "bad.o");
    cr_assert(write_text(in, bad_src));
    RunResult r = run_qdc("-o", out, in, NULL);
    cr_expect_neq(r.status, 0);
    if (!frontend_pending()) cr_expect_eq(r.status, 1);
    cr_expect(!file_exists(out));
    cr_expect_eq(count_entries(dir), 1, "only the input may remain");
    run_free(&r);
    cr_assert(write_text(out, "old"));
    r = run_qdc("-o", out, in, NULL);
    char *kept = read_text(out, NULL);
    cr_expect_str_eq(kept, "old");
    cr_expect_eq(count_entries(dir), 2);
    free(kept), run_free(&r);
    remove_tree(dir), free(in), free(out), free(dir);
}

Test(cli, output_written_atomically_without_temp_files) {
    if (frontend_pending()) cr_skip_test();
    char *dir = make_temp_dir(), *in = path_in(dir, "k.qd"), *out = path_in(dir, "k.ast");
    cr_assert(write_text(in, good_src));
    cr_assert(write_text(out, "stale"));
    RunResult r = run_qdc("--emit=ast", "-o", out, in, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    size_t len = 0;
    char *got = read_text(out, &len);
    cr_expect(len > 0 && strcmp(got, "stale"), "output replaced");
    cr_expect_eq(count_entries(dir), 2, "input and output only, no temp file");
    free(got), run_free(&r);
    remove_tree(dir), free(in), free(out), free(dir);
}

Test(cli, dash_o_dash_writes_stdout_and_no_file) {
    if (frontend_pending()) cr_skip_test();
    char *dir = make_temp_dir(), *in = path_in(dir, "k.qd");
    cr_assert(write_text(in, good_src));
    const char *args[] = {"--emit=ast", "-o", "-", "k.qd", NULL};
    RunResult r = run_qdc_argv(args, NULL, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(r.out_len > 0);
    cr_expect_eq(count_entries(dir), 1, "nothing but the input");
    run_free(&r), remove_tree(dir), free(in), free(dir);
}

Test(cli, stats_line_for_an_example) {
    if (frontend_pending()) cr_skip_test();
    char *ex = root_path("examples/histogram.qd");
    RunResult r = run_qdc("--check", "--stats", ex, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "histogram: 1 kernel (histogram), 2 tasks, 1 atomic, 0 volatile loads, 0 fences\n");
    run_free(&r), free(ex);
}

/* Every manual page renders without a groff warning and holds no control character but newline
 * and tab (a "\f" typed in a generator once became a form feed). */
Test(cli, manual_renders_without_warnings) {
    static const char *const pages[] = {"qdc.1",  "qdrun.1",     "qdc-lsp.1",  "qdrt.3",         "qdc-capdb.5", "qdc-abi.7",
                                        "qdc-lang.7", "qdc-msl.7", "qdc-spirv.7", "qdc-semantics.7", NULL};
    bool groff = tool_available("groff");
    if (!groff) fprintf(stderr, "test_cli: groff not installed; the pages are checked for control characters only\n");
    for (int i = 0; pages[i]; i++) {
        char *rel = xasprintf("man/%s", pages[i]), *man = root_path(rel);
        size_t len = 0;
        char *text = read_text(man, &len);
        cr_assert(text, "cannot read %s", man);
        for (size_t k = 0, line = 1; k < len; line += text[k++] == '\n')
            cr_expect(!((unsigned char)text[k] < 0x20 && text[k] != '\n' && text[k] != '\t') && text[k] != 0x7f,
                      "%s:%zu: control character 0x%02x", rel, line, (unsigned char)text[k]);
        if (groff) {
            const char *argv[] = {"groff", "-man", "-ww", "-Tutf8", man, NULL};
            RunResult r = run_argv(argv, NULL, NULL);
            cr_expect_eq(r.status, 0, "%s", rel);
            cr_expect_str_empty(r.err, "%s: groff warnings:\n%s", rel, r.err);
            run_free(&r);
        }
        free(text), free(man), free(rel);
    }
}

/* Every code of --list-diagnostics is documented (regenerate with man/update-qdc1.sh). */
Test(cli, manual_lists_every_diagnostic_code) {
    char *man_path = root_path("man/qdc.1");
    char *man = read_text(man_path, NULL);
    cr_assert(man, "cannot read %s", man_path);
    RunResult r = run_qdc("--list-diagnostics", NULL);
    cr_assert_eq(r.status, 0);
    int n = 0;
    for (char *line = r.out; *line; n++) {
        char code[16] = {0}, want[40];
        cr_assert_eq(sscanf(line, "%15s", code), 1);
        snprintf(want, sizeof want, ".BR %s ", code);
        cr_expect(strstr(man, want), "man/qdc.1 lacks %s: run man/update-qdc1.sh", code);
        char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : line + strlen(line);
    }
    cr_expect_gt(n, 5);
    run_free(&r), free(man), free(man_path);
}
