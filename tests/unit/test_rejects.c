/* Rejections with Quadrants' reason (issue 30): each check Quadrants makes when it compiles a
 * kernel, as qdc reports it: exact diagnostic (location, code, Quadrants' sentence in the message,
 * caret), exit status 1, no output file. The forms next to them that compile stay accepted. */
#include "harness.h"
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
