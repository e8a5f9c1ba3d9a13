/* IR -> LLVM IR: the target-independent core shared by x86, PTX and AMDGPU. Types, fields,
 * parameters, locals (allocas, promoted by mem2reg), expressions, statements and addressing
 * (a buffer and its element index, IrRef.flat). Memory operations are in atomics.c; everything target-specific is a hook. */
#include "llvm_target.h"
#include <string.h>

/* ---- types and constants ---- */
LLVMTypeRef cg_type(LlvmCg *cg, QdType t) {
    switch (t) {
    case QT_VOID: return LLVMVoidTypeInContext(cg->ctx);
    case QT_U1: return LLVMInt1TypeInContext(cg->ctx);
    case QT_F16: return LLVMHalfTypeInContext(cg->ctx);
    case QT_BF16: return LLVMBFloatTypeInContext(cg->ctx);
    case QT_F32: return LLVMFloatTypeInContext(cg->ctx);
    case QT_F64: return LLVMDoubleTypeInContext(cg->ctx);
    default: return LLVMIntTypeInContext(cg->ctx, (unsigned)qt_bits(t));
    }
}

LLVMTypeRef cg_storage_type(LlvmCg *cg, QdType t) {
    return t == QT_U1 ? LLVMInt8TypeInContext(cg->ctx) : cg_type(cg, t);
}

LLVMTypeRef cg_ptr(LlvmCg *cg, unsigned as) { return LLVMPointerTypeInContext(cg->ctx, as); }
LLVMValueRef cg_i32(LlvmCg *cg, int64_t v) { return LLVMConstInt(LLVMInt32TypeInContext(cg->ctx), (unsigned long long)v, 1); }
LLVMValueRef cg_i64(LlvmCg *cg, int64_t v) { return LLVMConstInt(LLVMInt64TypeInContext(cg->ctx), (unsigned long long)v, 1); }
unsigned cg_align(QdType t) { return t == QT_U1 ? 1 : (unsigned)qt_bits(t) / 8; }
const char *cg_task_symbol(const IrTask *t) { return t->name; }

LLVMBasicBlockRef cg_block(LlvmCg *cg, const char *name) {
    return LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, name);
}

LLVMValueRef cg_call_intrinsic(LlvmCg *cg, const char *name, LLVMTypeRef *tys, unsigned ntys,
                               LLVMValueRef *args, unsigned nargs) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    if (!id) die("unknown LLVM intrinsic %s", name);
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(cg->mod, id, tys, ntys);
    LLVMTypeRef fty = LLVMIntrinsicGetType(cg->ctx, id, tys, ntys);
    return LLVMBuildCall2(cg->b, fty, fn, args, nargs, "");
}

static LLVMValueRef const_of(LlvmCg *cg, const IrExpr *e) {
    LLVMTypeRef ty = cg_type(cg, e->type);
    if (qt_is_float(e->type)) return LLVMConstReal(ty, e->c.f);
    if (e->type == QT_U1) return LLVMConstInt(ty, e->c.u != 0, 0);
    return LLVMConstInt(ty, e->c.u, qt_is_signed(e->type));
}

/* ---- functions, parameters, locals ---- */
LLVMValueRef cg_add_function(LlvmCg *cg, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                             unsigned nparams) {
    LLVMTypeRef fty = LLVMFunctionType(ret, params, nparams, 0);
    LLVMValueRef fn = LLVMAddFunction(cg->mod, name, fty);
    LLVMSetLinkage(fn, LLVMExternalLinkage);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(cg->ctx, LLVMGetEnumAttributeKindForName("nounwind", 8), 0));
    if (cg->tgt->function_attrs) cg->tgt->function_attrs(cg, fn);
    cg->fn = fn;
    if (cg->dib) LLVMSetCurrentDebugLocation2(cg->b, NULL); /* until cg_debug_function */
    LLVMPositionBuilderAtEnd(cg->b, LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry"));
    return fn;
}

