/* The compile-time evaluator's budgets (frontend/py/budget.h; issue 29 item 3, issue 34 items
 * 6-9): each adversarial script ends in one exact diagnostic naming the budget and the option
 * that raises it, exit 1, no output, in bounded CPU time and memory (measured with
 * /usr/bin/time); --eval-limit raises a budget; and Python ints in host code stay exact or are
 * a located error (issue 34 items 2 and 3; the exact values are run on x86 by the corpus file
 * testdata/lang/pyint.py). */
#include "harness.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define P "import quadrants as qd\n\n"
#define USE_S "n = len(s)\nout = qd.field(qd.i64, shape=())\n\n@qd.kernel\ndef k():\n    out[None] = n\n"
#define STEPS "steps (host statements, loop iterations and walks over compile-time values); raise it with --eval-limit=steps=N\n"
#define SIZE "units of compile-time values (string characters, list and tuple items, struct members, bytes of ints past 64 bits); raise it with --eval-limit=size=N\n"

static bool asan(void) { return getenv("QDC_ASAN") && !strcmp(getenv("QDC_ASAN"), "1"); }

typedef struct {
    int status;
    char *err;     /* stderr without /usr/bin/time's line */
    double cpu_s;  /* user + system, -1 without /usr/bin/time */
    long rss_mib;
    bool wrote;
} Outcome;

/* Compiles text as g.py for x86_64 (extra, extra2: more options or NULL) under /usr/bin/time. */
static Outcome compile_with(const char *text, const char *extra, const char *extra2) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/g.py", dir), *out = xasprintf("%s/g.o", dir);
    cr_assert(write_text(src, text));
    bool timed = access("/usr/bin/time", X_OK) == 0;
    const char *argv[] = {"/usr/bin/time", "-f", "qdc-usage=%U %S %M", qdc_bin(), "--color=never", "--target=x86_64", "-o", out, "g.py", extra, extra2, NULL};
    RunResult r = run_argv(timed ? argv : argv + 3, NULL, dir);
    Outcome o = {.status = r.status, .err = strdup(r.err ? r.err : ""), .cpu_s = -1, .wrote = file_exists(out)};
    char *u = strstr(o.err, "qdc-usage=");
    double user, sys;
    long kib;
    if (timed && u && sscanf(u + 10, "%lf %lf %ld", &user, &sys, &kib) == 3) o.cpu_s = user + sys, o.rss_mib = kib / 1024, *u = 0;
    char *exited = strstr(o.err, "Command exited with non-zero status"); /* /usr/bin/time's own line */
    if (exited) *exited = 0;
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(out);
    return o;
}

static Outcome compile(const char *text, const char *extra) { return compile_with(text, extra, NULL); }

/* Exactly `want` on stderr, exit 1, no output, < 2 CPU-s and < 300 MiB (ASan: 5x). */
static void expect_budget(const char *text, const char *want) {
    Outcome o = compile(text, NULL);
    cr_expect_eq(o.status, 1, "exit %d: %s", o.status, o.err);
    cr_expect_str_eq(o.err, want);
    cr_expect(!o.wrote, "an output was written after an error");
    double slack = asan() ? 5 : 1;
    if (o.cpu_s >= 0) {
        cr_expect_lt(o.cpu_s, 2 * slack, "%.2f CPU-s", o.cpu_s);
        cr_expect_lt(o.rss_mib, 300 * slack, "%ld MiB", o.rss_mib);
    }
    free(o.err);
}

/* for a0 in range(64): ... n deep, around body. */
static char *nested_loops(int n, const char *body) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, P "n = 0\n");
    for (int k = 0; k < n; k++) sb_printf(&b, "%*sfor a%d in range(64):\n", 4 * k, "", k);
    sb_printf(&b, "%*s%s\n", 4 * n, "", body);
    return sb_take(&b);
}

static char *repeated(const char *head, const char *line, int n, const char *tail) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, head);
    for (int k = 0; k < n; k++) sb_puts(&b, line);
    sb_puts(&b, tail);
    return sb_take(&b);
}

/* head, then line_fmt for k = 1..n (its three %d: k, k - 1, k - 1: each item uses the one
 * before twice), then tail. */
static char *doubling(const char *head, const char *line_fmt, int n, const char *tail) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, head);
    for (int k = 1; k <= n; k++) sb_printf(&b, line_fmt, k, k - 1, k - 1);
    sb_puts(&b, tail);
    return sb_take(&b);
}

/* Nested host loops multiplied the per-loop cap of 64 iterations: 64^4 took > 5 CPU-s and
 * 926 MB, 64^6 2.3 GB. One step budget counts every iteration of every loop. */
Test(eval_budget, nested_host_loops, .timeout = 60) {
    char *t = nested_loops(4, "n += 1");
    expect_budget(t, "g.py:8:19: error[QD2026]: compile-time evaluation exceeds its budget of 500000 " STEPS
                     " 8 |                 n += 1\n   |                   ^~\n");
    free(t);
    t = nested_loops(6, "n += 1");
    expect_budget(t, "g.py:10:27: error[QD2026]: compile-time evaluation exceeds its budget of 500000 " STEPS
                     " 10 |                         n += 1\n    |                           ^~\n");
    free(t);
}

