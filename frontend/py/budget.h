/* Budgets of the compile-time Python evaluator: every evaluation that can grow with the input
 * (host loops, strings and lists, calls, qd.func inlining, kernel instantiations) is charged
 * here, per compilation, never per construct, so that no script makes a compile run away in
 * time or memory. Exhausting a budget is one located error (QD2026) naming the limit and the
 * option that raises it (--eval-limit=NAME=N, man qdc(1)); after it every charge fails, so the
 * evaluation stops at once. The error is reported by budget_report, not where the charge fails:
 * that may be inside a speculative evaluation whose diagnostics are dropped (diag_quiet_begin). The limits are the rows of budget.def. This header depends on
 * support/ only: any layer may charge a budget. */
#ifndef QDC_PY_BUDGET_H
#define QDC_PY_BUDGET_H
#include "../../support/diag.h"
#include <stdbool.h>
#include <stdint.h>

typedef enum {
#define X(id, name, dflt, max, code, unit) id,
#include "budget.def"
#undef X
    EB_COUNT
} EvalLimit;

typedef struct EvalBudget {
    int64_t limit[EB_COUNT];
    int64_t used[EB_COUNT];
    bool exhausted; /* a budget ran out (reported once): every further charge fails */
    EvalLimit which; /* the budget that ran out */
    Span where;      /* the charge that exhausted it */
    bool reported;
    Span at;        /* the host statement being evaluated: where charges without a location of their own point */
} EvalBudget;


/* The limits set on the command line: limit[k] > 0 replaces budget.def's default. */
typedef struct EvalLimits { int64_t limit[EB_COUNT]; } EvalLimits;

/* "NAME=N" (--eval-limit): sets one limit; false with a message in err (for a usage error). */
bool eval_limit_parse(EvalLimits *l, const char *spec, char *err, size_t errlen);
int64_t eval_limit_default(EvalLimit which);
int64_t eval_limit_max(EvalLimit which); /* the largest N --eval-limit takes */
const char *eval_limit_name(EvalLimit which);
/* The rows' names for messages, "steps, size, ... or loop", in buf (truncated to len). */
const char *eval_limit_names(char *buf, size_t len);

void budget_init(EvalBudget *b, const EvalLimits *set); /* set may be NULL: the defaults */
/* Charges n units of `which`; false when that exceeds its limit (the first time: `at` is where
 * budget_report will point) or a budget ran out already. */
bool budget_charge(EvalBudget *b, EvalLimit which, int64_t n, Span at);
/* A nested call (EB_DEPTH): budget_enter charges one level (false, reported, when too deep) and
 * budget_leave, called after each budget_enter that succeeded, gives it back. */
bool budget_enter(EvalBudget *b, Span at);
static inline void budget_leave(EvalBudget *b) { b->used[EB_DEPTH]--; }
/* QD2026 (QD2024 for kernels) for the budget that ran out, once; false when one did. */
bool budget_report(EvalBudget *b);
static inline bool budget_ok(const EvalBudget *b) { return !b->exhausted; }
/* Whether n more units of `which` fit, charging nothing (false, and the budget is exhausted at
 * `at`, when they do not): for work whose whole count is known before it starts. */
static inline bool budget_fits(EvalBudget *b, EvalLimit which, int64_t n, Span at) {
    return !b->exhausted && n <= b->limit[which] - b->used[which] ? true : (budget_charge(b, which, n, at), false);
}
#endif
