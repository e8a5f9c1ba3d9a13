/* The IR -> SPIR-V module: types and constants, the binding layout, resource variables,
 * built-ins, one GLCompute entry point per task, and in-process validation. */
#include "spvgen.h"
#include "spvtools.h"
#include <stdarg.h>
#include <string.h>

bool g_fail(SpvGen *g, Span sp, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    StrBuf msg;
    sb_init(&msg);
    sb_vprintf(&msg, fmt, ap);
    va_end(ap);
    if (g->ok) diag_error(sp, QD5101, "%s", msg.data);
    sb_free(&msg);
    g->ok = false;
    return false;
}

/* ---- layout ---- */
QdType spv_push_type(QdType t) {
    if (t == QT_F16) return QT_F32;
    if (t == QT_U1 || t == QT_U8 || t == QT_U16) return QT_U32;
    if (t == QT_I8 || t == QT_I16) return QT_I32;
    return t;
}

static void push_member(SpvLayout *l, int param, int axis, QdType t) {
    uint32_t size = (uint32_t)qt_bits(t) / 8;
    uint32_t off = (l->push_size + size - 1) / size * size;
    l->push[l->npush++] = (SpvPushMember){param, axis, t, off};
    l->push_size = off + size;
}

void spv_layout_kernel(const IrKernel *k, int max_push, SpvLayout *l) {
    memset(l, 0, sizeof *l);
    int n = 0;
    for (int i = 0; i < k->nparams; i++) n += k->params[i].kind == IR_PARAM_SCALAR ? 1 : k->params[i].ndim;
    l->push = xcalloc((size_t)n + 1, sizeof *l->push);
    l->binding = xcalloc((size_t)k->nparams + 1, sizeof *l->binding);
    for (int i = 0; i < k->nparams; i++) {
        bool scalar = k->params[i].kind == IR_PARAM_SCALAR;
        l->binding[i] = scalar ? -1 : l->nndarray++;
        if (scalar) push_member(l, i, -1, spv_push_type(k->params[i].type));
    }
    for (int i = 0; i < k->nparams; i++)
        for (int a = 0; k->params[i].kind == IR_PARAM_NDARRAY && a < k->params[i].ndim; a++)
            push_member(l, i, a, QT_I32);
    l->args_binding = max_push > 0 && l->push_size > (uint32_t)max_push ? l->nndarray : -1;
}

void spv_layout_free(SpvLayout *l) {
    free(l->push);
    free(l->binding);
    memset(l, 0, sizeof *l);
}

/* ---- types and constants ---- */
static void int_caps(SpvGen *g, int bits) {
    if (bits == 8) spv_cap(&g->b, SpvCapabilityInt8);
    if (bits == 16) spv_cap(&g->b, SpvCapabilityInt16);
    if (bits == 64) spv_cap(&g->b, SpvCapabilityInt64);
}

uint32_t g_ty(SpvGen *g, QdType t) {
    int bits = qt_bits(t);
    switch (qt_kind(t)) {
    case K_VOID: return spv_type0(&g->b, SpvOpTypeVoid);
    case K_BOOL: return spv_type0(&g->b, SpvOpTypeBool);
    case K_SINT:
    case K_UINT:
        int_caps(g, bits);
        return SPV_TYPE(&g->b, SpvOpTypeInt, (uint32_t)bits, qt_kind(t) == K_SINT);
    case K_FLOAT:
        if (t == QT_BF16) die("bf16 reached the SPIR-V type mapper");
        if (bits == 16) spv_cap(&g->b, SpvCapabilityFloat16);
        if (bits == 64) spv_cap(&g->b, SpvCapabilityFloat64);
        return SPV_TYPE(&g->b, SpvOpTypeFloat, (uint32_t)bits);
    }
    unreachable();
}

/* Element type in memory: u1 is a byte; a float in an integer view is the same-width uint; a
 * 16-bit element in the wide view a u32 word. */
uint32_t g_ty_store(SpvGen *g, QdType t, int view) {
    if (view == VIEW_WIDE && qt_bits(t) < 32) return g_ty(g, QT_U32);
    if (t == QT_U1) return g_ty(g, QT_U8);
    if (view == VIEW_INT && qt_is_float(t)) return g_ty(g, qt_uint_same_width(t));
    return g_ty(g, t);
}

