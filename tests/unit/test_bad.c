/* The bad-input corpus (testdata/bad/) and the fuzz regression inputs (testdata/regress/).
 * Each bad input states what qdc must say: `# expect: error QD2003 12:5` lines inside a .qd
 * file (plus an optional `# target: NAME` to compile for a family instead of --check), or a
 * sidecar NAME.expect with `error QD1003 2:6` lines for binary inputs. The reported errors must
 * be exactly the expected ones (warnings listed must appear), with exit status 1 (0 when only
 * warnings are expected), no internal error and no output file. */
#include "harness.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    char kind[16], code[8];
    unsigned line, col;
    bool seen;
} Expect;

typedef struct {
    Expect e[16];
    int n;
    char target[64];
} Spec;

static bool parse_expect(const char *s, Expect *e) {
    memset(e, 0, sizeof *e);
    return sscanf(s, "%15s %7s %u:%u", e->kind, e->code, &e->line, &e->col) == 4 &&
           (!strcmp(e->kind, "error") || !strcmp(e->kind, "warning"));
}

/* Reads `# expect:` / `# target:` lines of text, or every line of a sidecar. */
static void read_spec(const char *text, bool sidecar, Spec *sp, const char *name) {
    memset(sp, 0, sizeof *sp);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        const char *body = p;
        if (!sidecar) {
            if (!strncmp(p, "# target: ", 10)) sscanf(p + 10, "%63s", sp->target);
            if (strncmp(p, "# expect: ", 10)) continue;
            body = p + 10;
        }
        if (*body == '\n' || !*body) continue;
        cr_assert(sp->n < 16 && parse_expect(body, &sp->e[sp->n]), "%s: bad expectation line", name);
        sp->n++;
    }
    cr_assert(sp->n > 0, "%s: no expectations", name);
}

/* Matches each `name:L:C: kind[QDnnnn]` line of stderr; returns the number of unexpected errors. */
static int match_diags(const char *name, const char *err, Spec *sp) {
    int unexpected = 0;
    size_t nl = strlen(name);
    for (const char *p = err; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, name, nl) || p[nl] != ':') continue;
        Expect got;
        char kind[16] = "", code[8] = "";
        if (sscanf(p + nl + 1, "%u:%u: %15[a-z][%7[A-Z0-9]]", &got.line, &got.col, kind, code) != 4) continue;
        bool found = false;
        for (int i = 0; i < sp->n && !found; i++) {
            Expect *e = &sp->e[i];
            if (!e->seen && !strcmp(e->kind, kind) && !strcmp(e->code, code) && e->line == got.line && e->col == got.col)
                found = e->seen = true;
        }
        if (!found && !strcmp(kind, "error")) unexpected++;
    }
    return unexpected;
}

static bool frontend_ready(void) {
    RunResult r = run_qdc_argv((const char *const[]){"--check", "-", NULL},
                               "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.NDArray[qd.i32, 1]):\n"
                               "    for i in range(4):\n        a[i] = i\n",
                               NULL);
    bool ok = r.status == 0;
    run_free(&r);
    return ok;
}

