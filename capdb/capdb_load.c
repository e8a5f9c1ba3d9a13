/* Capability database loader: finds family files on the search path, parses them with libyaml,
 * validates every key and value against schema 1 (man/qdc-capdb.5) and resolves `extends:` and
 * `unset:`. Every problem is a located QD3xxx diagnostic; nothing is silently ignored. */
#include "capdb_int.h"
#include "../support/fileio.h"
#include "../ir/ir.h"
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

const char *const capk_names[CAPK_COUNT] = {
#define K(e, n, k) n,
#include "capdb_keys.def"
#undef K
};
const CapKeyKind capk_kinds[CAPK_COUNT] = {
#define K(e, n, k) k,
#include "capdb_keys.def"
#undef K
};

int capk_find(const char *dotted) {
    for (int i = 0; i < CAPK_COUNT; i++)
        if (!strcmp(capk_names[i], dotted)) return i;
    return -1;
}

static const char *const lowf_names[] = {"unsafe_fp_atomics", "membar_orders", "volatile_decoration", "msl_helper", "split64", "shared_u32"};
const char *lowf_name(unsigned bit) {
    for (unsigned i = 0; i < ARRAY_LEN(lowf_names); i++)
        if (bit == 1u << i) return lowf_names[i];
    return "?";
}
int lowf_from_name(const char *s) {
    for (unsigned i = 0; i < ARRAY_LEN(lowf_names); i++)
        if (!strcmp(lowf_names[i], s)) return (int)(1u << i);
    return -1;
}

static const char *const seq_names[] = {"native", "fence", "acq_rel", "none"};
static const char *const emu_names[] = {"none", "fences", "membar"};
static const char *const ordk_names[ORDK_COUNT] = {"rmw", "load", "store", "fence", "noret"};

/* dtype groups accepted wherever a dtype key is expected */
static const struct { const char *name; QdType types[13]; } dtype_groups[] = {
    {"int8", {QT_I8, QT_U8}},
    {"int16", {QT_I16, QT_U16}},
    {"int32", {QT_I32, QT_U32}},
    {"int64", {QT_I64, QT_U64}},
    {"small_int", {QT_I8, QT_U8, QT_I16, QT_U16}},
    {"int", {QT_I8, QT_I16, QT_I32, QT_I64, QT_U8, QT_U16, QT_U32, QT_U64}},
    {"float", {QT_F16, QT_BF16, QT_F32, QT_F64}},
    {"all", {QT_I8, QT_I16, QT_I32, QT_I64, QT_U8, QT_U16, QT_U32, QT_U64, QT_F16, QT_BF16, QT_F32, QT_F64}},
};

typedef struct {
    CapDb *db;
    CapTarget *t;
    yaml_document_t *doc;
    int depth; /* of nested 'else' cells: a YAML alias can make them cyclic */
    char key[160]; /* key path of the node being read ("ops.add.f32"), for CapOrigin */
} Ld;

/* Sets (at 0) or extends (at strlen) the key path; returns the old length to restore. */
static size_t key_put(Ld *L, size_t at, const char *sep, const char *name) {
    size_t old = strlen(L->key);
    snprintf(L->key + at, sizeof L->key - at, "%s%s", at ? sep : "", name);
    return old;
}

typedef struct {
    yaml_document_t doc;
    bool tried, loaded; /* parse attempted (and reported); document held */
} DocSlot;

static DocSlot *docs; /* parallel to db->targets during one load (load_begin .. load_end) */
static bool parse_one(CapDb *db, int idx);

/* ---- small YAML helpers ---- */
static Span node_span(const Ld *L, const yaml_node_t *n) {
    size_t a = n->start_mark.index, b = n->end_mark.index;
    return span_make(L->t->src, (uint32_t)a, (uint32_t)(b > a ? b - a : 1));
}
static int node_line(const yaml_node_t *n) { return (int)n->start_mark.line + 1; }
static CapOrigin origin(const Ld *L, const yaml_node_t *n) {
    return (CapOrigin){L->t->disp, node_line(n), L->key[0] ? arena_strdup(&L->db->arena, L->key) : NULL};
}
static yaml_node_t *node(const Ld *L, int id) { return yaml_document_get_node(L->doc, id); }

/* Text shown to users (cell notes, capability descriptions) without the maintainers' source
 * references: "[M5]", "[L4]", "[N1 hasClusters]" cite research notes users do not have. */
static char *user_text(const Ld *L, const char *s) {
    StrBuf b;
    sb_init(&b);
    for (const char *p = s; *p; p++) {
        const char *close = *p == '[' ? strchr(p, ']') : NULL;
        if (close && p[1] >= 'A' && p[1] <= 'Z' && p[2] >= '0' && p[2] <= '9') {
            while (b.len && b.data[b.len - 1] == ' ' && close[1] != '[') b.data[--b.len] = 0;
            p = close;
            continue;
        }
        sb_putc(&b, *p);
    }
    sb_putc(&b, 0);
    char *t = arena_strdup(&L->db->arena, b.data);
    sb_free(&b);
    return t;
}

static const char *scalar(const Ld *L, yaml_node_t *n, const char *what) {
    if (n->type == YAML_SCALAR_NODE) return (const char *)n->data.scalar.value;
    diag_error(node_span(L, n), QD3003, "%s must be a single value, not a list or map", what);
    return NULL;
}

static bool is_map(const Ld *L, yaml_node_t *n, const char *what) {
    if (n->type == YAML_MAPPING_NODE) return true;
    diag_error(node_span(L, n), QD3003, "%s must be a map", what);
    return false;
}

static bool is_seq(const Ld *L, yaml_node_t *n, const char *what) {
    if (n->type == YAML_SEQUENCE_NODE) return true;
    diag_error(node_span(L, n), QD3003, "%s must be a list", what);
    return false;
}

