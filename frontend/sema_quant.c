/* Quantized types (qd.types.quant.int / fixed / float) packed into one word by
 * qd.BitpackedFields(max_num_bits=8|16|32|64), as Quadrants defines them (qdc-lang(7) "Quantized
 * types", qdc-abi(7) "Bit-packed fields").
 *
 * A quant type is a V_NS "qd.quant_type.<k>", a BitpackedFields a V_NS "qd.bitpacked.<k>". A field of a
 * quant type is a member: its IrField stands in for it while the module is checked (it takes
 * the geometry of its word once placed, so x[i], `for i in x` and x.shape read as for any
 * field) and is removed at the end (sema_quant_finish), every remaining field index renumbered.
 * The word is an ordinary u32/u64 field "<first member>_bits" (u32 for max_num_bits 8 and 16: their
 * members use its low bits, the values read and written are the same) that place(bitpack) places where
 * the pack goes. In a kernel x[i] is a reference to the member (the word's, once finished): a read
 * decodes its bits (shift, mask, sign extension; times the scale for fixed; exponent and
 * mantissa for float), a store and every `x[i] op= v` are one compare-and-swap loop on the word
 * (qd.atomic_cas through the capability database), so members of one word written by
 * different threads never lose each other's bits. */
#include "sema.h"
#include <math.h>
#include <string.h>

enum { QK_INT, QK_FIXED, QK_FLOAT };

typedef struct QType {
    int kind;
    int bits;      /* int / fixed: digits; float: exp + frac (the sign is one of frac's bits) */
    bool sign;
    int exp, frac; /* float */
    int mant;      /* float: mantissa bits, frac - sign (Quadrants' digit bits) */
    double scale;  /* fixed */
    QdType compute;
} QType;

typedef struct QMember {
    int field;
    int type;
    int pack;  /* -1: not placed in a BitpackedFields yet */
    int shift; /* bit offset in the word (a float sharing an exponent: of its digits) */
    int eshift; /* a float sharing an exponent: the exponent's bit offset */
    int group;  /* a float placed with shared_exponent=True: the first such member of its place(), else -1 */
    bool reported; /* its place() was rejected: not reported again as never placed */
    int qarray; /* -1, or the quant_array it is placed in (bit offset: its index there times bits) */
} QMember;

/* snode.quant_array(axes, shape, max_num_bits=N): one word per cell of `node`, holding the
 * elements of the axes it splits from bit 0, row-major. */
typedef struct QArray {
    int node, naxes;
    int axis[IR_MAX_DIMS];
    int64_t size[IR_MAX_DIMS];
    int max_bits;
    int word;
    Span span;
} QArray;

typedef struct QPack {
    int max_bits;
    int used;
    int word; /* field index, -1 before place(bitpack) */
    Span span;
    VEC(int) members;
} QPack;

struct SemaQuant {
    VEC(QType) types;
    VEC(QMember) members;
    VEC(QPack) packs;
    VEC(QArray) arrays;
};

static struct SemaQuant *Q(Sema *S) {
    if (!S->quant) S->quant = ARENA_NEW(S->arena, struct SemaQuant);
    return S->quant;
}

bool sema_quant_path(const char *p) {
    return !strcmp(p, "qd.types.quant.int") || !strcmp(p, "qd.types.quant.fixed") || !strcmp(p, "qd.types.quant.float") ||
           !strcmp(p, "qd.BitpackedFields") || (!strncmp(p, "qd.bitpacked.", 13) && strstr(p, ".place")) ||
           (!strncmp(p, "qd.quant_array.", 15) && strstr(p, ".place"));
}

static int val_index(Val v, const char *prefix) {
    size_t n = strlen(prefix);
    if (v.kind != V_NS || strncmp(v.path, prefix, n)) return -1;
    const char *s = v.path + n;
    int k = 0;
    if (*s < '0' || *s > '9') return -1;
    while (*s >= '0' && *s <= '9') k = k * 10 + (*s++ - '0');
    return *s ? -1 : k;
}

/* A keyword or the pos-th positional argument. */
static const Expr *arg(const Expr *call, int pos, const char *kw) {
    for (int k = 0; k < call->call.nkw; k++)
        if (!strcmp(call->call.kw[k].name, kw)) return call->call.kw[k].value;
    return pos < call->call.args.n ? call->call.args.items[pos] : NULL;
}

static bool const_bool(Sema *S, const Expr *e, bool *out) {
    IrExpr *x = sema_expr(S, e);
    if (!x) return false;
    if (!ir_is_const(x) || !qt_is_integral(x->type))
        return diag_error(e->span, QD2009, "'signed' must be a compile-time True or False"), false;
    *out = x->c.u != 0;
    return true;
}

static bool const_float(Sema *S, const Expr *e, double *out, const char *what) {
    IrExpr *x = sema_expr(S, e);
    if (!x) return false;
    if (!ir_is_const(x)) return diag_error(e->span, QD2009, "%s must be a compile-time number", what), false;
    *out = qt_is_float(x->type) ? x->c.f : qt_is_signed(x->type) ? (double)x->c.i : (double)x->c.u;
    return true;
}

static bool check_kw(const Expr *call, const char *const *names, int maxpos, const char *form) {
    if (call->call.args.n > maxpos) return diag_error(call->span, QD2007, "%s takes at most %d positional arguments", form, maxpos), false;
    for (int k = 0; k < call->call.nkw; k++) {
        bool ok = false;
        for (int j = 0; names[j]; j++) ok |= !strcmp(call->call.kw[k].name, names[j]);
        if (!ok) return diag_error(call->call.kw[k].span, QD2007, "%s has no parameter '%s'", form, call->call.kw[k].name), false;
    }
    return true;
}

static Val new_type(Sema *S, QType t) {
    vec_push(&Q(S)->types, t);
    return (Val){.kind = V_NS, .path = arena_printf(S->arena, "qd.quant_type.%d", Q(S)->types.len - 1)};
}

static bool compute_type(Sema *S, const Expr *e, QdType *t) {
    if (!e || e->kind == E_NONE) return true;
    if (!sema_annotation_type(S, e, t)) return false;
    if (*t == QT_U1 || *t == QT_F16 || *t == QT_BF16)
        return diag_error(e->span, QD2005, "a quantized type computes in an integer or f32/f64 type, got %s", qt_name(*t)), false;
    return true;
}

static Val quant_int(Sema *S, const Expr *call) {
    static const char *const kws[] = {"bits", "signed", "compute", NULL};
    if (!check_kw(call, kws, 3, "qd.types.quant.int")) return val_err();
    const Expr *b = arg(call, 0, "bits"), *sg = arg(call, 1, "signed"), *cp = arg(call, 2, "compute");
    if (!b) return diag_error(call->span, QD2007, "qd.types.quant.int takes (bits, signed=True, compute=None)"), val_err();
    int64_t bits;
    QType t = {.kind = QK_INT, .sign = true};
    if (!sema_const_int(S, b, &bits, "the number of bits") || (sg && !const_bool(S, sg, &t.sign))) return val_err();
    if (bits < 1 || bits > 32)
        return diag_error(b->span, QD2005, "a quantized int has 1 to 32 bits, got %lld", (long long)bits), val_err();
    t.bits = (int)bits, t.compute = t.sign ? S->default_ip : QT_U32;
    if (!compute_type(S, cp, &t.compute)) return val_err();
    return new_type(S, t);
}

