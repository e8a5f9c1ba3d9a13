/* qdc's driver: the whole pipeline in one place, top to bottom.
 * read -> parse -> check -> lower -> emit -> write. Only this file decides exit statuses. */
#include "../frontend/frontend.h"
#include "../lower/lower.h"
#include "../support/fileio.h"
#include "../targets/abi.h"
#include "../targets/target.h"
#include "depfile.h"
#include "options.h"
#include "stats.h"
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef QDC_VERSION
#define QDC_VERSION "0.1.0"
#endif
#ifndef QDC_INSTALLED_CAPDB
#define QDC_INSTALLED_CAPDB "../share/qdc/capability-db" /* relative to the executable */
#endif

/* The module name: input basename without its extension ("<stdin>" -> "stdin"). */
static char *module_name(const char *input) {
    if (!strcmp(input, "-")) return xstrdup("stdin");
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? xstrndup(base, (size_t)(dot - base)) : xstrdup(base);
}

/* A directory the user named (--capdb-dir, $QDC_CAPDB_PATH) that cannot be listed: warned
 * about (QD0006) and skipped, never silently ignored. */
static bool capdb_dir_ok(const char *dir, const char *from) {
    struct stat st;
    int err = stat(dir, &st) ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : 0;
    DIR *d = err ? NULL : opendir(dir);
    if (d) return closedir(d), true;
    if (!err) err = errno;
    Span none = {0};
    diag_warning(none, "QD0006", "%s directory '%s' is ignored: %s", from, dir,
                 err == ENOTDIR ? "not a directory" : strerror(err));
    return false;
}

/* The build tree's database, when this qdc runs from a build tree: `make` writes
 * <exe dir>/qdc-build-tree holding the database's path relative to that directory. An
 * installed qdc has no such file and never looks outside <prefix>/share/qdc. */
static bool build_tree_capdb(const char *exe_dir, StrBuf *out) {
    char *marker = xasprintf("%s/qdc-build-tree", exe_dir), *text = NULL;
    size_t len = 0;
    int err = 0;
    bool ok = read_file(marker, 4096, &text, &len, &err) == READ_OK;
    free(marker);
    while (ok && len && (text[len - 1] == '\n' || text[len - 1] == '\r')) text[--len] = 0;
    if (ok && len) sb_printf(out, "%s/%s", exe_dir, text), sb_putc(out, 0);
    free(text);
    return ok && len;
}

/* Capability directories in search order: installed, the build tree's (only when running from
 * one), $QDC_CAPDB_PATH (every entry), --capdb-dir. */
static int capdb_dirs(const Options *o, const char ***out, char **owned) {
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    StrBuf all;
    sb_init(&all);
    int nfixed = 0;
    if (len > 0) {
        exe[len] = 0;
        char *dir = dirname(exe);
        sb_printf(&all, "%s/%s", dir, QDC_INSTALLED_CAPDB);
        sb_putc(&all, 0);
        nfixed = 1 + build_tree_capdb(dir, &all);
    }
    const char *env = getenv("QDC_CAPDB_PATH");
    if (env) sb_puts(&all, env);
    sb_putc(&all, 0);
    *owned = all.data;
    int cap = nfixed + o->ncapdb_dirs + 1, n = 0;
    for (const char *p = env; p && *p; p++) cap += *p == ':';
    const char **dirs = xcalloc((size_t)cap, sizeof *dirs);
    size_t off = 0;
    for (int k = 0; k < nfixed; k++) {
        if (access(all.data + off, R_OK | X_OK) == 0) dirs[n++] = all.data + off;
        off += strlen(all.data + off) + 1;
    }
    for (char *p = all.data + off; *p;) {
        char *colon = strchr(p, ':');
        if (colon) *colon = 0;
        if (*p && capdb_dir_ok(p, "QDC_CAPDB_PATH")) dirs[n++] = p;
        if (!colon) break;
        p = colon + 1;
    }
    for (int i = 0; i < o->ncapdb_dirs; i++)
        if (capdb_dir_ok(o->capdb_dirs[i], "--capdb-dir")) dirs[n++] = o->capdb_dirs[i];
    *out = dirs;
    return n;
}

