/* Golden assembly checks for x86-64 (testdata/x86/NAME.expect, format in testdata/x86/README):
 * integer adds are lock xadd / lock add, float add and min/max are cmpxchg loops, volatile
 * loads stay inside spin loops. One harness runs every file; each failed line is reported. */
#include "harness.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The body of `fn` in the assembly: from "fn:" to its .Lfunc_end label; NULL if absent. */
static char *function_body(const char *as, const char *fn) {
    char *label = NULL;
    if (asprintf(&label, "\n%s:\n", fn) < 0) abort();
    const char *start = strstr(as, label);
    free(label);
    if (!start) return NULL;
    const char *end = strstr(start, "\n.Lfunc_end");
    return strndup(start, end ? (size_t)(end - start) : strlen(start));
}

static char *unescape(const char *s) {
    char *out = malloc(strlen(s) + 1), *o = out;
    for (; *s; s++) *o++ = s[0] == '\\' && s[1] == 't' ? (s++, '\t') : *s;
    *o = 0;
    return out;
}

/* A label whose block ends, within 3 instructions, in a branch back to it, and reads memory. */
static bool has_spin_loop(const char *body) {
    for (const char *p = strstr(body, "\n.LBB"); p; p = strstr(p + 1, "\n.LBB")) {
        const char *colon = strchr(p + 1, ':');
        if (!colon || colon[1] != '\n') continue;
        char label[64];
        snprintf(label, sizeof label, "%.*s", (int)(colon - p - 1), p + 1);
        const char *q = colon + 2;
        bool reads = false;
        for (int n = 0; n < 3 && *q && *q != '.'; n++) {
            const char *eol = strchr(q, '\n');
            size_t len = eol ? (size_t)(eol - q) : strlen(q);
            char line[256];
            snprintf(line, sizeof line, "%.*s", (int)len, q);
            if (strstr(line, "(%")) reads = true;
            if (line[0] == '\t' && line[1] == 'j' && strstr(line, label) && reads) return true;
            if (!eol) break;
            q = eol + 1;
        }
    }
    return false;
}

static int check_line(const char *file, const char *as, const char *verb, const char *fn, const char *text) {
    char *body = function_body(as, fn);
    int bad = 0;
    if (!body) {
        cr_log_error("%s: no function %s in the assembly", file, fn);
        return 1;
    }
    char *t = text ? unescape(text) : NULL;
    if (!strcmp(verb, "has")) bad = !strstr(body, t);
    else if (!strcmp(verb, "lacks")) bad = strstr(body, t) != NULL;
    else if (!strcmp(verb, "spin")) bad = !has_spin_loop(body);
    else bad = 1;
    if (bad) cr_log_error("%s: %s %s %s failed; body:\n%s", file, verb, fn, text ? text : "", body);
    free(t);
    free(body);
    return bad;
}

static char *expect_field(char *line, const char *key) {
    size_t k = strlen(key);
    return !strncmp(line, key, k) && line[k] == ' ' ? line + k + 1 : NULL;
}

/* Runs one .expect file; returns the number of failed checks. */
static int run_expect(const char *dir, const char *name) {
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0) abort();
    char *text = read_text(path, NULL), *src = NULL, *target = "x86_64", *as = NULL;
    cr_assert(text, "cannot read %s", path);
    int bad = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *v;
        if (line[0] == '#') continue;
        if ((v = expect_field(line, "source"))) { src = v; continue; }
        if ((v = expect_field(line, "target"))) { target = v; continue; }
        if (!as) {
            cr_assert(src, "%s: checks before `source`", name);
            char *qd = root_path(src), *targ = NULL;
            if (asprintf(&targ, "--target=%s", target) < 0) abort();
            RunResult r = run_qdc(targ, "--emit=asm", qd, "-o", "-", NULL);
            cr_assert_eq(r.status, 0, "%s: qdc failed: %s", name, r.err);
            as = r.out;
            r.out = NULL;
            run_free(&r);
            free(qd), free(targ);
        }
        char *verb = line, *fn = strchr(line, ' ');
        cr_assert(fn, "%s: bad line '%s'", name, line);
        *fn++ = 0;
        char *arg = strchr(fn, ' ');
        if (arg) *arg++ = 0;
        bad += check_line(name, as, verb, fn, arg);
    }
    free(as), free(text), free(path);
    return bad;
}

Test(x86_asm, golden_expectations) {
    char *dir = root_path("testdata/x86");
    DIR *d = opendir(dir);
    cr_assert(d, "no %s", dir);
    int files = 0, bad = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 8 || strcmp(e->d_name + n - 7, ".expect")) continue;
        files++;
        bad += run_expect(dir, e->d_name);
    }
    closedir(d);
    free(dir);
    cr_expect_geq(files, 9, "expected the testdata/x86 corpus");
    cr_expect_eq(bad, 0, "%d golden check(s) failed", bad);
}

Test(x86_asm, spin_detector_rejects_hoisted_load) {
    /* the check itself must be able to fail: a loop that spins on a register is no spin loop */
    const char *hoisted = "\nf:\n\tmovl\t(%rdi), %eax\n.LBB0_1:\n\ttestl\t%eax, %eax\n\tje\t.LBB0_1\n.Lfunc_end0:";
    const char *kept = "\nf:\n.LBB0_1:\n\tcmpl\t$0, (%rdi)\n\tje\t.LBB0_1\n.Lfunc_end0:";
    cr_expect(!has_spin_loop(hoisted));
    cr_expect(has_spin_loop(kept));
}
