/* qd.tensor, layout= and qd.ndrange(axes=) (qdc-lang(7), TENSORS): the exact diagnostics of
 * invalid calls (exit 1, no output), the header and metadata of an ndarray with a layout, and
 * the entry names of the instantiations tensors make. Results of running them: the corpus file
 * testdata/lang/tensor.py with its host tensor.c (test_lang.c). */
#include "harness.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const prelude = "import pytest\nimport quadrants as qd\nfrom quadrants._tensor import _with_layout\n\n"
                                   "@qd.kernel\ndef fill(x: qd.Tensor):\n    for i in range(x.shape[0]):\n        x[i, 0] = i\n\n";

/* Compiles prelude + body for x86_64 with extra options; the result and the output's text. */
static RunResult compile(const char *body, const char *emit, char **out_text, bool *wrote) {
    char *dir = make_temp_dir(), *src = NULL, *out = NULL, *text = NULL;
    cr_assert(asprintf(&src, "%s/t.py", dir) > 0 && asprintf(&out, "%s/t.out", dir) > 0 && asprintf(&text, "%s%s", prelude, body) > 0);
    cr_assert(write_text(src, text));
    const char *argv[8] = {"--color=never", "--target=x86_64", "-o", out};
    int n = 4;
    if (emit) argv[n++] = emit;
    argv[n++] = src, argv[n] = NULL;
    RunResult r = run_qdc_argv(argv, NULL, dir);
    *wrote = file_exists(out);
    if (out_text) *out_text = *wrote ? read_text(out, NULL) : NULL;
    remove_tree(dir);
    free(dir), free(src), free(out), free(text);
    return r;
}

static void expect_error(const char *body, const char *want) {
    bool wrote;
    RunResult r = compile(body, NULL, NULL, &wrote);
    cr_expect_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, want), "got:\n%s\nwant a diagnostic: %s", r.err, want);
    cr_expect(!wrote, "an output was written after an error");
    run_free(&r);
}

Test(tensor, invalid_calls) {
    expect_error("a = qd.tensor(qd.f32, shape=(4, 5), layout=(0, 1, 2))\n",
                 "t.py:10:44: error[QD2004]: qd.tensor(layout=...) has 3 entries but the shape has 2 dimensions; they must match");
    expect_error("a = qd.tensor(qd.f32, shape=(4, 5), layout=(0, 0))\n",
                 "error[QD2004]: layout=(0, 0) is not a permutation of range(2)");
    expect_error("a = qd.tensor(qd.f32, shape=(4, 5), backend=qd.Backend.FIELD, layout=(1, 2))\n",
                 "error[QD2004]: layout=(1, 2) is not a permutation of range(2)");
    expect_error("a = qd.tensor(qd.f32, shape=(4, 5), order=\"ji\")\n",
                 "t.py:10:37: error[QD2004]: qd.tensor(...) does not accept order=; pass layout=(...) instead");
    expect_error("a = qd.Vector.tensor(3, qd.f32, shape=(4,), layout=(0,))\n",
                 "error[QD2004]: qd.Vector.tensor(...) does not accept layout=; a vector or matrix tensor has the canonical layout");
    expect_error("a = qd.tensor(qd.f32, shape=(4,), offset=(1,))\n",
                 "error[QD2004]: qd.tensor() got an unexpected keyword argument 'offset'; accepted: backend, dtype, layout, needs_grad, shape");
    expect_error("a = qd.tensor(qd.f32, shape=(3,), backend=42)\n",
                 "t.py:10:43: error[QD2004]: backend= is not a valid qd.Backend; expected qd.Backend.FIELD or qd.Backend.NDARRAY");
    expect_error("a = qd.tensor(qd.types.vector(2, qd.f32), shape=(3, 4), layout=(1, 0))\n",
                 "error[QD2004]: layout= is not supported with a vector or matrix dtype; use qd.Vector.tensor or qd.Matrix.tensor "
                 "without layout=");
    /* the tensor was rejected: its use is not reported again */
    expect_error("a = qd.tensor(qd.f32, shape=(4, 5), layout=(0, 0))\nfill(a)\n", "error[QD2004]");
}

