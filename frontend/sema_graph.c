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

void sema_graph_validate(Sema *S, const StmtList *body) {
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
