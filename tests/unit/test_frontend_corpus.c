/* The frontend corpus: every .qd file in testdata/frontend/ runs through `qdc --check`. A file lists its
 * expected diagnostics in comments "# expect: error QD2031 11:23" (kind, code, line:column);
 * the run must report exactly those errors and warnings (notes are not listed), exit 1 when an
 * error is expected and 0 otherwise, and print nothing at all when nothing is expected. */
#include "harness.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char **items;
    int n;
} Lines;

static void add(Lines *l, const char *s) {
    l->items = realloc(l->items, sizeof(char *) * (size_t)(l->n + 1));
    l->items[l->n++] = strdup(s);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Lines of text matching re; each becomes "KIND CODE L:C" from capture groups 1-4. */
static Lines collect(const char *text, const char *pattern) {
    Lines out = {0};
    regex_t re;
    cr_assert_eq(regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE), 0);
    regmatch_t m[5];
    for (const char *p = text; regexec(&re, p, 5, m, 0) == 0; p += m[0].rm_eo) {
        char buf[128];
        snprintf(buf, sizeof buf, "%.*s %.*s %.*s:%.*s", (int)(m[1].rm_eo - m[1].rm_so), p + m[1].rm_so,
                 (int)(m[2].rm_eo - m[2].rm_so), p + m[2].rm_so, (int)(m[3].rm_eo - m[3].rm_so), p + m[3].rm_so,
                 (int)(m[4].rm_eo - m[4].rm_so), p + m[4].rm_so);
        add(&out, buf);
    }
    regfree(&re);
    if (out.n) qsort(out.items, (size_t)out.n, sizeof(char *), cmp_str);
    return out;
}

static void free_lines(Lines *l) {
    for (int k = 0; k < l->n; k++) free(l->items[k]);
    free(l->items);
}

static char *join(const Lines *l) {
    size_t n = 1;
    for (int k = 0; k < l->n; k++) n += strlen(l->items[k]) + 2;
    char *s = calloc(n, 1);
    for (int k = 0; k < l->n; k++) strcat(strcat(s, l->items[k]), "; ");
    return s;
}

static void check_file(const char *dir, const char *name) {
    char *path = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(path, "%s/%s", dir, name);
    char *text = read_text(path, NULL);
    cr_assert(text, "cannot read %s", path);
    Lines want = collect(text, "^# expect: (error|warning) (QD[0-9]{4}) ([0-9]+):([0-9]+)[ \t]*$");
    const char *args[] = {"--check", "--color=never", "--error-limit=0", name, NULL};
    RunResult r = run_qdc_argv(args, NULL, dir);
    char pattern[512];
    snprintf(pattern, sizeof pattern, "^%s:([0-9]+):([0-9]+): (error|warning)\\[(QD[0-9]{4})\\]", name);
    Lines raw = collect(r.err, pattern), got = {0};
    for (int k = 0; k < raw.n; k++) { /* "L C KIND CODE" -> "KIND CODE L:C" */
        char l[16], c[16], kind[16], code[16], buf[96];
        sscanf(raw.items[k], "%15s %15s %15[^:]:%15s", l, c, kind, code);
        snprintf(buf, sizeof buf, "%s %s %s:%s", kind, code, l, c);
        add(&got, buf);
    }
    if (got.n) qsort(got.items, (size_t)got.n, sizeof(char *), cmp_str);
    char *w = join(&want), *g = join(&got);
    cr_expect_str_eq(g, w, "%s: diagnostics differ\n  got:  %s\n  want: %s\n  stderr:\n%s", name, g, w, r.err);
    bool want_error = strstr(w, "error ") != NULL;
    cr_expect_eq(r.status, want_error ? 1 : 0, "%s: exit status %d, want %d\n%s", name, r.status, want_error ? 1 : 0, r.err);
    if (!want.n) cr_expect(r.err_len == 0 && r.out_len == 0, "%s: a valid file must compile silently, got:\n%s%s", name, r.out, r.err);
    free(w), free(g), free(text), free(path);
    free_lines(&want), free_lines(&raw), free_lines(&got);
    run_free(&r);
}

Test(frontend_corpus, every_file_gives_exactly_its_expected_diagnostics) {
    char *dir = root_path("testdata/frontend");
    DIR *d = opendir(dir);
    cr_assert(d, "cannot open %s", dir);
    Lines names = {0};
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n > 3 && !strcmp(e->d_name + n - 3, ".qd")) add(&names, e->d_name);
    }
    closedir(d);
    qsort(names.items, (size_t)names.n, sizeof(char *), cmp_str);
    cr_assert_geq(names.n, 40, "the corpus lost files: %d", names.n);
    for (int k = 0; k < names.n; k++) check_file(dir, names.items[k]);
    free_lines(&names);
    free(dir);
}

/* Every example the project ships must pass --check silently. */
Test(frontend_corpus, examples_check_clean) {
    char *dir = root_path("examples");
    DIR *d = opendir(dir);
    cr_assert(d, "cannot open %s", dir);
    int count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n <= 3 || strcmp(e->d_name + n - 3, ".qd")) continue;
        const char *args[] = {"--check", "--color=never", e->d_name, NULL};
        RunResult r = run_qdc_argv(args, NULL, dir);
        cr_expect(r.status == 0 && r.err_len == 0, "examples/%s: status %d\n%s", e->d_name, r.status, r.err);
        run_free(&r);
        count++;
    }
    closedir(d);
    cr_expect_geq(count, 1);
    free(dir);
}
