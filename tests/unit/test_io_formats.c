/* Machine-readable output and the files qdc reads (issue 13 items 18, 19, 23-26): one JSON
 * writer (valid UTF-8, escaped names, SARIF URIs, usage and internal errors as records), depfiles
 * that real make and ninja read back for awkward names, -MP with stdin, the capability search
 * path (no cap on QDC_CAPDB_PATH, unreadable directories warned, no build-tree lookups from an
 * installed qdc), and messages that say what actually went wrong. */
#include "cli/depfile.h"
#include "support/diag.h"
#include "support/json.h"
#include "test_build_util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const kernel_src =
    "import quadrants as qd\n"
    "\n"
    "@qd.kernel\n"
    "def bump(a: qd.types.NDArray[qd.i32, 1]):\n"
    "    for i in range(64):\n"
    "        qd.atomic_add(a[i % 4], 1)\n";

static const char *const bad_src = "import quadrants as qd\ndef (:\n";

/* Strict UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF). */
static bool valid_utf8(const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s, *e = p + n;
    while (p < e) {
        unsigned c = *p++;
        int more = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
        if (more < 0 || (more == 1 && c < 0xC2) || e - p < more) return false;
        unsigned cp = c & (0x3F >> more);
        for (int i = 0; i < more; i++, p++) {
            if ((*p & 0xC0) != 0x80) return false;
            cp = cp << 6 | (*p & 0x3F);
        }
        if ((more == 2 && (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000))) || (more == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
            return false;
    }
    return true;
}

static char *json(const char *s) {
    StrBuf b;
    sb_init(&b);
    json_str(&b, s);
    return sb_take(&b);
}

/* ---- item 25: the one JSON writer ---- */

Test(json_writer, strings_are_escaped_and_valid_utf8) {
    char *a = json("q\"b\\s\n\x1b\x7f");
    cr_expect_str_eq(a, "\"q\\\"b\\\\s\\n\\u001b\\u007f\"");
    char *b = json("bad\xff.qd caf\xc3\xa9 \xe2\x82 \xf0\x9f\x98\x80 \xed\xa0\x80 \xc0\xaf");
    cr_expect_str_eq(b, "\"bad\\ufffd.qd caf\xc3\xa9 \\ufffd\\ufffd \xf0\x9f\x98\x80 \\ufffd\\ufffd\\ufffd \\ufffd\\ufffd\"");
    cr_expect(valid_utf8(b, strlen(b)));
    free(a), free(b);
}

Test(json_writer, paths_become_uri_references) {
    StrBuf b;
    sb_init(&b);
    json_uri(&b, "dir/sp ace#1%.qd");
    sb_putc(&b, ' ');
    json_uri(&b, "/abs/bad\xff\"q.qd");
    cr_expect_str_eq(b.data, "\"dir/sp%20ace%231%25.qd\" \"/abs/bad%FF%22q.qd\"");
    sb_free(&b);
}

static char *bad_named(const char *dir, const char *name) {
    char *p = path_join(dir, name);
    cr_assert(write_text(p, bad_src));
    return p;
}

Test(json_writer, diagnostics_for_odd_file_names) {
    char *dir = make_temp_dir();
    free(bad_named(dir, "bad\xff.qd")), free(bad_named(dir, "sp ace.qd"));
    const char *a1[] = {"--check", "--diagnostics-format=json", "bad\xff.qd", NULL};
    RunResult r = run_qdc_argv(a1, NULL, dir);
    cr_expect_eq(r.status, 1);
    cr_expect(valid_utf8(r.err, r.err_len), "invalid UTF-8: %s", r.err);
    cr_expect(strstr(r.err, "\"file\":\"bad\\ufffd.qd\",\"line\":2,"), "%s", r.err);
    run_free(&r);
    const char *a2[] = {"--check", "--diagnostics-format=sarif", "bad\xff.qd", NULL};
    r = run_qdc_argv(a2, NULL, dir);
    cr_expect(valid_utf8(r.err, r.err_len), "invalid UTF-8: %s", r.err);
    cr_expect(strstr(r.err, "\"artifactLocation\":{\"uri\":\"bad%FF.qd\"}"), "%s", r.err);
    run_free(&r);
    const char *a3[] = {"--check", "--diagnostics-format=sarif", "sp ace.qd", NULL};
    r = run_qdc_argv(a3, NULL, dir);
    cr_expect(strstr(r.err, "\"artifactLocation\":{\"uri\":\"sp%20ace.qd\"}"), "%s", r.err);
    run_free(&r), remove_tree(dir), free(dir);
}

Test(json_writer, usage_errors_are_records) {
    RunResult r = run_qdc("--diagnostics-format=json", "--bogus", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "{\"schema\":\"qdc-diagnostic/1\",\"severity\":\"error\",\"code\":null,\"file\":null,"
                            "\"line\":0,\"column\":0,\"end_line\":0,\"end_column\":0,\"byte_offset\":0,\"byte_length\":0,"
                            "\"message\":\"unknown option '--bogus'\"}\n");
    run_free(&r);
    r = run_qdc("--bogus", "--diagnostics-format=sarif", NULL); /* the format comes later */
    cr_expect_eq(r.status, 2);
    cr_expect(!strncmp(r.err, "{\"$schema\"", 10), "%s", r.err);
    cr_expect(strstr(r.err, "\"results\":[{\"level\":\"error\",\"message\":{\"text\":\"unknown option '--bogus'\"}}]"),
              "%s", r.err);
    run_free(&r);
    r = run_qdc("--diagnostics-format=json", "--target=nosuch", "k.qd", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(!strncmp(r.err, "{\"schema\":\"qdc-diagnostic/1\",\"severity\":\"error\",\"code\":null,\"file\":\"k.qd\"", 72)
              && strstr(r.err, "\"message\":\"unknown target 'nosuch'; known targets: ") && !strchr(r.err, '\n')[1],
              "%s", r.err);
    run_free(&r);
}

/* Internal errors (exit 3) in a machine format are records too. The check runs at exit. */
static char internal_path[64];
static void check_internal_record(void) {
    char *got = read_text(internal_path, NULL);
    unlink(internal_path);
    const char *want = "{\"schema\":\"qdc-diagnostic/1\",\"severity\":\"internal-error\",\"code\":null,\"file\":null,"
                       "\"line\":0,\"column\":0,\"end_line\":0,\"end_column\":0,\"byte_offset\":0,\"byte_length\":0,"
                       "\"message\":\"bad \\\"state\\\" 7 [test_io_formats.c:";
    bool ok = got && !strncmp(got, want, strlen(want));
    if (!ok) fprintf(stderr, "internal error record: %s\n", got ? got : "(none)");
    free(got); /* nothing may leak: LeakSanitizer would change the exit status */
    if (!ok) _exit(99); /* not the expected 3: the test fails */
}

Test(json_writer, internal_errors_are_records, .exit_code = 3) {
    snprintf(internal_path, sizeof internal_path, "/tmp/qdc-internal-%d.json", (int)getpid());
    FILE *f = fopen(internal_path, "w");
    cr_assert(f);
    DiagConfig cfg = {DIAG_JSON, DIAG_COLOR_NEVER, 20, false, f};
    diag_init(&cfg);
    atexit(check_internal_record);
    qdc_die_at("test_io_formats.c", 1, "bad \"%s\" %d", "state", 7);
}

static void check_oom_record(void) {
    char *got = read_text(internal_path, NULL);
    unlink(internal_path);
    bool ok = got && strstr(got, "\"severity\":\"internal-error\"") && strstr(got, "\"message\":\"out of memory\"}\n");
    if (!ok) fprintf(stderr, "out-of-memory record: %s\n", got ? got : "(none)");
    free(got);
    if (!ok) _exit(99);
}

/* Running out of memory (exit 3) in JSON mode is a record too. */
Test(json_writer, out_of_memory_is_a_record, .exit_code = 3) {
    if (getenv("QDC_ASAN")) exit(3); /* ASan's allocator aborts on an impossible size instead */
    snprintf(internal_path, sizeof internal_path, "/tmp/qdc-oom-%d.json", (int)getpid());
    FILE *f = fopen(internal_path, "w");
    cr_assert(f);
    DiagConfig cfg = {DIAG_JSON, DIAG_COLOR_NEVER, 20, false, f};
    diag_init(&cfg);
    atexit(check_oom_record);
    void *volatile p = xmalloc(SIZE_MAX / 2);
    (void)p;
}

static char *copy_family(const char *dir, const char *name) {
    char *src = root_path("capability-db/x86_64.yaml"), *text = read_text(src, NULL);
    cr_assert(text);
    StrBuf b;
    sb_init(&b);
    char *at = strstr(text, "name: x86_64\n");
    cr_assert(at);
    sb_printf(&b, "%.*sname: %s\n%s", (int)(at - text), text, name, at + strlen("name: x86_64\n"));
    char *rank = strstr(b.data, "rank: 500");
    cr_assert(rank);
    memcpy(rank, "rank: 590", 9);
    mkdir(dir, 0755);
    char *file = xasprintf("%s/%s.yaml", dir, name);
    cr_assert(write_text(file, b.data));
    free(src), free(text), free(file), sb_free(&b);
    return xstrdup(dir);
}

Test(json_writer, quotes_in_capability_paths) {
    char *tmp = make_temp_dir(), *db = path_join(tmp, "q\"db"), *k = path_join(tmp, "k.qd");
    free(copy_family(db, "qx"));
    cr_assert(write_text(k, kernel_src));
    const char *a1[] = {"k.qd", "--capdb-dir", "q\"db", "--target=qx", "--report-lowering=json", NULL};
    RunResult r = run_qdc_argv(a1, NULL, tmp);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\"reason\":\"q\\\"db/qx.yaml:"), "%s", r.out);
    cr_expect(!strstr(r.out, "q\"db"), "raw quote in %s", r.out);
    run_free(&r);
    const char *a2[] = {"--capdb-dir", "q\"db", "--print-caps", "qx", "--format=json", NULL};
    r = run_qdc_argv(a2, NULL, tmp);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\"source\":\"q\\\"db/qx.yaml:"), "%.300s", r.out);
    cr_expect(!strstr(r.out, "q\"db"), "raw quote in --print-caps output");
    run_free(&r), free(db), free(k), remove_tree(tmp), free(tmp);
}