static uint64_t key_hash(const char *s) { /* FNV-1a */
    uint64_t h = 14695981039346656037u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* Checks a mapping for duplicate keys and non-scalar keys in one pass over a hash set of the
 * keys seen (linear: a map of a million keys must not take quadratic time). */
static bool map_keys_ok(const Ld *L, yaml_node_t *m) {
    bool ok = true;
    size_t n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start), cap = 16;
    while (cap < 2 * n) cap *= 2;
    yaml_node_t **seen = xcalloc(cap, sizeof *seen);
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(L, p->key);
        if (k->type != YAML_SCALAR_NODE) {
            diag_error(node_span(L, k), QD3003, "keys must be plain names");
            ok = false;
            continue;
        }
        const char *name = (const char *)k->data.scalar.value;
        size_t h = (size_t)key_hash(name) & (cap - 1);
        while (seen[h] && strcmp((const char *)seen[h]->data.scalar.value, name)) h = (h + 1) & (cap - 1);
        if (seen[h]) {
            diag_error(node_span(L, k), QD3004, "duplicate key '%s' (first at line %d)", name, node_line(seen[h]));
            ok = false;
        } else seen[h] = k;
    }
    free(seen);
    return ok;
}
#define CAT2_(a, b) a##b
#define CAT_(a, b) CAT2_(a, b)
#define FOR_PAIRS(L, m, kname, kn, vn) FOR_PAIRS_(L, m, kname, kn, vn, CAT_(p_, __LINE__))
#define FOR_PAIRS_(L, m, kname, kn, vn, P)                                                       \
    for (yaml_node_pair_t *P = (m)->data.mapping.pairs.start; P < (m)->data.mapping.pairs.top; P++) \
        for (yaml_node_t *kn = node(L, P->key), *vn = node(L, P->value); kn; kn = NULL)            \
            for (const char *kname = (const char *)kn->data.scalar.value; kname; kname = NULL)

static int name_index(const char *const *names, int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], s)) return i;
    return -1;
}

static bool parse_bool(const Ld *L, yaml_node_t *n, bool *out) {
    const char *s = scalar(L, n, "this key");
    if (!s) return false;
    if (!strcmp(s, "true") || !strcmp(s, "false")) return *out = s[0] == 't', true;
    diag_error(node_span(L, n), QD3003, "expected true or false, got '%s'", s);
    return false;
}

static bool parse_long(const Ld *L, yaml_node_t *n, long *out) {
    const char *s = scalar(L, n, "this key");
    if (!s) return false;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 0);
    if (*s && !*end && !errno && v >= 0) return *out = v, true;
    diag_error(node_span(L, n), QD3003, "expected a non-negative integer, got '%s'", s);
    return false;
}

/* ---- cells ---- */
static const CapCell *parse_cell(Ld *L, yaml_node_t *n);

static bool cap_declared(const CapTarget *t, const char *name) {
    for (int i = 0; i < t->caps.len; i++)
        if (!strcmp(t->caps.items[i].name, name)) return true;
    return false;
}

static bool cell_when(Ld *L, CapCell *c, yaml_node_t *v) {
    if (!is_seq(L, v, "'when'")) return false;
    int n = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
    c->when = ARENA_ARRAY(&L->db->arena, const char *, n ? n : 1);
    for (int i = 0; i < n; i++) {
        yaml_node_t *e = node(L, v->data.sequence.items.start[i]);
        const char *s = scalar(L, e, "a capability name");
        if (!s) return false;
        if (!cap_declared(L->t, s)) {
            diag_error(node_span(L, e), QD3003, "capability '%s' is not declared under 'caps:'", s);
            return false;
        }
        c->when[c->nwhen++] = arena_strdup(&L->db->arena, s);
    }
    return true;
}

static bool cell_flags(Ld *L, CapCell *c, yaml_node_t *v) {
    if (!is_seq(L, v, "'flags'")) return false;
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
        yaml_node_t *e = node(L, *it);
        const char *s = scalar(L, e, "a flag");
        int f = s ? lowf_from_name(s) : -1;
        if (f < 0) {
            if (s) diag_error(node_span(L, e), QD3003, "unknown flag '%s' (unsafe_fp_atomics, membar_orders, volatile_decoration, msl_helper, split64, shared_u32)", s);
            return false;
        }
        c->flags |= (unsigned)f;
    }
    return true;
}

static bool cell_status(const Ld *L, yaml_node_t *v, CapCell *c) {
    const char *s = scalar(L, v, "'status'");
    if (!s) return false;
    if (!strcmp(s, "native")) c->status = CS_NATIVE;
    else if (!strcmp(s, "cas")) c->status = CS_CAS;
    else if (!strcmp(s, "unsupported")) c->status = CS_UNSUPPORTED;
    else if (!strcmp(s, "native_noret")) {
        /* native when the result is unused, else a CAS loop */
        CapCell *e = ARENA_NEW(&L->db->arena, CapCell);
        *e = (CapCell){.status = CS_CAS, .max_scope = -1, .at = c->at};
        c->status = CS_NATIVE, c->unused_only = true, c->els = e;
    } else {
        diag_error(node_span(L, v), QD3003, "unknown status '%s' (native, native_noret, cas, unsupported)", s);
        return false;
    }
    return true;
}

static bool cell_key(Ld *L, CapCell *c, const char *k, yaml_node_t *kn, yaml_node_t *v) {
    if (!strcmp(k, "status")) return cell_status(L, v, c);
    if (!strcmp(k, "spelling") || !strcmp(k, "note")) {
        const char *s = scalar(L, v, k);
        if (s) *(k[0] == 's' ? &c->spelling : &c->note) = k[0] == 's' ? arena_strdup(&L->db->arena, s) : user_text(L, s);
        return s != NULL;
    }
    if (!strcmp(k, "when")) return cell_when(L, c, v);
    if (!strcmp(k, "flags")) return cell_flags(L, c, v);
    if (!strcmp(k, "unused")) return parse_bool(L, v, &c->unused_only);
    if (!strcmp(k, "max_scope")) {
        const char *s = scalar(L, v, "'max_scope'");
        if (s && (c->max_scope = qscope_from_name(s)) >= 0) return true;
        if (s) diag_error(node_span(L, v), QD3003, "unknown scope '%s'", s);
        return false;
    }
    if (!strcmp(k, "else")) {
        L->depth++;
        size_t len = key_put(L, strlen(L->key), ".", "else");
        c->els = (CapCell *)parse_cell(L, v);
        L->key[len] = 0;
        L->depth--;
        return c->els != NULL;
    }
    diag_error(node_span(L, kn), QD3002, "unknown cell key '%s' (status, spelling, when, unused, max_scope, flags, else, note)", k);
    return false;
}

static const CapCell *parse_cell(Ld *L, yaml_node_t *n) {
    if (L->depth > 16) {
        diag_error(node_span(L, n), QD3003, "'else' cells nest more than 16 deep (an alias to itself?)");
        return NULL;
    }
    CapCell *c = ARENA_NEW(&L->db->arena, CapCell);
    c->max_scope = -1;
    c->at = origin(L, n);
    if (n->type == YAML_SCALAR_NODE) return cell_status(L, n, c) ? c : NULL;
    if (!is_map(L, n, "a cell") || !map_keys_ok(L, n)) return NULL;
    bool has_status = false;
    FOR_PAIRS(L, n, k, kn, v) {
        if (!cell_key(L, c, k, kn, v)) return NULL;
        has_status |= !strcmp(k, "status");
    }
    if (!has_status) {
        diag_error(node_span(L, n), QD3007, "a cell needs a 'status'");
        return NULL;
    }
    return c;
}

