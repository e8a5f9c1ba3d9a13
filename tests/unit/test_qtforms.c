/* Forms of Quadrants' own test kernels (issue 30), run on x86 with exact results on 1, 2 and 8
 * threads and compiled for every family: stores at a run-time index into local vectors and
 * matrices (testdata/qtforms/vecstore.py); kernel-scope `with` blocks, qd.stream_parallel() and
 * qd.graph.parallel_context() / qd.graph.parallel() (testdata/qtforms/withblocks.py), and what
 * Quadrants rejects of them, with its message. */
#include "../../support/util.h"
#include "harness.h"
#include "test_x86.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char vecstore_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]), bad = 0;\n"
    "    int32_t ret[3] = {0};\n"
    "    shared_vec_args sa = {.n = 7};\n"
    "    if (shared_vec(&sa, nt, ret)) return 2;\n"
    "    printf(\"shared_vec %d %d %d\\n\", ret[0], ret[1], ret[2]);\n"
    "    private_mat_args pa = {.k = 1};\n"
    "    if (private_mat(&pa, nt)) return 2;\n"
    "    for (int t = 0; t < 4; t++)\n"
    "        for (int c = 0; c < 6; c++) bad += qd_field_rows[t][c] != (c == (t % 2) * 3 + (t + 1) % 3 ? -1.0f : (float)c);\n"
    "    printf(\"private_mat %d bad\\n\", bad);\n"
    "    for (int rep = 0; rep < 2; rep++) {\n"
    "        scalar_loop_args la = {.n = 100};\n"
    "        if (scalar_loop(&la, nt)) return 2;\n"
    "        printf(\"scalar_loop %d %d %d %d\\n\", qd_field_out[0], qd_field_out[1], qd_field_out[2], qd_field_out[3]);\n"
    "    }\n"
    "    return 0;\n}\n";

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

Test(qtforms, vecstore_runs_on_x86, .timeout = 120) {
    /* Quadrants' test_local_matrix_non_constant_index gives [24, 30, 19]; + n = 7. Each residue r of
     * 0..99 mod 4 sums to 1200 + 25 r, twice (the vector starts at zero on every launch). */
    run_x86("vecstore.py", vecstore_host,
            "shared_vec 31 37 26\nprivate_mat 0 bad\nscalar_loop 1200 1225 1250 1275\nscalar_loop 1200 1225 1250 1275\n");
}

/* testdata/qtforms/NAME compiles for a family of each backend in one run, with no diagnostic,
 * and its --stats line contains `stats`. */
static void every_family(const char *name, const char *stats) {
    char *rel = xasprintf("testdata/qtforms/%s", name), *src = root_path(rel), *dir = make_temp_dir(), *out = xasprintf("%s/o.%%t", dir);
    RunResult r = run_qdc("--target=sm_90,gfx942,vulkan1.3,apple8,x86_64", "--stats", src, "-o", out, NULL);
    cr_expect_eq(r.status, 0, "%s: %s", name, r.err);
    cr_expect_str_eq(r.err, "", "%s", name);
    cr_expect(strstr(r.out, stats), "%s: no '%s' in %s", name, stats, r.out);
    run_free(&r);
    remove_tree(dir);
    free(rel), free(src), free(dir), free(out);
}

/* Every family compiles it: the store is a chain of conditional stores, no target feature; the
 * atomic `+=` per component of the promoted vector: 4 in scalar_loop. */
Test(qtforms, vecstore_every_family, .timeout = 120) {
    every_family("vecstore.py", "3 kernels (shared_vec, private_mat, scalar_loop), 7 tasks, 4 atomics");
}

static const char withblocks_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]), bad = 0;\n"
    "    int32_t x[64], n = 5;\n"
    "    for (int i = 0; i < 64; i++) x[i] = i;\n"
    "    streams_args sa = {.k = 3};\n"
    "    if (streams(&sa, nt)) return 2;\n"
    "    for (int i = 0; i < 64; i++) bad += qd_field_a[i] != 3 * i || qd_field_b[i] != 2 * (i + 3);\n"
    "    printf(\"streams %d bad\\n\", bad);\n"
    "    sections_args ga = {.x = x, .x_shape = {64}};\n"
    "    if (sections(&ga, nt)) return 2;\n"
    "    for (int i = 0; i < 64; i++)\n"
    "        bad += qd_field_a[i] != 3 * i + 100 || qd_field_b[i] != 2 * (i + 3) + 200 || x[i] != 3 * i || qd_field_c[i] != 4 * i;\n"
    "    printf(\"sections %d bad\\n\", bad);\n"
    "    looped_args la = {.x = x, .x_shape = {64}, .n = &n};\n"
    "    if (looped(&la, nt)) return 2;\n"
    "    for (int i = 0; i < 64; i++) bad += x[i] != 3 * i + 5;\n"
    "    printf(\"looped %d bad, n = %d\\n\", bad, n);\n"
    "    return 0;\n}\n";

