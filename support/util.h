/* Small helpers every layer uses: checked allocation, internal-error exits, growable buffers
 * and a bump arena. Internal errors name __FILE__:__LINE__ and exit with status 3. */
#ifndef QDC_UTIL_H
#define QDC_UTIL_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h> /* free() in vec_free */

#define QDC_EXIT_OK 0
#define QDC_EXIT_INPUT 1    /* the input has errors */
#define QDC_EXIT_USAGE 2    /* bad command line */
#define QDC_EXIT_INTERNAL 3 /* a bug in qdc, or a tool qdc runs failed unexpectedly */

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

_Noreturn void qdc_die_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define die(...) qdc_die_at(__FILE__, __LINE__, __VA_ARGS__)
#define unreachable() die("unreachable")
/* Where internal errors go instead of plain text (the diagnostics engine in JSON/SARIF mode). */
void set_internal_error_reporter(void (*report)(const char *message));

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Growable byte buffer; always NUL-terminated after any append. */
typedef struct {
    char *data;
    size_t len, cap;
} StrBuf;
void sb_init(StrBuf *b);
void sb_free(StrBuf *b);
void sb_reserve(StrBuf *b, size_t extra);
void sb_append(StrBuf *b, const void *data, size_t n);
void sb_puts(StrBuf *b, const char *s);
void sb_putc(StrBuf *b, char c);
void sb_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap);
char *sb_take(StrBuf *b);                      /* hands the buffer over; b is reset */

/* Growable array of pointer-sized or struct elements: VEC(T) v = {0}; vec_push(&v, x); */
#define VEC(T) struct { T *items; int len, cap; }
#define vec_push(v, x)                                                                   \
    do {                                                                                 \
        if ((v)->len == (v)->cap) {                                                      \
            (v)->cap = (v)->cap ? (v)->cap * 2 : 8;                                      \
            (v)->items = xrealloc((v)->items, (size_t)(v)->cap * sizeof(*(v)->items));   \
        }                                                                                \
        (v)->items[(v)->len++] = (x);                                                    \
    } while (0)
#define vec_free(v) (free((v)->items), (v)->items = NULL, (v)->len = (v)->cap = 0)

/* Bump arena: one per compilation (AST, IR, strings); freed all at once. */
typedef struct ArenaBlock ArenaBlock;
typedef struct {
    ArenaBlock *head;
    size_t total;
} Arena;
void *arena_alloc(Arena *a, size_t n); /* zeroed, 16-byte aligned */
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void arena_free(Arena *a);
bool arena_contains(const Arena *a, const void *p); /* p points into one of a's blocks */
void arena_absorb(Arena *into, Arena *from);        /* from's blocks become into's; from is left empty */
bool arena_one_block(const Arena *a, const void **lo, const void **hi); /* a has one block: its bytes [lo, hi) */
void arena_reset(Arena *a); /* empty again, its newest block kept for what comes next */
#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))
/* Edit distance for "did you mean": Levenshtein (insert, delete, substitute: cost 1) plus adjacent
 * transpositions (cost 1); a difference of case only costs 0. Capped at cap + 1. */
int edit_distance(const char *a, const char *b, int cap);
/* The candidate nearest to name for a "did you mean" hint: one that abbreviates it part by part
 * ("acq_rel" for "acquire_release"), else distance <= 1 for names of up to 4 characters, else
 * <= 2 (and less than the name's length); ties go to the first. NULL if none. Every suggestion
 * (options, targets, warnings, capabilities, builtins, names, memory orders) comes from here. */
const char *closest_name(const char *name, const char *const *cands, int n);
/* Writes s to out with control characters escaped (\t, \n, \r, \e, other bytes below 0x20 and
 * 0x7f as \xHH), so text read from a file (a capability description) cannot drive a terminal. */
void fput_printable(const char *s, FILE *out);
#endif