/* ---- ops ---- */
static bool bit_op(QdOp op) { return op == QOP_EXCHANGE || op == QOP_CAS || op == QOP_LOAD || op == QOP_STORE; }

static int dtype_key(const char *k, QdType out[13]) {
    for (size_t g = 0; g < ARRAY_LEN(dtype_groups); g++)
        if (!strcmp(dtype_groups[g].name, k)) {
            int n = 0;
            while (n < 13 && dtype_groups[g].types[n]) out[n] = dtype_groups[g].types[n], n++;
            return n;
        }
    QdType t = qt_from_name(k);
    if (t == QT_VOID || t == QT_U1 || strcmp(qt_name(t), k)) return 0;
    return out[0] = t, 1;
}

static void set_cells(CapTarget *t, QdOp op, const QdType *ts, int n, int space, const CapCell *c, bool grouped) {
    for (int i = 0; i < n; i++) {
        if (grouped && bit_op(op) && qt_is_float(ts[i])) continue;
        for (int s = 0; s < QSPACE_COUNT; s++)
            if (space < 0 || space == s) t->cells[op][ts[i]][s] = c;
    }
}

static bool ops_dtype(Ld *L, QdOp op, const char *k, yaml_node_t *kn, yaml_node_t *v) {
    QdType ts[13];
    int n = dtype_key(k, ts);
    if (!n) {
        diag_error(node_span(L, kn), QD3002, "unknown dtype or dtype group '%s'", k);
        return false;
    }
    if (n == 1 && bit_op(op) && qt_is_float(ts[0])) {
        diag_error(node_span(L, kn), QD3003,
                   "%s on %s is decided by the same-width unsigned integer row; remove this entry", qop_name(op), k);
        return false;
    }
    bool spaced = false;
    if (v->type == YAML_MAPPING_NODE) {
        if (!map_keys_ok(L, v)) return false;
        FOR_PAIRS(L, v, sk, skn, sv) spaced |= qspace_from_name(sk) >= 0 && sv;
    }
    key_put(L, 0, "", "ops"), key_put(L, strlen(L->key), ".", qop_name(op)), key_put(L, strlen(L->key), ".", k);
    if (!spaced) {
        const CapCell *c = parse_cell(L, v);
        if (c) set_cells(L->t, op, ts, n, -1, c, n > 1);
        return c != NULL;
    }
    size_t base = strlen(L->key);
    FOR_PAIRS(L, v, sk, skn, sv) {
        int sp = qspace_from_name(sk);
        if (sp < 0) {
            diag_error(node_span(L, skn), QD3002, "unknown space '%s' (global, shared)", sk);
            return false;
        }
        key_put(L, base, ".", sk);
        const CapCell *c = parse_cell(L, sv);
        if (!c) return false;
        set_cells(L->t, op, ts, n, sp, c, n > 1);
    }
    return true;
}

static bool apply_ops(Ld *L, yaml_node_t *m) {
    if (!is_map(L, m, "'ops'") || !map_keys_ok(L, m)) return false;
    FOR_PAIRS(L, m, k, kn, v) {
        QdOp op = qop_from_name(k);
        if (op == QOP_COUNT) {
            diag_error(node_span(L, kn), QD3002, "unknown operation '%s'", k);
            return false;
        }
        if (!is_map(L, v, "an operation entry") || !map_keys_ok(L, v)) return false;
        FOR_PAIRS(L, v, dk, dkn, dv) if (!ops_dtype(L, op, dk, dkn, dv)) return false;
    }
    return true;
}

/* ---- sections ---- */
/* The range of every integer fact (CK_INT in capdb_keys.def; man/qdc-capdb.5 lists them): a
 * value outside it is QD3003 at the value, so nothing downstream sees a 0-lane subgroup, an
 * empty block or a width that does not fit an int. */
static const struct { CapKey key; long min, max; bool pow2; const char *why; } int_ranges[] = {
    {CAPK_LLVM_LARGE_FN,  0, 2147483647, false, "0 turns the check off"},
    {CAPK_LLVM_LARGE_PASSES_FN, 0, 2147483647, false, "0: llvm.passes at every size"},
    {CAPK_SUBGROUP_WIDTH, 1, 128, true, "lanes of a subgroup"},
    {CAPK_DEFAULT_BLOCK,  1, 1 << 20, false, "threads of a block"},
    {CAPK_MAX_BLOCK,      1, 1 << 20, false, "threads of a block"},
    {CAPK_MAX_SHARED,     1, 1L << 30, false, "bytes of shared memory per block"},
    {CAPK_MAX_PUSH,       128, 1L << 20, false, "bytes of a push-constant block; Vulkan guarantees 128"},
    {CAPK_CLOCK_BITS,     16, 64, false, "bits of a cycle counter"},
};

static bool int_in_range(const Ld *L, int key, yaml_node_t *v, long n) {
    for (size_t i = 0; i < ARRAY_LEN(int_ranges); i++) {
        if ((int)int_ranges[i].key != key) continue;
        long lo = int_ranges[i].min, hi = int_ranges[i].max;
        bool pow2 = int_ranges[i].pow2;
        if (n >= lo && n <= hi && (!pow2 || (n & (n - 1)) == 0)) return true;
        diag_error(node_span(L, v), QD3003, "%s is %ld: expected %s from %ld to %ld (%s)", capk_names[key], n,
                   pow2 ? "a power of two" : "an integer", lo, hi, int_ranges[i].why);
        return false;
    }
    die("integer fact '%s' has no range in capdb_load.c", capk_names[key]);
}

