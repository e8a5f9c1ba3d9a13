/* Semantic analysis internals (frontend-only): the checker's state, compile-time values and
 * scopes shared by sema.c (module, kernels, tasks), sema_expr.c (expressions, builtins),
 * sema_mem.c (atomics, volatile loads, fences, shared arrays) and sema_stmt.c (statements,
 * loops, qd.func inlining). Everything sema builds is IR in the compilation arena.
 *
 * What a part may touch (docs/architecture.md, "The layers"): the checker core (sema.c,
 * sema_expr.c, sema_stmt.c, module.c, callcheck.c) uses the syntax (ast.h, lex.h), the IR
 * builders (ir/), support/ and py/budget.h, and reaches every feature file and the Python
 * evaluator (py/) only through Sema.up (hooks.def, filled in check.c), never by a direct call.
 * Feature files (sema_vec.c, sema_struct.c, ...) call down into the core and each other. No
 * frontend file includes a lowering, capability-database or backend header: what the frontend
 * knows of a target comes in FrontendOptions (frontend.h). */
#ifndef QDC_SEMA_H
#define QDC_SEMA_H
#include "ast.h"
#include "frontend.h"
#include "lex.h"

/* What a name or expression denotes while checking. Only V_EXPR/V_LOCAL/V_REF are run-time
 * scalar values; the rest exist at compile time only. */
typedef enum {
    V_ERR,     /* an error was already reported: propagate silently */
    V_EXPR,    /* a scalar rvalue (IR_CONST when compile-time constant) */
    V_LOCAL,   /* a kernel-local scalar variable (an lvalue) */
    V_REF,     /* an element of a field, ndarray or SharedArray (an lvalue) */
    V_FIELD,   /* a module-level qd.field, unsubscripted */
    V_NDARRAY, /* an ndarray parameter, unsubscripted */
    V_SHARED,  /* a SharedArray, unsubscripted */
    V_SHAPE,   /* a.shape of an ndarray parameter */
    V_TYPE,    /* a scalar type such as qd.f32 */
    V_NS,      /* a namespace path under qd ("qd.simt.block") or a Python builtin ("range") */
    V_FUNC,    /* a @qd.func definition */
    V_KERNEL,  /* a @qd.kernel definition (not callable from kernels) */
    V_TUPLE,   /* a tuple or list of compile-time values */
    V_NONE,
    V_STR,
    V_HOST,    /* a module-level name bound by host code: known only when the script runs (path: what) */
    V_SNODE,   /* an SNode (qd.root.dense(...)), or one of its methods (snode.method) */
    V_HOSTARRAY, /* host code: qd.ndarray(...) / a numpy array of known dtype and ndim (a call-site argument) */
    V_CLASS,   /* a @qd.data_oriented class (index: in Sema.classes) */
    V_OBJECT,  /* an instance of one (obj) */
    V_VEC,     /* a vector (m == 0) or matrix (n rows, m columns) value: n (or n*m) scalar
                  components, row-major, each V_EXPR/V_LOCAL/V_REF (sema_vec.c) */
    V_VECTYPE, /* qd.types.vector(n, dt) / qd.types.matrix(n, m, dt) (m == 0: vector) */
    V_METHOD,  /* v.dot and the other methods of a vector value, not yet called */
    V_STRUCTTYPE, /* qd.types.struct(a=qd.f32, b=vec3) (sema_struct.c) */
    V_STRUCT,  /* a struct value, or a struct field: one Val per member (scalar, V_VEC, or for a
                  field V_FIELD / V_VEC of V_FIELD) */
    V_PYDCTYPE, /* a @dataclasses.dataclass class (sema_pydc.c) */
    V_ANNOT,   /* a module-level alias of an array or template annotation (A = qd.types.ndarray()) */
    V_PYDC,    /* an instance of one: one Val per member (in kernels: parameters, fields, constants,
                  nested V_PYDC; in host code: what a call passes) */
    V_DICT,    /* a dict of compile-time keys (dict.keys) and values (dict.vals): {1: qd.atomic_add} */
    V_DISPATCH, /* a @qd.perf_dispatch prototype (index: in Sema.dispatchers): the host picks one of
                   its registered implementations at run time; each compiles as its own entry */
    V_PYFUNC,  /* a Python function whose body is `return EXPR` (def; Sema.pyfuncs has its scope):
                  a call evaluates EXPR with the parameters bound, as Python does when it compiles */
    V_MODULE,  /* a module of the program (mod), imported (module.c) */
    V_PYINT,   /* a Python int past 64 bits (big, frontend/py/pyint.h): exact in host arithmetic,
                  QD2050 where a kernel, a shape or an index would need it (py/sema_pyint.c) */
    V_BVIEW,   /* a BufferView: elements offset .. offset+size-1 of ndarray parameter arr (sema_bview.c) */
} ValKind;

typedef struct PyDc { /* a @dataclasses.dataclass: its annotated members in declaration order */
    const Stmt *cls;
    struct Scope *scope; /* where it is defined (its annotations name things there) */
    int n;
    const char **names;
    const Expr **anns, **dflts;
} PyDc;

typedef struct QdStruct { /* a struct type: members in declaration order */
    int n;
    const char **names;
    QdType *dt;
    int *vn, *vm; /* a vector (vn > 0, vm == 0) or matrix member; 0: a scalar */
    const struct QdStruct **sub; /* a nested struct member (dt unused), else NULL */
    const Stmt **methods; /* @qd.dataclass: its @qd.func methods (self first) */
    int64_t scalars;      /* scalar components, nested structs included (what the size budget is charged) */
    int nmethods;
} QdStruct;

typedef struct AdManual { int first, last; Span span; bool dual, strct; } AdManual; /* Sema.ad_manual */

typedef struct Val Val;
typedef struct SemaModule SemaModule; /* module.c */
struct Val {
    ValKind kind;
    union {
        IrExpr *e;        /* V_EXPR */
        int index;        /* V_LOCAL, V_FIELD, V_NDARRAY (param), V_SHARED, V_SHAPE (param) */
        IrRef *ref;       /* V_REF */
        QdType type;      /* V_TYPE */
        const char *path; /* V_NS ("qd.simt", or "range" for builtins); V_STR contents */
        const Stmt *def;  /* V_FUNC, V_KERNEL */
        struct { Val *items; int n; } tuple;
        struct { int node; const char *method; int builder; IrExpr **idx; int nidx; } snode; /* V_SNODE; builder: 1 + a qd.FieldsBuilder's index;
                                                                               idx: x[i] of a field in a dynamic SNode (its list, sema_sparse.c) */
        struct { QdType type; signed char ndim, en, em, qd; const unsigned char *layout; const int64_t *shape; bool view, torch, grad, strided; const int64_t *dims; struct NpData *np; } harr; /* V_HOSTARRAY: ndim array
                              axes of a scalar (en 0), vector (en) or matrix (en x em) type; dims: a qd.ndarray's constant
                              shape, for messages only (NULL: not known); layout: storage order
                              of the axes, outermost first (NULL: canonical), sema_tensor.c; qd: a Quadrants
                              ndarray (qd.ndarray...), 0: an external (numpy, torch) array; view: a BufferView
                              of the 1-d array (sema_bview.c); torch: a torch tensor torch.* made (its dims
                              known where constant); grad: made with needs_grad=True (qd) or requires_grad=True (torch);
                              strided: a numpy view neither C- nor F-contiguous, a torch view not contiguous
                              (Quadrants' launch refuses it, _func_base.py);
                              np: a numpy array's elements the evaluator computed (py/sema_npvalue.c), NULL: unknown */
        struct SemaObject *obj;                         /* V_OBJECT */
        struct { Val *c; int n, m; } vec;                 /* V_VEC */
        struct { int n, m; QdType dt; } vt;               /* V_VECTYPE (dt QT_VOID: inferred) */
        struct { Val *self; const char *name; } method;  /* V_METHOD */
        struct { const QdStruct *st; Val *m; } strct;    /* V_STRUCTTYPE (m NULL), V_STRUCT */
        struct { const PyDc *dc; Val *m; } pydc;         /* V_PYDCTYPE (m NULL), V_PYDC */
        const Expr *ann;                                 /* V_ANNOT: the annotation it names */
        struct { Val *keys, *vals; int n; } dict;        /* V_DICT */
        struct SemaModule *mod;                          /* V_MODULE */
        const struct PyInt *big;                         /* V_PYINT */
        struct { int arr; IrExpr *off, *size; } bview;   /* V_BVIEW: i32 offset and size */
    };
};

typedef struct Binding {
    const char *name;
    Val v;
    bool is_param; /* a kernel argument: read-only */
    Span decl;     /* where it was declared (for notes) */
} Binding;

