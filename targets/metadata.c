/* --emit=metadata: one JSON document describing the compiled module, the one metadata writer of
 * every backend: the target and the capabilities the lowering decisions rely on, fields,
 * kernels, tasks, parameters, dtypes, block size, shared-memory bytes; SPIR-V and MSL add their
 * binding layout through AbiBindings. Keys are stable (man/qdc-abi.7, qdc-spirv(7)). */
#include "abi.h"
#include "../support/json.h"
#include <string.h>

static void param_json(StrBuf *b, const IrKernel *k, const IrParam *p) {
    sb_puts(b, "{\"name\": ");
    json_str(b, p->name);
    sb_printf(b, ", \"kind\": \"%s\", \"dtype\": \"%s\"", p->kind == IR_PARAM_SCALAR ? "scalar" : "ndarray",
              qt_name(p->type));
    if (p->kind == IR_PARAM_NDARRAY) sb_printf(b, ", \"ndim\": %d", p->ndim);
    if (p->builder) sb_puts(b, ", \"sparse_matrix_builder\": {\"value_dtype\": \"f32\"}"); /* [count, i, j, bits(v), ...] (qdc-abi(7)) */
    if (p->elem_ndim == 1) sb_printf(b, ", \"element_shape\": [%d]", p->elem_shape[0]);
    if (p->elem_ndim == 2) sb_printf(b, ", \"element_shape\": [%d, %d]", p->elem_shape[0], p->elem_shape[1]);
    if (p->permuted) { /* the canonical axis at each storage level, outermost first */
        sb_puts(b, ", \"layout\": [");
        for (int d = 0; d < p->ndim; d++) sb_printf(b, "%s%d", d ? ", " : "", p->layout[d]);
        sb_puts(b, "]");
    }
    if (p->adjoint_of) sb_puts(b, ", \"grad_of\": "), json_str(b, k->params[p->adjoint_of - 1].name); /* an adjoint array (GRADIENTS) */
    sb_puts(b, "}");
}

static void task_json(StrBuf *b, const IrKernel *k, int i, const IrLowered *low, const CapTarget *t) {
    const IrTask *task = &k->tasks[i];
    sb_puts(b, "{\"name\": ");
    json_str(b, task->name);
    sb_printf(b, ", \"kind\": \"%s\", \"block_dim\": %d, \"uses_block\": %s, \"shared_bytes\": %ld",
              task->kind == IR_TASK_SERIAL ? "serial" : "parallel", abi_block_dim(task, t),
              task->uses_block ? "true" : "false", (long)ir_task_shared_bytes(k, low, i));
    if (abi_device_extent(task)) { /* bounds read on the device: any grid, this many blocks suggested */
        sb_puts(b, ", \"extent\": \"device\"");
        if (strcmp(cap_backend(t), "x86_64")) sb_printf(b, ", \"groups\": %d", abi_device_groups(task, abi_block_dim(task, t)));
    }
    sb_puts(b, "}");
}

void abi_returns_json(StrBuf *b, const IrModule *m, const IrKernel *k) {
    if (k->ret_nmembers) { /* a struct or tuple: one slot per leaf member, in declaration order */
        sb_puts(b, "\"returns\": {\"struct\": [");
        for (int i = 0; i < k->ret_nmembers; i++) {
            const IrRetMember *r = &k->ret_members[i];
            const char *f = m->fields[r->field].name;
            sb_printf(b, "%s{\"name\": ", i ? ", " : "");
            json_str(b, r->name);
            sb_printf(b, ", \"dtype\": \"%s\", \"field\": ", qt_name(r->type));
            json_str(b, f);
            sb_puts(b, ", \"symbol\": ");
            json_strf(b, "qd_field_%s", f);
            if (r->m) sb_printf(b, ", \"shape\": [%d, %d]", r->n, r->m);
            else if (r->n) sb_printf(b, ", \"shape\": [%d]", r->n);
            sb_puts(b, "}");
        }
        sb_puts(b, "]}");
        return;
    }
    const char *f = m->fields[k->ret_field].name; /* the result slot: a field the last task stores into */
    sb_printf(b, "\"returns\": {\"dtype\": \"%s\", \"field\": ", qt_name(k->ret_type));
    json_str(b, f);
    sb_puts(b, ", \"symbol\": ");
    json_strf(b, "qd_field_%s", f);
    if (k->ret_m) sb_printf(b, ", \"shape\": [%d, %d]", k->ret_n, k->ret_m); /* a matrix: components row-major in the field */
    else if (k->ret_n) sb_printf(b, ", \"shape\": [%d]", k->ret_n);
    sb_puts(b, "}");
}

/* A graph kernel's do-while loops (qdc-abi(7), "Do-while loops"), one object per loop, outer
 * loops first; `sep` goes before each. */
