/* qd.simt.block.SharedArray with vector and matrix elements (issue 15) beyond the CPU run
 * (x86_kernels/shared_vec): tests/kernels/shared_vec.qd runs on the Vulkan device with the same
 * exact check, every family compiles it (PTX through ptxas, AMDGPU code objects, SPIR-V
 * validated in process, MSL), the component axes count in the per-family shared-memory limit,
 * and what is refused is a located error. */
#include "../../support/util.h"
#include "../kernels/shared_vec_check.h"
#include "harness.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTXAS "/usr/local/cuda/bin/ptxas"

static char *compile_to(const char *dir, const char *src, const char *family, const char *emit, const char *ext) {
    char *out = xasprintf("%s/k.%s%s", dir, family, ext), *tgt = xasprintf("--target=%s", family);
    RunResult r = run_qdc(tgt, emit ? emit : "-O2", src, "-o", out, NULL);
    cr_expect_eq(r.status, 0, "%s: %s", family, r.err);
    bool ok = r.status == 0 && file_exists(out);
    run_free(&r);
    free(tgt);
    if (!ok) free(out), out = NULL;
    return out;
}

Test(shared_vec, runs_on_vulkan, .timeout = 300) {
    char *dir = make_temp_dir(), *src = root_path("tests/kernels/shared_vec.qd");
    char *spv = compile_to(dir, src, "vulkan1.2", NULL, ".spv"), *mf = compile_to(dir, src, "vulkan1.2", "--emit=metadata", ".json");
    char *meta = mf ? read_text(mf, NULL) : NULL;
    cr_assert(spv && meta);
    enum { N = 2048 };
    int32_t *a = xcalloc(N, sizeof *a), *out = xcalloc((size_t)N * NC, sizeof *out);
    uint32_t x = 2463534242u;
    for (int i = 0; i < N; i++) x ^= x << 13, x ^= x >> 17, x ^= x << 5, a[i] = (int32_t)(x % 2001) - 1000;
    VkArray arr[2] = {{a, N * sizeof *a, N}, {out, (size_t)N * NC * sizeof *out, N * NC}};
    const char *kernels[] = {"svec"};
    char *err = NULL;
    int rc = vk_run(dir, spv, meta, kernels, 1, arr, 2, NULL, N, VK_FULL, true, &err);
    cr_expect(rc >= 0, "vkrun: %s", err);
    if (rc > 0) cr_expect_eq(shared_vec_check(a, out, N), 0, "SharedArray of vectors on Vulkan: wrong values (stderr)");
    free(err), free(a), free(out), free(meta), free(mf), free(spv), free(src);
    remove_tree(dir);
    free(dir);
}

/* Each family lays a vec4 element out as 4 consecutive f32 (the declared shared block is
 * elements x components x 4 bytes) and compiles the whole kernel. */
Test(shared_vec, every_family_compiles, .timeout = 180) {
    char *dir = make_temp_dir(), *src = root_path("tests/kernels/shared_vec.qd");
    static const char *const ptx[] = {"sm_60", "sm_90"};
    for (size_t i = 0; i < ARRAY_LEN(ptx); i++) {
        char *p = compile_to(dir, src, ptx[i], NULL, ".ptx");
        char *text = p ? read_text(p, NULL) : NULL;
        cr_expect(text && strstr(text, ".shared .align 16 .b8 svec_t0__sh[512];"), "%s: vec4[32] is not 512 bytes", ptx[i]);
        cr_expect(text && strstr(text, ".shared .align 16 .b8 svec_t0__mt[128];"), "%s: mat2[8] of i32 is not 128 bytes", ptx[i]);
        cr_expect(text && strstr(text, ".shared .align 16 .b8 svec_t0__grid[384];"), "%s: ivec3[4, 8] is not 384 bytes", ptx[i]);
        if (p && tool_available(PTXAS)) {
            char *cubin = xasprintf("%s.cubin", p), *arch = xasprintf("-arch=%s", !strcmp(ptx[i], "sm_90") ? "sm_90" : "sm_75");
            RunResult r = run_argv((const char *[]){PTXAS, arch, p, "-o", cubin, NULL}, NULL, NULL);
            cr_expect_eq(r.status, 0, "ptxas rejects %s: %s", ptx[i], r.err);
            run_free(&r);
            free(cubin), free(arch);
        }
        free(text), free(p);
    }
    static const char *const amd[] = {"gfx942", "gfx1100"};
    for (size_t i = 0; i < ARRAY_LEN(amd); i++) {
        char *co = compile_to(dir, src, amd[i], NULL, ".hsaco");
        size_t n = 0;
        char *bytes = co ? read_text(co, &n) : NULL;
        cr_expect(bytes && n > 4 && !memcmp(bytes, "\177ELF", 4), "%s: the code object is not an ELF file", amd[i]);
        free(bytes), free(co);
    }
    char *spv = compile_to(dir, src, "vulkan1.1", NULL, ".spv"); /* spirv-val runs inside qdc */
    free(spv);
    char *metal = compile_to(dir, src, "apple7", NULL, ".metal");
    char *text = metal ? read_text(metal, NULL) : NULL;
    cr_expect(text && strstr(text, "threadgroup uint sh[128];"), "apple7: vec4[32] is not 128 words");
    cr_expect(text && strstr(text, "threadgroup int grid[96];"), "apple7: ivec3[4, 8] is not 96 words");
    free(text), free(metal);
    remove_tree(dir);
    free(dir), free(src);
}

