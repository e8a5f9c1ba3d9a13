/* The lexer: validates the input bytes (UTF-8, NUL, empty) and turns Python's layout rules
 * (indentation, brackets, backslash continuation, comments, tab/space consistency) into
 * NEWLINE/INDENT/DEDENT tokens; decodes numeric and string literals. */
#include "lex.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const spellings[T_COUNT] = {
    [T_EOF] = "end of file", [T_NEWLINE] = "end of line", [T_INDENT] = "indent",
    [T_DEDENT] = "dedent", [T_NAME] = "name", [T_INT] = "integer literal",
    [T_FLOAT] = "float literal", [T_IMAG] = "imaginary literal", [T_STRING] = "string literal",
#define X(e, s) [T_##e] = s,
#include "tokens.def"
#undef X
};

const char *tok_spelling(TokKind k) { return k < T_COUNT ? spellings[k] : "?"; }

typedef struct {
    const Source *src;
    Arena *arena;
    const char *p, *end;
    VEC(Token) toks;
    uint32_t open[QDL_MAX_NESTING]; /* offsets of the open brackets */
    char open_ch[QDL_MAX_NESTING];
    int depth;
    int indent[QDL_MAX_INDENT + 1], alt[QDL_MAX_INDENT + 1]; /* tab=8 and tab=1 columns */
    int nindent;
    bool fatal;
} Lexer;

static uint32_t off_of(Lexer *L, const char *p) { return (uint32_t)(p - L->src->text); }
static Span span_at(Lexer *L, const char *p, size_t n) { return span_make(L->src, off_of(L, p), (uint32_t)n); }

static Token *push(Lexer *L, TokKind k, const char *start, const char *end) {
    Token t = {0};
    t.kind = k;
    t.off = off_of(L, start);
    t.len = (uint32_t)(end - start);
    vec_push(&L->toks, t);
    return &L->toks.items[L->toks.len - 1];
}

/* ---- byte validation ---- */

/* Length of the UTF-8 sequence at p (1..4), or 0 if it is malformed. */
static int utf8_len(const unsigned char *p, const unsigned char *end) {
    if (p[0] < 0x80) return 1;
    int n = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 && p[0] < 0xE0 ? 2 : 0;
    if (!n || end - p < n) return 0;
    for (int k = 1; k < n; k++)
        if ((p[k] & 0xC0) != 0x80) return 0;
    if (n == 3 && p[0] == 0xE0 && p[1] < 0xA0) return 0; /* overlong */
    if (n == 3 && p[0] == 0xED && p[1] >= 0xA0) return 0; /* surrogate */
    if (n == 4 && p[0] == 0xF0 && p[1] < 0x90) return 0;
    if (n == 4 && p[0] == 0xF4 && p[1] >= 0x90) return 0;
    return n;
}

/* U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069 (a sequence of n bytes at p), or 0. */
static unsigned bidi_control(const unsigned char *p, int n) {
    if (n == 2 && p[0] == 0xD8 && p[1] == 0x9C) return 0x061C;
    if (n != 3 || p[0] != 0xE2 || (p[1] != 0x80 && p[1] != 0x81)) return 0;
    unsigned cp = 0x2000u | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
    return cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) ? cp : 0;
}

static bool validate_bytes(const Source *src) {
    const unsigned char *p = (const unsigned char *)src->text, *end = p + src->len;
    bool blank = true;
    for (const unsigned char *q = p; q < end;) {
        if (*q == 0) {
            diag_error(span_make(src, (uint32_t)(q - p), 1), QD1003, "the input contains a NUL byte; is it a binary file?");
            return false;
        }
        int n = utf8_len(q, end);
        if (!n) {
            diag_error(span_make(src, (uint32_t)(q - p), 1), QD1002, "invalid UTF-8 byte 0x%02X; kernel files must be UTF-8", *q);
            return false;
        }
        if (*q != ' ' && *q != '\t' && *q != '\n' && *q != '\r' && *q != '\f') blank = false;
        unsigned bidi = bidi_control(q, n);
        if (bidi) /* rustc's text_direction_codepoint lint and gcc's -Wbidi-chars */
            diag_warning(span_make(src, (uint32_t)(q - p), (uint32_t)n), QD2190,
                         "Unicode bidirectional control U+%04X: the source may display differently from how it "
                         "is compiled (Trojan Source, CVE-2021-42574)", bidi);
        q += n;
    }
    if (blank) {
        diag_error(span_make(src, 0, 0), QD1004, "the input is empty; expected 'import quadrants as qd' and kernels");
        return false;
    }
    return true;
}

/* ---- layout ---- */

static bool is_newline(const char *p, const char *end) { return p < end && (*p == '\n' || *p == '\r'); }
static const char *skip_newline(const char *p, const char *end) {
    if (*p == '\r' && p + 1 < end && p[1] == '\n') return p + 2;
    return p + 1;
}