typedef struct Scope Scope;
struct Scope {
    Scope *parent;
    VEC(Binding) b;
    struct ScopeIndex *index; /* scope_bind's hash of b by name (in the arena; NULL: none yet) */
    bool library; /* the globals of qdc's own source (sema_tile.c's tiles): not a kernel's captures */
};

typedef VEC(IrStmt *) IrStmtVec;

typedef enum { LOOP_NONE, LOOP_PARALLEL, LOOP_SERIAL, LOOP_STATIC } LoopKind;

typedef struct Instance Instance; /* one --instantiate spec (sema_generic.c) */

/* A kernel or qd.func definition and the scope its body sees besides its own names: the module,
 * or the host function it is defined in (for a kernel, that scope as it was at the kernel's
 * first call in the function body, when there is one). */
typedef struct SemaDef {
    const Stmt *def;
    Scope *scope;
    const char *entry; /* kernels: entry name (generic ones: before the instantiation's suffix) */
    bool kernel, frozen;
    bool method; /* of a data-oriented instance: its first parameter (self) is bound in scope */
    bool pure;   /* @qd.kernel(fastcache=True) / pure=True / @qd.pure: reads no captured values */
    bool imported, called; /* defined by an imported module (compiled only when called); host code calls it */
    bool call_ok; /* a host call passed Quadrants' argument checks (callcheck.c): none did, and one was refused:
                     Quadrants never compiles the kernel, nor does qdc */
    Scope *live; /* frozen into a snapshot: the scope scope copies (its qd.funcs read the snapshot, sema_def_scope) */
    Span call_at; /* its first host call (called) */
    bool plain_call; /* a host call outside the blocks the script expects to raise (with pytest.raises, try) */
    unsigned char *arg_grad; /* per parameter, what host calls pass an ndarray parameter (callcheck.c): 1 an array with
                                a gradient (needs_grad=True, requires_grad=True), 2 one without, 4 one qdc does not know
                                (NULL: no call seen) */
} SemaDef;

/* @qd.data_oriented (sema_class.c): a class, and each instance created in host code. */
typedef struct SemaClass {
    const Stmt *cls;
    Scope *scope;      /* where the class is defined */
    bool instantiated;
    bool imported;     /* defined by an imported module (module.c) */
    bool hollow;       /* QD2068 names it: its QD2104 warning would repeat the cause */
    bool plain;        /* an undecorated Python class (no kernels of its own) */
    int base;          /* plain: 1 + the index of its base class, 0 for none */
    Scope *attrs;      /* plain: what CLASS.NAME is (class attributes, static and class methods) */
} SemaClass;

typedef struct SemaObject {
    int cls;
    const char *name;   /* the variable it was bound to */
    Span at;            /* the call that creates it */
    const char *prefix; /* entry-name prefix of its kernels and fields: "sim__" */
    Scope attrs;        /* self.NAME as __init__ set them, and the kernel and func methods */
} SemaObject;

/* A primitive member of a @qd.data_oriented(template_primitives=False) object that a kernel reads:
 * Quadrants lifts it to a run-time argument of the kind (integer or float) it had at the first launch. */
typedef struct SemaLifted { int def; const struct SemaObject *obj; const char *member; bool is_int; } SemaLifted;

/* A generic kernel's instantiation inferred from a call in host code: one value per parameter
 * (V_ERR for the non-generic ones). */
typedef struct CallInst {
    int def;           /* index in Sema.defs */
    Val *args;
    const char *entry;
    Span span;
    bool raises; /* every such call is in a block the script expects to raise (with pytest.raises) */
    Scope *scope; /* not the kernel's first call: the snapshot of SemaDef.live at this instantiation's first call */
} CallInst;

/* A host helper function (sema_param.c): evaluated once per distinct call qdc sees, its
 * parameters bound to the call's arguments. */
typedef struct SemaHelper {
    const Stmt *def;
    Scope *scope;              /* where it is defined */
    const char *prefix;        /* the entry-name prefix there */
    VEC(const char *) combos;  /* the calls evaluated so far, as spelled in entry names ("" for none) */
    VEC(Val) rets;             /* what each returns: an array or field it allocates, a kernel or qd.func it
                                  defines, else V_ERR */
    bool apply;                /* the forward of a torch.autograd.Function subclass: F.apply(args) calls it
                                  with ctx first (sema_autograd_class) */
    Span cls;                  /* that class's name, where F is bound */
    const struct SemaObject *self; /* a plain method of this data-oriented instance: obj.m(args) runs it, self bound */
} SemaHelper;

