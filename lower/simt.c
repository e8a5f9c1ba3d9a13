/* SIMT collectives per target, from the database's simt section: which families can take
 * qd.simt.warp.* (32-lane subgroups: simt.width "fixed" with limits.subgroup_width 32, or
 * "device" with the user asserting --cap=+subgroup32), and one --report-lowering record per
 * collective naming the instruction (simt.shuffle, .vote, .reduce, .scan, .sync) and the
 * database line that says so. */
#include "../capdb/capdb_int.h"
#include "../support/json.h"
#include "lower.h"
#include <string.h>

/* The simt.* key that decides each op. */
static const char *op_key(IrSgOp op) {
    switch (op) {
    case SG_SHUFFLE: case SG_SHUFFLE_UP: case SG_SHUFFLE_DOWN: case SG_BROADCAST: return "simt.shuffle";
    case SG_BALLOT: case SG_ALL: case SG_ANY: return "simt.vote";
    case SG_REDUCE: return "simt.reduce";
    case SG_INCLUSIVE: case SG_EXCLUSIVE: return "simt.scan";
    case SG_SYNC: return "simt.sync";
    case SG_MATCH_ANY: case SG_MATCH_ALL: return "simt.match";
    default: return "simt.width";
    }
}

int lower_simt_width(const CapTarget *t, const LowerOptions *o) {
    const char *w = cap_str(t, "simt.width");
    if (w && !strcmp(w, "fixed")) return (int)cap_subgroup_width(t, o ? (const char *const *)o->caps : NULL, o ? o->ncaps : 0);
    for (int i = 0; w && o && i < o->ncaps; i++)
        if (!strcmp(o->caps[i], "+subgroup32")) return 32;
    return 0;
}

static bool warp_ok(const CapTarget *t, const LowerOptions *o) { return lower_simt_width(t, o) == 32; }

typedef struct {
    const CapTarget *t;
    const LowerOptions *o;
    bool ok;
    StrBuf *out;
    bool json;
    VEC(uint64_t) seen; /* one diagnostic or record per call and op: an expansion repeats them */
} SimtWalk;

/* True the first time (span, op) is seen. */
static bool first(SimtWalk *s, const IrKernel *k, const IrExpr *e, int op) {
    uint64_t key = (uint64_t)(uintptr_t)k * 31 ^ (uint64_t)e->span.off << 16 ^ (uint64_t)e->span.len << 8 ^ (uint64_t)op ^ (uint64_t)(uintptr_t)e->span.src << 40;
    for (int i = 0; i < s->seen.len; i++)
        if (s->seen.items[i] == key) return false;
    vec_push(&s->seen, key);
    return true;
}

static IrExpr *check(IrWalker *w, IrExpr *e) {
    SimtWalk *s = w->ctx;
    if (e->kind != IR_SUBGROUP || !first(s, w->k, e, 0)) return e;
    if (!cap_str(s->t, "simt.width")) {
        diag_error(e->span, QD4010, "qd.simt.subgroup.%s is not supported on target '%s' (no 'simt' section in its "
                   "capability file)", ir_sg_name(e->sg.op), cap_name(s->t));
        s->ok = false;
    } else if (e->sg.warp && !warp_ok(s->t, s->o)) {
        if (!strcmp(cap_str(s->t, "simt.width"), "device"))
            diag_error(e->span, QD4011, "qd.simt.warp.* needs 32-lane subgroups; the subgroup size of target '%s' is the "
                       "device's (assert it with --cap=+subgroup32, or use qd.simt.subgroup.*)", cap_name(s->t));
        else
            diag_error(e->span, QD4011, "qd.simt.warp.* needs 32-lane subgroups; target '%s' has %d-lane subgroups "
                       "(use qd.simt.subgroup.*%s)", cap_name(s->t), lower_simt_width(s->t, s->o),
                       cap_str(s->t, "simt.wave32") ? ", or --cap=+wave32" : "");
        s->ok = false;
    }
    return e;
}

bool lower_check_simt(const IrModule *m, const CapTarget *t, const LowerOptions *o) {
    SimtWalk s = {t, o, true, NULL, false, {0}};
    IrWalker w = {.expr = check, .ctx = &s};
    ir_walk_module((IrModule *)m, &w); /* a reader: check never replaces a node */
    vec_free(&s.seen);
    return s.ok;
}

/* ---- --report-lowering ---- */

static IrExpr *record(IrWalker *w, IrExpr *e) {
    SimtWalk *s = w->ctx;
    if (e->kind != IR_SUBGROUP || !first(s, w->k, e, 1 + (int)e->sg.op * 16 + (int)e->sg.combine)) return e;
    const char *key = op_key(e->sg.op), *how = cap_str(s->t, key);
    char op[64];
    snprintf(op, sizeof op, "subgroup.%s", ir_sg_name(e->sg.op));
    if (e->sg.op == SG_REDUCE || e->sg.op == SG_INCLUSIVE || e->sg.op == SG_EXCLUSIVE) {
        static const char *const comb[] = {[IR_ADD] = "add", [IR_MUL] = "mul", [IR_MIN] = "min", [IR_MAX] = "max",
                                           [IR_AND] = "and", [IR_OR] = "or", [IR_XOR] = "xor"};
        snprintf(op, sizeof op, "subgroup.%s_%s", ir_sg_name(e->sg.op), comb[e->sg.combine]);
    }
    const char *dt = e->sg.a ? qt_name(e->sg.a->type) : "-";
    const char *decision = how && (!strcmp(how, "butterfly") || !strcmp(how, "shuffles")) ? "expanded" : "native";
    const CapFact *f = &s->t->facts[capk_find(key)];
    const char *file = e->span.src ? e->span.src->name : "<unknown>", *dbfile = f->at.file ? f->at.file : "?";
    uint32_t line = 0, col = 0;
    if (e->span.src) source_line_col(e->span.src, e->span.off, &line, &col);
    if (s->json) {
        sb_puts(s->out, "{\"file\":"), json_str(s->out, file);
        sb_printf(s->out, ",\"line\":%u,\"col\":%u,\"kernel\":", line, col), json_str(s->out, w->k->name);
        sb_puts(s->out, ",\"target\":"), json_str(s->out, cap_name(s->t));
        sb_printf(s->out, ",\"op\":\"%s\",\"dtype\":\"%s\",\"decision\":\"%s\",\"spelling\":", op, dt, decision);
        json_str(s->out, how ? how : "");
        sb_puts(s->out, ",\"reason\":"), json_strf(s->out, "%s:%s", dbfile, key), sb_puts(s->out, ",\"schema\":\"" LOWERING_REPORT_SCHEMA "\"}\n");
    } else {
        char loc[512];
        snprintf(loc, sizeof loc, "%s:%u:%u", file, line, col);
        sb_printf(s->out, "%-36s  %-24s  %-4s  %-11s  %s  (%s:%s)\n", loc, op, dt, decision, how ? how : "", dbfile, key);
    }
    return e;
}

void lower_report_simt(const IrModule *m, const CapTarget *t, bool json, StrBuf *out) {
    SimtWalk s = {t, NULL, true, out, json, {0}};
    IrWalker w = {.expr = record, .ctx = &s};
    ir_walk_module((IrModule *)m, &w);
    vec_free(&s.seen);
}