uint32_t g_ptr(SpvGen *g, SpvStorageClass sc, uint32_t ty) { return SPV_TYPE(&g->b, SpvOpTypePointer, sc, ty); }

uint32_t g_const(SpvGen *g, QdType t, uint64_t bits) {
    uint32_t ty = g_ty(g, t);
    if (t == QT_U1) return spv_cons(&g->b, bits ? SpvOpConstantTrue : SpvOpConstantFalse, &ty, 1, NULL);
    int w = qt_bits(t);
    if (w < 32 && qt_kind(t) == K_SINT) bits = (uint64_t)(uint32_t)(int32_t)((int64_t)(bits << (64 - w)) >> (64 - w));
    else if (w < 64) bits &= (1ull << w) - 1;
    uint32_t words[3] = {ty, (uint32_t)bits, (uint32_t)(bits >> 32)};
    return spv_cons(&g->b, SpvOpConstant, words, w == 64 ? 3 : 2, NULL);
}

static uint64_t float_bits(QdType t, double f) {
    if (t == QT_F64) { uint64_t u; memcpy(&u, &f, 8); return u; }
    if (t == QT_F32) { float x = (float)f; uint32_t u; memcpy(&u, &x, 4); return u; }
    _Float16 h = (_Float16)f;
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
}

/* A constant of type t holding the number (f for floats, i otherwise). */
uint32_t g_const_num(SpvGen *g, QdType t, double f, int64_t i) {
    if (qt_is_float(t)) return g_const(g, t, float_bits(t, f));
    return g_const(g, t, (uint64_t)i);
}

uint32_t g_u32(SpvGen *g, uint32_t v) { return g_const(g, QT_U32, v); }
uint32_t g_i32(SpvGen *g, int32_t v) { return g_const(g, QT_I32, (uint64_t)(uint32_t)v); }

static void name(SpvGen *g, uint32_t id, const char *s) { spv_inst_str(&g->b, SPV_SEC_DEBUG, SpvOpName, &id, 1, s, NULL, 0); }

/* ---- resources ---- */
void g_use(SpvGen *g, uint32_t var) {
    for (int i = 0; i < g->iface.len; i++)
        if (g->iface.items[i] == var) return;
    vec_push(&g->iface, var);
}

static void storage_caps(SpvGen *g, int bits, SpvStorageClass sc) {
    if (sc != SpvStorageClassStorageBuffer) return;
    if (bits == 8) {
        spv_cap(&g->b, SpvCapabilityStorageBuffer8BitAccess);
        if (g->t->minor < 5) spv_ext(&g->b, "SPV_KHR_8bit_storage");
    }
    if (bits == 16) spv_cap(&g->b, SpvCapabilityStorageBuffer16BitAccess);
}

/* struct { elem data[]; } in StorageBuffer, decorated once per element type. */
static uint32_t buffer_type(SpvGen *g, QdType t, int view) {
    uint32_t elem = g_ty_store(g, t, view);
    int bits = t == QT_U1 ? 8 : qt_bits(t);
    storage_caps(g, bits, SpvStorageClassStorageBuffer);
    bool fresh;
    uint32_t rta = spv_cons(&g->b, SpvOpTypeRuntimeArray, &elem, 1, &fresh);
    if (fresh) SPV_OP(&g->b, SPV_SEC_ANNOT, SpvOpDecorate, rta, SpvDecorationArrayStride, (uint32_t)bits / 8);
    uint32_t st = spv_cons(&g->b, SpvOpTypeStruct, &rta, 1, &fresh);
    if (fresh) {
        SPV_OP(&g->b, SPV_SEC_ANNOT, SpvOpDecorate, st, SpvDecorationBlock);
        SPV_OP(&g->b, SPV_SEC_ANNOT, SpvOpMemberDecorate, st, 0, SpvDecorationOffset, 0);
        uint32_t mw[2] = {st, 0};
        spv_inst_str(&g->b, SPV_SEC_DEBUG, SpvOpMemberName, mw, 2, "data", NULL, 0);
        char *n = xasprintf("%sbuf_%s", g->prefix, view == VIEW_INT && qt_is_float(t) ? qt_name(qt_uint_same_width(t)) : qt_name(t));
        name(g, st, n);
        free(n);
    }
    return g_ptr(g, SpvStorageClassStorageBuffer, st);
}

