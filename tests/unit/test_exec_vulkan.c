/* Execution truth on Vulkan (issue 18): qdc's SPIR-V runs through tools/vulkan-runner/vkrun on
 * lavapipe (make vulkan-deps) and every result is checked exactly.
 *  - every example for vulkan1.1/1.2/1.3, without capabilities and with lavapipe's
 *    (+int64-atomics +float-atomic-add +float-atomic-min-max; a module byte-identical to the
 *    capability-free one is not run twice), at sizes that are and are not multiples of the block
 *    size, on full grids and on 3 groups (grid-stride loops turn), once more under the Khronos
 *    validation layer (no message allowed);
 *  - the atomics matrix of exec_spec.c (op x dtype x order x global/shared, old values used),
 *    judged by the exact sequential-history check, on vulkan1.3 with lavapipe's capabilities
 *    and on vulkan1.1 (32-bit types without capabilities: CAS loops for float add/min/max;
 *    64-bit types with them, through the VK_KHR_shader_atomic_int64 extension).
 * Runs that cannot happen are skips (vk_exec.h): counted, loud, and failures when CI is set. */
#include "../../support/util.h"
#include "exec_spec.h"
#include "harness.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LVP_CAPS "--cap=+int64-atomics", "--cap=+float-atomic-add", "--cap=+float-atomic-min-max", "--cap=+subgroup-arithmetic", \
                 "--cap=+subgroup-ballot"
static const char *const families[] = {"vulkan1.1", "vulkan1.2", "vulkan1.3"};

/* Compiles src for family (with lavapipe's capabilities when caps) to dir/<stem>.spv and its
 * metadata; NULL with a test failure when qdc refuses. *meta receives the metadata text. */
static char *compile(const char *dir, const char *src, const char *stem, const char *family, bool caps, char **meta) {
    char *spv = xasprintf("%s/%s.spv", dir, stem), *mf = xasprintf("%s/%s.json", dir, stem);
    char *tgt = xasprintf("--target=%s", family);
    const char *plain[] = {src, tgt, "-o", spv, NULL}, *with[] = {src, tgt, LVP_CAPS, "-o", spv, NULL};
    RunResult r = run_qdc_argv(caps ? with : plain, NULL, NULL);
    cr_expect_eq(r.status, 0, "qdc %s %s%s: %s", src, tgt, caps ? " +caps" : "", r.err);
    bool ok = r.status == 0;
    run_free(&r);
    const char *pm[] = {src, tgt, "--emit=metadata", "-o", mf, NULL}, *wm[] = {src, tgt, LVP_CAPS, "--emit=metadata", "-o", mf, NULL};
    if (ok) {
        r = run_qdc_argv(caps ? wm : pm, NULL, NULL);
        cr_expect_eq(r.status, 0, "qdc --emit=metadata: %s", r.err);
        ok = r.status == 0;
        run_free(&r);
    }
    *meta = ok ? read_text(mf, NULL) : NULL;
    free(mf), free(tgt);
    if (!ok || !*meta) free(spv), spv = NULL;
    return spv;
}

static bool same_bytes(const char *a, const char *b) {
    size_t la, lb;
    char *x = read_text(a, &la), *y = read_text(b, &lb);
    bool same = x && y && la == lb && !memcmp(x, y, la);
    free(x), free(y);
    return same;
}

/* ---- examples ---- */

static const int sizes[] = {1, 127, 128, 1000, 4097};
/* Under sanitizers (make test-asan) the runs repeat only to exercise the ASan+UBSan qdc that
 * compiled them, so two sizes (one a multiple of 128, one not) and no long loops. */
static bool asan(void) { return getenv("QDC_ASAN") && !strcmp(getenv("QDC_ASAN"), "1"); }

/* One example at size n on one grid: set up, run, check. */
static void run_example(const char *dir, const Example *ex, const char *spv, const char *meta, const char *label, int n,
                        VkGrid grid, bool validate) {
    ExArgs a = {0};
    ex->setup(&a, n);
    VkArray arr[8];
    for (int i = 0; i < a.nbufs; i++) arr[i] = (VkArray){a.bufs[i].host, a.bufs[i].elem * (a.bufs[i].n ? a.bufs[i].n : 1), a.bufs[i].extent};
    char *err;
    const char *kernels[] = {ex->kernel};
    int rc = vk_run(dir, spv, meta, kernels, 1, arr, a.nbufs, a.has_scalar ? &a.scalar : NULL, a.grid_items, grid, validate, &err);
    const char *g = grid == VK_FULL ? "full grid" : "3 groups";
    if (rc < 0) cr_expect(false, "%s %s n=%d %s%s: %s", ex->name, label, n, g, validate ? " (validation layer)" : "", err);
    if (rc > 0) cr_expect(ex->check(&a, n), "%s %s n=%d %s: %s", ex->name, label, n, g, a.why);
    free(err);
    exec_args_free(&a);
}

