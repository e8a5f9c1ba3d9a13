/* A program's own modules (qdc-lang(7), "IMPORTS"): `import m`, `import a.b as c`,
 * `from m import f, g as h`, relative imports and packages, found on the search path (the
 * input's directory, then -I DIRs, then QDC_PATH) and evaluated once each, in the importer's
 * order, like Python's import system; -D [MODULE.]NAME=EXPR values; --kernel selection.
 *
 * Each module read has its own scope (its globals), evaluated by the same checker as the input's
 * top level; a name of it is reached through a V_MODULE value (m.f) or bound by a from-import.
 * Kernels defined in an imported module are compiled only where host code calls them (the
 * input's kernels are the entries). A module not on the search path stays the script's: a value
 * of it a kernel needs is QD2062 with a note at the import. */
#include "sema.h"
#include "../support/fileio.h"
#include <string.h>
#include <sys/stat.h>

struct SemaModule {
    const char *name;   /* dotted ("pkg.sub"); the input is "__main__" outside any package */
    const char *pkg;    /* the package relative imports start from ("" for none) */
    const char *dir;    /* a package's directory (its submodules are searched there), else NULL */
    const char *path;   /* the file read; NULL for a namespace package or a module not found */
    const char *why;    /* not evaluated: why (the module stays the script's value) */
    Span at;            /* the import that first named it */
    Scope *scope;       /* its globals */
    bool loading;       /* its top level is being evaluated (an import cycle sees it partly defined) */
    VEC(struct ImportError { Span at; const char *msg; }) errors; /* the input's: import errors met while an
                           imported module was read quietly, reported when the outermost import ends */
};

/* An import error (QD2065): Python stops the program there, so it is reported even inside a
 * module read quietly (after that module's import, run_module). */
static void import_error(Sema *S, Span at, const char *msg) {
    if (!S->cur_mod) return (void)diag_error(at, QD2065, "%s", msg);
    struct ImportError e = {at, msg};
    vec_push(&S->input->errors, e);
}

static bool is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}
static bool is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static SemaModule *find_loaded(Sema *S, const char *name) {
    for (int k = 0; k < S->modules.len; k++)
        if (!strcmp(S->modules.items[k]->name, name)) return S->modules.items[k];
    return NULL;
}

static SemaModule *new_module(Sema *S, const char *name, Span at) {
    SemaModule *m = ARENA_NEW(S->arena, SemaModule);
    m->name = arena_strdup(S->arena, name), m->at = at, m->pkg = "";
    m->scope = xcalloc(1, sizeof *m->scope);
    vec_push(&S->host_scopes, m->scope); /* freed with the host functions' scopes */
    vec_push(&S->modules, m);
    return m;
}

/* -D values for module `name` ("" for the input), bound before its top level runs. */
static void apply_defines(Sema *S, SemaModule *m, bool input);

/* Where Python would find the last component of `name` in one directory: a package
 * (DIR/NAME/__init__.py), a module (DIR/NAME.py) or a namespace package (DIR/NAME/). */
static bool locate_file(const char *dir, const char *leaf, char **path, char **pdir) {
    char *d = strcmp(dir, ".") ? xasprintf("%s/%s", dir, leaf) : xstrdup(leaf);
    char *init = xasprintf("%s/__init__.py", d), *py = xasprintf("%s.py", d);
    *path = *pdir = NULL;
    if (is_file(init)) *path = init, *pdir = d, init = d = NULL;
    else if (is_file(py)) *path = py, py = NULL;
    else if (is_dir(d)) *pdir = d, d = NULL;
    bool found = *path || *pdir;
    free(d), free(init), free(py);
    return found;
}

static bool locate_in(Sema *S, const char *dir, const char *leaf, const char **path, const char **pdir) {
    char *p, *d;
    if (!locate_file(dir, leaf, &p, &d)) return false;
    *path = p ? arena_strdup(S->arena, p) : NULL, *pdir = d ? arena_strdup(S->arena, d) : NULL;
    free(p), free(d);
    return true;
}

