/* The expansion pass (ir/expand.c) beyond the operators: each subscript's element index
 * (IrRef.flat, row-major in i64, the one addressing every backend uses) and each parallel
 * task's extent, >= 0 by construction (IrTask.extent). Modules come from the frontend. */
#include "frontend/frontend.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static void quiet(void) {
    DiagConfig c = {.format = DIAG_TEXT, .color = DIAG_COLOR_NEVER, .out = fopen("/dev/null", "w")};
    diag_init(&c);
}
TestSuite(expand, .init = quiet);

static Arena arena;

static IrModule *expanded(const char *text) {
    Source *src = source_new("t.qd", text, strlen(text));
    AstModule *ast = frontend_parse(src, &arena);
    cr_assert(ast, "parse failed:\n%s", text);
    IrModule *m = frontend_check(ast, &arena);
    cr_assert(m, "check failed:\n%s", text);
    ir_expand_module(m, &arena);
    return m; /* src is referenced by the IR spans: leaked with the test process */
}

/* The n-th store (program order, nested blocks included) of a block, or NULL. */
static IrStmt *nth_store(IrBlock *b, int *n) {
    for (int i = 0; i < b->n; i++) {
        IrStmt *s = b->stmts[i], *r = NULL;
        if (s->kind == IR_STORE && (*n)-- == 0) return s;
        if (s->kind == IR_IF) r = nth_store(&s->if_.then, n), r = r ? r : nth_store(&s->if_.els, n);
        if (s->kind == IR_WHILE) r = nth_store(&s->while_.body, n);
        if (s->kind == IR_FOR) r = nth_store(&s->for_.body, n);
        if (r) return r;
    }
    return NULL;
}

static IrRef *store_ref(IrModule *m, int task, int n) {
    IrStmt *s = nth_store(&m->kernels[0].tasks[task].body, &n);
    cr_assert(s, "no store %d in task %d", n, task);
    return s->store.ref;
}

static bool is_op(const IrExpr *e, IrBinOp op) { return e->kind == IR_BINARY && e->bin.op == op && e->type == QT_I64; }
static bool is_cast_of(const IrExpr *e, const IrExpr *of) { return e->kind == IR_CAST && e->type == QT_I64 && e->arg == of; }

Test(expand, constant_subscripts_fold_to_their_row_major_element) {
    IrModule *m = expanded("import quadrants as qd\nf = qd.field(qd.f32, shape=(3, 5, 7))\n"
                           "@qd.kernel\ndef k():\n    f[2, 3, 4] = 1.0\n    f[0, 0, 0] = 2.0\n");
    IrRef *r = store_ref(m, 0, 0);
    cr_assert_not_null(r->flat);
    cr_expect(r->flat->kind == IR_CONST && r->flat->type == QT_I64 && r->flat->c.i == (2 * 5 + 3) * 7 + 4,
              "f[2, 3, 4] is not element 95 (kind %d, value %lld)", r->flat->kind, (long long)r->flat->c.i);
    r = store_ref(m, 0, 1);
    cr_expect(r->flat && r->flat->kind == IR_CONST && r->flat->c.i == 0);
}

Test(expand, ndarray_subscripts_multiply_by_the_run_time_extents) {
    IrModule *m = expanded("import quadrants as qd\n@qd.kernel\n"
                           "def k(a: qd.types.ndarray(qd.i32, ndim=2), b: qd.types.ndarray(qd.i32, ndim=1)):\n"
                           "    for i, j in qd.ndrange(4, 6):\n        a[i, j] = 1\n        b[j] = 2\n");
    IrRef *r = store_ref(m, 0, 0);
    /* a[i, j]: (i64)i * (i64)shape(a, 1) + (i64)j */
    const IrExpr *f = r->flat;
    cr_assert(f && is_op(f, IR_ADD), "a[i, j] has no i64 sum");
    cr_expect(is_cast_of(f->bin.b, r->idx[1]), "the last subscript is not added last");
    const IrExpr *p = f->bin.a;
    cr_assert(is_op(p, IR_MUL), "no product");
    cr_expect(is_cast_of(p->bin.a, r->idx[0]), "the first subscript is not scaled");
    const IrExpr *e = p->bin.b;
    cr_expect(e->kind == IR_CAST && e->arg->kind == IR_SHAPE && e->arg->shape.param == 0 && e->arg->shape.axis == 1,
              "the first subscript is not scaled by a's extent along axis 1");
    r = store_ref(m, 0, 1);
    cr_expect(is_cast_of(r->flat, r->idx[0]), "b[j] is not the element (i64)j");
}

Test(expand, a_shared_array_and_a_0d_field) {
    IrModule *m = expanded("import quadrants as qd\ns = qd.field(qd.i32, shape=())\n@qd.kernel\ndef k():\n"
                           "    qd.loop_config(block_dim=8)\n    for i in range(8):\n"
                           "        t = qd.simt.block.SharedArray((2, 8), qd.i32)\n        t[1, i] = i\n        s[None] = 3\n");
    IrRef *r = store_ref(m, 0, 0);
    cr_assert(r->kind == IR_REF_SHARED && r->flat && is_op(r->flat, IR_ADD));
    cr_expect(r->flat->bin.a->kind == IR_CONST && r->flat->bin.a->c.i == 8, "t[1, i] does not start at element 8");
    r = store_ref(m, 0, 1);
    cr_expect(r->kind == IR_REF_FIELD && r->flat == NULL, "a 0-d field is its buffer's start");
}

Test(expand, task_extents_are_nonnegative_by_construction) {
    IrModule *m = expanded("import quadrants as qd\n@qd.kernel\n"
                           "def k(n: qd.i32, m: qd.i32, a: qd.types.ndarray(qd.i32, ndim=1)):\n"
                           "    for i in range(8):\n        a[i] = 0\n"
                           "    for i in range(n):\n        a[i] = 1\n"
                           "    for i, j in qd.ndrange(n, m):\n        a[i] = 2\n"
                           "    for i in a:\n        a[i] = 3\n");
    IrKernel *k = &m->kernels[0];
    cr_assert_eq(k->ntasks, 4);
    for (int t = 0; t < 4; t++) cr_expect(ir_nonneg(k->tasks[t].extent), "task %d's extent is not known >= 0", t);
    cr_expect(k->tasks[0].extent->kind == IR_CONST && k->tasks[0].extent->c.i == 8, "a constant extent changed");
    const IrExpr *e = k->tasks[1].extent; /* max(n, 0) from the frontend: not clamped twice */
    cr_expect(e->kind == IR_BINARY && e->bin.op == IR_MAX && e->bin.a->kind != IR_BINARY, "range(n) is clamped twice");
    e = k->tasks[2].extent; /* max(n, 0) * max(m, 0) may wrap: clamped */
    cr_expect(e->kind == IR_BINARY && e->bin.op == IR_MAX && e->bin.a->kind == IR_BINARY && e->bin.a->bin.op == IR_MUL,
              "the product of two trip counts is not clamped");
    e = k->tasks[3].extent; /* the frontend's max(shape, 0): as it was */
    cr_expect(e->kind == IR_BINARY && e->bin.op == IR_MAX && e->bin.a->kind == IR_SHAPE, "an ndarray's extent changed");
}
