/* Bounding instruction-selection work: LLVM 19's SelectionDAG combiner is super-linear in the
 * size of one basic block (it re-walks long dependency chains and the users of shared constants),
 * so a 10^4-statement straight-line task body took minutes. After the IR pipeline, every block
 * longer than SPLIT_TRIGGER instructions is cut into pieces of SPLIT_CHUNK instructions; each
 * cut is a branch on `freeze i1 poison` to either the next piece or an empty side block that
 * holds an empty side-effecting asm statement and then jumps to the next piece. Both paths are
 * equivalent, so whichever value the freeze takes is correct, and the shape keeps CodeGenPrepare
 * from merging the pieces back (the next piece has two predecessors). Cost at run time: one
 * test-and-branch per SPLIT_CHUNK instructions, only in blocks that long; ordinary kernels are
 * untouched.
 *
 * The pieces must survive LLVM's own IR passes before instruction selection. AMDGPU's codegen
 * pipeline runs the IR Sink pass, which moves a value down to the nearest common dominator of
 * its uses: a loop-invariant chain that LICM hoisted into a preheader is used only inside the
 * loop, so every value of it sank, piece by piece, into the last preheader piece and rebuilt one
 * block of thousands of instructions (2,000 statements 27 s, 8,000 statements 323 s on gfx942).
 * With a `pin` constraint, the side block of each cut also hands every value that is defined
 * before the cut and used after it to its empty asm statement (one statement per value, so only
 * one register is demanded at a time): that use is dominated only by the defining piece, which
 * stays the nearest common dominator, and Sink leaves the value where it is. The side path
 * costs register copies only when the branch takes it. */
#include "blocksplit.h"
#include "../../support/util.h"
#include <stdio.h>
#include <string.h>

enum { SPLIT_TRIGGER = 384, SPLIT_CHUNK = 256, ATOMIC_BUDGET = 256 };

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

/* Whether a value of type `t` fits an inline-asm register operand of the pin constraint: scalar
 * integers of 16..64 bits, half/float/double and pointers (an i1 has no register class there). */
static bool pinnable(LLVMTypeRef t) {
    switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind: {
        unsigned w = LLVMGetIntTypeWidth(t);
        return w == 16 || w == 32 || w == 64;
    }
    case LLVMHalfTypeKind:
    case LLVMBFloatTypeKind:
    case LLVMFloatTypeKind:
    case LLVMDoubleTypeKind:
    case LLVMPointerTypeKind: return true;
    default: return false;
    }
}

/* Whether some use of `v` lies outside block `bb`. */
static bool used_outside(LLVMValueRef v, LLVMBasicBlockRef bb) {
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u))
        if (LLVMGetInstructionParent(LLVMGetUser(u)) != bb) return true;
    return false;
}

/* In `side` (the builder is positioned in it): one empty asm statement taking `v` for every
 * value of `bb` that is used outside it (see the head comment). Returns the number pinned. */
static unsigned pin_values(LLVMBuilderRef b, LLVMContextRef ctx, LLVMBasicBlockRef bb, const char *pin) {
    unsigned n = 0;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
        LLVMTypeRef t = LLVMTypeOf(i);
        if (LLVMIsAPHINode(i) || !pinnable(t) || !used_outside(i, bb)) continue;
        LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(ctx), &t, 1, 0);
        LLVMValueRef use = LLVMGetInlineAsm(ft, "", 0, (char *)pin, strlen(pin), 1, 0, LLVMInlineAsmDialectATT, 0);
        LLVMBuildCall2(b, ft, use, &i, 1, "");
        n++;
    }
    return n;
}

/* Moves `cut` and everything after it in its block into a new block placed right after, and
 * joins the two with the freeze/side-block shape described above. Returns the new block. */
static LLVMBasicBlockRef split_at(LLVMBuilderRef b, LLVMValueRef cut, const char *pin) {
    LLVMBasicBlockRef bb = LLVMGetInstructionParent(cut);
    LLVMValueRef fn = LLVMGetBasicBlockParent(bb);
    LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(fn));
    LLVMBasicBlockRef side = LLVMAppendBasicBlockInContext(ctx, fn, "split.side");
    LLVMBasicBlockRef rest = LLVMAppendBasicBlockInContext(ctx, fn, "split");
    LLVMMoveBasicBlockAfter(side, bb);
    LLVMMoveBasicBlockAfter(rest, side);
    LLVMPositionBuilderAtEnd(b, rest);
    LLVMSetCurrentDebugLocation2(b, NULL); /* -g: moved instructions keep their own lines */
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
    if (pin) pin_values(b, ctx, bb, pin);
    LLVMBuildBr(b, rest);
    return rest;
}

static bool is_atomic(LLVMValueRef i) { return LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i); }

/* In a function that was cut and holds more than ATOMIC_BUDGET atomics: the address of every
 * atomic read-modify-write or compare-exchange passes through an empty side-effecting asm
 * statement whose result is the address itself in a `pin`-class register. The target then
 * treats it as possibly different per lane; without it AMDGPU's atomic optimizer turns each
 * atomic on a lane-uniform address into its own small loop over the active lanes, and
 * thousands of such loops inside one task loop made the codegen passes after it super-linear
 * (8,000 statements 5.4 s, 16,000 35 s). The price, only in such kernels: one atomic per lane
 * instead of one per wave on a uniform address, and the addresses held in vector registers. */
static void opaque_atomic_addresses(LLVMBuilderRef b, LLVMValueRef fn, const char *pin) {
    unsigned atomics = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) atomics += is_atomic(i);
    if (atomics <= ATOMIC_BUDGET) return;
    char cons[16];
    snprintf(cons, sizeof cons, "=%s,0", pin);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            if (!is_atomic(i)) continue;
            LLVMValueRef ptr = LLVMGetOperand(i, 0);
            LLVMTypeRef pt = LLVMTypeOf(ptr);
            LLVMTypeRef ft = LLVMFunctionType(pt, &pt, 1, 0);
            LLVMValueRef id = LLVMGetInlineAsm(ft, "", 0, cons, strlen(cons), 1, 0, LLVMInlineAsmDialectATT, 0);
            LLVMPositionBuilderBefore(b, i);
            LLVMSetOperand(i, 0, LLVMBuildCall2(b, ft, id, &ptr, 1, ""));
        }
}

unsigned cg_split_long_blocks(LLVMModuleRef mod, const char *pin) {
    unsigned cuts = 0;
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(mod));
    for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn)) {
        bool long_block = false;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !long_block; bb = LLVMGetNextBasicBlock(bb))
            long_block = cut_point(bb) != NULL;
        if (!long_block) continue;
        if (pin) opaque_atomic_addresses(b, fn, pin); /* first: its statements count in the pieces */
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
            LLVMValueRef cut;
            while ((cut = cut_point(bb))) {
                bb = split_at(b, cut, pin);
                cuts++;
            }
        }
    }
    LLVMDisposeBuilder(b);
    return cuts;
}