/* At the start of a line outside brackets: measure indentation, skip blank and comment-only
 * lines, and emit INDENT/DEDENT tokens. Returns false at end of input. */
static bool begin_line(Lexer *L) {
    for (;;) {
        int col = 0, alt = 0;
        const char *p = L->p;
        while (p < L->end && (*p == ' ' || *p == '\t' || *p == '\f')) {
            if (*p == ' ') col++, alt++;
            else if (*p == '\t') col = (col / 8 + 1) * 8, alt++;
            else col = alt = 0; /* form feed resets, as in Python */
            p++;
        }
        if (p < L->end && *p == '#')
            while (p < L->end && !is_newline(p, L->end)) p++;
        if (p < L->end && *p == '\\' && is_newline(p + 1, L->end)) { /* a lone continuation */
            L->p = skip_newline(p + 1, L->end);
            continue;
        }
        if (p >= L->end) return L->p = p, false;
        if (is_newline(p, L->end)) {
            L->p = skip_newline(p, L->end);
            continue;
        }
        L->p = p;
        int top = L->indent[L->nindent], topalt = L->alt[L->nindent];
        if ((col > top) != (alt > topalt) || (col == top) != (alt == topalt)) {
            diag_error(span_at(L, p, 1), QD1006, "inconsistent use of tabs and spaces in indentation");
            return true;
        }
        if (col > top) {
            if (L->nindent == QDL_MAX_INDENT) {
                diag_error(span_at(L, p, 1), QD1007, "too many indentation levels (limit %d)", QDL_MAX_INDENT);
                L->fatal = true;
                return false;
            }
            L->nindent++;
            L->indent[L->nindent] = col, L->alt[L->nindent] = alt;
            push(L, T_INDENT, p, p);
        }
        while (L->nindent > 0 && col < L->indent[L->nindent]) {
            L->nindent--;
            push(L, T_DEDENT, p, p);
        }
        if (col != L->indent[L->nindent]) {
            diag_error(span_at(L, p, 1), QD1005, "unindent does not match any outer indentation level");
            if (L->nindent > 0) L->indent[L->nindent] = col, L->alt[L->nindent] = alt;
        }
        return true;
    }
}

/* ---- literals ---- */

static bool is_digit_of(char c, int base) {
    if (base == 16) return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    return c >= '0' && c < '0' + base;
}
static bool is_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Copies the digits of [p, end) without underscores; false if an underscore is misplaced. */
static bool strip_underscores(const char *p, const char *end, char *out, size_t cap) {
    size_t n = 0;
    for (const char *q = p; q < end; q++) {
        if (*q == '_') {
            if (q == p || q + 1 == end || q[-1] == '_' || !is_ident_char(q[1]) || q[-1] == '.' || q[1] == '.')
                return false;
            continue;
        }
        if (n + 1 >= cap) return false;
        out[n++] = *q;
    }
    out[n] = 0;
    return true;
}

static void lex_number(Lexer *L) {
    const char *s = L->p, *p = s;
    int base = 10;
    bool is_float = false;
    if (p[0] == '0' && p + 1 < L->end && strchr("xXoObB", p[1])) {
        base = p[1] == 'x' || p[1] == 'X' ? 16 : p[1] == 'o' || p[1] == 'O' ? 8 : 2;
        p += 2;
        while (p < L->end && (is_digit_of(*p, 16) || *p == '_')) p++;
    } else {
        while (p < L->end && (is_digit_of(*p, 10) || *p == '_')) p++;
        if (p < L->end && *p == '.') is_float = true, p++;
        while (p < L->end && (is_digit_of(*p, 10) || *p == '_')) p++;
        if (p < L->end && (*p == 'e' || *p == 'E')) {
            is_float = true, p++;
            if (p < L->end && (*p == '+' || *p == '-')) p++;
            while (p < L->end && (is_digit_of(*p, 10) || *p == '_')) p++;
        }
    }
    const char *end = p;
    /* Python's imaginary literal (1j, 2.5e3J): decimal only; kernels reject it in the parser */
    bool imag = base == 10 && p < L->end && (*p == 'j' || *p == 'J') && !(p + 1 < L->end && is_ident_char(p[1]));
    if (imag) is_float = true, p++;
    while (p < L->end && is_ident_char(*p)) p++; /* a glued suffix (12abc, 0x1j) is an error */
    if (imag) end = p - 1;
    L->p = p;
    const char *digits = base == 10 ? s : s + 2;
    if (base != 10 && digits < end && *digits == '_') digits++; /* Python allows 0x_FF */
    char *buf = xmalloc((size_t)(end - s) + 1); /* no length limit: a 600-digit float is valid */
    bool ok = end + imag == p && end > digits && strip_underscores(digits, end, buf, (size_t)(end - s) + 1);
    if (ok && base != 10)
        for (char *q = buf; *q; q++) ok &= is_digit_of(*q, base);
    if (ok && base == 10 && !is_float && buf[0] == '0')
        for (char *q = buf; *q; q++) ok &= *q == '0'; /* Python forbids 012 */
    if (ok && is_float) {
        char *e = buf + strlen(buf);
        ok = (e[-1] >= '0' && e[-1] <= '9') || e[-1] == '.';
    }
    Token *t = push(L, imag ? T_IMAG : is_float ? T_FLOAT : T_INT, s, p);
    if (!ok) {
        diag_error(span_at(L, s, (size_t)(p - s)), QD1009, "malformed numeric literal '%.*s'", (int)(p - s), s);
        free(buf);
        return;
    }
    errno = 0;
    if (is_float) t->f = strtod(buf, NULL);
    else t->i = strtoull(buf, NULL, base);
    free(buf);
    /* Python floats never fail on range: 1e-400 is 0.0, 1e-323 a subnormal, 1e400 inf */
    if (errno == ERANGE && !is_float)
        diag_error(span_at(L, s, (size_t)(p - s)), QD1009, "numeric literal '%.*s' is out of range", (int)(p - s), s);
}

