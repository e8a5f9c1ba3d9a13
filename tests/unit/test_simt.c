/* SIMT collectives (issue 16) beyond the CPU run (x86_kernels/simt): the same collectives run on
 * the Vulkan device (lavapipe: 8-lane subgroups) against a model built from each lane's reported
 * id and subgroup size; every family compiles them (PTX through ptxas, AMDGPU code objects, the
 * SPIR-V validated in process, MSL through SPIRV-Cross) with the instructions the database names;
 * and the exact diagnostics of what is refused. */
#include "../../support/util.h"
#include "harness.h"
#include "vk_exec.h"
#include "../kernels/simt_reductions_check.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTXAS "/usr/local/cuda/bin/ptxas"
#define SPIRV_DIS "spirv-dis"

/* The collectives of tests/kernels/simt.qd without the qd.simt.warp.* lines (64-lane families
 * refuse those): every family compiles this. */
static const char *const portable =
    "import quadrants as qd\n\n"
    "@qd.kernel\n"
    "def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1), f: qd.types.ndarray(dtype=qd.f32, ndim=1),\n"
    "      d: qd.types.ndarray(dtype=qd.i64, ndim=1)):\n"
    "    for i in range(a.shape[0]):\n"
    "        v = a[i]\n"
    "        lane = qd.simt.subgroup.invocation_id()\n"
    "        a[i] = (qd.simt.subgroup.reduce_add(v) + qd.simt.subgroup.inclusive_add(v) + qd.simt.subgroup.exclusive_max(v)\n"
    "                + qd.simt.subgroup.shuffle(v, qd.u32(lane ^ 1)) + qd.simt.subgroup.shuffle_down(v, qd.u32(3))\n"
    "                + qd.simt.subgroup.shuffle_up(v, qd.u32(1)) + qd.simt.subgroup.reduce_add_tiled(v, 3)\n"
    "                + qd.i32(qd.simt.subgroup.ballot(v > 0)) + qd.simt.subgroup.all_true(v) + qd.simt.subgroup.any_true(v)\n"
    "                + qd.simt.subgroup.exclusive_xor(v) + qd.simt.subgroup.inclusive_min(v) + qd.simt.subgroup.reduce_max(v)\n"
    "                + qd.simt.subgroup.broadcast(v, qd.u32(0)) + qd.simt.subgroup.group_size())\n"
    "        qd.simt.subgroup.sync()\n"
    "        f[i] = qd.simt.subgroup.reduce_add(f[i]) + qd.simt.subgroup.exclusive_add(f[i]) + qd.simt.subgroup.inclusive_max(f[i])\n"
    "        d[i] = qd.simt.subgroup.inclusive_add(d[i]) + qd.simt.subgroup.shuffle(d[i], qd.u32(2))\n";

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

static void expect_in(const char *text, const char *what, const char *family) {
    cr_expect(text && strstr(text, what), "%s: no '%s' in the output", family, what);
}

Test(simt, ptx_native_forms_and_ptxas, .timeout = 120) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/k.qd", dir);
    cr_assert(write_text(src, portable));
    static const char *const fams[] = {"sm_60", "sm_70", "sm_80", "sm_90"};
    for (size_t i = 0; i < ARRAY_LEN(fams); i++) {
        char *ptx = compile_to(dir, src, fams[i], NULL, ".ptx");
        if (!ptx) continue;
        char *text = read_text(ptx, NULL);
        expect_in(text, "shfl.sync.idx.b32", fams[i]);
        expect_in(text, "shfl.sync.up.b32", fams[i]);
        expect_in(text, "shfl.sync.down.b32", fams[i]);
        expect_in(text, "vote.sync.ballot.b32", fams[i]);
        expect_in(text, "vote.sync.all.pred", fams[i]);
        expect_in(text, "bar.warp.sync", fams[i]);
        bool redux = strcmp(fams[i], "sm_80") >= 0; /* simt.reduce: redux.sync from sm_80.yaml on */
        cr_expect_eq(strstr(text, "redux.sync.add.s32") != NULL, redux, "%s: redux.sync %s", fams[i], redux ? "missing" : "below sm_80");
        if (redux) expect_in(text, "redux.sync.max.s32", fams[i]);
        if (tool_available(PTXAS)) {
            char *cubin = xasprintf("%s.cubin", ptx), *arch = xasprintf("-arch=%s", redux ? fams[i] : "sm_75");
            RunResult p = run_argv((const char *[]){PTXAS, arch, ptx, "-o", cubin, NULL}, NULL, NULL);
            cr_expect_eq(p.status, 0, "ptxas rejects %s: %s", fams[i], p.err);
            run_free(&p);
            free(cubin), free(arch);
        } else {
            printf("simt: SKIP ptxas (not installed)\n");
        }
        free(text), free(ptx);
    }
    remove_tree(dir);
    free(dir), free(src);
}

/* warp.match_any / match_all: match.{any,all}.sync.b32 where simt.match is "match.sync" (sm_70.yaml
 * on), 32 shfl.sync.idx + a ballot below; ptxas accepts both. */
Test(simt, warp_match_sync_from_sm_70, .timeout = 120) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/m.qd", dir);
    cr_assert(write_text(src, "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                              "    for i in range(a.shape[0]):\n"
                              "        a[i] = qd.simt.warp.match_any(qd.u32(0xFFFFFFFF), a[i]) + "
                              "qd.simt.warp.match_all(qd.u32(0xFFFFFFFF), a[i] & 1)\n"));
    static const char *const fams[] = {"sm_60", "sm_70", "sm_90"};
    for (size_t i = 0; i < ARRAY_LEN(fams); i++) {
        char *ptx = compile_to(dir, src, fams[i], NULL, ".ptx");
        if (!ptx) continue;
        char *text = read_text(ptx, NULL);
        bool native = strcmp(fams[i], "sm_70") >= 0;
        cr_expect_eq(strstr(text, "match.any.sync.b32") != NULL, native, "%s: match.any.sync", fams[i]);
        cr_expect_eq(strstr(text, "match.all.sync.b32") != NULL, native, "%s: match.all.sync", fams[i]);
        int shfl = 0;
        for (const char *p = text; (p = strstr(p, "shfl.sync.idx.b32")); p++) shfl++;
        cr_expect_eq(shfl, native ? 0 : 64, "%s: %d shfl.sync.idx", fams[i], shfl);
        if (tool_available(PTXAS)) {
            char *cubin = xasprintf("%s.cubin", ptx), *arch = xasprintf("-arch=%s", strcmp(fams[i], "sm_80") >= 0 ? fams[i] : "sm_75");
            RunResult p = run_argv((const char *[]){PTXAS, arch, ptx, "-o", cubin, NULL}, NULL, NULL);
            cr_expect_eq(p.status, 0, "ptxas rejects %s: %s", fams[i], p.err);
            run_free(&p);
            free(cubin), free(arch);
        }
        free(text), free(ptx);
    }
    remove_tree(dir);
    free(dir), free(src);
}