char *module_locate(const char *const *dirs, int ndirs, const char *name) {
    char *path = NULL, *pdir = NULL, *within = NULL; /* within: the package searched next */
    for (const char *p = name; *p;) {
        size_t n = strcspn(p, ".");
        char *leaf = xstrndup(p, n);
        free(path), path = NULL;
        bool found = false;
        if (within) found = locate_file(within, leaf, &path, &pdir);
        else
            for (int k = 0; k < ndirs && !found; k++) found = dirs[k] && locate_file(dirs[k], leaf, &path, &pdir);
        free(leaf), free(within), within = pdir, pdir = NULL;
        p += n + (p[n] == '.');
        if (!found || (*p && !within)) return free(path), free(within), NULL; /* a module has no submodules */
    }
    free(within);
    return path;
}

/* Reads and evaluates m's top level in its own scope, with the checker's per-module state saved. */
static void run_module(Sema *S, SemaModule *m) {
    char *text = NULL;
    size_t len = 0;
    int err = 0;
    if (read_file(m->path, QDC_MAX_INPUT_BYTES, &text, &len, &err) != READ_OK) {
        m->why = arena_printf(S->arena, "qdc cannot read '%s'", m->path);
        return;
    }
    Source *src = source_new(m->path, text, len);
    free(text);
    bool blank = true; /* an empty module (an empty __init__.py): nothing to evaluate */
    for (size_t k = 0, line = 1; k < len && blank; k++) {
        if (src->text[k] == '\n') line = 1;
        else if (line && src->text[k] == '#') line = 0;
        else if (line && src->text[k] != ' ' && src->text[k] != '\t' && src->text[k] != '\r') blank = false;
    }
    if (S->files) vec_push(S->files, src); /* the caller owns it: spans point into it */
    else vec_push(&S->spec_sources, src);
    apply_defines(S, m, false);
    if (blank) return;
    /* Its top level is read quietly: a program's modules hold Python qdc does not read (host code,
     * definitions nothing compiles); what it could not evaluate is reported where a kernel needs it. */
    int mark = diag_quiet_begin();
    AstModule *ast = frontend_parse(src, S->arena);
    if (!ast) {
        diag_quiet_end(mark);
        m->why = arena_printf(S->arena, "a module qdc cannot read (%s)", diag_quiet_first());
        return;
    }
    Scope *hscope = S->hscope, *bind_to = S->bind_to;
    const char *prefix = S->prefix, *qd_alias = S->qd_alias;
    SemaModule *cur = S->cur_mod;
    bool returned = S->host_returned;
    int loops = S->host_loops;
    for (int k = 0; k < ast->body.n; k++) { /* `import quadrants as ti`: ti is the qd namespace here */
        const Stmt *s = ast->body.stmts[k];
        if (s->kind == S_IMPORT && !s->import.user && !strcmp(s->import.module, "quadrants"))
            scope_bind(S, m->scope, s->import.alias ? s->import.alias : "quadrants", (Val){.kind = V_NS, .path = "qd"}, s->span);
    }
    S->hscope = m->scope, S->bind_to = NULL, S->prefix = "", S->cur_mod = m, S->host_returned = false, S->host_loops = 0;
    m->loading = true;
    sema_module_body(S, &ast->body);
    m->loading = false;
    if (diag_quiet_end(mark) && !m->why) m->why = arena_printf(S->arena, "a module qdc could not fully evaluate (%s)", diag_quiet_first());
    S->hscope = hscope, S->bind_to = bind_to, S->prefix = prefix, S->qd_alias = qd_alias, S->cur_mod = cur;
    for (int k = 0; !cur && k < S->input->errors.len; k++) diag_error(S->input->errors.items[k].at, QD2065, "%s", S->input->errors.items[k].msg);
    if (!cur) S->input->errors.len = 0;
    S->host_returned = returned, S->host_loops = loops, S->host_jump = HJ_NONE;
}

/* The module `name` (dotted, absolute), imported with its parent packages as Python does: each
 * evaluated once, a submodule bound in its package's scope. NULL when it is not found (*why). */