static Val quant_fixed(Sema *S, const Expr *call) {
    static const char *const kws[] = {"bits", "signed", "max_value", "compute", "scale", NULL};
    if (!check_kw(call, kws, 5, "qd.types.quant.fixed")) return val_err();
    const Expr *b = arg(call, 0, "bits"), *sg = arg(call, 1, "signed"), *mv = arg(call, 2, "max_value"), *cp = arg(call, 3, "compute"),
               *sc = arg(call, 4, "scale");
    if (!b) return diag_error(call->span, QD2007, "qd.types.quant.fixed takes (bits, signed=True, max_value=1.0, compute=None, scale=None)"), val_err();
    int64_t bits;
    double max = 1.0;
    QType t = {.kind = QK_FIXED, .sign = true};
    if (!sema_const_int(S, b, &bits, "the number of bits") || (sg && !const_bool(S, sg, &t.sign))) return val_err();
    if (bits < 1 || bits > 32)
        return diag_error(b->span, QD2005, "a quantized fixed-point type has 1 to 32 bits, got %lld", (long long)bits), val_err();
    if (mv && mv->kind != E_NONE && !const_float(S, mv, &max, "max_value")) return val_err();
    t.bits = (int)bits, t.compute = S->default_fp;
    t.scale = t.sign ? max / ldexp(1.0, t.bits - 1) : max / ldexp(1.0, t.bits); /* Quadrants: scale wins over max_value */
    if (sc && sc->kind != E_NONE && !const_float(S, sc, &t.scale, "scale")) return val_err();
    if (!(t.scale > 0) && !(t.scale < 0)) return diag_error(call->span, QD2005, "a quantized fixed-point type needs a non-zero scale"), val_err();
    if (!compute_type(S, cp, &t.compute)) return val_err();
    if (!qt_is_float(t.compute)) return diag_error(cp->span, QD2005, "a quantized fixed-point type computes in qd.f32 or qd.f64"), val_err();
    return new_type(S, t);
}

static Val quant_float(Sema *S, const Expr *call) {
    static const char *const kws[] = {"exp", "frac", "signed", "compute", NULL};
    if (!check_kw(call, kws, 4, "qd.types.quant.float")) return val_err();
    const Expr *e = arg(call, 0, "exp"), *f = arg(call, 1, "frac"), *sg = arg(call, 2, "signed"), *cp = arg(call, 3, "compute");
    if (!e || !f) return diag_error(call->span, QD2007, "qd.types.quant.float takes (exp, frac, signed=True, compute=None)"), val_err();
    int64_t exp, frac;
    QType t = {.kind = QK_FLOAT, .sign = true};
    if (!sema_const_int(S, e, &exp, "the number of exponent bits") || !sema_const_int(S, f, &frac, "the number of fraction bits") ||
        (sg && !const_bool(S, sg, &t.sign)))
        return val_err();
    if (exp < 1 || exp > 8) return diag_error(e->span, QD2005, "a quantized float has 1 to 8 exponent bits, got %lld", (long long)exp), val_err();
    if (frac < 1 + t.sign || frac > 23 + t.sign) /* frac counts the sign bit, as in Quadrants */
        return diag_error(f->span, QD2005, "a quantized %s float has %d to %d fraction bits, got %lld", t.sign ? "signed" : "unsigned",
                          1 + t.sign, 23 + t.sign, (long long)frac), val_err();
    t.exp = (int)exp, t.frac = (int)frac, t.mant = t.frac - t.sign, t.bits = t.exp + t.frac, t.compute = S->default_fp;
    if (!compute_type(S, cp, &t.compute)) return val_err();
    if (t.compute != QT_F32) return diag_error(cp ? cp->span : call->span, QD2005, "qdc computes quantized floats in qd.f32"), val_err();
    return new_type(S, t);
}

static Val bitpacked(Sema *S, const Expr *call) {
    static const char *const kws[] = {"max_num_bits", NULL};
    if (!check_kw(call, kws, 1, "qd.BitpackedFields")) return val_err();
    const Expr *m = arg(call, 0, "max_num_bits");
    if (!m) return diag_error(call->span, QD2007, "qd.BitpackedFields takes (max_num_bits=32 or 64)"), val_err();
    int64_t bits;
    if (!sema_const_int(S, m, &bits, "max_num_bits")) return val_err();
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) /* Quadrants' BitStructTypeBuilder: a primitive int type of that width */
        return diag_error(m->span, QD2063, "max_num_bits of qd.BitpackedFields must be 8, 16, 32 or 64 (the word's width), got %lld", (long long)bits), val_err();
    if (S->k) return diag_error(call->span, QD2063, "qd.BitpackedFields is declared at module level, not in a kernel"), val_err();
    QPack p = {.max_bits = (int)bits, .word = -1, .span = call->span};
    vec_push(&Q(S)->packs, p);
    return (Val){.kind = V_NS, .path = arena_printf(S->arena, "qd.bitpacked.%d", Q(S)->packs.len - 1)};
}

static int member_of(Sema *S, int field) {
    if (!S->quant) return -1;
    for (int k = 0; k < S->quant->members.len; k++)
        if (S->quant->members.items[k].field == field) return k;
    return -1;
}

/* bitpack.place(x, y, ..., shared_exponent=False): members in order from bit 0. With
 * shared_exponent=True the quantized floats of this call share one exponent, as Quadrants'
 * BitStructTypeBuilder lays them out: the exponent where the first float goes, then each
 * float's digits (its frac bits, the sign on top). */
