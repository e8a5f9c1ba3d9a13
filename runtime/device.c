/* libqdrt's device API: errors, the metadata reader, devices, modules, arrays, fields and the
 * checks every launch gets before its backend runs it (qdrt(3)). */
#include "qdrt_backend.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- errors ---- */

static _Thread_local char errbuf[1024];

const char *qdrt_error(void) { return errbuf; }

qdrt_status qdrt_fail(qdrt_status s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errbuf, sizeof errbuf, fmt, ap);
    va_end(ap);
    return s;
}

const char *qdrt_status_name(qdrt_status s) {
    static const char *const names[] = {"ok", "bad argument", "bad module", "no device", "missing feature",
                                        "out of memory", "device error", "unsupported"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "unknown status";
}

/* ---- dtypes ---- */

static const struct { const char *name; size_t size; } dtypes[QDRT_NDTYPES] = {
    [QDRT_U1] = {"u1", 1}, [QDRT_I8] = {"i8", 1}, [QDRT_I16] = {"i16", 2}, [QDRT_I32] = {"i32", 4},
    [QDRT_I64] = {"i64", 8}, [QDRT_U8] = {"u8", 1}, [QDRT_U16] = {"u16", 2}, [QDRT_U32] = {"u32", 4},
    [QDRT_U64] = {"u64", 8}, [QDRT_F16] = {"f16", 2}, [QDRT_BF16] = {"bf16", 2}, [QDRT_F32] = {"f32", 4},
    [QDRT_F64] = {"f64", 8},
};

const char *qdrt_dtype_name(qdrt_dtype t) { return (unsigned)t < QDRT_NDTYPES ? dtypes[t].name : "?"; }
size_t qdrt_dtype_size(qdrt_dtype t) { return (unsigned)t < QDRT_NDTYPES ? dtypes[t].size : 0; }

qdrt_status qdrt_dtype_parse(const char *name, qdrt_dtype *out) {
    for (int i = 0; i < QDRT_NDTYPES; i++)
        if (!strcmp(dtypes[i].name, name)) return *out = (qdrt_dtype)i, QDRT_OK;
    return qdrt_fail(QDRT_E_MODULE, "unknown dtype '%s'", name);
}

static bool is_float(qdrt_dtype t) { return t == QDRT_F16 || t == QDRT_BF16 || t == QDRT_F32 || t == QDRT_F64; }

bool qdrt_nonzero(qdrt_dtype t, const void *p) {
    size_t n = qdrt_dtype_size(t);
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] && !(is_float(t) && i == n - 1 && b[i] == 0x80)) return true; /* -0.0 is zero */
    return false;
}

void *qdrt_slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return qdrt_fail(QDRT_E_MODULE, "cannot open %s: %s", path, strerror(errno)), NULL;
    char *p = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            char *q = realloc(p, cap = cap * 2 + 8192);
            if (!q) return free(p), fclose(f), qdrt_fail(QDRT_E_MEMORY, "out of memory reading %s", path), NULL;
            p = q;
        }
        size_t r = fread(p + n, 1, 4096, f);
        n += r;
        if (r < 4096) break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) return free(p), qdrt_fail(QDRT_E_MODULE, "cannot read %s", path), NULL;
    p[n] = 0;
    *len = n;
    return p;
}

/* ---- a small JSON reader (the metadata documents qdc writes) ---- */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } JKind;
typedef struct J {
    JKind kind;
    double num;
    char *str;        /* J_STR; the key of an object member */
    struct J *kids;   /* J_ARR, J_OBJ */
    int nkids;
    char *key;
} J;

typedef struct { const char *p; int depth; bool bad; } JP;

static void jfree(J *j) {
    for (int i = 0; i < j->nkids; i++) jfree(&j->kids[i]);
    free(j->kids), free(j->str), free(j->key);
}

static void jws(JP *p) { while (isspace((unsigned char)*p->p)) p->p++; }

static char *jstring(JP *p) {
    if (*p->p != '"') return p->bad = true, NULL;
    p->p++;
    size_t cap = 16, n = 0;
    char *s = malloc(cap);
    while (s && *p->p && *p->p != '"') {
        char c = *p->p++;
        if (c == '\\') {
            c = *p->p++;
            if (c == 'n') c = '\n';
            else if (c == 't') c = '\t';
            else if (c == 'u') { /* metadata names are ASCII identifiers: keep \u as '?' */
                for (int i = 0; i < 4 && *p->p; i++) p->p++;
                c = '?';
            } else if (!c) break;
        }
        if (n + 2 > cap) {
            char *t = realloc(s, cap *= 2);
            if (!t) return free(s), p->bad = true, NULL;
            s = t;
        }
        s[n++] = c;
    }
    if (!s || *p->p != '"') return free(s), p->bad = true, NULL;
    p->p++;
    s[n] = 0;
    return s;
}

static bool jvalue(JP *p, J *j) {
    memset(j, 0, sizeof *j);
    jws(p);
    if (++p->depth > 64) return p->bad = true, false;
    char c = *p->p;
    if (c == '{' || c == '[') {
        j->kind = c == '{' ? J_OBJ : J_ARR;
        p->p++;
        jws(p);
        char close = c == '{' ? '}' : ']';
        while (*p->p != close) {
            J *k = realloc(j->kids, (size_t)(j->nkids + 1) * sizeof *k);
            if (!k) return p->bad = true, false;
            j->kids = k;
            J *kid = &j->kids[j->nkids];
            memset(kid, 0, sizeof *kid);
            char *key = NULL;
            if (j->kind == J_OBJ) {
                jws(p);
                if (!(key = jstring(p))) return false;
                jws(p);
                if (*p->p++ != ':') return free(key), p->bad = true, false;
            }
            bool ok = jvalue(p, kid);
            kid->key = key;
            j->nkids++;
            if (!ok) return false;
            jws(p);
            if (*p->p == ',') p->p++, jws(p);
            else if (*p->p != close) return p->bad = true, false;
        }
        p->p++;
    } else if (c == '"') {
        j->kind = J_STR;
        if (!(j->str = jstring(p))) return false;
    } else if (!strncmp(p->p, "null", 4)) j->kind = J_NULL, p->p += 4;
    else if (!strncmp(p->p, "true", 4)) j->kind = J_BOOL, j->num = 1, p->p += 4;
    else if (!strncmp(p->p, "false", 5)) j->kind = J_BOOL, p->p += 5;
    else {
        char *end;
        j->kind = J_NUM;
        j->num = strtod(p->p, &end);
        if (end == p->p) return p->bad = true, false;
        p->p = end;
    }
    p->depth--;
    return true;
}