LLVMValueRef cg_call_extern(LlvmCg *cg, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                            unsigned nparams, LLVMValueRef *args) {
    LLVMTypeRef fty = LLVMFunctionType(ret, params, nparams, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, name);
    if (!fn) fn = LLVMAddFunction(cg->mod, name, fty);
    return LLVMBuildCall2(cg->b, fty, fn, args, nparams, "");
}

LLVMTypeRef cg_args_struct_type(LlvmCg *cg, const IrKernel *k) {
    VEC(LLVMTypeRef) el = {0};
    for (int i = 0; i < k->nparams; i++) {
        const IrParam *p = &k->params[i];
        if (p->kind == IR_PARAM_SCALAR) {
            vec_push(&el, cg_storage_type(cg, p->type));
            continue;
        }
        vec_push(&el, cg_ptr(cg, cg->tgt->as_global));
        for (int d = 0; d < p->ndim; d++) vec_push(&el, LLVMInt32TypeInContext(cg->ctx));
    }
    LLVMTypeRef st = LLVMStructTypeInContext(cg->ctx, el.items, (unsigned)el.len, 0);
    vec_free(&el);
    return st;
}

void cg_bind_scalar(LlvmCg *cg, int param, LLVMValueRef v) { cg->param_vals[param] = v; }

void cg_bind_ndarray(LlvmCg *cg, int param, LLVMValueRef data, const LLVMValueRef *extents) {
    cg->param_vals[param] = data;
    for (int d = 0; d < cg->kernel->params[param].ndim; d++) cg->param_shape[param][d] = extents[d];
}

static LLVMValueRef load_field_of(LlvmCg *cg, LLVMTypeRef st, LLVMValueRef p, unsigned idx, LLVMTypeRef ty) {
    LLVMValueRef addr = LLVMBuildStructGEP2(cg->b, st, p, idx, "");
    return LLVMBuildLoad2(cg->b, ty, addr, "");
}

