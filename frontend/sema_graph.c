/* Graph kernels: @qd.kernel(graph=True) and `while qd.graph.do_while(c):` (qdc-lang(7), "Graph
 * kernels"). The loop emits no loop code: its body's statements become tasks like the kernel's
 * top level (a for is a parallel task, runs of other statements a serial task), and the kernel
 * records the range of tasks with its condition (IrLoop): the host runs the range, reads element
 * 0 of the condition ndarray, and runs the range again while it is non-zero (qdc-abi(7), "Do-while
 * loops"). The rules are Quadrants': graph=True is required, the loop sits at the kernel's top
 * level or directly in another such loop (never in a for), the condition names an ndarray
 * parameter (a bare one, a @qd.data_oriented member or a dataclass member), and a kernel that
 * uses it has only for loops, such loops, assignments, expression statements and ifs at those
 * levels (FunctionDefTransformer._validate_graph_do_while_structure). */
#include "sema.h"
#include <stdlib.h>
#include <string.h>

bool sema_is_do_while(Sema *S, const Stmt *s) {
    if (s->kind != S_WHILE || s->while_.cond->kind != E_CALL) return false;
    const char *p = sema_path(S, s->while_.cond->call.fn);
    return p && (!strcmp(p, "qd.graph.do_while") || !strcmp(p, "qd.graph_do_while"));
}

static bool kernel_keyword(Sema *S, const Stmt *def, const char *name, const char *old);

bool sema_kernel_graph(Sema *S, const Stmt *def) { return kernel_keyword(S, def, "graph", "gpu_graph"); /* its old name */ }

bool sema_kernel_checkpoints(Sema *S, const Stmt *def) { return kernel_keyword(S, def, "checkpoints", "checkpoints"); }

/* @qd.kernel(name=True) (or old=True): the decorator was checked (and reported) already. */
static bool kernel_keyword(Sema *S, const Stmt *def, const char *name, const char *old) {
    for (int k = 0; k < def->def.decorators.n; k++) {
        const Expr *d = def->def.decorators.items[k];
        if (d->kind != E_CALL) continue;
        const char *p = sema_path(S, d->call.fn);
        if (!p || strcmp(p, "qd.kernel")) continue;
        for (int j = 0; j < d->call.nkw; j++) {
            if (strcmp(d->call.kw[j].name, name) && strcmp(d->call.kw[j].name, old)) continue;
            IrStmtVec *cur = S->cur;
            S->cur = NULL;
            int mark = diag_quiet_begin(); /* the decorator was checked (and reported) already */
            Val v = sema_eval(S, d->call.kw[j].value);
            diag_quiet_end(mark);
            S->cur = cur;
            return val_is_host_integral(v) && val_host_u64(v) != 0;
        }
    }
    return false;
}

/* ---- Quadrants' statement rules ---- */

static bool uses_do_while(Sema *S, const StmtList *l) {
    for (int k = 0; k < l->n; k++) {
        const Stmt *s = l->stmts[k];
        if (sema_is_do_while(S, s)) return true;
        switch (s->kind) {
        case S_IF: if (uses_do_while(S, &s->if_.then) || uses_do_while(S, &s->if_.els)) return true; break;
        case S_WHILE: if (uses_do_while(S, &s->while_.body)) return true; break;
        case S_FOR: if (uses_do_while(S, &s->for_.body)) return true; break;
        default: break;
        }
    }
    return false;
}

/* The name Python's ast module gives the statement (Quadrants' message names it). */
static const char *py_stmt_name(const Stmt *s) {
    switch (s->kind) {
    case S_EXPR: return "Expr";
    case S_ASSIGN: return "Assign";
    case S_ANNASSIGN: return "AnnAssign";
    case S_AUGASSIGN: return "AugAssign";
    case S_IF: return s->if_.with ? "With" : "If";
    case S_FOR: return "For";
    case S_WHILE: return "While";
    case S_BREAK: return "Break";
    case S_CONTINUE: return "Continue";
    case S_PASS: return "Pass";
    case S_RETURN: return "Return";
    case S_DEF: return "FunctionDef";
    case S_IMPORT: return "Import";
    case S_ASSERT: return "Assert";
    case S_CLASS: return "ClassDef";
    default: return "statement";
    }
}

