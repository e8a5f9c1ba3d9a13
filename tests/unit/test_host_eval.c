/* Host Python that qdc evaluates at compile time (issue 14 item 6, frontend/py/sema_pystr.c,
 * sema_pyfunc.c, the host loops of sema_param.c) beyond the corpus files testdata/lang/hoststr.py
 * and hostloop.py: each refusal exact (text, location, exit 1, no output), Quadrants' rules for
 * is / in in kernel code, and the scripts that used to crash qdc. */
#include "harness.h"
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compile(const char *text, char **err, bool *wrote) { return qdc_x86_text("g.py", text, err, wrote); }

/* The script fails with exactly the diagnostics want (the whole of stderr). */
static void expect_exactly(const char *text, const char *want) { expect_py_refused("g.py", text, want); }

static void expect_ok(const char *text) { expect_py_compiles("g.py", text); }

/* Quadrants (ast_transformer build_Compare): `is` outside qd.static is refused, `in` is only
 * allowed inside it, and inside it `is` needs None and a direct qd.template() parameter. */
Test(host_eval, is_and_in_follow_quadrants) {
    expect_exactly("import quadrants as qd\n\nc = qd.field(qd.i32, shape=())\n\n@qd.kernel\ndef k(n: qd.i32):\n    c[None] = n is 3\n",
                   "g.py:7:15: error[QD2009]: 'is' is not supported in kernel code (Quadrants: Operator \"is\" in Quadrants scope is "
                   "not supported); write qd.static(x is None) with x a qd.template() parameter\n"
                   " 7 |     c[None] = n is 3\n   |               ^~~~~~\n");
    expect_exactly("import quadrants as qd\n\nc = qd.field(qd.i32, shape=())\n\n@qd.kernel\ndef k(n: qd.i32):\n    c[None] = n in (1, 2)\n",
                   "g.py:7:15: error[QD2009]: 'in' is only supported inside qd.static (Quadrants: \"In\" is only supported inside "
                   "`qd.static`)\n"
                   " 7 |     c[None] = n in (1, 2)\n   |               ^~~~~~~~~~~\n");
    expect_exactly("import quadrants as qd\n\nc = qd.field(qd.i32, shape=())\nW = (1, 2)\n\n@qd.kernel\ndef k(t: qd.template()):\n"
                   "    c[None] = qd.static(W is not None) + qd.static(t is None)\n\nk(1)\n",
                   "g.py:8:25: error[QD2009]: 'is not' inside qd.static needs a direct qd.template() or qd.Tensor kernel parameter on "
                   "one side and None on the other (Quadrants: Operator \"is not\" inside `qd.static` requires a direct `qd.template()` "
                   "or `qd.Tensor` kernel argument and `None`)\n"
                   " 8 |     c[None] = qd.static(W is not None) + qd.static(t is None)\n   |                         ^~~~~~~~~~~~~\n");
    /* accepted: in inside qd.static and a comprehension's condition; is between None and a
     * template parameter; is in a host helper a kernel calls (Python's own rules there) */
    expect_ok("import quadrants as qd\n\nc = qd.field(qd.i32, shape=4)\nW = (1, 2)\n\ndef same(a, b):\n    return 1 if a is b else 0\n\n"
              "@qd.kernel\ndef k(t: qd.template()):\n    c[0] = qd.static(2 in W) + qd.static(t is not None) + qd.static(None is t)\n"
              "    c[1] = len([w for w in W if w not in (2, 3)])\n    c[2] = same(None, None)\n\nk(1)\n");
}

/* Host loops: break at module level outside a loop (Python's SyntaxError), a while loop past
 * the evaluation limit and a helper returning under a condition qdc cannot evaluate (QD2062
 * where a kernel uses the value, naming the reason). */
