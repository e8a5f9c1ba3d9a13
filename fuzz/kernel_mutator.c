/* Token-level, structure-aware mutation of Quadrants kernel text (see kernel_mutator.h). The
 * input is split into tokens of a few classes; a mutation replaces, repeats, deletes or swaps
 * whole tokens or lines, so most mutants stay lexically valid and reach the checker and the
 * backends instead of dying in the lexer. Deterministic in the seed (libFuzzer replays). */
#include "kernel_mutator.h"
#include <stdbool.h>
#include <string.h>

typedef enum { K_NAME, K_NUM, K_OP, K_STR, K_SPACE, K_NL, K_OTHER } TokClass;
typedef struct {
    size_t off, len;
    TokClass cls;
} Tok;

#define MAX_TOKS 65536

typedef struct {
    uint32_t s;
} Rng;

static unsigned rnd(Rng *r, unsigned mod) {
    r->s = r->s * 1103515245u + 12345u;
    return mod ? ((r->s >> 8) % mod) : 0;
}

/* Replacement vocabularies: operators (every binary, unary, comparison and augmented form),
 * numbers at the edges of every width (shift counts, zero divisors, 2**31, 2**32 + 5, 2**40),
 * type names, builtins that produce or take values of every type, and postfix tails. */
static const char *const ops[] = {"+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "~",
                                  "<", "<=", ">", ">=", "==", "!=", "+=", "-=", "*=", "//=", "%=", "**=",
                                  "<<=", ">>=", "&=", "|=", "^=", " and ", " or ", " not ", "="};
static const char *const nums[] = {"0", "1", "-1", "2", "3", "7", "31", "32", "33", "63", "64", "65", "255", "256",
                                   "0x7fffffff", "2147483647", "2147483648", "-2147483648", "4294967295",
                                   "4294967301", "2**32 + 5", "2**40", "1 << 40", "9223372036854775807",
                                   "18446744073709551615", "65537", "0.0", "-0.0", "0.5", "1e38", "1e-45",
                                   "2.5", "1e308", "-3.5"};
static const char *const names[] = {"qd.i8", "qd.i16", "qd.i32", "qd.i64", "qd.u8", "qd.u16", "qd.u32",
                                    "qd.u64", "qd.f16", "qd.f32", "qd.f64", "qd.u1", "i", "s", "N",
                                    "qd.sqrt", "qd.floor", "abs", "min", "max", "qd.raw_div", "qd.raw_mod",
                                    "qd.cast", "qd.bit_cast", "qd.select", "qd.static", "range",
                                    "qd.ndrange", "pow", "int", "float", "qd.atomic_add", "qd.atomic_min",
                                    "qd.atomic_cas", "qd.simt.block.sync", "qd.simt.block.thread_idx"};
static const char *const tails[] = {".a", "[0]", "(1)", "[i]", "[None]", ".shape[0]", "[-1]", "[16]"};

#define PICK(r, a) (a)[rnd((r), sizeof(a) / sizeof *(a))]

static bool is_name_ch(unsigned char c) {
    return c == '_' || c == '.' || ((c | 32) >= 'a' && (c | 32) <= 'z') || (c >= '0' && c <= '9') || c >= 0x80;
}

static size_t tokenize(const uint8_t *d, size_t n, Tok *t) {
    size_t k = 0;
    for (size_t i = 0; i < n && k < MAX_TOKS;) {
        size_t j = i + 1;
        TokClass c;
        unsigned char ch = d[i];
        if (ch == '\n') c = K_NL;
        else if (ch == ' ' || ch == '\t' || ch == '\r') {
            while (j < n && (d[j] == ' ' || d[j] == '\t' || d[j] == '\r')) j++;
            c = K_SPACE;
        } else if (ch >= '0' && ch <= '9') {
            while (j < n && (is_name_ch(d[j]) || ((d[j] == '+' || d[j] == '-') && (d[j - 1] | 32) == 'e'))) j++;
            c = K_NUM;
        } else if (is_name_ch(ch)) {
            while (j < n && is_name_ch(d[j])) j++;
            c = K_NAME;
        } else if (ch == '"' || ch == '\'') {
            while (j < n && d[j] != ch && d[j] != '\n') j++;
            if (j < n && d[j] == ch) j++;
            c = K_STR;
        } else if (strchr("+-*/%<>=!&|^~", ch)) {
            while (j < n && j < i + 3 && strchr("*/<>=", d[j])) j++;
            c = K_OP;
        } else c = K_OTHER;
        t[k++] = (Tok){i, j - i, c};
        i = j;
    }
    return k;
}

