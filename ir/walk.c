/* The one traversal of the IR (ir.h, IrWalker): tasks in order, each task's extent and then its
 * statements in program order, each expression's operands before the expression (evaluation
 * order). Every expression slot is visited and may be replaced, so the same walk serves readers
 * (the memory-operation visitor) and rewriters (the expansion pass). A node reachable twice
 * (the IR is a DAG once operands are shared) is visited once and replaced the same way at
 * every use. Also the pointer map IrMemo. */
#include "ir.h"
#include <stdlib.h>
#include <string.h>

/* ---- IrMemo: open addressing on the pointer's bits ---- */

static size_t slot(const IrMemo *m, const void *key) {
    uint64_t h = (uint64_t)(uintptr_t)key * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 17) & (m->cap - 1);
}

void *ir_memo_get(const IrMemo *m, const void *key) {
    if (!m->n) return NULL;
    for (size_t i = slot(m, key);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key) return m->vals[i];
        if (!m->keys[i]) return NULL;
    }
}

void ir_memo_put(IrMemo *m, const void *key, void *val) {
    if (2 * (m->n + 1) > m->cap) {
        IrMemo bigger = {xcalloc(m->cap ? 2 * m->cap : 64, sizeof(void *)), xcalloc(m->cap ? 2 * m->cap : 64, sizeof(void *)),
                         m->cap ? 2 * m->cap : 64, 0};
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i]) ir_memo_put(&bigger, m->keys[i], m->vals[i]);
        ir_memo_free(m);
        *m = bigger;
    }
    size_t i = slot(m, key);
    while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
    if (!m->keys[i]) m->n++;
    m->keys[i] = key, m->vals[i] = val;
}

void ir_memo_clear(IrMemo *m) {
    if (!m->n) return;
    memset(m->keys, 0, m->cap * sizeof *m->keys);
    m->n = 0;
}

