/* MSL via SPIRV-Cross: the SPIR-V is shaped for what SPIRV-Cross 2021 translates correctly. */
#include "harness.h"
#include "test_spirv_kit.h"
#include <criterion/criterion.h>
#include <criterion/redirect.h>

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

Test(msl, int64_atomics_are_rejected_with_spirv_cross_reason, .init = cr_redirect_stderr) {
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

/* ---- the completion step (targets/spirv/mslfix.c) on SPIRV-Cross-shaped text ---- */
static const MslFacts facts32 = {"atomic_thread_fence", "memory_order_seq_cst", "mem_flags::mem_device",
                                 "thread_scope_threadgroup", "thread_scope_device", "coherent(device)"};

Test(msl, completion_fills_the_fence_markers_with_the_database_spelling) {
    const char *in = "static inline __attribute__((always_inline))\nvoid qdc_fence_device()\n{\n}\n\n"
                     "static inline __attribute__((always_inline))\nvoid qdc_fence_threadgroup()\n{\n}\n\n"
                     "kernel void k_t0(device B& a [[buffer(0)]])\n{\n    a.data[0] = 1;\n    qdc_fence_device();\n"
                     "    qdc_fence_threadgroup();\n}\n";
    bool coh[1] = {false};
    char *s = msl_complete(in, &facts32, coh, 1);
    cr_expect(strstr(s, "void qdc_fence_device()\n{\n    atomic_thread_fence(mem_flags::mem_device, memory_order_seq_cst, "
                        "thread_scope_device);\n}\n"), "%s", s);
    cr_expect(strstr(s, "void qdc_fence_threadgroup()\n{\n    atomic_thread_fence(mem_flags::mem_device, "
                        "memory_order_seq_cst, thread_scope_threadgroup);\n}\n"), "%s", s);
    cr_expect(strstr(s, "kernel void k_t0(device B& a [[buffer(0)]])"), "%s", s);
    free(s);
}

Test(msl, completion_marks_exactly_the_coherent_buffers) {
    const char *in = "kernel void k_t0(device B& x [[buffer(0)]], volatile device B& flags [[buffer(1)]], "
                     "device B& devicey [[buffer(2)]], constant A& args [[buffer(3)]], uint3 gid [[thread_position_in_grid]])\n{\n}\n";
    bool coh[4] = {false, true, true, true};
    char *s = msl_complete(in, &facts32, coh, 4);
    cr_expect_str_eq(s, "kernel void k_t0(device B& x [[buffer(0)]], volatile coherent(device) device B& flags [[buffer(1)]], "
                        "coherent(device) device B& devicey [[buffer(2)]], constant A& args [[buffer(3)]], "
                        "uint3 gid [[thread_position_in_grid]])\n{\n}\n");
    free(s);
}

Test(msl, merge_keeps_one_copy_of_shared_helpers_and_the_preamble) {
    const char *a = "#include <metal_stdlib>\n\nusing namespace metal;\n\n// helper\ntemplate<typename T>\ninline T spvH(T x)\n{\n"
                    "    return x;\n}\n\nstruct k_t0_buf\n{\n    int data[1];\n};\n\nkernel void k_t0()\n{\n\n    int a = 0;\n}\n";
    const char *b = "#pragma clang diagnostic ignored \"-Wunused-variable\"\n\n#include <metal_stdlib>\n#include <metal_atomic>\n\n"
                    "using namespace metal;\n\n// helper\ntemplate<typename T>\ninline T spvH(T x)\n{\n    return x;\n}\n\nkernel void k_t1()\n{\n}\n";
    MslItems items = {0};
    msl_merge(&items, a);
    msl_merge(&items, b);
    StrBuf out;
    sb_init(&out);
    msl_items_write(&items, &out);
    cr_expect_str_eq(out.data, "#pragma clang diagnostic ignored \"-Wunused-variable\"\n\n#include <metal_stdlib>\n"
                               "#include <metal_atomic>\n\nusing namespace metal;\n\n// helper\ntemplate<typename T>\n"
                               "inline T spvH(T x)\n{\n    return x;\n}\n\nstruct k_t0_buf\n{\n    int data[1];\n};\n\n"
                               "kernel void k_t0()\n{\n    int a = 0;\n}\n\nkernel void k_t1()\n{\n}\n");
    sb_free(&out);
}

/* ---- the CLI: spin-wait, last-block and ordered atomics on apple7-9 ---- */
static char *msl_of(const char *example, const char *target, const char *cap, RunResult *r) {
    char *in = root_path(example), *tgt = xasprintf("--target=%s", target);
    *r = cap ? run_qdc(in, tgt, cap, "-o", "-", NULL) : run_qdc(in, tgt, "-o", "-", NULL);
    free(in), free(tgt);
    return r->out;
}

/* Each needle must occur after the previous one. */
static void expect_in_order(const char *s, const char *const *needles, int n) {
    const char *p = s;
    for (int i = 0; i < n; i++) {
        const char *q = strstr(p, needles[i]);
        cr_expect(q, "'%s' missing after position %ld in:\n%s", needles[i], (long)(p - s), s);
        if (!q) return;
        p = q + strlen(needles[i]);
    }
}

Test(msl, spin_chain_fences_sit_between_flag_and_data_on_every_apple_family) {
    const char *const fams[] = {"apple7", "apple8", "apple9"};
    for (int f = 0; f < 3; f++) {
        RunResult r;
        char *s = msl_of("examples/spin_chain.qd", fams[f], "--cap=+msl3.2", &r);
        cr_assert_eq(r.status, 0, "%s: %s", fams[f], r.err);
        const char *const order[] = {
            "void qdc_fence_device()\n{\n    atomic_thread_fence(mem_flags::mem_device | mem_flags::mem_threadgroup, "
            "memory_order_seq_cst, thread_scope_device);\n}",
            "kernel void spin_chain_t1(coherent(device) device spin_chain_t1_buf_i32& x [[buffer(0)]], "
            "volatile coherent(device) device spin_chain_t1_buf_i32& _out [[buffer(1)]], "
            "volatile coherent(device) device spin_chain_t1_buf_i32& flags [[buffer(2)]], device spin_chain_t1_buf_i32& ticket",
            "atomic_fetch_add_explicit((device atomic_int*)&ticket.data[0], 1, memory_order_relaxed);",
            "while (flags.data[", "qdc_fence_device();\n", "+= _out.data[",   /* consumer: flag, fence, data */
            "_out.data[", "qdc_fence_device();\n", "atomic_exchange_explicit((volatile device atomic_int*)&flags.data[",
        };
        expect_in_order(s, order, (int)ARRAY_LEN(order));
        cr_expect_eq(count_of(s, "qdc_fence_device();"), 2);
        cr_expect(!strstr(s, "threadgroup_barrier"), "a fence must never become an execution barrier:\n%s", s);
        run_free(&r);
    }
}

Test(msl, last_block_fences_bracket_the_ticket) {
    RunResult r;
    char *s = msl_of("examples/last_block.qd", "apple8", "--cap=+msl3.2", &r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *const order[] = {"= 1;\n", "qdc_fence_device();\n", "atomic_fetch_add_explicit((device atomic_int*)&tickets.data[0], 1",
                                 "qdc_fence_device();\n", "for ("};
    expect_in_order(s, order, (int)ARRAY_LEN(order));
    cr_expect(strstr(s, "kernel void last_block_t1(coherent(device) device last_block_t1_buf_i32& a [[buffer(0)]], "
                        "device last_block_t1_buf_i32& tickets"), "%s", s);
    run_free(&r);
}

Test(msl, ordered_atomics_are_relaxed_operations_between_fences) {
    RunResult r;
    char *s = msl_of("testdata/lowering/fence_orders.qd", "apple9", "--cap=+msl3.2", &r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *const order[] = {
        "atomic_load_explicit((volatile device atomic_int*)&flag.data[_8], memory_order_relaxed);\n            qdc_fence_device();",
        "qdc_fence_device();\n            int _58 = atomic_load_explicit(", "memory_order_relaxed);\n            qdc_fence_device();",
        "qdc_fence_device();\n            atomic_store_explicit(", "qdc_fence_device();\n            atomic_store_explicit(",
        "atomic_fetch_add_explicit(", "memory_order_relaxed);\n            qdc_fence_device();",
        "qdc_fence_device();\n            int _81 = atomic_fetch_or_explicit(",
        "qdc_fence_device();\n            int _87 = atomic_exchange_explicit(", "memory_order_relaxed);\n            qdc_fence_device();",
        "qdc_fence_threadgroup();\n            int _96 = atomic_fetch_max_explicit(", "memory_order_relaxed);\n            qdc_fence_threadgroup();",
        "atomic_compare_exchange_weak_explicit(", "qdc_fence_device();",
    };
    expect_in_order(s, order, (int)ARRAY_LEN(order));
    cr_expect(!strstr(s, "memory_order_acquire") && !strstr(s, "memory_order_release"), "%s", s);
    run_free(&r);
}

Test(msl, without_msl_3_2_a_fence_is_refused_naming_the_database_line_and_the_version) {
    char *dir = make_temp_dir(), *out = xasprintf("%s/o.metal", dir), *in = root_path("examples/spin_chain.qd");
    RunResult r = run_qdc(in, "--target=apple9", "--color=never", "-o", out, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "spin_chain.qd:27:13: error[QD4005]: memory fence is not supported on target 'apple9' "
                            "(capability-db/apple7.yaml:"), "%s", r.err);
    cr_expect(strstr(r.err, "atomic_thread_fence needs MSL 3.2"), "%s", r.err);
    cr_expect(strstr(r.err, "note: pass --cap=+msl3.2 if the device has it: the kernel is compiled as MSL 3.2"), "%s", r.err);
    cr_expect(!file_exists(out));
    run_free(&r);
    char *ord = root_path("testdata/lowering/fence_orders.qd");
    r = run_qdc(ord, "--target=apple7", "--color=never", "-o", out, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "error[QD4002]: order 'acquire' on atomic_load is not supported on target 'apple7': it needs a "
                            "relaxed operation and memory fences, and the target has no fence (capability-db/apple7.yaml:"), "%s", r.err);
    cr_expect(!file_exists(out));
    run_free(&r);
    free(ord), free(in), free(out);
    remove_tree(dir), free(dir);
}

Test(msl, msl_3_2_is_chosen_by_the_cap_and_recorded) {
    RunResult r;
    char *s = msl_of("examples/histogram.qd", "apple9", "--cap=+msl3.2", &r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(!strstr(s, "coherent(device)"), "no ordering in histogram: no coherent buffers\n%s", s);
    run_free(&r);
    char *in = root_path("examples/spin_chain.qd");
    r = run_qdc(in, "--target=apple9", "--cap=+msl3.2", "--report-lowering", "--check", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "fence          -     -       seq_cst  device   native       atomic_thread_fence  (capability-db/apple7.yaml:"), "%s", r.out);
    cr_expect(strstr(r.out, "# capabilities relied on: +msl3.2"), "%s", r.out);
    run_free(&r), free(in);
}

Test(msl, f64_is_refused_for_metal) {
    char *dir = make_temp_dir(), *out = xasprintf("%s/o.metal", dir), *in = root_path("tests/kernels/semantics.qd");
    RunResult r = run_qdc(in, "--target=apple8", "--color=never", "-o", out, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "semantics.qd:59:28: error[QD5104]: this expression has type f64, which Metal has no type for "
                            "(MSL has no double)"), "%s", r.err);
    cr_expect(!file_exists(out));
    run_free(&r), free(in), free(out);
    /* an f64 computed only to index a store or a load is a double in MSL too */
    static const struct { const char *body, *at; } cases[] = {
        {"        a[qd.i32(qd.cast(i, qd.f64) * 0.5)] = 1.0\n", "ix.qd:6:18: "},
        {"        a[i] = a[qd.i32(qd.cast(i, qd.f64) * 0.5)]\n", "ix.qd:6:25: "},
    };
    char *src = xasprintf("%s/ix.qd", dir);
    for (size_t k = 0; k < ARRAY_LEN(cases); k++) {
        char *text = xasprintf("import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
                               "    for i in range(a.shape[0]):\n%s", cases[k].body);
        cr_assert(write_text(src, text));
        char *metal = xasprintf("%s/ix.metal", dir);
        r = run_qdc(src, "--target=apple8", "--color=never", "-o", metal, NULL);
        cr_expect_eq(r.status, 1, "%s", r.err);
        char *want = xasprintf("%serror[QD5104]: this expression has type f64, which Metal has no type for (MSL has no double)",
                               cases[k].at);
        cr_expect(strstr(r.err, want), "%s: %s", cases[k].body, r.err);
        free(want);
        cr_expect(!file_exists(metal));
        run_free(&r), free(text), free(metal);
    }
    free(src);
    remove_tree(dir), free(dir);
}

