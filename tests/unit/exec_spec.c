/* The execution tests' examples and atomics matrix (see exec_spec.h). */
#include "exec_spec.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- examples: inputs and exact checks ---- */

static uint32_t rng_state = 12345;
static uint32_t next(void) { return rng_state = rng_state * 1664525u + 1013904223u; }

static ExBuf *buf(ExArgs *a, size_t elem, size_t n) {
    ExBuf *b = &a->bufs[a->nbufs++];
    b->host = calloc(n ? n : 1, elem);
    b->elem = elem, b->n = n, b->extent = (int32_t)n;
    return b;
}

void exec_args_free(ExArgs *a) {
    for (int i = 0; i < a->nbufs; i++) free(a->bufs[i].host);
    a->nbufs = 0;
}

#define I32(b) ((int32_t *)(b)->host)
#define U32(b) ((uint32_t *)(b)->host)
#define F32(b) ((float *)(b)->host)

static int fail(ExArgs *a, const char *what, long i, double got, double want) {
    snprintf(a->why, sizeof a->why, "%s[%ld] = %.9g, expected %.9g", what, i, got, want);
    return 0;
}

static void histogram_setup(ExArgs *a, int n) {
    ExBuf *d = buf(a, 4, (size_t)n), *b = buf(a, 4, 256);
    for (int i = 0; i < n; i++) I32(d)[i] = (int32_t)next();
    for (int i = 0; i < 256; i++) I32(b)[i] = -7; /* the kernel zeroes the bins */
    a->grid_items = (n + 255) / 256 * 256;
}
static int histogram_check(ExArgs *a, int n) {
    int want[256] = {0};
    for (int i = 0; i < n; i++) want[I32(&a->bufs[0])[i] & 255]++;
    for (int b = 0; b < 256; b++)
        if (I32(&a->bufs[1])[b] != want[b]) return fail(a, "bins", b, I32(&a->bufs[1])[b], want[b]);
    return 1;
}

static void float_sum_setup(ExArgs *a, int n) {
    ExBuf *x = buf(a, 4, (size_t)n), *o = buf(a, 4, 2);
    /* Multiples of 1/4 in [-4, 4]: every partial sum of up to 2^18 terms and of their squares
     * (multiples of 1/16 up to 16) is exact in f32, so any summation order gives one answer. */
    for (int i = 0; i < n; i++) F32(x)[i] = (float)((int)(next() % 33) - 16) * 0.25f;
    F32(o)[0] = F32(o)[1] = -1;
    a->grid_items = n;
}
static int float_sum_check(ExArgs *a, int n) {
    double s = 0, q = 0;
    for (int i = 0; i < n; i++) s += F32(&a->bufs[0])[i], q += (double)F32(&a->bufs[0])[i] * F32(&a->bufs[0])[i];
    if (F32(&a->bufs[1])[0] != (float)s) return fail(a, "out", 0, F32(&a->bufs[1])[0], s);
    if (F32(&a->bufs[1])[1] != (float)q) return fail(a, "out", 1, F32(&a->bufs[1])[1], q);
    return 1;
}

static void bitflags_setup(ExArgs *a, int n) {
    ExBuf *k = buf(a, 4, (size_t)n);
    buf(a, 4, 1024), buf(a, 4, 2);
    for (int i = 0; i < n; i++) U32(k)[i] = next() | 0x00010001u;
    a->grid_items = n;
}
static int bitflags_check(ExArgs *a, int n) {
    uint32_t want[1024] = {0}, x = 0, y = ~0u;
    for (int i = 0; i < n; i++) {
        uint32_t k = U32(&a->bufs[0])[i];
        want[(k >> 5) % 1024] |= 1u << (k & 31), x ^= k, y &= k;
    }
    for (int w = 0; w < 1024; w++)
        if (U32(&a->bufs[1])[w] != want[w]) return fail(a, "present", w, U32(&a->bufs[1])[w], want[w]);
    if (U32(&a->bufs[2])[0] != x) return fail(a, "acc", 0, U32(&a->bufs[2])[0], x);
    if (U32(&a->bufs[2])[1] != y) return fail(a, "acc", 1, U32(&a->bufs[2])[1], y);
    return 1;
}

