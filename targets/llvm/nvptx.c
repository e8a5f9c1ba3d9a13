/* The PTX target: inline-PTX spelling of atomics, atomic loads/stores and fences (LLVM 19 NVPTX
 * drops orders and scopes and aborts on acquire/release loads, stores and fences, so qdc never
 * hands it those) and the NVPTX hooks (entries with grid-stride loops, launch bounds, thread
 * ids, barriers). LLVM's own atomicrmw/cmpxchg/load atomic is used only for relaxed
 * device-scope operations. The kernel ABI both GPU targets share is gpu_abi.c. */
#include "gpu.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- spelling tables ---- */

/* The PTX type suffix of `op` on `t` by the ISA's grammar of atom, red, ld and st: which widths
 * and kinds each instruction names at all (atom.inc only .u32, atom.cas .b16 to .b64, no atom on
 * 8 bits, no float min/max). NULL: PTX has no such instruction. Whether a family has one is the
 * capability database's answer, carried by the decision, never this function's. Floats go
 * through their same-width integer for exchange/cas/load/store (bit patterns). */
static const char *ptx_type_suffix(QdOp op, QdType t) {
    static const char *const sized[3][4] = {{"b8", "b16", "b32", "b64"}, {"u8", "u16", "u32", "u64"},
                                            {"s8", "s16", "s32", "s64"}};
    int bits = qt_bits(t), w = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : bits == 64 ? 3 : -1;
    bool fl = qt_is_float(t);
    if (w < 0) return NULL;
    switch (op) {
    case QOP_LOAD:
    case QOP_STORE: return sized[0][w];
    case QOP_CAS: return bits >= 16 ? sized[0][w] : NULL;
    case QOP_EXCHANGE: return bits >= 32 ? sized[0][w] : NULL;
    case QOP_AND:
    case QOP_OR:
    case QOP_XOR: return bits >= 32 && !fl ? sized[0][w] : NULL;
    case QOP_MIN:
    case QOP_MAX: return bits >= 32 && !fl ? sized[qt_is_signed(t) ? 2 : 1][w] : NULL;
    case QOP_INC:
    case QOP_DEC: return bits == 32 && !fl ? sized[1][w] : NULL;
    case QOP_ADD:
        if (t == QT_F16) return "noftz.f16";
        if (t == QT_BF16) return "noftz.bf16";
        if (fl) return bits == 32 ? "f32" : "f64";
        return bits >= 32 ? sized[1][w] : NULL;
    default: return NULL;
    }
}

/* PTX operation names, indexed by QdOp (sub and mul have none: lowering rewrites or loops). */
static const char *const ptx_opname[QOP_COUNT] = {
    [QOP_ADD] = "add", [QOP_MIN] = "min", [QOP_MAX] = "max", [QOP_AND] = "and",
    [QOP_OR] = "or", [QOP_XOR] = "xor", [QOP_EXCHANGE] = "exch", [QOP_CAS] = "cas",
    [QOP_INC] = "inc", [QOP_DEC] = "dec",
};

static const char *const ptx_scope[QSCOPE_COUNT] = {
    [QSCOPE_BLOCK] = "cta", [QSCOPE_CLUSTER] = "cluster", [QSCOPE_DEVICE] = "gpu", [QSCOPE_SYSTEM] = "sys",
};
/* membar has no cluster level: the wider gl is correct. */
static const char *const ptx_membar[QSCOPE_COUNT] = {
    [QSCOPE_BLOCK] = "cta", [QSCOPE_CLUSTER] = "gl", [QSCOPE_DEVICE] = "gl", [QSCOPE_SYSTEM] = "sys",
};
/* .sem of an RMW: seq_cst is acq_rel here; the caller puts fence.sc before it. */
static const char *const ptx_rmw_sem[QORD_COUNT] = {
    [QORD_RELAXED] = "relaxed", [QORD_ACQUIRE] = "acquire", [QORD_RELEASE] = "release",
    [QORD_ACQ_REL] = "acq_rel", [QORD_SEQ_CST] = "acq_rel",
};

/* Inline-asm constraint letter for a register of `bits` (operands are always integers; an 8-bit
 * ld/st names a 16-bit register, which PTX allows for ld and st). */
static char ptx_reg(int bits) {
    switch (bits) {
    case 8:
    case 16: return 'h';
    case 32: return 'r';
    case 64: return 'l';
    default: die("no PTX register class for %d bits", bits);
    }
}

/* The ".sem.scope" part of a load or store; volatile form without .sem (sm_60). */
static void ptx_ldst_qualifiers(QdOp op, QdOrder order, QdScope scope, bool with_sem, StrBuf *b) {
    if (!with_sem) {
        sb_puts(b, ".volatile");
        return;
    }
    const char *sem;
    if (op == QOP_LOAD) {
        if (order == QORD_RELEASE) die("release atomic load reached the PTX backend");
        sem = order == QORD_RELAXED ? "relaxed" : "acquire";
    } else {
        if (order == QORD_ACQUIRE) die("acquire atomic store reached the PTX backend");
        sem = order == QORD_RELAXED ? "relaxed" : "release";
    }
    sb_printf(b, ".%s.%s", sem, ptx_scope[scope]);
}

