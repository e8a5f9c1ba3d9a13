/* The language corpus (testdata/lang/): kernels in the forms of issue 14 — SNode placement,
 * generic parameters with --instantiate, struct-for, tuple constants, whole Quadrants scripts.
 * Every file compiles for every installed family (one qdc run with all of them), with no
 * diagnostics and a non-empty output per family. A file NAME.qd/.py with a host NAME.c is also
 * built for x86_64, linked with libqdrt and run on 1, 2, 4 and 8 threads: the host checks exact
 * results and prints a line that must not depend on the thread count.
 * Header comments of a corpus file:  # qdc: ARG...   extra qdc arguments (e.g. --instantiate=...)
 *                                    # run: N         the host's problem size (default: its own)
 *                                    # backends: B... only the families of these backends */
#include "test_x86.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 16

typedef struct {
    char *args[MAX_ARGS];
    int nargs;
    char run_n[32];
    char backends[128]; /* " ptx amdgpu " or empty for all */
} Header;

static void parse_header(const char *text, Header *h) {
    memset(h, 0, sizeof *h);
    for (const char *p = text; p && *p == '#'; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (!strncmp(p, "# qdc: ", 7) && h->nargs < MAX_ARGS) h->args[h->nargs++] = strndup(p + 7, len - 7);
        else if (!strncmp(p, "# run: ", 7)) snprintf(h->run_n, sizeof h->run_n, "%.*s", (int)(len - 7), p + 7);
        else if (!strncmp(p, "# backends: ", 12)) snprintf(h->backends, sizeof h->backends, " %.*s ", (int)(len - 12), p + 12);
    }
}

static void free_header(Header *h) {
    for (int i = 0; i < h->nargs; i++) free(h->args[i]);
}

/* The installed families (of the given backends, " ptx x86_64 ", or all), comma-separated. */
static char *all_targets(const char *backends, int *n) {
    RunResult r = run_qdc("--list-targets", NULL);
    cr_assert_eq(r.status, 0, "qdc --list-targets: %s", r.err);
    char *list = calloc(r.out_len + 1, 1);
    *n = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        size_t w = strcspn(line, " "), b0 = w + strspn(line + w, " "), bw = strcspn(line + b0, " ");
        char be[64];
        snprintf(be, sizeof be, " %.*s ", (int)bw, line + b0);
        if (*backends && !strstr(backends, be)) continue;
        if (*n) strcat(list, ",");
        strncat(list, line, w);
        ++*n;
    }
    run_free(&r);
    return list;
}

static RunResult run_with(const char *const *fixed, const Header *h, const char *src) {
    const char *argv[40];
    int n = 0;
    for (; fixed[n]; n++) argv[n] = fixed[n];
    for (int i = 0; i < h->nargs; i++) argv[n++] = h->args[i];
    argv[n++] = src, argv[n] = NULL;
    return run_qdc_argv(argv, NULL, NULL);
}

/* One qdc run for every family; each output must exist and be non-empty. */
static void compile_everywhere(const char *src, const Header *h, const char *dir) {
    int ntargets;
    char *targets = all_targets(h->backends, &ntargets), *topt = NULL, *out = NULL;
    cr_assert(asprintf(&topt, "--target=%s", targets) > 0 && asprintf(&out, "%s/%%t.%%e", dir) > 0);
    const char *fixed[] = {topt, "-o", out, NULL};
    RunResult r = run_with(fixed, h, src);
    cr_expect_eq(r.status, 0, "%s for every family: exit %d\n%s", src, r.status, r.err);
    cr_expect_str_eq(r.err, "", "%s: unexpected diagnostics", src);
    DIR *d = opendir(dir);
    int files = 0;
    for (struct dirent *e; d && (e = readdir(d));) files += e->d_name[0] != '.';
    if (d) closedir(d);
    cr_expect_eq(files, ntargets, "%s: %d outputs for %d families", src, files, ntargets);
    run_free(&r);
    free(targets), free(topt), free(out);
}

static void run_on_x86(const char *src, const char *host, const Header *h, const char *base, const char *dir) {
    if (!x86_have_runtime()) return;
    char *obj = NULL, *hdr = NULL;
    cr_assert(asprintf(&obj, "%s/%s.o", dir, base) > 0 && asprintf(&hdr, "%s/%s.h", dir, base) > 0);
    const char *fo[] = {"--target=x86_64", "-o", obj, NULL}, *fh[] = {"--target=x86_64", "--emit=header", "-o", hdr, NULL};
    RunResult r = run_with(fo, h, src), rh = run_with(fh, h, src);
    cr_assert_eq(r.status, 0, "%s -> x86_64: %s", src, r.err);
    cr_assert_eq(rh.status, 0, "%s --emit=header: %s", src, rh.err);
    run_free(&r), run_free(&rh);
    const char *objs[] = {strrchr(obj, '/') + 1, NULL};
    cr_assert(x86_build_host_file(dir, host, objs), "host program %s does not build", host);
    const char *threads[] = {"1", "2", "4", "8"};
    char *first = NULL;
    for (int i = 0; i < 4; i++) {
        RunResult x = x86_run_host(dir, threads[i], h->run_n[0] ? h->run_n : NULL, NULL);
        cr_expect_eq(x.status, 0, "%s on %s threads: exit %d\n%s%s", base, threads[i], x.status, x.out, x.err);
        if (!first) first = strdup(x.out);
        else cr_expect_str_eq(x.out, first, "%s: output differs on %s threads", base, threads[i]);
        run_free(&x);
    }
    free(first), free(obj), free(hdr);
}