static Val pack_place(Sema *S, const Expr *call, int pk) {
    QPack *p = &Q(S)->packs.items[pk];
    bool shared = false;
    for (int k = 0; k < call->call.nkw; k++) {
        if (!strcmp(call->call.kw[k].name, "shared_exponent") && const_bool(S, call->call.kw[k].value, &shared)) continue;
        for (int a = 0; a < call->call.args.n; a++) { /* the members stay unplaced, quietly */
            Binding *b = call->call.args.items[a]->kind == E_NAME ? sema_lookup(S, call->call.args.items[a]->name) : NULL;
            int m = b && b->v.kind == V_FIELD ? member_of(S, b->v.index) : -1;
            if (m >= 0) Q(S)->members.items[m].reported = true;
        }
        if (strcmp(call->call.kw[k].name, "shared_exponent"))
            diag_error(call->call.kw[k].span, QD2063, "BitpackedFields.place() has no parameter '%s'", call->call.kw[k].name);
        return val_err();
    }
    if (p->word >= 0) return diag_error(call->span, QD2063, "this qd.BitpackedFields is placed already; place its fields before it"), val_err();
    if (shared && call->call.args.n <= 1) { /* Quadrants' check and words */
        Binding *b = call->call.args.n && call->call.args.items[0]->kind == E_NAME ? sema_lookup(S, call->call.args.items[0]->name) : NULL;
        int m = b && b->v.kind == V_FIELD ? member_of(S, b->v.index) : -1;
        if (m >= 0) Q(S)->members.items[m].reported = true;
        return diag_error(call->span, QD2063, "At least 2 fields need to be placed when shared_exponent=True"), val_err();
    }
    int group = -1;
    for (int k = 0; k < call->call.args.n; k++) {
        const Expr *a = call->call.args.items[k];
        Val v = sema_eval(S, a);
        if (v.kind == V_ERR) continue;
        int m = v.kind == V_FIELD ? member_of(S, v.index) : -1;
        if (m < 0) {
            diag_error(a->span, QD2063, "BitpackedFields.place() takes fields of quantized types (qd.types.quant), not %s", val_describe(v));
            continue;
        }
        QMember *qm = &Q(S)->members.items[m];
        if (qm->pack >= 0) {
            diag_error(a->span, QD2063, "field '%s' is placed in a qd.BitpackedFields already", S->fields.items[qm->field].name);
            continue;
        }
        const QType *t = &Q(S)->types.items[qm->type];
        bool joins = shared && t->kind == QK_FLOAT && group >= 0;
        if (joins && Q(S)->types.items[Q(S)->members.items[group].type].exp != t->exp) {
            qm->reported = true;
            diag_error(a->span, QD2063, "QuantFloatTypes with shared exponents must have exactly the same exponent type: "
                       "%d exponent bits here, %d before", t->exp, Q(S)->types.items[Q(S)->members.items[group].type].exp);
            continue;
        }
        int bits = joins ? t->frac : t->bits;
        if (p->used + bits > p->max_bits) {
            qm->reported = true;
            diag_error(a->span, QD2063, "the fields placed need %d bits, more than max_num_bits=%d", p->used + bits, p->max_bits);
            continue;
        }
        qm->pack = pk, qm->group = -1;
        if (shared && t->kind == QK_FLOAT) {
            if (group < 0) group = m;
            qm->group = group;
            qm->eshift = joins ? Q(S)->members.items[group].eshift : p->used;
            qm->shift = joins ? p->used : p->used + t->exp;
        } else
            qm->shift = p->used;
        p->used += bits;
        vec_push(&p->members, m);
    }
    int users = 0;
    for (int k = 0; k < p->members.len; k++) users += group >= 0 && Q(S)->members.items[p->members.items[k]].group == group;
    if (users == 1) /* one float alone keeps its own exponent: the layout is the same */
        Q(S)->members.items[group].group = -1, Q(S)->members.items[group].shift = Q(S)->members.items[group].eshift;
    return (Val){.kind = V_NONE};
}

Val sema_quant_array(Sema *S, int node, int naxes, const int *axis, const int64_t *size, int64_t max_bits, Span span) {
    if (max_bits != 32 && max_bits != 64)
        return diag_error(span, QD2063, "max_num_bits of quant_array must be 32 or 64 (the word's width), got %lld", (long long)max_bits), val_err();
    QArray a = {.node = node, .naxes = naxes, .max_bits = (int)max_bits, .word = -1, .span = span};
    for (int k = 0; k < naxes; k++) a.axis[k] = axis[k], a.size[k] = size[k];
    vec_push(&Q(S)->arrays, a);
    return (Val){.kind = V_NS, .path = arena_printf(S->arena, "qd.quant_array.%d", Q(S)->arrays.len - 1)};
}

/* qa.place(x): x's elements in one word per cell of the quant_array's parent. */
static Val array_place(Sema *S, const Expr *call, int ai) {
    if (ai < 0 || !S->quant || ai >= S->quant->arrays.len) return diag_error(call->span, QD2063, "a quant_array has one method, place()"), val_err();
    QArray *qa = &S->quant->arrays.items[ai];
    if (call->call.nkw || call->call.args.n != 1)
        return diag_error(call->span, QD2063, "a quant_array holds one field of a quantized type: place(x)"), val_err();
    if (qa->word >= 0) return diag_error(call->span, QD2063, "this quant_array is placed already"), val_err();
    const Expr *a = call->call.args.items[0];
    Val v = sema_eval(S, a);
    if (v.kind == V_ERR) return v;
    int m = v.kind == V_FIELD ? member_of(S, v.index) : -1;
    if (m < 0) return diag_error(a->span, QD2063, "quant_array().place() takes a field of a quantized type (qd.types.quant), not %s", val_describe(v)), val_err();
    QMember *qm = &S->quant->members.items[m];
    if (qm->pack >= 0 || qm->qarray >= 0) return diag_error(a->span, QD2063, "field '%s' is placed already", S->fields.items[qm->field].name), val_err();
    int64_t n = 1;
    for (int k = 0; k < qa->naxes; k++) n *= qa->size[k];
    int bits = S->quant->types.items[qm->type].bits;
    if (n * bits > qa->max_bits) {
        qm->reported = true;
        return diag_error(a->span, QD2063, "%lld elements of %d bits need %lld bits, more than max_num_bits=%d", (long long)n, bits,
                          (long long)(n * bits), qa->max_bits), val_err();
    }
    IrField w = {.name = arena_printf(S->arena, "%s_bits", S->fields.items[qm->field].name), .type = qa->max_bits == 64 ? QT_U64 : QT_U32,
                 .ndim = -1, .span = qa->span};
    vec_push(&S->fields, w);
    qa->word = S->fields.len - 1, qm->qarray = ai;
    sema_snode_place_field(S, qa->node, qa->word);
    return (Val){.kind = V_NONE};
}

Val sema_quant_call(Sema *S, const Expr *call, Val f) {
    const char *p = f.path;
    if (!strcmp(p, "qd.types.quant.int")) return quant_int(S, call);
    if (!strcmp(p, "qd.types.quant.fixed")) return quant_fixed(S, call);
    if (!strcmp(p, "qd.types.quant.float")) return quant_float(S, call);
    if (!strcmp(p, "qd.BitpackedFields")) return bitpacked(S, call);
    char *base = arena_printf(S->arena, "%s", p);
    *strstr(base, ".place") = 0;
    if (!strncmp(p, "qd.quant_array.", 15)) return array_place(S, call, val_index((Val){.kind = V_NS, .path = base}, "qd.quant_array."));
    int pk = val_index((Val){.kind = V_NS, .path = base}, "qd.bitpacked.");
    if (pk < 0 || !S->quant || pk >= S->quant->packs.len || strcmp(strstr(p, ".place"), ".place"))
        return diag_error(call->call.fn->span, QD2063, "a qd.BitpackedFields has one method, place()"), val_err();
    return pack_place(S, call, pk);
}