Test(host_eval, loops_and_helpers_refused_precisely) {
    expect_exactly("import quadrants as qd\n\nbreak\n", "g.py:3:1: error[QD2002]: 'break' outside a loop\n 3 | break\n   | ^~~~~\n");
    expect_exactly("import quadrants as qd\n\nc = qd.field(qd.i32, shape=())\nn = 0\nwhile n >= 0:\n    n += 1\n\n@qd.kernel\ndef k():\n"
                   "    c[None] = n\n",
                   "g.py:10:15: error[QD2062]: 'n' is set in a while loop that runs more than 64 times (qdc evaluates at most 64 "
                   "iterations of a host loop, its loop budget: raise it with --eval-limit=loop=N), known only when the script runs; "
                   "kernels can use module constants, fields, qd.func and "
                   "their own arguments\n"
                   " 10 |     c[None] = n\n    |               ^\n"
                   "g.py:6:5: note: 'n' is set here\n 6 |     n += 1\n   |     ^\n");
    expect_exactly("import quadrants as qd\n\nc = qd.field(qd.i32, shape=())\n\ndef pick(x):\n    if x > LIMIT:\n        return 1\n"
                   "    return 2\n\n@qd.kernel\ndef k():\n    c[None] = pick(3)\n",
                   "g.py:12:15: error[QD2062]: 'pick' returns from inside an if statement whose condition qdc cannot evaluate; qdc "
                   "evaluates a helper function only when it can compute its result\n"
                   " 12 |     c[None] = pick(3)\n    |               ^~~~~~~\n");
    /* a for loop of 100 values that a break ends after 3 is evaluated; unused run-time values are not errors */
    expect_ok("import quadrants as qd\n\nc = qd.field(qd.i32, shape=())\nhit = -1\nfor i in range(100):\n    if i * i > 5:\n"
              "        hit = i\n        break\nfor i in range(1000):\n    other = i\n\n@qd.kernel\ndef k():\n    c[None] = hit\n");
}

/* A str method whose argument is wrong gives the field it names a reason; a format spec at
 * module level is not an error until a kernel uses the value. */
Test(host_eval, string_refusals_name_the_reason) {
    expect_exactly("import pytest\nimport quadrants as qd\n\n@pytest.mark.parametrize(\"layout\", [(1, 0)])\ndef test_j(layout):\n"
                   "    order = \"\".join(layout)\n    f = qd.field(qd.f32, shape=(2, 2), order=order)\n\n    @qd.kernel\n    def k():\n"
                   "        f[0, 0] = 1.0\n\n    k()\n",
                   "g.py:11:9: error[QD2062]: 'f' is a field declared from 'order' (a value qdc cannot compute (str.join: sequence item "
                   "0: expected a string, got an integer)), known only when the script runs; kernels can use module constants, fields, "
                   "qd.func and their own arguments\n"
                   " 11 |         f[0, 0] = 1.0\n    |         ^\n"
                   "g.py:7:5: note: 'f' is set here\n 7 |     f = qd.field(qd.f32, shape=(2, 2), order=order)\n   |     ^\n");
    expect_exactly("import quadrants as qd\n\nS = \"{:>4}\".format(3)\nc = qd.field(qd.i32, shape=())\n\n@qd.kernel\ndef k():\n"
                   "    c[None] = len(S)\n",
                   "g.py:8:19: error[QD2062]: 'S' is a value qdc cannot compute (str.format with a format spec or conversion ({x:>4}, "
                   "{x!r}); qdc formats fields {}, {N} and {name} of compile-time strings, integers, bools and None), known only when "
                   "the script runs; kernels can use module constants, fields, qd.func and their own arguments\n"
                   " 8 |     c[None] = len(S)\n   |                   ^\n"
                   "g.py:3:1: note: 'S' is set here\n 3 | S = \"{:>4}\".format(3)\n   | ^\n");
}

/* list.append on a list another name also holds: that name is the script's value (qdc does not
 * follow aliasing), the appended list itself is known. */
