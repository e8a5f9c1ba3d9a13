/* The IR's stable textual dump (--emit=ir) and the memory-operation visitor of ir.h.
 * Dump format: one "field"/"kernel" header per item; kernels list params, locals (%N), shared
 * arrays and tasks; statements one per line, indented; expressions as S-expressions typed by
 * their result ("(add:i32 %3 1:i32)"). Lowering decisions print as "-> ..." after a memop. */
#include "ir.h"
#include "../support/json.h"
#include <inttypes.h>
#include <string.h>

static const char *const binop_names[] = {
    "add", "sub", "mul", "div", "floordiv", "mod", "rem", "pow", "and", "or", "xor", "shl", "shr",
    "eq", "ne", "lt", "le", "gt", "ge", "min", "max", "land", "lor",
};
_Static_assert(ARRAY_LEN(binop_names) == IR_LOR + 1, "one name per IrBinOp");

static const struct { const char *name; int nargs; IrSgResult result; } sg_ops[] = {
#define SG(e, name, nargs, result) {name, nargs, result},
#include "simt.def"
#undef SG
};
_Static_assert(ARRAY_LEN(sg_ops) == SG_COUNT, "one row per IrSgOp");
const char *ir_sg_name(IrSgOp op) { return sg_ops[op].name; }
int ir_sg_nargs(IrSgOp op) { return sg_ops[op].nargs; }
IrSgResult ir_sg_result(IrSgOp op) { return sg_ops[op].result; }
static const char *const unop_names[] = {"neg", "bitnot", "lnot"};
static const char *const math_names[] = {"sqrt", "floor", "abs", "popcnt", "clz", "ceil", "round", "rsqrt", "sin",
                                         "cos", "tan", "asin", "acos", "atan", "exp", "log", "tanh", "atan2"};
_Static_assert(ARRAY_LEN(math_names) == IR_ATAN2 + 1, "one name per IrMathOp");
static const char *const low_names[] = {"undecided", "native", "cas_loop", "plain", "unsupported"};

/* What names in a dump resolve against: the module (fields) and the kernel (params, shared). */
typedef struct {
    const IrModule *m;
    const IrKernel *k;
    const IrLowered *low; /* NULL: a dump before lowering */
} Dump;

static void dump_expr(const Dump *d, const IrExpr *e, StrBuf *out);

static void dump_const(const IrExpr *e, StrBuf *out) {
    if (qt_is_float(e->type)) sb_printf(out, "%.17g", e->c.f);
    else if (qt_is_signed(e->type)) sb_printf(out, "%" PRId64, e->c.i);
    else sb_printf(out, "%" PRIu64, e->c.u);
    sb_printf(out, ":%s", qt_name(e->type));
}

static void dump_ref(const Dump *d, const IrRef *r, StrBuf *out) {
    switch (r->kind) {
    case IR_REF_FIELD: sb_printf(out, "field %s", r->index < d->m->nfields ? d->m->fields[r->index].name : "?"); break;
    case IR_REF_NDARRAY: sb_printf(out, "ndarray %s", d->k && r->index < d->k->nparams ? d->k->params[r->index].name : "?"); break;
    case IR_REF_SHARED: sb_printf(out, "shared %s", d->k && r->index < d->k->nshared ? d->k->shared[r->index].name : "?"); break;
    case IR_REF_LOCAL: sb_printf(out, "local %%%d", r->index); break;
    }
    sb_putc(out, '[');
    for (int i = 0; i < r->nidx; i++) {
        if (i) sb_puts(out, ", ");
        dump_expr(d, r->idx[i], out);
    }
    sb_printf(out, "]:%s", qt_name(r->type));
    /* the frontend's index into an SNode storage; a row-major index (ir_expand_module) is the
     * subscripts' own meaning and not shown */
    if (r->flat && r->kind == IR_REF_FIELD && r->index < d->m->nfields && d->m->fields[r->index].storage)
        sb_puts(out, " @"), dump_expr(d, r->flat, out);
}