void cg_bind_args_struct(LlvmCg *cg, const IrKernel *k, LLVMValueRef args_ptr) {
    LLVMTypeRef st = cg_args_struct_type(cg, k);
    unsigned slot = 0;
    for (int i = 0; i < k->nparams; i++) {
        const IrParam *p = &k->params[i];
        if (p->kind == IR_PARAM_SCALAR) {
            LLVMValueRef v = load_field_of(cg, st, args_ptr, slot++, cg_storage_type(cg, p->type));
            if (p->type == QT_U1) v = LLVMBuildICmp(cg->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
            cg_bind_scalar(cg, i, v);
            continue;
        }
        LLVMValueRef data = load_field_of(cg, st, args_ptr, slot++, cg_ptr(cg, cg->tgt->as_global));
        LLVMValueRef ext[IR_MAX_DIMS];
        for (int d = 0; d < p->ndim; d++)
            ext[d] = load_field_of(cg, st, args_ptr, slot++, LLVMInt32TypeInContext(cg->ctx));
        cg_bind_ndarray(cg, i, data, ext);
    }
}

void cg_task_begin(LlvmCg *cg, const IrKernel *k, int ti) {
    cg->kernel = k;
    cg->task = &k->tasks[ti];
    cg->task_index = ti;
    cg_debug_function(cg, cg->task->span);
    ir_memo_clear(&cg->shared_vals);
    cg->param_vals = xcalloc((size_t)k->nparams + 1, sizeof *cg->param_vals);
    cg->param_shape = xcalloc((size_t)k->nparams + 1, sizeof *cg->param_shape);
    cg->locals = xcalloc((size_t)k->nlocals + 1, sizeof *cg->locals);
    bool *used = xcalloc((size_t)k->nlocals + 1, sizeof *used);
    ir_task_locals(cg->task, used);
    for (int i = 0; i < k->nlocals; i++)
        if (used[i]) cg->locals[i] = LLVMBuildAlloca(cg->b, cg_type(cg, k->locals[i].type), k->locals[i].name);
    free(used);
    cg->iter_index = NULL;
    cg->nloops = 0;
}

void cg_task_end(LlvmCg *cg) {
    ir_memo_free(&cg->shared_vals);
    free(cg->param_vals);
    free(cg->param_shape);
    free(cg->locals);
    cg->param_vals = NULL;
    cg->param_shape = NULL;
    cg->locals = NULL;
}

LLVMValueRef cg_task_extent(LlvmCg *cg) { return cg_expr(cg, cg->task->extent); }

/* ---- addressing: the buffer (or storage) plus IrRef.flat, the element index ir_expand_module
 * built (row-major, i64) or the frontend's index into an SNode storage ---- */
LLVMValueRef cg_ref_ptr(LlvmCg *cg, const IrRef *r) {
    LLVMValueRef base;
    switch (r->kind) {
    case IR_REF_LOCAL: return cg->locals[r->index];
    case IR_REF_FIELD: {
        const IrField *f = &cg->m->fields[r->index];
        base = f->storage ? cg->storage_globals[f->storage - 1] : cg->field_globals[r->index];
        break;
    }
    case IR_REF_NDARRAY: base = cg->param_vals[r->index]; break;
    case IR_REF_SHARED:
        if (!cg->tgt->shared_base) {
            diag_error(r->span, QD5002, "qd.simt.block.SharedArray is not supported on target '%s'", cap_name(cg->cap));
            cg->failed = true;
            return LLVMGetUndef(cg_ptr(cg, cg->tgt->as_shared));
        }
        base = cg->tgt->shared_base(cg, r->index);
        break;
    default: unreachable();
    }
    if (!r->flat) return base;
    LLVMValueRef lin = cg_expr(cg, r->flat);
    return LLVMBuildGEP2(cg->b, cg_storage_type(cg, r->type), base, &lin, 1, "");
}

static LLVMValueRef load_plain(LlvmCg *cg, const IrRef *r) {
    LLVMValueRef v = LLVMBuildLoad2(cg->b, cg_storage_type(cg, r->type), cg_ref_ptr(cg, r), "");
    if (r->kind != IR_REF_LOCAL) LLVMSetAlignment(v, cg_align(r->type));
    if (r->type == QT_U1 && r->kind != IR_REF_LOCAL)
        v = LLVMBuildICmp(cg->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
    return v;
}

static void store_plain(LlvmCg *cg, const IrRef *r, LLVMValueRef v) {
    if (r->type == QT_U1 && r->kind != IR_REF_LOCAL) v = LLVMBuildZExt(cg->b, v, LLVMInt8TypeInContext(cg->ctx), "");
    LLVMValueRef st = LLVMBuildStore(cg->b, v, cg_ref_ptr(cg, r));
    if (r->kind != IR_REF_LOCAL) LLVMSetAlignment(st, cg_align(r->type));
}

/* ---- expressions ---- */
static LLVMValueRef unary(LlvmCg *cg, const IrExpr *e) {
    LLVMValueRef a = cg_expr(cg, e->un.a);
    switch (e->un.op) {
    case IR_NEG: return qt_is_float(e->type) ? LLVMBuildFNeg(cg->b, a, "") : LLVMBuildNeg(cg->b, a, "");
    case IR_BITNOT:
    case IR_LNOT: return LLVMBuildNot(cg->b, a, "");
    }
    unreachable();
}

static LLVMValueRef cast_value(LlvmCg *cg, LLVMValueRef v, QdType from, QdType to) {
    LLVMTypeRef ty = cg_type(cg, to);
    if (from == to) return v;
    if (to == QT_U1)
        return qt_is_float(from) ? LLVMBuildFCmp(cg->b, LLVMRealUNE, v, LLVMConstNull(LLVMTypeOf(v)), "")
                                 : LLVMBuildICmp(cg->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
    bool fs = qt_is_float(from), ft = qt_is_float(to);
    if (fs && ft) {
        if (qt_bits(to) == qt_bits(from)) { /* f16 <-> bf16 goes through f32 */
            v = LLVMBuildFPExt(cg->b, v, LLVMFloatTypeInContext(cg->ctx), "");
            from = QT_F32;
        }
        return qt_bits(to) > qt_bits(from) ? LLVMBuildFPExt(cg->b, v, ty, "") : LLVMBuildFPTrunc(cg->b, v, ty, "");
    }
    if (fs) { /* float -> int truncates toward zero; saturating so out-of-range is defined */
        LLVMTypeRef tys[2] = {ty, LLVMTypeOf(v)};
        return cg_call_intrinsic(cg, qt_is_signed(to) ? "llvm.fptosi.sat" : "llvm.fptoui.sat", tys, 2, &v, 1);
    }
    bool sfrom = qt_is_signed(from);
    if (ft) return sfrom ? LLVMBuildSIToFP(cg->b, v, ty, "") : LLVMBuildUIToFP(cg->b, v, ty, "");
    return LLVMBuildIntCast2(cg->b, v, ty, sfrom, "");
}

static LLVMValueRef math(LlvmCg *cg, const IrExpr *e) {
    LLVMValueRef a = cg_expr(cg, e->math.a);
    LLVMTypeRef ty = LLVMTypeOf(a);
    bool fl = qt_is_float(e->math.a->type);
    switch (e->math.op) {
    case IR_SQRT: return cg_call_intrinsic(cg, "llvm.sqrt", &ty, 1, &a, 1);
    case IR_FLOOR: return fl ? cg_call_intrinsic(cg, "llvm.floor", &ty, 1, &a, 1) : a;
    case IR_ABS: {
        if (fl) return cg_call_intrinsic(cg, "llvm.fabs", &ty, 1, &a, 1);
        if (!qt_is_signed(e->math.a->type)) return a;
        LLVMValueRef args[2] = {a, LLVMConstInt(LLVMInt1TypeInContext(cg->ctx), 0, 0)};
        return cg_call_intrinsic(cg, "llvm.abs", &ty, 1, args, 2);
    }
    case IR_POPCNT: return cg_call_intrinsic(cg, "llvm.ctpop", &ty, 1, &a, 1);
    case IR_CLZ: {
        LLVMValueRef args[2] = {a, LLVMConstInt(LLVMInt1TypeInContext(cg->ctx), 0, 0)};
        return cg_call_intrinsic(cg, "llvm.ctlz", &ty, 1, args, 2);
    }
    default: return cg_math(cg, e->math.op, e->type, a, e->math.b ? cg_expr(cg, e->math.b) : NULL);
    }
}

static LLVMValueRef expr(LlvmCg *cg, const IrExpr *e) {
    switch (e->kind) {
    case IR_CONST: return const_of(cg, e);
    case IR_LOCAL: return LLVMBuildLoad2(cg->b, cg_type(cg, cg->kernel->locals[e->local].type), cg->locals[e->local], "");
    case IR_PARAM: return cg->param_vals[e->param];
    case IR_SHAPE: return cg->param_shape[e->shape.param][e->shape.axis];
    case IR_LOAD: return load_plain(cg, e->ref);
    case IR_ADDR: return LLVMBuildPtrToInt(cg->b, cg_ref_ptr(cg, e->ref), cg_type(cg, QT_U64), "");
    case IR_UNARY: return unary(cg, e);
    case IR_BINARY: return cg_binary(cg, e->bin.op, e->bin.a->type, cg_expr(cg, e->bin.a), cg_expr(cg, e->bin.b));
    case IR_SELECT: {
        LLVMValueRef c = cg_expr(cg, e->sel.cond), a = cg_expr(cg, e->sel.a), b = cg_expr(cg, e->sel.b);
        return LLVMBuildSelect(cg->b, c, a, b, "");
    }
    case IR_CAST: return cast_value(cg, cg_expr(cg, e->arg), e->arg->type, e->type);
    case IR_BITCAST: return LLVMBuildBitCast(cg->b, cg_expr(cg, e->arg), cg_type(cg, e->type), "");
    case IR_MATH: return math(cg, e);
    case IR_MEMOP: return cg_memop(cg, e);
    case IR_THREAD_IDX:
        if (!cg->tgt->thread_idx) {
            diag_error(e->span, QD5002, "qd.simt.block.thread_idx() is not supported on target '%s'", cap_name(cg->cap));
            cg->failed = true;
            return cg_i32(cg, 0);
        }
        return cg->tgt->thread_idx(cg);
    case IR_GLOBAL_THREAD_IDX:
        if (cg->tgt->global_thread_idx) return cg->tgt->global_thread_idx(cg);
        return cg->iter_index ? cg->iter_index : cg_i32(cg, 0);
    case IR_SUBGROUP: return cg_subgroup(cg, e);
    case IR_CLOCK: /* x86 rdtsc, PTX %clock64, AMDGPU s_memtime or SHADER_CYCLES (the clock section) */
        return cg->low->clock == IR_CLOCK_CYCLE ? cg_call_intrinsic(cg, "llvm.readcyclecounter", NULL, 0, NULL, 0) : cg_i64(cg, 0);
    }
    unreachable();
}

/* ---- statements ---- */
static void block(LlvmCg *cg, const IrBlock *b);

/* After break/continue the rest of the IR block is dead: give it an unreachable home. */
static void branch_away(LlvmCg *cg, LLVMBasicBlockRef to) {
    LLVMBuildBr(cg->b, to);
    LLVMPositionBuilderAtEnd(cg->b, cg_block(cg, "dead"));
}

static void stmt_if(LlvmCg *cg, const IrStmt *s) {
    LLVMBasicBlockRef th = cg_block(cg, "then"), el = cg_block(cg, "else"), join = cg_block(cg, "endif");
    LLVMBuildCondBr(cg->b, cg_expr(cg, s->if_.cond), th, el);
    LLVMPositionBuilderAtEnd(cg->b, th);
    block(cg, &s->if_.then);
    LLVMBuildBr(cg->b, join);
    LLVMPositionBuilderAtEnd(cg->b, el);
    block(cg, &s->if_.els);
    LLVMBuildBr(cg->b, join);
    LLVMPositionBuilderAtEnd(cg->b, join);
}

static void push_loop(LlvmCg *cg, LLVMBasicBlockRef brk, LLVMBasicBlockRef cont) {
    if (cg->nloops == (int)ARRAY_LEN(cg->loop_break)) die("loops nested deeper than %d", cg->nloops);
    cg->loop_break[cg->nloops] = brk;
    cg->loop_cont[cg->nloops++] = cont;
}

/* Does this code read memory through a volatile or atomic load (a spin-wait)? */
/* A loop that reads memory through a memory operation (an atomic or ordered load: spinning on a
 * flag) gets the target's spin hint. */
static bool is_sync_read(const IrExpr *e, void *ctx) {
    (void)ctx;
    return e->kind == IR_MEMOP && e->mem.op == QOP_LOAD;
}

static void stmt_while(LlvmCg *cg, const IrStmt *s) {
    LLVMBasicBlockRef head = cg_block(cg, "while"), body = cg_block(cg, "body"), exit = cg_block(cg, "endwhile");
    LLVMBuildBr(cg->b, head);
    LLVMPositionBuilderAtEnd(cg->b, head);
    LLVMBuildCondBr(cg->b, cg_expr(cg, s->while_.cond), body, exit);
    LLVMPositionBuilderAtEnd(cg->b, body);
    if (cg->tgt->spin_hint && (ir_expr_any(s->while_.cond, is_sync_read, NULL) || ir_block_any(&s->while_.body, is_sync_read, NULL))) cg->tgt->spin_hint(cg);
    push_loop(cg, exit, head);
    block(cg, &s->while_.body);
    cg->nloops--;
    LLVMBuildBr(cg->b, head);
    LLVMPositionBuilderAtEnd(cg->b, exit);
}

static void stmt_for(LlvmCg *cg, const IrStmt *s) {
    QdType ct = cg->kernel->locals[s->for_.counter].type;
    LLVMValueRef ctr = cg->locals[s->for_.counter];
    LLVMTypeRef ty = cg_type(cg, ct);
    LLVMBuildStore(cg->b, cg_expr(cg, s->for_.begin), ctr);
    LLVMValueRef end = cg_expr(cg, s->for_.end);
    LLVMBasicBlockRef head = cg_block(cg, "for"), body = cg_block(cg, "body"), step = cg_block(cg, "step"),
                      exit = cg_block(cg, "endfor");
    LLVMBuildBr(cg->b, head);
    LLVMPositionBuilderAtEnd(cg->b, head);
    LLVMValueRef c = LLVMBuildLoad2(cg->b, ty, ctr, "");
    bool sg = qt_is_signed(ct);
    LLVMIntPredicate pred = s->for_.step > 0 ? (sg ? LLVMIntSLT : LLVMIntULT) : (sg ? LLVMIntSGT : LLVMIntUGT);
    LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, pred, c, end, ""), body, exit);
    LLVMPositionBuilderAtEnd(cg->b, body);
    push_loop(cg, exit, step);
    block(cg, &s->for_.body);
    cg->nloops--;
    LLVMBuildBr(cg->b, step);
    LLVMPositionBuilderAtEnd(cg->b, step);
    c = LLVMBuildLoad2(cg->b, ty, ctr, "");
    LLVMBuildStore(cg->b, LLVMBuildAdd(cg->b, c, LLVMConstInt(ty, (unsigned long long)s->for_.step, 1), ""), ctr);
    LLVMBuildBr(cg->b, head);
    LLVMPositionBuilderAtEnd(cg->b, exit);
}

/* A node the expansion shares (IrExpr.shared) is evaluated once per statement: its first
 * evaluation dominates every later use in the statement's straight-line code. */
LLVMValueRef cg_expr(LlvmCg *cg, const IrExpr *e) {
    if (!e->shared) return expr(cg, e);
    LLVMValueRef v = ir_memo_get(&cg->shared_vals, e);
    if (!v) ir_memo_put(&cg->shared_vals, e, v = expr(cg, e));
    return v;
}

static void stmt(LlvmCg *cg, const IrStmt *s) {
    ir_memo_clear(&cg->shared_vals);
    cg_debug_at(cg, s->span);
    switch (s->kind) {
    case IR_ASSIGN: LLVMBuildStore(cg->b, cg_expr(cg, s->assign.value), cg->locals[s->assign.local]); return;
    case IR_STORE: {
        LLVMValueRef v = cg_expr(cg, s->store.value);
        store_plain(cg, s->store.ref, v);
        return;
    }
    case IR_EVAL: cg_expr(cg, s->eval); return;
    case IR_IF: stmt_if(cg, s); return;
    case IR_WHILE: stmt_while(cg, s); return;
    case IR_FOR: stmt_for(cg, s); return;
    case IR_BREAK:
        if (!cg->nloops) die("break outside a serial loop");
        branch_away(cg, cg->loop_break[cg->nloops - 1]);
        return;
    case IR_CONTINUE:
        if (!cg->nloops && !cg->iter_end) die("continue outside a loop");
        branch_away(cg, cg->nloops ? cg->loop_cont[cg->nloops - 1] : cg->iter_end);
        return;
    case IR_BARRIER:
        if (!cg->tgt->barrier) {
            diag_error(s->span, QD5002, "qd.simt.block.sync() is not supported on target '%s'", cap_name(cg->cap));
            cg->failed = true;
            return;
        }
        cg->tgt->barrier(cg);
        return;
    case IR_FENCE: cg_fence_stmt(cg, s); return;
    case IR_ASSERT: {
        if (!cg->tgt->assert_fail) {
            diag_warning(s->span, QD5181, "assert is compiled out for target '%s' even with --debug (no way to report)", cap_name(cg->cap));
            return;
        }
        LLVMBasicBlockRef fail = cg_block(cg, "assert.fail"), ok = cg_block(cg, "assert.ok");
        LLVMBuildCondBr(cg->b, cg_expr(cg, s->assert_.cond), ok, fail);
        LLVMPositionBuilderAtEnd(cg->b, fail);
        cg->tgt->assert_fail(cg, s->assert_.msg);
        LLVMBuildUnreachable(cg->b);
        LLVMPositionBuilderAtEnd(cg->b, ok);
        return;
    }
    case IR_PRINT: {
        if (!cg->low->print) return; /* compiled out: QD5180 from the lowering */
        if (!cg->tgt->print) die("target '%s' has a print channel in its capability file but no print hook", cap_name(cg->cap));
        LLVMValueRef args[32];
        for (int i = 0; i < s->print.nargs; i++) args[i] = cg_expr(cg, s->print.args[i]);
        cg->tgt->print(cg, s->print.fmt, args, s->print.nargs);
        return;
    }
    }
    unreachable();
}

static void block(LlvmCg *cg, const IrBlock *b) {
    for (int i = 0; i < b->n; i++) stmt(cg, b->stmts[i]);
}

void cg_emit_task_body(LlvmCg *cg, LLVMValueRef index) {
    cg->iter_index = index;
    cg->iter_end = cg_block(cg, "iter.end");
    if (index) LLVMBuildStore(cg->b, index, cg->locals[cg->task->index_local]);
    block(cg, &cg->task->body);
    LLVMBuildBr(cg->b, cg->iter_end);
    LLVMPositionBuilderAtEnd(cg->b, cg->iter_end);
    cg->iter_end = NULL;
}

static void assume(LlvmCg *cg, LLVMValueRef cond) { cg_call_intrinsic(cg, "llvm.assume", NULL, 0, &cond, 1); }

/* !prof branch_weights on a conditional branch (block placement only; no semantics). */
static void branch_weights(LlvmCg *cg, LLVMValueRef br, unsigned taken, unsigned not_taken) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx);
    LLVMMetadataRef md[3] = {LLVMMDStringInContext2(cg->ctx, "branch_weights", 14),
                             LLVMValueAsMetadata(LLVMConstInt(i32, taken, 0)),
                             LLVMValueAsMetadata(LLVMConstInt(i32, not_taken, 0))};
    LLVMValueRef node = LLVMMetadataAsValue(cg->ctx, LLVMMDNodeInContext2(cg->ctx, md, 3));
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(cg->ctx, "prof", 4), node);
}