/* x = qd.field(dtype=<quant type>): a member, placed later through a BitpackedFields. */
bool sema_quant_field(Sema *S, const Expr *target, Span span, const Expr *call) {
    const Expr *dt = call->call.args.n > 0 ? call->call.args.items[0] : NULL;
    for (int k = 0; k < call->call.nkw; k++)
        if (!strcmp(call->call.kw[k].name, "dtype")) dt = call->call.kw[k].value;
    if (!dt) return false;
    bool maybe = false;
    if (dt->kind == E_NAME) {
        Binding *b = sema_lookup(S, dt->name);
        maybe = b && val_index(b->v, "qd.quant_type.") >= 0;
    } else if (dt->kind == E_CALL) {
        const char *p = sema_path(S, dt->call.fn);
        maybe = p && !strncmp(p, "qd.types.quant.", 15);
    }
    if (!maybe) return false;
    Val tv = sema_eval(S, dt);
    int t = val_index(tv, "qd.quant_type.");
    if (t < 0) return scope_bind(S, BIND_SCOPE(S), target->name, val_err(), span), true;
    for (int k = 0; k < call->call.nkw; k++)
        if (strcmp(call->call.kw[k].name, "dtype"))
            return diag_error(call->call.kw[k].span, QD2063, "a field of a quantized type is placed with qd.BitpackedFields; "
                              "qd.field(%s=...) is not supported for it", call->call.kw[k].name),
                   scope_bind(S, BIND_SCOPE(S), target->name, val_err(), span), true;
    if (call->call.args.n > 1)
        return diag_error(call->call.args.items[1]->span, QD2063, "a field of a quantized type takes no shape: place it in a "
                          "qd.BitpackedFields"), scope_bind(S, BIND_SCOPE(S), target->name, val_err(), span), true;
    IrField f = {.name = sema_field_name(S, target->name), .span = span, .ndim = -1, .type = QT_U32};
    vec_push(&S->fields, f);
    QMember m = {.field = S->fields.len - 1, .type = t, .pack = -1, .qarray = -1, .group = -1};
    vec_push(&Q(S)->members, m);
    scope_bind(S, BIND_SCOPE(S), target->name, (Val){.kind = V_FIELD, .index = S->fields.len - 1}, span);
    return true;
}

/* qd.Vector.field(n, dtype=q) / qd.Matrix.field(n, m, dtype=q) of a quantized type q, without a
 * shape: one member per component, as Quadrants makes one scalar field per component (placed
 * with bitpack.place(x.get_scalar_field(i, j), ...)). False when dt is not a quantized type. */
bool sema_quant_vec_field(Sema *S, const Expr *target, Span span, const Expr *dt, int n, int m) {
    if (!dt || (dt->kind != E_NAME && dt->kind != E_CALL)) return false;
    int mark = diag_quiet_begin();
    Val tv = sema_eval(S, dt);
    diag_quiet_end(mark);
    int t = val_index(tv, "qd.quant_type.");
    if (t < 0) return false;
    Val v = vec_make(S, n, m);
    const char *name = sema_field_name(S, target->name);
    for (int k = 0; k < vec_len(v); k++) {
        IrField f = {.name = arena_printf(S->arena, "%s_%d", name, k), .span = span, .ndim = -1, .type = QT_U32};
        vec_push(&S->fields, f);
        QMember qm = {.field = S->fields.len - 1, .type = t, .pack = -1, .qarray = -1, .group = -1};
        vec_push(&Q(S)->members, qm);
        v.vec.c[k] = (Val){.kind = V_FIELD, .index = S->fields.len - 1};
    }
    scope_bind(S, BIND_SCOPE(S), target->name, v, span);
    return true;
}

/* place(bitpack) under an SNode: the word field to place there, or -1 after a diagnostic. */
int sema_quant_pack_word(Sema *S, Val v, Span at) {
    int pk = val_index(v, "qd.bitpacked.");
    if (pk < 0 || !S->quant || pk >= S->quant->packs.len) return -2; /* not a pack */
    QPack *p = &S->quant->packs.items[pk];
    if (p->word >= 0) return diag_error(at, QD2063, "this qd.BitpackedFields is placed already"), -1;
    if (!p->members.len) return diag_error(at, QD2063, "this qd.BitpackedFields holds no fields: call its place(x, ...) first"), -1;
    const IrField *first = &S->fields.items[S->quant->members.items[p->members.items[0]].field];
    IrField w = {.name = arena_printf(S->arena, "%s_bits", first->name), .type = p->max_bits == 64 ? QT_U64 : QT_U32, .ndim = -1, .span = p->span};
    vec_push(&S->fields, w);
    p->word = S->fields.len - 1;
    return p->word;
}

/* After placement: each member takes its word's geometry; a member never packed is reported. */
void sema_quant_mirror(Sema *S) {
    if (!S->quant) return;
    for (int k = 0; k < S->quant->members.len; k++) {
        QMember *m = &S->quant->members.items[k];
        IrField *f = &S->fields.items[m->field];
        if (m->qarray >= 0) { /* the word's axes times the array's sizes; a plain index space */
            const QArray *qa = &S->quant->arrays.items[m->qarray];
            const IrField *wf = &S->fields.items[qa->word];
            if (wf->ndim < 0) { f->ndim = 0, f->elems = 1; continue; }
            int nd = wf->ndim;
            for (int j = 0; j < qa->naxes; j++) nd = qa->axis[j] + 1 > nd ? qa->axis[j] + 1 : nd;
            const char *name = f->name;
            Span span = f->span;
            *f = *wf; /* the word's path (its sparse levels: a struct-for visits active cells), then one
                         dense level of the array's axes */
            f->name = name, f->span = span, f->grad = 0, f->dual = 0;
            f->ndim = nd, f->elems = 1;
            for (int d = 0; d < nd; d++) {
                f->shape[d] = d < wf->ndim ? wf->shape[d] : 1;
                for (int j = 0; j < qa->naxes; j++) f->shape[d] *= qa->axis[j] == d ? qa->size[j] : 1;
                f->elems *= f->shape[d];
            }
            if (f->nlevels < IR_MAX_DIMS) {
                IrSnodeLevel lv = {.naxes = qa->naxes, .sparse = IR_SNODE_DENSE, .meta = -1};
                for (int j = 0; j < qa->naxes; j++) lv.axis[j] = qa->axis[j], lv.size[j] = qa->size[j];
                f->levels[f->nlevels++] = lv;
            }
            continue;
        }
        int w = m->pack >= 0 ? S->quant->packs.items[m->pack].word : -1;
        if (w < 0 || S->fields.items[w].ndim < 0) {
            if (m->pack < 0 && !m->reported)
                diag_error(f->span, QD2063, "field '%s' of a quantized type is never placed: place it with "
                           "b = qd.BitpackedFields(max_num_bits=32); b.place(%s); qd.root.place(b)", f->name, f->name);
            f->ndim = 0, f->elems = 1; /* reported (at the pack, or here) */
            continue;
        }
        const char *name = f->name;
        Span span = f->span;
        *f = S->fields.items[w];
        f->name = name, f->span = span, f->grad = 0, f->dual = 0;
    }
}

