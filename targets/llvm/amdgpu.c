/* The AMDGPU target: amdgpu_kernel entries, dispatch-packet thread indexing, LDS, barriers and
 * every atomic with its syncscope. The LLVM 19 C API cannot set a syncscope, so each scoped
 * instruction is cloned from a one-instruction template parsed from IR text (lowering.md §5 B).
 * Atomic optimizer policy: LLVM's default (wave-reduce uniform-address atomics) is kept; it
 * never turns a native atomic into a compare-and-swap loop, which is what qdc promises. */
#include "gpu.h"
#include <llvm-c/IRReader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { TM_RMW, TM_CMPXCHG, TM_LOAD, TM_STORE, TM_FENCE } TmplKind;

typedef struct Tmpl {
    char *key;
    LLVMModuleRef mod;
    LLVMValueRef inst;
} Tmpl;

typedef struct AmdState {
    VEC(Tmpl) tmpls;
} AmdState;

static const char *const amd_scope[QSCOPE_COUNT] = {
    [QSCOPE_BLOCK] = "workgroup", [QSCOPE_CLUSTER] = "agent", [QSCOPE_DEVICE] = "agent", [QSCOPE_SYSTEM] = "",
};

const char *amdgpu_syncscope(QdScope s) { return amd_scope[s]; }

static AmdState *amd_state(LlvmCg *cg) { return cg->target_state; }

/* ---- templates ---- */

/* The IR text of a one-instruction function for (kind, type, address space, scope). */
static char *tmpl_text(TmplKind kind, const char *ty, unsigned as, const char *scope) {
    char ss[48] = "";
    if (*scope) snprintf(ss, sizeof ss, " syncscope(\"%s\")", scope);
    const char *sig = "define void @t(ptr addrspace(%u) %%p, %s %%v, %s %%w) {\n";
    StrBuf b;
    sb_init(&b);
    if (kind == TM_FENCE) sb_puts(&b, "define void @t() {\n");
    else sb_printf(&b, sig, as, ty, ty);
    switch (kind) {
    case TM_RMW: sb_printf(&b, "  %%r = atomicrmw xchg ptr addrspace(%u) %%p, %s %%v%s monotonic\n", as, ty, ss); break;
    case TM_CMPXCHG:
        sb_printf(&b, "  %%r = cmpxchg ptr addrspace(%u) %%p, %s %%v, %s %%w%s monotonic monotonic\n", as, ty, ty, ss);
        break;
    case TM_LOAD: sb_printf(&b, "  %%r = load atomic %s, ptr addrspace(%u) %%p%s monotonic, align 1\n", ty, as, ss); break;
    case TM_STORE: sb_printf(&b, "  store atomic %s %%v, ptr addrspace(%u) %%p%s monotonic, align 1\n", ty, as, ss); break;
    case TM_FENCE: sb_printf(&b, "  fence%s seq_cst\n", ss); break;
    }
    sb_puts(&b, "  ret void\n}\n");
    return sb_take(&b);
}

/* The template instruction for the key, parsed once per module into cg->ctx. */
static LLVMValueRef tmpl_get(LlvmCg *cg, TmplKind kind, LLVMTypeRef ty, unsigned as, QdScope scope) {
    char *tyname = ty ? LLVMPrintTypeToString(ty) : NULL;
    char *text = tmpl_text(kind, tyname ? tyname : "", as, amd_scope[scope]);
    if (tyname) LLVMDisposeMessage(tyname);
    AmdState *st = amd_state(cg);
    for (int i = 0; i < st->tmpls.len; i++) {
        if (strcmp(st->tmpls.items[i].key, text)) continue;
        free(text);
        return st->tmpls.items[i].inst;
    }
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(text, strlen(text), "qdc-amdgpu-template");
    Tmpl t = {text, NULL, NULL};
    char *msg = NULL;
    if (LLVMParseIRInContext(cg->ctx, buf, &t.mod, &msg)) die("AMDGPU template does not parse: %s\n%s", msg, text);
    t.inst = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(LLVMGetNamedFunction(t.mod, "t")));
    vec_push(&st->tmpls, t);
    return t.inst;
}

/* Clones the template into the current block and re-points its operands. */
static LLVMValueRef tmpl_emit(LlvmCg *cg, LLVMValueRef tmpl, LLVMValueRef *ops, unsigned nops) {
    LLVMValueRef c = LLVMInstructionClone(tmpl);
    LLVMInsertIntoBuilderWithName(cg->b, c, "");
    for (unsigned i = 0; i < nops; i++) LLVMSetOperand(c, i, ops[i]);
    return c;
}

static unsigned amd_as(LlvmCg *cg, QdSpace s) {
    return s == QSPACE_SHARED ? cg->tgt->as_shared : cg->tgt->as_global;
}

/* A cmpxchg failure ordering may not release. */
static LLVMAtomicOrdering amd_failure_order(QdOrder o) {
    switch (o) {
    case QORD_RELEASE: return LLVMAtomicOrderingMonotonic;
    case QORD_ACQ_REL: return LLVMAtomicOrderingAcquire;
    default: return cg_ordering(o);
    }
}