static void ptx_spell_ldst(QdOp op, const char *sfx, QdSpace space, QdOrder order, QdScope scope,
                           bool with_sem, int bits, PtxInline *out) {
    sb_puts(&out->text, op == QOP_LOAD ? "ld" : "st");
    ptx_ldst_qualifiers(op, order, scope, with_sem, &out->text);
    sb_printf(&out->text, ".%s.%s ", qspace_name(space), sfx);
    out->has_result = op == QOP_LOAD;
    if (op == QOP_LOAD) {
        sb_puts(&out->text, "$0, [$1];");
        sb_printf(&out->cons, "=%c,l,~{memory}", ptx_reg(bits));
    } else {
        sb_puts(&out->text, "[$0], $1;");
        sb_printf(&out->cons, "l,%c,~{memory}", ptx_reg(bits));
    }
}

/* red takes only .relaxed/.release and has no cas/exch/inc-returning forms worth using. */
static bool ptx_red_ok(QdOp op, QdOrder order) {
    if (op == QOP_CAS || op == QOP_EXCHANGE) return false;
    return order == QORD_RELAXED || order == QORD_RELEASE;
}

bool ptx_spell_memop(QdOp op, QdType type, QdSpace space, QdOrder order, QdScope scope,
                     bool with_sem, bool noret, PtxInline *out) {
    sb_init(&out->text);
    sb_init(&out->cons);
    out->has_result = false;
    const char *sfx = ptx_type_suffix(op, type);
    if (!sfx) return false;
    int bits = qt_bits(type);
    if (op == QOP_LOAD || op == QOP_STORE) {
        ptx_spell_ldst(op, sfx, space, order, scope, with_sem, bits, out);
        return true;
    }
    bool red = noret && ptx_red_ok(op, order);
    sb_puts(&out->text, red ? "red" : "atom");
    if (with_sem) sb_printf(&out->text, ".%s", ptx_rmw_sem[order]);
    sb_printf(&out->text, ".%s.%s.%s.%s ", ptx_scope[scope], qspace_name(space), ptx_opname[op], sfx);
    char r = ptx_reg(bits);
    out->has_result = !red;
    if (red) {
        sb_puts(&out->text, "[$0], $1;");
        sb_printf(&out->cons, "l,%c,~{memory}", r);
    } else if (op == QOP_CAS) {
        sb_puts(&out->text, "$0, [$1], $2, $3;");
        sb_printf(&out->cons, "=%c,l,%c,%c,~{memory}", r, r, r);
    } else {
        sb_puts(&out->text, "$0, [$1], $2;");
        sb_printf(&out->cons, "=%c,l,%c,~{memory}", r, r);
    }
    return true;
}

void ptx_spell_fence(QdOrder order, QdScope scope, bool membar_only, StrBuf *out) {
    if (order == QORD_RELAXED) return;
    if (membar_only) sb_printf(out, "membar.%s;", ptx_membar[scope]);
    else sb_printf(out, "fence.%s.%s;", order == QORD_SEQ_CST ? "sc" : "acq_rel", ptx_scope[scope]);
}

void ptx_inline_free(PtxInline *p) {
    sb_free(&p->text);
    sb_free(&p->cons);
}

/* ---- NVPTX hooks ---- */

typedef struct {
    bool membar_only; /* some decision carries LOWF_MEMBAR_ORDERS: fences are membar */
} PtxState;

static LLVMValueRef nv_sreg(LlvmCg *cg, const char *reg) {
    char name[64];
    snprintf(name, sizeof name, "llvm.nvvm.read.ptx.sreg.%s", reg);
    return cg_call_intrinsic(cg, name, NULL, 0, NULL, 0);
}

