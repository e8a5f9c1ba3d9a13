/* --emit=header: the C header of the qdc C ABI (man/qdc-abi.7), the one header writer of every
 * backend. Every backend gets the argument structs (the C struct of the LLVM backends, or the
 * push-constant block of SPIR-V and MSL through AbiBindings) and the return-value slots; the CPU
 * backend also gets the field globals, the task entry points and one inline launcher per kernel
 * that runs it through libqdrt. */
#include "abi.h"
#include <string.h>

static void args_struct(StrBuf *b, const IrKernel *k) {
    sb_printf(b, "typedef struct %s_args {\n", k->name);
    for (int i = 0; i < k->nparams; i++) {
        const IrParam *p = &k->params[i];
        if (p->kind == IR_PARAM_SCALAR) {
            sb_printf(b, "    %s %s;\n", abi_c_type(p->type), p->name);
            continue;
        }
        if (p->builder) /* qd.types.sparse_matrix_builder() (qdc-abi(7), Sparse matrix builders) */
            sb_printf(b, "    int32_t *%s; /* sparse matrix builder: [count, i0, j0, v0, ...], v as f32 bits; %s_shape[0] = 1 + "
                         "3 * capacity; count = appends made (may exceed capacity; min(count, capacity) stored) */\n", p->name, p->name);
        else if (p->elem_ndim == 1)
            sb_printf(b, "    %s *%s; /* ndarray[%s, %d]: the last axis (%d) holds each element's vector */\n", abi_c_type(p->type),
                      p->name, qt_name(p->type), p->ndim, p->elem_shape[0]);
        else if (p->elem_ndim == 2)
            sb_printf(b, "    %s *%s; /* ndarray[%s, %d]: the last axes (%d, %d) hold each element's matrix */\n", abi_c_type(p->type),
                      p->name, qt_name(p->type), p->ndim, p->elem_shape[0], p->elem_shape[1]);
        else if (p->permuted) { /* qd.tensor(..., layout=): data and shape in storage order (qdc-abi(7)) */
            sb_printf(b, "    %s *%s; /* ndarray[%s, %d], layout (", abi_c_type(p->type), p->name, qt_name(p->type), p->ndim);
            for (int d = 0; d < p->ndim; d++) sb_printf(b, "%s%d", d ? ", " : "", p->layout[d]);
            sb_printf(b, "): storage axis k is canonical axis layout[k]; data and %s_shape in storage order */\n", p->name);
        } else
            sb_printf(b, "    %s *%s; /* ndarray[%s, %d] */\n", abi_c_type(p->type), p->name, qt_name(p->type), p->ndim);
        sb_printf(b, "    int32_t %s_shape[%d];\n", p->name, p->ndim);
    }
    if (!k->nparams) sb_puts(b, "    uint8_t qdc_unused_; /* no parameters */\n");
    sb_printf(b, "} %s_args;\n", k->name);
}

/* The element index of a field in its SNode storage, as C text over i0, i1, ... (the same
 * formula the frontend emits: man/qdc-abi.7, "SNode storages"). */
static void snode_index(StrBuf *b, const IrField *f) {
    long long esz = (qt_bits(f->type) + 7) / 8;
    sb_printf(b, "%lldLL", (long long)f->offset / esz);
    for (int l = 0; l < f->nlevels; l++) {
        const IrSnodeLevel *lv = &f->levels[l];
        sb_puts(b, " + (");
        for (int k = 0; k < lv->naxes; k++) {
            long long inner = 1;
            bool outer = true;
            for (int m = l + 1; m < f->nlevels; m++)
                for (int j = 0; j < f->levels[m].naxes; j++)
                    if (f->levels[m].axis[j] == lv->axis[k]) inner *= f->levels[m].size[j];
            for (int m = 0; m < l; m++)
                for (int j = 0; j < f->levels[m].naxes; j++) outer &= f->levels[m].axis[j] != lv->axis[k];
            if (k) sb_printf(b, " * %lldLL + ", (long long)lv->size[k]);
            sb_printf(b, "(int64_t)i%d", lv->axis[k]);
            if (inner > 1) sb_printf(b, " / %lld", inner);
            if (!outer) sb_printf(b, " %% %lld", (long long)lv->size[k]);
        }
        sb_printf(b, ") * %lldLL + %lldLL", (long long)(lv->cell_bytes / esz), (long long)(lv->child_offset / esz));
    }
}