/* ---- 64-bit on Apple ---- */
Test(msl, apple9_u64_min_max_are_atomic_ulong_helpers_and_need_an_unused_result) {
    RunResult r;
    char *s = msl_of("testdata/msl/u64_minmax.qd", "apple9", NULL, &r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(s, "void qdc_u64_min_0_u64_minmax_t0(int idx, ulong v, device u64_minmax_t0_buf_u64& lo)\n{\n"
                        "    atomic_min_explicit((volatile device atomic_ulong*)&lo.data[idx], v, memory_order_relaxed);\n}\n"), "%s", s);
    cr_expect(strstr(s, "    atomic_max_explicit((volatile device atomic_ulong*)&hi.data[idx], v, memory_order_relaxed);\n}\n"), "%s", s);
    cr_expect(strstr(s, "qdc_u64_min_0_u64_minmax_t0(0, _"), "%s", s);
    run_free(&r);
    s = msl_of("testdata/msl/u64_minmax.qd", "apple8", NULL, &r);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "error[QD4001]: atomic min on u64 in global memory is not supported on target 'apple8'"), "%s", r.err);
    run_free(&r);
    char *in = root_path("testdata/lowering/int_atomics.qd");
    r = run_qdc(in, "--target=apple9", "--check", "--report-lowering", "--color=never", NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(!strstr(r.err, "atomic max on u64"), "a u64 max as a statement is native on apple9:\n%s", r.err);
    run_free(&r), free(in);
}