/* ---- item 23: depfiles that make and ninja read back ---- */

Test(depfile, escaping_matches_make_and_ninja) {
    const char *names[][2] = {
        {"a b", "a\\ b"},         {"a\\ b", "a\\\\\\ b"}, {"a\\\\ b", "a\\\\\\\\\\ b"}, {"a$b", "a$$b"},
        {"a#b", "a\\#b"},         {"a:b", "a\\:b"},       {"a\\b", "a\\b"},             {"a\tb", "a\\\tb"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        StrBuf b;
        sb_init(&b);
        dep_escape(&b, names[i][0]);
        cr_expect_str_eq(b.data, names[i][1]);
        sb_free(&b);
    }
}

/* A kernel in a directory named `name`, compiled with -MD -MT out, then read back by GNU make
 * (rebuilds when the source is newer, up to date otherwise) and by ninja (-t deps). */
static void make_and_ninja_read(const char *name) {
    char *tmp = make_temp_dir(), *sub = path_join(tmp, name), *k = path_join(sub, "k.qd");
    mkdir(sub, 0755);
    cr_assert(write_text(k, kernel_src));
    char *src = xasprintf("%s/k.qd", name);
    const char *args[] = {src, "-o", "out", "-MD", "-MF", "out.d", "-MT", "out", NULL};
    RunResult r = run_qdc_argv(args, NULL, tmp);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *mk = path_join(tmp, "Makefile"), *nj = path_join(tmp, "build.ninja");
    cr_assert(write_text(mk, "out:\n\t@echo REBUILD\ninclude out.d\n"));
    char *ninja_text = xasprintf("rule qdc\n  command = touch out\n  depfile = out.d\n  deps = gcc\n"
                                 "build out: qdc\n");
    cr_assert(write_text(nj, ninja_text));
    char *out = path_join(tmp, "out");
    set_mtime(out, -100);
    const char *m1[] = {"make", "-s", NULL};
    r = run_argv(m1, NULL, tmp);
    cr_expect(r.status == 0 && !strcmp(r.out, "REBUILD\n"), "make with '%s': %s%s", name, r.out, r.err);
    run_free(&r);
    set_mtime(out, 100);
    r = run_argv(m1, NULL, tmp);
    cr_expect(r.status == 0 && !strstr(r.out, "REBUILD"), "make with '%s' (up to date): %s%s", name, r.out, r.err);
    run_free(&r);
    if (tool_available("ninja")) {
        const char *n1[] = {"ninja", NULL}, *n2[] = {"ninja", "-t", "deps", "out", NULL};
        r = run_argv(n1, NULL, tmp);
        cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
        run_free(&r);
        r = run_argv(n2, NULL, tmp);
        char *want = xasprintf("\n    %s\n", src);
        cr_expect(strstr(r.out, want), "ninja read the depfile of '%s' as:\n%s", name, r.out);
        free(want), run_free(&r);
    }
    /* the output's own name as the rule's target (quoted like -MQ): make's default goal */
    char *obj = xasprintf("%s/k.o", name);
    const char *a2[] = {src, "-o", obj, "-MD", "-MF", "obj.d", NULL};
    r = run_qdc_argv(a2, NULL, tmp);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    cr_assert(write_text(mk, "include obj.d\n%.o:\n\t@echo 'REBUILD $@'\n"));
    char *objpath = path_join(tmp, obj);
    set_mtime(objpath, -100);
    free(objpath);
    r = run_argv(m1, NULL, tmp);
    char *want = xasprintf("REBUILD %s\n", obj);
    cr_expect(r.status == 0 && !strcmp(r.out, want), "make with target '%s': %s%s", obj, r.out, r.err);
    free(want), run_free(&r);
    free(obj), free(ninja_text), free(mk), free(nj), free(out), free(src), free(k), free(sub);
    remove_tree(tmp), free(tmp);
}

Test(depfile, real_make_and_ninja_with_awkward_names) {
    const char *names[] = {"sp ace", "dol$lar", "ha#sh", "co:lon", "back\\ slash", "back\\slash", "mix \\ $#:"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) make_and_ninja_read(names[i]);
}

/* ---- item 24: -MP with standard input ---- */

Test(depfile, phony_rules_for_every_capability_file_with_stdin) {
    char *tmp = make_temp_dir();
    const char *args[] = {"-", "-o", "s.o", "-MD", "-MP", "--target=x86_64-v3", NULL};
    RunResult r = run_qdc_argv(args, kernel_src, tmp);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *d = path_join(tmp, "s.o.d"), *text = read_text(d, NULL); /* the output name + .d */
    cr_assert(text);
    /* the rule lists both family files (no input: it is stdin), and each has its phony rule */
    cr_expect(!strncmp(text, "s.o: \\\n  ", 9), "%s", text);
    cr_expect_eq(count_lines_with(text, ".yaml"), 4, "%s", text);
    cr_expect_eq(count_lines_with(text, "/x86_64.yaml:"), 1, "%s", text);
    cr_expect_eq(count_lines_with(text, "/x86_64-v3.yaml:"), 1, "%s", text);
    free(d), free(text), run_free(&r), remove_tree(tmp), free(tmp);
}

/* ---- item 18: the search path drops nothing silently ---- */

Test(capdb_path, more_than_sixty_entries) {
    char *tmp = make_temp_dir(), *k = path_join(tmp, "k.qd");
    cr_assert(write_text(k, kernel_src));
    StrBuf env;
    sb_init(&env);
    sb_puts(&env, "QDC_CAPDB_PATH=");
    for (int i = 0; i < 80; i++) {
        char *d = xasprintf("%s/d%02d", tmp, i);
        mkdir(d, 0755);
        sb_printf(&env, "%s%s", i ? ":" : "", d);
        if (i == 75) free(copy_family(d, "qfar"));
        free(d);
    }
    const char *argv[] = {"env", env.data, qdc_bin(), "k.qd", "--target=qfar", "-o", "k.o", NULL};
    RunResult r = run_argv(argv, NULL, tmp);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_empty(r.err);
    run_free(&r), sb_free(&env), free(k), remove_tree(tmp), free(tmp);
}

Test(capdb_path, unreadable_directory_is_warned) {
    if (geteuid() != 0 || !tool_available("setpriv")) cr_skip_test("needs root and setpriv to test as another user");
    /* everything uid 65534 touches lives in a 0755 directory under /tmp (the checkout may be
     * under a 0700 directory such as /root, where that user cannot run its qdc) */
    char *qdc = NULL, *pub = public_qdc_copy(&qdc);
    cr_assert(pub, "cannot copy qdc into a directory under /tmp");
    char *db = path_join(pub, "db"), *k = path_join(pub, "k.qd");
    cr_assert(write_text(k, kernel_src) && chmod(k, 0644) == 0);
    free(copy_family(db, "qlocked"));
    chmod(db, 0300); /* owner-only, and nobody is not the owner */
    const char *argv[] = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", qdc, "--check", k,
                          "--capdb-dir", db, NULL};
    RunResult r = run_argv(argv, NULL, "/");
    char *want = xasprintf("qdc: warning[QD0006]: --capdb-dir directory '%s' is ignored: Permission denied [-Wmissing-capdb-dir]\n", db);
    cr_expect_str_eq(r.err, want);
    cr_expect_eq(r.status, 0);
    chmod(db, 0755);
    free(want), run_free(&r), free(db), free(k), free(qdc), remove_tree(pub), free(pub);
}

