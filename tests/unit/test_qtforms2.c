/* More forms of Quadrants' own test kernels (issue 30): a def that binds its name again
 * (testdata/qtforms/redef.py), run on x86 with exact results on 1, 2 and 8 threads; the
 * compile-time checks Quadrants makes, ported with its message (exact diagnostics). */
#include "../../support/util.h"
#include "harness.h"
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs testdata/qtforms/NAME with host on 1, 2 and 8 threads: exit 0 and exactly `want` printed. */
static void run_x86(const char *name, const char *host, const char *want) {
    if (!x86_have_runtime()) return;
    char *rel = xasprintf("testdata/qtforms/%s", name), *src = root_path(rel);
    const char *threads[] = {"1", "2", "8"};
    for (int t = 0; t < 3; t++) {
        char *dir = make_temp_dir();
        RunResult r = x86_compile_and_run(dir, src, "--target=x86_64", host, threads[t], NULL);
        cr_expect_eq(r.status, 0, "%s on %s threads: status %d\n%s%s", name, threads[t], r.status, r.out, r.err);
        cr_expect_str_eq(r.out, want, "%s on %s threads", name, threads[t]);
        run_free(&r);
        remove_tree(dir);
        free(dir);
    }
    free(rel), free(src);
}

static const char redef_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    fill_args a = {.k = 1};\n"
    "    fill__def2_args b = {.k = 1};\n"
    "    fill__def3_args c = {.k = 2};\n"
    "    use_g_args u = {0};\n"
    "    if (fill(&a, nt) || fill__def2(&b, nt) || fill__def3(&c, nt) || use_g(&u, nt)) return 2;\n"
    "    printf(\"%d %d %d %d got %d\\n\", qd_field_out[0], qd_field_out[1], qd_field_out[2], qd_field_out[3], qd_field_got);\n"
    "    return 0;\n}\n";

/* fill (scale 2) gives 2i+1, fill__def2 (scale 3) adds 3i+1, fill__def3 adds 100k = 200; use_g
 * calls the second g (2). */
Test(qtforms2, redefinition_runs_on_x86, .timeout = 120) {
    run_x86("redef.py", redef_host, "202 207 212 217 got 22\n");
}

#define HEAD "import quadrants as qd\n\nN = 8\na = qd.field(qd.i32, shape=N)\n\n"

/* body after HEAD fails: exit 1, no output, stderr starts with `want` exactly, one error. */
static void expect_error(const char *body, const char *want) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/w.py", dir), *out = xasprintf("%s/w.o", dir), *text = xasprintf(HEAD "%s", body);
    cr_assert(write_text(src, text));
    const char *argv[] = {"--color=never", "--target=x86_64", "-o", out, "w.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    cr_expect(!strncmp(r.err, want, strlen(want)), "got:\n%s\nwant:\n%s", r.err, want);
    cr_expect(!strstr(r.err + strlen(want), "error["), "more than one error:\n%s", r.err);
    cr_expect(!file_exists(out), "an output was written after an error");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(out), free(text);
}

/* body after HEAD compiles for x86_64 with no diagnostic. */
static void expect_ok(const char *body) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/w.py", dir), *out = xasprintf("%s/w.o", dir), *text = xasprintf(HEAD "%s", body);
    cr_assert(write_text(src, text));
    const char *argv[] = {"--color=never", "--target=x86_64", "-o", out, "w.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect_str_eq(r.err, "");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(out), free(text);
}

#define PROTO "@qd.perf_dispatch(get_geometry_hash=lambda a, c: 0)\ndef op(a: qd.types.NDArray[qd.i32, 1], c: qd.types.NDArray[qd.i32, 1]): ...\n\n"

/* @op.register checks the implementation's parameters against the prototype's (Quadrants'
 * PERFDISPATCH_ANNOTATION_SEQUENCE_MISMATCH), then that @qd.kernel is below it. */
Test(qtforms2, perf_dispatch_register_rejected_as_quadrants) {
    expect_error(PROTO "@op.register\n@qd.kernel\ndef impl(a: qd.types.NDArray[qd.i32, 1], b: qd.types.NDArray[qd.i32, 1]) -> None: ...\n",
                 "w.py:11:42: error[QD2020]: Signature parameter b of function not in perf_dispatch function prototype "
                 "(PERFDISPATCH_ANNOTATION_SEQUENCE_MISMATCH)\n");
    expect_error(PROTO "@op.register\n@qd.kernel\ndef impl(a: qd.types.NDArray[qd.i32, 1]) -> None: ...\n",
                 "w.py:11:5: error[QD2020]: Number of function parameters 1 doesn't match number of parameters in perf_dispatch "
                 "function prototype 2 (PERFDISPATCH_ANNOTATION_SEQUENCE_MISMATCH)\n");
    expect_error(PROTO "@qd.kernel\n@op.register\ndef impl(a: qd.types.NDArray[qd.i32, 1], c: qd.types.NDArray[qd.i32, 1]) -> None: ...\n",
                 "w.py:9:2: error[QD2020]: Cant put kernel in front of other annotations (KERNEL_ANNOTATION_ORDER): write "
                 "@op.register above @qd.kernel\n 9 | @qd.kernel\n   |  ^~~~~~~~~\n");
    expect_ok(PROTO "@op.register\n@qd.kernel\ndef impl(a: qd.types.NDArray[qd.i32, 1], c: qd.types.NDArray[qd.i32, 1]) -> None: ...\n");
}