static bool apply_fact(Ld *L, int key, yaml_node_t *v) {
    CapFact *f = &L->t->facts[key];
    const char *s = scalar(L, v, capk_names[key]);
    if (!s) return false;
    key_put(L, 0, "", capk_names[key]);
    f->at = origin(L, v);
    f->value = arena_strdup(&L->db->arena, s);
    if (capk_kinds[key] == CK_INT) return parse_long(L, v, &f->num) && int_in_range(L, key, v, f->num);
    if (key == CAPK_REWRITE_AGGR && strcmp(s, "subgroup") && strcmp(s, "none")) {
        diag_error(node_span(L, v), QD3003, "bad value '%s' for %s (subgroup, none)", s, capk_names[key]);
        return false;
    }
    if (key == CAPK_REWRITE_REDUCE && strcmp(s, "worker") && strcmp(s, "subgroup") && strcmp(s, "none")) {
        diag_error(node_span(L, v), QD3003, "bad value '%s' for %s (worker, subgroup, none)", s, capk_names[key]);
        return false;
    }
    if (key == CAPK_CLOCK_COUNTER && strcmp(s, "readcyclecounter") && strcmp(s, "shader_clock") && strcmp(s, "none")) {
        diag_error(node_span(L, v), QD3003, "bad value '%s' for %s (readcyclecounter, shader_clock, none)", s, capk_names[key]);
        return false;
    }
    if (key == CAPK_PRINT_CHANNEL && strcmp(s, "printf") && strcmp(s, "vprintf") && strcmp(s, "debug_printf") && strcmp(s, "none")) {
        diag_error(node_span(L, v), QD3003, "bad value '%s' for %s (printf, vprintf, debug_printf, none)", s, capk_names[key]);
        return false;
    }
    if (key == CAPK_REWRITE_SG_TY) {
        static const char *const tys[] = {"int32", "int64", "f32-add", "f64-add"};
        bool ok = true;
        for (const char *w = s; *w && ok; w += strspn(w, " ")) {
            size_t n = strcspn(w, " ");
            bool known = false;
            for (int i = 0; i < 4; i++) known |= strlen(tys[i]) == n && !strncmp(tys[i], w, n);
            ok = known, w += n;
        }
        if (!ok) {
            diag_error(node_span(L, v), QD3003, "bad value '%s' for %s (a list of int32, int64, f32-add, f64-add)", s,
                       capk_names[key]);
            return false;
        }
    }
    if (capk_kinds[key] == CK_ENUM) {
        bool seq = key == CAPK_SEQ_CST;
        f->num = seq ? name_index(seq_names, 4, s) : name_index(emu_names, 3, s);
        if (f->num >= 0) return true;
        diag_error(node_span(L, v), QD3003, "bad value '%s' for %s (%s)", s, capk_names[key],
                   seq ? "native, fence, acq_rel, none" : "none, fences, membar");
        return false;
    }
    return true;
}

static bool apply_section(Ld *L, const char *sec, yaml_node_t *m) {
    if (!is_map(L, m, sec) || !map_keys_ok(L, m)) return false;
    FOR_PAIRS(L, m, k, kn, v) {
        char *dotted = xasprintf("%s.%s", sec, k);
        int key = capk_find(dotted);
        free(dotted);
        if (key < 0) {
            diag_error(node_span(L, kn), QD3002, "unknown key '%s' in section '%s'", k, sec);
            return false;
        }
        if (!apply_fact(L, key, v)) return false;
    }
    return true;
}

static bool apply_orders(Ld *L, yaml_node_t *m) {
    if (!is_map(L, m, "'orders'") || !map_keys_ok(L, m)) return false;
    FOR_PAIRS(L, m, k, kn, v) {
        int kind = name_index(ordk_names, ORDK_COUNT, k);
        if (kind < 0) {
            char dotted[64];
            snprintf(dotted, sizeof dotted, "orders.%s", k);
            int key = capk_find(dotted);
            if (key < 0) {
                diag_error(node_span(L, kn), QD3002, "unknown key '%s' in 'orders' (rmw, load, store, fence, noret, seq_cst, emulate)", k);
                return false;
            }
            if (!apply_fact(L, key, v)) return false;
            continue;
        }
        if (!is_seq(L, v, "an order list")) return false;
        unsigned mask = 0;
        for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
            yaml_node_t *e = node(L, *it);
            const char *s = scalar(L, e, "an order");
            int o = s ? qord_from_name(s) : -1;
            if (o < 0) {
                if (s) diag_error(node_span(L, e), QD3003, "unknown order '%s'", s);
                return false;
            }
            mask |= 1u << o;
        }
        L->t->orders[kind] = mask;
        key_put(L, 0, "", "orders"), key_put(L, strlen(L->key), ".", k);
        L->t->order_at[kind] = origin(L, v);
    }
    return true;
}

static bool apply_scopes(Ld *L, yaml_node_t *m) {
    if (!is_map(L, m, "'scopes'") || !map_keys_ok(L, m)) return false;
    FOR_PAIRS(L, m, k, kn, v) {
        int from = qscope_from_name(k);
        const char *s = scalar(L, v, "a scope");
        if (from < 0 || !s) {
            if (from < 0) diag_error(node_span(L, kn), QD3002, "unknown scope '%s' (block, cluster, device, system)", k);
            return false;
        }
        int to = !strcmp(s, "unsupported") ? -1 : qscope_from_name(s);
        if (to == -1 && strcmp(s, "unsupported")) {
            diag_error(node_span(L, v), QD3003, "unknown scope '%s'", s);
            return false;
        }
        if (to >= 0 && to < from) {
            diag_error(node_span(L, v), QD3003, "scope '%s' carried as '%s' would weaken it", k, s);
            return false;
        }
        L->t->scope_map[from] = to;
        key_put(L, 0, "", "scopes"), key_put(L, strlen(L->key), ".", k);
        L->t->scope_at[from] = origin(L, v);
    }
    return true;
}

static bool apply_caps(Ld *L, yaml_node_t *m) {
    if (!is_map(L, m, "'caps'") || !map_keys_ok(L, m)) return false;
    int before = L->t->caps.len; /* this map's keys are distinct (map_keys_ok): check the earlier ones only */
    FOR_PAIRS(L, m, k, kn, v) {
        const char *d = scalar(L, v, "a capability description");
        if (!d) return false;
        bool seen = false;
        for (int i = 0; i < before && !seen; i++) seen = !strcmp(L->t->caps.items[i].name, k);
        if (seen) continue; /* redeclared by a child: keep the first */
        CapCap c = {arena_strdup(&L->db->arena, k), user_text(L, d), origin(L, kn)};
        vec_push(&L->t->caps, c);
    }
    return true;
}

static bool apply_aliases(Ld *L, yaml_node_t *v) {
    if (!is_seq(L, v, "'aliases'")) return false;
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
        const char *s = scalar(L, node(L, *it), "an alias");
        if (!s) return false;
        vec_push(&L->t->aliases, arena_strdup(&L->db->arena, s));
    }
    return true;
}

/* ---- vector_atomics: one instruction for 2, 4 or 8 consecutive elements ---- */
static int vec_width_index(const char *k) {
    return !strcmp(k, "v2") ? 0 : !strcmp(k, "v4") ? 1 : !strcmp(k, "v8") ? 2 : -1;
}

/* ops: {add: {f32: {v2: cell, v4: cell}}}: add, min or max of one float dtype; a cell is
 * native or unsupported (a vector atomic the family lacks is the scalar ones, never a loop). */
