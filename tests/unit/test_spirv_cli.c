/* SPIR-V and MSL through the real pipeline: every example for every Vulkan and Apple family
 * (spirv-val accepts each module; Apple either translates or reports a located diagnostic),
 * golden spvasm/MSL for key kernels (QDC_UPDATE_GOLDEN=1 rewrites them), and the support
 * matrix: each --report-lowering=json verdict shows up as the expected instruction. */
#include "../../support/util.h"
#include "harness.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *vk_targets[] = {"vulkan1.1", "vulkan1.2", "vulkan1.3"};
static const char *apple_targets[] = {"apple7", "apple8", "apple9"};

/* The .qd files in directory `rel` whose names start with `prefix`, sorted. */
static int qd_files(const char *rel, const char *prefix, char names[][64], int max) {
    char *dir = root_path(rel);
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) && n < max;) {
        size_t len = strlen(e->d_name);
        if (len > 3 && len < 60 && !strcmp(e->d_name + len - 3, ".qd") && !strncmp(e->d_name, prefix, strlen(prefix)))
            memcpy(names[n++], e->d_name, len + 1);
    }
    if (d) closedir(d);
    free(dir);
    qsort(names, (size_t)n, 64, (int (*)(const void *, const void *))strcmp);
    return n;
}
static int examples(char names[][64], int max) { return qd_files("examples", "", names, max); }

/* qdc inp --target=env -o out must exit 0 and spirv-val --target-env env accept out. */
static void expect_valid_spirv_at(const char *inp, const char *env, const char *out) {
    char *tgt = xasprintf("--target=%s", env);
    RunResult r = run_qdc(inp, tgt, "-o", out, NULL);
    cr_expect_eq(r.status, 0, "%s %s: %s", inp, env, r.err);
    if (r.status == 0 && tool_available("spirv-val")) {
        RunResult v = run_argv((const char *[]){"spirv-val", "--target-env", env, out, NULL}, NULL, NULL);
        cr_expect_eq(v.status, 0, "spirv-val %s %s: %s", inp, env, v.err);
        run_free(&v);
    }
    run_free(&r);
    free(tgt);
}
/* The same for a file relative to the repository root. */
static void expect_valid_spirv(const char *rel, const char *env, const char *out) {
    char *inp = root_path(rel);
    expect_valid_spirv_at(inp, env, out);
    free(inp);
}

/* The pipeline (frontend, database) must work: a failure here is a failure, not a skip. */
static bool pipeline_ready(void) {
    char *ex = root_path("examples/histogram.qd");
    RunResult r = run_qdc("--check", ex, NULL);
    bool ok = r.status == 0;
    cr_expect(ok, "qdc --check %s failed: %s", ex, r.err);
    run_free(&r);
    free(ex);
    return ok;
}

Test(spirv_cli, every_example_validates_for_every_vulkan_env) {
    if (!pipeline_ready()) return;
    char names[64][64];
    int n = examples(names, 64);
    cr_assert_gt(n, 0);
    char *tmp = make_temp_dir(), *out = xasprintf("%s/m.spv", tmp);
    for (int i = 0; i < n; i++)
        for (size_t t = 0; t < 3; t++) {
            char *in = xasprintf("examples/%s", names[i]);
            expect_valid_spirv(in, vk_targets[t], out);
            free(in);
        }
    remove_tree(tmp);
    free(tmp), free(out);
}

/* Valid programs that use what the Vulkan database rejects without a --cap (system scope,
 * f64/i64 atomics): a located capability error, never an internal one. */
static const struct { const char *file, *code; } vk_rejected[] = {
    {"valid-atomic-add.qd", "QD4003"},  {"valid-atomic-and.qd", "QD4003"}, {"valid-atomic-exchange.qd", "QD4003"},
    {"valid-atomic-load-store.qd", "QD4003"}, {"valid-atomic-max.qd", "QD4001"}, {"valid-atomic-min.qd", "QD4003"},
    {"valid-atomic-mul.qd", "QD4003"},  {"valid-atomic-or.qd", "QD4003"},  {"valid-atomic-sub.qd", "QD4003"},
    {"valid-atomic-xor.qd", "QD4001"},  {"valid-fields.qd", "QD4001"},
};