static void dump_lowering(const Dump *d, int id, StrBuf *out) {
    if (!d->low) return;
    const IrLowering *l = ir_low(d->low, id);
    if (l->kind == LOW_UNDECIDED) return;
    sb_printf(out, " -> %s %s %s %s", low_names[l->kind], qop_name(l->op), qord_name(l->order), qscope_name(l->scope));
    if (l->negate) sb_puts(out, " negate");
    if (l->via_int) sb_puts(out, " via_int");
    if (l->fence_before) sb_printf(out, " fence_before(%s %s)", qord_name(l->fence_order), qscope_name(l->fence_scope));
    if (l->fence_after) sb_printf(out, " fence_after(%s %s)", qord_name(l->fence_order), qscope_name(l->fence_scope));
    if (l->no_return) sb_puts(out, " no_return");
    if (l->vec_width > 1) sb_printf(out, " vector%d", l->vec_width);
    if (l->vec_member) sb_puts(out, " in_vector");
    if (l->flags) sb_printf(out, " flags=%u", l->flags);
    if (l->spelling) sb_printf(out, " \"%s\"", l->spelling);
}

static void dump_memop(const Dump *d, const IrExpr *e, StrBuf *out) {
    const IrMemOp *mo = &e->mem;
    sb_printf(out, "(%s%s:%s %s %s ", mo->is_volatile ? "volatile_" : "atomic_", qop_name(mo->op), qt_name(e->type),
              qord_name(mo->order), qscope_name(mo->scope));
    dump_ref(d, mo->ref, out);
    if (mo->val) sb_putc(out, ' '), dump_expr(d, mo->val, out);
    if (mo->val2) sb_putc(out, ' '), dump_expr(d, mo->val2, out);
    if (!mo->result_used) sb_puts(out, " unused");
    if (mo->from_augassign) sb_puts(out, " augassign");
    dump_lowering(d, mo->id, out);
    sb_putc(out, ')');
}

static void dump_expr(const Dump *d, const IrExpr *e, StrBuf *out) {
    if (!e) return sb_puts(out, "(null)");
    switch (e->kind) {
    case IR_CONST: dump_const(e, out); return;
    case IR_LOCAL: sb_printf(out, "%%%d", e->local); return;
    case IR_PARAM: sb_printf(out, "$%s", d->k && e->param < d->k->nparams ? d->k->params[e->param].name : "?"); return;
    case IR_SHAPE: sb_printf(out, "(shape %s %d)", d->k && e->shape.param < d->k->nparams ? d->k->params[e->shape.param].name : "?", e->shape.axis); return;
    case IR_LOAD: sb_puts(out, "(load "), dump_ref(d, e->ref, out), sb_putc(out, ')'); return;
    case IR_ADDR: sb_puts(out, "(addr "), dump_ref(d, e->ref, out), sb_putc(out, ')'); return;
    case IR_UNARY: sb_printf(out, "(%s:%s ", unop_names[e->un.op], qt_name(e->type)), dump_expr(d, e->un.a, out); break;
    case IR_BINARY:
        sb_printf(out, "(%s:%s ", binop_names[e->bin.op], qt_name(e->type));
        dump_expr(d, e->bin.a, out), sb_putc(out, ' '), dump_expr(d, e->bin.b, out);
        break;
    case IR_SELECT:
        sb_printf(out, "(select:%s ", qt_name(e->type)), dump_expr(d, e->sel.cond, out);
        sb_putc(out, ' '), dump_expr(d, e->sel.a, out), sb_putc(out, ' '), dump_expr(d, e->sel.b, out);
        break;
    case IR_CAST: sb_printf(out, "(cast:%s ", qt_name(e->type)), dump_expr(d, e->arg, out); break;
    case IR_BITCAST: sb_printf(out, "(bitcast:%s ", qt_name(e->type)), dump_expr(d, e->arg, out); break;
    case IR_MATH:
        sb_printf(out, "(%s:%s ", math_names[e->math.op], qt_name(e->type)), dump_expr(d, e->math.a, out);
        if (e->math.b) sb_putc(out, ' '), dump_expr(d, e->math.b, out);
        break;
    case IR_MEMOP: dump_memop(d, e, out); return;
    case IR_THREAD_IDX: sb_puts(out, "(thread_idx)"); return;
    case IR_GLOBAL_THREAD_IDX: sb_puts(out, "(global_thread_idx)"); return;
    case IR_CLOCK: sb_puts(out, "(clock_counter)"); return;
    case IR_SUBGROUP:
        sb_printf(out, "(subgroup.%s", ir_sg_name(e->sg.op));
        if (e->sg.op == SG_REDUCE || e->sg.op == SG_INCLUSIVE || e->sg.op == SG_EXCLUSIVE)
            sb_printf(out, "_%s", binop_names[e->sg.combine]);
        sb_printf(out, ":%s", qt_name(e->type));
        if (e->sg.a) sb_putc(out, ' '), dump_expr(d, e->sg.a, out);
        if (e->sg.b) sb_putc(out, ' '), dump_expr(d, e->sg.b, out);
        break;
    }
    sb_putc(out, ')');
}

