/* Checked allocation, internal-error exits, StrBuf and the bump arena. */
#include "util.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void (*internal_reporter)(const char *message);
static bool dying; /* an internal error (or no memory) while reporting one is reported as text */

void set_internal_error_reporter(void (*report)(const char *message)) { internal_reporter = report; }

_Noreturn void qdc_die_at(const char *file, int line, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof msg) snprintf(msg + n, sizeof msg - (size_t)n, " [%s:%d]", file, line);
    if (internal_reporter && !dying) {
        dying = true;
        internal_reporter(msg);
    } else {
        fprintf(stderr, "qdc: internal error: %s\nqdc: this is a bug in qdc; please report it with the input that "
                        "triggered it\n", msg);
    }
    exit(QDC_EXIT_INTERNAL);
}

static void *check(void *p) {
    if (!p) {
        if (internal_reporter && !dying) dying = true, internal_reporter("out of memory");
        else fputs("qdc: error: out of memory\n", stderr);
        exit(QDC_EXIT_INTERNAL);
    }
    return p;
}
void *xmalloc(size_t n) { return check(malloc(n ? n : 1)); }
void *xcalloc(size_t n, size_t size) { return check(calloc(n ? n : 1, size ? size : 1)); }
void *xrealloc(void *p, size_t n) { return check(realloc(p, n ? n : 1)); }
char *xstrdup(const char *s) { return check(strdup(s)); }
char *xstrndup(const char *s, size_t n) { return check(strndup(s, n)); }
char *xasprintf(const char *fmt, ...) {
    StrBuf b;
    sb_init(&b);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&b, fmt, ap);
    va_end(ap);
    return sb_take(&b);
}

void sb_init(StrBuf *b) { b->data = NULL, b->len = b->cap = 0; }
void sb_free(StrBuf *b) { free(b->data), sb_init(b); }
void sb_reserve(StrBuf *b, size_t extra) {
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) cap *= 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}
void sb_append(StrBuf *b, const void *data, size_t n) {
    sb_reserve(b, n);
    if (n) memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = 0;
}
void sb_puts(StrBuf *b, const char *s) { sb_append(b, s, strlen(s)); }
void sb_putc(StrBuf *b, char c) { sb_append(b, &c, 1); }
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) die("vsnprintf failed");
    sb_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}
void sb_printf(StrBuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}
char *sb_take(StrBuf *b) {
    if (!b->data) sb_reserve(b, 0), b->data[0] = 0;
    char *s = b->data;
    sb_init(b);
    return s;
}

struct ArenaBlock {
    ArenaBlock *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};
void *arena_alloc(Arena *a, size_t n) {
    n = (n + 15) & ~(size_t)15;
    ArenaBlock *b = a->head;
    if (!b || b->used + n > b->cap) {
        size_t cap = n > 65536 ? n : 65536;
        b = xmalloc(sizeof(ArenaBlock) + cap);
        b->next = a->head, b->used = 0, b->cap = cap;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    a->total += n;
    memset(p, 0, n);
    return p;
}
char *arena_strndup(Arena *a, const char *s, size_t n) {
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}
char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }
char *arena_printf(Arena *a, const char *fmt, ...) {
    StrBuf b;
    sb_init(&b);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&b, fmt, ap);
    va_end(ap);
    char *s = arena_strndup(a, b.data ? b.data : "", b.len);
    sb_free(&b);
    return s;
}
void arena_free(Arena *a) {
    for (ArenaBlock *b = a->head, *next; b; b = next) next = b->next, free(b);
    a->head = NULL, a->total = 0;
}
bool arena_contains(const Arena *a, const void *p) {
    for (const ArenaBlock *b = a->head; b; b = b->next)
        if ((const unsigned char *)p >= b->data && (const unsigned char *)p < b->data + b->cap) return true;
    return false;
}
bool arena_one_block(const Arena *a, const void **lo, const void **hi) {
    if (!a->head || a->head->next) return false;
    *lo = a->head->data, *hi = a->head->data + a->head->cap;
    return true;
}
void arena_reset(Arena *a) {
    if (!a->head) return;
    for (ArenaBlock *b = a->head->next, *next; b; b = next) next = b->next, free(b);
    a->head->next = NULL, a->head->used = 0, a->total = 0;
}
/* into keeps allocating in its own head block: from's blocks go behind it. */
void arena_absorb(Arena *into, Arena *from) {
    if (!from->head) return;
    ArenaBlock *last = from->head;
    while (last->next) last = last->next;
    if (into->head) last->next = into->head->next, into->head->next = from->head;
    else into->head = from->head;
    into->total += from->total;
    from->head = NULL, from->total = 0;
}

/* Optimal-string-alignment distance: Levenshtein (insert, delete, substitute) plus adjacent
 * transpositions, each cost 1; letters differing only in case cost nothing, so "SM_90" finds
 * "sm_90". Capped at cap + 1 (stops early). */
int edit_distance(const char *a, const char *b, int cap) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) return cap + 1;
    if ((la > lb ? la - lb : lb - la) > (size_t)cap) return cap + 1;
    int rows[3][65], *pp = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++) prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int best = cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int v = prev[j - 1] + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            if (prev[j] + 1 < v) v = prev[j] + 1;
            if (cur[j - 1] + 1 < v) v = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v) v = pp[j - 2] + 1;
            cur[j] = v;
            if (v < best) best = v;
        }
        if (best > cap) return cap + 1;
        int *t = pp;
        pp = prev, prev = cur, cur = t;
    }
    return prev[lb] > cap ? cap + 1 : prev[lb];
}

/* True when name abbreviates word part by part: "acq_rel" for "acquire_release". */
static bool abbreviates(const char *name, const char *word) {
    if (!strchr(name, '_')) return false;
    for (;;) {
        size_t a = strcspn(name, "_"), b = strcspn(word, "_");
        if (!a || a > b || strncasecmp(name, word, a)) return false;
        if (!name[a] || !word[b]) return !name[a] && !word[b];
        name += a + 1, word += b + 1;
    }
}

const char *closest_name(const char *name, const char *const *cands, int n) {
    for (int k = 0; k < n; k++)
        if (cands[k] && strcmp(name, cands[k]) && abbreviates(cands[k], name)) return cands[k];
    int len = (int)strlen(name), cap = len <= 4 ? 1 : 2, best = cap + 1;
    const char *pick = NULL;
    for (int k = 0; k < n; k++) {
        if (!cands[k] || !strcmp(name, cands[k])) continue;
        int d = edit_distance(name, cands[k], cap);
        if (d < best && d < len) best = d, pick = cands[k];
    }
    return pick;
}

void fput_printable(const char *s, FILE *out) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p >= 0x20 && *p != 0x7f) fputc(*p, out);
        else if (*p == '\t') fputs("\\t", out);
        else if (*p == '\n') fputs("\\n", out);
        else if (*p == '\r') fputs("\\r", out);
        else if (*p == 0x1b) fputs("\\e", out);
        else fprintf(out, "\\x%02x", *p);
    }
}
