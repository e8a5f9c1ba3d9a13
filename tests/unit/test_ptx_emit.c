/* The PTX target on hand-built lowered IR: every decision comes out as the exact instruction
 * (inline PTX for orders, scopes, red, inc/dec and 16-bit float add; LLVM's own atom only for
 * relaxed device scope), entries and launch bounds are right, and ptxas accepts the module. */
#include "test_ptx_ir.h"
#include <stdio.h>

/* Emits the probe for family and checks every `want` line fragment is present and no `bad`. */
static char *check(ProbeSpec p, const char *family, const char *const *want, const char *const *bad) {
    char *ptx = probe_emit(&p, family, EMIT_PTX, NULL);
    for (; want && *want; want++) cr_expect(strstr(ptx, *want), "%s: missing '%s' in\n%s", family, *want, ptx);
    for (; bad && *bad; bad++) cr_expect(!strstr(ptx, *bad), "%s: unexpected '%s' in\n%s", family, *bad, ptx);
    ptxas_accepts(ptx, family);
    return ptx;
}

#define W(...) ((const char *const[]){__VA_ARGS__, NULL})

Test(ptx_emit, entry_grid_stride_and_bounds) {
    ProbeSpec p = probe_spec(QOP_ADD, QT_I32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE);
    char *ptx = check(p, "sm_90", W(".visible .entry probe_t0(", ".maxntid 128, 1, 1", "%nctaid.x",
                                    "atom.global.add.u32", ".version 8.0", ".target sm_90"),
                      W("atom.relaxed", "fence", "membar"));
    free(ptx);
    p.block_dim = 256;
    free(check(p, "sm_90", W(".reqntid 256, 1, 1"), W(".maxntid")));
}

Test(ptx_emit, ordered_and_scoped_atomics_inline) {
    free(check(probe_spec(QOP_ADD, QT_U32, QSPACE_GLOBAL, QORD_ACQ_REL, QSCOPE_BLOCK), "sm_90",
               W("atom.acq_rel.cta.global.add.u32"), W("fence")));
    free(check(probe_spec(QOP_CAS, QT_I64, QSPACE_GLOBAL, QORD_SEQ_CST, QSCOPE_SYSTEM), "sm_70",
               W("fence.sc.sys;", "atom.acq_rel.sys.global.cas.b64"), NULL));
    free(check(probe_spec(QOP_MAX, QT_I32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_CLUSTER), "sm_90",
               W("atom.cluster.global.max.s32"), NULL));
    free(check(probe_spec(QOP_ADD, QT_F32, QSPACE_GLOBAL, QORD_RELEASE, QSCOPE_DEVICE), "sm_80",
               W("atom.release.gpu.global.add.f32"), NULL));
}

Test(ptx_emit, inc_dec_and_half_add_never_cas) {
    free(check(probe_spec(QOP_INC, QT_U32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE), "sm_90",
               W("atom.gpu.global.inc.u32"), W("atom.global.cas")));
    free(check(probe_spec(QOP_DEC, QT_U32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE), "sm_60",
               W("atom.gpu.global.dec.u32"), W("atom.global.cas")));
    free(check(probe_spec(QOP_ADD, QT_F16, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE), "sm_70",
               W("atom.gpu.global.add.noftz.f16"), W("cas.b32")));
    free(check(probe_spec(QOP_ADD, QT_BF16, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE), "sm_90",
               W("atom.gpu.global.add.noftz.bf16"), W("cas.b32")));
}

Test(ptx_emit, red_when_unused) {
    ProbeSpec p = probe_spec(QOP_ADD, QT_U32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE);
    p.unused = true;
    p.low.no_return = true;
    free(check(p, "sm_90", W("red.gpu.global.add.u32"), W("atom.")));
}

Test(ptx_emit, loads_stores_volatile) {
    free(check(probe_spec(QOP_LOAD, QT_I32, QSPACE_GLOBAL, QORD_ACQUIRE, QSCOPE_DEVICE), "sm_90",
               W("ld.acquire.gpu.global.b32"), NULL));
    free(check(probe_spec(QOP_LOAD, QT_F64, QSPACE_GLOBAL, QORD_SEQ_CST, QSCOPE_SYSTEM), "sm_90",
               W("fence.sc.sys;", "ld.acquire.sys.global.b64"), NULL));
    free(check(probe_spec(QOP_STORE, QT_U32, QSPACE_GLOBAL, QORD_RELEASE, QSCOPE_BLOCK), "sm_70",
               W("st.release.cta.global.b32"), NULL));
    ProbeSpec v = probe_spec(QOP_LOAD, QT_I32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE);
    v.is_volatile = true;
    free(check(v, "sm_90", W("ld.volatile.global.u32"), W("ld.acquire")));
}

