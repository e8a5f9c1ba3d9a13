/* The C-visible names of a module (man/qdc-abi.7): task entry points "<kernel>_t<k>" and their
 * "<task>_extent", field symbols "qd_field_<field>", the launcher "<kernel>" and its
 * "<kernel>_args" struct, the typed launcher "<kernel>_run", with members "<param>" and "<param>_shape[...]". Mangling is only
 * injective if no two of these are equal and none is reserved in C, C++ or the headers the
 * generated header includes; otherwise the object renames a symbol behind the metadata's back or
 * the header does not compile. Each clash is a located QD5006. A parameter named as a C or C++
 * keyword or a standard macro (errno, which Quadrants programs use) is legal Python: its
 * C-visible spelling takes a trailing underscore (abi_spell_params) before the check. */
#include "abi.h"
#include <string.h>

/* Keywords of C17 and C++, main, and the names stdint.h and common C libraries define (a header
 * declaring a function `memcpy` breaks every file that also includes <string.h>). */
static const char *const reserved[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
    "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
    "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "bool", "catch", "char8_t", "char16_t",
    "char32_t", "class", "compl", "concept", "consteval", "constexpr", "constinit", "const_cast", "co_await",
    "co_return", "co_yield", "decltype", "delete", "dynamic_cast", "explicit", "export", "false", "friend",
    "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private",
    "protected", "public", "reinterpret_cast", "requires", "static_assert", "static_cast", "template", "this",
    "thread_local", "throw", "true", "try", "typeid", "typename", "using", "virtual", "wchar_t", "xor", "xor_eq",
    "NULL", "errno", "assert", "offsetof", "stdin", "stdout", "stderr",
    "intptr_t", "uintptr_t", "intmax_t", "uintmax_t", "ptrdiff_t", "size_t",
};

/* Functions a global name must not shadow (members may use these names). */
static const char *const library[] = {
    "main", "abort", "exit", "malloc", "calloc", "realloc", "free", "memcpy", "memmove", "memset", "memcmp", "strlen",
    "strcpy", "strncpy", "strcmp", "strncmp", "strcat", "printf", "fprintf", "sprintf", "snprintf", "puts",
    "putchar", "abs", "labs", "fabs", "sqrt", "sqrtf", "floor", "ceil", "pow", "exp", "log", "sin", "cos",
};

static bool is_reserved(const char *s, bool global) {
    for (size_t i = 0; i < ARRAY_LEN(reserved); i++)
        if (!strcmp(reserved[i], s)) return true;
    for (size_t i = 0; global && i < ARRAY_LEN(library); i++)
        if (!strcmp(library[i], s)) return true;
    size_t n = strlen(s);
    if (s[0] == '_' && (s[1] == '_' || (s[1] >= 'A' && s[1] <= 'Z'))) return true; /* reserved identifiers */
    if (!strncmp(s, "qdrt_", 5) || !strncmp(s, "QDRT_", 5) || !strncmp(s, "qdc_", 4) || !strncmp(s, "QDC_", 4)) return true;
    if ((!strncmp(s, "int", 3) || !strncmp(s, "uint", 4)) && n > 2 && !strcmp(s + n - 2, "_t")) return true; /* int32_t... */
    if (!strncmp(s, "INT", 3) || !strncmp(s, "UINT", 4)) /* INT32_MAX, UINT64_C, INTPTR_MIN... */
        return n > 4 && (!strcmp(s + n - 4, "_MAX") || !strcmp(s + n - 4, "_MIN") || !strcmp(s + n - 2, "_C"));
    return false;
}

typedef struct {
    const char *name; /* the C-visible name */
    const char *what; /* "the entry point of task 'k_t0'" */
    Span span;
} Sym;

typedef struct {
    VEC(Sym) syms;
    bool ok;
    bool global;   /* file scope (symbols, functions, types), else struct members */
    size_t *slots; /* open-addressing index by name: 1 + the latest syms index with that name */
    size_t cap;    /* a power of two (0: no table yet) */
} Names;

