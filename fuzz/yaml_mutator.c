/* Structure-aware YAML mutator for fuzz_capdb (see yaml_mutator.h). Trees are parsed with
 * libyaml, mutated node by node with words and subtrees learnt from the real database, and
 * re-emitted with libyaml's emitter, so nearly every mutant reaches the schema checks. */
#include "yaml_mutator.h"
#include "../support/util.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef enum { YS, YQ, YM } YKind; /* scalar, sequence, mapping (kid[2i] key, kid[2i+1] value) */
typedef struct YNode {
    YKind kind;
    char *s;
    struct YNode **kid;
    int n;
} YNode;

typedef struct { const char *key; const YNode *value; } Donor;

static VEC(char *) keys, vals;   /* dictionary words: mapping keys, scalar values */
static VEC(Donor) donors;        /* every key/value pair of the real database */
static VEC(YNode *) donor_roots; /* the trees they point into, kept for the life of the process */
static uint64_t rng_state;

static unsigned rnd(unsigned n) {
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return n ? (unsigned)(rng_state % n) : 0;
}

/* ---- trees ---- */
static YNode *ynew(YKind k, const char *s) {
    YNode *n = xcalloc(1, sizeof *n);
    n->kind = k;
    n->s = s ? xstrdup(s) : NULL;
    return n;
}

static void yfree(YNode *n) {
    if (!n) return;
    for (int i = 0; i < n->n; i++) yfree(n->kid[i]);
    free(n->kid), free(n->s), free(n);
}

static void ypush(YNode *n, YNode *k) {
    n->kid = xrealloc(n->kid, sizeof *n->kid * (size_t)(n->n + 1));
    n->kid[n->n++] = k;
}

static YNode *yclone(const YNode *n) {
    YNode *c = ynew(n->kind, n->s);
    for (int i = 0; i < n->n; i++) ypush(c, yclone(n->kid[i]));
    return c;
}

static int ysize(const YNode *n) {
    int s = 1;
    for (int i = 0; i < n->n; i++) s += ysize(n->kid[i]);
    return s;
}

/* budget bounds the tree: aliases can make a small document expand exponentially */
static YNode *from_doc(yaml_document_t *d, yaml_node_t *n, int depth, int *budget) {
    if (!n || depth > 32 || --*budget < 0) return ynew(YS, "");
    if (n->type == YAML_SCALAR_NODE) return ynew(YS, (const char *)n->data.scalar.value);
    YNode *t = ynew(n->type == YAML_SEQUENCE_NODE ? YQ : YM, NULL);
    if (n->type == YAML_SEQUENCE_NODE)
        for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++)
            ypush(t, from_doc(d, yaml_document_get_node(d, *i), depth + 1, budget));
    else
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
            ypush(t, from_doc(d, yaml_document_get_node(d, p->key), depth + 1, budget));
            ypush(t, from_doc(d, yaml_document_get_node(d, p->value), depth + 1, budget));
        }
    return t;
}

static YNode *yparse(const uint8_t *data, size_t size) {
    yaml_parser_t p;
    yaml_document_t d;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, data, size);
    YNode *t = NULL;
    if (yaml_parser_load(&p, &d)) {
        yaml_node_t *root = yaml_document_get_root_node(&d);
        int budget = 20000;
        if (root) t = from_doc(&d, root, 0, &budget);
        yaml_document_delete(&d);
    }
    yaml_parser_delete(&p);
    return t;
}

static int to_doc(yaml_document_t *d, const YNode *n) {
    if (n->kind == YS) return yaml_document_add_scalar(d, NULL, (yaml_char_t *)n->s, (int)strlen(n->s), YAML_ANY_SCALAR_STYLE);
    if (n->kind == YQ) {
        int id = yaml_document_add_sequence(d, NULL, rnd(6) ? YAML_BLOCK_SEQUENCE_STYLE : YAML_FLOW_SEQUENCE_STYLE);
        for (int i = 0; i < n->n; i++) yaml_document_append_sequence_item(d, id, to_doc(d, n->kid[i]));
        return id;
    }
    int id = yaml_document_add_mapping(d, NULL, rnd(8) ? YAML_BLOCK_MAPPING_STYLE : YAML_FLOW_MAPPING_STYLE);
    for (int i = 0; i + 1 < n->n; i += 2) {
        int k = to_doc(d, n->kid[i]);
        yaml_document_append_mapping_pair(d, id, k, to_doc(d, n->kid[i + 1]));
    }
    return id;
}

