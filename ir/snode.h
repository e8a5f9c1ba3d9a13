/* Addressing a field that lives in an SNode storage (IrField.storage > 0). */
#ifndef QDC_IR_SNODE_H
#define QDC_IR_SNODE_H
#include "ir.h"

/* How the caller builds one integer operation on two operands of one type (the frontend's
 * folding builder, or irb_binary). */
typedef IrExpr *(*IrBinBuilder)(void *ctx, IrBinOp op, IrExpr *x, IrExpr *y, Span sp);

/* The element index of f[idx...] in its storage of storage_bytes bytes, in units of the field's
 * type (i32 when the storage has at most 2^31-1 such elements, else i64): the one definition of
 * the layout qdc-abi(7) "SNode storages" describes. */
IrExpr *ir_snode_flat(Arena *a, IrBinBuilder bin, void *ctx, int64_t storage_bytes, const IrField *f, IrExpr *const *idx, Span sp);
#endif
