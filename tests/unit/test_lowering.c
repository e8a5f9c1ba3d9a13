/* Lowering-engine decisions on hand-built IR, one assertion per database fact the backends rely on:
 * native / CAS / rewrite / plain / unsupported, orders strengthened, scopes widened, --cap gates. */
#include "harness.h"
#include "capdb/capdb_int.h"
#include "lower/lower.h"
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static CapDb *db;
static Arena arena;
static FILE *diag_sink;

static void setup(void) {
    char *dir = root_path("capability-db");
    const char *dirs[] = {dir};
    diag_sink = tmpfile();
    DiagConfig cfg = {DIAG_TEXT, DIAG_COLOR_NEVER, 0, false, diag_sink};
    diag_init(&cfg);
    db = capdb_open(dirs, 1);
    free(dir);
    cr_assert_not_null(db, "the capability database must load");
}
static void teardown(void) {
    capdb_close(db);
    arena_free(&arena);
    if (diag_sink) fclose(diag_sink);
}
TestSuite(lowering, .init = setup, .fini = teardown);

/* Everything diagnostics printed since setup. */
static char *diag_text(void) {
    fflush(diag_sink);
    long n = ftell(diag_sink);
    char *s = calloc(1, (size_t)n + 1);
    rewind(diag_sink);
    cr_assert_eq(fread(s, 1, (size_t)n, diag_sink), (size_t)n);
    return s;
}

typedef struct {
    QdOp op;
    QdType t;
    QdSpace sp;
    QdOrder ord;
    QdScope sc;
    bool used;
    bool local;
} Req;

static IrExpr *memop(Req r) {
    IrRef *ref = ARENA_NEW(&arena, IrRef);
    ref->kind = r.local ? IR_REF_LOCAL : IR_REF_FIELD;
    ref->type = r.t;
    ref->space = r.sp;
    IrExpr *e = ARENA_NEW(&arena, IrExpr);
    e->kind = IR_MEMOP;
    e->type = r.t;
    e->mem = (IrMemOp){.op = r.op, .ref = ref, .order = r.ord, .scope = r.sc, .result_used = r.used};
    return e;
}

/* Decides r on target tname with caps; returns the decision (kind LOW_UNSUPPORTED on error). */
static IrLowering decide(const char *tname, Req r, const char *cap) {
    const CapTarget *t = capdb_target(db, tname);
    cr_assert_not_null(t, "target %s", tname);
    const char *caps[1] = {cap};
    LowerOptions o = {caps, cap ? 1 : 0, false, false};
    IrExpr *e = memop(r);
    IrLowering L;
    bool ok = lower_memop(e, t, &o, &arena, &L);
    cr_assert_eq(ok, L.kind != LOW_UNSUPPORTED);
    return L;
}

#define RMW(o, ty) ((Req){QOP_##o, QT_##ty, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE, true, false})

Test(lowering, ptx_native_and_rewrites) {
    IrLowering L = decide("sm_80", RMW(ADD, F32), NULL);
    cr_assert_eq(L.kind, LOW_NATIVE);
    cr_assert_str_eq(L.spelling, "atom.add.f32");
    cr_assert_str_eq(L.reason_file, "capability-db/sm_60.yaml");
    cr_assert_gt(L.reason_line, 1);
    L = decide("a100", RMW(SUB, I32), NULL); /* no atom.sub: add of the negation */
    cr_assert_eq(L.kind, LOW_NATIVE);
    cr_assert_eq(L.op, QOP_ADD);
    cr_assert(L.negate);
    L = decide("sm_80", RMW(SUB, F64), NULL);
    cr_assert(L.kind == LOW_NATIVE && L.op == QOP_ADD && L.negate);
    L = decide("sm_80", RMW(MUL, I32), NULL);
    cr_assert_eq(L.kind, LOW_CAS_LOOP);
    L = decide("sm_80", RMW(INC, U32), NULL);
    cr_assert_eq(L.kind, LOW_NATIVE);
    cr_assert_str_eq(L.spelling, "atom.inc.u32");
    cr_assert_eq(decide("sm_80", RMW(INC, I32), NULL).kind, LOW_CAS_LOOP);
    cr_assert_eq(decide("sm_80", RMW(INC, U64), NULL).kind, LOW_CAS_LOOP);
}

