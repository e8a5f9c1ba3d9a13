/* Rejections with Quadrants' reason (issue 30): each check Quadrants makes when it compiles a
 * kernel, as qdc reports it: exact diagnostic (location, code, Quadrants' sentence in the message,
 * caret), exit status 1, no output file. The forms next to them that compile stay accepted. */
#include "harness.h"
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A qd.func call's arguments, in Quadrants' words (_func_base.py): missing, unexpected, given twice, too many. */
Test(rejects, func_call_arguments) {
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.func\n"
                        "def f(a, b):\n"
                        "    return a + b\n"
                        "\n"
                        "@qd.kernel\n"
                        "def k() -> qd.i32:\n"
                        "    return f(1)\n",
                        "k.py:8:12: error[QD2007]: Missing argument 'b' in call to 'f'\n"
                        " 8 |     return f(1)\n"
                        "   |            ^~~~\n"
                        "k.py:3:10: note: 'b' is declared here\n"
                        " 3 | def f(a, b):\n"
                        "   |          ^\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.func\n"
                        "def f(a, b):\n"
                        "    return a + b\n"
                        "\n"
                        "@qd.kernel\n"
                        "def k() -> qd.i32:\n"
                        "    return f(1, 2, d=3)\n",
                        "k.py:8:20: error[QD2007]: Unexpected argument 'd' in call to 'f'\n"
                        " 8 |     return f(1, 2, d=3)\n"
                        "   |                    ^\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.func\n"
                        "def f(a, b):\n"
                        "    return a + b\n"
                        "\n"
                        "@qd.kernel\n"
                        "def k() -> qd.i32:\n"
                        "    return f(1, a=2)\n",
                        "k.py:8:17: error[QD2007]: Multiple values for argument 'a' in call to 'f'\n"
                        " 8 |     return f(1, a=2)\n"
                        "   |                 ^\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.func\n"
                        "def f(a, b):\n"
                        "    return a + b\n"
                        "\n"
                        "@qd.kernel\n"
                        "def k() -> qd.i32:\n"
                        "    return f(1, 2, 3)\n",
                        "k.py:8:12: error[QD2007]: Too many arguments: 'f' takes 2 arguments, got 3\n"
                        " 8 |     return f(1, 2, 3)\n"
                        "   |            ^~~~~~~~~~\n");
}

/* An undefined name: Quadrants' QuadrantsNameError words. */
Test(rejects, undefined_name) {
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def k() -> qd.i32:\n"
                        "    return value\n",
                        "k.py:4:12: error[QD2001]: Name \"value\" is not defined\n"
                        " 4 |     return value\n"
                        "   |            ^~~~~\n");
}

/* A run-time range takes one or two arguments (Quadrants' build_range_for); qdc accepted a step before. */
Test(rejects, range_with_a_step) {
    expect_k_py_refused("import quadrants as qd\n"
                        "x = qd.field(qd.i32, shape=8)\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    for i in range(0, 8, 2):\n"
                        "        x[i] = 1\n",
                        "k.py:5:14: error[QD2012]: Range should have 1 or 2 arguments, found 3\n"
                        " 5 |     for i in range(0, 8, 2):\n"
                        "   |              ^~~~~~~~~~~~~~\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "x = qd.field(qd.i32, shape=8)\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    for i in range(8):\n"
                        "        for j in range(8, 0, -1):\n"
                        "            x[j] = i\n",
                        "k.py:6:18: error[QD2012]: Range should have 1 or 2 arguments, found 3\n"
                        " 6 |         for j in range(8, 0, -1):\n"
                        "   |                  ^~~~~~~~~~~~~~~\n");
}

/* A scalar type applied to a literal annotates it (Quadrants' make_constant_expr): the other kind, past the range, a vector. */
Test(rejects, literal_annotations) {
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def k() -> qd.f32:\n"
                        "    return qd.f32(0)\n",
                        "k.py:4:19: error[QD2171]: Integer literals must be annotated with a integer type. For type casting, use `qd.cast`. (qd.f32 of an integer literal; write a float literal such as 1.0)\n"
                        " 4 |     return qd.f32(0)\n"
                        "   |                   ^\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def k() -> qd.i32:\n"
                        "    return qd.i32(0.5)\n",
                        "k.py:4:19: error[QD2171]: Floating-point literals must be annotated with a floating-point type. For type casting, use `qd.cast`. (qd.i32 of a float literal)\n"
                        " 4 |     return qd.i32(0.5)\n"
                        "   |                   ^~~\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def k() -> qd.u32:\n"
                        "    return qd.u16(-1)\n",
                        "k.py:4:19: error[QD2171]: Integer literal -1 exceeded the range of specified dtype: u16\n"
                        " 4 |     return qd.u16(-1)\n"
                        "   |                   ^~\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def k() -> qd.f32:\n"
                        "    v = qd.Vector([1.0, 2.0])\n"
                        "    w = qd.f16(v)\n"
                        "    return w[0]\n",
                        "k.py:5:9: error[QD2171]: A primitive type cannot decorate an expression with a compound type. (qd.f16 of a 2-vector; write qd.cast(v, qd.f16) for each component)\n"
                        " 5 |     w = qd.f16(v)\n"
                        "   |         ^~~~~~~~~\n");
}

/* x[i] = qd.static(...) (Quadrants' build_assign_basic). */
Test(rejects, static_value_for_an_element) {
    expect_k_py_refused("import quadrants as qd\n"
                        "x = qd.field(qd.i32, shape=4)\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    x[0] = qd.static(2)\n",
                        "k.py:5:5: error[QD2171]: Static assign cannot be used on elements in arrays: the value of an element or attribute target cannot be qd.static(...)\n"
                        " 5 |     x[0] = qd.static(2)\n"
                        "   |     ^~~~\n");
}

/* A return under a run-time loop; a kernel and a qd.func declaring a return type without returning. */
Test(rejects, returns) {
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def k() -> qd.i32:\n"
                        "    for i in range(4):\n"
                        "        return i\n",
                        "k.py:5:9: error[QD2015]: return inside a run-time if, for or while is not supported (Quadrants: \"Return inside non-static if/for is not supported\"); assign a result variable instead\n"
                        " 5 |         return i\n"
                        "   |         ^~~~~~\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def k() -> qd.i32:\n"
                        "    pass\n",
                        "k.py:3:12: error[QD2015]: kernel 'k' declares a return type but does not end with 'return value' (Kernel has a return type but does not have a return statement)\n"
                        " 3 | def k() -> qd.i32:\n"
                        "   |            ^~~~~~\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.func\n"
                        "def f() -> qd.i32:\n"
                        "    pass\n"
                        "\n"
                        "@qd.kernel\n"
                        "def k() -> qd.i32:\n"
                        "    return f()\n",
                        "k.py:3:12: error[QD2015]: qd.func 'f' declares a return type but has no 'return value' (Function has a return type but does not have a return statement)\n"
                        " 3 | def f() -> qd.i32:\n"
                        "   |            ^~~~~~\n");
}

/* A vector's transpose() (Quadrants' check_transpose). */
Test(rejects, vector_transpose) {
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def k() -> qd.f32:\n"
                        "    v = qd.Vector([1.0, 2.0])\n"
                        "    m = v @ v.transpose()\n"
                        "    return m[0, 0]\n",
                        "k.py:5:13: error[QD2040]: `transpose()` cannot apply to a vector. If you want something like `a @ b.transpose()`, write `a.outer_product(b)` instead.\n"
                        " 5 |     m = v @ v.transpose()\n"
                        "   |             ^~~~~~~~~~~~~\n");
}

/* qd.ndrange's arguments and its loop variables (Quadrants' _ndrange.py and build_ndrange_for). */
Test(rejects, ndrange_arguments) {
    expect_k_py_refused("import quadrants as qd\n"
                        "x = qd.field(qd.i32, shape=8)\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    for i in qd.ndrange((1, 2, 3)):\n"
                        "        x[i] = 1\n",
                        "k.py:5:25: error[QD2012]: an ndrange dimension is N or (begin, end) (Every argument of ndrange should be a scalar or a tuple/list like (begin, end))\n"
                        " 5 |     for i in qd.ndrange((1, 2, 3)):\n"
                        "   |                         ^~~~~~~~~\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "x = qd.field(qd.i32, shape=8)\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    for i in qd.ndrange((1.5, 4)):\n"
                        "        x[i] = 1\n",
                        "k.py:5:26: error[QD2012]: range bounds must be integers, got f32 (Every argument of ndrange should be an integer scalar or a tuple/list of (int, int))\n"
                        " 5 |     for i in qd.ndrange((1.5, 4)):\n"
                        "   |                          ^~~\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "x = qd.field(qd.i32, shape=8)\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    for i in qd.ndrange(2, 4):\n"
                        "        x[i] = 1\n",
                        "k.py:5:9: error[QD2012]: the loop has 2 dimensions but 1 loop variable (Ndrange for loop with number of the loop variables not equal to the dimension of the ndrange is not supported)\n"
                        " 5 |     for i in qd.ndrange(2, 4):\n"
                        "   |         ^\n");
}

/* A field as an operand of arithmetic (Python's TypeError in Quadrants). */
Test(rejects, field_operand) {
    expect_k_py_refused("import quadrants as qd\n"
                        "x = qd.field(qd.i32, shape=())\n"
                        "@qd.kernel\n"
                        "def k() -> qd.i32:\n"
                        "    a = 1\n"
                        "    return a * x\n",
                        "k.py:6:12: error[QD2032]: unsupported operand type(s) for '*': a value and a field; index the field (x[i], or x[None] for a 0-d field)\n"
                        " 6 |     return a * x\n"
                        "   |            ^~~~~\n");
}

