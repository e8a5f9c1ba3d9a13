/* Modules of many kernels (issue 13 item 16: 10,000 small kernels needed 33 s of CPU and 6.6 GB
 * on Vulkan). These tests count the structure that kept the work linear rather than timing it:
 * built-in input variables shared by groups of 64 entry points (one set for all of them made
 * SPIRV-Tools keep a copy per entry point and reference; one per entry point made its name
 * mapper quadratic), and the C-name clash check, now a hash index, still finding a clash between
 * the first and the last of many kernels. */
#include "harness.h"
#include "support/util.h"
#include "targets/spirv/spvtools.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `n` kernels k0..k{n-1}, each one parallel loop with one atomic add; kernel `clash` (if >= 0)
 * is named k0_args instead, the name of k0's argument struct. */
static char *many_kernels(int n, int clash) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "import quadrants as qd\n");
    for (int k = 0; k < n; k++) {
        if (k == clash) sb_puts(&b, "\n@qd.kernel\ndef k0_args(a: qd.types.NDArray[qd.i32, 1]):\n");
        else sb_printf(&b, "\n@qd.kernel\ndef k%d(a: qd.types.NDArray[qd.i32, 1]):\n", k);
        sb_printf(&b, "    for i in range(a.shape[0]):\n        a[i] += %d\n", k);
    }
    return sb_take(&b);
}

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

Test(scaling, vulkan_builtins_are_shared_by_groups_of_64_entry_points) {
    char *dir = make_temp_dir(), *qd = xasprintf("%s/many.qd", dir), *src = many_kernels(200, -1);
    cr_assert(write_text(qd, src));
    RunResult r = run_qdc(qd, "--target=vulkan1.3", "--emit=spirv-asm", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count(r.out, "OpEntryPoint GLCompute"), 200);
    /* 200 entry points: groups 0-63, 64-127, 128-191, 192-199 */
    cr_expect_eq(count(r.out, "BuiltIn GlobalInvocationId"), 4, "%s", r.out);
    cr_expect_eq(count(r.out, "BuiltIn NumWorkgroups"), 4);
    run_free(&r);
    /* a module of fewer than 64 kernels keeps one set, as before */
    free(src), src = many_kernels(63, -1);
    cr_assert(write_text(qd, src));
    RunResult s = run_qdc(qd, "--target=vulkan1.3", "--emit=spirv-asm", "-o", "-", NULL);
    cr_assert_eq(s.status, 0, "%s", s.err);
    cr_expect_eq(count(s.out, "BuiltIn GlobalInvocationId"), 1);
    run_free(&s);
    remove_tree(dir);
    free(dir), free(qd), free(src);
}

Test(scaling, name_clash_between_first_and_last_of_many_kernels) {
    char *dir = make_temp_dir(), *qd = xasprintf("%s/many.qd", dir), *src = many_kernels(3000, 2999);
    cr_assert(write_text(qd, src));
    RunResult r = run_qdc(qd, "--target=vulkan1.3", "-o", "-", NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    char *want = xasprintf("%s:%d:5: error[QD5006]: the launcher of kernel 'k0_args' is named 'k0_args', which is "
                           "already the argument struct of kernel 'k0'; rename one of them\n",
                           qd, 2 + 2999 * 5 + 2);
    cr_expect(!strncmp(r.err, want, strlen(want)), "want %s got %s", want, r.err);
    cr_expect_eq(r.out_len, 0);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(qd), free(src), free(want);
}

/* A kernel of many parallel loops (issue 33: 1,000 loops took 13 s and 965 MB on x86_64): each
 * task's function declares only the locals that task uses, not every local of the kernel. */
Test(scaling, each_task_declares_only_its_own_locals) {
    char *dir = make_temp_dir(), *qd = xasprintf("%s/loops.qd", dir);
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "import quadrants as qd\n\n@qd.kernel\ndef loops(a: qd.types.NDArray[qd.i32, 1]):\n");
    for (int k = 0; k < 50; k++) sb_printf(&b, "    for i in range(a.shape[0]):\n        a[i] += %d\n", k);
    char *src = sb_take(&b);
    cr_assert(write_text(qd, src));
    RunResult r = run_qdc(qd, "--target=vulkan1.3", "--emit=spirv-asm", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count(r.out, "OpEntryPoint GLCompute"), 50);
    /* per task: its index, its `i` and the loop counter (all 100 locals each: 5,050) */
    cr_expect_eq(count(r.out, "OpVariable %_ptr_Function_int Function"), 150, "%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(qd), free(src);
}

/* Scopes of many names (issue 33: a module of 10,000 kernels made the frontend's linear name
 * lookup quadratic): past 64 names a scope is looked up through a hash index, which must find
 * the latest binding of a rebound name, the first and the last of many, and miss an unknown one
 * (with the same "did you mean" as before). */
static char *many_names(const char *last_use) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "import quadrants as qd\n");
    for (int k = 0; k < 300; k++) sb_printf(&b, "c%d = %d\n", k, k);
    sb_puts(&b, "c5 = 1005\n\n@qd.kernel\ndef k(a: qd.types.NDArray[qd.i32, 1]):\n");
    for (int k = 0; k < 100; k++) sb_printf(&b, "    v%d = a[%d] + %d\n", k, k, k);
    sb_puts(&b, "    v3 = v3 * 2\n    a[0] = c0 + c299 + c5 + v3 + v99\n");
    sb_printf(&b, "    a[1] = %s\n", last_use);
    return sb_take(&b);
}

