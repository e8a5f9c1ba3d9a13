/* qd.simt.subgroup.*, qd.simt.warp.*, the qd.simt.block.* collectives and the generic helpers of
 * quadrants.lang.simt.reductions (_inclusive_scan_tiled ...). The primitives (lane id, size,
 * shuffles, broadcast, ballot, votes, full-subgroup reductions and scans, sync) become one
 * IR_SUBGROUP node each (ops in ir/simt.def); Quadrants' *_tiled helpers and lane masks expand
 * here into those primitives exactly as Quadrants composes them (shuffle_down trees, xor
 * butterflies, Hillis-Steele scans over 2**log2_size lanes), so every backend sees only the
 * primitives. qd.simt.warp.* takes a CUDA mask: the full constant mask lowers to the subgroup
 * primitive with a 32-lane requirement (IrExpr.sg.warp), checked per family by the backends. */
#include "sema.h"
#include <math.h>
#include <string.h>

typedef enum { F_PRIM, F_SIZE, F_LOG2_SIZE, F_SYNC, F_FENCE, F_ELECT, F_BALLOT, F_BALLOT_N, F_VOTE, F_ALL_EQUAL,
               F_BCAST_FIRST, F_SHUFFLE_XOR, F_LANEMASK, F_REDUCE, F_SCAN, F_REDUCE_TILED, F_REDUCE_ALL_TILED,
               F_VOTE_TILED, F_ALL_EQUAL_TILED, F_SCAN_TILED, F_EXSCAN_TILED, F_SEGMENTED, F_SEGMENTED_TILED, F_SORT, F_SORT_TILED,
               W_VOTE, W_UNIQUE, W_BALLOT, W_SHFL, W_SHFL_XOR, W_MATCH_ANY, W_MATCH_ALL, W_ACTIVE, W_SYNC,
               B_REDUCE, B_SCAN, B_SYNC_NONZERO, B_GENERIC, B_RADIX,
               R_REDUCE, R_SCAN, R_EXSCAN, R_SEG_DIST, R_BIN } SimtForm;

/* One row per spelling: path suffix, form, IR op (or the lanemask kind), combine op, args. */
typedef struct { const char *name; SimtForm form; int op; IrBinOp combine; int nargs; } SimtFn;

#define SUB(n, f, op, c, na) {"qd.simt.subgroup." n, f, op, c, na}
#define WARP(n, f, op, c, na) {"qd.simt.warp." n, f, op, c, na}
#define BLOCK(n, f, op, c, na) {"qd.simt.block." n, f, op, c, na}
#define RED(n, f, c, na) {"qd.simt.reductions." n, f, 0, c, na}
#define RED3(sfx, c) SUB("reduce_" sfx, F_REDUCE, SG_REDUCE, c, 1), SUB("reduce_all_" sfx, F_REDUCE, SG_REDUCE, c, 1), \
    SUB("reduce_" sfx "_tiled", F_REDUCE_TILED, 0, c, 2), SUB("reduce_all_" sfx "_tiled", F_REDUCE_ALL_TILED, 0, c, 2)
#define SCAN(sfx, c) SUB("inclusive_" sfx, F_SCAN, SG_INCLUSIVE, c, 1), SUB("exclusive_" sfx, F_SCAN, SG_EXCLUSIVE, c, 1), \
    SUB("inclusive_" sfx "_tiled", F_SCAN_TILED, 0, c, 2), SUB("exclusive_" sfx "_tiled", F_EXSCAN_TILED, 0, c, 2)
static const SimtFn fns[] = {
    SUB("invocation_id", F_PRIM, SG_INVOCATION_ID, IR_ADD, 0), SUB("group_size", F_SIZE, SG_SIZE, IR_ADD, 0),
    SUB("log2_group_size", F_LOG2_SIZE, 0, IR_ADD, 0),
    SUB("sync", F_SYNC, 0, IR_ADD, 0), SUB("barrier", F_SYNC, 0, IR_ADD, 0),
    SUB("mem_fence", F_FENCE, 0, IR_ADD, 0), SUB("memory_barrier", F_FENCE, 0, IR_ADD, 0),
    SUB("elect", F_ELECT, 0, IR_ADD, 0), SUB("ballot", F_BALLOT, 0, IR_ADD, 1),
    SUB("ballot_full_subgroup", F_BALLOT, 0, IR_ADD, 1), SUB("ballot_first_n", F_BALLOT_N, 0, IR_ADD, 2),
    SUB("all_true", F_VOTE, SG_ALL, IR_ADD, 1), SUB("any_true", F_VOTE, SG_ANY, IR_ADD, 1),
    SUB("all_equal", F_ALL_EQUAL, 0, IR_ADD, 1), SUB("all_true_tiled", F_VOTE_TILED, 0, IR_AND, 2),
    SUB("any_true_tiled", F_VOTE_TILED, 0, IR_OR, 2), SUB("all_equal_tiled", F_ALL_EQUAL_TILED, 0, IR_ADD, 2),
    SUB("broadcast", F_PRIM, SG_BROADCAST, IR_ADD, 2), SUB("broadcast_first", F_BCAST_FIRST, 0, IR_ADD, 1),
    SUB("shuffle", F_PRIM, SG_SHUFFLE, IR_ADD, 2), SUB("shuffle_up", F_PRIM, SG_SHUFFLE_UP, IR_ADD, 2),
    SUB("shuffle_down", F_PRIM, SG_SHUFFLE_DOWN, IR_ADD, 2), SUB("shuffle_xor", F_SHUFFLE_XOR, 0, IR_ADD, 2),
    SUB("lanemask_lt", F_LANEMASK, 0, IR_ADD, 1), SUB("lanemask_le", F_LANEMASK, 1, IR_ADD, 1),
    SUB("lanemask_eq", F_LANEMASK, 2, IR_ADD, 1), SUB("lanemask_gt", F_LANEMASK, 3, IR_ADD, 1),
    SUB("lanemask_ge", F_LANEMASK, 4, IR_ADD, 1),
    RED3("add", IR_ADD), RED3("min", IR_MIN), RED3("max", IR_MAX),
    SUB("bitonic_sort_kv", F_SORT, 0, IR_ADD, 2), SUB("bitonic_sort_kv_tiled", F_SORT_TILED, 0, IR_ADD, 3),
    SUB("segmented_reduce_add", F_SEGMENTED, 0, IR_ADD, 2), SUB("segmented_reduce_min", F_SEGMENTED, 0, IR_MIN, 2),
    SUB("segmented_reduce_max", F_SEGMENTED, 0, IR_MAX, 2), SUB("segmented_reduce_add_tiled", F_SEGMENTED_TILED, 0, IR_ADD, 3),
    SUB("segmented_reduce_min_tiled", F_SEGMENTED_TILED, 0, IR_MIN, 3), SUB("segmented_reduce_max_tiled", F_SEGMENTED_TILED, 0, IR_MAX, 3),
    SCAN("add", IR_ADD), SCAN("mul", IR_MUL), SCAN("min", IR_MIN), SCAN("max", IR_MAX),
    SCAN("and", IR_AND), SCAN("or", IR_OR), SCAN("xor", IR_XOR),
    WARP("all_nonzero", W_VOTE, SG_ALL, IR_ADD, 2), WARP("any_nonzero", W_VOTE, SG_ANY, IR_ADD, 2),
    WARP("unique", W_UNIQUE, 0, IR_ADD, 2), WARP("ballot", W_BALLOT, 0, IR_ADD, 1),
    WARP("shfl_sync_i32", W_SHFL, SG_SHUFFLE, IR_ADD, 3), WARP("shfl_sync_f32", W_SHFL, SG_SHUFFLE, IR_ADD, 3),
    WARP("shfl_up_i32", W_SHFL, SG_SHUFFLE_UP, IR_ADD, 3), WARP("shfl_up_f32", W_SHFL, SG_SHUFFLE_UP, IR_ADD, 3),
    WARP("shfl_down_i32", W_SHFL, SG_SHUFFLE_DOWN, IR_ADD, 3), WARP("shfl_down_f32", W_SHFL, SG_SHUFFLE_DOWN, IR_ADD, 3),
    WARP("shfl_xor_i32", W_SHFL_XOR, 0, IR_ADD, 3), WARP("match_any", W_MATCH_ANY, 0, IR_ADD, 2),
    WARP("match_all", W_MATCH_ALL, 0, IR_ADD, 2), WARP("active_mask", W_ACTIVE, 0, IR_ADD, 0),
    WARP("sync", W_SYNC, 0, IR_ADD, 1),
    BLOCK("reduce_add", B_REDUCE, SG_REDUCE, IR_ADD, 3), BLOCK("reduce_min", B_REDUCE, SG_REDUCE, IR_MIN, 3),
    BLOCK("reduce_max", B_REDUCE, SG_REDUCE, IR_MAX, 3), BLOCK("reduce_all_add", B_REDUCE, SG_REDUCE, IR_ADD, 3),
    BLOCK("reduce_all_min", B_REDUCE, SG_REDUCE, IR_MIN, 3), BLOCK("reduce_all_max", B_REDUCE, SG_REDUCE, IR_MAX, 3),
    BLOCK("inclusive_add", B_SCAN, SG_INCLUSIVE, IR_ADD, 3), BLOCK("inclusive_min", B_SCAN, SG_INCLUSIVE, IR_MIN, 3),
    BLOCK("inclusive_max", B_SCAN, SG_INCLUSIVE, IR_MAX, 3), BLOCK("exclusive_add", B_SCAN, SG_EXCLUSIVE, IR_ADD, 3),
    BLOCK("exclusive_min", B_SCAN, SG_EXCLUSIVE, IR_MIN, 3), BLOCK("exclusive_max", B_SCAN, SG_EXCLUSIVE, IR_MAX, 3),
    BLOCK("sync_all_nonzero", B_SYNC_NONZERO, SG_ALL, IR_ADD, 1), BLOCK("sync_any_nonzero", B_SYNC_NONZERO, SG_ANY, IR_ADD, 1),
    BLOCK("sync_count_nonzero", B_SYNC_NONZERO, SG_REDUCE, IR_ADD, 1),
    BLOCK("reduce", B_GENERIC, SG_REDUCE, IR_ADD, 4), BLOCK("reduce_all", B_GENERIC, SG_REDUCE, IR_ADD, 4),
    BLOCK("inclusive_scan", B_GENERIC, SG_INCLUSIVE, IR_ADD, 4), BLOCK("exclusive_scan", B_GENERIC, SG_EXCLUSIVE, IR_ADD, 5),
    BLOCK("radix_rank_match_atomic_or", B_RADIX, 0, IR_ADD, 7),
    /* the private helpers of quadrants.lang.simt.reductions that upstream code imports; its public
     * names are qd.simt.subgroup's (find) */
    RED("_reduce_tiled", R_REDUCE, IR_ADD, 3), RED("_inclusive_scan_tiled", R_SCAN, IR_ADD, 3),
    RED("_exclusive_scan_tiled", R_EXSCAN, IR_ADD, 4), RED("_segment_head_distance_tiled", R_SEG_DIST, IR_ADD, 2),
    /* its binary operators, called or passed as the op of the helpers above */
    RED("_bin_add", R_BIN, IR_ADD, 2), RED("_bin_mul", R_BIN, IR_MUL, 2), RED("_bin_min", R_BIN, IR_MIN, 2),
    RED("_bin_max", R_BIN, IR_MAX, 2), RED("_bin_and", R_BIN, IR_AND, 2), RED("_bin_or", R_BIN, IR_OR, 2),
    RED("_bin_xor", R_BIN, IR_XOR, 2),
};