/* ---- item 19: no build-tree lookups from an installed qdc ---- */

Test(capdb_path, installed_qdc_ignores_build_tree_locations) {
    char *dest = install_to_temp();
    cr_assert(dest, "make install-files failed");
    const char *rogue[] = {"capability-db", "usr/capability-db"}; /* <exe>/../.. and <exe>/.. */
    for (int i = 0; i < 2; i++) {
        char *d = path_join(dest, rogue[i]), *f = path_join(d, "broken.yaml");
        mkdir(d, 0755);
        cr_assert(write_text(f, "schema: 1\nname: [broken\n"));
        free(d), free(f);
    }
    char *qdc = path_join(dest, "usr/bin/qdc");
    const char *argv[] = {"env", "-u", "QDC_CAPDB_PATH", qdc, "--list-targets", NULL};
    RunResult mine = run_argv(argv, NULL, "/"), ref = run_qdc("--list-targets", NULL);
    cr_expect_eq(mine.status, 0, "%s", mine.err);
    cr_expect_str_empty(mine.err);
    cr_expect_str_eq(mine.out, ref.out);
    run_free(&mine), run_free(&ref), free(qdc), remove_tree(dest), free(dest);
}

/* ---- item 26: messages that say what went wrong ---- */

Test(messages, capability_file_that_is_a_directory) {
    char *tmp = make_temp_dir(), *db = path_join(tmp, "db"), *x = path_join(db, "x.yaml");
    mkdir(db, 0755), mkdir(x, 0755);
    RunResult r = run_qdc("--list-targets", "--capdb-dir", db, NULL);
    char *want = xasprintf("qdc: error[QD0001]: cannot read capability file '%s': Is a directory\n", x);
    cr_expect_str_eq(r.err, want);
    cr_expect_eq(r.status, 1);
    free(want), run_free(&r), free(x), free(db), remove_tree(tmp), free(tmp);
}