typedef struct Sema {
    Arena *arena;
    EvalBudget budget; /* the compile-time evaluator's budgets (py/budget.h), per compilation */
    const Source *src;
    IrModule *m;
    Scope module;
    const char *qd_alias; /* the name quadrants is imported as */
    VEC(IrField) fields;
    VEC(IrKernel) kernels;
    /* the kernel being checked */
    IrKernel *k;
    VEC(IrParam) params;
    VEC(IrLocal) locals;
    VEC(int) local_task; /* the task that created each local */
    VEC(IrShared) shared;
    VEC(IrTask) tasks;
    VEC(IrLoop) loops; /* qd.graph.do_while loops of the kernel (sema_graph.c) */
    int cur_loop;      /* the innermost one being checked, -1 for none */
    bool graph;        /* the kernel is @qd.kernel(graph=True) */
    bool checkpoints;  /* ... and checkpoints=True (sema_graph.c) */
    VEC(IrCheckpoint) cps; /* its checkpoints, in source order */
    int cur_cp;        /* 1 + the checkpoint being checked, 0 for none */
    bool cp_wrap;      /* the statement list split next is one whose for loops become implicit checkpoints */
    int with_ctx;      /* inside `with qd.graph.parallel_context()` (1), a qd.graph.parallel() section (2),
                          `with qd.stream_parallel()` (3), none (0) (sema_graph.c) */
    Scope *scope;     /* innermost function scope (kernel, or an inlined qd.func) */
    IrStmtVec *cur;   /* the block statements are appended to (NULL: no run-time code here) */
    int task;         /* index of the open task, -1 if none */
    bool uses_block;  /* the open task uses barriers, thread_idx or shared arrays */
    LoopKind loop;    /* innermost loop kind, for break/continue */
    int caller_dyn;   /* run-time loops around the calls of the qd.funcs being inlined */
    bool parallel_continue; /* a continue left the parallel loop body */
    const Stmt **inline_stack; /* the qd.funcs being inlined, outermost first (sema_inline_push) */
    int ninline, inline_cap;
    int block_dim;    /* pending qd.loop_config(block_dim=...) */
    bool serialize;   /* pending qd.loop_config(serialize=True) / parallelize=1 */
    bool debug;       /* --debug: asserts are checked at run time */
    bool init_debug;  /* qd.init(debug=True) in the script: only a certain out-of-bound access is an error (QD2172) */
    bool raise_floats; /* qd.init(raise_on_templated_floats=True): Quadrants refuses floats as template arguments and
                          globals a kernel reads (QD2174) */
    IrStmtVec *known_at; /* an assert at a kernel's top level is being checked: the straight-line block whose
                            constant assignments sema_known_const reads (NULL: none, sema_stmt.c) */
    int subgroup_width; /* FrontendOptions.subgroup_width: 0 when not known at compile time */
    VEC(const char *) promoted; /* kernel-scope locals shared between tasks (sema_promote) */
    int promoted_depth;         /* the ninline those names belong to: 0 the kernel's, else a qd.func
                                   inlined at the kernel's top level (inline_toplevel), whose own
                                   serial code's locals its loops read */
    int ndefs;        /* kernels and funcs defined so far */
    Span block_dim_span;
    VEC(struct Instance) instances; /* --instantiate specs that parsed */
    VEC(Source *) spec_sources;     /* specs that did not parse (freed at the end) */
    int inst;                       /* the instantiation being checked, -1 for none */
    VEC(struct SNode) snodes;       /* module-level SNode tree; node 0 is qd.root */
    VEC(IrStorage) storages;
    VEC(Span) builders;             /* qd.FieldsBuilder()s: where each was finalized (length 0: not yet) */
    VEC(const char *) unplaced_why; /* per field (NULL: none): why host code's placement of it is unknown */
    /* host functions (sema.c): the scope module-level statements bind in and its entry-name prefix */
    Scope *hscope;
    const char *prefix;           /* "" at module level, "f__" in host function f, "f__g__" in g inside f */
    VEC(SemaDef) defs;
    VEC(SemaDef) lambdas;         /* host-code lambdas evaluated so far and their scopes (sema_lang.c) */
    /* defs and lambdas by def: the position of the latest entry for each (sema_def_push, sema_def_at) */
    struct DefIndex { const Stmt **def; int *at; int cap, n; } def_index, lambda_index;
    VEC(Scope *) host_scopes;     /* owned: freed at the end */
    VEC(const char *) used_names; /* entry names and prefixes given so far */
    VEC(CallInst) callinsts;
    VEC(SemaLifted) lifted; /* primitive members of template_primitives=False objects as their kernels' first launches saw them (callcheck.c) */
    const CallInst *callinst;     /* the call-site instantiation being checked, or NULL */
    Scope *bind_to;               /* where module-level statements bind (NULL: hscope) */
    const char *field_hint;       /* the name host code is assigning (a field made by an expression is named after it) */
    VEC(const Stmt *) fixtures;   /* @pytest.fixtures waiting for a parameter the script binds later (sema_fixture_param) */
    bool method;                  /* the kernel being checked is a method: its first parameter is self */
    VEC(SemaClass) classes;
    VEC(SemaObject *) objects;    /* owned */
    /* return under compile-time control flow only (if qd.static, qd.static loops), as Quadrants */
    bool returned;       /* a return was checked: the rest of the function is not compiled */
    int dyn;             /* run-time ifs and loops around the statement, in the current function */
    Val fn_result;       /* the inlined qd.func's result, from its return */
    /* break/continue of a qd.static loop (under compile-time control flow only, as Quadrants):
     * the rest of the iteration is not compiled; a break also ends the unrolling */
    enum { JUMP_NONE, JUMP_BREAK, JUMP_CONTINUE } static_jump;
    int static_dyn;      /* S->dyn where the innermost qd.static loop's body starts */
    /* a qd.real_func that returns under run-time control flow (sema_stmt.c): its returns set the
     * flag local and the result local (-1: none) and leave its run-time loops; statements after
     * a statement that may return run only while the flag is clear */
    struct RealFunc { bool on; int flag, result, loops; bool dead; } rf;
    IrStmtVec *toplevel; /* a qd.static loop at a kernel's top level is being unrolled: its body is
                            split into tasks like the kernel's (sema.c), with this serial body */
    const Stmt *kernel_def; /* the kernel being checked */
    /* the kernel being checked was frozen at its first call (SemaDef.live): the qd.funcs it calls
     * that are defined in that scope read the kernel's snapshot of it (sema_def_scope) */
    const Scope *snap_live;
    Scope *snap;
    int rng_local;       /* the open task's qd.random state (a u32 local), -1 before its first use */
    int rng_field;       /* the kernel's launch counter qdc_rng_<kernel> (a 0-d u32 field), or -1 */
    IrStmt *rng_init;    /* ... and its seeding, put first in the task's body when it is closed */
    int64_t random_seed; /* qd.init(random_seed=N) */
    bool ad_stack_off;   /* qd.init(ad_stack_experimental_enabled=False): Quadrants' reverse mode refuses nested run-time range loops */
    int loop_nest;       /* run-time loops around the statement being checked, qd.func calls included (Quadrants' loop_depth) */
    QdType default_fp, default_ip; /* qd.init(default_fp=, default_ip=): Python's float and int */
    const char *arch; /* FrontendOptions.arch: NULL when the targets' archs differ */
    int max_shared_bytes; /* FrontendOptions.max_shared_bytes */
    int max_block_dim;    /* FrontendOptions.max_block_dim (0: none known) */
    bool print_to_stderr; /* FrontendOptions.print_to_stderr */
    VEC(SemaHelper) helpers;
    const Stmt *loop_kernel;     /* the first kernel defined in a host loop qdc could not run (sema_host_for) */
    const char *loop_kernel_why; /* ... and why: "set in a for loop that runs more than 64 times (...)" */
    VEC(struct SemaDispatch { const Stmt *proto; VEC(const Stmt *) impls; }) dispatchers; /* @qd.perf_dispatch */
    VEC(struct PyFunc { const Stmt *def; struct Scope *scope; }) pyfuncs; /* V_PYFUNC: where each is defined */
    struct PyFuncIndex { const Stmt **def; struct Scope **scope; int cap, n; } pyfunc_index; /* pyfuncs by def (the latest) */
    int pyfunc_depth;
    struct PyShape *pyfunc_shape; /* the `return EXPR` functions sema_pyfunc_is_host is reading, innermost first */
    int pyfunc_trying; /* sema_pyfunc_is_host is running a Python function quietly to see whether it can */
    int pyfunc_body;              /* evaluating the body of a function of several statements (sema_pyfunc.c) */
    const Expr *pyfunc_call;      /* the innermost call of such a function being run (QD2180's note names it) */
    VEC(const Stmt *) tests;      /* module-level test* functions: pytest runs them after the import */
    const AstModule *ast;
    int helper_depth;
    bool host_returned;       /* a host function's body reached `return`: the rest is not evaluated */
    Val host_ret;             /* and what it returns: an array or field, else V_ERR */
    const Expr *helper_call;  /* the last host helper call evaluated, and what it returned */
    Val helper_ret;
    int raises;
    bool ad_ndarray; /* an ndarray with needs_grad=True was allocated (sema_tensor.c): IrModule.ndarray_grads */
    /* fields declared needs_grad=/needs_dual=True without a shape (placed by host code): Quadrants
     * wants their adjoint / dual fields placed too, or qd.root.lazy_grad() / lazy_dual() (sema_ad.c) */
    VEC(AdManual) ad_manual;
    VEC(AdManual) members; /* a vector or matrix field declared without a shape: its component fields (first..last),
                              which host code places one by one (Quadrants checks they get one shape, sema_snode.c) */
    bool ad_lazy[2]; /* qd.root.lazy_grad() (0) / lazy_dual() (1) was called */
    /* host loops being evaluated (sema_param.c): a break or continue met ends the body's
     * evaluation; one under an `if` qdc cannot decide makes the rest of the loop unknown */
    int host_loops;
    enum { HJ_NONE, HJ_BREAK, HJ_CONTINUE, HJ_UNKNOWN } host_jump;
    bool pure;                    /* the kernel being checked is @qd.kernel(fastcache=True) (sema_pure_capture) */
    int in_static;                /* evaluating the argument of qd.static(...) */                   /* inside blocks the script expects to raise (try, with pytest.raises) */             /* helper calls being evaluated (a recursion bound) */
    Val val_slots[8]; /* what the names "$val0".."$val7" denote (sema_val_node) */
    /* provable divergence (sema_simt.c): each local's only assignment (NULL: none yet,
     * SEMA_REASSIGNED: more than one), and the innermost `if` whose condition differs between
     * the lanes of one subgroup / of the block (depth 0: none) */
    VEC(const IrExpr *) local_def;
    bool bind_shared; /* binding the arguments of a qd.func whose loops are top level (tasks) */
    int sg_divergent, block_divergent;
    Span sg_div_at, block_div_at;
    uint32_t div_reported; /* the span offset of the last collective reported, +1 */
    /* the program's modules (module.c) */
    VEC(SemaModule *) modules;     /* imported (and the input, when it has a package name), by name */
    SemaModule *input, *cur_mod;   /* the input; the imported module whose top level is being evaluated */
    VEC(const char *) search;      /* the input's directory, -I, QDC_PATH */
    const char *const *defines;    /* -D [MODULE.]NAME=EXPR */
    int ndefines;
    const char **define_mod, **define_name; /* each -D's module (its dotted name; NULL: the input) and NAME */
    const char *const *kernel_names; /* --kernel NAME */
    int nkernel_names;
    struct FrontendFiles *files;   /* the modules read (FrontendOptions.files) */
    const struct SemaHooks *up;    /* the feature files the core and py/ call up into (hooks.def, check.c) */
    const struct SemaCore *core;   /* the core's functions py/ calls down into (py/core.def, sema.c) */
    struct SemaQuant *quant;       /* quantized types and bit-packed fields (sema_quant.c) */
    struct SemaTile *tile;         /* the qd.simt tile types built so far (sema_tile.c) */
    struct Scope *algo;            /* qd.algorithms' scope once evaluated (sema_algo.c; in host_scopes) */
    struct AdWants *ad_wants;      /* the host calls that ask for gradients, scanned once per module (sema_ad.c) */
    struct SemaStopGrad *stop_grad; /* qd.stop_grad(x) calls of blocks not yet frozen (sema_fieldops.c) */
} Sema;
#define SEMA_REASSIGNED ((const IrExpr *)&sema_reassigned)
extern const int sema_reassigned;

