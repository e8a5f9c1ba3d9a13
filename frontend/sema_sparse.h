/* Sparse SNodes in kernels (frontend/sema_sparse.c) and what it asks of the tree
 * (frontend/sema_snode.c). */
#ifndef QDC_SEMA_SPARSE_H
#define QDC_SEMA_SPARSE_H
#include "sema.h"

/* sema_snode.c: node n's view (its index space, levels and sparse levels; NULL for qd.root or
 * before the layout), kind, parent (n < 0: field -(n + 1)'s node), fields under it, sparse
 * nodes strictly under it. */
const IrField *sema_snode_view(Sema *S, int node);
int sema_snode_kind(Sema *S, int node);
int sema_snode_parent(Sema *S, int node);
int sema_snode_fields(Sema *S, int n, int *out, int max);
int sema_snode_sparse_under(Sema *S, int n, int *out, int max);

/* sema_sparse.c */
bool sema_is_sparse_builtin(const char *path); /* qd.is_active, qd.activate, qd.deactivate, qd.append, qd.length, qd.no_activate */
Val sema_sparse_call(Sema *S, const Expr *call, Val f);
Val sema_sparse_node_call(Sema *S, const Expr *call, int node, const char *method); /* parent(), deactivate_all() */
Val sema_sparse_field_attr(Sema *S, Val field, const char *name);                     /* x.snode, x.parent, x.append, ... */
Val sema_sparse_list_call(Sema *S, const Expr *call, Val list); /* x[i].append(v), x[i].length(), x[i].deactivate(), x.append(v) */
#endif