/* Emits t into out; 0 if it does not fit or the emitter refuses it. */
static size_t yemit(const YNode *t, uint8_t *out, size_t max) {
    yaml_document_t d;
    yaml_emitter_t e;
    size_t written = 0;
    if (!yaml_document_initialize(&d, NULL, NULL, NULL, 1, 1)) return 0;
    to_doc(&d, t);
    yaml_emitter_initialize(&e);
    yaml_emitter_set_output_string(&e, out, max, &written);
    yaml_emitter_set_unicode(&e, 1);
    yaml_emitter_set_width(&e, -1);
    int ok = yaml_emitter_open(&e) && yaml_emitter_dump(&e, &d) && yaml_emitter_close(&e);
    yaml_emitter_delete(&e);
    return ok ? written : 0;
}

/* ---- picking nodes: the n-th node in preorder, with its parent ---- */
typedef struct { YNode *node, *parent; int index; } Pick;

static bool pick_walk(YNode *n, YNode *parent, int index, int *left, Pick *out) {
    if ((*left)-- == 0) return *out = (Pick){n, parent, index}, true;
    for (int i = 0; i < n->n; i++)
        if (pick_walk(n->kid[i], n, i, left, out)) return true;
    return false;
}

static Pick pick(YNode *root) {
    int left = (int)rnd((unsigned)ysize(root));
    Pick p = {root, NULL, 0};
    pick_walk(root, NULL, 0, &left, &p);
    return p;
}

/* A random container (map or list) with at least min entries, or NULL after a few tries. */
static YNode *pick_container(YNode *root, int min) {
    for (int tries = 0; tries < 16; tries++) {
        YNode *n = pick(root).node;
        if (n->kind != YS && n->n / (n->kind == YM ? 2 : 1) >= min) return n;
    }
    return NULL;
}

static const char *word(bool key) { return key ? keys.items[rnd((unsigned)keys.len)] : vals.items[rnd((unsigned)vals.len)]; }

/* The key under which p.node is a value, if any. */
static const char *key_of(Pick p) {
    if (!p.parent || p.parent->kind != YM || p.index % 2 == 0) return NULL;
    YNode *k = p.parent->kid[p.index - 1];
    return k->kind == YS ? k->s : NULL;
}

/* A donor value: one stored under the same key when there is one, else any. */
static YNode *donor_for(const char *key) {
    int start = (int)rnd((unsigned)donors.len);
    for (int i = 0; key && i < donors.len; i++) {
        const Donor *d = &donors.items[(start + i) % donors.len];
        if (!strcmp(d->key, key)) return yclone(d->value);
    }
    return yclone(donors.items[start].value);
}

/* ---- mutations: each returns false when it found nothing to do ---- */
static bool m_value(YNode *root) {
    Pick p = pick(root);
    if (p.node->kind != YS) return false;
    const char *k = key_of(p);
    const char *w = k && rnd(2) ? NULL : word(p.parent && p.parent->kind == YM && p.index % 2 == 0);
    if (!w) {
        YNode *d = donor_for(k);
        bool scalar = d->kind == YS;
        if (scalar) free(p.node->s), p.node->s = xstrdup(d->s);
        yfree(d);
        return scalar;
    }
    free(p.node->s);
    p.node->s = xstrdup(w);
    return true;
}

static bool m_delete(YNode *root) {
    YNode *c = pick_container(root, 1);
    if (!c) return false;
    int w = c->kind == YM ? 2 : 1, i = (int)rnd((unsigned)(c->n / w)) * w;
    for (int j = 0; j < w; j++) yfree(c->kid[i + j]);
    memmove(c->kid + i, c->kid + i + w, sizeof *c->kid * (size_t)(c->n - i - w));
    c->n -= w;
    return true;
}