Test(msl, int64_emulation_is_opt_in_and_marked_in_the_report) {
    char *in = root_path("testdata/msl/split64.qd");
    RunResult r = run_qdc(in, "--target=apple8", "--check", "--report-lowering", "--color=never", NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "error[QD4001]: atomic add on i64 in global memory is not supported on target 'apple8' "
                            "(capability-db/apple7.yaml:"), "%s", r.err);
    cr_expect(strstr(r.err, "note: pass --cap=+int64-emulation if the device has it"), "%s", r.err);
    run_free(&r);
    r = run_qdc(in, "--target=apple8", "--cap=+int64-emulation", "--report-lowering", "--check", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "add            i64   global  relaxed  device   native       atomic_fetch_add_explicit on the low "
                            "word, carry added to the high word (emulated); relies on +int64-emulation"), "%s", r.out);
    cr_expect(strstr(r.out, "sub as add of the negation"), "%s", r.out);
    cr_expect(strstr(r.out, "# capabilities relied on: +int64-emulation"), "%s", r.out);
    run_free(&r), free(in);
}

/* The emulated 64-bit operations give exact final values under contention: the generated
 * kernel runs on the CPU (tests/msl/metal_stub.h with QDC_METAL_RUN: relaxed __atomic
 * builtins) from 8 threads over 4000 elements whose adds carry across the word boundary. */
