/* Parallel loops whose bounds are known only at run time (qdc-lang(7) "Run-time bounds",
 * qdc-abi(7) "Device bounds"): testdata/lang/bounds.qd run exactly on lavapipe (full grids, 3
 * groups, the validation layer), what the metadata and headers tell a host, ptxas accepting the
 * PTX, uniform bounds through a kernel-scope local keeping the launch-computed extent, and the
 * forms still refused. (The x86 runs on 1-8 threads are the lang corpus: testdata/lang/bounds.c.) */
#include "../../support/util.h"
#include "harness.h"
#include "vk_exec.h"
#include "../../testdata/lang/bounds_expected.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *emit(const char *src, const char *target, const char *what, const char *out) {
    char *t = xasprintf("--target=%s", target), *e = xasprintf("--emit=%s", what ? what : "");
    const char *argv[] = {src, t, "-o", out, what ? e : NULL, NULL};
    RunResult r = run_qdc_argv(argv, NULL, NULL);
    cr_expect_eq(r.status, 0, "qdc %s %s %s: %s", src, t, e, r.err);
    char *text = r.status == 0 && strcmp(out, "-") ? read_text(out, NULL) : r.status == 0 ? xstrdup(r.out) : NULL;
    run_free(&r), free(t), free(e);
    return text;
}

Test(bounds, vulkan_exact, .timeout = 300) {
    static const char *const families[] = {"vulkan1.1", "vulkan1.3"};
    char *dir = make_temp_dir(), *src = root_path("testdata/lang/bounds.qd");
    int32_t want[256];
    bounds_expected(want);
    for (size_t f = 0; f < ARRAY_LEN(families); f++) {
        char *spv = xasprintf("%s/%s.spv", dir, families[f]), *mf = xasprintf("%s/%s.json", dir, families[f]);
        free(emit(src, families[f], NULL, spv));
        char *meta = emit(src, families[f], "metadata", mf);
        cr_assert(meta);
        for (int g = 0; g < 3; g++) { /* full grid, 3 groups, full grid under the validation layer */
            int32_t a[8] = {3, 1, 6, 5, 20, 3, 10, 4}, out[256];
            for (int i = 0; i < 256; i++) out[i] = -1;
            VkArray arr[2] = {{a, sizeof a, 8}, {out, sizeof out, 256}};
            const char *kernels[] = {"bounds"};
            char *err;
            int rc = vk_run(dir, spv, meta, kernels, 1, arr, 2, NULL, 256, g == 1 ? VK_FEW : VK_FULL, g == 2, &err);
            cr_expect(rc >= 0, "%s: %s", families[f], err);
            for (int i = 0; rc > 0 && i < 256; i++)
                cr_expect_eq(out[i], want[i], "%s %s: out[%d] = %d, want %d", families[f], g == 1 ? "3 groups" : "full grid", i,
                             out[i], want[i]);
            free(err);
        }
        free(spv), free(mf), free(meta);
    }
    remove_tree(dir);
    free(dir), free(src);
}

static const char loads[] = "import quadrants as qd\n"
                            "lo = qd.field(qd.i32, shape=())\n"
                            "@qd.kernel\n"
                            "def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                            "    for i in range(lo[None], a.shape[0]):\n"
                            "        a[i] = 1\n";