/* x[i] of a member: the reference names the member (its IrField mirrors the word's geometry)
 * until sema_quant_finish points it at the word; nothing to do here but check it is placed. */
void sema_quant_subscript(Sema *S, int field, IrRef *r) {
    (void)S, (void)field, (void)r;
}

static int ref_member(Sema *S, const IrRef *r) {
    if (!S->quant || !r || r->kind != IR_REF_FIELD) return -1;
    int m = member_of(S, r->index);
    if (m < 0) return -1;
    const QMember *qm = &S->quant->members.items[m];
    if (qm->qarray >= 0) return S->quant->arrays.items[qm->qarray].word >= 0 ? m : -1;
    return qm->pack >= 0 && S->quant->packs.items[qm->pack].word >= 0 ? m : -1;
}

bool sema_quant_is_ref(Sema *S, const IrRef *r) { return ref_member(S, r) >= 0; }

static IrExpr *bin(Sema *S, IrBinOp op, IrExpr *a, IrExpr *b, Span sp) { return sema_binary(S, op, a, b, sp); }

static IrExpr *bitcast(Sema *S, IrExpr *a, QdType t) {
    if (a->type == t) return a;
    IrExpr *e = irb_new(S->arena, IR_BITCAST, t, a->span);
    e->arg = a;
    return e;
}

/* The member's digits (its bits, sign-extended when signed) in the word's width, signed. */
static IrExpr *digits(Sema *S, IrExpr *word, int bits, bool sign, IrExpr *shift, Span sp) {
    QdType wt = word->type, st = wt == QT_U64 ? QT_I64 : QT_I32;
    int width = wt == QT_U64 ? 64 : 32;
    IrExpr *up = bin(S, IR_SHL, word, bin(S, IR_SUB, irb_int(S->arena, wt, width - bits, sp), shift, sp), sp);
    if (sign) return bin(S, IR_SHR, bitcast(S, up, st), irb_int(S->arena, st, width - bits, sp), sp);
    return bitcast(S, bin(S, IR_SHR, up, irb_int(S->arena, wt, width - bits, sp), sp), st);
}

static IrExpr *u32c(Sema *S, uint32_t v, Span sp) { return irb_int(S->arena, QT_U32, v, sp); }

static IrExpr *field_bits(Sema *S, IrExpr *word, int shift, int bits, Span sp) {
    IrExpr *w = bin(S, IR_SHR, word, irb_int(S->arena, word->type, shift, sp), sp);
    return bin(S, IR_AND, irb_cast(S->arena, w, QT_U32), u32c(S, bits >= 32 ? 0xffffffffu : (1u << bits) - 1, sp), sp);
}

/* A float that shares its exponent (Quadrants' reconstruct_quant_float with shared_exponent):
 * its digits carry the leading 1, so the value is digits * 2^(exp - bias - mant) (unsigned: one
 * more), found by normalising the digits with a count of leading zeros; zero exponent or zero
 * digits read 0 (the sign kept). */
static IrExpr *decode_shared(Sema *S, const QMember *m, IrExpr *word, Span sp) {
    const QType *t = &S->quant->types.items[m->type];
    IrExpr *dig = field_bits(S, word, m->shift, t->frac, sp), *exp = field_bits(S, word, m->eshift, t->exp, sp);
    IrExpr *d = dig, *sbit = NULL;
    if (t->sign) {
        IrExpr *sg = bin(S, IR_AND, dig, u32c(S, 1u << t->mant, sp), sp);
        d = bin(S, IR_SHL, bin(S, IR_XOR, dig, sg, sp), u32c(S, 1, sp), sp);
        sbit = bin(S, IR_SHL, sg, u32c(S, 31 - t->mant, sp), sp);
    }
    IrExpr *dz = bin(S, IR_EQ, d, u32c(S, 0, sp), sp);
    IrExpr *nlz = irb_math(S->arena, IR_CLZ, irb_select(S->arena, dz, u32c(S, 1, sp), d, sp), sp); /* d = 0 reads 0 below */
    IrExpr *extra = bin(S, IR_SUB, irb_int(S->arena, QT_I32, 31 - t->mant, sp), bitcast(S, nlz, QT_I32), sp);
    int conv = 127 - (1 << (t->exp - 1)) + 1 + (t->sign ? 0 : 1);
    IrExpr *e = bin(S, IR_ADD, bin(S, IR_ADD, bitcast(S, exp, QT_I32), irb_int(S->arena, QT_I32, conv, sp), sp), extra, sp);
    IrExpr *ds = bin(S, IR_SUB, irb_int(S->arena, QT_I32, 23 - t->mant, sp), extra, sp);
    IrExpr *fr = bin(S, IR_AND, bin(S, IR_SHL, d, bitcast(S, ds, QT_U32), sp), u32c(S, 0x7fffffu, sp), sp);
    IrExpr *bits = bin(S, IR_OR, bin(S, IR_SHL, bitcast(S, e, QT_U32), u32c(S, 23, sp), sp), fr, sp);
    IrExpr *zero = bin(S, IR_LOR, bin(S, IR_EQ, exp, u32c(S, 0, sp), sp), bin(S, IR_EQ, dig, u32c(S, 0, sp), sp), sp);
    bits = irb_select(S->arena, zero, u32c(S, 0, sp), bits, sp);
    if (sbit) bits = bin(S, IR_OR, bits, sbit, sp);
    return bitcast(S, bits, QT_F32);
}

/* Decoding: the member's value, of its compute type, from the whole word. */
static IrExpr *decode(Sema *S, const QMember *m, IrExpr *word, IrExpr *shift, Span sp) {
    const QType *t = &S->quant->types.items[m->type];
    if (t->kind == QK_INT) return irb_cast(S->arena, digits(S, word, t->bits, t->sign, shift, sp), t->compute);
    if (t->kind == QK_FIXED)
        return bin(S, IR_MUL, irb_cast(S->arena, digits(S, word, t->bits, t->sign, shift, sp), t->compute),
                   irb_float(S->arena, t->compute, t->scale, sp), sp);
    if (m->group >= 0) return decode_shared(S, m, word, sp);
    /* float: [exp | frac - sign | sign] from the member's low bit, as Quadrants packs it (the
     * exponent member first, then the digits); exponent 0 is zero */
    IrExpr *w32 = irb_cast(S->arena, bin(S, IR_SHR, word, shift, sp), QT_U32);
    IrExpr *exp = bin(S, IR_AND, w32, u32c(S, (1u << t->exp) - 1, sp), sp);
    IrExpr *frac = bin(S, IR_AND, bin(S, IR_SHR, w32, u32c(S, t->exp, sp), sp), u32c(S, (1u << t->mant) - 1, sp), sp);
    int bias = (1 << (t->exp - 1)) - 1;
    IrExpr *e32 = bin(S, IR_ADD, exp, u32c(S, 127 - bias, sp), sp);
    IrExpr *bits = bin(S, IR_OR, bin(S, IR_SHL, e32, u32c(S, 23, sp), sp), bin(S, IR_SHL, frac, u32c(S, 23 - t->mant, sp), sp), sp);
    if (t->sign) {
        IrExpr *s = bin(S, IR_AND, bin(S, IR_SHR, w32, u32c(S, t->mant + t->exp, sp), sp), u32c(S, 1, sp), sp);
        bits = bin(S, IR_OR, bits, bin(S, IR_SHL, s, u32c(S, 31, sp), sp), sp);
    }
    IrExpr *zero = bin(S, IR_EQ, exp, u32c(S, 0, sp), sp);
    return irb_select(S->arena, zero, irb_float(S->arena, QT_F32, 0.0, sp), bitcast(S, bits, QT_F32), sp);
}

