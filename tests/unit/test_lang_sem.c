/* Kernel-language semantics Quadrants defines (issue 14): where qdc refuses, the exact
 * diagnostic (text, caret, exit status, no output); constant out-of-range indexes warn, and
 * --debug checks indexes at run time. Run-time results: testdata/lang/semantics.py. */
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    RunResult r;
    char *dir, *src, *out;
    bool wrote;
} Compiled;

/* Compiles `text` (as k.py) with `opt` (or none) for x86_64 into k.o. */
static Compiled compile_src(const char *text, const char *opt) {
    Compiled c = {0};
    c.dir = make_temp_dir();
    cr_assert(asprintf(&c.src, "%s/k.py", c.dir) > 0 && asprintf(&c.out, "%s/k.o", c.dir) > 0);
    cr_assert(write_text(c.src, text));
    const char *argv[8] = {"--color=never", "--target=x86_64", "-o", c.out};
    int n = 4;
    if (opt) argv[n++] = opt;
    argv[n++] = c.src, argv[n] = NULL;
    c.r = run_qdc_argv(argv, NULL, c.dir);
    c.wrote = file_exists(c.out);
    return c;
}

static void compiled_free(Compiled *c) {
    run_free(&c->r);
    remove_tree(c->dir);
    free(c->dir), free(c->src), free(c->out);
}

/* One error: exit 1, no output, and standard error starting with k.py:WANT followed by the
 * source line and a caret line `caret`. */
static void expect_error(const char *text, const char *want, const char *caret) {
    Compiled c = compile_src(text, NULL);
    char *head = NULL;
    cr_assert(asprintf(&head, "%s:%s\n", c.src, want) > 0);
    cr_expect_eq(c.r.status, 1, "exit %d: %s", c.r.status, c.r.err);
    cr_expect(!strncmp(c.r.err, head, strlen(head)), "got:\n%s\nwant:\n%s", c.r.err, head);
    cr_expect(strstr(c.r.err, caret), "caret line %s missing in:\n%s", caret, c.r.err);
    cr_expect(!c.wrote, "an output was written after an error");
    free(head);
    compiled_free(&c);
}

Test(lang_sem, static_break_under_a_runtime_if) {
    expect_error("import quadrants as qd\nx = qd.field(qd.i32, 8)\n\n@qd.kernel\ndef k(n: qd.i32):\n"
                 "    for i in qd.static(range(5)):\n        if n > i:\n            break\n        x[i] = 1\n",
                 "8:13: error[QD2014]: 'break' of a qd.static loop inside a run-time if (the loop is unrolled: only "
                 "`if qd.static(...)` can decide it; Quadrants: \"You are trying to `break` a static `for` loop, but the "
                 "`break` statement is inside a non-static `if`.\")",
                 "\n   |             ^~~~~\n");
    expect_error("import quadrants as qd\nx = qd.field(qd.i32, 8)\n\n@qd.kernel\ndef k(n: qd.i32):\n"
                 "    for v in qd.static((1, 2)):\n        if n > v:\n            continue\n        x[v] = 1\n",
                 "8:13: error[QD2014]: 'continue' of a qd.static loop inside a run-time if (the loop is unrolled: only "
                 "`if qd.static(...)` can decide it; Quadrants: \"You are trying to `continue` a static `for` loop, but the "
                 "`continue` statement is inside a non-static `if`.\")",
                 "\n   |             ^~~~~~~~\n");
}

/* After a break the unrolling ends: a later iteration that would not compile is not compiled
 * (x has 3 elements, a constant x[3] would warn). */
Test(lang_sem, static_break_ends_the_unrolling) {
    Compiled c = compile_src("import quadrants as qd\nx = qd.field(qd.i32, 3)\n\n@qd.kernel\ndef k():\n"
                             "    for i in qd.static(range(5)):\n        if qd.static(i == 3):\n            break\n"
                             "        x[i] = i\n        if qd.static(i == 1):\n            continue\n        x[i] += 1\n",
                             "--emit=ir");
    cr_expect_eq(c.r.status, 0, "%s", c.r.err);
    cr_expect_str_eq(c.r.err, "");
    char *ir = read_text(c.out, NULL);
    cr_assert(ir);
    cr_expect(strstr(ir, "x[2:i32]") && !strstr(ir, "x[3:i32]"), "%s", ir);
    cr_expect(!strstr(ir, "x[1:i32]:i32 1:i32"), "continue skipped the += of iteration 1:\n%s", ir);
    free(ir);
    compiled_free(&c);
}

