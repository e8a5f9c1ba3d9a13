/* The compile-time Python evaluator's files (frontend/py/sema_*.c): host code and its loops,
 * ifs and functions (sema_param.c, sema_pyfunc.c), Python forms (sema_lang.c), strings
 * (sema_pystr.c), dataclasses (sema_pydc.c), enums and data-oriented classes (sema_class.c),
 * Python ints past 64 bits (pyint.c, sema_pyint.c, which the core's arithmetic calls directly),
 * the dataclasses/functools names (sema_pylib.c), with their budgets (budget.h). Their declarations are in ../sema.h, beside the checker's.
 *
 * What they may touch: the checker's core (sema.c, sema_expr.c, sema_stmt.c, module.c: values,
 * scopes, sema_eval), each other, budget.h, and of kernel semantics only what a value's type
 * needs (sema_generic.c's annotations, sema_tensor.c's ndarray types, sema_vec.c's vec_make
 * and vector types, sema_struct.c's struct types, sema_promote.c's fresh references). The
 * core calls them only through Sema.up (../hooks.def, ../check.c). A compile-time int, float
 * or bool is read and made only through value.h (never through IrExpr's fields or IR_*
 * names). Today they still share Sema and Val with kernel semantics, and value.h's scalars
 * are still IR constants underneath; docs/architecture.md says what
 * separating them further takes. */
#ifndef QDC_PY_H
#define QDC_PY_H
#include "../sema.h"
#endif
