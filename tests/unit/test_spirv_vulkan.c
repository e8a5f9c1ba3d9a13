/* Runs examples' SPIR-V through Vulkan compute (tools/vulkan-runner/vkrun) and checks the same
 * results as the x86 tests. Skipped with a notice when libvulkan-dev, a C compiler or a Vulkan
 * device is missing (vkrun exits 77). Buffers and push constants follow man/qdc-spirv.7. */
#include "../../support/util.h"
#include "harness.h"
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *vkrun_path(const char *dir) {
    const char *env = getenv("QDC_VKRUN");
    if (env) return xstrdup(env);
    char *src = root_path("tools/vulkan-runner/vkrun.c"), *out = xasprintf("%s/vkrun", dir);
    RunResult r = run_argv((const char *[]){"cc", "-std=c17", "-O1", "-o", out, src, "-lvulkan", NULL}, NULL, NULL);
    bool ok = r.status == 0;
    if (!ok) fprintf(stderr, "test_spirv_vulkan: cannot build vkrun (libvulkan-dev missing?); skipping\n");
    run_free(&r);
    free(src);
    if (!ok) free(out);
    return ok ? out : NULL;
}

static bool write_bytes(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, n, f) == n;
    if (f) fclose(f);
    return ok;
}

static bool read_bytes(const char *path, void *data, size_t n) {
    FILE *f = fopen(path, "rb");
    bool ok = f && fread(data, 1, n, f) == n;
    if (f) fclose(f);
    return ok;
}

/* Compiles examples/<name>.qd for vulkan1.1; NULL (skip) when the pipeline is not ready. */
static char *compile_example(const char *dir, const char *name) {
    char *in = xasprintf("examples/%s.qd", name), *inp = root_path(in), *out = xasprintf("%s/%s.spv", dir, name);
    RunResult r = run_qdc(inp, "--target=vulkan1.1", "-o", out, NULL);
    cr_expect_eq(r.status, 0, "%s: %s", name, r.err);
    bool ok = r.status == 0;
    run_free(&r);
    free(in), free(inp);
    if (!ok) free(out);
    return ok ? out : NULL;
}

/* Returns false (skip) on exit 77. */
static bool run_vk(const char *const *argv) {
    RunResult r = run_argv(argv, NULL, NULL);
    int status = r.status;
    if (status == 77) fprintf(stderr, "test_spirv_vulkan: %s", r.out);
    else cr_expect_eq(status, 0, "vkrun: %s%s", r.out, r.err);
    run_free(&r);
    return status == 0;
}

Test(spirv_vulkan, histogram_on_a_gpu) {
    char *dir = make_temp_dir(), *vk = vkrun_path(dir), *spv = vk ? compile_example(dir, "histogram") : NULL;
    enum { N = 5000 };
    static int32_t data[N], bins[256], want[256];
    for (int i = 0; i < N; i++) data[i] = i * 7 - 1234, want[data[i] & 255]++;
    memset(bins, 0xAB, sizeof bins);
    int32_t push[2] = {N, 256};
    char *fd = xasprintf("%s/data", dir), *fb = xasprintf("%s/bins", dir), *fp = xasprintf("%s/push", dir);
    char *bd = xasprintf("0,0,%s", fd), *bb = xasprintf("0,1,%s", fb);
    if (spv && write_bytes(fd, data, sizeof data) && write_bytes(fb, bins, sizeof bins) && write_bytes(fp, push, sizeof push) &&
        run_vk((const char *[]){vk, spv, "--buffer", bd, "--buffer", bb, "--push", fp, "histogram_t0:2",
                                "histogram_t1:40", NULL})) {
        cr_assert(read_bytes(fb, bins, sizeof bins));
        for (int b = 0; b < 256; b++) cr_expect_eq(bins[b], want[b], "bin %d", b);
    }
    remove_tree(dir);
    free(dir), free(vk), free(spv), free(fd), free(fb), free(fp), free(bd), free(bb);
}

Test(spirv_vulkan, float_sum_cas_loop_on_a_gpu) {
    char *dir = make_temp_dir(), *vk = vkrun_path(dir), *spv = vk ? compile_example(dir, "float_sum") : NULL;
    enum { N = 4096 };
    static float x[N];
    float out[2] = {-1, -1}, s = 0, s2 = 0;
    for (int i = 0; i < N; i++) x[i] = (float)((i % 33) - 16) * 0.25f, s += x[i], s2 += x[i] * x[i];
    int32_t push[2] = {N, 2};
    char *fx = xasprintf("%s/x", dir), *fo = xasprintf("%s/out", dir), *fp = xasprintf("%s/push", dir);
    char *bx = xasprintf("0,0,%s", fx), *bo = xasprintf("0,1,%s", fo);
    if (spv && write_bytes(fx, x, sizeof x) && write_bytes(fo, out, sizeof out) && write_bytes(fp, push, sizeof push) &&
        run_vk((const char *[]){vk, spv, "--buffer", bx, "--buffer", bo, "--push", fp, "float_sum_t0:1",
                                "float_sum_t1:32", NULL})) {
        cr_assert(read_bytes(fo, out, sizeof out));
        cr_expect_eq(out[0], s);
        cr_expect_eq(out[1], s2);
    }
    remove_tree(dir);
    free(dir), free(vk), free(spv), free(fx), free(fo), free(fp), free(bx), free(bo);
}