/* wave64 on every AMDGPU family by default, as Quadrants pins it (mbcnt lo + hi for the lane id);
 * RDNA (simt.wave32 in gfx1030.yaml) compiles for wave32 with --cap=+wave32 (mbcnt lo only, the
 * kernel descriptor says wave32, the metadata says 32); gfx9 has no wave32. */
Test(simt, amdgpu_wave_sizes, .timeout = 120) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/k.qd", dir);
    cr_assert(write_text(src, portable));
    static const char *const fams[] = {"gfx906", "gfx942", "gfx1030", "gfx1100", "gfx1200"};
    for (size_t i = 0; i < ARRAY_LEN(fams); i++) {
        char *s = compile_to(dir, src, fams[i], "--emit=asm", ".s"), *co = compile_to(dir, src, fams[i], NULL, ".hsaco");
        char *text = s ? read_text(s, NULL) : NULL;
        bool rdna = strncmp(fams[i], "gfx9", 4) != 0;
        expect_in(text, "ds_bpermute_b32", fams[i]);
        expect_in(text, "v_mbcnt_lo_u32_b32", fams[i]);
        expect_in(text, "v_mbcnt_hi_u32_b32", fams[i]);
        if (rdna) expect_in(text, ".amdhsa_wavefront_size32 0", fams[i]);
        char *tgt = xasprintf("--target=%s", fams[i]), *s32 = xasprintf("%s/k.%s.w32.s", dir, fams[i]);
        char *m32 = xasprintf("%s/k.%s.w32.json", dir, fams[i]);
        RunResult r = run_qdc(tgt, "--cap=+wave32", "--emit=asm", src, "-o", s32, NULL);
        if (rdna) {
            cr_expect_eq(r.status, 0, "%s --cap=+wave32: %s", fams[i], r.err);
            char *t32 = read_text(s32, NULL);
            expect_in(t32, "v_mbcnt_lo_u32_b32", fams[i]);
            expect_in(t32, ".amdhsa_wavefront_size32 1", fams[i]);
            cr_expect(t32 && !strstr(t32, "v_mbcnt_hi_u32_b32"), "%s: lane id of a wave32 uses mbcnt_hi", fams[i]);
            free(t32);
            RunResult m = run_qdc(tgt, "--cap=+wave32", "--emit=metadata", src, "-o", m32, NULL);
            char *mt = read_text(m32, NULL);
            cr_expect(m.status == 0 && mt && strstr(mt, "\"subgroup_width\": 32,"), "%s: metadata %s", fams[i], mt ? mt : m.err);
            run_free(&m), free(mt);
        } else { /* gfx9 declares no wave32 capability */
            cr_expect_eq(r.status, 2, "%s --cap=+wave32: exit %d", fams[i], r.status);
            char *want = xasprintf("qdc: error[QD3010]: unknown capability '+wave32' for target '%s' (", fams[i]);
            cr_expect(!strncmp(r.err, want, strlen(want)), "%s", r.err);
            free(want);
            cr_expect(!file_exists(s32), "%s: an output file after an error", fams[i]);
        }
        run_free(&r);
        free(tgt), free(s32), free(m32);
        if (co) {
            size_t n;
            char *bytes = read_text(co, &n);
            cr_expect(bytes && n > 4 && !memcmp(bytes, "\177ELF", 4), "%s: the code object is not an ELF file", fams[i]);
            free(bytes);
        }
        free(text), free(s), free(co);
    }
    remove_tree(dir);
    free(dir), free(src);
}

/* Width-free SPIR-V: the builtins and OpGroupNonUniform* with their capabilities (the module is
 * validated by spirv-val inside qdc); MSL through SPIRV-Cross as simd_* functions. */
Test(simt, spirv_and_msl_forms, .timeout = 120) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/k.qd", dir);
    cr_assert(write_text(src, portable));
    char *spv = compile_to(dir, src, "vulkan1.1", NULL, ".spv");
    if (spv && tool_available(SPIRV_DIS)) {
        RunResult d = run_argv((const char *[]){SPIRV_DIS, spv, NULL}, NULL, NULL);
        cr_expect_eq(d.status, 0, "%s", d.err);
        static const char *const want[] = {
            "OpCapability GroupNonUniform\n", "OpCapability GroupNonUniformShuffle\n", "OpCapability GroupNonUniformShuffleRelative\n",
            "OpCapability GroupNonUniformBallot\n", "OpCapability GroupNonUniformVote\n", "OpCapability GroupNonUniformArithmetic\n",
            "BuiltIn SubgroupLocalInvocationId", "BuiltIn SubgroupSize", "OpGroupNonUniformIAdd %", "Reduce",
            "InclusiveScan", "ExclusiveScan", "OpGroupNonUniformSMax", "OpGroupNonUniformFAdd", "OpGroupNonUniformShuffleUp",
            "OpGroupNonUniformShuffleDown", "OpGroupNonUniformBallot", "OpGroupNonUniformAll", "OpGroupNonUniformBroadcast",
            "OpControlBarrier %uint_3 %uint_3",
        };
        for (size_t i = 0; i < ARRAY_LEN(want); i++) expect_in(d.out, want[i], "vulkan1.1");
        run_free(&d);
    }
    static const char *const apple[] = {"apple7", "apple9"};
    for (size_t i = 0; i < ARRAY_LEN(apple); i++) {
        char *metal = compile_to(dir, src, apple[i], NULL, ".metal");
        char *text = metal ? read_text(metal, NULL) : NULL;
        static const char *const want[] = {"simd_sum", "simd_prefix_inclusive_sum", "simd_prefix_exclusive_sum", "simd_max",
                                           "simd_shuffle_up", "simd_shuffle_down", "simd_ballot", "simd_all", "simd_broadcast"};
        for (size_t k = 0; k < ARRAY_LEN(want); k++) expect_in(text, want[k], apple[i]);
        free(text), free(metal);
    }
    remove_tree(dir);
    free(dir), free(src), free(spv);
}

