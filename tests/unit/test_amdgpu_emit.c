/* The AMDGPU target on hand-built lowered IR: syncscopes from the parsed templates, kernel
 * attributes, LDS and barriers in the assembly, and the linked code object read back with
 * llvm-readelf-19 --notes / -h and llvm-objdump-19 -d. */
#include "test_ptx_ir.h"
#include "targets/llvm/gpu.h"
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define READELF "/usr/lib/llvm-19/bin/llvm-readelf"
#define OBJDUMP "/usr/lib/llvm-19/bin/llvm-objdump"

static void expect_all(const char *text, const char *const *want, const char *const *bad, const char *what) {
    for (; want && *want; want++) cr_expect(strstr(text, *want), "%s: missing '%s' in\n%s", what, *want, text);
    for (; bad && *bad; bad++) cr_expect(!strstr(text, *bad), "%s: unexpected '%s' in\n%s", what, *bad, text);
}

#define W(...) ((const char *const[]){__VA_ARGS__, NULL})

static void check(ProbeSpec p, const char *family, EmitKind emit, const char *const *want, const char *const *bad) {
    char *s = probe_emit(&p, family, emit, NULL);
    expect_all(s, want, bad, family);
    free(s);
}

Test(amdgpu_emit, syncscope_from_templates) {
    check(probe_spec(QOP_MIN, QT_I32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE), "gfx942", EMIT_LLVM_IR,
          W("atomicrmw min ptr addrspace(1)", "syncscope(\"agent\") monotonic, align 4", "amdgpu_kernel void @probe_t0("),
          NULL);
    check(probe_spec(QOP_CAS, QT_U64, QSPACE_GLOBAL, QORD_ACQ_REL, QSCOPE_BLOCK), "gfx90a", EMIT_LLVM_IR,
          W("cmpxchg ptr addrspace(1)", "syncscope(\"workgroup\") acq_rel acquire, align 8"), NULL);
    check(probe_spec(QOP_LOAD, QT_F32, QSPACE_GLOBAL, QORD_ACQUIRE, QSCOPE_SYSTEM), "gfx1100", EMIT_LLVM_IR,
          W("load atomic i32, ptr addrspace(1)", "acquire, align 4"), W("syncscope"));
    check(probe_spec(QOP_STORE, QT_I32, QSPACE_GLOBAL, QORD_RELEASE, QSCOPE_DEVICE), "gfx1200", EMIT_LLVM_IR,
          W("store atomic i32", "syncscope(\"agent\") release, align 4"), NULL);
    check(probe_spec(QOP_ADD, QT_F32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE), "gfx942", EMIT_LLVM_IR,
          W("atomicrmw fadd ptr addrspace(1)"), W("amdgpu-unsafe-fp-atomics"));
}

Test(amdgpu_emit, native_instructions_in_assembly) {
    /* agent scope keeps integer min/max native (system scope would be a CAS loop) */
    check(probe_spec(QOP_MAX, QT_I32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE), "gfx906", EMIT_ASM,
          W("global_atomic_smax", ".amdhsa_kernel probe_t0"), W("cmpswap"));
    check(probe_spec(QOP_INC, QT_U32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE), "gfx1030", EMIT_ASM,
          W("global_atomic_inc"), W("cmpswap"));
    check(probe_spec(QOP_ADD, QT_F64, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_SYSTEM), "gfx942", EMIT_ASM,
          W("global_atomic_add_f64"), W("cmpswap"));
    check(probe_spec(QOP_LOAD, QT_I32, QSPACE_GLOBAL, QORD_ACQUIRE, QSCOPE_DEVICE), "gfx942", EMIT_ASM,
          W("global_load_dword", "buffer_inv sc1"), NULL);
}

Test(amdgpu_emit, unsafe_fp_atomics_only_when_decided) {
    ProbeSpec p = probe_spec(QOP_ADD, QT_F32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE);
    p.low.kind = LOW_CAS_LOOP;
    p.low.via_int = true;
    check(p, "gfx90a", EMIT_ASM, W("global_atomic_cmpswap"), W("global_atomic_add_f32"));
    p = probe_spec(QOP_ADD, QT_F32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE);
    p.low.flags = LOWF_UNSAFE_FP_ATOMICS;
    check(p, "gfx90a", EMIT_LLVM_IR, W("\"amdgpu-unsafe-fp-atomics\"=\"true\""), NULL);
    check(p, "gfx90a", EMIT_ASM, W("global_atomic_add_f32"), W("cmpswap"));
}

