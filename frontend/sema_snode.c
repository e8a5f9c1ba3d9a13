/* SNode placement at module level: x = qd.field(qd.f32) declares a field without a shape;
 * qd.root.dense(qd.ij, (n, m)).place(a, b) (nested dense, qd.root.place(x) for 0-d) gives it
 * one. The layout is Quadrants': a dense node is an array of cells, a cell holds the node's
 * children in placement order with natural alignment (a C struct), so fields placed together
 * interleave; a field's index along an axis is split over the levels that name the axis, the
 * outer level most significant. A field alone under its qd.root child whose levels name axes
 * in non-decreasing order (so the layout is row-major) stays a plain buffer (qd_field_<name>); the others live in one storage per qd.root child
 * (qd_snode_<name>) and every access carries its element index (IrRef.flat). Sparse nodes
 * (pointer, bitmasked, dynamic) are laid out as dense ones, plus a metadata field each
 * (ir/sparse.h); their in-kernel operations are frontend/sema_sparse.c. Quantized nodes and
 * autodiff placement are rejected (QD2063). */
#include "sema.h"
#include "../ir/sparse.h"
#include "sema_sparse.h"
#include <string.h>

typedef struct SNode {
    int parent;
    int naxes;
    int axis[IR_MAX_DIMS];
    int64_t size[IR_MAX_DIMS];
    VEC(int) ch; /* >= 0: a node; < 0: field -(k + 1) */
    int64_t cell_bytes, ncells;
    int align;
    Span span;
    int kind;     /* IR_SNODE_DENSE, _POINTER, _BITMASKED, _DYNAMIC */
    int meta;     /* sparse: its metadata field (ir/sparse.h), -1 before sema_snode_finish */
    bool viewed;  /* view is filled (sema_snode_finish) */
    IrField view; /* the node's own index space as a field without storage: its path's levels,
                     shape, sparse levels (the indices qd.is_active(node, I) and `for I in node` use) */
} SNode;

static int new_node(Sema *S, int parent, Span sp) {
    SNode n = {.parent = parent, .span = sp, .ncells = 1, .meta = -1};
    vec_push(&S->snodes, n);
    if (parent >= 0) vec_push(&S->snodes.items[parent].ch, S->snodes.len - 1);
    return S->snodes.len - 1;
}

static int root(Sema *S, Span sp) {
    if (!S->snodes.len) new_node(S, -1, sp);
    return 0;
}

/* qd.i, qd.ij, qd.ijk, qd.ijkl (and qd.axes(0, 1)): the axes a node splits. */
static int axes_of(Sema *S, const Expr *e, int *axis) {
    if (e->kind == E_CALL) {
        const char *p = sema_path(S, e->call.fn);
        if (p && !strcmp(p, "qd.axes") && e->call.args.n >= 1 && e->call.args.n <= IR_MAX_DIMS) {
            for (int k = 0; k < e->call.args.n; k++) {
                int64_t v;
                if (!sema_const_int(S, e->call.args.items[k], &v, "an axis")) return -1;
                if (v < 0 || v >= IR_MAX_DIMS) return diag_error(e->call.args.items[k]->span, QD2063, "axis %lld is out of range", (long long)v), -1;
                axis[k] = (int)v;
            }
            return e->call.args.n;
        }
    }
    const char *p = sema_path(S, e);
    if (!p && e->kind == E_NAME) { /* indices = qd.ij; qd.root.pointer(indices, 8) */
        Binding *b = sema_lookup(S, e->name);
        if (b && b->v.kind == V_NS) p = b->v.path;
    }
    if (p && !strncmp(p, "qd.", 3) && strlen(p) > 3 && strlen(p + 3) <= 4 && strspn(p + 3, "ijkl") == strlen(p + 3)) {
        int n = 0;
        for (const char *c = p + 3; *c; c++) axis[n++] = *c - 'i';
        return n;
    }
    diag_error(e->span, QD2063, "expected axes such as qd.i, qd.ij or qd.ijk");
    return -1;
}