static bool vector_ops(Ld *L, yaml_node_t *m) {
    if (!is_map(L, m, "'vector_atomics.ops'") || !map_keys_ok(L, m)) return false;
    FOR_PAIRS(L, m, k, kn, v) {
        QdOp op = qop_from_name(k);
        if (op != QOP_ADD && op != QOP_MIN && op != QOP_MAX) {
            diag_error(node_span(L, kn), op == QOP_COUNT ? QD3002 : QD3003,
                       "'%s' in vector_atomics.ops: vector atomics are add, min or max", k);
            return false;
        }
        if (!is_map(L, v, "an operation entry") || !map_keys_ok(L, v)) return false;
        FOR_PAIRS(L, v, dk, dkn, dv) {
            QdType dt = qt_from_name(dk);
            if (dt == QT_VOID || strcmp(qt_name(dt), dk) || !qt_is_float(dt)) {
                diag_error(node_span(L, dkn), QD3002, "'%s' in vector_atomics.ops.%s: expected one float dtype (f16, bf16, f32, f64)", dk, k);
                return false;
            }
            if (!is_map(L, dv, "a dtype entry of vector_atomics") || !map_keys_ok(L, dv)) return false;
            FOR_PAIRS(L, dv, wk, wkn, wv) {
                int w = vec_width_index(wk);
                if (w < 0) {
                    diag_error(node_span(L, wkn), QD3002, "unknown vector width '%s' (v2, v4, v8)", wk);
                    return false;
                }
                key_put(L, 0, "", "vector_atomics"), key_put(L, strlen(L->key), ".", k);
                key_put(L, strlen(L->key), ".", dk), key_put(L, strlen(L->key), ".", wk);
                const CapCell *c = parse_cell(L, wv);
                if (!c) return false;
                if (c->status == CS_CAS || c->unused_only || c->els || c->nwhen) {
                    diag_error(node_span(L, wv), QD3003, "a vector_atomics cell is 'native' or 'unsupported' (no cas, "
                                                         "native_noret, when or else)");
                    return false;
                }
                L->t->vcells[op][dt][w] = c;
            }
        }
    }
    return true;
}

static bool apply_vector(Ld *L, yaml_node_t *m) {
    if (!is_map(L, m, "'vector_atomics'") || !map_keys_ok(L, m)) return false;
    FOR_PAIRS(L, m, k, kn, v) {
        if (!strcmp(k, "ops")) {
            if (!vector_ops(L, v)) return false;
            continue;
        }
        char dotted[64];
        snprintf(dotted, sizeof dotted, "vector_atomics.%s", k);
        int key = capk_find(dotted);
        if (key < 0) {
            diag_error(node_span(L, kn), QD3002, "unknown key '%s' in 'vector_atomics' (llvm_features, ptx_isa, ops)", k);
            return false;
        }
        if (!apply_fact(L, key, v)) return false;
    }
    return true;
}

/* ---- unset: remove inherited facts ---- */
static bool unset_ops(Ld *L, yaml_node_t *e, char *rest) {
    char *dt = strchr(rest, '.');
    if (dt) *dt++ = 0;
    char *sp = dt ? strchr(dt, '.') : NULL;
    if (sp) *sp++ = 0;
    QdOp op = qop_from_name(rest);
    QdType ts[13];
    int n = dt ? dtype_key(dt, ts) : dtype_key("all", ts);
    int space = sp ? qspace_from_name(sp) : -1;
    if (op == QOP_COUNT || !n || (sp && space < 0)) {
        diag_error(node_span(L, e), QD3003, "unset path names no operation cell");
        return false;
    }
    for (int i = 0; i < n; i++)
        for (int s = 0; s < QSPACE_COUNT; s++)
            if (space < 0 || s == space) L->t->cells[op][ts[i]][s] = NULL;
    return true;
}

static bool unset_one(Ld *L, yaml_node_t *e, const char *path) {
    CapTarget *t = L->t;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    int key = capk_find(path), sc, ok;
    if (key >= 0) return t->facts[key] = (CapFact){0}, true;
    if (!strncmp(buf, "ops.", 4)) return unset_ops(L, e, buf + 4);
    if (!strcmp(path, "volatile")) return t->volatile_cell = NULL, true;
    if (!strcmp(path, "fence")) return t->fence_cell = NULL, true;
    if (!strcmp(path, "vector_atomics") || !strcmp(path, "vector_atomics.ops")) {
        memset(t->vcells, 0, sizeof t->vcells);
        if (path[14]) return true;
        t->facts[CAPK_VEC_FEATURES] = t->facts[CAPK_VEC_PTX_ISA] = (CapFact){0};
        return true;
    }
    if (!strncmp(path, "scopes.", 7) && (sc = qscope_from_name(path + 7)) >= 0) return t->scope_map[sc] = -1, true;
    if (!strncmp(path, "orders.", 7) && (ok = name_index(ordk_names, ORDK_COUNT, path + 7)) >= 0)
        return t->orders[ok] = 0, true;
    if (!strncmp(path, "caps.", 5))
        for (int i = 0; i < t->caps.len; i++)
            if (!strcmp(t->caps.items[i].name, path + 5)) {
                t->caps.items[i] = t->caps.items[--t->caps.len];
                return true;
            }
    diag_error(node_span(L, e), QD3003, "unset path '%s' names nothing this family inherits", path);
    return false;
}

static bool apply_unset(Ld *L, yaml_node_t *v) {
    if (!is_seq(L, v, "'unset'")) return false;
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
        yaml_node_t *e = node(L, *it);
        const char *s = scalar(L, e, "an unset path");
        if (!s || !unset_one(L, e, s)) return false;
    }
    return true;
}

/* ---- one file ---- */
enum { TK_SCHEMA, TK_NAME, TK_EXTENDS, TK_ABSTRACT, TK_RANK, TK_UNSET, TK_ALIASES, TK_BACKEND, TK_DESCRIPTION,
       TK_LLVM, TK_PTX, TK_AMDGPU, TK_SPIRV, TK_MSL, TK_OUTPUT, TK_LIMITS, TK_CAPS, TK_SCOPES, TK_ORDERS,
       TK_VOLATILE, TK_FENCE, TK_OPS, TK_SIMT, TK_REWRITE, TK_CLOCK, TK_PRINT, TK_VECTOR, TK_COUNT };
static const char *const top_keys[TK_COUNT] = {
    "schema", "name", "extends", "abstract", "rank", "unset", "aliases", "backend", "description",
    "llvm", "ptx", "amdgpu", "spirv", "msl", "output", "limits", "caps", "scopes", "orders",
    "volatile", "fence", "ops", "simt", "rewrite", "clock", "print", "vector_atomics"};

static bool resolve(CapDb *db, int idx, const Ld *from, yaml_node_t *ref);

static int find_file(const CapDb *db, const char *name) {
    for (int i = 0; i < db->targets.len; i++)
        if (!strcmp(db->targets.items[i]->name, name)) return i;
    return -1;
}

