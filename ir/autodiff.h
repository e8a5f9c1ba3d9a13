/* Reverse-mode automatic differentiation as an IR transform (ir/autodiff.c). */
#ifndef QDC_AUTODIFF_H
#define QDC_AUTODIFF_H
#include "ir.h"

/* Appends to the checked module, before ir_seal, the companion kernel "<k>_grad" of every kernel
 * k that reads or writes a field with an adjoint (IrField.grad): the same parameters, its tasks
 * in reverse order, each recomputing the task's values and then accumulating adjoints into the
 * adjoint fields with atomic adds (qdc-lang(7) "AUTODIFF"). A kernel that breaks a rule of
 * Quadrants' autodiff gets a QD2112 warning naming it and no companion. */
void ad_module(IrModule *m, Arena *a);
#endif