static char escape_char(char c) {
    switch (c) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case '0': return '\0';
    case '\\': case '\'': case '"': return c;
    default: return 0;
    }
}

static void lex_string(Lexer *L, const char *start, bool raw) {
    const char *p = L->p;
    char q = *p;
    bool triple = p + 2 < L->end && p[1] == q && p[2] == q;
    p += triple ? 3 : 1;
    StrBuf b;
    sb_init(&b);
    for (;;) {
        if (p >= L->end || (!triple && is_newline(p, L->end))) {
            diag_error(span_at(L, start, (size_t)(p - start)), QD1010, "unterminated string literal");
            break;
        }
        if (*p == q && (!triple || (p + 2 < L->end && p[1] == q && p[2] == q))) {
            p += triple ? 3 : 1;
            break;
        }
        if (*p == '\\' && !raw && p + 1 < L->end) {
            char e = escape_char(p[1]);
            if (is_newline(p + 1, L->end)) p = skip_newline(p + 1, L->end);
            else if (e) sb_putc(&b, e), p += 2;
            else sb_putc(&b, *p++);
            continue;
        }
        sb_putc(&b, *p++);
    }
    L->p = p;
    Token *t = push(L, T_STRING, start, p);
    t->s = arena_strndup(L->arena, b.data ? b.data : "", b.len);
    sb_free(&b);
}

/* ---- names, punctuators, brackets ---- */

static void lex_name(Lexer *L) {
    const char *s = L->p;
    while (L->p < L->end && is_ident_char(*L->p)) L->p++;
    size_t n = (size_t)(L->p - s);
    if (n > QDL_MAX_IDENT)
        diag_error(span_at(L, s, 1), QD1014, "identifier of %zu characters is longer than the limit of %d", n, QDL_MAX_IDENT);
    if (n <= 2 && L->p < L->end && (*L->p == '"' || *L->p == '\'')) { /* string prefix */
        /* Python's prefixes (r, u, b, f and rb/br/rf/fr): a script's host code uses them all;
         * kernels use strings only as arguments (print, assert, order=) */
        bool raw = false, ok = true, kind = false;
        for (const char *q = s; q < L->p; q++) {
            char c = (char)(*q | 0x20);
            if (c == 'r') ok &= !raw, raw = true;
            else if (c == 'u' || c == 'b' || c == 'f') ok &= !kind && !(c == 'u' && n > 1), kind = true;
            else ok = false;
        }
        if (!ok) diag_error(span_at(L, s, n), QD1010, "'%.*s' is not a Python string prefix", (int)n, s);
        lex_string(L, s, raw);
        return;
    }
    for (int k = T_KW_FALSE; k <= T_KW_YIELD; k++)
        if (strlen(spellings[k]) == n && !memcmp(spellings[k], s, n)) {
            push(L, (TokKind)k, s, L->p);
            return;
        }
    Token *t = push(L, T_NAME, s, L->p);
    t->s = arena_strndup(L->arena, s, n);
}

static bool open_bracket(Lexer *L, const char *p) {
    if (L->depth == QDL_MAX_NESTING) {
        diag_error(span_at(L, p, 1), QD1007, "brackets nested too deeply (limit %d)", QDL_MAX_NESTING);
        L->fatal = true;
        return false;
    }
    L->open[L->depth] = off_of(L, p);
    L->open_ch[L->depth++] = *p;
    return true;
}

