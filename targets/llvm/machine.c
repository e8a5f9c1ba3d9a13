/* The LLVM target machine: creation from the capability database (triple, cpu, features), the
 * module's data layout, verification, the new pass manager at -O0..-O3, and emission of object
 * code, assembly or textual IR from a clone (emission mutates the module it is given). */
#include "blocksplit.h"
#include "llvm_target.h"
#include <errno.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/Support.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Any LLVM fatal error ("Cannot select", an impossible subtarget) is qdc's internal error:
 * exit status 3, never an abort. */
static void on_llvm_fatal(const char *reason) { die("LLVM: %s", reason); }

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
    static bool handler;
    if (!handler) LLVMInstallFatalErrorHandler(on_llvm_fatal), handler = true;
    LLVM_TARGETS(INIT)
#undef INIT
    die("no LLVM target for backend '%s'", backend);
}

/* ---- the family check: llvm.cpu and llvm.features against LLVM's target ---- */

/* Runs child(arg, fd) in a forked process and appends what it writes to fd (a pipe, also its
 * stderr when onto_stderr) to *got; the child's wait status. The child must end with _exit. */
static int run_child(void (*child)(void *arg, int fd), void *arg, bool onto_stderr, StrBuf *got) {
    int fds[2];
    if (pipe(fds)) die("pipe: %s", strerror(errno));
    fflush(stdout), fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) die("fork: %s", strerror(errno));
    if (pid == 0) {
        close(fds[0]);
        if (onto_stderr) dup2(fds[1], STDERR_FILENO);
        child(arg, fds[1]);
        _exit(3);
    }
    close(fds[1]);
    char chunk[65536];
    for (ssize_t n; (n = read(fds[0], chunk, sizeof chunk)) != 0;)
        if (n > 0) sb_append(got, chunk, (size_t)n);
        else if (errno != EINTR) break;
    close(fds[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    return st;
}

typedef struct Probe {
    LLVMTargetRef target;
    const char *triple, *cpu, *features;
} Probe;

/* In the child: a target machine for the family and one empty function compiled with it. LLVM
 * warns on stderr about an unknown processor or feature and aborts on an impossible subtarget. */
static void probe_child(void *arg, int fd) {
    const Probe *p = arg;
    (void)fd;
    LLVMResetFatalErrorHandler();
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(p->target, p->triple, p->cpu, p->features, LLVMCodeGenLevelNone,
                                                      LLVMRelocPIC, LLVMCodeModelDefault);
    if (!tm) _exit(1);
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("probe", ctx);
    LLVMSetTarget(mod, p->triple);
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(mod, dl);
    LLVMValueRef fn = LLVMAddFunction(mod, "probe", LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
    LLVMBuildRetVoid(b);
    LLVMMemoryBufferRef buf = NULL;
    char *err = NULL;
    _exit(LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMAssemblyFile, &err, &buf) ? 1 : 0);
}

/* What a child that probes the family says on stderr, and whether it succeeded. */
static bool probe(LLVMTargetRef target, const char *triple, const char *cpu, const char *features, StrBuf *said) {
    Probe p = {target, triple, cpu, features};
    int st = run_child(probe_child, &p, true, said);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static bool check_features(const CapTarget *t, LLVMTargetRef target, const char *triple, const char *cpu,
                           const char *fkey) {
    const char *features = cap_str(t, fkey);
    StrBuf said;
    sb_init(&said);
    bool ran = probe(target, triple, cpu, features ? features : "", &said), bad_cpu = false;
    const char *reported = NULL; /* LLVM repeats its warnings once per subtarget it builds */
    int errors = 0;
    for (char *line = said.data; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        if (strstr(line, "is not a recognized processor")) {
            if (!bad_cpu)
                diag_error(cap_where(t, "llvm.cpu"), QD3012, "LLVM's target for '%s' has no processor '%s' (llvm.cpu of '%s')",
                           triple, cpu, cap_name(t)), errors++;
            bad_cpu = true;
        } else if (strstr(line, "is not a recognized feature")) {
            if (!reported || strcmp(reported, line))
                diag_error(cap_where(t, fkey), QD3012, "%s of '%s': %s", fkey, cap_name(t), line), errors++;
            reported = line;
        } else if (!ran && !errors && *line) {
            diag_error(cap_where(t, features && *features ? fkey : "llvm.cpu"), QD3012,
                       "LLVM cannot compile for '%s' (llvm.cpu '%s', %s '%s'): %s", cap_name(t), cpu, fkey,
                       features ? features : "", line), errors++;
        }
        line = nl ? nl + 1 : NULL;
    }
    if (!ran && !errors)
        diag_error(cap_where(t, "llvm.cpu"), QD3012, "LLVM cannot compile for '%s' (llvm.cpu '%s', %s '%s')",
                   cap_name(t), cpu, fkey, features ? features : ""), errors++;
    sb_free(&said);
    return !errors;
}

/* A family's llvm.passes (and llvm.large_passes) is parsed by LLVM's pass builder, here on an
 * empty module (in process: an unknown pass or a malformed pipeline is an error LLVM returns,
 * never an abort): what LLVM says becomes QD3012 at the line that sets the value. */
static bool check_pipeline(const CapTarget *t, LLVMTargetRef target, const char *triple, const char *cpu,
                           const char *key) {
    const char *passes = cap_str(t, key);
    if (!passes || !*passes) return true;
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, cpu, "", LLVMCodeGenLevelDefault, LLVMRelocPIC,
                                                      LLVMCodeModelDefault);
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("passes", ctx);
    LLVMSetTarget(mod, triple);
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(mod, passes, tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (e) {
        char *m = LLVMGetErrorMessage(e);
        diag_error(cap_where(t, key), QD3012, "%s of '%s': LLVM cannot run this pipeline: %s", key, cap_name(t), m);
        LLVMDisposeErrorMessage(m);
    }
    LLVMDisposeModule(mod);
    LLVMContextDispose(ctx);
    if (tm) LLVMDisposeTargetMachine(tm);
    return !e;
}

/* LLVM only warns about an unknown llvm.cpu or llvm.features and aborts later, so a family from
 * a user's capability file is first compiled for in a child process: what LLVM says there becomes
 * QD3012 at the line of the capability file that sets the value. The features a module with vector
 * atomics is compiled with (vector_atomics.llvm_features) are probed the same way; an unknown
 * llvm.triple is QD5001 at its line. A shipped family needs no probe (the suite compiles for every
 * one: tests/unit/test_llvm_family.c), and a run forks nothing. */
bool backend_llvm_check(const CapTarget *t) {
    if (cap_shipped(t)) return true;
    init_llvm_target(cap_backend(t));
    const char *triple = cap_str(t, "llvm.triple"), *cpu = cap_str(t, "llvm.cpu");
    LLVMTargetRef target;
    char *err = NULL;
    if (!triple || !cpu) return true; /* machine_init reports QD5001 */
    if (LLVMGetTargetFromTriple(triple, &target, &err)) {
        diag_error(cap_where(t, "llvm.triple"), QD5001, "LLVM has no target for triple '%s' (llvm.triple of '%s'): %s",
                   triple, cap_name(t), err);
        LLVMDisposeMessage(err);
        return false;
    }
    bool ok = check_features(t, target, triple, cpu, "llvm.features");
    if (ok && cap_str(t, "vector_atomics.llvm_features"))
        ok = check_features(t, target, triple, cpu, "vector_atomics.llvm_features");
    return ok && check_pipeline(t, target, triple, cpu, "llvm.passes") &&
           check_pipeline(t, target, triple, cpu, "llvm.large_passes");
}

/* LLVM errors raised while optimizing or emitting (unsupported constructs, inline asm the
 * backend rejects) become QD5003 diagnostics instead of aborting qdc. */
static void on_llvm_diagnostic(LLVMDiagnosticInfoRef di, void *ctx) {
    LlvmCg *cg = ctx;
    if (LLVMGetDiagInfoSeverity(di) != LLVMDSError) return;
    char *msg = LLVMGetDiagInfoDescription(di);
    Span none = {0};
    diag_error(none, QD5003, "LLVM (%s): %s", cap_name(cg->cap), msg);
    LLVMDisposeMessage(msg);
    cg->failed = true;
}

bool machine_init(LlvmCg *cg) {
    init_llvm_target(cap_backend(cg->cap));
    const char *triple = cap_str(cg->cap, "llvm.triple"), *cpu = cap_str(cg->cap, "llvm.cpu");
    const char *features = cap_llvm_features(cg->cap, cg->opts->caps, cg->opts->ncaps); /* --cap=+wave32 */
    if (cg->low && cg->low->nvector && cap_str(cg->cap, "vector_atomics.llvm_features"))
        features = cap_str(cg->cap, "vector_atomics.llvm_features"); /* PTX ISA of vector atomics */
    Span none = {0};
    if (!triple || !cpu) {
        diag_error(none, QD5001, "target '%s' has no llvm.triple/llvm.cpu in the capability database", cap_name(cg->cap));
        return false;
    }
    LLVMTargetRef target;
    char *err = NULL;
    if (LLVMGetTargetFromTriple(triple, &target, &err)) {
        diag_error(cap_where(cg->cap, "llvm.triple"), QD5001, "LLVM has no target for triple '%s' (llvm.triple of '%s'): %s",
                   triple, cap_name(cg->cap), err);
        LLVMDisposeMessage(err);
        return false;
    }
    static const LLVMCodeGenOptLevel levels[] = {LLVMCodeGenLevelNone, LLVMCodeGenLevelLess,
                                                 LLVMCodeGenLevelDefault, LLVMCodeGenLevelAggressive};
    int ol = cg->opts->opt_level < 0 ? 0 : cg->opts->opt_level > 3 ? 3 : cg->opts->opt_level;
    cg->tm = LLVMCreateTargetMachine(target, triple, cpu, features ? features : "", levels[ol], LLVMRelocPIC,
                                     LLVMCodeModelDefault);
    if (!cg->tm) {
        diag_error(none, QD5001, "cannot create an LLVM target machine for '%s' (cpu %s)", triple, cpu);
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
        if (!diag_machine_format()) { /* in JSON/SARIF stderr holds nothing but records */
            char *ir = LLVMPrintModuleToString(cg->mod);
            fprintf(stderr, "%s\n", ir);
            LLVMDisposeMessage(ir);
        }
        die("LLVM module failed verification: %s", msg);
    }
    LLVMDisposeMessage(msg);
}

/* The instruction count of the module's largest function. */
static long largest_function(LLVMModuleRef mod) {
    long most = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
        long n = 0;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) n++;
        if (n > most) most = n;
    }
    return most;
}