static Val dense(Sema *S, const Expr *call, int parent, int kind) {
    static const char *const names[] = {"dense", "pointer", "bitmasked", "dynamic"};
    int nkw = call->call.nkw;
    int nargs = call->call.args.n;
    if (kind == IR_SNODE_DYNAMIC && nkw == 1 && !strcmp(call->call.kw[0].name, "chunk_size")) nkw = 0; /* allocation granule: none in qdc */
    if (kind == IR_SNODE_DYNAMIC && nargs == 3 && !call->call.nkw) nargs = 2; /* dynamic(axis, n, chunk_size) */
    if (nargs != 2 || nkw)
        return diag_error(call->span, QD2063, "%s takes (axes, shape), e.g. qd.root.%s(qd.%s, %s)", names[kind], names[kind],
                          kind == IR_SNODE_DYNAMIC ? "j" : "ij", kind == IR_SNODE_DYNAMIC ? "1024" : "(4, 8)"), val_err();
    if (parent > 0 && S->snodes.items[parent].kind == IR_SNODE_DYNAMIC)
        return diag_error(call->call.fn->span, QD2063, "a dynamic SNode holds fields only: place() under it, not '%s'", names[kind]), val_err();
    SNode n = {0};
    int64_t sizes[IR_MAX_DIMS];
    n.naxes = axes_of(S, call->call.args.items[0], n.axis);
    int ns = n.naxes < 0 ? -1 : sema_const_shape(S, call->call.args.items[1], sizes, IR_MAX_DIMS, "a dense shape");
    if (n.naxes < 0 || ns < 0) return val_err();
    if (ns != 1 && ns != n.naxes)
        return diag_error(call->call.args.items[1]->span, QD2063, "%d axes but %d sizes", n.naxes, ns), val_err();
    if (kind == IR_SNODE_DYNAMIC && n.naxes != 1) /* Quadrants: "Dynamic SNode can only have one index" */
        return diag_error(call->call.args.items[0]->span, QD2063, "a dynamic SNode has one axis (Quadrants: \"Dynamic SNode can only have one index\"), got %d", n.naxes), val_err();
    for (int k = 0; k < n.naxes; k++) {
        n.size[k] = sizes[ns == 1 ? 0 : k];
        for (int j = 0; j < k; j++)
            if (n.axis[j] == n.axis[k]) return diag_error(call->call.args.items[0]->span, QD2063, "an axis is named twice"), val_err();
        if (n.size[k] <= 0 || n.size[k] > INT32_MAX)
            return diag_error(sema_shape_span(call->call.args.items[1], k), QD2063, "%s size %lld is out of range", names[kind], (long long)n.size[k]), val_err();
    }
    for (int k = 1; k < n.naxes; k++) /* sort by axis: the lower axis is the more significant */
        for (int j = k; j > 0 && n.axis[j - 1] > n.axis[j]; j--) {
            int a = n.axis[j]; n.axis[j] = n.axis[j - 1], n.axis[j - 1] = a;
            int64_t z = n.size[j]; n.size[j] = n.size[j - 1], n.size[j - 1] = z;
        }
    int id = new_node(S, parent, call->span);
    SNode *p = &S->snodes.items[id];
    p->naxes = n.naxes, p->kind = kind;
    memcpy(p->axis, n.axis, sizeof n.axis), memcpy(p->size, n.size, sizeof n.size);
    for (int k = 0; k < n.naxes; k++) p->ncells *= p->size[k];
    return (Val){.kind = V_SNODE, .snode = {id, NULL}};
}

/* place(x, ..., offset=(a, b)): every field placed gets that origin (Quadrants' index shift);
 * the count must match the field's dimensions (checked when the shapes are known). */
static void place_origin(Sema *S, const int64_t *o, int n, int field) {
    if (n <= 0 || field < 0) return;
    IrField *f = &S->fields.items[field];
    for (int k = 0; k < n; k++) f->origin[k] = o[k];
    f->norigin = n;
}

static Val place(Sema *S, const Expr *call, int node) {
    int64_t origin[IR_MAX_DIMS];
    int norigin = 0;
    for (int k = 0; k < call->call.nkw; k++) {
        const Keyword *kw = &call->call.kw[k];
        Binding *b = kw->value->kind == E_NAME ? sema_lookup(S, kw->value->name) : NULL;
        if (strcmp(kw->name, "offset"))
            return diag_error(kw->span, QD2063, "place(..., %s=) is not supported", kw->name), val_err();
        if (kw->value->kind == E_NONE || (b && b->v.kind == V_NONE)) continue;
        if ((norigin = sema_const_shape(S, kw->value, origin, IR_MAX_DIMS, "a place offset")) < 0) return val_err();
    }
    for (int k = 0; k < call->call.args.n; k++) {
        const Expr *a = call->call.args.items[k];
        Val v = sema_eval(S, a);
        if (v.kind == V_ERR) continue;
        if ((v.kind == V_VEC && v.vec.c[0].kind == V_FIELD) || (v.kind == V_STRUCT && v.strct.st)) { /* every component */
            int leaf[1024], n = 0;
            if (v.kind == V_STRUCT) n = sema_struct_leaf_fields(v, leaf, 1024);
            for (int c = 0; v.kind == V_VEC && c < vec_len(v) && n < 1024; c++) leaf[n++] = v.vec.c[c].kind == V_FIELD ? v.vec.c[c].index : -1;
            for (int j = 0; j < n; j++) {
                if (leaf[j] < 0 || S->fields.items[leaf[j]].ndim >= 0) continue;
                S->fields.items[leaf[j]].ndim = 0;
                place_origin(S, origin, norigin, leaf[j]);
                vec_push(&S->snodes.items[node].ch, -(leaf[j] + 1));
            }
            continue;
        }
        int word = sema_quant_pack_word(S, v, a->span); /* a qd.BitpackedFields: its word */
        if (word == -1) continue;
        if (word >= 0) v = (Val){.kind = V_FIELD, .index = word};
        if (v.kind != V_FIELD) {
            diag_error(a->span, QD2063, "place() takes fields declared with qd.field(dtype), not %s", val_describe(v));
            continue;
        }
        IrField *f = &S->fields.items[v.index];
        if (f->ndim >= 0) {
            diag_error(a->span, QD2063, "field '%s' already has a place (declared with shape= or placed before)", f->name);
            continue;
        }
        f->ndim = 0; /* placed: the shape is computed by sema_snode_finish */
        place_origin(S, origin, norigin, v.index);
        vec_push(&S->snodes.items[node].ch, -(v.index + 1));
    }
    return (Val){.kind = V_SNODE, .snode = {node, NULL}};
}