Test(lang_sem, return_under_runtime_if_in_a_plain_func) {
    expect_error("import quadrants as qd\n\n@qd.func\ndef f(a: qd.i32) -> qd.i32:\n    if a > 0:\n        return 1\n"
                 "    return 0\n\n@qd.kernel\ndef k(n: qd.i32) -> qd.i32:\n    return f(n)\n",
                 "6:9: error[QD2015]: return inside a run-time if, for or while is not supported in a qd.func (Quadrants: "
                 "\"Return inside non-static if/for is not supported\"; a qd.real_func may); assign a result variable instead",
                 "\n   |         ^~~~~~\n");
}

Test(lang_sem, real_func_runtime_return_needs_a_scalar_result) {
    expect_error("import quadrants as qd\n\n@qd.real_func\ndef f(a: qd.i32) -> qd.math.vec2:\n    if a > 0:\n"
                 "        return qd.math.vec2(1, 2)\n    return qd.math.vec2(0, 0)\n\n@qd.kernel\ndef k(n: qd.i32) -> qd.f32:\n"
                 "    return f(n)[0]\n",
                 "4:21: error[QD2015]: qd.real_func 'f' returns under a run-time if, for or while: qdc supports a scalar "
                 "result there, not a vector",
                 "\n   |                     ^~~~~~~~~~~~\n");
    expect_error("import quadrants as qd\n\n@qd.real_func\ndef f(a: qd.i32):\n    if a > 0:\n        return 1\n\n"
                 "@qd.kernel\ndef k(n: qd.i32):\n    f(n)\n",
                 "6:9: error[QD2015]: 'f' returns a value but declares no return type: a function with a return value "
                 "must be annotated with a return type, e.g. def f(...) -> qd.i32",
                 "\n   |         ^~~~~~\n");
}

/* qd.static with several arguments is a tuple; without arguments an error. */
Test(lang_sem, static_with_several_arguments) {
    expect_error("import quadrants as qd\n\n@qd.kernel\ndef k():\n    a = qd.static()\n",
                 "5:9: error[QD2007]: 'qd.static' takes at least 1 argument", "\n   |         ^~~~~~~~~~~\n");
    expect_error("import quadrants as qd\n\n@qd.kernel\ndef k(n: qd.i32):\n    a, b = qd.static(1, n)\n",
                 "5:25: error[QD2009]: the argument of qd.static must be a compile-time constant (Quadrants: \"Input to qd.static must "
                 "be compile-time constants or global pointers\")", "\n   |                         ^\n");
}

static const char *const oob_src = "import quadrants as qd\na = qd.field(qd.i32, shape=10)\n\n@qd.func\ndef explode() -> qd.i32:\n"
                                   "    return a[-1]\n\n@qd.kernel\ndef k(n: qd.i32) -> qd.i32:\n"
                                   "    return n > 100 and explode() > 0\n";

/* A constant index outside its axis is a warning (Quadrants checks bounds only at run time, in
 * debug mode): the object is written; -Werror makes it fatal. */
Test(lang_sem, constant_out_of_range_index_warns) {
    Compiled c = compile_src(oob_src, NULL);
    char *want = NULL;
    cr_assert(asprintf(&want, "%s:6:14: warning[QD2111]: index -1 is out of bounds for axis 0 of 'a' with size 10 "
                              "[-Windex-out-of-bounds]\n 6 |     return a[-1]\n   |              ^~\n", c.src) > 0);
    cr_expect_eq(c.r.status, 0, "%s", c.r.err);
    cr_expect_str_eq(c.r.err, want);
    cr_expect(c.wrote);
    free(want);
    compiled_free(&c);
    c = compile_src(oob_src, "-Werror");
    cr_expect_eq(c.r.status, 1, "%s", c.r.err);
    cr_expect(!c.wrote, "-Werror: an output was written");
    compiled_free(&c);
}

/* `and` runs the inlined qd.func (and its load) only when the left operand is true. */
Test(lang_sem, and_short_circuits_an_inlined_func) {
    Compiled c = compile_src(oob_src, "--emit=ir");
    cr_expect_eq(c.r.status, 0, "%s", c.r.err);
    char *ir = read_text(c.out, NULL);
    cr_assert(ir);
    const char *cond = strstr(ir, "\n    if %1\n"), *load = strstr(ir, "\n      %0 = (load field a[-1:i32]");
    cr_expect(cond && load && cond < load, "the load is not under the if:\n%s", ir);
    free(ir);
    compiled_free(&c);
}