static bool validate_list(Sema *S, const StmtList *l, bool top) {
    for (int k = 0; k < l->n; k++) {
        const Stmt *s = l->stmts[k];
        switch (s->kind) {
        case S_EXPR: case S_ASSIGN: case S_ANNASSIGN: case S_AUGASSIGN: case S_FOR: continue;
        case S_IF:
            if (!validate_list(S, &s->if_.then, top) || !validate_list(S, &s->if_.els, top)) return false;
            continue;
        case S_WHILE:
            if (!sema_is_do_while(S, s)) break;
            if (!validate_list(S, &s->while_.body, false)) return false;
            continue;
        default: break;
        }
        const char *what = py_stmt_name(s);
        diag_error(s->span, QD2086, "When a kernel uses qd.graph.do_while(), %s may not contain a %s statement. Allowed: "
                   "for-loops, qd.graph.do_while() while-loops, bare assignments, and @qd.func calls (freely mixed and "
                   "nested). [offending stmt %d: %s]", top ? "the kernel body" : "a qd.graph.do_while() body",
                   what, k, what);
        return false;
    }
    return true;
}

/* ---- `with` blocks (qdc-lang(7), "With blocks"): Quadrants' ASTTransformer.build_With ---- */

static void checkpoint_with(Sema *S, const Stmt *s, IrStmtVec *serial);

typedef enum { W_OTHER, W_STREAM, W_REGION, W_SECTION, W_CHECKPOINT } WithKind;

static WithKind with_kind(Sema *S, const Expr *e) {
    const char *p = e && e->kind == E_CALL ? sema_path(S, e->call.fn) : NULL;
    if (!p) return W_OTHER;
    if (!strcmp(p, "qd.stream_parallel")) return W_STREAM;
    if (!strcmp(p, "qd.graph.parallel_context") || !strcmp(p, "qd.graph_parallel_context")) return W_REGION;
    if (!strcmp(p, "qd.graph.parallel") || !strcmp(p, "qd.graph_parallel")) return W_SECTION;
    if (!strcmp(p, "qd.checkpoint")) return W_CHECKPOINT;
    return W_OTHER;
}

static WithKind stmt_with(Sema *S, const Stmt *s) {
    return s->kind == S_IF && s->if_.with && s->if_.with_items == 1 && !s->if_.with_as ? with_kind(S, s->if_.with) : W_OTHER;
}

static bool is_docstring(const Stmt *s, int k) { return !k && s->kind == S_EXPR && s->expr->kind == E_STR; }

static bool static_call(Sema *S, const Expr *e) {
    const char *p = e->kind == E_CALL ? sema_path(S, e->call.fn) : NULL;
    return p && !strcmp(p, "qd.static");
}

/* A section's body: task work only, no graph construct at any depth. */
static bool validate_section(Sema *S, const StmtList *l) {
    for (int k = 0; k < l->n; k++) {
        const Stmt *s = l->stmts[k];
        const char *msg = NULL;
        if (sema_is_do_while(S, s))
            msg = "qd.graph.do_while() cannot appear inside a qd.graph.parallel() section; a section body must be "
                  "straight-line task work (put the qd.graph.parallel_context() region inside the qd.graph.do_while() "
                  "loop, not the other way around)";
        else if (s->kind == S_IF && s->if_.with) {
            WithKind w = with_kind(S, s->if_.with);
            msg = w == W_CHECKPOINT ? "qd.checkpoint() cannot appear inside a qd.graph.parallel() section; a section body "
                                      "must be straight-line task work"
                  : w == W_REGION   ? "qd.graph.parallel_context() cannot appear inside a qd.graph.parallel() section"
                  : w == W_SECTION  ? "qd.graph.parallel() sections cannot be nested inside one another"
                                    : NULL;
        }
        if (msg) return diag_error(s->kind == S_WHILE ? s->while_.cond->span : s->if_.with->span, QD2086, "%s", msg), false;
        bool ok = true;
        switch (s->kind) {
        case S_IF: ok = validate_section(S, &s->if_.then) && validate_section(S, &s->if_.els); break;
        case S_WHILE: ok = validate_section(S, &s->while_.body); break;
        case S_FOR: ok = validate_section(S, &s->for_.body); break;
        default: break;
        }
        if (!ok) return false;
    }
    return true;
}

