/* The diagnostics engine: text with source line and caret, JSON lines, or SARIF 2.1.0. */
#include "diag.h"
#include "json.h"
#include "util.h"
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    const char *code;
    char kind;
    const char *wname;
    const char *summary;
} CodeInfo;

static const CodeInfo codes[] = { /* indexed by DiagCode */
#define X(c, k, w, s) [c] = {#c, #k[0], w, s},
#include "codes.def"
#undef X
};
_Static_assert(ARRAY_LEN(codes) == QD_CODE_COUNT, "one row per DiagCode");

static struct {
    DiagConfig cfg;
    bool color;
    int errors, warnings;
    bool last_shown; /* whether the previous error/warning was printed (for notes) */
    int quiet;       /* diag_quiet depth: > 0 while a speculative evaluation runs */
    int quiet_errors; /* errors and warnings dropped while quiet */
    char quiet_first[256]; /* the message of the first error dropped in the region diag_quiet_end closed last */
    DiagCode quiet_first_code; /* and its code */
    struct { char msg[256]; DiagCode code; } quiet_open[16]; /* the same for each open region, outermost first:
                           an inner region does not hide the first error of the one around it */
    bool stopped;          /* the error limit was reached: nothing more is shown */
    bool wdisabled[ARRAY_LEN(codes)], werror[ARRAY_LEN(codes)];
    StrBuf sarif;    /* results accumulated for SARIF */
    int sarif_results;
    StrBuf sarif_props; /* the run's properties (diag_record) */
    StrBuf *json_related; /* notes for the pending JSON record */
    const char *input;    /* names location-less diagnostics in JSON and SARIF */
    bool sarif_open;      /* the last SARIF result is still open for its notes */
    StrBuf sarif_related; /* that result's relatedLocations */
    int sarif_nrelated;
    Span fix;             /* diag_fixit's pending fix-it (fix.src NULL: none) */
    char *fix_text;
    bool note_related;    /* the note being emitted belongs to the previous result */
    bool parseable_fixits;
} D = {.cfg = {DIAG_TEXT, DIAG_COLOR_AUTO, 20, false, NULL}};

Source *source_new(const char *name, const char *text, size_t len) {
    Source *s = xcalloc(1, sizeof *s);
    s->name = xstrdup(name);
    char *t = xmalloc(len + 1);
    if (len) memcpy(t, text, len);
    t[len] = 0;
    s->text = t;
    s->len = len;
    return s;
}

void source_free(Source *s) {
    if (!s) return;
    free((char *)s->name), free((char *)s->text), free(s->line_starts), free(s);
}

static void index_lines(Source *s) {
    uint32_t n = 1;
    for (size_t i = 0; i < s->len; i++) n += s->text[i] == '\n';
    s->line_starts = xmalloc(sizeof(uint32_t) * n);
    s->line_starts[0] = 0;
    uint32_t k = 1;
    for (size_t i = 0; i < s->len; i++)
        if (s->text[i] == '\n') s->line_starts[k++] = (uint32_t)i + 1;
    s->nlines = n;
}

void source_line_col(const Source *src, uint32_t off, uint32_t *line, uint32_t *col) {
    Source *s = (Source *)src; /* the line index is a cache */
    if (!s->line_starts) index_lines(s);
    if (off > s->len) off = (uint32_t)s->len;
    uint32_t lo = 0, hi = s->nlines - 1;
    while (lo < hi) {
        uint32_t mid = (lo + hi + 1) / 2;
        if (s->line_starts[mid] <= off) lo = mid;
        else hi = mid - 1;
    }
    *line = lo + 1;
    *col = off - s->line_starts[lo] + 1;
}

Span span_join(Span a, Span b) {
    if (!a.src) return b;
    if (!b.src) return a;
    uint32_t end = b.off + b.len > a.off + a.len ? b.off + b.len : a.off + a.len;
    uint32_t start = a.off < b.off ? a.off : b.off;
    return span_make(a.src, start, end - start);
}

static void emit(const char *level, const char *code, const char *flag, Span sp, const char *fmt, va_list ap);