Test(lowering, ptx_half_floats_by_family) {
    IrLowering L = decide("sm_80", RMW(ADD, BF16), NULL);
    cr_assert_eq(L.kind, LOW_CAS_LOOP);
    cr_assert(L.via_int, "float CAS loops compare bits");
    cr_assert_eq(decide("h100", RMW(ADD, BF16), NULL).kind, LOW_NATIVE);
    cr_assert_eq(decide("sm_60", RMW(ADD, F16), NULL).kind, LOW_CAS_LOOP);
    cr_assert_eq(decide("sm_70", RMW(ADD, F16), NULL).kind, LOW_NATIVE);
    cr_assert_eq(decide("sm_90", RMW(MAX, F32), NULL).kind, LOW_CAS_LOOP); /* no float min/max atom */
    L = decide("sm_80", RMW(EXCHANGE, F32), NULL);
    cr_assert(L.kind == LOW_NATIVE && L.via_int);
    cr_assert_str_eq(L.spelling, "atom.exch.b32");
    L = decide("sm_80", RMW(CAS, F64), NULL);
    cr_assert(L.kind == LOW_NATIVE && L.via_int);
}

/* A CAS loop's own swap: native where the database has the cas of that width (atom.cas.b16
 * from sm_70, the PTX backend's only source for it), else the backend's masked wider CAS. */
Test(lowering, ptx_loop_cas_from_the_database) {
    IrLowering L = decide("sm_80", RMW(ADD, BF16), NULL);
    cr_assert(L.kind == LOW_CAS_LOOP && L.loop_cas_native);
    L = decide("sm_60", RMW(ADD, F16), NULL);
    cr_assert(L.kind == LOW_CAS_LOOP && !L.loop_cas_native);
    L = decide("sm_70", RMW(CAS, I16), NULL);
    cr_assert_eq(L.kind, LOW_NATIVE);
    cr_assert_str_eq(L.spelling, "atom.cas.b16");
    cr_assert_eq(decide("sm_60", RMW(CAS, U16), NULL).kind, LOW_CAS_LOOP);
    L = decide("sm_90", RMW(CAS, U8), NULL);
    cr_assert(L.kind == LOW_CAS_LOOP && !L.loop_cas_native, "PTX has no 8-bit cas");
    L = decide("sm_90", RMW(MAX, F32), NULL);
    cr_assert(L.kind == LOW_CAS_LOOP && L.loop_cas_native, "atom.cas.b32 on the float's bits");
    cr_assert(!decide("sm_90", RMW(ADD, I32), NULL).loop_cas_native, "only CAS loops carry it");
}

Test(lowering, ptx_orders) {
    Req r = RMW(LOAD, I32);
    r.ord = QORD_ACQUIRE;
    IrLowering L = decide("sm_60", r, NULL); /* no ld.acquire: relaxed + membar after */
    cr_assert_eq(L.kind, LOW_NATIVE);
    cr_assert_eq(L.order, QORD_RELAXED);
    cr_assert(L.fence_after && !L.fence_before);
    cr_assert(L.flags & LOWF_MEMBAR_ORDERS);
    L = decide("sm_70", r, NULL);
    cr_assert(L.order == QORD_ACQUIRE && !L.fence_after && !(L.flags & LOWF_MEMBAR_ORDERS));
    r = RMW(ADD, I32);
    r.ord = QORD_SEQ_CST;
    L = decide("sm_70", r, NULL); /* fence.sc + atom.acq_rel */
    cr_assert(L.fence_before && !L.fence_after);
    cr_assert_eq(L.order, QORD_ACQ_REL);
    cr_assert_not_null(strstr(L.detail, "seq_cst as fence + acq_rel"));
    L = decide("sm_60", r, NULL);
    cr_assert(L.fence_before && L.fence_after && L.order == QORD_RELAXED);
}