/* A field in an SNode storage: a pointer to element (i0, i1, ...). */
static void snode_field_decl(StrBuf *b, const IrModule *m, const IrField *f) {
    const IrStorage *st = &m->storages[f->storage - 1];
    sb_printf(b, "static inline %s *qd_field_%s_at(", abi_c_type(f->type), f->name);
    for (int d = 0; d < f->ndim; d++) sb_printf(b, "%sint32_t i%d", d ? ", " : "", d);
    if (!f->ndim) sb_puts(b, "void");
    sb_printf(b, ") {\n    return (%s *)(void *)qd_snode_%s + (", abi_c_type(f->type), st->name);
    snode_index(b, f);
    sb_puts(b, ");\n}\n");
}

/* The element type of a vector/matrix field, qd_vec3_f32 or qd_mat2x3_f32: one element's
 * components, row-major and contiguous (the typedef is shared by every header). */
static const char *elem_typedef(StrBuf *b, const IrField *f, char *name, size_t cap) {
    const int64_t *e = &f->shape[f->ndim - f->elem_ndim];
    if (f->elem_ndim == 1) snprintf(name, cap, "qd_vec%lld_%s", (long long)e[0], qt_name(f->type));
    else snprintf(name, cap, "qd_mat%lldx%lld_%s", (long long)e[0], (long long)e[1], qt_name(f->type));
    sb_printf(b, "#ifndef %s_DEFINED\n#define %s_DEFINED\ntypedef %s %s[%lld]", name, name, abi_c_type(f->type), name, (long long)e[0]);
    if (f->elem_ndim == 2) sb_printf(b, "[%lld]", (long long)e[1]);
    sb_puts(b, ";\n#endif\n");
    return name;
}

static void field_decl(StrBuf *b, const IrField *f) {
    char elem[64];
    const char *t = f->elem_ndim ? elem_typedef(b, f, elem, sizeof elem) : abi_c_type(f->type);
    sb_printf(b, "extern %s qd_field_%s", t, f->name);
    for (int d = 0; d < f->ndim - f->elem_ndim; d++) sb_printf(b, "[%lld]", (long long)f->shape[d]);
    sb_puts(b, ";\n");
}

/* The C struct of a struct or tuple return, nested as the type is: the members whose path starts
 * with the first plen characters of prefix, from index i; returns the index after them. */
static int ret_members(StrBuf *b, const IrKernel *k, int i, const char *prefix, size_t plen, int depth) {
    while (i < k->ret_nmembers && !strncmp(k->ret_members[i].name, prefix, plen)) {
        const IrRetMember *r = &k->ret_members[i];
        const char *rest = r->name + plen, *dot = strchr(rest, '.');
        sb_printf(b, "%*s", 4 * depth, "");
        if (dot) { /* a nested struct: its members share the path up to the dot */
            sb_puts(b, "struct {\n");
            i = ret_members(b, k, i, r->name, (size_t)(dot - r->name) + 1, depth + 1);
            sb_printf(b, "%*s} %.*s;\n", 4 * depth, "", (int)(dot - rest), rest);
            continue;
        }
        sb_printf(b, "%s %s", abi_c_type(r->type), rest);
        if (r->n) sb_printf(b, "[%d]", r->n);
        if (r->m) sb_printf(b, "[%d]", r->m);
        sb_puts(b, ";\n");
        i++;
    }
    return i;
}