/* sema.c */
Binding *scope_find(Scope *s, const char *name);
Binding *scope_bind(Sema *S, Scope *s, const char *name, Val v, Span decl);
int sema_new_local(Sema *S, const char *name, QdType t);
bool sema_local_visible(Sema *S, int local, Span use); /* false (after an error) across tasks */
void sema_emit(Sema *S, IrStmt *st);
IrStmt *sema_stmt_new(Sema *S, IrStmtKind k, Span sp);
const char *sema_path(Sema *S, const Expr *e); /* "qd.types.ndarray" for a dotted name under qd */
bool sema_annotation_type(Sema *S, const Expr *ann, QdType *out);
Val sema_param_value(Sema *S, int k, Span sp); /* kernel parameter k (a scalar one) as a value */
Val sema_scalar_param(Sema *S, const char *name, QdType t, Span sp); /* a new scalar kernel parameter, as a value */
Scope *sema_def_scope(Sema *S, const Stmt *def); /* the scope a kernel's or qd.func's body sees */
void sema_pyfunc_add(Sema *S, const Stmt *def, Scope *scope); /* Sema.pyfuncs and its index */
void sema_def_push(Sema *S, SemaDef d);    /* appends to Sema.defs and indexes it */
void sema_lambda_push(Sema *S, SemaDef d); /* appends to Sema.lambdas and indexes it */
int sema_def_at(const Sema *S, const Stmt *def);    /* the latest Sema.defs entry for def, or -1 */
/* e with the locals that Sema.known_at assigns a constant so far replaced by it, folded (e itself
 * when known_at is NULL or nothing folds; sema_stmt.c) */
IrExpr *sema_known_const(Sema *S, IrExpr *e);
bool sema_host_scope(const Sema *S, const Scope *where); /* the module's scope, or a host function's (a snapshot of one) */
int sema_lambda_at(const Sema *S, const Stmt *def); /* the latest Sema.lambdas entry for def, or -1 */
Scope *sema_pyfunc_scope(Sema *S, const Stmt *def);           /* the latest scope added for def, or NULL */
Binding *sema_lookup(Sema *S, const char *name); /* from the innermost scope outwards */
Val sema_instance_call(Sema *S, const Expr *call, Val cls); /* py/sema_class.c: CLS(args) in an expression */
void sema_host_setattr(Sema *S, const Expr *target, const Expr *value, Span sp); /* py/sema_class.c: obj.NAME = v in host code */
bool sema_unpack_row(Sema *S, const Expr *t, const Expr *v, Span sp); /* py/sema_param.c: a, b = list(CASES)[0] item by item */
QdType sema_numpy_scalar(Sema *S, const Expr *call); /* np.int64(v) in host code: its type, QT_VOID if not one */
const char *sema_numpy_math(Sema *S, const Expr *call); /* np.cos(0) in host code: "math.cos", else NULL */
bool sema_pytest_param(Sema *S, const Expr *call); /* pytest.param(...) in host code: the values it gives the test */
const char *sema_unique_name(Sema *S, const char *base); /* base, or base__defN when given already */
/* where host statements bind: a class instance's attributes, else the host scope */
#define BIND_SCOPE(S) ((S)->bind_to ? (S)->bind_to : (S)->hscope)
const char *sema_field_name(Sema *S, const char *name);    /* a field's symbol name: prefix, __defN */
const char *sema_field_written(Sema *S, const char *name); /* ... and back to the name as written */
bool sema_is_host_expr(Sema *S, const Expr *e);   /* only running the script can evaluate it */
bool sema_module_constant(Sema *S, Val *c);       /* a compile-time value a name can be bound to (narrows literals) */
void sema_host_function_once(Sema *S, const Stmt *def, const Val *params, const Span *decls, const char *combo, bool first);
/* sema_param.c: @pytest.mark.parametrize host functions, getattr, f-strings, str */
void sema_param_host_function(Sema *S, const Stmt *def);
bool sema_helper_call(Sema *S, const Expr *call, const Binding *b); /* a call of a host helper function */
bool sema_script_calls(Sema *S, const Stmt *def); /* the module body calls def by name: a helper, not a pytest test */
bool sema_autograd_class(Sema *S, const Stmt *cls); /* class F(torch.autograd.Function): F.apply runs forward */
const int64_t *sema_np_shape(Sema *S, const Expr *e, int ndim); /* py/sema_npshape.c: np.zeros((2, 3)): its shape, else NULL */
bool sema_np_shape_value(Sema *S, const Expr *v, Val *out); /* a.size, a.ndim, a.shape, len(a) of such an array in host code */
/* py/sema_npvalue.c: numpy arrays whose elements the evaluator computes (V_HOSTARRAY with harr.np) */
bool sema_np_known(Val v);                          /* an array with contents */
void sema_np_forget(Val v);                         /* its contents may change unseen: forget them */
bool sema_np_rooted(Sema *S, const Expr *e);        /* a numpy call, an array with contents, or an operation on one */
bool sema_np_call(Sema *S, const Expr *call, Val *out); /* np.NAME(...) or a method of such an array */
bool sema_np_binary(Sema *S, int op, Val a, Val b, Span sp, Val *out);
bool sema_np_unary(Sema *S, int op, Val a, Span sp, Val *out);
bool sema_np_attr(Sema *S, Val a, const char *name, Span sp, Val *out); /* shape, size, ndim, dtype, T */
bool sema_np_subscript(Sema *S, Val a, const Expr *index, Span sp, Val *out);
void sema_np_store(Sema *S, const Expr *target, const Expr *value); /* host a[i] = x */
bool sema_np_items(Sema *S, Val a, Span sp, Val **items, int *n);
bool sema_np_static(Sema *S, const Expr *e, Val *out); /* e's value when this model computes it (quietly) */
void sema_np_snapshot(Sema *S, Val *v);             /* a copy of v's elements, as a kernel's snapshot of the scope keeps them */
bool sema_helper_alias(Sema *S, const Expr *t, const Expr *v, Span sp); /* t = helper (or F.apply): t names the same function */
void sema_fixture_param(Sema *S, const char *name); /* the module bound NAME: the fixtures that take it are evaluated again */
bool sema_uncalled_helper_kernel(Sema *S, const Stmt **kernel, const Stmt **fn);
bool sema_fstring_known(Sema *S, const Expr *e);  /* every {field} names a compile-time str/int/bool/None */
Val sema_fstring(Sema *S, const Expr *e);
bool sema_str_binary(Sema *S, int op, Val a, Val b, Val *out, Span at);
Val sema_str_call(Sema *S, const Expr *call);
Val sema_getattr(Sema *S, const Expr *call);
void sema_host_if(Sema *S, const Stmt *s);
void sema_host_for(Sema *S, const Stmt *s);      /* a `for` in host code (sema_param.c) */
bool sema_iter_is_host(Sema *S, const Expr *it);  /* an iterable only the running script knows (sema.c) */
void sema_host_while(Sema *S, const Stmt *s);    /* a `while` in host code */
void sema_host_jump(Sema *S, const Stmt *s);     /* break / continue in host code */
void sema_host_augassign(Sema *S, const Stmt *s); /* NAME op= value in host code */
bool sema_host_list_method(Sema *S, const Expr *e); /* NAME.append(v) / NAME.extend(seq) in host code */
void sema_bind_host(Sema *S, const Expr *target, const char *what); /* NAME (or a tuple of them) := run-time value */
void sema_module_value(Sema *S, const Expr *target, const Expr *value, Span sp);
void sema_declare_field(Sema *S, const Expr *target, Span span, const Expr *call, int vec); /* qd.field / vec 1: qd.Vector.field / 2: qd.Matrix.field */ /* NAME = value at module level or in a host function */
Val sema_field_value(Sema *S, const Expr *call, int vec); /* qd.field(...) run by host code as an expression (a lambda, a comprehension) */
void sema_module_body(Sema *S, const StmtList *l); /* module-level statements, in S->hscope */
Scope *sema_library_module(Sema *S, Source *src, int n, const char *const names[], const Val vals[], Span at);

/* module.c: imports of the program's modules, -D, --kernel, nothing hollow */
void sema_modules_begin(Sema *S, const FrontendOptions *fo, const AstModule *ast);
void sema_modules_end(Sema *S);
void sema_import(Sema *S, const Stmt *s);             /* a user import statement (s->import.user) */
Val sema_module_attr(Sema *S, Val o, const Expr *e); /* o.mod's NAME */
Binding *sema_module_member(Sema *S, const Expr *e);  /* mod.NAME in host code, or NULL */
Binding *sema_module_find(Val mod, const char *name); /* NAME in the module mod (a V_MODULE) */
bool sema_is_module_scope(const Sema *S, const Scope *sc);
bool sema_defined(Sema *S, const char *name);          /* a -D value overrides this top-level NAME = ... */
bool sema_kernel_selected(Sema *S, const SemaDef *sd);
void sema_check_kernel_names(Sema *S);
void sema_check_hollow(Sema *S);
bool sema_class_has_kernels(Sema *S, const SemaClass *c); /* sema_class.c */
void sema_check_call(Sema *S, const Expr *call, int d);   /* callcheck.c: Quadrants' checks of a host call's arguments */
void sema_check_zero_copy(Sema *S, const Expr *call); /* callcheck.c: x.to_torch(copy=False) / x.to_numpy(copy=False) */

/* sema_promote.c: kernel-scope locals that more than one task uses live in a kernel-owned 0-d
 * field (Quadrants' global temporaries); the kernel's return value too. */
