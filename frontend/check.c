/* The frontend's entry: connects the feature files to the checker's core, then checks.
 * The core (sema.c, sema_expr.c, sema_stmt.c, module.c, callcheck.c) names no feature: it calls
 * up through Sema.up, the table filled here from hooks.def. This file depends on every feature
 * and nothing depends on it but the driver, so no circle forms (docs/architecture.md). */
#include "sema.h"

static const SemaHooks features = {
#define H(name) .name = name,
#include "hooks.def"
#undef H
};

IrModule *frontend_check(const AstModule *ast, Arena *arena) { return sema_check(ast, arena, NULL, &features); }

IrModule *frontend_check_with(const AstModule *ast, Arena *arena, const FrontendOptions *fo) {
    return sema_check(ast, arena, fo, &features);
}
