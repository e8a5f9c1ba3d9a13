/* The LLVM target machine: creation from the capability database (triple, cpu, features), the
 * module's data layout, verification, the new pass manager at -O0..-O3, and emission of object
 * code, assembly or textual IR from a clone (emission mutates the module it is given). */
#include "blocksplit.h"
#include "llvm_target.h"
#include <llvm-c/Analysis.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <string.h>

/* The LLVM target each LLVM backend kind (cap_backend()) emits through. Only the one a family
 * needs is registered: registering all of LLVM's targets cost about a millisecond per run. */
#define LLVM_TARGETS(X) X("x86_64", X86) X("ptx", NVPTX) X("amdgpu", AMDGPU)

static void init_llvm_target(const char *backend) {
#define INIT(kind, T)                                                                                                  \
    if (!strcmp(backend, kind)) {                                                                                      \
        static bool done;                                                                                              \
        if (!done) LLVMInitialize##T##TargetInfo(), LLVMInitialize##T##Target(), LLVMInitialize##T##TargetMC(),        \
                   LLVMInitialize##T##AsmPrinter();                                                                    \
        done = true;                                                                                                   \
        return;                                                                                                        \
    }
    LLVM_TARGETS(INIT)
#undef INIT
    die("no LLVM target for backend '%s'", backend);
}

/* LLVM errors raised while optimizing or emitting (unsupported constructs, inline asm the
 * backend rejects) become QD5003 diagnostics instead of aborting qdc. */
static void on_llvm_diagnostic(LLVMDiagnosticInfoRef di, void *ctx) {
    LlvmCg *cg = ctx;
    if (LLVMGetDiagInfoSeverity(di) != LLVMDSError) return;
    char *msg = LLVMGetDiagInfoDescription(di);
    Span none = {0};
    diag_error(none, "QD5003", "LLVM (%s): %s", cap_name(cg->cap), msg);
    LLVMDisposeMessage(msg);
    cg->failed = true;
}

bool machine_init(LlvmCg *cg) {
    init_llvm_target(cap_backend(cg->cap));
    const char *triple = cap_str(cg->cap, "llvm.triple"), *cpu = cap_str(cg->cap, "llvm.cpu");
    const char *features = cap_str(cg->cap, "llvm.features");
    Span none = {0};
    if (!triple || !cpu) {
        diag_error(none, "QD5001", "target '%s' has no llvm.triple/llvm.cpu in the capability database", cap_name(cg->cap));
        return false;
    }
    LLVMTargetRef target;
    char *err = NULL;
    if (LLVMGetTargetFromTriple(triple, &target, &err)) {
        diag_error(none, "QD5001", "LLVM has no target for triple '%s': %s", triple, err);
        LLVMDisposeMessage(err);
        return false;
    }
    static const LLVMCodeGenOptLevel levels[] = {LLVMCodeGenLevelNone, LLVMCodeGenLevelLess,
                                                 LLVMCodeGenLevelDefault, LLVMCodeGenLevelAggressive};
    int ol = cg->opts->opt_level < 0 ? 0 : cg->opts->opt_level > 3 ? 3 : cg->opts->opt_level;
    cg->tm = LLVMCreateTargetMachine(target, triple, cpu, features ? features : "", levels[ol], LLVMRelocPIC,
                                     LLVMCodeModelDefault);
    if (!cg->tm) {
        diag_error(none, "QD5001", "cannot create an LLVM target machine for '%s' (cpu %s)", triple, cpu);
        return false;
    }
    cg->ctx = LLVMContextCreate();
    LLVMContextSetDiagnosticHandler(cg->ctx, on_llvm_diagnostic, cg);
    cg->mod = LLVMModuleCreateWithNameInContext(cg->opts->module_name, cg->ctx);
    LLVMSetTarget(cg->mod, triple);
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(cg->tm);
    LLVMSetModuleDataLayout(cg->mod, dl);
    LLVMDisposeTargetData(dl);
    return true;
}

static void verify(LlvmCg *cg) {
    char *msg = NULL;
    if (LLVMVerifyModule(cg->mod, LLVMReturnStatusAction, &msg)) {
        char *ir = LLVMPrintModuleToString(cg->mod);
        fprintf(stderr, "%s\n", ir);
        LLVMDisposeMessage(ir);
        die("LLVM module failed verification: %s", msg);
    }
    LLVMDisposeMessage(msg);
}

static void optimize(LlvmCg *cg) {
    static const char *const pipelines[] = {"default<O0>", "default<O1>", "default<O2>", "default<O3>"};
    int ol = cg->opts->opt_level < 0 ? 0 : cg->opts->opt_level > 3 ? 3 : cg->opts->opt_level;
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    /* at -O0 still promote the allocas so the output is readable and CAS loops stay tight */
    LLVMErrorRef e = LLVMRunPasses(cg->mod, ol ? pipelines[ol] : "mem2reg", cg->tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (e) {
        char *m = LLVMGetErrorMessage(e);
        die("LLVM pass pipeline failed: %s", m);
    }
}

bool machine_emit(LlvmCg *cg, EmitKind kind, StrBuf *out) {
    verify(cg);
    optimize(cg);
    cg_split_long_blocks(cg->mod);
    verify(cg);
    if (kind == EMIT_LLVM_IR) {
        char *s = LLVMPrintModuleToString(cg->mod);
        sb_puts(out, s);
        LLVMDisposeMessage(s);
        return true;
    }
    LLVMModuleRef clone = LLVMCloneModule(cg->mod);
    LLVMMemoryBufferRef buf = NULL;
    char *err = NULL;
    LLVMCodeGenFileType ft = kind == EMIT_OBJ || kind == EMIT_DEFAULT ? LLVMObjectFile : LLVMAssemblyFile;
    LLVMBool failed = LLVMTargetMachineEmitToMemoryBuffer(cg->tm, clone, ft, &err, &buf);
    LLVMDisposeModule(clone);
    if (cg->failed) {
        if (buf) LLVMDisposeMemoryBuffer(buf);
        LLVMDisposeMessage(err);
        return false;
    }
    if (failed) {
        Span none = {0};
        diag_error(none, "QD5003", "LLVM could not emit code for '%s': %s", cap_name(cg->cap), err ? err : "?");
        LLVMDisposeMessage(err);
        return false;
    }
    sb_append(out, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf));
    LLVMDisposeMemoryBuffer(buf);
    return true;
}

void machine_dispose(LlvmCg *cg) {
    if (cg->b) LLVMDisposeBuilder(cg->b);
    if (cg->mod) LLVMDisposeModule(cg->mod);
    if (cg->ctx) LLVMContextDispose(cg->ctx);
    if (cg->tm) LLVMDisposeTargetMachine(cg->tm);
    free(cg->field_globals), free(cg->storage_globals);
    cg->b = NULL, cg->mod = NULL, cg->ctx = NULL, cg->tm = NULL, cg->field_globals = NULL, cg->storage_globals = NULL;
}