/* raise, a nested def in a qd.func, break out of the parallel loop. */
Test(rejects, statements) {
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    raise ValueError()\n",
                        "k.py:4:5: error[QD1012]: 'raise' is not supported in kernels (Unsupported node \"Raise\")\n"
                        " 4 |     raise ValueError()\n"
                        "   |     ^~~~~\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.func\n"
                        "def f():\n"
                        "    def g():\n"
                        "        pass\n"
                        "\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    f()\n",
                        "k.py:4:5: error[QD1012]: nested function definitions are not supported in kernels (Function definition is not allowed in 'qd.func'.)\n"
                        " 4 |     def g():\n"
                        "   |     ^~~\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "x = qd.field(qd.i32, shape=8)\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    for i in range(8):\n"
                        "        break\n",
                        "k.py:6:9: error[QD2014]: 'break' cannot leave a parallel (top-level) for loop (Cannot break in the outermost loop)\n"
                        " 6 |         break\n"
                        "   |         ^~~~~\n");
}

/* Beside them: qd.static(range(a, b, step)), qd.cast of a literal, a type applied to a variable, qd.cast of a vector, outer_product, a qd.static value through a name. */
Test(rejects, the_forms_beside_them_compile) {
    expect_k_py_compiles("import quadrants as qd\n"
                         "x = qd.field(qd.f32, shape=8)\n"
                         "@qd.kernel\n"
                         "def k(n: qd.i32):\n"
                         "    for i in range(8):\n"
                         "        for j in qd.static(range(6, 0, -2)):\n"
                         "            x[j] += qd.cast(0, qd.f32) + qd.f32(n) + qd.f32(1.0)\n"
                         "        v = qd.Vector([1.0, 2.0])\n"
                         "        h = qd.cast(v, qd.f16)\n"
                         "        m = v.outer_product(v)\n"
                         "        s = qd.static(2)\n"
                         "        x[s] = h[0] + m[0, 1] + qd.u16(65535) + qd.i8(-128)\n");
}

/* A qd.real_func's parameters are annotated, as a kernel's (Quadrants' _func_base, at decoration);
 * the function stays defined, so its calls are not reported again. */
Test(rejects, real_func_parameter_annotation) {
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.real_func\n"
                        "def add(a, b: qd.i32) -> qd.i32:\n"
                        "    return a + b\n"
                        "\n"
                        "@qd.kernel\n"
                        "def k() -> qd.i32:\n"
                        "    return add(1, 2)\n",
                        "k.py:3:9: error[QD2005]: qd.real_func parameter 'a' needs a type annotation (Quadrants kernels parameters "
                        "must be type annotated)\n"
                        " 3 | def add(a, b: qd.i32) -> qd.i32:\n"
                        "   |         ^\n");
}

/* A string as a kernel parameter's annotation (Quadrants: "Invalid type annotation"). */
Test(rejects, string_annotation) {
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def k(x: \"bar\"):\n"
                        "    print(x)\n",
                        "k.py:3:10: error[QD2005]: Invalid type annotation of kernel parameter 'x': the string 'bar' is not a type\n"
                        " 3 | def k(x: \"bar\"):\n"
                        "   |          ^~~~~\n");
}

/* A field declared needs_grad=True / needs_dual=True without a shape, placed by host code that places neither its
 * adjoint or dual field nor calls qd.root.lazy_grad() / lazy_dual(): Quadrants' materialize check (impl.py),
 * struct fields included; placing x.grad, lazy_dual() or a shape= compile. */
