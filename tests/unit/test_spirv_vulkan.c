/* tools/vulkan-runner/vkrun itself, and two examples' SPIR-V through it (the full matrix is
 * test_exec_vulkan.c). Runs go through vk_exec.h: a run that cannot happen is a counted SKIP
 * (a failure when CI is set), never a pass. Buffers and push constants follow man/qdc-spirv.7. */
#include "../../support/util.h"
#include "harness.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Compiles examples/<name>.qd for family (extra: one more option or NULL); also its metadata. */
static char *compile_example(const char *dir, const char *name, const char *family, const char *extra, char **meta) {
    char *in = xasprintf("examples/%s.qd", name), *inp = root_path(in), *out = xasprintf("%s/%s.spv", dir, name);
    char *mf = xasprintf("%s/%s.json", dir, name), *tgt = xasprintf("--target=%s", family);
    RunResult r = run_qdc(inp, tgt, "-o", out, extra, NULL);
    cr_expect_eq(r.status, 0, "%s: %s", name, r.err);
    bool ok = r.status == 0;
    run_free(&r);
    r = run_qdc(inp, tgt, "--emit=metadata", "-o", mf, extra, NULL);
    ok = ok && r.status == 0;
    run_free(&r);
    *meta = ok ? read_text(mf, NULL) : NULL;
    free(in), free(inp), free(mf), free(tgt);
    if (!ok) free(out);
    return ok ? out : NULL;
}

Test(spirv_vulkan, histogram_on_a_gpu) {
    char *dir = make_temp_dir(), *meta = NULL, *spv = compile_example(dir, "histogram", "vulkan1.1", NULL, &meta), *err = NULL;
    enum { N = 5000 };
    static int32_t data[N], bins[256], want[256];
    for (int i = 0; i < N; i++) data[i] = i * 7 - 1234, want[data[i] & 255]++;
    memset(bins, 0xAB, sizeof bins);
    VkArray a[2] = {{data, sizeof data, N}, {bins, sizeof bins, 256}};
    const char *k[] = {"histogram"};
    if (spv && vk_run(dir, spv, meta, k, 1, a, 2, NULL, N, VK_FEW, false, &err) > 0)
        for (int b = 0; b < 256; b++) cr_expect_eq(bins[b], want[b], "bin %d", b);
    cr_expect_null(err, "%s", err);
    remove_tree(dir);
    free(dir), free(spv), free(meta), free(err);
}

Test(spirv_vulkan, float_sum_cas_loop_on_a_gpu) {
    char *dir = make_temp_dir(), *meta = NULL, *spv = compile_example(dir, "float_sum", "vulkan1.1", NULL, &meta), *err = NULL;
    enum { N = 4096 };
    static float x[N];
    float out[2] = {-1, -1}, s = 0, s2 = 0;
    for (int i = 0; i < N; i++) x[i] = (float)((i % 33) - 16) * 0.25f, s += x[i], s2 += x[i] * x[i];
    VkArray a[2] = {{x, sizeof x, N}, {out, sizeof out, 2}};
    const char *k[] = {"float_sum"};
    if (spv && vk_run(dir, spv, meta, k, 1, a, 2, NULL, N, VK_FULL, false, &err) > 0) {
        cr_expect_eq(out[0], s);
        cr_expect_eq(out[1], s2);
    }
    cr_expect_null(err, "%s", err);
    remove_tree(dir);
    free(dir), free(spv), free(meta), free(err);
}

/* vkrun asks for the Vulkan version the module's SPIR-V version needs (1.3 -> 1.1, 1.5 -> 1.2,
 * 1.6 -> 1.3), and with --validate the Khronos layer finds nothing in a module that uses 64-bit
 * and float atomics (the features are enabled exactly). */