Test(tensor, grad_and_runtime_values) {
    /* an ndarray tensor has an adjoint array (test_autodiff_ndarray.c); an integer one cannot */
    expect_error("a = qd.tensor(qd.i32, shape=(4,), needs_grad=True)\n",
                 "t.py:10:46: error[QD2152]: i32 is not supported for ndarray with `needs_grad=True` or `needs_dual=True`.");
    expect_error("a = qd.tensor(qd.i32, shape=(4,))\n\n@qd.kernel\ndef g(x: qd.types.ndarray()):\n"
                 "    x.grad[0] = 1\n\ng(a)\n",
                 "t.py:14:5: error[QD2152]: i32 is not supported for ndarray with `needs_grad=True` or `needs_dual=True`.");
    expect_error("def test_x(backend):\n    a = qd.tensor(qd.f32, shape=(4, 1), backend=backend)\n    fill(a)\n",
                 "t.py:12:10: error[QD2060]: kernel 'fill' is generic and qdc cannot evaluate this call's argument for 'x'");
    expect_error("def test_x(lay):\n    a = qd.tensor(qd.f32, shape=(4, 1), layout=lay)\n    fill(a)\n",
                 "t.py:12:10: error[QD2060]: kernel 'fill' is generic and qdc cannot evaluate this call's argument for 'x'");
    expect_error("@qd.kernel\ndef k():\n    for i, j in qd.ndrange(3, 4, axes=(0,)):\n        pass\n",
                 "t.py:12:39: error[QD2012]: axes= has 1 entry but qd.ndrange has 2 dimensions");
    expect_error("@qd.kernel\ndef k():\n    for i, j in qd.ndrange(3, 4, axes=(1, 1)):\n        pass\n",
                 "error[QD2012]: axes= must be a permutation of range(2)");
    expect_error("@qd.kernel\ndef k():\n    for i, j in qd.ndrange(3, 4, order=(1, 0)):\n        pass\n",
                 "error[QD2012]: qd.ndrange has no keyword argument 'order' (it takes axes=)");
}

/* A field tensor is a field (needs_grad=True: with its adjoint field, qdc-abi(7) GRADIENTS). */
Test(tensor, accepted_forms) {
    bool wrote;
    char *h = NULL;
    RunResult r = compile("@pytest.mark.parametrize(\"backend\", [qd.Backend.FIELD, qd.Backend.NDARRAY, 0])\n"
                          "def test_a(backend):\n    a = qd.tensor(qd.f32, shape=(4, 3), backend=backend)\n    fill(a)\n"
                          "    g = qd.tensor(qd.f32, shape=(2, 1), backend=qd.Backend.FIELD, needs_grad=True)\n    fill(g)\n"
                          "    b = qd.tensor(qd.i32, (2, 3), layout=(1, 0), needs_grad=False)\n    fill(b)\n"
                          "    c = qd.Matrix.tensor(2, 3, qd.f64, (5,))\n    d = qd.Vector.ndarray(4, qd.u8, shape=(2, 2))\n"
                          "    e = qd.tensor(qd.f32, (7,), layout=None)\n\n    @qd.kernel\n"
                          "    def k(p: qd.types.ndarray(), q: qd.types.ndarray(), r: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
                          "        p[0][1, 2] = q[1, 1][3] + r[0]\n\n    k(c, d, e)\n",
                          "--emit=header", &h, &wrote);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cr_assert(h);
    static const char *const want[] = {
        "extern float qd_field_test_a__FIELD__a[4][3];\n",
        "extern float qd_field_test_a__FIELD__g_grad[2][1];\n",
        "extern float qd_field_test_a__0__a[4][3];\n",
        "typedef struct fill__test_a__FIELD__a_args {",
        "typedef struct fill__test_a__0__a_args {",
        "typedef struct fill__f32_2d_args {",
        "    int32_t *x; /* ndarray[i32, 2], layout (1, 0): storage axis k is canonical axis layout[k]; data and x_shape in "
        "storage order */\n    int32_t x_shape[2];\n} fill__i32_2d_l10_args;",
        "typedef struct test_a__FIELD__k__mat2x3_f64_1d__vec4_u8_2d_args {\n"
        "    double *p; /* ndarray[f64, 3]: the last axes (2, 3) hold each element's matrix */\n    int32_t p_shape[3];\n"
        "    uint8_t *q; /* ndarray[u8, 3]: the last axis (4) holds each element's vector */\n    int32_t q_shape[3];\n"
        "    float *r; /* ndarray[f32, 1] */\n",
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) cr_expect(strstr(h, want[k]), "header lacks:\n%s\n---\n%s", want[k], h);
    free(h);
    run_free(&r);
}

Test(tensor, metadata_layout) {
    bool wrote;
    char *m = NULL;
    RunResult r = compile("def test_b():\n    a = qd.tensor(qd.i32, shape=(6, 2))\n    _with_layout(a, (1, 0))\n    fill(a)\n"
                          "    b = qd.tensor(qd.i32, shape=(6, 2), layout=(0, 1))\n    fill(b)\n",
                          "--emit=metadata", &m, &wrote);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(m);
    cr_expect(strstr(m, "{\"name\": \"x\", \"kind\": \"ndarray\", \"dtype\": \"i32\", \"ndim\": 2, \"layout\": [1, 0]}"), "%s", m);
    cr_expect(strstr(m, "\"fill__i32_2d_l10\""), "%s", m);
    cr_expect(strstr(m, "\"fill__i32_2d\""), "the identity layout is no layout:\n%s", m);
    cr_expect(!strstr(m, "\"layout\": [0, 1]"), "%s", m);
    free(m);
    run_free(&r);
}

