/* The atomic lowering engine: for every memory operation and fence, one IrLowering decision
 * taken only from capability-database answers (native / CAS loop / rewrite / plain / unsupported),
 * with orders strengthened (never weakened) and unsupported operations reported as QD4xxx. */
#include "lower.h"
#include "../capdb/capdb_int.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
    const CapTarget *t;
    const LowerOptions *o;
    Arena *arena;
    bool ok;
    IrLowering *ops; /* the result being built, indexed by memory-operation id */
    int nops;
    VEC(const char *) caps_used;
    CapAnswer *op_caps; /* lower_module: the answer each memory operation's caps come from, counted
                           once the SharedArray widening settles (a widened peer relies on none) */
} LowerCtx;

static const char *const *opt_caps(const LowerOptions *o) { return o ? (const char *const *)o->caps : NULL; }
static int opt_ncaps(const LowerOptions *o) { return o ? o->ncaps : 0; }

bool lower_check_caps(const CapTarget *t, const LowerOptions *o) {
    bool ok = true;
    for (int i = 0; i < opt_ncaps(o); i++) {
        const char *c = o->caps[i];
        bool known = false;
        for (int k = 0; (c[0] == '+' || c[0] == '-') && k < t->caps.len; k++) known |= !strcmp(t->caps.items[k].name, c + 1);
        if (known) continue;
        StrBuf names;
        sb_init(&names);
        for (int k = 0; k < t->caps.len; k++) sb_printf(&names, "%s%s", k ? ", " : "", t->caps.items[k].name);
        diag_error((Span){0}, QD3010, "unknown capability '%s' for target '%s' (write --cap=+NAME or --cap=-NAME; %s%s)",
                   c, t->name, t->caps.len ? "known: " : "this target has no optional capabilities",
                   names.data ? names.data : "");
        sb_free(&names);
        const char *cand[64];
        int nc = 0;
        for (int k = 0; k < t->caps.len && nc < 64; k++) cand[nc++] = t->caps.items[k].name;
        const char *best = (c[0] == '+' || c[0] == '-') ? closest_name(c + 1, cand, nc) : NULL;
        if (best) diag_note((Span){0}, "did you mean '--cap=%c%s'?", c[0], best);
        ok = false;
    }
    return ok;
}

/* ---- hints ---- */
static void hint_families(const CapTarget *t, QdOp op, QdType dt, QdSpace sp) {
    StrBuf b;
    sb_init(&b);
    int n = 0;
    for (int i = 0; i < capdb_ntargets(t->db); i++) {
        const CapTarget *u = capdb_target_at(t->db, i);
        if (u->abstract || u->state != 2 || u == t) continue;
        CapAnswer a = cap_lookup(u, op, dt, sp, QSCOPE_DEVICE, true, NULL, 0);
        if (a.status != CS_UNSUPPORTED && n++ < 8) sb_printf(&b, "%s%s", n > 1 ? ", " : "", u->name);
    }
    if (n > 8) sb_printf(&b, " and %d more", n - 8);
    if (n) diag_note((Span){0}, "targets that support it without capabilities: %s", b.data);
    else diag_note((Span){0}, "no target in the database supports it");
    sb_free(&b);
}

static const char *cap_desc(const CapTarget *t, const char *cap) {
    for (int i = 0; i < t->caps.len; i++)
        if (!strcmp(t->caps.items[i].name, cap)) return t->caps.items[i].desc;
    return "";
}

static void report_unsupported(LowerCtx *c, const IrExpr *e, QdType dt, const CapAnswer *a) {
    const IrMemOp *m = &e->mem;
    diag_error(e->span, QD4001, "atomic %s on %s in %s memory is not supported on target '%s' (%s:%d%s%s)",
               qop_name(m->op), qt_name(m->ref->type), qspace_name(m->ref->space), c->t->name, a->cell->at.file,
               a->cell->at.line, a->cell->note ? ": " : "", a->cell->note ? a->cell->note : "");
    if (a->needs_cap)
        diag_note((Span){0}, "pass --cap=+%s if the device has it: %s", a->needs_cap, cap_desc(c->t, a->needs_cap));
    else hint_families(c->t, m->op, dt, m->ref->space);
    c->ok = false;
}

