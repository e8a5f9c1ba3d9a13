/* Atomic reductions (issue 17, lower/reduce.c): the code qdc emits for testdata/lowering/reduce.qd
 * (whose --report-lowering golden names every rule). A reduced atomic gets a partial (an
 * alloca "partial" promoted to a phi in the task loop, -O0 runs mem2reg) and its one atomic
 * after the loop; a kept one gets none. Exec results: x86_kernels/rewrite_*. */
#include "harness.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many partials each task function of the module's LLVM IR carries ("%partialN.0 = phi"
 * in the loop header), written as "fn=count ..." for the functions that have one. */
static char *partials(const char *target, const char *extra) {
    RunResult r = run_qdc(target, "--emit=llvm-ir", "-O0", "testdata/lowering/reduce.qd", "-o", "-", extra, NULL);
    cr_assert_eq(r.status, 0, "qdc %s: %s", target, r.err);
    StrBuf b;
    sb_init(&b);
    char fn[128] = "";
    int n = 0;
    for (char *line = r.out, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (!strncmp(line, "define ", 7)) {
            if (n) sb_printf(&b, "%s=%d ", fn, n);
            n = 0;
            const char *at = strchr(line, '@'), *par = at ? strchr(at, '(') : NULL;
            snprintf(fn, sizeof fn, "%.*s", at && par ? (int)(par - at - 1) : 0, at ? at + 1 : "");
            continue;
        }
        const char *p = strstr(line, "%partial");
        if (!p || (nl && p > nl)) continue;
        p += 8;
        while (*p >= '0' && *p <= '9') p++;
        if (!strncmp(p, ".0 = phi", 8)) n++;
    }
    if (n) sb_printf(&b, "%s=%d ", fn, n);
    run_free(&r);
    char *s = sb_take(&b);
    return s ? s : strdup("");
}

/* reduced_t1: all eight reductions of the first kernel (f32 add, max, min, sub, the promoted
 * local under a branch, or/and/xor); kept_t0: rd[1], pk[k] and pk[3] only; the other loops
 * of `kept` (seq_cst, fence, volatile load, barrier) none. */
Test(reduce, x86_partials_where_the_rules_allow) {
    char *got = partials("--target=x86_64", NULL);
    cr_expect_str_eq(got, "reduced_t1=8 kept_t0=3 ");
    free(got);
}

Test(reduce, none_with_atomic_rewrite_none) {
    char *got = partials("--target=x86_64", "--atomic-rewrite=none");
    cr_expect_str_eq(got, "");
    free(got);
}

/* PTX (rewrite.reduce: subgroup on every family): all eight reductions of reduced_t1 (the f32
 * add through the shfl.sync tree, the 32-bit integers through redux.sync on sm_80+ and the tree
 * before); AMDGPU has no level (LLVM's atomic optimizer, below). */
Test(reduce, gpu_levels_from_the_database) {
    char *got = partials("--target=sm_90", NULL);
    cr_expect_str_eq(got, "reduced_t1=8 kept_t0=3 ");
    free(got);
    got = partials("--target=sm_80", "--atomic-rewrite=none");
    cr_expect_str_eq(got, "");
    free(got);
    got = partials("--target=sm_70", NULL);
    cr_expect_str_eq(got, "reduced_t1=8 kept_t0=3 ");
    free(got);
    got = partials("--target=gfx942", NULL);
    cr_expect_str_eq(got, "");
    free(got);
}

/* The text between ".entry NAME(" and the entry's closing "}" line. */
static char *ptx_entry(const char *ptx, const char *name) {
    char *head = xasprintf(".entry %s(", name);
    const char *p = strstr(ptx, head), *end = p ? strstr(p, "\n}\n") : NULL;
    free(head);
    cr_assert(p && end, "no entry %s", name);
    return xasprintf("%.*s", (int)(end - p), p);
}

static int count(const char *s, const char *needle) {
    int n = 0;
    for (const char *q = s; (q = strstr(q, needle)); q++) n++;
    return n;
}