static void cas_max_setup(ExArgs *a, int n) {
    ExBuf *c = buf(a, 4, (size_t)n);
    buf(a, 4, 1);
    for (int i = 0; i < n; i++) I32(c)[i] = (int32_t)(next() % 2000001u) - 1000000;
    if (n > 3) I32(c)[n / 3] = -2147483647, I32(c)[n / 2] = 2147483646; /* |x| near 2^31 */
    a->grid_items = n;
}
static int cas_max_check(ExArgs *a, int n) {
    int32_t want = 0;
    for (int i = 0; i < n; i++) {
        int32_t v = abs(I32(&a->bufs[0])[i]);
        if (v > want) want = v;
    }
    return I32(&a->bufs[1])[0] == want ? 1 : fail(a, "best", 0, I32(&a->bufs[1])[0], want);
}

static void compaction_setup(ExArgs *a, int n) {
    ExBuf *s = buf(a, 4, (size_t)n);
    buf(a, 4, (size_t)n), buf(a, 4, (size_t)n), buf(a, 4, 1);
    for (int i = 0; i < n; i++) I32(s)[i] = (int32_t)(next() % 1000u);
    a->scalar = 500, a->has_scalar = 1, a->grid_items = n;
}
static int compaction_check(ExArgs *a, int n) {
    int32_t *src = I32(&a->bufs[0]), *val = I32(&a->bufs[1]), *idx = I32(&a->bufs[2]);
    int want = 0;
    char *seen = calloc((size_t)n, 1);
    for (int i = 0; i < n; i++) want += src[i] > a->scalar;
    int ok = I32(&a->bufs[3])[0] == want || fail(a, "n_out", 0, I32(&a->bufs[3])[0], want);
    for (int k = 0; ok && k < want; k++) {
        int i = idx[k];
        if (i < 0 || i >= n || seen[i] || src[i] <= a->scalar || val[k] != src[i]) ok = fail(a, "dst_idx", k, i, -1);
        else seen[i] = 1;
    }
    free(seen);
    return ok;
}

static void last_block_setup(ExArgs *a, int n) {
    ExBuf *b = buf(a, 4, (size_t)n);
    for (int i = 0; i < n; i++) I32(b)[i] = -7;
    a->grid_items = n;
}
static int last_block_check(ExArgs *a, int n) {
    for (int i = 0; i < n; i++)
        if (I32(&a->bufs[0])[i] != i + 1) return fail(a, "a", i, I32(&a->bufs[0])[i], i + 1);
    return 1;
}

static void spin_chain_setup(ExArgs *a, int n) {
    ExBuf *x = buf(a, 4, (size_t)n), *o = buf(a, 4, (size_t)n), *f = buf(a, 4, (size_t)n);
    for (int i = 0; i < n; i++) I32(x)[i] = (int32_t)(next() % 100u), I32(o)[i] = -7, I32(f)[i] = 5;
    a->grid_items = n;
}
static int spin_chain_check(ExArgs *a, int n) {
    int32_t acc = 0;
    for (int t = 0; t < n; t++) {
        acc += I32(&a->bufs[0])[t];
        if (I32(&a->bufs[1])[t] != acc) return fail(a, "out", t, I32(&a->bufs[1])[t], acc);
    }
    return 1;
}