Test(rejects, gradient_fields_host_code_places) {
    expect_k_py_refused("import quadrants as qd\n"
                        "a = qd.field(qd.f32, needs_grad=True)\n"
                        "qd.root.dense(qd.i, 4).place(a)\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    for i in range(4):\n"
                        "        a[i] = 1.0\n",
                        "k.py:2:1: error[QD2156]: These field(s) requrie `needs_grad=True`, however their grad field(s) are "
                        "not placed: 'a'. Please consider place the grad field(s), e.g. qd.root.dense(qd.i, 1).place(x.grad), "
                        "or specify a shape for the field(s), e.g. x = qd.field(float, shape=(2, 3), needs_grad=True)\n"
                        " 2 | a = qd.field(qd.f32, needs_grad=True)\n"
                        "   | ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "d = qd.Struct.field({\"m\": qd.f32}, needs_dual=True)\n"
                        "qd.root.dense(qd.i, 4).place(d)\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    for i in range(4):\n"
                        "        d[i].m = 1.0\n",
                        "k.py:2:36: error[QD2063]: These field(s) requrie `needs_dual=True`, however their dual field(s) are "
                        "not placed: host code places this field but not its dual field; place that too (qd.root.dense(qd.i, "
                        "1).place(x.dual)), call qd.root.lazy_dual(), or give the field a shape=\n"
                        " 2 | d = qd.Struct.field({\"m\": qd.f32}, needs_dual=True)\n"
                        "   |                                    ^~~~~~~~~~\n");
    expect_k_py_compiles("import quadrants as qd\n"
                         "a = qd.field(qd.f32, needs_grad=True)\n"
                         "qd.root.dense(qd.i, 4).place(a, a.grad)\n"
                         "b = qd.Vector.field(2, qd.f32, needs_dual=True)\n"
                         "qd.root.dense(qd.i, 4).place(b)\n"
                         "qd.root.lazy_dual()\n"
                         "c = qd.field(qd.f32, shape=4, needs_grad=True)\n"
                         "@qd.kernel\n"
                         "def k():\n"
                         "    for i in range(4):\n"
                         "        a[i] = 1.0 + c[i] + b[i][0]\n");
}

/* qd.floor (ceil, round, the trigonometric functions) of an integer variable (Quadrants' UnaryOpExpression); of a
 * constant it is numpy's, and of a float it compiles. */
Test(rejects, real_inputs_only) {
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def k(n: qd.i32) -> qd.f32:\n"
                        "    a = n + 1\n"
                        "    return qd.floor(2) + qd.sin(qd.f32(a)) + qd.floor(a)\n",
                        "k.py:5:55: error[QD2006]: 'floor' takes real inputs only, however 'i32' is provided\n"
                        " 5 |     return qd.floor(2) + qd.sin(qd.f32(a)) + qd.floor(a)\n"
                        "   |                                                       ^\n");
    expect_k_py_compiles("import quadrants as qd\n"
                         "@qd.kernel\n"
                         "def k(n: qd.i32) -> qd.f32:\n"
                         "    a = n + 1\n"
                         "    return qd.floor(2) + qd.sin(qd.f32(a)) + qd.floor(a * 0.5) + qd.sqrt(a)\n");
}

/* A numpy array made in a kernel (Quadrants' expr.py: only a 0-d one is a value). */
Test(rejects, numpy_array_in_a_kernel) {
    expect_k_py_refused("import numpy as np\n"
                        "import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def k() -> qd.i32:\n"
                        "    a = np.zeros((2, 3), dtype=np.int32)\n"
                        "    return 1\n",
                        "k.py:5:9: error[QD2062]: Only 0-dimensional numpy array can be used to initialize a scalar "
                        "expression (this 2-dimensional array is made by the script when it runs; a kernel takes an array as "
                        "an ndarray argument)\n"
                        " 5 |     a = np.zeros((2, 3), dtype=np.int32)\n"
                        "   |         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
}

/* x.grad in a kernel of a field with no gradient (no needs_grad=True, no lazy_grad()): Quadrants' subscript check
 * (impl.py). */
Test(rejects, gradient_not_placed) {
    expect_k_py_refused("import quadrants as qd\n"
                        "x = qd.field(qd.f32, shape=4)\n"
                        "y = qd.field(qd.f32, shape=4, needs_grad=True)\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    for i in range(4):\n"
                        "        y.grad[i] = x.grad[i]\n",
                        "k.py:7:21: error[QD2044]: Gradient x.grad has not been placed, check whether `needs_grad=True`\n"
                        " 7 |         y.grad[i] = x.grad[i]\n"
                        "   |                     ^~~~~~\n");
}

/* numpy arrays passed to a kernel, in Quadrants' words for external arrays (_template_mapper_hotpath.py): dtype,
 * ndim, ndim with the element's dimensions; the matching calls pass. */
Test(rejects, numpy_arguments) {
    expect_k_py_refused("import numpy as np\n"
                        "import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                        "    for i in a:\n"
                        "        a[i] = i\n"
                        "@qd.kernel\n"
                        "def m(a: qd.types.ndarray(dtype=qd.math.vec3, ndim=1)):\n"
                        "    for i in a:\n"
                        "        a[i][0] = 1.0\n"
                        "k(np.zeros(4, dtype=np.int64))\n"
                        "k(np.zeros((4, 2), dtype=np.int32))\n"
                        "m(np.zeros((4, 3, 3), dtype=np.float32))\n"
                        "k(np.zeros(4, dtype=np.int32))\n"
                        "m(np.zeros((4, 3), dtype=np.float32))\n",
                        "k.py:11:3: error[QD2069]: Invalid value for argument a - required array has dtype=i32, array with "
                        "dtype=i64 is provided\n"
                        " 11 | k(np.zeros(4, dtype=np.int64))\n"
                        "    |   ^~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
                        "k.py:12:3: error[QD2069]: Invalid value for argument a - required array has ndim=1, array with 2 "
                        "dimensions is provided\n"
                        " 12 | k(np.zeros((4, 2), dtype=np.int32))\n"
                        "    |   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
                        "k.py:13:3: error[QD2069]: Invalid value for argument a - required array has ndim=1 element_dim=1, "
                        "array with 3 dimensions is provided\n"
                        " 13 | m(np.zeros((4, 3, 3), dtype=np.float32))\n"
                        "    |   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
}

/* A kernel's ndarray passed to a qd.func whose ndarray annotation fixes another vector element type (Quadrants'
 * check_matched). */
Test(rejects, func_ndarray_element_type) {
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.func\n"
                        "def f(a: qd.types.ndarray(dtype=qd.math.vec2, ndim=1)):\n"
                        "    a[0] = [1.0, 2.0]\n"
                        "@qd.kernel\n"
                        "def k(x: qd.types.ndarray(dtype=qd.math.vec3, ndim=1)):\n"
                        "    f(x)\n",
                        "k.py:7:5: error[QD2007]: Invalid value for argument a - required element type: VectorType[2, f32], "
                        "but [Tensor (3) f32] is provided\n"
                        " 7 |     f(x)\n"
                        "   |     ^~~~\n");
    expect_k_py_compiles("import quadrants as qd\n"
                         "@qd.func\n"
                         "def f(a: qd.types.ndarray(dtype=qd.math.vec3, ndim=1)):\n"
                         "    a[0] = [1.0, 2.0, 3.0]\n"
                         "@qd.kernel\n"
                         "def k(x: qd.types.ndarray(dtype=qd.math.vec3, ndim=1)):\n"
                         "    f(x)\n");
}

/* A qd.real_func's ndarray parameter given an array the script allocates, not the kernel's argument (Quadrants'
 * func.py). */
Test(rejects, real_func_ndarray_from_the_script) {
    expect_k_py_refused("import quadrants as qd\n"
                        "w = qd.ndarray(dtype=qd.f32, shape=(2, 2))\n"
                        "@qd.real_func\n"
                        "def bar(w: qd.types.NDArray[qd.f32, 2]) -> qd.f32:\n"
                        "    return w[1, 1]\n"
                        "@qd.kernel\n"
                        "def foo() -> qd.f32:\n"
                        "    return bar(w)\n",
                        "k.py:8:12: error[QD2062]: Expected ndarray in the kernel argument for argument w, got an array the "
                        "script allocates (a qd.real_func takes an ndarray the kernel receives as its argument)\n"
                        " 8 |     return bar(w)\n"
                        "   |            ^~~~~~\n");
}

/* A Quadrants ndarray of vectors or matrices passed for an ndarray parameter of a scalar element type
 * (Quadrants' check_matched, a TypeError); the f32 ndarray passes. */
Test(rejects, ndarray_of_vectors_for_a_scalar_type) {
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def k(a: qd.types.NDArray[qd.f32, 2]):\n"
                        "    for I in qd.grouped(a):\n"
                        "        a[I] = 2.0\n"
                        "y = qd.ndarray(qd.types.vector(3, qd.i32), shape=(4, 4))\n"
                        "k(y)\n"
                        "z = qd.Matrix.ndarray(2, 2, qd.f32, shape=(4, 4))\n"
                        "k(z)\n"
                        "k(qd.ndarray(qd.f32, shape=(4, 4)))\n",
                        "k.py:7:3: error[QD2069]: Expect element type f32 for argument a, but get [Tensor (3) i32]\n"
                        " 7 | k(y)\n"
                        "   |   ^\n"
                        "k.py:9:3: error[QD2069]: Expect element type f32 for argument a, but get [Tensor (2, 2) f32]\n"
                        " 9 | k(z)\n"
                        "   |   ^\n");
}

/* A vector or matrix field declared without a shape whose components host code places under nodes of
 * different shapes (Quadrants' materialize check); one shape compiles. */
Test(rejects, matrix_field_member_shapes) {
    expect_k_py_refused("import quadrants as qd\n"
                        "a = qd.Vector.field(2, qd.i32)\n"
                        "qd.root.dense(qd.i, 10).place(a.get_scalar_field(0))\n"
                        "qd.root.dense(qd.ij, (2, 3)).place(a.get_scalar_field(1))\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    pass\n",
                        "k.py:2:1: error[QD2063]: Members of the following field have different shapes [(10,), (2, 3)]: host code "
                        "places its components under nodes of different shapes\n"
                        " 2 | a = qd.Vector.field(2, qd.i32)\n"
                        "   | ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
    expect_k_py_compiles("import quadrants as qd\n"
                         "a = qd.Vector.field(2, qd.i32)\n"
                         "qd.root.dense(qd.i, 10).place(a.get_scalar_field(0))\n"
                         "qd.root.dense(qd.i, 10).place(a.get_scalar_field(1))\n"
                         "@qd.kernel\n"
                         "def k():\n"
                         "    a[0][0] = 1\n");
}
/* Quadrants' block scopes: a name first assigned in an if, else, while or for body is gone after it, a loop's
 * variables are the loop's, and a range-for or struct-for cannot reuse a declared name; declared before the block,
 * or as an ndrange / static loop's variable (which shadows), it compiles. */
Test(rejects, block_scopes) {
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def k(n: qd.i32) -> qd.i32:\n"
                        "    if n > 0:\n"
                        "        a = 0\n"
                        "    else:\n"
                        "        a = 1\n"
                        "    return a\n",
                        "k.py:8:12: error[QD2001]: Name \"a\" is not defined\n"
                        " 8 |     return a\n"
                        "   |            ^\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def k(n: qd.i32) -> qd.i32:\n"
                        "    s = 0\n"
                        "    while s < n:\n"
                        "        b = s\n"
                        "        s += 1\n"
                        "    for i in range(n):\n"
                        "        c = i\n"
                        "    for j in qd.static(range(3)):\n"
                        "        s += j\n"
                        "    return b + c + j\n",
                        "k.py:12:12: error[QD2001]: Name \"b\" is not defined\n"
                        " 12 |     return b + c + j\n"
                        "    |            ^\n"
                        "k.py:12:16: error[QD2001]: Name \"c\" is not defined\n"
                        " 12 |     return b + c + j\n"
                        "    |                ^\n"
                        "k.py:12:20: error[QD2001]: Name \"j\" is not defined\n"
                        " 12 |     return b + c + j\n"
                        "    |                    ^\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "x = qd.field(qd.i32, shape=8)\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    i = 0\n"
                        "    for i in range(8):\n"
                        "        x[i] = i\n",
                        "k.py:6:9: error[QD2012]: Variable 'i' is already declared in the outer scope and cannot be used as "
                        "loop variable\n"
                        " 6 |     for i in range(8):\n"
                        "   |         ^\n");
    expect_k_py_compiles("import quadrants as qd\n"
                         "x = qd.field(qd.i32, shape=8)\n"
                         "@qd.kernel\n"
                         "def k(n: qd.i32):\n"
                         "    for t in range(1):\n"
                         "        a = 0\n"
                         "        if n > 0:\n"
                         "            a = 1\n"
                         "        i = 5\n"
                         "        for i, j in qd.ndrange(2, 4):\n"
                         "            x[i * 4 + j] = a\n"
                         "        for i in qd.static(range(2)):\n"
                         "            a += i\n"
                         "        x[0] = a + i\n");
}

static const char scopes_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    for (int n = 0; n < 2; n++) {\n"
    "        for (int k = 0; k < 8; k++) qd_field_out[k] = 0;\n"
    "        scopes_args a = {.n = n};\n"
    "        if (scopes(&a, nt)) return 2;\n"
    "        for (int k = 0; k < 6; k++) printf(\"%d \", qd_field_out[k]);\n"
    "    }\n"
    "    printf(\"\\n\");\n"
    "    return 0;\n}\n";

/* The values of testdata/rejects/block_scopes.py (an ndrange variable shadows the outer i, which stays 100;
 * acc = 36; a = 1 or 2 + 7; k = 3; a + 0 + 1 + 2; g.fill(n + 5) under `if r == n` in a loop fills all of g),
 * for n = 0 and n = 1, on 1, 2 and 4 threads. */
Test(rejects, block_scopes_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/rejects/block_scopes.py", scopes_host, "100 36 1 3 4 60 100 36 9 3 12 72 \n");
}

/* A Python int a kernel variable is given must fit default_ip (Quadrants' make_constant_expr); a typed
 * literal, or default_ip=qd.i64, takes it. */
Test(rejects, literal_past_default_ip) { /* the value must fit default_ip, whatever type qdc gave the literal */
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    b = 0x80000000\n",
                        "k.py:4:9: error[QD2171]: Integer literal 2147483648 exceeded the range of default_ip: i32, please specify the "
                        "dtype via e.g. `qd.u64(2147483648)` or set a different `default_ip` in `qd.init()`\n"
                        " 4 |     b = 0x80000000\n"
                        "   |         ^~~~~~~~~~\n");
    expect_k_py_compiles("import quadrants as qd\n"
                         "@qd.kernel\n"
                         "def k(y: qd.i64) -> qd.i64:\n"
                         "    a = qd.i64(2**31)\n"
                         "    c: qd.i64 = 2**40\n"
                         "    return a + c + y * 0x80000000\n");
    expect_k_py_compiles("import quadrants as qd\n"
                         "qd.init(default_ip=qd.i64)\n"
                         "@qd.kernel\n"
                         "def k() -> qd.i64:\n"
                         "    b = 0x80000000\n"
                         "    return b\n");
    /* a module-level int (an IntEnum member, as Genesis' collider constants) that fits default_ip; one
     * that does not is located at the literal */
    expect_k_py_compiles("import quadrants as qd\n"
                         "from enum import IntEnum\n"
                         "class RC(IntEnum):\n"
                         "    OK = 0\n"
                         "    BIG = 2**40\n"
                         "N = -7\n"
                         "@qd.kernel\n"
                         "def k() -> qd.i32:\n"
                         "    r = RC.OK\n"
                         "    m = N\n"
                         "    return r + m\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "from enum import IntEnum\n"
                        "class RC(IntEnum):\n"
                        "    BIG = 2**40\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    r = RC.BIG\n",
                        "k.py:4:11: error[QD2171]: Integer literal 1099511627776 exceeded the range of default_ip: i32, please specify the "
                        "dtype via e.g. `qd.u64(1099511627776)` or set a different `default_ip` in `qd.init()`\n"
                        " 4 |     BIG = 2**40\n"
                        "   |           ^~~~~\n");
}

/* In debug mode Quadrants checks every access when it runs: a constant index outside its axis at a kernel's
 * top level fails every launch (QD2172); under a run-time if, in a loop, or without debug it stays warning QD2111. */
Test(rejects, debug_out_of_bound) {
    expect_k_py_refused("import quadrants as qd\n"
                        "qd.init(debug=True)\n"
                        "x = qd.field(qd.i32, shape=(8, 16))\n"
                        "y = qd.field(qd.i32, shape=(8,), offset=(-8,))\n"
                        "@qd.kernel\n"
                        "def k(n: qd.i32):\n"
                        "    x[3, 16] = 1\n"
                        "    y[0] = 1\n"
                        "    if n > 0:\n"
                        "        x[8, 0] = 1\n",
                        "k.py:7:10: error[QD2172]: index 16 is out of bounds for axis 1 of 'x' with size 16, and the access runs on "
                        "every launch of kernel 'k': in debug mode Quadrants' bounds check raises there (Out of bound access)\n"
                        " 7 |     x[3, 16] = 1\n"
                        "   |          ^~\n"
                        "k.py:8:7: error[QD2172]: index 0 is out of bounds for axis 0 of 'y' (offset=: indices -8 to -1), and the "
                        "access runs on every launch of kernel 'k': in debug mode Quadrants' bounds check raises there (Out of bound access)\n"
                        " 8 |     y[0] = 1\n"
                        "   |       ^\n"
                        "k.py:10:11: warning[QD2111]: index 8 is out of bounds for axis 0 of 'x' with size 8 [-Windex-out-of-bounds]\n"
                        " 10 |         x[8, 0] = 1\n"
                        "    |           ^\n");
}

/* In debug mode a host call fixes what the compiled kernel does not: its integer arguments and its ndarrays' shapes.
 * An index they make certainly out of bounds on that launch (an ndarray's axis, an element of an ndarray of
 * matrices, a kernel vector; at the top level or in loops over constant ranges, whose extremes are reached) is
 * QD2172 at the index with a note at the call; the valid call beside it compiles. */
Test(rejects, debug_out_of_bound_from_call_arguments) {
    expect_k_py_refused("import quadrants as qd\n"
                        "qd.init(debug=True)\n"
                        "a = qd.ndarray(qd.f32, shape=(4, 6))\n"
                        "m = qd.ndarray(qd.types.matrix(2, 3, qd.f32), shape=(5,))\n"
                        "@qd.kernel\n"
                        "def rd(x: qd.types.ndarray(qd.f32, ndim=2), i: qd.i32) -> qd.f32:\n"
                        "    return x[i, 1]\n"
                        "@qd.kernel\n"
                        "def el(x: qd.types.ndarray(qd.types.matrix(2, 3, qd.f32), ndim=1), r: qd.i32, c: qd.i32) -> qd.f32:\n"
                        "    return x[0][r, c]\n"
                        "@qd.kernel\n"
                        "def vec(i: qd.i32):\n"
                        "    v = qd.Vector([1, 2, 3])\n"
                        "    v[i + 1] = 0\n"
                        "@qd.kernel\n"
                        "def fill(x: qd.types.ndarray(qd.f32, ndim=2)):\n"
                        "    for i, j in qd.ndrange(4, 7):\n"
                        "        x[i, j] = 1.0\n"
                        "rd(a, 3)\n"
                        "rd(a, 4)\n"
                        "el(m, 1, 3)\n"
                        "vec(2)\n"
                        "fill(a)\n",
                        "k.py:7:14: error[QD2172]: index 4 is out of bounds for axis 0 of 'x' with size 4, and the access runs on every "
                        "launch of kernel 'rd' with this call's arguments: in debug mode Quadrants' bounds check raises there (Out of "
                        "bound access)\n"
                        " 7 |     return x[i, 1]\n"
                        "   |              ^\n"
                        "k.py:20:1: note: the call whose arguments make the index 4\n"
                        " 20 | rd(a, 4)\n"
                        "    | ^~~~~~~~\n"
                        "k.py:10:20: error[QD2172]: index 3 is out of bounds for axis 1 of an element of 'x' with size 3, and the access "
                        "runs on every launch of kernel 'el' with this call's arguments: in debug mode Quadrants' bounds check raises "
                        "there (Out of bound access)\n"
                        " 10 |     return x[0][r, c]\n"
                        "    |                    ^\n"
                        "k.py:21:1: note: the call whose arguments make the index 3\n"
                        " 21 | el(m, 1, 3)\n"
                        "    | ^~~~~~~~~~~\n"
                        "k.py:14:7: error[QD2172]: index 3 is out of bounds for axis 0 of 'v' with size 3, and the access runs on every "
                        "launch of kernel 'vec' with this call's arguments: in debug mode Quadrants' bounds check raises there (Out of "
                        "bound access)\n"
                        " 14 |     v[i + 1] = 0\n"
                        "    |       ^~~~~\n"
                        "k.py:22:1: note: the call whose arguments make the index 3\n"
                        " 22 | vec(2)\n"
                        "    | ^~~~~~\n"
                        "k.py:18:14: error[QD2172]: index reaches 6 in its loop, out of bounds for axis 1 of 'x' with size 6, and the "
                        "access runs on every launch of kernel 'fill' with this call's arguments: in debug mode Quadrants' bounds check "
                        "raises there (Out of bound access)\n"
                        " 18 |         x[i, j] = 1.0\n"
                        "    |              ^\n"
                        "k.py:23:1: note: the call whose arguments make the index 6\n"
                        " 23 | fill(a)\n"
                        "    | ^~~~~~~\n");
    /* a qd.graph.do_while body runs at least once; a static range with a step reaches its last value (8) */
    expect_k_py_refused("import quadrants as qd\n"
                        "qd.init(debug=True)\n"
                        "arr = qd.ndarray(qd.f32, shape=(4,))\n"
                        "c = qd.ndarray(qd.i32, shape=())\n"
                        "@qd.kernel(graph=True)\n"
                        "def k(a: qd.types.ndarray(qd.f32, ndim=1), c: qd.types.ndarray(qd.i32, ndim=0)):\n"
                        "    while qd.graph.do_while(c):\n"
                        "        for i in qd.static(range(2, 10, 3)):\n"
                        "            a[i] = 1.0\n"
                        "        for i in range(1):\n"
                        "            c[()] = c[()] - 1\n"
                        "k(arr, c)\n",
                        "k.py:9:15: error[QD2172]: index reaches 8 in its loop, out of bounds for axis 0 of 'a' with size 4, and the "
                        "access runs on every launch of kernel 'k' with this call's arguments: in debug mode Quadrants' bounds check "
                        "raises there (Out of bound access)\n"
                        " 9 |             a[i] = 1.0\n"
                        "   |               ^\n"
                        "k.py:12:1: note: the call whose arguments make the index 8\n"
                        " 12 | k(arr, c)\n"
                        "    | ^~~~~~~~~\n");
}

/* Not certain, so left to the run-time check: an access under a run-time if, in a loop that may break first or
 * whose range is read from memory, in a loop that never runs, an index read from memory or bound under a run-time
 * if, the right of `and`; an affine index whose loop terms cancel (j - j + i) stays in bounds; and without debug
 * mode nothing is refused. */
Test(rejects, debug_out_of_bound_not_certain) {
    expect_k_py_compiles("import quadrants as qd\n"
                         "qd.init(debug=True)\n"
                         "a = qd.ndarray(qd.f32, shape=(4,))\n"
                         "@qd.kernel\n"
                         "def k(x: qd.types.ndarray(qd.f32, ndim=1), n: qd.i32, i: qd.i32):\n"
                         "    if n > 0:\n"
                         "        x[i + 4] = 1.0\n"
                         "    for r in range(1):\n"
                         "        for j in range(8):\n"
                         "            if j >= 4:\n"
                         "                break\n"
                         "            x[j] = 2.0\n"
                         "        for j in range(qd.i32(x[1])):\n"
                         "            x[j + 4] = 3.0\n"
                         "    for j in range(0):\n"
                         "        x[j + 9] = 3.0\n"
                         "    for j in range(6):\n"
                         "        x[j - j + i] = 4.0\n"
                         "    t = i + 1\n"
                         "    if x[2] > 0:\n"
                         "        t = 0\n"
                         "    x[t] = 5.0\n"
                         "    x[qd.i32(x[0]) + 7] = 6.0\n"
                         "    y = n > 0 and x[i + 6] > 0\n"
                         "    v = qd.Vector([1, 2, 3, 4])\n"
                         "    v[i] = 0\n"
                         "    x[i] = 7.0\n"
                         "k(a, 0, 3)\n"
                         "k(a, 9, 0)\n");
    expect_k_py_compiles("import quadrants as qd\n"
                         "a = qd.ndarray(qd.f32, shape=(4, 6))\n"
                         "@qd.kernel\n"
                         "def rd(x: qd.types.ndarray(qd.f32, ndim=2), i: qd.i32) -> qd.f32:\n"
                         "    return x[i, 1]\n"
                         "rd(a, 4)\n");
}

static const char oob_valid_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    (void)argc;\n"
    "    for (int i = 0; i < 3; i++) {\n"
    "        k_args a = {.i = i};\n"
    "        if (k(&a, atoi(argv[1]))) return 2;\n"
    "        for (int j = 0; j < 4; j++) printf(\"%d\\n\", qd_field_out[j]);\n"
    "    }\n"
    "    return 0;\n}\n";

/* The in-bounds calls of a kernel that debug mode checks against the calls' values compile, and the kernel
 * computes what Python does for each index (v = [10, 20, 30]: out = v + v[i], then v[2 - i]) on 1 and 4 threads. */
Test(rejects, debug_in_bounds_calls_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    static const char src[] = "import quadrants as qd\n"
                              "qd.init(debug=True)\n"
                              "out = qd.field(qd.i32, shape=(4,))\n"
                              "@qd.kernel\n"
                              "def k(i: qd.i32):\n"
                              "    v = qd.Vector([10, 20, 30])\n"
                              "    for j in range(3):\n"
                              "        out[j] = v[j] + v[i]\n"
                              "    out[3] = v[2 - i]\n"
                              "k(0)\n"
                              "k(2)\n";
    static const int64_t want[12] = {20, 30, 40, 30, 30, 40, 50, 20, 40, 50, 60, 10};
    const char *threads[] = {"1", "4"};
    for (int t = 0; t < 2; t++) {
        char *dir = make_temp_dir();
        int64_t got[12];
        x86_run_ints(dir, "oob.py", src, oob_valid_host, threads[t], got, 12);
        for (int k = 0; k < 12; k++) cr_expect_eq(got[k], want[k], "%s threads: value %d: got %lld, want %lld", threads[t], k, (long long)got[k], (long long)want[k]);
        remove_tree(dir);
        free(dir);
    }
}

/* Debug mode, BufferView (Quadrants' buffer_view.py asserts): an index outside a view whose size the call's slice
 * fixes, a subview past its parent, a view constructed in the kernel past its ndarray; an in-bounds kernel beside
 * them compiles. */
Test(rejects, debug_buffer_view_out_of_range) {
    expect_k_py_refused("import quadrants as qd\n"
                        "from quadrants import BufferView\n"
                        "qd.init(debug=True)\n"
                        "data = qd.ndarray(qd.f32, shape=(32,))\n"
                        "@qd.kernel\n"
                        "def k(v: BufferView[qd.f32]):\n"
                        "    for i in range(1):\n"
                        "        v[v.size + i] = 1.0\n"
                        "@qd.kernel\n"
                        "def sub(v: BufferView[qd.f32]):\n"
                        "    for i in range(3):\n"
                        "        s = v.subview(v.size - 2 + i, 1)\n"
                        "        s[0] = 1.0\n"
                        "@qd.kernel\n"
                        "def ctor(arr: qd.types.ndarray(qd.f32, ndim=1)):\n"
                        "    view = BufferView(arr, 28, 8)\n"
                        "    view[0] = 1.0\n"
                        "@qd.kernel\n"
                        "def ok(v: BufferView[qd.f32], arr: qd.types.ndarray(qd.f32, ndim=1)):\n"
                        "    v[v.size - 1] = 1.0\n"
                        "    w = v.subview(2, v.size - 2)\n"
                        "    w[w.size - 1] = 2.0\n"
                        "    view = BufferView(arr, 24, 8)\n"
                        "    view[7] = 3.0\n"
                        "k(data[:16])\n"
                        "sub(data[-8:])\n"
                        "ctor(data)\n"
                        "ok(data[4:12], data)\n",
                        "k.py:8:11: error[QD2172]: BufferView Out Of Range: index reaching 16 of view 'v' with size 16, and the access "
                        "runs on every launch of kernel 'k' with this call's arguments: in debug mode Quadrants' BufferView check "
                        "raises there\n"
                        " 8 |         v[v.size + i] = 1.0\n"
                        "   |           ^~~~~~~~~~\n"
                        "k.py:25:1: note: the call whose arguments make the index 16\n"
                        " 25 | k(data[:16])\n"
                        "    | ^~~~~~~~~~~~\n"
                        "k.py:12:13: error[QD2172]: BufferView subview Out Of Range: offset=8, size=1, parent size=8 (in its loop), and "
                        "the access runs on every launch of kernel 'sub' with this call's arguments: in debug mode Quadrants' "
                        "BufferView check raises there\n"
                        " 12 |         s = v.subview(v.size - 2 + i, 1)\n"
                        "    |             ^~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
                        "k.py:26:1: note: the call whose arguments make the offset 8 and the size 1\n"
                        " 26 | sub(data[-8:])\n"
                        "    | ^~~~~~~~~~~~~~\n"
                        "k.py:16:12: error[QD2172]: BufferView construction out of range: offset=28, size=8, ndarray length=32, and "
                        "the access runs on every launch of kernel 'ctor' with this call's arguments: in debug mode Quadrants' "
                        "BufferView check raises there\n"
                        " 16 |     view = BufferView(arr, 28, 8)\n"
                        "    |            ^~~~~~~~~~~~~~~~~~~~~~\n"
                        "k.py:27:1: note: the call whose arguments make the offset 28 and the size 8\n"
                        " 27 | ctor(data)\n"
                        "    | ^~~~~~~~~~\n");
}

/* A constant index out of a field's bounds at the top level of a kernel the script calls: QD2172 notes the call. */
Test(rejects, debug_out_of_bound_notes_the_call) {
    expect_k_py_refused("import quadrants as qd\n"
                        "qd.init(debug=True)\n"
                        "x = qd.field(qd.i32, shape=(8,))\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    x[8] = 1\n"
                        "k()\n",
                        "k.py:6:7: error[QD2172]: index 8 is out of bounds for axis 0 of 'x' with size 8, and the access runs on "
                        "every launch of kernel 'k': in debug mode Quadrants' bounds check raises there (Out of bound access)\n"
                        " 6 |     x[8] = 1\n"
                        "   |       ^\n"
                        "k.py:7:1: note: kernel 'k' is called here\n"
                        " 7 | k()\n"
                        "   | ^~~\n");
    /* np.random.randn(4): a numpy array of shape (4,) */
    expect_k_py_refused("import numpy as np\n"
                        "import quadrants as qd\n"
                        "qd.init(debug=True)\n"
                        "@qd.kernel\n"
                        "def rd(a: qd.types.NDArray, i: qd.i32) -> qd.f32:\n"
                        "    return a[i]\n"
                        "a = np.random.randn(4)\n"
                        "rd(a, 3)\n"
                        "rd(a, -1)\n",
                        "k.py:6:14: error[QD2172]: index -1 is out of bounds for axis 0 of 'a' with size 4, and the access runs on "
                        "every launch of kernel 'rd' with this call's arguments: in debug mode Quadrants' bounds check raises there "
                        "(Out of bound access)\n"
                        " 6 |     return a[i]\n"
                        "   |              ^\n"
                        "k.py:9:1: note: the call whose arguments make the index -1\n"
                        " 9 | rd(a, -1)\n"
                        "   | ^~~~~~~~~\n");
}

/* @qd.data_oriented(template_primitives=False): a primitive member is a run-time kernel argument (Quadrants'
 * ast_transformer_utils.py), so qd.static of it is QD2062; its kind (integer or float) is fixed by the first launch
 * of each kernel that reads it, and a later launch with an integer member now a float is QD2069 (kernel.py's
 * TypeError). A kernel that does not read the member, a float member made an int, and the default class compile. */
Test(rejects, template_primitives_false_members) {
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.data_oriented(template_primitives=False)\n"
                        "class Sim:\n"
                        "    def __init__(self):\n"
                        "        self.n = 4\n"
                        "        self.out = qd.field(qd.i32, shape=8)\n"
                        "sim = Sim()\n"
                        "@qd.kernel\n"
                        "def step(s: qd.template()):\n"
                        "    for i in range(qd.static(s.n)):\n"
                        "        s.out[i] = i\n"
                        "step(sim)\n",
                        "k.py:10:30: error[QD2062]: 'n' is a primitive member of a @qd.data_oriented(template_primitives=False) "
                        "object, so it is a runtime kernel argument and cannot be used inside qd.static(). Either remove "
                        "qd.static(), or decorate the class @qd.data_oriented (the default, template_primitives=True) to bake 'n' "
                        "as a compile-time constant.\n"
                        " 10 |     for i in range(qd.static(s.n)):\n"
                        "    |                              ^~~\n"
                        "k.py:5:9: note: 'n' is set here\n"
                        " 5 |         self.n = 4\n"
                        "   |         ^~~~~~\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "@qd.data_oriented(template_primitives=False)\n"
                        "class Sim:\n"
                        "    def __init__(self):\n"
                        "        self.k = 2\n"
                        "        self.f = 0.5\n"
                        "        self.out = qd.field(qd.f32, shape=1)\n"
                        "sim = Sim()\n"
                        "@qd.kernel\n"
                        "def step(s: qd.template()):\n"
                        "    s.out[0] = s.k + s.f\n"
                        "@qd.kernel\n"
                        "def other(s: qd.template()):\n"
                        "    s.out[0] = 1.0\n"
                        "step(sim)\n"
                        "sim.f = 2\n"
                        "sim.k = 1.5\n"
                        "other(sim)\n"
                        "step(sim)\n",
                        "k.py:19:6: error[QD2069]: Primitive member 'k' of a @qd.data_oriented(template_primitives=False) object "
                        "was lifted as an integer kernel argument (its type at first compile), but is now a float (1.5); coercing "
                        "it would truncate. Keep the member's type stable across launches, or use the default "
                        "template_primitives=True to re-specialise the kernel per type.\n"
                        " 19 | step(sim)\n"
                        "    |      ^~~\n"
                        "k.py:17:1: note: 'k' is set to a float here\n"
                        " 17 | sim.k = 1.5\n"
                        "    | ^~~~~\n");
    expect_k_py_compiles("import quadrants as qd\n"
                         "@qd.data_oriented\n"
                         "class Sim:\n"
                         "    def __init__(self):\n"
                         "        self.n = 4\n"
                         "        self.k = 2\n"
                         "        self.out = qd.field(qd.f32, shape=8)\n"
                         "sim = Sim()\n"
                         "@qd.kernel\n"
                         "def step(s: qd.template()):\n"
                         "    for i in range(qd.static(s.n)):\n"
                         "        s.out[i] = s.k\n"
                         "step(sim)\n"
                         "sim.k = 1.5\n"
                         "step(sim)\n");
}

