/* Command-line options of qdc (documented in man/qdc.1). */
#ifndef QDC_OPTIONS_H
#define QDC_OPTIONS_H
#include "../frontend/py/budget.h"
#include "../support/diag.h"
#include "../targets/target.h"
#include "depfile.h"

typedef VEC(char *) ArgVec;

typedef struct Options {
    const char *input;    /* path or "-": the (first) input */
    const char **inputs;  /* every input file, in order (qdc a.qd b.qd) */
    int ninputs;
    const char *output;   /* -o; NULL = derived */
    const char *target;   /* --target; NULL = x86_64; a comma list fans out (-o with %t) */
    EmitKind emit;
    bool check_only;
    bool print_outputs;   /* --print-output-names: print the planned output paths, compile nothing */
    bool stats;           /* --stats: one summary line on stdout after checking */
    bool debug;           /* --debug: compile asserts in where the target can report (qdc-lang(7)) */
    bool ad_stack_off;    /* --ad-stack=off: as qd.init(ad_stack_experimental_enabled=False) (qdc-lang(7) AUTODIFF) */
    bool debug_lines;     /* -g: source line information in the outputs (qdc(1), DEBUG INFORMATION) */
    int opt_level;
    int jobs;             /* -j N: targets compiled at once (0: the machine's cores) */
    const char **caps;
    int ncaps;
    const char **capdb_dirs; /* --capdb-dir, in order */
    int ncapdb_dirs;
    const char **instantiate; /* --instantiate SPEC, in order (generic kernels) */
    int ninstantiate;
    EvalLimits eval_limits; /* --eval-limit=NAME=N: the compile-time evaluator's budgets */
    /* whole programs (qdc-lang(7), IMPORTS): -I DIR, -D NAME=EXPR, --kernel NAME, each in order */
    const char **include, **defines, **kernels;
    int ninclude, ndefines, nkernels;
    DiagConfig diag;
    /* informational modes */
    bool help, version, list_targets, list_warnings, list_codes, support_matrix;
    const char *print_caps;  /* target name */
    const char *format;      /* --format=text|json|md */
    const char *targets_csv; /* --targets=LIST */
    int report_lowering;     /* 0 no, 1 text, 2 json */
    bool no_atomic_reduce;   /* --atomic-rewrite=none: one atomic per execution (qdc-lang(7)) */
    bool no_atomic_aggregate; /* --atomic-rewrite=none|reduce: no aggregation of used results */
    /* dependency file: -MD/-MMD (dep_file), -MF, -MT/-MQ, -MP */
    bool dep_file, dep_phony;
    const char *dep_path;
    DepTarget *dep_targets;
    int ndep_targets;
    const char *symbol_prefix; /* --symbol-prefix: prepended to every exported symbol */
    const char *input_name;    /* --input-name: the input's name (diagnostics, imports), not its file's */
    const char *emit_all;      /* --emit-all=DIR: every text artifact per target (golden files) */
    bool golden_check;         /* --golden-check: compare with --emit-all's DIR, write nothing */
    bool time_report;          /* --time-report: time per phase on stderr */
    bool embed;                /* --embed: also <output>.c (C array) and <output>.h (its declarations) */
    bool keep_unchanged;       /* --keep-unchanged: an output with the same bytes keeps its time stamp */
    ArgVec args;               /* the arguments after @file expansion (owned) */
    char **argv;               /* the command line as given (argv[0] names this qdc) */
    int argc;
} Options;

/* Parses argv; on a usage error prints it and returns false. */
/* --diagnostics-format as given anywhere on the command line (for errors found while parsing). */
DiagFormat options_diag_format(int argc, char **argv);
bool options_parse(int argc, char **argv, Options *o);
void options_free(Options *o);
void print_usage(FILE *out);
const char *emit_kind_name(EmitKind k); /* "ptx", "c-array", ... */
#endif