static const char *vk_rejection(const char *file) {
    for (size_t i = 0; i < sizeof vk_rejected / sizeof *vk_rejected; i++)
        if (!strcmp(vk_rejected[i].file, file)) return vk_rejected[i].code;
    return NULL;
}

static void expect_capability_error(const char *rel, const char *env, const char *code) {
    char *inp = root_path(rel), *tgt = xasprintf("--target=%s", env), *want = xasprintf(": error[%s]", code);
    RunResult r = run_qdc(inp, tgt, "-o", "-", NULL);
    cr_expect_eq(r.status, 1, "%s %s: %s", rel, env, r.err);
    cr_expect(strstr(r.err, want) && !strstr(r.err, "internal error"), "%s %s: %s", rel, env, r.err);
    run_free(&r);
    free(inp), free(tgt), free(want);
}

/* The frontend corpus (structured control flow of every loop form, every int/bool cast,
 * integer **) through the SPIR-V backend, for every Vulkan environment. */
Test(spirv_cli, every_valid_frontend_file_validates_for_every_vulkan_env, .timeout = 120) {
    if (!pipeline_ready()) return;
    char names[64][64];
    int n = qd_files("testdata/frontend", "valid-", names, 64), validated = 0;
    cr_assert_gt(n, 20, "frontend corpus not found");
    char *tmp = make_temp_dir(), *out = xasprintf("%s/m.spv", tmp);
    for (int i = 0; i < n; i++)
        for (size_t t = 0; t < 3; t++) {
            char *in = xasprintf("testdata/frontend/%s", names[i]);
            const char *code = vk_rejection(names[i]);
            if (code) expect_capability_error(in, vk_targets[t], code);
            else expect_valid_spirv(in, vk_targets[t], out), validated++;
            free(in);
        }
    cr_expect_geq(validated, 3 * 10);
    remove_tree(tmp);
    free(tmp), free(out);
}

/* Every int -> int cast (widen/narrow x signed/unsigned source/destination) and bool <-> int:
 * UConvert results are unsigned (spirv-val), the destination type is reached by a bitcast. */
Test(spirv_cli, every_integer_cast_validates) {
    static const char *ts[] = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"};
    StrBuf src;
    sb_init(&src);
    sb_printf(&src, "import quadrants as qd\n@qd.kernel\ndef casts(");
    for (int s = 0; s < 8; s++) sb_printf(&src, "%s%sa: qd.types.ndarray(dtype=qd.%s, ndim=1)", s ? ", " : "", ts[s], ts[s]);
    sb_printf(&src, "):\n    for i in range(i32a.shape[0]):\n        b = i32a[i] > 0\n");
    for (int s = 0, k = 0; s < 8; s++) {
        for (int d = 0; d < 8; d++)
            if (d != s) sb_printf(&src, "        %sa[i + %d] = qd.%s(%sa[i])\n", ts[d], k++, ts[d], ts[s]);
        sb_printf(&src, "        %sa[i + %d] = qd.%s(b)\n", ts[s], k++, ts[s]);
    }
    char *dir = make_temp_dir(), *in = xasprintf("%s/casts.qd", dir), *out = xasprintf("%s/casts.spv", dir);
    cr_assert(write_text(in, src.data));
    for (size_t t = 0; t < 3; t++) expect_valid_spirv_at(in, vk_targets[t], out);
    RunResult a = run_qdc(in, "--target=vulkan1.2", "--emit=spirv-asm", "-o", "-", NULL);
    cr_expect(strstr(a.out, "OpUConvert %ushort") && !strstr(a.out, "OpUConvert %short"), "%s", a.out);
    cr_expect(strstr(a.out, "OpSConvert %ulong") && !strstr(a.out, "OpUConvert %long"), "%s", a.out);
    run_free(&a);
    sb_free(&src);
    remove_tree(dir);
    free(dir), free(in), free(out);
}

