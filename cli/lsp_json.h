/* A small JSON reader for the language server (cli/lsp.c): the client's messages and the
 * JSON lines of the qdc runs it makes. Never aborts on bad input: json_parse returns NULL. */
#ifndef QDC_LSP_JSON_H
#define QDC_LSP_JSON_H
#include <stdbool.h>
#include <stddef.h>

typedef enum { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ } JsonKind;

typedef struct JsonVal JsonVal;
struct JsonVal {
    JsonKind kind;
    bool b;
    double num;
    char *str;     /* JV_STR (NUL-terminated; may hold NULs from \u0000, len counts them) */
    size_t len;
    JsonVal **items; /* JV_ARR, JV_OBJ */
    char **keys;     /* JV_OBJ */
    int n;
};

/* Parses the whole of text[0..len) (one value, surrounded by white space only); NULL when it
 * is not JSON or nests deeper than 64 levels. */
JsonVal *json_parse(const char *text, size_t len);
void json_free(JsonVal *v);
/* Member of an object (NULL when v is no object or lacks it), by a path of keys: "a.b.c". */
const JsonVal *json_get(const JsonVal *v, const char *path);
/* The member as a string / number / bool, or the fallback when absent or of another kind. */
const char *json_get_str(const JsonVal *v, const char *path, const char *fallback);
double json_get_num(const JsonVal *v, const char *path, double fallback);
bool json_get_bool(const JsonVal *v, const char *path, bool fallback);
#endif