/* The task loop of ir.h (IrTask.extent) on every LLVM backend (x86: begin/end are a worker's
 * chunk, step 1; GPUs: the grid-stride loop, begin = global thread index, step = grid size,
 * end = the extent): for (i = begin; i < end; i += step), rotated. The increment is `add nuw` with an
 * unsigned exit test: in the loop 0 <= i < end <= INT32_MAX and 0 < step < 2^31 (a grid has
 * fewer than 2^31 threads, the ABI in gpu.h), so i + step < 2^32 never wraps and the test is
 * exact for every extent up to INT32_MAX (a signed `add nsw` would be poison past INT32_MAX).
 * On NVPTX it also keeps LLVM's loop strength reduction from carrying one 64-bit pointer per
 * indexed array across iterations: nvcc's shape, fewer registers (bench/ptx-quality.md). In the
 * body end > 0 is known (it drops Python-% guards on it); on GPUs the back edge is unlikely
 * (launchers cover the extent), which keeps the body in source order; on x86 (long_loops) a call
 * runs a whole chunk, and an unweighted back edge lets LLVM vectorize the loop. */
void cg_emit_strided_loop(LlvmCg *cg, LLVMValueRef begin, LLVMValueRef end, LLVMValueRef step) {
    cg_reduce_begin(cg);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(cg->b);
    LLVMBasicBlockRef body = cg_block(cg, "task.body"), exit = cg_block(cg, "task.exit");
    LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, begin, end, ""), body, exit);
    LLVMPositionBuilderAtEnd(cg->b, body);
    LLVMValueRef i = LLVMBuildPhi(cg->b, LLVMInt32TypeInContext(cg->ctx), "i");
    assume(cg, LLVMBuildICmp(cg->b, LLVMIntSGT, end, cg_i32(cg, 0), ""));
    cg_emit_task_body(cg, i);
    LLVMValueRef next = LLVMBuildNUWAdd(cg->b, i, step, "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(cg->b);
    LLVMValueRef latch_br = LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntULT, next, end, ""), body, exit);
    if (!cg->tgt->long_loops) branch_weights(cg, latch_br, 1, 127);
    LLVMAddIncoming(i, &begin, &pre, 1);
    LLVMAddIncoming(i, &next, &latch, 1);
    LLVMPositionBuilderAtEnd(cg->b, exit);
    cg->iter_index = NULL;
    cg_reduce_end(cg);
}

