/* Command-line parsing: GNU-style long options, `--opt=value` and `--opt value` both accepted,
 * `@file` response files expanded first, `--` ending the options. Unknown names get a
 * "did you mean" from closest_name(). */
#include "options.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *emit_kind_name(EmitKind k) { return k == EMIT_DEFAULT ? "default" : emit_name(k); }

/* Every option spelling, for suggestions (values after '=' are not part of the name). */
static const char *const option_names[] = {
    "--help", "--version", "--check", "--stats", "--print-output-names", "--list-targets", "--list-warnings",
    "--list-diagnostics", "--support-matrix", "--report-lowering", "--target", "--emit", "--cap", "--capdb-dir",
    "--print-caps", "--format", "--targets", "--error-limit", "--diagnostics-format", "--color", "--symbol-prefix", "--input-name",
    "--emit-all", "--eval-limit", "--ad-stack", "--golden-check", "--time-report", "--keep-unchanged", "--embed", "-Wall", "-Wextra", "--arch",
    "--target-env", "--atomic-rewrite", "-Werror", "-MD", "-MMD", "-MF", "-MT", "-MQ", "-MP", "-o",
    "-O0", "-O1", "-O2", "-O3", "-g", "--lsp", "-fdiagnostics-parseable-fixits", "--kernel", "-j", "--jobs",
};

/* Other compilers' target options, taken as --target: nvcc's -arch/--gpu-architecture (sm_90;
 * also with '=' or a space) and glslc's --target-env (vulkan1.3). */
static const char *const target_spellings[] = {"--arch", "-arch", "--gpu-architecture", "--target-env"};

/* -Wall and -Wextra: every warning (all are on by default; these undo an earlier -Wno-NAME). */
static void set_all_warnings(void) {
    const char *names[128];
    int n = diag_warning_names(names, 128);
    for (int i = 0; i < n; i++) diag_set_warning(names[i], true, false);
}

static bool usage_error(const char *fmt, const char *arg) {
    diag_usage(fmt, arg);
    diag_usage_hint(false, "run 'qdc --help' for usage");
    return false;
}

/* "unknown X 'word'" plus "; did you mean 'pfx<best>'?" when one of names is close. */
static bool unknown_name(const char *what, const char *word, const char *pfx, const char *const *names, size_t n) {
    const char *best = closest_name(word, names, (int)n);
    char *msg = best ? xasprintf("unknown %s '%s%s'; did you mean '%s%s'?", what, pfx, word, pfx, best)
                     : xasprintf("unknown %s '%s%s'", what, pfx, word);
    usage_error("%s", msg);
    free(msg);
    return false;
}

static bool set_warning(const char *name, bool enabled, bool as_error) {
    if (diag_set_warning(name, enabled, as_error)) return true;
    const char *names[64];
    const char *best = closest_name(name, names, diag_warning_names(names, 64));
    char *msg = best ? xasprintf("unknown warning '%s' (see --list-warnings); did you mean '%s%s'?", name,
                                 as_error ? "-Werror=" : enabled ? "-W" : "-Wno-", best)
                     : xasprintf("unknown warning '%s' (see --list-warnings)", name);
    usage_error("%s", msg);
    free(msg);
    return false;
}

static bool unknown_option(const char *a) {
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(a, "="), a);
    return unknown_name("option", name, "", option_names, ARRAY_LEN(option_names));
}

/* Matches "--name=value" or "--name value"; advances *i for the second form. */
static bool take_value(const char *name, int argc, char **argv, int *i, const char **val) {
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return false;
    if (a[n] == '=') {
        *val = a + n + 1;
        return true;
    }
    if (a[n] != 0) return false;
    if (*i + 1 >= argc) {
        *val = NULL;
        return true;
    }
    *val = argv[++*i];
    return true;
}

static void push(const char ***list, int *n, const char *s) {
    *list = xrealloc(*list, sizeof(char *) * (size_t)(*n + 1));
    (*list)[(*n)++] = s;
}

static bool parse_int(const char *s, int lo, int hi, int *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) return false;
    *out = (int)v;
    return true;
}

static bool add_input(Options *o, const char *a) {
    if (!o->input) o->input = a;
    push(&o->inputs, &o->ninputs, a);
    return true;
}