static uint32_t global_var(SpvGen *g, uint32_t ptr, SpvStorageClass sc, const char *nm) {
    uint32_t v = spv_id(&g->b);
    SPV_OP(&g->b, SPV_SEC_GLOBAL, SpvOpVariable, ptr, v, sc);
    name(g, v, nm);
    return v;
}

static uint32_t buffer_var(SpvGen *g, QdType t, int view, uint32_t set, uint32_t binding, const char *nm) {
    uint32_t v = global_var(g, buffer_type(g, t, view), SpvStorageClassStorageBuffer, nm);
    SPV_OP(&g->b, SPV_SEC_ANNOT, SpvOpDecorate, v, SpvDecorationDescriptorSet, set);
    SPV_OP(&g->b, SPV_SEC_ANNOT, SpvOpDecorate, v, SpvDecorationBinding, binding);
    return v;
}

static uint32_t shared_var(SpvGen *g, const IrShared *s, int view) {
    uint32_t elem = g_ty_store(g, s->type, view);
    uint32_t arr = SPV_TYPE(&g->b, SpvOpTypeArray, elem, g_u32(g, (uint32_t)s->elems));
    return global_var(g, g_ptr(g, SpvStorageClassWorkgroup, arr), SpvStorageClassWorkgroup, s->name);
}

SpvRes *g_res(SpvGen *g, const IrRef *r) {
    switch (r->kind) {
    case IR_REF_FIELD: return &g->fields[r->index];
    case IR_REF_NDARRAY: return &g->nd[r->index];
    case IR_REF_SHARED: return &g->shared[r->index];
    case IR_REF_LOCAL: return NULL;
    }
    unreachable();
}

/* The variable for a resource in a view, declared on first use. */
uint32_t g_res_var(SpvGen *g, const IrRef *r, int view) {
    SpvRes *res = g_res(g, r);
    if (r->kind == IR_REF_SHARED && res->need_int && res->need_float && !res->wide)
        die("shared array '%s' needs both float and integer views", g->k->shared[r->index].name);
    if (r->kind == IR_REF_SHARED && res->wide != (view == VIEW_WIDE))
        die("shared array '%s' accessed in view %d (widened: %d)", g->k->shared[r->index].name, view, (int)res->wide);
    bool buffer = r->kind == IR_REF_FIELD || r->kind == IR_REF_NDARRAY;
    if (!res->var[view]) {
        if (r->kind == IR_REF_FIELD) {
            const IrField *f = &g->m->fields[r->index];
            res->var[view] = buffer_var(g, f->type, view, SPV_SET_FIELD, (uint32_t)r->index, f->name);
        } else if (r->kind == IR_REF_NDARRAY) {
            const IrParam *p = &g->k->params[r->index];
            res->var[view] = buffer_var(g, p->type, view, SPV_SET_NDARRAY, (uint32_t)g->lay.binding[r->index], p->name);
        } else {
            res->var[view] = shared_var(g, &g->k->shared[r->index], view);
        }
    }
    /* GLSL450: a buffer that is not Coherent may be cached per invocation, so data published
     * through a fence or an ordered atomic would not be visible to another workgroup. Not for
     * MSL: SPIRV-Cross 2021 spells Coherent as volatile; qdc's completion step writes MSL 3.2's
     * coherent(device) on the buffers that need it (mslemit.c). */
    if (buffer && g->publishes && !g->t->for_msl && !res->coherent[view]) {
        SPV_OP(&g->b, SPV_SEC_ANNOT, SpvOpDecorate, res->var[view], SpvDecorationCoherent);
        res->coherent[view] = true;
    }
    g_use(g, res->var[view]);
    return res->var[view];
}

static SpvStorageClass push_class(const SpvGen *g) {
    return g->lay.args_binding >= 0 ? SpvStorageClassStorageBuffer : SpvStorageClassPushConstant;
}

