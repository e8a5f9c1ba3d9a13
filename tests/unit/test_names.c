/* Issue 13 item 8: mangling is injective or the clash is a located QD5006 (exit 1, no output),
 * and every header qdc writes compiles, as C17 and as C++, for every valid module in examples/
 * and testdata/frontend/valid-*.qd, for each header writer (CPU, GPU, SPIR-V/MSL). */
#include "harness.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static void compile_header(const char *h, const char *lang, const char *what);

/* Compiles `src` (written to a temp dir) for x86_64; expects exit 1, `want` as the first error
 * and no output file. */
static void expect_clash(const char *src, const char *want_fmt) {
    char *dir = make_temp_dir(), *in = xasprintf("%s/k.qd", dir), *out = xasprintf("%s/k.o", dir);
    cr_assert(write_text(in, src));
    RunResult r = run_qdc(in, "-o", out, NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    char *want = xasprintf(want_fmt, in);
    cr_expect(!strncmp(r.err, want, strlen(want)), "got\n%s\nwant\n%s", r.err, want);
    cr_expect(!file_exists(out));
    run_free(&r);
    remove_tree(dir);
    free(dir), free(in), free(out), free(want);
}

Test(names, task_symbol_equal_to_field_symbol) {
    expect_clash("import quadrants as qd\nt0 = qd.field(qd.i32, shape=(4,))\n@qd.kernel\ndef qd_field():\n"
                 "    for i in range(4):\n        t0[i] = 1\n",
                 "%s:5:5: error[QD5006]: the entry point of task 0 of kernel 'qd_field' is named 'qd_field_t0', which "
                 "is already the symbol of field 't0'; rename one of them\n");
}

Test(names, kernel_equal_to_another_kernels_task) {
    expect_clash("import quadrants as qd\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                 "    for i in range(a.shape[0]):\n        a[i] = 1\n@qd.kernel\ndef k_t0():\n    for i in range(4):\n        pass\n",
                 "%s:7:5: error[QD5006]: the launcher of kernel 'k_t0' is named 'k_t0', which is already the entry "
                 "point of task 0 of kernel 'k'; rename one of them\n");
}

Test(names, parameter_equal_to_shape_member) {
    expect_clash("import quadrants as qd\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1), a_shape: qd.i32):\n"
                 "    for i in range(a.shape[0]):\n        a[i] = a_shape\n",
                 "%s:3:50: error[QD5006]: parameter 'a_shape' of kernel 'k' is named 'a_shape', which is already the "
                 "shape member of parameter 'a' of kernel 'k'; rename one of them\n");
}

Test(names, reserved_names) {
    /* a keyword or library name gets a launcher "<kernel>_" (reserved_kernel_names_take_an_underscore);
     * these stay refused: their derived names (qdrt_launch_args, int32_t_args ...) are reserved too */
    static const char *const kernels[] = {"qdrt_launch", "int32_t", "INT32_MAX", "__k", "_Kernel"};
    for (size_t i = 0; i < ARRAY_LEN(kernels); i++) {
        char *src = xasprintf("import quadrants as qd\n@qd.kernel\ndef %s():\n    for i in range(4):\n        pass\n", kernels[i]);
        char *want = xasprintf("%%s:3:5: error[QD5006]: the launcher of kernel '%s' is named '%s', which is reserved in C "
                               "or C++ or by the qdc headers; rename it\n", kernels[i], kernels[i]);
        expect_clash(src, want);
        free(src), free(want);
    }
    /* a parameter's spelling takes a trailing underscore (below); the new spelling is checked too */
    expect_clash("import quadrants as qd\n@qd.kernel\ndef k(int: qd.i32, int_: qd.i32):\n    for i in range(4):\n        pass\n",
                 "%s:3:20: error[QD5006]: parameter 'int_' of kernel 'k' is named 'int_', which is already parameter "
                 "'int' of kernel 'k' (spelled 'int_' in C); rename one of them\n");
}

/* Python allows a parameter named like a C keyword or macro (Genesis' `errno`): the header, the
 * metadata and the typed launcher spell it with a trailing underscore, and the header compiles
 * as C and C++ on every header writer. */
Test(names, reserved_parameter_names_take_an_underscore) {
    static const char *const targets[] = {"x86_64", "gfx942", "vulkan1.3"};
    char *dir = make_temp_dir(), *in = xasprintf("%s/k.py", dir);
    cr_assert(write_text(in, "import quadrants as qd\n@qd.kernel\ndef k(errno: qd.types.ndarray(dtype=qd.i32, ndim=1), "
                             "float: qd.i32, new: qd.f32):\n    for i in range(errno.shape[0]):\n"
                             "        errno[i] = errno[i] | float + qd.i32(new)\n"));
    for (size_t t = 0; t < ARRAY_LEN(targets); t++) {
        char *tgt = xasprintf("--target=%s", targets[t]), *h = xasprintf("%s/k.%s.h", dir, targets[t]);
        RunResult r = run_qdc(in, tgt, "--emit=header", "-o", h, NULL);
        cr_expect_eq(r.status, 0, "%s: %s", targets[t], r.err);
        char *text = read_text(h, NULL);
        cr_assert_not_null(text, "%s", h);
        cr_expect(strstr(text, "qdrt_array *errno_, int32_t float_, float new_)"), "%s:\n%s", targets[t], text);
        cr_expect(!strstr(text, "*errno;"), "%s", text);
        if (tool_available("cc") && tool_available("c++")) compile_header(h, "c", h), compile_header(h, "c++", h);
        run_free(&r);
        free(text), free(tgt), free(h);
    }
    RunResult r = run_qdc(in, "--emit=metadata", "-o", "-", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "{\"name\": \"errno_\", \"kind\": \"ndarray\""), "%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(in);
}

/* A kernel named like a C or C++ keyword or a C library function (Python allows `def double():`,
 * Quadrants' test_oop.py and test_static.py have them): its inline launcher is "<kernel>_", the
 * derived names and the metadata keep the kernel's name, and the header compiles as C and C++. */
Test(names, reserved_kernel_names_take_an_underscore) {
    static const char *const kernels[] = {"double", "static", "main", "memcpy", "printf", "int", "struct", "switch", "namespace", "floor"};
    char *dir = make_temp_dir(), *in = xasprintf("%s/k.py", dir), *h = xasprintf("%s/k.h", dir);
    for (size_t i = 0; i < ARRAY_LEN(kernels); i++) {
        char *src = xasprintf("import quadrants as qd\n@qd.kernel\ndef %s(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                              "    for i in range(4):\n        a[i] = i\n",
                              kernels[i]);
        cr_assert(write_text(in, src));
        RunResult r = run_qdc(in, "--target=x86_64", "--emit=header", "-o", h, NULL);
        cr_expect_eq(r.status, 0, "%s: %s", kernels[i], r.err);
        char *text = read_text(h, NULL), *launcher = xasprintf("static inline int %s_(const %s_args *args, int nthreads", kernels[i], kernels[i]),
             *run = xasprintf("%s_run(qdrt_device *dev", kernels[i]), *plain = xasprintf("int %s(", kernels[i]);
        cr_assert_not_null(text, "%s", kernels[i]);
        cr_expect(strstr(text, launcher) && strstr(text, run) && !strstr(text, plain), "%s:\n%s", kernels[i], text);
        if (tool_available("cc") && tool_available("c++")) compile_header(h, "c", kernels[i]), compile_header(h, "c++", kernels[i]);
        run_free(&r);
        RunResult m = run_qdc(in, "--target=x86_64", "--emit=metadata", "-o", "-", NULL);
        char *name = xasprintf("\"name\": \"%s\"", kernels[i]);
        cr_expect(m.status == 0 && strstr(m.out, name), "%s: %s", kernels[i], m.out);
        run_free(&m);
        free(src), free(text), free(launcher), free(run), free(plain), free(name);
    }
    /* the new spelling is checked like the others: kernels double and double_ clash */
    remove_tree(dir);
    free(dir), free(in), free(h);
    expect_clash("import quadrants as qd\n@qd.kernel\ndef double():\n    for i in range(4):\n        pass\n"
                 "@qd.kernel\ndef double_():\n    for i in range(4):\n        pass\n",
                 "%s:7:5: error[QD5006]: the launcher of kernel 'double_' is named 'double_', which is already the launcher of "
                 "kernel 'double' (spelled 'double_' in C); rename one of them\n");
}

/* A parameter may be named like a C library function: only file-scope names must avoid them. */
Test(names, members_may_use_library_names) {
    char *dir = make_temp_dir(), *in = xasprintf("%s/k.qd", dir), *out = xasprintf("%s/k.h", dir);
    cr_assert(write_text(in, "import quadrants as qd\n@qd.kernel\ndef k(free: qd.i32, log: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
                             "    for i in range(log.shape[0]):\n        log[i] = free\n"));
    RunResult r = run_qdc(in, "-o", out, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(in), free(out);
}

/* Every header compiles with -Wall -Werror as C17 and as C++17 (the header is extern "C"). */
static void compile_header(const char *h, const char *lang, const char *what) {
    char *inc = root_path("runtime");
    char *incflag = xasprintf("-I%s", inc);
    const char *cc = !strcmp(lang, "c") ? "cc" : "c++";
    const char *std = !strcmp(lang, "c") ? "-std=c17" : "-std=c++17";
    const char *argv[] = {cc, std, "-Wall", "-Wextra", "-Werror", "-fsyntax-only", incflag, "-x", lang, h, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s as %s: %s", what, lang, r.err);
    run_free(&r);
    free(inc), free(incflag);
}

/* One family per header writer: the CPU header (launchers), the GPU one, the SPIR-V/MSL one. */
static int headers_for(const char *rel, const char *prefix, const char *tmp, bool cxx) {
    static const char *const targets[] = {"x86_64", "gfx942", "vulkan1.3"};
    char *dir = root_path(rel);
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".qd") || strncmp(e->d_name, prefix, strlen(prefix))) continue;
        char *src = xasprintf("%s/%s", dir, e->d_name);
        for (size_t t = 0; t < ARRAY_LEN(targets); t++) {
            char *tgt = xasprintf("--target=%s", targets[t]), *h = xasprintf("%s/%s.%s.h", tmp, e->d_name, targets[t]);
            RunResult r = run_qdc(src, tgt, "--emit=header", "-o", h, NULL);
            if (r.status == 0) {
                compile_header(h, "c", h);
                if (cxx) compile_header(h, "c++", h);
                n++;
            }
            run_free(&r);
            free(tgt), free(h);
        }
        free(src);
    }
    closedir(d);
    free(dir);
    return n;
}

