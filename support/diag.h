/* The one diagnostics path: every user-facing error, warning and note goes through here and
 * comes out as `file:line:col: error[QDnnnn]: message` plus the source line and a caret
 * (or as JSON lines / SARIF 2.1.0 for machines). Codes are stable and listed in codes.def. */
#ifndef QDC_DIAG_H
#define QDC_DIAG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A source text (a .qd file, stdin, or a capability YAML file). Owned by the caller. */
typedef struct Source {
    const char *name; /* as shown in diagnostics: the path given, or "<stdin>" */
    const char *text; /* not necessarily NUL-free; text[len] == 0 */
    size_t len;
    uint32_t *line_starts; /* computed lazily */
    uint32_t nlines;
    bool library; /* qdc's own source text (the Tile types of sema_tile.c): code the user did not write */
} Source;

Source *source_new(const char *name, const char *text, size_t len); /* copies name and text */
void source_free(Source *s);

/* A byte range in a source. A span with src == NULL has no location. */
typedef struct Span {
    const Source *src;
    uint32_t off, len;
} Span;

static inline Span span_make(const Source *src, uint32_t off, uint32_t len) {
    Span s = {src, off, len};
    return s;
}
Span span_join(Span a, Span b); /* from the start of a to the end of b */
void source_line_col(const Source *src, uint32_t off, uint32_t *line, uint32_t *col); /* 1-based */

/* The stable diagnostic codes, generated from the codes.def tables (support/codes.def includes
 * every layer's): QD1001, QD2062, ... A code that is not in a table does not compile. */
typedef enum DiagCode {
#define X(code, kind, wname, summary) code,
#include "codes.def"
#undef X
    QD_CODE_COUNT
} DiagCode;

typedef enum { DIAG_TEXT, DIAG_JSON, DIAG_SARIF } DiagFormat;
typedef enum { DIAG_COLOR_AUTO, DIAG_COLOR_ALWAYS, DIAG_COLOR_NEVER } DiagColor;

typedef struct {
    DiagFormat format;
    DiagColor color;
    int error_limit;          /* 0 = unlimited; default 20 */
    bool warnings_are_errors; /* -Werror */
    FILE *out;                /* default stderr */
} DiagConfig;

void diag_init(const DiagConfig *cfg);
/* The input file (NULL: none): JSON and SARIF name it for diagnostics that have no location. */
void diag_set_input(const char *name);
/* -W<name> / -Wno-<name> / -Werror=<name>: false if the name is unknown. */
bool diag_set_warning(const char *name, bool enabled, bool as_error);
void diag_list_warnings(FILE *out);
/* The warning names (for -W suggestions); returns how many were stored, at most max. */
int diag_warning_names(const char **names, int max);
void diag_list_codes(FILE *out);

/* code: an error (E) row of codes.def for diag_error, a warning (W) row for diag_warning. */
void diag_error(Span sp, DiagCode code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_warning(Span sp, DiagCode code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A command-line (usage) error, exit 2: "qdc: error: message" as text, a record without a code
 * in JSON and SARIF. Not counted as an input error. */
void diag_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A line after a usage error, text format only: "qdc: <message>", or "qdc: note: <message>" with
 * note. The JSON and SARIF usage record's own message says what such a line adds. */
void diag_usage_hint(bool note, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A result line that is no diagnostic (--golden-check's count): "qdc: <message>" as text, a note
 * record without a code in JSON and SARIF, so stderr holds nothing but records there. */
void diag_summary(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A requested report that is no diagnostic (--time-report; --stats when standard output holds
 * the output), in the machine formats: JSON, the line {"schema":SCHEMA,FIELDS} on the
 * diagnostics stream; SARIF, the same object as the run's property SCHEMA-without-"/N" in the
 * document. FIELDS: the object's members, already JSON. Text: nothing (callers print text). */
void diag_record(const char *schema, const char *fields);
/* True for --diagnostics-format=json or sarif (nothing but records goes to stderr). */
bool diag_machine_format(void);
/* Called with true before and false after the diagnostics path writes to its stream (the
 * progress line of cli/progress.c erases itself and holds off); NULL: none. */
void diag_set_output_guard(void (*guard)(bool begin));
/* A fix-it for the next diag_error or diag_warning (and only it: that call consumes it, shown
 * or not): replace the text of sp (len 0: insert at sp.off) with text. Only for a mistake with
 * one obvious edit. Text: the replacement under the caret line, as clang prints it (and with
 * parseable_fixits, clang's fix-it line); JSON: "fixits"; SARIF: the result's "fixes". */
void diag_fixit(Span sp, const char *text);
/* -fdiagnostics-parseable-fixits: in text, clang's fix-it:"file":{l:c-l:c}:"text" line after a
 * diagnostic that has a fix-it (kept across diag_init). */
void diag_set_parseable_fixits(bool on);
/* A note attached to the previous error or warning (dropped if that one was suppressed). In
 * SARIF it is one of the result's relatedLocations. */
void diag_note(Span sp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A speculative evaluation: diag_quiet_begin() returns a mark; until the matching
 * diag_quiet_end(mark), errors and warnings (and their notes) are neither shown nor counted, and
 * diag_quiet_end returns how many there were. Nests. */
int diag_quiet_begin(void);
int diag_quiet_end(int mark);
const char *diag_quiet_first(void); /* the first error's message since diag_quiet_begin, or "" */
DiagCode diag_quiet_first_code(void); /* and its code (0: none) */
/* True inside a diag_quiet region: an error raised now is not shown, so whatever records "reported
 * once" (a binding turned into an error value) must not be recorded. */
bool diag_quiet_active(void);

int diag_error_count(void);
int diag_warning_count(void);
/* For in-process drivers that compile many inputs (the fuzzers): forget the counts so far. */
void diag_reset_counts(void);
/* Counts diagnostics a -j worker printed (their text is replayed by the driver). */
void diag_add_counts(int errors, int warnings);
/* Prints diagnostics text a -j worker wrote, where diagnostics go (the progress line erased). */
void diag_replay(const char *text, size_t len);
/* diag_hold(true): from now on, errors and warnings (with their notes) are kept back;
 * diag_hold(false) prints them sorted by position in the source. diag_finish() ends a hold. */
void diag_hold(bool on);
/* Writes anything buffered (SARIF is one JSON document written at the end). */
void diag_finish(void);
#endif