Test(messages, capability_file_over_the_size_limit) {
    char *tmp = make_temp_dir(), *db = path_join(tmp, "db"), *x = path_join(db, "big.yaml");
    mkdir(db, 0755);
    FILE *f = fopen(x, "w");
    cr_assert(f);
    for (int i = 0; i < (5 << 20) / 64; i++) fputs("# padding padding padding padding padding padding padding pad\n", f);
    cr_assert(fclose(f) == 0);
    RunResult r = run_qdc("--list-targets", "--capdb-dir", db, NULL);
    char *want = xasprintf("qdc: error[QD0001]: cannot read capability file '%s': larger than the 4 MiB limit\n", x);
    cr_expect_str_eq(r.err, want);
    cr_expect_eq(r.status, 1);
    free(want), run_free(&r), free(x), free(db), remove_tree(tmp), free(tmp);
}

Test(messages, long_numeric_literals) {
    StrBuf src;
    sb_init(&src);
    sb_puts(&src, "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.NDArray[qd.f64, 1]):\n    a[0] = 0.");
    for (int i = 0; i < 600; i++) sb_putc(&src, '5');
    sb_puts(&src, "\n");
    const char *args[] = {"--check", "-", NULL};
    RunResult r = run_qdc_argv(args, src.data, NULL);
    cr_expect_eq(r.status, 0, "a valid 602-character float: %s", r.err);
    run_free(&r), sb_free(&src);
}