Test(names, every_header_compiles, .timeout = 240) {
    if (!tool_available("cc") || !tool_available("c++")) cr_skip_test("no C/C++ compiler");
    char *tmp = make_temp_dir();
    int n = headers_for("examples", "", tmp, true) + headers_for("testdata/frontend", "valid-", tmp, false);
    cr_expect_gt(n, 60, "only %d headers were produced", n);
    remove_tree(tmp);
    free(tmp);
}

/* The SPIR-V header's guard is a valid macro for any module name (it was QDC_my-hist_SPV_H). */
Test(names, header_guard_of_any_module_name) {
    char *dir = make_temp_dir(), *in = xasprintf("%s/my-hist.qd", dir), *h = xasprintf("%s/my-hist.h", dir);
    char *ex = root_path("examples/histogram.qd"), *text = read_text(ex, NULL);
    cr_assert(write_text(in, text));
    RunResult r = run_qdc(in, "--target=vulkan1.3", "--emit=header", "-o", h, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *got = read_text(h, NULL);
    cr_expect(strstr(got, "#ifndef QDC_MY_HIST_SPV_H\n#define QDC_MY_HIST_SPV_H\n"), "%s", got);
    compile_header(h, "c", "my-hist.h");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(in), free(h), free(ex), free(text), free(got);
}

/* Issue 21 item 3: one header and metadata writer for every backend. A SPIR-V header starts like
 * every other (module, ABI version), is extern "C" and names the return slot; SPIR-V metadata
 * carries qdc_abi and the kernel's "returns" record, as qdc-abi(7) says for every GPU target. */
Test(names, one_header_and_metadata_writer_for_every_backend) {
    static const char *const targets[] = {"sm_80", "vulkan1.2", "apple8"};
    char *dir = make_temp_dir(), *in = xasprintf("%s/ret.qd", dir), *h = xasprintf("%s/ret.h", dir);
    cr_assert(write_text(in, "import quadrants as qd\n@qd.kernel\ndef total(a: qd.types.ndarray(dtype=qd.i32, ndim=1)) -> qd.i32:\n"
                             "    s = 0\n    for i in range(8):\n        s += a[i]\n    return s\n"));
    for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
        char *tgt = xasprintf("--target=%s", targets[i]);
        char *first = xasprintf("/* Generated by qdc from ret for %s: qdc C ABI version 1, see qdc-abi(7). */\n", targets[i]);
        RunResult r = run_qdc(in, tgt, "--emit=header", "-o", h, NULL), md = run_qdc(in, tgt, "--emit=metadata", "-o", "-", NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        cr_assert_eq(md.status, 0, "%s", md.err);
        char *got = read_text(h, NULL);
        cr_expect(!strncmp(got, first, strlen(first)), "%s", got);
        cr_expect(strstr(got, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n"), "%s", got);
        cr_expect(strstr(got, "/* kernel total */\ntypedef struct total_args {\n"), "%s", got);
        cr_expect(strstr(got, "/* total returns i32 in the 0-d field "), "%s", got);
        cr_expect(!strncmp(md.out, "{\n  \"qdc_abi\": 1,\n  \"module\": \"ret\",\n", 36), "%s", md.out);
        cr_expect(strstr(md.out, "\"returns\": {\"dtype\": \"i32\", \"field\": \"qdc_ret_total\", \"symbol\": \"qd_field_qdc_ret_total\"}"),
                  "%s", md.out);
        compile_header(h, "c", targets[i]);
        compile_header(h, "c++", targets[i]);
        run_free(&r), run_free(&md);
        free(tgt), free(first), free(got);
    }
    remove_tree(dir);
    free(dir), free(in), free(h);
}