/* ---- orders ---- */
static bool has_acq(QdOrder o) { return o == QORD_ACQUIRE || o == QORD_ACQ_REL || o == QORD_SEQ_CST; }
static bool has_rel(QdOrder o) { return o == QORD_RELEASE || o == QORD_ACQ_REL || o == QORD_SEQ_CST; }

static void note(StrBuf *b, const char *fmt, const char *a, const char *x) {
    if (b->len) sb_puts(b, "; ");
    sb_printf(b, fmt, a, x);
}

/* The order the instruction carries, plus fences: exact, stronger, seq_cst policy, or emulated. */
static bool decide_order(const CapTarget *t, CapOrderKind kind, QdOrder want, IrLowering *L, StrBuf *why) {
    unsigned have = t->orders[kind];
    if (have & (1u << want)) return L->order = want, true;
    if (want == QORD_SEQ_CST) {
        long pol = t->facts[CAPK_SEQ_CST].value ? t->facts[CAPK_SEQ_CST].num : SEQ_NONE;
        QdOrder base = kind == ORDK_LOAD ? QORD_ACQUIRE : kind == ORDK_STORE ? QORD_RELEASE : QORD_ACQ_REL;
        if (pol == SEQ_FENCE) {
            L->fence_before = true;
            L->fence_order = QORD_SEQ_CST;
            note(why, "seq_cst as fence + %s%s", qord_name(base), "");
            return decide_order(t, kind, base, L, why);
        }
        if (pol == SEQ_ACQ_REL) {
            note(why, "seq_cst as %s (the memory model has no SequentiallyConsistent)%s", qord_name(base), "");
            return decide_order(t, kind, base, L, why);
        }
        return false;
    }
    static const QdOrder up[] = {QORD_ACQ_REL, QORD_SEQ_CST};
    for (int i = 0; i < 2; i++)
        if ((have & (1u << up[i])) && up[i] > want && (want != QORD_ACQ_REL || up[i] == QORD_SEQ_CST)) {
            L->order = up[i];
            note(why, "%s strengthened to %s", qord_name(want), qord_name(up[i]));
            return true;
        }
    long emu = t->facts[CAPK_EMULATE].value ? t->facts[CAPK_EMULATE].num : EMU_NONE;
    if (emu == EMU_NONE || !(have & (1u << QORD_RELAXED)) || want == QORD_RELAXED) return false;
    L->order = QORD_RELAXED;
    if (!L->fence_before && !L->fence_after) L->fence_order = want;
    L->fence_before |= has_rel(want);
    L->fence_after |= has_acq(want);
    if (emu == EMU_MEMBAR) L->flags |= LOWF_MEMBAR_ORDERS;
    note(why, "%s as relaxed + fence%s", qord_name(want), L->fence_before && L->fence_after ? "s before and after" : L->fence_before ? " before" : " after");
    return true;
}

static void order_error(LowerCtx *c, Span sp, const char *what, QdOrder o, CapOrderKind kind) {
    const CapOrigin *at = &c->t->order_at[kind];
    diag_error(sp, QD4002, "order '%s' on %s is not supported on target '%s' and has no stronger lowering (%s:%d)",
               qord_name(o), what, c->t->name, at->file ? at->file : c->t->disp, at->file ? at->line : 1);
    diag_note((Span){0}, "orders this target carries for %s: see 'qdc --print-caps %s'", what, c->t->name);
    c->ok = false;
}

static bool decide_scope(LowerCtx *c, Span sp, QdScope want, IrLowering *L, StrBuf *why) {
    int carried = c->t->scope_map[want];
    if (carried < 0) {
        StrBuf b;
        sb_init(&b);
        for (int i = 0; i < capdb_ntargets(c->t->db); i++) {
            const CapTarget *u = capdb_target_at(c->t->db, i);
            if (!u->abstract && u->state == 2 && u->scope_map[want] >= 0) sb_printf(&b, "%s%s", b.len ? ", " : "", u->name);
        }
        diag_error(sp, QD4003, "scope '%s' is not supported on target '%s' (%s)", qscope_name(want), c->t->name,
                   c->t->disp);
        diag_note((Span){0}, "targets with scope '%s': %s", qscope_name(want), b.len ? b.data : "none");
        sb_free(&b);
        c->ok = false;
        return false;
    }
    L->scope = L->fence_scope = (QdScope)carried;
    if (carried != (int)want) note(why, "scope %s widened to %s", qscope_name(want), qscope_name(carried));
    return true;
}