/* The metadata marks the task and suggests ceil(131072 / block_dim) groups; GPU headers say so. */
Test(bounds, metadata_and_header) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/g.qd", dir);
    cr_assert(write_text(src, loads));
    char *m = emit(src, "sm_90", "metadata", "-");
    cr_expect(m && strstr(m, "{\"name\": \"k_t1\", \"kind\": \"parallel\", \"block_dim\": 128, \"uses_block\": false, "
                             "\"shared_bytes\": 0, \"extent\": \"device\", \"groups\": 1024}"), "%s", m);
    cr_expect(m && strstr(m, "{\"name\": \"k_t0\", \"kind\": \"serial\", \"block_dim\": 128, \"uses_block\": false, "
                             "\"shared_bytes\": 0}"), "%s", m);
    cr_expect(m && strstr(m, "\"name\": \"qdc_bounds_k_t1\", \"symbol\": \"qd_field_qdc_bounds_k_t1\", \"dtype\": \"i32\", "
                             "\"shape\": [1]"), "%s", m);
    free(m);
    m = emit(src, "vulkan1.2", "metadata", "-");
    cr_expect(m && strstr(m, "{\"entry\": \"k_t1\", \"kind\": \"parallel\", \"block_dim\": 128, \"groups\": 1024, \"extent\": \"device\"}"),
              "%s", m);
    free(m);
    m = emit(src, "x86_64", "metadata", "-"); /* no grid on the CPU: the extent function reads the field */
    cr_expect(m && strstr(m, "\"shared_bytes\": 0, \"extent\": \"device\"}"), "%s", m);
    free(m);
    m = emit(src, "gfx90a", "header", "-");
    cr_expect(m && strstr(m, "/* k_t1 reads its loop bounds on the device (qdc-abi(7), Device bounds): any grid covers them; "
                             "512 blocks of 256 suggested */\n"), "%s", m);
    free(m);
    m = emit(src, "x86_64", "header", "-");
    cr_expect(m && strstr(m, "extern int32_t qd_field_qdc_bounds_k_t1[1];\n") && !strstr(m, "Device bounds"), "%s", m);
    free(m);
    remove_tree(dir);
    free(dir), free(src);
}

/* Every NVIDIA family's PTX of bounds.qd assembles. */
Test(bounds, ptxas_accepts, .timeout = 120) {
    static const char *const ptxas = "/usr/local/cuda/bin/ptxas";
    if (!tool_available(ptxas)) cr_skip_test("ptxas not installed");
    static const char *const sms[] = {"sm_60", "sm_70", "sm_80", "sm_90"};
    char *dir = make_temp_dir(), *src = root_path("testdata/lang/bounds.qd");
    for (size_t i = 0; i < ARRAY_LEN(sms); i++) {
        char *ptx = xasprintf("%s/%s.ptx", dir, sms[i]), *cubin = xasprintf("%s/%s.cubin", dir, sms[i]);
        char *arch = xasprintf("-arch=%s", strcmp(sms[i], "sm_60") && strcmp(sms[i], "sm_70") ? sms[i] : "sm_75");
        free(emit(src, sms[i], "asm", ptx));
        RunResult r = run_argv((const char *[]){ptxas, arch, ptx, "-o", cubin, NULL}, NULL, NULL);
        cr_expect_eq(r.status, 0, "ptxas %s: %s", sms[i], r.err);
        run_free(&r), free(ptx), free(cubin), free(arch);
    }
    remove_tree(dir);
    free(dir), free(src);
}

/* A kernel-scope local assigned once, unconditionally, from a uniform value bounds the loop as
 * that value would: the launch computes the extent (no qdc_bounds field), also when it is shared
 * with the loops (promoted). A conditional or a second assignment, or a load, goes through the
 * field. */
Test(bounds, uniform_local_keeps_the_launch_extent) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/g.qd", dir);
    cr_assert(write_text(src, "import quadrants as qd\n"
                              "@qd.kernel\n"
                              "def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1), f: qd.i32):\n"
                              "    n = a.shape[0]\n"
                              "    m = n * 2\n"
                              "    for i in range(m - n):\n"
                              "        a[i] = 1\n"
                              "    c = 0\n" /* declared before the if: a name first assigned in it is gone after it (Quadrants) */
                              "    if f > 0:\n"
                              "        c = 4\n"
                              "    for i in range(c):\n"
                              "        a[i] = 2\n"
                              "    b = f\n"
                              "    b = 3\n"
                              "    for i in range(b):\n"
                              "        a[i] = 3\n"));
    char *ir = emit(src, "x86_64", "ir", "-");
    cr_expect(ir && strstr(ir, "task k_t1 parallel extent=(max:i32 (sub:i32 (mul:i32 (shape a 0) 2:i32) (shape a 0)) 0:i32)"), "%s", ir);
    cr_expect(ir && strstr(ir, "task k_t3 parallel extent=(max:i32 (load field qdc_bounds_k_t3[0:i32]:i32) 0:i32)"), "%s", ir);
    cr_expect(ir && strstr(ir, "task k_t5 parallel extent=(max:i32 (load field qdc_bounds_k_t5[0:i32]:i32) 0:i32)"), "%s", ir);
    cr_expect(ir && !strstr(ir, "field qdc_bounds_k_t1"), "%s", ir);
    free(ir);
    /* shared with the loop's body (a qdc_tmp_ field), written once at the top level: the same;
     * written twice: read on the device */
    cr_assert(write_text(src, "import quadrants as qd\n"
                              "@qd.kernel\n"
                              "def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                              "    n = a.shape[0] - 1\n"
                              "    for i in range(n):\n"
                              "        a[i] = n\n"
                              "    for i in range(n, a.shape[0]):\n"
                              "        a[i] = 0\n"
                              "    n += 1\n"
                              "    for i in range(n):\n"
                              "        a[i] += n\n"));
    ir = emit(src, "x86_64", "ir", "-");
    cr_expect(ir && strstr(ir, "task k_t1 parallel extent=(max:i32 (sub:i32 (shape a 0) 1:i32) 0:i32)"), "%s", ir);
    cr_expect(ir && strstr(ir, "task k_t2 parallel extent=(max:i32 (sub:i32 (shape a 0) (sub:i32 (shape a 0) 1:i32)) 0:i32)"), "%s", ir);
    cr_expect(ir && strstr(ir, "task k_t4 parallel extent=(max:i32 (load field qdc_bounds_k_t4[0:i32]:i32) 0:i32)"), "%s", ir);
    free(ir);
    remove_tree(dir);
    free(dir), free(src);
}

