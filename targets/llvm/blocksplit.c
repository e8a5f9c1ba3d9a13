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
 * stays the nearest common dominator, and Sink leaves the value where it is. (Pinning only the
 * values that no instruction of their own piece uses is enough for Sink, one per cut in
 * bench/gen.sh's kernel, but measured no better at 10^5 statements, 554 vs 561 MiB, and it moved
 * 3x10^4-statement kernels under llvm.large_function, back to the quadratic machine scheduler:
 * bench/scaling.md.) The side path
 * costs register copies only when the branch takes it. */
#include "blocksplit.h"
#include "../../support/util.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { SPLIT_TRIGGER = 384, SPLIT_CHUNK = 256, ATOMIC_BUDGET = 256 };

typedef VEC(LLVMValueRef) Cuts;

/* The instructions that start the pieces of `bb` after its first, in order: every SPLIT_CHUNK-th
 * non-PHI instruction, as long as the piece starting at the previous cut (or at the first non-PHI
 * instruction) holds more than SPLIT_TRIGGER instructions. Cutting one piece at a time and
 * counting the rest again is what the cuts must reproduce. */
static void cut_points(LLVMBasicBlockRef bb, Cuts *cuts) {
    cuts->len = 0;
    unsigned n = 0;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) n += !LLVMIsAPHINode(i);
    if (n <= SPLIT_TRIGGER) return;
    unsigned k = 0, start = 0;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
        if (LLVMIsAPHINode(i)) continue;
        if (k == start + SPLIT_CHUNK) {
            vec_push(cuts, i);
            start = k;
            if (n - start <= SPLIT_TRIGGER) return;
        }
        k++;
    }
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

/* The instructions of one piece while it is still inside the uncut block: an open-addressing set
 * of pointers (a piece holds about SPLIT_CHUNK instructions, plus the block's PHIs for the first). */
typedef struct Piece {
    LLVMValueRef *slot;
    size_t mask;
} Piece;

static size_t piece_hash(LLVMValueRef v) { return (size_t)(((uintptr_t)v >> 4) * 0x9E3779B97F4A7C15ull); }

static void piece_fill(Piece *p, LLVMValueRef from, LLVMValueRef to) {
    size_t n = 0;
    for (LLVMValueRef i = from; i != to; i = LLVMGetNextInstruction(i)) n++;
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    if (cap > p->mask + 1 || !p->slot) free(p->slot), p->slot = xmalloc(cap * sizeof *p->slot), p->mask = cap - 1;
    memset(p->slot, 0, (p->mask + 1) * sizeof *p->slot);
    for (LLVMValueRef i = from; i != to; i = LLVMGetNextInstruction(i)) {
        size_t h = piece_hash(i) & p->mask;
        while (p->slot[h]) h = (h + 1) & p->mask;
        p->slot[h] = i;
    }
}

static bool piece_has(const Piece *p, LLVMValueRef v) {
    for (size_t h = piece_hash(v) & p->mask; p->slot[h]; h = (h + 1) & p->mask)
        if (p->slot[h] == v) return true;
    return false;
}

/* Whether some use of `v` lies outside the piece (which is still inside block `bb`). */
static bool used_outside(LLVMValueRef v, LLVMBasicBlockRef bb, const Piece *p) {
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (LLVMGetInstructionParent(user) != bb || !piece_has(p, user)) return true;
    }
    return false;
}

/* In `side` (the builder is positioned in it): one empty asm statement taking `v` for every
 * value of the piece [from, to) of `bb` that is used outside it (see the head comment). */
static void pin_values(LLVMBuilderRef b, LLVMContextRef ctx, LLVMBasicBlockRef bb, LLVMValueRef from, LLVMValueRef to,
                       const char *pin, Piece *p) {
    piece_fill(p, from, to);
    for (LLVMValueRef i = from; i != to; i = LLVMGetNextInstruction(i)) {
        LLVMTypeRef t = LLVMTypeOf(i);
        if (LLVMIsAPHINode(i) || !pinnable(t) || !used_outside(i, bb, p)) continue;
        LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(ctx), &t, 1, 0);
        LLVMValueRef use = LLVMGetInlineAsm(ft, "", 0, (char *)pin, strlen(pin), 1, 0, LLVMInlineAsmDialectATT, 0);
        LLVMBuildCall2(b, ft, use, &i, 1, "");
    }
}

/* Cuts `bb` before each of `cuts` (in block order): piece j+1 moves into a new block placed after
 * the side block of its cut, and each cut is joined with the freeze/side-block shape described
 * above. Every new block and value is made in the order of cutting one piece at a time, so the
 * names, the PHIs of the successors (rebuilt once per cut) and the pinned values are those of
 * that order; only the moves are deferred and done last piece first, so that every instruction
 * moves once (moving the whole rest at every cut was quadratic: 40 s at -O0 for 10^5
 * statements). Returns the last piece. */