Test(spirv_vulkan, vkrun_api_version_and_validation) {
    static const char *const fam[] = {"vulkan1.1", "vulkan1.2", "vulkan1.3"}, *const want[] = {"(Vulkan 1.1)", "(Vulkan 1.2)", "(Vulkan 1.3)"};
    const char *vk = getenv("QDC_VKRUN");
    if (!vk || !file_exists(vk)) {
        vk_count_skip(3, "QDC_VKRUN not built (make vulkan-deps)");
        return;
    }
    for (int f = 0; f < 3; f++) {
        char *dir = make_temp_dir(), *meta = NULL, *spv = compile_example(dir, "minmax", fam[f], "--cap=+float-atomic-min-max", &meta);
        enum { N = 300 };
        static int32_t a[N], ires[2];
        static uint32_t u[N / 2 + 1], ures[2];
        static float fl[N / 3 + 1], fres[2];
        for (int i = 0; i < N; i++) a[i] = i - 100;
        for (int i = 0; i < N / 2 + 1; i++) u[i] = 0xfffffff0u - (uint32_t)i;
        for (int i = 0; i < N / 3 + 1; i++) fl[i] = (float)i * 0.5f - 7;
        VkArray arr[6] = {{a, sizeof a, N}, {u, sizeof u, N / 2 + 1}, {fl, sizeof fl, N / 3 + 1},
                          {ires, sizeof ires, 2}, {ures, sizeof ures, 2}, {fres, sizeof fres, 2}};
        const char *k[] = {"minmax"};
        char *err = NULL;
        int rc = spv ? vk_run(dir, spv, meta, k, 1, arr, 6, NULL, N, VK_FULL, true, &err) : -1;
        cr_expect(rc >= 0, "%s: %s", fam[f], err ? err : "compile failed");
        if (rc > 0) {
            cr_expect(ires[0] == -100 && ires[1] == N - 101 && ures[0] == 0xfffffff0u - N / 2 && ures[1] == 0xfffffff0u);
            cr_expect(fres[0] == -7.0f && fres[1] == (float)(N / 3) * 0.5f - 7);
            /* The version line, from a plain run of the same module. */
            RunResult r = vk_spawn((const char *[]){vk, spv, NULL});
            cr_expect(r.status == 0 && strstr(r.out, want[f]), "%s: %s%s", fam[f], r.out, r.err);
            run_free(&r);
        }
        remove_tree(dir);
        free(dir), free(spv), free(meta), free(err);
    }
}

/* No driver: vkrun says so and exits 77 (callers count a skip); it never reports success. */
Test(spirv_vulkan, vkrun_without_a_driver_exits_77) {
    const char *vk = getenv("QDC_VKRUN");
    if (!vk || !file_exists(vk)) {
        vk_count_skip(1, "QDC_VKRUN not built (make vulkan-deps)");
        return;
    }
    char *dir = make_temp_dir(), *meta = NULL, *spv = compile_example(dir, "histogram", "vulkan1.1", NULL, &meta);
    char *none = xasprintf("%s/none.json", dir);
    setenv("VK_DRIVER_FILES", none, 1);
    setenv("VK_ICD_FILENAMES", none, 1);
    RunResult r = run_argv((const char *[]){vk, spv, "histogram_t0:1", NULL}, NULL, NULL);
    cr_expect_eq(r.status, 77, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "skipping") != NULL, "%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(spv), free(meta), free(none);
}

/* Issue 34 item 11: an entry that uses a binding no --buffer names is a usage error (exit 1)
 * that says which binding, once the device exists (it crashed lavapipe: status 139). */
Test(spirv_vulkan, vkrun_missing_buffer_names_the_binding) {
    const char *vk = getenv("QDC_VKRUN");
    if (!vk || !file_exists(vk)) {
        vk_count_skip(1, "QDC_VKRUN not built (make vulkan-deps)");
        return;
    }
    char *dir = make_temp_dir(), *meta = NULL, *spv = compile_example(dir, "histogram", "vulkan1.1", NULL, &meta);
    char *b0 = xasprintf("%s/b0", dir), *spec = xasprintf("0,0,%s", b0);
    cr_assert(spv && write_text(b0, "0123456789abcdef"));
    RunResult r = vk_spawn((const char *[]){vk, spv, "--buffer", spec, "histogram_t0:1", NULL});
    if (r.status == 77) { /* checked once the device exists: without one, a skip */
        vk_count_skip(1, r.out);
        run_free(&r), remove_tree(dir), free(dir), free(spv), free(meta), free(b0), free(spec);
        return;
    }
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect_str_eq(r.err, "vkrun: entry histogram_t0 uses set 0 binding 1 ('bins'), but no --buffer 0,1,FILE was given\n");
    run_free(&r);
    /* histogram_t0 only clears the bins; histogram_t1 reads data (binding 0) too: the lowest is named */
    r = vk_spawn((const char *[]){vk, spv, "histogram_t1:1", NULL});
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect_str_eq(r.err, "vkrun: entry histogram_t1 uses set 0 binding 0 ('data'), but no --buffer 0,0,FILE was given\n");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(spv), free(meta), free(b0), free(spec);
}

/* Issue 34 item 5: a loop that runs zero times (range(0), range(-300)) has "groups": 1 in the
 * metadata, a count a Vulkan host may dispatch (0 is invalid and vkrun refuses it); run as the
 * metadata says, on lavapipe, the empty tasks write nothing and the third task runs. */