/* ---- the Vulkan run ---- */

enum { NC = 18 };

static int32_t at(const int32_t *v, int n, int me, int src) { return src >= 0 && src < n ? v[src] : v[me]; }

static bool check_lane(const int32_t *a, const int32_t *out, int i, char *why, size_t wn) {
    const int32_t *o = out + (size_t)i * NC;
    int me = o[0], w = o[1];
    if (w < 1 || w > 128 || (w & (w - 1)) || me < 0 || me >= w || 64 % w)
        return snprintf(why, wn, "lane %d: id %d of a subgroup of %d", i, me, w), false;
    const int32_t *v = a + (i - me);
    int32_t sum = 0, inc = 0, exmax = INT32_MIN, mn = INT32_MAX, exxor = 0, mul = 1, allp = 1, anyp = 0;
    uint32_t ballot = 0;
    for (int l = 0; l < w; l++) {
        sum += v[l], mn = v[l] < mn ? v[l] : mn, allp &= v[l] > -900, anyp |= v[l] > 990;
        if (v[l] > 0 && l < 32) ballot |= 1u << l;
        if (l <= me) inc += v[l], mul = (int32_t)((uint32_t)mul * (uint32_t)(v[l] & 3));
        if (l < me) exmax = v[l] > exmax ? v[l] : exmax, exxor ^= v[l];
    }
    int32_t t4[128], t8[128]; /* reduce_add_tiled(v, 2) and inclusive_min_tiled(v, 3), as composed */
    for (int l = 0; l < w; l++) t4[l] = v[l], t8[l] = v[l];
    for (int s = 0; s < 2; s++) {
        int off = 1 << (1 - s);
        int32_t nx[128];
        for (int l = 0; l < w; l++) nx[l] = t4[l] + (l + off < w ? t4[l + off] : t4[l]);
        memcpy(t4, nx, sizeof(int32_t) * (size_t)w);
    }
    for (int s = 0; s < 3; s++) {
        int off = 1 << s;
        int32_t nx[128];
        for (int l = 0; l < w; l++) {
            int32_t p = l - off >= 0 ? t8[l - off] : t8[l];
            nx[l] = (l & 7) >= off ? (p < t8[l] ? p : t8[l]) : t8[l];
        }
        memcpy(t8, nx, sizeof(int32_t) * (size_t)w);
    }
    int32_t seg[2]; /* segmented_reduce_add_tiled(v, v&7==0, 3), segmented_reduce_min_tiled(v, v&3==0, 2) */
    for (int s = 0; s < 2; s++) {
        int g = s ? 4 : 8, h = me & ~(g - 1);
        for (int l = h; l <= me; l++)
            if ((v[l] & (s ? 3 : 7)) == 0) h = l;
        seg[s] = v[h];
        for (int l = h + 1; l <= me; l++) seg[s] = s ? (v[l] < seg[s] ? v[l] : seg[s]) : seg[s] + v[l];
    }
    int32_t want[NC] = {me, w, sum, inc, exmax, at(v, w, me, me ^ 1), at(v, w, me, me + 1), at(v, w, me, me - 2),
                        (int32_t)ballot, allp * 2 + anyp, at(v, w, me, 2) + (me == 0) * 1000000, mn, exxor, mul, t4[me], t8[me],
                        seg[0], seg[1]};
    for (int k = 2; k < NC; k++) {
        if ((k == 10 && w <= 2) || (k == 16 && w < 8) || (k == 15 && w < 8)) continue; /* groups wider than the subgroup */
        if (o[k] != want[k]) return snprintf(why, wn, "lane %d (id %d of %d), column %d: got %d, want %d", i, me, w, k, o[k], want[k]), false;
    }
    return true;
}

static bool check_block(const int32_t *a, const int32_t *out, int i, char *why, size_t wn) {
    int b0 = i / 64 * 64;
    int32_t sum = 0, mn = INT32_MAX, inc = 0, exmax = INT32_MIN, all = 1, any = 0, cnt = 0, fnz = 0, incfnz = 0, exx = 0;
    int32_t bins[64] = {0}, excl[64] = {0}, seen = 0;
    for (int l = 0; l < 64; l++) {
        int32_t v = a[b0 + l], big = v > 500 ? v : 0;
        sum += v, mn = v < mn ? v : mn, all &= v > -990, any |= v > 995, cnt += v > 0;
        if (!fnz) fnz = big;
        if (b0 + l <= i) inc += v, incfnz = incfnz ? incfnz : big;
        if (b0 + l < i) exmax = v > exmax ? v : exmax, exx ^= v;
        bins[((uint32_t)(v + 1000) >> 2) & 31]++;
    }
    for (int d = 1; d < 64; d++) excl[d] = excl[d - 1] + bins[d - 1];
    int dig = (int)(((uint32_t)(a[i] + 1000) >> 2) & 31);
    for (int l = b0; l < i; l++) seen += (int)(((uint32_t)(a[l] + 1000) >> 2) & 31) == dig;
    /* the radix rank: excl_prefix of the digit plus the earlier lanes holding it */
    int32_t want[13] = {sum, mn, inc, exmax, all, any, cnt, fnz, incfnz, exx, excl[dig] + seen, bins[i - b0], excl[i - b0]};
    for (int k = 0; k < 13; k++)
        if (out[(size_t)i * NC + k] != want[k])
            return snprintf(why, wn, "block lane %d, column %d: got %d, want %d", i, k, out[(size_t)i * NC + k], want[k]), false;
    return true;
}

