/* PTX vector atomics (PTX ISA 8.1, sm_90): `atom{.sem}{.scope}.global.op{.noftz}.vN.type
 * {d...}, [a], {b...}` for a vector atomic the lowering decided (lower/vector.c), written as
 * inline PTX -- LLVM 19 has no vector atomicrmw for NVPTX. The results are unused: the
 * destination registers are written and dropped. The module is PTX ISA vector_atomics.ptx_isa
 * (machine.c, nvptx.c). */
#include "gpu.h"
#include <string.h>

/* .scope of the instruction; .gpu is PTX's default and not written (qdc-capdb(5) spellings). */
static const char *const vec_scope[QSCOPE_COUNT] = {
    [QSCOPE_BLOCK] = ".cta", [QSCOPE_CLUSTER] = ".cluster", [QSCOPE_DEVICE] = "", [QSCOPE_SYSTEM] = ".sys",
};

static const char *vec_type(QdType t) {
    switch (t) {
    case QT_F16: return "noftz.v%d.f16"; /* 16-bit types need .noftz [N1] */
    case QT_BF16: return "noftz.v%d.bf16";
    case QT_F32: return "v%d.f32";
    default: die("no PTX vector atomic on %s", qt_name(t));
    }
}

void nv_vector_rmw(LlvmCg *cg, const CgAtomic *a, LLVMValueRef *vals, int n) {
    const IrLowering *low = a->low;
    if (a->space != QSPACE_GLOBAL || (low->op != QOP_ADD && low->op != QOP_MIN && low->op != QOP_MAX) ||
        (low->order != QORD_RELAXED && low->order != QORD_ACQUIRE) || n < 2 || n > 8)
        die("PTX vector atomic outside what lower/vector.c decides");
    int bits = qt_bits(a->qt);
    char reg = bits == 16 ? 'h' : 'r';
    StrBuf text, cons;
    sb_init(&text);
    sb_init(&cons);
    sb_printf(&text, "atom%s%s.global.%s.", low->order == QORD_ACQUIRE ? ".acquire" : "", vec_scope[low->scope],
              qop_name(low->op));
    sb_printf(&text, vec_type(a->qt), n);
    sb_puts(&text, " {");
    for (int k = 0; k < n; k++) sb_printf(&text, "%s$%d", k ? ", " : "", k), sb_printf(&cons, "=%c,", reg);
    sb_printf(&text, "}, [$%d], {", n);
    sb_puts(&cons, "l");
    for (int k = 0; k < n; k++) sb_printf(&text, "%s$%d", k ? ", " : "", n + 1 + k), sb_printf(&cons, ",%c", reg);
    sb_puts(&text, "};");
    sb_puts(&cons, ",~{memory}");
    LLVMTypeRef ity = LLVMIntTypeInContext(cg->ctx, (unsigned)bits), rets[8], tys[9];
    LLVMValueRef args[9] = {a->ptr};
    tys[0] = LLVMTypeOf(a->ptr);
    for (int k = 0; k < n; k++) {
        rets[k] = ity;
        args[1 + k] = LLVMBuildBitCast(cg->b, vals[k], ity, "");
        tys[1 + k] = ity;
    }
    LLVMTypeRef ret = LLVMStructTypeInContext(cg->ctx, rets, (unsigned)n, 0);
    LLVMTypeRef fty = LLVMFunctionType(ret, tys, (unsigned)n + 1, 0);
    LLVMValueRef fn = LLVMGetInlineAsm(fty, text.data, text.len, cons.data, cons.len, 1, 0, LLVMInlineAsmDialectATT, 0);
    LLVMBuildCall2(cg->b, fty, fn, args, (unsigned)n + 1, "");
    sb_free(&text);
    sb_free(&cons);
}
