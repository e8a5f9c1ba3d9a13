/* Kernels that return a struct or a tuple (issue 15) beyond the CPU run (x86_kernels/struct_return):
 * the header's <kernel>_ret typedef (nested as the type is) and launcher, the metadata's
 * "returns" members on every family, and the located errors for a value of another type. */
#include "../../support/util.h"
#include "harness.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *emit(const char *dir, const char *src, const char *target, const char *what) {
    char *out = xasprintf("%s/out.%s", dir, target), *tgt = xasprintf("--target=%s", target), *e = xasprintf("--emit=%s", what);
    RunResult r = run_qdc(tgt, e, src, "-o", out, NULL);
    cr_expect_eq(r.status, 0, "%s --emit=%s: %s", target, what, r.err);
    char *text = r.status == 0 ? read_text(out, NULL) : NULL;
    run_free(&r);
    remove(out);
    free(out), free(tgt), free(e);
    return text;
}

static void expect_in(const char *text, const char *what, const char *where) {
    cr_expect(text && strstr(text, what), "%s: no\n%s\nin\n%s", where, what, text ? text : "(nothing)");
}

Test(struct_return, header_and_metadata, .timeout = 60) {
    char *dir = make_temp_dir(), *src = root_path("tests/kernels/struct_return.qd");
    char *h = emit(dir, src, "x86_64", "header");
    expect_in(h,
              "typedef struct nested_ret {\n    float a;\n    struct {\n        float a[3];\n        int16_t b;\n    } b;\n"
              "    int32_t m[2][2];\n} nested_ret;\n",
              "x86_64 header");
    expect_in(h, "static inline int nested(const nested_args *args, int nthreads, nested_ret *ret) {", "x86_64 header");
    expect_in(h, "        for (int i = 0; i < 4; i++) ret->m[i / 2][i % 2] = qd_field_qdc_ret_nested_m[i];\n", "x86_64 header");
    expect_in(h, "typedef struct pair_ret {\n    float _0;\n    struct {\n        float a[3];\n        int16_t b;\n    } _1;\n} pair_ret;\n",
              "x86_64 header");
    free(h);
    h = emit(dir, src, "sm_80", "header");
    expect_in(h, "typedef struct pair_ret {", "sm_80 header");
    expect_in(h, "/* pair returns a struct pair_ret, each member in its own field (symbol qd_field_<field>; the metadata's \"returns\"): "
                 "_0 in qdc_ret_pair__0, _1.a in qdc_ret_pair__1_a, _1.b in qdc_ret_pair__1_b */",
              "sm_80 header");
    free(h);
    static const char *const fams[] = {"x86_64", "sm_80", "gfx942", "vulkan1.2", "apple7"};
    for (size_t i = 0; i < ARRAY_LEN(fams); i++) {
        char *meta = emit(dir, src, fams[i], "metadata");
        expect_in(meta, "\"returns\": {\"struct\": [{\"name\": \"_0\", \"dtype\": \"f32\", \"field\": \"qdc_ret_pair__0\", \"symbol\": "
                        "\"qd_field_qdc_ret_pair__0\"}, {\"name\": \"_1.a\", \"dtype\": \"f32\", \"field\": \"qdc_ret_pair__1_a\", "
                        "\"symbol\": \"qd_field_qdc_ret_pair__1_a\", \"shape\": [3]}, {\"name\": \"_1.b\", \"dtype\": \"i16\"",
                  fams[i]);
        expect_in(meta, "{\"name\": \"m\", \"dtype\": \"i32\", \"field\": \"qdc_ret_nested_m\", \"symbol\": \"qd_field_qdc_ret_nested_m\", "
                        "\"shape\": [2, 2]}]}",
                  fams[i]);
        free(meta);
    }
    remove_tree(dir);
    free(dir), free(src);
}

static void expect_error(const char *ret, const char *body, int line, int col, const char *msg) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/e.qd", dir), *out = xasprintf("%s/e.o", dir);
    char *text = xasprintf("import quadrants as qd\n\ns0 = qd.types.struct(a=qd.math.vec3, b=qd.i16)\n"
                           "s2 = qd.types.struct(a=qd.math.vec3, b=qd.i32)\n\n@qd.kernel\ndef k() -> %s:\n%s", ret, body);
    cr_assert(write_text(src, text));
    RunResult r = run_qdc("--target=x86_64", src, "-o", out, NULL);
    char *want = xasprintf("%s:%d:%d: %s\n", src, line, col, msg);
    cr_expect_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    cr_expect(!strncmp(r.err, want, strlen(want)), "want\n%sgot\n%s", want, r.err);
    cr_expect(!file_exists(out), "an output file after an error");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(out), free(text), free(want);
}

/* Quadrants raises QuadrantsCompilationError for a returned value of another type */
Test(struct_return, mismatches) {
    expect_error("s0", "    return s2(a=qd.math.vec3([1, 2, 3]), b=1)\n", 8, 12,
                 "error[QD2040]: the declared return type is a struct, got a struct of other members or member types");
    expect_error("(qd.f32, s0)", "    return 1.0\n", 8, 12, "error[QD2040]: kernel 'k' is declared to return a tuple of 2 values, got a value");
    expect_error("(qd.f32, qd.math.vec3)", "    return 1.0, qd.Vector([1, 2])\n", 8, 12,
                 "error[QD2040]: member '_1' of the declared return type is a 3-vector, got a 2-vector");
    expect_error("tuple[qd.i32, s0]", "    return 1, 2\n", 8, 12, "error[QD2040]: member '_1' of the declared return type is a struct, got a value");
    expect_error("s0", "    return\n", 8, 5, "error[QD2015]: kernel 'k' is declared to return a struct but returns no value");
}

/* Quadrants has no ndarray of structs (qd.ndarray raises for one): a located QD2005 at the dtype */
Test(struct_return, no_struct_ndarray) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/e.qd", dir), *out = xasprintf("%s/e.o", dir);
    cr_assert(write_text(src, "import quadrants as qd\n\nP = qd.types.struct(x=qd.f32, n=qd.i32)\n\n@qd.kernel\n"
                              "def k(a: qd.types.ndarray(dtype=P, ndim=1)):\n    for i in range(a.shape[0]):\n        a[i].x = 1.0\n"));
    RunResult r = run_qdc("--target=x86_64", src, "-o", out, NULL);
    char *want = xasprintf("%s:6:33: error[QD2005]: a struct type is not an ndarray element type (Quadrants: only scalars, vectors "
                           "and matrices; qd.ndarray raises \"is not supported as ndarray element type\"); use a struct field "
                           "(MyStruct.field(shape=...)) or one ndarray per member\n", src);
    cr_expect_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    cr_expect(!strncmp(r.err, want, strlen(want)), "want\n%sgot\n%s", want, r.err);
    cr_expect(!file_exists(out), "an output file after an error");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(out), free(want);
}
