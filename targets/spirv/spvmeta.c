/* Binding-layout data for hosts: its part of the metadata JSON and of the C header (written by
 * targets/metadata.c and targets/header.c), and the Metal buffer indices. */
#include "spvmeta.h"
#include "../abi.h"
#include "../../support/json.h"
#include <string.h>

int spv_msl_bindings(const IrModule *m, const IrKernel *k, SpvMslBinding **out) {
    SpvLayout l;
    spv_layout_kernel(k, 0, &l); /* MSL */
    SpvMslBinding *b = xcalloc((size_t)(l.nndarray + m->nfields + 1), sizeof *b);
    int n = 0;
    for (int i = 0; i < k->nparams; i++)
        if (l.binding[i] >= 0) b[n++] = (SpvMslBinding){SPV_SET_NDARRAY, (unsigned)l.binding[i], (unsigned)l.binding[i]};
    for (int f = 0; f < m->nfields; f++)
        b[n++] = (SpvMslBinding){SPV_SET_FIELD, (unsigned)f, (unsigned)(l.nndarray + f)};
    b[n++] = (SpvMslBinding){~0u, 0, (unsigned)(l.nndarray + m->nfields)};
    spv_layout_free(&l);
    *out = b;
    return n;
}

static void kv_str(StrBuf *o, const char *k, const char *v) {
    sb_printf(o, "\"%s\": ", k);
    json_str(o, v);
}

static void json_params(StrBuf *o, const IrKernel *k, const SpvLayout *l, bool msl) {
    sb_puts(o, "      \"params\": [");
    for (int i = 0; i < k->nparams; i++) {
        const IrParam *p = &k->params[i];
        sb_puts(o, i ? ",\n        {" : "\n        {");
        kv_str(o, "name", p->name), sb_puts(o, ", ");
        kv_str(o, "dtype", qt_name(p->type));
        if (p->kind == IR_PARAM_NDARRAY) {
            sb_printf(o, ", \"kind\": \"ndarray\", \"ndim\": %d, \"set\": %d, \"binding\": %d", p->ndim,
                      SPV_SET_NDARRAY, l->binding[i]);
            if (msl) sb_printf(o, ", \"msl_buffer\": %d", l->binding[i]);
            if (p->builder) sb_puts(o, ", \"sparse_matrix_builder\": {\"value_dtype\": \"f32\"}"); /* a triplet buffer */
            if (p->adjoint_of) sb_puts(o, ", "), kv_str(o, "grad_of", k->params[p->adjoint_of - 1].name); /* an adjoint array */
        } else {
            sb_puts(o, ", \"kind\": \"scalar\"");
        }
        sb_puts(o, "}");
    }
    sb_puts(o, k->nparams ? "\n      ],\n" : "],\n");
}

static void json_push(StrBuf *o, const IrKernel *k, const SpvLayout *l, int msl_buffer) {
    sb_printf(o, "      \"push_constants\": {\"size\": %u", l->push_size);
    if (msl_buffer >= 0) sb_printf(o, ", \"msl_buffer\": %d", msl_buffer);
    if (l->args_binding >= 0) sb_printf(o, ", \"buffer\": {\"set\": %d, \"binding\": %d}", SPV_SET_NDARRAY, l->args_binding);
    sb_puts(o, ", \"members\": [");
    for (int i = 0; i < l->npush; i++) {
        const SpvPushMember *pm = &l->push[i];
        sb_puts(o, i ? ",\n        {" : "\n        {");
        kv_str(o, "param", k->params[pm->param].name);
        if (pm->axis < 0) sb_puts(o, ", \"what\": \"value\"");
        else sb_printf(o, ", \"what\": \"extent\", \"axis\": %d", pm->axis);
        sb_printf(o, ", \"offset\": %u, ", pm->offset);
        kv_str(o, "dtype", qt_name(pm->type));
        sb_puts(o, "}");
    }
    sb_puts(o, l->npush ? "\n      ]},\n" : "]},\n");
}

static void json_tasks(StrBuf *o, const IrKernel *k, const SpvTarget *st) {
    sb_puts(o, "      \"tasks\": [");
    for (int i = 0; i < k->ntasks; i++) {
        const IrTask *t = &k->tasks[i];
        bool par = t->kind == IR_TASK_PARALLEL;
        int bd = !par ? 1 : t->block_dim > 0 ? t->block_dim : st->default_block_dim;
        sb_puts(o, i ? ",\n        {" : "\n        {");
        kv_str(o, "entry", t->name);
        sb_printf(o, ", \"kind\": \"%s\", \"block_dim\": %d", par ? "parallel" : "serial", bd);
        if (!par) sb_puts(o, ", \"groups\": 1");
        else if (abi_device_extent(t)) sb_printf(o, ", \"groups\": %d, \"extent\": \"device\"", abi_device_groups(t, bd));
        else if (t->extent && t->extent->kind == IR_CONST) /* a loop that runs zero times: one group */
            sb_printf(o, ", \"groups\": %lld", t->extent->c.i > 0 ? (long long)((t->extent->c.i + bd - 1) / bd) : 1LL);
        else sb_puts(o, ", \"groups\": null");
        sb_puts(o, "}");
    }
    sb_puts(o, "\n      ]");
}

