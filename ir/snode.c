/* The element index of a field in an SNode storage (ir/snode.h). */
#include "sparse.h"

/* The cell of level l: along each of its axes, the index divided by the sizes of the deeper
 * levels of that axis, wrapped to the level's size unless the level is the axis's first. */
IrExpr *ir_snode_cell(Arena *a, IrBinBuilder bin, void *ctx, QdType ix, const IrField *f, int l, IrExpr *const *idx, Span sp) {
    const IrSnodeLevel *lv = &f->levels[l];
    IrExpr *cell = irb_int(a, ix, 0, sp);
    for (int k = 0; k < lv->naxes; k++) {
        int pos = lv->axis[k];
        int64_t inner = 1;
        for (int m = l + 1; m < f->nlevels; m++)
            for (int j = 0; j < f->levels[m].naxes; j++)
                if (f->levels[m].axis[j] == pos) inner *= f->levels[m].size[j];
        bool outer = true; /* the first level of this axis needs no wrap */
        for (int m = 0; m < l; m++)
            for (int j = 0; j < f->levels[m].naxes; j++) outer &= f->levels[m].axis[j] != pos;
        IrExpr *i = irb_cast(a, idx[pos], ix);
        if (inner > 1) i = bin(ctx, IR_DIV, i, irb_int(a, ix, inner, sp), sp);
        if (!outer) i = bin(ctx, IR_REM, i, irb_int(a, ix, lv->size[k], sp), sp);
        cell = bin(ctx, IR_ADD, bin(ctx, IR_MUL, cell, irb_int(a, ix, lv->size[k], sp), sp), i, sp);
    }
    return cell;
}

IrExpr *ir_snode_flat(Arena *a, IrBinBuilder bin, void *ctx, int64_t storage_bytes, const IrField *f, IrExpr *const *idx, Span sp) {
    int64_t esz = (qt_bits(f->type) + 7) / 8;
    const QdType ix = storage_bytes / esz <= INT32_MAX ? QT_I32 : QT_I64;
    IrExpr *flat = irb_int(a, ix, f->offset / esz, sp);
    for (int l = 0; l < f->nlevels; l++) {
        const IrSnodeLevel *lv = &f->levels[l];
        IrExpr *cell = ir_snode_cell(a, bin, ctx, ix, f, l, idx, sp);
        IrExpr *term = bin(ctx, IR_MUL, cell, irb_int(a, ix, lv->cell_bytes / esz, sp), sp);
        flat = bin(ctx, IR_ADD, flat, bin(ctx, IR_ADD, term, irb_int(a, ix, lv->child_offset / esz, sp), sp), sp);
    }
    return flat;
}