static void close_bracket(Lexer *L, const char *p) {
    char want = *p == ')' ? '(' : *p == ']' ? '[' : '{';
    if (L->depth == 0) {
        diag_error(span_at(L, p, 1), QD1008, "unmatched '%c'", *p);
        L->fatal = true;
        return;
    }
    if (L->open_ch[L->depth - 1] != want) {
        diag_error(span_at(L, p, 1), QD1008, "closing '%c' does not match the opening '%c'", *p, L->open_ch[L->depth - 1]);
        diag_note(span_make(L->src, L->open[L->depth - 1], 1), "the bracket opened here");
        L->fatal = true;
        return;
    }
    L->depth--;
}

static void lex_punct(Lexer *L) {
    const char *p = L->p;
    for (int len = 3; len >= 1; len--) {
        if (L->end - p < len) continue;
        for (int k = T_POWASSIGN; k <= T_ASSIGN; k++) {
            if ((int)strlen(spellings[k]) != len || memcmp(spellings[k], p, (size_t)len)) continue;
            if (k == T_LPAREN || k == T_LBRACKET || k == T_LBRACE) {
                if (!open_bracket(L, p)) return;
            } else if (k == T_RPAREN || k == T_RBRACKET || k == T_RBRACE) {
                close_bracket(L, p);
                if (L->fatal) return;
            }
            L->p = p + len;
            push(L, (TokKind)k, p, L->p);
            return;
        }
    }
    int n = utf8_len((const unsigned char *)p, (const unsigned char *)L->end);
    if (*p == '!' || *p == '$' || *p == '?' || *p == '`')
        diag_error(span_at(L, p, 1), QD1001, "invalid character '%c'", *p);
    else if (n == 1)
        diag_error(span_at(L, p, 1), QD1001, "invalid character (byte 0x%02X)", (unsigned char)*p);
    else
        diag_error(span_at(L, p, (size_t)n), QD1001, "invalid character '%.*s'; identifiers must be ASCII", n, p);
    L->p = p + (n ? n : 1);
}

/* One token, or a line break / comment / continuation. Returns false at end of input. */
static bool lex_one(Lexer *L) {
    const char *p = L->p;
    if (p >= L->end) return false;
    char c = *p;
    if (c == ' ' || c == '\t' || c == '\f') return L->p++, true;
    if (c == '#') {
        while (L->p < L->end && !is_newline(L->p, L->end)) L->p++;
        return true;
    }
    if (c == '\\') {
        if (is_newline(p + 1, L->end)) return L->p = skip_newline(p + 1, L->end), true;
        diag_error(span_at(L, p, 1), QD1001, "unexpected character after line continuation '\\'");
        return L->p++, true;
    }
    if (is_newline(p, L->end)) {
        L->p = skip_newline(p, L->end);
        if (L->depth > 0) return true; /* implicit continuation inside brackets */
        push(L, T_NEWLINE, p, p + 1);
        return begin_line(L);
    }
    if ((c >= '0' && c <= '9') || (c == '.' && p + 1 < L->end && p[1] >= '0' && p[1] <= '9')) lex_number(L);
    else if (c == '"' || c == '\'') lex_string(L, p, false);
    else if (is_ident_char(c)) lex_name(L);
    else lex_punct(L);
    return !L->fatal;
}

bool lex_source(const Source *src, Arena *arena, TokenList *out) {
    bool ok = lex_source_owned(src, arena, out);
    Token *toks = out->toks;
    out->toks = ARENA_ARRAY(arena, Token, out->n);
    if (out->n) memcpy(out->toks, toks, sizeof(Token) * (size_t)out->n);
    free(toks);
    return ok;
}

bool lex_source_owned(const Source *src, Arena *arena, TokenList *out) {
    out->toks = NULL, out->n = 0;
    if (!validate_bytes(src)) return false;
    Lexer L = {.src = src, .arena = arena, .p = src->text, .end = src->text + src->len};
    if (src->len >= 3 && !memcmp(src->text, "\xEF\xBB\xBF", 3)) L.p += 3; /* byte order mark */
    if (begin_line(&L))
        while (lex_one(&L)) {}
    if (!L.fatal && L.depth > 0) {
        diag_error(span_make(src, L.open[L.depth - 1], 1), QD1008, "'%c' was never closed", L.open_ch[L.depth - 1]);
        L.fatal = true;
    }
    const char *e = L.end;
    if (L.toks.len && L.toks.items[L.toks.len - 1].kind != T_NEWLINE && L.toks.items[L.toks.len - 1].kind != T_DEDENT)
        push(&L, T_NEWLINE, e, e);
    for (; L.nindent > 0; L.nindent--) push(&L, T_DEDENT, e, e);
    push(&L, T_EOF, e, e);
    out->toks = L.toks.items; /* handed over */
    out->n = L.toks.len;
    return !L.fatal;
}