static const J *jget(const J *o, const char *key) {
    for (int i = 0; o && o->kind == J_OBJ && i < o->nkids; i++)
        if (!strcmp(o->kids[i].key, key)) return &o->kids[i];
    return NULL;
}
static const char *jstr(const J *o, const char *key) {
    const J *v = jget(o, key);
    return v && v->kind == J_STR ? v->str : NULL;
}
static long jnum(const J *o, const char *key, long dflt) {
    const J *v = jget(o, key);
    return v && (v->kind == J_NUM || v->kind == J_BOOL) ? (long)v->num : dflt;
}
static char *dup(const char *s) {
    char *d = malloc(strlen(s) + 1);
    return d ? strcpy(d, s) : NULL;
}

/* ---- metadata ---- */

static void module_meta_free(qdrt_module *m) {
    for (int i = 0; i < m->nkernels; i++) {
        Kernel *k = &m->kernels[i];
        for (int p = 0; p < k->nparams; p++) free(k->params[p].name);
        for (int t = 0; t < k->ntasks; t++) free(k->tasks[t].name);
        for (int r = 0; r < k->nrets; r++) free(k->rets[r].name);
        free(k->name), free(k->params), free(k->tasks), free(k->loops), free(k->push), free(k->rets);
    }
    for (int i = 0; i < m->nfields; i++) free(m->fields[i].name), free(m->fields[i].symbol), free(m->fields[i].levels);
    for (int i = 0; i < m->nstorages; i++) free(m->storages[i].symbol);
    free(m->kernels), free(m->fields), free(m->storages), free(m->name), free(m->target), free(m->backend);
}

static int field_index(const qdrt_module *m, const char *name) {
    for (int i = 0; i < m->nfields; i++)
        if (!strcmp(m->fields[i].name, name)) return i;
    return -1;
}

#define BAD(...) (st = qdrt_fail(QDRT_E_MODULE, __VA_ARGS__), false)

/* ---- a struct return value's C layout, from its members' dotted paths ---- */

/* Component d of a dotted path (its length in *len), or NULL past the last. */
static const char *seg(const char *path, int d, size_t *len) {
    for (; d > 0; d--)
        if (!(path = strchr(path, '.'))) return NULL;
        else path++;
    *len = strcspn(path, ".");
    return path;
}
static int depth_of(const char *path) {
    int n = 1;
    for (; *path; path++) n += *path == '.';
    return n;
}
/* The end of the group starting at member i at depth d: i + 1 for a leaf, else the run of
 * members in the same nested struct. */
static int group_end(const RetMember *r, int i, int hi, int d) {
    size_t li = 0, lj = 0;
    const char *si = seg(r[i].name, d, &li);
    if (depth_of(r[i].name) == d + 1) return i + 1;
    int j = i + 1;
    for (const char *sj; j < hi && depth_of(r[j].name) > d + 1 && (sj = seg(r[j].name, d, &lj)) && lj == li && !memcmp(si, sj, li);) j++;
    return j;
}
static size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }
static size_t align_of(const RetMember *r, int lo, int hi, int d) {
    size_t a = 1;
    for (int i = lo, j; i < hi; i = j) {
        j = group_end(r, i, hi, d);
        size_t ai = j == i + 1 && depth_of(r[i].name) == d + 1 ? qdrt_dtype_size(r[i].dtype) : align_of(r, i, j, d + 1);
        if (ai > a) a = ai;
    }
    return a;
}
/* Places members lo..hi (a struct at depth d) from base; returns the struct's size. */
static size_t place(RetMember *r, int lo, int hi, int d, size_t base) {
    size_t off = 0;
    for (int i = lo, j; i < hi; i = j) {
        j = group_end(r, i, hi, d);
        if (j == i + 1 && depth_of(r[i].name) == d + 1) {
            size_t es = qdrt_dtype_size(r[i].dtype);
            off = round_up(off, es);
            r[i].offset = base + off;
            off += es * (size_t)r[i].count;
        } else {
            off = round_up(off, align_of(r, i, j, d + 1));
            off += place(r, i, j, d + 1, base + off);
        }
    }
    return round_up(off, align_of(r, lo, hi, d));
}

/* "returns": {"field", "dtype"} (a value) or {"struct": [{"name", "dtype", "field", "shape"?}, ...]}. */
static bool parse_returns(qdrt_module *m, Kernel *k, const J *r, qdrt_status *stp) {
    qdrt_status st = QDRT_OK;
    const J *members = jget(r, "struct");
    int n = members ? members->nkids : 1;
    if (members && (members->kind != J_ARR || !n)) return *stp = qdrt_fail(QDRT_E_MODULE, "metadata: kernel %s: malformed returns", k->name), false;
    if (!(k->rets = calloc((size_t)n, sizeof *k->rets))) return *stp = qdrt_fail(QDRT_E_MEMORY, "out of memory"), false;
    for (int i = 0; i < n; i++) {
        const J *jm = members ? &members->kids[i] : r;
        const char *f = jstr(jm, "field"), *dt = jstr(jm, "dtype"), *name = members ? jstr(jm, "name") : "";
        RetMember *rm = &k->rets[k->nrets++];
        rm->name = name ? dup(name) : NULL;
        if (!f || !dt || !rm->name || !*rm->name != !members || (rm->field = field_index(m, f)) < 0 || qdrt_dtype_parse(dt, &rm->dtype)) {
            *stp = rm->name || !name ? qdrt_fail(QDRT_E_MODULE, "metadata: kernel %s: malformed returns", k->name) : qdrt_fail(QDRT_E_MEMORY, "out of memory");
            return false;
        }
        rm->count = (int)m->fields[rm->field].count;
    }
    k->ret_struct = members != NULL;
    k->ret_size = members ? place(k->rets, 0, n, 0, 0) : (size_t)k->rets[0].count * qdrt_dtype_size(k->rets[0].dtype);
    (void)st;
    return true;
}