/* qd.FieldsBuilder(): a root of its own. Its children are children of qd.root here (each
 * child of qd.root is its own storage, or a plain field, so the layout is the one a separate
 * tree would have); the builder only remembers whether it was finalized. */
Val sema_snode_builder(Sema *S, const Expr *call) {
    if (S->k) return diag_error(call->span, QD2063, "qd.FieldsBuilder() is host code: build SNode trees at module level or in a host function, not in a kernel"), val_err();
    if (call->call.args.n || call->call.nkw) return diag_error(call->span, QD2063, "qd.FieldsBuilder() takes no arguments"), val_err();
    vec_push(&S->builders, (Span){0});
    return (Val){.kind = V_SNODE, .snode = {root(S, call->span), NULL, S->builders.len}};
}

static Val builder_method(Sema *S, const Expr *call, int b, const char *m) {
    Span *fin = &S->builders.items[b - 1];
    if (fin->src) { /* Quadrants raises QuadrantsRuntimeError("FieldsBuilder finalized") */
        diag_error(call->span, QD2063, "this qd.FieldsBuilder was finalized already; Quadrants raises "
                                       "QuadrantsRuntimeError(\"FieldsBuilder finalized\") at its '%s'", m);
        diag_note(*fin, "finalized here");
        return val_err();
    }
    for (int k = 0; k < call->call.nkw; k++)
        if (strcmp(call->call.kw[k].name, "raise_warning"))
            return diag_error(call->call.kw[k].span, QD2063, "finalize() takes no argument '%s'", call->call.kw[k].name), val_err();
    if (call->call.args.n > 1) return diag_error(call->span, QD2063, "finalize() takes (raise_warning=True)"), val_err();
    *fin = call->span;
    return (Val){.kind = V_HOST, .path = "an SNodeTree (the handle fb.finalize() returns; host code only)"};
}

void sema_snode_place_field(Sema *S, int node, int field) {
    S->fields.items[field].ndim = 0;
    vec_push(&S->snodes.items[node].ch, -(field + 1));
}

/* snode.quant_array(axes, shape, max_num_bits=N): its words are sema_quant.c's. */
static Val quant_array(Sema *S, const Expr *call, int node) {
    const Expr *mb = call->call.args.n == 3 ? call->call.args.items[2] : NULL;
    for (int k = 0; k < call->call.nkw; k++)
        if (!strcmp(call->call.kw[k].name, "max_num_bits")) mb = call->call.kw[k].value;
        else return diag_error(call->call.kw[k].span, QD2063, "quant_array() has no parameter '%s'", call->call.kw[k].name), val_err();
    if (call->call.args.n < 2 || call->call.args.n > 3 || !mb)
        return diag_error(call->span, QD2063, "quant_array takes (axes, shape, max_num_bits=32)"), val_err();
    int axis[IR_MAX_DIMS], n = axes_of(S, call->call.args.items[0], axis);
    int64_t sizes[IR_MAX_DIMS], size[IR_MAX_DIMS], bits;
    int ns = n < 0 ? -1 : sema_const_shape(S, call->call.args.items[1], sizes, IR_MAX_DIMS, "a quant_array shape");
    if (n < 0 || ns < 0 || !sema_const_int(S, mb, &bits, "max_num_bits")) return val_err();
    if (ns != 1 && ns != n) return diag_error(call->call.args.items[1]->span, QD2063, "%d axes but %d sizes", n, ns), val_err();
    for (int k = 0; k < n; k++) {
        size[k] = sizes[ns == 1 ? 0 : k];
        if (size[k] <= 0 || size[k] > 64) return diag_error(call->call.args.items[1]->span, QD2063, "quant_array size %lld is out of range", (long long)size[k]), val_err();
    }
    return sema_quant_array(S, node, n, axis, size, bits, call->span);
}

