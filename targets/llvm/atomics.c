/* Memory operations exactly as the lowering engine decided (IrLowering): native instructions
 * through the target hooks, CAS loops (load; op(old, val); compare-and-swap on the same-width
 * integer when via_int; retry), plain demotion, volatile loads and fences. */
#include "llvm_target.h"
#include <string.h>

LLVMAtomicOrdering cg_ordering(QdOrder o) {
    static const LLVMAtomicOrdering map[QORD_COUNT] = {
        [QORD_RELAXED] = LLVMAtomicOrderingMonotonic, [QORD_ACQUIRE] = LLVMAtomicOrderingAcquire,
        [QORD_RELEASE] = LLVMAtomicOrderingRelease, [QORD_ACQ_REL] = LLVMAtomicOrderingAcquireRelease,
        [QORD_SEQ_CST] = LLVMAtomicOrderingSequentiallyConsistent,
    };
    return map[o];
}

/* A load cannot release and a store cannot acquire: keep the half that applies. */
static LLVMAtomicOrdering load_ordering(QdOrder o) {
    return cg_ordering(o == QORD_RELEASE ? QORD_RELAXED : o == QORD_ACQ_REL ? QORD_ACQUIRE : o);
}
static LLVMAtomicOrdering store_ordering(QdOrder o) {
    return cg_ordering(o == QORD_ACQUIRE ? QORD_RELAXED : o == QORD_ACQ_REL ? QORD_RELEASE : o);
}
static LLVMAtomicOrdering failure_ordering(QdOrder o) { return load_ordering(o == QORD_RELEASE ? QORD_RELAXED : o); }

/* ---- the generic single instructions (NULL hooks) ---- */
LLVMValueRef cg_default_rmw(LlvmCg *cg, const CgAtomic *a) {
    LLVMValueRef r = LLVMBuildAtomicRMW(cg->b, a->rmw, a->ptr, a->val, cg_ordering(a->low->order), 0);
    LLVMSetAlignment(r, cg_align(a->qt));
    return r;
}

LLVMValueRef cg_default_cmpxchg(LlvmCg *cg, const CgAtomic *a, LLVMValueRef desired) {
    QdOrder o = a->low->order;
    LLVMValueRef r = LLVMBuildAtomicCmpXchg(cg->b, a->ptr, a->val, desired, cg_ordering(o), failure_ordering(o), 0);
    LLVMSetAlignment(r, cg_align(a->qt));
    return LLVMBuildExtractValue(cg->b, r, 0, "");
}

LLVMValueRef cg_default_atomic_load(LlvmCg *cg, const CgAtomic *a) {
    LLVMValueRef r = LLVMBuildLoad2(cg->b, a->ty, a->ptr, "");
    LLVMSetOrdering(r, load_ordering(a->low->order));
    LLVMSetAlignment(r, cg_align(a->qt));
    return r;
}

void cg_default_atomic_store(LlvmCg *cg, const CgAtomic *a) {
    LLVMValueRef r = LLVMBuildStore(cg->b, a->val, a->ptr);
    LLVMSetOrdering(r, store_ordering(a->low->order));
    LLVMSetAlignment(r, cg_align(a->qt));
}

LLVMValueRef cg_default_volatile_load(LlvmCg *cg, const CgAtomic *a) {
    LLVMValueRef r = LLVMBuildLoad2(cg->b, a->ty, a->ptr, "");
    LLVMSetVolatile(r, 1);
    LLVMSetAlignment(r, cg_align(a->qt));
    return r;
}

void cg_default_fence(LlvmCg *cg, QdOrder order, QdScope scope) {
    (void)scope;
    if (order != QORD_RELAXED) LLVMBuildFence(cg->b, cg_ordering(order), 0, "");
}

/* ---- hook dispatch ---- */
static void fence(LlvmCg *cg, QdOrder o, QdScope s) {
    if (cg->tgt->fence) cg->tgt->fence(cg, o, s);
    else cg_default_fence(cg, o, s);
}
static LLVMValueRef cmpxchg(LlvmCg *cg, const CgAtomic *a, LLVMValueRef desired) {
    return cg->tgt->cmpxchg ? cg->tgt->cmpxchg(cg, a, desired) : cg_default_cmpxchg(cg, a, desired);
}
static LLVMValueRef atomic_load(LlvmCg *cg, const CgAtomic *a) {
    return cg->tgt->atomic_load ? cg->tgt->atomic_load(cg, a) : cg_default_atomic_load(cg, a);
}