static bool parse_kernel(qdrt_module *m, const J *jk, Kernel *k, qdrt_status *stp) {
    qdrt_status st = QDRT_OK;
    const J *ps = jget(jk, "params"), *ts = jget(jk, "tasks"), *ls = jget(jk, "loops"), *pc = jget(jk, "push_constants");
    const char *name = jstr(jk, "name");
    bool ok = true;
    k->args_binding = -1;
    if (!name || !ps || ps->kind != J_ARR || !ts || ts->kind != J_ARR || !ts->nkids) ok = BAD("metadata: a kernel without name, params or tasks");
    if (ok) k->name = dup(name);
    k->params = calloc((size_t)(ps ? ps->nkids : 0) + 1, sizeof *k->params);
    k->tasks = calloc((size_t)(ts ? ts->nkids : 0) + 1, sizeof *k->tasks);
    for (int i = 0; ok && i < ps->nkids; i++) {
        const J *jp = &ps->kids[i];
        Param *p = &k->params[k->nparams++];
        const char *pn = jstr(jp, "name"), *kind = jstr(jp, "kind"), *dt = jstr(jp, "dtype");
        if (!pn || !kind || !dt) { ok = BAD("metadata: kernel %s: a parameter without name, kind or dtype", name); break; }
        p->name = dup(pn);
        p->array = !strcmp(kind, "ndarray");
        p->ndim = p->array ? (int)jnum(jp, "ndim", 0) : 0;
        p->set = (int)jnum(jp, "set", -1), p->binding = (int)jnum(jp, "binding", -1);
        if (jget(jp, "layout")) {
            st = qdrt_fail(QDRT_E_UNSUPPORTED, "kernel %s: parameter %s has a layout (qd.tensor layout=): not supported by libqdrt yet", name, pn);
            ok = false;
        } else if (!p->array && jget(jp, "element_shape")) {
            ok = BAD("metadata: kernel %s: scalar parameter %s has an element_shape (a vector's components are scalars %s_0, ...)", name,
                     pn, pn);
        } else if (qdrt_dtype_parse(dt, &p->dtype)) ok = BAD("metadata: kernel %s: parameter %s: unknown dtype %s", name, pn, dt);
        else if (p->ndim < 0 || p->ndim > QDRT_MAX_NDIM) ok = BAD("metadata: kernel %s: parameter %s: ndim %d", name, pn, p->ndim);
    }
    for (int i = 0; ok && i < ts->nkids; i++) {
        const J *jt = &ts->kids[i];
        Task *t = &k->tasks[k->ntasks++];
        const char *tn = jstr(jt, "entry") ? jstr(jt, "entry") : jstr(jt, "name"), *kind = jstr(jt, "kind");
        if (!tn || !kind) { ok = BAD("metadata: kernel %s: a task without name or kind", name); break; }
        t->name = dup(tn);
        t->block_dim = (int)jnum(jt, "block_dim", 128);
        t->shared_bytes = jnum(jt, "shared_bytes", 0);
        t->groups = (int)jnum(jt, "groups", -1);
        const char *ext = jstr(jt, "extent");
        t->device_extent = ext && !strcmp(ext, "device");
        t->kind = !strcmp(kind, "serial") ? 1 : jnum(jt, "uses_block", 0) ? 2 : 0;
        if (t->block_dim < 1) ok = BAD("metadata: task %s: block_dim %d", tn, t->block_dim);
    }
    if (ok && ls && ls->kind == J_ARR) {
        k->loops = calloc((size_t)ls->nkids + 1, sizeof *k->loops);
        for (int i = 0; ok && k->loops && i < ls->nkids; i++) {
            const J *jl = &ls->kids[i];
            Loop *l = &k->loops[k->nloops++];
            l->first = (int)jnum(jl, "first_task", -1), l->last = (int)jnum(jl, "last_task", -1);
            l->param = (int)jnum(jget(jl, "condition"), "index", -1);
            if (l->first < 0 || l->first > l->last || l->last >= k->ntasks || l->param < 0 || l->param >= k->nparams ||
                !k->params[l->param].array)
                ok = BAD("metadata: kernel %s: malformed loop %d", name, i);
        }
    }
    if (ok && pc) {
        const J *mem = jget(pc, "members");
        k->push_size = (int)jnum(pc, "size", 0);
        const J *buf = jget(pc, "buffer"); /* a block larger than the family's push constants (qdc-spirv(7)) */
        k->args_binding = buf ? (int)jnum(buf, "binding", -1) : -1;
        if (buf && (jnum(buf, "set", -1) != 0 || k->args_binding < 0))
            ok = BAD("metadata: kernel %s: malformed push-constant buffer", name);
        k->push = calloc((size_t)(mem ? mem->nkids : 0) + 1, sizeof *k->push);
        for (int i = 0; ok && mem && i < mem->nkids; i++) {
            const J *jm = &mem->kids[i];
            PushMember *pm = &k->push[k->npush++];
            const char *pn = jstr(jm, "param"), *what = jstr(jm, "what"), *dt = jstr(jm, "dtype");
            pm->param = -1;
            for (int p = 0; pn && p < k->nparams; p++)
                if (!strcmp(k->params[p].name, pn)) pm->param = p;
            pm->value = what && !strcmp(what, "value");
            pm->axis = (int)jnum(jm, "axis", 0), pm->offset = (int)jnum(jm, "offset", -1);
            if (pm->param < 0 || !what || !dt || qdrt_dtype_parse(dt, &pm->dtype) || pm->offset < 0 ||
                pm->offset + (int)qdrt_dtype_size(pm->dtype) > k->push_size ||
                (!pm->value && pm->axis >= k->params[pm->param].ndim))
                ok = BAD("metadata: kernel %s: malformed push-constant member %d", name, i);
        }
    }
    const J *r = jget(jk, "returns");
    if (ok && r) ok = parse_returns(m, k, r, &st);
    if (ok && (!k->name || !k->params || !k->tasks)) st = qdrt_fail(QDRT_E_MEMORY, "out of memory"), ok = false;
    if (!ok) *stp = st;
    return ok;
}

/* A field in an SNode storage: the storage (the CPU's and PTX's "symbol" qd_snode_* listed in
 * "storages", SPIR-V's "storage" and "storage_bytes") and its levels when the metadata has them. */