/* ---- memory operation hooks ---- */

static void amd_str_attr(LlvmCg *cg, LLVMValueRef fn, const char *k, const char *v) {
    LLVMAttributeRef a = LLVMCreateStringAttribute(cg->ctx, k, (unsigned)strlen(k), v, (unsigned)strlen(v));
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, a);
}

/* "amdgpu-unsafe-fp-atomics" goes on the entry that holds a decision carrying the flag (the
 * database allowed it: coarse-grained memory asserted), never module-wide, so a float op the
 * database left as a CAS loop in another task is not made native behind its back. */
static void amd_note_flags(LlvmCg *cg, const IrLowering *low) {
    if (low->flags & LOWF_UNSAFE_FP_ATOMICS) amd_str_attr(cg, cg->fn, "amdgpu-unsafe-fp-atomics", "true");
}

static LLVMValueRef amd_native_rmw(LlvmCg *cg, const CgAtomic *a) {
    amd_note_flags(cg, a->low);
    LLVMValueRef t = tmpl_get(cg, TM_RMW, a->ty, amd_as(cg, a->space), a->low->scope);
    LLVMValueRef c = tmpl_emit(cg, t, (LLVMValueRef[]){a->ptr, a->val}, 2);
    LLVMSetAtomicRMWBinOp(c, a->rmw);
    LLVMSetOrdering(c, cg_ordering(a->low->order));
    LLVMSetAlignment(c, cg_align(a->qt));
    return c;
}

static LLVMValueRef amd_cmpxchg(LlvmCg *cg, const CgAtomic *a, LLVMValueRef desired) {
    amd_note_flags(cg, a->low);
    LLVMValueRef t = tmpl_get(cg, TM_CMPXCHG, a->ty, amd_as(cg, a->space), a->low->scope);
    LLVMValueRef c = tmpl_emit(cg, t, (LLVMValueRef[]){a->ptr, a->val, desired}, 3);
    LLVMSetCmpXchgSuccessOrdering(c, cg_ordering(a->low->order));
    LLVMSetCmpXchgFailureOrdering(c, amd_failure_order(a->low->order));
    LLVMSetAlignment(c, cg_align(a->qt));
    return LLVMBuildExtractValue(cg->b, c, 0, "old");
}

static LLVMValueRef amd_atomic_load(LlvmCg *cg, const CgAtomic *a) {
    LLVMValueRef t = tmpl_get(cg, TM_LOAD, a->ty, amd_as(cg, a->space), a->low->scope);
    LLVMValueRef c = tmpl_emit(cg, t, (LLVMValueRef[]){a->ptr}, 1);
    LLVMSetOrdering(c, cg_ordering(a->low->order));
    LLVMSetAlignment(c, cg_align(a->qt));
    return c;
}

static void amd_atomic_store(LlvmCg *cg, const CgAtomic *a) {
    LLVMValueRef t = tmpl_get(cg, TM_STORE, a->ty, amd_as(cg, a->space), a->low->scope);
    LLVMValueRef c = tmpl_emit(cg, t, (LLVMValueRef[]){a->val, a->ptr}, 2);
    LLVMSetOrdering(c, cg_ordering(a->low->order));
    LLVMSetAlignment(c, cg_align(a->qt));
}

static void amd_fence(LlvmCg *cg, QdOrder order, QdScope scope) {
    if (order == QORD_RELAXED) return;
    LLVMValueRef c = tmpl_emit(cg, tmpl_get(cg, TM_FENCE, NULL, 0, scope), NULL, 0);
    LLVMSetOrdering(c, cg_ordering(order));
}

/* ---- kernel structure ---- */

static LLVMValueRef amd_intrin(LlvmCg *cg, const char *name) {
    return cg_call_intrinsic(cg, name, NULL, 0, NULL, 0);
}

static LLVMValueRef amd_thread_idx(LlvmCg *cg) { return amd_intrin(cg, "llvm.amdgcn.workitem.id.x"); }

/* A field of the HSA kernel dispatch packet (workgroup_size_x at 4, grid_size_x at 12): valid
 * for every code object version, unlike the v5 implicit arguments. */
static LLVMValueRef amd_dispatch_field(LlvmCg *cg, unsigned off, unsigned bits) {
    LLVMValueRef p = amd_intrin(cg, "llvm.amdgcn.dispatch.ptr");
    LLVMValueRef at = LLVMBuildGEP2(cg->b, LLVMInt8TypeInContext(cg->ctx), p, (LLVMValueRef[]){cg_i64(cg, off)}, 1, "");
    LLVMTypeRef ty = LLVMIntTypeInContext(cg->ctx, bits);
    LLVMValueRef v = LLVMBuildLoad2(cg->b, ty, at, "");
    LLVMSetAlignment(v, bits / 8);
    return bits == 32 ? v : LLVMBuildZExt(cg->b, v, LLVMInt32TypeInContext(cg->ctx), "");
}

