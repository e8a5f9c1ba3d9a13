/* The compile-time Python evaluator's files (frontend/py/sema_*.c): host code and its loops,
 * ifs and functions (sema_param.c, sema_pyfunc.c), Python forms (sema_lang.c), strings
 * (sema_pystr.c), dataclasses (sema_pydc.c), enums and data-oriented classes (sema_class.c),
 * Python ints (pyint.c; sema_pyint.c: the one implementation of Python's integer operators,
 * which the core's arithmetic asks through Sema.up), the dataclasses/functools names
 * (sema_pylib.c), with their budgets (budget.h). Their declarations are in ../sema.h, beside
 * the checker's.
 *
 * What they may touch: each other, budget.h, support/; the checker's core (sema.c,
 * sema_expr.c, sema_stmt.c, module.c: values, scopes, sema_eval) only through Sema.core
 * (core.def, filled by sema.c), and kernel semantics' features (sema_generic.c's annotations,
 * sema_tensor.c's ndarray types, sema_vec.c's vec_make and vector types, sema_struct.c's
 * struct types, sema_promote.c's fresh references, sema_tile.c's slices) only through Sema.up
 * (../hooks.def, ../check.c), never by a direct call: `tools/layers/circles.py --edges` shows no edge from
 * py/ into another frontend file. The core calls them only through Sema.up too. A
 * compile-time int, float or bool is read and made only through value.h (never through
 * IrExpr's fields or IR_* names). Today they still share Sema and Val with kernel semantics,
 * and value.h's scalars are still IR constants underneath; docs/architecture.md says what
 * separating them further takes. */
#ifndef QDC_PY_H
#define QDC_PY_H
#include "../sema.h"
#endif