static LLVMValueRef nv_inline(LlvmCg *cg, LLVMTypeRef ret, const char *text, const char *cons,
                              LLVMValueRef *args, unsigned n) {
    LLVMTypeRef tys[4];
    for (unsigned i = 0; i < n; i++) tys[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef fty = LLVMFunctionType(ret, tys, n, 0);
    LLVMValueRef fn = LLVMGetInlineAsm(fty, text, strlen(text), cons, strlen(cons), 1, 0,
                                       LLVMInlineAsmDialectATT, 0);
    return LLVMBuildCall2(cg->b, fty, fn, args, n, "");
}

/* sm_60 decisions (LOWF_MEMBAR_ORDERS) make every fence of the module a membar. */
static void nv_module_begin(LlvmCg *cg) {
    PtxState *st = xcalloc(1, sizeof *st);
    for (int i = 0; i < cg->low->nops; i++)
        if (cg->low->ops[i].flags & LOWF_MEMBAR_ORDERS) st->membar_only = true;
    cg->target_state = st;
}

static void nv_module_end(LlvmCg *cg) {
    free(cg->target_state);
    cg->target_state = NULL;
}

static void nv_annotate(LlvmCg *cg, LLVMValueRef fn, const char *key, int value) {
    LLVMValueRef md[3] = {fn, LLVMMDStringInContext(cg->ctx, key, (unsigned)strlen(key)), cg_i32(cg, value)};
    LLVMAddNamedMetadataOperand(cg->mod, "nvvm.annotations", LLVMMDNodeInContext(cg->ctx, md, 3));
}

/* blockIdx.x * blockDim.x + threadIdx.x */
static LLVMValueRef nv_global_thread_idx(LlvmCg *cg) {
    LLVMValueRef base = LLVMBuildMul(cg->b, nv_sreg(cg, "ctaid.x"), nv_sreg(cg, "ntid.x"), "");
    return LLVMBuildAdd(cg->b, base, nv_sreg(cg, "tid.x"), "gid");
}

/* blockDim.x * gridDim.x. nuw nsw: a grid has fewer than 2^31 threads (the ABI in gpu.h), so
 * LLVM may take the stride >= 1 and drop the loop of a one-iteration task. */
static LLVMValueRef nv_grid_stride(LlvmCg *cg) {
    LLVMValueRef step = LLVMBuildNUWMul(cg->b, nv_sreg(cg, "ntid.x"), nv_sreg(cg, "nctaid.x"), "stride");
    LLVMSetNSW(step, 1);
    return step;
}

/* range()'s extent max(x, 0) tested as x: the loop runs while 0 <= i < extent, the same
 * iterations, one max.s32 and its register fewer. */
static const IrExpr *nv_unclamped_extent(const IrExpr *e) {
    if (e->kind == IR_BINARY && e->bin.op == IR_MAX && e->bin.b->kind == IR_CONST && e->bin.b->c.i == 0)
        return e->bin.a;
    return e;
}

static void nv_emit_task(LlvmCg *cg, const IrKernel *k, int ti) {
    const IrTask *t = &k->tasks[ti];
    unsigned n = gpu_param_count(k);
    LLVMTypeRef *tys = xcalloc(n ? n : 1, sizeof *tys);
    gpu_param_types(cg, k, tys);
    cg->fn = cg_add_function(cg, cg_task_symbol(t), LLVMVoidTypeInContext(cg->ctx), tys, n);
    free(tys);
    nv_annotate(cg, cg->fn, "kernel", 1);
    nv_annotate(cg, cg->fn, t->block_dim > 0 ? "reqntidx" : "maxntidx", gpu_block_dim(cg, t));
    cg_task_begin(cg, k, ti);
    gpu_bind_params(cg, k, cg->fn);
    LLVMValueRef gid = nv_global_thread_idx(cg);
    if (t->kind == IR_TASK_PARALLEL) {
        cg_emit_strided_loop(cg, gid, cg_expr(cg, nv_unclamped_extent(t->extent)), nv_grid_stride(cg));
    } else {
        gpu_serial_body(cg, gid);
    }
    cg_task_end(cg);
    LLVMBuildRetVoid(cg->b);
}

static LLVMValueRef nv_thread_idx(LlvmCg *cg) { return nv_sreg(cg, "tid.x"); }
static void nv_barrier(LlvmCg *cg) { cg_call_intrinsic(cg, "llvm.nvvm.barrier0", NULL, 0, NULL, 0); }

static bool nv_membar_only(LlvmCg *cg) { return ((PtxState *)cg->target_state)->membar_only; }

static void nv_emit_fence(LlvmCg *cg, QdOrder order, QdScope scope, bool membar) {
    StrBuf s;
    sb_init(&s);
    ptx_spell_fence(order, scope, membar, &s);
    if (s.len) nv_inline(cg, LLVMVoidTypeInContext(cg->ctx), s.data, "~{memory}", NULL, 0);
    sb_free(&s);
}

static void nv_fence(LlvmCg *cg, QdOrder order, QdScope scope) {
    nv_emit_fence(cg, order, scope, nv_membar_only(cg));
}

/* Orders stronger than relaxed: sm_70+ writes them into the instruction (seq_cst as fence.sc
 * + acq_rel); sm_60 (LOWF_MEMBAR_ORDERS) brackets a relaxed instruction with membar, unless the
 * core already emits the decision's fence_before/fence_after. */
static bool ord_releases(QdOrder o) { return o == QORD_RELEASE || o == QORD_ACQ_REL || o == QORD_SEQ_CST; }
static bool ord_acquires(QdOrder o) { return o == QORD_ACQUIRE || o == QORD_ACQ_REL || o == QORD_SEQ_CST; }

static void nv_fence_pre(LlvmCg *cg, const IrLowering *low) {
    if (low->fence_before) return;
    if (low->flags & LOWF_MEMBAR_ORDERS) {
        if (ord_releases(low->order)) nv_emit_fence(cg, QORD_SEQ_CST, low->scope, true);
    } else if (low->order == QORD_SEQ_CST) {
        nv_emit_fence(cg, QORD_SEQ_CST, low->scope, false);
    }
}

static void nv_fence_post(LlvmCg *cg, const IrLowering *low) {
    if (!low->fence_after && (low->flags & LOWF_MEMBAR_ORDERS) && ord_acquires(low->order))
        nv_emit_fence(cg, QORD_SEQ_CST, low->scope, true);
}

/* Inline asm is needed unless the op is a plain relaxed device-scope one LLVM emits itself. */
static bool nv_needs_inline(const CgAtomic *a, QdOp op) {
    const IrLowering *low = a->low;
    bool sem = !(low->flags & LOWF_MEMBAR_ORDERS);
    if (op == QOP_INC || op == QOP_DEC) return true; /* LLVM makes uinc_wrap a CAS loop */
    if (op == QOP_CAS && qt_bits(a->qt) < 32) return true; /* LLVM 19 widens it to a masked 32-bit loop */
    if (low->no_return && (op != QOP_CAS && op != QOP_EXCHANGE)) return true; /* red */
    if (low->scope != QSCOPE_DEVICE) return true;
    if (sem && low->order != QORD_RELAXED) return true;
    return (a->qt == QT_F16 || a->qt == QT_BF16) && op == QOP_ADD;
}

static LLVMValueRef nv_to_bits(LlvmCg *cg, LLVMValueRef v) {
    LLVMTypeRef t = LLVMTypeOf(v);
    if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind) return v;
    unsigned bits = (unsigned)LLVMSizeOfTypeInBits(LLVMGetModuleDataLayout(cg->mod), t);
    return LLVMBuildBitCast(cg->b, v, LLVMIntTypeInContext(cg->ctx, bits), "");
}