static void use_caps(LowerCtx *c, const CapAnswer *a) {
    for (int i = 0; i < a->ncaps_used; i++) {
        bool seen = false;
        for (int k = 0; k < c->caps_used.len; k++) seen |= !strcmp(c->caps_used.items[k], a->caps_used[i]);
        if (!seen) vec_push(&c->caps_used, a->caps_used[i]);
    }
}

/* An order obtained with fences needs the family's fence (e.g. MSL 3.2's atomic_thread_fence). */
static bool fences_for_order(LowerCtx *c, Span sp, QdOrder o, CapOrderKind kind, StrBuf *why) {
    CapAnswer a = cap_resolve_cell(c->t, c->t->fence_cell, QSCOPE_DEVICE, true, opt_caps(c->o), opt_ncaps(c->o));
    if (a.status != CS_UNSUPPORTED) {
        if (a.cell->spelling && c->t->orders[ORDK_FENCE] == 1u << QORD_SEQ_CST) note(why, "each fence is %s (%s)", a.cell->spelling, "seq_cst");
        return use_caps(c, &a), true;
    }
    const char *what = kind == ORDK_LOAD ? "atomic_load" : kind == ORDK_STORE ? "atomic_store" : "atomic read-modify-write";
    diag_error(sp, QD4002, "order '%s' on %s is not supported on target '%s': it needs a relaxed operation and "
               "memory fences, and the target has no fence (%s:%d%s%s)", qord_name(o), what, c->t->name,
               a.cell->at.file, a.cell->at.line, a.cell->note ? ": " : "", a.cell->note ? a.cell->note : "");
    if (a.needs_cap) diag_note((Span){0}, "pass --cap=+%s if the device has it: %s", a.needs_cap, cap_desc(c->t, a.needs_cap));
    c->ok = false;
    return false;
}

/* ---- one memory operation ---- */
static bool bit_op(QdOp op) { return op == QOP_EXCHANGE || op == QOP_CAS || op == QOP_LOAD || op == QOP_STORE; }

static CapOrderKind order_kind(QdOp op) {
    return op == QOP_LOAD ? ORDK_LOAD : op == QOP_STORE ? ORDK_STORE : ORDK_RMW;
}

/* The database answer for the op, with the target-independent rewrites: float bit operations
 * through the same-width unsigned integer, and sub as add of the negation where add is native. */
static CapAnswer answer_for(LowerCtx *c, const IrMemOp *m, IrLowering *L, QdType *cell_dt, StrBuf *why) {
    QdType dt = m->ref->type;
    const char *const *caps = opt_caps(c->o);
    int n = opt_ncaps(c->o);
    if (qt_is_float(dt) && bit_op(m->op)) {
        L->via_int = true;
        dt = qt_uint_same_width(dt);
        note(why, "through %s%s", qt_name(dt), " (same-width integer)");
    }
    *cell_dt = dt;
    CapAnswer a = cap_lookup(c->t, m->op, dt, m->ref->space, L->scope, m->result_used, caps, n);
    if (m->op == QOP_SUB && a.status != CS_NATIVE) {
        CapAnswer b = cap_lookup(c->t, QOP_ADD, dt, m->ref->space, L->scope, m->result_used, caps, n);
        if (b.status == CS_NATIVE) {
            L->op = QOP_ADD, L->negate = true;
            note(why, "sub as add of the negation%s%s", "", "");
            return b;
        }
    }
    return a;
}

static void set_detail(LowerCtx *c, IrLowering *L, const IrMemOp *m, const CapAnswer *a, StrBuf *why) {
    StrBuf d;
    sb_init(&d);
    if (L->kind == LOW_CAS_LOOP) sb_printf(&d, "CAS loop computing %s%s", qop_name(L->op), L->via_int || qt_is_float(m->ref->type) ? " on the integer bits" : "");
    else sb_puts(&d, a->cell->spelling ? a->cell->spelling : "native");
    if (qt_is_float(m->ref->type) && (m->op == QOP_MIN || m->op == QOP_MAX)) sb_puts(&d, "; minNum/maxNum: a NaN operand loses");
    for (int i = 0; i < a->ncaps_used; i++) sb_printf(&d, "; relies on +%s", a->caps_used[i]);
    if (L->no_return) sb_puts(&d, "; result unused: no-return form");
    if (L->flags & LOWF_SHARED_U32) sb_puts(&d, "; the SharedArray is stored as u32 words, one value per word");
    if (why->len) sb_printf(&d, "; %s", why->data);
    L->detail = arena_strdup(c->arena, d.data);
    L->spelling = a->cell->spelling;
    L->reason_file = a->cell->at.file, L->reason_line = a->cell->at.line, L->reason_key = a->cell->at.key;
    sb_free(&d);
}

