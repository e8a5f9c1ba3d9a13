/* print(...) and assert per backend: x86 printf (x86_kernels/print runs it), PTX vprintf, Vulkan
 * NonSemantic.DebugPrintf (1.3, or 1.1/1.2 with --cap=+non-semantic-info; lavapipe runs it under
 * the validation layer's Debug Printf in vulkan_debug_printf_runs), elsewhere warning QD5180 and
 * no code (the capability files' print section); assert is checked and compiled out. */
#include "test_x86.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const src_text =
    "import quadrants as qd\n\n"
    "x = qd.field(qd.i32, shape=(4,))\n\n"
    "@qd.kernel\n"
    "def k(n: qd.i32):\n"
    "    for i in range(4):\n"
    "        assert x[i] >= 0, \"negative\"\n"
    "        print(\"i\", i, n)\n";

static char *setup(char **dir) {
    *dir = make_temp_dir();
    char *src = NULL;
    cr_assert(asprintf(&src, "%s/p.qd", *dir) > 0 && write_text(src, src_text));
    return src;
}

Test(print_assert, ptx_calls_vprintf) {
    char *dir, *src = setup(&dir), *out = NULL;
    cr_assert(asprintf(&out, "%s/p.ptx", dir) > 0);
    RunResult r = run_qdc("--target=sm_80", src, "-o", out, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    size_t len;
    char *ptx = read_text(out, &len);
    cr_assert(ptx);
    cr_expect(strstr(ptx, ".extern .func  (.param .b32 func_retval0) vprintf") && strstr(ptx, "call.uni (retval0),"),
              "no vprintf call:\n%s", ptx);
    if (tool_available("/usr/local/cuda/bin/ptxas")) {
        char *cubin = NULL;
        cr_assert(asprintf(&cubin, "%s.cubin", out) > 0);
        RunResult p = run_argv((const char *[]){"/usr/local/cuda/bin/ptxas", "-arch=sm_80", out, "-o", cubin, NULL}, NULL, NULL);
        cr_expect_eq(p.status, 0, "%s", p.err);
        run_free(&p);
        free(cubin);
    }
    run_free(&r);
    remove_tree(dir);
    free(ptx), free(dir), free(src), free(out);
}

Test(print_assert, other_targets_warn_and_compile) {
    static const char *const fams[] = {"gfx90a", "vulkan1.2", "apple8"};
    for (size_t i = 0; i < 3; i++) {
        char *dir, *src = setup(&dir), *out = NULL, *tgt = NULL, *want = NULL;
        cr_assert(asprintf(&out, "%s/p.out", dir) > 0 && asprintf(&tgt, "--target=%s", fams[i]) > 0);
        RunResult r = run_qdc(tgt, src, "-o", out, NULL);
        cr_expect_eq(r.status, 0, "%s: %s", fams[i], r.err);
        cr_expect(file_exists(out));
        if (i == 1) /* Vulkan before 1.3: only with the device extension asserted */
            cr_assert(asprintf(&want, "%s:9:9: warning[QD5180]: print(...) is compiled out for target 'vulkan1.2' (pass "
                                      "--cap=+non-semantic-info if the device has it: VK_KHR_shader_non_semantic_info (core in "
                                      "Vulkan 1.3): print(...) is emitted as NonSemantic.DebugPrintf) [-Wprint-unsupported]\n", src) > 0);
        else
            cr_assert(asprintf(&want, "%s:9:9: warning[QD5180]: print(...) is compiled out for target '%s' (no output channel) "
                                      "[-Wprint-unsupported]\n", src, fams[i]) > 0);
        cr_expect(!strncmp(r.err, want, strlen(want)), "%s: got\n%s", fams[i], r.err);
        run_free(&r);
        RunResult w = run_qdc(tgt, "-Werror", src, "-o", out, NULL); /* never silently: -Werror makes it fatal */
        cr_expect_eq(w.status, 1, "%s -Werror: %s", fams[i], w.err);
        run_free(&w);
        remove_tree(dir);
        free(dir), free(src), free(out), free(tgt), free(want);
    }
}

Test(print_assert, assert_is_checked_and_compiled_out) {
    char *dir, *src = setup(&dir), *out = NULL;
    cr_assert(asprintf(&out, "%s/p.ir", dir) > 0);
    RunResult r = run_qdc("--emit=ir", src, "-o", out, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    size_t len;
    char *ir = read_text(out, &len);
    cr_assert(ir);
    cr_expect(!strstr(ir, "load field x"), "the assert left code behind:\n%s", ir);
    run_free(&r);
    char *bad = NULL;
    cr_assert(asprintf(&bad, "%s/bad.qd", dir) > 0);
    cr_assert(write_text(bad, "import quadrants as qd\n\n@qd.kernel\ndef k(n: qd.i32):\n    assert n > 0, n\n    assert m\n"));
    RunResult e = run_qdc("--check", bad, NULL);
    cr_expect_eq(e.status, 1);
    char *w1 = NULL, *w2 = NULL;
    cr_assert(asprintf(&w1, "%s:5:19: error[QD2019]: the message of an assert must be a string literal, an f-string or \"...\" %% values\n", bad) > 0);
    cr_assert(asprintf(&w2, "%s:6:12: error[QD2001]: Name \"m\" is not defined", bad) > 0);
    cr_expect(strstr(e.err, w1) && strstr(e.err, w2), "got:\n%s", e.err);
    run_free(&e);
    remove_tree(dir);
    free(ir), free(dir), free(src), free(out), free(bad), free(w1), free(w2);
}

/* --debug: a failed assert on x86 writes "file:line:col: assertion failed: msg" to stderr and
 * aborts; without --debug the same kernel runs to the end. PTX calls __assertfail; AMDGPU
 * warns QD5181. */
static const char *const assert_host =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n    (void)argc;\n    k_args a = {atoi(argv[1])};\n"
    "    int rc = k(&a, atoi(argv[2]));\n    printf(\"rc %d x7 %d\\n\", rc, qd_field_x[7]);\n    return 0;\n}\n";

static RunResult debug_run(const char *dir, const char *src, const char *flag, const char *n) {
    RunResult r = x86_compile_and_run(dir, src, flag, assert_host, n, "4");
    cr_assert(r.status != -1, "%s", r.err);
    return r;
}

Test(print_assert, debug_asserts) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir(), *src = NULL, *want = NULL;
    cr_assert(asprintf(&src, "%s/d.qd", dir) > 0);
    cr_assert(write_text(src, "import quadrants as qd\n\nx = qd.field(qd.i32, shape=(8,))\n\n@qd.kernel\ndef k(n: qd.i32):\n"
                              "    for i in range(8):\n        assert i < n, \"i below n\"\n        x[i] = i\n"));
    RunResult ok = debug_run(dir, src, "--debug", "8");
    cr_expect_eq(ok.status, 0, "%s", ok.err);
    cr_expect_str_eq(ok.out, "rc 0 x7 7\n");
    run_free(&ok);
    RunResult bad = debug_run(dir, src, "--debug", "5");
    cr_expect_eq(bad.status, 128 + 6, "a failed assert aborts: status %d\n%s", bad.status, bad.err);
    cr_assert(asprintf(&want, "%s:8:9: assertion failed: i below n\n", src) > 0);
    cr_expect(strstr(bad.err, want), "stderr:\n%s", bad.err);
    run_free(&bad);
    RunResult off = debug_run(dir, src, "-O2", "5"); /* without --debug: compiled out */
    cr_expect_eq(off.status, 0, "%s", off.err);
    cr_expect_str_eq(off.out, "rc 0 x7 7\n");
    run_free(&off);
    char *ptx = NULL;
    cr_assert(asprintf(&ptx, "%s/d.ptx", dir) > 0);
    RunResult p = run_qdc("--debug", "--target=sm_80", src, "-o", ptx, NULL);
    cr_expect_eq(p.status, 0, "%s", p.err);
    size_t len;
    char *text = read_text(ptx, &len);
    cr_expect(text && strstr(text, "__assertfail") && strstr(text, "trap;"), "PTX without __assertfail/trap");
    free(text);
    run_free(&p);
    char *hsaco = NULL; /* an -o name of another backend's kind (.ptx for gfx90a) is an error */
    cr_assert(asprintf(&hsaco, "%s/d.hsaco", dir) > 0);
    RunResult g = run_qdc("--debug", "--target=gfx90a", src, "-o", hsaco, NULL);
    free(hsaco);
    cr_expect_eq(g.status, 0);
    cr_expect(strstr(g.err, "8:9: warning[QD5181]: assert is compiled out for target 'gfx90a' even with --debug (no way to report)"), "%s", g.err);
    run_free(&g);
    remove_tree(dir);
    free(dir), free(src), free(want), free(ptx);
}

/* Vulkan 1.3 (and 1.2 with the capability): one OpExtInst DebugPrintf per print, its format in the
 * debug-printf dialect (%ld/%lu for 64-bit integers, %% kept), f32 values narrowed back from the
 * frontend's double, f64 values as f64; the capability is listed in the metadata. */
Test(print_assert, vulkan_debug_printf) {
    static const char *const text = "import quadrants as qd\n"
                                     "x = qd.field(qd.f32, shape=4)\n"
                                     "y = qd.field(qd.f64, shape=4)\n"
                                     "@qd.kernel\n"
                                     "def k(n: qd.i64):\n"
                                     "    for i in x:\n"
                                     "        print('i =', i, 'x:', x[i], y[i], n, qd.u64(n), '100%')\n";
    char *dir = make_temp_dir(), *src = NULL;
    cr_assert(asprintf(&src, "%s/d.py", dir) > 0 && write_text(src, text));
    RunResult a = run_qdc("--target=vulkan1.3", "--emit=spirv-asm", src, "-o", "-", NULL);
    RunResult b = run_qdc("--target=vulkan1.2", "--cap=+non-semantic-info", "--emit=spirv-asm", src, "-o", "-", NULL);
    RunResult m = run_qdc("--target=vulkan1.2", "--cap=+non-semantic-info", "--emit=metadata", src, "-o", "-", NULL);
    RunResult m3 = run_qdc("--target=vulkan1.3", "--emit=metadata", src, "-o", "-", NULL);
    RunResult *rs[] = {&a, &b};
    for (int i = 0; i < 2; i++) {
        cr_expect_eq(rs[i]->status, 0, "%s", rs[i]->err);
        cr_expect_str_eq(rs[i]->err, "");
        cr_expect(strstr(rs[i]->out, "= OpExtInstImport \"NonSemantic.DebugPrintf\"\n"), "%s", rs[i]->out);
        cr_expect(strstr(rs[i]->out, "= OpString \"i = %d x: %f %.12f %ld %lu 100%%\n\"\n"), "%s", rs[i]->out);
        cr_expect(strstr(rs[i]->out, " 1 %"), "DebugPrintf is instruction 1 of the set: %s", rs[i]->out);
    }
    cr_expect(!strstr(a.out, "SPV_KHR_non_semantic_info"), "core in SPIR-V 1.6");
    cr_expect(strstr(b.out, "OpExtension \"SPV_KHR_non_semantic_info\"\n"), "%s", b.out);
    cr_expect(strstr(m.out, "\"capabilities_used\": [\"non-semantic-info\"]"), "%s", m.out);
    cr_expect(!strstr(m3.out, "non-semantic-info"), "%s", m3.out);
    run_free(&a), run_free(&b), run_free(&m), run_free(&m3);
    remove_tree(dir);
    free(dir), free(src);
}

/* Printing needs no Float64: f32 values reach DebugPrintf as f32 (the frontend's widening undone). */
Test(print_assert, vulkan_debug_printf_of_f32_needs_no_float64) {
    static const char *const text = "import quadrants as qd\n"
                                     "x = qd.field(qd.f32, shape=4)\n"
                                     "@qd.kernel\n"
                                     "def k():\n"
                                     "    for i in x:\n"
                                     "        print(x[i], 0.5, qd.f16(x[i]))\n";
    char *dir = make_temp_dir(), *src = NULL;
    cr_assert(asprintf(&src, "%s/d.py", dir) > 0 && write_text(src, text));
    RunResult r = run_qdc("--target=vulkan1.3", "--emit=spirv-asm", src, "-o", "-", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "= OpString \"%f %f %f\n\"\n"), "%s", r.out);
    cr_expect(!strstr(r.out, "Float64") && !strstr(r.out, "OpTypeFloat 64"), "%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
}

/* Run on lavapipe under the validation layer's Debug Printf: the lines are exactly what x86 prints
 * for these values, in order (one invocation prints them all), and qd.clock_counter() with
 * --cap=+shader-clock advances (lavapipe has shaderDeviceClock). The 32-bit and unsigned 64-bit
 * conversions only: the 1.3.239 layer this suite fetches predates %ld and 64-bit floats. */
Test(print_assert, vulkan_debug_printf_runs, .timeout = 120) {
    static const char *const text = "import quadrants as qd\n"
                                     "@qd.kernel\n"
                                     "def k():\n"
                                     "    for _ in range(1):\n"
                                     "        t0 = qd.clock_counter()\n"
                                     "        for i in range(3):\n"
                                     "            print('i =', i, qd.u32(4000000000), -7, 0.25, qd.u64(1 << 40), '100%')\n"
                                     "        t1 = qd.clock_counter()\n"
                                     "        print('clock', t0 != 0, t1 > t0)\n";
    static const char *const want = "i = 0 4000000000 -7 0.250000 1099511627776 100%\n"
                                    "i = 1 4000000000 -7 0.250000 1099511627776 100%\n"
                                    "i = 2 4000000000 -7 0.250000 1099511627776 100%\n"
                                    "clock 1 1\n";
    static const char *const targets[][3] = {{"--target=vulkan1.3", "--cap=+shader-clock", NULL},
                                             {"--target=vulkan1.2", "--cap=+shader-clock", "--cap=+non-semantic-info"}};
    char *dir = make_temp_dir(), *src = NULL, *spv = NULL;
    cr_assert(asprintf(&src, "%s/d.py", dir) > 0 && write_text(src, text) && asprintf(&spv, "%s/d.spv", dir) > 0);
    for (int t = 0; t < 2; t++) {
        RunResult c = run_qdc(targets[t][0], targets[t][1], targets[t][2] ? targets[t][2] : "-O2", src, "-o", spv, NULL);
        cr_assert_eq(c.status, 0, "%s", c.err);
        cr_expect_str_eq(c.err, "");
        run_free(&c);
        char *out = NULL, *err = NULL;
        const char *entries[] = {"k_t0:1"};
        int ran = vk_run_printf(dir, spv, entries, 1, &out, &err);
        cr_expect_neq(ran, -1, "%s", err ? err : "");
        if (ran == 1) cr_expect_str_eq(out, want, "%s", targets[t][0]);
        free(out), free(err);
    }
    remove_tree(dir);
    free(dir), free(src), free(spv);
}