void abi_loops_json(StrBuf *b, const IrKernel *k, const char *sep) {
    sb_puts(b, "\"loops\": [");
    for (int l = 0; l < k->nloops; l++) {
        const IrLoop *lp = &k->loops[l];
        if (l) sb_puts(b, ","), sb_puts(b, sep);
        sb_printf(b, "{\"first_task\": %d, \"last_task\": %d, \"parent\": %d, \"condition\": {\"param\": ", lp->first, lp->last,
                  lp->parent);
        json_str(b, k->params[lp->param].name);
        sb_printf(b, ", \"index\": %d, \"element\": 0, \"dtype\": \"%s\", \"as_written\": ", lp->param, qt_name(k->params[lp->param].type));
        json_str(b, lp->cond);
        sb_puts(b, "}}");
    }
    sb_puts(b, "]");
}

/* A checkpoints kernel's checkpoints (qdc-abi(7), "Checkpoints"), in source order: each one's
 * tasks (a contiguous range; -1, -1 when it has none), and for an explicit one its label and its
 * yield_on flag; `sep` goes before each. */
void abi_checkpoints_json(StrBuf *b, const IrKernel *k, const char *sep) {
    sb_puts(b, "\"checkpoints\": [");
    for (int c = 0; c < k->ncheckpoints; c++) {
        const IrCheckpoint *cp = &k->checkpoints[c];
        int first = -1, last = -1;
        for (int t = 0; t < k->ntasks; t++)
            if (k->tasks[t].cp == c + 1) last = t, first = first < 0 ? t : first;
        if (c) sb_puts(b, ","), sb_puts(b, sep);
        sb_printf(b, "{\"first_task\": %d, \"last_task\": %d, ", first, last);
        if (cp->param < 0) {
            sb_puts(b, "\"implicit\": true}");
            continue;
        }
        sb_printf(b, "\"label\": %lld, \"label_as_written\": ", (long long)cp->label);
        json_str(b, cp->text);
        sb_puts(b, ", \"yield_on\": {\"param\": ");
        json_str(b, k->params[cp->param].name);
        sb_printf(b, ", \"index\": %d, \"element\": 0, \"dtype\": \"%s\", \"as_written\": ", cp->param, qt_name(k->params[cp->param].type));
        json_str(b, cp->yield);
        sb_puts(b, "}}");
    }
    sb_puts(b, "]");
}

static void kernel_json(StrBuf *b, const IrModule *m, const IrKernel *k, const IrLowered *low, const CapTarget *t) {
    sb_puts(b, "    {\"name\": ");
    json_str(b, k->name);
    if (k->grad_of > 0) sb_puts(b, ", \"grad_of\": "), json_str(b, m->kernels[k->grad_of - 1].name); /* a reverse-mode companion */
    if (k->fwd_of > 0) sb_puts(b, ", \"fwd_of\": "), json_str(b, m->kernels[k->fwd_of - 1].name);   /* a forward-mode companion */
    if (k->ret_type != QT_VOID || k->ret_nmembers) sb_puts(b, ",\n     "), abi_returns_json(b, m, k);
    sb_puts(b, ",\n     \"params\": [");
    for (int i = 0; i < k->nparams; i++) {
        if (i) sb_puts(b, ", ");
        param_json(b, k, &k->params[i]);
    }
    sb_puts(b, "],\n     \"tasks\": [");
    for (int i = 0; i < k->ntasks; i++) {
        if (i) sb_puts(b, ",\n               ");
        task_json(b, k, i, low, t);
    }
    sb_puts(b, "]");
    if (k->nloops) sb_puts(b, ",\n     "), abi_loops_json(b, k, "\n               ");
    if (k->ncheckpoints) sb_puts(b, ",\n     "), abi_checkpoints_json(b, k, "\n                     ");
    sb_puts(b, "}");
}

/* A field in an SNode storage: its slot's byte offset in the outermost cell ("byte_offset":
 * "offset" is the index origin of offset=), its levels, outermost first (qdc-abi(7), "SNode
 * storages"); a sparse level adds its kind and its metadata field, "Sparse SNodes"). */
static void levels_json(StrBuf *b, const IrModule *m, const IrField *f) {
    sb_puts(b, ", \"byte_offset\": ");
    sb_printf(b, "%lld, \"levels\": [", (long long)f->offset);
    for (int l = 0; l < f->nlevels; l++) {
        const IrSnodeLevel *lv = &f->levels[l];
        sb_puts(b, l ? ", {\"axes\": [" : "{\"axes\": [");
        for (int k = 0; k < lv->naxes; k++) sb_printf(b, "%s%d", k ? ", " : "", lv->axis[k]);
        sb_puts(b, "], \"sizes\": [");
        for (int k = 0; k < lv->naxes; k++) sb_printf(b, "%s%lld", k ? ", " : "", (long long)lv->size[k]);
        sb_printf(b, "], \"cell_bytes\": %lld, \"child_offset\": %lld", (long long)lv->cell_bytes, (long long)lv->child_offset);
        static const char *const kinds[] = {"dense", "pointer", "bitmasked", "dynamic"};
        if (lv->sparse) sb_printf(b, ", \"sparse\": \"%s\", \"meta\": \"%s\"", kinds[lv->sparse], m->fields[lv->meta].name);
        sb_puts(b, "}");
    }
    sb_puts(b, "]");
}

