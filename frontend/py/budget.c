/* The evaluator's budgets (budget.h): the table of limits, their command-line spelling, and the
 * one diagnostic that ends an evaluation that ran out. */
#include "budget.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *name; int64_t dflt, max; DiagCode code; const char *unit; } limits[] = {
#define X(id, name, dflt, max, code, unit) [id] = {name, dflt, max, code, unit},
#include "budget.def"
#undef X
};
_Static_assert(sizeof limits / sizeof limits[0] == EB_COUNT, "one row per budget");

int64_t eval_limit_default(EvalLimit which) { return limits[which].dflt; }
int64_t eval_limit_max(EvalLimit which) { return limits[which].max; }
const char *eval_limit_name(EvalLimit which) { return limits[which].name; }

const char *eval_limit_names(char *buf, size_t len) {
    size_t at = 0;
    if (len) buf[0] = 0;
    for (int k = 0; k < EB_COUNT && at < len; k++) {
        int n = snprintf(buf + at, len - at, "%s%s", !k ? "" : k == EB_COUNT - 1 ? " or " : ", ", limits[k].name);
        at += n > 0 ? (size_t)n : 0;
    }
    return buf;
}

bool eval_limit_parse(EvalLimits *l, const char *spec, char *err, size_t errlen) {
    const char *eq = strchr(spec, '=');
    size_t len = eq ? (size_t)(eq - spec) : strlen(spec);
    int which = -1;
    for (int k = 0; k < EB_COUNT; k++)
        if (strlen(limits[k].name) == len && !strncmp(spec, limits[k].name, len)) which = k;
    if (which < 0) {
        char names[256];
        snprintf(err, errlen, "unknown evaluation limit '%.*s' (%s)", (int)len, spec, eval_limit_names(names, sizeof names));
        return false;
    }
    char *end;
    errno = 0;
    long long v = eq && eq[1] >= '0' && eq[1] <= '9' ? strtoll(eq + 1, &end, 10) : -1;
    int64_t max = limits[which].max;
    if (v < 1 || errno || *end || v > max) {
        snprintf(err, errlen, "--eval-limit=%s=N needs a count N from 1 to %" PRId64, limits[which].name, max);
        return false;
    }
    l->limit[which] = v;
    return true;
}

void budget_init(EvalBudget *b, const EvalLimits *set) {
    memset(b, 0, sizeof *b);
    for (int k = 0; k < EB_COUNT; k++) b->limit[k] = set && set->limit[k] > 0 ? set->limit[k] : limits[k].dflt;
}

bool budget_charge(EvalBudget *b, EvalLimit which, int64_t n, Span at) {
    if (b->exhausted) return false;
    if (n <= b->limit[which] - b->used[which]) return b->used[which] += n, true;
    b->exhausted = true, b->which = which, b->where = at;
    return false;
}

bool budget_report(EvalBudget *b) {
    if (!b->exhausted) return true;
    if (!b->reported)
        diag_error(b->where, limits[b->which].code, "compile-time evaluation exceeds its budget of %" PRId64 " %s; raise it with --eval-limit=%s=N",
                   b->limit[b->which], limits[b->which].unit, limits[b->which].name);
    b->reported = true;
    return false;
}

bool budget_enter(EvalBudget *b, Span at) {
    if (!budget_charge(b, EB_CALLS, 1, at) || !budget_charge(b, EB_DEPTH, 1, at)) return false;
    return true;
}