void sema_find_promoted(Sema *S, const StmtList *body);
bool sema_is_promoted(Sema *S, const char *name);
Val sema_promote(Sema *S, const char *name, QdType t, Span sp); /* binds name to a new field */
Val sema_fresh_ref(Sema *S, Val v, Span use); /* a V_REF binding used at `use` */
void sema_kernel_return(Sema *S, const Stmt *def, const Stmt *ret);
int sema_owned_field(Sema *S, const char *name, QdType t, Span sp); /* a kernel-owned 0-d field */
Val sema_owned_ref(Sema *S, int field, Span sp);                     /* ... as an lvalue */
void sema_random_finish(Sema *S);  /* sema_builtin.c: the kernel's last task counts its launches */

/* sema_expr.c */
void sema_pure_capture(Sema *S, const Expr *name, const Binding *b, const Scope *where);
Val sema_eval(Sema *S, const Expr *e);
IrExpr *sema_rvalue(Sema *S, Val v, Span sp);   /* NULL (after an error) for non-scalars */
IrExpr *sema_expr(Sema *S, const Expr *e);      /* sema_rvalue(sema_eval(e)) */
bool sema_const_int(Sema *S, const Expr *e, int64_t *out, const char *what);
Span sema_shape_span(const Expr *e, int k);
int sema_const_shape(Sema *S, const Expr *e, int64_t *shape, int maxdims, const char *what); /* ndim or -1 */
IrExpr *sema_convert(Sema *S, IrExpr *e, QdType t); /* implicit conversion: warns when a Python int changes */
IrExpr *sema_binary(Sema *S, IrBinOp op, IrExpr *a, IrExpr *b, Span sp); /* casts to a common type */
IrExpr *sema_local(Sema *S, int local, Span sp);
IrExpr *sema_binop_tok(Sema *S, int tok, IrExpr *a, IrExpr *b, Span sp); /* a Python operator */
/* Python ints (an int literal's exact value: IrExpr.literal) */
bool sema_is_int_literal(const IrExpr *e);
IrExpr *sema_int_literal(Sema *S, __int128 v, Span sp); /* typed by its value; QD2050 past 64 bits */
/* py/sema_pyint.c: Python's integer operators (one implementation). sema_py_fold: a OP b for two int
 * literals (tok a Python operator), reporting what Python raises (QD2023, QD2050); false where
 * Python's answer is not an int (true division, a negative power) or tok is no arithmetic.
 * sema_py_literal_tree: the value of a tree of int literals and operators (2**64 - 1), its
 * intermediate values exact up to 2**120; false for anything else or a step with no int answer. */
bool sema_py_fold(Sema *S, int tok, Val a, Val b, Span sp, Val *out);
bool sema_py_literal_tree(const Expr *e, __int128 *out);
/* py/sema_pyint.c: an operator between Python ints (int literals and V_PYINT values, past 64
 * bits) is evaluated exactly (false: not such an operator; a V_PYINT meeting a float
 * constant becomes a float first, as in Python); QD2050 where one is used as a kernel value. */
bool sema_pyint_binary(Sema *S, int tok, Val *a, Val *b, Span sp, Val *out);
bool sema_pyint_unary(Sema *S, int tok, Val a, Span sp, Val *out);
bool sema_pyint_compare(Sema *S, int tok, Val a, Val b, Span sp, Val *out);
Val sema_pyint_value(Sema *S, const struct PyInt *v, Span sp); /* an int literal when it fits 64 bits, else V_PYINT */
void sema_pyint_unfit(Sema *S, Val v, Span sp, const char *what); /* QD2050: v does not fit what */
const char *sema_pyint_text(Sema *S, Val v, Span sp); /* str() of a V_PYINT (NULL: a budget ran out) */
IrExpr *sema_to_bool(Sema *S, IrExpr *e);
bool ir_is_const(const IrExpr *e);
static inline Val val_err(void) { return (Val){.kind = V_ERR}; }
static inline Val val_expr(IrExpr *e) { return e ? (Val){.kind = V_EXPR, .e = e} : val_err(); }
const char *val_describe(Val v);
Val sema_call(Sema *S, const Expr *call, Val callee);
/* A string or list the evaluator just made: charged to the size budget (py/budget.h) by its
 * characters or items; V_ERR (after QD2026) when that exhausts it. Other values pass unchanged. */
Val sema_new_value(Sema *S, Val v, Span at);
/* Enters the body of qd.func def (one level of the depth budget, QD2026 when too deep: false);
 * sema_inline_pop leaves it. */
bool sema_inline_push(Sema *S, const Stmt *def, Span at);
void sema_inline_pop(Sema *S);

/* sema_pystr.c: str methods, chr and ord on compile-time strings (host code) */
bool sema_str_method(const char *name);
Val sema_str_method_call(Sema *S, const Expr *call, const char *s, const char *name);
Val sema_chr_ord(Sema *S, const Expr *call, bool chr);

/* sema_lang.c: compile-time Python forms (unpacking, slices, comprehensions, is/in, lambda) */
Val sema_lang_eval(Sema *S, const Expr *e);         /* E_STARRED E_SLICE E_COMP E_LAMBDA E_VALUE, static E_COMPARE */
const Expr *sema_unpack(Sema *S, const Expr *e);    /* a call or tuple/list with its *a items expanded (NULL: error) */
Val sema_slice_subscript(Sema *S, const Expr *e, bool *handled); /* *handled: the subscript has a slice */
int sema_runtime_slice(Sema *S, const Expr *e, int *pos, int *sa, const Expr **d); /* m[i, :], i at run time */
void sema_runtime_slice_at(const Expr *e, int sa, const Expr *d, int pos, Expr *lit, Expr *pair, Expr **items, Expr *sub);
bool sema_is_static_compare(const Expr *e);         /* uses is / is not / in / not in */
Expr *sema_value_expr(Sema *S, Val v, Span sp);     /* an E_VALUE node denoting v */
Val sema_list_as_vec(Sema *S, Val t, Val other);    /* [1, 2] beside a vector: a vector (else t unchanged) */
bool sema_tuple_binary(Sema *S, int op, Val a, Val b, Val *out, Span sp); /* tuple + tuple, tuple * n */

/* sema_builtin.c: builtins made of existing IR operations, qd.random */
bool sema_is_more_builtin(const char *path);
Val sema_more_builtin_call(Sema *S, const Expr *call, const char *path);
/* sema_glsl.c: qd.math.degrees/radians/fract/step/smoothstep/mod/log2/reflect/refract/eye */
bool sema_is_glsl(const char *path);
Val sema_glsl_call(Sema *S, const Expr *call, const char *path);
void sema_int_enum(Sema *S, const Stmt *cls); /* sema_class.c: class NAME(IntEnum) */
bool sema_iter_items(Sema *S, const Expr *iter, Val **items, int *n); /* sema_lang.c: a compile-time iterable's items */
bool sema_static_seq_for(Sema *S, const Stmt *s); /* sema_lang.c: for x in qd.static(<sequence>); false: not one */
/* Whether two compile-time values are equal (types, namespaces such as qd.cuda, strings, None,
 * constants, tuples of them): 1, 0, or -1 when one is a run-time value (sema_lang.c). */
int sema_same_value(Sema *S, Val a, Val b);
/* dict(), dict([(k, v), ...]), dict(name=v, ...) and {k: v, ...}: a V_DICT whose keys are
 * compile-time values (sema_lang.c); d[key] is its value, QD2011 when absent. */
Val sema_dict_call(Sema *S, const Expr *call);
Val sema_dict_get(Sema *S, Val d, const Expr *key);
/* d.items(), d.keys(), d.values() of a compile-time dict: a tuple, in insertion order (items:
 * (key, value) pairs), which a host loop or a qd.static loop iterates. */
Val sema_dict_method_call(Sema *S, const Expr *call, Val d, const char *name);
/* sema_param.c: a host def whose body is one `return EXPR` (after a docstring) is bound as V_PYFUNC;
 * its calls are compile-time when the arguments and EXPR are; a call evaluates EXPR. */
const Expr *sema_pyfunc_return(const Stmt *def);
bool sema_pyfunc_is_host(Sema *S, const Expr *call, const Stmt *def);
Val sema_pyfunc_call(Sema *S, const Expr *call, const Stmt *def);
const Expr *sema_pyfunc_expand(Sema *S, const Expr *call); /* f() where f returns EXPR: EXPR, its names bound */
Expr *sema_bound_copy(Sema *S, const Expr *e);             /* e with the names in scope replaced by their values */
/* sema_pyfunc.c: ... and a def of several statements that only compute and return a value */
bool sema_pyfunc_body_ok(const Stmt *def);
Val sema_pyfunc_body(Sema *S, const Stmt *def, Scope *sc);
Val sema_pyfunc_result(Sema *S, const Expr *e);   /* `return e` in such a body */
void sema_pyfunc_unknown_return(Sema *S, const StmtList *l, const char *why);
/* qd.lang.impl.current_cfg().NAME (sema_builtin.c): arch (the compile's, as qd.<arch>), default_fp,
 * default_ip, debug. */