static void check_one(const char *dirpath, const char *name) {
    char *src = NULL, *host = NULL, *base = strdup(name);
    *strrchr(base, '.') = 0;
    cr_assert(asprintf(&src, "%s/%s", dirpath, name) > 0 && asprintf(&host, "%s/%s.c", dirpath, base) > 0);
    char *text = read_text(src, NULL);
    cr_assert(text, "cannot read %s", src);
    Header h;
    parse_header(text, &h);
    char *out = make_temp_dir(), *xdir = make_temp_dir();
    compile_everywhere(src, &h, out);
    if (file_exists(host)) run_on_x86(src, host, &h, base, xdir);
    remove_tree(out), remove_tree(xdir);
    free_header(&h);
    free(out), free(xdir), free(text), free(src), free(host), free(base);
}

static bool is_source(const char *name) {
    size_t n = strlen(name);
    return (n > 3 && !strcmp(name + n - 3, ".qd")) || (n > 3 && !strcmp(name + n - 3, ".py"));
}

Test(lang, corpus, .timeout = 600) {
    char *dirpath = root_path("testdata/lang");
    DIR *d = opendir(dirpath);
    cr_assert(d, "cannot open %s", dirpath);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (is_source(e->d_name)) check_one(dirpath, e->d_name), n++;
    closedir(d);
    cr_assert_gt(n, 0, "no sources in %s", dirpath);
    free(dirpath);
}

/* A generic kernel without --instantiate, and bad specs: exact diagnostics, exit 1, no output. */
static void expect_failure(const char *spec1, const char *spec2, const char *want) {
    char *dir = make_temp_dir(), *src = NULL, *out = NULL;
    cr_assert(asprintf(&src, "%s/g.qd", dir) > 0 && asprintf(&out, "%s/g.o", dir) > 0);
    cr_assert(write_text(src, "import quadrants as qd\n\ncount = qd.field(qd.i32, shape=())\n\n@qd.kernel\n"
                              "def k(a: qd.types.ndarray(ndim=1), n: qd.template()):\n"
                              "    for i in range(n):\n        a[i] += count[None]\n"));
    const char *argv[8] = {"--color=never", "-o", out};
    int n = 3;
    if (spec1) argv[n++] = spec1;
    if (spec2) argv[n++] = spec2;
    argv[n++] = src, argv[n] = NULL;
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, want), "got:\n%s\nwant a diagnostic: %s", r.err, want);
    cr_expect(!file_exists(out), "an output was written after an error");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(out);
}

Test(lang, instantiate_errors) {
    expect_failure(NULL, NULL, "error[QD2060]: kernel 'k' is generic ('a' has no fixed type) and no call qdc can evaluate "
                               "instantiates it; compile it with --instantiate 'k(a=f32[1], n=...)'");
    expect_failure("--instantiate=k(a=f32[2], n=4)", NULL, "error[QD2061]: 'a' is declared with ndim=1, the instantiation gives 2");
    expect_failure("--instantiate=k(a=f32, n=count)", NULL, "error[QD2032]");
    expect_failure("--instantiate=k(a=f32)", NULL, "error[QD2061]: the instantiation of 'k' gives no value for its generic parameter 'n'");
    expect_failure("--instantiate=k(a=f32, n=4, m=1)", NULL, "error[QD2061]: kernel 'k' has no parameter 'm'");
    expect_failure("--instantiate=j(a=f32, n=4)", NULL, "error[QD2061]: --instantiate names 'j', which is not a kernel of this module");
    expect_failure("--instantiate=k(f32, 4)", NULL, "error[QD2061]: invalid --instantiate spec: name each argument (PARAM=VALUE)");
    expect_failure("--instantiate=k(a=f32, n=4)", "--instantiate=k(a=f32, n=4)",
                   "error[QD2061]: two kernels or instantiations are both named 'k__f32__4'");
    expect_failure("--instantiate=k(a=4, n=4)", NULL, "error[QD2061]: 'a' is an ndarray: give its element type and dimensions, e.g. a=f32[1]");
}

/* qdc_add_kernels(... INSTANTIATE <spec>...) from the checkout's CMake package: the generic
 * kernel builds (the spec, with its parentheses and spaces, reaches qdc as one argument). */
