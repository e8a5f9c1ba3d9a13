/* Decisions written by hand for hand-built IR (backend tests that bypass the lowering engine):
 * hand_decide() gives a memory operation the next id and records its decision; hand_lowered()
 * is the IrLowered over every decision recorded in this test process (Criterion forks one per
 * test, so the table starts empty in each). */
#ifndef QDC_TEST_HAND_LOWERING_H
#define QDC_TEST_HAND_LOWERING_H
#include "../../ir/ir.h"
#include <stdlib.h>

static IrLowering hand_ops[512];
static int hand_nops;

static inline void hand_decide(IrExpr *memop, IrLowering low) {
    if (hand_nops == (int)ARRAY_LEN(hand_ops)) abort();
    memop->mem.id = hand_nops;
    hand_ops[hand_nops++] = low;
}
/* The recorded decision of memop, for tests that adjust it after building. */
static inline IrLowering *hand_low(const IrExpr *memop) { return &hand_ops[memop->mem.id]; }
static inline const IrLowered *hand_lowered(void) {
    static IrLowered l;
    l = (IrLowered){hand_ops, hand_nops, NULL, 0, IR_CLOCK_ZERO, false, 0};
    return &l;
}
#endif
