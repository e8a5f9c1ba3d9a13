/* -g on the LLVM backends: one DICompileUnit per module for the input as named on the command
 * line (no directory is added, so the output holds an absolute path only when the user gave
 * one), a DISubprogram per entry function at its task's first line, and a DILocation per IR
 * statement. LLVM turns these into DWARF .debug_line (x86 objects and assembly, AMDGPU code
 * objects) and `.file`/`.loc` directives (PTX). Line tables only: no variables or types. */
#include "llvm_target.h"
#include <string.h>

void cg_debug_begin(LlvmCg *cg) {
    if (!cg->opts->debug_lines || !cg->m->src) return;
    const char *name = cg->m->src->name;
    cg->dib = LLVMCreateDIBuilder(cg->mod);
    cg->di_file = LLVMDIBuilderCreateFile(cg->dib, name, strlen(name), "", 0);
    LLVMDIBuilderCreateCompileUnit(cg->dib, LLVMDWARFSourceLanguagePython, cg->di_file, "qdc", 3,
                                   cg->opts->opt_level > 0, "", 0, 0, "", 0, LLVMDWARFEmissionLineTablesOnly, 0, 0,
                                   0, "", 0, "", 0);
    LLVMValueRef version = LLVMConstInt(LLVMInt32TypeInContext(cg->ctx), LLVMDebugMetadataVersion(), 0);
    LLVMAddModuleFlag(cg->mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18, LLVMValueAsMetadata(version));
}

static unsigned line_of(Span at, unsigned *col) {
    uint32_t line = 0, c = 0;
    if (at.src) source_line_col(at.src, at.off, &line, &c);
    if (col) *col = c;
    return line;
}

void cg_debug_function(LlvmCg *cg, Span at) {
    if (!cg->dib) return;
    size_t n = 0;
    const char *name = LLVMGetValueName2(cg->fn, &n);
    unsigned line = line_of(at, NULL);
    LLVMMetadataRef type = LLVMDIBuilderCreateSubroutineType(cg->dib, cg->di_file, NULL, 0, LLVMDIFlagZero);
    LLVMMetadataRef sp = LLVMDIBuilderCreateFunction(cg->dib, cg->di_file, name, n, name, n, cg->di_file, line, type, 0,
                                                     1, line, LLVMDIFlagZero, cg->opts->opt_level > 0);
    LLVMSetSubprogram(cg->fn, sp);
    cg_debug_at(cg, at);
}

void cg_debug_at(LlvmCg *cg, Span at) {
    if (!cg->dib || !at.src) return;
    LLVMMetadataRef sp = LLVMGetSubprogram(cg->fn);
    if (!sp) return;
    unsigned col, line = line_of(at, &col);
    LLVMSetCurrentDebugLocation2(cg->b, LLVMDIBuilderCreateDebugLocation(cg->ctx, line, col, sp, NULL));
}

void cg_debug_end(LlvmCg *cg) {
    if (!cg->dib) return;
    LLVMDIBuilderFinalize(cg->dib);
    LLVMDisposeDIBuilder(cg->dib);
    cg->dib = NULL;
}
