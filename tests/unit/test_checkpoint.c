/* Checkpoints of graph kernels (`@qd.kernel(graph=True, checkpoints=True)`, `with
 * qd.checkpoint(cp_id, yield_on=flag):`, qdc-lang(7) "Checkpoints", qdc-abi(7) "Checkpoints"):
 * Quadrants' rejections with its message (exact text and position, exit 1, no output), the
 * implicit checkpoints of top-level for loops in the IR, the metadata, and x86 runs of the
 * launchers <k> / <k>_resume on 1 and 4 threads: what ran, whether and where it yielded. */
#include "../../support/util.h"
#include "harness.h"
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAD "import quadrants as qd\n\n"
#define PARAMS "x: qd.types.ndarray(qd.i32, ndim=1), flag: qd.types.ndarray(qd.i32, ndim=0)"
#define DECO "@qd.kernel(graph=True, checkpoints=True)\ndef k(" PARAMS "):\n"
#define LOOP "        for i in range(x.shape[0]):\n            x[i] = x[i] + 1\n"
#define LOOP2 "            for i in range(x.shape[0]):\n                x[i] = x[i] + 1\n"

/* The source fails: exit 1, no output file, stderr starts with `want` exactly, one error. */
static void expect_error(const char *body, const char *want) {
    char *text = xasprintf(HEAD "%s", body);
    expect_g_py_first_error(text, want);
    free(text);
}