/* Apple: MSL with one kernel function per task, or a located error (exit 1), never a crash. */
Test(spirv_cli, every_example_translates_or_is_rejected_for_apple) {
    if (!pipeline_ready()) return;
    char names[64][64];
    int n = examples(names, 64);
    for (int i = 0; i < n; i++)
        for (size_t t = 0; t < 3; t++) {
            char *in = xasprintf("examples/%s", names[i]), *inp = root_path(in);
            char *tgt = xasprintf("--target=%s", apple_targets[t]);
            RunResult r = run_qdc(inp, tgt, "-o", "-", NULL);
            cr_expect(r.status == 0 || r.status == 1, "%s %s: status %d %s", names[i], apple_targets[t], r.status, r.err);
            if (r.status == 0) cr_expect(strstr(r.out, "kernel void "), "%s", names[i]);
            else cr_expect(strstr(r.err, ": error[QD4") || strstr(r.err, ": error[QD5102]"), "%s: %s", names[i], r.err);
            run_free(&r);
            free(in), free(inp), free(tgt);
        }
}

/* Compares out with testdata/<rel>; QDC_UPDATE_GOLDEN=1 writes it instead. */
static void golden(const char *rel, const char *out) {
    char *path = root_path(rel);
    if (getenv("QDC_UPDATE_GOLDEN")) {
        cr_expect(write_text(path, out), "cannot write %s", path);
    } else {
        char *want = read_text(path, NULL);
        cr_expect(want, "missing golden %s (run with QDC_UPDATE_GOLDEN=1)", rel);
        if (want) cr_expect_str_eq(out, want, "golden %s differs", rel);
        free(want);
    }
    free(path);
}

static void golden_case(const char *example, const char *target, const char *emit, const char *cap, const char *rel) {
    char *in = xasprintf("examples/%s.qd", example), *inp = root_path(in), *tgt = xasprintf("--target=%s", target);
    RunResult r = cap ? run_qdc(inp, tgt, emit, cap, "-o", "-", NULL) : run_qdc(inp, tgt, emit, "-o", "-", NULL);
    cr_expect_eq(r.status, 0, "%s %s: %s", example, target, r.err);
    if (r.status == 0) golden(rel, r.out);
    run_free(&r);
    free(in), free(inp), free(tgt);
}

Test(spirv_cli, golden_spvasm_and_msl) {
    if (!pipeline_ready()) return;
    golden_case("histogram", "vulkan1.2", "--emit=spirv-asm", NULL, "testdata/spirv/histogram.vulkan1.2.spvasm");
    golden_case("float_sum", "vulkan1.1", "--emit=spirv-asm", NULL, "testdata/spirv/float_sum.vulkan1.1.spvasm");
    golden_case("float_sum", "vulkan1.3", "--emit=spirv-asm", "--cap=+float-atomic-add",
                "testdata/spirv/float_sum.vulkan1.3.fadd.spvasm");
    golden_case("shared_histogram", "vulkan1.2", "--emit=spirv-asm", NULL, "testdata/spirv/shared_histogram.vulkan1.2.spvasm");
    golden_case("spin_chain", "vulkan1.2", "--emit=spirv-asm", NULL, "testdata/spirv/spin_chain.vulkan1.2.spvasm");
    golden_case("histogram", "apple8", "--emit=msl", NULL, "testdata/msl/histogram.apple8.metal");
    golden_case("float_sum", "apple8", "--emit=msl", NULL, "testdata/msl/float_sum.apple8.metal");
    golden_case("exchange_handoff", "apple9", "--emit=msl", NULL, "testdata/msl/exchange_handoff.apple9.metal");
    golden_case("histogram", "vulkan1.2", "--emit=metadata", NULL, "testdata/spirv/histogram.vulkan1.2.json");
    golden_case("histogram", "apple8", "--emit=metadata", NULL, "testdata/msl/histogram.apple8.json");
}

Test(spirv_cli, float_add_is_native_only_when_enabled) {
    if (!pipeline_ready()) return;
    char *inp = root_path("examples/float_sum.qd");
    RunResult a = run_qdc(inp, "--target=vulkan1.2", "--emit=spirv-asm", "-o", "-", NULL);
    RunResult b = run_qdc(inp, "--target=vulkan1.2", "--cap=+float-atomic-add", "--emit=spirv-asm", "-o", "-", NULL);
    cr_assert_eq(a.status, 0, "%s", a.err);
    cr_assert_eq(b.status, 0, "%s", b.err);
    cr_expect(!strstr(a.out, "OpAtomicFAddEXT") && strstr(a.out, "OpAtomicCompareExchange %uint"));
    cr_expect(strstr(b.out, "OpAtomicFAddEXT %float") && strstr(b.out, "OpCapability AtomicFloat32AddEXT"));
    cr_expect(!strstr(b.out, "OpAtomicCompareExchange"));
    run_free(&a), run_free(&b);
    free(inp);
}

