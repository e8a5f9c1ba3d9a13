/* SPIR-V backend: builder invariants and emission of hand-built, hand-decided IR. Every module
 * built here passed spvValidate for its environment (spirv_build dies otherwise). */
#include "harness.h"
#include "test_spirv_kit.h"
#include <criterion/criterion.h>
#include <criterion/redirect.h>

Test(spirv_build, types_and_constants_are_hash_consed) {
    SpvBuilder b;
    spv_init(&b);
    uint32_t a = SPV_TYPE(&b, SpvOpTypeInt, 32, 1), c = SPV_TYPE(&b, SpvOpTypeInt, 32, 1);
    uint32_t u = SPV_TYPE(&b, SpvOpTypeInt, 32, 0);
    cr_expect_eq(a, c);
    cr_expect_neq(a, u);
    uint32_t k1 = SPV_TYPE(&b, SpvOpConstant, a, 7), k2 = SPV_TYPE(&b, SpvOpConstant, a, 7);
    uint32_t k3 = SPV_TYPE(&b, SpvOpConstant, u, 7);
    cr_expect_eq(k1, k2);
    cr_expect_neq(k1, k3);
    /* two OpTypeInt, two OpConstant (4 words each); OpConstant: type, id, value */
    SpvWords *g = &b.sec[SPV_SEC_GLOBAL];
    cr_expect_eq(g->len, 4 * 4);
    cr_expect_eq(g->items[8], (4u << 16) | SpvOpConstant);
    cr_expect_eq(g->items[9], a);
    cr_expect_eq(g->items[10], k1);
    cr_expect_eq(g->items[11], 7u);
    spv_free(&b);
}

Test(spirv_build, capabilities_and_extensions_are_sorted) {
    SpvBuilder b;
    spv_init(&b);
    spv_cap(&b, SpvCapabilityInt64), spv_cap(&b, SpvCapabilityShader), spv_cap(&b, SpvCapabilityInt64);
    spv_ext(&b, "SPV_Z"), spv_ext(&b, "SPV_A");
    StrBuf out;
    sb_init(&out);
    spv_finish(&b, 5, &out);
    const uint32_t *w = (const uint32_t *)out.data;
    cr_expect_eq(w[0], SpvMagicNumber);
    cr_expect_eq(w[1], 0x00010500u);
    cr_expect_eq(w[5], (2u << 16) | SpvOpCapability);
    cr_expect_eq(w[6], (uint32_t)SpvCapabilityShader);
    cr_expect_eq(w[8], (uint32_t)SpvCapabilityInt64);
    cr_expect_eq(out.len / 4, 5 + 4 + 3 + 3); /* header, 2 caps, 2 extensions of 3 words */
    cr_expect_eq(memcmp(&w[10], "SPV_A", 5), 0);
    sb_free(&out);
    spv_free(&b);
}

/* a[i] += v with a native float add (the family enables float-atomic-add). */
static void float_add_kit(Kit *t, IrLowKind kind, bool via_int) {
    kit_init(t, QT_F32);
    IrRef *r = kref(IR_REF_NDARRAY, 0, QT_F32, kit_i());
    kit_add(t, keval(kmem(QOP_ADD, r, kparam(1, QT_F32), NULL, klow(kind, QOP_ADD, via_int))));
}

Test(spirv_emit, native_float_add_uses_the_ext_instruction) {
    Kit t;
    float_add_kit(&t, LOW_NATIVE, false);
    const SpvTarget *envs[] = {&kit_vk11, &kit_vk12, &kit_vk13};
    for (int i = 0; i < 3; i++) {
        char *s = kit_asm(&t, envs[i]);
        cr_assert(s);
        cr_expect(strstr(s, "OpCapability AtomicFloat32AddEXT"), "%s", s);
        cr_expect(strstr(s, "OpExtension \"SPV_EXT_shader_atomic_float_add\""));
        cr_expect(strstr(s, "OpAtomicFAddEXT %float"), "%s", s);
        cr_expect(!strstr(s, "OpAtomicCompareExchange"));
        cr_expect(strstr(s, "OpExecutionMode %1 LocalSize 64 1 1") || strstr(s, "LocalSize 64 1 1"));
        free(s);
    }
}