static const SimtFn *find(const char *path) {
    static const char red[] = "qd.simt.reductions.";
    char sub[128];
    if (!strncmp(path, red, sizeof red - 1) && path[sizeof red - 1] != '_' && /* reductions.reduce_add_tiled: the subgroup one */
        snprintf(sub, sizeof sub, "qd.simt.subgroup.%s", path + sizeof red - 1) < (int)sizeof sub)
        path = sub;
    for (size_t k = 0; k < ARRAY_LEN(fns); k++)
        if (!strcmp(fns[k].name, path)) return &fns[k];
    return NULL;
}

bool sema_is_simt_builtin(const char *path) { return find(path) != NULL; }

/* ---- building blocks ---- */

typedef struct {
    Sema *S;
    Span sp;
    bool warp; /* from qd.simt.warp.*: the family must have 32-lane subgroups */
} Ctx;

static IrExpr *sg(Ctx *c, IrSgOp op, IrBinOp combine, IrExpr *a, IrExpr *b) {
    IrSgResult r = ir_sg_result(op);
    QdType t = r == SGR_I32 ? QT_I32 : r == SGR_U64 ? QT_U64 : r == SGR_ARG ? a->type : QT_VOID;
    IrExpr *e = irb_new(c->S->arena, IR_SUBGROUP, t, c->sp);
    e->sg.op = op, e->sg.combine = combine, e->sg.a = a, e->sg.b = b, e->sg.warp = c->warp;
    c->S->uses_block = true;
    if (op != SG_INVOCATION_ID && op != SG_SIZE && c->S->sg_divergent) sema_check_uniform(c->S, c->sp, "a subgroup collective", false);
    return e;
}

/* A value used more than once: evaluated once, into a compiler temporary. */
static IrExpr *once(Ctx *c, IrExpr *e) {
    if (e->kind == IR_CONST || e->kind == IR_LOCAL || e->kind == IR_PARAM) return e;
    int l = sema_new_local(c->S, "$sg", e->type);
    IrStmt *as = sema_stmt_new(c->S, IR_ASSIGN, c->sp);
    as->assign.local = l, as->assign.value = e;
    sema_emit(c->S, as);
    return sema_local(c->S, l, c->sp);
}

static IrExpr *i32c(Ctx *c, int64_t v) { return irb_int(c->S->arena, QT_I32, v, c->sp); }
static IrExpr *u32c(Ctx *c, int64_t v) { return irb_int(c->S->arena, QT_U32, v, c->sp); }
static IrExpr *bin(Ctx *c, IrBinOp op, IrExpr *a, IrExpr *b) { return sema_binary(c->S, op, a, b, c->sp); }
static IrExpr *lane(Ctx *c) { return once(c, sg(c, SG_INVOCATION_ID, IR_ADD, NULL, NULL)); }
static IrExpr *nonzero(Ctx *c, IrExpr *p) { return irb_cast(c->S->arena, bin(c, IR_NE, p, irb_int(c->S->arena, p->type, 0, c->sp)), QT_I32); }
static IrExpr *lane_arg(Ctx *c, IrExpr *x) { return irb_cast(c->S->arena, x, QT_I32); }

/* Shuffled values: 32- and 64-bit integers and floats (Quadrants' dtype rule for shuffle). */
static bool value_ok(Ctx *c, IrExpr *v, const char *name, Span at, bool int_only) {
    QdType t = v->type;
    bool ok = t == QT_I32 || t == QT_U32 || t == QT_I64 || t == QT_U64 || (!int_only && (t == QT_F32 || t == QT_F64));
    if (!ok)
        diag_error(at, QD2070, "'%s' takes a %s, got %s", name,
                   int_only ? "32- or 64-bit integer" : "32- or 64-bit integer or float (f32, f64)", qt_name(t));
    return ok;
}

static bool log2_arg(Ctx *c, const Expr *x, int *out) {
    int64_t v;
    if (!sema_const_int(c->S, x, &v, "a tiled subgroup size (log2_size)")) return false;
    if (v < 0 || v > 6) {
        diag_error(x->span, QD2071, "log2_size must be a constant from 0 to 6 (groups of 1 to 64 lanes), got %lld", (long long)v);
        return false;
    }
    return *out = (int)v, true;
}

/* The full warp mask, as a constant: anything else is a partial warp, which the subgroup
 * primitives cannot express. */
static bool full_mask(Ctx *c, const Expr *x) {
    IrExpr *m = sema_expr(c->S, x);
    if (!m) return false;
    if (m->kind == IR_CONST && (m->c.u & 0xFFFFFFFFu) == 0xFFFFFFFFu) return true;
    diag_error(x->span, QD2072, "qdc supports qd.simt.warp.* only with the full mask 0xFFFFFFFF (a constant); "
               "partial-warp masks are not supported");
    return false;
}

/* The identity of `op` on type t, lane 0's result of an exclusive scan. */
static IrExpr *identity(Ctx *c, IrBinOp op, QdType t) {
    bool f = qt_is_float(t), s = qt_is_signed(t);
    int bits = qt_bits(t);
    switch (op) {
    case IR_MUL: return f ? irb_float(c->S->arena, t, 1.0, c->sp) : irb_int(c->S->arena, t, 1, c->sp);
    case IR_AND: return irb_int(c->S->arena, t, -1, c->sp);
    case IR_MIN:
        if (f) return irb_float(c->S->arena, t, INFINITY, c->sp);
        return irb_int(c->S->arena, t, s ? (int64_t)(UINT64_MAX >> (65 - bits)) : -1, c->sp);
    case IR_MAX:
        if (f) return irb_float(c->S->arena, t, -INFINITY, c->sp);
        return irb_int(c->S->arena, t, s ? -(int64_t)(UINT64_MAX >> (65 - bits)) - 1 : 0, c->sp);
    default: return f ? irb_float(c->S->arena, t, 0.0, c->sp) : irb_int(c->S->arena, t, 0, c->sp);
    }
}

/* ---- Quadrants' tiled helpers, unrolled over 2**log2 lanes ---- */

static IrExpr *reduce_tiled(Ctx *c, IrBinOp op, IrExpr *v, int log2) { /* valid in lane 0 of each group */
    for (int i = 0; i < log2; i++) {
        v = once(c, v);
        v = bin(c, op, v, sg(c, SG_SHUFFLE_DOWN, IR_ADD, v, i32c(c, 1 << (log2 - 1 - i))));
    }
    return v;
}

