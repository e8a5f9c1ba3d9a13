/* The frontend's hand-off: parse a source into an AST, check it and build the IR.
 * Errors are reported through diag; callers look at diag_error_count(). */
#ifndef QDC_FRONTEND_H
#define QDC_FRONTEND_H
#include "../ir/ir.h"
#include "../support/diag.h"
#include "../support/util.h"
#include "py/budget.h"

typedef struct AstModule AstModule;

/* Lexes and parses src (validating UTF-8, NUL bytes, nesting and size limits). Returns the
 * module (possibly partial) or NULL when nothing usable was parsed. */
AstModule *frontend_parse(const Source *src, Arena *arena);
/* The same with the AST's nodes in `arena` and its names and strings in `strs`: the IR points
 * to the strings, never to a node, so the driver frees `arena` once the IR is built. */
AstModule *frontend_parse_split(const Source *src, Arena *arena, Arena *strs);
/* One {expression} field of an f-string at [off, off + len) of src (frontend/parse.c). */
struct Expr *frontend_parse_field(const Source *src, Arena *arena, uint32_t off, uint32_t len, Source **owned);
/* --emit=ast: stable textual dump; the format is documented at the top of frontend/ast_dump.c. */
void ast_dump(const AstModule *m, StrBuf *out);
/* Semantic analysis and IR construction; NULL if errors were reported. */
IrModule *frontend_check(const AstModule *m, Arena *arena);
/* What the command line adds: the instantiations of generic kernels, each
 * "[ENTRY=]KERNEL(PARAM=VALUE, ...)" (man/qdc.1, --instantiate). */
typedef struct FrontendOptions {
    const char *const *instantiate;
    int ninstantiate;
    bool debug; /* --debug: asserts become IR_ASSERT checks instead of being compiled out */
    int subgroup_width; /* the compile's subgroup width when every target agrees on one, else 0:
                           qd.simt.subgroup.group_size()/log2_group_size() fold to it */
    int max_shared_bytes; /* the targets' max_shared_bytes when they agree, else -1:
                             qd.lang.impl.get_max_shared_memory_bytes() folds to it */
    bool print_to_stderr; /* an output goes to standard output: qd.static_print writes to stderr */
    const char *arch; /* Quadrants' arch ("cuda", "x64", ...) when every target has the same, else NULL:
                         qd.lang.impl.current_cfg().arch is qd.<arch> */
    int max_block_dim; /* the smallest max_block_dim of the targets (capability database), 0: none
                          known: the block_dim of block collectives is bounded by it */
    EvalLimits limits; /* --eval-limit: the compile-time evaluator's budgets (py/budget.h) */
    /* whole programs (frontend/module.c, qdc-lang(7) IMPORTS) */
    const char *const *include; /* -I DIR, in order: searched after the input's directory */
    int ninclude;
    const char *qdc_path;       /* QDC_PATH (colon-separated), searched after -I; NULL: none */
    const char *const *defines; /* -D [MODULE.]NAME=EXPR */
    int ndefines;
    const char *const *kernels; /* --kernel NAME: compile only these kernels of the input */
    int nkernels;
    struct FrontendFiles *files; /* out: every module read besides the input (caller frees: frontend_files_free) */
    bool ad_stack_off; /* --ad-stack=off: Sema.ad_stack_off until the script's qd.init says otherwise */
} FrontendOptions;
/* The sources of the modules a check read: they outlive the IR (spans point into them). */
typedef struct FrontendFiles { Source **items; int len, cap; } FrontendFiles;
void frontend_files_free(FrontendFiles *f);
/* The file of module `name` (dotted, absolute) as an import finds it in the search directories
 * dirs, in order (qdc-lang(7), IMPORTS): NAME.py or a package's __init__.py; NULL when it is not
 * found or is a namespace package. Caller frees. */
char *module_locate(const char *const *dirs, int ndirs, const char *name);
IrModule *frontend_check_with(const AstModule *m, Arena *arena, const FrontendOptions *o);
#endif