/* s = s + s, f-strings, str.replace and str.join doubling a string 64 times. */
Test(eval_budget, growing_strings, .timeout = 60) {
    expect_budget(P "s = \"ab\"\nfor i in range(64):\n    s = s + s\n",
                  "g.py:5:9: error[QD2026]: compile-time evaluation exceeds its budget of 4194304 " SIZE
                  " 5 |     s = s + s\n   |         ^~~~~\n");
    expect_budget(P "s = \"ab\"\nfor i in range(64):\n    s = f\"{s}{s}\"\n",
                  "g.py:5:9: error[QD2026]: compile-time evaluation exceeds its budget of 4194304 " SIZE
                  " 5 |     s = f\"{s}{s}\"\n   |         ^~~~~~~~~\n");
    char *t = repeated(P "s = \"aa\"\n", "s = s.replace(\"a\", \"aa\")\n", 64, USE_S);
    expect_budget(t, "g.py:23:5: error[QD2026]: compile-time evaluation exceeds its budget of 4194304 " SIZE
                     " 23 | s = s.replace(\"a\", \"aa\")\n    |     ^~~~~~~~~~~~~~~~~~~~\n");
    free(t);
    t = repeated(P "s = \"ab\"\n", "s = \"\".join([s, s])\n", 64, USE_S);
    expect_budget(t, "g.py:23:5: error[QD2026]: compile-time evaluation exceeds its budget of 4194304 " SIZE
                     " 23 | s = \"\".join([s, s])\n    |     ^~~~~~~~~~~~~~~\n");
    free(t);
}

/* L = L + L and T = [T, T, T]: the lists share their items, so walking them is what grows. */
Test(eval_budget, growing_lists, .timeout = 60) {
    expect_budget(P "L = [1, 2]\nfor i in range(64):\n    L = L + L\n",
                  "g.py:5:5: error[QD2026]: compile-time evaluation exceeds its budget of 500000 " STEPS
                  " 5 |     L = L + L\n   |     ^~~~~~~~~\n");
    expect_budget(P "T = (1, 2)\nfor i in range(64):\n    T = [T, T, T]\n",
                  "g.py:5:5: error[QD2026]: compile-time evaluation exceeds its budget of 500000 " STEPS
                  " 5 |     T = [T, T, T]\n   |     ^~~~~~~~~~~~~\n");
}

/* S_i = qd.types.struct(v=S_{i-1}, w=S_{i-1}): S_40 would have 2^40 members; S_22 has 2^22. */
Test(eval_budget, doubling_struct_types, .timeout = 60) {
    char *t = doubling(P "S0 = qd.types.struct(v=qd.f32)\n", "S%d = qd.types.struct(v=S%d, w=S%d)\n", 40, "F = qd.field(S40, shape=())\n");
    expect_budget(t, "g.py:25:7: error[QD2026]: compile-time evaluation exceeds its budget of 4194304 " SIZE
                     " 25 | S22 = qd.types.struct(v=S21, w=S21)\n    |       ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
    free(t);
}

/* f_i calls f_{i-1} twice: 2^21 inlined calls, 20 deep (under the depth limit of 32). */
Test(eval_budget, doubling_func_calls, .timeout = 60) {
    char *t = doubling(P "out = qd.field(qd.i32, shape=())\n\n\n@qd.func\ndef f0() -> qd.i32:\n    return 1\n\n\n",
                       "@qd.func\ndef f%d() -> qd.i32:\n    return f%d() + f%d()\n\n\n", 20, "@qd.kernel\ndef k():\n    out[None] = f20()\n");
    expect_budget(t, "g.py:18:19: error[QD2026]: compile-time evaluation exceeds its budget of 100000 inlined qd.func calls; "
                     "raise it with --eval-limit=inlines=N\n"
                     " 18 |     return f1() + f1()\n    |                   ^~~~\n");
    free(t);
}

/* An __init__ that creates an instance of its own class. */
Test(eval_budget, recursive_init, .timeout = 60) {
    expect_budget(P "@qd.data_oriented\nclass A:\n    def __init__(self, n):\n        self.x = qd.field(qd.f32, shape=(4,))\n"
                    "        child = A(n + 1)\n\n    @qd.kernel\n    def k(self):\n        self.x[0] = 1.0\n\n\na = A(0)\na.k()\n",
                  "g.py:7:17: error[QD2026]: compile-time evaluation exceeds its budget of 100 nested calls (host helpers, Python functions, "
                  "lambdas, inlined qd.func calls, data-oriented __init__); raise it with --eval-limit=depth=N\n"
                  " 7 |         child = A(n + 1)\n   |                 ^~~~~~~~\n");
}

/* 10,001 host calls of a generic kernel compiled 10,001 kernels past the 10,000-kernel limit,
 * exit 0. The definition and its instantiations share the one budget. */
Test(eval_budget, host_call_instantiations, .timeout = 60) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, P "@qd.kernel\ndef k(t: qd.template()):\n    pass\n\n\n");
    for (int k = 0; k <= 10000; k++) sb_printf(&b, "k(%d)\n", k);
    expect_budget(b.data, "g.py:10007:1: error[QD2024]: compile-time evaluation exceeds its budget of 10000 kernels, qd.funcs and "
                          "instantiations of generic kernels; raise it with --eval-limit=kernels=N\n"
                          " 10007 | k(9999)\n       | ^~~~~~~\n");
    sb_free(&b);
}

/* Raising a budget: the same script compiles; a bad --eval-limit is a usage error (exit 2). */
Test(eval_budget, option_raises_a_budget, .timeout = 60) {
    const char *text = P "n = 0\nfor a in range(64):\n    for b in range(64):\n        n += 1\n"
                         "out = qd.field(qd.i32, shape=())\n\n@qd.kernel\ndef k():\n    out[None] = n\n";
    Outcome o = compile(text, "--eval-limit=steps=100");
    cr_expect_eq(o.status, 1, "exit %d: %s", o.status, o.err);
    cr_expect(strstr(o.err, "g.py:6:11: error[QD2026]: compile-time evaluation exceeds its budget of 100 steps"), "%s", o.err);
    free(o.err);
    o = compile(text, "--eval-limit=steps=9000");
    cr_expect_eq(o.status, 0, "exit %d: %s", o.status, o.err);
    cr_expect(o.wrote);
    free(o.err);
    o = compile(text, "--eval-limit=stepz=9000");
    cr_expect_eq(o.status, 2, "exit %d: %s", o.status, o.err);
    cr_expect_str_eq(o.err, "qdc: error: unknown evaluation limit 'stepz' (steps, size, depth, calls, inlines, kernels, unroll or loop)\n"
                            "qdc: run 'qdc --help' for usage\n");
    free(o.err);
    o = compile(text, "--eval-limit=loop=0");
    cr_expect_eq(o.status, 2, "exit %d: %s", o.status, o.err);
    cr_expect_str_eq(o.err, "qdc: error: --eval-limit=loop=N needs a count N from 1 to 16777216\nqdc: run 'qdc --help' for usage\n");
    free(o.err);
}

