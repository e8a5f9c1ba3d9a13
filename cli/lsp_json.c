/* The JSON reader of cli/lsp_json.h: recursive descent with a depth bound. */
#include "lsp_json.h"
#include "../support/util.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *p, *end;
    int depth;
} Reader;

static void skip_ws(Reader *r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) r->p++;
}

static JsonVal *new_val(JsonKind k) {
    JsonVal *v = xcalloc(1, sizeof *v);
    v->kind = k;
    return v;
}

static void put_utf8(StrBuf *b, unsigned cp) {
    if (cp < 0x80) sb_putc(b, (char)cp);
    else if (cp < 0x800) sb_putc(b, (char)(0xC0 | cp >> 6)), sb_putc(b, (char)(0x80 | (cp & 0x3F)));
    else if (cp < 0x10000)
        sb_putc(b, (char)(0xE0 | cp >> 12)), sb_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F))),
            sb_putc(b, (char)(0x80 | (cp & 0x3F)));
    else
        sb_putc(b, (char)(0xF0 | cp >> 18)), sb_putc(b, (char)(0x80 | ((cp >> 12) & 0x3F))),
            sb_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F))), sb_putc(b, (char)(0x80 | (cp & 0x3F)));
}

static bool hex4(Reader *r, unsigned *out) {
    if (r->end - r->p < 4) return false;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = r->p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return false;
    }
    r->p += 4;
    *out = v;
    return true;
}

/* A string after its opening quote, into b; false when malformed. */
static bool read_string(Reader *r, StrBuf *b) {
    while (r->p < r->end) {
        unsigned char c = (unsigned char)*r->p++;
        if (c == '"') return true;
        if (c < 0x20) return false;
        if (c != '\\') {
            sb_putc(b, (char)c);
            continue;
        }
        if (r->p >= r->end) return false;
        char e = *r->p++;
        unsigned cp;
        switch (e) {
        case '"': case '\\': case '/': sb_putc(b, e); break;
        case 'b': sb_putc(b, '\b'); break;
        case 'f': sb_putc(b, '\f'); break;
        case 'n': sb_putc(b, '\n'); break;
        case 'r': sb_putc(b, '\r'); break;
        case 't': sb_putc(b, '\t'); break;
        case 'u':
            if (!hex4(r, &cp)) return false;
            if (cp >= 0xD800 && cp < 0xDC00) { /* a surrogate pair, or U+FFFD for a lone half */
                unsigned lo;
                if (r->end - r->p >= 6 && r->p[0] == '\\' && r->p[1] == 'u') {
                    Reader save = *r;
                    r->p += 2;
                    if (hex4(r, &lo) && lo >= 0xDC00 && lo < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    else *r = save, cp = 0xFFFD;
                } else cp = 0xFFFD;
            } else if (cp >= 0xDC00 && cp < 0xE000) cp = 0xFFFD;
            put_utf8(b, cp);
            break;
        default: return false;
        }
    }
    return false;
}

static JsonVal *read_value(Reader *r);

static bool push_item(JsonVal *v, JsonVal *item, char *key) {
    if (!item) return free(key), false;
    v->items = xrealloc(v->items, sizeof *v->items * (size_t)(v->n + 1));
    if (v->kind == JV_OBJ) v->keys = xrealloc(v->keys, sizeof *v->keys * (size_t)(v->n + 1)), v->keys[v->n] = key;
    v->items[v->n++] = item;
    return true;
}

static JsonVal *read_container(Reader *r, bool obj) {
    JsonVal *v = new_val(obj ? JV_OBJ : JV_ARR);
    skip_ws(r);
    if (r->p < r->end && *r->p == (obj ? '}' : ']')) return r->p++, v;
    for (;;) {
        char *key = NULL;
        skip_ws(r);
        if (obj) {
            StrBuf kb;
            sb_init(&kb);
            sb_putc(&kb, 0), kb.len = 0;
            if (r->p >= r->end || *r->p++ != '"' || !read_string(r, &kb)) return sb_free(&kb), json_free(v), NULL;
            key = sb_take(&kb);
            skip_ws(r);
            if (r->p >= r->end || *r->p++ != ':') return free(key), json_free(v), NULL;
        }
        if (!push_item(v, read_value(r), key)) return json_free(v), NULL;
        skip_ws(r);
        if (r->p >= r->end) return json_free(v), NULL;
        char c = *r->p++;
        if (c == (obj ? '}' : ']')) return v;
        if (c != ',') return json_free(v), NULL;
    }
}

static bool literal(Reader *r, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n)) return false;
    r->p += n;
    return true;
}