Test(spirv_emit, storage_buffers_are_in_the_interface_from_spirv_1_4) {
    Kit t;
    float_add_kit(&t, LOW_NATIVE, false);
    char *s11 = kit_asm(&t, &kit_vk11), *s12 = kit_asm(&t, &kit_vk12);
    cr_assert(s11 && s12);
    cr_expect(strstr(s11, "OpEntryPoint GLCompute %1 \"k_t0\" %gid %num_groups\n") ||
              strstr(s11, "\"k_t0\" %gid %num_groups\n"), "%s", s11);
    cr_expect(strstr(s12, "\"k_t0\" %args %gid %num_groups %a\n") || strstr(s12, "%a"), "%s", s12);
    cr_expect(count_of(strstr(s12, "OpEntryPoint"), "%a") >= 2);
    free(s11), free(s12);
}

Test(spirv_emit, float_cas_loop_goes_through_integer_storage) {
    Kit t;
    float_add_kit(&t, LOW_CAS_LOOP, true);
    char *s = kit_asm(&t, &kit_vk12);
    cr_assert(s);
    cr_expect(!strstr(s, "OpAtomicFAddEXT"));
    cr_expect(!strstr(s, "AtomicFloat32AddEXT"));
    cr_expect(strstr(s, "OpAtomicCompareExchange %uint"), "%s", s);
    cr_expect(strstr(s, "OpAtomicLoad %uint"));
    cr_expect(strstr(s, "OpLoopMerge"));
    cr_expect(strstr(s, "OpPhi %uint"));
    cr_expect(strstr(s, "%buf_u32 = OpTypeStruct %_runtimearr_uint"), "%s", s);
    free(s);
}

Test(spirv_emit, output_is_byte_stable) {
    Kit t;
    float_add_kit(&t, LOW_CAS_LOOP, true);
    StrBuf a, b;
    sb_init(&a), sb_init(&b);
    ir_expand_module(&t.m, &kit_arena);
    cr_assert(spirv_build(&t.m, hand_lowered(), &kit_vk12, NULL, NULL, &a));
    cr_assert(spirv_build(&t.m, hand_lowered(), &kit_vk12, NULL, NULL, &b));
    cr_expect_eq(a.len, b.len);
    cr_expect_eq(memcmp(a.data, b.data, a.len), 0);
    sb_free(&a), sb_free(&b);
}

Test(spirv_emit, int64_atomics_declare_the_capability) {
    Kit t;
    kit_init(&t, QT_I64);
    IrRef *r = kref(IR_REF_NDARRAY, 0, QT_I64, kit_i());
    kit_add(&t, keval(kmem(QOP_MAX, r, kparam(1, QT_I64), NULL, klow(LOW_NATIVE, QOP_MAX, false))));
    char *s = kit_asm(&t, &kit_vk13);
    cr_assert(s);
    cr_expect(strstr(s, "OpCapability Int64Atomics"));
    cr_expect(strstr(s, "OpAtomicSMax %long"), "%s", s);
    free(s);
}

Test(spirv_emit, sub_is_negated_add_when_the_decision_says_so) {
    Kit t;
    kit_init(&t, QT_I32);
    IrRef *r = kref(IR_REF_NDARRAY, 0, QT_I32, kit_i());
    IrLowering l = klow(LOW_NATIVE, QOP_ADD, false);
    l.negate = true;
    kit_add(&t, keval(kmem(QOP_SUB, r, kparam(1, QT_I32), NULL, l)));
    char *s = kit_asm(&t, &kit_vk12);
    cr_assert(s);
    cr_expect(strstr(s, "OpSNegate %int"));
    cr_expect(strstr(s, "OpAtomicIAdd %int"));
    cr_expect(!strstr(s, "OpAtomicISub"));
    free(s);
}

/* Orders become semantics (Acquire 0x2 | UniformMemory 0x40 | WorkgroupMemory 0x100 = 322), fences
 * OpMemoryBarrier. */