static bool parse_snode(qdrt_module *m, const J *root, const J *jf, Field *f, qdrt_status *stp) {
    qdrt_status st = QDRT_OK;
    const char *name = jstr(jf, "storage"), *sym = jstr(jf, "symbol");
    const J *levels = jget(jf, "levels");
    size_t bytes = (size_t)jnum(jf, "storage_bytes", 0);
    if (!name && sym && !strncmp(sym, "qd_snode_", 9)) {
        name = sym;
        const J *ss = jget(root, "storages");
        for (int i = 0; ss && ss->kind == J_ARR && i < ss->nkids; i++)
            if (jstr(&ss->kids[i], "symbol") && !strcmp(jstr(&ss->kids[i], "symbol"), sym)) bytes = (size_t)jnum(&ss->kids[i], "bytes", 0);
    }
    if (!name) return true;
    int s = 0;
    while (s < m->nstorages && strcmp(m->storages[s].symbol, name)) s++;
    if (s == m->nstorages) {
        Storage *ns = realloc(m->storages, (size_t)(s + 1) * sizeof *ns);
        if (!ns) return *stp = qdrt_fail(QDRT_E_MEMORY, "out of memory"), false;
        m->storages = ns;
        memset(&ns[s], 0, sizeof ns[s]);
        if (!(ns[s].symbol = dup(name))) return *stp = qdrt_fail(QDRT_E_MEMORY, "out of memory"), false;
        ns[s].bytes = bytes;
        m->nstorages++;
        if (!bytes) return *stp = BAD("metadata: SNode storage %s has no size", name), false;
    }
    f->storage = s;
    f->byte_offset = jnum(jf, "byte_offset", 0);
    if (!levels) return true;
    if (levels->kind != J_ARR || !levels->nkids || !(f->levels = calloc((size_t)levels->nkids, sizeof *f->levels)))
        return *stp = levels->kind == J_ARR && levels->nkids ? qdrt_fail(QDRT_E_MEMORY, "out of memory") : BAD("metadata: field %s: malformed levels", f->name), false;
    bool seen[QDRT_MAX_NDIM] = {0};
    int naxes = 0;
    for (int l = 0; l < levels->nkids; l++) {
        const J *jl = &levels->kids[l], *ax = jget(jl, "axes"), *sz = jget(jl, "sizes");
        SnLevel *lv = &f->levels[f->nlevels++];
        if (!ax || !sz || ax->kind != J_ARR || sz->kind != J_ARR || ax->nkids != sz->nkids || ax->nkids > QDRT_MAX_NDIM)
            return *stp = BAD("metadata: field %s: malformed level %d", f->name, l), false;
        lv->naxes = ax->nkids, lv->cell_bytes = jnum(jl, "cell_bytes", -1), lv->child_offset = jnum(jl, "child_offset", -1);
        for (int k = 0; k < ax->nkids; k++) {
            lv->axes[k] = (int)ax->kids[k].num, lv->sizes[k] = (int64_t)sz->kids[k].num;
            if (lv->axes[k] < 0 || lv->axes[k] >= QDRT_MAX_NDIM || lv->sizes[k] < 1 || (k && lv->axes[k] <= lv->axes[k - 1]))
                return *stp = BAD("metadata: field %s: malformed level %d", f->name, l), false;
            naxes += !seen[lv->axes[k]], seen[lv->axes[k]] = true;
        }
        if (lv->cell_bytes < 1 || lv->child_offset < 0) return *stp = BAD("metadata: field %s: malformed level %d", f->name, l), false;
    }
    if (naxes != f->ndim)
        return *stp = qdrt_fail(QDRT_E_UNSUPPORTED, "field %s: %d dimensions over %d SNode axes: not supported by libqdrt", f->name, f->ndim,
                                naxes), false;
    (void)st;
    return true;
}

static qdrt_status parse_metadata(qdrt_module *m, const char *text) {
    JP p = {text, 0, false};
    J root;
    bool ok = jvalue(&p, &root);
    qdrt_status st = QDRT_OK;
    if (ok) jws(&p);
    if (!ok || p.bad || *p.p || root.kind != J_OBJ) {
        if (ok || p.bad) jfree(&root);
        return qdrt_fail(QDRT_E_MODULE, "metadata: not a JSON document (byte %ld)", (long)(p.p - text));
    }
    const J *fs = jget(&root, "fields"), *ks = jget(&root, "kernels");
    const char *mod = jstr(&root, "module"), *target = jstr(&root, "target"), *backend = jstr(&root, "backend");
    if (jnum(&root, "qdc_abi", 0) != 1) ok = BAD("metadata: qdc_abi %ld; this libqdrt reads version 1", jnum(&root, "qdc_abi", 0));
    else if (!mod || !target || !backend || !fs || fs->kind != J_ARR || !ks || ks->kind != J_ARR)
        ok = BAD("metadata: module, target, backend, fields or kernels missing");
    if (ok) {
        m->name = dup(mod), m->target = dup(target), m->backend = dup(backend);
        const char *sv = jstr(&root, "spirv_version");
        m->spirv_minor = sv && !strncmp(sv, "1.", 2) ? atoi(sv + 2) : 0;
        m->fields = calloc((size_t)fs->nkids + 1, sizeof *m->fields);
        m->kernels = calloc((size_t)ks->nkids + 1, sizeof *m->kernels);
        if (!m->name || !m->target || !m->backend || !m->fields || !m->kernels) st = qdrt_fail(QDRT_E_MEMORY, "out of memory"), ok = false;
    }
    for (int i = 0; ok && i < fs->nkids; i++) {
        const J *jf = &fs->kids[i];
        Field *f = &m->fields[m->nfields++];
        const char *fn = jstr(jf, "name"), *dt = jstr(jf, "dtype"), *sym = jstr(jf, "symbol");
        const J *shape = jget(jf, "shape");
        if (!fn || !dt || !shape || shape->kind != J_ARR || qdrt_dtype_parse(dt, &f->dtype)) { ok = BAD("metadata: field %d malformed", i); break; }
        f->name = dup(fn), f->symbol = sym ? dup(sym) : NULL;
        f->count = 1;
        f->ndim = shape->nkids;
        if (f->ndim > QDRT_MAX_NDIM) { ok = BAD("metadata: field %s has %d dimensions", fn, f->ndim); break; }
        for (int d = 0; d < shape->nkids; d++) f->shape[d] = (int64_t)shape->kids[d].num, f->count *= f->shape[d];
        f->set = (int)jnum(jf, "set", -1), f->binding = (int)jnum(jf, "binding", -1);
        f->storage = -1;
        if (!f->name || (sym && !f->symbol)) { st = qdrt_fail(QDRT_E_MEMORY, "out of memory"), ok = false; break; }
        ok = parse_snode(m, &root, jf, f, &st);
    }
    for (int i = 0; ok && i < ks->nkids; i++) ok = parse_kernel(m, &ks->kids[i], &m->kernels[m->nkernels++], &st);
    jfree(&root);
    return ok ? QDRT_OK : st;
}

/* ---- devices ---- */

static const Backend *backend_of(qdrt_device_kind k) {
    switch (k) {
    case QDRT_DEVICE_VULKAN: return &qdrt_vulkan_backend;
    case QDRT_DEVICE_CUDA: return &qdrt_cuda_backend;
    case QDRT_DEVICE_HIP: return &qdrt_hip_backend;
    case QDRT_DEVICE_CPU: return &qdrt_cpu_backend;
    default: return NULL;
    }
}

