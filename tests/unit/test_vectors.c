/* Vectors, matrices and structs (issue 15): the upstream negative forms get Quadrants' intended
 * error with its exact text, exit 1 and no output; vector atomics fan out in the IR; the
 * header and metadata describe aggregate layouts. */
#include "harness.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRELUDE "import quadrants as qd\n\nv = qd.Vector.field(3, qd.i32, shape=(4,))\n\n@qd.kernel\ndef k():\n    for i in range(4):\n"

static RunResult compile(const char *body, const char *emit, char **out_text) {
    char *dir = make_temp_dir(), *src = NULL, *out = NULL;
    cr_assert(asprintf(&src, "%s/k.qd", dir) > 0 && asprintf(&out, "%s/k.out", dir) > 0);
    char *text = NULL;
    cr_assert(asprintf(&text, PRELUDE "%s", body) > 0);
    cr_assert(write_text(src, text));
    RunResult r = run_qdc("--color=never", emit, src, "-o", out, NULL);
    if (r.status) cr_expect(!file_exists(out), "an output was written after an error");
    if (out_text) *out_text = r.status ? NULL : read_text(out, NULL);
    remove_tree(dir);
    free(dir), free(src), free(out), free(text);
    return r;
}

static void expect_error(const char *body, const char *want) {
    RunResult r = compile(body, "--emit=ir", NULL);
    cr_expect_eq(r.status, 1, "exit %d:\n%s", r.status, r.err);
    cr_expect(strstr(r.err, want), "got:\n%s\nwant:\n%s", r.err, want);
    run_free(&r);
}

Test(vectors, tensor_cas_is_a_type_error) {
    expect_error("        qd.atomic_cas(v[i], qd.Vector([0, 0, 0]), qd.Vector([1, 1, 1]))\n",
                 "k.qd:8:23: error[QD2041]: 'atomic_cas' on a vector or matrix is not supported; apply it to one "
                 "component, e.g. v[i][0]\n");
}

Test(vectors, rvalue_atomic_target) {
    expect_error("        qd.atomic_add(v[i] + 1, 1)\n",
                 "k.qd:8:23: error[QD2031]: cannot use a non-writable target as the first operand of 'atomic_add'\n");
}

Test(vectors, volatile_load_of_a_local_vector) {
    expect_error("        a = qd.Vector([1, 2, 3])\n        b = qd.volatile_load(a)\n",
                 "k.qd:9:30: error[QD2034]: volatile_load requires a global lvalue (a field, ndarray or SharedArray element); "
                 "function-scope local arrays are not visible to other threads\n");
}

Test(vectors, vector_operand_with_a_scalar_target) {
    expect_error("        qd.atomic_add(v[i][0], qd.Vector([1, 2, 3]))\n",
                 "k.qd:8:32: error[QD2041]: unsupported operand type(s) for 'atomic_add': a vector operand needs a vector or matrix target\n");
}

/* One scalar atomic per component, results unused as a statement; the vector of old values
 * (each into its own temporary, in order) when used. */
Test(vectors, atomics_fan_out_per_component) {
    char *ir = NULL;
    RunResult r = compile("        qd.atomic_add(v[i], qd.Vector([1, 2, 3]))\n        old = qd.atomic_max(v[i], 7)\n", "--emit=ir", &ir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    static const char *const want[] = {
        "eval (atomic_add:i32 relaxed device field v[%1, 0:i32]:i32 1:i32 unused",
        "eval (atomic_add:i32 relaxed device field v[%1, 1:i32]:i32 2:i32 unused",
        "eval (atomic_add:i32 relaxed device field v[%1, 2:i32]:i32 3:i32 unused",
        "%2 = (atomic_max:i32 relaxed device field v[%1, 0:i32]:i32 7:i32 ->",
        "%3 = (atomic_max:i32 relaxed device field v[%1, 1:i32]:i32 7:i32 ->",
        "%4 = (atomic_max:i32 relaxed device field v[%1, 2:i32]:i32 7:i32 ->",
    };
    const char *at = ir;
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const char *p = strstr(at, want[k]);
        cr_expect(p, "missing (in order): %s\n%s", want[k], ir);
        if (p) at = p;
    }
    free(ir);
    run_free(&r);
}

Test(vectors, header_and_metadata_describe_the_layout) {
    char *h = NULL, *m = NULL;
    RunResult r = compile("        v[i] = qd.Vector([i, i, i])\n", "--emit=header", &h);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(h, "typedef int32_t qd_vec3_i32[3];\n#endif\nextern qd_vec3_i32 qd_field_v[4];\n"), "%s", h);
    run_free(&r);
    r = compile("        v[i] = qd.Vector([i, i, i])\n", "--emit=metadata", &m);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(m, "\"dtype\": \"i32\", \"shape\": [4, 3], \"element_shape\": [3]}"), "%s", m);
    run_free(&r);
    free(h), free(m);
}

/* m[:, j] = vector stores the column element by element (Genesis' raycast_qd builds a triangle
 * matrix column by column); m[i, :] = vector the row. */
Test(vectors, matrix_slice_store) {
    char *ir = NULL;
    RunResult r = compile("        m = qd.Matrix.zero(qd.i32, 2, 2)\n        for j in qd.static(range(2)):\n"
                          "            m[:, j] = qd.Vector([v[i][j], v[i][2]])\n        m[0, :] = qd.Vector([7, 8])\n"
                          "        v[i][0] = m[1, 0]\n        v[i][1] = m[0, 1]\n",
                          "--emit=ir", &ir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(ir);
    cr_expect(strstr(ir, "    %6 = (load field v[%1, 0:i32]:i32)\n    %7 = (load field v[%1, 2:i32]:i32)\n    %2 = %6\n    %4 = %7\n"
                         "    %8 = (load field v[%1, 1:i32]:i32)\n    %9 = (load field v[%1, 2:i32]:i32)\n    %3 = %8\n    %5 = %9\n"
                         "    %2 = 7:i32\n    %3 = 8:i32\n    store field v[%1, 0:i32]:i32 = %4\n    store field v[%1, 1:i32]:i32 = %3\n") != NULL,
              "%s", ir);
    free(ir);
    run_free(&r);
}