static int usage(const char *fmt, const char *a, const char *b) {
    diag_usage(fmt, a, b);
    return QDC_EXIT_USAGE;
}

/* Standard output after everything was printed to it: a full disk or a closed pipe is exit 1,
 * reported once (QD0003), never a silent success with truncated output. */
static bool stdout_ok(void) {
    static bool reported;
    if (fflush(stdout) == 0 && !ferror(stdout)) return true;
    int err = errno;
    if (!reported) diag_error((Span){0}, "QD0003", "cannot write standard output: %s", err ? strerror(err) : "write error");
    reported = true;
    return false;
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

/* One target of a run: the family, what to emit, where, and the bytes produced. */
typedef struct Job {
    const CapTarget *t;
    EmitKind emit;
    char *path;
    StrBuf out;
} Job;

/* Lowers the checked module for one job (its own decisions; the module is shared and never
 * changed) and emits it; false after diagnostics. */
static bool lower_and_emit(const Options *o, const IrModule *ir, Job *j, const char *modname, Arena *arena, int *rc) {
    LowerOptions lo = {o->caps, o->ncaps};
    if (!lower_check_caps(j->t, &lo)) return *rc = QDC_EXIT_USAGE, false;
    const IrLowered *low = lower_module(ir, j->t, &lo, arena);
    if (!low || diag_error_count()) return false;
    if (o->report_lowering) {
        StrBuf rep;
        sb_init(&rep);
        lower_report(ir, low, j->t, o->report_lowering == 2, &rep);
        fwrite(rep.data ? rep.data : "", 1, rep.len, stdout);
        fflush(stdout);
        sb_free(&rep);
    }
    if (!j->path) return true;
    if (j->emit == EMIT_IR) return ir_dump(ir, low, &j->out), true;
    const Backend *be = backend_find(cap_backend(j->t));
    if (!be) die("no backend for '%s'", cap_backend(j->t));
    TargetOptions to = {j->emit, o->opt_level, modname};
    return be->emit(ir, low, j->t, &to, &j->out) && !diag_error_count();
}

/* The capability search path, kept for depfiles. */
typedef struct SearchPath {
    const char **dirs;
    int n;
} SearchPath;

/* capdb_target_files() names files "<dir basename>/<file>"; the depfile needs a path that
 * opens: the first search directory with that basename holding the file (first file wins). */
static char *capdb_file_path(const SearchPath *sp, const char *disp) {
    const char *slash = strchr(disp, '/');
    for (int i = 0; slash && i < sp->n; i++) {
        size_t n = strlen(sp->dirs[i]);
        while (n > 1 && sp->dirs[i][n - 1] == '/') n--;
        size_t b = n;
        while (b > 0 && sp->dirs[i][b - 1] != '/') b--;
        if (n - b != (size_t)(slash - disp) || strncmp(sp->dirs[i] + b, disp, n - b)) continue;
        char *path = xasprintf("%.*s%s", (int)n, sp->dirs[i], slash);
        if (access(path, F_OK) == 0) return path;
        free(path);
    }
    return xstrdup(disp);
}

/* The depfile: the input (unless stdin) and every capability file the targets read. */
static void render_depfile(const Options *o, const Job *jobs, int njobs, const SearchPath *sp, StrBuf *b) {
    VEC(const char *) deps = {0};
    VEC(char *) owned = {0};
    if (strcmp(o->input, "-")) vec_push(&deps, o->input);
    for (int j = 0; j < njobs; j++) {
        const char **files;
        int n = capdb_target_files(jobs[j].t, &files);
        for (int k = 0; k < n; k++) {
            char *path = capdb_file_path(sp, files[k]);
            bool seen = false;
            for (int d = 0; d < deps.len && !seen; d++) seen = !strcmp(deps.items[d], path);
            if (seen) {
                free(path);
                continue;
            }
            vec_push(&deps, path);
            vec_push(&owned, path);
        }
    }
    DepTarget *tg = o->dep_targets;
    int ntg = o->ndep_targets;
    DepTarget fallback[64];
    if (!ntg) {
        for (int j = 0; j < njobs; j++) fallback[ntg++] = (DepTarget){jobs[j].path, true};
        tg = fallback;
    }
    dep_render(b, tg, ntg, deps.items, deps.len, strcmp(o->input, "-") ? 1 : 0, o->dep_phony);
    for (int i = 0; i < owned.len; i++) free(owned.items[i]);
    free(deps.items), free(owned.items);
}

/* Writes every output of the run and the depfile together: all of them, or none (QD0003). */
static int write_outputs(const Options *o, Job *jobs, int njobs, const char *dep_path, const SearchPath *sp) {
    OutputSet *set = outputs_new();
    StrBuf dep;
    sb_init(&dep);
    for (int j = 0; j < njobs; j++)
        if (jobs[j].path) outputs_add(set, jobs[j].path, jobs[j].out.data, jobs[j].out.len);
    if (dep_path) {
        render_depfile(o, jobs, njobs, sp, &dep);
        outputs_add(set, dep_path, dep.data, dep.len);
    }
    const char *failed = NULL;
    int err = 0, rc = QDC_EXIT_OK;
    if (!outputs_commit(set, &failed, &err)) {
        diag_error((Span){0}, "QD0003", "cannot write '%s': %s", failed, strerror(err));
        rc = QDC_EXIT_INPUT;
    }
    outputs_free(set), sb_free(&dep);
    return rc;
}

/* Parses and checks the input once, then lowers and emits it for every job. Outputs are
 * written only when every job succeeded and standard output took the reports. */
static int compile(const Options *o, Job *jobs, int njobs, const char *dep_path, const SearchPath *sp) {
    Source *src = read_source(o->input);
    if (!src) return QDC_EXIT_INPUT;
    Arena arena = {0};
    int rc = QDC_EXIT_INPUT;
    char *modname = module_name(o->input);
    AstModule *ast = frontend_parse(src, &arena);
    if (!ast || diag_error_count()) goto done;
    if (jobs[0].emit == EMIT_AST) {
        if (jobs[0].path) ast_dump(ast, &jobs[0].out);
    } else {
        FrontendOptions fo = {o->instantiate, o->ninstantiate, o->debug};
        IrModule *ir = frontend_check_with(ast, &arena, &fo);
        if (!ir || diag_error_count() || !abi_check_names(ir)) goto done;
        ir_expand_module(ir, &arena); /* the operators' meaning, once, for every target */
        bool binary_on_stdout = false; /* --stats must not land inside `-o -` */
        for (int j = 0; j < njobs; j++) binary_on_stdout |= jobs[j].path && !strcmp(jobs[j].path, "-");
        if (o->stats) print_stats(ir, modname, binary_on_stdout ? stderr : stdout);
        bool lower = !o->check_only || o->report_lowering;
        for (int j = 0; lower && j < njobs; j++)
            if (!lower_and_emit(o, ir, &jobs[j], modname, &arena, &rc)) goto done;
    }
    rc = stdout_ok() ? write_outputs(o, jobs, njobs, dep_path, sp) : QDC_EXIT_INPUT;
done:
    free(modname);
    arena_free(&arena);
    source_free(src);
    return rc;
}

/* Expands -o's %t (family), %e (extension without the dot), %m (module) and %%. */
static char *expand_output(const char *tmpl, const CapTarget *t, EmitKind emit, const char *mod, bool *bad) {
    StrBuf b;
    sb_init(&b);
    for (const char *p = tmpl; *p; p++) {
        if (*p != '%') { sb_putc(&b, *p); continue; }
        switch (*++p) {
        case 't': sb_puts(&b, cap_name(t)); break;
        case 'e': sb_puts(&b, emit_extension(emit) + 1); break;
        case 'm': sb_puts(&b, mod); break;
        case '%': sb_putc(&b, '%'); break;
        default: *bad = true; p -= !*p; break;
        }
    }
    sb_putc(&b, 0);
    return sb_take(&b);
}

/* -o is a template when it holds %t, %e or %m; otherwise it is a file name taken as it is
 * ("my%file.o", "50%.o"), like gcc's. */
static bool is_template(const char *out) {
    for (const char *p = out; *p; p++)
        if (*p == '%' && *++p && strchr("tem", *p)) return true;
    return false;
}

/* Without --emit, an -o extension naming another kind the backend produces picks it
 * (k.s -> asm, k.ll -> llvm-ir, k.h -> header, k.json -> metadata); else the default. */
static EmitKind output_kind(const char *out, unsigned allowed, EmitKind def) {
    const char *base = out ? strrchr(out, '/') : NULL, *ext;
    base = base ? base + 1 : out;
    if (!base || is_template(base) || !(ext = strrchr(base, '.')) || !strcmp(ext, emit_extension(def))) return def;
    for (int k = EMIT_OBJ; k < EMIT_COUNT; k++)
        if ((allowed & (1u << k)) && !strcmp(ext, emit_extension((EmitKind)k))) return (EmitKind)k;
    return def;
}

/* Resolves one family name into a job: emit kind checked against its backend, the family's
 * backend-specific facts checked (QD3012). */
static int make_job(const Options *o, const CapDb *db, const char *name, Job *j) {
    memset(j, 0, sizeof *j);
    j->t = capdb_target(db, name);
    if (!j->t) return usage("unknown target '%s'; known targets: %s", name, capdb_target_names(db));
    const Backend *be = backend_find(cap_backend(j->t));
    if (!be) die("no backend for '%s'", cap_backend(j->t));
    j->emit = o->emit == EMIT_DEFAULT ? output_kind(o->output, be->allowed, be->def) : o->emit;
    unsigned allowed = be->allowed | (1u << EMIT_AST) | (1u << EMIT_IR);
    if (!(allowed & (1u << j->emit)))
        return usage("--emit kind not available for target '%s' (backend %s)", cap_name(j->t), cap_backend(j->t));
    if (be->check && j->emit != EMIT_AST && !be->check(j->t)) return QDC_EXIT_INPUT;
    return QDC_EXIT_OK;
}

/* Where each job writes: -o (expanded), stdout, or "<module>[.<family>].<ext>"; NULL = nothing. */
static int plan_outputs(const Options *o, Job *jobs, int njobs, char **dep_path) {
    bool many = njobs > 1, to_stdout = !strcmp(o->input, "-") || jobs[0].emit == EMIT_AST || jobs[0].emit == EMIT_IR;
    bool want = !o->check_only && !(o->report_lowering && !o->output && o->emit == EMIT_DEFAULT);
    if (many && (jobs[0].emit == EMIT_AST || jobs[0].emit == EMIT_IR))
        return usage("%s%s", "--emit=ast and --emit=ir take a single --target", "");
    if (many && o->output && (!strcmp(o->output, "-") || !strstr(o->output, "%t")))
        return usage("several targets need -o with %%t in it (for example -o out/%%t/%s.%%e), got '%s'", "k", o->output);
    char *mod = module_name(o->input);
    bool bad = false;
    for (int j = 0; want && j < njobs; j++) {
        const char *tmpl = o->output ? o->output : !many && to_stdout ? "-" : many ? "%m.%t.%e" : "%m.%e";
        jobs[j].path = o->output && !is_template(o->output) ? xstrdup(o->output)
                                                             : expand_output(tmpl, jobs[j].t, jobs[j].emit, mod, &bad);
    }
    free(mod);
    if (bad) return usage("bad %%-sequence in -o '%s' (use %%t, %%e, %%m or %%%%)%s", o->output, "");
    if (o->dep_file && !o->dep_path && (!jobs[0].path || !strcmp(jobs[0].path, "-")))
        return usage("%s%s", "-MD without an output file needs -MF FILE", "");
    if (o->dep_file && !o->ndep_targets && (!jobs[0].path || !strcmp(jobs[0].path, "-")))
        return usage("%s%s", "a depfile without an output file needs -MT TARGET", "");
    if (o->dep_file) *dep_path = o->dep_path ? xstrdup(o->dep_path) : dep_default_path(jobs[0].path);
    return QDC_EXIT_OK;
}

/* Refuses (QD0007, exit 1) an output or depfile that is the input, two targets writing one
 * file, and a depfile that is an output: same device and inode, or the same name in the same
 * directory, never a string match. */
static int check_collisions(const Options *o, const Job *jobs, int njobs, const char *dep_path) {
    Span none = {0};
    for (int j = 0; j < njobs; j++)
        if (jobs[j].path && same_file(jobs[j].path, o->input)) {
            diag_error(none, "QD0007", "the output file '%s' is the input file", jobs[j].path);
            return QDC_EXIT_INPUT;
        }
    if (dep_path && same_file(dep_path, o->input)) {
        diag_error(none, "QD0007", "the depfile '%s' is the input file", dep_path);
        return QDC_EXIT_INPUT;
    }
    for (int j = 0; j < njobs; j++)
        for (int k = j + 1; jobs[j].path && k < njobs; k++)
            if (jobs[k].path && same_file(jobs[j].path, jobs[k].path)) {
                diag_error(none, "QD0007", "the output file '%s' would be written for both %s and %s", jobs[k].path,
                           cap_name(jobs[j].t), cap_name(jobs[k].t));
                return QDC_EXIT_INPUT;
            }
    for (int j = 0; dep_path && j < njobs; j++)
        if (jobs[j].path && same_file(dep_path, jobs[j].path)) {
            diag_error(none, "QD0007", "the depfile '%s' is also the output file '%s'", dep_path, jobs[j].path);
            return QDC_EXIT_INPUT;
        }
    return QDC_EXIT_OK;
}

/* Splits --target's comma list into jobs, plans their outputs and compiles. */
static int compile_targets(const Options *o, const CapDb *db, const SearchPath *sp) {
    char *list = xstrdup(o->target ? o->target : "x86_64");
    Job jobs[64];
    int njobs = 0, rc = QDC_EXIT_OK;
    for (char *save = NULL, *n = strtok_r(list, ",", &save); n && rc == QDC_EXIT_OK; n = strtok_r(NULL, ",", &save)) {
        if (njobs == 64) rc = usage("%s%s", "more than 64 targets in --target", "");
        else rc = make_job(o, db, n, &jobs[njobs++]);
    }
    if (rc == QDC_EXIT_OK && !njobs) rc = usage("%s%s", "--target needs a target name (see --list-targets)", "");
    char *dep_path = NULL;
    if (rc == QDC_EXIT_OK) rc = plan_outputs(o, jobs, njobs, &dep_path);
    if (rc == QDC_EXIT_OK && o->print_outputs)
        for (int j = 0; j < njobs; j++) printf("%s\n", jobs[j].path ? jobs[j].path : "");
    else if (rc == QDC_EXIT_OK && (rc = check_collisions(o, jobs, njobs, dep_path)) == QDC_EXIT_OK)
        rc = compile(o, jobs, njobs, dep_path, sp);
    for (int j = 0; j < njobs; j++) free(jobs[j].path), sb_free(&jobs[j].out);
    free(list), free(dep_path);
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
    int rc = QDC_EXIT_OK;
    if (!db) {
        free(dirs), free(owned);
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
        SearchPath sp = {dirs, ndirs};
        rc = compile_targets(o, db, &sp);
    }
    capdb_close(db);
    free(dirs), free(owned);
    return rc;
}

int main(int argc, char **argv) {
    Options o;
    DiagConfig early = {options_diag_format(argc, argv), DIAG_COLOR_NEVER, 20, false, stderr};
    diag_init(&early); /* errors in the command line itself come out in the requested format */
    if (!options_parse(argc, argv, &o)) return diag_finish(), options_free(&o), QDC_EXIT_USAGE;
    diag_init(&o.diag);
    diag_set_input(!o.input || strcmp(o.input, "-") ? o.input : "<stdin>");
    int rc = run(&o);
    if (!stdout_ok() && rc == QDC_EXIT_OK) rc = QDC_EXIT_INPUT;
    if (rc == QDC_EXIT_OK && diag_error_count()) rc = QDC_EXIT_INPUT;
    diag_finish();
    options_free(&o);
    return rc;
}