/* The middle end: at -O2 (the default) the family's llvm.passes where it sets one, a function
 * pipeline that gives the code of LLVM's default<O2> on qdc's IR without its inliner and
 * interprocedural passes (qdc-capdb(5)); LLVM's default pipelines otherwise. A module whose
 * largest function has more than llvm.large_passes_function instructions before the pipeline gets
 * llvm.large_passes instead, where the family sets both: fewer InstCombine runs, each of which
 * tries anew to prove every add and mul of a long wrapping chain free of signed overflow. At -O0
 * the allocas are still promoted, so the output is readable and CAS loops stay tight. */
static const char *pipeline(const CapTarget *cap, LLVMModuleRef mod, int ol) {
    static const char *const pipelines[] = {"mem2reg", "default<O1>", "default<O2>", "default<O3>"};
    const char *passes = cap_str(cap, "llvm.passes"), *large = cap_str(cap, "llvm.large_passes");
    long from = cap_int(cap, "llvm.large_passes_function", 0);
    if (ol == 2 && large && *large && from > 0 && largest_function(mod) > from) return large;
    return ol == 2 && passes && *passes ? passes : pipelines[ol];
}

static void optimize(LlvmCg *cg) {
    int ol = cg->opts->opt_level < 0 ? 0 : cg->opts->opt_level > 3 ? 3 : cg->opts->opt_level;
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(cg->mod, pipeline(cg->cap, cg->mod, ol), cg->tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (e) {
        char *m = LLVMGetErrorMessage(e);
        die("LLVM pass pipeline failed: %s", m);
    }
}

/* Emission of a module holding a function larger than the family's llvm.large_function
 * (qdc-capdb(5)): LLVM's pre-RA machine scheduler and stack-slot colouring are quadratic in the
 * values live across a loop, so they are turned off. LLVM's switches are process-wide and can be
 * given once, hence a child process: this output alone is compiled so, and the parent reads the
 * bytes from a pipe. False (message in *err) when the child fails. */
typedef struct LargeEmit {
    LlvmCg *cg;
    LLVMModuleRef mod;
    LLVMCodeGenFileType ft;
} LargeEmit;

/* In the child: the switches, then the output (or LLVM's message, exit status 1) into fd. */
static void large_emit_child(void *arg, int fd) {
    const LargeEmit *e = arg;
    static const char *const argv[] = {"qdc", "-enable-misched=false", "-disable-ssc"};
    LLVMParseCommandLineOptions(3, argv, NULL);
    LLVMMemoryBufferRef buf = NULL;
    char *msg = NULL;
    bool failed = LLVMTargetMachineEmitToMemoryBuffer(e->cg->tm, e->mod, e->ft, &msg, &buf) || e->cg->failed;
    const char *p = failed ? (msg ? msg : "LLVM reported the error above") : LLVMGetBufferStart(buf);
    size_t len = failed ? strlen(p) : LLVMGetBufferSize(buf);
    for (ssize_t n; len; p += n, len -= (size_t)n)
        if ((n = write(fd, p, len)) < 0 && errno != EINTR) _exit(3);
        else if (n < 0) n = 0;
    _exit(failed ? 1 : 0);
}

static bool emit_without_quadratic_passes(LlvmCg *cg, LLVMModuleRef mod, LLVMCodeGenFileType ft, StrBuf *out,
                                          char **err) {
    LargeEmit e = {cg, mod, ft};
    StrBuf got;
    sb_init(&got);
    int st = run_child(large_emit_child, &e, false, &got);
    bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (ok) sb_append(out, got.data, got.len);
    else if (WIFEXITED(st) && WEXITSTATUS(st) == 1) *err = xasprintf("%.*s", (int)got.len, got.data);
    else *err = xasprintf("the code-generation child process ended with status %#x", st);
    sb_free(&got);
    return ok;
}

bool machine_emit(LlvmCg *cg, EmitKind kind, StrBuf *out) {
    verify(cg);
    optimize(cg);
    cg_split_long_blocks(cg->mod, cg->tgt->pin_constraint);
    verify(cg);
    if (kind == EMIT_LLVM_IR) {
        char *s = LLVMPrintModuleToString(cg->mod);
        sb_puts(out, s);
        LLVMDisposeMessage(s);
        return true;
    }
    /* emitted in place (a copy of a large kernel's optimised module cost as much memory again):
     * nothing reads the module afterwards */
    LLVMMemoryBufferRef buf = NULL;
    char *err = NULL;
    LLVMCodeGenFileType ft = kind == EMIT_OBJ || kind == EMIT_DEFAULT ? LLVMObjectFile : LLVMAssemblyFile;
    long large = cap_int(cg->cap, "llvm.large_function", 0);
    if (large > 0 && largest_function(cg->mod) > large) {
        bool ok = emit_without_quadratic_passes(cg, cg->mod, ft, out, &err);
        if (!ok) diag_error((Span){0}, QD5003, "LLVM could not emit code for '%s': %s", cap_name(cg->cap), err);
        free(err);
        return ok;
    }
    LLVMBool failed = LLVMTargetMachineEmitToMemoryBuffer(cg->tm, cg->mod, ft, &err, &buf);
    if (cg->failed) {
        if (buf) LLVMDisposeMemoryBuffer(buf);
        LLVMDisposeMessage(err);
        return false;
    }
    if (failed) {
        Span none = {0};
        diag_error(none, QD5003, "LLVM could not emit code for '%s': %s", cap_name(cg->cap), err ? err : "?");
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
