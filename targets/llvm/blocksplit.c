/* Bounding instruction-selection work: LLVM 19's SelectionDAG combiner is super-linear in the
 * size of one basic block (it re-walks long dependency chains and the users of shared constants),
 * so a 10^4-statement straight-line task body took minutes. After the IR pipeline, every block
 * longer than SPLIT_TRIGGER instructions is cut into pieces of SPLIT_CHUNK instructions; each
 * cut is a branch on `freeze i1 poison` to either the next piece or an empty side block that
 * holds an empty side-effecting asm statement and then jumps to the next piece. Both paths are
 * equivalent, so whichever value the freeze takes is correct, and the shape keeps CodeGenPrepare
 * from merging the pieces back (the next piece has two predecessors). Cost at run time: one
 * test-and-branch per SPLIT_CHUNK instructions, only in blocks that long; ordinary kernels are
 * untouched. */
#include "blocksplit.h"
#include "../../support/util.h"

enum { SPLIT_TRIGGER = 384, SPLIT_CHUNK = 256 };

/* The instruction that starts the next piece: SPLIT_CHUNK non-PHI instructions past the first
 * non-PHI one, or NULL when fewer than SPLIT_TRIGGER instructions follow. */
static LLVMValueRef cut_point(LLVMBasicBlockRef bb) {
    unsigned n = 0;
    LLVMValueRef cut = NULL;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
        if (LLVMIsAPHINode(i)) continue;
        if (n == SPLIT_CHUNK) cut = i;
        if (++n > SPLIT_TRIGGER) return cut;
    }
    return NULL;
}

/* Successor PHIs that name `from` as an incoming block are rebuilt naming `to` (the C API
 * cannot set an incoming block in place). */
static void retarget_phis(LLVMBuilderRef b, LLVMBasicBlockRef succ, LLVMBasicBlockRef from,
                          LLVMBasicBlockRef to) {
    LLVMValueRef phi = LLVMGetFirstInstruction(succ);
    while (phi && LLVMIsAPHINode(phi)) {
        LLVMValueRef next = LLVMGetNextInstruction(phi);
        unsigned n = LLVMCountIncoming(phi);
        bool names_from = false;
        for (unsigned k = 0; k < n; k++) names_from |= LLVMGetIncomingBlock(phi, k) == from;
        if (names_from) {
            LLVMPositionBuilderBefore(b, phi);
            size_t len;
            const char *name = LLVMGetValueName2(phi, &len);
            char *keep = xstrdup(name);
            LLVMValueRef fresh = LLVMBuildPhi(b, LLVMTypeOf(phi), "");
            for (unsigned k = 0; k < n; k++) {
                LLVMValueRef v = LLVMGetIncomingValue(phi, k);
                LLVMBasicBlockRef in = LLVMGetIncomingBlock(phi, k);
                if (in == from) in = to;
                LLVMAddIncoming(fresh, &v, &in, 1);
            }
            LLVMReplaceAllUsesWith(phi, fresh);
            LLVMInstructionEraseFromParent(phi);
            LLVMSetValueName2(fresh, keep, len);
            free(keep);
        }
        phi = next;
    }
}

/* Moves `cut` and everything after it in its block into a new block placed right after, and
 * joins the two with the freeze/side-block shape described above. Returns the new block. */
static LLVMBasicBlockRef split_at(LLVMBuilderRef b, LLVMValueRef cut) {
    LLVMBasicBlockRef bb = LLVMGetInstructionParent(cut);
    LLVMValueRef fn = LLVMGetBasicBlockParent(bb);
    LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(fn));
    LLVMBasicBlockRef side = LLVMAppendBasicBlockInContext(ctx, fn, "split.side");
    LLVMBasicBlockRef rest = LLVMAppendBasicBlockInContext(ctx, fn, "split");
    LLVMMoveBasicBlockAfter(side, bb);
    LLVMMoveBasicBlockAfter(rest, side);
    LLVMPositionBuilderAtEnd(b, rest);
    for (LLVMValueRef i = cut; i;) {
        LLVMValueRef next = LLVMGetNextInstruction(i);
        LLVMInstructionRemoveFromParent(i);
        LLVMInsertIntoBuilder(b, i);
        i = next;
    }
    LLVMValueRef term = LLVMGetBasicBlockTerminator(rest);
    if (!term) die("block split: the moved tail has no terminator");
    for (unsigned k = 0, n = LLVMGetNumSuccessors(term); k < n; k++)
        retarget_phis(b, LLVMGetSuccessor(term, k), bb, rest);

    LLVMTypeRef i1 = LLVMInt1TypeInContext(ctx);
    LLVMPositionBuilderAtEnd(b, bb);
    LLVMValueRef any = LLVMBuildFreeze(b, LLVMGetPoison(i1), "split.any");
    LLVMBuildCondBr(b, any, side, rest);
    LLVMPositionBuilderAtEnd(b, side);
    LLVMTypeRef vt = LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0);
    LLVMValueRef nop = LLVMGetInlineAsm(vt, "", 0, "", 0, 1, 0, LLVMInlineAsmDialectATT, 0);
    LLVMBuildCall2(b, vt, nop, NULL, 0, "");
    LLVMBuildBr(b, rest);
    return rest;
}

unsigned cg_split_long_blocks(LLVMModuleRef mod) {
    unsigned cuts = 0;
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(mod));
    for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn)) {
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
            LLVMValueRef cut;
            while ((cut = cut_point(bb))) {
                bb = split_at(b, cut);
                cuts++;
            }
        }
    }
    LLVMDisposeBuilder(b);
    return cuts;
}