/* A region's body: sections, optionally under `if qd.static(...)` or in `for ... in qd.static(...)`. */
static bool validate_region(Sema *S, const StmtList *l) {
    for (int k = 0; k < l->n; k++) {
        const Stmt *s = l->stmts[k];
        if (is_docstring(s, k) || s->kind == S_PASS) continue;
        if (stmt_with(S, s) == W_SECTION) {
            if (!validate_section(S, &s->if_.then)) return false;
            continue;
        }
        if (s->kind == S_IF && !s->if_.with && static_call(S, s->if_.cond)) {
            if (!validate_region(S, &s->if_.then) || !validate_region(S, &s->if_.els)) return false;
            continue;
        }
        if (s->kind == S_FOR && static_call(S, s->for_.iter)) {
            if (!validate_region(S, &s->for_.body)) return false;
            continue;
        }
        diag_error(s->span, QD2086, "A qd.graph.parallel_context() region may contain only 'with qd.graph.parallel():' blocks "
                                    "(optionally inside 'if qd.static(...)' or 'for ... in qd.static(...)'). Move other work "
                                    "outside the region. [offending stmt %d: %s]", k, py_stmt_name(s));
        return false;
    }
    return true;
}

/* The body runs once where the block stands: on every backend the sections of a region and the
 * stream_parallel blocks run one after the other (Quadrants runs them concurrently only on CUDA;
 * they are independent by the rules of both, so the results are the same). At the top level the
 * body's loops are the kernel's parallel loops. */
void sema_with(Sema *S, const Stmt *s, IrStmtVec *serial) {
    const Expr *e = s->if_.with;
    if (s->if_.with_items != 1)
        return (void)diag_error(s->span, QD2170, "'with' in Quadrants kernels only supports a single context manager");
    if (s->if_.with_as) return (void)diag_error(s->span, QD2170, "'with ... as ...' is not supported in Quadrants kernels");
    if (e->kind != E_CALL) return (void)diag_error(e->span, QD2170, "'with' in Quadrants kernels requires a call expression");
    WithKind w = with_kind(S, e);
    const char *name = w == W_REGION ? "qd.graph.parallel_context()" : w == W_SECTION ? "qd.graph.parallel()" : "qd.stream_parallel()";
    int ctx = 0;
    switch (w) {
    case W_OTHER:
        return (void)diag_error(e->span, QD2170, "'with' in Quadrants kernels only supports qd.stream_parallel(), qd.checkpoint(), "
                                                  "qd.graph.parallel_context(), or qd.graph.parallel()");
    case W_CHECKPOINT:
        checkpoint_with(S, s, serial);
        return;
    case W_REGION:
    case W_SECTION:
        if (e->call.args.n || e->call.nkw) return (void)diag_error(e->span, QD2086, "%s takes no arguments", name);
        if (w == W_SECTION) {
            if (S->with_ctx != 1 || S->ninline)
                return (void)diag_error(e->span, QD2086, "qd.graph.parallel() can only be used directly inside a "
                                                          "qd.graph.parallel_context() region");
            ctx = 2;
            break;
        }
        if (S->ninline) return (void)diag_error(e->span, QD2086, "%s can only be used inside @qd.kernel, not @qd.func", name);
        if (!S->graph) return (void)diag_error(e->span, QD2086, "%s requires @qd.kernel(graph=True)", name);
        if (S->checkpoints)
            return (void)diag_error(e->span, QD2086, "qd.graph.parallel_context() is not supported in a @qd.kernel(graph=True, "
                                    "checkpoints=True) kernel: a fork/join region does not participate in the checkpoint/resume "
                                    "model (its sections would run unconditionally on every launch, ignoring yield/resume). Use "
                                    "qd.graph.parallel_context() only in a non-checkpoints kernel, or express the work as "
                                    "ordinary qd.checkpoint() stages.");
        if (S->with_ctx == 1) return (void)diag_error(e->span, QD2086, "%s regions cannot be nested", name);
        if (S->with_ctx == 2) return (void)diag_error(e->span, QD2086, "%s cannot appear inside a qd.graph.parallel() body", name);
        if (!validate_region(S, &s->if_.then)) return;
        ctx = 1;
        break;
    case W_STREAM:
        if (S->ninline) return (void)diag_error(e->span, QD2170, "%s can only be used inside @qd.kernel, not @qd.func", name);
        if (S->graph)
            return (void)diag_error(e->span, QD2170, "qd.stream_parallel() is not compatible with graph=True kernels. Streams and "
                                                      "graphs cannot be combined; remove graph=True or the qd.stream_parallel() block.");
        if (S->with_ctx == 3) return (void)diag_error(e->span, QD2170, "Nested stream_parallel blocks are not supported");
        ctx = 3;
        break;
    }
    int outer = S->with_ctx;
    S->with_ctx = ctx;
    if (serial) sema_split_tasks(S, &s->if_.then, serial);
    else sema_block(S, &s->if_.then);
    S->with_ctx = outer;
}