Test(spirv_emit, orders_scopes_and_fences) {
    Kit t;
    kit_init(&t, QT_U32);
    IrRef *r = kref(IR_REF_NDARRAY, 0, QT_U32, kit_i());
    IrLowering ld = klow(LOW_NATIVE, QOP_LOAD, false);
    ld.order = QORD_ACQUIRE;
    IrLowering st = klow(LOW_NATIVE, QOP_STORE, false);
    st.order = QORD_RELEASE, st.scope = QSCOPE_BLOCK, st.fence_before = true, st.fence_scope = QSCOPE_DEVICE,
        st.fence_order = QORD_SEQ_CST; /* the decision names the fence order */
    kit_add(&t, keval(kmem(QOP_LOAD, r, NULL, NULL, ld)));
    kit_add(&t, keval(kmem(QOP_STORE, kref(IR_REF_NDARRAY, 0, QT_U32, kit_i()), kparam(1, QT_U32), NULL, st)));
    IrLowering cas = klow(LOW_NATIVE, QOP_CAS, false);
    cas.order = QORD_ACQ_REL;
    kit_add(&t, keval(kmem(QOP_CAS, kref(IR_REF_NDARRAY, 0, QT_U32, kit_i()), kparam(1, QT_U32), kparam(1, QT_U32), cas)));
    char *s = kit_asm(&t, &kit_vk12);
    cr_assert(s);
    /* every ordered atomic orders buffer and workgroup memory: |UniformMemory 0x40|WorkgroupMemory 0x100 */
    cr_expect(strstr(s, "OpAtomicLoad %uint %") && strstr(s, "%uint_1 %uint_322"), "%s", s);
    cr_expect(strstr(s, "OpAtomicStore %") && strstr(s, "%uint_2 %uint_324"), "%s", s);
    cr_expect(strstr(s, "OpMemoryBarrier %uint_1 %uint_336")); /* SeqCst|Uniform|Workgroup */
    cr_expect(strstr(s, "%uint_1 %uint_328 %uint_322"), "%s", s); /* cas: AcqRel, fail Acquire */
    cr_expect(strstr(s, "OpDecorate %a Coherent"), "%s", s); /* the kernel publishes: buffers are Coherent */
    free(s);
}

Test(spirv_emit, system_scope_is_a_diagnostic, .init = cr_redirect_stderr) {
    Kit t;
    kit_init(&t, QT_U32);
    IrLowering l = klow(LOW_NATIVE, QOP_ADD, false);
    l.scope = QSCOPE_SYSTEM;
    kit_diag();
    kit_add(&t, keval(kmem(QOP_ADD, kref(IR_REF_NDARRAY, 0, QT_U32, kit_i()), kparam(1, QT_U32), NULL, l)));
    int before = diag_error_count();
    char *s = kit_asm(&t, &kit_vk12);
    cr_expect_null(s);
    cr_expect_eq(diag_error_count(), before + 1);
}

/* inc wraps at the bound (PTX semantics): a CAS loop with UGreaterThanEqual + Select. */
Test(spirv_emit, bounded_inc_is_a_cas_loop) {
    Kit t;
    kit_init(&t, QT_U32);
    IrRef *r = kref(IR_REF_NDARRAY, 0, QT_U32, kit_i());
    kit_add(&t, keval(kmem(QOP_INC, r, kparam(1, QT_U32), NULL, klow(LOW_CAS_LOOP, QOP_INC, false))));
    char *s = kit_asm(&t, &kit_vk11);
    cr_assert(s);
    cr_expect(strstr(s, "OpUGreaterThanEqual %bool"));
    cr_expect(strstr(s, "OpAtomicCompareExchange %uint"));
    cr_expect(!strstr(s, "OpAtomicIIncrement"));
    free(s);
}