Test(lowering, cluster_scope_only_on_sm90) {
    Req r = RMW(ADD, I32);
    r.sc = QSCOPE_CLUSTER;
    IrLowering L = decide("sm_90", r, NULL);
    cr_assert_eq(L.scope, QSCOPE_CLUSTER);
    cr_assert_eq(decide("sm_89", r, NULL).kind, LOW_UNSUPPORTED);
    cr_assert_eq(decide("gfx942", r, NULL).kind, LOW_UNSUPPORTED);
    cr_assert_eq(decide("x86_64", r, NULL).kind, LOW_UNSUPPORTED);
    cr_assert_eq(decide("vulkan1.3", r, NULL).kind, LOW_UNSUPPORTED); /* qdc-spirv(7): never widened */
    char *d = diag_text();
    cr_assert_not_null(strstr(d, "error[QD4003]: scope 'cluster' is not supported on target 'sm_89'"), "%s", d);
    cr_assert_not_null(strstr(d, "error[QD4003]: scope 'cluster' is not supported on target 'vulkan1.3'"), "%s", d);
    cr_assert_not_null(strstr(d, "targets with scope 'cluster': sm_90, sm_90a"), "%s", d);
    free(d);
}

Test(lowering, amdgpu_float_atomics_need_coarse_grained) {
    IrLowering L = decide("mi250x", RMW(ADD, F32), NULL);
    cr_assert_eq(L.kind, LOW_CAS_LOOP);
    L = decide("gfx90a", RMW(ADD, F32), "+coarse-grained-memory");
    cr_assert_eq(L.kind, LOW_NATIVE);
    cr_assert(L.flags & LOWF_UNSAFE_FP_ATOMICS);
    Req sys = RMW(ADD, F32);
    sys.sc = QSCOPE_SYSTEM;
    cr_assert_eq(decide("gfx90a", sys, "+coarse-grained-memory").kind, LOW_CAS_LOOP);
    L = decide("mi300x", sys, NULL); /* gfx942: native at every scope, no attribute */
    cr_assert(L.kind == LOW_NATIVE && !(L.flags & LOWF_UNSAFE_FP_ATOMICS));
    cr_assert_eq(decide("gfx906", RMW(ADD, F32), "+coarse-grained-memory").kind, LOW_CAS_LOOP);
    Req sh = RMW(ADD, F32);
    sh.sp = QSPACE_SHARED;
    cr_assert_eq(decide("gfx906", sh, NULL).kind, LOW_NATIVE); /* ds_add_f32 */
    cr_assert_eq(decide("gfx1030", RMW(MIN, F32), "+coarse-grained-memory").kind, LOW_NATIVE);
    cr_assert_eq(decide("gfx942", RMW(MIN, F32), "+coarse-grained-memory").kind, LOW_CAS_LOOP);
}

Test(lowering, amdgpu_int_minmax_system_scope_is_cas) {
    Req r = RMW(MIN, I32);
    cr_assert_eq(decide("gfx906", r, NULL).kind, LOW_NATIVE);
    r.sc = QSCOPE_SYSTEM;
    cr_assert_eq(decide("gfx906", r, NULL).kind, LOW_CAS_LOOP);
    r.sp = QSPACE_SHARED;
    cr_assert_eq(decide("gfx906", r, NULL).kind, LOW_NATIVE);
    r = RMW(ADD, I32);
    r.used = false;
    cr_assert(decide("gfx942", r, NULL).no_return);
}

Test(lowering, x86_truthful) {
    IrLowering L = decide("x86_64", RMW(ADD, I32), NULL);
    cr_assert_eq(L.kind, LOW_NATIVE);
    cr_assert_eq(L.scope, QSCOPE_SYSTEM); /* device widened to system */
    cr_assert_eq(decide("x86_64", RMW(ADD, F32), NULL).kind, LOW_CAS_LOOP);
    cr_assert_eq(decide("x86_64", RMW(OR, U32), NULL).kind, LOW_CAS_LOOP); /* result used */
    Req r = RMW(OR, U32);
    r.used = false;
    L = decide("x86_64", r, NULL);
    cr_assert(L.kind == LOW_NATIVE && L.no_return);
    cr_assert_eq(decide("x86_64", RMW(MAX, I64), NULL).kind, LOW_CAS_LOOP);
    cr_assert_eq(decide("x86_64-v3", RMW(ADD, BF16), NULL).kind, LOW_CAS_LOOP);
}