/* Integer ** is power by squaring in a structured loop; a negative exponent gives 1. */
Test(spirv_cli, integer_power_is_a_validated_loop) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/pow.qd", dir), *out = xasprintf("%s/pow.spv", dir);
    cr_assert(write_text(src, "import quadrants as qd\n@qd.kernel\ndef p(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                              "    for i in range(a.shape[0]):\n        a[i] = a[i] ** 2\n"));
    RunResult r = run_qdc(src, "--target=vulkan1.2", "--emit=spirv-asm", "-o", "-", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "OpLoopMerge") && strstr(r.out, "OpShiftRightLogical %int") && !strstr(r.out, "Pow"), "%s", r.out);
    run_free(&r);
    for (size_t t = 0; t < 3; t++) expect_valid_spirv_at(src, vk_targets[t], out);
    remove_tree(dir);
    free(dir), free(src), free(out);
}

/* A module without kernels is a warning on the LLVM targets (an empty object is valid) but an
 * error for SPIR-V and MSL, which need an entry point: located, exit 1, no output file (it
 * used to be an internal error from the validator). */
Test(spirv_cli, module_without_kernels_is_a_located_error) {
    char *inp = root_path("testdata/bad/no-kernels.qd"), *dir = make_temp_dir(), *out = xasprintf("%s/m.out", dir);
    const char *targets[] = {"--target=vulkan1.1", "--target=vulkan1.3", "--target=apple8"};
    for (int i = 0; i < 3; i++) {
        RunResult r = run_qdc(inp, targets[i], "-o", out, NULL);
        cr_expect_eq(r.status, 1, "%s: %s", targets[i], r.err);
        cr_expect(strstr(r.err, "no-kernels.qd:1:1: error[QD5103]: the module defines no kernels, and a "), "%s", r.err);
        cr_expect(!strstr(r.err, "internal error"), "%s", r.err);
        cr_expect(!file_exists(out), "%s: output written", targets[i]);
        run_free(&r);
    }
    RunResult ok = run_qdc(inp, "--target=x86_64", "-o", out, NULL);
    cr_expect_eq(ok.status, 0, "%s", ok.err);
    run_free(&ok);
    remove_tree(dir);
    free(inp), free(dir), free(out);
}

/* Issue 13 item 9 (research atomics-groundtruth 3.1-3.3): an ordered atomic orders both storage
 * classes (Release|UniformMemory|WorkgroupMemory = 0x144, Acquire|... = 0x142) whichever memory
 * it is on, as the PTX and AMDGPU outputs do; buffers of a kernel that publishes through a fence
 * or an ordered atomic are Coherent; a kernel with relaxed atomics only keeps its buffers plain. */