Test(lang, cmake_instantiate, .timeout = 120) {
    if (!tool_available("cmake") || !tool_available("ninja")) cr_skip_test("cmake or ninja missing");
    char *dir = make_temp_dir(), *src = NULL, *lists = NULL, *b = NULL, *qdir = NULL, *exe = NULL, *out = NULL;
    cr_assert(asprintf(&src, "%s/g.qd", dir) > 0 && asprintf(&lists, "%s/CMakeLists.txt", dir) > 0 &&
              asprintf(&b, "%s/b", dir) > 0 && asprintf(&qdir, "-Dqdc_DIR=%s/cmake", qdc_root()) > 0 &&
              asprintf(&exe, "-DQDC_EXECUTABLE=%s", qdc_bin()) > 0 && asprintf(&out, "%s/qdc/x86_64/g.o", b) > 0);
    cr_assert(write_text(src, "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(), n: qd.template()):\n"
                              "    for i in range(n):\n        a[i] = i\n"));
    cr_assert(write_text(lists, "cmake_minimum_required(VERSION 3.20)\nproject(g NONE)\nfind_package(qdc REQUIRED)\n"
                                "qdc_add_kernels(k SOURCES g.qd TARGETS x86_64 INSTANTIATE \"k(a=i32[1], n = 4)\" \"k8=k(a=f32[1], n=8)\")\n"));
    const char *conf[] = {"cmake", "-G", "Ninja", "-S", dir, "-B", b, qdir, exe, NULL};
    RunResult r = run_argv(conf, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    const char *build[] = {"ninja", "-C", b, NULL};
    r = run_argv(build, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(file_exists(out), "%s not built", out);
    run_free(&r);
    const char *nm[] = {"llvm-nm-19", out, NULL};
    r = run_argv(nm, NULL, NULL);
    cr_expect(strstr(r.out, "k__i32_1d__4_t0") && strstr(r.out, "k8_t0"), "entry points of both instantiations:\n%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(lists), free(b), free(qdir), free(exe), free(out);
}

/* A script whose check fails: exit 1, no output, and each wanted line in stderr verbatim. */
static void expect_script_failure(const char *text, const char *const *want) {
    char *dir = make_temp_dir(), *src = NULL, *out = NULL;
    cr_assert(asprintf(&src, "%s/g.py", dir) > 0 && asprintf(&out, "%s/g.o", dir) > 0);
    cr_assert(write_text(src, text));
    const char *argv[] = {"--color=never", "-o", out, "g.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    for (int k = 0; want[k]; k++) cr_expect(strstr(r.err, want[k]), "got:\n%s\nwant: %s", r.err, want[k]);
    cr_expect(!file_exists(out), "an output was written after an error");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(out);
}

/* Host functions: a kernel that uses the function's parameter (QD2062, the note at the
 * parameter), a generic kernel whose only call qdc cannot evaluate (QD2060 at the argument,
 * naming the nested kernel's entry for --instantiate), one that is never called. */
Test(lang, host_function_errors) {
    const char *const param[] = { /* called with a value only the script knows: the note is at the argument */
        "g.py:9:36: error[QD2062]: 'step' is a parameter of the host function 'run_case' whose argument qdc cannot evaluate, "
        "known only when the script runs; kernels can use module constants, fields, qd.func and their own arguments\n",
        "g.py:14:14: note: 'step' is set here\n", NULL};
    expect_script_failure("import quadrants as qd\n\ndef run_case(step, n=4):\n    c = qd.field(qd.i32, shape=())\n\n"
                          "    @qd.kernel\n    def func():\n        for i in range(4):\n            qd.atomic_add(c[None], step)\n\n"
                          "    func()\n\ndef test_case(s):\n    run_case(s)\n",
                          param);
    /* never called: as in Python, run_case never runs and defines no kernel; compiling nothing is QD2068 */
    const char *const uncalled[] = {
        "g.py:7:9: error[QD2068]: the input defines kernels but compiles none: 'func' is defined in the host function 'run_case', "
        "which no call qdc can evaluate reaches (as in Python, a function that is not called defines nothing); call run_case(...) "
        "in host code with arguments qdc can evaluate\n",
        NULL};
    expect_script_failure("import quadrants as qd\n\ndef run_case(step, n=4):\n    c = qd.field(qd.i32, shape=())\n\n"
                          "    @qd.kernel\n    def func():\n        for i in range(4):\n            qd.atomic_add(c[None], step)\n\n"
                          "    func()\n",
                          uncalled);
    const char *const call[] = { /* the first call instantiates k; the second cannot be evaluated */
        "g.py:10:7: error[QD2060]: kernel 'k' is generic and qdc cannot evaluate this call's argument for 'a' (only fields, "
        "compile-time numbers and arrays made by qd.ndarray or numpy with a dtype are known); compile it with --instantiate "
        "'test_k__k(...)'\n",
        NULL};
    expect_script_failure("import quadrants as qd\n\ndef test_k(n):\n    @qd.kernel\n    def k(a: qd.types.ndarray()):\n"
                          "        for i in a:\n            a[i] = 1\n\n    k(qd.ndarray(qd.f32, shape=(2,)))\n    k(make(n))\n",
                          call);
    const char *const field[] = { /* the reason names the parameter the field's dtype comes from */
        "g.py:8:9: error[QD2062]: 'f' is a field declared from 'dtype' (a parameter of the host function 'test_f'), known only "
        "when the script runs; kernels can use module constants, fields, qd.func and their own arguments\n",
        "g.py:4:5: note: 'f' is set here\n", NULL};
    expect_script_failure("import quadrants as qd\n\ndef test_f(dtype):\n    f = qd.field(dtype, shape=())\n\n"
                          "    @qd.kernel\n    def k():\n        f[None] = 1\n\n    k()\n",
                          field);
    const char *const never[] = {
        "g.py:5:14: error[QD2060]: kernel 'k' is generic ('a' has no fixed type) and no call qdc can evaluate instantiates it; "
        "compile it with --instantiate 'test_k__k(a=f32[1])'\n",
        NULL};
    expect_script_failure("import quadrants as qd\n\ndef test_k(n):\n    @qd.kernel\n    def k(a: qd.types.ndarray()):\n"
                          "        for i in a:\n            a[i] = 1\n",
                          never);
    /* Host values qdc cannot evaluate are not errors (Python computes them when the script
     * runs); only a kernel that uses one is. */
    const char *const host_values[] = {
        "g.py:10:19: error[QD2062]: 'mode' is a value qdc cannot compute (a type cannot be used as a scalar value), known "
        "only when the script runs; kernels can use module constants, fields, qd.func and their own arguments\n",
        "g.py:5:5: note: 'mode' is set here\n", NULL};
    expect_script_failure("import quadrants as qd\n\ndef test_v(kind):\n    table = kind == \"x\"\n    mode = qd.i32 + 1\n"
                          "    c = qd.field(qd.i32, shape=())\n\n    @qd.kernel\n    def k():\n        c[None] = mode\n\n    k()\n",
                          host_values);
}

/* A helper with parameters that nothing calls is not run (as in Python): its kernel, which needs
 * the parameter, is neither an error nor an entry; the module's own kernel compiles. */
Test(lang, uncalled_helper_defines_nothing) {
    char *dir = make_temp_dir(), *src = NULL;
    cr_assert(asprintf(&src, "%s/g.py", dir) > 0);
    cr_assert(write_text(src, "import quadrants as qd\n\ndef helper(dt):\n    w = qd.field(dt, shape=8)\n\n"
                              "    @qd.kernel\n    def k():\n        for i in w:\n            w[i] += 1\n\n"
                              "x = qd.field(qd.f32, shape=2)\n\n@qd.kernel\ndef func():\n    for i in range(2):\n"
                              "        x[i] = 1.0\n\nfunc()\n"));
    const char *argv[] = {"--color=never", "--check", "--stats", "--target=x86_64", "g.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect_str_eq(r.out, "g: 1 kernel (func), 1 task, 0 atomics, 0 volatile loads, 0 fences\n", "stderr:\n%s", r.err);
    cr_expect_str_eq(r.err, "");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
}

/* @qd.data_oriented: an instance whose __init__ sizes a field from a host function's parameter
 * (QD2062 at the kernel's use, notes at the attribute and the creation); a class with kernels
 * and no instance (QD2068 alone: one cause, one report; exit 1, nothing compiled). */
Test(lang, data_oriented_errors) {
    const char *cls = "import quadrants as qd\n\n@qd.data_oriented\nclass Sim:\n    def __init__(self, n):\n"
                      "        self.x = qd.field(qd.f32, shape=n)\n\n    @qd.kernel\n    def step(self):\n"
                      "        for i in self.x:\n            self.x[i] = 1.0\n\n";
    char *text = NULL;
    cr_assert(asprintf(&text, "%sdef test_sim(n):\n    sim = Sim(n)\n", cls) > 0);
    const char *const runtime[] = {
        "g.py:10:18: error[QD2062]: 'sim.x' is set in __init__ from a value known only when the script runs (a field "
        "declared from 'n' (a parameter of the host function 'test_sim')); kernels can use fields and compile-time values\n",
        "g.py:6:9: note: 'x' is set here\n", "g.py:14:11: note: 'sim' is created here\n", NULL};
    expect_script_failure(text, runtime);
    free(text);
    char *dir = make_temp_dir(), *src = NULL;
    cr_assert(asprintf(&src, "%s/g.py", dir) > 0 && write_text(src, cls));
    const char *argv[] = {"--color=never", "--check", "g.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    /* a file whose only kernels are those of a class nothing instantiates compiles nothing: an error (issue 30, QD2068) */
    cr_expect_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    /* one cause, one report: the error names the class, so its QD2104 warning is not given beside it */
    cr_expect(!strstr(r.err, "warning[QD2104]"), "got:\n%s", r.err);
    cr_expect(strstr(r.err, "g.py:4:7: error[QD2068]: the input defines kernels but compiles none: @qd.data_oriented class 'Sim' "
                            "is never instantiated; create one where qdc can see it (obj = Sim(...) at module level or in a host "
                            "function)\n"),
              "got:\n%s", r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
}

/* @pytest.mark.parametrize: a value qdc cannot evaluate leaves the parameter a run-time value
 * (QD2062 once, though two combinations reach it, the note at the value); getattr with a
 * default or a name that is not a string. */
Test(lang, parametrize_errors) {
    const char *const numpy[] = {
        "g.py:12:30: error[QD2062]: 'dt' is a parameter of the host function 'test_a' whose parametrized value qdc cannot "
        "evaluate, known only when the script runs; kernels can use module constants, fields, qd.func and their own arguments\n",
        "g.py:5:33: note: 'dt' is set here\n", NULL};
    const char *text = "import numpy as np\nimport pytest\nimport quadrants as qd\n\n"
                       "@pytest.mark.parametrize(\"dt\", [np.float32, np.float64])\ndef test_a(dt):\n"
                       "    f = qd.field(qd.f32, shape=())\n    unused = getattr(qd, \"atomic_add\", None)\n\n"
                       "    @qd.kernel\n    def k():\n        f[None] = qd.cast(1, dt)\n\n    k()\n";
    expect_script_failure(text, numpy);
    char *dir = make_temp_dir(), *src = NULL;
    cr_assert(asprintf(&src, "%s/g.py", dir) > 0 && write_text(src, text));
    const char *argv[] = {"--color=never", "--check", "g.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    int errors = 0;
    for (const char *p = r.err; (p = strstr(p, "error[")); p++) errors++;
    cr_expect_eq(errors, 1, "one error for both combinations:\n%s", r.err);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
    const char *const dict[] = { /* the values do not parse (a dict): the note points at them */
        "g.py:8:19: error[QD2062]: 'n' is a parameter of the host function 'test_b' whose parametrized value qdc cannot "
        "evaluate, known only when the script runs;",
        "g.py:3:32: note: 'n' is set here\n", NULL};
    expect_script_failure("import pytest\nimport quadrants as qd\n@pytest.mark.parametrize(\"n\", [{\"a\": 1}])\ndef test_b(n):\n"
                          "    g = qd.field(qd.i32, shape=())\n    @qd.kernel\n    def k():\n        g[None] = n\n    k()\n",
                          dict);
    const char *const name[] = { /* host code: an error only where a kernel uses it, with the reason */
        "g.py:8:9: error[QD2062]: 'f' is a value qdc cannot compute (getattr needs a compile-time string as the name, "
        "got a value), known only when the script runs;",
        "g.py:4:5: note: 'f' is set here\n", NULL};
    expect_script_failure("import quadrants as qd\nN = 3\ndef test_c():\n    f = getattr(qd, N)\n    c = qd.field(qd.i32, shape=())\n"
                          "    @qd.kernel\n    def k():\n        f(c[None], 1)\n",
                          name);
    const char *const fmt[] = {
        "g.py:7:9: error[QD2062]: 'op' is a value computed by the host function, known only when the script runs;",
        "g.py:4:5: note: 'op' is set here\n", NULL};
    expect_script_failure("import quadrants as qd\ng = qd.field(qd.i32, shape=())\ndef test_d(kind):\n"
                          "    op = getattr(qd, f\"atomic_{kind}\")\n    @qd.kernel\n    def k():\n        op(g[None], 1)\n    k()\n",
                          fmt);
    const char *const cond[] = { /* an if on a fixture: what it binds is a run-time value */
        "g.py:8:19: error[QD2062]: 'n' is set in an if statement whose condition qdc cannot evaluate, known only when the script runs;",
        "g.py:5:9: note: 'n' is set here\n", NULL};
    expect_script_failure("import quadrants as qd\ng = qd.field(qd.i32, shape=())\ndef test_e(fixture):\n    if fixture:\n"
                          "        n = 1\n    @qd.kernel\n    def k():\n        g[None] = n\n    k()\n",
                          cond);
}

/* Entry names of parametrized host functions: names as "a,b", a list or a tuple; rows as tuples
 * or pytest.param (its id= spells the row); the decorator nearest the def first; a value that
 * does not spell as an identifier (a float, "x y") as NAME<row>; a negative integer as m<n>; an
 * unparsable ids= ignored. */
Test(lang, parametrize_names) {
    char *dir = make_temp_dir(), *src = NULL;
    cr_assert(asprintf(&src, "%s/g.py", dir) > 0);
    cr_assert(write_text(src, "import pytest\nimport quadrants as qd\n\n"
                              "@pytest.mark.parametrize([\"a\", \"b\"], [(1.5, \"x y\"), (None, True)], ids=lambda v: str(v))\n"
                              "@pytest.mark.parametrize(\"s,t\", [(\"lo\", -7), pytest.param(\"hi\", 0, id=\"top\")])\n"
                              "def test_n(a, b, s, t):\n    @qd.kernel\n    def k() -> qd.i32:\n        return t\n\n    k()\n"));
    const char *argv[] = {"--target=x86_64", "--emit=header", "-o", "-", "g.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    const char *want[] = {"/* kernel test_n__lo_m7_a0_b0__k */", "/* kernel test_n__lo_m7_None_True__k */",
                          "/* kernel test_n__top_a0_b0__k */", "/* kernel test_n__top_None_True__k */"};
    const char *at = r.out;
    for (size_t k = 0; k < 4; k++) {
        const char *p = strstr(at, want[k]);
        cr_expect(p, "%s missing or out of order in:\n%s", want[k], r.out);
        if (p) at = p;
    }
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
}

/* @dataclasses.dataclass parameters: a member rebinding (QD2010, also `+=`), an unknown member
 * (QD2019), a generic member whose value the call does not let qdc evaluate (QD2060 at the
 * parameter, naming the member); members in error do not poison the others. */
Test(lang, py_dataclass_errors) {
    const char *const want[] = {
        "g.py:14:9: error[QD2010]: cannot assign to member 'a' of dataclass 'S': dataclass members are read-only in kernels "
        "and qd.funcs (the contents of an array member can be written: x.member[i] = ...)\n",
        "g.py:15:9: error[QD2010]: cannot assign to member 'n' of dataclass 'S': dataclass members are read-only in kernels "
        "and qd.funcs (the contents of an array member can be written: x.member[i] = ...)\n",
        "g.py:16:9: error[QD2019]: dataclass 'S' has no member 'c'\n",
        "g.py:19:11: error[QD2060]: member 't' of dataclass 'S' is generic and qdc cannot evaluate what a call passes for it "
        "(a value qdc cannot compute); pass an instance built in host code from fields, qd.ndarray/numpy arrays with a dtype "
        "or numbers, or give the member a fixed type such as qd.types.NDArray[qd.f32, 1]\n",
        NULL};
    expect_script_failure("import dataclasses\nimport quadrants as qd\n\n@dataclasses.dataclass\nclass S:\n"
                          "    a: qd.types.NDArray[qd.f32, 1]\n    t: qd.Tensor\n    n: qd.i32\n\n\ndef test_s():\n"
                          "    @qd.kernel\n    def k(s: S, b: qd.types.NDArray[qd.f32, 1]):\n        s.a = b\n        s.n += 1\n"
                          "        s.c[0] = 1.0\n\n    @qd.kernel\n    def g(s: S):\n        s.t[0] = 2.0\n\n"
                          "    x = qd.field(qd.f32, shape=(2,))\n    k(S(a=qd.ndarray(qd.f32, shape=(2,)), t=x, n=1), qd.ndarray(qd.f32, shape=(2,)))\n"
                          "    g(S(a=qd.ndarray(qd.f32, shape=(2,)), t=make(), n=1))\n",
                          want);
}

/* The ABI of a dataclass parameter: its members in declaration order at its position, nested
 * dataclasses depth first (PARAM__INNER__MEMBER), vector members per component, a struct member
 * by value (PARAM__MEMBER_a); `from dataclasses import dataclass` and a string annotation
 * ("Inner") name the same classes. */
Test(lang, py_dataclass_abi) {
    char *dir = make_temp_dir(), *src = NULL;
    cr_assert(asprintf(&src, "%s/g.py", dir) > 0);
    cr_assert(write_text(src, "from dataclasses import dataclass\nimport quadrants as qd\n\nP = qd.types.struct(a=qd.i8, b=qd.f32)\n\n"
                              "@dataclass\nclass Inner:\n"
                              "    v: qd.types.vector(2, qd.i32)\n    x: qd.types.ndarray(qd.f32, 2)\n\n"
                              "@dataclass(frozen=True)\nclass Outer:\n    n: int\n    inner: \"Inner\"\n    y: qd.types.NDArray[qd.u8, 1]\n"
                              "    pt: P\n\n"
                              "@qd.kernel\ndef k(a: qd.f32, s: Outer, b: qd.i32):\n    s.y[b] = s.inner.v[1] + s.n + s.pt.a\n"
                              "    s.inner.x[0, 0] = a * s.pt.b\n"));
    const char *argv[] = {"--target=x86_64", "--emit=header", "-o", "-", "g.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.out, "typedef struct k_args {\n    float a;\n    int32_t s__n;\n    int32_t s__inner__v_0;\n"
                            "    int32_t s__inner__v_1;\n    float *s__inner__x; /* ndarray[f32, 2] */\n"
                            "    int32_t s__inner__x_shape[2];\n    uint8_t *s__y; /* ndarray[u8, 1] */\n    int32_t s__y_shape[1];\n"
                            "    int8_t s__pt_a;\n    float s__pt_b;\n    int32_t b;\n} k_args;\n"),
              "got:\n%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
}

/* A kernel returning a matrix: the metadata's "returns" gives the shape, the GPU header names the
 * 1-d slot, the x86 launcher copies the components row-major; a struct parameter is one scalar
 * per component (p_inner_a, p_inner_v_0, p_w); a returned value of another shape is QD2040. */
Test(lang, vector_return_and_struct_param_abi) {
    char *dir = make_temp_dir(), *src = NULL;
    cr_assert(asprintf(&src, "%s/g.py", dir) > 0);
    cr_assert(write_text(src, "import quadrants as qd\n\nInner = qd.types.struct(a=qd.i32, v=qd.types.vector(2, qd.f32))\n"
                              "P = qd.types.struct(inner=Inner, w=qd.f32)\n\n@qd.kernel\ndef k(p: P) -> qd.types.matrix(2, 3, qd.i16):\n"
                              "    return qd.Matrix([[p.inner.a, 2, 3], [4, 5, p.w]])\n"));
    const char *meta[] = {"--target=sm_90", "--emit=metadata", "-o", "-", "g.py", NULL};
    RunResult r = run_qdc_argv(meta, NULL, dir);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.out, "\"returns\": {\"dtype\": \"i16\", \"field\": \"qdc_ret_k\", \"symbol\": \"qd_field_qdc_ret_k\", \"shape\": [2, 3]}"),
              "got:\n%s", r.out);
    run_free(&r);
    const char *gpu[] = {"--target=sm_90", "--emit=header", "-o", "-", "g.py", NULL};
    r = run_qdc_argv(gpu, NULL, dir);
    cr_expect(strstr(r.out, "/* k returns i16 in the 1-d (components, row-major) field symbol qd_field_qdc_ret_k (see the "
                            "metadata's \"returns\") */\n"),
              "got:\n%s", r.out);
    run_free(&r);
    const char *cpu[] = {"--target=x86_64", "--emit=header", "-o", "-", "g.py", NULL};
    r = run_qdc_argv(cpu, NULL, dir);
    cr_expect(strstr(r.out, "typedef struct k_args {\n    int32_t p_inner_a;\n    float p_inner_v_0;\n    float p_inner_v_1;\n"
                            "    float p_w;\n} k_args;\n"),
              "got:\n%s", r.out);
    cr_expect(strstr(r.out, "/* k returns a matrix of i16 (6 components, row-major): stored in ret[0..5] when the launch succeeds "
                            "(ret may be NULL) */\nstatic inline int k(const k_args *args, int nthreads, int16_t *ret) {\n"),
              "got:\n%s", r.out);
    cr_expect(strstr(r.out, "    if (!rc && ret)\n        for (int i = 0; i < 6; i++) ret[i] = qd_field_qdc_ret_k[i];\n"), "got:\n%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
    const char *const shape[] = {
        "g.py:5:12: error[QD2040]: kernel 'k' is declared to return a 3-vector, not a 2-vector\n", NULL};
    expect_script_failure("import quadrants as qd\n\n@qd.kernel\ndef k() -> qd.types.vector(3, qd.i32):\n    return qd.Vector([1, 2])\n",
                          shape);
}

/* A field with offset= names its origin in the metadata; one with a permuted order= lives in an
 * SNode storage whose levels are its axes in that order (outermost first). */
Test(lang, field_offset_and_order_metadata) {
    char *dir = make_temp_dir(), *src = NULL;
    cr_assert(asprintf(&src, "%s/g.py", dir) > 0);
    cr_assert(write_text(src, "import quadrants as qd\n\nd = qd.field(qd.i32, shape=(16, 8), offset=(-16, 8))\n"
                              "o = qd.field(qd.f32, shape=(3, 4), order=\"ji\")\n\n@qd.kernel\ndef k():\n    d[-16, 8] = 1\n"
                              "    o[2, 3] = 1.0\n"));
    const char *argv[] = {"--target=x86_64", "--emit=metadata", "-o", "-", "g.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.out, "{\"name\": \"d\", \"symbol\": \"qd_field_d\", \"dtype\": \"i32\", \"shape\": [16, 8], \"offset\": [-16, 8]}"),
              "got:\n%s", r.out);
    cr_expect(strstr(r.out, "{\"name\": \"o\", \"symbol\": \"qd_snode_o\", \"dtype\": \"f32\", \"shape\": [3, 4]"), "got:\n%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
}

/* Helper host functions evaluated per call (qdc-lang(7) HOST FUNCTIONS): an argument qdc cannot
 * evaluate leaves that parameter a run-time value (QD2062 naming the call's argument); a host
 * `for` over values qdc cannot evaluate makes its target a run-time value. */
Test(lang, host_helper_errors) {
    const char *const arg[] = {
        "g.py:7:14: error[QD2062]: 'dt' is a parameter of the host function 'helper' whose argument qdc cannot evaluate, "
        "known only when the script runs; kernels can use module constants, fields, qd.func and their own arguments\n",
        "g.py:13:12: note: 'dt' is set here\n", NULL};
    expect_script_failure("import quadrants as qd\n\ndef helper(dt, n):\n    c = qd.field(qd.f32, shape=n)\n\n"
                          "    @qd.kernel\n    def k(x: dt):\n        c[0] = x\n\n    k(1)\n\n"
                          "def test_h():\n    helper(pick(), 4)\n",
                          arg);
    const char *const loop[] = {
        "g.py:11:19: error[QD2062]: 'v' is set in a for loop whose values qdc cannot evaluate, known only when the script runs; "
        "kernels can use module constants, fields, qd.func and their own arguments\n",
        "g.py:7:9: note: 'v' is set here\n", NULL};
    expect_script_failure("import quadrants as qd\n\nc = qd.field(qd.i32, shape=())\n\ndef test_l(items):\n"
                          "    for i in items:\n        v = i\n\n    @qd.kernel\n    def k():\n        c[None] = v\n\n    k()\n",
                          loop);
}

/* @qd.kernel(...) keywords, @qd.pure, autodiff and foreign decorators, and Quadrants' purity rule
 * for fastcache kernels (QD2064 error; QD2106 warning for an UPPERCASE name). */
Test(lang, kernel_decorators) {
    const char *const pure[] = {
        "g.py:11:21: error[QD2064]: fastcache kernel 'k' reads a constant 'scale' captured from outside it; a fastcache (pure) "
        "kernel takes all its data as parameters\n",
        "g.py:4:1: note: 'scale' is set here\n",
        "g.py:17:5: error[QD2064]: fastcache kernel 'j' reads a field 'f' captured from outside it; a fastcache (pure) kernel "
        "takes all its data as parameters\n",
        "g.py:11:29: warning[QD2106]: fastcache kernel 'k' reads a constant 'N' captured from outside it (an UPPERCASE name: "
        "Quadrants warns); pass it as a parameter [-Wpure-capture]\n",
        NULL};
    expect_script_failure("import quadrants as qd\n\nN = 4\nscale = 3\nf = qd.field(qd.i32, shape=4)\n\n"
                          "@qd.kernel(fastcache=True)\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)) -> qd.i32:\n"
                          "    s = 0\n    for i in range(a.shape[0]):\n        s += a[i] * scale + N\n    return s\n\n"
                          "@qd.pure\n@qd.kernel\ndef j(x: qd.i32):\n    f[0] = x\n",
                          pure);
    const char *const cp[] = {"g.py:3:2: error[QD2020]: @qd.kernel(checkpoints=True) requires graph=True\n", NULL};
    expect_script_failure("import quadrants as qd\n\n@qd.kernel(checkpoints=True)\ndef k():\n    pass\n", cp);
    const char *const typo[] = {
        "g.py:3:12: error[QD2020]: @qd.kernel has no argument 'fastcach'; did you mean 'fastcache'? (fastcache=, pure=, "
        "graph=, checkpoints=)\n",
        NULL};
    expect_script_failure("import quadrants as qd\n\n@qd.kernel(fastcach=True)\ndef k():\n    pass\n", typo);
    const char *const purefunc[] = {
        "g.py:5:5: error[QD2020]: @qd.pure marks a kernel: write it above @qd.kernel (or use @qd.kernel(fastcache=True))\n", NULL};
    expect_script_failure("import quadrants as qd\n\n@qd.pure\n@qd.func\ndef f(x):\n    return x\n", purefunc);
    const char *const ad[] = {"g.py:3:2: error[QD2044]: '@qd.ad.grad_replaced' on a kernel or qd.func is not supported: "
                              "@qd.ad.grad_replaced and @qd.ad.grad_for decorate host functions, @qd.ad.no_grad a kernel\n", NULL};
    expect_script_failure("import quadrants as qd\n\n@qd.ad.grad_replaced\n@qd.kernel\ndef k():\n    pass\n", ad);
    /* a foreign decorator is host code: the kernel compiles as declared, with QD2105 */
    char *dir = make_temp_dir(), *src = NULL, *out = NULL;
    cr_assert(asprintf(&src, "%s/g.py", dir) > 0 && asprintf(&out, "%s/g.o", dir) > 0);
    cr_assert(write_text(src, "import quadrants as qd\nfrom tests import test_utils\n\nc = qd.field(qd.i32, shape=())\n\n"
                              "@test_utils.test(debug=True)\n@qd.kernel(fastcache=False, graph=True)\ndef k():\n    c[None] = 1\n"));
    const char *argv[] = {"--color=never", "--target=x86_64", "-o", out, "g.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, "g.py:6:2: warning[QD2105]: 'test_utils.test' is a Python decorator qdc does not run (host code); "
                            "'k' is compiled as declared [-Whost-decorator]\n"),
              "got:\n%s", r.err);
    cr_expect(file_exists(out), "no output");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(out);
}
