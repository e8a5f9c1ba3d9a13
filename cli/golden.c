/* Golden-directory check (see golden.h) and a unified-diff writer: a shortest edit script by
 * Myers' O(ND) algorithm in linear space (the middle snake, divide and conquer), hunks with 3
 * lines of context as `diff -u` prints them. */
#include "golden.h"
#include "../support/fileio.h"
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    const char **p;  /* line starts */
    size_t *len;     /* line lengths, including the '\n' if any */
    unsigned *hash;
    size_t n;
} Lines;

static Lines split_lines(const char *s, size_t len) {
    Lines l = {0};
    size_t cap = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        unsigned h = 2166136261u; /* FNV-1a: most unequal lines differ in their hash */
        while (j < len && s[j] != '\n') h = (h ^ (unsigned char)s[j++]) * 16777619u;
        if (j < len) j++;
        if (l.n == cap) {
            cap = cap ? cap * 2 : 64;
            l.p = xrealloc(l.p, cap * sizeof *l.p), l.len = xrealloc(l.len, cap * sizeof *l.len);
            l.hash = xrealloc(l.hash, cap * sizeof *l.hash);
        }
        l.p[l.n] = s + i, l.len[l.n] = j - i, l.hash[l.n++] = h;
        i = j;
    }
    return l;
}