Val sema_snode_call(Sema *S, const Expr *call, Val callee) {
    int node;
    const char *m;
    if (callee.kind == V_SNODE) node = callee.snode.node, m = callee.snode.method;
    else node = root(S, call->span), m = callee.path + strlen("qd.root.");
    if (m && (!strcmp(m, "parent") || !strcmp(m, "deactivate_all"))) return sema_sparse_node_call(S, call, node, m);
    if (m && node < 0 && (!strcmp(m, "append") || !strcmp(m, "length") || !strcmp(m, "deactivate"))) return sema_sparse_list_call(S, call, callee);
    if (node < 0) return diag_error(call->span, QD2063, "a field's SNode (x.snode) has no method '%s' in qdc", m ? m : "()"), val_err();
    if (S->k) return diag_error(call->span, QD2063, "SNodes are declared at module level, not in a kernel"), val_err();
    if (!m) return diag_error(call->span, QD2063, "an SNode is not callable"), val_err();
    if (callee.kind == V_SNODE && callee.snode.builder) {
        Span fin = S->builders.items[callee.snode.builder - 1];
        if (!strcmp(m, "finalize") || fin.src) return builder_method(S, call, callee.snode.builder, m);
    } else if (!strcmp(m, "finalize")) {
        return diag_error(call->call.fn->span, QD2063, "finalize() is a method of qd.FieldsBuilder(), not of an SNode"), val_err();
    }
    if (!strcmp(m, "dense")) return dense(S, call, node, IR_SNODE_DENSE);
    if (!strcmp(m, "pointer")) return dense(S, call, node, IR_SNODE_POINTER);
    if (!strcmp(m, "bitmasked")) return dense(S, call, node, IR_SNODE_BITMASKED);
    if (!strcmp(m, "dynamic")) return dense(S, call, node, IR_SNODE_DYNAMIC);
    if (!strcmp(m, "place")) return place(S, call, node);
    if (!strcmp(m, "quant_array")) return quant_array(S, call, node);
    if (!strcmp(m, "hash") || !strcmp(m, "bit_struct"))
        return diag_error(call->call.fn->span, QD2063, "'%s' SNodes are not supported: qdc compiles dense, pointer, bitmasked and dynamic layouts", m), val_err();
    if ((!strcmp(m, "lazy_grad") || !strcmp(m, "lazy_dual")) && !call->call.args.n && !call->call.nkw)
        return sema_ad_lazy(S, m[5] == 'd'), (Val){.kind = V_NONE};
    if (!strcmp(m, "lazy_grad") || !strcmp(m, "lazy_dual"))
        return diag_error(call->call.fn->span, QD2063, "'%s' takes no arguments", m), val_err();
    if (!strcmp(m, "_allocate_adjoint_checkbit"))
        return diag_error(call->call.fn->span, QD2063, "'%s' (the global data access rule checker) is not supported: qdc checks that rule at compile time", m), val_err();
    return diag_error(call->call.fn->span, QD2063, "SNode method '%s' is not supported (dense, pointer, bitmasked, dynamic, place, parent and deactivate_all are)", m), val_err();
}

/* The members of a struct field (qd.Struct.field(..., shape=S)): placed together under one
 * dense node of shape S (0-d: on qd.root), as Quadrants places them, so each element's
 * members are one C struct of the storage's cell. */
void sema_snode_place_together(Sema *S, const int *fields, int n, const int64_t *shape, int ndim, Span sp) {
    int node = root(S, sp);
    if (ndim) {
        node = new_node(S, node, sp);
        SNode *p = &S->snodes.items[node];
        p->naxes = ndim;
        for (int k = 0; k < ndim; k++) p->axis[k] = k, p->size[k] = shape[k], p->ncells *= shape[k];
    }
    for (int k = 0; k < n; k++) {
        S->fields.items[fields[k]].ndim = 0;
        vec_push(&S->snodes.items[node].ch, -(fields[k] + 1));
    }
}

/* qd.field(..., shape=S, order="kji"): the fields (one, or a vector's components placed
 * together) under one dense node per axis, in the order given (outermost first; NULL:
 * row-major), so the storage is S with the axes permuted, as Quadrants lays out order= (a
 * dense node of the permuted shape; the index space stays S). This is the shared helper for
 * permuted layouts: a field's element (i0, i1, ...) is at the row-major position of
 * (i[axes[0]], i[axes[1]], ...) in the permuted shape, times the cell. */