static LLVMBasicBlockRef split_block(LLVMBuilderRef b, LLVMBasicBlockRef bb, const Cuts *cuts, const char *pin,
                                     Piece *piece) {
    LLVMValueRef fn = LLVMGetBasicBlockParent(bb);
    LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(fn));
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    if (!term) die("block split: the block has no terminator");
    LLVMTypeRef i1 = LLVMInt1TypeInContext(ctx);
    LLVMTypeRef vt = LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0);
    LLVMBasicBlockRef *rests = xmalloc((size_t)cuts->len * sizeof *rests);
    LLVMValueRef *anys = xmalloc((size_t)cuts->len * sizeof *anys);
    char **any_names = xmalloc((size_t)cuts->len * sizeof *any_names);
    LLVMBasicBlockRef prev = bb;
    LLVMValueRef from = NULL; /* the piece's first instruction (for the first, after its PHIs are rebuilt) */
    for (int j = 0; j < cuts->len; j++) {
        LLVMValueRef cut = cuts->items[j];
        LLVMBasicBlockRef side = LLVMAppendBasicBlockInContext(ctx, fn, "split.side");
        LLVMBasicBlockRef rest = LLVMAppendBasicBlockInContext(ctx, fn, "split");
        LLVMMoveBasicBlockAfter(side, prev);
        LLVMMoveBasicBlockAfter(rest, side);
        LLVMSetCurrentDebugLocation2(b, NULL);
        if (j == 0) /* a moved instruction loses its name (LLVMInsertIntoBuilder names it ""), at the first cut */
            for (LLVMValueRef i = cut; i; i = LLVMGetNextInstruction(i)) LLVMSetValueName2(i, "", 0);
        for (unsigned k = 0, n = LLVMGetNumSuccessors(term); k < n; k++)
            retarget_phis(b, LLVMGetSuccessor(term, k), prev, rest);
        LLVMMetadataRef loc = LLVMGetCurrentDebugLocation2(b); /* a rebuilt PHI's, as a cut at a time gave */
        LLVMPositionBuilderBefore(b, cut);
        LLVMSetCurrentDebugLocation2(b, loc);
        LLVMValueRef any = LLVMBuildFreeze(b, LLVMGetPoison(i1), "split.any");
        LLVMBuildCondBr(b, any, side, rest);
        size_t len;
        const char *name = LLVMGetValueName2(any, &len);
        anys[j] = any, any_names[j] = xstrdup(name); /* given back after the moves */
        LLVMPositionBuilderAtEnd(b, side);
        LLVMValueRef nop = LLVMGetInlineAsm(vt, "", 0, "", 0, 1, 0, LLVMInlineAsmDialectATT, 0);
        LLVMBuildCall2(b, vt, nop, NULL, 0, "");
        if (!from) from = LLVMGetFirstInstruction(bb);
        if (pin) pin_values(b, ctx, bb, from, cut, pin, piece);
        LLVMBuildBr(b, rest);
        rests[j] = rest, prev = rest, from = cut;
    }
    LLVMSetCurrentDebugLocation2(b, NULL); /* -g: moved instructions keep their own lines */
    for (int j = cuts->len - 1; j >= 0; j--) {
        LLVMPositionBuilderAtEnd(b, rests[j]);
        for (LLVMValueRef i = cuts->items[j]; i;) {
            LLVMValueRef next = LLVMGetNextInstruction(i);
            LLVMInstructionRemoveFromParent(i);
            LLVMInsertIntoBuilder(b, i);
            i = next;
        }
    }
    for (int j = 0; j < cuts->len; j++) {
        LLVMSetValueName2(anys[j], any_names[j], strlen(any_names[j]));
        free(any_names[j]);
    }
    free(rests), free(anys), free(any_names);
    return prev;
}

static bool is_atomic(LLVMValueRef i) { return LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i); }

/* A growable open-addressing set of values (the lane-dependent values of one function). */
typedef struct ValueSet {
    LLVMValueRef *slot;
    size_t mask, n;
} ValueSet;

static bool set_has(const ValueSet *s, LLVMValueRef v) {
    if (!s->slot) return false;
    for (size_t h = piece_hash(v) & s->mask; s->slot[h]; h = (h + 1) & s->mask)
        if (s->slot[h] == v) return true;
    return false;
}

static void set_put_slot(LLVMValueRef *slot, size_t mask, LLVMValueRef v) {
    size_t h = piece_hash(v) & mask;
    while (slot[h]) h = (h + 1) & mask;
    slot[h] = v;
}