/* Quadrants' FunctionDefTransformer._validate_stream_parallel_exclusivity: once one top-level
 * statement is a stream_parallel block, all are (a docstring aside). */
static void stream_exclusive(Sema *S, const StmtList *body) {
    int any = 0;
    for (int k = 0; k < body->n; k++) any |= stmt_with(S, body->stmts[k]) == W_STREAM;
    if (!any) return;
    for (int k = 0; k < body->n; k++) {
        const Stmt *s = body->stmts[k];
        if (is_docstring(s, k) || stmt_with(S, s) == W_STREAM) continue;
        diag_error(s->span, QD2170, "When using qd.stream_parallel(), all top-level statements in the kernel must be 'with "
                                    "qd.stream_parallel():' blocks. Move non-parallel code to a separate kernel. [stmt %d: %s, "
                                    "body_len=%d]", k, py_stmt_name(s), body->n);
        return;
    }
}

void sema_graph_validate(Sema *S, const StmtList *body) {
    stream_exclusive(S, body);
    if (uses_do_while(S, body)) validate_list(S, body, true);
}

/* ---- the loop ---- */

static void spell(StrBuf *b, const Expr *e) {
    if (e->kind == E_NAME) sb_puts(b, e->name);
    else if (e->kind == E_ATTR) spell(b, e->attr.obj), sb_printf(b, ".%s", e->attr.name);
    else if (e->span.src) sb_printf(b, "%.*s", (int)e->span.len, e->span.src->text + e->span.off); /* as written */
}

/* The condition's ndarray parameter, or -1 after an error. Quadrants takes a name or an
 * attribute chain that evaluates to an ndarray kernel argument; anything else gets its message. */
static int ndarray_flag(Sema *S, const Expr *arg, const char *usage, const char *what, const char **label);

static int condition(Sema *S, const Expr *call, const char **label) {
    const Expr *arg = call->call.args.n == 1 && !call->call.nkw ? call->call.args.items[0] : NULL;
    if (!arg) {
        diag_error(call->span, QD2086, "qd.graph.do_while() takes one argument: the condition ndarray (a 0-d qd.i32 ndarray "
                                        "kernel parameter)");
        return -1;
    }
    return ndarray_flag(S, arg, "qd.graph.do_while(...)", "the condition of qd.graph.do_while()", label);
}

/* The ndarray parameter a do-while condition or a checkpoint's yield_on= names, or -1 after an
 * error: Quadrants' resolve_ndarray_kernel_arg_id. */