Test(spirv_vulkan, zero_trip_loops_have_dispatchable_groups) {
    static const char src[] = "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                              "    for i in range(0):\n        a[i] = 7\n    for i in range(-300):\n        a[i] = 9\n"
                              "    for i in range(4):\n        a[i] = a[i] + 1\n";
    char *dir = make_temp_dir(), *qd = xasprintf("%s/z.qd", dir), *spv = xasprintf("%s/z.spv", dir), *err = NULL;
    cr_assert(write_text(qd, src));
    static const char *const fam[] = {"--target=vulkan1.1", "--target=apple8"};
    RunResult m[2];
    for (int f = 0; f < 2; f++) {
        m[f] = run_qdc(qd, fam[f], "--emit=metadata", "-o", "-", NULL);
        cr_assert_eq(m[f].status, 0, "%s", m[f].err);
        for (int t = 0; t < 3; t++) {
            char *want = xasprintf("{\"entry\": \"k_t%d\", \"kind\": \"parallel\", \"block_dim\": 128, \"groups\": 1}", t);
            cr_expect(strstr(m[f].out, want), "%s: no %s in\n%s", fam[f], want, m[f].out);
            free(want);
        }
    }
    RunResult c = run_qdc(qd, fam[0], "-o", spv, NULL);
    cr_assert_eq(c.status, 0, "%s", c.err);
    int32_t a[4] = {10, 20, 30, 40};
    VkArray arr[1] = {{a, sizeof a, 4}};
    const char *k[] = {"k"};
    if (vk_run(dir, spv, m[0].out, k, 1, arr, 1, NULL, 4, VK_FULL, true, &err) > 0)
        for (int i = 0; i < 4; i++) cr_expect_eq(a[i], 10 * (i + 1) + 1, "a[%d]", i);
    cr_expect_null(err, "%s", err);
    run_free(&m[0]), run_free(&m[1]), run_free(&c), remove_tree(dir);
    free(dir), free(qd), free(spv), free(err);
}

/* vkrun enables exactly what the module uses: nothing for a plain i32 module, the float-add
 * feature and its extension for float_sum with +float-atomic-add, and 64-bit buffer (not
 * shared) atomics plus shaderInt64 for a global i64 atomic; vulkan1.1 needs the int64-atomics
 * extension, vulkan1.3 has it in core. */
static void expect_features(const char *vk, const char *dir, const char *src_text, const char *family, const char *cap,
                            const char *want) {
    char *qd = xasprintf("%s/f.qd", dir), *spv = xasprintf("%s/f.spv", dir), *tgt = xasprintf("--target=%s", family);
    cr_assert(write_text(qd, src_text));
    RunResult c = run_qdc(qd, tgt, "-o", spv, cap, NULL);
    cr_assert_eq(c.status, 0, "%s", c.err);
    run_free(&c);
    RunResult r = vk_spawn((const char *[]){vk, spv, NULL});
    if (r.status == 77) vk_count_skip(1, r.out);
    else cr_expect(r.status == 0 && strstr(r.out, want), "%s %s: want '%s' in:\n%s%s", family, cap ? cap : "", want, r.out, r.err);
    run_free(&r);
    free(qd), free(spv), free(tgt);
}

Test(spirv_vulkan, vkrun_enables_exactly_what_the_module_uses) {
    const char *vk = getenv("QDC_VKRUN");
    if (!vk || !file_exists(vk)) {
        vk_count_skip(5, "QDC_VKRUN not built (make vulkan-deps)");
        return;
    }
    char *dir = make_temp_dir(), *hist = root_path("examples/histogram.qd"), *fsum = root_path("examples/float_sum.qd");
    char *h = read_text(hist, NULL), *fs = read_text(fsum, NULL);
    static const char i64[] = "import quadrants as qd\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i64, ndim=1), "
                              "o: qd.types.ndarray(dtype=qd.i64, ndim=1)):\n    for i in range(a.shape[0]):\n"
                              "        o[i] = qd.atomic_add(a[0], 1)\n";
    expect_features(vk, dir, h, "vulkan1.1", NULL, "vkrun: features: none; extensions: none\n");
    expect_features(vk, dir, fs, "vulkan1.1", "--cap=+float-atomic-add",
                    "vkrun: features: shaderBufferFloat32AtomicAdd; extensions: VK_EXT_shader_atomic_float\n");
    expect_features(vk, dir, i64, "vulkan1.1", "--cap=+int64-atomics",
                    "vkrun: features: shaderInt64 shaderBufferInt64Atomics; extensions: VK_KHR_shader_atomic_int64\n");
    expect_features(vk, dir, i64, "vulkan1.3", "--cap=+int64-atomics",
                    "vkrun: features: shaderInt64 shaderBufferInt64Atomics; extensions: none\n");
    remove_tree(dir);
    free(dir), free(hist), free(fsum), free(h), free(fs);
}

