/* The LLVM core and x86-64 backend on IR built by hand (independent of the frontend and the
 * lowering engine): the object links with libqdrt and a C host and gives exact results on
 * 1/2/4/8 threads; the assembly has the instructions the decisions ask for; header and
 * metadata are what qdc-abi(7) says. */
#include "hand_lowering.h"
#include "../../lower/lower.h"
#include "../../targets/target.h"
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static Arena A;

static IrExpr *ex(IrExprKind k, QdType t) {
    IrExpr *e = ARENA_NEW(&A, IrExpr);
    e->kind = k, e->type = t;
    return e;
}
static IrExpr *ci32(int v) { IrExpr *e = ex(IR_CONST, QT_I32); e->c.i = v; return e; }
static IrExpr *loc(int l, QdType t) { IrExpr *e = ex(IR_LOCAL, t); e->local = l; return e; }
static IrExpr *shape(int p) { IrExpr *e = ex(IR_SHAPE, QT_I32); e->shape.param = p; return e; }
static IrRef *ref(IrRefKind k, int index, QdType t, IrExpr *idx) {
    IrRef *r = ARENA_NEW(&A, IrRef);
    r->kind = k, r->index = index, r->type = t, r->space = QSPACE_GLOBAL;
    if (idx) {
        r->idx = ARENA_ARRAY(&A, IrExpr *, 1);
        r->idx[0] = idx;
        r->nidx = 1;
    }
    return r;
}
static IrExpr *load(IrRef *r) { IrExpr *e = ex(IR_LOAD, r->type); e->ref = r; return e; }
static IrExpr *bin(IrBinOp op, QdType t, IrExpr *a, IrExpr *b) {
    IrExpr *e = ex(IR_BINARY, t);
    e->bin.op = op, e->bin.a = a, e->bin.b = b;
    return e;
}
static IrExpr *cast(QdType t, IrExpr *a) { IrExpr *e = ex(IR_CAST, t); e->arg = a; return e; }
static IrExpr *memop(QdOp op, IrRef *r, IrExpr *val, IrLowKind kind, bool used) {
    IrExpr *e = ex(IR_MEMOP, r->type);
    IrMemOp *m = &e->mem;
    m->op = op, m->ref = r, m->val = val, m->result_used = used;
    IrLowering low = {.kind = kind, .op = op, .order = QORD_RELAXED, .scope = QSCOPE_DEVICE};
    low.via_int = kind == LOW_CAS_LOOP && qt_is_float(r->type);
    low.no_return = !used && kind == LOW_NATIVE;
    hand_decide(e, low);
    return e;
}
static IrStmt *st(IrStmtKind k) { IrStmt *s = ARENA_NEW(&A, IrStmt); s->kind = k; return s; }
static IrStmt *eval(IrExpr *e) { IrStmt *s = st(IR_EVAL); s->eval = e; return s; }
static IrStmt *assign(int l, IrExpr *v) { IrStmt *s = st(IR_ASSIGN); s->assign.local = l, s->assign.value = v; return s; }
static IrStmt *store(IrRef *r, IrExpr *v) { IrStmt *s = st(IR_STORE); s->store.ref = r, s->store.value = v; return s; }
static IrBlock blk(int n, IrStmt **s) {
    IrBlock b = {ARENA_ARRAY(&A, IrStmt *, n), n};
    memcpy(b.stmts, s, sizeof(IrStmt *) * (size_t)n);
    return b;
}
static void field(IrField *f, const char *name, QdType t, int64_t n) {
    f->name = name, f->type = t, f->ndim = n ? 1 : 0, f->shape[0] = n, f->elems = n ? n : 1;
}

enum { F_COUNTS, F_FSUM, F_MX, F_TICK, F_TWICE, NFIELDS };

/* kernel hist(data: ndarray[i32,1], perm: ndarray[i32,1]):
 *   for i in range(data.shape[0]):            # task 0
 *       counts[data[i] & 15] += 1              # native, result unused
 *       atomic_add(fsum, f32(data[i] & 3))     # CAS loop on the u32 bits
 *       atomic_max(mx, data[i])                # CAS loop
 *       t = atomic_add(tick, 1); perm[t] = i   # native, result used
 *   twice = fsum * 2                           # task 1 (serial) */
