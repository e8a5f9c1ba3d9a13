/* JSON strings and URI references: the only place machine-readable text is escaped. */
#include "json.h"
#include <stdio.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at p (at most n bytes), 0 if it is not one:
 * no overlong forms, no surrogates, nothing above U+10FFFF (RFC 3629). */
static size_t utf8_len(const unsigned char *p, size_t n) {
    unsigned c = p[0];
    size_t len = c < 0xC2 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0;
    if (!len || len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && p[1] < 0xA0) return 0; /* overlong */
    if (c == 0xED && p[1] >= 0xA0) return 0; /* surrogate */
    if (c == 0xF0 && p[1] < 0x90) return 0; /* overlong */
    if (c == 0xF4 && p[1] >= 0x90) return 0; /* above U+10FFFF */
    return len;
}

void json_strn(StrBuf *b, const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    sb_putc(b, '"');
    while (p < end) {
        unsigned c = *p;
        if (c >= 0x80) {
            size_t len = utf8_len(p, (size_t)(end - p));
            if (len) sb_append(b, p, len), p += len;
            else sb_puts(b, "\\ufffd"), p++;
            continue;
        }
        switch (c) {
        case '"': sb_puts(b, "\\\""); break;
        case '\\': sb_puts(b, "\\\\"); break;
        case '\n': sb_puts(b, "\\n"); break;
        case '\r': sb_puts(b, "\\r"); break;
        case '\t': sb_puts(b, "\\t"); break;
        default:
            if (c < 0x20 || c == 0x7F) sb_printf(b, "\\u%04x", c);
            else sb_putc(b, (char)c);
        }
        p++;
    }
    sb_putc(b, '"');
}

void json_str(StrBuf *b, const char *s) { json_strn(b, s, strlen(s)); }

void json_strf(StrBuf *b, const char *fmt, ...) {
    StrBuf t;
    sb_init(&t);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&t, fmt, ap);
    va_end(ap);
    json_strn(b, t.data ? t.data : "", t.len);
    sb_free(&t);
}

void json_uri(StrBuf *b, const char *path) {
    StrBuf t;
    sb_init(&t);
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("-._~/", *p))
            sb_putc(&t, (char)*p);
        else
            sb_printf(&t, "%%%02X", *p);
    }
    json_strn(b, t.data ? t.data : "", t.len);
    sb_free(&t);
}