static uint32_t push_block(SpvGen *g) {
    if (g->push_var) return g->push_var;
    uint32_t *mt = xcalloc((size_t)g->lay.npush + 1, sizeof *mt);
    for (int i = 0; i < g->lay.npush; i++) mt[i] = g_ty(g, g->lay.push[i].type);
    bool fresh;
    uint32_t st = spv_cons(&g->b, SpvOpTypeStruct, mt, g->lay.npush, &fresh);
    free(mt);
    if (fresh) {
        SPV_OP(&g->b, SPV_SEC_ANNOT, SpvOpDecorate, st, SpvDecorationBlock);
        for (int i = 0; i < g->lay.npush; i++) {
            const SpvPushMember *pm = &g->lay.push[i];
            SPV_OP(&g->b, SPV_SEC_ANNOT, SpvOpMemberDecorate, st, (uint32_t)i, SpvDecorationOffset, pm->offset);
            char *mn = pm->axis < 0 ? xasprintf("%s", g->k->params[pm->param].name)
                                    : xasprintf("%s_shape%d", g->k->params[pm->param].name, pm->axis);
            spv_inst_str(&g->b, SPV_SEC_DEBUG, SpvOpMemberName, (uint32_t[]){st, (uint32_t)i}, 2, mn, NULL, 0);
            free(mn);
        }
        char *n = xasprintf("%sargs_%s", g->prefix, g->k->name);
        name(g, st, n);
        free(n);
    }
    SpvStorageClass sc = push_class(g);
    g->push_var = global_var(g, g_ptr(g, sc, st), sc, "args");
    if (g->lay.args_binding >= 0) { /* too big for push constants: a read-only buffer (spvgen.h) */
        SPV_OP(&g->b, SPV_SEC_ANNOT, SpvOpDecorate, g->push_var, SpvDecorationDescriptorSet, SPV_SET_NDARRAY);
        SPV_OP(&g->b, SPV_SEC_ANNOT, SpvOpDecorate, g->push_var, SpvDecorationBinding, (uint32_t)g->lay.args_binding);
        SPV_OP(&g->b, SPV_SEC_ANNOT, SpvOpDecorate, g->push_var, SpvDecorationNonWritable);
    }
    return g->push_var;
}

/* A scalar parameter (axis -1) or an ndarray extent, converted to its IR type. */
uint32_t g_push_load(SpvGen *g, int param, int axis) {
    for (int i = 0; i < g->lay.npush; i++) {
        const SpvPushMember *pm = &g->lay.push[i];
        if (pm->param != param || pm->axis != axis) continue;
        uint32_t var = push_block(g);
        g_use(g, var);
        uint32_t ty = g_ty(g, pm->type);
        uint32_t p = G_OP(g, SpvOpAccessChain, g_ptr(g, push_class(g), ty), var, g_i32(g, i));
        uint32_t v = G_OP(g, SpvOpLoad, ty, p);
        QdType want = axis < 0 ? g->k->params[param].type : QT_I32;
        return g_convert(g, v, pm->type, want);
    }
    die("parameter %d axis %d is not in the push-constant layout", param, axis);
}

/* x component of a uvec3 built-in, as i32. */
uint32_t g_builtin_x(SpvGen *g, uint32_t *var, SpvBuiltIn bi, const char *nm) {
    uint32_t u32 = g_ty(g, QT_U32), v3 = SPV_TYPE(&g->b, SpvOpTypeVector, u32, 3);
    if (!*var) {
        *var = global_var(g, g_ptr(g, SpvStorageClassInput, v3), SpvStorageClassInput, nm);
        SPV_OP(&g->b, SPV_SEC_ANNOT, SpvOpDecorate, *var, SpvDecorationBuiltIn, bi);
    }
    g_use(g, *var);
    uint32_t v = G_OP(g, SpvOpLoad, v3, *var);
    uint32_t x = G_OP(g, SpvOpCompositeExtract, u32, v, 0);
    return G_OP(g, SpvOpBitcast, g_ty(g, QT_I32), x);
}

/* A scalar u32 input builtin (SubgroupLocalInvocationId, SubgroupSize), loaded as i32. */
uint32_t g_builtin_scalar(SpvGen *g, uint32_t *var, SpvBuiltIn bi, const char *nm) {
    uint32_t u32 = g_ty(g, QT_U32);
    if (!*var) {
        *var = global_var(g, g_ptr(g, SpvStorageClassInput, u32), SpvStorageClassInput, nm);
        SPV_OP(&g->b, SPV_SEC_ANNOT, SpvOpDecorate, *var, SpvDecorationBuiltIn, bi);
    }
    g_use(g, *var);
    return G_OP(g, SpvOpBitcast, g_ty(g, QT_I32), G_OP(g, SpvOpLoad, u32, *var));
}