void sema_snode_place_ordered(Sema *S, const int *fields, int n, const int64_t *shape, const int *axes, int ndim, Span sp) {
    int node = root(S, sp);
    for (int k = 0; k < ndim; k++) {
        int a = axes ? axes[k] : k;
        node = new_node(S, node, sp);
        SNode *p = &S->snodes.items[node];
        p->naxes = 1, p->axis[0] = a, p->size[0] = shape[a], p->ncells = shape[a];
    }
    for (int k = 0; k < n; k++) { /* placed: sema_snode_finish computes the shape and levels; the
                                     shape is known now, for host code that reads it before */
        IrField *f = &S->fields.items[fields[k]];
        f->ndim = ndim, f->elem_ndim = 0;
        for (int a = 0; a < ndim; a++) f->shape[a] = shape[a];
        vec_push(&S->snodes.items[node].ch, -(fields[k] + 1));
    }
}

Val sema_snode_attr(Sema *S, Val obj, const char *name) {
    if (obj.kind != V_SNODE) return sema_sparse_field_attr(S, obj, name);
    obj.snode.method = name;
    return obj;
}

/* ---- layout ---- */

static int64_t align_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

static int elem_bytes(QdType t) { return (qt_bits(t) + 7) / 8; }

/* Cell size and alignment of node n: its children in order, naturally aligned (a C struct). */
static void layout(Sema *S, int n) {
    SNode *p = &S->snodes.items[n];
    int64_t cur = 0;
    int align = 1;
    for (int k = 0; k < p->ch.len; k++) {
        int c = p->ch.items[k];
        int64_t size, a;
        if (c >= 0) {
            layout(S, c);
            SNode *q = &S->snodes.items[c];
            size = q->ncells * q->cell_bytes, a = q->align;
        } else {
            size = a = elem_bytes(S->fields.items[-c - 1].type);
        }
        cur = align_up(cur, a) + size;
        if (a > align) align = (int)a;
    }
    p = &S->snodes.items[n];
    p->align = align, p->cell_bytes = align_up(cur, align);
}

static int64_t child_offset(Sema *S, int n, int child) {
    SNode *p = &S->snodes.items[n];
    int64_t cur = 0;
    for (int k = 0; k < p->ch.len; k++) {
        int c = p->ch.items[k];
        int64_t size, a;
        if (c >= 0) size = S->snodes.items[c].ncells * S->snodes.items[c].cell_bytes, a = S->snodes.items[c].align;
        else size = a = elem_bytes(S->fields.items[-c - 1].type);
        cur = align_up(cur, a);
        if (c == child) return cur;
        cur += size;
    }
    die("child %d not under SNode %d", child, n);
}

static int count_fields(Sema *S, int n) {
    int c = 0;
    for (int k = 0; k < S->snodes.items[n].ch.len; k++) {
        int x = S->snodes.items[n].ch.items[k];
        c += x >= 0 ? count_fields(S, x) : 1;
    }
    return c;
}

/* Fills f's shape and levels from the path root child -> ... -> n (leaf: what sits in n's cell,
 * a node or -(field + 1); INT32_MIN: nothing, for a node's view); true when the layout is
 * row-major and dense. */
static bool fill_levels(Sema *S, IrField *f, int n, int leaf) {
    int path[64], np = 0;
    for (int x = n; x > 0 && np < 64; x = S->snodes.items[x].parent) path[np++] = x;
    f->nlevels = np > IR_MAX_DIMS ? IR_MAX_DIMS : np;
    int64_t extent[IR_MAX_DIMS];
    bool used[IR_MAX_DIMS] = {0}, row_major = true;
    int last = -1;
    for (int a = 0; a < IR_MAX_DIMS; a++) extent[a] = 1;
    for (int l = 0; l < f->nlevels; l++) {
        SNode *p = &S->snodes.items[path[np - 1 - l]];
        IrSnodeLevel *lv = &f->levels[l];
        lv->naxes = p->naxes, lv->cell_bytes = p->cell_bytes;
        lv->child_offset = l + 1 < np ? child_offset(S, path[np - 1 - l], path[np - 2 - l]) : leaf == INT32_MIN ? 0 : child_offset(S, path[np - 1 - l], leaf);
        lv->sparse = p->kind, lv->meta = p->meta;
        row_major &= !p->kind;
        for (int k = 0; k < p->naxes; k++) {
            lv->axis[k] = p->axis[k], lv->size[k] = p->size[k];
            /* row-major iff the axes, level by level, never decrease (a split axis stays contiguous) */
            extent[p->axis[k]] *= p->size[k], row_major &= p->axis[k] >= last;
            used[p->axis[k]] = true, last = p->axis[k];
        }
    }
    f->ndim = 0, f->elems = 1;
    for (int a = 0; a < IR_MAX_DIMS; a++)
        if (used[a]) f->shape[f->ndim++] = extent[a], f->elems *= extent[a];
    /* physical positions: the field's k-th index is its k-th smallest axis */
    for (int l = 0; l < f->nlevels; l++)
        for (int k = 0; k < f->levels[l].naxes; k++) {
            int pos = 0;
            for (int a = 0; a < f->levels[l].axis[k]; a++) pos += used[a];
            f->levels[l].axis[k] = pos;
        }
    return row_major;
}