static void ret_typedef(StrBuf *b, const IrKernel *k) {
    sb_printf(b, "typedef struct %s_ret {\n", k->name);
    ret_members(b, k, 0, "", 0, 1);
    sb_printf(b, "} %s_ret;\n", k->name);
}

static const char *task_kind(const IrTask *t) {
    return t->kind == IR_TASK_SERIAL ? "QDRT_SERIAL" : t->uses_block ? "QDRT_BLOCK" : "QDRT_PARALLEL";
}

/* Entry points and the inline launcher `int <kernel>(const <kernel>_args *, int nthreads)` (`<kernel>_`
 * for a kernel named like a C keyword or library function: abi_launcher). */
static void cpu_launcher(StrBuf *b, const IrModule *m, const IrKernel *k, const CapTarget *cap) {
    for (int i = 0; i < k->ntasks; i++) {
        const char *s = k->tasks[i].name;
        sb_printf(b, "void %s(const void *args, int32_t begin, int32_t end, qdrt_lane *lane);\n", s);
        if (k->tasks[i].kind == IR_TASK_PARALLEL) sb_printf(b, "int32_t %s_extent(const void *args);\n", s);
    }
    bool ret = k->ret_type != QT_VOID, agg = k->ret_nmembers > 0;
    int len = k->ret_m ? k->ret_n * k->ret_m : k->ret_n;
    if (agg)
        sb_printf(b, "/* %s returns a struct %s_ret (above): stored in *ret when the launch succeeds (ret may be NULL) */\n",
                  k->name, k->name);
    else if (ret && len)
        sb_printf(b, "/* %s returns a %s of %s (%d components, row-major): stored in ret[0..%d] when the launch succeeds (ret may be NULL) */\n",
                  k->name, k->ret_m ? "matrix" : "vector", qt_name(k->ret_type), len, len - 1);
    else if (ret) sb_printf(b, "/* %s returns %s: stored in *ret when the launch succeeds (ret may be NULL) */\n", k->name, qt_name(k->ret_type));
    const char *rtype = agg ? xasprintf("%s_ret", k->name) : ret ? xstrdup(abi_c_type(k->ret_type)) : NULL;
    StrBuf launcher; /* `double_` for a kernel named double (qdc-abi(7), NAMES) */
    sb_init(&launcher);
    abi_launcher(&launcher, k->name);
    if (k->ncheckpoints) { /* qd.checkpoint: <k> runs from the start, <k>_resume from a checkpoint, both through <k>_from */
        sb_printf(b, "static inline int %s_from(const %s_args *args, int nthreads, const int64_t *from_checkpoint, "
                     "qdrt_graph_status *status%s%s%s);\n", k->name, k->name, rtype ? ", " : "", rtype ? rtype : "", rtype ? " *ret" : "");
        sb_printf(b, "/* %s runs the kernel from its start, %s_resume from the checkpoint labelled from_checkpoint (EINVAL: no such\n"
                     "   label); *status (may be NULL) says whether a checkpoint yielded and which (qdc-abi(7), Checkpoints) */\n",
                  launcher.data, k->name);
        sb_printf(b, "static inline int %s(const %s_args *args, int nthreads, qdrt_graph_status *status%s%s%s) {\n"
                     "    return %s_from(args, nthreads, NULL, status%s);\n}\n", launcher.data, k->name, rtype ? ", " : "",
                  rtype ? rtype : "", rtype ? " *ret" : "", k->name, rtype ? ", ret" : "");
        sb_printf(b, "static inline int %s_resume(const %s_args *args, int nthreads, int64_t from_checkpoint, qdrt_graph_status *status%s%s%s) {\n"
                     "    return %s_from(args, nthreads, &from_checkpoint, status%s);\n}\n", k->name, k->name, rtype ? ", " : "",
                  rtype ? rtype : "", rtype ? " *ret" : "", k->name, rtype ? ", ret" : "");
        sb_printf(b, "static inline int %s_from(const %s_args *args, int nthreads, const int64_t *from_checkpoint, qdrt_graph_status *status",
                  k->name, k->name);
    } else sb_printf(b, "static inline int %s(const %s_args *args, int nthreads", launcher.data, k->name);
    sb_free(&launcher);
    if (rtype) sb_printf(b, ", %s *ret", rtype);
    free((void *)rtype);
    sb_puts(b, ") {\n");
    sb_puts(b, "    static const qdrt_task tasks[] = {\n");
    for (int i = 0; i < k->ntasks; i++) {
        const IrTask *t = &k->tasks[i];
        char *ext = t->kind == IR_TASK_PARALLEL ? xasprintf("%s_extent", t->name) : xstrdup("0");
        sb_printf(b, "        {%s, %s, %s, %d, %ld},\n", t->name, ext, task_kind(t), abi_block_dim(t, cap),
                  (long)ir_task_shared_bytes(k, NULL, i)); /* x86: nothing widened */
        free(ext);
    }
    sb_puts(b, "    };\n");
    char *launch = xasprintf("qdrt_launch(tasks, %d, args, nthreads)", k->ntasks);
    if (k->nloops || k->ncheckpoints) { /* qd.graph.do_while: libqdrt repeats the ranges */
        sb_puts(b, "    static const qdrt_loop loops[] = {\n");
        for (int l = 0; l < k->nloops; l++)
            sb_printf(b, "        {%d, %d, (int32_t)offsetof(%s_args, %s)},\n", k->loops[l].first, k->loops[l].last, k->name,
                      k->params[k->loops[l].param].name);
        if (!k->nloops) sb_puts(b, "        {0, 0, 0} /* none */\n");
        sb_puts(b, "    };\n");
        free(launch);
        launch = xasprintf("qdrt_launch_loops(tasks, %d, loops, %d, args, nthreads)", k->ntasks, k->nloops);
    }
    if (k->ncheckpoints) { /* qd.checkpoint: libqdrt skips and stops (qdc-abi(7), Checkpoints) */
        sb_puts(b, "    static const int32_t task_cp[] = {");
        for (int i = 0; i < k->ntasks; i++) sb_printf(b, "%s%d", i ? ", " : "", k->tasks[i].cp - 1);
        sb_puts(b, "};\n    static const qdrt_checkpoint cps[] = {\n");
        for (int c = 0; c < k->ncheckpoints; c++) {
            const IrCheckpoint *cp = &k->checkpoints[c];
            if (cp->param < 0) sb_printf(b, "        {0, -1}, /* %d: implicit */\n", c);
            else sb_printf(b, "        {%lld, (int32_t)offsetof(%s_args, %s)}, /* %d: %s */\n", (long long)cp->label, k->name,
                           k->params[cp->param].name, c, cp->text);
        }
        sb_puts(b, "    };\n");
        free(launch);
        launch = xasprintf("qdrt_launch_checkpoints(tasks, task_cp, %d, loops, %d, cps, %d, from_checkpoint, args, nthreads, status)",
                           k->ntasks, k->nloops, k->ncheckpoints);
    }
    if (agg) {
        sb_printf(b, "    int rc = %s;\n    if (!rc && ret) {\n", launch);
        free(launch);
        for (int i = 0; i < k->ret_nmembers; i++) {
            const IrRetMember *r = &k->ret_members[i];
            const char *f = m->fields[r->field].name;
            if (!r->n) sb_printf(b, "        ret->%s = qd_field_%s;\n", r->name, f);
            else if (!r->m) sb_printf(b, "        for (int i = 0; i < %d; i++) ret->%s[i] = qd_field_%s[i];\n", r->n, r->name, f);
            else
                sb_printf(b, "        for (int i = 0; i < %d; i++) ret->%s[i / %d][i %% %d] = qd_field_%s[i];\n", r->n * r->m, r->name,
                          r->m, r->m, f);
        }
        sb_puts(b, "    }\n    return rc;\n}\n");
        return;
    }
    if (!ret) {
        sb_printf(b, "    return %s;\n}\n", launch);
        free(launch);
        return;
    }
    sb_printf(b, "    int rc = %s;\n", launch);
    free(launch);
    if (len)
        sb_printf(b, "    if (!rc && ret)\n        for (int i = 0; i < %d; i++) ret[i] = qd_field_%s[i];\n    return rc;\n}\n", len,
                  m->fields[k->ret_field].name);
    else sb_printf(b, "    if (!rc && ret) *ret = qd_field_%s;\n    return rc;\n}\n", m->fields[k->ret_field].name);
}