#define BUMP "@qd.func(requires_top_level=True)\ndef bump(n):\n    for i in range(n):\n        a[i] += 1\n\n"

/* A @qd.func(requires_top_level=True) under run-time control flow, also through an unmarked
 * qd.func; a qd.static loop or the top level is fine. */
Test(qtforms2, requires_top_level_rejected_as_quadrants) {
    const char *msg = "error[QD2171]: `bump` is decorated with requires_top_level=True and must be called at the top level "
                      "of a @qd.kernel (or directly inside a `while qd.graph.do_while(...)` body). It cannot be nested inside a "
                      "runtime for / if / while: that demotes its phase loops out of top-level position, collapsing the "
                      "per-phase grid-wide barriers and corrupting the result.\n";
    char *want = xasprintf("w.py:14:9: %s 14 |         bump(n)\n    |         ^~~~~~~\n", msg);
    expect_error(BUMP "@qd.kernel\ndef k(n: qd.i32):\n    if n > 0:\n        bump(n)\n", want);
    free(want);
    want = xasprintf("w.py:13:5: %s", msg);
    expect_error(BUMP "@qd.func\ndef mid(n):\n    bump(n)\n\n@qd.kernel\ndef k(n: qd.i32):\n    m = n\n    while m > 0:\n        mid(m)\n        m -= 1\n",
                 want);
    free(want);
    expect_ok(BUMP "@qd.kernel\ndef k(n: qd.i32):\n    bump(n)\n    for j in qd.static(range(2)):\n        bump(n)\n");
}

/* Quadrants' other rules of the kernel language, with its messages. */
Test(qtforms2, kernel_rules_rejected_as_quadrants) {
    expect_error("@qd.kernel\ndef k():\n    for i in qd.static(qd.static(range(2))):\n        a[i] = 1\n",
                 "w.py:8:24: error[QD2171]: 'qd.static' cannot be nested\n");
    expect_error("@qd.kernel\ndef k():\n    b = 1\n    b = qd.static(2)\n    a[0] = b\n",
                 "w.py:9:5: error[QD2171]: Recreating variables is not allowed: 'b' is a variable of this function already, and "
                 "'b = qd.static(...)' would create it again\n 9 |     b = qd.static(2)\n   |     ^\nw.py:8:5: note: 'b' is "
                 "created here\n");
    expect_error("@qd.real_func\ndef add(x: qd.i32, y: qd.i32):\n    return x + y\n\n@qd.kernel\ndef k():\n    add(1, 2)\n",
                 "w.py:8:5: error[QD2015]: 'add' returns a value but declares no return type (def add(...) -> qd.i32:)\n");
    expect_error("@qd.kernel\ndef k(i: qd.i32):\n    x = qd.Vector([i, i + 1, i + 2])\n    a[0] = x[:-1].sum()\n",
                 "w.py:9:15: error[QD2171]: Negative indices are not supported in Quadrants kernels.\n");
    expect_error("@qd.func\ndef f(p: qd.i32, q: qd.i32, r: qd.i32):\n    a[0] = p + q + r\n\nS = [1, 2]\n\n@qd.kernel\ndef k():\n"
                 "    f(*S, 3)\n",
                 "w.py:14:7: error[QD2171]: * args can only be present as the last argument of a function (STARNOTLAST)\n");
    expect_error("@qd.kernel\ndef k(b: qd.i32):\n    b += 1\n    a[0] = b\n",
                 "w.py:8:5: error[QD2038]: cannot reassign kernel argument 'b' with an augmented assignment (Quadrants: Kernel "
                 "argument \"b\" is immutable in the kernel)\n");
    /* what Quadrants accepts of these forms: a static value per unrolled iteration, a slice of a
     * Python tuple, a negative step, *args last, a real_func with its return annotated */
    expect_ok("@qd.real_func\ndef add(x: qd.i32, y: qd.i32) -> qd.i32:\n    return x + y\n\nS = (1, 2)\n\n@qd.func\n"
              "def f(p: qd.i32, q: qd.i32, r: qd.i32):\n    a[0] = p + q + r\n\n@qd.kernel\ndef k(i: qd.i32):\n"
              "    for j in qd.static(range(2)):\n        c = qd.static(j * 2)\n        a[j] = c + S[-1]\n"
              "    x = qd.Vector([i, i + 1, i + 2])\n    a[2] = x[::-2].sum() + add(1, 2)\n    f(3, *S)\n");
}