static LLVMAtomicRMWBinOp rmw_opcode(QdOp op, QdType t) {
    bool fl = qt_is_float(t), sg = qt_is_signed(t);
    switch (op) {
    case QOP_ADD: return fl ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd;
    case QOP_SUB: return fl ? LLVMAtomicRMWBinOpFSub : LLVMAtomicRMWBinOpSub;
    case QOP_MIN: return fl ? LLVMAtomicRMWBinOpFMin : sg ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin;
    case QOP_MAX: return fl ? LLVMAtomicRMWBinOpFMax : sg ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax;
    case QOP_AND: return LLVMAtomicRMWBinOpAnd;
    case QOP_OR: return LLVMAtomicRMWBinOpOr;
    case QOP_XOR: return LLVMAtomicRMWBinOpXor;
    case QOP_EXCHANGE: return LLVMAtomicRMWBinOpXchg;
    case QOP_INC: return LLVMAtomicRMWBinOpUIncWrap;
    case QOP_DEC: return LLVMAtomicRMWBinOpUDecWrap;
    default: die("op %s has no native read-modify-write form", qop_name(op));
    }
}

/* ---- emission per decision ---- */
static LLVMValueRef as_int(LlvmCg *cg, const CgAtomic *a, LLVMValueRef v) {
    return a->low->via_int && LLVMTypeOf(v) != a->ty ? LLVMBuildBitCast(cg->b, v, a->ty, "") : v;
}

/* load; new = op(old, val); cmpxchg(old, new); retry until the swap saw `old`. A cas done
 * as a loop (e.g. a width the hardware cannot swap) leaves as soon as old != expected. */
static LLVMValueRef cas_loop(LlvmCg *cg, CgAtomic *a, LLVMTypeRef vty) {
    IrLowering first = *a->low;
    first.order = QORD_RELAXED;
    CgAtomic ld = *a;
    ld.low = &first;
    bool is_cas = a->low->op == QOP_CAS;
    LLVMValueRef val = a->val, desired = is_cas ? as_int(cg, a, cg_expr(cg, a->mem->val2)) : NULL;
    if (is_cas) val = as_int(cg, a, val);
    LLVMValueRef init = atomic_load(cg, &ld);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(cg->b), head = cg_block(cg, "cas.loop"), exit = cg_block(cg, "cas.done");
    LLVMBuildBr(cg->b, head);
    LLVMPositionBuilderAtEnd(cg->b, head);
    LLVMValueRef old = LLVMBuildPhi(cg->b, a->ty, "old");
    if (is_cas) {
        LLVMBasicBlockRef swap = cg_block(cg, "cas.swap");
        LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, old, val, ""), swap, exit);
        LLVMPositionBuilderAtEnd(cg->b, swap);
    } else {
        LLVMValueRef oldv = a->low->via_int ? LLVMBuildBitCast(cg->b, old, vty, "") : old;
        desired = as_int(cg, a, cg_apply_op(cg, a->low->op, a->qt, oldv, val));
    }
    a->val = old;
    LLVMValueRef seen = cmpxchg(cg, a, desired);
    LLVMValueRef ok = LLVMBuildICmp(cg->b, LLVMIntEQ, seen, old, "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(cg->b);
    LLVMBuildCondBr(cg->b, ok, exit, head);
    LLVMAddIncoming(old, &init, &pre, 1);
    LLVMAddIncoming(old, &seen, &latch, 1);
    LLVMPositionBuilderAtEnd(cg->b, exit);
    return old;
}

/* LOW_PLAIN: the target is thread-private; ordinary load, compute, store. */
static LLVMValueRef plain(LlvmCg *cg, const IrMemOp *mem, LLVMValueRef ptr, LLVMTypeRef vty, LLVMValueRef val) {
    QdType t = mem->ref->type;
    LLVMValueRef old = NULL;
    if (mem->op != QOP_STORE) {
        old = LLVMBuildLoad2(cg->b, vty, ptr, "");
        LLVMSetAlignment(old, cg_align(t));
        if (mem->op == QOP_LOAD) return old;
    }
    LLVMValueRef nv = val;
    if (mem->op == QOP_CAS) {
        LLVMValueRef eq = cg_binary(cg, IR_EQ, t, old, val);
        nv = LLVMBuildSelect(cg->b, eq, cg_expr(cg, mem->val2), old, "");
    } else if (mem->op != QOP_STORE) {
        nv = cg_apply_op(cg, mem->op, t, old, val);
    }
    LLVMSetAlignment(LLVMBuildStore(cg->b, nv, ptr), cg_align(t));
    return old;
}

