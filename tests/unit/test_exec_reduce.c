/* Atomic rewrites executed on Vulkan (issue 17; qdc-lang(7) "Atomic reductions"):
 * tests/kernels/rewrite_vk.qd compiled for vulkan1.1 and vulkan1.3 with lavapipe's capabilities
 * and the subgroup rewrites (+subgroup-arithmetic +subgroup-ballot: OpGroupNonUniform*Reduce,
 * Elect, ballot bit counts), and again with --atomic-rewrite=none; both run on lavapipe (8-lane
 * subgroups) on full grids and on 3 groups (long grid-stride loops: partials of many
 * iterations), and both must match the C reference: integer reductions exactly, the f32 sum
 * within 1e-5 of the sum of magnitudes (the sum of small integers exactly), compaction slots
 * distinct and dense (each selected element exactly once in out[0..count), nothing after).
 * Each compile is checked to be what it claims (the rewritten module has the subgroup
 * instructions, the other none), so a rewrite that silently vanished fails here. */
#include "../../support/util.h"
#include "harness.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SRC "tests/kernels/rewrite_vk.qd"

static uint32_t rng(uint32_t *s) { return *s = *s * 1664525u + 1013904223u; }

/* dir/<stem>.spv and its metadata; the spirv-asm checked for the rewrite's instructions. */
static char *compile(const char *dir, const char *family, bool rewrite, char **meta) {
    char *stem = xasprintf("%s/%s-%d", dir, family, rewrite), *spv = xasprintf("%s.spv", stem), *mf = xasprintf("%s.json", stem);
    char *tgt = xasprintf("--target=%s", family), *src = root_path(SRC);
    const char *mode = rewrite ? "--atomic-rewrite=all" : "--atomic-rewrite=none";
    const char *caps[] = {"--cap=+int64-atomics", "--cap=+float-atomic-add", "--cap=+subgroup-arithmetic", "--cap=+subgroup-ballot"};
    const char *emits[][3] = {{"--emit=spirv", spv, NULL}, {"--emit=metadata", mf, NULL}, {"--emit=spirv-asm", "-", NULL}};
    bool ok = true;
    for (int e = 0; e < 3 && ok; e++) {
        const char *argv[] = {src, tgt, mode, caps[0], caps[1], caps[2], caps[3], emits[e][0], "-o", emits[e][1], NULL};
        RunResult r = run_qdc_argv(argv, NULL, NULL);
        cr_expect_eq(r.status, 0, "qdc %s %s %s: %s", tgt, mode, emits[e][0], r.err);
        ok = r.status == 0;
        if (ok && e == 2) {
            int reduce = 0, elect = 0, bitcount = 0;
            for (const char *p = r.out; (p = strstr(p, "OpGroupNonUniform")); p++) {
                reduce += !strncmp(p, "OpGroupNonUniformIAdd %int %uint_3 Reduce", 41);
                elect += !strncmp(p, "OpGroupNonUniformElect", 22);
                bitcount += !strncmp(p, "OpGroupNonUniformBallotBitCount", 31);
            }
            /* ints: add, sub, the conditional count; 13 reductions and 2 aggregations elect */
            cr_expect_eq(reduce, rewrite ? 3 : 0, "%s %s: IAdd reductions", tgt, mode);
            cr_expect_eq(elect, rewrite ? 15 : 0, "%s %s: elections", tgt, mode);
            cr_expect_eq(bitcount, rewrite ? 4 : 0, "%s %s: ballot bit counts", tgt, mode);
        }
        run_free(&r);
    }
    *meta = ok ? read_text(mf, NULL) : NULL;
    free(stem), free(mf), free(tgt), free(src);
    if (!ok || !*meta) free(spv), spv = NULL;
    return spv;
}

static bool ran(int rc, char *err, const char *what) {
    cr_expect(rc >= 0, "%s: %s", what, err ? err : "");
    free(err);
    return rc > 0;
}

static void check_ints(const char *dir, const char *spv, const char *meta, const char *label, int n, VkGrid grid) {
    int32_t *a = xmalloc(sizeof *a * (size_t)n), out[8] = {0, 0, INT32_MAX, INT32_MIN, -1, 0, 0, 0};
    uint32_t u[2] = {UINT32_MAX, 0}, s = 12345u + (uint32_t)n;
    uint32_t ref[8] = {0, 0, (uint32_t)INT32_MAX, (uint32_t)INT32_MIN, UINT32_MAX, 0, 0, 0}, uref[2] = {UINT32_MAX, 0};
    for (int i = 0; i < n; i++) {
        a[i] = (int32_t)rng(&s);
        uint32_t x = (uint32_t)a[i];
        ref[0] += x, ref[1] -= (uint32_t)(a[i] >> 3);
        if (a[i] < (int32_t)ref[2]) ref[2] = x;
        if (a[i] > (int32_t)ref[3]) ref[3] = x;
        ref[4] &= x | 0x7F000000u, ref[5] |= x & 0x0F0Fu, ref[6] ^= x, ref[7] += x & 1;
        if (x < uref[0]) uref[0] = x;
        if (x > uref[1]) uref[1] = x;
    }
    VkArray arr[3] = {{a, sizeof *a * (size_t)n, n}, {out, sizeof out, 8}, {u, sizeof u, 2}};
    char *err;
    const char *k[] = {"ints"};
    int rc = vk_run(dir, spv, meta, k, 1, arr, 3, NULL, n, grid, false, &err);
    if (ran(rc, err, label)) {
        for (int i = 0; i < 8; i++) cr_expect_eq((uint32_t)out[i], ref[i], "%s ints n=%d out[%d]", label, n, i);
        for (int i = 0; i < 2; i++) cr_expect_eq(u[i], uref[i], "%s ints n=%d u[%d]", label, n, i);
    }
    free(a);
}