/* Emits the inline PTX for `op` on a->ptr with value operands vals; returns the old value as
 * a->ty (undef for red / store). */
static LLVMValueRef nv_emit_inline(LlvmCg *cg, const CgAtomic *a, QdOp op, LLVMValueRef *vals, unsigned nv) {
    const IrLowering *low = a->low;
    bool sem = !(low->flags & LOWF_MEMBAR_ORDERS);
    QdOrder order = sem ? low->order : QORD_RELAXED;
    PtxInline pi;
    if (!ptx_spell_memop(op, a->qt, a->space, order, low->scope, sem && order != QORD_RELAXED,
                         low->no_return, &pi))
        die("no PTX instruction for %s on %s (nv_native_ok let it through)", qop_name(op), qt_name(a->qt));
    LLVMValueRef args[4] = {a->ptr};
    for (unsigned i = 0; i < nv; i++) args[1 + i] = nv_to_bits(cg, vals[i]);
    LLVMTypeRef ity = LLVMIntTypeInContext(cg->ctx, (unsigned)qt_bits(a->qt));
    LLVMTypeRef ret = pi.has_result ? ity : LLVMVoidTypeInContext(cg->ctx);
    nv_fence_pre(cg, low);
    LLVMValueRef r = nv_inline(cg, ret, pi.text.data, pi.cons.data, args, 1 + nv);
    nv_fence_post(cg, low);
    ptx_inline_free(&pi);
    if (!pi.has_result) return LLVMGetUndef(a->ty);
    return LLVMTypeOf(r) == a->ty ? r : LLVMBuildBitCast(cg->b, r, a->ty, "");
}

/* LLVM may only see relaxed instructions: a monotonic copy of the decision, bracketed by the
 * fences the original order needs (membar on sm_60). */
static LLVMValueRef nv_default(LlvmCg *cg, const CgAtomic *a, QdOp op, LLVMValueRef desired) {
    IrLowering tmp = *a->low;
    tmp.order = QORD_RELAXED;
    CgAtomic r = *a;
    r.low = &tmp;
    /* an ordered op LLVM emits relaxed (a cas the family has no instruction for, e.g. 8-bit):
     * keep the order with fences around it */
    bool fenced = !(a->low->flags & LOWF_MEMBAR_ORDERS) && a->low->order != QORD_RELAXED;
    if (fenced && ord_releases(a->low->order) && !a->low->fence_before)
        nv_emit_fence(cg, QORD_ACQ_REL, a->low->scope, false);
    nv_fence_pre(cg, a->low);
    LLVMValueRef v = NULL;
    switch (op) {
    case QOP_CAS: v = cg_default_cmpxchg(cg, &r, desired); break;
    case QOP_LOAD: v = cg_default_atomic_load(cg, &r); break;
    case QOP_STORE: cg_default_atomic_store(cg, &r); break;
    default: v = cg_default_rmw(cg, &r); break;
    }
    nv_fence_post(cg, a->low);
    if (fenced && ord_acquires(a->low->order)) nv_emit_fence(cg, QORD_ACQ_REL, a->low->scope, false);
    return v;
}