static void decide_volatile(LowerCtx *c, const IrExpr *e, IrLowering *L) {
    CapAnswer a = cap_resolve_cell(c->t, c->t->volatile_cell, L->scope, true, opt_caps(c->o), opt_ncaps(c->o));
    if (a.status == CS_UNSUPPORTED) {
        diag_error(e->span, QD4004, "volatile_load is not supported on target '%s' (%s:%d)", c->t->name,
                   a.cell->at.file, a.cell->at.line);
        c->ok = false;
        L->kind = LOW_UNSUPPORTED;
        return;
    }
    L->kind = LOW_NATIVE, L->op = QOP_LOAD, L->order = QORD_RELAXED, L->flags = a.cell->flags;
    L->via_int = false;
    StrBuf why;
    sb_init(&why);
    note(&why, "volatile load: every access reaches memory, never an atomic%s%s", "", "");
    CapCell shared;
    if (e->mem.ref->space == QSPACE_SHARED && (a.cell->flags & LOWF_VOLATILE_DECORATION)) {
        /* the flag's form for a SharedArray (targets/spirv/mslemit.c): its declaration, not a buffer */
        shared = *a.cell, shared.spelling = "volatile threadgroup (the SharedArray is declared volatile)";
        a.cell = &shared;
    }
    set_detail(c, L, &e->mem, &a, &why);
    sb_free(&why);
}

/* A CAS loop swaps the same-width integer: whether the database has that compare-and-swap as
 * one instruction (else the backend widens it to a masked CAS of a word it has). */
static void decide_loop_cas(LowerCtx *c, const IrMemOp *m, QdType dt, IrLowering *L) {
    QdType bits = qt_is_float(dt) ? qt_uint_same_width(dt) : dt;
    CapAnswer a = cap_lookup(c->t, QOP_CAS, bits, m->ref->space, L->scope, true, opt_caps(c->o), opt_ncaps(c->o));
    L->loop_cas_native = a.status == CS_NATIVE;
    if (L->loop_cas_native) use_caps(c, &a);
}

static bool decide_memop(LowerCtx *c, const IrExpr *e, IrLowering *L) {
    const IrMemOp *m = &e->mem;
    *L = (IrLowering){.op = m->op, .order = m->order, .scope = m->scope, .fence_scope = m->scope};
    if (m->ref->kind == IR_REF_LOCAL) {
        L->kind = LOW_PLAIN;
        L->detail = "thread-private local: plain load/compute/store";
        return true;
    }
    StrBuf why;
    sb_init(&why);
    bool ok = decide_scope(c, e->span, m->scope, L, &why);
    if (ok && m->is_volatile) decide_volatile(c, e, L);
    if (!ok || m->is_volatile) {
        if (!ok) L->kind = LOW_UNSUPPORTED;
        sb_free(&why);
        return ok && L->kind != LOW_UNSUPPORTED;
    }
    QdType dt;
    CapAnswer a = answer_for(c, m, L, &dt, &why);
    if (a.status == CS_UNSUPPORTED) {
        report_unsupported(c, e, dt, &a);
        L->kind = LOW_UNSUPPORTED;
        sb_free(&why);
        return false;
    }
    L->kind = a.status == CS_NATIVE ? LOW_NATIVE : LOW_CAS_LOOP;
    if (L->kind == LOW_CAS_LOOP && qt_is_float(m->ref->type)) L->via_int = true;
    CapOrderKind kind = order_kind(m->op);
    bool ordered = decide_order(c->t, kind, m->order, L, &why);
    if (ordered && (L->fence_before || L->fence_after) && !fences_for_order(c, e->span, m->order, kind, &why)) {
        L->kind = LOW_UNSUPPORTED;
        sb_free(&why);
        return false;
    }
    if (!ordered) {
        order_error(c, e->span, kind == ORDK_LOAD ? "atomic_load" : kind == ORDK_STORE ? "atomic_store" : "atomic read-modify-write",
                    m->order, kind);
        L->kind = LOW_UNSUPPORTED;
        sb_free(&why);
        return false;
    }
    L->flags |= a.cell->flags;
    if (L->kind == LOW_CAS_LOOP) decide_loop_cas(c, m, dt, L);
    L->no_return = !m->result_used && L->kind == LOW_NATIVE && kind == ORDK_RMW &&
                   (c->t->orders[ORDK_NORET] & (1u << L->order));
    if (c->op_caps) c->op_caps[m->id] = a;
    else use_caps(c, &a);
    set_detail(c, L, m, &a, &why);
    sb_free(&why);
    return true;
}