static void inherit(CapTarget *t, const CapTarget *p) {
    memcpy(t->facts, p->facts, sizeof t->facts);
    memcpy(t->orders, p->orders, sizeof t->orders);
    memcpy(t->order_at, p->order_at, sizeof t->order_at);
    memcpy(t->scope_map, p->scope_map, sizeof t->scope_map);
    memcpy(t->scope_at, p->scope_at, sizeof t->scope_at);
    memcpy(t->cells, p->cells, sizeof t->cells);
    memcpy(t->vcells, p->vcells, sizeof t->vcells);
    t->volatile_cell = p->volatile_cell, t->fence_cell = p->fence_cell;
    t->ops_at = p->ops_at;
    for (int i = 0; i < p->caps.len; i++) vec_push(&t->caps, p->caps.items[i]);
    for (int i = 0; i < p->files.len; i++) vec_push(&t->files, p->files.items[i]);
}

static bool header(Ld *L, yaml_node_t *root, yaml_node_t **slot) {
    long schema;
    if (!slot[TK_SCHEMA] || !slot[TK_NAME]) {
        diag_error(node_span(L, root), QD3007, "a capability file needs 'schema: %d' and 'name:'", CAPDB_SCHEMA);
        return false;
    }
    if (!parse_long(L, slot[TK_SCHEMA], &schema)) return false;
    if (schema != CAPDB_SCHEMA) {
        diag_error(node_span(L, slot[TK_SCHEMA]), QD3008, "schema %ld is not supported (this qdc reads schema %d)",
                   schema, CAPDB_SCHEMA);
        return false;
    }
    const char *name = scalar(L, slot[TK_NAME], "'name'");
    if (name && strcmp(name, L->t->name)) {
        diag_error(node_span(L, slot[TK_NAME]), QD3009, "name '%s' does not match the file name '%s.yaml'", name,
                   L->t->name);
        return false;
    }
    return name != NULL;
}

static bool apply_parent(Ld *L, yaml_node_t *v) {
    const char *pname = scalar(L, v, "'extends'");
    if (!pname) return false;
    int pi = find_file(L->db, pname);
    if (pi < 0) {
        diag_error(node_span(L, v), QD3006, "'%s' extends '%s', which is not on the capability search path",
                   L->t->name, pname);
        return false;
    }
    if (!resolve(L->db, pi, L, v)) return false;
    inherit(L->t, L->db->targets.items[pi]);
    L->t->parent = L->db->targets.items[pi]->name;
    return true;
}

static bool apply_key(Ld *L, int k, yaml_node_t *v) {
    static const char *const secs[] = {[TK_LLVM] = "llvm", [TK_PTX] = "ptx", [TK_AMDGPU] = "amdgpu",
                                       [TK_SPIRV] = "spirv", [TK_MSL] = "msl", [TK_OUTPUT] = "output",
                                       [TK_LIMITS] = "limits", [TK_SIMT] = "simt", [TK_REWRITE] = "rewrite",
                                       [TK_CLOCK] = "clock", [TK_PRINT] = "print"};
    key_put(L, 0, "", top_keys[k]);
    switch (k) {
    case TK_SCHEMA: case TK_NAME: case TK_EXTENDS: return true;
    case TK_ABSTRACT: return parse_bool(L, v, &L->t->abstract);
    case TK_RANK: return parse_long(L, v, &L->t->rank);
    case TK_UNSET: return apply_unset(L, v);
    case TK_ALIASES: return apply_aliases(L, v);
    case TK_BACKEND: return apply_fact(L, CAPK_BACKEND, v);
    case TK_DESCRIPTION: return apply_fact(L, CAPK_DESCRIPTION, v);
    case TK_CAPS: return apply_caps(L, v);
    case TK_SCOPES: return apply_scopes(L, v);
    case TK_ORDERS: return apply_orders(L, v);
    case TK_VOLATILE: return (L->t->volatile_cell = parse_cell(L, v)) != NULL;
    case TK_FENCE: return (L->t->fence_cell = parse_cell(L, v)) != NULL;
    case TK_OPS: L->t->ops_at = origin(L, v); return apply_ops(L, v);
    case TK_VECTOR: return apply_vector(L, v);
    default: return apply_section(L, secs[k], v);
    }
}

static const char *const backends[] = {"ptx", "amdgpu", "spirv", "msl", "x86_64"};

static bool apply_file(Ld *L) {
    yaml_node_t *root = yaml_document_get_root_node(L->doc);
    if (!root) {
        diag_error(span_make(L->t->src, 0, 0), QD3007, "capability file '%s' is empty", L->t->path);
        return false;
    }
    if (!is_map(L, root, "a capability file") || !map_keys_ok(L, root)) return false;
    yaml_node_t *slot[TK_COUNT] = {0};
    FOR_PAIRS(L, root, k, kn, v) {
        int i = name_index(top_keys, TK_COUNT, k);
        if (i < 0) {
            diag_error(node_span(L, kn), QD3002, "unknown key '%s'", k);
            return false;
        }
        slot[i] = v;
    }
    if (!header(L, root, slot)) return false;
    if (slot[TK_EXTENDS] && !apply_parent(L, slot[TK_EXTENDS])) return false;
    vec_push(&L->t->files, L->t->disp);
    for (int k = 0; k < TK_COUNT; k++) /* fixed order: unset first, caps before ops */
        if (slot[k] && !apply_key(L, k, slot[k])) return false;
    const char *be = L->t->facts[CAPK_BACKEND].value;
    if (!be) {
        diag_error(node_span(L, root), QD3007, "'%s' has no 'backend' (and extends no family that has one)",
                   L->t->name);
        return false;
    }
    if (name_index(backends, ARRAY_LEN(backends), be) < 0) {
        diag_error(span_make(L->t->src, 0, 1), QD3003, "unknown backend '%s' (ptx, amdgpu, spirv, msl, x86_64)", be);
        return false;
    }
    if (slot[TK_VECTOR] && strcmp(be, "ptx")) { /* the only backend that emits them (nvptx_vec.c) */
        diag_error(node_span(L, slot[TK_VECTOR]), QD3003, "vector_atomics is implemented for the ptx backend only, not '%s'", be);
        return false;
    }
    /* facts backends read with no default in C: every selectable family states them */
    static const struct { const char *backend; CapKey key; } required[] = {
        {NULL, CAPK_DEFAULT_BLOCK}, {NULL, CAPK_MAX_BLOCK}, {NULL, CAPK_SUBGROUP_WIDTH},
        {"spirv", CAPK_SPIRV_ENV},  {"msl", CAPK_SPIRV_ENV}, {"spirv", CAPK_MAX_PUSH},
    };
    for (size_t i = 0; i < ARRAY_LEN(required) && !L->t->abstract; i++)
        if ((!required[i].backend || !strcmp(required[i].backend, be)) && !L->t->facts[required[i].key].value) {
            diag_error(node_span(L, root), QD3007, "'%s' (backend %s) has no '%s' (and extends no family that has one)",
                       L->t->name, be, capk_names[required[i].key]);
            return false;
        }
    const CapFact *dflt = &L->t->facts[CAPK_DEFAULT_BLOCK], *max = &L->t->facts[CAPK_MAX_BLOCK];
    if (dflt->value && max->value && dflt->num > max->num) { /* blame the one this file sets */
        bool here = max->at.file && !strcmp(max->at.file, L->t->disp);
        diag_error(cap_where(L->t, capk_names[here ? CAPK_MAX_BLOCK : CAPK_DEFAULT_BLOCK]), QD3003,
                   "limits.default_block_dim of '%s' (%ld) is larger than its limits.max_block_dim (%ld)", L->t->name,
                   dflt->num, max->num);
        return false;
    }
    CapCell *m = L->t->missing = ARENA_NEW(&L->db->arena, CapCell);
    *m = (CapCell){.status = CS_UNSUPPORTED, .max_scope = -1, .at = L->t->ops_at, .note = "no entry in the database"};
    if (!m->at.file) m->at = (CapOrigin){L->t->disp, 1, NULL};
    return true;
}