static char *spvasm_of(const char *src, const char *target) {
    char *dir = make_temp_dir(), *in = xasprintf("%s/k.qd", dir), *tgt = xasprintf("--target=%s", target);
    cr_assert(write_text(in, src));
    RunResult r = run_qdc(in, tgt, "--emit=spirv-asm", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *out = xstrdup(r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(in), free(tgt);
    return out;
}

Test(spirv_cli, ordered_atomics_order_both_storage_classes) {
    const char *shared_release =
        "import quadrants as qd\n"
        "@qd.kernel\n"
        "def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1), flag: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
        "    qd.loop_config(block_dim=64)\n"
        "    for i in range(64):\n"
        "        t = qd.simt.block.thread_idx()\n"
        "        s = qd.simt.block.SharedArray((64,), qd.i32)\n"
        "        a[i] = 5\n"
        "        qd.atomic_add(s[t], 1, order=\"release\", scope=\"block\")\n"
        "        flag[i] = qd.atomic_load(flag[i ^ 1], order=\"acquire\", scope=\"block\")\n";
    char *s = spvasm_of(shared_release, "vulkan1.3");
    cr_expect(strstr(s, "OpAtomicIAdd %int %") && strstr(s, "%uint_2 %uint_324"), "shared release must be 0x144:\n%s", s);
    cr_expect(strstr(s, "OpAtomicLoad %int %") && strstr(s, "%uint_2 %uint_322"), "buffer acquire must be 0x142:\n%s", s);
    cr_expect(!strstr(s, "%uint_260") && !strstr(s, "%uint_68 ") && !strstr(s, "%uint_66\n"), "%s", s);
    cr_expect(strstr(s, "OpDecorate %a Coherent") && strstr(s, "OpDecorate %flag Coherent"), "%s", s);
    free(s);
}

Test(spirv_cli, published_buffers_are_coherent_and_relaxed_ones_are_not) {
    char *src = root_path("examples/last_block.qd");
    RunResult r = run_qdc(src, "--target=vulkan1.3", "--emit=spirv-asm", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "OpDecorate %a Coherent"), "last_block publishes a[] through grid fences:\n%s", r.out);
    run_free(&r);
    free(src);
    src = root_path("examples/histogram.qd");
    r = run_qdc(src, "--target=vulkan1.3", "--emit=spirv-asm", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(!strstr(r.out, "Coherent"), "relaxed atomics publish nothing:\n%s", r.out);
    run_free(&r);
    free(src);
}

/* qdc src --target=vulkan1.3 cap -o spv must succeed and spirv-val accept it: its disassembly. */
static char *vulkan13_asm(const char *src, const char *cap, const char *spv) {
    const char *args[] = {src, "--target=vulkan1.3", cap, "-o", spv, NULL};
    RunResult r = run_qdc_argv(args, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    const char *val[] = {"spirv-val", "--target-env", "vulkan1.3", spv, NULL};
    r = run_argv(val, NULL, NULL);
    cr_expect_eq(r.status, 0, "spirv-val: %s", r.err);
    run_free(&r);
    const char *dis[] = {"spirv-dis", spv, NULL};
    r = run_argv(dis, NULL, NULL);
    char *text = r.out;
    r.out = NULL;
    run_free(&r);
    return text;
}

/* ---- f16 atomics with VK_EXT_shader_atomic_float2 ----
 * +float16-atomic-add (add, and sub as add of the negation) and +float16-atomic-min-max, on
 * workgroup and buffer memory: the instructions, their capabilities and spirv-val. (lavapipe has
 * neither feature, so nothing runs them here.) */
Test(spirv_cli, f16_atomics_with_the_float2_caps, .timeout = 60) {
    static const char src[] = "import quadrants as qd\n\n@qd.kernel\n"
                              "def k(out: qd.types.ndarray(qd.f16, ndim=1), g: qd.types.ndarray(qd.f16, ndim=1)):\n"
                              "    qd.loop_config(block_dim=32)\n"
                              "    for i in range(64):\n"
                              "        s = qd.simt.block.SharedArray((2,), qd.f16)\n"
                              "        t = i % 32\n"
                              "        if t < 2:\n"
                              "            s[t] = qd.f16(8.0)\n"
                              "        qd.simt.block.sync()\n"
                              "        qd.atomic_add(s[0], qd.f16(0.25))\n"
                              "        qd.atomic_sub(s[1], qd.f16(0.125))\n"
                              "        qd.atomic_add(g[0], qd.f16(0.5))\n"
                              "        qd.atomic_sub(g[1], qd.f16(i))\n"
                              "        qd.simt.block.sync()\n"
                              "        if t < 2:\n"
                              "            out[(i // 32) * 2 + t] = s[t]\n";
    static const char minmax[] = "import quadrants as qd\n\n@qd.kernel\n"
                              "def m(s: qd.types.ndarray(qd.f16, ndim=1), g: qd.types.ndarray(qd.f16, ndim=1)):\n"
                              "    for i in range(64):\n"
                              "        sh = qd.simt.block.SharedArray((2,), qd.f16)\n"
                              "        qd.atomic_min(sh[0], s[i])\n"
                              "        qd.atomic_max(g[0], sh[1])\n";
    char *dir = make_temp_dir(), *qd = xasprintf("%s/h.qd", dir), *spv = xasprintf("%s/h.spv", dir);
    char *mq = xasprintf("%s/mm.qd", dir), *mspv = xasprintf("%s/mm.spv", dir);
    cr_assert(write_text(qd, src) && write_text(mq, minmax));
    const char *refused[] = {mq, "--target=vulkan1.3", "--cap=+float16-atomic-add", "-o", mspv, NULL};
    RunResult r = run_qdc_argv(refused, NULL, NULL);
    cr_expect_eq(r.status, 1, "f16 max without +float16-atomic-min-max: exit %d", r.status);
    /* the shared min is a CAS loop on a u32 word without the cap (spirv_cli/f16_shared_atomics_on_u32_words);
       the buffer's max has no such fallback */
    cr_expect(strstr(r.err, "atomic max on f16 in global memory is not supported on target 'vulkan1.3'") &&
                  !strstr(r.err, "in shared memory") &&
                  strstr(r.err, "pass --cap=+float16-atomic-min-max if the device has it"),
              "%s", r.err);
    cr_expect(!file_exists(mspv), "an output file after an error");
    run_free(&r);
    char *text = vulkan13_asm(mq, "--cap=+float16-atomic-min-max", mspv);
    cr_expect(strstr(text, "OpAtomicFMinEXT %half") && strstr(text, "OpAtomicFMaxEXT %half") &&
                  strstr(text, "OpCapability AtomicFloat16MinMaxEXT") && strstr(text, "OpExtension \"SPV_EXT_shader_atomic_float_min_max\""),
              "%s", text);
    free(text);
    text = vulkan13_asm(qd, "--cap=+float16-atomic-add", spv);
    int nadd = 0;
    for (const char *p = text; (p = strstr(p, "OpAtomicFAddEXT %half")); p++) nadd++;
    cr_expect_eq(nadd, 4, "add and sub (as add of the negation), shared and global: 4 OpAtomicFAddEXT on half, got %d:\n%s", nadd, text);
    cr_expect(strstr(text, "OpFNegate %half") && strstr(text, "OpCapability AtomicFloat16AddEXT"), "%s", text);
    free(text);
    free(qd), free(spv), free(mq), free(mspv);
    remove_tree(dir);
    free(dir);
}

/* ---- f16 atomics on a SharedArray without 16-bit atomics ----
 * The cells' shared_u32 flag (vulkan1.1.yaml, apple7.yaml): the array is a Workgroup u32[N], one
 * half per word, the five operations are 32-bit CAS loops on it, plain accesses convert through
 * f32 with Pack/UnpackHalf2x16 (no Int16), the limit and the metadata count 4 bytes an element,
 * and a buffer's f16 atomic is still refused. (exec_vulkan/f16_shared_atomics runs it.) */
static const char f16_shared_src[] = "import quadrants as qd\n\n@qd.kernel\n"
                                     "def k(out: qd.types.ndarray(qd.f32, ndim=1)):\n"
                                     "    qd.loop_config(block_dim=32)\n"
                                     "    for i in range(64):\n"
                                     "        s = qd.simt.block.SharedArray((5,), qd.f16)\n"
                                     "        t = i % 32\n"
                                     "        if t < 5:\n"
                                     "            s[t] = qd.f16(t)\n"
                                     "        qd.simt.block.sync()\n"
                                     "        qd.atomic_add(s[0], qd.f16(0.25))\n"
                                     "        qd.atomic_sub(s[1], qd.f16(0.5))\n"
                                     "        qd.atomic_mul(s[2], qd.f16(1.5))\n"
                                     "        qd.atomic_min(s[3], qd.f16(t))\n"
                                     "        qd.atomic_max(s[4], qd.f16(t))\n"
                                     "        qd.simt.block.sync()\n"
                                     "        if t < 5:\n"
                                     "            out[i] = s[t]\n";

static int count_of(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++) n++;
    return n;
}

Test(spirv_cli, f16_shared_atomics_on_u32_words, .timeout = 60) {
    char *dir = make_temp_dir(), *qd = xasprintf("%s/h.qd", dir), *spv = xasprintf("%s/h.spv", dir);
    cr_assert(write_text(qd, f16_shared_src));
    for (size_t i = 0; i < ARRAY_LEN(vk_targets); i++) {
        char *tgt = xasprintf("--target=%s", vk_targets[i]);
        RunResult r = run_qdc(qd, tgt, "-o", spv, NULL);
        cr_assert_eq(r.status, 0, "%s: %s", vk_targets[i], r.err);
        run_free(&r);
        r = run_argv((const char *[]){"spirv-dis", spv, NULL}, NULL, NULL);
        cr_expect_eq(count_of(r.out, "OpAtomicCompareExchange %uint"), 5, "%s: five u32 CAS loops:\n%s", vk_targets[i], r.out);
        cr_expect(strstr(r.out, "%s = OpVariable %_ptr_Workgroup__arr_uint_uint_5 Workgroup") &&
                      !strstr(r.out, "OpTypePointer StorageBuffer %uint"), /* so every u32 atomic is on the Workgroup words */
                  "%s: s is not a Workgroup u32[5]:\n%s", vk_targets[i], r.out);
        cr_expect(count_of(r.out, "PackHalf2x16") == 6 && count_of(r.out, "UnpackHalf2x16") == 11,
                  "%s: conversions (6 packs: a store, 5 loops; 11 unpacks: 5 loops, 5 results, a load):\n%s", vk_targets[i], r.out);
        cr_expect(!strstr(r.out, "OpCapability Int16") && !strstr(r.out, "OpTypeInt 16") && !strstr(r.out, "OpAtomicFAddEXT") &&
                      !strstr(r.out, "StorageBuffer16BitAccess"), "%s:\n%s", vk_targets[i], r.out);
        run_free(&r);
        r = run_argv((const char *[]){"spirv-val", "--target-env", vk_targets[i], spv, NULL}, NULL, NULL);
        cr_expect_eq(r.status, 0, "spirv-val %s: %s", vk_targets[i], r.err);
        run_free(&r), free(tgt);
    }
    RunResult r = run_qdc(qd, "--target=vulkan1.3", "--report-lowering", "--check", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count_of(r.out, "f16   shared  relaxed  device   cas          CAS loop computing"), 5, "%s", r.out);
    cr_expect_eq(count_of(r.out, "the SharedArray is stored as u32 words, one value per word"), 5, "%s", r.out);
    run_free(&r);
    r = run_qdc(qd, "--target=vulkan1.3", "--report-lowering=json", "--check", NULL);
    cr_expect(count_of(r.out, "\"decision\":\"cas\"") == 5 && count_of(r.out, "\"flags\":[\"shared_u32\"]") == 5, "%s", r.out);
    run_free(&r);
    /* With --cap=+float16-atomic-add the add and sub on s would be native, but mul needs the words:
       they become CAS loops on them; v, whose only atomic is an add, stays half and native. */
    char *mixed = root_path("testdata/lowering/f16_shared.qd");
    r = run_qdc(mixed, "--target=vulkan1.3", "--cap=+float16-atomic-add", "--report-lowering", "-o", spv, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "add            f16   shared  relaxed  device   cas          CAS loop computing add on the u32 word "
                            "instead of OpAtomicFAddEXT: another operation stores the SharedArray as u32 words, one value per "
                            "word  (capability-db/vulkan1.1.yaml:ops.add.f16.shared)") &&
                  strstr(r.out, "CAS loop computing add on the u32 word instead of OpAtomicFAddEXT: another operation stores the "
                                "SharedArray as u32 words, one value per word; sub as add of the negation") &&
                  count_of(r.out, "native       OpAtomicFAddEXT; relies on +float16-atomic-add") == 1, "%s", r.out);
    run_free(&r);
    r = run_argv((const char *[]){"spirv-dis", spv, NULL}, NULL, NULL);
    cr_expect(count_of(r.out, "OpAtomicFAddEXT %half") == 1 && count_of(r.out, "OpAtomicCompareExchange %uint") == 7,
              "one native add (v), seven loops on words (s: 6, c: 1):\n%s", r.out);
    run_free(&r);
    r = run_argv((const char *[]){"spirv-val", "--target-env", "vulkan1.3", spv, NULL}, NULL, NULL);
    cr_expect_eq(r.status, 0, "spirv-val: %s", r.err);
    run_free(&r);
    /* the min/max the cap would make native become loops on s's words: nothing relies on it */
    r = run_qdc(mixed, "--target=vulkan1.3", "--cap=+float16-atomic-min-max", "--report-lowering", "--emit=metadata", "-o", "-", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "CAS loop computing min on the u32 word instead of OpAtomicFMinEXT") &&
                  !strstr(r.out, "# capabilities relied on") && strstr(r.out, "\"capabilities_used\": [],"), "%s", r.out);
    run_free(&r), free(mixed);
    /* Apple: threadgroup uint words and the MSL compare-exchange loop */
    r = run_qdc(qd, "--target=apple7", "-o", "-", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "threadgroup uint s[5];") &&
                  count_of(r.out, "atomic_compare_exchange_weak_explicit((threadgroup atomic_uint*)&s[") == 5 &&
                  strstr(r.out, "as_type<uint>(half2(") && strstr(r.out, "as_type<half2>("), "%s", r.out);
    run_free(&r);
    free(qd), free(spv);
    remove_tree(dir);
    free(dir);
}