static bool decide_fence(LowerCtx *c, const IrStmt *s, IrLowering *L) {
    *L = (IrLowering){.op = QOP_COUNT, .order = s->fence.order, .scope = s->fence.scope, .fence_scope = s->fence.scope};
    StrBuf why;
    sb_init(&why);
    bool ok = decide_scope(c, s->span, s->fence.scope, L, &why);
    CapAnswer a = cap_resolve_cell(c->t, c->t->fence_cell, L->scope, true, opt_caps(c->o), opt_ncaps(c->o));
    if (ok && a.status == CS_UNSUPPORTED) {
        diag_error(s->span, QD4005, "memory fence is not supported on target '%s' (%s:%d%s%s)", c->t->name,
                   a.cell->at.file, a.cell->at.line, a.cell->note ? ": " : "", a.cell->note ? a.cell->note : "");
        if (a.needs_cap) diag_note((Span){0}, "pass --cap=+%s if the device has it: %s", a.needs_cap, cap_desc(c->t, a.needs_cap));
        c->ok = ok = false;
    }
    if (ok) use_caps(c, &a);
    if (ok && !decide_order(c->t, ORDK_FENCE, s->fence.order, L, &why)) {
        order_error(c, s->span, "a fence", s->fence.order, ORDK_FENCE);
        ok = false;
    }
    if (ok) {
        L->kind = LOW_NATIVE;
        L->flags |= a.cell->flags;
        L->detail = arena_strdup(c->arena, why.len ? why.data : "");
        L->detail = arena_printf(c->arena, "%s%s%s", a.cell->spelling ? a.cell->spelling : "fence", why.len ? "; " : "",
                                 why.len ? why.data : "");
        L->spelling = a.cell->spelling;
        L->reason_file = a.cell->at.file, L->reason_line = a.cell->at.line, L->reason_key = a.cell->at.key;
    } else L->kind = LOW_UNSUPPORTED;
    sb_free(&why);
    return ok;
}

static IrLowering *slot(LowerCtx *c, int id) {
    if (id < 0 || id >= c->nops) die("memory operation %d outside the sealed module (%d)", id, c->nops);
    return &c->ops[id];
}

static void visit(void *ctx, const IrKernel *k, const IrTask *t, const IrExpr *memop, const IrStmt *fence) {
    (void)k, (void)t;
    LowerCtx *c = ctx;
    if (memop) decide_memop(c, memop, slot(c, memop->mem.id));
    if (fence) decide_fence(c, fence, slot(c, fence->fence.id));
}

/* A SharedArray that one decision stores as u32 words (LOWF_SHARED_U32) is words for every
 * operation on it: a native 16-bit atomic on the same array (--cap=+float16-atomic-add next to
 * a CAS-loop min) becomes a CAS loop on the word too, and the report says why. (Loads, stores,
 * exchanges and compare-and-swaps stay single instructions, on the word.) */
typedef struct { LowerCtx *c; const IrLowered *decided; } Peers;

static void widen_peer(void *ctx, const IrKernel *k, const IrTask *t, const IrExpr *memop, const IrStmt *fence) {
    (void)t, (void)fence;
    Peers *p = ctx;
    if (!memop || memop->mem.ref->kind != IR_REF_SHARED || memop->mem.is_volatile) return;
    IrLowering *L = slot(p->c, memop->mem.id);
    if (L->kind != LOW_NATIVE || bit_op(L->op) || (L->flags & LOWF_SHARED_U32) || !ir_shared_widened(k, p->decided, memop->mem.ref->index)) return;
    L->kind = LOW_CAS_LOOP, L->flags |= LOWF_SHARED_U32, L->no_return = false;
    L->via_int = qt_is_float(memop->mem.ref->type);
    L->detail = arena_printf(p->c->arena, "CAS loop computing %s on the u32 word instead of %s: another operation "
                             "stores the SharedArray as u32 words, one value per word%s", qop_name(L->op),
                             L->spelling ? L->spelling : "the native instruction", L->negate ? "; sub as add of the negation" : "");
    L->spelling = NULL; /* no longer the instruction emitted */
    p->c->op_caps[memop->mem.id].ncaps_used = 0; /* nor relies on what enabled it */
}