/* An argument block over the family's limits.max_push_constant_bytes (128 for vulkan1.1, the
 * smallest maxPushConstantsSize Vulkan guarantees) is a NonWritable storage buffer at set 0, the
 * binding after the ndarrays' (qdc-spirv(7)): 31 f32 components and one extent are exactly 128
 * bytes and stay push constants; 40 components are 164 bytes, given to vkrun as --buffer 0,1. */
Test(spirv_vulkan, argument_block_past_the_push_constant_limit_is_a_buffer) {
    char *dir = make_temp_dir(), *qd = xasprintf("%s/v.qd", dir), *spv = xasprintf("%s/v.spv", dir);
    char *out = xasprintf("%s/out", dir), *args = xasprintf("%s/args", dir);
    static const char *const fmt = "import quadrants as qd\n\n@qd.kernel\n"
                                   "def k(v: qd.types.vector(%d, qd.f32), out: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
                                   "    for j in qd.static(range(%d)):\n        out[j] = v[j] * 2.0\n";
    char src[512];
    snprintf(src, sizeof src, fmt, 31, 31);
    cr_assert(write_text(qd, src));
    RunResult m = run_qdc(qd, "--target=vulkan1.1", "--emit=metadata", "-o", "-", NULL);
    cr_assert_eq(m.status, 0, "%s", m.err);
    cr_expect(strstr(m.out, "\"push_constants\": {\"size\": 128, \"members\": ["), "%s", m.out);
    run_free(&m);
    snprintf(src, sizeof src, fmt, 40, 40);
    cr_assert(write_text(qd, src));
    m = run_qdc(qd, "--target=vulkan1.1", "--emit=metadata", "-o", "-", NULL);
    cr_assert_eq(m.status, 0, "%s", m.err);
    cr_expect(strstr(m.out, "\"push_constants\": {\"size\": 164, \"buffer\": {\"set\": 0, \"binding\": 1}, \"members\": ["), "%s", m.out);
    RunResult a = run_qdc(qd, "--target=vulkan1.1", "--emit=spirv-asm", "-o", "-", NULL);
    cr_assert_eq(a.status, 0, "%s", a.err);
    cr_expect(strstr(a.out, "OpDecorate %args Binding 1\n") && strstr(a.out, "OpDecorate %args NonWritable\n") &&
                  strstr(a.out, "%args = OpVariable %_ptr_StorageBuffer_") && !strstr(a.out, "PushConstant"),
              "%s", a.out);
    RunResult h = run_qdc(qd, "--target=vulkan1.1", "--emit=header", "-o", "-", NULL);
    cr_expect(strstr(h.out, "} k_args; /* 164 bytes: a storage buffer at set 0, binding 1 (larger than push constants) */\n"), "%s", h.out);
    RunResult c = run_qdc(qd, "--target=vulkan1.1", "-o", spv, NULL);
    cr_assert_eq(c.status, 0, "%s", c.err);
    const char *vk = getenv("QDC_VKRUN");
    if (!vk || !file_exists(vk)) vk_count_skip(1, "QDC_VKRUN not built (make vulkan-deps)");
    else {
        unsigned char block[164] = {0};
        float o[40];
        for (int j = 0; j < 40; j++) {
            float v = (float)j * 0.75f - 9.0f;
            memcpy(block + 4 * j, &v, 4), o[j] = -1.0f;
        }
        int32_t extent = 40;
        memcpy(block + 160, &extent, 4);
        FILE *f = fopen(args, "wb");
        cr_assert(f && fwrite(block, 1, sizeof block, f) == sizeof block && fclose(f) == 0);
        f = fopen(out, "wb");
        cr_assert(f && fwrite(o, 1, sizeof o, f) == sizeof o && fclose(f) == 0);
        char *b0 = xasprintf("0,0,%s", out), *b1 = xasprintf("0,1,%s", args);
        RunResult r = vk_spawn((const char *[]){vk, "--validate", spv, "--buffer", b0, "--buffer", b1, "k_t0:1", NULL});
        if (r.status == 77) vk_count_skip(1, r.out);
        else {
            cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
            size_t len = 0;
            char *got = read_text(out, &len);
            cr_assert(got && len == sizeof o);
            memcpy(o, got, sizeof o);
            for (int j = 0; j < 40; j++) cr_expect_eq(o[j], ((float)j * 0.75f - 9.0f) * 2.0f, "out[%d] = %g", j, (double)o[j]);
            free(got);
        }
        run_free(&r), free(b0), free(b1);
    }
    run_free(&m), run_free(&a), run_free(&h), run_free(&c), remove_tree(dir);
    free(dir), free(qd), free(spv), free(out), free(args);
}