/* Encoding: the member's bits in place (the rest of the word zero), from a value. */
static IrExpr *encode(Sema *S, const QMember *m, IrExpr *v, QdType wt, IrExpr *shift, Span sp) {
    const QType *t = &S->quant->types.items[m->type];
    QdType st = wt == QT_U64 ? QT_I64 : QT_I32;
    uint64_t mask = t->bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << t->bits) - 1;
    IrExpr *d;
    if (t->kind == QK_INT) {
        d = irb_cast(S->arena, sema_convert(S, v, t->compute), st);
    } else if (t->kind == QK_FIXED) { /* Quadrants: int(v * (1 / scale) + 0.5 away from zero) */
        IrExpr *x = bin(S, IR_MUL, sema_convert(S, v, t->compute), irb_float(S->arena, t->compute, 1.0 / t->scale, sp), sp);
        d = irb_cast(S->arena, irb_math(S->arena, IR_ROUND, x, sp), st);
    } else { /* float: round the f32 to frac - sign bits (nearest, ties away), clamp the exponent */
        IrExpr *f = sema_convert(S, v, QT_F32);
        IrExpr *b = bitcast(S, f, QT_U32);
        int drop = 23 - t->mant, bias = (1 << (t->exp - 1)) - 1;
        IrExpr *mag = bin(S, IR_AND, b, irb_int(S->arena, QT_U32, 0x7fffffffu, sp), sp);
        mag = bin(S, IR_ADD, mag, irb_int(S->arena, QT_U32, drop ? 1u << (drop - 1) : 0, sp), sp); /* rounding carries into the exponent */
        IrExpr *e = bin(S, IR_SHR, mag, irb_int(S->arena, QT_U32, 23, sp), sp);
        IrExpr *fr = bin(S, IR_AND, bin(S, IR_SHR, mag, irb_int(S->arena, QT_U32, drop, sp), sp), irb_int(S->arena, QT_U32, (1u << t->mant) - 1, sp), sp);
        IrExpr *es = bin(S, IR_SUB, bitcast(S, e, QT_I32), irb_int(S->arena, QT_I32, 127 - bias, sp), sp); /* the stored exponent */
        IrExpr *under = bin(S, IR_LE, es, irb_int(S->arena, QT_I32, 0, sp), sp);
        IrExpr *over = bin(S, IR_GT, es, irb_int(S->arena, QT_I32, (1 << t->exp) - 1, sp), sp);
        IrExpr *eu = bitcast(S, es, QT_U32);
        IrExpr *packed = bin(S, IR_OR, eu, bin(S, IR_SHL, fr, irb_int(S->arena, QT_U32, t->exp, sp), sp), sp);
        packed = irb_select(S->arena, over, irb_int(S->arena, QT_U32, ((1u << t->mant) - 1) << t->exp | ((1u << t->exp) - 1), sp), packed, sp);
        packed = irb_select(S->arena, under, irb_int(S->arena, QT_U32, 0, sp), packed, sp);
        if (t->sign) { /* unsigned: the magnitude is stored, as Quadrants does (its sign bit is dropped) */
            IrExpr *s = bin(S, IR_SHR, b, irb_int(S->arena, QT_U32, 31, sp), sp);
            s = irb_select(S->arena, under, irb_int(S->arena, QT_U32, 0, sp), s, sp);
            packed = bin(S, IR_OR, packed, bin(S, IR_SHL, s, irb_int(S->arena, QT_U32, t->mant + t->exp, sp), sp), sp);
        }
        d = irb_cast(S->arena, packed, st);
    }
    IrExpr *u = bitcast(S, d, wt);
    u = bin(S, IR_AND, u, irb_int(S->arena, wt, (int64_t)mask, sp), sp);
    return bin(S, IR_SHL, u, shift, sp);
}

static void assign(Sema *S, int l, IrExpr *v, Span sp);

/* The reference to the word holding r's element and the element's bit offset in it (of the
 * word's type). Indices with effects are evaluated once, first. */
static IrRef *word_ref(Sema *S, IrRef *r, int m, IrExpr **shift, Span sp) {
    const QMember *qm = &S->quant->members.items[m];
    for (int k = 0; k < r->nidx && !r->flat; k++) {
        IrExpr *ix = r->idx[k];
        if (ix->kind == IR_CONST || ix->kind == IR_LOCAL || ix->kind == IR_PARAM) continue;
        int l = sema_new_local(S, "$qidx", ix->type);
        assign(S, l, ix, sp);
        r->idx[k] = sema_local(S, l, sp);
    }
    if (qm->qarray < 0) {
        IrRef *w = ARENA_NEW(S->arena, IrRef);
        *w = *r;
        w->index = S->quant->packs.items[qm->pack].word, w->type = S->fields.items[w->index].type;
        *shift = irb_int(S->arena, w->type, qm->shift, sp);
        return w;
    }
    const QArray *qa = &S->quant->arrays.items[qm->qarray];
    const IrField *wf = &S->fields.items[qa->word];
    IrRef *w = ARENA_NEW(S->arena, IrRef);
    *w = *r;
    w->index = qa->word, w->type = wf->type, w->nidx = wf->ndim, w->flat = NULL;
    w->idx = ARENA_ARRAY(S->arena, IrExpr *, wf->ndim + 1);
    IrExpr *lin = irb_int(S->arena, QT_I32, 0, sp);
    for (int k = 0; k < r->nidx; k++) {
        int64_t q = 1;
        for (int j = 0; j < qa->naxes; j++) q *= qa->axis[j] == k ? qa->size[j] : 1;
        IrExpr *qs = irb_int(S->arena, QT_I32, q, sp), *ix = irb_cast(S->arena, r->idx[k], QT_I32);
        if (k < wf->ndim) w->idx[k] = q == 1 ? ix : bin(S, IR_DIV, ix, qs, sp);
        if (q > 1) lin = bin(S, IR_ADD, bin(S, IR_MUL, lin, qs, sp), bin(S, IR_REM, ix, qs, sp), sp);
    }
    if (wf->storage) w->flat = sema_snode_flat(S, wf, w->idx, sp);
    *shift = irb_cast(S->arena, bin(S, IR_MUL, lin, irb_int(S->arena, QT_I32, S->quant->types.items[qm->type].bits, sp), sp), wf->type);
    return w;
}

