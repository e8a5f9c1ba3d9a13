/* Whole programs (issue 30, frontend/module.c, qdc-lang(7) IMPORTS): imports of the program's own
 * modules and packages on the search path (the input's directory, -I, QDC_PATH), -D values,
 * --kernel, and the "nothing hollow" rule. The program in testdata/modules runs on x86 with exact
 * results; every refusal is checked whole (text, location, exit status, no output). */
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Writes the files (name, text pairs, NULL-terminated) into a new temporary directory. */
static char *program(const char *const *files) {
    char *dir = make_temp_dir();
    for (int k = 0; files[k]; k += 2) {
        char *path = NULL;
        cr_assert(asprintf(&path, "%s/%s", dir, files[k]) > 0);
        for (char *s = strchr(path + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
            *s = 0;
            char *mk = NULL;
            cr_assert(asprintf(&mk, "%s", path) > 0);
            (void)!mkdir(mk, 0700);
            free(mk);
            *s = '/';
        }
        cr_assert(write_text(path, files[k + 1]), "cannot write %s", path);
        free(path);
    }
    return dir;
}

/* qdc ARGS... main.py -o main.o in dir (args NULL-terminated): the result; *wrote: main.o exists. */
static RunResult qdc_in(const char *dir, const char *const *args, bool *wrote) {
    const char *argv[32];
    int n = 0;
    argv[n++] = "--color=never";
    for (int k = 0; args[k]; k++) argv[n++] = args[k];
    argv[n++] = "-o", argv[n++] = "main.o", argv[n++] = "main.py", argv[n] = NULL;
    char *out = NULL;
    cr_assert(asprintf(&out, "%s/main.o", dir) > 0);
    remove(out);
    RunResult r = run_qdc_argv(argv, NULL, dir);
    *wrote = file_exists(out);
    free(out);
    return r;
}

static void expect_error(const char *const *files, const char *const *args, int status, const char *want) {
    char *dir = program(files);
    bool wrote;
    RunResult r = qdc_in(dir, args, &wrote);
    cr_expect_eq(r.status, status, "exit %d: %s", r.status, r.err);
    cr_expect_str_eq(r.err, want);
    cr_expect(!wrote, "an output was written after an error");
    run_free(&r);
    remove_tree(dir), free(dir);
}

static const char *const none[] = {NULL};

/* Builds the x86 host program `host` with the object `obj` in dir and runs it on 1, 2 and 4
 * threads: each run prints `want` and exits 0. */
static void runs_on_threads(const char *dir, const char *want) {
    for (int t = 1; t <= 4; t *= 2) {
        char nt[16];
        snprintf(nt, sizeof nt, "%d", t);
        RunResult x = x86_run_host(dir, nt, NULL, NULL);
        cr_expect_eq(x.status, 0, "%s threads: exit %d\n%s%s", nt, x.status, x.out, x.err);
        cr_expect_str_eq(x.out, want);
        run_free(&x);
    }
}

static void run_host(const char *dir, const char *host, const char *obj, const char *want) {
    cr_assert(x86_build_host_file(dir, host, (const char *const[]){obj, NULL}), "the host does not build");
    runs_on_threads(dir, want);
}

/* The same with the host's C source in a string, linked with main.o. */
static void run_host_src(const char *dir, const char *host, const char *want) {
    cr_assert(x86_build_host(dir, host, (const char *const[]){"main.o", NULL}), "the host does not build");
    runs_on_threads(dir, want);
}

/* The program of testdata/modules: three modules and a package (relative imports, a circular
 * import, a submodule bound by `import physics.units as u`), a -D that stands in for a value the
 * program sets at start-up and one that overrides the input's constant; built and run on x86. */
Test(modules, program_runs_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    char *app = root_path("testdata/modules/app"), *lib = root_path("testdata/modules/lib"), *dir = make_temp_dir();
    char *src = NULL, *obj = NULL, *hdr = NULL, *host = NULL;
    cr_assert(asprintf(&src, "%s/main.py", app) > 0 && asprintf(&obj, "%s/main.o", dir) > 0 &&
              asprintf(&hdr, "%s/main.h", dir) > 0 && asprintf(&host, "%s/main.c", app) > 0);
    const char *d1 = "-Dphysics.dtype=qd.f32", *d2 = "N=5";
    RunResult r = run_qdc_argv((const char *const[]){"--target=x86_64", "--stats", "-I", lib, d1, "-D", d2, "-o", obj, src, NULL}, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cr_expect_str_eq(r.out, "main: 2 kernels (zero, step), 2 tasks, 0 atomics, 0 volatile loads, 0 fences\n");
    run_free(&r);
    r = run_qdc_argv((const char *const[]){"--target=x86_64", "--emit=header", "-I", lib, d1, "-D", d2, "-o", hdr, src, NULL}, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    run_host(dir, host, "main.o", "modules: 0 wrong\n");
    remove_tree(dir);
    free(app), free(lib), free(dir), free(src), free(obj), free(hdr), free(host);
}

/* Without the -D, the package's own value (qd.f64) takes the other branch of the qd.func. */
Test(modules, define_stands_in_for_startup_value) {
    char *app = root_path("testdata/modules/app"), *lib = root_path("testdata/modules/lib");
    char *src = NULL;
    cr_assert(asprintf(&src, "%s/main.py", app) > 0);
    RunResult a = run_qdc_argv((const char *const[]){"--emit=ir", "-I", lib, "-D", "physics.dtype=qd.f32", "-o", "-", src, NULL}, NULL, NULL);
    RunResult b = run_qdc_argv((const char *const[]){"--emit=ir", "-I", lib, "-o", "-", src, NULL}, NULL, NULL);
    cr_assert_eq(a.status, 0, "%s", a.err);
    cr_assert_eq(b.status, 0, "%s", b.err);
    cr_expect(strstr(a.out, "%3 = (add:f32 %2 5:f32)") != NULL, "%s", a.out);
    cr_expect(strstr(b.out, "(sub:f32 %2 1:f32)") != NULL, "%s", b.out);
    cr_expect(strstr(b.out, "(add:i32 (add:i32 (add:i32 %5 10000:i32) 1000:i32) 6:i32)") != NULL, "N = 3 without -D N=5: %s", b.out);
    run_free(&a), run_free(&b);
    free(app), free(lib), free(src);
}

/* Every module read is a dependency (editing one rebuilds), after the input, with -MP phony rules. */
Test(modules, depfile_lists_every_module) {
    const char *const files[] = {"main.py", "import quadrants as qd\nimport pkg.b as b\nfrom c import F\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                                            "    for i in range(a.shape[0]):\n        a[i] = b.V + F\n",
                                 "pkg/__init__.py", "", "pkg/b.py", "V = 1\n", "c.py", "F = 2\n", NULL};
    char *dir = program(files);
    bool wrote;
    RunResult r = qdc_in(dir, (const char *const[]){"--target=x86_64", "-MD", "-MP", "-MF", "main.d", NULL}, &wrote);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(wrote);
    char *path = NULL;
    cr_assert(asprintf(&path, "%s/main.d", dir) > 0);
    char *d = read_text(path, NULL);
    cr_assert(d);
    cr_expect(!strncmp(d, "main.o: \\\n  main.py \\\n  pkg/__init__.py \\\n  pkg/b.py \\\n  c.py \\\n", 61), "%s", d);
    cr_expect(strstr(d, "\npkg/b.py:\n") && strstr(d, "\nc.py:\n") && strstr(d, "\npkg/__init__.py:\n"), "%s", d);
    free(d), free(path);
    run_free(&r);
    remove_tree(dir), free(dir);
}

/* The search path: the input's directory, then each -I in order, then QDC_PATH; the first wins. */
Test(modules, search_path_order) {
    const char *const files[] = {"main.py", "import quadrants as qd\nimport m\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                                            "    for i in range(a.shape[0]):\n        a[i] = m.V\n",
                                 "i1/m.py", "V = 11\n", "i2/m.py", "V = 22\n", "env/m.py", "V = 33\n", "env/n.py", "V = 44\n", NULL};
    char *dir = program(files), *env = NULL;
    cr_assert(asprintf(&env, "%s/nowhere:%s/env", dir, dir) > 0);
    setenv("QDC_PATH", env, 1);
    bool wrote;
    struct { const char *args[6]; const char *want; } cases[] = {
        {{"--emit=ir", "-I", "i1", "-I", "i2", NULL}, "= 11:i32"},
        {{"--emit=ir", "-I", "i2", "-I", "i1", NULL}, "= 22:i32"},
        {{"--emit=ir", NULL}, "= 33:i32"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        RunResult r = qdc_in(dir, cases[c].args, &wrote);
        cr_expect_eq(r.status, 0, "%s", r.err);
        char *path = NULL, *ir;
        cr_assert(asprintf(&path, "%s/main.o", dir) > 0);
        ir = read_text(path, NULL);
        cr_expect(ir && strstr(ir, cases[c].want), "case %zu: want '%s' in\n%s", c, cases[c].want, ir ? ir : "");
        free(ir), free(path);
        run_free(&r);
    }
    char *beside = NULL; /* the input's directory comes before -I and QDC_PATH */
    cr_assert(asprintf(&beside, "%s/m.py", dir) > 0 && write_text(beside, "V = 55\n"));
    RunResult r = qdc_in(dir, (const char *const[]){"--emit=ir", "-I", "i1", NULL}, &wrote);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char *path = NULL, *ir;
    cr_assert(asprintf(&path, "%s/main.o", dir) > 0);
    ir = read_text(path, NULL);
    cr_expect(ir && strstr(ir, "= 55:i32"), "%s", ir ? ir : "");
    free(ir), free(path), free(beside);
    run_free(&r);
    unsetenv("QDC_PATH");
    remove_tree(dir), free(dir), free(env);
}

/* A module that is not on the search path stays the script's: using a name imported from it is
 * QD2062 at the use with a note at the import (never "undefined name"). */
Test(modules, module_not_found_is_located) {
    const char *const files[] = {"main.py", "import quadrants as qd\nfrom util import twice\n\n@qd.kernel\n"
                                            "def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n    for i in range(a.shape[0]):\n"
                                            "        a[i] = twice(a[i])\n", NULL};
    expect_error(files, none, 1,
                 "main.py:7:16: error[QD2062]: 'twice' is imported from 'util', a module that is not on qdc's search path (the "
                 "input's directory, -I, QDC_PATH), known only when the script runs; kernels can use module constants, fields, "
                 "qd.func and their own arguments\n"
                 " 7 |         a[i] = twice(a[i])\n   |                ^~~~~\n"
                 "main.py:2:18: note: 'twice' is set here\n 2 | from util import twice\n   |                  ^~~~~\n");
}

/* Python's import errors, with its wording: a name the module does not define, a name a circular
 * import has not defined yet, a relative import without a package, a missing attribute. */
Test(modules, import_errors_use_python_wording) {
    const char *const missing[] = {"main.py", "import quadrants as qd\nfrom util import thrice\n\n@qd.kernel\ndef k():\n    pass\n",
                                   "util.py", "def twice(x):\n    return 2 * x\n", NULL};
    expect_error(missing, none, 1,
                 "main.py:2:1: error[QD2065]: cannot import name 'thrice' from 'util' (util.py)\n"
                 " 2 | from util import thrice\n   | ^~~~~~~~~~~~~~~~~~~~~~~\n");
    const char *const cycle[] = {"main.py", "import quadrants as qd\nimport a\n\n@qd.kernel\ndef k():\n    pass\n",
                                 "a.py", "from b import g\n\nF = 1\n", "b.py", "from a import F\n\ng = 2\n", NULL};
    expect_error(cycle, none, 1,
                 "b.py:1:1: error[QD2065]: cannot import name 'F' from partially initialized module 'a' (most likely due to a "
                 "circular import) (a.py)\n 1 | from a import F\n   | ^~~~~~~~~~~~~~~\n");
    const char *const relative[] = {"main.py", "import quadrants as qd\nfrom . import x\n\n@qd.kernel\ndef k():\n    pass\n", NULL};
    expect_error(relative, none, 1,
                 "main.py:2:1: error[QD2065]: attempted relative import with no known parent package (give the root of its "
                 "package with -I so qdc knows the input's package)\n 2 | from . import x\n   | ^~~~~~~~~~~~~~~\n");
    const char *const attr[] = {"main.py", "import quadrants as qd\nimport util\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                                           "    a[0] = util.SCALEE\n", "util.py", "SCALE = 2\n", NULL};
    expect_error(attr, none, 1,
                 "main.py:6:12: error[QD2019]: module 'util' has no attribute 'SCALEE'; did you mean 'SCALE'?\n"
                 " 6 |     a[0] = util.SCALEE\n   |            ^~~~~~~~~~~\n"
                 "main.py:2:1: note: 'util' is imported here\n 2 | import util\n   | ^~~~~~~~~~~\n");
}

/* A package that cannot be read (its __init__ imports torch, say) is replaced by -D values for
 * the attributes kernels use; one -D does not give is named with the -D to write. */
Test(modules, define_stands_in_for_a_missing_module) {
    const char *const files[] = {"main.py", "import quadrants as qd\nimport genesis as gs\n\n@qd.kernel\n"
                                            "def k(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n    for i in range(a.shape[0]):\n"
                                            "        a[i] = qd.cast(gs.EPS, gs.qd_float)\n", NULL};
    char *dir = program(files);
    bool wrote;
    RunResult r = qdc_in(dir, (const char *const[]){"-D", "gs.qd_float=qd.f32", "-D", "genesis.EPS=1e-3", NULL}, &wrote);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cr_expect(wrote);
    run_free(&r);
    remove_tree(dir), free(dir);
    expect_error(files, (const char *const[]){"-D", "gs.qd_float=qd.f32", NULL}, 1,
                 "main.py:7:24: error[QD2062]: 'genesis.EPS' is known only when the script runs: module 'genesis' is not on "
                 "qdc's search path; its -D values stand in for it; give it with -D genesis.EPS=VALUE\n"
                 " 7 |         a[i] = qd.cast(gs.EPS, gs.qd_float)\n   |                        ^~~~~~\n"
                 "main.py:2:1: note: 'genesis' is imported here\n 2 | import genesis as gs\n   | ^~~~~~~~~~~~~~~~~~~~\n");
}

/* -D errors point into the option; -D without '=' is a usage error (exit 2). */
Test(modules, define_errors) {
    const char *const files[] = {"main.py", "import quadrants as qd\nN = 4\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                                            "    a[0] = N\n", NULL};
    expect_error(files, (const char *const[]){"-D", "N=(1", NULL}, 1,
                 "-D:1:3: error[QD1008]: '(' was never closed\n 1 | N=(1\n   |   ^\n");
    expect_error(files, (const char *const[]){"-D", "N=[1, print]", NULL}, 1,
                 "-D:1:3: error[QD2066]: invalid -D option: a tuple is not a compile-time constant\n"
                 " 1 | N=[1, print]\n   |   ^~~~~~~~~~\n");
    expect_error(files, (const char *const[]){"-D", "N=M", NULL}, 1,
                 "-D:1:3: error[QD2001]: Name \"M\" is not defined\n 1 | N=M\n   |   ^\n");
    expect_error(files, (const char *const[]){"-D", "N", NULL}, 2,
                 "qdc: error: -D needs NAME=EXPR (NAME may be MODULE.NAME), got 'N'\nqdc: run 'qdc --help' for usage\n");
}

/* --kernel: only the named kernels of the input; an unknown name has a did-you-mean. */
Test(modules, kernel_option_selects_entries) {
    const char *const files[] = {"main.py", "import quadrants as qd\n\n@qd.kernel\ndef fill(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                                            "    a[0] = 1\n\n@qd.kernel\ndef broken(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                                            "    a[0] = undefined_name\n", NULL};
    char *dir = program(files);
    bool wrote;
    RunResult r = qdc_in(dir, (const char *const[]){"--kernel", "fill", "--stats", NULL}, &wrote);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "main: 1 kernel (fill), 1 task, 0 atomics, 0 volatile loads, 0 fences\n");
    cr_expect(wrote);
    run_free(&r);
    remove_tree(dir), free(dir);
    expect_error(files, (const char *const[]){"--kernel", "fil", NULL}, 1,
                 "qdc: error[QD2067]: --kernel fil: the input defines no kernel named 'fil'; did you mean 'fill'?\n");
}

/* Nothing hollow: kernels defined but none compiled is an error naming what to do. */
Test(modules, nothing_hollow) {
    const char *const files[] = {"main.py", "import quadrants as qd\n\n@qd.data_oriented\nclass Sim:\n    def __init__(self):\n"
                                            "        self.n = 4\n\n    @qd.kernel\n    def step(self):\n        pass\n", NULL};
    expect_error(files, (const char *const[]){"-Wno-data-oriented-unused", NULL}, 1,
                 "main.py:4:7: error[QD2068]: the input defines kernels but compiles none: @qd.data_oriented class 'Sim' is never "
                 "instantiated; create one where qdc can see it (obj = Sim(...) at module level or in a host function)\n"
                 " 4 | class Sim:\n   |       ^~~\n");
    /* a library module's kernels are not the input's: an input with none of its own compiles nothing, with the usual warning */
    const char *const lib[] = {"main.py", "import quadrants as qd\nimport lib\n", "lib.py",
                               "import quadrants as qd\n\n@qd.kernel\ndef k():\n    pass\n", NULL};
    char *dir = program(lib);
    bool wrote;
    RunResult r = qdc_in(dir, (const char *const[]){"--check", NULL}, &wrote);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "warning[QD2102]: the module defines no kernels") != NULL, "%s", r.err);
    run_free(&r);
    remove_tree(dir), free(dir);
}

/* The checks Quadrants makes when host code calls a kernel, with its wording, at the call
 * (callcheck.c); a call in a block the script expects to raise is not checked. */
Test(calls, quadrants_call_checks) {
    const char *const files[] = {"main.py", "import quadrants as qd\nimport pytest\n\n@qd.kernel\n"
                                            "def k(a: qd.types.ndarray(dtype=qd.f32, ndim=1), n: qd.i32):\n"
                                            "    for i in range(n):\n        a[i] = 1.0\n\n"
                                            "def test_calls():\n    x = qd.ndarray(qd.i32, (4,))\n    k(x, 3)\n"
                                            "    y = qd.ndarray(qd.f32, (4, 4))\n    k(y, 3)\n    z = qd.ndarray(qd.f32, (4,))\n"
                                            "    k(z)\n    k(z, 3, 4)\n    k(z, 2.5)\n    k(z, n=1, m=2)\n    k(z, 1, a=z)\n"
                                            "    with pytest.raises(ValueError):\n        k(x, 3)\n", NULL};
    expect_error(files, none, 1,
                 "main.py:11:7: error[QD2069]: Expect element type f32 for argument a, but get i32\n"
                 " 11 |     k(x, 3)\n    |       ^\n"
                 "main.py:13:7: error[QD2069]: Invalid value for argument a - required ndim=1, but 2d ndarray with shape (4, 4) is provided\n"
                 " 13 |     k(y, 3)\n    |       ^\n"
                 "main.py:15:5: error[QD2069]: Missing argument 'n'. (calling kernel 'k')\n 15 |     k(z)\n    |     ^~~~\n"
                 "main.py:5:50: note: 'n' is declared here\n"
                 " 5 | def k(a: qd.types.ndarray(dtype=qd.f32, ndim=1), n: qd.i32):\n   |                                                  ^\n"
                 "main.py:16:13: error[QD2069]: Too many arguments. Expected (a, n), got 3 arguments (calling kernel 'k')\n"
                 " 16 |     k(z, 3, 4)\n    |             ^\n"
                 "main.py:17:10: error[QD2069]: Argument (1,) (type=<class 'float'>) cannot be converted into required type i32\n"
                 " 17 |     k(z, 2.5)\n    |          ^~~\n"
                 "main.py:18:15: error[QD2069]: Unexpected argument 'm'. (calling kernel 'k')\n 18 |     k(z, n=1, m=2)\n    |               ^\n"
                 "main.py:19:13: error[QD2069]: Multiple values for argument 'a'. (calling kernel 'k')\n 19 |     k(z, 1, a=z)\n    |             ^\n");
}

/* An imported module's kernel is checked against its own source: an f-string print and an
 * assert's text come from lib.py (not from the input's text at the same offsets), and the
 * messages of --debug's checks name lib.py. */
Test(modules, imported_kernel_uses_its_own_source) {
    const char *const files[] = {"main.py", "import quadrants as qd\nimport lib\n\n@qd.kernel\n"
                                            "def fill(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n    for i in range(a.shape[0]):\n"
                                            "        a[i] = i\n\ndef setup():\n    lib.show(qd.ndarray(qd.i32, (4,)))\n",
                                 "lib.py", "import quadrants as qd\n\n@qd.kernel\ndef show(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                                           "    for i in range(a.shape[0]):\n        print(f\"a[{i}] = {a[i]}\")\n        assert a[i] >= 0\n",
                                 NULL};
    char *dir = program(files), *path = NULL;
    bool wrote;
    RunResult r = qdc_in(dir, (const char *const[]){"--debug", "--emit=ir", NULL}, &wrote);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cr_assert(asprintf(&path, "%s/main.o", dir) > 0);
    char *ir = read_text(path, NULL);
    cr_assert(ir);
    cr_expect(strstr(ir, "    print \"a[%d] = %d\\n\" %1 (load ndarray a[%1]:i32)\n") != NULL, "%s", ir);
    cr_expect(strstr(ir, "\"lib.py:7:9: assertion failed: a[i] >= 0\"") != NULL, "%s", ir);
    cr_expect(strstr(ir, "\"lib.py:6:29: index out of bounds for axis 0 of 'a'\"") != NULL, "%s", ir);
    cr_expect(strstr(ir, "\"main.py:7:11: index out of bounds for axis 0 of 'a'\"") != NULL, "%s", ir);
    free(ir), free(path);
    run_free(&r);
    remove_tree(dir), free(dir);
}

/* Diagnostics are sorted by position within each file, the files in the order their first
 * diagnostic came: lib.py's two errors (at offsets on both sides of main.py's) stay together. */
Test(modules, diagnostics_sorted_per_file) {
    const char *const files[] = {"main.py", "import quadrants as qd\nimport lib\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n"
                                            "@qd.kernel\ndef fill(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n    a[0] = missing_a\n\n"
                                            "def setup():\n    lib.bad(qd.ndarray(qd.i32, (4,)))\n",
                                 "lib.py", "import quadrants as qd\n\n@qd.kernel\ndef bad(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                                           "    a[0] = missing_b\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n"
                                           "    a[1] = missing_c\n", NULL};
    expect_error(files, none, 1,
                 "lib.py:5:12: error[QD2001]: Name \"missing_b\" is not defined\n 5 |     a[0] = missing_b\n   |            ^~~~~~~~~\n"
                 "lib.py:45:12: error[QD2001]: Name \"missing_c\" is not defined\n 45 |     a[1] = missing_c\n    |            ^~~~~~~~~\n"
                 "main.py:38:12: error[QD2001]: Name \"missing_a\" is not defined\n 38 |     a[0] = missing_a\n    |            ^~~~~~~~~\n");
}

static const char *const mini_defines[] = {"-D", "gen.use_ndarray=True", "-D", "gen.qd_float=qd.f32", "-D", "gen.qd_int=qd.i32"};

/* qdc ARGS... -I mini -D ... FILE (under testdata/modules), in the checkout. */
static RunResult qdc_mini(const char *file, const char *const *args) {
    char *mini = root_path("testdata/modules/mini"), *rel = NULL;
    cr_assert(asprintf(&rel, "testdata/modules/%s", file) > 0);
    char *src = root_path(rel);
    free(rel);
    const char *argv[32];
    int n = 0;
    argv[n++] = "--color=never", argv[n++] = "-I", argv[n++] = mini;
    for (size_t k = 0; k < sizeof mini_defines / sizeof *mini_defines; k++) argv[n++] = mini_defines[k];
    for (int k = 0; args[k]; k++) argv[n++] = args[k];
    argv[n++] = src, argv[n] = NULL;
    RunResult r = run_qdc_argv(argv, NULL, NULL);
    free(mini), free(src);
    return r;
}

/* A Genesis-shaped module read alone (testdata/modules/mini/gen/solvers/step.py): its array
 * structs are dataclasses chosen by a decorator alias (partial(dataclasses.dataclass, ...)),
 * its config a class whose __init__ a metaclass makes, its kernels generic, one with gpu_graph=,
 * one registered on a perf_dispatch through lambdas of *args, **kwargs: every kernel reads
 * through to "needs an instance" (QD2060), nothing else. */
Test(modules, genesis_shaped_module_needs_instances) {
    RunResult r = qdc_mini("mini/gen/solvers/step.py", (const char *const[]){"--check", NULL});
    cr_expect_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    int n2060 = 0, other = 0;
    for (const char *p = strstr(r.err, "error["); p; p = strstr(p + 1, "error[")) n2060 += !strncmp(p, "error[QD2060]", 13), other += !!strncmp(p, "error[QD2060]", 13);
    cr_expect_eq(n2060, 3, "%s", r.err);
    cr_expect_eq(other, 0, "%s", r.err);
    cr_expect(strstr(r.err, "step.py:52:29: error[QD2060]: kernel 'kernel_clear_all' is generic ('state' has no fixed type) and no call "
                            "qdc can evaluate instantiates it") != NULL, "%s", r.err);
    run_free(&r);
}

/* An instantiation driver (testdata/modules/drivers/step.py) compiles the module's kernels for
 * every family: one entry per distinct signature (two configs, two atomics of the dict). */
Test(modules, genesis_shaped_driver_compiles_everywhere) {
    const char *targets[] = {"--target=x86_64", "--target=sm_90", "--target=gfx942", "--target=vulkan1.3"};
    for (size_t t = 0; t < sizeof targets / sizeof *targets; t++) {
        RunResult r = qdc_mini("drivers/step.py", (const char *const[]){targets[t], "--check", "--stats", NULL});
        cr_expect_eq(r.status, 0, "%s: %s", targets[t], r.err);
        cr_expect_str_eq(r.err, "");
        cr_expect(!strncmp(r.out, "step: 5 kernels (kernel_step__StructState_f32_2d_f32_2d_f32_1d__config, "
                                  "kernel_step__StructState_f32_2d_f32_2d_f32_1d__back, kernel_energy__StructState_f32_2d_f32_2d_f32_1d__0, "
                                  "kernel_energy__StructState_f32_2d_f32_2d_f32_1d__1, kernel_clear_all__StructState_f32_2d_f32_2d_f32_1d), ", 270),
                  "%s: %s", targets[t], r.out);
        run_free(&r);
    }
}

/* The driver's entries run on x86 with exact results: the qd.func's top-level loops as the
 * kernel's parallel loops (twice: qd.static(range(config.substeps))), its BW = qd.static(...)
 * branch, n, m = x.shape, the dict of atomics, the old gpu_graph= spelling. */
Test(modules, genesis_shaped_driver_runs_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir(), *obj = NULL, *hdr = NULL, *host = root_path("testdata/modules/drivers/step.c");
    cr_assert(asprintf(&obj, "%s/step.o", dir) > 0 && asprintf(&hdr, "%s/step.h", dir) > 0);
    RunResult r = qdc_mini("drivers/step.py", (const char *const[]){"--target=x86_64", "-o", obj, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = qdc_mini("drivers/step.py", (const char *const[]){"--target=x86_64", "--emit=header", "-o", hdr, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    run_host(dir, host, "step.o", "driver: 0 wrong\n");
    remove_tree(dir);
    free(dir), free(obj), free(hdr), free(host);
}

/* More Genesis patterns (testdata/modules/drivers/extra.py): a parameter named errno, qd.funcs
 * with top-level loops reached through another qd.func (with qd.loop_config), a module's
 * placeholder array passed down a branch that never uses it, package globals made by
 * `globals()[name] = member` over an enum's __members__, and a -D (gen.qd_vec3) that wins over the
 * package's star-import of a qd.func of that name. Compiles for every family, runs on x86. */
static const char *const vec3_define[] = {"-D", "gen.qd_vec3=qd.types.vector(3, qd.f32)"};

Test(modules, genesis_patterns_driver_compiles_everywhere) {
    const char *targets[] = {"--target=x86_64", "--target=sm_90", "--target=gfx942", "--target=vulkan1.3"};
    for (size_t t = 0; t < sizeof targets / sizeof *targets; t++) {
        RunResult r = qdc_mini("drivers/extra.py", (const char *const[]){vec3_define[0], vec3_define[1], targets[t], "--check", "--stats", NULL});
        cr_expect_eq(r.status, 0, "%s: %s", targets[t], r.err);
        cr_expect_str_eq(r.err, "");
        cr_expect(!strncmp(r.out, "extra: 2 kernels (kernel_extra__f32_1d__i32_1d__True, kernel_extra__f32_1d__i32_1d__False), ", 92),
                  "%s: %s", targets[t], r.out);
        run_free(&r);
    }
    /* without the -D, gen.qd_vec3 is the star-imported qd.func (one parameter) */
    RunResult r = qdc_mini("drivers/extra.py", (const char *const[]){"--check", NULL});
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "extra.py:45:13: error[QD2007]: Too many arguments: 'qd_vec3' takes 1 argument, got 3") != NULL, "%s", r.err);
    run_free(&r);
}

Test(modules, genesis_patterns_driver_runs_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir(), *obj = NULL, *hdr = NULL, *host = root_path("testdata/modules/drivers/extra.c");
    cr_assert(asprintf(&obj, "%s/extra.o", dir) > 0 && asprintf(&hdr, "%s/extra.h", dir) > 0);
    RunResult r = qdc_mini("drivers/extra.py", (const char *const[]){vec3_define[0], vec3_define[1], "--target=x86_64", "-o", obj, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = qdc_mini("drivers/extra.py", (const char *const[]){vec3_define[0], vec3_define[1], "--target=x86_64", "--emit=header", "-o", hdr, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    run_host(dir, host, "extra.o", "extra: 0 wrong\n");
    remove_tree(dir);
    free(dir), free(obj), free(hdr), free(host);
}

/* A placeholder array used where it is passed down: QD2062 at the use inside the qd.func. */
Test(modules, placeholder_array_used_is_located) {
    const char *const files[] = {"main.py", "import quadrants as qd\n\nP = qd.ndarray(qd.f32, (1,))\n\n\n@qd.func\n"
                                            "def f(a: qd.types.ndarray()):\n    a[0] = 1.0\n\n\n@qd.kernel\ndef k():\n"
                                            "    for _ in range(1):\n        f(P)\n", NULL};
    expect_error(files, none, 1,
                 "main.py:8:5: error[QD2062]: 'a' is an array the script allocates, known only when the script runs; kernels "
                 "can use module constants, fields, qd.func and their own arguments\n 8 |     a[0] = 1.0\n   |     ^\n"
                 "main.py:7:7: note: 'a' is set here\n 7 | def f(a: qd.types.ndarray()):\n   |       ^\n");
}

/* Python's dict views and an IntEnum's __members__ evaluate at compile time, in host loops and
 * in qd.static loops; globals()[name] = v at module level binds name. */
Test(patterns, dict_views_enum_members_and_globals) {
    const char *const files[] = {"main.py", "import quadrants as qd\nfrom enum import IntEnum\n\n\nclass Mode(IntEnum):\n"
                                            "    A = 1\n    B = 2\n    C = 5\n\n\nfor name, m in Mode.__members__.items():\n"
                                            "    globals()['MODE_' + name] = m * 10\nD = {'x': 3, 'y': 4}\nKEYS = ''\n"
                                            "for key in D.keys():\n    KEYS = KEYS + key\n\n\n@qd.kernel\n"
                                            "def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n    for i in range(1):\n"
                                            "        s = 0\n        for key, v in qd.static(D.items()):\n            s += v\n"
                                            "        for v in qd.static(D.values()):\n            s += v * 100\n"
                                            "        a[0] = s + MODE_A + MODE_B + MODE_C + qd.static(len(KEYS)) * 1000\n", NULL};
    char *dir = program(files);
    RunResult r = run_qdc_argv((const char *const[]){"--color=never", "--emit=ir", "-o", "-", "main.py", NULL}, NULL, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    /* items() and values() in insertion order; MODE_A/B/C = 10, 20, 50; len("xy") = 2 */
    cr_expect(strstr(r.out, "    %2 = (add:i32 %2 3:i32)\n    %2 = (add:i32 %2 4:i32)\n    %2 = (add:i32 %2 300:i32)\n"
                            "    %2 = (add:i32 %2 400:i32)\n    store ndarray a[0:i32]:i32 = (add:i32 (add:i32 (add:i32 (add:i32 "
                            "%2 10:i32) 20:i32) 50:i32) 2000:i32)\n") != NULL, "%s", r.out);
    run_free(&r);
    remove_tree(dir), free(dir);
}

/* A generic kernel's calls get the same checks, on what its annotations fix (a dtype without
 * ndim, an ndim without dtype, its typed parameters); a refused call instantiates nothing (no
 * "needs an instance" beside the errors). */
Test(calls, generic_kernel_call_checks) {
    const char *const files[] = {"main.py", "import quadrants as qd\n\n@qd.kernel\n"
                                            "def k(a: qd.types.ndarray(dtype=qd.f32), b: qd.types.ndarray(ndim=1), n: qd.i32):\n"
                                            "    for i in range(n):\n        a[i] = b[i]\n\n"
                                            "def test_calls():\n    x = qd.ndarray(qd.i32, (4,))\n    y = qd.ndarray(qd.f32, (4, 4))\n"
                                            "    z = qd.ndarray(qd.f32, (4,))\n    k(x, z, 3)\n    k(z, y, 3)\n    k(z, z, 2.5)\n    k(z, z)\n"
                                            "    k(qd.ndarray(qd.i32, (4,)), z, 1)\n", NULL};
    expect_error(files, none, 1,
                 "main.py:12:7: error[QD2069]: Expect element type f32 for argument a, but get i32\n"
                 " 12 |     k(x, z, 3)\n    |       ^\n"
                 "main.py:13:10: error[QD2069]: Invalid value for argument b - required ndim=1, but 2d ndarray with shape (4, 4) is provided\n"
                 " 13 |     k(z, y, 3)\n    |          ^\n"
                 "main.py:14:13: error[QD2069]: Argument (2,) (type=<class 'float'>) cannot be converted into required type i32\n"
                 " 14 |     k(z, z, 2.5)\n    |             ^~~\n"
                 "main.py:15:5: error[QD2069]: Missing argument 'n'. (calling kernel 'k')\n 15 |     k(z, z)\n    |     ^~~~~~~\n"
                 "main.py:4:71: note: 'n' is declared here\n"
                 " 4 | def k(a: qd.types.ndarray(dtype=qd.f32), b: qd.types.ndarray(ndim=1), n: qd.i32):\n"
                 "   |                                                                       ^\n"
                 "main.py:16:7: error[QD2069]: Expect element type f32 for argument a, but get i32\n"
                 " 16 |     k(qd.ndarray(qd.i32, (4,)), z, 1)\n    |       ^~~~~~~~~~~~~~~~~~~~~~~~\n");
}

/* qd.algorithms' internal kernels (not its composable functions, sema_algo.c) are refused where a
 * kernel calls them, by name; so is the host object PrefixSumExecutor. */
Test(calls, algorithms_library_refused) {
    const char *const files[] = {"main.py", "import quadrants as qd\n\n@qd.kernel\n"
                                            "def k(keys: qd.types.ndarray(dtype=qd.i32, ndim=1), scratch: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                                            "    qd.algorithms._scan._scan_pass3(keys, scratch, keys.shape[0])\n"
                                            "    qd.algorithms.PrefixSumExecutor(4)\n", NULL};
    expect_error(files, none, 1,
                 "main.py:5:5: error[QD2008]: 'qd.algorithms._scan._scan_pass3' is not supported: qdc provides qd.algorithms' composable "
                 "functions (reduce_*, exclusive_scan_*, select, reduce_by_key_add, sort) and their *_scratch_slots helpers, not its "
                 "internal kernels\n"
                 " 5 |     qd.algorithms._scan._scan_pass3(keys, scratch, keys.shape[0])\n   |     ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
                 "main.py:6:5: error[QD2008]: 'qd.algorithms.PrefixSumExecutor' is Quadrants' host-side algorithms API; call it outside "
                 "kernels, or use qd.algorithms.exclusive_scan_add in a kernel\n"
                 " 6 |     qd.algorithms.PrefixSumExecutor(4)\n   |     ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
}

/* qdc ARGS... main.py -o main.o (--emit=ir among ARGS) in a new program of one file: the IR. */
static char *ir_of(const char *text) {
    const char *const files[] = {"main.py", text, NULL};
    char *dir = program(files), *path = NULL;
    bool wrote;
    RunResult r = qdc_in(dir, (const char *const[]){"--emit=ir", NULL}, &wrote);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_assert(asprintf(&path, "%s/main.o", dir) > 0);
    char *ir = r.status ? NULL : read_text(path, NULL);
    run_free(&r);
    free(path), remove_tree(dir), free(dir);
    return ir;
}

/* Genesis' forward kinematics: a qd.func sets BW = qd.static(is_backward) and then loops over
 * `range(n) if qd.static(not BW) else qd.static(range(m))` (the branch is chosen inside the
 * qd.func, after BW is set); an index held in a list (I = [i, j]; a[I]) is one index per item. */
Test(patterns, func_values_and_list_indices) {
    char *ir = ir_of("import quadrants as qd\n\n@qd.func\ndef f(a: qd.types.ndarray(dtype=qd.f32, ndim=2), is_backward: qd.template()):\n"
                     "    BW = qd.static(is_backward)\n    for i in (range(a.shape[0]) if qd.static(not BW) else qd.static(range(2))):\n"
                     "        I = [i, 0]\n        a[I] += 1.0\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.f32, ndim=2)):\n"
                     "    f(a, False)\n    f(a, True)\n");
    cr_assert(ir);
    cr_expect(strstr(ir, "  task k_t1 parallel extent=(max:i32 (shape a 0) 0:i32) index=%0\n    %1 = %0\n    %2 = %1\n"
                         "    eval (atomic_add:f32 relaxed device ndarray a[%2, 0:i32]:f32 1:f32 unused augassign") != NULL, "%s", ir);
    cr_expect(strstr(ir, "  task k_t2 serial\n    eval (atomic_add:f32 relaxed device ndarray a[0:i32, 0:i32]:f32 1:f32 unused augassign "
                         "-> cas_loop add relaxed system via_int)\n    eval (atomic_add:f32 relaxed device ndarray a[1:i32, 0:i32]:f32") != NULL,
              "the unrolled branch: %s", ir);
    free(ir);
}

/* A qd.func inlined at the kernel's top level: a local of its serial code (n = a.shape[0], a
 * value read from an array, and one set inside its `if qd.static(...)` branch) that its loops
 * read is kernel-scope, a kernel-owned field named after the kernel and the qd.func (no clash
 * with the kernel's own n); `BW = qd.static(flag)` stays a compile-time value in every loop,
 * in a qd.func and in the kernel (Genesis' forward dynamics). */
Test(patterns, func_serial_locals_shared_with_its_loops) {
    char *ir = ir_of("import quadrants as qd\n\n@qd.func\ndef inner(a: qd.types.ndarray(dtype=qd.f32, ndim=1), b: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
                     "    n = a.shape[0]\n    scale = b[0] * 2.0\n    for i in range(n):\n        a[i] = a[i] + scale\n"
                     "    if qd.static(True):\n        m = n - 1\n        for i in range(m):\n            a[i] = a[i] * scale\n\n"
                     "@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.f32, ndim=1), b: qd.types.ndarray(dtype=qd.f32, ndim=1), flag: qd.template()):\n"
                     "    BW = qd.static(flag)\n    n = 7\n    inner(a, b)\n"
                     "    for i in (range(1) if qd.static(not BW) else qd.static(range(2))):\n        b[i] = n\n\n"
                     "def setup():\n    k(qd.ndarray(qd.f32, (4,)), qd.ndarray(qd.f32, (4,)), False)\n");
    cr_assert(ir);
    cr_expect(strstr(ir, "    store field qdc_tmp_k__False_n[]:i32 = 7:i32\n    store field qdc_tmp_k__False_inner_n[]:i32 = (shape a 0)\n"
                         "    store field qdc_tmp_k__False_inner_scale[]:f32 = (mul:f32 (load ndarray b[0:i32]:f32) 2:f32)\n") != NULL, "%s", ir);
    cr_expect(strstr(ir, "parallel extent=(max:i32 (sub:i32 (shape a 0) 1:i32) 0:i32)") != NULL, "%s", ir); /* m: in the branch */
    cr_expect(strstr(ir, "store ndarray b[%") != NULL && strstr(ir, "(cast:f32 (load field qdc_tmp_k__False_n[]:i32))") != NULL, "%s", ir);
    free(ir);
}

/* A data-oriented class whose __init__ makes a field of a vector type that a package's attribute
 * names (-D pkg.vec3=..., as Genesis' gs.qd_vec3) and a struct field with needs_grad=False
 * (Quadrants' default: no gradient storage) and SOA layout; the kernel's three loops run on x86
 * with 1, 2 and 4 threads: out[i] = c.x + 10 c.y + 100 c.z of the boxes' centres, 321 i + 470.5. */
static const char *const boxes_files[] = {
    "pkg/__init__.py", "",
    "main.py",
    "import quadrants as qd\nimport pkg\n\n\n@qd.dataclass\nclass Box:\n    lo: pkg.vec3\n    hi: pkg.vec3\n\n\n"
    "@qd.data_oriented\nclass Boxes:\n    def __init__(self, n):\n        self.n = n\n"
    "        self.centers = qd.field(pkg.vec3, shape=(n,))\n"
    "        self.boxes = Box.field(shape=(n,), needs_grad=False, layout=qd.Layout.SOA)\n\n"
    "    @qd.kernel\n    def run(self, out: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
    "        for i in range(self.n):\n            self.boxes[i].lo = pkg.vec3(i, 2 * i, 3 * i)\n"
    "            self.boxes[i].hi = pkg.vec3(i + 1, 2 * i + 4, 3 * i + 9)\n"
    "        for i in range(self.n):\n            self.centers[i] = (self.boxes[i].lo + self.boxes[i].hi) / 2\n"
    "        for i in range(self.n):\n            out[i] = self.centers[i][0] + 10 * self.centers[i][1] + 100 * self.centers[i][2]\n\n\n"
    "boxes = Boxes(8)\nboxes.run(qd.ndarray(qd.f32, (8,)))\n",
    NULL};

Test(patterns, class_fields_of_a_module_vector_type_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    char *dir = program(boxes_files);
    bool wrote;
    RunResult r = qdc_in(dir, (const char *const[]){"--target=x86_64", "-Dpkg.vec3=qd.types.vector(3, qd.f32)", "--stats", NULL}, &wrote);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cr_expect_str_eq(r.out, "main: 1 kernel (boxes__run), 3 tasks, 0 atomics, 0 volatile loads, 0 fences\n");
    run_free(&r);
    RunResult h = run_qdc_argv((const char *const[]){"--emit=header", "-Dpkg.vec3=qd.types.vector(3, qd.f32)", "-o", "main.h", "main.py", NULL}, NULL, dir);
    cr_assert_eq(h.status, 0, "%s", h.err);
    run_free(&h);
    const char *host = "#include \"main.h\"\n#include \"common.h\"\n\nint main(int argc, char **argv) {\n"
                       "    int nt = host_threads(argc, argv), bad = 0;\n    float *out = host_alloc(8, 4);\n"
                       "    boxes__run_args a = {out, {8}};\n    if (!host_launch_ok(boxes__run(&a, nt))) return 2;\n"
                       "    for (int i = 0; i < 8; i++)\n"
                       "        if (out[i] != 321.0f * (float)i + 470.5f) bad++, printf(\"out[%d] = %g\\n\", i, (double)out[i]);\n"
                       "    printf(\"boxes: %d wrong\\n\", bad);\n    free(out);\n    return bad != 0;\n}\n";
    run_host_src(dir, host, "boxes: 0 wrong\n");
    remove_tree(dir), free(dir);
}

/* needs_grad=True on a struct field is still refused (qdc keeps no gradient storage for one). */
Test(patterns, struct_field_needs_grad_true_refused) {
    const char *const files[] = {"main.py",
                                 "import quadrants as qd\n\n\n@qd.dataclass\nclass P:\n    x: qd.f32\n\n\n"
                                 "ps = P.field(shape=(4,), needs_grad=True)\n\n\n@qd.kernel\ndef k():\n    for i in range(4):\n        ps[i].x = 1.0\n",
                                 NULL};
    expect_error(files, none, 1,
                 "main.py:9:26: error[QD2063]: needs_grad=... is not supported: qdc does not compile autodiff\n"
                 " 9 | ps = P.field(shape=(4,), needs_grad=True)\n   |                          ^~~~~~~~~~\n");
}

/* A run-time index beside a slice of compile-time bounds (Genesis' rot[:, axis_idx],
 * rt[i, :]): rows, columns and part rows read, and a row written, at an index known only when
 * the kernel runs; on x86 with 1, 2 and 4 threads, each of 9 items against the host's own sums. */
static const char *const slice_kernel =
    "import quadrants as qd\n\n\n@qd.kernel\n"
    "def k(out: qd.types.ndarray(dtype=qd.i32, ndim=2), sel: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
    "    for t in range(sel.shape[0]):\n"
    "        m = qd.Matrix([[1, 2, 3], [4, 5, 6], [7, 8, 9]])\n"
    "        i = sel[t]\n"
    "        r = m[i, :]\n        c = m[:, i]\n        p = m[i, 1:]\n        q = m[::-2, i]\n"
    "        w = qd.Matrix([[0, 0, 0], [0, 0, 0]])\n        j = i % 2\n        w[j, :] = r * 2\n"
    "        out[t, 0] = r[0] + 10 * r[1] + 100 * r[2]\n"
    "        out[t, 1] = c[0] + 10 * c[1] + 100 * c[2]\n"
    "        out[t, 2] = p[0] + 10 * p[1] + 100 * q[0] + 1000 * q[1]\n"
    "        out[t, 3] = w[0, 0] + 10 * w[0, 1] + 100 * w[0, 2] + 1000 * w[1, 0] + 10000 * w[1, 1] + 100000 * w[1, 2]\n";

Test(patterns, runtime_index_beside_slice_runs_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    char *dir = program((const char *const[]){"main.py", slice_kernel, NULL});
    bool wrote;
    RunResult r = qdc_in(dir, (const char *const[]){"--target=x86_64", NULL}, &wrote);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    run_free(&r);
    RunResult h = run_qdc_argv((const char *const[]){"--emit=header", "-o", "main.h", "main.py", NULL}, NULL, dir);
    cr_assert_eq(h.status, 0, "%s", h.err);
    run_free(&h);
    const char *host =
        "#include \"main.h\"\n#include \"common.h\"\n\nint main(int argc, char **argv) {\n"
        "    int nt = host_threads(argc, argv), bad = 0;\n    int32_t out[9][4] = {{0}}, sel[9];\n"
        "    for (int t = 0; t < 9; t++) sel[t] = (t * 2) % 3;\n"
        "    k_args a = {&out[0][0], {9, 4}, sel, {9}};\n    if (!host_launch_ok(k(&a, nt))) return 2;\n"
        "    for (int t = 0; t < 9; t++) {\n"
        "        int i = sel[t], m[3][3] = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}, w[2][3] = {{0}};\n"
        "        for (int c = 0; c < 3; c++) w[i % 2][c] = 2 * m[i][c];\n"
        "        int want[4] = {m[i][0] + 10 * m[i][1] + 100 * m[i][2], m[0][i] + 10 * m[1][i] + 100 * m[2][i],\n"
        "                       m[i][1] + 10 * m[i][2] + 100 * m[2][i] + 1000 * m[0][i],\n"
        "                       w[0][0] + 10 * w[0][1] + 100 * w[0][2] + 1000 * w[1][0] + 10000 * w[1][1] + 100000 * w[1][2]};\n"
        "        for (int q = 0; q < 4; q++)\n"
        "            if (out[t][q] != want[q]) bad++, printf(\"out[%d][%d] = %d, want %d\\n\", t, q, (int)out[t][q], want[q]);\n"
        "    }\n    printf(\"slices: %d wrong\\n\", bad);\n    return bad != 0;\n}\n";
    run_host_src(dir, host, "slices: 0 wrong\n");
    remove_tree(dir), free(dir);
}

/* The slice's own bounds stay compile-time constants (Quadrants: no variables in a slice), and a
 * row written through a run-time index takes a vector of the slice's length. */
Test(patterns, runtime_index_beside_slice_refusals) {
    const char *const bound[] = {"main.py",
                                 "import quadrants as qd\n\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                                 "    for t in range(2):\n        m = qd.Matrix([[1, 2], [3, 4]])\n        i = a[t]\n"
                                 "        a[t] = m[i, i:].sum()\n",
                                 NULL};
    expect_error(bound, none, 1,
                 "main.py:9:21: error[QD2009]: Quadrants does not support variables in slice now: a slice bound must be a "
                 "compile-time integer constant\n"
                 " 9 |         a[t] = m[i, i:].sum()\n   |                     ^\n");
    const char *const width[] = {"main.py",
                                 "import quadrants as qd\n\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                                 "    for t in range(2):\n        m = qd.Matrix([[1, 2], [3, 4]])\n        i = a[t]\n"
                                 "        m[i, :] = qd.Vector([1, 2, 3])\n        a[t] = m[0, 0]\n",
                                 NULL};
    expect_error(width, none, 1,
                 "main.py:9:19: error[QD2040]: cannot assign a vector of 3 components to a slice of 2 components\n"
                 " 9 |         m[i, :] = qd.Vector([1, 2, 3])\n   |                   ^~~~~~~~~~~~~~~~~~~~\n");
}

/* `*` inside an index tuple (Genesis' render_T[(i_g, i_b, *J)] over qd.static(qd.grouped(...)))
 * spreads J's items as indices; m[J] with such a J reads m[J[0], J[1]]. On x86 with 1, 2 and 4
 * threads: a[i, j, r, c] = (1 + 2r + c)(i + 10j), plus 100 at [.., 0, 1] from a tuple spread. */
static const char *const star_kernel =
    "import quadrants as qd\n\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=4)):\n"
    "    for i, j in qd.ndrange(a.shape[0], a.shape[1]):\n"
    "        m = qd.Matrix([[1, 2], [3, 4]]) * (i + 10 * j)\n"
    "        for J in qd.static(qd.grouped(qd.ndrange(2, 2))):\n"
    "            a[(i, j, *J)] = m[J]\n"
    "        t = (0, 1)\n"
    "        a[(i, j, *t)] += 100\n";

Test(patterns, star_in_index_tuple_runs_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    char *dir = program((const char *const[]){"main.py", star_kernel, NULL});
    bool wrote;
    RunResult r = qdc_in(dir, (const char *const[]){"--target=x86_64", NULL}, &wrote);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    run_free(&r);
    RunResult h = run_qdc_argv((const char *const[]){"--emit=header", "-o", "main.h", "main.py", NULL}, NULL, dir);
    cr_assert_eq(h.status, 0, "%s", h.err);
    run_free(&h);
    const char *host =
        "#include \"main.h\"\n#include \"common.h\"\n\nint main(int argc, char **argv) {\n"
        "    int nt = host_threads(argc, argv), bad = 0;\n    static int32_t a[3][4][2][2];\n"
        "    k_args x = {&a[0][0][0][0], {3, 4, 2, 2}};\n    if (!host_launch_ok(k(&x, nt))) return 2;\n"
        "    for (int i = 0; i < 3; i++)\n        for (int j = 0; j < 4; j++)\n            for (int r = 0; r < 2; r++)\n"
        "                for (int c = 0; c < 2; c++) {\n"
        "                    int want = (1 + 2 * r + c) * (i + 10 * j) + (r == 0 && c == 1 ? 100 : 0);\n"
        "                    if (a[i][j][r][c] != want) bad++, printf(\"a[%d][%d][%d][%d] = %d, want %d\\n\", i, j, r, c, (int)a[i][j][r][c], want);\n"
        "                }\n    printf(\"star: %d wrong\\n\", bad);\n    return bad != 0;\n}\n";
    run_host_src(dir, host, "star: 0 wrong\n");
    remove_tree(dir), free(dir);
}

/* `*` of a matrix inside an index: refused where it is written. */
Test(patterns, star_in_index_of_a_matrix_refused) {
    const char *const files[] = {"main.py",
                                 "import quadrants as qd\n\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=3)):\n"
                                 "    for i in range(2):\n        m = qd.Matrix([[0, 0], [0, 0]])\n        a[(i, *m)] = 1\n",
                                 NULL};
    expect_error(files, none, 1,
                 "main.py:8:15: error[QD2011]: '*' in an index unpacks a tuple, list or vector, not a matrix\n"
                 " 8 |         a[(i, *m)] = 1\n   |               ^~\n");
}

/* `v = f(...)` where the qd.func f has top-level loops (Genesis' abd/diff.py: is_grad_valid =
 * func_is_grad_valid(...), whose loops carry qd.loop_config): f's loops stay the kernel's
 * parallel loops and its final `return ok` is read after them, in serial code; `base`, set before
 * the call and read only in the serial code after it, is shared across the func's tasks. On x86 with
 * 1, 2 and 4 threads: a finite input gives 1, one NaN gives 0; out[0] = 10 valid, out[i + 1] =
 * 10 valid + i. */
static const char *const valid_files[] = {
    "main.py",
    "import quadrants as qd\n\n\n@qd.func\ndef all_finite(a: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n    ok = 1\n"
    "    qd.loop_config(serialize=False)\n    for i in range(a.shape[0]):\n        if qd.math.isnan(a[i]):\n            ok = 0\n"
    "    return ok\n\n\n@qd.kernel\n"
    "def k(a: qd.types.ndarray(dtype=qd.f32, ndim=1), out: qd.types.ndarray(dtype=qd.i32, ndim=1)) -> qd.i32:\n"
    "    base = 10\n    valid = all_finite(a)\n    out[0] = valid * base\n    for i in range(a.shape[0]):\n        out[i + 1] = valid * 10 + i\n"
    "    return valid\n",
    NULL};

Test(patterns, func_with_loops_as_an_assigned_value_runs_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    char *dir = program(valid_files);
    bool wrote;
    RunResult r = qdc_in(dir, (const char *const[]){"--target=x86_64", "--stats", NULL}, &wrote);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cr_expect_str_eq(r.out, "main: 1 kernel (k), 5 tasks, 0 atomics, 0 volatile loads, 0 fences\n");
    run_free(&r);
    RunResult h = run_qdc_argv((const char *const[]){"--emit=header", "-o", "main.h", "main.py", NULL}, NULL, dir);
    cr_assert_eq(h.status, 0, "%s", h.err);
    run_free(&h);
    const char *host = "#include \"main.h\"\n#include \"common.h\"\n#include <math.h>\n\nint main(int argc, char **argv) {\n"
                       "    int nt = host_threads(argc, argv), bad = 0;\n    float *a = host_alloc(100, 4);\n"
                       "    int32_t *out = host_alloc(101, 4), ret = -1;\n    for (int i = 0; i < 100; i++) a[i] = (float)i;\n"
                       "    for (int pass = 0; pass < 2; pass++) {\n        if (pass) a[37] = NAN;\n"
                       "        k_args x = {a, {100}, out, {101}};\n        if (!host_launch_ok(k(&x, nt, &ret))) return 2;\n"
                       "        int want = pass ? 0 : 1;\n        bad += ret != want || out[0] != 10 * want;\n"
                       "        for (int i = 0; i < 100; i++) bad += out[i + 1] != 10 * want + i;\n"
                       "        printf(\"pass %d: ret %d\\n\", pass, ret);\n    }\n"
                       "    printf(\"valid: %d wrong\\n\", bad);\n    free(a), free(out);\n    return bad != 0;\n}\n";
    run_host_src(dir, host, "pass 0: ret 1\npass 1: ret 0\nvalid: 0 wrong\n");
    remove_tree(dir), free(dir);
}

/* Methods Quadrants runs in host code only (@python_scope): an ndarray's fill (Genesis' mpr.py
 * `clear` on a struct of ndarrays), a field's to_numpy. A field's fill is kernel code. */
Test(patterns, python_scope_methods_in_kernels_refused) {
    const char *const files[] = {"main.py",
                                 "import quadrants as qd\n\nx = qd.field(qd.i32, shape=4)\n\n\n@qd.kernel\n"
                                 "def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n    x.fill(3)\n    a.fill(0)\n"
                                 "    y = x.to_numpy()\n\n\nk(qd.ndarray(qd.i32, shape=3))\n",
                                 NULL};
    expect_error(files, none, 1,
                 "main.py:9:5: error[QD2019]: fill cannot be called in Quadrants-scope (an ndarray's fill runs in host code only)\n"
                 " 9 |     a.fill(0)\n   |     ^~~~~~\n"
                 "main.py:10:9: error[QD2019]: to_numpy cannot be called in Quadrants-scope (a field's to_numpy runs in host code "
                 "only)\n 10 |     y = x.to_numpy()\n    |         ^~~~~~~~~~\n");
}

/* `(j, i) if c else (i, j)` with c known at run time (Genesis' collision_pair_idx[(i_gb, i_ga)
 * if i_ga > i_gb else (i_ga, i_gb)]): Quadrants makes each tuple a vector and selects; used as
 * an index it is two indices. On x86 with 1, 2 and 4 threads: out[a, b] = idx[min, max]. */
static const char *const pair_kernel =
    "import quadrants as qd\n\n\n@qd.kernel\n"
    "def k(idx: qd.types.ndarray(dtype=qd.i32, ndim=2), out: qd.types.ndarray(dtype=qd.i32, ndim=2)):\n"
    "    for a, b in qd.ndrange(out.shape[0], out.shape[1]):\n"
    "        p = (b, a) if a > b else (a, b)\n"
    "        out[a, b] = idx[(b, a) if a > b else (a, b)] + 1000 * p[0]\n";

Test(patterns, runtime_choice_of_tuples_runs_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    char *dir = program((const char *const[]){"main.py", pair_kernel, NULL});
    bool wrote;
    RunResult r = qdc_in(dir, (const char *const[]){"--target=x86_64", NULL}, &wrote);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    run_free(&r);
    RunResult h = run_qdc_argv((const char *const[]){"--emit=header", "-o", "main.h", "main.py", NULL}, NULL, dir);
    cr_assert_eq(h.status, 0, "%s", h.err);
    run_free(&h);
    const char *host =
        "#include \"main.h\"\n#include \"common.h\"\n\nint main(int argc, char **argv) {\n"
        "    int nt = host_threads(argc, argv), bad = 0;\n    int32_t idx[5][5], out[5][5] = {{0}};\n"
        "    for (int i = 0; i < 25; i++) idx[i / 5][i % 5] = 10 * (i / 5) + i % 5;\n"
        "    k_args x = {&idx[0][0], {5, 5}, &out[0][0], {5, 5}};\n    if (!host_launch_ok(k(&x, nt))) return 2;\n"
        "    for (int a = 0; a < 5; a++)\n        for (int b = 0; b < 5; b++) {\n"
        "            int lo = a > b ? b : a, hi = a > b ? a : b, want = idx[lo][hi] + 1000 * lo;\n"
        "            if (out[a][b] != want) bad++, printf(\"out[%d][%d] = %d, want %d\\n\", a, b, (int)out[a][b], want);\n"
        "        }\n    printf(\"pairs: %d wrong\\n\", bad);\n    return bad != 0;\n}\n";
    run_host_src(dir, host, "pairs: 0 wrong\n");
    remove_tree(dir), free(dir);
}

/* A name bound by two imports is the later one's, as in Python: `import foo as qd` (not on the
 * search path: an opaque module) then `import quadrants as qd` compiles; the other order makes
 * qd the opaque module. The first order once crashed the compile (a fuzzer input): the opaque
 * binding was looked at speculatively inside the annotation, turned into an error value without a
 * diagnostic, and the range(n) loop was left without bounds. */
Test(modules, later_import_of_a_name_wins) {
    const char *const body = "@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1), n: qd.i32):\n"
                             "    for i in range(n):\n        a[i] = 1\n";
    char *text = NULL;
    cr_assert(asprintf(&text, "import foo as qd\nimport quadrants as qd\n%s", body) > 0);
    const char *const later_quadrants[] = {"main.py", text, NULL};
    char *dir = program(later_quadrants);
    bool wrote;
    RunResult r = qdc_in(dir, (const char *const[]){"--target=x86_64", "--stats", NULL}, &wrote);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cr_expect_str_eq(r.out, "main: 1 kernel (k), 1 task, 0 atomics, 0 volatile loads, 0 fences\n");
    cr_expect(wrote);
    run_free(&r);
    remove_tree(dir), free(dir), free(text);
    cr_assert(asprintf(&text, "import quadrants as qd\nimport foo as qd\n%s", body) > 0);
    const char *const later_foo[] = {"main.py", text, NULL};
    expect_error(later_foo, none, 1,
                 "main.py:4:33: error[QD2062]: 'qd' is a module the script imports, known only when the script runs; kernels can "
                 "use module constants, fields, qd.func and their own arguments\n"
                 " 4 | def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1), n: qd.i32):\n   |                                 ^~\n"
                 "main.py:2:15: note: 'qd' is set here\n 2 | import foo as qd\n   |               ^~\n");
    free(text);
}
