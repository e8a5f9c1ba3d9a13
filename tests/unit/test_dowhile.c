/* Graph kernels (`while qd.graph.do_while(c):`, qdc-lang(7) "Graph kernels", qdc-abi(7) "Do-while
 * loops"): what Quadrants rejects gets its message (exact text and position, exit 1, no output),
 * the metadata and the headers describe the loops, and lavapipe repeats the loops' entry points
 * exactly (vkrun --loop). x86 runs on 1-8 threads are testdata/lang/dowhile.py. */
#include "../../support/util.h"
#include "harness.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAD "import quadrants as qd\n\nf = qd.field(qd.i32, shape=())\n\n"
#define PARAMS "x: qd.types.ndarray(qd.i32, ndim=1), c: qd.types.ndarray(qd.i32, ndim=0)"

/* The source fails: exit 1, no output file, stderr starts with `want` (the first line of the
 * diagnostic, exactly), and there is one error. */
static void expect_error(const char *body, const char *want) {
    char *text = xasprintf(HEAD "%s", body);
    expect_g_py_first_error(text, want);
    free(text);
}

Test(dowhile, quadrants_errors) {
    expect_error("@qd.kernel\ndef k(" PARAMS "):\n    while qd.graph.do_while(c):\n        for i in range(x.shape[0]):\n"
                 "            x[i] = x[i] + 1\n",
                 "g.py:7:11: error[QD2086]: qd.graph.do_while() requires @qd.kernel(graph=True)\n"
                 " 7 |     while qd.graph.do_while(c):\n   |           ^~~~~~~~~~~~~~~~~~~~\n");
    const char *unresolved = "does not resolve to an ndarray kernel parameter of 'k'. The argument must reference an ndarray "
                             "kernel parameter (e.g. `flag`) or a @qd.data_oriented member ndarray (e.g. `self.flag`); other "
                             "expressions are not supported.\n";
    char *want = xasprintf("g.py:7:29: error[QD2086]: qd.graph.do_while(...) got 'nonexistent' which %s", unresolved);
    expect_error("@qd.kernel(graph=True)\ndef k(" PARAMS "):\n    while qd.graph.do_while(nonexistent):\n"
                 "        for i in range(x.shape[0]):\n            x[i] = x[i] + 1\n", want);
    free(want);
    want = xasprintf("g.py:7:29: error[QD2086]: qd.graph.do_while(...) got 'f' which %s", unresolved); /* a field */
    expect_error("@qd.kernel(graph=True)\ndef k(" PARAMS "):\n    while qd.graph.do_while(f):\n        x[0] = 1\n", want);
    free(want);
    want = xasprintf("g.py:7:29: error[QD2086]: qd.graph.do_while(...) got 'c[()]' which %s", unresolved);
    expect_error("@qd.kernel(graph=True)\ndef k(" PARAMS "):\n    while qd.graph.do_while(c[()]):\n        x[0] = 1\n", want);
    free(want);
    expect_error("@qd.kernel(graph=True)\ndef k(" PARAMS "):\n    for _ in range(2):\n        while qd.graph.do_while(c):\n"
                 "            x[0] = 1\n",
                 "g.py:8:15: error[QD2086]: qd.graph.do_while() must be at the kernel top level or directly nested inside "
                 "another qd.graph.do_while(); it cannot appear inside a for-loop.\n");
    expect_error("@qd.kernel(graph=True)\ndef k(x: qd.types.ndarray(qd.f32, ndim=1)):\n    while qd.graph.do_while(x):\n"
                 "        x[0] = 1.0\n",
                 "g.py:7:29: error[QD2086]: the condition of qd.graph.do_while() must be a qd.i32 ndarray (its element 0 is "
                 "read); 'x' is an ndarray of f32\n");
    expect_error("@qd.kernel(graph=True)\ndef k(" PARAMS "):\n    \"\"\"doc\"\"\"\n    while c[()] > 0:\n        c[()] -= 1\n"
                 "    while qd.graph.do_while(c):\n        x[0] = 1\n",
                 "g.py:8:5: error[QD2086]: When a kernel uses qd.graph.do_while(), the kernel body may not contain a While "
                 "statement. Allowed: for-loops, qd.graph.do_while() while-loops, bare assignments, and @qd.func calls "
                 "(freely mixed and nested). [offending stmt 1: While]\n");
    expect_error("@qd.kernel(graph=True)\ndef k(" PARAMS "):\n    while qd.graph.do_while(c):\n        x[0] = 1\n        pass\n",
                 "g.py:9:9: error[QD2086]: When a kernel uses qd.graph.do_while(), a qd.graph.do_while() body may not "
                 "contain a Pass statement. Allowed: for-loops, qd.graph.do_while() while-loops, bare assignments, and "
                 "@qd.func calls (freely mixed and nested). [offending stmt 1: Pass]\n");
    expect_error("@qd.kernel(graph=True)\ndef k(" PARAMS "):\n    if x[0] > 0:\n        while qd.graph.do_while(c):\n"
                 "            x[0] = 1\n",
                 "g.py:8:15: error[QD2086]: qd.graph.do_while() under a run-time 'if' is not supported: the host repeats the "
                 "loop's tasks and cannot see the condition; use 'if qd.static(...)' or move the loop out of the 'if'\n");
    expect_error("@qd.kernel(graph=True)\ndef k(" PARAMS "):\n    while qd.graph.do_while(c, x):\n        x[0] = 1\n",
                 "g.py:7:11: error[QD2086]: qd.graph.do_while() takes one argument: the condition ndarray (a 0-d qd.i32 "
                 "ndarray kernel parameter)\n");
    expect_error("@qd.kernel(graph=True)\ndef k(" PARAMS "):\n    qd.loop_config(block_dim=8)\n    while qd.graph.do_while(c):\n"
                 "        x[0] = 1\n",
                 "g.py:7:5: error[QD2017]: qd.loop_config must directly precede a top-level for loop\n");
}