static void check_floats(const char *dir, const char *spv, const char *meta, const char *label, int n, VkGrid grid) {
    float *x = xmalloc(sizeof *x * (size_t)n), out[3] = {0, 0, 0};
    uint32_t s = 777u + (uint32_t)n;
    double sum = 0, mag = 0, ints = 0;
    for (int i = 0; i < n; i++) {
        x[i] = (float)((int32_t)(rng(&s) >> 8) - (1 << 23)) / (float)(1 << 21); /* [-4, 4) */
        sum += x[i], mag += fabs(x[i]), ints += floor((double)(x[i] * 8.0f));
    }
    VkArray arr[2] = {{x, sizeof *x * (size_t)n, n}, {out, sizeof out, 3}};
    char *err;
    const char *k[] = {"floats"};
    int rc = vk_run(dir, spv, meta, k, 1, arr, 2, NULL, n, grid, false, &err);
    if (ran(rc, err, label)) {
        double bound = 1e-5 * mag + 1e-6;
        cr_expect(fabs(out[0] - sum) <= bound, "%s floats n=%d: sum %.9g, exact %.9g", label, n, out[0], sum);
        cr_expect(out[1] == (float)ints, "%s floats n=%d: integer sum %.9g, exact %.9g", label, n, out[1], ints);
        cr_expect(fabs(out[2] + sum) <= bound, "%s floats n=%d: negated sum %.9g, exact %.9g", label, n, out[2], -sum);
    }
    free(x);
}

/* out[0..count) is exactly {i + 1 : selected(i)}, each once; out[count..n) untouched (0). */
static void dense(const int32_t *out, int n, int count, const int32_t *a, int kind, const char *label) {
    char *seen = xcalloc((size_t)n + 2, 1);
    int want = 0, bad = 0;
    for (int i = 0; i < n; i++) want += kind ? a[i] % 3 == 0 : a[i] > 0;
    cr_expect_eq(count, want, "%s: %s count", label, kind ? "down" : "compaction");
    for (int j = 0; j < n && !bad; j++) {
        int v = out[j];
        if (j >= count) bad = v != 0 ? j + 1 : 0;
        else if (v < 1 || v > n || seen[v] || !(kind ? a[v - 1] % 3 == 0 : a[v - 1] > 0)) bad = j + 1;
        else seen[v] = 1;
    }
    cr_expect_eq(bad, 0, "%s: %s slot %d holds %d", label, kind ? "down" : "compaction", bad - 1, bad ? out[bad - 1] : 0);
    free(seen);
}

static void check_slots(const char *dir, const char *spv, const char *meta, const char *label, int n, VkGrid grid) {
    int32_t *a = xmalloc(sizeof *a * (size_t)n), *out = xcalloc((size_t)n, sizeof *out), *down = xcalloc((size_t)n, sizeof *down), cnt[2] = {0, 0};
    uint32_t s = 99u + (uint32_t)n;
    for (int i = 0; i < n; i++) a[i] = (int32_t)(rng(&s) >> 16) % 7 - 3;
    VkArray arr[4] = {{a, sizeof *a * (size_t)n, n}, {out, sizeof *out * (size_t)n, n}, {down, sizeof *down * (size_t)n, n}, {cnt, sizeof cnt, 2}};
    char *err, *l = xasprintf("%s slots n=%d", label, n);
    const char *k[] = {"slots"};
    int rc = vk_run(dir, spv, meta, k, 1, arr, 4, NULL, n, grid, false, &err);
    if (ran(rc, err, label)) {
        dense(out, n, cnt[0], a, 0, l);
        cr_expect_eq(cnt[1] % 3, 0, "%s: down counter %d", l, cnt[1]);
        dense(down, n, -cnt[1] / 3, a, 1, l);
    }
    free(l), free(a), free(out), free(down);
}

static void family(const char *fam) {
    static const int sizes[] = {1, 37, 1000, 100003};
    char *dir = make_temp_dir();
    for (int rw = 1; rw >= 0; rw--) {
        char *meta = NULL, *spv = compile(dir, fam, rw, &meta), *label = xasprintf("%s %s", fam, rw ? "rewritten" : "none");
        for (size_t i = 0; spv && i < ARRAY_LEN(sizes); i++)
            for (int g = 0; g < 2; g++) {
                VkGrid grid = g ? VK_FEW : VK_FULL;
                char *l = xasprintf("%s %s", label, g ? "3 groups" : "full grid");
                check_ints(dir, spv, meta, l, sizes[i], grid);
                check_floats(dir, spv, meta, l, sizes[i], grid);
                check_slots(dir, spv, meta, l, sizes[i], grid);
                free(l);
            }
        free(meta), free(spv), free(label);
    }
    remove_tree(dir);
    free(dir);
}

Test(exec_reduce, vulkan1_1, .timeout = 300) { family("vulkan1.1"); }
Test(exec_reduce, vulkan1_3, .timeout = 300) { family("vulkan1.3"); }