/* minmax: three arrays of different lengths (n, n/2 + 1, n/3 + 1). */
static void minmax_setup(ExArgs *a, int n) {
    int m = n / 2 + 1, k = n / 3 + 1;
    ExBuf *ia = buf(a, 4, (size_t)n), *ua = buf(a, 4, (size_t)m), *fa = buf(a, 4, (size_t)k);
    buf(a, 4, 2), buf(a, 4, 2), buf(a, 4, 2);
    for (int i = 0; i < n; i++) I32(ia)[i] = (int32_t)next();
    for (int i = 0; i < m; i++) U32(ua)[i] = next(); /* values >= 2^31 must compare unsigned */
    for (int i = 0; i < k; i++) F32(fa)[i] = (float)((int32_t)next() >> 8) * 0.125f;
    a->grid_items = n;
}
static int minmax_check(ExArgs *a, int n) {
    int m = n / 2 + 1, k = n / 3 + 1;
    int32_t imin = INT32_MAX, imax = INT32_MIN;
    uint32_t umin = UINT32_MAX, umax = 0;
    float fmin = INFINITY, fmax = -INFINITY;
    for (int i = 0; i < n; i++) imin = I32(&a->bufs[0])[i] < imin ? I32(&a->bufs[0])[i] : imin, imax = I32(&a->bufs[0])[i] > imax ? I32(&a->bufs[0])[i] : imax;
    for (int i = 0; i < m; i++) umin = U32(&a->bufs[1])[i] < umin ? U32(&a->bufs[1])[i] : umin, umax = U32(&a->bufs[1])[i] > umax ? U32(&a->bufs[1])[i] : umax;
    for (int i = 0; i < k; i++) fmin = fminf(fmin, F32(&a->bufs[2])[i]), fmax = fmaxf(fmax, F32(&a->bufs[2])[i]);
    if (I32(&a->bufs[3])[0] != imin) return fail(a, "ires", 0, I32(&a->bufs[3])[0], imin);
    if (I32(&a->bufs[3])[1] != imax) return fail(a, "ires", 1, I32(&a->bufs[3])[1], imax);
    if (U32(&a->bufs[4])[0] != umin) return fail(a, "ures", 0, U32(&a->bufs[4])[0], umin);
    if (U32(&a->bufs[4])[1] != umax) return fail(a, "ures", 1, U32(&a->bufs[4])[1], umax);
    if (F32(&a->bufs[5])[0] != fmin) return fail(a, "fres", 0, F32(&a->bufs[5])[0], fmin);
    if (F32(&a->bufs[5])[1] != fmax) return fail(a, "fres", 1, F32(&a->bufs[5])[1], fmax);
    return 1;
}

static void exchange_handoff_setup(ExArgs *a, int n) {
    ExBuf *link = buf(a, 4, (size_t)n), *head = buf(a, 4, 1), *w = buf(a, 4, (size_t)n), *box = buf(a, 4, (size_t)n);
    ExBuf *got = buf(a, 4, (size_t)n);
    I32(head)[0] = 7;
    for (int i = 0; i < n; i++) I32(link)[i] = -9, F32(w)[i] = (float)(i + 1), F32(box)[i] = -1, F32(got)[i] = -2;
    a->grid_items = n;
}
static int exchange_handoff_check(ExArgs *a, int n) {
    int32_t *link = I32(&a->bufs[0]);
    float *w = F32(&a->bufs[2]), *box = F32(&a->bufs[3]), *got = F32(&a->bufs[4]);
    char *seen = calloc((size_t)n, 1);
    int len = 0, ok = 1;
    for (int p = I32(&a->bufs[1])[0]; p != -1 && ok; p = link[p], len++) {
        if (p < 0 || p >= n || seen[p]) ok = fail(a, "link", p, p, -1);
        else seen[p] = 1;
    }
    free(seen);
    if (ok && len != n) ok = fail(a, "list length", 0, len, n);
    for (int j = 0; ok && j < n; j++) {
        if (got[j] != w[(j + 1) % n]) ok = fail(a, "got", j, got[j], w[(j + 1) % n]);
        else if (box[j] != 0.0f) ok = fail(a, "box", j, box[j], 0);
    }
    return ok;
}

static void vec_bins_setup(ExArgs *a, int n) {
    ExBuf *d = buf(a, 4, (size_t)n), *o = buf(a, 4, 12);
    for (int i = 0; i < n; i++) I32(d)[i] = (int32_t)next();
    for (int k = 0; k < 12; k++) I32(o)[k] = -7; /* the kernel zeroes the bins */
    a->grid_items = n;
}
static int vec_bins_check(ExArgs *a, int n) { /* each component's sum exact */
    int32_t want[12] = {0};
    for (int i = 0; i < n; i++) {
        int32_t x = I32(&a->bufs[0])[i];
        want[(x & 3) * 3] += 1, want[(x & 3) * 3 + 1] += x & 15, want[(x & 3) * 3 + 2] -= x & 7;
    }
    for (int k = 0; k < 12; k++)
        if (I32(&a->bufs[1])[k] != want[k]) return fail(a, "bins", k, I32(&a->bufs[1])[k], want[k]);
    return 1;
}