/* ---- pre-pass: which views each resource needs ---- */
/* What a kernel's memory operations need (resources viewed as integers, publication through
 * fences), found through the one IR walker. */
static void note(void *ctx, const IrKernel *k, const IrTask *t, const IrExpr *memop, const IrStmt *fence) {
    (void)k, (void)t;
    SpvGen *g = ctx;
    if (memop) g_note_memop(g, &memop->mem);
    if (fence) g->publishes = true;
}

/* ---- entry points ---- */
static void declare_locals(SpvGen *g, const IrTask *task) {
    bool *used = xcalloc((size_t)g->k->nlocals + 1, sizeof *used);
    ir_task_locals(task, used);
    for (int i = 0; i < g->k->nlocals; i++) {
        if (!used[i]) continue;
        uint32_t ty = g_ty(g, g->k->locals[i].type), v = spv_id(&g->b);
        SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpVariable, g_ptr(g, SpvStorageClassFunction, ty), v, SpvStorageClassFunction);
        g->local_var[i] = v;
    }
    free(used);
}

static uint32_t local_tmp(SpvGen *g, QdType t) {
    uint32_t v = spv_id(&g->b);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpVariable, g_ptr(g, SpvStorageClassFunction, g_ty(g, t)), v, SpvStorageClassFunction);
    return v;
}

/* for (i = gid; i <u extent; i += groups * block_dim) { index = i; body }: the task loop of
 * qdc-semantics(7) (ir.h, IrTask.extent: >= 0 after ir_expand_module), as the LLVM backends run
 * it (cg_emit_strided_loop): 0 <= i < 2^31 and the stride is below 2^31, so i + stride never
 * wraps as an unsigned number, and every extent up to INT32_MAX is exact. */
static void parallel_body(SpvGen *g, const IrTask *task, uint32_t ctr, int block_dim) {
    uint32_t i32 = g_ty(g, QT_I32), boolt = g_ty(g, QT_U1);
    uint32_t extent = g_expr(g, task->extent);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpStore, ctr, g_builtin_x(g, &g->gid_var, SpvBuiltInGlobalInvocationId, "gid"));
    uint32_t groups = g_builtin_x(g, &g->nwg_var, SpvBuiltInNumWorkgroups, "num_groups");
    uint32_t stride = G_OP(g, SpvOpIMul, i32, groups, g_i32(g, block_dim));
    uint32_t head = spv_id(&g->b), cond = spv_id(&g->b), body = spv_id(&g->b), cont = spv_id(&g->b), merge = spv_id(&g->b);
    g_branch(g, head);
    g_label(g, head);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpLoopMerge, merge, cont, SpvLoopControlMaskNone);
    g_branch(g, cond);
    g_label(g, cond);
    uint32_t i = G_OP(g, SpvOpLoad, i32, ctr);
    uint32_t c = G_OP(g, SpvOpULessThan, boolt, i, extent);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpBranchConditional, c, body, merge);
    g_label(g, body);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpStore, g->local_var[task->index_local], i);
    vec_push(&g->loops, ((SpvLoop){merge, cont}));
    g_block(g, &task->body);
    g->loops.len--;
    g_branch(g, cont);
    g_label(g, cont);
    uint32_t i2 = G_OP(g, SpvOpLoad, i32, ctr);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpStore, ctr, G_OP(g, SpvOpIAdd, i32, i2, stride));
    g_branch(g, head);
    g_label(g, merge);
    g_reduce_end(g);
}

/* Serial tasks run on invocation 0 of a one-invocation dispatch. */
static void serial_body(SpvGen *g, const IrTask *task) {
    uint32_t gid = g_builtin_x(g, &g->gid_var, SpvBuiltInGlobalInvocationId, "gid");
    uint32_t c = G_OP(g, SpvOpIEqual, g_ty(g, QT_U1), gid, g_i32(g, 0));
    uint32_t then = spv_id(&g->b), merge = spv_id(&g->b);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpSelectionMerge, merge, SpvSelectionControlMaskNone);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpBranchConditional, c, then, merge);
    g_label(g, then);
    g_block(g, &task->body);
    g_branch(g, merge);
    g_label(g, merge);
}