qdrt_status qdrt_device_kind_parse(const char *name, qdrt_device_kind *out) {
    static const char *const names[] = {"best", "vulkan", "cuda", "hip", "cpu"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(names[i], name)) return *out = (qdrt_device_kind)i, QDRT_OK;
    return qdrt_fail(QDRT_E_ARGUMENT, "unknown device '%s' (vulkan, cuda, hip, cpu or best)", name);
}

static qdrt_status device_open(qdrt_device_kind kind, const qdrt_vulkan_options *vk, qdrt_device **out) {
    *out = NULL;
    const Backend *be = backend_of(kind);
    if (!be) return qdrt_fail(QDRT_E_ARGUMENT, "no device kind %d", (int)kind);
    qdrt_device *d = calloc(1, sizeof *d);
    if (!d) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
    d->kind = kind, d->be = be;
    snprintf(d->name, sizeof d->name, "%s", be->name);
    qdrt_status st = be->open(d, vk);
    if (st) return free(d), st;
    *out = d;
    return QDRT_OK;
}

qdrt_status qdrt_device_open_vulkan(const qdrt_vulkan_options *opt, qdrt_device **out) {
    return device_open(QDRT_DEVICE_VULKAN, opt, out);
}

qdrt_status qdrt_device_open(qdrt_device_kind kind, qdrt_device **out) {
    *out = NULL;
    if (kind == QDRT_DEVICE_BEST) {
        static const qdrt_device_kind order[] = {QDRT_DEVICE_CUDA, QDRT_DEVICE_HIP, QDRT_DEVICE_VULKAN, QDRT_DEVICE_CPU};
        qdrt_status st = QDRT_E_NO_DEVICE;
        for (int i = 0; i < 4; i++)
            if ((st = qdrt_device_open(order[i], out)) != QDRT_E_NO_DEVICE) return st;
        return st;
    }
    return device_open(kind, NULL, out);
}

qdrt_device_kind qdrt_device_kind_of(const qdrt_device *dev) { return dev->kind; }
const char *qdrt_device_target(const qdrt_device *dev) { return dev->target; }
qdrt_device *qdrt_module_device(const qdrt_module *m) { return m->dev; }

qdrt_status qdrt_device_cap_groups(qdrt_device *dev, uint32_t max_groups) {
    dev->cap_groups = max_groups;
    return QDRT_OK;
}

double qdrt_device_last_run_ms(const qdrt_device *dev) { return dev->last_run_ms; }

double qdrt_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
const char *qdrt_device_name(const qdrt_device *dev) { return dev->name; }

void qdrt_device_close(qdrt_device *dev) {
    if (!dev) return;
    while (dev->modules) qdrt_module_free(dev->modules);
    while (dev->arrays) qdrt_array_free(dev->arrays);
    dev->be->close(dev);
    free(dev);
}

/* ---- arrays ---- */

static qdrt_status array_make(qdrt_device *dev, qdrt_dtype dtype, int ndim, const int64_t *shape, qdrt_array **out) {
    *out = NULL;
    if ((unsigned)dtype >= QDRT_NDTYPES) return qdrt_fail(QDRT_E_ARGUMENT, "array: no dtype %d", (int)dtype);
    if (ndim < 0 || ndim > QDRT_MAX_NDIM) return qdrt_fail(QDRT_E_ARGUMENT, "array: ndim %d (0..%d)", ndim, QDRT_MAX_NDIM);
    qdrt_array *a = calloc(1, sizeof *a);
    if (!a) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
    a->dev = dev, a->dtype = dtype, a->ndim = ndim;
    uint64_t n = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 0 || shape[d] > INT32_MAX || (shape[d] && n > UINT64_MAX / 16 / (uint64_t)shape[d]))
            return free(a), qdrt_fail(QDRT_E_ARGUMENT, "array: extent %lld of axis %d is out of range", (long long)shape[d], d);
        a->shape[d] = shape[d];
        n *= (uint64_t)shape[d];
    }
    a->bytes = (size_t)(n * qdrt_dtype_size(dtype));
    qdrt_status st = dev->be->alloc(a);
    if (st) return dev->be->release(a), free(a), st; /* release undoes a partial allocation */
    a->next = dev->arrays;
    if (dev->arrays) dev->arrays->prev = a;
    dev->arrays = a;
    *out = a;
    return QDRT_OK;
}

qdrt_status qdrt_array_new(qdrt_device *dev, qdrt_dtype dtype, int ndim, const int64_t *shape, qdrt_array **out) {
    return array_make(dev, dtype, ndim, shape, out);
}

size_t qdrt_array_bytes(const qdrt_array *a) { return a->bytes; }

qdrt_status qdrt_array_write(qdrt_array *a, const void *src, size_t bytes) {
    if (bytes != a->bytes) return qdrt_fail(QDRT_E_ARGUMENT, "array write: %zu bytes given, the array has %zu", bytes, a->bytes);
    return bytes ? a->dev->be->write(a, src) : QDRT_OK;
}

qdrt_status qdrt_array_read(const qdrt_array *a, void *dst, size_t bytes) {
    if (bytes != a->bytes) return qdrt_fail(QDRT_E_ARGUMENT, "array read: %zu bytes asked, the array has %zu", bytes, a->bytes);
    return bytes ? a->dev->be->read(a, dst) : QDRT_OK;
}

void qdrt_array_free(qdrt_array *a) {
    if (!a) return;
    a->dev->be->release(a);
    if (a->prev) a->prev->next = a->next;
    else if (a->dev->arrays == a) a->dev->arrays = a->next; /* a module's field is on no list */
    if (a->next) a->next->prev = a->prev;
    free(a);
}

/* ---- modules ---- */

static const char *family_word(const char *backend) {
    if (!strcmp(backend, "spirv")) return "Vulkan";
    if (!strcmp(backend, "ptx")) return "CUDA";
    if (!strcmp(backend, "amdgpu")) return "HIP";
    if (!strcmp(backend, "x86_64")) return "the CPU";
    return "Metal (no libqdrt backend: qdrt(3), METAL)";
}