static SemaModule *import_module(Sema *S, const char *name, Span at) {
    SemaModule *m = find_loaded(S, name);
    if (m) return m;
    const char *dot = strrchr(name, '.');
    SemaModule *parent = NULL;
    const char *leaf = name;
    if (dot) {
        parent = import_module(S, arena_strndup(S->arena, name, (size_t)(dot - name)), at);
        if (!parent) return NULL;
        if (!parent->dir) return NULL; /* a module, not a package: it has no submodules */
        if ((m = find_loaded(S, name))) return m; /* the package imported it */
        leaf = dot + 1;
    }
    const char *path = NULL, *pdir = NULL;
    bool found = false;
    if (parent) {
        found = locate_in(S, parent->dir, leaf, &path, &pdir);
    } else {
        for (int k = 0; k < S->search.len && !found; k++)
            found = S->search.items[k] && locate_in(S, S->search.items[k], leaf, &path, &pdir);
    }
    if (!found) return NULL;
    m = new_module(S, name, at);
    m->path = path, m->dir = pdir;
    m->pkg = pdir ? m->name : parent ? parent->name : "";
    if (parent) scope_bind(S, parent->scope, leaf, (Val){.kind = V_MODULE, .mod = m}, at);
    if (path) run_module(S, m);
    else apply_defines(S, m, false);
    return m;
}

/* A module -D names that is not on the search path: its -D values stand in for it. */
static SemaModule *stand_in(Sema *S, const char *name, Span at) {
    for (int k = 0; k < S->ndefines; k++) {
        if (S->define_mod[k] && !strcmp(S->define_mod[k], name)) {
            SemaModule *m = new_module(S, name, at);
            m->why = "not on qdc's search path; its -D values stand in for it";
            apply_defines(S, m, false);
            return m;
        }
    }
    return NULL;
}

static bool stdlib_module(const char *name) { /* modules whose names qdc reads as written (dataclasses, enum ...) */
    static const char *const names[] = {"__future__", "dataclasses", "enum", "typing", "functools", "math", "pytest", "abc",
                                        "collections", "itertools", "operator", "typing_extensions", "warnings", "os", "sys",
                                        "io", "logging", "contextlib", "copy", "inspect", "re", "time", "types", "weakref"};
    size_t n = strcspn(name, ".");
    for (size_t k = 0; k < ARRAY_LEN(names); k++)
        if (strlen(names[k]) == n && !strncmp(name, names[k], n)) return true;
    return false;
}

static void bind_opaque(Sema *S, const Stmt *s, const char *module) {
    if (s->import.star) return;
    const char *what = s->import.name ? arena_printf(S->arena, "imported from '%s', a module that is not on qdc's search path "
                                                     "(the input's directory, -I, QDC_PATH)", module)
                                      : "a module the script imports";
    scope_bind(S, BIND_SCOPE(S), s->import.alias, (Val){.kind = V_HOST, .path = what}, s->import.bound);
}

/* `from . import x`, `from ..utils import geom`: the absolute name, or NULL after an error. */
static const char *absolute_name(Sema *S, const Stmt *s) {
    if (!s->import.level) return s->import.module;
    const char *pkg = S->cur_mod ? S->cur_mod->pkg : S->input ? S->input->pkg : "";
    if (!*pkg) {
        import_error(S, s->span, "attempted relative import with no known parent package (give the root of its "
                     "package with -I so qdc knows the input's package)");
        return NULL;
    }
    size_t n = strlen(pkg);
    for (int up = 1; up < s->import.level; up++) {
        while (n > 0 && pkg[n - 1] != '.') n--;
        if (n == 0) return import_error(S, s->span, "attempted relative import beyond top-level package"), NULL;
        n--;
    }
    return *s->import.module ? arena_printf(S->arena, "%.*s.%s", (int)n, pkg, s->import.module) : arena_strndup(S->arena, pkg, n);
}