Test(ptx_emit, sm60_orders_are_membar) {
    ProbeSpec p = probe_spec(QOP_ADD, QT_I32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE);
    p.low.order = QORD_ACQ_REL; /* asked order; the instruction itself stays relaxed */
    p.low.flags = LOWF_MEMBAR_ORDERS;
    char *ptx = check(p, "sm_60", W("membar.gl;", "atom.global.add.u32"), W("acq_rel", "fence."));
    const char *first = strstr(ptx, "membar.gl;"), *atom = strstr(ptx, "atom.global.add.u32");
    cr_expect(first && atom && first < atom && strstr(atom, "membar.gl;"), "membar must bracket the atom:\n%s", ptx);
    free(ptx);
    ProbeSpec ld = probe_spec(QOP_LOAD, QT_U32, QSPACE_GLOBAL, QORD_ACQUIRE, QSCOPE_SYSTEM);
    ld.low.flags = LOWF_MEMBAR_ORDERS;
    free(check(ld, "sm_60", W("ld.volatile.global.u32", "membar.sys;"), W("ld.acquire")));
}

Test(ptx_emit, shared_arrays_and_barrier) {
    ProbeSpec p = probe_spec(QOP_ADD, QT_I32, QSPACE_SHARED, QORD_RELAXED, QSCOPE_BLOCK);
    p.barrier = true;
    free(check(p, "sm_90", W(".shared .align 16 .b8 probe_t0__sh[1024];", "atom.cta.shared.add.u32", "bar.sync \t0;"),
               NULL));
}

/* The command line: `qdc k.qd --target=sm_90 -o k.ptx` writes PTX with one .entry per task;
 * metadata names the entries with their block sizes. */
Test(ptx_emit, cli_ptx_and_metadata) {
    char *src = root_path("examples/last_block.qd");
    char *dir = make_temp_dir();
    char *out = xasprintf("%s/k.ptx", dir);
    RunResult r = run_qdc(src, "--target=sm_90", "-o", out, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char *ptx = read_text(out, NULL);
    cr_assert_not_null(ptx);
    cr_expect(strstr(ptx, ".visible .entry last_block_t0(") && strstr(ptx, ".visible .entry last_block_t1("), "%s", ptx);
    cr_expect(strstr(ptx, ".reqntid 1, 1, 1"), "loop_config(block_dim=1) must give .reqntid 1:\n%s", ptx);
    cr_expect(strstr(ptx, "fence.sc.gpu;"), "grid.mem_fence() must be fence.sc.gpu on sm_90:\n%s", ptx);
    free(ptx);
    run_free(&r);
    r = run_qdc(src, "--target=sm_60", "--emit=asm", "-o", "-", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "membar.gl;") && !strstr(r.out, "fence."), "sm_60 fences must be membar:\n%s", r.out);
    run_free(&r);
    r = run_qdc(src, "--target=sm_90", "--emit=metadata", "-o", "-", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\"last_block_t1\", \"kind\": \"parallel\", \"block_dim\": 1"), "%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(src), free(dir), free(out);
}

/* .version and .target come from the database (ptx.isa, ptx.sm) for every NVIDIA family. */
Test(ptx_emit, version_and_target_from_database) {
    static const char *const fams[] = {"sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"};
    for (size_t i = 0; i < ARRAY_LEN(fams); i++) {
        const CapTarget *t = probe_target(fams[i]);
        const char *isa = cap_str(t, "ptx.isa"), *sm = cap_str(t, "ptx.sm");
        cr_assert(isa && sm, "%s has no ptx.isa/ptx.sm", fams[i]);
        char *want_v = xasprintf(".version %s\n", isa), *want_t = xasprintf(".target %s\n", sm);
        ProbeSpec p = probe_spec(QOP_ADD, QT_U32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE);
        char *ptx = probe_emit(&p, fams[i], EMIT_PTX, NULL);
        cr_expect(strstr(ptx, want_v), "%s: expected '%s' from ptx.isa in\n%s", fams[i], isa, ptx);
        cr_expect(strstr(ptx, want_t), "%s: expected '.target %s' from ptx.sm", fams[i], sm);
        free(ptx), free(want_v), free(want_t);
    }
}