static bool resolve(CapDb *db, int idx, const Ld *from, yaml_node_t *ref) {
    CapTarget *t = db->targets.items[idx];
    if (t->state) {
        if (t->state == 1 && from)
            diag_error(node_span(from, ref), QD3005, "'%s' extends '%s', which extends it back (a cycle)",
                       from->t->name, t->name);
        return t->state == 2;
    }
    t->state = 1;
    Ld L = {db, t, &docs[idx].doc, 0, ""};
    bool ok = parse_one(db, idx) && apply_file(&L);
    t->state = ok ? 2 : 3;
    int parent = ok && t->parent ? find_file(db, t->parent) : -1;
    t->user = t->from_dir < db->nuser || (parent >= 0 && db->targets.items[parent]->user);
    return ok;
}

/* ---- discovery ---- */
static char *display_name(const char *dir, const char *file) {
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    size_t b = n;
    while (b > 0 && dir[b - 1] != '/') b--;
    return xasprintf("%.*s/%s", (int)(n - b), dir + b, file);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The *.yaml names in dir, sorted (so loading order never depends on readdir). */
static int list_yaml(const char *dir, char ***out) {
    VEC(char *) names = {0};
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n > 5 && !strcmp(e->d_name + n - 5, ".yaml") && e->d_name[0] != '.') vec_push(&names, xstrdup(e->d_name));
    }
    if (d) closedir(d);
    if (names.len) qsort(names.items, (size_t)names.len, sizeof(char *), cmp_str);
    *out = names.items;
    return names.len;
}

static bool parse_doc(CapTarget *t, DocSlot *slot) {
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)t->src->text, t->src->len);
    slot->tried = true;
    slot->loaded = yaml_parser_load(&p, &slot->doc);
    if (!slot->loaded || p.error != YAML_NO_ERROR) {
        size_t off = p.problem_mark.index <= t->src->len ? p.problem_mark.index : 0;
        diag_error(span_make(t->src, (uint32_t)off, 1), QD3001, "%s%s%s", p.problem ? p.problem : "invalid YAML",
                   p.context ? " " : "", p.context ? p.context : "");
        if (slot->loaded) yaml_document_delete(&slot->doc);
        slot->loaded = false;
    }
    yaml_parser_delete(&p);
    return slot->loaded;
}

/* Reads a discovered file's text (once); false after reporting why it cannot be read. */
static bool read_text(CapDb *db, CapTarget *t) {
    if (t->src) return true;
    char *text = NULL;
    size_t len = 0;
    int err = 0;
    ReadStatus rs = read_file(t->path, 4u << 20, &text, &len, &err);
    if (rs != READ_OK) { /* say what is wrong; never a made-up errno */
        diag_error((Span){0}, QD0001, "cannot read capability file '%s': %s", t->path,
                   rs == READ_ISDIR ? "Is a directory" : rs == READ_TOO_LARGE ? "larger than the 4 MiB limit" : strerror(err));
        free(text);
        return false;
    }
    t->src = source_new(t->path, text, len);
    vec_push(&db->sources, t->src);
    free(text);
    return true;
}

/* The file's YAML document for this load, read and parsed on first use. A failure is reported
 * once per load (a quiet alias scan leaves the slot untried, so a real use reports it). */
static bool parse_one(CapDb *db, int idx) {
    DocSlot *slot = &docs[idx];
    if (slot->tried) return slot->loaded;
    CapTarget *t = db->targets.items[idx];
    if (!read_text(db, t)) return slot->tried = true, slot->loaded = false;
    return parse_doc(t, slot);
}

/* A discovered family file, not read yet: reading, parsing and resolving happen when a run
 * needs the family (capdb_target) or every family (listings, capdb_load_all). */
static void add_file(CapDb *db, const char *dir, const char *file, int from_dir) {
    char *path = xasprintf("%s/%s", dir, file);
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) { /* a FIFO would block every command */
        diag_warning((Span){0}, QD3011, "'%s' is skipped: a capability file must be a regular file", path);
        free(path);
        return;
    }
    CapTarget *t = ARENA_NEW(&db->arena, CapTarget);
    t->db = db;
    t->name = arena_strndup(&db->arena, file, strlen(file) - 5);
    t->path = arena_strdup(&db->arena, path);
    char *disp = display_name(dir, file);
    t->disp = arena_strdup(&db->arena, disp);
    free(disp);
    t->rank = 1000000;
    t->from_dir = from_dir;
    for (int s = 0; s < QSCOPE_COUNT; s++) t->scope_map[s] = -1;
    vec_push(&db->targets, t);
    free(path);
}

static int cmp_target(const void *a, const void *b) {
    const CapTarget *x = *(CapTarget *const *)a, *y = *(CapTarget *const *)b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return strcmp(x->name, y->name);
}