static int ndarray_flag(Sema *S, const Expr *arg, const char *usage, const char *what, const char **label) {
    StrBuf b;
    sb_init(&b);
    spell(&b, arg);
    *label = arena_strdup(S->arena, b.data);
    sb_free(&b);
    Val v = val_err();
    if (arg->kind == E_ATTR || (arg->kind == E_NAME && sema_lookup(S, arg->name))) {
        IrStmtVec *cur = S->cur;
        S->cur = NULL; /* naming the array emits no code */
        int mark = diag_quiet_begin();
        v = sema_eval(S, arg);
        if (diag_quiet_end(mark)) v = val_err();
        S->cur = cur;
    }
    if (v.kind != V_NDARRAY) {
        diag_error(arg->span, QD2086, "%s got '%s' which does not resolve to an ndarray kernel parameter "
                   "of '%s'. The argument must reference an ndarray kernel parameter (e.g. `flag`) or a "
                   "@qd.data_oriented member ndarray (e.g. `self.flag`); other expressions are not supported.",
                   usage, *label, S->kernel_def->def.name);
        return -1;
    }
    const IrParam *p = &S->params.items[v.index];
    if ((p->type != QT_I32 && p->type != QT_U32) || p->elem_ndim) {
        diag_error(arg->span, QD2086, "%s must be a qd.i32 ndarray (its element 0 is "
                   "read); '%s' is an ndarray of %s%s", what, *label,
                   p->elem_ndim ? (p->elem_ndim == 1 ? "vectors of " : "matrices of ") : "", qt_name(p->type));
        return -1;
    }
    return v.index;
}

void sema_do_while(Sema *S, const Stmt *s, IrStmtVec *serial) {
    const Expr *call = s->while_.cond;
    int param = -1;
    const char *label = NULL;
    if (!S->graph) diag_error(call->span, QD2086, "qd.graph.do_while() requires @qd.kernel(graph=True)");
    else param = condition(S, call, &label);
    if (S->block_dim) {
        diag_error(S->block_dim_span, QD2017, "qd.loop_config must directly precede a top-level for loop");
        S->block_dim = 0, S->serialize = false;
    }
    if (S->task >= 0 && S->task == S->tasks.len - 1 && S->tasks.items[S->task].kind == IR_TASK_SERIAL && !serial->len && !S->rng_init) {
        bool owns = false; /* an empty serial task (a qd.func's arguments were all substituted): dropped */
        for (int k = 0; k < S->local_task.len; k++) owns |= S->local_task.items[k] == S->task;
        if (!owns) S->tasks.len--, S->task = -1, S->cur = NULL, S->uses_block = false;
    }
    sema_close_task(S, serial);
    IrLoop lp = {.first = S->tasks.len, .param = param, .parent = S->cur_loop, .cond = label, .span = call->span};
    int me = S->loops.len, outer = S->cur_loop;
    vec_push(&S->loops, lp);
    S->cur_loop = me;
    sema_split_tasks(S, &s->while_.body, serial);
    if (S->rng_field >= 0 && S->tasks.len > S->loops.items[me].first) { /* each pass draws new qd.random values */
        sema_open_serial(S, s->span, serial);
        sema_random_finish(S);
    }
    sema_close_task(S, serial);
    S->cur_loop = outer;
    /* A loop without a task runs nothing (Quadrants: no task carries its level). Loops inside
     * it have none either and were dropped already, so it is the last entry. */
    if (S->tasks.len == S->loops.items[me].first || param < 0) {
        S->loops.len = me;
        return;
    }
    S->loops.items[me].last = S->tasks.len - 1;
}

void sema_do_while_misplaced(Sema *S, const Stmt *s) {
    const Expr *call = s->while_.cond;
    if (!S->graph) diag_error(call->span, QD2086, "qd.graph.do_while() requires @qd.kernel(graph=True)");
    else if (S->loop != LOOP_NONE || (S->task >= 0 && S->tasks.items[S->task].kind == IR_TASK_PARALLEL))
        diag_error(call->span, QD2086, "qd.graph.do_while() must be at the kernel top level or directly nested inside another "
                                        "qd.graph.do_while(); it cannot appear inside a for-loop.");
    else
        diag_error(call->span, QD2086, "qd.graph.do_while() under a run-time 'if' is not supported: the host repeats the "
                                        "loop's tasks and cannot see the condition; use 'if qd.static(...)' or move the "
                                        "loop out of the 'if'");
}