void sema_import(Sema *S, const Stmt *s) {
    const char *name = absolute_name(S, s);
    if (!name) return;
    if (!s->import.level && stdlib_module(name)) {
        if (S->up->sema_pylib_import(S, s, name)) return; /* dataclasses.dataclass, functools.partial */
        if (!s->import.name && !s->import.star) /* import pytest: the script's, as before */
            scope_bind(S, BIND_SCOPE(S), s->import.alias, (Val){.kind = V_HOST, .path = "a module the script imports"}, s->import.bound);
        if (s->import.name && !strcmp(s->import.name, "TYPE_CHECKING")) /* False when the program runs */
            scope_bind(S, BIND_SCOPE(S), s->import.alias, val_expr(irb_int(S->arena, QT_U1, 0, s->import.bound)), s->import.bound);
        return;
    }
    SemaModule *m = import_module(S, name, s->span);
    if (!m) m = stand_in(S, name, s->span);
    if (!m) return bind_opaque(S, s, name);
    if (s->import.star) {
        for (int k = 0; k < m->scope->b.len; k++)
            if (m->scope->b.items[k].name[0] != '_' && !sema_defined(S, m->scope->b.items[k].name)) /* -D NAME wins */
                scope_bind(S, BIND_SCOPE(S), m->scope->b.items[k].name, m->scope->b.items[k].v, s->span);
        return;
    }
    if (!s->import.name) { /* import a.b: binds a (the package); import a.b as c: binds a.b */
        bool top = !strcmp(s->import.alias, arena_strndup(S->arena, name, strcspn(name, "."))) && strchr(name, '.');
        SemaModule *b = top ? find_loaded(S, s->import.alias) : m;
        scope_bind(S, BIND_SCOPE(S), s->import.alias, (Val){.kind = V_MODULE, .mod = b ? b : m}, s->import.bound);
        return;
    }
    if (sema_defined(S, s->import.alias)) return; /* -D NAME=EXPR wins over `from m import NAME` too */
    Binding *b = scope_find(m->scope, s->import.name);
    if (!b && m->dir) { /* from pkg import sub: the submodule */
        SemaModule *sub = import_module(S, arena_printf(S->arena, "%s.%s", name, s->import.name), s->span);
        if (sub) return (void)scope_bind(S, BIND_SCOPE(S), s->import.alias, (Val){.kind = V_MODULE, .mod = sub}, s->import.bound);
        b = scope_find(m->scope, s->import.name);
    }
    if (b) return (void)scope_bind(S, BIND_SCOPE(S), s->import.alias, b->v, s->import.bound);
    if (m->why) { /* a stand-in: what -D does not give stays the script's */
        const char *what = arena_printf(S->arena, "imported from '%s', %s", name, m->why);
        return (void)scope_bind(S, BIND_SCOPE(S), s->import.alias, (Val){.kind = V_HOST, .path = what}, s->import.bound);
    }
    import_error(S, s->span, arena_printf(S->arena, "cannot import name '%s' from %s'%s'%s (%s)", s->import.name,
                                          m->loading ? "partially initialized module " : "", name,
                                          m->loading ? " (most likely due to a circular import)" : "",
                                          m->path ? m->path : "a namespace package"));
    scope_bind(S, BIND_SCOPE(S), s->import.alias, val_err(), s->import.bound);
}

/* module.NAME: its binding now (Python's module attributes are live), a submodule, or an error
 * naming what is missing; a stand-in's other attributes are the script's (QD2062 at the use). */