/* A buffer's f16 atomic keeps the QD4001 it had (the host sees its layout: nothing widens). */
Test(spirv_cli, f16_buffer_atomics_stay_refused) {
    char *dir = make_temp_dir(), *qd = xasprintf("%s/g.qd", dir), *out = xasprintf("%s/g.spv", dir);
    cr_assert(write_text(qd, "import quadrants as qd\n\n@qd.kernel\ndef k(g: qd.types.ndarray(qd.f16, ndim=1)):\n"
                             "    for i in range(64):\n        qd.atomic_add(g[0], qd.f16(1.0))\n"));
    RunResult r = run_qdc(qd, "--target=vulkan1.3", "--color=never", "-o", out, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "g.qd:6:9: error[QD4001]: atomic add on f16 in global memory is not supported on target "
                            "'vulkan1.3' (capability-db/vulkan1.1.yaml:") &&
                  strstr(r.err, "note: pass --cap=+float16-atomic-add if the device has it"), "%s", r.err);
    cr_expect(!file_exists(out), "an output file after an error");
    run_free(&r);
    r = run_qdc(qd, "--target=apple7", "--color=never", "-o", out, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "error[QD4001]: atomic add on f16 in global memory is not supported on target 'apple7'"), "%s", r.err);
    cr_expect(!file_exists(out), "an output file after an error");
    run_free(&r), free(qd), free(out);
    remove_tree(dir), free(dir);
}