static void example_everywhere(const char *name) {
    const Example *ex = exec_example(name);
    cr_assert(ex, "no spec for %s", name);
    char *dir = make_temp_dir(), *rel = xasprintf("examples/%s.qd", name), *src = root_path(rel);
    for (size_t f = 0; f < ARRAY_LEN(families); f++) {
        char *plain_spv = NULL;
        for (int caps = 0; caps < 2; caps++) {
            char *stem = xasprintf("%s-%s-%d", name, families[f], caps), *meta = NULL;
            char *spv = compile(dir, src, stem, families[f], caps, &meta);
            char *label = xasprintf("%s%s", families[f], caps ? " +caps" : "");
            if (spv && !(caps && plain_spv && same_bytes(spv, plain_spv))) {
                for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
                    if (asan() && sizes[s] != 128 && sizes[s] != 4097) continue;
                    run_example(dir, ex, spv, meta, label, sizes[s], VK_FULL, false);
                    if (!ex->full_grid_only) run_example(dir, ex, spv, meta, label, sizes[s], VK_FEW, false);
                }
                run_example(dir, ex, spv, meta, label, 1000, VK_FULL, true);
            }
            if (!caps) plain_spv = spv;
            else free(spv);
            free(stem), free(meta), free(label);
        }
        free(plain_spv);
    }
    remove_tree(dir);
    free(dir), free(rel), free(src);
}