Val sema_module_attr(Sema *S, Val o, const Expr *e) {
    SemaModule *m = o.mod;
    Binding *b = scope_find(m->scope, e->attr.name);
    if (!b && m->dir) {
        SemaModule *sub = find_loaded(S, arena_printf(S->arena, "%s.%s", m->name, e->attr.name));
        if (sub) return (Val){.kind = V_MODULE, .mod = sub};
    }
    if (b && b->v.kind == V_HOST) {
        diag_error(e->span, QD2062, "'%s.%s' is %s, known only when the script runs; kernels can use module "
                   "constants, fields, qd.func and their own arguments", m->name, e->attr.name, b->v.path);
        diag_note(b->decl, "'%s' is set here", e->attr.name);
        return val_err();
    }
    if (b) return b->v;
    if (m->why) {
        diag_error(e->span, QD2062, "'%s.%s' is known only when the script runs: module '%s' is %s; give it with -D %s.%s=VALUE",
                   m->name, e->attr.name, m->name, m->why, m->name, e->attr.name);
        diag_note(m->at, "'%s' is imported here", m->name);
        return val_err();
    }
    const char **cands = ARENA_ARRAY(S->arena, const char *, m->scope->b.len + 1);
    for (int k = 0; k < m->scope->b.len; k++) cands[k] = m->scope->b.items[k].name;
    const char *near = closest_name(e->attr.name, cands, m->scope->b.len);
    diag_error(e->span, QD2019, "module '%s' has no attribute '%s'%s%s%s", m->name, e->attr.name, near ? "; did you mean '" : "",
               near ? near : "", near ? "'?" : "");
    diag_note(m->at, "'%s' is imported here", m->name);
    return val_err();
}

/* The binding a dotted host-code name (mod.k, pkg.mod.k) denotes through modules, or NULL. */
Binding *sema_module_member(Sema *S, const Expr *e) {
    if (e->kind != E_ATTR) return NULL;
    Val o;
    if (e->attr.obj->kind == E_NAME) {
        Binding *b = NULL;
        for (Scope *s = S->scope ? S->scope : S->hscope; s && !b; s = s->parent) b = scope_find(s, e->attr.obj->name);
        if (!b || b->v.kind != V_MODULE) return NULL;
        o = b->v;
    } else {
        Binding *b = sema_module_member(S, e->attr.obj);
        if (!b || b->v.kind != V_MODULE) return NULL;
        o = b->v;
    }
    return scope_find(o.mod->scope, e->attr.name);
}

Binding *sema_module_find(Val mod, const char *name) { return mod.kind == V_MODULE ? scope_find(mod.mod->scope, name) : NULL; }

bool sema_is_module_scope(const Sema *S, const Scope *sc) {
    if (sc == &S->module) return true;
    for (int k = 0; k < S->modules.len; k++)
        if (S->modules.items[k]->scope == sc) return true;
    return false;
}

/* ---- -D [MODULE.]NAME=EXPR ---- */

/* Evaluates the EXPR of option k (a compile-time constant), located in the option's text. */
static bool define_value(Sema *S, int k, Val *out, const char **name) {
    const char *d = S->defines[k];
    size_t n = strlen(d);
    char *buf = xmalloc(n + 2);
    memcpy(buf, d, n), buf[n] = '\n', buf[n + 1] = 0;
    Source *src = source_new("-D", buf, n + 1);
    free(buf);
    vec_push(&S->spec_sources, src);
    Span all = span_make(src, 0, (uint32_t)n);
    int errors = diag_error_count();
    AstModule *m = frontend_parse(src, S->arena);
    if (!m || diag_error_count() > errors) return false;
    const Stmt *st = m->body.n == 1 ? m->body.stmts[0] : NULL;
    if (!st || st->kind != S_ASSIGN || st->assign.targets.n != 1)
        return diag_error(all, QD2066, "invalid -D option: write -D NAME=EXPR or -D MODULE.NAME=EXPR"), false;
    const Expr *t = st->assign.targets.items[0];
    while (t->kind == E_ATTR) t = t->attr.obj;
    if (t->kind != E_NAME) return diag_error(st->assign.targets.items[0]->span, QD2066, "invalid -D option: NAME must be a dotted name"), false;
    t = st->assign.targets.items[0];
    *name = t->kind == E_ATTR ? t->attr.name : t->name;
    Scope tmp = {0}, *hscope = S->hscope, *scope = S->scope;
    scope_bind(S, &tmp, "qd", (Val){.kind = V_NS, .path = "qd"}, all); /* -D x=qd.f32 whatever the input calls quadrants */
    S->hscope = &tmp, S->scope = NULL;
    IrStmtVec *cur = S->cur;
    S->cur = NULL;
    Val v = sema_eval(S, st->assign.value);
    S->hscope = hscope, S->scope = scope, S->cur = cur;
    vec_free(&tmp.b);
    if (v.kind == V_ERR) return false;
    if (!sema_module_constant(S, &v))
        return diag_error(st->assign.value->span, QD2066, "invalid -D option: %s is not a compile-time constant", val_describe(v)), false;
    return *out = v, true;
}