static int task_block_dim(const SpvGen *g, const IrTask *task) {
    if (task->kind == IR_TASK_SERIAL) return 1;
    return task->block_dim > 0 ? task->block_dim : g->t->default_block_dim;
}

enum { BUILTIN_GROUP = 64 };

static void emit_task(SpvGen *g, const IrTask *task) {
    uint32_t voidt = g_ty(g, QT_VOID), fnty = SPV_TYPE(&g->b, SpvOpTypeFunction, voidt);
    uint32_t fn = spv_id(&g->b), entry = spv_id(&g->b);
    int bd = task_block_dim(g, task);
    g->task = task;
    g->iface.len = 0;
    /* Each group of BUILTIN_GROUP entry points has its own built-in input variables. SPIRV-Tools
     * checks a built-in once per entry point and reference that shares it, keeping a copy each
     * (one set for 10,000 small kernels: 6.6 GB in validation), while its name mapper tries
     * gl_GlobalInvocationID_0, _1, ... for every further variable of the same built-in (one set
     * per entry point: 46 s). Groups keep both linear; modules of fewer kernels are unchanged. */
    if (g->entry_points++ % BUILTIN_GROUP == 0) g->gid_var = g->lid_var = g->nwg_var = g->sg_lid_var = g->sg_size_var = 0;
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpFunction, voidt, fn, SpvFunctionControlMaskNone, fnty);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpLabel, entry);
    g->cur = entry;
    declare_locals(g, task);
    uint32_t ctr = local_tmp(g, QT_I32);
    if (task->kind == IR_TASK_PARALLEL) g_reduce_begin(g, task);
    if (task->kind == IR_TASK_PARALLEL) parallel_body(g, task, ctr, bd);
    else serial_body(g, task);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpReturn);
    SPV_OP(&g->b, SPV_SEC_FUNC, SpvOpFunctionEnd);
    g_msl_markers(g);
    VEC(uint32_t) ifc = {0};
    vec_push(&ifc, (uint32_t)SpvExecutionModelGLCompute);
    vec_push(&ifc, fn);
    for (int i = 0; i < g->iface.len; i++) {
        uint32_t v = g->iface.items[i];
        bool input = v == g->gid_var || v == g->lid_var || v == g->nwg_var || v == g->sg_lid_var || v == g->sg_size_var;
        if (input || g->t->minor >= 4) vec_push(&ifc, v);
    }
    spv_inst_str(&g->b, SPV_SEC_ENTRY, SpvOpEntryPoint, ifc.items, 2, task->name, ifc.items + 2, ifc.len - 2);
    vec_free(&ifc);
    SPV_OP(&g->b, SPV_SEC_EXEC, SpvOpExecutionMode, fn, SpvExecutionModeLocalSize, (uint32_t)bd, 1, 1);
}

static void begin_kernel(SpvGen *g, const IrKernel *k) {
    g->k = k;
    spv_layout_kernel(k, g->t->max_push, &g->lay);
    g->nd = xcalloc((size_t)k->nparams + 1, sizeof *g->nd);
    g->shared = xcalloc((size_t)k->nshared + 1, sizeof *g->shared);
    g->local_var = xcalloc((size_t)k->nlocals + 1, sizeof *g->local_var);
    g->push_var = 0;
    g->publishes = false;
    ir_visit_kernel_memory_ops(k, note, g);
}

static void end_kernel(SpvGen *g) {
    ir_memo_free(&g->shared_ids);
    free(g->nd), free(g->shared), free(g->local_var);
    g->nd = g->shared = NULL, g->local_var = NULL;
    spv_layout_free(&g->lay);
}

static void emit_kernel(SpvGen *g, const IrKernel *k, const IrTask *only) {
    begin_kernel(g, k);
    for (int i = 0; i < k->ntasks && g->ok; i++) {
        if (only && only != &k->tasks[i]) continue;
        char *prefix = g->t->for_msl ? xasprintf("%s_", k->tasks[i].name) : NULL;
        g->prefix = prefix ? prefix : "";
        emit_task(g, &k->tasks[i]);
        free(prefix);
        g->prefix = "";
    }
    end_kernel(g);
}

static bool has_task(const IrKernel *k, const IrTask *only) {
    for (int i = 0; i < k->ntasks; i++)
        if (!only || only == &k->tasks[i]) return true;
    return false;
}