static void place_field(Sema *S, int fi, int n, int top, int storage) {
    bool row_major = fill_levels(S, &S->fields.items[fi], n, -(fi + 1));
    IrField *f = &S->fields.items[fi];
    if (f->elems > INT32_MAX) diag_error(f->span, QD2063, "field '%s' has more than 2^31-1 elements", f->name);
    bool plain = row_major && count_fields(S, top) == 1;
    f->storage = plain ? 0 : storage;
    f->offset = 0;
    if (plain) f->nlevels = 0;
}

static void place_under(Sema *S, int n, int top, int storage) {
    SNode *p = &S->snodes.items[n];
    for (int k = 0; k < p->ch.len; k++) {
        int c = p->ch.items[k];
        if (c >= 0) place_under(S, c, top, storage);
        else place_field(S, -c - 1, n, top, storage);
    }
}

static const char *first_field(Sema *S, int n) {
    for (int k = 0; k < S->snodes.items[n].ch.len; k++) {
        int c = S->snodes.items[n].ch.items[k];
        const char *f = c >= 0 ? first_field(S, c) : S->fields.items[-c - 1].name;
        if (f) return f;
    }
    return NULL;
}

/* The metadata field of every sparse node under n (ir/sparse.h): qdc_mask_<first field>_<depth>
 * (u32, one bit per cell of the node in the whole tree) or qdc_length_<first field>_<depth> (i32,
 * one per cell of its parent), plain and zeroed by the host. cells: the parent's cells in the tree. */
static void make_meta(Sema *S, int n, int64_t cells, int depth) {
    SNode *p = &S->snodes.items[n];
    int64_t mine = cells * p->ncells;
    const char *first = first_field(S, n);
    if (p->kind && first) {
        bool dyn = p->kind == IR_SNODE_DYNAMIC;
        int64_t len = dyn ? cells : (mine + 31) / 32;
        if (mine > INT32_MAX) diag_error(p->span, QD2063, "this SNode has more than 2^31-1 cells in its tree");
        IrField f = {.name = arena_printf(S->arena, "qdc_%s_%s_%d", dyn ? "length" : "mask", first, depth), .type = dyn ? QT_I32 : QT_U32,
                     .ndim = 1, .shape = {len}, .elems = len, .span = p->span};
        vec_push(&S->fields, f);
        S->snodes.items[n].meta = S->fields.len - 1;
    }
    for (int k = 0; k < S->snodes.items[n].ch.len; k++)
        if (S->snodes.items[n].ch.items[k] >= 0) make_meta(S, S->snodes.items[n].ch.items[k], mine, depth + 1);
}