static void apply_defines(Sema *S, SemaModule *m, bool input) {
    for (int k = 0; k < S->ndefines; k++) {
        if (input ? S->define_mod[k] != NULL : !S->define_mod[k] || strcmp(S->define_mod[k], m->name)) continue;
        Val v;
        const char *name;
        int nsrc = S->spec_sources.len;
        if (!define_value(S, k, &v, &name)) v = val_err(), name = S->define_name[k]; /* reported: uses stay quiet */
        Span at = S->spec_sources.len > nsrc ? span_make(S->spec_sources.items[nsrc], 0, (uint32_t)strcspn(S->defines[k], "=")) : m->at;
        scope_bind(S, m->scope, name, v, at);
    }
}

/* A top-level assignment to NAME of the module being evaluated that a -D value overrides: skipped. */
bool sema_defined(Sema *S, const char *name) {
    if (S->hscope != &S->module && (!S->cur_mod || S->hscope != S->cur_mod->scope)) return false;
    const char *mod = S->cur_mod ? S->cur_mod->name : NULL;
    for (int k = 0; k < S->ndefines; k++)
        if (!strcmp(S->define_name[k], name) && (mod ? S->define_mod[k] && !strcmp(S->define_mod[k], mod) : !S->define_mod[k]))
            return true;
    return false;
}

/* Each -D's module (NULL: the input) and name: MODULE is a module's dotted name, or starts with a
 * name the input's imports bind (`import genesis as gs`: -D gs.qd_float=...). */
static void split_defines(Sema *S, const AstModule *ast) {
    S->define_mod = ARENA_ARRAY(S->arena, const char *, S->ndefines + 1);
    S->define_name = ARENA_ARRAY(S->arena, const char *, S->ndefines + 1);
    for (int k = 0; k < S->ndefines; k++) {
        const char *d = S->defines[k];
        size_t n = strcspn(d, "=");
        const char *last = NULL;
        for (const char *c = d; c < d + n; c++) if (*c == '.') last = c;
        S->define_name[k] = arena_strndup(S->arena, last ? last + 1 : d, last ? (size_t)(d + n - last - 1) : n);
        S->define_mod[k] = last ? arena_strndup(S->arena, d, (size_t)(last - d)) : NULL;
        if (!last) continue;
        size_t head = strcspn(d, ".");
        for (int j = 0; j < ast->body.n; j++) {
            const Stmt *s = ast->body.stmts[j];
            if (s->kind != S_IMPORT || !s->import.user || s->import.level || s->import.star || strlen(s->import.alias) != head ||
                strncmp(s->import.alias, d, head))
                continue;
            const char *full = s->import.name ? arena_printf(S->arena, "%s.%s", s->import.module, s->import.name)
                             : strcmp(s->import.alias, arena_strndup(S->arena, s->import.module, strcspn(s->import.module, "."))) ? s->import.module
                             : s->import.alias;
            S->define_mod[k] = arena_printf(S->arena, "%s%.*s", full, (int)(last - d - head), d + head);
        }
    }
}

/* ---- the input module ---- */

static char *dir_of(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? xasprintf("%.*s", (int)(slash == path ? 1 : slash - path), path) : xstrdup(".");
}

/* The input's dotted name: its path under a search directory (-I, QDC_PATH), else under the
 * packages (directories with __init__.py) that contain it; "__main__" when in none. */