static RunResult compile_body(const char *dir, const char *body, const char *target) {
    char *src = xasprintf("%s/e.qd", dir), *out = xasprintf("%s/e.out", dir);
    char *text = xasprintf("import quadrants as qd\n\nvec4 = qd.types.vector(4, qd.f32)\n\n@qd.kernel\n"
                           "def k(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n    for i in range(a.shape[0]):\n%s", body);
    cr_assert(write_text(src, text));
    char *tgt = xasprintf("--target=%s", target);
    RunResult r = run_qdc(tgt, src, "-o", out, NULL);
    free(src), free(out), free(text), free(tgt);
    return r;
}

/* body over apple7's 32 KiB: QD4006 at line:col naming `bytes`, exit 1, no output file. */
static void expect_over_apple7(const char *dir, const char *body, const char *at, long bytes) {
    char *out = xasprintf("%s/e.out", dir);
    RunResult r = compile_body(dir, body, "apple7");
    char *want = xasprintf("%s/e.qd:%s: error[QD4006]: task 'k_t0' needs %ld bytes of shared memory; apple7 allows 32768 "
                           "(max_shared_bytes)\n", dir, at, bytes);
    cr_expect_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    cr_expect(!strncmp(r.err, want, strlen(want)), "want\n%sgot\n%s", want, r.err);
    cr_expect(!file_exists(out), "an output file after an error");
    run_free(&r);
    free(out), free(want);
}

/* apple7 allows 32 KiB of threadgroup memory: 2048 vec4 of f32 fill it exactly, 2049 do not
 * (the error counts every component). */
Test(shared_vec, components_count_in_the_shared_limit, .timeout = 60) {
    char *dir = make_temp_dir(), *out = xasprintf("%s/e.out", dir);
    RunResult r = compile_body(dir, "        sh = qd.simt.block.SharedArray((2048,), vec4)\n        sh[i % 2048].y = a[i]\n", "apple7");
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    remove(out);
    expect_over_apple7(dir, "        sh = qd.simt.block.SharedArray((2049,), vec4)\n        sh[i % 2049].y = a[i]\n", "8:14", 32784);
    remove_tree(dir);
    free(dir), free(out);
}

/* The limit counts the layout every backend and the metadata use (ir_task_shared_bytes): each
 * SharedArray starts on a 16-byte boundary. One u8 and 8188 i32 fill apple7's 32 KiB exactly
 * (16 + 32752), and the metadata (here x86_64's) says so; with 8189 i32 the raw bytes (32757) would fit, the
 * laid-out 32772 do not. */
Test(shared_vec, the_limit_counts_the_laid_out_bytes, .timeout = 60) {
    char *dir = make_temp_dir(), *out = xasprintf("%s/e.out", dir), *meta = xasprintf("%s/e.json", dir);
    static const char fits[] = "        b = qd.simt.block.SharedArray((1,), qd.u8)\n        w = qd.simt.block.SharedArray((8188,), qd.i32)\n"
                               "        b[0] = qd.u8(1)\n        w[i % 8188] = qd.i32(a[i]) + qd.i32(b[0])\n";
    RunResult r = compile_body(dir, fits, "apple7");
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *src = xasprintf("%s/e.qd", dir);
    r = run_qdc("--target=x86_64", "--emit=metadata", src, "-o", meta, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char *json = read_text(meta, NULL);
    cr_expect(json && strstr(json, "\"shared_bytes\": 32768"), "metadata:\n%s", json ? json : "(none)");
    free(json), run_free(&r), remove(out);
    static const char over[] = "        b = qd.simt.block.SharedArray((1,), qd.u8)\n        w = qd.simt.block.SharedArray((8189,), qd.i32)\n"
                               "        b[0] = qd.u8(1)\n        w[i % 8189] = qd.i32(a[i]) + qd.i32(b[0])\n";
    expect_over_apple7(dir, over, "9:13", 32772);
    remove_tree(dir);
    free(dir), free(out), free(meta), free(src);
}

static void expect_error(const char *body, int line, int col, const char *msg) {
    char *dir = make_temp_dir(), *out = xasprintf("%s/e.out", dir);
    RunResult r = compile_body(dir, body, "x86_64");
    char *want = xasprintf("%s/e.qd:%d:%d: %s\n", dir, line, col, msg);
    cr_expect_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    cr_expect(!strncmp(r.err, want, strlen(want)), "want\n%sgot\n%s", want, r.err);
    cr_expect(!file_exists(out), "an output file after an error");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(out), free(want);
}

Test(shared_vec, refused) {
    /* the element's axes need their own indices: sh[i] is the vector, sh[i, 0] is not Quadrants */
    expect_error("        sh = qd.simt.block.SharedArray((8,), vec4)\n        sh[i % 8, 0] = a[i]\n", 9, 11,
                 "error[QD2011]: 'sh' has 1 dimension but 2 indexes were given");
    expect_error("        sh = qd.simt.block.SharedArray((8,), vec4)\n        sh[i % 8][4] = a[i]\n", 9, 19,
                 "error[QD2042]: index 4 is out of range for a 4-vector");
    expect_error("        sh = qd.simt.block.SharedArray((2, 2, 2, 2, 2, 2, 2), qd.types.matrix(2, 2, qd.f32))\n", 8, 14,
                 "error[QD2018]: a SharedArray of matrices has at most 6 dimensions and 16777216 scalar components");
    expect_error("        sh = qd.simt.block.SharedArray((8,), qd.types.struct(x=qd.f32))\n", 8, 46,
                 "error[QD2005]: expected a scalar type such as qd.i32 or qd.f32, got a struct type");
}