/* The host idioms around tensors in Quadrants' tests: itertools.permutations as parametrize
 * values and module constants, numpy dtypes from a parametrized dtype (and numpy's defaults), a
 * helper returning (array, shape) for different tuples, and Quadrants' errors inside
 * pytest.raises blocks (not reported; the array stays as it was). */
Test(tensor, host_idioms) {
    bool wrote;
    char *h = NULL;
    RunResult r = compile("import itertools\nimport numpy as np\n\nPAIRS = list(itertools.permutations(range(3), 2))\n\n"
                          "@pytest.mark.parametrize(\"layout\", list(itertools.permutations(range(2))))\n"
                          "def test_p(layout):\n    a = qd.tensor(qd.i32, shape=(2, 3), layout=layout)\n    fill(a)\n\n"
                          "@pytest.mark.parametrize(\"p\", PAIRS)\ndef test_q(p):\n    x = qd.field(qd.i32, shape=p[0] + 1)\n\n"
                          "    @qd.kernel\n    def k():\n        x[p[0]] = p[1]\n\n    k()\n\n"
                          "@pytest.mark.parametrize(\"dtype\", [qd.i32, qd.f32])\ndef test_n(dtype):\n"
                          "    np_dtype = np.float32 if dtype == qd.f32 else np.int32\n    fill(np.zeros((4, 7), dtype=np_dtype))\n"
                          "    fill(np.ones((3, 2)))\n    fill(np.array([[1, 2], [3, 4]]))\n    fill(np.full((2, 2), 1.5, np.float16))\n\n"
                          "def alloc(canonical, layout):\n    physical = tuple(canonical[axis] for axis in layout)\n"
                          "    a = qd.tensor(qd.u16, shape=physical)\n    _with_layout(a, layout)\n    return a, physical\n\n"
                          "def test_h():\n    a, _ = alloc((2, 3), (1, 0))\n    b, _ = alloc((2, 3), (0, 1))\n    fill(a)\n    fill(b)\n"
                          "    with pytest.raises(ValueError):\n        _with_layout(b, (0, 1, 2))\n"
                          "    with pytest.raises(ValueError):\n        c = qd.tensor(qd.f32, (2,), layout=(0, 0))\n    fill(b)\n",
                          "--emit=header", &h, &wrote);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cr_assert(h);
    static const char *const want[] = {
        "typedef struct fill__i32_2d_args {", "typedef struct fill__i32_2d_l10_args {",
        "extern int32_t qd_field_test_q__p0__x[1];\n", "extern int32_t qd_field_test_q__p1__x[1];\n",
        "extern int32_t qd_field_test_q__p2__x[2];\n", "extern int32_t qd_field_test_q__p5__x[3];\n",
        "typedef struct test_q__p3__k_args {", "typedef struct fill__f32_2d_args {", "typedef struct fill__f64_2d_args {",
        "typedef struct fill__i64_2d_args {", "typedef struct fill__f16_2d_args {", "typedef struct fill__u16_2d_l10_args {",
        "typedef struct fill__u16_2d_args {",
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) cr_expect(strstr(h, want[k]), "header lacks:\n%s\n---\n%s", want[k], h);
    cr_expect(!strstr(h, "test_q__p6__"), "permutations(range(3), 2) has 6 items:\n%s", h);
    free(h);
    run_free(&r);
}

/* Arrays whose dtype torch's or numpy's rules make evident: torch.Tensor is float32, torch.tensor
 * of ints int64, .double()/.to(torch.int16) convert, .to(device) keeps; x.to_numpy() of a field
 * is a plain array (a vector field's components as the last axis). */
Test(tensor, torch_and_to_numpy) {
    bool wrote;
    char *h = NULL;
    RunResult r = compile("import numpy as np\nimport torch\n\n@qd.kernel\ndef load(y: qd.types.ndarray()):\n"
                          "    for i in range(4):\n        y[i] = y[i] + 1\n\n"
                          "def test_t():\n    x = qd.field(qd.u8, shape=(4,))\n    v = qd.Vector.field(3, qd.f64, shape=(4,))\n"
                          "    load(torch.Tensor(np.ones(shape=4, dtype=np.int32)).to(\"cpu\"))\n"
                          "    load(torch.tensor([1, 2, 3]))\n    load(torch.zeros(4).double())\n"
                          "    fill(torch.ones((2, 2), dtype=torch.int32).to(torch.int16).contiguous())\n"
                          "    load(x.to_numpy())\n    fill(v.to_numpy())\n",
                          "--emit=header", &h, &wrote);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(h);
    static const char *const want[] = {
        "typedef struct load__f32_1d_args {", "typedef struct load__i64_1d_args {", "typedef struct load__f64_1d_args {",
        "typedef struct fill__i16_2d_args {", "typedef struct load__u8_1d_args {", "typedef struct fill__f64_2d_args {",
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) cr_expect(strstr(h, want[k]), "header lacks:\n%s\n---\n%s", want[k], h);
    free(h);
    run_free(&r);
    /* torch.zeros(n) of a run-time n is still 1-d; a tensor of unknown dtype stays a precise QD2060 */
    expect_error("import torch\n\ndef test_u(data):\n    fill(torch.tensor(data))\n",
                 "t.py:13:10: error[QD2060]: kernel 'fill' is generic and qdc cannot evaluate this call's argument for 'x'");
}

