/* Memory operations as the lowering engine decided them: native OpAtomic*, CAS loops on
 * integer-typed storage, plain (demoted) accesses, volatile loads, fences and barriers.
 * Scopes and semantics follow the Vulkan rules (GLSL450 memory model): an ordered atomic orders
 * both buffer and workgroup memory, as PTX and AMDGPU do, since data published through it may
 * live in either; buffers of a kernel that publishes are Coherent (spirv.c). */
#include "spvgen.h"
#include <stdio.h>

/* Which view a decided memory operation needs: a widened SharedArray's u32 words; floats go
 * through integers unless native. */
int g_memop_view(const SpvGen *g, const IrMemOp *mo) {
    if (mo->ref->kind == IR_REF_SHARED && g->shared[mo->ref->index].wide) return VIEW_WIDE;
    if (g_low(g, mo)->via_int) return VIEW_INT;
    if (g_low(g, mo)->kind == LOW_CAS_LOOP && qt_is_float(mo->ref->type)) return VIEW_INT;
    return VIEW_NATURAL;
}

/* Data published through an ordered atomic (or a fence) must reach other invocations. */
static bool publishes(const IrLowering *l) {
    return l->kind != LOW_PLAIN && (l->order != QORD_RELAXED || l->fence_before || l->fence_after);
}

void g_note_memop(SpvGen *g, const IrMemOp *mo) {
    if (!mo->is_volatile && publishes(g_low(g, mo))) g->publishes = true;
    SpvRes *res = g_res(g, mo->ref);
    if (mo->ref->kind == IR_REF_SHARED && (g_low(g, mo)->flags & LOWF_SHARED_U32) && qt_bits(mo->ref->type) < 32)
        res->wide = true; /* the lowering gives every atomic on such an array the flag */
    if (!res || !qt_is_float(mo->ref->type) || mo->is_volatile || g_low(g, mo)->kind == LOW_PLAIN) return;
    if (g_memop_view(g, mo) == VIEW_INT) res->need_int = true;
    else res->need_float = true;
}

static bool scope_id(SpvGen *g, QdScope s, Span sp, uint32_t *out) {
    switch (s) {
    case QSCOPE_BLOCK: *out = g_u32(g, SpvScopeWorkgroup); return true;
    case QSCOPE_CLUSTER: /* no cluster scope in Vulkan: device is the next wider one */
    case QSCOPE_DEVICE: *out = g_u32(g, SpvScopeDevice); return true;
    default: *out = 0; return g_fail(g, sp, "scope '%s' cannot be expressed in Vulkan SPIR-V", qscope_name(s));
    }
}

static uint32_t order_bits(QdOrder o) {
    switch (o) {
    case QORD_RELAXED: return 0;
    case QORD_ACQUIRE: return SpvMemorySemanticsAcquireMask;
    case QORD_RELEASE: return SpvMemorySemanticsReleaseMask;
    case QORD_ACQ_REL: return SpvMemorySemanticsAcquireReleaseMask;
    default: return SpvMemorySemanticsSequentiallyConsistentMask;
    }
}

static uint32_t sem(SpvGen *g, QdOrder o) {
    uint32_t bits = order_bits(o);
    if (bits) bits |= SpvMemorySemanticsUniformMemoryMask | SpvMemorySemanticsWorkgroupMemoryMask;
    return g_u32(g, bits);
}

/* CAS failure ordering: the load half of the success ordering. */
static QdOrder fail_order(QdOrder o) {
    if (o == QORD_RELEASE) return QORD_RELAXED;
    if (o == QORD_ACQ_REL) return QORD_ACQUIRE;
    return o;
}

/* MSL: SPIRV-Cross 2021 turns OpMemoryBarrier into threadgroup_barrier (an execution barrier,
 * a deadlock in divergent code), so a fence is a call to an empty marker function that the
 * completion step (mslfix.c) fills with atomic_thread_fence. */
static const char *const msl_marker_names[2] = {"qdc_fence_threadgroup", "qdc_fence_device"};