static const char *input_name(Sema *S, const char *path, bool *package, const char **root_dir) {
    char *real = realpath(path, NULL);
    if (!real) { /* not on disk (--input-name of an unsaved file): where it would be */
        char *d = dir_of(path), *rd = realpath(d, NULL);
        const char *base = strrchr(path, '/');
        if (rd) real = xasprintf("%s/%s", strcmp(rd, "/") ? rd : "", base ? base + 1 : path);
        free(d), free(rd);
    }
    *package = false, *root_dir = NULL;
    if (!real) return "__main__";
    const char *found = NULL;
    for (int k = 1; k < S->search.len && !found; k++) {
        char *root = realpath(S->search.items[k], NULL);
        size_t n = root ? strlen(root) : 0;
        if (root && !strncmp(real, root, n) && real[n] == '/') found = arena_strdup(S->arena, real + n + 1);
        free(root);
    }
    if (!found) { /* walk up the packages */
        char *dir = dir_of(real), *rel = xstrdup(strrchr(real, '/') + 1);
        for (;;) {
            char *init = xasprintf("%s/__init__.py", dir);
            bool pkg = is_file(init);
            free(init);
            if (!pkg || !strcmp(dir, "/")) break;
            char *up = dir_of(dir), *r = xasprintf("%s/%s", strrchr(dir, '/') + 1, rel);
            free(rel), free(dir);
            rel = r, dir = up;
        }
        if (strchr(rel, '/')) found = arena_strdup(S->arena, rel), *root_dir = arena_strdup(S->arena, dir);
        free(rel), free(dir);
    }
    free(real);
    if (!found) return "__main__";
    char *name = arena_strdup(S->arena, found);
    size_t n = strlen(name);
    if (n > 3 && !strcmp(name + n - 3, ".py")) name[n -= 3] = 0;
    if (n > 9 && !strcmp(name + n - 9, "/__init__")) name[n - 9] = 0, *package = true;
    for (char *c = name; *c; c++) if (*c == '/') *c = '.';
    return name;
}

void sema_modules_begin(Sema *S, const FrontendOptions *fo, const AstModule *ast) {
    const Source *src = ast->src;
    S->files = fo ? fo->files : NULL;
    S->defines = fo ? fo->defines : NULL, S->ndefines = fo ? fo->ndefines : 0;
    bool stdin_ = !strcmp(src->name, "<stdin>");
    vec_push(&S->search, stdin_ ? "." : arena_strdup(S->arena, "")); /* replaced below */
    if (!stdin_) {
        char *d = dir_of(src->name);
        S->search.items[0] = arena_strdup(S->arena, d);
        free(d);
    }
    for (int k = 0; fo && k < fo->ninclude; k++) vec_push(&S->search, fo->include[k]);
    for (const char *p = fo ? fo->qdc_path : NULL; p && *p;) {
        size_t n = strcspn(p, ":");
        if (n) vec_push(&S->search, arena_strndup(S->arena, p, n));
        p += n + (p[n] == ':');
    }
    SemaModule *m = ARENA_NEW(S->arena, SemaModule);
    bool package = false;
    const char *root = NULL; /* the root of the packages around the input (no -I names it) */
    m->name = stdin_ ? "__main__" : input_name(S, src->name, &package, &root);
    m->scope = &S->module, m->path = src->name;
    const char *dot = strrchr(m->name, '.');
    m->pkg = package ? m->name : dot ? arena_strndup(S->arena, m->name, (size_t)(dot - m->name)) : "";
    if (package) {
        char *d = dir_of(src->name);
        m->dir = arena_strdup(S->arena, d);
        free(d);
    }
    S->input = m;
    split_defines(S, ast);
    /* The input runs as __main__ (python -m PACKAGE.MODULE): a module importing it by name gets a
     * copy of its own, read like any module; in a package, its directory is not on the path. */
    if (strcmp(m->name, "__main__") && !stdin_) S->search.items[0] = root;
    apply_defines(S, m, true);
}

void sema_modules_end(Sema *S) {
    if (S->input) vec_free(&S->input->errors);
    vec_free(&S->modules), vec_free(&S->search);
}

/* ---- --kernel NAME ---- */