/* A @qd.kernel method called on an instance of a class without @qd.data_oriented: Quadrants' "Please decorate
 * class ... with @qd.data_oriented" (kernel_impl.py) at the call, a note at the class; also through a base class. */
Test(rejects, kernel_method_of_an_undecorated_class) {
    expect_k_py_refused("import quadrants as qd\n"
                        "class Base:\n"
                        "    @qd.kernel\n"
                        "    def reduce(self):\n"
                        "        pass\n"
                        "class Array1D(Base):\n"
                        "    def __init__(self, n):\n"
                        "        self.n = n\n"
                        "arr = Array1D(128)\n"
                        "arr.reduce()\n",
                        "k.py:10:1: error[QD2069]: Please decorate class Array1D with @qd.data_oriented (kernel 'reduce' is its "
                        "method, called here)\n"
                        " 10 | arr.reduce()\n"
                        "    | ^~~~~~~~~~\n"
                        "k.py:2:7: note: 'Base' is defined here without @qd.data_oriented\n"
                        " 2 | class Base:\n"
                        "   |       ^~~~\n");
}

static const char str_template_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    (void)argc;\n"
    "    int nt = atoi(argv[1]);\n"
    "    k__s_neg_5Frow_args a = {0};\n"
    "    if (k__s_neg_5Frow(&a, nt)) return 2;\n"
    "    printf(\"%d\\n%d\\n\", qd_field_x[0], qd_field_x[1]);\n"
    "    k__s_a_20b_args b = {0};\n"
    "    if (k__s_a_20b(&b, nt)) return 2;\n"
    "    printf(\"%d\\n%d\\n\", qd_field_x[0], qd_field_x[1]);\n"
    "    return 0;\n}\n";