static void msl_fence_call(SpvGen *g, QdScope scope) {
    int i = scope == QSCOPE_BLOCK ? 0 : 1;
    if (!g->msl_fence[i]) g->msl_fence[i] = spv_id(&g->b);
    G_OP(g, SpvOpFunctionCall, g_ty(g, QT_VOID), g->msl_fence[i]);
}

/* A 64-bit atomic SPIRV-Cross 2021 refuses ("MSL currently does not support 64-bit atomics"):
 * a call to a helper whose SPIR-V body is a plain store, rewritten by the completion step into
 * Apple9's atomic_{min,max}_explicit or the opt-in split into two 32-bit atomics. Result unused
 * only (the database cells say so), so the call returns nothing. */
static uint32_t operand(SpvGen *g, const IrMemOp *mo);

static uint32_t msl_helper_call(SpvGen *g, const IrMemOp *mo, const IrLowering *L) {
    QdType t = mo->ref->type;
    SpvMslHelper h = {0};
    snprintf(h.name, sizeof h.name, "qdc_%s_%s_%d_%.20s", L->flags & LOWF_SPLIT64 ? "split64" : "u64", qop_name(L->op),
             g->msl_helpers.len, g->task->name); /* unique in the merged file */
    h.fn = spv_id(&g->b), h.var = g_res_var(g, mo->ref, VIEW_NATURAL), h.elem_ty = g_ty_store(g, t, VIEW_NATURAL);
    h.elem_ptr = g_ptr(g, SpvStorageClassStorageBuffer, h.elem_ty);
    uint32_t idx = g_linear_index(g, mo->ref), v = operand(g, mo);
    vec_push(&g->msl_helpers, h);
    G_OP(g, SpvOpFunctionCall, g_ty(g, QT_VOID), h.fn, idx, v);
    return 0;
}

static void msl_helper_defs(SpvGen *g) {
    uint32_t voidt = g_ty(g, QT_VOID), i32 = g_ty(g, QT_I32);
    for (int i = 0; i < g->msl_helpers.len; i++) {
        SpvMslHelper *h = &g->msl_helpers.items[i];
        uint32_t fnty = SPV_TYPE(&g->b, SpvOpTypeFunction, voidt, i32, h->elem_ty), idx = spv_id(&g->b), v = spv_id(&g->b);
        spv_inst_str(&g->b, SPV_SEC_DEBUG, SpvOpName, &h->fn, 1, h->name, NULL, 0);
        spv_inst_str(&g->b, SPV_SEC_DEBUG, SpvOpName, &idx, 1, "idx", NULL, 0);
        spv_inst_str(&g->b, SPV_SEC_DEBUG, SpvOpName, &v, 1, "v", NULL, 0);
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpFunction, voidt, h->fn, SpvFunctionControlDontInlineMask, fnty);
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpFunctionParameter, i32, idx);
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpFunctionParameter, h->elem_ty, v);
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpLabel, spv_id(&g->b));
        uint32_t p = spv_id(&g->b);
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpAccessChain, h->elem_ptr, p, h->var, g_i32(g, 0), idx);
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpStore, p, v);
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpReturn);
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpFunctionEnd);
    }
    g->msl_helpers.len = 0;
}

void g_msl_markers(SpvGen *g) {
    msl_helper_defs(g);
    uint32_t voidt = g_ty(g, QT_VOID), fnty = SPV_TYPE(&g->b, SpvOpTypeFunction, voidt);
    for (int i = 0; i < 2; i++) {
        if (!g->msl_fence[i]) continue;
        spv_inst_str(&g->b, SPV_SEC_DEBUG, SpvOpName, &g->msl_fence[i], 1, msl_marker_names[i], NULL, 0);
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpFunction, voidt, g->msl_fence[i], SpvFunctionControlDontInlineMask, fnty);
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpLabel, spv_id(&g->b));
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpReturn);
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpFunctionEnd);
        g->msl_fence[i] = 0;
    }
}

void g_fence(SpvGen *g, QdScope scope, QdOrder order) {
    if (g->t->for_msl) return msl_fence_call(g, scope);
    uint32_t sid;
    if (!scope_id(g, scope, (Span){0}, &sid)) return;
    uint32_t bits = order == QORD_RELAXED ? SpvMemorySemanticsAcquireReleaseMask : order_bits(order);
    bits |= SpvMemorySemanticsUniformMemoryMask | SpvMemorySemanticsWorkgroupMemoryMask;
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpMemoryBarrier, sid, g_u32(g, bits));
}