/* The widened words count in the shared-memory limit: 8192 halves fit vulkan1.3's 16384 bytes
 * as plain halves, not once an atomic needs them as u32 words; apple7's 32 KiB hold 8192 words. */
static RunResult f16_array_kernel(const char *dir, int n, bool atomic, const char *target) {
    char *qd = xasprintf("%s/l.qd", dir), *tgt = xasprintf("--target=%s", target), *out = xasprintf("%s/l.out", dir);
    char *src = xasprintf("import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(qd.f16, ndim=1)):\n"
                          "    for i in range(a.shape[0]):\n        s = qd.simt.block.SharedArray((%d,), qd.f16)\n"
                          "        s[i %% %d] = a[i]\n%s        a[i] = s[(i + 1) %% %d]\n",
                          n, n, atomic ? "        qd.atomic_max(s[0], a[i])\n" : "", n);
    cr_assert(write_text(qd, src));
    remove(out);
    RunResult r = run_qdc(qd, tgt, "--color=never", "-o", out, NULL);
    cr_expect_eq(file_exists(out), r.status == 0, "%s: output file and exit status %d disagree", target, r.status);
    free(qd), free(tgt), free(src), free(out);
    return r;
}

Test(spirv_cli, widened_f16_arrays_count_four_bytes_an_element, .timeout = 60) {
    char *dir = make_temp_dir();
    RunResult r = f16_array_kernel(dir, 8192, false, "vulkan1.3");
    cr_expect_eq(r.status, 0, "8192 plain halves fit 16384 bytes: %s", r.err);
    run_free(&r);
    r = f16_array_kernel(dir, 8192, true, "vulkan1.3");
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "l.qd:6:13: error[QD4006]: task 'k_t0' needs 32768 bytes of shared memory; vulkan1.3 allows "
                            "16384 (max_shared_bytes)"), "%s", r.err);
    run_free(&r);
    r = f16_array_kernel(dir, 4096, true, "vulkan1.3");
    cr_expect_eq(r.status, 0, "4096 words: %s", r.err);
    run_free(&r);
    r = f16_array_kernel(dir, 8192, true, "apple7"); /* 32 KiB: exactly full */
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = f16_array_kernel(dir, 8193, true, "apple7");
    cr_expect(strstr(r.err, "error[QD4006]: task 'k_t0' needs 32772 bytes of shared memory; apple7 allows 32768"), "%s", r.err);
    run_free(&r);
    remove_tree(dir), free(dir);
}
