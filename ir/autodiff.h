/* Automatic differentiation as IR transforms: reverse mode (ir/autodiff.c), forward mode
 * (ir/autodiff_fwd.c), and the derivative rules both use (ir/ad_rules.c). */
#ifndef QDC_AUTODIFF_H
#define QDC_AUTODIFF_H
#include "ir.h"

/* Appends to the checked module, before ir_seal, the companion kernel "<k>_grad" of every kernel
 * k that reads or writes a field with an adjoint (IrField.grad): the same parameters, its tasks
 * in reverse order, each recomputing the task's values and then accumulating adjoints into the
 * adjoint fields with atomic adds (qdc-lang(7) "AUTODIFF"). A kernel that breaks a rule of
 * Quadrants' autodiff gets a QD2112 warning naming it and no companion. */
void ad_module(IrModule *m, Arena *a);

/* Appends the forward-mode companion "<k>_fwd" of every kernel k (not @qd.ad.no_grad) that reads
 * or writes a field with a dual field (IrField.dual): k itself, each value also carrying its
 * tangent, the tangents of the values stored into fields with duals stored into their dual
 * fields (ir/autodiff_fwd.c, qdc-abi(7) "GRADIENTS"). Run after ad_module. */
void ad_fwd_module(IrModule *m, Arena *a);

/* One partial derivative of an operation (ir/ad_rules.c): the derivative of its value with
 * respect to `operand` is d (NULL: 1) where `when` holds (unless: where it does not; NULL:
 * everywhere) and 0 elsewhere. Expressions share the operation's operands. */
typedef struct {
    IrExpr *operand, *d, *when;
    bool unless;
} AdPartial;

/* The partials of e with respect to its floating-point operands (at most 2; 0 for constants,
 * loads, locals and the operations without a derivative), in Quadrants' rules. */
int ad_partials(Arena *a, IrExpr *e, AdPartial out[2]);

/* g (of the operation's type) times the partial p: an adjoint's share for p's operand, or
 * a tangent's contribution to the operation's. */
IrExpr *ad_apply(Arena *a, const AdPartial *p, IrExpr *g);
#endif