/* After the module level: shapes and storages of placed fields; unplaced fields are errors. */
void sema_snode_finish(Sema *S) {
    for (int r = 0; S->snodes.len && r < S->snodes.items[0].ch.len; r++) {
        int c = S->snodes.items[0].ch.items[r];
        if (c < 0) { /* qd.root.place(x): a 0-d field of its own */
            IrField *f = &S->fields.items[-c - 1];
            f->ndim = 0, f->elems = 1, f->storage = 0;
            continue;
        }
        layout(S, c);
        make_meta(S, c, 1, 1);
        const char *name = first_field(S, c);
        if (!name) continue;
        IrStorage st = {name, S->snodes.items[c].ncells * S->snodes.items[c].cell_bytes, S->snodes.items[c].align,
                        S->snodes.items[c].span};
        if (st.align < 16) st.align = 16;
        vec_push(&S->storages, st);
        place_under(S, c, c, S->storages.len);
        bool used = false;
        for (int i = 0; i < S->fields.len; i++) used |= S->fields.items[i].storage == S->storages.len;
        if (!used) S->storages.len--;
    }
    sema_quant_mirror(S); /* quantized members take their word's geometry */
    for (int g = 0; g < S->members.len; g++) { /* Quadrants' _check_matrix_field_member_shape (impl.py) */
        const AdManual *m = &S->members.items[g];
        bool placed = true, same = true;
        for (int i = m->first; i <= m->last; i++) {
            const IrField *f = &S->fields.items[i], *f0 = &S->fields.items[m->first];
            placed &= f->ndim >= 0;
            same &= f->ndim == f0->ndim && !memcmp(f->shape, f0->shape, sizeof(int64_t) * (size_t)(f->ndim > 0 ? f->ndim : 0));
        }
        if (!placed || same) continue; /* never placed: reported below */
        StrBuf t;
        sb_init(&t);
        for (int i = m->first; i <= m->last; i++) {
            const IrField *f = &S->fields.items[i];
            sb_printf(&t, "%s(", i > m->first ? ", " : "");
            for (int d = 0; d < f->ndim; d++) sb_printf(&t, "%s%lld", d ? ", " : "", (long long)f->shape[d]);
            sb_printf(&t, "%s)", f->ndim == 1 ? "," : "");
        }
        diag_error(m->span, QD2063, "Members of the following field have different shapes [%s]: host code places its components "
                   "under nodes of different shapes", t.data);
        sb_free(&t);
    }
    for (int i = 0; i < S->fields.len; i++) {
        const char *tail = sema_field_written(S, S->fields.items[i].name);
        const char *why = i < S->unplaced_why.len ? S->unplaced_why.items[i] : NULL;
        if (S->fields.items[i].ndim < 0 && why && !*why) continue; /* its placement was reported */
        if (S->fields.items[i].ndim < 0 && why)
            diag_error(S->fields.items[i].span, QD2004, "field '%s' is placed by host code that qdc cannot evaluate (%s), "
                                                         "so its shape is known only when the script runs", tail, why);
        else if (S->fields.items[i].ndim < 0)
            diag_error(S->fields.items[i].span, QD2004, "field '%s' has no shape and is never placed; give it shape= "
                                                         "or place it: qd.root.dense(qd.i, N).place(%s) (These field(s) are not placed)", tail, tail);
        else if (S->fields.items[i].norigin && S->fields.items[i].norigin != S->fields.items[i].ndim - S->fields.items[i].elem_ndim)
            diag_error(S->fields.items[i].span, QD2063, "field '%s' is placed with %d offset value%s but has %d dimension%s", tail,
                       S->fields.items[i].norigin, S->fields.items[i].norigin == 1 ? "" : "s",
                       S->fields.items[i].ndim - S->fields.items[i].elem_ndim, S->fields.items[i].ndim - S->fields.items[i].elem_ndim == 1 ? "" : "s");
    }
    for (int n = 1; n < S->snodes.len; n++) { /* kept for the kernels (sema_sparse.c); freed by sema_check */
        SNode *p = &S->snodes.items[n];
        p->view = (IrField){.name = first_field(S, n), .type = QT_I32, .span = p->span};
        fill_levels(S, &p->view, n, INT32_MIN);
        p->viewed = true;
    }
}

/* ---- what sema_sparse.c asks of the tree ---- */

const IrField *sema_snode_view(Sema *S, int node) {
    return node > 0 && node < S->snodes.len && S->snodes.items[node].viewed ? &S->snodes.items[node].view : NULL;
}

int sema_snode_kind(Sema *S, int node) { return node > 0 && node < S->snodes.len ? S->snodes.items[node].kind : IR_SNODE_DENSE; }

int sema_snode_parent(Sema *S, int node) {
    if (node >= 0) return node < S->snodes.len ? S->snodes.items[node].parent : -1;
    for (int n = 0; n < S->snodes.len; n++) /* a field's place node: the node holding it */
        for (int k = 0; k < S->snodes.items[n].ch.len; k++)
            if (S->snodes.items[n].ch.items[k] == node) return n;
    return -1;
}

/* The fields in node n's cells (its subtree), up to max of them. */
int sema_snode_fields(Sema *S, int n, int *out, int max) {
    int c = 0;
    if (n < 0 || n >= S->snodes.len) return 0;
    for (int k = 0; k < S->snodes.items[n].ch.len && c < max; k++) {
        int x = S->snodes.items[n].ch.items[k];
        if (x >= 0) c += sema_snode_fields(S, x, out + c, max - c);
        else out[c++] = -x - 1;
    }
    return c;
}

/* The sparse nodes strictly under n, up to max. */
int sema_snode_sparse_under(Sema *S, int n, int *out, int max) {
    int c = 0;
    if (n < 0 || n >= S->snodes.len) return 0;
    for (int k = 0; k < S->snodes.items[n].ch.len && c < max; k++) {
        int x = S->snodes.items[n].ch.items[k];
        if (x < 0) continue;
        if (S->snodes.items[x].kind && S->snodes.items[x].meta >= 0 && c < max) out[c++] = x;
        c += sema_snode_sparse_under(S, x, out + c, max - c);
    }
    return c;
}