static void dump_block(const Dump *d, const IrBlock *b, int depth, StrBuf *out);

static void dump_stmt(const Dump *d, const IrStmt *s, int depth, StrBuf *out) {
    for (int i = 0; i < depth; i++) sb_puts(out, "  ");
    switch (s->kind) {
    case IR_ASSIGN: sb_printf(out, "%%%d = ", s->assign.local), dump_expr(d, s->assign.value, out); break;
    case IR_STORE: sb_puts(out, "store "), dump_ref(d, s->store.ref, out), sb_puts(out, " = "), dump_expr(d, s->store.value, out); break;
    case IR_EVAL: sb_puts(out, "eval "), dump_expr(d, s->eval, out); break;
    case IR_IF:
        sb_puts(out, "if "), dump_expr(d, s->if_.cond, out), sb_putc(out, '\n');
        dump_block(d, &s->if_.then, depth + 1, out);
        if (s->if_.els.n) {
            for (int i = 0; i < depth; i++) sb_puts(out, "  ");
            sb_puts(out, "else\n");
            dump_block(d, &s->if_.els, depth + 1, out);
        }
        return;
    case IR_WHILE:
        sb_puts(out, "while "), dump_expr(d, s->while_.cond, out), sb_putc(out, '\n');
        dump_block(d, &s->while_.body, depth + 1, out);
        return;
    case IR_FOR:
        sb_printf(out, "for %%%d = ", s->for_.counter), dump_expr(d, s->for_.begin, out);
        sb_puts(out, " to "), dump_expr(d, s->for_.end, out), sb_printf(out, " step %" PRId64 "\n", s->for_.step);
        dump_block(d, &s->for_.body, depth + 1, out);
        return;
    case IR_BREAK: sb_puts(out, "break"); break;
    case IR_CONTINUE: sb_puts(out, "continue"); break;
    case IR_BARRIER: sb_puts(out, "barrier"); break;
    case IR_ASSERT:
        sb_puts(out, "assert "), dump_expr(d, s->assert_.cond, out), sb_putc(out, ' ');
        json_str(out, s->assert_.msg);
        break;
    case IR_PRINT:
        sb_puts(out, "print ");
        json_str(out, s->print.fmt);
        for (int i = 0; i < s->print.nargs; i++) sb_putc(out, ' '), dump_expr(d, s->print.args[i], out);
        break;
    case IR_FENCE:
        sb_printf(out, "fence %s %s", qord_name(s->fence.order), qscope_name(s->fence.scope));
        dump_lowering(d, s->fence.id, out);
        break;
    }
    sb_putc(out, '\n');
}

static void dump_block(const Dump *d, const IrBlock *b, int depth, StrBuf *out) {
    for (int i = 0; i < b->n; i++) dump_stmt(d, b->stmts[i], depth, out);
}

static void dump_shape(const int64_t *shape, int ndim, StrBuf *out) {
    sb_putc(out, '[');
    for (int d = 0; d < ndim; d++) sb_printf(out, "%s%" PRId64, d ? ", " : "", shape[d]);
    sb_putc(out, ']');
}

