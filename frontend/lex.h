/* The lexer's interface (frontend-internal): Python layout rules turned into a token array with
 * NEWLINE/INDENT/DEDENT, literals decoded. Documented limits are the QDL_* constants. */
#ifndef QDC_LEX_H
#define QDC_LEX_H
#include "../support/diag.h"
#include "../support/util.h"
#include <stdint.h>

#define QDL_MAX_NESTING 200 /* open brackets at once, and expression nesting in the parser */
#define QDL_MAX_INDENT 100  /* indentation levels (Python's own limit) */
#define QDL_MAX_EXPR_DEPTH 1000 /* depth of one expression tree, operator chains included */
#define QDL_MAX_ARGS 255    /* arguments of one call */
#define QDL_MAX_IDENT 1024  /* characters in one identifier */

typedef enum {
    T_EOF, T_NEWLINE, T_INDENT, T_DEDENT, T_NAME, T_INT, T_FLOAT, T_IMAG, T_STRING,
#define X(e, s) T_##e,
#include "tokens.def"
#undef X
    T_COUNT
} TokKind;

typedef struct Token {
    TokKind kind;
    uint32_t off, len;
    union {
        uint64_t i;      /* T_INT */
        double f;        /* T_FLOAT, T_IMAG (the imaginary part) */
        const char *s;   /* T_NAME (the name), T_STRING (decoded contents) */
    };
} Token;

typedef struct {
    Token *toks;
    int n;
} TokenList;

/* Validates the bytes (UTF-8, no NUL, not empty) and lexes. Returns false after reporting an
 * error that makes parsing pointless (bad bytes, unbalanced or too deeply nested brackets). */
bool lex_source(const Source *src, Arena *arena, TokenList *out);
/* The same with out->toks malloc'd (the caller frees it; the strings stay in the arena): the
 * parser frees the tokens once the AST is built. */
bool lex_source_owned(const Source *src, Arena *arena, TokenList *out);
const char *tok_spelling(TokKind k); /* "(" or "if"; "NEWLINE" etc. for layout tokens */
#endif