void sema_snode_free(Sema *S) {
    vec_free(&S->unplaced_why), vec_free(&S->builders);
    for (int n = 0; n < S->snodes.len; n++) vec_free(&S->snodes.items[n].ch);
    vec_free(&S->snodes);
}

static IrExpr *flat_bin(void *S, IrBinOp op, IrExpr *x, IrExpr *y, Span sp) { return sema_binary(S, op, x, y, sp); }

/* The element index of x[idx...] in its storage (ir/snode.c), built with the frontend's folding. */
IrExpr *sema_snode_flat(Sema *S, const IrField *f, IrExpr **idx, Span sp) {
    return ir_snode_flat(S->arena, flat_bin, S, S->storages.items[f->storage - 1].bytes, f, idx, sp);
}

/* The node a field is placed under (its place() parent), -1 when it is not in the tree. */
static int placed_under(Sema *S, int field) {
    for (int n = 0; n < S->snodes.len; n++)
        for (int k = 0; k < S->snodes.items[n].ch.len; k++)
            if (S->snodes.items[n].ch.items[k] == -(field + 1)) return n;
    return -1;
}

/* v._get_dynamic_index_stride() of a vector or matrix field whose components are placed
 * separately (Quadrants' MatrixField._calc_dynamic_index_stride, over qdc's layout): with the
 * components' paths from the root (their place() last) of one length, below the deepest node
 * they share each level must be a dense node of one cell size with the next level at one offset
 * in its cell, and the offsets of the first differing level must step by one stride, which is
 * the value in bytes (0 for one component); None otherwise (the layout is known: this runs in
 * kernels, after sema_snode_finish). */
Val sema_snode_dynamic_stride(Sema *S, const Val *comps, int n, Span sp) {
    enum { MAXP = 64 };
    int (*path)[MAXP] = xcalloc((size_t)n, sizeof *path), len = -1;
    Val r = {.kind = V_NONE};
    for (int c = 0; c < n; c++) {
        int f = comps[c].index, node = placed_under(S, f), np = 0;
        if (comps[c].kind != V_FIELD || node < 0) goto done;
        int rev[MAXP];
        rev[np++] = -(f + 1);
        for (int x = node; x >= 0 && np < MAXP; x = x ? S->snodes.items[x].parent : -1) rev[np++] = x;
        if (len >= 0 && np != len) goto done;
        len = np;
        for (int k = 0; k < np; k++) path[c][k] = rev[np - 1 - k]; /* root first */
    }
    if (n == 1) {
        r = val_expr(sema_int_literal(S, 0, sp));
        goto done;
    }
    int lca = -1;
    for (int i = 0; i < len && lca < 0; i++)
        for (int c = 1; c < n; c++)
            if (path[c][i] != path[0][i]) {
                lca = i;
                break;
            }
    if (lca <= 0) goto done;
    for (int i = lca; i < len - 1; i++)
        for (int c = 0; c < n; c++) {
            const SNode *p = &S->snodes.items[path[c][i]], *p0 = &S->snodes.items[path[0][i]];
            if (p->kind != IR_SNODE_DENSE || p->cell_bytes != p0->cell_bytes ||
                child_offset(S, path[c][i], path[c][i + 1]) != child_offset(S, path[0][i], path[0][i + 1]))
                goto done;
        }
    int64_t off0 = child_offset(S, path[0][lca - 1], path[0][lca]), stride = child_offset(S, path[1][lca - 1], path[1][lca]) - off0;
    for (int c = 2; c < n; c++)
        if (child_offset(S, path[c][lca - 1], path[c][lca]) - child_offset(S, path[c - 1][lca - 1], path[c - 1][lca]) != stride) goto done;
    r = val_expr(sema_int_literal(S, stride, sp)); /* a Python int */
done:
    free(path);
    return r;
}

/* Quadrants' get_num_ch() of the node field k is placed under: how many places and nodes that
 * node holds (the members of a struct field placed together, a vector field's components, the
 * fields of one place(...) call), its index in *node (0: qd.root, a 0-d field); -1 when k is in
 * no node (a field declared with shape=, its own row-major array). */
int sema_snode_num_ch(Sema *S, int k, int *node) {
    for (int n = 0; n < S->snodes.len; n++) {
        const SNode *p = &S->snodes.items[n];
        for (int c = 0; c < p->ch.len; c++)
            if (p->ch.items[c] == -(k + 1)) return *node = n, p->ch.len;
    }
    return -1;
}