static IrExpr *butterfly(Ctx *c, IrBinOp op, IrExpr *v, int log2) { /* on every lane of each group */
    IrExpr *l = log2 ? lane(c) : NULL;
    for (int i = 0; i < log2; i++) {
        v = once(c, v);
        v = bin(c, op, v, sg(c, SG_SHUFFLE, IR_ADD, v, bin(c, IR_XOR, l, i32c(c, 1 << i))));
    }
    return v;
}

static IrExpr *scan_tiled(Ctx *c, IrBinOp op, IrExpr *v, int log2) { /* Hillis-Steele, inclusive */
    IrExpr *in_group = log2 ? once(c, bin(c, IR_AND, lane(c), i32c(c, (1 << log2) - 1))) : NULL;
    for (int i = 0; i < log2; i++) {
        v = once(c, v);
        IrExpr *partner = sg(c, SG_SHUFFLE_UP, IR_ADD, v, i32c(c, 1 << i));
        IrExpr *sel = irb_new(c->S->arena, IR_SELECT, v->type, c->sp);
        sel->sel.cond = bin(c, IR_GE, in_group, i32c(c, 1 << i)), sel->sel.a = bin(c, op, partner, v), sel->sel.b = v;
        v = sel;
    }
    return v;
}

static IrExpr *exscan_tiled(Ctx *c, IrBinOp op, IrExpr *v, int log2) {
    IrExpr *prev = sg(c, SG_SHUFFLE_UP, IR_ADD, v, i32c(c, 1));
    IrExpr *sel = irb_new(c->S->arena, IR_SELECT, v->type, c->sp);
    sel->sel.cond = bin(c, IR_EQ, bin(c, IR_AND, lane(c), i32c(c, (1 << log2) - 1)), i32c(c, 0));
    sel->sel.a = identity(c, op, v->type), sel->sel.b = prev;
    return scan_tiled(c, op, sel, log2);
}

static IrExpr *vote_tiled(Ctx *c, IrBinOp op, IrExpr *p, int log2) { return butterfly(c, op, nonzero(c, p), log2); }

static IrExpr *all_equal_tiled(Ctx *c, IrExpr *v, int log2) {
    v = once(c, v);
    IrExpr *base = sg(c, SG_SHUFFLE, IR_ADD, v, bin(c, IR_AND, lane(c), i32c(c, ~((1 << log2) - 1))));
    return vote_tiled(c, IR_AND, bin(c, IR_EQ, v, base), log2);
}

static void assign(Ctx *c, int local, IrExpr *v);

/* Quadrants' segmented reduce: lane - (the nearest head at or below the lane in its group of
 * 2**log2 lanes, the group's first lane if none), from one u64 ballot and a clz; then a
 * Hillis-Steele scan that never reaches past that head. */
static IrExpr *seg_distance(Ctx *c, IrExpr *head, int log2) {
    IrExpr *l = lane(c), *all = irb_int(c->S->arena, QT_U64, -1, c->sp);
    IrExpr *full = once(c, sg(c, SG_BALLOT, IR_ADD, nonzero(c, head), NULL));
    IrExpr *base = once(c, irb_cast(c->S->arena, bin(c, IR_AND, l, i32c(c, ~((1 << log2) - 1))), QT_U64));
    IrExpr *bits = irb_int(c->S->arena, QT_U64, log2 == 6 ? -1 : (int64_t)((UINT64_C(1) << (1 << log2)) - 1), c->sp);
    IrExpr *eff = bin(c, IR_OR, bin(c, IR_AND, full, bin(c, IR_SHL, bits, base)), bin(c, IR_SHL, irb_int(c->S->arena, QT_U64, 1, c->sp), base));
    IrExpr *upto = bin(c, IR_SHR, all, irb_cast(c->S->arena, bin(c, IR_SUB, i32c(c, 63), l), QT_U64));
    IrExpr *clz = irb_new(c->S->arena, IR_MATH, QT_U64, c->sp);
    clz->math.op = IR_CLZ, clz->math.a = bin(c, IR_AND, eff, upto);
    return once(c, bin(c, IR_SUB, l, bin(c, IR_SUB, i32c(c, 63), irb_cast(c->S->arena, clz, QT_I32))));
}

static IrExpr *segmented(Ctx *c, IrBinOp op, IrExpr *v, IrExpr *head, int log2) {
    IrExpr *dist = seg_distance(c, head, log2);
    for (int i = 0; i < log2; i++) {
        v = once(c, v);
        IrExpr *sel = irb_new(c->S->arena, IR_SELECT, v->type, c->sp);
        sel->sel.cond = bin(c, IR_GE, dist, i32c(c, 1 << i));
        sel->sel.a = bin(c, op, v, sg(c, SG_SHUFFLE_UP, IR_ADD, v, i32c(c, 1 << i))), sel->sel.b = v;
        v = sel;
    }
    return v;
}

static IrExpr *sel3(Ctx *c, IrExpr *cond, IrExpr *a, IrExpr *b) {
    IrExpr *e = irb_new(c->S->arena, IR_SELECT, a->type, c->sp);
    e->sel.cond = cond, e->sel.a = a, e->sel.b = b;
    return e;
}

/* Quadrants' bitonic sort of (key, value) pairs over 2**log2 lanes: the log2*(log2+1)/2
 * compare-exchange stages, each two xor shuffles and a lexicographic compare. */
static Val bitonic(Ctx *c, IrExpr *key, IrExpr *value, int log2) {
    IrExpr *l = log2 ? lane(c) : NULL;
    int kl = sema_new_local(c->S, "$key", key->type), vl = sema_new_local(c->S, "$value", value->type);
    assign(c, kl, key), assign(c, vl, value);
    for (int k = 1; k <= log2; k++)
        for (int j = k - 1; j >= 0; j--) {
            IrExpr *key0 = sema_local(c->S, kl, c->sp), *val0 = sema_local(c->S, vl, c->sp);
            IrExpr *partner = bin(c, IR_XOR, l, i32c(c, 1 << j));
            IrExpr *tk = once(c, sg(c, SG_SHUFFLE, IR_ADD, key0, partner)), *tv = once(c, sg(c, SG_SHUFFLE, IR_ADD, val0, partner));
            IrExpr *low = bin(c, IR_EQ, bin(c, IR_AND, l, i32c(c, 1 << j)), i32c(c, 0));
            IrExpr *asc = bin(c, IR_EQ, bin(c, IR_AND, l, i32c(c, (1 << k) & ((1 << log2) - 1))), i32c(c, 0));
            IrExpr *take_min = bin(c, IR_EQ, irb_cast(c->S->arena, low, QT_I32), irb_cast(c->S->arena, asc, QT_I32));
            IrExpr *lt = once(c, bin(c, IR_LOR, bin(c, IR_LT, tk, key0), bin(c, IR_LAND, bin(c, IR_EQ, tk, key0), bin(c, IR_LT, tv, val0))));
            IrExpr *ne = bin(c, IR_LOR, bin(c, IR_NE, tk, key0), bin(c, IR_NE, tv, val0));
            IrExpr *nlt = irb_new(c->S->arena, IR_UNARY, QT_U1, c->sp);
            nlt->un.op = IR_LNOT, nlt->un.a = lt;
            IrExpr *swap = once(c, sel3(c, take_min, lt, bin(c, IR_LAND, nlt, ne)));
            assign(c, kl, sel3(c, swap, tk, key0));
            assign(c, vl, sel3(c, swap, tv, sema_local(c->S, vl, c->sp)));
        }
    Val *items = ARENA_ARRAY(c->S->arena, Val, 2);
    items[0] = val_expr(sema_local(c->S, kl, c->sp)), items[1] = val_expr(sema_local(c->S, vl, c->sp));
    return (Val){.kind = V_TUPLE, .tuple = {items, 2}};
}

static IrExpr *lanemask(Ctx *c, int kind, IrExpr *l) {
    IrExpr *one = once(c, bin(c, IR_SHL, u32c(c, 1), irb_cast(c->S->arena, l, QT_U32)));
    IrExpr *lt = bin(c, IR_SUB, one, u32c(c, 1));
    switch (kind) {
    case 0: return lt;
    case 1: return bin(c, IR_OR, one, lt);
    case 2: return one;
    case 3: return bin(c, IR_XOR, bin(c, IR_OR, one, lt), u32c(c, 0xFFFFFFFF));
    default: return bin(c, IR_XOR, lt, u32c(c, 0xFFFFFFFF));
    }
}

/* ---- qd.simt.warp.* on the full mask ---- */

