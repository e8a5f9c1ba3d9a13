/* The kernel ABI both GPU targets (PTX, AMDGPU) share: each ndarray parameter flattened to a
 * pointer and its int32 extents, scalars by value, shared arrays as one internal global per task
 * and array, block sizes from the task or the family's default, serial tasks on thread 0. */
#include "../abi.h"
#include "gpu.h"
#include <string.h>

unsigned gpu_param_count(const IrKernel *k) {
    unsigned n = 0;
    for (int i = 0; i < k->nparams; i++)
        n += k->params[i].kind == IR_PARAM_NDARRAY ? 1u + (unsigned)k->params[i].ndim : 1u;
    return n;
}

void gpu_param_types(LlvmCg *cg, const IrKernel *k, LLVMTypeRef *out) {
    unsigned n = 0;
    for (int i = 0; i < k->nparams; i++) {
        const IrParam *p = &k->params[i];
        if (p->kind == IR_PARAM_SCALAR) {
            out[n++] = cg_storage_type(cg, p->type);
            continue;
        }
        out[n++] = cg_ptr(cg, cg->tgt->as_global);
        for (int d = 0; d < p->ndim; d++) out[n++] = LLVMInt32TypeInContext(cg->ctx);
    }
}

void gpu_bind_params(LlvmCg *cg, const IrKernel *k, LLVMValueRef fn) {
    unsigned n = 0;
    for (int i = 0; i < k->nparams; i++) {
        const IrParam *p = &k->params[i];
        LLVMValueRef v = LLVMGetParam(fn, n++);
        LLVMSetValueName2(v, p->name, strlen(p->name));
        if (p->kind == IR_PARAM_SCALAR) {
            if (p->type == QT_U1) v = LLVMBuildICmp(cg->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
            cg_bind_scalar(cg, i, v);
            continue;
        }
        LLVMValueRef ext[IR_MAX_DIMS];
        for (int d = 0; d < p->ndim; d++) ext[d] = LLVMGetParam(fn, n++);
        cg_bind_ndarray(cg, i, v, ext);
    }
}

int gpu_block_dim(LlvmCg *cg, const IrTask *t) {
    int d = abi_block_dim(t, cg->cap);
    if (d <= 0) die("no block size for task %s on %s", t->name, cap_name(cg->cap));
    return d;
}

LLVMValueRef gpu_shared_base(LlvmCg *cg, int shared) {
    const IrShared *s = &cg->kernel->shared[shared];
    char *name = xasprintf("%s__%s", cg_task_symbol(&cg->kernel->tasks[s->task]), s->name);
    LLVMValueRef g = LLVMGetNamedGlobal(cg->mod, name);
    if (!g) {
        LLVMTypeRef ty = LLVMArrayType2(cg_storage_type(cg, s->type), (uint64_t)s->elems);
        g = LLVMAddGlobalInAddressSpace(cg->mod, ty, name, cg->tgt->as_shared);
        LLVMSetLinkage(g, LLVMInternalLinkage);
        LLVMSetInitializer(g, LLVMGetUndef(ty));
        LLVMSetAlignment(g, 16);
    }
    free(name);
    return g;
}

/* A serial task runs on global thread 0 only. */
void gpu_serial_body(LlvmCg *cg, LLVMValueRef gid) {
    LLVMBasicBlockRef body = cg_block(cg, "serial");
    LLVMBasicBlockRef done = cg_block(cg, "done");
    LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, gid, cg_i32(cg, 0), ""), body, done);
    LLVMPositionBuilderAtEnd(cg->b, body);
    cg_emit_task_body(cg, NULL);
    LLVMBuildBr(cg->b, done);
    LLVMPositionBuilderAtEnd(cg->b, done);
}