/* A native decision is an instruction; one PTX has no spelling for is the database's error. */
static bool nv_native_ok(LlvmCg *cg, const CgAtomic *a, QdOp op) {
    if (ptx_type_suffix(op, a->qt)) return true;
    const IrLowering *low = a->low;
    diag_error(cap_where_line(cg->cap, low->reason_file, low->reason_line), QD3014,
               "%s of '%s' calls %s on %s native, but PTX has no instruction for it (PTX ISA: %s)",
               low->reason_key ? low->reason_key : "a cell", cap_name(cg->cap), qop_name(op), qt_name(a->qt),
               op == QOP_LOAD || op == QOP_STORE ? "ld/st" : "atom");
    return false;
}

static LLVMValueRef nv_native_rmw(LlvmCg *cg, const CgAtomic *a) {
    QdOp op = a->low->op;
    if (!nv_native_ok(cg, a, op)) return LLVMGetUndef(a->ty);
    if (nv_needs_inline(a, op)) return nv_emit_inline(cg, a, op, (LLVMValueRef[]){a->val}, 1);
    return nv_default(cg, a, op, NULL);
}

static LLVMValueRef nv_cmpxchg(LlvmCg *cg, const CgAtomic *a, LLVMValueRef desired) {
    bool native = a->low->kind == LOW_NATIVE;
    if (native && !nv_native_ok(cg, a, QOP_CAS)) return LLVMGetUndef(a->ty);
    /* a loop's cas: inline where the database has it and PTX spells it, else LLVM's (masked) one */
    bool loop_cas = a->low->loop_cas_native && ptx_type_suffix(QOP_CAS, a->qt);
    if (nv_needs_inline(a, QOP_CAS) && (native || loop_cas))
        return nv_emit_inline(cg, a, QOP_CAS, (LLVMValueRef[]){a->val, desired}, 2);
    return nv_default(cg, a, QOP_CAS, desired);
}

/* Relaxed loads/stores are ld/st.volatile (LLVM's monotonic form: relaxed at system scope, so
 * never weaker than asked); acquire/release are inline ld.acquire/st.release where the order is
 * the instruction's (sm_70+, every width the database calls native: b8 to b64). */
static bool nv_ldst_inline(const CgAtomic *a) {
    return a->low->kind == LOW_NATIVE && !(a->low->flags & LOWF_MEMBAR_ORDERS) && a->low->order != QORD_RELAXED;
}

static LLVMValueRef nv_atomic_load(LlvmCg *cg, const CgAtomic *a) {
    if (nv_ldst_inline(a)) return nv_native_ok(cg, a, QOP_LOAD) ? nv_emit_inline(cg, a, QOP_LOAD, NULL, 0) : LLVMGetUndef(a->ty);
    return nv_default(cg, a, QOP_LOAD, NULL);
}

static void nv_atomic_store(LlvmCg *cg, const CgAtomic *a) {
    if (!nv_ldst_inline(a)) nv_default(cg, a, QOP_STORE, NULL);
    else if (nv_native_ok(cg, a, QOP_STORE)) nv_emit_inline(cg, a, QOP_STORE, (LLVMValueRef[]){a->val}, 1);
}

/* The operand of the first `directive` line of PTX text (".version", ".target"), or NULL. */
static char *ptx_directive(const char *ptx, const char *directive) {
    size_t n = strlen(directive);
    for (const char *l = ptx; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (!strncmp(l, directive, n) && l[n] == ' ') {
            const char *v = l + n + 1, *e = v;
            while (*e && *e != '\n' && *e != ' ' && *e != ',') e++;
            return xstrndup(v, (size_t)(e - v));
        }
    return NULL;
}

/* The database's ptx.isa and ptx.sm state the PTX ISA version and the .target of a family's PTX;
 * LLVM derives both from llvm.features (+ptxNN) and llvm.cpu. A family whose facts disagree
 * with the text LLVM wrote is QD3013 at the database line, and nothing is written. */
static bool nv_check_directives(LlvmCg *cg, const char *ptx) {
    static const struct { const char *key, *directive; } facts[] = {{"ptx.isa", ".version"}, {"ptx.sm", ".target"}};
    bool ok = true;
    for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++) {
        const char *key = facts[i].key, *fkey = "llvm.features";
        bool vec = cg->low && cg->low->nvector; /* a module with vector atomics: their own facts */
        if (i == 0 && vec && cap_str(cg->cap, "vector_atomics.ptx_isa")) key = "vector_atomics.ptx_isa";
        if (vec && cap_str(cg->cap, "vector_atomics.llvm_features")) fkey = "vector_atomics.llvm_features";
        const char *want = cap_str(cg->cap, key), *features = cap_str(cg->cap, fkey);
        char *got = ptx_directive(ptx, facts[i].directive);
        if (want && (!got || strcmp(got, want))) {
            diag_error(cap_where(cg->cap, key), QD3013, "%s of '%s' is '%s', but LLVM wrote PTX '%s %s' (from llvm.cpu '%s', %s '%s')",
                       key, cap_name(cg->cap), want, facts[i].directive, got ? got : "(none)",
                       cap_str(cg->cap, "llvm.cpu"), fkey, features ? features : "");
            ok = false;
        }
        free(got);
    }
    return ok;
}