Test(checkpoint, quadrants_errors) {
    expect_error("@qd.kernel(checkpoints=True)\ndef k(" PARAMS "):\n    for i in range(x.shape[0]):\n        x[i] = 1\n",
                 "g.py:3:2: error[QD2020]: @qd.kernel(checkpoints=True) requires graph=True\n");
    expect_error("@qd.kernel(graph=True)\ndef k(" PARAMS "):\n    with qd.checkpoint(0, yield_on=flag):\n" LOOP,
                 "g.py:5:10: error[QD2086]: qd.checkpoint() found in kernel 'k', but this kernel was not decorated with "
                 "`checkpoints=True`. Add `checkpoints=True` to the decorator -- e.g. `@qd.kernel(graph=True, "
                 "checkpoints=True)` -- to opt into the pause / resume model.\n"
                 " 5 |     with qd.checkpoint(0, yield_on=flag):\n   |          ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
    expect_error(DECO "    with qd.checkpoint():\n" LOOP,
                 "g.py:5:10: error[QD2086]: qd.checkpoint() takes two arguments: `qd.checkpoint(cp_id, yield_on=flag)`.\n");
    expect_error(DECO "    with qd.checkpoint(0):\n" LOOP,
                 "g.py:5:10: error[QD2086]: qd.checkpoint() is missing required argument `yield_on` (e.g. "
                 "`qd.checkpoint(0, yield_on=overflow_flag)`)\n");
    expect_error(DECO "    with qd.checkpoint(\"a\", yield_on=flag):\n" LOOP,
                 "g.py:5:24: error[QD2086]: qd.checkpoint() first argument must be an int literal or an IntEnum value (e.g. "
                 "`Stage.SIM`). Got an unresolvable expression at line 5; the cp_id");
    expect_error(DECO "    with qd.checkpoint(1, yield_on=flag):\n" LOOP "    with qd.checkpoint(1, yield_on=flag):\n" LOOP,
                 "g.py:8:24: error[QD2086]: qd.checkpoint(cp_id=1, ...) declares a cp_id that is already used by another "
                 "checkpoint in kernel 'k'.");
    expect_error(DECO "    with qd.checkpoint(0, yield_on=nope):\n" LOOP,
                 "g.py:5:36: error[QD2086]: qd.checkpoint(yield_on=...) got 'nope' which does not resolve to an ndarray kernel "
                 "parameter of 'k'.");
    expect_error(DECO "    with qd.checkpoint(0, yield_on=flag[()]):\n" LOOP,
                 "g.py:5:36: error[QD2086]: qd.checkpoint(yield_on=...) must reference a kernel ndarray argument -- e.g. "
                 "`yield_on=flag` for a bare parameter");
    expect_error(DECO "    with qd.checkpoint(0, yield_on=flag, when=1):\n" LOOP,
                 "g.py:5:42: error[QD2086]: qd.checkpoint() got unexpected keyword argument 'when'; only 'cp_id' and "
                 "'yield_on' are supported\n");
    expect_error(DECO "    with qd.checkpoint(0, yield_on=flag):\n        with qd.checkpoint(1, yield_on=flag):\n" LOOP2,
                 "g.py:6:14: error[QD2086]: qd.checkpoint() cannot be nested inside another qd.checkpoint(); checkpoints in "
                 "the same kernel must be flat siblings (a checkpoint inside qd.graph.do_while is fine)\n");
    expect_error(DECO "    with qd.checkpoint(0, yield_on=flag):\n        x[0] = 1\n",
                 "g.py:6:9: error[QD2086]: qd.checkpoint() body cannot contain a bare top-level Assign statement (line 6): "
                 "every top-level statement in a checkpoint must be inside a for-loop (or other control-flow construct), so "
                 "the compiler can lower it as its own offloaded task with the correct cp_id. Wrap the statement in `for _ in "
                 "range(1):` to keep the original intent:\n\n    with qd.checkpoint(cp_id, yield_on=flag):\n        for _ in "
                 "range(1):\n");
    expect_error(DECO "    with qd.graph.parallel_context():\n        with qd.graph.parallel():\n" LOOP2,
                 "g.py:5:10: error[QD2086]: qd.graph.parallel_context() is not supported in a @qd.kernel(graph=True, "
                 "checkpoints=True) kernel");
    /* a for loop is an implicit checkpoint: one inside it is nested (as in Quadrants) */
    expect_error(DECO "    for j in range(2):\n        with qd.checkpoint(0, yield_on=flag):\n" LOOP2,
                 "g.py:6:14: error[QD2086]: qd.checkpoint() cannot be nested inside another qd.checkpoint();");
    /* host code: K.resume(..., from_checkpoint=L) with L no label of K (Quadrants raises RuntimeError there) */
    const char *res = DECO "    with qd.checkpoint(10, yield_on=flag):\n" LOOP "    with qd.checkpoint(4, yield_on=flag):\n" LOOP
                      "\nx = qd.ndarray(qd.i32, shape=(4,))\nf = qd.ndarray(qd.i32, shape=())\n";
    char *src = xasprintf("%sk.resume(x, f, from_checkpoint=999)\n", res);
    expect_error(src, "g.py:14:32: error[QD2086]: from_checkpoint=999 does not match any qd.checkpoint(cp_id=...) in kernel 'k'. "
                      "Available cp_id labels (source-declaration order): [10, 4].\n");
    free(src);
    src = xasprintf("%sk.resume(x, f, from_checkpoint=\"bad\")\n", res);
    expect_error(src, "g.py:14:32: error[QD2086]: from_checkpoint= must be an int or IntEnum value matching a "
                      "`qd.checkpoint(cp_id=...)` label in the kernel (typically `status.checkpoint` from the previous launch's "
                      "GraphStatus); got 'bad'.\n");
    free(src);
    src = xasprintf("%sk.resume(x, f, from_checkpoint=4)\nk.resume(x, f, from_checkpoint=x.shape[0])\nk(x, f)\n"
                    "k.resume(x, f, from_checkpoint=999)\n", res); /* the labels pass; a run-time value is not judged */
    expect_error(src, "g.py:17:32: error[QD2086]: from_checkpoint=999 does not match");
    free(src);
    expect_error(DECO "    if x[0] > 0:\n        with qd.checkpoint(0, yield_on=flag):\n" LOOP2,
                 "g.py:6:14: error[QD2086]: qd.checkpoint() must stand at the kernel's top level or directly in a "
                 "qd.graph.do_while() body: its tasks are what a launch skips or stops after\n");
}

/* Implicit checkpoints: every top-level for loop outside a `with qd.checkpoint` (in a do-while
 * body too), in source order with the explicit ones; the code before them is in none. */
#define KERNEL                                                                                                           \
    HEAD "from enum import IntEnum\n\nclass Stage(IntEnum):\n    LOAD = 0\n    SIM = 5\n\n" DECO                          \
         "    x[0] = x[0] + 1000\n"                             /* t0: prologue, no checkpoint */                     \
         "    for i in range(x.shape[0]):\n        x[i] = x[i] + 1\n" /* t1: implicit checkpoint 0 */                 \
         "    with qd.checkpoint(Stage.SIM, yield_on=flag):\n"  /* checkpoint 1 */                                    \
         "        for i in range(x.shape[0]):\n            x[i] = x[i] + 10\n"                                           \
         "        if x[1] >= 100:\n            flag[None] = 1\n" /* t3: a serial task of checkpoint 1 */               \
         "    for i in range(x.shape[0]):\n        x[i] = x[i] + 100\n" /* t4: implicit checkpoint 2 */               \
         "    with qd.checkpoint(7, yield_on=flag):\n"          /* checkpoint 3 */                                    \
         "        for i in range(x.shape[0]):\n            x[i] = x[i] + 10000\n"

static char *emit(const char *dir, const char *target, const char *kind) {
    char *t = xasprintf("--target=%s", target), *e = xasprintf("--emit=%s", kind);
    const char *argv[] = {t, e, "-o", "-", "g.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 0, "%s %s: exit %d: %s", target, kind, r.status, r.err);
    char *out = xstrdup(r.out ? r.out : "");
    run_free(&r);
    free(t), free(e);
    return out;
}

Test(checkpoint, ir_metadata_header) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/g.py", dir);
    cr_assert(write_text(src, KERNEL));
    char *m = emit(dir, "x86_64", "ir");
    cr_expect(strstr(m, "  checkpoint 0 implicit\n  checkpoint 1 label 5 (Stage.SIM) yield_on flag[0]\n  checkpoint 2 implicit\n"
                        "  checkpoint 3 label 7 (7) yield_on flag[0]\n  task k_t0 serial\n"),
              "ir:\n%s", m);
    cr_expect(strstr(m, "task k_t1 parallel extent=(max:i32 (shape x 0) 0:i32) index=%0 checkpoint 0\n"), "ir:\n%s", m);
    cr_expect(strstr(m, "task k_t3 serial checkpoint 1\n"), "ir:\n%s", m);
    cr_expect(strstr(m, "index=%6 checkpoint 3\n"), "ir:\n%s", m);
    free(m);
    const char *cps = "\"checkpoints\": [{\"first_task\": 1, \"last_task\": 1, \"implicit\": true},\n"
                      "%s{\"first_task\": 2, \"last_task\": 3, \"label\": 5, \"label_as_written\": \"Stage.SIM\", \"yield_on\": "
                      "{\"param\": \"flag\", \"index\": 1, \"element\": 0, \"dtype\": \"i32\", \"as_written\": \"flag\"}},\n"
                      "%s{\"first_task\": 4, \"last_task\": 4, \"implicit\": true},\n"
                      "%s{\"first_task\": 5, \"last_task\": 5, \"label\": 7, \"label_as_written\": \"7\", \"yield_on\": "
                      "{\"param\": \"flag\", \"index\": 1, \"element\": 0, \"dtype\": \"i32\", \"as_written\": \"flag\"}}]";
    const char *pad = "                     ", *vpad = "                       ";
    char *want = xasprintf(cps, pad, pad, pad);
    m = emit(dir, "sm_90", "metadata");
    cr_expect(strstr(m, want), "sm_90 metadata:\n%s\nwant:\n%s", m, want);
    free(m), free(want);
    want = xasprintf(cps, vpad, vpad, vpad);
    m = emit(dir, "vulkan1.3", "metadata");
    cr_expect(strstr(m, want), "vulkan1.3 metadata:\n%s\nwant:\n%s", m, want);
    free(m), free(want);
    m = emit(dir, "x86_64", "header");
    cr_expect(strstr(m, "    static const int32_t task_cp[] = {-1, 0, 1, 1, 2, 3};\n    static const qdrt_checkpoint cps[] = {\n"
                        "        {0, -1}, /* 0: implicit */\n        {5, (int32_t)offsetof(k_args, flag)}, /* 1: Stage.SIM */\n"
                        "        {0, -1}, /* 2: implicit */\n        {7, (int32_t)offsetof(k_args, flag)}, /* 3: 7 */\n    };\n"
                        "    return qdrt_launch_checkpoints(tasks, task_cp, 6, loops, 0, cps, 4, from_checkpoint, args, nthreads, "
                        "status);\n"),
              "x86_64 header:\n%s", m);
    free(m);
    for (int i = 0; i < 4; i++) { /* the device code is the same tasks: every family compiles it */
        static const char *const fam[] = {"gfx942", "apple9", "vulkan1.1", "sm_60"};
        char *t = xasprintf("--target=%s", fam[i]);
        const char *argv[] = {t, "-o", "g.out", "g.py", NULL};
        RunResult r = run_qdc_argv(argv, NULL, dir);
        cr_expect_eq(r.status, 0, "%s: exit %d: %s", fam[i], r.status, r.err);
        run_free(&r);
        free(t);
    }
    remove_tree(dir);
    free(dir), free(src);
}

/* x86: a launch, a yield, a resume by label, an unknown label, a yield inside a do-while that
 * leaves the loop, and a resume into the loop that skips only on its first pass; on 1 and 4
 * threads. */
#define LOOPED                                                                                                           \
    "@qd.kernel(graph=True, checkpoints=True)\n"                                                                         \
    "def w(x: qd.types.ndarray(qd.i32, ndim=1), flag: qd.types.ndarray(qd.i32, ndim=0), c: qd.types.ndarray(qd.i32, "   \
    "ndim=0)):\n"                                                                                                        \
    "    while qd.graph.do_while(c):\n"                                                                                  \
    "        for i in range(1):\n            c[None] = c[None] - 1\n" /* implicit 0 */                                   \
    "        with qd.checkpoint(3, yield_on=flag):\n"                                                                    \
    "            for i in range(x.shape[0]):\n                x[i] = x[i] + 1\n"                                         \
    "            for i in range(1):\n                if x[0] == 102:\n                    flag[None] = 1\n"                \
    "        for i in range(x.shape[0]):\n            x[i] = x[i] + 100\n" /* implicit 2 */

static const char host[] =
    "#include \"d.h\"\n#include <errno.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
    "static int32_t x[64], flag, c;\n"
    "static void show(const char *what, int rc, const qdrt_graph_status *s) {\n"
    "    printf(\"%s rc=%d yielded=%d cp=%d label=%lld x=%d,%d,%d\\n\", what, rc, s->yielded, s->checkpoint, (long long)s->label,\n"
    "           x[0], x[1], x[63]);\n}\n"
    "int main(int argc, char **argv) {\n"
    "    int n = atoi(argv[1]);\n    qdrt_graph_status s;\n"
    "    k_args a = {.x = x, .x_shape = {64}, .flag = &flag};\n"
    "    int rc = k(&a, n, &s);\n    show(\"run\", rc, &s);\n"                        /* 1000+1+10+100+10000, no yield */
    "    for (int i = 0; i < 64; i++) x[i] = 0;\n    x[1] = 99;\n"
    "    rc = k(&a, n, &s);\n    show(\"yield\", rc, &s);\n"                          /* x[1] 100 after SIM: yields there */
    "    flag = 0;\n    rc = k_resume(&a, n, 7, &s);\n    show(\"resume7\", rc, &s);\n" /* prologue, then checkpoint 3 only */
    "    rc = k_resume(&a, n, 0, &s);\n    show(\"unknown\", rc == EINVAL ? 22 : rc, &s);\n" /* implicit: no label */
    "    for (int i = 0; i < 64; i++) x[i] = 0;\n"
    "    w_args b = {.x = x, .x_shape = {64}, .flag = &flag, .c = &c};\n"
    "    c = 5;\n    rc = w(&b, n, &s);\n    printf(\"c=%d \", c);\n    show(\"loop\", rc, &s);\n" /* pass 2 yields: c 3 */
    "    flag = 0;\n    c = 2;\n    rc = w_resume(&b, n, 3, &s);\n    printf(\"c=%d \", c);\n    show(\"loopresume\", rc, &s);\n"
    "    return 0;\n}\n";

Test(checkpoint, x86_yield_and_resume, .timeout = 120) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir(), *qd = xasprintf("%s/cp.py", dir), *src = xasprintf("%s%s", KERNEL, LOOPED);
    cr_assert(write_text(qd, src));
    RunResult r = x86_compile_and_run(dir, qd, "--target=x86_64", host, "1", NULL);
    const char *want = "run rc=0 yielded=0 cp=-1 label=0 x=11111,10111,10111\n"
                       "yield rc=0 yielded=1 cp=1 label=5 x=1011,110,11\n"
                       "resume7 rc=0 yielded=0 cp=-1 label=0 x=12011,10110,10011\n"
                       "unknown rc=22 yielded=0 cp=-1 label=0 x=12011,10110,10011\n"
                       "c=3 loop rc=0 yielded=1 cp=1 label=3 x=102,102,102\n"
                       "c=0 loopresume rc=0 yielded=0 cp=-1 label=0 x=405,405,405\n";
    cr_expect_eq(r.status, 0, "status %d\n%s%s", r.status, r.out, r.err);
    cr_expect_str_eq(r.out, want);
    run_free(&r);
    r = x86_run_host(dir, "4", NULL, NULL);
    cr_expect_eq(r.status, 0, "status %d\n%s%s", r.status, r.out, r.err);
    cr_expect_str_eq(r.out, want);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(qd), free(src);
}
