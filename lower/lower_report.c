/* --report-lowering: one record per memory operation and fence, in source order, as aligned
 * text or as JSON lines (schema in man/qdc-capdb.5, "LOWERING REPORT"). Stable and deterministic. */
#include "../capdb/capdb_int.h"
#include "../support/json.h"
#include "lower.h"

static const char *kind_name(IrLowKind k) {
    switch (k) {
    case LOW_NATIVE: return "native";
    case LOW_CAS_LOOP: return "cas";
    case LOW_PLAIN: return "plain";
    case LOW_UNSUPPORTED: return "unsupported";
    default: return "undecided";
    }
}

typedef struct {
    StrBuf *out;
    bool json;
    const IrLowered *low;
    const char *target;
} Rep;

/* The database fact that decided: "<file>:<key path>" ("capability-db/sm_80.yaml:ops.add.f32"),
 * stable across edits elsewhere in the file; "<file>:<line>" only for a fact without a key. */
static void reason(StrBuf *b, const IrLowering *L) {
    if (L->reason_key) sb_printf(b, "%s:%s", L->reason_file, L->reason_key);
    else sb_printf(b, "%s:%d", L->reason_file, L->reason_line);
}

static void where(Span sp, const char **file, uint32_t *line, uint32_t *col) {
    *file = sp.src ? sp.src->name : "<unknown>";
    *line = *col = 0;
    if (sp.src) source_line_col(sp.src, sp.off, line, col);
}

static void flags_json(StrBuf *b, unsigned flags) {
    sb_puts(b, "[");
    bool first = true;
    for (unsigned f = 1; f <= LOWF_SHARED_U32; f <<= 1) /* every LOWF_* flag */
        if (flags & f) sb_printf(b, "%s\"%s\"", first ? "" : ",", lowf_name(f)), first = false;
    sb_puts(b, "]");
}

static void record_json(Rep *r, const char *kernel, Span sp, const char *op, const char *dt, const char *space,
                        QdOrder ord, QdScope sc, const IrLowering *L) {
    StrBuf *b = r->out;
    const char *file;
    uint32_t line, col;
    where(sp, &file, &line, &col);
    sb_puts(b, "{\"file\":"), json_str(b, file);
    sb_printf(b, ",\"line\":%u,\"col\":%u,\"kernel\":", line, col), json_str(b, kernel);
    sb_puts(b, ",\"target\":"), json_str(b, r->target);
    sb_printf(b, ",\"op\":\"%s\",\"dtype\":\"%s\",\"space\":\"%s\",\"order\":\"%s\",\"scope\":\"%s\"", op, dt, space,
              qord_name(ord), qscope_name(sc));
    sb_printf(b, ",\"decision\":\"%s\",\"emit_op\":\"%s\",\"negate\":%s,\"via_int\":%s", kind_name(L->kind),
              L->op < QOP_COUNT ? qop_name(L->op) : "fence", L->negate ? "true" : "false", L->via_int ? "true" : "false");
    sb_printf(b, ",\"emit_order\":\"%s\",\"emit_scope\":\"%s\",\"fence_before\":%s,\"fence_after\":%s,\"fence_scope\":\"%s\"",
              qord_name(L->order), qscope_name(L->scope), L->fence_before ? "true" : "false",
              L->fence_after ? "true" : "false", qscope_name(L->fence_scope));
    sb_printf(b, ",\"no_return\":%s,\"flags\":", L->no_return ? "true" : "false");
    flags_json(b, L->flags);
    sb_puts(b, ",\"spelling\":");
    if (L->spelling) json_str(b, L->spelling);
    else sb_puts(b, "null");
    sb_puts(b, ",\"detail\":"), json_str(b, L->detail ? L->detail : "");
    sb_puts(b, ",\"reason\":");
    if (L->reason_file && L->reason_key) json_strf(b, "%s:%s", L->reason_file, L->reason_key);
    else if (L->reason_file) json_strf(b, "%s:%d", L->reason_file, L->reason_line);
    else sb_puts(b, "null");
    if (L->fence_before || L->fence_after) sb_printf(b, ",\"fence_order\":\"%s\"", qord_name(L->fence_order));
    else sb_puts(b, ",\"fence_order\":null");
    sb_puts(b, L->reduce == LOW_REDUCE_WORKER ? ",\"reduce\":\"worker\""
               : L->reduce == LOW_REDUCE_SUBGROUP ? ",\"reduce\":\"subgroup\""
               : L->reduce == LOW_AGGREGATE_SUBGROUP ? ",\"reduce\":\"aggregate-subgroup\"" : ",\"reduce\":null");
    if (L->vec_width > 1) sb_printf(b, ",\"vector\":%d", L->vec_width); /* a vector atomic's record only */
    sb_puts(b, ",\"schema\":\"" LOWERING_REPORT_SCHEMA "\"}\n");
}