/* A prefix for exported symbols: a C identifier (it starts every field and task symbol). */
static bool symbol_prefix_ok(const char *p) {
    if (!*p || (*p >= '0' && *p <= '9')) return false;
    for (; *p; p++)
        if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) return false;
    return true;
}

static bool parse_one(int argc, char **argv, int *i, Options *o) {
    const char *a = argv[*i], *v;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return (o->help = true);
    if (!strcmp(a, "--version")) return (o->version = true);
    if (!strcmp(a, "--lsp")) return usage_error("%s", "--lsp comes first: qdc --lsp [FLAGS...] (man qdc-lsp)");
    if (!strcmp(a, "--check")) return (o->check_only = true);
    if (!strcmp(a, "--stats")) return (o->stats = true);
    if (!strcmp(a, "--debug")) return (o->debug = true);
    if (!strcmp(a, "--ad-stack=off") || !strcmp(a, "--ad-stack=on")) return (o->ad_stack_off = !strcmp(a, "--ad-stack=off")), true;
    if (!strcmp(a, "-g")) return (o->debug_lines = true);
    if (!strcmp(a, "--print-output-names")) return (o->print_outputs = true);
    if (!strcmp(a, "--list-targets")) return (o->list_targets = true);
    if (!strcmp(a, "--list-warnings")) return (o->list_warnings = true);
    if (!strcmp(a, "--list-diagnostics")) return (o->list_codes = true);
    if (!strcmp(a, "--support-matrix")) return (o->support_matrix = true);
    if (!strcmp(a, "-Werror")) return (o->diag.warnings_are_errors = true);
    if (!strcmp(a, "-fdiagnostics-parseable-fixits")) return diag_set_parseable_fixits(true), true;
    if (!strcmp(a, "--report-lowering") || !strcmp(a, "--report-lowering=text")) return (o->report_lowering = 1) != 0;
    if (!strcmp(a, "--report-lowering=json")) return (o->report_lowering = 2) != 0;
    if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) return o->opt_level = a[2] - '0', true;
    if (a[0] == '-' && a[1] == 'O' && a[2]) /* -O4, -Os, -Ofast: a level, not -o's file name */
        return usage_error("unknown optimization level '%s' (qdc has -O0, -O1, -O2 and -O3; did you mean '-O3'?)", a);
    if (!strcmp(a, "-Wall") || !strcmp(a, "-Wextra")) return set_all_warnings(), true;
    if (!strcmp(a, "--golden-check")) return (o->golden_check = true);
    if (!strcmp(a, "--time-report")) return (o->time_report = true);
    if (!strcmp(a, "--keep-unchanged")) return (o->keep_unchanged = true);
    if (!strcmp(a, "--embed")) return (o->embed = true);
    if (!strncmp(a, "-Werror=", 8)) return set_warning(a + 8, true, true);
    if (!strncmp(a, "-Wno-", 5)) return set_warning(a + 5, false, false);
    if (!strncmp(a, "-W", 2) && a[2]) return set_warning(a + 2, true, false);
    if (!strcmp(a, "-MD") || !strcmp(a, "-MMD")) return (o->dep_file = true);
    if (!strcmp(a, "-MP")) return (o->dep_phony = true);
    if (!strncmp(a, "-MF", 3) || !strncmp(a, "-MT", 3) || !strncmp(a, "-MQ", 3)) {
        if (!a[3] && *i + 1 >= argc) return usage_error("%s needs an argument", a);
        v = a[3] ? a + 3 : argv[++*i];
        if (a[2] == 'F') return o->dep_file = true, o->dep_path = v, true;
        o->dep_targets = xrealloc(o->dep_targets, sizeof(DepTarget) * (size_t)(o->ndep_targets + 1));
        o->dep_targets[o->ndep_targets++] = (DepTarget){v, a[2] == 'Q'};
        return true;
    }
    bool short_j = !strncmp(a, "-j", 2);
    if (short_j || take_value("--jobs", argc, argv, i, &v)) { /* -j N, -jN, --jobs=N, --jobs N */
        if (short_j) v = a[2] ? a + 2 : *i + 1 < argc ? argv[++*i] : NULL;
        char *end = NULL;
        errno = 0;
        long n = v ? strtol(v, &end, 10) : 0;
        if (!v || end == v || *end || errno || n < 1 || n > 1024)
            return usage_error("-j needs a number of jobs from 1 to 1024, got '%s'", v ? v : "");
        return o->jobs = (int)n, true;
    }
    if (!strcmp(a, "-o")) {
        if (*i + 1 >= argc) return usage_error("%s needs a file name", a);
        o->output = argv[++*i];
        return true;
    }
    if (!strncmp(a, "-o", 2) && a[2]) return o->output = a + 2, true;
    if (take_value("--target", argc, argv, i, &v)) {
        if (!v || !*v) return usage_error("%s needs a target name (see --list-targets)", "--target");
        return o->target = v, true;
    }
    /* nvcc's and glslc's spellings of a target: the family names are the same (sm_90, vulkan1.3) */
    for (size_t k = 0; k < ARRAY_LEN(target_spellings); k++)
        if (take_value(target_spellings[k], argc, argv, i, &v)) {
            if (!v || !*v) return usage_error("%s needs a target name (see --list-targets)", target_spellings[k]);
            return o->target = v, true;
        }
    if (take_value("--emit", argc, argv, i, &v)) {
        int k = v ? emit_from_name(v) : -1;
        if (k >= 0) return o->emit = (EmitKind)k, true;
        char names[256] = "";
        const char *cands[EMIT_COUNT];
        int nc = 0;
        for (int e = EMIT_DEFAULT + 1; e < EMIT_COUNT; e++) {
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", e > 1 ? ", " : "", emit_name((EmitKind)e));
            cands[nc++] = emit_name((EmitKind)e);
        }
        const char *best = v ? closest_name(v, cands, nc) : NULL;
        char *msg = xasprintf("unknown --emit kind '%s' (%s)%s%s%s", v ? v : "", names, best ? "; did you mean '" : "",
                              best ? best : "", best ? "'?" : "");
        usage_error("%s", msg);
        free(msg);
        return false;
    }
    if (take_value("--input-name", argc, argv, i, &v)) {
        if (!v || !*v) return usage_error("%s needs a path", "--input-name");
        return o->input_name = v, true;
    }
    if (take_value("--symbol-prefix", argc, argv, i, &v)) {
        if (!v || !symbol_prefix_ok(v))
            return usage_error("--symbol-prefix needs a C identifier prefix (letters, digits, _), got '%s'", v ? v : "");
        return o->symbol_prefix = v, true;
    }
    if (take_value("--emit-all", argc, argv, i, &v)) {
        if (!v || !*v) return usage_error("%s needs a directory", "--emit-all");
        return o->emit_all = v, true;
    }
    if (take_value("--cap", argc, argv, i, &v)) {
        if (!v || (v[0] != '+' && v[0] != '-') || !v[1])
            return usage_error("--cap needs +NAME or -NAME, got '%s'", v ? v : "");
        return push(&o->caps, &o->ncaps, v), true;
    }
    if (take_value("--capdb-dir", argc, argv, i, &v)) {
        if (!v || !*v) return usage_error("%s needs a directory", "--capdb-dir");
        return push(&o->capdb_dirs, &o->ncapdb_dirs, v), true;
    }
    if (take_value("--instantiate", argc, argv, i, &v)) {
        if (!v || !*v) return usage_error("%s needs a spec such as 'k(a=f32[1], n=4)'", "--instantiate");
        return push(&o->instantiate, &o->ninstantiate, v), true;
    }
    if (take_value("--eval-limit", argc, argv, i, &v)) {
        char err[320], names[256];
        if (!v || !eval_limit_parse(&o->eval_limits, v, err, sizeof err))
            return usage_error(v ? "%s" : "--eval-limit needs NAME=N (%s)", v ? err : eval_limit_names(names, sizeof names));
        return true;
    }
    /* ---- whole programs: -I DIR, -D NAME=EXPR, --kernel NAME (qdc-lang(7), IMPORTS) ---- */
    if (!strncmp(a, "-I", 2) || !strncmp(a, "-D", 2)) {
        if (!a[2] && *i + 1 >= argc) return usage_error("%s needs an argument", a);
        v = a[2] ? a + 2 : argv[++*i];
        if (a[1] == 'I') return *v ? (push(&o->include, &o->ninclude, v), true) : usage_error("%s needs a directory", "-I");
        const char *eq = strchr(v, '=');
        if (!eq || eq == v) return usage_error("-D needs NAME=EXPR (NAME may be MODULE.NAME), got '%s'", v);
        return push(&o->defines, &o->ndefines, v), true;
    }
    if (take_value("--kernel", argc, argv, i, &v)) {
        if (!v || !*v) return usage_error("%s needs a kernel name", "--kernel");
        return push(&o->kernels, &o->nkernels, v), true;
    }
    if (take_value("--print-caps", argc, argv, i, &v)) {
        if (!v || !*v) return usage_error("%s needs a target name", "--print-caps");
        return o->print_caps = v, true;
    }
    if (take_value("--atomic-rewrite", argc, argv, i, &v)) {
        if (!v || (strcmp(v, "none") && strcmp(v, "reduce") && strcmp(v, "all")))
            return usage_error("--atomic-rewrite must be all, reduce or none, got '%s'", v ? v : "");
        o->no_atomic_aggregate = strcmp(v, "all") != 0;
        return o->no_atomic_reduce = !strcmp(v, "none"), true;
    }
    if (take_value("--format", argc, argv, i, &v)) {
        if (!v || (strcmp(v, "text") && strcmp(v, "json") && strcmp(v, "md")))
            return usage_error("--format must be text, json or md, got '%s'", v ? v : "");
        return o->format = v, true;
    }
    if (take_value("--targets", argc, argv, i, &v)) {
        if (!v || !*v) return usage_error("%s needs a comma-separated list", "--targets");
        return o->targets_csv = v, true;
    }
    if (take_value("--error-limit", argc, argv, i, &v)) {
        if (!v || !parse_int(v, 0, 1000000, &o->diag.error_limit))
            return usage_error("--error-limit needs a number >= 0, got '%s'", v ? v : "");
        return true;
    }
    if (take_value("--diagnostics-format", argc, argv, i, &v)) {
        if (v && !strcmp(v, "text")) return o->diag.format = DIAG_TEXT, true;
        if (v && !strcmp(v, "json")) return o->diag.format = DIAG_JSON, true;
        if (v && !strcmp(v, "sarif")) return o->diag.format = DIAG_SARIF, true;
        return usage_error("--diagnostics-format must be text, json or sarif, got '%s'", v ? v : "");
    }
    if (take_value("--color", argc, argv, i, &v)) {
        if (v && !strcmp(v, "auto")) return o->diag.color = DIAG_COLOR_AUTO, true;
        if (v && !strcmp(v, "always")) return o->diag.color = DIAG_COLOR_ALWAYS, true;
        if (v && !strcmp(v, "never")) return o->diag.color = DIAG_COLOR_NEVER, true;
        return usage_error("--color must be auto, always or never, got '%s'", v ? v : "");
    }
    if (a[0] == '-' && a[1]) return unknown_option(a);
    return add_input(o, a);
}