static const char split64_driver[] =
    "#include <pthread.h>\n#include <cstdio>\n"
    "#include \"split64.metal\"\n"
    "enum { N = 4000, T = 8 };\n"
    "static long xs[N]; static long total[1]; static ulong mask[3];\n"
    "static split64_t0_args_split64 args = {N};\n"
    "static void *worker(void *p) {\n"
    "    for (int g = (int)(long)p; g < 128; g += T)\n"
    "        split64_t0(*(split64_t0_buf_i64 *)xs, *(split64_t0_buf_i64 *)total, *(split64_t0_buf_u64 *)mask, args,\n"
    "                   uint3{(uint)g, 0, 0}, uint3{1, 1, 1});\n"
    "    return nullptr;\n"
    "}\n"
    "int main() {\n"
    "    long want = 0; ulong or0 = 0, x2 = 0x0123456789abcdefull;\n"
    "    for (int i = 0; i < N; i++) {\n"
    "        xs[i] = (long)(0xffffffffull + (ulong)i * 0x100000001ull) * (i % 3 == 0 ? -1 : 1);\n"
    "        want += xs[i] - 1; or0 |= 1ull << (i % 64); x2 ^= (ulong)i * 0x100000001ull;\n"
    "    }\n"
    "    mask[1] = ~0ull; mask[2] = 0x0123456789abcdefull;\n"
    "    pthread_t th[T];\n"
    "    for (long t = 0; t < T; t++) pthread_create(&th[t], nullptr, worker, (void *)t);\n"
    "    for (int t = 0; t < T; t++) pthread_join(th[t], nullptr);\n"
    "    int ok = total[0] == want && mask[0] == or0 && mask[1] == ~or0 && mask[2] == x2;\n"
    "    std::printf(\"%s total %ld want %ld mask %lx %lx %lx\\n\", ok ? \"ok\" : \"WRONG\", total[0], want, mask[0], mask[1], mask[2]);\n"
    "    return !ok;\n"
    "}\n";