static void insert_at(YNode *c, int at, YNode *a, YNode *b) {
    ypush(c, a);
    if (b) ypush(c, b);
    int w = b ? 2 : 1;
    memmove(c->kid + at + w, c->kid + at, sizeof *c->kid * (size_t)(c->n - w - at));
    c->kid[at] = a;
    if (b) c->kid[at + 1] = b;
}

static bool m_duplicate(YNode *root) {
    YNode *c = pick_container(root, 1);
    if (!c) return false;
    int w = c->kind == YM ? 2 : 1, i = (int)rnd((unsigned)(c->n / w)) * w;
    int at = (int)rnd((unsigned)(c->n / w + 1)) * w;
    insert_at(c, at, yclone(c->kid[i]), w == 2 ? yclone(c->kid[i + 1]) : NULL);
    return true;
}

static bool m_swap(YNode *root) {
    YNode *c = pick_container(root, 2);
    if (!c) return false;
    int w = c->kind == YM ? 2 : 1, a = (int)rnd((unsigned)(c->n / w)) * w, b = (int)rnd((unsigned)(c->n / w)) * w;
    for (int j = 0; j < w; j++) {
        YNode *t = c->kid[a + j];
        c->kid[a + j] = c->kid[b + j], c->kid[b + j] = t;
    }
    return a != b;
}

/* A new entry: a dictionary key with a value that real files store under it (or a word). */
static bool m_insert(YNode *root) {
    YNode *c = pick_container(root, 0);
    if (!c) return false;
    const char *k = word(true);
    YNode *v = rnd(3) ? donor_for(k) : ynew(YS, word(false));
    if (c->kind == YQ) return insert_at(c, (int)rnd((unsigned)c->n + 1), v, NULL), true;
    insert_at(c, (int)rnd((unsigned)(c->n / 2 + 1)) * 2, ynew(YS, k), v);
    return true;
}

/* scalar <-> list <-> map */
static bool m_retype(YNode *root) {
    YNode *n = pick(root).node;
    if (n->kind == YS) {
        YNode *s = ynew(YS, n->s);
        free(n->s), n->s = NULL;
        n->kind = rnd(2) ? YQ : YM;
        if (n->kind == YM) ypush(n, ynew(YS, word(true)));
        ypush(n, s);
        return true;
    }
    if (rnd(2) || n->n == 0) { /* to a scalar */
        for (int i = 0; i < n->n; i++) yfree(n->kid[i]);
        free(n->kid), n->kid = NULL, n->n = 0;
        n->kind = YS, n->s = xstrdup(word(false));
        return true;
    }
    if (n->kind == YM) return n->kind = YQ, true; /* keys and values become list items */
    if (n->n % 2) ypush(n, ynew(YS, word(false)));
    return n->kind = YM, true;
}

/* Replaces a subtree with a real one stored under the same key. */
static bool m_graft(YNode *root) {
    Pick p = pick(root);
    if (!p.parent) return false;
    YNode *d = donor_for(key_of(p));
    yfree(p.parent->kid[p.index]);
    p.parent->kid[p.index] = d;
    return true;
}

static bool (*const mutations[])(YNode *) = {m_value, m_value, m_value, m_delete, m_duplicate, m_swap,
                                             m_insert, m_insert, m_retype, m_graft, m_graft};

size_t ymut_mutate(uint8_t *data, size_t size, size_t max_size, unsigned seed) {
    rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
    YNode *t = yparse(data, size);
    if (!t || !keys.len || !vals.len || !donors.len) return yfree(t), 0;
    for (int k = 1 + (int)rnd(3), tries = 0; k > 0 && tries < 20; tries++) k -= mutations[rnd(ARRAY_LEN(mutations))](t);
    size_t n = yemit(t, data, max_size);
    yfree(t);
    return n;
}