static IrExpr *warp_form(Ctx *c, const SimtFn *f, IrExpr **a) {
    switch (f->form) {
    case W_VOTE: return sg(c, f->op, IR_ADD, nonzero(c, a[1]), NULL);
    case W_UNIQUE: { /* every lane's predicate the same */
        IrExpr *p = once(c, nonzero(c, a[1]));
        return bin(c, IR_OR, sg(c, SG_ALL, IR_ADD, p, NULL), bin(c, IR_XOR, sg(c, SG_ANY, IR_ADD, p, NULL), i32c(c, 1)));
    }
    case W_BALLOT: return irb_cast(c->S->arena, sg(c, SG_BALLOT, IR_ADD, nonzero(c, a[0]), NULL), QT_I32);
    case W_SHFL: {
        IrExpr *v = irb_cast(c->S->arena, a[1], strstr(f->name, "f32") ? QT_F32 : QT_I32);
        IrExpr *off = lane_arg(c, a[2]);
        if (f->op == SG_SHUFFLE) off = bin(c, IR_AND, off, i32c(c, 31));
        return sg(c, f->op, IR_ADD, v, off);
    }
    case W_SHFL_XOR:
        return sg(c, SG_SHUFFLE, IR_ADD, irb_cast(c->S->arena, a[1], QT_I32), bin(c, IR_AND, bin(c, IR_XOR, lane(c), lane_arg(c, a[2])), i32c(c, 31)));
    /* __match_any_sync / __match_all_sync on i32 (match.sync where the family's simt.match says
     * so, else 32 shuffles: the backends choose) */
    case W_MATCH_ANY: return sg(c, SG_MATCH_ANY, IR_ADD, irb_cast(c->S->arena, a[1], QT_I32), NULL);
    case W_MATCH_ALL: return sg(c, SG_MATCH_ALL, IR_ADD, irb_cast(c->S->arena, a[1], QT_I32), NULL);
    case W_ACTIVE: return irb_cast(c->S->arena, sg(c, SG_BALLOT, IR_ADD, i32c(c, 1), NULL), QT_I32);
    default: return NULL;
    }
}

/* ---- qd.simt.block.* collectives: subgroup collectives + a fresh shared array + barriers ----
 * Width-free (the subgroup size is the SG_SIZE value): lane 0 of each subgroup stages its
 * subgroup's aggregate in shared memory, a barrier publishes it, and each thread folds the
 * aggregates it needs in order; a last barrier lets a loop call the collective again. Every
 * thread of the block must reach the call (block_dim threads, as in Quadrants). */

static int block_shared(Ctx *c, QdType t, int64_t elems) {
    IrShared sh = {.name = "$block", .type = t, .ndim = 1, .elems = elems, .task = c->S->task, .span = c->sp};
    sh.shape[0] = elems;
    vec_push(&c->S->shared, sh);
    c->S->uses_block = true;
    return c->S->shared.len - 1;
}

static IrRef *shared_at(Ctx *c, int sh, IrExpr *i) {
    IrRef *r = ARENA_NEW(c->S->arena, IrRef);
    r->kind = IR_REF_SHARED, r->index = sh, r->type = c->S->shared.items[sh].type, r->space = QSPACE_SHARED, r->span = c->sp;
    r->idx = ARENA_ARRAY(c->S->arena, IrExpr *, 1), r->idx[0] = i, r->nidx = 1;
    return r;
}

static IrExpr *load_at(Ctx *c, int sh, IrExpr *i) {
    IrExpr *e = irb_new(c->S->arena, IR_LOAD, c->S->shared.items[sh].type, c->sp);
    e->ref = shared_at(c, sh, i);
    return e;
}

static void store_at(Ctx *c, int sh, IrExpr *i, IrExpr *v) {
    IrStmt *st = sema_stmt_new(c->S, IR_STORE, c->sp);
    st->store.ref = shared_at(c, sh, i), st->store.value = v;
    sema_emit(c->S, st);
}

static void barrier(Ctx *c) { sema_emit(c->S, sema_stmt_new(c->S, IR_BARRIER, c->sp)); }

/* if cond: <the statements emitted between if_open and if_close> */
static IrStmt *if_open(Ctx *c, IrExpr *cond, IrStmtVec *body, IrStmtVec **outer) {
    IrStmt *st = sema_stmt_new(c->S, IR_IF, c->sp);
    st->if_.cond = cond;
    *outer = c->S->cur, c->S->cur = body;
    return st;
}
static void if_close(Ctx *c, IrStmt *st, IrStmtVec *body, IrStmtVec *outer) {
    c->S->cur = outer;
    st->if_.then = sema_freeze(c->S, body);
    sema_emit(c->S, st);
}

/* Leaves an if_open body on an error: its statements (a user operator's bound parameters) are
 * dropped with the vector that holds them. Returns NULL for the caller to return. */
static IrExpr *if_abandon(Ctx *c, IrStmtVec *body, IrStmtVec *outer) {
    c->S->cur = outer;
    vec_free(body);
    return NULL;
}

static void assign(Ctx *c, int local, IrExpr *v) {
    IrStmt *as = sema_stmt_new(c->S, IR_ASSIGN, c->sp);
    as->assign.local = local, as->assign.value = v;
    sema_emit(c->S, as);
}

/* acc = identity; for k in range(n): acc = op(acc, sh[k]) -- returns the local acc. */
static int fold(Ctx *c, int sh, IrBinOp op, QdType t, IrExpr *n) {
    int acc = sema_new_local(c->S, "$acc", t), k = sema_new_local(c->S, "$k", QT_I32);
    assign(c, acc, identity(c, op, t));
    IrStmt *st = sema_stmt_new(c->S, IR_FOR, c->sp);
    st->for_.counter = k, st->for_.begin = i32c(c, 0), st->for_.end = n, st->for_.step = 1;
    IrStmtVec body = {0}, *outer = c->S->cur;
    c->S->cur = &body;
    assign(c, acc, bin(c, op, sema_local(c->S, acc, c->sp), load_at(c, sh, sema_local(c->S, k, c->sp))));
    c->S->cur = outer;
    st->for_.body = sema_freeze(c->S, &body);
    sema_emit(c->S, st);
    return acc;
}

static IrExpr *block_collective(Ctx *c, const SimtFn *f, IrExpr *v, int64_t block_dim) {
    QdType t = v->type;
    int sh = block_shared(c, t, block_dim);
    IrExpr *size = once(c, sg(c, SG_SIZE, IR_ADD, NULL, NULL)), *l = lane(c);
    IrExpr *sub = once(c, bin(c, IR_DIV, irb_new(c->S->arena, IR_THREAD_IDX, QT_I32, c->sp), size));
    v = once(c, v);
    IrExpr *mine = f->op == SG_REDUCE ? NULL : once(c, sg(c, f->op, f->combine, v, NULL));
    IrExpr *total = once(c, sg(c, SG_REDUCE, f->combine, v, NULL));
    IrStmtVec body = {0}, *outer;
    IrStmt *st = if_open(c, bin(c, IR_EQ, l, i32c(c, 0)), &body, &outer);
    store_at(c, sh, sub, total);
    if_close(c, st, &body, outer);
    barrier(c);
    IrExpr *n = f->op == SG_REDUCE ? bin(c, IR_DIV, bin(c, IR_ADD, i32c(c, block_dim), bin(c, IR_SUB, size, i32c(c, 1))), size) : sub;
    int acc = fold(c, sh, f->combine, t, n);
    barrier(c);
    IrExpr *r = sema_local(c->S, acc, c->sp);
    return mine ? bin(c, f->combine, r, mine) : r;
}

/* Quadrants' shared-counter form: every thread adds its 0/1 unconditionally between two barriers. */
static IrExpr *block_sync_nonzero(Ctx *c, const SimtFn *f, IrExpr *p) {
    int sh = block_shared(c, QT_I32, 1);
    IrExpr *one = f->op == SG_ALL ? irb_cast(c->S->arena, bin(c, IR_EQ, p, irb_int(c->S->arena, p->type, 0, c->sp)), QT_I32) : nonzero(c, p);
    one = once(c, one);
    IrStmtVec body = {0}, *outer;
    IrStmt *st = if_open(c, bin(c, IR_EQ, irb_new(c->S->arena, IR_THREAD_IDX, QT_I32, c->sp), i32c(c, 0)), &body, &outer);
    store_at(c, sh, i32c(c, 0), i32c(c, 0));
    if_close(c, st, &body, outer);
    barrier(c);
    IrExpr *add = irb_new(c->S->arena, IR_MEMOP, QT_I32, c->sp);
    add->mem.op = QOP_ADD, add->mem.ref = shared_at(c, sh, i32c(c, 0)), add->mem.val = one;
    add->mem.order = QORD_RELAXED, add->mem.scope = QSCOPE_BLOCK;
    IrStmt *ev = sema_stmt_new(c->S, IR_EVAL, c->sp);
    ev->eval = add;
    sema_emit(c->S, ev);
    barrier(c);
    IrExpr *count = once(c, load_at(c, sh, i32c(c, 0)));
    barrier(c);
    IrExpr *any = bin(c, IR_MIN, count, i32c(c, 1));
    if (f->op == SG_ANY) return any;
    if (f->op == SG_ALL) return bin(c, IR_SUB, i32c(c, 1), any);
    return count;
}