static void (*output_guard)(bool begin);
void diag_set_output_guard(void (*guard)(bool begin)) { output_guard = guard; }

static void emit_plain(const char *level, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    emit(level, NULL, NULL, (Span){0}, fmt, ap);
    va_end(ap);
}

/* Internal errors (exit 3) in JSON or SARIF mode: a record like any other, and the SARIF
 * document is still completed. */
static void report_internal(const char *message) {
    emit_plain("internal-error", "%s", message);
    diag_finish();
}

/* Errors already reported (a hash of location, code and text): the same error at the same place
 * is reported once (sema evaluates a parametrized host function's body once per combination). */
static VEC(uint64_t) seen_errors;

void diag_init(const DiagConfig *cfg) {
    D.cfg = *cfg;
    vec_free(&seen_errors);
    if (!D.cfg.out) D.cfg.out = stderr;
    const char *term = getenv("TERM");
    switch (cfg->color) {
    case DIAG_COLOR_ALWAYS: D.color = true; break;
    case DIAG_COLOR_NEVER: D.color = false; break;
    default:
        D.color = isatty(fileno(D.cfg.out)) && !getenv("NO_COLOR") && term && strcmp(term, "dumb");
    }
    if (D.cfg.format != DIAG_TEXT) D.color = false;
    set_internal_error_reporter(D.cfg.format != DIAG_TEXT ? report_internal : NULL);
}

void diag_set_input(const char *name) { D.input = name; }

static int find_code(DiagCode code) {
    if ((unsigned)code >= ARRAY_LEN(codes)) die("diagnostic code %d is out of range", (int)code);
    return (int)code;
}

bool diag_set_warning(const char *name, bool enabled, bool as_error) {
    bool found = false;
    for (size_t i = 0; i < ARRAY_LEN(codes); i++) {
        if (codes[i].kind != 'W' || strcmp(codes[i].wname, name)) continue;
        found = true;
        D.wdisabled[i] = !enabled;
        if (as_error) D.werror[i] = true;
    }
    return found;
}

int diag_warning_names(const char **names, int max) {
    int n = 0;
    for (size_t i = 0; i < ARRAY_LEN(codes) && n < max; i++)
        if (codes[i].kind == 'W') names[n++] = codes[i].wname;
    return n;
}

void diag_list_warnings(FILE *out) {
    for (size_t i = 0; i < ARRAY_LEN(codes); i++)
        if (codes[i].kind == 'W') fprintf(out, "-W%-24s %s  %s\n", codes[i].wname, codes[i].code, codes[i].summary);
}

void diag_list_codes(FILE *out) {
    for (size_t i = 0; i < ARRAY_LEN(codes); i++)
        fprintf(out, "%s  %-7s  %s\n", codes[i].code, codes[i].kind == 'W' ? "warning" : "error", codes[i].summary);
}

#define C_BOLD "\033[1m"
#define C_RED "\033[1;31m"
#define C_MAG "\033[1;35m"
#define C_CYAN "\033[1;36m"
#define C_GREEN "\033[1;32m"
#define C_OFF "\033[0m"

/* A bidirectional control (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069) at p, as its
 * code point, or 0. Printed raw they reorder what the terminal shows (Trojan Source). */
static unsigned bidi_at(const unsigned char *p, size_t left) {
    if (left >= 2 && p[0] == 0xD8 && p[1] == 0x9C) return 0x061C;
    if (left < 3 || p[0] != 0xE2) return 0;
    unsigned cp = 0x2000u | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
    if (p[1] != 0x80 && p[1] != 0x81) return 0;
    return cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) ? cp : 0;
}

/* Writes text for a terminal: control characters (except newline and tab), DEL, C1 controls
 * and bidirectional controls are escaped Python-style (\x1b, \u202e), so bytes that come from
 * the input (string literals, file names) cannot drive the terminal. */