/* numpy's random arrays (f64; randint i64), a numpy type passed to a helper, and a generic
 * kernel whose instantiation Quadrants rejects at a call inside pytest.raises: no diagnostic and
 * no entry for it (the same call outside such a block is reported). */
Test(tensor, random_and_expected_failures) {
    bool wrote;
    char *h = NULL;
    const char *body = "import numpy as np\n\n@qd.kernel\ndef one(y: qd.types.ndarray()):\n    y[0] = 1\n\n"
                       "def with_type(dt):\n    one(np.zeros(3, dtype=dt))\n\n"
                       "def test_r():\n    rng = np.random.RandomState(3)\n    fill(np.random.randn(4, 3))\n    one(rng.rand(5))\n"
                       "    one(np.random.randint(0, 9, size=(6,)).astype(np.int16))\n    with_type(np.uint32)\n"
                       "    with pytest.raises(qd.QuadrantsCompilationError):\n        one(np.zeros((2, 2), dtype=np.int8))\n";
    RunResult r = compile(body, "--emit=header", &h, &wrote);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cr_assert(h);
    static const char *const want[] = {"typedef struct fill__f64_2d_args {", "typedef struct one__f64_1d_args {",
                                       "typedef struct one__i16_1d_args {", "typedef struct one__u32_1d_args {"};
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) cr_expect(strstr(h, want[k]), "header lacks:\n%s\n---\n%s", want[k], h);
    cr_expect(!strstr(h, "one__i8_2d"), "an instantiation the script expects to fail has no entry:\n%s", h);
    free(h);
    run_free(&r);
    expect_error("import numpy as np\n\n@qd.kernel\ndef one(y: qd.types.ndarray()):\n    y[0] = 1\n\none(np.zeros((2, 2), dtype=np.int8))\n",
                 "t.py:14:7: error[QD2011]: 'y' has 2 dimensions but 1 index was given");
}

/* qd.wrap / ._unwrap are the same tensor; None for a qd.Tensor or qd.template() parameter (the
 * kernel's qd.static(x is None) decides), chosen by a conditional expression too;
 * NDArray[dtype, None] is generic in ndim; a field declared again in a host loop is NAME__def2. */
Test(tensor, wrappers_and_none) {
    bool wrote;
    char *h = NULL;
    RunResult r = compile("@qd.kernel\ndef add(out: qd.types.NDArray[qd.f32, 1], b: qd.Tensor, t: qd.types.NDArray[qd.i32, None]):\n"
                          "    for i in range(out.shape[0]):\n        if qd.static(b is not None):\n            out[i] = b[i]\n"
                          "        else:\n            out[i] = 1.0\n\n"
                          "@pytest.mark.parametrize(\"kind\", [\"none\", \"bare\"])\ndef test_w(kind):\n"
                          "    out = qd.ndarray(qd.f32, shape=(4,))\n    b = qd.ndarray(qd.f32, shape=(4,))\n"
                          "    t = qd.ndarray(qd.i32, shape=(2, 2))\n    add(out, qd.wrap(b)._unwrap(), t)\n"
                          "    later = None if kind == \"none\" else b\n    add(out, later, t)\n\n"
                          "def test_loop():\n    for backend in [qd.Backend.FIELD, qd.Backend.FIELD]:\n"
                          "        x = qd.tensor(qd.i32, shape=(4, 2), backend=backend)\n        fill(x)\n",
                          "--emit=header", &h, &wrote);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cr_assert(h);
    static const char *const want[] = {
        "typedef struct add__f32_1d__i32_2d_args {", "typedef struct add__None__i32_2d_args {",
        "extern int32_t qd_field_test_loop__x[4][2];\n", "extern int32_t qd_field_test_loop__x__def2[4][2];\n",
        "typedef struct fill__test_loop__x_args {", "typedef struct fill__test_loop__x__def2_args {",
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) cr_expect(strstr(h, want[k]), "header lacks:\n%s\n---\n%s", want[k], h);
    free(h);
    run_free(&r);
}