/* --instantiate options share the kernels budget with host calls and definitions. */
Test(eval_budget, instantiate_options, .timeout = 120) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/g.py", dir);
    cr_assert(write_text(src, P "@qd.kernel\ndef k(t: qd.template()):\n    pass\n"));
    enum { N = 10001 };
    const char **argv = calloc(N + 6, sizeof *argv);
    char **specs = calloc(N, sizeof *specs);
    int n = 0;
    argv[n++] = "--color=never", argv[n++] = "--check", argv[n++] = "g.py";
    for (int k = 0; k < N; k++) argv[n++] = specs[k] = xasprintf("--instantiate=k(t=%d)", k);
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 1, "exit %d: %.2000s", r.status, r.err);
    cr_expect_str_eq(r.err, "--instantiate:1:1: error[QD2024]: compile-time evaluation exceeds its budget of 10000 kernels, qd.funcs and "
                            "instantiations of generic kernels; raise it with --eval-limit=kernels=N\n"
                            " 1 | k(t=9999)\n   | ^~~~~~~~~\n");
    run_free(&r);
    for (int k = 0; k < N; k++) free(specs[k]);
    free(specs), free(argv);
    remove_tree(dir);
    free(dir), free(src);
}

/* Host ints are Python ints, unbounded (frontend/py/pyint.c): n = n * n reaches 3**64 exactly (it
 * used to wrap, then to stop at 64 bits); only a kernel that needs the value itself is an error,
 * at the use, naming its range (testdata/lang/pyint.py runs what fits 64 bits after such steps). */
#define UNFIT "does not fit a kernel integer (i64 or u64): an integer a kernel uses must fit in 64 bits (i64: -2**63 to 2**63 - 1, u64: up to 2**64 - 1)\n"
Test(pyint, past_64_bits_is_exact_until_used) {
    Outcome o = compile(P "n = 3\nfor i in range(6):\n    n = n * n\nout = qd.field(qd.i64, shape=())\n\n\n@qd.kernel\n"
                          "def k():\n    out[None] = n % 1000\n    out[None] = n\n", NULL);
    cr_expect_eq(o.status, 1, "exit %d: %s", o.status, o.err);
    cr_expect_str_eq(o.err, "g.py:12:17: error[QD2050]: integer 3433683820292512484657849089281 (2**101 <= value < 2**102) " UNFIT
                            " 12 |     out[None] = n\n    |                 ^\n");
    cr_expect(!o.wrote);
    free(o.err);
}

/* What Python raises on its ints, located; a shape past 64 bits names the shape. */
Test(pyint, python_errors_past_64_bits) {
    Outcome o = compile(P "big = 1 << 100\nz = big // (big - big)\ns = big << -big\nf = qd.field(qd.i32, shape=(4, big))\n"
                          "g = qd.field(qd.i32, shape=-big)\n", NULL);
    cr_expect_eq(o.status, 1, "exit %d: %s", o.status, o.err);
    cr_expect_str_eq(o.err, "g.py:4:5: error[QD2023]: integer division by zero in a constant expression\n"
                            " 4 | z = big // (big - big)\n   |     ^~~~~~~~~~~~~~~~~\n"
                            "g.py:5:5: error[QD2050]: negative shift count -1267650600228229401496703205376 in a constant expression\n"
                            " 5 | s = big << -big\n   |     ^~~~~~~~~~~\n"
                            "g.py:6:32: error[QD2050]: integer 1267650600228229401496703205376 (2**100 <= value < 2**101) does not fit "
                            "a field shape: an integer a kernel uses must fit in 64 bits (i64: -2**63 to 2**63 - 1, u64: up to 2**64 - 1)\n"
                            " 6 | f = qd.field(qd.i32, shape=(4, big))\n   |                                ^~~\n"
                            "g.py:7:28: error[QD2050]: integer -1267650600228229401496703205376 (-2**101 < value <= -2**100) does not fit "
                            "a field shape: an integer a kernel uses must fit in 64 bits (i64: -2**63 to 2**63 - 1, u64: up to 2**64 - 1)\n"
                            " 7 | g = qd.field(qd.i32, shape=-big)\n   |                            ^~~~\n");
    free(o.err);
}

/* A value that would take more memory than the size budget allows is refused before the work
 * (2 ** 10**9: 125 MB); one whose multiplications are too long runs out of steps (3 ** 10**7,
 * 2 MB). Both end at once, located. */
Test(pyint, runaway_values_end_in_a_budget, .timeout = 60) {
    expect_budget(P "C = 2 ** 10**9\n",
                  "g.py:3:5: error[QD2026]: compile-time evaluation exceeds its budget of 4194304 " SIZE
                  " 3 | C = 2 ** 10**9\n   |     ^~~~~~~~~~\n");
    expect_budget(P "C = 3 ** 10**7\n",
                  "g.py:3:5: error[QD2026]: compile-time evaluation exceeds its budget of 500000 " STEPS
                  " 3 | C = 3 ** 10**7\n   |     ^~~~~~~~~~\n");
    expect_budget(P "C = 7\nfor i in range(40):\n    C = C * C\n",
                  "g.py:5:9: error[QD2026]: compile-time evaluation exceeds its budget of 500000 " STEPS
                  " 5 |     C = C * C\n   |         ^~~~~\n");
}