/* PTX text is LLVM's assembly output, checked against the database's ptx.isa and ptx.sm. */
static bool nv_emit_artifact(LlvmCg *cg, EmitKind kind, StrBuf *out) {
    if (kind != EMIT_PTX && kind != EMIT_ASM) return machine_emit(cg, kind, out);
    StrBuf ptx;
    sb_init(&ptx);
    bool ok = machine_emit(cg, EMIT_ASM, &ptx) && nv_check_directives(cg, ptx.data ? ptx.data : "");
    if (ok) sb_append(out, ptx.data, ptx.len);
    sb_free(&ptx);
    return ok;
}

/* CUDA's device printf: vprintf(fmt, buffer of the arguments at their natural alignment). */
static void nv_print(LlvmCg *cg, const char *fmt, LLVMValueRef *args, int nargs) {
    LLVMTypeRef tys[32], p = cg_ptr(cg, 0), i32 = LLVMInt32TypeInContext(cg->ctx);
    for (int i = 0; i < nargs; i++) tys[i] = LLVMTypeOf(args[i]);
    LLVMValueRef buf = LLVMConstNull(p);
    if (nargs) {
        LLVMTypeRef st = LLVMStructTypeInContext(cg->ctx, tys, (unsigned)nargs, 0);
        LLVMBuilderRef eb = LLVMCreateBuilderInContext(cg->ctx); /* a static alloca: in the entry block */
        LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(cg->fn);
        LLVMValueRef first = LLVMGetFirstInstruction(entry);
        if (first) LLVMPositionBuilderBefore(eb, first);
        else LLVMPositionBuilderAtEnd(eb, entry);
        buf = LLVMBuildAlloca(eb, st, "qdc.printf.args");
        LLVMDisposeBuilder(eb);
        for (int i = 0; i < nargs; i++) LLVMBuildStore(cg->b, args[i], LLVMBuildStructGEP2(cg->b, st, buf, (unsigned)i, ""));
    }
    LLVMValueRef call_args[2] = {LLVMBuildGlobalStringPtr(cg->b, fmt, "qdc.fmt"), buf};
    LLVMTypeRef params[2] = {p, p};
    cg_call_extern(cg, "vprintf", i32, params, 2, call_args);
}

/* CUDA's device assert: __assertfail prints the message with the block and thread and traps;
 * the launch then fails with CUDA_ERROR_ASSERT. */
static void nv_assert_fail(LlvmCg *cg, const char *msg) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx), i64 = LLVMInt64TypeInContext(cg->ctx), p = cg_ptr(cg, 0);
    LLVMTypeRef params[5] = {p, p, i32, p, i64};
    LLVMValueRef args[5] = {LLVMBuildGlobalStringPtr(cg->b, msg, "qdc.assert"), LLVMBuildGlobalStringPtr(cg->b, "", "qdc.file"),
                            LLVMConstInt(i32, 0, 0), LLVMBuildGlobalStringPtr(cg->b, cg_task_symbol(cg->task), "qdc.func"),
                            LLVMConstInt(i64, 1, 0)};
    cg_call_extern(cg, "__assertfail", LLVMVoidTypeInContext(cg->ctx), params, 5, args);
    cg_call_intrinsic(cg, "llvm.trap", NULL, 0, NULL, 0);
}

/* One 32-bit or 64-bit value from another lane of the lanes in mask (64-bit as two shuffles):
 * shfl.sync.idx reads lane `src`, shfl.sync.bfly lane (this lane ^ src). */
static LLVMValueRef nv_shfl(LlvmCg *cg, const char *mode, QdType t, LLVMValueRef mask, LLVMValueRef v, LLVMValueRef src) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx), i64 = LLVMInt64TypeInContext(cg->ctx), ty = LLVMTypeOf(v);
    char name[40];
    if (qt_bits(t) == 32) {
        LLVMValueRef args[4] = {mask, v, src, cg_i32(cg, 31)};
        snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.%s", mode, qt_is_float(t) ? "f32" : "i32");
        return cg_call_intrinsic(cg, name, NULL, 0, args, 4);
    }
    snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.i32", mode);
    LLVMValueRef w = qt_is_float(t) ? LLVMBuildBitCast(cg->b, v, i64, "") : v, half[2];
    for (int h = 0; h < 2; h++) {
        LLVMValueRef part = LLVMBuildTrunc(cg->b, h ? LLVMBuildLShr(cg->b, w, LLVMConstInt(i64, 32, 0), "") : w, i32, "");
        LLVMValueRef args[4] = {mask, part, src, cg_i32(cg, 31)};
        half[h] = LLVMBuildZExt(cg->b, cg_call_intrinsic(cg, name, NULL, 0, args, 4), i64, "");
    }
    LLVMValueRef r = LLVMBuildOr(cg->b, half[0], LLVMBuildShl(cg->b, half[1], LLVMConstInt(i64, 32, 0), ""), "");
    return qt_is_float(t) ? LLVMBuildBitCast(cg->b, r, ty, "") : r;
}