static int cmp_cstr(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Shared arrays of one task, laid out as every backend and the metadata lay them out
 * (ir_task_shared_bytes, with the arrays the decisions widen), must fit the family's
 * max_shared_bytes (from the database). */
static bool check_shared_limits(const IrModule *m, const CapTarget *t, const IrLowered *low) {
    long limit = cap_int(t, "max_shared_bytes", 0);
    bool ok = true;
    for (int k = 0; limit > 0 && k < m->nkernels; k++) {
        const IrKernel *kn = &m->kernels[k];
        for (int task = 0; task < kn->ntasks; task++) {
            int64_t bytes = ir_task_shared_bytes(kn, low, task);
            const IrShared *last = NULL;
            for (int i = 0; i < kn->nshared; i++)
                if (kn->shared[i].task == task) last = &kn->shared[i];
            if (last && bytes > limit) {
                diag_error(last->span, QD4006, "task '%s' needs %lld bytes of shared memory; %s allows %ld "
                                                 "(max_shared_bytes)", kn->tasks[task].name, (long long)bytes, cap_name(t), limit);
                ok = false;
            }
        }
    }
    return ok;
}

/* A task's qd.loop_config(block_dim=N) must fit the family's max_block_dim (from the database). */
static bool check_block_dims(const IrModule *m, const CapTarget *t) {
    long limit = cap_int(t, "max_block_dim", 0);
    bool ok = true;
    for (int k = 0; limit > 0 && k < m->nkernels; k++)
        for (int i = 0; i < m->kernels[k].ntasks; i++) {
            const IrTask *task = &m->kernels[k].tasks[i];
            if (task->block_dim <= limit) continue;
            diag_error(task->span, QD4007, "task '%s' asks for block_dim=%d; %s allows %ld (max_block_dim)", task->name,
                       task->block_dim, cap_name(t), limit);
            ok = false;
        }
    return ok;
}

/* qd.clock_counter(): how this family reads it (its clock section), and QD4020 at every use where
 * it reads 0 (as Quadrants on such a device). */
typedef struct {
    const CapTarget *t;
    const char *why; /* NULL: the counter is read */
    bool used;
    VEC(Span) seen; /* one warning per call: an expansion repeats a node */
} ClockWalk;

static IrExpr *clock_use(IrWalker *w, IrExpr *e) {
    ClockWalk *c = w->ctx;
    if (e->kind != IR_CLOCK) return e;
    c->used = true;
    for (int i = 0; c->why && i < c->seen.len; i++)
        if (c->seen.items[i].src == e->span.src && c->seen.items[i].off == e->span.off) return e;
    if (c->why) {
        vec_push(&c->seen, e->span);
        diag_warning(e->span, QD4020, "qd.clock_counter() is 0 on target '%s': %s", cap_name(c->t), c->why);
    }
    return e;
}

static IrClock decide_clock(LowerCtx *c, const IrModule *m) {
    const CapFact *f = &c->t->facts[CAPK_CLOCK_COUNTER];
    const char *how = f->value, *needs = cap_str(c->t, "clock.needs");
    IrClock r = IR_CLOCK_ZERO;
    char *why = NULL;
    if (!how || !strcmp(how, "none"))
        why = how ? xasprintf("the family has no cycle counter (%s:%d)", f->at.file, f->at.line)
                  : xasprintf("its capability file has no clock section");
    else if (needs && !cap_has(c->t, needs, opt_caps(c->o), opt_ncaps(c->o)))
        why = xasprintf("pass --cap=+%s if the device has it (%s)", needs, cap_desc(c->t, needs));
    else r = strcmp(how, "shader_clock") ? IR_CLOCK_CYCLE : IR_CLOCK_SHADER;
    ClockWalk cw = {c->t, why, false, {0}};
    IrWalker w = {.expr = clock_use, .ctx = &cw};
    ir_walk_module((IrModule *)m, &w); /* a reader: clock_use never replaces a node */
    if (cw.used && !why && needs) vec_push(&c->caps_used, needs);
    vec_free(&cw.seen);
    free(why);
    return r;
}

/* print(...): an output channel (the print section: printf, vprintf, debug_printf) or the
 * statement is compiled out with warning QD5180, as Quadrants does where a device has none. */
typedef struct {
    const CapTarget *t;
    const char *why; /* NULL: printed */
    bool used;
} PrintWalk;

static void print_use(IrWalker *w, IrStmt *s) {
    PrintWalk *p = w->ctx;
    if (s->kind != IR_PRINT) return;
    p->used = true;
    if (p->why) diag_warning(s->span, QD5180, "print(...) is compiled out for target '%s' (%s)", cap_name(p->t), p->why);
}

static bool decide_print(LowerCtx *c, const IrModule *m) {
    const CapFact *f = &c->t->facts[CAPK_PRINT_CHANNEL];
    const char *how = f->value, *needs = cap_str(c->t, "print.needs");
    char *why = NULL;
    if (!how || !strcmp(how, "none")) why = xasprintf("no output channel");
    else if (needs && !cap_has(c->t, needs, opt_caps(c->o), opt_ncaps(c->o)))
        why = xasprintf("pass --cap=+%s if the device has it: %s", needs, cap_desc(c->t, needs));
    PrintWalk pw = {c->t, why, false};
    IrWalker w = {.stmt = print_use, .ctx = &pw};
    ir_walk_module((IrModule *)m, &w); /* a reader */
    bool out = !why;
    if (pw.used && out && needs) vec_push(&c->caps_used, needs);
    free(why);
    return out;
}

IrLowered *lower_module(const IrModule *m, const CapTarget *t, const LowerOptions *o, Arena *arena) {
    LowerCtx c = {t, o, arena, true, ARENA_ARRAY(arena, IrLowering, m->nmemops + 1), m->nmemops, {0},
                  ARENA_ARRAY(arena, CapAnswer, m->nmemops + 1)};
    if (!check_block_dims(m, t)) c.ok = false;
    if (!lower_check_simt(m, t, o)) c.ok = false;
    IrClock clock = decide_clock(&c, m);
    bool print = decide_print(&c, m);
    ir_visit_memory_ops(m, visit, &c);
    IrLowered decided = {.ops = c.ops, .nops = c.nops};
    Peers peers = {&c, &decided};
    ir_visit_memory_ops(m, widen_peer, &peers);
    for (int i = 0; i < c.nops; i++) use_caps(&c, &c.op_caps[i]);
    if (!check_shared_limits(m, t, &decided)) c.ok = false;
    const char *rewrite_caps[2] = {NULL, NULL};
    if (c.ok) lower_reductions(m, t, o, c.ops, arena, rewrite_caps);
    int nvector = c.ok ? lower_vectors(m, t, c.ops, arena) : 0;
    for (int i = 0; i < 2; i++) {
        bool seen = !rewrite_caps[i];
        for (int k = 0; !seen && k < c.caps_used.len; k++) seen = !strcmp(c.caps_used.items[k], rewrite_caps[i]);
        if (!seen) vec_push(&c.caps_used, rewrite_caps[i]);
    }
    if (c.caps_used.len) qsort(c.caps_used.items, (size_t)c.caps_used.len, sizeof(char *), cmp_cstr);
    const char **caps = ARENA_ARRAY(arena, const char *, c.caps_used.len + 1);
    for (int i = 0; i < c.caps_used.len; i++) caps[i] = arena_strdup(arena, c.caps_used.items[i]);
    IrLowered *r = ARENA_NEW(arena, IrLowered);
    *r = (IrLowered){c.ops, c.nops, caps, c.caps_used.len, clock, print, nvector};
    vec_free(&c.caps_used);
    return c.ok ? r : NULL;
}

bool lower_memop(const IrExpr *memop, const CapTarget *t, const LowerOptions *o, Arena *arena, IrLowering *out) {
    if (memop->kind != IR_MEMOP) die("lower_memop on a non-memop expression");
    LowerCtx c = {t, o, arena, true, out, 1, {0}, NULL};
    bool ok = decide_memop(&c, memop, out) && c.ok;
    vec_free(&c.caps_used);
    return ok;
}