/* --debug: every index is checked where it is evaluated; x86 reports the first one out of
 * range and aborts; without --debug the kernel runs (the index is in range here). */
static const char *const debug_host =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n    (void)argc;\n    k_args a = {atoi(argv[1])};\n"
    "    int rc = k(&a, atoi(argv[2]));\n    printf(\"rc %d x3 %d\\n\", rc, qd_field_x[3]);\n    return 0;\n}\n";

static RunResult debug_run(const char *dir, const char *src, const char *flag, const char *n) {
    RunResult r = x86_compile_and_run(dir, src, flag, debug_host, n, "4");
    cr_assert(r.status != -1, "%s", r.err);
    return r;
}

Test(lang_sem, debug_checks_indexes_at_run_time) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir(), *src = NULL, *want = NULL;
    cr_assert(asprintf(&src, "%s/d.py", dir) > 0);
    cr_assert(write_text(src, "import quadrants as qd\n\nx = qd.field(qd.i32, shape=(8,))\n\n@qd.kernel\ndef k(n: qd.i32):\n"
                              "    for i in range(4):\n        x[i + n] = i\n"));
    RunResult ok = debug_run(dir, src, "--debug", "0");
    cr_expect_eq(ok.status, 0, "%s", ok.err);
    cr_expect_str_eq(ok.out, "rc 0 x3 3\n");
    run_free(&ok);
    RunResult bad = debug_run(dir, src, "--debug", "5");
    cr_expect_eq(bad.status, 128 + 6, "an index out of range aborts: status %d\n%s", bad.status, bad.err);
    cr_assert(asprintf(&want, "%s:8:11: index out of bounds for axis 0 of 'x'\n", src) > 0);
    cr_expect(strstr(bad.err, want), "stderr:\n%s", bad.err);
    run_free(&bad);
    remove_tree(dir);
    free(dir), free(src), free(want);
}

/* print with "...".format(...) and f-strings of run-time values: Quadrants' merged printf
 * conversions, run on x86 (exact output); a spec of another kind is QD2019. */
static const char *const print_host =
    "#include \"p.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n    (void)argc;\n    k_args a = {atoi(argv[1])};\n"
    "    int rc = k(&a, 1);\n    fflush(stdout);\n    return rc;\n}\n";

Test(lang_sem, print_format_and_fstrings) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir(), *src = NULL, *obj = NULL, *hdr = NULL;
    cr_assert(asprintf(&src, "%s/p.py", dir) > 0 && asprintf(&obj, "%s/p.o", dir) > 0 && asprintf(&hdr, "%s/p.h", dir) > 0);
    cr_assert(write_text(src, "import quadrants as qd\n\nx = qd.field(qd.f32, shape=())\na = qd.field(qd.f64, shape=4)\n\n"
                              "@qd.kernel\ndef k(n: qd.i32):\n    x[None] = 1.5\n    for j in range(4):\n        a[j] = j * 0.25\n"
                              "    print('hello {} world!'.format(x[None]))\n"
                              "    print('{:.3f} {:e} {:.2}|{:5d}|{:x}'.format(x[None] * n, x[None] / n, x[None], n, qd.u32(255)))\n"
                              "    print('{} {name} {value} {}'.format(n, 2.5, name=999, value='v'))\n"
                              "    print('a[3] = {3:.3f}, a[0] = {0:.0f}, {{}}'.format(a[0], a[1], a[2], a[3]))\n"
                              "    print(f'{a[1] = :.2f} {n + 1:-4d}| {x[None]} {{n}}', qd.math.vec2(1, 2), (n, 3))\n"));
    const char *co[] = {"--target=x86_64", "-o", obj, src, NULL}, *ch[] = {"--target=x86_64", "--emit=header", "-o", hdr, src, NULL};
    RunResult c = run_qdc_argv(co, NULL, dir), h = run_qdc_argv(ch, NULL, dir);
    cr_assert(c.status == 0 && h.status == 0, "%s%s", c.err, h.err);
    cr_expect_str_eq(c.err, "");
    run_free(&c), run_free(&h);
    const char *objs[] = {"p.o", NULL};
    cr_assert(x86_build_host(dir, print_host, objs));
    RunResult r = x86_run_host(dir, "2", NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "hello 1.500000 world!\n"
                            "3.000 7.500000e-01 1.50|    2|ff\n"
                            "2 999 v 2.5\n"
                            "a[3] = 0.750, a[0] = 0, {}\n"
                            "a[1] = 0.25 3   | 1.500000 {n} [1.000000, 2.000000] [2, 3]\n");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(obj), free(hdr);
}

