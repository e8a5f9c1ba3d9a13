/* qdc's driver: the whole pipeline in one place, top to bottom.
 * read -> parse -> check -> lower -> emit -> write. Only this file decides exit statuses. */
#include "../frontend/frontend.h"
#include "../lowering/lower.h"
#include "../support/fileio.h"
#include "../targets/target.h"
#include "options.h"
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef QDC_VERSION
#define QDC_VERSION "0.1.0"
#endif
#ifndef QDC_INSTALLED_CAPDB
#define QDC_INSTALLED_CAPDB "../share/qdc/capability-db" /* relative to the executable */
#endif

/* Which output kinds each backend produces besides its default. */
static const struct { const char *backend; EmitKind def; unsigned allowed; } backend_emits[] = {
#define B(k) (1u << (k))
    {"x86_64", EMIT_OBJ, B(EMIT_OBJ) | B(EMIT_ASM) | B(EMIT_LLVM_IR) | B(EMIT_HEADER) | B(EMIT_METADATA)},
    {"ptx", EMIT_PTX, B(EMIT_PTX) | B(EMIT_ASM) | B(EMIT_LLVM_IR) | B(EMIT_HEADER) | B(EMIT_METADATA)},
    {"amdgpu", EMIT_HSACO, B(EMIT_HSACO) | B(EMIT_OBJ) | B(EMIT_ASM) | B(EMIT_LLVM_IR) | B(EMIT_HEADER) | B(EMIT_METADATA)},
    {"spirv", EMIT_SPIRV, B(EMIT_SPIRV) | B(EMIT_SPIRV_ASM) | B(EMIT_HEADER) | B(EMIT_METADATA)},
    {"msl", EMIT_MSL, B(EMIT_MSL) | B(EMIT_SPIRV) | B(EMIT_SPIRV_ASM) | B(EMIT_HEADER) | B(EMIT_METADATA)},
#undef B
};

static const char *emit_extension(EmitKind k) {
    switch (k) {
    case EMIT_OBJ: return ".o";
    case EMIT_ASM: return ".s";
    case EMIT_LLVM_IR: return ".ll";
    case EMIT_HEADER: return ".h";
    case EMIT_METADATA: return ".json";
    case EMIT_PTX: return ".ptx";
    case EMIT_HSACO: return ".hsaco";
    case EMIT_SPIRV: return ".spv";
    case EMIT_SPIRV_ASM: return ".spvasm";
    case EMIT_MSL: return ".metal";
    default: return ".out";
    }
}

/* The module name: input basename without its extension ("<stdin>" -> "stdin"). */
static char *module_name(const char *input) {
    if (!strcmp(input, "-")) return xstrdup("stdin");
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? xstrndup(base, (size_t)(dot - base)) : xstrdup(base);
}

/* Capability directories in search order: installed, $QDC_CAPDB_PATH, --capdb-dir. */
static int capdb_dirs(const Options *o, const char ***out, char **owned) {
    const char **dirs = xcalloc((size_t)o->ncapdb_dirs + 64, sizeof *dirs);
    int n = 0;
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    StrBuf all;
    sb_init(&all);
    if (len > 0) {
        exe[len] = 0;
        char *dir = dirname(exe);
        sb_printf(&all, "%s/%s", dir, QDC_INSTALLED_CAPDB);
        sb_putc(&all, 0);
        sb_printf(&all, "%s/../capability-db", dir); /* running from the build tree */
        sb_putc(&all, 0);
    }
    const char *env = getenv("QDC_CAPDB_PATH");
    if (env) sb_puts(&all, env);
    sb_putc(&all, 0);
    *owned = all.data;
    size_t off = 0;
    for (int k = 0; k < 2 && len > 0; k++) {
        if (access(all.data + off, R_OK | X_OK) == 0) dirs[n++] = all.data + off;
        off += strlen(all.data + off) + 1;
    }
    for (char *p = all.data + off; *p && n < 60;) {
        char *colon = strchr(p, ':');
        if (colon) *colon = 0;
        if (*p) dirs[n++] = p;
        if (!colon) break;
        p = colon + 1;
    }
    for (int i = 0; i < o->ncapdb_dirs; i++) dirs[n++] = o->capdb_dirs[i];
    *out = dirs;
    return n;
}