const Example exec_examples[] = {
    {"histogram", "histogram", histogram_setup, histogram_check, 0},
    {"shared_histogram", "shared_histogram", histogram_setup, histogram_check, 1},
    {"float_sum", "float_sum", float_sum_setup, float_sum_check, 0},
    {"bitflags", "bitflags", bitflags_setup, bitflags_check, 0},
    {"cas_max", "cas_max", cas_max_setup, cas_max_check, 0},
    {"compaction", "compact", compaction_setup, compaction_check, 0},
    {"last_block", "last_block", last_block_setup, last_block_check, 0},
    {"spin_chain", "spin_chain", spin_chain_setup, spin_chain_check, 0},
    {"minmax", "minmax", minmax_setup, minmax_check, 0},
    {"exchange_handoff", "exchange_handoff", exchange_handoff_setup, exchange_handoff_check, 0},
    {"vec_bins", "vec_bins", vec_bins_setup, vec_bins_check, 0},
};
const int exec_nexamples = (int)(sizeof exec_examples / sizeof exec_examples[0]);

const Example *exec_example(const char *name) {
    for (int i = 0; i < exec_nexamples; i++)
        if (!strcmp(exec_examples[i].name, name)) return &exec_examples[i];
    return NULL;
}

/* ---- the atomics matrix ---- */

const char *const xdtype_name[XD_COUNT] = {"i32", "u32", "i64", "u64", "f32", "f64"};
const char *const xspace_name[XS_COUNT] = {"global", "shared", "field"};
const char *const xop_name[XO_COUNT] = {"add", "sub", "mul", "min", "max", "and", "or", "xor", "exchange", "inc", "dec", "cas",
                                        "load_store"};
static const char *const load_order[3] = {"relaxed", "acquire", "seq_cst"}, *const store_order[3] = {"relaxed", "release", "seq_cst"};
const char *const xorder_name[XORDERS] = {"relaxed", "acquire", "release", "acq_rel", "seq_cst"};

int xdtype_size(int dt) { return dt == XD_I64 || dt == XD_U64 || dt == XD_F64 ? 8 : 4; }
static int is_float(int dt) { return dt == XD_F32 || dt == XD_F64; }
int xop_valid(int dt, int op) { return !is_float(dt) || op <= XO_MAX || op == XO_EXCHANGE || op == XO_LOADSTORE; }

void xfile_init(XFile *f, int dt, int space) {
    memset(f, 0, sizeof *f);
    f->dt = dt, f->space = space;
    for (int op = 0; op < XO_COUNT; op++)
        for (int o = 0; o < (op == XO_LOADSTORE ? XLS_PAIRS : XORDERS); o++)
            if (xop_valid(dt, op)) f->op[f->nkernels] = op, f->order[f->nkernels++] = o;
}

char *xkernel_name(const XFile *f, int k) {
    char *s = malloc(64);
    char c = "gsf"[f->space];
    if (f->op[k] == XO_LOADSTORE) snprintf(s, 64, "%c_ls_%s_%s", c, load_order[f->order[k] / 3], store_order[f->order[k] % 3]);
    else snprintf(s, 64, "%c_%s_%s", c, xop_name[f->op[k]], xorder_name[f->order[k]]);
    return s;
}

typedef struct { char *s; size_t len, cap; } Str;
static void put(Str *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && b->len + (size_t)n < b->cap) { b->len += (size_t)n; return; }
        b->cap = b->cap * 2 + (size_t)n + 256;
        b->s = realloc(b->s, b->cap);
    }
}

/* The statement(s) of kernel k on `target` for element expression `e`, at indentation ind. */
static void atomic_call(Str *b, const XFile *f, int k, const char *target, const char *e, const char *ind) {
    int op = f->op[k];
    const char *scope = f->space == XS_SHARED ? ", scope=\"block\"" : "";
    if (op == XO_LOADSTORE) {
        put(b, "%sif (i // 4) %% 2 == 0:\n%s    qd.atomic_store(%s, v[%s], order=\"%s\"%s)\n%selse:\n%s    old[%s] = qd.atomic_load(%s, order=\"%s\"%s)\n",
            ind, ind, target, e, store_order[f->order[k] % 3], scope, ind, ind, e, target, load_order[f->order[k] / 3], scope);
        return;
    }
    put(b, "%sold[%s] = ", ind, e);
    put(b, "qd.atomic_%s(%s, v[%s]", xop_name[op], target, e);
    if (op == XO_CAS) put(b, ", w[%s]", e);
    put(b, ", order=\"%s\"%s)\n", xorder_name[f->order[k]], scope);
}