/* Output builder bounded by max. */
typedef struct {
    uint8_t *p;
    size_t n, max;
    bool full;
} Out;

static void put(Out *o, const void *s, size_t len) {
    if (o->n + len > o->max) {
        o->full = true;
        return;
    }
    memcpy(o->p + o->n, s, len);
    o->n += len;
}
static void puts_(Out *o, const char *s) { put(o, s, strlen(s)); }

/* Index of a random token of class c (or any class when c < 0); n when there is none. */
static size_t pick_tok(Rng *r, const Tok *t, size_t n, int c) {
    if (!n) return 0;
    size_t start = rnd(r, (unsigned)n);
    for (size_t k = 0; k < n; k++) {
        size_t i = (start + k) % n;
        if (c < 0 ? t[i].cls != K_SPACE && t[i].cls != K_NL : (int)t[i].cls == c) return i;
    }
    return n;
}

static Tok toks[MAX_TOKS];
static uint8_t scratch[1 << 20];

size_t kmut_mutate(uint8_t *data, size_t size, size_t max_size, unsigned seed) {
    Rng r = {seed * 2654435761u + 1};
    size_t n = tokenize(data, size, toks);
    if (!n) return 0;
    size_t cap = max_size < sizeof scratch ? max_size : sizeof scratch;
    Out o = {scratch, 0, cap, false};
    unsigned kind = rnd(&r, 9);
    size_t at;
    switch (kind) {
    case 0: at = pick_tok(&r, toks, n, K_OP); break;
    case 1: at = pick_tok(&r, toks, n, K_NUM); break;
    case 2: at = pick_tok(&r, toks, n, K_NAME); break;
    default: at = pick_tok(&r, toks, n, -1); break;
    }
    if (at >= n) return 0;
    const Tok *t = &toks[at];
    put(&o, data, t->off);
    const uint8_t *rest = data + t->off + t->len;
    size_t nrest = size - t->off - t->len;
    switch (kind) {
    case 0: puts_(&o, PICK(&r, ops)); put(&o, rest, nrest); break;                /* operator swap */
    case 1: puts_(&o, PICK(&r, nums)); put(&o, rest, nrest); break;               /* edge numbers */
    case 2:                                                                        /* name: vocabulary or another name */
        if (rnd(&r, 2)) puts_(&o, PICK(&r, names));
        else {
            size_t other = pick_tok(&r, toks, n, K_NAME);
            put(&o, data + toks[other].off, toks[other].len);
        }
        put(&o, rest, nrest);
        break;
    case 3: { /* repeat the token, or a postfix tail, many times (deep chains and long lines) */
        unsigned times = 1u << rnd(&r, 15);
        const char *tail = PICK(&r, tails);
        put(&o, data + t->off, t->len);
        for (unsigned k = 0; k < times && !o.full; k++) puts_(&o, tail);
        put(&o, rest, nrest);
        break;
    }
    case 4: put(&o, rest, nrest); break; /* delete the token */
    case 5: { /* insert an operator and an operand after the token */
        put(&o, data + t->off, t->len);
        puts_(&o, " "), puts_(&o, PICK(&r, ops)), puts_(&o, " "), puts_(&o, PICK(&r, rnd(&r, 2) ? nums : names));
        put(&o, rest, nrest);
        break;
    }
    case 6: { /* wrap the token in a cast or a builtin call */
        puts_(&o, PICK(&r, names)), puts_(&o, "(");
        put(&o, data + t->off, t->len);
        puts_(&o, ")");
        put(&o, rest, nrest);
        break;
    }
    case 7: { /* duplicate the line the token is on (statement repetition, redefinitions) */
        size_t ls = t->off, le = t->off;
        while (ls > 0 && data[ls - 1] != '\n') ls--;
        while (le < size && data[le] != '\n') le++;
        o.n = 0;
        put(&o, data, le < size ? le + 1 : le);
        if (le == size) puts_(&o, "\n");
        put(&o, data + ls, le - ls), puts_(&o, "\n");
        if (le < size) put(&o, data + le + 1, size - le - 1);
        break;
    }
    default: { /* splice: the token replaced by another token of the input */
        size_t other = pick_tok(&r, toks, n, -1);
        put(&o, data + toks[other].off, toks[other].len);
        put(&o, rest, nrest);
        break;
    }
    }
    if (o.full || o.n == 0) return 0;
    memcpy(data, scratch, o.n);
    return o.n;
}