Test(host_eval, list_changed_through_another_name) {
    expect_exactly("import quadrants as qd\n\nc = qd.field(qd.i32, shape=())\na = [1]\nb = a\na.append(2)\n\n@qd.kernel\ndef k():\n"
                   "    c[None] = b[0] + a[1]\n",
                   "g.py:10:15: error[QD2062]: 'b' is a list host code changes through another name, known only when the script runs; "
                   "kernels can use module constants, fields, qd.func and their own arguments\n"
                   " 10 |     c[None] = b[0] + a[1]\n    |               ^\n"
                   "g.py:5:1: note: 'b' is set here\n 5 | b = a\n   | ^~~~~\n");
}

/* `A if cond else B` whose sides are not scalars (qd.Vector.field / qd.Vector.ndarray) used to
 * crash qdc (a select of two non-values): Python's choice is taken. */
Test(host_eval, conditional_of_callables_does_not_crash) {
    expect_ok("import quadrants as qd\n\nmake = qd.Vector.field if 1 > 2 else qd.Vector.ndarray\nc = qd.field(qd.i32, shape=())\n\n"
              "@qd.kernel\ndef k():\n    c[None] = 1\n");
}

/* fastcache= only decides how Quadrants caches a kernel: a value known only when the script runs
 * (a physics engine's fastcache=gs.use_fastcache) compiles the kernel, with warning QD2107 and
 * without the capture checks; graph=, which changes the code, stays a compile-time bool. */
static const char runtime_flag[] = "import sys\nimport quadrants as qd\n\nx = qd.field(qd.i32, shape=4)\n\n"
                                   "@qd.kernel(%s=sys.flags.optimize > 0)\ndef k(a: qd.types.ndarray(qd.i32, ndim=1)):\n"
                                   "    for i in range(4):\n        a[i] = x[i] + 1\n";