static void put_escaped(FILE *o, const char *text) {
    const unsigned char *p = (const unsigned char *)text;
    size_t n = strlen(text);
    for (size_t i = 0; i < n;) {
        unsigned c = p[i], cp = bidi_at(p + i, n - i);
        if (cp) {
            fprintf(o, "\\u%04x", cp);
            i += cp == 0x061C ? 2 : 3;
        } else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
            fprintf(o, "\\x%02x", c);
            i++;
        } else if (c == 0xC2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F) {
            fprintf(o, "\\x%02x", p[i + 1]);
            i += 2;
        } else {
            fputc((int)c, o);
            i++;
        }
    }
}

/* Prints the source line of sp and a caret/underline under it. Tabs in the prefix are copied so
 * the caret lines up; UTF-8 continuation bytes take no column; long lines are windowed. */
static void print_snippet(FILE *o, Span sp) {
    uint32_t line, col;
    source_line_col(sp.src, sp.off, &line, &col);
    const char *text = sp.src->text;
    uint32_t ls = sp.src->line_starts[line - 1], le = ls;
    while (le < sp.src->len && text[le] != '\n' && text[le] != '\r') le++;
    uint32_t from = ls, to = le;
    if (sp.off - ls > 120) from = sp.off - 60;
    if (from > to) from = ls; /* the span lies past a lone '\r' that ends the shown line */
    if (to - from > 240) to = from + 240;
    uint32_t uend = sp.off + (sp.len ? sp.len : 1);
    if (uend > to) uend = to > sp.off ? to : sp.off + 1;
    char num[16];
    int w = snprintf(num, sizeof num, "%u", line);
    fprintf(o, " %s |%s", num, from > ls ? " ..." : " ");
    for (uint32_t i = from; i < to; i++) {
        unsigned char c = (unsigned char)text[i];
        unsigned bidi = bidi_at((const unsigned char *)text + i, to - i);
        if (bidi) { /* one column, as the caret line counts it */
            fputc('?', o);
            i += bidi == 0x061C ? 1 : 2;
            continue;
        }
        fputc(c == '\t' || (c >= 0x20 && c != 0x7F) ? c : '?', o);
    }
    fprintf(o, "%s\n %*s |%s", to < le ? " ..." : "", w, "", from > ls ? "    " : " ");
    for (uint32_t i = from; i < sp.off && i < to; i++) {
        unsigned char c = (unsigned char)text[i];
        if ((c & 0xC0) != 0x80) fputc(c == '\t' ? '\t' : ' ', o);
    }
    if (D.color) fputs(C_GREEN, o);
    fputc('^', o);
    for (uint32_t i = sp.off + 1; i < uend; i++)
        if (((unsigned char)text[i] & 0xC0) != 0x80) fputc('~', o);
    if (D.color) fputs(C_OFF, o);
    fputc('\n', o);
    /* the fix-it's text under the caret line, at its column, as clang shows it */
    if (D.fix.src != sp.src || D.fix.off < from || D.fix.off > to || strchr(D.fix_text, '\n')) return;
    fprintf(o, " %*s |%s", w, "", from > ls ? "    " : " ");
    for (uint32_t i = from; i < D.fix.off; i++) {
        unsigned char c = (unsigned char)text[i];
        if ((c & 0xC0) != 0x80) fputc(c == '\t' ? '\t' : ' ', o);
    }
    if (D.color) fputs(C_GREEN, o);
    put_escaped(o, D.fix_text);
    if (D.color) fputs(C_OFF, o);
    fputc('\n', o);
}

/* clang's -fdiagnostics-parseable-fixits line: fix-it:"FILE":{L:C-L:C}:"TEXT", 1-based columns,
 * the end exclusive; '"' and '\\' escaped with a backslash, other control bytes as \ooo. */
static void put_quoted(FILE *o, const char *s) {
    fputc('"', o);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fputc('\\', o), fputc(*p, o);
        else if (*p < 0x20 || *p == 0x7F) fprintf(o, "\\%03o", *p);
        else fputc(*p, o);
    }
    fputc('"', o);
}