Val sema_cfg_attr(Sema *S, const char *name, Span sp);
void sema_init_call(Sema *S, const Expr *e);       /* qd.init(random_seed=, default_fp=, default_ip=) */
/* Python's int and float as types: qd.init's default_ip and default_fp (qd.i32, qd.f32). */
bool sema_py_scalar(const Sema *S, Val v, QdType *out);

/* sema_mem.c: qd.* builtins that touch memory or the block */
bool sema_is_mem_builtin(const char *path);
int sema_mem_builtin_names(const char **out, int max); /* fills out with every path; returns the count */
Val sema_mem_call(Sema *S, const Expr *call, const char *path);
void sema_augassign_global(Sema *S, const Stmt *st, IrRef *ref);
void sema_augassign_vec(Sema *S, const Stmt *st, Val target); /* component-wise (atomic on storage) */

/* sema_simt.c: qd.simt.subgroup.* and qd.simt.warp.* (IR_SUBGROUP and expansions of it) */
bool sema_is_simt_builtin(const char *path);
Val sema_simt_call(Sema *S, const Expr *call, const char *path);
void sema_note_assign(Sema *S, const IrStmt *st); /* records a local's definition (divergence proofs) */
/* 1 if `cond` provably differs between lanes of one subgroup, 2 if only between subgroups of the
 * block (a barrier diverges), 0 if uniform or unknown (then divergence stays undefined, not diagnosed). */
int sema_divergence(Sema *S, const IrExpr *cond);
void sema_check_uniform(Sema *S, Span at, const char *what, bool barrier); /* QD2074 under a divergent `if` */

/* sema_generic.c: generic kernels and --instantiate */
typedef enum { PS_SCALAR, PS_ARRAY, PS_TEMPLATE, PS_TENSOR } SemaParamShape;
typedef enum { GP_ERR, GP_PARAM, GP_BOUND } GenericResult;
SemaParamShape sema_param_shape(Sema *S, const Expr *ann, const Expr **dt, const Expr **nd); /* dt/nd NULL: open */
bool sema_param_is_generic(Sema *S, const Param *ap);
bool sema_annotation_alias(Sema *S, const Expr *v); /* v is an array or template annotation (A = v binds V_ANNOT) */
void sema_parse_instances(Sema *S, const FrontendOptions *o);
int sema_next_instance(Sema *S, const char *kernel, int from); /* index, or -1 */
GenericResult sema_generic_param(Sema *S, const Param *ap, IrParam *p, Val *bound, StrBuf *entry);
void sema_check_instance_args(Sema *S, const Stmt *def);
const char *sema_instance_entry(Sema *S, int inst); /* ENTRY= or NULL */
void sema_mark_instance_used(Sema *S, int inst);
void sema_missing_instance(Sema *S, const Stmt *def, const char *entry);
void sema_finish_instances(Sema *S);
void sema_free_instances(Sema *S);
void sema_call_site(Sema *S, const Expr *call, int def); /* a host call of a generic kernel */
bool sema_host_array(Sema *S, const Expr *e, Val *out); /* qd.ndarray(...) / np.zeros(..., dtype=...) in host code */
QdType sema_numpy_dtype(Sema *S, const Expr *e);         /* np.float32, a dtype variable, ...; QT_VOID if not one */
bool sema_host_dtype(Sema *S, const Expr *e, Val *out); /* np.float32, torch.bool: the qd type (V_TYPE) */
void sema_host_assert(Sema *S, const Stmt *s);            /* a host assert or raise the evaluator runs (sema_lang.c) */
int sema_host_cond(Sema *S, const Expr *e);               /* a host if's condition: 1, 0, or -1 unknown (sema_param.c) */
void sema_class(Sema *S, const Stmt *cls);               /* @qd.data_oriented (sema_class.c) */
bool sema_new_object(Sema *S, const Expr *target, const Expr *call, Span sp); /* NAME = Class(...) */
Val sema_object_value(Sema *S, const char *name, const Expr *call); /* Class(...) as a dataclass member's value */
Val sema_object_attr(Sema *S, Val obj, const Expr *attr);  /* obj.name in a kernel or host code */
Val sema_class_method(Sema *S, const StmtList *body, Scope *defined, Val obj, const Expr *attr, bool *found); /* obj.method of a class body */
bool sema_method_object(Sema *S, const Stmt *def, Val *obj); /* def: a method of an instance */
void sema_finish_classes(Sema *S);
void sema_bad_call_site(Sema *S, const CallInst *ci);
GenericResult sema_callsite_param(Sema *S, const Param *ap, IrParam *p, Val *bound, StrBuf *entry);

/* sema_tensor.c: qd.tensor / qd.Vector.tensor / qd.Matrix.tensor, array arguments of generic
 * kernels (their element type and layout), ndarrays stored in a permuted layout */
bool sema_tensor_new(Sema *S, const Expr *target, const Expr *call, Scope *bind, Span sp); /* NAME = qd.tensor(...): false if not one */
int sema_shape_ndim(Sema *S, const Expr *shape);                              /* axes of a shape argument, -1 unknown */
bool sema_qd_ndarray(Sema *S, const Expr *call, const char *path, Val *out); /* qd.ndarray / qd.Vector.ndarray / qd.Matrix.ndarray */
bool sema_with_layout(Sema *S, const Expr *call, Val *out); /* quadrants._tensor._with_layout(a, layout): false if not one */
Val sema_host_return(Sema *S, const Expr *e);               /* `return e` in a host function: an array or field, else V_ERR */
bool sema_tensor_alias(Sema *S, const Expr *e, Val *out);   /* qd.wrap(a) / a._unwrap(): a's array or field */
bool sema_permutations(Sema *S, const Expr *e, Val *out);   /* [list(]itertools.permutations(...)[)] (sema_param.c) */
void sema_hostarray_spell(StrBuf *b, Val v);                                  /* f32_2d, vec3_f32_1d, f32_2d_l10 */
void sema_hostarray_param(Val v, IrParam *p);                                 /* an ndarray parameter taking v */
int sema_ndarray_axis(const IrParam *p, int axis);                            /* the storage axis of canonical axis */
IrExpr *sema_ndarray_shape(Sema *S, int param, int axis, Span sp);            /* i32 extent of canonical axis */
void sema_ndarray_permute(const IrParam *p, IrExpr **idx);                    /* canonical indices -> storage order */

/* sema_snode.c: qd.root.dense(...).place(...) */
Val sema_snode_call(Sema *S, const Expr *call, Val callee); /* callee: V_SNODE method or qd.root.* */
Val sema_snode_attr(Sema *S, Val obj, const char *name); /* also a field's .snode / .parent */
Val sema_snode_builder(Sema *S, const Expr *call); /* qd.FieldsBuilder() */
void sema_snode_finish(Sema *S);
Val sema_snode_dynamic_stride(Sema *S, const Val *comps, int n, Span sp); /* v._get_dynamic_index_stride(): bytes, or None */
/* sema_hints.c: qd.block_local, qd.cache_read_only, qd.loop_unique */
bool sema_is_hint(const char *p);
Val sema_hint_call(Sema *S, const Expr *call, Val f);
/* sema_quant.c: qd.types.quant.*, qd.BitpackedFields */
bool sema_quant_path(const char *p);
Val sema_quant_call(Sema *S, const Expr *call, Val f);
bool sema_quant_field(Sema *S, const Expr *target, Span span, const Expr *call); /* x = qd.field(quant type) */
bool sema_quant_vec_field(Sema *S, const Expr *target, Span span, const Expr *dt, int n, int m); /* qd.Matrix.field(n, m, dtype=quant type) */
int sema_quant_pack_word(Sema *S, Val v, Span at); /* place(bitpack): its word field; -1 reported; -2 not a pack */
void sema_quant_mirror(Sema *S);
void sema_quant_subscript(Sema *S, int field, IrRef *r);
bool sema_quant_is_ref(Sema *S, const IrRef *r);
/* sema_fieldops.c: qd.get_addr(field, indices), qd.stop_grad(field) */
bool sema_is_fieldop(const char *p);
Val sema_fieldop_call(Sema *S, const Expr *call, Val f);
void sema_stop_grad_freeze(Sema *S, const IrStmtVec *v, IrBlock *b); /* marks b's loads of the fields stopped in v */
void sema_stop_grad_move(Sema *S, const IrStmtVec *from, const IrStmtVec *to); /* from's statements were moved to the end of to */
IrExpr *sema_quant_load(Sema *S, IrRef *r, Span sp); /* NULL: not a member's reference */
bool sema_quant_store(Sema *S, IrRef *r, IrExpr *v, Span sp);
bool sema_quant_augassign(Sema *S, const Stmt *st, IrRef *r);
void sema_quant_finish(Sema *S);
Val sema_quant_atomic(Sema *S, const Expr *call, IrRef *r, QdOp op, const char *opname); /* qd.atomic_<op> on a member */
Val sema_quant_array(Sema *S, int node, int naxes, const int *axis, const int64_t *size, int64_t max_bits, Span span);
void sema_snode_place_field(Sema *S, int node, int field); /* sema_snode.c: a field as a child of node */
/* Autodiff (sema_ad.c): needs_grad=/needs_dual= of a field declaration that made fields first..
 * (marks them), the adjoint fields made once shapes are known, and x.grad / x.dual. */