Test(host_eval, fastcache_known_at_run_time_compiles) {
    char text[512], *err;
    bool wrote;
    snprintf(text, sizeof text, runtime_flag, "fastcache");
    int status = compile(text, &err, &wrote);
    cr_expect_eq(status, 0, "exit %d: %s", status, err);
    cr_expect(wrote, "no output");
    cr_expect_str_eq(err, "g.py:6:22: warning[QD2107]: @qd.kernel(fastcache=...) is known only when the script runs: qdc compiles the "
                          "kernel as written (fastcache decides how Quadrants caches a kernel, not its code) and skips the checks of "
                          "captured values that fastcache=True adds [-Wruntime-fastcache]\n"
                          " 6 | @qd.kernel(fastcache=sys.flags.optimize > 0)\n   |                      ^~~~~~~~~~~~~~~~~~~~~~\n");
    free(err);
    snprintf(text, sizeof text, runtime_flag, "graph");
    expect_exactly(text, "g.py:6:18: error[QD2062]: 'sys' is a module the script imports, known only when the script runs; kernels can "
                         "use module constants, fields, qd.func and their own arguments\n"
                         " 6 | @qd.kernel(graph=sys.flags.optimize > 0)\n   |                  ^~~\n"
                         "g.py:1:8: note: 'sys' is set here\n 1 | import sys\n   |        ^~~\n");
    /* a known fastcache=True still checks captures */
    snprintf(text, sizeof text, runtime_flag, "fastcache");
    char *p = strstr(text, "sys.flags.optimize > 0");
    memcpy(p, "True                  ", 22);
    expect_exactly(text, "g.py:9:16: error[QD2064]: fastcache kernel 'k' reads a field 'x' captured from outside it; a fastcache (pure) "
                         "kernel takes all its data as parameters\n"
                         " 9 |         a[i] = x[i] + 1\n   |                ^\n"
                         "g.py:4:1: note: 'x' is set here\n 4 | x = qd.field(qd.i32, shape=4)\n   | ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
}

/* A `with` or `try:` block at module level runs once, like one in a host function: the calls in
 * it instantiate generic kernels (Quadrants' tests call kernels inside `with qd.ad.Tape(...)`
 * and `try:` at the top of the script). Before, the block was opaque host code and the kernel
 * stayed uninstantiated (QD2060). */
Test(host_eval, module_level_with_and_try_blocks_run_once) {
    expect_ok("import quadrants as qd\n\nx = qd.field(qd.f32, shape=4)\nloss = qd.field(qd.f32, shape=(), needs_grad=True)\n\n"
              "@qd.kernel\ndef k(a: qd.template()):\n    for i in a:\n        a[i] += 1.0\n\n"
              "with qd.ad.Tape(loss=loss):\n    k(x)\n");
    expect_ok("import quadrants as qd\n\nx = qd.field(qd.f32, shape=4)\n\n"
              "@qd.kernel\ndef k(a: qd.template()):\n    for i in a:\n        a[i] += 1.0\n\n"
              "try:\n    k(x)\nexcept RuntimeError:\n    pass\n");
    /* a name the with statement binds is host code: a kernel cannot read it */
    expect_exactly("import quadrants as qd\n\nwith open('f') as h:\n    pass\n\n@qd.kernel\ndef k() -> qd.i32:\n    return h\n\nk()\n",
                   "g.py:8:12: error[QD2062]: 'h' is bound by a with statement, known only when the script runs; kernels can use "
                   "module constants, fields, qd.func and their own arguments\n"
                   " 8 |     return h\n   |            ^\n"
                   "g.py:3:19: note: 'h' is set here\n"
                   " 3 | with open('f') as h:\n   |                   ^\n");
}

/* ---- issue 29: classes, host assert / raise ---- */

static const char classes_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    classes__d_args ca = {0};\n"
    "    if (classes__d(&ca, nt)) return 2;\n"
    "    for (int k = 0; k < 16; k++) printf(\"%d%s\", qd_field_x[k], k == 15 ? \"\\n\" : \" \");\n"
    "    int32_t out[4] = {-1, -1, -1, -1};\n"
    "    with_dataclass_args wa = {.p__out = out, .p__out_shape = {4}, .p__n = 4};\n"
    "    if (with_dataclass(&wa, nt)) return 2;\n"
    "    printf(\"%d %d %d %d\\n\", out[0], out[1], out[2], out[3]);\n"
    "    return 0;\n}\n";

/* testdata/host-eval/classes.py: methods of plain classes (calling each other, a host loop in
 * one), @property, @staticmethod, @classmethod (cls is the class named, also inherited),
 * class attributes seeing earlier ones, __init__ with defaults and an if, single inheritance,
 * obj[i] through __getitem__ (Quadrants' test_subscript_user_classes_in_kernel),
 * an instance made in a helper, dataclass methods, properties and __post_init__, and a
 * dataclass method in a kernel on its run-time members, recursive lambdas a kernel calls with
 * constants: Python's values, on 1, 2 and 4 threads. Before, a plain class was opaque (QD2062 at
 * each use) and a recursive lambda in a kernel was QD2016. */
Test(host_eval, classes_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/host-eval/classes.py", classes_host,
                          "20 21 15 14 6 10 6 37 2 5 19 6 5 720 610 30\n8 9 10 11\n");
}

/* What a class cannot give is located: a method whose body does more than compute, an
 * attribute the class does not have, a class with a base qdc does not know (still the
 * script's, as before). */