Test(scaling, scopes_of_many_names_find_the_latest_binding) {
    char *dir = make_temp_dir(), *qd = xasprintf("%s/names.qd", dir), *src = many_names("c150 + v0");
    cr_assert(write_text(qd, src));
    RunResult r = run_qdc(qd, "--emit=ir", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    /* c0 + c299 + c5 folds to 0 + 299 + 1005; v3 is the local rebound by `v3 = v3 * 2` */
    cr_expect(strstr(r.out, "    %3 = (mul:i32 %3 2:i32)\n"
                            "    store ndarray a[0:i32]:i32 = (add:i32 (add:i32 1304:i32 %3) %99)\n"
                            "    store ndarray a[1:i32]:i32 = (add:i32 150:i32 %0)\n"), "%s", r.out);
    run_free(&r);
    const char *bad[][2] = {{"c300 + v0", "12: error[QD2001]: Name \"c300\" is not defined; did you mean 'c30'?\n"},
                            {"c150 + v100", "19: error[QD2001]: Name \"v100\" is not defined; did you mean 'v10'?\n"}};
    for (size_t k = 0; k < ARRAY_LEN(bad); k++) {
        free(src), src = many_names(bad[k][0]);
        cr_assert(write_text(qd, src));
        RunResult e = run_qdc(qd, "--emit=ir", "-o", "-", NULL);
        char *want = xasprintf("%s:408:%s", qd, bad[k][1]);
        cr_expect_eq(e.status, 1);
        cr_expect(!strncmp(e.err, want, strlen(want)), "want %s got %s", want, e.err);
        cr_expect_eq(e.out_len, 0);
        run_free(&e), free(want);
    }
    remove_tree(dir);
    free(dir), free(qd), free(src);
}

/* A module of more than 64 entry points is validated as pieces of 64 (targets/spirv/validate.c:
 * SPIRV-Tools' entry-point name check compares every pair). Every error the whole module's
 * validation finds must still be found: in a late piece's function, in a module-scope
 * instruction or a function that no entry point reaches, in a decoration, and across pieces (two
 * entry points of one name). `fault` picks one; 0 is the valid module. */
static char *pieces_module(int n, int fault) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "OpCapability Shader\nOpMemoryModel Logical GLSL450\n");
    for (int k = 0; k < n; k++)
        sb_printf(&b, "OpEntryPoint GLCompute %%f%d \"e%d\" %%v%d\n", k, fault == 2 && k == n - 1 ? 0 : k, k);
    for (int k = 0; k < n; k++) sb_printf(&b, "OpExecutionMode %%f%d LocalSize 1 1 1\n", k);
    sb_puts(&b, "OpDecorate %S Block\nOpMemberDecorate %S 0 Offset 0\n");
    for (int k = 0; k < n; k++)
        sb_printf(&b, "OpDecorate %%v%d DescriptorSet 0\nOpDecorate %%v%d Binding 0\n", k, k);
    if (fault == 5) sb_puts(&b, "OpDecorate %v150 BuiltIn GlobalInvocationId\n");
    sb_puts(&b, "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%int = OpTypeInt 32 1\n"
                "%S = OpTypeStruct %int\n%pS = OpTypePointer StorageBuffer %S\n"
                "%pi = OpTypePointer StorageBuffer %int\n%c0 = OpConstant %int 0\n");
    if (fault == 3) sb_puts(&b, "%bad = OpTypeVector %int 1\n");
    for (int k = 0; k < n; k++) sb_printf(&b, "%%v%d = OpVariable %%pS StorageBuffer\n%%c%d_ = OpConstant %%int %d\n", k, k, k);
    for (int k = 0; k < n; k++)
        sb_printf(&b, "%%f%d = OpFunction %%void None %%fn\n%%l%d = OpLabel\n%%p%d = OpAccessChain %%pi %%v%d %%c0\n"
                      "OpStore %%p%d %s%d%s\nOpReturn\nOpFunctionEnd\n",
                  k, k, k, k, k, fault == 1 && k == 150 ? "%v" : "%c", k, fault == 1 && k == 150 ? "" : "_");
    if (fault == 4)
        sb_puts(&b, "%g = OpFunction %void None %fn\n%lg = OpLabel\n%pg = OpAccessChain %pi %v0 %c0\n"
                    "OpStore %pg %v0\nOpReturn\nOpFunctionEnd\n");
    return sb_take(&b);
}