/* Fields are shared by every kernel: the views each needs, decided over the whole module. */
static void decide_field_views(SpvGen *g) {
    for (int i = 0; i < g->m->nkernels; i++) {
        begin_kernel(g, &g->m->kernels[i]);
        end_kernel(g);
    }
}

SpvRes *spirv_field_views(const IrModule *m, const IrLowered *low, const SpvTarget *t) {
    SpvGen g = {0};
    spv_init(&g.b);
    g.m = m, g.low = low, g.t = t, g.ok = true, g.prefix = "";
    g.fields = xcalloc((size_t)m->nfields + 1, sizeof *g.fields);
    if (m->nfields) decide_field_views(&g); /* nothing else outlives the pre-pass */
    spv_free(&g.b);
    return g.fields;
}

/* Builds, validates and appends the binary. A validation failure is an internal error. */
static bool build(const IrModule *m, const IrLowered *low, const SpvTarget *t, const IrTask *only, const SpvRes *field_views,
                  void (*ir_done)(void *ctx), void *ctx, StrBuf *out);

bool spirv_build(const IrModule *m, const IrLowered *low, const SpvTarget *t, const IrTask *only, const SpvRes *field_views,
                 StrBuf *out) {
    return build(m, low, t, only, field_views, NULL, NULL, out);
}

bool spirv_build_release(const IrModule *m, const IrLowered *low, const SpvTarget *t, void (*ir_done)(void *ctx), void *ctx,
                         StrBuf *out) {
    return build(m, low, t, NULL, NULL, ir_done, ctx, out);
}

bool spirv_build_task_release(const IrModule *m, const IrLowered *low, const SpvTarget *t, const IrTask *only,
                              const SpvRes *field_views, void (*ir_done)(void *ctx), void *ctx, StrBuf *out) {
    return build(m, low, t, only, field_views, ir_done, ctx, out);
}

static bool build(const IrModule *m, const IrLowered *low, const SpvTarget *t, const IrTask *only, const SpvRes *field_views,
                  void (*ir_done)(void *ctx), void *ctx, StrBuf *out) {
    if (!m->expanded) die("the SPIR-V backend was given IR that ir_expand_module did not expand");
    SpvGen g = {0};
    spv_init(&g.b);
    g.m = m, g.low = low, g.t = t, g.ok = true, g.prefix = "";
    g.fields = xcalloc((size_t)m->nfields + 1, sizeof *g.fields);
    if (field_views) memcpy(g.fields, field_views, (size_t)m->nfields * sizeof *g.fields);
    if (t->debug_lines && m->src) { /* -g: the input as named on the command line */
        g.src_file = spv_id(&g.b);
        spv_inst_str(&g.b, SPV_SEC_SOURCE, SpvOpString, &g.src_file, 1, m->src->name, NULL, 0);
        SPV_OP(&g.b, SPV_SEC_SOURCE, SpvOpSource, SpvSourceLanguageUnknown, 0, g.src_file);
    }
    spv_cap(&g.b, SpvCapabilityShader);
    SPV_OP(&g.b, SPV_SEC_MODEL, SpvOpMemoryModel, SpvAddressingModelLogical, SpvMemoryModelGLSL450);
    if (!field_views) decide_field_views(&g);
    for (int i = 0; i < m->nkernels && g.ok; i++)
        if (has_task(&m->kernels[i], only)) emit_kernel(&g, &m->kernels[i], only);
    StrBuf bin;
    sb_init(&bin);
    if (g.ok) spv_finish(&g.b, t->minor, &bin);
    spv_free(&g.b);
    free(g.fields);
    vec_free(&g.iface);
    vec_free(&g.loops);
    vec_free(&g.msl_helpers);
    vec_free(&g.partials);
    if (!g.ok) return sb_free(&bin), false;
    if (ir_done) ir_done(ctx); /* m and low are not read again */
    StrBuf err;
    sb_init(&err);
    if (!spv_validate((const uint32_t *)bin.data, bin.len / 4, t->env, &err))
        die("generated SPIR-V fails validation for %s: %s", t->env, err.data);
    sb_free(&err);
    sb_append(out, bin.data, bin.len);
    sb_free(&bin);
    return true;
}