/* The do-while loops of a graph kernel, for every backend: the host runs the tasks in order and
 * repeats each loop's range (qdc-abi(7), "Do-while loops"). */
static void loops_decl(StrBuf *b, const IrKernel *k) {
    sb_printf(b, "/* %s repeats tasks (qd.graph.do_while, qdc-abi(7)): run the tasks in order; after a loop's last task, while\n"
                 "   element 0 of its condition ndarray is non-zero, continue at its first task (loops ending there: innermost first).\n",
              k->name);
    for (int l = 0; l < k->nloops; l++) {
        sb_printf(b, "   loop %d: tasks %d..%d while %s (parameter %d)", l, k->loops[l].first, k->loops[l].last,
                  k->params[k->loops[l].param].name, k->loops[l].param);
        if (k->loops[l].parent >= 0) sb_printf(b, ", inside loop %d", k->loops[l].parent);
        sb_puts(b, "\n");
    }
    sb_printf(b, "   %s_LOOPS: {first task, last task, condition parameter index} per loop, outer loops first */\n", k->name);
    sb_printf(b, "#define %s_NLOOPS %d\n#define %s_LOOPS {", k->name, k->nloops, k->name);
    for (int l = 0; l < k->nloops; l++) sb_printf(b, "%s{%d, %d, %d}", l ? ", " : "", k->loops[l].first, k->loops[l].last, k->loops[l].param);
    sb_puts(b, "}\n");
}