Test(lowering, vulkan_caps_gate_and_record) {
    cr_assert_eq(decide("vulkan1.2", RMW(ADD, I64), NULL).kind, LOW_UNSUPPORTED);
    char *d = diag_text();
    cr_assert_not_null(strstr(d, "error[QD4001]: atomic add on i64 in global memory is not supported on target 'vulkan1.2' (capability-db/vulkan1.1.yaml:"), "%s", d);
    cr_assert_not_null(strstr(d, "pass --cap=+int64-atomics"), "%s", d);
    free(d);
    IrLowering L = decide("vulkan1.2", RMW(ADD, I64), "+int64-atomics");
    cr_assert_eq(L.kind, LOW_NATIVE);
    cr_assert_eq(decide("vulkan1.2", RMW(ADD, F32), NULL).kind, LOW_CAS_LOOP);
    cr_assert_eq(decide("vulkan1.2", RMW(ADD, F32), "+float-atomic-add").kind, LOW_NATIVE);
    L = decide("vulkan1.2", RMW(SUB, F32), "+float-atomic-add");
    cr_assert(L.kind == LOW_NATIVE && L.op == QOP_ADD && L.negate);
    Req r = RMW(ADD, I32);
    r.ord = QORD_SEQ_CST;
    L = decide("vulkan1.3", r, NULL);
    cr_assert(L.order == QORD_ACQ_REL && !L.fence_before && !L.fence_after);
    cr_assert_eq(decide("vulkan1.1", RMW(INC, U32), NULL).kind, LOW_CAS_LOOP); /* bounded inc */
    r.sc = QSCOPE_SYSTEM;
    cr_assert_eq(decide("vulkan1.1", r, NULL).kind, LOW_UNSUPPORTED);
}

Test(lowering, msl_through_spirv_cross) {
    cr_assert_eq(decide("apple7", RMW(ADD, I64), NULL).kind, LOW_UNSUPPORTED);
    cr_assert_eq(decide("m3", RMW(MAX, U64), NULL).kind, LOW_UNSUPPORTED);
    cr_assert_eq(decide("apple7", RMW(ADD, F32), NULL).kind, LOW_CAS_LOOP);
    IrLowering L = decide("apple8", RMW(EXCHANGE, F32), NULL);
    cr_assert(L.kind == LOW_NATIVE && L.via_int);
    Req r = RMW(ADD, I32);
    r.ord = QORD_ACQUIRE;
    cr_assert_eq(decide("apple9", r, NULL).kind, LOW_UNSUPPORTED);
    char *d = diag_text();
    cr_assert_not_null(strstr(d, "error[QD4002]: order 'acquire' on atomic read-modify-write is not supported on target 'apple9'"), "%s", d);
    free(d);
    IrExpr *e = memop(RMW(LOAD, I32));
    e->mem.is_volatile = true;
    IrLowering L2;
    cr_assert(lower_memop(e, capdb_target(db, "apple7"), NULL, &arena, &L2));
    cr_assert(L2.flags & LOWF_VOLATILE_DECORATION);
}

Test(lowering, locals_are_plain) {
    Req r = RMW(ADD, F32);
    r.local = true;
    cr_assert_eq(decide("apple7", r, NULL).kind, LOW_PLAIN);
    r.t = QT_I64;
    cr_assert_eq(decide("apple7", r, NULL).kind, LOW_PLAIN);
}

Test(lowering, unsupported_names_families_that_have_it) {
    cr_assert_eq(decide("vulkan1.1", RMW(ADD, I8), NULL).kind, LOW_UNSUPPORTED);
    char *d = diag_text();
    cr_assert_not_null(strstr(d, "targets that support it without capabilities: sm_60, sm_70"), "%s", d);
    free(d);
}

Test(lowering, check_caps) {
    const CapTarget *t = capdb_target(db, "vulkan1.2");
    const char *good[] = {"+int64-atomics", "-float-atomic-add"};
    LowerOptions o = {good, 2, false, false};
    cr_assert(lower_check_caps(t, &o));
    const char *bad[] = {"+coarse-grained-memory"};
    LowerOptions ob = {bad, 1, false, false};
    cr_assert_not(lower_check_caps(t, &ob));
    char *d = diag_text();
    cr_assert_not_null(strstr(d, "error[QD3010]: unknown capability '+coarse-grained-memory' for target 'vulkan1.2'"), "%s", d);
    free(d);
}