void g_barrier(SpvGen *g) {
    uint32_t wg = g_u32(g, SpvScopeWorkgroup);
    uint32_t bits = SpvMemorySemanticsAcquireReleaseMask | SpvMemorySemanticsWorkgroupMemoryMask |
                    SpvMemorySemanticsUniformMemoryMask;
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpControlBarrier, wg, wg, g_u32(g, bits));
}

/* The operand in the operation's value type, negated when the decision says so. */
static uint32_t operand(SpvGen *g, const IrMemOp *mo) {
    if (g->given) return g->given; /* a flush: already accumulated (and negated) */
    QdType t = mo->ref->type;
    uint32_t v = g_expr(g, mo->val);
    if (g_low(g, mo)->negate) v = G_OP(g, qt_is_float(t) ? SpvOpFNegate : SpvOpSNegate, g_ty(g, t), v);
    return v;
}

/* new = op(old, v) for CAS loops and plain demotion; inc/dec wrap like PTX atom.inc/dec. */
static uint32_t combine(SpvGen *g, QdOp op, QdType t, uint32_t old, uint32_t v) {
    uint32_t ty = g_ty(g, t), bt = g_ty(g, QT_U1), zero = 0, one = 0;
    if (op == QOP_INC || op == QOP_DEC) zero = g_const_num(g, t, 0, 0), one = g_const_num(g, t, 1, 1);
    switch (op) {
    case QOP_ADD: return g_binop(g, IR_ADD, t, old, v);
    case QOP_SUB: return g_binop(g, IR_SUB, t, old, v);
    case QOP_MUL: return g_binop(g, IR_MUL, t, old, v);
    case QOP_MIN: return g_binop(g, IR_MIN, t, old, v);
    case QOP_MAX: return g_binop(g, IR_MAX, t, old, v);
    case QOP_AND: return g_binop(g, IR_AND, t, old, v);
    case QOP_OR: return g_binop(g, IR_OR, t, old, v);
    case QOP_XOR: return g_binop(g, IR_XOR, t, old, v);
    case QOP_EXCHANGE: return v;
    case QOP_INC: {
        uint32_t wrap = G_OP(g, SpvOpUGreaterThanEqual, bt, old, v);
        return G_OP(g, SpvOpSelect, ty, wrap, zero, G_OP(g, SpvOpIAdd, ty, old, one));
    }
    case QOP_DEC: {
        uint32_t z = G_OP(g, SpvOpIEqual, bt, old, zero), over = G_OP(g, SpvOpUGreaterThan, bt, old, v);
        uint32_t wrap = G_OP(g, SpvOpLogicalOr, bt, z, over);
        return G_OP(g, SpvOpSelect, ty, wrap, v, G_OP(g, SpvOpISub, ty, old, one));
    }
    default: die("operation '%s' has no combine step", qop_name(op));
    }
}

/* The type an atomic operates on in memory: the u32 word, the same-width uint, or the type. */
static QdType stored_type(QdType t, int view) {
    if (view == VIEW_WIDE) return QT_U32;
    return view == VIEW_INT && qt_is_float(t) ? qt_uint_same_width(t) : t;
}

static void atomic_caps(SpvGen *g, QdType st) {
    if (qt_bits(st) == 64) spv_cap(&g->b, SpvCapabilityInt64Atomics);
}