static void record_text(Rep *r, Span sp, const char *op, const char *dt, const char *space, QdOrder ord, QdScope sc,
                        const IrLowering *L, const char *note) {
    const char *file;
    uint32_t line, col;
    where(sp, &file, &line, &col);
    char loc[512];
    snprintf(loc, sizeof loc, "%s:%u:%u", file, line, col);
    sb_printf(r->out, "%-36s  %-13s  %-4s  %-6s  %-7s  %-7s  %-11s  %s%s", loc, op, dt, space, qord_name(ord),
              qscope_name(sc), kind_name(L->kind), note, L->detail ? L->detail : "");
    if (L->reason_file) sb_puts(r->out, "  ("), reason(r->out, L), sb_putc(r->out, ')');
    sb_putc(r->out, '\n');
}

static void visit(void *ctx, const IrKernel *k, const IrTask *t, const IrExpr *e, const IrStmt *s) {
    (void)t;
    Rep *r = ctx;
    if (e) {
        const IrMemOp *m = &e->mem;
        const IrLowering *L = ir_low_memop(r->low, e);
        if (L->vec_member) return; /* one record for a vector atomic: its first component's */
        char vop[32];
        snprintf(vop, sizeof vop, "%s.v%d", qop_name(m->op), L->vec_width);
        const char *op = m->is_volatile ? "volatile_load" : L->vec_width > 1 ? vop : qop_name(m->op);
        const char *dt = qt_name(m->ref->type), *sp = qspace_name(m->ref->space);
        if (r->json) record_json(r, k->name, e->span, m->is_volatile ? op : qop_name(m->op), dt, sp, m->order, m->scope, L);
        else if (k->grad_of > 0) { /* an adjoint accumulation of a gradient kernel (ir/autodiff.c) */
            char note[256];
            snprintf(note, sizeof note, "adjoint accumulation in %s: ", k->name);
            record_text(r, e->span, op, dt, sp, m->order, m->scope, L, note);
        } else if (k->fwd_of > 0) { /* an atomic of a forward-mode companion (ir/autodiff_fwd.c): the primal's or a tangent's */
            char note[256];
            snprintf(note, sizeof note, "in %s: ", k->name);
            record_text(r, e->span, op, dt, sp, m->order, m->scope, L, note);
        } else record_text(r, e->span, op, dt, sp, m->order, m->scope, L, "");
    } else if (s) {
        if (r->json) record_json(r, k->name, s->span, "fence", "-", "-", s->fence.order, s->fence.scope, ir_low_fence(r->low, s));
        else record_text(r, s->span, "fence", "-", "-", s->fence.order, s->fence.scope, ir_low_fence(r->low, s), "");
    }
}

void lower_report(const IrModule *m, const IrLowered *low, const CapTarget *t, bool json, StrBuf *out) {
    Rep r = {out, json, low, cap_name(t)};
    if (!json) sb_printf(out, "# lowering for target %s (%s)\n", cap_name(t), cap_backend(t));
    ir_visit_memory_ops(m, visit, &r);
    lower_report_simt(m, t, json, out);
    if (!json && low->ncaps_used) {
        sb_puts(out, "# capabilities relied on:");
        for (int i = 0; i < low->ncaps_used; i++) sb_printf(out, " +%s", low->caps_used[i]);
        sb_putc(out, '\n');
    }
}
