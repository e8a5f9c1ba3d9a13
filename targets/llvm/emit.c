/* backend_llvm_emit: the LLVM backends' entry. Picks the hook table for the family's backend,
 * answers --emit=header/metadata generically, otherwise builds, optimizes and emits a module. */
#include "../abi.h"
#include "llvm_target.h"
#include <string.h>

/* One row per LLVM backend kind (cap_backend()); each target's owner adds its row. */
static const LlvmTarget *const llvm_targets[] = {
    &llvm_target_x86,
    &llvm_target_nvptx,
    &llvm_target_amdgpu,
};

static const LlvmTarget *find_target(const char *backend) {
    for (size_t i = 0; i < ARRAY_LEN(llvm_targets); i++)
        if (!strcmp(llvm_targets[i]->backend, backend)) return llvm_targets[i];
    return NULL;
}

bool backend_llvm_emit(const IrModule *m, const IrLowered *low, const CapTarget *t, const TargetOptions *o, StrBuf *out) {
    if (o->emit == EMIT_HEADER) return header_emit(m, t, o, NULL, out);
    if (o->emit == EMIT_METADATA) return metadata_emit(m, low, t, o, NULL, out);
    const LlvmTarget *tgt = find_target(cap_backend(t));
    if (!tgt) die("no LLVM hooks for backend '%s'", cap_backend(t));
    LlvmCg cg = {.m = m, .low = low, .cap = t, .opts = o, .tgt = tgt};
    bool ok = machine_init(&cg) && cg_build_module(&cg);
    IrLowered kept; /* what emission still reads of the lowering (PTX: nvector) */
    if (ok && o->ir_done) {
        kept = (IrLowered){.nvector = low ? low->nvector : 0};
        cg.m = NULL, cg.low = low ? &kept : NULL;
        o->ir_done(o->ir_done_ctx);
    }
    if (ok) ok = tgt->emit_artifact ? tgt->emit_artifact(&cg, o->emit, out) : machine_emit(&cg, o->emit, out);
    machine_dispose(&cg);
    return ok;
}
