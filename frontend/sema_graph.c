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
#include <string.h>

bool sema_is_do_while(Sema *S, const Stmt *s) {
    if (s->kind != S_WHILE || s->while_.cond->kind != E_CALL) return false;
    const char *p = sema_path(S, s->while_.cond->call.fn);
    return p && (!strcmp(p, "qd.graph.do_while") || !strcmp(p, "qd.graph_do_while"));
}

bool sema_kernel_graph(Sema *S, const Stmt *def) {
    for (int k = 0; k < def->def.decorators.n; k++) {
        const Expr *d = def->def.decorators.items[k];
        if (d->kind != E_CALL) continue;
        const char *p = sema_path(S, d->call.fn);
        if (!p || strcmp(p, "qd.kernel")) continue;
        for (int j = 0; j < d->call.nkw; j++) {
            if (strcmp(d->call.kw[j].name, "graph") && strcmp(d->call.kw[j].name, "gpu_graph")) continue; /* its old name */
            IrStmtVec *cur = S->cur;
            S->cur = NULL;
            int mark = diag_quiet_begin(); /* the decorator was checked (and reported) already */
            Val v = sema_eval(S, d->call.kw[j].value);
            diag_quiet_end(mark);
            S->cur = cur;
            return v.kind == V_EXPR && ir_is_const(v.e) && qt_is_integral(v.e->type) && v.e->c.u != 0;
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
    case W_CHECKPOINT: /* @qd.kernel(checkpoints=True) is rejected at the decorator: none reaches here */
        if (S->ninline) return (void)diag_error(e->span, QD2086, "qd.checkpoint() can only be used inside @qd.kernel, not @qd.func");
        if (!S->graph)
            return (void)diag_error(e->span, QD2086, "qd.checkpoint() requires @qd.kernel(graph=True); the resume model only "
                                                      "applies to graph kernels");
        return (void)diag_error(e->span, QD2086, "qd.checkpoint() found in kernel '%s', but this kernel was not decorated with "
                                                  "`checkpoints=True`. Add `checkpoints=True` to the decorator -- e.g. "
                                                  "`@qd.kernel(graph=True, checkpoints=True)` -- to opt into the pause / resume model.",
                                S->kernel_def->def.name);
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
static int condition(Sema *S, const Expr *call, const char **label) {
    StrBuf b;
    sb_init(&b);
    const Expr *arg = call->call.args.n == 1 && !call->call.nkw ? call->call.args.items[0] : NULL;
    if (!arg) {
        diag_error(call->span, QD2086, "qd.graph.do_while() takes one argument: the condition ndarray (a 0-d qd.i32 ndarray "
                                        "kernel parameter)");
        return -1;
    }
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
        diag_error(arg->span, QD2086, "qd.graph.do_while(...) got '%s' which does not resolve to an ndarray kernel parameter "
                   "of '%s'. The argument must reference an ndarray kernel parameter (e.g. `flag`) or a "
                   "@qd.data_oriented member ndarray (e.g. `self.flag`); other expressions are not supported.",
                   *label, S->kernel_def->def.name);
        return -1;
    }
    const IrParam *p = &S->params.items[v.index];
    if ((p->type != QT_I32 && p->type != QT_U32) || p->elem_ndim) {
        diag_error(arg->span, QD2086, "the condition of qd.graph.do_while() must be a qd.i32 ndarray (its element 0 is "
                   "read); '%s' is an ndarray of %s%s", *label,
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