static LLVMValueRef amd_global_thread_idx(LlvmCg *cg) {
    LLVMValueRef wg = amd_intrin(cg, "llvm.amdgcn.workgroup.id.x");
    LLVMValueRef base = LLVMBuildMul(cg->b, wg, amd_dispatch_field(cg, 4, 16), "");
    return LLVMBuildAdd(cg->b, base, amd_thread_idx(cg), "gid");
}

/* qd.simt.block.sync(): what HIP's __syncthreads() is -- release fence, s_barrier, acquire. */
static void amd_barrier(LlvmCg *cg) {
    amd_fence(cg, QORD_RELEASE, QSCOPE_BLOCK);
    amd_intrin(cg, "llvm.amdgcn.s.barrier");
    amd_fence(cg, QORD_ACQUIRE, QSCOPE_BLOCK);
}

static void amd_kernel_attrs(LlvmCg *cg, LLVMValueRef fn, const IrTask *t) {
    LLVMSetFunctionCallConv(fn, LLVMAMDGPUKERNELCallConv);
    int bd = gpu_block_dim(cg, t);
    char size[32];
    snprintf(size, sizeof size, "%d,%d", t->block_dim > 0 ? bd : 1, bd);
    amd_str_attr(cg, fn, "amdgpu-flat-work-group-size", size);
}

static void amd_emit_task(LlvmCg *cg, const IrKernel *k, int ti) {
    const IrTask *t = &k->tasks[ti];
    unsigned n = gpu_param_count(k);
    LLVMTypeRef *tys = xcalloc(n ? n : 1, sizeof *tys);
    gpu_param_types(cg, k, tys);
    cg->fn = cg_add_function(cg, cg_task_symbol(t), LLVMVoidTypeInContext(cg->ctx), tys, n);
    free(tys);
    amd_kernel_attrs(cg, cg->fn, t);
    cg_task_begin(cg, k, ti);
    gpu_bind_params(cg, k, cg->fn);
    LLVMValueRef gid = amd_global_thread_idx(cg);
    if (t->kind == IR_TASK_PARALLEL) {
        cg_emit_strided_loop(cg, gid, cg_task_extent(cg), amd_dispatch_field(cg, 12, 32));
    } else {
        gpu_serial_body(cg, gid);
    }
    cg_task_end(cg);
    LLVMBuildRetVoid(cg->b);
}

/* ---- module ---- */

static void amd_module_begin(LlvmCg *cg) {
    AmdState *st = xcalloc(1, sizeof *st);
    cg->target_state = st;
    const char *co = cap_str(cg->cap, "amdgpu.code_object");
    long version = co ? strtol(co, NULL, 10) : 5;
    LLVMValueRef v = LLVMConstInt(LLVMInt32TypeInContext(cg->ctx), (unsigned long long)(version * 100), 0);
    const char *key = "amdhsa_code_object_version";
    LLVMAddModuleFlag(cg->mod, LLVMModuleFlagBehaviorError, key, strlen(key), LLVMValueAsMetadata(v));
}

/* The clones point at module values now: the template modules can go. */
static void amd_module_end(LlvmCg *cg) {
    AmdState *st = amd_state(cg);
    for (int i = 0; i < st->tmpls.len; i++) {
        LLVMDisposeModule(st->tmpls.items[i].mod);
        free(st->tmpls.items[i].key);
    }
    vec_free(&st->tmpls);
    free(st);
    cg->target_state = NULL;
}

/* .hsaco: the object linked by ld.lld-19, started first so that its start-up overlaps LLVM's
 * optimisation and codegen; --emit=obj is the unlinked object. */
static bool amd_emit_artifact(LlvmCg *cg, EmitKind kind, StrBuf *out) {
    if (kind != EMIT_HSACO) return machine_emit(cg, kind, out);
    AmdLink *link = amdgpu_link_start();
    StrBuf obj;
    sb_init(&obj);
    bool ok = machine_emit(cg, EMIT_OBJ, &obj);
    if (ok) ok = amdgpu_link_finish(link, &obj, out);
    else amdgpu_link_abort(link);
    sb_free(&obj);
    return ok;
}

const LlvmTarget llvm_target_amdgpu = {
    .backend = "amdgpu",
    .as_global = 1,
    .as_shared = 3,
    .pin_constraint = "v", /* the IR Sink pass runs before AMDGPU isel */
    .module_begin = amd_module_begin,
    .emit_task = amd_emit_task,
    .module_end = amd_module_end,
    .emit_artifact = amd_emit_artifact,
    .shared_base = gpu_shared_base,
    .thread_idx = amd_thread_idx,
    .barrier = amd_barrier,
    .global_thread_idx = amd_global_thread_idx,
    .sg_lane = amd_sg_lane,
    .sg_shuffle = amd_sg_shuffle,
    .sg_ballot = amd_sg_ballot,
    .sg_sync = amd_sg_sync,
    .fence = amd_fence,
    .native_rmw = amd_native_rmw,
    .cmpxchg = amd_cmpxchg,
    .atomic_load = amd_atomic_load,
    .atomic_store = amd_atomic_store,
    .volatile_load = NULL, /* load volatile: lowered like a system-scope load */
};