static LLVMValueRef native(LlvmCg *cg, const IrMemOp *mem, CgAtomic *a) {
    switch (a->low->op) {
    case QOP_LOAD: return atomic_load(cg, a);
    case QOP_STORE:
        a->val = as_int(cg, a, a->val);
        if (cg->tgt->atomic_store) cg->tgt->atomic_store(cg, a);
        else cg_default_atomic_store(cg, a);
        return NULL;
    case QOP_CAS: {
        LLVMValueRef desired = as_int(cg, a, cg_expr(cg, mem->val2));
        a->val = as_int(cg, a, a->val);
        return cmpxchg(cg, a, desired);
    }
    default:
        a->val = as_int(cg, a, a->val);
        a->rmw = rmw_opcode(a->low->op, a->low->via_int ? qt_uint_same_width(a->qt) : a->qt);
        return cg->tgt->native_rmw ? cg->tgt->native_rmw(cg, a) : cg_default_rmw(cg, a);
    }
}

/* ---- reductions (IrLowering.reduce, lower/reduce.c) ---- */
/* A partial starts at the identity of its operation: NaN for float min/max (minNum/maxNum: a
 * NaN operand loses, so min(s, NaN) == s, also for s NaN), -0.0 for float add (x + -0.0 == x). */
static LLVMValueRef identity(LlvmCg *cg, QdOp op, QdType t) {
    LLVMTypeRef ty = cg_type(cg, t);
    if (qt_is_float(t)) return op == QOP_ADD ? LLVMConstReal(ty, -0.0) : LLVMConstReal(ty, __builtin_nan(""));
    unsigned bits = (unsigned)qt_bits(t);
    bool sg = qt_is_signed(t);
    uint64_t ones = bits == 64 ? ~0ull : (1ull << bits) - 1, top = 1ull << (bits - 1);
    switch (op) {
    case QOP_MIN: return LLVMConstInt(ty, sg ? top - 1 : ones, 0);
    case QOP_MAX: return LLVMConstInt(ty, sg ? top : 0, 0);
    case QOP_AND: return LLVMConstInt(ty, ones, 0);
    default: return LLVMConstInt(ty, 0, 0);
    }
}

static QdOp partial_op(const IrLowering *L) { return L->op == QOP_SUB ? QOP_ADD : L->op; }

typedef struct {
    LlvmCg *cg;
    LLVMBuilderRef entry; /* positioned at the start of the entry block */
} PartialScan;

static void add_partial(void *ctx, const IrKernel *k, const IrTask *t, const IrExpr *e, const IrStmt *fence) {
    (void)k, (void)fence;
    PartialScan *p = ctx;
    LlvmCg *cg = p->cg;
    IrReduceLevel lv = e ? ir_low_memop(cg->low, e)->reduce : LOW_REDUCE_NONE;
    if (!e || t != cg->task || (lv != LOW_REDUCE_WORKER && lv != LOW_REDUCE_SUBGROUP)) return;
    QdType qt = e->mem.ref->type;
    LLVMValueRef slot = LLVMBuildAlloca(p->entry, cg_type(cg, qt), "partial");
    LLVMBuildStore(p->entry, identity(cg, partial_op(ir_low_memop(cg->low, e)), qt), slot);
    cg->reduced = xrealloc(cg->reduced, sizeof *cg->reduced * (size_t)(cg->nreduced + 1));
    cg->partials = xrealloc(cg->partials, sizeof *cg->partials * (size_t)(cg->nreduced + 1));
    cg->reduced[cg->nreduced] = e, cg->partials[cg->nreduced++] = slot;
}