Test(amdgpu_emit, lds_and_barrier) {
    ProbeSpec p = probe_spec(QOP_ADD, QT_U32, QSPACE_SHARED, QORD_RELAXED, QSCOPE_BLOCK);
    p.barrier = true;
    p.block_dim = 128; /* one 64-wide wave would let LLVM drop s_barrier */
    check(p, "gfx942", EMIT_ASM, W("ds_add_rtn_u32", "s_barrier", ".amdhsa_group_segment_fixed_size 1024"), NULL);
    check(p, "gfx942", EMIT_LLVM_IR, W("\"amdgpu-flat-work-group-size\"=\"128,128\"", "addrspace(3)"), NULL);
}

static char *tool_output(const char *tool, const char *flag, const char *path) {
    RunResult r = run_argv((const char *[]){tool, flag, path, NULL}, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s %s failed: %s", tool, flag, r.err);
    char *out = r.out;
    r.out = NULL;
    run_free(&r);
    return out;
}

Test(amdgpu_emit, hsaco_code_object_v5) {
    if (!tool_available(READELF) || !tool_available(OBJDUMP)) {
        printf("amdgpu_emit: SKIP code object read-back (llvm-readelf-19/llvm-objdump-19 missing)\n");
        return;
    }
    ProbeSpec p = probe_spec(QOP_ADD, QT_I32, QSPACE_GLOBAL, QORD_RELAXED, QSCOPE_DEVICE);
    size_t len = 0;
    char *co = probe_emit(&p, "gfx942", EMIT_HSACO, &len);
    cr_assert_gt(len, 64);
    cr_expect(!memcmp(co, "\177ELF", 4));
    char *dir = make_temp_dir();
    char *path = xasprintf("%s/k.hsaco", dir);
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(co, 1, len, f) == len);
    fclose(f);
    char *notes = tool_output(READELF, "--notes", path);
    expect_all(notes, W("NT_AMDGPU_METADATA", "amdhsa.target:   amdgcn-amd-amdhsa--gfx942", ".name:           probe_t0",
                        ".symbol:         probe_t0.kd", ".max_flat_workgroup_size: 256", ".wavefront_size: 64"),
               NULL, "readelf --notes");
    char *hdr = tool_output(READELF, "-h", path);
    expect_all(hdr, W("AMDGPU - HSA", "ABI Version:                       3", "DYN"), NULL, "readelf -h");
    char *dis = tool_output(OBJDUMP, "-d", path);
    expect_all(dis, W("<probe_t0>:", "global_atomic_add"), W("cmpswap"), "objdump -d");
    free(notes), free(hdr), free(dis);
    remove_tree(dir);
    free(path), free(dir), free(co);
}

Test(amdgpu_emit, missing_linker_is_a_clear_error) {
    probe_target("gfx942"); /* diagnostics initialised */
    setenv("QDC_LD_LLD", "/nonexistent/ld.lld-19", 1);
    StrBuf obj, out;
    sb_init(&obj), sb_init(&out);
    sb_puts(&obj, "not an object");
    cr_expect(!amdgpu_link(&obj, &out));
    cr_expect_eq(out.len, 0);
    unsetenv("QDC_LD_LLD");
    cr_expect(!amdgpu_link(&obj, &out), "ld.lld-19 must reject garbage input");
    sb_free(&obj), sb_free(&out);
}

/* The command line: default output is the linked code object; a missing linker is exit 1
 * with QD5005; metadata and header name every task entry. */