char *xfile_source(const XFile *f) {
    Str b = {calloc(1, 256), 0, 256};
    const char *t = xdtype_name[f->dt];
    put(&b, "# Generated by tests/unit/exec_spec.c: every atomic op x memory order on %s %s memory,\n"
            "# each returning the old value into old[].\nimport quadrants as qd\n",
        t, xspace_name[f->space]);
    if (f->space == XS_FIELD) put(&b, "\nfld = qd.field(qd.%s, shape=(%d,))\n", t, f->nkernels * XTARGETS);
    for (int k = 0; k < f->nkernels; k++) {
        char *name = xkernel_name(f, k), e[64];
        put(&b, "\n@qd.kernel\ndef %s(n: qd.i32, v: qd.types.ndarray(dtype=qd.%s, ndim=1), w: qd.types.ndarray(dtype=qd.%s, ndim=1),\n"
                "        tgt: qd.types.ndarray(dtype=qd.%s, ndim=1), old: qd.types.ndarray(dtype=qd.%s, ndim=1)):\n",
            name, t, t, t, t);
        snprintf(e, sizeof e, "%d * n + i", k);
        if (f->space == XS_FIELD) {
            char target[64];
            snprintf(target, sizeof target, "fld[%d + i %% %d]", k * XTARGETS, XTARGETS);
            put(&b, "    for j in range(%d):\n        fld[%d + j] = tgt[%d + j]\n    for i in range(n):\n", XTARGETS, k * XTARGETS, k * XTARGETS);
            atomic_call(&b, f, k, target, e, "        ");
            put(&b, "    for j in range(%d):\n        tgt[%d + j] = fld[%d + j]\n", XTARGETS, k * XTARGETS, k * XTARGETS);
        } else if (f->space == XS_GLOBAL) {
            char target[64];
            snprintf(target, sizeof target, "tgt[%d + i %% %d]", k * XTARGETS, XTARGETS);
            put(&b, "    for i in range(n):\n");
            atomic_call(&b, f, k, target, e, "        ");
        } else {
            put(&b, "    qd.loop_config(block_dim=%d)\n    for i in range(n):\n"
                    "        tid = qd.simt.block.thread_idx()\n"
                    "        sh = qd.simt.block.SharedArray((%d,), qd.%s)\n"
                    "        base = %d * (n // %d * %d) + i // %d * %d\n"
                    "        if tid < %d:\n            sh[tid] = tgt[base + tid]\n"
                    "        qd.simt.block.sync()\n",
                XSHARED_BLOCK, XSHARED_SLOTS, t, k, XSHARED_BLOCK, XSHARED_SLOTS, XSHARED_BLOCK, XSHARED_SLOTS, XSHARED_SLOTS);
            char target[32];
            snprintf(target, sizeof target, "sh[tid %% %d]", XSHARED_SLOTS);
            atomic_call(&b, f, k, target, e, "        ");
            put(&b, "        qd.simt.block.sync()\n        if tid < %d:\n            tgt[base + tid] = sh[tid]\n", XSHARED_SLOTS);
        }
        free(name);
    }
    return b.s;
}

/* Values are kept as 64-bit patterns: integers zero-extended from their width, floats as bits. */
static uint64_t mask(int dt) { return xdtype_size(dt) == 8 ? ~0ull : 0xffffffffull; }
static int64_t sext(int dt, uint64_t x) { return xdtype_size(dt) == 8 ? (int64_t)x : (int64_t)(int32_t)(uint32_t)x; }
static double fval(int dt, uint64_t x) {
    if (dt == XD_F64) { double d; memcpy(&d, &x, 8); return d; }
    uint32_t u = (uint32_t)x;
    float fl;
    memcpy(&fl, &u, 4);
    return fl;
}
static uint64_t fbits(int dt, double d) {
    if (dt == XD_F64) { uint64_t x; memcpy(&x, &d, 8); return x; }
    float fl = (float)d;
    uint32_t u;
    memcpy(&u, &fl, 4);
    return u;
}

/* op(old, v, w) under the language's definition (two's-complement wrap; IEEE rounding of the
 * target type, step by step; PTX-style inc/dec with an unsigned bound). */