Test(simt, runs_on_vulkan, .timeout = 300) {
    char *dir = make_temp_dir(), *src = root_path("tests/kernels/simt_vk.qd");
    char *spv = compile_to(dir, src, "vulkan1.2", NULL, ".spv"), *mf = xasprintf("%s/k.json", dir);
    RunResult r = run_qdc("--target=vulkan1.2", "--emit=metadata", src, "-o", mf, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *meta = read_text(mf, NULL);
    cr_assert(spv && meta);
    enum { N = 1024 };
    int32_t *a = xcalloc(N, sizeof *a), *out = xcalloc((size_t)N * NC, sizeof *out);
    uint32_t x = 2463534242u;
    for (int i = 0; i < N; i++) x ^= x << 13, x ^= x >> 17, x ^= x << 5, a[i] = (int32_t)(x % 2001) - 1000;
    VkArray arr[2] = {{a, N * sizeof *a, N}, {out, (size_t)N * NC * sizeof *out, N * NC}};
    const char *kernels[] = {"sgk"};
    char *err = NULL;
    int rc = vk_run(dir, spv, meta, kernels, 1, arr, 2, NULL, N, VK_FULL, true, &err);
    cr_expect(rc >= 0, "vkrun: %s", err);
    if (rc > 0) {
        char why[256] = "";
        int bad = 0;
        for (int i = 0; i < N && !bad; i++) bad += !check_lane(a, out, i, why, sizeof why);
        cr_expect(!bad, "%s", why);
        printf("simt: Vulkan subgroup size %d: every collective exact\n", out[1]);
    }
    const char *blk[] = {"blk"};
    memset(out, 0, (size_t)N * NC * sizeof *out);
    free(err), err = NULL;
    rc = vk_run(dir, spv, meta, blk, 1, arr, 2, NULL, N, VK_FULL, true, &err);
    cr_expect(rc >= 0, "vkrun: %s", err);
    if (rc > 0) {
        char why[256] = "";
        int bad = 0;
        for (int i = 0; i < N && !bad; i++) bad += !check_block(a, out, i, why, sizeof why);
        cr_expect(!bad, "qd.simt.block.*: %s", why);
    }
    free(err), free(a), free(out), free(meta), free(mf), free(spv), free(src);
    remove_tree(dir);
    free(dir);
}

/* quadrants.lang.simt.reductions' generic helpers with a non-commutative operator on the
 * Vulkan device (groups of at most 8 lanes: lavapipe's subgroups), and on every family. */
Test(simt, reductions_helpers_on_vulkan, .timeout = 300) {
    char *dir = make_temp_dir(), *src = root_path("tests/kernels/simt_reductions.qd");
    char *spv = compile_to(dir, src, "vulkan1.2", NULL, ".spv"), *mf = compile_to(dir, src, "vulkan1.2", "--emit=metadata", ".json");
    char *meta = mf ? read_text(mf, NULL) : NULL;
    cr_assert(spv && meta);
    enum { N = 1024 };
    uint32_t *a = xcalloc(N, sizeof *a), *out = xcalloc((size_t)N * SR_NC, sizeof *out);
    uint32_t x = 2463534242u;
    for (int i = 0; i < N; i++) x ^= x << 13, x ^= x >> 17, x ^= x << 5, a[i] = x;
    VkArray arr[2] = {{a, N * sizeof *a, N}, {out, (size_t)N * SR_NC * sizeof *out, N * SR_NC}};
    const char *kernels[] = {"tiles"};
    char *err = NULL;
    int rc = vk_run(dir, spv, meta, kernels, 1, arr, 2, NULL, N, VK_FULL, true, &err);
    cr_expect(rc >= 0, "vkrun: %s", err);
    if (rc > 0) cr_expect_eq(sr_check_tiles(a, out, N), 0, "reductions helpers on Vulkan: wrong values (stderr)");
    free(err), free(a), free(out), free(meta), free(mf), free(spv), free(src);
    remove_tree(dir);
    free(dir);
}

Test(simt, reductions_helpers_every_family, .timeout = 180) {
    char *dir = make_temp_dir(), *src = root_path("tests/kernels/simt_reductions.qd");
    char *ptx = compile_to(dir, src, "sm_80", NULL, ".ptx");
    char *text = ptx ? read_text(ptx, NULL) : NULL;
    expect_in(text, "shfl.sync.up.b32", "sm_80");
    expect_in(text, "shfl.sync.down.b32", "sm_80");
    if (ptx && tool_available(PTXAS)) {
        char *cubin = xasprintf("%s.cubin", ptx);
        RunResult p = run_argv((const char *[]){PTXAS, "-arch=sm_80", ptx, "-o", cubin, NULL}, NULL, NULL);
        cr_expect_eq(p.status, 0, "ptxas: %s", p.err);
        run_free(&p);
        free(cubin);
    }
    free(text), free(ptx);
    static const char *const fams[][3] = {{"gfx942", NULL, ".hsaco"}, {"gfx1100", "--cap=+wave32", ".hsaco"},
                                          {"vulkan1.1", NULL, ".spv"}, {"apple7", NULL, ".metal"}};
    for (size_t i = 0; i < ARRAY_LEN(fams); i++) {
        char *out = xasprintf("%s/r.%s%s", dir, fams[i][0], fams[i][2]), *tgt = xasprintf("--target=%s", fams[i][0]);
        RunResult r = run_qdc(tgt, fams[i][1] ? fams[i][1] : "-O2", src, "-o", out, NULL);
        cr_expect_eq(r.status, 0, "%s: %s", fams[i][0], r.err);
        cr_expect(file_exists(out), "%s: no output", fams[i][0]);
        run_free(&r);
        free(out), free(tgt);
    }
    remove_tree(dir);
    free(dir), free(src);
}

/* ---- what is refused ---- */

static void expect_error(const char *body, const char *family, const char *extra, int line, int col, const char *msg) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/e.qd", dir), *out = xasprintf("%s/e.out", dir);
    char *text = xasprintf("import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                           "    for i in range(a.shape[0]):\n%s", body);
    cr_assert(write_text(src, text));
    char *tgt = xasprintf("--target=%s", family);
    RunResult r = run_qdc(tgt, extra ? extra : "-O2", src, "-o", out, NULL);
    char *want = xasprintf("%s:%d:%d: %s\n", src, line, col, msg);
    cr_expect_eq(r.status, 1, "%s: exit %d: %s", family, r.status, r.err);
    cr_expect(!strncmp(r.err, want, strlen(want)), "%s: want\n%sgot\n%s", family, want, r.err);
    cr_expect(!file_exists(out), "%s: an output file after an error", family);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(out), free(text), free(tgt), free(want);
}

static const char *const warp_body = "        a[i] = qd.simt.warp.shfl_xor_i32(qd.u32(0xFFFFFFFF), a[i], 1)\n";

Test(simt, warp_needs_32_lane_subgroups) {
    expect_error(warp_body, "gfx942", NULL, 6, 16,
                 "error[QD4011]: qd.simt.warp.* needs 32-lane subgroups; target 'gfx942' has 64-lane subgroups (use qd.simt.subgroup.*)");
    expect_error(warp_body, "gfx1100", NULL, 6, 16,
                 "error[QD4011]: qd.simt.warp.* needs 32-lane subgroups; target 'gfx1100' has 64-lane subgroups "
                 "(use qd.simt.subgroup.*, or --cap=+wave32)");
    expect_error(warp_body, "vulkan1.2", NULL, 6, 16,
                 "error[QD4011]: qd.simt.warp.* needs 32-lane subgroups; the subgroup size of target 'vulkan1.2' is the device's "
                 "(assert it with --cap=+subgroup32, or use qd.simt.subgroup.*)");
    /* accepted where the warp is 32 lanes: NVIDIA, RDNA wave32, Apple, x86, and Vulkan with the assertion */
    char *dir = make_temp_dir(), *src = xasprintf("%s/w.qd", dir);
    char *text = xasprintf("import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                           "    for i in range(a.shape[0]):\n%s", warp_body);
    cr_assert(write_text(src, text));
    static const char *const ok[][2] = {{"sm_70", NULL}, {"gfx1100", "--cap=+wave32"}, {"apple7", NULL}, {"x86_64", NULL},
                                        {"vulkan1.2", "--cap=+subgroup32"}};
    for (size_t i = 0; i < ARRAY_LEN(ok); i++) {
        char *tgt = xasprintf("--target=%s", ok[i][0]), *out = xasprintf("%s/w.%zu", dir, i);
        RunResult r = run_qdc(tgt, ok[i][1] ? ok[i][1] : "-O2", src, "-o", out, NULL);
        cr_expect_eq(r.status, 0, "%s: %s", ok[i][0], r.err);
        run_free(&r);
        free(tgt), free(out);
    }
    remove_tree(dir);
    free(dir), free(src), free(text);
}

Test(simt, operand_and_size_errors) {
    expect_error("        x = qd.cast(a[i], qd.f16)\n        a[i] = qd.cast(qd.simt.subgroup.reduce_add(x), qd.i32)\n", "x86_64",
                 NULL, 7, 52, "error[QD2070]: 'reduce_add' takes a 32- or 64-bit integer or float (f32, f64), got f16");
    expect_error("        x = qd.cast(a[i], qd.f32)\n        a[i] = qd.cast(qd.simt.subgroup.inclusive_xor(x), qd.i32)\n",
                 "x86_64", NULL, 7, 55, "error[QD2070]: 'inclusive_xor' takes a 32- or 64-bit integer, got f32");
    expect_error("        a[i] = qd.simt.subgroup.reduce_add_tiled(a[i], 7)\n", "x86_64", NULL, 6, 56,
                 "error[QD2071]: log2_size must be a constant from 0 to 6 (groups of 1 to 64 lanes), got 7");
    expect_error("        a[i] = qd.simt.warp.shfl_sync_i32(qd.u32(0xFFFF), a[i], 0)\n", "sm_80", NULL, 6, 43,
                 "error[QD2072]: qdc supports qd.simt.warp.* only with the full mask 0xFFFFFFFF (a constant); "
                 "partial-warp masks are not supported");
    expect_error("        a[i] = qd.simt.reductions._inclusive_scan_tiled(a[i], 3, 2)\n", "x86_64", NULL, 6, 63,
                 "error[QD2070]: '_inclusive_scan_tiled' takes a @qd.func op(a, b) as its operator, got a value");
    expect_error("        a[i] = qd.simt.reductions._reduce_tiled(a[i], qd.simt.reductions._bin_max, 9)\n", "x86_64", NULL, 6, 84,
                 "error[QD2071]: log2_size must be a constant from 0 to 6 (groups of 1 to 64 lanes), got 9");
    expect_error("        a[i] = qd.simt.reductions._exclusive_scan_tiled(qd.cast(a[i], qd.i8), qd.simt.reductions._bin_max, 0, 2)\n",
                 "x86_64", NULL, 6, 57, "error[QD2070]: '_exclusive_scan_tiled' takes a 32- or 64-bit integer or float (f32, f64), got i8");
    expect_error("        a[i] = qd.simt.subgroup.shuffle(a[i])\n", "x86_64", NULL, 6, 16,
                 "error[QD2007]: 'qd.simt.subgroup.shuffle' takes 2 arguments, got 1");
    expect_error("        a[i] = qd.simt.block.radix_rank_match_atomic_or(qd.u32(a[i]), 64, 7, 0, 7, a, a)\n", "x86_64", NULL, 6, 71,
                 "error[QD2071]: radix_rank_match_atomic_or needs block_dim == 1 << radix_bits (128), got 64");
    expect_error("        a[i] = qd.simt.block.radix_rank_match_atomic_or(qd.u32(a[i]), 64, 6, 0, 7, a, a)\n", "sm_80", NULL, 6, 81,
                 "error[QD2071]: num_bits must be a constant from 1 to radix_bits (6), got 7");
    expect_error("        b = qd.simt.block.SharedArray((64,), qd.f32)\n"
                 "        a[i] = qd.simt.block.radix_rank_match_atomic_or(qd.u32(a[i]), 64, 6, 0, 6, b, b)\n", "vulkan1.2", NULL, 7, 84,
                 "error[QD2070]: 'radix_rank_match_atomic_or' writes its bins and excl_prefix to a block.SharedArray((64,), qd.i32); "
                 "got a SharedArray of another shape or dtype");
    expect_error("        a[i] = qd.simt.block.reduce(a[i], 64, qd.max, qd.i32)\n", "gfx942", NULL, 6, 47,
                 "error[QD2070]: 'reduce' takes a @qd.func op(a, b) as its operator, got a module or builtin");
}

/* QD2074: a collective under an `if` whose condition, a function of the thread index alone,
 * provably differs between the lanes of one subgroup (a barrier: between threads of the block);
 * a condition uniform per subgroup (warp 0 only) is fine, and an unknown width proves nothing. */
static void divergence_case(const char *body, const char *family, int status, int line, int col, const char *msg) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/d.qd", dir), *out = xasprintf("%s/d.out", dir);
    char *text = xasprintf("import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                           "    qd.loop_config(block_dim=64)\n    for i in range(a.shape[0]):\n"
                           "        tid = qd.simt.block.thread_idx()\n%s", body);
    cr_assert(write_text(src, text));
    char *tgt = xasprintf("--target=%s", family);
    RunResult r = run_qdc(tgt, "--emit=ir", src, "-o", out, NULL);
    cr_expect_eq(r.status, status, "%s: exit %d: %s", family, r.status, r.err);
    if (msg) {
        char *want = xasprintf("%s:%d:%d: error[QD2074]: %s\n", src, line, col, msg);
        cr_expect(!strncmp(r.err, want, strlen(want)), "%s: want\n%sgot\n%s", family, want, r.err);
        cr_expect(!file_exists(out), "%s: an output file after an error", family);
        free(want);
    }
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(out), free(text), free(tgt);
}

Test(simt, divergent_collectives) {
    const char *odd = "        if tid % 2 == 0:\n            a[i] = qd.simt.subgroup.reduce_add(a[i])\n";
    divergence_case(odd, "x86_64", 1, 9, 20, "a subgroup collective under the condition at line 8, which differs between the "
                    "threads of one subgroup (block_dim 64, subgroup width 32): every thread must reach it");
    divergence_case(odd, "gfx942", 1, 9, 20, "a subgroup collective under the condition at line 8, which differs between the "
                    "threads of one subgroup (block_dim 64, subgroup width 64): every thread must reach it");
    divergence_case(odd, "vulkan1.2", 0, 0, 0, NULL); /* the device's width: nothing is proven */
    const char *lane0 = "        if qd.simt.subgroup.invocation_id() == 0:\n            a[i] = qd.simt.subgroup.shuffle(a[i], qd.u32(1))\n";
    divergence_case(lane0, "sm_80", 1, 9, 20, "a subgroup collective under the condition at line 8, which differs between the "
                    "threads of one subgroup (block_dim 64, subgroup width 32): every thread must reach it");
    /* warp 0 alone: uniform per subgroup on 32 lanes, but a block barrier under it splits the block */
    const char *warp0 = "        if tid < 32:\n            a[i] = qd.simt.subgroup.reduce_add(a[i])\n"
                        "            qd.simt.block.sync()\n";
    divergence_case(warp0, "x86_64", 1, 10, 13, "a block barrier under the condition at line 8, which differs between the "
                    "threads of one block (block_dim 64, subgroup width 32): every thread must reach it");
    divergence_case("        if tid < 32:\n            a[i] = qd.simt.subgroup.reduce_add(a[i])\n", "sm_80", 0, 0, 0, NULL);
    divergence_case("        if tid < 32:\n            a[i] = qd.simt.subgroup.reduce_add(a[i])\n", "gfx942", 1, 9, 20,
                    "a subgroup collective under the condition at line 8, which differs between the threads of one subgroup "
                    "(block_dim 64, subgroup width 64): every thread must reach it");
    /* the loop index and loaded values are not analysed */
    divergence_case("        if a[i] > 0:\n            a[i] = qd.simt.subgroup.reduce_add(a[i])\n", "x86_64", 0, 0, 0, NULL);
}

/* Host code may read the width: N = subgroup.group_size() is the compile's width where every
 * target has one (Quadrants' compile-time int), and host code (QD2062 when used, naming the
 * cap that fixes it on Vulkan) otherwise. */
Test(simt, host_group_size) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/h.qd", dir), *out = xasprintf("%s/h.out", dir);
    cr_assert(write_text(src, "import quadrants as qd\nfrom quadrants.lang.simt import subgroup\n\nN = subgroup.group_size()\n"
                              "L = qd.simt.subgroup.log2_group_size()\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                              "    qd.loop_config(block_dim=N)\n    for i in range(N):\n        a[i] = L\n"));
    RunResult r = run_qdc("--target=gfx942", "--emit=ir", src, "-o", out, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char *ir = read_text(out, NULL);
    cr_expect(ir && strstr(ir, "extent=64:i32 index=%0 block_dim=64") && strstr(ir, "= 6:i32"), "%s", ir ? ir : "");
    free(ir), run_free(&r);
    remove(out);
    r = run_qdc("--target=vulkan1.2", "--emit=ir", src, "-o", out, NULL);
    char *want = xasprintf("%s:9:30: error[QD2062]: 'N' is the device's subgroup width, which this compile does not fix (the "
                           "target's is the device's or the targets of this compile differ; Vulkan: assert it with "
                           "--cap=+subgroup32), known only when the script runs", src);
    cr_expect(r.status == 1 && !strncmp(r.err, want, strlen(want)), "%s", r.err);
    cr_expect(!file_exists(out));
    run_free(&r);
    r = run_qdc("--target=vulkan1.2", "--cap=+subgroup32", "--emit=ir", src, "-o", out, NULL); /* what the message says */
    cr_expect_eq(r.status, 0, "%s", r.err);
    ir = read_text(out, NULL);
    cr_expect(ir && strstr(ir, "extent=32:i32 index=%0 block_dim=32") && strstr(ir, "= 5:i32"), "%s", ir ? ir : "");
    free(ir), run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(out), free(want);
}

/* --report-lowering names the instruction and the database key that chose it; --print-caps and
 * --support-matrix show the simt section. */
Test(simt, reports_and_caps) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/r.qd", dir), *out = xasprintf("%s/r.ptx", dir);
    cr_assert(write_text(src, "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                              "    for i in range(a.shape[0]):\n        a[i] = qd.simt.subgroup.reduce_add(a[i])\n"));
    RunResult r = run_qdc("--target=sm_80", "--report-lowering", src, "-o", out, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char *want = xasprintf("%s:6:16", src);
    cr_expect(strstr(r.out, want) && strstr(r.out, "subgroup.reduce_add       i32   native       redux.sync  (capability-db/sm_80.yaml:simt.reduce)"),
              "%s", r.out);
    run_free(&r);
    r = run_qdc("--target=sm_70", "--report-lowering=json", src, "-o", out, NULL);
    cr_expect(strstr(r.out, "\"op\":\"subgroup.reduce_add\",\"dtype\":\"i32\",\"decision\":\"expanded\",\"spelling\":\"butterfly\","
                            "\"reason\":\"capability-db/sm_60.yaml:simt.reduce\",\"schema\":\"qdc-lowering/1\"}"),
              "%s", r.out);
    run_free(&r);
    r = run_qdc("--print-caps=gfx942", NULL);
    cr_expect(strstr(r.out, "limits.subgroup_width: 64\n") && strstr(r.out, "simt.shuffle: ds_bpermute_b32\n"), "%s", r.out);
    run_free(&r);
    r = run_qdc("--support-matrix", "--targets=sm_70,sm_80,gfx942,vulkan1.2", NULL);
    cr_expect(strstr(r.out, "| width | - | 32 | 32 | 64 | device; 32 with +subgroup32 |\n"), "%s", r.out);
    cr_expect(strstr(r.out, "| reduce | - | fallback butterfly | native redux.sync | fallback butterfly | native OpGroupNonUniformArithmetic |\n"),
              "%s", r.out);
    cr_expect(strstr(r.out, "| match | - | native match.sync | native match.sync | fallback shuffles | fallback shuffles |\n"), "%s", r.out);
    run_free(&r);
    r = run_qdc("--support-matrix", "--targets=sm_60,gfx1100,x86_64", "--format=json", NULL);
    cr_expect(strstr(r.out, "\n{\"row\":\"width\",\"cells\":[\"32\",\"64; 32 with +wave32\",\"32\"]},\n"
                            "{\"row\":\"shuffle\",\"cells\":[{\"status\":\"native\",\"spelling\":\"shfl.sync.idx.b32\"},"
                            "{\"status\":\"native\",\"spelling\":\"ds_bpermute_b32\"},{\"status\":\"native\",\"spelling\":\"qdrt_subgroup\"}]},\n"),
              "%s", r.out);
    cr_expect(strstr(r.out, "{\"row\":\"match\",\"cells\":[{\"status\":\"fallback\",\"spelling\":\"shuffles\"},"), "%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(out), free(want);
}

/* Quadrants' spellings of the namespaces: from-imports, submodule imports and module aliases;
 * group_size()/log2_group_size() are compile-time ints where the width is known. */
Test(simt, imports_and_compile_time_width) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/i.qd", dir), *out = xasprintf("%s/i.o", dir);
    cr_assert(write_text(src, "import quadrants as qd\nfrom quadrants.lang.simt import subgroup\n"
                              "from quadrants.lang.simt import (block as blk, warp)\nimport quadrants.lang.simt.subgroup as sg2\n"
                              "sg3 = qd.simt.subgroup\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                              "    qd.loop_config(block_dim=64)\n    for i in range(a.shape[0]):\n"
                              "        a[i] = (subgroup.reduce_add_tiled(a[i], subgroup.log2_group_size()) + sg2.elect()\n"
                              "                + sg3.group_size() + blk.reduce_add(a[i], 64, qd.i32) + warp.ballot(a[i]))\n"));
    static const char *const ok[][3] = {{"x86_64", NULL, "o"}, {"sm_80", NULL, "ptx"}, {"gfx1100", "--cap=+wave32", "hsaco"},
                                        {"vulkan1.2", "--cap=+subgroup32", "spv"}};
    for (size_t i = 0; i < ARRAY_LEN(ok); i++) {
        char *tgt = xasprintf("--target=%s", ok[i][0]), *o = xasprintf("%s/i.%s", dir, ok[i][2]);
        RunResult r = run_qdc(tgt, ok[i][1] ? ok[i][1] : "-O2", src, "-o", o, NULL);
        free(o);
        cr_expect_eq(r.status, 0, "%s: %s", ok[i][0], r.err);
        run_free(&r);
        free(tgt);
    }
    char *spv = xasprintf("%s/e.spv", dir);
    RunResult r = run_qdc("--target=vulkan1.2", src, "-o", spv, NULL);
    cr_expect(!file_exists(spv));
    free(spv);
    char *want = xasprintf("%s:11:49: error[QD2073]: 'qd.simt.subgroup.log2_group_size' needs the subgroup width at compile "
                           "time; the target's is the device's or the targets of this compile differ (Vulkan: assert it "
                           "with --cap=+subgroup32)\n", src);
    cr_expect_eq(r.status, 1);
    cr_expect(!strncmp(r.err, want, strlen(want)), "want\n%sgot\n%s", want, r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(out), free(want);
}

/* Every SIMT builtin with wrong, odd and right arguments, in a parallel loop and in a serial
 * task: qdc answers with a result or a located error, never a signal (a serial warp.sync once
 * crashed the checker). */
static const char *const every_builtin[] = {
    "block.exclusive_add",
    "block.exclusive_max",
    "block.exclusive_min",
    "block.inclusive_add",
    "block.inclusive_max",
    "block.inclusive_min",
    "block.reduce_add",
    "block.reduce_all_add",
    "block.reduce_all_max",
    "block.reduce_all_min",
    "block.reduce_max",
    "block.reduce_min",
    "block.sync_all_nonzero",
    "block.sync_any_nonzero",
    "block.sync_count_nonzero",
    "block.reduce",
    "block.reduce_all",
    "block.inclusive_scan",
    "block.exclusive_scan",
    "block.radix_rank_match_atomic_or",
    "subgroup.all_equal",
    "subgroup.all_equal_tiled",
    "subgroup.all_true",
    "subgroup.all_true_tiled",
    "subgroup.any_true",
    "subgroup.any_true_tiled",
    "subgroup.ballot",
    "subgroup.ballot_first_n",
    "subgroup.ballot_full_subgroup",
    "subgroup.barrier",
    "subgroup.bitonic_sort_kv",
    "subgroup.bitonic_sort_kv_tiled",
    "subgroup.broadcast",
    "subgroup.broadcast_first",
    "subgroup.elect",
    "subgroup.exclusive_add",
    "subgroup.exclusive_add_tiled",
    "subgroup.exclusive_and",
    "subgroup.exclusive_and_tiled",
    "subgroup.exclusive_max",
    "subgroup.exclusive_max_tiled",
    "subgroup.exclusive_min",
    "subgroup.exclusive_min_tiled",
    "subgroup.exclusive_mul",
    "subgroup.exclusive_mul_tiled",
    "subgroup.exclusive_or",
    "subgroup.exclusive_or_tiled",
    "subgroup.exclusive_xor",
    "subgroup.exclusive_xor_tiled",
    "subgroup.group_size",
    "subgroup.inclusive_add",
    "subgroup.inclusive_add_tiled",
    "subgroup.inclusive_and",
    "subgroup.inclusive_and_tiled",
    "subgroup.inclusive_max",
    "subgroup.inclusive_max_tiled",
    "subgroup.inclusive_min",
    "subgroup.inclusive_min_tiled",
    "subgroup.inclusive_mul",
    "subgroup.inclusive_mul_tiled",
    "subgroup.inclusive_or",
    "subgroup.inclusive_or_tiled",
    "subgroup.inclusive_xor",
    "subgroup.inclusive_xor_tiled",
    "subgroup.invocation_id",
    "subgroup.lanemask_eq",
    "subgroup.lanemask_ge",
    "subgroup.lanemask_gt",
    "subgroup.lanemask_le",
    "subgroup.lanemask_lt",
    "subgroup.log2_group_size",
    "subgroup.mem_fence",
    "subgroup.memory_barrier",
    "subgroup.reduce_add",
    "subgroup.reduce_add_tiled",
    "subgroup.reduce_all_add",
    "subgroup.reduce_all_add_tiled",
    "subgroup.reduce_all_max",
    "subgroup.reduce_all_max_tiled",
    "subgroup.reduce_all_min",
    "subgroup.reduce_all_min_tiled",
    "subgroup.reduce_max",
    "subgroup.reduce_max_tiled",
    "subgroup.reduce_min",
    "subgroup.reduce_min_tiled",
    "subgroup.segmented_reduce_add",
    "subgroup.segmented_reduce_add_tiled",
    "subgroup.segmented_reduce_max",
    "subgroup.segmented_reduce_max_tiled",
    "subgroup.segmented_reduce_min",
    "subgroup.segmented_reduce_min_tiled",
    "subgroup.shuffle",
    "subgroup.shuffle_down",
    "subgroup.shuffle_up",
    "subgroup.shuffle_xor",
    "subgroup.sync",
    "warp.active_mask",
    "warp.all_nonzero",
    "warp.any_nonzero",
    "warp.ballot",
    "warp.match_all",
    "warp.match_any",
    "warp.shfl_down_f32",
    "warp.shfl_down_i32",
    "warp.shfl_sync_f32",
    "warp.shfl_sync_i32",
    "warp.shfl_up_f32",
    "warp.shfl_up_i32",
    "warp.shfl_xor_i32",
    "warp.sync",
    "warp.unique"
};

Test(simt, every_builtin_any_arguments, .timeout = 240) {
    static const char *const args[] = {"", "a[i]", "a[i], 3", "qd.u32(0xFFFFFFFF), qd.f16(1.0), 1"};
    char *dir = make_temp_dir(), *src = xasprintf("%s/b.qd", dir), *out = xasprintf("%s/b.o", dir);
    int ok = 0, refused = 0;
    for (size_t n = 0; n < ARRAY_LEN(every_builtin); n++)
        for (size_t k = 0; k < ARRAY_LEN(args); k++) {
            bool serial = (n + k) % 2;
            char *text = xasprintf("import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n%s"
                                   "qd.simt.%s(%s)\n", serial ? "    i = 0\n    " : "    for i in range(a.shape[0]):\n        ",
                                   every_builtin[n], args[k]);
            cr_assert(write_text(src, text));
            RunResult r = run_qdc("--target=x86_64", src, "-o", out, NULL);
            cr_expect(r.status == 0 || (r.status == 1 && strstr(r.err, ": error[QD")), "%s(%s): status %d\n%s", every_builtin[n],
                      args[k], r.status, r.err);
            ok += r.status == 0, refused += r.status == 1;
            run_free(&r);
            free(text);
        }
    cr_expect_gt(ok, 60, "only %d calls compiled", ok);
    cr_expect_gt(refused, 60, "only %d calls refused", refused);
    remove_tree(dir);
    free(dir), free(src), free(out);
}

/* The block_dim of a block collective is bounded by the database's max_block_dim, the smallest of
 * the compile's targets (issue 21 item 3: no 1024 in C). */
Test(simt, block_dim_bounded_by_the_database) {
    expect_error("        a[i] = qd.simt.block.exclusive_add(a[i], 2048, qd.i32)\n", "sm_80", NULL, 6, 50,
                 "error[QD2071]: block_dim must be a constant from 1 to 1024, got 2048");
    char *dir = make_temp_dir(), *yaml = xasprintf("%s/sm_small.yaml", dir), *opt = xasprintf("--capdb-dir=%s", dir);
    cr_assert(write_text(yaml, "schema: 1\nname: sm_small\nextends: sm_80\nrank: 999\ndescription: \"max_block_dim 256\"\n"
                               "limits:\n  max_block_dim: 256\n"));
    expect_error("        a[i] = qd.simt.block.exclusive_add(a[i], 512, qd.i32)\n", "sm_small", opt, 6, 50,
                 "error[QD2071]: block_dim must be a constant from 1 to 256, got 512");
    /* two targets: the smaller limit */
    char *src = xasprintf("%s/two.qd", dir);
    cr_assert(write_text(src, "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                              "    for i in range(a.shape[0]):\n        a[i] = qd.simt.block.exclusive_add(a[i], 512, qd.i32)\n"));
    RunResult r = run_qdc("--check", "--target=sm_80,sm_small", opt, src, NULL);
    char *want = xasprintf("%s:6:50: error[QD2071]: block_dim must be a constant from 1 to 256, got 512\n", src);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(!strncmp(r.err, want, strlen(want)), "want\n%sgot\n%s", want, r.err);
    run_free(&r);
    r = run_qdc("--check", "--target=sm_80", opt, src, NULL);
    cr_expect_eq(r.status, 0, "sm_80 alone allows 512: %s", r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(yaml), free(opt), free(src), free(want);
}