static void expect_error(const char *text, const char *want) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/g.qd", dir), *out = xasprintf("%s/g.o", dir);
    cr_assert(write_text(src, text));
    const char *argv[] = {"--color=never", "--target=x86_64", "-o", out, "g.qd", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, want), "got:\n%s\nwant:\n%s", r.err, want);
    cr_expect(!file_exists(out), "an output file after an error");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(out);
}

/* Refused: block constructs (a GPU grid must be exactly the extent's blocks). */
Test(bounds, refused_forms) {
    expect_error("import quadrants as qd\n"
                 "x = qd.field(qd.i32, shape=(4,))\n"
                 "@qd.kernel\n"
                 "def k():\n"
                 "    for i in range(x[0]):\n"
                 "        qd.simt.block.sync()\n",
                 "g.qd:5:14: error[QD2013]: a parallel loop that uses qd.simt.block or subgroup operations needs bounds known at "
                 "launch (constants, scalar arguments, ndarray shapes): a GPU must run it on exactly ceil(extent / block_dim) blocks\n"
                 " 5 |     for i in range(x[0]):\n"
                 "   |              ^~~~~~~~~~~\n");
}

/* Bounds right after another loop get a serial task of their own, which may call qd.random;
 * uniform bounds there add none (k_t1 is the second loop). */
Test(bounds, serial_task_only_when_needed) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/g.qd", dir);
    cr_assert(write_text(src, "import quadrants as qd\n"
                              "x = qd.field(qd.i32, shape=(16,))\n"
                              "@qd.kernel\n"
                              "def k(n: qd.i32):\n"
                              "    for i in range(4):\n"
                              "        x[i] = 0\n"
                              "    for i in range(n, 8):\n"
                              "        x[i] = 1\n"
                              "    for i in range(qd.random(qd.i32) % 8 + 8):\n"
                              "        x[i] += 1\n"));
    char *ir = emit(src, "x86_64", "ir", "-");
    cr_expect(ir && strstr(ir, "task k_t1 parallel extent=(max:i32 (sub:i32 8:i32 $n) 0:i32)"), "%s", ir);
    cr_expect(ir && strstr(ir, "task k_t2 serial\n"), "%s", ir);
    /* Python's % 8 of a signed value is its low three bits (ir/expand.c: a power of 2) */
    cr_expect(ir && strstr(ir, "    store field qdc_bounds_k_t3[0:i32]:i32 = (add:i32 (and:i32 (bitcast:i32 %6) 7:i32) 8:i32)\n"), "%s", ir);
    cr_expect(ir && strstr(ir, "task k_t3 parallel extent=(max:i32 (load field qdc_bounds_k_t3[0:i32]:i32) 0:i32)"), "%s", ir);
    free(ir);
    remove_tree(dir);
    free(dir), free(src);
}