/* The full-warp fast path (database key rewrite.full_warp: shfl.sync.bfly): when activemask is
 * all 32 lanes, every lane of the warp executes the same branch, so a butterfly of shfl.sync.bfly
 * over the full mask (five steps, every lane ends with the warp's total) is exact, and lane 0
 * issues the one atomic. Any other mask (a partial warp, lanes not reconverged after the loop)
 * leaves each lane its own partial and its own atomic: correct for every mask, at the price of
 * one atomic per lane in such warps only. */
static LLVMValueRef nv_reduce_full_warp(LlvmCg *cg, QdOp op, QdType t, LLVMValueRef v, LLVMValueRef mask,
                                        LLVMValueRef *leader) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx);
    LLVMValueRef all = LLVMConstInt(i32, 0xffffffffu, 0), full = LLVMBuildICmp(cg->b, LLVMIntEQ, mask, all, "");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(cg->b), warp = cg_block(cg, "reduce.warp"), join = cg_block(cg, "reduce.lanes");
    LLVMBuildCondBr(cg->b, full, warp, join);
    LLVMPositionBuilderAtEnd(cg->b, warp);
    LLVMValueRef r = v;
    for (int d = 16; d >= 1; d >>= 1) r = cg_apply_op(cg, op, t, r, nv_shfl(cg, "bfly", t, all, r, cg_i32(cg, d)));
    LLVMBasicBlockRef warp_end = LLVMGetInsertBlock(cg->b);
    LLVMBuildBr(cg->b, join);
    LLVMPositionBuilderAtEnd(cg->b, join);
    LLVMValueRef phi = LLVMBuildPhi(cg->b, LLVMTypeOf(v), "reduce.value");
    LLVMAddIncoming(phi, &r, &warp_end, 1);
    LLVMAddIncoming(phi, &v, &pre, 1);
    LLVMValueRef lane0 = LLVMBuildICmp(cg->b, LLVMIntEQ, nv_sg_lane(cg), cg_i32(cg, 0), "");
    *leader = LLVMBuildOr(cg->b, LLVMBuildNot(cg->b, full, ""), lane0, "");
    return phi;
}

/* The partials of the lanes active at the flush (activemask: after the grid-stride loop every
 * lane that reached it, also in a partial warp or when lanes have not reconverged, each group
 * reducing its own members), led by the lowest of them. i32/u32 on families whose simt.reduce
 * is redux.sync: one redux.sync. Otherwise (64-bit integers, f32/f64 add, sm_60-sm_75) the
 * full-warp butterfly where the database has it (nv_reduce_full_warp), else a tree
 * over the lanes' ranks among the active ones, which works for any mask: at step d = 1, 2, 4,
 * 8, 16 a lane adds the value of the active lane d ranks above it (fns.b32 finds it, shfl.sync.idx
 * over the mask reads it), if there is one; the lowest lane ends with the sum of all. */
static LLVMValueRef nv_reduce_subgroup(LlvmCg *cg, QdOp op, QdType t, LLVMValueRef v, LLVMValueRef *leader) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx);
    if (!cg->flush_mask) cg->flush_mask = cg_call_intrinsic(cg, "llvm.nvvm.activemask", NULL, 0, NULL, 0);
    LLVMValueRef mask = cg->flush_mask, r;
    const char *simt_reduce = cap_str(cg->cap, "simt.reduce"), *full_warp = cap_str(cg->cap, "rewrite.full_warp");
    if ((t == QT_I32 || t == QT_U32) && simt_reduce && !strcmp(simt_reduce, "redux.sync")) {
        bool s = t == QT_I32;
        const char *name = op == QOP_ADD ? "llvm.nvvm.redux.sync.add"
                           : op == QOP_MIN ? (s ? "llvm.nvvm.redux.sync.min" : "llvm.nvvm.redux.sync.umin")
                           : op == QOP_MAX ? (s ? "llvm.nvvm.redux.sync.max" : "llvm.nvvm.redux.sync.umax")
                           : op == QOP_AND ? "llvm.nvvm.redux.sync.and"
                           : op == QOP_OR  ? "llvm.nvvm.redux.sync.or"
                                           : "llvm.nvvm.redux.sync.xor";
        LLVMValueRef args[2] = {v, mask};
        r = cg_call_intrinsic(cg, name, NULL, 0, args, 2);
    } else if (full_warp && !strcmp(full_warp, "shfl.sync.bfly")) {
        return nv_reduce_full_warp(cg, op, t, v, mask, leader);
    } else {
        LLVMValueRef lane = nv_sg_lane(cg);
        r = v;
        for (int d = 1; d < 32; d <<= 1) {
            LLVMValueRef fa[3] = {mask, lane, cg_i32(cg, d + 1)};
            LLVMValueRef src = cg_call_intrinsic(cg, "llvm.nvvm.fns", NULL, 0, fa, 3);
            LLVMValueRef has = LLVMBuildICmp(cg->b, LLVMIntNE, src, LLVMConstInt(i32, 0xffffffffu, 0), "");
            LLVMValueRef got = nv_shfl(cg, "idx", t, mask, r, LLVMBuildSelect(cg->b, has, src, lane, "")); /* a lane in mask */
            r = LLVMBuildSelect(cg->b, has, cg_apply_op(cg, op, t, r, got), r, "");
        }
    }
    LLVMValueRef cz[2] = {mask, LLVMConstInt(LLVMInt1TypeInContext(cg->ctx), 1, 0)};
    LLVMValueRef lowest = cg_call_intrinsic(cg, "llvm.cttz", &i32, 1, cz, 2);
    *leader = LLVMBuildICmp(cg->b, LLVMIntEQ, nv_sg_lane(cg), lowest, "");
    return r;
}