void cg_reduce_begin(LlvmCg *cg) {
    const char *level = cap_str(cg->cap, "rewrite.reduce");
    if (!level || !strcmp(level, "none")) return; /* no decision of this family reduces */
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(cg->fn);
    LLVMValueRef first = LLVMGetFirstInstruction(entry);
    PartialScan p = {cg, LLVMCreateBuilderInContext(cg->ctx)};
    if (first) LLVMPositionBuilderBefore(p.entry, first);
    else LLVMPositionBuilderAtEnd(p.entry, entry);
    ir_visit_kernel_memory_ops(cg->kernel, add_partial, &p);
    LLVMDisposeBuilder(p.entry);
}

static LLVMValueRef partial_of(const LlvmCg *cg, const IrExpr *e) {
    for (int i = 0; i < cg->nreduced; i++)
        if (cg->reduced[i] == e) return cg->partials[i];
    return NULL;
}

/* One execution of a reduced atomic: partial = op(partial, operand); the result is unused. */
static LLVMValueRef reduce_step(LlvmCg *cg, const IrExpr *e, const IrLowering *low, LLVMValueRef slot) {
    QdType qt = e->mem.ref->type;
    LLVMTypeRef vty = cg_type(cg, qt);
    LLVMValueRef v = cg_expr(cg, e->mem.val);
    if (low->negate) v = qt_is_float(qt) ? LLVMBuildFNeg(cg->b, v, "") : LLVMBuildNeg(cg->b, v, "");
    LLVMValueRef cur = LLVMBuildLoad2(cg->b, vty, slot, "");
    LLVMValueRef nv = cg_apply_op(cg, partial_op(low), qt, cur, v);
    /* float add is reassociated (qdc-lang(7)): say so to LLVM, which may then vectorize it */
    if (qt_is_float(qt) && partial_op(low) == QOP_ADD && LLVMCanValueUseFastMathFlags(nv))
        LLVMSetFastMathFlags(nv, LLVMFastMathAllowReassoc);
    LLVMBuildStore(cg->b, nv, slot);
    return LLVMGetUndef(vty);
}

static LLVMValueRef emit_memop(LlvmCg *cg, const IrExpr *e, LLVMValueRef given);

/* After the task's loop: each partial reaches memory by one atomic, as the operation decided.
 * All subgroup reductions come first (they share the subgroup's mask), then the atomics, those
 * with the same leader under one branch. */
void cg_reduce_end(LlvmCg *cg) {
    LLVMValueRef *vals = xcalloc((size_t)cg->nreduced + 1, sizeof *vals), *leaders = xcalloc((size_t)cg->nreduced + 1, sizeof *leaders);
    cg->flush_mask = NULL;
    for (int i = 0; i < cg->nreduced; i++) {
        const IrExpr *e = cg->reduced[i];
        const IrLowering *low = ir_low_memop(cg->low, e);
        QdType qt = e->mem.ref->type;
        vals[i] = LLVMBuildLoad2(cg->b, cg_type(cg, qt), cg->partials[i], "");
        if (low->reduce == LOW_REDUCE_SUBGROUP) {
            if (!cg->tgt->reduce_subgroup) die("a subgroup reduction on a target without reduce_subgroup");
            vals[i] = cg->tgt->reduce_subgroup(cg, partial_op(low), qt, vals[i], &leaders[i]);
        }
    }
    for (int i = 0; i < cg->nreduced;) {
        ir_memo_clear(&cg->shared_vals);
        if (!leaders[i]) {
            emit_memop(cg, cg->reduced[i], vals[i]);
            i++;
            continue;
        }
        LLVMBasicBlockRef one = cg_block(cg, "reduce.flush"), join = cg_block(cg, "reduce.done");
        LLVMBuildCondBr(cg->b, leaders[i], one, join);
        LLVMPositionBuilderAtEnd(cg->b, one);
        LLVMValueRef leader = leaders[i];
        for (; i < cg->nreduced && leaders[i] == leader; i++) emit_memop(cg, cg->reduced[i], vals[i]);
        LLVMBuildBr(cg->b, join);
        LLVMPositionBuilderAtEnd(cg->b, join);
    }
    free(vals), free(leaders);
    cg->flush_mask = NULL;
    free(cg->reduced), free(cg->partials);
    cg->reduced = NULL, cg->partials = NULL, cg->nreduced = 0;
}

LLVMValueRef cg_memop_with(LlvmCg *cg, const IrExpr *e, LLVMValueRef operand) { return emit_memop(cg, e, operand); }

/* A vector atomic: the operands of its components (independent of the memory they update,
 * lower/vector.c), then one instruction at the first component's address. */