IrExpr *sema_quant_load(Sema *S, IrRef *r, Span sp) {
    int m = ref_member(S, r);
    if (m < 0) return NULL;
    IrExpr *shift;
    IrRef *w = word_ref(S, r, m, &shift, sp);
    IrExpr *e = irb_new(S->arena, IR_LOAD, w->type, sp);
    e->ref = w;
    return decode(S, &S->quant->members.items[m], e, shift, sp);
}

static IrExpr *memop(Sema *S, QdOp op, IrRef *r, Span sp) {
    IrExpr *e = irb_new(S->arena, IR_MEMOP, r->type, sp);
    e->mem.op = op, e->mem.ref = r, e->mem.result_used = true;
    e->mem.order = QORD_RELAXED, e->mem.scope = QSCOPE_DEVICE;
    return e;
}

static void assign(Sema *S, int l, IrExpr *v, Span sp) {
    IrStmt *st = sema_stmt_new(S, IR_ASSIGN, sp);
    st->assign.local = l, st->assign.value = v;
    sema_emit(S, st);
}

/* A store of v to float member m of an exponent-sharing group (Quadrants'
 * store_quant_floats_with_shared_exponents): the other members' values are read from the old
 * word, the shared exponent becomes the largest of the f32 exponents, and every member's digits
 * (the mantissa with its leading 1) are shifted right by the difference and rounded to nearest.
 * The bits of the group, and in *mask the group's bits in the word. */
static IrExpr *encode_group(Sema *S, const QMember *m, IrExpr *v, IrExpr *old, uint64_t *mask, Span sp) {
    struct SemaQuant *q = S->quant;
    QdType wt = old->type;
    IrExpr *f[64] = {0}, *ef[64] = {0};
    const QMember *us[64] = {0};
    int n = 0;
    for (int k = 0; k < q->members.len && n < 64; k++) {
        const QMember *u = &q->members.items[k];
        if (u->group != m->group || u->pack != m->pack) continue;
        us[n] = u;
        f[n] = u == m ? v : decode_shared(S, u, old, sp);
        ef[n] = bin(S, IR_AND, bin(S, IR_SHR, bitcast(S, f[n], QT_U32), u32c(S, 23, sp), sp), u32c(S, 0xff, sp), sp);
        n++;
    }
    IrExpr *maxe = ef[0];
    for (int k = 1; k < n; k++) maxe = bin(S, IR_MAX, maxe, ef[k], sp);
    int lmax = sema_new_local(S, "$qmaxe", QT_U32);
    assign(S, lmax, maxe, sp);
    maxe = sema_local(S, lmax, sp);
    const QType *t0 = &q->types.items[m->type];
    int conv = 127 - (1 << (t0->exp - 1)) + 1;
    IrExpr *off = irb_select(S->arena, bin(S, IR_NE, maxe, u32c(S, 0, sp), sp), irb_int(S->arena, QT_I32, conv, sp), irb_int(S->arena, QT_I32, 0, sp), sp);
    IrExpr *es = bin(S, IR_MAX, bin(S, IR_SUB, bitcast(S, maxe, QT_I32), off, sp), irb_int(S->arena, QT_I32, 0, sp), sp);
    IrExpr *out = bin(S, IR_SHL, irb_cast(S->arena, bitcast(S, es, QT_U32), wt), irb_int(S->arena, wt, m->eshift, sp), sp);
    *mask = ((UINT64_C(1) << t0->exp) - 1) << m->eshift;
    for (int k = 0; k < n; k++) {
        const QType *t = &q->types.items[us[k]->type];
        IrExpr *b = bitcast(S, f[k], QT_U32);
        IrExpr *full = bin(S, IR_OR, bin(S, IR_AND, b, u32c(S, 0x7fffffu, sp), sp), u32c(S, 1u << 23, sp), sp);
        IrExpr *sh = bin(S, IR_MIN, bin(S, IR_SUB, maxe, ef[k], sp), u32c(S, 31, sp), sp);
        IrExpr *d = bin(S, IR_SHR, full, sh, sp);
        int rs = 24 - t->mant;
        d = bin(S, IR_MIN, bin(S, IR_ADD, d, u32c(S, 1u << (rs - 1), sp), sp), u32c(S, (1u << 24) - 1, sp), sp);
        d = bin(S, IR_SHR, d, u32c(S, rs, sp), sp);
        if (t->sign) d = bin(S, IR_OR, d, bin(S, IR_SHR, bin(S, IR_AND, b, u32c(S, 0x80000000u, sp), sp), u32c(S, 31 - t->mant, sp), sp), sp);
        out = bin(S, IR_OR, out, bin(S, IR_SHL, irb_cast(S->arena, d, wt), irb_int(S->arena, wt, us[k]->shift, sp), sp), sp);
        *mask |= ((UINT64_C(1) << t->frac) - 1) << us[k]->shift;
    }
    return out;
}

/* One compare-and-swap loop on the member's word: new = old with the member's bits replaced by
 * encode(f(decode(old))); f is NULL for a store of v, else the operator token of `x[i] op= v`. */
static int cas_loop(Sema *S, IrRef *r0, int m, IrExpr *v, int tok, IrExpr **shift_out, Span sp) {
    const QMember *qm = &S->quant->members.items[m];
    IrExpr *shift;
    IrRef *r = word_ref(S, r0, m, &shift, sp);
    QdType wt = r->type;
    if (!ir_is_const(shift)) { /* a quant_array element: its offset once */
        int ls = sema_new_local(S, "$qshift", wt);
        assign(S, ls, shift, sp);
        shift = sema_local(S, ls, sp);
    }
    const QType *t = &S->quant->types.items[qm->type];
    int lv = sema_new_local(S, "$qval", tok ? v->type : t->compute);
    assign(S, lv, tok ? v : sema_convert(S, v, t->compute), sp);
    int lold = sema_new_local(S, "$qold", wt), lprev = sema_new_local(S, "$qprev", wt), ldone = sema_new_local(S, "$qdone", QT_U1);
    assign(S, lold, memop(S, QOP_LOAD, r, sp), sp);
    assign(S, ldone, irb_int(S->arena, QT_U1, 0, sp), sp);
    IrStmtVec body = {0}, *outer = S->cur;
    S->cur = &body;
    IrExpr *val = sema_local(S, lv, sp);
    if (tok) {
        IrExpr *cur = decode(S, qm, sema_local(S, lold, sp), shift, sp);
        val = tok == -1 || tok == -2 ? sema_binary(S, tok == -1 ? IR_MIN : IR_MAX, cur, val, sp) : sema_binop_tok(S, tok, cur, val, sp);
    }
    if (val) {
        uint64_t mask = t->bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << t->bits) - 1;
        IrExpr *hole = bin(S, IR_XOR, bin(S, IR_SHL, irb_int(S->arena, wt, (int64_t)mask, sp), shift, sp), irb_int(S->arena, wt, -1, sp), sp);
        IrExpr *put;
        if (qm->group >= 0) { /* the whole group: the exponent and every member's digits */
            put = encode_group(S, qm, sema_convert(S, val, QT_F32), sema_local(S, lold, sp), &mask, sp);
            hole = irb_int(S->arena, wt, (int64_t)(~mask & (wt == QT_U64 ? ~UINT64_C(0) : 0xffffffffu)), sp);
            put = bin(S, IR_AND, put, irb_int(S->arena, wt, (int64_t)mask, sp), sp);
        } else
            put = encode(S, qm, val, wt, shift, sp);
        IrExpr *keep = bin(S, IR_AND, sema_local(S, lold, sp), hole, sp);
        IrExpr *nw = bin(S, IR_OR, keep, put, sp);
        IrExpr *cas = memop(S, QOP_CAS, r, sp);
        cas->mem.val = sema_local(S, lold, sp), cas->mem.val2 = nw;
        assign(S, lprev, cas, sp);
        assign(S, ldone, bin(S, IR_EQ, sema_local(S, lprev, sp), sema_local(S, lold, sp), sp), sp);
        assign(S, lold, sema_local(S, lprev, sp), sp);
    }
    S->cur = outer;
    IrStmt *w = sema_stmt_new(S, IR_WHILE, sp);
    IrExpr *nd = irb_new(S->arena, IR_UNARY, QT_U1, sp);
    nd->un.op = IR_LNOT, nd->un.a = sema_local(S, ldone, sp);
    w->while_.cond = nd;
    w->while_.body = sema_freeze(S, &body);
    if (val) sema_emit(S, w);
    *shift_out = shift;
    return val ? lold : -1;
}