/* PTX atomics per warp, counted statically: the reduced sum and max issue redux.sync over the
 * active lanes and one atom, by the lowest active lane (a branch around it); the 4-bin
 * histogram keeps one atom per lane. ptxas accepts the module where it is installed. */
Test(reduce, ptx_one_atomic_per_warp) {
    RunResult r = run_qdc("--target=sm_80", "--emit=ptx", "bench/x86/reductions.qd", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *isum = ptx_entry(r.out, "isum_t1"), *imax = ptx_entry(r.out, "imax_t1"), *h4 = ptx_entry(r.out, "hist4_t1");
    cr_expect_eq(count(isum, "activemask.b32"), 1);
    cr_expect_eq(count(isum, "redux.sync.add.s32"), 1);
    cr_expect_eq(count(isum, "atom.global.add.u32"), 1);
    cr_expect_eq(count(isum, "%laneid"), 1);
    cr_expect_eq(count(imax, "redux.sync.max.s32"), 1);
    cr_expect_eq(count(imax, "atom.global.max.s32"), 1);
    cr_expect_eq(count(h4, "redux.sync"), 0);
    cr_expect_eq(count(h4, "atom.global.add.u32"), 1);
    free(isum), free(imax), free(h4);
    run_free(&r);
}

/* Where redux.sync does not apply (f32 add anywhere; any type before sm_80) every NVIDIA family
 * has rewrite.full_warp: shfl.sync.bfly (issue 33 item 5): one activemask for the loop's
 * reductions, a branch on it being all 32 lanes, five shfl.sync.bfly over the full mask per
 * reduction, and the atoms by lane 0 (each lane's own under any other mask), those of one
 * flush under one branch. float_sum has two reduced f32 adds; i32 sum on sm_70 one butterfly and
 * no redux.sync. ptxas accepts the modules where it is installed (ptx_golden). */
Test(reduce, ptx_full_warp_butterfly_where_redux_cannot) {
    RunResult r = run_qdc("--target=sm_80", "--emit=ptx", "examples/float_sum.qd", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *fs = ptx_entry(r.out, "float_sum_t1");
    cr_expect_eq(count(fs, "activemask.b32"), 1);
    cr_expect_eq(count(fs, "fns.b32"), 0);
    cr_expect_eq(count(fs, "shfl.sync.idx.b32"), 0);
    cr_expect_eq(count(fs, "shfl.sync.bfly.b32"), 10);
    for (int d = 1; d <= 16; d <<= 1) {
        char *step = xasprintf(", %d, 31, -1;", d);
        cr_expect_eq(count(fs, step), 2, "%s", step);
        free(step);
    }
    cr_expect_eq(count(fs, "%laneid"), 1);
    cr_expect_eq(count(fs, "atom.global.add.f32"), 2);
    cr_expect_eq(count(fs, "redux.sync"), 0);
    free(fs);
    run_free(&r);
    r = run_qdc("--target=sm_70", "--emit=ptx", "bench/x86/reductions.qd", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *isum = ptx_entry(r.out, "isum_t1");
    cr_expect_eq(count(isum, "fns.b32"), 0);
    cr_expect_eq(count(isum, "shfl.sync.bfly.b32"), 5);
    cr_expect_eq(count(isum, "atom.global.add.u32"), 1);
    cr_expect_eq(count(isum, "redux.sync"), 0);
    free(isum);
    run_free(&r);
    r = run_qdc("--target=sm_80", "--emit=ptx", "--atomic-rewrite=none", "examples/float_sum.qd", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count(r.out, "shfl.sync"), 0);
    run_free(&r);
}

/* A family without rewrite.full_warp (a user family extending sm_70 with full_warp: none) keeps
 * the tree over the active lanes' ranks: five steps of fns.b32 (the lane d ranks up) and
 * shfl.sync.idx over activemask, then one atom by the lowest lane. */
Test(reduce, ptx_rank_tree_without_full_warp) {
    char *dir = make_temp_dir(), *yaml = xasprintf("%s/sm_70_tree.yaml", dir);
    cr_assert(write_text(yaml, "schema: 1\nname: sm_70_tree\nextends: sm_70\nrank: 1\n"
                               "description: \"sm_70 without the full-warp fast path\"\nrewrite:\n  full_warp: none\n"));
    RunResult r = run_qdc("--capdb-dir", dir, "--target=sm_70_tree", "--emit=ptx", "bench/x86/reductions.qd", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *isum = ptx_entry(r.out, "isum_t1");
    cr_expect_eq(count(isum, "activemask.b32"), 1);
    cr_expect_eq(count(isum, "fns.b32"), 5);
    cr_expect_eq(count(isum, "shfl.sync.idx.b32"), 5);
    cr_expect_eq(count(isum, "shfl.sync.bfly"), 0);
    cr_expect_eq(count(isum, "atom.global.add.u32"), 1);
    free(isum);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(yaml);
}

Test(reduce, bad_atomic_rewrite_value) {
    RunResult r = run_qdc("--atomic-rewrite=some", "testdata/lowering/reduce.qd", "--check", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "qdc: error: --atomic-rewrite must be all, reduce or none, got 'some'") != NULL, "%s", r.err);
    run_free(&r);
}

/* The JSON report ends each record with "reduce": "worker" on a reduced atomic, else null, and
 * then the record's schema. */
Test(reduce, json_report_names_the_level) {
    RunResult r = run_qdc("--target=x86_64", "--report-lowering=json", "--check", "testdata/lowering/reduce.qd", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    int worker = 0, none = 0;
    for (const char *p = r.out; (p = strstr(p, ",\"reduce\":")); p++) {
        if (!strncmp(p, ",\"reduce\":\"worker\",\"schema\":\"qdc-lowering/1\"}\n", 46)) worker++;
        else if (!strncmp(p, ",\"reduce\":null,\"schema\":\"qdc-lowering/1\"}\n", 42)) none++;
    }
    cr_expect_eq(worker, 11, "reduced records: %d\n%s", worker, r.out);
    cr_expect_eq(none, 16, "other records: %d", none);
    run_free(&r);
}

/* How often `needle` occurs in function `fn` of an AMDGPU assembly listing. */
static int count_in(const char *as, const char *fn, const char *needle) {
    char *label = xasprintf("\n%s:\n", fn);
    const char *p = strstr(as, label), *end = p ? strstr(p, "s_endpgm") : NULL;
    free(label);
    int n = 0;
    for (const char *q = p; q && end && (q = strstr(q, needle)) && q < end; q++) n++;
    return n;
}

/* AMDGPU: LLVM 19's atomic optimizer (amdgpu-atomic-optimizer-strategy, default Iterative)
 * already runs in qdc's pipeline: an atomic on a uniform address becomes one atomic per
 * wavefront (a lane loop with s_ff1/v_readlane summing the active lanes, then one
 * global_atomic). Measured here so a pipeline change that loses it fails. The 4-bin histogram's
 * address differs per lane: one atomic per lane, no lane loop. */
Test(reduce, amdgpu_atomic_optimizer_applies) {
    RunResult r = run_qdc("--target=gfx942", "--emit=asm", "bench/x86/reductions.qd", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count_in(r.out, "isum_t1", "global_atomic_add "), 1);
    cr_expect_eq(count_in(r.out, "isum_t1", "s_ff1_i32_b64"), 1);
    cr_expect_eq(count_in(r.out, "imax_t1", "global_atomic_smax "), 1);
    cr_expect_eq(count_in(r.out, "imax_t1", "s_ff1_i32_b64"), 1);
    cr_expect_eq(count_in(r.out, "hist4_t1", "global_atomic_add "), 1);
    cr_expect_eq(count_in(r.out, "hist4_t1", "s_ff1_i32_b64"), 0);
    run_free(&r);
}

/* Item 2, warp-aggregated atomics: compaction's `slot = qd.atomic_add(count[None], 1)` on PTX
 * is one atom of popc(activemask) by the lowest active lane, whose old value shfl.sync shares;
 * each lane adds its rank (popc of the active lanes below it). --atomic-rewrite=reduce keeps one
 * atom per lane; x86 never aggregates (one lane per thread). */
Test(reduce, ptx_aggregated_slot) {
    RunResult r = run_qdc("--target=sm_70", "--emit=ptx", "examples/compaction.qd", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *c = ptx_entry(r.out, "compact_t1");
    cr_expect_eq(count(c, "activemask.b32"), 1);
    cr_expect_eq(count(c, "%lanemask_lt"), 1);
    cr_expect_eq(count(c, "popc.b32"), 3, "%s", c);
    cr_expect_eq(count(c, "atom.global.add.u32"), 1);
    cr_expect_eq(count(c, "shfl.sync.idx.b32"), 1);
    free(c);
    run_free(&r);
    r = run_qdc("--target=sm_70", "--emit=ptx", "examples/compaction.qd", "-o", "-", "--atomic-rewrite=reduce", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    c = ptx_entry(r.out, "compact_t1");
    cr_expect_eq(count(c, "activemask.b32"), 0);
    cr_expect_eq(count(c, "shfl.sync"), 0);
    cr_expect_eq(count(c, "atom.global.add.u32"), 1);
    free(c);
    run_free(&r);
    r = run_qdc("--target=sm_70", "--report-lowering", "--check", "examples/compaction.qd", NULL);
    cr_expect(strstr(r.out, "aggregated per subgroup: one atomic of the active lanes' sum by the lowest") != NULL, "%s", r.out);
    run_free(&r);
    r = run_qdc("--target=x86_64", "--report-lowering", "--check", "examples/compaction.qd", NULL);
    cr_expect(strstr(r.out, "not reduced: its result is used") != NULL && !strstr(r.out, "aggregated"), "%s", r.out);
    run_free(&r);
}

/* SPIR-V atomics per subgroup, counted statically (vulkan1.1 with the subgroup caps): the
 * reduced sum and max are one OpGroupNonUniform{IAdd,SMax} Reduce each and one atomic guarded
 * by OpGroupNonUniformElect; the 4-bin histogram keeps its atomic per invocation (2 IAdds in
 * all). Without the caps nothing changes, the report says which cap is missing, and with them
 * the metadata lists the caps relied on. */
Test(reduce, spirv_one_atomic_per_subgroup) {
    RunResult r = run_qdc("--target=vulkan1.1", "--cap=+subgroup-arithmetic", "--cap=+subgroup-ballot", "--emit=spirv-asm",
                          "bench/x86/reductions.qd", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count(r.out, "OpCapability GroupNonUniformArithmetic\n"), 1);
    cr_expect_eq(count(r.out, "= OpGroupNonUniformIAdd %int %uint_3 Reduce "), 1);
    cr_expect_eq(count(r.out, "= OpGroupNonUniformSMax %int %uint_3 Reduce "), 1);
    cr_expect_eq(count(r.out, "= OpGroupNonUniformElect %bool %uint_3\n"), 2);
    cr_expect_eq(count(r.out, "= OpAtomicIAdd "), 2);
    cr_expect_eq(count(r.out, "= OpAtomicSMax "), 1);
    run_free(&r);
    r = run_qdc("--target=vulkan1.1", "--emit=spirv-asm", "bench/x86/reductions.qd", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count(r.out, "OpGroupNonUniform"), 0);
    run_free(&r);
    r = run_qdc("--target=vulkan1.1", "--report-lowering", "--check", "bench/x86/reductions.qd", NULL);
    cr_expect(strstr(r.out, "OpAtomicIAdd; not reduced: the family's subgroup reduction needs --cap=+subgroup-arithmetic  "),
              "%s", r.out);
    run_free(&r);
    r = run_qdc("--target=vulkan1.1", "--cap=+subgroup-arithmetic", "--cap=+subgroup-ballot", "--emit=metadata",
                "examples/compaction.qd", "-o", "-", NULL);
    cr_expect(strstr(r.out, "\"subgroup-ballot\"") && !strstr(r.out, "\"subgroup-arithmetic\""), "%s", r.out);
    run_free(&r);
}

/* Vulkan aggregation: compaction's slot is a ballot of the active invocations, its bit counts
 * (Reduce: how many, ExclusiveScan: this one's rank), one OpAtomicIAdd by the elected one and
 * OpGroupNonUniformBroadcastFirst of its old value; --atomic-rewrite=reduce keeps the plain
 * atomic. Executed: exec_reduce/vulkan1_*. */
Test(reduce, spirv_aggregated_slot) {
    RunResult r = run_qdc("--target=vulkan1.1", "--cap=+subgroup-ballot", "--emit=spirv-asm", "examples/compaction.qd", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count(r.out, "= OpGroupNonUniformBallot %v4uint %uint_3 %true\n"), 1);
    cr_expect_eq(count(r.out, "= OpGroupNonUniformBallotBitCount %uint %uint_3 Reduce "), 1);
    cr_expect_eq(count(r.out, "= OpGroupNonUniformBallotBitCount %uint %uint_3 ExclusiveScan "), 1);
    cr_expect_eq(count(r.out, "= OpGroupNonUniformElect "), 1);
    cr_expect_eq(count(r.out, "= OpGroupNonUniformBroadcastFirst %int %uint_3 "), 1);
    cr_expect_eq(count(r.out, "= OpAtomicIAdd "), 1);
    run_free(&r);
    r = run_qdc("--target=vulkan1.1", "--cap=+subgroup-ballot", "--atomic-rewrite=reduce", "--emit=spirv-asm",
                "examples/compaction.qd", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count(r.out, "OpGroupNonUniform"), 0);
    cr_expect_eq(count(r.out, "= OpAtomicIAdd "), 1);
    run_free(&r);
}

/* MSL (apple7+, no cap: SIMD-scoped reductions are in every Apple family qdc targets) through
 * SPIRV-Cross: simd_sum / simd_max and simd_is_first around one atomic; compaction's slot from
 * SPIRV-Cross's ballot bit-count helpers and spvSubgroupBroadcastFirst. The MSL itself compiles
 * against the stub (msl_check). */
Test(reduce, msl_simd_group_rewrites) {
    RunResult r = run_qdc("--target=apple7", "--emit=msl", "bench/x86/reductions.qd", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count(r.out, "= simd_sum("), 1, "%s", r.out);
    cr_expect_eq(count(r.out, "= simd_max("), 1);
    cr_expect_eq(count(r.out, "= simd_is_first();"), 2);
    cr_expect_eq(count(r.out, "atomic_fetch_add_explicit("), 2);
    run_free(&r);
    r = run_qdc("--target=apple7", "--emit=msl", "examples/compaction.qd", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count(r.out, "= spvSubgroupBallotExclusiveBitCount("), 1, "%s", r.out);
    cr_expect_eq(count(r.out, "= spvSubgroupBroadcastFirst("), 1);
    run_free(&r);
    r = run_qdc("--target=apple7", "--emit=msl", "--atomic-rewrite=none", "bench/x86/reductions.qd", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count(r.out, "simd_"), 0);
    run_free(&r);
}

/* rewrite.subgroup_types takes int32, int64, f32-add, f64-add only (QD3003 otherwise). */
Test(reduce, bad_subgroup_types_in_the_database) {
    char *dir = make_temp_dir(), *path = xasprintf("%s/badrw.yaml", dir);
    cr_assert(write_text(path, "schema: 1\nname: badrw\nextends: vulkan1.1\nrank: 999\n"
                               "rewrite:\n  subgroup_types: int32 f32-min\n"));
    RunResult r = run_qdc("--capdb-dir", dir, "--list-targets", NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "badrw.yaml:6:19: error[QD3003]: bad value 'int32 f32-min' for rewrite.subgroup_types "
                            "(a list of int32, int64, f32-add, f64-add)"), "%s", r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(path);
}