/* Whether kernel definition d is compiled: the input's kernels (those --kernel names, when it is
 * given), an imported module's only where host code calls it. */
bool sema_kernel_selected(Sema *S, const SemaDef *sd) {
    if (sd->imported && !sd->called) return false;
    if (!S->nkernel_names) return true;
    for (int k = 0; k < S->nkernel_names; k++)
        if (!strcmp(S->kernel_names[k], sd->def->def.name) || (sd->entry && !strcmp(S->kernel_names[k], sd->entry))) return true;
    return false;
}

/* --kernel names that match no kernel of the input: errors with a did-you-mean. */
void sema_check_kernel_names(Sema *S) {
    VEC(const char *) cands = {0};
    for (int d = 0; d < S->defs.len; d++)
        if (S->defs.items[d].kernel && !S->defs.items[d].imported) {
            vec_push(&cands, S->defs.items[d].def->def.name);
            if (S->defs.items[d].entry) vec_push(&cands, S->defs.items[d].entry);
        }
    for (int k = 0; k < S->nkernel_names; k++) {
        bool found = false;
        for (int c = 0; c < cands.len && !found; c++) found = !strcmp(cands.items[c], S->kernel_names[k]);
        if (found) continue;
        const char *near = closest_name(S->kernel_names[k], cands.items, cands.len);
        diag_error((Span){0}, QD2067, "--kernel %s: the input defines no kernel named '%s'%s%s%s", S->kernel_names[k],
                   S->kernel_names[k], near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
    }
    vec_free(&cands);
}

/* Nothing hollow: an input that defines kernels of its own but makes no entry is an error. */
void sema_check_hollow(Sema *S) {
    if (S->kernels.len || diag_error_count()) return;
    const Stmt *first = NULL;
    bool generic = false;
    for (int d = 0; d < S->defs.len && !first; d++)
        if (S->defs.items[d].kernel && !S->defs.items[d].imported && sema_kernel_selected(S, &S->defs.items[d]))
            first = S->defs.items[d].def;
    for (int k = 0; first && k < first->def.nparams; k++) generic |= S->up->sema_param_is_generic(S, &first->def.params[k]);
    if (first) {
        diag_error(first->def.name_span, QD2068, "the input defines kernels but compiles none: '%s' %s", first->def.name,
                   generic ? "is generic and nothing instantiates it; call it in host code with arguments qdc can evaluate, "
                             "or give --instantiate" : "was not compiled");
        return;
    }
    const Stmt *kernel, *fn;
    if (S->up->sema_uncalled_helper_kernel(S, &kernel, &fn)) {
        diag_error(kernel->def.name_span, QD2068, "the input defines kernels but compiles none: '%s' is defined in the host "
                   "function '%s', which no call qdc can evaluate reaches (as in Python, a function that is not called defines "
                   "nothing); call %s(...) in host code with arguments qdc can evaluate", kernel->def.name, fn->def.name, fn->def.name);
        return;
    }
    if (S->loop_kernel) {
        diag_error(S->loop_kernel->def.name_span, QD2068, "the input defines kernels but compiles none: '%s' is defined in a "
                   "host loop qdc does not run (its names are %s)", S->loop_kernel->def.name, S->loop_kernel_why);
        return;
    }
    for (int k = 0; k < S->classes.len; k++) {
        SemaClass *c = &S->classes.items[k];
        if (c->instantiated || c->imported || !S->up->sema_class_has_kernels(S, c)) continue;
        c->hollow = true; /* the error says it: no QD2104 warning beside it */
        diag_error(c->cls->class_.name_span, QD2068, "the input defines kernels but compiles none: @qd.data_oriented class '%s' "
                   "is never instantiated; create one where qdc can see it (obj = %s(...) at module level or in a host function)",
                   c->cls->class_.name, c->cls->class_.name);
        return;
    }
}

void frontend_files_free(FrontendFiles *f) {
    for (int k = 0; k < f->len; k++) source_free(f->items[k]);
    free(f->items);
    f->items = NULL, f->len = f->cap = 0;
}