/* ---- the binding layout's part of the one metadata and header writer (targets/metadata.c,
 * targets/header.c) ---- */

static void meta_head(StrBuf *o, const void *ctx) {
    const SpvTarget *st = ctx;
    sb_puts(o, ",\n  ");
    kv_str(o, "spirv_env", st->env);
    sb_printf(o, ",\n  \"spirv_version\": \"1.%d\",\n  \"layout_version\": %d", st->minor, SPV_LAYOUT_VERSION);
}

static void meta_field(StrBuf *o, const IrModule *m, int f, const void *ctx) {
    (void)ctx;
    const IrField *fd = &m->fields[f];
    sb_printf(o, ", \"set\": %d, \"binding\": %d", SPV_SET_FIELD, f);
    if (fd->storage) /* bind this storage's buffer here (shared by its fields) */
        sb_printf(o, ", \"storage\": \"qd_snode_%s\", \"storage_bytes\": %lld", m->storages[fd->storage - 1].name,
                  (long long)m->storages[fd->storage - 1].bytes);
}

static void meta_kernel(StrBuf *o, const IrModule *m, int k, const void *ctx) {
    const SpvTarget *st = ctx;
    const IrKernel *kn = &m->kernels[k];
    SpvLayout l;
    spv_layout_kernel(kn, st->max_push, &l);
    sb_puts(o, "    {\n      ");
    kv_str(o, "name", kn->name);
    if (kn->grad_of > 0) sb_puts(o, ", "), kv_str(o, "grad_of", m->kernels[kn->grad_of - 1].name); /* a reverse-mode companion */
    if (kn->fwd_of > 0) sb_puts(o, ", "), kv_str(o, "fwd_of", m->kernels[kn->fwd_of - 1].name);    /* a forward-mode companion */
    if (kn->ret_type != QT_VOID || kn->ret_nmembers) sb_puts(o, ",\n      "), abi_returns_json(o, m, kn);
    sb_printf(o, ",\n      \"msl_field_buffer_base\": %d,\n", st->for_msl ? l.nndarray : -1);
    json_params(o, kn, &l, st->for_msl);
    json_push(o, kn, &l, st->for_msl ? l.nndarray + m->nfields : -1);
    json_tasks(o, kn, st);
    if (kn->nloops) sb_puts(o, ",\n      "), abi_loops_json(o, kn, "\n                 ");
    if (kn->ncheckpoints) sb_puts(o, ",\n      "), abi_checkpoints_json(o, kn, "\n                       ");
    sb_puts(o, "\n    }");
    spv_layout_free(&l);
}

static const char *c_type(QdType t) {
    static const char *names[QT_COUNT] = {[QT_I32] = "int32_t", [QT_U32] = "uint32_t", [QT_I64] = "int64_t",
                                          [QT_U64] = "uint64_t", [QT_F32] = "float", [QT_F64] = "double"};
    return names[t] ? names[t] : "uint32_t";
}

/* One struct per kernel mirroring its push-constant block (explicit padding). */
static void args_struct(StrBuf *o, const IrModule *m, int k, const void *ctx) {
    const SpvTarget *st = ctx;
    const IrKernel *kn = &m->kernels[k];
    SpvLayout l;
    spv_layout_kernel(kn, st->max_push, &l);
    sb_printf(o, "typedef struct %s_args {\n", kn->name);
    uint32_t at = 0;
    for (int i = 0; i < l.npush; i++) {
        const SpvPushMember *pm = &l.push[i];
        if (pm->offset > at) sb_printf(o, "    uint8_t qdc_pad%u[%u];\n", at, pm->offset - at);
        if (pm->axis < 0) sb_printf(o, "    %s %s;\n", c_type(pm->type), kn->params[pm->param].name);
        else sb_printf(o, "    int32_t %s_shape%d;\n", kn->params[pm->param].name, pm->axis);
        at = pm->offset + (uint32_t)qt_bits(pm->type) / 8;
    }
    if (!l.npush) sb_puts(o, "    uint8_t qdc_unused_;\n");
    if (l.args_binding >= 0)
        sb_printf(o, "} %s_args; /* %u bytes: a storage buffer at set %d, binding %d (larger than push constants) */\n", kn->name,
                  l.push_size, SPV_SET_NDARRAY, l.args_binding);
    else sb_printf(o, "} %s_args; /* %u bytes */\n", kn->name, l.push_size);
    spv_layout_free(&l);
}

AbiBindings spv_bindings(const SpvTarget *st) {
    return (AbiBindings){.ctx = st, .guard_suffix = "SPV_H",
                         .header_note = "SPIR-V/MSL: each <kernel>_args is the kernel's push-constant block (layout version 1)",
                         .args_struct = args_struct, .meta_head = meta_head, .meta_field = meta_field, .meta_kernel = meta_kernel};
}