/* ---- block collectives with a user operator (block.reduce / reduce_all / inclusive_scan /
 * exclusive_scan(value, block_dim, op, [identity,] dtype)) ----
 * Width-free, in shared memory: every thread stages its value, then a pairwise tree (reduce) or
 * a Hillis-Steele scan runs over the block_dim slots, one barrier per step, unrolled at compile
 * time. `op` is a @qd.func inlined at each combine, always as op(lower slots, higher slots) of
 * adjacent ranges, so an associative operator need not be commutative: the result is the
 * ordered product v[0] op v[1] op ... (Quadrants' shuffle_down tree does not keep that order). */

static IrExpr *user_op(Ctx *c, const Stmt *def, const Expr *fn, IrExpr *a, IrExpr *b, QdType t) {
    Expr *call = ARENA_NEW(c->S->arena, Expr);
    call->kind = E_CALL, call->span = c->sp, call->call.fn = (Expr *)fn;
    call->call.args.items = ARENA_ARRAY(c->S->arena, Expr *, 2), call->call.args.n = 2;
    call->call.args.items[0] = (Expr *)sema_val_node(c->S, val_expr(once(c, a)), 1, c->sp);
    call->call.args.items[1] = (Expr *)sema_val_node(c->S, val_expr(once(c, b)), 4, c->sp);
    Val r = sema_inline_call(c->S, call, def);
    if (r.kind == V_ERR) return NULL;
    IrExpr *e = sema_rvalue(c->S, r, c->sp);
    return e ? irb_cast(c->S->arena, e, t) : NULL;
}

static IrExpr *tid_expr(Ctx *c) { return once(c, irb_new(c->S->arena, IR_THREAD_IDX, QT_I32, c->sp)); }

static IrExpr *block_generic(Ctx *c, const SimtFn *f, IrExpr *v, int64_t bd, const Stmt *def, const Expr *fn, IrExpr *ident) {
    QdType t = v->type;
    int sh = block_shared(c, t, bd), val = sema_new_local(c->S, "$val", t);
    IrExpr *tid = tid_expr(c);
    assign(c, val, v);
    store_at(c, sh, tid, sema_local(c->S, val, c->sp));
    barrier(c);
    IrStmtVec body = {0}, *outer;
    IrStmt *st;
    if (f->op == SG_REDUCE) {
        for (int64_t s = 1; s < bd; s *= 2) { /* pairs (tid, tid + s) for tid a multiple of 2s: order kept */
            body = (IrStmtVec){0};
            IrExpr *cond = bin(c, IR_LAND, bin(c, IR_EQ, bin(c, IR_AND, tid, i32c(c, 2 * s - 1)), i32c(c, 0)),
                               bin(c, IR_LT, tid, i32c(c, bd - s)));
            st = if_open(c, cond, &body, &outer);
            IrExpr *r = user_op(c, def, fn, load_at(c, sh, tid), load_at(c, sh, bin(c, IR_ADD, tid, i32c(c, s))), t);
            if (!r) return if_abandon(c, &body, outer);
            store_at(c, sh, tid, r);
            if_close(c, st, &body, outer);
            barrier(c);
        }
        IrExpr *r = once(c, load_at(c, sh, i32c(c, 0)));
        barrier(c);
        return r;
    }
    int tmp = sema_new_local(c->S, "$partner", t);
    for (int64_t s = 1; s < bd; s *= 2) {
        body = (IrStmtVec){0};
        st = if_open(c, bin(c, IR_GE, tid, i32c(c, s)), &body, &outer);
        assign(c, tmp, load_at(c, sh, bin(c, IR_SUB, tid, i32c(c, s))));
        if_close(c, st, &body, outer);
        barrier(c);
        body = (IrStmtVec){0};
        st = if_open(c, bin(c, IR_GE, tid, i32c(c, s)), &body, &outer);
        IrExpr *r = user_op(c, def, fn, sema_local(c->S, tmp, c->sp), sema_local(c->S, val, c->sp), t);
        if (!r) return if_abandon(c, &body, outer);
        assign(c, val, r);
        store_at(c, sh, tid, sema_local(c->S, val, c->sp));
        if_close(c, st, &body, outer);
        barrier(c);
    }
    if (f->op == SG_INCLUSIVE) return sema_local(c->S, val, c->sp);
    int res = sema_new_local(c->S, "$exclusive", t);
    assign(c, res, irb_cast(c->S->arena, ident, t));
    body = (IrStmtVec){0};
    st = if_open(c, bin(c, IR_GT, tid, i32c(c, 0)), &body, &outer);
    assign(c, res, load_at(c, sh, bin(c, IR_SUB, tid, i32c(c, 1))));
    if_close(c, st, &body, outer);
    barrier(c);
    return sema_local(c->S, res, c->sp);
}

/* ---- quadrants.lang.simt.reductions' generic helpers ----
 * _reduce_tiled(value, op, log2_size), _inclusive_scan_tiled(value, op, log2_size) and
 * _exclusive_scan_tiled(value, op, identity, log2_size), op a @qd.func (or one of the module's
 * _bin_* operators), unrolled as Quadrants composes them: a shuffle_down tree folding
 * value = op(value, partner) (valid in lane 0 of each group of 2**log2_size lanes), and a
 * Hillis-Steele scan folding the predecessor in, value = op(partner, value), so lane k holds
 * op(a[g], op(a[g+1], ..., a[k])) over its group: a non-commutative op keeps its order. The
 * shuffles run on every lane (uniform); only the fold is conditional. */

typedef struct { const Stmt *def; const Expr *fn; IrBinOp op; } UserOp;

static bool user_op_arg(Ctx *c, const char *name, const Expr *x, UserOp *u) {
    Val v = sema_eval(c->S, x);
    if (v.kind == V_ERR) return false;
    if (v.kind == V_FUNC) return u->def = v.def, u->fn = x, true;
    const SimtFn *f = v.kind == V_NS ? find(v.path) : NULL;
    if (f && f->form == R_BIN) return u->def = NULL, u->op = f->combine, true;
    diag_error(x->span, QD2070, "'%s' takes a @qd.func op(a, b) as its operator, got %s", name, val_describe(v));
    return false;
}

static IrExpr *apply_op(Ctx *c, const UserOp *u, IrExpr *a, IrExpr *b, QdType t) {
    if (!u->def) return irb_cast(c->S->arena, bin(c, u->op, a, b), t);
    return user_op(c, u->def, u->fn, a, b, t);
}

static IrExpr *user_scan(Ctx *c, const UserOp *u, IrExpr *v, int log2) {
    QdType t = v->type;
    int val = sema_new_local(c->S, "$val", t);
    assign(c, val, v);
    IrExpr *in_group = log2 ? once(c, bin(c, IR_AND, lane(c), i32c(c, (1 << log2) - 1))) : NULL;
    for (int i = 0; i < log2; i++) {
        IrExpr *partner = once(c, sg(c, SG_SHUFFLE_UP, IR_ADD, sema_local(c->S, val, c->sp), i32c(c, 1 << i)));
        IrStmtVec body = {0}, *outer;
        IrStmt *st = if_open(c, bin(c, IR_GE, in_group, i32c(c, 1 << i)), &body, &outer);
        IrExpr *r = apply_op(c, u, partner, sema_local(c->S, val, c->sp), t);
        if (!r) return if_abandon(c, &body, outer);
        assign(c, val, r);
        if_close(c, st, &body, outer);
    }
    return sema_local(c->S, val, c->sp);
}

static Val reductions_call(Ctx *c, const SimtFn *f, const Expr *call) {
    Sema *S = c->S;
    const Expr *const *a = (const Expr *const *)call->call.args.items;
    const char *name = strrchr(f->name, '.') + 1;
    int log2;
    IrExpr *v = sema_expr(S, a[0]);
    if (!v) return val_err();
    if (f->form == R_BIN) {
        IrExpr *b = sema_expr(S, a[1]);
        return b ? val_expr(bin(c, f->combine, v, b)) : val_err();
    }
    if (f->form == R_SEG_DIST) {
        if (!log2_arg(c, a[1], &log2)) return val_err();
        return val_expr(seg_distance(c, v, log2));
    }
    UserOp u = {0};
    IrExpr *ident = NULL;
    if (!value_ok(c, v, name, a[0]->span, false) || !user_op_arg(c, name, a[1], &u)) return val_err();
    if (f->form == R_EXSCAN && !(ident = sema_expr(S, a[2]))) return val_err();
    if (!log2_arg(c, a[f->nargs - 1], &log2)) return val_err();
    QdType t = v->type;
    IrExpr *r;
    if (f->form == R_REDUCE) {
        int val = sema_new_local(S, "$val", t);
        assign(c, val, v);
        for (int i = 0; i < log2; i++) {
            IrExpr *cur = sema_local(S, val, c->sp);
            IrExpr *partner = once(c, sg(c, SG_SHUFFLE_DOWN, IR_ADD, cur, i32c(c, 1 << (log2 - 1 - i))));
            if (!(r = apply_op(c, &u, sema_local(S, val, c->sp), partner, t))) return val_err();
            assign(c, val, r);
        }
        r = sema_local(S, val, c->sp);
    } else {
        if (f->form == R_EXSCAN) { /* the predecessor's input, identity in each group's first lane */
            int prev = sema_new_local(S, "$prev", t);
            assign(c, prev, sg(c, SG_SHUFFLE_UP, IR_ADD, v, i32c(c, 1)));
            IrStmtVec body = {0}, *outer;
            IrStmt *st = if_open(c, bin(c, IR_EQ, bin(c, IR_AND, lane(c), i32c(c, (1 << log2) - 1)), i32c(c, 0)), &body, &outer);
            assign(c, prev, irb_cast(S->arena, ident, t));
            if_close(c, st, &body, outer);
            v = sema_local(S, prev, c->sp);
        }
        if (!(r = user_scan(c, &u, v, log2))) return val_err();
    }
    S->uses_block = true;
    return val_expr(r);
}