static LLVMValueRef vector_memop(LlvmCg *cg, const IrExpr *e, const IrLowering *low) {
    if (!cg->tgt->vector_rmw || low->vec_width > 8) die("vector atomic decided for a target without one");
    QdType qt = e->mem.ref->type;
    CgAtomic a = {.low = low, .mem = &e->mem, .qt = qt, .space = e->mem.ref->space, .ty = cg_type(cg, qt)};
    a.ptr = cg_ref_ptr(cg, e->mem.ref);
    LLVMValueRef vals[8];
    for (int k = 0; k < low->vec_width; k++) {
        vals[k] = cg_expr(cg, low->vec_ops[k]->mem.val);
        if (low->negate) vals[k] = qt_is_float(qt) ? LLVMBuildFNeg(cg->b, vals[k], "") : LLVMBuildNeg(cg->b, vals[k], "");
    }
    cg->tgt->vector_rmw(cg, &a, vals, low->vec_width);
    return NULL;
}

LLVMValueRef cg_memop(LlvmCg *cg, const IrExpr *e) {
    const IrLowering *low = ir_low_memop(cg->low, e);
    if (low->vec_member) return NULL; /* its vector atomic's first component emitted it */
    if (low->vec_width > 1) return vector_memop(cg, e, low);
    if (low->reduce == LOW_AGGREGATE_SUBGROUP && cg->tgt->aggregate_subgroup) {
        QdType qt = e->mem.ref->type;
        cg_ref_ptr(cg, e->mem.ref); /* shared index nodes evaluated here, before any branch */
        LLVMValueRef v = cg_expr(cg, e->mem.val);
        if (low->negate) v = LLVMBuildNeg(cg->b, v, "");
        (void)qt;
        return cg->tgt->aggregate_subgroup(cg, e, v);
    }
    LLVMValueRef slot = low->reduce == LOW_REDUCE_WORKER || low->reduce == LOW_REDUCE_SUBGROUP ? partial_of(cg, e) : NULL;
    return slot ? reduce_step(cg, e, low, slot) : emit_memop(cg, e, NULL);
}

/* The operation as decided; `given`: the operand already computed (and negated), else mem->val. */
static LLVMValueRef emit_memop(LlvmCg *cg, const IrExpr *e, LLVMValueRef given) {
    const IrMemOp *mem = &e->mem;
    const IrLowering *low = ir_low_memop(cg->low, e);
    if (low->kind == LOW_UNDECIDED || low->kind == LOW_UNSUPPORTED) die("memory operation without a decision");
    QdType qt = mem->ref->type;
    LLVMTypeRef vty = cg_type(cg, qt);
    CgAtomic a = {.low = low, .mem = mem, .qt = qt, .space = mem->ref->space};
    a.ty = low->via_int ? LLVMIntTypeInContext(cg->ctx, (unsigned)qt_bits(qt)) : vty;
    a.ptr = cg_ref_ptr(cg, mem->ref);
    a.val = given ? given : mem->val ? cg_expr(cg, mem->val) : NULL;
    if (low->negate && !given) a.val = qt_is_float(qt) ? LLVMBuildFNeg(cg->b, a.val, "") : LLVMBuildNeg(cg->b, a.val, "");
    if (low->kind == LOW_PLAIN) return plain(cg, mem, a.ptr, vty, a.val);
    if (mem->is_volatile) {
        a.ty = vty;
        return cg->tgt->volatile_load ? cg->tgt->volatile_load(cg, &a) : cg_default_volatile_load(cg, &a);
    }
    if (low->fence_before) fence(cg, low->fence_order, low->fence_scope);
    LLVMValueRef r = low->kind == LOW_CAS_LOOP ? cas_loop(cg, &a, vty) : native(cg, mem, &a);
    if (low->fence_after) fence(cg, low->fence_order, low->fence_scope);
    if (r && low->via_int && LLVMTypeOf(r) != vty) r = LLVMBuildBitCast(cg->b, r, vty, "");
    return r;
}

void cg_fence_stmt(LlvmCg *cg, const IrStmt *s) {
    const IrLowering *low = ir_low_fence(cg->low, s);
    if (low->kind == LOW_UNDECIDED || low->kind == LOW_UNSUPPORTED) die("fence without a decision");
    fence(cg, low->order, low->scope);
}