static IrModule *hist_module(void) {
    IrModule *m = ARENA_NEW(&A, IrModule);
    m->fields = ARENA_ARRAY(&A, IrField, NFIELDS);
    m->nfields = NFIELDS;
    field(&m->fields[F_COUNTS], "counts", QT_I32, 16);
    field(&m->fields[F_FSUM], "fsum", QT_F32, 0);
    field(&m->fields[F_MX], "mx", QT_I32, 0);
    field(&m->fields[F_TICK], "tick", QT_I32, 0);
    field(&m->fields[F_TWICE], "twice", QT_F32, 0);
    IrKernel *k = m->kernels = ARENA_NEW(&A, IrKernel);
    m->nkernels = 1;
    k->name = "hist";
    k->params = ARENA_ARRAY(&A, IrParam, 2);
    k->nparams = 2;
    k->params[0] = (IrParam){.name = "data", .kind = IR_PARAM_NDARRAY, .type = QT_I32, .ndim = 1};
    k->params[1] = (IrParam){.name = "perm", .kind = IR_PARAM_NDARRAY, .type = QT_I32, .ndim = 1};
    k->locals = ARENA_ARRAY(&A, IrLocal, 2);
    k->nlocals = 2;
    k->locals[0] = (IrLocal){"i", QT_I32};
    k->locals[1] = (IrLocal){"t", QT_I32};
    k->tasks = ARENA_ARRAY(&A, IrTask, 2);
    k->ntasks = 2;
    IrExpr *di = load(ref(IR_REF_NDARRAY, 0, QT_I32, loc(0, QT_I32)));
    IrStmt *body[] = {
        eval(memop(QOP_ADD, ref(IR_REF_FIELD, F_COUNTS, QT_I32, bin(IR_AND, QT_I32, di, ci32(15))), ci32(1), LOW_NATIVE, false)),
        eval(memop(QOP_ADD, ref(IR_REF_FIELD, F_FSUM, QT_F32, NULL), cast(QT_F32, bin(IR_AND, QT_I32, di, ci32(3))), LOW_CAS_LOOP, false)),
        eval(memop(QOP_MAX, ref(IR_REF_FIELD, F_MX, QT_I32, NULL), di, LOW_CAS_LOOP, false)),
        assign(1, memop(QOP_ADD, ref(IR_REF_FIELD, F_TICK, QT_I32, NULL), ci32(1), LOW_NATIVE, true)),
        store(ref(IR_REF_NDARRAY, 1, QT_I32, loc(1, QT_I32)), loc(0, QT_I32)),
    };
    k->tasks[0] = (IrTask){.kind = IR_TASK_PARALLEL, .name = "hist_t0", .extent = shape(0), .index_local = 0,
                           .body = blk(5, body)};
    IrExpr *two = ex(IR_CONST, QT_F32);
    two->c.f = 2.0;
    IrStmt *serial[] = {store(ref(IR_REF_FIELD, F_TWICE, QT_F32, NULL),
                              bin(IR_MUL, QT_F32, load(ref(IR_REF_FIELD, F_FSUM, QT_F32, NULL)), two))};
    k->tasks[1] = (IrTask){.kind = IR_TASK_SERIAL, .name = "hist_t1", .body = blk(1, serial)};
    return m;
}

/* Only the x86_64 family file is loaded (the other families are not this test's business);
 * a minimal one stands in while the database has none. */
static const char *const x86_min_yaml =
    "schema: 1\nname: x86_64\nrank: 900\nbackend: x86_64\ndescription: \"x86-64 CPU\"\n"
    "output:\n  kind: obj\n  extension: \".o\"\n"
    "llvm:\n  triple: x86_64-pc-linux-gnu\n  cpu: x86-64\n  features: \"\"\n";

/* kernel rev(data, out) with loop_config(block_dim=64):
 *   for i in range(data.shape[0]):
 *       sh = SharedArray((64,), i32); t = thread_idx()
 *       sh[t] = data[i]; block.sync(); out[i] = sh[63 - t]
 * Without a real barrier lane 0 would read slots the other lanes have not written yet. */