/* metadata_json NULL: a module of code alone (qdrt_module_load_code). */
static qdrt_status module_load(qdrt_device *dev, const void *code, size_t size, const char *metadata_json, qdrt_module **out) {
    *out = NULL;
    qdrt_module *m = calloc(1, sizeof *m);
    if (!m) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
    m->dev = dev;
    qdrt_status st = QDRT_OK;
    if (metadata_json) st = parse_metadata(m, metadata_json);
    else if (!(m->name = dup("(no metadata)")) || !(m->target = dup("?")) || !(m->backend = dup(dev->be->family)))
        st = qdrt_fail(QDRT_E_MEMORY, "out of memory");
    if (!st && strcmp(m->backend, dev->be->family))
        st = qdrt_fail(QDRT_E_MODULE, "module %s was compiled for %s (%s, for %s); this device is %s", m->name, m->target, m->backend,
                       family_word(m->backend), dev->name);
    if (!st) st = dev->be->load(m, code, size);
    if (st) {
        module_meta_free(m);
        free(m);
        return st;
    }
    m->next = dev->modules;
    dev->modules = m;
    *out = m;
    return QDRT_OK;
}

qdrt_status qdrt_module_load_memory(qdrt_device *dev, const void *code, size_t size, const char *metadata_json, qdrt_module **out) {
    if (!metadata_json) return *out = NULL, qdrt_fail(QDRT_E_ARGUMENT, "no metadata (a module without it: qdrt_module_load_code)");
    return module_load(dev, code, size, metadata_json, out);
}

qdrt_status qdrt_module_load_code(qdrt_device *dev, const void *code, size_t size, qdrt_module **out) {
    return module_load(dev, code, size, NULL, out);
}

qdrt_status qdrt_module_load(qdrt_device *dev, const char *path, const char *metadata, qdrt_module **out) {
    *out = NULL;
    char *meta_path = NULL;
    if (!metadata) {
        const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
        size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - path) : strlen(path);
        if (!(meta_path = malloc(stem + 6))) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
        memcpy(meta_path, path, stem);
        strcpy(meta_path + stem, ".json");
        metadata = meta_path;
    }
    size_t clen, mlen;
    char *code = qdrt_slurp(path, &clen), *meta = code ? qdrt_slurp(metadata, &mlen) : NULL;
    qdrt_status st = meta ? qdrt_module_load_memory(dev, code, clen, meta, out) : strstr(errbuf, "out of memory") ? QDRT_E_MEMORY : QDRT_E_MODULE;
    if (st && meta) { /* name the files */
        char msg[sizeof errbuf];
        snprintf(msg, sizeof msg, "%s", errbuf);
        qdrt_fail(st, "%s (metadata %s): %s", path, metadata, msg);
    }
    free(code), free(meta), free(meta_path);
    return st;
}

void qdrt_module_free(qdrt_module *m) {
    if (!m) return;
    m->dev->be->unload(m);
    for (qdrt_module **p = &m->dev->modules; *p; p = &(*p)->next)
        if (*p == m) { *p = m->next; break; }
    module_meta_free(m);
    free(m);
}

static qdrt_status field_of(qdrt_module *m, const char *name, size_t bytes, Field **out) {
    int i = field_index(m, name);
    if (i < 0) return qdrt_fail(QDRT_E_ARGUMENT, "module %s has no field %s", m->name, name);
    size_t want = (size_t)m->fields[i].count * qdrt_dtype_size(m->fields[i].dtype);
    if (bytes != want) return qdrt_fail(QDRT_E_ARGUMENT, "field %s: %zu bytes given, it has %zu", name, bytes, want);
    *out = &m->fields[i];
    return QDRT_OK;
}

/* The byte offset in its storage of element e (row-major over the field's shape) of a field in
 * an SNode storage: each level's cell index row-major over its axes, each axis's index split
 * over the levels naming it (the outer the high part); the field's dimensions are its axes in
 * order (qdc-abi(7), "SNode storages"). */
static int64_t snode_offset(const Field *f, int64_t e) {
    int64_t idx[QDRT_MAX_NDIM] = {0}, inner[QDRT_MAX_NDIM];
    int dim_of[QDRT_MAX_NDIM], nd = 0;
    for (int a = 0; a < QDRT_MAX_NDIM; a++) { /* axes in order are the dimensions */
        dim_of[a] = -1;
        for (int l = 0; l < f->nlevels && dim_of[a] < 0; l++)
            for (int k = 0; k < f->levels[l].naxes; k++)
                if (f->levels[l].axes[k] == a) dim_of[a] = nd++;
    }
    for (int d = f->ndim - 1; d >= 0; d--) idx[d] = e % f->shape[d], e /= f->shape[d];
    for (int a = 0; a < QDRT_MAX_NDIM; a++) inner[a] = 1;
    int64_t off = f->byte_offset;
    for (int l = f->nlevels - 1; l >= 0; l--) { /* innermost first: inner[] is the product of the levels inside */
        const SnLevel *lv = &f->levels[l];
        int64_t cell = 0;
        for (int k = 0; k < lv->naxes; k++)
            cell = cell * lv->sizes[k] + idx[dim_of[lv->axes[k]]] / inner[lv->axes[k]] % lv->sizes[k];
        off += cell * lv->cell_bytes + lv->child_offset;
        for (int k = 0; k < lv->naxes; k++) inner[lv->axes[k]] *= lv->sizes[k];
    }
    return off;
}

/* A field in an SNode storage, copied element by element between dense and its storage. */
static qdrt_status snode_copy(qdrt_module *m, Field *f, void *dense, bool to_storage) {
    Storage *s = &m->storages[f->storage];
    if (!f->levels)
        return qdrt_fail(QDRT_E_UNSUPPORTED, "field %s is in SNode storage %s, whose layout (levels) %s's metadata does not give", f->name,
                         s->symbol, m->target);
    size_t es = qdrt_dtype_size(f->dtype);
    for (int64_t e = 0; e < f->count; e++)
        if (snode_offset(f, e) < 0 || (size_t)snode_offset(f, e) + es > s->bytes)
            return qdrt_fail(QDRT_E_MODULE, "metadata: field %s: element %lld lies outside storage %s", f->name, (long long)e, s->symbol);
    unsigned char *bytes = s->host;
    if (!bytes && !(bytes = malloc(s->bytes))) return qdrt_fail(QDRT_E_MEMORY, "out of memory");
    qdrt_status st = s->host || !s->store ? QDRT_OK : qdrt_array_read(s->store, bytes, s->bytes);
    for (int64_t e = 0; !st && e < f->count; e++) {
        unsigned char *at = bytes + snode_offset(f, e), *d = (unsigned char *)dense + (size_t)e * es;
        memcpy(to_storage ? at : d, to_storage ? d : at, es);
    }
    if (!st && to_storage && !s->host && s->store) st = qdrt_array_write(s->store, bytes, s->bytes);
    if (bytes != s->host) free(bytes);
    return st;
}