static RunResult link_with(const char *lld, const char *dir) {
    char *assign = xasprintf("QDC_LD_LLD=%s", lld);
    const char *argv[] = {"env", assign, qdc_bin(), "k.qd", "--target=gfx942", "-o", "k.hsaco", NULL};
    RunResult r = run_argv(argv, NULL, dir);
    free(assign);
    return r;
}

Test(messages, qdc_ld_lld_problems_are_named) {
    char *tmp = make_temp_dir(), *k = path_join(tmp, "k.qd"), *plain = path_join(tmp, "plain");
    cr_assert(write_text(k, kernel_src));
    cr_assert(write_text(plain, "not a program"));
    chmod(plain, 0644);
    RunResult r = link_with("/nonexistent/ld.lld-19", tmp);
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.err, "qdc: error[QD5005]: cannot link the AMDGPU code object: QDC_LD_LLD='/nonexistent/ld.lld-19' "
                            "cannot be run: No such file or directory\n");
    run_free(&r);
    r = link_with(plain, tmp);
    char *want = xasprintf("qdc: error[QD5005]: cannot link the AMDGPU code object: QDC_LD_LLD='%s' cannot be run: "
                           "Permission denied\n", plain);
    cr_expect_str_eq(r.err, want);
    free(want), run_free(&r);
    if (tool_available("ld.lld-19")) { /* a bare name is looked up in PATH */
        r = link_with("ld.lld-19", tmp);
        cr_expect_eq(r.status, 0, "%s", r.err);
        run_free(&r);
    }
    r = link_with("no-such-linker-qdc", tmp);
    cr_expect_str_eq(r.err, "qdc: error[QD5005]: cannot link the AMDGPU code object: QDC_LD_LLD='no-such-linker-qdc' "
                            "cannot be run: not found in PATH\n");
    run_free(&r), free(k), free(plain), remove_tree(tmp), free(tmp);
}