Test(lang_sem, print_format_errors) {
    expect_error("import quadrants as qd\nx = qd.field(qd.f32, shape=())\n\n@qd.kernel\ndef k():\n"
                 "    print('hello {:.2d} world!'.format(x[None]))\n",
                 "6:40: error[QD2019]: '.2d' doesn't match 'f32'.", "\n   |                                        ^~~~~~~\n");
    expect_error("import quadrants as qd\n\n@qd.kernel\ndef k(n: qd.i32):\n    print('{0} {1} {2}'.format(n, 2))\n",
                 "5:11: error[QD2007]: Expected 3 positional argument(s), but received 2 instead.", "\n   |           ^~~~~~~~~~~~~~~~~~~~~~~~~~\n");
    expect_error("import quadrants as qd\n\n@qd.kernel\ndef k(n: qd.i32):\n    print(''.format(k=n))\n",
                 "5:21: error[QD2007]: Keyword 'k' not used.", "\n   |                     ^\n");
    expect_error("import quadrants as qd\n\n@qd.kernel\ndef k(n: qd.i32):\n    print(f'{n:>4}')\n",
                 "5:14: error[QD2007]: '>4' is not a valid printf specifier", "\n   |              ^\n");
}

/* An assert's message may be "..." % values; --debug reports the text with the compile-time
 * values formatted in. */
Test(lang_sem, assert_percent_message) {
    Compiled c = compile_src("import quadrants as qd\nK = 7\n@qd.kernel\ndef k(n: qd.i32):\n    assert n > 0, 'n=%d of %d (%s) %%' % (n, 4, 'x')\n"
                             "    assert n > 1\n    assert n > 2, f'n={n + 1} k={K} {{}}'\n",
                             "--debug");
    cr_expect_eq(c.r.status, 0, "%s", c.r.err);
    run_free(&c.r);
    const char *argv[] = {"--debug", "--emit=ir", "-o", "-", c.src, NULL};
    c.r = run_qdc_argv(argv, NULL, c.dir);
    char *w1 = NULL, *w2 = NULL;
    cr_assert(asprintf(&w1, "%s:5:5: assertion failed: n=%%d of 4 (x) %%\"", c.src) > 0 && asprintf(&w2, "%s:6:5: assertion failed: n > 1\"", c.src) > 0);
    char *w3 = NULL;
    cr_assert(asprintf(&w3, "%s:7:5: assertion failed: n={n + 1} k=7 {}\"", c.src) > 0);
    cr_expect(strstr(c.r.out, w1) && strstr(c.r.out, w2) && strstr(c.r.out, w3), "%s", c.r.out);
    free(w1), free(w2), free(w3);
    compiled_free(&c);
    expect_error("import quadrants as qd\n\n@qd.kernel\ndef k(n: qd.i32):\n    assert n > 0, 'n=%d %d' % (n,)\n",
                 "5:19: error[QD2007]: not enough arguments for the assert message's format string", "\n   |                   ^~~~~~~~~~~~~~~~\n");
}

/* A qd.static loop at a kernel's top level is unrolled there: the loops in its body are
 * parallel tasks (with their qd.loop_config), as in Quadrants. */
Test(lang_sem, toplevel_static_loop_bodies_are_top_level) {
    Compiled c = compile_src("import quadrants as qd\nx = qd.field(qd.i32, shape=(3, 16))\n\n@qd.kernel\ndef k(n: qd.i32):\n"
                             "    for d in qd.static(range(3)):\n        qd.loop_config(block_dim=32)\n        for i in range(16):\n"
                             "            x[d, i] = i + n\n        if qd.static(d == 1):\n            break\n",
                             "--emit=ir");
    cr_expect_eq(c.r.status, 0, "%s", c.r.err);
    cr_expect_str_eq(c.r.err, "");
    char *ir = read_text(c.out, NULL);
    cr_assert(ir);
    cr_expect(strstr(ir, "task k_t0 parallel extent=16:i32 index=%0 block_dim=32\n") &&
              strstr(ir, "task k_t1 parallel extent=16:i32 index=%2 block_dim=32\n") && !strstr(ir, "k_t2"), "%s", ir);
    free(ir);
    compiled_free(&c);
}

