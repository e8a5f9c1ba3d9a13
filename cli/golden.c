/* Golden-directory check (see golden.h) and a small unified-diff writer: common prefix and
 * suffix trimmed, an LCS table over the rest (bounded; past the bound the rest is shown as
 * replaced), hunks with 3 lines of context as `diff -u` prints them. */
#include "golden.h"
#include "../support/fileio.h"
#include <string.h>

typedef struct {
    const char **p; /* line starts */
    size_t *len;    /* line lengths, including the '\n' if any */
    size_t n;
} Lines;

static Lines split_lines(const char *s, size_t len) {
    Lines l = {0};
    size_t cap = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && s[j] != '\n') j++;
        if (j < len) j++;
        if (l.n == cap) {
            cap = cap ? cap * 2 : 64;
            l.p = xrealloc(l.p, cap * sizeof *l.p), l.len = xrealloc(l.len, cap * sizeof *l.len);
        }
        l.p[l.n] = s + i, l.len[l.n++] = j - i;
        i = j;
    }
    return l;
}

static bool same(const Lines *a, size_t i, const Lines *b, size_t j) {
    return a->len[i] == b->len[j] && !memcmp(a->p[i], b->p[j], a->len[i]);
}

/* The edit script: ' ' (both), '-' (a only), '+' (b only), in order. */
static char *edit_script(const Lines *a, const Lines *b, size_t *nops) {
    size_t pre = 0, suf = 0;
    while (pre < a->n && pre < b->n && same(a, pre, b, pre)) pre++;
    while (suf < a->n - pre && suf < b->n - pre && same(a, a->n - 1 - suf, b, b->n - 1 - suf)) suf++;
    size_t n = a->n - pre - suf, m = b->n - pre - suf, k = 0;
    char *ops = xmalloc(a->n + b->n + 1);
    memset(ops, ' ', pre), k = pre;
    if (n && m && n * m <= (size_t)4 << 20) {
        unsigned *t = xcalloc((n + 1) * (m + 1), sizeof *t); /* t[i][j]: LCS of a[i..], b[j..] */
#define T(i, j) t[(i) * (m + 1) + (j)]
        for (size_t i = n; i-- > 0;)
            for (size_t j = m; j-- > 0;)
                T(i, j) = same(a, pre + i, b, pre + j) ? T(i + 1, j + 1) + 1 : T(i + 1, j) > T(i, j + 1) ? T(i + 1, j) : T(i, j + 1);
        size_t i = 0, j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && same(a, pre + i, b, pre + j)) ops[k++] = ' ', i++, j++;
            else if (i < n && (j == m || T(i + 1, j) >= T(i, j + 1))) ops[k++] = '-', i++; /* '-' first, as diff -u */
            else ops[k++] = '+', j++;
        }
#undef T
        free(t);
    } else {
        memset(ops + k, '-', n), k += n;
        memset(ops + k, '+', m), k += m;
    }
    memset(ops + k, ' ', suf), k += suf;
    *nops = k;
    return ops;
}

static void put_line(StrBuf *out, char mark, const char *p, size_t len) {
    sb_putc(out, mark);
    sb_append(out, p, len);
    if (!len || p[len - 1] != '\n') sb_puts(out, "\n\\ No newline at end of file\n");
}

void unified_diff(StrBuf *out, const char *a_name, const char *a, size_t alen, const char *b_name, const char *b,
                  size_t blen) {
    if (alen == blen && !memcmp(a, b, alen)) return;
    Lines la = split_lines(a, alen), lb = split_lines(b, blen);
    size_t nops;
    char *ops = edit_script(&la, &lb, &nops);
    sb_printf(out, "--- %s\n+++ %s\n", a_name, b_name);
    const size_t ctx = 3;
    size_t k = 0, ai = 0, bi = 0; /* position in ops and in each file */
    while (k < nops) {
        size_t first = k;
        while (first < nops && ops[first] == ' ') first++;
        if (first == nops) break;
        size_t start = first > ctx + k ? first - ctx : k, last = first;
        for (size_t q = first; q < nops && q <= last + 2 * ctx + 1; q++) /* changes this close share a hunk */
            if (ops[q] != ' ') last = q;
        size_t end = last + 1 + ctx < nops ? last + 1 + ctx : nops;
        for (; k < start; k++) ai++, bi++; /* ops[k] == ' ' here */
        size_t as = ai, bs = bi, an = 0, bn = 0;
        for (size_t q = start; q < end; q++) an += ops[q] != '+', bn += ops[q] != '-';
        sb_printf(out, "@@ -%zu,%zu +%zu,%zu @@\n", an ? as + 1 : as, an, bn ? bs + 1 : bs, bn);
        for (; k < end; k++) {
            if (ops[k] == ' ') put_line(out, ' ', la.p[ai], la.len[ai]), ai++, bi++;
            else if (ops[k] == '-') put_line(out, '-', la.p[ai], la.len[ai]), ai++;
            else put_line(out, '+', lb.p[bi], lb.len[bi]), bi++;
        }
    }
    free(ops), free(la.p), free(la.len), free(lb.p), free(lb.len);
}

int golden_check(const GoldenFile *files, int n, FILE *out) {
    int differ = 0;
    for (int i = 0; i < n; i++) {
        char *old = NULL;
        size_t len = 0;
        int err = 0;
        const StrBuf *now = files[i].data;
        if (read_file(files[i].path, (size_t)1 << 30, &old, &len, &err) != READ_OK) {
            fprintf(out, "qdc: golden file '%s' is missing (run without --golden-check to write it)\n", files[i].path);
            differ++;
            continue;
        }
        StrBuf d;
        sb_init(&d);
        char *cur = xasprintf("%s (now)", files[i].path);
        unified_diff(&d, files[i].path, old, len, cur, now->data ? now->data : "", now->len);
        if (d.len) fwrite(d.data, 1, d.len, out), differ++;
        free(cur), free(old), sb_free(&d);
    }
    return differ;
}