#define NESTED                                                                                                             \
    "import quadrants as qd\n\n@qd.kernel(graph=True)\n"                                                                  \
    "def k(x: qd.types.ndarray(qd.i32, ndim=1), outer: qd.types.ndarray(qd.i32, ndim=0), inner: qd.types.ndarray(qd.i32, " \
    "ndim=0)):\n"                                                                                                          \
    "    while qd.graph.do_while(outer):\n        inner[()] = 2\n        while qd.graph.do_while(inner):\n"                \
    "            for i in range(x.shape[0]):\n                x[i] = x[i] + 1\n            inner[()] = inner[()] - 1\n"    \
    "        outer[()] = outer[()] - 1\n"

static char *emit(const char *dir, const char *target, const char *kind) {
    char *t = xasprintf("--target=%s", target), *e = xasprintf("--emit=%s", kind);
    const char *argv[] = {t, e, "-o", "-", "g.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 0, "%s %s: exit %d: %s", target, kind, r.status, r.err);
    cr_expect_str_eq(r.err, "", "%s %s: diagnostics", target, kind);
    char *out = xstrdup(r.out ? r.out : "");
    run_free(&r);
    free(t), free(e);
    return out;
}

/* The loops in the metadata (C ABI and SPIR-V), the GPU header's description and the x86
 * launcher's libqdrt table: first and last task, the enclosing loop, the condition parameter. */
Test(dowhile, metadata_and_headers) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/g.py", dir);
    cr_assert(write_text(src, NESTED));
    const char *loops = "{\"first_task\": 0, \"last_task\": 3, \"parent\": -1, \"condition\": {\"param\": \"outer\", \"index\": 1, "
                        "\"element\": 0, \"dtype\": \"i32\", \"as_written\": \"outer\"}},\n";
    const char *inner = "{\"first_task\": 1, \"last_task\": 2, \"parent\": 0, \"condition\": {\"param\": \"inner\", \"index\": 2, "
                        "\"element\": 0, \"dtype\": \"i32\", \"as_written\": \"inner\"}}]";
    char *m = emit(dir, "sm_90", "metadata");
    char *want = xasprintf("\"shared_bytes\": 0}],\n     \"loops\": [%s               %s}\n  ]\n}\n", loops, inner);
    cr_expect(strstr(m, want), "sm_90 metadata:\n%s\nwant:\n%s", m, want);
    free(m), free(want);
    m = emit(dir, "vulkan1.3", "metadata");
    want = xasprintf("\"groups\": 1}\n      ],\n      \"loops\": [%s                 %s\n    }\n", loops, inner);
    cr_expect(strstr(m, want), "vulkan1.3 metadata:\n%s\nwant:\n%s", m, want);
    free(m), free(want);
    m = emit(dir, "gfx942", "header");
    cr_expect(strstr(m, "} k_args;\n/* k repeats tasks (qd.graph.do_while, qdc-abi(7)): run the tasks in order; after a loop's "
                        "last task, while\n   element 0 of its condition ndarray is non-zero, continue at its first task (loops "
                        "ending there: innermost first).\n   loop 0: tasks 0..3 while outer (parameter 1)\n   loop 1: tasks "
                        "1..2 while inner (parameter 2), inside loop 0\n   k_LOOPS: {first task, last task, condition parameter "
                        "index} per loop, outer loops first */\n#define k_NLOOPS 2\n#define k_LOOPS {{0, 3, 1}, {1, 2, 2}}\n"),
              "gfx942 header:\n%s", m);
    free(m);
    m = emit(dir, "x86_64", "header");
    cr_expect(strstr(m, "    static const qdrt_loop loops[] = {\n        {0, 3, (int32_t)offsetof(k_args, outer)},\n"
                        "        {1, 2, (int32_t)offsetof(k_args, inner)},\n    };\n"
                        "    return qdrt_launch_loops(tasks, 4, loops, 2, args, nthreads);\n}\n"),
              "x86_64 header:\n%s", m);
    free(m);
    m = emit(dir, "x86_64", "ir");
    cr_expect(strstr(m, "  loop 0 tasks 0..3 while outer[0]\n  loop 1 tasks 1..2 while inner[0] in loop 0\n"), "ir:\n%s", m);
    free(m);
    remove_tree(dir);
    free(dir), free(src);
}