/* ---- checkpoints (qdc-lang(7), "Checkpoints"): Quadrants' CheckpointTransformer ---- */

/* The checkpoint's tasks are its own: a task of the code before it is closed first (split_tasks
 * closes one of another checkpoint at each statement), its last one after it. */
static void cp_begin(Sema *S, IrCheckpoint c) {
    vec_push(&S->cps, c);
    S->cur_cp = S->cps.len;
}

static void cp_end(Sema *S, IrStmtVec *serial) {
    if (S->task >= 0 && S->tasks.items[S->task].cp == S->cur_cp) sema_close_task(S, serial);
    S->cur_cp = 0;
}

/* A for loop of the kernel body or of a do-while body outside any `with qd.checkpoint`, in a
 * checkpoints=True kernel: an implicit checkpoint of its own (auto_wrap_for_loops). */
void sema_checkpoint_for(Sema *S, const Stmt *s, IrStmtVec *serial) {
    cp_begin(S, (IrCheckpoint){.param = -1, .span = s->span});
    Stmt *one[1] = {(Stmt *)s};
    sema_split_tasks(S, &(StmtList){one, 1}, serial);
    cp_end(S, serial);
}

static int span_line(Span sp) {
    uint32_t line = 0, col = 0;
    if (sp.src) source_line_col(sp.src, sp.off, &line, &col);
    return (int)line;
}

/* cp_id: an int literal, an IntEnum member (Stage.SIM) or a module-level int (CP_LOAD). */
static bool cp_label(Sema *S, const Expr *e, int64_t *label) {
    Val v = val_err();
    if (e->kind == E_INT || e->kind == E_NAME || (e->kind == E_ATTR && e->attr.obj->kind == E_NAME)) {
        IrStmtVec *cur = S->cur;
        S->cur = NULL;
        int mark = diag_quiet_begin();
        v = sema_eval(S, e);
        if (diag_quiet_end(mark)) v = val_err();
        S->cur = cur;
    }
    if (val_is_host_int(v)) {
        *label = val_host_i64(v);
        return true;
    }
    diag_error(e->span, QD2086, "qd.checkpoint() first argument must be an int literal or an IntEnum value (e.g. `Stage.SIM`). "
               "Got an unresolvable expression at line %d; the cp_id must be statically determinable at AST-walk time so the "
               "framework can build the label -> internal cp_id map and the host-side resume API can refer to checkpoints "
               "by name.", span_line(e->span));
    return false;
}