/* name, symbol (C ABI only), dtype, shape, element_shape, then the layout's keys. */
static void field_json(StrBuf *b, const IrModule *m, int i, const AbiBindings *bind) {
    const IrField *f = &m->fields[i];
    sb_puts(b, "    {\"name\": ");
    json_str(b, f->name);
    if (!bind) /* a field in an SNode storage is reached through its storage's symbol */
        sb_printf(b, ", \"symbol\": \"%s%s\"", f->storage ? "qd_snode_" : "qd_field_",
                  f->storage ? m->storages[f->storage - 1].name : f->name);
    sb_printf(b, ", \"dtype\": \"%s\", \"shape\": [", qt_name(f->type));
    for (int d = 0; d < f->ndim; d++) sb_printf(b, "%s%lld", d ? ", " : "", (long long)f->shape[d]);
    sb_puts(b, "]");
    if (f->elem_ndim) { /* a field of vectors or matrices: the last axes of shape are the components */
        sb_puts(b, ", \"element_shape\": [");
        for (int d = f->ndim - f->elem_ndim; d < f->ndim; d++) sb_printf(b, "%s%lld", d > f->ndim - f->elem_ndim ? ", " : "", (long long)f->shape[d]);
        sb_puts(b, "]");
    }
    bool shifted = false;
    for (int d = 0; d < f->ndim; d++) shifted |= f->origin[d] != 0;
    if (shifted) { /* offset=: element x[i] is stored at i - offset */
        sb_puts(b, ", \"offset\": [");
        for (int d = 0; d < f->ndim - f->elem_ndim; d++) sb_printf(b, "%s%lld", d ? ", " : "", (long long)f->origin[d]);
        sb_puts(b, "]");
    }
    if (f->grad > 0) sb_puts(b, ", \"grad\": "), json_str(b, m->fields[f->grad - 1].name); /* needs_grad=True: its adjoint field */
    if (f->dual > 0) sb_puts(b, ", \"dual\": "), json_str(b, m->fields[f->dual - 1].name); /* needs_dual=True: its dual field */
    if (bind) bind->meta_field(b, m, i, bind->ctx);
    else if (f->storage) levels_json(b, m, f);
    sb_puts(b, "}");
}

bool metadata_emit(const IrModule *m, const IrLowered *low, const CapTarget *t, const TargetOptions *o, const AbiBindings *bind,
                   StrBuf *out) {
    sb_printf(out, "{\n  \"qdc_abi\": %d,\n  \"module\": ", QDC_ABI_VERSION);
    json_str(out, o->module_name);
    sb_puts(out, ",\n  \"target\": ");
    json_str(out, cap_name(t));
    sb_puts(out, ",\n  \"backend\": ");
    json_str(out, cap_backend(t));
    sb_printf(out, ",\n  \"subgroup_width\": %ld", cap_subgroup_width(t, o->caps, o->ncaps)); /* --cap=+wave32 */
    if (bind) bind->meta_head(out, bind->ctx);
    sb_puts(out, ",\n  \"capabilities_used\": [");
    for (int i = 0; i < low->ncaps_used; i++) {
        if (i) sb_puts(out, ", ");
        json_str(out, low->caps_used[i]);
    }
    sb_puts(out, "],\n  \"fields\": [");
    for (int i = 0; i < m->nfields; i++) {
        sb_puts(out, i ? ",\n" : "\n");
        field_json(out, m, i, bind);
    }
    sb_puts(out, m->nfields ? "\n  ],\n" : "],\n");
    if (m->nstorages && !bind) { /* only when fields are placed together (keeps older documents unchanged) */
        sb_puts(out, "  \"storages\": [");
        for (int i = 0; i < m->nstorages; i++)
            sb_printf(out, "%s{\"symbol\": \"qd_snode_%s\", \"bytes\": %lld, \"align\": %d}", i ? ", " : "",
                      m->storages[i].name, (long long)m->storages[i].bytes, m->storages[i].align);
        sb_puts(out, "],\n");
    }
    sb_puts(out, "  \"kernels\": [");
    for (int i = 0; i < m->nkernels; i++) {
        sb_puts(out, i ? ",\n" : "\n");
        if (bind) bind->meta_kernel(out, m, i, bind->ctx);
        else kernel_json(out, m, &m->kernels[i], low, t);
    }
    sb_puts(out, m->nkernels ? "\n  ]\n}\n" : "]\n}\n");
    return true;
}