static void dump_kernel(const IrModule *m, const IrLowered *low, const IrKernel *k, StrBuf *out) {
    const Dump dd = {m, k, low}, *d = &dd;
    sb_printf(out, "kernel %s(", k->name);
    for (int i = 0; i < k->nparams; i++) {
        const IrParam *p = &k->params[i];
        if (p->kind == IR_PARAM_SCALAR) sb_printf(out, "%s%s: %s", i ? ", " : "", p->name, qt_name(p->type));
        else sb_printf(out, "%s%s: ndarray(%s, %d)", i ? ", " : "", p->name, qt_name(p->type), p->ndim);
    }
    sb_puts(out, ")");
    if (k->ret_type != QT_VOID) sb_printf(out, " -> %s in field %s", qt_name(k->ret_type), m->fields[k->ret_field].name);
    for (int i = 0; i < k->ret_nmembers; i++)
        sb_printf(out, "%s%s: %s in field %s", i ? ", " : " -> {", k->ret_members[i].name, qt_name(k->ret_members[i].type),
                  m->fields[k->ret_members[i].field].name);
    if (k->ret_nmembers) sb_puts(out, "}");
    sb_putc(out, '\n');
    for (int i = 0; i < k->nlocals; i++) sb_printf(out, "  local %%%d %s: %s\n", i, k->locals[i].name, qt_name(k->locals[i].type));
    for (int i = 0; i < k->nshared; i++) {
        const IrShared *s = &k->shared[i];
        sb_printf(out, "  shared %s: %s", s->name, qt_name(s->type));
        dump_shape(s->shape, s->ndim, out);
        sb_printf(out, " task %d\n", s->task);
    }
    for (int i = 0; i < k->nloops; i++) {
        const IrLoop *l = &k->loops[i];
        sb_printf(out, "  loop %d tasks %d..%d while %s[0]", i, l->first, l->last, k->params[l->param].name);
        if (l->parent >= 0) sb_printf(out, " in loop %d", l->parent);
        sb_putc(out, '\n');
    }
    for (int i = 0; i < k->ncheckpoints; i++) {
        const IrCheckpoint *c = &k->checkpoints[i];
        if (c->param < 0) sb_printf(out, "  checkpoint %d implicit\n", i);
        else sb_printf(out, "  checkpoint %d label %lld (%s) yield_on %s[0]\n", i, (long long)c->label, c->text, k->params[c->param].name);
    }
    for (int i = 0; i < k->ntasks; i++) {
        const IrTask *t = &k->tasks[i];
        sb_printf(out, "  task %s %s", t->name, t->kind == IR_TASK_PARALLEL ? "parallel" : "serial");
        if (t->kind == IR_TASK_PARALLEL) sb_puts(out, " extent="), dump_expr(d, t->extent, out), sb_printf(out, " index=%%%d", t->index_local);
        if (t->block_dim) sb_printf(out, " block_dim=%d", t->block_dim);
        if (t->cp) sb_printf(out, " checkpoint %d", t->cp - 1);
        if (t->uses_block) sb_puts(out, " uses_block");
        sb_putc(out, '\n');
        dump_block(d, &t->body, 2, out);
    }
}

void ir_dump(const IrModule *m, const IrLowered *low, StrBuf *out) {
    sb_puts(out, "; qdc ir 1\n");
    for (int i = 0; i < m->nfields; i++) {
        sb_printf(out, "field %s: %s", m->fields[i].name, qt_name(m->fields[i].type));
        dump_shape(m->fields[i].shape, m->fields[i].ndim, out);
        if (m->fields[i].storage) sb_printf(out, " in qd_snode_%s", m->storages[m->fields[i].storage - 1].name);
        sb_putc(out, '\n');
    }
    for (int i = 0; i < m->nstorages; i++)
        sb_printf(out, "storage qd_snode_%s: %" PRId64 " bytes, align %d\n", m->storages[i].name, m->storages[i].bytes, m->storages[i].align);
    for (int i = 0; i < m->nkernels; i++) dump_kernel(m, low, &m->kernels[i], out);
    if (low && low->ncaps_used) {
        sb_puts(out, "caps");
        for (int i = 0; i < low->ncaps_used; i++) sb_printf(out, " %s", low->caps_used[i]);
        sb_putc(out, '\n');
    }
}