static int check_one(const char *dir, const char *name, const char *tmp) {
    char *path = xasprintf("%s/%s", dir, name), *side = xasprintf("%s.expect", path);
    bool sidecar = file_exists(side);
    char *text = read_text(sidecar ? side : path, NULL);
    cr_assert(text, "cannot read %s", path);
    Spec sp;
    read_spec(text, sidecar, &sp, name);
    char *out = xasprintf("%s/out", tmp), *target = xasprintf("--target=%s", sp.target);
    const char *check[] = {name, "--check", "--color=never", "--error-limit=0", NULL};
    const char *build[] = {name, target, "-o", out, "--color=never", "--error-limit=0", NULL};
    RunResult r = run_qdc_argv(sp.target[0] ? build : check, NULL, dir);
    int unexpected = match_diags(name, r.err, &sp), failures = 0, want = 0;
    for (int i = 0; i < sp.n; i++) {
        want |= !strcmp(sp.e[i].kind, "error");
        if (!sp.e[i].seen) failures++;
        cr_expect(sp.e[i].seen, "%s: expected %s %s at %u:%u; stderr:\n%s", name, sp.e[i].kind, sp.e[i].code,
                  sp.e[i].line, sp.e[i].col, r.err);
    }
    cr_expect_eq(unexpected, 0, "%s: %d unexpected error(s); stderr:\n%s", name, unexpected, r.err);
    cr_expect_eq(r.status, want ? 1 : 0, "%s: exit status %d; stderr:\n%s", name, r.status, r.err);
    cr_expect(!want || !file_exists(out), "%s: an output file was written despite errors", name);
    failures += unexpected != 0 || r.status != (want ? 1 : 0);
    unlink(out);
    run_free(&r);
    free(path), free(side), free(text), free(out), free(target);
    return failures;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted entries of dir that are plain inputs (not sidecars), NULL-terminated. */
static char **list_inputs(const char *dir, int *n) {
    DIR *d = opendir(dir);
    cr_assert(d, "cannot open %s", dir);
    char **names = NULL;
    *n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || (len > 7 && !strcmp(e->d_name + len - 7, ".expect"))) continue;
        if (!strcmp(e->d_name, "README.md")) continue;
        names = xrealloc(names, sizeof *names * (size_t)(*n + 2));
        names[(*n)++] = xstrdup(e->d_name);
    }
    closedir(d);
    if (*n) qsort(names, (size_t)*n, sizeof *names, cmp_names);
    return names;
}

Test(bad, corpus, .timeout = 240) {
    if (!frontend_ready()) cr_skip_test("frontend not available yet (qdc --check of a valid kernel fails)");
    char *dir = root_path("testdata/bad"), *tmp = make_temp_dir();
    int n, failed = 0;
    char **names = list_inputs(dir, &n);
    cr_assert_geq(n, 50, "the corpus must hold at least 50 inputs, has %d", n);
    for (int i = 0; i < n; i++) failed += check_one(dir, names[i], tmp) != 0, free(names[i]);
    cr_expect_eq(failed, 0, "%d of %d bad inputs did not give the expected diagnostics", failed, n);
    free(names), free(dir);
    remove_tree(tmp), free(tmp);
}

/* Inputs that once crashed a fuzzer: qdc must answer with a diagnostic or success, never an
 * internal error or a signal. Frontend inputs are checked; the others are generator bytes and
 * are replayed by `make fuzz-smoke`. */
Test(bad, fuzz_regressions_frontend, .timeout = 120) {
    if (!frontend_ready()) cr_skip_test("frontend not available yet");
    char *dir = root_path("testdata/regress/frontend");
    int n;
    char **names = list_inputs(dir, &n);
    for (int i = 0; i < n; i++) {
        RunResult r = run_qdc_argv((const char *const[]){names[i], "--check", "--error-limit=0", NULL}, NULL, dir);
        cr_expect(r.status == 0 || r.status == 1, "%s: exit status %d:\n%s", names[i], r.status, r.err);
        run_free(&r);
        free(names[i]);
    }
    free(names), free(dir);
}

/* Minimized pipeline crashes (the .qd files in testdata/regress/compile/): compiled for every family named on
 * their `# targets:` line, each must succeed or give a diagnostic, never an internal error. */
Test(bad, fuzz_regressions_compile, .timeout = 120) {
    if (!frontend_ready()) cr_skip_test("frontend not available yet");
    char *dir = root_path("testdata/regress/compile"), *tmp = make_temp_dir(), *out = xasprintf("%s/out", tmp);
    int n;
    char **names = list_inputs(dir, &n);
    for (int i = 0; i < n; i++) {
        char *path = xasprintf("%s/%s", dir, names[i]), *text = read_text(path, NULL), line[512] = "";
        cr_assert(text && sscanf(text, "# targets: %511[^\n]", line) == 1, "%s: no '# targets:' line", names[i]);
        for (char *save, *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
            char *target = xasprintf("--target=%s", t);
            RunResult r = run_qdc_argv((const char *const[]){names[i], target, "-o", out, NULL}, NULL, dir);
            cr_expect(r.status == 0 || r.status == 1, "%s for %s: exit status %d:\n%s", names[i], t, r.status, r.err);
            run_free(&r);
            free(target);
        }
        free(path), free(text), free(names[i]);
    }
    free(names), free(dir), free(out);
    remove_tree(tmp), free(tmp);
}