/* SharedArray, thread_idx, block sync, a serial for loop with break, plain load/store. */
Test(spirv_emit, shared_arrays_barriers_and_loops) {
    Kit t;
    kit_init(&t, QT_F32);
    t.shared[0] = (IrShared){.name = "tile", .type = QT_F32, .ndim = 1, .shape = {64}, .elems = 64};
    t.k.nshared = 1;
    t.locals[1] = (IrLocal){"j", QT_I32};
    t.k.nlocals = 2;
    t.task.block_dim = 64, t.task.uses_block = true;
    IrExpr *tid = kx(IR_THREAD_IDX, QT_I32);
    kit_add(&t, kstore(kref(IR_REF_SHARED, 0, QT_F32, tid), kload(kref(IR_REF_NDARRAY, 0, QT_F32, kit_i()))));
    kit_add(&t, ks(IR_BARRIER));
    IrStmt *f = ks(IR_FOR);
    f->for_.counter = 1, f->for_.begin = kc_i32(0), f->for_.end = kc_i32(8), f->for_.step = 1;
    IrStmt **body = ARENA_ARRAY(&kit_arena, IrStmt *, 2);
    IrStmt *brk = ks(IR_IF);
    brk->if_.cond = kbin(IR_GT, QT_U1, klocal(1, QT_I32), kc_i32(4));
    brk->if_.then.stmts = ARENA_ARRAY(&kit_arena, IrStmt *, 1);
    brk->if_.then.stmts[0] = ks(IR_BREAK), brk->if_.then.n = 1;
    body[0] = brk;
    IrLowering add = klow(LOW_CAS_LOOP, QOP_ADD, true);
    add.scope = QSCOPE_BLOCK;
    body[1] = keval(kmem(QOP_ADD, kref(IR_REF_SHARED, 0, QT_F32, kc_i32(0)), kc_f32(1.5), NULL, add));
    f->for_.body.stmts = body, f->for_.body.n = 2;
    kit_add(&t, f);
    char *s = kit_asm(&t, &kit_vk12);
    cr_assert(s);
    cr_expect(strstr(s, "OpControlBarrier %uint_2 %uint_2 %uint_328"), "%s", s);
    cr_expect(strstr(s, "%tile = OpVariable %_ptr_Workgroup__arr_uint_uint_64 Workgroup"), "%s", s);
    cr_expect(strstr(s, "BuiltIn LocalInvocationId"));
    cr_expect(strstr(s, "OpAtomicCompareExchange %uint") && strstr(s, "%uint_2 %uint_0 %uint_0"));
    cr_expect_eq(count_of(s, "OpLoopMerge"), 3);
    free(s);
}

static void expr_kit(Kit *t, IrExpr *e) {
    kit_init(t, e->type);
    kit_add(t, kstore(kref(IR_REF_NDARRAY, 0, e->type, kit_i()), e));
}

Test(spirv_emit, python_division_and_minnum) {
    Kit t;
    expr_kit(&t, kbin(IR_FLOORDIV, QT_I32, kit_i(), kparam(1, QT_I32)));
    char *s = kit_asm(&t, &kit_vk12);
    cr_assert(s);
    cr_expect(strstr(s, "OpSDiv %int") && strstr(s, "OpSRem %int") && strstr(s, "OpBitwiseXor %int"));
    free(s);
    expr_kit(&t, kbin(IR_MIN, QT_F32, kload(kref(IR_REF_NDARRAY, 0, QT_F32, kit_i())), kparam(1, QT_F32)));
    s = kit_asm(&t, &kit_vk12);
    cr_assert(s);
    cr_expect(strstr(s, "NMin"), "%s", s);
    free(s);
    expr_kit(&t, kbin(IR_MOD, QT_F32, kload(kref(IR_REF_NDARRAY, 0, QT_F32, kit_i())), kparam(1, QT_F32)));
    s = kit_asm(&t, &kit_vk12);
    /* Python's float %: fmod, then + y where the remainder's sign differs from y's (ir/expand.c) */
    cr_expect(s && strstr(s, "OpFRem %float") && strstr(s, "OpFOrdLessThan %bool") && strstr(s, "OpSelect %float"), "%s", s);
    free(s);
}

/* A decision that breaks a Vulkan rule (release on OpAtomicLoad) is caught by the in-process
 * validator: an internal error (exit 3) naming the VUID, before anything is written. */
Test(spirv_emit, validation_failure_is_an_internal_error, .exit_code = 3, .init = cr_redirect_stderr) {
    Kit t;
    kit_init(&t, QT_U32);
    IrLowering l = klow(LOW_NATIVE, QOP_LOAD, false);
    l.order = QORD_RELEASE;
    kit_add(&t, kstore(kref(IR_REF_NDARRAY, 0, QT_U32, kit_i()), kmem(QOP_LOAD, kref(IR_REF_NDARRAY, 0, QT_U32, kit_i()), NULL, NULL, l)));
    StrBuf out;
    sb_init(&out);
    ir_expand_module(&t.m, &kit_arena);
    spirv_build(&t.m, hand_lowered(), &kit_vk12, NULL, NULL, &out);
    cr_assert_fail("spirv_build accepted a module the validator rejects");
}