/* qd.loop_config before a loop nested in another loop: Quadrants drops it with a warning. */
Test(lang_sem, nested_loop_config_warns) {
    Compiled c = compile_src("import quadrants as qd\nx = qd.field(qd.i32, shape=16)\n\n@qd.kernel\ndef k():\n"
                             "    for _ in range(2):\n        qd.loop_config(name=\"inner\")\n        for i in range(16):\n            x[i] += 1\n",
                             NULL);
    char *want = NULL;
    cr_assert(asprintf(&want, "%s:7:9: warning[QD2103]: qd.loop_config before a loop nested inside another for-loop has no effect: "
                              "only top-level loops are configured (Quadrants warns too) [-Wloop-config-ignored]\n", c.src) > 0);
    cr_expect_eq(c.r.status, 0, "%s", c.r.err);
    cr_expect(!strncmp(c.r.err, want, strlen(want)), "got:\n%s", c.r.err);
    cr_expect(c.wrote);
    free(want);
    compiled_free(&c);
}

/* The same in a qd.func (Genesis' "this loop is considered an inner loop"): called inside a
 * kernel's loop, its qd.loop_config is dropped with the warning; called at the kernel's top level
 * (the same func), it configures the loop that becomes the kernel's parallel loop. */
Test(lang_sem, func_loop_config_inside_loop_warns) {
    Compiled c = compile_src("import quadrants as qd\nx = qd.field(qd.i32, shape=16)\n\n@qd.func\ndef inner(j):\n"
                             "    qd.loop_config(block_dim=32)\n    for i in range(16):\n        x[i] += j\n\n"
                             "@qd.kernel\ndef k():\n    for j in range(2):\n        inner(j)\n    inner(5)\n",
                             "--emit=ir");
    char *want = NULL;
    cr_assert(asprintf(&want, "%s:6:5: warning[QD2103]: qd.loop_config before a loop nested inside another for-loop has no effect: "
                              "only top-level loops are configured (Quadrants warns too) [-Wloop-config-ignored]\n", c.src) > 0);
    cr_expect_eq(c.r.status, 0, "%s", c.r.err);
    cr_expect(!strncmp(c.r.err, want, strlen(want)), "got:\n%s", c.r.err);
    cr_expect(!strstr(c.r.err + strlen(want), "warning"), "one warning only:\n%s", c.r.err);
    char *ir = read_text(c.out, NULL);
    cr_assert(ir);
    cr_expect(strstr(ir, "task k_t0 parallel extent=2:i32 index=%0\n") != NULL, "%s", ir);
    cr_expect(strstr(ir, "task k_t2 parallel extent=16:i32 index=%5 block_dim=32\n") != NULL, "%s", ir);
    free(ir), free(want);
    compiled_free(&c);
}

/* A qd.func whose body is an `if qd.static(flag)` with a configured loop in a branch (Genesis'
 * forward kinematics): the branch taken is the func's top level, so the loop is the kernel's
 * parallel loop, configured in the instance that takes it. */
Test(lang_sem, func_static_branch_loop_config) {
    Compiled c = compile_src("import quadrants as qd\nx = qd.field(qd.i32, shape=16)\n\n@qd.func\ndef update(cfg: qd.template()):\n"
                             "    if qd.static(cfg):\n        for i in range(16):\n            x[i] += 1\n    else:\n"
                             "        qd.loop_config(block_dim=32)\n        for i in range(16):\n            x[i] += 2\n\n"
                             "@qd.kernel\ndef k(cfg: qd.template()):\n    update(cfg)\n\nk(False)\nk(True)\n",
                             "--emit=ir");
    cr_expect_eq(c.r.status, 0, "%s", c.r.err);
    cr_expect_str_eq(c.r.err, "");
    char *ir = read_text(c.out, NULL);
    cr_assert(ir);
    cr_expect(strstr(ir, "task k__False_t1 parallel extent=16:i32 index=%0 block_dim=32\n") != NULL, "%s", ir);
    cr_expect(strstr(ir, "task k__True_t1 parallel extent=16:i32 index=%0\n") != NULL, "%s", ir);
    free(ir);
    compiled_free(&c);
}