/* Demoted: plain load / compute / store on a thread-private target. */
static uint32_t plain(SpvGen *g, const IrMemOp *mo, int view) {
    QdType t = mo->ref->type;
    SpvStorageClass sc;
    uint32_t v = g_low(g, mo)->op == QOP_LOAD ? 0 : operand(g, mo);
    uint32_t v2 = g_low(g, mo)->op == QOP_CAS ? g_expr(g, mo->val2) : 0;
    uint32_t p = g_ref_ptr(g, mo->ref, view, &sc);
    uint32_t stty = sc == SpvStorageClassFunction ? g_ty(g, t) : g_ty_store(g, t, view);
    uint32_t raw = G_OP(g, SpvOpLoad, stty, p);
    uint32_t old = sc == SpvStorageClassFunction ? raw : g_from_store(g, raw, t, view);
    uint32_t nv;
    if (g_low(g, mo)->op == QOP_LOAD) return old;
    if (g_low(g, mo)->op == QOP_STORE) nv = v;
    else if (g_low(g, mo)->op == QOP_CAS) {
        uint32_t eq = qt_is_float(t) ? g_binop(g, IR_EQ, qt_uint_same_width(t), G_OP(g, SpvOpBitcast, g_ty(g, qt_uint_same_width(t)), old),
                                               G_OP(g, SpvOpBitcast, g_ty(g, qt_uint_same_width(t)), v))
                                     : g_binop(g, IR_EQ, t, old, v);
        nv = G_OP(g, SpvOpSelect, g_ty(g, t), eq, v2, old);
    } else nv = combine(g, g_low(g, mo)->op, t, old, v);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpStore, p, sc == SpvStorageClassFunction ? nv : g_to_store(g, nv, t, view));
    return old;
}

static SpvOp float_atomic(SpvGen *g, QdOp op, QdType t) {
    int bits = qt_bits(t);
    if (op == QOP_ADD || op == QOP_SUB) {
        spv_cap(&g->b, bits == 16 ? SpvCapabilityAtomicFloat16AddEXT : bits == 32 ? SpvCapabilityAtomicFloat32AddEXT
                                                                                 : SpvCapabilityAtomicFloat64AddEXT);
        spv_ext(&g->b, bits == 16 ? "SPV_EXT_shader_atomic_float16_add" : "SPV_EXT_shader_atomic_float_add");
        return SpvOpAtomicFAddEXT;
    }
    if (op == QOP_MIN || op == QOP_MAX) {
        spv_cap(&g->b, bits == 16 ? SpvCapabilityAtomicFloat16MinMaxEXT : bits == 32 ? SpvCapabilityAtomicFloat32MinMaxEXT
                                                                                    : SpvCapabilityAtomicFloat64MinMaxEXT);
        spv_ext(&g->b, "SPV_EXT_shader_atomic_float_min_max");
        return op == QOP_MIN ? SpvOpAtomicFMinEXT : SpvOpAtomicFMaxEXT;
    }
    die("no native float atomic for '%s'", qop_name(op));
}

static SpvOp int_atomic(QdOp op, QdType t) {
    bool s = qt_is_signed(t);
    switch (op) {
    case QOP_ADD: return SpvOpAtomicIAdd;
    case QOP_SUB: return SpvOpAtomicISub;
    case QOP_MIN: return s ? SpvOpAtomicSMin : SpvOpAtomicUMin;
    case QOP_MAX: return s ? SpvOpAtomicSMax : SpvOpAtomicUMax;
    case QOP_AND: return SpvOpAtomicAnd;
    case QOP_OR: return SpvOpAtomicOr;
    case QOP_XOR: return SpvOpAtomicXor;
    case QOP_EXCHANGE: return SpvOpAtomicExchange;
    default: die("no single SPIR-V atomic for '%s' (a CAS loop was expected)", qop_name(op));
    }
}

