/* The GPU halves of the LLVM backend: the inline-PTX spelling of every memory operation
 * (nvptx.c), the kernel ABI both GPU targets share (gpu_abi.c: flattened parameters, shared arrays),
 * AMDGPU syncscope names (amdgpu.c) and the ld.lld-19 link step (amdgpu_link.c). */
#ifndef QDC_LLVM_GPU_H
#define QDC_LLVM_GPU_H
#include "../../ir/ir.h"
#include "../../support/util.h"
#include "llvm_target.h"

/* One inline-PTX instruction: asm text with $N operands and its LLVM constraint string.
 * Operand order: [result,] address, value operands (cas: expected, desired). */
typedef struct PtxInline {
    StrBuf text;
    StrBuf cons;
    bool has_result;
} PtxInline;

/* Spells the memory instruction for op on `type` in `space` carrying order/scope.
 * with_sem: the target has `.sem` qualifiers (sm_70+); without, no `.sem` is written and the
 * caller brackets the instruction with membar. noret: use `red` (RMW with the result unused).
 * Returns false if PTX has no single instruction for the combination (a CAS loop is needed). */
bool ptx_spell_memop(QdOp op, QdType type, QdSpace space, QdOrder order, QdScope scope,
                     bool with_sem, bool noret, PtxInline *out);
/* A fence of `order` at `scope`: "fence.sc.gpu;" / "fence.acq_rel.cta;" (sm_70+) or
 * "membar.gl;" (membar_only, sm_60). Appends nothing for a relaxed fence. */
void ptx_spell_fence(QdOrder order, QdScope scope, bool membar_only, StrBuf *out);
void ptx_inline_free(PtxInline *p);

/* simtgpu.c: the SIMT primitives (LlvmTarget.sg_*) of the two GPU targets */
LLVMValueRef nv_sg_lane(LlvmCg *cg);
LLVMValueRef nv_sg_shuffle(LlvmCg *cg, LLVMValueRef v, LLVMValueRef src);
LLVMValueRef nv_sg_ballot(LlvmCg *cg, LLVMValueRef pred);
void nv_sg_sync(LlvmCg *cg);
LLVMValueRef nv_sg_native(LlvmCg *cg, const IrExpr *e, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef amd_sg_lane(LlvmCg *cg);
LLVMValueRef amd_sg_shuffle(LlvmCg *cg, LLVMValueRef v, LLVMValueRef src);
LLVMValueRef amd_sg_ballot(LlvmCg *cg, LLVMValueRef pred);
void amd_sg_sync(LlvmCg *cg);

/* AMDGPU syncscope for a qdc scope: "workgroup", "agent", "" (system). */
const char *amdgpu_syncscope(QdScope s);

/* Links an AMDGPU ELF relocatable into a code object by spawning `ld.lld-19 -shared` (argv,
 * no shell). The linker is found as $QDC_LD_LLD, else ld.lld-19 in PATH, else
 * /usr/lib/llvm-19/bin/ld.lld. False after a diagnostic (QD5xxx) if it is missing or fails. */
bool amdgpu_link(const StrBuf *obj, StrBuf *hsaco);
/* amdgpu_link() in two halves, so the linker's start-up runs while LLVM still works: start
 * spawns ld.lld-19 waiting on a pipe for the object (a missing linker or a failed spawn is
 * reported by finish); finish feeds it the object, waits, and yields the code object (false
 * after a QD5005 diagnostic); abort kills and reaps it. finish and abort free the handle. */
typedef struct AmdLink AmdLink;
AmdLink *amdgpu_link_start(void);
bool amdgpu_link_finish(AmdLink *l, const StrBuf *obj, StrBuf *hsaco);
void amdgpu_link_abort(AmdLink *l);

/* ---- kernel ABI shared by PTX and AMDGPU entries (nvptx.c) ----
 * Parameters are flattened in IrKernel order: a scalar as its storage type, an ndarray as a
 * global pointer then one i32 extent per axis -- the field order of the --emit=header struct, so
 * a host can pass that struct as the AMDGPU kernarg segment or as CUDA kernelParams.
 * Parallel tasks are grid-stride loops, so any launch size is correct; a task with block.sync()
 * gives every thread of a block the same trip count only when its extent is a multiple of the
 * block size and the grid covers it, so such kernels pad (examples/shared_histogram.qd).
 * A launch has fewer than 2^31 threads in all (iteration indices are i32); the PTX entries tell
 * LLVM so (nuw/nsw grid stride), see nv_grid_loop in nvptx.c. */
unsigned gpu_param_count(const IrKernel *k);
void gpu_param_types(LlvmCg *cg, const IrKernel *k, LLVMTypeRef *out);
void gpu_bind_params(LlvmCg *cg, const IrKernel *k, LLVMValueRef fn);
/* The block size a task is compiled for (abi_block_dim; dies if the database has none). */
int gpu_block_dim(LlvmCg *cg, const IrTask *t);
/* A serial task: the body once, on global thread gid == 0. */
void gpu_serial_body(LlvmCg *cg, LLVMValueRef gid);
/* Shared-array storage: an internal [elems x T] global in as_shared, named <task>.<array>. */
LLVMValueRef gpu_shared_base(LlvmCg *cg, int shared);
/* nvptx_vec.c: LlvmTarget.vector_rmw of the PTX target (atom.global.add.v4.f32 ...). */
void nv_vector_rmw(LlvmCg *cg, const CgAtomic *a, LLVMValueRef *vals, int n);
#endif