/* A 0-d iteration space (qd.grouped(qd.ndrange()), qd.grouped of a 0-d field): the body runs
 * once with the empty index, x[I] is x[None]; without qd.grouped there is no loop variable. */
Test(lang_sem, zero_d_grouped_loops) {
    Compiled c = compile_src("import quadrants as qd\nv = qd.field(qd.i32, shape=())\n\n@qd.kernel\ndef k():\n"
                             "    for I in qd.grouped(qd.ndrange()):\n        v[I] = 42\n    for I in qd.grouped(v):\n        v[I] += 1\n"
                             "    for I in qd.static(qd.grouped(qd.ndrange())):\n        v[I] += 10\n",
                             "--emit=ir");
    cr_expect_eq(c.r.status, 0, "%s", c.r.err);
    cr_expect_str_eq(c.r.err, "");
    char *ir = read_text(c.out, NULL);
    cr_assert(ir);
    cr_expect(strstr(ir, "task k_t0 parallel extent=1:i32") && strstr(ir, "store field v[]:i32 = 42:i32") &&
              strstr(ir, "task k_t1 parallel extent=1:i32") && strstr(ir, "field v[]:i32 10:i32"), "%s", ir);
    free(ir);
    compiled_free(&c);
    expect_error("import quadrants as qd\n\n@qd.kernel\ndef k():\n    for i in qd.ndrange():\n        pass\n",
                 "5:14: error[QD2012]: a 0-d iteration space has no loop variable: iterate over qd.grouped(...) (its variable "
                 "is the empty index, x[I] is x[None])",
                 "\n   |              ^~~~~~~~~~~~\n");
}

/* qd.i64(1, 2): Quadrants' "A primitive type can only decorate a single expression." */
Test(lang_sem, primitive_type_takes_one_expression) {
    expect_error("import quadrants as qd\n\n@qd.kernel\ndef k():\n    a = qd.i64(1, 2)\n",
                 "5:9: error[QD2007]: A primitive type can only decorate a single expression: 'qd.i64' takes one positional "
                 "argument, got 2",
                 "\n   |         ^~~~~~~~~~~~\n");
}

/* `a if c else b` whose sides are objects (a field constructor, an ndarray annotation): a
 * compile-time condition picks one, as Python does (it crashed qdc: six upstream scripts);
 * a run-time one is an error, not a crash. */
Test(lang_sem, conditional_of_objects) {
    Compiled c = compile_src("import quadrants as qd\n"
                             "WIDE = False\n"
                             "DT = qd.f64 if WIDE else qd.i32\n"
                             "x = qd.field(DT, shape=(4,))\n"
                             "@qd.kernel\n"
                             "def k():\n"
                             "    for i in range(4):\n"
                             "        x[i] = i // 2\n",
                             "--emit=ir");
    cr_expect_eq(c.r.status, 0, "%s", c.r.err);
    char *ir = read_text(c.out, NULL);
    cr_expect(ir && strstr(ir, "field x: i32[4]\n"), "%s", ir);
    free(ir);
    compiled_free(&c);
    c = compile_src("import pytest\n" /* in a parametrized host function: the form that crashed */
                    "import quadrants as qd\n"
                    "@pytest.mark.parametrize('use_field', [False, True])\n"
                    "def test_pick(use_field):\n"
                    "    V = qd.field if use_field else qd.ndarray\n"
                    "    x = qd.field(qd.i32, shape=(4,))\n"
                    "    @qd.kernel\n"
                    "    def k():\n"
                    "        for i in range(4):\n"
                    "            x[i] = i\n"
                    "    k()\n",
                    NULL);
    cr_expect_eq(c.r.status, 0, "%s", c.r.err);
    cr_expect(c.wrote);
    compiled_free(&c);
    c = compile_src("import quadrants as qd\n"
                    "x = qd.field(qd.i32, shape=(4,))\n"
                    "@qd.kernel\n"
                    "def k(n: qd.i32):\n"
                    "    y = x if n > 0 else x\n",
                    NULL);
    cr_expect_eq(c.r.status, 1, "%s", c.r.err);
    cr_expect(strstr(c.r.err, "k.py:5:9: error[QD2032]: "), "%s", c.r.err);
    cr_expect(!c.wrote);
    compiled_free(&c);
}