static uint64_t apply(int dt, int op, uint64_t old, uint64_t v, uint64_t w) {
    uint64_t m = mask(dt);
    int sgn = dt == XD_I32 || dt == XD_I64;
    if (is_float(dt)) {
        double a = fval(dt, old), b = fval(dt, v);
        if (dt == XD_F32) {
            float x = (float)a, y = (float)b;
            switch (op) {
            case XO_ADD: return fbits(dt, (float)(x + y));
            case XO_SUB: return fbits(dt, (float)(x - y));
            case XO_MUL: return fbits(dt, (float)(x * y));
            case XO_MIN: return fbits(dt, fminf(x, y));
            case XO_MAX: return fbits(dt, fmaxf(x, y));
            default: return v; /* exchange */
            }
        }
        switch (op) {
        case XO_ADD: return fbits(dt, a + b);
        case XO_SUB: return fbits(dt, a - b);
        case XO_MUL: return fbits(dt, a * b);
        case XO_MIN: return fbits(dt, fmin(a, b));
        case XO_MAX: return fbits(dt, fmax(a, b));
        default: return v;
        }
    }
    switch (op) {
    case XO_ADD: return (old + v) & m;
    case XO_SUB: return (old - v) & m;
    case XO_MUL: return (old * v) & m;
    case XO_MIN: return sgn ? (sext(dt, old) < sext(dt, v) ? old : v) : (old < v ? old : v);
    case XO_MAX: return sgn ? (sext(dt, old) > sext(dt, v) ? old : v) : (old > v ? old : v);
    case XO_AND: return old & v;
    case XO_OR: return old | v;
    case XO_XOR: return old ^ v;
    case XO_EXCHANGE: return v;
    case XO_INC: return old >= v ? 0 : (old + 1) & m;
    case XO_DEC: return old == 0 || old > v ? v : old - 1;
    default: return old == v ? w : old; /* cas: v expected, w desired */
    }
}

static uint64_t get(const void *p, int esize, size_t i) {
    if (esize == 8) return ((const uint64_t *)p)[i];
    return ((const uint32_t *)p)[i];
}
static void set(void *p, int esize, size_t i, uint64_t x) {
    if (esize == 8) ((uint64_t *)p)[i] = x;
    else ((uint32_t *)p)[i] = (uint32_t)x;
}

static uint64_t rnd64(uint32_t *s) {
    uint64_t hi = (*s = *s * 1664525u + 1013904223u), lo = (*s = *s * 1664525u + 1013904223u);
    return hi << 32 | lo;
}

/* Operands for op: chosen so that histories have many distinct states and (for floats) stay
 * finite and normal; every result is still recomputed step by step by the check. */
static uint64_t operand(int dt, int op, uint32_t *s) {
    uint64_t r = rnd64(s), m = mask(dt);
    int bits = xdtype_size(dt) * 8;
    if (is_float(dt)) {
        static const double mul[] = {0.5, 2.0, -1.0, -2.0, -0.5, 1.0};
        if (op == XO_MUL) return fbits(dt, mul[r % 6]);
        if (op == XO_ADD || op == XO_SUB) return fbits(dt, (double)((int)(r % 65) - 32) * 0.25 + (dt == XD_F64 ? 1e-9 * (double)(r >> 40 & 7) : 0));
        if ((op == XO_MIN || op == XO_MAX) && r % 16 == 0) return dt == XD_F64 ? 0x7ff8000000000000ull : 0x7fc00000u; /* NaN loses */
        if (op == XO_LOADSTORE && r % 4 == 0) { /* copied bit for bit: NaN payloads, -0.0, infinities */
            static const uint64_t s32[] = {0x7fc00001u, 0xffa5a5a5u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x00000001u};
            static const uint64_t s64[] = {0x7ff8000000000123ull, 0xfff4000000000001ull, 0x8000000000000000ull,
                                           0x7ff0000000000000ull, 0xfff0000000000000ull, 0x0000000000000001ull};
            return dt == XD_F64 ? s64[(r >> 8) % 6] : s32[(r >> 8) % 6];
        }
        return fbits(dt, (double)((int64_t)(r % 200001) - 100000) * 0.37);
    }
    switch (op) {
    case XO_MUL: return (r | 1) & m;
    case XO_AND: return ~(1ull << (r % (uint64_t)bits)) & m;
    case XO_OR: return 1ull << (r % (uint64_t)bits);
    case XO_INC: case XO_DEC: return (r & 0xff) == 0 ? m : r % 8;   /* small bounds wrap often */
    case XO_CAS: return r % 4;
    case XO_MIN: case XO_MAX: return (r & 3) == 0 ? (r >> 8 & 1 ? m : (m >> 1) + 1) : r & m; /* extremes too */
    default: return r & m;
    }
}