static void checkpoint_with(Sema *S, const Stmt *s, IrStmtVec *serial) {
    const Expr *e = s->if_.with, *cp = NULL, *yield = NULL;
    /* the call's shape first (is_checkpoint_call), then where it stands (build_checkpoint_with) */
    if (!e->call.args.n && !e->call.nkw)
        return (void)diag_error(e->span, QD2086, "qd.checkpoint() takes two arguments: `qd.checkpoint(cp_id, yield_on=flag)`.");
    if (e->call.args.n > 2)
        return (void)diag_error(e->call.args.items[2]->span, QD2086, "qd.checkpoint() takes at most 2 positional arguments "
                                "(cp_id, yield_on); got %d", e->call.args.n);
    if (e->call.args.n > 0) cp = e->call.args.items[0];
    if (e->call.args.n > 1) yield = e->call.args.items[1];
    for (int k = 0; k < e->call.nkw; k++) {
        const char *n = e->call.kw[k].name;
        const Expr **slot = !strcmp(n, "cp_id") ? &cp : !strcmp(n, "yield_on") ? &yield : NULL;
        if (!slot)
            return (void)diag_error(e->call.kw[k].span, QD2086, "qd.checkpoint() got unexpected keyword argument '%s'; only "
                                    "'cp_id' and 'yield_on' are supported", n);
        if (*slot)
            return (void)diag_error(e->call.kw[k].span, QD2086, "qd.checkpoint() got `%s` both positionally and as a keyword", n);
        *slot = e->call.kw[k].value;
    }
    if (!cp)
        return (void)diag_error(e->span, QD2086, "qd.checkpoint() is missing required argument `cp_id` (e.g. `qd.checkpoint(0, "
                                                  "yield_on=flag)` or `qd.checkpoint(Stage.SIM, yield_on=flag)`)");
    if (!yield)
        return (void)diag_error(e->span, QD2086, "qd.checkpoint() is missing required argument `yield_on` (e.g. "
                                                  "`qd.checkpoint(0, yield_on=overflow_flag)`)");
    if (yield->kind != E_NAME && yield->kind != E_ATTR)
        return (void)diag_error(yield->span, QD2086, "qd.checkpoint(yield_on=...) must reference a kernel ndarray argument -- "
                                "e.g. `yield_on=flag` for a bare parameter, `yield_on=self.flag` for a @qd.data_oriented member, "
                                "or `yield_on=params.flag` for a @dataclasses.dataclass parameter member; arbitrary "
                                "expressions are not supported");
    int64_t label;
    if (!cp_label(S, cp, &label)) return;
    if (S->ninline) return (void)diag_error(e->span, QD2086, "qd.checkpoint() can only be used inside @qd.kernel, not @qd.func");
    if (!S->graph)
        return (void)diag_error(e->span, QD2086, "qd.checkpoint() requires @qd.kernel(graph=True); the resume model only "
                                                  "applies to graph kernels");
    if (!S->checkpoints)
        return (void)diag_error(e->span, QD2086, "qd.checkpoint() found in kernel '%s', but this kernel was not decorated with "
                                                  "`checkpoints=True`. Add `checkpoints=True` to the decorator -- e.g. "
                                                  "`@qd.kernel(graph=True, checkpoints=True)` -- to opt into the pause / resume model.",
                                S->kernel_def->def.name);
    if (S->cur_cp)
        return (void)diag_error(e->span, QD2086, "qd.checkpoint() cannot be nested inside another qd.checkpoint(); checkpoints in "
                                "the same kernel must be flat siblings (a checkpoint inside qd.graph.do_while is fine)");
    const char *yname = NULL;
    int param = ndarray_flag(S, yield, "qd.checkpoint(yield_on=...)", "the yield_on= flag of qd.checkpoint()", &yname);
    if (param < 0) return;
    for (int k = 0; k < S->cps.len; k++)
        if (S->cps.items[k].text && S->cps.items[k].label == label)
            return (void)diag_error(cp->span, QD2086, "qd.checkpoint(cp_id=%lld, ...) declares a cp_id that is already used by "
                                    "another checkpoint in kernel '%s'. Each `cp_id` label must be unique so the host loop can map "
                                    "`status.checkpoint` and `kernel.resume(from_checkpoint=...)` unambiguously.",
                                    (long long)label, S->kernel_def->def.name);
    const StmtList *body = &s->if_.then;
    for (int k = 0; k < body->n; k++) {
        const Stmt *b = body->stmts[k];
        bool bare = b->kind == S_ASSIGN || b->kind == S_AUGASSIGN || b->kind == S_ANNASSIGN ||
                    (b->kind == S_EXPR && b->expr->kind != E_STR && b->expr->kind != E_INT && b->expr->kind != E_FLOAT &&
                     b->expr->kind != E_BOOL && b->expr->kind != E_NONE);
        if (!bare) continue;
        const char *kind = b->kind == S_ASSIGN ? "Assign" : b->kind == S_AUGASSIGN ? "AugAssign" : b->kind == S_ANNASSIGN ? "AnnAssign" : "Expr";
        return (void)diag_error(b->span, QD2086, "qd.checkpoint() body cannot contain a bare top-level %s statement (line %d): "
                                "every top-level statement in a checkpoint must be inside a for-loop (or other control-flow "
                                "construct), so the compiler can lower it as its own offloaded task with the correct cp_id. Wrap "
                                "the statement in `for _ in range(1):` to keep the original intent:\n\n"
                                "    with qd.checkpoint(cp_id, yield_on=flag):\n        for _ in range(1):\n"
                                "            <your statement here>\n        for i in range(arr.shape[0]):\n            ...\n",
                                kind, span_line(b->span));
    }
    if (!serial)
        return (void)diag_error(e->span, QD2086, "qd.checkpoint() must stand at the kernel's top level or directly in a "
                                                  "qd.graph.do_while() body: its tasks are what a launch skips or stops after");
    StrBuf t;
    sb_init(&t);
    spell(&t, cp);
    cp_begin(S, (IrCheckpoint){.param = param, .label = label, .text = arena_strdup(S->arena, t.data), .yield = yname, .span = e->span});
    sb_free(&t);
    sema_split_tasks(S, body, serial);
    cp_end(S, serial);
}