void sema_ad_mark(Sema *S, const Expr *call, int first);
void sema_ad_finish(Sema *S, bool laid_out); /* before and after sema_snode_finish */
bool sema_ad_no_grad(Sema *S, const Stmt *def); /* @qd.ad.no_grad on a kernel */
bool sema_ad_grad_wanted(Sema *S, const Stmt *def, IrKernel *k); /* the script calls K.grad() or runs K in a qd.ad.Tape (k: where) */
void sema_ad_grad_for(Sema *S, const Stmt *def);  /* @qd.ad.grad_for(P) on a host function: Quadrants' checks of P */
void sema_ad_tape(Sema *S, const Stmt *with);     /* `with qd.ad.Tape(loss=X):` entered: Quadrants' checks of X */
bool sema_ad_fwd_wanted(Sema *S, const Stmt *def);  /* the script runs K in a qd.ad.FwdMode */
void sema_ad_lazy(Sema *S, bool dual); /* qd.root.lazy_grad() / lazy_dual(): every floating-point field gets its adjoint / dual field */
Val sema_ad_attr(Sema *S, Val o, const Expr *e);
void sema_ad_param(Sema *S, const Expr *annotation, IrParam *p, const Stmt *def, int k); /* qd.types.ndarray(needs_grad=...), the calls' arrays */
void sema_snode_free(Sema *S); /* the SNode tree's memory (the layout is in the fields by then) */
IrExpr *sema_snode_flat(Sema *S, const IrField *f, IrExpr **idx, Span sp);

/* sema_vec.c: vectors and matrices, scalarized: a V_VEC is its components, so the IR, the
 * lowering and every backend see scalars only (atomics fan out per component). */
bool sema_offset_given(Sema *S, const Expr *offset); /* offset= given, not None */
static inline int vec_len(Val v) { return v.vec.m ? v.vec.n * v.vec.m : v.vec.n; }
/* The most components of one vector or matrix type: Quadrants has no limit (it warns past 144);
 * qdc makes each component a scalar, so it stops at 4096 (a 64 x 64 matrix, a 4 KiB-word vector). */
enum { QD_VEC_MAX = 4096 };
Val vec_make(Sema *S, int n, int m);                      /* components uninitialized */
Val sema_vec_attr(Sema *S, Val o, const char *name, Span sp);
Val sema_vec_call(Sema *S, const Expr *call, Val f);      /* V_METHOD, V_VECTYPE or a qd.* path; */
bool sema_vec_path(const char *path);                     /* ... the paths it takes */
bool sema_vec_alias(const Sema *S, const char *path, Val *type); /* qd.math.vec3 ... mat4 (qd.init's default_fp/ip) */
Val sema_vec_subscript(Sema *S, Val o, const Expr *ix, Span sp);
Val sema_vec_binary(Sema *S, int tok, Val a, Val b, Span sp); /* either side a V_VEC */
Val sema_vec_unary(Sema *S, const Expr *e, Val a);
bool sema_vec_elementwise(Sema *S, const Expr *call, Val f, Val *out); /* a scalar builtin over vectors */
bool sema_vec_type_of(Sema *S, const Expr *ann, QdType *dt, int *n, int *m); /* a V_VECTYPE annotation */
Val sema_vec_ref(Sema *S, IrRef *r, int n, int m);
bool sema_vec_field_elem(Sema *S, IrField *f, int n, int m, Span sp); /* component axes last */
Val sema_vec_type_call(Sema *S, const Expr *call, bool matrix);  /* qd.types.vector/matrix(...) */        /* the components of a vector element */
Val sema_vec_materialize(Sema *S, Val v, const char *name, Span sp); /* into new locals */
void sema_vec_assign(Sema *S, Val target, Val v, Span sp); /* component-wise store/assign */
bool sema_vec_dynamic_store(Sema *S, const Expr *target, Val v, const Stmt *aug, Span sp); /* v[i] = x, run-time i; aug: v[i] op= x on a promoted vector (atomic) */
const Expr *sema_val_node(Sema *S, Val v, int slot, Span sp); /* an E_NAME bound to v */
extern const Expr *sema_discarded; /* the expression statement being checked (result unused) */

/* sema_linalg.c: qd.sym_eig, qd.svd, qd.polar_decompose, qd.solve, qd.eig (straight-line scalar IR) */
bool sema_linalg_path(const char *path);
Val sema_linalg_call(Sema *S, const Expr *call, const char *path);

/* sema_struct.c: structs, scalarized like vectors: a struct value is its members; a struct
 * field is one field per scalar component, placed together (AOS, as Quadrants). */
bool sema_struct_path(const char *path);
void sema_struct_dataclass(Sema *S, const Stmt *cls); /* @qd.dataclass class P: members and methods */
Val sema_struct_method_call(Sema *S, const Expr *call, Val self, const Stmt *def);
Val sema_struct_call(Sema *S, const Expr *call, Val f); /* qd.types.struct, qd.Struct, a type call */
bool sema_struct_field(Sema *S, const Expr *target, Span span, const Expr *call, const char *path); /* module level */
bool sema_struct_type_of(Sema *S, const Expr *ann, const QdStruct **st);
Val sema_struct_attr(Sema *S, Val o, const char *name, Span sp);
Val sema_struct_subscript(Sema *S, Val o, const Expr *e);
Val sema_struct_materialize(Sema *S, Val v, const char *name, Span sp);
void sema_struct_assign(Sema *S, Val target, Val v, Span sp);
int sema_struct_first_field(Val v); /* the field index of a struct field's first component */
int sema_struct_leaf_fields(Val v, int *out, int max);
bool sema_struct_param(Sema *S, const Param *ap); /* a kernel parameter of a struct type: false if it is not one */
Val sema_struct_params(Sema *S, const QdStruct *st, const char *name, Span sp); /* one scalar parameter per component, NAME_member[_k] */ /* the component fields of a struct field, in order */
void sema_snode_place_together(Sema *S, const int *fields, int n, const int64_t *shape, int ndim, Span sp);
void sema_snode_place_ordered(Sema *S, const int *fields, int n, const int64_t *shape, const int *axes, int ndim, Span sp); /* order= */
int sema_snode_num_ch(Sema *S, int k, int *node); /* the children of the node field k is placed under (Quadrants' get_num_ch), -1: none */

/* sema_pydc.c: @dataclasses.dataclass containers, flattened into kernel parameters */
void sema_pydc_class(Sema *S, const Stmt *cls);
/* py/sema_pylib.c: dataclasses.dataclass, functools.partial of it, classes decorated by an alias */
bool sema_pylib_import(Sema *S, const Stmt *s, const char *module);
bool sema_pylib_attr(Sema *S, Val o, const Expr *e, Val *out);
bool sema_pylib_call(Sema *S, const Expr *call, Val f, Val *out);
/* sema_tile.c: qd.simt.Tile16x16 / Tile32x32, _make_tile, calls of functools.partial values */
bool sema_is_tile_call(Val f);
Val sema_tile_call(Sema *S, const Expr *call, Val f);
/* sema_algo.c: qd.algorithms' composable qd.funcs and sizing helpers, from qdc's own source. */
bool sema_is_algo_call(Val f);
bool sema_is_to_numpy_type(Val f);                        /* sema_generic.c: quadrants.lang.util.to_numpy_type */
Val sema_to_numpy_type_call(Sema *S, const Expr *call, Val f);
Val sema_algo_call(Sema *S, const Expr *call, Val f);
bool sema_tile_attr(Sema *S, Val o, const Expr *e, Val *out);
bool sema_tile_slice(Sema *S, Val arr, const Expr *e, Val *out); /* arr[r0:r1, c0:c1] ...: a proxy, once a tile type exists */
bool sema_tile_stmt(Sema *S, const Stmt *s);                     /* t[:] = ..., arr[...] = t, t -= qd.outer(a, b) */
void sema_alias_class(Sema *S, const Stmt *cls);
const PyDc *sema_pydc_of(Sema *S, const Expr *ann); /* the dataclass an annotation names, or NULL */
bool sema_pydc_is_generic(Sema *S, const PyDc *dc);
Val sema_namespace(Sema *S, const char *cls, const char *const *names, const Val *vals, int n); /* SimpleNamespace(names=vals) */
bool sema_pydc_new(Sema *S, const Expr *target, const Expr *call, Scope *to, Span sp); /* NAME = State(...) in host code */
bool sema_pydc_call_value(Sema *S, const Expr *a, Val *v, StrBuf *spell); /* a host call's argument (*v V_ERR: unknown) */
bool sema_pydc_param(Sema *S, const Param *ap, Val host); /* a kernel parameter annotated with a dataclass */
/* sema_bview.c: BufferView (a 1-D ndarray's sub-range) */
bool sema_bview_annotation(Sema *S, const Expr *ann, const Expr **dt); /* BufferView[dt] or BufferView (*dt NULL) */
bool sema_bview_param(Sema *S, const Param *ap, Val host, StrBuf *entry); /* a kernel parameter annotated BufferView: false if not one */
Val sema_bview_attr(Sema *S, Val o, const char *name, Span sp);
Val sema_bview_subscript(Sema *S, Val o, const Expr *e); /* v[i], v[a:b] */
bool sema_bview_host(Sema *S, const Expr *a, Val *v); /* host code: a view of a 1-D array (*v: the array) */
bool sema_bview_takes(Val f);                            /* BufferView(...), v.subview(...) */
Val sema_bview_call(Sema *S, const Expr *call, Val f);
Val sema_pydc_attr(Sema *S, Val o, const Expr *attr);
Val sema_pydc_flatten(Sema *S, Val host, const char *prefix, Span sp); /* a host instance's members as parameters PREFIX__NAME */
bool sema_ndarray_annotation(Sema *S, const Expr *ann, IrParam *p); /* sema.c */