void xdata_init(XData *d, const XFile *f, int n, uint32_t seed) {
    memset(d, 0, sizeof *d);
    d->n = n, d->nk = f->nkernels, d->esize = xdtype_size(f->dt);
    d->ntgt = f->space == XS_SHARED ? n / XSHARED_BLOCK * XSHARED_SLOTS : XTARGETS;
    size_t nv = (size_t)n * (size_t)d->nk, nt = (size_t)d->ntgt * (size_t)d->nk;
    d->v = calloc(nv, (size_t)d->esize), d->w = calloc(nv, (size_t)d->esize), d->old = calloc(nv, (size_t)d->esize);
    d->tgt = calloc(nt, (size_t)d->esize), d->tgt0 = calloc(nt, (size_t)d->esize);
    uint32_t s = seed;
    for (int k = 0; k < d->nk; k++) {
        int op = f->op[k];
        for (int i = 0; i < n; i++) {
            size_t j = (size_t)k * (size_t)n + (size_t)i;
            set(d->v, d->esize, j, operand(f->dt, op, &s));
            set(d->w, d->esize, j, op == XO_CAS ? rnd64(&s) % 4 : 0);
            set(d->old, d->esize, j, mask(f->dt) & 0x5a5a5a5a5a5a5a5aull); /* overwritten by the kernel */
        }
        for (int t = 0; t < d->ntgt; t++) {
            uint64_t init = operand(f->dt, op == XO_MUL || op == XO_CAS || op == XO_INC || op == XO_DEC ? XO_EXCHANGE : op, &s);
            if (op == XO_CAS || op == XO_INC || op == XO_DEC) init = rnd64(&s) % 4;
            if (op == XO_MUL) init = is_float(f->dt) ? fbits(f->dt, 1.0) : (init | 1) & mask(f->dt);
            if (is_float(f->dt) && (op == XO_ADD || op == XO_SUB)) init = fbits(f->dt, 0.0);
            set(d->tgt, d->esize, (size_t)k * (size_t)d->ntgt + (size_t)t, init);
            set(d->tgt0, d->esize, (size_t)k * (size_t)d->ntgt + (size_t)t, init);
        }
    }
}

void xdata_free(XData *d) { free(d->v), free(d->w), free(d->tgt), free(d->tgt0), free(d->old); }

size_t xdata_bytes(const XData *d, char which) {
    size_t per = which == 't' ? (size_t)d->ntgt : (size_t)d->n;
    return per * (size_t)d->nk * (size_t)d->esize;
}

/* ---- the sequential-history check ---- */

typedef struct { uint64_t from, to; } Edge;
static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static int find_id(const uint64_t *v, int n, uint64_t x) {
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (v[mid] == x) return mid;
        if (v[mid] < x) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}
static int uf_find(int *p, int x) {
    while (p[x] != x) x = p[x] = p[p[x]];
    return x;
}

/* Whether the edges (old -> op(old, operand)), started at init, can be ordered into one walk
 * that ends at final: with a closing edge final -> init, every value must have in-degree equal
 * to out-degree and all values with edges must be connected (Euler's theorem). Any
 * linearization passes; an old value that no serial order could have returned fails. */
static int history_ok(const Edge *e, int ne, uint64_t init, uint64_t final, char *why, size_t whylen, int dt) {
    int nv = 0;
    uint64_t *vals = malloc(sizeof *vals * (size_t)(2 * ne + 2));
    for (int i = 0; i < ne; i++) vals[nv++] = e[i].from, vals[nv++] = e[i].to;
    vals[nv++] = init, vals[nv++] = final;
    qsort(vals, (size_t)nv, sizeof *vals, cmp_u64);
    int u = 0;
    for (int i = 0; i < nv; i++)
        if (!u || vals[u - 1] != vals[i]) vals[u++] = vals[i];
    int *bal = calloc((size_t)u, sizeof *bal), *par = malloc(sizeof *par * (size_t)u), ok = 1;
    for (int i = 0; i < u; i++) par[i] = i;
    int a = find_id(vals, u, final), b = find_id(vals, u, init);
    bal[a]++, bal[b]--, par[uf_find(par, a)] = uf_find(par, b);
    for (int i = 0; i < ne; i++) {
        int x = find_id(vals, u, e[i].from), y = find_id(vals, u, e[i].to);
        bal[x]++, bal[y]--;
        par[uf_find(par, x)] = uf_find(par, y);
    }
    for (int i = 0; ok && i < u; i++) {
        if (bal[i] != 0) {
            snprintf(why, whylen, "value %s%llx is left %s times more than reached (init %llx, final %llx): no serial history",
                     is_float(dt) ? "bits " : "0x", (unsigned long long)vals[i], bal[i] > 0 ? "+" : "-",
                     (unsigned long long)init, (unsigned long long)final);
            ok = 0;
        } else if (uf_find(par, i) != uf_find(par, b)) {
            snprintf(why, whylen, "old value 0x%llx is not reachable from the initial value 0x%llx", (unsigned long long)vals[i],
                     (unsigned long long)init);
            ok = 0;
        }
    }
    free(vals), free(bal), free(par);
    return ok;
}