qdrt_status qdrt_field_write(qdrt_module *m, const char *name, const void *src, size_t bytes) {
    Field *f;
    qdrt_status st = field_of(m, name, bytes, &f);
    if (st) return st;
    if (f->storage >= 0) return snode_copy(m, f, (void *)src, true);
    if (f->host) return memcpy(f->host, src, bytes), QDRT_OK;
    return f->store ? qdrt_array_write(f->store, src, bytes) : QDRT_OK;
}

qdrt_status qdrt_field_read(qdrt_module *m, const char *name, void *dst, size_t bytes) {
    Field *f;
    qdrt_status st = field_of(m, name, bytes, &f);
    if (st) return st;
    if (f->storage >= 0) return snode_copy(m, f, dst, false);
    if (f->host) return memcpy(dst, f->host, bytes), QDRT_OK;
    return f->store ? qdrt_array_read(f->store, dst, bytes) : QDRT_OK;
}

/* ---- launches ---- */

static Kernel *kernel_of(const qdrt_module *m, const char *name) {
    for (int i = 0; i < m->nkernels; i++)
        if (!strcmp(m->kernels[i].name, name)) return &m->kernels[i];
    return NULL;
}

int qdrt_kernel_params(const qdrt_module *m, const char *kernel) {
    const Kernel *k = kernel_of(m, kernel);
    return k ? k->nparams : -1;
}

qdrt_status qdrt_kernel_param(const qdrt_module *m, const char *kernel, int i, const char **name, int *is_array, qdrt_dtype *dtype,
                              int *ndim) {
    const Kernel *k = kernel_of(m, kernel);
    if (!k || i < 0 || i >= k->nparams) return qdrt_fail(QDRT_E_ARGUMENT, "no parameter %d of kernel %s", i, kernel);
    *name = k->params[i].name, *is_array = k->params[i].array, *dtype = k->params[i].dtype, *ndim = k->params[i].ndim;
    return QDRT_OK;
}

size_t qdrt_kernel_ret_bytes(const qdrt_module *m, const char *kernel, qdrt_dtype *dtype) {
    const Kernel *k = kernel_of(m, kernel);
    if (!k || !k->ret_size) return 0;
    if (dtype) *dtype = k->rets[0].dtype;
    return k->ret_size;
}

int qdrt_kernel_ret_members(const qdrt_module *m, const char *kernel) {
    const Kernel *k = kernel_of(m, kernel);
    return k && k->ret_size ? k->nrets : -1;
}

qdrt_status qdrt_kernel_ret_member(const qdrt_module *m, const char *kernel, int i, const char **name, qdrt_dtype *dtype, int *count,
                                   size_t *offset) {
    const Kernel *k = kernel_of(m, kernel);
    if (!k || i < 0 || i >= k->nrets) return qdrt_fail(QDRT_E_ARGUMENT, "no return member %d of kernel %s", i, kernel);
    const RetMember *r = &k->rets[i];
    *name = r->name, *dtype = r->dtype, *count = r->count, *offset = r->offset;
    return QDRT_OK;
}

/* f to IEEE binary16 / bfloat16 bits, rounded to nearest even (qdc-abi(7): raw 16-bit patterns). */
static uint16_t half_bits(double d) {
    float f = (float)d;
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, e = (x >> 23) & 0xff, m = x & 0x7fffff;
    if (e == 0xff) return (uint16_t)(sign | 0x7c00 | (m ? 0x200 | (m >> 13) : 0)); /* inf, nan (quiet) */
    int ex = (int)e - 127 + 15;
    if (ex >= 31) return (uint16_t)(sign | 0x7c00);
    if (ex <= 0) { /* subnormal or zero: shift the full significand */
        if (ex < -10) return (uint16_t)sign;
        m |= 0x800000;
        int shift = 14 - ex;
        uint32_t h = m >> shift, rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rest > half || (rest == half && (h & 1))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)ex << 10) | (m >> 13), rest = m & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++; /* a carry into the exponent is right, up to inf */
    return (uint16_t)(sign | h);
}
static uint16_t bf16_bits(double d) {
    float f = (float)d;
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40); /* nan stays quiet */
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

/* The scalar in the parameter's C type, in the low bytes of a uint64_t. */
static qdrt_status scalar_bits(const Kernel *k, const Param *p, const qdrt_value *v, uint64_t *out) {
    union { uint64_t u; int8_t i8; int16_t i16; int32_t i32; int64_t i64; uint8_t u8; uint16_t u16; uint32_t u32; float f32; double f64; } b;
    b.u = 0;
    if (v->is_float && !is_float(p->dtype))
        return qdrt_fail(QDRT_E_ARGUMENT, "kernel %s: parameter %s is %s; a float value was given", k->name, p->name, qdrt_dtype_name(p->dtype));
    double f = v->is_float ? v->f : (double)v->i;
    switch (p->dtype) {
    case QDRT_U1: b.u8 = v->i != 0; break;
    case QDRT_I8: b.i8 = (int8_t)v->i; break;
    case QDRT_U8: b.u8 = (uint8_t)v->i; break;
    case QDRT_I16: b.i16 = (int16_t)v->i; break;
    case QDRT_U16: b.u16 = (uint16_t)v->i; break;
    case QDRT_I32: b.i32 = (int32_t)v->i; break;
    case QDRT_U32: b.u32 = (uint32_t)v->i; break;
    case QDRT_I64: case QDRT_U64: b.i64 = v->i; break;
    case QDRT_F16: b.u16 = half_bits(f); break;
    case QDRT_BF16: b.u16 = bf16_bits(f); break;
    case QDRT_F32: b.f32 = (float)f; break;
    case QDRT_F64: b.f64 = f; break;
    default: return qdrt_fail(QDRT_E_ARGUMENT, "kernel %s: parameter %s has no dtype %d", k->name, p->name, (int)p->dtype);
    }
    *out = b.u;
    return QDRT_OK;
}