/* ---- module ---- */
static void build_fields(LlvmCg *cg) {
    cg->field_globals = xcalloc((size_t)cg->m->nfields + 1, sizeof *cg->field_globals);
    cg->storage_globals = xcalloc((size_t)cg->m->nstorages + 1, sizeof *cg->storage_globals);
    for (int i = 0; i < cg->m->nstorages; i++) { /* SNode storages: bytes, laid out by the frontend */
        const IrStorage *st = &cg->m->storages[i];
        LLVMTypeRef ty = LLVMArrayType2(LLVMInt8TypeInContext(cg->ctx), (uint64_t)st->bytes);
        char *name = xasprintf("qd_snode_%s", st->name);
        LLVMValueRef g = LLVMAddGlobalInAddressSpace(cg->mod, ty, name, cg->tgt->as_global);
        free(name);
        LLVMSetInitializer(g, LLVMConstNull(ty));
        LLVMSetAlignment(g, st->align > 64 ? (unsigned)st->align : 64);
        cg->storage_globals[i] = g;
    }
    for (int i = 0; i < cg->m->nfields; i++) {
        const IrField *f = &cg->m->fields[i];
        if (f->storage) continue;
        LLVMTypeRef el = cg_storage_type(cg, f->type);
        LLVMTypeRef ty = f->ndim ? LLVMArrayType2(el, (uint64_t)f->elems) : el;
        char *name = xasprintf("qd_field_%s", f->name);
        LLVMValueRef g = LLVMAddGlobalInAddressSpace(cg->mod, ty, name, cg->tgt->as_global);
        free(name);
        LLVMSetInitializer(g, LLVMConstNull(ty));
        LLVMSetAlignment(g, 64);
        cg->field_globals[i] = g;
    }
}

bool cg_build_module(LlvmCg *cg) {
    if (!cg->m->expanded) die("the LLVM backend was given IR that ir_expand_module did not expand");
    cg->b = LLVMCreateBuilderInContext(cg->ctx);
    cg_debug_begin(cg);
    if (cg->tgt->module_begin) cg->tgt->module_begin(cg);
    build_fields(cg);
    for (int k = 0; k < cg->m->nkernels; k++)
        for (int t = 0; t < cg->m->kernels[k].ntasks; t++) cg->tgt->emit_task(cg, &cg->m->kernels[k], t);
    if (cg->tgt->module_end) cg->tgt->module_end(cg);
    cg_debug_end(cg);
    return !cg->failed;
}