/* The components of a vector or matrix parameter (v: qd.types.vector(3, qd.f32)) are the scalar
 * parameters v_0, v_1, ... (row-major), each with the type's shape in elem_shape (elem_ndim 0):
 * the number of them from parameter i (0: i is not a vector's first component, or another
 * parameter is named v, as p_pos beside p: P with a member pos: then each component is given). */
static int vector_run(const IrKernel *k, int i, size_t *base) {
    const IrParam *p = &k->params[i];
    const char *us = strrchr(p->name, '_');
    if (p->kind != IR_PARAM_SCALAR || p->elem_shape[0] < 1 || !us || strcmp(us, "_0")) return 0;
    int n = p->elem_shape[1] ? p->elem_shape[0] * p->elem_shape[1] : p->elem_shape[0];
    if (i + n > k->nparams) return 0; /* not the frontend's: a scalar */
    *base = (size_t)(us - p->name);
    for (int j = 0; j < k->nparams; j++)
        if (strlen(k->params[j].name) == *base && !strncmp(k->params[j].name, p->name, *base)) return 0;
    return n;
}

/* A scalar's C type in a typed launcher: f16 and bf16 are given as float (libqdrt rounds them). */
static const char *run_c_type(QdType t) { return t == QT_F16 || t == QT_BF16 ? "float" : abi_c_type(t); }

/* The typed launcher of a kernel, the same text in every target's header: `qdrt_status
 * <kernel>_run(qdrt_device *dev, <typed arguments>[, ret])` runs the kernel of this module loaded
 * on dev through libqdrt's device API (qdrt(3)): an ndarray as a qdrt_array *, a scalar in its C
 * type (f16/bf16 as float, rounded to nearest even), a vector as const T v[n], a matrix as
 * const T m[n][m], and the return value in *ret (a struct as <kernel>_ret). */