/* One OpAtomic* instruction. Returns the old value in the IR type (0 for stores). */
static uint32_t native(SpvGen *g, const IrMemOp *mo, int view) {
    QdType t = mo->ref->type, st = stored_type(t, view);
    QdOp op = g_low(g, mo)->op;
    if (view == VIEW_WIDE && !(op == QOP_LOAD || op == QOP_STORE || op == QOP_EXCHANGE || op == QOP_CAS))
        die("native '%s' on a widened SharedArray (the lowering makes it a CAS loop on the word)", qop_name(op));
    uint32_t v = op == QOP_LOAD ? 0 : operand(g, mo), v2 = op == QOP_CAS ? g_expr(g, mo->val2) : 0;
    SpvStorageClass sc;
    uint32_t p = g_ref_ptr(g, mo->ref, view, &sc), scope, stty = g_ty(g, st), r;
    if (!scope_id(g, g_low(g, mo)->scope, mo->ref->span, &scope)) return 0;
    uint32_t s = sem(g, g_low(g, mo)->order);
    atomic_caps(g, st);
    if (op != QOP_LOAD) v = g_to_store(g, v, t, view);
    switch (op) {
    case QOP_LOAD: r = G_OP(g, SpvOpAtomicLoad, stty, p, scope, s); break;
    case QOP_STORE: SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpAtomicStore, p, scope, s, v); return 0;
    case QOP_CAS:
        r = G_OP(g, SpvOpAtomicCompareExchange, stty, p, scope, s, sem(g, fail_order(g_low(g, mo)->order)),
                 g_to_store(g, v2, t, view), v);
        break;
    default:
        if (qt_is_float(st) && op != QOP_EXCHANGE) {
            if (op == QOP_SUB) v = G_OP(g, SpvOpFNegate, stty, v);
            r = G_OP(g, float_atomic(g, op, st), stty, p, scope, s, v);
        } else {
            r = G_OP(g, int_atomic(op, st), stty, p, scope, s, v);
        }
    }
    return g_from_store(g, r, t, view);
}

/* old = atomic load; loop { new = op(old, v); r = cas(p, old -> new); if r == old break; old = r } */
static uint32_t cas_loop(SpvGen *g, const IrMemOp *mo, int view) {
    QdType t = mo->ref->type, st = stored_type(t, view);
    uint32_t v = operand(g, mo);
    SpvStorageClass sc;
    uint32_t p = g_ref_ptr(g, mo->ref, view, &sc), scope, stty = g_ty(g, st);
    if (!scope_id(g, g_low(g, mo)->scope, mo->ref->span, &scope)) return 0;
    atomic_caps(g, st);
    uint32_t init = G_OP(g, SpvOpAtomicLoad, stty, p, scope, g_u32(g, 0)), pre = g->cur;
    uint32_t head = spv_id(&g->b), body = spv_id(&g->b), cont = spv_id(&g->b), merge = spv_id(&g->b);
    uint32_t old = spv_id(&g->b), r = spv_id(&g->b);
    g_branch(g, head);
    g_label(g, head);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpPhi, stty, old, init, pre, r, cont);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpLoopMerge, merge, cont, SpvLoopControlMaskNone);
    g_branch(g, body);
    g_label(g, body);
    uint32_t nv = g_to_store(g, combine(g, g_low(g, mo)->op, t, g_from_store(g, old, t, view), v), t, view);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpAtomicCompareExchange, stty, r, p, scope, sem(g, g_low(g, mo)->order),
           sem(g, fail_order(g_low(g, mo)->order)), nv, old);
    uint32_t done = G_OP(g, SpvOpIEqual, g_ty(g, QT_U1), r, old);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpBranchConditional, done, merge, cont);
    g_label(g, cont);
    g_branch(g, head);
    g_label(g, merge);
    return g_from_store(g, old, t, view);
}

/* qd.volatile_load: an OpLoad with the Volatile access on a Coherent variable (so the spin
 * sees other workgroups' writes under the GLSL450 model); for MSL the variable is also
 * decorated Volatile, which SPIRV-Cross turns into `volatile device`. */
static void decorate_once(SpvGen *g, uint32_t var, bool *done, SpvDecoration d) {
    if (*done) return;
    SPV_OP(&g->b, SPV_SEC_ANNOT, SpvOpDecorate, var, d);
    *done = true;
}

static uint32_t volatile_load(SpvGen *g, const IrMemOp *mo) {
    SpvRes *res = g_res(g, mo->ref);
    int view = g_res_view(res);
    SpvStorageClass sc;
    uint32_t p = g_ref_ptr(g, mo->ref, view, &sc);
    if (res && sc == SpvStorageClassStorageBuffer) {
        uint32_t var = g_res_var(g, mo->ref, view);
        decorate_once(g, var, &res->coherent[view], SpvDecorationCoherent);
        if (g_low(g, mo)->flags & LOWF_VOLATILE_DECORATION) decorate_once(g, var, &res->volatile_[view], SpvDecorationVolatile);
    }
    uint32_t ty = sc == SpvStorageClassFunction ? g_ty(g, mo->ref->type) : g_ty_store(g, mo->ref->type, view);
    uint32_t raw = G_OP(g, SpvOpLoad, ty, p, SpvMemoryAccessVolatileMask);
    return sc == SpvStorageClassFunction ? raw : g_from_store(g, raw, mo->ref->type, view);
}