static int cmp_str(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

static bool same(const Lines *a, size_t i, const Lines *b, size_t j) {
    return a->hash[i] == b->hash[j] && a->len[i] == b->len[j] && !memcmp(a->p[i], b->p[j], a->len[i]);
}

/* The comparison state: the two files, the furthest-reaching x on each diagonal k = x - y of
 * the forward and backward searches (indexed k + off), and the lines each side loses or gains. */
typedef struct {
    const Lines *a, *b;
    long *fd, *bd, off;
    bool *del, *ins;
} Cmp;

/* Finds a middle snake of a[xl..xh) against b[yl..yh) (both non-empty): a point (x, y) on a
 * shortest edit path, found where the forward and backward searches meet. */
static void middle_snake(Cmp *c, long xl, long xh, long yl, long yh, long *xm, long *ym) {
    long *fd = c->fd + c->off, *bd = c->bd + c->off;
    long dmin = xl - yh, dmax = xh - yl, fmid = xl - yl, bmid = xh - yh;
    long fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid;
    bool odd = (fmid - bmid) & 1;
    fd[fmid] = xl, bd[bmid] = xh;
    for (;;) {
        if (fmin > dmin) fd[--fmin - 1] = -1;
        else ++fmin;
        if (fmax < dmax) fd[++fmax + 1] = -1;
        else --fmax;
        for (long k = fmax; k >= fmin; k -= 2) {
            long x = fd[k - 1] >= fd[k + 1] ? fd[k - 1] + 1 : fd[k + 1], y = x - k;
            while (x < xh && y < yh && same(c->a, (size_t)x, c->b, (size_t)y)) x++, y++;
            fd[k] = x;
            if (odd && bmin <= k && k <= bmax && bd[k] <= x) {
                *xm = x, *ym = y;
                return;
            }
        }
        if (bmin > dmin) bd[--bmin - 1] = LONG_MAX;
        else ++bmin;
        if (bmax < dmax) bd[++bmax + 1] = LONG_MAX;
        else --bmax;
        for (long k = bmax; k >= bmin; k -= 2) {
            long x = bd[k - 1] < bd[k + 1] ? bd[k - 1] : bd[k + 1] - 1, y = x - k;
            while (x > xl && y > yl && same(c->a, (size_t)x - 1, c->b, (size_t)y - 1)) x--, y--;
            bd[k] = x;
            if (!odd && fmin <= k && k <= fmax && x <= fd[k]) {
                *xm = x, *ym = y;
                return;
            }
        }
    }
}

/* Marks the lines of a[xl..xh) deleted and of b[yl..yh) inserted by a shortest edit script. */
static void compare(Cmp *c, long xl, long xh, long yl, long yh) {
    while (xl < xh && yl < yh && same(c->a, (size_t)xl, c->b, (size_t)yl)) xl++, yl++;
    while (xl < xh && yl < yh && same(c->a, (size_t)xh - 1, c->b, (size_t)yh - 1)) xh--, yh--;
    if (xl == xh) {
        while (yl < yh) c->ins[yl++] = true;
    } else if (yl == yh) {
        while (xl < xh) c->del[xl++] = true;
    } else {
        long xm, ym;
        middle_snake(c, xl, xh, yl, yh, &xm, &ym);
        compare(c, xl, xm, yl, ym);
        compare(c, xm, xh, ym, yh);
    }
}

/* The edit script: ' ' (both), '-' (a only), '+' (b only), in order; in each changed run the
 * deletions come first, as diff -u prints them. */
static char *edit_script(const Lines *a, const Lines *b, size_t *nops) {
    size_t n = a->n, m = b->n, k = 0;
    Cmp c = {a, b, xcalloc(n + m + 3, sizeof(long)), xcalloc(n + m + 3, sizeof(long)), (long)m + 1,
             xcalloc(n + 1, sizeof(bool)), xcalloc(m + 1, sizeof(bool))};
    compare(&c, 0, (long)n, 0, (long)m);
    char *ops = xmalloc(n + m + 1);
    for (size_t i = 0, j = 0; i < n || j < m;) {
        if (i < n && c.del[i]) ops[k++] = '-', i++;
        else if (j < m && c.ins[j]) ops[k++] = '+', j++;
        else ops[k++] = ' ', i++, j++;
    }
    free(c.fd), free(c.bd), free(c.del), free(c.ins);
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
    free(ops), free(la.p), free(la.len), free(la.hash), free(lb.p), free(lb.len), free(lb.hash);
}

/* A numeric id at p ("%17" followed by no name character), its number in *id; else 0 chars. */
static size_t numeric_id(const char *p, const char *end, unsigned long *id) {
    if (p[0] != '%' || p + 1 >= end || p[1] < '0' || p[1] > '9') return 0;
    size_t n = 1;
    unsigned long v = 0;
    for (; p + n < end && p[n] >= '0' && p[n] <= '9'; n++) v = v < 100000000ul ? v * 10 + (unsigned long)(p[n] - '0') : v;
    char c = p + n < end ? p[n] : ' ';
    if (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return 0;
    return *id = v, n;
}

/* The opcode of a disassembly line: "%x = OpFoo ..." or "OpFoo ...". */
static bool line_is_op(const char *p, const char *end, const char *op) {
    while (p < end && *p == ' ') p++;
    if (p < end && *p == '%') {
        while (p < end && *p != ' ') p++;
        while (p < end && (*p == ' ' || *p == '=')) p++;
    }
    size_t n = strlen(op);
    return (size_t)(end - p) >= n && !memcmp(p, op, n) && (p + n == end || p[n] == ' ' || p[n] == '\n');
}

/* New numbers of ids, indexed by id (a module's ids are below its bound); an entry counts only
 * when its stamp is the table's current one, so a function's table is emptied in O(1). Ids from
 * ID_DIRECT up (no module qdc writes has that many) keep their number. */
enum { ID_DIRECT = 1 << 22 };
typedef struct {
    unsigned *num, *stamp, cur, next;
    size_t cap;
} IdTab;

static unsigned *id_slot(IdTab *t, unsigned long id) {
    if (id >= ID_DIRECT) return NULL;
    if (id >= t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap <= id) cap *= 2;
        t->num = xrealloc(t->num, cap * sizeof *t->num), t->stamp = xrealloc(t->stamp, cap * sizeof *t->stamp);
        memset(t->stamp + t->cap, 0, (cap - t->cap) * sizeof *t->stamp);
        t->cap = cap;
    }
    return t->stamp[id] == t->cur ? &t->num[id] : (t->stamp[id] = t->cur, t->num[id] = 0, &t->num[id]);
}

void spirv_stable_ids(const char *text, size_t len, StrBuf *out) {
    IdTab global = {.cur = 1}, local = {.cur = 1};
    bool in_function = false;
    const char *end = text + len;
    for (const char *line = text; line < end;) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        eol = eol ? eol + 1 : end;
        if (eol - line >= 8 && !memcmp(line, "; Bound:", 8)) { /* the id bound moves with every new id */
            line = eol;
            continue;
        }
        bool opens = line_is_op(line, eol, "OpFunction"); /* its own ids (function, type) are module-level */
        size_t start = out->len, pad = 0, width = 0; /* "%id = " keeps the column of its "=" */
        while (line + pad < eol && line[pad] == ' ') pad++;
        if (pad && line + pad < eol && line[pad] == '%')
            for (width = pad; line + width < eol && line[width] != ' '; width++) {}
        for (const char *p = line + pad; p < eol;) {
            unsigned long id;
            size_t n = numeric_id(p, eol, &id);
            unsigned *g = n ? id_slot(&global, id) : NULL, *l = g && !*g && in_function ? id_slot(&local, id) : NULL;
            if (!g) {
                sb_putc(out, *p++);
                continue;
            }
            if (l) sb_printf(out, "%%%u", *l ? *l : (*l = ++local.next));
            else sb_printf(out, "%%g%u", *g ? *g : (*g = ++global.next));
            p += n;
        }
        size_t tok = 0, at = width ? 0 : pad; /* the result id's new length; spaces to put before the line */
        while (start + tok < out->len && out->data[start + tok] != ' ') tok++;
        if (width) at = tok < width ? width - tok : 0;
        sb_reserve(out, at);
        memmove(out->data + start + at, out->data + start, out->len - start);
        memset(out->data + start, ' ', at), out->len += at, out->data[out->len] = 0;
        if (opens) in_function = true, local.cur++, local.next = 0;
        if (line_is_op(line, eol, "OpFunctionEnd")) in_function = false;
        line = eol;
    }
    free(global.num), free(global.stamp), free(local.num), free(local.stamp);
}