Test(amdgpu_emit, cli_hsaco_and_missing_linker) {
    char *src = root_path("examples/histogram.qd");
    char *dir = make_temp_dir();
    char *out = xasprintf("%s/h.hsaco", dir);
    RunResult r = run_qdc(src, "--target=gfx942", "-o", out, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    size_t len = 0;
    char *co = read_text(out, &len);
    cr_expect(co && len > 64 && !memcmp(co, "\177ELF", 4), "not an ELF code object");
    free(co);
    run_free(&r);
    unlink(out);
    setenv("QDC_LD_LLD", "/nonexistent/ld.lld-19", 1);
    r = run_qdc(src, "--target=gfx942", "-o", out, NULL);
    unsetenv("QDC_LD_LLD");
    cr_expect_eq(r.status, 1);
    cr_expect(!file_exists(out), "a failed link must leave no output file");
    cr_expect(strstr(r.err, "error[QD5005]: cannot link the AMDGPU code object: QDC_LD_LLD='/nonexistent/ld.lld-19' "
                            "cannot be run: No such file or directory"), "%s", r.err);
    run_free(&r);
    r = run_qdc(src, "--target=gfx90a", "--emit=metadata", "-o", "-", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    expect_all(r.out, W("\"backend\": \"amdgpu\"", "\"histogram_t0\"", "\"histogram_t1\"", "\"block_dim\": 256"), NULL,
               "metadata");
    run_free(&r);
    r = run_qdc(src, "--target=gfx90a", "--emit=header", "-o", "-", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "histogram"), "%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(src), free(dir), free(out);
}

/* "amdgpu-unsafe-fp-atomics" appears only when the database allows it, which on gfx90a needs
 * the user's --cap=+coarse-grained-memory; then f32 add is native instead of a CAS loop. */
Test(amdgpu_emit, cli_unsafe_fp_atomics_follow_the_cap) {
    char *src = root_path("examples/float_sum.qd");
    RunResult r = run_qdc(src, "--target=gfx90a", "--emit=asm", "-o", "-", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    expect_all(r.out, W("global_atomic_cmpswap"), W("global_atomic_add_f32"), "gfx90a default");
    run_free(&r);
    r = run_qdc(src, "--target=gfx90a", "--cap=+coarse-grained-memory", "--emit=asm", "-o", "-", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    expect_all(r.out, W("global_atomic_add_f32"), W("cmpswap"), "gfx90a +coarse-grained-memory");
    run_free(&r);
    r = run_qdc(src, "--target=gfx90a", "--emit=llvm-ir", "-o", "-", NULL);
    expect_all(r.out, NULL, W("amdgpu-unsafe-fp-atomics"), "gfx90a default IR");
    run_free(&r);
    free(src);
}

/* The pipelined link (ld.lld-19 started before the object exists, fed through a pipe) gives
 * byte for byte the code object that linking `--emit=obj` by hand gives. */
Test(amdgpu_emit, pipelined_link_matches_lld_on_the_object) {
    char *src = root_path("examples/last_block.qd");
    char *dir = make_temp_dir();
    char *obj = xasprintf("%s/k.o", dir), *co = xasprintf("%s/k.hsaco", dir), *ref = xasprintf("%s/ref.hsaco", dir);
    RunResult r = run_qdc(src, "--target=gfx942", "--emit=obj", "-o", obj, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_qdc(src, "--target=gfx942", "-o", co, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    const char *argv[] = {"/usr/lib/llvm-19/bin/ld.lld", "-shared", "--no-undefined", obj, "-o", ref, NULL};
    r = run_argv(argv, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    size_t n1 = 0, n2 = 0;
    char *a = read_text(co, &n1), *b = read_text(ref, &n2);
    cr_expect(a && b && n1 > 64 && n1 == n2 && !memcmp(a, b, n1), "qdc's code object differs from ld.lld-19's");
    free(a), free(b);
    remove_tree(dir);
    free(obj), free(co), free(ref), free(dir), free(src);
}

/* A linker that cannot be started (an executable that is not a program) is QD5005 naming the
 * reason; an aborted link kills and reaps the linker (no child is left). */
Test(amdgpu_emit, link_start_failure_and_abort) {
    probe_target("gfx942"); /* diagnostics initialised */
    char *dir = make_temp_dir();
    char *fake = xasprintf("%s/ld.lld-19", dir);
    cr_assert(write_text(fake, "not a program\n") && chmod(fake, 0755) == 0);
    setenv("QDC_LD_LLD", fake, 1);
    StrBuf obj, out;
    sb_init(&obj), sb_init(&out);
    int before = diag_error_count();
    cr_expect(!amdgpu_link_finish(amdgpu_link_start(), &obj, &out));
    cr_expect_eq(diag_error_count(), before + 1);
    cr_expect_eq(out.len, 0);
    unsetenv("QDC_LD_LLD");
    char *src = root_path("examples/histogram.qd"), *co = xasprintf("%s/k.hsaco", dir);
    char *env = xasprintf("QDC_LD_LLD=%s", fake);
    const char *argv[] = {"env", env, qdc_bin(), src, "--target=gfx942", "-o", co, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "error[QD5005]: cannot link the AMDGPU code object: cannot start '") &&
                  strstr(r.err, "': Exec format error"), "%s", r.err);
    cr_expect(!file_exists(co));
    run_free(&r);
    free(src), free(co), free(env);
    amdgpu_link_abort(amdgpu_link_start());
    cr_expect_eq(waitpid(-1, NULL, WNOHANG), -1, "the aborted linker was not reaped");
    remove_tree(dir);
    free(fake), free(dir);
}