/* ---- block.radix_rank_match_atomic_or(key, block_dim, radix_bits, bit_start, num_bits, bins, excl_prefix) ----
 * The stable rank of each thread's digit (key >> bit_start) & (2**num_bits - 1) within the block,
 * with bins[d] (the digit counts) and excl_prefix[d] (their exclusive prefix sum) written for the
 * caller. Same results as Quadrants' atomic-OR match, but width-free (any subgroup of 1 to 64
 * lanes): a shared histogram (atomic_add) and the block exclusive_add give each digit's first
 * slot; inside a subgroup, the lanes holding the same digit are found with num_bits ballots
 * (not shared-memory atomic_or); the subgroups then claim their slots in subgroup order, one
 * barrier each, the highest matching lane claiming for its lanes; each lane adds the matching
 * lanes below it. */
static IrExpr *block_radix(Ctx *c, IrExpr *key, int64_t bd, int bit_start, int num_bits, int bins, int excl) {
    Sema *S = c->S;
    IrExpr *tid = tid_expr(c), *l = lane(c);
    key = irb_cast(S->arena, key, QT_U32);
    IrExpr *digit = once(c, irb_cast(S->arena, bin(c, IR_AND, bin(c, IR_SHR, key, u32c(c, bit_start)), u32c(c, (1u << num_bits) - 1)), QT_I32));
    int hist = block_shared(c, QT_I32, bd);
    store_at(c, hist, tid, i32c(c, 0));
    barrier(c);
    IrExpr *add = irb_new(S->arena, IR_MEMOP, QT_I32, c->sp);
    add->mem.op = QOP_ADD, add->mem.ref = shared_at(c, hist, digit), add->mem.val = i32c(c, 1);
    add->mem.order = QORD_RELAXED, add->mem.scope = QSCOPE_BLOCK;
    IrStmt *ev = sema_stmt_new(S, IR_EVAL, c->sp);
    ev->eval = add;
    sema_emit(S, ev);
    barrier(c);
    IrExpr *count = once(c, load_at(c, hist, tid));
    const SimtFn *exadd = find("qd.simt.block.exclusive_add");
    IrExpr *first = once(c, block_collective(c, exadd, count, bd));
    store_at(c, hist, tid, first); /* hist[d]: the next free slot of digit d */
    barrier(c);
    /* the lanes of this subgroup whose digit equals this lane's */
    IrExpr *ones = irb_int(S->arena, QT_U64, -1, c->sp);
    IrExpr *match = once(c, sg(c, SG_BALLOT, IR_ADD, i32c(c, 1), NULL));
    for (int b = 0; b < num_bits; b++) {
        IrExpr *bit = once(c, bin(c, IR_AND, bin(c, IR_SHR, digit, i32c(c, b)), i32c(c, 1)));
        IrExpr *votes = once(c, sg(c, SG_BALLOT, IR_ADD, bit, NULL));
        match = once(c, bin(c, IR_AND, match, sel3(c, bin(c, IR_NE, bit, i32c(c, 0)), votes, bin(c, IR_XOR, votes, ones))));
    }
    IrExpr *below_mask = bin(c, IR_SUB, bin(c, IR_SHL, irb_int(S->arena, QT_U64, 1, c->sp), irb_cast(S->arena, l, QT_U64)), irb_int(S->arena, QT_U64, 1, c->sp));
    IrExpr *pc = irb_new(S->arena, IR_MATH, QT_U64, c->sp), *pt = irb_new(S->arena, IR_MATH, QT_U64, c->sp), *lz = irb_new(S->arena, IR_MATH, QT_U64, c->sp);
    pc->math.op = IR_POPCNT, pc->math.a = bin(c, IR_AND, match, below_mask);
    pt->math.op = IR_POPCNT, pt->math.a = match;
    lz->math.op = IR_CLZ, lz->math.a = match;
    IrExpr *below = once(c, irb_cast(S->arena, pc, QT_I32)), *total = once(c, irb_cast(S->arena, pt, QT_I32));
    IrExpr *leader = once(c, bin(c, IR_SUB, i32c(c, 63), irb_cast(S->arena, lz, QT_I32)));
    IrExpr *size = S->subgroup_width ? i32c(c, S->subgroup_width) : once(c, sg(c, SG_SIZE, IR_ADD, NULL, NULL));
    IrExpr *sub = once(c, bin(c, IR_DIV, tid, size));
    int base = sema_new_local(S, "$base", QT_I32), k = sema_new_local(S, "$sub", QT_I32);
    assign(c, base, i32c(c, 0));
    IrStmt *loop = sema_stmt_new(S, IR_FOR, c->sp);
    loop->for_.counter = k, loop->for_.begin = i32c(c, 0), loop->for_.step = 1;
    loop->for_.end = bin(c, IR_DIV, bin(c, IR_ADD, i32c(c, bd), bin(c, IR_SUB, size, i32c(c, 1))), size);
    IrStmtVec lbody = {0}, ibody = {0}, *louter = S->cur, *iouter;
    S->cur = &lbody;
    IrStmt *st = if_open(c, bin(c, IR_LAND, bin(c, IR_EQ, sub, sema_local(S, k, c->sp)), bin(c, IR_EQ, l, leader)), &ibody, &iouter);
    assign(c, base, load_at(c, hist, digit));
    store_at(c, hist, digit, bin(c, IR_ADD, sema_local(S, base, c->sp), total));
    if_close(c, st, &ibody, iouter);
    barrier(c);
    S->cur = louter;
    loop->for_.body = sema_freeze(S, &lbody);
    sema_emit(S, loop);
    IrExpr *rank = once(c, bin(c, IR_ADD, sg(c, SG_SHUFFLE, IR_ADD, sema_local(S, base, c->sp), leader), below));
    store_at(c, bins, tid, count);
    store_at(c, excl, tid, first);
    barrier(c);
    return rank;
}

/* bins / excl_prefix: a block.SharedArray of at least n i32 elements */
static bool radix_out(Ctx *c, const Expr *x, int64_t n, int *out) {
    Val v = sema_eval(c->S, x);
    if (v.kind == V_ERR) return false;
    if (v.kind != V_SHARED || c->S->shared.items[v.index].type != QT_I32 || c->S->shared.items[v.index].ndim != 1 ||
        c->S->shared.items[v.index].elems < n) {
        diag_error(x->span, QD2070, "'radix_rank_match_atomic_or' writes its bins and excl_prefix to a "
                   "block.SharedArray((%lld,), qd.i32); got %s", (long long)n,
                   v.kind == V_SHARED ? "a SharedArray of another shape or dtype" : val_describe(v));
        return false;
    }
    return *out = v.index, true;
}

static Val radix_call(Ctx *c, const Expr *call) {
    Sema *S = c->S;
    const Expr *const *a = (const Expr *const *)call->call.args.items;
    IrExpr *key = sema_expr(S, a[0]);
    if (!key) return val_err();
    if (!qt_is_integral(key->type))
        return diag_error(a[0]->span, QD2070, "'radix_rank_match_atomic_or' takes a u32 key, got %s", qt_name(key->type)), val_err();
    int64_t bd, rb, bs, nb;
    if (!sema_const_int(S, a[1], &bd, "block_dim") || !sema_const_int(S, a[2], &rb, "radix_bits") ||
        !sema_const_int(S, a[3], &bs, "bit_start") || !sema_const_int(S, a[4], &nb, "num_bits"))
        return val_err();
    if (rb < 1 || rb > 10)
        return diag_error(a[2]->span, QD2071, "radix_bits must be a constant from 1 to 10, got %lld", (long long)rb), val_err();
    if (bd != (int64_t)1 << rb)
        return diag_error(a[1]->span, QD2071, "radix_rank_match_atomic_or needs block_dim == 1 << radix_bits (%lld), got %lld",
                          (long long)1 << rb, (long long)bd), val_err();
    if (nb < 1 || nb > rb)
        return diag_error(a[4]->span, QD2071, "num_bits must be a constant from 1 to radix_bits (%lld), got %lld", (long long)rb, (long long)nb), val_err();
    if (bs < 0 || bs + nb > 32)
        return diag_error(a[3]->span, QD2071, "bit_start must be a constant from 0 to %lld (the digit lies in the 32-bit key), got %lld",
                          (long long)(32 - nb), (long long)bs), val_err();
    if (S->subgroup_width > 64)
        return diag_error(call->span, QD2073, "radix_rank_match_atomic_or needs subgroups of at most 64 lanes; this target's are %d",
                          S->subgroup_width), val_err();
    int bins, excl;
    if (!radix_out(c, a[5], bd, &bins) || !radix_out(c, a[6], bd, &excl)) return val_err();
    return val_expr(block_radix(c, key, bd, (int)bs, (int)nb, bins, excl));
}