/* The operation as the lowering decided it (g->given: the operand of a flush or an aggregate). */
static uint32_t as_decided(SpvGen *g, const IrExpr *e) {
    const IrMemOp *mo = &e->mem;
    const IrLowering *l = g_low(g, mo);
    int view = g_memop_view(g, mo);
    if (l->fence_before) g_fence(g, l->fence_scope, l->fence_order);
    uint32_t r;
    if (l->kind == LOW_NATIVE && g->t->for_msl && (l->flags & (LOWF_MSL_HELPER | LOWF_SPLIT64))) r = msl_helper_call(g, mo, l);
    else if (l->kind == LOW_NATIVE) r = native(g, mo, view);
    else if (l->kind == LOW_CAS_LOOP) r = cas_loop(g, mo, view);
    else die("memory operation reached the SPIR-V backend undecided (kind %d)", (int)l->kind);
    if (l->fence_after) g_fence(g, l->fence_scope, l->fence_order);
    return r;
}

/* ---- the atomic rewrites (lower/reduce.c decides; qdc-lang(7) "Atomic reductions") ---- */
static QdOp partial_op(const IrLowering *l) { return l->op == QOP_SUB ? QOP_ADD : l->op; }

static IrBinOp combine_binop(QdOp op) {
    switch (op) {
    case QOP_ADD: return IR_ADD;
    case QOP_MIN: return IR_MIN;
    case QOP_MAX: return IR_MAX;
    case QOP_AND: return IR_AND;
    case QOP_OR: return IR_OR;
    case QOP_XOR: return IR_XOR;
    default: die("no subgroup reduction of '%s'", qop_name(op));
    }
}

/* The partial's starting value: the identity of op on t (-0.0 for a float add: -0.0 + x == x). */
static uint32_t identity(SpvGen *g, QdOp op, QdType t) {
    int bits = qt_bits(t);
    uint64_t ones = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1, top = UINT64_C(1) << (bits - 1);
    bool s = qt_is_signed(t);
    if (qt_is_float(t)) {
        if (op != QOP_ADD) die("no subgroup reduction of float '%s'", qop_name(op));
        return g_const(g, t, top);
    }
    switch (op) {
    case QOP_MIN: return g_const(g, t, s ? top - 1 : ones);
    case QOP_MAX: return g_const(g, t, s ? top : 0);
    case QOP_AND: return g_const(g, t, ones);
    default: return g_const(g, t, 0);
    }
}

typedef struct { SpvGen *g; const IrTask *task; } PartialScan;

static void add_partial(void *ctx, const IrKernel *k, const IrTask *t, const IrExpr *e, const IrStmt *fence) {
    (void)k, (void)fence;
    PartialScan *p = ctx;
    SpvGen *g = p->g;
    if (!e || t != p->task || g_low(g, &e->mem)->reduce != LOW_REDUCE_SUBGROUP) return;
    QdType qt = e->mem.ref->type;
    uint32_t ty = g_ty(g, qt), var = spv_id(&g->b);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpVariable, g_ptr(g, SpvStorageClassFunction, ty), var, SpvStorageClassFunction,
           identity(g, partial_op(g_low(g, &e->mem)), qt));
    vec_push(&g->partials, ((SpvPartial){e, var}));
}

void g_reduce_begin(SpvGen *g, const IrTask *task) {
    g->partials.len = 0;
    PartialScan p = {g, task};
    ir_visit_kernel_memory_ops(g->k, add_partial, &p);
}

static uint32_t partial_of(const SpvGen *g, const IrExpr *e) {
    for (int i = 0; i < g->partials.len; i++)
        if (g->partials.items[i].e == e) return g->partials.items[i].var;
    return 0;
}