static void typed_launcher(StrBuf *b, const IrKernel *k, const char *module) {
    int len = k->ret_m ? k->ret_n * k->ret_m : k->ret_n ? k->ret_n : 1;
    sb_printf(b, "static inline qdrt_status %s_run(qdrt_device *dev", k->name);
    for (int i = 0, n; i < k->nparams; i += n) {
        const IrParam *p = &k->params[i];
        size_t base = 0;
        if ((n = vector_run(k, i, &base))) {
            sb_printf(b, ", const %s %.*s[%d]", run_c_type(p->type), (int)base, p->name, p->elem_shape[0]);
            if (p->elem_shape[1]) sb_printf(b, "[%d]", p->elem_shape[1]);
            continue;
        }
        n = 1;
        if (p->kind == IR_PARAM_SCALAR) sb_printf(b, ", %s %s", run_c_type(p->type), p->name);
        else sb_printf(b, ", qdrt_array *%s", p->name);
    }
    if (k->ret_nmembers) sb_printf(b, ", %s_ret *ret", k->name);
    else if (k->ret_type != QT_VOID) sb_printf(b, ", %s *ret", abi_c_type(k->ret_type));
    sb_puts(b, ") {\n");
    if (k->nparams) {
        sb_puts(b, "    const qdrt_value args[] = {");
        for (int i = 0, n; i < k->nparams; i += n) {
            const IrParam *p = &k->params[i];
            size_t base = 0;
            n = vector_run(k, i, &base);
            const char *wrap = p->kind != IR_PARAM_SCALAR ? "qdrt_arr" : qt_is_float(p->type) ? "qdrt_f64" : "qdrt_i64";
            const char *cast = !strcmp(wrap, "qdrt_i64") ? "(int64_t)" : "";
            int m = p->elem_shape[1];
            if (!n) sb_printf(b, "%s%s(%s%s)", i ? ", " : "", wrap, cast, p->name), n = 1;
            else if (!m)
                for (int c = 0; c < n; c++) sb_printf(b, "%s%s(%s%.*s[%d])", i + c ? ", " : "", wrap, cast, (int)base, p->name, c);
            else
                for (int c = 0; c < n; c++)
                    sb_printf(b, "%s%s(%s%.*s[%d][%d])", i + c ? ", " : "", wrap, cast, (int)base, p->name, c / m, c % m);
        }
        sb_puts(b, "};\n");
    }
    sb_printf(b, "    return qdrt_launch_on(dev, \"%s\", \"%s\", %s, %d, ", module, k->name, k->nparams ? "args" : "NULL", k->nparams);
    if (k->ret_nmembers) sb_puts(b, "ret, ret ? sizeof *ret : 0);\n}\n");
    else if (k->ret_type != QT_VOID) sb_printf(b, "ret, ret ? %d * sizeof *ret : 0);\n}\n", len);
    else sb_puts(b, "NULL, 0);\n}\n");
}