/* lavapipe: the nested loops' entry points repeat as the counters say (outer 3, inner reset to 2
 * each pass: 6 increments), a kernel whose flag starts at 0 still runs once, two loops that end
 * at one entry repeat the inner one first (outer 4 x inner 2), and a parallel loop's bound read
 * from device memory covers exactly that many items. */
Test(dowhile, vulkan_runs_the_loops, .timeout = 120) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/g.py", dir), *spv = xasprintf("%s/g.spv", dir);
    cr_assert(write_text(src, NESTED "\n@qd.kernel(graph=True)\ndef once(x: qd.types.ndarray(qd.i32, ndim=1), "
                                     "outer: qd.types.ndarray(qd.i32, ndim=0), inner: qd.types.ndarray(qd.i32, ndim=0)):\n"
                                     "    while qd.graph.do_while(outer):\n        for i in range(x.shape[0]):\n"
                                     "            x[i] = x[i] + 10\n"
                                     "\n@qd.kernel(graph=True)\ndef tail(x: qd.types.ndarray(qd.i32, ndim=1), "
                                     "outer: qd.types.ndarray(qd.i32, ndim=0), inner: qd.types.ndarray(qd.i32, ndim=0)):\n"
                                     "    while qd.graph.do_while(outer):\n        outer[()] = outer[()] - 1\n"
                                     "        inner[()] = 2\n        while qd.graph.do_while(inner):\n"
                                     "            for i in range(x.shape[0]):\n                x[i] = x[i] + 1\n"
                                     "            inner[()] = inner[()] - 1\n"
                                     "\n@qd.kernel\ndef dyn(x: qd.types.ndarray(qd.i32, ndim=1), "
                                     "outer: qd.types.ndarray(qd.i32, ndim=0), inner: qd.types.ndarray(qd.i32, ndim=0)):\n"
                                     "    for i in range(inner[()]):\n        x[i] = x[i] + outer[()]\n"));
    const char *argv[] = {"--target=vulkan1.3", "-o", spv, "g.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *meta = emit(dir, "vulkan1.3", "metadata");
    enum { N = 300 };
    int32_t x[N] = {0}, outer = 3, inner = 0;
    VkArray arr[3] = {{x, sizeof x, N}, {&outer, 4, 0}, {&inner, 4, 0}};
    char *err = NULL;
    const char *k[] = {"k"};
    int rc = vk_run(dir, spv, meta, k, 1, arr, 3, NULL, N, VK_FULL, true, &err);
    cr_expect_geq(rc, 0, "vkrun: %s", err);
    if (rc > 0) {
        int bad = 0;
        for (int i = 0; i < N; i++) bad += x[i] != 6;
        cr_expect(!bad && outer == 0 && inner == 0, "x[0] = %d (want 6), outer %d, inner %d", x[0], outer, inner);
    }
    free(err);
    outer = 0;
    const char *o[] = {"once"};
    rc = vk_run(dir, spv, meta, o, 1, arr, 3, NULL, N, VK_FEW, false, &err);
    cr_expect_geq(rc, 0, "vkrun: %s", err);
    if (rc > 0) cr_expect(x[0] == 16 && x[N - 1] == 16 && outer == 0, "do-while runs once: x[0] = %d (want 16)", x[0]);
    free(err);
    outer = 4; /* both loops end at the inner loop's last entry: the inner one is checked first */
    const char *t[] = {"tail"};
    rc = vk_run(dir, spv, meta, t, 1, arr, 3, NULL, N, VK_FULL, false, &err);
    cr_expect_geq(rc, 0, "vkrun: %s", err);
    if (rc > 0) cr_expect(x[0] == 24 && x[N - 1] == 24 && outer == 0 && inner == 0, "tail: x[0] = %d (want 24)", x[0]);
    free(err);
    outer = 7, inner = 100; /* a parallel loop's bound read from device memory */
    const char *d[] = {"dyn"};
    rc = vk_run(dir, spv, meta, d, 1, arr, 3, NULL, N, VK_FEW, true, &err);
    cr_expect_geq(rc, 0, "vkrun: %s", err);
    if (rc > 0) cr_expect(x[0] == 31 && x[99] == 31 && x[100] == 24 && x[N - 1] == 24, "dyn: x[99] = %d (want 31), x[100] = %d", x[99], x[100]);
    free(err), free(meta);
    remove_tree(dir);
    free(dir), free(src), free(spv);
}