/* IntFlag auto() saturated at 2^62 (members 62, 63 and 66 aliased): 2^63 is a u64 member
 * (pyint.py runs it and F.M66 >> 10), 2^64 and up are Python's values: an error where a kernel
 * needs one itself. */
Test(pyint, intflag_past_64_bits) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, P "from enum import IntFlag, auto\n\n\nclass F(IntFlag):\n");
    for (int k = 0; k < 67; k++) sb_printf(&b, "    M%d = auto()\n", k);
    sb_puts(&b, "\n\nout = qd.field(qd.u64, shape=())\n\n\n@qd.kernel\ndef k():\n    out[None] = F.M66\n");
    Outcome o = compile(b.data, NULL);
    cr_expect_eq(o.status, 1, "exit %d: %s", o.status, o.err);
    cr_expect_str_eq(o.err, "g.py:81:17: error[QD2050]: integer 73786976294838206464 (2**66 <= value < 2**67) " UNFIT
                            " 81 |     out[None] = F.M66\n    |                 ^~~~~\n");
    free(o.err);
    sb_free(&b);
}

/* str(), str.format and f-strings of ints past 64 bits give Python's digits. */
Test(pyint, str_of_big_ints) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/g.py", dir);
    cr_assert(write_text(src, P "big = 3 ** 50\ns = str(big) + \"!\"\nt = \"{}|{}\".format(big, -big)\n\n\n@qd.kernel\n"
                              "def k():\n    print(s, t)\n"));
    RunResult r = run_qdc_argv((const char *const[]){"--emit=ir", "-o", "-", "g.py", NULL}, NULL, dir);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.out, "    print \"717897987691852588770249! 717897987691852588770249|-717897987691852588770249\\n\"\n"), "%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
}

/* One integer arithmetic (py/sema_pyint.c): a comparison of two Python ints is exact whatever
 * their types (-1 < 2**64 - 1 compared -1 as a u64, False, before), and the core's folding of two
 * int literals, a literal tree and host arithmetic give Python's floor division, modulo and
 * shifts, in host code and in a kernel alike. */
Test(pyint, one_arithmetic_compares_exactly) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/g.py", dir);
    cr_assert(write_text(src, P "lt = -1 < 18446744073709551615\nge = 18446744073709551615 >= -1\nc = -7 // 2, -7 % 2, 7 % -2, "
                              "(1 << 70) >> 69\n\n\n@qd.kernel\ndef k():\n    print(lt, ge, c[0], c[1], c[2], c[3])\n"
                              "    print(-1 < 18446744073709551615, 2 ** 64 - 1 > -1, -5 // 2 * 3, 2 ** 63 - 1)\n"));
    RunResult r = run_qdc_argv((const char *const[]){"--emit=ir", "-o", "-", "g.py", NULL}, NULL, dir);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.out, "    print \"%d %d %d %d %d %d\\n\" 1:i32 1:i32 -4:i32 1:i32 -1:i32 2:i32\n"), "%s", r.out);
    cr_expect(strstr(r.out, "    print \"%d %d %d %lld\\n\" 1:i32 1:i32 -9:i32 9223372036854775807:i64\n"), "%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
}

/* Issue 29 item 3's variants: each ends in one exact diagnostic (exit 1, no output). These
 * assert the diagnostic, not the time (expect_budget above measures the first round's cases). */
static void expect_diag(const char *text, const char *extra, const char *want) {
    Outcome o = compile(text, extra);
    cr_expect_eq(o.status, 1, "exit %d: %s", o.status, o.err);
    cr_expect_str_eq(o.err, want);
    cr_expect(!o.wrote, "an output was written after an error");
    free(o.err);
}

#define USE_X "out = qd.field(qd.i64, shape=())\n\n\n@qd.kernel\ndef k():\n    out[None] = x\n"
#define DEPTH "nested calls (host helpers, Python functions, lambdas, inlined qd.func calls, data-oriented __init__); raise it with --eval-limit=depth=N\n"

/* Ranges, repeated tuples and comprehensions: each item made is a step, so nested ones share
 * one budget (they were 65,536 items each: nested, 10^9). */
Test(eval_budget, huge_sequences, .timeout = 60) {
    expect_diag(P "x = len([[[i for i in range(1000)] for j in range(1000)] for k in range(1000)])\n" USE_X, NULL,
                "g.py:3:11: error[QD2026]: compile-time evaluation exceeds its budget of 500000 " STEPS
                " 3 | x = len([[[i for i in range(1000)] for j in range(1000)] for k in range(1000)])\n"
                "   |           ^~~~~~~~~~~~~~~~~~~~~~~~\n");
    expect_diag(P "x = len(list(range(10**12)))\n" USE_X, NULL,
                "g.py:3:14: error[QD2026]: compile-time evaluation exceeds its budget of 500000 " STEPS
                " 3 | x = len(list(range(10**12)))\n   |              ^~~~~~~~~~~~~\n");
    expect_diag(P "x = len((0,) * 10**9)\n" USE_X, NULL,
                "g.py:3:9: error[QD2026]: compile-time evaluation exceeds its budget of 500000 " STEPS
                " 3 | x = len((0,) * 10**9)\n   |         ^~~~~~~~~~~~\n");
    expect_diag(P "x = len(str(list(range(10**6))))\n" USE_X, NULL,
                "g.py:3:18: error[QD2026]: compile-time evaluation exceeds its budget of 500000 " STEPS
                " 3 | x = len(str(list(range(10**6))))\n   |                  ^~~~~~~~~~~~\n");
    expect_diag(P "d = {'a': [1, 2]}\nfor i in range(64):\n    d = {'x': d, 'y': d}\nx = len(d)\n" USE_X, NULL,
                "g.py:5:5: error[QD2026]: compile-time evaluation exceeds its budget of 500000 " STEPS
                " 5 |     d = {'x': d, 'y': d}\n   |     ^~~~~\n");
}

