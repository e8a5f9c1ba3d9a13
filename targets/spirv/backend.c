/* backend_spirv_emit: the "spirv" and "msl" backends. Reads the family's SPIR-V environment,
 * version, MSL version and default block size from the database, then emits SPIR-V (validated),
 * its disassembly, MSL (mslemit.c) or the metadata JSON. */
#include <stdint.h>
#include "../target.h"
#include "spvgen.h"
#include "spvmeta.h"
#include "spvtools.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The family's SPIR-V environment and version, block size and subgroup width come from the
 * database only (spirv.env and the limits are required keys: the loader's QD3007). */
static SpvTarget target_of(const CapTarget *t) {
    SpvTarget st = {0};
    st.for_msl = !strcmp(cap_backend(t), "msl");
    st.env = cap_str(t, "spirv.env");
    const char *ver = cap_str(t, "spirv.version");
    int major = 1;
    if (!ver || sscanf(ver, "%d.%d", &major, &st.minor) != 2 || major != 1) st.minor = -1;
    st.default_block_dim = (int)cap_int(t, "default_block_dim", 0);
    st.subgroup_width = (int)cap_int(t, "subgroup_width", 0);
    st.max_push = st.for_msl ? 0 : (int)cap_int(t, "max_push_constant_bytes", 0); /* required for spirv */
    return st;
}

static bool check_type(QdType ty, Span sp, const char *what) {
    if (ty != QT_BF16) return true;
    diag_error(sp, QD5101, "%s has type bf16, which SPIR-V has no type for", what);
    return false;
}

/* bf16 anywhere is a user error on these targets (no BFloat16 in this SPIR-V toolchain). */
static bool check_types(const IrModule *m) {
    bool ok = true;
    for (int i = 0; i < m->nfields; i++) ok &= check_type(m->fields[i].type, m->fields[i].span, "this field");
    /* A field in an SNode storage keeps its own binding, typed by its dtype and indexed by the
     * frontend's i32 element index; the host binds the storage's buffer to each (qdc-abi(7)). */
    for (int i = 0; i < m->nfields && ok; i++)
        if (m->fields[i].storage && m->storages[m->fields[i].storage - 1].bytes / ((qt_bits(m->fields[i].type) + 7) / 8) > INT32_MAX) {
            diag_error(m->fields[i].span, QD5101, "field '%s' is in an SNode storage of more than 2^31-1 elements, "
                                                    "which SPIR-V indexes with 32 bits", m->fields[i].name);
            ok = false;
        }
    for (int k = 0; k < m->nkernels; k++) {
        const IrKernel *kn = &m->kernels[k];
        for (int i = 0; i < kn->nparams; i++) ok &= check_type(kn->params[i].type, kn->params[i].span, "this parameter");
        for (int i = 0; i < kn->nshared; i++) ok &= check_type(kn->shared[i].type, kn->shared[i].span, "this array");
        for (int i = 0; i < kn->nlocals; i++) ok &= check_type(kn->locals[i].type, kn->span, "a local variable");
    }
    return ok;
}

bool spirv_asm(const IrModule *m, const IrLowered *low, const SpvTarget *st, StrBuf *out) {
    return spirv_asm_release(m, low, st, NULL, NULL, out);
}

bool spirv_asm_release(const IrModule *m, const IrLowered *low, const SpvTarget *st, void (*ir_done)(void *ctx), void *ctx,
                       StrBuf *out) {
    StrBuf bin, err;
    sb_init(&bin), sb_init(&err);
    bool ok = spirv_build_release(m, low, st, ir_done, ctx, &bin);
    if (ok && !spv_disassemble((const uint32_t *)bin.data, bin.len / 4, st->env, out, &err))
        die("SPIR-V disassembly failed: %s", err.data);
    sb_free(&bin), sb_free(&err);
    return ok;
}

/* A Vulkan SPIR-V module must have an entry point (without the Linkage capability), and
 * neither SPIR-V nor MSL has anything to say for a module without tasks. */
static bool check_has_tasks(const IrModule *m, const CapTarget *t) {
    for (int k = 0; k < m->nkernels; k++)
        if (m->kernels[k].ntasks > 0) return true;
    diag_error(span_make(m->src, 0, 0), QD5103, "the module defines no kernels, and a %s module for '%s' needs at least one entry point",
               strcmp(cap_backend(t), "msl") ? "SPIR-V" : "Metal", cap_name(t));
    return false;
}

bool backend_spirv_emit(const IrModule *m, const IrLowered *low, const CapTarget *t, const TargetOptions *o, StrBuf *out) {
    SpvTarget st = target_of(t);
    st.debug_lines = o->debug_lines;
    if (st.minor < 0) {
        diag_error(cap_where(t, "spirv.version"), QD3007, "family '%s' has no valid spirv.version (\"1.N\": the SPIR-V "
                                                           "version its environment %s takes)", cap_name(t), st.env);
        return false;
    }
    if (!check_types(m)) return false;
    if (o->emit != EMIT_METADATA && o->emit != EMIT_HEADER && !check_has_tasks(m, t)) return false;
    switch (o->emit) {
    case EMIT_SPIRV: return spirv_build_release(m, low, &st, o->ir_done, o->ir_done_ctx, out);
    case EMIT_SPIRV_ASM: return spirv_asm_release(m, low, &st, o->ir_done, o->ir_done_ctx, out);
    case EMIT_MSL: {
        MslTarget mt = msl_target(t, o->caps, o->ncaps);
        return spirv_msl(m, low, &st, &mt, o->ir_done, o->ir_done_ctx, out);
    }
    case EMIT_METADATA: {
        AbiBindings b = spv_bindings(&st);
        return metadata_emit(m, low, t, o, &b, out);
    }
    case EMIT_HEADER: {
        AbiBindings b = spv_bindings(&st);
        return header_emit(m, t, o, &b, out);
    }
    default: die("emit kind %d is not a SPIR-V/MSL output", (int)o->emit);
    }
}