/* Splits a response file the way GCC does: blanks separate arguments, '...' and "..." quote,
 * a backslash escapes the next character. Each argument is appended to args (owned). */
static void split_response(const char *text, ArgVec *args) {
    StrBuf cur;
    sb_init(&cur);
    bool any = false;
    char quote = 0;
    for (const char *p = text;; p++) {
        char c = *p;
        if (!c || (!quote && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))) {
            if (any) {
                sb_putc(&cur, 0);
                vec_push(args, sb_take(&cur));
            }
            any = false;
            if (!c) break;
        } else if (quote && c == quote) quote = 0;
        else if (!quote && (c == '\'' || c == '"')) quote = c, any = true;
        else {
            if (c == '\\' && p[1]) c = *++p;
            sb_putc(&cur, c), any = true;
        }
    }
    sb_free(&cur);
}

/* Appends arg, or the arguments of the response file it names (@file, nested up to 8 deep). */
static bool expand_arg(const char *arg, int depth, Options *o) {
    if (arg[0] != '@' || !arg[1]) {
        vec_push(&o->args, xstrdup(arg));
        return true;
    }
    if (depth > 8) return usage_error("response files nest more than 8 deep at '%s'", arg);
    FILE *f = fopen(arg + 1, "r");
    if (!f) {
        diag_usage("cannot read response file '%s': %s", arg + 1, strerror(errno));
        return false;
    }
    StrBuf text;
    sb_init(&text);
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) sb_append(&text, buf, n);
    int err = ferror(f) ? errno : 0;
    fclose(f);
    if (err) {
        sb_free(&text);
        diag_usage("cannot read response file '%s': %s", arg + 1, strerror(err));
        return false;
    }
    ArgVec inner = {0};
    split_response(text.data ? text.data : "", &inner);
    sb_free(&text);
    bool ok = true;
    for (int i = 0; i < inner.len; i++) {
        if (ok) ok = expand_arg(inner.items[i], depth + 1, o);
        free(inner.items[i]);
    }
    vec_free(&inner);
    return ok;
}