static Val generic_call(Ctx *c, const SimtFn *f, const Expr *call, IrExpr *v, int64_t bd) {
    Sema *S = c->S;
    const Expr *opx = call->call.args.items[2];
    Val op = sema_eval(S, opx);
    if (op.kind == V_ERR) return val_err();
    if (op.kind != V_FUNC)
        return diag_error(opx->span, QD2070, "'%s' takes a @qd.func op(a, b) as its operator, got %s", strrchr(f->name, '.') + 1,
                          val_describe(op)), val_err();
    IrExpr *ident = NULL;
    if (f->op == SG_EXCLUSIVE && !(ident = sema_expr(S, call->call.args.items[3]))) return val_err();
    IrExpr *r = block_generic(c, f, v, bd, op.def, opx, ident);
    return r ? val_expr(r) : val_err();
}

static Val block_call(Ctx *c, const SimtFn *f, const Expr *call) {
    Sema *S = c->S;
    if (S->task < 0) return diag_error(call->span, QD2019, "'%s' can only be used inside a kernel's parallel loop", f->name), val_err();
    if (f->form == B_RADIX) return radix_call(c, call);
    IrExpr *v = sema_expr(S, call->call.args.items[0]);
    if (!v) return val_err();
    if (f->form == B_SYNC_NONZERO) {
        if (!qt_is_integral(v->type)) return diag_error(call->call.args.items[0]->span, QD2070, "'%s' takes an integer predicate, got %s", strrchr(f->name, '.') + 1, qt_name(v->type)), val_err();
        return val_expr(block_sync_nonzero(c, f, v));
    }
    int64_t bd;
    QdType dt;
    if (!sema_const_int(S, call->call.args.items[1], &bd, "block_dim")) return val_err();
    int limit = S->max_block_dim > 0 ? S->max_block_dim : INT32_MAX; /* the database's, all targets */
    if (bd < 1 || bd > limit)
        return diag_error(call->call.args.items[1]->span, QD2071, "block_dim must be a constant from 1 to %d, got %lld", limit, (long long)bd), val_err();
    const Expr *dtx = call->call.args.items[f->nargs - 1];
    if (!sema_annotation_type(S, dtx, &dt)) return val_err();
    IrExpr *cv = irb_cast(S->arena, v, dt);
    if (!value_ok(c, cv, strrchr(f->name, '.') + 1, dtx->span, false)) return val_err();
    if (f->form == B_GENERIC) return generic_call(c, f, call, cv, bd);
    return val_expr(block_collective(c, f, cv, bd));
}

/* ---- provable divergence (QD2074) ----
 * An `if` whose condition is a function of the thread's index in the block alone (block
 * .thread_idx(), the lane id, constants, and locals assigned once from such values) is evaluated
 * for every thread of the task's block (its qd.loop_config block_dim) with the compile's subgroup
 * width: when it differs between the lanes of one subgroup, a subgroup collective under it is
 * reached by only some lanes; when it differs anywhere in the block, so is a barrier. Both are
 * undefined on every target (the GPUs' convergence rules; libqdrt's barrier phases), so they are
 * errors. Anything else (the loop index, loaded values, unknown widths) is not analysed: divergence
 * there stays undefined, as on the GPU. */

void sema_note_assign(Sema *S, const IrStmt *st) {
    int l = st->assign.local;
    while (S->local_def.len <= l) vec_push(&S->local_def, NULL);
    S->local_def.items[l] = S->local_def.items[l] ? SEMA_REASSIGNED : st->assign.value;
}

/* The value of integer/bool expression e in thread t of the block (lane t % w); false if it depends on
 * anything else. */
static bool eval_at(Sema *S, const IrExpr *e, int t, int w, int depth, int64_t *out) {
    int64_t a, b;
    if (!e || depth > 64 || qt_is_float(e->type)) return false;
    switch (e->kind) {
    case IR_CONST: return *out = e->c.i, true;
    case IR_THREAD_IDX: return *out = t, true;
    case IR_SUBGROUP:
        if (e->sg.op == SG_INVOCATION_ID) return *out = t % w, true;
        if (e->sg.op == SG_SIZE) return *out = w, true;
        return false;
    case IR_LOCAL: {
        const IrExpr *d = e->local < S->local_def.len ? S->local_def.items[e->local] : NULL;
        return d && d != SEMA_REASSIGNED && eval_at(S, d, t, w, depth + 1, out);
    }
    case IR_CAST:
        if (!eval_at(S, e->arg, t, w, depth + 1, &a)) return false;
        if (e->type == QT_U1) a = a != 0;
        return *out = a, true;
    case IR_UNARY:
        if (!eval_at(S, e->un.a, t, w, depth + 1, &a)) return false;
        return *out = e->un.op == IR_NEG ? -a : e->un.op == IR_BITNOT ? ~a : !a, true;
    case IR_SELECT:
        if (!eval_at(S, e->sel.cond, t, w, depth + 1, &a)) return false;
        return eval_at(S, a ? e->sel.a : e->sel.b, t, w, depth + 1, out);
    case IR_BINARY:
        if (!eval_at(S, e->bin.a, t, w, depth + 1, &a) || !eval_at(S, e->bin.b, t, w, depth + 1, &b)) return false;
        switch (e->bin.op) { /* thread indices are small and non-negative: no wrap, no sign cases */
        case IR_ADD: return *out = a + b, true;
        case IR_SUB: return *out = a - b, true;
        case IR_MUL: return *out = a * b, true;
        case IR_DIV: case IR_FLOORDIV: return b > 0 && a >= 0 && (*out = a / b, true);
        case IR_MOD: case IR_REM: return b > 0 && a >= 0 && (*out = a % b, true);
        case IR_AND: return *out = a & b, true;
        case IR_OR: return *out = a | b, true;
        case IR_XOR: return *out = a ^ b, true;
        case IR_SHL: return b >= 0 && b < 32 && (*out = a << b, true);
        case IR_SHR: return b >= 0 && b < 32 && a >= 0 && (*out = a >> b, true);
        case IR_EQ: return *out = a == b, true;
        case IR_NE: return *out = a != b, true;
        case IR_LT: return *out = a < b, true;
        case IR_LE: return *out = a <= b, true;
        case IR_GT: return *out = a > b, true;
        case IR_GE: return *out = a >= b, true;
        case IR_MIN: return *out = a < b ? a : b, true;
        case IR_MAX: return *out = a > b ? a : b, true;
        case IR_LAND: return *out = a && b, true;
        case IR_LOR: return *out = a || b, true;
        default: return false;
        }
    default: return false;
    }
}

int sema_divergence(Sema *S, const IrExpr *cond) {
    int w = S->subgroup_width, bd = S->task >= 0 ? S->tasks.items[S->task].block_dim : 0;
    if (w < 1 || bd < 2) return 0;
    int64_t v, lead = 0, first = 0;
    int result = 0;
    for (int t = 0; t < bd; t++) {
        if (!eval_at(S, cond, t, w, 0, &v)) return 0;
        v = v != 0;
        if (t == 0) first = v;
        if (t % w == 0) lead = v;
        else if (v != lead) result = 1;
        if (v != first && !result) result = 2;
    }
    return result;
}

void sema_check_uniform(Sema *S, Span at, const char *what, bool barrier) {
    if (!(barrier ? S->block_divergent : S->sg_divergent) || S->div_reported == at.off + 1) return;
    S->div_reported = at.off + 1;
    Span cond = barrier ? S->block_div_at : S->sg_div_at;
    uint32_t line = 0, col = 0;
    if (cond.src) source_line_col(cond.src, cond.off, &line, &col);
    diag_error(at, QD2074, "%s under the condition at line %u, which differs between the threads of one %s (block_dim %d, "
               "subgroup width %d): every thread must reach it", what, line, barrier ? "block" : "subgroup",
               S->tasks.items[S->task].block_dim, S->subgroup_width);
}

/* ---- the call ---- */

static Val stmt_done(Ctx *c, IrStmt *st) {
    sema_emit(c->S, st);
    c->S->uses_block = true;
    return (Val){.kind = V_NONE};
}