static bool check_names(CapDb *db) {
    bool ok = true;
    for (int i = 0; i < db->targets.len; i++) {
        CapTarget *t = db->targets.items[i];
        for (int a = 0; a < t->aliases.len; a++) {
            const char *al = t->aliases.items[a];
            for (int j = 0; j < db->targets.len; j++) {
                CapTarget *u = db->targets.items[j];
                bool clash = !strcmp(u->name, al);
                for (int b = 0; b < u->aliases.len && !clash; b++) clash = u != t && !strcmp(u->aliases.items[b], al);
                /* blame the file from the earlier (user) directory, or the later-loaded one */
                bool blame = u->from_dir != t->from_dir ? u->from_dir > t->from_dir : j < i;
                if (clash && (blame || !strcmp(u->name, al))) {
                    diag_error(span_make(t->src, 0, 1), QD3009, "alias '%s' of '%s' is already used by '%s'", al,
                               t->name, u->name);
                    ok = false;
                }
            }
        }
    }
    return ok;
}

static void load_begin(CapDb *db) { docs = xcalloc((size_t)db->targets.len + 1, sizeof *docs); }

/* Drops the documents of one load and puts the resolved families in listing order (rank,
 * then name; files not loaded last). */
static void load_end(CapDb *db) {
    for (int i = 0; i < db->targets.len; i++)
        if (docs[i].loaded) yaml_document_delete(&docs[i].doc);
    free(docs);
    docs = NULL;
    qsort(db->targets.items, (size_t)db->targets.len, sizeof(CapTarget *), cmp_target);
}

/* Only the search: every *.yaml file's name and place (first directory wins), nothing read. */
static void discover(CapDb *db, const char *const *dirs, int ndirs, int nuser) {
    db->nuser = nuser;
    for (int d = 0; d < ndirs; d++) {
        char **names;
        int n = list_yaml(dirs[d], &names);
        for (int i = 0; i < n; i++) {
            char *base = xstrndup(names[i], strlen(names[i]) - 5);
            int first = find_file(db, base);
            if (first < 0) add_file(db, dirs[d], names[i], d);
            else if (db->targets.items[first]->from_dir < nuser) {
                char *path = xasprintf("%s/%s", dirs[d], names[i]);
                diag_warning((Span){0}, QD0008, "capability file '%s' shadows '%s' (user directories come first)",
                             db->targets.items[first]->path, path);
                free(path);
            }
            free(base);
            free(names[i]);
        }
        free(names);
    }
}

CapDb *capdb_open(const char *const *dirs, int ndirs) { return capdb_open_search(dirs, ndirs, 0); }

CapDb *capdb_open_search(const char *const *dirs, int ndirs, int nuser) {
    CapDb *db = xcalloc(1, sizeof *db);
    discover(db, dirs, ndirs, nuser);
    bool ok = true;
    load_begin(db);
    for (int i = 0; i < db->targets.len; i++) ok &= parse_one(db, i);
    for (int i = 0; ok && i < db->targets.len; i++) ok &= resolve(db, i, NULL, NULL);
    load_end(db);
    db->all = true;
    ok = ok && check_names(db);
    if (!ok || !db->targets.len) {
        if (ok) diag_error((Span){0}, QD3007, "no capability files found on the search path");
        capdb_close(db);
        return NULL;
    }
    return db;
}

CapDb *capdb_open_lazy(const char *const *dirs, int ndirs, int nuser) {
    CapDb *db = xcalloc(1, sizeof *db);
    db->lazy = true;
    discover(db, dirs, ndirs, nuser);
    if (!db->targets.len) {
        diag_error((Span){0}, QD3007, "no capability files found on the search path");
        capdb_close(db);
        return NULL;
    }
    return db;
}

/* Whether the top-level `aliases:` of file idx names `name`; parsing is quiet (an unusable file
 * is reported only where a run needs it). */
static bool declares_alias(CapDb *db, int idx, const char *name) {
    int mark = diag_quiet_begin();
    bool parsed = parse_one(db, idx);
    if (diag_quiet_end(mark) || !parsed) {
        if (docs[idx].loaded) yaml_document_delete(&docs[idx].doc);
        docs[idx] = (DocSlot){0};
        return false;
    }
    yaml_document_t *doc = &docs[idx].doc;
    yaml_node_t *root = yaml_document_get_root_node(doc);
    if (!root || root->type != YAML_MAPPING_NODE) return false;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key), *v = yaml_document_get_node(doc, p->value);
        if (!k || k->type != YAML_SCALAR_NODE || strcmp((const char *)k->data.scalar.value, "aliases") || !v ||
            v->type != YAML_SEQUENCE_NODE)
            continue;
        for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
            yaml_node_t *a = yaml_document_get_node(doc, *it);
            if (a && a->type == YAML_SCALAR_NODE && !strcmp((const char *)a->data.scalar.value, name)) return true;
        }
    }
    return false;
}

const CapTarget *capdb_target(const CapDb *cdb, const char *name) {
    CapDb *db = (CapDb *)cdb;
    const CapTarget *hit = NULL;
    for (int i = 0; i < db->targets.len && !hit; i++) {
        const CapTarget *t = db->targets.items[i];
        if (t->state != 2 || t->abstract) continue;
        if (!strcmp(t->name, name)) hit = t;
        for (int a = 0; a < t->aliases.len && !hit; a++)
            if (!strcmp(t->aliases.items[a], name)) hit = t;
    }
    if (hit || db->all) return hit;
    /* a lazy database: the file of that name and its parents, else the file declaring the alias */
    load_begin(db);
    int idx = find_file(db, name);
    CapTarget *t = idx >= 0 ? db->targets.items[idx] : NULL;
    if (t && !t->state && resolve(db, idx, NULL, NULL) && !t->abstract) hit = t;
    for (int i = 0; !hit && !t && i < db->targets.len; i++) {
        CapTarget *u = db->targets.items[i];
        if (!u->state && declares_alias(db, i, name) && resolve(db, i, NULL, NULL) && !u->abstract) hit = u;
    }
    load_end(db);
    return hit;
}

/* Every family of a lazy database, for listings and "did you mean": a file that cannot be loaded
 * is left out quietly (a run that names it reports why). */
void capdb_load_all(const CapDb *cdb) {
    CapDb *db = (CapDb *)cdb;
    if (db->all) return;
    db->all = true;
    int mark = diag_quiet_begin();
    load_begin(db);
    for (int i = 0; i < db->targets.len; i++)
        if (!db->targets.items[i]->state) resolve(db, i, NULL, NULL);
    load_end(db);
    diag_quiet_end(mark);
}

void capdb_close(CapDb *db) {
    if (!db) return;
    for (int i = 0; i < db->targets.len; i++) {
        vec_free(&db->targets.items[i]->caps);
        vec_free(&db->targets.items[i]->aliases);
        vec_free(&db->targets.items[i]->files);
    }
    for (int i = 0; i < db->sources.len; i++) source_free(db->sources.items[i]);
    vec_free(&db->targets);
    vec_free(&db->sources);
    free(db->names_csv);
    arena_free(&db->arena);
    free(db);
}