#define EXAMPLE(n) \
    Test(exec_vulkan, n, .timeout = 300) { example_everywhere(#n); }
EXAMPLE(histogram)
EXAMPLE(shared_histogram)
EXAMPLE(float_sum)
EXAMPLE(bitflags)
EXAMPLE(cas_max)
EXAMPLE(compaction)
EXAMPLE(last_block)
EXAMPLE(spin_chain)
EXAMPLE(minmax)
EXAMPLE(exchange_handoff)
EXAMPLE(vec_bins)

/* Larger sizes where the loops run long (65,536+ iterations in one invocation: lavapipe 22.3's
 * loop limiter broke last_block's serial prefix and spin_chain's spins) — vulkan1.3 only, to
 * bound the time. */
Test(exec_vulkan, long_loops, .timeout = 300) {
    if (asan()) return; /* nothing new for the sanitizers: the same modules as above */
    char *dir = make_temp_dir();
    static const char *const names[] = {"last_block", "spin_chain", "histogram", "compaction", "float_sum"};
    for (size_t i = 0; i < ARRAY_LEN(names); i++) {
        const Example *ex = exec_example(names[i]);
        char *rel = xasprintf("examples/%s.qd", names[i]), *src = root_path(rel), *meta = NULL;
        char *spv = compile(dir, src, names[i], "vulkan1.3", true, &meta);
        if (spv) {
            run_example(dir, ex, spv, meta, "vulkan1.3 +caps", 100003, VK_FULL, false);
            run_example(dir, ex, spv, meta, "vulkan1.3 +caps", 100003, VK_FEW, false);
        }
        free(rel), free(src), free(meta), free(spv);
    }
    remove_tree(dir);
    free(dir);
}

/* ---- the atomics matrix ---- */

static void matrix(int dt, int space, const char *family, bool caps) {
    XFile f;
    xfile_init(&f, dt, space);
    char *dir = make_temp_dir(), *qd = xasprintf("%s/x.qd", dir), *text = xfile_source(&f), *meta = NULL;
    cr_assert(write_text(qd, text));
    char *spv = compile(dir, qd, "x", family, caps, &meta);
    const char *kernels[XMAXK];
    for (int k = 0; k < f.nkernels; k++) kernels[k] = xkernel_name(&f, k);
    int n = space == XS_SHARED ? 1024 : 1000; /* global: not a multiple of the block size */
    /* full grid, 3 groups (global only), then the full grid again under the validation layer */
    for (int g = 0; spv && g < 3; g++) {
        if (g == 1 && space == XS_SHARED) continue;
        if (g == 2 && space == XS_FIELD) continue; /* 3 entry points a kernel: time; set 1 is validated by the examples */
        XData d;
        xdata_init(&d, &f, n, 777u + (unsigned)g);
        VkArray arr[4] = {{d.v, xdata_bytes(&d, 'v'), n * d.nk}, {d.w, xdata_bytes(&d, 'v'), n * d.nk},
                          {d.tgt, xdata_bytes(&d, 't'), d.ntgt * d.nk}, {d.old, xdata_bytes(&d, 'o'), n * d.nk}};
        int32_t nn = n;
        char *err;
        int rc = vk_run(dir, spv, meta, kernels, f.nkernels, arr, 4, &nn, n, g == 1 ? VK_FEW : VK_FULL, g == 2, &err);
        cr_expect(rc >= 0, "%s %s %s: %s", family, xdtype_name[dt], xspace_name[space], err);
        char why[512];
        for (int k = 0; rc > 0 && k < f.nkernels; k++)
            cr_expect(xcheck(&f, &d, k, why, sizeof why), "%s%s %s grid: %s", family, caps ? " +caps" : "", g == 1 ? "3-group" : "full", why);
        free(err);
        xdata_free(&d);
    }
    for (int k = 0; k < f.nkernels; k++) free((char *)kernels[k]);
    remove_tree(dir);
    free(dir), free(qd), free(text), free(meta), free(spv);
}

#define MATRIX(dt, sp)                                                                                             \
    Test(exec_vulkan, atomics_##dt##_##sp, .timeout = 300) {                                                       \
        matrix(XD_##dt, XS_##sp, "vulkan1.3", true);                                                               \
        bool wide_ = XD_##dt == XD_I64 || XD_##dt == XD_U64 || XD_##dt == XD_F64;                                 \
        if (XS_##sp != XS_FIELD) /* fields: vulkan1.3 only (three tasks a kernel) */                               \
            matrix(XD_##dt, XS_##sp, "vulkan1.1", wide_); /* 64-bit atomics through VK_KHR_shader_atomic_int64 */  \
    }
EXEC_MATRIX_CELLS(MATRIX)

/* ---- the task loop near INT32_MAX ----
 * The grid-stride loop has the LLVM backends' meaning (qdc-semantics(7)): every index of an
 * extent up to INT32_MAX exactly once. With a signed exit test, i + stride wraps negative on the
 * last turn of each invocation and the loop runs on out of the range (found by this test: the
 * run never ended). 3 groups, so each invocation turns ~5.6 million times. */
Test(exec_vulkan, task_loop_is_exact_near_int32_max, .timeout = 300) {
    static const char src[] = "import quadrants as qd\n\n@qd.kernel\n"
                              "def k(n: qd.i32, c: qd.types.ndarray(qd.i32, ndim=1)):\n"
                              "    for i in range(n):\n"
                              "        if i >= n - 8:\n"
                              "            qd.atomic_add(c[0], 1)\n"
                              "        if i < 0:\n"
                              "            qd.atomic_add(c[1], 1)\n";
    char *dir = make_temp_dir(), *qd = xasprintf("%s/big.qd", dir), *meta = NULL;
    cr_assert(write_text(qd, src));
    const char *asm_args[] = {qd, "--target=vulkan1.1", "--emit=spirv-asm", "-o", "-", NULL};
    RunResult r = run_qdc_argv(asm_args, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    const char *head = strstr(r.out, "OpLoopMerge");
    cr_assert(head, "no task loop:\n%s", r.out);
    cr_expect(strstr(head, "OpULessThan %bool"), "the exit test is not unsigned:\n%s", head);
    run_free(&r);
    char *spv = compile(dir, qd, "big", "vulkan1.1", false, &meta);
    int32_t c[2] = {0, 0}, n = 2147483647;
    VkArray arr[1] = {{c, sizeof c, 2}};
    const char *kernels[] = {"k"};
    char *err = NULL;
    int rc = spv ? vk_run(dir, spv, meta, kernels, 1, arr, 1, &n, 384, VK_FEW, false, &err) : -1;
    cr_expect_neq(rc, -1, "%s", err ? err : "");
    if (rc == 1) cr_expect(c[0] == 8 && c[1] == 0, "last 8 indexes seen %d times, negative indexes %d times", c[0], c[1]);
    free(err), free(spv), free(meta), free(qd);
    remove_tree(dir);
    free(dir);
}

/* ---- f16 atomics on a SharedArray (no 16-bit atomics: u32 words, CAS loops) ----
 * add/sub/mul/min/max and a vector component on Workgroup u32 words, each half converted
 * through f32 (capability-db shared_u32 cells; spirv_cli/f16_shared_atomics_on_u32_words checks
 * the instructions). Every value is exact in f16 whatever order the 32 invocations of a group
 * take (multiples of 0.25 below 1024; 1.5^4 = 5.0625), so the results are exact; the old
 * values add returns sum to 32 * 8 + 0.25 * (0 + ... + 31) = 380 per group. */
static const char f16_shared_kernel[] =
    "import quadrants as qd\n\nhvec2 = qd.types.vector(2, qd.f16)\n\n@qd.kernel\n"
    "def k(out: qd.types.ndarray(qd.f32, ndim=1), olds: qd.types.ndarray(qd.f32, ndim=1)):\n"
    "    qd.loop_config(block_dim=32)\n"
    "    for i in range(96):\n"
    "        s = qd.simt.block.SharedArray((5,), qd.f16)\n"
    "        v = qd.simt.block.SharedArray((2,), hvec2)\n"
    "        t = i % 32\n"
    "        if t == 0:\n"
    "            s[0] = qd.f16(8.0)\n"
    "            s[1] = qd.f16(100.0)\n"
    "            s[2] = qd.f16(1.0)\n"
    "            s[3] = qd.f16(64.0)\n"
    "            s[4] = qd.f16(-64.0)\n"
    "        if t < 2:\n"
    "            v[t] = qd.Vector([qd.f16(t), qd.f16(-2.5)])\n"
    "        qd.simt.block.sync()\n"
    "        o = qd.atomic_add(s[0], qd.f16(0.25))\n"
    "        qd.atomic_sub(s[1], qd.f16(t) * qd.f16(0.5))\n"
    "        if t < 4:\n"
    "            qd.atomic_mul(s[2], qd.f16(1.5))\n"
    "        qd.atomic_min(s[3], qd.f16(t) - qd.f16(10.0))\n"
    "        qd.atomic_max(s[4], qd.f16(t) * qd.f16(0.75))\n"
    "        qd.atomic_add(v[t % 2].y, qd.f16(0.25))\n"
    "        qd.atomic_add(olds[i // 32], qd.cast(o, qd.f32))\n"
    "        qd.simt.block.sync()\n"
    "        if t < 7:\n"
    "            out[(i // 32) * 7 + t] = s[t] if t < 5 else v[t - 5][1]\n";

Test(exec_vulkan, f16_shared_atomics, .timeout = 300) {
    char *dir = make_temp_dir(), *qd = xasprintf("%s/h.qd", dir);
    cr_assert(write_text(qd, f16_shared_kernel));
    /* per group: 8 + 32 * 0.25; 100 - 0.5 * 496; 1.5^4; min(t - 10); max(0.75 t); -2.5 + 16 * 0.25 (twice) */
    static const float want[7] = {16.0f, -148.0f, 5.0625f, -10.0f, 23.25f, 1.5f, 1.5f};
    for (size_t f = 0; f < ARRAY_LEN(families); f++) {
        char *stem = xasprintf("h-%s", families[f]), *meta = NULL;
        char *spv = compile(dir, qd, stem, families[f], false, &meta);
        for (int validate = 0; spv && validate < 2; validate++) {
            float out[21], olds[3];
            for (int i = 0; i < 21; i++) out[i] = 12345.0f;
            memset(olds, 0, sizeof olds);
            VkArray arr[2] = {{out, sizeof out, 21}, {olds, sizeof olds, 3}};
            const char *kernels[] = {"k"};
            char *err = NULL;
            int rc = vk_run(dir, spv, meta, kernels, 1, arr, 2, NULL, 96, VK_FULL, validate, &err);
            cr_expect(rc >= 0, "%s: %s", families[f], err);
            for (int i = 0; rc > 0 && i < 21; i++)
                cr_expect_eq(out[i], want[i % 7], "%s%s: group %d value %d is %g, want %g", families[f],
                             validate ? " (validation layer)" : "", i / 7, i % 7, (double)out[i], (double)want[i % 7]);
            for (int g = 0; rc > 0 && g < 3; g++)
                cr_expect_eq(olds[g], 380.0f, "%s: group %d's old values sum to %g", families[f], g, (double)olds[g]);
            free(err);
        }
        free(stem), free(meta), free(spv);
    }
    free(qd);
    remove_tree(dir);
    free(dir);
}

/* Exchanges on u32 words (f16 through the u16 row, i16, u16): per group the 32 old values and
 * the final one are exactly the initial value and the 32 operands, in some order. */
static const char x16_shared_kernel[] =
    "import quadrants as qd\n\n@qd.kernel\n"
    "def k(h: qd.types.ndarray(qd.f32, ndim=1), w: qd.types.ndarray(qd.i32, ndim=1), u: qd.types.ndarray(qd.i32, ndim=1)):\n"
    "    qd.loop_config(block_dim=32)\n"
    "    for i in range(64):\n"
    "        sh = qd.simt.block.SharedArray((1,), qd.f16)\n"
    "        sw = qd.simt.block.SharedArray((1,), qd.i16)\n"
    "        su = qd.simt.block.SharedArray((1,), qd.u16)\n"
    "        t = i % 32\n"
    "        if t == 0:\n"
    "            sh[0] = qd.f16(-1.5)\n"
    "            sw[0] = qd.i16(-300)\n"
    "            su[0] = qd.u16(65535)\n"
    "        qd.simt.block.sync()\n"
    "        h[i] = qd.cast(qd.atomic_exchange(sh[0], qd.f16(t) * qd.f16(0.25)), qd.f32)\n"
    "        w[i] = qd.cast(qd.atomic_exchange(sw[0], qd.i16(-t)), qd.i32)\n"
    "        u[i] = qd.cast(qd.atomic_exchange(su[0], qd.u16(t + 1000)), qd.i32)\n"
    "        qd.simt.block.sync()\n"
    "        if t == 0:\n"
    "            h[64 + i // 32] = qd.cast(sh[0], qd.f32)\n"
    "            w[64 + i // 32] = qd.cast(sw[0], qd.i32)\n"
    "            u[64 + i // 32] = qd.cast(su[0], qd.i32)\n";

/* want[k] for k < 32 is operand k; want[32] the initial value. Each value of got[] (33 values:
 * the group's 32 olds and the final) must match a distinct want. */
static bool same_multiset(const double *got, const double *want) {
    bool used[33] = {0};
    for (int i = 0; i < 33; i++) {
        int k = 0;
        while (k < 33 && (used[k] || want[k] != got[i])) k++;
        if (k == 33) return false;
        used[k] = true;
    }
    return true;
}

Test(exec_vulkan, x16_shared_exchange, .timeout = 300) {
    char *dir = make_temp_dir(), *qd = xasprintf("%s/x.qd", dir);
    cr_assert(write_text(qd, x16_shared_kernel));
    double wh[33], ww[33], wu[33];
    for (int t = 0; t < 32; t++) wh[t] = t * 0.25, ww[t] = -t, wu[t] = t + 1000;
    wh[32] = -1.5, ww[32] = -300, wu[32] = 65535;
    for (size_t f = 0; f < ARRAY_LEN(families); f++) {
        char *stem = xasprintf("x-%s", families[f]), *meta = NULL;
        char *spv = compile(dir, qd, stem, families[f], false, &meta);
        float h[66];
        int32_t w[66], u[66];
        VkArray arr[3] = {{h, sizeof h, 66}, {w, sizeof w, 66}, {u, sizeof u, 66}};
        const char *kernels[] = {"k"};
        char *err = NULL;
        int rc = spv ? vk_run(dir, spv, meta, kernels, 1, arr, 3, NULL, 64, VK_FULL, true, &err) : -1;
        cr_expect(rc >= 0, "%s: %s", families[f], err ? err : "not compiled");
        for (int g = 0; rc > 0 && g < 2; g++) {
            double gh[33], gw[33], gu[33];
            for (int t = 0; t < 32; t++) gh[t] = h[g * 32 + t], gw[t] = w[g * 32 + t], gu[t] = u[g * 32 + t];
            gh[32] = h[64 + g], gw[32] = w[64 + g], gu[32] = u[64 + g];
            cr_expect(same_multiset(gh, wh), "%s group %d: f16 exchanges lost or invented a value", families[f], g);
            cr_expect(same_multiset(gw, ww), "%s group %d: i16 exchanges lost or invented a value", families[f], g);
            cr_expect(same_multiset(gu, wu), "%s group %d: u16 exchanges lost or invented a value", families[f], g);
        }
        free(err), free(stem), free(meta), free(spv);
    }
    free(qd);
    remove_tree(dir);
    free(dir);
}