void ir_memo_free(IrMemo *m) {
    free(m->keys), free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ---- the walk ---- */

static IrExpr *walk_expr(IrWalker *w, IrExpr *e);

static void walk_ref(IrWalker *w, IrRef *r) {
    for (int i = 0; i < r->nidx; i++) r->idx[i] = walk_expr(w, r->idx[i]);
    if (r->flat) r->flat = walk_expr(w, r->flat); /* an SNode element index: the same expressions */
}

static IrExpr *walk_expr(IrWalker *w, IrExpr *e) {
    if (!e || (!w->expr && !w->enter)) return e;
    IrExpr *done = ir_memo_get(&w->seen, e);
    if (done) return done;
    if (w->enter && !w->enter(w, e)) return e;
    switch (e->kind) {
    case IR_LOAD: case IR_ADDR: walk_ref(w, e->ref); break;
    case IR_UNARY: e->un.a = walk_expr(w, e->un.a); break;
    case IR_BINARY: e->bin.a = walk_expr(w, e->bin.a), e->bin.b = walk_expr(w, e->bin.b); break;
    case IR_SELECT:
        e->sel.cond = walk_expr(w, e->sel.cond), e->sel.a = walk_expr(w, e->sel.a), e->sel.b = walk_expr(w, e->sel.b);
        break;
    case IR_CAST: case IR_BITCAST: e->arg = walk_expr(w, e->arg); break;
    case IR_MATH: e->math.a = walk_expr(w, e->math.a), e->math.b = walk_expr(w, e->math.b); break;
    case IR_MEMOP:
        walk_ref(w, e->mem.ref);
        e->mem.val = walk_expr(w, e->mem.val), e->mem.val2 = walk_expr(w, e->mem.val2);
        break;
    case IR_SUBGROUP: e->sg.a = walk_expr(w, e->sg.a), e->sg.b = walk_expr(w, e->sg.b); break;
    case IR_CONST: case IR_LOCAL: case IR_PARAM: case IR_SHAPE: case IR_THREAD_IDX: case IR_GLOBAL_THREAD_IDX: case IR_CLOCK: break;
    }
    IrExpr *r = w->expr ? w->expr(w, e) : e;
    ir_memo_put(&w->seen, e, r);
    if (r != e) ir_memo_put(&w->seen, r, r); /* a replacement is not walked again */
    return r;
}

static void walk_block(IrWalker *w, IrBlock *b) {
    for (int i = 0; i < b->n; i++) {
        IrStmt *s = b->stmts[i];
        if (w->stmt) w->stmt(w, s);
        switch (s->kind) {
        case IR_ASSIGN: s->assign.value = walk_expr(w, s->assign.value); break;
        case IR_STORE: walk_ref(w, s->store.ref), s->store.value = walk_expr(w, s->store.value); break;
        case IR_EVAL: s->eval = walk_expr(w, s->eval); break;
        case IR_IF:
            s->if_.cond = walk_expr(w, s->if_.cond);
            walk_block(w, &s->if_.then), walk_block(w, &s->if_.els);
            break;
        case IR_WHILE: s->while_.cond = walk_expr(w, s->while_.cond), walk_block(w, &s->while_.body); break;
        case IR_FOR:
            s->for_.begin = walk_expr(w, s->for_.begin), s->for_.end = walk_expr(w, s->for_.end);
            walk_block(w, &s->for_.body);
            break;
        case IR_PRINT:
            for (int j = 0; j < s->print.nargs; j++) s->print.args[j] = walk_expr(w, s->print.args[j]);
            break;
        case IR_ASSERT: s->assert_.cond = walk_expr(w, s->assert_.cond); break;
        case IR_BREAK: case IR_CONTINUE: case IR_BARRIER: case IR_FENCE: break;
        }
    }
}

static void walk_tasks(IrKernel *k, IrWalker *w) {
    for (int j = 0; j < k->ntasks; j++) {
        w->k = k, w->t = &k->tasks[j];
        w->t->extent = walk_expr(w, w->t->extent);
        walk_block(w, &w->t->body);
    }
}

void ir_walk_kernel(IrKernel *k, IrWalker *w) {
    walk_tasks(k, w);
    ir_memo_free(&w->seen);
    w->k = NULL, w->t = NULL;
}

void ir_walk_task(IrTask *t, IrWalker *w) {
    t->extent = walk_expr(w, t->extent);
    walk_block(w, &t->body);
    ir_memo_free(&w->seen);
}

void ir_walk_block(IrBlock *b, IrWalker *w) {
    walk_block(w, b);
    ir_memo_free(&w->seen);
}

void ir_walk_module(IrModule *m, IrWalker *w) {
    for (int i = 0; i < m->nkernels; i++) walk_tasks(&m->kernels[i], w);
    ir_memo_free(&w->seen);
    w->k = NULL, w->t = NULL;
}

/* ---- queries over one expression or block, through the same walk ---- */

typedef struct {
    bool (*pred)(const IrExpr *e, void *ctx);
    void *ctx;
    bool found;
} AnyQuery;

static IrExpr *any_visit(IrWalker *w, IrExpr *e) {
    AnyQuery *q = w->ctx;
    if (!q->found && q->pred(e, q->ctx)) q->found = true;
    return e;
}

/* One of `e` and `b` is walked. The walk only rewrites through the callback's result, and
 * any_visit returns each node itself, so walking a const tree through it leaves it as it was. */
static bool any_in(const IrExpr *e, const IrBlock *b, bool (*pred)(const IrExpr *e, void *ctx), void *ctx) {
    AnyQuery q = {pred, ctx, false};
    IrWalker w = {.expr = any_visit, .ctx = &q};
    if (e) walk_expr(&w, (IrExpr *)e);
    if (b) walk_block(&w, (IrBlock *)b);
    ir_memo_free(&w.seen);
    return q.found;
}

bool ir_expr_any(const IrExpr *e, bool (*pred)(const IrExpr *e, void *ctx), void *ctx) { return any_in(e, NULL, pred, ctx); }
bool ir_block_any(const IrBlock *b, bool (*pred)(const IrExpr *e, void *ctx), void *ctx) { return any_in(NULL, b, pred, ctx); }

/* A memory operation, or a collective: every lane must reach it. */
static bool is_effect(const IrExpr *e, void *ctx) {
    (void)ctx;
    return e->kind == IR_MEMOP || e->kind == IR_SUBGROUP;
}

bool ir_has_effects(const IrExpr *e) { return ir_expr_any(e, is_effect, NULL); }

/* Uniform: built only from constants, scalar parameters and shapes by operators, selects,
 * casts and math functions. */
static bool not_uniform(const IrExpr *e, void *ctx) {
    (void)ctx;
    switch (e->kind) {
    case IR_CONST: case IR_PARAM: case IR_SHAPE: case IR_UNARY: case IR_BINARY: case IR_SELECT: case IR_CAST:
    case IR_BITCAST: case IR_MATH: return false;
    default: return true;
    }
}

bool ir_is_uniform(const IrExpr *e) { return !ir_expr_any(e, not_uniform, NULL); }

/* ---- the locals one task touches ---- */

static void mark_ref(bool *used, const IrRef *r) {
    if (r && r->kind == IR_REF_LOCAL) used[r->index] = true;
}

static IrExpr *locals_expr(IrWalker *w, IrExpr *e) {
    bool *used = w->ctx;
    if (e->kind == IR_LOCAL) used[e->local] = true;
    else if (e->kind == IR_LOAD) mark_ref(used, e->ref);
    else if (e->kind == IR_MEMOP) mark_ref(used, e->mem.ref);
    return e;
}

static void locals_stmt(IrWalker *w, IrStmt *s) {
    bool *used = w->ctx;
    if (s->kind == IR_ASSIGN) used[s->assign.local] = true;
    else if (s->kind == IR_STORE) mark_ref(used, s->store.ref);
    else if (s->kind == IR_FOR) used[s->for_.counter] = true;
}

/* Read-only like any_in: the callbacks return each node itself. */
void ir_task_locals(const IrTask *t, bool *used) {
    if (t->kind == IR_TASK_PARALLEL) used[t->index_local] = true;
    IrWalker w = {.expr = locals_expr, .stmt = locals_stmt, .ctx = used};
    ir_walk_task((IrTask *)t, &w);
}