/* Reads a golden file as the capability loader reads YAML: a regular file (a FIFO or device is
 * never opened, so nothing blocks) of at most GOLDEN_MAX_BYTES; otherwise one line saying why. */
static bool read_golden(const char *path, char **text, size_t *len, FILE *out) {
    struct stat st;
    int err = 0;
    ReadStatus rs = READ_ERRNO;
    if (stat(path, &st)) err = errno, rs = errno == ENOENT ? READ_NOENT : READ_ERRNO;
    else if (S_ISDIR(st.st_mode)) rs = READ_ISDIR;
    else if (!S_ISREG(st.st_mode)) err = 0;
    else if ((unsigned long long)st.st_size > GOLDEN_MAX_BYTES) rs = READ_TOO_LARGE;
    else rs = read_file(path, GOLDEN_MAX_BYTES, text, len, &err);
    switch (rs) {
    case READ_OK: return true;
    case READ_NOENT: fprintf(out, "qdc: golden file '%s' is missing (run without --golden-check to write it)\n", path); break;
    case READ_ISDIR: fprintf(out, "qdc: golden file '%s' is a directory, not a regular file\n", path); break;
    case READ_TOO_LARGE:
        fprintf(out, "qdc: golden file '%s' is larger than the %u MiB limit\n", path, GOLDEN_MAX_BYTES >> 20);
        break;
    default:
        if (err) fprintf(out, "qdc: cannot read golden file '%s': %s\n", path, strerror(err));
        else fprintf(out, "qdc: golden file '%s' is not a regular file\n", path);
        break;
    }
    return false;
}

int golden_check(const GoldenFile *files, int n, FILE *out) {
    int differ = 0;
    for (int i = 0; i < n; i++) {
        char *old = NULL;
        size_t len = 0;
        const StrBuf *now = files[i].data;
        if (!read_golden(files[i].path, &old, &len, out)) {
            differ++;
            continue;
        }
        if (files[i].spirv) { /* an older golden file may hold the raw numbering */
            StrBuf st;
            sb_init(&st);
            spirv_stable_ids(old, len, &st);
            free(old), len = st.len, old = sb_take(&st);
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

int golden_stale(const char *dir, const char *module, const char *const *built, int nbuilt, FILE *out) {
    DIR *d = opendir(dir);
    int stale = 0;
    VEC(char *) names = {0};
    for (struct dirent *e; d && (e = readdir(d));) {
        bool known = e->d_name[0] == '.';
        for (int i = 0; i < nbuilt && !known; i++) known = !strcmp(e->d_name, built[i]);
        char *report = known ? NULL : xasprintf("%s/%s/%s.lowering.txt", dir, e->d_name, module);
        struct stat st;
        if (report && !lstat(report, &st) && S_ISREG(st.st_mode)) vec_push(&names, xstrdup(e->d_name));
        free(report);
    }
    if (d) closedir(d);
    if (names.len) qsort(names.items, (size_t)names.len, sizeof *names.items, cmp_str); /* readdir's order is the file system's */
    for (int i = 0; i < names.len; i++, stale++) {
        fprintf(out, "qdc: note: golden directory '%s/%s' holds %s outputs for family '%s', which this run does not "
                     "build (add --target=%s, or delete the directory)\n", dir, names.items[i], module, names.items[i],
                names.items[i]);
        free(names.items[i]);
    }
    free(names.items);
    return stale;
}
