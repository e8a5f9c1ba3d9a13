/* Python ints for the compile-time evaluator: unbounded and exact, with Python's semantics
 * (floor division and modulo, two's-complement bitwise operators on negative values, int(s, base)
 * and str()). Sign and magnitude in 32-bit limbs; a value is immutable once made, so it can be
 * shared. Every result is allocated in the context's arena and charged to its budget: the bytes
 * of a result past 64 bits to EB_SIZE, the limb products of a multiplication, division or conversion (one
 * step per 1024) to EB_STEPS, so `2 ** 10**9` ends in a budget error, never a hang. A call that
 * cannot give an int returns NULL and says why in ctx->err. Knows nothing of IR: this header
 * depends on budget.h and support/ only. */
#ifndef QDC_PY_PYINT_H
#define QDC_PY_PYINT_H
#include "budget.h"
#include "../../support/util.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct PyInt PyInt;

typedef enum {
    PYINT_OK,
    PYINT_ZERODIV,  /* // or % by zero (ZeroDivisionError) */
    PYINT_NEGSHIFT, /* << or >> by a negative count (ValueError) */
    PYINT_NEGPOW,   /* ** with a negative exponent: Python's answer is a float */
    PYINT_RANGE,    /* too large for a float (OverflowError) */
    PYINT_SYNTAX,   /* int(s, base): not a number in that base (ValueError) */
    PYINT_BUDGET,   /* a budget ran out (budget_report says which) */
} PyIntErr;

typedef struct PyIntCtx {
    Arena *arena;       /* where results live */
    EvalBudget *budget; /* charged for results and work; NULL: unlimited */
    Span at;            /* where charges point */
    PyIntErr err;       /* why the last call returned NULL */
} PyIntCtx;

PyInt *pyint_from_i64(PyIntCtx *c, int64_t v);
PyInt *pyint_from_u64(PyIntCtx *c, uint64_t v);
/* int(text, base): base 0 takes Python's literal rules (0x/0o/0b prefixes, no leading zeros in a
 * nonzero decimal), else 2..36 (16, 8, 2 accept their prefix); a sign, `_` between digits and
 * surrounding whitespace as Python allows them. */
PyInt *pyint_parse(PyIntCtx *c, const char *text, size_t len, int base);
/* str(a) (base 10) or Python's hex(), oct(), bin() (base 16, 8, 2); NUL-terminated, in the arena. */
char *pyint_str(PyIntCtx *c, const PyInt *a, int base);

PyInt *pyint_add(PyIntCtx *c, const PyInt *a, const PyInt *b);
PyInt *pyint_sub(PyIntCtx *c, const PyInt *a, const PyInt *b);
PyInt *pyint_mul(PyIntCtx *c, const PyInt *a, const PyInt *b);
PyInt *pyint_floordiv(PyIntCtx *c, const PyInt *a, const PyInt *b);
PyInt *pyint_mod(PyIntCtx *c, const PyInt *a, const PyInt *b);
bool pyint_divmod(PyIntCtx *c, const PyInt *a, const PyInt *b, PyInt **q, PyInt **r);
PyInt *pyint_pow(PyIntCtx *c, const PyInt *a, const PyInt *b);
PyInt *pyint_shl(PyIntCtx *c, const PyInt *a, const PyInt *b);
PyInt *pyint_shr(PyIntCtx *c, const PyInt *a, const PyInt *b);
PyInt *pyint_and(PyIntCtx *c, const PyInt *a, const PyInt *b);
PyInt *pyint_or(PyIntCtx *c, const PyInt *a, const PyInt *b);
PyInt *pyint_xor(PyIntCtx *c, const PyInt *a, const PyInt *b);
PyInt *pyint_neg(PyIntCtx *c, const PyInt *a);
PyInt *pyint_invert(PyIntCtx *c, const PyInt *a); /* ~a == -a - 1 */
PyInt *pyint_abs(PyIntCtx *c, const PyInt *a);

int pyint_cmp(const PyInt *a, const PyInt *b); /* -1, 0, 1 */
int pyint_sign(const PyInt *a);                /* -1, 0, 1 */
uint64_t pyint_bit_length(const PyInt *a);     /* of |a|, as int.bit_length() */
bool pyint_to_i64(const PyInt *a, int64_t *out); /* false when it does not fit */
bool pyint_to_u64(const PyInt *a, uint64_t *out);
bool pyint_to_i128(const PyInt *a, __int128 *out); /* false past 126 bits */
/* float(a), correctly rounded (half to even); false when |a| is too large for a double. */
bool pyint_to_double(const PyInt *a, double *out);
#endif