DiagFormat options_diag_format(int argc, char **argv) {
    DiagFormat f = DIAG_TEXT;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (!strncmp(argv[i], "--diagnostics-format=", 21)) v = argv[i] + 21;
        else if (!strcmp(argv[i], "--diagnostics-format") && i + 1 < argc) v = argv[++i];
        if (v) f = !strcmp(v, "json") ? DIAG_JSON : !strcmp(v, "sarif") ? DIAG_SARIF : DIAG_TEXT;
    }
    return f;
}

bool options_parse(int argc, char **argv, Options *o) {
    memset(o, 0, sizeof *o);
    o->argc = argc, o->argv = argv;
    o->opt_level = 2;
    o->diag.error_limit = 20;
    o->diag.out = stderr;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--"); i++)
        if (!expand_arg(argv[i], 0, o)) return false;
    int nopts = o->args.len;
    for (int k = 0; k < nopts; k++)
        if (!strcmp(o->args.items[k], "--")) nopts = k; /* a "--" inside a response file */
    for (int k = nopts + 1; k < o->args.len; k++)
        if (!add_input(o, o->args.items[k])) return false;
    for (i++; i < argc; i++)
        if (!add_input(o, argv[i])) return false;
    for (int k = 0; k < nopts; k++)
        if (!parse_one(nopts, o->args.items, &k, o)) return false;
    return true;
}