/* A str passed to a qd.template() parameter (a literal, or a name bound to one) instantiates the kernel once per
 * value, spelled s_ then letters and digits and _XX for other bytes; qd.static(m == "...") picks the branch. */
Test(rejects, str_template_arguments_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    static const char src[] = "import quadrants as qd\n"
                              "mode = \"neg_row\"\n"
                              "x = qd.field(qd.i32, shape=(2,))\n"
                              "@qd.kernel\n"
                              "def k(m: qd.template()):\n"
                              "    if qd.static(m == \"neg_row\"):\n"
                              "        x[0] = 1\n"
                              "    else:\n"
                              "        x[1] = 2\n"
                              "k(mode)\n"
                              "k(\"a b\")\n"
                              "k(mode)\n";
    char *dir = make_temp_dir();
    int64_t got[4];
    x86_run_ints(dir, "s.py", src, str_template_host, "2", got, 4);
    cr_expect(got[0] == 1 && got[1] == 0 && got[2] == 1 && got[3] == 2, "got %lld %lld %lld %lld", (long long)got[0], (long long)got[1],
              (long long)got[2], (long long)got[3]);
    remove_tree(dir);
    free(dir);
}

/* A host call's argument of the wrong kind for a kernel parameter (Quadrants' _func_base.py): a dataclass
 * instance for a scalar, an instance of another struct type for a struct; the matching ones compile. */