/* append and extend copy the list: 64^3 appends and 64 doublings took > 1 GB (exit 3). */
Test(eval_budget, growing_lists_by_methods, .timeout = 60) {
    expect_diag(P "L = []\nfor i in range(64):\n    for j in range(64):\n        for m in range(64):\n            L.append(i)\nx = len(L)\n" USE_X,
                NULL, "g.py:7:13: error[QD2026]: compile-time evaluation exceeds its budget of 4194304 " SIZE
                      " 7 |             L.append(i)\n   |             ^~~~~~~~~~~\n");
    expect_diag(P "L = [1]\nfor i in range(64):\n    L.extend(L)\nx = len(L)\n" USE_X, NULL,
                "g.py:5:5: error[QD2026]: compile-time evaluation exceeds its budget of 4194304 " SIZE
                " 5 |     L.extend(L)\n   |     ^~~~~~~~~~~\n");
}

/* Recursion of a host function is bounded by the one depth budget (it was 8 levels for helpers
 * and 16 for Python functions, silently): a terminating one is exact, a runaway one is QD2026. */
Test(eval_budget, host_recursion, .timeout = 60) {
    expect_diag(P "def f(n):\n    m = n + 1\n    return f(m)\n\n\nx = f(0)\n" USE_X, NULL,
                "g.py:5:12: error[QD2026]: compile-time evaluation exceeds its budget of 100 " DEPTH
                " 5 |     return f(m)\n   |            ^~~~\n");
    char *dir = make_temp_dir(), *src = xasprintf("%s/g.py", dir);
    cr_assert(write_text(src, P "def g(n):\n    if n == 0:\n        return 0\n    return g(n - 1) + 1\n\n\nx = g(90)\n" USE_X));
    RunResult r = run_qdc_argv((const char *const[]){"--emit=ir", "-o", "-", "g.py", NULL}, NULL, dir);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.out, "store field out[]:i64 = 90:i64\n"), "%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
}

/* A chain of 150 qd.funcs, each calling the next: past the depth budget (it was a fixed 32),
 * and it compiles with the budget raised; the budget's count is at most 1000 (the stack). */
Test(eval_budget, deep_func_chain, .timeout = 60) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, P "out = qd.field(qd.i32, shape=())\n\n\n@qd.func\ndef f0() -> qd.i32:\n    return 1\n\n\n");
    for (int k = 1; k < 150; k++) sb_printf(&b, "@qd.func\ndef f%d() -> qd.i32:\n    return f%d() + 1\n\n\n", k, k - 1);
    sb_puts(&b, "@qd.kernel\ndef k():\n    out[None] = f149()\n");
    expect_diag(b.data, NULL, "g.py:258:12: error[QD2026]: compile-time evaluation exceeds its budget of 100 " DEPTH
                              " 258 |     return f49() + 1\n     |            ^~~~~\n");
    Outcome o = compile(b.data, "--eval-limit=depth=200");
    cr_expect_eq(o.status, 0, "exit %d: %s", o.status, o.err);
    cr_expect(o.wrote);
    free(o.err);
    o = compile(b.data, "--eval-limit=depth=1001");
    cr_expect_eq(o.status, 2, "exit %d: %s", o.status, o.err);
    cr_expect_str_eq(o.err, "qdc: error: --eval-limit=depth=N needs a count N from 1 to 1000\nqdc: run 'qdc --help' for usage\n");
    free(o.err);
    sb_free(&b);
}

/* Dataclasses whose members double at each level: a kernel parameter of D39 would have 2^39
 * members (it hung in a walk of 2^39 paths). */
Test(eval_budget, doubling_dataclasses, .timeout = 60) {
    char *t = doubling(P "from dataclasses import dataclass\n\n\n@dataclass\nclass D0:\n    a: qd.f32\n\n\n",
                       "@dataclass\nclass D%d:\n    a: D%d\n    b: D%d\n\n\n", 39, "@qd.kernel\ndef k(d: D39):\n    pass\n");
    expect_diag(t, NULL, "g.py:246:7: error[QD2026]: compile-time evaluation exceeds its budget of 500000 " STEPS
                         " 246 | def k(d: D39):\n     |       ^\n");
    free(t);
}

/* qd.static unrolling is one budget for the whole compilation (it was 65,536 per kernel). */
Test(eval_budget, unroll_is_global, .timeout = 60) {
    expect_diag(P "a = qd.field(qd.i32, shape=(64,))\n\n\n@qd.kernel\ndef k1():\n    for i in qd.static(range(40000)):\n        a[i % 64] += 1\n\n\n"
                  "@qd.kernel\ndef k2():\n    for i in qd.static(range(40000)):\n        a[i % 64] += 1\n",
                NULL, "g.py:14:14: error[QD2022]: compile-time evaluation exceeds its budget of 65536 qd.static loop iterations unrolled into "
                      "kernels (nested ones included); raise it with --eval-limit=unroll=N\n"
                      " 14 |     for i in qd.static(range(40000)):\n    |              ^~~~~~~~~~~~~~~~~~~~~~~\n");
}

/* STR * N is Python's repetition ("a string cannot be used as a scalar value" before); a result
 * past the size budget is refused before it is made ('ab' * 10**9: 2 GB). */