/* After the loop, in every invocation: the partials of the active invocations combined, and
 * one atomic of the result by the elected one. */
void g_reduce_end(SpvGen *g) {
    for (int i = 0; i < g->partials.len; i++) {
        const IrExpr *e = g->partials.items[i].e;
        const IrLowering *l = g_low(g, &e->mem);
        QdType t = e->mem.ref->type;
        ir_memo_clear(&g->shared_ids);
        SpvStorageClass sc;
        g_ref_ptr(g, e->mem.ref, g_memop_view(g, &e->mem), &sc); /* index nodes before the branch */
        uint32_t v = G_OP(g, SpvOpLoad, g_ty(g, t), g->partials.items[i].var);
        uint32_t r = g_subgroup_reduce(g, combine_binop(partial_op(l)), t, v), elect = g_subgroup_elect(g);
        uint32_t then = spv_id(&g->b), merge = spv_id(&g->b);
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpSelectionMerge, merge, SpvSelectionControlMaskNone);
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpBranchConditional, elect, then, merge);
        g_label(g, then);
        g->given = r;
        as_decided(g, e);
        g->given = 0;
        g_branch(g, merge);
        g_label(g, merge);
    }
    g->partials.len = 0;
}

/* One execution of a reduced atomic: partial = op(partial, operand). */
static uint32_t reduce_step(SpvGen *g, const IrExpr *e, uint32_t var) {
    const IrLowering *l = g_low(g, &e->mem);
    QdType t = e->mem.ref->type;
    uint32_t v = operand(g, &e->mem), cur = G_OP(g, SpvOpLoad, g_ty(g, t), var);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpStore, var, combine(g, partial_op(l), t, cur, v));
    return 0;
}

/* A used-result add aggregated over the active invocations: the elected (lowest) one adds
 * count * operand; each gets old + (invocations below it) * operand, old from the elected. */
static uint32_t aggregate(SpvGen *g, const IrExpr *e) {
    const IrLowering *l = g_low(g, &e->mem);
    QdType t = e->mem.ref->type;
    uint32_t ty = g_ty(g, t), v = operand(g, &e->mem), count, below;
    SpvStorageClass sc;
    g_ref_ptr(g, e->mem.ref, g_memop_view(g, &e->mem), &sc); /* index nodes before the branch */
    g_subgroup_ranks(g, &count, &below);
    uint32_t total = G_OP(g, SpvOpIMul, ty, G_OP(g, SpvOpBitcast, ty, count), v);
    uint32_t elect = g_subgroup_elect(g), pre = g->cur, then = spv_id(&g->b), merge = spv_id(&g->b);
    uint32_t undef = G_OP(g, SpvOpUndef, ty);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpSelectionMerge, merge, SpvSelectionControlMaskNone);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpBranchConditional, elect, then, merge);
    g_label(g, then);
    g->given = total;
    uint32_t old = as_decided(g, e), from = g->cur;
    g->given = 0;
    g_branch(g, merge);
    g_label(g, merge);
    uint32_t phi = spv_id(&g->b);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpPhi, ty, phi, old, from, undef, pre);
    uint32_t base = g_subgroup_first(g, t, phi), step = G_OP(g, SpvOpIMul, ty, G_OP(g, SpvOpBitcast, ty, below), v);
    /* sub: the lanes before this one took `step` away */
    return G_OP(g, l->op == QOP_SUB ? SpvOpISub : SpvOpIAdd, ty, base, step);
}

uint32_t g_memop(SpvGen *g, const IrExpr *e) {
    const IrMemOp *mo = &e->mem;
    const IrLowering *l = g_low(g, mo);
    if (mo->is_volatile) return volatile_load(g, mo);
    if (l->kind == LOW_PLAIN) return plain(g, mo, g_res_view(g_res(g, mo->ref)));
    uint32_t var = l->reduce == LOW_REDUCE_SUBGROUP ? partial_of(g, e) : 0;
    if (var) return reduce_step(g, e, var);
    uint32_t r = l->reduce == LOW_AGGREGATE_SUBGROUP ? aggregate(g, e) : as_decided(g, e);
    return e->type == QT_VOID ? 0 : r;
}