static void print_parseable_fixit(FILE *o) {
    uint32_t line, col, eline, ecol;
    source_line_col(D.fix.src, D.fix.off, &line, &col);
    source_line_col(D.fix.src, D.fix.off + D.fix.len, &eline, &ecol);
    fputs("fix-it:", o);
    put_quoted(o, D.fix.src->name);
    fprintf(o, ":{%u:%u-%u:%u}:", line, col, eline, ecol);
    put_quoted(o, D.fix_text);
    fputc('\n', o);
}

void diag_fixit(Span sp, const char *text) {
    free(D.fix_text);
    D.fix = sp;
    D.fix_text = xstrdup(text ? text : "");
}

void diag_set_parseable_fixits(bool on) { D.parseable_fixits = on; }

static void fix_clear(void) {
    free(D.fix_text);
    D.fix_text = NULL;
    D.fix = (Span){0};
}

static void json_location(StrBuf *b, Span sp) {
    uint32_t line = 0, col = 0, eline = 0, ecol = 0;
    if (sp.src) {
        source_line_col(sp.src, sp.off, &line, &col);
        source_line_col(sp.src, sp.off + sp.len, &eline, &ecol);
    }
    const char *file = sp.src ? sp.src->name : D.input;
    sb_puts(b, "\"file\":");
    if (file) json_str(b, file);
    else sb_puts(b, "null");
    sb_printf(b, ",\"line\":%u,\"column\":%u,\"end_line\":%u,\"end_column\":%u,\"byte_offset\":%u,\"byte_length\":%u",
              line, col, eline, ecol, sp.src ? sp.off : 0, sp.src ? sp.len : 0);
}

/* SARIF region of a span: 1-based lines and columns (end column exclusive) and bytes. */
static void sarif_region(StrBuf *b, Span sp) {
    uint32_t line, col, eline, ecol;
    source_line_col(sp.src, sp.off, &line, &col);
    source_line_col(sp.src, sp.off + sp.len, &eline, &ecol);
    sb_printf(b, "{\"startLine\":%u,\"startColumn\":%u,\"endLine\":%u,\"endColumn\":%u,\"byteOffset\":%u,"
                 "\"byteLength\":%u}", line, col, eline, ecol, sp.off, sp.len);
}

/* Ends the open result: its notes as relatedLocations (SARIF 2.1.0 §3.27.22). */
static void sarif_close(void) {
    if (!D.sarif_open) return;
    if (D.sarif_nrelated) sb_printf(&D.sarif, ",\"relatedLocations\":[%s]", D.sarif_related.data);
    sb_putc(&D.sarif, '}');
    D.sarif_open = false;
    D.sarif_related.len = 0, D.sarif_nrelated = 0;
    if (D.sarif_related.data) D.sarif_related.data[0] = 0;
}

/* A note of the open result: a location with its message (and a region when it has one). */
static void sarif_related(Span sp, const char *msg) {
    StrBuf *b = &D.sarif_related;
    sb_printf(b, "%s{\"id\":%d,\"message\":{\"text\":", D.sarif_nrelated ? "," : "", D.sarif_nrelated);
    json_str(b, msg);
    sb_putc(b, '}');
    if (sp.src) {
        sb_puts(b, ",\"physicalLocation\":{\"artifactLocation\":{\"uri\":");
        json_uri(b, sp.src->name);
        sb_puts(b, "},\"region\":");
        sarif_region(b, sp);
        sb_putc(b, '}');
    }
    sb_putc(b, '}');
    D.sarif_nrelated++;
}