bool sema_quant_store(Sema *S, IrRef *r, IrExpr *v, Span sp) {
    int m = ref_member(S, r);
    if (m < 0) return false;
    IrExpr *shift;
    if (v) cas_loop(S, r, m, v, 0, &shift, sp);
    return true;
}

bool sema_quant_augassign(Sema *S, const Stmt *st, IrRef *r) {
    int m = ref_member(S, r);
    if (m < 0) return false;
    IrExpr *v = sema_expr(S, st->aug.value);
    IrExpr *shift;
    if (v) cas_loop(S, r, m, v, st->aug.op, &shift, st->span);
    return true;
}

/* qd.atomic_<op>(x[i], v) on a member: the CAS loop of x[i] op= v; the value is the old one. */
Val sema_quant_atomic(Sema *S, const Expr *call, IrRef *r, QdOp op, const char *opname) {
    int m = ref_member(S, r);
    int tok = op == QOP_ADD ? T_PLUS : op == QOP_SUB ? T_MINUS : op == QOP_MUL ? T_STAR : op == QOP_AND ? T_AMP : op == QOP_OR ? T_PIPE
            : op == QOP_XOR ? T_CARET : op == QOP_MIN ? -1 : op == QOP_MAX ? -2 : 0;
    if (!tok || call->call.args.n != 2)
        return diag_error(call->span, QD2063, "'%s' on a field of a quantized type is not supported: qdc updates quantized fields "
                          "with add, sub, mul, min, max, and, or and xor", opname), val_err();
    IrExpr *v = sema_expr(S, call->call.args.items[1]), *shift;
    if (!v) return val_err();
    int old = cas_loop(S, r, m, v, tok, &shift, call->span);
    if (old < 0) return val_err();
    return val_expr(decode(S, &S->quant->members.items[m], sema_local(S, old, call->span), shift, call->span));
}

/* ---- the end: members leave the module, the other fields are renumbered ---- */

typedef struct Renum {
    const int *map;
    const bool *quiet; /* members already reported (never placed, place() refused) */
    IrMemo done;
} Renum;

static void renum_ref(Renum *rn, IrRef *r) {
    if (!r || r->kind != IR_REF_FIELD || ir_memo_get(&rn->done, r)) return;
    ir_memo_put(&rn->done, r, r);
    if (rn->map[r->index] < 0 && !rn->quiet[r->index]) /* a placed member reached by an operation that does not decode it */
        diag_error(r->span, QD2063, "this operation on a field of a quantized type is not supported: read it, assign it, "
                   "or update it with op= or qd.atomic_<op>");
    r->index = rn->map[r->index] < 0 ? 0 : rn->map[r->index];
}

static IrExpr *renum_expr(IrWalker *w, IrExpr *e) {
    Renum *rn = w->ctx;
    if (e->kind == IR_LOAD) renum_ref(rn, e->ref);
    if (e->kind == IR_MEMOP) renum_ref(rn, e->mem.ref);
    return e;
}

static void renum_stmt(IrWalker *w, IrStmt *s) {
    if (s->kind == IR_STORE) renum_ref(w->ctx, s->store.ref);
}

static void quant_free(Sema *S) {
    vec_free(&S->quant->types), vec_free(&S->quant->members);
    for (int k = 0; k < S->quant->packs.len; k++) vec_free(&S->quant->packs.items[k].members);
    vec_free(&S->quant->packs), vec_free(&S->quant->arrays);
    S->quant = NULL;
}

void sema_quant_finish(Sema *S) {
    if (!S->quant) return;
    if (!S->quant->members.len) return quant_free(S);
    int n = S->fields.len, *map = xcalloc((size_t)n + 1, sizeof *map), j = 0;
    bool *gone = xcalloc((size_t)n + 1, sizeof *gone), *quiet = xcalloc((size_t)n + 1, sizeof *quiet);
    for (int k = 0; k < S->quant->members.len; k++) gone[S->quant->members.items[k].field] = true;
    for (int i = 0; i < n; i++) map[i] = gone[i] ? -1 : j++;
    for (int k = 0; k < S->quant->members.len; k++) { /* never placed, or its place() refused: reported once there, not at each use */
        const QMember *qm = &S->quant->members.items[k];
        if (qm->pack < 0 && qm->qarray < 0) quiet[qm->field] = true;
    }
    for (int i = 0; i < n; i++) {
        IrField *f = &S->fields.items[i];
        if (f->grad > 0) f->grad = map[f->grad - 1] + 1;
        if (f->dual > 0) f->dual = map[f->dual - 1] + 1;
        for (int l = 0; l < f->nlevels; l++)
            if (f->levels[l].sparse != IR_SNODE_DENSE && f->levels[l].meta >= 0) f->levels[l].meta = map[f->levels[l].meta];
        if (!gone[i]) S->fields.items[map[i]] = *f;
    }
    S->fields.len = j;
    Renum rn = {map, quiet, {0}};
    IrWalker w = {.expr = renum_expr, .stmt = renum_stmt, .ctx = &rn};
    for (int k = 0; k < S->kernels.len; k++) {
        IrKernel *kn = &S->kernels.items[k];
        ir_walk_kernel(kn, &w);
        ir_memo_clear(&w.seen);
        if (kn->ret_field >= 0) kn->ret_field = map[kn->ret_field];
        for (int r = 0; r < kn->ret_nmembers; r++) kn->ret_members[r].field = map[kn->ret_members[r].field];
    }
    ir_memo_free(&w.seen), ir_memo_free(&rn.done);
    free(map), free(gone), free(quiet);
    quant_free(S);
}