static int slot_of(const XFile *f, int i) {
    return f->space == XS_SHARED ? i / XSHARED_BLOCK * XSHARED_SLOTS + i % XSHARED_BLOCK % XSHARED_SLOTS : i % XTARGETS;
}

/* Load/store: every load returns the initial value or a value stored to its target, and the
 * final value is a stored one (the initial one when nothing was stored). */
static int loadstore_ok(const XFile *f, const XData *d, int k, char *why, size_t whylen) {
    uint64_t *stored = malloc(sizeof *stored * (size_t)(d->n + 1));
    int ok = 1;
    char *name = xkernel_name(f, k);
    for (int t = 0; ok && t < d->ntgt; t++) {
        size_t ti = (size_t)k * (size_t)d->ntgt + (size_t)t, base = (size_t)k * (size_t)d->n;
        uint64_t init = get(d->tgt0, d->esize, ti), final = get(d->tgt, d->esize, ti);
        int ns = 0;
        for (int i = 0; i < d->n; i++)
            if (slot_of(f, i) == t && (i / 4) % 2 == 0) stored[ns++] = get(d->v, d->esize, base + (size_t)i);
        qsort(stored, (size_t)ns, sizeof *stored, cmp_u64);
        if (ns ? find_id(stored, ns, final) < 0 : final != init) {
            snprintf(why, whylen, "%s (%s, %s) target %d: final value 0x%llx was never stored", name, xdtype_name[f->dt],
                     xspace_name[f->space], t, (unsigned long long)final);
            ok = 0;
        }
        for (int i = 0; ok && i < d->n; i++) {
            if (slot_of(f, i) != t || (i / 4) % 2 == 0) continue;
            uint64_t got = get(d->old, d->esize, base + (size_t)i);
            if (got != init && find_id(stored, ns, got) < 0) {
                snprintf(why, whylen, "%s (%s, %s) target %d: element %d loaded 0x%llx, neither the initial value nor a stored one", name,
                         xdtype_name[f->dt], xspace_name[f->space], t, i, (unsigned long long)got);
                ok = 0;
            }
        }
    }
    free(stored), free(name);
    return ok;
}

int xcheck(const XFile *f, const XData *d, int k, char *why, size_t whylen) {
    int op = f->op[k], ok = 1;
    if (op == XO_LOADSTORE) return loadstore_ok(f, d, k, why, whylen);
    Edge *e = malloc(sizeof *e * (size_t)d->n);
    for (int t = 0; ok && t < d->ntgt; t++) {
        int ne = 0;
        for (int i = 0; i < d->n; i++) {
            if (slot_of(f, i) != t) continue;
            size_t j = (size_t)k * (size_t)d->n + (size_t)i;
            uint64_t old = get(d->old, d->esize, j);
            e[ne].from = old, e[ne++].to = apply(f->dt, op, old, get(d->v, d->esize, j), get(d->w, d->esize, j));
        }
        size_t ti = (size_t)k * (size_t)d->ntgt + (size_t)t;
        char sub[200];
        if (!history_ok(e, ne, get(d->tgt0, d->esize, ti), get(d->tgt, d->esize, ti), sub, sizeof sub, f->dt)) {
            char *name = xkernel_name(f, k);
            snprintf(why, whylen, "%s (%s, %s) target %d: %s", name, xdtype_name[f->dt], xspace_name[f->space], t, sub);
            free(name);
            ok = 0;
        }
    }
    free(e);
    return ok;
}