/* The arguments checked against the parameters: arrays in arr[], scalars' bits in sc[]. */
static qdrt_status launch_args(const qdrt_module *m, const Kernel *k, const qdrt_value *args, qdrt_array **arr, uint64_t *sc) {
    const char *kernel = k->name;
    int nargs = k->nparams;
    for (int i = 0; i < nargs; i++) {
        const Param *p = &k->params[i];
        const qdrt_array *a = args[i].array;
        if (p->array != (a != NULL))
            return qdrt_fail(QDRT_E_ARGUMENT, "kernel %s: argument %d (%s) must be %s", kernel, i + 1, p->name,
                             p->array ? "an ndarray" : "a scalar");
        if (!a) {
            qdrt_status st = scalar_bits(k, p, &args[i], &sc[i]);
            if (st) return st;
            continue;
        }
        if (a->dev != m->dev) return qdrt_fail(QDRT_E_ARGUMENT, "kernel %s: argument %s is an array of another device", kernel, p->name);
        if (a->dtype != p->dtype)
            return qdrt_fail(QDRT_E_ARGUMENT, "kernel %s: argument %s is an ndarray of %s; the kernel takes %s", kernel, p->name,
                             qdrt_dtype_name(a->dtype), qdrt_dtype_name(p->dtype));
        if (a->ndim != p->ndim)
            return qdrt_fail(QDRT_E_ARGUMENT, "kernel %s: argument %s has %d dimension%s; the kernel takes ndim=%d", kernel, p->name,
                             a->ndim, a->ndim == 1 ? "" : "s", p->ndim);
        arr[i] = (qdrt_array *)a;
    }
    return QDRT_OK;
}

static qdrt_status launch_checked(qdrt_module *m, Kernel *k, qdrt_array **arr, const uint64_t *sc, void *ret, size_t ret_bytes) {
    const char *kernel = k->name;
    for (int l = 0; l < k->nloops; l++)
        if (!arr[k->loops[l].param]->bytes)
            return qdrt_fail(QDRT_E_ARGUMENT, "kernel %s: the loop condition %s is an empty array", kernel, k->params[k->loops[l].param].name);
    size_t want = k->ret_size;
    if (ret && ret_bytes != want)
        return qdrt_fail(QDRT_E_ARGUMENT, "kernel %s returns %zu bytes; ret has %zu", kernel, want, ret_bytes);
    qdrt_status st = m->dev->be->launch(m, k, arr, sc);
    if (ret && want && !st) memset(ret, 0, want); /* a struct's padding */
    for (int r = 0; ret && want && !st && r < k->nrets; r++) {
        const RetMember *rm = &k->rets[r];
        st = qdrt_field_read(m, m->fields[rm->field].name, (char *)ret + rm->offset, (size_t)rm->count * qdrt_dtype_size(rm->dtype));
    }
    return st;
}

qdrt_status qdrt_launch_kernel(qdrt_module *m, const char *kernel, const qdrt_value *args, int nargs, void *ret, size_t ret_bytes) {
    Kernel *k = kernel_of(m, kernel);
    if (!k) return qdrt_fail(QDRT_E_ARGUMENT, "module %s has no kernel %s", m->name, kernel);
    if (nargs != k->nparams)
        return qdrt_fail(QDRT_E_ARGUMENT, "kernel %s takes %d argument%s, %d given", kernel, k->nparams, k->nparams == 1 ? "" : "s", nargs);
    /* as many parameters as the metadata lists (a vector argument is one per component) */
    qdrt_array **arr = calloc((size_t)nargs + 1, sizeof *arr);
    uint64_t *sc = calloc((size_t)nargs + 1, sizeof *sc);
    qdrt_status st = arr && sc ? launch_args(m, k, args, arr, sc) : qdrt_fail(QDRT_E_MEMORY, "out of memory");
    if (!st) st = launch_checked(m, k, arr, sc, ret, ret_bytes);
    free(arr), free(sc);
    return st;
}

int64_t qdrt_items(const Kernel *k, qdrt_array *const *a) {
    int64_t items = 1;
    for (int i = 0; i < k->nparams; i++)
        if (a[i]) {
            int64_t n = 1;
            for (int d = 0; d < a[i]->ndim; d++) n *= a[i]->shape[d];
            if (n > items) items = n;
        }
    return items;
}

uint32_t qdrt_groups(const qdrt_device *d, const Task *t, int64_t items, uint32_t max) {
    int64_t g = t->groups >= 1 ? t->groups : (items + t->block_dim - 1) / t->block_dim;
    if (d->cap_groups && d->cap_groups < max) max = d->cap_groups;
    if (g < 1) g = 1;
    if (g > (int64_t)max) g = max;
    return (uint32_t)g;
}

qdrt_status qdrt_launch_on(qdrt_device *dev, const char *module, const char *kernel, const qdrt_value *args, int nargs, void *ret,
                           size_t ret_bytes) {
    for (qdrt_module *m = dev->modules; m; m = m->next)
        if (!strcmp(m->name, module)) return qdrt_launch_kernel(m, kernel, args, nargs, ret, ret_bytes);
    return qdrt_fail(QDRT_E_ARGUMENT, "no module %s is loaded on %s (qdrt_module_load)", module, dev->name);
}

qdrt_status qdrt_dispatch(qdrt_module *m, const qdrt_binding *b, int nb, const void *push, size_t push_bytes, const qdrt_entry *e,
                          int ne, const qdrt_repeat *loops, int nloops) {
    if (!m->dev->be->dispatch) return qdrt_fail(QDRT_E_UNSUPPORTED, "qdrt_dispatch: %s has no entry-point dispatch (Vulkan only)", m->dev->name);
    if (nb < 0 || ne < 0 || nloops < 0 || (push_bytes && !push)) return qdrt_fail(QDRT_E_ARGUMENT, "qdrt_dispatch: bad counts");
    for (int i = 0; i < nb; i++) {
        if (!b[i].array || b[i].array->dev != m->dev)
            return qdrt_fail(QDRT_E_ARGUMENT, "binding %u,%u: %s", b[i].set, b[i].binding, b[i].array ? "an array of another device" : "no array");
        if (b[i].set > 1) return qdrt_fail(QDRT_E_ARGUMENT, "binding %u,%u: set %u (qdc's modules use sets 0 and 1)", b[i].set, b[i].binding, b[i].set);
        for (int j = 0; j < i; j++)
            if (b[j].set == b[i].set && b[j].binding == b[i].binding)
                return qdrt_fail(QDRT_E_ARGUMENT, "binding %u,%u is given twice", b[i].set, b[i].binding);
    }
    for (int l = 0; l < nloops; l++) {
        const qdrt_repeat *r = &loops[l];
        if (r->first < 0 || r->first > r->last || r->last >= ne || !r->condition || r->condition->dev != m->dev ||
            (unsigned)r->dtype >= QDRT_NDTYPES || r->condition->bytes < qdrt_dtype_size(r->dtype))
            return qdrt_fail(QDRT_E_ARGUMENT, "loop %d (entries %d..%d): no such entries, or its condition is not an array of this device "
                                              "with an element", l, r->first, r->last);
    }
    return m->dev->be->dispatch(m, b, nb, push, push_bytes, e, ne, loops, nloops);
}