/* Assembles text with spirv-as (SPIRV-Tools' C header cannot be included beside libqdc) and
 * validates it as qdc does. */
static bool validate_text(const char *text, StrBuf *err) {
    char *dir = make_temp_dir(), *in = xasprintf("%s/m.spvasm", dir), *out = xasprintf("%s/m.spv", dir);
    cr_assert(write_text(in, text));
    const char *argv[] = {"spirv-as", "--target-env", "vulkan1.3", in, "-o", out, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    size_t len;
    char *bin = read_text(out, &len);
    cr_assert(bin && len % 4 == 0);
    uint32_t *words = xmalloc(len);
    memcpy(words, bin, len);
    bool ok = spv_validate(words, len / 4, "vulkan1.3", err);
    run_free(&r);
    remove_tree(dir);
    free(words), free(bin), free(dir), free(in), free(out);
    return ok;
}

Test(scaling, validation_by_pieces_finds_every_error) {
    if (!tool_available("spirv-as")) cr_skip_test("spirv-as not installed");
    /* the whole module's messages (word offsets in it), not a piece's */
    const char *want[] = {
        NULL,
        "word 2115: OpStore Pointer <id> '909[%909]'s type does not match Object <id> '302[%302]'s type.\n"
        "  OpStore %909 %302\n",
        "word 202: 2 Entry points cannot share the same name and ExecutionMode.\n"
        "  OpEntryPoint GLCompute %399 \"e0\" %400\n",
        "word 812: Illegal number of components (1) for TypeVector\n  %v1int = OpTypeVector %int 1\n",
        "word 2415: OpStore Pointer <id> '1010[%1010]'s type does not match Object <id> '2[%2]'s type.\n"
        "  OpStore %1010 %2\n",
        "word 1113: [VUID-GlobalInvocationId-GlobalInvocationId-04238] According to the Vulkan spec BuiltIn "
        "GlobalInvocationId variable needs to be a 3-component 32-bit int vector. ID <302> (OpVariable) is not an "
        "int vector.\n  %gl_GlobalInvocationID = OpVariable %_ptr_StorageBuffer__struct_401 StorageBuffer\n",
    };
    for (int fault = 0; fault <= 5; fault++) {
        char *text = pieces_module(200, fault);
        StrBuf err;
        sb_init(&err);
        bool ok = validate_text(text, &err);
        if (!want[fault]) cr_expect(ok, "fault %d: %s", fault, err.data);
        else cr_expect(!ok && !strcmp(err.data, want[fault]), "fault %d: %s", fault, err.data);
        sb_free(&err);
        free(text);
    }
}

/* Validation by pieces on qdc's own output with -g: OpString and OpLine go with every piece's
 * functions (a piece without the file's OpString would fail validation: exit status 3). */
Test(scaling, many_kernels_with_line_info_validate_by_pieces) {
    char *dir = make_temp_dir(), *qd = xasprintf("%s/many.qd", dir), *src = many_kernels(200, -1);
    cr_assert(write_text(qd, src));
    RunResult r = run_qdc(qd, "--target=vulkan1.3", "-g", "--emit=spirv-asm", "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(count(r.out, "OpEntryPoint GLCompute"), 200);
    cr_expect_eq(count(r.out, "OpString"), 1, "%s", r.out);
    cr_expect_geq(count(r.out, "OpLine"), 200);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(qd), free(src);
}
