/* Sparse SNodes (qd.root.pointer / bitmasked / dynamic) as dense storage plus activity
 * metadata (qdc-abi(7) "Sparse SNodes"): every level of a field's path that is sparse
 * (IrSnodeLevel.sparse) has a metadata field IrSnodeLevel.meta, a plain row-major field the host
 * allocates and zeroes like any other:
 *   pointer, bitmasked: u32 words, bit (g & 31) of word g >> 5 set while cell g is active, where
 *                       g is the level's global cell number (ir_sparse_gcell);
 *   dynamic:            one i32 length per cell of the parent level (its global cell number).
 * Everything here is built from loads, stores, atomics on u32/i32 words, compares and selects,
 * so every backend compiles it unchanged. */
#ifndef QDC_IR_SPARSE_H
#define QDC_IR_SPARSE_H
#include "snode.h"

/* Whether some level of f's path is sparse. */
bool ir_sparse_field(const IrField *f);
/* The cell number of level l of f's path for indices idx (i32): the row-major position of the
 * level's coordinates within one cell of the level above. */
IrExpr *ir_snode_cell(Arena *a, IrBinBuilder bin, void *ctx, QdType ix, const IrField *f, int l, IrExpr *const *idx, Span sp);
/* The global cell number (i32) of level l: g(-1) = 0, g(l) = g(l - 1) * cells(l) + cell(l). */
IrExpr *ir_sparse_gcell(Arena *a, IrBinBuilder bin, void *ctx, const IrField *f, int l, IrExpr *const *idx, Span sp);
/* u1: every sparse level 0..upto of f's path is active at idx (a dynamic level: its coordinate
 * is below the length of its parent cell); true when none is sparse. */
IrExpr *ir_sparse_active(Arena *a, IrBinBuilder bin, void *ctx, const IrField *f, int upto, IrExpr *const *idx, Span sp);
/* The statements that activate levels 0..upto of f's path at idx (an atomic OR of the cell's bit;
 * a dynamic level: atomic max of its parent cell's length with coordinate + 1), given to emit. */
void ir_sparse_activate(Arena *a, IrBinBuilder bin, void *ctx, const IrField *f, int upto, IrExpr *const *idx, Span sp,
                        void (*emit)(void *ectx, IrStmt *s), void *ectx);
/* A reference to element i (i32) of the plain 1-d metadata field `field` of type t. */
IrRef *ir_sparse_meta_ref(Arena *a, int field, QdType t, IrExpr *i, Span sp);
/* Writes to fields with sparse levels activate them: inserts the activation before every
 * statement that stores to, or applies an atomic to, such a field (after autodiff, before
 * ir_seal). */
void ir_sparse_module(IrModule *m, Arena *a);
#endif
