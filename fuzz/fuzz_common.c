/* Shared plumbing of the libFuzzer targets (see fuzz.h). Mirrors compile() in cli/main.c. */
#include "fuzz.h"
#include "../frontend/frontend.h"
#include "../lower/lower.h"
#include "../targets/target.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fuzz_quiet_diagnostics(void) {
    DiagConfig cfg = {0};
    cfg.format = DIAG_TEXT;
    cfg.color = DIAG_COLOR_NEVER;
    cfg.error_limit = 0;
    cfg.out = fopen("/dev/null", "w");
    if (!cfg.out) die("cannot open /dev/null");
    diag_init(&cfg);
}

CapDb *fuzz_open_capdb(const char *user_dir, bool lazy) {
    const char *root = getenv("QDC_ROOT");
    char *dir = xasprintf("%s/capability-db", root && *root ? root : ".");
    const char *dirs[2] = {user_dir ? user_dir : dir, dir};
    int ndirs = user_dir ? 2 : 1, nuser = user_dir ? 1 : 0;
    CapDb *db = lazy ? capdb_open_lazy(dirs, ndirs, nuser) : capdb_open_search(dirs, ndirs, nuser);
    free(dir);
    return db;
}

const CapTarget **fuzz_all_targets(CapDb *db, unsigned *n) {
    const CapTarget **ts = NULL;
    *n = 0;
    char *names = xstrdup(capdb_target_names(db));
    for (char *save, *name = strtok_r(names, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        while (*name == ' ') name++;
        const CapTarget *t = capdb_target(db, name);
        if (!t) continue;
        ts = xrealloc(ts, sizeof *ts * (*n + 1));
        ts[(*n)++] = t;
    }
    free(names);
    if (!*n) die("no families in the capability database");
    return ts;
}

/* The backend's natural artifact (as the driver resolves EMIT_DEFAULT), except AMDGPU: the
 * unlinked object, so that no ld.lld-19 process is spawned per input. */
static EmitKind fuzz_emit_kind(const CapTarget *t) {
    const Backend *be = backend_find(cap_backend(t));
    if (!be) die("fuzz: no backend '%s'", cap_backend(t));
    return be->in_process;
}

uint32_t fuzz_hash(const uint8_t *data, size_t size) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 16777619u;
    return h;
}

/* -O0 is most of an input's cost saved (no optimization pipeline, LLVM's fast instruction
 * selection and register allocation) and reaches the same qdc code: the frontend, lowering, IR
 * emission and LLVM's verifier run identically; only LLVM's own optimizers, which libFuzzer's
 * coverage does not see (libLLVM is not instrumented), wait for the eighth input. The hash's
 * high bits choose, so the low bits' family choices (fuzz_kernel) are independent of it. */
int fuzz_opt_level(uint32_t h) { return (h >> 29) == 0 ? 2 : 0; }

static bool emit(const IrModule *ir, const CapTarget *t, Arena *arena, int opt_level) {
    LowerOptions lo = {NULL, 0, false, false};
    int before = diag_error_count();
    const IrLowered *low = lower_module(ir, t, &lo, arena);
    if (!low || diag_error_count() != before) return false;
    StrBuf rep, out;
    sb_init(&rep), sb_init(&out);
    lower_report(ir, low, t, true, &rep);
    const Backend *be = backend_find(cap_backend(t));
    if (!be) die("no backend for '%s'", cap_backend(t));
    TargetOptions to = {.emit = fuzz_emit_kind(t), .opt_level = opt_level, .module_name = "fuzz"};
    bool ok = be->emit(ir, low, t, &to, &out) && diag_error_count() == before;
    sb_free(&rep), sb_free(&out);
    return ok;
}

bool fuzz_compile(const char *name, const uint8_t *text, size_t len, const CapTarget *t) {
    return fuzz_compile_at(name, text, len, t, 2);
}

bool fuzz_compile_at(const char *name, const uint8_t *text, size_t len, const CapTarget *t, int opt_level) {
    diag_reset_counts();
    Source *src = source_new(name, (const char *)text, len);
    Arena arena = {0};
    int before = diag_error_count();
    bool ok = false;
    AstModule *ast = frontend_parse(src, &arena);
    if (ast && diag_error_count() == before) {
        StrBuf dump;
        sb_init(&dump);
        ast_dump(ast, &dump);
        IrModule *ir = frontend_check(ast, &arena);
        if (ir && diag_error_count() == before) {
            ir_expand_module(ir, &arena);
            ir_dump(ir, NULL, &dump);
            ok = t ? emit(ir, t, &arena, opt_level) : true;
        }
        sb_free(&dump);
    }
    arena_free(&arena);
    source_free(src);
    return ok;
}
