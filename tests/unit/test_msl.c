/* MSL via SPIRV-Cross: the SPIR-V is shaped for what SPIRV-Cross 2021 translates correctly. */
#include "harness.h"
#include "test_spirv_kit.h"
#include <criterion/criterion.h>

Test(msl, float_add_through_an_integer_cas_loop) {
    Kit t;
    kit_init(&t, QT_F32);
    IrRef *r = kref(IR_REF_NDARRAY, 0, QT_F32, kit_i());
    kit_add(&t, keval(kmem(QOP_ADD, r, kparam(1, QT_F32), NULL, klow(LOW_CAS_LOOP, QOP_ADD, true))));
    char *s = kit_msl(&t, "2.3.0");
    cr_assert(s);
    cr_expect(strstr(s, "kernel void k_t0(device k_t0_buf_u32& a [[buffer(0)]], constant k_t0_args_k& args [[buffer(1)]]"), "%s", s);
    cr_expect(strstr(s, "atomic_compare_exchange_weak_explicit((device atomic_uint*)&a.data["), "%s", s);
    cr_expect(strstr(s, "as_type<float>"));
    cr_expect(!strstr(s, "atomicAdd"));
    free(s);
}

Test(msl, volatile_load_becomes_a_volatile_buffer) {
    Kit t;
    kit_init(&t, QT_I32);
    IrExpr *vl = kmem(QOP_LOAD, kref(IR_REF_NDARRAY, 0, QT_I32, kc_i32(0)), NULL, NULL, klow(LOW_NATIVE, QOP_LOAD, false));
    vl->mem.is_volatile = true, hand_low(vl)->flags = LOWF_VOLATILE_DECORATION;
    kit_add(&t, kstore(kref(IR_REF_NDARRAY, 0, QT_I32, kit_i()), vl));
    char *s = kit_msl(&t, "2.3.0");
    cr_assert(s);
    cr_expect(strstr(s, "volatile device k_t0_buf_i32& a [[buffer(0)]]"), "%s", s);
    free(s);
    char *a = kit_asm(&t, &kit_msl_target);
    cr_assert(a);
    cr_expect(strstr(a, "OpDecorate %a Volatile"));
    cr_expect(strstr(a, "OpLoad %int %") && strstr(a, " Volatile\n"));
    free(a);
}

Test(msl, int64_atomics_are_rejected_with_spirv_cross_reason) {
    Kit t;
    kit_init(&t, QT_I64);
    IrRef *r = kref(IR_REF_NDARRAY, 0, QT_I64, kit_i());
    kit_add(&t, keval(kmem(QOP_ADD, r, kparam(1, QT_I64), NULL, klow(LOW_NATIVE, QOP_ADD, false))));
    kit_diag();
    int before = diag_error_count();
    char *s = kit_msl(&t, "2.3.0");
    cr_expect_null(s);
    cr_expect_eq(diag_error_count(), before + 1);
}

Test(msl, two_tasks_share_one_preamble) {
    Kit t;
    kit_init(&t, QT_I32);
    IrRef *r = kref(IR_REF_NDARRAY, 0, QT_I32, kit_i());
    kit_add(&t, keval(kmem(QOP_ADD, r, kparam(1, QT_I32), NULL, klow(LOW_NATIVE, QOP_ADD, false))));
    IrTask tasks[2] = {t.task, t.task};
    tasks[1].name = "k_t1";
    t.k.tasks = tasks, t.k.ntasks = 2;
    char *s = kit_msl(&t, "2.3.0");
    cr_assert(s);
    cr_expect_eq(count_of(s, "#include <metal_stdlib>"), 1);
    cr_expect_eq(count_of(s, "kernel void k_t"), 2);
    cr_expect(strstr(s, "atomic_fetch_add_explicit((device atomic_int*)"));
    free(s);
}