static YNode *random_subtree(YNode *t) { return yclone(pick(t).node); }

size_t ymut_cross(const uint8_t *a, size_t na, const uint8_t *b, size_t nb, uint8_t *out, size_t max_size,
                  unsigned seed) {
    rng_state = seed * 0x9E3779B97F4A7C15ull + 7;
    YNode *x = yparse(a, na), *y = yparse(b, nb);
    size_t n = 0;
    if (x && y) {
        Pick p = pick(x);
        if (p.parent) yfree(p.parent->kid[p.index]), p.parent->kid[p.index] = random_subtree(y);
        n = yemit(x, out, max_size);
    }
    yfree(x), yfree(y);
    return n;
}

/* ---- the dictionary ---- */
static bool known(const char *s, bool key) {
    for (int i = 0; i < (key ? keys.len : vals.len); i++)
        if (!strcmp(key ? keys.items[i] : vals.items[i], s)) return true;
    return false;
}
static void learn(const char *s, bool key) {
    if (known(s, key)) return;
    if (key) vec_push(&keys, xstrdup(s));
    else vec_push(&vals, xstrdup(s));
}

static void learn_tree(const YNode *n) {
    if (n->kind == YS) return learn(n->s, false);
    for (int i = 0; i < n->n; i++) {
        if (n->kind == YM && i % 2 == 0 && n->kid[i]->kind == YS) {
            learn(n->kid[i]->s, true);
            vec_push(&donors, ((Donor){n->kid[i]->s, n->kid[i + 1]}));
            continue;
        }
        learn_tree(n->kid[i]);
    }
}

/* Words the checked-in files do not use but the loader knows (dtype groups, unset paths, ...). */
static const char *const extra_keys[] = {"abstract", "unset", "extends", "aliases", "when", "else", "unused",
    "max_scope", "flags", "note", "cluster", "small_int", "int8", "int16", "float", "i8", "u8", "i16", "u16",
    "i32", "u32", "i64", "u64", "f16", "bf16", "f32", "f64", "global", "shared", "code_object", "bogus"};
static const char *const extra_vals[] = {"fuzzfam", "true", "false", "0", "1", "2", "-1", "0x7fffffff",
    "99999999999999999999", "", "native_noret", "unsupported", "fences", "membar", "none", "fence", "acq_rel",
    "unsafe_fp_atomics", "membar_orders", "volatile_decoration", "ops.add", "ops.add.f32", "ops.add.f32.global",
    "ops.cas.int32.shared", "ops.add.nosuch", "ops.nosuch", "scopes.block", "scopes.system", "orders.rmw",
    "orders.noret", "caps.int64-atomics", "volatile", "fence", "llvm.cpu", "limits.max_block_dim", "backend",
    "cluster", "x86_64", "ptx", "spirv", "amdgpu", "msl"};

void ymut_init(const char *dir) {
    for (size_t i = 0; i < ARRAY_LEN(extra_keys); i++) learn(extra_keys[i], true);
    for (size_t i = 0; i < ARRAY_LEN(extra_vals); i++) learn(extra_vals[i], false);
    struct dirent **ents;
    int nents = scandir(dir, &ents, NULL, alphasort); /* sorted: the same seed, the same run */
    for (int i = 0; i < nents; i++) {
        char *name = ents[i]->d_name;
        size_t n = strlen(name);
        if (n > 5 && !strcmp(name + n - 5, ".yaml")) {
            char *path = xasprintf("%s/%s", dir, name);
            name[n - 5] = 0;
            learn(name, false); /* family names, for extends: */
            FILE *f = fopen(path, "rb");
            static uint8_t buf[1 << 16];
            size_t len = f ? fread(buf, 1, sizeof buf, f) : 0;
            if (f) fclose(f);
            YNode *t = len ? yparse(buf, len) : NULL;
            if (t) {
                learn_tree(t);
                vec_push(&donor_roots, t);
            }
            free(path);
        }
        free(ents[i]);
    }
    if (nents > 0) free(ents);
}