static size_t name_hash(const char *s) {
    size_t h = 1469598103934665603u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* The slot for `name`: the one holding it, or the empty one where it would go. */
static size_t *slot_for(Names *ns, const char *name) {
    size_t i = name_hash(name) & (ns->cap - 1);
    while (ns->slots[i] && strcmp(ns->syms.items[ns->slots[i] - 1].name, name)) i = (i + 1) & (ns->cap - 1);
    return &ns->slots[i];
}

static void grow(Names *ns) {
    size_t *old = ns->slots, n = ns->cap;
    ns->cap = n ? n * 2 : 64;
    ns->slots = xcalloc(ns->cap, sizeof *ns->slots);
    for (size_t i = 0; i < n; i++)
        if (old[i]) *slot_for(ns, ns->syms.items[old[i] - 1].name) = old[i];
    free(old);
}

/* Adds one name to a namespace; reports a clash with one added since index `from` (a struct's
 * members start a new range) or with a reserved name. A hash index keeps a module of 10,000
 * kernels linear. */
static void add(Names *ns, size_t from, char *name, char *what, Span sp) {
    if (2 * ((size_t)ns->syms.len + 1) > ns->cap) grow(ns);
    size_t *at = slot_for(ns, name);
    if (*at && *at - 1 >= from) {
        diag_error(sp, QD5006, "%s is named '%s', which is already %s; rename one of them", what, name,
                   ns->syms.items[*at - 1].what);
        ns->ok = false;
        free(name), free(what);
        return;
    }
    if (is_reserved(name, ns->global)) {
        diag_error(sp, QD5006, "%s is named '%s', which is reserved in C or C++ or by the qdc headers; rename it", what, name);
        ns->ok = false;
    }
    vec_push(&ns->syms, ((Sym){name, what, sp}));
    *at = (size_t)ns->syms.len;
}

/* Whether `s` is one of the listed reserved words (a keyword or a macro such as errno), which a
 * trailing underscore makes an ordinary identifier. */
static bool is_listed(const char *s) {
    for (size_t i = 0; i < ARRAY_LEN(reserved); i++)
        if (!strcmp(reserved[i], s)) return true;
    return false;
}

/* A kernel named like a C or C++ keyword, a standard macro or a C library function (Python
 * allows `def double():`, `def static():`): its inline launcher is spelled "<kernel>_"; its
 * derived names (<kernel>_args, _run, _t0) are ordinary identifiers and stay as they are. */
void abi_launcher(StrBuf *out, const char *kernel) {
    bool spelled = is_listed(kernel);
    for (size_t i = 0; !spelled && i < ARRAY_LEN(library); i++) spelled = !strcmp(library[i], kernel);
    sb_puts(out, kernel);
    if (spelled) sb_putc(out, '_');
}

static void members(Names *ns, const IrKernel *k) {
    size_t from = (size_t)ns->syms.len;
    for (int i = 0; i < k->nparams; i++) {
        const IrParam *p = &k->params[i];
        size_t n = strlen(p->name);
        char *base = xstrdup(p->name);
        bool spelled = n > 1 && p->span.src && p->span.len + 1 == n && (base[n - 1] = 0, is_listed(base));
        add(ns, from, xstrdup(p->name),
            spelled ? xasprintf("parameter '%s' of kernel '%s' (spelled '%s' in C)", base, k->name, p->name)
                    : xasprintf("parameter '%s' of kernel '%s'", p->name, k->name),
            p->span);
        free(base);
        if (p->kind != IR_PARAM_NDARRAY) continue;
        add(ns, from, xasprintf("%s_shape", p->name),
            xasprintf("the shape member of parameter '%s' of kernel '%s'", p->name, k->name), p->span);
        for (int d = 0; d < p->ndim; d++) /* the SPIR-V push-constant struct spells each axis */
            add(ns, from, xasprintf("%s_shape%d", p->name, d),
                xasprintf("the shape member %d of parameter '%s' of kernel '%s'", d, p->name, k->name), p->span);
    }
}

void abi_spell_params(IrModule *m, Arena *arena) {
    for (int k = 0; k < m->nkernels; k++)
        for (int i = 0; i < m->kernels[k].nparams; i++) {
            IrParam *p = &m->kernels[k].params[i];
            if (is_listed(p->name)) p->name = arena_printf(arena, "%s_", p->name);
        }
}

bool abi_check_names(const IrModule *m) {
    Names g = {{0}, true, true, NULL, 0}, mem = {{0}, true, false, NULL, 0};
    for (int i = 0; i < m->nfields; i++) {
        const IrField *f = &m->fields[i];
        add(&g, 0, xasprintf("qd_field_%s", f->name), xasprintf("the symbol of field '%s'", f->name), f->span);
    }
    for (int k = 0; k < m->nkernels; k++) {
        const IrKernel *kn = &m->kernels[k];
        StrBuf ln;
        sb_init(&ln);
        abi_launcher(&ln, kn->name);
        add(&g, 0, xstrdup(ln.data),
            strcmp(ln.data, kn->name) ? xasprintf("the launcher of kernel '%s' (spelled '%s' in C)", kn->name, ln.data)
                                      : xasprintf("the launcher of kernel '%s'", kn->name),
            kn->span);
        sb_free(&ln);
        add(&g, 0, xasprintf("%s_args", kn->name), xasprintf("the argument struct of kernel '%s'", kn->name), kn->span);
        add(&g, 0, xasprintf("%s_run", kn->name), xasprintf("the typed launcher of kernel '%s'", kn->name), kn->span);
        for (int t = 0; t < kn->ntasks; t++) {
            const IrTask *task = &kn->tasks[t];
            add(&g, 0, xstrdup(task->name), xasprintf("the entry point of task %d of kernel '%s'", t, kn->name),
                task->span);
            add(&g, 0, xasprintf("%s_extent", task->name), xasprintf("the extent function of task '%s'", task->name),
                task->span);
        }
        members(&mem, kn);
    }
    bool ok = g.ok && mem.ok;
    for (int i = 0; i < g.syms.len; i++) free((char *)g.syms.items[i].name), free((char *)g.syms.items[i].what);
    for (int i = 0; i < mem.syms.len; i++) free((char *)mem.syms.items[i].name), free((char *)mem.syms.items[i].what);
    vec_free(&g.syms), vec_free(&mem.syms);
    free(g.slots), free(mem.slots);
    return ok;
}
