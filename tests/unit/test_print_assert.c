/* print(...) and assert per backend: x86 printf (x86_kernels/print runs it), PTX vprintf,
 * elsewhere warning QD5180 and no code; assert is checked and compiled out. */
#include "test_x86.h"
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
        if (i == 0) cr_assert(asprintf(&want, "%s:9:9: warning[QD5180]: print(...) is compiled out for target 'gfx90a' (no output channel) [-Wprint-unsupported]\n", src) > 0);
        else cr_assert(asprintf(&want, "%s:9:9: warning[QD5180]: print(...) is compiled out for SPIR-V and MSL targets (no output channel) [-Wprint-unsupported]\n", src) > 0);
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
    cr_assert(asprintf(&w2, "%s:6:12: error[QD2001]: use of undefined name 'm'", bad) > 0);
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
    char *obj = NULL, *hdr = NULL;
    cr_assert(asprintf(&obj, "%s/d.o", dir) > 0 && asprintf(&hdr, "%s/d.h", dir) > 0);
    RunResult c = run_qdc(flag, src, "-o", obj, NULL), h = run_qdc("--emit=header", src, "-o", hdr, NULL);
    cr_assert(c.status == 0 && h.status == 0, "%s%s", c.err, h.err);
    run_free(&c), run_free(&h);
    const char *objs[] = {"d.o", NULL};
    cr_assert(x86_build_host(dir, assert_host, objs));
    free(obj), free(hdr);
    return x86_run_host(dir, n, "4", NULL);
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