static int usage(const char *fmt, const char *a, const char *b) {
    fprintf(stderr, "qdc: error: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return QDC_EXIT_USAGE;
}

static int write_output(const char *path, const StrBuf *data) {
    int err = 0;
    if (write_file_atomic(path, data->data ? data->data : "", data->len, &err)) return QDC_EXIT_OK;
    Span none = {0};
    diag_error(none, "QD0003", "cannot write '%s': %s", path, strerror(err));
    return QDC_EXIT_INPUT;
}

static Source *read_source(const char *path) {
    char *text = NULL;
    size_t len = 0;
    int err = 0;
    Span none = {0};
    switch (read_file(path, QDC_MAX_INPUT_BYTES, &text, &len, &err)) {
    case READ_OK: break;
    case READ_ISDIR: diag_error(none, "QD0002", "'%s' is a directory, not a kernel file", path); return NULL;
    case READ_TOO_LARGE:
        diag_error(none, "QD0004", "'%s' is larger than the %u MiB limit", path, QDC_MAX_INPUT_BYTES >> 20);
        return NULL;
    case READ_NOENT: diag_error(none, "QD0001", "cannot open '%s': no such file", path); return NULL;
    default: diag_error(none, "QD0001", "cannot read '%s': %s", path, strerror(err)); return NULL;
    }
    Source *s = source_new(strcmp(path, "-") ? path : "<stdin>", text, len);
    free(text);
    return s;
}

/* Parses, checks, lowers and emits one input. Returns the exit status. */
static int compile(const Options *o, const CapTarget *t, EmitKind emit) {
    Source *src = read_source(o->input);
    if (!src) return QDC_EXIT_INPUT;
    Arena arena = {0};
    int rc = QDC_EXIT_INPUT;
    char *modname = module_name(o->input);
    StrBuf out;
    sb_init(&out);
    bool want_output = !o->check_only && !(o->report_lowering && !o->output && o->emit == EMIT_DEFAULT);
    const char *path = o->output;
    char *derived = NULL;
    if (!path) {
        bool to_stdout = !strcmp(o->input, "-") || emit == EMIT_AST || emit == EMIT_IR;
        path = to_stdout ? "-" : (derived = xasprintf("%s%s", modname, emit_extension(emit)));
    }

    AstModule *ast = frontend_parse(src, &arena);
    if (!ast || diag_error_count()) goto done;
    if (emit == EMIT_AST && !o->check_only) {
        ast_dump(ast, &out);
        rc = write_output(path, &out);
        goto done;
    }
    IrModule *ir = frontend_check(ast, &arena);
    if (!ir || diag_error_count()) goto done;
    if (o->check_only && !o->report_lowering) {
        rc = QDC_EXIT_OK;
        goto done;
    }
    LowerOptions lo = {o->caps, o->ncaps};
    if (!lower_check_caps(t, &lo)) {
        rc = QDC_EXIT_USAGE;
        goto done;
    }
    if (!lower_module(ir, t, &lo, &arena) || diag_error_count()) goto done;
    if (o->report_lowering) {
        StrBuf rep;
        sb_init(&rep);
        lower_report(ir, t, o->report_lowering == 2, &rep);
        fwrite(rep.data ? rep.data : "", 1, rep.len, stdout);
        fflush(stdout);
        sb_free(&rep);
    }
    if (!want_output) {
        rc = QDC_EXIT_OK;
        goto done;
    }
    if (emit == EMIT_IR) {
        ir_dump(ir, &out);
    } else {
        const Backend *be = backend_find(cap_backend(t));
        if (!be) die("no backend for '%s'", cap_backend(t));
        TargetOptions to = {emit, o->opt_level, modname};
        if (!be->emit(ir, t, &to, &out) || diag_error_count()) goto done;
    }
    rc = write_output(path, &out);
done:
    sb_free(&out);
    free(derived);
    free(modname);
    arena_free(&arena);
    source_free(src);
    return rc;
}

static int run(const Options *o) {
    if (o->help) return print_usage(stdout), QDC_EXIT_OK;
    if (o->version) {
        printf("qdc %s (LLVM 19 backends, SPIR-V, MSL via SPIRV-Cross)\n", QDC_VERSION);
        return QDC_EXIT_OK;
    }
    if (o->list_warnings) return diag_list_warnings(stdout), QDC_EXIT_OK;
    if (o->list_codes) return diag_list_codes(stdout), QDC_EXIT_OK;

    const char **dirs;
    char *owned;
    int ndirs = capdb_dirs(o, &dirs, &owned);
    CapDb *db = capdb_open(dirs, ndirs);
    free(dirs);
    int rc = QDC_EXIT_OK;
    if (!db) {
        free(owned);
        return diag_error_count() ? QDC_EXIT_INPUT : QDC_EXIT_INTERNAL;
    }
    bool json = o->format && !strcmp(o->format, "json");
    if (o->list_targets) {
        capdb_list_targets(db, stdout);
    } else if (o->print_caps) {
        const CapTarget *t = capdb_target(db, o->print_caps);
        if (!t) rc = usage("unknown target '%s'; known targets: %s", o->print_caps, capdb_target_names(db));
        else capdb_print_target(t, json, stdout);
    } else if (o->support_matrix) {
        if (!o->targets_csv) rc = usage("%s%s", "--support-matrix needs --targets=LIST", "");
        else if (!capdb_support_matrix(db, o->targets_csv, !o->format || !strcmp(o->format, "md"), stdout))
            rc = QDC_EXIT_USAGE;
    } else if (!o->input) {
        rc = usage("%s%s", "no input file (run 'qdc --help' for usage)", "");
    } else {
        const char *tname = o->target ? o->target : "x86_64";
        const CapTarget *t = capdb_target(db, tname);
        EmitKind emit = o->emit;
        unsigned allowed = 0;
        for (size_t k = 0; t && k < ARRAY_LEN(backend_emits); k++)
            if (!strcmp(backend_emits[k].backend, cap_backend(t))) {
                if (emit == EMIT_DEFAULT) emit = backend_emits[k].def;
                allowed = backend_emits[k].allowed | (1u << EMIT_AST) | (1u << EMIT_IR);
            }
        if (!t) rc = usage("unknown target '%s'; known targets: %s", tname, capdb_target_names(db));
        else if (!(allowed & (1u << emit)))
            rc = usage("--emit kind not available for target '%s' (backend %s)", cap_name(t), cap_backend(t));
        else rc = compile(o, t, emit);
    }
    capdb_close(db);
    free(owned);
    return rc;
}

int main(int argc, char **argv) {
    Options o;
    if (!options_parse(argc, argv, &o)) return options_free(&o), QDC_EXIT_USAGE;
    diag_init(&o.diag);
    int rc = run(&o);
    if (rc == QDC_EXIT_OK && diag_error_count()) rc = QDC_EXIT_INPUT;
    diag_finish();
    options_free(&o);
    return rc;
}