Test(rejects, struct_and_dataclass_arguments) {
    expect_k_py_refused("import dataclasses\n"
                        "import quadrants as qd\n"
                        "@dataclasses.dataclass(frozen=True)\n"
                        "class State:\n"
                        "    x: qd.Tensor\n"
                        "@qd.kernel\n"
                        "def k(val: qd.f32):\n"
                        "    pass\n"
                        "x = qd.field(qd.i32, shape=(4,))\n"
                        "state = State(x=qd.Tensor(x))\n"
                        "k(state)\n",
                        "k.py:11:3: error[QD2069]: Argument (0,) (type=<class '__main__.State'>) cannot be converted into required type f32\n"
                        " 11 | k(state)\n"
                        "    |   ^~~~~\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "sphere = qd.types.struct(center=qd.math.vec3, radius=float)\n"
                        "circle = qd.types.struct(center=qd.math.vec2, radius=float)\n"
                        "@qd.kernel\n"
                        "def k(s: sphere):\n"
                        "    pass\n"
                        "k(circle(center=qd.math.vec2([1, 2]), radius=2.5))\n",
                        "k.py:7:3: error[QD2069]: Argument <class 'quadrants.lang.struct.Struct'> cannot be converted into required type "
                        "<qd.StructType center=<quadrants.lang.matrix.VectorType object at 0x...>, radius=f32, struct_methods={}>\n"
                        " 7 | k(circle(center=qd.math.vec2([1, 2]), radius=2.5))\n"
                        "   |   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
    expect_k_py_compiles("import quadrants as qd\n"
                         "sphere = qd.types.struct(center=qd.math.vec3, radius=float)\n"
                         "out = qd.field(qd.f32, shape=())\n"
                         "@qd.kernel\n"
                         "def k(s: sphere):\n"
                         "    out[None] = s.radius + s.center[2]\n"
                         "k(sphere(center=qd.math.vec3([1, 2, 3]), radius=2.5))\n");
}

/* A kernel whose every host call Quadrants refuses is never compiled there: only the call's error is reported,
 * not the one its body would give (the loop over a 1-d array with two variables). */
Test(rejects, refused_calls_compile_nothing) {
    expect_k_py_refused("import quadrants as qd\n"
                        "x = qd.ndarray(qd.f32, shape=(12, 13))\n"
                        "@qd.kernel\n"
                        "def k(arr: qd.types.NDArray[qd.f32, 1]):\n"
                        "    for i, j in arr:\n"
                        "        arr[i, j] = 0\n"
                        "k(x)\n",
                        "k.py:7:3: error[QD2069]: Invalid value for argument arr - required ndim=1, but 2d ndarray with shape (12, 13) is provided\n"
                        " 7 | k(x)\n"
                        "   |   ^\n");
}

/* In debug mode an assert at the top level of a kernel the script calls, whose condition is false at compile time
 * (a constant, or locals the straight-line code before it assigns constants), fails every launch: QD2173 with
 * Quadrants' AssertionError text (the message, formatted, or the condition's source), a note at the call. */
Test(rejects, debug_assert_always_fails) {
    expect_k_py_refused("import quadrants as qd\n"
                        "qd.init(debug=True)\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    x = 20\n"
                        "    assert 10 <= x < 20\n"
                        "@qd.kernel\n"
                        "def g(n: qd.i32):\n"
                        "    y = 0.5\n"
                        "    z = y * 2\n"
                        "    assert n > 0 or z < 0, \"y = %f, z = %d\" % (y, 3)\n"
                        "k()\n"
                        "g(1)\n",
                        "k.py:6:5: error[QD2173]: AssertionError: 10 <= x < 20 (the assert fails on every launch of kernel 'k': its "
                        "condition is false at compile time, and in debug mode Quadrants checks asserts)\n"
                        " 6 |     assert 10 <= x < 20\n"
                        "   |     ^~~~~~\n"
                        "k.py:12:1: note: kernel 'k' is called here\n"
                        " 12 | k()\n"
                        "    | ^~~\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "qd.init(debug=True)\n"
                        "@qd.kernel\n"
                        "def g():\n"
                        "    y = 0.5\n"
                        "    z = y * 2\n"
                        "    assert z < 0, f\"y = {y}, z = {z}\"\n"
                        "g()\n",
                        "k.py:7:5: error[QD2173]: AssertionError: y = 0.5, z = 1.0 (the assert fails on every launch of kernel 'g': its "
                        "condition is false at compile time, and in debug mode Quadrants checks asserts)\n"
                        " 7 |     assert z < 0, f\"y = {y}, z = {z}\"\n"
                        "   |     ^~~~~~\n"
                        "k.py:8:1: note: kernel 'g' is called here\n"
                        " 8 | g()\n"
                        "   | ^~~\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "qd.init(debug=True)\n"
                        "@qd.kernel\n"
                        "def k():\n"
                        "    assert False, \"y = %f\" % 0.25\n"
                        "k()\n",
                        "k.py:5:5: error[QD2173]: AssertionError: y = 0.250000 (the assert fails on every launch of kernel 'k': its "
                        "condition is false at compile time, and in debug mode Quadrants checks asserts)\n"
                        " 5 |     assert False, \"y = %f\" % 0.25\n"
                        "   |     ^~~~~~\n"
                        "k.py:6:1: note: kernel 'k' is called here\n"
                        " 6 | k()\n"
                        "   | ^~~\n");
    /* not certain: a run-time condition, an assert under a run-time if or in a loop, a local a run-time if may
     * change, a kernel no host code calls, debug mode off */
    expect_k_py_compiles("import quadrants as qd\n"
                         "qd.init(debug=True)\n"
                         "@qd.kernel\n"
                         "def k(n: qd.i32):\n"
                         "    x = 20\n"
                         "    assert n < 20\n"
                         "    if n > 0:\n"
                         "        assert x < 20\n"
                         "    for i in range(n):\n"
                         "        assert x < 20\n"
                         "    if n > 1:\n"
                         "        x = 0\n"
                         "    assert x < 20\n"
                         "@qd.kernel\n"
                         "def never():\n"
                         "    assert False\n"
                         "k(1)\n");
    expect_k_py_compiles("import quadrants as qd\n"
                         "@qd.kernel\n"
                         "def k():\n"
                         "    assert False\n"
                         "k()\n");
}

/* qd.init(raise_on_templated_floats=True) (a literal or a name bound to one): Quadrants refuses a float argument for a
 * template parameter, a data-oriented object with a float member passed to a fastcache kernel's template parameter,
 * and a float global read by a kernel (QD2174, its words); ints, and everything without the flag, compile. */
Test(rejects, raise_on_templated_floats) {
    expect_k_py_refused("import quadrants as qd\n"
                        "flag = True\n"
                        "qd.init(raise_on_templated_floats=flag)\n"
                        "@qd.kernel\n"
                        "def k1(a: qd.Template) -> None:\n"
                        "    print(a)\n"
                        "k1(123)\n"
                        "k1(1.25)\n",
                        "k.py:8:4: error[QD2174]: Floats not allowed as templated types. (argument 'a' of kernel 'k1'; "
                        "qd.init(raise_on_templated_floats=True))\n"
                        " 8 | k1(1.25)\n"
                        "   |    ^~~~\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "qd.init(raise_on_templated_floats=True)\n"
                        "@qd.data_oriented\n"
                        "class D:\n"
                        "    def __init__(self):\n"
                        "        self.n = 3\n"
                        "        self.f = 1.5\n"
                        "@qd.kernel(fastcache=True)\n"
                        "def k1(a: qd.Template) -> None:\n"
                        "    pass\n"
                        "obj = D()\n"
                        "k1(obj)\n",
                        "k.py:12:4: error[QD2174]: Floats should not be used in template parameters. (member 'f' of the "
                        "data-oriented object passed for 'a' of fastcache kernel 'k1'; qd.init(raise_on_templated_floats=True))\n"
                        " 12 | k1(obj)\n"
                        "    |    ^~~\n"
                        "k.py:7:9: note: 'f' is set here\n"
                        " 7 |         self.f = 1.5\n"
                        "   |         ^~~~~~\n");
    expect_k_py_refused("import quadrants as qd\n"
                        "qd.init(raise_on_templated_floats=True)\n"
                        "c = 123\n"
                        "d = 1.25\n"
                        "@qd.kernel\n"
                        "def k() -> qd.f32:\n"
                        "    return c + d\n"
                        "k()\n",
                        "k.py:7:16: error[QD2174]: Not permitted to access floats as global values ('d', read by kernel 'k'; "
                        "qd.init(raise_on_templated_floats=True))\n"
                        " 7 |     return c + d\n"
                        "   |                ^\n"
                        "k.py:4:1: note: 'd' is set here\n"
                        " 4 | d = 1.25\n"
                        "   | ^~~~~~~~\n");
    expect_k_py_compiles("import quadrants as qd\n"
                         "qd.init(raise_on_templated_floats=False)\n"
                         "d = 1.25\n"
                         "@qd.kernel\n"
                         "def k(a: qd.Template) -> qd.f32:\n"
                         "    return a + d\n"
                         "k(1.5)\n");
}

/* Debug mode follows a host call's values into the qd.funcs the kernel calls (Quadrants' callstack: the func's frame
 * and the kernel's): an index a func's parameters make out of bounds is QD2172 at the index, with a note at each
 * func call and at the host call; a func called only under a run-time if stays a run-time check. */
Test(rejects, debug_out_of_range_in_a_func) {
    expect_k_py_refused("import quadrants as qd\n"
                        "from quadrants import BufferView\n"
                        "qd.init(debug=True)\n"
                        "data = qd.ndarray(qd.f32, shape=(32,))\n"
                        "@qd.func\n"
                        "def put(w: BufferView[qd.f32], j: qd.i32):\n"
                        "    w[j] = 1.0\n"
                        "@qd.func\n"
                        "def twice(w: BufferView[qd.f32], j: qd.i32):\n"
                        "    put(w, j)\n"
                        "    put(w, j + 1)\n"
                        "@qd.func\n"
                        "def pick(x: qd.types.ndarray(qd.f32, ndim=1), i: qd.i32) -> qd.f32:\n"
                        "    return x[i]\n"
                        "@qd.kernel\n"
                        "def k(v: BufferView[qd.f32]):\n"
                        "    for i in range(2):\n"
                        "        twice(v, v.size - 2 + i)\n"
                        "@qd.kernel\n"
                        "def g(x: qd.types.ndarray(qd.f32, ndim=1), n: qd.i32) -> qd.f32:\n"
                        "    return pick(x, n)\n"
                        "k(data[:16])\n"
                        "g(data, 32)\n",
                        "k.py:7:7: error[QD2172]: BufferView Out Of Range: index reaching 16 of view 'w' with size 16, and the access "
                        "runs on every launch of kernel 'k' with this call's arguments: in debug mode Quadrants' BufferView check "
                        "raises there\n"
                        " 7 |     w[j] = 1.0\n"
                        "   |       ^\n"
                        "k.py:11:5: note: in qd.func 'put', called here\n"
                        " 11 |     put(w, j + 1)\n"
                        "    |     ^~~~~~~~~~~~~\n"
                        "k.py:18:9: note: in qd.func 'twice', called here\n"
                        " 18 |         twice(v, v.size - 2 + i)\n"
                        "    |         ^~~~~~~~~~~~~~~~~~~~~~~~\n"
                        "k.py:22:1: note: the call whose arguments make the index 16\n"
                        " 22 | k(data[:16])\n"
                        "    | ^~~~~~~~~~~~\n"
                        "k.py:14:14: error[QD2172]: index 32 is out of bounds for axis 0 of 'x' with size 32, and the access runs on "
                        "every launch of kernel 'g' with this call's arguments: in debug mode Quadrants' bounds check raises there "
                        "(Out of bound access)\n"
                        " 14 |     return x[i]\n"
                        "    |              ^\n"
                        "k.py:21:12: note: in qd.func 'pick', called here\n"
                        " 21 |     return pick(x, n)\n"
                        "    |            ^~~~~~~~~~\n"
                        "k.py:23:1: note: the call whose arguments make the index 32\n"
                        " 23 | g(data, 32)\n"
                        "    | ^~~~~~~~~~~\n");
    expect_k_py_compiles("import quadrants as qd\n"
                         "from quadrants import BufferView\n"
                         "qd.init(debug=True)\n"
                         "data = qd.ndarray(qd.f32, shape=(32,))\n"
                         "@qd.func\n"
                         "def put(w: BufferView[qd.f32], j: qd.i32):\n"
                         "    j = 0\n"
                         "    w[j] = 1.0\n"
                         "@qd.func\n"
                         "def put2(w: BufferView[qd.f32], j: qd.i32):\n"
                         "    w[j] = 1.0\n"
                         "@qd.kernel\n"
                         "def k(v: BufferView[qd.f32]):\n"
                         "    for i in range(2):\n"
                         "        put(v, v.size + i)\n"
                         "        put2(v, v.size - 2 + i)\n"
                         "    if v.size > 100:\n"
                         "        put2(v, v.size)\n"
                         "k(data[:16])\n");
}

static const char func_valid_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    (void)argc;\n"
    "    for (int i = 0; i < 3; i += 2) {\n"
    "        k_args a = {.i = i};\n"
    "        if (k(&a, atoi(argv[1]))) return 2;\n"
    "        for (int j = 0; j < 4; j++) printf(\"%d\\n\", qd_field_out[j]);\n"
    "    }\n"
    "    return 0;\n}\n";

/* The in-bounds calls of a kernel whose qd.funcs debug mode follows compile, and compute what Python does
 * (v = [10, 20, 30]: out = v + v[i], then v[2 - i], read through qd.funcs) on 1 and 4 threads. */
Test(rejects, debug_in_bounds_func_calls_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    static const char src[] = "import quadrants as qd\n"
                              "qd.init(debug=True)\n"
                              "out = qd.field(qd.i32, shape=(4,))\n"
                              "@qd.func\n"
                              "def at(v: qd.template(), j: qd.i32) -> qd.i32:\n"
                              "    return v[j]\n"
                              "@qd.func\n"
                              "def both(v: qd.template(), j: qd.i32, i: qd.i32) -> qd.i32:\n"
                              "    return at(v, j) + at(v, i)\n"
                              "@qd.kernel\n"
                              "def k(i: qd.i32):\n"
                              "    v = qd.Vector([10, 20, 30])\n"
                              "    for j in range(3):\n"
                              "        out[j] = both(v, j, i)\n"
                              "    out[3] = at(v, 2 - i)\n"
                              "k(0)\n"
                              "k(2)\n";
    static const int64_t want[8] = {20, 30, 40, 30, 40, 50, 60, 10};
    const char *threads[] = {"1", "4"};
    for (int t = 0; t < 2; t++) {
        char *dir = make_temp_dir();
        int64_t got[8];
        x86_run_ints(dir, "funcs.py", src, func_valid_host, threads[t], got, 8);
        for (int k = 0; k < 8; k++) cr_expect_eq(got[k], want[k], "%s threads: value %d: got %lld, want %lld", threads[t], k, (long long)got[k], (long long)want[k]);
        remove_tree(dir);
        free(dir);
    }
    expect_k_py_refused("import quadrants as qd\n"
                        "qd.init(debug=True)\n"
                        "out = qd.field(qd.i32, shape=(4,))\n"
                        "@qd.func\n"
                        "def at(v: qd.template(), j: qd.i32) -> qd.i32:\n"
                        "    return v[j]\n"
                        "@qd.kernel\n"
                        "def k(i: qd.i32):\n"
                        "    v = qd.Vector([10, 20, 30])\n"
                        "    out[3] = at(v, 2 - i)\n"
                        "k(3)\n",
                        "k.py:6:14: error[QD2172]: index -1 is out of bounds for axis 0 of 'v' with size 3, and the access runs on "
                        "every launch of kernel 'k' with this call's arguments: in debug mode Quadrants' bounds check raises there "
                        "(Out of bound access)\n"
                        " 6 |     return v[j]\n"
                        "   |              ^\n"
                        "k.py:10:14: note: in qd.func 'at', called here\n"
                        " 10 |     out[3] = at(v, 2 - i)\n"
                        "    |              ^~~~~~~~~~~~\n"
                        "k.py:11:1: note: the call whose arguments make the index -1\n"
                        " 11 | k(3)\n"
                        "    | ^~~~\n");
}

/* field.to_torch(copy=False) / to_numpy(copy=False) where Quadrants has no zero-copy view (field.py
 * _can_zerocopy_field): a member of an AoS struct field, a fields' shared cell, an SoA vector field, a dtype DLPack
 * does not export, a 0-d scalar field (QD2175, at the call); the views Quadrants exports compile. */
Test(rejects, zero_copy_not_available) {
    expect_k_py_refused("import quadrants as qd\n"
                        "s = qd.types.struct(a=qd.i32, b=qd.types.vector(3, qd.f32))\n"
                        "f = s.field(shape=(4,), layout=qd.Layout.AOS)\n"
                        "g = s.field(shape=(4,), layout=qd.Layout.SOA)\n"
                        "h = qd.field(qd.f16, shape=(4,))\n"
                        "z = qd.field(qd.f32, shape=())\n"
                        "v = qd.Vector.field(3, qd.f32, shape=(4,), layout=qd.Layout.SOA)\n"
                        "x = qd.field(qd.f32)\n"
                        "y = qd.field(qd.f32)\n"
                        "qd.root.dense(qd.i, 4).place(x, y)\n"
                        "@qd.kernel\n"
                        "def fill():\n"
                        "    for i in range(4):\n"
                        "        f[i].a = i\n"
                        "        g[i].a = i\n"
                        "f.a.to_torch(copy=False)\n"
                        "f.b.to_numpy(copy=False)\n"
                        "h.to_torch(copy=False)\n"
                        "z.to_numpy(copy=False)\n"
                        "v.to_torch(copy=False)\n"
                        "x.to_torch(copy=False)\n",
                        "k.py:16:1: error[QD2175]: Zero-copy not available for arch=x64, dtype=i32 (f.a.to_torch(copy=False): it "
                        "shares its cell with other members (an AoS struct member))\n"
                        " 16 | f.a.to_torch(copy=False)\n"
                        "    | ^~~~~~~~~~~~~~~~~~~~~~~~\n"
                        "k.py:3:1: note: the field is declared here\n"
                        " 3 | f = s.field(shape=(4,), layout=qd.Layout.AOS)\n"
                        "   | ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
                        "k.py:17:1: error[QD2175]: Zero-copy not available for dtype=f32 (f.b.to_numpy(copy=False): its components are "
                        "not alone in their cell (an AoS struct member, or SoA layout))\n"
                        " 17 | f.b.to_numpy(copy=False)\n"
                        "    | ^~~~~~~~~~~~~~~~~~~~~~~~\n"
                        "k.py:3:1: note: the field is declared here\n"
                        " 3 | f = s.field(shape=(4,), layout=qd.Layout.AOS)\n"
                        "   | ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
                        "k.py:18:1: error[QD2175]: Zero-copy not available for arch=x64, dtype=f16 (h.to_torch(copy=False): its dtype "
                        "is not one DLPack exports (f32, f64, i32, i64, u1))\n"
                        " 18 | h.to_torch(copy=False)\n"
                        "    | ^~~~~~~~~~~~~~~~~~~~~~\n"
                        "k.py:5:1: note: the field is declared here\n"
                        " 5 | h = qd.field(qd.f16, shape=(4,))\n"
                        "   | ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
                        "k.py:19:1: error[QD2175]: Zero-copy not available for dtype=f32 (z.to_numpy(copy=False): it is a 0-d scalar "
                        "field)\n"
                        " 19 | z.to_numpy(copy=False)\n"
                        "    | ^~~~~~~~~~~~~~~~~~~~~~\n"
                        "k.py:6:1: note: the field is declared here\n"
                        " 6 | z = qd.field(qd.f32, shape=())\n"
                        "   | ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
                        "k.py:20:1: error[QD2175]: Zero-copy not available for arch=x64, dtype=f32 (v.to_torch(copy=False): its "
                        "components are not alone in their cell (an AoS struct member, or SoA layout))\n"
                        " 20 | v.to_torch(copy=False)\n"
                        "    | ^~~~~~~~~~~~~~~~~~~~~~\n"
                        "k.py:7:1: note: the field is declared here\n"
                        " 7 | v = qd.Vector.field(3, qd.f32, shape=(4,), layout=qd.Layout.SOA)\n"
                        "   | ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
                        "k.py:21:1: error[QD2175]: Zero-copy not available for arch=x64, dtype=f32 (x.to_torch(copy=False): it shares "
                        "its cell with other members (an AoS struct member))\n"
                        " 21 | x.to_torch(copy=False)\n"
                        "    | ^~~~~~~~~~~~~~~~~~~~~~\n"
                        "k.py:8:1: note: the field is declared here\n"
                        " 8 | x = qd.field(qd.f32)\n"
                        "   | ^~~~~~~~~~~~~~~~~~~~\n");
    expect_k_py_compiles("import quadrants as qd\n"
                         "s = qd.types.struct(a=qd.i32, b=qd.types.vector(3, qd.f32))\n"
                         "g = s.field(shape=(4,), layout=qd.Layout.SOA)\n"
                         "u = qd.Vector.field(3, qd.f32, shape=(4,))\n"
                         "w = qd.field(qd.f32, shape=(4, 2))\n"
                         "x = qd.field(qd.f32)\n"
                         "qd.root.dense(qd.i, 4).place(x)\n"
                         "@qd.kernel\n"
                         "def fill():\n"
                         "    for i in range(4):\n"
                         "        g[i].a = i\n"
                         "        x[i] = u[i][0] + w[i, 0]\n"
                         "fill()\n"
                         "g.a.to_torch(copy=False)\n"
                         "g.a.to_numpy(copy=False)\n"
                         "u.to_torch(copy=False)\n"
                         "w.to_numpy(copy=False)\n"
                         "x.to_torch(copy=False)\n");
}

/* A numpy view neither C- nor F-contiguous, a torch view not contiguous, passed for an ndarray parameter: Quadrants'
 * launch refuses it (_func_base.py), QD2069 at the argument; contiguous views (and numpy's F-contiguous a.T, which
 * Quadrants copies) compile. */
Test(rejects, non_contiguous_arrays) {
    expect_k_py_refused("import numpy as np\n"
                        "import torch\n"
                        "import quadrants as qd\n"
                        "@qd.kernel\n"
                        "def fill(img: qd.types.ndarray()):\n"
                        "    img[0] = 1\n"
                        "@qd.kernel\n"
                        "def first(x: qd.types.ndarray(dtype=qd.f32, ndim=2)):\n"
                        "    x[0, 0] = 1\n"
                        "a = np.zeros(shape=(2, 3))\n"
                        "col = a[:, 0]\n"
                        "fill(col)\n"
                        "b = np.zeros((4, 1), dtype=np.float32)\n"
                        "skip = b[::2, 0]\n"
                        "fill(skip)\n"
                        "t = torch.Tensor([[1, 2, 3], [4, 5, 6]]).T\n"
                        "first(t)\n"
                        "fill(a[:, 2])\n",
                        "k.py:12:6: error[QD2069]: Non contiguous numpy arrays are not supported, please call "
                        "np.ascontiguousarray(arr) before passing it into quadrants kernel.\n"
                        " 12 | fill(col)\n"
                        "    |      ^~~\n"
                        "k.py:15:6: error[QD2069]: Non contiguous numpy arrays are not supported, please call "
                        "np.ascontiguousarray(arr) before passing it into quadrants kernel.\n"
                        " 15 | fill(skip)\n"
                        "    |      ^~~~\n"
                        "k.py:17:7: error[QD2069]: Non contiguous tensors are not supported, please call tensor.contiguous() before "
                        "passing it into quadrants kernel.\n"
                        " 17 | first(t)\n"
                        "    |       ^\n"
                        "k.py:18:6: error[QD2069]: Non contiguous numpy arrays are not supported, please call "
                        "np.ascontiguousarray(arr) before passing it into quadrants kernel.\n"
                        " 18 | fill(a[:, 2])\n"
                        "    |      ^~~~~~~\n");
    expect_k_py_compiles("import numpy as np\n"
                         "import torch\n"
                         "import quadrants as qd\n"
                         "@qd.kernel\n"
                         "def fill(img: qd.types.ndarray()):\n"
                         "    img[0] = 1\n"
                         "@qd.kernel\n"
                         "def first(x: qd.types.ndarray(dtype=qd.f32, ndim=2)):\n"
                         "    x[0, 0] = 1\n"
                         "a = np.zeros(shape=(2, 3))\n"
                         "row = a[1]\n"
                         "part = a[-1, 1:]\n"
                         "fill(row)\n"
                         "fill(a[1])\n"
                         "fill(part)\n"
                         "t = torch.Tensor([[1, 2, 3]]).T\n"
                         "first(t)\n"
                         "u = torch.Tensor([[1, 2, 3], [4, 5, 6]]).T.contiguous()\n"
                         "first(u)\n"
                         "c = np.zeros((3, 2), dtype=np.float32)\n"
                         "d = c.T\n"
                         "first(d)\n");
}