static IrModule *block_module(void) {
    IrModule *m = ARENA_NEW(&A, IrModule);
    IrKernel *k = m->kernels = ARENA_NEW(&A, IrKernel);
    m->nkernels = 1;
    k->name = "rev";
    k->params = ARENA_ARRAY(&A, IrParam, 2);
    k->nparams = 2;
    k->params[0] = (IrParam){.name = "data", .kind = IR_PARAM_NDARRAY, .type = QT_I32, .ndim = 1};
    k->params[1] = (IrParam){.name = "out", .kind = IR_PARAM_NDARRAY, .type = QT_I32, .ndim = 1};
    k->locals = ARENA_ARRAY(&A, IrLocal, 2);
    k->nlocals = 2;
    k->locals[0] = (IrLocal){"i", QT_I32};
    k->locals[1] = (IrLocal){"t", QT_I32};
    k->shared = ARENA_NEW(&A, IrShared);
    k->nshared = 1;
    *k->shared = (IrShared){.name = "sh", .type = QT_I32, .ndim = 1, .shape = {64}, .elems = 64, .task = 0};
    IrRef *slot = ref(IR_REF_SHARED, 0, QT_I32, loc(1, QT_I32));
    slot->space = QSPACE_SHARED;
    IrRef *mirror = ref(IR_REF_SHARED, 0, QT_I32, bin(IR_SUB, QT_I32, ci32(63), loc(1, QT_I32)));
    mirror->space = QSPACE_SHARED;
    IrStmt *body[] = {
        assign(1, ex(IR_THREAD_IDX, QT_I32)),
        store(slot, load(ref(IR_REF_NDARRAY, 0, QT_I32, loc(0, QT_I32)))),
        st(IR_BARRIER),
        store(ref(IR_REF_NDARRAY, 1, QT_I32, loc(0, QT_I32)), load(mirror)),
    };
    k->tasks = ARENA_NEW(&A, IrTask);
    k->ntasks = 1;
    k->tasks[0] = (IrTask){.kind = IR_TASK_PARALLEL, .name = "rev_t0", .extent = shape(0), .index_local = 0,
                           .block_dim = 64, .uses_block = true, .body = blk(4, body)};
    return m;
}

/* kernel claim(data): for i: t = atomic_cas(claim, 0, i + 1) as a CAS loop (how a target
 * without a native swap of that width does it); if t == 0: winners += 1. Exactly one wins. */
static IrModule *claim_module(void) {
    IrModule *m = ARENA_NEW(&A, IrModule);
    m->fields = ARENA_ARRAY(&A, IrField, 2);
    m->nfields = 2;
    field(&m->fields[0], "claim", QT_I32, 0);
    field(&m->fields[1], "winners", QT_I32, 0);
    IrKernel *k = m->kernels = ARENA_NEW(&A, IrKernel);
    m->nkernels = 1;
    k->name = "claim";
    k->params = ARENA_NEW(&A, IrParam);
    k->nparams = 1;
    k->params[0] = (IrParam){.name = "data", .kind = IR_PARAM_NDARRAY, .type = QT_I32, .ndim = 1};
    k->locals = ARENA_ARRAY(&A, IrLocal, 2);
    k->nlocals = 2;
    k->locals[0] = (IrLocal){"i", QT_I32};
    k->locals[1] = (IrLocal){"t", QT_I32};
    IrExpr *cas = memop(QOP_CAS, ref(IR_REF_FIELD, 0, QT_I32, NULL), ci32(0), LOW_CAS_LOOP, true);
    cas->mem.val2 = bin(IR_ADD, QT_I32, loc(0, QT_I32), ci32(1));
    IrStmt *win[] = {eval(memop(QOP_ADD, ref(IR_REF_FIELD, 1, QT_I32, NULL), ci32(1), LOW_NATIVE, false))};
    IrStmt *cond = st(IR_IF);
    cond->if_.cond = bin(IR_EQ, QT_U1, loc(1, QT_I32), ci32(0));
    cond->if_.then = blk(1, win);
    IrStmt *body[] = {assign(1, cas), cond};
    k->tasks = ARENA_NEW(&A, IrTask);
    k->ntasks = 1;
    k->tasks[0] = (IrTask){.kind = IR_TASK_PARALLEL, .name = "claim_t0", .extent = shape(0), .index_local = 0,
                           .body = blk(2, body)};
    return m;
}

static const CapTarget *x86_target(CapDb **db, char **tmp) {
    DiagConfig dc = {.format = DIAG_TEXT, .color = DIAG_COLOR_NEVER, .out = stderr};
    diag_init(&dc);
    *tmp = make_temp_dir();
    char *src = root_path("capability-db/x86_64.yaml"), *dst = NULL;
    cr_assert(asprintf(&dst, "%s/x86_64.yaml", *tmp) > 0);
    char *text = read_text(src, NULL);
    write_text(dst, text ? text : x86_min_yaml);
    free(text), free(src), free(dst);
    const char *dirs[] = {*tmp};
    *db = capdb_open(dirs, 1);
    cr_assert(*db, "capability database failed to load");
    const CapTarget *t = capdb_target(*db, "x86_64");
    cr_assert(t, "no x86_64 family");
    return t;
}