bool header_emit(const IrModule *m, const CapTarget *t, const TargetOptions *o, const AbiBindings *bind, StrBuf *out) {
    bool cpu = !strcmp(cap_backend(t), "x86_64");
    StrBuf guard;
    sb_init(&guard);
    /* with --symbol-prefix the guard has it too: headers of one module for two prefixes (two
     * CPU families of one library) can be included together */
    char *gname = xasprintf("%s%s", o->symbol_prefix ? o->symbol_prefix : "", o->module_name);
    abi_guard(&guard, gname, bind ? bind->guard_suffix : "H");
    free(gname);
    sb_printf(out, "/* Generated by qdc from %s for %s: qdc C ABI version %d, see qdc-abi(7). */\n",
              o->module_name, cap_name(t), QDC_ABI_VERSION);
    if (bind && bind->header_note) sb_printf(out, "/* %s */\n", bind->header_note);
    sb_printf(out, "#ifndef %s\n#define %s\n#include <stdint.h>\n", guard.data, guard.data);
    if (cpu) sb_puts(out, "#include \"qdrt.h\"\n");
    sb_puts(out, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n");
    if (cpu && m->nfields) sb_puts(out, "\n/* fields: zero-initialized, row-major */\n");
    for (int i = 0; cpu && i < m->nfields; i++)
        if (!m->fields[i].storage) field_decl(out, &m->fields[i]);
    if (cpu && m->nstorages) sb_puts(out, "\n/* SNode storages (qd.root.dense(...).place(...)): fields placed together interleave;\n"
                                         "   qd_field_<name>_at(i0, ...) points at an element (qdc-abi(7)) */\n");
    for (int i = 0; cpu && i < m->nstorages; i++)
        sb_printf(out, "extern uint8_t qd_snode_%s[%lld];\n", m->storages[i].name, (long long)m->storages[i].bytes);
    for (int i = 0; cpu && i < m->nfields; i++)
        if (m->fields[i].storage) snode_field_decl(out, m, &m->fields[i]);
    for (int i = 0; i < m->nkernels; i++) {
        const IrKernel *k = &m->kernels[i];
        const char *slot = k->ret_n ? "1-d (components, row-major)" : "0-d";
        sb_printf(out, "\n/* kernel %s */\n", k->name);
        if (bind) bind->args_struct(out, m, i, bind->ctx);
        else args_struct(out, k);
        if (k->ret_nmembers) ret_typedef(out, k);
        if (k->ret_nmembers && !cpu) { /* GPU: the host reads each member's slot after the launch */
            sb_printf(out, "/* %s returns a struct %s_ret, each member in its own field (%s; the metadata's \"returns\"):", k->name,
                      k->name, bind ? "a buffer binding" : "symbol qd_field_<field>");
            for (int r = 0; r < k->ret_nmembers; r++)
                sb_printf(out, "%s %s in %s", r ? "," : "", k->ret_members[r].name, m->fields[k->ret_members[r].field].name);
            sb_puts(out, " */\n");
        }
        for (int ti = 0; !cpu && ti < k->ntasks; ti++)
            if (abi_device_extent(&k->tasks[ti]))
                sb_printf(out, "/* %s reads its loop bounds on the device (qdc-abi(7), Device bounds): any grid covers "
                               "them; %d blocks of %d suggested */\n", k->tasks[ti].name,
                          abi_device_groups(&k->tasks[ti], abi_block_dim(&k->tasks[ti], t)), abi_block_dim(&k->tasks[ti], t));
        if (k->nloops) loops_decl(out, k);
        if (cpu) cpu_launcher(out, m, k, t);
        else if (k->ret_type != QT_VOID && !bind) /* GPU: the host reads the result slot after the launch */
            sb_printf(out, "/* %s returns %s in the %s field symbol qd_field_%s (see the metadata's \"returns\") */\n",
                      k->name, qt_name(k->ret_type), slot, m->fields[k->ret_field].name);
        else if (k->ret_type != QT_VOID)
            sb_printf(out, "/* %s returns %s in the %s field %s: its buffer binding (see the metadata's \"returns\") */\n",
                      k->name, qt_name(k->ret_type), slot, m->fields[k->ret_field].name);
    }
    if (m->nkernels) { /* typed launchers, for every backend: they need libqdrt's device API */
        sb_puts(out, "\n/* Typed launchers (qdrt(3)): include \"qdrt_device.h\" before this header. Each runs its kernel of module ");
        sb_printf(out, "%s,\n   loaded on dev with qdrt_module_load, on any device (Vulkan, CUDA, HIP, CPU). */\n#ifdef QDRT_DEVICE_H\n",
                  o->module_name);
        for (int i = 0; i < m->nkernels; i++) typed_launcher(out, &m->kernels[i], o->module_name);
        sb_puts(out, "#endif\n");
    }
    sb_printf(out, "\n#ifdef __cplusplus\n}\n#endif\n#endif /* %s */\n", guard.data);
    sb_free(&guard);
    return true;
}