/* Adds v; false if it was there. */
static bool set_add(ValueSet *s, LLVMValueRef v) {
    if (set_has(s, v)) return false;
    if (!s->slot || 2 * (s->n + 1) > s->mask + 1) {
        size_t cap = s->slot ? 2 * (s->mask + 1) : 256;
        LLVMValueRef *slot = xmalloc(cap * sizeof *slot);
        memset(slot, 0, cap * sizeof *slot);
        for (size_t k = 0; s->slot && k <= s->mask; k++)
            if (s->slot[k]) set_put_slot(slot, cap - 1, s->slot[k]);
        free(s->slot), s->slot = slot, s->mask = cap - 1;
    }
    set_put_slot(s->slot, s->mask, v);
    s->n++;
    return true;
}

static bool calls_named(LLVMValueRef i, const char *name) {
    if (!LLVMIsACallInst(i)) return false;
    LLVMValueRef f = LLVMGetCalledValue(i);
    size_t len;
    const char *n = f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : NULL;
    return n && !strcmp(n, name);
}

/* The values of `fn` computed, by data dependence alone, from the lane's own id: the result of
 * llvm.amdgcn.workitem.id.x and every instruction that is not a call and has such an operand
 * (PHIs included). LLVM's uniformity analysis calls each of them divergent too: it marks every
 * user of a divergent value divergent, except the "always uniform" ones, which are calls and
 * instructions that shift or mask the id itself (GCNTTIImpl::isAlwaysUniform), and those are not
 * followed here. An under-approximation: a value not in the set may still be divergent. */
static void lane_dependent(LLVMValueRef fn, ValueSet *set) {
    VEC(LLVMValueRef) work = {0};
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
            if (calls_named(i, "llvm.amdgcn.workitem.id.x") && set_add(set, i)) vec_push(&work, i);
    while (work.len) {
        LLVMValueRef v = work.items[--work.len];
        bool id = LLVMIsACallInst(v);
        for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef user = LLVMGetUser(u);
            if (!LLVMIsAInstruction(user) || LLVMIsACallInst(user) || LLVMIsAInvokeInst(user)) continue;
            LLVMOpcode op = LLVMGetInstructionOpcode(user);
            if (id && (op == LLVMLShr || op == LLVMAShr || op == LLVMAnd || op == LLVMExtractValue)) continue;
            if (LLVMGetTypeKind(LLVMTypeOf(user)) == LLVMVoidTypeKind) continue;
            if (set_add(set, user)) vec_push(&work, user);
        }
    }
    vec_free(&work);
}

/* In a function that was cut and holds more than ATOMIC_BUDGET atomics: the address of every
 * atomic read-modify-write or compare-exchange that is not already lane-dependent by data
 * (lane_dependent: LLVM sees it divergent and its optimizer leaves it alone; 10^5 statements of
 * bench/gen.sh: 33,000 asm statements and their register copies fewer, and the atomic keeps its
 * scalar-base address form) passes through an empty side-effecting asm
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
    ValueSet lane = {0};
    lane_dependent(fn, &lane);
    char cons[16];
    snprintf(cons, sizeof cons, "=%s,0", pin);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            if (!is_atomic(i)) continue;
            LLVMValueRef ptr = LLVMGetOperand(i, 0);
            if (set_has(&lane, ptr)) continue; /* divergent for LLVM too: the optimizer leaves it */
            LLVMTypeRef pt = LLVMTypeOf(ptr);
            LLVMTypeRef ft = LLVMFunctionType(pt, &pt, 1, 0);
            LLVMValueRef id = LLVMGetInlineAsm(ft, "", 0, cons, strlen(cons), 1, 0, LLVMInlineAsmDialectATT, 0);
            LLVMPositionBuilderBefore(b, i);
            LLVMSetOperand(i, 0, LLVMBuildCall2(b, ft, id, &ptr, 1, ""));
        }
    free(lane.slot);
}

unsigned cg_split_long_blocks(LLVMModuleRef mod, const char *pin) {
    unsigned cuts = 0;
    Cuts at = {0};
    Piece piece = {0};
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(mod));
    for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn)) {
        bool long_block = false;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !long_block; bb = LLVMGetNextBasicBlock(bb)) {
            cut_points(bb, &at);
            long_block = at.len > 0;
        }
        if (!long_block) continue;
        if (pin) opaque_atomic_addresses(b, fn, pin); /* first: its statements count in the pieces */
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
            cut_points(bb, &at);
            if (at.len == 0) continue;
            bb = split_block(b, bb, &at, pin, &piece);
            cuts += (unsigned)at.len;
        }
    }
    LLVMDisposeBuilder(b);
    vec_free(&at);
    free(piece.slot);
    return cuts;
}