Test(msl, int64_emulation_gives_exact_results_under_contention, .timeout = 120) {
    if (!tool_available("clang-19")) cr_skip_test("clang-19 not installed");
    char *dir = make_temp_dir(), *metal = xasprintf("%s/split64.metal", dir), *drv = xasprintf("%s/drv.cpp", dir);
    char *exe = xasprintf("%s/drv", dir), *in = root_path("testdata/msl/split64.qd"), *inc = root_path("tests/msl/include");
    char *incflag = xasprintf("-I%s", inc);
    RunResult r = run_qdc(in, "--target=apple8", "--cap=+int64-emulation", "-o", metal, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    cr_assert(write_text(drv, split64_driver));
    const char *cc[] = {"clang-19", "-x", "c++", "-std=c++17", "-O1", "-pthread", "-w", "-DQDC_METAL_RUN",
                        "-D__METAL_VERSION__=240", "-DQDC_APPLE_FAMILY=8", "-Xclang", "-cl-single-precision-constant",
                        incflag, drv, "-o", exe, NULL};
    r = run_argv(cc, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    const char *run[] = {exe, NULL};
    r = run_argv(run, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(!strncmp(r.out, "ok total ", 9), "%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(metal), free(drv), free(exe), free(in), free(inc), free(incflag);
}

/* The completion step's walk (the one IR walker) sees every operand: b is read only as the
 * second operand of atan2, after a device fence, so it is coherent(device) too (the hand-written
 * walk looked at a math function's first operand only). */
Test(msl, a_load_in_any_operand_makes_its_buffer_coherent) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/m.qd", dir);
    cr_assert(write_text(src, "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.f32, ndim=1), "
                              "b: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n    for i in range(a.shape[0]):\n"
                              "        qd.simt.grid.mem_fence()\n        a[i] = qd.atan2(1.0, b[i])\n"));
    RunResult r = run_qdc(src, "--target=apple8", "--cap=+msl3.2", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "kernel void k_t0(coherent(device) device k_t0_buf_f32& a [[buffer(0)]], "
                            "coherent(device) device k_t0_buf_f32& b [[buffer(1)]], "), "%s", r.out);
    run_free(&r), free(src);
    remove_tree(dir), free(dir);
}

/* print and assert are compiled out on Metal (QD5180, QD5181): an f64 they are given is no
 * double in the MSL, so it is no QD5104. */
Test(msl, f64_in_a_compiled_out_print_or_assert_is_no_error, .init = cr_redirect_stderr) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/p.qd", dir), *out = xasprintf("%s/p.metal", dir);
    cr_assert(write_text(src, "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
                              "    for i in range(a.shape[0]):\n        print(qd.cast(i, qd.f64) * 0.5)\n"
                              "        assert qd.cast(i, qd.f64) < 1e300\n        a[i] = 1.0\n"));
    RunResult r = run_qdc(src, "--target=apple8", "--color=never", "-o", out, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(!strstr(r.err, "QD5104"), "%s", r.err);
    cr_expect(file_exists(out));
    run_free(&r), free(src), free(out);
    remove_tree(dir), free(dir);
}

/* Issue 34 item 4: qd.volatile_load of a SharedArray element. SPIRV-Cross 2021 drops SPIR-V's
 * Volatile on a threadgroup load, so the array itself is declared volatile threadgroup (every
 * access re-reads threadgroup memory: the spin cannot be hoisted), and --report-lowering says
 * so; an array SPIRV-Cross renamed (a Metal keyword) is refused at the load, with no output. */
static const char shared_spin_fmt[] =
    "import quadrants as qd\n\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
    "    qd.loop_config(block_dim=64)\n    for i in range(64):\n        %s = qd.simt.block.SharedArray((2,), qd.i32)\n"
    "        if i == 0:\n            %s[0] = 0\n        qd.simt.block.sync()\n        qd.atomic_add(%s[1], 1)\n"
    "        if i == 1:\n            %s[0] = 1\n        if i == 0:\n            while qd.volatile_load(%s[0]) == 0:\n"
    "                pass\n        a[i] = %s[1]\n";

Test(msl, volatile_load_of_a_shared_array_is_a_volatile_threadgroup_access) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/sv.qd", dir), *out = xasprintf("%s/sv.metal", dir);
    char *text = xasprintf(shared_spin_fmt, "flag", "flag", "flag", "flag", "flag", "flag");
    cr_assert(write_text(src, text));
    static const char *const fam[] = {"--target=apple7", "--target=apple8", "--target=apple9"};
    for (int f = 0; f < 3; f++) {
        RunResult r = run_qdc(src, fam[f], "-o", "-", NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        cr_expect(strstr(r.out, "\n    volatile threadgroup int flag[2];\n"), "%s: %s", fam[f], r.out);
        cr_expect_eq(count_of(r.out, "threadgroup int flag["), 1, "%s", r.out);
        /* the atomic still casts the element to an atomic_int, and the spin reads the volatile array */
        cr_expect(strstr(r.out, "atomic_fetch_add_explicit((threadgroup atomic_int*)&flag[1], 1, memory_order_relaxed)"), "%s", r.out);
        cr_expect(strstr(r.out, "while (flag[0] == 0)"), "%s", r.out);
        run_free(&r);
    }
    RunResult r = run_qdc(src, "--target=apple8", "--report-lowering", "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "volatile_load  i32   shared  relaxed  device   native       volatile threadgroup (the SharedArray "
                            "is declared volatile); volatile load: every access reaches memory, never an atomic  "
                            "(capability-db/apple7.yaml:volatile)\n"), "%s", r.out);
    cr_expect(!strstr(r.out, "volatile device"), "%s", r.out);
    run_free(&r);
    /* the JSON report names the same form */
    r = run_qdc(src, "--target=apple8", "--report-lowering=json", "-o", out, NULL);
    cr_expect(strstr(r.out, "\"spelling\":\"volatile threadgroup (the SharedArray is declared volatile)\""), "%s", r.out);
    run_free(&r);
    free(text);
    text = xasprintf(shared_spin_fmt, "device", "device", "device", "device", "device", "device");
    cr_assert(write_text(src, text));
    remove(out);
    r = run_qdc(src, "--target=apple8", "--color=never", "-o", out, NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "sv.qd:16:19: error[QD4004]: volatile_load of SharedArray 'device' has no MSL form: SPIRV-Cross "
                            "renamed the array, so its threadgroup declaration cannot be made volatile (rename the array)\n"),
              "%s", r.err);
    cr_expect(!file_exists(out));
    run_free(&r), free(text), free(src), free(out), remove_tree(dir), free(dir);
}

/* Many tasks' outputs (the merge's hash indexes grow from 64 slots to 1,024 on the way): the
 * shared helper and preamble once, every kernel once and in order, a repeated item dropped. */
Test(msl, merge_of_many_tasks_keeps_each_item_once_and_in_order) {
    MslItems items = {0};
    StrBuf want;
    sb_init(&want);
    sb_puts(&want, "#include <metal_stdlib>\n\nusing namespace metal;\n\ninline int spvH(int x)\n{\n    return x;\n}\n");
    for (int i = 0; i < 300; i++) {
        char *msl = xasprintf("#include <metal_stdlib>\n\nusing namespace metal;\n\ninline int spvH(int x)\n{\n    return x;\n}\n\n"
                              "kernel void k%d_t0()\n{\n    int a = %d;\n}\n", i, i);
        msl_merge(&items, msl);
        if (i == 7) msl_merge(&items, msl); /* the same task twice: nothing new */
        free(msl);
        sb_printf(&want, "\nkernel void k%d_t0()\n{\n    int a = %d;\n}\n", i, i);
    }
    cr_expect_eq(items.len, 303); /* two preamble lines, the helper, 300 kernels */
    StrBuf out;
    sb_init(&out);
    msl_items_write(&items, &out);
    cr_expect_str_eq(out.data, want.data);
    cr_expect_eq(items.len, 0);
    sb_free(&out), sb_free(&want);
}

/* Two different bodies for one declaration are an internal error, found through the name index. */
Test(msl, merge_refuses_two_definitions_of_one_helper_among_many, .exit_code = 3, .init = cr_redirect_stderr) {
    MslItems items = {0};
    for (int i = 0; i < 100; i++) {
        char *msl = xasprintf("kernel void k%d_t0()\n{\n}\n", i);
        msl_merge(&items, msl);
        free(msl);
    }
    msl_merge(&items, "inline int spvH(int x)\n{\n    return x;\n}\n");
    msl_merge(&items, "inline int spvH(int x)\n{\n    return x + 1;\n}\n");
}

/* The MSL backend hands the IR back (TargetOptions.ir_done) once, when the last task's SPIR-V
 * is built, and reads none of it afterwards: the callback scribbles over the module (a later
 * read of the task list, a name or a body would run off it or crash), and the output is the
 * one of a run that keeps the IR. */
typedef struct {
    Kit *t;
    int calls;
} ScribbleIr;

static void scribble_ir(void *ctx) {
    ScribbleIr *s = ctx;
    s->calls++;
    s->t->m.nkernels = 1000, s->t->k.ntasks = 1000, s->t->k.nparams = 1000;
    for (int i = 0; i < 2; i++) s->t->k.tasks[i].name = NULL, s->t->k.tasks[i].body.n = 1000;
}

Test(msl, the_ir_is_released_once_after_the_last_tasks_spirv) {
    Kit t;
    kit_init(&t, QT_I32);
    IrRef *r = kref(IR_REF_NDARRAY, 0, QT_I32, kit_i());
    kit_add(&t, keval(kmem(QOP_ADD, r, kparam(1, QT_I32), NULL, klow(LOW_NATIVE, QOP_ADD, false))));
    IrTask tasks[2] = {t.task, t.task};
    tasks[1].name = "k_t1";
    t.k.tasks = tasks, t.k.ntasks = 2;
    char *kept = kit_msl(&t, "2.3.0");
    cr_assert(kept);
    cr_assert(strstr(kept, "kernel void k_t1("), "%s", kept);
    MslTarget mt = {"2.3.0", {0}};
    ScribbleIr s = {&t, 0};
    StrBuf out;
    sb_init(&out);
    cr_assert(spirv_msl(&t.m, hand_lowered(), &kit_msl_target, &mt, scribble_ir, &s, &out));
    cr_expect_eq(s.calls, 1);
    cr_expect_eq(t.k.ntasks, 1000, "the callback ran");
    cr_expect_str_eq(out.data, kept);
    sb_free(&out), free(kept);
}