static char *emit_module(IrModule *m, const char *name, EmitKind kind, size_t *len) {
    CapDb *db;
    char *tmp;
    const CapTarget *t = x86_target(&db, &tmp);
    TargetOptions o = {.emit = kind, .opt_level = 2, .module_name = name};
    StrBuf out;
    sb_init(&out);
    ir_expand_module(m, &A); /* what the driver runs before every backend */
    cr_assert(backend_llvm_emit(m, hand_lowered(), t, &o, &out));
    capdb_close(db);
    remove_tree(tmp);
    free(tmp);
    if (len) *len = out.len;
    return sb_take(&out);
}

static char *emit(EmitKind kind, size_t *len) { return emit_module(hist_module(), "hist", kind, len); }

static void write_bytes(const char *dir, const char *name, const char *data, size_t len) {
    char *p = NULL;
    cr_assert(asprintf(&p, "%s/%s", dir, name) > 0);
    FILE *f = fopen(p, "wb");
    cr_assert(f && fwrite(data, 1, len, f) == len);
    fclose(f);
    free(p);
}

static const char *const hist_host =
    "#include \"hist.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = argc > 1 ? atoi(argv[1]) : 1, n = 1 << 20;\n"
    "    int32_t *data = malloc(sizeof(int32_t) * n), *perm = malloc(sizeof(int32_t) * n);\n"
    "    char *seen = calloc(n, 1);\n"
    "    for (int i = 0; i < n; i++) data[i] = i, perm[i] = -1;\n"
    "    hist_args a = {data, {n}, perm, {n}};\n"
    "    if (hist(&a, nt)) return 2;\n"
    "    int bad = 0;\n"
    "    for (int b = 0; b < 16; b++) bad += qd_field_counts[b] != n / 16;\n"
    "    for (int i = 0; i < n; i++) { if (perm[i] < 0 || perm[i] >= n || seen[perm[i]]) bad++; else seen[perm[i]] = 1; }\n"
    "    printf(\"bad=%d fsum=%.1f mx=%d tick=%d twice=%.1f\\n\", bad, qd_field_fsum, qd_field_mx, qd_field_tick, qd_field_twice);\n"
    "    free(data), free(perm), free(seen);\n"
    "    return 0;\n}\n";

Test(x86_ir, runs_exactly_on_1_2_4_8_threads) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir();
    size_t olen;
    char *obj = emit(EMIT_OBJ, &olen), *hdr = emit(EMIT_HEADER, NULL);
    write_bytes(dir, "hist.o", obj, olen);
    write_bytes(dir, "hist.h", hdr, strlen(hdr));
    const char *objs[] = {"hist.o", NULL};
    cr_assert(x86_build_host(dir, hist_host, objs));
    const char *threads[] = {"1", "2", "4", "8"};
    for (int i = 0; i < 4; i++) {
        RunResult r = x86_run_host(dir, threads[i], NULL, NULL);
        cr_expect_eq(r.status, 0, "threads=%s: %s", threads[i], r.err);
        cr_expect_str_eq(r.out, "bad=0 fsum=1572864.0 mx=1048575 tick=1048576 twice=3145728.0\n", "threads=%s", threads[i]);
        run_free(&r);
    }
    free(obj), free(hdr);
    remove_tree(dir);
    free(dir);
}

Test(x86_ir, asm_has_lock_add_xadd_and_cmpxchg_loops) {
    char *s = emit(EMIT_ASM, NULL);
    if (getenv("QDC_X86_DUMP")) fputs(s, stderr);
    cr_expect(strstr(s, "lock\t\tincl") || strstr(s, "lock\t\taddl") || strstr(s, "lock\taddl") || strstr(s, "lock\tincl"),
              "no lock add/inc for the unused add:\n%s", s);
    cr_expect(strstr(s, "xaddl"), "no lock xadd for the used add");
    cr_expect(strstr(s, "cmpxchgl"), "no cmpxchg loop for f32 add / i32 max");
    cr_expect(strstr(s, "hist_t0_extent:"), "no extent function");
    free(s);
}

Test(x86_ir, header_declares_abi) {
    char *h = emit(EMIT_HEADER, NULL);
    cr_expect(strstr(h, "typedef struct hist_args {\n    int32_t *data; /* ndarray[i32, 1] */\n    int32_t data_shape[1];\n"));
    cr_expect(strstr(h, "extern int32_t qd_field_counts[16];\n"));
    cr_expect(strstr(h, "extern float qd_field_fsum;\n"));
    cr_expect(strstr(h, "static inline int hist(const hist_args *args, int nthreads) {\n"));
    cr_expect(strstr(h, "{hist_t1, 0, QDRT_SERIAL,"));
    free(h);
}