/* ---- memory operations, through the one walker (ir/walk.c) ---- */

typedef struct {
    IrMemVisitor fn;
    void *ctx;
} MemVisit;

static IrExpr *mem_expr(IrWalker *w, IrExpr *e) {
    MemVisit *v = w->ctx;
    if (e->kind == IR_MEMOP) v->fn(v->ctx, w->k, w->t, e, NULL);
    return e;
}

static void mem_stmt(IrWalker *w, IrStmt *s) {
    MemVisit *v = w->ctx;
    if (s->kind == IR_FENCE) v->fn(v->ctx, w->k, w->t, NULL, s);
}

/* A reader on the one walker: it writes an expression slot only when the callback returns
 * another node, which mem_expr never does, so the module stays as it was. */
void ir_visit_memory_ops(const IrModule *m, IrMemVisitor fn, void *ctx) {
    MemVisit v = {fn, ctx};
    IrWalker w = {.expr = mem_expr, .stmt = mem_stmt, .ctx = &v};
    ir_walk_module((IrModule *)m, &w);
}

void ir_visit_kernel_memory_ops(const IrKernel *k, IrMemVisitor fn, void *ctx) {
    MemVisit v = {fn, ctx};
    IrWalker w = {.expr = mem_expr, .stmt = mem_stmt, .ctx = &v};
    ir_walk_kernel((IrKernel *)k, &w);
}

/* ---- sealing and decisions ---- */

/* The one place that writes ids: the nodes are the checker's, still writable in its arena. */
static void number(void *ctx, const IrKernel *k, const IrTask *t, const IrExpr *memop, const IrStmt *fence) {
    (void)k, (void)t;
    int *n = ctx;
    if (memop) ((IrExpr *)memop)->mem.id = (*n)++;
    if (fence) ((IrStmt *)fence)->fence.id = (*n)++;
}

typedef struct { const IrLowered *low; int s; bool wide; } WideScan;

static void wide_use(void *ctx, const IrKernel *k, const IrTask *t, const IrExpr *memop, const IrStmt *fence) {
    (void)k, (void)t, (void)fence;
    WideScan *w = ctx;
    if (memop && memop->mem.ref->kind == IR_REF_SHARED && memop->mem.ref->index == w->s &&
        (ir_low(w->low, memop->mem.id)->flags & LOWF_SHARED_U32))
        w->wide = true;
}

bool ir_shared_widened(const IrKernel *k, const IrLowered *low, int s) {
    WideScan w = {low, s, false};
    if (low && qt_bits(k->shared[s].type) < 32) ir_visit_kernel_memory_ops(k, wide_use, &w);
    return w.wide;
}

static int64_t shared_size(const IrKernel *k, const IrLowered *low, int s) {
    const IrShared *sh = &k->shared[s];
    int bytes = (qt_bits(sh->type) + 7) / 8;
    if (bytes < 4 && ir_shared_widened(k, low, s)) bytes = 4;
    return sh->elems * bytes;
}

int64_t ir_shared_offset(const IrKernel *k, const IrLowered *low, int s) {
    int64_t off = 0;
    for (int i = 0; i < s; i++)
        if (k->shared[i].task == k->shared[s].task) off += (shared_size(k, low, i) + IR_SHARED_ALIGN - 1) / IR_SHARED_ALIGN * IR_SHARED_ALIGN;
    return off;
}

int64_t ir_task_shared_bytes(const IrKernel *k, const IrLowered *low, int task) {
    int64_t end = 0;
    for (int i = 0; i < k->nshared; i++)
        if (k->shared[i].task == task) end = ir_shared_offset(k, low, i) + shared_size(k, low, i);
    return end;
}

void ir_seal(IrModule *m) {
    int n = 0;
    ir_visit_memory_ops(m, number, &n);
    m->nmemops = n;
}

const IrLowering *ir_low(const IrLowered *l, int id) {
    if (!l || id < 0 || id >= l->nops) die("memory operation %d has no lowering decision", id);
    return &l->ops[id];
}