static void sarif_result(const char *level, const char *code, Span sp, const char *msg) {
    sarif_close();
    if (D.sarif_results++) sb_putc(&D.sarif, ',');
    sb_putc(&D.sarif, '{');
    if (code) sb_puts(&D.sarif, "\"ruleId\":"), json_str(&D.sarif, code), sb_putc(&D.sarif, ',');
    sb_puts(&D.sarif, "\"level\":"), json_str(&D.sarif, level);
    sb_puts(&D.sarif, ",\"message\":{\"text\":");
    json_str(&D.sarif, msg);
    sb_puts(&D.sarif, "}");
    if (sp.src) {
        sb_puts(&D.sarif, ",\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":");
        json_uri(&D.sarif, sp.src->name);
        sb_puts(&D.sarif, "},\"region\":");
        sarif_region(&D.sarif, sp);
        sb_puts(&D.sarif, "}}]");
    } else if (D.input) { /* no region: the location is the whole input (SARIF 2.1.0 §3.29.4) */
        sb_puts(&D.sarif, ",\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":");
        json_uri(&D.sarif, D.input);
        sb_puts(&D.sarif, "}}}]");
    }
    if (D.fix.src) { /* SARIF 2.1.0 §3.55: one fix, one replacement */
        sb_puts(&D.sarif, ",\"fixes\":[{\"description\":{\"text\":");
        json_strf(&D.sarif, D.fix.len ? "replace with '%s'" : "insert '%s'", D.fix_text);
        sb_puts(&D.sarif, "},\"artifactChanges\":[{\"artifactLocation\":{\"uri\":");
        json_uri(&D.sarif, D.fix.src->name);
        sb_puts(&D.sarif, "},\"replacements\":[{\"deletedRegion\":");
        sarif_region(&D.sarif, D.fix);
        sb_puts(&D.sarif, ",\"insertedContent\":{\"text\":");
        json_str(&D.sarif, D.fix_text);
        sb_puts(&D.sarif, "}}]}]}]");
    }
    D.sarif_open = true; /* closed by the next result or diag_finish, after its notes */
}

/* Held diagnostics (diag_hold): each error or warning and its notes are one group, rendered
 * into memory and printed sorted by position when the hold ends, so a check that visits
 * fields before kernels still reports top to bottom. Positions are compared within one file
 * only: the files (a program's modules) come in the order their first diagnostic was held.
 * Text and JSON lines only. */
typedef struct {
    const Source *src; /* the file; NULL (no location) sorts last */
    int file;     /* the order of src's first group */
    uint32_t key; /* offset in the source */
    int seq;
    char *text;
    size_t len;
} Held;
static struct {
    bool on;
    VEC(Held) groups;
    FILE *cur; /* the open group's stream */
} H;

static void held_close(void) {
    if (H.cur) fclose(H.cur), H.cur = NULL;
}

/* The stream a diagnostic of this level goes to. */
static FILE *out_stream(const char *level, Span sp) {
    if (!H.on) return D.cfg.out;
    if (!strcmp(level, "note") && H.cur) return H.cur;
    held_close();
    Held g = {sp.src, 0, sp.src ? sp.off : UINT32_MAX, H.groups.len, NULL, 0};
    vec_push(&H.groups, g);
    Held *h = &H.groups.items[H.groups.len - 1];
    H.cur = open_memstream(&h->text, &h->len);
    if (!H.cur) die("open_memstream failed");
    return H.cur;
}

static int held_cmp(const void *a, const void *b) {
    const Held *x = a, *y = b;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->seq - y->seq;
}

void diag_hold(bool on) {
    if (on) {
        H.on = D.cfg.format != DIAG_SARIF;
        return;
    }
    held_close();
    H.on = false;
    VEC(const Source *) files = {0}; /* each file's rank: the order of its first group */
    for (int i = 0; i < H.groups.len; i++) {
        Held *g = &H.groups.items[i];
        int f = 0;
        while (f < files.len && files.items[f] != g->src) f++;
        if (f == files.len && g->src) vec_push(&files, g->src);
        g->file = g->src ? f : INT_MAX;
    }
    vec_free(&files);
    if (H.groups.len) qsort(H.groups.items, (size_t)H.groups.len, sizeof(Held), held_cmp);
    if (H.groups.len && output_guard) output_guard(true);
    for (int i = 0; i < H.groups.len; i++) {
        fwrite(H.groups.items[i].text, 1, H.groups.items[i].len, D.cfg.out);
        free(H.groups.items[i].text);
    }
    fflush(D.cfg.out);
    if (H.groups.len && output_guard) output_guard(false);
    vec_free(&H.groups);
}

/* flag: the switch that controls a warning ("-Watomic-narrowing", "-Werror=..."), printed
 * after the message in text, as compilers do; NULL for errors and notes. */
static void emit(const char *level, const char *code, const char *flag, Span sp, const char *fmt, va_list ap) {
    StrBuf m;
    sb_init(&m);
    sb_vprintf(&m, fmt, ap);
    FILE *o = out_stream(level, sp);
    bool guarded = o == D.cfg.out && output_guard;
    if (guarded) output_guard(true);
    if (D.cfg.format == DIAG_JSON) {
        StrBuf b;
        sb_init(&b);
        sb_printf(&b, "{\"schema\":\"qdc-diagnostic/1\",\"severity\":\"%s\",\"code\":", level);
        if (code) json_str(&b, code);
        else sb_puts(&b, "null");
        sb_puts(&b, ",");
        json_location(&b, sp);
        sb_puts(&b, ",\"message\":");
        json_str(&b, m.data);
        if (D.fix.src && strcmp(level, "note")) {
            sb_puts(&b, ",\"fixits\":[{");
            json_location(&b, D.fix);
            sb_puts(&b, ",\"text\":"), json_str(&b, D.fix_text), sb_puts(&b, "}]");
        }
        sb_puts(&b, "}\n");
        fputs(b.data, o);
        sb_free(&b);
    } else if (D.cfg.format == DIAG_SARIF) {
        bool note = !strcmp(level, "note"); /* SARIF levels: note, warning, error */
        if (note && D.note_related && D.sarif_open) sarif_related(sp, m.data);
        else sarif_result(!strcmp(level, "internal-error") ? "error" : level, note ? "note" : code, sp, m.data);
    } else {
        const char *lc = strcmp(level, "error") == 0 ? C_RED : strcmp(level, "warning") == 0 ? C_MAG : C_CYAN;
        if (D.color) fputs(C_BOLD, o);
        if (sp.src) {
            uint32_t line, col;
            source_line_col(sp.src, sp.off, &line, &col);
            put_escaped(o, sp.src->name);
            fprintf(o, ":%u:%u: ", line, col);
        } else {
            fputs("qdc: ", o);
        }
        if (D.color) fputs(lc, o);
        fputs(level, o);
        if (code) fprintf(o, "[%s]", code);
        fprintf(o, ":%s ", D.color ? C_OFF C_BOLD : "");
        put_escaped(o, m.data);
        if (flag) fprintf(o, " [%s]", flag);
        fprintf(o, "%s\n", D.color ? C_OFF : "");
        if (sp.src) print_snippet(o, sp);
        if (D.fix.src && D.parseable_fixits && strcmp(level, "note")) print_parseable_fixit(o);
    }
    fflush(o);
    if (guarded) output_guard(false);
    sb_free(&m);
}

/* At --error-limit the engine prints the fatal line once and then drops every later
 * diagnostic; the driver sees the error count and stops at the next stage (only cli/ decides
 * exit statuses). */
static void check_limit(void) {
    if (D.stopped || D.cfg.error_limit <= 0 || D.errors < D.cfg.error_limit) return;
    if (H.on) diag_hold(false); /* what was kept back comes before the fatal line */
    D.errors++;
    D.stopped = true;
    if (output_guard) output_guard(true); /* the progress line is erased and stays off */
    if (D.cfg.format == DIAG_TEXT)
        fprintf(D.cfg.out, "qdc: fatal error: too many errors emitted (%d), stopping now "
                           "[--error-limit=%d]\n", D.cfg.error_limit, D.cfg.error_limit);
    fflush(D.cfg.out);
}

static bool seen_before(Span sp, const char *code, const char *fmt, va_list ap) {
    StrBuf m;
    sb_init(&m);
    sb_vprintf(&m, fmt, ap);
    uint64_t h = 1469598103934665603ull;
    uintptr_t src = (uintptr_t)sp.src;
    uint64_t parts[3] = {(uint64_t)src, sp.off, sp.len};
    for (int k = 0; k < 3; k++) h = (h ^ parts[k]) * 1099511628211ull;
    for (const char *c = sp.src->name ? sp.src->name : ""; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    for (const char *c = code ? code : ""; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    for (const char *c = m.data ? m.data : ""; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    sb_free(&m);
    for (int k = 0; k < seen_errors.len; k++)
        if (seen_errors.items[k] == h) return true;
    vec_push(&seen_errors, h);
    return false;
}

/* While quiet, a diagnostic is only counted in quiet_errors (its notes are dropped too). */
static bool quiet_drop(DiagCode id, const char *fmt, va_list *ap) {
    if (!D.quiet) return false;
    for (int k = 0; ap && k < D.quiet && k < (int)ARRAY_LEN(D.quiet_open); k++) {
        if (D.quiet_open[k].msg[0]) continue;
        va_list aq;
        va_copy(aq, *ap);
        vsnprintf(D.quiet_open[k].msg, sizeof D.quiet_open[k].msg, fmt, aq), D.quiet_open[k].code = id;
        va_end(aq);
    }
    D.quiet_errors++;
    D.last_shown = false;
    return true;
}

int diag_quiet_begin(void) {
    if (D.quiet < (int)ARRAY_LEN(D.quiet_open)) D.quiet_open[D.quiet].msg[0] = 0;
    D.quiet++;
    return D.quiet_errors;
}

const char *diag_quiet_first(void) { return D.quiet_first; }
bool diag_quiet_active(void) { return D.quiet > 0; }
DiagCode diag_quiet_first_code(void) { return D.quiet_first[0] ? D.quiet_first_code : (DiagCode)0; }

int diag_quiet_end(int mark) {
    if (D.quiet > 0) D.quiet--;
    if (D.quiet < (int)ARRAY_LEN(D.quiet_open)) /* deeper than the stack: the innermost recorded region's */
        memcpy(D.quiet_first, D.quiet_open[D.quiet].msg, sizeof D.quiet_first), D.quiet_first_code = D.quiet_open[D.quiet].code;
    return D.quiet_errors - mark;
}

static void error_v(Span sp, DiagCode id, const char *fmt, va_list args) {
    const char *code = codes[find_code(id)].code;
    if (D.stopped) return (void)(D.last_shown = false);
    va_list ap;
    va_copy(ap, args);
    bool dropped = quiet_drop(id, fmt, &ap);
    va_end(ap);
    if (dropped) return;
    va_copy(ap, args);
    bool dup = sp.src && seen_before(sp, code, fmt, ap);
    va_end(ap);
    if (dup) {
        D.last_shown = false; /* its notes too */
        return;
    }
    va_copy(ap, args);
    emit("error", code, NULL, sp, fmt, ap);
    va_end(ap);
    D.errors++;
    D.last_shown = true;
    check_limit();
}

void diag_error(Span sp, DiagCode id, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    error_v(sp, id, fmt, ap);
    va_end(ap);
    fix_clear(); /* consumed, shown or not */
}

static void warning_v(Span sp, DiagCode id, const char *fmt, va_list args) {
    int i = find_code(id);
    const char *code = codes[i].code;
    D.last_shown = false;
    if (D.stopped || D.wdisabled[i] || quiet_drop(id, NULL, NULL)) return;
    bool as_error = D.werror[i] || D.cfg.warnings_are_errors;
    va_list ap;
    va_copy(ap, args);
    char flag[80];
    snprintf(flag, sizeof flag, "-W%s%s", D.werror[i] ? "error=" : "", codes[i].wname ? codes[i].wname : "");
    emit(as_error ? "error" : "warning", code, codes[i].wname ? flag : NULL, sp, fmt, ap);
    va_end(ap);
    D.last_shown = true;
    if (as_error) {
        D.errors++;
        check_limit();
    } else {
        D.warnings++;
    }
}

void diag_warning(Span sp, DiagCode id, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    warning_v(sp, id, fmt, ap);
    va_end(ap);
    fix_clear();
}

void diag_usage(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    emit("error", NULL, NULL, (Span){0}, fmt, ap);
    va_end(ap);
}

void diag_usage_hint(bool note, const char *fmt, ...) {
    if (D.cfg.format != DIAG_TEXT) return;
    va_list ap;
    va_start(ap, fmt);
    if (note) emit("note", NULL, NULL, (Span){0}, fmt, ap);
    else fputs("qdc: ", D.cfg.out), vfprintf(D.cfg.out, fmt, ap), fputc('\n', D.cfg.out), fflush(D.cfg.out);
    va_end(ap);
}

void diag_summary(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (D.cfg.format == DIAG_TEXT) fputs("qdc: ", D.cfg.out), vfprintf(D.cfg.out, fmt, ap), fputc('\n', D.cfg.out), fflush(D.cfg.out);
    else emit("note", NULL, NULL, (Span){0}, fmt, ap);
    va_end(ap);
}

void diag_record(const char *schema, const char *fields) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "{\"schema\":"), json_str(&b, schema), sb_printf(&b, ",%s}", fields);
    if (D.cfg.format == DIAG_JSON) {
        FILE *o = D.cfg.out ? D.cfg.out : stderr;
        if (output_guard) output_guard(true);
        fprintf(o, "%s\n", b.data);
        fflush(o);
        if (output_guard) output_guard(false);
    } else if (D.cfg.format == DIAG_SARIF) {
        const char *slash = strchr(schema, '/');
        if (D.sarif_props.len) sb_putc(&D.sarif_props, ',');
        StrBuf key;
        sb_init(&key);
        sb_printf(&key, "%.*s", slash ? (int)(slash - schema) : (int)strlen(schema), schema);
        json_str(&D.sarif_props, key.data);
        sb_printf(&D.sarif_props, ":%s", b.data);
        sb_free(&key);
    }
    sb_free(&b);
}

bool diag_machine_format(void) { return D.cfg.format != DIAG_TEXT; }

void diag_note(Span sp, const char *fmt, ...) {
    if (!D.last_shown) return;
    va_list ap;
    va_start(ap, fmt);
    D.note_related = true;
    emit("note", NULL, NULL, sp, fmt, ap);
    D.note_related = false;
    va_end(ap);
}

int diag_error_count(void) { return D.errors; }
int diag_warning_count(void) { return D.warnings; }
void diag_add_counts(int errors, int warnings) { D.errors += errors, D.warnings += warnings; }

void diag_replay(const char *text, size_t len) {
    if (!len) return;
    FILE *o = D.cfg.out ? D.cfg.out : stderr;
    if (output_guard) output_guard(true);
    fwrite(text, 1, len, o);
    fflush(o);
    if (output_guard) output_guard(false);
}
void diag_reset_counts(void) { D.errors = D.warnings = 0, D.last_shown = D.stopped = false, vec_free(&seen_errors); }

void diag_finish(void) {
    if (H.on) diag_hold(false);
    if (D.cfg.format != DIAG_SARIF) return;
    sarif_close();
    FILE *o = D.cfg.out ? D.cfg.out : stderr;
    fputs("{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\","
          "\"runs\":[{\"tool\":{\"driver\":{\"name\":\"qdc\",\"rules\":[",
          o);
    for (size_t i = 0; i < ARRAY_LEN(codes); i++) {
        StrBuf b;
        sb_init(&b);
        json_str(&b, codes[i].summary);
        fprintf(o, "%s{\"id\":\"%s\",\"shortDescription\":{\"text\":%s}}", i ? "," : "", codes[i].code, b.data);
        sb_free(&b);
    }
    fprintf(o, "]}},\"results\":[%s]", D.sarif.data ? D.sarif.data : "");
    if (D.sarif_props.len) fprintf(o, ",\"properties\":{%s}", D.sarif_props.data);
    fputs("}]}\n", o);
    fflush(o);
    sb_free(&D.sarif);
    sb_free(&D.sarif_props);
    sb_free(&D.sarif_related);
    D.sarif_results = 0;
}