/* Warp-aggregated atomic: the lanes active here (activemask) add count * v with one atom on the
 * lowest of them, which shares the old value (shfl.sync over the same mask); lane k of them
 * gets old + k * v, as if their atomics ran in lane order. */
static LLVMValueRef nv_aggregate_subgroup(LlvmCg *cg, const IrExpr *e, LLVMValueRef v) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx);
    const IrLowering *low = ir_low_memop(cg->low, e);
    LLVMValueRef mask = cg_call_intrinsic(cg, "llvm.nvvm.activemask", NULL, 0, NULL, 0);
    LLVMValueRef lt = cg_call_intrinsic(cg, "llvm.nvvm.read.ptx.sreg.lanemask.lt", NULL, 0, NULL, 0);
    LLVMValueRef count = cg_call_intrinsic(cg, "llvm.ctpop", &i32, 1, &mask, 1);
    LLVMValueRef below = LLVMBuildAnd(cg->b, mask, lt, "");
    LLVMValueRef rank = cg_call_intrinsic(cg, "llvm.ctpop", &i32, 1, &below, 1);
    LLVMValueRef cz[2] = {mask, LLVMConstInt(LLVMInt1TypeInContext(cg->ctx), 1, 0)};
    LLVMValueRef lowest = cg_call_intrinsic(cg, "llvm.cttz", &i32, 1, cz, 2);
    LLVMValueRef leader = LLVMBuildICmp(cg->b, LLVMIntEQ, rank, cg_i32(cg, 0), ""); /* no active lane below */
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(cg->b), one = cg_block(cg, "aggr.atomic"), join = cg_block(cg, "aggr.done");
    LLVMBuildCondBr(cg->b, leader, one, join);
    LLVMPositionBuilderAtEnd(cg->b, one);
    LLVMValueRef old = cg_memop_with(cg, e, LLVMBuildMul(cg->b, v, count, ""));
    LLVMBasicBlockRef one_end = LLVMGetInsertBlock(cg->b);
    LLVMBuildBr(cg->b, join);
    LLVMPositionBuilderAtEnd(cg->b, join);
    LLVMValueRef phi = LLVMBuildPhi(cg->b, i32, "aggr.old");
    LLVMValueRef zero = cg_i32(cg, 0);
    LLVMAddIncoming(phi, &old, &one_end, 1);
    LLVMAddIncoming(phi, &zero, &pre, 1);
    LLVMValueRef args[4] = {mask, phi, lowest, cg_i32(cg, 31)};
    LLVMValueRef base = cg_call_intrinsic(cg, "llvm.nvvm.shfl.sync.idx.i32", NULL, 0, args, 4);
    LLVMValueRef off = LLVMBuildMul(cg->b, rank, v, "");
    return low->op == QOP_SUB ? LLVMBuildSub(cg->b, base, off, "") : LLVMBuildAdd(cg->b, base, off, "");
}

const LlvmTarget llvm_target_nvptx = {
    .backend = "ptx",
    .as_global = 1,
    .as_shared = 3,
    .module_begin = nv_module_begin,
    .emit_task = nv_emit_task,
    .module_end = nv_module_end,
    .emit_artifact = nv_emit_artifact,
    .shared_base = gpu_shared_base,
    .thread_idx = nv_thread_idx,
    .barrier = nv_barrier,
    .global_thread_idx = nv_global_thread_idx,
    .sg_lane = nv_sg_lane,
    .sg_shuffle = nv_sg_shuffle,
    .sg_ballot = nv_sg_ballot,
    .sg_sync = nv_sg_sync,
    .sg_native = nv_sg_native,
    .reduce_subgroup = nv_reduce_subgroup,
    .aggregate_subgroup = nv_aggregate_subgroup,
    .fence = nv_fence,
    .native_rmw = nv_native_rmw,
    .cmpxchg = nv_cmpxchg,
    .atomic_load = nv_atomic_load,
    .atomic_store = nv_atomic_store,
    .vector_rmw = nv_vector_rmw,
    .volatile_load = NULL, /* load volatile -> ld.volatile.global */
    .print = nv_print,
    .assert_fail = nv_assert_fail,
};
