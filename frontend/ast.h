/* The syntax tree (frontend-internal): what the parser builds and sema reads. Every node
 * carries the span of its source text. Nodes live in the compilation arena. */
#ifndef QDC_AST_H
#define QDC_AST_H
#include "../support/diag.h"
#include "../support/util.h"
#include <stdint.h>

typedef struct Expr Expr;
typedef struct Stmt Stmt;

typedef enum {
    E_NAME, E_INT, E_FLOAT, E_STR, E_BOOL, E_NONE,
    E_ATTR,     /* obj.name */
    E_CALL,     /* fn(args, name=kwarg) */
    E_SUBSCRIPT,/* obj[index]; index is an E_TUPLE for a[i, j] */
    E_TUPLE, E_LIST,
    E_UNARY,    /* op: T_MINUS, T_PLUS, T_TILDE, T_KW_NOT */
    E_BINARY,   /* op: the operator's token kind */
    E_BOOLOP,   /* op: T_KW_AND / T_KW_OR over items */
    E_COMPARE,  /* items[0] ops[0] items[1] ops[1] ... (chained); `is` is T_KW_IS, `is not` T_KW_NOT,
                   `in` T_KW_IN, `not in` CMP_NOT_IN */
    E_IFEXP,    /* a if cond else b */
    E_NAMED,    /* NAME := value (bin.a the name, bin.b the value) */
    E_STARRED,  /* *a: a call argument or a tuple/list item, unpacked (un.a) */
    E_SLICE,    /* lo:hi:step inside a subscript; absent parts NULL (slice) */
    E_COMP,     /* [elt for target in iter if cond ...] (list) or (elt for ...) (gen: a generator) */
    E_LAMBDA,   /* lambda params: body, held as a synthesized def whose body is `return body` */
    E_VALUE,    /* sema only: an already evaluated value (value points at a sema Val) */
    E_ERROR,    /* placeholder after a reported syntax error */
} ExprKind;

enum { CMP_NOT_IN = 1000 }; /* E_COMPARE op of `not in` (past every token kind) */

typedef struct {
    Expr **items;
    int n;
} ExprList;

typedef struct Keyword {
    const char *name;
    Expr *value;
    Span span;
} Keyword;

struct Expr {
    ExprKind kind;
    Span span;
    int op; /* TokKind of the operator (E_UNARY, E_BINARY, E_BOOLOP) */
    bool fstr; /* E_STR: an f-string; str is its text, {expr} fields unevaluated ({{ }} kept) */
    union {
        const char *name; /* E_NAME */
        uint64_t i;       /* E_INT */
        double f;         /* E_FLOAT */
        const char *str;  /* E_STR */
        bool b;           /* E_BOOL */
        struct { Expr *obj; const char *name; } attr;
        struct { Expr *fn; ExprList args; Keyword *kw; int nkw; } call;
        struct { Expr *obj, *index; } sub;
        ExprList list;    /* E_TUPLE, E_LIST, E_BOOLOP */
        struct { Expr *a; } un;
        struct { Expr *a, *b; } bin;
        struct { ExprList items; int *ops; } cmp;
        struct { Expr *cond, *a, *b; } ifexp;
        struct { Expr *lo, *hi, *step; } slice;
        /* one `for` clause each; elt is the same node in every clause, next the following one */
        struct { Expr *elt, *target, *iter; ExprList conds; Expr *next; bool gen; } comp;
        const Stmt *lambda; /* E_LAMBDA: an S_DEF named "<lambda>" */
        const void *value;  /* E_VALUE */
    };
};

typedef struct {
    Stmt **stmts;
    int n;
} StmtList;

typedef struct Param {
    const char *name;
    Expr *annotation; /* may be NULL */
    Expr *dflt;       /* may be NULL */
    Span span;
} Param;

typedef enum {
    S_EXPR, S_ASSIGN, S_ANNASSIGN, S_AUGASSIGN, S_IF, S_WHILE, S_FOR,
    S_BREAK, S_CONTINUE, S_PASS, S_RETURN, S_DEF, S_IMPORT, S_ASSERT,
    S_HOST, /* module level: host code of a Quadrants script, not compiled (names it binds) */
    S_CLASS, /* module level: a @qd.data_oriented class (body: its methods and class statements) */
} StmtKind;

struct Stmt {
    StmtKind kind;
    Span span;
    union {
        Expr *expr;                                           /* S_EXPR; S_RETURN (may be NULL) */
        struct { ExprList targets; Expr *value; } assign;     /* a = b = value */
        struct { Expr *target, *annotation, *value; } ann;    /* value may be NULL */
        struct { Expr *target; int op; Expr *value; } aug;    /* op: the binary operator token */
        struct { Expr *cond; StmtList then, els; bool raises, tape, fwd; const Expr *with; int with_items; bool with_as; bool validate; const Expr *loss; } if_;
            /* elif is a nested S_IF in els; raises: the block of a host `try:` or `with pytest.raises(...)` (cond
               True); with: a kernel's `with CALL:` (cond True, its body in then): the first context expression,
               with_items how many there are, with_as whether one has `as` (sema_graph.c checks Quadrants' forms);
               tape: a host `with ...Tape(...)` block (sema_ad.c: its kernels' gradients are wanted), loss its loss
               argument (NULL: none, or not parsed); fwd: a host
               `with ...FwdMode(...)` block (its kernels' forward-mode companions are wanted) */
        struct { Expr *cond; StmtList body; } while_;
        struct { Expr *target; Expr *iter; StmtList body; } for_;
        struct {
            const char *name;
            ExprList decorators;
            Param *params;
            int nparams;
            Expr *returns; /* may be NULL */
            StmtList body;
            Span name_span;
            bool host; /* an undecorated (or not qd-decorated) host function: body parsed like module level */
            int kwonly; /* host: 1 + the index of its first keyword-only parameter (after a bare '*'), 0 for none */
        } def;
        struct { const char *name; Span name_span; StmtList body; bool dataclass, py_dataclass, int_enum, int_flag, plain, lifted; const struct Expr *deco; const char *base; Span base_span; } class_; /* @qd.dataclass; @dataclasses.dataclass; (IntEnum); (IntFlag); plain: an undecorated class the evaluator runs (base: its one base class's name, NULL for none or object); lifted: @qd.data_oriented(template_primitives=False), its primitive members are run-time kernel arguments; deco: a decorator alias sema resolves (@DATA_ORIENTED) */
        struct { const char *module, *alias; /* alias NULL without 'as' (quadrants, math) */
                 const char *name; int level; bool user, star; Span bound; } import; /* user: a module of the program
                 (frontend/module.c): alias is the name bound; name: of `from MODULE import name` (NULL:
                 `import MODULE`, which binds MODULE's first component unless `as`); level: leading dots;
                 star: `from MODULE import *`; bound: the name bound, as written */
        struct { Expr *cond, *msg; } assert_;             /* msg may be NULL; cond NULL: host `raise msg` */
        struct { ExprList names; const char *what; } host; /* E_NAMEs the host code assigns */
    };
};

struct AstModule {
    const Source *src;
    StmtList body;
};
/* A return anywhere in s or l, nested blocks too (parse.c): a question on the tree that kernel
 * semantics (qd.real_func's returns) and the evaluator (which host functions it runs) both ask. */
bool ast_stmt_may_return(const Stmt *s);
bool ast_may_return(const StmtList *l);
#endif