Test(eval_budget, string_repetition, .timeout = 60) {
    expect_diag(P "u = \"ab\" * 10**9\n", NULL, /* at the `*` expression (it was the whole statement) */
                "g.py:3:5: error[QD2026]: compile-time evaluation exceeds its budget of 4194304 " SIZE
                " 3 | u = \"ab\" * 10**9\n   |     ^~~~~~~~~~~~\n");
    expect_diag(P "x = len((\"ab\" * 1000) * 3000) + 1\n" USE_X, NULL, /* the product that does not fit, not its operand */
                "g.py:3:10: error[QD2026]: compile-time evaluation exceeds its budget of 4194304 " SIZE
                " 3 | x = len((\"ab\" * 1000) * 3000) + 1\n   |          ^~~~~~~~~~~~~~~~~~~\n");
    char *dir = make_temp_dir(), *src = xasprintf("%s/g.py", dir);
    cr_assert(write_text(src, P "s = \"ab\" * 3 + \"-\" * 0 + 2 * \"c\"\nt = \"x\" * -4\n\n\n@qd.kernel\ndef k():\n    print(s, t)\n"));
    RunResult r = run_qdc_argv((const char *const[]){"--emit=ir", "-o", "-", "g.py", NULL}, NULL, dir);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.out, "    print \"abababcc \\n\"\n"), "%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
}

/* The IR of text compiled for x86_64 (exit 0), with extra (one option or NULL). */
static char *ir_of(const char *text, const char *extra) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/g.py", dir);
    cr_assert(write_text(src, text));
    const char *argv[] = {"--color=never", "--emit=ir", "-o", "-", "g.py", extra, NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    char *out = strdup(r.out ? r.out : "");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src);
    return out;
}

/* Recursive Python functions whose body is `return EXPR` were read to a fixed depth of 16
 * (PYFUNC_SHAPE_DEPTH) and their value was then "computed by the script" (QD2062); and
 * `a if c else b` evaluated both sides (gcd's a % b with b == 0: QD2023, fib's recursion never
 * ended). Now they run as Python runs them, bounded by the depth and calls budgets. */
#define RECURSIVE P "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\n\n" \
    "def gcd(a, b):\n    return a if b == 0 else gcd(b, a % b)\n\n\n" \
    "def ack(m, n):\n    return n + 1 if m == 0 else (ack(m - 1, 1) if n == 0 else ack(m - 1, ack(m, n - 1)))\n\n\n" \
    "def down(n):\n    return 0 if n == 0 else down(n - 1) + 1\n\n\n" \
    "def even(n):\n    return True if n == 0 else odd(n - 1)\n\n\n" \
    "def odd(n):\n    return False if n == 0 else even(n - 1)\n\n\n"
#define STORE4 "out = qd.field(qd.i64, shape=(4,))\n\n\n@qd.kernel\ndef k():\n    out[0] = a\n    out[1] = b\n    out[2] = c\n    out[3] = d\n"
Test(eval_budget, recursive_return_functions, .timeout = 60) {
    char *ir = ir_of(RECURSIVE "a = fib(20)\nb = gcd(1071 * 10**30, 462 * 10**30) // 10**30\nc = ack(2, 3)\nd = down(90) + (7 if even(60) and odd(61) else 0)\n"
                     STORE4, NULL);
    cr_expect(strstr(ir, "store field out[0:i32]:i64 = 6765:i64\n"), "%s", ir);
    cr_expect(strstr(ir, "store field out[1:i32]:i64 = 21:i64\n"), "%s", ir);
    cr_expect(strstr(ir, "store field out[2:i32]:i64 = 9:i64\n"), "%s", ir);
    cr_expect(strstr(ir, "store field out[3:i32]:i64 = 97:i64\n"), "%s", ir);
    free(ir);
    /* in a kernel: the same, the condition's side chosen at compile time */
    ir = ir_of(RECURSIVE "out = qd.field(qd.i64, shape=())\n\n\n@qd.kernel\ndef k():\n    out[None] = fib(15) + gcd(12, 18)\n", NULL);
    cr_expect(strstr(ir, "store field out[]:i64 = 616:i64\n"), "%s", ir);
    free(ir);
    /* past the depth budget: located at the call one level too deep; raising the budget compiles it */
    const char *deep = RECURSIVE "x = down(150)\n" USE_X;
    expect_diag(deep, NULL, "g.py:16:29: error[QD2026]: compile-time evaluation exceeds its budget of 100 " DEPTH
                            " 16 |     return 0 if n == 0 else down(n - 1) + 1\n    |                             ^~~~~~~~~~~\n");
    ir = ir_of(deep, "--eval-limit=depth=200");
    cr_expect(strstr(ir, "store field out[]:i64 = 150:i64\n"), "%s", ir);
    free(ir);
    expect_diag(P "def f(n):\n    return f(n + 1)\n\n\nx = f(0)\n" USE_X, NULL,
                "g.py:4:12: error[QD2026]: compile-time evaluation exceeds its budget of 100 " DEPTH
                " 4 |     return f(n + 1)\n   |            ^~~~~~~~\n");
    /* fib(25) makes 242785 calls: the calls budget, in bounded time and memory */
    expect_budget(RECURSIVE "x = fib(25)\n" USE_X,
                  "g.py:4:28: error[QD2026]: compile-time evaluation exceeds its budget of 100000 compile-time function calls (host helpers, "
                  "Python functions, data-oriented __init__); raise it with --eval-limit=calls=N\n"
                  " 4 |     return n if n < 2 else fib(n - 1) + fib(n - 2)\n   |                            ^~~~~~~~~~\n");
}

/* Recursion through a data-oriented class's methods and through closures (nested functions):
 * their values were "computed by the script" (QD2062); now exact, and runaway recursion is the
 * depth budget at the recursive call. */
#define CLASS P "@qd.data_oriented\nclass M:\n    def __init__(self, base):\n        self.base = base\n\n" \
    "    def fact(self, n):\n        return 1 if n == 0 else n * self.fact(n - 1)\n\n" \
    "    def run(self, n):\n        if n == 0:\n            return self.base\n        return self.run(n - 1) + 1\n\n" \
    "    def away(self, n):\n        return self.away(n + 1)\n\n\n"