/* sema_graph.c: @qd.kernel(graph=True) and `while qd.graph.do_while(c):` loops of tasks */
bool sema_is_do_while(Sema *S, const Stmt *s);          /* `while qd.graph.do_while(...)` (or qd.graph_do_while) */
bool sema_kernel_graph(Sema *S, const Stmt *def);       /* decorated @qd.kernel(graph=True) */
void sema_graph_validate(Sema *S, const StmtList *body); /* Quadrants' statement rules for a kernel using it */
void sema_do_while(Sema *S, const Stmt *s, IrStmtVec *serial); /* one at the top level: its tasks repeat */
void sema_do_while_misplaced(Sema *S, const Stmt *s);  /* one met inside run-time code */
void sema_with(Sema *S, const Stmt *s, IrStmtVec *serial); /* a kernel's `with CALL:` (serial: at the top level, else NULL) */
bool sema_builder_param(Sema *S, const Expr *ann, IrParam *p); /* sema_builder.c: K: qd.types.sparse_matrix_builder() */
bool sema_builder_new(Sema *S, const Expr *call, Val *out);     /* qd.linalg.SparseMatrixBuilder(...) in host code */
bool sema_builder_augassign(Sema *S, const Stmt *s);
bool sema_is_internal_call(const char *path);             /* qd.lang.impl.call_internal */
Val sema_internal_call(Sema *S, const Expr *call);           /* K[i, j] += v: appends a triplet */
void sema_checkpoint_resume(Sema *S, const Expr *call, const Stmt *def); /* K.resume(..., from_checkpoint=L) in host code */
bool sema_kernel_checkpoints(Sema *S, const Stmt *def); /* decorated @qd.kernel(checkpoints=True) */
void sema_checkpoint_for(Sema *S, const Stmt *s, IrStmtVec *serial); /* a for loop as an implicit checkpoint */
void sema_close_task(Sema *S, IrStmtVec *body);        /* sema.c: ends the open task */
void sema_open_serial(Sema *S, Span sp, IrStmtVec *serial); /* sema.c: a serial task, unless one is open */

/* sema_stmt.c */
void sema_block(Sema *S, const StmtList *l);
bool sema_static_iteration(Sema *S, const StmtList *body);            /* false when a break ends the unrolling */
bool sema_is_real_func(Sema *S, const Stmt *def);                       /* decorated @qd.real_func */
void sema_split_tasks(Sema *S, const StmtList *l, IrStmtVec *serial);   /* sema.c: top-level statements into tasks */
Val sema_print_call(Sema *S, const Expr *call);                         /* sema_format.c: print(...) */
const char *sema_assert_message(Sema *S, const Expr *msg);              /* sema_format.c: an assert's message text (NULL: reported) */
void sema_stmt(Sema *S, const Stmt *s);
Val sema_named_expr(Sema *S, const Expr *e); /* NAME := value */
/* s as the loop it stands for: for x in A if qd.static(c) else B -> the loop over A or B;
 * F.fill(v) -> for I in qd.grouped(F): F[I] = v; any other statement: s */
const Stmt *sema_loop_form(Sema *S, const Stmt *s);
void sema_assign(Sema *S, const Expr *target, Val v, Span sp);
Val sema_inline_call(Sema *S, const Expr *call, const Stmt *def);
Scope *sema_bind_args(Sema *S, const Expr *call, const Stmt *def);
Val sema_func_result(Sema *S, const Stmt *def, const Stmt *ret, const Expr *call); /* `return VALUE` of an inlined qd.func */
/* The call of a kernel-level statement `f(...)` or `v = f(...)` whose qd.func f has top-level
 * loops (they become the kernel's tasks: sema.c inline_toplevel), else NULL. */
const Expr *sema_toplevel_func_call(Sema *S, const Stmt *s);
/* Quadrants' block scopes in kernels and qd.funcs (sema_stmt.c): a mark of the function scope's
 * bindings (-1: none, host code), the names made since hidden again; a loop variable's binding */
int sema_block_begin(Sema *S);
void sema_block_end(Sema *S, int mark);
void sema_bind_loop_name(Sema *S, const Expr *name, Val v); /* NULL after an error */
IrBlock sema_freeze(Sema *S, IrStmtVec *v);
/* The iteration space of range(a, b, s) (one dimension) or qd.ndrange(...) (one per argument);
 * qd.static(...) around either sets is_static (and then every bound is a constant). */
typedef struct LoopSpace {
    int ndims;
    IrExpr *begin[IR_MAX_DIMS], *end[IR_MAX_DIMS];
    int64_t step[IR_MAX_DIMS];
    bool is_static;
    bool grouped; /* qd.grouped(...): one loop variable, a vector of the indices */
    bool ordered; /* qd.ndrange(..., axes=): order[L] is the dimension at nesting level L, outermost first */
    unsigned char order[IR_MAX_DIMS];
    bool zero_d;  /* a 0-d space (qd.grouped(qd.ndrange()), a 0-d field): one point, whose index
                     vector is empty; kept as one dimension of extent 1 */
    const IrField *sparse; /* a struct-for over a sparse field or SNode: the body runs where
                              ir_sparse_active holds for the loop indices (frontend/sema_sparse.c) */
} LoopSpace;
#define LOOP_DIM(ls, level) ((ls)->ordered ? (int)(ls)->order[level] : (level))
bool sema_loop_space(Sema *S, const Expr *iter, LoopSpace *out);
/* sema_sparse.c: `for I in node` (an SNode's cells, the active ones); the condition the body
 * of a loop over ls runs under (NULL: always), idx its indices from begin */
bool sema_sparse_loop_space(Sema *S, Val v, LoopSpace *ls, Span sp);
IrExpr *sema_sparse_loop_cond(Sema *S, const LoopSpace *ls, IrExpr *const *vars, Span sp);
IrExpr *sema_trip_count(Sema *S, const LoopSpace *ls, int d, Span sp); /* i32, >= 0 */

/* One feature's calls: which callees it takes (a qd.* or Python builtin's path, a kind of value
 * such as a struct type or a method) and how a call of one is checked. sema_call asks the
 * features in check.c's order; the first that takes the callee checks the call. */
typedef struct SemaFeature {
    const char *file; /* where the feature lives, for readers and the table's order */
    bool (*takes)(Val f);
    Val (*call)(Sema *S, const Expr *call, Val f);
} SemaFeature;
/* The checker's core (sema.c, sema_expr.c, sema_stmt.c, module.c, callcheck.c) calls the files
 * above it only through this table, filled by check.c: the features' calls, and one pointer
 * per row of hooks.def for everything else the core asks a feature. */
typedef struct SemaHooks {
    const SemaFeature *calls;
    int ncalls;
#define H(name) __typeof__(name) *name;
#include "hooks.def"
#undef H
} SemaHooks;
/* What py/ calls in the core (py/core.def): one pointer per row, filled by sema.c. */
typedef struct SemaCore {
#define C(name) __typeof__(name) *name;
#include "py/core.def"
#undef C
} SemaCore;
/* Checks a module with the features of up (sema.c; frontend_check_with in check.c calls it). */
IrModule *sema_check(const AstModule *ast, Arena *arena, const FrontendOptions *fo, const SemaHooks *up);
#include "py/value.h" /* the evaluator's host scalars: the accessors every reader uses */
#endif
