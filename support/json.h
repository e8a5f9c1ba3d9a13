/* The one JSON writer behind every machine-readable output (JSON-lines and SARIF diagnostics,
 * --report-lowering=json, --print-caps --format=json, metadata): strings always escaped and
 * always valid UTF-8, paths as URI references where SARIF wants a URI. */
#ifndef QDC_JSON_H
#define QDC_JSON_H
#include "util.h"

/* Appends s as a JSON string: quotes, backslashes and control characters escaped, each byte
 * that is not part of well-formed UTF-8 replaced by U+FFFD ("\ufffd"). */
void json_str(StrBuf *b, const char *s);
void json_strn(StrBuf *b, const char *s, size_t n);
/* Appends a printf-formatted text as a JSON string ("file:line" values). */
void json_strf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends path as a JSON string holding an RFC 3986 URI reference: every byte outside the
 * unreserved set and '/' percent-encoded ("sp ace.qd" -> "sp%20ace.qd", 0xFF -> "%FF"). */
void json_uri(StrBuf *b, const char *path);
#endif