static JsonVal *read_number(Reader *r) {
    const char *s = r->p;
    if (r->p < r->end && *r->p == '-') r->p++;
    if (r->p >= r->end || *r->p < '0' || *r->p > '9') return NULL;
    if (*r->p == '0') r->p++;
    else while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
    if (r->p < r->end && *r->p == '.') {
        r->p++;
        if (r->p >= r->end || *r->p < '0' || *r->p > '9') return NULL;
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
    }
    if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
        r->p++;
        if (r->p < r->end && (*r->p == '+' || *r->p == '-')) r->p++;
        if (r->p >= r->end || *r->p < '0' || *r->p > '9') return NULL;
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
    }
    char *text = xstrndup(s, (size_t)(r->p - s));
    JsonVal *v = new_val(JV_NUM);
    v->num = strtod(text, NULL);
    free(text);
    return v;
}

static JsonVal *read_value(Reader *r) {
    skip_ws(r);
    if (r->p >= r->end || ++r->depth > 64) return NULL;
    JsonVal *v = NULL;
    char c = *r->p;
    if (c == '{' || c == '[') r->p++, v = read_container(r, c == '{');
    else if (c == '"') {
        StrBuf b;
        sb_init(&b);
        sb_putc(&b, 0), b.len = 0;
        r->p++;
        if (read_string(r, &b)) v = new_val(JV_STR), v->len = b.len, v->str = sb_take(&b);
        else sb_free(&b);
    } else if (literal(r, "true")) v = new_val(JV_BOOL), v->b = true;
    else if (literal(r, "false")) v = new_val(JV_BOOL);
    else if (literal(r, "null")) v = new_val(JV_NULL);
    else v = read_number(r);
    r->depth--;
    return v;
}

JsonVal *json_parse(const char *text, size_t len) {
    Reader r = {text, text + len, 0};
    JsonVal *v = read_value(&r);
    skip_ws(&r);
    if (v && r.p != r.end) json_free(v), v = NULL;
    return v;
}

void json_free(JsonVal *v) {
    if (!v) return;
    for (int i = 0; i < v->n; i++) {
        json_free(v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items), free(v->keys), free(v->str), free(v);
}

const JsonVal *json_get(const JsonVal *v, const char *path) {
    while (v && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        const JsonVal *next = NULL;
        for (int i = 0; v->kind == JV_OBJ && i < v->n && !next; i++)
            if (strlen(v->keys[i]) == n && !memcmp(v->keys[i], path, n)) next = v->items[i];
        v = next;
        path += n + (dot != NULL);
    }
    return v;
}

const char *json_get_str(const JsonVal *v, const char *path, const char *fallback) {
    const JsonVal *m = json_get(v, path);
    return m && m->kind == JV_STR ? m->str : fallback;
}

double json_get_num(const JsonVal *v, const char *path, double fallback) {
    const JsonVal *m = json_get(v, path);
    return m && m->kind == JV_NUM ? m->num : fallback;
}

bool json_get_bool(const JsonVal *v, const char *path, bool fallback) {
    const JsonVal *m = json_get(v, path);
    return m && m->kind == JV_BOOL ? m->b : fallback;
}