Test(qtforms, withblocks_run_on_x86, .timeout = 120) {
    run_x86("withblocks.py", withblocks_host, "streams 0 bad\nsections 0 bad\nlooped 0 bad, n = 0\n");
}

/* Each block is a task list like the kernel's top level: streams has its 3 loops as tasks, the
 * do-while of looped repeats its 2 sections' loops (qdc-abi(7) "Do-while loops"). */
Test(qtforms, withblocks_every_family, .timeout = 120) {
    every_family("withblocks.py", "3 kernels (streams, sections, looped), 12 tasks, 3 atomics");
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

#define LOOP "            for i in range(N):\n                a[i] = i\n"

Test(qtforms, with_rejected_as_quadrants) {
    expect_error("@qd.kernel\ndef k():\n    with qd.stream_parallel() as s:\n        a[0] = 1\n",
                 "w.py:8:5: error[QD2170]: 'with ... as ...' is not supported in Quadrants kernels\n"
                 " 8 |     with qd.stream_parallel() as s:\n   |     ^~~~\n");
    expect_error("@qd.kernel\ndef k():\n    with qd.stream_parallel(), qd.stream_parallel():\n        a[0] = 1\n",
                 "w.py:8:5: error[QD2170]: 'with' in Quadrants kernels only supports a single context manager\n");
    expect_error("@qd.kernel\ndef k():\n    with open('f'):\n        a[0] = 1\n",
                 "w.py:8:10: error[QD2170]: 'with' in Quadrants kernels only supports qd.stream_parallel(), qd.checkpoint(), "
                 "qd.graph.parallel_context(), or qd.graph.parallel()\n 8 |     with open('f'):\n   |          ^~~~~~~~~\n");
    expect_error("@qd.kernel\ndef k():\n    with qd.stream_parallel():\n        for i in range(N):\n            a[i] = i\n"
                 "    a[0] = 5\n",
                 "w.py:11:5: error[QD2170]: When using qd.stream_parallel(), all top-level statements in the kernel must be "
                 "'with qd.stream_parallel():' blocks. Move non-parallel code to a separate kernel. [stmt 1: Assign, body_len=2]\n");
    expect_error("@qd.kernel(graph=True)\ndef k():\n    with qd.stream_parallel():\n        a[0] = 1\n",
                 "w.py:8:10: error[QD2170]: qd.stream_parallel() is not compatible with graph=True kernels. Streams and graphs "
                 "cannot be combined; remove graph=True or the qd.stream_parallel() block.\n");
    expect_error("@qd.func\ndef f():\n    with qd.stream_parallel():\n        a[0] = 1\n\n@qd.kernel\ndef k():\n    f()\n",
                 "w.py:8:10: error[QD2170]: qd.stream_parallel() can only be used inside @qd.kernel, not @qd.func\n");
    expect_error("@qd.kernel\ndef k():\n    with qd.stream_parallel():\n        with qd.stream_parallel():\n" LOOP,
                 "w.py:9:14: error[QD2170]: Nested stream_parallel blocks are not supported\n");
    expect_error("@qd.kernel\ndef k():\n    with qd.graph.parallel_context():\n        with qd.graph.parallel():\n" LOOP,
                 "w.py:8:10: error[QD2086]: qd.graph.parallel_context() requires @qd.kernel(graph=True)\n");
    expect_error("@qd.kernel(graph=True)\ndef k():\n    with qd.graph.parallel():\n        for i in range(N):\n            a[i] = i\n",
                 "w.py:8:10: error[QD2086]: qd.graph.parallel() can only be used directly inside a qd.graph.parallel_context() "
                 "region\n");
    expect_error("@qd.kernel(graph=True)\ndef k():\n    with qd.graph.parallel_context(1):\n        pass\n",
                 "w.py:8:10: error[QD2086]: qd.graph.parallel_context() takes no arguments\n");
    expect_error("@qd.kernel(graph=True)\ndef k():\n    with qd.graph.parallel_context():\n        for i in range(N):\n"
                 "            a[i] = i\n",
                 "w.py:9:9: error[QD2086]: A qd.graph.parallel_context() region may contain only 'with qd.graph.parallel():' "
                 "blocks (optionally inside 'if qd.static(...)' or 'for ... in qd.static(...)'). Move other work outside the "
                 "region. [offending stmt 0: For]\n");
    expect_error("@qd.kernel(graph=True)\ndef k():\n    with qd.graph.parallel_context():\n        with qd.graph.parallel():\n"
                 "            with qd.graph.parallel():\n                a[0] = 1\n",
                 "w.py:10:18: error[QD2086]: qd.graph.parallel() sections cannot be nested inside one another\n");
    expect_error("@qd.kernel(graph=True)\ndef k(c: qd.types.ndarray(qd.i32, ndim=0)):\n    with qd.graph.parallel_context():\n"
                 "        with qd.graph.parallel():\n            while qd.graph.do_while(c):\n                a[0] = 1\n",
                 "w.py:10:19: error[QD2086]: qd.graph.do_while() cannot appear inside a qd.graph.parallel() section; a section "
                 "body must be straight-line task work (put the qd.graph.parallel_context() region inside the "
                 "qd.graph.do_while() loop, not the other way around)\n");
}

/* Script `text` as NAME.py checked for x86_64 (--check --stats): exit `status`, stderr exactly
 * `err`, stdout containing `out` (NULL: not checked). */
static void script_check(const char *name, const char *text, int status, const char *err, const char *out) {
    char *dir = make_temp_dir(), *file = xasprintf("%s.py", name), *src = xasprintf("%s/%s", dir, file);
    cr_assert(write_text(src, text));
    const char *argv[] = {"--color=never", "--target=x86_64", "--check", "--stats", file, NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, status, "%s", r.err);
    cr_expect_str_eq(r.err, err);
    if (out) cr_expect(strstr(r.out, out), "no '%s' in:\n%s", out, r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(file), free(src);
}

/* Quadrants' kernel object in host code (test_py_dataclass.py: `k1._primal.launch_stats`) is a
 * run-time value: the script compiles; a kernel that reads it gets QD2062 at the use, noting where
 * it is set. */
Test(qtforms, kernel_object_attributes_are_host_values) {
    const char *head = "import quadrants as qd\n\na = qd.field(qd.i32, shape=4)\n\n@qd.kernel\ndef k():\n    for i in range(4):\n"
                       "        a[i] = i\n\nk()\nprim = k._primal\nstats = k._primal.launch_stats.kernel_args_count_by_type\n"
                       "assert prim.launch_stats is not None\n";
    script_check("p", head, 0, "", "p: 1 kernel (k), 1 task");
    char *text = xasprintf("%s\n@qd.kernel\ndef uses():\n    a[0] = prim.launch_stats\n", head);
    script_check("p", text, 1,
                 "p.py:17:12: error[QD2062]: 'prim' is a module-level value computed by the script, known only when the "
                 "script runs; kernels can use module constants, fields, qd.func and their own arguments\n"
                 " 17 |     a[0] = prim.launch_stats\n    |            ^~~~\n"
                 "p.py:11:1: note: 'prim' is set here\n 11 | prim = k._primal\n    | ^~~~\n", NULL);
    free(text);
}

/* Explicit streams (Quadrants' test_streams.py): qd.create_stream()/create_event() are run-time
 * handles, `qd_stream=` is accepted by every kernel call, and rejected for a graph=True kernel
 * with Quadrants' message at the keyword. */
Test(qtforms, qd_stream_keyword) {
    const char *head = "import quadrants as qd\n\nx = qd.field(qd.f32, shape=8)\n\n@qd.kernel\ndef fill(v: qd.f32):\n"
                       "    for i in range(8):\n        x[i] = v\n\ns = qd.create_stream()\ne = qd.create_event()\n"
                       "fill(3.0, qd_stream=s)\ne.record(s)\nfill(4.0, qd_stream=None)\ns.synchronize()\ns.destroy()\n";
    script_check("s", head, 0, "", "s: 1 kernel (fill), 1 task");
    char *text = xasprintf("%s\n@qd.kernel(graph=True)\ndef g():\n    for i in range(8):\n        x[i] = 1.0\n\n"
                           "g(qd_stream=None)\ng(qd_stream=s)\n", head);
    script_check("s", text, 1,
                 "s.py:24:3: error[QD2069]: qd_stream is not compatible with graph=True kernels. See "
                 "docs/source/user_guide/streams.md for details. (calling kernel 'g')\n"
                 " 24 | g(qd_stream=s)\n    |   ^~~~~~~~~\n", NULL);
    free(text);
}

/* The same stores on lavapipe (vulkan1.3): the shared vector's threads each write their own
 * component, the `+=` at a run-time index is atomic per component. */
Test(qtforms, vecstore_on_lavapipe, .timeout = 120) {
    static const char src[] =
        "import quadrants as qd\n\n@qd.kernel\ndef vs(o: qd.types.ndarray(qd.i32, ndim=1), n: qd.i32):\n"
        "    tmp = qd.Vector([1, 2, 3])\n    for i in range(3):\n        vec = qd.Vector([4, 5, 6])\n"
        "        for j in range(3):\n            vec[tmp[i] % 3] += vec[j]\n        tmp[i] = vec[tmp[i] % 3] + n\n"
        "    acc = qd.Vector([0, 0, 0, 0])\n    for i in range(100):\n        acc[i % 4] += i\n"
        "    for _ in range(1):\n        for c in range(3):\n            o[c] = tmp[c]\n"
        "        for r in range(4):\n            o[3 + r] = acc[r]\n";
    char *dir = make_temp_dir(), *spv = NULL;
    char *meta = vk_compile(dir, "v", "vulkan1.3", src, &spv);
    int32_t got[7];
    memset(got, 0x55, sizeof got);
    VkArray arr[1] = {{got, sizeof got, 7}};
    const char *kernels[] = {"vs"};
    int32_t n = 7;
    char *err = NULL;
    int rc = vk_run(dir, spv, meta, kernels, 1, arr, 1, &n, 100, VK_FULL, true, &err);
    cr_expect_neq(rc, -1, "%s", err ? err : "");
    if (rc == 1) {
        const int32_t want[7] = {31, 37, 26, 1200, 1225, 1250, 1275};
        for (int i = 0; i < 7; i++) cr_expect_eq(got[i], want[i], "o[%d] = %d, want %d", i, got[i], want[i]);
    }
    free(err), free(meta), free(spv);
    remove_tree(dir);
    free(dir);
}

/* A numpy array passed for an ndarray of vectors (Quadrants' test_ndarray.py
 * _test_compiled_functions): its trailing dimension is the element's, so (6, 10) is a 1-d array of
 * 10-vectors; (6, 10, 10) is 2-d and rejected with Quadrants' wording for a numpy array. */
Test(qtforms, numpy_array_of_vectors_argument) {
    script_check("n", "import numpy as np\nimport quadrants as qd\n\n@qd.kernel\n"
                      "def func(a: qd.types.NDArray[qd.types.vector(10, qd.i32), 1]):\n    for i in range(5):\n"
                      "        a[i][3] = 1\n\nv = np.zeros((6, 10), dtype=np.int32)\nfunc(v)\n"
                      "w = np.zeros((6, 10, 10), dtype=np.int32)\nfunc(w)\n",
                 1, "n.py:12:6: error[QD2069]: Invalid value for argument a - required array has ndim=1 element_dim=1, array with 3 "
                    "dimensions is provided\n"
                    " 12 | func(w)\n    |      ^\n", NULL);
}

/* More forms of Quadrants' own test kernels (suite qtforms2): a def that binds its name again
 * (testdata/qtforms/redef.py), run on x86 with exact results on 1, 2 and 8 threads; the
 * compile-time checks Quadrants makes, ported with its message (exact diagnostics). */

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
                 "w.py:8:5: error[QD2015]: 'add' returns a value but declares no return type: a function with a return value "
                 "must be annotated with a return type, e.g. def add(...) -> qd.i32\n");
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

/* Arithmetic on comparisons: Quadrants types `a > b` as u1 and u1 op u1 as u1 (promoted_type),
 * so + - * are modulo 2, as LLVM's i1 computes them on the CPU and GPU targets. SPIR-V has no
 * integer arithmetic on booleans: the backend computes in u32 and keeps bit 0 (it used to stop
 * with an internal error; found by the ASan campaign, seed 37, m006093). Run on lavapipe. */
Test(qtforms, bool_arithmetic_on_lavapipe, .timeout = 120) {
    static const char src[] =
        "import quadrants as qd\n\n@qd.kernel\ndef b(a: qd.types.ndarray(dtype=qd.u32, ndim=1)):\n"
        "    for i in range(a.shape[0]):\n        a[i] = (a[i] > 1) * (a[i] < 9) + (a[i] > 3) - (a[i] > 4)\n";
    char *dir = make_temp_dir(), *spv = NULL;
    char *meta = vk_compile(dir, "b", "vulkan1.1", src, &spv);
    uint32_t got[10];
    for (int i = 0; i < 10; i++) got[i] = (uint32_t)i;
    VkArray arr[1] = {{got, sizeof got, 10}};
    const char *kernels[] = {"b"};
    char *err = NULL;
    int rc = vk_run(dir, spv, meta, kernels, 1, arr, 1, NULL, 10, VK_FULL, true, &err);
    cr_expect_neq(rc, -1, "%s", err ? err : "");
    if (rc == 1) {
        const uint32_t want[10] = {0, 0, 1, 1, 0, 1, 1, 1, 1, 0};
        for (int i = 0; i < 10; i++) cr_expect_eq(got[i], want[i], "a[%d] = %u, want %u", i, got[i], want[i]);
    }
    free(err), free(meta), free(spv);
    remove_tree(dir);
    free(dir);
}