static Val subgroup_sync(Ctx *c) {
    IrStmt *st = sema_stmt_new(c->S, IR_EVAL, c->sp);
    st->eval = sg(c, SG_SYNC, IR_ADD, NULL, NULL);
    return stmt_done(c, st);
}

static Val subgroup_fence(Ctx *c) { /* block scope: the subgroup is a subset of the block */
    IrStmt *st = sema_stmt_new(c->S, IR_FENCE, c->sp);
    st->fence.scope = QSCOPE_BLOCK, st->fence.order = QORD_SEQ_CST;
    return stmt_done(c, st);
}

/* Value operands: which argument is the shuffled/reduced value, and must it be an integer. */
static bool check_value(Ctx *c, const SimtFn *f, IrExpr **a, const Expr *call) {
    int vi = f->form >= W_VOTE ? (f->form == W_BALLOT ? 0 : 1) : 0;
    if (f->nargs == 0 || f->form == F_LANEMASK || f->form == F_BALLOT || f->form == F_BALLOT_N || f->form == F_VOTE ||
        f->form == F_VOTE_TILED || f->form == W_VOTE || f->form == W_UNIQUE || f->form == W_BALLOT || f->form == W_SHFL ||
        f->form == W_SHFL_XOR)
        return true; /* predicates and converted operands */
    bool int_only = f->combine == IR_AND || f->combine == IR_OR || f->combine == IR_XOR;
    if ((f->form == F_SORT || f->form == F_SORT_TILED) && !value_ok(c, a[1], strrchr(f->name, '.') + 1, call->call.args.items[1]->span, false))
        return false;
    if (!a[vi]) return true; /* a mask-only form (warp.sync) */
    return value_ok(c, a[vi], strrchr(f->name, '.') + 1, call->call.args.items[vi]->span, int_only);
}

Val sema_simt_call(Sema *S, const Expr *call, const char *p) {
    const SimtFn *f = find(p);
    Ctx c = {S, call->span, f->form >= W_VOTE && f->form < B_REDUCE};
    if (!S->cur && S->subgroup_width && !call->call.args.n && (f->form == F_SIZE || f->form == F_LOG2_SIZE)) {
        int l = 0; /* host code: N = subgroup.group_size() is the compile's width */
        while ((1 << l) < S->subgroup_width) l++;
        return val_expr(irb_int(S->arena, QT_I32, f->form == F_SIZE ? S->subgroup_width : l, call->span));
    }
    if (!S->cur) return diag_error(call->span, QD2019, "'%s' can only be used inside a kernel or qd.func", p), val_err();
    if (call->call.nkw) return diag_error(call->call.kw[0].span, QD2007, "'%s' takes no keyword arguments", p), val_err();
    if (call->call.args.n != f->nargs)
        return diag_error(call->span, QD2007, "'%s' takes %d argument%s, got %d", p, f->nargs, f->nargs == 1 ? "" : "s",
                          call->call.args.n), val_err();
    if (f->form >= R_REDUCE) return reductions_call(&c, f, call);
    if (f->form >= B_REDUCE) return block_call(&c, f, call);
    bool tiled = f->form == F_SORT_TILED || f->form == F_REDUCE_TILED || f->form == F_REDUCE_ALL_TILED || f->form == F_VOTE_TILED ||
                 f->form == F_ALL_EQUAL_TILED || f->form == F_SCAN_TILED || f->form == F_EXSCAN_TILED ||
                 f->form == F_SEGMENTED_TILED;
    int log2 = 0;
    IrExpr *a[3] = {0};
    if (f->form >= W_VOTE && f->form != W_BALLOT && f->form != W_ACTIVE && !full_mask(&c, call->call.args.items[0])) return val_err();
    for (int k = f->form >= W_VOTE && f->form != W_BALLOT ? 1 : 0; k < f->nargs - tiled; k++)
        if (!(a[k] = sema_expr(S, call->call.args.items[k]))) return val_err();
    if (tiled && !log2_arg(&c, call->call.args.items[f->nargs - 1], &log2)) return val_err();
    if (!check_value(&c, f, a, call)) return val_err();
    IrExpr *r = NULL;
    switch (f->form) {
    case F_PRIM: r = sg(&c, f->op, IR_ADD, a[0], f->nargs > 1 ? lane_arg(&c, a[1]) : NULL); break;
    case F_SIZE: /* a compile-time int in Quadrants: a constant when the compile's width is known */
        r = S->subgroup_width ? i32c(&c, S->subgroup_width) : sg(&c, SG_SIZE, IR_ADD, NULL, NULL);
        break;
    case F_LOG2_SIZE: {
        int w = S->subgroup_width, l = 0;
        if (!w) return diag_error(call->span, QD2073, "'%s' needs the subgroup width at compile time; the target's is the "
                                  "device's or the targets of this compile differ (Vulkan: assert it with --cap=+subgroup32)", p), val_err();
        while ((1 << l) < w) l++;
        r = i32c(&c, l);
        break;
    }
    case F_SYNC: case W_SYNC: return subgroup_sync(&c);
    case F_FENCE: return subgroup_fence(&c);
    case F_ELECT: r = irb_cast(S->arena, bin(&c, IR_EQ, sg(&c, SG_INVOCATION_ID, IR_ADD, NULL, NULL), i32c(&c, 0)), QT_I32); break;
    case F_BALLOT: r = sg(&c, SG_BALLOT, IR_ADD, nonzero(&c, a[0]), NULL); break;
    case F_BALLOT_N: {
        int64_t n;
        if (!sema_const_int(S, call->call.args.items[1], &n, "ballot_first_n's n")) return val_err();
        if (n < 1 || n > 32) return diag_error(call->call.args.items[1]->span, QD2071, "ballot_first_n's n must be a constant from 1 to 32, got %lld", (long long)n), val_err();
        r = irb_cast(S->arena, sg(&c, SG_BALLOT, IR_ADD, nonzero(&c, a[0]), NULL), QT_U32);
        if (n < 32) r = bin(&c, IR_AND, r, u32c(&c, (int64_t)((1u << n) - 1)));
        break;
    }
    case F_VOTE: r = sg(&c, f->op, IR_ADD, nonzero(&c, a[0]), NULL); break;
    case F_ALL_EQUAL: {
        IrExpr *v = once(&c, a[0]);
        r = sg(&c, SG_ALL, IR_ADD, irb_cast(S->arena, bin(&c, IR_EQ, v, sg(&c, SG_BROADCAST, IR_ADD, v, i32c(&c, 0))), QT_I32), NULL);
        break;
    }
    case F_BCAST_FIRST: r = sg(&c, SG_BROADCAST, IR_ADD, a[0], i32c(&c, 0)); break;
    case F_SHUFFLE_XOR: r = sg(&c, SG_SHUFFLE, IR_ADD, a[0], bin(&c, IR_XOR, lane(&c), lane_arg(&c, a[1]))); break;
    case F_LANEMASK: r = lanemask(&c, f->op, a[0]); break;
    case F_REDUCE: case F_SCAN: r = sg(&c, f->op, f->combine, a[0], NULL); break;
    case F_REDUCE_TILED: r = reduce_tiled(&c, f->combine, a[0], log2); break;
    case F_REDUCE_ALL_TILED: r = butterfly(&c, f->combine, a[0], log2); break;
    case F_VOTE_TILED: r = vote_tiled(&c, f->combine, a[0], log2); break;
    case F_ALL_EQUAL_TILED: r = all_equal_tiled(&c, a[0], log2); break;
    case F_SCAN_TILED: r = scan_tiled(&c, f->combine, a[0], log2); break;
    case F_EXSCAN_TILED: r = exscan_tiled(&c, f->combine, a[0], log2); break;
    case F_SEGMENTED_TILED: r = segmented(&c, f->combine, a[0], a[1], log2); break;
    case F_SORT_TILED: S->uses_block = true; return bitonic(&c, a[0], a[1], log2);
    case F_SORT: {
        int w = S->subgroup_width, l = 0;
        if (!w) return diag_error(call->span, QD2073, "'%s' needs the subgroup width at compile time; the target's is the "
                                  "device's or the targets of this compile differ (Vulkan: assert it with --cap=+subgroup32)", p), val_err();
        while ((1 << l) < w) l++;
        S->uses_block = true;
        return bitonic(&c, a[0], a[1], l);
    }
    case F_SEGMENTED: {
        int w = S->subgroup_width, l = 0;
        if (!w) return diag_error(call->span, QD2073, "'%s' needs the subgroup width at compile time; the target's is the "
                                  "device's or the targets of this compile differ (Vulkan: assert it with --cap=+subgroup32)", p), val_err();
        while ((1 << l) < w) l++;
        r = segmented(&c, f->combine, a[0], a[1], l);
        break;
    }
    default: r = warp_form(&c, f, a); break;
    }
    S->uses_block = true;
    return val_expr(r);
}