#define CLOSURES "def outer(k):\n    def inner(n):\n        return k if n == 0 else inner(n - 1) + 1\n    return inner(10)\n\n\n" \
    "def outer2(k):\n    def inner(n):\n        if n == 0:\n            return k\n        return inner(n - 1) * 2\n    return inner(30)\n\n\n" \
    "def runaway(k):\n    def inner(n):\n        if n < 0:\n            return k\n        return inner(n + 1)\n    return inner(0)\n\n\n"
Test(eval_budget, recursive_methods_and_closures, .timeout = 60) {
    char *ir = ir_of(CLASS CLOSURES "m = M(7)\na = m.fact(25) % 1000000007\nb = m.run(50)\nc = outer(5) + outer(6)\nd = outer2(1)\n" STORE4, NULL);
    cr_expect(strstr(ir, "store field out[0:i32]:i64 = 440732388:i64\n"), "%s", ir); /* 25! mod 1e9+7 */
    cr_expect(strstr(ir, "store field out[1:i32]:i64 = 57:i64\n"), "%s", ir);
    cr_expect(strstr(ir, "store field out[2:i32]:i64 = 31:i64\n"), "%s", ir); /* each call's closure sees its own k */
    cr_expect(strstr(ir, "store field out[3:i32]:i64 = 1073741824:i64\n"), "%s", ir);
    free(ir);
    expect_budget(CLASS "m = M(7)\nx = m.away(0)\n" USE_X,
                  "g.py:17:16: error[QD2026]: compile-time evaluation exceeds its budget of 100 " DEPTH
                  " 17 |         return self.away(n + 1)\n    |                ^~~~~~~~~~~~~~~~\n");
    expect_budget(P CLOSURES "x = runaway(1)\n" USE_X,
                  "g.py:21:16: error[QD2026]: compile-time evaluation exceeds its budget of 100 " DEPTH
                  " 21 |         return inner(n + 1)\n    |                ^~~~~~~~~~~~\n");
}

/* A lambda called by host code was QD2019 ("a qd.func can only be called inside a kernel"):
 * now Python's value, recursion included, under the same budgets. */
Test(eval_budget, recursive_lambdas, .timeout = 60) {
    char *ir = ir_of(P "fact = lambda n: 1 if n == 0 else n * fact(n - 1)\nadd = lambda a, b=10: a + b\n\n\n"
                     "def mk(k):\n    f = lambda n: k if n == 0 else f(n - 1) + 1\n    return f(5)\n\n\n"
                     "a = fact(30) % 1000003\nb = add(1) + add(1, 2)\nc = mk(100)\nd = 0\n" STORE4, NULL);
    cr_expect(strstr(ir, "store field out[0:i32]:i64 = 90317:i64\n"), "%s", ir); /* 30! mod 1000003 */
    cr_expect(strstr(ir, "store field out[1:i32]:i64 = 14:i64\n"), "%s", ir);
    cr_expect(strstr(ir, "store field out[2:i32]:i64 = 105:i64\n"), "%s", ir);
    free(ir);
    expect_budget(P "away = lambda n: away(n + 1)\nx = away(0)\n" USE_X,
                  "g.py:3:18: error[QD2026]: compile-time evaluation exceeds its budget of 100 " DEPTH
                  " 3 | away = lambda n: away(n + 1)\n   |                  ^~~~~~~~~~~\n");
}

/* Everything that names the budgets is made from budget.def's rows: --eval-limit's usage
 * error, --help and qdc(1) (man/update-qdc1.sh). A row added to budget.def and not to the
 * manual fails here. */
Test(eval_budget, names_come_from_budget_def) {
    char *def_path = root_path("frontend/py/budget.def"), *man_path = root_path("man/qdc.1");
    char *def = read_text(def_path, NULL), *man = read_text(man_path, NULL);
    cr_assert(def && man);
    RunResult help = run_qdc("--help", NULL), bad = run_qdc("--eval-limit=nosuch=1", NULL);
    cr_expect_eq(bad.status, 2);
    int rows = 0;
    for (const char *l = strstr(def, "\nX(EB_"); l; l = strstr(l + 1, "\nX(EB_")) {
        char name[32], code[16];
        long long dflt, max;
        cr_assert_eq(sscanf(l, "\nX(EB_%*[A-Z_], \"%31[a-z]\", %lld, %lld, %15[A-Z0-9],", name, &dflt, &max, code), 4, "%.80s", l);
        char *item = xasprintf(".B %s\ndefault %lld, at most ", name, dflt), *word = xasprintf(" %s", name);
        cr_expect(strstr(man, item), "man/qdc.1 lacks the budget %s: run man/update-qdc1.sh", name);
        cr_expect(strstr(help.out, word), "--help lacks the budget %s", name);
        cr_expect(strstr(bad.err, name), "the usage error lacks the budget %s: %s", name, bad.err);
        free(item), free(word);
        rows++;
    }
    cr_expect_eq(rows, 8);
    cr_expect(strstr(bad.err, "(steps, size, depth, calls, inlines, kernels, unroll or loop)"), "%s", bad.err);
    cr_expect(strstr(man, "default 100, at most 1000, QD2026: nested calls"), "the depth budget's row");
    run_free(&help), run_free(&bad);
    free(def), free(man), free(def_path), free(man_path);
}

/* testdata/eval-adversarial/: issue 29's third round of adversarial scripts (deep comprehensions,
 * dict and set growth, string formatting growth, getattr chains, loops that never end,
 * recursion through methods, closures and `return EXPR` functions). The first line of each says
 * what it must give: "# expect: value N" (exit 0, out[None] = N) or
 * "# expect: error LINE:COL CODE TEXT" (exit 1, exactly one error, there, whose message has
 * TEXT); each in < 2 CPU-s and < 300 MiB (ASan: 5x), no output after an error. */