void options_free(Options *o) {
    free(o->caps);
    free(o->inputs);
    free(o->capdb_dirs);
    free(o->instantiate);
    free(o->include), free(o->defines), free(o->kernels);
    free(o->dep_targets);
    for (int i = 0; i < o->args.len; i++) free(o->args.items[i]);
    vec_free(&o->args);
}

void print_usage(FILE *out) {
    fputs("usage: qdc [options] FILE...     (FILE may be - for standard input)\n"
          "\n"
          "Compile Quadrants kernel files (.qd) for GPU families and the CPU.\n"
          "\n"
          "Choose targets and outputs:\n"
          "  --target=NAME[,NAME...] families to compile for (default x86_64; see --list-targets;\n"
          "                          nvcc's --arch=sm_NN and glslc's --target-env=vulkanX.Y also work)\n"
          "  -o FILE                 write the output to FILE (- for standard output); a template with\n"
          "                          %t (family), %e (extension), %m (module), %n (input stem)\n"
          "  --emit=KIND             ast, ir, obj, asm, llvm-ir, header, metadata, ptx, hsaco,\n"
          "                          spirv, spirv-asm, msl, c-array (default: the target's natural output)\n"
          "  --symbol-prefix=P       prefix every exported symbol (kernels, tasks, fields) with P\n"
          "  --input-name=PATH       name the input PATH: its diagnostics and its imports as if it were there\n"
          "  --embed                 also write the output as a C array, <output>.c, declared in <output>.h\n"
          "  --instantiate=[ENTRY=]KERNEL(P=VALUE, ...)  compile a generic kernel for these arguments\n"
          "                          (VALUE: f32[2] for an ndarray, 4 for an integer, a field's name)\n"
          "  -I DIR                  search DIR for imported modules (after the input's directory;\n"
          "                          then QDC_PATH)\n"
          "  -D [MODULE.]NAME=EXPR   set a module-level NAME (of the input, or of an imported MODULE)\n"
          "  --kernel NAME           compile only this kernel of the input (repeatable)\n",
          out);
    /* the budgets' names are budget.def's rows, wrapped as the lines around them */
    char names[256];
    const char *w = eval_limit_names(names, sizeof names);
    int col = fprintf(out, "  --eval-limit=NAME=N     raise a compile-time evaluation budget:");
    for (const char *sp; *w; w = sp ? sp + 1 : w + strlen(w)) {
        sp = strchr(w, ' ');
        int n = sp ? (int)(sp - w) : (int)strlen(w);
        if (col + 1 + n > 94) col = fprintf(out, "\n%25s", "") - 1; /* the next word's space makes the 26 columns */
        col += fprintf(out, " %.*s", n, w);
    }
    fputs(" (defaults: qdc(1))\n"
          "  --cap=+NAME, --cap=-NAME  assert or deny an optional device capability\n"
          "  --capdb-dir DIR         also search DIR for capability files\n"
          "  -O0 -O1 -O2 -O3         optimization level (default -O2)\n"
          "  -g                      source line information (DWARF, PTX .loc, SPIR-V OpLine)\n"
          "  --debug                 check asserts at run time (x86: message + abort; PTX: __assertfail)\n"
          "  --ad-stack=off|on       off: Quadrants' default, no gradient through a run-time range loop nested in\n"
          "                          another loop (qd.init(ad_stack_experimental_enabled=...) in the script wins)\n"
          "  --atomic-rewrite=all|reduce|none  reduce and aggregate loop-invariant atomics (all, the\n"
          "                          default), only reduce them, or keep one atomic per execution\n"
          "\n"
          "Build systems:\n"
          "  -MD, -MMD               also write a make dependency file (default: the output + .d)\n"
          "  -MF FILE, -MT TARGET, -MQ TARGET, -MP  depfile name, rule target (quoted), phony rules\n"
          "  --keep-unchanged        leave an output with unchanged bytes untouched (Ninja restat);\n"
          "                          by default its time stamp is updated (plain make)\n"
          "  --print-output-names    print the files a run would write, one a line; compile nothing\n"
          "  -j N, --jobs=N          compile up to N targets of --target at once (default: the cores)\n"
          "  @FILE                   read more arguments from FILE;  --  ends the options\n"
          "\n"
          "Check and inspect:\n"
          "  --check                 parse and check only; write nothing\n"
          "  --report-lowering[=text|json]  print one record per memory operation to stdout\n"
          "  --stats                 print kernels, tasks and memory operations (stdout)\n"
          "  --time-report           print the time of each phase (stderr)\n"
          "  --emit-all=DIR          write every text artifact and lowering report to DIR/<family>/\n"
          "  --golden-check          with --emit-all: compare with DIR, print a diff, exit 1 on change\n"
          "\n"
          "Diagnostics:\n"
          "  -Wall, -Wextra          warning groups (see --list-warnings)\n"
          "  -Werror, -W<name>, -Wno-<name>, -Werror=<name>\n"
          "  --error-limit=N         stop after N errors (default 20, 0 = no limit)\n"
          "  --diagnostics-format=text|json|sarif\n"
          "  --color=auto|always|never\n"
          "  -fdiagnostics-parseable-fixits  also print fix-its as fix-it:\"file\":{l:c-l:c}:\"text\"\n"
          "  --lsp [FLAG...]         serve the Language Server Protocol on stdin/stdout (qdc-lsp(1))\n"
          "\n"
          "The capability database and the tool:\n"
          "  --list-targets [--format=json]  list the families, their backends and aliases\n"
          "  --print-caps TARGET [--format=text|json]  print a family after inheritance\n"
          "  --support-matrix --targets=LIST|all [--format=md|text|json]  the support matrix\n"
          "  --list-warnings, --list-diagnostics\n"
          "  --version [--format=json] (build facts), --help\n"
          "\n"
          "Exit status: 0 success, 1 the input has errors, 2 usage error, 3 internal error.\n"
          "See qdc(1) for the full manual.\n",
          out);
}