Test(x86_ir, metadata_lists_kernels_tasks_params) {
    char *j = emit(EMIT_METADATA, NULL);
    cr_expect(strstr(j, "\"target\": \"x86_64\""), "%s", j);
    cr_expect(strstr(j, "{\"name\": \"data\", \"kind\": \"ndarray\", \"dtype\": \"i32\", \"ndim\": 1}"), "%s", j);
    cr_expect(strstr(j, "{\"name\": \"hist_t1\", \"kind\": \"serial\""), "%s", j);
    cr_expect(strstr(j, "\"symbol\": \"qd_field_counts\", \"dtype\": \"i32\", \"shape\": [16]"), "%s", j);
    free(j);
}

static const char *const rev_host =
    "#include \"rev.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = argc > 1 ? atoi(argv[1]) : 1, n = 64 * 1024, bad = 0;\n"
    "    int32_t *data = malloc(sizeof(int32_t) * n), *out = calloc(n, sizeof(int32_t));\n"
    "    for (int i = 0; i < n; i++) data[i] = i * 7 + 1;\n"
    "    rev_args a = {data, {n}, out, {n}};\n"
    "    if (rev(&a, nt)) return 2;\n"
    "    for (int i = 0; i < n; i++) bad += out[i] != data[i / 64 * 64 + 63 - i % 64];\n"
    "    printf(\"bad=%d\\n\", bad);\n"
    "    free(data), free(out);\n"
    "    return 0;\n}\n";

Test(x86_ir, block_lanes_meet_at_sync_with_shared_memory) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir();
    size_t olen;
    char *obj = emit_module(block_module(), "rev", EMIT_OBJ, &olen), *hdr = emit_module(block_module(), "rev", EMIT_HEADER, NULL);
    cr_expect(strstr(hdr, "{rev_t0, rev_t0_extent, QDRT_BLOCK, 64, 256},"), "%s", hdr);
    write_bytes(dir, "rev.o", obj, olen);
    write_bytes(dir, "rev.h", hdr, strlen(hdr));
    const char *objs[] = {"rev.o", NULL};
    cr_assert(x86_build_host(dir, rev_host, objs));
    const char *threads[] = {"1", "2", "4", "8"};
    for (int i = 0; i < 4; i++) {
        RunResult r = x86_run_host(dir, threads[i], NULL, NULL);
        cr_expect_eq(r.status, 0, "threads=%s: %s", threads[i], r.err);
        cr_expect_str_eq(r.out, "bad=0\n", "threads=%s", threads[i]);
        run_free(&r);
    }
    free(obj), free(hdr);
    remove_tree(dir);
    free(dir);
}

static const char *const claim_host =
    "#include \"claim.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = argc > 1 ? atoi(argv[1]) : 1, n = 1 << 20;\n"
    "    int32_t *data = calloc(n, sizeof(int32_t));\n"
    "    claim_args a = {data, {n}};\n"
    "    if (claim(&a, nt)) return 2;\n"
    "    printf(\"winners=%d claimed=%d\\n\", qd_field_winners, qd_field_claim >= 1 && qd_field_claim <= n);\n"
    "    free(data);\n"
    "    return 0;\n}\n";

Test(x86_ir, cas_as_a_loop_has_exactly_one_winner) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir();
    size_t olen;
    char *obj = emit_module(claim_module(), "claim", EMIT_OBJ, &olen), *hdr = emit_module(claim_module(), "claim", EMIT_HEADER, NULL);
    write_bytes(dir, "claim.o", obj, olen);
    write_bytes(dir, "claim.h", hdr, strlen(hdr));
    const char *objs[] = {"claim.o", NULL};
    cr_assert(x86_build_host(dir, claim_host, objs));
    const char *threads[] = {"1", "2", "4", "8"};
    for (int i = 0; i < 4; i++) {
        RunResult r = x86_run_host(dir, threads[i], NULL, NULL);
        cr_expect_eq(r.status, 0, "threads=%s: %s", threads[i], r.err);
        cr_expect_str_eq(r.out, "winners=1 claimed=1\n", "threads=%s", threads[i]);
        run_free(&r);
    }
    free(obj), free(hdr);
    remove_tree(dir);
    free(dir);
}