Test(eval_budget, adversarial_corpus, .timeout = 240) {
    char *dir = root_path("testdata/eval-adversarial");
    DIR *d = opendir(dir);
    cr_assert(d, "cannot open %s", dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".py")) continue;
        char *path = xasprintf("%s/%s", dir, e->d_name), *text = read_text(path, NULL);
        cr_assert(text, "cannot read %s", path);
        int line = 0, col = 0;
        long long value = 0;
        char code[16] = "", what[160] = "";
        bool error = sscanf(text, "# expect: error %d:%d %15s %159[^\n]", &line, &col, code, what) == 4;
        cr_assert(error || sscanf(text, "# expect: value %lld", &value) == 1, "%s: no '# expect:' line", e->d_name);
        Outcome o = compile(text, NULL);
        double slack = asan() ? 5 : 1;
        if (o.cpu_s >= 0) {
            cr_expect_lt(o.cpu_s, 2 * slack, "%s: %.2f CPU-s", e->d_name, o.cpu_s);
            cr_expect_lt(o.rss_mib, 300 * slack, "%s: %ld MiB", e->d_name, o.rss_mib);
        }
        if (error) {
            char *at = xasprintf("g.py:%d:%d: error[%s]: ", line, col, code);
            cr_expect_eq(o.status, 1, "%s: exit %d: %s", e->d_name, o.status, o.err);
            cr_expect(!strncmp(o.err, at, strlen(at)), "%s: want %s...; got %s", e->d_name, at, o.err);
            cr_expect(strstr(o.err, what), "%s: want '%s' in %s", e->d_name, what, o.err);
            const char *first = strstr(o.err, "error[");
            cr_expect(first && !strstr(first + 1, "error["), "%s: not exactly one error: %s", e->d_name, o.err);
            cr_expect(!o.wrote, "%s: an output was written after an error", e->d_name);
            free(at);
        } else {
            cr_expect_eq(o.status, 0, "%s: exit %d: %s", e->d_name, o.status, o.err);
            char *ir = ir_of(text, NULL), *want = xasprintf("store field out[]:i64 = %lld:i64\n", value);
            cr_expect(strstr(ir, want), "%s: want %s in %s", e->d_name, want, ir);
            free(ir), free(want);
        }
        free(o.err), free(text), free(path);
        n++;
    }
    closedir(d);
    cr_expect_geq(n, 20);
    free(dir);
}

/* A host loop's iterations keep no memory (issue 29 item 3): a loop whose body only rebinds
 * names runs each iteration in an arena of its own (py/sema_param.c, IterMem). 10^5 and 5 *
 * 10^5 iterations of a while loop and of a for loop over range(...) compile with the same
 * memory, within 20 MiB (before: about 580 B per iteration, 232 MB more for the larger loop), to
 * the value Python computes. */
static char *counting_loops(int n) {
    return xasprintf(P "n = 0\ni = 0\nwhile i < %d:\n    i += 1\n    if i %% 3 == 0:\n        n = n + i * 2\n    else:\n        n -= 1\n"
                       "m = 0\nfor j in range(%d):\n    m += j %% 7\n"
                       "out = qd.field(qd.i64, shape=2)\n\n@qd.kernel\ndef k():\n    out[0] = n + i\n    out[1] = m\n\nk()\n", n, n);
}

Test(eval_budget, host_loop_memory_is_constant, .timeout = 120) {
    long rss[2] = {0, 0};
    int sizes[2] = {100000, 500000};
    for (int k = 0; k < 2; k++) {
        char *t = counting_loops(sizes[k]);
        Outcome o = compile_with(t, "--eval-limit=steps=10000000", "--eval-limit=loop=1000000");
        cr_expect_eq(o.status, 0, "exit %d: %s", o.status, o.err);
        cr_expect_str_eq(o.err, "");
        rss[k] = o.rss_mib;
        free(o.err), free(t);
    }
    if (access("/usr/bin/time", X_OK) == 0) cr_expect_lt(rss[1] - rss[0], 20, "%ld MiB for 10^5 iterations, %ld MiB for 5 * 10^5", rss[0], rss[1]);
    char *t = counting_loops(500000), *dir = make_temp_dir(), *src = xasprintf("%s/g.py", dir);
    cr_assert(write_text(src, t));
    RunResult r = run_qdc("--emit=ir", "--eval-limit=steps=10000000", "--eval-limit=loop=1000000", src, "-o", "-", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    /* what Python computes: n + i = 83333333332, m = 1499994 */
    cr_expect(strstr(r.out, "store field out[0:i32]:i64 = 83333333332:i64") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "store field out[1:i32]:i64 = 1499994:i64") != NULL, "%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(t);
}

/* A kernel defined in a host loop longer than the loop budget: the loop is not run, so the
 * kernel is never defined; an input whose kernels all sit there says so (QD2068 at the kernel,
 * naming the budget), instead of "the module defines no kernels" and exit 0. */
Test(eval_budget, kernel_in_a_loop_past_the_budget) {
    expect_py_refused("g.py",
                      "import quadrants as qd\n\nx = qd.field(qd.i32, shape=4)\n\nfor i in range(100):\n"
                      "    @qd.kernel\n    def k():\n        x[0] = 1\n\n    k()\n",
                      "g.py:7:9: error[QD2068]: the input defines kernels but compiles none: 'k' is defined in a host loop qdc "
                      "does not run (its names are set in a for loop that runs more than 64 times (qdc evaluates at most 64 "
                      "iterations of a host loop, its loop budget: raise it with --eval-limit=loop=N))\n"
                      " 7 |     def k():\n   |         ^\n");
}