/* A label's value in host code, quietly: false when it is no compile-time int. */
static bool host_label(Sema *S, const Expr *e, int64_t *out) {
    IrStmtVec *cur = S->cur;
    S->cur = NULL;
    int mark = diag_quiet_begin();
    Val v = sema_eval(S, e);
    bool bad = diag_quiet_end(mark);
    S->cur = cur;
    if (bad || !val_is_host_int(v)) return false;
    *out = val_host_i64(v);
    return true;
}

static void labels_of(Sema *S, const StmtList *l, StrBuf *b, int *n) {
    for (int k = 0; k < l->n; k++) {
        const Stmt *s = l->stmts[k];
        if (sema_is_do_while(S, s)) labels_of(S, &s->while_.body, b, n);
        if (stmt_with(S, s) != W_CHECKPOINT) continue;
        const Expr *c = s->if_.with, *cp = c->call.args.n ? c->call.args.items[0] : NULL;
        for (int j = 0; j < c->call.nkw; j++)
            if (!strcmp(c->call.kw[j].name, "cp_id")) cp = c->call.kw[j].value;
        int64_t v; /* the forms checkpoint_with takes */
        bool form = cp && (cp->kind == E_INT || cp->kind == E_NAME || (cp->kind == E_ATTR && cp->attr.obj->kind == E_NAME));
        if (form && host_label(S, cp, &v)) sb_printf(b, "%s%lld", (*n)++ ? ", " : "", (long long)v);
    }
}

/* K.resume(..., from_checkpoint=L) in host code (Quadrants' QuadrantsCallable.resume and
 * translate_user_label_to_internal_cp_id): L must be an int that labels a checkpoint of K. */
void sema_checkpoint_resume(Sema *S, const Expr *call, const Stmt *def) {
    const Expr *from = NULL;
    for (int k = 0; k < call->call.nkw; k++)
        if (!strcmp(call->call.kw[k].name, "from_checkpoint")) from = call->call.kw[k].value;
    if (!from) return;
    int64_t label;
    if (!host_label(S, from, &label)) {
        if (from->kind != E_STR && from->kind != E_FLOAT && from->kind != E_NONE && from->kind != E_BOOL) return; /* known when the script runs */
        StrBuf t;
        sb_init(&t);
        if (from->kind == E_STR) sb_printf(&t, "'%s'", from->str);
        else spell(&t, from);
        diag_error(from->span, QD2086, "from_checkpoint= must be an int or IntEnum value matching a `qd.checkpoint(cp_id=...)` label "
                   "in the kernel (typically `status.checkpoint` from the previous launch's GraphStatus); got %s.", t.data);
        sb_free(&t);
        return;
    }
    StrBuf b;
    sb_init(&b);
    int n = 0;
    labels_of(S, &def->def.body, &b, &n);
    bool found = false;
    for (const char *p = b.data; p && *p;) { /* the labels as printed */
        char *end;
        long long v = strtoll(p, &end, 10);
        found |= v == label;
        p = *end ? end + 2 : end;
    }
    if (!found)
        diag_error(from->span, QD2086, "from_checkpoint=%lld does not match any qd.checkpoint(cp_id=...) in kernel '%s'. Available "
                   "cp_id labels (source-declaration order): [%s].", (long long)label, def->def.name, b.data ? b.data : "");
    sb_free(&b);
}
