/* The SPIR-V binary builder: sections, ids, hash-consing, sorted capability/extension sets. */
#include "spvbuild.h"
#include <stdlib.h>
#include <string.h>

struct SpvConsEntry {
    uint32_t hash, id;
    int n;         /* key words: opcode then operands */
    uint32_t w[];
};

void spv_init(SpvBuilder *b) {
    memset(b, 0, sizeof *b);
    b->next_id = 1;
}

void spv_free(SpvBuilder *b) {
    for (int i = 0; i < SPV_SEC_COUNT; i++) vec_free(&b->sec[i]);
    for (int i = 0; i < b->exts.len; i++) free(b->exts.items[i]);
    for (int i = 0; i < b->cons.len; i++) free(b->cons.items[i]);
    vec_free(&b->caps);
    vec_free(&b->exts);
    vec_free(&b->cons);
}

uint32_t spv_id(SpvBuilder *b) { return b->next_id++; }

void spv_cap(SpvBuilder *b, SpvCapability cap) {
    for (int i = 0; i < b->caps.len; i++)
        if (b->caps.items[i] == (uint32_t)cap) return;
    vec_push(&b->caps, (uint32_t)cap);
}

void spv_ext(SpvBuilder *b, const char *name) {
    for (int i = 0; i < b->exts.len; i++)
        if (!strcmp(b->exts.items[i], name)) return;
    vec_push(&b->exts, xstrdup(name));
}

uint32_t spv_glsl_std(SpvBuilder *b) {
    if (!b->glsl_std) {
        b->glsl_std = spv_id(b);
        spv_inst_str(b, SPV_SEC_IMPORT, SpvOpExtInstImport, &b->glsl_std, 1, "GLSL.std.450", NULL, 0);
    }
    return b->glsl_std;
}

static void put(SpvWords *s, uint32_t w) { vec_push(s, w); }

void spv_inst(SpvBuilder *b, SpvSection s, SpvOp op, const uint32_t *w, int n) {
    put(&b->sec[s], (uint32_t)(n + 1) << 16 | (uint32_t)op);
    for (int i = 0; i < n; i++) put(&b->sec[s], w[i]);
}

static int str_words(const char *str) { return (int)(strlen(str) / 4 + 1); }

static void put_str(SpvWords *s, const char *str) {
    size_t len = strlen(str);
    for (size_t i = 0; i <= len; i += 4) {
        uint32_t w = 0;
        for (size_t k = 0; k < 4 && i + k < len; k++) w |= (uint32_t)(uint8_t)str[i + k] << (8 * k);
        put(s, w);
    }
}

void spv_inst_str(SpvBuilder *b, SpvSection s, SpvOp op, const uint32_t *pre, int npre,
                  const char *str, const uint32_t *post, int npost) {
    SpvWords *sec = &b->sec[s];
    put(sec, (uint32_t)(1 + npre + str_words(str) + npost) << 16 | (uint32_t)op);
    for (int i = 0; i < npre; i++) put(sec, pre[i]);
    put_str(sec, str);
    for (int i = 0; i < npost; i++) put(sec, post[i]);
}

static uint32_t hash_words(const uint32_t *w, int n) {
    uint32_t h = 2166136261u;
    for (int i = 0; i < n; i++) h = (h ^ w[i]) * 16777619u;
    return h;
}

/* Types and constants share one table; a constant's key starts with its type id. */
uint32_t spv_cons(SpvBuilder *b, SpvOp op, const uint32_t *w, int n, bool *fresh) {
    SpvConsEntry *e = xmalloc(sizeof *e + sizeof(uint32_t) * (size_t)(n + 1));
    e->n = n + 1;
    e->w[0] = (uint32_t)op;
    if (n) memcpy(e->w + 1, w, sizeof(uint32_t) * (size_t)n);
    e->hash = hash_words(e->w, e->n);
    for (int i = 0; i < b->cons.len; i++) {
        SpvConsEntry *o = b->cons.items[i];
        if (o->hash == e->hash && o->n == e->n && !memcmp(o->w, e->w, sizeof(uint32_t) * (size_t)e->n)) {
            free(e);
            if (fresh) *fresh = false;
            return o->id;
        }
    }
    e->id = spv_id(b);
    vec_push(&b->cons, e);
    bool is_const = op != SpvOpTypeVoid && (op < SpvOpTypeVoid || op > SpvOpTypeForwardPointer);
    SpvWords *sec = &b->sec[SPV_SEC_GLOBAL];
    put(sec, (uint32_t)(n + 2) << 16 | (uint32_t)op);
    if (is_const && n > 0) { /* constants: result type, result id, literals */
        put(sec, w[0]);
        put(sec, e->id);
        for (int i = 1; i < n; i++) put(sec, w[i]);
    } else {
        put(sec, e->id);
        for (int i = 0; i < n; i++) put(sec, w[i]);
    }
    if (fresh) *fresh = true;
    return e->id;
}

uint32_t spv_type0(SpvBuilder *b, SpvOp op) { return spv_cons(b, op, NULL, 0, NULL); }

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void spv_finish(SpvBuilder *b, int version_minor, StrBuf *out) {
    SpvWords all = {0};
    put(&all, SpvMagicNumber);
    put(&all, 1u << 16 | (uint32_t)version_minor << 8);
    put(&all, 0); /* generator: unregistered */
    put(&all, b->next_id);
    put(&all, 0);
    if (b->caps.len) qsort(b->caps.items, (size_t)b->caps.len, sizeof(uint32_t), cmp_u32);
    if (b->exts.len) qsort(b->exts.items, (size_t)b->exts.len, sizeof(char *), cmp_str);
    for (int i = 0; i < b->caps.len; i++) {
        put(&all, 2u << 16 | SpvOpCapability);
        put(&all, b->caps.items[i]);
    }
    for (int i = 0; i < b->exts.len; i++) {
        put(&all, (uint32_t)(1 + str_words(b->exts.items[i])) << 16 | SpvOpExtension);
        put_str(&all, b->exts.items[i]);
    }
    for (int s = 0; s < SPV_SEC_COUNT; s++)
        for (int i = 0; i < b->sec[s].len; i++) put(&all, b->sec[s].items[i]);
    sb_append(out, all.items, sizeof(uint32_t) * (size_t)all.len);
    vec_free(&all);
}