Test(host_eval, class_refusals_are_located) {
    expect_exactly("import quadrants as qd\n\nclass C:\n    def __init__(self):\n        self.n = 2\n\n"
                   "    def log(self):\n        print(self.n)\n        return self.n\n\n"
                   "c = C()\nx = qd.field(qd.i32, shape=2)\n\n@qd.kernel\ndef k():\n    x[0] = c.log()\n\nk()\n",
                   "g.py:16:12: error[QD2062]: 'c.log' is a method qdc cannot evaluate (its body does more than compute a value); "
                   "kernels and compile-time code can use methods that only compute a value\n"
                   " 16 |     x[0] = c.log()\n    |            ^~~~~\n"
                   "g.py:7:9: note: 'log' is defined here\n 7 |     def log(self):\n   |         ^~~\n");
    expect_exactly("import quadrants as qd\n\nclass C:\n    n = 2\n\nx = qd.field(qd.i32, shape=2)\n\n"
                   "@qd.kernel\ndef k():\n    x[0] = C.m\n\nk()\n",
                   "g.py:10:12: error[QD2019]: class 'C' has no attribute 'm' that qdc can see (a class attribute, a static, class or "
                   "plain method)\n"
                   " 10 |     x[0] = C.m\n    |            ^~~\n");
    expect_exactly("import quadrants as qd\nimport enum\n\nclass C(enum.Flag):\n    n = 2\n\nx = qd.field(qd.i32, shape=2)\n\n"
                   "@qd.kernel\ndef k():\n    x[0] = C.n\n\nk()\n",
                   "g.py:11:12: error[QD2062]: 'C' is a Python class, known only when the script runs; kernels can use module "
                   "constants, fields, qd.func and their own arguments\n"
                   " 11 |     x[0] = C.n\n    |            ^\n"
                   "g.py:4:7: note: 'C' is set here\n 4 | class C(enum.Flag):\n   |       ^\n");
}

/* A host assert qdc computes as false, or a raise it reaches, stops the compile as Python
 * stops the script (QD2180, the message as Python formats it); one it cannot compute, one in a
 * branch it cannot decide, and one in a try block are left to the script. */
Test(host_eval, host_assert_and_raise_at_compile_time) {
    static const char helper[] = "import quadrants as qd\n\ndef check(n):\n    if n < 0:\n        raise ValueError(f\"n must be >= 0, got {n}\")\n"
                                 "    return n * 2\n\nx = qd.field(qd.i32, shape=2)\n\n@qd.kernel\ndef k():\n    x[0] = M\n\n";
    char *text = NULL;
    cr_assert(asprintf(&text, "%sM = check(3)\nassert M == 7, f\"M is {M}\"\nk()\n", helper) > 0);
    expect_exactly(text, "g.py:15:1: error[QD2180]: assertion failed at compile time: M is 6\n"
                         " 15 | assert M == 7, f\"M is {M}\"\n    | ^~~~~~\n");
    free(text);
    cr_assert(asprintf(&text, "%sM = check(-1)\nk()\n", helper) > 0);
    expect_exactly(text, "g.py:5:9: error[QD2180]: ValueError raised at compile time: n must be >= 0, got -1\n"
                         " 5 |         raise ValueError(f\"n must be >= 0, got {n}\")\n   |         ^~~~~\n"
                         "g.py:14:5: note: raised in this call of 'check'\n 14 | M = check(-1)\n    |     ^~~~~~~~~\n");
    free(text);
    expect_exactly("import quadrants as qd\n\nN = 3\nassert N % 2 == 0\n",
                   "g.py:4:1: error[QD2180]: assertion failed at compile time: N % 2 == 0\n 4 | assert N % 2 == 0\n   | ^~~~~~\n");
    /* a try block catches it; an opaque condition, an undecided branch, a kernel's result, a list
     * code qdc does not run may append to, a flag a global statement rebinds, `is`: the script's */
    cr_assert(asprintf(&text, "%sM = check(3)\ntry:\n    check(-5)\nexcept ValueError:\n    pass\n"
                              "import sys\nassert len(sys.argv) == 99\nif len(sys.argv) > 5:\n    raise RuntimeError('many')\n"
                              "k()\nassert x[0] == 7\n"
                              "calls = []\nflag = False\ndef setf():\n    global flag\n    flag = True\n    calls.append(1)\n\n"
                              "assert len(calls) == 1 and flag\nassert flag\nclass D:\n    pass\n\nassert D is not None\n", helper) > 0);
    expect_ok(text);
    free(text);
}
